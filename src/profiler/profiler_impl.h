/*
 * The profiler's private state, shared by its files (profiler.c: creation,
 * sinks and emission; span.c: starts and spans; watchdog.c; trace.c).
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

#define LSC__SPANS_MAX 64
#define LSC__SLOT_BITS 6
#define LSC__TRACE_MAX 4096

/* What is sampled at a span's begin (and by the watchdog). */
struct lsc__sample {
	uint64_t ns;
	uint64_t user_ns, sys_ns; /* thread CPU */
	int64_t minflt, majflt;   /* process faults */
	struct lsc_vmstat vm;
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

struct lsc__trace_event {
	char name[48];
	char cat[12];
	char ph;                  /* 'X', 'i', 'C' */
	pid_t tid;
	uint64_t ts_ns, dur_ns;
	uint64_t bytes;
	int64_t minflt;
	int64_t vm[LSC_VM_COUNT];
	uint32_t vm_valid;
	int64_t rss_kib;
};

struct lsc_profiler {
	int on;
	enum lsc_format format;
	FILE *stream;
	lsc_sink_fn sink;
	void *sink_user;
	unsigned flags;
	char prefix[64];
	char proc_root[256];
	char sys_root[256];
	char trace_path[512];
	double wd_after_s, wd_every_s;

	pthread_mutex_t sink_lock; /* one line at a time into the sink */
	pthread_mutex_t lock;      /* everything below */

	char run[9];
	int start_open;
	uint64_t start_ns;
	unsigned phases;
	unsigned open_spans;
	uint64_t cover_t0, covered_ns;
	uint64_t seq;
	uint32_t gen;
	struct lsc__span spans[LSC__SPANS_MAX];
	unsigned usage_seen;       /* bit per usage error kind already reported */
	unsigned usage_count;

	struct lsc__procfd *fds;    /* shared kept-open /proc files (procfd.c), or NULL */

	struct lsc__trace_event *trace; /* NULL when no trace file was asked for */
	size_t n_trace;
	size_t trace_dropped;
	int trace_refused;          /* the path was not ours to replace: said once */

	pthread_t wd_thread;
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
};

void lsc__usage(lsc_profiler *p, enum lsc__usage kind, const char *what);
/* span.c: the calling thread's innermost open span failed. */
void lsc__span_mark_failed(lsc_profiler *p);
void lsc__sample(const lsc_profiler *p, struct lsc__sample *s);
pid_t lsc__tid(void);
/* A fresh run id; async-signal-safe. */
void lsc__run_id(char run[9]);

/* trace.c */
void lsc__trace_add(lsc_profiler *p, const struct lsc__trace_event *ev);
int lsc__trace_write(lsc_profiler *p);

/* procfd.c: the profilers of a process keep at most 2 * LSC__PROCFD_SLOTS
 * descriptors open between calls (documented in profiler.h). */
#define LSC__PROCFD_SLOTS 4
struct lsc__status;
void lsc__procfd_open(lsc_profiler *p);
void lsc__procfd_close(lsc_profiler *p);
void lsc__procfd_fork_lock(void);
void lsc__procfd_fork_unlock(void);
int lsc__procfd_vmstat(const lsc_profiler *p, struct lsc_vmstat *out);
int lsc__procfd_status(const lsc_profiler *p, struct lsc__status *out);

/* watchdog.c */
void lsc__watchdog_start(lsc_profiler *p);
void lsc__watchdog_stop(lsc_profiler *p);
void lsc__watchdog_forget(lsc_profiler *p);

/* fork.c: keep a profiler's locks usable in a forked child. */
void lsc__fork_track(lsc_profiler *p);
void lsc__fork_untrack(lsc_profiler *p);

#endif
