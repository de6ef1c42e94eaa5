/*
 * Description: the profiler inside someone else's process (issue 14). An
 * engine that loads models one after another on one profiler gets every
 * watchdog thread joined and its stack released; a fork() in any thread
 * returns while a line is stuck in a slow sink, and the child can go on
 * using the profiler under a run id of its own; hundreds of profilers hold
 * a bounded number of descriptors, so the host's own open() still works; a
 * span runs on a thread stack of the size profiler.h documents. No
 * assertion depends on how long anything took: threads meet on semaphores.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#include "helpers/capture.h"
#include "profiler/profiler_impl.h"

static struct lsct_capture cap;
static char store[LSC__LINE_MAX + 1];

static void setup(void)
{
	memset(&cap, 0, sizeof(cap));
}

TestSuite(profiler_host, .init = setup);

/* A field of /proc/self/status, in kB. */
static long status_kib(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	cr_assert_not_null(f);
	char line[256];
	long v = -1;
	size_t kl = strlen(key);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':')
			v = strtol(line + kl + 1, NULL, 10);
	fclose(f);
	cr_assert_geq(v, 0, "no %s in /proc/self/status", key);
	return v;
}

/* The entries of a directory; 0 when it cannot be opened (also usable in
 * a forked child, where a Criterion assertion cannot report). */
static unsigned count_dir(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return 0;
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static lsc_profiler *with_watchdog(void)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE;
	lsc_profiler *p = NULL;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	return p;
}

/*
 * Two starts on one profiler, then destroy, many times over. The second
 * start once marked the watchdog "being created" over "running", so destroy
 * never joined the thread: it read the freed profiler (ASan: use after
 * free in watchdog_main) and kept its stack mapped, 8 MiB a cycle. Joined,
 * each cycle's stack goes back to the C library's cache and the next thread
 * reuses it, so the address space stays put.
 */
Test(profiler_host, every_start_cycle_joins_its_watchdog)
{
	pthread_attr_t a;
	size_t stack = 0;
	cr_assert_eq(pthread_getattr_default_np(&a), 0);
	pthread_attr_getstacksize(&a, &stack);
	pthread_attr_destroy(&a);
	cr_assert_gt(stack, 0);

	long vm0 = status_kib("VmSize");
	enum { CYCLES = 40 };
	for (int i = 0; i < CYCLES; i++) {
		lsc_profiler *p = with_watchdog();
		cr_assert_eq(lsc_start_begin(p, "first"), 0);
		cr_assert_eq(lsc_start_end(p), 0);
		cr_assert_eq(lsc_start_begin(p, "second"), 0);
		cr_assert_eq(lsc_start_end(p), 0);
		lsc_profiler_destroy(p);
	}
	long grown = status_kib("VmSize") - vm0;
	/* Unjoined, 40 cycles keep 40 stacks; a few cached ones are allowed. */
	cr_assert_lt(grown, (long)(4 * stack / 1024), "VmSize grew by %ld kB over %d cycles (stack %zu kB)",
		     grown, CYCLES, stack / 1024);
	cr_assert_eq(lsct_count(&cap, "usage"), 0, "%s", cap.buf);
	cr_assert_eq(lsct_count(&cap, "ready"), 2 * CYCLES);
}

/* ---- fork while a line is stuck in the sink ----------------------------------- */

static sem_t in_sink, release_sink;
static pid_t blocking_pid;

/* Blocks on "stuck line" in the test's own process until released; every
 * other line (the child's) is captured. */
static void blocking_sink(void *user, const char *line, size_t len)
{
	if (getpid() == blocking_pid && strstr(line, "stuck line")) {
		sem_post(&in_sink);
		while (sem_wait(&release_sink) < 0 && errno == EINTR)
			;
		return;
	}
	lsct_sink(user, line, len);
}

static void *write_stuck_line(void *arg)
{
	lsc_note(arg, "test", "stuck line");
	return NULL;
}

