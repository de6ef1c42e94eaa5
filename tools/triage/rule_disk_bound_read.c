/*
 * disk-bound-read: reading the weights was most of the start and ran at a
 * rate a local NVMe or the page cache would beat several times over (under
 * 1 GiB/s for at least 10 s). Major faults in the same window say the bytes
 * came from the device, not the page cache. Severity (tests/corpus/README.md):
 * fail when the read is a minute or more and most of the time to ready,
 * warn otherwise (or when the time to ready is unknown).
 */
#include "internal.h"

#define GIB_PER_PAGE (4096.0 / (1024.0 * 1024.0 * 1024.0))

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	(void)c;
	double rs = s->read_s.v, rate = s->read_rate.v;
	if (isnan(rs) || rs < 20)
		return TR_NOFIRE;
	if (isnan(rate)) {
		tr_f_miss(f, "the bytes read (to get a read rate for the %.0f s read)", rs);
		return TR_NOTEVAL;
	}
	double total = tr_has(&s->ready_s) ? s->ready_s.v : NAN;
	double share = isnan(total) || total <= 0 ? NAN : rs / total;
	if (!(rate < 1.0 && (isnan(share) || share >= 0.5)))
		return TR_NOFIRE;
	/* A slow read of a cached file on a busy machine is not the disk:
	 * something must say the bytes came from a device (major faults,
	 * O_DIRECT, a streamer reading storage). */
	int device = s->from_device ||
		     (tr_has(&s->vm[TR_VM_PGMAJFAULT]) && tr_has(&s->read_gib) &&
		      s->vm[TR_VM_PGMAJFAULT].v * 4096.0 >= 0.1 * s->read_gib.v * 1073741824.0);
	if (!device) {
		tr_f_miss(f, "where the %.0f s read came from: major faults (vmstat pgmajfault) or the reader's "
			     "O_DIRECT flag", rs);
		return TR_NOTEVAL;
	}
	/* the rate the arithmetic below shows, from the two numbers it prints */
	if (tr_has(&s->read_gib) && rs > 0)
		rate = s->read_gib.v / rs;
	int slow = !isnan(share) && share >= 0.5 && rs >= 60;
	tr_f_init(f, "disk-bound-read", slow ? LSC_TRIAGE_FAIL : LSC_TRIAGE_WARN, s);
	tr_f_summary(f, "reading the weights took %.0f s at %.2f GiB/s%s", rs, rate,
		     isnan(share) ? "" : ", most of the start");
	tr_f_ev(f, s, s->read_s.ev);
	tr_f_ev(f, s, s->read_rate.ev);
	tr_f_ev(f, s, s->ready_s.ev);
	if (tr_has(&s->read_gib))
		tr_f_math(f, "%.2f GiB / %.1f s = %.2f GiB/s (the rule fires under 1 GiB/s)", s->read_gib.v, rs, rate);
	if (!isnan(share))
		tr_f_math(f, "read %.0f s of %.0f s to ready = %.0f%% (fail from 60 s and 50%%)", rs, total,
			  100 * share);
	if (tr_has(&s->vm[TR_VM_PGMAJFAULT]))
		tr_f_math(f, "pgmajfault +%.0f = %.2f GiB faulted in from the device", s->vm[TR_VM_PGMAJFAULT].v,
			  s->vm[TR_VM_PGMAJFAULT].v * GIB_PER_PAGE);
	tr_f_rem(f, "measure the device: fio --name=r --rw=read --bs=1M --direct=1 --iodepth=32 "
		    "--ioengine=io_uring --filename=<weights file>");
	tr_f_rem(f, "keep the weights on local NVMe (not a network or FUSE file system), or warm the page "
		    "cache before the start");
	tr_f_rem(f, "read with deep queues and O_DIRECT (loadscope's io_uring reader) instead of mmap faults");
	return tr_f_fire(f);
}

const struct tr_rule tr_rule_disk_bound_read = {"disk-bound-read", NULL, eval};
