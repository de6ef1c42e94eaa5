/*
 * Description: the arena's memory guard (src/loader/mem_guard.c). With a
 * /proc root whose meminfo says 64 MiB MemAvailable of 2 GiB (the fixture
 * small-memavailable), a load is refused with -ENOMEM and one
 * `error what=allocate` line giving both figures and the reserve, before
 * anything is mapped (the syscall shim counts the mappings) and with every
 * file closed; LSC_LOAD_NO_MEM_CHECK and LOADSCOPE_ARENA_MEM_CHECK=0 let the
 * same load through; a machine with room (container-no-vmstat: 11.5 GiB
 * available) loads it without the override. Under a memory cgroup
 * (cgroup2-nested: 12 MiB may be taken below the leaf's memory.high once
 * its reserve is kept, with 40 GiB MemAvailable) a 4 MiB load goes through
 * and a 16 MiB one is refused, the line naming memory.high and the cgroup.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "helpers/load_helpers.h"
#include "sys/sys.h"

#define FX LSC_TEST_FIXTURES

static struct lsct_capture cap;
static struct lsc__sys shim;
static long long maps; /* mmap calls through the shim */

static void *f_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	maps++;
	return mmap(addr, len, prot, flags, fd, off);
}

static void setup(void)
{
	maps = 0;
	shim = lsc__sys_default;
	shim.mmap = f_mmap;
	lsc__sys_set(&shim);
}

static void teardown(void)
{
	lsc__sys_set(NULL);
	unsetenv("LOADSCOPE_ARENA_MEM_CHECK");
	lsct_capture_reset(&cap);
}

TestSuite(load_memguard, .init = setup, .fini = teardown);

static lsc_profiler *profiler_roots(const char *proc_root, const char *sys_root)
{
	struct lsc_profiler_options po;
	lsc_profiler_options_init(&po);
	po.sink = lsct_sink;
	po.sink_user = &cap;
	po.mode = LSC_MODE_ON;
	po.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
	po.proc_root = proc_root;
	po.sys_root = sys_root;
	lsc_profiler *p = NULL;
	cr_assert_eq(lsc_profiler_create(&po, &p), 0);
	return p;
}

static lsc_profiler *profiler(const char *proc_root)
{
	return profiler_roots(proc_root, NULL);
}

static int load(const char *proc_root, unsigned flags, lsc_arena **a)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.flags |= flags;
	struct lsc_extent e = {.path = lsct_make_file("m.bin", 4u << 20, 5), .length = UINT64_MAX};
	lsc_profiler *p = profiler(proc_root);
	int ret = lsc_load(p, &o, &e, 1, 0, a);
	lsc_profiler_destroy(p);
	return ret;
}

Test(load_memguard, arena_larger_than_memavailable_is_refused_before_faulting)
{
	lsc_arena *a = NULL;
	int fds = lsct_open_fds();
	int ret = load(FX "/small-memavailable/proc", 0, &a);
	if (ret != -ENOMEM)
		lsct_dump(&cap);
	cr_assert_eq(ret, -ENOMEM, "%s", lsc_strerror(ret));
	cr_assert_null(a);
	cr_assert_eq(maps, 0, "%lld mappings made before the refusal", maps);
	cr_assert_eq(lsct_open_fds(), fds);
	cr_assert_eq(lsct_count(&cap, "error"), 1);
	cr_assert_eq(lsct_count(&cap, "arena"), 0, "the allocation was started");
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "what"), "allocate");
	cr_assert_str_eq(lsc__parsed_get(&pl, "err"), "ENOMEM");
	/* 4 MiB; 64 MiB available; reserve max(2 GiB / 32, 512 MiB) */
	cr_assert(strstr(pl.human, "arena of 0.00 GiB (4194304 bytes) is more than MemAvailable "
				   "0.06 GiB less a reserve of 0.50 GiB"), "%s", pl.human);
	cr_assert(strstr(pl.human, "LSC_LOAD_NO_MEM_CHECK"), "%s", pl.human);
}

