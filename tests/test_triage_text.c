/*
 * The text renderer's own fields (tools/triage/render_text.c and the
 * counts line of render_common.c), which the golden files pin only for
 * the default options: colour (LSC_TRIAGE_COLOR, set by the CLI on a
 * terminal) wraps each severity tag in its own escape and nothing else,
 * so a coloured rendering with the escapes taken out is the plain one,
 * over every reviewed corpus log; the counts line's words in the singular
 * and plural (lines, starts, lines truncated over LSC_TRIAGE_LINE_MAX,
 * lines of invalid UTF-8), each counted from the input written here.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

static char *render(struct lsc_triage *t, enum lsc_triage_fmt fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	cr_assert(o);
	cr_assert_eq(lsc_triage_render(t, fmt, o), 0);
	fclose(o);
	return buf;
}

static char *render_log(const char *log, size_t len, unsigned flags)
{
	struct lsc_triage_opts o = {.flags = flags, .source = "x.log"};
	struct lsc_triage *t = trun_feed(log, len, len ? len : 1, 0, &o);
	cr_assert(t);
	char *s = render(t, LSC_TRIAGE_TEXT);
	lsc_triage_free(t);
	return s;
}

static const char *const tag[3] = {"[info]", "[warn]", "[fail]"};
static const char *const esc[3] = {"\x1b[32m", "\x1b[1;33m", "\x1b[1;31m"};
#define RESET "\x1b[0m"

/* Count the occurrences of @w in @s. */
static unsigned count(const char *s, const char *w)
{
	unsigned n = 0;
	for (const char *p = s; (p = strstr(p, w)); p += strlen(w))
		n++;
	return n;
}

/* @s with every "ESC[...m" taken out, in place. */
static void strip(char *s)
{
	char *w = s;
	for (char *r = s; *r;) {
		if (*r == '\x1b' && r[1] == '[') {
			char *m = strchr(r, 'm');
			cr_assert(m, "an escape without its end");
			r = m + 1;
			continue;
		}
		*w++ = *r++;
	}
	*w = 0;
}

/*
 * Over every reviewed log: the plain rendering has no escape at all; the
 * coloured one has each severity's tag in that severity's colour and
 * reset right after, as many of each as the plain one has tags, no escape
 * anywhere else, and is the plain one once the escapes are out.
 */
Test(text, colour_wraps_each_severity_tag_and_nothing_else)
{
	size_t n = 0;
	char **logs = trun_list_specd(LSC_TEST_CORPUS "/logs", LSC_TEST_CORPUS "/expected", &n);
	cr_assert(logs && n > 10, "no corpus");
	unsigned seen[3] = {0};
	for (size_t i = 0; i < n; i++) {
		size_t len = 0;
		char *log = trun_corpus_log(logs[i], &len);
		cr_assert(log, "%s", logs[i]);
		char *plain = render_log(log, len, 0);
		char *col = render_log(log, len, LSC_TRIAGE_COLOR);
		cr_expect(!strchr(plain, '\x1b'), "%s: an escape without colour", logs[i]);
		unsigned escapes = 0;
		for (int s = 0; s < 3; s++) {
			char want[32];
			snprintf(want, sizeof(want), "%s%s" RESET, esc[s], tag[s]);
			unsigned k = count(col, want);
			cr_expect_eq(k, count(plain, tag[s]), "%s: %u coloured %s of %u", logs[i], k, tag[s],
				     count(plain, tag[s]));
			seen[s] += k;
			escapes += 2 * k;
		}
		cr_expect_eq(count(col, "\x1b["), escapes, "%s: an escape that wraps no tag", logs[i]);
		strip(col);
		cr_expect_str_eq(col, plain, "%s", logs[i]);
		free(plain);
		free(col);
		free(log);
	}
	/* the corpus holds findings of each severity, so each colour was checked */
	for (int s = 0; s < 3; s++)
		cr_expect(seen[s] > 0, "no %s in the corpus", tag[s]);
	trun_names_free(logs, n);
}

/* The first line: lines, recognised, starts, each counted here. */
static void expect_counts(const char *log, size_t len, const char *want)
{
	char *s = render_log(log, len, 0);
	char *nl = strchr(s, '\n');
	cr_assert(nl);
	*nl = 0;
	cr_expect_str_eq(s, want);
	free(s);
}

Test(text, counts_in_the_singular_and_the_plural)
{
	const char one[] = "hello\n";
	expect_counts(one, sizeof(one) - 1, "loadscope triage: 1 line, 0 recognised, 0 starts");
	const char two[] = "[loadscope/1] start e | run=00000001\n"
			   "[loadscope/1] ready | run=00000001 wall_s=1.0\n";
	expect_counts(two, sizeof(two) - 1, "loadscope triage: 2 lines, 2 recognised, 1 start");
	const char four[] = "[loadscope/1] start e | run=00000001\n"
			    "[loadscope/1] ready | run=00000001 wall_s=1.0\n"
			    "[loadscope/1] start e | run=00000002\n"
			    "[loadscope/1] ready | run=00000002 wall_s=1.0\n";
	expect_counts(four, sizeof(four) - 1, "loadscope triage: 4 lines, 4 recognised, 2 starts");
}

/* Lines over LSC_TRIAGE_LINE_MAX are counted as truncated, one by one. */
Test(text, truncated_lines_counted)
{
	size_t big = LSC_TRIAGE_LINE_MAX + 10;
	char *log = malloc(2 * (big + 1) + 16);
	cr_assert(log);
	memset(log, 'a', big);
	log[big] = '\n';
	char want[160];
	snprintf(want, sizeof(want), "loadscope triage: 1 line, 0 recognised, 0 starts, 1 line over %u bytes truncated",
		 LSC_TRIAGE_LINE_MAX);
	expect_counts(log, big + 1, want);
	memset(log + big + 1, 'b', big);
	log[2 * big + 1] = '\n';
	snprintf(want, sizeof(want),
		 "loadscope triage: 2 lines, 0 recognised, 0 starts, 2 lines over %u bytes truncated",
		 LSC_TRIAGE_LINE_MAX);
	expect_counts(log, 2 * big + 2, want);
	/* a line of exactly LSC_TRIAGE_LINE_MAX bytes is whole */
	memset(log, 'a', LSC_TRIAGE_LINE_MAX);
	log[LSC_TRIAGE_LINE_MAX] = '\n';
	expect_counts(log, LSC_TRIAGE_LINE_MAX + 1, "loadscope triage: 1 line, 0 recognised, 0 starts");
	free(log);
}

Test(text, invalid_utf8_lines_counted)
{
	const char log[] = "ok\n\xff bad\nfine \xc3\xa9\n\xc3 cut\n";
	expect_counts(log, sizeof(log) - 1, "loadscope triage: 4 lines, 0 recognised, 0 starts, 2 with invalid UTF-8");
}

/* Nothing recognisable: said so, and no start is rendered. */
Test(text, nothing_recognisable)
{
	const char log[] = "just some words\n";
	char *s = render_log(log, sizeof(log) - 1, 0);
	cr_expect(strstr(s, "\nnothing recognisable: no loadscope, engine, strace or vmstat lines found\n"), "%s", s);
	cr_expect(!strstr(s, "start 0"), "%s", s);
	free(s);
}
