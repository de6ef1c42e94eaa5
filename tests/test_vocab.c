/*
 * Description: the line vocabulary (src/format/vocab.h) that the writers and
 * the triage share. The declared names are the documented ones
 * (docs/log-format.md, listed here by hand); every vm_* key is written in a
 * real phase line (a span over a /proc tree whose vmstat moves) and read
 * back by the triage's recogniser with its delta; the ids `loadscope probe`
 * emits on the fixture trees are declared ids, and the triage acts on the
 * two it knows (without their warn lines it does not); the one "number,
 * n/a or unlimited" field helper.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "format/line.h"
#include "format/vocab.h"
#include "helpers/capture.h"
#include "helpers/triage_run.h"
#include "triage/internal.h"
#include "triage/triage.h"

#define FX LSC_TEST_FIXTURES

/* docs/log-format.md's events, in the order of its table. */
static const char *const doc_events[] = {
	"start", "system", "phase", "region", "still", "ready", "note", "fallback",
	"arena", "complement", "loaded", "usage", "error", "warn", "ok", "verdict",
};

/* docs/log-format.md's stable probe ids. */
static const char *const doc_ids[] = {
	"thp-stall-risk", "host-refault", "memlock-short", "hugetlb-short", "mem-short",
};

static int in_list(const char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return 1;
	return 0;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

Test(vocab, declared_events_and_ids_are_the_documented_ones)
{
	cr_assert_eq(LSC__EV_COUNT, N(doc_events));
	for (size_t i = 0; i < N(doc_events); i++) {
		int e = lsc__event_of(doc_events[i]);
		cr_assert_geq(e, 0, "event %s is not declared", doc_events[i]);
		cr_assert_str_eq(lsc__event_names[e], doc_events[i]);
	}
	cr_assert_str_eq(LSC__EV(PHASE), "phase");
	cr_assert_str_eq(LSC__EV(COMPLEMENT), "complement");
	cr_assert_eq(lsc__event_of("phases"), -1);
	cr_assert_eq(lsc__event_of(""), -1);
	cr_assert_eq(lsc__event_of(NULL), -1);

	cr_assert_eq(LSC__ID_COUNT, N(doc_ids));
	for (size_t i = 0; i < N(doc_ids); i++)
		cr_assert_geq(lsc__probe_id_of(doc_ids[i]), 0, "id %s is not declared", doc_ids[i]);
	cr_assert_str_eq(LSC__ID(THP_STALL_RISK), "thp-stall-risk");
	cr_assert_str_eq(LSC__ID(HOST_REFAULT), "host-refault");
	/* exact ids: a near miss is not the warning */
	cr_assert_eq(lsc__probe_id_of("thp-stall"), -1);
	cr_assert_eq(lsc__probe_id_of("host-refaults"), -1);
	cr_assert_eq(lsc__probe_id_of(NULL), -1);
}

/* The 14 counters: the phase line's key, the counter's name (lsc_vm_name),
 * the /proc/vmstat line written for it (allocstall as its per-zone line,
 * which the reader sums), and its value before and after the span. */
static const struct {
	const char *key, *name, *line;
	long before, after;
} vm_rows[] = {
	{"vm_compact_stall", "compact_stall", "compact_stall", 100, 111},
	{"vm_compact_fail", "compact_fail", "compact_fail", 100, 122},
	{"vm_compact_success", "compact_success", "compact_success", 100, 133},
	{"vm_thp_fault_alloc", "thp_fault_alloc", "thp_fault_alloc", 100, 144},
	{"vm_thp_fault_fallback", "thp_fault_fallback", "thp_fault_fallback", 100, 155},
	{"vm_thp_fault_fallback_charge", "thp_fault_fallback_charge", "thp_fault_fallback_charge", 100, 166},
	{"vm_allocstall", "allocstall", "allocstall_normal", 100, 177},
	{"vm_pgscan_direct", "pgscan_direct", "pgscan_direct", 100, 188},
	{"vm_pgsteal_direct", "pgsteal_direct", "pgsteal_direct", 100, 199},
	{"vm_pgfault", "pgfault", "pgfault", 1000, 1210},
	{"vm_pgmajfault", "pgmajfault", "pgmajfault", 1000, 1221},
	{"vm_pswpin", "pswpin", "pswpin", 1000, 1232},
	{"vm_pswpout", "pswpout", "pswpout", 1000, 1243},
	{"vm_nr_free_pages", "nr_free_pages", "nr_free_pages", 50000, 50254},
};

static void write_vmstat(const char *path, int after)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "nr_zone_inactive_anon 7\n");
	for (size_t i = 0; i < N(vm_rows); i++)
		fprintf(f, "%s %ld\n", vm_rows[i].line, after ? vm_rows[i].after : vm_rows[i].before);
	fprintf(f, "balloon_inflate 0\n");
	cr_assert_eq(fclose(f), 0);
}

