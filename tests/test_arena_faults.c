/*
 * Description: every syscall of the arena failing, one at a time, through
 * the syscall shim (src/sys/sys.h): mmap, munmap, madvise and prctl at
 * the Nth call, mlock in the pin chain, and an arena larger than memory.
 * Each failure gives one line that names the cause, returns the error, and
 * leaves nothing behind: no mapping of the arena's pieces in
 * /proc/self/maps, nothing locked, the process's THP switch as it was.
 * And the release unmaps once: a mapping made in the arena's place right
 * after it stays.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "helpers/capture.h"
#include "helpers/process.h"
#include "helpers/sys_shim.h"
#include "loader/arena.h"
#include "sys/sys.h"

#define MIB (1ull << 20)
#define ARENA (64 * MIB)
#define PIECE (16 * MIB)

static struct lsct_capture cap;

static void opts(struct lsc_load_options *o, enum lsc_thp_policy pol)
{
	lsc_load_options_init(o);
	o->thp = pol;
	o->chunk_bytes = PIECE;
	o->prefault_threads = 1; /* one thread: the shim's call order is exact */
}

/* Count the calls of @op a good allocation makes. */
static unsigned calls_of(enum lsct_sys_op op, enum lsc_thp_policy pol)
{
	struct lsc_load_options o;
	struct lsc__arena a;

	opts(&o, pol);
	lsct_sys_fail(op, 0, 0);
	cr_assert_eq(lsc__arena_alloc(NULL, &o, ARENA, &a), 0);
	unsigned n = lsct_sys_calls(op);
	lsct_sys_restore();
	lsc__arena_release(&a);
	return n;
}

/* Fail the Nth call of @op for every N a good allocation reaches. */
static void fail_each(enum lsct_sys_op op, const char *name, enum lsc_thp_policy pol, int err,
		      unsigned expect_calls)
{
	unsigned n = calls_of(op, pol);
	if (expect_calls)
		cr_assert_eq(n, expect_calls, "%s: %u calls in a good allocation", name, n);
	cr_assert_gt(n, 0, "%s is never called", name);
	int thp_before = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
	for (unsigned nth = 1; nth <= n; nth++) {
		struct lsc_load_options o;
		struct lsc__arena a;
		lsc_profiler *p = lsct_profiler_fresh(&cap);
		opts(&o, pol);
		lsct_sys_fail(op, nth, err);
		int rc = lsc__arena_alloc(p, &o, ARENA, &a);
		lsct_sys_restore();
		cr_expect_eq(rc, -err, "%s call %u/%u failing: rc %d\n%s", name, nth, n, rc, cap.buf);
		cr_expect_null(a.base);
		cr_expect_eq(lsct_count_with(&cap, "arena", "err="), 1,
			     "%s call %u/%u: one failure line\n%s", name, nth, n, cap.buf);
		cr_expect_eq(lsct_count_with(&cap, "fallback", NULL), 0, "%s", cap.buf);
		cr_expect_eq(lsct_sys_leaked(), 0, "%s call %u/%u: a mapping leaked", name, nth, n);
		cr_expect_eq(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0), thp_before,
			     "%s call %u/%u: the THP switch was not restored", name, nth, n);
		lsc__arena_release(&a);
		lsc_profiler_destroy(p);
	}
}

Test(arena_faults, mmap_nth)
{
	/* the reservation, then four pieces */
	fail_each(LSCT_SYS_MMAP, "mmap", LSC_THP_4K, ENOMEM, 5);
}

/* A piece the kernel mapped at another address than the one asked for
 * (MAP_FIXED never does so, but the arena must not use, nor leave behind,
 * memory it was not given): each piece in turn, and the line names that
 * piece, counted from 1. */
