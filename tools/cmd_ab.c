/*
 * `loadscope ab --runs N --arm NAME=SPEC ... -- CMD [ARGS...]`: seed 000's
 * experiment as one command. Its author started the server 4 times per
 * arm, interleaved, and built the median table by hand; here CMD runs N
 * times per arm in rounds (round r starts with arm r mod k: A B, B A, A B,
 * ... for two arms, so that neither arm always runs first after the other),
 * each run with its arm's THP control and environment (SPEC as in `run`:
 * `thp=off,env=K=V`), its output kept in a file of its own, a progress line
 * as each run ends, and at the end the triage's A/B table and each arm's
 * findings. The triage reads the logs as `triage` would (tools/triage/),
 * so any command that prints this project's lines or an engine's the
 * triage knows works.
 *
 * A run is its own process group, so a run past --timeout is ended whole
 * (SIGTERM, then SIGKILL after a grace period): a hung start is counted
 * as a timeout, never dropped, since dropping the slow starts is how an
 * A/B lies. SIGINT or SIGTERM to ab ends the running run's group as well
 * and reports what finished.
 *
 * Exit status: 0 every run exited 0 in time; 1 a run failed, was killed or
 * timed out, or the kernel refused an arm's THP control; 3 no run printed a
 * line the triage recognised; 4 a log could not be written or read, or
 * stdout; 64 usage (docs/cli.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "thp_ctl.h"
#include "tool.h"
#include "triage/triage.h"

const char lsc_cmd_ab_help[] = "interleaved A/B starts of a command, with the triage's table";

#define ARMS_MAX 8
#define ENV_MAX 16
#define NAME_MAX_LEN 23 /* the triage keeps an arm name to 23 bytes */
#define GRACE_S 5.0     /* SIGTERM to SIGKILL for a run past --timeout */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: loadscope ab --runs N --arm NAME=SPEC --arm NAME=SPEC ... [--format text|md|json]\n"
		"                    [--timeout S] [--out DIR] -- CMD [ARGS...]\n"
		"Runs CMD N times per arm, interleaved in rounds (round r starts with arm r mod the\n"
		"number of arms: A B, B A, A B, ...), each run with its arm's settings, and ends\n"
		"with the triage's A/B table over the runs and each arm's findings.\n"
		"  --runs N         runs per arm, 1 to 1000\n"
		"  --arm NAME=SPEC  an arm (2 to 8): NAME of letters, digits, '.', '_', '-' (at most\n"
		"                   23); SPEC items joined by ',': thp=off|except-advised|default\n"
		"                   (the modes of 'loadscope run') and env=K=V (repeatable; no ',' in V)\n"
		"  --format F       the final report: text (default), md or json\n"
		"  --timeout S      a run still going after S seconds (above 0, at most 604800) is\n"
		"                   killed, its process group whole, and counted as a timeout\n"
		"  --out DIR        where each run's output is kept (DIR/NNN-ARM.log; made if\n"
		"                   missing); default a new ./loadscope-ab-XXXXXX\n"
		"A progress line per finished run goes to stderr: arm, time to ready as the triage\n"
		"reads it, exit status, log file.\n"
		"  -h, --help     this text      -V, --version  version and backends\n"
		"exit: 0 every run exited 0 in time, 1 a run failed or timed out or a THP control\n"
		"was refused, 3 no run printed a line the triage knows, 4 a log or stdout could\n"
		"not be written or read, 64 usage error (docs/cli.md)\n");
}

enum { OPT_RUNS = 256, OPT_ARM, OPT_FORMAT, OPT_TIMEOUT, OPT_OUT };

static const struct option longopts[] = {
	{"runs", required_argument, NULL, OPT_RUNS},
	{"arm", required_argument, NULL, OPT_ARM},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"timeout", required_argument, NULL, OPT_TIMEOUT},
	{"out", required_argument, NULL, OPT_OUT},
	LSC_CLI_COMMON_OPTS,
};

