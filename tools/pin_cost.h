/*
 * Pin cost accounting: what each pin call cost per GiB, and which call took
 * far longer than its size predicts.
 *
 * Page-locking costs roughly the same per GiB from one segment to the next
 * (the kernel walks and pins every page). A segment that costs several
 * times the median of the segments before it hit something else: compaction
 * or reclaim under it, or the runtime retrying (seed 000: one hipHostMalloc
 * retried its KFD ioctl thousands of times). `loadscope pintest`
 * (cmd_pintest.c), its only user, feeds each pinned piece's bytes and wall
 * time in and reports the calls flagged slow and the worst ratio in its
 * notes; the loader's `pin` line does not use it. Pure arithmetic: no
 * clock, no allocation, no GPU.
 */
#ifndef LSC_TOOLS_PIN_COST_H
#define LSC_TOOLS_PIN_COST_H

#include <stdint.h>

/* A call is slow when its ns per GiB exceeds this many times the median of
 * the previous calls (at least LSC__PIN_COST_MIN_PREV of them). */
#define LSC__PIN_COST_SLOW_RATIO 4.0
#define LSC__PIN_COST_MIN_PREV 2
#define LSC__PIN_COST_WINDOW 32
/* Calls smaller than this are timed but neither judged nor used as a
 * baseline: their fixed cost per call dominates their cost per byte. */
#define LSC__PIN_COST_MIN_BYTES (1ull << 20)

struct lsc__pin_cost {
	uint64_t bytes, ns;          /* totals over every call */
	unsigned calls, slow;        /* calls, and calls flagged slow */
	unsigned retries;            /* sum of the backends' *retries */
	double worst_ratio;          /* highest cost/median ratio seen; 0 = none judged */
	unsigned worst_call;         /* its index (0-based) */
	double window[LSC__PIN_COST_WINDOW]; /* ns per GiB of the last judged calls */
	unsigned n_window, next;
};

void lsc__pin_cost_init(struct lsc__pin_cost *c);

/*
 * lsc__pin_cost_add - account one pin call of @bytes that took @ns and made
 * @retries retries. Return: this call's cost as a ratio to the median of the
 * previous calls (0 when there is no baseline yet), and sets *@slow (if not
 * NULL) to 1 when the ratio exceeds LSC__PIN_COST_SLOW_RATIO.
 */
double lsc__pin_cost_add(struct lsc__pin_cost *c, uint64_t bytes, uint64_t ns, unsigned retries,
			 int *slow);

/* lsc__pin_cost_s_per_gib - seconds per GiB over every call; 0 when none. */
double lsc__pin_cost_s_per_gib(const struct lsc__pin_cost *c);

#endif
