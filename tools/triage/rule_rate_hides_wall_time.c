/*
 * rate-hides-wall-time (seed 001): `loaded 39.97 GiB at 2.86 GiB/s` reads as
 * a healthy 14 s load while the start took 432 s to ready: the rate is
 * computed over the copy, not over the allocation and faulting that came
 * before it. Fires when the wall time to ready (or the last `still starting`
 * count, a lower bound) is at least 3x and 20 s over what the rate implies.
 * Only a rate the line states can hide anything: vLLM's `Model loading
 * took 27.5 GiB and 5.9 seconds` names its own duration, and the rest of
 * its start (compile, KV cache, graphs) is in its own lines.
 */
#include "internal.h"

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	(void)c;
	if (!s->loaded_rate_stated || !tr_has(&s->loaded_rate) || !tr_has(&s->loaded_gib) || s->loaded_rate.v <= 0)
		return TR_NOFIRE;
	double implied = s->loaded_gib.v / s->loaded_rate.v;
	const struct tr_num *w = tr_has(&s->ready_s) ? &s->ready_s : &s->still_max_s;
	if (!tr_has(w)) {
		tr_f_miss(f, "the wall time to ready: a ready line, timestamps on the lines, or the server's "
			     "`still starting (N s)` lines");
		return TR_NOTEVAL;
	}
	if (!(w->v >= 3 * implied && w->v - implied >= 20))
		return TR_NOFIRE;
	tr_f_init(f, "rate-hides-wall-time", LSC_TRIAGE_WARN, s);
	tr_f_summary(f, "the load line's %.2f GiB/s implies %.1f s, but the start took %s%.0f s: %.0f s went "
		     "somewhere the rate does not count", s->loaded_rate.v, implied,
		     w == &s->ready_s ? "" : "at least ", w->v, w->v - implied);
	tr_f_ev(f, s, s->loaded_rate.ev);
	tr_f_ev(f, s, w->ev);
	tr_f_ev(f, s, s->ev_arena);
	tr_f_math(f, "%.2f GiB / %.2f GiB/s = %.1f s implied; %s %.0f s = %.0fx", s->loaded_gib.v,
		  s->loaded_rate.v, implied, w == &s->ready_s ? "ready after" : "still starting at", w->v,
		  w->v / implied);
	tr_f_rem(f, "time the allocation and faulting apart from the copy (loadscope's phase lines, or an "
		    "engine line that prints alloc and copy separately)");
	if (s->thp_req == 1)
		tr_f_rem(f, "this start asked for transparent huge pages: check thp-direct-compaction (collect "
			    "vmstat deltas over the fill)");
	return tr_f_fire(f);
}

const struct tr_rule tr_rule_rate_hides_wall_time = {"rate-hides-wall-time", NULL, eval};
