/*
 * The arena's allocate phase and its release.
 *
 * Order matters and comes from the seed reports: choose the page-size policy
 * (the caller's, LOADSCOPE_ARENA_THP's, or the `auto` judgement), map and
 * advise every piece before anything touches it, print that decision with
 * its numbers *before* the faults (a crawling fault must already have
 * explained itself, seed 001), then prefault in parallel. For process-off
 * the PR_SET_THP_DISABLE hold spans the mapping and the prefault, where the
 * faults happen (seed 000), and is restored on every path out.
 *
 * Memory a pin backend maps itself (LSC__PIN_CAP_ALLOC: hipHostMalloc) can
 * only be reached by process-off, so that path is taken for process-off
 * with an unchunked arena, or for a backend that cannot register at all.
 * Whatever fails, nothing stays mapped and one line says why.
 *
 * lsc__arena_alloc is that order and nothing else: each step is a function
 * over one struct alloc (choose_policy, decide, decide_by_pin,
 * hold_process_off, alloc_by_pin, map_own, the arena line, prefault_arena,
 * release_hold), and decide() is the one place a policy's geometry is
 * planned and given to the arena. An `auto` arena that asks for huge pages
 * under a synchronous defrag mode is faulted by the adaptive prefault
 * (prefault_adaptive.c), which may move its rest to 4 KiB pages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/arena.h"
#include "pin/kfd_counter.h"
#include "loader/arena_int.h"
#include "loader/env.h"
#include "loader/lines.h"
#include "pin/phase.h"
#include "sys/sys.h"
#include "format/human.h"
#include "host/assess.h"
#include "profiler/internal.h"

static uint64_t round_up(uint64_t v, uint64_t unit)
{
	return (v + unit - 1) / unit * unit;
}

/* LOADSCOPE_ARENA_THP, read once per allocation; a bad value keeps the
 * option and says so. */
static enum lsc_thp_policy policy_from_env(lsc_profiler *p, enum lsc_thp_policy opt, int *from_env)
{
	enum lsc_thp_policy e = opt;
	const char *v;
	char reason[192];
	int r = lsc__env_thp(&e, &v);

	*from_env = r > 0;
	if (r >= 0)
		return e;
	snprintf(reason, sizeof reason,
		 "LOADSCOPE_ARENA_THP=%.64s is not a policy (auto, 4k, thp, hugetlb, process-off)", v);
	lsc__load_fallback(p, "arena", v, lsc_thp_policy_name(opt), reason);
	return opt;
}

/* The geometry of a policy: page unit, rounded size, pieces. */
struct geometry {
	uint64_t unit, mapped, piece, align;
	unsigned n;
};

static int geometry(enum lsc_thp_policy pol, const struct lsc_system *s, uint64_t bytes,
		    uint64_t chunk, struct geometry *g)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t hpage = s->hpage_pmd_size > 0 ? (uint64_t)s->hpage_pmd_size : LSC__HPAGE_DEFAULT;
	uint64_t tlb = s->hugetlb_page_kib > 0 ? (uint64_t)s->hugetlb_page_kib << 10
					       : LSC__HPAGE_DEFAULT;

	g->unit = pol == LSC_THP_THP ? hpage : pol == LSC_THP_HUGETLB ? tlb : page;
	g->align = pol == LSC_THP_HUGETLB ? tlb : hpage;
	/* Rounding up a size within a unit of 2^64 would wrap it to 0, and the
	 * reservation adds an alignment's worth on top. */
	uint64_t room = g->unit > g->align ? g->unit : g->align;
	if (bytes > UINT64_MAX - 2 * room || chunk > UINT64_MAX - room)
		return -EINVAL;
	g->mapped = round_up(bytes, g->unit);
	g->piece = chunk ? round_up(chunk, g->unit) : g->mapped;
	if (g->piece > g->mapped)
		g->piece = g->mapped;
	uint64_t n = g->mapped / g->piece + (g->mapped % g->piece != 0);
	if (n > 0xffffffffull)
		return -EINVAL;
	g->n = (unsigned)n;
	return 0;
}

