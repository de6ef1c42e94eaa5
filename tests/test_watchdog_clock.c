/*
 * Description: the watchdog's figures against an injected clock
 * (lsc__clock, src/profiler/internal.h), so that they are asserted exactly
 * and nothing depends on when the machine gets round to the thread. A span
 * opened at t = 1000 s, with "still" lines after 10 s and every 5 s, gives
 * its lines when the clock reaches 1010 s, 1015 s and 1020.5 s: elapsed_s is
 * the time in the phase, 10.000, 15.000, 20.500 (not the time since the
 * previous line), and "GiB/s now" is the progress between two lines over
 * the clock's interval: 5 GiB in 5 s is 1.000, 1 GiB in 5.5 s is 0.182; the
 * sentence says "after 15.000 s". With LSC_PROFILER_NO_WATCHDOG the same
 * span, the clock a minute past its threshold, gets no line while the
 * thread would have woken several times. The machine's counters, from a
 * /proc of the test's own, are rates over the clock's interval, each said
 * in the sentence on both sides of its threshold. The test waits for each
 * line by polling the capture (however long the machine takes); the clock
 * only moves when the test moves it.
 */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#include "helpers/capture.h"
#include "helpers/tool_run.h"
#include "profiler/internal.h"

#define S_NS 1000000000ull

static struct lsct_capture cap;
static char store[LSC__LINE_MAX + 1];
static _Atomic uint64_t now_ns;

static uint64_t fake_clock(void)
{
	return atomic_load(&now_ns);
}

/* Wait (up to a minute) for the @k-th "still" line and parse it. */
static void still(unsigned k, struct lsc__parsed *st)
{
	for (int tries = 0; tries < 1200 && lsct_count(&cap, "still") <= k; tries++)
		usleep(50000);
	cr_assert(lsct_find(&cap, "still", k, store, sizeof(store), st), "no still line %u: %s", k,
		  cap.buf);
}

static void teardown(void)
{
	lsc__clock = NULL;
	lsct_capture_reset(&cap);
	lsct_scratch_remove();
}

TestSuite(watchdog_clock, .fini = teardown, .timeout = 180);

/* A profiler into cap with @flags (its "still" lines after 10 s, every
 * 5 s), reading @proc_root (NULL: /proc). */
static lsc_profiler *clocked(unsigned flags, const char *proc_root)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | flags;
	o.watchdog_after_s = 10;
	o.watchdog_every_s = 5;
	o.proc_root = proc_root;
	lsc_profiler *p;
	lsct_capture_reset(&cap);
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	return p;
}

Test(watchdog_clock, elapsed_is_the_time_in_the_phase)
{
	atomic_store(&now_ns, 1000 * S_NS);
	lsc__clock = fake_clock;
	lsc_profiler *p = clocked(LSC_PROFILER_VERBOSE, NULL); /* every field: elapsed_s */
	cr_assert_eq(lsc_start_begin(p, "clock"), 0);
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_READ, NULL, 100ull << 30, &s), 0);

	/* Just before the threshold: no line, however long the thread runs. */
	atomic_store(&now_ns, 1010 * S_NS - 1);
	usleep(600000);
	cr_assert_eq(lsct_count(&cap, "still"), 0, "a line before 10 s: %s", cap.buf);

	struct lsc__parsed st;
	lsc_span_progress(p, s, 10ull << 30);
	atomic_store(&now_ns, 1010 * S_NS);
	still(0, &st);
	cr_assert_str_eq(lsc__parsed_get(&st, "elapsed_s"), "10.000", "%s", cap.buf);
	cr_assert_str_eq(lsc__parsed_get(&st, "done_bytes"), "10737418240");
	/* 10 GiB since the span began, 10 s ago. */
	cr_assert_str_eq(lsc__parsed_get(&st, "gibps"), "1.000", "%s", cap.buf);

	lsc_span_progress(p, s, 15ull << 30);
	atomic_store(&now_ns, 1015 * S_NS);
	still(1, &st);
	cr_assert_str_eq(lsc__parsed_get(&st, "elapsed_s"), "15.000", "since the previous line: %s", cap.buf);
	cr_assert_str_eq(lsc__parsed_get(&st, "gibps"), "1.000", "%s", cap.buf);
	cr_assert(strstr(st.human, "after 15.000 s"), "%s", st.human);

	lsc_span_progress(p, s, 16ull << 30);
	atomic_store(&now_ns, 1020 * S_NS + S_NS / 2);
	still(2, &st);
	cr_assert_str_eq(lsc__parsed_get(&st, "elapsed_s"), "20.500", "%s", cap.buf);
	cr_assert_str_eq(lsc__parsed_get(&st, "gibps"), "0.182", "1 GiB in 5.5 s: %s", cap.buf);
	cr_assert_eq(lsct_count(&cap, "still"), 3, "%s", cap.buf);

	lsc_span_end(p, s, NULL);
	lsc_start_end(p);
	lsc_profiler_destroy(p);
	lsc__clock = NULL;
}

Test(watchdog_clock, no_watchdog_means_no_line)
{
	atomic_store(&now_ns, 1000 * S_NS);
	lsc__clock = fake_clock;
	lsc_profiler *p = clocked(LSC_PROFILER_NO_WATCHDOG, NULL);
	cr_assert_eq(lsc_start_begin(p, "quiet"), 0);
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_READ, NULL, 1ull << 30, &s), 0);
	atomic_store(&now_ns, 1070 * S_NS);
	usleep(1500000); /* six of the thread's wake-ups, had it started */
	cr_assert_eq(lsct_count(&cap, "still"), 0, "%s", cap.buf);
	lsc_span_end(p, s, NULL);
	lsc_start_end(p);
	lsc_profiler_destroy(p);
	lsc__clock = NULL;
}

