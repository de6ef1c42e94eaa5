/*
 * loadscope loader: fill one host arena with the bytes of many file extents,
 * page-locked for a GPU, verified, and timed as allocate / pin / read / copy /
 * verify phases on a profiler.
 *
 * The arena is built the way the slow starts in the project's seed reports
 * teach: an anonymous mapping, a page-size policy applied before the first
 * touch (THP requested only where it cannot stall the faulting thread, unless
 * the caller insists), a parallel prefault, then pinning in segments with
 * rollback and a logged fallback chain. Reads go through io_uring (registered
 * files, fixed staging buffers) or, where io_uring is unavailable, pread over
 * the same buffers; every fallback is printed with its reason.
 *
 * Two summary lines close a load: "complement ready" (allocation, pinning and
 * copy separated) and "loaded" (the rate over the whole wall time, then each
 * phase's), in the format of docs/log-format.md.
 *
 * An engine that owns its buffers loads into them with lsc_load_into(); a
 * load reports its progress and can be cancelled (lsc_progress_fn), and
 * hands its fallbacks and its failure back as data (lsc_load_result).
 */
#ifndef LOADSCOPE_LOADER_H
#define LOADSCOPE_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include <loadscope/common.h>
#include <loadscope/profiler.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How the arena's pages are chosen. */
enum lsc_thp_policy {
	LSC_THP_AUTO = 0,    /* decide from the system snapshot (the default) */
	LSC_THP_4K,          /* MADV_NOHUGEPAGE */
	LSC_THP_THP,         /* MADV_HUGEPAGE before the first touch */
	LSC_THP_HUGETLB,     /* MAP_HUGETLB, all or nothing */
	LSC_THP_PROCESS_OFF, /* PR_SET_THP_DISABLE held only around the allocation */
};

/* lsc_thp_policy_name - "auto", "4k", "thp", "hugetlb", "process-off"; "?" */
LSC_API const char *lsc_thp_policy_name(enum lsc_thp_policy p);
/* lsc_thp_policy_parse - the reverse. Return 0 or -EINVAL. */
LSC_API int lsc_thp_policy_parse(const char *s, enum lsc_thp_policy *out);

/* One piece of one file, and where it goes in the arena (or in the
 * caller's memory). */
struct lsc_extent {
	const char *path;
	uint64_t file_offset;
	uint64_t length;       /* UINT64_MAX: to the end of the file */
	uint64_t arena_offset; /* in the arena; with lsc_load_into_many, in dst[dest] */
	uint64_t xxh3;         /* expected XXH3-64 of the bytes, if has_xxh3 */
	int has_xxh3;
	/* Added in 0.4: the destination of lsc_load_into_many() that
	 * arena_offset is an offset into; must be 0 for every other load. */
	uint32_t dest;
};

/* Flags for lsc_load_options.flags. */
#define LSC_LOAD_DIRECT (1u << 0)          /* O_DIRECT; buffered fallback on EINVAL, logged */
#define LSC_LOAD_NO_VERIFY (1u << 1)       /* skip hashing (unless an extent has an expected hash) */
#define LSC_LOAD_HUGETLB_STRICT (1u << 2)  /* hugetlb pool short: fail instead of falling back */
#define LSC_LOAD_PIN_STRICT (1u << 3)      /* wanted pin backend failed: fail instead of falling back */
/* Register the arena read-only for the device (cudaHostRegisterReadOnly;
 * hipHostRegisterReadOnly where the build's HIP headers have it): the GPU
 * only reads the weights. A backend without the flag (mlock, none, HIP 5,
 * memory the runtime allocated itself) ignores it with a `pin` note; a
 * device that refuses it fails the registration, and the chain falls back
 * with the runtime's reason. */
#define LSC_LOAD_PIN_READONLY (1u << 4)
/* Do not refuse an arena larger than the memory the process may take (the
 * tightest of MemAvailable and its memory cgroup limits, each less a reserve:
 * docs/loader.md): for callers who know the memory will be there. Without it
 * such a load fails with -ENOMEM and one `error what=allocate` line before a
 * page is faulted, where faulting would bring the OOM killer. LOADSCOPE_ARENA_MEM_CHECK=0 too. */
#define LSC_LOAD_NO_MEM_CHECK (1u << 5)

