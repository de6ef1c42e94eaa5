/*
 * Description: the page backing of an address range from /proc/self/smaps
 * (lsc_region_read, src/host/region.c): exact sums over the mappings
 * that overlap a range in the fixture smaps files (real lines of this
 * machine, a 6.8-style file with THP and hugetlb mappings, a 4.4 file
 * without THPeligible, garbage), range edges, and real mappings made here
 * with MADV_HUGEPAGE, MADV_NOHUGEPAGE and mlock.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#include "host/procfs.h"

#define FX LSC_TEST_FIXTURES
#define KIB 1024ULL
#define MIB (1024ULL * 1024)

static struct lsc_region_info region(const char *root, uintptr_t lo, uintptr_t hi)
{
	struct lsc_region_info r;

	memset(&r, 0x5a, sizeof(r));
	cr_assert_eq(lsc__region_read_root(root, (const void *)lo, hi - lo, &r), 0);
	return r;
}

#define HOST FX "/host-6.18-madvise/proc"

/* The host file: 7fd7ab000000-7fd7ab400000 (4 MiB, mlocked, NOHUGEPAGE),
 * 7fd7ab400000-7fd7ac000000 (12 MiB, NOHUGEPAGE), 7fd7ac000000-7fd7b0000000
 * (64 MiB, MADV_HUGEPAGE, all in THPs), 7fd7b0000000-7fd7b0200000 (2 MiB). */
Test(region, host_three_mappings_exact)
{
	struct lsc_region_info r = region(HOST, 0x7fd7ab000000, 0x7fd7b0000000);

	cr_assert_eq(r.mappings, 3);
	cr_assert_eq(r.bytes, (4096 + 12288 + 65536) * KIB);
	cr_assert_eq(r.rss_bytes, (4096 + 12288 + 65536) * KIB);
	cr_assert_eq(r.anon_huge_bytes, 65536 * KIB);
	cr_assert_eq(r.hugetlb_bytes, 0);
	cr_assert_eq(r.locked_bytes, 4096 * KIB);
	cr_assert_eq(r.thp_eligible, 0, "the first mapping (NOHUGEPAGE) speaks");
}

Test(region, host_the_huge_mapping_alone)
{
	struct lsc_region_info r = region(HOST, 0x7fd7ac000000, 0x7fd7ac000000 + 64 * MIB);

	cr_assert_eq(r.mappings, 1);
	cr_assert_eq(r.bytes, 64 * MIB);
	cr_assert_eq(r.anon_huge_bytes, 64 * MIB);
	cr_assert_eq(r.locked_bytes, 0);
	cr_assert_eq(r.thp_eligible, 1);
}

Test(region, edges)
{
	struct lsc_region_info r;

	/* one byte inside a mapping counts the whole mapping */
	r = region(HOST, 0x7fd7ad000000, 0x7fd7ad000001);
	cr_assert_eq(r.mappings, 1);
	cr_assert_eq(r.bytes, 64 * MIB);
	/* a range ending where a mapping starts does not overlap it */
	r = region(HOST, 0x7fd7aa000000, 0x7fd7ab000000);
	cr_assert_eq(r.mappings, 0);
	cr_assert_eq(r.bytes, 0);
	cr_assert_eq(r.thp_eligible, -1);
	/* a range starting where a mapping ends does not overlap it */
	r = region(HOST, 0x7fd7b0200000, 0x7fd7b040f000);
	cr_assert_eq(r.mappings, 0);
	/* the last byte of one mapping and the first of the next */
	r = region(HOST, 0x7fd7abffffff, 0x7fd7ac000001);
	cr_assert_eq(r.mappings, 2);
	cr_assert_eq(r.bytes, (12288 + 65536) * KIB);
	cr_assert_eq(r.thp_eligible, 0);
}

Test(region, empty_range_and_top_of_address_space)
{
	struct lsc_region_info r;

	memset(&r, 0x5a, sizeof(r));
	cr_assert_eq(lsc__region_read_root(HOST, (const void *)0x7fd7ac000000, 0, &r), 0);
	cr_assert_eq(r.mappings, 0);
	cr_assert_eq(r.bytes, 0);
	cr_assert_eq(r.thp_eligible, -1);
	/* addr + len past the top: clamped, the vsyscall page still found */
	cr_assert_eq(lsc__region_read_root(HOST, (const void *)0xffffffffff600000, SIZE_MAX, &r), 0);
	cr_assert_eq(r.mappings, 1);
	cr_assert_eq(r.bytes, 4 * KIB);
}

