/*
 * Description: the profiler core. Starts and spans print the documented
 * lines through the sink, nest per thread, account unattributed time, honour
 * LOADSCOPE=off/on/json, report API misuse once (a note without its topic or
 * text is refused), and write a trace file
 * that is valid JSON with strictly nested events. No assertion depends on
 * how long anything took.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#include "helpers/capture.h"
#include "helpers/trace_json.h"

static struct lsct_capture cap;
static char store[LSC__LINE_MAX + 1];

static void setup(void)
{
	memset(&cap, 0, sizeof(cap));
}

TestSuite(profiler, .init = setup);

Test(profiler, start_span_ready_lines)
{
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
	cr_assert_not_null(p);
	cr_assert_eq(lsc_start_begin(p, "engine"), 0);
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_ALLOCATE, NULL, 64 << 20, &s), 0);
	cr_assert_neq(s, 0);
	/* Real work: fault 64 MiB. */
	char *m = mmap(NULL, 64 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(m, MAP_FAILED);
	madvise(m, 64 << 20, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < (64u << 20); i += 4096)
		m[i] = 1;
	struct lsc_span_result res;
	cr_assert_eq(lsc_span_end(p, s, &res), 0);
	cr_assert_eq(lsc_start_end(p), 0);
	lsc_profiler_destroy(p);

	cr_assert_eq(cap.calls_without_newline, 0);
	cr_assert_eq(lsct_count(&cap, "start"), 1);
	cr_assert_eq(lsct_count(&cap, "system"), 1);
	cr_assert_eq(lsct_count(&cap, "phase"), 1);
	cr_assert_eq(lsct_count(&cap, "ready"), 1);

	/* The faults of the span are the process's own: at least one per page. */
	cr_assert_geq(res.minflt, 16384, "minflt %lld", (long long)res.minflt);
	cr_assert_eq(res.bytes, 64u << 20);
	cr_assert_eq(res.kind, LSC_PHASE_ALLOCATE);

	struct lsc__parsed ph;
	cr_assert(lsct_find(&cap, "phase", 0, store, sizeof(store), &ph));
	cr_assert_str_eq(lsc__parsed_get(&ph, "kind"), "allocate");
	cr_assert_str_eq(lsc__parsed_get(&ph, "name"), "allocate");
	cr_assert_str_eq(lsc__parsed_get(&ph, "bytes"), "67108864");
	cr_assert_str_eq(lsc__parsed_get(&ph, "depth"), "0");
	int64_t v;
	cr_assert_eq(lsc__parsed_i64(&ph, "minflt", &v), 0);
	cr_assert_eq(v, res.minflt);
	/* /proc/vmstat is readable here: pgfault moved by at least our faults. */
	cr_assert_eq(lsc__parsed_i64(&ph, "vm_pgfault", &v), 0, "line: %s", ph.human);
	cr_assert_geq(v, 16384);
	cr_assert_eq(lsc__parsed_i64(&ph, "rss_kib", &v), 0);
	cr_assert_geq(v, 64 * 1024);
	cr_assert(strstr(ph.human, "allocate: 64.0 MiB in ") == ph.human, "human: %s", ph.human);
	munmap(m, 64 << 20);
}

Test(profiler, every_line_names_its_run)
{
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
	lsc_start_begin(p, NULL);
	lsc_start_end(p);
	lsc_profiler_destroy(p);
	struct lsc__parsed a, b;
	char s2[LSC__LINE_MAX + 1];
	cr_assert(lsct_find(&cap, "start", 0, store, sizeof(store), &a));
	cr_assert(lsct_find(&cap, "ready", 0, s2, sizeof(s2), &b));
	cr_assert_eq(strlen(lsc__parsed_get(&a, "run")), 8);
	cr_assert_str_eq(lsc__parsed_get(&a, "run"), lsc__parsed_get(&b, "run"));
}

Test(profiler, spans_nest_per_thread)
{
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
	lsc_start_begin(p, "nest");
	lsc_span outer, inner;
	lsc_span_begin(p, LSC_PHASE_READ, NULL, 0, &outer);
	lsc_span_begin(p, LSC_PHASE_CUSTOM, "prefault", 0, &inner);
	cr_assert_eq(lsc_span_end(p, inner, NULL), 0);
	cr_assert_eq(lsc_span_end(p, outer, NULL), 0);
	lsc_start_end(p);
	lsc_profiler_destroy(p);

	struct lsc__parsed a, b;
	char s2[LSC__LINE_MAX + 1];
	cr_assert(lsct_find(&cap, "phase", 0, store, sizeof(store), &a));
	cr_assert(lsct_find(&cap, "phase", 1, s2, sizeof(s2), &b));
	cr_assert_str_eq(lsc__parsed_get(&a, "name"), "prefault");
	cr_assert_str_eq(lsc__parsed_get(&a, "kind"), "custom");
	cr_assert_str_eq(lsc__parsed_get(&a, "depth"), "1");
	cr_assert_str_eq(lsc__parsed_get(&a, "parent"), lsc__parsed_get(&b, "span"));
	cr_assert_str_eq(lsc__parsed_get(&b, "depth"), "0");
	cr_assert_str_eq(lsc__parsed_get(&b, "parent"), "0");
}

