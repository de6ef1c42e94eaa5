/*
 * Starts and phase spans: what the profiler measures and the lines it
 * prints for them.
 *
 * A span samples at begin and end: the monotonic clock, the thread's CPU
 * (getrusage RUSAGE_THREAD), the process's faults (RUSAGE_SELF), the
 * /proc/vmstat counters that explain a memory stall and the memory stall
 * time itself (/proc/pressure/memory, PSI). The end also reads
 * /proc/self/status for VmRSS, VmLck and VmPin. The /proc reads happen
 * outside the profiler's lock, so spans in different threads do not
 * serialise on them.
 *
 * A span inside which its thread printed a failure line (an `error` line,
 * or a line with an `error` field: see lsc__emit) ended in failure: its
 * bytes are what was asked for, not what was done, so its phase line gives
 * no rate (an allocation that failed in 10 us once printed 248030.64 GiB/s)
 * and says "failed", with the bytes done when progress was reported.
 *
 * Unattributed time is the wall time of the start during which no span was
 * open in any thread: a counter of open spans starts a "covered" interval on
 * 0 -> 1 and closes it on 1 -> 0. Seed reports kept finding tens of seconds
 * that no log line accounted for; this is the number that shows it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "format/human.h"
#include "host/procfs.h"
#include "profiler/profiler_impl.h"

static const char *const phase_names[LSC_PHASE_KIND_COUNT] = {
	"custom", "allocate", "pin", "read", "copy", "verify",
};

LSC_API const char *lsc_phase_name(enum lsc_phase_kind kind)
{
	return (unsigned)kind < LSC_PHASE_KIND_COUNT ? phase_names[kind] : "?";
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* ---- starts --------------------------------------------------------------------- */

LSC_API int lsc_start_begin(lsc_profiler *p, const char *name)
{
	if (!p || !p->on)
		return 0;
	uint64_t now = lsc__now_ns();
	pthread_mutex_lock(&p->lock);
	int twice = p->start_open;
	if (!twice) {
		p->start_open = 1;
		__atomic_store_n(&p->start_ns, now, __ATOMIC_RELAXED);
		p->phases = 0;
		p->covered_ns = 0;
		p->cover_t0 = now;
		p->start_seen = 1;
		p->start_ended = 0;
		p->n_rows = p->rows_dropped = 0;
	}
	pthread_mutex_unlock(&p->lock);
	if (twice) {
		lsc__usage(p, LSC__USAGE_START_TWICE, "lsc_start_begin called while a start is open");
		return -EINVAL;
	}

	char when[32] = "n/a";
	time_t t = time(NULL);
	struct tm tm;
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);

	struct lsc__rec r;
	lsc__rec_init(&r, LSC__EV(START));
	lsc__rec_say(&r, "%s: pid %d, loadscope %s, %s", name ? name : "start", (int)getpid(),
		     lsc_version_string(), when);
	lsc__rec_detail(&r); /* the sentence has them all; the run is in every tail */
	lsc__rec_i64(&r, "pid", getpid());
	lsc__rec_str(&r, LSC__KEY(NAME), name ? name : "");
	lsc__rec_str(&r, "lib", lsc_version_string());
	lsc__rec_str(&r, "time", when);
	lsc__emit(p, &r);

	struct lsc_system sys;
	lsc_profiler_system(p, &sys);
	lsc__rec_init(&r, LSC__EV(SYSTEM));
	lsc__system_rec(&r, &sys);
	lsc__emit(p, &r);

	if (!(p->flags & LSC_PROFILER_NO_WATCHDOG))
		lsc__watchdog_start(p);
	return 0;
}

