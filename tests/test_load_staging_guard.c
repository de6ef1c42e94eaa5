/*
 * Description: the staging buffers' share of memory (src/loader/read/staging.c),
 * found by a mutation the suite let through (scripts/mutate.sh,
 * docs/testing.md). Staging is populated and locked at once, so it may take
 * at most half of MemAvailable: with the fixture small-memavailable (64 MiB
 * available), 4 buffers of 8 MiB (32 MiB, exactly half) load, and 4 of
 * 9 MiB (36 MiB) are refused with -ENOMEM and one `error what=staging` line.
 * The arena's own guard is switched off (LSC_LOAD_NO_MEM_CHECK) so that the
 * staging guard is the one that speaks.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "helpers/load_helpers.h"

#define FX LSC_TEST_FIXTURES
#define MIB (1u << 20)

static struct lsct_capture cap;

static int load_staged_in(const char *fx, unsigned count, unsigned bytes, lsc_arena **a)
{
	struct lsc_profiler_options po;
	lsc_profiler_options_init(&po);
	po.sink = lsct_sink;
	po.sink_user = &cap;
	po.mode = LSC_MODE_ON;
	po.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
	char proc[512], sys[512];
	snprintf(proc, sizeof proc, FX "/%s/proc", fx);
	snprintf(sys, sizeof sys, FX "/%s/sys", fx);
	po.proc_root = proc;
	po.sys_root = sys;
	lsc_profiler *p = NULL;
	cr_assert_eq(lsc_profiler_create(&po, &p), 0);

	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.flags |= LSC_LOAD_NO_MEM_CHECK;
	o.staging_count = count;
	o.staging_bytes = bytes;
	struct lsc_extent e = {.path = lsct_make_file("s.bin", 1u << 20, 7), .length = UINT64_MAX};
	lsct_capture_reset(&cap);
	int ret = lsc_load(p, &o, &e, 1, 0, a);
	lsc_profiler_destroy(p);
	return ret;
}

static int load_staged(unsigned count, unsigned bytes, lsc_arena **a)
{
	return load_staged_in("small-memavailable", count, bytes, a);
}

Test(load_staging_guard, half_of_memavailable_is_allowed)
{
	lsc_arena *a = NULL;
	int ret = load_staged(4, 8 * MIB, &a);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	cr_assert_eq(lsct_count(&cap, "error"), 0);
	lsc_arena_destroy(a);
}

Test(load_staging_guard, more_than_half_is_refused)
{
	lsc_arena *a = NULL;
	int ret = load_staged(4, 9 * MIB, &a);
	cr_assert_eq(ret, -ENOMEM, "%s", lsc_strerror(ret));
	cr_assert_null(a);
	cr_assert_eq(lsct_count(&cap, "error"), 1);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "what"), "staging");
	cr_assert(strstr(pl.human, "4 staging buffers of 9 MiB would take more than half of "
				   "MemAvailable (64 MiB)"), "%s", pl.human);
}

/* Under a memory cgroup whose room is below MemAvailable (the fixture
 * cgroup2-nested: 40 GiB available on the host, the container's
 * memory.high 140 MiB above what it uses besides the file cache), the half
 * is of the cgroup's room: 4 buffers of 1 GiB are refused before a byte is
 * mapped, naming the cgroup's limit; 4 of 8 MiB (32 MiB) load. */
Test(load_staging_guard, the_half_is_of_a_memory_cgroups_room)
{
	lsc_arena *a = NULL;
	int ret = load_staged_in("cgroup2-nested", 4, 1024 * MIB, &a);
	cr_assert_eq(ret, -ENOMEM, "%s", lsc_strerror(ret));
	cr_assert_null(a);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
	cr_assert(strstr(pl.human, "4 staging buffers of 1024 MiB would take more than half of the room under "
				   "cgroup v2 memory.high of its cgroup (140 MiB)"), "%s", pl.human);
	ret = load_staged_in("cgroup2-nested", 4, 8 * MIB, &a);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	lsc_arena_destroy(a);
}
