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
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/arena.h"
#include "loader/kfd_counter.h"
#include "loader/arena_int.h"
#include "loader/phase.h"
#include "loader/sys.h"
#include "format/human.h"
#include "profiler/internal.h"

static const char *ename(int err)
{
	const char *n = strerrorname_np(err < 0 ? -err : err);
	return n ? n : "error";
}

static uint64_t round_up(uint64_t v, uint64_t unit)
{
	return (v + unit - 1) / unit * unit;
}

void lsc__fallback_line(lsc_profiler *p, const char *what, const char *wanted, const char *took,
			const char *reason)
{
	struct lsc__rec r;

	if (!lsc_profiler_enabled(p))
		return;
	lsc__rec_init(&r, "fallback");
	lsc__rec_say(&r, "%s: wanted %s, took %s: %s", what, wanted, took, reason);
	lsc__rec_str(&r, "what", what);
	lsc__rec_str(&r, "wanted", wanted);
	lsc__rec_str(&r, "took", took);
	lsc__rec_str(&r, "reason", reason);
	lsc__emit(p, &r);
}

/* LOADSCOPE_ARENA_THP, read once per allocation; a bad value keeps the
 * option and says so. */
static enum lsc_thp_policy policy_from_env(lsc_profiler *p, enum lsc_thp_policy opt, int *from_env)
{
	const char *v = getenv("LOADSCOPE_ARENA_THP");
	enum lsc_thp_policy e;
	char reason[192];

	*from_env = 0;
	if (!v || !*v)
		return opt;
	if (lsc_thp_policy_parse(v, &e) == 0) {
		*from_env = 1;
		return e;
	}
	snprintf(reason, sizeof reason,
		 "LOADSCOPE_ARENA_THP=%.64s is not a policy (auto, 4k, thp, hugetlb, process-off)", v);
	lsc__fallback_line(p, "arena", v, lsc_thp_policy_name(opt), reason);
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
	lsc__rec_init(&r, "arena");
	char b1[LSC__HBUF], b2[LSC__HBUF];
	lsc__rec_say(&r, "%s as %s", lsc__fmt_bytes(b1, (double)a->bytes),
		     lsc_thp_policy_name(a->applied));
	if (a->n_pieces > 1)
		lsc__rec_say(&r, " in %u pieces of %s", a->n_pieces,
			     lsc__fmt_bytes(b2, (double)a->piece_bytes));
	lsc__rec_say(&r, " (requested %s by %s): %s%s", requested, source, a->thp_reason, how);
	if (a->allocated_by_pin)
		lsc__arena_device_say(&r, a);
	lsc__rec_str(&r, "policy", lsc_thp_policy_name(a->applied));
	lsc__rec_str(&r, "requested", requested);
	lsc__rec_str(&r, "source", source);
	lsc__rec_str(&r, "reason", a->thp_reason);
	lsc__rec_str(&r, "thp_enabled", *s->thp_enabled ? s->thp_enabled : "n/a");
	lsc__rec_str(&r, "thp_defrag", *s->thp_defrag ? s->thp_defrag : "n/a");
	if (s->free_huge_blocks_bytes == LSC_NA)
		lsc__rec_str(&r, "free_huge_blocks_bytes", "n/a");
	else
		lsc__rec_i64(&r, "free_huge_blocks_bytes", s->free_huge_blocks_bytes);
	if (s->mem_available != LSC_NA)
		lsc__rec_i64(&r, "mem_available_bytes", s->mem_available);
	lsc__rec_u64(&r, "arena_bytes", a->bytes);
	lsc__rec_u64(&r, "mapped_bytes", a->mapped_bytes);
	lsc__rec_u64(&r, "pieces", a->n_pieces);
	lsc__rec_u64(&r, "piece_bytes", a->piece_bytes);
	if (a->applied == LSC_THP_PROCESS_OFF)
		lsc__rec_str(&r, "thp_prctl_saved", lsc_thp_disable_name(s->prctl_thp_disable));
	if (a->allocated_by_pin && a->pin)
		lsc__rec_str(&r, "allocated_by", a->pin->name);
	lsc__emit(p, &r);
}

