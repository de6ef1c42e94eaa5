/*
 * The loader's own LOADSCOPE_* variables (docs/configuration.md), read with
 * one vocabulary: a switch is 1, on or yes, or 0, off or no, in any case; a
 * choice is one of its words, in any case. A value outside its words is one
 * `usage` line that names the variable, the words and the default kept,
 * never a silent guess. Read at every load, whatever the profiler's
 * LSC_PROFILER_IGNORE_ENV says (that flag covers the profiler's own
 * variables), and reported once per variable and profiler.
 */
#ifndef LSC_LOADER_ENV_H
#define LSC_LOADER_ENV_H

#include <loadscope/loader.h>
#include <loadscope/profiler.h>

#include "profiler/internal.h"

/* The switch @var: 1 or 0 as its value says, @def when unset or empty or
 * bad (a bad value also prints its line). @def -1 makes it a three-way
 * switch whose third word, auto, is -1, the default: the caller decides
 * (LOADSCOPE_READ_FIXED: by the arena's pages). */
int lsc__env_switch(lsc_profiler *p, enum lsc__env_var var, int def);

/* The choice @var: the index of its value in @words (NULL-terminated), or
 * @def when unset, empty or bad (a bad value also prints its line, naming
 * @words[@def] as the default kept). */
int lsc__env_choice(lsc_profiler *p, enum lsc__env_var var, const char *const *words, int def);

/* LOADSCOPE_ARENA_THP, the policy the arena takes (arena.c) and the memory
 * guard counts the hugetlb pool for: 1 and *@out when it names a policy
 * (lsc_thp_policy_name's words, in any case), 0 when unset or empty, -1
 * when it names none. *@raw is the value (NULL unset). Prints nothing: a
 * bad value is the arena's `fallback` line (docs/configuration.md). */
int lsc__env_thp(enum lsc_thp_policy *out, const char **raw);

#endif
