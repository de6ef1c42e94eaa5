/*
 * The test kit's failing syscall table (the shim of src/sys/sys.h): every
 * hook a fault test needs wraps the real call, counts it, and fails the call
 * the test's plan names, in the way it names (an errno, a short read, end of
 * file). It also records what a test proves afterwards: the prctl and
 * madvise calls in order (the madvise ones with their ranges), the ranges its mmap returned (to show from
 * /proc/self/maps that nothing leaked), and the bytes mapped and not
 * unmapped. A plan can also describe a filesystem that refuses O_DIRECT.
 */
#ifndef LSC_TESTS_SYS_SHIM_H
#define LSC_TESTS_SYS_SHIM_H

#include <stddef.h>

enum lsct_sys_op {
	LSCT_SYS_MMAP,
	LSCT_SYS_MUNMAP,
	LSCT_SYS_MADVISE,
	LSCT_SYS_MLOCK,
	LSCT_SYS_PRCTL,
	LSCT_SYS_PREAD,
	LSCT_SYS_OPEN,
	LSCT_SYS_FSTAT,
	LSCT_SYS_OP_COUNT
};

/* How the planned call fails. */
enum lsct_sys_how {
	LSCT_SYS_ERR,   /* -1 with errno set to the plan's err (every hook) */
	LSCT_SYS_SHORT, /* pread: at most 1000 bytes; fstat: succeeds with st_mtim 1 s later */
	LSCT_SYS_ZERO,  /* pread: 0, an early end of file */
	LSCT_SYS_ELSEWHERE, /* mmap: mapped, but at an address of the kernel's choosing
			     * (MAP_FIXED dropped), as a kernel taking the address as a hint would */
};

/* A filesystem that refuses O_DIRECT, with EINVAL: */
#define LSCT_DIRECT_NO_OPEN 1u    /* at open */
#define LSCT_DIRECT_NO_READ 2u    /* at every read of an O_DIRECT descriptor */
#define LSCT_DIRECT_ALIGNED 4u    /* at a misaligned read (offset or length), even past end of file */

struct lsct_sys_plan {
	enum lsct_sys_op op;
	unsigned nth;          /* the call of @op that fails, 1-based; 0: none */
	int every;             /* ... and every call of @op after it */
	int err;               /* errno of an LSCT_SYS_ERR failure */
	enum lsct_sys_how how;
	size_t mmap_len;       /* also fail every mmap of this length with @err (0: none) */
	unsigned direct;       /* LSCT_DIRECT_* */
};

/* Install the table with @plan (NULL: fail nothing, only count and record),
 * after zeroing the counts, the trace, the recorded ranges and the mapped
 * bytes. */
void lsct_sys_install(const struct lsct_sys_plan *plan);
/* The common plan: fail call number @nth (1-based) of @op with @err; @nth 0
 * fails nothing. */
void lsct_sys_fail(enum lsct_sys_op op, unsigned nth, int err);
/* Back to the real calls. */
void lsct_sys_restore(void);
/* Calls of @op since the install. */
unsigned lsct_sys_calls(enum lsct_sys_op op);
/* How many of the ranges the table's mmap returned since the install still
 * overlap a mapping in /proc/self/maps (0: nothing leaked). Reads the file
 * without allocating, so that no allocator mapping lands in between. */
unsigned lsct_sys_leaked(void);
/* Bytes mapped through the table (MAP_FIXED maps inside a reservation and is
 * not counted) and not unmapped through it since the install. */
long long lsct_sys_mapped(void);
/* The prctl calls seen, in order, as "prctl:op:a2:a3 " strings, and the
 * madvise advice values interleaved as "madvise:<advice> ". */
extern char lsct_sys_trace[4096];

/* Every madvise call since the install, with its range, in call order (the
 * first LSCT_MADV_MAX of them). */
#define LSCT_MADV_MAX 1024
struct lsct_madvise {
	void *addr;
	size_t len;
	int advice;
};
extern struct lsct_madvise lsct_sys_madv[LSCT_MADV_MAX];
/* The calls with @advice, in order, into @out (at most @cap); return how
 * many there were. */
unsigned lsct_sys_madvised(int advice, struct lsct_madvise *out, unsigned cap);

#endif
