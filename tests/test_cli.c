/*
 * Description: the command-line conventions every `loadscope` subcommand
 * shares (tools/cli.c, docs/cli.md), asserted on the built program
 * (LSC_TEST_TOOL): one usage-error line with exit 64 that names the option
 * and the reason; `--opt=value` and `--opt value` alike; options after
 * operands; numbers that refuse inf, nan, negative and absurd values
 * (`pintest --chunk-gib inf` died of SIGFPE); -V/--version with the
 * registry's pin backends and the readers; a failed write to stdout exits
 * 4; colour as no-color.org and TERM=dumb say (on a pseudo-terminal); pin
 * names from the registry; and the man page and bash completion in step
 * with every subcommand's --help and parser.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <loadscope/version.h>

#include "helpers/tool_run.h"
#include "pin/pin.h"

#define SRC LSC_TEST_FIXTURES "/../.."
#define MAN SRC "/docs/man/loadscope.1"
#define COMPLETION SRC "/tools/completion/loadscope.bash"
#define FX LSC_TEST_FIXTURES

static char out[1 << 16], err[1 << 14];
static const char *dir; /* the test's scratch directory */

static void setup(void)
{
	lsct_tool_required();
	dir = lsct_scratch("cli");
}

static void teardown(void)
{
	lsct_scratch_remove();
}

TestSuite(cli, .init = setup, .fini = teardown);

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

/* `loadscope ARGS` through sh (ARGS may redirect stdout): stdout in out,
 * stderr in err; the exit status, or -1 when a signal ended it. */