static double field(const char *event, const char *key)
{
	struct lsc__parsed p;
	double d = -1;
	cr_assert(lsct_find(&cap, event, 0, store, sizeof(store), &p), "no %s line", event);
	cr_assert_eq(lsc__parsed_f64(&p, key, &d), 0, "no %s in %s", key, event);
	return d;
}

/* Identities, not timings: with no span, nothing is covered; with one span
 * across the start, covered + unattributed == wall. */
Test(profiler, unattributed_time)
{
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
	lsc_start_begin(p, "empty");
	lsc_start_end(p);
	cr_assert_eq(field("ready", "covered_s"), 0.0);
	cr_assert_eq(field("ready", "unattributed_s"), field("ready", "wall_s"));
	lsc_profiler_destroy(p);

	memset(&cap, 0, sizeof(cap));
	p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
	lsc_start_begin(p, "covered");
	lsc_span s;
	lsc_span_begin(p, LSC_PHASE_READ, NULL, 0, &s);
	lsc_span_end(p, s, NULL);
	lsc_start_end(p);
	double wall = field("ready", "wall_s"), cov = field("ready", "covered_s"),
	       un = field("ready", "unattributed_s");
	cr_assert_gt(cov, 0.0);
	cr_assert_leq(cov, wall);
	cr_assert_float_eq(cov + un, wall, 2e-6);
	cr_assert_eq(field("ready", "phases"), 1.0);
	lsc_profiler_destroy(p);
}

Test(profiler, overlapped_phase_is_not_covered_time)
{
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
	lsc_start_begin(p, "overlap");
	cr_assert_eq(lsc_phase_record(p, LSC_PHASE_COPY, NULL, 1 << 30, 500000000ull), 0);
	lsc_start_end(p);
	lsc_profiler_destroy(p);
	struct lsc__parsed ph;
	cr_assert(lsct_find(&cap, "phase", 0, store, sizeof(store), &ph));
	cr_assert_str_eq(lsc__parsed_get(&ph, "overlapped"), "1");
	cr_assert_str_eq(lsc__parsed_get(&ph, "kind"), "copy");
	cr_assert_str_eq(lsc__parsed_get(&ph, "gibps"), "2.000");
	cr_assert_eq(field("ready", "covered_s"), 0.0);
}

/* Bytes with no busy time have no rate: the line said "(nan GiB/s)". */
Test(profiler, overlapped_phase_without_busy_time_has_no_rate)
{
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
	cr_assert_eq(lsc_phase_record(p, LSC_PHASE_COPY, NULL, 1 << 20, 0), 0);
	cr_assert_eq(lsc_phase_record(p, LSC_PHASE_VERIFY, NULL, 1 << 20, 1000000), 0);
	lsc_profiler_destroy(p);
	struct lsc__parsed ph;
	cr_assert(lsct_find(&cap, "phase", 0, store, sizeof(store), &ph));
	cr_assert_str_eq(ph.human, "copy: 1.0 MiB in 0.000 s busy (no rate without busy time), overlapped "
				   "with other phases", "%s", ph.human);
	cr_assert_str_eq(lsc__parsed_get(&ph, "gibps"), "n/a");
	cr_assert(lsct_find(&cap, "phase", 1, store, sizeof(store), &ph));
	cr_assert(strstr(ph.human, "(0.98 GiB/s)"), "the other side keeps its rate: %s", ph.human);
	cr_assert_null(strstr(cap.buf, "nan"), "%s", cap.buf);
}

