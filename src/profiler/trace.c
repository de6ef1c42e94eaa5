/*
 * The Chrome trace-event file (LOADSCOPE_TRACE=path): the same start as the
 * log lines, as a timeline that Perfetto and chrome://tracing open.
 *
 * The file is written as the start goes, one write(2) per event from the
 * thread that records it, so that a start that hangs, exits early or is
 * killed leaves what it did (issue 10). It is in the JSON Array Format, a
 * bare array of events, because that is the form the format lets end
 * without its closing bracket: "[" then one event per line, each after a
 * ",\n", and "\n]" only at destroy. The object form ({"traceEvents":[...]})
 * would be broken JSON at any point before its last byte. Docs/trace.md
 * gives the events.
 *
 * - A span is a "B" event written when it begins and an "E" event (with
 *   its bytes and vmstat deltas) when it ends, on its thread's track: a
 *   phase that never ends is in the file all the same, drawn open to the
 *   trace's end. (Complete "X" events are written at the end only, which
 *   loses exactly the phase a hung start is stuck in.) Overlapped work
 *   (lsc_phase_record: verify, copies) is an X event on a track of its
 *   own, ending when it was recorded and as long as it was busy. Instants
 *   ("i") mark the lines that matter when reading a timeline: start, ready,
 *   the arena decision, every fallback and every error, and the watchdog's
 *   "still in" lines, which keep extending a hung start's timeline;
 *   lsc__emit hands every line here. "C" counters (RSS, and the stall counters since the
 *   start) are sampled at the start and at each span end. "M" events name
 *   the process (the start's name) and every thread, the first time it
 *   records. Every event has a cat. Timestamps are CLOCK_MONOTONIC in
 *   microseconds, so the traces of the processes of one machine line up.
 * - The file is opened at the first event, in the process that records it.
 *   "%p" in the path is that process's pid. A forked child never writes its
 *   parent's file: it closes the inherited descriptor (lsc__trace_forget)
 *   and opens its own path, which without %p is the parent's and is
 *   refused, said in one note line.
 * - The path must be absent, or a regular file that is empty or a trace
 *   that no live process is writing (each writer holds an flock on its
 *   file). Anything else (a device such as /dev/null, a FIFO, a directory,
 *   a symbolic link, another program's file, another process's trace) is
 *   left alone and no trace is written, said once in a note line. Renaming
 *   over the path replaced /dev/null itself with a JSON file when run as
 *   root (issue 14); writing through it would block on a FIFO.
 * - The file is made with no name (O_TMPFILE in the path's directory), its
 *   first event written, then linked under the path when nothing is there,
 *   or under PATH.PID.tmp and renamed over it: a reader never sees an empty
 *   or half-named trace. Without O_TMPFILE the named temporary file is made
 *   from the start (O_EXCL | O_NOFOLLOW).
 * - The trace's lock is its own: held for one event's write(2) to a regular
 *   file, which the kernel serialises on the inode anyway, and never with
 *   the profiler's lock or its sink lock, so a span in another thread and a
 *   blocked sink never wait on it. It keeps each write whole: a short write
 *   (a full disk, RLIMIT_FSIZE) is cut back to the last whole event, and
 *   the trace stops there, said in one note line.
 *
 * Numbers go through put_int, put_uint, put_us (integers only, which no
 * locale changes) and put_fixed (the one floating-point format, in the C
 * locale) only, strings through put_str (format/escape.h, valid UTF-8).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/c_locale.h"
#include "format/escape.h"
#include "host/procfs.h"
#include "profiler/profiler_impl.h"
#include "sys/guard.h"

/* The first bytes of every trace this library writes: how it knows a file
 * it may replace. A metadata event, which a viewer shows as the process's
 * label or skips. */
static const char magic[] = "[\n{\"name\":\"process_labels\",\"cat\":\"__metadata\",\"ph\":\"M\","
			    "\"args\":{\"labels\":\"loadscope trace\"}";
/* What this library wrote before (one object, written at the end). */
static const char magic_v0[] = "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"run\":";

/* Overlapped work's tracks: past any pid_max (2^22), never a thread's. */
#define LANE_TID 1000000000

/* ---- one event in a buffer -------------------------------------------------------- */

struct tbuf {
	char b[4096];
	size_t n;
	int over;  /* something did not fit */
};

static void put(struct tbuf *t, const char *s)
{
	size_t l = strlen(s);
	if (t->n + l >= sizeof(t->b)) {
		t->over = 1;
		return;
	}
	memcpy(t->b + t->n, s, l + 1);
	t->n += l;
}

