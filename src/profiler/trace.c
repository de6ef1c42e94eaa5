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
 * destroy, through a temporary file (named with the pid) and rename, so a reader never sees half
 * a file.
 */
#include <stdio.h>
#include <string.h>
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

int lsc__trace_write(lsc_profiler *p)
{
	/* The pid in the temporary name: ranks of one job started with the
	 * same LOADSCOPE_TRACE must not write into each other's file. */
	char tmp[sizeof(p->trace_path) + 32];
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", p->trace_path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		lsc_note(p, "trace", "cannot write the trace file; no trace");
		return -1;
	}
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
	int bad = ferror(f);
	if (fclose(f) != 0 || bad || rename(tmp, p->trace_path) != 0) {
		unlink(tmp);
		lsc_note(p, "trace", "writing the trace file failed; no trace");
		return -1;
	}
	return 0;
}
