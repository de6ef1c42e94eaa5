/*
 * Reader of the KFD EAGAIN counter that tools/preload exports (see
 * kfd_counter.h). Lookup each time rather than caching: a test may load the
 * preload after the library, and dlsym is cheap next to a pin phase.
 */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "pin/kfd_counter.h"

int lsc__kfd_counter_read_all(uint64_t *out, unsigned n)
{
	lsc__kfd_snapshot_fn fn;
	void *sym = dlsym(RTLD_DEFAULT, LSC__KFD_SNAPSHOT_SYM);

	if (out)
		memset(out, 0, sizeof(*out) * n);
	if (!sym)
		return -ENOENT;
	memcpy(&fn, &sym, sizeof(fn)); /* object to function pointer, as POSIX allows */
	return fn(out, n);
}

int lsc__kfd_counter_read(uint64_t *calls, uint64_t *eagain, uint64_t *ns)
{
	/* every value zero that the counter does not fill (an older one
	 * fills fewer, a missing one none): read_all zeroes them first */
	uint64_t v[LSC__KFD_STAT_COUNT];
	int r = lsc__kfd_counter_read_all(v, LSC__KFD_STAT_COUNT);

	if (calls)
		*calls = v[LSC__KFD_CALLS];
	if (eagain)
		*eagain = v[LSC__KFD_EAGAIN];
	if (ns)
		*ns = v[LSC__KFD_NS];
	return r < 0 ? r : 0;
}

void lsc__kfd_mark(struct lsc__kfd_mark *m)
{
	m->ok = lsc__kfd_counter_read(&m->calls, &m->eagain, &m->ns) == 0;
}

void lsc__kfd_add(const struct lsc__kfd_mark *m, int *seen, uint64_t *calls, uint64_t *eagain,
		  uint64_t *ns)
{
	struct lsc__kfd_mark now;
	if (!m->ok)
		return;
	lsc__kfd_mark(&now);
	if (!now.ok)
		return;
	*seen = 1;
	*calls += now.calls - m->calls;
	*eagain += now.eagain - m->eagain;
	*ns += now.ns - m->ns;
}