/* Span names and file names are the engine's: escaped to valid UTF-8 JSON
 * as the lines escape them (format/escape.h). */
static void put_str(struct tbuf *t, const char *s)
{
	put(t, "\"");
	while (*s && !t->over) {
		char e[LSC__ESC_MAX + 1];
		size_t n;
		s += lsc__esc_char(s, 1, e, &n);
		e[n] = '\0';
		put(t, e);
	}
	put(t, "\"");
}

static void put_int(struct tbuf *t, long long v)
{
	char s[24];
	snprintf(s, sizeof(s), "%lld", v);
	put(t, s);
}

static void put_uint(struct tbuf *t, unsigned long long v)
{
	char s[24];
	snprintf(s, sizeof(s), "%llu", v);
	put(t, s);
}

/* A number with @prec digits after the point, in the C locale whatever the
 * engine set (format/c_locale.h); null when it is not finite (JSON has no
 * NaN). The one floating-point format of the trace. */
static void put_fixed(struct tbuf *t, double v, int prec)
{
	char s[64];
	if (v != v || v > 1e300 || v < -1e300) {
		snprintf(s, sizeof(s), "null");
	} else {
		locale_t loc = lsc__c_locale_enter();
		snprintf(s, sizeof(s), "%.*f", prec, v);
		lsc__c_locale_leave(loc);
	}
	put(t, s);
}

/* Nanoseconds as microseconds with three decimals, exactly. */
static void put_us(struct tbuf *t, uint64_t ns)
{
	char s[32];
	snprintf(s, sizeof(s), "%llu.%03u", (unsigned long long)(ns / 1000u), (unsigned)(ns % 1000u));
	put(t, s);
}

/* ,\n{"name":..,"cat":..,"ph":..,"ts":..,"pid":..,"tid":.. (the object left open) */
static void head(struct tbuf *t, const char *name, const char *cat, const char *ph, uint64_t ts_ns, long tid)
{
	t->n = 0;
	t->over = 0;
	put(t, ",\n{\"name\":");
	put_str(t, name);
	put(t, ",\"cat\":");
	put_str(t, cat);
	put(t, ",\"ph\":\"");
	put(t, ph);
	put(t, "\",\"ts\":");
	put_us(t, ts_ns);
	put(t, ",\"pid\":");
	put_int(t, (long long)getpid());
	put(t, ",\"tid\":");
	put_int(t, tid);
}

/* ---- the file ------------------------------------------------------------------- */

/* @tmpl with %p as @pid (and %% as %) into @out; -1 when it does not fit. */
static int expand(const char *tmpl, pid_t pid, char *out, size_t cap)
{
	size_t n = 0;
	for (const char *s = tmpl; *s; s++) {
		char num[24] = {s[0], 0};
		if (s[0] == '%' && s[1] == 'p')
			snprintf(num, sizeof(num), "%d", (int)pid), s++;
		else if (s[0] == '%' && s[1] == '%')
			s++;
		size_t l = strlen(num);
		if (n + l >= cap)
			return -1;
		memcpy(out + n, num, l);
		n += l;
	}
	out[n] = '\0';
	return 0;
}

/* What is at @path when it is not something the trace may replace, or NULL
 * (absent, empty, or a trace of ours that no live process holds). */
static const char *not_replaceable(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return NULL;
	switch (st.st_mode & S_IFMT) {
	case S_IFREG:
		break;
	case S_IFLNK:
		return "a symbolic link, not a regular file";
	case S_IFCHR:
		return "a character device, not a regular file";
	case S_IFBLK:
		return "a block device, not a regular file";
	case S_IFIFO:
		return "a FIFO, not a regular file";
	case S_IFDIR:
		return "a directory, not a regular file";
	case S_IFSOCK:
		return "a socket, not a regular file";
	default:
		return "not a regular file";
	}
	if (st.st_size == 0)
		return NULL;
	int fd = lsc__open_high(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0);
	if (fd < 0)
		return "a file this process cannot read";
	char b[sizeof(magic)];
	ssize_t n = read(fd, b, sizeof(b) - 1);
	const char *what = NULL;
	if (n < 0 || (((size_t)n < sizeof(magic) - 1 || memcmp(b, magic, sizeof(magic) - 1)) &&
		      ((size_t)n < sizeof(magic_v0) - 1 || memcmp(b, magic_v0, sizeof(magic_v0) - 1))))
		what = "a file that is not a loadscope trace";
	else if (flock(fd, LOCK_EX | LOCK_NB) != 0)
		what = "the trace of another live process (put %p in the path for one file per process)";
	close(fd);
	return what;
}

