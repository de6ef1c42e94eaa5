/*
 * Description: every fault in every order, through every reader and both
 * pin paths (the mlock backend here, the GPU core over its fake runtime in
 * test_pin_gpu.c). Faults are caused through the syscall shim (src/sys/sys.h):
 * a pread hook that answers from a script (EINTR, EAGAIN, a short read, a
 * whole read), the io_uring reader's uring_wait_cqe hook rewriting the
 * kernel's real completion the same way, and the mlock hook; completion
 * order through the reader ops table (a reader of this file that completes
 * the last read it was given first).
 *
 * - lsc__pread_full counts EAGAINs in a row, not in total: 999 in a row and
 *   then a byte, again and again, reads the file; 1000 in a row fails with
 *   -EAGAIN (both sides of EAGAIN_MAX, docs/loader.md); EINTR is never
 *   counted.
 * - Each of the 6 orders of EINTR, EAGAIN and a short read, repeated until
 *   the reads are done, loads the file exactly with no fallback, with pread
 *   and with io_uring, into the arena and through staging.
 * - The io_uring reader takes 16 EAGAIN completions of one read in a row
 *   and falls back to pread at the 17th; 16 in a row again and again with
 *   progress between them is no fallback.
 * - Reads completed last first with the expected hash wrong at the first,
 *   the middle or the last extent fail the load with LSC_E_HASH naming that
 *   extent (all of them complete before the first is hashed, so a mismatch
 *   found early must not be forgotten by the good extents hashed after it);
 *   all hashes right, the load succeeds with each extent's hash.
 * - A pin call interrupted (EINTR) is tried again: once or twice interrupted
 *   the segment pins with mlock, no fallback; three times (MAX_TRIES) the
 *   pin falls back to none with the reason.
 * Expected bytes are the file's own (read apart), hashes XXH3-64 of them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "helpers/load_helpers.h"
#include "helpers/pin_fakes.h"
#include "loader/read/reader.h"
#include "sys/sys.h"

static struct lsct_capture cap;
static struct lsc__sys shim;

/* The script: one letter per call (pread) or completion of a read (io_uring), cycled
 * when @cycle, else '.' once it runs out. I: EINTR, A: EAGAIN, S: at most
 * 1000 bytes, '.': the real call. */
static struct {
	char pattern[4096];
	size_t len, at, at_slot[64];
	int cycle;
	unsigned calls, eagains, eintrs, shorts;
} S;

static void script(const char *p, int cycle)
{
	memset(&S, 0, sizeof(S));
	snprintf(S.pattern, sizeof(S.pattern), "%s", p);
	S.len = strlen(S.pattern);
	S.cycle = cycle;
}

static char step_at(size_t *at)
{
	S.calls++;
	if (!S.len || (!S.cycle && *at >= S.len))
		return '.';
	return S.pattern[(*at)++ % S.len];
}

static char next_step(void)
{
	return step_at(&S.at);
}

static ssize_t s_pread(int fd, void *buf, size_t len, off_t off)
{
	switch (next_step()) {
	case 'I':
		S.eintrs++;
		errno = EINTR;
		return -1;
	case 'A':
		S.eagains++;
		errno = EAGAIN;
		return -1;
	case 'S':
		S.shorts++;
		return lsc__sys_default.pread(fd, buf, len > 1000 ? 1000 : len, off);
	default:
		return lsc__sys_default.pread(fd, buf, len, off);
	}
}

static int s_wait_cqe(struct io_uring *ring, struct io_uring_cqe **cqe)
{
	int ret = io_uring_wait_cqe(ring, cqe);
	if (ret || (*cqe)->user_data >= 64 || (*cqe)->res < 0)
		return ret;
	/* Each read its own script (the reader's slot is the user data): one
	 * script over all completions could lock into a phase where one read
	 * always draws the same letter. */
	switch (step_at(&S.at_slot[(*cqe)->user_data])) {
	case 'I':
		S.eintrs++;
		(*cqe)->res = -EINTR;
		break;
	case 'A':
		S.eagains++;
		(*cqe)->res = -EAGAIN;
		break;
	case 'S':
		if ((*cqe)->res > 1000) {
			S.shorts++;
			(*cqe)->res = 1000;
		}
		break;
	}
	return ret;
}

static void setup(void)
{
	shim = lsc__sys_default;
	shim.pread = s_pread;
	shim.uring_wait_cqe = s_wait_cqe;
	script("", 0);
	lsc__sys_set(&shim);
}

