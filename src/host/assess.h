/*
 * Would a large pinned arena of N bytes hurt on this machine, and why?
 * One judgement shared by `loadscope probe` (which warns) and the loader's
 * `auto` THP policy (which decides), so the two never disagree.
 *
 * The mechanism (seed 001, transhuge.rst): with defrag `always`, `madvise`
 * or `defer+madvise`, a fault in an MADV_HUGEPAGE region that finds no free
 * 2 MiB block compacts and reclaims synchronously in the faulting thread.
 * Free memory already in blocks of the huge-page size (buddyinfo) is what
 * such a fault can take without compaction.
 *
 * A guest with free page reporting has another cost: free blocks of the
 * reported order and up that stay idle a few seconds go back to the host,
 * and a page taken from one faults in again there at its first touch
 * (system.c, docs/benchmarks.md). Smaller free blocks are never reported:
 * lsc__free_unreported counts them.
 */
#ifndef LSC_HOST_ASSESS_H
#define LSC_HOST_ASSESS_H

#include <stdint.h>

#include <loadscope/profiler.h>

struct lsc__assessment {
	int thp_possible;       /* an madvised region can get THP: enabled always/madvise
	                         * (or an mTHP size) and the process has not disabled it */
	int sync_compaction;    /* defrag makes an madvised fault compact synchronously;
	                         * -1 when defrag is n/a */
	int64_t huge_free_bytes;/* free memory in huge-page-sized blocks; LSC_NA */
	int stall_risk;         /* thp_possible && sync_compaction && huge_free < arena */
	int host_refault;       /* the host takes back idle free blocks (free page
	                         * reporting): a page from one faults in again in the
	                         * host at its first touch, whatever its size */
	int memlock_short;      /* RLIMIT_MEMLOCK below the arena and no CAP_IPC_LOCK
	                         * (mlock pinning would fail) */
	int memlock_lifted;     /* below the arena, but CAP_IPC_LOCK lifts the limit */
	int hugetlb_short;      /* pool free pages below what the arena needs */
	int64_t hugetlb_needed, hugetlb_free; /* pages; free = HugePages_Free - HugePages_Rsvd */
	int mem_short;          /* arena above MemAvailable */
	char thp_reason[256];   /* one line: the THP judgement with its numbers */
};

/* lsc__assess - judge an arena of @arena_bytes against @s. Never fails on
 * n/a fields (they make the judgement say "n/a"). Return 0 or -EINVAL. */
int lsc__assess(const struct lsc_system *s, uint64_t arena_bytes, struct lsc__assessment *out);

/*
 * lsc__free_unreported - on a guest with free page reporting (@s says so),
 * the free memory in blocks below the reported order, read from
 * "<proc_root>/buddyinfo" (NULL: "/proc"): never reported, so the host
 * still backs it, and 4 KiB faults take it first. The order is
 * page_reporting_order, else the huge-page order; *@order gets it when
 * @order is not NULL. Return: bytes, or LSC_NA (no reporting, or buddyinfo
 * unreadable). Thread-safe; allocates nothing.
 */
int64_t lsc__free_unreported(const char *proc_root, const struct lsc_system *s, unsigned *order);

#endif
