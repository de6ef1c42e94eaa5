/*
 * lsc_load(): the order of a load, and the one place that releases what it
 * took when any step fails.
 *
 *   validate the manifest -> open the files (stat, size checks, remember
 *   size and mtime) -> allocate + prefault the arena (arena.c) -> pin it ->
 *   read / copy / verify (pipeline.c) -> check the files did not change ->
 *   the `complement ready` and `loaded` lines (summary.c)
 *
 * Why files are checked twice: a weights file rewritten while it is read
 * gives an arena that matches neither version; size or mtime differing at
 * the end (of the descriptor that was read) fails the load with
 * LSC_E_CHANGED rather than serving it.
 *
 * Defaults for the read path (K staging buffers of C bytes, queue depth Q,
 * reads into the arena or through staging, IOSQE_ASYNC) were chosen by
 * measurement on the build machine: docs/benchmarks.md, "Loader". Three
 * environment variables override the path for benchmarks, read once per
 * load: LOADSCOPE_READ_PATH=arena|staging, LOADSCOPE_READ_ASYNC=0|1 and
 * LOADSCOPE_READ_FIXED=0|1 (register buffers with io_uring; unset: the
 * staging buffers, and the arena where it is all huge pages, pipeline.c);
 * a bad value is one usage line and the default (loader/env.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "host/procfs.h"
#include "loader/env.h"
#include "loader/read/read.h"
#include "loader/read/reader.h"
#include "loader/result.h"
#include "sys/sys.h"
#include "profiler/internal.h"

/* Measured defaults (docs/benchmarks.md, "Loader", 2026-11-30): reads
 * straight into the arena (an arena of huge pages, registered) with
 * IOSQE_ASYNC at queue depth 4 were the fastest of the variants
 * (4.48 GiB/s; unregistered 0.99x, inline 0.89x, pread 0.87x, any staging
 * 0.44-0.56x); among staging layouts 8 x 4 MiB at depth 8 led. */
#define DEF_STAGING_COUNT 8u
#define DEF_STAGING_BYTES (4ull << 20)
#define DEF_ARENA_CHUNK (16ull << 20)
#define DEF_QD 4u
#define DEF_TO_ARENA 1
#define DEF_ASYNC 1
#define DEF_FIXED -1 /* staging buffers, and the arena where it is all huge pages */

const struct lsc__reader_ops *lsc__reader_forced;

void lsc__reader_override(const struct lsc__reader_ops *ops)
{
	lsc__reader_forced = ops;
}

static int cmp_path(const void *a, const void *b, void *ctx)
{
	const struct lsc_extent *e = ctx;
	return strcmp(e[*(const size_t *)a].path, e[*(const size_t *)b].path);
}

/* By destination, then by offset in it (one destination but for
 * lsc_load_into_many). */
static int cmp_arena(const void *a, const void *b, void *ctx)
{
	const struct lsc__lext *x = &((const struct lsc__lext *)ctx)[*(const size_t *)a];
	const struct lsc__lext *y = &((const struct lsc__lext *)ctx)[*(const size_t *)b];
	if (x->dest != y->dest)
		return x->dest < y->dest ? -1 : 1;
	return x->arena_off < y->arena_off ? -1 : x->arena_off > y->arena_off;
}

static int cmp_dest(const void *a, const void *b)
{
	uintptr_t u = (uintptr_t)(*(const struct lsc_dest *const *)a)->addr;
	uintptr_t v = (uintptr_t)(*(const struct lsc_dest *const *)b)->addr;
	return u < v ? -1 : u > v;
}

/* The caller's destinations: 1 to LSC_DESTS_MAX, each with an address
 * when it has bytes, none overlapping another. 0 or -EINVAL (its line). */
