/*
 * --table: an A/B table over the starts, as seed 000's interleaved A/B and
 * compare-llama-bench.py present it. Each start contributes a row of its
 * configuration (THP request, process THP state, defrag policy, hugetlb,
 * engine, reader) and its numbers (complement total, alloc, copy, load to
 * ready); starts are grouped into arms by the keys that differ between them,
 * and each arm gets n, median, min and max and a column relative to the
 * fastest arm. An arm with fewer than 3 starts is flagged: with so few, only
 * large differences mean anything.
 */
#include <stdlib.h>
#include <string.h>

#include "render.h"

#define ARMS_MAX 16

static void cfg(struct tr_row *r, const char *k, const char *v)
{
	if (r->ncfg >= TR_CFG_KEYS || !v || !v[0])
		return;
	size_t kn = strnlen(k, sizeof(r->cfg[0][0]) - 1), vn = strnlen(v, sizeof(r->cfg[0][1]) - 1);
	memcpy(r->cfg[r->ncfg][0], k, kn);
	r->cfg[r->ncfg][0][kn] = 0;
	memcpy(r->cfg[r->ncfg][1], v, vn);
	r->cfg[r->ncfg][1][vn] = 0;
	r->ncfg++;
}

void tr_table_row(struct lsc_triage *t, const struct tr_start *s)
{
	if (t->nrows >= TR_ROWS_MAX)
		return;
	if (t->nrows == t->rows_cap) {
		size_t cap = t->rows_cap ? t->rows_cap * 2 : 64;
		struct tr_row *n = realloc(t->rows, cap * sizeof(*n));
		if (!n)
			return;
		t->rows = n;
		t->rows_cap = cap;
	}
	struct tr_row *r = &t->rows[t->nrows++];
	r->ncfg = 0;
	r->start = s->idx;
	cfg(r, "arm", s->arm);
	cfg(r, "thp", s->thp_process[0] ? "off (process)" : s->thp_req == 1 ? "requested" : s->thp_req == 0 ? "not requested" : "default");
	cfg(r, "defrag", s->thp_defrag);
	cfg(r, "hugetlb", s->hugetlb_used ? "yes" : tr_has(&s->huge_needed) ? "no" : "");
	cfg(r, "engine", s->family);
	cfg(r, "reader", s->reader);
	r->comp_total = s->comp_total_s.v;
	r->alloc = tr_has(&s->comp_alloc_s) ? s->comp_alloc_s.v
		   : tr_has(&s->comp_total_s) && tr_has(&s->comp_copy_s) ? s->comp_total_s.v - s->comp_copy_s.v
		   : tr_has(&s->ph_s[TR_K_ALLOC]) ? s->ph_s[TR_K_ALLOC].v + (tr_has(&s->ph_s[TR_K_PIN]) ? s->ph_s[TR_K_PIN].v : 0)
		   : NAN;
	r->copy = tr_has(&s->comp_copy_s) ? s->comp_copy_s.v : s->ph_s[TR_K_COPY].v;
	r->ready = s->ready_s.v;
}

static const char *val(const struct tr_row *r, const char *k)
{
	for (unsigned i = 0; i < r->ncfg; i++)
		if (!strcmp(r->cfg[i][0], k))
			return r->cfg[i][1];
	return "-";
}

static const char *const keys[] = {"arm", "thp", "defrag", "hugetlb", "engine", "reader"};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

struct arm {
	char label[160];
	unsigned n;
	double med[4], min[4], max[4];
	unsigned cnt[4];
};

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double metric(const struct tr_row *r, int m)
{
	return m == 0 ? r->comp_total : m == 1 ? r->alloc : m == 2 ? r->copy : r->ready;
}

static const char *const mnames[4] = {"complement total (s)", "alloc (s)", "copy (s)", "load to ready (s)"};
static const char *const mkeys[4] = {"complement_total_s", "alloc_s", "copy_s", "load_to_ready_s"};

