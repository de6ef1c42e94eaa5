/*
 * The adaptive prefault of the `auto` policy: fault the huge-page part of
 * the arena in steps and move what is left of it to 4 KiB pages as soon as
 * a step stalls.
 *
 * The free 2 MiB blocks that thp_auto.c counted are a snapshot: other
 * allocations take some before our faults reach them, and an MADV_HUGEPAGE
 * fault that finds none compacts in the faulting thread under a synchronous
 * defrag mode (seed 001: compact_stall == compact_fail for every fault,
 * 432 s to ready against 25 s). So between steps this reads the clock,
 * compact_stall and compact_fail (/proc/vmstat) and the memory stall time
 * (/proc/pressure/memory), and switches when a step
 *  - raised compact_fail by LSC__ADAPT_FAIL_MIN (8) or more: with steps of
 *    32-256 MiB (16-128 huge faults) that is a failed compaction for at
 *    least one fault in 16 of the largest step, and each failed one cost a
 *    synchronous compaction for nothing; one or two can be another
 *    process's; or
 *  - ran at under 1/LSC__ADAPT_SLOW_DIV (1/4) of the first two steps' best
 *    rate while compacting (compact_stall rose) or with some task stalled
 *    on memory for LSC__ADAPT_PSI_PCT (10 %) of the step. A rate that falls
 *    without either is not a stall of ours: on a VM with free page
 *    reporting first touches are slow whatever the page size, and 4 KiB
 *    pages only move that cost into the read (docs/benchmarks.md, "Host
 *    refault"), so it is left alone.
 * The switch is MADV_NOHUGEPAGE on the untouched rest of the huge part,
 * before any of it is touched, and one `fallback what=auto` line with the
 * offset, the time and the figures. The 4 KiB part (MADV_NOHUGEPAGE from
 * the start) is faulted last, in one go: it cannot compact.
 *
 * That host refault is a cost 4 KiB pages avoid only where they come from
 * the free blocks the host still backs (below the reported order): the
 * refault cover thp_auto.c gives, the last bytes of the huge part. There
 * the prefault measures instead of guessing: it faults the cover's last
 * 16 MiB first in 4 KiB pages, then a first huge step of 16 MiB (8 huge
 * pages: a host refault makes them 10-30 times slower, so 8 tell), and
 * when that step, or any later one, ran slower than the 4 KiB pages
 * without compacting (the huge pages came from blocks the host had taken
 * back: on the build VM 0.4-0.7 GiB/s, against 4-15 GiB/s where it had
 * not; a host may have taken back some of them and not others), the rest
 * of the cover moves to 4 KiB pages, with its own `fallback what=auto`
 * line. It costs at most one step at the refault rate (the first: about
 * 30 ms at 0.5 GiB/s).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "format/c_locale.h"
#include "format/human.h"
#include "format/line.h"
#include "format/vocab.h"
#include "host/procfs.h"
#include "loader/arena_int.h"
#include "loader/lines.h"
#include "sys/sys.h"
#include "profiler/internal.h"

static const struct lsc__adapt_source *source;

void lsc__adapt_set_source(const struct lsc__adapt_source *src)
{
	source = src;
}

/* The machine's reading, by the profiler's proc root. */
static int machine_reading(const char *proc_root, struct lsc__adapt_reading *out)
{
	struct lsc_vmstat vm;
	struct lsc__psi psi;

	out->ns = lsc__now_ns();
	out->compact_stall = out->compact_fail = -1;
	if (lsc_vmstat_read(proc_root, &vm) == 0) {
		if (vm.valid & (1u << LSC_VM_COMPACT_STALL))
			out->compact_stall = vm.v[LSC_VM_COMPACT_STALL];
		if (vm.valid & (1u << LSC_VM_COMPACT_FAIL))
			out->compact_fail = vm.v[LSC_VM_COMPACT_FAIL];
	}
	lsc__psi_read(proc_root, &psi);
	out->psi_some_us = psi.some_us;
	return 0;
}

static void reading(lsc_profiler *p, struct lsc__adapt_reading *out)
{
	if (source && source->next) {
		if (source->next(source->user, out) == 0)
			return;
		/* A sequence that ran out reads as nothing known. */
		memset(out, 0, sizeof *out);
		out->compact_stall = out->compact_fail = out->psi_some_us = -1;
		return;
	}
	machine_reading(lsc__proc_root(p), out);
}

