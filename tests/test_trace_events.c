/*
 * Description: what the trace file holds (issue 10). A real load inside a
 * start, with a fallback and an error line, gives a trace in which every
 * event has a cat; the process is named after the start and the thread
 * after itself; spans are B and E events on their thread; the overlapped verify is an X event on a track of its own,
 * named, that no span shares; instants mark start, ready, the arena
 * decision, the fallback and the error, and nothing else; the counters are
 * sampled at the start's own timestamp. Overlapped work recorded twice on
 * one track never overlaps itself, however long its busy time. Threads
 * recording at once each write whole events: the file reads strictly, each
 * thread is named once, and every span's B and E pair on its own track.
 * An instant's args carry its line's numbers, text for text.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <loadscope/loadscope.h>

#include "helpers/load_helpers.h"
#include "helpers/trace_json.h"
#include "format/line.h"
#include "loader/lines.h"

static struct lsct_capture cap;
static struct lsct_trace tr;
static char why[256];

static lsc_profiler *traced(const char *path)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
	o.trace_path = path;
	lsc_profiler *p = NULL;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	return p;
}

static const struct lsct_trace_ev *only(char ph, const char *name)
{
	cr_assert_eq(lsct_trace_count(&tr, ph, name), 1, "%c %s: %u events", ph, name,
		     lsct_trace_count(&tr, ph, name));
	return lsct_trace_find(&tr, ph, name, 0);
}

/* The thread_name of @tid, or NULL. */
static const char *thread_name(long tid)
{
	const struct lsct_trace_ev *m;
	for (unsigned k = 0; (m = lsct_trace_find(&tr, 'M', "thread_name", k)); k++)
		if (m->tid == tid)
			return m->arg_name;
	return NULL;
}

Test(trace_events, a_load_gives_named_tracks_lanes_instants_and_counters)
{
	char *file = strdup(lsct_make_file("w.bin", (2u << 20) + 5, 3));
	char path[512];
	snprintf(path, sizeof(path), "%s/events.json", lsct_tmpdir());
	cr_assert_eq(prctl(PR_SET_NAME, "trace-main", 0, 0, 0), 0);
	long me = (long)syscall(SYS_gettid);

	lsc_profiler *p = traced(path);
	cr_assert_eq(lsc_start_begin(p, "trace events"), 0);
	struct lsc_load_options lo;
	lsc_load_options_init(&lo);
	lo.reader = "pread";
	struct lsc_extent e = {.path = file, .length = (2u << 20) + 5};
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &lo, &e, 1, 0, &a);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	lsc__load_fallback(p, "reader", "io_uring", "pread", "a test's fallback");
	lsc__load_error(p, "read", file, 4096, -EIO, "a test's error");
	cr_assert_eq(lsc_start_end(p), 0);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);

	/* strict JSON; every event has name, cat, ph, ts, pid, tid */
	cr_assert_eq(lsct_trace_read(path, &tr, why, sizeof(why)), 0, "%s", why);
	cr_assert(tr.closed);

	cr_assert_str_eq(only('M', "process_name")->arg_name, "trace events");
	const char *mine = thread_name(me);
	cr_assert_not_null(mine, "the loading thread has no name");
	cr_assert_str_eq(mine, "trace-main");

	/* the instants: these five, once each, and no other */
	static const char *const inst[][2] = {{"start", "lifecycle"}, {"ready", "lifecycle"},
					      {"arena", "decision"},  {"fallback", "fallback"},
					      {"error", "error"}};
	for (unsigned i = 0; i < 5; i++)
		cr_assert_str_eq(only('i', inst[i][0])->cat, inst[i][1], "%s", inst[i][0]);
	cr_assert_eq(lsct_trace_count(&tr, 'i', NULL), 5);

	/* verify: an X event on a track no span uses, named as overlapped */
	const struct lsct_trace_ev *v = only('X', "verify");
	cr_assert_str_eq(v->cat, "verify");
	cr_assert_neq(v->tid, me);
	for (unsigned i = 0; i < tr.n; i++)
		if (strchr("XBE", tr.ev[i].ph) && strcmp(tr.ev[i].name, "verify"))
			cr_assert_neq(tr.ev[i].tid, v->tid, "%s shares verify's track", tr.ev[i].name);
	cr_assert_not_null(thread_name(v->tid));
	cr_assert_str_eq(thread_name(v->tid), "overlapped: verify");
	/* spans: B and E on the thread that ran them */
	const struct lsct_trace_ev *r = only('B', "read");
	cr_assert_eq(r->tid, me);
	cr_assert_str_eq(r->cat, "read");
	cr_assert_geq(r->dur, 0);
	cr_assert_eq(only('E', "read")->tid, me);
	cr_assert_eq(tr.n_open, 0);
	cr_assert_eq(lsct_trace_count(&tr, 'X', NULL), 1, "only the overlapped work is an X event");

	/* the counters, sampled at the start itself */
	double t0 = only('i', "start")->ts;
	int memory = 0, stalls = 0;
	for (unsigned i = 0; i < tr.n; i++)
		if (tr.ev[i].ph == 'C' && tr.ev[i].ts == t0) {
			memory += !strcmp(tr.ev[i].name, "memory");
			stalls += !strcmp(tr.ev[i].name, "stalls");
		}
	cr_assert_eq(memory, 1, "no memory counter at the start");
	cr_assert_eq(stalls, 1, "no stall counter at the start");
	free(file);
}

