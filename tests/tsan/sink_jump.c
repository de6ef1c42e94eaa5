/*
 * Description (ThreadSanitizer): the sink's turn (src/profiler/sink.c)
 * against four threads that write lines while the main thread's sink call
 * longjmps out of the turn. The other threads wait for it; the main
 * thread's next line takes it back, and every line of every thread then
 * arrives. The sink counts lines without a lock of its own, as the
 * profiler promises calls that never overlap: a race there is TSan's
 * report. No timing: the threads and the main thread meet on a barrier.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <loadscope/profiler.h>

#include "tsan_check.h"

static unsigned lines; /* the sink's own: calls never overlap */
static pthread_t main_thread;
static int jump_main = 1;
static jmp_buf out;
static pthread_barrier_t ready;

static void sink(void *user, const char *line, size_t len)
{
	(void)user;
	(void)len;
	(void)line;
	if (pthread_equal(pthread_self(), main_thread) && jump_main) {
		jump_main = 0;
		longjmp(out, 1);
	}
	lines++;
}

static void *writer(void *arg)
{
	lsc_profiler *p = arg;
	pthread_barrier_wait(&ready);
	for (int i = 0; i < 200; i++)
		lsc_note(p, "tsan", "a line from a writer thread");
	return NULL;
}

int main(void)
{
	main_thread = pthread_self();
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = sink;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
	lsc_profiler *p;
	CHECK(lsc_profiler_create(&o, &p) == 0);
	enum { N = 4 };
	pthread_t t[N];
	CHECK(pthread_barrier_init(&ready, NULL, N + 1) == 0);
	for (int i = 0; i < N; i++)
		CHECK(pthread_create(&t[i], NULL, writer, p) == 0);
	if (setjmp(out) == 0)
		lsc_note(p, "main", "the sink jumps out of this one");
	pthread_barrier_wait(&ready); /* the writers start with the turn abandoned */
	lsc_note(p, "main", "takes the turn back");
	for (int i = 0; i < N; i++)
		CHECK(pthread_join(t[i], NULL) == 0);
	lsc_profiler_destroy(p);
	/* every writer line, the main thread's second, and one usage line */
	CHECK(lines == (unsigned)(N * 200 + 2));
	printf("tsan sink_jump: %u lines, ok\n", lines);
	return 0;
}