Test(arena_faults, a_piece_mapped_elsewhere)
{
	unsigned pieces = (unsigned)(ARENA / PIECE);
	for (unsigned k = 1; k <= pieces; k++) {
		struct lsc_load_options o;
		struct lsc__arena a;
		lsc_profiler *p = lsct_profiler_fresh(&cap);
		opts(&o, LSC_THP_4K);
		/* call 1 is the reservation, call 1 + k the k-th piece */
		struct lsct_sys_plan plan = {.op = LSCT_SYS_MMAP, .nth = 1 + k, .how = LSCT_SYS_ELSEWHERE};
		lsct_sys_install(&plan);
		int rc = lsc__arena_alloc(p, &o, ARENA, &a);
		lsct_sys_restore();
		char want[64];
		snprintf(want, sizeof want, "mmap of piece %u/%u landed elsewhere", k, pieces);
		cr_expect_eq(rc, -EFAULT, "piece %u: rc %d\n%s", k, rc, cap.buf);
		cr_expect_null(a.base);
		cr_expect_eq(lsct_count_with(&cap, "arena", want), 1, "piece %u: no line with \"%s\"\n%s", k,
			     want, cap.buf);
		cr_expect_eq(lsct_sys_leaked(), 0, "piece %u: a mapping leaked", k);
		cr_expect_eq(lsct_sys_mapped(), 0, "piece %u: %lld bytes left mapped", k, lsct_sys_mapped());
		lsc__arena_release(&a);
		lsc_profiler_destroy(p);
	}
}

Test(arena_faults, munmap_nth_while_trimming)
{
	/* thp over-reserves and trims the head and/or tail: each trim failing */
	fail_each(LSCT_SYS_MUNMAP, "munmap", LSC_THP_THP, EINVAL, 0);
}

Test(arena_faults, madvise_nth)
{
	/* four pieces advised, then one populate */
	fail_each(LSCT_SYS_MADVISE, "madvise", LSC_THP_THP, ENOMEM, 5);
}

Test(arena_faults, prctl_get_and_set)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	int before = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);

	cr_assert_eq(calls_of(LSCT_SYS_PRCTL, LSC_THP_PROCESS_OFF), 3, "get, set, restore");
	for (unsigned nth = 1; nth <= 2; nth++) {
		lsc_profiler *p = lsct_profiler_fresh(&cap);
		opts(&o, LSC_THP_PROCESS_OFF);
		lsct_sys_fail(LSCT_SYS_PRCTL, nth, EPERM);
		int rc = lsc__arena_alloc(p, &o, ARENA, &a);
		lsct_sys_restore();
		cr_expect_eq(rc, -EPERM, "prctl call %u: rc %d\n%s", nth, rc, cap.buf);
		cr_expect_eq(lsct_count_with(&cap, "arena", "PR_SET_THP_DISABLE"), 1, "%s", cap.buf);
		cr_expect_eq(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0), before);
		cr_expect_eq(lsct_sys_leaked(), 0, "prctl call %u: a mapping leaked", nth);
		lsc_profiler_destroy(p);
	}
}

Test(arena_faults, prctl_restore_is_retried)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	int before = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	opts(&o, LSC_THP_PROCESS_OFF);
	lsct_sys_fail(LSCT_SYS_PRCTL, 3, EINTR);
	int rc = lsc__arena_alloc(p, &o, ARENA, &a);
	unsigned calls = lsct_sys_calls(LSCT_SYS_PRCTL);
	lsct_sys_restore();
	cr_expect_eq(rc, 0, "%s", cap.buf);
	cr_expect_eq(calls, 4, "the restore was not tried again");
	cr_expect_eq(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0), before);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}

Test(arena_faults, prefault_enomem_restores_prctl)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	int before = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	opts(&o, LSC_THP_PROCESS_OFF);
	lsct_sys_fail(LSCT_SYS_MADVISE, 1, ENOMEM); /* process-off advises nothing: 1 = the populate */
	int rc = lsc__arena_alloc(p, &o, ARENA, &a);
	lsct_sys_restore();
	cr_expect_eq(rc, -ENOMEM, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "arena", "prefault of 64.0 MiB: ENOMEM"), 1, "%s", cap.buf);
	cr_expect_eq(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0), before);
	cr_expect_eq(lsct_sys_leaked(), 0);
	lsc_profiler_destroy(p);
}

