/*
 * The "none" pin backend: leaves the arena pageable. The end of every
 * fallback chain, and the way to measure what pinning costs.
 */
#include "pin/pin.h"

static int none_pin(void *addr, size_t len, unsigned flags, unsigned *retries, char *why,
		    size_t why_len)
{
	(void)addr, (void)len, (void)flags, (void)why, (void)why_len;
	if (retries)
		*retries = 0;
	return 0;
}

static int none_unpin(void *addr, size_t len)
{
	(void)addr, (void)len;
	return 0;
}

const struct lsc__pin_ops lsc__pin_none = {
	.name = "none",
	.caps = LSC__PIN_CAP_REGISTER,
	.pin = none_pin,
	.unpin = none_unpin,
};
