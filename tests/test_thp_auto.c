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
#include <unistd.h>

#include "format/human.h"
#include "host/procfs.h"
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
	cr_assert_eq(lsc__thp_auto(&s, (uint64_t)bytes, NULL, &d), 0);
	return d;
}

/* Seed 001: 40 GiB arena, defrag=madvise, RAM in use (few free 2 MiB
 * blocks): huge pages only for what the free blocks serve, less 1/16 kept
 * for the rest of the system (3 GiB - 192 MiB = 2880 MiB), watched; 4 KiB
 * pages for the rest. */
Test(thp_auto, seed_001_stall_risk_splits)
{
	struct lsc__thp_decision d = decide(machine("madvise", "madvise", 3 * GIB), 40 * GIB);
	cr_expect_eq(d.policy, LSC_THP_THP, "reason: %s", d.reason);
	cr_expect_eq(d.huge_bytes, 2880ull << 20, "huge %llu", (unsigned long long)d.huge_bytes);
	cr_expect_eq(d.watch, 1);
	cr_expect(strstr(d.reason, "stall risk"), "reason: %s", d.reason);
	cr_expect(strstr(d.reason, "huge pages for the first 2.81 GiB, 4 KiB pages for the other "
				   "37.19 GiB"), "reason: %s", d.reason);
	cr_expect(strstr(d.reason, "defrag=madvise"), "the reason names the defrag mode: %s", d.reason);
	char b[LSC__HBUF];
	cr_expect(strstr(d.reason, lsc__fmt_bytes(b, 3.0 * GIB)), "the reason has the free blocks: %s",
		  d.reason);
	cr_expect(strstr(d.reason, lsc__fmt_bytes(b, 40.0 * GIB)), "the reason has the arena size: %s",
		  d.reason);
}

Test(thp_auto, defrag_always_and_defer_madvise_also_stall)
{
	/* 1 GiB free: 960 MiB of huge pages, watched. */
	struct lsc__thp_decision d = decide(machine("always", "always", 1 * GIB), 8 * GIB);
	cr_expect_eq(d.policy, LSC_THP_THP);
	cr_expect_eq(d.huge_bytes, 960ull << 20);
	cr_expect_eq(d.watch, 1);
	d = decide(machine("madvise", "defer+madvise", 1 * GIB), 8 * GIB);
	cr_expect_eq(d.huge_bytes, 960ull << 20);
	cr_expect_eq(d.watch, 1);
}

/* Under 64 MiB of usable free blocks the split is not worth it: all 4 KiB
 * (64 MiB free keeps 4 MiB back: 60 MiB). */
Test(thp_auto, few_free_blocks_is_4k)
{
	struct lsc__thp_decision d = decide(machine("madvise", "madvise", 64 << 20), 8 * GIB);
	cr_expect_eq(d.policy, LSC_THP_4K, "reason: %s", d.reason);
	cr_expect_eq(d.huge_bytes, 0);
	cr_expect_eq(d.watch, 0);
	d = decide(machine("madvise", "madvise", 70 << 20), 8 * GIB); /* 70 - 4.375 -> 64 MiB */
	cr_expect_eq(d.policy, LSC_THP_THP, "reason: %s", d.reason);
	cr_expect_eq(d.huge_bytes, 64ull << 20);
}

