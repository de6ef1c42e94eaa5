/*
 * Description: the arena assessment (lsc__assess, src/host/assess.c),
 * the one judgement `loadscope probe` and the loader's `auto` policy share:
 * the THP decision table (enabled x defrag x mTHP sizes x the process's
 * prctl x free huge blocks), memlock, hugetlb and MemAvailable shortfalls at
 * their edges, the one-line reason with its numbers, and the fixture trees.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <loadscope/profiler.h>

#include "host/assess.h"

#define FX LSC_TEST_FIXTURES
#define MIB (1024LL * 1024)
#define GIB (1024LL * MIB)

/* A machine with nothing wrong for a 4 GiB arena. */
static struct lsc_system base(void)
{
	struct lsc_system s;

	memset(&s, 0, sizeof(s));
	strcpy(s.kernel, "6.18.0");
	strcpy(s.thp_enabled, "madvise");
	strcpy(s.thp_defrag, "madvise");
	strcpy(s.thp_shmem_enabled, "never");
	s.khugepaged_defrag = 1;
	s.khugepaged_max_ptes_none = 511;
	s.hpage_pmd_size = 2 * MIB;
	s.prctl_thp_disable = 0;
	strcpy(s.proc_thp_enabled, "1");
	s.hugetlb_total = s.hugetlb_free = s.hugetlb_rsvd = 0;
	s.hugetlb_page_kib = 2048;
	s.memlock_cur = s.memlock_max = LSC_UNLIMITED;
	s.mem_total = 64 * GIB;
	s.mem_available = 48 * GIB;
	s.free_huge_blocks_bytes = 8 * GIB;
	s.numa_nodes = 1;
	return s;
}

static struct lsc__assessment judge(const struct lsc_system *s, uint64_t arena)
{
	struct lsc__assessment a;

	memset(&a, 0x5a, sizeof(a));
	cr_assert_eq(lsc__assess(s, arena, &a), 0);
	return a;
}

Test(assess, nothing_wrong)
{
	struct lsc_system s = base();
	struct lsc__assessment a = judge(&s, 4 * GIB);

	cr_assert_eq(a.thp_possible, 1);
	cr_assert_eq(a.sync_compaction, 1);
	cr_assert_eq(a.huge_free_bytes, 8 * GIB);
	cr_assert_eq(a.stall_risk, 0);
	cr_assert_eq(a.memlock_short, 0);
	cr_assert_eq(a.hugetlb_short, 0);
	cr_assert_eq(a.mem_short, 0);
	cr_assert_eq(a.hugetlb_needed, 2048);
	cr_assert_eq(a.hugetlb_free, 0);
	cr_assert_str_eq(a.thp_reason, "defrag=madvise compacts synchronously for MADV_HUGEPAGE "
				       "regions, but 8.00 GiB is free in 2 MiB blocks, enough for "
				       "4.00 GiB");
}

Test(assess, null_arguments)
{
	struct lsc_system s = base();
	struct lsc__assessment a;

	cr_assert_eq(lsc__assess(NULL, 1, &a), -EINVAL);
	cr_assert_eq(lsc__assess(&s, 1, NULL), -EINVAL);
}

/* ---- THP: enabled x defrag ------------------------------------------------ */

struct thp_case {
	const char *enabled, *defrag;
	int possible, sync, stall;
};

