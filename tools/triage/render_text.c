/*
 * Text for a terminal: per start, its phase table and findings, each finding
 * with its quoted evidence (source:line), arithmetic, ranked remedies and what
 * was not evaluated. Colour only when LSC_TRIAGE_COLOR is set (the CLI sets it
 * when stdout is a terminal).
 */
#include <string.h>

#include "render.h"

static const char *col(const struct lsc_triage *t, enum lsc_triage_sev s)
{
	if (!(t->opts.flags & LSC_TRIAGE_COLOR))
		return "";
	return s == LSC_TRIAGE_FAIL ? "\x1b[1;31m" : s == LSC_TRIAGE_WARN ? "\x1b[1;33m" : "\x1b[32m";
}

static const char *reset(const struct lsc_triage *t)
{
	return (t->opts.flags & LSC_TRIAGE_COLOR) ? "\x1b[0m" : "";
}

static void start_header(struct lsc_triage *t, FILE *o, unsigned idx)
{
	const struct tr_startsum *m = tr_sum_of(t, idx);
	if (!m) {
		fprintf(o, "\nstart %u\n", idx);
		return;
	}
	fprintf(o, "\nstart %u: %s, %s lines %lu-%lu%s%s\n", idx, m->family, tr_src_name(t, m->src), m->first_line,
		m->last_line, m->run[0] ? ", run " : "", m->run);
	fprintf(o, "  outcome: %s, speed: %s", tr_outcome_name(m->outcome), tr_speed_name(m->speed));
	if (!isnan(m->v_load_s)) {
		fprintf(o, " (");
		if (!isnan(m->v_gib))
			fprintf(o, "%.2f GiB in ", m->v_gib);
		fprintf(o, "%.1f s", m->v_load_s);
		if (!isnan(m->v_rate))
			fprintf(o, ", %.2f GiB/s", m->v_rate);
		fprintf(o, ")");
	}
	fprintf(o, "\n");
	struct tr_phase_row rows[16];
	const char *miss[16];
	size_t nm, n = tr_phases(m, rows, 16, miss, &nm);
	for (size_t i = 0; i < n; i++)
		fprintf(o, "  %-22s %10.2f\n", rows[i].label, rows[i].v);
	if (nm) {
		fprintf(o, "  not measured:");
		tr_print_missing(o, miss, nm);
		fprintf(o, "\n");
	}
	for (unsigned i = 0; i < m->nnoteval; i++)
		fprintf(o, "  not evaluated: %s: missing %s\n", m->noteval[i].id, m->noteval[i].text);
}

static void finding(struct lsc_triage *t, FILE *o, const struct tr_finding *f)
{
	char tmp[TR_EVTEXT_REDACTED];
	fprintf(o, "  %s[%s]%s %s: %s\n", col(t, f->sev), tr_sev_name(f->sev), reset(t), f->id, f->summary);
	for (unsigned i = 0; i < f->nev; i++)
		fprintf(o, "      %s:%lu: %s\n", tr_src_name(t, f->ev[i].src), f->ev[i].line,
			tr_ev_text(t, &f->ev[i], tmp, sizeof(tmp)));
	for (unsigned i = 0; i < f->nmath; i++)
		fprintf(o, "      = %s\n", f->math[i]);
	for (unsigned i = 0; i < f->nrem; i++)
		fprintf(o, "      %u. %s\n", i + 1, f->rem[i]);
	for (unsigned i = 0; i < f->nmiss; i++)
		fprintf(o, "      not evaluated: missing %s\n", f->miss[i]);
}

int tr_render_text_table(struct lsc_triage *t, FILE *o)
{
	struct tr_table tb;
	if (tr_table_build(t, &tb) < 0)
		return -1;
	fprintf(o, "A/B over %zu start%s", t->nrows, t->nrows == 1 ? "" : "s");
	if (tb.basis >= 0)
		fprintf(o, " (relative: %s)", tr_table_mnames[tb.basis]);
	fprintf(o, "\n%-40s %3s", "arm", "n");
	for (int m = 0; m < TR_TABLE_METRICS; m++)
		fprintf(o, " %22s", tr_table_mnames[m]);
	fprintf(o, " %8s\n", "relative");
	for (unsigned a = 0; a < tb.narms; a++) {
		fprintf(o, "%-40.40s %3u", tb.arms[a].label, tb.arms[a].n);
		for (int m = 0; m < TR_TABLE_METRICS; m++) {
			char b[64];
			if (isnan(tb.arms[a].med[m]))
				snprintf(b, sizeof(b), "-");
			else
				snprintf(b, sizeof(b), "%.1f (%.1f-%.1f)", tb.arms[a].med[m], tb.arms[a].min[m],
					 tb.arms[a].max[m]);
			fprintf(o, " %22s", b);
		}
		double rel = tr_table_relative(&tb, a);
		if (!isnan(rel))
			fprintf(o, " %7.2fx\n", rel);
		else
			fprintf(o, " %8s\n", "-");
	}
	for (unsigned a = 0; a < tb.narms; a++)
		if (tb.arms[a].n < 3)
			fprintf(o, "warning: arm \"%s\" has %u start%s (fewer than 3)\n", tb.arms[a].label, tb.arms[a].n,
				tb.arms[a].n == 1 ? "" : "s");
	tr_table_free(&tb);
	return 0;
}

int tr_render_text(struct lsc_triage *t, FILE *o)
{
	fprintf(o, "loadscope triage: ");
	tr_print_counts(t, o);
	fprintf(o, "\n");
	if (t->nrecog == 0) {
		fprintf(o, "nothing recognisable: no loadscope, engine, strace or vmstat lines found\n");
		return 0;
	}
	long cur = -1;
	unsigned long counted = 0;
	for (size_t i = 0; i < t->nlite; i++) {
		const struct tr_lite *x = &t->lite[i];
		if ((long)x->start != cur) {
			cur = x->start;
			if (x->full >= 0)
				start_header(t, o, x->start);
		}
		if (x->full >= 0)
			finding(t, o, &t->full[x->full]);
		else
			counted++;
	}
	if (counted)
		fprintf(o, "\n%lu further findings listed without detail (--format json lists them by id)\n", counted);
	if (t->dropped_findings)
		fprintf(o, "%lu more findings past the first %u were only counted: no format lists them\n",
			t->dropped_findings, TR_LITE_MAX);
	if (t->lines_oom)
		fprintf(o, TR_OUT_OF_MEMORY_SAID "\n", t->lines_oom, t->lines_oom == 1 ? "" : "s");
	if (t->opts.flags & LSC_TRIAGE_TABLE) {
		fprintf(o, "\n");
		tr_render_text_table(t, o);
	}
	return 0;
}
