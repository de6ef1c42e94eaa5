/*
 * direct-io-fallback: O_DIRECT was wanted and refused (tmpfs, some FUSE and
 * network file systems, unaligned buffers), so the read went through the
 * page cache: an extra copy, and the file's bytes now compete with the
 * pinned arena for RAM. Reading through the page cache by design (the seed
 * engine's `read through the file cache`) is not a fallback.
 */
#include "internal.h"

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	(void)c;
	/* GDS/cuFile refused: a fallback to POSIX reads once the load is seen
	 * completing; when it failed, load-failed is the finding, and a log
	 * that shows neither does not show a fallback */
	int gds = s->ev_direct < 0 && s->ev_gds >= 0 && s->ev_error < 0 && s->done;
	if (s->ev_direct < 0 && !gds)
		return TR_NOFIRE;
	tr_f_init(f, "direct-io-fallback", LSC_TRIAGE_WARN, s);
	if (gds)
		tr_f_summary(f, "GPUDirect Storage (cuFile) was refused; the weights were read through the page cache");
	else
		tr_f_summary(f, "O_DIRECT was refused; the weights were read through the page cache instead");
	tr_f_ev(f, s, gds ? s->ev_gds : s->ev_direct);
	tr_f_ev(f, s, s->read_rate.ev);
	if (tr_has(&s->read_rate))
		tr_f_math(f, "read rate %.2f GiB/s buffered", s->read_rate.v);
	tr_f_rem(f, "put the weights on a file system that supports O_DIRECT (ext4, xfs, btrfs; not tmpfs or "
		    "most FUSE mounts)");
	tr_f_rem(f, "if buffered reading is intended, expect the file to occupy page cache next to the arena");
	return tr_f_fire(f);
}

const struct tr_rule tr_rule_direct_io_fallback = {"direct-io-fallback", NULL, eval};
