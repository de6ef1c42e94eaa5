/*
 * JSON for machines, schema "loadscope-triage" version
 * LSC_TRIAGE_SCHEMA_VERSION (docs/triage.md): one object with the inputs,
 * counts, the starts with their phase tables, and the findings, each with at
 * least "id" and "severity". Strings are escaped here; evidence was already
 * made valid UTF-8 when it was kept. The --table object is printed here too,
 * from the table table.c builds.
 */
#include <string.h>

#include "render.h"

void lsc_triage_json_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(o, "\\%c", c);
		else if (c < 0x20)
			fprintf(o, "\\u%04x", c);
		else
			fputc(c, o);
	}
	fputc('"', o);
}

static void json_num(FILE *o, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", o);
	else
		fprintf(o, "%.6g", v);
}

static void strarr(FILE *o, const char *key, char (*a)[TR_F_TXT], unsigned n)
{
	fprintf(o, ",\"%s\":[", key);
	for (unsigned i = 0; i < n; i++) {
		if (i)
			fputc(',', o);
		lsc_triage_json_str(o, a[i]);
	}
	fputc(']', o);
}

int tr_render_json_table(struct lsc_triage *t, FILE *o)
{
	struct tr_table tb;
	if (tr_table_build(t, &tb) < 0)
		return -1;
	fprintf(o, "{\"keys\":[");
	int first = 1;
	for (size_t k = 0; k < TR_TABLE_KEYS; k++)
		if (tb.differ[k]) {
			fprintf(o, "%s\"%s\"", first ? "" : ",", tr_table_keys[k]);
			first = 0;
		}
	fprintf(o, "],\"relative_to\":%s%s%s,\"arms\":[", tb.basis >= 0 ? "\"" : "",
		tb.basis >= 0 ? tr_table_mkeys[tb.basis] : "null", tb.basis >= 0 ? "\"" : "");
	for (unsigned a = 0; a < tb.narms; a++) {
		fprintf(o, "%s{\"arm\":", a ? "," : "");
		lsc_triage_json_str(o, tb.arms[a].label);
		fprintf(o, ",\"n\":%u,\"few\":%s", tb.arms[a].n, tb.arms[a].n < 3 ? "true" : "false");
		for (int m = 0; m < TR_TABLE_METRICS; m++) {
			fprintf(o, ",\"%s\":{\"n\":%u,\"median\":", tr_table_mkeys[m], tb.arms[a].cnt[m]);
			json_num(o, tb.arms[a].med[m]);
			fprintf(o, ",\"min\":");
			json_num(o, tb.arms[a].min[m]);
			fprintf(o, ",\"max\":");
			json_num(o, tb.arms[a].max[m]);
			fprintf(o, "}");
		}
		fprintf(o, ",\"relative\":");
		json_num(o, tr_table_relative(&tb, a));
		fprintf(o, "}");
	}
	fprintf(o, "]}");
	tr_table_free(&tb);
	return 0;
}