Test(profiler, callback_sink_one_call_per_complete_line)
{
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_JSON, 0);
	lsc_start_begin(p, "json");
	lsc_note(p, "engine", "a note with \"quotes\"\nand a newline");
	lsc_start_end(p);
	lsc_profiler_destroy(p);
	cr_assert_eq(cap.calls_without_newline, 0);
	cr_assert_eq(cap.lines, 4);
	struct lsc__parsed n;
	cr_assert(lsct_find(&cap, "note", 0, store, sizeof(store), &n));
	cr_assert_eq(n.format, LSC_FORMAT_JSON);
	cr_assert_str_eq(lsc__parsed_get(&n, "text"), "a note with \"quotes\"\nand a newline");
	/* The sentence stays on one line. */
	cr_assert_null(strchr(n.human, '\n'));
}

static lsc_profiler *env_profiler(const char *value)
{
	setenv("LOADSCOPE", value, 1);
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.flags = LSC_PROFILER_NO_WATCHDOG;
	lsc_profiler *p = NULL;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	return p;
}

/* A note without its topic or its text is refused and prints nothing. */
Test(profiler, a_note_needs_a_topic_and_a_text)
{
	lsc_profiler *p = env_profiler("on");
	cap.len = 0;
	cap.buf[0] = '\0';
	cr_assert_eq(lsc_note(p, NULL, "text"), -EINVAL);
	cr_assert_eq(lsc_note(p, "topic", NULL), -EINVAL);
	cr_assert_eq(lsc_note(p, NULL, NULL), -EINVAL);
	cr_assert_eq(lsct_count(&cap, "note"), 0, "%s", cap.buf);
	cr_assert_eq(lsc_note(p, "topic", "text"), 0);
	cr_assert_eq(lsct_count(&cap, "note"), 1, "%s", cap.buf);
	lsc_profiler_destroy(p);
}

Test(profiler, env_off_is_a_noop)
{
	lsc_profiler *p = env_profiler("off");
	cr_assert_eq(lsc_profiler_enabled(p), 0);
	cr_assert_eq(lsc_start_begin(p, "x"), 0);
	lsc_span s = 99;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_PIN, NULL, 1, &s), 0);
	cr_assert_eq(s, 0);
	cr_assert_eq(lsc_span_progress(p, s, 1), 0);
	struct lsc_span_result r;
	cr_assert_eq(lsc_span_end(p, s, &r), 0);
	cr_assert_eq(r.wall_ns, 0);
	cr_assert_eq(lsc_note(p, "a", "b"), 0);
	cr_assert_eq(lsc_start_end(p), 0);
	lsc_profiler_destroy(p);
	cr_assert_eq(cap.len, 0);
	/* NULL is as quiet as off. */
	cr_assert_eq(lsc_span_begin(NULL, LSC_PHASE_PIN, NULL, 1, &s), 0);
	cr_assert_eq(lsc_span_end(NULL, s, NULL), 0);
	lsc_profiler_destroy(NULL);
}

Test(profiler, env_json_and_on)
{
	lsc_profiler *p = env_profiler("json");
	lsc_start_begin(p, "x");
	lsc_profiler_destroy(p);
	cr_assert(strncmp(cap.buf, "{\"loadscope\":2,\"event\":\"start\",", 31) == 0, "%s", cap.buf);
	memset(&cap, 0, sizeof(cap));
	p = env_profiler("on");
	lsc_start_begin(p, "x");
	lsc_profiler_destroy(p);
	cr_assert(strncmp(cap.buf, "[loadscope/2] start ", 20) == 0, "%s", cap.buf);
}

/* LOADSCOPE=OFF, as people type it, was rejected as a bad value. */
Test(profiler, env_values_in_any_case)
{
	const char *off[] = {"OFF", "Off", "oFf"};
	for (unsigned i = 0; i < 3; i++) {
		lsc_profiler *p = env_profiler(off[i]);
		cr_assert_eq(lsc_profiler_enabled(p), 0, "LOADSCOPE=%s", off[i]);
		lsc_profiler_destroy(p);
	}
	cr_assert_eq(cap.len, 0, "%s", cap.buf);
	lsc_profiler *p = env_profiler("JSON");
	lsc_start_begin(p, "x");
	lsc_profiler_destroy(p);
	cr_assert(strncmp(cap.buf, "{\"loadscope\":2,\"event\":\"start\",", 31) == 0, "%s", cap.buf);
	memset(&cap, 0, sizeof(cap));
	p = env_profiler("On");
	cr_assert_eq(lsc_profiler_enabled(p), 1);
	lsc_profiler_destroy(p);
	cr_assert_eq(lsct_count(&cap, "usage"), 0, "%s", cap.buf);
}

/* "the call was ignored" only where it was: a start ended with a span
 * still open does end; a span ended twice does nothing. */
