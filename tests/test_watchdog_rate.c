/*
 * Description: the watchdog's "GiB/s now" (src/profiler/watchdog.c) is the
 * progress since its previous line, not since the span began; found by a
 * mutation the suite let through (scripts/mutate.sh, docs/testing.md). A
 * span of 1 TiB reports 512 GiB done once; the first "still" line that
 * shows those 512 GiB is followed by lines over which nothing moved, so the
 * next line says 0.000 GiB/s. The test waits for lines as
 * test_profiler.c's watchdog test does (polling the capture, however long
 * the machine takes); what it asserts does not depend on when they come.
 * Progress past the span's bytes says so (it printed "16384.0 PiB of 1 B
 * done (1844674407370955161600%)"), and progress that goes back has no
 * rate (the unsigned difference made one of about 16 EiB/s).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#include "helpers/capture.h"
#include "profiler/profiler_impl.h"

static struct lsct_capture cap;
static char store[LSC__LINE_MAX + 1];

/* The index of the first "still" line whose done_bytes is @done, waiting
 * up to 30 s for it; -1 if none came. */
static int still_with(const char *done)
{
	for (int tries = 0; tries < 600; tries++) {
		unsigned n = lsct_count(&cap, "still");
		for (unsigned k = 0; k < n; k++) {
			struct lsc__parsed st;
			if (lsct_find(&cap, "still", k, store, sizeof(store), &st) &&
			    !strcmp(lsc__parsed_get(&st, "done_bytes"), done))
				return (int)k;
		}
		usleep(50000);
	}
	return -1;
}

Test(watchdog_rate, rate_is_since_the_previous_line)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE;
	o.watchdog_after_s = 0.01;
	o.watchdog_every_s = 0.01;
	lsc_profiler *p;
	lsct_capture_reset(&cap);
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	cr_assert_eq(lsc_start_begin(p, "rate"), 0); /* the watchdog starts with the start */
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_READ, NULL, 1ull << 40, &s), 0);
	lsc_span_progress(p, s, 1ull << 39);
	int k = still_with("549755813888");
	cr_assert_geq(k, 0, "no still line with 512 GiB done: %s", cap.buf);
	for (int tries = 0; tries < 600 && lsct_count(&cap, "still") <= (unsigned)k + 1; tries++)
		usleep(50000);
	lsc_span_end(p, s, NULL);
	lsc_start_end(p);
	lsc_profiler_destroy(p);

	struct lsc__parsed st;
	cr_assert(lsct_find(&cap, "still", (unsigned)k + 1, store, sizeof(store), &st), "%s", cap.buf);
	cr_assert_str_eq(lsc__parsed_get(&st, "done_bytes"), "549755813888");
	cr_assert_str_eq(lsc__parsed_get(&st, "gibps"), "0.000", "%s", cap.buf);
}

Test(watchdog_rate, progress_past_the_total_and_back)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE; /* every field: done_bytes, gibps */
	o.watchdog_after_s = 0.01;
	o.watchdog_every_s = 0.01;
	lsc_profiler *p;
	lsct_capture_reset(&cap);
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	cr_assert_eq(lsc_start_begin(p, "past"), 0);
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_READ, NULL, 1, &s), 0);
	lsc_span_progress(p, s, UINT64_MAX);
	int k = still_with("18446744073709551615");
	cr_assert_geq(k, 0, "no still line with UINT64_MAX done: %s", cap.buf);
	lsc_span_progress(p, s, 0);
	int b = still_with("0");
	lsc_span_end(p, s, NULL);
	lsc_start_end(p);
	lsc_profiler_destroy(p);
	struct lsc__parsed st;
	cr_assert(lsct_find(&cap, "still", (unsigned)k, store, sizeof(store), &st));
	cr_assert(strstr(st.human, ": 16384.0 PiB done, more than the 1 B the span was given"), "%s",
		  st.human);
	cr_assert_null(strstr(st.human, "done ("), "a share past 100%%: %s", st.human);
	cr_assert_geq(b, 0, "no still line with 0 done: %s", cap.buf);
	cr_assert(lsct_find(&cap, "still", (unsigned)b, store, sizeof(store), &st));
	cr_assert(strstr(st.human, ": 0 B of 1 B done (0%), rate n/a (the progress went back)"), "%s",
		  st.human);
	cr_assert_str_eq(lsc__parsed_get(&st, "gibps"), "n/a");
}

/* The still line's hint (docs/log-format.md) on both sides of each of its
 * thresholds, in their order: the first that holds wins. */
Test(watchdog_rate, the_hint_on_both_sides_of_each_threshold)
{
	static const struct {
		double stall, fail, fallback, reclaim, swap, rate, faults;
		const char *starts; /* NULL: no hint */
	} c[] = {
		{10, 9, 0, 0, 0, 1, 100, "direct compaction is failing"},
		{10, 8.99, 0, 0, 0, 1, 100, "huge-page faults are compacting"},
		{20, 18, 0, 5, 5, 0, 0, "direct compaction is failing"},
		{9.99, 9.99, 0, 0, 0, 1, 100, NULL},
		{0, 0, 10, 0, 0, 1, 100, "huge-page faults are compacting"},
		{0, 0, 9.99, 0, 0, 1, 100, NULL},
		{9.99, 0, 9.99, 0.01, 0.01, 1, 100, "direct reclaim and swapping"},
		{0, 0, 0, 0.01, 0, 1, 100, "direct reclaim: free memory"},
		{0, 0, 0, 0, 0.01, 1, 100, NULL},
		{0, 0, 0, 0, 0, 0, 0.99, "no progress and no page faults"},
		{0, 0, 0, 0, 0, 0, 1, NULL},
		{0, 0, 0, 0, 0, 0.001, 0, NULL},
		{0, 0, 0, 0, 0, NAN, 0, NULL},
		{0, 0, 0, 0.01, 0, 0, 0, "direct reclaim: free memory"},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		const char *h = lsc__watchdog_hint(c[i].stall, c[i].fail, c[i].fallback, c[i].reclaim, c[i].swap, c[i].rate,
						   c[i].faults);
		if (!c[i].starts)
			cr_expect_null(h, "case %zu: %s", i, h ? h : "");
		else
			cr_expect(h && !strncmp(h, c[i].starts, strlen(c[i].starts)), "case %zu: %s, want %s...", i,
				  h ? h : "(none)", c[i].starts);
	}
}
