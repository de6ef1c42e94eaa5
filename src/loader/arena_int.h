/*
 * The arena's parts, for the files that build it (arena.c drives;
 * arena_policy.c maps and advises; thp_auto.c decides; prefault.c faults;
 * pin_segments.c pins) and for the tests that drive each part on its own.
 * Private to src/loader/ (and tests): the others use arena.h.
 */
#ifndef LSC_LOADER_ARENA_INT_H
#define LSC_LOADER_ARENA_INT_H

#include <stddef.h>
#include <stdint.h>

#include <loadscope/loader.h>
#include <loadscope/profiler.h>

#include "pin/pin.h"

#define LSC__HPAGE_DEFAULT (2ull << 20)

/* ---- thp_auto.c ------------------------------------------------------------ */

struct lsc__thp_decision {
	enum lsc_thp_policy policy; /* LSC_THP_4K or LSC_THP_THP */
	char reason[256];           /* one line, with the numbers */
	const char *verdict;        /* the reason in a few words (static): "room", "stall risk" */
	/* LSC_THP_THP only: the first huge_bytes of the arena (rounded down to
	 * the huge-page size; all of it when the free blocks hold it) ask for
	 * huge pages and the rest for 4 KiB pages; with watch set the prefault
	 * is adaptive (prefault_adaptive.c) and may move the rest to 4 KiB
	 * pages when a step stalls. */
	uint64_t huge_bytes;
	int watch;
	/* Watched, on a guest with free page reporting: the last
	 * refault_cover bytes of the huge part are what the free blocks the
	 * host still backs can serve in 4 KiB pages; they move to 4 KiB pages
	 * when the first huge step faults in the host (prefault_adaptive.c). */
	uint64_t refault_cover;
};

/* The `auto` split keeps this share of the free huge-page blocks for the
 * rest of the system (LSC__AUTO_KEEP_DIV: 1/16) and uses none under
 * LSC__AUTO_MIN_HUGE bytes (a few huge pages save nothing measurable). */
#define LSC__AUTO_KEEP_DIV 16
#define LSC__AUTO_MIN_HUGE (64ull << 20)

/* What `auto` weighs besides the snapshot, for a guest with free page
 * reporting (thp_auto.c). */
struct lsc__auto_host {
	int64_t free_unreported_bytes; /* free in blocks below page_reporting_order
	                                * (lsc__free_unreported); LSC_NA */
	int device_pin;                /* the arena is to be pinned for a GPU */
};

/* lsc__thp_auto - the `auto` policy: judge an arena of @bytes against the
 * snapshot @s (through lsc__assess, shared with `loadscope probe`) and,
 * where @h is not NULL, the free memory the host still backs.
 * Return 0 or a negative errno (then *d still holds a safe 4k decision). */
int lsc__thp_auto(const struct lsc_system *s, uint64_t bytes, const struct lsc__auto_host *h,
		  struct lsc__thp_decision *d);

/* ---- arena_policy.c -------------------------------------------------------- */

/* The process's THP switch, saved and restored around the faults. */
struct lsc__thp_hold {
	int held;          /* PR_SET_THP_DISABLE 1 is in force because of us */
	int64_t saved;     /* PR_GET_THP_DISABLE's bits before */
};

/* Save PR_GET_THP_DISABLE and set it to 1. Return 0 or a negative errno
 * (nothing changed then). */
int lsc__thp_hold(struct lsc__thp_hold *h);
/* Put back the saved bits (with PR_THP_DISABLE_EXCEPT_ADVISED where the
 * kernel had it set). Safe when not held; h->held stays set when the call
 * fails, so that a caller can try again. Return 0 or a negative errno. */
int lsc__thp_restore(struct lsc__thp_hold *h);

/*
 * lsc__policy_map - map @mapped bytes as @n_pieces pieces of @piece bytes
 * (the last one may be shorter) inside one reservation aligned to @align,
 * applying @policy (4k, thp, hugetlb, process-off) to each piece before any
 * touch. @mapped and @piece are multiples of the page size of the policy.
 * On success *base is the arena; on failure nothing stays mapped and @why
 * names the call that failed. A kernel without THP refuses both advices with
 * EINVAL, a sandbox denies them with EPERM, EACCES or ENOSYS: then the
 * pieces stay unadvised, *advice_refused is that errno and @why says so.
 * Return 0 or a negative errno.
 */
int lsc__policy_map(enum lsc_thp_policy policy, uint64_t mapped, uint64_t piece,
		    unsigned n_pieces, uint64_t align, void **base, int *advice_refused, char *why,
		    size_t why_len);

/* ---- prefault.c ------------------------------------------------------------ */

struct lsc__prefault_result {
	unsigned threads;       /* threads that faulted */
	int touched;            /* 1: MADV_POPULATE_WRITE was refused, pages were touched */
	int numa_bound;         /* 1: memory and threads bound to the node */
	char numa_why[160];     /* why the binding was not made, when asked for */
};

/*
 * lsc__prefault - fault [base, base+bytes) writable, in parallel.
 * @spans, @n_spans: spans of @p credited with the bytes done as the faults
 * progress (for the watchdog); may be NULL.
 * @threads: 0 = one per online CPU, at most 8. @numa_node: -1, or bind the
 * range and the threads to that node (libnuma; logged fallback when NUMA is
 * unavailable). Lines (fallbacks) go to @p. Return 0 or a negative errno
 * (-ENOMEM: the memory is not there); the range stays mapped either way.
 */
