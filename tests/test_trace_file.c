/*
 * Description: the trace file survives and replaces only what it may
 * (issues 10 and 14). A trace path that names a device (through a symbolic
 * link to /dev/null, which every test machine can open), a FIFO, a
 * directory, a symbolic link to a regular file or a file that is not a
 * trace is left as it was, with one note line saying so, and nothing is
 * created beside it; a free name, an empty file or an earlier trace gets
 * the trace. Made under its temporary name (O_TMPFILE refused, as on a
 * file system without it), the trace removes that name once linked; made
 * unnamed, it leaves a file found at that name alone. The trace is
 * written as the start goes: a start killed by SIGKILL mid-load (its
 * sink blocked on the read's phase line, the parent
 * told so through a pipe) leaves a trace that a strict reader opens,
 * without its closing bracket, with the ended spans whole and the span it
 * was killed in begun; a file size limit met mid-trace leaves it cut at
 * its last whole event, said in one note line; a start killed while the
 * file is made (SIGXFSZ at its first write) leaves nothing. "%p" in the
 * path is the pid, and a parent and its forked child never write one
 * file: with %p each has its own, without it the child is refused in one
 * note line; a child whose pid is shorter than its parent's (pid 1 of a
 * new pid namespace) gets exactly its own name. Character and block device nodes (made with mknod; a loud
 * skip without CAP_MKNOD), a socket and the locked trace of another live
 * process are left alone too, each named for what it is.
 * Every path lives in a temporary directory: the real /dev is never
 * touched.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/wait.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#include "helpers/capture.h"
#include "helpers/load_helpers.h"
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

static struct lsct_trace tr;
static char why[256];

static lsc_profiler *traced(const char *path, struct lsct_capture *c)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = c;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
	o.trace_path = path;
	lsc_profiler *p = NULL;
	if (lsc_profiler_create(&o, &p) != 0)
		return NULL;
	return p;
}

/* A start with one span, ended, then destroy. */
static void run_with_trace(const char *path)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
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
	snprintf(want, sizeof(want), "trace: %s is %s: left alone, no trace written", path, what);
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
	assert_refused(path, "a symbolic link, not a regular file");
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
	assert_refused(path, "a FIFO, not a regular file");
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
	assert_refused(path, "a directory, not a regular file");
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
	cr_assert_eq(lsct_trace_read(path, &tr, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(lsct_trace_count(&tr, 'B', NULL), 1);
	cr_assert_eq(lsct_trace_count(&tr, 'E', NULL), 1);
	cr_assert(tr.closed, "destroy closes the array");
	/* the second run replaces its own earlier trace */
	run_with_trace(path);
	cr_assert_eq(lsct_count(&cap, "note"), 0, "%s", cap.buf);
	cr_assert_eq(entries(dir), 1);
	cr_assert_eq(lsct_trace_read(path, &tr, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(lsct_trace_count(&tr, 'B', NULL), 1, "the earlier trace was appended to");
	/* relative paths work too (the directory is ".") */
	cr_assert_eq(chdir(dir), 0);
	memset(&cap, 0, sizeof(cap));
	run_with_trace("rel.json");
	cr_assert_eq(lsct_count(&cap, "note"), 0, "%s", cap.buf);
	cr_assert_eq(entries(dir), 2);
}


/* A dead run of this pid left its temporary name behind (PATH.PID.tmp, an
 * empty file) beside an earlier trace: the new trace takes the temporary
 * name anyway and replaces the earlier one; nothing is left but it. */
Test(trace_file, a_stale_temporary_name_is_taken_over)
{
	char path[128], tmp[192];
	snprintf(path, sizeof(path), "%s/t.json", dir);
	run_with_trace(path);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_assert_eq(entries(dir), 2);
	memset(&cap, 0, sizeof(cap));
	run_with_trace(path);
	cr_assert_eq(lsct_count(&cap, "note"), 0, "%s", cap.buf);
	cr_assert_eq(entries(dir), 1, "the temporary name was left");
	cr_assert_eq(lsct_trace_read(path, &tr, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(lsct_trace_count(&tr, 'B', NULL), 1, "the earlier trace was kept or appended to");
	cr_assert(tr.closed);
}

/* Another program's file at the path is not the trace's to replace. */
Test(trace_file, a_file_that_is_not_a_trace_is_left_alone)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/model.bin", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("weights", f);
	fclose(f);
	run_with_trace(path);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_size, 7, "the file was replaced");
	assert_refused(path, "a file that is not a loadscope trace");
}

static char *slurp(const char *path, size_t *len)
{
	static char text[1 << 20];
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	*len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[*len] = '\0';
	return text;
}

/* The sink of the killed child: on the read's phase line, say so on the
 * pipe and block until killed. */
static int reached_w = -1, block_r = -1;

/* Does open(2) of @d with O_TMPFILE work here? 0, or the errno it fails with. */
static int tmpfile_errno(const char *d)
{
	int fd = open(d, O_TMPFILE | O_WRONLY, 0600);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/*
 * Refuse O_TMPFILE to this process from now on, with EOPNOTSUPP, as a file
 * system without it does (older FUSE and network file systems): a seccomp
 * filter on openat(2), the call glibc's open(3) makes. Criterion runs each
 * test in a process of its own, so the filter ends with the test. NULL, or
 * a reason to skip.
 */
static const char *refuse_tmpfile(void)
{
#if defined(__x86_64__)
	const unsigned arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
	const unsigned arch = AUDIT_ARCH_AARCH64;
#else
	return "no seccomp filter written for this architecture";
#endif
#if defined(__x86_64__) || defined(__aarch64__)
	/* the flags are the low word of args[2] (both are little-endian) */
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		/* O_TMPFILE's own bit: O_DIRECTORY alone is an ordinary open */
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_TMPFILE & ~O_DIRECTORY, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EOPNOTSUPP & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		return "this process may not install a seccomp filter";
	return NULL;
#endif
}

/*
 * Without O_TMPFILE the trace is made under its temporary name
 * (PATH.PID.tmp) and linked at the path; the temporary name is then
 * removed: the directory holds the trace and nothing else, whole and
 * closed. Checked first that O_TMPFILE is refused here, so that the named
 * file is the one made.
 */
Test(trace_file, without_o_tmpfile_the_temporary_name_is_removed_after_the_link)
{
	const char *skip = refuse_tmpfile();
	if (skip)
		cr_skip_test("SKIP: %s; the named temporary file is not tried", skip);
	cr_assert_eq(tmpfile_errno(dir), EOPNOTSUPP, "O_TMPFILE still works: the filter did not take");
	char path[128];
	snprintf(path, sizeof(path), "%s/t.json", dir);
	run_with_trace(path);
	cr_assert_eq(lsct_count(&cap, "note"), 0, "%s", cap.buf);
	char tmp[192];
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	cr_expect_neq(access(tmp, F_OK), 0, "the temporary name %s was left after the link", tmp);
	cr_assert_eq(entries(dir), 1, "the directory holds more than the trace");
	cr_assert_eq(lsct_trace_read(path, &tr, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(lsct_trace_count(&tr, 'E', NULL), 1);
	cr_assert(tr.closed);
}

/*
 * With O_TMPFILE the file never has the temporary name: linked at a free
 * path, it leaves a file that happens to be at PATH.PID.tmp alone (here
 * another program's, which the named path would not replace either; a
 * process of the same pid in another pid namespace could own one).
 */
Test(trace_file, an_unnamed_trace_linked_at_its_path_leaves_the_temporary_name_alone)
{
	int e = tmpfile_errno(dir);
	if (e)
		cr_skip_test("SKIP: O_TMPFILE in %s: %s; the unnamed file is not tried", dir, strerror(e));
	char path[128], tmp[192];
	snprintf(path, sizeof(path), "%s/t.json", dir);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	static const char other[] = "another program's file\n";
	FILE *f = fopen(tmp, "w");
	cr_assert_not_null(f);
	cr_assert_geq(fputs(other, f), 0);
	fclose(f);
	run_with_trace(path);
	cr_assert_eq(lsct_count(&cap, "note"), 0, "%s", cap.buf);
	cr_assert_eq(lsct_trace_read(path, &tr, why, sizeof(why)), 0, "%s", why);
	cr_assert(tr.closed);
	cr_assert_eq(access(tmp, F_OK), 0, "%s was removed", tmp);
	size_t n;
	const char *kept = slurp(tmp, &n);
	cr_expect(n == sizeof(other) - 1 && !memcmp(kept, other, n), "%s was changed: \"%s\"", tmp, kept);
	cr_assert_eq(entries(dir), 2);
}

static void blocking_sink(void *user, const char *line, size_t len)
{
	lsct_sink(user, line, len);
	if (strstr(line, " phase read (nested): ")) {
		char c = 'r';
		if (write(reached_w, &c, 1) != 1)
			_exit(4);
		(void)!read(block_r, &c, 1); /* the parent never writes */
		_exit(5);
	}
}

Test(trace_file, a_start_killed_mid_load_leaves_a_readable_trace)
{
	char *file = strdup(lsct_make_file("w.bin", (1u << 20) + 123, 7));
	char path[128];
	snprintf(path, sizeof(path), "%s/killed.json", dir);
	int reached[2], block[2];
	cr_assert_eq(pipe(reached), 0);
	cr_assert_eq(pipe(block), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(reached[0]);
		close(block[1]);
		reached_w = reached[1];
		block_r = block[0];
		struct lsc_profiler_options o;
		lsc_profiler_options_init(&o);
		o.sink = blocking_sink;
		o.sink_user = &cap;
		o.mode = LSC_MODE_ON;
		o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
		o.trace_path = path;
		lsc_profiler *p;
		if (lsc_profiler_create(&o, &p) != 0)
			_exit(1);
		lsc_start_begin(p, "killed start");
		lsc_span outer; /* still open when the child is killed */
		lsc_span_begin(p, LSC_PHASE_CUSTOM, "load weights", 0, &outer);
		struct lsc_load_options lo;
		lsc_load_options_init(&lo);
		lo.reader = "pread";
		struct lsc_extent e = {.path = file, .length = (1u << 20) + 123};
		lsc_arena *a = NULL;
		lsc_load(p, &lo, &e, 1, 0, &a);
		_exit(3); /* not reached: the sink blocks in the load */
	}
	close(reached[1]);
	close(block[0]);
	char c = 0;
	cr_assert_eq(read(reached[0], &c, 1), 1, "the child did not reach the read's phase line");
	cr_assert_eq(kill(pid, SIGKILL), 0);
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "child status %#x", st);
	close(reached[0]);
	close(block[1]);

	cr_assert_eq(entries(dir), 1, "a temporary file was left beside the trace");
	size_t n;
	char *text = slurp(path, &n);
	cr_assert_eq(lsct_trace_parse(text, n, &tr, why, sizeof(why)), 0, "%s\n%s", why, text);
	cr_assert_not(tr.closed, "a killed process cannot have closed the array");
	const struct lsct_trace_ev *m = lsct_trace_find(&tr, 'M', "process_name", 0);
	cr_assert_not_null(m);
	cr_assert_str_eq(m->arg_name, "killed start");
	cr_assert_eq(m->pid, pid);
	cr_assert_not_null(lsct_trace_find(&tr, 'i', "start", 0), "%s", text);
	cr_assert_not_null(lsct_trace_find(&tr, 'i', "arena", 0), "%s", text);
	const struct lsct_trace_ev *al = lsct_trace_find(&tr, 'B', "allocate", 0);
	cr_assert_not_null(al, "%s", text);
	cr_assert_geq(al->dur, 0, "allocate ended: its E is in the file");
	const struct lsct_trace_ev *r = lsct_trace_find(&tr, 'B', "read", 0);
	cr_assert_not_null(r, "the span whose line blocked is in the file: %s", text);
	cr_assert_str_eq(r->cat, "read");
	cr_assert_geq(r->dur, 0, "its E is written before its line: %s", text);
	/* the span the start was killed in: begun, never ended */
	cr_assert_eq(tr.n_open, 1, "%s", text);
	const struct lsct_trace_ev *o = lsct_trace_find(&tr, 'B', "load weights", 0);
	cr_assert_not_null(o, "%s", text);
	cr_assert_eq(o->dur, -1);
	cr_assert_str_eq(o->cat, "custom");
	cr_assert_null(lsct_trace_find(&tr, 'i', "ready", 0), "%s", text);
	for (unsigned i = 0; i < tr.n; i++)
		cr_assert_eq(tr.ev[i].pid, pid, "event %u has pid %ld", i, tr.ev[i].pid);
	free(file);
}

/*
 * A file size limit met mid-trace: the kernel writes what fits below
 * RLIMIT_FSIZE and refuses the rest (SIGXFSZ ignored, so EFBIG). The trace
 * is cut back to its last whole event and stops, said in one note line;
 * the child exits normally.
 */
Test(trace_file, a_size_limit_cuts_the_trace_at_a_whole_event)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/t.json", dir);
	int out[2];
	cr_assert_eq(pipe(out), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(out[0]);
		signal(SIGXFSZ, SIG_IGN);
		struct rlimit small = {4096, 4096};
		lsc_profiler *p = traced(path, &cap);
		if (!p || setrlimit(RLIMIT_FSIZE, &small) != 0)
			_exit(1);
		lsc_start_begin(p, "limited");
		for (int i = 0; i < 64; i++) {
			lsc_span s;
			lsc_span_begin(p, LSC_PHASE_READ, NULL, 4096, &s);
			lsc_span_end(p, s, NULL);
		}
		lsc_profiler_destroy(p);
		unsigned notes = lsct_count_with(&cap, "note", "the trace stops at its last whole event");
		_exit(notes == 1 && lsct_count(&cap, "note") == 1 ? 0 : 2);
	}
	close(out[1]);
	close(out[0]);
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	size_t n;
	char *text = slurp(path, &n);
	cr_assert_leq(n, 4096);
	cr_assert_eq(lsct_trace_parse(text, n, &tr, why, sizeof(why)), 0, "%s\n%s", why, text);
	cr_assert_not(tr.closed);
	cr_assert_gt(lsct_trace_count(&tr, 'E', "read"), 0, "%s", text);
	cr_assert_lt(lsct_trace_count(&tr, 'E', "read"), 64, "%s", text);
	cr_assert_eq(entries(dir), 1);
}

/* A path that fits the option's 511 bytes but not once %p is the pid (3
 * digits or more) gets no trace and one note that says so; nothing is
 * made. */
Test(trace_file, a_path_too_long_with_the_pid_in_it_is_said)
{
	char tmpl[512];
	size_t n = (size_t)snprintf(tmpl, sizeof tmpl, "%s/", dir);
	while (n < sizeof tmpl - 3)
		tmpl[n++] = 'a';
	memcpy(tmpl + n, "%p", 3);
	cr_assert_eq(strlen(tmpl), 511);
	cr_assert_geq(getpid(), 100, "a pid of 3 digits at least makes it too long");
	run_with_trace(tmpl);
	cr_assert_eq(lsct_count(&cap, "note"), 1, "%s", cap.buf);
	struct lsc__parsed nl;
	cr_assert(lsct_find(&cap, "note", 0, store, sizeof store, &nl));
	cr_assert_str_eq(nl.human, "trace: the trace path with %p expanded is too long; no trace");
	cr_assert_eq(entries(dir), 0);
}

Test(trace_file, percent_p_is_the_pid)
{
	char tmpl[128], path[128];
	snprintf(tmpl, sizeof(tmpl), "%s/t-%%p-100%%%%.json", dir);
	snprintf(path, sizeof(path), "%s/t-%d-100%%.json", dir, (int)getpid());
	run_with_trace(tmpl);
	cr_assert_eq(lsct_count(&cap, "note"), 0, "%s", cap.buf);
	cr_assert_eq(entries(dir), 1);
	cr_assert_eq(lsct_trace_read(path, &tr, why, sizeof(why)), 0, "%s: %s", path, why);
	cr_assert(tr.closed);
	cr_assert_gt(tr.n, 0);
	for (unsigned i = 0; i < tr.n; i++)
		cr_assert_eq(tr.ev[i].pid, getpid());
}

/* A parent records, forks; the child records and ends; the parent records
 * again and ends. Return the child's exit status; @child_pid set. */
static int fork_and_trace(const char *tmpl, pid_t *child_pid)
{
	lsc_profiler *p = traced(tmpl, &cap);
	cr_assert_not_null(p);
	lsc_start_begin(p, "parent");
	lsc_span s;
	lsc_span_begin(p, LSC_PHASE_ALLOCATE, "before fork", 1, &s);
	lsc_span_end(p, s, NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		lsct_capture_reset(&cap);
		lsc_span_begin(p, LSC_PHASE_READ, "in child", 1, &s);
		lsc_span_end(p, s, NULL);
		lsc_start_end(p);
		lsc_profiler_destroy(p);
		/* exit status: how many trace notes the child said */
		_exit((int)lsct_count(&cap, "note"));
	}
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	lsc_span_begin(p, LSC_PHASE_READ, "in parent", 1, &s);
	lsc_span_end(p, s, NULL);
	lsc_start_end(p);
	lsc_profiler_destroy(p);
	*child_pid = pid;
	cr_assert(WIFEXITED(st), "child status %#x", st);
	return WEXITSTATUS(st);
}

static void assert_only_pid(const char *path, pid_t pid, const char *span, const char *not_span)
{
	cr_assert_eq(lsct_trace_read(path, &tr, why, sizeof(why)), 0, "%s: %s", path, why);
	cr_assert(tr.closed, "%s", path);
	for (unsigned i = 0; i < tr.n; i++)
		cr_assert_eq(tr.ev[i].pid, pid, "%s: event %u (%s) has pid %ld, not %d", path, i, tr.ev[i].name,
			     tr.ev[i].pid, (int)pid);
	cr_assert_not_null(lsct_trace_find(&tr, 'E', span, 0), "%s has no %s", path, span);
	cr_assert_null(lsct_trace_find(&tr, 'B', not_span, 0), "%s has %s", path, not_span);
}

Test(trace_file, a_forked_child_gets_its_own_file_with_percent_p)
{
	char tmpl[128], mine[128], childs[128];
	snprintf(tmpl, sizeof(tmpl), "%s/t-%%p.json", dir);
	pid_t child;
	cr_assert_eq(fork_and_trace(tmpl, &child), 0, "the child said a trace note");
	cr_assert_eq(lsct_count(&cap, "note"), 0, "%s", cap.buf);
	snprintf(mine, sizeof(mine), "%s/t-%d.json", dir, (int)getpid());
	snprintf(childs, sizeof(childs), "%s/t-%d.json", dir, (int)child);
	cr_assert_eq(entries(dir), 2);
	assert_only_pid(mine, getpid(), "in parent", "in child");
	assert_only_pid(childs, child, "in child", "in parent");
}

/* The child's name is its pid alone, however short: a child that is pid 1
 * of a new pid namespace (as in a container) writes t-1.json, not the
 * parent's longer name with its tail left on. A loud skip where this
 * process may not make a pid namespace (no CAP_SYS_ADMIN, a seccomp
 * filter). */
Test(trace_file, a_child_with_a_shorter_pid_gets_exactly_its_own_name)
{
	if (getpid() < 10)
		cr_skip_test("this process is pid %d: no shorter pid to fork into", (int)getpid());
	/* This process's own pid namespace, to put its later children back in:
	 * a child made after the new namespace's pid 1 has exited cannot be
	 * made at all (LeakSanitizer's tracer at exit is one such child). */
	int own = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(own, 0, "/proc/self/ns/pid: %s", strerror(errno));
	if (unshare(CLONE_NEWPID) != 0) {
		int e = errno;
		close(own);
		cr_skip_test("SKIP: unshare(CLONE_NEWPID): %s; the pid-1 child is not tried", strerror(e));
	}
	char tmpl[128], mine[128], childs[128];
	snprintf(tmpl, sizeof(tmpl), "%s/t-%%p.json", dir);
	pid_t child;
	int said = fork_and_trace(tmpl, &child);
	cr_assert_eq(setns(own, CLONE_NEWPID), 0, "back to this process's pid namespace: %s", strerror(errno));
	close(own);
	cr_assert_eq(said, 0, "the child said a trace note");
	snprintf(mine, sizeof(mine), "%s/t-%d.json", dir, (int)getpid());
	snprintf(childs, sizeof(childs), "%s/t-1.json", dir);
	cr_assert_eq(entries(dir), 2);
	assert_only_pid(mine, getpid(), "in parent", "in child");
	cr_assert_eq(lsct_trace_read(childs, &tr, why, sizeof(why)), 0, "%s: %s", childs, why);
	cr_assert_not_null(lsct_trace_find(&tr, 'E', "in child", 0), "%s has no child span", childs);
}

Test(trace_file, a_forked_child_never_writes_its_parents_file)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/t.json", dir);
	pid_t child;
	cr_assert_eq(fork_and_trace(path, &child), 1, "the child did not say its one refusal");
	cr_assert_eq(entries(dir), 1);
	assert_only_pid(path, getpid(), "in parent", "in child");
}

/* The descriptor of this process open on @path's file (by device and
 * inode: a trace made unnamed and linked later has no name in /proc), or -1. */
static int fd_of(const char *path)
{
	struct stat want, st;
	if (stat(path, &want) != 0)
		return -1;
	DIR *d = opendir("/proc/self/fd");
	cr_assert_not_null(d);
	struct dirent *e;
	int fd = -1;
	while (fd < 0 && (e = readdir(d))) {
		int n = atoi(e->d_name);
		if (e->d_name[0] != '.' && n != dirfd(d) && fstat(n, &st) == 0 && st.st_dev == want.st_dev &&
		    st.st_ino == want.st_ino)
			fd = n;
	}
	closedir(d);
	return fd;
}

/* A forked child forgets its parent's trace descriptor for good: what the
 * child opens later under the same number (here dup2'd onto it, as the
 * kernel may hand it out) is the child's, and the child's profiler, when
 * it records and is destroyed, never closes it. */
Test(trace_file, a_forked_childs_profiler_never_closes_a_descriptor_of_the_child)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/t.json", dir);
	lsc_profiler *p = traced(path, &cap);
	cr_assert_not_null(p);
	cr_assert_eq(lsc_start_begin(p, "parent"), 0);
	int tfd = fd_of(path);
	cr_assert_geq(tfd, 0, "the trace %s is not open here", path);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null < 0 || dup2(null, tfd) != tfd)
			_exit(2);
		close(null);
		lsc_span s;
		lsc_span_begin(p, LSC_PHASE_READ, "in child", 1, &s);
		lsc_span_end(p, s, NULL);
		lsc_start_end(p);
		lsc_profiler_destroy(p);
		_exit(fcntl(tfd, F_GETFD) < 0 ? 3 : 0);
	}
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	lsc_start_end(p);
	lsc_profiler_destroy(p);
	cr_assert(WIFEXITED(st), "child status %#x", st);
	cr_assert_neq(WEXITSTATUS(st), 3, "the child's profiler closed the child's descriptor %d", tfd);
	cr_assert_eq(WEXITSTATUS(st), 0);
}

