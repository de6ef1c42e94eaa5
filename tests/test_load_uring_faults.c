/*
 * Description: the io_uring reader's failures after setup, caused through
 * the syscall shim (src/sys/sys.h): its uring_wait_cqe hook hands back
 * the kernel's real CQE, whose result a test rewrites (a short read,
 * -EINTR, -EAGAIN, -EIO, -ECANCELED), and its submit hooks deny
 * io_uring_enter the way a seccomp filter does (-EPERM), or fail waiting;
 * its pread hook returns a little at a time, as a FUSE file may.
 *
 * Each is handled (retried, resubmitted, fallen back to pread with one
 * `fallback` line) or fails the load with one `error` line naming the
 * path and the offset; every file is closed, and no page stays pinned
 * (VmPin in /proc/self/status is 0 when lsc_load returns, which also
 * proves the ring's registered buffers are released before it returns).
 * A file truncated after its size was checked fails with LSC_E_SHORT at
 * the offset where it really ends, not at the start of a later chunk.
 * Skips loudly where the kernel has no usable io_uring.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "helpers/load_helpers.h"
#include "sys/sys.h"

#define SIZE ((4u << 20) + 100) /* 5 chunks of 1 MiB through staging */

static struct lsct_capture cap;
static struct lsc__sys shim;
static struct {
	int res;             /* the result to write into completion number nth */
	unsigned nth;        /* 1-based; 0: every completion */
	unsigned seen;       /* read completions handed back */
	int res2;            /* and this error into completion number nth2 */
	unsigned nth2;
	int deny_enter;      /* io_uring_enter: this errno */
	unsigned deny_after; /* ... only after this many submit_and_wait calls went through */
	unsigned enters;     /* submit_and_wait calls seen */
	unsigned submitted;  /* reads the kernel took through them */
	unsigned inflight_at_denial; /* reads the kernel held when the first denial came */
	int wait_err;        /* uring_wait_cqe fails with this */
	off_t truncate_to;   /* truncate the file at its fadvise (after the size check) */
	int reg_files_err, reg_bufs_err; /* io_uring_register fails with this */
	int init_err;                    /* io_uring_queue_init fails with this */
	unsigned refuse;   /* submit_and_wait refuses (EAGAIN, nothing taken) this many times first */
	unsigned refused;  /* ... refusals handed back so far */
	unsigned naps;     /* the reader's naps (free here: counted, not slept) */
	size_t pread_cap;  /* pread returns at most this many bytes a call (a FUSE file) */
	unsigned short_preads; /* ... calls it cut short */
	const char *path;
} F;

static int f_init(unsigned entries, struct io_uring *ring, struct io_uring_params *prm)
{
	if (F.init_err)
		return -F.init_err;
	return lsc__sys_default.uring_init(entries, ring, prm);
}

static int f_reg_files(struct io_uring *ring, const int *fds, unsigned n)
{
	if (F.reg_files_err)
		return -F.reg_files_err;
	return io_uring_register_files(ring, fds, n);
}

static int f_reg_bufs(struct io_uring *ring, const struct iovec *iov, unsigned n)
{
	if (F.reg_bufs_err)
		return -F.reg_bufs_err;
	return io_uring_register_buffers(ring, iov, n);
}

static int f_wait_cqe(struct io_uring *ring, struct io_uring_cqe **cqe)
{
	if (F.wait_err) { /* once: teardown then drains what is in flight */
		int e = F.wait_err;
		F.wait_err = 0;
		return -e;
	}
	int ret = io_uring_wait_cqe(ring, cqe);
	if (ret == 0 && (*cqe)->user_data != UINT64_MAX) {
		F.seen++;
		if (F.res && (!F.nth || F.seen == F.nth)) {
			if (F.res > 0 && (*cqe)->res > F.res)
				(*cqe)->res = F.res; /* a short read */
			else if (F.res < 0)
				(*cqe)->res = F.res;
		}
		if (F.nth2 && F.seen == F.nth2)
			(*cqe)->res = F.res2;
	}
	return ret;
}

static int f_submit(struct io_uring *ring)
{
	if (F.deny_enter)
		return -F.deny_enter;
	return io_uring_submit(ring);
}

