/*
 * Description: madvise denied by a sandbox (EPERM from a seccomp filter, at
 * every call) falls back instead of failing the load. Through the syscall
 * shim, for each THP policy whose arena the library advises (4k: the
 * arena's MADV_NOHUGEPAGE; thp: MADV_HUGEPAGE; auto: its advice and the
 * adaptive prefault's MADV_NOHUGEPAGE steps) and the prefault's
 * MADV_POPULATE_WRITE, which every policy reaches: the load succeeds with
 * the file's bytes, each call site was reached and denied, and each says
 * so in at most one fallback line naming EPERM (the arena's: took
 * unadvised; the prefault's: touching one byte per page). Every load
 * failed with `error what=allocate` before.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "helpers/load_helpers.h"
#include "helpers/sys_shim.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static struct lsct_capture cap;

static void teardown(void)
{
	lsct_sys_restore();
	lsct_capture_reset(&cap);
}

TestSuite(load_madvise_denied, .fini = teardown);

static void denied_load(enum lsc_thp_policy thp, int advice)
{
	const char *path = lsct_make_file("adv.bin", 6u << 20, 5);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.thp = thp;
	o.reader = "pread";
	lsct_sys_install(&(struct lsct_sys_plan){.op = LSCT_SYS_MADVISE, .nth = 1, .every = 1, .err = EPERM});
	uint64_t len;
	unsigned char *want = lsct_read_file(path, &len);
	lsc_profiler *p = lsct_profiler(&cap);
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_arena *a = NULL;
	int fds = lsct_open_fds();
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	cr_assert_eq(ret, 0, "lsc_load: %s; %s", lsc_strerror(ret), cap.buf);
	cr_assert_eq(lsct_open_fds(), fds, "files left open");
	cr_assert_eq(lsc_arena_size(a), len);
	cr_assert(memcmp(lsc_arena_data(a), want, len) == 0, "the arena differs from the file");
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	free(want);
	unsigned calls = lsct_sys_calls(LSCT_SYS_MADVISE);
	struct lsct_madvise m[4];
	unsigned site = advice ? lsct_sys_madvised(advice, m, 4) : 1;
	unsigned populate = lsct_sys_madvised(MADV_POPULATE_WRITE, m, 4);
	lsct_sys_restore();
	cr_assert_gt(calls, 0, "no madvise call was made");
	cr_assert_gt(site, 0, "the policy's advice was never asked for: %s", lsct_sys_trace);
	cr_assert_gt(populate, 0, "the prefault's MADV_POPULATE_WRITE was never asked for");
	cr_assert_eq(lsct_count(&cap, "error"), 0, "%s", cap.buf);
	cr_assert_eq(lsct_count_with(&cap, "fallback", "prefault: wanted MADV_POPULATE_WRITE"), 1, "%s", cap.buf);
	cr_assert_eq(lsct_count_with(&cap, "fallback", "MADV_POPULATE_WRITE): EPERM"), 1, "%s", cap.buf);
	cr_assert_leq(lsct_count_with(&cap, "fallback", "arena: wanted"), 1, "%s", cap.buf);
}

Test(load_madvise_denied, thp_policy_loads_unadvised)
{
	denied_load(LSC_THP_THP, MADV_HUGEPAGE);
	cr_assert_eq(lsct_count_with(&cap, "fallback", "the arena has no advice"), 1, "%s", cap.buf);
	cr_assert_eq(lsct_count_with(&cap, "fallback", "MADV_HUGEPAGE) on"), 1, "%s", cap.buf);
}

Test(load_madvise_denied, four_k_policy_loads_unadvised)
{
	denied_load(LSC_THP_4K, MADV_NOHUGEPAGE);
	cr_assert_eq(lsct_count_with(&cap, "fallback", "the arena has no advice"), 1, "%s", cap.buf);
}

Test(load_madvise_denied, auto_policy_loads)
{
	denied_load(LSC_THP_AUTO, 0);
}
