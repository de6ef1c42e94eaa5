/*
 * Applying a page-size policy to the arena's mapping, before its first touch.
 *
 * The advice has to come before the first fault: a fault takes whatever page
 * size the VMA allows at that moment, and later advice only changes what
 * khugepaged may do. So each piece is mapped and advised, and only then does
 * anything touch it (prefault.c).
 *
 * The arena is one PROT_NONE reservation with every piece mapped MAP_FIXED
 * inside it (as ROCr maps its allocations): it stays contiguous while each
 * piece is allocated and advised on its own, and the reservation is aligned
 * to the huge-page size (over-reserved, then trimmed) so that a THP request
 * can be met from the first byte. hugetlb is all or nothing: any piece the
 * pool cannot back fails the whole arena, and the caller decides what next.
 *
 * PR_SET_THP_DISABLE is a per-process switch inherited by children; the hold
 * saves the previous bits (including PR_THP_DISABLE_EXCEPT_ADVISED on 6.18+
 * kernels) and puts exactly those back. Loads of distinct arenas may run in
 * parallel threads, so holds are counted: the first saves and sets, the last
 * restores (otherwise the second saver would save "disabled" and put it back
 * after the first restored).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "host/procfs.h"
#include "loader/arena_int.h"
#include "loader/lines.h"
#include "sys/sys.h"

#ifndef PR_THP_DISABLE_EXCEPT_ADVISED
#define PR_THP_DISABLE_EXCEPT_ADVISED (1 << 1)
#endif
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned holders;
static int64_t hold_saved;

int lsc__thp_hold(struct lsc__thp_hold *h)
{
	const struct lsc__sys *sys = lsc__sys;
	int rc = 0;

	h->held = 0;
	pthread_mutex_lock(&hold_lock);
	if (holders == 0) {
		int got = sys->prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
		if (got < 0) {
			rc = -errno;
			goto out;
		}
		if (sys->prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) < 0) {
			rc = -errno;
			goto out;
		}
		hold_saved = got;
	}
	holders++;
	h->saved = hold_saved;
	h->held = 1;
out:
	pthread_mutex_unlock(&hold_lock);
	return rc;
}

int lsc__thp_restore(struct lsc__thp_hold *h)
{
	int rc = 0;

	if (!h || !h->held)
		return 0;
	pthread_mutex_lock(&hold_lock);
	if (holders == 1) {
		unsigned long on = (h->saved & 1) ? 1 : 0;
		unsigned long mode =
			on ? (unsigned long)(h->saved & PR_THP_DISABLE_EXCEPT_ADVISED) : 0;
		if (lsc__sys->prctl(PR_SET_THP_DISABLE, on, mode, 0, 0) < 0)
			rc = -errno;
	}
	if (rc == 0) {
		holders--;
		h->held = 0;
	}
	pthread_mutex_unlock(&hold_lock);
	return rc;
}

static int advise_piece(enum lsc_thp_policy policy, void *at, size_t len, char *why,
			size_t why_len)
{
	int advice;

	if (policy == LSC_THP_4K)
		advice = MADV_NOHUGEPAGE;
	else if (policy == LSC_THP_THP)
		advice = MADV_HUGEPAGE;
	else
		return 0;
	if (lsc__sys->madvise(at, len, advice) == 0)
		return 0;
	int err = errno;
	snprintf(why, why_len, "madvise(%s) on %zu bytes: %s",
		 advice == MADV_HUGEPAGE ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE", len, lsc__errname(-err));
	return -err;
}

/* Before Linux 6.12, a MAP_FIXED mmap that failed late could already have
 * unmapped the range it was to replace, leaving a hole in our reservation
 * that another thread of the engine may have mapped since; 6.12 restores the
 * old mapping on failure. Asked only on that failure path; 0 when unknown
 * (the cautious side). */
static int kernel_restores_failed_fixed_map(void)
{
	return lsc__kernel_at_least(NULL, 6, 12);
}

/*
 * Release the arena after piece [at, at+len) failed. The pieces before it
 * and the reservation after it are certainly ours. The failed piece's range
 * is ours too unless its mmap failed on an older kernel and left a hole: then
 * probe it with MAP_FIXED_NOREPLACE, which succeeds only on a hole (ours
 * again, released) and fails with EEXIST on a mapping we cannot tell from
 * someone else's, which we leave (a PROT_NONE, unreserved range at worst)
 * rather than unmap another thread's memory. If the shim's munmap is the
 * one failing, the default still releases.
 */
