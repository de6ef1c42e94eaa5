/*
 * One process of `loadscope ab`: a timed run of CMD or the --prepare
 * command, with its arm's THP control and environment, its output in the
 * run's log, and what it cost as the kernel counts it (wait4's rusage:
 * user and system CPU time, peak RSS), so that any command is compared by
 * what ab measured itself, whatever it prints.
 *
 * A run is its own process group, so a run past --timeout is ended whole
 * (SIGTERM, then SIGKILL after a grace period): a hung start is counted
 * as a timeout, never dropped, since dropping the slow starts is how an
 * A/B lies. SIGCHLD, SIGINT and SIGTERM are blocked by the caller and taken
 * here with sigtimedwait, so that a signal to ab cannot land between a
 * check and a wait; SIGINT or SIGTERM ends the running run's group too.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ab.h"
#include "tool.h"

#define GRACE_S 5.0 /* SIGTERM to SIGKILL for a run past --timeout */

double ab_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* In the child: the arm's settings, the log as stdout and stderr, exec. */
static void child(const struct ab_arm *a, int log, char **cmd, const char *shell, const sigset_t *old)
{
	char why[320];

	setpgid(0, 0);
	sigprocmask(SIG_SETMASK, old, NULL); /* a blocked mask survives exec */
	int in = open("/dev/null", O_RDONLY);
	if (in >= 0 && in != STDIN_FILENO) {
		dup2(in, STDIN_FILENO);
		close(in);
	}
	dup2(log, STDOUT_FILENO);
	dup2(log, STDERR_FILENO);
	if (log > STDERR_FILENO)
		close(log);
	/* --prepare gets the arm's environment, not its THP control: it
	 * prepares the machine, it is not the start being measured */
	if (!shell && lsc_thp_ctl_set(a->thp, why, sizeof(why)) < 0) {
		fprintf(stderr, "loadscope ab: %s\n", why);
		_exit(LSC_EXIT_PROBLEM);
	}
	for (unsigned i = 0; i < a->nenv; i++) {
		char name[256];
		size_t n = strcspn(a->env[i], "=");
		snprintf(name, sizeof(name), "%.*s", (int)n, a->env[i]);
		setenv(name, a->env[i] + n + 1, 1);
	}
	if (shell) {
		fprintf(stderr, "loadscope ab: arm %s: prepare: %s\n", a->name, shell);
		execl("/bin/sh", "sh", "-c", shell, (char *)NULL);
	} else {
		fprintf(stderr, "loadscope ab: arm %s: %s; exec %s\n", a->name, lsc_thp_ctl_now(), cmd[0]);
		execvp(cmd[0], cmd);
	}
	int err = errno;
	fprintf(stderr, "loadscope ab: %s: %s\n", shell ? "/bin/sh" : cmd[0], strerror(err));
	_exit(err == ENOENT ? LSC_EXIT_NOTFOUND : LSC_EXIT_NOEXEC);
}

static void sigs(sigset_t *set, int chld)
{
	sigemptyset(set);
	if (chld)
		sigaddset(set, SIGCHLD);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
}

/* @left seconds as a timespec for sigtimedwait, an hour at most. */
static struct timespec span(double left)
{
	struct timespec ts = {.tv_sec = 3600};
	if (isfinite(left) && left < 3600) {
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
	}
	return ts;
}

/*
 * Wait for @pid until @deadline (monotonic seconds; INFINITY none).
 * Return 1 reaped (*@status, *@ru), 0 deadline passed, -1 ab was told to stop.
 */
static int wait_until(pid_t pid, double deadline, int *status, struct rusage *ru)
{
	sigset_t set;
	sigs(&set, 1);
	for (;;) {
		pid_t w = wait4(pid, status, WNOHANG, ru);
		if (w == pid)
			return 1;
		if (w < 0 && errno != EINTR)
			return 1; /* not ours any more: nothing to wait for */
		double left = deadline - ab_now();
		if (left <= 0)
			return 0;
		struct timespec ts = span(left);
		int sig = sigtimedwait(&set, NULL, &ts);
		if (sig == SIGINT || sig == SIGTERM)
			return -1;
	}
}

int ab_pause(double s)
{
	sigset_t set;
	sigs(&set, 0);
	for (double end = ab_now() + s, left = s; left > 0; left = end - ab_now()) {
		struct timespec ts = span(left);
		int sig = sigtimedwait(&set, NULL, &ts);
		if (sig == SIGINT || sig == SIGTERM)
			return -1;
	}
	return 0;
}

/* End the run's process group: SIGTERM, a grace period, SIGKILL; reap. */
static void end_group(pid_t pid, int *status, struct rusage *ru)
{
	kill(-pid, SIGTERM);
	if (wait_until(pid, ab_now() + GRACE_S, status, ru) != 1) {
		kill(-pid, SIGKILL);
		while (wait4(pid, status, 0, ru) < 0 && errno == EINTR)
			;
	}
	kill(-pid, SIGKILL); /* whatever of the group outlived its leader */
}

int ab_exec(const struct ab_arm *a, char **cmd, const char *shell, int log, double timeout, const sigset_t *old,
	    struct ab_run *r)
{
	struct rusage ru;
	memset(&ru, 0, sizeof(ru));
	fflush(NULL); /* nothing buffered may be written twice by a child */
	double t0 = ab_now();
	pid_t pid = fork();
	if (pid == 0)
		child(a, log, cmd, shell, old);
	if (pid < 0) {
		fprintf(stderr, "loadscope ab: fork: %s\n", strerror(errno));
		return -1;
	}
	setpgid(pid, pid); /* as the child does: whichever runs first */
	int w = wait_until(pid, t0 + timeout, &r->status, &ru);
	if (w == 0)
		r->timed_out = 1;
	else if (w < 0)
		r->interrupted = 1;
	if (w != 1)
		end_group(pid, &r->status, &ru);
	r->wall_s = ab_now() - t0;
	r->user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	r->sys_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	r->max_rss_kib = ru.ru_maxrss;
	return 0;
}

int ab_check_thp(const struct ab_arm *a)
{
	char why[320];
	int st;

	if (a->thp == LSC_THP_CTL_INHERIT)
		return 0;
	/* a child tries it, so that ab itself keeps its own control */
	pid_t pid = fork();
	if (pid == 0)
		_exit(lsc_thp_ctl_set(a->thp, why, sizeof(why)) < 0 ? 1 : 0);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 0; /* cannot tell here: each run's child says so in its log */
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	/* The same refusal here, for its words: a refused prctl changes nothing. */
	if (lsc_thp_ctl_set(a->thp, why, sizeof(why)) == 0)
		snprintf(why, sizeof(why), "--thp %s: refused in a child, not here", lsc_thp_ctl_name(a->thp));
	fprintf(stderr, "loadscope ab: arm %s: %s\n", a->name, why);
	return -1;
}

int ab_run_ok(const struct ab_run *r)
{
	return !r->timed_out && !r->interrupted && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}

void ab_exit_words(const struct ab_run *r, char *out, size_t cap)
{
	if (r->timed_out)
		snprintf(out, cap, "timeout (killed after %.1f s)", r->wall_s);
	else if (r->interrupted)
		snprintf(out, cap, "interrupted");
	else if (WIFEXITED(r->status))
		snprintf(out, cap, "%d", WEXITSTATUS(r->status));
	else if (WIFSIGNALED(r->status))
		snprintf(out, cap, "signal %d (%s)", WTERMSIG(r->status), strsignal(WTERMSIG(r->status)));
	else
		snprintf(out, cap, "unknown");
}
