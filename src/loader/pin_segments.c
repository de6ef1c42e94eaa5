/*
 * The pin phase: page-lock the arena in segments, through a backend's ops
 * table, along a fallback chain.
 *
 * Segments (1 GiB by default): one registration of >= 512 GiB fails on
 * recent drivers and one of 2 GiB is rejected on some driver/kernel pairs
 * (xcena-dev/maru #64, InstantTensor #19), and a retry after an EAGAIN
 * (seed 000: thousands of them, uncounted, in ROCr) then costs one segment,
 * not the whole arena. Retries and failures are counted and printed, per
 * segment when a segment needed them: nobody else reports that count.
 * A segment that fails for good unpins the segments before it (rollback),
 * so a failed pin leaves nothing locked.
 *
 * The chain: the wanted backend, then mlock, then none, each step in one
 * `fallback` line with the backend's own reason; LSC_LOAD_PIN_STRICT stops
 * at the first failure instead. A backend that is not compiled into this
 * build is a failure of the same kind, with that reason.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "loader/arena.h"
#include "pin/kfd_counter.h"
#include "loader/arena_int.h"
#include "loader/lines.h"
#include "pin/phase.h"
#include "format/human.h"
#include "profiler/internal.h"

#define MAX_TRIES 3

static double gib(uint64_t b)
{
	return (double)b / (double)(1ull << 30);
}

static void segment_line(lsc_profiler *p, const struct lsc__pin_ops *ops, unsigned i, unsigned n,
			 uint64_t off, uint64_t len, unsigned retries, unsigned failures, int rc,
			 const char *why)
{
	struct lsc__rec r;

	if (!lsc_profiler_enabled(p))
		return;
	lsc__rec_init(&r, LSC__EV(NOTE));
	char b1[LSC__HBUF], b2[LSC__HBUF];
	lsc__rec_say(&r, "pin: segment %u/%u (%s at +%s) with %s: %u retries, %u failures%s%s",
		     i + 1, n, lsc__fmt_bytes(b1, (double)len), lsc__fmt_bytes(b2, (double)off), ops->name, retries, failures, rc < 0 ? ": " : "",
		     rc < 0 ? why : "");
	lsc__rec_str(&r, LSC__KEY(TOPIC), "pin");
	lsc__rec_str(&r, "backend", ops->name);
	lsc__rec_u64(&r, "segment", i + 1);
	lsc__rec_u64(&r, "segments", n);
	lsc__rec_u64(&r, "offset_bytes", off);
	lsc__rec_u64(&r, LSC__KEY(BYTES), len);
	lsc__rec_u64(&r, "retries", retries);
	lsc__rec_u64(&r, "failures", failures);
	if (rc < 0) {
		lsc__rec_str(&r, LSC__KEY(ERR), lsc__errname(rc));
		lsc__rec_str(&r, LSC__KEY(REASON), why);
	}
	lsc__emit(p, &r);
}

void lsc__unpin_segments(const struct lsc__pin_ops *ops, void *base, uint64_t bytes, uint64_t seg)
{
	if (!ops || !ops->unpin || !base || !bytes)
		return;
	if (!seg || seg > bytes)
		seg = bytes;
	for (uint64_t off = 0; off < bytes; off += seg)
		ops->unpin((char *)base + off, (size_t)(off + seg <= bytes ? seg : bytes - off));
}

int lsc__pin_segments(lsc_profiler *p, const struct lsc__pin_ops *ops, void *base, uint64_t bytes,
		      uint64_t seg, unsigned flags, struct lsc__pin_tally *t, char *why, size_t why_len)
{
	memset(t, 0, sizeof *t);
	if (!ops || !ops->pin || !base || !bytes)
		return -EINVAL;
	if (!seg || seg > bytes)
		seg = bytes;
	uint64_t n64 = (bytes + seg - 1) / seg;
	if (n64 > 0xffffffffull)
		return -EINVAL;
	unsigned n = (unsigned)n64;

	for (unsigned i = 0; i < n; i++) {
		uint64_t off = (uint64_t)i * seg;
		size_t len = (size_t)(off + seg <= bytes ? seg : bytes - off);
		unsigned seg_retries = 0, seg_failures = 0;
		int rc;
		for (int tries = 0;; tries++) {
			unsigned r = 0;
			why[0] = '\0';
			rc = ops->pin((char *)base + off, len, flags, &r, why, why_len);
			seg_retries += r;
			if (rc == 0)
				break;
			seg_failures++;
			if ((rc == -EAGAIN || rc == -EINTR) && tries + 1 < MAX_TRIES) {
				seg_retries++;
				continue;
			}
			break;
		}
		t->retries += seg_retries;
		t->failures += seg_failures;
		if (!why[0] && rc < 0)
			snprintf(why, why_len, "%s: %s", ops->name, lsc__errname(rc));
		if (seg_retries || seg_failures)
			segment_line(p, ops, i, n, off, len, seg_retries, seg_failures, rc, why);
		if (rc < 0) {
			/* Rollback: the segments before this one, exactly as pinned. */
			lsc__unpin_segments(ops, base, off, seg);
			t->segments = 0;
			t->pinned_bytes = 0;
			return rc;
		}
		t->segments++;
		t->pinned_bytes += len;
	}
	return 0;
}

