/*
 * The triage corpus as a test: every whole startup log under
 * tests/corpus/logs must give exactly the findings (id, severity, start) its
 * tests/corpus/expected/NAME.ids lists, and render byte for byte as the
 * reviewed goldens tests/corpus/golden/NAME.{txt,json,md} (plus
 * NAME.table.md for the A/B logs, "-ab-" in the name, and NAME.html for
 * the few logs golden/HTML lists, whose pages hold every element and
 * class the corpus's pages use: a page is large, a handful covers it).
 *
 * The .ids files are the spec: written from the mechanism in each log, not
 * from the tool's output (tests/corpus/README.md says how each was decided).
 * The goldens are the tool's output after a line-by-line review; regenerate
 * them with `LSC_UPDATE_GOLDEN=1 ctest -R test_triage_corpus` or
 * tests/corpus/regen.sh, then review the diff. CI never sets the variable.
 * Logs listed in golden/UNBLESSED (output reviewed and found wrong) get no
 * golden written, so their golden checks keep failing until the tool is
 * fixed and the new output reviewed.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers/triage_run.h"

#define LOGS LSC_TEST_CORPUS "/logs"
#define EXPECTED LSC_TEST_CORPUS "/expected"
#define GOLDEN LSC_TEST_CORPUS "/golden"

static int updating(void)
{
	const char *e = getenv("LSC_UPDATE_GOLDEN");
	return e && strcmp(e, "1") == 0;
}

/* "name.log" -> "name" into @stem */
static void stem_of(const char *log, char *stem, size_t cap)
{
	snprintf(stem, cap, "%s", log);
	char *dot = strrchr(stem, '.');
	if (dot)
		*dot = '\0';
}

static char **logs_or_fail(size_t *n)
{
	char **v = trun_list_specd(LOGS, EXPECTED, n);
	cr_assert(v && *n > 0, "no corpus logs with a spec under %s", LOGS);
	return v;
}

Test(corpus, every_log_has_a_spec_and_every_spec_a_log)
{
	size_t n, m;
	char **logs = trun_list(LOGS, ".log", &n);
	char **ids = trun_list(EXPECTED, ".ids", &m);
	cr_assert(logs && n > 0);
	for (size_t i = 0; i < n; i++) {
		char stem[256], path[512], vpath[512];
		struct stat st;
		stem_of(logs[i], stem, sizeof stem);
		snprintf(path, sizeof path, EXPECTED "/%s.ids", stem);
		snprintf(vpath, sizeof vpath, LSC_TEST_CORPUS "/verdicts/%s.verdict", stem);
		/* a findings spec, or a verdict spec (a public log not reviewed
		 * for its findings yet: tests/test_triage_verdict_files.c) */
		cr_expect(stat(path, &st) == 0 || stat(vpath, &st) == 0, "%s has no spec %s nor %s", logs[i],
			  path, vpath);
	}
	for (size_t i = 0; i < m; i++) {
		char stem[256], path[512];
		struct stat st;
		stem_of(ids[i], stem, sizeof stem);
		snprintf(path, sizeof path, LOGS "/%s.log", stem);
		cr_expect(stat(path, &st) == 0, "spec %s has no log", ids[i]);
	}
	trun_names_free(logs, n);
	trun_names_free(ids, m);
}

Test(corpus, stays_small)
{
	size_t n, total = 0;
	char **logs = logs_or_fail(&n);
	for (size_t i = 0; i < n; i++) {
		char path[512];
		struct stat st;
		snprintf(path, sizeof path, LOGS "/%s", logs[i]);
		cr_assert(stat(path, &st) == 0);
		total += (size_t)st.st_size;
	}
	cr_expect(total < (1u << 20), "the corpus is %zu bytes; keep it under 1 MiB", total);
	trun_names_free(logs, n);
}

/* The seed reports' engine lines, in every variant, must be in the corpus
 * (issue 4, item 7: "including every line of the seeds"). */
