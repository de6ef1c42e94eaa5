/*
 * `loadscope load --device N`: the device copy lsc_load already has
 * (loader.md, "Device copy": each chunk queued to the device as soon as
 * it is in the pinned arena, on min(Q, 8) slots, so the copies of one
 * chunk overlap the reads of the next), reached from the command line.
 *
 * The backend is probed first: without a GPU the load would otherwise
 * allocate and fault the whole arena before the pin chain found no
 * device, and print a fallback and an error where one line says it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "load_device.h"
#include "loader/arena.h"
#include "loader/lines.h"
#include "pin/pin.h"

int lsc_tool_load_device(lsc_profiler *p, struct lsc_load_options *o, int device, char *why,
			 size_t why_len)
{
	if (!o->pin || !strcmp(o->pin, "none")) {
		for (const struct lsc__pin_ops *const *b = lsc__pin_backends; *b; b++)
			if ((*b)->caps & LSC__PIN_CAP_DEVICE) {
				o->pin = (*b)->name;
				break;
			}
	}
	/* The override (tests) first, as the load itself takes it. */
	const struct lsc__pin_ops *ops = lsc__pin_wanted(o);
	if (!ops || !(ops->caps & LSC__PIN_CAP_DEVICE)) {
		snprintf(why, why_len, "the %s pin backend has no device memory%s",
			 ops ? ops->name : o->pin,
			 !strcmp(o->pin, "none") ? " (this build has no GPU backend)" : "");
		return -EINVAL;
	}
	if (ops->probe) {
		char pw[256] = "";
		int ret = ops->probe(pw, sizeof(pw));
		if (ret < 0) {
			snprintf(why, why_len, "%s", pw);
			lsc__load_error(p, "device", NULL, 0, ret, "--device %d: %s", device,
					pw[0] ? pw : "the runtime's probe failed");
			return ret;
		}
	}
	o->device = device;
	o->flags |= LSC_LOAD_PIN_STRICT;
	return 0;
}
