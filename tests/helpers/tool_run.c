/*
 * tool_run.h: the built program run from a test, in the foreground through
 * sh or in the background on a pipe. One home for what test_run, test_ab
 * and test_lab need, so that "the exit status" means the same in each.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/tool_run.h"

static char scratch[128];

void lsct_tool_required(void)
{
	if (!LSC_TEST_TOOL[0] || access(LSC_TEST_TOOL, X_OK))
		cr_skip_test("the loadscope program was not built (LOADSCOPE_BUILD_TOOLS=OFF)");
}

const char *lsct_scratch(const char *what)
{
	snprintf(scratch, sizeof(scratch), "/tmp/lsc-%s-XXXXXX", what);
	cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
	return scratch;
}

void lsct_scratch_remove(void)
{
	char cmd[200];
	if (!scratch[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	cr_assert_eq(system(cmd), 0);
	scratch[0] = 0;
}

const char *lsct_scratch_file(const char *name, const char *text, int mode)
{
	static char path[8][256];
	static int k;
	char *p = path[k++ % 8];
	snprintf(p, 256, "%s/%s", scratch, name);
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f, "%s: %s", p, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chmod(p, (mode_t)mode), 0);
	return p;
}

static int status_of(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}

static void slurp(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;
	if (f) {
		n = fread(buf, 1, cap - 1, f);
		fclose(f);
	}
	buf[n] = 0;
}

int lsct_tool(char *out, size_t out_cap, char *err, size_t err_cap, const char *fmt, ...)
{
	char args[4096], cmd[8192], errpath[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	/* One file per process: test programs run side by side (ctest -j)
	 * and without a scratch directory would share /tmp's. */
	snprintf(errpath, sizeof(errpath), "%s/.stderr.%ld", scratch[0] ? scratch : "/tmp", (long)getpid());
	snprintf(cmd, sizeof(cmd), "LOADSCOPE= '%s' %s 2>'%s'", LSC_TEST_TOOL, args, errpath);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	size_t n = fread(out, 1, out_cap - 1, p);
	out[n] = 0;
	while (fgetc(p) != EOF) /* what did not fit: read, so the program is not stopped by a full pipe */
		;
	int st = pclose(p);
	slurp(errpath, err, err_cap);
	unlink(errpath);
	return status_of(st);
}

int lsct_tool_spawn(struct lsct_child *c, const char *const *argv, const char *err_path)
{
	const char *full[64] = {LSC_TEST_TOOL};
	int fd[2];
	size_t n = 0;
	while (argv[n] && n < 62) {
		full[n + 1] = argv[n];
		n++;
	}
	full[n + 1] = NULL;
	if (pipe(fd))
		return -errno;
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* A test that fails an assertion ends its process at once: the
		 * child (a lab holding gigabytes) must not outlive it. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() == 1)
			_exit(127);
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		if (err_path) {
			int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (e >= 0)
				dup2(e, STDERR_FILENO);
		}
		unsetenv("LOADSCOPE");
		execv(LSC_TEST_TOOL, (char *const *)full);
		_exit(127);
	}
	close(fd[1]);
	c->pid = pid;
	c->out = fdopen(fd[0], "r");
	return c->out ? 0 : -errno;
}

static void append(char *log, size_t cap, const char *s)
{
	if (log && strlen(log) + strlen(s) < cap)
		strcat(log, s);
}

int lsct_child_wait_line(struct lsct_child *c, const char *needle, char *line, size_t cap, char *log,
			 size_t log_cap)
{
	while (fgets(line, (int)cap, c->out)) {
		append(log, log_cap, line);
		if (strstr(line, needle))
			return 1;
	}
	line[0] = 0;
	return 0;
}

int lsct_child_finish(struct lsct_child *c, char *log, size_t log_cap)
{
	char line[1024];
	int st;
	while (fgets(line, sizeof(line), c->out))
		append(log, log_cap, line);
	fclose(c->out);
	while (waitpid(c->pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status_of(st);
}
