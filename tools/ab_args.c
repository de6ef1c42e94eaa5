/*
 * `loadscope ab`'s command line and --help. The names are hyperfine's
 * where it has one (--runs, --warmup, --prepare, --export-*), so that
 * people who know it need nothing new; an arm is NAME=SPEC, SPEC the
 * settings `loadscope run` applies (thp=MODE) and environment (env=K=V),
 * which is also how the loader's own THP policies are chosen
 * (env=LOADSCOPE_ARENA_THP=POLICY).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "tool.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: loadscope ab [--runs N] [--warmup N] [--prepare CMD] [--pause S] --arm NAME=SPEC\n"
		"                    --arm NAME=SPEC ... [--timeout S] [--out DIR] [--format text|md|json]\n"
		"                    [--export-json F] [--export-markdown F] [--export-csv F] [--html F]\n"
		"                    [--verbose] [--] CMD [ARGS...]\n"
		"Runs CMD N times per arm, interleaved in rounds with the order of the arms rotated\n"
		"per round (A B, B A, ...; for 3 and more arms each arm follows every other equally\n"
		"often), times each run itself (wall time, exit status, CPU time, peak RSS), and\n"
		"reports per arm mean +- sigma, median, min and max, the triage's phase figures when\n"
		"CMD prints lines the triage reads, and per pair a Mann-Whitney U test with a one-\n"
		"line conclusion. Any command can be compared by its wall time.\n"
		"  -r, --runs N       timed runs per arm, 1 to 1000 (default 10)\n"
		"  -w, --warmup N     untimed rounds before them, 0 to 100 (default 0)\n"
		"  -p, --prepare CMD  run by /bin/sh -c before every run (warm-ups too), with the\n"
		"                     arm's env=; untimed, output in DIR/prepare.log; a failure stops\n"
		"  --pause S          seconds between runs, after --prepare (default %.0f: freed memory\n"
		"                     goes back to a VM's host about 2 s after it is freed; 0 none)\n"
		"  --arm NAME=SPEC    an arm (2 to 8): NAME of letters, digits, '.', '_', '-' (at most\n"
		"                     23); SPEC items joined by ',' (empty: CMD as it is):\n"
		"      thp=off             the process's THP off (PR_SET_THP_DISABLE), as 'run' sets it\n"
		"      thp=except-advised  THP only where the program asks for it (Linux 6.18+)\n"
		"      thp=default         the system's THP settings\n"
		"      env=K=V             K=V in CMD's environment (repeatable; no ',' in V)\n"
		"    the loader's arena policies (docs/configuration.md), each an env= item:\n"
		"      --arm auto=env=LOADSCOPE_ARENA_THP=auto   huge pages where they pay\n"
		"      --arm 4k=env=LOADSCOPE_ARENA_THP=4k       4 KiB pages only\n"
		"      --arm thp=env=LOADSCOPE_ARENA_THP=thp     transparent huge pages (madvise)\n"
		"      --arm huge=env=LOADSCOPE_ARENA_THP=hugetlb  the hugetlb pool\n"
		"      --arm poff=env=LOADSCOPE_ARENA_THP=process-off  THP off for the process\n"
		"    e.g. --arm off=thp=off,env=OMP_NUM_THREADS=2\n"
		"  --timeout S        a run still going after S seconds (above 0, at most 604800) is\n"
		"                     killed, its process group whole, and counted as a timeout\n"
		"  --out DIR          where each run's output is kept (DIR/NNN-ARM.log, warm-ups\n"
		"                     DIR/wNNN-ARM.log; made if missing); default ./loadscope-ab-XXXXXX\n"
		"  --format F         the report on stdout: text (default), md or json\n"
		"  --export-json F    hyperfine's JSON (results[]: command, mean, stddev, median,\n"
		"                     user, system, min, max, times, exit_codes) with ab's additions\n"
		"  --export-markdown F  the Markdown report   --export-csv F  hyperfine's CSV\n"
		"  --html F           a page: the arms, a strip chart of the runs, the phases, the\n"
		"                     conclusion, each start's findings\n"
		"  -v, --verbose      each arm's findings and the triage's A/B table in the report\n"
		"Progress, a line per run, goes to stderr.\n"
		"  -h, --help     this text      -V, --version  version and backends\n"
		"example: loadscope ab --runs 5 --warmup 1 --arm auto=env=LOADSCOPE_ARENA_THP=auto \\\n"
		"           --arm 4k=env=LOADSCOPE_ARENA_THP=4k -- loadscope load model.gguf\n"
		"exit: 0 every run exited 0 in time, 1 a run or --prepare failed, a run timed out, ab\n"
		"was interrupted or a THP control was refused, 4 a log, an export or stdout could\n"
		"not be written, 64 usage error (docs/cli.md)\n",
		AB_PAUSE_DEFAULT_S);
}

enum {
	OPT_ARM = 256,
	OPT_FORMAT,
	OPT_TIMEOUT,
	OPT_OUT,
	OPT_PAUSE,
	OPT_JSON,
	OPT_MD,
	OPT_CSV,
	OPT_HTML,
};

static const struct option longopts[] = {
	{"runs", required_argument, NULL, 'r'},
	{"warmup", required_argument, NULL, 'w'},
	{"prepare", required_argument, NULL, 'p'},
	{"verbose", no_argument, NULL, 'v'},
	{"arm", required_argument, NULL, OPT_ARM},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"timeout", required_argument, NULL, OPT_TIMEOUT},
	{"out", required_argument, NULL, OPT_OUT},
	{"pause", required_argument, NULL, OPT_PAUSE},
	{"export-json", required_argument, NULL, OPT_JSON},
	{"export-markdown", required_argument, NULL, OPT_MD},
	{"export-csv", required_argument, NULL, OPT_CSV},
	{"html", required_argument, NULL, OPT_HTML},
	LSC_CLI_COMMON_OPTS,
};

static int name_ok(const char *s, size_t n)
{
	if (!n || n > AB_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", s[i]))
			return 0;
	return 1;
}

/* One SPEC item into @a; 0, or the usage error's code after printing it. */
static int parse_item(const char *arg, char *it, struct ab_arm *a)
{
	if (!strncmp(it, "thp=", 4)) {
		if (lsc_thp_ctl_parse(it + 4, &a->thp))
			return lsc_cli_usage("--arm %s: %s: thp=off, thp=except-advised or thp=default", arg, it);
		return 0;
	}
	if (!strncmp(it, "env=", 4)) {
		const char *kv = it + 4;
		if (!kv[0] || kv[0] == '=' || !strchr(kv, '='))
			return lsc_cli_usage("--arm %s: %s: not env=NAME=VALUE", arg, it);
		if (a->nenv == AB_ENV_MAX || strlen(kv) >= sizeof(a->env[0]))
			return lsc_cli_usage("--arm %s: %s: more than %d env= or too long", arg, it, AB_ENV_MAX);
		snprintf(a->env[a->nenv++], sizeof(a->env[0]), "%s", kv);
		return 0;
	}
	return lsc_cli_usage("--arm %s: %s: not thp=MODE or env=K=V (loadscope ab --help lists them)", arg, it);
}

