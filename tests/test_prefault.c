/*
 * Description: the parallel prefault really populates the range (mincore
 * and VmRSS), with the threads asked for, falls back to touching pages when
 * the kernel refuses MADV_POPULATE_WRITE (EINVAL, through the syscall shim),
 * returns the error for any other refusal, and binds to a NUMA node or says
 * in one line why it did not.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <numa.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers/capture.h"
#include "helpers/process.h"
#include "helpers/sys_shim.h"
#include "loader/arena_int.h"
#include "sys/sys.h"
#include "profiler/profiler_impl.h"

#define MIB (1ull << 20)
/* one and a half of the prefault's 64 MiB steps: a second, partial step
 * after the first, on each path (a refused madvise touches the rest) */
#define SIZE (96 * MIB)
#define STEP (64 * MIB) /* src/loader/prefault.c's step */

static struct lsct_capture cap;

static void *fresh(void)
{
	void *m = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(m, MAP_FAILED);
	/* 4 KiB pages, so that residency is counted page by page. */
	madvise(m, SIZE, MADV_NOHUGEPAGE);
	return m;
}

static size_t resident_pages(void *m)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = SIZE / page, in = 0;
	unsigned char *v = malloc(n);
	cr_assert_eq(mincore(m, SIZE, v), 0);
	for (size_t i = 0; i < n; i++)
		in += v[i] & 1;
	free(v);
	return in;
}

static size_t all_pages(void)
{
	return SIZE / (size_t)sysconf(_SC_PAGESIZE);
}

Test(prefault, populates_everything)
{
	struct lsc__prefault_result r;
	void *m = fresh();
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	cr_assert_eq(resident_pages(m), 0);
	int64_t rss0 = lsct_rss_bytes();
	cr_assert_eq(lsc__prefault(p, NULL, 0, m, SIZE, 3, -1, &r), 0, "%s", cap.buf);
	int64_t rss1 = lsct_rss_bytes();
	cr_expect_eq(resident_pages(m), all_pages());
	cr_expect_geq(rss1 - rss0, (int64_t)SIZE - (int64_t)MIB, "VmRSS grew by %lld only",
		      (long long)(rss1 - rss0));
	cr_expect_eq(r.threads, 3);
	cr_expect_not(r.touched);
	cr_expect_eq(lsct_count_with(&cap, "fallback", NULL), 0, "%s", cap.buf);
	munmap(m, SIZE);
	lsc_profiler_destroy(p);
}

Test(prefault, default_threads)
{
	struct lsc__prefault_result r;
	void *m = fresh();
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned want = cpus > 8 ? 8 : (unsigned)cpus;

	cr_assert_eq(lsc__prefault(NULL, NULL, 0, m, SIZE, 0, -1, &r), 0);
	cr_expect_eq(r.threads, want);
	cr_expect_eq(resident_pages(m), all_pages());
	munmap(m, SIZE);
}

Test(prefault, more_threads_than_slices)
{
	struct lsc__prefault_result r;
	void *m = fresh();
	/* 3 MiB: two 2 MiB slices at most, whatever is asked. */
	cr_assert_eq(lsc__prefault(NULL, NULL, 0, m, 3 * MIB, 8, -1, &r), 0);
	cr_expect_eq(r.threads, 2);
	munmap(m, SIZE);
}

Test(prefault, einval_falls_back_to_touching)
{
	struct lsc__prefault_result r;
	void *m = fresh();
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	lsct_sys_fail(LSCT_SYS_MADVISE, 1, EINVAL);
	int rc = lsc__prefault(p, NULL, 0, m, SIZE, 1, -1, &r);
	lsct_sys_restore();
	cr_assert_eq(rc, 0, "%s", cap.buf);
	cr_expect(r.touched);
	cr_expect_eq(resident_pages(m), all_pages());
	cr_expect_eq(lsct_count_with(&cap, "fallback", "what=prefault"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "fallback", "MADV_POPULATE_WRITE"), 1, "%s", cap.buf);
	munmap(m, SIZE);
	lsc_profiler_destroy(p);
}

Test(prefault, enomem_is_an_error)
{
	struct lsc__prefault_result r;
	void *m = fresh();

	lsct_sys_fail(LSCT_SYS_MADVISE, 1, ENOMEM);
	int rc = lsc__prefault(NULL, NULL, 0, m, SIZE, 1, -1, &r);
	lsct_sys_restore();
	cr_expect_eq(rc, -ENOMEM);
	munmap(m, SIZE);
}