Test(profiler, usage_line_says_ignored_only_when_it_was)
{
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
	lsc_start_begin(p, "x");
	lsc_span s;
	lsc_span_begin(p, LSC_PHASE_READ, NULL, 0, &s);
	cr_assert_eq(lsc_start_end(p), 0);
	cr_assert_eq(lsc_span_end(p, s, NULL), 0);
	cr_assert_eq(lsc_span_end(p, s, NULL), -EINVAL);
	lsc_profiler_destroy(p);
	cr_assert_eq(lsct_count(&cap, "ready"), 1);
	struct lsc__parsed u;
	cr_assert(lsct_find(&cap, "usage", 0, store, sizeof store, &u));
	cr_assert_str_eq(u.human, "API misuse: 1 span(s) still open at lsc_start_end (reported once)");
	cr_assert(lsct_find(&cap, "usage", 1, store, sizeof store, &u));
	cr_assert_str_eq(u.human, "API misuse: a span was ended twice (or its handle is not open in this profiler) "
				  "(reported once; the call was ignored)");
}

/* Spans the engine never ended are counted when the profiler is destroyed:
 * one usage line with their number (here 2 of the 3 begun), none when every
 * span was ended. */
Test(profiler, spans_open_at_destroy_are_counted)
{
	for (int leave_open = 0; leave_open <= 2; leave_open += 2) {
		lsct_capture_reset(&cap);
		lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
		lsc_span s[3];
		for (int i = 0; i < 3; i++)
			cr_assert_eq(lsc_span_begin(p, LSC_PHASE_READ, NULL, 0, &s[i]), 0);
		for (int i = 2; i >= leave_open; i--)
			cr_assert_eq(lsc_span_end(p, s[i], NULL), 0);
		lsc_profiler_destroy(p);
		struct lsc__parsed u;
		int found = lsct_find(&cap, "usage", 0, store, sizeof store, &u);
		if (!leave_open) {
			cr_assert(!found, "a usage line with every span ended: %s", cap.buf);
			continue;
		}
		cr_assert(found, "%s", cap.buf);
		cr_assert_str_eq(u.human, "API misuse: 2 span(s) still open when the profiler was destroyed "
					  "(reported once)");
		cr_assert_eq(lsct_count(&cap, "usage"), 1, "%s", cap.buf);
	}
}

/* The words every switch variable takes (docs/configuration.md): no and
 * yes, in any case, as the loader's switches take them. */
Test(profiler, env_no_and_yes)
{
	lsc_profiler *p = env_profiler("No");
	cr_assert_eq(lsc_profiler_enabled(p), 0);
	lsc_profiler_destroy(p);
	p = env_profiler("YES");
	cr_assert_eq(lsc_profiler_enabled(p), 1);
	lsc_profiler_destroy(p);
	cr_assert_eq(lsct_count(&cap, "usage"), 0, "%s", cap.buf);
}

Test(profiler, env_bad_value_reported_once)
{
	lsc_profiler *p = env_profiler("loud");
	cr_assert_eq(lsc_profiler_enabled(p), 1);
	lsc_profiler_destroy(p);
	cr_assert_eq(lsct_count(&cap, "usage"), 1);
	cr_assert(strstr(cap.buf, "LOADSCOPE=loud is not off, on, json, verbose, 0, 1, no or yes; ignored") != NULL,
		  "%s", cap.buf);
}

Test(profiler, mode_off_option)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.mode = LSC_MODE_OFF;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE;
	lsc_profiler *p;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	lsc_start_begin(p, "x");
	lsc_profiler_destroy(p);
	cr_assert_eq(cap.len, 0);
}

