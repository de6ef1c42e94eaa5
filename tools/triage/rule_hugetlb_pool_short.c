/*
 * hugetlb-pool-short: the arena wanted N 2 MiB pages from a pool of M < N,
 * and MAP_HUGETLB is all-or-nothing, so it fell back to other pages (THP
 * when the fallback asked for them, else 4 KiB pages). Seed
 * 002 adds what a full pool buys: nothing measurable there (prefill 950.5 vs
 * 950.0 tok/s), while 40 GiB left the page cache. So this is information
 * with the cost of both directions, not a call to reserve more; a start that
 * did get its hugetlb arena gets the same cost note (hugetlb-arena-cost).
 */
#include "internal.h"

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	(void)c;
	if (tr_has(&s->huge_needed) && tr_has(&s->huge_pool) && s->huge_needed.v > s->huge_pool.v) {
		double need = s->huge_needed.v, pool = s->huge_pool.v;
		/* A pool of 0 is the default: nothing was reserved, nothing lost. A
		 * partial pool holds memory nobody uses (MAP_HUGETLB is all or
		 * nothing), and an explicit request that was not met is a warning. */
		int costly = pool > 0 || s->hugetlb_asked;
		tr_f_init(f, "hugetlb-pool-short", costly ? LSC_TRIAGE_WARN : LSC_TRIAGE_INFO, s);
		/* Name the fallback the log shows: seed 001's note and loadscope's
		 * arena line both say whether THP was requested instead. */
		const char *fell = s->thp_req == 1   ? "transparent huge pages (MADV_HUGEPAGE)"
				   : s->thp_req == 0 ? "4 KiB pages"
						     : "pages outside the pool";
		if (s->ev_error >= 0)
			tr_f_summary(f, "the hugetlb pool holds %.0f of the %.0f 2 MiB pages the arena needs: the "
				     "mapping failed, and the load with it", pool, need);
		else
			tr_f_summary(f, "the hugetlb pool holds %.0f of the %.0f 2 MiB pages the arena needs: it fell "
				     "back to %s", pool, need, fell);
		tr_f_ev(f, s, s->huge_needed.ev);
		tr_f_ev(f, s, s->huge_pool.ev);
		tr_f_math(f, "needed %.0f x 2 MiB = %.2f GiB; pool %.0f x 2 MiB = %.2f GiB; short by %.0f pages",
			  need, need * 2 / 1024, pool, pool * 2 / 1024, need - pool);
		if (pool > 0)
			tr_f_math(f, "%.2f GiB sit reserved in the pool and unused%s", pool * 2 / 1024,
				  s->ev_error >= 0 ? "" : " while the arena uses other pages");
		if (s->hugetlb_asked)
			tr_f_math(f, "hugetlb was asked for explicitly and not used");
		if (tr_has(&s->mem_total_gib))
			tr_f_math(f, "a full pool would take %.0f%% of the %.1f GiB of RAM away from the page cache",
				  100 * need * 2 / 1024 / s->mem_total_gib.v, s->mem_total_gib.v);
		if (pool > 0)
			tr_f_rem(f, "release the partial pool (sysctl vm.nr_hugepages=0) or make it whole: a short "
				    "pool only takes memory away");
		tr_f_rem(f, "usually nothing to do: a field report measured no gain from a full hugetlb arena (prefill "
			    "950.5 vs 950.0 tok/s, gen 99.2 vs 98.6) while it removed 40 GiB from the page cache");
		tr_f_rem(f, "if you want it anyway: with the engine stopped, sysctl vm.nr_hugepages=%.0f (all or "
			    "nothing: a short pool fails the mapping), and release it afterwards", need);
		if (s->thp_req == 1)
			tr_f_rem(f, "the fallback asked for transparent huge pages: see thp-direct-compaction if the "
				    "fill is slow");
		return tr_f_fire(f);
	}
	if (s->hugetlb_used) {
		tr_f_init(f, "hugetlb-arena-cost", LSC_TRIAGE_INFO, s);
		tr_f_summary(f, "the arena lives in hugetlb pages: that memory is out of the page cache for the whole "
			     "session");
		tr_f_ev(f, s, s->ev_hugetlb_used);
		if (tr_has(&s->arena_gib))
			tr_f_math(f, "%.2f GiB reserved in 2 MiB pages", s->arena_gib.v);
		tr_f_rem(f, "measure before keeping it: %s", tr_fig(TR_FIG_SEED002_HUGETLB));
		tr_f_rem(f, "loadscope explain hugetlb-pool-short (or share/doc/loadscope/troubleshooting.md#hugetlb-pool-short)");
		return TR_FIRE;
	}
	return TR_NOFIRE;
}

const struct tr_rule tr_rule_hugetlb_pool_short = {"hugetlb-pool-short", NULL, eval};
