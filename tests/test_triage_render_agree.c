/*
 * Description: every format says the same of each start. Over every
 * corpus log, the triage's own summary of each start (its index, family,
 * input, first and last line, run id, outcome and speed) is what the text
 * report's start heading, the JSON report's start object and the HTML
 * page's start heading each print, written out here from the summary in
 * each format's words; and each format has as many starts as the summary;
 * each finding's arithmetic and remedies, in order, in the text and on
 * the page (escaped here as the page escapes); each start's section of
 * the page holds its own findings, in their order, and its rules not
 * evaluated, and no other start's.
 * A renderer that drops or swaps one of them (a line range without its
 * end, the run id of another start) fails on the logs that have it.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

static unsigned count(const char *s, const char *needle)
{
	unsigned n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* A summary's words need no escape in any format (the corpus's do). */
static int plain(const char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || *s == '<' || *s == '>' || *s == '&' || *s == '\'' ||
		    (unsigned char)*s < 0x20 || (unsigned char)*s >= 0x80)
			return 0;
	return 1;
}

/* @s as the page writes text: & < > " ' as entities (ASCII text only). */
static void html_of(const char *s, char *out, size_t cap)
{
	size_t n = 0;
	for (; *s && n + 7 < cap; s++) {
		const char *e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '"' ? "&quot;"
			      : *s == '\'' ? "&#39;" : NULL;
		if (e) {
			memcpy(out + n, e, strlen(e));
			n += strlen(e);
		} else {
			out[n++] = *s;
		}
	}
	out[n] = 0;
}

static int ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

/* Each finding's arithmetic and remedies, in order, in the text report
 * and on the page (the page shows the first 32 findings of a start). */
static unsigned phase_rows;

static void check_findings(const char *name, struct lsc_triage *t, const char *text, const char *html,
			   unsigned *items)
{
	unsigned shown[1024] = {0};
	for (size_t i = 0; i < t->nfull; i++) {
		const struct tr_finding *f = &t->full[i];
		if (f->lite)
			continue;
		int on_page = f->start < 1024 && shown[f->start]++ < 32;
		for (unsigned k = 0; k < f->nmath + f->nrem; k++) {
			const char *x = k < f->nmath ? f->math[k] : f->rem[k - f->nmath];
			if (!ascii(x))
				continue;
			char want[7 * TR_F_TXT + 64];
			if (k < f->nmath)
				snprintf(want, sizeof want, "      = %s\n", x);
			else
				snprintf(want, sizeof want, "      %u. %s\n", k - f->nmath + 1, x);
			cr_expect(strstr(text, want), "%s: %s's text lacks \"%s\"", name, f->id, want);
			if (on_page) {
				char e[6 * TR_F_TXT];
				html_of(x, e, sizeof e);
				snprintf(want, sizeof want, "<li>%s</li>", e);
				cr_expect(strstr(html, want), "%s: %s's page lacks %s", name, f->id, want);
			}
			(*items)++;
		}
	}
}

/* The page's phase tables: no cell prints a NaN or an infinity, a row
 * without its GiB or its time has no rate, and a row's rate is its GiB
 * over its time, as printed (to their rounding). */
static void check_phase_rows(const char *name, const char *html, unsigned *rows)
{
	cr_expect_null(strstr(html, "nan</td>"), "%s: a cell says nan", name);
	cr_expect_null(strstr(html, "inf</td>"), "%s: a cell says inf", name);
	for (const char *r = html; (r = strstr(r, "<tr data-phase=\"")); r++) {
		const char *c = strstr(r, "</th>"), *e = strstr(r, "</tr>");
		if (!c || !e)
			break;
		double v[4];
		int na[4];
		for (int i = 0; i < 4; i++) {
			c = strstr(c, "<td");
			cr_assert(c && c < e, "%s: a phase row without its four cells", name);
			na[i] = !strncmp(c, "<td class=\"na\">-</td>", 21);
			v[i] = na[i] ? 0 : strtod(strchr(c, '>') + 1, NULL);
			c += 3;
		}
		cr_expect(!(na[2] || na[0]) || na[3], "%s: a rate without its GiB or time", name);
		cr_expect(na[3] || v[0] >= 0, "%s: a rate over a time below 0", name);
		if (!na[3] && v[0] > 0.01)
			cr_expect(fabs(v[3] - v[2] / v[0]) <= 0.005 + (v[2] + 0.005) / (v[0] - 0.0005) - v[2] / v[0] + 1e-9,
				  "%s: rate %.2f for %.2f GiB in %.3f s", name, v[3], v[2], v[0]);
		(*rows)++;
	}
}

/* Each start's section of the page holds that start's findings and no
 * other start's: the first 32 of them kept whole, in the order the
 * triage ranked them, then a count of the rest; and a line per rule not
 * evaluated for it, with the rule's id and what it missed. */
static unsigned sections_checked;

