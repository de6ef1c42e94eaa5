/*
 * Parallel prefault: fault the whole arena writable before anything reads
 * into it or pins it.
 *
 * Faulting up front, in several threads, is what the fast loaders do
 * (ik_llama.cpp #1988: fault yourself, then register, 2x faster than
 * cudaMallocHost), and it keeps the faults out of the read and pin phases,
 * where a fault stall would be misread as slow I/O or a slow driver (seed
 * 001's healthy "loaded" rate over a 432 s start). MADV_POPULATE_WRITE
 * (Linux 5.14) faults a range in one call; older kernels answer EINVAL and
 * the pages are touched instead, one write per page. Slices start on 2 MiB
 * boundaries so that no huge page is shared between two threads.
 *
 * Each thread faults its slice in steps of 64 MiB and reports the bytes done
 * to the spans it was given, so that the watchdog's "still in" lines show
 * a crawling prefault's progress and live rate while it crawls (seed 001:
 * the 432 s were spent in faults like these).
 *
 * With a NUMA node, the range gets an MPOL_BIND policy (before the first
 * fault, which is when placement happens) and the helper threads run on
 * that node; where libnuma sees no NUMA, that is one fallback line.
 */
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/errname.h"
#include "loader/arena_int.h"
#include "loader/lines.h"
#include "sys/sys.h"
#include "sys/thread.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define MAX_THREADS 64
#define SLICE_ALIGN (2ull << 20)
#define STEP (64ull << 20)

/* What the threads share: the spans to credit and the bytes done. */
struct progress {
	lsc_profiler *p;
	const lsc_span *spans;
	unsigned n_spans;
	uint64_t done; /* atomic; starts at the bytes done by earlier calls */
};

struct slice {
	char *base;
	size_t len;
	int node;    /* run on this node; -1 none */
	int rc;
	int touched;
	int touch_err; /* why MADV_POPULATE_WRITE was given up: EINVAL, or a denial */
	struct lsc__thread th;
	int started;
	struct progress *pg;
};

/* The arena is fresh (all zero), so writing a zero changes no content and
 * costs one fault per page, where read-then-write would cost two. */
static void touch(char *base, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	for (size_t off = 0; off < len; off += page)
		((volatile char *)base)[off] = 0;
}

static int populate_step(struct slice *s, char *at, size_t len)
{
	if (s->touched) {
		touch(at, len);
		return 0;
	}
	for (int tries = 0;; tries++) {
		if (lsc__sys->madvise(at, len, MADV_POPULATE_WRITE) == 0)
			return 0;
		int err = errno;
		/* A signal interrupts the walk; what was faulted stays faulted. */
		if ((err == EINTR || err == EAGAIN) && tries < 16)
			continue;
		/* EINVAL: a kernel before 5.14. EPERM, EACCES, ENOSYS: a
		 * sandbox (seccomp) that denies madvise; touching needs no
		 * system call. */
		if (err == EINVAL || err == EPERM || err == EACCES || err == ENOSYS) {
			touch(at, len);
			s->touched = 1;
			s->touch_err = err;
			return 0;
		}
		return -err;
	}
}

static int populate(struct slice *s)
{
	for (size_t off = 0; off < s->len; off += STEP) {
		size_t len = off + STEP <= s->len ? STEP : s->len - off;
		int rc = populate_step(s, s->base + off, len);
		if (rc < 0)
			return rc;
		struct progress *pg = s->pg;
		uint64_t done = __atomic_add_fetch(&pg->done, len, __ATOMIC_RELAXED);
		for (unsigned i = 0; i < pg->n_spans; i++)
			lsc_span_progress(pg->p, pg->spans[i], done);
	}
	return 0;
}

static void *slice_main(void *arg)
{
	struct slice *s = arg;
	if (s->node >= 0)
		numa_run_on_node(s->node);
	s->rc = populate(s);
	return NULL;
}

static unsigned default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	return n > 8 ? 8 : (unsigned)n;
}