/* geometry(), saying in @why what was wrong with the sizes. */
static int plan(enum lsc_thp_policy pol, const struct lsc_system *s, uint64_t bytes,
		uint64_t chunk, struct geometry *g, char *why, size_t cap)
{
	int rc = geometry(pol, s, bytes, chunk, g);
	if (rc < 0)
		snprintf(why, cap, "%llu bytes in chunks of %llu: more than 2^32 pieces, or past 2^64 "
				   "once rounded up to %s pages",
			 (unsigned long long)bytes, (unsigned long long)chunk, lsc_thp_policy_name(pol));
	return rc;
}

/* The `arena` line: the policy that applies, before the first fault. */
static void arena_line(lsc_profiler *p, const struct lsc__arena *a, const struct lsc_system *s,
		       const char *requested, const char *source, const char *how)
{
	struct lsc__rec r;

	if (!lsc_profiler_enabled(p))
		return;
	lsc__rec_init(&r, LSC__EV(ARENA));
	char b1[LSC__HBUF], b2[LSC__HBUF];
	lsc__rec_say(&r, "%s as %s", lsc__fmt_bytes(b1, (double)a->bytes),
		     lsc_thp_policy_name(a->applied));
	if (a->n_pieces > 1)
		lsc__rec_say(&r, " in %u pieces of %s", a->n_pieces,
			     lsc__fmt_bytes(b2, (double)a->piece_bytes));
	/* The verdict in a few words; the reason with its numbers is a
	 * field (verbose, JSON, the trace), and the system line has them. */
	lsc__rec_say(&r, " (requested %s by %s): %s%s", requested, source,
		     a->thp_verdict ? a->thp_verdict : a->thp_reason, how);
	if (a->allocated_by_pin)
		lsc__arena_device_say(&r, a);
	if (a->auto_watch && a->auto_huge_bytes < a->mapped_bytes)
		lsc__rec_say(&r, "; huge pages for %s", lsc__fmt_bytes(b2, (double)a->auto_huge_bytes));
	if (a->auto_watch)
		lsc__rec_say(&r, "; faulted in steps, watched");
	if (a->auto_refault_cover)
		lsc__rec_say(&r, "; %s watched for host refaults",
			     lsc__fmt_bytes(b2, (double)a->auto_refault_cover));
	lsc__rec_str(&r, LSC__KEY(POLICY), lsc_thp_policy_name(a->applied));
	lsc__rec_detail(&r);
	lsc__rec_str(&r, LSC__KEY(REQUESTED), requested);
	lsc__rec_str(&r, LSC__KEY(SOURCE), source);
	lsc__rec_str(&r, LSC__KEY(REASON), a->thp_reason);
	lsc__rec_str(&r, LSC__KEY(THP_ENABLED), *s->thp_enabled ? s->thp_enabled : "n/a");
	lsc__rec_str(&r, LSC__KEY(THP_DEFRAG), *s->thp_defrag ? s->thp_defrag : "n/a");
	if (s->free_huge_blocks_bytes == LSC_NA)
		lsc__rec_str(&r, "free_huge_blocks_bytes", "n/a");
	else
		lsc__rec_i64(&r, "free_huge_blocks_bytes", s->free_huge_blocks_bytes);
	if (s->mem_available != LSC_NA)
		lsc__rec_i64(&r, "mem_available_bytes", s->mem_available);
	lsc__rec_u64(&r, LSC__KEY(ARENA_BYTES), a->bytes);
	lsc__rec_u64(&r, "mapped_bytes", a->mapped_bytes);
	lsc__rec_u64(&r, "pieces", a->n_pieces);
	lsc__rec_u64(&r, "piece_bytes", a->piece_bytes);
	if (a->applied == LSC_THP_PROCESS_OFF)
		lsc__rec_str(&r, "thp_prctl_saved", lsc_thp_disable_name(s->prctl_thp_disable));
	if (a->allocated_by_pin && a->pin)
		lsc__rec_str(&r, "allocated_by", a->pin->name);
	if (a->auto_watch) {
		lsc__rec_u64(&r, "auto_watch", 1);
		lsc__rec_u64(&r, "auto_huge_bytes", a->auto_huge_bytes);
		lsc__rec_u64(&r, "auto_4k_bytes", a->mapped_bytes - a->auto_huge_bytes);
		if (a->auto_refault_cover)
			lsc__rec_u64(&r, "auto_refault_cover_bytes", a->auto_refault_cover);
	}
	lsc__emit(p, &r);
}

