/*
 * Description: the system snapshot (lsc_system_read, src/host/system.c)
 * on the fixture trees of four kernels and a garbage tree, with exact values
 * from the copied files; the process-level fields (prctl THP bits, memlock
 * limit) from the real process after changing them; mTHP sizes sorted and
 * capped; the huge-page order taken from hpage_pmd_size.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#include "format/line.h"
#include "helpers/capture.h"
#include "host/assess.h"
#include "host/procfs.h"
#include "profiler/internal.h"

#ifndef PR_THP_DISABLE_EXCEPT_ADVISED
#define PR_THP_DISABLE_EXCEPT_ADVISED (1 << 1)
#endif

#define FX LSC_TEST_FIXTURES
#define KIB 1024LL
#define MIB (1024LL * 1024)

static struct lsc_system snap(const char *tree)
{
	char proc[512], sys[512];
	struct lsc_system s;

	snprintf(proc, sizeof(proc), "%s/%s/proc", FX, tree);
	snprintf(sys, sizeof(sys), "%s/%s/sys", FX, tree);
	memset(&s, 0x5a, sizeof(s)); /* every field must be written */
	cr_assert_eq(lsc_system_read(proc, sys, &s), 0);
	return s;
}

static void assert_mthp(const struct lsc_system *s, unsigned i, uint32_t kib, const char *enabled)
{
	cr_assert_lt(i, s->n_mthp);
	cr_assert_eq(s->mthp[i].size_kib, kib, "mthp[%u] %u kB, want %u", i, s->mthp[i].size_kib, kib);
	cr_assert_str_eq(s->mthp[i].enabled, enabled, "mthp[%u] (%u kB)", i, kib);
}

/* What comes from the process, not from the root. */
static void assert_process_fields(const struct lsc_system *s)
{
	struct rlimit rl;
	int bits = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);

	cr_assert_eq(s->prctl_thp_disable, bits < 0 ? LSC_NA : bits);
	cr_assert_eq(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	if (rl.rlim_cur == RLIM_INFINITY)
		cr_assert_eq(s->memlock_cur, LSC_UNLIMITED);
	else
		cr_assert_eq(s->memlock_cur, (int64_t)rl.rlim_cur);
}

Test(system, host_6_18_madvise)
{
	struct lsc_system s = snap("host-6.18-madvise");
	static const uint32_t sizes[] = {16, 32, 64, 128, 256, 512, 1024};

	cr_assert_str_eq(s.kernel, "6.18.44-fc-v782");
	cr_assert_str_eq(s.thp_enabled, "madvise");
	cr_assert_str_eq(s.thp_defrag, "madvise");
	cr_assert_str_eq(s.thp_shmem_enabled, "never");
	cr_assert_eq(s.khugepaged_defrag, 1);
	cr_assert_eq(s.khugepaged_max_ptes_none, 511);
	cr_assert_eq(s.hpage_pmd_size, 2 * MIB);
	/* hugepages-8kB has no "enabled" (order 1 is not offered for anon) */
	cr_assert_eq(s.n_mthp, 8);
	for (unsigned i = 0; i < 7; i++)
		assert_mthp(&s, i, sizes[i], "never");
	assert_mthp(&s, 7, 2048, "inherit");
	cr_assert_str_eq(s.proc_thp_enabled, "1");
	cr_assert_eq(s.hugetlb_total, 0);
	cr_assert_eq(s.hugetlb_free, 0);
	cr_assert_eq(s.hugetlb_rsvd, 0);
	cr_assert_eq(s.hugetlb_page_kib, 2048);
	cr_assert_eq(s.mem_total, 24683620 * KIB);
	cr_assert_eq(s.mem_available, 24345512 * KIB);
	cr_assert_eq(s.swap_total, 0);
	cr_assert_eq(s.swap_free, 0);
	cr_assert_eq(s.free_huge_blocks_bytes, (2 + 12 + 4 + 3008 + 1004) * MIB);
	cr_assert_eq(s.numa_nodes, 1);
	cr_assert_eq(s.page_reporting, LSC_NA, "the tree has no sys/bus");
	cr_assert_eq(s.page_reporting_order, LSC_NA);
	assert_process_fields(&s);
}

