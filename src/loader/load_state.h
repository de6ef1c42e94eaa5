/*
 * The state one lsc_load() carries through its steps: the opened files,
 * the manifest cut into chunks, the staging buffers, the running hash, the
 * per-phase clocks. load.c orders the steps (validate -> open -> allocate
 * -> pin -> read -> summary) and owns this state; the read path
 * (loader/read/, whose steps read.h declares) works on it, and the load's
 * own small steps (progress, the memory guard, the descriptor budget, the
 * file checks, the summaries) are declared here beside it. None of this is
 * public: the embedder sees only loader.h.
 */
#ifndef LSC_LOADER_LOAD_INTERNAL_H
#define LSC_LOADER_LOAD_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <loadscope/loader.h>

#include "loader/arena.h"
#include "loader/lines.h"
#include "pin/phase.h"

/* Registered buffers are limited to 1 GiB each by the kernel. */
#define LSC__REG_MAX (1ull << 30)
/* O_DIRECT alignment we honour (offset, length and buffer). */
#define LSC__DIO_ALIGN 4096ull
/* The name of the device copies' phase (a kind of copy). */
#define LSC__DEVICE_COPY "device copy"

struct lsc__lfile {
	const char *path;      /* the caller's string */
	int fd;
	int direct;            /* opened with O_DIRECT (still) */
	uint64_t size;
	struct timespec mtime;
	dev_t dev;
	ino_t ino;
};

struct lsc__lext {
	unsigned file;
	uint64_t off, len;     /* resolved: UINT64_MAX replaced by the file's rest */
	uint64_t arena_off;    /* in the arena, or in the caller's destination @dest */
	uint32_t dest;
	unsigned char *mem;    /* where its first byte goes (NULL: an empty arena) */
	uint64_t first_chunk, n_chunks;
};

/* A piece of one extent, at most one staging buffer (or one registered
 * arena piece) long. */
struct lsc__chunk {
	uint32_t ext;
	uint32_t len;
	uint64_t off_in_ext;
	uint8_t done;          /* bytes are in the arena, not yet hashed */
	uint8_t staged;        /* read into a staging buffer, then copied */
};

struct lsc__staging {
	unsigned count;        /* K */
	uint64_t bytes;        /* C, page-aligned */
	unsigned char *base;   /* K * C bytes, one mapping */
	uint64_t map_bytes;
	const char *pinned_by; /* "mlock", a pin backend's name, or NULL */
	const struct lsc__pin_ops *pin_ops;
};

/* A lsc_arena: the public handle. */
struct lsc_arena {
	struct lsc__arena a;
	struct lsc_load_stats st;
	size_t n_ext;
	uint64_t *hash;        /* n_ext */
	unsigned char *hashed; /* n_ext */
	const struct lsc__pin_ops *dev_ops; /* device copy (CAP_DEVICE), or NULL */
	struct lsc__dev *dev;
};

struct lsc__reader_ops;

struct lsc__load {
	lsc_profiler *p;
	struct lsc_load_options o;
	const struct lsc_extent *ext;
	size_t n_ext;
	size_t n_tensors;      /* of model files (model.c), for the stats and `loaded` */
	struct lsc__lfile *files;
	unsigned n_files;
	struct lsc__lext *lx;
	struct lsc__chunk *chunks;
	uint64_t n_chunks;
	uint64_t total_bytes;
	struct lsc_arena *out;
	/* The pin backend the options ask for (or a test's), known before the
	 * allocate phase; its ranges mark every phase (phase.h). */
	const struct lsc__pin_ops *pin;

	/* pipeline choices */
	const struct lsc__reader_ops *rd;
	unsigned K, Q;
	uint64_t C;
	int to_arena;          /* reads land in the arena where they can (no copy) */
	uint64_t n_staged;     /* chunks that go through staging (all, or O_DIRECT tails) */
	int async;             /* IOSQE_ASYNC: page-cache copies on io-wq workers */
	int register_bufs;     /* register the buffers as fixed: 1, 0, or -1 (the staging
	                        * buffers, and the arena where it is all huge pages) */
	int verify;
	int direct_wanted;
	struct lsc__staging stg;

