/*
 * Description: the `auto` THP policy decides from the system snapshot.
 * Snapshots are built by hand (the machines of the seed reports and the
 * cases around them) and judged through lsc__assess, the judgement shared
 * with `loadscope probe`; then an allocation with `auto` over a fixture tree prints its
 * decision with the fixture tree's numbers on one `arena` line.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "format/human.h"
#include "helpers/capture.h"
#include "loader/arena.h"
#include "loader/arena_int.h"

#define GIB (1ll << 30)

/* A plain 2026 machine: 64 GiB, THP madvise/madvise, no hugetlb pool. */
static struct lsc_system machine(const char *enabled, const char *defrag, int64_t huge_free)
{
	struct lsc_system s;
	memset(&s, 0, sizeof s);
	snprintf(s.kernel, sizeof s.kernel, "6.18.0");
	snprintf(s.thp_enabled, sizeof s.thp_enabled, "%s", enabled);
	snprintf(s.thp_defrag, sizeof s.thp_defrag, "%s", defrag);
	s.khugepaged_defrag = 1;
	s.khugepaged_max_ptes_none = 511;
	s.hpage_pmd_size = 2 << 20;
	s.prctl_thp_disable = 0;
	snprintf(s.proc_thp_enabled, sizeof s.proc_thp_enabled, "1");
	s.hugetlb_total = s.hugetlb_free = s.hugetlb_rsvd = 0;
	s.hugetlb_page_kib = 2048;
	s.memlock_cur = s.memlock_max = 8 << 20;
	s.mem_total = 64 * GIB;
	s.mem_available = 48 * GIB;
	s.free_huge_blocks_bytes = huge_free;
	s.numa_nodes = 1;
	s.swap_total = s.swap_free = 0;
	return s;
}

static struct lsc__thp_decision decide(struct lsc_system s, int64_t bytes)
{
	struct lsc__thp_decision d;
	cr_assert_eq(lsc__thp_auto(&s, (uint64_t)bytes, &d), 0);
	return d;
}

/* Seed 001: 40 GiB arena, defrag=madvise, RAM in use (few free 2 MiB blocks). */
Test(thp_auto, seed_001_stall_risk_is_4k)
{
	struct lsc__thp_decision d = decide(machine("madvise", "madvise", 3 * GIB), 40 * GIB);
	cr_expect_eq(d.policy, LSC_THP_4K, "reason: %s", d.reason);
	cr_expect(strstr(d.reason, "stall risk"), "reason: %s", d.reason);
	cr_expect(strstr(d.reason, "defrag=madvise"), "the reason names the defrag mode: %s", d.reason);
	char b[LSC__HBUF];
	cr_expect(strstr(d.reason, lsc__fmt_bytes(b, 3.0 * GIB)), "the reason has the free blocks: %s",
		  d.reason);
	cr_expect(strstr(d.reason, lsc__fmt_bytes(b, 40.0 * GIB)), "the reason has the arena size: %s",
		  d.reason);
}

Test(thp_auto, defrag_always_and_defer_madvise_also_stall)
{
	cr_expect_eq(decide(machine("always", "always", 1 * GIB), 8 * GIB).policy, LSC_THP_4K);
	cr_expect_eq(decide(machine("madvise", "defer+madvise", 1 * GIB), 8 * GIB).policy, LSC_THP_4K);
}

Test(thp_auto, room_in_free_blocks_is_thp)
{
	struct lsc__thp_decision d = decide(machine("madvise", "madvise", 20 * GIB), 8 * GIB);
	cr_expect_eq(d.policy, LSC_THP_THP, "reason: %s", d.reason);
	char b[LSC__HBUF];
	cr_expect(strstr(d.reason, lsc__fmt_bytes(b, 20.0 * GIB)), "reason: %s", d.reason);
}

Test(thp_auto, thp_disabled_is_4k)
{
	struct lsc__thp_decision d = decide(machine("never", "madvise", 20 * GIB), 8 * GIB);
	cr_expect_eq(d.policy, LSC_THP_4K);
	cr_expect(strstr(d.reason, "THP disabled"), "reason: %s", d.reason);
	cr_expect(strstr(d.reason, "never"), "reason names the mode: %s", d.reason);
}

Test(thp_auto, process_disabled_is_4k)
{
	struct lsc_system s = machine("madvise", "madvise", 20 * GIB);
	s.prctl_thp_disable = 1;
	snprintf(s.proc_thp_enabled, sizeof s.proc_thp_enabled, "0");
	struct lsc__thp_decision d = decide(s, 8 * GIB);
	cr_expect_eq(d.policy, LSC_THP_4K, "reason: %s", d.reason);
	cr_expect(strstr(d.reason, "THP disabled"), "reason: %s", d.reason);
}

