/*
 * Description: faults, caused through the syscall shim (src/sys/sys.h)
 * and a failing reader ops table, never by breaking the machine. Each one
 * (EIO at the Nth pread, a file that ends early, a short read, EINTR, open
 * and fstat failures, a file changed during the load, an arena mmap that
 * fails with ENOMEM, a staging buffer that cannot be locked, O_DIRECT
 * refused by the filesystem, a reader whose completion fails) either is
 * handled (retried, resubmitted, fallen back with a line) or fails the load
 * with one line naming the file, offset and cause, with every file closed
 * and every mapping released (ASan builds check the memory).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers/load_helpers.h"
#include "helpers/sys_shim.h"
#include "loader/read/reader.h"
#include "sys/sys.h"

static struct lsct_capture cap;

/* Every test runs over the kit's shim; a test installs its own plan. */
static void setup(void)
{
	lsct_sys_install(NULL);
}

static void teardown(void)
{
	lsct_sys_restore();
	lsc__reader_override(NULL);
	lsct_capture_reset(&cap);
}

TestSuite(load_faults, .init = setup, .fini = teardown);

static char *file(void)
{
	return strdup(lsct_make_file("f.bin", (4u << 20) + 100, 41));
}

static struct lsc_load_options pread_opts(void)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.staging_count = 2;
	o.staging_bytes = 1u << 20;
	o.queue_depth = 2;
	return o;
}

/* Load fails with @want; exactly one error line of @what naming @path. */
static struct lsc__parsed *expect_fail(const char *path, struct lsc_load_options *o, int want,
				       const char *what, char *buf, struct lsc__parsed *pl)
{
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	int fds = lsct_open_fds();
	int ret = lsc_load(p, o, &e, 1, 0, &a);
	if (ret != want)
		lsct_dump(&cap);
	cr_assert_eq(ret, want, "got %d (%s), want %d (%s)", ret, lsc_strerror(ret), want,
		     lsc_strerror(want));
	cr_assert_null(a);
	cr_assert_eq(lsct_open_fds(), fds, "a file was left open");
	cr_assert_eq(lsct_sys_mapped(), 0, "%lld bytes left mapped", lsct_sys_mapped());
	cr_assert_eq(lsct_count(&cap, "error"), 1);
	cr_assert_eq(lsct_count(&cap, "loaded"), 0);
	lsct_find(&cap, "error", 0, buf, LSC__LINE_MAX + 1, pl);
	cr_assert_str_eq(lsc__parsed_get(pl, "what"), what);
	lsc_profiler_destroy(p);
	return pl;
}

/* The stats of the last load expect_ok made. */
static struct lsc_load_stats ok_stats;

static void expect_ok(const char *path, struct lsc_load_options *o)
{
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, o, &e, 1, 0, &a);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	uint64_t h;
	cr_assert_eq(lsc_arena_extent_hash(a, 0, &h), 0);
	cr_assert_eq(h, lsct_file_hash(path, 0, (4u << 20) + 100));
	cr_assert_eq(lsc_arena_stats(a, &ok_stats), 0);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	cr_assert_eq(lsct_sys_mapped(), 0);
}

Test(load_faults, eio_at_the_third_pread)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	lsct_sys_fail(LSCT_SYS_PREAD, 3, EIO);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	expect_fail(f, &o, -EIO, "read", buf, &pl);
	cr_assert_str_eq(lsc__parsed_get(&pl, "path"), f);
	cr_assert_str_eq(lsc__parsed_get(&pl, "offset"), "2097152");
	cr_assert_str_eq(lsc__parsed_get(&pl, "err"), "EIO");
	free(f);
}

Test(load_faults, file_ends_early)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	lsct_sys_install(&(struct lsct_sys_plan){.op = LSCT_SYS_PREAD, .nth = 2, .how = LSCT_SYS_ZERO});
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	expect_fail(f, &o, LSC_E_SHORT, "read", buf, &pl);
	cr_assert_str_eq(lsc__parsed_get(&pl, "path"), f);
	cr_assert_str_eq(lsc__parsed_get(&pl, "offset"), "1048576");
	free(f);
}

