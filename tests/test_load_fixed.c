/*
 * Description: which buffers the io_uring reader registers (pipeline.c).
 * By default the staging buffers are registered and the arena only where
 * smaps shows it wholly huge pages of one kind, on Linux 6.10 or later:
 * io_uring registers 4 KiB pages one by one, and a buffer that mixes huge
 * and 4 KiB pages (or, before 6.10, any buffer of several huge pages) far
 * slower still (bench_register). LOADSCOPE_READ_FIXED=1 registers the arena
 * whatever its pages, 0 registers nothing, auto is the default. The
 * `loaded` line says which (fixed, fixed_arena), and why the arena, or the
 * caller's memory, was not; O_DIRECT tails still go through the registered
 * staging buffers of an unregistered arena. The io_uring cases skip loudly
 * where the kernel has no usable io_uring.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "helpers/load_helpers.h"
#include "host/procfs.h"
#include "loader/read/read.h"

static struct lsct_capture cap;

static void teardown(void)
{
	lsct_capture_reset(&cap);
	unsetenv("LOADSCOPE_READ_FIXED");
	unsetenv("LOADSCOPE_READ_PATH");
}

TestSuite(load_fixed, .fini = teardown);

#define MIB (1ull << 20)

/* ---- the rule, on region readings -------------------------------------- */

static struct lsc_region_info region(uint64_t bytes, uint64_t anon_huge, uint64_t hugetlb)
{
	struct lsc_region_info ri = {.bytes = bytes, .rss_bytes = bytes,
				     .anon_huge_bytes = anon_huge, .hugetlb_bytes = hugetlb,
				     .thp_eligible = 1, .mappings = 1};
	return ri;
}

static void choice(int want, int coalesces, int rc, struct lsc_region_info ri, int expect,
		   const char *why)
{
	char got[96] = "untouched";
	cr_assert_eq(lsc__arena_fixed_choice(want, coalesces, rc, &ri, got, sizeof got), expect,
		     "want %d rc %d: %s", want, rc, got);
	cr_assert_str_eq(got, why ? why : "");
}

/* Why the arena (or the caller's memory) was not registered: a field of
 * the verbose line (the brief sentence leaves it out). */
static const char *unreg(const struct lsc__parsed *pl)
{
	const char *v = lsc__parsed_get(pl, "unregistered");
	return v ? v : "";
}

Test(load_fixed, all_huge_pages_are_registered)
{
	choice(-1, 1, 0, region(2048 * MIB, 2048 * MIB, 0), 1, NULL);
	choice(-1, 1, 0, region(2048 * MIB, 0, 2048 * MIB), 1, NULL); /* hugetlb */
}

Test(load_fixed, small_or_mixed_pages_are_not)
{
	choice(-1, 1, 0, region(2048 * MIB, 0, 0), 0, "it has no huge pages");
	/* one fallback fault of 2 MiB is enough to make a piece mixed */
	choice(-1, 1, 0, region(2048 * MIB, 2046 * MIB, 0), 0,
	       "2.0 MiB of its mappings' 2.00 GiB are not huge pages");
	choice(-1, 1, 0, region(2048 * MIB, 512 * MIB, 0), 0,
	       "1.50 GiB of its mappings' 2.00 GiB are not huge pages");
	/* all huge, but of two sizes: io_uring coalesces folios of one size */
	choice(-1, 1, 0, region(64 * MIB, 32 * MIB, 32 * MIB), 0,
	       "its mappings mix THP and hugetlb pages");
}

Test(load_fixed, unknown_backing_is_not_registered)
{
	choice(-1, 1, -2, region(2048 * MIB, 2048 * MIB, 0), 0, "its page backing is unknown");
	struct lsc_region_info none = region(0, 0, 0);
	none.mappings = 0;
	choice(-1, 1, 0, none, 0, "its page backing is unknown");
}

/* Before 6.10 io_uring does not coalesce a buffer of several huge pages,
 * and an all-huge arena registers as slowly as a mixed one. */
Test(load_fixed, a_kernel_before_6_10_registers_no_arena)
{
	choice(-1, 0, 0, region(2048 * MIB, 2048 * MIB, 0), 0,
	       "this kernel, before 6.10, registers huge pages one by one");
	choice(-1, 0, 0, region(2048 * MIB, 0, 0), 0, "it has no huge pages");
	choice(1, 0, 0, region(2048 * MIB, 2048 * MIB, 0), 1, NULL);
}

