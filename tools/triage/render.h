/*
 * Helpers shared by render_text.c, render_json.c, render_md.c and table.c.
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
const struct tr_startsum *tr_sum_of(const struct lsc_triage *t, unsigned idx);
void tr_json_str(FILE *o, const char *s);
void tr_json_num(FILE *o, double v);

#endif
