/*
 * Description: the memory guard in a real memory cgroup (issue 22). The
 * test makes a cgroup of its own, a child of this process's memory cgroup
 * (or of the hierarchy's root where the own one cannot have children),
 * with a 512 MiB limit (memory.max on v2, memory.limit_in_bytes on v1),
 * moves a forked child into it and runs the built program there:
 * `loadscope load` of a 1 GiB file, `lab fragment --gib 1` and `pintest 1
 * --backend mlock` each print a refusal naming the cgroup's limit and exit
 * 1, never killed (they were: exit 137); on both sides of the guard's
 * reserve (128 MiB below a 512 MiB limit), a 368 MiB load loads there and
 * a 400 MiB one is refused; and with the guard turned
 * off the 1 GiB load is killed by the cgroup's OOM killer, which shows the
 * limit is real. No existing cgroup's settings are changed: only the
 * test's own cgroup is written, and it is removed in every path (before
 * any assertion; a crashed run's leftover, named after a dead pid, at the
 * next start). Where no memory cgroup can be made (no hierarchy, no
 * permission, v2 without the memory controller delegated), a loud skip.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/tool_run.h"

#define LIMIT 536870912ull /* 512 MiB */
#define PREFIX "loadscope-test-"

static char cg[1024];  /* the test's cgroup, "" when none */
static int cg_v1;
static char file1g[512], file368m[512], file400m[512];

static int read_text(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static int write_text(const char *dir, const char *file, const char *text)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The directory of this process's cgroup in the v2 hierarchy or in v1's
 * memory controller, from /proc/self/cgroup and /proc/self/mountinfo;
 * *@top gets the length of the mount point in it. */
static int own_dir(int v1, char *dir, size_t cap, size_t *top)
{
	static char text[1 << 16];
	char path[1024] = "";
	if (read_text("/proc/self/cgroup", text, sizeof text))
		return -1;
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		if (v1 ? (!strcmp(c1 + 1, "memory") || strstr(c1 + 1, "memory,") ||
			  strstr(c1 + 1, ",memory"))
		       : !strcmp(l, "0:"))
			snprintf(path, sizeof path, "%s", c2 + 1);
	}
	if (!path[0] || read_text("/proc/self/mountinfo", text, sizeof text))
		return -1;
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		char root[512], point[512], fs[64], opts[512];
		const char *dash = strstr(l, " - ");
		if (!dash || sscanf(l, "%*s %*s %*s %511s %511s", root, point) != 2 ||
		    sscanf(dash + 3, "%63s %*s %511s", fs, opts) != 2)
			continue;
		if (v1 ? strcmp(fs, "cgroup") || !strstr(opts, "memory") : strcmp(fs, "cgroup2"))
			continue;
		size_t rl = strcmp(root, "/") ? strlen(root) : 0;
		if (strncmp(path, root, rl))
			continue;
		*top = strlen(point);
		snprintf(dir, cap, "%s%s", point, strcmp(path + rl, "/") ? path + rl : "");
		return 0;
	}
	return -1;
}

/* Leftovers of a run that crashed before its cleanup: empty cgroups named
 * after a process that is gone. */
static void remove_stale(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, PREFIX, strlen(PREFIX)))
			continue;
		int pid = atoi(e->d_name + strlen(PREFIX));
		char path[1300];
		snprintf(path, sizeof path, "%s/%s", parent, e->d_name);
		if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH)
			rmdir(path);
	}
	closedir(d);
}

/* A child cgroup of @parent with the 512 MiB limit; 0, or -1 (nothing left). */
static int make_in(const char *parent, int v1)
{
	char path[1100], ctl[512];
	snprintf(path, sizeof path, "%s/cgroup.subtree_control", parent);
	if (!v1 && (read_text(path, ctl, sizeof ctl) || !strstr(ctl, "memory")))
		return -1; /* the memory controller is not given to children here */
	remove_stale(parent);
	if ((size_t)snprintf(cg, sizeof cg, "%.900s/" PREFIX "%d", parent, (int)getpid()) >= sizeof cg ||
	    mkdir(cg, 0755) != 0) {
		cg[0] = '\0';
		return -1;
	}
	char limit[32];
	snprintf(limit, sizeof limit, "%llu", LIMIT);
	if (write_text(cg, v1 ? "memory.limit_in_bytes" : "memory.max", limit) != 0) {
		rmdir(cg);
		cg[0] = '\0';
		return -1;
	}
	if (!v1)
		write_text(cg, "memory.swap.max", "0"); /* absent without swap accounting */
	cg_v1 = v1;
	return 0;
}

/* Remove the test's cgroup (its one process has been reaped by then). */
static void cg_remove(void)
{
	if (!cg[0])
		return;
	for (int i = 0; i < 100 && rmdir(cg) != 0 && errno == EBUSY; i++)
		usleep(10000); /* the kernel finishing with the child just reaped */
	cg[0] = '\0';
}

static void make_cgroup(void)
{
	char dir[1024];
	size_t top = 0;
	for (int v1 = 0; v1 <= 1; v1++) {
		if (own_dir(v1, dir, sizeof dir, &top))
			continue;
		/* the own cgroup, then its parents up to the hierarchy's root */
		for (;;) {
			if (make_in(dir, v1) == 0)
				return;
			char *slash = strrchr(dir, '/');
			if (strlen(dir) <= top || !slash)
				break;
			*slash = '\0';
		}
	}
	cr_skip_test("SKIP: no memory cgroup of the test's own can be made here (no v2 hierarchy "
		     "with the memory controller delegated, no v1 memory hierarchy, or no "
		     "permission to create one under /sys/fs/cgroup)");
}

