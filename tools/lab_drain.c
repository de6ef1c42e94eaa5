/*
 * The lab's drain: after `lab fragment` has left one pinned page in every
 * 2 MiB block it faulted, the machine still has free 2 MiB blocks outside
 * them (what reclaim freed while the fragmenter faulted), and movable
 * memory (page cache, other processes' pages) that compaction can pack
 * into the 4 KiB holes to build more. Measured on the build VM (2026-12-01,
 * docs/benchmarks.md): with 20 GiB fragmented and 0.02 GiB free in 2 MiB
 * blocks, a 2 GiB `thp` arena still got all its huge pages in 0.42 s
 * (compact_stall +945, compact_fail +191): compaction had 3 GiB of page
 * cache to move. So the drain takes those blocks itself, with huge-page
 * faults that it keeps: each fault takes a free block, or compacts one
 * together out of movable memory (and reclaims clean cache) as an engine's
 * fault would, until compaction has nothing left to build from and the
 * faults come back in 4 KiB pages. What is left is seed 001's state: free
 * memory only in holes that no compaction can merge.
 *
 * Whether a chunk got huge pages is read from the process's AnonHugePages
 * (/proc/self/smaps_rollup) before and after it: the fragmenter's own
 * mapping is MADV_NOHUGEPAGE, so only the drain's chunks count there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "host/procfs.h"
#include "lab_drain.h"
#include "mem_guard.h"

#define CHUNK ((size_t)LAB_DRAIN_CHUNK)
#define ROLLUP_BUF 4096
#define MEMINFO_BUF 8192

static int64_t anon_huge_bytes(void)
{
	char buf[ROLLUP_BUF];
	int64_t kib;

	if (lsc__read_lines("/proc", "self/smaps_rollup", buf, sizeof(buf)) < 0 ||
	    lsc__kv_kib(buf, "AnonHugePages", &kib))
		return -ENOENT;
	return kib * 1024;
}

int64_t lab_free_blocks(const struct lab_drain *d)
{
	char buf[16384];
	int truncated;
	ssize_t n = lsc__read_file("/proc", "buddyinfo", buf, sizeof(buf), &truncated);
	if (n < 0)
		return n;
	return truncated ? -EFBIG : lsc__buddy_free_bytes(buf, d->order, d->page);
}

int64_t lab_mem_available(void)
{
	char mi[MEMINFO_BUF];
	int64_t kib;

	if (lsc__read_lines("/proc", "meminfo", mi, sizeof(mi)) < 0 || lsc__kv_kib(mi, "MemAvailable", &kib))
		return -ENOENT;
	return kib * 1024;
}

static int keep(struct lab_drain *d, void *map, size_t len)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		struct lab_chunk *c = realloc(d->chunks, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		d->chunks = c;
		d->cap = cap;
	}
	d->chunks[d->n].map = map;
	d->chunks[d->n].len = len;
	d->n++;
	return 0;
}

/* One chunk of CHUNK bytes, block-aligned, MADV_HUGEPAGE, every block
 * touched; its huge bytes, or -errno. */
static int64_t take_chunk(struct lab_drain *d, int64_t huge_before)
{
	size_t len = CHUNK + d->block;
	char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED)
		return -errno;
	char *base = (char *)(((uintptr_t)map + d->block - 1) & ~((uintptr_t)d->block - 1));
	if (madvise(base, CHUNK, MADV_HUGEPAGE)) {
		int e = errno;
		munmap(map, len);
		return -e;
	}
	for (size_t off = 0; off < CHUNK; off += d->block)
		base[off] = 1;
	int64_t after = anon_huge_bytes();
	int64_t got = after < 0 ? after : after - huge_before;
	if (got < (int64_t)(CHUNK / 2)) {
		/* The blocks are gone: this chunk took holes instead. */
		munmap(map, len);
		if (got >= 0)
			d->faults_4k += CHUNK - (uint64_t)got;
		return got < 0 ? got : 0;
	}
	if (keep(d, map, len) < 0) {
		munmap(map, len);
		return -ENOMEM;
	}
	d->bytes += (uint64_t)got;
	return got;
}

int64_t lab_drain_take(struct lab_drain *d, int64_t keep_free_bytes, uint64_t max_bytes)
{
	int64_t taken = 0;

	for (;;) {
		if (d->stop && d->stop())
			return taken;
		/* --keep-free below MemAvailable, and the reserve below any
		 * memory cgroup limit: a drain in a container stops at its limit. */
		int64_t may = lsc_cli_mem_may_take(keep_free_bytes), huge = anon_huge_bytes();
		if (may < 0 || huge < 0)
			return taken ? taken : -ENOENT;
		if (may < (int64_t)CHUNK || (max_bytes && d->bytes + CHUNK > max_bytes))
			return taken;
		if (d->leave) {
			int64_t fb = lab_free_blocks(d);
			if (fb < 0)
				return taken ? taken : fb;
			if ((uint64_t)fb <= d->leave + CHUNK)
				return taken;
		}
		int64_t got = take_chunk(d, huge);
		if (got < 0)
			return taken ? taken : got;
		if (got == 0)
			return taken;
		taken += got;
	}
}

void lab_drain_release(struct lab_drain *d)
{
	for (size_t i = 0; i < d->n; i++)
		munmap(d->chunks[i].map, d->chunks[i].len);
	free(d->chunks);
	d->chunks = NULL;
	d->n = d->cap = 0;
	d->bytes = 0;
}