Test(assess, enabled_by_defrag_table)
{
	static const struct thp_case cases[] = {
		{"always", "always", 1, 1, 1},
		{"always", "madvise", 1, 1, 1},
		{"always", "defer+madvise", 1, 1, 1},
		{"always", "defer", 1, 0, 0},
		{"always", "never", 1, 0, 0},
		{"always", "", 1, -1, 0},
		{"madvise", "always", 1, 1, 1},
		{"madvise", "madvise", 1, 1, 1},
		{"madvise", "defer+madvise", 1, 1, 1},
		{"madvise", "defer", 1, 0, 0},
		{"madvise", "never", 1, 0, 0},
		{"madvise", "bogus", 1, -1, 0},
		{"never", "always", 0, 1, 0},
		{"never", "madvise", 0, 1, 0},
		{"never", "defer", 0, 0, 0},
		{"", "madvise", 0, 1, 0},
		{"", "", 0, -1, 0},
		{"bogus", "madvise", 0, 1, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct thp_case *c = &cases[i];
		struct lsc_system s = base();

		strcpy(s.thp_enabled, c->enabled);
		strcpy(s.thp_defrag, c->defrag);
		s.free_huge_blocks_bytes = 1 * GIB; /* below the arena */
		struct lsc__assessment a = judge(&s, 4 * GIB);

		cr_assert_eq(a.thp_possible, c->possible, "enabled=%s defrag=%s", c->enabled, c->defrag);
		cr_assert_eq(a.sync_compaction, c->sync, "enabled=%s defrag=%s", c->enabled, c->defrag);
		cr_assert_eq(a.stall_risk, c->stall, "enabled=%s defrag=%s", c->enabled, c->defrag);
	}
}

/* ---- THP: multi-size ------------------------------------------------------ */

struct mthp_case {
	const char *top;
	const char *sizes[3]; /* 64 kB, 1024 kB, 2048 kB */
	int possible;
};

Test(assess, mthp_sizes)
{
	static const struct mthp_case cases[] = {
		{"madvise", {"never", "never", "inherit"}, 1},  /* the 6.8+ default */
		{"always", {"never", "never", "inherit"}, 1},
		{"never", {"never", "never", "inherit"}, 0},
		{"madvise", {"never", "never", "never"}, 0},    /* top says madvise, no size inherits it */
		{"never", {"madvise", "never", "never"}, 1},    /* one size asks on its own */
		{"never", {"never", "always", "never"}, 1},
		{"never", {"inherit", "inherit", "inherit"}, 0},
		{"", {"never", "never", "madvise"}, 1},
		{"", {"never", "never", "inherit"}, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct mthp_case *c = &cases[i];
		static const uint32_t kib[] = {64, 1024, 2048};
		struct lsc_system s = base();

		strcpy(s.thp_enabled, c->top);
		s.n_mthp = 3;
		for (unsigned j = 0; j < 3; j++) {
			s.mthp[j].size_kib = kib[j];
			strcpy(s.mthp[j].enabled, c->sizes[j]);
		}
		cr_assert_eq(judge(&s, 4 * GIB).thp_possible, c->possible, "top=%s sizes=%s,%s,%s",
			     c->top, c->sizes[0], c->sizes[1], c->sizes[2]);
	}
}

/* ---- THP: the process's own switch ---------------------------------------- */

struct prctl_case {
	int64_t bits;
	const char *status;
	int possible;
};

Test(assess, process_thp_disable)
{
	static const struct prctl_case cases[] = {
		{0, "1", 1},
		{1, "0", 0},            /* PR_SET_THP_DISABLE */
		{3, "1", 1},            /* except advised: an madvised arena still gets THP */
		{LSC_NA, "0", 0},       /* no prctl answer: status says it */
		{LSC_NA, "1", 1},
		{LSC_NA, "", 1},        /* nothing known: the system settings decide */
		{0, "", 1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct prctl_case *c = &cases[i];
		struct lsc_system s = base();

		s.prctl_thp_disable = c->bits;
		strcpy(s.proc_thp_enabled, c->status);
		s.free_huge_blocks_bytes = 0;
		struct lsc__assessment a = judge(&s, 4 * GIB);

		cr_assert_eq(a.thp_possible, c->possible, "bits=%lld status='%s'", (long long)c->bits,
			     c->status);
		cr_assert_eq(a.stall_risk, c->possible, "bits=%lld status='%s'", (long long)c->bits,
			     c->status);
	}
}

/* ---- THP: free memory in huge blocks -------------------------------------- */

Test(assess, free_huge_blocks_edges)
{
	struct lsc_system s = base();

	s.free_huge_blocks_bytes = 4 * GIB - 1;
	cr_assert_eq(judge(&s, 4 * GIB).stall_risk, 1);
	s.free_huge_blocks_bytes = 4 * GIB;
	cr_assert_eq(judge(&s, 4 * GIB).stall_risk, 0, "exactly enough");
	s.free_huge_blocks_bytes = 0;
	cr_assert_eq(judge(&s, 4 * GIB).stall_risk, 1);
	s.free_huge_blocks_bytes = LSC_NA;
	cr_assert_eq(judge(&s, 4 * GIB).stall_risk, 1, "unknown free blocks: assume the worst");
	cr_assert_eq(judge(&s, 4 * GIB).huge_free_bytes, LSC_NA);
}

/* ---- memlock, hugetlb, MemAvailable --------------------------------------- */

Test(assess, memlock_edges)
{
	struct lsc_system s = base();

	s.memlock_cur = 64 * 1024;
	cr_assert_eq(judge(&s, 4 * GIB).memlock_short, 1);
	s.memlock_cur = 4 * GIB;
	cr_assert_eq(judge(&s, 4 * GIB).memlock_short, 0, "exactly the arena");
	s.memlock_cur = 4 * GIB - 1;
	cr_assert_eq(judge(&s, 4 * GIB).memlock_short, 1);
	s.memlock_cur = LSC_UNLIMITED;
	cr_assert_eq(judge(&s, UINT64_MAX).memlock_short, 0);
	s.memlock_cur = LSC_NA;
	cr_assert_eq(judge(&s, 4 * GIB).memlock_short, 0, "unknown: no claim");
}

Test(assess, hugetlb_edges)
{
	struct lsc_system s = base();
	struct lsc__assessment a;

	s.hugetlb_total = 16;
	s.hugetlb_free = 4;
	a = judge(&s, 8 * MIB);
	cr_assert_eq(a.hugetlb_needed, 4);
	cr_assert_eq(a.hugetlb_free, 4);
	cr_assert_eq(a.hugetlb_short, 0, "4 pages of 2 MiB hold 8 MiB");
	a = judge(&s, 8 * MIB + 1);
	cr_assert_eq(a.hugetlb_needed, 5, "rounded up");
	cr_assert_eq(a.hugetlb_short, 1);

	s.hugetlb_page_kib = 1024 * 1024; /* 1 GiB pages */
	s.hugetlb_total = s.hugetlb_free = 40;
	a = judge(&s, 40 * GIB);
	cr_assert_eq(a.hugetlb_needed, 40);
	cr_assert_eq(a.hugetlb_short, 0);

	/* Pages reserved by other mappings are free but cannot be had. */
	s.hugetlb_rsvd = 1;
	a = judge(&s, 40 * GIB);
	cr_assert_eq(a.hugetlb_free, 39);
	cr_assert_eq(a.hugetlb_short, 1, "40 needed, 40 free, 1 of them reserved");
	s.hugetlb_rsvd = 0;

	/* no pool at all: hugetlb is not in use, not a shortfall */
	s = base();
	a = judge(&s, 40 * GIB);
	cr_assert_eq(a.hugetlb_short, 0);
	cr_assert_eq(a.hugetlb_needed, 20480, "the numbers are there for a caller that wants one");

	s.hugetlb_page_kib = LSC_NA;
	s.hugetlb_total = 16;
	a = judge(&s, 40 * GIB);
	cr_assert_eq(a.hugetlb_needed, LSC_NA);
	cr_assert_eq(a.hugetlb_short, 0);

	s = base();
	s.hugetlb_total = s.hugetlb_free = LSC_NA;
	a = judge(&s, 40 * GIB);
	cr_assert_eq(a.hugetlb_short, 0);
	cr_assert_eq(a.hugetlb_free, LSC_NA);
}

Test(assess, mem_available_edges)
{
	struct lsc_system s = base();

	cr_assert_eq(judge(&s, 48 * GIB).mem_short, 0, "exactly MemAvailable");
	cr_assert_eq(judge(&s, 48 * GIB + 1).mem_short, 1);
	s.mem_available = LSC_NA;
	cr_assert_eq(judge(&s, UINT64_MAX).mem_short, 0);
}

/* ---- the reason line ------------------------------------------------------ */

static const char *reason_of(const struct lsc_system *s, uint64_t arena)
{
	static struct lsc__assessment a;

	cr_assert_eq(lsc__assess(s, arena, &a), 0);
	return a.thp_reason;
}

Test(assess, reason_lines)
{
	struct lsc_system s = base();

	s.free_huge_blocks_bytes = 3328 * MIB;
	cr_assert_str_eq(reason_of(&s, 40 * GIB),
			 "defrag=madvise compacts synchronously for MADV_HUGEPAGE regions and only "
			 "3.25 GiB of 40.00 GiB is free in 2 MiB blocks");
	s.free_huge_blocks_bytes = LSC_NA;
	s.hpage_pmd_size = GIB; /* e.g. PUD-sized */
	strcpy(s.thp_defrag, "always");
	cr_assert_str_eq(reason_of(&s, 40 * GIB),
			 "defrag=always compacts synchronously for MADV_HUGEPAGE regions and only "
			 "n/a of 40.00 GiB is free in 1 GiB blocks");
	s = base();
	s.hpage_pmd_size = 512 * MIB; /* arm64 with 64 KiB pages */
	strcpy(s.thp_defrag, "defer");
	cr_assert_str_eq(reason_of(&s, 40 * GIB),
			 "defrag=defer never compacts in the faulting thread: a fault without a free "
			 "512 MiB block falls back to 4 KiB pages at once");
	s = base();
	strcpy(s.thp_enabled, "never");
	cr_assert_str_eq(reason_of(&s, 40 * GIB),
			 "enabled=never and no THP size allows madvised regions: no huge-page faults");
	s = base();
	s.prctl_thp_disable = 1;
	strcpy(s.proc_thp_enabled, "0");
	cr_assert_str_eq(reason_of(&s, 40 * GIB),
			 "THP is disabled for this process (prctl disabled, THP_enabled 0): no "
			 "huge-page faults");
	s = base();
	s.thp_enabled[0] = '\0';
	s.thp_defrag[0] = '\0';
	cr_assert_str_eq(reason_of(&s, 40 * GIB),
			 "THP settings n/a (transparent_hugepage/enabled unreadable): no judgement");
	s = base();
	s.thp_defrag[0] = '\0';
	s.hpage_pmd_size = LSC_NA;
	cr_assert_str_eq(reason_of(&s, 40 * GIB),
			 "THP is possible but defrag is n/a: cannot tell whether MADV_HUGEPAGE faults "
			 "compact synchronously (8.00 GiB free in 2 MiB blocks for 40.00 GiB)");
}

/* ---- the fixture trees ---------------------------------------------------- */

static struct lsc__assessment judge_tree(const char *tree, uint64_t arena)
{
	char proc[512], sys[512];
	struct lsc_system s;

	snprintf(proc, sizeof(proc), "%s/%s/proc", FX, tree);
	snprintf(sys, sizeof(sys), "%s/%s/sys", FX, tree);
	cr_assert_eq(lsc_system_read(proc, sys, &s), 0);
	/* the process-level fields are this test's: pin them to "off" */
	s.prctl_thp_disable = 0;
	s.memlock_cur = LSC_UNLIMITED;
	return judge(&s, arena);
}

Test(assess, fixture_trees)
{
	struct lsc__assessment a;

	/* seed 001's machine: defrag=madvise, 20 MiB free in 2 MiB blocks */
	a = judge_tree("always-defer-madvise", 40 * GIB);
	cr_assert_eq(a.stall_risk, 1);
	cr_assert_eq(a.huge_free_bytes, 20 * MIB);
	cr_assert_eq(a.hugetlb_short, 1);
	cr_assert_eq(a.hugetlb_needed, 20480);
	cr_assert_eq(a.hugetlb_free, 2, "4 free, 2 of them reserved");
	cr_assert_eq(a.mem_short, 1);
	cr_assert_str_eq(a.thp_reason, "defrag=madvise compacts synchronously for MADV_HUGEPAGE "
				       "regions and only 20.0 MiB of 40.00 GiB is free in 2 MiB "
				       "blocks");

	a = judge_tree("old-kernel-no-mthp", 4 * GIB);
	cr_assert_eq(a.thp_possible, 1);
	cr_assert_eq(a.sync_compaction, 0);
	cr_assert_eq(a.stall_risk, 0);
	cr_assert_eq(a.mem_short, 0);

	a = judge_tree("host-6.18-madvise", 2 * GIB);
	cr_assert_eq(a.stall_risk, 0, "3.94 GiB free in 2 MiB blocks covers 2 GiB");
	a = judge_tree("host-6.18-madvise", 8 * GIB);
	cr_assert_eq(a.stall_risk, 1);

	a = judge_tree("container-no-vmstat", 4 * GIB);
	cr_assert_eq(a.thp_possible, 0);
	cr_assert_eq(a.sync_compaction, -1);
	cr_assert_eq(a.stall_risk, 0);
	cr_assert_eq(a.hugetlb_short, 0);

	a = judge_tree("garbage", 4 * GIB);
	cr_assert_eq(a.stall_risk, 0);
	cr_assert_eq(a.mem_short, 0);
}

/* Free page reporting gives idle free memory back to the host: whatever the
 * page size, the arena's first touch faults it in again there. It is not a
 * compaction risk and does not change the THP judgement. */
Test(assess, free_page_reporting_is_a_host_refault)
{
	struct lsc_system s = base();
	struct lsc__assessment plain = judge(&s, 4 * GIB);
	cr_assert_eq(plain.host_refault, 0);
	s.page_reporting = 1;
	s.page_reporting_order = 9;
	struct lsc__assessment a = judge(&s, 4 * GIB);
	cr_assert_eq(a.host_refault, 1);
	cr_assert_eq(a.stall_risk, 0, "plenty of free blocks: no compaction");
	cr_assert_str_eq(a.thp_reason, plain.thp_reason);
	s.prctl_thp_disable = 1; /* 4 KiB pages pay it too */
	cr_assert_eq(judge(&s, 4 * GIB).host_refault, 1);
	s.page_reporting = LSC_NA;
	cr_assert_eq(judge(&s, 4 * GIB).host_refault, 0);
}
