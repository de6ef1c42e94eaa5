/*
 * Description (ThreadSanitizer): fork() against the profiler's threads and
 * its atfork handlers. On one profiler three threads open and end spans
 * and the watchdog prints "still in" lines; on a second, one thread is
 * stuck inside the sink (on a semaphore) for the whole run. Meanwhile the
 * main thread forks again and again. Each fork must return; each child,
 * which has only the forking thread, measures a span, prints a line on
 * each profiler (the stuck one's sink is free in the child) and destroys
 * both. (A child creates no thread: TSan does not support that after a
 * threaded fork.)
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#include "tsan_check.h"

static sem_t in_sink, release_sink;
static pid_t parent_pid;
static unsigned lines, stuck_lines; /* each touched by one profiler's sink calls only */
static atomic_int stop;

static void sink(void *user, const char *line, size_t len)
{
	(void)user;
	(void)line;
	(void)len;
	lines++;
}

static void stuck_sink(void *user, const char *line, size_t len)
{
	(void)user;
	(void)len;
	stuck_lines++;
	if (getpid() == parent_pid && strstr(line, "stuck line")) {
		sem_post(&in_sink);
		while (sem_wait(&release_sink) != 0 && errno == EINTR)
			;
	}
}

static void *stuck(void *arg)
{
	lsc_note(arg, "tsan", "stuck line");
	return NULL;
}

static void *spans(void *arg)
{
	lsc_profiler *p = arg;
	while (!atomic_load(&stop)) {
		lsc_span s;
		if (lsc_span_begin(p, LSC_PHASE_READ, NULL, 4096, &s) == 0) {
			lsc_span_progress(p, s, 2048);
			lsc_span_end(p, s, NULL);
		}
	}
	return NULL;
}

int main(void)
{
	CHECK(sem_init(&in_sink, 0, 0) == 0);
	CHECK(sem_init(&release_sink, 0, 0) == 0);
	parent_pid = getpid();
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = sink;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV;
	o.watchdog_after_s = 0.01;
	o.watchdog_every_s = 0.01;
	lsc_profiler *p, *stuckp;
	CHECK(lsc_profiler_create(&o, &p) == 0);
	o.sink = stuck_sink;
	o.flags |= LSC_PROFILER_NO_WATCHDOG;
	CHECK(lsc_profiler_create(&o, &stuckp) == 0);
	CHECK(lsc_start_begin(p, "tsan fork") == 0);
	lsc_span longest;
	CHECK(lsc_span_begin(p, LSC_PHASE_ALLOCATE, NULL, 0, &longest) == 0);

	pthread_t blocker, t[3];
	CHECK(pthread_create(&blocker, NULL, stuck, stuckp) == 0);
	while (sem_wait(&in_sink) != 0)
		;
	for (int i = 0; i < 3; i++)
		CHECK(pthread_create(&t[i], NULL, spans, p) == 0);

	for (int i = 0; i < 20; i++) {
		pid_t pid = fork();
		CHECK(pid >= 0);
		if (pid == 0) {
			lsc_span s;
			struct lsc_span_result r;
			unsigned before = lines, stuck_before = stuck_lines;
			int ok = lsc_span_begin(p, LSC_PHASE_COPY, "child", 0, &s) == 0 &&
				 lsc_span_end(p, s, &r) == 0 && r.rss_kib > 0 &&
				 lsc_note(p, "tsan", "child") == 0 && lines == before + 2 &&
				 lsc_note(stuckp, "tsan", "child") == 0 && stuck_lines == stuck_before + 1;
			lsc_profiler_destroy(stuckp);
			lsc_profiler_destroy(p);
			_exit(ok ? 0 : 1);
		}
		int st = 0;
		CHECK(waitpid(pid, &st, 0) == pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}

	atomic_store(&stop, 1);
	for (int i = 0; i < 3; i++)
		CHECK(pthread_join(t[i], NULL) == 0);
	sem_post(&release_sink);
	CHECK(pthread_join(blocker, NULL) == 0);
	CHECK(lsc_span_end(p, longest, NULL) == 0);
	CHECK(lsc_start_end(p) == 0);
	lsc_profiler_destroy(stuckp);
	lsc_profiler_destroy(p);
	printf("tsan fork: 20 forks while a sink was stuck, %u lines, ok\n", lines);
	return 0;
}
