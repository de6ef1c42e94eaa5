/*
 * loadscope profiler: startup phases, timed and explained.
 *
 * An engine creates one profiler per process, opens one *start* (one process
 * run from launch to "ready"), and wraps each step of its startup in a phase
 * span: allocate, pin, read, copy, verify or a named custom phase. Each span,
 * when it ends, prints one line with its wall time, the thread's CPU time, the
 * process's page faults, the /proc/vmstat counters that explain memory stalls
 * (compaction, THP fallbacks, direct reclaim, swap) and the process's
 * resident, locked and pinned memory. The start prints a snapshot of the
 * memory settings once, and its end gives the time no phase covered.
 *
 * Lines follow the grammar of docs/log-format.md: a tag and format version
 * ("[loadscope/1]"), human text with units, then key=value fields; or one JSON
 * object per line. Every line is handed to the sink in one call, complete and
 * newline-terminated, as soon as it exists: a start that hangs must still
 * leave its last lines in the log.
 *
 * The profiler is meant to stay on in every build. When it is off (by option
 * or LOADSCOPE=off) every call returns at once and costs a branch. Spans,
 * phase records and notes allocate no heap memory: spans live in a fixed
 * table, lines are built on the stack. (The start's system snapshot, the
 * watchdog thread and the trace file are set up once, outside that path;
 * with a trace, a span's begin and end and a marked line each also cost
 * one write(2) to it.)
 *
 * What a profiler holds inside the host process:
 * - memory: about 31 KiB per profiler (32168 bytes on x86-64, the start's
 *   phase table included), plus 1416 bytes (x86-64) when a trace file was
 *   asked for (events are written as they happen, not kept);
 * - descriptors: none of its own between calls. The profilers of a process
 *   share the /proc/vmstat, /proc/self/status and /proc/pressure/memory
 *   descriptors their spans read, one set per proc root, at most 4 sets:
 *   never more than 12 descriptors however many profilers there are (a profiler past that
 *   opens the files at each read). During a call, a few more for as long
 *   as it lasts (the start's system snapshot); and the trace file's own,
 *   from its first event until destroy, when one was asked for;
 * - threads: one watchdog thread, from the first start until destroy
 *   (none with LSC_PROFILER_NO_WATCHDOG); it is joined by destroy; its
 *   stack is 256 KiB whatever the process default (about 46 KiB of it the
 *   watchdog's own, measured; the rest is for a sink, which it calls);
 * - stack: a call uses about 30 KiB of the calling thread's stack (measured
 *   at 30056 bytes on x86-64, gcc 12 -O2, by tests/test_profiler_host.c);
 *   give a thread that calls the profiler at least 64 KiB.
 */
#ifndef LOADSCOPE_PROFILER_H
#define LOADSCOPE_PROFILER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <loadscope/common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lsc_profiler lsc_profiler;

/* A span handle. 0 is never a live span: it is what a profiler that is off
 * hands out, and every call accepts it as a no-op. */
typedef uint32_t lsc_span;

enum lsc_phase_kind {
	LSC_PHASE_CUSTOM = 0,
	LSC_PHASE_ALLOCATE,
	LSC_PHASE_PIN,
	LSC_PHASE_READ,
	LSC_PHASE_COPY,
	LSC_PHASE_VERIFY,
	LSC_PHASE_KIND_COUNT
};

/* lsc_phase_name - "custom", "allocate", "pin", "read", "copy", "verify";
 * "?" for an out-of-range value. Static string, thread-safe. */
LSC_API const char *lsc_phase_name(enum lsc_phase_kind kind);

enum lsc_format {
	LSC_FORMAT_HUMAN = 0, /* "[loadscope/2] phase allocate: ... | key=value ..." */
	LSC_FORMAT_JSON = 1,  /* {"loadscope":2,"event":"phase",...} */
};

/*
 * The /proc/vmstat counters a span reports as deltas (nr_free_pages is a
 * level; its delta is reported like the others). allocstall is the sum of
 * every allocstall_* zone line, since the kernel has no total.
 */