Test(load_faults, short_read_and_eintr_are_retried)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	lsct_sys_install(&(struct lsct_sys_plan){.op = LSCT_SYS_PREAD, .nth = 2, .how = LSCT_SYS_SHORT});
	expect_ok(f, &o);
	lsct_capture_reset(&cap);
	lsct_sys_fail(LSCT_SYS_PREAD, 3, EINTR);
	expect_ok(f, &o);
	free(f);
}

Test(load_faults, open_fails)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	lsct_sys_fail(LSCT_SYS_OPEN, 1, EMFILE);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	expect_fail(f, &o, -EMFILE, "open", buf, &pl);
	cr_assert_str_eq(lsc__parsed_get(&pl, "err"), "EMFILE");
	free(f);
}

Test(load_faults, fstat_fails)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	lsct_sys_fail(LSCT_SYS_FSTAT, 1, EACCES);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	expect_fail(f, &o, -EACCES, "open", buf, &pl);
	free(f);
}

Test(load_faults, file_changed_during_the_load)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	/* the check at the end sees a new mtime */
	lsct_sys_install(&(struct lsct_sys_plan){.op = LSCT_SYS_FSTAT, .nth = 2, .how = LSCT_SYS_SHORT});
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	expect_fail(f, &o, LSC_E_CHANGED, "read", buf, &pl);
	cr_assert_str_eq(lsc__parsed_get(&pl, "path"), f);
	cr_assert(strstr(pl.human, "written during the load"), "%s", pl.human);
	free(f);
}

Test(load_faults, arena_mmap_enomem)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	lsct_sys_fail(LSCT_SYS_MMAP, 1, ENOMEM);
	struct lsc_extent e = {.path = f, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	int fds = lsct_open_fds();
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	cr_assert_eq(ret, -ENOMEM, "%s", lsc_strerror(ret));
	cr_assert_null(a);
	cr_assert_eq(lsct_open_fds(), fds);
	cr_assert_eq(lsct_sys_mapped(), 0);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	int found = 0;
	for (unsigned k = 0; lsct_find(&cap, "error", k, buf, sizeof(buf), &pl); k++)
		found |= !strcmp(lsc__parsed_get(&pl, "what"), "allocate") &&
			 !strcmp(lsc__parsed_get(&pl, "err"), "ENOMEM");
	cr_assert(found, "no allocate ENOMEM line");
	lsc_profiler_destroy(p);
	free(f);
}

Test(load_faults, staging_mmap_fails)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	/* the staging buffers: 2 x 1 MiB */
	lsct_sys_install(&(struct lsct_sys_plan){.mmap_len = 2u << 20, .err = ENOMEM});
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	expect_fail(f, &o, -ENOMEM, "staging", buf, &pl);
	free(f);
}

Test(load_faults, staging_not_lockable_is_a_fallback)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	lsct_sys_install(&(struct lsct_sys_plan){.op = LSCT_SYS_MLOCK, .nth = 1, .every = 1, .err = EPERM});
	expect_ok(f, &o);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	int found = 0;
	for (unsigned k = 0; lsct_find(&cap, "fallback", k, buf, sizeof(buf), &pl); k++)
		found |= !strcmp(lsc__parsed_get(&pl, "what"), "staging") &&
			 strstr(lsc__parsed_get(&pl, "reason"), "EPERM") != NULL;
	cr_assert(found, "no staging fallback line naming EPERM");
	free(f);
}

Test(load_faults, direct_refused_falls_back_to_buffered)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	o.flags |= LSC_LOAD_DIRECT;
	lsct_sys_install(&(struct lsct_sys_plan){.direct = LSCT_DIRECT_NO_OPEN});
	expect_ok(f, &o);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find_fallback(&cap, "direct", buf, sizeof(buf), &pl), "no direct fallback line");
	cr_assert_str_eq(lsc__parsed_get(&pl, "took"), "buffered");
	cr_assert(strstr(lsc__parsed_get(&pl, "reason"), "open with O_DIRECT: EINVAL"), "%s",
		  lsc__parsed_get(&pl, "reason"));
	cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "direct"), "0");
	cr_assert(strstr(pl.human, ", buffered, "), "%s", pl.human);
	cr_assert_eq(ok_stats.direct_applied, 0);
	free(f);
}

