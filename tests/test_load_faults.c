/*
 * Description: faults, caused through the syscall shim (src/loader/sys.h)
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
#include <sys/mman.h>
#include <unistd.h>

#include "helpers/load_helpers.h"
#include "loader/reader.h"
#include "loader/sys.h"

static struct lsct_capture cap;

/* The shim: fail the Nth call of one hook. */
enum mode { M_ERR, M_SHORT, M_ZERO };
static struct {
	int n_pread, n_open, n_fstat, n_mmap;
	int fail_pread, fail_open, fail_fstat, fail_mmap; /* 1-based call to fail; 0 never */
	size_t fail_mmap_len; /* fail the mmap of this length (0: by count) */
	int err;
	enum mode mode;
	long long maps; /* bytes mapped through the shim and not unmapped */
	int refuse_direct_reads; /* pread on an O_DIRECT descriptor: EINVAL */
	int strict_alignment;    /* ... only when misaligned, even past end of file */
} F;

static ssize_t f_pread(int fd, void *buf, size_t len, off_t off)
{
	if (F.refuse_direct_reads && (fcntl(fd, F_GETFL) & O_DIRECT)) {
		errno = EINVAL;
		return -1;
	}
	if (F.strict_alignment && (fcntl(fd, F_GETFL) & O_DIRECT) && ((off | (off_t)len) & 4095)) {
		errno = EINVAL;
		return -1;
	}
	if (++F.n_pread == F.fail_pread) {
		if (F.mode == M_ZERO)
			return 0;
		if (F.mode == M_SHORT)
			return pread(fd, buf, len > 1000 ? 1000 : len, off);
		errno = F.err;
		return -1;
	}
	return pread(fd, buf, len, off);
}

static int f_open(const char *path, int flags, int mode)
{
	if (++F.n_open == F.fail_open || ((flags & O_DIRECT) && F.err == EINVAL && F.fail_open < 0)) {
		errno = F.err;
		return -1;
	}
	return open(path, flags, mode);
}

static int f_fstat(int fd, struct stat *st)
{
	int ret = fstat(fd, st);
	if (++F.n_fstat == F.fail_fstat) {
		if (F.mode == M_SHORT) { /* the file "changed": a later mtime */
			st->st_mtim.tv_sec += 1;
			return ret;
		}
		errno = F.err;
		return -1;
	}
	return ret;
}

static void *f_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (++F.n_mmap == F.fail_mmap || (F.fail_mmap_len && len == F.fail_mmap_len)) {
		errno = F.err;
		return MAP_FAILED;
	}
	void *m = mmap(addr, len, prot, flags, fd, off);
	if (m != MAP_FAILED && !(flags & MAP_FIXED)) /* MAP_FIXED maps inside a reservation */
		F.maps += (long long)len;
	return m;
}

static int f_munmap(void *addr, size_t len)
{
	F.maps -= (long long)len;
	return munmap(addr, len);
}

static int f_mlock(const void *addr, size_t len)
{
	(void)addr;
	(void)len;
	errno = EPERM;
	return -1;
}

static struct lsc__sys shim;

static void setup(void)
{
	memset(&F, 0, sizeof(F));
	shim = lsc__sys_default;
	shim.pread = f_pread;
	shim.open = f_open;
	shim.fstat = f_fstat;
	shim.mmap = f_mmap;
	shim.munmap = f_munmap;
	lsc__sys_set(&shim);
}

static void teardown(void)
{
	lsc__sys_set(NULL);
	lsc__reader_override(NULL);
	lsct_capture_free(&cap);
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
	cr_assert_eq(F.maps, 0, "%lld bytes left mapped", F.maps);
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
	cr_assert_eq(F.maps, 0);
}

Test(load_faults, eio_at_the_third_pread)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	F.fail_pread = 3;
	F.err = EIO;
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
	F.fail_pread = 2;
	F.mode = M_ZERO;
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
	F.fail_pread = 2;
	F.mode = M_SHORT;
	expect_ok(f, &o);
	lsct_capture_free(&cap);
	F.n_pread = 0;
	F.fail_pread = 3;
	F.mode = M_ERR;
	F.err = EINTR;
	expect_ok(f, &o);
	free(f);
}

Test(load_faults, open_fails)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	F.fail_open = 1;
	F.err = EMFILE;
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
	F.fail_fstat = 1;
	F.err = EACCES;
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	expect_fail(f, &o, -EACCES, "open", buf, &pl);
	free(f);
}

Test(load_faults, file_changed_during_the_load)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	F.fail_fstat = 2; /* the check at the end sees a new mtime */
	F.mode = M_SHORT;
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	expect_fail(f, &o, LSC_E_CHANGED, "read", buf, &pl);
	cr_assert_str_eq(lsc__parsed_get(&pl, "path"), f);
	cr_assert(strstr(pl.human, "changed during the load"), "%s", pl.human);
	free(f);
}

Test(load_faults, arena_mmap_enomem)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	F.fail_mmap = 1;
	F.err = ENOMEM;
	struct lsc_extent e = {.path = f, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	int fds = lsct_open_fds();
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	cr_assert_eq(ret, -ENOMEM, "%s", lsc_strerror(ret));
	cr_assert_null(a);
	cr_assert_eq(lsct_open_fds(), fds);
	cr_assert_eq(F.maps, 0);
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
	F.fail_mmap_len = 2u << 20; /* the staging buffers: 2 x 1 MiB */
	F.err = ENOMEM;
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	expect_fail(f, &o, -ENOMEM, "staging", buf, &pl);
	free(f);
}

Test(load_faults, staging_not_lockable_is_a_fallback)
{
	char *f = file();
	struct lsc_load_options o = pread_opts();
	shim.mlock = f_mlock;
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
	F.fail_open = -1; /* every O_DIRECT open */
	F.err = EINVAL;
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
		F.n_open = 0;
		F.fail_open = 1; /* the first open is the O_DIRECT one */
		F.err = errs[i];
		char buf[LSC__LINE_MAX + 1];
		struct lsc__parsed pl;
		expect_fail(f, &o, -errs[i], "open", buf, &pl);
		cr_assert_str_eq(lsc__parsed_get(&pl, "err"), names[i]);
		cr_assert_str_eq(lsc__parsed_get(&pl, "path"), f);
		cr_assert(!lsct_has_fallback(&cap, "direct"), "fell back to buffered on %s", names[i]);
		cr_assert_eq(F.n_open, 1, "%s: opened %d times", names[i], F.n_open);
		lsct_capture_free(&cap);
	}
	free(f);
}

/* A reader that sets up, queues, and then fails its first completion. */
struct lsc__reader {
	int queued;
};
static int bad_setup(const struct lsc__rd_cfg *cfg, struct lsc__reader **out, char *why, size_t n)
{
	(void)cfg;
	(void)why;
	(void)n;
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}
static int bad_submit(struct lsc__reader *r, const struct lsc__rd_req *q)
{
	(void)q;
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
	lsc__reader_override(&bad_reader);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	expect_fail(f, &o, -EBADF, "read", buf, &pl);
	cr_assert(strstr(pl.human, "broken"), "%s", pl.human);
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
	F.refuse_direct_reads = 1;
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
	F.strict_alignment = 1;
	expect_ok(path, &o);
	cr_assert(!lsct_has_fallback(&cap, "direct"), "O_DIRECT was turned off");
	free(path);
}
