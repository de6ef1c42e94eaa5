/*
 * Description: callbacks that do not return. A sink that longjmps (or
 * throws) out of a line used to leave the sink lock held, and the
 * profiler's next line hung forever; now no lock is held across the call,
 * and the turn the sink left is taken back by the next line of its thread,
 * which also lets another thread's line through, and destroy join the
 * watchdog. A sink that calls back into its profiler does not recurse
 * without end, and one that jumps out from inside its own call-backs
 * leaves no count behind that would refuse the next one early. Each case runs in a forked child under a watchdog alarm
 * that fails it rather than hanging (no timing is asserted).
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <loadscope/loader.h>
#include <loadscope/profiler.h>

#include "helpers/capture.h"
#include "helpers/load_helpers.h"
#include "helpers/sys_shim.h"

static struct lsct_capture cap;
static jmp_buf out;
static int jumps; /* longjmp out of this many sink calls, then take lines */
static lsc_profiler *P;
static int reenter;

static void jumping_sink(void *user, const char *line, size_t len)
{
	if (jumps > 0) {
		jumps--;
		longjmp(out, 1);
	}
	if (reenter)
		lsc_note(P, "again", "from inside the sink"); /* forbidden: must not recurse forever */
	lsct_sink(user, line, len);
}

static lsc_profiler *make(unsigned flags)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.flags = LSC_PROFILER_IGNORE_ENV | flags;
	o.sink = jumping_sink;
	o.sink_user = &cap;
	o.watchdog_after_s = 0.01;
	o.watchdog_every_s = 0.01;
	lsc_profiler *p = NULL;
	if (lsc_profiler_create(&o, &p) != 0)
		_exit(2);
	return p;
}

/* @body in a forked child, an alarm failing it; the child's exit status
 * is its verdict (0 passes). */
static void in_child(int (*body)(void))
{
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		signal(SIGALRM, SIG_DFL);
		alarm(30);
		_exit(body());
	}
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(!(WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM),
		  "the child hung until its alarm: a line waited for a turn nobody would give back");
	cr_assert(WIFEXITED(st), "the child died of signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	cr_assert_eq(WEXITSTATUS(st), 0, "child check %d failed", WEXITSTATUS(st));
}

static int jump_once_then_lines(void)
{
	P = make(LSC_PROFILER_NO_WATCHDOG);
	jumps = 1;
	if (setjmp(out) == 0) {
		lsc_note(P, "first", "the sink longjmps out of this one");
		return 3; /* not reached: the sink jumped */
	}
	lsc_note(P, "second", "after the jump");
	if (lsct_count_with(&cap, "note", "after the jump") != 1)
		return 4;
	/* The turn taken back is said once. */
	if (lsct_count_with(&cap, "usage", "did not return") != 1)
		return 5;
	lsc_note(P, "third", "and the next");
	if (lsct_count(&cap, "note") != 2)
		return 6;
	lsc_profiler_destroy(P);
	return 0;
}

Test(callbacks, a_sink_that_longjmps_once_does_not_hang_the_next_line)
{
	in_child(jump_once_then_lines);
}

static void *note_from_thread(void *arg)
{
	(void)arg;
	lsc_note(P, "thread", "from another thread");
	return NULL;
}

/* The jump deeper in the stack than the next line's call (the case a
 * stack-depth test alone would take for a re-entry), then a line from
 * another thread. */
static void __attribute__((noinline)) deep(int n)
{
	volatile char pad[512];
	pad[0] = (char)n;
	if (n)
		deep(n - 1);
	else
		lsc_note(P, "deep", "jumped out of");
	(void)pad[0];
}

static int jump_deep_then_thread(void)
{
	P = make(LSC_PROFILER_NO_WATCHDOG);
	jumps = 1;
	if (setjmp(out) == 0) {
		deep(8);
		return 3;
	}
	pthread_t t;
	lsc_note(P, "here", "shallow");
	if (pthread_create(&t, NULL, note_from_thread, NULL) != 0)
		return 4;
	pthread_join(t, NULL);
	if (lsct_count_with(&cap, "note", "from another thread") != 1)
		return 5;
	lsc_profiler_destroy(P);
	return 0;
}

Test(callbacks, after_a_jump_another_threads_line_gets_through)
{
	in_child(jump_deep_then_thread);
}

/* The watchdog writes "still in" lines into the same sink: after the main
 * thread's sink call jumped out and nothing else was written, destroy must
 * still join it. */
static int jump_then_destroy_with_watchdog(void)
{
	P = make(0);
	lsc_start_begin(P, "wd");
	lsc_span s;
	lsc_span_begin(P, LSC_PHASE_READ, "slow", 0, &s);
	jumps = 1;
	if (setjmp(out) == 0) {
		lsc_note(P, "jump", "out");
		return 3;
	}
	/* Let the watchdog come to the turn (a blocked line): it looks every
	 * 250 ms, so in 600 ms it has looked at least twice. The test passes
	 * whether it came or not; it finds a destroy that leaves the turn
	 * taken (the watchdog would wait for it forever) only when it came. */
	usleep(600 * 1000);
	lsc_profiler_destroy(P);
	return 0;
}