/* The one line of a failed allocation. */
static void fail_line(lsc_profiler *p, const struct lsc__arena *a, const struct lsc_system *s,
		      int rc, const char *why)
{
	struct lsc__rec r;

	if (!lsc_profiler_enabled(p))
		return;
	lsc__rec_init(&r, "arena");
	char b1[LSC__HBUF];
	lsc__rec_say(&r, "allocating %s as %s failed: %s", lsc__fmt_bytes(b1, (double)a->bytes),
		     lsc_thp_policy_name(a->applied), why);
	if (s->mem_available != LSC_NA)
		lsc__rec_say(&r, " (MemAvailable %s)", lsc__fmt_bytes(b1, (double)s->mem_available));
	lsc__rec_str(&r, "policy", lsc_thp_policy_name(a->applied));
	lsc__rec_str(&r, "requested", lsc_thp_policy_name(a->wanted));
	lsc__rec_str(&r, "error", ename(rc));
	lsc__rec_str(&r, "reason", why);
	lsc__rec_u64(&r, "arena_bytes", a->bytes);
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

/* The pin backend's own allocation (CAP_ALLOC), under the process-off hold
 * when asked. Return 1 when it allocated, 0 to go on with our own mapping,
 * or a negative error for a failure that must not fall back. */
static int try_pin_alloc(lsc_profiler *p, const struct lsc_load_options *o,
			 const struct lsc__pin_ops *ops, struct lsc__arena *a, char *why,
			 size_t why_len)
{
	void *base = NULL;
	char wanted[48];

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
		lsc__kfd_note(p, a, ops->name);
	if (rc == 0 && base) {
		a->base = base;
		a->allocated_by_pin = 1;
		a->pin = ops;
		a->pinned_bytes = (ops->caps & LSC__PIN_CAP_LOCKS) ? a->mapped_bytes : 0;
		a->pin_segments = 1;
		a->pin_segment_bytes = a->mapped_bytes;
		lsc__arena_device_map(a);
		return 1;
	}
	if (rc == 0)
		rc = -ENOMEM;
	if (!*why)
		snprintf(why, why_len, "%s: %s", ops->name, ename(rc));
	if (o->flags & LSC_LOAD_PIN_STRICT)
		return rc; /* the caller's failure line carries @why */
	lsc__fallback_line(p, "pin", wanted, "own mapping, then the pin chain", why);
	return 0;
}

int lsc__arena_alloc(lsc_profiler *p, const struct lsc_load_options *o, uint64_t bytes,
		     struct lsc__arena *a)
{
	return lsc__arena_alloc_ops(p, o, NULL, bytes, a);
}

int lsc__arena_alloc_ops(lsc_profiler *p, const struct lsc_load_options *o,
			 const struct lsc__pin_ops *ops, uint64_t bytes, struct lsc__arena *a)
{
	struct lsc_load_options def;
	struct lsc_system s;
	struct lsc__thp_hold hold = {0};
	struct geometry g;
	struct lsc__phase span, pspan;
	char why[256] = "", how[160] = "";
	int rc, refused = 0;

	if (!a)
		return -EINVAL;
	memset(a, 0, sizeof *a);
	if (!bytes)
		return -EINVAL;
	if (!o) {
		lsc_load_options_init(&def);
		o = &def;
	}
	uint64_t t0 = lsc__now_ns();
	a->bytes = bytes;
	/* The backend to come, known before the phase opens: its ranges mark it. */
	if (!ops)
		ops = lsc__pin_find(o->pin ? o->pin : "none");
	lsc__phase_begin(p, ops, LSC_PHASE_ALLOCATE, NULL, bytes, &span);

	a->wanted = policy_from_env(p, o->thp, &a->thp_from_env);
	a->applied = a->wanted;
	const char *source = a->thp_from_env ? "LOADSCOPE_ARENA_THP" : "option";
	lsc_system_read(lsc__proc_root(p), lsc__sys_root(p), &s);

	if (a->applied == LSC_THP_AUTO) {
		struct lsc__thp_decision d;
		lsc__thp_auto(&s, bytes, &d);
		a->applied = d.policy;
		snprintf(a->thp_reason, sizeof a->thp_reason, "%s", d.reason);
	} else {
		snprintf(a->thp_reason, sizeof a->thp_reason, "asked for");
	}

	rc = plan(a->applied, &s, bytes, o->chunk_bytes, &g, why, sizeof why);
	if (rc < 0)
		goto fail;

	/* Memory the pin backend maps itself: only for one piece, and only
	 * reached by process-off (or when the backend cannot register). */
	int by_pin = ops && ops->abi == LSC__PIN_ABI && (ops->caps & LSC__PIN_CAP_ALLOC) &&
		     ops->alloc && ops->free && g.n == 1 &&
		     (a->applied == LSC_THP_PROCESS_OFF || !(ops->caps & LSC__PIN_CAP_REGISTER));
	if (by_pin && a->applied != LSC_THP_PROCESS_OFF && a->applied != LSC_THP_4K) {
		/* thp or hugetlb cannot reach the runtime's own mapping. */
		snprintf(a->thp_reason + strlen(a->thp_reason),
			 sizeof a->thp_reason - strlen(a->thp_reason),
			 "; not applied: the %s backend maps this memory itself", ops->name);
	}
	if (by_pin && a->applied == LSC_THP_4K) {
		/* The only way to keep THP off memory someone else maps. */
		a->applied = LSC_THP_PROCESS_OFF;
		snprintf(a->thp_reason + strlen(a->thp_reason),
			 sizeof a->thp_reason - strlen(a->thp_reason),
			 "; process-off, the only policy that reaches memory %s maps itself", ops->name);
		rc = plan(a->applied, &s, bytes, o->chunk_bytes, &g, why, sizeof why);
		if (rc < 0)
			goto fail;
	}

	if (a->applied == LSC_THP_PROCESS_OFF) {
		rc = lsc__thp_hold(&hold);
		if (rc < 0) {
			snprintf(why, sizeof why, "prctl(PR_SET_THP_DISABLE): %s", ename(rc));
			goto fail;
		}
		snprintf(how, sizeof how, "; PR_SET_THP_DISABLE held around allocation and prefault, "
					  "then restored to %lld (%s)",
			 (long long)hold.saved, saved_meaning(hold.saved));
		/* The snapshot's bits are what we restore to. */
		s.prctl_thp_disable = hold.saved;
	}

	a->mapped_bytes = g.mapped;
	a->piece_bytes = g.piece;
	a->n_pieces = g.n;
	if (by_pin) {
		rc = try_pin_alloc(p, o, ops, a, why, sizeof why);
		if (rc < 0)
			goto fail; /* LSC_LOAD_PIN_STRICT: no own mapping instead */
	}
	if (!a->base) {
		rc = lsc__policy_map(a->applied, g.mapped, g.piece, g.n, g.align, &a->base,
				     &refused, why, sizeof why);
		if (rc < 0 && a->applied == LSC_THP_HUGETLB) {
			char reason[256];
			hugetlb_reason(p, &g, reason, sizeof reason);
			if (o->flags & LSC_LOAD_HUGETLB_STRICT) {
				lsc__fallback_line(p, "arena", "hugetlb",
						   "nothing (LSC_LOAD_HUGETLB_STRICT)", reason);
				snprintf(why, sizeof why, "%s", reason);
				rc = -ENOMEM;
				goto fail_quiet;
			}
			struct lsc__thp_decision d;
			lsc__thp_auto(&s, bytes, &d);
			char took[32];
			snprintf(took, sizeof took, "auto (%s)", lsc_thp_policy_name(d.policy));
			lsc__fallback_line(p, "arena", "hugetlb", took, reason);
			a->applied = d.policy;
			snprintf(a->thp_reason, sizeof a->thp_reason, "%.100s; auto: %.140s", reason, d.reason);
			rc = plan(a->applied, &s, bytes, o->chunk_bytes, &g, why, sizeof why);
			if (rc < 0)
				goto fail;
			a->mapped_bytes = g.mapped;
			a->piece_bytes = g.piece;
			a->n_pieces = g.n;
			rc = lsc__policy_map(a->applied, g.mapped, g.piece, g.n, g.align, &a->base,
					     &refused, why, sizeof why);
		}
		if (rc < 0)
			goto fail;
		if (refused) {
			/* No THP in this kernel: 4 KiB pages whatever was asked. */
			char reason[300];
			snprintf(reason, sizeof reason, "%s (a kernel without THP)", why);
			lsc__fallback_line(p, "arena", lsc_thp_policy_name(a->applied), "4k", reason);
			a->applied = LSC_THP_4K;
			snprintf(a->thp_reason, sizeof a->thp_reason, "%.250s", reason);
		}
	}
	a->alloc_ns = lsc__now_ns() - t0;
	arena_line(p, a, &s, lsc_thp_policy_name(a->wanted), source, how);

	/* The faults: inside the hold, timed on their own. Memory a GPU
	 * runtime allocated is pinned, so resident already: faulting it again
	 * is wasted work, and a driver's mapping (VM_IO) refuses
	 * MADV_POPULATE_WRITE, which would read as an old kernel. */
	struct lsc__prefault_result pr = {0};
	if (a->allocated_by_pin) {
		char note[160];
		snprintf(note, sizeof note,
			 "skipped: the %s backend allocated this memory pinned, so it is resident",
			 a->pin->name);
		lsc_note(p, "prefault", note);
	} else {
		uint64_t t1 = lsc__now_ns();
		lsc__phase_begin(p, ops, LSC_PHASE_CUSTOM, "prefault", a->mapped_bytes, &pspan);
		lsc_span both[2] = {span.span, pspan.span};
		rc = lsc__prefault(p, both, 2, a->base, a->mapped_bytes, o->prefault_threads,
				   o->numa_node, &pr);
		lsc__phase_end(p, &pspan);
		a->prefault_ns = lsc__now_ns() - t1;
	}
	a->prefault_threads = pr.threads;
	a->prefault_touched = pr.touched;
	a->numa_bound = pr.numa_bound;
	if (rc < 0) {
		char b1[LSC__HBUF];
		snprintf(why, sizeof why, "prefault of %s: %s",
			 lsc__fmt_bytes(b1, (double)a->mapped_bytes), ename(rc));
		goto fail;
	}
	rc = restore(&hold);
	if (rc < 0) {
		snprintf(why, sizeof why, "prctl(PR_SET_THP_DISABLE) restoring %lld (%s): %s",
			 (long long)hold.saved, saved_meaning(hold.saved), ename(rc));
		goto fail;
	}
	lsc__phase_end(p, &span);
	return 0;

fail:
	fail_line(p, a, &s, rc, why);
fail_quiet:
	restore(&hold);
	lsc__arena_release(a);
	lsc__phase_end(p, &span);
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
