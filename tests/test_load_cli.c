/*
 * Description: `loadscope load`, the main job, run as a program. It makes a
 * test file and prints its XXH3-64; loads it with the lines on stdout
 * (start, loaded, complement, ready) in human and JSON form; --expect with
 * the right hash exits 0 and with a wrong one exits 1 with an error line,
 * and on a model file (tensors) it is a usage line naming that file;
 * a missing file exits 1 with a line naming it; no file is a usage error
 * (64, docs/cli.md);
 * --pin-readonly with a backend that has no read-only flag is a note;
 * --html - is the page alone on stdout (the lines on stderr, no file named
 * "-"), and --html OUT says on stderr that it wrote OUT; --gib 0 is a usage
 * error, and --help gives every number's range.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/load_helpers.h"
#include "helpers/model_files.h"
#include "helpers/tool_run.h"

static char out[1 << 16];

static void need_tool(void)
{
	if (!LSC_TEST_TOOL[0])
		cr_skip_test("the loadscope program is not built (LOADSCOPE_BUILD_TOOLS=OFF)");
}

TestSuite(load_cli, .init = need_tool);

/* Run the shell command @cmd; its stdout into out[]; the exit status (-1
 * when it did not exit). */
static int run_cmd(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	cr_assert_not_null(f);
	size_t n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	int st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `loadscope load @args` with the verbose lines; stdout into out[]. */
static int run(const char *args)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "LOADSCOPE=verbose '%s' load %s 2>/dev/null", LSC_TEST_TOOL, args);
	return run_cmd(cmd);
}

/* `LOADSCOPE=@mode loadscope load @args`, stdout and stderr both into out[]. */
static int run_merged(const char *mode, const char *args)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "LOADSCOPE=%s '%s' load %s 2>&1", mode, LSC_TEST_TOOL, args);
	return run_cmd(cmd);
}

/* The parsed line of @event in out[] (human or JSON); 0 when absent. */
static int line_of(const char *event, char *buf, size_t cap, struct lsc__parsed *pl)
{
	for (char *s = out; *s;) {
		char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if (len < cap) {
			memcpy(buf, s, len);
			buf[len] = 0;
			if (lsc__line_parse(buf, len, pl) == 1 && !strcmp(pl->event, event))
				return 1;
		}
		s += len + (e ? 1 : 0);
	}
	return 0;
}

static char path[512];
static char hash[17];

static void make(void)
{
	snprintf(path, sizeof(path), "%s/cli.bin", lsct_tmpdir());
	char args[600];
	snprintf(args, sizeof(args), "--make-test-file '%s' --gib 0.01", path);
	cr_assert_eq(run(args), 0, "%s", out);
	const char *x = strstr(out, "xxh3=");
	cr_assert_not_null(x, "%s", out);
	memcpy(hash, x + 5, 16);
	hash[16] = 0;
	uint64_t len;
	free(lsct_read_file(path, &len));
	cr_assert_eq(len, (uint64_t)(0.01 * 1024 * 1024 * 1024));
	cr_assert_eq(strtoull(hash, NULL, 16), lsct_file_hash(path, 0, len), "printed hash is wrong");
}

Test(load_cli, make_and_load)
{
	make();
	char args[700], buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	snprintf(args, sizeof(args), "'%s'", path);
	cr_assert_eq(run(args), 0, "%s", out);
	cr_assert(line_of("start", buf, sizeof(buf), &pl), "%s", out);
	cr_assert(line_of("complement", buf, sizeof(buf), &pl), "%s", out);
	cr_assert(line_of("ready", buf, sizeof(buf), &pl), "%s", out);
	cr_assert(line_of("loaded", buf, sizeof(buf), &pl), "%s", out);
	int64_t v;
	cr_assert_eq(lsc__parsed_i64(&pl, "bytes", &v), 0);
	cr_assert_eq(v, (int64_t)(0.01 * 1024 * 1024 * 1024));
	/* counts of one are singular (the brief lines name no count of one
	 * file at all) */
	cr_assert_null(strstr(out, " 1 segments"), "%s", out);
	cr_assert_null(strstr(out, " 1 files"), "%s", out);
	cr_assert_null(strstr(out, " 1 extents"), "%s", out);

	snprintf(args, sizeof(args), "--format json --reader pread --staging 2x1 --qd 2 '%s'", path);
	cr_assert_eq(run(args), 0, "%s", out);
	cr_assert(line_of("loaded", buf, sizeof(buf), &pl), "%s", out);
	cr_assert_eq(pl.format, LSC_FORMAT_JSON);
	cr_assert_str_eq(lsc__parsed_get(&pl, "reader"), "pread");
	cr_assert_str_eq(lsc__parsed_get(&pl, "staging"), "2x1MiB");
}