enum lsc_vm_counter {
	LSC_VM_COMPACT_STALL = 0,
	LSC_VM_COMPACT_FAIL,
	LSC_VM_COMPACT_SUCCESS,
	LSC_VM_THP_FAULT_ALLOC,
	LSC_VM_THP_FAULT_FALLBACK,
	LSC_VM_THP_FAULT_FALLBACK_CHARGE,
	LSC_VM_ALLOCSTALL,
	LSC_VM_PGSCAN_DIRECT,
	LSC_VM_PGSTEAL_DIRECT,
	LSC_VM_PGFAULT,
	LSC_VM_PGMAJFAULT,
	LSC_VM_PSWPIN,
	LSC_VM_PSWPOUT,
	LSC_VM_NR_FREE_PAGES,
	LSC_VM_COUNT
};

/* lsc_vm_name - the /proc/vmstat name of a counter ("allocstall" for the
 * sum). Static string; NULL when out of range. Thread-safe. */
LSC_API const char *lsc_vm_name(enum lsc_vm_counter c);

/* Where lines go: called once per line with the complete line (newline
 * included, NUL-terminated at line[len]). Called from the thread that
 * produced the line, or from the watchdog thread; calls never overlap (the
 * profiler serialises them). Must not call back into any profiler. Must
 * return: it must not throw (a C++ exception through the library's C
 * frames is undefined behaviour), longjmp out or end the thread. No
 * library lock is held across the call, and a call that left without
 * returning is survived where it can be: the next line of the same thread
 * takes the turn back (one usage line says so), after which the other
 * threads' lines and lsc_profiler_destroy go on; until that thread calls
 * the profiler again, other threads' lines wait. A sink that calls back
 * into its own profiler gets a few nested lines, then the rest is dropped
 * with one usage line, rather than recursing without end. A sink
 * that blocks holds up the thread whose line it is taking and the next
 * lines of the same profiler, nothing else: a fork() in any thread returns
 * at once, and the child starts with the sink free (the line that was in
 * it belongs to the parent and is not repeated). A sink may start
 * processes (posix_spawn, popen, system, or fork then exec). */
typedef void (*lsc_sink_fn)(void *user, const char *line, size_t len);

/*
 * The level of a line, for an engine that maps lines onto its own log
 * levels (llama.cpp's ggml_log_level, spdlog's, glog's):
 * - LSC_LEVEL_ERROR: `error` lines (a load or step that failed), and an
 *   `arena` line with an err field (the arena could not be built);
 * - LSC_LEVEL_WARN: `fallback` (what was wanted was not taken), `usage`
 *   (API misuse), `warn` (the probe's findings), `still` (the watchdog: a
 *   phase open for longer than watchdog_after_s), and a `phase` line of a
 *   phase that failed (failed=1);
 * - LSC_LEVEL_NOTE: `note` lines (a decision or a detail worth reading:
 *   the pin notes, a file replaced during a load, the KFD counts);
 * - LSC_LEVEL_INFO: everything else (start, system, phase, region, ready,
 *   arena, complement, loaded, ok).
 */
enum lsc_level {
	LSC_LEVEL_INFO = 0,
	LSC_LEVEL_NOTE,
	LSC_LEVEL_WARN,
	LSC_LEVEL_ERROR,
};

/* lsc_level_name - "info", "note", "warn", "error"; "?" out of range.
 * Static string, thread-safe. */
LSC_API const char *lsc_level_name(enum lsc_level level);

/* A sink that knows levels: as lsc_sink_fn, with the line's level and its
 * event name ("phase", "fallback", ...: docs/log-format.md; a static
 * string) beside the same complete line. Same threading rules. */
typedef void (*lsc_sink_level_fn)(void *user, enum lsc_level level, const char *event,
				  const char *line, size_t len);

enum lsc_mode {
	LSC_MODE_DEFAULT = 0, /* on, unless the LOADSCOPE variable says otherwise */
	LSC_MODE_ON,
	LSC_MODE_OFF,
};

/* Flags for lsc_profiler_options.flags. */
#define LSC_PROFILER_IGNORE_ENV (1u << 0)   /* do not read LOADSCOPE / LOADSCOPE_TRACE */
#define LSC_PROFILER_NO_WATCHDOG (1u << 1)  /* no watchdog thread */
/* Human lines with every field and every line (the nested and overlapped
 * phases, the pin note): what LOADSCOPE=verbose sets. The default lines are
 * brief (at most 200 characters for a load of one file; their sentence has
 * every figure) and JSON lines always carry everything (docs/log-format.md). */
