/*
 * loadscope: the command-line program. Dispatches to the subcommands in
 * tools/cmd_*.c (probe, load, triage, ...), and checks stdout once they
 * return (tools/cli.c, docs/cli.md for the conventions and exit statuses).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <loadscope/loadscope.h>

#include "tool.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
#define LSC_CMD(n) {#n, lsc_cmd_##n, lsc_cmd_##n##_help},
#include "commands.h"
#undef LSC_CMD
	{NULL, NULL, NULL},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: loadscope <command> [options]\n"
		   "       loadscope -h|--help | -V|--version\n\ncommands:\n");
	for (size_t i = 0; commands[i].name; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'loadscope <command> --help' for a command's options; exit statuses in\n"
		   "docs/cli.md and loadscope(1). loadscope %s\n",
		lsc_version_string());
}

static int run(int argc, char **argv)
{
	if (argc < 2)
		return lsc_cli_usage("no command given");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return LSC_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		lsc_cli_version(stdout);
		return LSC_EXIT_OK;
	}
	for (size_t i = 0; commands[i].name; i++)
		if (!strcmp(argv[1], commands[i].name)) {
			lsc_cli_cmd = commands[i].name;
			return commands[i].run(argc - 1, argv + 1);
		}
	return lsc_cli_usage("%s: unknown command", argv[1]);
}

/* The program's own writes (usage, reports, the stdout check's line) to a
 * pipe whose reader left (`| head -c1`) or a file at RLIMIT_FSIZE fail
 * with EPIPE or EFBIG and end in exit status 4 (docs/cli.md), instead of
 * the signal's death (141, 153). A handler that does nothing, not SIG_IGN:
 * exec resets a handler, so `run` and `ab` give the engine the default. */
static void nothing(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nothing;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGXFSZ, &sa, NULL);
	return lsc_cli_finish(run(argc, argv));
}
