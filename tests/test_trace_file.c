/*
 * Description: the trace file replaces only what it may (issue 14). A trace
 * path that names a device (through a symbolic link to /dev/null, which
 * every test machine can open), a FIFO, a directory or a symbolic link to a
 * regular file is left as it was, with one note line saying so, and nothing
 * is created beside it; a regular file or a free name gets the trace. A
 * process killed while the trace is being written (by SIGXFSZ, which
 * RLIMIT_FSIZE raises at the write itself, so the kill lands inside it
 * without any timing) leaves no temporary file. Every path lives in a
 * temporary directory: the real /dev is never touched.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#include "helpers/capture.h"
#include "helpers/trace_json.h"

static struct lsct_capture cap;
static char store[LSC__LINE_MAX + 1];
static char dir[64];

static void setup(void)
{
	memset(&cap, 0, sizeof(cap));
	snprintf(dir, sizeof(dir), "/tmp/lsc-trace-dir-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void rm_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char sub[512];
			snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
			rm_tree(sub);
		}
		if (d)
			closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

static void teardown(void)
{
	rm_tree(dir);
}

TestSuite(trace_file, .init = setup, .fini = teardown);

static unsigned entries(const char *path)
{
	DIR *d = opendir(path);
	cr_assert_not_null(d, "%s", path);
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* A start with one span, ended, then destroy: two trace writes. */
static void run_with_trace(const char *path)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
	o.trace_path = path;
	lsc_profiler *p;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	cr_assert_eq(lsc_start_begin(p, "trace"), 0);
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_READ, NULL, 4096, &s), 0);
	cr_assert_eq(lsc_span_end(p, s, NULL), 0);
	cr_assert_eq(lsc_start_end(p), 0);
	lsc_profiler_destroy(p);
}

/* One note line for the refusal, naming the path and what is there. */
static void assert_refused(const char *path, const char *what)
{
	cr_assert_eq(lsct_count(&cap, "note"), 1, "%s", cap.buf);
	struct lsc__parsed n;
	cr_assert(lsct_find(&cap, "note", 0, store, sizeof store, &n));
	char want[512];
	snprintf(want, sizeof(want), "trace: %s is %s, not a regular file: left alone, no trace written", path,
		 what);
	cr_assert_str_eq(n.human, want);
	cr_assert_eq(entries(dir), 1, "something was created beside %s", path);
}

Test(trace_file, symlink_to_a_device_is_left_alone)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/null", dir);
	cr_assert_eq(symlink("/dev/null", path), 0);
	run_with_trace(path);
	struct stat st;
	cr_assert_eq(lstat(path, &st), 0);
	cr_assert(S_ISLNK(st.st_mode), "the symlink was replaced (mode %o)", st.st_mode);
	char target[64] = "";
	cr_assert_eq(readlink(path, target, sizeof(target) - 1), 9);
	cr_assert_str_eq(target, "/dev/null");
	assert_refused(path, "a symbolic link");
}

Test(trace_file, fifo_is_left_alone_and_never_opened)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/fifo", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	/* No reader: opening it to write through would block here. */
	alarm(20);
	run_with_trace(path);
	alarm(0);
	struct stat st;
	cr_assert_eq(lstat(path, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced (mode %o)", st.st_mode);
	assert_refused(path, "a FIFO");
}

Test(trace_file, directory_is_left_alone)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/sub", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	run_with_trace(path);
	struct stat st;
	cr_assert_eq(lstat(path, &st), 0);
	cr_assert(S_ISDIR(st.st_mode));
	cr_assert_eq(entries(path), 0);
	assert_refused(path, "a directory");
}

Test(trace_file, symlink_to_a_regular_file_is_left_alone)
{
	char target[128], path[128];
	snprintf(target, sizeof(target), "%s/real", dir);
	snprintf(path, sizeof(path), "%s/link", dir);
	FILE *f = fopen(target, "w");
	cr_assert_not_null(f);
	fputs("keep", f);
	fclose(f);
	cr_assert_eq(symlink(target, path), 0);
	run_with_trace(path);
	struct stat st;
	cr_assert_eq(lstat(path, &st), 0);
	cr_assert(S_ISLNK(st.st_mode));
	cr_assert_eq(stat(target, &st), 0);
	cr_assert_eq(st.st_size, 4, "the link's target was written");
	cr_assert_eq(lsct_count(&cap, "note"), 1, "%s", cap.buf);
	cr_assert_eq(entries(dir), 2);
}

/* A free name and then an existing regular file (the second write) take
 * the trace, and no temporary file stays. */
Test(trace_file, regular_file_gets_the_trace)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/t.json", dir);
	run_with_trace(path);
	cr_assert_eq(lsct_count(&cap, "note"), 0, "%s", cap.buf);
	cr_assert_eq(entries(dir), 1);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f);
	static char text[1 << 16];
	size_t n = fread(text, 1, sizeof(text), f);
	fclose(f);
	char why[160] = "";
	unsigned nx = 0;
	cr_assert_eq(lsct_trace_json_check(text, n, &nx, why, sizeof(why)), 0, "%s\n%s", why, text);
	cr_assert_eq(nx, 1);
	/* relative paths work too (the directory is ".") */
	cr_assert_eq(chdir(dir), 0);
	memset(&cap, 0, sizeof(cap));
	run_with_trace("rel.json");
	cr_assert_eq(lsct_count(&cap, "note"), 0, "%s", cap.buf);
	cr_assert_eq(entries(dir), 2);
}

/*
 * Killed while writing: RLIMIT_FSIZE makes the kernel send SIGXFSZ at the
 * first write past 1 KiB, so the child dies inside the trace write. A trace
 * written under a temporary name left PATH.PID.tmp behind; an unnamed file
 * leaves nothing.
 */
Test(trace_file, killed_while_writing_leaves_no_temporary_file)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/t.json", dir);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		alarm(20);
		struct rlimit none = {0, 0}, small = {1024, 1024};
		setrlimit(RLIMIT_CORE, &none);
		struct lsc_profiler_options o;
		lsc_profiler_options_init(&o);
		o.sink = lsct_sink;
		o.sink_user = &cap;
		o.mode = LSC_MODE_ON;
		o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
		o.trace_path = path;
		lsc_profiler *p;
		if (lsc_profiler_create(&o, &p) != 0)
			_exit(1);
		lsc_start_begin(p, "killed");
		for (int i = 0; i < 64; i++) {
			lsc_span s;
			lsc_span_begin(p, LSC_PHASE_READ, NULL, 4096, &s);
			lsc_span_end(p, s, NULL);
		}
		if (setrlimit(RLIMIT_FSIZE, &small) != 0)
			_exit(2);
		lsc_start_end(p); /* the trace write: more than 1 KiB */
		_exit(3);
	}
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGXFSZ, "child status %#x", st);
	cr_assert_eq(entries(dir), 0, "the killed write left a file in %s", dir);
}
