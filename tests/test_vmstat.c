/*
 * Description: /proc/vmstat, the counters every span reports as deltas
 * (src/profiler/vmstat.c): exact values from the fixture trees of three
 * kernels, the allocstall sum across zones (and the single pre-4.8 line),
 * absent counters left n/a, garbage lines left n/a without losing the good
 * ones, and the real file moving when this process faults.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <loadscope/profiler.h>

#include "profiler/procfs.h"

#define FX LSC_TEST_FIXTURES
#define BIT(c) (1u << (c))
#define ALL ((1u << LSC_VM_COUNT) - 1)

static void assert_counter(const struct lsc_vmstat *v, enum lsc_vm_counter c, int64_t want)
{
	cr_assert(v->valid & BIT(c), "%s: n/a", lsc_vm_name(c));
	cr_assert_eq(v->v[c], want, "%s: %lld, want %lld", lsc_vm_name(c), (long long)v->v[c],
		     (long long)want);
}

static void assert_na(const struct lsc_vmstat *v, enum lsc_vm_counter c)
{
	cr_assert(!(v->valid & BIT(c)), "%s: %lld, want n/a", lsc_vm_name(c), (long long)v->v[c]);
}

Test(vmstat, names)
{
	static const char *const want[LSC_VM_COUNT] = {
		"compact_stall", "compact_fail", "compact_success", "thp_fault_alloc",
		"thp_fault_fallback", "thp_fault_fallback_charge", "allocstall", "pgscan_direct",
		"pgsteal_direct", "pgfault", "pgmajfault", "pswpin", "pswpout", "nr_free_pages",
	};

	for (int c = 0; c < LSC_VM_COUNT; c++)
		cr_assert_str_eq(lsc_vm_name(c), want[c]);
	cr_assert_null(lsc_vm_name(LSC_VM_COUNT));
	cr_assert_null(lsc_vm_name((enum lsc_vm_counter)-1));
}

Test(vmstat, host_6_18)
{
	struct lsc_vmstat v;

	cr_assert_eq(lsc_vmstat_read(FX "/host-6.18-madvise/proc", &v), 0);
	cr_assert_eq(v.valid, ALL, "valid %#x", v.valid);
	assert_counter(&v, LSC_VM_NR_FREE_PAGES, 1052021);
	assert_counter(&v, LSC_VM_PGFAULT, 2800191);
	assert_counter(&v, LSC_VM_PGMAJFAULT, 1322);
	assert_counter(&v, LSC_VM_THP_FAULT_ALLOC, 32);
	assert_counter(&v, LSC_VM_COMPACT_STALL, 0);
	assert_counter(&v, LSC_VM_ALLOCSTALL, 0);
	assert_counter(&v, LSC_VM_THP_FAULT_FALLBACK_CHARGE, 0);
}

Test(vmstat, stalled_6_8)
{
	struct lsc_vmstat v;

	cr_assert_eq(lsc_vmstat_read(FX "/always-defer-madvise/proc", &v), 0);
	cr_assert_eq(v.valid, ALL, "valid %#x", v.valid);
	assert_counter(&v, LSC_VM_COMPACT_STALL, 5432);
	assert_counter(&v, LSC_VM_COMPACT_FAIL, 5432);
	assert_counter(&v, LSC_VM_COMPACT_SUCCESS, 0);
	assert_counter(&v, LSC_VM_THP_FAULT_ALLOC, 1262);
	assert_counter(&v, LSC_VM_THP_FAULT_FALLBACK, 1810);
	assert_counter(&v, LSC_VM_THP_FAULT_FALLBACK_CHARGE, 3);
	assert_counter(&v, LSC_VM_ALLOCSTALL, 11 + 1800); /* dma32 + normal */
	assert_counter(&v, LSC_VM_PGSCAN_DIRECT, 912345); /* not pgscan_direct_throttle (5) */
	assert_counter(&v, LSC_VM_PGSTEAL_DIRECT, 455012);
	assert_counter(&v, LSC_VM_PGFAULT, 123456789);
	assert_counter(&v, LSC_VM_PGMAJFAULT, 4321);
	assert_counter(&v, LSC_VM_PSWPIN, 777);
	assert_counter(&v, LSC_VM_PSWPOUT, 8888);
	assert_counter(&v, LSC_VM_NR_FREE_PAGES, 349553); /* not nr_free_pages_blocks */
}

Test(vmstat, old_kernel_4_4)
{
	struct lsc_vmstat v;

	cr_assert_eq(lsc_vmstat_read(FX "/old-kernel-no-mthp/proc", &v), 0);
	assert_counter(&v, LSC_VM_ALLOCSTALL, 387); /* the single pre-4.8 line */
	assert_counter(&v, LSC_VM_COMPACT_STALL, 40127);
	assert_counter(&v, LSC_VM_COMPACT_FAIL, 33802);
	assert_counter(&v, LSC_VM_THP_FAULT_FALLBACK, 9871);
	assert_counter(&v, LSC_VM_NR_FREE_PAGES, 2051210);
	/* 5.8 added thp_fault_fallback_charge; before 4.8 direct scan and steal
	 * were per zone (pgscan_direct_normal, ...) */
	assert_na(&v, LSC_VM_THP_FAULT_FALLBACK_CHARGE);
	assert_na(&v, LSC_VM_PGSCAN_DIRECT);
	assert_na(&v, LSC_VM_PGSTEAL_DIRECT);
}

