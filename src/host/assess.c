/*
 * The arena assessment (see assess.h): would an arena of N bytes stall,
 * fail to lock, or not fit? Kept apart from the probe and the loader so that
 * the warning `loadscope probe` prints and the choice the loader's `auto`
 * policy makes come from one table.
 *
 * The THP stall (seed 001, transhuge.rst): an MADV_HUGEPAGE fault under
 * defrag always, madvise or defer+madvise that finds no free huge-page-sized
 * block reclaims and compacts in the faulting thread. On this project's
 * 2-core build machine a fragmented 6 GiB fault took 21 s instead of 3 s
 * (compact_stall == compact_fail, docs in shared/reference). Free memory in
 * blocks of that size (buddyinfo) is what such faults can take for free.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "format/human.h"
#include "host/assess.h"
#include "host/procfs.h"

#ifndef PR_THP_DISABLE_EXCEPT_ADVISED
#define PR_THP_DISABLE_EXCEPT_ADVISED (1 << 1)
#endif

static int is(const char *a, const char *b)
{
	return !strcmp(a, b);
}

static int allows_madvised(const char *choice)
{
	return is(choice, "always") || is(choice, "madvise");
}

/*
 * Can any THP size serve an madvised region? With multi-size THP (6.8+)
 * the top-level `enabled` only governs the sizes set to "inherit"; each
 * size can also say always/madvise/never itself. Without per-size files the
 * top-level choice decides alone.
 */
static int thp_enabled_somewhere(const struct lsc_system *s)
{
	int top = allows_madvised(s->thp_enabled);

	if (s->n_mthp == 0)
		return top;
	for (unsigned i = 0; i < s->n_mthp && i < LSC_MTHP_MAX; i++) {
		const char *e = s->mthp[i].enabled;

		if (allows_madvised(e) || (is(e, "inherit") && top))
			return 1;
	}
	return 0;
}

/* Has the process turned THP off for itself (PR_SET_THP_DISABLE)? The
 * "except advised" mode still gives THP to MADV_HUGEPAGE regions, which is
 * exactly what an arena is. Without the prctl, THP_enabled says the same. */
static int process_disabled(const struct lsc_system *s)
{
	int64_t b = s->prctl_thp_disable;

	if (b != LSC_NA && b >= 0)
		return (b & 1) && !(b & PR_THP_DISABLE_EXCEPT_ADVISED);
	return is(s->proc_thp_enabled, "0");
}

/* 1: an madvised fault compacts in the faulting thread; 0: it defers or
 * never compacts; -1: unknown. */
static int defrag_sync(const char *defrag)
{
	if (is(defrag, "always") || is(defrag, "madvise") || is(defrag, "defer+madvise"))
		return 1;
	if (is(defrag, "defer") || is(defrag, "never"))
		return 0;
	return -1;
}

/* The block size as people say it: "2 MiB", "512 MiB", "1 GiB". */
static void fmt_block(char *out, size_t cap, int64_t hpage)
{
	if (hpage == LSC_NA || hpage <= 0)
		hpage = 2 << 20;
	if (hpage % (1 << 30) == 0)
		snprintf(out, cap, "%lld GiB", (long long)(hpage >> 30));
	else if (hpage % (1 << 20) == 0)
		snprintf(out, cap, "%lld MiB", (long long)(hpage >> 20));
	else
		snprintf(out, cap, "%lld KiB", (long long)(hpage >> 10));
}

static void thp_reason(const struct lsc_system *s, uint64_t arena, struct lsc__assessment *a)
{
	char free_s[LSC__HBUF], arena_s[LSC__HBUF], block[32];
	char *r = a->thp_reason;
	size_t cap = sizeof(a->thp_reason);

	lsc__fmt_bytes(arena_s, (double)arena);
	fmt_block(block, sizeof(block), s->hpage_pmd_size);
	lsc__fmt_bytes(free_s, a->huge_free_bytes == LSC_NA ? -1.0 : (double)a->huge_free_bytes);

	if (process_disabled(s))
		snprintf(r, cap, "THP is disabled for this process (prctl %s, THP_enabled %s): "
			 "no huge-page faults", lsc_thp_disable_name(s->prctl_thp_disable),
			 s->proc_thp_enabled[0] ? s->proc_thp_enabled : "n/a");
	else if (!a->thp_possible && !s->thp_enabled[0])
		snprintf(r, cap, "THP settings n/a (transparent_hugepage/enabled unreadable): "
			 "no judgement");
	else if (!a->thp_possible)
		snprintf(r, cap, "enabled=%s and no THP size allows madvised regions: "
			 "no huge-page faults", s->thp_enabled);
	else if (a->sync_compaction < 0)
		snprintf(r, cap, "THP is possible but defrag is n/a: cannot tell whether "
			 "MADV_HUGEPAGE faults compact synchronously (%s free in %s blocks for %s)",
			 free_s, block, arena_s);
	else if (a->sync_compaction == 0)
		snprintf(r, cap, "defrag=%s never compacts in the faulting thread: a fault without "
			 "a free %s block falls back to 4 KiB pages at once", s->thp_defrag, block);
	else if (a->stall_risk)
		snprintf(r, cap, "defrag=%s compacts synchronously for MADV_HUGEPAGE regions and "
			 "only %s of %s is free in %s blocks", s->thp_defrag, free_s, arena_s, block);
	else
		snprintf(r, cap, "defrag=%s compacts synchronously for MADV_HUGEPAGE regions, but "
			 "%s is free in %s blocks, enough for %s", s->thp_defrag, free_s, block, arena_s);
}

