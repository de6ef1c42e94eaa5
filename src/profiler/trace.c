/*
 * The Chrome trace-event file (LOADSCOPE_TRACE=path): the same phases as the
 * log lines, as a timeline that Perfetto and chrome://tracing open.
 *
 * Spans become complete "X" events (ts and dur in microseconds from the
 * start), their vmstat deltas and bytes in args; each span end also writes
 * "C" counter events (RSS, and the compaction and reclaim deltas), so a stall
 * shows as a spike under the phase that paid for it. Events of one thread
 * nest strictly because the profiler refuses to end a span before its
 * children. Events are kept in a table allocated at creation (only when a
 * trace was asked for) and the file is rewritten at each start end and at
 * destroy, so that a reader never sees half a file:
 *
 * - The path must be absent or a regular file. Anything else (a device
 *   such as /dev/null or /dev/full, a FIFO, a directory, a symbolic link,
 *   to /dev/stdout or anywhere) is left alone and the trace is not
 *   written, said once in a note line. Renaming over the path replaced
 *   /dev/null itself with a JSON file when run as root (issue 14); writing
 *   through it instead would block the engine on a FIFO without a reader.
 * - The file is written with no name (O_TMPFILE in the path's directory),
 *   then linked under the path when nothing is there, or under PATH.PID.tmp
 *   and renamed over it. A process killed while writing (SIGKILL, SIGXFSZ)
 *   leaves nothing behind; only a kill between the link and the rename, two
 *   system calls, could leave the temporary name. A filesystem without
 *   O_TMPFILE gets the named temporary file from the start, created
 *   exclusively (O_EXCL | O_NOFOLLOW).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/c_locale.h"
#include "format/escape.h"
#include "profiler/profiler_impl.h"

void lsc__trace_add(lsc_profiler *p, const struct lsc__trace_event *ev)
{
	pthread_mutex_lock(&p->lock);
	if (p->n_trace < LSC__TRACE_MAX)
		p->trace[p->n_trace++] = *ev;
	else
		p->trace_dropped++;
	pthread_mutex_unlock(&p->lock);
}

/* Span names are the engine's: escaped to valid UTF-8 JSON as the lines
 * escape them (format/escape.h). */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		char e[LSC__ESC_MAX];
		size_t n;
		s += lsc__esc_char(s, 1, e, &n);
		fwrite(e, 1, n, f);
	}
	fputc('"', f);
}

static void write_event_c(FILE *f, const struct lsc__trace_event *e, uint64_t base, int pid);

/* ts and dur in the C locale whatever the engine set (format/c_locale.h). */
static void write_event(FILE *f, const struct lsc__trace_event *e, uint64_t base, int pid)
{
	locale_t loc = lsc__c_locale_enter();
	write_event_c(f, e, base, pid);
	lsc__c_locale_leave(loc);
}

static void write_event_c(FILE *f, const struct lsc__trace_event *e, uint64_t base, int pid)
{
	double ts = e->ts_ns > base ? (double)(e->ts_ns - base) / 1e3 : 0.0;
	fputs(",\n{\"name\":", f);
	json_str(f, e->name);
	fputs(",\"cat\":", f);
	json_str(f, e->cat);
	fprintf(f, ",\"ph\":\"%c\",\"ts\":%.3f,\"pid\":%d,\"tid\":%d", e->ph, ts, pid, (int)e->tid);
	if (e->ph == 'X')
		fprintf(f, ",\"dur\":%.3f", (double)e->dur_ns / 1e3);
	if (e->ph == 'i')
		fputs(",\"s\":\"t\"", f);
	fprintf(f, ",\"args\":{\"bytes\":%llu", (unsigned long long)e->bytes);
	if (e->ph == 'i')
		fprintf(f, ",\"busy_ms\":%.3f", (double)e->dur_ns / 1e6);
	else
		fprintf(f, ",\"minflt\":%lld", (long long)e->minflt);
	for (unsigned c = 0; c < LSC_VM_COUNT; c++)
		if (((e->vm_valid >> c) & 1u) && e->vm[c])
			fprintf(f, ",\"%s\":%lld", lsc_vm_name(c), (long long)e->vm[c]);
	fputs("}}", f);

	if (e->ph != 'X')
		return;
	double end = ts + (double)e->dur_ns / 1e3;
	if (e->rss_kib >= 0)
		fprintf(f, ",\n{\"name\":\"memory\",\"ph\":\"C\",\"ts\":%.3f,\"pid\":%d,\"args\":{\"rss_mib\":%.1f}}",
			end, pid, (double)e->rss_kib / 1024.0);
	static const enum lsc_vm_counter shown[] = {LSC_VM_COMPACT_STALL, LSC_VM_THP_FAULT_FALLBACK,
						    LSC_VM_ALLOCSTALL};
	fprintf(f, ",\n{\"name\":\"stalls\",\"ph\":\"C\",\"ts\":%.3f,\"pid\":%d,\"args\":{", end, pid);
	for (unsigned i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
		fprintf(f, "%s\"%s\":%lld", i ? "," : "", lsc_vm_name(shown[i]),
			(long long)(((e->vm_valid >> shown[i]) & 1u) ? e->vm[shown[i]] : 0));
	fputs("}}", f);
}

/* What is at @path when it is not something the trace may replace, or NULL
 * (absent, or a regular file). */
static const char *not_replaceable(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return NULL;
	switch (st.st_mode & S_IFMT) {
	case S_IFREG:
		return NULL;
	case S_IFLNK:
		return "a symbolic link";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFIFO:
		return "a FIFO";
	case S_IFDIR:
		return "a directory";
	case S_IFSOCK:
		return "a socket";
	default:
		return "not a regular file";
	}
}

/* An unnamed file in @path's directory, or -1. */
static int open_unnamed(const char *path)
{
	char dir[sizeof(((lsc_profiler *)0)->trace_path)];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	return open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
}

/* A named temporary file of our own: a stale one of ours (a regular file,
 * left by a kill between link and rename) is removed first. */
static int open_named(const char *tmp)
{
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0 && errno == EEXIST && !not_replaceable(tmp) && unlink(tmp) == 0)
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	return fd;
}

