/*
 * `loadscope run [--thp off|except-advised|default] [--env K=V ...] [--] CMD
 * [ARGS...]`: set the process THP control (PR_SET_THP_DISABLE, inherited
 * across exec) and the environment, say in one line on stderr what was set,
 * and exec CMD in place. Seed 000 wrote nothp.c for exactly this and found
 * the start 9x faster; here it is one command that needs no root and
 * refuses, in one line, a mode the kernel does not have rather than run
 * a different experiment than the one asked for.
 *
 * Exit status: CMD's own once it runs; before that 1 when the kernel
 * refused the THP control, 126 when CMD could not be executed, 127 when it
 * was not found, 64 usage (docs/cli.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "thp_ctl.h"
#include "tool.h"

const char lsc_cmd_run_help[] = "exec a command with its THP control and environment set, no root needed";

#define ENV_MAX 64

static void usage(FILE *f)
{
	fprintf(f,
		"usage: loadscope run [--thp off|except-advised|default] [--env K=V ...] [--] CMD [ARGS...]\n"
		"Sets the THP control of this process, which CMD inherits, and execs CMD:\n"
		"  --thp off             PR_SET_THP_DISABLE 1: no huge pages for any of CMD's memory\n"
		"  --thp except-advised  huge pages only where CMD asks (MADV_HUGEPAGE); Linux 6.18+\n"
		"  --thp default         PR_SET_THP_DISABLE 0: the system's THP settings apply\n"
		"                        (without --thp the inherited control is left as it is)\n"
		"  --env K=V             set K in CMD's environment (repeatable)\n"
		"Options end at CMD, as for env(1); '--' before CMD is optional. One line on\n"
		"stderr says what was set before CMD runs. No root needed.\n"
		"  -h, --help     this text      -V, --version  version and backends\n"
		"exit: CMD's status once it runs; 1 the kernel refused the THP control, 126 CMD\n"
		"could not be executed, 127 CMD not found, 64 usage error (docs/cli.md)\n");
}

enum { OPT_THP = 256, OPT_ENV };

static const struct option longopts[] = {
	{"thp", required_argument, NULL, OPT_THP},
	{"env", required_argument, NULL, OPT_ENV},
	LSC_CLI_COMMON_OPTS,
};

int lsc_cmd_run(int argc, char **argv)
{
	enum lsc_thp_ctl thp = LSC_THP_CTL_INHERIT;
	const char *env[ENV_MAX];
	int nenv = 0, c;
	char why[320];

	/* CMD and its options are not ours: options end at CMD, as env(1),
	 * nice(1) and taskset(1) have it, or at "--". */
	struct lsc_cli cli = {argc, argv, "+hV", longopts, 0, 0};
	while ((c = lsc_cli_next(&cli)) != -1) {
		switch (c) {
		case OPT_THP:
			if (lsc_thp_ctl_parse(optarg, &thp))
				return lsc_cli_usage("--thp %s: off, except-advised or default", optarg);
			break;
		case OPT_ENV:
			if (!optarg[0] || optarg[0] == '=' || !strchr(optarg, '='))
				return lsc_cli_usage("--env %s: not NAME=VALUE", optarg);
			if (nenv == ENV_MAX)
				return lsc_cli_usage("--env %s: more than %d --env", optarg, ENV_MAX);
			env[nenv++] = optarg;
			break;
		default:
			return lsc_cli_common(c, usage);
		}
	}
	if (!cli.nops)
		return lsc_cli_usage("no CMD given");
	char **cmd = argv + 1; /* CMD and its arguments, gathered there */
	cmd[cli.nops] = NULL;

	if (lsc_thp_ctl_set(thp, why, sizeof(why)) < 0) {
		fprintf(stderr, "loadscope run: %s\n", why);
		return LSC_EXIT_PROBLEM;
	}
	for (int i = 0; i < nenv; i++) {
		size_t n = strcspn(env[i], "=");
		char *name = strndup(env[i], n);
		int bad = !name || setenv(name, env[i] + n + 1, 1);
		free(name);
		if (bad) {
			fprintf(stderr, "loadscope run: --env %s: %s\n", env[i], strerror(errno));
			return LSC_EXIT_PROBLEM;
		}
	}
	fprintf(stderr, "loadscope run: %s%s: %s;", thp == LSC_THP_CTL_INHERIT ? "THP control inherited" : "--thp ",
		thp == LSC_THP_CTL_INHERIT ? "" : lsc_thp_ctl_name(thp), lsc_thp_ctl_now());
	if (nenv) {
		fputs(" env", stderr);
		for (int i = 0; i < nenv; i++)
			fprintf(stderr, " %s", env[i]);
	} else {
		fputs(" environment unchanged", stderr);
	}
	fprintf(stderr, "; exec %s\n", cmd[0]);
	/* stdout is CMD's from here on: nothing of ours may be left in it. */
	fflush(stdout);
	execvp(cmd[0], cmd);
	int err = errno;
	fprintf(stderr, "loadscope run: %s: %s\n", cmd[0], strerror(err));
	return err == ENOENT ? LSC_EXIT_NOTFOUND : LSC_EXIT_NOEXEC;
}
