/*
 * Description: the manifest. Many extents from several files, in any arena
 * order, land where they were asked; "to the end of the file" lengths
 * resolve; bad manifests (no extents, overlap in the arena, an arena too
 * small, a file shorter than the manifest, an extent past the end, a
 * missing file, a directory) fail with one line naming the file and offset
 * and leave no file open; a zero-length file loads 0 bytes and says so.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers/load_helpers.h"

static struct lsct_capture cap;

static void teardown(void)
{
	lsct_capture_reset(&cap);
}

TestSuite(load_manifest, .fini = teardown);

Test(load_manifest, many_extents_from_two_files)
{
	char *f1 = strdup(lsct_make_file("one.bin", (2u << 20) + 10, 31));
	char *f2 = strdup(lsct_make_file("two.bin", 70000, 32));
	uint64_t n1, n2;
	unsigned char *b1 = lsct_read_file(f1, &n1), *b2 = lsct_read_file(f2, &n2);
	struct lsc_extent e[5] = {
		{.path = f2, .file_offset = 0, .length = UINT64_MAX, .arena_offset = 0},
		{.path = f1, .file_offset = 1u << 20, .length = UINT64_MAX, .arena_offset = 3u << 20},
		{.path = f1, .file_offset = 0, .length = 4096, .arena_offset = 70000},
		{.path = f2, .file_offset = 69999, .length = 1, .arena_offset = 80000},
		{.path = f1, .file_offset = 17, .length = 1u << 20, .arena_offset = 1u << 20},
	};
	const char *readers[] = {"pread", "io_uring"};
	for (int r = 0; r < 2; r++) {
		struct lsc_load_options o;
		lsc_load_options_init(&o);
		o.reader = readers[r];
		lsc_profiler *p = lsct_profiler(&cap);
		lsc_arena *a = NULL;
		int ret = lsc_load(p, &o, e, 5, 8u << 20, &a);
		if (ret)
			lsct_dump(&cap);
		cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
		cr_assert_eq(lsc_arena_size(a), 8u << 20);
		const unsigned char *m = lsc_arena_data(a);
		cr_assert(memcmp(m, b2, n2) == 0);
		cr_assert(memcmp(m + (3u << 20), b1 + (1u << 20), n1 - (1u << 20)) == 0);
		cr_assert(memcmp(m + 70000, b1, 4096) == 0);
		cr_assert_eq(m[80000], b2[69999]);
		cr_assert(memcmp(m + (1u << 20), b1 + 17, 1u << 20) == 0);
		struct lsc_load_stats st;
		lsc_arena_stats(a, &st);
		cr_assert_eq(st.bytes, n2 + (n1 - (1u << 20)) + 4096 + 1 + (1u << 20));
		char buf[LSC__LINE_MAX + 1];
		struct lsc__parsed pl;
		cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof(buf), &pl));
		cr_assert_str_eq(lsc__parsed_get(&pl, "files"), "2");
		cr_assert_str_eq(lsc__parsed_get(&pl, "extents"), "5");
		lsc_arena_destroy(a);
		lsc_profiler_destroy(p);
		lsct_capture_reset(&cap);
	}
	free(b1);
	free(b2);
	free(f1);
	free(f2);
}

/* The load fails with @want, one error line of @what naming @path. */
static void fails(const struct lsc_extent *e, size_t n, uint64_t arena, int want, const char *what,
		  const char *path, const char *offset)
{
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	int fds = lsct_open_fds();
	int ret = lsc_load(p, NULL, e, n, arena, &a);
	cr_assert_eq(ret, want, "got %d (%s), want %d", ret, lsc_strerror(ret), want);
	cr_assert_null(a);
	cr_assert_eq(lsct_open_fds(), fds, "a file was left open");
	cr_assert_eq(lsct_count(&cap, "error"), 1, "want exactly one error line");
	cr_assert_eq(lsct_count(&cap, "loaded"), 0);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl);
	cr_assert_str_eq(lsc__parsed_get(&pl, "what"), what);
	if (path) {
		cr_assert_str_eq(lsc__parsed_get(&pl, "path"), path);
		cr_assert(strstr(pl.human, path), "%s", pl.human);
	}
	if (offset)
		cr_assert_str_eq(lsc__parsed_get(&pl, "offset"), offset);
	lsc_profiler_destroy(p);
	lsct_capture_reset(&cap);
}

