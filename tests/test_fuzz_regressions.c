/*
 * Every input the fuzzers ever crashed on (fuzz/crashes/, kept forever) is
 * replayed on every build, fuzzer or not, through both fuzz targets' paths:
 * the streaming triage in several chunkings with every output format, and
 * lsc__line_parse on each line. Under the sanitizer build a regression is an
 * ASan/UBSan report; in the normal build, a crash.
 *
 * The same replay runs over a few hand-made hostile inputs too (a line over
 * 1 MiB, invalid UTF-8, NUL bytes, lone CRs, deep fences and quotes, a tag
 * followed by garbage), so the test exercises those paths even while
 * fuzz/crashes/ is empty.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/line.h"
#include "helpers/triage_run.h"

#define CRASHES LSC_TEST_CORPUS "/../../fuzz/crashes"

static void replay(const char *what, const char *buf, size_t len)
{
	static const size_t chunks[] = {1, 7, 4096, 0 /* random */, (size_t)-1 /* whole */};
	FILE *null = fopen("/dev/null", "w");
	cr_assert(null);
	for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
		size_t ch = chunks[c] == (size_t)-1 ? (len ? len : 1) : chunks[c];
		if (ch == 1 && len > (1u << 16))
			continue; /* byte-at-a-time over a megabyte only repeats the 7-byte run, slowly */
		struct lsc_triage_opts o = {.flags = LSC_TRIAGE_TABLE | LSC_TRIAGE_REDACT, .source = what};
		struct lsc_triage *t = trun_feed(buf, len, ch, 0xf022 + c, &o);
		cr_assert(t, "%s: no triage", what);
		for (int f = LSC_TRIAGE_TEXT; f <= LSC_TRIAGE_MD; f++)
			cr_expect(lsc_triage_render(t, (enum lsc_triage_fmt)f, null) == 0, "%s: render %d failed",
				  what, f);
		int ex = lsc_triage_exit_code(t);
		cr_expect(ex >= 0 && ex <= 3, "%s: exit code %d", what, ex);
		lsc_triage_free(t);
	}
	fclose(null);

	/* the grammar's parser on each line, in a writable copy with one spare byte */
	const char *p = buf, *end = buf + len;
	while (p <= end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = malloc(n + 1);
		cr_assert(line);
		memcpy(line, p, n);
		line[n] = '\0';
		struct lsc__parsed *pr = malloc(sizeof *pr);
		cr_assert(pr);
		int rc = lsc__line_parse(line, n, pr);
		cr_expect(rc == 1 || rc == 0 || rc == -EINVAL, "%s: lsc__line_parse returned %d", what, rc);
		free(pr);
		free(line);
		if (!nl)
			break;
		p = nl + 1;
	}
}

Test(fuzz_regressions, every_kept_crash_input_replays_cleanly)
{
	size_t n;
	char **names = trun_list(CRASHES, "", &n);
	cr_assert(names, "cannot list %s", CRASHES);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(names[i], "README.md") == 0)
			continue;
		char path[1024];
		size_t len;
		snprintf(path, sizeof path, CRASHES "/%s", names[i]);
		char *buf = trun_slurp(path, &len);
		cr_assert(buf, "cannot read %s", path);
		replay(names[i], buf, len);
		free(buf);
	}
	trun_names_free(names, n);
}

Test(fuzz_regressions, hostile_inputs_replay_cleanly)
{
	/* a line over LSC_TRIAGE_LINE_MAX, with a tag at its start and its end */
	size_t big = LSC_TRIAGE_LINE_MAX + 4096;
	char *b = malloc(big + 64);
	cr_assert(b);
	memset(b, 'x', big);
	memcpy(b, "[loadscope/1] phase ", 20);
	memcpy(b + big - 40, " | wall_s=1.5 [loadscope/1] ready | wall_", 40);
	b[big] = '\n';
	replay("long-line", b, big + 1);
	free(b);

	static const char utf8[] = "strata generate: loaded 39.97 GiB at \xff\xfe 2.86 GiB/s \xe2\x96\n"
				   "\xc0\xaf\xed\xa0\x80 still starting (\xf0\x9f\x98 8 s)\n";
	replay("bad-utf8", utf8, sizeof utf8 - 1);

	static const char nul[] = "[loadscope/1] start \0 | run=1\0\0 pid=3\n\0\0\0\n{\"loadscope\":1,\"event\":\"\0\"}\n";
	replay("nul-bytes", nul, sizeof nul - 1);

	static const char cr[] = "\r\r\r[loadscope/1] ready ready in 1 s\r| wall_s=1\r\r\n\r";
	replay("lone-cr", cr, sizeof cr - 1);

	/* deep nesting of everything the cleaner peels */
	char deep[8192];
	size_t o = 0;
	for (int i = 0; i < 200 && o < sizeof deep - 64; i++)
		o += (size_t)snprintf(deep + o, sizeof deep - o, "> ");
	for (int i = 0; i < 100 && o < sizeof deep - 64; i++)
		o += (size_t)snprintf(deep + o, sizeof deep - o, "(W%d pid=%d) ", i, i);
	o += (size_t)snprintf(deep + o, sizeof deep - o, "**1.0 s** ```\n````\n<details>\n");
	replay("deep-nesting", deep, o);

	static const char tags[] = "[loadscope/\n[loadscope/1]\n[loadscope/99999999999999999999] x | a=\"\\\n"
				   "[loadscope/1] phase | =1 ==2 a=\"unterminated\n{\"loadscope\":1,\"event\":\n"
				   "{\"loadscope\":-1e999,\"event\":\"phase\",\"wall_s\":1e308,\"bytes\":-0}\n"
				   "[loadscope/1] ready | wall_s=nan unattributed_s=-inf covered_s=1e400\n";
	replay("tag-garbage", tags, sizeof tags - 1);

	static const char numbers[] = "done allocating 1e308 GiB in 0 ms\nloaded 0 GiB at 0 GiB/s\n"
				      "Loading weights took -1 seconds\nstill starting (99999999999999999999 s)\n"
				      "compact_stall +99999999999999999999\ncompact_fail +-3\n";
	replay("extreme-numbers", numbers, sizeof numbers - 1);
}