Test(corpus, holds_every_seed_line_shape)
{
	static const char *const shapes[] = {
		"cudaHostRegister PORTABLE ok; MAP_HUGETLB unavailable (needed 20464 2 MiB pages, vm.nr_hugepages=0); "
		"transparent huge pages requested (MADV_HUGEPAGE)\n",
		"transparent huge pages requested (MADV_HUGEPAGE; kernel defrag=madvise)",
		"transparent huge pages skipped (STRATA_NO_ARENA_THP); using 4 KB pages",
		"; using 4 KB pages\n",
		"cudaHostRegister PORTABLE ok; hugetlb 2 MB pages",
		"expert arena read through the file cache (buffered (not Windows))",
		"loaded 39.97 GiB at 2.86 GiB/s",
		"loaded 39.97 GiB at 3.12 GiB/s",
		"loaded 39.97 GiB at 3.06 GiB/s",
		"mapped pinned cache complement ready: resident 28.47 GiB, pinned 28.47 GiB in",
		"mapped pinned cache complement ready: resident 13.21 GiB, pinned 13.21 GiB in 10 s; page-locked and mapped",
		"0 blob reads from the file",
		"still starting (",
		"verify: timed out at layer 32 (#267)",
		"GPU 0: NVIDIA GeForce RTX 5070 Ti, compute capability 12.0",
		"ioctl(3, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, 0x7ffedcee90e0) = -1 EAGAIN (Resource temporarily unavailable) <2.336246>",
		"madvise(0x7c4843e00000, 30569431040, MADV_HUGEPAGE) = 0",
		"compact_stall +858",
		"compact_fail +858",
		"thp_fault_fallback +290",
		"allocstall_normal +286",
		"pswpin +257614",
		"load_tensors: loading model tensors, this can take a while... (mmap = false, direct_io = true)",
		"llama_perf_context_print:        load time =",
		"warning: failed to mlock",
		"Try increasing RLIMIT_MEMLOCK ('ulimit -l' as root).",
		"Allocating 33.38 GiB of pinned host memory, this can take a while...",
		"done allocating 33.38 GiB in 7956.8 ms",
		"Loading weights took 12.34 seconds",
		"Model loading took",
		"(EngineCore_0 pid=",
		"(RayWorker pid=42)",
		"[RunAI Streamer] Overall time to stream 69.3 GiB of all files to cpu: 119.64s, 593.2 MiB/s",
		"[loadscope/1] start",
		"[loadscope/1] phase",
		"[loadscope/1] ready",
		"{\"loadscope\":1,",
	};
	size_t n;
	char **logs = logs_or_fail(&n);
	size_t nb = 0;
	char **bufs = calloc(n, sizeof *bufs);
	for (size_t i = 0; i < n; i++) {
		char path[512];
		size_t len;
		snprintf(path, sizeof path, LOGS "/%s", logs[i]);
		bufs[i] = trun_slurp(path, &len);
		nb++;
	}
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		int found = 0;
		for (size_t i = 0; i < nb && !found; i++)
			found = bufs[i] && strstr(bufs[i], shapes[s]) != NULL;
		cr_expect(found, "no corpus log holds the seed line shape \"%s\"", shapes[s]);
	}
	for (size_t i = 0; i < nb; i++)
		free(bufs[i]);
	free(bufs);
	trun_names_free(logs, n);
}

/* 2 any fail, else 1 any warn, else 3 when nothing was found or a start is
 * not-evaluated, else 0 (docs/triage.md, Exit status) */
static int exit_of(const struct tset *s)
{
	int worst = -1, noteval = 0;
	for (size_t i = 0; i < s->n; i++) {
		if ((int)s->r[i].sev > worst)
			worst = s->r[i].sev;
		noteval |= strcmp(s->r[i].id, "not-evaluated") == 0;
	}
	if (worst < 0)
		return LSC_TRIAGE_EXIT_UNUSABLE;
	if (worst == LSC_TRIAGE_FAIL)
		return 2;
	if (worst == LSC_TRIAGE_WARN)
		return 1;
	return noteval ? LSC_TRIAGE_EXIT_UNUSABLE : 0;
}