/* The one line of a failed allocation. */
static void fail_line(lsc_profiler *p, const struct lsc__arena *a, const struct lsc_system *s,
		      int rc, const char *why)
{
	struct lsc__rec r;

	if (!lsc_profiler_enabled(p))
		return;
	lsc__rec_init(&r, LSC__EV(ARENA));
	char b1[LSC__HBUF];
	lsc__rec_say(&r, "allocating %s as %s failed: %s", lsc__fmt_bytes(b1, (double)a->bytes),
		     lsc_thp_policy_name(a->applied), why);
	if (s->mem_available != LSC_NA)
		lsc__rec_say(&r, " (MemAvailable %s)", lsc__fmt_bytes(b1, (double)s->mem_available));
	lsc__rec_str(&r, LSC__KEY(POLICY), lsc_thp_policy_name(a->applied));
	lsc__rec_str(&r, LSC__KEY(REQUESTED), lsc_thp_policy_name(a->wanted));
	lsc__rec_str(&r, LSC__KEY(ERR), lsc__errname(rc));
	lsc__rec_str(&r, LSC__KEY(REASON), why);
	lsc__rec_u64(&r, LSC__KEY(ARENA_BYTES), a->bytes);
	if (s->mem_available != LSC_NA)
		lsc__rec_i64(&r, "mem_available_bytes", s->mem_available);
	lsc__emit(p, &r);
}

/* hugetlb could not be had: say how short the pool is. */
static void hugetlb_reason(lsc_profiler *p, const struct geometry *g, char *out, size_t len)
{
	struct lsc_system now;

	lsc_system_read(lsc__proc_root(p), lsc__sys_root(p), &now);
	unsigned long long need = g->mapped / g->unit;
	char mib[32];
	snprintf(mib, sizeof mib, "%llu MiB", (unsigned long long)(g->unit >> 20));
	if (now.hugetlb_free == LSC_NA || now.hugetlb_total == LSC_NA)
		snprintf(out, len, "hugetlb unavailable (needed %llu %s pages, pool n/a)", need, mib);
	else
		snprintf(out, len,
			 "hugetlb unavailable (needed %llu %s pages, pool has %lld free of %lld, %lld of them reserved)",
			 need, mib, (long long)now.hugetlb_free, (long long)now.hugetlb_total,
			 (long long)(now.hugetlb_rsvd == LSC_NA ? 0 : now.hugetlb_rsvd));
}

/* PR_GET_THP_DISABLE's bits in words ("off" alone reads as "THP off"). */
static const char *saved_meaning(int64_t bits)
{
	if (bits == 0)
		return "THP allowed";
	if (bits & 2)
		return "THP disabled except advised";
	return "THP disabled";
}

/* Put the process's THP switch back; a second try for a transient failure
 * (the process must not keep THP off because of us). */
static int restore(struct lsc__thp_hold *h)
{
	int rc = lsc__thp_restore(h);
	if (rc < 0)
		rc = lsc__thp_restore(h);
	return rc;
}

/* One allocation as its steps make it: what each step reads and leaves for
 * the next. */
struct alloc {
	lsc_profiler *p;
	const struct lsc_load_options *o;
	const struct lsc__pin_ops *ops; /* the pin backend to come; may be NULL */
	struct lsc__arena *a;
	struct lsc_system s;            /* the snapshot the decisions read */
	struct geometry g;              /* of a->applied, as decide() planned it */
	struct lsc__thp_hold hold;
	struct lsc__phase span;         /* the allocate phase */
	const char *source;             /* who asked for a->wanted */
	int by_pin;                     /* the backend allocates the arena itself */
	int said;                       /* the failure has had its line already */
	char why[256], how[160];
};

