/*
 * Description: an O_DIRECT read through staging that comes back short is
 * an error even when it holds as many bytes as the chunk (src/loader/
 * pipeline.c), found by a mutation the suite let through (scripts/mutate.sh,
 * docs/testing.md). An O_DIRECT read of an extent at an unaligned offset
 * starts at the block below it: for the extent [100, 100 + 8192) the read
 * covers [0, 12288) and needs 8292 bytes, the 100 of the lead included. A
 * file that ends at 8200 (cut while loading) gives 8200: more than the
 * chunk's 8192, fewer than the 8292 needed, so the load fails with
 * LSC_E_SHORT and one read error, instead of handing the last 92 bytes over
 * from a stale buffer. Through a syscall table of the test's own: its open
 * accepts O_DIRECT (and drops it, so any filesystem will do) and its pread
 * ends the file at 8200 bytes.
 *
 * And an aligned O_DIRECT read straight into the arena that the filesystem
 * refuses at read time (EINVAL, having taken O_DIRECT at open, as some
 * FUSE and network filesystems do) falls back: the file is reopened
 * without O_DIRECT, the chunk read again, one fallback line says so, and
 * the arena holds the file's bytes. That file is opened with O_DIRECT for
 * real (a loud skip where the scratch filesystem refuses it), and the
 * test's pread refuses any descriptor that still has the flag. And a load
 * through staging counts its copy: the loaded line's copy_s is the copy
 * phase's time.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers/load_helpers.h"
#include "sys/sys.h"

#define END 8200 /* where the file seems to end */

static struct lsct_capture cap;
static struct lsc__sys table;

/* lsc_load of @e through the test's syscall table, its lines into cap. */
static int load_through(const struct lsc_load_options *o, const struct lsc_extent *e, lsc_arena **a)
{
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	*a = NULL;
	lsc__sys_set(&table);
	int ret = lsc_load(p, o, e, 1, 0, a);
	lsc__sys_set(NULL);
	lsc_profiler_destroy(p);
	return ret;
}

static int open_direct_ok(const char *path, int flags, int mode)
{
	return lsc__sys_default.open(path, flags & ~O_DIRECT, mode);
}

static ssize_t pread_cut(int fd, void *buf, size_t len, off_t off)
{
	if (off >= END)
		return 0;
	if ((uint64_t)off + len > END)
		len = (size_t)(END - off);
	return lsc__sys_default.pread(fd, buf, len, off);
}

Test(load_direct_short, a_short_direct_read_is_short_even_past_the_chunk)
{
	const char *path = lsct_make_file("ds.bin", 16384, 11);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.flags |= LSC_LOAD_DIRECT;
	o.staging_count = 2;
	o.staging_bytes = 1u << 20;
	struct lsc_extent e = {.path = path, .file_offset = 100, .length = 8192};
	table = lsc__sys_default;
	table.open = open_direct_ok;
	table.pread = pread_cut;
	lsc_arena *a;
	int ret = load_through(&o, &e, &a);
	if (ret != LSC_E_SHORT)
		lsct_dump(&cap);
	cr_assert_eq(ret, LSC_E_SHORT, "got %s", lsc_strerror(ret));
	cr_assert_null(a);
	cr_assert_eq(lsct_count(&cap, "error"), 1);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "what"), "read");
}

/* The file really is open with O_DIRECT (the loader takes the flag off
 * with fcntl to fall back): a read of an fd that still has it is refused. */
static ssize_t pread_refuse_direct(int fd, void *buf, size_t len, off_t off)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && (fl & O_DIRECT)) {
		errno = EINVAL;
		return -1;
	}
	return lsc__sys_default.pread(fd, buf, len, off);
}

Test(load_direct_short, a_direct_read_refused_at_read_time_falls_back)
{
	const uint64_t n = 4u << 20;
	const char *path = lsct_make_file("dr.bin", n, 12);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.flags |= LSC_LOAD_DIRECT;
	struct lsc_extent e = {.path = path, .file_offset = 0, .length = n};
	int probe = open(path, O_RDONLY | O_DIRECT);
	if (probe < 0)
		cr_skip("SKIPPED: %s cannot be opened with O_DIRECT here (%s)", lsct_tmpdir(), strerror(errno));
	close(probe);
	table = lsc__sys_default;
	table.pread = pread_refuse_direct;
	lsc_arena *a;
	int ret = load_through(&o, &e, &a);
	if (ret != 0)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "got %s", lsc_strerror(ret));
	uint64_t len = 0;
	unsigned char *want = lsct_read_file(path, &len);
	cr_assert_eq(len, n);
	cr_expect(memcmp(lsc_arena_data(a), want, n) == 0, "the arena holds the file");
	free(want);
	cr_expect_eq(lsct_count(&cap, "error"), 0);
	cr_expect_geq(lsct_count_with(&cap, "fallback", "what=direct"), 1, "%s", cap.buf);
	lsc_arena_destroy(a);
}

/* A load through staging copies every byte once from a staging buffer
 * into the arena: the loaded line's copy_s (the load's stats) is the copy
 * phase's time, and not 0 for 256 MiB (at 100 GiB/s, faster than any
 * memory, that copy takes 2.5 ms; the line has millisecond digits). */
Test(load_direct_short, the_staging_copy_is_counted)
{
	const uint64_t n = 256u << 20;
	const char *path = lsct_make_file("st.bin", n + 4096, 13);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.flags |= LSC_LOAD_DIRECT;
	o.staging_count = 2;
	o.staging_bytes = 4u << 20;
	struct lsc_extent e = {.path = path, .file_offset = 100, .length = n};
	table = lsc__sys_default;
	table.open = open_direct_ok;
	lsc_arena *a;
	int ret = load_through(&o, &e, &a);
	cr_assert_eq(ret, 0, "got %s", lsc_strerror(ret));
	struct lsc_load_stats st;
	lsc_arena_stats(a, &st);
	cr_expect_gt(st.copy_ns, 0);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl, ph;
	cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof(buf), &pl), "%s", cap.buf);
	double copy_s = strtod(lsc__parsed_get(&pl, "copy_s"), NULL);
	cr_expect_gt(copy_s, 0, "%s", buf);
	cr_expect_lt(fabs(copy_s - st.copy_ns / 1e9), 0.0015, "%s", buf);
	char buf2[LSC__LINE_MAX + 1];
	int found = 0;
	for (unsigned i = 0; lsct_find(&cap, "phase", i, buf2, sizeof(buf2), &ph); i++) {
		const char *k = lsc__parsed_get(&ph, "kind");
		if (k && !strcmp(k, "copy")) {
			found = 1;
			cr_expect_lt(fabs(strtod(lsc__parsed_get(&ph, "wall_s"), NULL) - copy_s), 0.0015, "%s", buf2);
		}
	}
	cr_expect(found, "no copy phase:\n%s", cap.buf);
	lsc_arena_destroy(a);
}