static void check_sections(const char *name, struct lsc_triage *t, const char *html)
{
	for (size_t i = 0; i < t->nsums; i++) {
		const struct tr_startsum *m = &t->sums[i];
		char want[7 * TR_F_TXT + 128];
		snprintf(want, sizeof want, "<section class=\"start\" id=\"start-%u\"", m->idx);
		const char *sec = strstr(html, want), *end = sec ? strstr(sec, "</section>") : NULL;
		if (!sec || !end)
			continue; /* check() says so */
		const char *at = sec;
		unsigned shown = 0, more = 0;
		for (size_t k = 0; k < t->nlite; k++) {
			const struct tr_lite *x = &t->lite[k];
			if (x->start != m->idx)
				continue;
			if (x->full < 0 || shown >= 32) {
				more++;
				continue;
			}
			snprintf(want, sizeof want, "<div class=\"finding s-%s\" data-id=\"%s\"", tr_sev_name(x->sev), x->id);
			const char *f = strstr(at, want);
			cr_expect(f && f < end, "%s: start %u's section lacks its finding %s (number %u)", name, m->idx,
				  x->id, shown);
			if (f && f < end)
				at = f + 1;
			shown++;
		}
		unsigned divs = 0;
		for (const char *d = sec; (d = strstr(d, "<div class=\"finding ")) && d < end; d++)
			divs++;
		cr_expect_eq(divs, shown, "%s: start %u's section shows %u findings, want %u", name, m->idx, divs,
			     shown);
		if (more) {
			snprintf(want, sizeof want, "<p class=\"more\">%u more findings of this start not shown", more);
			const char *p = strstr(sec, want);
			cr_expect(p && p < end, "%s: start %u lacks \"%s\"", name, m->idx, want);
		}
		for (unsigned k = 0; k < m->nnoteval; k++) {
			if (!ascii(m->noteval[k].text))
				continue;
			char e[6 * TR_F_TXT];
			html_of(m->noteval[k].text, e, sizeof e);
			snprintf(want, sizeof want, "<p class=\"miss\">Not evaluated: %s: missing %s</p>", m->noteval[k].id, e);
			const char *p = strstr(sec, want);
			cr_expect(p && p < end, "%s: start %u lacks %s", name, m->idx, want);
		}
		sections_checked++;
	}
}

static void check(const char *name, struct lsc_triage *t, unsigned *starts, unsigned *runs, unsigned *items)
{
	size_t nt, nj, nh;
	char *text = trun_render(t, LSC_TRIAGE_TEXT, &nt), *json = trun_render(t, LSC_TRIAGE_JSON, &nj),
	     *html = trun_render(t, (enum lsc_triage_fmt)TRUN_HTML, &nh);
	cr_assert(text && json && html, "%s: a format rendered nothing", name);
	cr_expect_eq(count(json, "{\"index\":"), t->nsums, "%s: JSON starts", name);
	cr_expect_eq(count(html, "<section class=\"start\" id=\"start-"), t->nsums, "%s: page starts", name);
	for (size_t i = 0; i < t->nsums; i++) {
		const struct tr_startsum *m = &t->sums[i];
		const char *src = tr_src_name(t, m->src);
		if (!plain(m->family) || !plain(src) || !plain(m->run))
			continue;
		(*starts)++;
		*runs += m->run[0] != 0;
		char want[512];
		snprintf(want, sizeof want, "\nstart %u: %s, %s lines %lu-%lu%s%s\n", m->idx, m->family, src,
			 m->first_line, m->last_line, m->run[0] ? ", run " : "", m->run);
		cr_expect(strstr(text, want), "%s: the text lacks \"%s\"", name, want + 1);
		char run[48];
		snprintf(run, sizeof run, m->run[0] ? "\"%s\"" : "null", m->run);
		snprintf(want, sizeof want,
			 "{\"index\":%u,\"family\":\"%s\",\"source\":\"%s\",\"first_line\":%lu,\"last_line\":%lu,"
			 "\"run\":%s,\"outcome\":\"%s\",\"speed\":\"%s\"",
			 m->idx, m->family, src, m->first_line, m->last_line, run, tr_outcome_name(m->outcome),
			 tr_speed_name(m->speed));
		cr_expect(strstr(json, want), "%s: the JSON lacks %s", name, want);
		snprintf(want, sizeof want, "<section class=\"start\" id=\"start-%u\" data-start=\"%u\"", m->idx, m->idx);
		const char *sec = strstr(html, want);
		cr_expect(sec, "%s: the page lacks %s", name, want);
		if (!sec)
			continue;
		snprintf(want, sizeof want, "<span class=\"sub\">%s, %s lines %lu-%lu%s%s</span></h2>", m->family, src,
			 m->first_line, m->last_line, m->run[0] ? ", run " : "", m->run);
		const char *h2 = strstr(sec, "</h2>");
		const char *got = strstr(sec, want);
		cr_expect(got && h2 && got < h2 + 5, "%s: start %u's heading lacks \"%s\"", name, m->idx, want);
	}
	check_findings(name, t, text, html, items);
	check_sections(name, t, html);
	check_phase_rows(name, html, &phase_rows);
	free(text);
	free(json);
	free(html);
}

Test(triage_render_agree, every_format_names_each_start_alike)
{
	size_t nlogs;
	char **logs = trun_list(LSC_TEST_CORPUS "/logs", ".log", &nlogs);
	cr_assert_gt(nlogs, 10);
	unsigned starts = 0, runs = 0, items = 0;
	for (size_t i = 0; i < nlogs; i++) {
		size_t n;
		char *log = trun_corpus_log(logs[i], &n);
		cr_assert_not_null(log);
		struct lsc_triage *t = trun_feed(log, n, n + 1, 11 + i, NULL);
		cr_assert_not_null(t);
		check(logs[i], t, &starts, &runs, &items);
		lsc_triage_free(t);
		free(log);
	}
	trun_names_free(logs, nlogs);
	/* not a property of nothing: the corpus has starts, with and without run ids */
	cr_expect_gt(starts, 250, "%u starts", starts);
	cr_expect_gt(runs, 20, "%u starts with a run id", runs);
	cr_expect_gt(items, 500, "%u lines of arithmetic and remedies", items);
	cr_expect_gt(phase_rows, 100, "%u rows of the pages' phase tables", phase_rows);
	cr_expect_gt(sections_checked, 250, "%u starts' sections", sections_checked);
}
