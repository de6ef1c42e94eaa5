/*
 * Which pin table a load uses (pin.h): the one its options name, from the
 * registry of compiled backends, or a test's. One home, so that the
 * allocate phase (a backend that allocates its own memory) and the pin
 * phase never disagree on the backend.
 */
#include <loadscope/loader.h>

#include "pin/pin.h"

static const struct lsc__pin_ops *pin_forced;

void lsc__pin_override(const struct lsc__pin_ops *ops)
{
	pin_forced = ops;
}

const struct lsc__pin_ops *lsc__pin_wanted(const struct lsc_load_options *o)
{
	if (pin_forced)
		return pin_forced;
	return lsc__pin_find(o && o->pin && *o->pin ? o->pin : "none");
}
