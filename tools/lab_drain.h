/*
 * The lab's drain (`lab fragment --drain`): take the free 2 MiB blocks that
 * the fragmenter left, and those that reclaim and compaction build while it
 * holds, with huge-page faults kept until the end. See lab_drain.c.
 */
#ifndef LSC_TOOLS_LAB_DRAIN_H
#define LSC_TOOLS_LAB_DRAIN_H

#include <stddef.h>
#include <stdint.h>

/* The drain faults and judges chunks of this size (32 huge pages). */
#define LAB_DRAIN_CHUNK (64 << 20)

struct lab_chunk {
	void *map;
	size_t len;
};

struct lab_drain {
	size_t block;            /* the huge-page size */
	unsigned order;          /* of a block, in pages of page bytes */
	long page;
	uint64_t leave;          /* stop while at most this much is free in blocks */
	int (*stop)(void);       /* checked before each chunk: nonzero ends the call (NULL: never) */
	struct lab_chunk *chunks;
	size_t n, cap;
	uint64_t bytes;          /* held in huge pages, all chunks */
	uint64_t faults_4k;      /* bytes a chunk got in 4 KiB pages, given back at once */
};

/*
 * lab_drain_take - fault chunks of huge pages (MADV_HUGEPAGE) until one gets
 * fewer than half of its bytes in huge pages (the free blocks are gone and
 * compaction cannot make more: that chunk, which took 4 KiB holes instead,
 * is unmapped at once), or until taking another chunk would leave less
 * than @keep_free_bytes of MemAvailable (or less than the guard's reserve
 * below a memory cgroup limit, mem_guard.h), or hold more than @max_bytes in
 * all (0: no bound), or while no more than d->leave bytes (plus a chunk)
 * are free in blocks (/proc/buddyinfo). Return: the bytes taken in this
 * call (>= 0), or -errno where /proc/self/smaps_rollup or MemAvailable is
 * unreadable (nothing taken by this call then). Not thread-safe.
 */
int64_t lab_drain_take(struct lab_drain *d, int64_t keep_free_bytes, uint64_t max_bytes);

/* lab_free_blocks - free memory in blocks of d->order and up
 * (/proc/buddyinfo); -errno. lab_mem_available - MemAvailable in bytes;
 * -errno. Both read /proc each call. */
int64_t lab_free_blocks(const struct lab_drain *d);
int64_t lab_mem_available(void);

/* lab_drain_release - unmap every chunk; @d is empty and reusable after. */
void lab_drain_release(struct lab_drain *d);

#endif