/* NAME=SPEC into @a; 0, or the usage error's code after printing it. */
static int parse_arm(const char *arg, struct ab_arm *a)
{
	const char *eq = strchr(arg, '=');
	char buf[512];
	int rc;

	memset(a, 0, sizeof(*a));
	a->thp = LSC_THP_CTL_INHERIT;
	if (!eq || !name_ok(arg, (size_t)(eq - arg)))
		return lsc_cli_usage("--arm %s: not NAME=SPEC with a NAME of at most %d letters, digits, "
				     "'.', '_' or '-'", arg, AB_NAME_MAX);
	memcpy(a->name, arg, (size_t)(eq - arg));
	if (strlen(eq + 1) >= sizeof(buf))
		return lsc_cli_usage("--arm %s: SPEC too long", arg);
	snprintf(a->spec, sizeof(a->spec), "%s", eq + 1);
	snprintf(buf, sizeof(buf), "%s", eq + 1);
	char *save = NULL;
	for (char *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save))
		if ((rc = parse_item(arg, it, a)))
			return rc;
	return 0;
}

static int add_arm(struct ab *x, const char *arg)
{
	int rc;
	if (x->narms == AB_ARMS_MAX)
		return lsc_cli_usage("--arm %s: more than %d arms", arg, AB_ARMS_MAX);
	if ((rc = parse_arm(arg, &x->arms[x->narms])))
		return rc;
	for (unsigned a = 0; a < x->narms; a++)
		if (!strcmp(x->arms[a].name, x->arms[x->narms].name))
			return lsc_cli_usage("--arm %s: arm %s given twice", arg, x->arms[a].name);
	x->narms++;
	return 0;
}