LSC_API int lsc_start_end(lsc_profiler *p)
{
	if (!p || !p->on)
		return 0;
	uint64_t now = lsc__now_ns();
	pthread_mutex_lock(&p->lock);
	int open = p->start_open;
	unsigned still_open = p->open_spans;
	uint64_t covered = p->covered_ns, start = p->start_ns;
	unsigned phases = p->phases;
	if (open) {
		/* Spans still open count as covered up to now; they may still
		 * end later and will print their own lines. */
		if (p->open_spans) {
			covered += now - p->cover_t0;
			p->cover_t0 = now;
		}
		p->start_open = 0;
	}
	pthread_mutex_unlock(&p->lock);
	if (!open) {
		lsc__usage(p, LSC__USAGE_NO_START, "lsc_start_end called with no start open");
		return -EINVAL;
	}
	if (still_open) {
		char msg[96];
		snprintf(msg, sizeof(msg), "%u span(s) still open at lsc_start_end", still_open);
		lsc__usage(p, LSC__USAGE_OPEN_AT_END, msg);
	}
	uint64_t wall = now - start;
	if (covered > wall)
		covered = wall;
	uint64_t un = wall - covered;
	pthread_mutex_lock(&p->lock);
	p->start_ended = 1;
	p->end_wall_ns = wall;
	p->end_covered_ns = covered;
	pthread_mutex_unlock(&p->lock);
	char w[LSC__HBUF], u[LSC__HBUF];
	struct lsc__rec r;
	lsc__rec_init(&r, LSC__EV(READY));
	lsc__rec_say(&r, "in %s: %u phases, %s (%.1f%%) unattributed", lsc__fmt_secs(w, secs(wall)),
		     phases, lsc__fmt_secs(u, secs(un)), wall ? 100.0 * (double)un / (double)wall : 0.0);
	lsc__rec_detail(&r);
	lsc__rec_f64(&r, LSC__KEY(WALL_S), secs(wall), 6);
	lsc__rec_u64(&r, "phases", phases);
	lsc__rec_f64(&r, LSC__KEY(COVERED_S), secs(covered), 6);
	lsc__rec_f64(&r, LSC__KEY(UNATTRIBUTED_S), secs(un), 6);
	lsc__emit(p, &r);
	return 0;
}

/* ---- spans ---------------------------------------------------------------------- */

/* A handle's generation, drawn from one counter for every profiler of the
 * process: a handle is then open in at most one profiler, and ending P's
 * handle on Q is refused with a usage line instead of ending whichever
 * span of Q had the same number (each profiler counted from 1). Wraps
 * after 2^26 - 1 spans, never to 0. */
static uint32_t next_gen(void)
{
	static _Atomic uint32_t gen;
	return atomic_fetch_add_explicit(&gen, 1, memory_order_relaxed) % ((1u << (32 - LSC__SLOT_BITS)) - 1) + 1;
}

LSC_API int lsc_span_begin(lsc_profiler *p, enum lsc_phase_kind kind, const char *name,
			   uint64_t bytes, lsc_span *out)
{
	if (out)
		*out = 0;
	if (!p || !p->on)
		return 0;
	if (!out || (unsigned)kind >= LSC_PHASE_KIND_COUNT)
		return -EINVAL;
	struct lsc__sample s0;
	lsc__sample(p, &s0);
	pid_t tid = lsc__tid();

	pthread_mutex_lock(&p->lock);
	struct lsc__span *sp = NULL;
	unsigned slot = 0;
	for (; slot < LSC__SPANS_MAX; slot++)
		if (!p->spans[slot].id) {
			sp = &p->spans[slot];
			break;
		}
	if (!sp) {
		pthread_mutex_unlock(&p->lock);
		lsc__usage(p, LSC__USAGE_TOO_MANY, "more than 64 spans open at once");
		return -ENOSPC;
	}
	/* The parent is the innermost span this thread has open. */
	struct lsc__span *parent = NULL;
	for (unsigned i = 0; i < LSC__SPANS_MAX; i++) {
		struct lsc__span *o = &p->spans[i];
		if (o->id && o->tid == tid && !o->closing && (!parent || o->seq > parent->seq))
			parent = o;
	}
	sp->id = (next_gen() << LSC__SLOT_BITS) | slot;
	sp->tid = tid;
	sp->seq = ++p->seq;
	sp->parent = parent ? parent->id : 0;
	sp->depth = parent ? parent->depth + 1 : 0;
	sp->kind = kind;
	snprintf(sp->name, sizeof(sp->name), "%s", name ? name : phase_names[kind]);
	atomic_store(&sp->bytes, bytes);
	atomic_store(&sp->done, 0);
	sp->closing = 0;
	sp->failed = 0;
	sp->s0 = s0;
	sp->wd_last = s0;
	sp->wd_done_last = 0;
	sp->wd_next_ns = s0.ns + (uint64_t)(p->wd_after_s * 1e9);
	if (p->open_spans++ == 0)
		p->cover_t0 = s0.ns;
	*out = sp->id;
	char traced[sizeof(sp->name)];
	memcpy(traced, sp->name, sizeof(traced));
	pthread_mutex_unlock(&p->lock);
	/* The begin is in the file at once: a phase that never ends (a hung
	 * pin, a killed start) is still drawn, open to the trace's end. */
	if (p->trace)
		lsc__trace_begin(p, traced, kind, s0.ns);
	return 0;
}

