/*
 * Markdown to paste back into an issue: a findings table at the top (as seed
 * 000's tables look), then one <details> block per start with its phase table
 * and each finding's evidence, arithmetic and remedies, so the thread stays
 * readable.
 */
#include <string.h>

#include "render.h"

static void cell(FILE *o, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", o);
		else if (*s == '<')
			fputs("&lt;", o);
		else
			fputc(*s, o);
	}
}

static void num_cell(FILE *o, double v)
{
	if (isnan(v))
		fprintf(o, " - |");
	else
		fprintf(o, " %.1f |", v);
}

int tr_render_md_table(struct lsc_triage *t, FILE *o)
{
	struct tr_table tb;
	if (tr_table_build(t, &tb) < 0)
		return -1;
	fprintf(o, "| start | arm |");
	for (int m = 0; m < TR_TABLE_METRICS; m++)
		fprintf(o, " %s |", tr_table_mnames[m]);
	fprintf(o, " relative |\n|---|---|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < t->nrows && i < 200; i++) {
		fprintf(o, "| %u | %s |", t->rows[i].start, tb.arms[tb.armof[i]].label);
		for (int m = 0; m < TR_TABLE_METRICS; m++)
			num_cell(o, tr_table_metric(&t->rows[i], m));
		fprintf(o, " |\n");
	}
	for (unsigned a = 0; a < tb.narms; a++) {
		fprintf(o, "| **median, %s (%u)** | |", tb.arms[a].label, tb.arms[a].n);
		for (int m = 0; m < TR_TABLE_METRICS; m++) {
			if (isnan(tb.arms[a].med[m]))
				fprintf(o, " - |");
			else
				fprintf(o, " **%.1f** (%.1f-%.1f) |", tb.arms[a].med[m], tb.arms[a].min[m], tb.arms[a].max[m]);
		}
		double rel = tr_table_relative(&tb, a);
		if (!isnan(rel))
			fprintf(o, " %.2fx |\n", rel);
		else
			fprintf(o, " - |\n");
	}
	for (unsigned a = 0; a < tb.narms; a++)
		if (tb.arms[a].n < 3)
			fprintf(o, "\nArm \"%s\" has %u start%s: fewer than 3, only large differences mean anything.\n",
				tb.arms[a].label, tb.arms[a].n, tb.arms[a].n == 1 ? "" : "s");
	tr_table_free(&tb);
	return 0;
}

int tr_render_md(struct lsc_triage *t, FILE *o)
{
	char tmp[TR_EVTEXT_REDACTED];
	fprintf(o, "### loadscope triage\n\n%lu line%s, %lu recognised, %u start%s.\n\n", t->nlines,
		t->nlines == 1 ? "" : "s", t->nrecog, t->nstarts, t->nstarts == 1 ? "" : "s");
	if (t->nrecog == 0) {
		fprintf(o, "Nothing recognisable in the input.\n");
		return 0;
	}
	fprintf(o, "| start | severity | finding | summary | line |\n|---:|---|---|---|---:|\n");
	for (size_t i = 0; i < t->nlite && i < 500; i++) {
		const struct tr_lite *x = &t->lite[i];
		fprintf(o, "| %u | %s | `%s` | ", x->start, x->sev == LSC_TRIAGE_FAIL ? "**fail**" : tr_sev_name(x->sev),
			x->id);
		cell(o, x->full >= 0 ? t->full[x->full].summary : "");
		fprintf(o, " | %lu |\n", x->first_line);
	}
	if (t->nlite > 500)
		fprintf(o, "\n%zu more findings not shown.\n", t->nlite - 500);
	if (t->dropped_findings)
		fprintf(o, "\n%lu more findings past the first %u were only counted: no format lists them.\n",
			t->dropped_findings, TR_LITE_MAX);
	if (t->lines_oom)
		fprintf(o, "\n" TR_OUT_OF_MEMORY_SAID "\n", t->lines_oom, t->lines_oom == 1 ? "" : "s");
	long cur = -1;
	for (size_t i = 0; i < t->nlite; i++) {
		const struct tr_lite *x = &t->lite[i];
		if (x->full < 0)
			continue;
		if ((long)x->start != cur) {
			if (cur >= 0)
				fprintf(o, "\n</details>\n");
			cur = x->start;
			const struct tr_startsum *m = tr_sum_of(t, x->start);
			fprintf(o, "\n<details><summary>start %u", x->start);
			if (m)
				fprintf(o, " (%s, lines %lu-%lu): %s, speed %s", m->family, m->first_line, m->last_line,
					tr_outcome_name(m->outcome), tr_speed_name(m->speed));
			fprintf(o, "</summary>\n\n");
			if (m) {
				struct tr_phase_row rows[16];
				const char *miss[16];
				size_t nm, n = tr_phases(m, rows, 16, miss, &nm);
				if (n) {
					fprintf(o, "| phase | value |\n|---|---:|\n");
					for (size_t k = 0; k < n; k++)
						fprintf(o, "| %s | %.2f |\n", rows[k].label, rows[k].v);
				}
				if (nm) {
					fprintf(o, "\nNot measured:");
					tr_print_missing(o, miss, nm);
					fprintf(o, ".\n");
				}
				for (unsigned k = 0; k < m->nnoteval; k++)
					fprintf(o, "\nNot evaluated: `%s`: missing %s.\n", m->noteval[k].id,
						m->noteval[k].text);
			}
		}
		const struct tr_finding *f = &t->full[x->full];
		fprintf(o, "\n#### `%s` (%s)\n\n", f->id, tr_sev_name(f->sev));
		cell(o, f->summary);
		fprintf(o, "\n");
		if (f->nev) {
			fprintf(o, "\n```\n");
			for (unsigned k = 0; k < f->nev; k++)
				fprintf(o, "%s:%lu: %s\n", tr_src_name(t, f->ev[k].src), f->ev[k].line,
					tr_ev_text(t, &f->ev[k], tmp, sizeof(tmp)));
			fprintf(o, "```\n");
		}
		for (unsigned k = 0; k < f->nmath; k++)
			fprintf(o, "%s- %s\n", k ? "" : "\n", f->math[k]);
		for (unsigned k = 0; k < f->nrem; k++)
			fprintf(o, "%s%u. %s\n", k ? "" : "\nWhat to do:\n\n", k + 1, f->rem[k]);
		for (unsigned k = 0; k < f->nmiss; k++)
			fprintf(o, "\nNot evaluated: missing %s.\n", f->miss[k]);
	}
	if (cur >= 0)
		fprintf(o, "\n</details>\n");
	if (t->opts.flags & LSC_TRIAGE_TABLE) {
		fprintf(o, "\n");
		tr_render_md_table(t, o);
	}
	return 0;
}