/*
 * The first write refused while the file is made: with RLIMIT_FSIZE at 0
 * the kernel refuses the trace's first line (EFBIG) and raises SIGXFSZ,
 * which used to kill the process inside it; the library holds it off its
 * write now (test_signals.c), so the child lives, says why in one note
 * naming the limit, and the file, still unnamed then, is never linked:
 * nothing is left, neither at the path nor under a temporary name.
 */
Test(trace_file, the_first_write_refused_while_the_file_is_made_leaves_nothing)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/t.json", dir);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		signal(SIGXFSZ, SIG_DFL);
		struct rlimit none = {0, 0};
		setrlimit(RLIMIT_CORE, &none);
		lsc_profiler *p = traced(path, &cap);
		if (!p || setrlimit(RLIMIT_FSIZE, &none) != 0)
			_exit(1);
		lsc_start_begin(p, "refused"); /* the first event opens the file */
		_exit(lsct_count_with(&cap, "note", "the file size limit (RLIMIT_FSIZE)") == 1 ? 3 : 4);
	}
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "child status %#x (SIGXFSZ is %d)", st, SIGXFSZ);
	cr_assert_eq(WEXITSTATUS(st), 3, "the child's note did not name the file size limit");
	cr_assert_eq(entries(dir), 0, "the refused start left a file in %s", dir);
}