/* The same machine with its virtio devices (a balloon with feature bit 5,
 * VIRTIO_BALLOON_F_REPORTING, and a network device) and the page_reporting
 * module parameter, copied from the build VM. */
Test(system, vm_with_free_page_reporting)
{
	struct lsc_system s = snap("vm-page-reporting");

	cr_assert_eq(s.page_reporting, 1);
	cr_assert_eq(s.page_reporting_order, 9);
	cr_assert_str_eq(s.thp_defrag, "madvise");
}

Test(system, always_defer_madvise_6_8)
{
	struct lsc_system s = snap("always-defer-madvise");

	cr_assert_str_eq(s.kernel, "6.8.0-49-generic");
	cr_assert_str_eq(s.thp_enabled, "always");
	cr_assert_str_eq(s.thp_defrag, "madvise");
	cr_assert_str_eq(s.thp_shmem_enabled, "never");
	cr_assert_eq(s.hpage_pmd_size, 2 * MIB);
	cr_assert_eq(s.n_mthp, 8);
	assert_mthp(&s, 0, 16, "never");
	assert_mthp(&s, 2, 64, "madvise");
	assert_mthp(&s, 7, 2048, "inherit");
	cr_assert_eq(s.hugetlb_total, 16);
	cr_assert_eq(s.hugetlb_free, 4);
	cr_assert_eq(s.hugetlb_rsvd, 2);
	cr_assert_eq(s.hugetlb_page_kib, 2048);
	cr_assert_eq(s.mem_total, 65843212 * KIB);
	cr_assert_eq(s.mem_available, 3145728 * KIB);
	cr_assert_eq(s.swap_total, 8388604 * KIB);
	cr_assert_eq(s.swap_free, 1048576 * KIB);
	cr_assert_eq(s.free_huge_blocks_bytes, 20 * MIB);
	cr_assert_eq(s.numa_nodes, 2);
	assert_process_fields(&s);
}

Test(system, old_kernel_4_4_without_mthp)
{
	struct lsc_system s = snap("old-kernel-no-mthp");

	cr_assert_str_eq(s.kernel, "4.4.0-210-generic");
	cr_assert_str_eq(s.thp_enabled, "always");
	cr_assert_str_eq(s.thp_defrag, "never");
	cr_assert_str_eq(s.thp_shmem_enabled, "", "4.8 added shmem_enabled");
	cr_assert_eq(s.khugepaged_defrag, 1);
	cr_assert_eq(s.khugepaged_max_ptes_none, 511);
	cr_assert_eq(s.hpage_pmd_size, LSC_NA, "4.10 added hpage_pmd_size");
	cr_assert_eq(s.n_mthp, 0);
	cr_assert_str_eq(s.proc_thp_enabled, "");
	cr_assert_eq(s.hugetlb_total, 0);
	cr_assert_eq(s.hugetlb_page_kib, 2048);
	cr_assert_eq(s.mem_total, 32844004 * KIB);
	cr_assert_eq(s.mem_available, 14903212 * KIB);
	cr_assert_eq(s.swap_total, 2097148 * KIB);
	cr_assert_eq(s.swap_free, 2092332 * KIB);
	/* no hpage_pmd_size: order 9 by default. DMA 1x2M + 3x4M, DMA32 6x2M +
	 * 401x4M, Normal 8x2M + 1452x4M */
	cr_assert_eq(s.free_huge_blocks_bytes, (2 + 12 + 12 + 1604 + 16 + 5808) * MIB);
	cr_assert_eq(s.numa_nodes, 1);
}