static int64_t delta(int64_t a, int64_t b)
{
	return a >= 0 && b >= a ? b - a : -1;
}

static uint64_t step_of(uint64_t huge)
{
	uint64_t step = huge / 16 / LSC__HPAGE_DEFAULT * LSC__HPAGE_DEFAULT;
	if (step < LSC__ADAPT_STEP_MIN)
		step = LSC__ADAPT_STEP_MIN;
	if (step > LSC__ADAPT_STEP_MAX)
		step = LSC__ADAPT_STEP_MAX;
	return step;
}

/* What one step showed. */
struct step {
	uint64_t bytes, ns;
	int64_t stall, fail, psi_us; /* deltas; -1 n/a */
	double gibps;
};

/* Whether @s stalls against @first (the best rate of the first steps, 0
 * while there is none); the cause in @cause. */
static int stalls(const struct step *s, double first, const char **cause)
{
	if (s->fail >= LSC__ADAPT_FAIL_MIN) {
		*cause = "compact_fail rising";
		return 1;
	}
	int slow = first > 0 && s->gibps * LSC__ADAPT_SLOW_DIV < first;
	int compacting = s->stall > 0;
	int psi = s->psi_us >= 0 && s->ns > 0 &&
		  (double)s->psi_us * 1000.0 * 100.0 >= (double)s->ns * LSC__ADAPT_PSI_PCT;
	if (slow && (compacting || psi)) {
		*cause = compacting ? "the rate fell while compacting" : "the rate fell while stalled on memory";
		return 1;
	}
	return 0;
}

static void fmt_count(char *out, size_t cap, int64_t v)
{
	if (v < 0)
		snprintf(out, cap, "n/a");
	else
		snprintf(out, cap, "+%lld", (long long)v);
}

/* What both kinds of switch line end their text with and begin their
 * fields with: a refused advice, and what was wanted and taken. */
static void switch_keys(struct lsc__rec *r, const char *why, int advice_rc)
{
	if (advice_rc < 0)
		lsc__rec_say(r, " (madvise(MADV_NOHUGEPAGE) failed: %s; they stay advised for huge pages)",
			     lsc__errname(advice_rc));
	lsc__rec_str(r, LSC__KEY(WHAT), "auto");
	lsc__rec_str(r, LSC__KEY(WANTED), "thp");
	lsc__rec_str(r, LSC__KEY(TOOK), advice_rc < 0 ? "thp" : "4k");
	lsc__rec_detail(r); /* the sentence has the reason and its figures */
	lsc__rec_str(r, LSC__KEY(REASON), why);
}

/* The one line of a switch: when (offset, time), why, with which figures. */
static void switch_line(lsc_profiler *p, uint64_t at, uint64_t at_ns, uint64_t huge, uint64_t rest,
			const struct step *s, double first, const char *cause, const char *why,
			int advice_rc)
{
	char b1[LSC__HBUF], b2[LSC__HBUF], b3[LSC__HBUF], b4[LSC__HBUF];
	char st[24], fl[24], psi[LSC__HBUF];
	struct lsc__rec r;

	if (!lsc_profiler_enabled(p))
		return;
	fmt_count(st, sizeof st, s->stall);
	fmt_count(fl, sizeof fl, s->fail);
	if (s->psi_us < 0)
		snprintf(psi, sizeof psi, "n/a");
	else
		lsc__fmt_secs(psi, (double)s->psi_us / 1e6);
	lsc__rec_init(&r, LSC__EV(FALLBACK));
	lsc__rec_say(&r, "auto: wanted huge pages, took 4k for the rest: after %s of %s in huge pages "
			 "(%s into the prefault), a step of %s ran at %.2f GiB/s",
		     lsc__fmt_bytes(b1, (double)at), lsc__fmt_bytes(b2, (double)huge),
		     lsc__fmt_secs(b3, (double)at_ns / 1e9), lsc__fmt_bytes(b4, (double)s->bytes),
		     s->gibps);
	if (first > 0)
		lsc__rec_say(&r, " against %.2f GiB/s in the first steps", first);
	lsc__rec_say(&r, ", compact_stall %s, compact_fail %s, stalled on memory %s: %s; the other "
			 "%s of the huge part get 4 KiB pages",
		     st, fl, psi, cause, lsc__fmt_bytes(b1, (double)rest));
	switch_keys(&r, why, advice_rc);
	lsc__rec_u64(&r, "at_bytes", at);
	lsc__rec_u64(&r, "huge_bytes", huge);
	lsc__rec_f64(&r, "after_s", (double)at_ns / 1e9, 3);
	lsc__rec_u64(&r, "step_bytes", s->bytes);
	lsc__rec_f64(&r, "step_gibps", s->gibps, 3);
	lsc__rec_f64(&r, "first_gibps", first > 0 ? first : NAN, 3);
	lsc__rec_i64(&r, "compact_stall_delta", s->stall);
	lsc__rec_i64(&r, "compact_fail_delta", s->fail);
	lsc__rec_i64(&r, "psi_some_us", s->psi_us);
	lsc__emit(p, &r);
}