	/* device copy: each chunk, once in the arena, is queued to the device
	 * on slot (chunk % dev_slots); a slot is waited for before reuse. */
	unsigned dev_slots;
	uint64_t dev_ns;       /* busy time in dev_copy and dev_wait */

	/* what happened */
	uint64_t read_ns, copy_ns, verify_ns;
	uint64_t bytes_done;
	int fixed_bufs, fixed_files, async_applied; /* what the reader really does */
	int arena_fixed;             /* the arena's pieces were registered */
	char arena_unreg_why[96];    /* why not, when the reads land in the arena; "" */

	/* lsc_load_into: the memory is the caller's (no arena is built), in
	 * one destination or several (lsc_load_into_many). */
	int caller_memory;
	const struct lsc_dest *dst; /* the caller's destinations (lsc_load_into_many) */
	size_t n_dst;

	/* progress (progress.c): the last call's bytes and time, and calls made */
	uint64_t prog_last, prog_last_ns;
	unsigned prog_calls;
	/* What progress.c records before each call, in case it never returns:
	 * the reader while it is set up (pipeline.c), and the load result
	 * that was current before this load's (load.c). */
	const struct lsc__reader_ops *rd_live_ops;
	struct lsc__reader *rd_live;
	struct lsc_load_result *result_prev;
};

/* ---- progress and cancel (progress.c) ------------------------------------ */

/* @done bytes are in place: call the caller's progress callback when the
 * rate allows. Return 0, or -ECANCELED (its line printed) when it asks. */
int lsc__progress(struct lsc__load *L, uint64_t done);
/* The last call, done == total. 0 or -ECANCELED. */
int lsc__progress_end(struct lsc__load *L);
/* At the start of every load: release what an earlier load of this thread
 * kept when its progress callback left without returning (a longjmp, an
 * exception), one note line on @p saying so. */
void lsc__progress_reclaim(lsc_profiler *p);

/* ---- the summaries (summary.c; the other lines: lines.h) ---------------- */

/* The two summary lines that close a load. */
struct lsc_vmstat;
void lsc__load_summary(const struct lsc__load *L, const struct lsc_vmstat *vm0,
		       const struct lsc_vmstat *vm1);

/* ---- the arena's memory guard (mem_guard.c) ------------------------------ */

/* Refuse (one `error what=allocate` line, -ENOMEM) an arena of @bytes that
 * the tightest bound of mem_guard.h less its reserve cannot hold, unless
 * the caller overrides. */
int lsc__arena_mem_guard(lsc_profiler *p, const struct lsc_load_options *o, uint64_t bytes);

/* ---- the descriptors a load may take (fd_budget.c) ------------------------ */

/* Descriptors a load holds besides its files: the io_uring ring. */
#define LSC__FD_RING 1u
/* Descriptors of RLIMIT_NOFILE a load leaves to the rest of the process. */
#define LSC__FD_HEADROOM 32u
/* Refuse (-EMFILE, one line) @n_files files that would leave fewer than
 * LSC__FD_HEADROOM descriptors free. */
int lsc__fd_budget(lsc_profiler *p, unsigned n_files);

/* ---- what a load accepts as a file (file_kind.c) ------------------------- */

/* Before opening: refuse a path that is not a regular file or a block
 * device (a FIFO would block open()), with one line. 0 or a negative errno. */
int lsc__file_precheck(lsc_profiler *p, const char *path);
/* After opening and fstat (@st): the same check on the descriptor, clear
 * O_NONBLOCK, refuse pseudo file systems; set f->size. 0 or a negative
 * errno (line printed). */
struct stat;
int lsc__file_check(lsc_profiler *p, struct lsc__lfile *f, const struct stat *st);

#endif