static int open_unnamed(const char *path)
{
	char dir[sizeof(((struct lsc__trace *)0)->path)];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	return lsc__open_high(dir, O_TMPFILE | O_WRONLY | O_APPEND, 0666);
}

/* A named temporary file of our own: a stale one of ours (a regular file,
 * left by a kill between link and rename) is removed first. */
static int open_named(const char *tmp)
{
	int flags = O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = lsc__open_high(tmp, flags, 0666);
	if (fd < 0 && errno == EEXIST && !not_replaceable(tmp) && unlink(tmp) == 0)
		fd = lsc__open_high(tmp, flags, 0666);
	return fd;
}

/* Put the file @fd (unnamed, else at @tmp) at @path: linked when nothing is
 * there, else renamed over what not_replaceable allowed. Return 0, or a
 * refusal's reason in *what, or -1. */
static int place(int fd, int unnamed, const char *path, const char *tmp, const char **what)
{
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	const char *from = unnamed ? proc : tmp;
	int flag = unnamed ? AT_SYMLINK_FOLLOW : 0;
	if (linkat(AT_FDCWD, from, AT_FDCWD, path, flag) == 0) {
		if (!unnamed)
			unlink(tmp);
		return 0;
	}
	if (errno != EEXIST)
		return -1;
	if ((*what = not_replaceable(path)))
		return -1;
	if (unnamed && linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) != 0 &&
	    !(errno == EEXIST && !not_replaceable(tmp) && unlink(tmp) == 0 &&
	      linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0))
		return -1;
	if (rename(tmp, path) == 0)
		return 0;
	unlink(tmp);
	return -1;
}

/* One write(2), SIGXFSZ and SIGPIPE held off it (sys/guard.h): a trace
 * that reaches RLIMIT_FSIZE fails with EFBIG instead of ending the host.
 * A short write is cut back to the last whole event; its reason is the
 * errno of writing the rest (EFBIG at the file size limit, ENOSPC on a
 * full disk), never a guess. */
static int write_whole(struct lsc__trace *tr, const char *b, size_t n)
{
	struct lsc__nosig g;
	lsc__nosig_enter(&g);
	ssize_t w;
	do
		w = write(tr->fd, b, n);
	while (w < 0 && errno == EINTR);
	int err = w < 0 ? errno : 0;
	if (w >= 0 && w < (ssize_t)n) {
		ssize_t w2;
		do
			w2 = write(tr->fd, b + w, n - (size_t)w);
		while (w2 < 0 && errno == EINTR);
		err = w2 < 0 ? errno : ENOSPC;
		if (ftruncate(tr->fd, tr->size) != 0)
			err = errno;
	}
	lsc__nosig_leave(&g);
	if (w == (ssize_t)n) {
		tr->size += (off_t)n;
		return 0;
	}
	return -err;
}

static void say(lsc_profiler *p, const char *path, const char *what)
{
	char msg[sizeof(((struct lsc__trace *)0)->path) + 160];
	snprintf(msg, sizeof(msg), "%s is %s: left alone, no trace written", path, what);
	lsc_note(p, "trace", msg);
}

/* Open the file for this process. Called with the lock held; a refusal or
 * failure is left in *why (said after the lock is released). */
static void open_file(lsc_profiler *p, const char **what, const char **why)
{
	struct lsc__trace *tr = p->trace;
	tr->state = LSC__TRACE_OFF;
	if (expand(p->trace_path, getpid(), tr->path, sizeof(tr->path)) < 0) {
		*why = "the trace path with %p expanded is too long; no trace";
		return;
	}
	if ((*what = not_replaceable(tr->path)))
		return;
	char tmp[sizeof(tr->path) + 32];
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", tr->path, (int)getpid());
	int unnamed = 1;
	int fd = open_unnamed(tr->path);
	if (fd < 0) {
		unnamed = 0;
		fd = open_named(tmp);
	}
	if (fd < 0) {
		*why = "cannot create the trace file; no trace";
		return;
	}
	struct tbuf t = {.n = 0};
	put(&t, magic);
	put(&t, ",\"ts\":");
	put_us(&t, lsc__now_ns());
	put(&t, ",\"pid\":");
	put_int(&t, (long long)getpid());
	put(&t, ",\"tid\":");
	put_int(&t, (long long)lsc__tid());
	put(&t, "}");
	tr->fd = fd;
	tr->size = 0;
	int werr = 0;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0 || (werr = write_whole(tr, t.b, t.n)) != 0 ||
	    place(fd, unnamed, tr->path, tmp, what) != 0) {
		if (!unnamed)
			unlink(tmp);
		close(fd);
		tr->fd = -1;
		if (!*what)
			*why = werr == -EFBIG ? "cannot write the trace file (EFBIG: the file size limit "
						"(RLIMIT_FSIZE)); no trace"
			       : werr == -ENOSPC ? "cannot write the trace file (ENOSPC: no space left on "
						   "the device); no trace"
						 : "cannot write the trace file; no trace";
		return;
	}
	tr->pid = getpid();
	tr->n_named = tr->n_lanes = 0;
	tr->vm0.valid = 0;
	tr->state = LSC__TRACE_OPEN;
}