Test(thp_auto, deferred_defrag_cannot_stall)
{
	struct lsc__thp_decision d = decide(machine("madvise", "defer", 1 * GIB), 40 * GIB);
	cr_expect_eq(d.policy, LSC_THP_THP, "reason: %s", d.reason);
	d = decide(machine("always", "never", 0), 40 * GIB);
	cr_expect_eq(d.policy, LSC_THP_THP, "reason: %s", d.reason);
}

Test(thp_auto, unknown_defrag_is_4k)
{
	struct lsc__thp_decision d = decide(machine("madvise", "", 20 * GIB), 8 * GIB);
	cr_expect_eq(d.policy, LSC_THP_4K, "reason: %s", d.reason);
	cr_expect(strstr(d.reason, "defrag n/a"), "reason: %s", d.reason);
}

Test(thp_auto, unknown_free_blocks_with_sync_compaction_is_4k)
{
	struct lsc__thp_decision d = decide(machine("madvise", "madvise", LSC_NA), 8 * GIB);
	cr_expect_eq(d.policy, LSC_THP_4K, "reason: %s", d.reason);
	cr_expect(strstr(d.reason, "n/a"), "reason: %s", d.reason);
}

Test(thp_auto, no_snapshot_is_a_safe_4k)
{
	struct lsc__thp_decision d;
	cr_expect_lt(lsc__thp_auto(NULL, GIB, &d), 0);
	cr_expect_eq(d.policy, LSC_THP_4K);
	cr_expect_lt(lsc__thp_auto(NULL, GIB, NULL), 0);
}

/* ---- fixture trees: copies of real /proc and /sys ------------------------ */

static struct lsc_system fixture(const char *name)
{
	char proc[512], sys[512];
	struct lsc_system s;
	snprintf(proc, sizeof proc, "%s/%s/proc", LSC_TEST_FIXTURES, name);
	snprintf(sys, sizeof sys, "%s/%s/sys", LSC_TEST_FIXTURES, name);
	cr_assert_eq(lsc_system_read(proc, sys, &s), 0);
	/* The process-level field comes from this process: make it neutral. */
	s.prctl_thp_disable = 0;
	snprintf(s.proc_thp_enabled, sizeof s.proc_thp_enabled, "1");
	return s;
}

/* The two trees have the same buddyinfo: 2 MiB blocks or larger free are
 * DMA 1 + 3x2, DMA32 2 + 752x2 and Normal 251x2 of 2 MiB, 4030 MiB in all
 * (4225761280 bytes, counted by hand from the file). */
#define FX_FREE_BLOCKS 4225761280ll
#define MIB (1ll << 20)

/* Free page reporting makes the first touch slow whatever the page size
 * (docs/benchmarks.md: 4 KiB pages moved the cost into the read phase and
 * the load took 1.18x as long), so it does not steer the policy: the VM's
 * tree decides exactly as the host's, each against literal expectations. */
Test(thp_auto, fixture_vm_with_page_reporting_decides_as_the_host)
{
	static const char *const trees[] = {"vm-page-reporting", "host-6.18-madvise"};
	for (unsigned i = 0; i < 2; i++) {
		struct lsc_system s = fixture(trees[i]);
		cr_assert_eq(s.free_huge_blocks_bytes, FX_FREE_BLOCKS, "%s", trees[i]);
		struct lsc__thp_decision d = decide(s, 2015 * MIB);
		cr_expect_eq(d.policy, LSC_THP_THP, "%s, half the free blocks: %s", trees[i], d.reason);
		cr_expect(strstr(d.reason, "3.94 GiB"), "%s: the reason has the free blocks: %s", trees[i],
			  d.reason);
		d = decide(s, 8060 * MIB);
		cr_expect_eq(d.policy, LSC_THP_4K, "%s, twice the free blocks: %s", trees[i], d.reason);
		cr_expect(strstr(d.reason, "stall risk"), "%s: %s", trees[i], d.reason);
		cr_expect(strstr(d.reason, "defrag=madvise"), "%s: %s", trees[i], d.reason);
	}
}

/* An allocation under auto on the host tree: 64 MiB against 3.94 GiB of
 * free 2 MiB blocks is thp, and the one arena line carries the tree's
 * numbers. */
