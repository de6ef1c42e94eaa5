/*
 * `loadscope ab` (tools/cmd_ab.c and tools/ab_*.c): the experiment's state
 * and the jobs its files share. One struct ab holds everything a report
 * needs: the arms as given, every run as measured (wall time, exit status,
 * CPU time and peak RSS from wait4, the triage's phase figures when the
 * run's log has them), each arm's statistics and each pair's test.
 *
 *   ab_args.c     the command line and --help
 *   ab_order.c    which arm runs when (a Williams design per round)
 *   ab_exec.c     one process: the arm's settings, wait4, timeout, pause
 *   ab_loop.c     the experiment: warm-ups, prepare, pause, timed runs
 *   ab_phases.c   a run's phase figures from the triage
 *   ab_stats.c    mean, sigma, median, the Mann-Whitney U test, the verdict
 *   ab_summary.c  the statistics per arm and per pair, from the runs
 *   ab_report.c   the text and Markdown report
 *   ab_export.c   --export-json (hyperfine's shape), --export-csv
 *   ab_html.c     --html
 */
#ifndef LSC_TOOLS_AB_H
#define LSC_TOOLS_AB_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "thp_ctl.h"
#include "triage/triage.h"

#define AB_ARMS_MAX 8
#define AB_ENV_MAX 16
#define AB_NAME_MAX 23 /* the triage keeps an arm name to 23 bytes */
#define AB_PHASES 12
#define AB_PH_READY 10 /* ab_phase_names[]: "load to ready (s)" */
#define AB_PAIRS (AB_ARMS_MAX * (AB_ARMS_MAX - 1) / 2)
#define AB_ALPHA 0.05  /* a pair differs when the test's p is below this */
/* and its medians at least this far apart: an arm's environment alone (its
 * size moves the stack) can shift a program's time by a fraction of a
 * percent, real but not what an A/B asks */
#define AB_MIN_RATIO 1.01
/* Between runs: free page reporting gives freed memory back to the host
 * about 2 s after it is freed; docs/reproduce.md has the measurement. */
#define AB_PAUSE_DEFAULT_S 3.0

enum ab_fmt { AB_TEXT, AB_MD, AB_JSON };

struct ab_arm {
	char name[AB_NAME_MAX + 1];
	char spec[512]; /* as given, for the report */
	enum lsc_thp_ctl thp;
	char env[AB_ENV_MAX][256];
	unsigned nenv;
	unsigned runs, ok, failed, timeouts;
	struct lsc_triage *t; /* this arm's runs: its findings */
};

struct ab_run {
	unsigned arm;
	int warmup;     /* a warm-up run: timed, never counted */
	char log[512];
	int status;     /* wait4's */
	int timed_out, interrupted;
	double wall_s, user_s, sys_s;
	long max_rss_kib;
	double ready_s;          /* the triage's load to ready; NAN none */
	double ph[AB_PHASES];    /* ab_phase_names; NAN not in the log */
};

/* One arm's figures over its runs that exited 0 (n of them). */
struct ab_stats {
	unsigned n;
	double mean, sd, median, min, max; /* wall seconds; sd NAN below n = 2 */
	double user, sys;                  /* mean CPU seconds */
	double rss_mib;                    /* the largest peak RSS */
};

struct ab_mwu {
	double u;   /* U of the first sample: pairs (a, b) with a > b, ties 1/2 */
	double p;   /* two-sided */
	int exact;  /* 1 exact distribution, 0 normal approximation (ties, large n) */
};

struct ab_pair {
	unsigned a, b;       /* arms */
	int ready;           /* 0 on the wall time, 1 on the triage's load to ready */
	struct ab_mwu t;
	int valid;           /* both arms have at least 2 runs to compare */
	int faster;          /* the arm with the lower median, -1 equal */
	double ratio;        /* slower median / faster median */
	char conclusion[512];
};