/* A device node or a socket at the path is left alone and named for what
 * it is. The nodes are made here (mknod needs CAP_MKNOD: a loud skip
 * without it); nothing ever opens them. */
static void node_left_alone(mode_t type, dev_t dev, const char *what)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/node", dir);
	if (mknod(path, type | 0600, dev) != 0)
		cr_skip_test("cannot make a %s node here (%s): needs CAP_MKNOD", what, strerror(errno));
	run_with_trace(path);
	struct stat st;
	cr_assert_eq(lstat(path, &st), 0);
	cr_assert_eq(st.st_mode & S_IFMT, type, "the node was replaced (mode %o)", st.st_mode);
	cr_assert_eq(st.st_rdev, dev);
	assert_refused(path, what);
}

Test(trace_file, a_character_device_is_left_alone)
{
	node_left_alone(S_IFCHR, makedev(1, 3), "a character device, not a regular file");
}

Test(trace_file, a_block_device_is_left_alone)
{
	node_left_alone(S_IFBLK, makedev(7, 200), "a block device, not a regular file");
}

Test(trace_file, a_socket_is_left_alone)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", dir);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert_geq(s, 0);
	cr_assert_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0, "%s", strerror(errno));
	run_with_trace(sa.sun_path);
	close(s);
	struct stat st;
	cr_assert_eq(lstat(sa.sun_path, &st), 0);
	cr_assert(S_ISSOCK(st.st_mode), "the socket was replaced (mode %o)", st.st_mode);
	assert_refused(sa.sun_path, "a socket, not a regular file");
}

