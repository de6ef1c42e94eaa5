/*
 * What the read path (loader/read/) offers the load's order (load.c): cut
 * the extents into chunks, run the read/copy/verify loop over a reader ops
 * table (reader.h), and the pieces of it that a load also needs on their
 * own: the staging buffers, O_DIRECT opens, the overlapped verify, the
 * device copy. Each works on the load's state (loader/load_state.h).
 */
#ifndef LSC_LOADER_READ_READ_H
#define LSC_LOADER_READ_READ_H

#include <stddef.h>
#include <stdint.h>

#include "loader/load_state.h"

/* ---- staging buffers (staging.c) ----------------------------------------- */

int lsc__staging_init(struct lsc__load *L, struct lsc__staging *s, unsigned count, uint64_t bytes);
void lsc__staging_release(struct lsc__staging *s);
static inline void *lsc__staging_buf(const struct lsc__staging *s, unsigned i)
{
	return s->base + (uint64_t)i * s->bytes;
}

/* ---- O_DIRECT (direct.c) ------------------------------------------------- */

/* Open @f (O_DIRECT when @direct), falling back to buffered on EINVAL with
 * a line. Return 0 or a negative errno. */
int lsc__file_open(lsc_profiler *p, struct lsc__lfile *f, int direct);
/* The first O_DIRECT read of @f failed with EINVAL: reopen it buffered and
 * say so. Return the new fd or a negative errno. */
int lsc__direct_reopen(lsc_profiler *p, struct lsc__lfile *f);

/* ---- verify (verify.c) --------------------------------------------------- */

struct lsc__verify;
int lsc__verify_create(struct lsc__verify **out);
void lsc__verify_destroy(struct lsc__verify *v);
/* Hash every done chunk in order from the arena; finish extents. Return 0 or
 * LSC_E_HASH (line already printed). Adds its busy time to L->verify_ns. */
int lsc__verify_advance(struct lsc__load *L, struct lsc__verify *v, uint64_t *next_chunk);

/* ---- device copy (device.c) ----------------------------------------------- */

/* Open the device copy when o.device >= 0: a fallback line (host only) when
 * the pin backend has no device, or an error under LSC_LOAD_PIN_STRICT. */
int lsc__device_open(struct lsc__load *L);
/* Queue chunk @seq (already in the arena) to the device. */
int lsc__device_copy(struct lsc__load *L, uint64_t seq);
/* Wait for every slot: the device holds all the bytes queued so far. */
int lsc__device_finish(struct lsc__load *L);
/* Tests: the device table used instead of the arena's pin backend. */
void lsc__device_override(const struct lsc__pin_ops *ops);

/* ---- the pipeline (pipeline.c) ------------------------------------------- */

/* Cut the extents into chunks for the chosen path. Return 0 or -ENOMEM. */
int lsc__chunks_build(struct lsc__load *L);
/* Read, copy, verify every chunk: the `read` span. Return 0 or an error
 * (line printed). */
int lsc__pipeline_run(struct lsc__load *L);
/* Whether to register the arena as fixed buffers, from LOADSCOPE_READ_FIXED
 * (@want 1 or 0; -1 unset or auto), whether the kernel coalesces buffers of
 * several huge pages (@coalesces: 6.10 and later) and the arena's page
 * backing read from smaps (@region_rc, @ri): 1 with @why "", or 0 with @why
 * saying why not (a phrase for the `loaded` line, cut to @cap). pipeline.c. */
int lsc__arena_fixed_choice(int want, int coalesces, int region_rc,
			    const struct lsc_region_info *ri, char *why, size_t cap);

#endif