/*
 * Progress of a load: @done of @total bytes are in place (read, and copied out of staging; hashing follows a
 * chunk or two behind and is done when the last call comes). Called on the thread that runs the load, at a bounded rate:
 * once the first 1/64 of the total is in, then whenever both another
 * 1/64 of the total and 100 ms of wall time have passed since the last
 * call (whichever comes later), and once at the end with @done == @total
 * (a load of 0 bytes gets only that call). So at most 65 calls per load,
 * and never more often than every 100 ms but for the first and the last.
 * Return 0 to go on; nonzero cancels the load: lsc_load() and
 * lsc_load_into() return -ECANCELED after one `error what=cancel` line,
 * with everything released as for any failure (nothing of the caller's
 * memory). A callback must not call back into the load's profiler.
 *
 * The polarity is the reverse of llama.cpp's llama_progress_callback,
 * which returns true to go on and takes a float fraction: an adapter
 * returns `!llama_cb((float)done / total, user)` (examples/ggml/ shows
 * one). Forwarding llama.cpp's value as is cancels at the first call.
 *
 * It must return. It must not throw (a C++ exception through the
 * library's C frames is undefined behaviour), longjmp out, or end the
 * thread (pthread_exit, pthread_cancel). No library lock is held across
 * the call, so the profiler and other loads go on. A load whose callback
 * left without returning keeps its descriptors (one per distinct file, and
 * the io_uring ring's), the arena (mapped and pinned, VmPin included) or
 * the staging buffers, and its tables, until the next load on the same
 * thread: that one releases them first (waiting for the reads still on the
 * ring, which the kernel would otherwise finish into that memory), with
 * one `note` line saying so. Nothing else can: the load's state was on the
 * stack frames the jump discarded, and another thread cannot tell an
 * abandoned load from one still running. What stays for good: its phase
 * spans, open in the profiler (lsc_profiler_destroy reports them), and a
 * few small tables. Return nonzero instead: that is the way to abandon a
 * load, and it releases everything at once.
 */
typedef int (*lsc_progress_fn)(uint64_t done, uint64_t total, void *user);

/* A fallback of a load as data: what the `fallback` line says. */
struct lsc_fallback {
	char what[16];     /* "pin", "reader", "arena", "direct", "staging", ... */
	char wanted[64];   /* what was asked for */
	char took[64];     /* what was taken instead */
	char reason[320];  /* why (cut to fit; the line has it whole) */
};

#define LSC_FALLBACKS_MAX 16

/*
 * What a load did, as data: every fallback and, for a failed load, the
 * failing step, file, offset and cause, as the lines give them. Filled by
 * lsc_load() and lsc_load_into() when lsc_load_options.result points at
 * one (zeroed by the load at its start, whether the profiler is on or
 * off); read it after the call returns. Fields are only ever added at the
 * end.
 */
struct lsc_load_result {
	unsigned n_fallbacks;      /* entries in fallbacks[] */
	unsigned fallbacks_seen;   /* fallbacks that happened (more than n_fallbacks
	                            * when past LSC_FALLBACKS_MAX) */
	struct lsc_fallback fallbacks[LSC_FALLBACKS_MAX];
	int err;                   /* 0, or what the load returned */
	char err_what[16];         /* the step of the `error` line: "open", "manifest",
	                            * "allocate", "pin", "read", "verify", "device",
	                            * "cancel", ... ("" when err is 0) */
	char err_path[512];        /* the file to blame; "" when none is */
	uint64_t err_offset;       /* the offset in that file */
	char err_cause[512];       /* the cause, as the line says it */
	uint64_t bytes_done;       /* bytes in place when the load ended */
	uint64_t bytes_total;      /* the manifest's bytes */
};

/* Options for lsc_load(). Fill with lsc_load_options_init() first; fields
 * are only ever added at the end. Environment overrides, read once per
 * load: LOADSCOPE_ARENA_THP (a policy name, in any case), LOADSCOPE_ARENA_MEM_CHECK=0
 * (as LSC_LOAD_NO_MEM_CHECK); a bad value is one line and the default
 * (docs/configuration.md). */
