/*
 * The watchdog: while a span has been open longer than its threshold, a
 * "still in <phase>" line at every interval with progress, the live rate,
 * faults per second, the compaction, THP-fallback and reclaim counters per
 * second and the memory stall time per second (PSI: 1000000 us/s is a
 * task stalled all the time), plus a hint when they match a known pattern.
 *
 * Seed 001's start crawled at 60-77 MB/s for minutes and the log said
 * nothing until the user sampled /proc by hand; seed 000's allocation sat in
 * one driver call for 200 s. A crawling start must explain itself while it
 * crawls. The thread starts with the first start (not at creation, so a
 * profiler that never profiles costs no thread), blocks every signal so the
 * engine's handlers never run on it, and wakes four times a second.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "format/human.h"
#include "profiler/profiler_impl.h"

struct due {
	lsc_span id;
	enum lsc_phase_kind kind;
	char name[48];
	uint64_t begin_ns, bytes, done, done_last;
	struct lsc__sample last;
};

static double per_s(const struct lsc__sample *a, const struct lsc__sample *b, enum lsc_vm_counter c)
{
	double dt = (double)(b->ns - a->ns) / 1e9;
	if (dt <= 0 || !((a->vm.valid >> c) & (b->vm.valid >> c) & 1u))
		return NAN;
	return (double)(b->vm.v[c] - a->vm.v[c]) / dt;
}

/* Stall us per second of wall time between two samples; NAN when n/a. */
static double psi_per_s(const struct lsc__sample *a, const struct lsc__sample *b, int full)
{
	double dt = (double)(b->ns - a->ns) / 1e9;
	int64_t x = full ? a->psi_full_us : a->psi_some_us, y = full ? b->psi_full_us : b->psi_some_us;
	if (dt <= 0 || x < 0 || y < x)
		return NAN;
	return (double)(y - x) / dt;
}

const char *lsc__watchdog_hint(double stall, double fail, double fallback, double reclaim, double swap,
			       double rate, double faults)
{
	if (stall >= 10 && fail >= 0.9 * stall)
		return "direct compaction is failing in the faulting thread (huge pages requested with a "
		       "synchronous defrag mode): allocate with the 4k THP policy or under "
		       "PR_SET_THP_DISABLE; 'loadscope probe' shows the settings";
	if (stall >= 10 || fallback >= 10)
		return "huge-page faults are compacting or falling back to 4 KiB pages";
	if (reclaim > 0 && swap > 0)
		return "direct reclaim and swapping: memory is short for this arena";
	if (reclaim > 0)
		return "direct reclaim: free memory is short, so faults reclaim page cache first";
	if (rate == 0 && faults < 1)
		return "no progress and no page faults: blocked outside memory (a device or driver call, "
		       "I/O or a lock)";
	return NULL;
}

/* ": 1.0 GiB of 4.0 GiB done (25%), 1.20 GiB/s now". Progress past the
 * span's bytes (a caller that declared too few, or a done of UINT64_MAX)
 * says so, where a share of it printed "16384.0 PiB of 1 B done
 * (1844674407370955161600%)". */
static void say_progress(struct lsc__rec *r, const struct due *d, double rate)
{
	char b1[LSC__HBUF], b2[LSC__HBUF];
	lsc__fmt_bytes(b1, (double)d->done);
	lsc__fmt_bytes(b2, (double)d->bytes);
	if (d->done > d->bytes)
		lsc__rec_say(r, ": %s done, more than the %s the span was given", b1, b2);
	else
		lsc__rec_say(r, ": %s of %s done (%.0f%%)", b1, b2,
			     100.0 * (double)d->done / (double)d->bytes);
	if (isfinite(rate))
		lsc__rec_say(r, ", %.2f GiB/s now", rate);
	else
		lsc__rec_say(r, ", rate n/a%s", d->done < d->done_last ? " (the progress went back)" : "");
}

