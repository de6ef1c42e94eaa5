/*
 * Description: the lines of a real load as a user pastes them. A default
 * (brief) `loadscope load` prints at most 10 lines besides its fallbacks,
 * none over 200 characters, all `[loadscope/2]`; and the triage reads the
 * same figures (times, sizes, rates, counts) from every line cut at its
 * ` | `, at 1000 columns, and (as far as the cut leaves them) at 80 and
 * 120 columns or wrapped at 80, as from the whole lines, within the
 * rounding of the sentence. Both the brief lines and LOADSCOPE=verbose's.
 * The figures are compared as the triage keeps them for a start
 * (tools/triage/internal.h's start summary), from the sentence alone when
 * the tail is gone (tools/triage/lsc_sentence.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers/tool_run.h"
#include "helpers/triage_run.h"
#include "triage/internal.h"

#define OUT_MAX (1 << 16)

/* `loadscope load FILE` with LOADSCOPE=@mode, stdout and stderr together. */
static void run_load(const char *mode, const char *file, char *out)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "LOADSCOPE=%s '%s' load '%s' 2>&1", mode, LSC_TEST_TOOL, file);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	size_t n = fread(out, 1, OUT_MAX - 1, p);
	out[n] = 0;
	cr_assert_eq(pclose(p), 0, "%s", out);
}

static const char *make_file(void)
{
	static char path[512];
	const char *dir = lsct_scratch("lines_brief");
	snprintf(path, sizeof path, "%s/w.bin", dir);
	char out[4096], err[4096];
	cr_assert_eq(lsct_tool(out, sizeof out, err, sizeof err, "load --make-test-file '%s' --gib 0.25", path),
		     0, "%s%s", out, err);
	return path;
}

Test(lines_brief, a_default_load_is_ten_short_lines)
{
	lsct_tool_required();
	static char out[OUT_MAX];
	run_load("on", make_file(), out);
	unsigned lines = 0, fallbacks = 0;
	for (char *l = out, *nl; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		cr_assert_not_null(nl, "%s", out);
		size_t len = (size_t)(nl - l);
		cr_assert_leq(len, 200, "a line of %zu characters: %.*s", len, (int)len, l);
		cr_assert(!strncmp(l, "[loadscope/2] ", 14), "%.*s", (int)len, l);
		lines++;
		fallbacks += !strncmp(l + 14, "fallback ", 9);
	}
	cr_assert_leq(lines - fallbacks, 10, "%s", out);
	/* the figures a brief line leaves to its sentence are there */
	cr_assert(strstr(out, "] phase allocate: ") && strstr(out, "] complement ready: resident ") &&
		  strstr(out, "] loaded ") && strstr(out, "] ready in "), "%s", out);
	cr_assert_null(strstr(out, "] phase prefault"), "a nested span's line in a brief log:\n%s", out);
	lsct_scratch_remove();
}

/* Each line of @in cut: at its first " | " (@cols 0), or after @cols
 * bytes; wrapped onto the next lines when @wrap. */
static char *cut(const char *in, size_t cols, int wrap)
{
	char *o = malloc(strlen(in) * 2 + 1), *w = o;
	cr_assert_not_null(o);
	for (const char *l = in, *nl; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		if (!nl)
			nl = l + strlen(l);
		size_t len = (size_t)(nl - l), keep = len;
		if (!cols) {
			const char *bar = strstr(l, " | ");
			if (bar && bar < nl)
				keep = (size_t)(bar - l);
		} else if (len > cols) {
			keep = cols;
		}
		memcpy(w, l, keep);
		w += keep;
		*w++ = '\n';
		for (size_t at = keep; wrap && at < len; at += cols) {
			size_t n = len - at < cols ? len - at : cols;
			memcpy(w, l + at, n);
			w += n;
			*w++ = '\n';
		}
		if (!*nl)
			break;
	}
	*w = 0;
	return o;
}

/* Within the sentence's rounding: 3 decimals of seconds, 2 of GiB and
 * GiB/s, 4 digits of a count ("258.1k"). */
static int close_to(double a, double b)
{
	return fabs(a - b) <= 0.0051 + 0.002 * fabs(a);
}

/* @whole's figure @a against the cut's @b: the same, or (@partial, where
 * the cut took the figure with it) absent, never another value. */
static void same(const char *what, double a, double b, int partial, const char *how)
{
	if (isnan(b) && (partial || isnan(a)))
		return;
	cr_expect(!isnan(a) && close_to(a, b), "%s: %s is %g whole, %g cut", how, what, a, b);
}