struct lsc_load_options {
	enum lsc_thp_policy thp;     /* outside LSC_THP_AUTO..LSC_THP_PROCESS_OFF: -EINVAL */
	const char *pin;             /* "none" (default), "mlock", "cuda", "hip" */
	uint64_t chunk_bytes;        /* allocate the arena in pieces of this size; 0 = one piece */
	uint64_t pin_segment_bytes;  /* pin in segments of this size; default 1 GiB */
	unsigned staging_count;      /* K staging buffers (0 = measured default) */
	uint64_t staging_bytes;      /* of C bytes each (0 = measured default) */
	unsigned queue_depth;        /* io_uring queue depth (0 = measured default) */
	unsigned prefault_threads;   /* 0 = one per online CPU, at most 8 */
	int numa_node;               /* bind the arena and prefault threads; -1 = no binding */
	const char *reader;          /* "auto" (default), "io_uring", "pread" */
	int device;                  /* copy to this GPU as well (pin backend with a device); -1 = host only */
	unsigned flags;              /* LSC_LOAD_* */
	/* Added in 0.3: */
	lsc_progress_fn progress;    /* progress and cancel (above); NULL = none */
	void *progress_user;
	struct lsc_load_result *result; /* fallbacks and the failure as data; NULL = none */
	/* Added in 0.4: */
	size_t tensors;              /* the model tensors the extents hold, for the stats and
	                              * `loaded` (0: not said; a manifest's loads set it) */
};

/* lsc_load_options_init - the defaults. Thread-safe. */
LSC_API void lsc_load_options_init(struct lsc_load_options *o);

typedef struct lsc_arena lsc_arena;

/* What a load did and what it cost. Times in nanoseconds, each the figure
 * of the same name in the `loaded` and `complement ready` lines:
 * alloc_ns is the whole `allocate` phase, the prefault included
 * (prefault_ns is that part of it; before 0.3 alloc_ns left it out, so
 * the struct said 0.000 s where the line said `allocate 0.122 s`);
 * pin_ns the `pin` phase; read_ns the `read` span, inside which copy_ns
 * and verify_ns are busy times that overlap it. wall_ns also holds the
 * opening of the files and the checks around the phases, so it is more
 * than the sum of the phases. For lsc_load_into() the caller allocated
 * and pinned: alloc_ns, prefault_ns and pin_ns are 0 and caller_memory 1. */
struct lsc_load_stats {
	uint64_t bytes;             /* bytes read into the arena */
	uint64_t arena_bytes;
	uint64_t wall_ns;           /* first allocation to the end of the load */
	uint64_t alloc_ns, prefault_ns, pin_ns, read_ns, copy_ns, verify_ns;
	unsigned pin_segments, pin_retries, pin_failures;
	uint64_t huge_bytes;        /* arena bytes backed by huge pages (smaps) */
	enum lsc_thp_policy thp_applied;
	char pin_applied[16];       /* the pin backend that ended up pinning */
	char reader_applied[16];    /* "io_uring" or "pread" */
	int direct_applied;         /* O_DIRECT really used */
	/* added with lsc_load_manifest: */
	unsigned files;             /* distinct files read */
	size_t tensors;             /* tensors of model files (lsc_load_manifest); 0 for lsc_load */
	/* The adaptive `auto` policy (docs/loader.md); 0 and "" otherwise:
	 * auto_watch 1 when the prefault watched its steps; the first
	 * auto_huge_bytes asked for huge pages, the rest for 4 KiB pages; when
	 * a step stalled, auto_switched 1 and the rest of the huge part went to
	 * 4 KiB pages from arena offset auto_switch_at, auto_switch_ns into
	 * the prefault, for auto_reason. */
	int auto_watch;
	uint64_t auto_huge_bytes;
	int auto_switched;
	uint64_t auto_switch_at, auto_switch_ns;
	char auto_reason[256];
	/* Added in 0.3: */
	int caller_memory;          /* 1: lsc_load_into(), the memory is the caller's */
	uint64_t locked_bytes;      /* bytes of the memory locked (smaps Locked: mlock,
	                             * and the runtimes' pinned allocations that lock) */
	int64_t process_pin_kib;    /* VmPin of the whole process at the end of the load
	                             * (pages pinned by a driver or io_uring); -1 n/a */
};