void lsc__span_mark_failed(lsc_profiler *p)
{
	pid_t tid = lsc__tid();
	pthread_mutex_lock(&p->lock);
	struct lsc__span *in = NULL;
	for (unsigned i = 0; i < LSC__SPANS_MAX; i++) {
		struct lsc__span *o = &p->spans[i];
		if (o->id && o->tid == tid && !o->closing && (!in || o->seq > in->seq))
			in = o;
	}
	if (in)
		in->failed = 1;
	pthread_mutex_unlock(&p->lock);
}

/* The slot of a live handle, or NULL. Called with the lock held. */
static struct lsc__span *find_span(lsc_profiler *p, lsc_span s)
{
	if (!s)
		return NULL;
	struct lsc__span *sp = &p->spans[s & ((1u << LSC__SLOT_BITS) - 1)];
	return sp->id == s ? sp : NULL;
}

LSC_API int lsc_span_set_bytes(lsc_profiler *p, lsc_span s, uint64_t bytes)
{
	if (!p || !p->on || !s)
		return 0;
	pthread_mutex_lock(&p->lock);
	struct lsc__span *sp = find_span(p, s);
	if (sp)
		atomic_store(&sp->bytes, bytes);
	pthread_mutex_unlock(&p->lock);
	return sp ? 0 : -EINVAL;
}

LSC_API int lsc_span_progress(lsc_profiler *p, lsc_span s, uint64_t done)
{
	if (!p || !p->on || !s)
		return 0;
	/* Lock-free: a stale slot can at worst credit progress to the span that
	 * reused it, for one watchdog line. Called per I/O completion. */
	struct lsc__span *sp = &p->spans[s & ((1u << LSC__SLOT_BITS) - 1)];
	atomic_store_explicit(&sp->done, done, memory_order_relaxed);
	return 0;
}

/* The machine's counters (vmstat is system-wide), named as such beside the
 * process's own faults: one name per count. The sentence leaves out pgfault
 * (every fault of every process: the process's minor faults are the figure
 * of this span) and the nr_free_pages gauge; the fields keep both. */
static void say_vm(struct lsc__rec *r, const struct lsc_span_result *res)
{
	if (!res->vm_valid) {
		lsc__rec_say(r, "; vmstat n/a");
		return;
	}
	int any = 0;
	for (unsigned c = 0; c < LSC_VM_COUNT; c++) {
		if (!((res->vm_valid >> c) & 1u) || res->vm[c] == 0 || c == LSC_VM_PGFAULT ||
		    c == LSC_VM_NR_FREE_PAGES)
			continue;
		char b[LSC__HBUF];
		lsc__rec_say(r, "%s%s %s%s", any ? " " : "; machine ", lsc_vm_name(c),
			     res->vm[c] > 0 ? "+" : "", lsc__fmt_count(b, (double)res->vm[c]));
		any = 1;
	}
}

/* "stalled on memory 8.100 s": some task stalled that long in the span
 * (its wall time is the line's, every task's stall the psi_full_us field):
 * only when some task stalled; the fields carry the zero and the n/a. */
static void say_psi(struct lsc__rec *r, const struct lsc_span_result *res)
{
	char b1[LSC__HBUF];
	if (res->psi_some_us <= 0)
		return;
	lsc__rec_say(r, "; stalled on memory %s", lsc__fmt_secs(b1, (double)res->psi_some_us / 1e6));
}

static void psi_field(struct lsc__rec *r, const char *key, int64_t us)
{
	if (us < 0)
		lsc__rec_str(r, key, LSC__WORD_NA);
	else
		lsc__rec_i64(r, key, us);
}

/* A counter's delta, -1 when either end is n/a (a counter that went back,
 * as after a psi file swapped under us, is n/a too, never negative). */
static int64_t psi_delta(int64_t a, int64_t b)
{
	return a >= 0 && b >= a ? b - a : -1;
}