Test(prefault, eintr_is_retried)
{
	struct lsc__prefault_result r;
	void *m = fresh();

	lsct_sys_fail(LSCT_SYS_MADVISE, 1, EINTR);
	int rc = lsc__prefault(NULL, NULL, 0, m, SIZE, 1, -1, &r);
	unsigned calls = lsct_sys_calls(LSCT_SYS_MADVISE);
	lsct_sys_restore();
	cr_expect_eq(rc, 0);
	/* the first step's call, its retry, the second step's */
	cr_expect_eq(calls, 3);
	cr_expect_eq(resident_pages(m), all_pages());
	munmap(m, SIZE);
}

Test(prefault, numa_node_binding)
{
	struct lsc__prefault_result r;
	void *m = fresh();
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	if (numa_available() < 0)
		cr_skip_test("libnuma sees no NUMA here (numa_available() < 0)");
	cr_assert_eq(lsc__prefault(p, NULL, 0, m, SIZE, 2, 0, &r), 0, "%s", cap.buf);
	cr_expect(r.numa_bound, "node 0 not bound: %s", r.numa_why);
	cr_expect_eq(resident_pages(m), all_pages());
	cr_expect_eq(lsct_count_with(&cap, "fallback", NULL), 0, "%s", cap.buf);
	munmap(m, SIZE);
	lsc_profiler_destroy(p);
}

Test(prefault, missing_numa_node_is_one_line)
{
	struct lsc__prefault_result r;
	void *m = fresh();
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	cr_assert_eq(lsc__prefault(p, NULL, 0, m, SIZE, 2, 4000, &r), 0, "%s", cap.buf);
	cr_expect_not(r.numa_bound);
	cr_expect_eq(resident_pages(m), all_pages());
	cr_expect_eq(lsct_count_with(&cap, "fallback", "what=numa"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "fallback", "node 4000"), 1, "%s", cap.buf);
	munmap(m, SIZE);
	lsc_profiler_destroy(p);
}

/* Progress for the watchdog: before each 64 MiB step the span has been
 * credited with the steps done so far. Read from the span's slot (the
 * profiler's internals) inside the populate call itself, so nothing here
 * depends on timing. */
static lsc_profiler *prog_p;
static lsc_span prog_s;
static uint64_t prog_seen[16];
static unsigned prog_calls;

static int prog_madvise(void *addr, size_t len, int advice)
{
	if (advice == 23 && prog_calls < 16) {
		struct lsc__span *sp = &prog_p->spans[prog_s & ((1u << LSC__SLOT_BITS) - 1)];
		prog_seen[prog_calls++] = atomic_load(&sp->done);
	}
	return lsc__sys_default.madvise(addr, len, advice);
}

Test(prefault, credits_progress_to_its_spans)
{
	struct lsc__prefault_result r;
	struct lsc__sys t = lsc__sys_default;
	size_t big = 4 * STEP; /* 256 MiB: four steps of 64 MiB */
	void *m = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert_neq(m, MAP_FAILED);
	prog_p = lsct_profiler_fresh(&cap);
	cr_assert_eq(lsc_span_begin(prog_p, LSC_PHASE_CUSTOM, "t", big, &prog_s), 0);
	t.madvise = prog_madvise;
	lsc__sys_set(&t);
	int rc = lsc__prefault(prog_p, &prog_s, 1, m, big, 1, -1, &r);
	lsc__sys_set(NULL);
	struct lsc__span *sp = &prog_p->spans[prog_s & ((1u << LSC__SLOT_BITS) - 1)];
	uint64_t end = atomic_load(&sp->done);
	lsc_span_end(prog_p, prog_s, NULL);
	cr_assert_eq(rc, 0);
	cr_assert_eq(prog_calls, 4);
	for (unsigned i = 0; i < 4; i++)
		cr_expect_eq(prog_seen[i], i * STEP, "step %u began with %llu bytes credited", i,
			     (unsigned long long)prog_seen[i]);
	cr_expect_eq(end, big);
	munmap(m, big);
	lsc_profiler_destroy(prog_p);
}