/* What an `auto` decision asks of the prefault: the part that asks for
 * huge pages (the whole arena, rounded up by decide(), when it fits) and
 * whether to watch the steps. */
static void take_auto(struct lsc__arena *a, const struct lsc__thp_decision *d)
{
	a->auto_watch = d->policy == LSC_THP_THP && d->watch;
	a->auto_huge_bytes = a->auto_watch ? d->huge_bytes : 0;
	a->auto_refault_cover = a->auto_watch ? d->refault_cover : 0;
}

/* What `auto` weighs besides the snapshot: on a guest with free page
 * reporting, the free memory the host still backs, and whether the pin is
 * for a GPU. */
static void auto_host(struct alloc *st, struct lsc__auto_host *h)
{
	h->free_unreported_bytes = lsc__free_unreported(lsc__proc_root(st->p), &st->s, NULL);
	h->device_pin = st->ops && (st->ops->caps & LSC__PIN_CAP_DEVICE);
}

/* The policy asked for (LOADSCOPE_ARENA_THP over the option) and, for
 * `auto`, the judgement of the system snapshot. */
static void choose_policy(struct alloc *st)
{
	struct lsc__arena *a = st->a;

	a->wanted = policy_from_env(st->p, st->o->thp, &a->thp_from_env);
	a->applied = a->wanted;
	st->source = a->thp_from_env ? "LOADSCOPE_ARENA_THP" : "option";
	lsc_system_read(lsc__proc_root(st->p), lsc__sys_root(st->p), &st->s);
	if (a->applied == LSC_THP_AUTO) {
		struct lsc__thp_decision d;
		struct lsc__auto_host h;
		auto_host(st, &h);
		lsc__thp_auto(&st->s, a->bytes, &h, &d);
		a->applied = d.policy;
		snprintf(a->thp_reason, sizeof a->thp_reason, "%s", d.reason);
		a->thp_verdict = d.verdict;
		take_auto(a, &d);
	} else {
		snprintf(a->thp_reason, sizeof a->thp_reason, "asked for");
		a->thp_verdict = "asked for";
	}
}

/* Apply @pol: its geometry, planned once, into st->g and the arena. Every
 * decision of a policy goes through here. */
static int decide(struct alloc *st, enum lsc_thp_policy pol)
{
	struct lsc__arena *a = st->a;

	a->applied = pol;
	int rc = plan(pol, &st->s, a->bytes, st->o->chunk_bytes, &st->g, st->why, sizeof st->why);
	if (rc < 0)
		return rc;
	if (pol != LSC_THP_THP)
		a->auto_watch = 0;
	if (a->auto_watch && a->auto_huge_bytes > st->g.mapped)
		a->auto_huge_bytes = st->g.mapped;
	if (a->auto_watch && a->auto_huge_bytes >= a->bytes)
		a->auto_huge_bytes = st->g.mapped;
	if (!a->auto_watch || a->auto_refault_cover > a->auto_huge_bytes)
		a->auto_refault_cover = a->auto_watch ? a->auto_huge_bytes : 0;
	a->mapped_bytes = st->g.mapped;
	a->piece_bytes = st->g.piece;
	a->n_pieces = st->g.n;
	return 0;
}

/* Whether the pin backend maps this memory itself: only for one piece, and
 * only reached by process-off (or when the backend cannot register). 4k
 * becomes process-off there, the only way to keep THP off memory someone
 * else maps; thp and hugetlb cannot reach it, and the reason says so. */
static int decide_by_pin(struct alloc *st)
{
	struct lsc__arena *a = st->a;
	const struct lsc__pin_ops *ops = st->ops;
	char *r = a->thp_reason;
	size_t used = strlen(r);

	st->by_pin = ops && (ops->caps & LSC__PIN_CAP_ALLOC) && ops->alloc && ops->free &&
		     st->g.n == 1 &&
		     (a->applied == LSC_THP_PROCESS_OFF || !(ops->caps & LSC__PIN_CAP_REGISTER));
	if (st->by_pin)
		a->auto_watch = 0, a->auto_huge_bytes = 0, a->auto_refault_cover = 0; /* the backend faults it */
	if (!st->by_pin || a->applied == LSC_THP_PROCESS_OFF)
		return 0;
	if (a->applied != LSC_THP_4K) {
		snprintf(r + used, sizeof a->thp_reason - used,
			 "; not applied: the %s backend maps this memory itself", ops->name);
		a->thp_verdict = "not applied: the pin backend maps it";
		return 0;
	}
	snprintf(r + used, sizeof a->thp_reason - used,
		 "; process-off, the only policy that reaches memory %s maps itself", ops->name);
	a->thp_verdict = "the pin backend maps it";
	return decide(st, LSC_THP_PROCESS_OFF);
}