static void phase_line(lsc_profiler *p, const struct lsc__span *sp,
		       const struct lsc_span_result *res)
{
	char b1[LSC__HBUF], b2[LSC__HBUF], b3[LSC__HBUF], b4[LSC__HBUF];
	double wall = secs(res->wall_ns);
	int failed = sp->failed;
	double gibps = !failed && wall > 0 && res->bytes ? (double)res->bytes / 1073741824.0 / wall : NAN;
	double fps = wall > 0 && res->minflt >= 0 ? (double)res->minflt / wall : NAN;
	double pages = failed ? 0 : (double)res->bytes / 4096.0;
	double us_pp = pages > 0 ? wall * 1e6 / pages : NAN;
	uint64_t done = atomic_load(&sp->done);

	struct lsc__rec r;
	lsc__rec_init(&r, LSC__EV(PHASE));
	/* "prefault (nested): ...": its figures are inside its parent's, and
	 * a reader of the sentence alone must not add them twice */
	const char *name = sp->name;
	char nested[sizeof sp->name + 12];
	if (sp->depth > 0) {
		snprintf(nested, sizeof nested, "%s (nested)", sp->name);
		name = nested;
	}
	if (failed && res->bytes && done)
		lsc__rec_say(&r, "%s: failed after %s, %s of %s done", name, lsc__fmt_secs(b2, wall),
			     lsc__fmt_bytes(b1, (double)done), lsc__fmt_bytes(b3, (double)res->bytes));
	else if (failed && res->bytes)
		lsc__rec_say(&r, "%s: failed after %s (%s asked)", name, lsc__fmt_secs(b2, wall),
			     lsc__fmt_bytes(b1, (double)res->bytes));
	else if (failed)
		lsc__rec_say(&r, "%s: failed after %s", name, lsc__fmt_secs(b2, wall));
	else if (res->bytes && isfinite(gibps))
		lsc__rec_say(&r, "%s: %s in %s (%.2f GiB/s)", name, lsc__fmt_bytes(b1, (double)res->bytes),
			     lsc__fmt_secs(b2, wall), gibps);
	else if (res->bytes)
		lsc__rec_say(&r, "%s: %s in %s (no rate without time)", name,
			     lsc__fmt_bytes(b1, (double)res->bytes), lsc__fmt_secs(b2, wall));
	else
		lsc__rec_say(&r, "%s: %s", name, lsc__fmt_secs(b2, wall));
	/* The machine's counters before the process's faults: every number
	 * of the sentence is followed by a word, so a reader can tell a
	 * sentence cut inside a number (tools/triage/lsc_sentence.c). */
	say_vm(&r, res);
	if (res->minflt >= 0)
		lsc__rec_say(&r, "; this process %s minor, %s major faults",
			     lsc__fmt_count(b1, (double)res->minflt), lsc__fmt_count(b4, (double)res->majflt));
	say_psi(&r, res);

	/* A nested span of the caller's own is a detail of its parent's line
	 * (prefault in allocate): verbose, JSON and the trace have it. A
	 * loader phase nested in an engine's span (read inside its
	 * "weights") is a phase of the start: always said. */
	r.detail_line = sp->depth > 0 && !failed && sp->kind == LSC_PHASE_CUSTOM;
	lsc__rec_str(&r, LSC__KEY(KIND), lsc_phase_name(sp->kind));
	if (failed)
		lsc__rec_u64(&r, "failed", 1);
	lsc__rec_detail(&r);
	lsc__rec_f64(&r, LSC__KEY(WALL_S), wall, 6);
	lsc__rec_u64(&r, "span", sp->id);
	lsc__rec_u64(&r, "parent", sp->parent);
	lsc__rec_u64(&r, LSC__KEY(DEPTH), sp->depth);
	lsc__rec_str(&r, LSC__KEY(NAME), sp->name);
	lsc__rec_u64(&r, LSC__KEY(BYTES), res->bytes);
	lsc__rec_f64(&r, LSC__KEY(GIBPS), gibps, 3);
	lsc__rec_f64(&r, "user_s", secs(res->user_ns), 3);
	lsc__rec_f64(&r, "sys_s", secs(res->sys_ns), 3);
	lsc__rec_i64(&r, "minflt", res->minflt);
	lsc__rec_i64(&r, LSC__KEY(MAJFLT), res->majflt);
	lsc__rec_f64(&r, LSC__KEY(FAULTS_PER_S), fps, 0);
	lsc__rec_f64(&r, "us_per_page", us_pp, 3);
	if (!res->vm_valid)
		lsc__rec_str(&r, LSC__KEY(VM), "n/a");
	for (unsigned c = 0; c < LSC_VM_COUNT; c++)
		if (((res->vm_valid >> c) & 1u) && res->vm[c] != 0)
			lsc__rec_i64(&r, lsc__vm_keys[c], res->vm[c]);
	lsc__rec_i64(&r, "rss_kib", res->rss_kib);
	lsc__rec_i64(&r, "lck_kib", res->lck_kib);
	lsc__rec_i64(&r, "pin_kib", res->pin_kib);
	psi_field(&r, LSC__KEY(PSI_SOME_US), res->psi_some_us);
	psi_field(&r, LSC__KEY(PSI_FULL_US), res->psi_full_us);
	if (failed && done)
		lsc__rec_u64(&r, "done_bytes", done);
	lsc__emit(p, &r);
}