Test(thp_auto, auto_allocation_prints_its_numbers)
{
	struct lsct_capture cap;
	struct lsc_profiler_options po;
	struct lsc_load_options o;
	struct lsc__arena a;
	lsc_profiler *p = NULL;
	char proc[512], sys[512];

	unsetenv("LOADSCOPE_ARENA_THP");
	snprintf(proc, sizeof proc, "%s/host-6.18-madvise/proc", LSC_TEST_FIXTURES);
	snprintf(sys, sizeof sys, "%s/host-6.18-madvise/sys", LSC_TEST_FIXTURES);
	memset(&cap, 0, sizeof cap);
	lsc_profiler_options_init(&po);
	po.sink = lsct_sink;
	po.sink_user = &cap;
	po.mode = LSC_MODE_ON;
	po.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
	po.proc_root = proc;
	po.sys_root = sys;
	cr_assert_eq(lsc_profiler_create(&po, &p), 0);
	lsc_load_options_init(&o);
	cr_assert_eq(lsc__arena_alloc(p, &o, 64 << 20, &a), 0, "%s", cap.buf);
	cr_expect_eq(a.wanted, LSC_THP_AUTO);
	cr_expect_eq(a.applied, LSC_THP_THP, "%s", a.thp_reason);
	cr_expect_eq(lsct_count_with(&cap, "arena", NULL), 1, "%s", cap.buf);
	const char *keys[] = {"policy=thp ", "requested=auto", "reason=", "thp_enabled=madvise",
			      "thp_defrag=madvise", "free_huge_blocks_bytes=4225761280",
			      "arena_bytes=67108864"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		cr_expect_eq(lsct_count_with(&cap, "arena", keys[i]), 1, "no %s in: %s", keys[i], cap.buf);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}

Test(thp_auto, fixture_host_madvise_decides_by_free_blocks)
{
	struct lsc_system s = fixture("host-6.18-madvise");
	cr_assert_str_eq(s.thp_defrag, "madvise");
	cr_assert_gt(s.free_huge_blocks_bytes, 0, "the fixture's buddyinfo has free 2 MiB blocks");
	int64_t room = s.free_huge_blocks_bytes;
	struct lsc__thp_decision d = decide(s, room / 2);
	cr_expect_eq(d.policy, LSC_THP_THP, "half the free blocks: %s", d.reason);
	d = decide(s, room * 2);
	cr_expect_eq(d.policy, LSC_THP_4K, "twice the free blocks: %s", d.reason);
	cr_expect(strstr(d.reason, "stall risk"), "reason: %s", d.reason);
}

Test(thp_auto, fixture_defrag_never_is_thp)
{
	struct lsc_system s = fixture("old-kernel-no-mthp");
	cr_assert_str_eq(s.thp_defrag, "never");
	struct lsc__thp_decision d = decide(s, 1024 * GIB);
	cr_expect_eq(d.policy, LSC_THP_THP, "reason: %s", d.reason);
}

Test(thp_auto, fixture_container_without_thp_files_is_4k)
{
	struct lsc_system s = fixture("container-no-vmstat");
	struct lsc__thp_decision d = decide(s, 8 * GIB);
	cr_expect_eq(d.policy, LSC_THP_4K, "reason: %s", d.reason);
}

/* The allocation reads the snapshot through the profiler's roots. */
Test(thp_auto, allocation_uses_the_profiler_roots)
{
	struct lsct_capture cap;
	struct lsc_profiler_options po;
	struct lsc_load_options o;
	struct lsc__arena a;
	lsc_profiler *p = NULL;
	char proc[512], sys[512];

	unsetenv("LOADSCOPE_ARENA_THP");
	snprintf(proc, sizeof proc, "%s/old-kernel-no-mthp/proc", LSC_TEST_FIXTURES);
	snprintf(sys, sizeof sys, "%s/old-kernel-no-mthp/sys", LSC_TEST_FIXTURES);
	memset(&cap, 0, sizeof cap);
	lsc_profiler_options_init(&po);
	po.sink = lsct_sink;
	po.sink_user = &cap;
	po.mode = LSC_MODE_ON;
	po.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
	po.proc_root = proc;
	po.sys_root = sys;
	cr_assert_eq(lsc_profiler_create(&po, &p), 0);
	lsc_load_options_init(&o);
	cr_assert_eq(lsc__arena_alloc(p, &o, 64 << 20, &a), 0, "%s", cap.buf);
	cr_expect_eq(a.applied, LSC_THP_THP, "defrag=never in the fixture: %s", a.thp_reason);
	cr_expect_eq(lsct_count_with(&cap, "arena", "thp_defrag=never"), 1, "%s", cap.buf);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}
