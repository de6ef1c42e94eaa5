/*
 * Description: what a finding quotes is its own start's. Over every corpus
 * log, fed whole and in pieces of 1..4096 bytes: every line a finding
 * quotes lies within its start's first and last lines and the same input,
 * is a line the log has (1 to its count of lines), and is quoted with text;
 * no finding quotes a line twice. A restart reuses a start's storage, so a
 * count or an index left over from the start before would quote a line of
 * another start (or line 0).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

static unsigned long lines_of(const char *s, size_t n)
{
	unsigned long c = 0;
	for (size_t i = 0; i < n; i++)
		c += s[i] == '\n';
	return c + (n && s[n - 1] != '\n');
}

static void check(const char *name, struct lsc_triage *t, unsigned long nlines, unsigned *quotes)
{
	for (size_t i = 0; i < t->nfull; i++) {
		const struct tr_finding *f = &t->full[i];
		const struct tr_startsum *m = NULL;
		for (size_t k = 0; k < t->nsums; k++)
			if (t->sums[k].idx == f->start)
				m = &t->sums[k];
		cr_assert_not_null(m, "%s: %s of start %u, which has no summary", name, f->id, f->start);
		for (unsigned e = 0; e < f->nev; e++) {
			const struct tr_evid *v = &f->ev[e];
			(*quotes)++;
			cr_expect(v->line >= m->first_line && v->line <= m->last_line,
				  "%s: %s of start %u (lines %lu-%lu) quotes line %lu: %s", name, f->id, f->start,
				  m->first_line, m->last_line, v->line, v->text);
			cr_expect_eq(v->src, m->src, "%s: %s quotes another input", name, f->id);
			cr_expect(v->line >= 1 && v->line <= nlines, "%s: %s quotes line %lu of %lu", name, f->id, v->line,
				  nlines);
			cr_expect(v->text[0], "%s: %s quotes line %lu without its text", name, f->id, v->line);
			for (unsigned d = 0; d < e; d++)
				cr_expect(f->ev[d].line != v->line || f->ev[d].src != v->src, "%s: %s quotes line %lu twice",
					  name, f->id, v->line);
		}
	}
}

Test(triage_evidence_lines, every_quote_is_of_its_own_start)
{
	size_t nlogs;
	char **logs = trun_list(LSC_TEST_CORPUS "/logs", ".log", &nlogs);
	cr_assert_gt(nlogs, 10);
	unsigned quotes = 0, restarted = 0;
	for (size_t i = 0; i < nlogs; i++) {
		size_t n;
		char *log = trun_corpus_log(logs[i], &n);
		cr_assert_not_null(log);
		unsigned long nl = lines_of(log, n);
		for (int pieces = 0; pieces < 2; pieces++) {
			struct lsc_triage *t = trun_feed(log, n, pieces ? 0 : n + 1, 7 + i, NULL);
			cr_assert_not_null(t);
			check(logs[i], t, nl, &quotes);
			restarted += pieces == 0 && t->nsums > 1;
			lsc_triage_free(t);
		}
		free(log);
	}
	trun_names_free(logs, nlogs);
	/* not a property of nothing: the corpus quotes, and restarts */
	cr_expect_gt(quotes, 400, "%u quotes", quotes);
	cr_expect_geq(restarted, 20, "%u logs with more than one start", restarted);
}