struct arm {
	char name[NAME_MAX_LEN + 1];
	char spec[512];       /* as given, for the report */
	enum lsc_thp_ctl thp;
	char env[ENV_MAX][256];
	unsigned nenv;
	unsigned runs, ok, failed, timeouts;
	struct lsc_triage *t; /* this arm's runs: its findings */
};

struct run {
	unsigned arm;
	char log[512];
	int status;   /* waitpid's */
	int timed_out;
	int interrupted;
	double wall_s, ready_s;
};

enum fmt { FMT_TEXT, FMT_MD, FMT_JSON };

/* ---- the command line ------------------------------------------------------- */

static int name_ok(const char *s, size_t n)
{
	if (!n || n > NAME_MAX_LEN)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", s[i]))
			return 0;
	return 1;
}

/* NAME=SPEC into @a; 0, or the usage error's code after printing it. */
static int parse_arm(const char *arg, struct arm *a)
{
	const char *eq = strchr(arg, '=');
	char buf[512];

	memset(a, 0, sizeof(*a));
	a->thp = LSC_THP_CTL_INHERIT;
	if (!eq || !name_ok(arg, (size_t)(eq - arg)))
		return lsc_cli_usage("--arm %s: not NAME=SPEC with a NAME of at most %d letters, digits, "
				     "'.', '_' or '-'", arg, NAME_MAX_LEN);
	memcpy(a->name, arg, (size_t)(eq - arg));
	if (strlen(eq + 1) >= sizeof(buf))
		return lsc_cli_usage("--arm %s: SPEC too long", arg);
	snprintf(a->spec, sizeof(a->spec), "%s", eq + 1);
	snprintf(buf, sizeof(buf), "%s", eq + 1);
	char *save = NULL;
	for (char *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
		if (!strncmp(it, "thp=", 4)) {
			if (lsc_thp_ctl_parse(it + 4, &a->thp))
				return lsc_cli_usage("--arm %s: %s: thp=off, thp=except-advised or thp=default", arg, it);
		} else if (!strncmp(it, "env=", 4)) {
			const char *kv = it + 4;
			if (!kv[0] || kv[0] == '=' || !strchr(kv, '='))
				return lsc_cli_usage("--arm %s: %s: not env=NAME=VALUE", arg, it);
			if (a->nenv == ENV_MAX || strlen(kv) >= sizeof(a->env[0]))
				return lsc_cli_usage("--arm %s: %s: more than %d env= or too long", arg, it, ENV_MAX);
			snprintf(a->env[a->nenv++], sizeof(a->env[0]), "%s", kv);
		} else {
			return lsc_cli_usage("--arm %s: %s: not thp=MODE or env=K=V", arg, it);
		}
	}
	return 0;
}

/* ---- one run ---------------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* In the child: the arm's settings, the log as stdout and stderr, exec. */
static void child(const struct arm *a, int log, char **cmd, const sigset_t *old)
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
	if (lsc_thp_ctl_set(a->thp, why, sizeof(why)) < 0) {
		fprintf(stderr, "loadscope ab: %s\n", why);
		_exit(LSC_EXIT_PROBLEM);
	}
	for (unsigned i = 0; i < a->nenv; i++) {
		char name[256];
		size_t n = strcspn(a->env[i], "=");
		snprintf(name, sizeof(name), "%.*s", (int)n, a->env[i]);
		setenv(name, a->env[i] + n + 1, 1);
	}
	fprintf(stderr, "loadscope ab: arm %s: %s; exec %s\n", a->name, lsc_thp_ctl_now(), cmd[0]);
	execvp(cmd[0], cmd);
	int err = errno;
	fprintf(stderr, "loadscope ab: %s: %s\n", cmd[0], strerror(err));
	_exit(err == ENOENT ? LSC_EXIT_NOTFOUND : LSC_EXIT_NOEXEC);
}

