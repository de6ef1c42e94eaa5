/*
 * The `auto` THP policy: ask for huge pages only where asking cannot stall
 * the faulting thread.
 *
 * Seed 001: MADV_HUGEPAGE on a 40 GiB arena under defrag=madvise with RAM in
 * use made every fault that found no free 2 MiB block compact synchronously
 * (compact_stall == compact_fail), 432 s to ready against 25 s without the
 * request. With free 2 MiB blocks for the whole arena, or a defrag mode that
 * defers, the request is cheap and huge pages make pinning cheaper per page
 * (ROCm/mori #679). The judgement itself is lsc__assess(), shared with
 * `loadscope probe` so the two never disagree; this file only turns it into
 * a policy and a reason. It is kept small because it is the part most likely
 * to change.
 *
 * With synchronous compaction the choice is no longer all-or-nothing
 * (issue 9: with 2.91 of 3.00 GiB free in 2 MiB blocks the old rule chose
 * 4 KiB pages for all of it, 0.80 s, where huge pages took 0.53 s): the
 * part of the arena that the free blocks can serve, less 1/16 kept for the
 * rest of the system (other allocations take blocks between this snapshot
 * and the faults), asks for huge pages and the rest for 4 KiB pages. Both
 * cases with synchronous compaction are watched while they fault: the free
 * blocks are a snapshot, and a fault past them compacts in our thread.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "loader/arena_int.h"
#include "format/human.h"
#include "host/assess.h"
#include "loader/lines.h"

int lsc__thp_auto(const struct lsc_system *s, uint64_t bytes, struct lsc__thp_decision *d)
{
	struct lsc__assessment as;
	const char *verdict;

	if (!d)
		return -EINVAL;
	d->policy = LSC_THP_4K;
	d->huge_bytes = 0;
	d->watch = 0;
	snprintf(d->reason, sizeof d->reason, "no system snapshot: 4 KiB pages");
	if (!s)
		return -EINVAL;
	int rc = lsc__assess(s, bytes, &as);
	if (rc < 0) {
		snprintf(d->reason, sizeof d->reason, "could not judge the system (%s): 4 KiB pages",
			 lsc__errname(rc));
		return rc;
	}
	if (!as.thp_possible) {
		verdict = "THP disabled";
	} else if (as.stall_risk) {
		verdict = "stall risk";
		uint64_t hp = s->hpage_pmd_size > 0 ? (uint64_t)s->hpage_pmd_size : LSC__HPAGE_DEFAULT;
		uint64_t usable = as.huge_free_bytes > 0 ? (uint64_t)as.huge_free_bytes : 0;
		usable -= usable / LSC__AUTO_KEEP_DIV;
		usable = usable / hp * hp;
		if (usable >= LSC__AUTO_MIN_HUGE) {
			d->policy = LSC_THP_THP;
			d->huge_bytes = usable;
			d->watch = 1;
		}
	} else if (as.sync_compaction < 0) {
		/* Cannot tell whether a fault would compact: the safe side of
		 * seed 001 (4 KiB pages cost time, a stall costs minutes). */
		verdict = "defrag n/a";
	} else if (as.sync_compaction == 1) {
		verdict = "room";
		d->policy = LSC_THP_THP;
		d->huge_bytes = bytes;
		d->watch = 1;
	} else {
		/* defer / never: a fault without a free block falls back to
		 * 4 KiB pages at once instead of compacting. */
		verdict = "no stall possible";
		d->policy = LSC_THP_THP;
		d->huge_bytes = bytes;
	}
	/* The assessment's sentence, so that `loadscope probe` and this line
	 * say the same thing with the same numbers. */
	if (d->huge_bytes && d->huge_bytes < bytes) {
		char b1[LSC__HBUF], b2[LSC__HBUF];
		snprintf(d->reason, sizeof d->reason, "%s: %.150s; huge pages for the first %s, "
			 "4 KiB pages for the other %s", verdict, as.thp_reason,
			 lsc__fmt_bytes(b1, (double)d->huge_bytes),
			 lsc__fmt_bytes(b2, (double)(bytes - d->huge_bytes)));
		return 0;
	}
	snprintf(d->reason, sizeof d->reason, "%s: %.230s", verdict, as.thp_reason);
	return 0;
}