/* LSC_LOAD_PIN_READONLY asked for: whether the backend that pinned the
 * arena honoured it (memory a backend allocated never has the flag). */
static int readonly_applied(const struct lsc_load_options *o, const struct lsc__arena *a)
{
	return (o->flags & LSC_LOAD_PIN_READONLY) && !a->allocated_by_pin &&
	       (a->pin->caps & LSC__PIN_CAP_READONLY);
}

/* Asked for and not honoured: one note, so that nobody believes the device
 * sees the arena read-only when it does not. */
static void readonly_note(lsc_profiler *p, const struct lsc_load_options *o,
			  const struct lsc__arena *a)
{
	struct lsc__rec r;

	if (!(o->flags & LSC_LOAD_PIN_READONLY) || readonly_applied(o, a) ||
	    !lsc_profiler_enabled(p))
		return;
	lsc__rec_init(&r, LSC__EV(NOTE));
	if (a->allocated_by_pin)
		lsc__rec_say(&r, "pin: read-only registration asked for, but %s allocated the arena "
				 "itself (no read-only flag there): ignored",
			     a->pin->name);
	else
		lsc__rec_say(&r, "pin: read-only registration asked for, but %s has no read-only "
				 "flag: ignored",
			     a->pin->name);
	lsc__rec_str(&r, LSC__KEY(TOPIC), "pin");
	lsc__rec_str(&r, "backend", a->pin->name);
	lsc__rec_str(&r, "readonly", "ignored");
	lsc__emit(p, &r);
}

/* The pin summary: backend, segments, and the cost per GiB. */
static void pin_line(lsc_profiler *p, const struct lsc_load_options *o, const struct lsc__arena *a)
{
	struct lsc__rec r;

	if (!lsc_profiler_enabled(p))
		return;
	double s = (double)a->pin_ns / 1e9;
	double per_gib = a->mapped_bytes ? s / gib(a->mapped_bytes) : 0;
	lsc__rec_init(&r, LSC__EV(NOTE));
	char b1[LSC__HBUF], b2[LSC__HBUF];
	if (a->pin->caps & LSC__PIN_CAP_LOCKS)
		lsc__rec_say(&r, "pin: %s with %s in %u segment%s of %s: %.3f s (%.3f s/GiB)",
			     lsc__fmt_bytes(b1, (double)a->mapped_bytes), a->pin->name,
			     a->pin_segments, a->pin_segments == 1 ? "" : "s",
			     lsc__fmt_bytes(b2, (double)a->pin_segment_bytes), s,
			     per_gib);
	else
		lsc__rec_say(&r, "pin: %s left pageable (%s)",
			     lsc__fmt_bytes(b1, (double)a->mapped_bytes), a->pin->name);
	lsc__rec_say(&r, ", %u retries, %u failures", a->pin_retries, a->pin_failures);
	if (readonly_applied(o, a))
		lsc__rec_say(&r, ", read-only for the device");
	lsc__arena_device_say(&r, a);
	/* Nothing page-locked: the pin phase and the complement say it all. */
	r.detail_line = !(a->pin->caps & LSC__PIN_CAP_LOCKS) && !a->pin_retries && !a->pin_failures;
	lsc__rec_str(&r, LSC__KEY(TOPIC), "pin");
	lsc__rec_detail(&r);
	lsc__rec_str(&r, "backend", a->pin->name);
	lsc__rec_u64(&r, LSC__KEY(BYTES), a->mapped_bytes);
	lsc__rec_u64(&r, LSC__KEY(PINNED_BYTES), a->pinned_bytes);
	lsc__rec_u64(&r, "segments", a->pin_segments);
	lsc__rec_u64(&r, "segment_bytes", a->pin_segment_bytes);
	lsc__rec_f64(&r, "pin_s", s, 6);
	lsc__rec_f64(&r, "s_per_gib", per_gib, 6);
	lsc__rec_u64(&r, "retries", a->pin_retries);
	lsc__rec_u64(&r, "failures", a->pin_failures);
	if (readonly_applied(o, a))
		lsc__rec_str(&r, "readonly", "1");
	lsc__emit(p, &r);
}

