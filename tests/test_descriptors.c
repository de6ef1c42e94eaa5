/*
 * Description: the descriptors the library opens never land on 0, 1 or 2.
 * An engine that closed its stderr after lsc_profiler_create saw the trace
 * file (opened at the first event) take descriptor 2, and every stderr
 * line land inside the trace: the log lost, the trace not JSON. Here a
 * forked child closes 0, 1 and 2, then traces a start and loads a file
 * with each reader (the loader's files, the /proc readers, the ring); the
 * trace must be strict JSON with no line in it, and 0, 1 and 2 must still
 * be closed at the end (a watchdog alarm fails the child rather than
 * hanging it).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <loadscope/loader.h>

#include "helpers/load_helpers.h"
#include "helpers/trace_json.h"

static int low_fds_closed(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			return 0;
	return 1;
}

/* The child's work: 0 or the number of the check that failed. */
static int closed_std_fds(const char *trace, const char *file, const char *reader)
{
	struct lsc_profiler_options po;
	lsc_profiler_options_init(&po);
	po.flags = LSC_PROFILER_IGNORE_ENV;
	po.trace_path = trace;
	lsc_profiler *p = NULL;
	if (lsc_profiler_create(&po, &p) != 0)
		return 1;
	close(0);
	close(1);
	close(2);
	lsc_start_begin(p, "closed stderr");
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = reader;
	struct lsc_extent e = {.path = file, .length = UINT64_MAX};
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	lsc_note(p, "after", "the load");
	lsc_start_end(p);
	int low = low_fds_closed();
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	if (ret != 0)
		return 2;
	if (!low)
		return 3;
	struct lsct_trace *t = malloc(sizeof(*t));
	char why[256];
	if (lsct_trace_read(trace, t, why, sizeof(why)) != 0)
		return 4;
	if (!lsct_trace_find(t, 'i', "ready", 0))
		return 5;
	free(t);
	return low_fds_closed() ? 0 : 6;
}

static void run_closed(const char *reader)
{
	const char *file = lsct_make_file("fds.bin", 3u << 20, 11);
	char trace[512];
	snprintf(trace, sizeof(trace), "%s/fds-%s.json", lsct_tmpdir(), reader);
	unlink(trace);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		alarm(60);
		_exit(closed_std_fds(trace, file, reader));
	}
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "child ended by signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	static const char *const what[] = {"", "profiler_create failed", "the load failed",
					   "a library descriptor landed on 0, 1 or 2",
					   "the trace is not strict JSON (a line landed in it?)",
					   "the trace has no ready instant", "0, 1 or 2 open after destroy"};
	int code = WEXITSTATUS(st);
	cr_assert_eq(code, 0, "%s (%d)", code < 7 ? what[code] : "?", code);

}

Test(descriptors, closed_stderr_is_not_taken_with_pread)
{
	run_closed("pread");
}

Test(descriptors, closed_stderr_is_not_taken_with_io_uring)
{
	lsct_need_uring();
	run_closed("io_uring");
}
