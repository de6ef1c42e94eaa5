/*
 * The memory guard's judgement (mem_guard.c), shared by the loader, which
 * refuses an arena before faulting it, and by `lab fragment` and `pintest`,
 * which refuse their allocations the same way: the bounds of
 * host/mem_room.h, each less a reserve, the tightest deciding, and one
 * sentence that names it.
 */
#ifndef LSC_LOADER_MEM_GUARD_H
#define LSC_LOADER_MEM_GUARD_H

#include <stddef.h>
#include <stdint.h>

#include "host/mem_room.h"

struct lsc__mem_verdict {
	struct lsc__mem_room room;
	int src;           /* the bound that decides (enum lsc__mem_src); -1: none
	                    * readable, so there is no guard */
	uint64_t extra;    /* counted beside that bound (the free hugetlb pool) */
	uint64_t reserve;  /* kept below it */
	uint64_t may_take; /* its room + extra - reserve (0 when below): the most a new
	                    * allocation may have */
};

/*
 * lsc__mem_judge - read the bounds (proc and sys roots, NULL the real ones)
 * and judge them: each bound's room plus @extra less its reserve, the
 * smallest deciding. The reserve below MemAvailable is @avail_reserve
 * bytes, or, when it is negative, the loader's: MemTotal / 32, at least
 * 512 MiB, at most 8 GiB (MemAvailable counts cache that cannot all be
 * reclaimed, and a load brings page cache, staging and tables). Below a
 * cgroup limit it is the limit / 32, at least 128 MiB, at most 8 GiB: the
 * cgroup's file cache is counted as room, but the pages of the reads in
 * flight cannot be reclaimed until they complete, and in a 512 MiB cgroup
 * loads with 16 and 32 MiB left beside the arena were killed (4 of 6, 1
 * of 7) where 64 MiB and more never were (docs/reliability.md).
 * Thread-safe.
 */
void lsc__mem_judge(const char *proc_root, const char *sys_root, int64_t avail_reserve,
		    uint64_t extra, struct lsc__mem_verdict *v);

/*
 * lsc__mem_refusal - the sentence that refuses @what ("arena") of @bytes
 * under @v: "arena of 1.00 GiB (1073741824 bytes) is more than the room
 * under cgroup v1 memory.limit_in_bytes of /a/b, ..., less a reserve of
 * 0.03 GiB", in the C locale, into @out (@cap bytes, cut if longer).
 * @reserve_name names the reserve below MemAvailable ("--keep-free"; NULL:
 * "a reserve of"). Return: 1 when @bytes is more than v->may_take (the
 * sentence written), else 0 (@out "").
 */
int lsc__mem_refusal(const struct lsc__mem_verdict *v, const char *what, const char *reserve_name,
		     uint64_t bytes, char *out, size_t cap);

#endif
