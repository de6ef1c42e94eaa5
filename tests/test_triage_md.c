/*
 * The Markdown renderer's findings table (tools/triage/render_md.c), as a
 * property over every reviewed corpus log: one row per finding, in the
 * findings' order, each with its start, its severity (a fail in bold),
 * its id in backticks, its first line, and exactly the six unescaped bars
 * of five cells, so that a summary's own '|' is escaped and never splits
 * a row (a '<' is written as &lt;, so no tag opens in an issue). And the
 * counts sentence in the singular and the plural, and the sentence for an
 * input with nothing recognisable.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/triage_run.h"

static char *render(struct lsc_triage *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	cr_assert(o);
	cr_assert_eq(lsc_triage_render(t, LSC_TRIAGE_MD, o), 0);
	fclose(o);
	return buf;
}

/* The bars of @line not escaped by a backslash. */
static unsigned bars(const char *line, size_t n)
{
	unsigned k = 0;
	for (size_t i = 0; i < n; i++)
		k += line[i] == '|' && !(i && line[i - 1] == '\\');
	return k;
}

#define HEAD "| start | severity | finding | summary | line |\n|---:|---|---|---|---:|\n"

static void check_table(struct lsc_triage *t, const char *name)
{
	char *md = render(t);
	const char *p = strstr(md, HEAD);
	size_t nf = lsc_triage_nfindings(t);
	if (!nf || !lsc_triage_nrecognised(t)) {
		free(md);
		return;
	}
	cr_assert(p, "%s: no findings table in:\n%s", name, md);
	p += strlen(HEAD);
	for (size_t i = 0; i < nf && i < 500; i++) {
		struct lsc_triage_finding_info f;
		cr_assert_eq(lsc_triage_finding(t, i, &f), 0);
		const char *nl = strchr(p, '\n');
		cr_assert(nl, "%s: row %zu missing", name, i);
		size_t n = (size_t)(nl - p);
		cr_expect_eq(bars(p, n), 6, "%s: row %zu: %.*s", name, i, (int)n, p);
		char want[96];
		snprintf(want, sizeof(want), "| %u | %s | `%s` | ", f.start,
			 f.severity == LSC_TRIAGE_FAIL ? "**fail**" : f.severity == LSC_TRIAGE_WARN ? "warn" : "info", f.id);
		cr_expect(!strncmp(p, want, strlen(want)), "%s: row %zu is \"%.*s\", wanted it to open \"%s\"", name, i,
			  (int)n, p, want);
		char tail[40];
		snprintf(tail, sizeof(tail), " | %lu |", f.first_line);
		cr_expect(n >= strlen(tail) && !strncmp(nl - strlen(tail), tail, strlen(tail)), "%s: row %zu: %.*s", name,
			  i, (int)n, p);
		cr_expect(!memchr(p, '<', n), "%s: row %zu: a '<' unescaped: %.*s", name, i, (int)n, p);
		p = nl + 1;
	}
	cr_expect(*p == '\n' || *p == 0, "%s: a row past the findings: %.60s", name, p);
	free(md);
}

Test(md, one_row_per_finding_over_the_corpus)
{
	size_t n = 0;
	char **logs = trun_list_specd(LSC_TEST_CORPUS "/logs", LSC_TEST_CORPUS "/expected", &n);
	cr_assert(logs && n > 10, "no corpus");
	for (size_t i = 0; i < n; i++) {
		size_t len = 0;
		char *log = trun_corpus_log(logs[i], &len);
		cr_assert(log, "%s", logs[i]);
		struct lsc_triage *t = trun_feed(log, len, len ? len : 1, 0, NULL);
		cr_assert(t);
		check_table(t, logs[i]);
		lsc_triage_free(t);
		free(log);
	}
	trun_names_free(logs, n);
}

/* A summary that quotes a line's '|' and '<' (pinned-alloc-failed's reason
 * is the line's tail): escaped in the cell, the row still five cells. */
Test(md, a_bar_and_a_tag_in_a_summary_are_escaped)
{
	struct lsc_triage *t = trun_text("llama_model_load: loading model from /m/x.gguf\n"
					 "failed to register 2.50 GiB of pinned memory: code a|b <x>\n");
	cr_assert(t);
	char *md = render(t);
	cr_expect(strstr(md, "was refused (code a\\|b &lt;x>)"), "%s", md);
	free(md);
	check_table(t, "a|b");
	lsc_triage_free(t);
}

static void expect_counts(const char *log, const char *want)
{
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	char *md = render(t);
	cr_expect(!strncmp(md, want, strlen(want)), "wanted \"%s\" in:\n%s", want, md);
	free(md);
	lsc_triage_free(t);
}

Test(md, counts_in_the_singular_and_the_plural)
{
	expect_counts("hello\n", "### loadscope triage\n\n1 line, 0 recognised, 0 starts.\n\n"
				 "Nothing recognisable in the input.\n");
	expect_counts("[loadscope/1] start e | run=00000001\n"
		      "[loadscope/1] ready | run=00000001 wall_s=1.0\n",
		      "### loadscope triage\n\n2 lines, 2 recognised, 1 start.\n\n" HEAD);
	expect_counts("[loadscope/1] start e | run=00000001\n"
		      "[loadscope/1] ready | run=00000001 wall_s=1.0\n"
		      "[loadscope/1] start e | run=00000002\n"
		      "[loadscope/1] ready | run=00000002 wall_s=1.0\n",
		      "### loadscope triage\n\n4 lines, 4 recognised, 2 starts.\n\n" HEAD);
}