Test(load_cli, expect)
{
	make();
	char args[700], buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	snprintf(args, sizeof(args), "--expect %s '%s'", hash, path);
	cr_assert_eq(run(args), 0, "%s", out);
	cr_assert(strstr(out, "matches --expect"), "%s", out);
	char wrong[17];
	memcpy(wrong, hash, 17);
	wrong[15] = wrong[15] == '0' ? '1' : '0';
	snprintf(args, sizeof(args), "--expect %s '%s'", wrong, path);
	cr_assert_eq(run(args), 1, "%s", out);
	cr_assert(line_of("error", buf, sizeof(buf), &pl), "%s", out);
	cr_assert_str_eq(lsc__parsed_get(&pl, "err"), "LSC_E_HASH");
	cr_assert(strstr(pl.human, wrong), "%s", pl.human);
	cr_assert(!line_of("ready", buf, sizeof(buf), &pl), "ready after a failed load");
}

Test(load_cli, bad_input_and_usage)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert_eq(run("/nonexistent/loadscope.bin"), 1, "%s", out);
	cr_assert(line_of("error", buf, sizeof(buf), &pl), "%s", out);
	cr_assert_str_eq(lsc__parsed_get(&pl, "path"), "/nonexistent/loadscope.bin");
	cr_assert_str_eq(lsc__parsed_get(&pl, "err"), "ENOENT");
	cr_assert_eq(run(""), 64);
	cr_assert_eq(run("--qd 0 x"), 64);
	cr_assert_eq(run("--staging 4 x"), 64);
	cr_assert_eq(run("--expect 123 x"), 64);
	/* 16 characters that strtoull would take: a sign, a 0x, a space */
	cr_assert_eq(run("--expect -123456789abcdef x"), 64);
	cr_assert_eq(run("--expect 0x123456789abcde x"), 64);
	cr_assert_eq(run("--expect ' 123456789abcdef' x"), 64);
	cr_assert_eq(run("--thp sometimes x"), 64);
	cr_assert_eq(run("--help"), 0);
	cr_assert(strstr(out, "stdout"), "--help should say where lines go");
	cr_assert(strstr(out, "--pin-readonly"), "--help should list --pin-readonly");
}

/* With the lines off (LOADSCOPE=off) the program says nothing on success
 * and, on a failure, one line of its own that names the error, since no
 * error line of the library's will: an engine's user still learns why. */
Test(load_cli, lines_off_quiet_on_success_one_line_on_failure)
{
	make();
	char args[600];
	snprintf(args, sizeof(args), "'%s'", path);
	int st = run_merged("off", args);
	cr_assert_eq(st, 0, "status %d: %s", st, out);
	cr_assert_eq(out[0], 0, "a load with the lines off printed: %s", out);

	st = run_merged("off", "/nonexistent/loadscope.bin");
	cr_assert_eq(st, 1, "status %d: %s", st, out);
	cr_assert(!strncmp(out, "loadscope load: ", 16), "%s", out);
	cr_assert(strstr(out, "No such file") || strstr(out, "ENOENT") || strstr(out, "not found"), "%s", out);
	char *nl = strchr(out, '\n');
	cr_assert(nl && nl[1] == 0, "one line, got: %s", out);
}

/* --expect is the hash of one whole file: given a model file (tensors),
 * the usage line names that file, so the user sees which input it meant. */
Test(load_cli, expect_on_a_model_file_names_the_file)
{
	const char hdr[] = "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}";
	unsigned char bytes[8 + sizeof(hdr) - 1 + 16] = {0};
	bytes[0] = (unsigned char)(sizeof(hdr) - 1);
	memcpy(bytes + 8, hdr, sizeof(hdr) - 1);
	char *model = lsct_write("expect.safetensors", bytes, sizeof(bytes));
	char args[700];
	snprintf(args, sizeof(args), "--expect 0123456789abcdef '%s'", model);
	int st = run_merged("on", args);
	cr_assert_eq(st, 64, "status %d: %s", st, out);
	char want[600];
	snprintf(want, sizeof(want), "--expect is the hash of a whole file; %s holds tensors", model);
	cr_assert(strstr(out, want), "%s", out);
	free(model);
}

