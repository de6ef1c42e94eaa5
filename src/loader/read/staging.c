/*
 * Staging buffers: K buffers of C bytes, allocated, faulted and pinned once
 * per load (kvikio #641: lazily allocated bounce buffers make the first
 * task slow), page-aligned so that O_DIRECT can read into them, sized by
 * bandwidth rather than by the model (run-ai #164).
 *
 * Pinning: with the arena's pin backend when it really locks pages (so a
 * GPU backend can DMA from them), otherwise mlock. A failure to pin is not
 * fatal: io_uring pins fixed buffers itself, and pread does not need it.
 * It is printed as a fallback with its reason.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "loader/read/read.h"
#include "host/mem_room.h"
#include "profiler/internal.h"
#include "sys/sys.h"

int lsc__staging_init(struct lsc__load *L, struct lsc__staging *s, unsigned count, uint64_t bytes)
{
	memset(s, 0, sizeof(*s));
	bytes = (bytes + LSC__DIO_ALIGN - 1) & ~(LSC__DIO_ALIGN - 1);
	s->count = count;
	s->bytes = bytes;
	s->map_bytes = (uint64_t)count * bytes;
	/* The buffers are populated and locked at once: a size near the
	 * memory this process may take (MemAvailable, or a memory cgroup's
	 * room below it: host/mem_room.c, as the arena's guard reads it) would
	 * bring the OOM killer to the engine rather than an error. Half of it
	 * is the most they may take. */
	struct lsc__mem_room room;
	int t = lsc__mem_room_read(lsc__proc_root(L->p), lsc__sys_root(L->p), &room) == 0 ? room.tightest : -1;
	if (t >= 0 && room.b[t].room > 0 && s->map_bytes > (uint64_t)room.b[t].room / 2) {
		lsc__load_error(L->p, "staging", NULL, 0, -ENOMEM,
				"%u staging buffers of %llu MiB would take more than half of %s%s%s (%lld MiB)",
				count, (unsigned long long)(bytes >> 20), t == LSC__MEM_AVAILABLE ? "" : "the room under ",
				lsc__mem_src_what(t), t == LSC__MEM_AVAILABLE ? "" : " of its cgroup",
				(long long)(room.b[t].room >> 20));
		memset(s, 0, sizeof(*s));
		return -ENOMEM;
	}
	void *m = lsc__sys->mmap(NULL, s->map_bytes, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (m == MAP_FAILED) {
		int err = -errno;
		lsc__load_error(L->p, "staging", NULL, 0, err, "could not map %u staging buffers of %llu MiB",
				count, (unsigned long long)(bytes >> 20));
		memset(s, 0, sizeof(*s));
		return err;
	}
	s->base = m;

	char why[256] = "";
	const struct lsc__pin_ops *pin = L->out ? L->out->a.pin : NULL;
	if (pin && (pin->caps & LSC__PIN_CAP_LOCKS) && (pin->caps & LSC__PIN_CAP_REGISTER) && pin->pin) {
		unsigned retries = 0;
		if (pin->pin(s->base, s->map_bytes, 0, &retries, why, sizeof(why)) == 0) {
			s->pin_ops = pin;
			s->pinned_by = pin->name;
			return 0;
		}
	}
	if (lsc__sys->mlock(s->base, s->map_bytes) == 0) {
		s->pinned_by = "mlock";
		return 0;
	}
	int merr = errno;
	char reason[384];
	snprintf(reason, sizeof(reason), "%s%smlock of %llu bytes: %s", why, why[0] ? "; " : "",
		 (unsigned long long)s->map_bytes, lsc__errname(-merr));
	lsc__load_fallback(L->p, "staging", "pinned", "pageable", reason);
	return 0;
}

void lsc__staging_release(struct lsc__staging *s)
{
	if (!s->base)
		return;
	if (s->pin_ops && s->pin_ops->unpin)
		s->pin_ops->unpin(s->base, s->map_bytes);
	else if (s->pinned_by)
		lsc__sys->munlock(s->base, s->map_bytes);
	lsc__sys->munmap(s->base, s->map_bytes);
	memset(s, 0, sizeof(*s));
}