static void teardown(void)
{
	lsc__sys_set(NULL);
	lsc__reader_override(NULL);
	unsetenv("LOADSCOPE_READ_PATH");
	lsct_capture_reset(&cap);
}

TestSuite(load_fault_orders, .init = setup, .fini = teardown, .timeout = 120);

/* ---- lsc__pread_full: EAGAINs in a row ------------------------------------ */

static int64_t read_whole(const char *path, unsigned char *buf, uint32_t len)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f);
	struct lsc__rd_req q = {.fd = fileno(f), .off = 0, .buf = buf, .len = len, .buf_index = -1};
	int64_t got = lsc__pread_full(&q);
	fclose(f);
	return got;
}

/* @run EAGAINs, then one step of @step bytes at most ('S' is 1000), cycled. */
static void eagain_runs(unsigned run, char step)
{
	char p[1100];
	cr_assert_lt(run, sizeof(p) - 1);
	memset(p, 'A', run);
	p[run] = step;
	p[run + 1] = 0;
	script(p, 1);
}

Test(load_fault_orders, pread_full_counts_eagains_in_a_row)
{
	char *path = strdup(lsct_make_file("e.bin", 5000, 31));
	uint64_t len;
	unsigned char *want = lsct_read_file(path, &len);
	unsigned char buf[5000];

	/* 999 in a row, then 1000 bytes: five times, 4995 EAGAINs in all. */
	eagain_runs(999, 'S');
	memset(buf, 0, sizeof(buf));
	cr_assert_eq(read_whole(path, buf, 5000), 5000, "EAGAINs counted in total, not in a row");
	cr_assert_eq(S.eagains, 5 * 999);
	cr_assert(memcmp(buf, want, len) == 0);

	/* Exactly at the limit: 999 retried, the read succeeds. */
	eagain_runs(999, '.');
	cr_assert_eq(read_whole(path, buf, 5000), 5000);
	cr_assert_eq(S.calls, 1000);

	/* One more: the 1000th in a row fails the read, after 1000 calls. */
	script("", 0);
	char p[1001];
	memset(p, 'A', 1000);
	p[1000] = 0;
	script(p, 0);
	cr_assert_eq(read_whole(path, buf, 5000), -EAGAIN);
	cr_assert_eq(S.calls, 1000);
	free(want);
	free(path);
}

Test(load_fault_orders, pread_full_never_counts_eintr)
{
	char *path = strdup(lsct_make_file("i.bin", 3000, 32));
	unsigned char buf[3000];
	char p[4001];
	memset(p, 'I', 4000);
	p[4000] = 0;
	script(p, 0);
	cr_assert_eq(read_whole(path, buf, 3000), 3000);
	cr_assert_eq(S.eintrs, 4000);
	/* EINTRs do not end a run of EAGAINs either, nor start one. */
	char q[1300];
	memset(q, 'A', 600);
	memset(q + 600, 'I', 100);
	memset(q + 700, 'A', 400);
	q[1100] = 0;
	script(q, 0);
	cr_assert_eq(read_whole(path, buf, 3000), -EAGAIN, "EINTR reset the run of EAGAINs");
	free(path);
}

/* ---- every order of the three faults, through both readers ---------------- */

static const char *orders[] = {"IAS", "ISA", "AIS", "ASI", "SIA", "SAI"};

/* The load's reader is @reader, or the lines say why not. */
static void reader_is(const char *reader, const char *path, const struct lsc_load_options *o)
{
	lsc_profiler *p = lsct_profiler(&cap);
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, o, &e, 1, 0, &a), 0, "%s", cap.buf);
	struct lsc_load_stats st;
	cr_assert_eq(lsc_arena_stats(a, &st), 0);
	cr_assert_str_eq(st.reader_applied, reader, "%s", cap.buf);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	lsct_capture_reset(&cap);
}

static void orders_through(const char *reader)
{
	char *path = strdup(lsct_make_file("o.bin", (1u << 20) + 4097, 33));
	for (int staged = 0; staged < 2; staged++) {
		for (int k = 0; k < 6; k++) {
			struct lsc_load_options o;
			lsc_load_options_init(&o);
			o.reader = reader;
			o.queue_depth = 3;
			if (staged) {
				o.staging_count = 2;
				o.staging_bytes = 1u << 20;
			}
			script(orders[k], 1);
			reader_is(reader, path, &o);
			script(orders[k], 1);
			lsct_load_check(&cap, reader, path, &o, staged ? "2x1MiB" : "none");
			cr_assert_gt(S.eintrs, 0, "%s %s: no EINTR reached the reader", reader, orders[k]);
			cr_assert_gt(S.eagains, 0, "%s %s: no EAGAIN", reader, orders[k]);
			cr_assert_gt(S.shorts, 0, "%s %s: no short read", reader, orders[k]);
		}
	}
	free(path);
}

