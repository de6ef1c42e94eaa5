/*
 * The profiler's private state, shared by its files (profiler.c: creation,
 * sinks and emission; span.c: starts and spans; watchdog.c; trace.c).
 * Private to src/profiler/ (and tests): the others use internal.h.
 *
 * Spans live in a fixed table so that nothing is allocated after creation: an
 * engine leaves the profiler on in every build, and a phase boundary must
 * not touch the heap of the process it measures.
 */
#ifndef LSC_PROFILER_IMPL_H
#define LSC_PROFILER_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include <loadscope/profiler.h>

#include "profiler/internal.h"
#include "sys/thread.h"

#define LSC__SPANS_MAX 64
#define LSC__SLOT_BITS 6
#define LSC__TRACE_THREADS 64 /* threads whose name the trace file gave */
#define LSC__TRACE_LANES 8     /* tracks of overlapped work */

/* What is sampled at a span's begin (and by the watchdog). */
struct lsc__sample {
	uint64_t ns;
	uint64_t user_ns, sys_ns; /* thread CPU */
	int64_t minflt, majflt;   /* process faults */
	struct lsc_vmstat vm;
	int64_t psi_some_us, psi_full_us; /* /proc/pressure/memory totals; -1 n/a */
};

struct lsc__span {
	lsc_span id;              /* 0 = free slot */
	pid_t tid;
	uint64_t seq;             /* begin order, for "innermost" */
	lsc_span parent;
	unsigned depth;
	enum lsc_phase_kind kind;
	char name[48];
	_Atomic uint64_t bytes;
	_Atomic uint64_t done;
	int closing;              /* end in progress */
	int failed;               /* its thread printed a failure line inside it */
	struct lsc__sample s0;
	/* the watchdog's previous sample, for live rates */
	struct lsc__sample wd_last;
	uint64_t wd_done_last;
	uint64_t wd_next_ns;
};

/* The trace file's state (trace.c), allocated at creation only when a
 * trace was asked for. Its lock is the trace's own: no other code takes it,
 * and it is never held with the profiler's other locks. */
struct lsc__trace {
	pthread_mutex_t lock;     /* everything below, and each event's write */
	int state;                /* LSC__TRACE_CLOSED, _OPEN or _OFF */
	int fd;                   /* O_APPEND, flock'ed; -1 when not open */
	pid_t pid;                /* the process that opened fd */
	off_t size;               /* bytes written whole: a short write is cut back to it */
	char path[512];           /* the path, %p expanded */
	pid_t named[LSC__TRACE_THREADS];
	unsigned n_named;
	struct {
		char name[48];
		uint64_t end_ns;  /* the lane's last event ends here */
	} lanes[LSC__TRACE_LANES];
	unsigned n_lanes;
	struct lsc_vmstat vm0;    /* vmstat at the start: the stall counters count from it */
};
enum { LSC__TRACE_CLOSED = 0, LSC__TRACE_OPEN, LSC__TRACE_OFF };

struct lsc_profiler {
	int on;
	enum lsc_format format;
	int verbose; /* LSC_PROFILER_VERBOSE or LOADSCOPE=verbose: every field and line */
	FILE *stream;
	lsc_sink_fn sink;
	void *sink_user;
	unsigned flags;
	char prefix[64];
	char proc_root[256];
	char sys_root[256];
	char trace_path[512];
	double wd_after_s, wd_every_s;

	/* The sink's turn (sink.c): one line at a time, no lock held across
	 * the call. sink_lock guards these fields only. */
	pthread_mutex_t sink_lock;
	pthread_cond_t sink_cond;
	int sink_busy;
	pid_t sink_owner;
	int sink_reentered;
	int stream_err;            /* the stream failed with this errno: no more lines to it */
	pthread_mutex_t lock;      /* everything below */

	char run[9];
	int start_open;
	uint64_t start_ns;
	unsigned phases;
	unsigned open_spans;
	uint64_t cover_t0, covered_ns;
	uint64_t seq;
	struct lsc__span spans[LSC__SPANS_MAX];
	unsigned usage_seen;       /* bit per usage error kind already reported */
	unsigned usage_count;

	struct lsc__procfd *fds;    /* shared kept-open /proc files (procfd.c), or NULL */

	struct lsc__trace *trace;   /* NULL when no trace file was asked for */

	struct lsc__thread wd_thread;
	int wd_started;
	int wd_stop;
	pthread_cond_t wd_cond;

	struct lsc_profiler *fork_next; /* fork.c's list of live profilers */

	/* The start's phase table (lsc_start_table_read; under .lock): reset at
	 * begin, final at end. */
	lsc_sink_level_fn sink_level;
	int start_seen, start_ended;
	uint64_t end_wall_ns, end_covered_ns;
	unsigned n_rows, rows_dropped;
	struct lsc_phase_row rows[LSC_START_ROWS_MAX];
};