static void still_line(lsc_profiler *p, const struct due *d, const struct lsc__sample *now)
{
	double el = (double)(now->ns - d->begin_ns) / 1e9;
	double dt = (double)(now->ns - d->last.ns) / 1e9;
	/* Progress that went back (a caller's counter reset) has no rate. */
	double rate = dt > 0 && d->done >= d->done_last
			      ? (double)(d->done - d->done_last) / 1073741824.0 / dt
			      : NAN;
	double faults = dt > 0 && now->minflt >= 0 && d->last.minflt >= 0
				? (double)(now->minflt - d->last.minflt) / dt
				: NAN;
	double stall = per_s(&d->last, now, LSC_VM_COMPACT_STALL);
	double fail = per_s(&d->last, now, LSC_VM_COMPACT_FAIL);
	double fallback = per_s(&d->last, now, LSC_VM_THP_FAULT_FALLBACK);
	double reclaim = per_s(&d->last, now, LSC_VM_ALLOCSTALL);
	double swap = per_s(&d->last, now, LSC_VM_PSWPIN) + per_s(&d->last, now, LSC_VM_PSWPOUT);
	double psi_some = psi_per_s(&d->last, now, 0), psi_full = psi_per_s(&d->last, now, 1);
	const char *h = lsc__watchdog_hint(stall, fail, fallback, reclaim, swap, d->bytes ? rate : NAN, faults);

	char b1[LSC__HBUF], b3[LSC__HBUF];
	struct lsc__rec r;
	lsc__rec_init(&r, LSC__EV(STILL));
	lsc__rec_say(&r, "in %s after %s", d->name, lsc__fmt_secs(b1, el));
	if (d->bytes)
		say_progress(&r, d, rate);
	/* brief: the machine's counters that moved, then the process's
	 * faults; every rate is in the fields (docs/log-format.md) */
	const double vm[] = {stall, fail, fallback, reclaim};
	static const enum lsc_vm_counter vc[] = {LSC_VM_COMPACT_STALL, LSC_VM_COMPACT_FAIL,
						 LSC_VM_THP_FAULT_FALLBACK, LSC_VM_ALLOCSTALL};
	/* from 0.5 a second, rounded half up: printf's half-even would say
	 * "0/s" of a counter that moved (a cast, not floor(): the library does
	 * not link libm) */
	for (unsigned i = 0, any = 0; i < 4; i++)
		if (isfinite(vm[i]) && vm[i] >= 0.5)
			lsc__rec_say(&r, "%s %s %.0f/s", any++ ? "" : "; machine", lsc_vm_name(vc[i]),
				     (double)(uint64_t)(vm[i] + 0.5));
	lsc__rec_say(&r, "; this process %s faults/s", lsc__fmt_count(b3, faults));
	if (isfinite(psi_some) && psi_some >= 5e3)
		lsc__rec_say(&r, "; stalled on memory %.0f%% of the time",
			     (double)(uint64_t)(psi_some / 1e4 + 0.5));
	if (h)
		lsc__rec_say(&r, "; hint: %s", h);
	lsc__rec_str(&r, LSC__KEY(KIND), lsc_phase_name(d->kind));
	lsc__rec_detail(&r);
	lsc__rec_str(&r, LSC__KEY(NAME), d->name);
	lsc__rec_u64(&r, "span", d->id);
	lsc__rec_f64(&r, LSC__KEY(ELAPSED_S), el, 3);
	lsc__rec_u64(&r, LSC__KEY(DONE_BYTES), d->done);
	lsc__rec_u64(&r, "total_bytes", d->bytes);
	lsc__rec_f64(&r, LSC__KEY(GIBPS), d->bytes ? rate : NAN, 3);
	lsc__rec_f64(&r, LSC__KEY(FAULTS_PER_S), faults, 0);
	lsc__rec_f64(&r, lsc__vm_rate_keys[LSC_VM_COMPACT_STALL], stall, 1);
	lsc__rec_f64(&r, lsc__vm_rate_keys[LSC_VM_COMPACT_FAIL], fail, 1);
	lsc__rec_f64(&r, lsc__vm_rate_keys[LSC_VM_THP_FAULT_FALLBACK], fallback, 1);
	lsc__rec_f64(&r, lsc__vm_rate_keys[LSC_VM_ALLOCSTALL], reclaim, 1);
	lsc__rec_f64(&r, LSC__KEY(PSI_SOME_US_PER_S), psi_some, 0);
	lsc__rec_f64(&r, LSC__KEY(PSI_FULL_US_PER_S), psi_full, 0);
	if (h)
		lsc__rec_str(&r, "hint", h);
	lsc__emit(p, &r);
}

