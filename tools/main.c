/*
 * loadscope: the command-line program. Dispatches to the subcommands in
 * tools/cmd_*.c (probe, load, triage, ...).
 */
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
	fprintf(f, "usage: loadscope <command> [options]\n\ncommands:\n");
	for (size_t i = 0; commands[i].name; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'loadscope <command> --help' for a command's options. loadscope %s\n",
		lsc_version_string());
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("loadscope %s\n", lsc_version_string());
		return 0;
	}
	for (size_t i = 0; commands[i].name; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "loadscope: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
