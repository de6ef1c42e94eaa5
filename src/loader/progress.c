/*
 * Progress and cancel (lsc_load_options.progress, loader.h): the caller's
 * callback, called at a bounded rate so that a per-completion hook costs a
 * load two compares, and an engine's progress bar (or its UI thread's
 * lock) is not taken a thousand times a second.
 *
 * The rule: the first call once 1/64 of the total is in (an early sign,
 * and an early chance to cancel), then a call whenever both another 1/64
 * and 100 ms have passed since the last one, and always one at the end
 * with done == total. A nonzero return cancels: the load's one line is an
 * `error what=cancel` line, and the load unwinds as for any failure.
 */
#include <errno.h>
#include <inttypes.h>

#include "loader/load_state.h"
#include "profiler/internal.h"

#define MIN_INTERVAL_NS (100ull * 1000 * 1000)

static int call(struct lsc__load *L, uint64_t done, uint64_t now)
{
	L->prog_calls++;
	L->prog_last = done;
	L->prog_last_ns = now;
	if (L->o.progress(done, L->total_bytes, L->o.progress_user) == 0)
		return 0;
	lsc__load_error(L->p, "cancel", NULL, 0, -ECANCELED,
			"cancelled by the progress callback at %" PRIu64 " of %" PRIu64 " bytes", done,
			L->total_bytes);
	return -ECANCELED;
}

int lsc__progress(struct lsc__load *L, uint64_t done)
{
	if (!L->o.progress)
		return 0;
	uint64_t step = L->total_bytes / 64;
	if (done >= L->total_bytes || done - L->prog_last < (step ? step : 1))
		return 0; /* the end has its own call */
	uint64_t now = lsc__now_ns();
	if (L->prog_calls && now - L->prog_last_ns < MIN_INTERVAL_NS)
		return 0;
	return call(L, done, now);
}

int lsc__progress_end(struct lsc__load *L)
{
	if (!L->o.progress)
		return 0;
	return call(L, L->total_bytes, lsc__now_ns());
}