Test(load_fault_orders, every_order_through_pread)
{
	orders_through("pread");
}

Test(load_fault_orders, every_order_through_io_uring)
{
	lsct_need_uring();
	orders_through("io_uring");
}

/* One read (one chunk, queue depth 1): 16 EAGAINs in a row are retried,
 * the 17th falls back; runs of 16 between short reads are not a fallback. */
Test(load_fault_orders, io_uring_counts_eagains_in_a_row)
{
	lsct_need_uring();
	char *path = strdup(lsct_make_file("u.bin", 6000, 34));
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "io_uring";
	o.queue_depth = 1;

	/* lsct_load_check asserts the reader that read it: io_uring, or pread
	 * after a fallback. */
	eagain_runs(16, 'S');
	lsct_load_check(&cap, "io_uring", path, &o, "none");
	cr_assert_geq(S.eagains, 5 * 16, "%u", S.eagains);

	char p[20];
	memset(p, 'A', 16);
	p[16] = 0;
	script(p, 0);
	lsct_load_check(&cap, "io_uring", path, &o, "none");
	cr_assert_eq(S.eagains, 16);

	p[16] = 'A';
	p[17] = 0;
	script(p, 0);
	lsct_load_check(&cap, "pread", path, &o, "none");
	cr_assert_geq(S.eagains, 17, "%u EAGAINs, %u calls", S.eagains, S.calls);
	free(path);
}

/* ---- completions out of order: a reader that completes the last first ------ */

struct lsc__reader {
	unsigned qd, count;
	struct lsc__rd_req q[];
};

static struct {
	unsigned max_batch; /* the most reads queued when one completed */
} lifo;

static int lifo_setup(const struct lsc__rd_cfg *cfg, struct lsc__reader **out, char *why,
		      size_t why_len)
{
	(void)why, (void)why_len;
	unsigned qd = cfg->qd ? cfg->qd : 1;
	struct lsc__reader *r = calloc(1, sizeof(*r) + qd * sizeof(r->q[0]));
	if (!r)
		return -ENOMEM;
	r->qd = qd;
	*out = r;
	return 0;
}

static int lifo_submit(struct lsc__reader *r, const struct lsc__rd_req *req)
{
	if (r->count == r->qd)
		return -EBUSY;
	r->q[r->count++] = *req;
	return 0;
}

static int lifo_complete(struct lsc__reader *r, struct lsc__rd_done *done)
{
	if (!r->count)
		return -EINVAL;
	if (r->count > lifo.max_batch)
		lifo.max_batch = r->count;
	const struct lsc__rd_req *q = &r->q[--r->count];
	done->tag = q->tag;
	done->res = lsc__pread_full(q);
	return 0;
}

static int lifo_replace_fd(struct lsc__reader *r, unsigned file, int fd)
{
	for (unsigned i = 0; i < r->count; i++)
		if (r->q[i].file == file)
			r->q[i].fd = fd;
	return 0;
}

static unsigned lifo_state(const struct lsc__reader *r)
{
	(void)r;
	return 0;
}

static void lifo_teardown(struct lsc__reader *r)
{
	free(r);
}

static const struct lsc__reader_ops lifo_reader = {
	.name = "pread",
	.setup = lifo_setup,
	.submit = lifo_submit,
	.complete = lifo_complete,
	.replace_fd = lifo_replace_fd,
	.state = lifo_state,
	.teardown = lifo_teardown,
};

/* Three extents of two chunks each, all six reads queued at once and
 * completed last first; the expected hash of extent @bad (-1: none) is
 * off by one bit. */