static int f_submit_and_wait(struct io_uring *ring, unsigned n)
{
	if (F.refused < F.refuse) {
		F.refused++;
		return -EAGAIN;
	}
	if (F.deny_enter && ++F.enters > F.deny_after) {
		if (F.enters == F.deny_after + 1)
			F.inflight_at_denial = F.submitted - F.seen;
		return -F.deny_enter;
	}
	int ret = io_uring_submit_and_wait(ring, n);
	if (ret > 0)
		F.submitted += (unsigned)ret;
	return ret;
}

/* Free only in the tests of refused submissions, which count the naps: a
 * reap without io_uring_enter waits on the kernel in its naps, and gets
 * them whole. */
static int f_nanosleep(const struct timespec *req, struct timespec *rem)
{
	F.naps++;
	return F.refuse ? 0 : nanosleep(req, rem);
}

static ssize_t f_pread(int fd, void *buf, size_t len, off_t off)
{
	if (F.pread_cap && len > F.pread_cap) {
		len = F.pread_cap;
		F.short_preads++;
	}
	return lsc__sys_default.pread(fd, buf, len, off);
}

static int f_fadvise(int fd, off_t off, off_t len, int advice)
{
	if (F.truncate_to)
		cr_assert_eq(truncate(F.path, F.truncate_to), 0);
	return lsc__sys_default.posix_fadvise(fd, off, len, advice);
}

static void setup(void)
{
	struct io_uring ring;
	int ret = io_uring_queue_init(4, &ring, 0);
	if (ret < 0)
		cr_skip_test("io_uring unavailable here: io_uring_queue_init: %s", strerror(-ret));
	io_uring_queue_exit(&ring);
	memset(&F, 0, sizeof(F));
	shim = lsc__sys_default;
	shim.uring_wait_cqe = f_wait_cqe;
	shim.uring_submit = f_submit;
	shim.uring_submit_and_wait = f_submit_and_wait;
	shim.posix_fadvise = f_fadvise;
	shim.uring_init = f_init;
	shim.uring_register_files = f_reg_files;
	shim.uring_register_buffers = f_reg_bufs;
	shim.nanosleep = f_nanosleep;
	shim.pread = f_pread;
	lsc__sys_set(&shim);
}

static void teardown(void)
{
	lsc__sys_set(NULL);
	unsetenv("LOADSCOPE_READ_ASYNC");
	unsetenv("LOADSCOPE_READ_FIXED");
	lsct_capture_reset(&cap);
}

TestSuite(load_uring_faults, .init = setup, .fini = teardown, .timeout = 60);

/* VmPin of this process in kB, or -1. */
static long vm_pin_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static struct lsc_load_options opts(unsigned qd)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "io_uring";
	o.staging_count = 4;
	o.staging_bytes = 1u << 20;
	o.queue_depth = qd;
	return o;
}

/* Load a fresh file; check what every load must leave behind. */
static int load(struct lsc_load_options *o, char **path, lsc_arena **a)
{
	*path = strdup(lsct_make_file("u.bin", SIZE, 91));
	F.path = *path;
	struct lsc_extent e = {.path = *path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	int fds = lsct_open_fds();
	int ret = lsc_load(p, o, &e, 1, 0, a);
	cr_assert_eq(lsct_open_fds(), fds, "a descriptor was left open");
	cr_assert_eq(vm_pin_kb(), 0, "pages still pinned when lsc_load returned");
	lsc_profiler_destroy(p);
	return ret;
}

static void loads_right(struct lsc_load_options *o)
{
	char *path;
	lsc_arena *a = NULL;
	int ret = load(o, &path, &a);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	uint64_t h;
	cr_assert_eq(lsc_arena_extent_hash(a, 0, &h), 0);
	cr_assert_eq(h, lsct_file_hash(path, 0, SIZE));
	cr_assert_eq(lsct_count(&cap, "error"), 0);
	lsc_arena_destroy(a);
	free(path);
}

/* One fallback to pread whose reason names @why; the loaded line says pread. */
static void fell_back(const char *why)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find_fallback(&cap, "reader", buf, sizeof(buf), &pl), "no reader fallback line");
	cr_assert_str_eq(lsc__parsed_get(&pl, "wanted"), "io_uring");
	cr_assert_str_eq(lsc__parsed_get(&pl, "took"), "pread");
	cr_assert(strstr(lsc__parsed_get(&pl, "reason"), why), "%s", lsc__parsed_get(&pl, "reason"));
	cr_assert_eq(lsct_count(&cap, "fallback"), 1);
	cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "reader"), "pread");
	/* pread has no fixed buffers, registered files or async flag to claim */
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed"), "0");
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed_files"), "0");
	cr_assert_str_eq(lsc__parsed_get(&pl, "async"), "0");
}