LSC_API int lsc_span_end(lsc_profiler *p, lsc_span s, struct lsc_span_result *res)
{
	struct lsc_span_result local;
	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	if (!p || !p->on || !s)
		return 0;
	pid_t tid = lsc__tid();

	pthread_mutex_lock(&p->lock);
	struct lsc__span *sp = find_span(p, s);
	enum lsc__usage bad = LSC__USAGE_DOUBLE_END;
	const char *why = NULL;
	if (!sp || sp->closing) {
		why = "a span was ended twice (or its handle is not open in this profiler)";
	} else if (sp->tid != tid) {
		bad = LSC__USAGE_FOREIGN_THREAD;
		why = "a span was ended from a thread other than the one that opened it";
	} else {
		for (unsigned i = 0; i < LSC__SPANS_MAX; i++)
			if (p->spans[i].id && p->spans[i].parent == s && !p->spans[i].closing) {
				bad = LSC__USAGE_OUT_OF_ORDER;
				why = "a span was ended while a span nested in it was still open";
				break;
			}
	}
	if (!why)
		sp->closing = 1;
	pthread_mutex_unlock(&p->lock);
	if (why) {
		lsc__usage(p, bad, why);
		return -EINVAL;
	}

	/* Only this thread touches a closing span's fields besides the
	 * watchdog, which skips closing spans. */
	struct lsc__sample s1;
	lsc__sample(p, &s1);
	struct lsc__status st;
	if (lsc__procfd_status(p, &st) < 0)
		st.rss_kib = st.lck_kib = st.pin_kib = -1;

	res->kind = sp->kind;
	res->bytes = atomic_load(&sp->bytes);
	res->wall_ns = s1.ns - sp->s0.ns;
	res->user_ns = s1.user_ns > sp->s0.user_ns ? s1.user_ns - sp->s0.user_ns : 0;
	res->sys_ns = s1.sys_ns > sp->s0.sys_ns ? s1.sys_ns - sp->s0.sys_ns : 0;
	res->minflt = s1.minflt >= 0 && sp->s0.minflt >= 0 ? s1.minflt - sp->s0.minflt : -1;
	res->majflt = s1.majflt >= 0 && sp->s0.majflt >= 0 ? s1.majflt - sp->s0.majflt : -1;
	res->vm_valid = s1.vm.valid & sp->s0.vm.valid;
	for (unsigned c = 0; c < LSC_VM_COUNT; c++)
		res->vm[c] = ((res->vm_valid >> c) & 1u) ? s1.vm.v[c] - sp->s0.vm.v[c] : 0;
	res->rss_kib = st.rss_kib;
	res->lck_kib = st.lck_kib;
	res->pin_kib = st.pin_kib;
	res->psi_some_us = psi_delta(sp->s0.psi_some_us, s1.psi_some_us);
	res->psi_full_us = psi_delta(sp->s0.psi_full_us, s1.psi_full_us);

	/* The trace first: a sink that blocks in the phase line must not
	 * keep the span from the file. */
	if (p->trace)
		lsc__trace_span(p, sp, res, &s1.vm);
	phase_line(p, sp, res);

	pthread_mutex_lock(&p->lock);
	lsc__table_add(p, sp->kind, sp->name, 0, sp->failed, res->wall_ns, res->bytes);
	sp->id = 0;
	sp->closing = 0;
	p->phases++;
	if (--p->open_spans == 0)
		p->covered_ns += s1.ns - p->cover_t0;
	pthread_mutex_unlock(&p->lock);
	return 0;
}

