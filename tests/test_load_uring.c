/*
 * Description: the io_uring reader. Files load byte for byte with registered
 * files and fixed buffers, straight into the arena and through
 * staging buffers, with reads done inline or by io-wq workers, at queue
 * depths 1 and 8, and with O_DIRECT on unaligned extents (a whole-block read
 * into staging and the wanted slice copied out). A ring that cannot be set
 * up falls back to pread with a line that says why (naming
 * kernel.io_uring_disabled), and a memlock limit too low for fixed buffers
 * falls back to unregistered reads with a line. Skips loudly where the
 * kernel has no usable io_uring.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/capability.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <xxhash.h>

#include "helpers/load_helpers.h"
#include "sys/sys.h"

static struct lsct_capture cap;

static void teardown(void)
{
	lsct_capture_reset(&cap);
	unsetenv("LOADSCOPE_READ_PATH");
	unsetenv("LOADSCOPE_READ_ASYNC");
	lsc__sys_set(NULL);
}

TestSuite(load_uring, .init = lsct_need_uring, .fini = teardown);

static void opts(struct lsc_load_options *o, unsigned k, uint64_t c, unsigned qd)
{
	lsc_load_options_init(o);
	o->reader = "io_uring";
	o->staging_count = k;
	o->staging_bytes = c;
	o->queue_depth = qd;
}

Test(load_uring, into_the_arena_async)
{
	struct lsc_load_options o;
	opts(&o, 0, 0, 8);
	setenv("LOADSCOPE_READ_ASYNC", "1", 1);
	lsct_load_check(&cap, "io_uring", lsct_make_file("a.bin", (9u << 20) + 77, 11), &o, "none");
}

Test(load_uring, into_the_arena_inline_qd1)
{
	struct lsc_load_options o;
	opts(&o, 0, 0, 1);
	setenv("LOADSCOPE_READ_ASYNC", "0", 1);
	lsct_load_check(&cap, "io_uring", lsct_make_file("b.bin", (3u << 20) + 1, 12), &o, "none");
}

Test(load_uring, through_staging)
{
	struct lsc_load_options o;
	opts(&o, 4, 1u << 20, 4);
	o.thp = LSC_THP_THP; /* thp, or the policy a fallback line names */
	lsct_load_check(&cap, "io_uring", lsct_make_file("c.bin", (6u << 20) + 999, 13), &o, "4x1MiB");
}

Test(load_uring, more_reads_than_buffers)
{
	struct lsc_load_options o;
	opts(&o, 2, 1u << 20, 8);
	lsct_load_check(&cap, "io_uring", lsct_make_file("d.bin", (5u << 20) + 3, 14), &o, "2x1MiB");
}

Test(load_uring, direct_unaligned_extents)
{
	const char *path = lsct_make_file("e.bin", (4u << 20) + 12345, 15);
	char *p0 = strdup(path);
	uint64_t len;
	unsigned char *want = lsct_read_file(p0, &len);
	struct lsc_load_options o;
	opts(&o, 2, 1u << 20, 2);
	o.flags |= LSC_LOAD_DIRECT;
	struct lsc_extent e[3] = {
		{.path = p0, .file_offset = 1000, .length = (1u << 20) + 7, .arena_offset = 3},
		{.path = p0, .file_offset = 4096, .length = 8192, .arena_offset = (2u << 20)},
		{.path = p0, .file_offset = len - 5000, .length = UINT64_MAX, .arena_offset = (3u << 20) + 1},
	};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, e, 3, 0, &a);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "lsc_load: %s", lsc_strerror(ret));
	const unsigned char *m = lsc_arena_data(a);
	cr_assert(memcmp(m + 3, want + 1000, (1u << 20) + 7) == 0);
	cr_assert(memcmp(m + (2u << 20), want + 4096, 8192) == 0);
	cr_assert(memcmp(m + (3u << 20) + 1, want + len - 5000, 5000) == 0);
	for (int i = 0; i < 3; i++) {
		uint64_t h, l = e[i].length == UINT64_MAX ? 5000 : e[i].length;
		cr_assert_eq(lsc_arena_extent_hash(a, (size_t)i, &h), 0);
		cr_assert_eq(h, XXH3_64bits(want + e[i].file_offset, l), "extent %d", i);
	}
	struct lsc_load_stats st;
	lsc_arena_stats(a, &st);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof(buf), &pl));
	/* Either O_DIRECT ran, or a fallback line said why not. */
	if (!st.direct_applied)
		cr_assert(lsct_count(&cap, "fallback") >= 1, "buffered without a fallback line");
	else
		cr_assert_str_eq(lsc__parsed_get(&pl, "direct"), "1");
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	free(want);
	free(p0);
}

