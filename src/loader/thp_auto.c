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
#include "profiler/assess.h"

static double gib(int64_t b)
{
	return (double)b / (double)(1ull << 30);
}

static const char *or_na(const char *s)
{
	return s && *s ? s : "n/a";
}

int lsc__thp_auto(const struct lsc_system *s, uint64_t bytes, struct lsc__thp_decision *d)
{
	struct lsc__assessment as;
	char huge[48];

	if (!d)
		return -EINVAL;
	d->policy = LSC_THP_4K;
	snprintf(d->reason, sizeof d->reason, "no system snapshot");
	if (!s)
		return -EINVAL;
	int rc = lsc__assess(s, bytes, &as);
	if (rc < 0) {
		snprintf(d->reason, sizeof d->reason, "could not judge the system (%s): 4 KiB pages",
			 strerrorname_np(-rc) ? strerrorname_np(-rc) : "error");
		return rc;
	}
	if (as.huge_free_bytes == LSC_NA)
		snprintf(huge, sizeof huge, "n/a");
	else
		snprintf(huge, sizeof huge, "%.2f GiB", gib(as.huge_free_bytes));

	if (!as.thp_possible) {
		d->policy = LSC_THP_4K;
		snprintf(d->reason, sizeof d->reason,
			 "THP disabled (enabled=%s, process %s): nothing to ask for",
			 or_na(s->thp_enabled), lsc_thp_disable_name(s->prctl_thp_disable));
	} else if (as.stall_risk) {
		d->policy = LSC_THP_4K;
		snprintf(d->reason, sizeof d->reason,
			 "stall risk: defrag=%s compacts in the faulting thread and only %s is free "
			 "in 2 MiB blocks for a %.2f GiB arena",
			 or_na(s->thp_defrag), huge, gib((int64_t)bytes));
	} else if (as.sync_compaction == 1 && as.huge_free_bytes == LSC_NA) {
		/* Cannot see the free blocks: the safe side of seed 001. */
		d->policy = LSC_THP_4K;
		snprintf(d->reason, sizeof d->reason,
			 "defrag=%s compacts in the faulting thread and free 2 MiB blocks are n/a",
			 or_na(s->thp_defrag));
	} else if (as.sync_compaction == 1) {
		d->policy = LSC_THP_THP;
		snprintf(d->reason, sizeof d->reason,
			 "room: %s free in 2 MiB blocks for a %.2f GiB arena (defrag=%s)", huge,
			 gib((int64_t)bytes), or_na(s->thp_defrag));
	} else {
		/* defer / never (or n/a): a fault without a free block falls back to
		 * 4 KiB pages at once instead of compacting. */
		d->policy = LSC_THP_THP;
		snprintf(d->reason, sizeof d->reason,
			 "defrag=%s does not compact in the faulting thread (%s free in 2 MiB blocks "
			 "for a %.2f GiB arena)",
			 or_na(s->thp_defrag), huge, gib((int64_t)bytes));
	}
	return 0;
}
