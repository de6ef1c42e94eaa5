/*
 * mem-short: `loadscope probe` warned (id=mem-short) that the arena it was
 * asked to judge is larger than MemAvailable. Pinning more than the kernel
 * can hand out without reclaim evicts the page cache the weights are read
 * from, swaps, or fails; the probe says so before any load, so this is a
 * risk the log states, not a cost it measured: a warning.
 */
#include "internal.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	(void)c;
	if (s->ev_mem_short < 0)
		return TR_NOFIRE;
	double arena = s->mem_short_arena / GIB, avail = s->mem_short_avail / GIB;
	tr_f_init(f, "mem-short", LSC_TRIAGE_WARN, s);
	if (!isnan(arena) && !isnan(avail))
		tr_f_summary(f, "loadscope probe: the %.2f GiB arena is larger than MemAvailable (%.2f GiB)", arena,
			     avail);
	else
		tr_f_summary(f, "loadscope probe: the arena is larger than MemAvailable");
	tr_f_ev(f, s, s->ev_mem_short);
	if (!isnan(arena) && !isnan(avail) && avail > 0)
		tr_f_math(f, "arena %.2f GiB / MemAvailable %.2f GiB = %.2fx (the probe warns above 1x)", arena, avail,
			  arena / avail);
	tr_f_rem(f, "a smaller arena (the model's share that must be resident), or free memory before the start");
	tr_f_rem(f, "check what holds the memory: free -g, and MemAvailable in /proc/meminfo right before the "
		    "start");
	tr_f_rem(f, "loadscope explain mem-short (or share/doc/loadscope/troubleshooting.md#mem-short)");
	return TR_FIRE;
}

const struct tr_rule tr_rule_mem_short = {"mem-short", NULL, eval};