int tr_render_json(struct lsc_triage *t, FILE *o)
{
	char tmp[TR_EVTEXT_REDACTED];
	fprintf(o, "{\"schema\":\"loadscope-triage\",\"version\":%d,\"inputs\":[", LSC_TRIAGE_SCHEMA_VERSION);
	for (unsigned i = 0; i < t->nsrc; i++) {
		if (i)
			fputc(',', o);
		lsc_triage_json_str(o, t->srcname[i]);
	}
	fprintf(o, "],\"lines\":%lu,\"recognised\":%lu,\"truncated_lines\":%lu,\"invalid_utf8_lines\":%lu,"
		   "\"exit\":%d,\"rule_errors\":%lu,\"starts\":[",
		t->nlines, t->nrecog, t->ntrunc, t->nbad_utf8, lsc_triage_exit_code(t), t->rule_errors);
	for (size_t i = 0; i < t->nsums; i++) {
		const struct tr_startsum *m = &t->sums[i];
		fprintf(o, "%s{\"index\":%u,\"family\":", i ? "," : "", m->idx);
		lsc_triage_json_str(o, m->family);
		fprintf(o, ",\"source\":");
		lsc_triage_json_str(o, tr_src_name(t, m->src));
		fprintf(o, ",\"first_line\":%lu,\"last_line\":%lu,\"run\":", m->first_line, m->last_line);
		if (m->run[0])
			lsc_triage_json_str(o, m->run);
		else
			fputs("null", o);
		fprintf(o, ",\"outcome\":\"%s\",\"speed\":\"%s\",\"speed_figures\":{\"load_s\":", tr_outcome_name(m->outcome),
			tr_speed_name(m->speed));
		json_num(o, m->v_load_s);
		fputs(",\"gib\":", o);
		json_num(o, m->v_gib);
		fputs(",\"gibps\":", o);
		json_num(o, m->v_rate);
		fputc('}', o);
		fprintf(o, ",\"reached_ready\":%s,\"phases\":{", m->stage >= TR_ST_READY ? "true" : "false");
		struct tr_phase_row rows[16];
		const char *miss[16];
		size_t nm, n = tr_phases(m, rows, 16, miss, &nm);
		for (size_t k = 0; k < n; k++) {
			fprintf(o, "%s", k ? "," : "");
			lsc_triage_json_str(o, rows[k].label);
			fputc(':', o);
			json_num(o, rows[k].v);
		}
		fprintf(o, "},\"not_measured\":[");
		for (size_t k = 0; k < nm; k++) {
			fprintf(o, "%s", k ? "," : "");
			lsc_triage_json_str(o, miss[k]);
		}
		fprintf(o, "],\"unattributed_s\":");
		json_num(o, m->unattributed_s);
		fprintf(o, ",\"not_evaluated\":[");
		for (unsigned k = 0; k < m->nnoteval; k++) {
			fprintf(o, "%s{\"rule\":", k ? "," : "");
			lsc_triage_json_str(o, m->noteval[k].id);
			fprintf(o, ",\"missing\":");
			lsc_triage_json_str(o, m->noteval[k].text);
			fputc('}', o);
		}
		fprintf(o, "]}");
	}
	fprintf(o, "],\"starts_total\":%u,\"findings\":[", t->nstarts);
	for (size_t i = 0; i < t->nlite; i++) {
		const struct tr_lite *x = &t->lite[i];
		fprintf(o, "%s{\"id\":", i ? ",\n" : "\n");
		lsc_triage_json_str(o, x->id);
		fprintf(o, ",\"severity\":\"%s\",\"start\":%u,\"line\":%lu", tr_sev_name(x->sev), x->start,
			x->first_line);
		if (x->full >= 0) {
			const struct tr_finding *f = &t->full[x->full];
			fprintf(o, ",\"summary\":");
			lsc_triage_json_str(o, f->summary);
			fprintf(o, ",\"evidence\":[");
			for (unsigned k = 0; k < f->nev; k++) {
				fprintf(o, "%s{\"source\":", k ? "," : "");
				lsc_triage_json_str(o, tr_src_name(t, f->ev[k].src));
				fprintf(o, ",\"line\":%lu,\"text\":", f->ev[k].line);
				lsc_triage_json_str(o, tr_ev_text(t, &f->ev[k], tmp, sizeof(tmp)));
				fputc('}', o);
			}
			fputc(']', o);
			strarr(o, "arithmetic", (char(*)[TR_F_TXT])f->math, f->nmath);
			strarr(o, "remedies", (char(*)[TR_F_TXT])f->rem, f->nrem);
			strarr(o, "not_evaluated", (char(*)[TR_F_TXT])f->miss, f->nmiss);
		}
		fputc('}', o);
	}
	fprintf(o, "],\"findings_unlisted\":%lu,\"lines_out_of_memory\":%lu", t->dropped_findings, t->lines_oom);
	if (t->opts.flags & LSC_TRIAGE_TABLE) {
		fprintf(o, ",\"table\":");
		tr_render_json_table(t, o);
	}
	fprintf(o, "}\n");
	return 0;
}