Test(system, container_without_thp_or_vmstat)
{
	struct lsc_system s = snap("container-no-vmstat");

	cr_assert_str_eq(s.kernel, "4.4.0");
	cr_assert_str_eq(s.thp_enabled, "");
	cr_assert_str_eq(s.thp_defrag, "");
	cr_assert_str_eq(s.thp_shmem_enabled, "");
	cr_assert_eq(s.khugepaged_defrag, LSC_NA);
	cr_assert_eq(s.khugepaged_max_ptes_none, LSC_NA);
	cr_assert_eq(s.hpage_pmd_size, LSC_NA);
	cr_assert_eq(s.n_mthp, 0);
	cr_assert_str_eq(s.proc_thp_enabled, "");
	cr_assert_eq(s.hugetlb_total, LSC_NA);
	cr_assert_eq(s.hugetlb_free, LSC_NA);
	cr_assert_eq(s.hugetlb_rsvd, LSC_NA);
	cr_assert_eq(s.hugetlb_page_kib, LSC_NA);
	cr_assert_eq(s.mem_total, 16777216 * KIB);
	cr_assert_eq(s.mem_available, 12104512 * KIB);
	cr_assert_eq(s.swap_total, 0);
	cr_assert_eq(s.free_huge_blocks_bytes, LSC_NA);
	cr_assert_eq(s.numa_nodes, LSC_NA);
	assert_process_fields(&s);
}

Test(system, garbage_is_na_everywhere)
{
	struct lsc_system s = snap("garbage");

	cr_assert_str_eq(s.kernel, "");
	cr_assert_str_eq(s.thp_enabled, "");       /* "[madv" */
	cr_assert_str_eq(s.thp_defrag, "");        /* empty */
	cr_assert_str_eq(s.thp_shmem_enabled, ""); /* no brackets */
	cr_assert_eq(s.khugepaged_defrag, LSC_NA); /* binary */
	cr_assert_eq(s.khugepaged_max_ptes_none, LSC_NA); /* 10 KB of digits */
	cr_assert_eq(s.hpage_pmd_size, LSC_NA);    /* "2097152abc" */
	/* hugepages-64kB has two choices, hugepages-XkB and -kB are not sizes */
	cr_assert_eq(s.n_mthp, 1);
	assert_mthp(&s, 0, 2048, "inherit");
	cr_assert_str_eq(s.proc_thp_enabled, "");
	cr_assert_eq(s.mem_total, LSC_NA); /* behind a 100 KB first line */
	cr_assert_eq(s.mem_available, LSC_NA);
	cr_assert_eq(s.hugetlb_total, LSC_NA);
	cr_assert_eq(s.hugetlb_page_kib, LSC_NA);
	cr_assert_eq(s.swap_total, LSC_NA);
	cr_assert_eq(s.free_huge_blocks_bytes, LSC_NA);
	cr_assert_eq(s.numa_nodes, LSC_NA); /* "nodeX" and "node" are not nodes */
	assert_process_fields(&s);
}

Test(system, missing_roots_are_na)
{
	struct lsc_system s;

	cr_assert_eq(lsc_system_read(FX "/none/proc", FX "/none/sys", &s), 0);
	cr_assert_str_eq(s.kernel, "");
	cr_assert_str_eq(s.thp_enabled, "");
	cr_assert_eq(s.mem_total, LSC_NA);
	cr_assert_eq(s.numa_nodes, LSC_NA);
	cr_assert_eq(s.n_mthp, 0);
}

Test(system, null_out)
{
	cr_assert_eq(lsc_system_read(NULL, NULL, NULL), -EINVAL);
}

Test(system, the_real_machine)
{
	struct lsc_system s;
	struct utsname u;

	cr_assert_eq(lsc_system_read(NULL, NULL, &s), 0);
	cr_assert_eq(uname(&u), 0);
	cr_assert_str_eq(s.kernel, u.release);
	cr_assert_gt(s.mem_total, 0);
	cr_assert_gt(s.mem_available, 0);
	cr_assert_leq(s.mem_available, s.mem_total);
	assert_process_fields(&s);
	if (access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK))
		cr_skip_test("no transparent_hugepage in /sys");
	cr_assert_neq(s.thp_enabled[0], '\0');
	cr_assert_neq(s.thp_defrag[0], '\0');
	cr_assert_neq(s.free_huge_blocks_bytes, LSC_NA);
	cr_assert_leq(s.free_huge_blocks_bytes, s.mem_total);
}

/* ---- process-level fields ------------------------------------------------- */