/* The machine's counters on a still line, from a /proc of the test's own
 * (its vmstat and pressure/memory rewritten between the clock's steps) and
 * the injected clock: each rate is its counter's rise over the clock's
 * interval, to the tenth in the fields; the sentence names a counter from
 * 0.5 a second (so that it reads at least "1/s"), not below, and memory
 * stalls from 5 ms a second. */
static const char *proc_dir;

static void machine(unsigned stall, unsigned fail, unsigned fallback, unsigned reclaim, unsigned long psi_us)
{
	char vm[512], psi[256];
	snprintf(vm, sizeof vm,
		 "nr_free_pages 1000\ncompact_stall %u\ncompact_fail %u\nthp_fault_fallback %u\n"
		 "allocstall_dma32 0\nallocstall_normal %u\npswpin 0\npswpout 0\n",
		 stall, fail, fallback, reclaim);
	snprintf(psi, sizeof psi, "some avg10=0.00 avg60=0.00 avg300=0.00 total=%lu\n"
				  "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", psi_us);
	char path[512];
	snprintf(path, sizeof path, "%s/vmstat", proc_dir);
	FILE *f = fopen(path, "w"); /* the same file, truncated: the profiler's descriptor reads it anew */
	cr_assert_not_null(f);
	fputs(vm, f);
	fclose(f);
	snprintf(path, sizeof path, "%s/pressure/memory", proc_dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(psi, f);
	fclose(f);
}

Test(watchdog_clock, the_machines_counters_as_rates_over_the_clock)
{
	proc_dir = lsct_scratch("proc");
	char sub[512];
	snprintf(sub, sizeof sub, "%s/pressure", proc_dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof sub, "%s/self", proc_dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof sub, "%s/self/status", proc_dir);
	FILE *f = fopen(sub, "w");
	cr_assert_not_null(f);
	fputs("Name:\ttest\nVmRSS:\t1024 kB\nVmLck:\t0 kB\nVmPin:\t0 kB\n", f);
	fclose(f);
	machine(100, 100, 100, 100, 0);

	atomic_store(&now_ns, 1000 * S_NS);
	lsc__clock = fake_clock;
	lsc_profiler *p = clocked(LSC_PROFILER_VERBOSE, proc_dir);
	cr_assert_eq(lsc_start_begin(p, "machine"), 0);
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_ALLOCATE, NULL, 0, &s), 0);

	/* 10 s: compact_stall +60 (6/s), compact_fail +4 (0.4/s: not said),
	 * thp_fault_fallback +5 (0.5/s: said as 1/s, never 0/s), allocstall +0,
	 * 100 ms stalled (10 ms/s) */
	machine(160, 104, 105, 100, 100000);
	atomic_store(&now_ns, 1010 * S_NS);
	struct lsc__parsed st;
	still(0, &st);
	cr_assert_str_eq(lsc__parsed_get(&st, "compact_stall_per_s"), "6.0", "%s", cap.buf);
	cr_assert_str_eq(lsc__parsed_get(&st, "compact_fail_per_s"), "0.4");
	cr_assert_str_eq(lsc__parsed_get(&st, "thp_fault_fallback_per_s"), "0.5");
	cr_assert_str_eq(lsc__parsed_get(&st, "allocstall_per_s"), "0.0");
	cr_assert_str_eq(lsc__parsed_get(&st, "psi_some_us_per_s"), "10000");
	cr_assert(strstr(st.human, "; machine compact_stall 6/s thp_fault_fallback 1/s; this process "), "%s",
		  st.human);
	cr_assert_null(strstr(st.human, "compact_fail"), "%s", st.human);
	cr_assert(strstr(st.human, "; stalled on memory 1% of the time"), "%s", st.human);

	/* 5 s more: compact_stall +2 (0.4/s), compact_fail +3 (0.6/s), allocstall
	 * +5 (1/s), 20 ms stalled (4 ms/s: not said) */
	machine(162, 107, 105, 105, 120000);
	atomic_store(&now_ns, 1015 * S_NS);
	still(1, &st);
	cr_assert_str_eq(lsc__parsed_get(&st, "compact_stall_per_s"), "0.4", "%s", cap.buf);
	cr_assert_str_eq(lsc__parsed_get(&st, "compact_fail_per_s"), "0.6");
	cr_assert_str_eq(lsc__parsed_get(&st, "allocstall_per_s"), "1.0");
	cr_assert_str_eq(lsc__parsed_get(&st, "psi_some_us_per_s"), "4000");
	cr_assert(strstr(st.human, "; machine compact_fail 1/s allocstall 1/s; this process "), "%s", st.human);
	cr_assert_null(strstr(st.human, "stalled on memory"), "%s", st.human);

	/* 5 s more: 25 ms stalled, 5 ms/s, the threshold: 0.5 %, said as 1 % */
	machine(162, 107, 105, 105, 145000);
	atomic_store(&now_ns, 1020 * S_NS);
	still(2, &st);
	cr_assert_str_eq(lsc__parsed_get(&st, "psi_some_us_per_s"), "5000", "%s", cap.buf);
	cr_assert(strstr(st.human, "; stalled on memory 1% of the time"), "%s", st.human);
	cr_assert_null(strstr(st.human, "; machine"), "no counter moved: %s", st.human);

	lsc_span_end(p, s, NULL);
	lsc_start_end(p);
	lsc_profiler_destroy(p);
	lsc__clock = NULL;
}