/* ceil(arena / page), or LSC_NA without a page size. */
static int64_t hugetlb_pages(uint64_t arena, int64_t page_kib)
{
	uint64_t page;

	if (page_kib == LSC_NA || page_kib <= 0 || (uint64_t)page_kib > UINT64_MAX / 1024)
		return LSC_NA;
	page = (uint64_t)page_kib * 1024;
	return (int64_t)(arena / page + (arena % page != 0));
}

int lsc__assess(const struct lsc_system *s, uint64_t arena_bytes, struct lsc__assessment *out)
{
	if (!s || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));

	out->thp_possible = thp_enabled_somewhere(s) && !process_disabled(s);
	out->sync_compaction = defrag_sync(s->thp_defrag);
	out->huge_free_bytes = s->free_huge_blocks_bytes;
	out->stall_risk = out->thp_possible && out->sync_compaction == 1 &&
			  (out->huge_free_bytes == LSC_NA || out->huge_free_bytes < 0 ||
			   (uint64_t)out->huge_free_bytes < arena_bytes);
	out->host_refault = s->page_reporting == 1;

	int below = s->memlock_cur != LSC_UNLIMITED && s->memlock_cur != LSC_NA &&
		    s->memlock_cur >= 0 && (uint64_t)s->memlock_cur < arena_bytes;
	out->memlock_lifted = below && s->cap_ipc_lock == 1;
	out->memlock_short = below && !out->memlock_lifted;

	/* An empty pool (HugePages_Total 0) means hugetlb is not in use here:
	 * only a configured pool that is too small is a shortfall. The numbers
	 * are filled either way for a caller that wants a hugetlb arena. */
	out->hugetlb_needed = hugetlb_pages(arena_bytes, s->hugetlb_page_kib);
	/* HugePages_Free still counts pages that other mappings reserved
	 * (HugePages_Rsvd): only the difference can be had. */
	out->hugetlb_free = s->hugetlb_free == LSC_NA ? LSC_NA
			    : s->hugetlb_free - (s->hugetlb_rsvd != LSC_NA ? s->hugetlb_rsvd : 0);
	out->hugetlb_short = out->hugetlb_needed != LSC_NA && s->hugetlb_total != LSC_NA &&
			     s->hugetlb_total > 0 && out->hugetlb_free != LSC_NA &&
			     out->hugetlb_needed > out->hugetlb_free;

	out->mem_short = s->mem_available != LSC_NA && s->mem_available >= 0 &&
			 arena_bytes > (uint64_t)s->mem_available;

	thp_reason(s, arena_bytes, out);
	return 0;
}

int64_t lsc__free_unreported(const char *proc_root, const struct lsc_system *s, unsigned *order)
{
	unsigned o = 0;
	long page = sysconf(_SC_PAGESIZE);

	if (s->page_reporting_order != LSC_NA && s->page_reporting_order > 0 && s->page_reporting_order < 20) {
		o = (unsigned)s->page_reporting_order;
	} else {
		/* The kernel's default: pageblock_order, the huge-page order. */
		int64_t hp = s->hpage_pmd_size > 0 ? s->hpage_pmd_size : 2 << 20;
		while (page > 0 && ((int64_t)page << o) < hp && o < 20)
			o++;
	}
	if (order)
		*order = o;
	if (s->page_reporting != 1)
		return LSC_NA;
	int64_t v = lsc__buddy_free_below(proc_root, o);
	return v < 0 ? LSC_NA : v;
}