static int tool(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int tool(const char *fmt, ...)
{
	char args[2048], cmd[4096], errpath[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(errpath, sizeof(errpath), "%s/stderr", dir);
	snprintf(cmd, sizeof(cmd), "LOADSCOPE= '%s' %s 2>'%s'", LSC_TEST_TOOL, args, errpath);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	int st = pclose(p);
	slurp(errpath, err, sizeof(err));
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *file(const char *name, const char *text)
{
	static char path[4][128];
	static int k;
	char *p = path[k++ % 4];
	snprintf(p, 128, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

#define HEALTHY "[loadscope/1] start e | run=0000000a\n[loadscope/1] ready | run=0000000a wall_s=3\n"
#define WARN "strata generate: loaded 39.97 GiB at 2.86 GiB/s\n[strata] ready in 432 s\n"

/* A usage error: exit 64, nothing on stdout, exactly @line on stderr. */
#define USAGE(line, ...)                                                                   \
	do {                                                                               \
		int rc_ = tool(__VA_ARGS__);                                               \
		cr_assert_eq(rc_, 64, "exit %d for `%s`: %s", rc_, #__VA_ARGS__, err);     \
		cr_assert_str_eq(err, line "\n");                                          \
		cr_assert_str_eq(out, "", "a usage error prints nothing on stdout");       \
	} while (0)

Test(cli, usage_errors_are_one_line_exit_64)
{
	USAGE("loadscope pintest: --mode nonsense: not a mode (alloc-mp, alloc-m, alloc-d, "
	      "register); see 'loadscope pintest --help'",
	      "pintest --mode nonsense");
	USAGE("loadscope pintest: --mode register,nope: nope is not a mode (alloc-mp, alloc-m, "
	      "alloc-d, register); see 'loadscope pintest --help'",
	      "pintest 1 --mode register,nope");
	USAGE("loadscope pintest: no SIZE_GIB given; see 'loadscope pintest --help'", "pintest");
	USAGE("loadscope load: --qd 0: a whole number from 1 to 4096; see 'loadscope load --help'",
	      "load --qd 0 x");
	USAGE("loadscope load: no FILE to load; see 'loadscope load --help'", "load");
	USAGE("loadscope load: --bogus: unknown option; see 'loadscope load --help'",
	      "load --bogus x");
	USAGE("loadscope load: --thp: needs a value; see 'loadscope load --help'", "load x --thp");
	/* a prefix of several long options names each; an empty name none */
	USAGE("loadscope load: --pi: ambiguous (--pin, --pin-readonly); see 'loadscope load --help'", "load --pi x");
	USAGE("loadscope ab: --export=x: ambiguous (--export-json, --export-markdown, --export-csv); see "
	      "'loadscope ab --help'",
	      "ab --export=x -- true");
	USAGE("loadscope load: --=x: unknown option; see 'loadscope load --help'", "load --=x y");
	USAGE("loadscope load: --thp sometimes: auto, thp, 4k, hugetlb or process-off; see "
	      "'loadscope load --help'",
	      "load --thp sometimes x");
	USAGE("loadscope probe: --format yaml: human or json; see 'loadscope probe --help'",
	      "probe --format yaml");
	USAGE("loadscope probe: extra: unexpected argument (probe takes options only); see "
	      "'loadscope probe --help'",
	      "probe extra");
	USAGE("loadscope triage: --format yaml: text, json or md; see 'loadscope triage --help'",
	      "triage --format yaml /dev/null");
	USAGE("loadscope triage: --table=1: --table takes no value; see 'loadscope triage --help'",
	      "triage --table=1 /dev/null");
	USAGE("loadscope triage: -x: unknown option; see 'loadscope triage --help'",
	      "triage -x /dev/null");
	USAGE("loadscope: no command given; see 'loadscope --help'", "%s", "");
	USAGE("loadscope: nonsense: unknown command; see 'loadscope --help'", "nonsense");
}

Test(cli, help_still_prints_the_usage)
{
	static const char *const cmds[] = {"load", "probe", "triage", "pintest"};
	for (size_t i = 0; i < 4; i++) {
		char want[64];
		cr_assert_eq(tool("%s --help", cmds[i]), 0, "%s: %s", cmds[i], err);
		snprintf(want, sizeof(want), "usage: loadscope %s", cmds[i]);
		cr_assert(!strncmp(out, want, strlen(want)), "%s", out);
		cr_assert_str_eq(err, "");
	}
}

Test(cli, equals_and_space_forms_alike)
{
	const char *w = file("w.log", WARN);
	char spaced[sizeof(out)];

	cr_assert_eq(tool("triage --format json %s", w), 1, "%s", err);
	memcpy(spaced, out, sizeof(out));
	cr_assert_eq(tool("triage --format=json %s", w), 1, "%s", err);
	cr_assert_str_eq(out, spaced);
	cr_assert(!strncmp(out, "{\"schema\":\"loadscope-triage\"", 27), "%s", out);
	USAGE("loadscope pintest: --chunk-gib inf: a number from 0 to 1048576; see 'loadscope "
	      "pintest --help'",
	      "pintest 1 --chunk-gib=inf");
	USAGE("loadscope load: --qd 0: a whole number from 1 to 4096; see 'loadscope load --help'",
	      "load --qd=0 x");
	USAGE("loadscope probe: --arena-gib 0: a number above 0, at most 1048576; see 'loadscope "
	      "probe --help'",
	      "probe --arena-gib=0");
}

Test(cli, options_after_operands)
{
	const char *w = file("w.log", WARN);

	/* `--table` after the file is the option, not a second file. */
	cr_assert_eq(tool("triage %s --format md --table", w), 1, "%s", err);
	cr_assert(strstr(out, "| start | severity | finding |"), "%s", out);
	cr_assert_str_eq(err, "");
	cr_assert_eq(tool("triage %s --format=json", w), 1, "%s", err);
	cr_assert(!strncmp(out, "{\"schema\":\"loadscope-triage\"", 27), "%s", out);
	/* `--` ends the options: a file called --table is read as a file. */
	cr_assert_eq(tool("triage -- --table"), 4);
	cr_assert_str_eq(err, "loadscope triage: --table: No such file or directory\n");
	USAGE("loadscope load: --qd 0: a whole number from 1 to 4096; see 'loadscope load --help'",
	      "load x --qd 0");
}

/* The number options: each refuses these with one usage line, no signal. */
Test(cli, numbers_refuse_inf_nan_negative_and_absurd)
{
	static const char *const bad[][2] = {
		{"pintest 0.01 --backend mlock --chunk-gib", "inf"},   {"pintest 0.01 --backend mlock --chunk-gib", "nan"},
		{"pintest 0.01 --backend mlock --chunk-gib", "-1"},    {"pintest 0.01 --backend mlock --chunk-gib", "1e400"},
		{"pintest 0.01 --backend mlock --chunk-gib", "2e6"},   {"pintest 0.01 --backend mlock --repeats", "inf"},
		{"pintest 0.01 --backend mlock --repeats", "-1"},      {"pintest 0.01 --backend mlock --repeats", "1001"},
		{"probe --arena-gib", "inf"},          {"probe --arena-gib", "nan"},
		{"probe --arena-gib", "-1"},           {"probe --arena-gib", "1e9"},
		{"load x --gib", "nan"},               {"load x --gib", "inf"},
		{"load x --gib", "-1"},                {"load x --gib", "1025"},
		{"load x --qd", "-1"},                 {"load x --qd", "99999999999999999999999"},
		{"load x --threads", "inf"},           {"load x --threads", "1025"},
		{"load x --chunk-gib", "1e4"},         {"load x --chunk-gib", "' 8'"},
		{"load x --chunk-gib", "0"},           {"load x --chunk-gib", "nan"},
		{"load x --gib", "0"},
		{"load x --staging", "-1x5"},          {"load x --staging", "4x0"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = tool("%s %s", bad[i][0], bad[i][1]);
		cr_assert_eq(rc, 64, "`%s %s`: exit %d (-1: a signal): %s", bad[i][0], bad[i][1], rc,
			     err);
		const char *opt = strstr(bad[i][0], " --");
		for (const char *o = opt; (o = strstr(o + 1, " --"));)
			opt = o; /* the last option is the one under test */
		char want[96];
		snprintf(want, sizeof(want), "loadscope %.*s: %s ", (int)strcspn(bad[i][0], " "),
			 bad[i][0], opt + 1);
		cr_assert(!strncmp(err, want, strlen(want)), "`%s %s`: %s", bad[i][0], bad[i][1], err);
		cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
	}
	/* The operand too. */
	USAGE("loadscope pintest: SIZE_GIB inf: a number above 0, at most 1048576; see 'loadscope "
	      "pintest --help'",
	      "pintest inf");
	USAGE("loadscope pintest: SIZE_GIB nan: a number above 0, at most 1048576; see 'loadscope "
	      "pintest --help'",
	      "pintest nan");
	/* 2^32 pieces of one page: refused before anything is allocated. */
	USAGE("loadscope pintest: --chunk-gib 1e-09: 4294967296 pieces of SIZE_GIB 16384, at most "
	      "4096; see 'loadscope pintest --help'",
	      "pintest 16384 --backend mlock --mode register --chunk-gib 0.000000001");
}

static void assert_version(void)
{
	char want[160] = "loadscope " LSC_VERSION_STRING "\npin backends: ";
	for (const struct lsc__pin_ops *const *b = lsc__pin_backends; *b; b++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s",
			 b == lsc__pin_backends ? "" : ", ", (*b)->name);
	strcat(want, "\nreaders: io_uring, pread\n");
	cr_assert_str_eq(out, want);
	/* none and mlock are in every build, last in the fallback order. */
	cr_assert(strstr(out, "mlock, none\nreaders"), "%s", out);
}

Test(cli, version_lists_the_backends)
{
	static const char *const forms[] = {"-V", "--version", "load --version", "probe -V",
					    "triage --version", "pintest -V"};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		cr_assert_eq(tool("%s", forms[i]), 0, "%s: %s", forms[i], err);
		assert_version();
	}
}

Test(cli, pin_names_come_from_the_registry)
{
	char want[512], have[128] = "", locks[128] = "";
	for (const struct lsc__pin_ops *const *b = lsc__pin_backends; *b; b++) {
		snprintf(have + strlen(have), sizeof(have) - strlen(have), "%s%s", have[0] ? ", " : "",
			 (*b)->name);
		if ((*b)->caps & LSC__PIN_CAP_LOCKS)
			snprintf(locks + strlen(locks), sizeof(locks) - strlen(locks), "%s%s",
				 locks[0] ? ", " : "", (*b)->name);
		/* every registry name passes the parser (--help ends it after) */
		cr_assert_eq(tool("load --pin %s --help", (*b)->name), 0, "%s: %s", (*b)->name, err);
	}
	cr_assert_eq(tool("load --pin nonsense x"), 64);
	snprintf(want, sizeof(want),
		 "loadscope load: --pin nonsense: not a pin backend of this build (it has %s); see "
		 "'loadscope load --help'\n", have);
	cr_assert_str_eq(err, want);
	cr_assert_eq(tool("pintest 1 --backend nonsense"), 64);
	snprintf(want, sizeof(want),
		 "loadscope pintest: --backend nonsense: not a pin backend of this build (this build "
		 "has %s); see 'loadscope pintest --help'\n", locks);
	cr_assert_str_eq(err, want);
	cr_assert_eq(tool("pintest 1 --backend none"), 64);
	snprintf(want, sizeof(want),
		 "loadscope pintest: --backend none: locks no memory (this build has %s); see "
		 "'loadscope pintest --help'\n", locks);
	cr_assert_str_eq(err, want);
}

Test(cli, failed_write_to_stdout_exits_4)
{
	if (access("/dev/full", W_OK))
		cr_skip_test("no writable /dev/full here");
	const char *h = file("h.log", HEALTHY);
	cr_assert_eq(tool("triage %s > /dev/full", h), 4);
	cr_assert_str_eq(err, "loadscope triage: writing to stdout: No space left on device\n");
	/* the profiler flushes per line: the error came earlier, without errno */
	cr_assert_eq(tool("probe --arena-gib 1 --proc-root %s/vm-page-reporting/proc --sys-root "
			  "%s/vm-page-reporting/sys > /dev/full", FX, FX), 4);
	cr_assert_str_eq(err, "loadscope probe: writing to stdout failed\n");
	cr_assert_eq(tool("load --help > /dev/full"), 4);
	cr_assert_str_eq(err, "loadscope load: writing to stdout: No space left on device\n");
	cr_assert_eq(tool("-V > /dev/full"), 4);
	cr_assert_str_eq(err, "loadscope: writing to stdout: No space left on device\n");
	/* a usage error keeps its code */
	cr_assert_eq(tool("triage --format yaml > /dev/full"), 64);
	/* stdout closed and nothing written to it (the page goes to a file):
	 * only the close fails, and says why */
	cr_assert_eq(tool("triage --html %s/x.html %s 1>&-", dir, h), 4);
	cr_assert(strstr(err, "loadscope triage: writing to stdout: Bad file descriptor\n"), "%s", err);
}

/* Run `loadscope triage [--color | --no-color] FILE` on a pseudo-terminal
 * under @env (NAME=VALUE, or NAME alone to unset it), @force 1 for
 * --color, -1 for --no-color; 1 when the output has colour. */
static int colour_on_tty(const char *log, const char *const *env, int force)
{
	int master;
	pid_t pid = forkpty(&master, NULL, NULL, NULL);
	cr_assert_neq(pid, -1, "forkpty: %s", strerror(errno));
	if (pid == 0) {
		for (; *env; env++) {
			const char *eq = strchr(*env, '=');
			if (eq) {
				char name[32];
				snprintf(name, sizeof(name), "%.*s", (int)(eq - *env), *env);
				setenv(name, eq + 1, 1);
			} else {
				unsetenv(*env);
			}
		}
		if (force)
			execl(LSC_TEST_TOOL, "loadscope", "triage", force > 0 ? "--color" : "--no-color", log, (char *)NULL);
		else
			execl(LSC_TEST_TOOL, "loadscope", "triage", log, (char *)NULL);
		_exit(127);
	}
	size_t n = 0;
	ssize_t r;
	while ((r = read(master, out + n, sizeof(out) - 1 - n)) > 0) /* EIO at the child's exit */
		n += (size_t)r;
	out[n] = 0;
	close(master);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d: %s", st, out);
	return strstr(out, "\x1b[") != NULL;
}

Test(cli, colour_follows_no_color_and_term)
{
	const char *w = file("w.log", WARN);
	static const char *const plain[] = {"NO_COLOR", "TERM=xterm", NULL};
	static const char *const empty[] = {"NO_COLOR=", "TERM=xterm", NULL};
	static const char *const set[] = {"NO_COLOR=1", "TERM=xterm", NULL};
	static const char *const dumb[] = {"NO_COLOR", "TERM=dumb", NULL};

	cr_assert(colour_on_tty(w, plain, 0), "a terminal gets colour: %s", out);
	cr_assert(colour_on_tty(w, empty, 0), "an empty NO_COLOR does not disable it: %s", out);
	cr_assert(!colour_on_tty(w, set, 0), "NO_COLOR=1 disables it: %s", out);
	cr_assert(!colour_on_tty(w, dumb, 0), "TERM=dumb disables it: %s", out);
	cr_assert(colour_on_tty(w, set, 1), "--color overrides NO_COLOR: %s", out);
	cr_assert(!colour_on_tty(w, plain, -1), "--no-color on a terminal has none: %s", out);
}

/* ---- the man page and the completion, against --help and the parser ---- */

static char man[1 << 16], comp[1 << 14];

/* The words of the completion's shell variable @name="...". */
static void comp_list(const char *name, char *buf, size_t cap)
{
	char key[64];
	snprintf(key, sizeof(key), "\n%s=\"", name);
	const char *s = strstr(comp, key);
	cr_assert_not_null(s, "%s not in %s", name, COMPLETION);
	s += strlen(key);
	size_t n = strcspn(s, "\"");
	cr_assert_lt(n, cap);
	memcpy(buf, s, n);
	buf[n] = 0;
}

static int has_word(const char *list, const char *w)
{
	size_t n = strlen(w);
	for (const char *s = list; (s = strstr(s, w)); s += n)
		if ((s == list || s[-1] == ' ') && (s[n] == ' ' || !s[n]))
			return 1;
	return 0;
}

/* The man page's section for @cmd: from ".SS cmd" to the next .SS or .SH. */
static void man_section(const char *cmd, char *buf, size_t cap)
{
	char key[32];
	snprintf(key, sizeof(key), "\n.SS %s\n", cmd);
	const char *s = strstr(man, key);
	cr_assert_not_null(s, "no section for %s in %s", cmd, MAN);
	const char *e = s + strlen(key), *ss = strstr(e, "\n.SS "), *sh = strstr(e, "\n.SH ");
	if (!ss || (sh && sh < ss))
		ss = sh;
	size_t n = ss ? (size_t)(ss - s) : strlen(s);
	cr_assert_lt(n, cap);
	memcpy(buf, s, n);
	buf[n] = 0;
}

static void check_command(const char *cmd)
{
	char flags[512], valued[512], name[64], section[1 << 13], help[1 << 13], all[1100];

	snprintf(name, sizeof(name), "_loadscope_%s_flags", cmd);
	comp_list(name, flags, sizeof(flags));
	snprintf(name, sizeof(name), "_loadscope_%s_valued", cmd);
	comp_list(name, valued, sizeof(valued));
	snprintf(all, sizeof(all), "%s %s", flags, valued);
	man_section(cmd, section, sizeof(section));
	cr_assert_eq(tool("%s --help", cmd), 0);
	cr_assert_lt(strlen(out), sizeof(help));
	memcpy(help, out, strlen(out) + 1);

	/* Every option --help names is in the man page's section and the
	 * completion; --help and --version are common to all (COMMON OPTIONS). */
	for (const char *s = help; (s = strstr(s, "--"));) {
		size_t n = 2 + strspn(s + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
		char opt[48], roff[96] = "";
		snprintf(opt, sizeof(opt), "%.*s", (int)n, s);
		s += n;
		if (n == 2)
			continue;
		cr_assert(has_word(all, opt), "%s %s: not in the completion", cmd, opt);
		if (!strcmp(opt, "--help") || !strcmp(opt, "--version"))
			continue;
		for (const char *c = opt; *c; c++)
			strncat(roff, *c == '-' ? "\\-" : (char[]){*c, 0}, sizeof(roff) - strlen(roff) - 1);
		cr_assert(strstr(section, roff), "%s %s: not in the man page's section", cmd, opt);
	}
	/* Every option the completion offers is the parser's, of its kind, and
	 * one --help lists. */
	char *save = NULL;
	for (char *o = strtok_r(flags, " ", &save); o; o = strtok_r(NULL, " ", &save)) {
		cr_assert(strstr(help, o), "%s %s: completed but not in --help", cmd, o);
		if (!strcmp(o, "--version"))
			continue;
		/* no value: the --help after it is an option, and ends the run */
		cr_assert_eq(tool("%s %s --help", cmd, o), 0, "%s %s: %s", cmd, o, err);
		snprintf(name, sizeof(name), "usage: loadscope %s", cmd);
		cr_assert(!strncmp(out, name, strlen(name)), "%s %s: %s", cmd, o, out);
	}
	for (char *o = strtok_r(valued, " ", &save); o; o = strtok_r(NULL, " ", &save)) {
		char want[160];
		cr_assert(strstr(help, o), "%s %s: completed but not in --help", cmd, o);
		/* known and taking a value: "needs a value", not "unknown option" */
		cr_assert_eq(tool("%s %s", cmd, o), 64, "%s %s", cmd, o);
		snprintf(want, sizeof(want), "loadscope %s: %s: needs a value; see 'loadscope %s --help'\n",
			 cmd, o, cmd);
		cr_assert_str_eq(err, want);
	}
}

Test(cli, man_page_and_completion_match_the_program)
{
	char cmds[128];

	slurp(MAN, man, sizeof(man));
	slurp(COMPLETION, comp, sizeof(comp));
	cr_assert(man[0] && comp[0], "%s or %s missing", MAN, COMPLETION);
	comp_list("_loadscope_commands", cmds, sizeof(cmds));
	/* The program's own list (`loadscope --help`): each one completed. */
	cr_assert_eq(tool("--help"), 0);
	unsigned listed = 0;
	for (const char *s = strstr(out, "commands:\n"); s && (s = strstr(s, "\n  ")); s += 3) {
		char cmd[32];
		if (sscanf(s + 3, "%31s", cmd) != 1)
			break;
		cr_assert(has_word(cmds, cmd), "%s: a command the completion lacks", cmd);
		listed++;
	}
	cr_assert_eq(listed, 8, "%s", out);
	char *save = NULL;
	for (char *c = strtok_r(cmds, " ", &save); c; c = strtok_r(NULL, " ", &save))
		check_command(c);
}

/* An option @opt ("--pin") named in @help as itself, not as a prefix of a
 * longer one ("--pin-readonly"). */
static int help_names(const char *help, const char *opt)
{
	size_t n = strlen(opt);
	for (const char *s = help; (s = strstr(s, opt)); s += n)
		if (strchr(" \n=[],|)", s[n]))
			return 1;
	return 0;
}

/* The man page's EXAMPLES: each command line (between .nf and .fi, pipes
 * split) is `loadscope COMMAND ...` of a command the program has, every
 * option it gives before a bare `--` is one that command's --help names,
 * and every command has an example. */
Test(cli, man_examples_are_the_programs_commands)
{
	slurp(MAN, man, sizeof(man));
	const char *ex = strstr(man, "\n.SH EXAMPLES\n");
	cr_assert_not_null(ex, "%s has no EXAMPLES section", MAN);
	const char *end = strstr(ex + 1, "\n.SH ");
	cr_assert_not_null(end, "EXAMPLES is not followed by a section");
	static char text[1 << 14];
	cr_assert_lt((size_t)(end - ex), sizeof(text));
	/* roff's \- is a plain '-' on the command line */
	size_t k = 0;
	for (const char *p = ex; p < end; p++) {
		if (p[0] == '\\' && p[1] == '-')
			p++;
		text[k++] = *p;
	}
	text[k] = 0;
	const char *const cmds[] = {"load", "probe", "triage", "pintest", "run", "ab", "lab"};
	unsigned seen[7] = {0}, lines = 0;
	int in_nf = 0;
	char *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!strcmp(l, ".nf") || !strcmp(l, ".fi")) {
			in_nf = !strcmp(l, ".nf");
			continue;
		}
		if (!in_nf)
			continue;
		lines++;
		char *save2 = NULL;
		for (char *seg = strtok_r(l, "|", &save2); seg; seg = strtok_r(NULL, "|", &save2)) {
			char sub[32], help[1 << 13];
			seg += strspn(seg, " ");
			cr_assert(!strncmp(seg, "loadscope ", 10), "an example that is not loadscope's: %s", seg);
			cr_assert_eq(sscanf(seg + 10, "%31s", sub), 1, "%s", seg);
			size_t c = 0;
			while (c < 7 && strcmp(cmds[c], sub))
				c++;
			cr_assert_lt(c, 7, "%s: not a command of the program", sub);
			seen[c]++;
			cr_assert_eq(tool("%s --help", sub), 0, "%s", sub);
			cr_assert_lt(strlen(out), sizeof(help));
			memcpy(help, out, strlen(out) + 1);
			char *save3 = NULL;
			for (char *w = strtok_r(seg + 10, " ", &save3); w; w = strtok_r(NULL, " ", &save3)) {
				if (!strcmp(w, "--"))
					break; /* CMD's own from here */
				if (strncmp(w, "--", 2))
					continue;
				w[strcspn(w, "=")] = 0;
				cr_assert(help_names(help, w), "EXAMPLES: `loadscope %s %s`: not an option of its --help", sub, w);
			}
		}
	}
	cr_assert_gt(lines, 0, "no example command lines in EXAMPLES");
	for (size_t c = 0; c < 7; c++)
		cr_assert_gt(seen[c], 0, "EXAMPLES has no example of %s", cmds[c]);
}

/* The completion itself, run by bash: prefixes, value lists, --opt=value
 * (bash splits it at '=' as readline does), the registry's pin names. */
Test(cli, completion_completes)
{
	if (system("command -v bash >/dev/null 2>&1"))
		cr_skip_test("no bash here");
	char pins[128] = "";
	for (const struct lsc__pin_ops *const *b = lsc__pin_backends; *b; b++)
		snprintf(pins + strlen(pins), sizeof(pins) - strlen(pins), "%s%s", pins[0] ? " " : "",
			 (*b)->name);
	strcat(pins, "\n");
	const struct {
		const char *words;
		const char *want;
	} cases[] = {
		{"load --th", "--thp --threads\n"},
		{"load --thp ''", "auto thp 4k hugetlb process-off\n"},
		{"triage --format = ''", "text json md\n"},
		{"pintest --mode al", "alloc-mp alloc-m alloc-d\n"},
		{"load --pin ''", pins},
		{"tr", "triage\n"},
		{"run --thp ''", "off except-advised default\n"},
		{"run --e", "--env\n"},
		/* from CMD on, CMD's words: none of run's or ab's options */
		{"run grep --th", "\n"},
		{"run --thp off -- ls --e", "\n"},
		{"run --thp=off grep --e", "\n"},
		{"ab --runs 2 -- ./engine --ru", "\n"},
		{"ab --format ''", "text md json\n"},
		{"lab ''", "fragment\n"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char script[1024];
		snprintf(script, sizeof(script),
			 "source '%s'\nCOMP_WORDS=('%s' %s)\nCOMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
			 "_loadscope\necho \"${COMPREPLY[*]}\"\n",
			 COMPLETION, LSC_TEST_TOOL, cases[i].words);
		const char *path = file("complete.sh", script);
		char cmd[256];
		snprintf(cmd, sizeof(cmd), "bash '%s'", path);
		FILE *p = popen(cmd, "r");
		cr_assert_not_null(p);
		size_t n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = 0;
		cr_assert_eq(pclose(p), 0);
		cr_assert_str_eq(out, cases[i].want, "%s", cases[i].words);
	}
}