/*
 * Wait for @pid until @deadline (monotonic seconds; INFINITY none). SIGCHLD,
 * SIGINT and SIGTERM are blocked: they are taken here with sigtimedwait,
 * so a signal to ab cannot land between the check and the wait.
 * Return 1 reaped (*@status), 0 deadline passed, -1 ab was told to stop.
 */
static int wait_until(pid_t pid, double deadline, int *status)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	for (;;) {
		pid_t w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return 1;
		if (w < 0 && errno != EINTR)
			return 1; /* not ours any more: nothing to wait for */
		double left = deadline - now_s();
		if (left <= 0)
			return 0;
		struct timespec ts = {.tv_sec = 3600};
		if (isfinite(left) && left < 3600) {
			ts.tv_sec = (time_t)left;
			ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		}
		int sig = sigtimedwait(&set, NULL, &ts);
		if (sig == SIGINT || sig == SIGTERM)
			return -1;
	}
}

/* End the run's process group: SIGTERM, a grace period, SIGKILL; reap. */
static void end_group(pid_t pid, int *status)
{
	kill(-pid, SIGTERM);
	if (wait_until(pid, now_s() + GRACE_S, status) != 1) {
		kill(-pid, SIGKILL);
		waitpid(pid, status, 0);
	}
	kill(-pid, SIGKILL); /* whatever of the group outlived its leader */
}

/* Feed @path to every triage in @t (NULL entries skipped); 0 or -errno. */
static int feed_log(const char *path, const char *arm, struct lsc_triage **t, int nt)
{
	static char buf[1 << 16];
	FILE *f = fopen(path, "rb");
	if (!f)
		return -errno;
	for (int i = 0; i < nt; i++) {
		lsc_triage_source(t[i], path);
		lsc_triage_arm(t[i], arm);
	}
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		for (int i = 0; i < nt; i++)
			lsc_triage_feed(t[i], buf, n);
	int err = ferror(f) ? EIO : 0;
	fclose(f);
	return -err;
}

/* The run's time to ready: the last start of its log that has one. */
static double ready_of(struct lsc_triage *t)
{
	struct lsc_triage_start_info si;
	double r = NAN;
	for (size_t i = 0; lsc_triage_start(t, i, &si) == 0; i++)
		if (!isnan(si.ready_s))
			r = si.ready_s;
	return r;
}

static void exit_words(const struct run *r, char *out, size_t cap)
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

static int run_ok(const struct run *r)
{
	return !r->timed_out && !r->interrupted && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}

/* ---- the report --------------------------------------------------------------- */

static void json_num(FILE *o, double v)
{
	if (isnan(v))
		fputs("null", o);
	else
		fprintf(o, "%.6g", v);
}