/* The line of a refault switch: huge pages ran slower than 4 KiB ones. */
static void refault_line(lsc_profiler *p, uint64_t at, uint64_t moved, const struct step *s,
			 double probe_gibps, uint64_t probe_bytes, const char *why, int advice_rc)
{
	char b1[LSC__HBUF], b2[LSC__HBUF], b3[LSC__HBUF], st[24];
	struct lsc__rec r;

	if (!lsc_profiler_enabled(p))
		return;
	fmt_count(st, sizeof st, s->stall);
	lsc__rec_init(&r, LSC__EV(FALLBACK));
	(void)b2, (void)b3;
	lsc__rec_say(&r, "auto: wanted huge pages, took 4k for %s: huge pages fault in the host at "
			 "%.2f GiB/s, 4 KiB pages at %.2f GiB/s",
		     lsc__fmt_bytes(b1, (double)moved), s->gibps, probe_gibps);
	if (s->stall)
		lsc__rec_say(&r, ", compact_stall %s", st);
	switch_keys(&r, why, advice_rc);
	lsc__rec_u64(&r, "at_bytes", at);
	lsc__rec_u64(&r, "moved_bytes", moved);
	lsc__rec_u64(&r, "step_bytes", s->bytes);
	lsc__rec_f64(&r, "step_gibps", s->gibps, 3);
	lsc__rec_u64(&r, "probe_bytes", probe_bytes);
	lsc__rec_f64(&r, "probe_gibps", probe_gibps, 3);
	lsc__rec_i64(&r, "compact_stall_delta", s->stall);
	lsc__emit(p, &r);
}

static void merge(struct lsc__prefault_result *r, const struct lsc__prefault_result *part)
{
	if (part->threads > r->threads)
		r->threads = part->threads;
	r->touched |= part->touched;
	r->numa_bound |= part->numa_bound;
	if (!r->numa_why[0])
		snprintf(r->numa_why, sizeof r->numa_why, "%s", part->numa_why);
}

static struct step step_between(const struct lsc__adapt_reading *a, const struct lsc__adapt_reading *b,
				uint64_t len)
{
	struct step s = {.bytes = len, .ns = b->ns > a->ns ? b->ns - a->ns : 0,
			 .stall = delta(a->compact_stall, b->compact_stall),
			 .fail = delta(a->compact_fail, b->compact_fail),
			 .psi_us = delta(a->psi_some_us, b->psi_some_us)};
	s.gibps = s.ns ? (double)len / 1073741824.0 / ((double)s.ns / 1e9) : 0;
	return s;
}

/* Did huge step @s fault in the host? Slower than the 4 KiB probe, with
 * no compaction in it (compaction is the other rule's). */
static int host_refault(const struct step *s, double probe_gibps)
{
	return probe_gibps > 0 && s->gibps > 0 && s->gibps < probe_gibps && s->stall <= 0 &&
	       s->fail < LSC__ADAPT_FAIL_MIN;
}

/* One adaptive prefault as it goes: the caller's arguments, where the huge
 * part ends now (a switch moves it), the refault probe and the figures the
 * steps are judged against. */
struct adapt {
	lsc_profiler *p;
	const lsc_span *spans;
	unsigned n_spans;
	char *b;
	uint64_t huge, refault_cover;
	unsigned threads;
	int node;                      /* -1 once a binding failed: said once */
	struct lsc__prefault_result *r;
	struct lsc__adapt_result *ar;
	uint64_t end;                  /* the huge part still to fault ends here */
	uint64_t probe;                /* bytes of the refault probe, 0: none */
	double probe_gibps, first;
	uint64_t t0;
	struct lsc__adapt_reading prev;
};