/*
 * lsc_load - allocate an arena, pin it, read the extents into it, verify.
 * @p: profiler for the phase lines (may be NULL or off: the load still runs).
 * @o: options, or NULL for the defaults.
 * @ext, @n_ext: the manifest; extents may come from many files and must not
 *       overlap in the arena.
 * @arena_bytes: the arena size; 0 = the end of the furthest extent.
 * @out: receives the arena, owned by the caller (lsc_arena_destroy).
 *
 * On failure nothing is left behind: the arena, buffers, rings and file
 * descriptors are released, one line names the file, offset and cause, and
 * the error is returned (negative errno or LSC_E_*; LSC_E_HASH for a content
 * mismatch). Never aborts, never exits, never writes to sysfs.
 * Refused before anything is read, each with its line: a path that is not a
 * regular file or a block device (a FIFO, socket, character device or
 * directory; never blocks on one), a file of /proc, /sys or another pseudo
 * file system; more files than RLIMIT_NOFILE leaves 32 descriptors free
 * beside (-EMFILE); an arena larger than MemAvailable less a reserve
 * (-ENOMEM; LSC_LOAD_NO_MEM_CHECK). A file written during the load
 * (its size or mtime moved) fails it with LSC_E_CHANGED; a chmod, a hard
 * link or a file renamed over the path do not. While it runs, a load holds
 * one descriptor per distinct file and one ring; when it returns it holds
 * none, and no page but the arena's own stays pinned. docs/reliability.md
 * has every failure path and limit.
 * Thread-safe for distinct arenas.
 */
/* The stack lsc_load needs on the caller's thread, at most: measured with
 * a painted stack over the pread and io_uring readers, into the arena and
 * through staging, success and failure paths (tests/test_load_stack.c;
 * docs/reliability.md gives the figures). Pin backends that call a GPU
 * runtime (cuda, hip) run the runtime's code on this thread too: its stack
 * is not counted. The prefault threads are the library's own. */
#define LSC_LOAD_STACK_BYTES (64u << 10)

LSC_API int lsc_load(lsc_profiler *p, const struct lsc_load_options *o,
		     const struct lsc_extent *ext, size_t n_ext, uint64_t arena_bytes,
		     lsc_arena **out);

/*
 * lsc_load_into - lsc_load() into memory the caller allocated (llama.cpp's
 * backend buffers, a cudaHostAlloc or mlock'ed buffer): the same checks of
 * the manifest and the files, the same reads, verify, progress, lines and
 * stats, with no arena. The allocate and pin phases are the caller's: no
 * allocate or pin span is opened, and the summary lines say "allocated and
 * pinned by the caller" and give what the profiler can see of the memory
 * (huge-page backing and locked bytes from smaps, the process's VmPin).
 * @dst, @dst_len: the memory; extent arena offsets are offsets into it and
 *       must end within @dst_len. Any alignment (O_DIRECT reads into a
 *       range that is not 4 KiB-aligned go through staging).
 * @stats: if not NULL, receives what the load did (caller_memory = 1).
 * Nothing of @dst is freed, unmapped, madvised, locked or unlocked; the
 * io_uring reader registers it as fixed buffers for the load's duration
 * only where smaps shows it wholly huge pages of one kind on Linux 6.10 or
 * later, or LOADSCOPE_READ_FIXED=1 asks (a fallback line when the kernel
 * refuses memory of that kind), and unregisters it before returning. The options that shape an arena (thp,
 * pin, chunk_bytes, pin_segment_bytes, prefault_threads, numa_node, the
 * HUGETLB_STRICT, PIN_STRICT, PIN_READONLY and NO_MEM_CHECK flags) do not
 * apply and are ignored; device >= 0 is refused with -EINVAL (there is no
 * arena to hold the device copy: use lsc_load). Expected hashes are
 * checked; the computed ones are not kept.
 * Return: 0, or the error lsc_load would give, with its one line; on
 * failure @dst may hold part of the bytes. -EINVAL for a NULL @dst with
 * extents that have bytes; -EFAULT, before a byte is read and on every
 * read path, when any byte of [@dst, @dst + @dst_len) is not in a mapping
 * this process may write (read-only, or a hole; from /proc/self/maps).
 * Thread-safe for distinct @dst.
 */
LSC_API int lsc_load_into(lsc_profiler *p, const struct lsc_load_options *o,
			  const struct lsc_extent *ext, size_t n_ext, void *dst, size_t dst_len,
			  struct lsc_load_stats *stats);