static int check_dests(struct lsc__load *L)
{
	const struct lsc_dest *sorted[LSC_DESTS_MAX];
	size_t n = 0;
	if (L->n_dst < 1 || L->n_dst > LSC_DESTS_MAX || !L->dst) {
		lsc__load_error(L->p, "options", NULL, 0, -EINVAL,
				"%zu destinations (1 to %u)", L->dst ? L->n_dst : 0, LSC_DESTS_MAX);
		return -EINVAL;
	}
	for (size_t i = 0; i < L->n_dst; i++) {
		const struct lsc_dest *d = &L->dst[i];
		if (!d->addr && d->len && L->n_dst > 1) { /* one: "no memory to load" below */
			lsc__load_error(L->p, "options", NULL, 0, -EINVAL,
					"destination %zu has %zu bytes but no address", i, d->len);
			return -EINVAL;
		}
		if ((uintptr_t)d->addr + d->len < (uintptr_t)d->addr) {
			lsc__load_error(L->p, "options", NULL, 0, -EINVAL,
					"destination %zu: address + length overflows", i);
			return -EINVAL;
		}
		if (d->len)
			sorted[n++] = d;
	}
	qsort(sorted, n, sizeof(*sorted), cmp_dest);
	for (size_t k = 1; k < n; k++) {
		if ((uintptr_t)sorted[k - 1]->addr + sorted[k - 1]->len > (uintptr_t)sorted[k]->addr) {
			lsc__load_error(L->p, "options", NULL, 0, -EINVAL,
					"destinations %zu and %zu overlap", (size_t)(sorted[k - 1] - L->dst),
					(size_t)(sorted[k] - L->dst));
			return -EINVAL;
		}
	}
	return 0;
}

/* Extent @i's destination: each ends within it. 0 or -EINVAL (its line). */
static int check_dest_of(struct lsc__load *L, size_t i)
{
	const struct lsc__lext *x = &L->lx[i];
	const char *path = L->ext[i].path;
	uint64_t fo = L->ext[i].file_offset;
	if (!L->caller_memory || L->n_dst == 1) {
		if (x->dest == 0)
			return 0;
		lsc__load_error(L->p, "manifest", path, fo, -EINVAL,
				"extent %zu names destination %u, but this load has one", i, x->dest);
		return -EINVAL;
	}
	if (x->dest >= L->n_dst) {
		lsc__load_error(L->p, "manifest", path, fo, -EINVAL,
				"extent %zu names destination %u of %zu", i, x->dest, L->n_dst);
		return -EINVAL;
	}
	const struct lsc_dest *d = &L->dst[x->dest];
	if (x->arena_off + x->len > d->len) {
		lsc__load_error(L->p, "manifest", path, fo, -EINVAL,
				"extent %zu ends at %" PRIu64 ", past destination %u (%s) of %zu bytes", i,
				x->arena_off + x->len, x->dest, d->name ? d->name : "memory", d->len);
		return -EINVAL;
	}
	return 0;
}