struct ab {
	/* the command line */
	struct ab_arm arms[AB_ARMS_MAX];
	unsigned narms, runs, warmup;
	double timeout, pause;
	const char *prepare, *out, *json, *md, *csv, *html;
	enum ab_fmt fmt;
	int verbose;
	char **cmd;
	char cmdline[1024]; /* CMD as one line, for the reports */
	/* the experiment */
	char dir[400];
	struct ab_run *run; /* timed runs, in the order they ran */
	unsigned total, done, warm_done;
	int stop, io_bad, failed_prepare;
	struct lsc_triage *all; /* every timed run's log: the triage's A/B table */
	/* the summary */
	struct ab_stats st[AB_ARMS_MAX];
	double ph_med[AB_ARMS_MAX][AB_PHASES];
	unsigned ph_n[AB_ARMS_MAX][AB_PHASES];
	int any_phase;
	/* each pair on the wall time, then (when every run that exited 0 has
	 * one) on the load to ready the triage read from the logs */
	struct ab_pair pair[2 * AB_PAIRS];
	unsigned npairs;
};

/* ab_args.c: fill @x from the command line; 0, or the exit code (usage
 * printed, or --help/--version answered: *@done set). */
int ab_parse(struct ab *x, int argc, char **argv, int *done);

/* ab_order.c: the arm of the @j-th run of round @r among @k arms. Rounds
 * follow a Williams design (k rounds for even k, 2k for odd k, repeated):
 * each arm runs first equally often and follows each other arm equally
 * often, so that no arm always follows the same one. */
unsigned ab_arm_at(unsigned r, unsigned j, unsigned k);

/* ab_exec.c */
double ab_now(void);
/* Refuse, before any run, an arm whose THP control this kernel lacks. */
int ab_check_thp(const struct ab_arm *a);
/* Run CMD (argv @cmd; or "/bin/sh -c @shell" when @shell) with the arm's
 * settings, output to @log, until @timeout; fills the run's wall time,
 * status, rusage figures, timed_out and interrupted. Signals are blocked
 * by the caller (@old: the mask to restore in the child). Return 0, or -1
 * when it could not start (a line printed). */
int ab_exec(const struct ab_arm *a, char **cmd, const char *shell, int log, double timeout, const sigset_t *old,
	    struct ab_run *r);
/* Wait @s seconds; -1 when SIGINT or SIGTERM came first. */
int ab_pause(double s);
int ab_run_ok(const struct ab_run *r);
void ab_exit_words(const struct ab_run *r, char *out, size_t cap);

/* ab_loop.c: the warm-ups and the timed runs. Return 0, or -1 when the
 * log directory could not be made. */
int ab_experiment(struct ab *x);

/* ab_phases.c: the phase figures of the last start in @one (one run's
 * log) into @ph (NAN where not measured). */
extern const char *const ab_phase_names[AB_PHASES]; /* as people read them */
extern const char *const ab_phase_keys[AB_PHASES];  /* as JSON names them */
void ab_phases_of(struct lsc_triage *one, double ph[AB_PHASES]);

/* ab_stats.c: the arithmetic, on plain arrays. */
double ab_median(const double *v, unsigned n);            /* NAN for n = 0 */
void ab_stats_of(const double *v, unsigned n, struct ab_stats *s); /* wall fields only */
/* Mann-Whitney U of @a against @b; -1 when either is empty. */
int ab_mwu(const double *a, unsigned na, const double *b, unsigned nb, struct ab_mwu *out);
/* The smallest two-sided p an exact test of na against nb runs can give. */
double ab_mwu_floor(unsigned na, unsigned nb);
/* Does the pair differ: p below AB_ALPHA and medians AB_MIN_RATIO apart? */
int ab_differ(const struct ab_pair *p);
/* The one-line verdict on a pair into p->conclusion, from its fields. */
void ab_conclude(struct ab_pair *p, const char *na, const char *nb, unsigned n_a, unsigned n_b);

/* ab_summary.c: fill st, ph_*, pair from the runs. */
void ab_summarise(struct ab *x);

/* ab_report.c: the report on stdout (--format text or md). 0 or -EIO. */
int ab_report(FILE *o, struct ab *x, enum ab_fmt f);
/* ab_export.c */
int ab_write_json(FILE *o, struct ab *x);
int ab_write_csv(FILE *o, const struct ab *x);
/* ab_html.c */
int ab_write_html(FILE *o, struct ab *x);

#endif
