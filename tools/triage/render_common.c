/*
 * What the three renderers share: names for severities and phase kinds, the
 * phase table of a start (what was measured, what was not), evidence
 * text as it may be printed (redacted on request), and the input's counts
 * that the text and HTML headers open with.
 */
#include <string.h>

#include "render.h"

const char *tr_sev_name(enum lsc_triage_sev s)
{
	return s == LSC_TRIAGE_FAIL ? "fail" : s == LSC_TRIAGE_WARN ? "warn" : "info";
}

const char *tr_kind_name(enum tr_kind k)
{
	static const char *const n[TR_K_N] = {"allocate", "pin", "read", "copy", "verify"};
	return (unsigned)k < TR_K_N ? n[k] : "?";
}

const char *tr_ev_text(const struct lsc_triage *t, const struct tr_evid *e, char *tmp, size_t cap)
{
	if (!(t->opts.flags & LSC_TRIAGE_REDACT))
		return e->text;
	tr_redact(e->text, tmp, cap);
	return tmp;
}

size_t tr_phases(const struct tr_startsum *m, struct tr_phase_row *rows, size_t cap, const char **missing,
		 size_t *nmissing)
{
	size_t n = 0, nm = 0;
#define ROW(label_, v_)                                         \
	do {                                                    \
		if (!isnan(v_)) {                               \
			if (n < cap) {                          \
				rows[n].label = label_;         \
				rows[n].v = v_;                 \
				n++;                            \
			}                                       \
		} else if (nm < 16) {                           \
			missing[nm++] = label_;                 \
		}                                               \
	} while (0)
	/* the engine's own phases first, in the order they ran */
	for (unsigned i = 0; i < m->nspans; i++)
		if (m->spans[i].custom && m->spans[i].depth == 0)
			ROW(m->spans[i].label, m->spans[i].dur);
	ROW("allocate (s)", m->ph[TR_K_ALLOC]);
	ROW("pin (s)", m->ph[TR_K_PIN]);
	ROW("read (s)", isnan(m->ph[TR_K_READ]) ? m->read_s : m->ph[TR_K_READ]);
	ROW("copy (s)", m->ph[TR_K_COPY]);
	ROW("verify (s)", m->ph[TR_K_VERIFY]);
	if (!isnan(m->comp_total_s) || !isnan(m->comp_alloc_s) || !isnan(m->comp_copy_s)) {
		ROW("complement total (s)", m->comp_total_s);
		ROW("complement alloc (s)", m->comp_alloc_s);
		ROW("complement copy (s)", m->comp_copy_s);
	}
	ROW("loaded (GiB)", m->loaded_gib);
	ROW("load rate (GiB/s)", m->loaded_rate);
	ROW("load to ready (s)", m->ready_s);
	ROW("unattributed (s)", m->unattributed_s);
#undef ROW
	*nmissing = nm;
	return n;
}

void tr_print_missing(FILE *o, const char **missing, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(o, "%s %s", i ? "," : "", missing[i]);
}

const struct tr_startsum *tr_sum_of(const struct lsc_triage *t, unsigned idx)
{
	size_t lo = 0, hi = t->nsums;
	while (lo < hi) { /* sums are sorted by idx at finish */
		size_t mid = (lo + hi) / 2;
		if (t->sums[mid].idx == idx)
			return &t->sums[mid];
		if (t->sums[mid].idx < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void tr_print_counts(const struct lsc_triage *t, FILE *o)
{
	fprintf(o, "%lu line%s, %lu recognised, %u start%s", t->nlines, t->nlines == 1 ? "" : "s", t->nrecog,
		t->nstarts, t->nstarts == 1 ? "" : "s");
	if (t->ntrunc)
		fprintf(o, ", %lu line%s over %u bytes truncated", t->ntrunc, t->ntrunc == 1 ? "" : "s",
			LSC_TRIAGE_LINE_MAX);
	if (t->nbad_utf8)
		fprintf(o, ", %lu with invalid UTF-8", t->nbad_utf8);
}