int lsc__prefault(lsc_profiler *p, const lsc_span *spans, unsigned n_spans, void *base,
		  uint64_t bytes, unsigned threads, int numa_node, struct lsc__prefault_result *r);

/* The touch fallback is the caller's to say (once, for all its parts). */
#define LSC__PREFAULT_QUIET 1u
/* lsc__prefault for one part of a larger range: the spans' progress counts
 * on from @done_before; @flags LSC__PREFAULT_QUIET or 0. */
int lsc__prefault_part(lsc_profiler *p, const lsc_span *spans, unsigned n_spans, void *base,
		       uint64_t bytes, uint64_t done_before, unsigned flags, unsigned threads,
		       int numa_node, struct lsc__prefault_result *r);

/* ---- prefault_adaptive.c --------------------------------------------------- */

/* One reading between two steps: the clock and the counters that say a
 * fault compacted or stalled. -1: n/a. */
struct lsc__adapt_reading {
	uint64_t ns;
	int64_t compact_stall, compact_fail;
	int64_t psi_some_us;
};

/* Where the readings come from: the machine (NULL: the clock, <proc
 * root>/vmstat and pressure/memory), or a test's sequence. */
struct lsc__adapt_source {
	int (*next)(void *user, struct lsc__adapt_reading *out); /* 0 or -errno */
	void *user;
};
/* Tests set a source (NULL: the machine again). Not for concurrent loads. */
void lsc__adapt_set_source(const struct lsc__adapt_source *src);

/* The thresholds (docs/loader.md, "The adaptive auto policy"). */
#define LSC__ADAPT_STEP_MIN (32ull << 20)
#define LSC__ADAPT_STEP_MAX (256ull << 20)
#define LSC__ADAPT_PROBE (16ull << 20) /* the refault probe, and the first huge step after it */
#define LSC__ADAPT_FAIL_MIN 8      /* compact_fail rising by this much in one step */
#define LSC__ADAPT_SLOW_DIV 4      /* a step under 1/4 of the first steps' rate ... */
#define LSC__ADAPT_PSI_PCT 10      /* ... with compaction or 10 % of it stalled on memory */

struct lsc__adapt_result {
	uint64_t huge_bytes;     /* asked for huge pages at the start */
	int switched;            /* the rest of the huge part went to 4 KiB pages */
	uint64_t switch_at;      /* arena offset of that switch */
	uint64_t switch_ns;      /* into the prefault */
	unsigned steps;          /* steps faulted in the huge part */
	int refault;             /* the switch was for huge pages faulting in the host */
	char why[256];           /* the switch's reason with its figures */
};

/*
 * lsc__prefault_adaptive - fault [base, base+bytes) whose first @huge bytes
 * were advised MADV_HUGEPAGE: advise the rest MADV_NOHUGEPAGE, fault the
 * huge part in steps, reading the counters between them, and when a step
 * stalls advise the rest of the huge part MADV_NOHUGEPAGE before touching
 * it, with one `fallback what=auto` line. With @refault_cover (0: none),
 * the last LSC__ADAPT_PROBE bytes of the cover are faulted first in
 * 4 KiB pages, and when the first huge step runs slower than they did
 * without compacting, the rest of the cover moves to 4 KiB pages (one
 * line too). The rest is faulted as lsc__prefault does. Return 0 or a
 * negative errno (as lsc__prefault).
 */
int lsc__prefault_adaptive(lsc_profiler *p, const lsc_span *spans, unsigned n_spans, void *base,
			   uint64_t bytes, uint64_t huge, uint64_t refault_cover, unsigned threads,
			   int numa_node, struct lsc__prefault_result *r, struct lsc__adapt_result *ar);

/* ---- pin_segments.c -------------------------------------------------------- */

struct lsc__pin_tally {
	unsigned segments;  /* segments pinned (at the end: all of them) */
	unsigned retries;   /* backend retries inside calls + our re-attempts */
	unsigned failures;  /* failed pin calls, including ones a retry then fixed */
	uint64_t pinned_bytes;
};

/*
 * lsc__pin_segments - pin [base, base+bytes) with @ops in segments of @seg
 * bytes. A segment failing with EAGAIN or EINTR is tried again (at most
 * three times); any other failure unpins the segments already pinned
 * (rollback) and returns the error with the backend's reason in @why.
 */
int lsc__pin_segments(lsc_profiler *p, const struct lsc__pin_ops *ops, void *base, uint64_t bytes,
		      uint64_t seg, unsigned flags, struct lsc__pin_tally *t, char *why,
		      size_t why_len);

/* lsc__unpin_segments - undo lsc__pin_segments over the same segments. */
void lsc__unpin_segments(const struct lsc__pin_ops *ops, void *base, uint64_t bytes,
			 uint64_t seg);

/* ---- pin_map.c ------------------------------------------------------------- */

struct lsc__arena;
struct lsc__rec;

/* Ask the backend that pinned @a (a->pin) for the arena's device address,
 * segment by segment, into a->device_ptr, or the reason into
 * a->device_ptr_why. Nothing for a backend without device_pointer. */
void lsc__arena_device_map(struct lsc__arena *a);
/* The device address in words and fields (device_ptr, device_ptr_is_host,
 * or device_ptr=n/a and device_ptr_reason), for the line that reports the
 * pin; nothing for a backend without device_pointer. */
void lsc__arena_device_say(struct lsc__rec *r, const struct lsc__arena *a);

#endif