/*
 * The atfork prepare handler once took every profiler's sink lock, so a
 * line stuck in a sink (a full pipe, a stopped reader, a slow callback)
 * stopped every fork() in the process. Here one thread is inside the sink
 * until released; another forks. The fork returns, and the child, which
 * starts with the sink free, prints and measures a span, ends the start and
 * destroys the profiler. The parent releases the sink only after the child
 * is done, so nothing in the child can have waited for it.
 */
Test(profiler_host, fork_returns_while_a_sink_blocks)
{
	cr_assert_eq(sem_init(&in_sink, 0, 0), 0);
	cr_assert_eq(sem_init(&release_sink, 0, 0), 0);
	blocking_pid = getpid();
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = blocking_sink;
	o.sink_user = &cap;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE;
	lsc_profiler *p;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	cr_assert_eq(lsc_start_begin(p, "parent"), 0); /* the watchdog runs too */
	unsigned parent_lines = cap.lines;

	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, write_stuck_line, p), 0);
	while (sem_wait(&in_sink) < 0 && errno == EINTR)
		;
	alarm(60); /* a fork that hangs fails the test instead of the suite */
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		alarm(20);
		lsc_span s;
		struct lsc_span_result r;
		int ok = lsc_span_begin(p, LSC_PHASE_READ, NULL, 0, &s) == 0 && s &&
			 lsc_span_end(p, s, &r) == 0 && r.rss_kib > 0;
		ok = ok && lsc_start_end(p) == 0;
		lsc_profiler_destroy(p);
		/* the child's phase and ready lines reached the sink */
		ok = ok && cap.lines == parent_lines + 2 && lsct_count(&cap, "phase") == 1 &&
		     lsct_count(&cap, "ready") == 1;
		_exit(ok ? 0 : 1);
	}
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	alarm(0);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	sem_post(&release_sink);
	cr_assert_eq(pthread_join(t, NULL), 0);
	cr_assert_eq(lsc_start_end(p), 0);
	lsc_profiler_destroy(p);
	cr_assert_eq(lsct_count(&cap, "ready"), 1);
	sem_destroy(&in_sink);
	sem_destroy(&release_sink);
}

/* A line that waits for its turn while another is stuck in the sink
 * waits on the turn's condition variable; a fork then gives the child a
 * condition variable with a waiter it does not have. The child's own
 * lines take and give the turn (a broadcast over that variable) and must
 * not wait for the phantom: it starts with a fresh one. */
static pid_t waiter_tid;

static void *write_waiting_line(void *arg)
{
	__atomic_store_n(&waiter_tid, gettid(), __ATOMIC_SEQ_CST);
	lsc_note(arg, "test", "waiting line");
	return NULL;
}

/* Whether thread @tid of this process is asleep (state S in its stat). */
static int asleep(pid_t tid)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && rp[2] == 'S';
}

/* Fork while another thread holds some part of @p's sink; the child writes
 * @lines notes and must find exactly them in the capture, under an alarm
 * rather than waiting forever on what it inherited. The child's wait
 * status, once it ended. */
static int fork_and_write(lsc_profiler *p, int lines)
{
	unsigned before = cap.lines;
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		alarm(20);
		for (int i = 0; i < lines; i++)
			lsc_note(p, "test", i ? "a child's later line" : "a child's line");
		lsc_profiler_destroy(p);
		int mine = lsct_count_with(&cap, "note", "a child's line") == 1 &&
			   lsct_count_with(&cap, "note", "a child's later line") == (unsigned)lines - 1;
		_exit(cap.lines == before + (unsigned)lines && mine ? 0 : 1);
	}
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return st;
}

