/*
 * What the renderers (render_text.c, render_json.c, render_md.c, render_html.c) share:
 * a start's phase table and the A/B table that table.c builds, which each
 * renderer prints in its own form.
 */
#ifndef LSC_TOOLS_TRIAGE_RENDER_H
#define LSC_TOOLS_TRIAGE_RENDER_H

#include "internal.h"

struct tr_phase_row {
	const char *label;
	double v;
};

/* The measured rows of @m's phase table; @missing gets up to 16 labels that
 * were not measured. Return the number of rows. */
size_t tr_phases(const struct tr_startsum *m, struct tr_phase_row *rows, size_t cap, const char **missing,
		 size_t *nmissing);
/* The labels tr_phases found missing, as " a, b, c" after a heading. */
void tr_print_missing(FILE *o, const char **missing, size_t n);
const struct tr_startsum *tr_sum_of(const struct lsc_triage *t, unsigned idx);
/* The input's counts as the text and HTML headers say them: "N lines, N
 * recognised, N starts", then any truncated and invalid UTF-8 lines. */
void tr_print_counts(const struct lsc_triage *t, FILE *o);

/* --table (table.c): starts grouped into arms by the configuration keys that
 * differ between them, with median, min and max of each metric per arm. */
#define TR_TABLE_KEYS 6
#define TR_TABLE_METRICS 4
#define TR_ARMS_MAX 16
extern const char *const tr_table_keys[TR_TABLE_KEYS];
extern const char *const tr_table_mnames[TR_TABLE_METRICS]; /* as people read them */
extern const char *const tr_table_mkeys[TR_TABLE_METRICS];  /* as JSON names them */

struct tr_arm {
	char label[160];
	unsigned n;
	double med[TR_TABLE_METRICS], min[TR_TABLE_METRICS], max[TR_TABLE_METRICS];
	unsigned cnt[TR_TABLE_METRICS];
};

struct tr_table {
	int differ[TR_TABLE_KEYS]; /* the keys that differ between starts */
	struct tr_arm *arms;
	unsigned narms;
	unsigned *armof;           /* the arm of each row */
	int basis;                 /* the metric "relative" is computed on, -1 none */
	double best;               /* the fastest arm's median of it */
};

int tr_table_build(const struct lsc_triage *t, struct tr_table *tb);
void tr_table_free(struct tr_table *tb);
double tr_table_metric(const struct tr_row *r, int m);
const char *tr_table_val(const struct tr_row *r, const char *k);
/* An arm's median against the fastest arm's; NAN when there is no basis. */
double tr_table_relative(const struct tr_table *tb, unsigned a);

/* render_html.c: the self-contained HTML page (--html): timelines, counters,
 * findings and the A/B chart; safe on any log (no script, all text escaped). */
int tr_render_html(struct lsc_triage *t, FILE *out);

#endif