/* A plain decimal number: what the trace writes bare, and the line too. */
static int is_number(const char *v)
{
	const char *d = v + (*v == '-');
	int points = 0, digits = 0;
	for (; *d; d++) {
		points += *d == '.';
		digits += *d >= '0' && *d <= '9';
		if (!((*d >= '0' && *d <= '9') || *d == '.'))
			return 0;
	}
	return digits && points <= 1;
}

/* An instant's args are its line's fields with the same values: each
 * number of the start, arena, fallback, error and ready lines (signed
 * counts, unsigned sizes, seconds with their decimals) is in the trace as
 * "key":value, text for text. */
Test(trace_events, an_instants_args_are_its_lines_numbers)
{
	char *file = strdup(lsct_make_file("a.bin", (1u << 20) + 7, 5));
	char path[512];
	snprintf(path, sizeof(path), "%s/args.json", lsct_tmpdir());
	lsc_profiler *p = traced(path);
	cr_assert_eq(lsc_start_begin(p, "trace args"), 0);
	struct lsc_load_options lo;
	lsc_load_options_init(&lo);
	lo.reader = "pread";
	struct lsc_extent e = {.path = file, .length = (1u << 20) + 7};
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, &lo, &e, 1, 0, &a), 0);
	lsc__load_fallback(p, "reader", "io_uring", "pread", "a test's fallback");
	lsc__load_error(p, "read", file, 123456789012ull, -EIO, "a test's error");
	cr_assert_eq(lsc_start_end(p), 0);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);

	uint64_t len;
	char *text = (char *)lsct_read_file(path, &len);
	cr_assert_not_null(text);
	char *z = realloc(text, len + 1);
	cr_assert_not_null(z);
	text = z;
	text[len] = '\0';
	static const char *const instants[] = {"start", "arena", "fallback", "error", "ready"};
	unsigned checked = 0, with_negative_or_decimal = 0;
	for (char *s = cap.buf; *s;) {
		char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		static char line[LSC__LINE_MAX * 2];
		snprintf(line, sizeof(line), "%.*s", (int)n, s);
		struct lsc__parsed pl;
		int mine = 0;
		if (lsc__line_parse(line, strlen(line), &pl) == 1)
			for (unsigned i = 0; i < sizeof(instants) / sizeof(instants[0]); i++)
				mine |= !strcmp(pl.event, instants[i]);
		for (unsigned i = 0; mine && i < pl.n; i++) {
			if (!is_number(pl.kv[i].val))
				continue;
			/* docs/log-format.md: a field that is text by nature stays
			 * text even when it looks like a number (a run id of 8 hex
			 * digits that happen to be decimal ones) */
			int is_text = !strcmp(pl.kv[i].key, "run") || !strcmp(pl.kv[i].key, "kernel");
			char want[160];
			snprintf(want, sizeof(want), is_text ? "\"%s\":\"%s\"" : "\"%s\":%s", pl.kv[i].key, pl.kv[i].val);
			size_t w = strlen(want);
			int found = 0;
			/* text for text: not a prefix of a longer number */
			for (const char *q = text; !found && (q = strstr(q, want)); q += w)
				found = !((q[w] >= '0' && q[w] <= '9') || q[w] == '.');
			cr_expect(found, "%s line's %s=%s is not in the trace's args", pl.event, pl.kv[i].key,
				  pl.kv[i].val);
			if (is_text)
				continue;
			checked++;
			with_negative_or_decimal += strchr(pl.kv[i].val, '.') || pl.kv[i].val[0] == '-';
		}
		s += n + (nl ? 1 : 0);
	}
	cr_assert_geq(checked, 8, "only %u numbers checked: %s", checked, cap.buf);
	cr_assert_gt(with_negative_or_decimal, 0, "no number with a point or a sign among them");
	cr_assert(strstr(text, "\"offset\":123456789012"), "the error's offset");
	free(text);
	free(file);
}