/* process-off: PR_SET_THP_DISABLE from here until the faults are done. */
static int hold_process_off(struct alloc *st)
{
	if (st->a->applied != LSC_THP_PROCESS_OFF)
		return 0;
	int rc = lsc__thp_hold(&st->hold);
	if (rc < 0) {
		snprintf(st->why, sizeof st->why, "prctl(PR_SET_THP_DISABLE): %s", lsc__errname(rc));
		return rc;
	}
	snprintf(st->how, sizeof st->how, "; PR_SET_THP_DISABLE held around allocation and prefault, "
					  "then restored to %lld (%s)",
		 (long long)st->hold.saved, saved_meaning(st->hold.saved));
	/* The snapshot's bits are what we restore to. */
	st->s.prctl_thp_disable = st->hold.saved;
	return 0;
}

/* The pin backend's own allocation (CAP_ALLOC), under the process-off hold
 * when asked. A failure falls back to our own mapping with a line, or,
 * under LSC_LOAD_PIN_STRICT, is the allocation's failure (its line carries
 * st->why). Return 0 or that negative error. */
static int alloc_by_pin(struct alloc *st)
{
	struct lsc__arena *a = st->a;
	const struct lsc__pin_ops *ops = st->ops;
	char *why = st->why;
	size_t why_len = sizeof st->why;
	void *base = NULL;
	char wanted[48];

	if (!st->by_pin)
		return 0;
	snprintf(wanted, sizeof wanted, "%s allocation", ops->name);
	why[0] = '\0';
	int rc = ops->probe ? ops->probe(why, why_len) : 0;
	/* Seed 000's stall lives inside this call (hipHostMalloc retrying the
	 * KFD userptr ioctl thousands of times): count it when we can. */
	struct lsc__kfd_mark k;
	lsc__kfd_mark(&k);
	if (rc == 0)
		rc = ops->alloc((size_t)a->mapped_bytes, LSC__PIN_PORTABLE | LSC__PIN_MAPPED, &base, why,
				why_len);
	lsc__kfd_add(&k, &a->kfd_seen, &a->kfd_calls, &a->kfd_eagain, &a->kfd_ns);
	if (a->kfd_seen)
		lsc__kfd_note(st->p, a, ops->name);
	if (rc == 0 && base) {
		a->base = base;
		a->allocated_by_pin = 1;
		a->pin = ops;
		a->pinned_bytes = (ops->caps & LSC__PIN_CAP_LOCKS) ? a->mapped_bytes : 0;
		a->pin_segments = 1;
		a->pin_segment_bytes = a->mapped_bytes;
		lsc__arena_device_map(a);
		return 0;
	}
	if (rc == 0)
		rc = -ENOMEM;
	if (!*why)
		snprintf(why, why_len, "%s: %s", ops->name, lsc__errname(rc));
	if (st->o->flags & LSC_LOAD_PIN_STRICT)
		return rc;
	lsc__load_fallback(st->p, "pin", wanted, "own mapping, then the pin chain", why);
	return 0;
}

static int map_pieces(struct alloc *st, int *refused)
{
	const struct geometry *g = &st->g;

	return lsc__policy_map(st->a->applied, g->mapped, g->piece, g->n, g->align, &st->a->base,
			       refused, st->why, sizeof st->why);
}

/* hugetlb could not be had. Under LSC_LOAD_HUGETLB_STRICT that is the
 * failure, said by its fallback line; otherwise `auto` decides again and the
 * arena is mapped that way. */