Test(thp_auto, room_in_free_blocks_is_thp)
{
	struct lsc__thp_decision d = decide(machine("madvise", "madvise", 20 * GIB), 8 * GIB);
	cr_expect_eq(d.policy, LSC_THP_THP, "reason: %s", d.reason);
	cr_expect_eq(d.huge_bytes, 8ull << 30, "all of it");
	cr_expect_eq(d.watch, 1, "the free blocks are a snapshot: watched");
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
	cr_expect_eq(d.huge_bytes, 40ull << 30);
	cr_expect_eq(d.watch, 0, "nothing to watch: a fault never compacts");
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
	cr_expect_lt(lsc__thp_auto(NULL, GIB, NULL, &d), 0);
	cr_expect_eq(d.policy, LSC_THP_4K);
	cr_expect_lt(lsc__thp_auto(NULL, GIB, NULL, NULL), 0);
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

/* Without what the host still backs (no lsc__auto_host), the VM's tree
 * decides exactly as the host's, each against literal expectations. */
Test(thp_auto, fixture_vm_without_host_figures_decides_as_the_host)
{
	static const char *const trees[] = {"vm-page-reporting", "host-6.18-madvise"};
	for (unsigned i = 0; i < 2; i++) {
		struct lsc_system s = fixture(trees[i]);
		cr_assert_eq(s.free_huge_blocks_bytes, FX_FREE_BLOCKS, "%s", trees[i]);
		struct lsc__thp_decision d = decide(s, 2015 * MIB);
		cr_expect_eq(d.policy, LSC_THP_THP, "%s, half the free blocks: %s", trees[i], d.reason);
		cr_expect(strstr(d.reason, "3.94 GiB"), "%s: the reason has the free blocks: %s", trees[i],
			  d.reason);
		/* Twice the free blocks: the split, as on the host. 15/16 of the
		 * 4225761280 free bytes is 3961651200, 3778 MiB in whole 2 MiB
		 * pages. */
		d = decide(s, 8060 * MIB);
		cr_expect_eq(d.policy, LSC_THP_THP, "%s, twice the free blocks: %s", trees[i], d.reason);
		cr_expect_eq(d.huge_bytes, 3778ull * MIB, "%s: huge %llu", trees[i],
			     (unsigned long long)d.huge_bytes);
		cr_expect_eq(d.watch, 1, "%s", trees[i]);
		cr_expect(strstr(d.reason, "huge pages for the first 3.69 GiB"), "%s: %s", trees[i], d.reason);
		cr_expect(strstr(d.reason, "stall risk"), "%s: %s", trees[i], d.reason);
		cr_expect(strstr(d.reason, "defrag=madvise"), "%s: %s", trees[i], d.reason);
	}
}

/* The fixture's buddyinfo below order 9, by hand (KiB): DMA 1 x 1024;
 * DMA32 8 + 24 + 0 + 64 + 192 + 256 + 256 + 2048 + 4096 = 6944; Normal
 * 11636 + 8488 + 7168 + 9056 + 7744 + 10240 + 7168 + 4608 + 7168 = 73276;
 * 81244 KiB in all. Less 1/16 (5077.75 KiB), down to 2 MiB: 74 MiB. */
#define FX_UNREPORTED (81244ll * 1024)
#define FX_COVER (74ll * MIB)

static struct lsc__thp_decision decide_host(struct lsc_system s, int64_t bytes, int64_t unreported,
					    int device)
{
	struct lsc__thp_decision d;
	struct lsc__auto_host h = {unreported, device};
	cr_assert_eq(lsc__thp_auto(&s, (uint64_t)bytes, &h, &d), 0);
	return d;
}

Test(thp_auto, fixture_vm_free_below_the_reporting_order)
{
	char proc[512];
	snprintf(proc, sizeof proc, "%s/vm-page-reporting/proc", LSC_TEST_FIXTURES);
	cr_expect_eq(lsc__buddy_free_below(proc, 9), FX_UNREPORTED);
	/* NULL is this machine's /proc, as the header says. */
	if (access("/proc/buddyinfo", R_OK) == 0)
		cr_expect_geq(lsc__buddy_free_below(NULL, 9), 0);
	struct lsc_system s = fixture("vm-page-reporting");
	cr_expect_eq(s.page_reporting, 1);
	cr_expect_eq(s.page_reporting_order, 9);
}

/* Free page reporting: what the unreported free blocks cover is watched
 * for host refaults (the prefault measures, prefault_adaptive.c); the
 * huge pages are judged as without reporting. */
Test(thp_auto, page_reporting_watches_what_the_host_still_backs)
{
	struct lsc_system s = fixture("vm-page-reporting");
	/* All of a 64 MiB arena fits in the 74 MiB cover: huge pages (room),
	 * all of it watched for refaults. */
	struct lsc__thp_decision d = decide_host(s, 64 * MIB, FX_UNREPORTED, 0);
	cr_expect_eq(d.policy, LSC_THP_THP, "reason: %s", d.reason);
	cr_expect_eq(d.huge_bytes, 64ull * MIB);
	cr_expect_eq(d.watch, 1);
	cr_expect_eq(d.refault_cover, 64ull * MIB);
	cr_expect(strstr(d.reason, "free page reporting: 64.0 MiB of it watched for host refaults"),
		  "reason: %s", d.reason);
	/* 2015 MiB: the 1941 MiB beyond the cover is not watched for it. */
	d = decide_host(s, 2015 * MIB, FX_UNREPORTED, 0);
	cr_expect_eq(d.policy, LSC_THP_THP, "reason: %s", d.reason);
	cr_expect_eq(d.huge_bytes, 2015ull * MIB, "huge %llu", (unsigned long long)d.huge_bytes);
	cr_expect_eq(d.refault_cover, (uint64_t)FX_COVER);
	cr_expect(strstr(d.reason, "room"), "reason: %s", d.reason);
	cr_expect(strstr(d.reason, "74.0 MiB of it watched"), "reason: %s", d.reason);
	/* 8060 MiB: the split of 3778 MiB, as without reporting, and the
	 * cover within it. */
	d = decide_host(s, 8060 * MIB, FX_UNREPORTED, 0);
	cr_expect_eq(d.huge_bytes, 3778ull * MIB, "huge %llu", (unsigned long long)d.huge_bytes);
	cr_expect_eq(d.refault_cover, (uint64_t)FX_COVER);
	cr_expect(strstr(d.reason, "stall risk"), "reason: %s", d.reason);
	/* defrag=defer: huge pages never compact, yet a refault is still
	 * watched for. */
	struct lsc_system defer = s;
	snprintf(defer.thp_defrag, sizeof defer.thp_defrag, "defer");
	d = decide_host(defer, 64 * MIB, FX_UNREPORTED, 0);
	cr_expect_eq(d.watch, 1, "reason: %s", d.reason);
	cr_expect_eq(d.refault_cover, 64ull * MIB);
}

Test(thp_auto, page_reporting_rule_needs_reporting_and_a_host_pin)
{
	struct lsc_system vm = fixture("vm-page-reporting"), host = fixture("host-6.18-madvise");
	/* A GPU pin keeps the huge pages unwatched for refaults (cheaper to
	 * register per page). */
	struct lsc__thp_decision d = decide_host(vm, 64 * MIB, FX_UNREPORTED, 1);
	cr_expect_eq(d.policy, LSC_THP_THP, "reason: %s", d.reason);
	cr_expect_eq(d.huge_bytes, 64ull * MIB);
	cr_expect_eq(d.refault_cover, 0);
	cr_expect_null(strstr(d.reason, "free page reporting"), "reason: %s", d.reason);
	/* No reporting (the host's tree), or the figure unknown: none. */
	d = decide_host(host, 64 * MIB, FX_UNREPORTED, 0);
	cr_expect_eq(d.refault_cover, 0);
	d = decide_host(vm, 64 * MIB, LSC_NA, 0);
	cr_expect_eq(d.refault_cover, 0);
	/* A cover of less than a huge page is none: 1 MiB, less 1/16, is 0. */
	d = decide_host(vm, 64 * MIB, MIB, 0);
	cr_expect_eq(d.refault_cover, 0, "reason: %s", d.reason);
	/* No huge pages at all (THP off): nothing to watch. */
	struct lsc_system never = vm;
	snprintf(never.thp_enabled, sizeof never.thp_enabled, "never");
	d = decide_host(never, 64 * MIB, FX_UNREPORTED, 0);
	cr_expect_eq(d.policy, LSC_THP_4K);
	cr_expect_eq(d.refault_cover, 0);
	cr_expect_eq(d.watch, 0);
}

/* A 64 MiB `auto` allocation by a profiler over fixture tree @tree, its
 * lines in *@cap; release with lsc__arena_release and lsc_profiler_destroy. */
static lsc_profiler *alloc_on_tree(const char *tree, struct lsct_capture *cap, struct lsc__arena *a)
{
	struct lsc_profiler_options po;
	struct lsc_load_options o;
	lsc_profiler *p = NULL;
	char proc[512], sys[512];

	unsetenv("LOADSCOPE_ARENA_THP");
	snprintf(proc, sizeof proc, "%s/%s/proc", LSC_TEST_FIXTURES, tree);
	snprintf(sys, sizeof sys, "%s/%s/sys", LSC_TEST_FIXTURES, tree);
	memset(cap, 0, sizeof *cap);
	lsc_profiler_options_init(&po);
	po.sink = lsct_sink;
	po.sink_user = cap;
	po.mode = LSC_MODE_ON;
	po.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
	po.proc_root = proc;
	po.sys_root = sys;
	cr_assert_eq(lsc_profiler_create(&po, &p), 0);
	lsc_load_options_init(&o);
	cr_assert_eq(lsc__arena_alloc(p, &o, 64 << 20, a), 0, "%s", cap->buf);
	return p;
}

/* The allocation on the VM tree finds the figure itself (buddyinfo under
 * the profiler's proc root) and says so on its arena line. Whether the
 * prefault then moves the cover depends on this machine's rates, which
 * the test does not judge (test_prefault_adaptive.c does, with fixture
 * readings). */
Test(thp_auto, auto_allocation_on_a_reporting_vm_watches_for_refaults)
{
	struct lsct_capture cap;
	struct lsc__arena a;
	lsc_profiler *p = alloc_on_tree("vm-page-reporting", &cap, &a);
	cr_expect_eq(a.wanted, LSC_THP_AUTO);
	cr_expect_eq(a.applied, LSC_THP_THP, "%s", a.thp_reason);
	cr_expect_eq(a.auto_refault_cover, 64ull * MIB);
	cr_expect_eq(lsct_count_with(&cap, "arena", "auto_refault_cover_bytes=67108864"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "arena", "watched for host refaults"), 1, "%s", cap.buf);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}

Test(thp_auto, auto_allocation_prints_its_numbers)
{
	struct lsct_capture cap;
	struct lsc__arena a;
	lsc_profiler *p = alloc_on_tree("host-6.18-madvise", &cap, &a);
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
	/* buddyinfo: DMA 1 x 2 MiB + 3 x 4 MiB, DMA32 2 x 2 MiB + 752 x 4 MiB,
	 * Normal 251 x 4 MiB = 4030 MiB; less 1/16 (251.875 MiB), down to
	 * 2 MiB: 3778 MiB. */
	cr_assert_eq(room, 4030ll << 20);
	d = decide(s, room * 2);
	cr_expect_eq(d.policy, LSC_THP_THP, "twice the free blocks: %s", d.reason);
	cr_expect_eq(d.huge_bytes, 3778ull << 20, "huge %llu", (unsigned long long)d.huge_bytes);
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
	struct lsc__arena a;
	lsc_profiler *p = alloc_on_tree("old-kernel-no-mthp", &cap, &a);
	cr_expect_eq(a.applied, LSC_THP_THP, "defrag=never in the fixture: %s", a.thp_reason);
	cr_expect_eq(lsct_count_with(&cap, "arena", "thp_defrag=never"), 1, "%s", cap.buf);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}
