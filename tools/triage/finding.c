/*
 * Building a finding: its summary, the evidence lines it quotes (copied
 * from the start, which is freed when it closes), the arithmetic, the ranked
 * remedies and what could not be evaluated. Text that does not fit is cut;
 * slots that are full are dropped silently (the first ones matter most:
 * rules add them in order of weight). A lite finding (tr_finding.lite)
 * keeps its evidence and formats no text at all.
 */
#include <stdarg.h>
#include <string.h>

#include "internal.h"

void tr_f_init(struct tr_finding *f, const char *id, enum lsc_triage_sev sev, const struct tr_start *s)
{
	/* not a memset: the arrays are read only up to their counts, and
	 * rules run a dozen times per start; @lite is tr_run_rules' to set */
	f->nev = f->nmath = f->nrem = f->nmiss = 0;
	f->summary[0] = 0;
	f->id = id;
	f->sev = sev;
	f->start = s ? s->idx : 0;
}

void tr_f_summary(struct tr_finding *f, const char *fmt, ...)
{
	if (f->lite)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->summary, sizeof(f->summary), fmt, ap);
	va_end(ap);
}

void tr_f_ev(struct tr_finding *f, const struct tr_start *s, int ev)
{
	if (ev < 0 || (unsigned)ev >= s->nev || f->nev >= TR_F_EV)
		return;
	for (unsigned i = 0; i < f->nev; i++)
		if (f->ev[i].line == s->ev[ev].line && f->ev[i].src == s->ev[ev].src)
			return;
	f->ev[f->nev++] = s->ev[ev];
}

#define ADD(arr, n, max)                                          \
	do {                                                      \
		if (f->lite || f->n >= (max))                     \
			return;                                   \
		va_list ap;                                       \
		va_start(ap, fmt);                                \
		vsnprintf(f->arr[f->n], sizeof(f->arr[0]), fmt, ap); \
		va_end(ap);                                       \
		f->n++;                                           \
	} while (0)

void tr_f_math(struct tr_finding *f, const char *fmt, ...)
{
	ADD(math, nmath, TR_F_MATH);
}

void tr_f_rem(struct tr_finding *f, const char *fmt, ...)
{
	ADD(rem, nrem, TR_F_REM);
}

void tr_f_miss(struct tr_finding *f, const char *fmt, ...)
{
	ADD(miss, nmiss, TR_F_MISS);
}

int tr_f_fire(struct tr_finding *f)
{
	tr_f_rem(f, "loadscope explain %s (or share/doc/loadscope/troubleshooting.md#%s)", f->id, f->id);
	return TR_FIRE;
}
