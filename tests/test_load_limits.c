/*
 * Description: the limits a load holds to (docs/reliability.md, "Limits"),
 * and the inputs at their edges. A manifest of more files than
 * RLIMIT_NOFILE leaves room for (with 32 descriptors kept for the rest of
 * the process) is refused before the first open with one line and EMFILE;
 * one that fits loads and gives every descriptor back. A sparse file loads
 * its holes as zeros. An arena of 1 PiB is refused by the memory guard
 * before anything is mapped.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "helpers/load_helpers.h"

#define NFILES 10

static struct lsct_capture cap;
static struct rlimit saved;

static void setup(void)
{
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
}

static void teardown(void)
{
	setrlimit(RLIMIT_NOFILE, &saved);
	lsct_capture_reset(&cap);
}

TestSuite(load_limits, .init = setup, .fini = teardown);

/* NFILES files as NFILES extents, under a soft RLIMIT_NOFILE of open + @room. */
static int load_files(int room, int *open_before)
{
	static char paths[NFILES][512];
	struct lsc_extent e[NFILES];
	for (int i = 0; i < NFILES; i++) {
		char name[32];
		snprintf(name, sizeof(name), "n%d.bin", i);
		snprintf(paths[i], sizeof(paths[i]), "%s", lsct_make_file(name, 4096, (uint64_t)i));
		e[i] = (struct lsc_extent){.path = paths[i], .length = UINT64_MAX,
					   .arena_offset = (uint64_t)i * 4096};
	}
	lsc_profiler *p = lsct_profiler(&cap);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "io_uring";
	/* lsct_open_fds counts its own directory descriptor and "." and ".." */
	*open_before = lsct_open_fds() - 3;
	struct rlimit rl = {.rlim_cur = (rlim_t)(*open_before + room), .rlim_max = saved.rlim_max};
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, e, NFILES, 0, &a);
	setrlimit(RLIMIT_NOFILE, &saved);
	cr_assert_eq(lsct_open_fds() - 3, *open_before, "a descriptor was left open");
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	return ret;
}

Test(load_limits, more_files_than_rlimit_nofile_leaves_room_for_is_refused)
{
	int before;
	int ret = load_files(NFILES + 1 + 32 - 1, &before);
	cr_assert_eq(ret, -EMFILE, "%s", lsc_strerror(ret));
	cr_assert_eq(lsct_count(&cap, "error"), 1);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "what"), "open");
	cr_assert_str_eq(lsc__parsed_get(&pl, "err"), "EMFILE");
	char want[200];
	snprintf(want, sizeof(want), "10 files need 11 descriptors; RLIMIT_NOFILE is %d with %d open, "
		 "and 32 are left", before + 42, before);
	cr_assert(strstr(pl.human, want), "%s\nwanted: %s", pl.human, want);
}

Test(load_limits, files_that_fit_load)
{
	int before;
	int ret = load_files(NFILES + 1 + 32, &before);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
}

Test(load_limits, sparse_file_loads_its_holes_as_zeros)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/sparse.bin", lsct_tmpdir());
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert(fd >= 0);
	cr_assert_eq(ftruncate(fd, 16u << 20), 0);
	unsigned char blk[4096];
	memset(blk, 0x7e, sizeof(blk));
	cr_assert_eq(pwrite(fd, blk, sizeof(blk), 8u << 20), (ssize_t)sizeof(blk));
	close(fd);
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, NULL, &e, 1, 0, &a), 0);
	const unsigned char *m = lsc_arena_data(a);
	cr_assert_eq(lsc_arena_size(a), 16u << 20);
	for (uint64_t i = 0; i < (16u << 20); i++) {
		unsigned char want = i >= (8u << 20) && i < (8u << 20) + 4096 ? 0x7e : 0;
		if (m[i] != want)
			cr_assert_fail("byte %llu is %u", (unsigned long long)i, m[i]);
	}
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
}

Test(load_limits, a_petabyte_arena_is_refused_before_mapping)
{
	struct lsc_extent e = {.path = lsct_make_file("small.bin", 4096, 1), .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, NULL, &e, 1, 1ull << 50, &a);
	cr_assert_eq(ret, -ENOMEM, "%s", lsc_strerror(ret));
	cr_assert_null(a);
	cr_assert_eq(lsct_count(&cap, "error"), 1);
	cr_assert_eq(lsct_count(&cap, "arena"), 0, "the allocation was started");
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "what"), "allocate");
	cr_assert(strstr(pl.human, "arena of 1048576.00 GiB (1125899906842624 bytes) is more than"),
		  "%s", pl.human);
	lsc_profiler_destroy(p);
}