/* The trace of a process still running (its file locked) is its own: a
 * second process with the same path writes none and says how to get one
 * file each; the first's trace is whole afterwards. */
Test(trace_file, the_trace_of_another_live_process_is_left_alone)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/shared.json", dir);
	int ready[2], hold[2];
	cr_assert_eq(pipe(ready), 0);
	cr_assert_eq(pipe(hold), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(ready[0]);
		close(hold[1]); /* its own write end would keep the read below from ever ending */
		static struct lsct_capture cc;
		lsc_profiler *p = traced(path, &cc);
		char c = p ? 'y' : 'n';
		if (p && lsc_start_begin(p, "first") != 0)
			c = 'n';
		(void)!write(ready[1], &c, 1);
		(void)!read(hold[0], &c, 1);
		if (p)
			lsc_start_end(p);
		lsc_profiler_destroy(p);
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	char c = 0;
	cr_assert_eq(read(ready[0], &c, 1), 1);
	cr_assert_eq(c, 'y', "the first process could not open its trace");
	size_t before;
	slurp(path, &before);
	run_with_trace(path);
	size_t mid;
	slurp(path, &mid);
	close(hold[1]); /* the first process ends its start and its trace */
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	cr_assert_eq(mid, before, "the second process wrote into the first's trace");
	assert_refused(path,
		       "the trace of another live process (put %p in the path for one file per process)");
	cr_assert_eq(lsct_trace_read(path, &tr, why, sizeof(why)), 0, "%s", why);
}