Test(profiler, bad_options)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	lsc_profiler *p = (lsc_profiler *)1;
	o.format = (enum lsc_format)7;
	cr_assert_eq(lsc_profiler_create(&o, &p), -EINVAL);
	cr_assert_null(p);
	lsc_profiler_options_init(&o);
	char longp[200];
	memset(longp, 'p', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = '\0';
	o.prefix = longp;
	cr_assert_eq(lsc_profiler_create(&o, &p), -EINVAL);
	cr_assert_eq(lsc_profiler_create(NULL, NULL), -EINVAL);
	/* Paths are never cut short: a cut root reads other files. */
	char longer[600];
	memset(longer, 'r', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	const char **paths[] = {&o.proc_root, &o.sys_root, &o.trace_path};
	for (unsigned i = 0; i < 3; i++) {
		lsc_profiler_options_init(&o);
		*paths[i] = longer;
		cr_assert_eq(lsc_profiler_create(&o, &p), -ENAMETOOLONG, "path %u", i);
		cr_assert_null(p);
	}
}

Test(profiler, env_trace_path_too_long_is_reported_and_ignored)
{
	char longer[600];
	memset(longer, 't', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	setenv("LOADSCOPE_TRACE", longer, 1);
	lsc_profiler *p = env_profiler("on");
	unsetenv("LOADSCOPE_TRACE");
	lsc_profiler_destroy(p);
	cr_assert_eq(lsct_count(&cap, "usage"), 1, "%s", cap.buf);
	cr_assert(strstr(cap.buf, "LOADSCOPE_TRACE is longer than 511 bytes") != NULL, "%s", cap.buf);
}

Test(profiler, misuse_reported_once_and_ignored)
{
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
	lsc_start_begin(p, "misuse");
	lsc_span a, b;
	lsc_span_begin(p, LSC_PHASE_READ, NULL, 0, &a);
	lsc_span_begin(p, LSC_PHASE_COPY, NULL, 0, &b);
	/* Out of order: the parent before its child. Ignored. */
	cr_assert_eq(lsc_span_end(p, a, NULL), -EINVAL);
	cr_assert_eq(lsc_span_end(p, b, NULL), 0);
	cr_assert_eq(lsc_span_end(p, a, NULL), 0);
	/* Twice, and twice more: one usage line for the kind. */
	cr_assert_eq(lsc_span_end(p, a, NULL), -EINVAL);
	cr_assert_eq(lsc_span_end(p, a, NULL), -EINVAL);
	cr_assert_eq(lsc_span_end(p, 12345, NULL), -EINVAL);
	cr_assert_eq(lsc_start_begin(p, "again"), -EINVAL);
	lsc_start_end(p);
	cr_assert_eq(lsc_start_end(p), -EINVAL);
	lsc_profiler_destroy(p);
	cr_assert_eq(lsct_count(&cap, "phase"), 2);
	cr_assert_eq(lsct_count(&cap, "usage"), 4, "%s", cap.buf);
}

struct foreign {
	lsc_profiler *p;
	lsc_span s;
	int rc;
};

static void *end_elsewhere(void *arg)
{
	struct foreign *f = arg;
	f->rc = lsc_span_end(f->p, f->s, NULL);
	return NULL;
}

Test(profiler, span_ended_by_another_thread_is_refused)
{
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
	struct foreign f = {p, 0, 0};
	lsc_span_begin(p, LSC_PHASE_PIN, NULL, 0, &f.s);
	pthread_t t;
	pthread_create(&t, NULL, end_elsewhere, &f);
	pthread_join(t, NULL);
	cr_assert_eq(f.rc, -EINVAL);
	cr_assert_eq(lsc_span_end(p, f.s, NULL), 0);
	lsc_profiler_destroy(p);
	cr_assert_eq(lsct_count(&cap, "usage"), 1);
}

Test(profiler, unreadable_proc_gives_na_not_errors)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
	o.proc_root = "/nonexistent/proc";
	o.sys_root = "/nonexistent/sys";
	lsc_profiler *p;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	cr_assert_eq(lsc_start_begin(p, "container"), 0);
	lsc_span s;
	lsc_span_begin(p, LSC_PHASE_READ, NULL, 0, &s);
	struct lsc_span_result r;
	cr_assert_eq(lsc_span_end(p, s, &r), 0);
	lsc_start_end(p);
	lsc_profiler_destroy(p);
	cr_assert_eq(r.vm_valid, 0);
	cr_assert_eq(r.rss_kib, -1);
	struct lsc__parsed ph;
	cr_assert(lsct_find(&cap, "phase", 0, store, sizeof(store), &ph));
	cr_assert_str_eq(lsc__parsed_get(&ph, "vm"), "n/a");
	/* and its sentence says so, where a reader looks first */
	cr_assert_eq(lsct_count_with(&cap, "phase", "; vmstat n/a"), 1);
	cr_assert(lsct_find(&cap, "system", 0, store, sizeof(store), &ph));
	cr_assert_str_eq(lsc__parsed_get(&ph, "thp_defrag"), "n/a");
	cr_assert_str_eq(lsc__parsed_get(&ph, "mem_available_bytes"), "n/a");
}

Test(profiler, too_many_open_spans)
{
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
	lsc_span s[65];
	for (int i = 0; i < 64; i++)
		cr_assert_eq(lsc_span_begin(p, LSC_PHASE_CUSTOM, "n", 0, &s[i]), 0);
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_CUSTOM, "n", 0, &s[64]), -ENOSPC);
	cr_assert_eq(s[64], 0);
	for (int i = 63; i >= 0; i--)
		cr_assert_eq(lsc_span_end(p, s[i], NULL), 0);
	lsc_profiler_destroy(p);
}

