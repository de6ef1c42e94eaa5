/*
 * Description: the prefault's refusals that test_prefault.c does not reach,
 * each found by a mutation the suite let through (scripts/mutate.sh,
 * docs/testing.md): EAGAIN from MADV_POPULATE_WRITE is retried like EINTR,
 * and what one slice of a parallel prefault met is what the whole prefault
 * reports, whichever thread ran that slice. The syscall table is the seam
 * (src/sys/sys.h): its madvise refuses by address, so the slice that is
 * refused is the same one on every run, whatever the threads' order.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers/capture.h"
#include "loader/arena_int.h"
#include "sys/sys.h"

#define MIB (1ull << 20)
#define SIZE (64 * MIB) /* two threads: slices [0, 32 MiB) and [32 MiB, 64 MiB) */

static struct lsct_capture cap;
static char *refused_at;      /* madvise of a range starting here fails ... */
static int refused_err;       /* ... with this errno */
static unsigned refusals_left; /* ... this many times */
static unsigned madvise_calls;

static int madvise_by_address(void *addr, size_t len, int advice)
{
	__atomic_add_fetch(&madvise_calls, 1, __ATOMIC_RELAXED);
	if ((char *)addr == refused_at && __atomic_load_n(&refusals_left, __ATOMIC_RELAXED)) {
		__atomic_sub_fetch(&refusals_left, 1, __ATOMIC_RELAXED);
		errno = refused_err;
		return -1;
	}
	return lsc__sys_default.madvise(addr, len, advice);
}

static struct lsc__sys table;

static void *fresh(void)
{
	void *m = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(m, MAP_FAILED);
	madvise(m, SIZE, MADV_NOHUGEPAGE);
	return m;
}

static void refuse(char *at, int err, unsigned times)
{
	refused_at = at;
	refused_err = err;
	refusals_left = times;
	madvise_calls = 0;
	table = lsc__sys_default;
	table.madvise = madvise_by_address;
	lsc__sys_set(&table);
}

static size_t resident(void *m, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), in = 0;
	unsigned char v[(64 * MIB) / 4096];
	cr_assert_leq(len / page, sizeof v);
	cr_assert_eq(mincore(m, len, v), 0);
	for (size_t i = 0; i < len / page; i++)
		in += v[i] & 1;
	return in;
}

/* EAGAIN, like EINTR: the walk was interrupted, ask again (one call more). */
Test(prefault_slices, eagain_is_retried)
{
	struct lsc__prefault_result r;
	char *m = fresh();
	refuse(m, EAGAIN, 1);
	int rc = lsc__prefault(NULL, NULL, 0, m, SIZE, 1, -1, &r);
	lsc__sys_set(NULL);
	cr_expect_eq(rc, 0);
	cr_expect_eq(madvise_calls, 2); /* one 64 MiB step, asked twice */
	cr_expect_eq(r.touched, 0);
	cr_expect_eq(resident(m, SIZE), SIZE / (size_t)sysconf(_SC_PAGESIZE));
	munmap(m, SIZE);
}

/* The second slice (a helper thread's, or the caller's when no thread
 * started) runs out of memory: the prefault fails with its error. */
Test(prefault_slices, a_helper_slice_error_is_the_result)
{
	struct lsc__prefault_result r;
	char *m = fresh();
	refuse(m + 32 * MIB, ENOMEM, 1);
	int rc = lsc__prefault(NULL, NULL, 0, m, SIZE, 2, -1, &r);
	lsc__sys_set(NULL);
	cr_expect_eq(rc, -ENOMEM);
	munmap(m, SIZE);
}

/* Only the first slice is refused MADV_POPULATE_WRITE: it touches its pages,
 * and the result says pages were touched, with one fallback line. */
Test(prefault_slices, one_touched_slice_marks_the_result)
{
	struct lsc__prefault_result r;
	char *m = fresh();
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	refuse(m, EINVAL, 1);
	int rc = lsc__prefault(p, NULL, 0, m, SIZE, 2, -1, &r);
	lsc__sys_set(NULL);
	cr_expect_eq(rc, 0, "%s", cap.buf);
	cr_expect_eq(r.touched, 1);
	cr_expect_eq(lsct_count_with(&cap, "fallback", "what=prefault"), 1, "%s", cap.buf);
	cr_expect_eq(resident(m, SIZE), SIZE / (size_t)sysconf(_SC_PAGESIZE));
	lsc_profiler_destroy(p);
	munmap(m, SIZE);
}

/* How the range is cut: slices of ceil(units / n) 2 MiB units each, so
 * 8 MiB (four units) over 3 threads is two slices of 4 MiB, two threads,
 * not a third with nothing to do; 10 MiB (five units) over 4 is 4 + 4 + 2
 * MiB, three. Worked out here from the size, for every size of 1 to 8
 * units and 1 to 8 threads. */
Test(prefault_slices, as_many_threads_as_slices_with_bytes)
{
	const size_t unit = 2 * MIB;
	char *m = fresh();
	for (size_t units = 1; units <= 8; units++)
		for (unsigned n = 1; n <= 8; n++) {
			struct lsc__prefault_result r;
			unsigned k = n > units ? (unsigned)units : n;
			size_t per = (units + k - 1) / k;
			unsigned want = (unsigned)((units + per - 1) / per);
			madvise(m, SIZE, MADV_DONTNEED);
			cr_assert_eq(lsc__prefault(NULL, NULL, 0, m, units * unit, n, -1, &r), 0);
			cr_expect_eq(r.threads, want, "%zu MiB over %u threads: %u threads ran, want %u",
				     units * 2, n, r.threads, want);
			cr_expect_eq(resident(m, units * unit), units * unit / (size_t)sysconf(_SC_PAGESIZE));
		}
	munmap(m, SIZE);
}
