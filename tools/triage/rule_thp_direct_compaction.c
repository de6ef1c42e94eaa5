/*
 * thp-direct-compaction (seed 001, seed 000's slow state): a mapping that asked
 * for transparent huge pages (MADV_HUGEPAGE, or THP enabled=always) under a
 * defrag policy that compacts synchronously in the faulting thread
 * (madvise, always, defer+madvise) while memory is fragmented: compaction is
 * tried and fails (compact_fail ~ compact_stall), faults fall back to 4 KiB
 * pages (thp_fault_fallback), direct reclaim stalls (allocstall), and the
 * fill crawls far below what the same machine does otherwise. Decided from
 * those mechanisms together; with only the request and a slow wall time it
 * is a warning that names the counters to collect.
 */
#include <string.h>

#include "internal.h"

static int sync_defrag(const char *d, int requested)
{
	if (!d[0])
		return -1;
	if (!strcmp(d, "always"))
		return 1;
	if (!strcmp(d, "madvise") || !strcmp(d, "defer+madvise"))
		return requested;
	return 0; /* defer, never: khugepaged does it later, faults do not stall */
}

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	int requested = s->thp_req == 1;
	int always = !strcmp(s->thp_enabled, "always");
	if (s->thp_process[0])
		return TR_NOFIRE; /* THP off for the process: no huge-page faults to compact for */
	if (!requested && !always && s->thp_req != -1)
		return TR_NOFIRE;
	double cs = s->vm[TR_VM_COMPACT_STALL].v, cf = s->vm[TR_VM_COMPACT_FAIL].v;
	double fb = s->vm[TR_VM_THP_FAULT_FALLBACK].v, as = s->vm[TR_VM_ALLOCSTALL].v;
	double win = tr_has(&s->vm_window_s) ? s->vm_window_s.v : NAN;
	int have_vm = !isnan(cs);
	int failing = have_vm && !isnan(cf) && cs > 0 && cf >= 0.8 * cs &&
		      (cs >= 20 || (!isnan(win) && win > 0 && cs / win >= 5));
	int falling = (!isnan(fb) && fb > 0) || (!isnan(as) && as > 0);
	double normal = tr_has(&s->loaded_rate) ? s->loaded_rate.v : NAN;
	if (!isnan(c->normal_fill_gibps) && (isnan(normal) || c->normal_fill_gibps > normal))
		normal = c->normal_fill_gibps;
	/* the same start's copy runs at what this machine's memory does */
	if (tr_has(&s->ph_s[TR_K_COPY]) && s->ph_s[TR_K_COPY].v > 0 && s->ph_gib[TR_K_COPY] > 1) {
		double cr = s->ph_gib[TR_K_COPY] / s->ph_s[TR_K_COPY].v;
		if (isnan(normal) || cr > normal)
			normal = cr;
	}
	int normal_assumed = isnan(normal);
	if (normal_assumed)
		normal = 1.0; /* a page-cache fill on any machine this decade */
	double fill = s->fill_rate.v;
	int slow_fill = !isnan(fill) && fill < 0.25 * normal;
	double wall = tr_has(&s->ready_s) ? s->ready_s.v : s->still_max_s.v;
	double implied = s->loaded_s.v;
	int slow_wall = !isnan(wall) && !isnan(implied) && wall >= 3 * implied && wall - implied >= 20;
	int sync = sync_defrag(s->thp_defrag, requested || always);

	if (!requested && !always && !failing && s->ev_thp_risk < 0)
		return TR_NOFIRE;
	if (s->ev_thp_risk >= 0 && !failing && !slow_fill && !slow_wall) {
		/* loadscope probe judged the arena before any load: a risk, not a stall */
		tr_f_init(f, "thp-direct-compaction", LSC_TRIAGE_WARN, s);
		if (s->thp_defrag[0])
			tr_f_summary(f, "the probe predicts synchronous compaction stalls for an MADV_HUGEPAGE arena "
				     "here (defrag=%s)", s->thp_defrag);
		else
			tr_f_summary(f, "the probe predicts synchronous compaction stalls for an MADV_HUGEPAGE arena here");
		tr_f_ev(f, s, s->ev_thp_risk);
		tr_f_ev(f, s, s->ev_defrag);
		tr_f_rem(f, "use the loader's auto or 4k arena policy, or run the engine under PR_SET_THP_DISABLE");
		tr_f_rem(f, "or set /sys/kernel/mm/transparent_hugepage/defrag to defer or never (root)");
		return tr_f_fire(f);
	}
	if (failing && falling && (slow_fill || slow_wall || isnan(fill)) && sync != 0) {
		tr_f_init(f, "thp-direct-compaction", LSC_TRIAGE_FAIL, s);
		tr_f_summary(f, "huge-page faults compact and reclaim synchronously and fail: the fill crawls%s",
			     slow_fill ? " far below this machine's normal rate" : "");
	} else if ((requested || always) && sync != 0 && (slow_fill || slow_wall) && !have_vm) {
		tr_f_init(f, "thp-direct-compaction", LSC_TRIAGE_WARN, s);
		if (tr_has(&s->page_reporting) && s->page_reporting.v == 1)
			/* free page reporting makes the same shape without compaction (host-refault) */
			tr_f_summary(f, "transparent huge pages requested%s%s and the start is slow: synchronous "
				     "compaction, or the host refaulting memory this VM gave back (no vmstat counters "
				     "to tell them apart)",
				     s->thp_defrag[0] ? " with defrag=" : "", s->thp_defrag);
		else
			tr_f_summary(f, "transparent huge pages requested%s%s and the start is slow: likely synchronous "
				     "compaction (no vmstat counters to confirm)",
				     s->thp_defrag[0] ? " with defrag=" : "", s->thp_defrag);
		tr_f_miss(f, "vmstat deltas over the fill (compact_stall, compact_fail, thp_fault_fallback, "
			     "allocstall): run under loadscope, or diff /proc/vmstat before and after");
	} else {
		if (requested && (!have_vm || !s->thp_defrag[0]) && (tr_has(&s->loaded_s) || tr_has(&s->ready_s))) {
			tr_f_miss(f, "%s%s to rule out synchronous THP compaction",
				  !s->thp_defrag[0] ? "the THP defrag policy (cat /sys/kernel/mm/transparent_hugepage/defrag)" : "",
				  !have_vm ? (!s->thp_defrag[0] ? " and vmstat deltas over the fill" : "vmstat deltas over the fill (compact_stall, compact_fail)") : "");
			return TR_NOTEVAL;
		}
		return TR_NOFIRE;
	}
	tr_f_ev(f, s, s->ev_thp);
	tr_f_ev(f, s, s->ev_defrag);
	for (int k = 0; k < TR_VM_N; k++)
		if (k == TR_VM_COMPACT_STALL || k == TR_VM_COMPACT_FAIL || k == TR_VM_THP_FAULT_FALLBACK ||
		    k == TR_VM_ALLOCSTALL)
			tr_f_ev(f, s, s->vm[k].ev);
	tr_f_ev(f, s, s->fill_rate.ev);
	tr_f_ev(f, s, s->loaded_rate.ev);
	tr_f_ev(f, s, s->ready_s.ev);
	if (have_vm && !isnan(cf))
		tr_f_math(f, "compact_fail / compact_stall = %.0f / %.0f = %.0f%% of compactions failed", cf, cs,
			  cs > 0 ? 100 * cf / cs : 0);
	if (have_vm && !isnan(win) && win > 0)
		tr_f_math(f, "%.0f compaction stalls in %.3g s = %.0f per second", cs, win, cs / win);
	if (!isnan(fb))
		tr_f_math(f, "thp_fault_fallback +%.0f: huge-page faults that fell back to 4 KiB pages", fb);
	if (!isnan(fill))
		tr_f_math(f, "fill %.3f GiB/s against %s %.2f GiB/s = %.1f%%", fill,
			  normal_assumed ? "an assumed normal of" : "this machine's", normal, 100 * fill / normal);
	if (tr_has(&s->faults_per_s))
		tr_f_math(f, "%.0f faults/s x 4 KiB = %.1f MiB/s", s->faults_per_s.v, s->faults_per_s.v * 4 / 1024);
	if (slow_wall)
		tr_f_math(f, "ready after %.0f s against %.1f s implied by the load rate (%.0fx)", wall, implied,
			  wall / implied);
	tr_f_rem(f, "skip the MADV_HUGEPAGE request for this mapping, or disable THP for the process around "
		    "the allocation (prctl(PR_SET_THP_DISABLE, 1)); %s", tr_fig(TR_FIG_SEEDS_THP));
	tr_f_rem(f, "or set /sys/kernel/mm/transparent_hugepage/defrag to defer or never (root): khugepaged "
		    "collapses later instead of compacting in the faulting thread");
	tr_f_rem(f, "or start with free memory (less page cache and anonymous memory in use) so there is "
		    "nothing to compact");
	tr_f_rem(f, "loadscope explain thp-direct-compaction (or share/doc/loadscope/troubleshooting.md#thp-direct-compaction)");
	if (!s->thp_defrag[0])
		tr_f_miss(f, "the THP defrag policy: cat /sys/kernel/mm/transparent_hugepage/defrag");
	return TR_FIRE;
}

const struct tr_rule tr_rule_thp_direct_compaction = {"thp-direct-compaction", "alloc", eval};