Test(load_fixed, the_variable_overrides_the_pages)
{
	choice(1, 1, 0, region(2048 * MIB, 0, 0), 1, NULL);
	choice(1, 1, -2, region(0, 0, 0), 1, NULL);
	choice(0, 1, 0, region(2048 * MIB, 2048 * MIB, 0), 0, "LOADSCOPE_READ_FIXED=0");
}

/* ---- real loads --------------------------------------------------------- */

/* An 8 MiB load by io_uring with @thp; its `loaded` line in *pl (kept in
 * @buf) and the arena's huge bytes after the load in *huge. */
static void load(enum lsc_thp_policy thp, char *buf, size_t cap_bytes, struct lsc__parsed *pl,
		 uint64_t *huge)
{
	lsct_need_uring();
	const char *path = lsct_make_file("fixed.bin", 8 * MIB, 77);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "io_uring";
	o.thp = thp;
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	cr_assert_eq(ret, 0, "%s: %s", lsc_strerror(ret), cap.buf);
	struct lsc_load_stats st;
	cr_assert_eq(lsc_arena_stats(a, &st), 0);
	*huge = st.huge_bytes;
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	cr_assert(lsct_find(&cap, "loaded", 0, buf, cap_bytes, pl), "no loaded line: %s", cap.buf);
	if (lsct_has_fallback(&cap, "buffers"))
		cr_skip_test("this process cannot register buffers (a buffers fallback line): %s",
			     cap.buf);
}

Test(load_fixed, an_arena_of_4k_pages_is_read_unregistered)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	uint64_t huge;
	load(LSC_THP_4K, buf, sizeof buf, &pl, &huge);
	cr_assert_eq(huge, 0);
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed"), "0", "%s", pl.human);
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed_arena"), "0", "%s", pl.human);
	cr_assert(strstr(unreg(&pl), "it has no huge pages"),
		  "%s", pl.human);
}

Test(load_fixed, read_fixed_1_registers_4k_pages_anyway)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	uint64_t huge;
	setenv("LOADSCOPE_READ_FIXED", "1", 1);
	load(LSC_THP_4K, buf, sizeof buf, &pl, &huge);
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed"), "1", "%s", pl.human);
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed_arena"), "1", "%s", pl.human);
	cr_assert(strstr(pl.human, "; io_uring fixed, "), "%s", pl.human);
	cr_assert_null(lsc__parsed_get(&pl, "unregistered"), "%s", pl.human);
}

Test(load_fixed, auto_word_is_the_default)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	uint64_t huge;
	setenv("LOADSCOPE_READ_FIXED", "AUTO", 1);
	load(LSC_THP_4K, buf, sizeof buf, &pl, &huge);
	cr_assert_eq(lsct_count(&cap, "usage"), 0, "%s", cap.buf);
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed"), "0", "%s", pl.human);
	cr_assert(strstr(unreg(&pl), "it has no huge pages"), "%s", pl.human);
}

Test(load_fixed, read_fixed_0_registers_nothing_and_says_so)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	uint64_t huge;
	setenv("LOADSCOPE_READ_FIXED", "0", 1);
	load(LSC_THP_THP, buf, sizeof buf, &pl, &huge);
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed"), "0", "%s", pl.human);
	cr_assert(strstr(unreg(&pl), "LOADSCOPE_READ_FIXED=0"), "%s",
		  pl.human);
}

/* Staging buffers are reused for every staged read: registered by default
 * even when the arena's pages are 4 KiB (the arena is not read into). */
Test(load_fixed, staging_buffers_are_registered_by_default)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	uint64_t huge;
	setenv("LOADSCOPE_READ_PATH", "staging", 1);
	load(LSC_THP_4K, buf, sizeof buf, &pl, &huge);
	cr_assert_str_neq(lsc__parsed_get(&pl, "staging"), "none", "%s", pl.human);
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed"), "1", "%s", pl.human);
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed_arena"), "0", "%s", pl.human);
	cr_assert(strstr(pl.human, "; io_uring fixed, "), "%s", pl.human);
}