static int report(FILE *o, enum fmt f, const char *dir, struct arm *arms, unsigned narms,
		  const struct run *runs, unsigned nruns, unsigned total, struct lsc_triage *all)
{
	char ex[96];
	int bad = 0;

	if (f == FMT_JSON) {
		fputs("{\"schema\":\"loadscope-ab\",\"version\":1,\"dir\":", o);
		lsc_triage_json_str(o, dir);
		fprintf(o, ",\"runs_planned\":%u,\"runs\":[", total);
		for (unsigned i = 0; i < nruns; i++) {
			const struct run *r = &runs[i];
			fprintf(o, "%s{\"index\":%u,\"arm\":", i ? "," : "", i + 1);
			lsc_triage_json_str(o, arms[r->arm].name);
			fputs(",\"log\":", o);
			lsc_triage_json_str(o, r->log);
			fputs(",\"exit\":", o);
			if (!r->timed_out && !r->interrupted && WIFEXITED(r->status))
				fprintf(o, "%d", WEXITSTATUS(r->status));
			else
				fputs("null", o);
			fputs(",\"signal\":", o);
			if (!r->timed_out && !r->interrupted && WIFSIGNALED(r->status))
				fprintf(o, "%d", WTERMSIG(r->status));
			else
				fputs("null", o);
			fprintf(o, ",\"timeout\":%s,\"interrupted\":%s,\"wall_s\":", r->timed_out ? "true" : "false",
				r->interrupted ? "true" : "false");
			json_num(o, r->wall_s);
			fputs(",\"ready_s\":", o);
			json_num(o, r->ready_s);
			fputc('}', o);
		}
		fputs("],\"arms\":[", o);
		for (unsigned a = 0; a < narms; a++) {
			fprintf(o, "%s{\"name\":", a ? "," : "");
			lsc_triage_json_str(o, arms[a].name);
			fputs(",\"spec\":", o);
			lsc_triage_json_str(o, arms[a].spec);
			fprintf(o, ",\"thp\":\"%s\",\"runs\":%u,\"ok\":%u,\"failed\":%u,\"timeouts\":%u,\"triage\":",
				lsc_thp_ctl_name(arms[a].thp), arms[a].runs, arms[a].ok, arms[a].failed,
				arms[a].timeouts);
			bad |= lsc_triage_render(arms[a].t, LSC_TRIAGE_JSON, o) < 0;
			fputc('}', o);
		}
		fputs("],\"table\":", o);
		bad |= lsc_triage_render(all, LSC_TRIAGE_JSON, o) < 0;
		fputs("}\n", o);
		return bad ? -EIO : 0;
	}
	int md = f == FMT_MD;
	fprintf(o, md ? "## loadscope ab: %u arms, %u of %u runs\n\nLogs in `%s`.\n\n"
		      : "loadscope ab: %u arms, %u of %u runs; logs in %s\n\n",
		narms, nruns, total, dir);
	if (md)
		fputs("| run | arm | time to ready (s) | exit | log |\n|---:|---|---:|---|---|\n", o);
	else
		fprintf(o, "%4s %-23s %13s  %-28s %s\n", "run", "arm", "ready (s)", "exit", "log");
	for (unsigned i = 0; i < nruns; i++) {
		const struct run *r = &runs[i];
		char rd[32];
		exit_words(r, ex, sizeof(ex));
		if (isnan(r->ready_s))
			snprintf(rd, sizeof(rd), "n/a");
		else
			snprintf(rd, sizeof(rd), "%.3f", r->ready_s);
		if (md)
			fprintf(o, "| %u | %s | %s | %s | `%s` |\n", i + 1, arms[r->arm].name, rd, ex, r->log);
		else
			fprintf(o, "%4u %-23s %13s  %-28s %s\n", i + 1, arms[r->arm].name, rd, ex, r->log);
	}
	fputs(md ? "\n| arm | spec | runs | exit 0 | failed | timeouts |\n|---|---|---:|---:|---:|---:|\n"
		 : "\narm                     runs  exit 0  failed  timeouts  spec\n",
	      o);
	for (unsigned a = 0; a < narms; a++) {
		const struct arm *m = &arms[a];
		if (md)
			fprintf(o, "| %s | `%s` | %u | %u | %u | %u |\n", m->name, m->spec[0] ? m->spec : "(none)",
				m->runs, m->ok, m->failed, m->timeouts);
		else
			fprintf(o, "%-23s %5u %7u %7u %9u  %s\n", m->name, m->runs, m->ok, m->failed, m->timeouts,
				m->spec[0] ? m->spec : "(none)");
	}
	fputs(md ? "\n### A/B table (triage)\n\n" : "\n", o);
	bad |= lsc_triage_render(all, md ? LSC_TRIAGE_MD : LSC_TRIAGE_TEXT, o) < 0;
	for (unsigned a = 0; a < narms; a++) {
		fprintf(o, md ? "\n### Arm %s: findings\n\n" : "\n== arm %s: findings ==\n", arms[a].name);
		bad |= lsc_triage_render(arms[a].t, md ? LSC_TRIAGE_MD : LSC_TRIAGE_TEXT, o) < 0;
	}
	return bad ? -EIO : 0;
}

/* ---- the experiment ------------------------------------------------------------ */

/* Refuse, before any run, an arm whose THP control this kernel lacks: a
 * child tries it, so that ab itself keeps its own control. */