Test(profiler_host, fork_while_a_line_waits_for_its_turn)
{
	cr_assert_eq(sem_init(&in_sink, 0, 0), 0);
	cr_assert_eq(sem_init(&release_sink, 0, 0), 0);
	blocking_pid = getpid();
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = blocking_sink;
	o.sink_user = &cap;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE;
	lsc_profiler *p;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	pthread_t stuck, waiting;
	cr_assert_eq(pthread_create(&stuck, NULL, write_stuck_line, p), 0);
	while (sem_wait(&in_sink) < 0 && errno == EINTR)
		;
	cr_assert_eq(pthread_create(&waiting, NULL, write_waiting_line, p), 0);
	/* the sink is taken and its lock free, so the waiting line sleeps only
	 * in the condition variable's wait */
	pid_t tid;
	while (!(tid = __atomic_load_n(&waiter_tid, __ATOMIC_SEQ_CST)) || !asleep(tid))
		usleep(1000);
	int st = fork_and_write(p, 2);
	sem_post(&release_sink);
	cr_assert_eq(pthread_join(stuck, NULL), 0);
	cr_assert_eq(pthread_join(waiting, NULL), 0);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x (a signal: it waited)", st);
	cr_assert_eq(lsct_count_with(&cap, "note", "waiting line"), 1, "%s", cap.buf);
	lsc_profiler_destroy(p);
	sem_destroy(&in_sink);
	sem_destroy(&release_sink);
}

/* The mutex behind the sink's turn is held only for a moment, but a fork
 * can fall in that moment: the child inherits it locked by a thread it
 * does not have, and must start with a fresh one. Here a thread holds it
 * (as it does while taking or giving its turn) across the fork; the child
 * writes a line and ends, under an alarm rather than waiting forever. */
static sem_t lock_held, lock_release;

static void *hold_sink_lock(void *arg)
{
	lsc_profiler *p = arg;
	pthread_mutex_lock(&p->sink_lock);
	sem_post(&lock_held);
	while (sem_wait(&lock_release) < 0 && errno == EINTR)
		;
	pthread_mutex_unlock(&p->sink_lock);
	return NULL;
}

Test(profiler_host, fork_while_the_sinks_lock_is_held)
{
	cr_assert_eq(sem_init(&lock_held, 0, 0), 0);
	cr_assert_eq(sem_init(&lock_release, 0, 0), 0);
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, hold_sink_lock, p), 0);
	while (sem_wait(&lock_held) < 0 && errno == EINTR)
		;
	int st = fork_and_write(p, 1);
	sem_post(&lock_release);
	cr_assert_eq(pthread_join(t, NULL), 0);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x (a signal: it waited on the lock)", st);
	lsc_profiler_destroy(p);
	sem_destroy(&lock_held);
	sem_destroy(&lock_release);
}

/* The triage groups lines by run id: a forked child that kept its parent's
 * would have its lines merged into the parent's start. */
Test(profiler_host, forked_child_has_its_own_run_id)
{
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
	cr_assert_not_null(p);
	cr_assert_eq(lsc_note(p, "who", "parent"), 0);
	int pfd[2];
	cr_assert_eq(pipe(pfd), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		alarm(20);
		close(pfd[0]);
		lsc_note(p, "who", "child");
		lsc_profiler_destroy(p);
		struct lsc__parsed c;
		if (!lsct_find(&cap, "note", 1, store, sizeof store, &c))
			_exit(1);
		const char *run = lsc__parsed_get(&c, "run");
		if (!run || write(pfd[1], run, strlen(run)) != (ssize_t)strlen(run))
			_exit(2);
		_exit(0);
	}
	close(pfd[1]);
	char child_run[32] = "";
	ssize_t n = read(pfd[0], child_run, sizeof(child_run) - 1);
	close(pfd[0]);
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	cr_assert_eq(n, 8, "child's run id: '%s'", child_run);
	lsc_note(p, "who", "parent again");
	lsc_profiler_destroy(p);
	struct lsc__parsed a, b;
	cr_assert(lsct_find(&cap, "note", 0, store, sizeof store, &a));
	char parent_run[16];
	snprintf(parent_run, sizeof(parent_run), "%s", lsc__parsed_get(&a, "run"));
	cr_assert_eq(strlen(parent_run), 8);
	cr_assert_str_neq(child_run, parent_run);
	/* the parent keeps its own */
	cr_assert(lsct_find(&cap, "note", 1, store, sizeof store, &b));
	cr_assert_str_eq(lsc__parsed_get(&b, "run"), parent_run);
}