static int init_enosys(unsigned entries, struct io_uring *ring, struct io_uring_params *prm)
{
	(void)entries;
	(void)ring;
	(void)prm;
	return -ENOSYS;
}

Test(load_uring, setup_failure_falls_back_to_pread)
{
	struct lsc__sys s = lsc__sys_default;
	s.uring_init = init_enosys;
	lsc__sys_set(&s);
	struct lsc_load_options o;
	opts(&o, 0, 0, 4);
	const char *path = lsct_make_file("f.bin", (2u << 20) + 5, 16);
	lsc_profiler *p = lsct_profiler(&cap);
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, &o, &e, 1, 0, &a), 0);
	cr_assert_eq(lsc_arena_extent_hash(a, 0, &(uint64_t){0}), 0);
	uint64_t h;
	lsc_arena_extent_hash(a, 0, &h);
	cr_assert_eq(h, lsct_file_hash(path, 0, (2u << 20) + 5));
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find_fallback(&cap, "reader", buf, sizeof(buf), &pl), "no reader fallback line");
	cr_assert_str_eq(lsc__parsed_get(&pl, "took"), "pread");
	cr_assert(strstr(lsc__parsed_get(&pl, "reason"), "ENOSYS"), "%s", lsc__parsed_get(&pl, "reason"));
	cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "reader"), "pread");
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
}

static int init_eperm(unsigned entries, struct io_uring *ring, struct io_uring_params *prm)
{
	(void)entries;
	(void)ring;
	(void)prm;
	return -EPERM;
}

Test(load_uring, disabled_by_sysctl_names_it)
{
	/* A /proc copy where kernel.io_uring_disabled=2, and a setup that is
	 * refused as that sysctl refuses it. */
	char root[300], dir[800];
	snprintf(root, sizeof(root), "%s/proc", lsct_tmpdir());
	snprintf(dir, sizeof(dir), "mkdir -p '%s/sys/kernel' && echo 2 > '%s/sys/kernel/io_uring_disabled'",
		 root, root);
	cr_assert_eq(system(dir), 0);
	struct lsc__sys s = lsc__sys_default;
	s.uring_init = init_eperm;
	lsc__sys_set(&s);
	struct lsc_profiler_options po;
	lsc_profiler_options_init(&po);
	po.sink = lsct_sink;
	po.sink_user = &cap;
	po.mode = LSC_MODE_ON;
	po.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
	po.proc_root = root;
	lsc_profiler *p = NULL;
	cr_assert_eq(lsc_profiler_create(&po, &p), 0);
	struct lsc_load_options o;
	opts(&o, 0, 0, 4);
	struct lsc_extent e = {.path = lsct_make_file("g.bin", 100000, 17), .length = UINT64_MAX};
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, &o, &e, 1, 0, &a), 0);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find_fallback(&cap, "reader", buf, sizeof(buf), &pl), "no reader fallback line");
	const char *why = lsc__parsed_get(&pl, "reason");
	cr_assert(strstr(why, "EPERM") && strstr(why, "io_uring_disabled=2"), "%s", why);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
}

/* Drop CAP_IPC_LOCK from this (forked) test process, so that RLIMIT_MEMLOCK
 * applies to io_uring's buffer registration as it does for a normal user. */
static int drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) != 0)
		return -errno;
	d[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
	d[CAP_IPC_LOCK / 32].permitted &= ~(1u << (CAP_IPC_LOCK % 32));
	if (syscall(SYS_capset, &h, d) != 0)
		return -errno;
	return 0;
}