Test(arena_faults, advice_einval_is_a_fallback)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	opts(&o, LSC_THP_THP);
	lsct_sys_fail(LSCT_SYS_MADVISE, 1, EINVAL);
	int rc = lsc__arena_alloc(p, &o, ARENA, &a);
	lsct_sys_restore();
	cr_expect_eq(rc, 0, "%s", cap.buf);
	cr_expect_eq(a.applied, LSC_THP_4K);
	cr_expect_eq(lsct_count_with(&cap, "fallback", "MADV_HUGEPAGE"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "fallback", "took=4k"), 1, "%s", cap.buf);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}

Test(arena_faults, mlock_fails_strict)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	struct lsct_vma v;
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	opts(&o, LSC_THP_4K);
	o.pin = "mlock";
	o.pin_segment_bytes = 8 * MIB;
	o.flags |= LSC_LOAD_PIN_STRICT;
	cr_assert_eq(lsc__arena_alloc(p, &o, ARENA, &a), 0);
	lsct_sys_fail(LSCT_SYS_MLOCK, 4, EAGAIN); /* retried: the 5th call is fine */
	int rc = lsc__arena_pin(p, &o, &a);
	lsct_sys_restore();
	if (rc == -EPERM || rc == -ENOMEM)
		cr_skip_test("mlock is not allowed here (%d): %s", rc, cap.buf);
	cr_expect_eq(rc, 0, "%s", cap.buf);
	cr_expect_eq(a.pin_retries, 1);
	lsc__arena_release(&a);

	cr_assert_eq(lsc__arena_alloc(p, &o, ARENA, &a), 0);
	lsct_sys_fail(LSCT_SYS_MLOCK, 4, EFAULT);
	rc = lsc__arena_pin(p, &o, &a);
	lsct_sys_restore();
	cr_expect_eq(rc, -EFAULT, "%s", cap.buf);
	lsct_vma_read(a.base, ARENA, &v);
	cr_expect_eq(v.locked_bytes, 0, "rollback left %llu bytes locked",
		     (unsigned long long)v.locked_bytes);
	cr_expect_eq(lsct_count_with(&cap, "fallback", "wanted=mlock"), 1, "%s", cap.buf);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}

Test(arena_faults, larger_than_memory)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	struct lsc_system s;
	FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
	int mode = -1;

	if (f) {
		if (fscanf(f, "%d", &mode) != 1)
			mode = -1;
		fclose(f);
	}
	if (mode != 0 && mode != 2)
		cr_skip_test("vm.overcommit_memory=%d would let a huge mapping through to the OOM killer",
			     mode);
	lsc_system_read(NULL, NULL, &s);
	if (s.mem_total == LSC_NA || s.mem_total <= 0)
		cr_skip_test("MemTotal unreadable");
	uint64_t huge = (uint64_t)s.mem_total * 4 +
			(s.swap_total > 0 ? (uint64_t)s.swap_total * 4 : 0);
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	lsc_load_options_init(&o);
	o.thp = LSC_THP_4K;
	lsct_sys_fail(LSCT_SYS_MMAP, 0, 0); /* records the mappings */
	int rc = lsc__arena_alloc(p, &o, huge, &a);
	lsct_sys_restore();
	cr_expect_eq(rc, -ENOMEM, "rc %d\n%s", rc, cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "arena", "err=ENOMEM"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "arena", "MemAvailable"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_sys_leaked(), 0);
	lsc_profiler_destroy(p);
}

/* Sizes within a page of 2^64 would wrap to 0 when rounded up (a division
 * by zero, or an arena of nothing): refused with one line, nothing mapped. */
