/*
 * Description: what the trace file (src/profiler/trace.c) says about one
 * span, beyond being valid JSON, each found by a mutation the suite let
 * through (scripts/mutate.sh, docs/testing.md): times are in microseconds
 * (the Trace Event Format's unit): a span's E event is its wall_s times 10^6
 * after its B event, within the two fields' rounding, and overlapped work's
 * X event lasts its busy time; and a backslash in a span's name is escaped
 * as "\\". The span lasts at least 2 ms (the monotonic clock is watched,
 * nothing waits on another thread).
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

Test(trace_units, times_in_microseconds_and_backslash_escaped)
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
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
	o.trace_path = path;
	lsc_profiler *p;
	lsct_capture_reset(&cap);
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_CUSTOM, "dir\\file", 0, &s), 0);
	busy_ms(2);
	cr_assert_eq(lsc_span_end(p, s, NULL), 0);
	cr_assert_eq(lsc_phase_record(p, LSC_PHASE_VERIFY, "checked", 4096, 3000000), 0);
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

	/* The span: a B and an E event of the escaped name. */
	const char *b = strstr(text, "\"name\":\"dir\\\\file\",\"cat\":\"custom\",\"ph\":\"B\"");
	cr_assert_not_null(b, "%s", text);
	const char *e = strstr(b, "\"name\":\"dir\\\\file\",\"cat\":\"custom\",\"ph\":\"E\"");
	cr_assert_not_null(e, "%s", text);
	const char *tb = strstr(b, "\"ts\":"), *te = strstr(e, "\"ts\":");
	cr_assert(tb && te, "%s", text);
	double span_us = strtod(te + 5, NULL) - strtod(tb + 5, NULL);
	/* wall_s has 6 decimals (0.5 us), ts 3 (0.0005 us) */
	cr_assert_float_eq(span_us, wall * 1e6, 1.0, "E - B %.3f us, wall_s %.6f", span_us, wall);

	/* Overlapped work: 3 ms busy is an X event of 3000 us. */
	const char *x = strstr(text, "\"name\":\"checked\"");
	cr_assert_not_null(x, "%s", text);
	const char *d = strstr(x, "\"dur\":");
	cr_assert_not_null(d, "%s", text);
	cr_assert_float_eq(strtod(d + 6, NULL), 3000.0, 0.001, "%s", x);
}
