/*
 * Copies to a GPU as the arena fills: with `device >= 0` and a pin backend
 * that has device memory (LSC__PIN_CAP_DEVICE: cuda, hip), every chunk is
 * queued to the device as soon as its bytes are in the arena, so host-to-
 * device transfers overlap the reads still in flight instead of running as
 * a second pass after the load.
 *
 * The source is the arena itself (page-locked by that same backend, so the
 * copy is a real async DMA); copies rotate over a few slots and a slot is
 * waited for before it is reused, so no more than `slots` copies are ever
 * queued behind the reads. The device buffer is the arena's size;
 * lsc_arena_device_data() returns it.
 */
#include <errno.h>
#include <stdio.h>

#include "loader/read/read.h"
#include "profiler/internal.h"

static const struct lsc__pin_ops *forced;

void lsc__device_override(const struct lsc__pin_ops *ops)
{
	forced = ops;
}

int lsc__device_open(struct lsc__load *L)
{
	struct lsc_arena *A = L->out;
	const struct lsc__pin_ops *ops = forced ? forced : A->a.pin;
	char why[256] = "";
	int ret = -EOPNOTSUPP;
	if (!ops || !(ops->caps & LSC__PIN_CAP_DEVICE) || !ops->dev_open || !ops->dev_copy ||
	    !ops->dev_wait || !ops->dev_close) {
		snprintf(why, sizeof(why), "the %s pin backend has no device memory",
			 ops ? ops->name : "none");
	} else {
		L->dev_slots = L->Q < 8 ? L->Q : 8;
		ret = ops->dev_open(L->o.device, A->a.bytes, L->dev_slots, &A->dev, why, sizeof(why));
		if (ret == 0) {
			A->dev_ops = ops;
			return 0;
		}
		A->dev = NULL;
	}
	if (L->o.flags & LSC_LOAD_PIN_STRICT) {
		lsc__load_error(L->p, "device", NULL, 0, ret < 0 ? ret : -EOPNOTSUPP,
				"copy to device %d: %s", L->o.device, why);
		return ret;
	}
	char reason[320];
	snprintf(reason, sizeof(reason), "device %d: %s", L->o.device, why);
	lsc__load_fallback(L->p, "device", "device copy", "host only", reason);
	L->dev_slots = 0;
	return 0;
}

/* A failed copy names the file and offset its bytes came from as well as
 * the arena offset: a report is read by people who know their files, not
 * our arena layout. @c is NULL when no one chunk is to blame. */
static int dev_error(struct lsc__load *L, const char *what, const struct lsc__chunk *c, int ret)
{
	const struct lsc__pin_ops *ops = L->out->dev_ops;
	const char *why = ops->dev_why ? ops->dev_why(L->out->dev) : "";
	const char *path = c ? L->ext[c->ext].path : NULL;
	uint64_t file_off = c ? L->lx[c->ext].off + c->off_in_ext : 0;
	uint64_t off = c ? L->lx[c->ext].arena_off + c->off_in_ext : 0;
	if (c)
		lsc__load_error(L->p, "device", path, file_off, ret, "%s at arena offset %llu%s%s", what,
				(unsigned long long)off, why && why[0] ? ": " : "", why ? why : "");
	else
		lsc__load_error(L->p, "device", NULL, 0, ret, "%s%s%s", what, why && why[0] ? ": " : "",
				why ? why : "");
	return ret;
}

int lsc__device_copy(struct lsc__load *L, uint64_t seq)
{
	struct lsc_arena *A = L->out;
	if (!A->dev)
		return 0;
	const struct lsc__chunk *c = &L->chunks[seq];
	uint64_t off = L->lx[c->ext].arena_off + c->off_in_ext;
	unsigned slot = (unsigned)(seq % L->dev_slots);
	const char *what = "waiting for a device copy";
	struct lsc__busy busy;
	int ret = 0;
	lsc__busy_begin(L->pin, LSC_PHASE_COPY, LSC__DEVICE_COPY, &busy);
	/* The slot's previous copy must be done before it takes another. */
	if (seq >= L->dev_slots)
		ret = A->dev_ops->dev_wait(A->dev, slot);
	if (ret == 0) {
		what = "queueing a device copy";
		ret = A->dev_ops->dev_copy(A->dev, off, (unsigned char *)A->a.base + off, c->len, slot);
	}
	lsc__busy_end(&busy, &L->dev_ns);
	return ret < 0 ? dev_error(L, what, c, ret) : 0;
}

int lsc__device_finish(struct lsc__load *L)
{
	struct lsc_arena *A = L->out;
	if (!A->dev)
		return 0;
	struct lsc__busy busy;
	int ret = 0;
	lsc__busy_begin(L->pin, LSC_PHASE_COPY, LSC__DEVICE_COPY, &busy);
	for (unsigned s = 0; ret == 0 && s < L->dev_slots && s < L->n_chunks; s++)
		ret = A->dev_ops->dev_wait(A->dev, s);
	lsc__busy_end(&busy, &L->dev_ns);
	return ret < 0 ? dev_error(L, "waiting for the last device copies", NULL, ret) : 0;
}
