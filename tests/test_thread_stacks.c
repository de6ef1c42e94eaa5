/*
 * Description: the library's threads take a stack size of their own. The
 * watchdog took the process default, and with a small one (an engine's
 * pthread_setattr_default_np, musl's 128 KiB, `ulimit -s` before start)
 * it segfaulted at its first "still in" line. Here a forked child sets
 * the default to PTHREAD_STACK_MIN, then runs a start whose span the
 * watchdog reports (waited for on a semaphore the sink posts, under an
 * alarm: no timing asserted) and a load with prefault helper threads; it
 * must exit 0. The measurement: the same with painted stacks, each
 * thread's deepest use printed ("stack used") and held to at most half
 * of the size the library gives that thread.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <loadscope/loader.h>

#include "helpers/capture.h"
#include "helpers/load_helpers.h"
#include "sys/thread.h"

static struct lsct_capture cap;
static sem_t still;

static void sink(void *user, const char *line, size_t len)
{
	lsct_sink(user, line, len);
	if (strstr(line, "] still ") || strstr(line, "still in "))
		sem_post(&still);
}

/* A start whose span the watchdog reports twice, then a load with four
 * prefault threads. 0, or the failing step. */
static int watched_start_and_load(const char *file)
{
	sem_init(&still, 0, 0);
	struct lsc_profiler_options po;
	lsc_profiler_options_init(&po);
	po.flags = LSC_PROFILER_IGNORE_ENV;
	po.sink = sink;
	po.sink_user = &cap;
	po.watchdog_after_s = 0.01;
	po.watchdog_every_s = 0.01;
	lsc_profiler *p = NULL;
	if (lsc_profiler_create(&po, &p) != 0)
		return 1;
	lsc_start_begin(p, "small stacks");
	lsc_span s;
	lsc_span_begin(p, LSC_PHASE_READ, "slow", 1u << 20, &s);
	sem_wait(&still);
	sem_wait(&still);
	lsc_span_end(p, s, NULL);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.prefault_threads = 4;
	struct lsc_extent e = {.path = file, .length = UINT64_MAX};
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	lsc_arena_destroy(a);
	lsc_start_end(p);
	lsc_profiler_destroy(p);
	if (ret != 0)
		return 2;
	return lsct_count(&cap, "still") >= 2 ? 0 : 3;
}

Test(thread_stacks, the_watchdog_and_prefault_threads_survive_a_tiny_default_stack)
{
	const char *file = lsct_make_file("stk.bin", 16u << 20, 9);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		signal(SIGALRM, SIG_DFL);
		alarm(60);
		pthread_attr_t a;
		pthread_attr_init(&a);
		if (pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN) != 0 || pthread_setattr_default_np(&a) != 0)
			_exit(10);
		_exit(watched_start_and_load(file));
	}
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(!WIFSIGNALED(st), "the child died of signal %d (%s) with a %zu-byte default thread stack",
		  WTERMSIG(st), strsignal(WTERMSIG(st)), (size_t)PTHREAD_STACK_MIN);
	cr_assert_eq(WEXITSTATUS(st), 0, "step %d failed", WEXITSTATUS(st));
}

Test(thread_stacks, measured_use_leaves_half_of_each_stack)
{
	const char *file = lsct_make_file("stk.bin", 16u << 20, 9);
	lsc__thread_paint = 1;
	memset(lsc__thread_peak, 0, sizeof(lsc__thread_peak));
	int rc = watched_start_and_load(file);
	lsc__thread_paint = 0;
	cr_assert_eq(rc, 0, "step %d failed", rc);
	static const char *const names[] = {"watchdog", "prefault"};
	for (unsigned k = 0; k < LSC__THREAD_KINDS; k++) {
		fprintf(stderr, "stack used: %s thread %zu bytes of %zu\n", names[k], lsc__thread_peak[k],
			lsc__thread_stack[k]);
		cr_assert_gt(lsc__thread_peak[k], 0, "the %s thread's stack was not measured", names[k]);
		cr_assert_leq(lsc__thread_peak[k], lsc__thread_stack[k] / 2,
			      "the %s thread used %zu of its %zu bytes", names[k], lsc__thread_peak[k],
			      lsc__thread_stack[k]);
	}
}