static void label_of(const struct tr_row *r, const int *differ, char *out, size_t cap)
{
	size_t w = 0;
	out[0] = 0;
	for (size_t k = 0; k < NKEYS; k++)
		if (differ[k]) {
			int n = snprintf(out + w, cap - w, "%s%s=%s", w ? ", " : "", keys[k], val(r, keys[k]));
			if (n < 0 || (size_t)n >= cap - w)
				break;
			w += (size_t)n;
		}
	if (!out[0])
		snprintf(out, cap, "all starts");
}

static void fmt(FILE *o, double v, int bold)
{
	if (isnan(v))
		fprintf(o, " - |");
	else
		fprintf(o, bold ? " **%.1f** |" : " %.1f |", v);
}

int tr_table_render(struct lsc_triage *t, enum lsc_triage_fmt f, FILE *o)
{
	int differ[NKEYS] = {0};
	for (size_t k = 0; k < NKEYS; k++)
		for (size_t i = 1; i < t->nrows; i++)
			if (strcmp(val(&t->rows[0], keys[k]), val(&t->rows[i], keys[k]))) {
				differ[k] = 1;
				break;
			}
	struct arm *arms = calloc(ARMS_MAX, sizeof(*arms));
	double *tmp = malloc((t->nrows + 1) * sizeof(double));
	unsigned *armof = malloc((t->nrows + 1) * sizeof(unsigned));
	if (!arms || !tmp || !armof) {
		free(arms);
		free(tmp);
		free(armof);
		return -1;
	}
	unsigned narms = 0;
	char lab[160];
	for (size_t i = 0; i < t->nrows; i++) {
		label_of(&t->rows[i], differ, lab, sizeof(lab));
		unsigned a;
		for (a = 0; a < narms && strcmp(arms[a].label, lab); a++)
			;
		if (a == narms) {
			if (narms == ARMS_MAX) {
				a = ARMS_MAX - 1;
				snprintf(arms[a].label, sizeof(arms[a].label), "other");
			} else {
				snprintf(arms[a].label, sizeof(arms[a].label), "%s", lab);
				narms++;
			}
		}
		armof[i] = a;
		arms[a].n++;
	}
	int basis = -1;
	for (unsigned a = 0; a < narms; a++)
		for (int m = 0; m < 4; m++) {
			size_t n = 0;
			for (size_t i = 0; i < t->nrows; i++)
				if (armof[i] == a && !isnan(metric(&t->rows[i], m)))
					tmp[n++] = metric(&t->rows[i], m);
			arms[a].cnt[m] = (unsigned)n;
			if (!n) {
				arms[a].med[m] = arms[a].min[m] = arms[a].max[m] = NAN;
				continue;
			}
			qsort(tmp, n, sizeof(double), dcmp);
			arms[a].med[m] = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
			arms[a].min[m] = tmp[0];
			arms[a].max[m] = tmp[n - 1];
		}
	/* relative to the fastest arm, on load to ready, else the complement */
	for (int m = 3; m >= 0 && basis < 0; m -= 3)
		for (unsigned a = 0; a < narms; a++)
			if (!isnan(arms[a].med[m]))
				basis = m;
	double best = NAN;
	if (basis >= 0)
		for (unsigned a = 0; a < narms; a++)
			if (!isnan(arms[a].med[basis]) && (isnan(best) || arms[a].med[basis] < best))
				best = arms[a].med[basis];

	if (f == LSC_TRIAGE_JSON) {
		fprintf(o, "{\"keys\":[");
		int first = 1;
		for (size_t k = 0; k < NKEYS; k++)
			if (differ[k]) {
				fprintf(o, "%s\"%s\"", first ? "" : ",", keys[k]);
				first = 0;
			}
		fprintf(o, "],\"relative_to\":%s%s%s,\"arms\":[", basis >= 0 ? "\"" : "",
			basis >= 0 ? mkeys[basis] : "null", basis >= 0 ? "\"" : "");
		for (unsigned a = 0; a < narms; a++) {
			fprintf(o, "%s{\"arm\":", a ? "," : "");
			tr_json_str(o, arms[a].label);
			fprintf(o, ",\"n\":%u,\"few\":%s", arms[a].n, arms[a].n < 3 ? "true" : "false");
			for (int m = 0; m < 4; m++) {
				fprintf(o, ",\"%s\":{\"n\":%u,\"median\":", mkeys[m], arms[a].cnt[m]);
				tr_json_num(o, arms[a].med[m]);
				fprintf(o, ",\"min\":");
				tr_json_num(o, arms[a].min[m]);
				fprintf(o, ",\"max\":");
				tr_json_num(o, arms[a].max[m]);
				fprintf(o, "}");
			}
			fprintf(o, ",\"relative\":");
			tr_json_num(o, basis >= 0 && best > 0 ? arms[a].med[basis] / best : NAN);
			fprintf(o, "}");
		}
		fprintf(o, "]}");
	} else if (f == LSC_TRIAGE_MD) {
		fprintf(o, "| start | arm |");
		for (int m = 0; m < 4; m++)
			fprintf(o, " %s |", mnames[m]);
		fprintf(o, " relative |\n|---|---|---:|---:|---:|---:|---:|\n");
		for (size_t i = 0; i < t->nrows && i < 200; i++) {
			fprintf(o, "| %u | %s |", t->rows[i].start, arms[armof[i]].label);
			for (int m = 0; m < 4; m++)
				fmt(o, metric(&t->rows[i], m), 0);
			fprintf(o, " |\n");
		}
		for (unsigned a = 0; a < narms; a++) {
			fprintf(o, "| **median, %s (%u)** | |", arms[a].label, arms[a].n);
			for (int m = 0; m < 4; m++) {
				if (isnan(arms[a].med[m]))
					fprintf(o, " - |");
				else
					fprintf(o, " **%.1f** (%.1f-%.1f) |", arms[a].med[m], arms[a].min[m], arms[a].max[m]);
			}
			if (basis >= 0 && best > 0 && !isnan(arms[a].med[basis]))
				fprintf(o, " %.2fx |\n", arms[a].med[basis] / best);
			else
				fprintf(o, " - |\n");
		}
		for (unsigned a = 0; a < narms; a++)
			if (arms[a].n < 3)
				fprintf(o, "\nArm \"%s\" has %u start%s: fewer than 3, only large differences mean anything.\n",
					arms[a].label, arms[a].n, arms[a].n == 1 ? "" : "s");
	} else {
		fprintf(o, "A/B over %zu start%s", t->nrows, t->nrows == 1 ? "" : "s");
		if (basis >= 0)
			fprintf(o, " (relative: %s)", mnames[basis]);
		fprintf(o, "\n%-40s %3s", "arm", "n");
		for (int m = 0; m < 4; m++)
			fprintf(o, " %22s", mnames[m]);
		fprintf(o, " %8s\n", "relative");
		for (unsigned a = 0; a < narms; a++) {
			fprintf(o, "%-40.40s %3u", arms[a].label, arms[a].n);
			for (int m = 0; m < 4; m++) {
				char b[64];
				if (isnan(arms[a].med[m]))
					snprintf(b, sizeof(b), "-");
				else
					snprintf(b, sizeof(b), "%.1f (%.1f-%.1f)", arms[a].med[m], arms[a].min[m],
						 arms[a].max[m]);
				fprintf(o, " %22s", b);
			}
			if (basis >= 0 && best > 0 && !isnan(arms[a].med[basis]))
				fprintf(o, " %7.2fx\n", arms[a].med[basis] / best);
			else
				fprintf(o, " %8s\n", "-");
		}
		for (unsigned a = 0; a < narms; a++)
			if (arms[a].n < 3)
				fprintf(o, "warning: arm \"%s\" has %u start%s (fewer than 3)\n", arms[a].label, arms[a].n,
					arms[a].n == 1 ? "" : "s");
	}
	free(arms);
	free(tmp);
	free(armof);
	return 0;
}