static int file_arg(const char *opt, const char *v, const char **to)
{
	if (!v[0])
		return lsc_cli_usage("%s: an empty file name", opt);
	*to = v;
	return 0;
}

/* One option; 0, or the exit code. */
static int one_opt(struct ab *x, int c, const char *v)
{
	uint64_t n;
	switch (c) {
	case 'r':
		if (lsc_cli_uint("--runs", v, 1, 1000, &n))
			return LSC_EXIT_USAGE;
		x->runs = (unsigned)n;
		return 0;
	case 'w':
		if (lsc_cli_uint("--warmup", v, 0, 100, &n))
			return LSC_EXIT_USAGE;
		x->warmup = (unsigned)n;
		return 0;
	case 'p':
		if (!v[0])
			return lsc_cli_usage("--prepare: an empty command");
		x->prepare = v;
		return 0;
	case 'v':
		x->verbose = 1;
		return 0;
	case OPT_ARM:
		return add_arm(x, v);
	case OPT_FORMAT:
		if (!strcmp(v, "text"))
			x->fmt = AB_TEXT;
		else if (!strcmp(v, "md") || !strcmp(v, "markdown"))
			x->fmt = AB_MD;
		else if (!strcmp(v, "json"))
			x->fmt = AB_JSON;
		else
			return lsc_cli_usage("--format %s: text, md or json", v);
		return 0;
	case OPT_TIMEOUT:
		return lsc_cli_real("--timeout", v, 0, 604800, 1, &x->timeout) ? LSC_EXIT_USAGE : 0;
	case OPT_PAUSE:
		return lsc_cli_real("--pause", v, 0, 3600, 0, &x->pause) ? LSC_EXIT_USAGE : 0;
	case OPT_OUT:
		return file_arg("--out", v, &x->out);
	case OPT_JSON:
		return file_arg("--export-json", v, &x->json);
	case OPT_MD:
		return file_arg("--export-markdown", v, &x->md);
	case OPT_CSV:
		return file_arg("--export-csv", v, &x->csv);
	case OPT_HTML:
		return file_arg("--html", v, &x->html);
	default:
		return -1;
	}
}

/* CMD as one line: its words, each quoted for sh when it needs it. */
static void cmdline_of(struct ab *x)
{
	size_t w = 0, cap = sizeof(x->cmdline);
	for (char **a = x->cmd; *a && w < cap; a++) {
		int plain = (*a)[0] && strspn(*a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
					     "._-/=:,+@%") == strlen(*a);
		int n = snprintf(x->cmdline + w, cap - w, plain ? "%s%s" : "%s'%s'", w ? " " : "", *a);
		w += n > 0 ? (size_t)n : 0;
	}
}

int ab_parse(struct ab *x, int argc, char **argv, int *done)
{
	int c, rc;

	*done = 0;
	x->runs = 10;
	x->pause = AB_PAUSE_DEFAULT_S;
	x->timeout = INFINITY;
	/* CMD and its options are not ours: options end at CMD, as run's (and
	 * env(1)'s) do, or at "--". */
	struct lsc_cli cli = {argc, argv, "+hVvr:w:p:", longopts, 0, 0};
	while ((c = lsc_cli_next(&cli)) != -1) {
		rc = one_opt(x, c, optarg);
		if (rc == -1) {
			*done = 1;
			return lsc_cli_common(c, usage);
		}
		if (rc)
			return rc;
	}
	if (x->narms < 2)
		return lsc_cli_usage("%s: an A/B needs at least two --arm", x->narms ? "one --arm" : "no --arm");
	if (!cli.nops)
		return lsc_cli_usage("no CMD given");
	x->cmd = argv + 1; /* CMD and its arguments, gathered there */
	x->cmd[cli.nops] = NULL;
	cmdline_of(x);
	return 0;
}