/* Take the lock with the file open in this process; 0, or -1 (no trace,
 * lock not held). */
static int lock_open(lsc_profiler *p)
{
	struct lsc__trace *tr = p->trace;
	const char *what = NULL, *why = NULL;
	pthread_mutex_lock(&tr->lock);
	if (tr->state == LSC__TRACE_OPEN && tr->pid != getpid()) {
		/* a child made without the fork handlers (a raw clone) */
		close(tr->fd);
		tr->fd = -1;
		tr->state = LSC__TRACE_CLOSED;
	}
	if (tr->state == LSC__TRACE_CLOSED)
		open_file(p, &what, &why);
	if (tr->state == LSC__TRACE_OPEN)
		return 0;
	char path[sizeof(tr->path)];
	snprintf(path, sizeof(path), "%s", tr->path);
	pthread_mutex_unlock(&tr->lock);
	if (what)
		say(p, path, what);
	else if (why)
		lsc_note(p, "trace", why);
	return -1;
}

/* Write @t, the lock held; the first failure stops the trace. Return 0 or
 * -1 (the trace stopped; the lock is released and the note said). */
static int write_locked(lsc_profiler *p, struct tbuf *t)
{
	struct lsc__trace *tr = p->trace;
	int err = write_whole(tr, t->b, t->n);
	if (!err)
		return 0;
	tr->state = LSC__TRACE_OFF;
	char msg[sizeof(tr->path) + 96];
	snprintf(msg, sizeof(msg), "writing %s failed (%s%s): the trace stops at its last whole event", tr->path,
		 lsc_strerror(err), err == -EFBIG ? ": the file size limit (RLIMIT_FSIZE)" : "");
	pthread_mutex_unlock(&tr->lock);
	lsc_note(p, "trace", msg);
	return -1;
}

/* The thread_name event of @tid the first time it records; @name NULL for
 * the calling thread's own. Lock held; 0, or -1 as write_locked. */
static int name_thread(lsc_profiler *p, long tid, const char *name)
{
	struct lsc__trace *tr = p->trace;
	for (unsigned i = 0; i < tr->n_named; i++)
		if (tr->named[i] == tid)
			return 0;
	if (tr->n_named == LSC__TRACE_THREADS)
		return 0;
	tr->named[tr->n_named++] = (pid_t)tid;
	char own[17] = "";
	if (!name) {
		prctl(PR_GET_NAME, own, 0, 0, 0);
		name = own[0] ? own : "thread";
	}
	struct tbuf t;
	head(&t, "thread_name", "__metadata", "M", lsc__now_ns(), tid);
	put(&t, ",\"args\":{\"name\":");
	put_str(&t, name);
	put(&t, "}}");
	return write_locked(p, &t);
}

/* Lock, name the calling thread, write @t, unlock. */
static void write_event(lsc_profiler *p, struct tbuf *t)
{
	if (t->over || lock_open(p) < 0)
		return;
	if (name_thread(p, lsc__tid(), NULL) == 0 && write_locked(p, t) == 0)
		pthread_mutex_unlock(&p->trace->lock);
}

/* ---- the events ------------------------------------------------------------------ */

int lsc__trace_create(lsc_profiler *p)
{
	p->trace = calloc(1, sizeof(*p->trace));
	if (!p->trace)
		return -ENOMEM;
	pthread_mutex_init(&p->trace->lock, NULL);
	p->trace->fd = -1;
	return 0;
}

/* The counters, into @t: RSS, and the stall counters since the start (or,
 * with no start, since the first sample) from @vm, the vmstat now. */
