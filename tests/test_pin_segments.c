/*
 * Description: pinning the arena in segments. mlock on 64 MiB in 8 MiB
 * segments locks it all (smaps Locked); a test pin table (the seam: the
 * segment logic is what is tested) that fails its 3rd pin rolls back the two
 * segments before it, and the chain falls back to mlock, or fails under
 * LSC_LOAD_PIN_STRICT; EAGAIN is retried and counted; a backend missing
 * from the build falls back with its reason; and a memlock limit too low
 * (in a forked child without CAP_IPC_LOCK) makes mlock fail with the
 * RLIMIT_MEMLOCK reason and the chain end at none. Options that name no
 * backend (NULL or "") are none: no fallback line, nothing locked.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/capture.h"
#include "helpers/process.h"
#include "helpers/test_env.h"
#include "loader/arena.h"
#include "loader/arena_int.h"

#define MIB (1ull << 20)
#define ARENA (64 * MIB)
#define SEG (8 * MIB)

static struct lsct_capture cap;

/* ---- a test pin table ------------------------------------------------------ */

static struct {
	unsigned pins, unpins;
	unsigned fail_at;      /* fail the Nth pin call (1-based); 0 never */
	int fail_err;
	unsigned report_retries;
	void *pinned[64];
	size_t pinned_len[64];
	void *unpinned[64];
	size_t unpinned_len[64];
} tp;

static int t_probe(char *why, size_t why_len)
{
	(void)why, (void)why_len;
	return 0;
}

static int t_pin(void *addr, size_t len, unsigned flags, unsigned *retries, char *why,
		 size_t why_len)
{
	(void)flags;
	unsigned n = ++tp.pins;
	*retries = tp.report_retries;
	if (n == tp.fail_at) {
		snprintf(why, why_len, "test: refused segment at call %u", n);
		return -tp.fail_err;
	}
	if (n <= 64) {
		tp.pinned[n - 1] = addr;
		tp.pinned_len[n - 1] = len;
	}
	return 0;
}

static int t_unpin(void *addr, size_t len)
{
	unsigned n = ++tp.unpins;
	if (n <= 64) {
		tp.unpinned[n - 1] = addr;
		tp.unpinned_len[n - 1] = len;
	}
	return 0;
}

static const struct lsc__pin_ops test_ops = {
	.name = "test",
	.caps = LSC__PIN_CAP_REGISTER | LSC__PIN_CAP_LOCKS,
	.probe = t_probe,
	.pin = t_pin,
	.unpin = t_unpin,
};

static void reset(unsigned fail_at, int err)
{
	memset(&tp, 0, sizeof tp);
	tp.fail_at = fail_at;
	tp.fail_err = err;
}

static lsc_profiler *arena_4k(struct lsc__arena *a, struct lsc_load_options *o)
{
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	lsc_load_options_init(o);
	o->thp = LSC_THP_4K;
	o->pin_segment_bytes = SEG;
	cr_assert_eq(lsc__arena_alloc(p, o, ARENA, a), 0, "%s", cap.buf);
	cap.len = 0;
	cap.buf[0] = '\0';
	return p;
}

static void skip_without_mlock(void)
{
	char why[160];
	if (!lsct_can_mlock(ARENA, why, sizeof why))
		cr_skip_test("%s", why);
}

/* An arena smaller than one segment is pinned as one segment of its own
 * size, and the note says so (not "1 segments of 1.00 GiB"). */
/* lsc__arena_pin with @ops as the pin backend, through the load's own seam. */
static int pin_with(lsc_profiler *p, const struct lsc_load_options *o,
		    const struct lsc__pin_ops *ops, struct lsc__arena *a)
{
	lsc__pin_override(ops);
	int rc = lsc__arena_pin(p, o, a);
	lsc__pin_override(NULL);
	return rc;
}

Test(pin_segments, one_segment_is_the_arena)
{
	struct lsc__arena a;
	struct lsc_load_options o;

	skip_without_mlock();
	lsc_profiler *p = arena_4k(&a, &o);
	o.pin = "mlock";
	o.pin_segment_bytes = 4 * ARENA;
	cr_assert_eq(lsc__arena_pin(p, &o, &a), 0, "%s", cap.buf);
	cr_expect_eq(a.pin_segments, 1);
	cr_expect_eq(a.pin_segment_bytes, ARENA);
	char want[48];
	snprintf(want, sizeof want, "segment_bytes=%llu", (unsigned long long)ARENA);
	cr_expect_eq(lsct_count_with(&cap, "note", want), 1, "%s", cap.buf);
	/* one segment is "1 segment", in the note as in the sentence */
	cr_expect_eq(lsct_count_with(&cap, "note", "with mlock in 1 segment of 64.0 MiB: "), 1, "%s", cap.buf);
	cr_expect_null(strstr(cap.buf, "1 segments"), "%s", cap.buf);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}