int lsc__arena_pin(lsc_profiler *p, const struct lsc_load_options *o, struct lsc__arena *a)
{
	struct lsc_load_options def;
	const struct lsc__pin_ops *chain[3];
	char why[256];
	unsigned n = 0;
	struct lsc__phase span;
	int rc = 0;

	if (!a || !a->base)
		return -EINVAL;
	if (!o) {
		lsc_load_options_init(&def);
		o = &def;
	}
	if (a->allocated_by_pin) {
		readonly_note(p, o, a);
		return 0; /* the backend's allocation already pinned it */
	}
	if (a->pin)
		return -EALREADY;

	uint64_t t0 = lsc__now_ns();
	struct lsc__kfd_mark k;
	lsc__kfd_mark(&k);
	const char *name = o->pin && *o->pin ? o->pin : "none";
	const struct lsc__pin_ops *wanted = lsc__pin_wanted(o);
	/* The wanted backend's ranges mark the phase, whichever one pins. */
	lsc__phase_begin(p, wanted, LSC_PHASE_PIN, NULL, a->mapped_bytes, &span);
	if (!wanted) {
		snprintf(why, sizeof why, "%s: not a pin backend of this build", name);
		rc = -ENOSYS;
		if (o->flags & LSC_LOAD_PIN_STRICT) {
			lsc__load_fallback(p, "pin", name, "nothing (LSC_LOAD_PIN_STRICT)", why);
			goto out;
		}
		lsc__load_fallback(p, "pin", name, "mlock", why);
	}
	if (wanted)
		chain[n++] = wanted;
	if (wanted != &lsc__pin_mlock && wanted != &lsc__pin_none)
		chain[n++] = &lsc__pin_mlock;
	if (wanted != &lsc__pin_none)
		chain[n++] = &lsc__pin_none;

	uint64_t seg = o->pin_segment_bytes ? o->pin_segment_bytes : 1ull << 30;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	seg = (seg + page - 1) / page * page;
	unsigned flags = LSC__PIN_PORTABLE | LSC__PIN_MAPPED;
	if (o->flags & LSC_LOAD_PIN_READONLY)
		flags |= LSC__PIN_READONLY;
	a->pin_retries = a->pin_failures = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct lsc__pin_ops *ops = chain[i];
		struct lsc__pin_tally t = {0};
		why[0] = '\0';
		rc = 0;
		if (!ops->pin || !ops->unpin) {
			snprintf(why, sizeof why, "%s: table without pin and unpin: unusable",
				 ops->name ? ops->name : "?");
			rc = -EINVAL;
		}
		if (rc == 0 && ops->probe)
			rc = ops->probe(why, sizeof why);
		if (rc == 0 && !(ops->caps & LSC__PIN_CAP_REGISTER)) {
			snprintf(why, sizeof why, "%s: cannot pin memory it did not allocate", ops->name);
			rc = -EOPNOTSUPP;
		}
		if (rc == 0)
			rc = lsc__pin_segments(p, ops, a->base, a->mapped_bytes, seg, flags, &t, why,
					       sizeof why);
		a->pin_retries += t.retries;
		a->pin_failures += t.failures;
		if (rc == 0) {
			a->pin = ops;
			a->pin_segments = t.segments;
			/* one segment of a smaller arena is the arena */
			a->pin_segment_bytes = seg < a->mapped_bytes ? seg : a->mapped_bytes;
			a->pinned_bytes = (ops->caps & LSC__PIN_CAP_LOCKS) ? t.pinned_bytes : 0;
			break;
		}
		if (!why[0])
			snprintf(why, sizeof why, "%s: %s", ops->name, lsc__errname(rc));
		if ((o->flags & LSC_LOAD_PIN_STRICT) || i + 1 == n) {
			lsc__load_fallback(p, "pin", ops->name,
					   i + 1 == n ? "nothing" : "nothing (LSC_LOAD_PIN_STRICT)", why);
			break;
		}
		lsc__load_fallback(p, "pin", ops->name, chain[i + 1]->name, why);
	}
out:
	a->pin_ns = lsc__now_ns() - t0;
	lsc__kfd_add(&k, &a->kfd_seen, &a->kfd_calls, &a->kfd_eagain, &a->kfd_ns);
	if (rc == 0) {
		lsc__arena_device_map(a);
		pin_line(p, o, a);
		readonly_note(p, o, a);
	}
	if (a->kfd_seen)
		lsc__kfd_note(p, a, a->pin ? a->pin->name : name);
	if (rc == 0) /* what was page-locked: none pins nothing, so has no rate */
		lsc_span_set_bytes(p, span.span, a->pinned_bytes);
	lsc__phase_end(p, &span);
	return rc;
}