/* Give the unnamed file @fd a name: @path itself when nothing is there,
 * else @tmp, to be renamed over @path. Return 1 when it is at @path, 0 at
 * @tmp, -1 on failure. */
static int link_unnamed(int fd, const char *path, const char *tmp)
{
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0)
		return 1;
	if (errno != EEXIST)
		return -1;
	if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno == EEXIST && !not_replaceable(tmp) && unlink(tmp) == 0 &&
	    linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	return -1;
}

static void write_all(lsc_profiler *p, FILE *f)
{
	/* Events are only ever appended: take the count under the lock, then
	 * write without holding it, so spans in other threads do not wait on
	 * file I/O. */
	pthread_mutex_lock(&p->lock);
	size_t n = p->n_trace, dropped = p->trace_dropped;
	uint64_t base = p->start_ns;
	pthread_mutex_unlock(&p->lock);
	for (size_t i = 0; i < n; i++)
		if (!base || p->trace[i].ts_ns < base)
			base = p->trace[i].ts_ns;
	int pid = (int)getpid();
	fprintf(f, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"run\":\"%s\",\"loadscope\":\"%s\",\"dropped\":%zu},\n"
		   "\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"loadscope %s\"}}",
		p->run, lsc_version_string(), dropped, pid, p->run);
	for (size_t i = 0; i < n; i++)
		write_event(f, &p->trace[i], base, pid);
	fputs("\n]}\n", f);
}

int lsc__trace_write(lsc_profiler *p)
{
	const char *what = not_replaceable(p->trace_path);
	if (what) {
		pthread_mutex_lock(&p->lock);
		int told = p->trace_refused;
		p->trace_refused = 1;
		pthread_mutex_unlock(&p->lock);
		if (!told) {
			char msg[sizeof(p->trace_path) + 128];
			snprintf(msg, sizeof(msg), "%s is %s, not a regular file: left alone, no trace written",
				 p->trace_path, what);
			lsc_note(p, "trace", msg);
		}
		return -1;
	}
	/* The pid in the temporary name: ranks of one job started with the
	 * same LOADSCOPE_TRACE must not write into each other's file. */
	char tmp[sizeof(p->trace_path) + 32];
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", p->trace_path, (int)getpid());
	int unnamed = 1;
	int fd = open_unnamed(p->trace_path);
	if (fd < 0) {
		unnamed = 0;
		fd = open_named(tmp);
	}
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0) {
			close(fd);
			if (!unnamed)
				unlink(tmp);
		}
		lsc_note(p, "trace", "cannot write the trace file; no trace");
		return -1;
	}
	write_all(p, f);
	int bad = fflush(f) != 0 || ferror(f);
	int at = -1; /* 1: at the path, 0: at tmp */
	if (!bad)
		at = unnamed ? link_unnamed(fd, p->trace_path, tmp) : 0;
	bad = fclose(f) != 0 || bad || at < 0;
	if (!bad && at == 0)
		bad = rename(tmp, p->trace_path) != 0;
	if (bad) {
		if (at == 0 || !unnamed)
			unlink(tmp);
		lsc_note(p, "trace", "writing the trace file failed; no trace");
		return -1;
	}
	return 0;
}