static void sparse(char *path, size_t cap, const char *dir, const char *name, off_t size)
{
	snprintf(path, cap, "%s/%s", dir, name);
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(ftruncate(fd, size), 0);
	close(fd);
}

static void setup(void)
{
	lsct_tool_required();
	const char *dir = lsct_scratch("memcg");
	sparse(file1g, sizeof file1g, dir, "one-gib.bin", 1l << 30);
	sparse(file368m, sizeof file368m, dir, "368-mib.bin", 368l << 20);
	sparse(file400m, sizeof file400m, dir, "400-mib.bin", 400l << 20);
	make_cgroup();
}

static void teardown(void)
{
	cg_remove();
	lsct_scratch_remove();
}

TestSuite(mem_cgroup, .init = setup, .fini = teardown);

struct result {
	int exited, code, sig;
	char out[16384];
};

/* The program with @argv in the test's cgroup; stdout and stderr into
 * r->out. @env: one "K=V" to add, or NULL. */
static void run_in_cgroup(struct result *r, const char *const *argv, const char *env)
{
	const char *args[16] = {LSC_TEST_TOOL};
	for (int i = 0; argv[i] && i < 14; i++)
		args[i + 1] = argv[i];
	int fd[2];
	cr_assert_eq(pipe(fd), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		close(fd[0]);
		close(fd[1]);
		if (write_text(cg, "cgroup.procs", "0") != 0)
			_exit(98); /* writing 0 moves the writer itself */
		if (env)
			putenv((char *)env);
		execv(args[0], (char *const *)args);
		_exit(99);
	}
	close(fd[1]);
	size_t len = 0;
	for (ssize_t k; (k = read(fd[0], r->out + len, sizeof r->out - 1 - len)) > 0;)
		len += (size_t)k;
	r->out[len] = '\0';
	close(fd[0]);
	int st;
	pid_t w = waitpid(pid, &st, 0);
	r->exited = w == pid && WIFEXITED(st);
	r->code = r->exited ? WEXITSTATUS(st) : -1;
	r->sig = w == pid && WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

static const char *limit_name(void)
{
	return cg_v1 ? "cgroup v1 memory.limit_in_bytes" : "cgroup v2 memory.max";
}

/* A refusal: exit 1, not a signal, and the line naming the limit. */
static void assert_refused(const struct result *r, const char *what, const char *phrase)
{
	cr_assert(r->exited, "%s was killed by signal %d (9: the OOM killer):\n%s", what, r->sig,
		  r->out);
	cr_assert_neq(r->code, 98, "the child could not join the cgroup");
	cr_assert_eq(r->code, 1, "%s exited %d:\n%s", what, r->code, r->out);
	cr_assert(strstr(r->out, phrase), "%s: no \"%s\" in:\n%s", what, phrase, r->out);
	char want[256];
	snprintf(want, sizeof want, "is more than the room under the %s of cgroup ", limit_name());
	cr_assert(strstr(r->out, want), "%s: no \"%s\" in:\n%s", what, want, r->out);
}

static struct result r1, r2, r3;

Test(mem_cgroup, load_lab_and_pintest_are_refused_not_killed)
{
	const char *load[] = {"load", file1g, NULL};
	const char *lab[] = {"lab", "fragment", "--gib", "1", "--hold", "0", NULL};
	const char *pin[] = {"pintest", "1", "--backend", "mlock", NULL};
	run_in_cgroup(&r1, load, NULL);
	run_in_cgroup(&r2, lab, NULL);
	run_in_cgroup(&r3, pin, NULL);
	cg_remove();
	assert_refused(&r1, "load", "error allocate failed: arena of 1.00 GiB (1073741824 bytes)");
	assert_refused(&r2, "lab fragment", "loadscope lab: refusing: --gib of 1.00 GiB");
	assert_refused(&r3, "pintest", "pintest: refusing: allocation of 1.00 GiB");
}

/* The most the guard lets through is 512 MiB less what the cgroup holds
 * (about 1.4 MiB of the child's own) less 128 MiB: about 382 MiB. */
Test(mem_cgroup, both_sides_of_the_reserve)
{
	const char *fits[] = {"load", file368m, NULL};
	const char *over[] = {"load", file400m, NULL};
	run_in_cgroup(&r1, fits, NULL);
	run_in_cgroup(&r2, over, NULL);
	cg_remove();
	cr_assert(r1.exited && r1.code == 0, "368 MiB: exit %d, signal %d:\n%s", r1.code, r1.sig,
		  r1.out);
	cr_assert(strstr(r1.out, "] loaded 0.36 GiB"), "%s", r1.out);
	assert_refused(&r2, "load of 400 MiB", "error allocate failed: arena of 0.39 GiB (419430400 bytes)");
}

/* The limit is real: without the guard the cgroup's OOM killer ends the
 * same load (swap would let it through instead: then there is nothing to
 * show, and the part is skipped). */
Test(mem_cgroup, without_the_guard_the_cgroup_kills)
{
	char mi[8192];
	if (read_text("/proc/meminfo", mi, sizeof mi) == 0 && !strstr(mi, "SwapTotal:             0 kB"))
		cr_skip_test("SKIP: this machine has swap: a load over the limit may swap, not die");
	const char *load[] = {"load", file1g, NULL};
	run_in_cgroup(&r1, load, "LOADSCOPE_ARENA_MEM_CHECK=0");
	cg_remove();
	cr_assert(!r1.exited && r1.sig == SIGKILL, "exit %d, signal %d:\n%s", r1.code, r1.sig, r1.out);
}