LSC_API int lsc_phase_record(lsc_profiler *p, enum lsc_phase_kind kind, const char *name,
			     uint64_t bytes, uint64_t busy_ns)
{
	if (!p || !p->on)
		return 0;
	if ((unsigned)kind >= LSC_PHASE_KIND_COUNT)
		return -EINVAL;
	const char *n = name ? name : phase_names[kind];
	double wall = secs(busy_ns);
	double gibps = wall > 0 && bytes ? (double)bytes / 1073741824.0 / wall : NAN;
	char b1[LSC__HBUF], b2[LSC__HBUF];
	struct lsc__rec r;
	lsc__rec_init(&r, LSC__EV(PHASE));
	/* No busy time, no rate: "(nan GiB/s)" once said it. */
	if (bytes && isfinite(gibps))
		lsc__rec_say(&r, "%s: %s in %s busy (%.2f GiB/s), overlapped with other phases", n,
			     lsc__fmt_bytes(b1, (double)bytes), lsc__fmt_secs(b2, wall), gibps);
	else if (bytes)
		lsc__rec_say(&r, "%s: %s in %s busy (no rate without busy time), overlapped with other "
			     "phases", n, lsc__fmt_bytes(b1, (double)bytes), lsc__fmt_secs(b2, wall));
	else
		lsc__rec_say(&r, "%s: %s busy, overlapped with other phases", n, lsc__fmt_secs(b2, wall));
	lsc__rec_str(&r, LSC__KEY(KIND), lsc_phase_name(kind));
	lsc__rec_u64(&r, LSC__KEY(OVERLAPPED), 1);
	lsc__rec_detail(&r);
	lsc__rec_f64(&r, LSC__KEY(WALL_S), wall, 6);
	lsc__rec_str(&r, LSC__KEY(NAME), n);
	lsc__rec_u64(&r, LSC__KEY(BYTES), bytes);
	lsc__rec_f64(&r, LSC__KEY(GIBPS), gibps, 3);
	pthread_mutex_lock(&p->lock);
	lsc__table_add(p, kind, n, 1, 0, busy_ns, bytes);
	p->phases++;
	pthread_mutex_unlock(&p->lock);
	if (p->trace)
		lsc__trace_overlapped(p, kind, n, bytes, busy_ns);
	return lsc__emit(p, &r);
}

LSC_API int lsc_region_note(lsc_profiler *p, const char *what, const void *addr, size_t len,
			    struct lsc_region_info *out)
{
	struct lsc_region_info local;
	if (!out)
		out = &local;
	int ret = lsc_region_read(p, addr, len, out);
	if (!p || !p->on)
		return ret;
	char b1[LSC__HBUF], b2[LSC__HBUF], b3[LSC__HBUF], b4[LSC__HBUF], b5[LSC__HBUF];
	struct lsc__rec r;
	lsc__rec_init(&r, LSC__EV(REGION));
	const char *w = what ? what : "region";
	if (ret < 0) {
		lsc__rec_say(&r, "%s: page backing n/a (%s)", w, lsc_strerror(ret));
		lsc__rec_str(&r, LSC__KEY(WHAT), w);
		lsc__rec_str(&r, "smaps", "n/a");
		lsc__emit(p, &r);
		return ret;
	}
	lsc__rec_say(&r, "%s: %s mapped, %s resident, %s in transparent huge pages, %s hugetlb, %s locked; THPeligible %s; %u mapping%s",
		     w, lsc__fmt_bytes(b1, (double)out->bytes), lsc__fmt_bytes(b2, (double)out->rss_bytes),
		     lsc__fmt_bytes(b3, (double)out->anon_huge_bytes), lsc__fmt_bytes(b4, (double)out->hugetlb_bytes),
		     lsc__fmt_bytes(b5, (double)out->locked_bytes),
		     out->thp_eligible < 0 ? "n/a" : out->thp_eligible ? "1" : "0", out->mappings,
		     out->mappings == 1 ? "" : "s");
	lsc__rec_str(&r, LSC__KEY(WHAT), w);
	lsc__rec_detail(&r); /* the sentence has every figure */
	lsc__rec_u64(&r, LSC__KEY(BYTES), out->bytes);
	lsc__rec_u64(&r, "rss_bytes", out->rss_bytes);
	lsc__rec_u64(&r, "anon_huge_bytes", out->anon_huge_bytes);
	lsc__rec_u64(&r, LSC__KEY(HUGETLB_BYTES), out->hugetlb_bytes);
	lsc__rec_u64(&r, "locked_bytes", out->locked_bytes);
	lsc__rec_i64(&r, "thp_eligible", out->thp_eligible);
	lsc__rec_u64(&r, "mappings", out->mappings);
	lsc__emit(p, &r);
	return ret;
}