/* After creation the profiler allocates nothing: spans and lines live in
 * the handle and on the stack. */
Test(profiler, no_heap_allocation_per_span)
{
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
	lsc_start_begin(p, "alloc");
	lsc_span s;
	lsc_span_begin(p, LSC_PHASE_READ, NULL, 0, &s);
	lsc_span_end(p, s, NULL);
	struct mallinfo2 before = mallinfo2();
	for (int i = 0; i < 200; i++) {
		lsc_span_begin(p, LSC_PHASE_READ, NULL, 4096, &s);
		lsc_span_progress(p, s, 4096);
		lsc_span_end(p, s, NULL);
	}
	struct mallinfo2 after = mallinfo2();
	lsc_profiler_destroy(p);
	cr_assert_eq(before.uordblks, after.uordblks);
	cr_assert_eq(before.hblkhd, after.hblkhd);
}

/* A profiler whose watchdog reports any span open for 10 ms. */
static lsc_profiler *eager_watchdog(lsc_sink_fn sink, void *user)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = sink;
	o.sink_user = user;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE;
	o.watchdog_after_s = 0.01;
	o.watchdog_every_s = 0.01;
	lsc_profiler *p;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	return p;
}

Test(profiler, watchdog_reports_a_long_span)
{
	lsc_profiler *p = eager_watchdog(lsct_sink, &cap);
	lsc_start_begin(p, "slow");
	lsc_span s;
	lsc_span_begin(p, LSC_PHASE_READ, NULL, 1000, &s);
	lsc_span_progress(p, s, 250);
	/* Wait for the line, however long the machine takes to schedule it. */
	for (int i = 0; i < 600 && lsct_count(&cap, "still") == 0; i++)
		usleep(50000);
	lsc_span_end(p, s, NULL);
	lsc_profiler_destroy(p);
	struct lsc__parsed st;
	cr_assert(lsct_find(&cap, "still", 0, store, sizeof(store), &st), "no still line in: %s", cap.buf);
	cr_assert_str_eq(lsc__parsed_get(&st, "kind"), "read");
	cr_assert_str_eq(lsc__parsed_get(&st, "done_bytes"), "250");
	cr_assert_str_eq(lsc__parsed_get(&st, "total_bytes"), "1000");
	cr_assert(strstr(st.human, "in read after ") == st.human, "%s", st.human);
	cr_assert(strstr(cap.buf, "[loadscope/2] still in read after ") != NULL, "%s", cap.buf);
}

Test(profiler, trace_file_is_valid_nested_json)
{
	char path[] = "/tmp/lsc-trace-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	setenv("LOADSCOPE_TRACE", path, 1);
	setenv("LOADSCOPE", "on", 1);
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.flags = LSC_PROFILER_NO_WATCHDOG;
	lsc_profiler *p;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	lsc_start_begin(p, "trace \"quoted\"");
	lsc_span a, b, c;
	lsc_span_begin(p, LSC_PHASE_ALLOCATE, NULL, 1, &a);
	lsc_span_begin(p, LSC_PHASE_CUSTOM, "prefault \"x\"", 1, &b);
	lsc_span_end(p, b, NULL);
	lsc_span_end(p, a, NULL);
	lsc_span_begin(p, LSC_PHASE_READ, NULL, 1, &c);
	lsc_phase_record(p, LSC_PHASE_VERIFY, NULL, 1, 1000);
	lsc_span_end(p, c, NULL);
	lsc_start_end(p);
	lsc_profiler_destroy(p);

	FILE *f = fopen(path, "r");
	cr_assert_not_null(f);
	static char text[1 << 20];
	size_t n = fread(text, 1, sizeof(text), f);
	fclose(f);
	unlink(path);
	char why[160] = "";
	unsigned nx = 0;
	cr_assert_eq(lsct_trace_json_check(text, n, &nx, why, sizeof(why)), 0, "%s\n%s", why, text);
	cr_assert_eq(nx, 4, "%s", text); /* three spans, and verify's overlapped work */
	cr_assert(strstr(text, "\"ph\":\"C\"") != NULL);
	cr_assert(strstr(text, "\"ph\":\"i\"") != NULL);
	cr_assert(strstr(text, "\"name\":\"prefault \\\"x\\\"\"") != NULL, "%s", text);
}

