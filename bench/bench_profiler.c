/*
 * The profiler's own cost: a span begin+end (with its /proc reads and its
 * line rendered into a sink that discards it), a bare /proc/vmstat read, a
 * system snapshot, and 100 enters and leaves of the line writer's C locale
 * (format/c_locale.h: what each formatting call of a line pays). Prints the
 * median and p99 over N rounds, interleaved so that the noise of a virtual
 * machine hits every variant alike. Also checks
 * that spans allocate nothing after creation (mallinfo2 before and after).
 *
 * usage: bench_profiler [rounds]   (default 20000)
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <loadscope/profiler.h>

#include "format/c_locale.h"

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void discard(void *user, const char *line, size_t len)
{
	(void)line;
	*(size_t *)user += len;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void report(const char *what, double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	printf("| %-34s | %8.2f | %8.2f | %8.2f |\n", what, v[n / 2], v[(int)(n * 0.99)], v[n - 1]);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	if (n < 100)
		n = 100;
	size_t sunk = 0;
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = discard;
	o.sink_user = &sunk;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
	lsc_profiler *on, *off;
	if (lsc_profiler_create(&o, &on) != 0)
		return 1;
	o.mode = LSC_MODE_OFF;
	if (lsc_profiler_create(&o, &off) != 0)
		return 1;
	lsc_start_begin(on, "bench");

	double *span = malloc(sizeof(double) * (size_t)n), *vm = malloc(sizeof(double) * (size_t)n),
	       *offs = malloc(sizeof(double) * (size_t)n), *loc = malloc(sizeof(double) * (size_t)n);
	int m = n / 100;
	double *snap = malloc(sizeof(double) * (size_t)m);
	if (!span || !vm || !offs || !snap || !loc)
		return 1;

	struct mallinfo2 before = mallinfo2();
	for (int i = 0; i < n; i++) {
		lsc_span s;
		double t0 = now_us();
		lsc_span_begin(on, LSC_PHASE_READ, NULL, 4096, &s);
		lsc_span_end(on, s, NULL);
		double t1 = now_us();
		struct lsc_vmstat v;
		lsc_vmstat_read(NULL, &v);
		double t2 = now_us();
		lsc_span_begin(off, LSC_PHASE_READ, NULL, 4096, &s);
		lsc_span_end(off, s, NULL);
		double t3 = now_us();
		for (int k = 0; k < 100; k++) {
			locale_t l = lsc__c_locale_enter();
			lsc__c_locale_leave(l);
			__asm__ volatile("" : : "r"(l));
		}
		loc[i] = now_us() - t3;
		span[i] = t1 - t0;
		vm[i] = t2 - t1;
		offs[i] = t3 - t2;
		if (i % 100 == 0) {
			struct lsc_system sys;
			double a = now_us();
			lsc_system_read(NULL, NULL, &sys);
			snap[i / 100] = now_us() - a;
		}
	}
	struct mallinfo2 after = mallinfo2();

	printf("rounds: %d (system snapshot: %d)\n\n", n, m);
	printf("| %-34s | %8s | %8s | %8s |\n", "operation (us)", "median", "p99", "max");
	printf("|%s|---------:|---------:|---------:|\n", "------------------------------------");
	report("span begin+end, profiler on", span, n);
	report("  of which one /proc/vmstat read", vm, n);
	report("span begin+end, profiler off", offs, n);
	report("system snapshot", snap, m);
	report("100 C-locale enters and leaves", loc, n);
	printf("\nheap in use before/after the span rounds: %zu / %zu bytes (%s)\n", before.uordblks,
	       after.uordblks, before.uordblks == after.uordblks ? "no allocation" : "ALLOCATED");
	lsc_start_end(on);
	lsc_profiler_destroy(on);
	lsc_profiler_destroy(off);
	free(span), free(vm), free(offs), free(snap), free(loc);
	return 0;
}
