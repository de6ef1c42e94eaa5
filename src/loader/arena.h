/*
 * The arena: one contiguous host range for the whole manifest, built as
 * allocate (page-size policy before the first touch, in pieces) -> prefault
 * -> pin (in segments, through the pin ops table, with rollback and a
 * fallback chain). lsc_load() (load.c) drives it; the read pipeline only
 * sees base/bytes.
 *
 * Pieces: with chunk_bytes set, the arena is one PROT_NONE reservation with
 * each piece mapped MAP_FIXED inside it (as ROCr maps its allocations), so
 * the arena stays contiguous while each piece is allocated, advised and
 * faulted on its own. A pin backend that allocates its own memory
 * (LSC__PIN_CAP_ALLOC) is only used for an unchunked arena, or its pieces
 * would not be contiguous.
 */
#ifndef LSC_LOADER_ARENA_H
#define LSC_LOADER_ARENA_H

#include <stdint.h>

#include <loadscope/loader.h>

#include "pin/pin.h"

struct lsc__arena {
	void *base;
	uint64_t bytes;          /* what the caller asked for */
	uint64_t mapped_bytes;   /* rounded up to the page size in use */
	uint64_t piece_bytes;    /* chunk size; == mapped_bytes for one piece */
	unsigned n_pieces;
	enum lsc_thp_policy wanted, applied;
	char thp_reason[256];    /* why this policy (the auto decision's numbers) */
	const char *thp_verdict; /* the same in a few words, for the brief arena line (static) */
	const struct lsc__pin_ops *pin;    /* the backend that pinned (or "none") */
	int allocated_by_pin;    /* base came from pin->alloc */
	uint64_t pinned_bytes;
	unsigned pin_segments, pin_retries, pin_failures; /* retries: inside the backend's
	                         * calls plus our re-attempts after EAGAIN/EINTR; failures:
	                         * failed pin calls (a retried one counts), over the chain */
	/* The KFD allocation ioctls seen while allocating and pinning, when the
	 * counter preload is loaded (kfd_seen); process-wide counts. */
	int kfd_seen;
	uint64_t kfd_calls, kfd_eagain, kfd_ns;
	uint64_t alloc_ns, prefault_ns, pin_ns; /* alloc_ns: map + advise, without the
	                                         * prefault; pin_ns: the whole chain */
	/* Added by the arena's implementation (fields only ever added): */
	uint64_t pin_segment_bytes; /* the segments pinned, for unpinning the same ones */
	unsigned prefault_threads;
	int prefault_touched;       /* MADV_POPULATE_WRITE refused: pages were touched */
	int numa_bound;             /* memory and prefault threads bound to o->numa_node */
	int thp_from_env;           /* `wanted` came from LOADSCOPE_ARENA_THP */
	/* The device's address of the arena (mapped pinning, pin_map.c), or
	 * NULL with the reason in device_ptr_why when the backend has one and
	 * it failed. */
	void *device_ptr;
	char device_ptr_why[192];
	/* The adaptive `auto` policy (prefault_adaptive.c); all 0 for the
	 * others: auto_watch set when the prefault watched its steps, the
	 * first auto_huge_bytes asked for huge pages and the rest for 4 KiB
	 * pages, and auto_switched when a stall moved the rest of the huge
	 * part to 4 KiB pages at auto_switch_at (auto_switch_ns into the
	 * prefault), for the reason in auto_why. On a guest with free page
	 * reporting the last auto_refault_cover bytes of the huge part may
	 * move to 4 KiB pages instead, when huge pages fault in the host. */
	int auto_watch;
	uint64_t auto_huge_bytes;
	uint64_t auto_refault_cover;
	int auto_switched;
	uint64_t auto_switch_at, auto_switch_ns;
	unsigned auto_steps;
	char auto_why[256];
};

/* Allocate and prefault: the `allocate` phase (a span on @p). On failure
 * nothing stays mapped. Return 0 or a negative error. */
int lsc__arena_alloc(lsc_profiler *p, const struct lsc_load_options *o, uint64_t bytes,
		     struct lsc__arena *a);

/* Pin: the `pin` phase, along the fallback chain starting at
 * lsc__pin_wanted(@o) (pin/pin.h). */
int lsc__arena_pin(lsc_profiler *p, const struct lsc_load_options *o, struct lsc__arena *a);

/* Unpin and unmap; safe on a zeroed or half-built arena. */
void lsc__arena_release(struct lsc__arena *a);

#endif
