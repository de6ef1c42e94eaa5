/*
 * Description: no signal from the library's own writes ends the host.
 * A trace write at RLIMIT_FSIZE raises SIGXFSZ, a line written to a pipe
 * whose reader left raises SIGPIPE; both end a process by default. Each
 * case runs in a forked child with the default dispositions (a watchdog
 * alarm fails it instead of a hang) and must exit 0 with the line that
 * names the cause: the file size limit (EFBIG, also for a short write,
 * which was called "No space left on device"), the reader that went away
 * (EPIPE, in the trace, since the stream cannot carry it; the stream is
 * not written again). A SIGPIPE the host had pending before stays
 * pending. And the program: `loadscope load FILE | head -c1` exits 4
 * (docs/cli.md), a trace under `prlimit --fsize=0` leaves it alive with
 * the limit named.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/capture.h"
#include "helpers/load_helpers.h"
#include "helpers/tool_run.h"
#include "helpers/trace_json.h"

static struct lsct_capture cap;

/* In the child: a failed check is its exit status and one line. */
#define CHECK(cond, code)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "child: %s failed\n", #cond);                              \
			_exit(code);                                                               \
		}                                                                                  \
	} while (0)

/* @body in a forked child with SIGPIPE and SIGXFSZ at their defaults and an
 * alarm that fails it; asserts that it exited 0. */
static void in_child(void (*body)(void))
{
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		signal(SIGXFSZ, SIG_DFL);
		signal(SIGALRM, SIG_DFL);
		alarm(30);
		body();
		_exit(0);
	}
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(!WIFSIGNALED(st), "the child was ended by signal %d (%s)", WTERMSIG(st),
		  strsignal(WTERMSIG(st)));
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child exit status %d", WEXITSTATUS(st));
}

static lsc_profiler *traced(const char *trace_path, FILE *stream)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
	o.trace_path = trace_path;
	if (stream)
		o.stream = stream;
	else {
		o.sink = lsct_sink;
		o.sink_user = &cap;
	}
	lsc_profiler *p = NULL;
	CHECK(lsc_profiler_create(&o, &p) == 0, 2);
	return p;
}

static const char *trace_at(const char *name)
{
	static char path[512];
	snprintf(path, sizeof(path), "%s/%s", lsct_scratch("signals"), name);
	unlink(path);
	return path;
}

static void limit_fsize(rlim_t bytes)
{
	struct rlimit rl = {bytes, bytes};
	CHECK(setrlimit(RLIMIT_FSIZE, &rl) == 0, 3);
}

static const char *trace_path;

static void fsize_zero(void)
{
	limit_fsize(0);
	lsc_profiler *p = traced(trace_path, NULL);
	CHECK(lsc_start_begin(p, "fsize") == 0, 4);
	CHECK(lsc_start_end(p) == 0, 5);
	lsc_profiler_destroy(p);
	CHECK(lsct_count_with(&cap, "note", "the file size limit (RLIMIT_FSIZE)") == 1, 6);
}

Test(signals, a_trace_at_rlimit_fsize_zero_does_not_end_the_process)
{
	trace_path = trace_at("t0.json");
	in_child(fsize_zero);
}

/* 300 bytes: the first event (about 140) fits, a later one is cut short at
 * the limit; the note gives EFBIG, not ENOSPC, and the file is whole JSON. */
static void fsize_short(void)
{
	limit_fsize(300);
	lsc_profiler *p = traced(trace_path, NULL);
	CHECK(lsc_start_begin(p, "fsize") == 0, 4);
	for (int i = 0; i < 8; i++)
		lsc_note(p, "x", "y");
	CHECK(lsc_start_end(p) == 0, 5);
	lsc_profiler_destroy(p);
	CHECK(lsct_count_with(&cap, "note", "the file size limit (RLIMIT_FSIZE)") == 1, 6);
	CHECK(lsct_count_with(&cap, "note", "No space left") == 0, 7);
	struct lsct_trace *t = malloc(sizeof(*t));
	char why[256];
	int ok = lsct_trace_read(trace_path, t, why, sizeof(why));
	if (ok != 0)
		fprintf(stderr, "trace: %s\n", why);
	CHECK(ok == 0, 8);
	free(t);
}

Test(signals, a_short_trace_write_at_the_limit_names_the_limit)
{
	trace_path = trace_at("t300.json");
	in_child(fsize_short);
}

/* A stream on a pipe whose reader is gone. */
static FILE *broken_pipe(void)
{
	int fds[2];
	CHECK(pipe(fds) == 0, 10);
	close(fds[0]);
	FILE *f = fdopen(fds[1], "w");
	CHECK(f != NULL, 11);
	return f;
}

static void pipe_reader_gone(void)
{
	FILE *f = broken_pipe();
	lsc_profiler *p = traced(trace_path, f);
	CHECK(lsc_start_begin(p, "pipe") == 0, 4);
	lsc_note(p, "x", "after the reader left");
	CHECK(lsc_start_end(p) == 0, 5);
	lsc_profiler_destroy(p);
	CHECK(ferror(f), 6); /* left for the host to see */
	sigset_t pend;
	sigpending(&pend);
	CHECK(!sigismember(&pend, SIGPIPE), 7);
	/* The trace has the stream's failure, once: the stream stopped. */
	struct lsct_trace *t = malloc(sizeof(*t));
	char why[256];
	CHECK(lsct_trace_read(trace_path, t, why, sizeof(why)) == 0, 8);
	CHECK(lsct_trace_count(t, 'i', "fallback") == 1, 9);
	free(t);
	FILE *tf = fopen(trace_path, "r");
	char text[1 << 16];
	size_t n = fread(text, 1, sizeof(text) - 1, tf);
	text[n] = '\0';
	fclose(tf);
	CHECK(strstr(text, "EPIPE (the reader went away)"), 12);
	fclose(f);
}