/* One destination of lsc_load_into_many(): memory the caller allocated. */
struct lsc_dest {
	void *addr;          /* its first byte; any alignment */
	size_t len;          /* its bytes */
	const char *name;    /* what it is, for the lines ("CPU", "CUDA_Host"); NULL: "memory N" */
};
#define LSC_DESTS_MAX 64

/*
 * lsc_load_into_many - lsc_load_into() over several destinations, one
 * start's lines for them all: the reads of every destination in one
 * pipeline, one `complement ready` and one `loaded` line. For engines whose
 * tensors live in several buffers (ggml's backend buffers: CPU, CUDA_Host,
 * one per device; a destination per tensor group as kvikio or
 * fastsafetensors take).
 * @dst, @n_dst: the destinations (1 to LSC_DESTS_MAX; none may overlap
 *       another). Extent i goes to dst[ext[i].dest].addr +
 *       ext[i].arena_offset and must end within dst[ext[i].dest].len.
 * Everything else is as lsc_load_into(): nothing of the memory is freed,
 * madvised, locked or unlocked; with more than one destination, none is
 * registered with io_uring as fixed buffers (a registration spans one
 * range); the summary gives what smaps shows of all of them together.
 * Return: 0 or the error lsc_load_into would give, with its one line;
 * -EINVAL (its line) for no destination, more than LSC_DESTS_MAX,
 * overlapping destinations, a NULL address with a non-zero length, an
 * extent whose dest is past @n_dst or that ends past its destination.
 * Thread-safe for distinct destinations.
 */
LSC_API int lsc_load_into_many(lsc_profiler *p, const struct lsc_load_options *o,
			       const struct lsc_extent *ext, size_t n_ext, const struct lsc_dest *dst,
			       size_t n_dst, struct lsc_load_stats *stats);

/* lsc_arena_data / lsc_arena_size - the arena's bytes. Valid until destroy. */
LSC_API void *lsc_arena_data(const lsc_arena *a);
LSC_API uint64_t lsc_arena_size(const lsc_arena *a);

/* lsc_arena_device_data - the device copy when the load had .device >= 0
 * (NULL otherwise). */
LSC_API void *lsc_arena_device_data(const lsc_arena *a);

/*
 * lsc_arena_device_ptr - the device's address of the arena itself: where a
 * GPU kernel reads the pinned host bytes in place (mapped pinned memory,
 * cudaHostGetDevicePointer / hipHostGetDevicePointer), not a copy (that is
 * lsc_arena_device_data). Equal to lsc_arena_data() under unified
 * addressing.
 * Return: the address, valid for the whole arena; NULL for NULL, for an
 * arena that a GPU backend did not pin (none, mlock, a fallback), or when
 * the runtime gave none or no single range for the arena (the `pin` note,
 * or the `arena` line for memory the backend allocated, says why).
 * Owned by the arena: valid until lsc_arena_destroy, on the device(s) the
 * runtime mapped it for. Thread-safe (reads the arena only).
 */
LSC_API void *lsc_arena_device_ptr(const lsc_arena *a);

/* lsc_arena_stats - what the load did. Return 0 or -EINVAL. */
LSC_API int lsc_arena_stats(const lsc_arena *a, struct lsc_load_stats *out);

/* lsc_arena_extent_hash - the XXH3-64 computed for extent @i (when verified).
 * Return 0, -ENOENT (not hashed) or -EINVAL. */
LSC_API int lsc_arena_extent_hash(const lsc_arena *a, size_t i, uint64_t *xxh3);

/* lsc_arena_destroy - unpin, unmap, free. Accepts NULL. */
LSC_API void lsc_arena_destroy(lsc_arena *a);

/* ---- model files as manifests (docs/loader.md, "Model files") ---------- */

/* One tensor of a model file, and the extent that loads it. */
struct lsc_tensor {
	const char *name;       /* as in the header: valid UTF-8, NUL-terminated */
	const char *dtype;      /* safetensors' dtype ("BF16") or ggml's type name ("Q4_K") */
	uint32_t n_dims;
	const uint64_t *dims;   /* safetensors: the shape, outermost first; GGUF: ne[], innermost first */
	size_t extent;          /* its extent: lsc_manifest.extents[extent] */
	size_t file;            /* its file: lsc_manifest.files[file] */
};

/* A manifest built from files. Read-only for the caller; fields are only
 * ever added at the end (the library allocates it). */