/* Only EINVAL means "this filesystem refuses O_DIRECT": any other error of
 * the O_DIRECT open (here EIO, and EACCES) is the file's, fails the load
 * with one open error naming it, and is not hidden behind a buffered
 * reopen. */
Test(load_faults, direct_open_error_other_than_einval_fails_the_load)
{
	static const int errs[] = {EIO, EACCES};
	static const char *const names[] = {"EIO", "EACCES"};
	char *f = file();
	for (unsigned i = 0; i < 2; i++) {
		struct lsc_load_options o = pread_opts();
		o.flags |= LSC_LOAD_DIRECT;
		lsct_sys_fail(LSCT_SYS_OPEN, 1, errs[i]); /* the first open is the O_DIRECT one */
		char buf[LSC__LINE_MAX + 1];
		struct lsc__parsed pl;
		expect_fail(f, &o, -errs[i], "open", buf, &pl);
		cr_assert_str_eq(lsc__parsed_get(&pl, "err"), names[i]);
		cr_assert_str_eq(lsc__parsed_get(&pl, "path"), f);
		cr_assert(!lsct_has_fallback(&cap, "direct"), "fell back to buffered on %s", names[i]);
		cr_assert_eq(lsct_sys_calls(LSCT_SYS_OPEN), 1, "%s: opened %u times", names[i],
			     lsct_sys_calls(LSCT_SYS_OPEN));
		lsct_capture_reset(&cap);
	}
	free(f);
}

/* A reader that sets up, queues, and then fails its first completion; or
 * (bad_at) refuses its setup with a reason, or its first read. */
enum { BAD_COMPLETE, BAD_SETUP, BAD_SUBMIT };
static int bad_at;
struct lsc__reader {
	int queued;
};
static int bad_setup(const struct lsc__rd_cfg *cfg, struct lsc__reader **out, char *why, size_t n)
{
	(void)cfg;
	if (bad_at == BAD_SETUP) {
		snprintf(why, n, "broken: no ring for this test");
		return -ENOSYS;
	}
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}
static int bad_submit(struct lsc__reader *r, const struct lsc__rd_req *q)
{
	(void)q;
	if (bad_at == BAD_SUBMIT)
		return -EOVERFLOW;
	r->queued++;
	return 0;
}
static int bad_complete(struct lsc__reader *r, struct lsc__rd_done *d)
{
	(void)r;
	(void)d;
	return -EBADF;
}
static int bad_replace(struct lsc__reader *r, unsigned file, int fd)
{
	(void)r;
	(void)file;
	(void)fd;
	return 0;
}
static unsigned bad_state(const struct lsc__reader *r)
{
	(void)r;
	return 0;
}
static void bad_teardown(struct lsc__reader *r)
{
	free(r);
}
static const struct lsc__reader_ops bad_reader = {
	.name = "broken", .setup = bad_setup, .submit = bad_submit, .complete = bad_complete,
	.replace_fd = bad_replace, .state = bad_state, .teardown = bad_teardown,
};

Test(load_faults, reader_completion_fails)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	bad_at = BAD_COMPLETE;
	lsc__reader_override(&bad_reader);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	expect_fail(f, &o, -EBADF, "read", buf, &pl);
	cr_assert(strstr(pl.human, "broken"), "%s", pl.human);
	free(f);
}

/* A reader that cannot queue its first read: the load fails with that
 * error, one line naming the reader, the file and the offset 0. */
Test(load_faults, reader_submit_fails)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	bad_at = BAD_SUBMIT;
	lsc__reader_override(&bad_reader);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	expect_fail(f, &o, -EOVERFLOW, "read", buf, &pl);
	lsc__reader_override(NULL);
	cr_assert_str_eq(lsc__parsed_get(&pl, "cause"), "broken could not queue a read");
	cr_assert_str_eq(lsc__parsed_get(&pl, "path"), f);
	cr_assert_str_eq(lsc__parsed_get(&pl, "offset"), "0");
	cr_assert_str_eq(lsc__parsed_get(&pl, "err"), "EOVERFLOW");
	free(f);
}

