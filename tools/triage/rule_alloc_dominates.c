/*
 * alloc-dominates: allocation or pinning took far longer than reading and
 * copying, and no more specific rule (THP compaction, a host refault, KFD
 * EAGAIN) explained it. Seed 000's third proposal exists because a complement line that only
 * gives a total cannot tell a slow allocation from a slow read: with a total
 * and no split, this rule says what is missing.
 *
 * An allocation can also be slow for its size with nothing else logged
 * (ik_llama.cpp's `done allocating 300 GiB in 290000 ms` and then an error):
 * pinning host memory runs at several GiB/s, so a minute or more at under
 * 2 GiB/s over 16 GiB or more is reported from the rate and the duration.
 *
 * Severity (tests/corpus/README.md): fail when the allocation is most of a
 * start that was materially slow, a minute or more and at least half of the
 * time to ready; warn otherwise.
 */
#include "internal.h"

static double sum2(const struct tr_num *a, const struct tr_num *b)
{
	if (!tr_has(a) && !tr_has(b))
		return NAN;
	return (tr_has(a) ? a->v : 0) + (tr_has(b) ? b->v : 0);
}

#define FAIL_S 60.0

static enum lsc_triage_sev severity(const struct tr_start *s, double alloc)
{
	return tr_has(&s->ready_s) && alloc >= FAIL_S && alloc >= 0.5 * s->ready_s.v ? LSC_TRIAGE_FAIL
										  : LSC_TRIAGE_WARN;
}

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	(void)c;
	double alloc = sum2(&s->ph_s[TR_K_ALLOC], &s->ph_s[TR_K_PIN]);
	double work = sum2(&s->ph_s[TR_K_READ], &s->ph_s[TR_K_COPY]);
	int ev_a = tr_has(&s->ph_s[TR_K_ALLOC]) ? s->ph_s[TR_K_ALLOC].ev : s->ph_s[TR_K_PIN].ev;
	int ev_w = tr_has(&s->ph_s[TR_K_COPY]) ? s->ph_s[TR_K_COPY].ev : s->ph_s[TR_K_READ].ev;
	if (tr_has(&s->comp_alloc_s)) {
		alloc = s->comp_alloc_s.v;
		ev_a = s->comp_alloc_s.ev;
	} else if (tr_has(&s->comp_total_s) && tr_has(&s->comp_copy_s)) {
		alloc = s->comp_total_s.v - s->comp_copy_s.v;
		ev_a = s->comp_total_s.ev;
	}
	if (tr_has(&s->comp_copy_s)) {
		work = s->comp_copy_s.v;
		ev_w = s->comp_copy_s.ev;
	}
	if (!isnan(alloc) && isnan(work) && tr_has(&s->ready_s) && alloc >= 20 && alloc >= 0.5 * s->ready_s.v) {
		tr_f_init(f, "alloc-dominates", severity(s, alloc), s);
		tr_f_summary(f, "allocating and pinning took %.1f s of the %.0f s start (%.0f%%)", alloc, s->ready_s.v,
			     100 * alloc / s->ready_s.v);
		tr_f_ev(f, s, ev_a);
		tr_f_ev(f, s, s->ready_s.ev);
		tr_f_math(f, "alloc+pin %.1f s / %.1f s to ready = %.0f%% (the rule fires at 50%% and 20 s, fails at 60 s)", alloc,
			  s->ready_s.v, 100 * alloc / s->ready_s.v);
		goto remedies;
	}
	double gib = s->ph_gib[TR_K_ALLOC];
	if (!isnan(alloc) && tr_has(&s->ph_s[TR_K_ALLOC]) && gib >= 16 && s->ph_s[TR_K_ALLOC].v >= 60 &&
	    gib / s->ph_s[TR_K_ALLOC].v < 2 && (isnan(work) || alloc < 3 * work) &&
	    !(tr_has(&s->ready_s) && alloc >= 20 && alloc >= 0.5 * s->ready_s.v)) {
		double secs = s->ph_s[TR_K_ALLOC].v;
		tr_f_init(f, "alloc-dominates", severity(s, alloc), s);
		tr_f_summary(f, "allocating %.2f GiB took %.1f s: %.2f GiB/s, slow for its size", gib, secs,
			     gib / secs);
		tr_f_ev(f, s, s->ph_s[TR_K_ALLOC].ev);
		tr_f_math(f, "%.2f GiB / %.1f s = %.2f GiB/s (the rule fires under 2 GiB/s for >= 60 s and >= 16 GiB; "
			     "pinning host memory runs at several GiB/s)", gib, secs, gib / secs);
		goto remedies;
	}
	if (isnan(alloc) || isnan(work)) {
		if (tr_has(&s->comp_total_s) && s->comp_total_s.v > 20) {
			tr_f_miss(f, "the allocation time apart from the copy: the complement line gives only a total "
				     "(%.0f s); loadscope's phase lines split allocate, pin and copy",
				  s->comp_total_s.v);
			return TR_NOTEVAL;
		}
		return TR_NOFIRE;
	}
	/* tens of seconds, several times the rest: a busy machine makes a few
	 * seconds of allocation look slow without any pathology */
	if (!(alloc >= 20 && alloc >= 3 * work))
		return TR_NOFIRE;
	tr_f_init(f, "alloc-dominates", severity(s, alloc), s);
	tr_f_summary(f, "allocating and pinning took %.1f s, %.1fx the %.1f s spent reading and copying", alloc,
		     work > 0 ? alloc / work : 0, work);
	tr_f_ev(f, s, ev_a);
	tr_f_ev(f, s, ev_w);
	tr_f_math(f, "alloc+pin %.1f s / read+copy %.1f s = %.1fx (the rule fires at 3x and 20 s)", alloc, work,
		  work > 0 ? alloc / work : 0);
	if (tr_has(&s->ready_s) && s->ready_s.v > 0)
		tr_f_math(f, "alloc+pin %.1f s / %.1f s to ready = %.0f%% (fail from 60 s and 50%%)", alloc,
			  s->ready_s.v, 100 * alloc / s->ready_s.v);
	if (tr_has(&s->ph_s[TR_K_ALLOC]) && s->ph_gib[TR_K_ALLOC] > 0)
		tr_f_math(f, "allocation rate %.2f GiB / %.1f s = %.2f GiB/s", s->ph_gib[TR_K_ALLOC],
			  s->ph_s[TR_K_ALLOC].v, s->ph_gib[TR_K_ALLOC] / s->ph_s[TR_K_ALLOC].v);
remedies:
	tr_f_rem(f, "collect the mechanism: vmstat deltas over the allocation (compaction, reclaim, swap) and, on "
		    "HIP, strace -f -T -e trace=ioctl; loadscope's phase lines carry both");
	tr_f_rem(f, "try the allocation with THP disabled for the process (prctl(PR_SET_THP_DISABLE)) and in "
		    "2 GiB pieces");
	return tr_f_fire(f);
}

const struct tr_rule tr_rule_alloc_dominates = {"alloc-dominates", NULL, eval};