Test(load_fixed, an_arena_of_huge_pages_is_registered)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	uint64_t huge;
	load(LSC_THP_THP, buf, sizeof buf, &pl, &huge);
	if (huge < 8 * MIB)
		cr_skip_test("THP gave %llu of 8 MiB in huge pages here (THP off, or no free "
			     "2 MiB blocks): the all-huge case is not reachable",
			     (unsigned long long)huge);
	if (!lsc__kernel_at_least(NULL, 6, 10)) {
		cr_assert_str_eq(lsc__parsed_get(&pl, "fixed"), "0", "%s", pl.human);
		cr_assert(strstr(unreg(&pl), "this kernel, before 6.10, "), "%s",
			  pl.human);
		return;
	}
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed"), "1", "%s", pl.human);
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed_arena"), "1", "%s", pl.human);
	cr_assert(strstr(pl.human, "; io_uring fixed, "), "%s", pl.human);
}

/* O_DIRECT into an arena of 4 KiB pages: the aligned chunks land in the
 * unregistered arena, the unaligned tail in a registered staging buffer,
 * whose index then starts at 0 (the arena's pieces are not in the table). */
Test(load_fixed, staging_tails_of_a_direct_load_into_an_unregistered_arena)
{
	lsct_need_uring();
	char *path = strdup(lsct_make_file("direct.bin", 8 * MIB + 12345, 78));
	uint64_t len;
	unsigned char *want = lsct_read_file(path, &len);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "io_uring";
	o.thp = LSC_THP_4K;
	o.flags |= LSC_LOAD_DIRECT;
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	cr_assert_eq(ret, 0, "%s: %s", lsc_strerror(ret), cap.buf);
	cr_assert(memcmp(lsc_arena_data(a), want, len) == 0, "the arena differs from the file");
	uint64_t h;
	cr_assert_eq(lsc_arena_extent_hash(a, 0, &h), 0);
	cr_assert_eq(h, lsct_file_hash(path, 0, len));
	struct lsc_load_stats st;
	cr_assert_eq(lsc_arena_stats(a, &st), 0);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	free(want);
	free(path);
	if (!st.direct_applied || lsct_has_fallback(&cap, "buffers"))
		cr_skip_test("O_DIRECT or buffer registration refused here: %s", cap.buf);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof buf, &pl), "%s", cap.buf);
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed"), "1", "%s", pl.human);
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed_arena"), "0", "%s", pl.human);
	cr_assert(strstr(pl.human, "; io_uring fixed staging, ") && strstr(unreg(&pl), "it has "
				   "no huge pages"),
		  "%s", pl.human);
}

/* lsc_load_into: the caller's memory, 4 KiB pages at an odd address, read
 * through smaps (no policy of ours to know it by). */
static void into_4k(const char *fixed_env, char *buf, size_t cap_bytes, struct lsc__parsed *pl)
{
	lsct_need_uring();
	if (fixed_env)
		setenv("LOADSCOPE_READ_FIXED", fixed_env, 1);
	uint64_t n = 4 * MIB;
	char *path = strdup(lsct_make_file("into.bin", n, 79));
	uint64_t len;
	unsigned char *want = lsct_read_file(path, &len);
	size_t map = (size_t)(n + 2 * MIB);
	unsigned char *m = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(m, MAP_FAILED);
	cr_assert_eq(madvise(m, map, MADV_NOHUGEPAGE), 0);
	memset(m, 0, map);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "io_uring";
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	int ret = lsc_load_into(p, &o, &e, 1, m + 100, (size_t)n, NULL);
	cr_assert_eq(ret, 0, "%s: %s", lsc_strerror(ret), cap.buf);
	cr_assert(memcmp(m + 100, want, len) == 0, "the memory differs from the file");
	lsc_profiler_destroy(p);
	munmap(m, map);
	free(want);
	free(path);
	cr_assert(lsct_find(&cap, "loaded", 0, buf, cap_bytes, pl), "%s", cap.buf);
	if (lsct_has_fallback(&cap, "buffers"))
		cr_skip_test("this process cannot register buffers: %s", cap.buf);
}

Test(load_fixed, caller_memory_of_4k_pages_is_read_unregistered)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	into_4k(NULL, buf, sizeof buf, &pl);
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed"), "0", "%s", pl.human);
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed_arena"), "0", "%s", pl.human);
	cr_assert(strstr(unreg(&pl), "it has no huge pages"),
		  "%s", pl.human);
}

Test(load_fixed, caller_memory_registered_when_asked)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	into_4k("1", buf, sizeof buf, &pl);
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed"), "1", "%s", pl.human);
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed_arena"), "1", "%s", pl.human);
	cr_assert_null(lsc__parsed_get(&pl, "unregistered"), "%s", pl.human);
}
