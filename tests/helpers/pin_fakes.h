/*
 * Pieces for a test's own pin table and for loads over it (lsc__pin_override):
 * hooks that lock nothing or allocate plain anonymous memory, so a test
 * writes only the hooks it observes, and one call that runs a whole load over
 * the table with the lines captured.
 */
#ifndef LSC_TESTS_PIN_FAKES_H
#define LSC_TESTS_PIN_FAKES_H

#include <stddef.h>

#include <loadscope/loader.h>

#include "helpers/load_helpers.h"
#include "pin/pin.h"

/* pin and unpin that succeed and lock nothing. */
int lsct_pin_nothing(void *addr, size_t len, unsigned flags, unsigned *retries, char *why,
		     size_t why_len);
int lsct_unpin_nothing(void *addr, size_t len);
/* alloc and free over anonymous mmap (an alloc that fails says -ENOMEM). */
int lsct_alloc_anon(size_t len, unsigned flags, void **out, char *why, size_t why_len);
void lsct_free_anon(void *addr, size_t len);

/* The options these loads share: the pread reader, 4 KiB pages (so the
 * arena is registered, not allocated by the table), pinned in segments of
 * @segment bytes (0: the default). */
void lsct_pinned_options(struct lsc_load_options *o, uint64_t segment);

/* lsc_load of the whole file @path with @o over the pin table @ops (NULL:
 * the one o->pin names), lines into @cap; the override is lifted before it
 * returns. Returns lsc_load's value (the lines are dumped when it fails). */
int lsct_load_over(struct lsct_capture *cap, const struct lsc__pin_ops *ops,
		   const struct lsc_load_options *o, const char *path, lsc_arena **a);

/* The @k-th (0 = first) `note` with topic=pin that is not a segment's own
 * into @pl; 0 when absent. */
int lsct_pin_note(const struct lsct_capture *cap, unsigned k, char *buf, size_t len,
		  struct lsc__parsed *pl);

#endif