Test(load_manifest, bad_manifests)
{
	char *f = strdup(lsct_make_file("x.bin", 10000, 33));
	cr_assert_eq(lsc_load(NULL, NULL, NULL, 0, 0, NULL), -EINVAL);
	fails(NULL, 0, 0, -EINVAL, "manifest", NULL, NULL);
	struct lsc_extent e[2] = {
		{.path = f, .file_offset = 0, .length = 5000, .arena_offset = 0},
		{.path = f, .file_offset = 5000, .length = 5000, .arena_offset = 4999},
	};
	fails(e, 2, 0, -EINVAL, "manifest", f, NULL); /* overlap */
	e[1].arena_offset = 5000;
	fails(e, 2, 9999, -EINVAL, "manifest", NULL, NULL); /* arena too small */
	e[1].length = 5001;
	fails(e, 2, 0, LSC_E_SHORT, "manifest", f, "5000"); /* shorter than the manifest */
	e[1].file_offset = 10001;
	e[1].length = UINT64_MAX;
	fails(e, 2, 0, LSC_E_SHORT, "manifest", f, "10001"); /* starts past the end */
	struct lsc_extent none = {.path = "/nonexistent/loadscope/weights.bin", .length = UINT64_MAX};
	fails(&none, 1, 0, -ENOENT, "open", none.path, "0");
	struct lsc_extent dir = {.path = lsct_tmpdir(), .length = UINT64_MAX};
	fails(&dir, 1, 0, -EISDIR, "open", dir.path, "0");
	struct lsc_extent nopath = {.length = 1};
	fails(&nopath, 1, 0, -EINVAL, "manifest", NULL, NULL);
	free(f);
}

Test(load_manifest, zero_length_file_loads_zero_bytes)
{
	char *f = strdup(lsct_make_file("empty.bin", 0, 0));
	struct lsc_extent e = {.path = f, .length = UINT64_MAX, .xxh3 = 0x2d06800538d394c2ull,
			       .has_xxh3 = 1};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, NULL, &e, 1, 0, &a), 0);
	cr_assert_eq(lsc_arena_size(a), 0);
	uint64_t h;
	cr_assert_eq(lsc_arena_extent_hash(a, 0, &h), 0);
	cr_assert_eq(h, 0x2d06800538d394c2ull); /* XXH3-64 of no bytes */
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof(buf), &pl), "no loaded line");
	cr_assert_str_eq(lsc__parsed_get(&pl, "bytes"), "0");
	cr_assert(lsct_find(&cap, "complement", 0, buf, sizeof(buf), &pl));
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	free(f);
}

/* An empty extent sorted between two that overlap must not hide them. */
Test(load_manifest, overlap_hidden_behind_an_empty_extent)
{
	char *path = lsct_make_file("ov.bin", 16384, 7);
	struct lsc_extent e[3] = {
		{.path = path, .file_offset = 0, .length = 8192, .arena_offset = 0},
		{.path = path, .file_offset = 0, .length = 0, .arena_offset = 100},
		{.path = path, .file_offset = 0, .length = 8192, .arena_offset = 4096},
	};
	struct lsct_capture c = {0};
	lsc_profiler *p = lsct_profiler(&c);
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, NULL, e, 3, 0, &a), -EINVAL);
	cr_assert_null(a);
	cr_assert_eq(lsct_count(&c, "error"), 1);
	lsc_profiler_destroy(p);
	lsct_capture_reset(&c);
}

/* A manifest asked of no files, or of a list with a hole in it, is one
 * error line that says so, and no manifest. */
Test(load_manifest, a_manifest_from_no_files)
{
	char *f = strdup(lsct_make_file("y.bin", 100, 34));
	const char *holed[] = {f, NULL};
	static const struct {
		size_t n;
		int list;
		const char *cause;
	} cases[] = {{0, 1, "no files to read"}, {1, 0, "no files to read"}, {2, 1, "file 1 has no path"}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		lsc_profiler *p = lsct_profiler_fresh(&cap);
		struct lsc_manifest *m = (struct lsc_manifest *)&cap; /* overwritten with NULL */
		cr_assert_eq(lsc_manifest_from_files(p, cases[i].list ? holed : NULL, cases[i].n, &m), -EINVAL);
		cr_assert_null(m);
		cr_assert_eq(lsct_count(&cap, "error"), 1, "%s", cap.buf);
		char buf[LSC__LINE_MAX + 1];
		struct lsc__parsed pl;
		cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
		cr_assert_str_eq(lsc__parsed_get(&pl, "what"), "model");
		cr_assert_str_eq(lsc__parsed_get(&pl, "cause"), cases[i].cause);
		lsc_profiler_destroy(p);
		lsct_capture_reset(&cap);
	}
	free(f);
}
