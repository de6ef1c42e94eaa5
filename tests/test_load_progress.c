/*
 * Description: progress and cancel (lsc_load_options.progress). A 4 MiB
 * load in 64 KiB reads calls the callback first when 1/64 (64 KiB) is in,
 * at most 65 times, never backwards, and last with done == total; a
 * callback that returns nonzero cancels: -ECANCELED, one `error
 * what=cancel` line, no `loaded` line, and every descriptor, mapping and
 * locked page released (the kit's checks), with pread and io_uring alike,
 * at the first call or the last, into an arena or the caller's memory.
 * Against an injected clock (lsc__clock) that moves only inside the
 * callback, the rule is exact on both sides of both its numbers: with the
 * clock moved 100 ms a call, a call at every 64 KiB (1/64), 64 in all; with
 * 100 ms less a nanosecond, the first call and the end's only; with 100 ms
 * a call and a total of 4 MiB + 64 bytes (1/64 is one byte over a read), a
 * call every second read.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/load_helpers.h"
#include "helpers/sys_shim.h"
#include "profiler/internal.h"

static struct lsct_capture cap;

static void setup(void)
{
	lsct_sys_install(NULL);
}

static void teardown(void)
{
	lsct_sys_restore();
	lsct_capture_reset(&cap);
}

TestSuite(load_progress, .init = setup, .fini = teardown);

#define TOTAL (4u << 20)

struct calls {
	unsigned n;
	uint64_t done[128];
	uint64_t total[128];
	unsigned cancel_at;   /* 1-based call that returns nonzero; 0 never */
	int cancel_at_end;    /* return nonzero when done == total */
};

static int record(uint64_t done, uint64_t total, void *user)
{
	struct calls *c = user;
	if (c->n < 128) {
		c->done[c->n] = done;
		c->total[c->n] = total;
	}
	c->n++;
	if (c->cancel_at && c->n == c->cancel_at)
		return 1;
	return c->cancel_at_end && done == total;
}

static void opts(struct lsc_load_options *o, const char *reader, struct calls *c)
{
	lsc_load_options_init(o);
	o->reader = reader;
	o->staging_count = 4;
	o->staging_bytes = 65536; /* 64 reads of 64 KiB */
	o->queue_depth = 4;
	o->progress = record;
	o->progress_user = c;
}

static char *file(void)
{
	return strdup(lsct_make_file("progress.bin", TOTAL, 7));
}

Test(load_progress, calls_are_bounded_and_end_at_the_total)
{
	char *path = file();
	struct calls c = {0};
	struct lsc_load_options o;
	opts(&o, "pread", &c);
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, &o, &e, 1, 0, &a), 0);
	cr_assert_geq(c.n, 2);
	cr_assert_leq(c.n, 65);
	cr_assert_eq(c.done[0], 65536, "first call at %llu", (unsigned long long)c.done[0]);
	cr_assert_eq(c.done[c.n - 1], TOTAL);
	for (unsigned i = 0; i < c.n; i++) {
		cr_assert_eq(c.total[i], TOTAL);
		if (i)
			cr_assert_gt(c.done[i], c.done[i - 1]);
	}
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	free(path);
}

/* The end's call comes even for a load of no bytes. */
Test(load_progress, an_empty_file_gets_the_last_call_only)
{
	char *path = strdup(lsct_make_file("progress0.bin", 0, 1));
	struct calls c = {0};
	struct lsc_load_options o;
	opts(&o, "pread", &c);
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(NULL, &o, &e, 1, 0, &a), 0);
	cr_assert_eq(c.n, 1);
	cr_assert_eq(c.done[0], 0);
	cr_assert_eq(c.total[0], 0);
	lsc_arena_destroy(a);
	free(path);
}