/* ---- descriptors -------------------------------------------------------------- */

/* Whether @fd is open in this process, per fd. */
static int fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/*
 * The kept /proc descriptors are the process that opened them's ("self"
 * names it): a forked child never reads them, it opens by path. A child
 * that kept them held them for nothing, and its destroy closed those
 * numbers, which by then a child that closes what it inherited (as a
 * daemon does) has handed to files of its own. The child must hold none
 * of them from the fork on, and its destroy must leave its own descriptors
 * under those numbers alone.
 */
Test(profiler_host, forked_child_drops_the_parents_proc_descriptors)
{
	unsigned char before[1024] = {0};
	for (int fd = 0; fd < 1024; fd++)
		before[fd] = (unsigned char)fd_open(fd);
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
	cr_assert_not_null(p);
	int kept[8], n = 0;
	for (int fd = 0; fd < 1024 && n < 8; fd++)
		if (!before[fd] && fd_open(fd))
			kept[n++] = fd;
	if (access("/proc/vmstat", R_OK) != 0)
		cr_skip("no /proc/vmstat here: the profiler keeps no descriptor to test");
	cr_assert_geq(n, 1, "the profiler kept no /proc descriptor open");
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		alarm(20);
		int held = 0;
		for (int i = 0; i < n; i++)
			held += fd_open(kept[i]);
		/* the child's own files under those numbers */
		for (int i = 0; i < n; i++)
			if (!fd_open(kept[i])) {
				int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
				if (fd != kept[i] && (fd < 0 || dup2(fd, kept[i]) < 0))
					_exit(3);
				if (fd != kept[i])
					close(fd);
			}
		lsc_profiler_destroy(p);
		int lost = 0;
		for (int i = 0; i < n; i++)
			lost += !fd_open(kept[i]);
		_exit(held ? 1 : lost ? 2 : 0);
	}
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "child status %#x", st);
	cr_assert_neq(WEXITSTATUS(st), 1, "the child still holds the parent's /proc descriptors");
	cr_assert_neq(WEXITSTATUS(st), 2, "the child's destroy closed descriptors that were its own");
	cr_assert_eq(WEXITSTATUS(st), 0, "child status %#x", st);
	/* the parent's are still its own */
	for (int i = 0; i < n; i++)
		cr_assert(fd_open(kept[i]), "descriptor %d closed in the parent", kept[i]);
	lsc_profiler_destroy(p);
	for (int i = 0; i < n; i++)
		cr_assert(!fd_open(kept[i]), "descriptor %d still open after destroy", kept[i]);
}


/*
 * 600 profilers under a descriptor limit 64 above what the process has
 * open. Each once kept /proc/vmstat and /proc/self/status open for its
 * whole life: the table filled at the 33rd and the host's own next open()
 * failed. They share one set now (same proc root, same process): two
 * descriptors, and a third for /proc/pressure/memory where the kernel has
 * PSI, whatever the number, and all of them released at the end.
 * In a child, so that the limit stays there.
 */