#define LSC_PROFILER_VERBOSE (1u << 2)

/*
 * Options for lsc_profiler_create(). Always fill with
 * lsc_profiler_options_init() first: fields are only ever added at the end.
 */
struct lsc_profiler_options {
	FILE *stream;          /* sink when .sink is NULL; default stderr. Each
	                        * line is written with one fwrite + fflush,
	                        * SIGPIPE and SIGXFSZ blocked on the writing
	                        * thread for it (one the write raised is
	                        * consumed). The first failed write (EPIPE:
	                        * the reader went away; EFBIG: the file size
	                        * limit; not EAGAIN, which loses one line)
	                        * stops the stream: no line is written
	                        * to it again, its error flag stays set, and
	                        * the trace file, if any, gets a `fallback
	                        * what=lines` record saying why. */
	lsc_sink_fn sink;      /* if set, lines go here instead of .stream */
	void *sink_user;
	const char *prefix;    /* prepended to every line, e.g. "strata generate: "
	                        * (copied; at most 63 bytes; a control character,
	                        * newline or tab included, is -EINVAL: one sink
	                        * call carries exactly one line) */
	enum lsc_format format; /* a value outside the enum: -EINVAL */
	enum lsc_mode mode;     /* the same */
	const char *proc_root; /* "/proc" by default; tests point it at fixtures (copied) */
	const char *sys_root;  /* "/sys" by default (copied) */
	const char *trace_path;/* Chrome trace-event JSON (the array form),
	                        * written here event by event as the start goes,
	                        * so a killed start leaves a readable trace
	                        * (copied; docs/trace.md); default:
	                        * $LOADSCOPE_TRACE, else none. "%p" is the pid of
	                        * the writing process: a forked child writes its
	                        * own file, never its parent's. The path must be
	                        * absent, empty or an earlier trace: a device
	                        * (/dev/null), FIFO, directory, symbolic link,
	                        * another program's file or another live
	                        * process's trace is left alone and no trace is
	                        * written, said in one note line. */
	double watchdog_after_s; /* a span open this long gets "still in" lines; default 5;
	                          * 0.01 to 86400, else -EINVAL */
	double watchdog_every_s; /* interval between them; default 5; same range */
	unsigned flags;        /* LSC_PROFILER_* */
	/* Added in 0.3: */
	lsc_sink_level_fn sink_level; /* if set, lines go here (with .sink_user),
	                        * instead of .sink and .stream */
};

/* lsc_profiler_options_init - fill *o with the defaults. Thread-safe. */
LSC_API void lsc_profiler_options_init(struct lsc_profiler_options *o);

/*
 * lsc_profiler_create - make a profiler.
 * @o: options, or NULL for the defaults. Read, not kept: strings are copied.
 * @out: receives the handle; owned by the caller, released with
 *       lsc_profiler_destroy().
 *
 * The LOADSCOPE environment variable, read here once, overrides .mode and
 * .format unless LSC_PROFILER_IGNORE_ENV is set: "off" (or "0", "no"), "on"
 * (or "1", "yes"), "json", "verbose" (human lines with every field and
 * line: LSC_PROFILER_VERBOSE), in any case ("OFF" too). Any other value keeps
 * the options and is reported in one usage line (docs/configuration.md).
 * LOADSCOPE_TRACE=path sets .trace_path when it is NULL.
 *
 * A profiler that is off is still a valid handle; all calls on it are no-ops.
 * Return: 0, or -EINVAL (bad option), -ENAMETOOLONG (.proc_root or .sys_root
 * of 256 bytes or more, .trace_path of 512 or more: never cut short),
 * -ENOMEM. A LOADSCOPE_TRACE that long is reported in one usage line and
 * ignored.
 */
LSC_API int lsc_profiler_create(const struct lsc_profiler_options *o, lsc_profiler **out);

