/*
 * Description: what the trace file (src/profiler/trace.c) says about one
 * span, beyond being valid JSON, each found by a mutation the suite let
 * through (scripts/mutate.sh, docs/testing.md): a complete event's "dur" is
 * in microseconds (the Trace Event Format's unit), equal to the phase
 * line's wall_s times 10^6 within the two fields' rounding, and a backslash
 * in a span's name is escaped as "\\". The span lasts at least 2 ms (the
 * monotonic clock is watched, nothing waits on another thread).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#include "helpers/capture.h"

static struct lsct_capture cap;
static char text[1 << 16];

static void busy_ms(unsigned ms)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec) < (long long)ms * 1000000LL);
}

Test(trace_units, dur_in_microseconds_and_backslash_escaped)
{
	char path[] = "/tmp/lsc-trace-units-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
	o.trace_path = path;
	lsc_profiler *p;
	lsct_capture_reset(&cap);
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_CUSTOM, "dir\\file", 0, &s), 0);
	busy_ms(2);
	cr_assert_eq(lsc_span_end(p, s, NULL), 0);
	lsc_profiler_destroy(p);

	FILE *f = fopen(path, "r");
	cr_assert_not_null(f);
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	unlink(path);
	text[n] = '\0';

	char line[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	double wall;
	cr_assert(lsct_find(&cap, "phase", 0, line, sizeof(line), &pl));
	cr_assert_eq(lsc__parsed_f64(&pl, "wall_s", &wall), 0);
	cr_assert_geq(wall, 0.002);

	const char *ev = strstr(text, "\"name\":\"dir\\\\file\"");
	cr_assert_not_null(ev, "%s", text);
	const char *d = strstr(ev, "\"dur\":");
	cr_assert_not_null(d, "%s", text);
	double dur = strtod(d + 6, NULL);
	/* wall_s has 6 decimals (0.5 us), dur 3 (0.0005 us) */
	cr_assert_float_eq(dur, wall * 1e6, 1.0, "dur %.3f us, wall_s %.6f", dur, wall);
}
