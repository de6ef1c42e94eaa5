/*
 * The subcommands of the loadscope program, and the conventions they share.
 * Each subcommand lives in tools/cmd_NAME.c and defines lsc_cmd_NAME() and
 * lsc_cmd_NAME_help; the build lists them (gen/commands.h), so adding a
 * command touches no shared file. tools/cli.c holds what every subcommand
 * parses and says the same way: one option parser over getopt_long, the
 * one-line usage error, numbers that refuse inf, nan and absurd values,
 * the colour decision, --version, and the check of stdout at exit.
 */
#ifndef LSC_TOOLS_TOOL_H
#define LSC_TOOLS_TOOL_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#define LSC_CMD(name)                                   \
	int lsc_cmd_##name(int argc, char **argv); \
	extern const char lsc_cmd_##name##_help[];
#include "commands.h"
#undef LSC_CMD

/* Exit statuses, one meaning each in every subcommand; docs/cli.md is the
 * table. 2 and 3 are triage's contract (scripts and tests/corpus rely on
 * them), so a usage error has a code of its own, sysexits' EX_USAGE. */
enum lsc_exit {
	LSC_EXIT_OK = 0,       /* done; nothing to report */
	LSC_EXIT_PROBLEM = 1,  /* ran, and found a warning or failed at its job */
	LSC_EXIT_FAIL = 2,     /* triage: a fail finding */
	LSC_EXIT_NOTHING = 3,  /* nothing to judge */
	LSC_EXIT_IO = 4,       /* an input unreadable, stdout unwritable, out of memory */
	LSC_EXIT_USAGE = 64,   /* the command line was wrong; nothing was done */
	LSC_EXIT_NOEXEC = 126, /* run, ab: CMD found but could not be executed (as env(1)) */
	LSC_EXIT_NOTFOUND = 127, /* run, ab: CMD not found (as env(1)) */
};

/* The subcommand being run ("load"), for messages; set by main. */
extern const char *lsc_cli_cmd;

/* One option parser per subcommand run. Options and operands may come in
 * any order (`triage log --table`), `--opt=value` and `--opt value` alike;
 * `--` ends the options. Operands are gathered, in order, at argv[1..]. */
struct lsc_cli {
	int argc;
	char **argv;
	const char *shorts;              /* short options, as getopt's optstring; a
	                                  * leading '+': options end at the first
	                                  * operand, which and all after it are
	                                  * operands, as env(1) has it (run: CMD
	                                  * and its own options) */
	const struct option *longopts;
	int nops;                        /* operands so far, at argv[1..nops] */
	int started;
};

/* The next option's val, -1 at the end (operands at argv[1..nops]), or '?'
 * after a usage error, already printed in one line. */
int lsc_cli_next(struct lsc_cli *c);

/* Print "loadscope CMD: <what>; see 'loadscope CMD --help'" on stderr and
 * return LSC_EXIT_USAGE. */
__attribute__((format(printf, 1, 2))) int lsc_cli_usage(const char *fmt, ...);

/* Parse option @opt's value @s as a finite number in [lo, hi] (above @lo,
 * not at it, when @above); 0, or -1 after printing the usage line. */
int lsc_cli_real(const char *opt, const char *s, double lo, double hi, int above, double *out);
/* The same for a whole number of decimal digits only (no sign, no spaces). */
int lsc_cli_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/* Colour on stdout: @asked (1 --color, 0 --no-color) when given (>= 0);
 * else a terminal, NO_COLOR unset or empty (no-color.org) and TERM not
 * "dumb". */
int lsc_cli_color(int asked);

/* The version and the backends compiled in (pin registry, readers). */
void lsc_cli_version(FILE *f);

/* The end of every subcommand's longopts table: --help, --version and the
 * terminator. */
#define LSC_CLI_COMMON_OPTS                 \
	{"help", no_argument, NULL, 'h'},       \
	{"version", no_argument, NULL, 'V'},    \
	{NULL, 0, NULL, 0}

/* For a subcommand's switch default: after -h (@usage on stdout) or -V
 * (the version), LSC_EXIT_OK; anything else is LSC_EXIT_USAGE (getopt's
 * '?' has printed its line already). */
int lsc_cli_common(int opt, void (*usage)(FILE *f));

/* At exit: flush and close stdout; a write that failed, now or earlier,
 * is one line on stderr and LSC_EXIT_IO instead of @rc (a usage error
 * keeps its code). */
int lsc_cli_finish(int rc);

#endif