Test(profiler_host, many_profilers_hold_two_descriptors)
{
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		alarm(20);
		enum { N = 600 };
		static lsc_profiler *ps[N];
		unsigned fds0 = count_dir("/proc/self/fd");
		if (!fds0)
			_exit(13);
		int pfd = open("/proc/pressure/memory", O_RDONLY | O_CLOEXEC);
		unsigned want = 2 + (pfd >= 0);
		if (pfd >= 0)
			close(pfd);
		struct rlimit rl;
		if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
			_exit(10);
		rl.rlim_cur = fds0 + 64;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			_exit(11);
		for (int i = 0; i < N; i++) {
			struct lsc_profiler_options o;
			lsc_profiler_options_init(&o);
			o.sink = lsct_sink;
			o.sink_user = &cap;
			o.mode = LSC_MODE_ON;
			o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
			if (lsc_profiler_create(&o, &ps[i]) != 0)
				_exit(12);
		}
		unsigned held = count_dir("/proc/self/fd") - fds0;
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			_exit(2);
		close(fd);
		/* the last profiler measures through the shared pair */
		lsc_span s;
		struct lsc_span_result r;
		if (lsc_span_begin(ps[N - 1], LSC_PHASE_READ, NULL, 0, &s) || lsc_span_end(ps[N - 1], s, &r) ||
		    r.rss_kib <= 0 || r.vm_valid != (1u << LSC_VM_COUNT) - 1u)
			_exit(3);
		for (int i = 0; i < N; i++)
			lsc_profiler_destroy(ps[i]);
		if (held != want)
			_exit(1);
		_exit(count_dir("/proc/self/fd") == fds0 ? 0 : 4);
	}
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "child status %#x", st);
	/* 1: not 2 (3 with PSI) held; 2: the host's open() failed; 3: a span could not
	 * read /proc; 4: descriptors left after destroy. */
	cr_assert_eq(WEXITSTATUS(st), 0, "child exit %d", WEXITSTATUS(st));
}

/* ---- stack ---------------------------------------------------------------------- */

static lsc_profiler *stack_p;

static void *profile_on_a_small_stack(void *arg)
{
	(void)arg;
	lsc_span s;
	lsc_start_begin(stack_p, "small stack");
	lsc_span_begin(stack_p, LSC_PHASE_READ, NULL, 4096, &s);
	lsc_note(stack_p, "stack", "inside a span");
	lsc_phase_record(stack_p, LSC_PHASE_COPY, NULL, 4096, 1000);
	lsc_span_end(stack_p, s, NULL);
	lsc_start_end(stack_p);
	return NULL;
}

/*
 * profiler.h says a thread that calls the profiler needs 64 KiB of stack
 * (a span uses about 30 KiB: two 16 KiB /proc buffers, one at a time, and
 * a line's record and text). Run every kind of call on a 64 KiB stack
 * painted with a pattern, over a guard page: an overflow faults on the
 * guard, and the paint left untouched shows what was used. Sanitizers
 * pad every frame, so there the stack is four times larger.
 */
Test(profiler_host, a_span_runs_on_the_documented_stack)
{
	size_t stack = 64 * 1024;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	stack *= 4;
#endif
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *m = mmap(NULL, stack + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(m, MAP_FAILED);
	cr_assert_eq(mprotect(m, page, PROT_NONE), 0); /* the guard, below the stack */
	memset(m + page, 0xa5, stack);
	stack_p = lsct_profiler_fmt(&cap, LSC_FORMAT_HUMAN, 0);
	cr_assert_not_null(stack_p);
	pthread_attr_t a;
	pthread_attr_init(&a);
	cr_assert_eq(pthread_attr_setstack(&a, m + page, stack), 0);
	pthread_t t;
	cr_assert_eq(pthread_create(&t, &a, profile_on_a_small_stack, NULL), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
	pthread_attr_destroy(&a);
	lsc_profiler_destroy(stack_p);
	size_t untouched = 0;
	while (untouched < stack && m[page + untouched] == 0xa5)
		untouched++;
	cr_log_info("stack used: %zu of %zu bytes (the thread's descriptor and TLS included)",
		    stack - untouched, stack);
	munmap(m, stack + page);
	cr_assert_eq(lsct_count(&cap, "phase"), 2, "%s", cap.buf);
	cr_assert_eq(lsct_count(&cap, "ready"), 1);
	cr_assert_gt(untouched, 0, "the whole stack was used");
}