/* Fault @len bytes at @off quietly, merged into the result, and read the
 * machine after it: @s the step's figures, @now the reading. 0 or the
 * prefault's error. */
static int fault_step(struct adapt *A, uint64_t off, uint64_t len, struct step *s,
		      struct lsc__adapt_reading *now)
{
	struct lsc__prefault_result part;
	int rc = lsc__prefault_part(A->p, A->spans, A->n_spans, A->b + off, len, off, LSC__PREFAULT_QUIET,
				    A->threads, A->node, &part);
	merge(A->r, &part);
	if (A->node >= 0 && !part.numa_bound)
		A->node = -1;
	if (rc < 0)
		return rc;
	reading(A->p, now);
	*s = step_between(&A->prev, now, len);
	A->prev = *now;
	return 0;
}

/* The refault probe: the last bytes of the cover in 4 KiB pages, faulted
 * first for the rate the huge steps in the cover are held to. Not advised,
 * not measured: no probe, and the cover stays huge. 0 or the prefault's
 * error. */
static int run_probe(struct adapt *A)
{
	uint64_t probe = A->refault_cover < LSC__ADAPT_PROBE ? A->refault_cover : LSC__ADAPT_PROBE;
	if (A->huge < 2 * LSC__ADAPT_STEP_MIN)
		probe = 0; /* too small to measure and still have huge pages */
	if (probe && lsc__sys->madvise(A->b + A->huge - probe, (size_t)probe, MADV_NOHUGEPAGE) < 0)
		probe = 0;
	A->probe = probe;
	if (!probe)
		return 0;
	struct step s;
	struct lsc__adapt_reading now;
	int rc = fault_step(A, A->huge - probe, probe, &s, &now);
	if (rc < 0)
		return rc;
	A->probe_gibps = s.gibps;
	A->end = A->huge - probe;
	return 0;
}

/* A huge step in the refault cover ran slower than the probe's 4 KiB pages:
 * move the cover still ahead, from @from, to 4 KiB pages, and say it. */
static void refault_switch(struct adapt *A, uint64_t off, uint64_t len, uint64_t from, const struct step *s,
			   const struct lsc__adapt_reading *now)
{
	struct lsc__adapt_result *ar = A->ar;
	locale_t loc = lsc__c_locale_enter();
	char why[256];
	snprintf(why, sizeof why,
		 "huge pages fault in the host at %llu of %llu bytes: a step of %llu "
		 "bytes at %.2f GiB/s against %.2f GiB/s for 4 KiB pages",
		 (unsigned long long)off, (unsigned long long)A->huge, (unsigned long long)len, s->gibps,
		 A->probe_gibps);
	lsc__c_locale_leave(loc);
	int arc = 0;
	if (lsc__sys->madvise(A->b + from, (size_t)(A->end - from), MADV_NOHUGEPAGE) < 0)
		arc = -errno;
	refault_line(A->p, from, A->end - from, s, A->probe_gibps, A->probe, why, arc);
	if (arc == 0) {
		ar->switched = ar->refault = 1;
		ar->switch_at = from;
		ar->switch_ns = now->ns > A->t0 ? now->ns - A->t0 : 0;
		snprintf(ar->why, sizeof ar->why, "%s", why);
		A->end = from;
	}
}

/* A huge step stalled (@cause): move the rest of the huge part, from @off,
 * to 4 KiB pages, and say it. */
static void stall_switch(struct adapt *A, uint64_t off, uint64_t len, const char *cause, const struct step *s,
			 const struct lsc__adapt_reading *now)
{
	struct lsc__adapt_result *ar = A->ar;
	char why[256], fl[24];
	fmt_count(fl, sizeof fl, s->fail);
	/* the stats' reason: its figures in the C locale, as the lines' */
	locale_t loc = lsc__c_locale_enter();
	snprintf(why, sizeof why,
		 "%s at %llu of %llu bytes: a step of %llu bytes at %.2f GiB/s against "
		 "%.2f GiB/s first, compact_fail %s",
		 cause, (unsigned long long)off, (unsigned long long)A->huge, (unsigned long long)len, s->gibps,
		 A->first, fl);
	lsc__c_locale_leave(loc);
	int arc = 0;
	if (lsc__sys->madvise(A->b + off, (size_t)(A->end - off), MADV_NOHUGEPAGE) < 0)
		arc = -errno;
	uint64_t at_ns = now->ns > A->t0 ? now->ns - A->t0 : 0;
	switch_line(A->p, off, at_ns, A->huge, A->end - off, s, A->first, cause, why, arc);
	/* The first switch is the one the stats keep; a refused one leaves the
	 * rest advised for huge pages, and the stats must not say it moved. */
	if (!ar->switched && arc == 0) {
		ar->switched = 1;
		ar->switch_at = off;
		ar->switch_ns = at_ns;
		snprintf(ar->why, sizeof ar->why, "%s", why);
	}
}

