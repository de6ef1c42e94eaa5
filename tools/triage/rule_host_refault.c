/*
 * host-refault (docs/benchmarks.md, "Host refault: free page reporting in a
 * VM"): in a guest whose virtio-balloon device reports free pages to its
 * host, free blocks that stayed idle for about 2 s have been handed back,
 * and the arena's first touch faults every page in again in the host, at
 * 0.4-0.7 GiB/s on the build VM, whatever the page size. Huge pages pay it
 * while populating (the allocate phase crawls, thp_fault_alloc moves);
 * 4 KiB pages populate quickly and pay it at their first write (the read
 * phase crawls into an arena already populated, from the page cache).
 * Nothing in vmstat moves: the rule decides on the system line's
 * page_reporting, the two phases' rates, and compaction and reclaim being
 * quiet, which is what keeps it apart from thp-direct-compaction.
 */
#include "internal.h"

/* The refault ran at 0.4-0.7 GiB/s (0.91 at most) on the build VM, where a
 * fault into local memory runs at 4-20 GiB/s and a page-cache read into a
 * populated arena at 4-10 GiB/s. */
#define SLOW_GIBPS 1.0
/* Enough bytes and seconds that a rate is not timer noise or one stall. */
#define MIN_GIB 1.0
#define MIN_S 1.0
/* compact_stall and allocstall under this are noise, not a mechanism
 * (thp-direct-compaction needs 20). */
#define QUIET 5
/* Huge pages: the read into the populated arena runs this many times the
 * allocate rate. 4 KiB pages: the allocate ran this many times the read
 * (on a healthy machine the read is the faster of the two). */
#define READ_OVER_ALLOC 3.0
#define ALLOC_OVER_READ 1.5

static double rate(double gib, double s)
{
	return !isnan(gib) && !isnan(s) && s > 0 && gib > 0 ? gib / s : NAN;
}

static void system_math(struct tr_finding *f, const struct tr_start *s)
{
	int ev = s->page_reporting.ev;
	unsigned long line = ev >= 0 && (unsigned)ev < s->nev ? s->ev[ev].line : 0;
	/* The order comes from the pasted log: only a plausible one is turned
	 * into a block size (a shift by it would be undefined past 63). */
	double order = tr_has(&s->page_reporting_order) ? s->page_reporting_order.v : NAN;
	if (order >= 0 && order <= 30)
		tr_f_math(f, "line %lu: page_reporting=1 page_reporting_order=%.0f: free blocks of %.0f KiB and up "
			     "go back to the host after about 2 s idle, and their next touch faults in the host",
			  line, order, ldexp(4.0, (int)order));
	else
		tr_f_math(f, "line %lu: page_reporting=1: idle free blocks go back to the host and their next "
			     "touch faults in the host", line);
}

