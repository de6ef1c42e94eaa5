/*
 * The arena's memory guard: an arena larger than the memory the machine
 * can give is refused with one line before a page of it is faulted.
 *
 * Why: the arena is prefaulted whole and then pinned, so a size near the
 * machine's memory does not fail with ENOMEM (anonymous mappings are
 * overcommitted); the faults bring the OOM killer to the engine, with no
 * line at all (a 24.05 GiB load with 24.2 GiB MemAvailable was killed).
 * MemAvailable is the kernel's estimate, counting page cache and slab that
 * cannot all be reclaimed, and the load itself brings the files' page
 * cache, staging and tables; so the guard keeps a reserve of MemTotal / 32,
 * at least 512 MiB and at most 8 GiB, below it. hugetlb pages are not in
 * MemAvailable: the pool's free pages count too when hugetlb is asked for.
 * Where MemAvailable cannot be read there is no guard.
 *
 * Callers who know better (memory about to be freed, a balloon) set
 * LSC_LOAD_NO_MEM_CHECK, or LOADSCOPE_ARENA_MEM_CHECK=0 in the environment
 * (read once per load, as a switch of loader/env.c: 0, off or no), which
 * is how the command line reaches it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "loader/env.h"
#include "loader/load_state.h"

#define MIB (1ull << 20)
#define RESERVE_MIN (512 * MIB)
#define RESERVE_MAX (8192 * MIB)

static double gib(uint64_t v)
{
	return (double)v / (1024.0 * 1024 * 1024);
}

int lsc__arena_mem_guard(lsc_profiler *p, const struct lsc_load_options *o, uint64_t bytes)
{
	if ((o->flags & LSC_LOAD_NO_MEM_CHECK) || !lsc__env_switch(p, LSC__ENV_ARENA_MEM_CHECK, 1))
		return 0;
	struct lsc_system s;
	lsc_profiler_system(p, &s);
	if (s.mem_available == LSC_NA || s.mem_available < 0)
		return 0;
	uint64_t avail = (uint64_t)s.mem_available;
	enum lsc_thp_policy pol = o->thp;
	const char *thp = getenv("LOADSCOPE_ARENA_THP"); /* as the arena will read it */
	if (thp && *thp)
		lsc_thp_policy_parse(thp, &pol);
	if (pol == LSC_THP_HUGETLB && s.hugetlb_free > 0 && s.hugetlb_page_kib > 0)
		avail += (uint64_t)s.hugetlb_free * ((uint64_t)s.hugetlb_page_kib << 10);
	uint64_t reserve = s.mem_total > 0 ? (uint64_t)s.mem_total / 32 : RESERVE_MIN;
	reserve = reserve < RESERVE_MIN ? RESERVE_MIN : reserve > RESERVE_MAX ? RESERVE_MAX : reserve;
	uint64_t room = avail > reserve ? avail - reserve : 0;
	if (bytes <= room)
		return 0;
	lsc__load_error(p, "allocate", NULL, 0, -ENOMEM,
			"arena of %.2f GiB (%" PRIu64 " bytes) is more than MemAvailable %.2f GiB less "
			"a reserve of %.2f GiB: refused before faulting (LSC_LOAD_NO_MEM_CHECK or "
			"LOADSCOPE_ARENA_MEM_CHECK=0 to load anyway)",
			gib(bytes), bytes, gib(avail), gib(reserve));
	return -ENOMEM;
}
