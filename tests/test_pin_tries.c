/*
 * Description: two limits of pinning in segments (src/loader/pin_segments.c)
 * that test_pin_segments.c does not pin, each found by a mutation the suite
 * let through (scripts/mutate.sh, docs/testing.md): a segment that keeps
 * answering EAGAIN is tried three times in all, then the pin fails with
 * -EAGAIN and nothing stays pinned; and a segment size that is not a whole
 * number of pages is rounded up to one, never down; a table without pin and
 * unpin, or one that cannot pin memory it did not allocate, is never called
 * (a fallback to mlock naming it and why), an arena pinned already is
 * -EALREADY and one without memory -EINVAL. Through a pin table of the
 * test's own, which records every call.
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

/* A pin table the loader cannot use is never called: one without pin and
 * unpin, or one that only pins what it allocated itself (no
 * LSC__PIN_CAP_REGISTER), falls back to mlock with one line naming the
 * table and why; the arena is pinned by mlock (or left pageable, said,
 * where RLIMIT_MEMLOCK is too small for it), never by the table. */
static void unusable(const struct lsc__pin_ops *ops, const char *reason)
{
	struct lsc__arena a;
	struct lsc_load_options o;
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	lsc_load_options_init(&o);
	o.thp = LSC_THP_4K;
	cr_assert_eq(lsc__arena_alloc(p, &o, 4 * MIB, &a), 0, "%s", cap.buf);
	memset(&tp, 0, sizeof tp);
	lsc__pin_override(ops);
	int rc = lsc__arena_pin(p, &o, &a);
	lsc__pin_override(NULL);
	cr_assert_eq(rc, 0, "%s", cap.buf);
	cr_assert_eq(tp.pins, 0, "the unusable table was called");
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find_fallback(&cap, "pin", buf, sizeof(buf), &pl), "no pin fallback line: %s", cap.buf);
	cr_assert_str_eq(lsc__parsed_get(&pl, "wanted"), "test");
	cr_assert_str_eq(lsc__parsed_get(&pl, "took"), "mlock");
	cr_assert_str_eq(lsc__parsed_get(&pl, "reason"), reason);
	cr_assert_neq(a.pin, ops, "the arena names the unusable table as its pin");
	/* pinning it again is refused: it is pinned (by mlock or none) */
	cr_assert_eq(lsc__arena_pin(p, &o, &a), -EALREADY);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}

Test(pin_tries, a_table_without_pin_and_unpin_is_unusable)
{
	static const struct lsc__pin_ops no_unpin = {
		.name = "test", .caps = LSC__PIN_CAP_REGISTER | LSC__PIN_CAP_LOCKS, .pin = t_pin};
	unusable(&no_unpin, "test: table without pin and unpin: unusable");
}

Test(pin_tries, a_table_that_cannot_register_memory_is_unusable)
{
	static const struct lsc__pin_ops alloc_only = {
		.name = "test", .caps = LSC__PIN_CAP_LOCKS, .pin = t_pin, .unpin = t_unpin};
	unusable(&alloc_only, "test: cannot pin memory it did not allocate");
}

/* An arena with no memory is refused before anything is tried. */
Test(pin_tries, an_arena_with_no_memory_is_refused)
{
	struct lsc__arena a;
	memset(&a, 0, sizeof a);
	memset(&tp, 0, sizeof tp);
	lsc__pin_override(&test_ops);
	int rc = lsc__arena_pin(NULL, NULL, &a);
	lsc__pin_override(NULL);
	cr_assert_eq(rc, -EINVAL);
	cr_assert_eq(tp.pins, 0);
}
