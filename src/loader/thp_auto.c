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
 *
 * On a guest with free page reporting (a virtio balloon that gives free
 * blocks of page_reporting_order, 2 MiB, and up back to the host) a huge
 * page is such a block, and its first touch may fault it in again in the
 * host: on the build VM (docs/benchmarks.md, 2 GiB after 5 s idle) the
 * huge-page policies allocated in 0.8-2.2 s and the 4 KiB ones in
 * 0.5-0.8 s one hour, and `thp` in 0.22-0.92 s the next, as the host had
 * taken the memory back or not; nothing in the guest tells which before
 * the first touch. Free blocks below that order are never reported, the
 * host still backs them, and 4 KiB faults take them first. So the part of
 * the arena they cover (less 1/16, as above) is watched for it: the
 * prefault times a few 4 KiB pages there and the first huge step, and
 * moves the cover to 4 KiB pages when the huge pages are the slower
 * (prefault_adaptive.c). From reported blocks a 4 KiB page costs the
 * host's fault as a huge page does ("Host refault": populate 4.40 against
 * 0.42 GiB/s, first read 0.53 against 22.6 GiB/s), so the rest keeps its
 * huge pages. An arena pinned for a GPU is not watched for it: huge pages
 * make registering it cheaper per page (ROCm/mori #679).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "loader/arena_int.h"
#include "format/human.h"
#include "host/assess.h"
#include "loader/lines.h"

/* The part of @bytes that the free blocks the host still backs can serve
 * (see above); 0 where the rule does not apply. */
static uint64_t unreported_cover(const struct lsc_system *s, const struct lsc__auto_host *h,
				 uint64_t bytes, uint64_t hp)
{
	if (!h || h->device_pin || s->page_reporting != 1 || h->free_unreported_bytes == LSC_NA ||
	    h->free_unreported_bytes <= 0)
		return 0;
	uint64_t cover = (uint64_t)h->free_unreported_bytes;
	cover -= cover / LSC__AUTO_KEEP_DIV;
	cover = cover / hp * hp;
	return cover < bytes ? cover : bytes;
}

int lsc__thp_auto(const struct lsc_system *s, uint64_t bytes, const struct lsc__auto_host *h,
		  struct lsc__thp_decision *d)
{
	struct lsc__assessment as;
	const char *verdict;

	if (!d)
		return -EINVAL;
	d->policy = LSC_THP_4K;
	d->huge_bytes = 0;
	d->watch = 0;
	d->refault_cover = 0;
	d->verdict = "no system snapshot";
	snprintf(d->reason, sizeof d->reason, "no system snapshot: 4 KiB pages");
	if (!s)
		return -EINVAL;
	uint64_t hp = s->hpage_pmd_size > 0 ? (uint64_t)s->hpage_pmd_size : LSC__HPAGE_DEFAULT;
	int rc = lsc__assess(s, bytes, &as);
	if (rc < 0) {
		d->verdict = "system not judged";
		snprintf(d->reason, sizeof d->reason, "could not judge the system (%s): 4 KiB pages",
			 lsc__errname(rc));
		return rc;
	}
	if (!as.thp_possible) {
		verdict = "THP disabled";
	} else if (as.stall_risk) {
		verdict = "stall risk";
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
	d->verdict = verdict;
	/* The assessment's sentence, so that `loadscope probe` and this line
	 * say the same thing with the same numbers. */
	int n;
	if (d->huge_bytes && d->huge_bytes < bytes) {
		char b1[LSC__HBUF], b2[LSC__HBUF];
		n = snprintf(d->reason, sizeof d->reason, "%s: %.150s; huge pages for the first %s, "
			     "4 KiB pages for the other %s", verdict, as.thp_reason,
			     lsc__fmt_bytes(b1, (double)d->huge_bytes),
			     lsc__fmt_bytes(b2, (double)(bytes - d->huge_bytes)));
	} else {
		n = snprintf(d->reason, sizeof d->reason, "%s: %.230s", verdict, as.thp_reason);
	}
	uint64_t cover = d->huge_bytes ? unreported_cover(s, h, d->huge_bytes, hp) : 0;
	if (cover) {
		d->refault_cover = cover;
		d->watch = 1;
	}
	if (cover && n >= 0 && (size_t)n < sizeof d->reason) {
		char b1[LSC__HBUF];
		snprintf(d->reason + n, sizeof d->reason - (size_t)n,
			 "; free page reporting: %s of it watched for host refaults",
			 lsc__fmt_bytes(b1, (double)cover));
	}
	return 0;
}