Test(load_cli, pin_readonly_without_the_flag_is_a_note)
{
	make();
	char args[700];
	snprintf(args, sizeof(args), "--pin mlock --pin-readonly '%s'", path);
	cr_assert_eq(run(args), 0, "%s", out);
	/* mlock, or none under a low memlock limit: neither has the flag. */
	cr_assert(strstr(out, "has no read-only flag: ignored") && strstr(out, "readonly=ignored"),
		  "%s", out);
	snprintf(args, sizeof(args), "--pin mlock '%s'", path);
	cr_assert_eq(run(args), 0, "%s", out);
	cr_assert_null(strstr(out, "readonly="), "%s", out);
}

/* --html - is stdout, as `triage --html -`: the page alone there, the lines
 * on stderr, and no file named "-" in the current directory. A page written
 * to a file is one line on stderr. */
Test(load_cli, html_dash_is_stdout)
{
	static char o[1 << 18], e[1 << 16];
	make();
	cr_assert_eq(chdir(lsct_tmpdir()), 0);
	int rc = lsct_tool(o, sizeof o, e, sizeof e, "load '%s' --html -", path);
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e);
	cr_assert_eq(strncmp(o, "<!DOCTYPE html>", 15), 0, "the page, alone, on stdout: %.200s", o);
	cr_assert_null(strstr(o, "[loadscope/"), "no line in the page's stream");
	cr_assert(strstr(e, "[loadscope/2] loaded "), "the lines on stderr: %s", e);
	cr_assert_neq(access("-", F_OK), 0, "a file named '-' was written");

	char page[600];
	snprintf(page, sizeof page, "%s/p.html", lsct_tmpdir());
	rc = lsct_tool(o, sizeof o, e, sizeof e, "load '%s' --html '%s'", path, page);
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e);
	cr_assert(strstr(o, "[loadscope/2] loaded "), "the lines on stdout: %s", o);
	uint64_t len;
	free(lsct_read_file(page, &len));
	char want[700];
	snprintf(want, sizeof want, "loadscope load: --html: wrote %s (%llu bytes)\n", page,
		 (unsigned long long)len);
	cr_assert(strstr(e, want), "want '%s' in: %s", want, e);
}

/* A test file of 0 bytes is refused; each number's range is in --help. */
Test(load_cli, gib_and_ranges)
{
	char p0[600];
	snprintf(p0, sizeof p0, "%s/zero.bin", lsct_tmpdir());
	char args[700];
	snprintf(args, sizeof args, "--make-test-file '%s' --gib 0", p0);
	cr_assert_eq(run(args), 64, "%s", out);
	cr_assert_neq(access(p0, F_OK), 0, "--gib 0 made a file");
	cr_assert_eq(run("--help"), 0);
	const char *const want[] = {"--chunk-gib N", "pieces of N GiB (above 0, at most\n", "--qd Q",
				    "depth, 1 to 4096)", "--threads T", "(1 to 1024;", "--device N",
				    "GPU N (0 to 1023)", "in GiB (above 0, at most 1024;"};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		cr_assert(strstr(out, want[i]), "--help lacks '%s':\n%s", want[i], out);
	cr_assert_eq(run("--chunk-gib 0 x"), 64);
	cr_assert_eq(run("--chunk-gib 1025 x"), 64);
}

/* --chunk-gib is fractional, as pintest's: 4 MiB pieces of the 10.24 MiB
 * test file's 4 KiB arena are ceil(10.24 / 4) = 3. */
Test(load_cli, chunk_gib_fractional)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	make();
	char args[700];
	snprintf(args, sizeof args, "--thp 4k --chunk-gib 0.00390625 '%s'", path);
	cr_assert_eq(run(args), 0, "%s", out);
	cr_assert(line_of("arena", buf, sizeof(buf), &pl), "%s", out);
	cr_assert_str_eq(lsc__parsed_get(&pl, "pieces"), "3", "%s", out);
	cr_assert_str_eq(lsc__parsed_get(&pl, "piece_bytes"), "4194304", "%s", out);
}

/* A test file that cannot be written (/dev/full: ENOSPC at the first
 * write) is an I/O error, exit 4, and releases what it took (the sanitizer
 * build's leak check sees the hash state and the buffer). */