/* One start with one read span over @root, whose vmstat moves by the rows'
 * deltas while the span is open; the lines land in @cap. */
static void span_lines(struct lsct_capture *cap, const char *root, enum lsc_format fmt)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/vmstat", root);
	write_vmstat(path, 0);

	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = cap;
	o.format = fmt;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
	o.proc_root = root;
	o.sys_root = root;
	lsc_profiler *p;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	cr_assert_eq(lsc_start_begin(p, "vocab"), 0);
	lsc_span s;
	struct lsc_span_result r;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_READ, "weights", 1 << 20, &s), 0);
	write_vmstat(path, 1);
	cr_assert_eq(lsc_span_end(p, s, &r), 0);
	lsc_profiler_destroy(p); /* the start stays open: the triage keeps it current */
	unlink(path);
}

static void vm_keys_round_trip(enum lsc_format fmt)
{
	char root[] = "/tmp/lsc-vocab-XXXXXX";
	cr_assert_not_null(mkdtemp(root));
	struct lsct_capture *cap = calloc(1, sizeof(*cap));
	cr_assert_not_null(cap);
	span_lines(cap, root, fmt);
	rmdir(root);

	/* The writer: every key, in the phase line, with its delta. */
	char store[LSC__LINE_MAX];
	struct lsc__parsed ph;
	cr_assert_eq(lsct_find(cap, "phase", 0, store, sizeof store, &ph), 1, "no phase line in:\n%s", cap->buf);
	cr_assert_eq(N(vm_rows), LSC_VM_COUNT);
	for (size_t i = 0; i < N(vm_rows); i++) {
		int64_t v;
		cr_assert_eq(lsc__parsed_i64(&ph, vm_rows[i].key, &v), 0, "%s missing from the phase line",
			     vm_rows[i].key);
		cr_assert_eq(v, vm_rows[i].after - vm_rows[i].before, "%s=%lld", vm_rows[i].key,
			     (long long)v);
		cr_assert_str_eq(lsc__vm_keys[i], vm_rows[i].key);
		cr_assert_str_eq(lsc_vm_name((enum lsc_vm_counter)i), vm_rows[i].name);
	}

	/* The reader: each counter the triage follows has the same delta. */
	struct lsc_triage *t = lsc_triage_new(NULL);
	cr_assert_not_null(t);
	lsc_triage_feed(t, cap->buf, cap->len);
	cr_assert_not_null(t->cur);
	cr_assert_str_eq(t->cur->family, "loadscope");
	for (int k = 0; k < TR_VM_N; k++) {
		size_t i = 0;
		while (i < N(vm_rows) && strcmp(vm_rows[i].name, tr_vm_names[k]))
			i++;
		cr_assert_lt(i, N(vm_rows), "the triage follows %s, which no phase line carries",
			     tr_vm_names[k]);
		cr_assert(tr_has(&t->cur->vm[k]), "the triage did not read %s", vm_rows[i].key);
		cr_assert_float_eq(t->cur->vm[k].v, (double)(vm_rows[i].after - vm_rows[i].before), 1e-9,
				   "%s read back as %g", vm_rows[i].key, t->cur->vm[k].v);
	}
	lsc_triage_finish(t);
	lsc_triage_free(t);
	free(cap);
}

Test(vocab, every_vm_key_is_written_in_a_phase_line_and_read_back_human)
{
	vm_keys_round_trip(LSC_FORMAT_HUMAN);
}

Test(vocab, every_vm_key_is_written_in_a_phase_line_and_read_back_json)
{
	vm_keys_round_trip(LSC_FORMAT_JSON);
}

struct probe_out {
	char text[65536];
	size_t len;
	int status;
};

static void run_probe(const char *tree, unsigned arena_gib, struct probe_out *out)
{
	char cmd[1024];
	if (!LSC_TEST_TOOL[0])
		cr_skip_test("the loadscope program is not built (LOADSCOPE_BUILD_TOOLS=OFF)");
	snprintf(cmd, sizeof(cmd), "'%s' probe --proc-root '%s/%s/proc' --sys-root '%s/%s/sys' --arena-gib %u",
		 LSC_TEST_TOOL, FX, tree, FX, tree, arena_gib);
	FILE *f = popen(cmd, "r");
	cr_assert_not_null(f);
	out->len = fread(out->text, 1, sizeof(out->text) - 1, f);
	out->text[out->len] = '\0';
	int st = pclose(f);
	cr_assert(WIFEXITED(st), "%s: status %#x", cmd, st);
	out->status = WEXITSTATUS(st);
}

/* The ids of @out's warn lines, each checked to be a declared and
 * documented id; a bit per declared id. */