static void compare(const char *whole, const char *how, size_t cols, int wrap, int partial)
{
	char *c = cut(whole, cols, wrap);
	struct lsc_triage *a = trun_text(whole), *b = trun_text(c);
	cr_assert(a && b);
	cr_assert_eq(a->nsums, 1, "%s", whole);
	cr_assert_eq(b->nsums, 1, "%s: %zu starts in\n%s", how, (size_t)b->nsums, c);
	const struct tr_startsum *x = &a->sums[0], *y = &b->sums[0];
	static const char *const ph[TR_K_N] = {"allocate", "pin", "read", "copy", "verify"};
	for (int k = 0; k < TR_K_N; k++)
		same(ph[k], x->ph[k], y->ph[k], partial, how);
	same("complement total", x->comp_total_s, y->comp_total_s, partial, how);
	same("complement alloc", x->comp_alloc_s, y->comp_alloc_s, partial, how);
	same("complement copy", x->comp_copy_s, y->comp_copy_s, partial, how);
	same("loaded GiB", x->loaded_gib, y->loaded_gib, partial, how);
	same("load rate", x->loaded_rate, y->loaded_rate, partial, how);
	same("read", x->read_s, y->read_s, partial, how);
	same("ready", x->ready_s, y->ready_s, partial, how);
	same("unattributed", x->unattributed_s, y->unattributed_s, partial, how);
	same("faults/s", x->faults_per_s, y->faults_per_s, partial, how);
	/* pgfault (every process's faults) is a field only: the sentence
	 * names this process's minor faults instead */
	/* A counter a cut phase line does not list is unknown, not 0; the
	 * rest of a wrapped line ("thp_fault_alloc +29; this process ...")
	 * reads as another program's vmstat figures, so a wrapped log's
	 * counters are partial sums and only its times are compared. */
	for (int k = 0; k < TR_VM_N && !wrap; k++)
		if (k != TR_VM_PGFAULT && !(isnan(y->vm[k]) && x->vm[k] == 0))
			same(tr_vm_names[k], x->vm[k], y->vm[k], partial, how);
	lsc_triage_free(a);
	lsc_triage_free(b);
	free(c);
}

static void cuts(const char *mode)
{
	lsct_tool_required();
	static char out[OUT_MAX];
	run_load(mode, make_file(), out);
	compare(out, "cut at ' | '", 0, 0, 0);
	compare(out, "cut at 1000 columns", 1000, 0, 0);
	compare(out, "cut at 120 columns", 120, 0, 1);
	compare(out, "cut at 80 columns", 80, 0, 1);
	compare(out, "wrapped at 80 columns", 80, 1, 1);
	lsct_scratch_remove();
}

Test(lines_brief, brief_lines_cut_give_the_same_figures)
{
	cuts("on");
}

Test(lines_brief, verbose_lines_cut_give_the_same_figures)
{
	cuts("verbose");
}

/* The sentence's figures themselves, on a line whose tail is gone: the
 * reader is checked against numbers written here, not only against the
 * writer. */
Test(lines_brief, sentence_alone)
{
	struct lsc_triage *t = trun_text(
		"[loadscope/2] start e: pid 1, loadscope 0.3.0, 2026-12-01T21:13:58Z\n"
		"[loadscope/2] phase allocate: 8.00 GiB in 12.500 s (0.64 GiB/s); machine compact_stall +1.2k "
		"compact_fail +900; this process 2.10M minor, 3 major faults\n"
		"[loadscope/2] phase read: 8.00 GiB in 4.000 s (2.00 GiB/s); this process 2 minor, 0 major faults\n"
		"[loadscope/2] complement ready: resident 8.00 GiB, pinned 8.00 GiB in 17.000 s (alloc 12.500 s, "
		"pin 0.400 s, copy 4.000 s); 8.00 GiB of it in huge pages\n"
		"[loadscope/2] loaded 8.00 GiB in 17.000 s (0.47 GiB/s over the wall time); allocate 12.500 s, pin "
		"0.400 s, read 4.000 s (2.00 GiB/s); io_uring, buffered\n"
		"[loadscope/2] ready in 17.500 s: 3 phases, 0.600 s (3.4%) unattributed\n");
	cr_assert_not_null(t);
	cr_assert_eq(t->nsums, 1);
	const struct tr_startsum *m = &t->sums[0];
	cr_expect_float_eq(m->ph[TR_K_ALLOC], 12.5, 1e-9);
	cr_expect_float_eq(m->ph[TR_K_READ], 4.0, 1e-9);
	cr_expect_float_eq(m->comp_total_s, 17.0, 1e-9);
	cr_expect_float_eq(m->comp_alloc_s, 12.5, 1e-9);
	cr_expect_float_eq(m->comp_copy_s, 4.0, 1e-9);
	cr_expect_float_eq(m->loaded_gib, 8.0, 1e-9);
	cr_expect_float_eq(m->loaded_rate, 0.47, 1e-9);
	cr_expect_float_eq(m->read_s, 4.0, 1e-9);
	cr_expect_float_eq(m->ready_s, 17.5, 1e-9);
	cr_expect_float_eq(m->unattributed_s, 0.6, 1e-9);
	cr_expect_float_eq(m->vm[TR_VM_COMPACT_STALL], 1200, 1e-9);
	cr_expect_float_eq(m->vm[TR_VM_COMPACT_FAIL], 900, 1e-9);
	cr_expect_float_eq(m->faults_per_s, 2.1e6 / 12.5, 1e-3);
	lsc_triage_free(t);
}

