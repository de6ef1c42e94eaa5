/*
 * The loader's phases as two profilers see them: every span the loader opens
 * on lsc_profiler is also a range on the GPU runtime's own profiler (NVTX
 * for cuda, roctx for hip), named like the phase, pushed when the span opens
 * and popped when it closes, so that Nsight Systems or rocprof show the same
 * phases as the log. The work that overlaps the read span (staging copies,
 * hashing, device copies), timed as busy time and reported with
 * lsc_phase_record, is a range too for each stretch of it, nested in `read`.
 *
 * The ranges come from the load's pin backend, the one asked for (known
 * before the allocate phase, whether or not it ends up pinning): only cuda
 * and hip have them; for the others a range costs a NULL check. They are
 * pushed whether or not the profiler is on, since an engine may run under
 * Nsight with loadscope's lines off. This is the one place the profiler and
 * the pin backends meet: the profiler itself knows nothing of either.
 *
 * Runtime ranges are per thread: a phase must end on the thread that began
 * it, as a span must.
 */
#ifndef LSC_PIN_PHASE_H
#define LSC_PIN_PHASE_H

#include <stdint.h>

#include <loadscope/profiler.h>

#include "pin/pin.h"

/* An open phase: its span and the table whose range it pushed (or NULL). */
struct lsc__phase {
	lsc_span span;
	const struct lsc__pin_ops *ranges;
};

/* lsc_span_begin on @p (arguments as there) and a range of the same name on
 * @ranges, a pin table that may be NULL or lack ranges. */
void lsc__phase_begin(lsc_profiler *p, const struct lsc__pin_ops *ranges,
		      enum lsc_phase_kind kind, const char *name, uint64_t bytes,
		      struct lsc__phase *ph);
/* Close the span, then pop the range: the same thread, innermost first. */
void lsc__phase_end(lsc_profiler *p, struct lsc__phase *ph);

/* A stretch of overlapped work: timed from begin to end and added to a busy
 * counter, a range meanwhile. Named as its lsc_phase_record will be. */
struct lsc__busy {
	uint64_t t0;
	const struct lsc__pin_ops *ranges;
};

void lsc__busy_begin(const struct lsc__pin_ops *ranges, enum lsc_phase_kind kind,
		     const char *name, struct lsc__busy *b);
/* Pop the range and add the time since begin to *@busy_ns. */
void lsc__busy_end(struct lsc__busy *b, uint64_t *busy_ns);

#endif