/* --pin none locks nothing: its phase line says the time and no size or
 * rate (it once said "1.00 GiB in 0.000 s (33373.38 GiB/s)"), where mlock's
 * says the bytes it locked. */
Test(pin_segments, none_has_no_pin_rate)
{
	struct lsc__arena a;
	struct lsc_load_options o;
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;

	lsc_profiler *p = arena_4k(&a, &o);
	o.pin = "none";
	cr_assert_eq(lsc__arena_pin(p, &o, &a), 0, "%s", cap.buf);
	cr_expect_eq(a.pinned_bytes, 0);
	cr_assert_eq(lsct_count(&cap, "phase"), 1, "%s", cap.buf); /* the allocate's was reset */
	cr_assert(lsct_find(&cap, "phase", 0, buf, sizeof buf, &pl), "%s", cap.buf);
	cr_expect_str_eq(lsc__parsed_get(&pl, "kind"), "pin", "%s", buf);
	cr_expect_str_eq(lsc__parsed_get(&pl, "bytes"), "0", "%s", buf);
	cr_expect_str_eq(lsc__parsed_get(&pl, "gibps"), "n/a", "%s", buf);
	cr_expect_null(strstr(buf, "GiB/s"), "no rate for what was not pinned: %s", buf);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}

Test(pin_segments, mlock_in_segments)
{
	struct lsc__arena a;
	struct lsc_load_options o;
	struct lsct_vma v;

	skip_without_mlock();
	lsc_profiler *p = arena_4k(&a, &o);
	o.pin = "mlock";
	cr_assert_eq(lsc__arena_pin(p, &o, &a), 0, "%s", cap.buf);
	cr_expect_eq(a.pin, &lsc__pin_mlock);
	cr_expect_eq(a.pin_segments, ARENA / SEG);
	cr_expect_eq(a.pin_segment_bytes, SEG);
	cr_expect_eq(a.pinned_bytes, ARENA);
	cr_expect_eq(a.pin_failures, 0);
	lsct_vma_read(a.base, ARENA, &v);
	cr_expect_eq(v.locked_bytes, ARENA, "smaps Locked %llu", (unsigned long long)v.locked_bytes);
	cr_expect_eq(lsct_count_with(&cap, "phase", "kind=pin"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "note", "segments=8"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "note", "with mlock in 8 segments of 8.0 MiB: "), 1, "%s", cap.buf);
	char want[64];
	snprintf(want, sizeof want, "name=pin bytes=%llu ", (unsigned long long)ARENA);
	cr_expect_eq(lsct_count_with(&cap, "phase", want), 1, "the phase holds the bytes locked: %s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "note", "s_per_gib="), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "fallback", NULL), 0, "%s", cap.buf);
	void *base = a.base;
	lsc__arena_release(&a);
	lsct_vma_read(base, ARENA, &v);
	cr_expect_eq(v.mappings, 0, "the arena is still mapped after release");
	lsc_profiler_destroy(p);
}

Test(pin_segments, segment_count_rounds_up)
{
	struct lsc__pin_tally t;
	char why[128];
	char buf[1];

	reset(0, 0);
	/* 64 MiB in 24 MiB segments: 24 + 24 + 16. No memory is touched by
	 * the test table, so any address will do. */
	cr_assert_eq(lsc__pin_segments(NULL, &test_ops, buf, ARENA, 24 * MIB, 0, &t, why, sizeof why), 0);
	cr_expect_eq(t.segments, 3);
	cr_expect_eq(tp.pinned_len[2], 16 * MIB);
	cr_expect_eq(t.pinned_bytes, ARENA);
}

/* Unpinning walks the same segments as pinning: each one's own address and
 * length, the short last one with its own length (a backend such as
 * cudaHostUnregister or munlock given a length past the end would act on
 * memory that is not the arena). 64 MiB in 24 MiB segments: 24, 24, 16. */
Test(pin_segments, unpin_gives_the_short_last_segment_its_own_length)
{
	/* an address range to name, never touched (the table locks nothing) */
	char *base = mmap(NULL, ARENA, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	cr_assert_neq(base, MAP_FAILED);
	reset(0, 0);
	lsc__unpin_segments(&test_ops, base, ARENA, 24 * MIB);
	cr_assert_eq(tp.unpins, 3);
	cr_expect_eq(tp.unpinned[0], (void *)base);
	cr_expect_eq(tp.unpinned_len[0], 24 * MIB);
	cr_expect_eq(tp.unpinned[1], (void *)(base + 24 * MIB));
	cr_expect_eq(tp.unpinned_len[1], 24 * MIB);
	cr_expect_eq(tp.unpinned[2], (void *)(base + 48 * MIB));
	cr_expect_eq(tp.unpinned_len[2], 16 * MIB, "last segment unpinned with %zu bytes",
		     tp.unpinned_len[2]);
	/* A segment larger than the range is the range. */
	reset(0, 0);
	lsc__unpin_segments(&test_ops, base, 5 * MIB, 8 * MIB);
	cr_assert_eq(tp.unpins, 1);
	cr_expect_eq(tp.unpinned_len[0], 5 * MIB);
	munmap(base, ARENA);
}

/* A rollback after a failed segment unpins exactly what was pinned before
 * it, and a release after a good pin exactly what was pinned: the lengths
 * each pin call was given, the short last one included. 64 MiB in 24 MiB
 * segments, the arena from arena_4k (no memory is touched by the table). */
Test(pin_segments, release_and_rollback_unpin_what_was_pinned)
{
	struct lsc__arena a;
	struct lsc_load_options o;

	lsc_profiler *p = arena_4k(&a, &o);
	o.pin_segment_bytes = 24 * MIB;
	reset(0, 0);
	cr_assert_eq(pin_with(p, &o, &test_ops, &a), 0, "%s", cap.buf);
	cr_assert_eq(tp.pins, 3);
	cr_expect_eq(tp.pinned_len[2], 16 * MIB);
	lsc__arena_release(&a);
	cr_assert_eq(tp.unpins, 3, "release unpinned %u segments", tp.unpins);
	for (unsigned i = 0; i < 3; i++) {
		cr_expect_eq(tp.unpinned[i], tp.pinned[i], "segment %u", i);
		cr_expect_eq(tp.unpinned_len[i], i < 2 ? 24 * MIB : 16 * MIB, "segment %u: %zu bytes", i,
			     tp.unpinned_len[i]);
	}
	lsc_profiler_destroy(p);
}

Test(pin_segments, rollback_then_mlock)
{
	struct lsc__arena a;
	struct lsc_load_options o;

	skip_without_mlock();
	lsc_profiler *p = arena_4k(&a, &o);
	reset(3, EIO);
	cr_assert_eq(pin_with(p, &o, &test_ops, &a), 0, "%s", cap.buf);
	cr_expect_eq(tp.pins, 3);
	cr_expect_eq(tp.unpins, 2, "rollback unpinned %u segments", tp.unpins);
	for (unsigned i = 0; i < 2; i++) {
		cr_expect_eq(tp.unpinned[i], tp.pinned[i], "segment %u unpinned at another address", i);
		cr_expect_eq(tp.unpinned_len[i], SEG);
	}
	cr_expect_eq(a.pin, &lsc__pin_mlock, "the chain goes on to mlock");
	cr_expect_eq(a.pin_failures, 1);
	cr_expect_eq(lsct_count_with(&cap, "fallback", "wanted=test took=mlock"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "fallback", "test: refused segment at call 3"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "note", "segment 3/8"), 1, "the failed segment is named: %s",
		     cap.buf);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}

Test(pin_segments, rollback_strict_fails)
{
	struct lsc__arena a;
	struct lsc_load_options o;
	struct lsct_vma v;

	lsc_profiler *p = arena_4k(&a, &o);
	o.flags |= LSC_LOAD_PIN_STRICT;
	reset(3, EIO);
	cr_expect_eq(pin_with(p, &o, &test_ops, &a), -EIO, "%s", cap.buf);
	cr_expect_eq(tp.unpins, 2);
	cr_expect_null(a.pin);
	cr_expect_eq(a.pinned_bytes, 0);
	lsct_vma_read(a.base, ARENA, &v);
	cr_expect_eq(v.locked_bytes, 0);
	cr_expect_eq(lsct_count_with(&cap, "fallback", "LSC_LOAD_PIN_STRICT"), 1, "%s", cap.buf);
	lsc__arena_release(&a); /* nothing pinned: must not unpin */
	cr_expect_eq(tp.unpins, 2);
	lsc_profiler_destroy(p);
}

Test(pin_segments, eagain_is_retried_and_counted)
{
	struct lsc__arena a;
	struct lsc_load_options o;

	lsc_profiler *p = arena_4k(&a, &o);
	reset(2, EAGAIN);
	tp.report_retries = 1; /* the backend saw one retry inside each call */
	cr_assert_eq(pin_with(p, &o, &test_ops, &a), 0, "%s", cap.buf);
	cr_expect_eq(a.pin, &test_ops);
	cr_expect_eq(a.pin_segments, 8);
	cr_expect_eq(tp.pins, 9, "8 segments and one retry");
	cr_expect_eq(tp.unpins, 0);
	cr_expect_eq(a.pin_failures, 1);
	cr_expect_eq(a.pin_retries, 9 + 1, "9 backend retries + 1 of ours, got %u", a.pin_retries);
	cr_expect_eq(lsct_count_with(&cap, "note", "segment 2/8"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "fallback", NULL), 0, "%s", cap.buf);
	lsc__arena_release(&a);
	cr_expect_eq(tp.unpins, 8, "release unpins every segment");
	lsc_profiler_destroy(p);
}

Test(pin_segments, unknown_backend_falls_back)
{
	struct lsc__arena a;
	struct lsc_load_options o;

	skip_without_mlock();
	lsc_profiler *p = arena_4k(&a, &o);
	o.pin = "nosuch";
	cr_assert_eq(lsc__arena_pin(p, &o, &a), 0, "%s", cap.buf);
	cr_expect_eq(a.pin, &lsc__pin_mlock);
	cr_expect_eq(lsct_count_with(&cap, "fallback", "not a pin backend of this build"), 1, "%s", cap.buf);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);

	p = arena_4k(&a, &o);
	o.pin = "nosuch";
	o.flags |= LSC_LOAD_PIN_STRICT;
	cr_expect_eq(lsc__arena_pin(p, &o, &a), -ENOSYS, "%s", cap.buf);
	cr_expect_null(a.pin);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}

/* In a child without CAP_IPC_LOCK and with a 1 MiB memlock limit. */
static int memlock_child(int strict)
{
	struct lsc__arena a;
	struct lsc_load_options o;
	struct lsct_capture c;
	struct rlimit rl = {1 << 20, 1 << 20};

	if (lsct_drop_ipc_lock() < 0 || setrlimit(RLIMIT_MEMLOCK, &rl) < 0)
		return 3;
	lsc_profiler *p = lsct_profiler_fresh(&c);
	lsc_load_options_init(&o);
	o.thp = LSC_THP_4K;
	o.pin = "mlock";
	o.pin_segment_bytes = SEG;
	if (strict)
		o.flags |= LSC_LOAD_PIN_STRICT;
	if (lsc__arena_alloc(p, &o, ARENA, &a) < 0)
		return 4;
	int rc = lsc__arena_pin(p, &o, &a);
	struct lsct_vma v;
	lsct_vma_read(a.base, ARENA, &v);
	int ok = v.locked_bytes == 0 && lsct_count_with(&c, "fallback", "RLIMIT_MEMLOCK 1048576") == 1 &&
		 lsct_count_with(&c, "fallback", "wanted=mlock") == 1;
	if (strict)
		ok = ok && rc == -ENOMEM && !a.pin && lsct_count_with(&c, "fallback", "LSC_LOAD_PIN_STRICT");
	else
		ok = ok && rc == 0 && a.pin == &lsc__pin_none && a.pinned_bytes == 0 &&
		     lsct_count_with(&c, "fallback", "took=none") == 1;
	if (!ok)
		fprintf(stderr, "rc=%d locked=%llu pin=%s\n%s", rc, (unsigned long long)v.locked_bytes,
			a.pin ? a.pin->name : "-", c.buf);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
	return ok ? 0 : 1;
}

static int run_child(int strict)
{
	pid_t pid = fork();
	if (pid == 0) {
		alarm(20); /* a hang fails the test, not the suite */
		_exit(memlock_child(strict));
	}
	int st = 0;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

Test(pin_segments, memlock_too_low_falls_back_to_none)
{
	int rc = run_child(0);
	if (rc == 3)
		cr_skip_test("cannot drop CAP_IPC_LOCK or lower RLIMIT_MEMLOCK here");
	cr_expect_eq(rc, 0, "see stderr");
}

Test(pin_segments, memlock_too_low_strict_fails)
{
	int rc = run_child(1);
	if (rc == 3)
		cr_skip_test("cannot drop CAP_IPC_LOCK or lower RLIMIT_MEMLOCK here");
	cr_expect_eq(rc, 0, "see stderr");
}

Test(pin_segments, no_backend_named_is_none)
{
	static const char *names[] = {NULL, ""};
	for (int k = 0; k < 2; k++) {
		struct lsc__arena a;
		struct lsc_load_options o;
		lsc_profiler *p = arena_4k(&a, &o);
		o.pin = names[k];
		cr_assert_eq(lsc__arena_pin(p, &o, &a), 0, "%s", cap.buf);
		cr_expect_eq(lsct_count(&cap, "fallback"), 0, "pin %s: %s", k ? "\"\"" : "NULL", cap.buf);
		cr_assert_not_null(a.pin);
		cr_expect_str_eq(a.pin->name, "none");
		lsc__arena_release(&a);
		lsc_profiler_destroy(p);
	}
}