static int hugetlb_fallback(struct alloc *st, int *refused)
{
	struct lsc__arena *a = st->a;
	char reason[256], took[32];

	hugetlb_reason(st->p, &st->g, reason, sizeof reason);
	if (st->o->flags & LSC_LOAD_HUGETLB_STRICT) {
		lsc__load_fallback(st->p, "arena", "hugetlb", "nothing (LSC_LOAD_HUGETLB_STRICT)",
				   reason);
		st->said = 1; /* the fallback line is the failure's one line */
		return -ENOMEM;
	}
	struct lsc__thp_decision d;
	struct lsc__auto_host h;
	auto_host(st, &h);
	lsc__thp_auto(&st->s, a->bytes, &h, &d);
	snprintf(took, sizeof took, "auto (%s)", lsc_thp_policy_name(d.policy));
	lsc__load_fallback(st->p, "arena", "hugetlb", took, reason);
	snprintf(a->thp_reason, sizeof a->thp_reason, "%.100s; auto: %.140s", reason, d.reason);
	a->thp_verdict = d.verdict;
	take_auto(a, &d);
	int rc = decide(st, d.policy);
	return rc < 0 ? rc : map_pieces(st, refused);
}

/* No THP in this kernel (both advices refused, EINVAL): 4 KiB pages
 * whatever was asked. Advice denied (EPERM, EACCES or ENOSYS from a
 * sandbox): the arena without advice, whose pages follow the system's THP
 * setting (4 KiB under enabled=madvise, the usual default). The pieces stay
 * as mapped, so this is no new plan, only the name of what the arena got. */
static void refused_fallback(struct alloc *st, int err)
{
	struct lsc__arena *a = st->a;
	char reason[300];

	if (err == EINVAL)
		snprintf(reason, sizeof reason, "%s (a kernel without THP)", st->why);
	else
		snprintf(reason, sizeof reason, "%.180s (denied: a seccomp filter or sandbox); the arena has no "
			 "advice: 4 KiB pages unless THP is enabled=always", st->why);
	lsc__load_fallback(st->p, "arena", lsc_thp_policy_name(a->applied), "4k",
			   reason);
	a->applied = LSC_THP_4K;
	a->auto_watch = 0;
	a->auto_huge_bytes = 0;
	a->auto_refault_cover = 0;
	snprintf(a->thp_reason, sizeof a->thp_reason, "%.250s", reason);
	a->thp_verdict = "a kernel without THP";
}

/* Our own mapping, when the backend did not allocate: the pieces, advised,
 * with the fallbacks from hugetlb and from refused advice. */
static int map_own(struct alloc *st)
{
	int refused = 0;

	if (st->a->base)
		return 0;
	int rc = map_pieces(st, &refused);
	if (rc < 0 && st->a->applied == LSC_THP_HUGETLB)
		rc = hugetlb_fallback(st, &refused);
	if (rc < 0)
		return rc;
	if (refused)
		refused_fallback(st, refused);
	return 0;
}

/* The faults, inside the hold and timed on their own: the last step, after
 * the arena line has said what was decided and before any page is touched.
 * A check that the faults can be had (an arena larger than the memory
 * available) belongs at the top of this function.
 *
 * Memory a GPU runtime allocated is pinned, so resident already: faulting
 * it again is wasted work, and a driver's mapping (VM_IO) refuses
 * MADV_POPULATE_WRITE, which would read as an old kernel. */