Test(region, thp_and_hugetlb_mappings)
{
	/* 1 GiB THP arena partly huge, a 512 MiB NOHUGEPAGE half-resident and
	 * locked split of it, and a 32 MiB hugetlb mapping */
	struct lsc_region_info r =
		region(FX "/always-defer-madvise/proc", 0x7f3900000000, 0x7f3a02000000);

	cr_assert_eq(r.mappings, 3);
	cr_assert_eq(r.bytes, (1048576 + 524288 + 32768) * KIB);
	cr_assert_eq(r.rss_bytes, (1048576 + 262144) * KIB);
	cr_assert_eq(r.anon_huge_bytes, 419840 * KIB);
	cr_assert_eq(r.hugetlb_bytes, (30720 + 2048) * KIB, "Private_ + Shared_Hugetlb");
	cr_assert_eq(r.locked_bytes, 262144 * KIB);
	cr_assert_eq(r.thp_eligible, 1);

	r = region(FX "/always-defer-madvise/proc", 0x7f3a00000000, 0x7f3a00001000);
	cr_assert_eq(r.mappings, 1);
	cr_assert_eq(r.hugetlb_bytes, 32 * MIB);
	cr_assert_eq(r.rss_bytes, 0);
	cr_assert_eq(r.thp_eligible, 0);
}

Test(region, old_kernel_without_thpeligible)
{
	struct lsc_region_info r =
		region(FX "/old-kernel-no-mthp/proc", 0x7f61c0000000, 0x7f6200000000);

	cr_assert_eq(r.mappings, 1);
	cr_assert_eq(r.bytes, 1048576 * KIB);
	cr_assert_eq(r.anon_huge_bytes, 1046528 * KIB);
	cr_assert_eq(r.thp_eligible, -1, "4.4 has no THPeligible line");
}

Test(region, garbage)
{
	/* mapping 1: every field broken; mapping 2: a 20 KB header the reader
	 * skips (its fields must not land on mapping 1); mapping 3: a good Size
	 * and an Rss cut before its unit */
	struct lsc_region_info r = region(FX "/garbage/proc", 0x7f0000000000, 0x7f0000600000);

	cr_assert_eq(r.mappings, 2);
	cr_assert_eq(r.bytes, 2 * MIB);
	cr_assert_eq(r.rss_bytes, 0);
	cr_assert_eq(r.anon_huge_bytes, 0);
	cr_assert_eq(r.locked_bytes, 0);
	cr_assert_eq(r.thp_eligible, -1, "THPeligible 7 is not a value");
}

Test(region, no_smaps_is_enoent)
{
	struct lsc_region_info r;

	memset(&r, 0x5a, sizeof(r));
	cr_assert_eq(lsc__region_read_root(FX "/container-no-vmstat/proc", &r, 4096, &r), -ENOENT);
	cr_assert_eq(r.mappings, 0);
	cr_assert_eq(r.bytes, 0);
	cr_assert_eq(r.thp_eligible, -1);
	cr_assert_eq(lsc__region_read_root(NULL, &r, 4096, NULL), -EINVAL);
}

static void discard(void *user, const char *line, size_t len)
{
	(void)user;
	(void)line;
	(void)len;
}

Test(region, through_a_profiler_with_a_fixture_root)
{
	struct lsc_profiler_options o;
	struct lsc_region_info r;
	lsc_profiler *p;

	lsc_profiler_options_init(&o);
	o.sink = discard;
	o.proc_root = FX "/host-6.18-madvise/proc";
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	cr_assert_eq(lsc_region_read(p, (const void *)0x7fd7ac000000, 64 * MIB, &r), 0);
	lsc_profiler_destroy(p);
	cr_assert_eq(r.mappings, 1);
	cr_assert_eq(r.anon_huge_bytes, 64 * MIB);
}

/* ---- real mappings -------------------------------------------------------- */

#define LEN (64 * MIB)

/* 64 MiB between two PROT_NONE guard pages, so the kernel cannot merge it
 * with a neighbour and the byte count is exact. Huge-page aligned. */
