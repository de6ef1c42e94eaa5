/*
 * Description (ThreadSanitizer): the profiler's shared state against the
 * calls documented thread-safe. One profiler: two threads open and end
 * spans while a third reads the start's phase table
 * (lsc_start_table_read) in a loop; the read must always say the start
 * is open and see a covered time no larger than the wall time. Meanwhile two more threads
 * create and destroy profilers of their own, each of which joins and
 * leaves the process's list of profilers that fork() walks. A race on any
 * of them is TSan's report.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include <loadscope/profiler.h>

#include "tsan_check.h"

static atomic_int stop;

static void sink(void *user, const char *line, size_t len)
{
	(void)user;
	(void)line;
	(void)len;
}

static void options(struct lsc_profiler_options *o)
{
	lsc_profiler_options_init(o);
	o->sink = sink;
	/* no watchdog thread: the races looked for are the callers' */
	o->flags |= LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
}

static void *spans(void *arg)
{
	lsc_profiler *p = arg;
	for (int i = 0; i < 2000 && !atomic_load(&stop); i++) {
		lsc_span s;
		if (lsc_span_begin(p, LSC_PHASE_READ, NULL, 4096, &s) == 0) {
			lsc_span_progress(p, s, 2048);
			CHECK(lsc_span_end(p, s, NULL) == 0);
		}
	}
	return NULL;
}

static void *tables(void *arg)
{
	lsc_profiler *p = arg;
	unsigned reads = 0;
	while (!atomic_load(&stop)) {
		struct lsc_start_table t;
		int r = lsc_start_table_read(p, &t);
		CHECK(r == -EAGAIN); /* the start is open all along: the rows so far */
		CHECK(t.covered_ns <= t.wall_ns);
		reads++;
	}
	CHECK(reads > 0);
	return NULL;
}

static void *churn(void *arg)
{
	(void)arg;
	for (int i = 0; i < 300; i++) {
		struct lsc_profiler_options o;
		options(&o);
		lsc_profiler *q = NULL;
		CHECK(lsc_profiler_create(&o, &q) == 0);
		lsc_note(q, "tsan", "churn");
		lsc_profiler_destroy(q);
	}
	return NULL;
}

int main(void)
{
	struct lsc_profiler_options o;
	options(&o);
	lsc_profiler *p = NULL;
	CHECK(lsc_profiler_create(&o, &p) == 0);
	CHECK(lsc_start_begin(p, "tsan") == 0);
	pthread_t sp[2], tb, ch[2];
	CHECK(pthread_create(&tb, NULL, tables, p) == 0);
	for (int i = 0; i < 2; i++) {
		CHECK(pthread_create(&sp[i], NULL, spans, p) == 0);
		CHECK(pthread_create(&ch[i], NULL, churn, NULL) == 0);
	}
	for (int i = 0; i < 2; i++) {
		CHECK(pthread_join(sp[i], NULL) == 0);
		CHECK(pthread_join(ch[i], NULL) == 0);
	}
	atomic_store(&stop, 1);
	CHECK(pthread_join(tb, NULL) == 0);
	CHECK(lsc_start_end(p) == 0);
	lsc_profiler_destroy(p);
	return 0;
}