static void expect_cancelled(const char *reader, unsigned at, int at_end, uint64_t want_done)
{
	char *path = file();
	struct calls c = {.cancel_at = at, .cancel_at_end = at_end};
	struct lsc_load_options o;
	opts(&o, reader, &c);
	struct lsc_load_result res;
	o.result = &res;
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = (lsc_arena *)&c;
	int fds = lsct_open_fds();
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	cr_assert_eq(ret, -ECANCELED, "%s", lsc_strerror(ret));
	cr_assert_null(a);
	cr_assert_eq(c.n, at ? at : c.n);
	cr_assert_eq(c.done[c.n - 1], want_done);
	cr_assert_eq(lsct_open_fds(), fds, "a descriptor was left open");
	cr_assert_eq(lsct_sys_mapped(), 0, "%lld bytes left mapped", lsct_sys_mapped());
	cr_assert_eq(lsct_sys_leaked(), 0);
	cr_assert_eq(lsct_count(&cap, "error"), 1);
	cr_assert_eq(lsct_count(&cap, "loaded"), 0);
	char v[64];
	cr_assert(lsct_field(&cap, "error", "what", v, sizeof(v)));
	cr_assert_str_eq(v, "cancel");
	cr_assert(lsct_field(&cap, "error", "err", v, sizeof(v)));
	cr_assert_str_eq(v, "ECANCELED");
	cr_assert_eq(res.err, -ECANCELED);
	cr_assert_str_eq(res.err_what, "cancel");
	lsc_profiler_destroy(p);
	free(path);
}

Test(load_progress, cancel_at_the_first_call_with_pread)
{
	expect_cancelled("pread", 1, 0, 65536);
}

/* Reads still in flight on the ring are drained before their buffers go. */
Test(load_progress, cancel_at_the_first_call_with_io_uring)
{
	expect_cancelled("io_uring", 1, 0, 65536);
}

Test(load_progress, cancel_at_the_last_call)
{
	expect_cancelled("pread", 0, 1, TOTAL);
}

/* Into the caller's memory: cancelled the same way, and the memory is
 * still the caller's to write. */
Test(load_progress, cancel_into_caller_memory)
{
	char *path = file();
	struct calls c = {.cancel_at = 1};
	struct lsc_load_options o;
	opts(&o, "pread", &c);
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	unsigned char *dst = malloc(TOTAL);
	lsc_profiler *p = lsct_profiler(&cap);
	int fds = lsct_open_fds();
	cr_assert_eq(lsc_load_into(p, &o, &e, 1, dst, TOTAL, NULL), -ECANCELED);
	cr_assert_eq(c.n, 1);
	cr_assert_eq(lsct_open_fds(), fds);
	cr_assert_eq(lsct_sys_mapped(), 0);
	cr_assert_eq(lsct_count(&cap, "error"), 1);
	memset(dst, 1, TOTAL);
	free(dst);
	lsc_profiler_destroy(p);
	free(path);
}

/* ---- the rule against an injected clock ------------------------------------ */

static uint64_t clock_ns, clock_step;

static uint64_t test_clock(void)
{
	return clock_ns;
}

static int tick(uint64_t done, uint64_t total, void *user)
{
	clock_ns += clock_step;
	return record(done, total, user);
}

static unsigned calls_with(uint64_t step_ns, uint64_t bytes, struct calls *c)
{
	char *path = strdup(lsct_make_file("clock.bin", bytes, 8));
	memset(c, 0, sizeof(*c));
	struct lsc_load_options o;
	opts(&o, "pread", c);
	o.staging_count = 1; /* one read at a time: a completion is 64 KiB more */
	o.queue_depth = 1;
	o.progress = tick;
	clock_ns = 5000000000ull;
	clock_step = step_ns;
	lsc__clock = test_clock;
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	lsc__clock = NULL;
	cr_assert_eq(ret, 0, "%s", cap.buf);
	cr_assert_eq(c->done[c->n - 1], bytes);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	free(path);
	return c->n;
}

Test(load_progress, the_rule_on_both_sides_of_its_numbers)
{
	struct calls c;
	cr_assert_eq(calls_with(100000000ull, TOTAL, &c), 64, "100 ms a call: %u calls", c.n);
	for (unsigned i = 0; i < 63; i++)
		cr_assert_eq(c.done[i], 65536ull * (i + 1));
	cr_assert_eq(calls_with(100000000ull - 1, TOTAL, &c), 2, "100 ms less 1 ns: %u calls", c.n);
	cr_assert_eq(c.done[0], 65536);
	cr_assert_eq(calls_with(100000000ull, TOTAL + 64, &c), 33, "1/64 over a read: %u calls", c.n);
	for (unsigned i = 0; i < 32; i++)
		cr_assert_eq(c.done[i], 131072ull * (i + 1), "call %u at %llu", i, (unsigned long long)c.done[i]);
}