static void fails(struct lsc_load_options *o, int want, const char *offset)
{
	char *path;
	lsc_arena *a = NULL;
	int ret = load(o, &path, &a);
	if (ret != want)
		lsct_dump(&cap);
	cr_assert_eq(ret, want, "got %s", lsc_strerror(ret));
	cr_assert_null(a);
	cr_assert_eq(lsct_count(&cap, "error"), 1);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "what"), "read");
	cr_assert_str_eq(lsc__parsed_get(&pl, "path"), path);
	cr_assert_str_eq(lsc__parsed_get(&pl, "offset"), offset);
	free(path);
}

Test(load_uring_faults, short_completion_is_resubmitted)
{
	struct lsc_load_options o = opts(4);
	F.res = 1000;
	F.nth = 2;
	loads_right(&o);
	cr_assert_eq(lsct_count(&cap, "fallback"), 0);
}

Test(load_uring_faults, eintr_completion_is_retried)
{
	struct lsc_load_options o = opts(4);
	F.res = -EINTR;
	F.nth = 2;
	loads_right(&o);
	cr_assert_eq(lsct_count(&cap, "fallback"), 0);
}

Test(load_uring_faults, one_eagain_is_retried)
{
	struct lsc_load_options o = opts(4);
	F.res = -EAGAIN;
	F.nth = 3;
	loads_right(&o);
	cr_assert_eq(lsct_count(&cap, "fallback"), 0);
}

/* io-wq cannot start workers (RLIMIT_NPROC): every async read cancelled. */
Test(load_uring_faults, ecanceled_falls_back_to_pread)
{
	struct lsc_load_options o = opts(4);
	F.res = -ECANCELED;
	loads_right(&o);
	fell_back("ECANCELED");
}

/* The reason names RLIMIT_NPROC's value when it is finite, beside the
 * signal storm that cancels io-wq's worker start as well (unlimited:
 * test_load_iowq_nproc.c, which needs CAP_SYS_RESOURCE). */
static void ecanceled_with_nproc(rlim_t nproc, const char *named)
{
	struct rlimit rl;
	cr_assert_eq(getrlimit(RLIMIT_NPROC, &rl), 0);
	char text[96];
	if (nproc != RLIM_INFINITY) {
		if (rl.rlim_max != RLIM_INFINITY && nproc > rl.rlim_max)
			nproc = rl.rlim_max - 1; /* lowering needs no privilege */
		snprintf(text, sizeof(text), named, (unsigned long long)nproc);
		named = text;
	}
	rl.rlim_cur = nproc;
	if (nproc == RLIM_INFINITY)
		rl.rlim_max = RLIM_INFINITY;
	if (setrlimit(RLIMIT_NPROC, &rl) != 0)
		cr_skip_test("cannot set RLIMIT_NPROC to %s here (raising it needs CAP_SYS_RESOURCE): %s",
			     nproc == RLIM_INFINITY ? "unlimited" : "a finite value", strerror(errno));
	struct lsc_load_options o = opts(4);
	F.res = -ECANCELED;
	loads_right(&o);
	fell_back("a signal storm");
	fell_back(named);
}

Test(load_uring_faults, ecanceled_under_a_finite_nproc_names_it)
{
	ecanceled_with_nproc(12345, "RLIMIT_NPROC (%llu processes for this user)");
}

/* ... or refused with EAGAIN every time: retried forever before. */
Test(load_uring_faults, eagain_forever_falls_back_to_pread)
{
	struct lsc_load_options o = opts(4);
	F.res = -EAGAIN;
	loads_right(&o);
	fell_back("EAGAIN again and again");
}

