/*
 * Description: two limits of pinning in segments (src/loader/pin_segments.c)
 * that test_pin_segments.c does not pin, each found by a mutation the suite
 * let through (scripts/mutate.sh, docs/testing.md): a segment that keeps
 * answering EAGAIN is tried three times in all, then the pin fails with
 * -EAGAIN and nothing stays pinned; and a segment size that is not a whole
 * number of pages is rounded up to one, never down. Through a pin table of
 * the test's own, which records every call.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helpers/capture.h"
#include "loader/arena.h"
#include "loader/arena_int.h"

#define MIB (1ull << 20)
#define ARENA (64 * MIB)

static struct lsct_capture cap;

static struct {
	unsigned pins, unpins;
	int always_err; /* every pin call fails with this (0: none fails) */
	size_t first_len;
} tp;

static int t_pin(void *addr, size_t len, unsigned flags, unsigned *retries, char *why,
		 size_t why_len)
{
	(void)addr, (void)flags;
	*retries = 0;
	if (++tp.pins == 1)
		tp.first_len = len;
	if (tp.always_err) {
		snprintf(why, why_len, "test: refused");
		return -tp.always_err;
	}
	return 0;
}

static int t_unpin(void *addr, size_t len)
{
	(void)addr, (void)len;
	tp.unpins++;
	return 0;
}

static const struct lsc__pin_ops test_ops = {
	.name = "test",
	.caps = LSC__PIN_CAP_REGISTER | LSC__PIN_CAP_LOCKS,
	.pin = t_pin,
	.unpin = t_unpin,
};

/* 1 (first try) + 2 retries; the tally counts every refusal. */
Test(pin_tries, eagain_gets_three_tries_then_fails)
{
	static char buf[4 * 4096];
	struct lsc__pin_tally t;
	char why[128];
	memset(&tp, 0, sizeof tp);
	tp.always_err = EAGAIN;
	int rc = lsc__pin_segments(NULL, &test_ops, buf, sizeof buf, 4096, 0, &t, why, sizeof why);
	cr_expect_eq(rc, -EAGAIN);
	cr_expect_eq(tp.pins, 3, "pin called %u times", tp.pins);
	cr_expect_eq(t.failures, 3);
	cr_expect_eq(t.segments, 0);
	cr_expect_eq(t.pinned_bytes, 0);
	cr_expect_eq(tp.unpins, 0, "nothing before the first segment to roll back");
}

/* 8 MiB + 1 byte is rounded up to 8 MiB + one page: 8 segments, the first
 * of 8 MiB + 4 KiB (on 4 KiB pages), the last what remains. */
Test(pin_tries, segment_size_rounds_up_to_a_page)
{
	struct lsc__arena a;
	struct lsc_load_options o;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	lsc_load_options_init(&o);
	o.thp = LSC_THP_4K;
	o.pin_segment_bytes = 8 * MIB + 1;
	cr_assert_eq(lsc__arena_alloc(p, &o, ARENA, &a), 0, "%s", cap.buf);
	memset(&tp, 0, sizeof tp);
	lsc__pin_override(&test_ops);
	int rc = lsc__arena_pin(p, &o, &a);
	lsc__pin_override(NULL);
	cr_assert_eq(rc, 0, "%s", cap.buf);
	cr_expect_eq(tp.first_len, 8 * MIB + page, "first segment %zu bytes", tp.first_len);
	cr_expect_eq(a.pin_segment_bytes, 8 * MIB + page);
	cr_expect_eq(a.pin_segments, 8);
	cr_expect_eq(tp.pins, 8);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}
