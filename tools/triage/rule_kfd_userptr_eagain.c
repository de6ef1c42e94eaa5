/*
 * kfd-userptr-eagain (seed 000): ROCr's hipHostMalloc is one KFD userptr
 * allocation ioctl over the whole range; HMM's walk returns EAGAIN when the
 * range is invalidated (by compaction or reclaim moving its pages) and ROCr
 * retries the whole call. Thousands of retries are minutes of allocation
 * against seconds of copy. Decided from the strace counts and times only; a
 * complement whose allocation dwarfs its copy on HIP without a trace is
 * "not evaluated" with the strace command to run (and alloc-dominates
 * reports the slow allocation the log does show).
 */
#include "internal.h"

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	(void)c;
	double alloc = s->comp_alloc_s.v;
	if (isnan(alloc) && tr_has(&s->comp_total_s) && tr_has(&s->comp_copy_s))
		alloc = s->comp_total_s.v - s->comp_copy_s.v;
	if (isnan(alloc) && tr_has(&s->ph_s[TR_K_ALLOC]))
		alloc = s->ph_s[TR_K_ALLOC].v + (tr_has(&s->ph_s[TR_K_PIN]) ? s->ph_s[TR_K_PIN].v : 0);
	if (s->eagain_n < 3) {
		/* Without a trace, a slow allocation on HIP with THP on is the
		 * shape of seed 000's storm but not its evidence: the retries are
		 * what the trace shows. The slow allocation itself is
		 * alloc-dominates'. */
		if (s->hip && !isnan(alloc) && alloc > 20 && s->eagain_n == 0 && s->kfd_ok_n == 0 &&
		    !s->thp_process[0]) {
			tr_f_miss(f, "an ioctl trace of the allocation: strace -f -T -tt -e trace=ioctl "
				     "(count = -1 EAGAIN on AMDKFD_IOC_ALLOC_MEMORY_OF_GPU)");
			return TR_NOTEVAL;
		}
		return TR_NOFIRE;
	}
	double span = NAN;
	if (!isnan(s->kfd_ts_first) && !isnan(s->kfd_ts_last)) {
		span = s->kfd_ts_last - s->kfd_ts_first;
		if (span < 0)
			span += 86400;
	}
	int heavy = s->eagain_n >= 100 || s->eagain_s >= 10 || span >= 10 ||
		    (!isnan(alloc) && tr_has(&s->comp_copy_s) && alloc > 3 * s->comp_copy_s.v);
	tr_f_init(f, "kfd-userptr-eagain", heavy ? LSC_TRIAGE_FAIL : LSC_TRIAGE_WARN, s);
	if (!isnan(span) && span > s->eagain_s)
		tr_f_summary(f, "the KFD userptr allocation ioctl kept returning EAGAIN for %.0f s (%lu failing calls "
			     "in the trace) before it succeeded", span, s->eagain_n);
	else
		tr_f_summary(f, "the KFD userptr allocation ioctl returned EAGAIN %lu times (%.1f s inside the failing "
			     "calls) before it succeeded", s->eagain_n, s->eagain_s);
	tr_f_ev(f, s, s->ev_eagain_first);
	if (f->nev < TR_F_EV && s->eagain_tail.text[0] && s->eagain_n > 1)
		f->ev[f->nev++] = tr_evid_cooked(&s->eagain_tail);
	tr_f_ev(f, s, s->ev_kfd_ok);
	tr_f_ev(f, s, s->ev_thp);
	tr_f_ev(f, s, s->comp_total_s.ev);
	tr_f_math(f, "%lu EAGAIN x %.3f s average = %.1f s inside the failing calls that the trace shows",
		  s->eagain_n, s->eagain_n ? s->eagain_s / (double)s->eagain_n : 0, s->eagain_s);
	if (!isnan(span) && span > 0)
		tr_f_math(f, "the allocation calls ran from %02d:%02d:%06.3f to %02d:%02d:%06.3f = %.1f s of retrying "
			  "(strace -tt clocks; an excerpt may show fewer calls than were made)",
			  (int)(s->kfd_ts_first / 3600), (int)fmod(s->kfd_ts_first / 60, 60), fmod(s->kfd_ts_first, 60),
			  (int)(s->kfd_ts_last / 3600), (int)fmod(s->kfd_ts_last / 60, 60), fmod(s->kfd_ts_last, 60), span);
	if (s->kfd_ok_n)
		tr_f_math(f, "the successful call took %.2f s", s->kfd_ok_s);
	if (!isnan(alloc) && tr_has(&s->comp_copy_s))
		tr_f_math(f, "allocation %.0f s against copy %.0f s = %.1fx", alloc, s->comp_copy_s.v,
			  s->comp_copy_s.v > 0 ? alloc / s->comp_copy_s.v : 0);
	tr_f_rem(f, "disable THP for the engine process (prctl(PR_SET_THP_DISABLE, 1) before exec, e.g. a "
		    "nothp wrapper): %s", tr_fig(TR_FIG_SEED000_THP_OFF));
	tr_f_rem(f, "allocate the pinned range in pieces (2 GiB): an invalidated piece retries only itself");
	tr_f_rem(f, "or set /sys/kernel/mm/transparent_hugepage/defrag to defer or never (root; not measured)");
	return tr_f_fire(f);
}

const struct tr_rule tr_rule_kfd_userptr_eagain = {"kfd-userptr-eagain", "alloc", eval};