static void counters(lsc_profiler *p, struct tbuf *tb, uint64_t ts_ns, int64_t rss_kib,
		     const struct lsc_vmstat *vm)
{
	struct tbuf *t = tb;
	if (rss_kib >= 0) {
		head(t, "memory", "counter", "C", ts_ns, lsc__tid());
		put(t, ",\"args\":{\"rss_mib\":");
		put_fixed(t, (double)rss_kib / 1024.0, 1);
		put(t, "}}");
		write_event(p, t);
	}
	static const enum lsc_vm_counter shown[] = {LSC_VM_COMPACT_STALL, LSC_VM_THP_FAULT_FALLBACK,
						    LSC_VM_ALLOCSTALL};
	pthread_mutex_lock(&p->trace->lock);
	if (!p->trace->vm0.valid)
		p->trace->vm0 = *vm;
	struct lsc_vmstat vm0 = p->trace->vm0;
	pthread_mutex_unlock(&p->trace->lock);
	head(t, "stalls", "counter", "C", ts_ns, lsc__tid());
	put(t, ",\"args\":{");
	for (unsigned i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		unsigned c = shown[i];
		int ok = (vm->valid >> c) & (vm0.valid >> c) & 1u;
		put(t, i ? ",\"" : "\"");
		put(t, lsc_vm_name(c));
		put(t, "\":");
		put_int(t, ok ? (long long)(vm->v[c] - vm0.v[c]) : 0);
	}
	put(t, "}}");
	write_event(p, t);
}

/* The fields of a line as an instant's args, as far as they fit. */
static void rec_args(struct tbuf *t, const struct lsc__rec *r)
{
	put(t, ",\"args\":{\"text\":");
	put_str(t, r->human);
	for (unsigned i = 0; i < r->n && !t->over; i++) {
		const struct lsc__field *f = &r->f[i];
		size_t mark = t->n;
		put(t, ",");
		put_str(t, f->key);
		put(t, ":");
		if (f->type == LSC__V_STR)
			put_str(t, f->v.s);
		else if (f->type == LSC__V_I64)
			put_int(t, (long long)f->v.i);
		else if (f->type == LSC__V_U64)
			put_uint(t, (unsigned long long)f->v.u);
		else
			put_fixed(t, f->v.d, f->prec);
		if (t->over || t->n + 16 >= sizeof(t->b)) {
			t->n = mark;
			t->b[mark] = '\0';
			t->over = 0;
			put(t, ",\"trunc\":1");
			break;
		}
	}
	put(t, "}}");
}

void lsc__trace_line(lsc_profiler *p, const struct lsc__rec *r)
{
	static const struct {
		enum lsc__event event;
		const char *cat, *scope;
	} marked[] = {
		{LSC__EV_START, "lifecycle", "p"}, {LSC__EV_READY, "lifecycle", "p"},
		{LSC__EV_ARENA, "decision", "t"},  {LSC__EV_FALLBACK, "fallback", "t"},
		{LSC__EV_ERROR, "error", "t"},     {LSC__EV_STILL, "watchdog", "t"},
	};
	unsigned k = 0;
	while (k < sizeof(marked) / sizeof(marked[0]) && strcmp(r->event, lsc__event_names[marked[k].event]))
		k++;
	if (k == sizeof(marked) / sizeof(marked[0]))
		return;
	uint64_t now = lsc__now_ns();
	struct tbuf t;
	int start = !strcmp(r->event, LSC__EV(START));
	if (start) {
		const char *name = "";
		for (unsigned i = 0; i < r->n; i++)
			if (r->f[i].type == LSC__V_STR && !strcmp(r->f[i].key, LSC__KEY(NAME)))
				name = r->f[i].v.s;
		head(&t, "process_name", "__metadata", "M", now, lsc__tid());
		put(&t, ",\"args\":{\"name\":");
		put_str(&t, name[0] ? name : "loadscope");
		put(&t, "}}");
		write_event(p, &t);
	}
	head(&t, r->event, marked[k].cat, "i", now, lsc__tid());
	put(&t, ",\"s\":\"");
	put(&t, marked[k].scope);
	put(&t, "\"");
	rec_args(&t, r);
	write_event(p, &t);
	if (start) {
		struct lsc_vmstat vm;
		struct lsc__status st;
		if (lsc__procfd_vmstat(p, &vm) < 0)
			vm.valid = 0;
		if (lsc__procfd_status(p, &st) < 0)
			st.rss_kib = -1;
		pthread_mutex_lock(&p->trace->lock);
		p->trace->vm0 = vm;
		pthread_mutex_unlock(&p->trace->lock);
		counters(p, &t, now, st.rss_kib, &vm);
	}
}