/* A reader whose setup is refused: pread takes over, said in one fallback
 * line with the reader's own reason, and the load is right. */
Test(load_faults, reader_setup_refused_falls_back_to_pread)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	bad_at = BAD_SETUP;
	lsc__reader_override(&bad_reader);
	expect_ok(f, &o);
	lsc__reader_override(NULL);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find_fallback(&cap, "reader", buf, sizeof(buf), &pl), "no reader fallback: %s", cap.buf);
	cr_assert_str_eq(lsc__parsed_get(&pl, "wanted"), "broken");
	cr_assert_str_eq(lsc__parsed_get(&pl, "took"), "pread");
	cr_assert_str_eq(lsc__parsed_get(&pl, "reason"), "broken: no ring for this test");
	cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "reader"), "pread");
	free(f);
}

/* The filesystem takes O_DIRECT at open and refuses it at the first read:
 * one fallback line, the right bytes, no descriptor left behind. (Whether a
 * queued read still carries the old descriptor depends on the reader's
 * timing; the loader now clears O_DIRECT on the same descriptor, so there
 * is no old one.) */
Test(load_faults, direct_refused_at_read_time_with_reads_queued)
{
	char *path = file();
	struct lsc_load_options o = pread_opts();
	o.flags |= LSC_LOAD_DIRECT;
	o.staging_count = 4;
	o.queue_depth = 4;
	lsct_sys_install(&(struct lsct_sys_plan){.direct = LSCT_DIRECT_NO_READ});
	int probe = open(path, O_RDONLY | O_DIRECT);
	if (probe < 0)
		cr_skip_test("this filesystem refuses O_DIRECT at open (%s)", strerror(errno));
	close(probe);
	int fds = lsct_open_fds();
	expect_ok(path, &o);
	cr_assert_eq(lsct_open_fds(), fds, "a file was left open");
	cr_assert_eq(lsct_count(&cap, "error"), 0);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find_fallback(&cap, "direct", buf, sizeof(buf), &pl), "no direct fallback line");
	cr_assert(strstr(lsc__parsed_get(&pl, "reason"), "first O_DIRECT read: EINVAL"), "%s",
		  lsc__parsed_get(&pl, "reason"));
	/* What ran was buffered: the stats and the loaded line say so. */
	cr_assert_eq(ok_stats.direct_applied, 0, "stats claim O_DIRECT after the fallback");
	cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "direct"), "0", "%s", pl.human);
	cr_assert(strstr(pl.human, ", buffered, "), "%s", pl.human);
	free(path);
}

/* Staging that would take more than half of MemAvailable (here 4 TiB) is
 * refused with one line before anything is mapped or populated. */
Test(load_faults, staging_larger_than_memory_is_refused)
{
	char *path = file();
	struct lsc_load_options o = pread_opts();
	o.staging_count = 4096;
	o.staging_bytes = 1ull << 30;
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	expect_fail(path, &o, -ENOMEM, "staging", buf, &pl);
	free(path);
}

/* A staging size within a page of 2^64 would round up to 0 and the chunk
 * plan would never end: refused like any other size over 1 GiB. */
Test(load_faults, staging_size_near_2_to_the_64_is_refused)
{
	char *path = file();
	struct lsc_load_options o = pread_opts();
	o.staging_bytes = UINT64_MAX;
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	expect_fail(path, &o, -EINVAL, "options", buf, &pl);
	free(path);
}

/* A file's unaligned tail read with O_DIRECT comes back short at end of
 * file; that is complete, not a reason to ask for the padding again at a
 * misaligned offset (which a filesystem that checks alignment before end
 * of file refuses, turning O_DIRECT off with a misleading line). */