/* One file per distinct path, opened, statted and checked. */
static int open_files(struct lsc__load *L, size_t *idx)
{
	for (size_t i = 0; i < L->n_ext; i++)
		idx[i] = i;
	qsort_r(idx, L->n_ext, sizeof(*idx), cmp_path, (void *)L->ext);
	for (size_t k = 0; k < L->n_ext; k++) {
		size_t i = idx[k];
		if (!k || strcmp(L->ext[i].path, L->ext[idx[k - 1]].path)) {
			struct lsc__lfile *f = &L->files[L->n_files++];
			f->path = L->ext[i].path;
			f->fd = -1;
		}
		L->lx[i].file = L->n_files - 1;
	}
	int budget = lsc__fd_budget(L->p, L->n_files);
	if (budget < 0)
		return budget;
	for (unsigned i = 0; i < L->n_files; i++) {
		struct lsc__lfile *f = &L->files[i];
		int ret = lsc__file_precheck(L->p, f->path);
		if (ret < 0)
			return ret;
		ret = lsc__file_open(L->p, f, L->direct_wanted);
		if (ret < 0) {
			lsc__load_error(L->p, "open", f->path, 0, ret, "cannot open the file");
			return ret;
		}
		struct stat st;
		if (lsc__sys->fstat(f->fd, &st) != 0) {
			ret = -errno;
			lsc__load_error(L->p, "open", f->path, 0, ret, "fstat");
			return ret;
		}
		if ((ret = lsc__file_check(L->p, f, &st)) < 0)
			return ret;
		f->mtime = st.st_mtim;
		f->dev = st.st_dev;
		f->ino = st.st_ino;
		/* Advice only: readahead in large windows for a cold file. */
		lsc__sys->posix_fadvise(f->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	}
	return 0;
}

/* Resolve lengths, check sizes and overlaps; the arena size. */
static int check_extents(struct lsc__load *L, size_t *idx, uint64_t *arena_bytes)
{
	uint64_t end_max = 0;
	L->total_bytes = 0;
	for (size_t i = 0; i < L->n_ext; i++) {
		const struct lsc_extent *e = &L->ext[i];
		struct lsc__lext *x = &L->lx[i];
		const struct lsc__lfile *f = &L->files[x->file];
		x->off = e->file_offset;
		x->arena_off = e->arena_offset;
		x->dest = e->dest;
		if (e->file_offset > f->size) {
			lsc__load_error(L->p, "manifest", f->path, e->file_offset, LSC_E_SHORT,
					"extent %zu starts past the end of the file (%" PRIu64 " bytes)",
					i, f->size);
			return LSC_E_SHORT;
		}
		x->len = e->length == UINT64_MAX ? f->size - e->file_offset : e->length;
		if (x->len > f->size - e->file_offset) {
			lsc__load_error(L->p, "manifest", f->path, e->file_offset, LSC_E_SHORT,
					"the file is %" PRIu64 " bytes; extent %zu wants %" PRIu64
					" bytes from offset %" PRIu64,
					f->size, i, x->len, e->file_offset);
			return LSC_E_SHORT;
		}
		if (x->arena_off + x->len < x->arena_off) {
			lsc__load_error(L->p, "manifest", f->path, e->file_offset, -EINVAL,
					"extent %zu: arena offset + length overflows", i);
			return -EINVAL;
		}
		int ret = check_dest_of(L, i);
		if (ret < 0)
			return ret;
		if (x->arena_off + x->len > end_max)
			end_max = x->arena_off + x->len;
		L->total_bytes += x->len;
	}
	for (size_t i = 0; i < L->n_ext; i++)
		idx[i] = i;
	qsort_r(idx, L->n_ext, sizeof(*idx), cmp_arena, L->lx);
	/* In arena order, each non-empty extent must start at or after the
	 * furthest end of every non-empty one before it (not only its
	 * neighbour's: an empty extent sorted between two would hide them). */
	uint64_t reach = 0;
	size_t reach_i = 0;
	int any = 0;
	for (size_t k = 0; k < L->n_ext; k++) {
		const struct lsc__lext *b = &L->lx[idx[k]];
		if (!b->len)
			continue;
		if (any && b->dest != L->lx[reach_i].dest)
			any = 0; /* another destination: its offsets start again */
		if (any && b->arena_off < reach) {
			lsc__load_error(L->p, "manifest", L->ext[idx[k]].path, L->ext[idx[k]].file_offset,
					-EINVAL, "extents %zu and %zu overlap in the arena at offset %" PRIu64,
					reach_i, idx[k], b->arena_off);
			return -EINVAL;
		}
		if (!any || b->arena_off + b->len > reach) {
			reach = b->arena_off + b->len;
			reach_i = idx[k];
		}
		any = 1;
	}
	/* 0 asks lsc_load for an arena as large as the extents; the caller's
	 * memory is as large as it says, 0 included; several destinations
	 * were each checked above. */
	if (L->caller_memory && L->n_dst > 1) {
		/* checked per destination */
	} else if (*arena_bytes == 0 && !L->caller_memory) {
		*arena_bytes = end_max;
	} else if (*arena_bytes < end_max) {
		lsc__load_error(L->p, "manifest", NULL, 0, -EINVAL,
				"arena of %" PRIu64 " bytes, but the extents reach %" PRIu64,
				*arena_bytes, end_max);
		return -EINVAL;
	}
	return 0;
}

/* The bytes read must be the bytes of one version of each file. The
 * descriptor holds the inode that was opened, so a rename over the path, a
 * hard link or a chmod (which change the path, nlink or ctime, never the
 * data) leave what was read whole and consistent; only a write changes the
 * data, and a write moves mtime (and, for a truncate or an append, the
 * size). ctime is not compared: it moves for all of the above, and a
 * writer that puts mtime back on purpose (cp -p over a file being loaded,
 * to the nanosecond) is the one case this misses. Block devices are
 * written without moving their node's mtime: not detected. */
static int check_unchanged(struct lsc__load *L)
{
	for (unsigned i = 0; i < L->n_files; i++) {
		const struct lsc__lfile *f = &L->files[i];
		struct stat st;
		if (lsc__sys->fstat(f->fd, &st) != 0) {
			int ret = -errno;
			lsc__load_error(L->p, "read", f->path, 0, ret, "fstat after the load");
			return ret;
		}
		if (S_ISBLK(st.st_mode))
			continue; /* st_size is 0; the size came from lseek */
		if ((uint64_t)st.st_size != f->size || st.st_mtim.tv_sec != f->mtime.tv_sec ||
		    st.st_mtim.tv_nsec != f->mtime.tv_nsec) {
			lsc__load_error(L->p, "read", f->path, 0, LSC_E_CHANGED,
					"the file was written during the load (size %" PRIu64 " -> %" PRIu64
					" bytes, mtime %lld.%09ld -> %lld.%09ld); the arena may hold "
					"bytes of both versions",
					f->size, (uint64_t)st.st_size, (long long)f->mtime.tv_sec,
					f->mtime.tv_nsec, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
			return LSC_E_CHANGED;
		}
		/* Renamed over, or removed: the arena is the file as it was
		 * opened; say so, the path now names something else. */
		struct stat now;
		if (stat(f->path, &now) != 0 || now.st_dev != f->dev || now.st_ino != f->ino) {
			char text[600];
			snprintf(text, sizeof(text),
				 "%s was replaced or removed during the load; the arena holds the file "
				 "as it was opened",
				 f->path);
			lsc_note(L->p, "load", text);
		}
	}
	return 0;
}

static int choose_path(struct lsc__load *L)
{
	const struct lsc_load_options *o = &L->o;
	const char *rd = o->reader ? o->reader : "auto";
	if (lsc__reader_forced)
		L->rd = lsc__reader_forced;
	else if (!strcmp(rd, "pread"))
		L->rd = &lsc__reader_pread;
	else if (!strcmp(rd, "io_uring") || !strcmp(rd, "auto"))
		L->rd = &lsc__reader_uring;
	else {
		lsc__load_error(L->p, "options", NULL, 0, -EINVAL,
				"reader \"%s\" (auto, io_uring or pread)", rd);
		return -EINVAL;
	}
	L->K = o->staging_count ? o->staging_count : DEF_STAGING_COUNT;
	L->async = lsc__env_switch(L->p, LSC__ENV_READ_ASYNC, DEF_ASYNC);
	L->register_bufs = lsc__env_switch(L->p, LSC__ENV_READ_FIXED, DEF_FIXED);
	static const char *const paths[] = {"staging", "arena", NULL}; /* index = to_arena */
	int to_arena = lsc__env_choice(L->p, LSC__ENV_READ_PATH, paths, DEF_TO_ARENA);
	/* Staging sizes asked for mean the caller wants the staging path. */
	if (o->staging_count || o->staging_bytes)
		to_arena = 0;
	/* With O_DIRECT, only 4 KiB-aligned chunks can land in the arena; the
	 * others (unaligned starts, the tail of a file) go through staging. */
	L->to_arena = to_arena;
	/* Through staging, one read per buffer in flight (measured best). */
	L->Q = o->queue_depth ? o->queue_depth : to_arena ? DEF_QD : L->K;
	L->C = o->staging_bytes ? o->staging_bytes : to_arena ? DEF_ARENA_CHUNK : DEF_STAGING_BYTES;
	/* Checked before rounding up, which would wrap a huge value to 0. */
	if (L->C <= LSC__REG_MAX)
		L->C = (L->C + LSC__DIO_ALIGN - 1) & ~(LSC__DIO_ALIGN - 1);
	if (L->Q > 4096 || L->K > 4096 || L->C > LSC__REG_MAX) {
		lsc__load_error(L->p, "options", NULL, 0, -EINVAL,
				"queue depth %u, %u staging buffers of %" PRIu64
				" bytes: at most 4096, 4096 and 1 GiB",
				L->Q, L->K, L->C);
		return -EINVAL;
	}
	return 0;
}

/* Extents of length 0 have no chunks: their hash is the empty input's. */
static int hash_empty(struct lsc__load *L)
{
	for (size_t i = 0; i < L->n_ext; i++) {
		if (L->lx[i].len)
			continue;
		uint64_t h = XXH3_64bits("", 0);
		L->out->hash[i] = h;
		L->out->hashed[i] = 1;
		if (L->ext[i].has_xxh3 && L->ext[i].xxh3 != h) {
			lsc__load_error(L->p, "verify", L->ext[i].path, L->lx[i].off, LSC_E_HASH,
					"extent %zu (0 bytes): XXH3-64 is %016" PRIx64
					", expected %016" PRIx64, i, h, L->ext[i].xxh3);
			return LSC_E_HASH;
		}
	}
	return 0;
}

static void fill_stats(struct lsc__load *L, uint64_t wall_ns)
{
	struct lsc_arena *A = L->out;
	struct lsc_load_stats *st = &A->st;
	memset(st, 0, sizeof(*st));
	st->bytes = L->total_bytes;
	st->arena_bytes = A->a.bytes;
	st->wall_ns = wall_ns;
	/* The `allocate` figure of the lines: the prefault is part of it. */
	st->alloc_ns = A->a.alloc_ns + A->a.prefault_ns;
	st->prefault_ns = A->a.prefault_ns;
	st->pin_ns = A->a.pin_ns;
	st->read_ns = L->read_ns;
	st->copy_ns = L->copy_ns;
	st->verify_ns = L->verify_ns;
	st->pin_segments = A->a.pin_segments;
	st->pin_retries = A->a.pin_retries;
	st->pin_failures = A->a.pin_failures;
	st->thp_applied = A->a.applied;
	st->auto_watch = A->a.auto_watch;
	st->auto_huge_bytes = A->a.auto_huge_bytes;
	st->auto_switched = A->a.auto_switched;
	st->auto_switch_at = A->a.auto_switch_at;
	st->auto_switch_ns = A->a.auto_switch_ns;
	snprintf(st->auto_reason, sizeof st->auto_reason, "%s", A->a.auto_why);
	snprintf(st->pin_applied, sizeof(st->pin_applied), "%s", A->a.pin ? A->a.pin->name : "none");
	snprintf(st->reader_applied, sizeof(st->reader_applied), "%s", L->rd ? L->rd->name : "none");
	for (unsigned i = 0; i < L->n_files; i++)
		st->direct_applied |= L->files[i].direct;
	st->files = L->n_files;
	st->tensors = L->n_tensors;
	st->caller_memory = L->caller_memory;
	/* What smaps shows of the memory: the arena, or every destination. */
	size_t n_ranges = L->caller_memory ? L->n_dst : 1;
	for (size_t i = 0; i < n_ranges; i++) {
		struct lsc_region_info ri;
		void *base = L->caller_memory ? L->dst[i].addr : A->a.base;
		uint64_t len = L->caller_memory ? L->dst[i].len : A->a.bytes;
		if (base && len && lsc_region_read(L->p, base, len, &ri) == 0) {
			st->huge_bytes += ri.anon_huge_bytes + ri.hugetlb_bytes;
			st->locked_bytes += ri.locked_bytes;
		}
	}
	struct lsc__status ps;
	st->process_pin_kib = lsc__status_read(lsc__proc_root(L->p), &ps) == 0 ? ps.pin_kib : -1;
}

/* The per-load tables, freed on success and on failure alike. */
static void free_tables(struct lsc__load *L)
{
	free(L->files);
	free(L->lx);
	free(L->chunks);
	L->files = NULL;
	L->lx = NULL;
	L->chunks = NULL;
}

static void release_files(struct lsc__load *L)
{
	for (unsigned i = 0; L->files && i < L->n_files; i++)
		if (L->files[i].fd >= 0)
			lsc__sys->close(L->files[i].fd);
}

/* The caller's memory: there, and writable where the load writes, before a
 * byte is read: a pread into read-only memory fails with EFAULT, but a copy
 * out of staging (chosen by the options, by LOADSCOPE_READ_PATH=staging, or
 * for an unaligned O_DIRECT tail) would fault and end the process. From
 * /proc/self/maps, so nothing is written to find out; when the maps cannot
 * be read the load goes on (the direct paths still say EFAULT). */
static int check_dst(struct lsc__load *L, void *dst, uint64_t len)
{
	if (len && !dst) {
		lsc__load_error(L->p, "options", NULL, 0, -EINVAL, "no memory to load %" PRIu64 " bytes into",
				L->total_bytes);
		return -EINVAL;
	}
	uintptr_t bad;
	int ret = lsc__region_writable(dst, (size_t)len, &bad);
	if (ret != -EFAULT)
		return 0;
	lsc__load_error(L->p, "options", NULL, 0, -EFAULT,
			"the memory to load into is not writable: byte %" PRIu64 " of %" PRIu64
			" (%p) is in no mapping or in one without write permission",
			(uint64_t)(bad - (uintptr_t)dst), len, (void *)bad);
	return -EFAULT;
}

/* Every destination of the caller's, as check_dst. */
static int check_dsts(struct lsc__load *L)
{
	for (size_t i = 0; i < L->n_dst; i++) {
		int ret = check_dst(L, L->dst[i].addr, L->dst[i].len);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Where each extent's first byte goes, once the memory is there. */
static void place_extents(struct lsc__load *L)
{
	for (size_t i = 0; i < L->n_ext; i++) {
		struct lsc__lext *x = &L->lx[i];
		unsigned char *base = L->caller_memory ? L->dst[x->dest].addr : L->out->a.base;
		x->mem = base ? base + x->arena_off : NULL;
	}
}

/* The memory the bytes go to: the caller's (a view of it, never released
 * by us: no phase of ours), or an arena allocated and pinned. 0 or the
 * error, its line printed. */
static int take_memory(struct lsc__load *L, uint64_t arena_bytes, void *dst)
{
	lsc_profiler *p = L->p;
	struct lsc_arena *A = L->out;
	int ret;
	/* NULL for a name this build lacks: the pin phase says so. */
	L->pin = lsc__pin_wanted(&L->o);
	if (L->caller_memory) {
		A->a.base = arena_bytes && L->n_dst == 1 ? dst : NULL;
		A->a.bytes = A->a.mapped_bytes = arena_bytes;
		L->pin = NULL;
		return 0;
	}
	if (!arena_bytes)
		return 0;
	if ((ret = lsc__arena_mem_guard(p, &L->o, arena_bytes)) < 0)
		return ret;
	if ((ret = lsc__arena_alloc(p, &L->o, arena_bytes, &A->a)) < 0) {
		lsc__load_error(p, "allocate", NULL, 0, ret, "arena of %.2f GiB (%" PRIu64 " bytes)",
				arena_bytes / (1024.0 * 1024 * 1024), arena_bytes);
		return ret;
	}
	if ((ret = lsc__arena_pin(p, &L->o, &A->a)) < 0) {
		lsc__load_error(p, "pin", NULL, 0, ret, "arena of %" PRIu64 " bytes with %s", arena_bytes,
				L->o.pin ? L->o.pin : "none");
		return ret;
	}
	return 0;
}

/* The order of a load, for every entry: into an arena of its own
 * (caller_memory 0: allocate and pin it) or into the caller's
 * destinations (L->dst). */
static int load_run(struct lsc__load *L, uint64_t arena_bytes)
{
	lsc_profiler *p = L->p;
	const struct lsc_extent *ext = L->ext;
	size_t n_ext = L->n_ext;
	if (!ext || !n_ext) {
		lsc__load_error(p, "manifest", NULL, 0, -EINVAL, "no extents to load");
		return -EINVAL;
	}
	for (size_t i = 0; i < n_ext; i++) {
		if (!ext[i].path) {
			lsc__load_error(p, "manifest", NULL, 0, -EINVAL, "extent %zu has no path", i);
			return -EINVAL;
		}
	}
	/* An enum is an int in the struct: 42 was taken as some policy. */
	if ((unsigned)L->o.thp > LSC_THP_PROCESS_OFF) {
		lsc__load_error(p, "options", NULL, 0, -EINVAL,
				"thp %d is not a policy (%d auto to %d process-off)", (int)L->o.thp,
				LSC_THP_AUTO, LSC_THP_PROCESS_OFF);
		return -EINVAL;
	}
	if (L->caller_memory && L->o.device >= 0) {
		lsc__load_error(p, "options", NULL, 0, -EINVAL,
				"device %d: a load into the caller's memory has no arena to hold the "
				"device copy (lsc_load has)", L->o.device);
		return -EINVAL;
	}
	L->direct_wanted = !!(L->o.flags & LSC_LOAD_DIRECT);

	struct lsc_vmstat vm0, vm1;
	lsc_vmstat_read(lsc__proc_root(p), &vm0);
	uint64_t t0 = lsc__now_ns();

	int ret = -ENOMEM;
	size_t *idx = calloc(n_ext, sizeof(*idx));
	L->files = calloc(n_ext, sizeof(*L->files));
	L->lx = calloc(n_ext, sizeof(*L->lx));
	struct lsc_arena *A = calloc(1, sizeof(*A));
	if (A) {
		A->hash = calloc(n_ext, sizeof(*A->hash));
		A->hashed = calloc(n_ext, 1);
		A->n_ext = n_ext;
	}
	L->out = A;
	if (!idx || !L->files || !L->lx || !A || !A->hash || !A->hashed) {
		lsc__load_error(p, "manifest", NULL, 0, ret, "tables for %zu extents", n_ext);
		goto fail;
	}
	if (L->caller_memory) {
		if ((ret = check_dests(L)) < 0)
			goto fail;
		arena_bytes = 0;
		for (size_t i = 0; i < L->n_dst; i++)
			arena_bytes += L->dst[i].len;
	}
	void *dst = L->caller_memory ? L->dst[0].addr : NULL;
	if ((ret = open_files(L, idx)) < 0 || (ret = check_extents(L, idx, &arena_bytes)) < 0)
		goto fail;
	if (L->caller_memory && (ret = L->n_dst == 1 ? check_dst(L, dst, arena_bytes) : check_dsts(L)) < 0)
		goto fail;
	if ((ret = choose_path(L)) < 0)
		goto fail;
	L->verify = !(L->o.flags & LSC_LOAD_NO_VERIFY);
	for (size_t i = 0; i < n_ext; i++)
		L->verify |= ext[i].has_xxh3;

	if ((ret = take_memory(L, arena_bytes, dst)) < 0)
		goto fail;
	place_extents(L);
	if (L->o.device >= 0 && arena_bytes && (ret = lsc__device_open(L)) < 0)
		goto fail;
	if (L->verify && (ret = hash_empty(L)) < 0)
		goto fail;
	if ((ret = lsc__chunks_build(L)) < 0) {
		lsc__load_error(p, "read", NULL, 0, ret, "chunk table");
		goto fail;
	}
	if (L->n_staged && (ret = lsc__staging_init(L, &L->stg, L->K, L->C)) < 0)
		goto fail;
	if (L->n_chunks && (ret = lsc__pipeline_run(L)) < 0)
		goto fail;
	if (!L->n_chunks)
		L->rd = NULL;
	lsc__staging_release(&L->stg);
	if ((ret = check_unchanged(L)) < 0 || (ret = lsc__progress_end(L)) < 0)
		goto fail;

	fill_stats(L, lsc__now_ns() - t0);
	lsc_vmstat_read(lsc__proc_root(p), &vm1);
	lsc__load_summary(L, &vm0, &vm1);
	release_files(L);
	free(idx);
	free_tables(L);
	return 0;

fail:
	lsc__staging_release(&L->stg);
	release_files(L);
	if (A && L->caller_memory) {
		memset(&A->a, 0, sizeof(A->a)); /* the caller's: nothing to release */
		A->dev = NULL;
	}
	lsc_arena_destroy(A);
	L->out = NULL;
	free(idx);
	free_tables(L);
	return ret;
}

static void load_init(struct lsc__load *L, lsc_profiler *p, const struct lsc_load_options *o,
		      const struct lsc_extent *ext, size_t n_ext)
{
	lsc__progress_reclaim(p);
	memset(L, 0, sizeof(*L));
	L->p = p;
	if (o)
		L->o = *o;
	else
		lsc_load_options_init(&L->o);
	L->ext = ext;
	L->n_ext = n_ext;
	L->n_tensors = L->o.tensors;
}

/* lsc_load with the manifest's tensor count (for the stats and `loaded`). */
static int load_tensors(lsc_profiler *p, const struct lsc_load_options *o,
			const struct lsc_extent *ext, size_t n_ext, uint64_t arena_bytes,
			size_t n_tensors, lsc_arena **out)
{
	if (!out)
		return -EINVAL;
	*out = NULL;
	struct lsc__load L;
	load_init(&L, p, o, ext, n_ext);
	if (n_tensors)
		L.n_tensors = n_tensors;
	struct lsc_load_result *prev = lsc__result_begin(L.o.result);
	L.result_prev = prev;
	int ret = load_run(&L, arena_bytes);
	lsc__result_end(prev, ret, L.bytes_done, L.total_bytes);
	if (ret == 0)
		*out = L.out;
	return ret;
}

LSC_API int lsc_load(lsc_profiler *p, const struct lsc_load_options *o,
		     const struct lsc_extent *ext, size_t n_ext, uint64_t arena_bytes,
		     lsc_arena **out)
{
	return load_tensors(p, o, ext, n_ext, arena_bytes, 0, out);
}

/* A manifest is extents, an arena size and a tensor count (model/model.c
 * builds them): loading one is the same load, with the count in `loaded`. */
LSC_API int lsc_load_manifest(lsc_profiler *p, const struct lsc_load_options *o,
			      const struct lsc_manifest *m, lsc_arena **out)
{
	if (!m) {
		if (out)
			*out = NULL;
		return -EINVAL;
	}
	return load_tensors(p, o, m->extents, m->n_extents, m->arena_bytes, m->n_tensors, out);
}

/* Into the caller's destinations: the handle is a view of its memory,
 * freed after the load, never the memory. */
static int load_into(struct lsc__load *L, struct lsc_load_stats *stats)
{
	L->caller_memory = 1;
	struct lsc_load_result *prev = lsc__result_begin(L->o.result);
	L->result_prev = prev;
	int ret = load_run(L, 0);
	lsc__result_end(prev, ret, L->bytes_done, L->total_bytes);
	if (ret == 0) {
		if (stats)
			*stats = L->out->st;
		memset(&L->out->a, 0, sizeof(L->out->a));
		L->out->dev = NULL;
		lsc_arena_destroy(L->out);
	}
	return ret;
}

LSC_API int lsc_load_into(lsc_profiler *p, const struct lsc_load_options *o,
			  const struct lsc_extent *ext, size_t n_ext, void *dst, size_t dst_len,
			  struct lsc_load_stats *stats)
{
	struct lsc__load L;
	const struct lsc_dest one = {.addr = dst, .len = dst_len};
	load_init(&L, p, o, ext, n_ext);
	L.dst = &one;
	L.n_dst = 1;
	return load_into(&L, stats);
}

LSC_API int lsc_load_into_many(lsc_profiler *p, const struct lsc_load_options *o,
			       const struct lsc_extent *ext, size_t n_ext, const struct lsc_dest *dst,
			       size_t n_dst, struct lsc_load_stats *stats)
{
	struct lsc__load L;
	load_init(&L, p, o, ext, n_ext);
	L.dst = dst;
	L.n_dst = n_dst;
	return load_into(&L, stats);
}

LSC_API int lsc_load_manifest_into(lsc_profiler *p, const struct lsc_load_options *o,
				   const struct lsc_manifest *m, void *dst, size_t dst_len,
				   struct lsc_load_stats *stats)
{
	if (!m)
		return -EINVAL;
	struct lsc__load L;
	const struct lsc_dest one = {.addr = dst, .len = dst_len};
	load_init(&L, p, o, m->extents, m->n_extents);
	L.n_tensors = m->n_tensors;
	L.dst = &one;
	L.n_dst = 1;
	return load_into(&L, stats);
}

LSC_API void *lsc_arena_data(const lsc_arena *a)
{
	return a ? a->a.base : NULL;
}

LSC_API uint64_t lsc_arena_size(const lsc_arena *a)
{
	return a ? a->a.bytes : 0;
}

LSC_API void *lsc_arena_device_data(const lsc_arena *a)
{
	if (!a || !a->dev || !a->dev_ops->dev_base)
		return NULL;
	return a->dev_ops->dev_base(a->dev);
}

LSC_API void *lsc_arena_device_ptr(const lsc_arena *a)
{
	return a ? a->a.device_ptr : NULL;
}

LSC_API int lsc_arena_stats(const lsc_arena *a, struct lsc_load_stats *out)
{
	if (!a || !out)
		return -EINVAL;
	*out = a->st;
	return 0;
}

LSC_API int lsc_arena_extent_hash(const lsc_arena *a, size_t i, uint64_t *xxh3)
{
	if (!a || !xxh3 || i >= a->n_ext)
		return -EINVAL;
	if (!a->hashed[i])
		return -ENOENT;
	*xxh3 = a->hash[i];
	return 0;
}

LSC_API void lsc_arena_destroy(lsc_arena *a)
{
	if (!a)
		return;
	if (a->dev)
		a->dev_ops->dev_close(a->dev); /* before the arena it copies from */
	lsc__arena_release(&a->a);
	free(a->hash);
	free(a->hashed);
	free(a);
}