/* The huge part in steps, each judged as it ends: a refault switch or a
 * stall moves what is ahead. @off receives where the steps stopped. 0 or
 * the prefault's error. */
static int huge_steps(struct adapt *A, uint64_t *off_out)
{
	uint64_t step = step_of(A->huge), off = 0;
	int refault_said = 0; /* one refault switch, or one refused one */
	int rc = 0;
	while (off < A->end) {
		uint64_t want = A->probe && A->ar->steps == 0 ? LSC__ADAPT_PROBE : step;
		uint64_t len = A->end - off < want ? A->end - off : want;
		struct step s;
		struct lsc__adapt_reading now;
		if ((rc = fault_step(A, off, len, &s, &now)) < 0)
			break;
		off += len;
		A->ar->steps++;
		uint64_t from = A->huge - A->refault_cover > off ? A->huge - A->refault_cover : off;
		if (A->probe && !refault_said && from < A->end && host_refault(&s, A->probe_gibps)) {
			refault_said = 1;
			refault_switch(A, off, len, from, &s, &now);
			continue;
		}
		const char *cause;
		if (off < A->end && stalls(&s, A->ar->steps > 2 ? A->first : 0, &cause)) {
			stall_switch(A, off, len, cause, &s, &now);
			break;
		}
		if (A->ar->steps <= 2 && s.gibps > A->first)
			A->first = s.gibps;
	}
	*off_out = off;
	return rc;
}

int lsc__prefault_adaptive(lsc_profiler *p, const lsc_span *spans, unsigned n_spans, void *base,
			   uint64_t bytes, uint64_t huge, uint64_t refault_cover, unsigned threads,
			   int numa_node, struct lsc__prefault_result *r, struct lsc__adapt_result *ar)
{
	memset(r, 0, sizeof *r);
	memset(ar, 0, sizeof *ar);
	if (!base || !bytes)
		return -EINVAL;
	if (huge > bytes)
		huge = bytes;
	if (refault_cover > huge)
		refault_cover = huge;
	ar->huge_bytes = huge;
	struct adapt A = {.p = p, .spans = spans, .n_spans = n_spans, .b = base, .huge = huge,
			  .refault_cover = refault_cover, .threads = threads, .node = numa_node,
			  .r = r, .ar = ar, .end = huge};
	/* The 4 KiB part, advised before anything is touched. A failure here
	 * leaves it asking for huge pages: said, not fatal. */
	if (huge < bytes && lsc__sys->madvise(A.b + huge, (size_t)(bytes - huge), MADV_NOHUGEPAGE) < 0) {
		char why[160];
		snprintf(why, sizeof why, "madvise(MADV_NOHUGEPAGE) on the last %llu bytes: %s",
			 (unsigned long long)(bytes - huge), lsc__errname(-errno));
		lsc__load_fallback(p, "auto", "4k for the rest", "huge pages for all", why);
	}
	reading(p, &A.prev);
	A.t0 = A.prev.ns;
	uint64_t off = 0;
	int rc = run_probe(&A);
	if (rc < 0)
		return rc;
	if ((rc = huge_steps(&A, &off)) < 0)
		return rc;
	if (off < bytes) {
		struct lsc__prefault_result part;
		rc = lsc__prefault_part(p, spans, n_spans, A.b + off, bytes - off, off, LSC__PREFAULT_QUIET,
					threads, A.node, &part);
		merge(r, &part);
	}
	if (r->touched)
		lsc__load_fallback(p, "prefault", "MADV_POPULATE_WRITE", "touching one byte per page",
				   "the kernel refused MADV_POPULATE_WRITE (EINVAL; it needs Linux 5.14)");
	return rc;
}