Test(load_faults, direct_tail_is_one_aligned_read)
{
	char *path = file(); /* 4 MiB + 100 bytes */
	int probe = open(path, O_RDONLY | O_DIRECT);
	if (probe < 0)
		cr_skip_test("this filesystem refuses O_DIRECT at open (%s)", strerror(errno));
	close(probe);
	struct lsc_load_options o = pread_opts();
	o.flags |= LSC_LOAD_DIRECT;
	lsct_sys_install(&(struct lsct_sys_plan){.direct = LSCT_DIRECT_ALIGNED});
	expect_ok(path, &o);
	cr_assert(!lsct_has_fallback(&cap, "direct"), "O_DIRECT was turned off");
	free(path);
}

Test(load_faults, pread_eagain_is_retried)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	lsct_sys_fail(LSCT_SYS_PREAD, 2, EAGAIN);
	int fds = lsct_open_fds();
	expect_ok(f, &o);
	cr_assert_eq(lsct_open_fds(), fds);
	cr_assert_eq(lsct_count(&cap, "error"), 0);
	free(f);
}

/* A file system that answers EAGAIN to every read: the load fails with
 * one read error after a bounded number of tries, never spins forever. */
Test(load_faults, pread_eagain_forever_fails_the_load, .timeout = 60)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	lsct_sys_install(&(struct lsct_sys_plan){.op = LSCT_SYS_PREAD, .nth = 1, .every = 1, .err = EAGAIN});
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	expect_fail(f, &o, -EAGAIN, "read", buf, &pl);
	cr_assert_str_eq(lsc__parsed_get(&pl, "err"), "EAGAIN");
	cr_assert_str_eq(lsc__parsed_get(&pl, "path"), f);
	/* 1000 tries in a row for the first read, then it is given up */
	cr_assert_eq(lsct_sys_calls(LSCT_SYS_PREAD), 1000, "%u preads", lsct_sys_calls(LSCT_SYS_PREAD));
	free(f);
}

/* A manifest whose file is shorter than an extent: refused before the
 * arena is mapped. */
Test(load_faults, file_shorter_than_the_manifest)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	struct lsc_extent e = {.path = f, .file_offset = 4096, .length = 8u << 20};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	int fds = lsct_open_fds();
	cr_assert_eq(lsc_load(p, &o, &e, 1, 0, &a), LSC_E_SHORT);
	cr_assert_eq(lsct_open_fds(), fds);
	cr_assert_eq(lsct_sys_mapped(), 0);
	cr_assert_eq(lsct_sys_calls(LSCT_SYS_MMAP), 0, "the arena was mapped");
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert_eq(lsct_count(&cap, "error"), 1);
	cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "what"), "manifest");
	cr_assert_str_eq(lsc__parsed_get(&pl, "offset"), "4096");
	lsc_profiler_destroy(p);
	free(f);
}

static int f_fadvise_fails(int fd, off_t off, off_t len, int advice)
{
	(void)fd;
	(void)off;
	(void)len;
	(void)advice;
	errno = ESPIPE;
	return -1;
}

/* POSIX_FADV_SEQUENTIAL is advice: its failure changes nothing. */
Test(load_faults, fadvise_failure_is_ignored)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	static struct lsc__sys t;
	t = *lsc__sys; /* the kit's table, with fadvise failing */
	t.posix_fadvise = f_fadvise_fails;
	lsc__sys_set(&t);
	expect_ok(f, &o);
	cr_assert_eq(lsct_count(&cap, "error"), 0);
	free(f);
}

/* The check at the end cannot stat the file: the load fails, released. */
Test(load_faults, fstat_after_the_load_fails)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	lsct_sys_fail(LSCT_SYS_FSTAT, 2, EIO);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	expect_fail(f, &o, -EIO, "read", buf, &pl);
	cr_assert(strstr(pl.human, "fstat after the load"), "%s", pl.human);
	free(f);
}

/* A reader name this build does not know: refused before the arena is mapped. */
Test(load_faults, unknown_reader_is_refused)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	o.reader = "aio";
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	expect_fail(f, &o, -EINVAL, "options", buf, &pl);
	cr_assert(strstr(pl.human, "reader \"aio\" (auto, io_uring or pread)"), "%s", pl.human);
	cr_assert_eq(lsct_sys_calls(LSCT_SYS_MMAP), 0, "the arena was mapped");
	free(f);
}