void lsc__trace_begin(lsc_profiler *p, const char *name, enum lsc_phase_kind kind, uint64_t ts_ns)
{
	struct tbuf t;
	head(&t, name, lsc_phase_name(kind), "B", ts_ns, lsc__tid());
	put(&t, "}");
	write_event(p, &t);
}

void lsc__trace_span(lsc_profiler *p, const struct lsc__span *sp, const struct lsc_span_result *res,
		     const struct lsc_vmstat *vm)
{
	struct tbuf t;
	head(&t, sp->name, lsc_phase_name(sp->kind), "E", sp->s0.ns + res->wall_ns, sp->tid);
	put(&t, ",\"args\":{\"bytes\":");
	put_uint(&t, (unsigned long long)res->bytes);
	put(&t, ",\"minflt\":");
	put_int(&t, (long long)res->minflt);
	if (sp->failed)
		put(&t, ",\"failed\":1");
	for (unsigned c = 0; c < LSC_VM_COUNT; c++)
		if (((res->vm_valid >> c) & 1u) && res->vm[c]) {
			put(&t, ",\"");
			put(&t, lsc_vm_name(c));
			put(&t, "\":");
			put_int(&t, (long long)res->vm[c]);
		}
	put(&t, "}}");
	write_event(p, &t);
	counters(p, &t, sp->s0.ns + res->wall_ns, res->rss_kib, vm);
}

void lsc__trace_overlapped(lsc_profiler *p, enum lsc_phase_kind kind, const char *name, uint64_t bytes,
			   uint64_t busy_ns)
{
	if (lock_open(p) < 0)
		return;
	struct lsc__trace *tr = p->trace;
	uint64_t now = lsc__now_ns();
	unsigned lane = 0;
	while (lane < tr->n_lanes && strcmp(tr->lanes[lane].name, name))
		lane++;
	if (lane == tr->n_lanes && lane < LSC__TRACE_LANES) {
		snprintf(tr->lanes[lane].name, sizeof(tr->lanes[lane].name), "%s", name);
		tr->lanes[lane].end_ns = 0;
		tr->n_lanes++;
	} else if (lane == tr->n_lanes) {
		lane = LSC__TRACE_LANES - 1; /* the last track takes the rest */
	}
	char label[64];
	snprintf(label, sizeof(label), "overlapped: %s", tr->lanes[lane].name);
	if (name_thread(p, LANE_TID + (long)lane, label) < 0)
		return;
	/* Busy time is a sum, not an interval: it is drawn ending now, and
	 * never over the track's previous event. */
	uint64_t ts = now > busy_ns ? now - busy_ns : 0;
	if (ts < tr->lanes[lane].end_ns)
		ts = tr->lanes[lane].end_ns;
	if (ts > now)
		ts = now;
	tr->lanes[lane].end_ns = now;
	struct tbuf t;
	head(&t, name, lsc_phase_name(kind), "X", ts, LANE_TID + (long)lane);
	put(&t, ",\"dur\":");
	put_us(&t, now - ts);
	put(&t, ",\"args\":{\"bytes\":");
	put_uint(&t, (unsigned long long)bytes);
	put(&t, ",\"busy_ms\":");
	put_fixed(&t, (double)busy_ns / 1e6, 3);
	put(&t, ",\"overlapped\":1}}");
	if (write_locked(p, &t) == 0)
		pthread_mutex_unlock(&tr->lock);
}

void lsc__trace_destroy(lsc_profiler *p)
{
	struct lsc__trace *tr = p->trace;
	if (!tr)
		return;
	if (tr->fd >= 0) {
		if (tr->state == LSC__TRACE_OPEN && tr->pid == getpid())
			write_whole(tr, "\n]\n", 3);
		close(tr->fd);
	}
	pthread_mutex_destroy(&tr->lock);
	free(tr);
	p->trace = NULL;
}

void lsc__trace_forget(lsc_profiler *p)
{
	struct lsc__trace *tr = p->trace;
	if (!tr)
		return;
	pthread_mutex_init(&tr->lock, NULL);
	if (tr->fd >= 0)
		close(tr->fd);
	tr->fd = -1;
	tr->state = LSC__TRACE_CLOSED;
}