Test(profiler, names)
{
	cr_assert_str_eq(lsc_phase_name(LSC_PHASE_VERIFY), "verify");
	cr_assert_str_eq(lsc_phase_name((enum lsc_phase_kind)99), "?");
	cr_assert_str_eq(lsc_strerror(-ENOENT), "No such file or directory");
	cr_assert_str_eq(lsc_strerror(LSC_E_NODEVICE), "no GPU device");
	cr_assert_str_eq(lsc_version_string(), LSC_VERSION_STRING);
}

/* An engine that forks (Python workers, helper processes) must be able to
 * use and destroy the profiler in the child: the watchdog thread is the
 * parent's, and "self" in /proc names the child. */
Test(profiler, usable_and_destroyable_after_fork)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.stream = fopen("/dev/null", "w");
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE;
	lsc_profiler *p;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	lsc_start_begin(p, "parent"); /* starts the watchdog thread */
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		alarm(20); /* a hang fails the test instead of the suite */
		lsc_span s;
		struct lsc_span_result r;
		int ok = lsc_span_begin(p, LSC_PHASE_READ, NULL, 0, &s) == 0 && lsc_span_end(p, s, &r) == 0 &&
			 r.rss_kib > 0;
		lsc_profiler_destroy(p);
		_exit(ok ? 0 : 1);
	}
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	lsc_profiler_destroy(p);
	fclose(o.stream);
}

/* The watchdog's sink call is under way when the engine forks: the child
 * must not inherit the sink lock held by a thread it does not have. The
 * sink blocks on a semaphore from its first "still in" line until fork()
 * has returned in the parent: the test's own parent-side atfork handler
 * posts it. The library's prepare handler never waits for a sink, so the
 * fork always happens with the watchdog inside the sink, holding its lock;
 * no window of time is involved. The child's own lines then need the sink
 * lock, which it must have afresh. */
static sem_t sink_entered, fork_begun;
static int fork_armed;

static void blocking_watchdog_sink(void *user, const char *line, size_t len)
{
	(void)user;
	(void)len;
	static int entered;
	if (strstr(line, "still in") && !entered) {
		entered = 1;
		sem_post(&sink_entered);
		while (sem_wait(&fork_begun) < 0 && errno == EINTR)
			;
	}
}

static void on_fork_parent(void)
{
	if (__atomic_exchange_n(&fork_armed, 0, __ATOMIC_ACQ_REL))
		sem_post(&fork_begun);
}

/* Wait for @s; a deadline only so that a broken watchdog fails the test
 * instead of hanging it (nothing is decided by it). */
static int wait_or_fail(sem_t *s)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 60;
	int rc;
	while ((rc = sem_timedwait(s, &ts)) < 0 && errno == EINTR)
		;
	return rc;
}

Test(profiler, fork_while_the_watchdog_writes_a_line)
{
	cr_assert_eq(sem_init(&sink_entered, 0, 0), 0);
	cr_assert_eq(sem_init(&fork_begun, 0, 0), 0);
	lsc_profiler *p = eager_watchdog(blocking_watchdog_sink, NULL);
	cr_assert_eq(pthread_atfork(NULL, on_fork_parent, NULL), 0);
	lsc_start_begin(p, "parent");
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_ALLOCATE, NULL, 0, &s), 0);
	cr_assert_eq(wait_or_fail(&sink_entered), 0, "the watchdog never wrote a line");
	__atomic_store_n(&fork_armed, 1, __ATOMIC_RELEASE);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		alarm(20); /* a hang fails the test instead of the suite */
		lsc_span c;
		struct lsc_span_result r;
		int ok = lsc_span_begin(p, LSC_PHASE_READ, NULL, 0, &c) == 0 && lsc_span_end(p, c, &r) == 0;
		lsc_start_end(p);
		/* a start of its own gets its own watchdog, on a usable condition variable */
		ok = ok && lsc_start_begin(p, "child") == 0 && lsc_start_end(p) == 0;
		lsc_profiler_destroy(p);
		_exit(ok ? 0 : 1);
	}
	cr_assert_eq(__atomic_load_n(&fork_armed, __ATOMIC_ACQUIRE), 0, "the prepare handler did not run");
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	lsc_span_end(p, s, NULL);
	lsc_start_end(p);
	lsc_profiler_destroy(p);
}

struct worker {
	lsc_profiler *p;
	int bad;
};