/* lsc_load_into's summary, whose memory is the caller's. */
Test(lines_brief, sentence_alone_caller_memory)
{
	struct lsc_triage *t = trun_text(
		"[loadscope/2] start e: pid 1, loadscope 0.3.0, 2026-12-01T21:13:58Z\n"
		"[loadscope/2] complement ready: 2.00 GiB read into memory allocated and pinned by the caller in "
		"3.250 s (copy 3.100 s); the caller's memory: 0.00 GiB of 2.00 GiB in huge pages, 2.00 GiB locked, "
		"process VmPin 0.00 GiB\n"
		"[loadscope/2] loaded 2.00 GiB in 3.250 s (0.62 GiB/s over the wall time); allocate and pin by the "
		"caller, read 3.100 s (0.65 GiB/s); io_uring, buffered\n"
		"[loadscope/2] ready in 3.300 s: 1 phases, 0.050 s (1.5%) unattributed\n");
	cr_assert_not_null(t);
	cr_assert_eq(t->nsums, 1);
	const struct tr_startsum *m = &t->sums[0];
	cr_expect_float_eq(m->comp_total_s, 3.25, 1e-9);
	cr_expect_float_eq(m->comp_copy_s, 3.1, 1e-9);
	cr_expect_float_eq(m->read_s, 3.1, 1e-9);
	cr_expect_float_eq(m->loaded_gib, 2.0, 1e-9);
	cr_expect_float_eq(m->ready_s, 3.3, 1e-9);
	lsc_triage_free(t);
}

/* The system sentence gives the settings a start's table shows. */
Test(lines_brief, system_sentence_alone)
{
	struct lsc_triage *t = trun_text(
		"[loadscope/2] start e: pid 1, loadscope 0.3.0, 2026-12-01T21:13:58Z\n"
		"[loadscope/2] system 6.8.0-49-generic; THP always, defrag defer; MemAvailable 3.00 GiB of 62.79 GiB, "
		"20.0 MiB in huge-page blocks; hugetlb 4 of 16 free; swap 8.00 GiB; memlock 8.0 MiB; page reporting "
		"(order 9)\n"
		"[loadscope/2] ready in 3.300 s: 1 phases, 0.050 s (1.5%) unattributed\n");
	cr_assert_not_null(t);
	cr_assert_eq(t->nrows, 1);
	const char *defrag = "";
	for (unsigned i = 0; i < t->rows[0].ncfg; i++)
		if (!strcmp(t->rows[0].cfg[i][0], "defrag"))
			defrag = t->rows[0].cfg[i][1];
	cr_expect_str_eq(defrag, "defer");
	lsc_triage_free(t);
}

/* What a brief line leaves out is in the JSON lines: every line (the
 * nested prefault span, the pin note) and every field. */
Test(lines_brief, json_keeps_every_line_and_field)
{
	lsct_tool_required();
	static char brief[OUT_MAX], json[OUT_MAX];
	const char *file = make_file();
	run_load("on", file, brief);
	run_load("json", file, json);
	/* two runs: whether the auto policy falls back may differ between
	 * them, so fallback lines are not counted */
	unsigned nb = 0, nj = 0;
	for (const char *l = brief, *nl; (nl = strchr(l, '\n')); l = nl + 1)
		nb += strncmp(l, "[loadscope/2] fallback ", 23) != 0;
	for (const char *l = json, *nl; (nl = strchr(l, '\n')); l = nl + 1)
		nj += strncmp(l, "{\"loadscope\":2,\"event\":\"fallback\"", 33) != 0;
	cr_expect_eq(nj, nb + 2, "brief:\n%s\njson:\n%s", brief, json);
	cr_expect(strstr(json, "\"event\":\"phase\",\"msg\":\"prefault (nested): "), "%s", json);
	cr_expect(strstr(json, "\"event\":\"note\",\"msg\":\"pin: "), "%s", json);
	cr_expect(strstr(json, "\"minflt\":") && strstr(json, "\"reason\":") && strstr(json, "\"thp_reason\":") &&
		      strstr(json, "\"mem_total_bytes\":"),
		  "%s", json);
	cr_expect_null(strstr(brief, " minflt="), "%s", brief);
	cr_expect_null(strstr(brief, " thp_reason="), "%s", brief);
	lsct_scratch_remove();
}