/* io_uring_enter refusing the submission itself (EAGAIN: no memory for
 * the requests) with nothing in flight to reap: the reader naps 1 ms and
 * tries again, 10,000 times (about 10 s), and then reads the rest with
 * pread: 10,000 refusals in a row are waited out, the 10,001st ends the
 * ring (before, it failed the load with a cause about reads in flight
 * when none was). */
Test(load_uring_faults, refused_submissions_are_retried_10000_times)
{
	struct lsc_load_options o = opts(4);
	F.refuse = 10000;
	loads_right(&o);
	cr_assert_eq(F.refused, 10000);
	cr_assert_eq(F.naps, 10000, "one nap per refusal");
}

Test(load_uring_faults, the_10001st_refusal_in_a_row_falls_back_to_pread)
{
	struct lsc_load_options o = opts(4);
	F.refuse = UINT_MAX;
	loads_right(&o);
	cr_assert_eq(F.refused, 10001, "refusals taken before giving up");
	cr_assert_eq(F.naps, 10000);
	fell_back("io_uring_enter: EAGAIN 10000 times in a row");
}

/* A cancelled read in the middle of an arena load with fixed buffers. */
Test(load_uring_faults, ecanceled_into_the_arena_falls_back)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "io_uring";
	F.res = -ECANCELED;
	F.nth = 1;
	setenv("LOADSCOPE_READ_FIXED", "1", 1); /* the arena registered, whatever its pages */
	char *path = strdup(lsct_make_file("arena.bin", (40u << 20) + 3, 92)); /* 3 chunks of 16 MiB */
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	cr_assert_eq(vm_pin_kb(), 0);
	uint64_t h;
	cr_assert_eq(lsc_arena_extent_hash(a, 0, &h), 0);
	cr_assert_eq(h, lsct_file_hash(path, 0, (40u << 20) + 3));
	fell_back("ECANCELED");
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	free(path);
}

/* A seccomp filter that allows io_uring_setup but not io_uring_enter. */
Test(load_uring_faults, enter_denied_falls_back_to_pread)
{
	struct lsc_load_options o = opts(4);
	F.deny_enter = EPERM;
	loads_right(&o);
	fell_back("io_uring_enter: EPERM");
}

/* Denied from the first io_uring_enter, on a file whose pread returns a
 * little at a time: the reads the ring had prepared, done with pread
 * instead, are each read whole (pread again from where it stopped), not
 * taken as short. */
Test(load_uring_faults, enter_denied_on_a_file_read_a_little_at_a_time)
{
	struct lsc_load_options o = opts(4);
	F.deny_enter = EPERM;
	F.pread_cap = 3 * 4096 + 1;
	loads_right(&o);
	fell_back("io_uring_enter: EPERM");
	cr_assert_gt(F.short_preads, 0, "no pread was cut short");
}

/* Denied at the second io_uring_enter, with the first one's reads still in
 * flight (it failed the load): they are reaped from the completion queue,
 * the rest read with pread, one fallback line. Both with the reads done
 * inline at submit and on io-wq workers. */
static void denied_with_reads_in_flight(const char *async)
{
	setenv("LOADSCOPE_READ_ASYNC", async, 1);
	struct lsc_load_options o = opts(4);
	F.deny_enter = EPERM;
	F.deny_after = 1;
	loads_right(&o);
	cr_assert_gt(F.enters, 1, "the second io_uring_enter never came");
	cr_assert_gt(F.inflight_at_denial, 0, "no read was in flight at the denial");
	fell_back("the reads in flight are reaped first");
	cr_assert_eq(lsct_count(&cap, "fallback"), 1, "%s", cap.buf);
}

Test(load_uring_faults, enter_denied_with_reads_in_flight_falls_back_to_pread)
{
	denied_with_reads_in_flight("0");
}

Test(load_uring_faults, enter_denied_with_async_reads_in_flight_falls_back_to_pread)
{
	denied_with_reads_in_flight("1");
}

/* qd 1: completions in order, the 2nd is the chunk at 1 MiB. */
Test(load_uring_faults, eio_completion_names_path_and_offset)
{
	struct lsc_load_options o = opts(1);
	F.res = -EIO;
	F.nth = 2;
	fails(&o, -EIO, "1048576");
}