Test(load_uring, memlock_too_low_for_fixed_buffers)
{
	if (drop_ipc_lock() != 0)
		cr_skip_test("cannot drop CAP_IPC_LOCK here");
	struct rlimit rl = {.rlim_cur = 64 << 10, .rlim_max = 64 << 10};
	cr_assert_eq(setrlimit(RLIMIT_MEMLOCK, &rl), 0);
	struct lsc_load_options o;
	opts(&o, 2, 1u << 20, 2);
	lsct_load_check(&cap, "io_uring", lsct_make_file("h.bin", (3u << 20) + 5, 18), &o, "2x1MiB");
	/* lsct_load_check freed the lines: load again to look at them. */
	lsc_profiler *p = lsct_profiler(&cap);
	struct lsc_extent e = {.path = lsct_make_file("h.bin", (3u << 20) + 5, 18), .length = UINT64_MAX};
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, &o, &e, 1, 0, &a), 0);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	int buffers = 0, staging = 0;
	for (unsigned k = 0; lsct_find(&cap, "fallback", k, buf, sizeof(buf), &pl); k++) {
		const char *what = lsc__parsed_get(&pl, "what"), *why = lsc__parsed_get(&pl, "reason");
		if (!strcmp(what, "buffers")) {
			buffers = 1;
			cr_assert(strstr(why, "ENOMEM") && strstr(why, "RLIMIT_MEMLOCK"), "%s", why);
		}
		staging |= !strcmp(what, "staging");
	}
	if (!buffers)
		lsct_dump(&cap);
	cr_assert(buffers, "no fallback line for the fixed buffers");
#ifndef __SANITIZE_ADDRESS__ /* ASan turns mlock into a no-op that succeeds */
	if (!staging)
		lsct_dump(&cap);
	cr_assert(staging, "no fallback line for the unlocked staging buffers");
#else
	(void)staging;
#endif
	cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed"), "0");
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
}

Test(load_uring, direct_into_the_arena_with_a_staged_tail)
{
	/* Aligned chunks are read with O_DIRECT straight into the arena; the
	 * unaligned tail of the file and an unaligned extent go through staging. */
	const char *readers[] = {"io_uring", "pread"};
	char *path = strdup(lsct_make_file("t.bin", (5u << 20) + 12345, 19));
	uint64_t len;
	unsigned char *want = lsct_read_file(path, &len);
	for (int r = 0; r < 2; r++) {
		struct lsc_load_options o;
		lsc_load_options_init(&o);
		o.reader = readers[r];
		o.flags |= LSC_LOAD_DIRECT;
		struct lsc_extent e[2] = {
			{.path = path, .length = UINT64_MAX, .arena_offset = 0},
			{.path = path, .file_offset = 100, .length = 5000, .arena_offset = 6u << 20},
		};
		lsc_profiler *p = lsct_profiler(&cap);
		lsc_arena *a = NULL;
		int ret = lsc_load(p, &o, e, 2, 0, &a);
		if (ret)
			lsct_dump(&cap);
		cr_assert_eq(ret, 0, "%s: %s", readers[r], lsc_strerror(ret));
		const unsigned char *m = lsc_arena_data(a);
		cr_assert(memcmp(m, want, len) == 0, "%s: whole file differs", readers[r]);
		cr_assert(memcmp(m + (6u << 20), want + 100, 5000) == 0);
		uint64_t h;
		cr_assert_eq(lsc_arena_extent_hash(a, 0, &h), 0);
		cr_assert_eq(h, XXH3_64bits(want, len));
		struct lsc_load_stats st;
		lsc_arena_stats(a, &st);
		char buf[LSC__LINE_MAX + 1];
		struct lsc__parsed pl;
		cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof(buf), &pl));
		if (st.direct_applied)
			cr_assert_str_neq(lsc__parsed_get(&pl, "staging"), "none", "tails need staging");
		else
			cr_assert(lsct_count(&cap, "fallback") >= 1);
		lsc_arena_destroy(a);
		lsc_profiler_destroy(p);
		lsct_capture_reset(&cap);
	}
	free(want);
	free(path);
}
