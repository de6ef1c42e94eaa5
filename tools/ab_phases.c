/*
 * A run's phase figures, as the triage reads them from the run's log: the
 * one place `ab` looks past the triage's public API (tools/triage/triage.h
 * says a start's time to ready; the rows of its phase table, the same ones
 * `triage` prints, come from render.h's tr_phases). The figures are the
 * last start's of the log: a run is one start, and a wrapper that starts
 * twice (a retry) is judged by the start that counted.
 */
#include <math.h>
#include <string.h>

#include "ab.h"
#include "triage/render.h"

/* The rows tr_phases can give, in its order. */
const char *const ab_phase_names[AB_PHASES] = {
	"allocate (s)",         "pin (s)",      "read (s)",          "copy (s)",
	"verify (s)",           "complement total (s)", "complement alloc (s)", "complement copy (s)",
	"loaded (GiB)",         "load rate (GiB/s)",    "load to ready (s)",    "unattributed (s)",
};
const char *const ab_phase_keys[AB_PHASES] = {
	"allocate_s", "pin_s",      "read_s",          "copy_s",          "verify_s",       "complement_total_s",
	"complement_alloc_s", "complement_copy_s", "loaded_gib", "load_rate_gib_s", "load_to_ready_s", "unattributed_s",
};

void ab_phases_of(struct lsc_triage *one, double ph[AB_PHASES])
{
	struct tr_phase_row rows[32];
	const char *missing[16];
	size_t nmissing = 0;

	for (unsigned p = 0; p < AB_PHASES; p++)
		ph[p] = NAN;
	lsc_triage_finish(one);
	if (!one->nsums)
		return;
	size_t n = tr_phases(&one->sums[one->nsums - 1], rows, 32, missing, &nmissing);
	for (size_t i = 0; i < n; i++)
		for (unsigned p = 0; p < AB_PHASES; p++)
			if (!strcmp(rows[i].label, ab_phase_names[p]))
				ph[p] = rows[i].v;
}