Test(signals, a_line_to_a_pipe_whose_reader_left_does_not_end_the_process)
{
	trace_path = trace_at("pipe.json");
	in_child(pipe_reader_gone);
}

/* The host blocked SIGPIPE and has one pending of its own: the library's
 * write leaves it pending; with none pending, the library's own is
 * consumed. */
static void host_pending_kept(void)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGPIPE);
	CHECK(pthread_sigmask(SIG_BLOCK, &s, NULL) == 0, 20);
	FILE *f = broken_pipe();
	lsc_profiler *p = traced("", f);
	lsc_note(p, "x", "one");
	lsc_profiler_destroy(p);
	sigset_t pend;
	sigpending(&pend);
	CHECK(!sigismember(&pend, SIGPIPE), 21); /* ours: consumed */
	fclose(f);
	raise(SIGPIPE); /* the host's own */
	f = broken_pipe();
	p = traced("", f);
	lsc_note(p, "x", "two");
	lsc_profiler_destroy(p);
	sigpending(&pend);
	CHECK(sigismember(&pend, SIGPIPE), 22);
	fclose(f);
	struct timespec zero = {0, 0};
	CHECK(sigtimedwait(&s, NULL, &zero) == SIGPIPE, 23);
}

Test(signals, a_sigpipe_the_host_had_pending_stays_pending)
{
	in_child(host_pending_kept);
}

/* The program on a pipe: @fsize (or RLIM_INFINITY) as its RLIMIT_FSIZE,
 * @trace as LOADSCOPE_TRACE (or none), SIGPIPE and SIGXFSZ at their
 * defaults. With @one_byte the reader takes one byte and leaves (`head
 * -c1`), else it reads everything into @out. Return the exit status, or
 * 128 + the signal. */
static int tool_on_pipe(const char *file, rlim_t fsize, const char *trace, int one_byte, char *out,
			size_t out_cap)
{
	lsct_tool_required();
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGXFSZ, SIG_DFL);
		struct rlimit rl = {fsize, fsize};
		if (fsize != RLIM_INFINITY)
			setrlimit(RLIMIT_FSIZE, &rl);
		unsetenv("LOADSCOPE");
		if (trace)
			setenv("LOADSCOPE_TRACE", trace, 1);
		execl(LSC_TEST_TOOL, LSC_TEST_TOOL, "load", file, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	size_t n = 0;
	ssize_t r;
	char c;
	if (one_byte) {
		r = read(fds[0], &c, 1);
		cr_assert_eq(r, 1);
	} else {
		while (n + 1 < out_cap && (r = read(fds[0], out + n, out_cap - 1 - n)) > 0)
			n += (size_t)r;
	}
	if (out)
		out[n] = '\0';
	close(fds[0]);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

Test(signals, load_piped_into_head_c1_exits_4)
{
	const char *f = lsct_make_file("head.bin", 4u << 20, 7);
	int rc = tool_on_pipe(f, RLIM_INFINITY, NULL, 1, NULL, 0);
	cr_assert_eq(rc, 4, "exit status %d (141 is SIGPIPE's death)", rc);
}

Test(signals, load_with_a_trace_under_fsize_zero_stays_alive_and_names_the_limit)
{
	const char *f = lsct_make_file("fsize.bin", 4u << 20, 7);
	static char out[1 << 16];
	int rc = tool_on_pipe(f, 0, trace_at("cli.json"), 0, out, sizeof(out));
	cr_assert_eq(rc, 0, "exit status %d (153 is SIGXFSZ's death): %s", rc, out);
	cr_assert(strstr(out, "the file size limit (RLIMIT_FSIZE)"), "%s", out);
}

/* A full non-blocking pipe (EAGAIN) loses a line, not the stream: once the
 * reader drains it, the next line arrives. */
Test(signals, a_full_nonblocking_pipe_loses_a_line_not_the_stream)
{
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(fcntl(fds[1], F_SETFL, O_NONBLOCK), 0);
	cr_assert_eq(fcntl(fds[0], F_SETFL, O_NONBLOCK), 0);
	static char junk[1 << 16];
	while (write(fds[1], junk, sizeof(junk)) > 0)
		;
	FILE *f = fdopen(fds[1], "w");
	cr_assert_not_null(f);
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
	o.stream = f;
	lsc_profiler *p = NULL;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	lsc_note(p, "x", "into a full pipe");
	while (read(fds[0], junk, sizeof(junk)) > 0)
		;
	lsc_note(p, "x", "after the drain");
	static char got[1 << 16];
	ssize_t n = read(fds[0], got, sizeof(got) - 1);
	cr_assert_gt(n, 0, "nothing reached the pipe after the drain");
	got[n] = '\0';
	cr_assert(strstr(got, "after the drain"), "%s", got);
	lsc_profiler_destroy(p);
	fclose(f);
	close(fds[0]);
}
