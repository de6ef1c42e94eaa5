/*
 * The loader's phases as spans and runtime ranges at once (see phase.h):
 * one begin and one end for both, so that no phase can open one and forget
 * the other.
 */
#include "pin/phase.h"
#include "profiler/internal.h"

/* The table, when it has both halves of a range: a push without its pop
 * would leave the runtime's stack unbalanced. */
static const struct lsc__pin_ops *with_ranges(const struct lsc__pin_ops *ops)
{
	return ops && ops->range_push && ops->range_pop ? ops : NULL;
}

static const struct lsc__pin_ops *push(const struct lsc__pin_ops *ranges, enum lsc_phase_kind kind,
				       const char *name)
{
	ranges = with_ranges(ranges);
	if (ranges)
		ranges->range_push(name ? name : lsc_phase_name(kind));
	return ranges;
}

void lsc__phase_begin(lsc_profiler *p, const struct lsc__pin_ops *ranges,
		      enum lsc_phase_kind kind, const char *name, uint64_t bytes,
		      struct lsc__phase *ph)
{
	ph->span = 0;
	lsc_span_begin(p, kind, name, bytes, &ph->span);
	ph->ranges = push(ranges, kind, name);
}

void lsc__phase_end(lsc_profiler *p, struct lsc__phase *ph)
{
	lsc_span_end(p, ph->span, NULL);
	if (ph->ranges)
		ph->ranges->range_pop();
	ph->span = 0;
	ph->ranges = NULL;
}

void lsc__busy_begin(const struct lsc__pin_ops *ranges, enum lsc_phase_kind kind,
		     const char *name, struct lsc__busy *b)
{
	b->ranges = push(ranges, kind, name);
	b->t0 = lsc__now_ns();
}

void lsc__busy_end(struct lsc__busy *b, uint64_t *busy_ns)
{
	*busy_ns += lsc__now_ns() - b->t0;
	if (b->ranges)
		b->ranges->range_pop();
	b->ranges = NULL;
}
