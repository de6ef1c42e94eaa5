/*
 * The experiment of `loadscope ab`: the log directory, the warm-up rounds,
 * then the timed rounds (ab_order.c says which arm runs when), each run
 * preceded by --prepare and the pause, its log fed to the triage (the
 * arm's findings, the A/B table, the run's own phase figures) and a
 * progress line on stderr as it ends. Told to stop (SIGINT, SIGTERM), it
 * ends the running run's group and starts no more.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ab.h"

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

/* Feed @path to every triage in @t; 0 or -errno. */
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

/* A timed run's log into the triages, its phase figures into @r. */
static void read_back(struct ab *x, struct ab_run *r)
{
	struct ab_arm *m = &x->arms[r->arm];
	struct lsc_triage *one = lsc_triage_new(NULL);
	struct lsc_triage *ts[3] = {x->all, m->t, one};
	int fr = one ? feed_log(r->log, m->name, ts, 3) : -ENOMEM;
	if (fr < 0) {
		fprintf(stderr, "loadscope ab: %s: %s\n", r->log, strerror(-fr));
		x->io_bad = 1;
	} else {
		ab_phases_of(one, r->ph);
		r->ready_s = r->ph[AB_PH_READY];
	}
	lsc_triage_free(one);
}

static void progress(const struct ab *x, const struct ab_run *r, unsigned i, unsigned of)
{
	char ex[96], rd[48];
	ab_exit_words(r, ex, sizeof(ex));
	if (r->warmup) {
		fprintf(stderr, "loadscope ab: warm-up %u/%u arm %s: exit %s, wall %.3f s, log %s\n", i, of,
			x->arms[r->arm].name, ex, r->wall_s, r->log);
		return;
	}
	if (isnan(r->ready_s))
		snprintf(rd, sizeof(rd), "n/a (no ready line recognised)");
	else
		snprintf(rd, sizeof(rd), "%.3f s", r->ready_s);
	fprintf(stderr, "loadscope ab: run %u/%u arm %s: ready %s, exit %s, wall %.3f s, log %s\n", i, of,
		x->arms[r->arm].name, rd, ex, r->wall_s, r->log);
}

static int stop_asked(void)
{
	sigset_t pend;
	return sigpending(&pend) == 0 && (sigismember(&pend, SIGINT) == 1 || sigismember(&pend, SIGTERM) == 1);
}

/* --prepare for a run of arm @a; 0, or -1 when it failed (ab stops). */
static int prepare(struct ab *x, unsigned a, const sigset_t *old)
{
	char path[512];
	struct ab_run p = {.arm = a};
	snprintf(path, sizeof(path), "%s/prepare.log", x->dir);
	int log = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
	if (log < 0) {
		fprintf(stderr, "loadscope ab: %s: %s\n", path, strerror(errno));
		x->io_bad = 1;
		return -1;
	}
	int rc = ab_exec(&x->arms[a], NULL, x->prepare, log, x->timeout, old, &p);
	close(log);
	if (rc < 0) {
		x->io_bad = 1;
		return -1;
	}
	x->stop |= p.interrupted;
	if (ab_run_ok(&p))
		return 0;
	char ex[96];
	ab_exit_words(&p, ex, sizeof(ex));
	fprintf(stderr, "loadscope ab: --prepare for arm %s: exit %s (its output in %s); no more runs\n",
		x->arms[a].name, ex, path);
	x->failed_prepare = 1;
	return -1;
}

/* Step @i of the experiment (warm-ups first) into @r; 0, or -1 to stop. */
static int step(struct ab *x, unsigned i, struct ab_run *r, const sigset_t *old)
{
	unsigned k = x->narms, nw = x->warmup * k;
	int warm = i < nw;
	unsigned j = warm ? i : i - nw, a = ab_arm_at(j / k, j % k, k);

	if (stop_asked() || (x->prepare && prepare(x, a, old)))
		return -1;
	if (i && x->pause > 0 && ab_pause(x->pause))
		return -1;
	memset(r, 0, sizeof(*r));
	r->arm = a;
	r->warmup = warm;
	r->ready_s = NAN;
	for (unsigned p = 0; p < AB_PHASES; p++)
		r->ph[p] = NAN;
	snprintf(r->log, sizeof(r->log), warm ? "%s/w%03u-%s.log" : "%s/%03u-%s.log", x->dir, j + 1,
		 x->arms[a].name);
	int log = open(r->log, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (log < 0) {
		fprintf(stderr, "loadscope ab: %s: %s\n", r->log, strerror(errno));
		x->io_bad = 1;
		return -1;
	}
	int rc = ab_exec(&x->arms[a], x->cmd, NULL, log, x->timeout, old, r);
	close(log);
	if (rc < 0) {
		x->io_bad = 1;
		return -1;
	}
	x->stop |= r->interrupted;
	if (!warm)
		read_back(x, r);
	progress(x, r, j + 1, warm ? nw : x->total);
	return 0;
}

static void count(struct ab_arm *m, const struct ab_run *r)
{
	m->runs++;
	m->ok += ab_run_ok(r);
	m->timeouts += r->timed_out;
	m->failed += !ab_run_ok(r) && !r->timed_out;
}

int ab_experiment(struct ab *x)
{
	if (make_dir(x->out, x->dir, sizeof(x->dir)))
		return -1;
	unsigned nw = x->warmup * x->narms;
	fprintf(stderr, "loadscope ab: %u runs (%u arms x %u) after %u warm-up runs, interleaved, %.3g s apart; "
			"logs in %s\n",
		x->total, x->narms, x->runs, nw, x->pause, x->dir);
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	for (unsigned i = 0; i < nw + x->total && !x->stop; i++) {
		struct ab_run warm, *r = i < nw ? &warm : &x->run[i - nw];
		if (step(x, i, r, &old)) {
			x->stop = 1;
			break;
		}
		if (i < nw) {
			x->warm_done++;
		} else {
			x->done++;
			count(&x->arms[r->arm], r);
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return 0;
}