static void remedies(struct tr_finding *f)
{
	tr_f_rem(f, "turn free page reporting off in the VM's balloon device, on the host (QEMU: "
		    "virtio-balloon free-page-reporting=off; libvirt: <memballoon freePageReporting='off'>) "
		    "for inference VMs");
	tr_f_rem(f, "a page-size switch may only move the cost: %s", tr_fig(TR_FIG_REFAULT_4K));
	tr_f_rem(f, "loadscope explain host-refault (or share/doc/loadscope/troubleshooting.md#host-refault)");
}

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	(void)c;
	if (tr_has(&s->page_reporting) && s->page_reporting.v != 1)
		return TR_NOFIRE;
	double ag = s->ph_gib[TR_K_ALLOC], as = s->ph_s[TR_K_ALLOC].v;
	double arate = rate(ag, as);
	double rs = s->read_s.v;
	double rg = tr_has(&s->read_gib) ? s->read_gib.v : s->read_rate.v * rs;
	double rrate = tr_has(&s->read_rate) ? s->read_rate.v : rate(rg, rs);
	double thp = s->vm[TR_VM_THP_FAULT_ALLOC].v;
	double cs = s->vm[TR_VM_COMPACT_STALL].v, st = s->vm[TR_VM_ALLOCSTALL].v;
	int huge = !isnan(thp) ? thp > 0 : s->thp_req == 1;
	int small = !isnan(thp) ? thp == 0 && !s->hugetlb_used : s->thp_req == 0;

	/* huge pages: the populate is the first touch, and it crawls */
	int alloc_shape = huge && !isnan(arate) && ag >= MIN_GIB && as >= MIN_S && arate < SLOW_GIBPS &&
			  (isnan(rrate) || s->from_device || rrate >= READ_OVER_ALLOC * arate);
	/* 4 KiB pages: populated quickly, the first write into them crawls */
	int read_shape = small && !alloc_shape && !isnan(rrate) && rg >= MIN_GIB && rs >= MIN_S &&
			 rrate < SLOW_GIBPS && !s->from_device && !isnan(arate) && arate >= ALLOC_OVER_READ * rrate;

	if (!alloc_shape && !read_shape) {
		if (s->ev_refault_risk < 0)
			return TR_NOFIRE;
		/* loadscope probe judged the machine before any load: a risk */
		tr_f_init(f, "host-refault", LSC_TRIAGE_WARN, s);
		tr_f_summary(f, "the probe found that this VM gives idle free memory back to its host (free page "
			     "reporting): the arena's first touch will fault every page in again in the host");
		tr_f_ev(f, s, s->ev_refault_risk);
		tr_f_ev(f, s, s->page_reporting.ev);
		if (tr_has(&s->page_reporting))
			system_math(f, s);
		tr_f_math(f, "measured in a VM with free page reporting: 0.4-0.7 GiB/s for that first touch, in allocate with huge "
			     "pages or in the read with 4 KiB pages");
		remedies(f);
		return TR_FIRE;
	}
	if (isnan(cs) || !tr_has(&s->page_reporting)) {
		if (isnan(cs))
			tr_f_miss(f, "vmstat deltas over the load (compact_stall, allocstall) to tell a host refault "
				     "from compaction: run under loadscope with its phase lines");
		else if (cs >= QUIET || (!isnan(st) && st >= QUIET))
			return TR_NOFIRE;
		if (!tr_has(&s->page_reporting))
			tr_f_miss(f, "whether the VM reports free pages to its host: page_reporting on loadscope's "
				     "system line (newer loadscope), or the 6th character of "
				     "/sys/bus/virtio/devices/*/features of the balloon device (device 0x0005)");
		return TR_NOTEVAL;
	}
	if (cs >= QUIET || (!isnan(st) && st >= QUIET))
		return TR_NOFIRE; /* compaction or reclaim moved: thp-direct-compaction's ground */

	double ps = alloc_shape ? as : rs;
	const char *pname = alloc_shape ? "allocate" : "read";
	double wall = s->ready_s.v;
	int dominates = ps >= 20 && !isnan(wall) && wall > 0 && ps >= 0.5 * wall;
	tr_f_init(f, "host-refault", dominates ? LSC_TRIAGE_FAIL : LSC_TRIAGE_WARN, s);
	if (alloc_shape)
		tr_f_summary(f, "the host refaults memory this VM gave back (free page reporting): populating huge "
			     "pages ran at %.2f GiB/s with no compaction or reclaim", arate);
	else
		tr_f_summary(f, "the host refaults memory this VM gave back (free page reporting): the first write "
			     "into the 4 KiB-page arena ran at %.2f GiB/s after it populated at %.2f GiB/s", rrate,
			     arate);
	tr_f_ev(f, s, alloc_shape ? s->ph_s[TR_K_ALLOC].ev : (tr_has(&s->ph_s[TR_K_READ]) ? s->ph_s[TR_K_READ].ev
											       : s->read_s.ev));
	tr_f_ev(f, s, s->page_reporting.ev);
	tr_f_ev(f, s, s->ev_thp);
	tr_f_ev(f, s, alloc_shape ? (tr_has(&s->ph_s[TR_K_READ]) ? s->ph_s[TR_K_READ].ev : s->read_s.ev)
				  : s->ph_s[TR_K_ALLOC].ev);
	tr_f_ev(f, s, s->ready_s.ev);
	tr_f_ev(f, s, s->ev_refault_risk);
	system_math(f, s);
	if (alloc_shape) {
		tr_f_math(f, "allocate %.2f GiB / %.3f s = %.2f GiB/s (the rule fires under %.0f GiB/s; the refault "
			     "ran at 0.4-0.7 GiB/s where it was measured)", ag, as, arate, SLOW_GIBPS);
		if (!isnan(rrate) && !s->from_device)
			tr_f_math(f, "read into the populated arena %.2f GiB / %.3f s = %.2f GiB/s = %.1fx the allocate "
				     "rate: the memory is fast once the host has it", rg, rs, rrate, rrate / arate);
		tr_f_math(f, "vmstat over the start: thp_fault_alloc +%.0f (%.2f GiB of 2 MiB pages), compact_stall "
			     "+%.0f, allocstall +%.0f: no compaction or reclaim to explain it", isnan(thp) ? 0 : thp,
			  isnan(thp) ? 0 : thp * 2 / 1024, cs, isnan(st) ? 0 : st);
	} else {
		tr_f_math(f, "read %.2f GiB / %.3f s = %.2f GiB/s from the page cache (no major faults, not O_DIRECT; "
			     "the rule fires under %.0f GiB/s)", rg, rs, rrate, SLOW_GIBPS);
		tr_f_math(f, "allocate populated %.2f GiB at %.2f GiB/s = %.1fx the read rate: the first write into "
			     "those pages is what crawls", ag, arate, arate / rrate);
		tr_f_math(f, "vmstat over the start: thp_fault_alloc +%.0f (4 KiB pages), compact_stall +%.0f, "
			     "allocstall +%.0f: no compaction or reclaim to explain it", isnan(thp) ? 0 : thp, cs,
			  isnan(st) ? 0 : st);
	}
	if (!isnan(wall) && wall > 0)
		tr_f_math(f, "%s %.1f s of %.1f s to ready = %.0f%% (the rule fails the start at 50%% and 20 s)",
			  pname, ps, wall, 100 * ps / wall);
	remedies(f);
	return TR_FIRE;
}

const struct tr_rule tr_rule_host_refault = {"host-refault", "alloc", eval};
