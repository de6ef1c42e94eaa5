/*
 * Description: `loadscope triage` as a user runs it (tools/cmd_triage.c):
 * files and stdin, --format text|json|md, --table, --redact, and the exit
 * status (0 healthy, 1 warnings, 2 failures, 3 unusable input, 4 a file
 * unreadable, 64 usage; docs/cli.md).
 * Runs the built program (LSC_TEST_TOOL) on small logs written to a
 * temporary directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "helpers/tool_run.h"

static const char *dir; /* the test's scratch directory */
static char out[1 << 16];

static void setup(void)
{
	lsct_tool_required();
	dir = lsct_scratch("triage-cli");
}

static void teardown(void)
{
	lsct_scratch_remove();
}

static const char *file(const char *name, const char *text)
{
	static char path[8][128];
	static int k;
	char *p = path[k++ % 8];
	snprintf(p, 128, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

/* Run `loadscope triage ARGS`; stdout into out; return the exit status. */
static int tool(const char *args)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "%s triage %s", LSC_TEST_TOOL, args);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	int st = pclose(p);
	cr_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

#define HEALTHY "[loadscope/1] start e | run=0000000a\n[loadscope/1] ready | run=0000000a wall_s=3\n"
#define WARN "strata generate: loaded 39.97 GiB at 2.86 GiB/s\n[strata] ready in 432 s\n"
#define FAIL "Nov 30 04:05:16 gpu-box.example.com strata[12]: strata generate: verify: timed out at layer 32 " \
	     "reading /home/alice/models/qwen/model.bin\n"

TestSuite(triage_cli, .init = setup, .fini = teardown);

Test(triage_cli, exit_status)
{
	char args[256];
	snprintf(args, sizeof(args), "%s", file("h.log", HEALTHY));
	cr_assert_eq(tool(args), 0, "%s", out);
	snprintf(args, sizeof(args), "%s", file("w.log", WARN));
	cr_assert_eq(tool(args), 1, "%s", out);
	snprintf(args, sizeof(args), "%s", file("f.log", FAIL));
	cr_assert_eq(tool(args), 2, "%s", out);
	snprintf(args, sizeof(args), "%s", file("u.log", "nothing to see\n"));
	cr_assert_eq(tool(args), 3, "%s", out);
	cr_assert_eq(tool("--format yaml /dev/null 2>/dev/null"), 64);
	cr_assert_eq(tool("/nonexistent/file 2>/dev/null"), 4);
	/* Nothing could be read: the error on stderr, no empty report. */
	cr_assert_str_eq(out, "");
	cr_assert_eq(tool("/tmp 2>&1"), 4);
	cr_assert_str_eq(out, "loadscope triage: /tmp: Is a directory\n");
}

/* An option after the files is an option: `triage log --table` once read
 * --table as a second file, failed on it and exited 4. */
Test(triage_cli, options_after_files)
{
	char args[256];
	snprintf(args, sizeof(args), "%s --table --format md 2>&1", file("w.log", WARN));
	cr_assert_eq(tool(args), 1, "%s", out);
	cr_assert(strstr(out, "| start | severity | finding |"), "%s", out);
	cr_assert_null(strstr(out, "No such file"), "%s", out);
}

Test(triage_cli, stdin_and_several_files)
{
	char args[512];
	snprintf(args, sizeof(args), "< %s", file("w.log", WARN));
	cr_assert_eq(tool(args), 1);
	cr_assert(strstr(out, "rate-hides-wall-time"), "%s", out);
	snprintf(args, sizeof(args), "%s %s", file("h.log", HEALTHY), file("f.log", FAIL));
	cr_assert_eq(tool(args), 2);
	cr_assert(strstr(out, "f.log:1:"), "evidence names its file and line: %s", out);
}

/* Evidence from the tenth input names the tenth file, not an earlier one. */
Test(triage_cli, many_files_keep_their_names)
{
	char args[2048] = "", name[32];
	for (int i = 0; i < 9; i++) {
		snprintf(name, sizeof(name), "h%d.log", i);
		strcat(strcat(args, file(name, HEALTHY)), " ");
	}
	strcat(args, file("f9.log", FAIL));
	cr_assert_eq(tool(args), 2, "%s", out);
	cr_assert(strstr(out, "f9.log:1:"), "%s", out);
}

Test(triage_cli, formats)
{
	char args[256];
	snprintf(args, sizeof(args), "--format json %s", file("w.log", WARN));
	tool(args);
	cr_assert(!strncmp(out, "{\"schema\":\"loadscope-triage\",\"version\":1,", 41), "%s", out);
	cr_assert(strstr(out, "\"id\":\"rate-hides-wall-time\",\"severity\":\"warn\""), "%s", out);
	snprintf(args, sizeof(args), "--format md --table %s", file("w.log", WARN));
	tool(args);
	cr_assert(strstr(out, "<details><summary>start 0"), "%s", out);
	cr_assert(strstr(out, "</details>"), "%s", out);
	cr_assert(strstr(out, "| start | severity | finding |"), "%s", out);
	cr_assert(strstr(out, "**median, all starts (1)**"), "%s", out);
	snprintf(args, sizeof(args), "--format text %s", file("w.log", WARN));
	tool(args);
	cr_assert_null(strchr(out, '\x1b'), "no colour when stdout is not a terminal");
}

Test(triage_cli, redact)
{
	char args[256];
	snprintf(args, sizeof(args), "%s", file("f.log", FAIL));
	tool(args);
	cr_assert(strstr(out, "/home/alice"), "%s", out);
	snprintf(args, sizeof(args), "--redact %s", file("f.log", FAIL));
	tool(args);
	cr_assert_null(strstr(out, "alice"), "%s", out);
	cr_assert(strstr(out, "<path>"), "%s", out);
	cr_assert(strstr(out, "verify: timed out at layer 32"), "%s", out);
}

/* --html OUT without --format prints no report: one line on stderr says
 * the page was written, where, and how big; stdout stays empty. */
Test(triage_cli, html_says_it_wrote_the_page)
{
	static char o[1 << 12], e[1 << 12];
	char page[160];
	snprintf(page, sizeof(page), "%s/p.html", dir);
	int rc = lsct_tool(o, sizeof(o), e, sizeof(e), "triage --html '%s' '%s'", page, file("h.log", HEALTHY));
	cr_assert_eq(rc, 0, "%s", e);
	cr_assert_str_eq(o, "");
	FILE *f = fopen(page, "r");
	cr_assert_not_null(f, "no page at %s", page);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fclose(f);
	char want[256];
	snprintf(want, sizeof(want), "loadscope triage: --html: wrote %s (%ld bytes)\n", page, n);
	cr_assert_str_eq(e, want);
}

/* A page that cannot be written is exit 4 with one line naming it: a
 * folder that does not exist (the reason), a device that takes no bytes
 * (the write failed); nothing else on stdout. */
Test(triage_cli, html_that_cannot_be_written_is_exit_4)
{
	static char o[1 << 12], e[1 << 12];
	const char *log = file("h.log", HEALTHY);
	int rc = lsct_tool(o, sizeof(o), e, sizeof(e), "triage --html '%s/no/such/p.html' '%s'", dir, log);
	cr_assert_eq(rc, 4, "%s", e);
	char want[256];
	snprintf(want, sizeof(want), "loadscope triage: --html %s/no/such/p.html: No such file or directory\n", dir);
	cr_assert_str_eq(e, want);
	cr_assert_str_eq(o, "");
	if (access("/dev/full", W_OK) != 0)
		cr_skip_test("no writable /dev/full here: the write failure is not tried");
	rc = lsct_tool(o, sizeof(o), e, sizeof(e), "triage --html /dev/full '%s'", log);
	cr_assert_eq(rc, 4, "%s", e);
	cr_assert_str_eq(e, "loadscope triage: --html /dev/full: write failed\n");
	cr_assert_str_eq(o, "");
}

/* Counts of one are singular in the header, text and Markdown alike. */
Test(triage_cli, one_line_is_singular)
{
	char args[512];
	snprintf(args, sizeof(args), "%s", file("one.log", "[loadscope/2] start x | run=0000000a t_s=0\n"));
	tool(args);
	cr_assert(strstr(out, ": 1 line, 1 recognised, 1 start"), "%s", out);
	snprintf(args, sizeof(args), "--format md %s", file("one.log", "[loadscope/2] start x | run=0000000a t_s=0\n"));
	tool(args);
	cr_assert(strstr(out, "\n1 line, 1 recognised, 1 start."), "%s", out);
	cr_assert_null(strstr(out, "1 lines"), "%s", out);
}