static char *arena(int advice)
{
	size_t slack = 2 * MIB;
	char *m = mmap(NULL, LEN + 2 * slack, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert_neq(m, MAP_FAILED);
	char *a = (char *)(((uintptr_t)m + slack + 2 * MIB - 1) & ~(uintptr_t)(2 * MIB - 1));
	cr_assert_eq(mprotect(a, LEN, PROT_READ | PROT_WRITE), 0);
	cr_assert_eq(madvise(a, LEN, advice), 0);
	for (size_t i = 0; i < LEN; i += 4096)
		a[i] = 1;
	return a;
}

Test(region, real_nohugepage)
{
	char *a = arena(MADV_NOHUGEPAGE);
	struct lsc_region_info r;

	cr_assert_eq(lsc_region_read(NULL, a, LEN, &r), 0);
	cr_assert_eq(r.mappings, 1);
	cr_assert_eq(r.bytes, LEN);
	cr_assert_eq(r.rss_bytes, LEN);
	cr_assert_eq(r.anon_huge_bytes, 0);
	cr_assert_eq(r.hugetlb_bytes, 0);
	cr_assert_eq(r.locked_bytes, 0);
	if (r.thp_eligible != -1)
		cr_assert_eq(r.thp_eligible, 0, "MADV_NOHUGEPAGE makes a range ineligible");
}

/* Huge-page faults that fell back to 4 KiB pages, anywhere on the machine
 * (-1 when vmstat cannot say). */
static int64_t thp_fallbacks(void)
{
	struct lsc_vmstat v;
	const uint32_t both = (1u << LSC_VM_THP_FAULT_FALLBACK) | (1u << LSC_VM_THP_FAULT_FALLBACK_CHARGE);
	if (lsc_vmstat_read(NULL, &v) < 0 || (v.valid & both) != both)
		return -1;
	return v.v[LSC_VM_THP_FAULT_FALLBACK] + v.v[LSC_VM_THP_FAULT_FALLBACK_CHARGE];
}

Test(region, real_hugepage)
{
	char en[64] = "";
	if (lsc__read_file("/sys", "kernel/mm/transparent_hugepage/enabled", en, sizeof(en), NULL) < 0)
		cr_skip_test("no transparent_hugepage here: MADV_HUGEPAGE would fail");
	int64_t fb0 = thp_fallbacks();
	char *a = arena(MADV_HUGEPAGE);
	int64_t fb1 = thp_fallbacks();
	struct lsc_region_info r;

	cr_assert_eq(lsc_region_read(NULL, a + 4096, 1, &r), 0);
	cr_assert_eq(r.mappings, 1);
	cr_assert_eq(r.bytes, LEN);
	cr_assert_eq(r.rss_bytes, LEN);
	cr_assert_eq(r.anon_huge_bytes % (2 * MIB), 0, "AnonHugePages counts PMD pages only");
	cr_assert_eq(r.hugetlb_bytes, 0);
	/* How much THP the kernel gave varies with fragmentation, but the
	 * kernel says when it gave less: with THP off nothing is huge; with no
	 * huge-page fault falling back anywhere during the fill, all of the
	 * 2 MiB-aligned 64 MiB is. */
	if (strstr(en, "[never]"))
		cr_assert_eq(r.anon_huge_bytes, 0);
	else if (fb0 >= 0 && fb1 == fb0)
		cr_assert_eq(r.anon_huge_bytes, LEN, "AnonHugePages %llu with no fallback counted",
			     (unsigned long long)r.anon_huge_bytes);
	else
		cr_assert_leq(r.anon_huge_bytes, r.bytes);
}

Test(region, real_locked_part_splits_the_mapping)
{
	char *a = arena(MADV_NOHUGEPAGE);
	struct lsc_region_info r;

	/* The raw syscall: AddressSanitizer turns libc's mlock into a no-op. */
	if (syscall(SYS_mlock, a, 4 * MIB) != 0)
		cr_skip_test("mlock of 4 MiB failed (RLIMIT_MEMLOCK?): %s", strerror(errno));
	cr_assert_eq(lsc_region_read(NULL, a, LEN, &r), 0);
	cr_assert_eq(r.mappings, 2, "mlock splits the VMA");
	cr_assert_eq(r.bytes, LEN);
	cr_assert_eq(r.locked_bytes, 4 * MIB);
	/* only the second mapping */
	cr_assert_eq(lsc_region_read(NULL, a + 4 * MIB, LEN - 4 * MIB, &r), 0);
	cr_assert_eq(r.mappings, 1);
	cr_assert_eq(r.bytes, LEN - 4 * MIB);
	cr_assert_eq(r.locked_bytes, 0);
}

static char noted[1024];

/* the sink: the region line, whatever else the profiler says */
static void keep(void *user, const char *line, size_t len)
{
	(void)user;
	if (len > 20 && memmem(line, len, "] region ", 9))
		snprintf(noted, sizeof noted, "%.*s", (int)len, line);
}

/* Where smaps cannot be read, the region line says so in its sentence,
 * with the error's words, and keeps its fields: what, smaps=n/a. */
Test(region, a_note_without_smaps_says_why)
{
	struct lsc_profiler_options o;
	lsc_profiler *p;
	lsc_profiler_options_init(&o);
	o.sink = keep;
	o.proc_root = FX "/container-no-vmstat/proc";
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	noted[0] = 0;
	cr_assert_eq(lsc_region_note(p, "weights", (const void *)0x7fd7ac000000, 64 * MIB, NULL), -ENOENT);
	lsc_profiler_destroy(p);
	char want[160];
	snprintf(want, sizeof want, "region weights: page backing n/a (%s) |", lsc_strerror(-ENOENT));
	cr_assert(strstr(noted, want), "%s", noted);
	cr_assert(strstr(noted, " what=weights") && strstr(noted, " smaps=n/a"), "%s", noted);
}