static int check_thp(const struct arm *a)
{
	char why[320];
	int st;

	if (a->thp == LSC_THP_CTL_INHERIT)
		return 0;
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

static int make_dir(const char *want, char *dir, size_t cap)
{
	if (want) {
		/* Cut, the name would be another directory's, logs and all. */
		if (strlen(want) >= cap) {
			fprintf(stderr, "loadscope ab: --out %s: longer than %zu bytes\n", want, cap - 1);
			return -1;
		}
		if (mkdir(want, 0777) && errno != EEXIST) {
			fprintf(stderr, "loadscope ab: --out %s: %s\n", want, strerror(errno));
			return -1;
		}
		snprintf(dir, cap, "%s", want);
		return 0;
	}
	snprintf(dir, cap, "loadscope-ab-XXXXXX");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "loadscope ab: making ./loadscope-ab-XXXXXX: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

int lsc_cmd_ab(int argc, char **argv)
{
	static struct arm arms[ARMS_MAX];
	unsigned narms = 0;
	uint64_t nruns = 0;
	double timeout = INFINITY;
	const char *out = NULL;
	enum fmt f = FMT_TEXT;
	int c, dd, rc;

	for (dd = 1; dd < argc && strcmp(argv[dd], "--"); dd++)
		;
	struct lsc_cli cli = {dd, argv, "hV", longopts, 0, 0};
	while ((c = lsc_cli_next(&cli)) != -1) {
		switch (c) {
		case OPT_RUNS:
			if (lsc_cli_uint("--runs", optarg, 1, 1000, &nruns))
				return LSC_EXIT_USAGE;
			break;
		case OPT_ARM:
			if (narms == ARMS_MAX)
				return lsc_cli_usage("--arm %s: more than %d arms", optarg, ARMS_MAX);
			if ((rc = parse_arm(optarg, &arms[narms])))
				return rc;
			for (unsigned a = 0; a < narms; a++)
				if (!strcmp(arms[a].name, arms[narms].name))
					return lsc_cli_usage("--arm %s: arm %s given twice", optarg, arms[a].name);
			narms++;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				f = FMT_TEXT;
			else if (!strcmp(optarg, "md") || !strcmp(optarg, "markdown"))
				f = FMT_MD;
			else if (!strcmp(optarg, "json"))
				f = FMT_JSON;
			else
				return lsc_cli_usage("--format %s: text, md or json", optarg);
			break;
		case OPT_TIMEOUT:
			if (lsc_cli_real("--timeout", optarg, 0, 604800, 1, &timeout))
				return LSC_EXIT_USAGE;
			break;
		case OPT_OUT:
			if (!optarg[0])
				return lsc_cli_usage("--out: an empty directory name");
			out = optarg;
			break;
		default:
			return lsc_cli_common(c, usage);
		}
	}
	if (cli.nops)
		return lsc_cli_usage("%s: an operand before '--' (CMD comes after '--')", argv[1]);
	if (!nruns)
		return lsc_cli_usage("no --runs N given");
	if (narms < 2)
		return lsc_cli_usage("%s: an A/B needs at least two --arm", narms ? "one --arm" : "no --arm");
	if (dd + 1 >= argc)
		return lsc_cli_usage("no CMD given after '--'");
	char **cmd = argv + dd + 1;

	for (unsigned a = 0; a < narms; a++)
		if (check_thp(&arms[a]))
			return LSC_EXIT_PROBLEM;
	char dir[400];
	if (make_dir(out, dir, sizeof(dir)))
		return LSC_EXIT_IO;

	unsigned total = (unsigned)nruns * narms, done = 0;
	struct run *runs = calloc(total, sizeof(*runs));
	struct lsc_triage_opts to = {.flags = LSC_TRIAGE_TABLE | LSC_TRIAGE_TABLE_ONLY};
	struct lsc_triage *all = lsc_triage_new(&to);
	int io_bad = 0, stop = 0;
	for (unsigned a = 0; a < narms; a++)
		arms[a].t = lsc_triage_new(NULL);
	for (unsigned a = 0; a < narms; a++)
		io_bad |= !arms[a].t;
	if (!runs || !all || io_bad) {
		fprintf(stderr, "loadscope ab: out of memory\n");
		rc = LSC_EXIT_IO;
		goto out;
	}
	fprintf(stderr, "loadscope ab: %u runs (%u arms x %u), interleaved; logs in %s\n", total, narms,
		(unsigned)nruns, dir);

	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	fflush(NULL); /* nothing buffered may be written twice by a child */
	for (unsigned i = 0; i < total && !stop; i++) {
		unsigned round = i / narms, a = (round + i % narms) % narms;
		sigset_t pend;
		/* told to stop while the last run's log was read: start no more */
		if (sigpending(&pend) == 0 && (sigismember(&pend, SIGINT) == 1 || sigismember(&pend, SIGTERM) == 1)) {
			stop = 1;
			break;
		}
		struct run *r = &runs[i];
		r->arm = a;
		r->ready_s = NAN;
		snprintf(r->log, sizeof(r->log), "%s/%03u-%s.log", dir, i + 1, arms[a].name);
		int log = open(r->log, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (log < 0) {
			fprintf(stderr, "loadscope ab: %s: %s\n", r->log, strerror(errno));
			io_bad = 1;
			break;
		}
		double t0 = now_s();
		pid_t pid = fork();
		if (pid == 0)
			child(&arms[a], log, cmd, &old);
		close(log);
		if (pid < 0) {
			fprintf(stderr, "loadscope ab: fork: %s\n", strerror(errno));
			io_bad = 1;
			break;
		}
		setpgid(pid, pid); /* as the child does: whichever runs first */
		int w = wait_until(pid, t0 + timeout, &r->status);
		if (w == 0)
			r->timed_out = 1;
		else if (w < 0)
			r->interrupted = stop = 1;
		if (w != 1)
			end_group(pid, &r->status);
		r->wall_s = now_s() - t0;
		done++;

		struct arm *m = &arms[a];
		struct lsc_triage *one = lsc_triage_new(NULL);
		struct lsc_triage *ts[3] = {all, m->t, one};
		int fr = one ? feed_log(r->log, m->name, ts, 3) : -ENOMEM;
		if (fr < 0) {
			fprintf(stderr, "loadscope ab: %s: %s\n", r->log, strerror(-fr));
			io_bad = 1;
		} else {
			r->ready_s = ready_of(one);
		}
		lsc_triage_free(one);
		m->runs++;
		m->ok += run_ok(r);
		m->timeouts += r->timed_out;
		m->failed += !run_ok(r) && !r->timed_out;
		char ex[96], rd[48];
		exit_words(r, ex, sizeof(ex));
		if (isnan(r->ready_s))
			snprintf(rd, sizeof(rd), "n/a (no ready line recognised)");
		else
			snprintf(rd, sizeof(rd), "%.3f s", r->ready_s);
		fprintf(stderr, "loadscope ab: run %u/%u arm %s: ready %s, exit %s, wall %.1f s, log %s\n", i + 1,
			total, m->name, rd, ex, r->wall_s, r->log);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);

	int healthy = 1;
	for (unsigned i = 0; i < done; i++)
		healthy &= run_ok(&runs[i]);
	if (report(stdout, f, dir, arms, narms, runs, done, total, all) < 0)
		io_bad = 1;
	if (io_bad)
		rc = LSC_EXIT_IO;
	else if (!healthy || stop || done < total)
		rc = LSC_EXIT_PROBLEM;
	else if (lsc_triage_nrecognised(all) == 0)
		rc = LSC_EXIT_NOTHING;
	else
		rc = LSC_EXIT_OK;
out:
	for (unsigned a = 0; a < narms; a++)
		lsc_triage_free(arms[a].t);
	lsc_triage_free(all);
	free(runs);
	return rc;
}
