/*
 * A start's phase table as data (lsc_start_table_read, profiler.h): what the
 * phase lines and the `ready` line say, added up by kind and name, for an
 * engine that shows or checks its own startup without parsing its log.
 *
 * The rows live in the profiler (a fixed table, like the spans), filled
 * under the profiler's lock as each phase line is printed: a phase
 * boundary still allocates nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "profiler/profiler_impl.h"

void lsc__table_add(lsc_profiler *p, enum lsc_phase_kind kind, const char *name, int overlapped,
		    int failed, uint64_t wall_ns, uint64_t bytes)
{
	struct lsc_phase_row *row = NULL;
	for (unsigned i = 0; i < p->n_rows && !row; i++) {
		struct lsc_phase_row *r = &p->rows[i];
		if (r->kind == kind && r->overlapped == overlapped && !strcmp(r->name, name))
			row = r;
	}
	if (!row) {
		if (p->n_rows >= LSC_START_ROWS_MAX) {
			p->rows_dropped++;
			return;
		}
		row = &p->rows[p->n_rows++];
		memset(row, 0, sizeof(*row));
		row->kind = kind;
		row->overlapped = overlapped;
		snprintf(row->name, sizeof(row->name), "%s", name);
	}
	row->count++;
	row->failed += failed != 0;
	row->wall_ns += wall_ns;
	row->bytes += bytes;
}

LSC_API int lsc_start_table_read(const lsc_profiler *cp, struct lsc_start_table *out)
{
	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!cp || !cp->on)
		return -ENOENT;
	lsc_profiler *p = (lsc_profiler *)cp; /* the lock only */
	uint64_t now = lsc__now_ns();
	pthread_mutex_lock(&p->lock);
	int seen = p->start_seen, ended = p->start_ended;
	if (seen) {
		out->ended = ended;
		if (ended) {
			out->wall_ns = p->end_wall_ns;
			out->covered_ns = p->end_covered_ns;
		} else {
			out->wall_ns = now - p->start_ns;
			out->covered_ns = p->covered_ns + (p->open_spans ? now - p->cover_t0 : 0);
			if (out->covered_ns > out->wall_ns)
				out->covered_ns = out->wall_ns;
		}
		out->unattributed_ns = out->wall_ns - out->covered_ns;
		out->phases = p->phases;
		out->n_rows = p->n_rows;
		out->rows_dropped = p->rows_dropped;
		memcpy(out->rows, p->rows, p->n_rows * sizeof(p->rows[0]));
	}
	pthread_mutex_unlock(&p->lock);
	if (!seen)
		return -ENOENT;
	return ended ? 0 : -EAGAIN;
}
