/*
 * What the rest of the library (the loader, the tools) may use of the
 * profiler beyond its public API: emitting a record in the grammar (and its
 * vocabulary, format/vocab.h) with the run's common fields, and the system
 * line.
 */
#ifndef LSC_PROFILER_INTERNAL_H
#define LSC_PROFILER_INTERNAL_H

#include <loadscope/profiler.h>

#include "format/line.h"
#include "format/vocab.h"

/*
 * lsc__emit - add the common fields (run, t_s) to @r, render it in the
 * profiler's format behind its prefix and hand it to the sink in one call.
 * A no-op returning 0 when @p is NULL or off. Thread-safe.
 */
int lsc__emit(lsc_profiler *p, struct lsc__rec *r);

/* lsc__system_rec - fill @r (already initialised as "system") with the
 * snapshot's fields and its human sentence. */
void lsc__system_rec(struct lsc__rec *r, const struct lsc_system *s);

/* The roots the profiler reads; "/proc" and "/sys" for a NULL profiler. */
const char *lsc__proc_root(const lsc_profiler *p);
const char *lsc__sys_root(const lsc_profiler *p);

/* The loader's LOADSCOPE_* variables (src/loader/env.c): a bad value of
 * each is one `usage` line, once per variable and profiler. */
enum lsc__env_var {
	LSC__ENV_READ_PATH = 0,
	LSC__ENV_READ_FIXED,
	LSC__ENV_READ_ASYNC,
	LSC__ENV_ARENA_MEM_CHECK,
	LSC__ENV_LOADER_MAX
};
void lsc__usage_env(lsc_profiler *p, enum lsc__env_var var, const char *what);

/* Monotonic nanoseconds: lsc__clock's, CLOCK_MONOTONIC unless a test set
 * it. */
uint64_t lsc__now_ns(void);
/* Tests only: the clock behind lsc__now_ns (NULL: CLOCK_MONOTONIC), so that
 * elapsed times and rates can be asserted exactly against an injected time,
 * never to time anything. Set before the profiler's threads start and put
 * back after they end. */
extern uint64_t (*lsc__clock)(void);

#endif