Test(system, prctl_disable_shows_in_both_places)
{
	struct lsc_system s;

	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0)
		cr_skip_test("PR_SET_THP_DISABLE: %s", strerror(errno));
	cr_assert_eq(lsc_system_read(NULL, NULL, &s), 0);
	cr_assert_eq(s.prctl_thp_disable, 1);
	cr_assert_str_eq(lsc_thp_disable_name(s.prctl_thp_disable), "disabled");
	if (s.proc_thp_enabled[0])
		cr_assert_str_eq(s.proc_thp_enabled, "0");
	cr_assert_eq(prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0), 0);
	cr_assert_eq(lsc_system_read(NULL, NULL, &s), 0);
	cr_assert_eq(s.prctl_thp_disable, 0);
}

Test(system, prctl_disable_except_advised)
{
	struct lsc_system s;

	if (prctl(PR_SET_THP_DISABLE, 1, PR_THP_DISABLE_EXCEPT_ADVISED, 0, 0) != 0)
		cr_skip_test("PR_THP_DISABLE_EXCEPT_ADVISED not supported by this kernel (6.18+): %s",
			     strerror(errno));
	cr_assert_eq(lsc_system_read(NULL, NULL, &s), 0);
	cr_assert_eq(s.prctl_thp_disable, 1 | PR_THP_DISABLE_EXCEPT_ADVISED);
	cr_assert_str_eq(lsc_thp_disable_name(s.prctl_thp_disable), "disabled-except-advised");
}

Test(system, memlock_limit)
{
	struct rlimit rl = {64 * 1024, 64 * 1024};
	struct lsc_system s;

	cr_assert_eq(setrlimit(RLIMIT_MEMLOCK, &rl), 0);
	cr_assert_eq(lsc_system_read(FX "/garbage/proc", FX "/garbage/sys", &s), 0);
	cr_assert_eq(s.memlock_cur, 65536);
	cr_assert_eq(s.memlock_max, 65536);
}

/* RLIM_INFINITY cannot be reached by setrlimit where the hard limit is
 * finite (no CAP_SYS_RESOURCE): the seam gives it. */
static rlim_t fake_cur, fake_max;
static int fake_errno;

static int fake_getrlimit(int resource, struct rlimit *rl)
{
	if (resource != RLIMIT_MEMLOCK || fake_errno) {
		errno = fake_errno ? fake_errno : EINVAL;
		return -1;
	}
	rl->rlim_cur = fake_cur;
	rl->rlim_max = fake_max;
	return 0;
}

static const struct lsc__system_sys fake_sys = {.getrlimit = fake_getrlimit};

static void read_with(rlim_t cur, rlim_t max, int err, struct lsc_system *s)
{
	fake_cur = cur;
	fake_max = max;
	fake_errno = err;
	lsc__system_sys_set(&fake_sys);
	int ret = lsc_system_read(NULL, NULL, s);
	lsc__system_sys_set(NULL);
	cr_assert_eq(ret, 0);
}

static void render(const struct lsc_system *s, char *line, size_t cap)
{
	struct lsc__rec r;

	lsc__rec_init(&r, "system");
	lsc__system_rec(&r, s);
	lsc__rec_render(&r, LSC_FORMAT_HUMAN, "", line, cap);
}

Test(system, memlock_unlimited)
{
	struct lsc_system s;
	struct lsc__assessment a;
	char line[LSC__LINE_MAX];

	read_with(RLIM_INFINITY, RLIM_INFINITY, 0, &s);
	cr_assert_eq(s.memlock_cur, LSC_UNLIMITED);
	cr_assert_eq(s.memlock_max, LSC_UNLIMITED);
	render(&s, line, sizeof(line));
	cr_assert(strstr(line, "; memlock unlimited"), "human part: %s", line);
	cr_assert(strstr(line, " memlock_bytes=unlimited "), "fields: %s", line);
	/* the probe: an unlimited memlock never binds, whatever the arena,
	 * without CAP_IPC_LOCK to lift it */
	s.cap_ipc_lock = 0;
	cr_assert_eq(lsc__assess(&s, 1ull << 40, &a), 0);
	cr_assert_eq(a.memlock_short, 0);
	cr_assert_eq(a.memlock_lifted, 0);
}

