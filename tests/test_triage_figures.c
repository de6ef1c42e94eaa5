/*
 * Remedies and their figures agree with the pages that record them
 * (issue 23, item 5). Every measured figure a remedy prints lives in
 * tools/triage/remedy_figures.c with the page that records it and the
 * words that page uses; here each page is read and must still hold those
 * words (whitespace and line breaks aside), the remedy's text must carry
 * the page's number, and a real finding must print it. A page that
 * withdraws a figure fails this test until the remedy follows.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

#define REPO LSC_TEST_CORPUS "/../.."

/* @s with every run of whitespace made one space, in place */
static char *squeeze(char *s)
{
	char *w = s;
	int sp = 0;
	for (char *r = s; *r; r++) {
		if (*r == ' ' || *r == '\n' || *r == '\t' || *r == '\r') {
			if (!sp && w > s)
				*w++ = ' ';
			sp = 1;
		} else {
			*w++ = *r;
			sp = 0;
		}
	}
	*w = 0;
	return s;
}

/* The first figure in @q ("1.43x", "300.5 s", "78%"): its digits and point. */
static void first_number(const char *q, char *out, size_t cap)
{
	const char *p = q;
	while (*p && !(*p >= '0' && *p <= '9'))
		p++;
	size_t n = 0;
	while (p[n] && ((p[n] >= '0' && p[n] <= '9') || p[n] == '.') && n + 1 < cap)
		n++;
	memcpy(out, p, n);
	out[n] = 0;
}

Test(figures, every_figure_is_on_its_page)
{
	for (int i = 0; i < TR_FIG_N; i++) {
		const struct tr_figure *g = &tr_figures[i];
		cr_assert(g->page && g->quote && g->text && g->rule, "figure %d has no page, words, text or rule", i);
		char path[512];
		snprintf(path, sizeof path, REPO "/%s", g->page);
		char *page = trun_slurp(path, NULL);
		cr_assert(page, "figure %d: cannot read %s", i, path);
		char q[256];
		snprintf(q, sizeof q, "%s", g->quote);
		cr_expect(strstr(squeeze(page), squeeze(q)), "%s no longer says \"%s\" (figure %d, %s's remedy)", g->page,
			  g->quote, i, g->rule);
		char num[32];
		first_number(g->quote, num, sizeof num);
		cr_expect(num[0] && strstr(g->text, num), "figure %d: the remedy's text \"%s\" does not carry the page's %s",
			  i, g->text, num);
		free(page);
	}
}

/* The host-refault remedy prints the page's figure, never the withdrawn one. */
Test(figures, host_refault_remedy_prints_the_recorded_figure)
{
	char *log = trun_slurp(LSC_TEST_CORPUS "/logs/loadscope-host-refault-thp.log", NULL);
	cr_assert(log);
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	cr_assert(f);
	cr_assert(lsc_triage_render(t, LSC_TRIAGE_TEXT, f) == 0);
	fclose(f);
	cr_expect(strstr(out, "host-refault"), "the log gives host-refault");
	cr_expect(strstr(out, tr_fig(TR_FIG_REFAULT_4K)), "the remedy prints the recorded figure:\n%s", out);
	cr_expect(!strstr(out, "1.18x"), "the withdrawn 1.18x is printed:\n%s", out);
	free(out);
	free(log);
	lsc_triage_free(t);
}

/* The verdict's own findings that link to docs/triage.md have a heading
 * there (tr_f_fire adds the link). */
Test(figures, verdict_findings_have_their_headings)
{
	char *page = trun_slurp(REPO "/docs/triage.md", NULL);
	cr_assert(page);
	static const char *const ids[] = {"### slow-start\n", "### start-failed\n"};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		cr_expect(strstr(page, ids[i]), "docs/triage.md has no heading %s", ids[i]);
	free(page);
}