/*
 * lsc_profiler_destroy - stop the watchdog, close the trace file if one was
 * asked for (its closing bracket), and free the profiler. Spans still open are reported in one
 * usage line. Accepts NULL. Not thread-safe against other calls on @p.
 */
LSC_API void lsc_profiler_destroy(lsc_profiler *p);

/* lsc_profiler_enabled - 1 when lines are produced, 0 when off or @p is NULL. */
LSC_API int lsc_profiler_enabled(const lsc_profiler *p);

/*
 * lsc_start_begin - open the start: print the start line (run id, pid,
 * library version, wall-clock time, @name) and the system snapshot line.
 * @name: what is starting, e.g. the engine or model name; may be NULL.
 * Only one start can be open: a second begin is a usage error (reported once,
 * otherwise ignored). Thread-safe.
 * Return: 0 or a negative errno.
 */
LSC_API int lsc_start_begin(lsc_profiler *p, const char *name);

/*
 * lsc_start_end - close the start: print "ready in X s" with the number of
 * phases and the unattributed remainder, the wall time between begin and end
 * during which no span was open (in any thread). Spans still open are
 * reported as a usage error; their time up to now counts as covered, and
 * they print their own lines when they end. Thread-safe.
 * Return: 0 or a negative errno (-EINVAL when no start is open).
 */
LSC_API int lsc_start_end(lsc_profiler *p);

/* One row of a start's phase table: the phases of one kind and name (and
 * overlapped or not) added up, as the triage's table shows them. */
struct lsc_phase_row {
	enum lsc_phase_kind kind;
	char name[48];
	int overlapped;        /* from lsc_phase_record: busy time inside another phase */
	unsigned count;        /* phase lines of this row */
	unsigned failed;       /* of which ended in failure */
	uint64_t wall_ns;      /* their times added (busy times when overlapped) */
	uint64_t bytes;
};

#define LSC_START_ROWS_MAX 32

/* A start's phases and unattributed time, as data (lsc_start_table_read). */
struct lsc_start_table {
	int ended;             /* 1: the start ended; the figures are the `ready` line's */
	uint64_t wall_ns;      /* begin to end (to now while open) */
	uint64_t covered_ns;   /* time some span was open */
	uint64_t unattributed_ns; /* wall_ns - covered_ns */
	unsigned phases;       /* phase lines, as `ready` counts them */
	unsigned n_rows;
	unsigned rows_dropped; /* phase lines of kinds and names past LSC_START_ROWS_MAX */
	struct lsc_phase_row rows[LSC_START_ROWS_MAX]; /* in order of first appearance */
};

/*
 * lsc_start_table_read - the phase table of the current start, or of the last
 * one once it ended (until the next lsc_start_begin): every phase line
 * added up by kind and name, the `ready` line's wall, covered and
 * unattributed time. Thread-safe; allocates nothing.
 * Return: 0 when the start ended (final figures), -EAGAIN while it is open
 * (the rows so far, times up to now), -ENOENT when no start was begun or
 * the profiler is off (*out zeroed), -EINVAL for NULL @out.
 */
LSC_API int lsc_start_table_read(const lsc_profiler *p, struct lsc_start_table *out);

/* What a span measured; filled by lsc_span_end() when asked for. */
struct lsc_span_result {
	enum lsc_phase_kind kind;
	uint64_t bytes;
	uint64_t wall_ns;
	uint64_t user_ns, sys_ns;  /* this thread's CPU over the span */
	int64_t minflt, majflt;    /* the process's page faults over the span */
	int64_t vm[LSC_VM_COUNT];  /* /proc/vmstat deltas */
	uint32_t vm_valid;         /* bit (1 << counter) set where vm[] was readable */
	int64_t rss_kib, lck_kib, pin_kib; /* /proc/self/status at the end; -1 n/a */
	/* /proc/pressure/memory deltas, in us: the time some task (some) or
	 * every non-idle task (full) was stalled on memory over the span, for
	 * the whole system; -1 n/a (no PSI, psi=0, unreadable). */
	int64_t psi_some_us, psi_full_us;
};