/* Is @stem listed in expected/KNOWN_FAILURES ("stem  why", the README says
 * why at length)? Such a log's mismatch is reported loudly, counted in the
 * pass rate, and does not fail the test; a listed log that passes does, so
 * the list stays true. */
static int known_failure(const char *stem)
{
	size_t len;
	char *b = trun_slurp(EXPECTED "/KNOWN_FAILURES", &len);
	int hit = 0;
	for (char *save = NULL, *l = b ? strtok_r(b, "\n", &save) : NULL; l && !hit; l = strtok_r(NULL, "\n", &save)) {
		size_t k = strcspn(l, " \t");
		hit = l[0] != '#' && k == strlen(stem) && strncmp(l, stem, k) == 0;
	}
	free(b);
	return hit;
}

Test(corpus, findings_and_exit_code_match_the_spec)
{
	size_t n, pass = 0, known = 0;
	char **logs = logs_or_fail(&n);
	for (size_t i = 0; i < n; i++) {
		char stem[256], path[512], a[2048], b[2048];
		size_t len;
		stem_of(logs[i], stem, sizeof stem);
		snprintf(path, sizeof path, LOGS "/%s", logs[i]);
		char *buf = trun_slurp(path, &len);
		cr_assert(buf, "cannot read %s", path);

		struct tset want = {0}, got = {0};
		snprintf(path, sizeof path, EXPECTED "/%s.ids", stem);
		int rc = trun_read_ids(path, &want);
		cr_expect(rc == 0, "%s: unreadable or malformed spec (%d)", path, rc);

		struct lsc_triage *t = trun_feed(buf, len, 4096, 0, NULL);
		cr_assert(t);
		trun_findings(t, &got);
		int ex = lsc_triage_exit_code(t);
		int ok = tset_equal(&want, &got) && ex == exit_of(&want);
		if (known_failure(stem)) {
			known++;
			cr_expect(!ok, "%s: listed in expected/KNOWN_FAILURES but matches its spec now: remove it "
				       "from the list (and from the README's)", logs[i]);
			if (!ok)
				/* stderr, not cr_log_warn: Criterion fails a run that warns */
				fprintf(stderr, "KNOWN FAILURE %s (expected/KNOWN_FAILURES):\n  spec: %s (exit %d)\n  tool: "
					    "%s (exit %d)\n", logs[i], tset_str(&want, a, sizeof a), exit_of(&want),
					    tset_str(&got, b, sizeof b), ex);
		} else {
			cr_expect(tset_equal(&want, &got), "%s:\n  spec: %s\n  tool: %s", logs[i],
				  tset_str(&want, a, sizeof a), tset_str(&got, b, sizeof b));
			cr_expect(ex == exit_of(&want), "%s: exit code %d, the spec implies %d", logs[i], ex,
				  exit_of(&want));
		}
		pass += ok;
		lsc_triage_free(t);
		tset_free(&want);
		tset_free(&got);
		free(buf);
	}
	fprintf(stderr, "corpus: %zu of %zu logs match their spec (%zu listed as known failures)\n", pass, n, known);
	trun_names_free(logs, n);
}

/* Is @stem listed in golden/UNBLESSED (output reviewed and found wrong)? */
static int unblessed(const char *stem)
{
	size_t len;
	char *b = trun_slurp(GOLDEN "/UNBLESSED", &len);
	int hit = 0;
	for (char *save = NULL, *l = b ? strtok_r(b, "\n", &save) : NULL; l && !hit; l = strtok_r(NULL, "\n", &save))
		hit = l[0] != '#' && strcmp(l, stem) == 0;
	free(b);
	return hit;
}