static void *watchdog_main(void *arg)
{
	lsc_profiler *p = arg;
	struct due due[LSC__SPANS_MAX];
	pthread_mutex_lock(&p->lock);
	while (!p->wd_stop) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 250000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		int rc = pthread_cond_timedwait(&p->wd_cond, &p->lock, &ts);
		if (p->wd_stop)
			break;
		if (rc != ETIMEDOUT && rc != 0)
			continue;
		uint64_t now = lsc__now_ns();
		unsigned n = 0;
		for (unsigned i = 0; i < LSC__SPANS_MAX; i++) {
			struct lsc__span *sp = &p->spans[i];
			if (!sp->id || sp->closing || now < sp->wd_next_ns)
				continue;
			struct due *d = &due[n++];
			d->id = sp->id;
			d->kind = sp->kind;
			memcpy(d->name, sp->name, sizeof(d->name));
			d->begin_ns = sp->s0.ns;
			d->bytes = atomic_load(&sp->bytes);
			d->done = atomic_load(&sp->done);
			d->done_last = sp->wd_done_last;
			d->last = sp->wd_last;
			sp->wd_next_ns = now + (uint64_t)(p->wd_every_s * 1e9);
		}
		if (!n)
			continue;
		pthread_mutex_unlock(&p->lock);
		struct lsc__sample s;
		lsc__sample(p, &s);
		for (unsigned i = 0; i < n; i++)
			still_line(p, &due[i], &s);
		pthread_mutex_lock(&p->lock);
		for (unsigned i = 0; i < n; i++) {
			struct lsc__span *sp = &p->spans[due[i].id & ((1u << LSC__SLOT_BITS) - 1)];
			if (sp->id == due[i].id) {
				sp->wd_last = s;
				sp->wd_done_last = due[i].done;
			}
		}
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void lsc__watchdog_start(lsc_profiler *p)
{
	/* Only the first start creates the thread; later starts find it
	 * running (2) or being created (1) and leave the state alone. Writing
	 * 1 over a 2 here once made stop forget to join it, and destroy freed
	 * the profiler under a live thread (issue 14). */
	pthread_mutex_lock(&p->lock);
	int started = p->wd_started;
	if (!started)
		p->wd_started = 1;
	pthread_mutex_unlock(&p->lock);
	if (started)
		return;
	/* The condition variable waits on CLOCK_MONOTONIC: a wall-clock jump
	 * must not silence the watchdog. */
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_destroy(&p->wd_cond);
	pthread_cond_init(&p->wd_cond, &ca);
	pthread_condattr_destroy(&ca);

	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = lsc__thread_start(&p->wd_thread, LSC__THREAD_WATCHDOG, watchdog_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		pthread_mutex_lock(&p->lock);
		p->wd_started = 0;
		pthread_mutex_unlock(&p->lock);
		lsc_note(p, "watchdog", "could not start the watchdog thread; no 'still in' lines");
	} else {
		pthread_mutex_lock(&p->lock);
		p->wd_started = 2; /* running: join it at stop */
		pthread_mutex_unlock(&p->lock);
	}
}

void lsc__watchdog_stop(lsc_profiler *p)
{
	pthread_mutex_lock(&p->lock);
	int running = p->wd_started == 2;
	p->wd_stop = 1;
	pthread_cond_broadcast(&p->wd_cond);
	pthread_mutex_unlock(&p->lock);
	if (running)
		lsc__thread_join(&p->wd_thread);
}

/* In a forked child, with the profiler's lock held by the forking thread
 * (fork.c): the thread is the parent's, and the condition variable may
 * count it as a waiter or have been mid-update when the fork copied it, so
 * it gets a fresh state (watchdog_start gives it the monotonic clock). */
void lsc__watchdog_forget(lsc_profiler *p)
{
	pthread_cond_init(&p->wd_cond, NULL);
	p->wd_started = 0;
	p->wd_stop = 0;
}