Test(load_memguard, the_flag_overrides)
{
	lsc_arena *a = NULL;
	int ret = load(FX "/small-memavailable/proc", LSC_LOAD_NO_MEM_CHECK, &a);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	cr_assert_eq(lsc_arena_size(a), 4u << 20);
	lsc_arena_destroy(a);
}

Test(load_memguard, the_environment_overrides)
{
	setenv("LOADSCOPE_ARENA_MEM_CHECK", "0", 1);
	lsc_arena *a = NULL;
	int ret = load(FX "/small-memavailable/proc", 0, &a);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	lsc_arena_destroy(a);
}

Test(load_memguard, an_arena_that_fits_loads)
{
	lsc_arena *a = NULL;
	int ret = load(FX "/container-no-vmstat/proc", 0, &a);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	cr_assert_eq(lsct_count(&cap, "error"), 0);
	lsc_arena_destroy(a);
}

/* hugetlb pages are not in MemAvailable: with hugetlb asked for, the free
 * pool counts (64 MiB + 512 x 2 MiB, less the 512 MiB reserve, holds 4 MiB).
 * This machine's own pool may be empty: the arena then falls back to auto
 * with a line, which is not the guard's concern. */
Test(load_memguard, the_free_hugetlb_pool_counts_for_hugetlb)
{
	char root[512], dir[600];
	snprintf(root, sizeof(root), "%s/hugetlb-root", lsct_tmpdir());
	snprintf(dir, sizeof(dir), "%s/proc", root);
	cr_assert_eq(mkdir(root, 0700), 0);
	cr_assert_eq(mkdir(dir, 0700), 0);
	char path[700];
	snprintf(path, sizeof(path), "%s/meminfo", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("MemTotal:        2097152 kB\nMemFree:           65536 kB\nMemAvailable:      65536 kB\n"
	      "HugePages_Total:     512\nHugePages_Free:      512\nHugePages_Rsvd:        0\n"
	      "HugePages_Surp:        0\nHugepagesize:       2048 kB\n", f);
	fclose(f);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	struct lsc_extent e = {.path = lsct_make_file("h.bin", 4u << 20, 6), .length = UINT64_MAX};
	lsc_profiler *p = profiler(dir);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	cr_assert_eq(ret, -ENOMEM, "without hugetlb asked for, the pool must not count");
	lsct_capture_reset(&cap);
	o.thp = LSC_THP_HUGETLB;
	ret = lsc_load(p, &o, &e, 1, 0, &a);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
}

static int load_cgroup(uint64_t bytes, lsc_arena **a)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.thp = LSC_THP_4K;
	struct lsc_extent e = {.path = lsct_make_file("cg.bin", bytes, 7), .length = UINT64_MAX};
	lsc_profiler *p = profiler_roots(FX "/cgroup2-nested/proc", FX "/cgroup2-nested/sys");
	int ret = lsc_load(p, &o, &e, 1, 0, a);
	lsc_profiler_destroy(p);
	return ret;
}

Test(load_memguard, a_memory_cgroup_below_memavailable_decides)
{
	lsc_arena *a = NULL;
	int ret = load_cgroup(4u << 20, &a);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "4 MiB under 12 MiB: %s", lsc_strerror(ret));
	lsc_arena_destroy(a);
	lsct_capture_reset(&cap);
	a = NULL;
	maps = 0;
	int fds = lsct_open_fds();
	ret = load_cgroup(16u << 20, &a);
	cr_assert_eq(ret, -ENOMEM, "16 MiB over 12 MiB: %s", lsc_strerror(ret));
	cr_assert_null(a);
	cr_assert_eq(maps, 0, "%lld mappings made before the refusal", maps);
	cr_assert_eq(lsct_open_fds(), fds);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "what"), "allocate");
	cr_assert(strstr(pl.human, "arena of 0.02 GiB (16777216 bytes) is more than the room under the "
				   "cgroup v2 memory.high of cgroup "
				   "/kubepods.slice/kubepods-pod1.slice/cri-ctr1.scope, 0.14 GiB"),
		  "%s", pl.human);
	cr_assert(strstr(pl.human, "refused before faulting (LSC_LOAD_NO_MEM_CHECK"), "%s", pl.human);
}