/* Render @log in @fmt with @flags and compare with (or, updating, write) @golden. */
static void golden_one(const char *log, const char *stem, const char *ext, enum lsc_triage_fmt fmt,
		       unsigned flags)
{
	char path[512], gpath[512];
	size_t len, glen, olen;
	snprintf(path, sizeof path, LOGS "/%s", log);
	char *buf = trun_slurp(path, &len);
	cr_assert(buf, "cannot read %s", path);
	struct lsc_triage_opts o = {.flags = flags, .source = log};
	struct lsc_triage *t = trun_feed(buf, len, 4096, 0, &o);
	cr_assert(t);
	char *out = trun_render(t, fmt, &olen);
	cr_assert(out);
	snprintf(gpath, sizeof gpath, GOLDEN "/%s.%s", stem, ext);
	if (updating() && unblessed(stem)) {
		cr_log_warn("%s: listed in golden/UNBLESSED, golden not written", log);
	} else if (updating()) {
		cr_expect(trun_write(gpath, out, olen) == 0, "cannot write %s", gpath);
	} else {
		char *g = trun_slurp(gpath, &glen);
		cr_expect(g, "%s: no golden %s (LSC_UPDATE_GOLDEN=1 writes it; review it before committing)", log,
			  gpath);
		if (g) {
			size_t k = 0;
			while (k < glen && k < olen && g[k] == out[k])
				k++;
			unsigned long line = 1;
			for (size_t j = 0; j < k; j++)
				line += out[j] == '\n';
			cr_expect(glen == olen && k == olen,
				  "%s: output differs from %s at byte %zu (line %lu):\n  golden: %.120s\n  output: %.120s",
				  log, gpath, k, line, g + (k < glen ? k : glen), out + (k < olen ? k : olen));
		}
		free(g);
	}
	free(out);
	lsc_triage_free(t);
	free(buf);
}

static void goldens(const char *ext, enum lsc_triage_fmt fmt)
{
	size_t n;
	char **logs = logs_or_fail(&n);
	for (size_t i = 0; i < n; i++) {
		char stem[256];
		stem_of(logs[i], stem, sizeof stem);
		golden_one(logs[i], stem, ext, fmt, 0);
	}
	trun_names_free(logs, n);
}

Test(corpus, text_matches_golden) { goldens("txt", LSC_TRIAGE_TEXT); }
Test(corpus, json_matches_golden) { goldens("json", LSC_TRIAGE_JSON); }
Test(corpus, md_matches_golden) { goldens("md", LSC_TRIAGE_MD); }

Test(corpus, ab_table_matches_golden)
{
	size_t n, seen = 0;
	char **logs = logs_or_fail(&n);
	for (size_t i = 0; i < n; i++) {
		if (!strstr(logs[i], "-ab-"))
			continue;
		char stem[256];
		stem_of(logs[i], stem, sizeof stem);
		golden_one(logs[i], stem, "table.md", LSC_TRIAGE_MD, LSC_TRIAGE_TABLE | LSC_TRIAGE_TABLE_ONLY);
		seen++;
	}
	cr_expect(seen > 0, "no A/B log (\"-ab-\" in the name) in the corpus");
	trun_names_free(logs, n);
}

/* The page, for the logs golden/HTML lists (one stem a line, `#` a
 * comment): together they hold every element and class any corpus page
 * has, so a change to any part of the page shows here as a diff to review. */
Test(corpus, html_matches_golden)
{
	size_t len, seen = 0;
	char *b = trun_slurp(GOLDEN "/HTML", &len);
	cr_assert(b, "no %s", GOLDEN "/HTML");
	for (char *save = NULL, *l = strtok_r(b, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (l[0] == '#' || !l[0])
			continue;
		char log[300];
		snprintf(log, sizeof log, "%s.log", l);
		golden_one(log, l, "html", (enum lsc_triage_fmt)TRUN_HTML, 0);
		seen++;
	}
	cr_expect_geq(seen, 5, "golden/HTML lists %zu logs", seen);
	free(b);
}