/* Waiting itself fails: the line names the oldest read in flight. */
Test(load_uring_faults, wait_failure_names_path_and_offset)
{
	struct lsc_load_options o = opts(1);
	F.wait_err = EBADF;
	fails(&o, -EBADF, "0");
}

/* Truncated to 1.5 MiB after the size check: chunk 1 reads short and is
 * resubmitted, while chunks 2 and 3 read 0 bytes at 2 and 3 MiB (inline
 * reads complete in submission order, so chunk 2's end of file is reaped
 * before chunk 1's rest). The real end is 1572864. */
Test(load_uring_faults, truncated_file_reports_its_real_end)
{
	setenv("LOADSCOPE_READ_ASYNC", "0", 1);
	struct lsc_load_options o = opts(4);
	F.truncate_to = 1572864;
	fails(&o, LSC_E_SHORT, "1572864");
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
	cr_assert(strstr(pl.human, "file ends at byte 1572864"), "%s", pl.human);
}

/* Into the arena with fixed buffers: the kernel releases a closed ring's
 * registered buffers later, from a workqueue; VmPin must be 0 on return. */
Test(load_uring_faults, no_pages_stay_pinned_after_the_load)
{
	cr_assert_eq(vm_pin_kb(), 0, "pinned before the test");
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "io_uring";
	setenv("LOADSCOPE_READ_FIXED", "1", 1); /* the arena registered, whatever its pages */
	char *path = strdup(lsct_make_file("pin.bin", 64u << 20, 93));
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	long kb = vm_pin_kb(); /* first thing after the return */
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	if (lsct_has_fallback(&cap, "buffers"))
		cr_skip_test("fixed buffers not registered here: nothing was pinned by io_uring");
	cr_assert_eq(kb, 0, "VmPin %ld kB right after lsc_load returned", kb);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	free(path);
}

Test(load_uring_faults, register_files_fails_is_a_fallback)
{
	struct lsc_load_options o = opts(4);
	F.reg_files_err = EBADF;
	loads_right(&o);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find_fallback(&cap, "files", buf, sizeof(buf), &pl), "no files fallback line");
	cr_assert(strstr(lsc__parsed_get(&pl, "reason"), "io_uring_register_files: EBADF"), "%s",
		  lsc__parsed_get(&pl, "reason"));
}

Test(load_uring_faults, register_buffers_enomem_is_a_fallback)
{
	struct lsc_load_options o = opts(4);
	F.reg_bufs_err = ENOMEM;
	loads_right(&o);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find_fallback(&cap, "buffers", buf, sizeof(buf), &pl), "no buffers fallback line");
	cr_assert(strstr(lsc__parsed_get(&pl, "reason"), "ENOMEM (RLIMIT_MEMLOCK"), "%s",
		  lsc__parsed_get(&pl, "reason"));
	cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "fixed"), "0");
}

/* Setup refused (no io_uring, or a seccomp filter on io_uring_setup). */
Test(load_uring_faults, setup_refused_falls_back_and_releases)
{
	struct lsc_load_options o = opts(4);
	F.init_err = ENOSYS;
	loads_right(&o);
	fell_back("io_uring_queue_init: ENOSYS");
	lsct_capture_reset(&cap);
	F.init_err = EPERM;
	loads_right(&o);
	fell_back("io_uring_queue_init: EPERM");
}

/* An LSM or a container runtime that answers io_uring_enter with EACCES
 * rather than seccomp's EPERM: the same fallback (scripts/mutations.txt,
 * uring-denied-eacces). */
Test(load_uring_faults, enter_eacces_falls_back_to_pread)
{
	struct lsc_load_options o = opts(4);
	F.deny_enter = EACCES;
	loads_right(&o);
	fell_back("io_uring_enter: EACCES");
}

/* qd 1: the first read comes back short (1000 bytes), its resubmission is
 * cancelled: the rest of that chunk is read with pread from byte 1000 on,
 * into byte 1000 on (scripts/mutations.txt, uring-sync-offset). */
Test(load_uring_faults, fallback_after_a_short_read_reads_the_rest)
{
	struct lsc_load_options o = opts(1);
	F.res = 1000;
	F.nth = 1;
	F.res2 = -ECANCELED;
	F.nth2 = 2;
	loads_right(&o);
	fell_back("ECANCELED");
}