static void *spans_in_a_thread(void *arg)
{
	struct worker *w = arg;
	for (int i = 0; i < 50; i++) {
		lsc_span a, b;
		struct lsc_span_result r;
		if (lsc_span_begin(w->p, LSC_PHASE_READ, NULL, 4096, &a) || !a ||
		    lsc_span_begin(w->p, LSC_PHASE_COPY, NULL, 4096, &b) || !b ||
		    lsc_span_end(w->p, b, &r) || lsc_span_end(w->p, a, &r))
			w->bad++;
		else if (r.vm_valid != (1u << LSC_VM_COUNT) - 1u)
			w->bad++; /* every counter exists on this kernel: a torn read loses some */
	}
	return NULL;
}

Test(profiler, spans_from_many_threads)
{
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 1);
	lsc_start_begin(p, "threads");
	pthread_t t[8];
	struct worker w[8];
	for (int i = 0; i < 8; i++) {
		w[i] = (struct worker){p, 0};
		pthread_create(&t[i], NULL, spans_in_a_thread, &w[i]);
	}
	for (int i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		cr_assert_eq(w[i].bad, 0, "thread %d: %d bad spans", i, w[i].bad);
	}
	lsc_start_end(p);
	lsc_profiler_destroy(p);
	cr_assert_eq(lsct_count(&cap, "usage"), 0);
	cr_assert_eq(field("ready", "phases"), 8 * 100.0);
	double wall = field("ready", "wall_s"), cov = field("ready", "covered_s");
	cr_assert_leq(cov, wall);
}

Test(profiler, watchdog_thresholds_must_be_finite)
{
	struct lsc_profiler_options o;
	lsc_profiler *p = NULL;
	lsc_profiler_options_init(&o);
	o.watchdog_after_s = INFINITY;
	cr_assert_eq(lsc_profiler_create(&o, &p), -EINVAL);
	lsc_profiler_options_init(&o);
	o.watchdog_every_s = 0;
	cr_assert_eq(lsc_profiler_create(&o, &p), -EINVAL);
	cr_assert_null(p);
}

/* A newline (or any control character) in .prefix made one sink call carry
 * two lines; such a prefix is refused. A space, a colon, UTF-8 are not. */
Test(profiler, a_prefix_with_a_control_character_is_refused)
{
	static const char *const bad[] = {"engine\n", "a\nb: ", "\r", "tab\t", "\x7f", "\x1b[31m"};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct lsc_profiler_options o;
		lsc_profiler_options_init(&o);
		o.prefix = bad[i];
		lsc_profiler *p = (lsc_profiler *)1;
		cr_assert_eq(lsc_profiler_create(&o, &p), -EINVAL, "prefix %u", i);
		cr_assert_null(p);
	}
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.prefix = "strata générer: ";
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
	lsc_profiler *p = NULL;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	lsc_note(p, "x", "one line");
	lsc_profiler_destroy(p);
	cr_assert_eq(cap.lines, 1);
	cr_assert_eq(cap.calls_without_newline, 0);
}

/* Handles counted from 1 in every profiler: P's first span had Q's first
 * span's handle, and ending it on Q ended Q's span. Now refused, with a
 * usage line, and Q's span stays open until Q ends it. */
Test(profiler, a_span_handle_is_not_valid_in_another_profiler)
{
	struct lsct_capture *capq = calloc(1, sizeof(*capq));
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
	lsc_profiler *q = lsct_profiler_fresh(capq);
	lsc_start_begin(p, "p");
	lsc_start_begin(q, "q");
	lsc_span sp[4], sq[4];
	for (unsigned i = 0; i < 4; i++) {
		cr_assert_eq(lsc_span_begin(p, LSC_PHASE_READ, "p-span", 0, &sp[i]), 0);
		cr_assert_eq(lsc_span_begin(q, LSC_PHASE_READ, "q-span", 0, &sq[i]), 0);
	}
	for (unsigned i = 0; i < 4; i++)
		for (unsigned j = 0; j < 4; j++)
			cr_assert_neq(sp[i], sq[j], "P's span %u and Q's span %u share a handle", i, j);
	cr_assert_eq(lsc_span_end(q, sp[3], NULL), -EINVAL);
	cr_assert_eq(lsct_count(capq, "phase"), 0, "%s", capq->buf);
	cr_assert_eq(lsct_count_with(capq, "usage", "not open in this profiler"), 1, "%s", capq->buf);
	for (int i = 3; i >= 0; i--) {
		cr_assert_eq(lsc_span_end(q, sq[i], NULL), 0);
		cr_assert_eq(lsc_span_end(p, sp[i], NULL), 0);
	}
	cr_assert_eq(lsct_count_with(capq, "phase", "q-span"), 4);
	lsc_start_end(p);
	lsc_start_end(q);
	lsc_profiler_destroy(p);
	lsc_profiler_destroy(q);
	free(capq);
}