/* span.c: add a phase line to the start's table; called with .lock held. */
void lsc__table_add(lsc_profiler *p, enum lsc_phase_kind kind, const char *name, int overlapped,
		    int failed, uint64_t wall_ns, uint64_t bytes);

/* Usage error kinds, each reported once per profiler. */
enum lsc__usage {
	LSC__USAGE_DOUBLE_END = 0,
	LSC__USAGE_OUT_OF_ORDER,
	LSC__USAGE_FOREIGN_THREAD,
	LSC__USAGE_START_TWICE,
	LSC__USAGE_NO_START,
	LSC__USAGE_OPEN_AT_END,
	LSC__USAGE_TOO_MANY,
	LSC__USAGE_ENV,
	LSC__USAGE_ENV_TRACE,
	LSC__USAGE_SINK_RETURN,
	LSC__USAGE_ENV_LOADER, /* the first of LSC__ENV_LOADER_MAX, one per variable */
};

void lsc__usage(lsc_profiler *p, enum lsc__usage kind, const char *what);
/* span.c: the calling thread's innermost open span failed. */
void lsc__span_mark_failed(lsc_profiler *p);
void lsc__sample(const lsc_profiler *p, struct lsc__sample *s);
pid_t lsc__tid(void);
/* A fresh run id; async-signal-safe. */
void lsc__run_id(char run[9]);

/* trace.c: each call writes its events to the file at once (opened at the
 * first, in the process that records it). */
struct lsc__rec;
int lsc__trace_create(lsc_profiler *p);
/* The instant of a line that marks the start (start, ready, arena,
 * fallback, error); other lines are not traced. */
void lsc__trace_line(lsc_profiler *p, const struct lsc__rec *r);
/* A span's begin, from its thread: its B event. */
void lsc__trace_begin(lsc_profiler *p, const char *name, enum lsc_phase_kind kind, uint64_t ts_ns);
/* An ended span: its E event and the counters sampled at its end (@vm, the
 * vmstat at the end). */
void lsc__trace_span(lsc_profiler *p, const struct lsc__span *sp, const struct lsc_span_result *res,
		     const struct lsc_vmstat *vm);
/* Overlapped work: an X event on a track of its own, ending now. */
void lsc__trace_overlapped(lsc_profiler *p, enum lsc_phase_kind kind, const char *name, uint64_t bytes,
			   uint64_t busy_ns);
/* Close the array and the file; free the state. */
void lsc__trace_destroy(lsc_profiler *p);
/* In a forked child (async-signal-safe): the parent's file is not the
 * child's; its first event opens one of its own. */
void lsc__trace_forget(lsc_profiler *p);

/* procfd.c: the profilers of a process keep at most 3 * LSC__PROCFD_SLOTS
 * descriptors open between calls (documented in profiler.h). */
#define LSC__PROCFD_SLOTS 4
struct lsc__status;
struct lsc__psi;
void lsc__procfd_open(lsc_profiler *p);
void lsc__procfd_close(lsc_profiler *p);
void lsc__procfd_fork_lock(void);
void lsc__procfd_fork_unlock(void);
/* fork.c's child handler: the unlock, and the parent's descriptors closed. */
void lsc__procfd_fork_child(void);
int lsc__procfd_vmstat(const lsc_profiler *p, struct lsc_vmstat *out);
int lsc__procfd_status(const lsc_profiler *p, struct lsc__status *out);
int lsc__procfd_psi(const lsc_profiler *p, struct lsc__psi *out);

/* sink.c: hand a rendered line to the sink, one at a time, no lock held
 * across the call. */
void lsc__sink_line(lsc_profiler *p, enum lsc_level level, const char *event, const char *line, size_t len);
/* A turn this thread left held (a sink call that never returned) given
 * back; destroy calls it before it waits for the watchdog. */
void lsc__sink_reclaim(lsc_profiler *p);
/* fork.c's child handler: a fresh turn (async-signal-safe stores). */
void lsc__sink_fork_child(lsc_profiler *p);

/* watchdog.c */
void lsc__watchdog_start(lsc_profiler *p);
void lsc__watchdog_stop(lsc_profiler *p);
void lsc__watchdog_forget(lsc_profiler *p);
/* The still line's hint from the rates over its interval (per second:
 * compact_stall, compact_fail, thp_fault_fallback, allocstall, pswpin +
 * pswpout, the fill in GiB/s or NAN, the process's faults): the likeliest
 * cause in words, or NULL when the rates point at none. */
const char *lsc__watchdog_hint(double stall, double fail, double fallback, double reclaim, double swap,
			       double rate, double faults);

/* fork.c: keep a profiler's locks usable in a forked child. */
void lsc__fork_track(lsc_profiler *p);
void lsc__fork_untrack(lsc_profiler *p);

#endif