Test(trace_events, one_lane_never_overlaps_itself)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/lane.json", lsct_tmpdir());
	lsc_profiler *p = traced(path);
	lsc_start_begin(p, "lane");
	/* busy longer than the process has lived: the track still does not
	 * overlap itself (the checker refuses overlapping X of one tid) */
	lsc_phase_record(p, LSC_PHASE_COPY, "device copy", 1, 3600ull * 1000000000ull);
	lsc_phase_record(p, LSC_PHASE_COPY, "device copy", 1, 3600ull * 1000000000ull);
	lsc_phase_record(p, LSC_PHASE_VERIFY, NULL, 1, 1000);
	lsc_start_end(p);
	lsc_profiler_destroy(p);
	cr_assert_eq(lsct_trace_read(path, &tr, why, sizeof(why)), 0, "%s", why);
	const struct lsct_trace_ev *a = lsct_trace_find(&tr, 'X', "device copy", 0);
	const struct lsct_trace_ev *b = lsct_trace_find(&tr, 'X', "device copy", 1);
	const struct lsct_trace_ev *v = lsct_trace_find(&tr, 'X', "verify", 0);
	cr_assert(a && b && v);
	cr_assert_eq(a->tid, b->tid);
	cr_assert_neq(a->tid, v->tid, "two names share one track");
	cr_assert_geq(b->ts, a->ts + a->dur - 0.0005, "the second starts where the first ends (to the printed ns)");
	cr_assert_str_eq(thread_name(a->tid), "overlapped: device copy");
	cr_assert_eq(lsct_trace_count(&tr, 'i', "device copy"), 0);
}

static lsc_profiler *shared;

static void *spans(void *arg)
{
	char name[16];
	snprintf(name, sizeof(name), "worker-%d", (int)(long)arg);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	for (int i = 0; i < 200; i++) {
		lsc_span s, in;
		if (lsc_span_begin(shared, LSC_PHASE_READ, "chunk", 4096, &s) ||
		    lsc_span_begin(shared, LSC_PHASE_VERIFY, "hash", 4096, &in))
			return (void *)1;
		lsc_span_end(shared, in, NULL);
		lsc_span_end(shared, s, NULL);
	}
	return NULL;
}

Test(trace_events, threads_write_whole_events_on_their_own_tracks)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/threads.json", lsct_tmpdir());
	shared = traced(path);
	lsc_start_begin(shared, "threads");
	enum { N = 4 };
	pthread_t t[N];
	for (long i = 0; i < N; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, spans, (void *)i), 0);
	for (int i = 0; i < N; i++) {
		void *bad = NULL;
		pthread_join(t[i], &bad);
		cr_assert_null(bad);
	}
	lsc_start_end(shared);
	lsc_profiler_destroy(shared);
	cr_assert_eq(lsct_trace_read(path, &tr, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(lsct_trace_count(&tr, 'B', "chunk"), N * 200);
	cr_assert_eq(lsct_trace_count(&tr, 'E', "hash"), N * 200);
	cr_assert_eq(tr.n_open, 0);
	for (int i = 0; i < N; i++) {
		char want[16];
		snprintf(want, sizeof(want), "worker-%d", i);
		unsigned named = 0;
		const struct lsct_trace_ev *m;
		for (unsigned k = 0; (m = lsct_trace_find(&tr, 'M', "thread_name", k)); k++)
			named += !strcmp(m->arg_name, want);
		cr_assert_eq(named, 1, "%s named %u times", want, named);
	}
}

/* The checker of the test above, on its own: two slices of one track that
 * touch (the second starts at the first's end to the nanosecond, as the
 * writer draws a lane's next event) are not an overlap, though the first's
 * ts + dur, summed in double at a monotonic clock of days, rounds past the
 * second's ts. That rounding made one_lane_never_overlaps_itself fail on
 * some runs, by the machine's uptime. */
Test(trace_events, touching_slices_are_not_an_overlap)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/touch.json", lsct_tmpdir());
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("[\n{\"name\":\"a\",\"cat\":\"copy\",\"ph\":\"X\",\"ts\":831321370648.249,\"dur\":10915283.487,"
	      "\"pid\":1,\"tid\":1000000000},\n"
	      "{\"name\":\"b\",\"cat\":\"copy\",\"ph\":\"X\",\"ts\":831332285931.736,\"dur\":1.000,"
	      "\"pid\":1,\"tid\":1000000000}\n]\n",
	      f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_gt(831321370648.249 + 10915283.487, 831332285931.736, "no rounding to test here");
	cr_assert_eq(lsct_trace_read(path, &tr, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(tr.n, 2);
}