Test(vmstat, container_without_vmstat)
{
	struct lsc_vmstat v;

	memset(&v, 0xff, sizeof(v));
	cr_assert_eq(lsc_vmstat_read(FX "/container-no-vmstat/proc", &v), -ENOENT);
	cr_assert_eq(v.valid, 0);
	for (int c = 0; c < LSC_VM_COUNT; c++)
		cr_assert_eq(v.v[c], 0);
}

Test(vmstat, garbage_lines_are_na_and_good_lines_survive)
{
	struct lsc_vmstat v;

	cr_assert_eq(lsc_vmstat_read(FX "/garbage/proc", &v), 0);
	assert_na(&v, LSC_VM_NR_FREE_PAGES);    /* "12x" */
	assert_na(&v, LSC_VM_COMPACT_STALL);    /* "-5" */
	assert_na(&v, LSC_VM_COMPACT_FAIL);     /* overflow */
	assert_na(&v, LSC_VM_COMPACT_SUCCESS);  /* no value */
	assert_na(&v, LSC_VM_THP_FAULT_ALLOC);  /* two spaces */
	assert_na(&v, LSC_VM_ALLOCSTALL);       /* one zone line is junk: no partial sum */
	assert_na(&v, LSC_VM_PGMAJFAULT);       /* INT64_MAX + 1 */
	assert_counter(&v, LSC_VM_PGFAULT, 1234);
	assert_counter(&v, LSC_VM_PSWPIN, 42);
	assert_counter(&v, LSC_VM_PSWPOUT, INT64_MAX);
	assert_counter(&v, LSC_VM_PGSCAN_DIRECT, 5);
}

Test(vmstat, parse_strings)
{
	struct lsc_vmstat v;
	const char *t;

	t = "allocstall_dma 1\nallocstall_dma32 2\nallocstall_normal 3\nallocstall_movable 4\n"
	    "allocstall_device 5\n";
	cr_assert_eq(lsc__vmstat_parse(t, strlen(t), &v), 1);
	assert_counter(&v, LSC_VM_ALLOCSTALL, 15);

	t = "allocstallx 9\nallocstal 9\nxallocstall 9\nallocstall_normal 1\n";
	lsc__vmstat_parse(t, strlen(t), &v);
	assert_counter(&v, LSC_VM_ALLOCSTALL, 1);

	/* same length as a counter, or a first letter that starts one */
	t = "pgscan_direct_throttle 9\npgfaults 9\npgfault\t9\npgfaulx 9\nnr_free_pagez 9\n"
	    "apgfault 9\n";
	cr_assert_eq(lsc__vmstat_parse(t, strlen(t), &v), 0);
	cr_assert_eq(v.valid, 0);

	t = "pgfault 7"; /* no newline, and a length that stops mid-buffer */
	cr_assert_eq(lsc__vmstat_parse(t, strlen(t), &v), 1);
	assert_counter(&v, LSC_VM_PGFAULT, 7);
	cr_assert_eq(lsc__vmstat_parse("pgfault 712", 9, &v), 1);
	assert_counter(&v, LSC_VM_PGFAULT, 7);

	cr_assert_eq(lsc__vmstat_parse("", 0, &v), 0);
	cr_assert_eq(lsc__vmstat_parse("\n\n\n", 3, &v), 0);

	/* an allocstall sum that would overflow is n/a, not wrapped */
	t = "allocstall_normal 9223372036854775807\nallocstall_movable 1\n";
	lsc__vmstat_parse(t, strlen(t), &v);
	assert_na(&v, LSC_VM_ALLOCSTALL);
}

Test(vmstat, null_out)
{
	cr_assert_eq(lsc_vmstat_read(NULL, NULL), -EINVAL);
}

Test(vmstat, the_real_file_moves_with_our_faults)
{
	struct lsc_vmstat a, b;
	const size_t len = 16u << 20;

	if (lsc_vmstat_read(NULL, &a) == -ENOENT)
		cr_skip_test("no /proc/vmstat here (a container?)");
	cr_assert(a.valid & BIT(LSC_VM_PGFAULT));
	cr_assert(a.valid & BIT(LSC_VM_NR_FREE_PAGES));
	cr_assert(a.valid & BIT(LSC_VM_COMPACT_STALL));
	cr_assert(a.valid & BIT(LSC_VM_ALLOCSTALL));

	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(m, MAP_FAILED);
	madvise(m, len, MADV_NOHUGEPAGE); /* one fault per 4 KiB page */
	for (size_t i = 0; i < len; i += 4096)
		m[i] = 1;
	cr_assert_eq(lsc_vmstat_read("/proc", &b), 0);
	munmap(m, len);

	cr_assert_geq(b.v[LSC_VM_PGFAULT] - a.v[LSC_VM_PGFAULT], (int64_t)(len / 4096),
		      "pgfault moved by %lld", (long long)(b.v[LSC_VM_PGFAULT] - a.v[LSC_VM_PGFAULT]));
}