Test(arena_faults, sizes_near_2_to_the_64_are_refused)
{
	static const struct {
		uint64_t bytes, chunk;
		enum lsc_thp_policy pol;
	} cases[] = {{ARENA, UINT64_MAX, LSC_THP_THP},
		     {ARENA, UINT64_MAX - 100, LSC_THP_THP},
		     {UINT64_MAX - 100, 0, LSC_THP_THP},
		     /* 4 KiB units, but the reservation is 2 MiB-aligned */
		     {UINT64_MAX - MIB, 0, LSC_THP_4K}};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lsc_load_options o;
		struct lsc__arena a;
		lsc_profiler *p = lsct_profiler_fresh(&cap);
		opts(&o, cases[i].pol);
		o.chunk_bytes = cases[i].chunk;
		lsct_sys_fail(LSCT_SYS_MMAP, 0, 0); /* records the mappings */
		int rc = lsc__arena_alloc(p, &o, cases[i].bytes, &a);
		lsct_sys_restore();
		cr_expect_eq(rc, -EINVAL, "case %u: rc %d\n%s", i, rc, cap.buf);
		cr_expect_eq(lsct_count_with(&cap, "arena", "2^64"), 1, "case %u:\n%s", i, cap.buf);
		cr_expect_eq(lsct_sys_leaked(), 0);
		lsc_profiler_destroy(p);
	}
}

/* The release unmaps the arena once: a second munmap of the same range
 * (the fallback for a failed first) would take whatever another thread
 * mapped there in between. The test's munmap unmaps for real, then maps a
 * page of its own at the arena's base, as another allocation could; after
 * the release that page is still there, with its byte. */
static void *sentinel;

static int munmap_then_reuse(void *addr, size_t len)
{
	int rc = lsc__sys_default.munmap(addr, len);
	if (rc == 0 && !sentinel) {
		void *m = mmap(addr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			       -1, 0);
		if (m == addr) {
			sentinel = m;
			*(volatile char *)m = 42;
		} else if (m != MAP_FAILED) {
			munmap(m, 4096);
		}
	}
	return rc;
}

Test(arena_faults, release_unmaps_once)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	opts(&o, LSC_THP_4K);
	cr_assert_eq(lsc__arena_alloc(NULL, &o, ARENA, &a), 0);
	struct lsc__sys t = lsc__sys_default;
	t.munmap = munmap_then_reuse;
	sentinel = NULL;
	lsc__sys_set(&t);
	lsc__arena_release(&a);
	lsc__sys_set(NULL);
	cr_assert_not_null(sentinel, "the arena's base could not be mapped again");
	unsigned char v;
	cr_expect_eq(mincore(sentinel, 4096, &v), 0, "the page mapped after the release was unmapped: %s",
		     strerror(errno));
	cr_expect_eq(*(volatile char *)sentinel, 42);
	munmap(sentinel, 4096);
}

/* A mapping the kernel refuses (ENOMEM through the syscall seam, under the
 * memory guard's bound) is one arena line that says what failed and how
 * much memory was available then; nothing is left mapped. */
Test(arena_faults, a_refused_mapping_says_memavailable)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	opts(&o, LSC_THP_4K);
	lsct_sys_fail(LSCT_SYS_MMAP, 1, ENOMEM);
	int rc = lsc__arena_alloc(p, &o, ARENA, &a);
	lsct_sys_restore();
	cr_expect_eq(rc, -ENOMEM, "rc %d\n%s", rc, cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "arena", "as 4k failed: "), 1, "%s", cap.buf);
	struct lsc_system s;
	lsc_system_read(NULL, NULL, &s);
	if (s.mem_available != LSC_NA)
		cr_expect_eq(lsct_count_with(&cap, "arena", " (MemAvailable "), 1, "%s", cap.buf);
	cr_expect_eq(lsct_sys_leaked(), 0);
	lsc_profiler_destroy(p);
}