Test(load_cli, a_test_file_that_cannot_be_written)
{
	if (access("/dev/full", W_OK) != 0)
		cr_skip("SKIPPED: no writable /dev/full here");
	cr_assert_eq(run("--make-test-file /dev/full --gib 0.01"), 4, "%s", out);
}

/* ... and one that cannot be opened (its folder does not exist): the same
 * exit 4, the one line naming the path and the reason, nothing made. */
Test(load_cli, a_test_file_that_cannot_be_opened)
{
	static char o[4096], e[4096];
	cr_assert_eq(lsct_tool(o, sizeof o, e, sizeof e, "load --make-test-file /nonexistent-lsc-dir/t.bin --gib 0.01"),
		     4, "%s", e);
	cr_assert_str_eq(e, "loadscope load: --make-test-file /nonexistent-lsc-dir/t.bin: No such file or directory\n");
	cr_assert_str_eq(o, "");
}

/* A page that cannot be written fails the run (exit 4) after a load that
 * went right, with one line naming it; the load's own lines still come. */
Test(load_cli, html_that_cannot_be_written_is_exit_4)
{
	static char o[1 << 15], e[4096];
	const char *f = lsct_make_file("html.bin", 1u << 20, 7);
	int rc = lsct_tool(o, sizeof o, e, sizeof e, "load --html /nonexistent-lsc-dir/p.html '%s'", f);
	cr_assert_eq(rc, 4, "%s", e);
	cr_assert(strstr(e, "loadscope load: --html /nonexistent-lsc-dir/p.html: No such file or directory\n"), "%s", e);
	cr_assert(strstr(o, "] loaded "), "the load's lines: %s", o);
	if (access("/dev/full", W_OK) != 0)
		cr_skip_test("no writable /dev/full here: the write failure is not tried");
	rc = lsct_tool(o, sizeof o, e, sizeof e, "load --html /dev/full '%s'", f);
	cr_assert_eq(rc, 4, "%s", e);
	cr_assert(strstr(e, "loadscope load: --html /dev/full: write failed\n"), "%s", e);
}

/* Each option reaches the load: --reader names the reader the loaded line
 * says it used, --format the form of every line; a value the option does
 * not take is a usage error (64) whatever the rest of the command. */
Test(load_cli, each_option_reaches_the_load)
{
	make();
	char args[1400], buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	snprintf(args, sizeof(args), "--reader pread '%s'", path);
	cr_assert_eq(run(args), 0, "%s", out);
	cr_assert(line_of("loaded", buf, sizeof(buf), &pl), "%s", out);
	cr_expect_str_eq(lsc__parsed_get(&pl, "reader"), "pread");
	snprintf(args, sizeof(args), "--format json '%s'", path);
	cr_assert_eq(run(args), 0, "%s", out);
	cr_expect_eq(out[0], '{', "%s", out);
	cr_assert(line_of("loaded", buf, sizeof(buf), &pl), "%s", out);
	cr_expect_eq(pl.format, LSC_FORMAT_JSON);
	snprintf(args, sizeof(args), "--format human '%s'", path);
	cr_assert_eq(run(args), 0, "%s", out);
	cr_assert(line_of("loaded", buf, sizeof(buf), &pl), "%s", out);
	cr_expect_eq(pl.format, LSC_FORMAT_HUMAN);
	cr_expect(!strncmp(out, "[loadscope/", 11), "%s", out);
	static const char *const bad[] = {"--reader mmap", "--reader ''", "--format xml", "--format JSONL",
					  "--threads 0",   "--threads 1025", "--device 1024"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(args, sizeof(args), "%s '%s'", bad[i], path);
		cr_expect_eq(run(args), 64, "%s: %s", bad[i], out);
	}
	snprintf(args, sizeof(args), "--threads 1024 --reader auto '%s'", path);
	cr_expect_eq(run(args), 0, "%s", out);
	/* the last device number taken is 1023 (whether it exists is the
	 * device's question, not the command line's) */
	snprintf(args, sizeof(args), "--device 1023 '%s'", path);
	cr_expect_neq(run(args), 64, "%s", out);
	/* --expect is one file's hash */
	snprintf(args, sizeof(args), "--expect %s '%s' '%s'", hash, path, path);
	cr_expect_eq(run(args), 64, "%s", out);
}
