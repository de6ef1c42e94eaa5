/*
 * Description: verify. Each extent's XXH3-64 is computed while reading (in
 * manifest order, whatever order the reads complete in) and equals the hash
 * of the file's bytes; an expected hash that matches passes, one that
 * differs fails the load with LSC_E_HASH and one error line naming the
 * extent, the file, the offset and both hashes, and leaves nothing behind;
 * LSC_LOAD_NO_VERIFY skips hashing unless an extent carries an expected hash.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "helpers/load_helpers.h"

static struct lsct_capture cap;

static void teardown(void)
{
	lsct_capture_reset(&cap);
}

TestSuite(load_verify, .fini = teardown);

static const char *readers[] = {"pread", "io_uring"};

Test(load_verify, expected_hashes_match_over_many_extents)
{
	char *path = strdup(lsct_make_file("v.bin", (3u << 20) + 100, 21));
	for (int r = 0; r < 2; r++) {
		struct lsc_load_options o;
		lsc_load_options_init(&o);
		o.reader = readers[r];
		o.staging_count = 2;
		o.staging_bytes = 256u << 10;
		o.queue_depth = 4;
		struct lsc_extent e[4] = {
			{.path = path, .file_offset = 0, .length = 1u << 20, .arena_offset = 2u << 20},
			{.path = path, .file_offset = 1u << 20, .length = 777, .arena_offset = 0},
			{.path = path, .file_offset = 5, .length = (2u << 20) + 95, .arena_offset = 4u << 20},
			{.path = path, .file_offset = 10, .length = 0, .arena_offset = 1000},
		};
		for (int i = 0; i < 4; i++) {
			e[i].xxh3 = lsct_file_hash(path, e[i].file_offset, e[i].length);
			e[i].has_xxh3 = 1;
		}
		lsc_profiler *p = lsct_profiler(&cap);
		lsc_arena *a = NULL;
		int ret = lsc_load(p, &o, e, 4, 0, &a);
		if (ret)
			lsct_dump(&cap);
		cr_assert_eq(ret, 0, "%s: %s", readers[r], lsc_strerror(ret));
		for (int i = 0; i < 4; i++) {
			uint64_t h;
			cr_assert_eq(lsc_arena_extent_hash(a, (size_t)i, &h), 0);
			cr_assert_eq(h, e[i].xxh3, "extent %d", i);
		}
		cr_assert_eq(lsc_arena_extent_hash(a, 4, &(uint64_t){0}), -EINVAL);
		lsc_arena_destroy(a);
		lsc_profiler_destroy(p);
		lsct_capture_reset(&cap);
	}
	free(path);
}

Test(load_verify, mismatch_fails_with_one_line)
{
	char *path = strdup(lsct_make_file("m.bin", (2u << 20) + 1, 22));
	uint64_t good = lsct_file_hash(path, 4096, 1u << 20);
	for (int r = 0; r < 2; r++) {
		struct lsc_load_options o;
		lsc_load_options_init(&o);
		o.reader = readers[r];
		struct lsc_extent e[2] = {
			{.path = path, .file_offset = 0, .length = 4096, .arena_offset = 0},
			{.path = path, .file_offset = 4096, .length = 1u << 20, .arena_offset = 8192,
			 .xxh3 = good ^ 1, .has_xxh3 = 1},
		};
		lsc_profiler *p = lsct_profiler(&cap);
		lsc_arena *a = (lsc_arena *)&cap; /* must be reset to NULL */
		int fds = lsct_open_fds();
		cr_assert_eq(lsc_load(p, &o, e, 2, 0, &a), LSC_E_HASH);
		cr_assert_null(a);
		cr_assert_eq(lsct_open_fds(), fds);
		cr_assert_eq(lsct_count(&cap, "error"), 1);
		cr_assert_eq(lsct_count(&cap, "loaded"), 0);
		char buf[LSC__LINE_MAX + 1], want[64];
		struct lsc__parsed pl;
		lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl);
		cr_assert_str_eq(lsc__parsed_get(&pl, "what"), "verify");
		cr_assert_str_eq(lsc__parsed_get(&pl, "path"), path);
		cr_assert_str_eq(lsc__parsed_get(&pl, "offset"), "4096");
		cr_assert_str_eq(lsc__parsed_get(&pl, "err"), "LSC_E_HASH");
		snprintf(want, sizeof(want), "%016" PRIx64, good);
		cr_assert(strstr(pl.human, want), "actual hash missing: %s", pl.human);
		snprintf(want, sizeof(want), "%016" PRIx64, good ^ 1);
		cr_assert(strstr(pl.human, want), "expected hash missing: %s", pl.human);
		cr_assert(strstr(pl.human, "extent 1"), "%s", pl.human);
		lsc_profiler_destroy(p);
		lsct_capture_reset(&cap);
	}
	free(path);
}

Test(load_verify, no_verify_skips_unless_expected)
{
	char *path = strdup(lsct_make_file("n.bin", 100000, 23));
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.flags |= LSC_LOAD_NO_VERIFY;
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, &o, &e, 1, 0, &a), 0);
	cr_assert_eq(lsc_arena_extent_hash(a, 0, &(uint64_t){0}), -ENOENT);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "verify_s"), "n/a");
	lsc_arena_destroy(a);

	e.xxh3 = lsct_file_hash(path, 0, 100000);
	e.has_xxh3 = 1;
	cr_assert_eq(lsc_load(p, &o, &e, 1, 0, &a), 0);
	uint64_t h;
	cr_assert_eq(lsc_arena_extent_hash(a, 0, &h), 0);
	cr_assert_eq(h, e.xxh3);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	free(path);
}
