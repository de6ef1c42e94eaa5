/*
 * Verify: XXH3-64 of each extent, streamed chunk by chunk from the arena
 * right after the chunk's bytes landed there, so hashing overlaps the reads
 * still in flight instead of running as a second pass over cold memory.
 *
 * Reads complete out of order (Q in flight), but a streaming hash needs its
 * input in order: chunks are numbered in manifest order and the hash
 * follows a cursor over the ones marked done. One XXH3 state serves the
 * whole load (extents are hashed one after another), created once.
 *
 * A mismatch names the extent, its file and offset and both hashes, and
 * fails the load with LSC_E_HASH.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <xxhash.h>

#include "loader/read/read.h"
#include "profiler/internal.h"

struct lsc__verify {
	XXH3_state_t *st;
};

int lsc__verify_create(struct lsc__verify **out)
{
	struct lsc__verify *v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->st = XXH3_createState();
	if (!v->st) {
		free(v);
		return -ENOMEM;
	}
	*out = v;
	return 0;
}

void lsc__verify_destroy(struct lsc__verify *v)
{
	if (!v)
		return;
	XXH3_freeState(v->st);
	free(v);
}

static int finish(struct lsc__load *L, size_t i, uint64_t h)
{
	L->out->hash[i] = h;
	L->out->hashed[i] = 1;
	const struct lsc_extent *e = &L->ext[i];
	if (!e->has_xxh3 || e->xxh3 == h)
		return 0;
	lsc__load_error(L->p, "verify", e->path, L->lx[i].off, LSC_E_HASH,
			"extent %zu (%" PRIu64 " bytes at arena offset %" PRIu64
			"): XXH3-64 is %016" PRIx64 ", expected %016" PRIx64,
			i, L->lx[i].len, L->lx[i].arena_off, h, e->xxh3);
	return LSC_E_HASH;
}

int lsc__verify_advance(struct lsc__load *L, struct lsc__verify *v, uint64_t *next_chunk)
{
	uint64_t n = *next_chunk;
	if (n >= L->n_chunks || !L->chunks[n].done)
		return 0;
	struct lsc__busy busy;
	lsc__busy_begin(L->pin, LSC_PHASE_VERIFY, NULL, &busy);
	int ret = 0;
	while (n < L->n_chunks && L->chunks[n].done) {
		const struct lsc__chunk *c = &L->chunks[n];
		const struct lsc__lext *x = &L->lx[c->ext];
		if (c->off_in_ext == 0)
			XXH3_64bits_reset(v->st);
		XXH3_64bits_update(v->st, x->mem + c->off_in_ext, c->len);
		n++;
		if (c->off_in_ext + c->len == x->len) {
			ret = finish(L, c->ext, XXH3_64bits_digest(v->st));
			if (ret < 0)
				break;
		}
	}
	*next_chunk = n;
	lsc__busy_end(&busy, &L->verify_ns);
	return ret;
}
