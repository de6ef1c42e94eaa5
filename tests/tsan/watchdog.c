/*
 * Description (ThreadSanitizer): the watchdog thread against spans in many
 * threads. The watchdog reads the span table and the progress counters and
 * writes "still in" lines while four threads open, advance and end spans
 * and credit progress to a span of the main thread, as the parallel
 * prefault does. Then a second start on the same profiler (the watchdog is
 * the first start's, kept) and destroy, which joins it. The main thread
 * waits for the first "still" line on a semaphore, not a sleep. A trace
 * file is written throughout, so every thread's events and the watchdog's
 * instants meet at its lock.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#include "tsan_check.h"

static sem_t still_seen;
static atomic_int still_posted;
static unsigned lines; /* only the sink touches it: the profiler serialises sink calls */

static void sink(void *user, const char *line, size_t len)
{
	(void)user;
	(void)len;
	lines++;
	if (strstr(line, "] still in ") && !atomic_exchange(&still_posted, 1))
		sem_post(&still_seen);
}

struct work {
	lsc_profiler *p;
	lsc_span shared;
	int bad;
};

static void *spans(void *arg)
{
	struct work *w = arg;
	for (uint64_t i = 0; i < 300; i++) {
		lsc_span a, b;
		if (lsc_span_begin(w->p, LSC_PHASE_READ, NULL, 1 << 20, &a) ||
		    lsc_span_begin(w->p, LSC_PHASE_COPY, "inner", 4096, &b)) {
			w->bad++;
			continue;
		}
		lsc_span_progress(w->p, a, i * 4096);
		lsc_span_set_bytes(w->p, b, 8192);
		lsc_span_progress(w->p, w->shared, i);
		lsc_span_end(w->p, b, NULL);
		lsc_span_end(w->p, a, NULL);
		if (i % 50 == 0)
			lsc_note(w->p, "tsan", "a note between spans");
	}
	return NULL;
}

int main(void)
{
	CHECK(sem_init(&still_seen, 0, 0) == 0);
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = sink;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV;
	o.watchdog_after_s = 0.01;
	o.watchdog_every_s = 0.01;
	char trace[64];
	snprintf(trace, sizeof(trace), "/tmp/lsc-tsan-trace-%d.json", (int)getpid());
	o.trace_path = trace;
	lsc_profiler *p;
	CHECK(lsc_profiler_create(&o, &p) == 0);
	CHECK(lsc_start_begin(p, "tsan watchdog") == 0);
	lsc_span longest;
	CHECK(lsc_span_begin(p, LSC_PHASE_ALLOCATE, NULL, 1000, &longest) == 0);

	enum { N = 4 };
	pthread_t t[N];
	struct work w[N];
	for (int i = 0; i < N; i++) {
		w[i] = (struct work){p, longest, 0};
		CHECK(pthread_create(&t[i], NULL, spans, &w[i]) == 0);
	}
	while (sem_wait(&still_seen) != 0)
		;
	for (int i = 0; i < N; i++) {
		CHECK(pthread_join(t[i], NULL) == 0);
		CHECK(w[i].bad == 0);
	}
	CHECK(lsc_span_end(p, longest, NULL) == 0);
	CHECK(lsc_start_end(p) == 0);
	/* a second start on the same profiler, then destroy joins the watchdog */
	CHECK(lsc_start_begin(p, "again") == 0);
	CHECK(lsc_start_end(p) == 0);
	lsc_profiler_destroy(p);
	struct stat st;
	CHECK(stat(trace, &st) == 0 && st.st_size > 0);
	unlink(trace);
	CHECK(lines > (unsigned)(N * 600));
	printf("tsan watchdog: %u lines, ok\n", lines);
	return 0;
}
