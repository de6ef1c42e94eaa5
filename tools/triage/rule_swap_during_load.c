/*
 * swap-during-load: pages went to or came from swap while the start was
 * loading (vmstat pswpin/pswpout deltas, or the engine/kernel saying so).
 * Pinning tens of GiB with the RAM already in use pushes everything else
 * out; seed 000's slowest standalone run had pswpin +257,614.
 */
#include "internal.h"

#define MIB_PER_PAGE (4096.0 / (1024.0 * 1024.0))

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	(void)c;
	double in = s->vm[TR_VM_PSWPIN].v, out = s->vm[TR_VM_PSWPOUT].v;
	double pages = (isnan(in) ? 0 : in) + (isnan(out) ? 0 : out);
	if (pages < 1024 && s->ev_swap_text < 0)
		return TR_NOFIRE;
	int heavy = pages >= 262144; /* 1 GiB */
	tr_f_init(f, "swap-during-load", heavy ? LSC_TRIAGE_FAIL : LSC_TRIAGE_WARN, s);
	tr_f_summary(f, "the system swapped during the load (%.0f MiB moved)", pages * MIB_PER_PAGE);
	tr_f_ev(f, s, s->vm[TR_VM_PSWPIN].ev);
	tr_f_ev(f, s, s->vm[TR_VM_PSWPOUT].ev);
	tr_f_ev(f, s, s->ev_swap_text);
	if (pages)
		tr_f_math(f, "pswpin %.0f + pswpout %.0f = %.0f pages x 4 KiB = %.0f MiB (the rule fires at 4 MiB, "
			  "fails at 1 GiB)", isnan(in) ? 0 : in, isnan(out) ? 0 : out, pages, pages * MIB_PER_PAGE);
	tr_f_rem(f, "start with enough free RAM for the pinned arena plus the page cache it reads through "
		    "(stop other memory users, lower the resident budget)");
	tr_f_rem(f, "pinned memory cannot be swapped: everything else is, so the rest of the machine pays");
	return tr_f_fire(f);
}

const struct tr_rule tr_rule_swap_during_load = {"swap-during-load", NULL, eval};
