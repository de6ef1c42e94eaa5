/*
 * The memory guard of the subcommands that allocate without a load
 * (`lab fragment`, `pintest`): the loader's judgement (loader/mem_guard.h)
 * over the real /proc and /sys, so that in a memory cgroup they refuse with
 * one line instead of being killed.
 */
#ifndef LSC_TOOLS_MEM_GUARD_H
#define LSC_TOOLS_MEM_GUARD_H

#include <stdint.h>
#include <stdio.h>

/*
 * lsc_cli_mem_guard - refuse @what ("allocation") of @bytes that the memory
 * this process may take cannot hold: one line "@prefix: refusing: <the
 * guard's sentence>" on @f. @keep_free is the reserve below MemAvailable in
 * bytes, named --keep-free in the sentence (lab's option), or -1 for the
 * loader's. Return: 1 refused, 0 it fits (or no bound could be read: no
 * guard, as in the loader).
 */
int lsc_cli_mem_guard(FILE *f, const char *prefix, const char *what, uint64_t bytes,
		      int64_t keep_free);

/* lsc_cli_mem_may_take - the most a new allocation may have now under the
 * same judgement, or -1 when no bound could be read. */
int64_t lsc_cli_mem_may_take(int64_t keep_free);

#endif