static void release_after_failed_piece(const struct lsc__sys *sys, char *a, size_t mapped,
				       char *at, size_t len, int mmap_failed)
{
	if (!mmap_failed || kernel_restores_failed_fixed_map()) {
		if (sys->munmap(a, mapped) < 0)
			lsc__sys_default.munmap(a, mapped);
		return;
	}
	if (at > a && sys->munmap(a, (size_t)(at - a)) < 0)
		lsc__sys_default.munmap(a, (size_t)(at - a));
	if (at + len < a + mapped && sys->munmap(at + len, (size_t)(a + mapped - (at + len))) < 0)
		lsc__sys_default.munmap(at + len, (size_t)(a + mapped - (at + len)));
	void *hole = lsc__sys_default.mmap(at, len, PROT_NONE,
					   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
					   -1, 0);
	if (hole == at)
		lsc__sys_default.munmap(at, len);
	else if (hole != MAP_FAILED)
		lsc__sys_default.munmap(hole, len); /* a kernel without NOREPLACE put it elsewhere */
}

int lsc__policy_map(enum lsc_thp_policy policy, uint64_t mapped, uint64_t piece,
		    unsigned n_pieces, uint64_t align, void **base, int *advice_refused, char *why,
		    size_t why_len)
{
	const struct lsc__sys *sys = lsc__sys;

	*base = NULL;
	*advice_refused = 0;
	if (!mapped || !piece || !n_pieces || (align & (align - 1)))
		return -EINVAL;
	if (align < 4096)
		align = 4096;

	/* The reservation: PROT_NONE, no commit charge, over-reserved by one
	 * alignment unit and trimmed so that the arena starts on a boundary. */
	size_t rlen = (size_t)(mapped + align);
	char *r = sys->mmap(NULL, rlen, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED) {
		int err = errno;
		snprintf(why, why_len, "mmap reservation of %zu bytes: %s", rlen, lsc__errname(-err));
		return -err;
	}
	char *a = (char *)(((uintptr_t)r + align - 1) & ~(uintptr_t)(align - 1));
	size_t head = (size_t)(a - r), tail = rlen - head - (size_t)mapped;
	if (head && sys->munmap(r, head) < 0) {
		int err = errno;
		snprintf(why, why_len, "munmap while trimming the reservation: %s", lsc__errname(-err));
		lsc__sys_default.munmap(r, rlen);
		return -err;
	}
	if (tail && sys->munmap(a + mapped, tail) < 0) {
		int err = errno;
		snprintf(why, why_len, "munmap while trimming the reservation: %s", lsc__errname(-err));
		/* Only what is still ours: the head is gone and may be someone
		 * else's mapping by now. */
		lsc__sys_default.munmap(a, rlen - head);
		return -err;
	}

	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
	if (policy == LSC_THP_HUGETLB)
		flags |= MAP_HUGETLB;
	uint64_t off = 0;
	for (unsigned i = 0; i < n_pieces; i++, off += piece) {
		size_t len = (size_t)(off + piece <= mapped ? piece : mapped - off);
		void *at = a + off;
		void *got = sys->mmap(at, len, PROT_READ | PROT_WRITE, flags, -1, 0);
		int rc = 0;
		if (got == MAP_FAILED) {
			rc = -errno;
			snprintf(why, why_len, "mmap%s of piece %u/%u (%zu bytes at +%llu): %s",
				 policy == LSC_THP_HUGETLB ? "(MAP_HUGETLB)" : "", i + 1, n_pieces,
				 len, (unsigned long long)off, lsc__errname(rc));
		} else if (got != at) {
			/* Cannot happen with MAP_FIXED; never touch memory we were not given. */
			sys->munmap(got, len);
			rc = -EFAULT;
			snprintf(why, why_len, "mmap of piece %u/%u landed elsewhere", i + 1, n_pieces);
		} else if (!*advice_refused) {
			rc = advise_piece(policy, at, len, why, why_len);
			/* EINVAL: a kernel without THP. EPERM, EACCES, ENOSYS: a
			 * sandbox that denies madvise. Either way the arena is
			 * mapped and usable without the advice. */
			if (rc == -EINVAL || rc == -EPERM || rc == -EACCES || rc == -ENOSYS) {
				*advice_refused = -rc;
				rc = 0;
			}
		}
		if (rc < 0) {
			release_after_failed_piece(sys, a, (size_t)mapped, at, len, got == MAP_FAILED);
			return rc;
		}
	}
	*base = a;
	return 0;
}
