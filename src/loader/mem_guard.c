/*
 * The arena's memory guard: an arena larger than the memory this process
 * may take is refused with one line before a page of it is faulted.
 *
 * Why: the arena is prefaulted whole and then pinned, so a size near the
 * limit does not fail with ENOMEM (anonymous mappings are overcommitted);
 * the faults bring the OOM killer to the engine, with no line at all (a
 * 24.05 GiB load with 24.2 GiB MemAvailable was killed; in a 512 MiB
 * memory cgroup a 1 GiB load was killed with 23 GiB MemAvailable on the
 * host, issue 22). The bounds are host/mem_room.c's: MemAvailable and
 * every memory cgroup limit above this process, v2 and v1; each keeps a
 * reserve (mem_guard.h), and the tightest decides and is named in the
 * line. hugetlb pages are neither in MemAvailable nor charged to a memory
 * cgroup: the pool's free pages count beside the bound when hugetlb is
 * asked for. Where no bound can be read there is no guard.
 *
 * Callers who know better (memory about to be freed, a balloon) set
 * LSC_LOAD_NO_MEM_CHECK, or LOADSCOPE_ARENA_MEM_CHECK=0 in the environment
 * (read once per load, as a switch of loader/env.c: 0, off or no), which
 * is how the command line reaches it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "format/c_locale.h"
#include "loader/env.h"
#include "loader/load_state.h"
#include "loader/mem_guard.h"

#define MIB (1ull << 20)
#define AVAIL_RESERVE_MIN (512 * MIB)
#define CGROUP_RESERVE_MIN (128 * MIB)
#define RESERVE_MAX (8192 * MIB)

static double gib(uint64_t v)
{
	return (double)v / (1024.0 * 1024 * 1024);
}

static uint64_t clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static uint64_t reserve_of(int src, const struct lsc__mem_bound *b, int64_t avail_reserve)
{
	uint64_t limit = b->limit > 0 ? (uint64_t)b->limit : 0;
	if (src != LSC__MEM_AVAILABLE)
		return clamp(limit / 32, CGROUP_RESERVE_MIN, RESERVE_MAX);
	if (avail_reserve >= 0)
		return (uint64_t)avail_reserve;
	return clamp(limit / 32, AVAIL_RESERVE_MIN, RESERVE_MAX);
}

void lsc__mem_judge(const char *proc_root, const char *sys_root, int64_t avail_reserve,
		    uint64_t extra, struct lsc__mem_verdict *v)
{
	memset(v, 0, sizeof *v);
	v->src = -1;
	lsc__mem_room_read(proc_root, sys_root, &v->room);
	for (int i = 0; i < LSC__MEM_SRC_COUNT; i++) {
		const struct lsc__mem_bound *b = &v->room.b[i];
		if (b->room < 0)
			continue;
		uint64_t reserve = reserve_of(i, b, avail_reserve);
		uint64_t room = (uint64_t)b->room + extra;
		uint64_t may = room > reserve ? room - reserve : 0;
		if (v->src < 0 || may < v->may_take) {
			v->src = i;
			v->extra = extra;
			v->reserve = reserve;
			v->may_take = may;
		}
	}
}

int lsc__mem_refusal(const struct lsc__mem_verdict *v, const char *what, const char *reserve_name,
		     uint64_t bytes, char *out, size_t cap)
{
	if (cap)
		out[0] = '\0';
	if (v->src < 0 || bytes <= v->may_take || !cap)
		return 0;
	const struct lsc__mem_bound *b = &v->room.b[v->src];
	char pool[96] = "";
	if (v->extra)
		snprintf(pool, sizeof pool, " plus the free hugetlb pool of %.2f GiB", gib(v->extra));
	locale_t loc = lsc__c_locale_enter();
	int n = snprintf(out, cap, "%s of %.2f GiB (%" PRIu64 " bytes) is more than ", what, gib(bytes),
			 bytes);
	size_t at = n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
	if (v->src == LSC__MEM_AVAILABLE)
		snprintf(out + at, cap - at, "MemAvailable %.2f GiB%s less %s %.2f GiB",
			 gib((uint64_t)b->room), pool, reserve_name ? reserve_name : "a reserve of",
			 gib(v->reserve));
	else
		snprintf(out + at, cap - at,
			 "the room under the %s of cgroup %s, %.2f GiB (the limit %.2f GiB less "
			 "%.2f GiB in use besides the file cache)%s, less a reserve of %.2f GiB",
			 lsc__mem_src_what(v->src), b->cgroup, gib((uint64_t)b->room),
			 gib((uint64_t)b->limit), gib((uint64_t)b->used), pool, gib(v->reserve));
	lsc__c_locale_leave(loc);
	return 1;
}

/* The free hugetlb pool, when the arena will ask for hugetlb pages. */
static uint64_t hugetlb_pool(lsc_profiler *p, const struct lsc_load_options *o)
{
	enum lsc_thp_policy pol = o->thp;
	const char *raw;
	lsc__env_thp(&pol, &raw); /* as the arena will read it */
	if (pol != LSC_THP_HUGETLB)
		return 0;
	struct lsc_system s;
	lsc_profiler_system(p, &s);
	if (s.hugetlb_free <= 0 || s.hugetlb_page_kib <= 0)
		return 0;
	return (uint64_t)s.hugetlb_free * ((uint64_t)s.hugetlb_page_kib << 10);
}

int lsc__arena_mem_guard(lsc_profiler *p, const struct lsc_load_options *o, uint64_t bytes)
{
	if ((o->flags & LSC_LOAD_NO_MEM_CHECK) || !lsc__env_switch(p, LSC__ENV_ARENA_MEM_CHECK, 1))
		return 0;
	struct lsc__mem_verdict v;
	char why[448];
	lsc__mem_judge(lsc__proc_root(p), lsc__sys_root(p), -1, hugetlb_pool(p, o), &v);
	if (!lsc__mem_refusal(&v, "arena", NULL, bytes, why, sizeof why))
		return 0;
	lsc__load_error(p, "allocate", NULL, 0, -ENOMEM,
			"%s: refused before faulting (LSC_LOAD_NO_MEM_CHECK or "
			"LOADSCOPE_ARENA_MEM_CHECK=0 to load anyway)",
			why);
	return -ENOMEM;
}