/*
 * lsc_span_begin - open a phase span in the calling thread.
 * @kind: the standard phase kind, or LSC_PHASE_CUSTOM with a @name.
 * @name: shown in the line; NULL means lsc_phase_name(kind). Copied (at most
 *        47 bytes).
 * @bytes: the bytes this phase handles, 0 if unknown (lsc_span_set_bytes can
 *         set it later); used for rates and for the watchdog's progress.
 * @out: receives the handle (0 when the profiler is off).
 * Spans nest per thread: the parent is the innermost span this thread has
 * open. At most 64 spans are open at once; past that -ENOSPC and *out = 0.
 * Thread-safe. Return: 0 or a negative errno.
 */
LSC_API int lsc_span_begin(lsc_profiler *p, enum lsc_phase_kind kind, const char *name,
			   uint64_t bytes, lsc_span *out);

/* lsc_span_set_bytes - replace the span's byte count. Thread-safe, cheap. */
LSC_API int lsc_span_set_bytes(lsc_profiler *p, lsc_span s, uint64_t bytes);

/* lsc_span_progress - bytes done so far, for the watchdog's "still in" lines.
 * Thread-safe, lock-free, cheap enough to call per I/O. */
LSC_API int lsc_span_progress(lsc_profiler *p, lsc_span s, uint64_t done);

/*
 * lsc_span_end - close a span and print its phase line.
 * @res: if not NULL, receives what the span measured (zeroed when off).
 * Must be called from the thread that opened the span. Ending a span twice,
 * a handle that is not open, a handle of another profiler (handles are
 * unique across the profilers of a process, until 2^26 spans wrap them),
 * or a span whose children are still open is a usage error: reported once per profiler in a usage line, otherwise the call
 * does nothing and returns -EINVAL. A span inside which its thread printed
 * a failure line (the loader's `error` line, or any line with an `error`
 * field) ended in failure: its phase line says "failed", carries failed=1
 * and the bytes done (when progress was reported), and gives no rate, since
 * its bytes are what was asked for, not what was done. Thread-safe.
 */
LSC_API int lsc_span_end(lsc_profiler *p, lsc_span s, struct lsc_span_result *res);

/*
 * lsc_phase_record - report a phase whose time the caller measured itself,
 * for work that overlaps other phases (a copy or hash done between reads).
 * Printed as a phase line marked overlapped=1, with @busy_ns as its time; it
 * does not count as covered time for the unattributed remainder, and carries
 * no vmstat deltas (they belong to the enclosing span). Thread-safe.
 */
LSC_API int lsc_phase_record(lsc_profiler *p, enum lsc_phase_kind kind, const char *name,
			     uint64_t bytes, uint64_t busy_ns);

/* A memory range's real page backing, from /proc/self/smaps. */
struct lsc_region_info {
	uint64_t bytes;             /* size of the mappings that overlap the range */
	uint64_t rss_bytes;
	uint64_t anon_huge_bytes;   /* AnonHugePages: PMD-sized THP backing */
	uint64_t hugetlb_bytes;     /* Private_Hugetlb + Shared_Hugetlb */
	uint64_t locked_bytes;
	int thp_eligible;           /* THPeligible of the first mapping; -1 n/a */
	unsigned mappings;          /* how many mappings overlap */
};

/*
 * lsc_region_read - read the page backing of [addr, addr+len) from
 * <proc_root>/self/smaps, looking only at the mappings that overlap it.
 * Costly (smaps walks page tables): once per phase, not per I/O.
 * Works when the profiler is off too (the loader reports it in its stats).
 * Return: 0, -ENOENT when smaps cannot be read (then *out has -1/0 fields), or
 * a negative errno. Thread-safe.
 */
LSC_API int lsc_region_read(const lsc_profiler *p, const void *addr, size_t len,
			    struct lsc_region_info *out);

/* lsc_region_note - lsc_region_read, then print a region line naming @what. */
LSC_API int lsc_region_note(lsc_profiler *p, const char *what, const void *addr, size_t len,
			    struct lsc_region_info *out);

/*
 * lsc_note - print a free-text note line in the grammar ("[loadscope/1]
 * note <topic>: <text>"), for an engine's own decisions and fallbacks.
 * @topic: one word; @text: one line (newlines are replaced). Thread-safe.
 */