Test(system, memlock_finite_and_failed_through_the_seam)
{
	struct lsc_system s;
	struct lsc__assessment a;
	char line[LSC__LINE_MAX];

	read_with(8388608, RLIM_INFINITY, 0, &s);
	cr_assert_eq(s.memlock_cur, 8388608);
	cr_assert_eq(s.memlock_max, LSC_UNLIMITED);
	render(&s, line, sizeof(line));
	cr_assert(strstr(line, " memlock_bytes=8388608 "), "fields: %s", line);
	s.cap_ipc_lock = 0;
	cr_assert_eq(lsc__assess(&s, 1ull << 30, &a), 0);
	cr_assert_eq(a.memlock_short, 1, "8 MiB against 1 GiB binds");

	read_with(0, 0, EPERM, &s);
	cr_assert_eq(s.memlock_cur, LSC_NA);
	cr_assert_eq(s.memlock_max, LSC_NA);
	render(&s, line, sizeof(line));
	cr_assert(strstr(line, " memlock_bytes=n/a "), "fields: %s", line);
}

Test(system, thp_disable_names)
{
	cr_assert_str_eq(lsc_thp_disable_name(0), "allowed");
	cr_assert_str_eq(lsc_thp_disable_name(1), "disabled");
	cr_assert_str_eq(lsc_thp_disable_name(3), "disabled-except-advised");
	cr_assert_str_eq(lsc_thp_disable_name(2), "allowed", "bit 1 means nothing without bit 0");
	cr_assert_str_eq(lsc_thp_disable_name(LSC_NA), "n/a");
	cr_assert_str_eq(lsc_thp_disable_name(-1), "n/a");
}

/* ---- trees built here: more sizes than fit, other huge-page sizes --------- */

static char tree[64];

static void put(const char *rel, const char *text)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	for (char *p = path + strlen(tree) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static void make_tree(void)
{
	strcpy(tree, "/tmp/lsc-system-XXXXXX");
	cr_assert_not_null(mkdtemp(tree));
}

static void remove_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	(void)!system(cmd);
}

static struct lsc_system snap_tree(void)
{
	char proc[128], sys[128];
	struct lsc_system s;

	snprintf(proc, sizeof(proc), "%s/proc", tree);
	snprintf(sys, sizeof(sys), "%s/sys", tree);
	cr_assert_eq(lsc_system_read(proc, sys, &s), 0);
	return s;
}

Test(system, mthp_sorted_and_capped, .init = make_tree, .fini = remove_tree)
{
	/* 20 sizes, created out of order: the 16 smallest are kept, sorted. */
	static const unsigned kib[] = {2048, 16, 1024,   64,    32,    4096,  128,
				       256,  512, 8192, 16384, 32768, 65536, 131072,
				       262144, 524288, 1048576, 24, 48, 96};
	char rel[128];

	for (unsigned i = 0; i < sizeof(kib) / sizeof(kib[0]); i++) {
		snprintf(rel, sizeof(rel), "sys/kernel/mm/transparent_hugepage/hugepages-%ukB/enabled",
			 kib[i]);
		put(rel, i % 2 ? "always inherit [madvise] never\n" : "always [inherit] madvise never\n");
	}
	struct lsc_system s = snap_tree();

	cr_assert_eq(s.n_mthp, LSC_MTHP_MAX);
	for (unsigned i = 1; i < s.n_mthp; i++)
		cr_assert_lt(s.mthp[i - 1].size_kib, s.mthp[i].size_kib);
	cr_assert_eq(s.mthp[0].size_kib, 16);
	cr_assert_str_eq(s.mthp[0].enabled, "madvise");
	cr_assert_eq(s.mthp[1].size_kib, 24);
	cr_assert_eq(s.mthp[LSC_MTHP_MAX - 1].size_kib, 65536);
	cr_assert_str_eq(s.mthp[LSC_MTHP_MAX - 1].enabled, "inherit");
}