struct lsc_manifest {
	const struct lsc_extent *extents; /* for lsc_load: one per tensor, one per plain file */
	size_t n_extents;
	uint64_t arena_bytes;             /* the end of the furthest extent */
	const struct lsc_tensor *tensors; /* the tensors, file by file, in data order */
	size_t n_tensors;
	const char *const *files;         /* the files read, in order (a directory's shards included) */
	size_t n_files;
};

/*
 * lsc_manifest_from_files - the manifest a loader of these files needs, for
 * an engine that does not parse model headers itself.
 * @p: profiler for the one `error` line of a failure (may be NULL or off).
 * @paths, @n: the inputs, in order. Each is:
 *   - a file whose name ends in ".safetensors": its header is read and each
 *     tensor is one extent;
 *   - a file that starts with the GGUF magic (or is named "*.gguf"): the
 *     same, at the file's general.alignment;
 *   - a directory holding model.safetensors.index.json: the shards its
 *     weight_map names, in name order, each read as above, every tensor
 *     checked to be in the shard the index names (a directory holding only
 *     model.safetensors: that file);
 *   - any other file: one extent for the whole file, as before.
 *   Each file's tensors keep their offsets relative to its data section,
 *   which starts at an arena offset aligned to 4 KiB (or the file's
 *   alignment, if larger); files follow each other in the arena.
 * @out: receives the manifest, owned by the caller (lsc_manifest_destroy);
 *       NULL on failure.
 *
 * Return: 0, or a negative errno: -EBADMSG for a malformed header (offsets
 * past the end of the file, overlapping tensors or holes between them,
 * counts the file cannot hold, a header length larger than the file or
 * over the limits, names that are not UTF-8, JSON that does not parse,
 * truncated GGUF KV pairs), -ENOENT, -EISDIR, -ENOMEM, or what a read
 * returned. A failure prints one `error` line (what=model) naming the file,
 * the offset and what is wrong, and leaves nothing allocated or open.
 * Memory is bounded: a safetensors header (and an index.json) over 100 MB
 * and a GGUF header over 1 GiB are refused, as is a manifest of more than
 * 4194304 tensors. Thread-safe; reads the files, never writes them.
 */
LSC_API int lsc_manifest_from_files(lsc_profiler *p, const char *const *paths, size_t n,
				    struct lsc_manifest **out);

/* lsc_manifest_destroy - free a manifest and every string it holds. Accepts NULL. */
LSC_API void lsc_manifest_destroy(struct lsc_manifest *m);

/*
 * lsc_load_manifest - lsc_load(p, o, m->extents, m->n_extents,
 * m->arena_bytes, out), with the tensor count in the `loaded` line and in
 * lsc_load_stats.tensors. The manifest may be destroyed once it returns.
 * Return and thread safety: lsc_load's (-EINVAL for a NULL @m).
 */
LSC_API int lsc_load_manifest(lsc_profiler *p, const struct lsc_load_options *o,
			      const struct lsc_manifest *m, lsc_arena **out);

/*
 * lsc_load_manifest_into - the manifest into memory the caller allocated:
 * lsc_load_into(p, o, m->extents, m->n_extents, dst, dst_len, stats) with
 * the tensor count. Allocate m->arena_bytes: every tensor lands at
 * dst + m->extents[t->extent].arena_offset (lsc_manifest_tensor() finds a
 * tensor by name). To scatter the tensors over buffers of the engine's
 * own, copy the extents, set each one's dest and arena_offset, and call
 * lsc_load_into_many() with .tensors set. Return and thread safety:
 * lsc_load_into's (-EINVAL for a NULL @m).
 */
LSC_API int lsc_load_manifest_into(lsc_profiler *p, const struct lsc_load_options *o,
				   const struct lsc_manifest *m, void *dst, size_t dst_len,
				   struct lsc_load_stats *stats);

/*
 * lsc_manifest_tensor - the tensor of @m called @name (as its header names
 * it), as llama.cpp's loader finds a tensor's metadata by name.
 * Return: the tensor, owned by the manifest (valid until
 * lsc_manifest_destroy); NULL when no tensor has that name, or for a NULL
 * argument. O(log n): the manifest keeps its names sorted. Thread-safe
 * (reads the manifest only).
 */
LSC_API const struct lsc_tensor *lsc_manifest_tensor(const struct lsc_manifest *m, const char *name);

#ifdef __cplusplus
}
#endif
#endif