static unsigned warn_ids(struct probe_out *out)
{
	unsigned seen = 0;
	char *save = NULL, *copy = strdup(out->text);
	cr_assert_not_null(copy);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		struct lsc__parsed p;
		if (lsc__line_parse(l, strlen(l), &p) != 1 || strcmp(p.event, "warn"))
			continue;
		const char *id = lsc__parsed_get(&p, "id");
		cr_assert_not_null(id, "a warn line without an id");
		cr_assert(in_list(doc_ids, N(doc_ids), id), "the probe emits an undocumented id %s", id);
		int k = lsc__probe_id_of(id);
		cr_assert_geq(k, 0, "the probe emits an undeclared id %s", id);
		seen |= 1u << k;
	}
	free(copy);
	return seen;
}

/* @text without its warn lines. */
static char *without_warns(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;
	cr_assert_not_null(out);
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl + 1 - l) : strlen(l);
		if (!memmem(l, n, "] warn ", 7)) {
			memcpy(o, l, n);
			o += n;
		}
		l += n;
	}
	*o = '\0';
	return out;
}

/* The triage's finding @finding fires on the probe's output for @tree and
 * an arena of @gib, where the probe warns @want_id alone, and does not once
 * that warn line is gone: it came from the warning's id. */
static void triage_knows(const char *tree, unsigned gib, const char *finding, unsigned want_id)
{
	struct probe_out *out = malloc(sizeof(*out));
	cr_assert_not_null(out);
	run_probe(tree, gib, out);
	cr_assert_eq(out->status, 1, "%s: the probe warned nothing:\n%s", tree, out->text);
	cr_assert_eq(warn_ids(out), 1u << want_id, "%s: not the %s warning alone:\n%s", tree,
		     lsc__probe_ids[want_id], out->text);

	struct lsc_triage *t = trun_text(out->text);
	cr_assert_not_null(t);
	cr_assert_geq(trun_sev_of(t, finding), 0, "%s: %s did not fire on:\n%s", tree, finding, out->text);
	lsc_triage_free(t);

	char *bare = without_warns(out->text);
	cr_assert_null(strstr(bare, "] warn "));
	t = trun_text(bare);
	cr_assert_not_null(t);
	cr_assert_eq(trun_sev_of(t, finding), -1, "%s: %s fired without the warn lines", tree, finding);
	lsc_triage_free(t);
	free(bare);
	free(out);
}

Test(vocab, the_probe_emits_declared_ids_on_every_fixture)
{
	static const char *const trees[] = {
		"always-defer-madvise", "host-6.18-madvise", "old-kernel-no-mthp",
		"vm-page-reporting", "garbage", "container-no-vmstat",
	};
	struct probe_out *out = malloc(sizeof(*out));
	cr_assert_not_null(out);
	unsigned all = 0;
	for (size_t i = 0; i < N(trees); i++) {
		run_probe(trees[i], 100000, out);
		unsigned ids = warn_ids(out);
		cr_assert_eq(out->status, ids ? 1 : 0, "%s: exit %d with ids %#x", trees[i], out->status, ids);
		all |= ids;
	}
	free(out);
	/* what these trees hold (tests/fixtures/README.md): a THP stall risk, a
	 * VM with free page reporting, a configured hugetlb pool too small for
	 * 100000 GiB, and MemAvailable below it */
	cr_assert_eq(all, (1u << LSC__ID_THP_STALL_RISK) | (1u << LSC__ID_HOST_REFAULT) |
				  (1u << LSC__ID_HUGETLB_SHORT) | (1u << LSC__ID_MEM_SHORT),
		     "ids seen %#x", all);
}

Test(vocab, the_triage_acts_on_the_thp_stall_id)
{
	triage_knows("host-6.18-madvise", 4, "thp-direct-compaction", LSC__ID_THP_STALL_RISK);
}

Test(vocab, the_triage_acts_on_the_host_refault_id)
{
	triage_knows("vm-page-reporting", 1, "host-refault", LSC__ID_HOST_REFAULT);
}

Test(vocab, number_fields_say_na_and_unlimited)
{
	struct lsc__rec r;
	lsc__rec_init(&r, LSC__EV(SYSTEM));
	lsc__rec_num(&r, "a", 42);
	lsc__rec_num(&r, "b", LSC_NA);
	lsc__rec_num(&r, "c", LSC_UNLIMITED);
	lsc__rec_num(&r, "d", -1);
	char line[LSC__LINE_MAX];
	size_t n = lsc__rec_render(&r, LSC_FORMAT_HUMAN, NULL, line, sizeof(line));
	cr_assert(strstr(line, "| a=42 b=n/a c=unlimited d=-1\n"), "%.*s", (int)n, line);
	n = lsc__rec_render(&r, LSC_FORMAT_JSON, NULL, line, sizeof(line));
	cr_assert(strstr(line, "\"a\":42,\"b\":\"n/a\",\"c\":\"unlimited\",\"d\":-1}"), "%.*s", (int)n, line);
}