Test(system, huge_order_follows_hpage_pmd_size, .init = make_tree, .fini = remove_tree)
{
	long page = sysconf(_SC_PAGESIZE);

	if (page != 4096)
		cr_skip_test("the buddyinfo below is written for 4 KiB pages, not %ld", page);
	put("proc/buddyinfo", "Node 0, zone   Normal      0      0      0      0      0      0      0"
			      "      0      0      1      1 \n");
	put("sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "4194304\n");
	cr_assert_eq(snap_tree().free_huge_blocks_bytes, 4 * MIB, "4 MiB pages: order 10 only");
	put("sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "2097152\n");
	cr_assert_eq(snap_tree().free_huge_blocks_bytes, 6 * MIB);
	put("sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "3000000\n");
	cr_assert_eq(snap_tree().free_huge_blocks_bytes, 6 * MIB, "not a power of two: order 9");
	put("sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "0\n");
	cr_assert_eq(snap_tree().hpage_pmd_size, LSC_NA);
	cr_assert_eq(snap_tree().free_huge_blocks_bytes, 6 * MIB, "n/a: order 9");
}

Test(system, kernel_release_from_the_tree, .init = make_tree, .fini = remove_tree)
{
	put("proc/sys/kernel/osrelease", "5.15.0-105-generic\n");
	cr_assert_str_eq(snap_tree().kernel, "5.15.0-105-generic");
	put("proc/sys/kernel/osrelease", "5.15.0 extra\n");
	cr_assert_str_eq(snap_tree().kernel, "");
	put("proc/sys/kernel/osrelease", "5.15.0\n6.1.0\n");
	cr_assert_str_eq(snap_tree().kernel, "");
	put("proc/sys/kernel/osrelease",
	    "0123456789012345678901234567890123456789012345678901234567890123456789\n");
	cr_assert_str_eq(snap_tree().kernel, "", "longer than a utsname release");
	/* an empty release, one that opens with a blank or a control byte: none */
	put("proc/sys/kernel/osrelease", "\n");
	cr_assert_str_eq(snap_tree().kernel, "");
	put("proc/sys/kernel/osrelease", " 5.15.0\n");
	cr_assert_str_eq(snap_tree().kernel, "");
	put("proc/sys/kernel/osrelease", "\x01" "5.15.0\n");
	cr_assert_str_eq(snap_tree().kernel, "");
	/* 64 bytes fit the 65 of a utsname release, 65 do not */
	char r64[80];
	memset(r64, 'a', 64);
	memcpy(r64 + 64, "\n", 2);
	put("proc/sys/kernel/osrelease", r64);
	cr_assert_eq(strlen(snap_tree().kernel), 64);
	memset(r64, 'a', 65);
	memcpy(r64 + 65, "\n", 2);
	put("proc/sys/kernel/osrelease", r64);
	cr_assert_str_eq(snap_tree().kernel, "");
}

/* lsc__kernel_at_least: the release's first two numbers against maj.min;
 * anything it cannot read says 0 (the callers' cautious side). */
Test(system, kernel_at_least_reads_the_release, .init = make_tree, .fini = remove_tree)
{
	char proc[128];
	snprintf(proc, sizeof(proc), "%s/proc", tree);
	cr_assert_eq(lsc__kernel_at_least(proc, 6, 10), 0, "no osrelease at all");
	put("proc/sys/kernel/osrelease", "6.18.44-fc-v973\n");
	cr_assert_eq(lsc__kernel_at_least(proc, 6, 10), 1);
	cr_assert_eq(lsc__kernel_at_least(proc, 6, 18), 1);
	cr_assert_eq(lsc__kernel_at_least(proc, 6, 19), 0);
	cr_assert_eq(lsc__kernel_at_least(proc, 7, 0), 0);
	put("proc/sys/kernel/osrelease", "6.9.12\n");
	cr_assert_eq(lsc__kernel_at_least(proc, 6, 10), 0, "9 < 10, not '9' > '1'");
	cr_assert_eq(lsc__kernel_at_least(proc, 5, 15), 1);
	put("proc/sys/kernel/osrelease", "5.14.0-427.el9.x86_64\n");
	cr_assert_eq(lsc__kernel_at_least(proc, 6, 10), 0);
	put("proc/sys/kernel/osrelease", "10.2\n");
	cr_assert_eq(lsc__kernel_at_least(proc, 6, 10), 1);
	put("proc/sys/kernel/osrelease", "6\n");
	cr_assert_eq(lsc__kernel_at_least(proc, 6, 0), 0, "no minor number");
	put("proc/sys/kernel/osrelease", "garbage\n");
	cr_assert_eq(lsc__kernel_at_least(proc, 0, 0), 0);
}

/* Only a balloon with the reporting bit reports: not a balloon without it,
 * not another virtio device with bit 5 set (one whose id ends in the
 * balloon's digits among them), not a bus without virtio. */
Test(system, page_reporting_needs_a_reporting_balloon, .init = make_tree, .fini = remove_tree)
{
	put("sys/bus/platform/.keep", "");
	struct lsc_system s = snap_tree();
	cr_assert_eq(s.page_reporting, 0, "a bus without virtio");
	put("sys/bus/virtio/devices/virtio0/device", "0x0005\n");
	put("sys/bus/virtio/devices/virtio0/features",
	    "0110000000000000000000000000000010000000000000000000000000000000\n");
	put("sys/bus/virtio/devices/virtio1/device", "0x0001\n");
	put("sys/bus/virtio/devices/virtio1/features",
	    "1100010110111011000000000000000000000000000000000000000000000000\n");
	/* the id is read whole: 0x1005 is not the balloon's 0x0005 */
	put("sys/bus/virtio/devices/virtio2/device", "0x1005\n");
	put("sys/bus/virtio/devices/virtio2/features",
	    "0110010000000000000000000000000010000000000000000000000000000000\n");
	put("sys/module/page_reporting/parameters/page_reporting_order", "9\n");
	s = snap_tree();
	cr_assert_eq(s.page_reporting, 0, "a balloon without bit 5, a net device and device 0x1005 with it");
	cr_assert_eq(s.page_reporting_order, LSC_NA);
	put("sys/bus/virtio/devices/virtio0/features",
	    "0110010000000000000000000000000010000000000000000000000000000000\n");
	s = snap_tree();
	cr_assert_eq(s.page_reporting, 1);
	cr_assert_eq(s.page_reporting_order, 9);
}

/* The system line gives every field of the snapshot it was made from, by
 * its key, in JSON and in verbose human lines alike: numbers as the
 * struct holds them, LSC_NA as "n/a", the strings as they are; on every
 * fixture tree. */
static struct lsct_capture syscap;
static void expect_num(const struct lsc__parsed *pl, const char *key, int64_t v, const char *where)
{
	const char *got = lsc__parsed_get(pl, key);
	cr_expect_not_null(got, "%s: no %s", where, key);
	if (!got)
		return;
	char want[32];
	if (v == LSC_NA)
		snprintf(want, sizeof want, "n/a");
	else if (v == LSC_UNLIMITED)
		snprintf(want, sizeof want, "unlimited");
	else
		snprintf(want, sizeof want, "%lld", (long long)v);
	cr_expect_str_eq(got, want, "%s: %s", where, key);
}

static void expect_str(const struct lsc__parsed *pl, const char *key, const char *v, const char *where)
{
	const char *got = lsc__parsed_get(pl, key);
	cr_expect_not_null(got, "%s: no %s", where, key);
	if (got)
		cr_expect_str_eq(got, v[0] ? v : "n/a", "%s: %s", where, key);
}

Test(system, the_system_line_gives_every_field)
{
	static const char *const trees[] = {"host-6.18-madvise", "always-defer-madvise", "old-kernel-no-mthp",
					    "container-no-vmstat", "garbage"};
	for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++)
		for (int json = 0; json < 2; json++) {
			char proc[512], sys[512];
			snprintf(proc, sizeof proc, "%s/%s/proc", FX, trees[i]);
			snprintf(sys, sizeof sys, "%s/%s/sys", FX, trees[i]);
			struct lsc_profiler_options o;
			lsc_profiler_options_init(&o);
			lsct_capture_reset(&syscap);
			o.sink = lsct_sink;
			o.sink_user = &syscap;
			o.proc_root = proc;
			o.sys_root = sys;
			o.format = json ? LSC_FORMAT_JSON : LSC_FORMAT_HUMAN;
			o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG | LSC_PROFILER_VERBOSE;
			lsc_profiler *p = NULL;
			cr_assert_eq(lsc_profiler_create(&o, &p), 0);
			cr_assert_eq(lsc_start_begin(p, "t"), 0);
			struct lsc_system s = snap(trees[i]);
			static char buf[LSC__LINE_MAX + 1];
			struct lsc__parsed pl;
			cr_assert(lsct_find(&syscap, "system", 0, buf, sizeof buf, &pl), "%s: no system line", trees[i]);
			expect_str(&pl, "kernel", s.kernel, trees[i]);
			expect_str(&pl, "thp_enabled", s.thp_enabled, trees[i]);
			expect_str(&pl, "thp_defrag", s.thp_defrag, trees[i]);
			expect_str(&pl, "thp_shmem", s.thp_shmem_enabled, trees[i]);
			expect_num(&pl, "thp_khugepaged_defrag", s.khugepaged_defrag, trees[i]);
			expect_num(&pl, "thp_max_ptes_none", s.khugepaged_max_ptes_none, trees[i]);
			expect_num(&pl, "thp_pmd_bytes", s.hpage_pmd_size, trees[i]);
			expect_str(&pl, "thp_prctl", lsc_thp_disable_name(s.prctl_thp_disable), trees[i]);
			expect_num(&pl, "hugetlb_total", s.hugetlb_total, trees[i]);
			expect_num(&pl, "hugetlb_free", s.hugetlb_free, trees[i]);
			expect_num(&pl, "hugetlb_page_kib", s.hugetlb_page_kib, trees[i]);
			expect_num(&pl, "memlock_bytes", s.memlock_cur, trees[i]);
			expect_num(&pl, "cap_ipc_lock", s.cap_ipc_lock, trees[i]);
			expect_num(&pl, "mem_total_bytes", s.mem_total, trees[i]);
			expect_num(&pl, "mem_available_bytes", s.mem_available, trees[i]);
			expect_num(&pl, "free_huge_blocks_bytes", s.free_huge_blocks_bytes, trees[i]);
			expect_num(&pl, "numa_nodes", s.numa_nodes, trees[i]);
			expect_num(&pl, "swap_total_bytes", s.swap_total, trees[i]);
			expect_num(&pl, "swap_free_bytes", s.swap_free, trees[i]);
			expect_num(&pl, "page_reporting", s.page_reporting, trees[i]);
			expect_num(&pl, "page_reporting_order", s.page_reporting_order, trees[i]);
			lsc_profiler_destroy(p);
		}
}

/* No free block at the huge-page order is 0 bytes free in huge blocks, a
 * figure the probe and the triage use: not n/a, which means "unknown".
 * The host-6.18 tree with a buddyinfo whose free blocks stop at order 8
 * (1 MiB on 4 KiB pages), one order below a 2 MiB huge page; one block at
 * order 9 added is 2 MiB. */
static void buddy_tree(const char *buddy, int64_t want)
{
	char dir[] = "/tmp/lsc-system-XXXXXX", cmd[1024], path[600];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -r '%s/host-6.18-madvise/proc' '%s/host-6.18-madvise/sys' '%s'", FX, FX, dir);
	cr_assert_eq(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/proc/buddyinfo", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(buddy, f);
	fclose(f);
	char proc[600], sys[600];
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	snprintf(sys, sizeof(sys), "%s/sys", dir);
	struct lsc_system s;
	memset(&s, 0x5a, sizeof(s));
	cr_assert_eq(lsc_system_read(proc, sys, &s), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(s.free_huge_blocks_bytes, want, "free in huge blocks: %lld, want %lld",
		     (long long)s.free_huge_blocks_bytes, (long long)want);
}

Test(system, no_free_huge_block_is_zero_bytes_not_na)
{
	buddy_tree("Node 0, zone   Normal   2909   1061    448    283    121     80     28      9      7      0      0 \n", 0);
	buddy_tree("Node 0, zone   Normal   2909   1061    448    283    121     80     28      9      7      1      0 \n",
		   2 * MIB);
}
