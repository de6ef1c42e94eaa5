/*
 * The arena's device address: where a GPU kernel reads the pinned arena in
 * place (mapped pinned memory), asked of the backend that pinned it once the
 * pin succeeded, kept for lsc_arena_device_ptr() and reported in the line
 * that reports the pin.
 *
 * Each segment is a registration of its own, so each is asked: with
 * unified addressing every answer is the host address itself; without it
 * only answers that continue one another make one device range for the
 * whole arena, and anything else is reported, not handed out. A failure is
 * a reason in the line, never a failed load: the arena is pinned either way.
 */
#include <inttypes.h>
#include <stdio.h>

#include "loader/arena.h"
#include "loader/arena_int.h"
#include "loader/lines.h"
#include "format/line.h"

void lsc__arena_device_map(struct lsc__arena *a)
{
	char *why = a->device_ptr_why;
	size_t why_len = sizeof a->device_ptr_why;

	a->device_ptr = NULL;
	why[0] = '\0';
	if (!a->base || !a->pin || !a->pin->device_pointer)
		return;
	uint64_t seg = a->pin_segment_bytes ? a->pin_segment_bytes : a->mapped_bytes;
	uintptr_t first = 0;
	for (uint64_t off = 0; off < a->mapped_bytes; off += seg) {
		void *dev = NULL;
		int rc = a->pin->device_pointer((char *)a->base + off, &dev, why, why_len);
		if (rc < 0) {
			if (!why[0])
				snprintf(why, why_len, "%s: device_pointer: %s", a->pin->name,
					 lsc__errname(rc));
			return;
		}
		why[0] = '\0';
		if (!dev) {
			snprintf(why, why_len, "%s: no device address for +%" PRIu64, a->pin->name, off);
			return;
		}
		if (!off)
			first = (uintptr_t)dev;
		if ((uintptr_t)dev != first + off) {
			snprintf(why, why_len,
				 "the segment at +%" PRIu64 " maps to 0x%" PRIxPTR ", not 0x%" PRIxPTR
				 ": no one device range for the arena",
				 off, (uintptr_t)dev, first + (uintptr_t)off);
			return;
		}
	}
	a->device_ptr = (void *)first;
}

void lsc__arena_device_say(struct lsc__rec *r, const struct lsc__arena *a)
{
	char ptr[32];

	if (!a->pin || !a->pin->device_pointer)
		return;
	if (!a->device_ptr) {
		lsc__rec_say(r, "; no device pointer: %s", a->device_ptr_why);
		lsc__rec_str(r, "device_ptr", "n/a");
		lsc__rec_str(r, "device_ptr_reason", a->device_ptr_why);
		return;
	}
	int unified = a->device_ptr == a->base;
	snprintf(ptr, sizeof ptr, "0x%" PRIxPTR, (uintptr_t)a->device_ptr);
	lsc__rec_say(r, "; device pointer %s, %s", ptr,
		     unified ? "the host address (unified addressing)" : "not the host address");
	lsc__rec_str(r, "device_ptr", ptr);
	lsc__rec_u64(r, "device_ptr_is_host", (uint64_t)unified);
}
