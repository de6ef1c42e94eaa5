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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/load_state.h"
#include "loader/read/read.h"
#include "loader/read/reader.h"
#include "loader/result.h"
#include "profiler/internal.h"
#include "sys/sys.h"

#define MIN_INTERVAL_NS (100ull * 1000 * 1000)

/*
 * A callback that never returns (a longjmp or a C++ exception out of it)
 * skips the load's unwinding: its descriptors, the ring, staging and the
 * arena stayed taken for the life of the process (3 such loads: 6
 * descriptors and 770 MB). What the load holds lives on the heap, only the
 * load's state on the stack: before each call its heap pointers are copied
 * here, per thread, and cleared when the call returns. The next load on
 * the same thread finds them, and when it is not itself deeper on the
 * stack than that call (where it would be a load started inside the
 * callback, whose outer load is still live), the earlier load is certainly
 * gone: its ring is torn down (waiting for its reads, so the kernel writes
 * no more into the memory), its files closed, staging and the arena
 * released, its tables freed, and the load result made current again the
 * one before it. Its spans stay open (their profiler may be gone) and a
 * few small tables are lost. Another thread cannot tell an abandoned load
 * from a running one, so only the same thread reclaims.
 */
struct kept {
	const char *frame;               /* where the call sat on the stack */
	const struct lsc__reader_ops *rd;
	struct lsc__reader *r;
	struct lsc__lfile *files;
	unsigned n_files;
	struct lsc__lext *lx;
	struct lsc__chunk *chunks;
	struct lsc_arena *arena;
	int caller_memory;
	struct lsc__staging stg;
	struct lsc_load_result *result_prev;
};
static _Thread_local struct kept kept;
static _Thread_local int kept_set;

static void keep(const struct lsc__load *L, const char *frame)
{
	kept = (struct kept){.frame = frame, .rd = L->rd_live_ops, .r = L->rd_live, .files = L->files,
			     .n_files = L->n_files, .lx = L->lx, .chunks = L->chunks, .arena = L->out,
			     .caller_memory = L->caller_memory, .stg = L->stg,
			     .result_prev = L->result_prev};
	kept_set = 1;
}

void lsc__progress_reclaim(lsc_profiler *p)
{
	char here = 0;
	if (!kept_set || &here < kept.frame)
		return;
	struct kept k = kept;
	kept_set = 0;
	if (k.r)
		k.rd->teardown(k.r); /* waits for the reads still in flight */
	unsigned fds = 0;
	for (unsigned i = 0; k.files && i < k.n_files; i++)
		if (k.files[i].fd >= 0 && lsc__sys->close(k.files[i].fd) == 0)
			fds++;
	uint64_t bytes = k.arena && !k.caller_memory ? k.arena->a.bytes : 0;
	lsc__staging_release(&k.stg);
	if (k.arena && k.caller_memory) {
		memset(&k.arena->a, 0, sizeof(k.arena->a)); /* the caller's: nothing to release */
		k.arena->dev = NULL;
	}
	lsc_arena_destroy(k.arena);
	free(k.files);
	free(k.lx);
	free(k.chunks);
	lsc__result_restore(k.result_prev);
	char text[256];
	snprintf(text, sizeof(text),
		 "an earlier load on this thread left its progress callback without returning (a longjmp or "
		 "an exception out of it); released now: %u descriptors%s, %" PRIu64 " bytes of arena%s",
		 fds, k.r ? " and the ring" : "", bytes, k.stg.base ? " and staging" : "");
	lsc_note(p, "load", text);
}

static int call(struct lsc__load *L, uint64_t done, uint64_t now)
{
	char frame = 0;
	L->prog_calls++;
	L->prog_last = done;
	L->prog_last_ns = now;
	struct kept outer = kept; /* a load inside the callback keeps its own */
	int outer_set = kept_set;
	keep(L, &frame);
	int stop = L->o.progress(done, L->total_bytes, L->o.progress_user);
	kept = outer;
	kept_set = outer_set;
	if (stop == 0)
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