static int prefault_arena(struct alloc *st)
{
	struct lsc__arena *a = st->a;
	struct lsc__prefault_result pr = {0};
	struct lsc__phase pspan;
	int rc = 0;

	if (a->allocated_by_pin) {
		char note[160];
		snprintf(note, sizeof note,
			 "skipped: the %s backend allocated this memory pinned, so it is resident",
			 a->pin->name);
		lsc_note(st->p, "prefault", note);
	} else {
		uint64_t t1 = lsc__now_ns();
		lsc__phase_begin(st->p, st->ops, LSC_PHASE_CUSTOM, "prefault", a->mapped_bytes, &pspan);
		lsc_span both[2] = {st->span.span, pspan.span};
		if (a->auto_watch) {
			struct lsc__adapt_result ar;
			rc = lsc__prefault_adaptive(st->p, both, 2, a->base, a->mapped_bytes,
						    a->auto_huge_bytes, a->auto_refault_cover,
						    st->o->prefault_threads,
						    st->o->numa_node, &pr, &ar);
			a->auto_switched = ar.switched;
			a->auto_switch_at = ar.switch_at;
			a->auto_switch_ns = ar.switch_ns;
			a->auto_steps = ar.steps;
			snprintf(a->auto_why, sizeof a->auto_why, "%s", ar.why);
		} else {
			rc = lsc__prefault(st->p, both, 2, a->base, a->mapped_bytes,
					   st->o->prefault_threads, st->o->numa_node, &pr);
		}
		lsc__phase_end(st->p, &pspan);
		a->prefault_ns = lsc__now_ns() - t1;
	}
	a->prefault_threads = pr.threads;
	a->prefault_touched = pr.touched;
	a->numa_bound = pr.numa_bound;
	if (rc < 0) {
		char b1[LSC__HBUF];
		snprintf(st->why, sizeof st->why, "prefault of %s: %s",
			 lsc__fmt_bytes(b1, (double)a->mapped_bytes), lsc__errname(rc));
	}
	return rc;
}

/* The end of the process-off hold (nothing when none was taken). */
static int release_hold(struct alloc *st)
{
	int rc = restore(&st->hold);
	if (rc < 0)
		snprintf(st->why, sizeof st->why, "prctl(PR_SET_THP_DISABLE) restoring %lld (%s): %s",
			 (long long)st->hold.saved, saved_meaning(st->hold.saved), lsc__errname(rc));
	return rc;
}

int lsc__arena_alloc(lsc_profiler *p, const struct lsc_load_options *o, uint64_t bytes,
		     struct lsc__arena *a)
{
	struct lsc_load_options def;
	struct alloc st = {.p = p, .a = a};
	int rc;

	if (!a)
		return -EINVAL;
	memset(a, 0, sizeof *a);
	if (!bytes)
		return -EINVAL;
	if (!o) {
		lsc_load_options_init(&def);
		o = &def;
	}
	st.o = o;
	uint64_t t0 = lsc__now_ns();
	a->bytes = bytes;
	/* The backend to come, known before the phase opens: its ranges mark it. */
	st.ops = lsc__pin_wanted(o);
	lsc__phase_begin(p, st.ops, LSC_PHASE_ALLOCATE, NULL, bytes, &st.span);

	choose_policy(&st);
	if ((rc = decide(&st, a->applied)) < 0 || (rc = decide_by_pin(&st)) < 0 ||
	    (rc = hold_process_off(&st)) < 0 || (rc = alloc_by_pin(&st)) < 0 ||
	    (rc = map_own(&st)) < 0)
		goto fail;
	a->alloc_ns = lsc__now_ns() - t0;
	arena_line(p, a, &st.s, lsc_thp_policy_name(a->wanted), st.source, st.how);
	if ((rc = prefault_arena(&st)) < 0 || (rc = release_hold(&st)) < 0)
		goto fail;
	lsc__phase_end(p, &st.span);
	return 0;

fail:
	if (!st.said)
		fail_line(p, a, &st.s, rc, st.why);
	restore(&st.hold);
	lsc__arena_release(a);
	lsc__phase_end(p, &st.span);
	return rc;
}

void lsc__arena_release(struct lsc__arena *a)
{
	if (!a)
		return;
	if (a->base) {
		if (a->allocated_by_pin && a->pin && a->pin->free) {
			a->pin->free(a->base, (size_t)a->mapped_bytes);
		} else {
			if (a->pin && a->pin_segments)
				lsc__unpin_segments(a->pin, a->base, a->mapped_bytes,
						    a->pin_segment_bytes);
			if (lsc__sys->munmap(a->base, (size_t)a->mapped_bytes) < 0)
				lsc__sys_default.munmap(a->base, (size_t)a->mapped_bytes);
		}
	}
	memset(a, 0, sizeof *a);
}