static void last_first(int bad, unsigned qd)
{
	char *path = strdup(lsct_make_file("h.bin", 3u << 18, 35));
	struct lsc_extent e[3];
	for (int i = 0; i < 3; i++) {
		uint64_t off = (uint64_t)i << 18;
		e[i] = (struct lsc_extent){.path = path, .file_offset = off, .length = 1u << 18,
					   .arena_offset = off};
		e[i].xxh3 = lsct_file_hash(path, off, 1u << 18) ^ (i == bad);
		e[i].has_xxh3 = 1;
	}
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.queue_depth = qd;
	o.staging_count = qd;
	o.staging_bytes = 128u << 10;
	lsc__reader_override(&lifo_reader);
	memset(&lifo, 0, sizeof(lifo));
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, e, 3, 0, &a);
	lsc__reader_override(NULL);
	cr_assert_geq(lifo.max_batch, qd < 6 ? qd : 6, "the reads were not all in flight");
	if (bad < 0) {
		cr_assert_eq(ret, 0, "%s: %s", lsc_strerror(ret), cap.buf);
		for (int i = 0; i < 3; i++) {
			uint64_t h;
			cr_assert_eq(lsc_arena_extent_hash(a, (size_t)i, &h), 0);
			cr_assert_eq(h, e[i].xxh3);
		}
		lsc_arena_destroy(a);
	} else {
		cr_assert_eq(ret, LSC_E_HASH, "qd %u, extent %d wrong: the load returned %d: %s", qd, bad,
			     ret, cap.buf);
		cr_assert_null(a);
		cr_assert_eq(lsct_count(&cap, "error"), 1, "%s", cap.buf);
		char buf[LSC__LINE_MAX + 1], want[32];
		struct lsc__parsed pl;
		lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl);
		snprintf(want, sizeof(want), "extent %d ", bad);
		cr_assert(strstr(pl.human, want), "not extent %d: %s", bad, pl.human);
		snprintf(want, sizeof(want), "%d", bad << 18);
		cr_assert_str_eq(lsc__parsed_get(&pl, "offset"), want);
	}
	lsc_profiler_destroy(p);
	lsct_capture_reset(&cap);
	free(path);
}

Test(load_fault_orders, last_first_with_every_extent_wrong_in_turn)
{
	for (int bad = -1; bad < 3; bad++) {
		last_first(bad, 8); /* all six in flight */
		last_first(bad, 3); /* two batches of three */
	}
}

/* ---- a pin call interrupted ----------------------------------------------- */

static unsigned mlock_eintrs, mlock_calls;

static int s_mlock(const void *addr, size_t len)
{
	if (mlock_calls++ < mlock_eintrs) {
		errno = EINTR;
		return -1;
	}
	return lsc__sys_default.mlock(addr, len);
}

/* One segment (3 MiB, segments of 1 GiB) whose first @eintrs mlock calls
 * are interrupted: pinned by @pinned_by after @eintrs retries. */
static void pin_interrupted(unsigned eintrs, const char *pinned_by)
{
	char *path = strdup(lsct_make_file("p.bin", 3u << 20, 36));
	struct lsc_load_options o;
	lsct_pinned_options(&o, 0);
	o.pin = "mlock";
	shim.mlock = s_mlock;
	mlock_eintrs = eintrs;
	mlock_calls = 0;
	lsc_arena *a = NULL;
	int ret = lsct_load_over(&cap, NULL, &o, path, &a);
	shim.mlock = lsc__sys_default.mlock;
	cr_assert_eq(ret, 0, "%s", cap.buf);
	struct lsc_load_stats st;
	cr_assert_eq(lsc_arena_stats(a, &st), 0);
	cr_assert_str_eq(st.pin_applied, pinned_by, "%u EINTRs: %s", eintrs, cap.buf);
	cr_assert_geq(mlock_calls, eintrs < 3 ? eintrs + 1 : 3);
	if (!strcmp(pinned_by, "mlock")) {
		cr_assert_eq(st.pin_failures, eintrs, "%s", cap.buf);
		cr_assert_eq(st.pin_retries, eintrs, "%s", cap.buf);
		cr_assert_eq(lsct_count(&cap, "fallback"), 0, "%s", cap.buf);
	} else {
		cr_assert_eq(lsct_count(&cap, "fallback"), 1, "%s", cap.buf);
		cr_assert_eq(lsct_count_with(&cap, "fallback", "Interrupted"), 1, "%s", cap.buf);
	}
	lsc_arena_destroy(a);
	lsct_capture_reset(&cap);
	free(path);
}

Test(load_fault_orders, an_interrupted_pin_is_tried_again)
{
	pin_interrupted(0, "mlock");
	pin_interrupted(1, "mlock");
	pin_interrupted(2, "mlock"); /* the third try of MAX_TRIES pins */
	pin_interrupted(3, "none");  /* no fourth */
}
