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
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "loader/arena_int.h"
#include "host/assess.h"
#include "loader/lines.h"

int lsc__thp_auto(const struct lsc_system *s, uint64_t bytes, struct lsc__thp_decision *d)
{
	struct lsc__assessment as;
	const char *verdict;

	if (!d)
		return -EINVAL;
	d->policy = LSC_THP_4K;
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
	} else if (as.sync_compaction < 0) {
		/* Cannot tell whether a fault would compact: the safe side of
		 * seed 001 (4 KiB pages cost time, a stall costs minutes). */
		verdict = "defrag n/a";
	} else if (as.sync_compaction == 1) {
		verdict = "room";
		d->policy = LSC_THP_THP;
	} else {
		/* defer / never: a fault without a free block falls back to
		 * 4 KiB pages at once instead of compacting. */
		verdict = "no stall possible";
		d->policy = LSC_THP_THP;
	}
	/* The assessment's sentence, so that `loadscope probe` and this line
	 * say the same thing with the same numbers. */
	snprintf(d->reason, sizeof d->reason, "%s: %.230s", verdict, as.thp_reason);
	return 0;
}