/* Bind [base, base+bytes) to @node. 0, or a reason in @why. */
static int bind_node(void *base, uint64_t bytes, int node, char *why, size_t why_len)
{
	if (numa_available() < 0) {
		snprintf(why, why_len, "libnuma: NUMA is not available here (numa_available() < 0)");
		return -ENOSYS;
	}
	int max = numa_max_node();
	if (node > max) {
		snprintf(why, why_len, "node %d does not exist (highest node %d)", node, max);
		return -EINVAL;
	}
	unsigned long mask[(node / (8 * sizeof(unsigned long))) + 1];
	memset(mask, 0, sizeof mask);
	mask[node / (8 * sizeof(unsigned long))] |= 1ul << (node % (8 * sizeof(unsigned long)));
	if (mbind(base, (unsigned long)bytes, MPOL_BIND, mask, (unsigned long)(8 * sizeof mask + 1),
		  0) != 0) {
		int err = errno;
		snprintf(why, why_len, "mbind(MPOL_BIND, node %d): %s", node, lsc__errname(-err));
		return -err;
	}
	return 0;
}

int lsc__prefault(lsc_profiler *p, const lsc_span *spans, unsigned n_spans, void *base,
		  uint64_t bytes, unsigned threads, int numa_node, struct lsc__prefault_result *r)
{
	return lsc__prefault_part(p, spans, n_spans, base, bytes, 0, 0, threads, numa_node, r);
}

int lsc__prefault_part(lsc_profiler *p, const lsc_span *spans, unsigned n_spans, void *base,
		       uint64_t bytes, uint64_t done_before, unsigned flags, unsigned threads,
		       int numa_node, struct lsc__prefault_result *r)
{
	struct slice sl[MAX_THREADS];
	struct progress pg = {.p = p, .spans = spans, .n_spans = spans ? n_spans : 0,
			      .done = done_before};
	int node = -1;

	memset(r, 0, sizeof *r);
	if (!base || !bytes)
		return -EINVAL;
	if (numa_node >= 0) {
		if (bind_node(base, bytes, numa_node, r->numa_why, sizeof r->numa_why) == 0) {
			r->numa_bound = 1;
			node = numa_node;
		} else {
			char wanted[32];
			snprintf(wanted, sizeof wanted, "node %d", numa_node);
			lsc__load_fallback(p, "numa", wanted, "no binding", r->numa_why);
		}
	}

	unsigned n = threads ? threads : default_threads();
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	uint64_t units = (bytes + SLICE_ALIGN - 1) / SLICE_ALIGN;
	if (n > units)
		n = (unsigned)units;
	if (n < 1)
		n = 1;
	uint64_t per = (units + n - 1) / n * SLICE_ALIGN;
	unsigned used = 0;
	for (uint64_t off = 0; off < bytes && used < n; off += per, used++) {
		sl[used] = (struct slice){
			.base = (char *)base + off,
			.len = (size_t)(off + per <= bytes ? per : bytes - off),
			.node = node,
			.pg = &pg,
		};
	}
	/* Helpers take slices 1.., the caller slice 0 (its CPU affinity is
	 * the caller's to keep; the memory policy binds its faults anyway). */
	for (unsigned i = 1; i < used; i++)
		sl[i].started = lsc__thread_start(&sl[i].th, LSC__THREAD_PREFAULT, slice_main, &sl[i]) == 0;
	sl[0].rc = populate(&sl[0]);
	int rc = sl[0].rc;
	unsigned ran = 1;
	for (unsigned i = 1; i < used; i++) {
		if (sl[i].started) {
			lsc__thread_join(&sl[i].th);
			ran++;
		} else {
			sl[i].rc = populate(&sl[i]); /* no thread: do it here */
		}
		if (sl[i].rc < 0 && rc == 0)
			rc = sl[i].rc;
	}
	r->threads = ran;
	int touch_err = 0;
	for (unsigned i = 0; i < used; i++) {
		r->touched |= sl[i].touched;
		if (sl[i].touched && !touch_err)
			touch_err = sl[i].touch_err;
	}
	if (r->touched && !(flags & LSC__PREFAULT_QUIET)) {
		char why[160];
		if (touch_err == EINVAL)
			snprintf(why, sizeof why, "the kernel refused MADV_POPULATE_WRITE (EINVAL; it needs Linux 5.14)");
		else
			snprintf(why, sizeof why, "madvise(MADV_POPULATE_WRITE): %s (denied: a seccomp filter or sandbox)",
				 lsc__errname(-touch_err));
		lsc__load_fallback(p, "prefault", "MADV_POPULATE_WRITE", "touching one byte per page", why);
	}
	return rc;
}