LSC_API int lsc_note(lsc_profiler *p, const char *topic, const char *text);

/* ---- The system snapshot ------------------------------------------------- */

/* A value that could not be read (missing file, container, old kernel). */
#define LSC_NA INT64_MIN
#define LSC_UNLIMITED INT64_MAX

#define LSC_MTHP_MAX 16

/*
 * The memory settings that decide how a large arena behaves. Text fields hold
 * the bracketed choice of a sysfs file ("madvise"); "" means n/a. Numbers are
 * LSC_NA when unreadable. Fields are only ever added at the end.
 */
struct lsc_system {
	char kernel[65];                 /* uname release */
	char thp_enabled[24];            /* transparent_hugepage/enabled */
	char thp_defrag[24];             /* transparent_hugepage/defrag */
	char thp_shmem_enabled[24];
	int64_t khugepaged_defrag;       /* 0/1 */
	int64_t khugepaged_max_ptes_none;
	int64_t hpage_pmd_size;          /* bytes */
	unsigned n_mthp;
	struct { uint32_t size_kib; char enabled[24]; } mthp[LSC_MTHP_MAX]; /* hugepages-*kB/enabled, by size */
	int64_t prctl_thp_disable;       /* PR_GET_THP_DISABLE raw bits; LSC_NA if the call failed */
	char proc_thp_enabled[24];       /* "THP_enabled:" of /proc/self/status ("1"/"0"), "" n/a */
	int64_t hugetlb_total, hugetlb_free, hugetlb_rsvd, hugetlb_page_kib; /* /proc/meminfo */
	int64_t memlock_cur, memlock_max;/* RLIMIT_MEMLOCK in bytes; LSC_UNLIMITED */
	int64_t mem_total, mem_available;/* bytes */
	int64_t free_huge_blocks_bytes;  /* free memory in blocks >= hpage size (buddyinfo) */
	int64_t numa_nodes;              /* /sys/devices/system/node/node* count */
	int64_t swap_total, swap_free;   /* bytes */
	int64_t cap_ipc_lock;            /* 1 when the process has CAP_IPC_LOCK (mlock ignores
	                                  * RLIMIT_MEMLOCK), 0 when not, LSC_NA */
	int64_t page_reporting;          /* 1 when a virtio-balloon device reports free pages to
	                                  * the host (the guest gives idle free blocks back; their
	                                  * next use faults in the host), 0 when none does, LSC_NA
	                                  * when /sys/bus is unreadable */
	int64_t page_reporting_order;    /* the smallest free block reported, as a page order
	                                  * (page_reporting module parameter); LSC_NA */
};

/*
 * lsc_system_read - take the snapshot from the given roots (NULL for
 * "/proc" and "/sys"). Never fails on bad files: each unreadable or garbage
 * value becomes "" or LSC_NA. The process-level fields (prctl, rlimit) come
 * from the calling process. Allocates nothing beyond opendir's directory
 * streams, released before it returns. Thread-safe.
 * Return: 0, or -EINVAL when @out is NULL.
 */
LSC_API int lsc_system_read(const char *proc_root, const char *sys_root, struct lsc_system *out);

/* lsc_profiler_system - the snapshot taken by the profiler's roots. Same
 * contract as lsc_system_read. */
LSC_API int lsc_profiler_system(const lsc_profiler *p, struct lsc_system *out);

/* lsc_thp_disable_name - decode PR_GET_THP_DISABLE bits: "allowed" (0: THP
 * allowed), "disabled", "disabled-except-advised", or "n/a". Static string. */
LSC_API const char *lsc_thp_disable_name(int64_t bits);

/* The counters of /proc/vmstat that spans report, read in one pass. */
struct lsc_vmstat {
	int64_t v[LSC_VM_COUNT];
	uint32_t valid; /* bit (1 << counter) set where the counter was found */
};

/* lsc_vmstat_read - read <proc_root>/vmstat (NULL: "/proc"). Allocates
 * nothing. Return: 0, or -ENOENT / negative errno when unreadable (valid = 0). */
LSC_API int lsc_vmstat_read(const char *proc_root, struct lsc_vmstat *out);

#ifdef __cplusplus
}
#endif
#endif
