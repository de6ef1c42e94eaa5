/*
 * Pin-table fakes and loads over them: see pin_fakes.h.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "helpers/pin_fakes.h"
#include "loader/read/read.h"

int lsct_pin_nothing(void *addr, size_t len, unsigned flags, unsigned *retries, char *why,
		     size_t why_len)
{
	(void)addr, (void)len, (void)flags, (void)retries, (void)why, (void)why_len;
	return 0;
}

int lsct_unpin_nothing(void *addr, size_t len)
{
	(void)addr, (void)len;
	return 0;
}

int lsct_alloc_anon(size_t len, unsigned flags, void **out, char *why, size_t why_len)
{
	(void)flags, (void)why, (void)why_len;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	*out = m;
	return 0;
}

void lsct_free_anon(void *addr, size_t len)
{
	munmap(addr, len);
}

void lsct_pinned_options(struct lsc_load_options *o, uint64_t segment)
{
	lsc_load_options_init(o);
	o->reader = "pread";
	o->thp = LSC_THP_4K;
	o->pin_segment_bytes = segment;
}

int lsct_load_over(struct lsct_capture *cap, const struct lsc__pin_ops *ops,
		   const struct lsc_load_options *o, const char *path, lsc_arena **a)
{
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(cap);
	lsc__pin_override(ops);
	int ret = lsc_load(p, o, &e, 1, 0, a);
	lsc__pin_override(NULL);
	lsc_profiler_destroy(p);
	if (ret)
		lsct_dump(cap);
	return ret;
}

int lsct_pin_note(const struct lsct_capture *cap, unsigned k, char *buf, size_t len,
		  struct lsc__parsed *pl)
{
	for (unsigned i = 0; lsct_find(cap, "note", i, buf, len, pl); i++) {
		const char *topic = lsc__parsed_get(pl, "topic");
		if (topic && !strcmp(topic, "pin") && !lsc__parsed_get(pl, "segment") && !k--)
			return 1;
	}
	return 0;
}
