/*
 * --table: an A/B table over the starts, as seed 000's interleaved A/B and
 * compare-llama-bench.py present it. Each start contributes a row of its
 * configuration (THP request, process THP state, defrag policy, hugetlb,
 * engine, reader) and its numbers (complement total, alloc, copy, load to
 * ready); starts are grouped into arms by the keys that differ between them,
 * and each arm gets n, median, min and max and a column relative to the
 * fastest arm. An arm with fewer than 3 starts is flagged: with so few, only
 * large differences mean anything.
 *
 * This file builds the table (rows, arms, medians); each renderer prints its
 * own form of it (render_text.c, render_json.c, render_md.c).
 */
#include <stdlib.h>
#include <string.h>

#include "render.h"


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

const char *tr_table_val(const struct tr_row *r, const char *k)
{
	for (unsigned i = 0; i < r->ncfg; i++)
		if (!strcmp(r->cfg[i][0], k))
			return r->cfg[i][1];
	return "-";
}

const char *const tr_table_keys[TR_TABLE_KEYS] = {"arm", "thp", "defrag", "hugetlb", "engine", "reader"};
const char *const tr_table_mnames[TR_TABLE_METRICS] = {"complement total (s)", "alloc (s)", "copy (s)",
						       "load to ready (s)"};
const char *const tr_table_mkeys[TR_TABLE_METRICS] = {"complement_total_s", "alloc_s", "copy_s", "load_to_ready_s"};

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double tr_table_metric(const struct tr_row *r, int m)
{
	return m == 0 ? r->comp_total : m == 1 ? r->alloc : m == 2 ? r->copy : r->ready;
}


static void label_of(const struct tr_row *r, const int *differ, char *out, size_t cap)
{
	size_t w = 0;
	out[0] = 0;
	for (size_t k = 0; k < TR_TABLE_KEYS; k++)
		if (differ[k]) {
			int n = snprintf(out + w, cap - w, "%s%s=%s", w ? ", " : "", tr_table_keys[k], tr_table_val(r, tr_table_keys[k]));
			if (n < 0 || (size_t)n >= cap - w)
				break;
			w += (size_t)n;
		}
	if (!out[0])
		snprintf(out, cap, "all starts");
}

int tr_table_build(const struct lsc_triage *t, struct tr_table *tb)
{
	memset(tb, 0, sizeof(*tb));
	int *differ = tb->differ;
	for (size_t k = 0; k < TR_TABLE_KEYS; k++)
		for (size_t i = 1; i < t->nrows; i++)
			if (strcmp(tr_table_val(&t->rows[0], tr_table_keys[k]), tr_table_val(&t->rows[i], tr_table_keys[k]))) {
				differ[k] = 1;
				break;
			}
	struct tr_arm *arms = calloc(TR_ARMS_MAX, sizeof(*arms));
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
			if (narms == TR_ARMS_MAX) {
				a = TR_ARMS_MAX - 1;
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
		for (int m = 0; m < TR_TABLE_METRICS; m++) {
			size_t n = 0;
			for (size_t i = 0; i < t->nrows; i++)
				if (armof[i] == a && !isnan(tr_table_metric(&t->rows[i], m)))
					tmp[n++] = tr_table_metric(&t->rows[i], m);
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
	free(tmp);
	tb->arms = arms;
	tb->narms = narms;
	tb->armof = armof;
	tb->basis = basis;
	tb->best = best;
	return 0;
}

double tr_table_relative(const struct tr_table *tb, unsigned a)
{
	if (tb->basis < 0 || !(tb->best > 0) || isnan(tb->arms[a].med[tb->basis]))
		return NAN;
	return tb->arms[a].med[tb->basis] / tb->best;
}

void tr_table_free(struct tr_table *tb)
{
	free(tb->arms);
	free(tb->armof);
	tb->arms = NULL;
	tb->armof = NULL;
}