Test(callbacks, destroy_joins_the_watchdog_after_a_sink_jumped_out)
{
	in_child(jump_then_destroy_with_watchdog);
}

static int sink_reenters(void)
{
	P = make(LSC_PROFILER_NO_WATCHDOG);
	reenter = 1;
	lsc_note(P, "outer", "a line whose sink logs through the profiler");
	reenter = 0;
	if (lsct_count_with(&cap, "note", "a line whose sink logs") != 1)
		return 3;
	if (lsct_count_with(&cap, "usage", "called back") != 1)
		return 4;
	lsc_note(P, "after", "still works");
	if (lsct_count_with(&cap, "note", "still works") != 1)
		return 5;
	lsc_profiler_destroy(P);
	return 0;
}

Test(callbacks, a_sink_that_calls_back_into_its_profiler_ends)
{
	in_child(sink_reenters);
}

/* A progress callback that longjmps out of the load (an engine's C++
 * exception does the same to the C frames): the load's descriptors, ring,
 * staging and arena were kept for good (3 loads: fds 8 -> 14, RSS +770
 * MB). The next load on the thread releases them, says so in one note
 * line, and loads; the one after has nothing to release; at the end no
 * descriptor and no mapping of the library's is left (the shim counts
 * what it mapped). */
static int jumps_in_progress;

static int jumping_progress(uint64_t done, uint64_t total, void *user)
{
	(void)done;
	(void)total;
	(void)user;
	if (jumps_in_progress > 0) {
		jumps_in_progress--;
		longjmp(out, 1);
	}
	return 0;
}

static const char *progress_reader;
static const char *progress_file;

static int __attribute__((noinline)) one_load(lsc_profiler *p, int staging)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = progress_reader;
	o.progress = jumping_progress;
	if (staging) {
		o.staging_count = 2;
		o.staging_bytes = 1u << 20;
	}
	struct lsc_extent e = {.path = progress_file, .length = UINT64_MAX};
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	lsc_arena_destroy(a);
	return ret;
}

static int progress_jumps_then_loads(void)
{
	lsc_profiler *p = lsct_profiler(&cap);
	lsct_sys_install(NULL);
	int fds = lsct_open_fds();
	for (int i = 0; i < 3; i++) {
		jumps_in_progress = 1;
		if (setjmp(out) == 0) {
			one_load(p, i == 1);
			return 3; /* not reached: the callback jumped */
		}
	}
	jumps_in_progress = 0;
	/* two loads that return: the first releases what the last jump left,
	 * the second finds nothing left to release (a second release would
	 * close descriptors that are someone else's by then) */
	if (one_load(p, 0) != 0 || one_load(p, 0) != 0)
		return 4;
	if (lsct_open_fds() != fds)
		return 5;
	if (lsct_sys_mapped() != 0)
		return 6;
	if (lsct_count_with(&cap, "note", "left its progress callback without returning") != 3)
		return 7;
	lsct_sys_restore();
	lsc_profiler_destroy(p);
	return 0;
}

static void progress_case(const char *reader)
{
	progress_reader = reader;
	progress_file = lsct_make_file("prog.bin", 8u << 20, 4);
	in_child(progress_jumps_then_loads);
}

Test(callbacks, a_progress_callback_that_longjmps_has_its_load_released_by_the_next)
{
	progress_case("pread");
}

Test(callbacks, a_progress_callback_that_longjmps_out_of_io_uring_reads)
{
	lsct_need_uring();
	progress_case("io_uring");
}

/* A sink that calls back into the profiler and then jumps out from three
 * levels down leaves its nesting count behind; the next line, from a frame
 * no deeper than the one it jumped from, takes the turn back with the count
 * cleared, so that its sink calling back gets the same lines through before
 * the refusal as a first one did. */
static int depth, jump_at, nested_notes;

static void nesting_sink(void *user, const char *line, size_t len)
{
	depth++;
	if (jump_at && depth == jump_at) {
		jump_at = 0;
		depth = 0;
		longjmp(out, 1);
	}
	if (reenter && strstr(line, "nested")) {
		nested_notes++;
		lsc_note(P, "nested", "from inside the sink");
	}
	lsct_sink(user, line, len);
	depth--;
}

static unsigned burst(void)
{
	nested_notes = 0;
	reenter = 1;
	lsc_note(P, "nested", "a line whose sink logs through the profiler");
	reenter = 0;
	return (unsigned)nested_notes;
}

static int nest_count_cleared_after_a_jump(void)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
	o.sink = nesting_sink;
	o.sink_user = &cap;
	if (lsc_profiler_create(&o, &P) != 0)
		return 2;
	unsigned first = burst();
	if (first < 2)
		return 3; /* a sink that calls back gets some lines through */
	depth = 0;
	jump_at = 3;
	reenter = 1;
	if (setjmp(out) == 0) {
		lsc_note(P, "nested", "the sink jumps out three levels down");
		return 4; /* not reached */
	}
	reenter = 0;
	unsigned after = burst();
	if (after != first)
		return 5; /* fewer lines let through: the count of the jump was kept */
	lsc_profiler_destroy(P);
	return 0;
}

Test(callbacks, a_jump_out_of_a_nested_sink_clears_its_nesting_count)
{
	in_child(nest_count_cleared_after_a_jump);
}
