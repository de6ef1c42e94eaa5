/*
 * Description: the arithmetic of the phase and ready lines (src/profiler/
 * span.c) that identities on one span cannot pin, each found by a mutation
 * the suite let through (scripts/mutate.sh, docs/testing.md): covered time
 * adds up over consecutive top-level spans, and "us per 4 KiB page" divides
 * the wall time by bytes / 4096. Every expectation is computed here from the
 * line's own wall_s and the bytes the test asked for, by the formulas of
 * docs/log-format.md. A span lasts at least 2 ms (the monotonic clock is
 * watched, nothing waits on another thread) so that the 6-decimal fields
 * resolve it; a longer span changes nothing asserted.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include <loadscope/profiler.h>

#include "helpers/capture.h"

static struct lsct_capture cap;
static char store[LSC__LINE_MAX + 1];

static void busy_ms(unsigned ms)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec) < (long long)ms * 1000000LL);
}

static double field_of(const char *event, unsigned k, const char *key)
{
	struct lsc__parsed p;
	double d = NAN;
	cr_assert(lsct_find(&cap, event, k, store, sizeof(store), &p), "no %s line #%u", event, k);
	cr_assert_eq(lsc__parsed_f64(&p, key, &d), 0, "no %s in %s #%u", key, event, k);
	return d;
}

/* Two spans one after the other: the start is covered by both. */
Test(span_accounting, covered_time_adds_up_over_consecutive_spans)
{
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	lsc_span s;
	cr_assert_eq(lsc_start_begin(p, "two"), 0);
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_ALLOCATE, NULL, 0, &s), 0);
	busy_ms(4);
	cr_assert_eq(lsc_span_end(p, s, NULL), 0);
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_READ, NULL, 0, &s), 0);
	busy_ms(2);
	cr_assert_eq(lsc_span_end(p, s, NULL), 0);
	cr_assert_eq(lsc_start_end(p), 0);
	lsc_profiler_destroy(p);

	double a = field_of("phase", 0, "wall_s"), b = field_of("phase", 1, "wall_s");
	double cov = field_of("ready", 0, "covered_s"), wall = field_of("ready", 0, "wall_s");
	cr_assert_geq(a, 0.004);
	cr_assert_geq(b, 0.002);
	/* each of the three is rounded to 1 us */
	cr_assert_geq(cov, a + b - 3e-6, "covered %.6f s, spans %.6f + %.6f s", cov, a, b);
	cr_assert_leq(cov, wall + 1e-6);
	cr_assert_eq(field_of("ready", 0, "phases"), 2.0);
}

/* 16 pages of 4 KiB: us_per_page = wall_s * 1e6 / 16. */
Test(span_accounting, us_per_page_counts_4k_pages)
{
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_ALLOCATE, NULL, 16 * 4096, &s), 0);
	busy_ms(2);
	cr_assert_eq(lsc_span_end(p, s, NULL), 0);
	lsc_profiler_destroy(p);

	double wall = field_of("phase", 0, "wall_s"), us = field_of("phase", 0, "us_per_page");
	cr_assert_geq(wall, 0.002);
	cr_assert_float_eq(us, wall * 1e6 / 16.0, 0.1, "us_per_page %.3f for wall %.6f s", us, wall);
}

/* The process's minor faults in a span, as the fields give them and as the
 * sentence says them, and faults_per_s is that count over wall_s: the span
 * touches 256 fresh pages, so the count is at least 256. */
Test(span_accounting, faults_per_s_is_minflt_over_wall_s)
{
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	size_t len = 256 * 4096;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(m, MAP_FAILED);
	madvise(m, len, MADV_NOHUGEPAGE); /* one fault per page */
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_ALLOCATE, NULL, len, &s), 0);
	for (size_t i = 0; i < len; i += 4096)
		m[i] = 1;
	busy_ms(2);
	cr_assert_eq(lsc_span_end(p, s, NULL), 0);
	lsc_profiler_destroy(p);
	munmap(m, len);

	double wall = field_of("phase", 0, "wall_s"), minflt = field_of("phase", 0, "minflt"),
	       fps = field_of("phase", 0, "faults_per_s");
	cr_assert_geq(minflt, 256, "%s", cap.buf);
	cr_assert_lt(minflt, 1000, "a count the sentence gives in whole digits: %s", cap.buf);
	/* wall_s to the microsecond, faults_per_s to the unit */
	double lo = minflt / (wall + 5e-7), hi = minflt / (wall - 5e-7);
	cr_assert(fps >= lo - 0.5 && fps <= hi + 0.5, "faults_per_s %.0f, minflt %.0f over %.6f s", fps, minflt, wall);
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "phase", 0, store, sizeof store, &pl));
	char said[64];
	snprintf(said, sizeof said, "this process %.0f minor, ", minflt);
	cr_assert(strstr(pl.human, said), "the sentence: %s (minflt %.0f)", pl.human, minflt);
}

/* A span's memory fields are the process's status at its end, as the tree
 * at proc_root says (VmRSS, VmLck, VmPin, each a different number here, so
 * a field left out or taken from its neighbour shows), in the result and
 * in the verbose phase line alike; without the status file each is -1,
 * in both. */
Test(span_accounting, memory_fields_are_the_status_at_the_end)
{
	char root[] = "/tmp/lsc-spanmem-XXXXXX", dir[64], path[96];
	cr_assert_not_null(mkdtemp(root));
	snprintf(dir, sizeof dir, "%s/self", root);
	cr_assert_eq(mkdir(dir, 0700), 0);
	snprintf(path, sizeof path, "%s/status", dir);
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fputs("Name:\tengine\nVmLck:\t    4096 kB\nVmPin:\t 29851648 kB\nVmRSS:\t 41943040 kB\n", f);
	fclose(f);
	static const struct {
		const char *key;
		int64_t want;
	} fields[] = {{"rss_kib", 41943040}, {"lck_kib", 4096}, {"pin_kib", 29851648}};
	for (int with = 1; with >= 0; with--) {
		if (!with)
			cr_assert_eq(unlink(path), 0);
		struct lsc_profiler_options o;
		lsc_profiler_options_init(&o);
		o.sink = lsct_sink;
		o.sink_user = &cap;
		o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG | LSC_PROFILER_VERBOSE;
		o.proc_root = root;
		lsc_profiler *p;
		lsct_capture_reset(&cap);
		cr_assert_eq(lsc_profiler_create(&o, &p), 0);
		lsc_span s;
		struct lsc_span_result r;
		cr_assert_eq(lsc_span_begin(p, LSC_PHASE_PIN, NULL, 0, &s), 0);
		cr_assert_eq(lsc_span_end(p, s, &r), 0);
		lsc_profiler_destroy(p);
		const int64_t got[] = {r.rss_kib, r.lck_kib, r.pin_kib};
		struct lsc__parsed pl;
		cr_assert(lsct_find(&cap, "phase", 0, store, sizeof store, &pl), "%s", cap.buf);
		for (unsigned i = 0; i < 3; i++) {
			int64_t want = with ? fields[i].want : -1, line = 0;
			cr_expect_eq(got[i], want, "%s: %lld, want %lld", fields[i].key, (long long)got[i],
				     (long long)want);
			cr_expect_eq(lsc__parsed_i64(&pl, fields[i].key, &line), 0, "%s in %s", fields[i].key, cap.buf);
			cr_expect_eq(line, want, "%s in the line: %lld", fields[i].key, (long long)line);
		}
	}
	rmdir(dir);
	rmdir(root);
}
