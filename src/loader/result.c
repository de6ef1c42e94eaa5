/*
 * A load's results as data (lsc_load_result, loader.h): every `fallback`
 * line and the first `error` line of a load, copied into the structure the
 * caller handed in the options, so that an engine reads what the lines say
 * without parsing them, and even with the profiler off.
 *
 * The fallbacks are printed from many steps (the arena, the pin chain,
 * the readers, O_DIRECT, staging, the device copy), each knowing only the
 * profiler. Rather than thread the load through all of them, the load
 * names its result for the calling thread (a thread-local pointer) for as
 * long as it runs: every line a load prints comes from that thread (the
 * prefault threads print nothing), and two loads in two threads keep two
 * results apart.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "loader/lines.h"
#include "loader/result.h"

static _Thread_local struct lsc_load_result *cur;

static void copy(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

struct lsc_load_result *lsc__result_begin(struct lsc_load_result *r)
{
	struct lsc_load_result *prev = cur;
	if (r)
		memset(r, 0, sizeof(*r));
	cur = r;
	return prev;
}

void lsc__result_end(struct lsc_load_result *prev, int err, uint64_t done, uint64_t total)
{
	struct lsc_load_result *r = cur;
	if (r) {
		r->err = err;
		r->bytes_done = done;
		r->bytes_total = total;
		if (err && !r->err_what[0])
			copy(r->err_what, sizeof(r->err_what), "load");
	}
	cur = prev;
}

void lsc__result_restore(struct lsc_load_result *prev)
{
	cur = prev;
}

void lsc__result_fallback(const char *what, const char *wanted, const char *took, const char *reason)
{
	struct lsc_load_result *r = cur;
	if (!r)
		return;
	r->fallbacks_seen++;
	if (r->n_fallbacks >= LSC_FALLBACKS_MAX)
		return;
	struct lsc_fallback *f = &r->fallbacks[r->n_fallbacks++];
	copy(f->what, sizeof(f->what), what);
	copy(f->wanted, sizeof(f->wanted), wanted);
	copy(f->took, sizeof(f->took), took);
	copy(f->reason, sizeof(f->reason), reason);
}

void lsc__result_error(const char *what, const char *path, uint64_t offset, const char *cause)
{
	struct lsc_load_result *r = cur;
	/* The first error is the cause; a later one is its consequence. */
	if (!r || r->err_what[0])
		return;
	copy(r->err_what, sizeof(r->err_what), what);
	copy(r->err_path, sizeof(r->err_path), path);
	r->err_offset = path ? offset : 0;
	copy(r->err_cause, sizeof(r->err_cause), cause);
}
