/*
 * Test kit for the arena's tests: a profiler whose lines land in a buffer,
 * the real page backing of a range read from /proc/self/smaps, and a
 * syscall table that fails the Nth call of one hook (the shim of
 * src/loader/sys.h), records the prctl and madvise calls it sees and the
 * ranges it mapped (to prove from /proc/self/maps that nothing leaked).
 */
#ifndef ARENA_TESTKIT_H
#define ARENA_TESTKIT_H

#include <stddef.h>
#include <stdint.h>

#include <loadscope/profiler.h>

struct atk_cap {
	char buf[1 << 16];
	size_t len;
	unsigned lines;
};

/* The sink that appends to a struct atk_cap (@user). */
void atk_sink(void *user, const char *line, size_t len);
/* A profiler (on, no env, no watchdog) writing into @c. */
lsc_profiler *atk_profiler(struct atk_cap *c);
/* Lines of @event ("arena", "fallback", ...) containing @needle (NULL: any). */
unsigned atk_count(const struct atk_cap *c, const char *event, const char *needle);

/* The value of @key in the first line of @event, parsed by the grammar's
 * own parser, copied into @out. Return 1 found, 0 not. */
int atk_field(const struct atk_cap *c, const char *event, const char *key, char *out,
	      size_t out_len);

/* The mappings overlapping [addr, addr+len) in /proc/self/smaps. */
struct atk_vma {
	unsigned mappings;
	uint64_t bytes, rss_bytes, anon_huge_bytes, locked_bytes;
	int all_hg, all_nh, any_hg, any_nh; /* VmFlags "hg" / "nh" */
	int contiguous;                     /* the mappings cover the range without a hole */
};
int atk_vma_read(const void *addr, size_t len, struct atk_vma *out);

/* VmRSS of /proc/self/status in bytes. */
int64_t atk_rss_bytes(void);

/* Hooks of the failing syscall table. */
enum atk_op { ATK_MMAP, ATK_MUNMAP, ATK_MADVISE, ATK_MLOCK, ATK_PRCTL, ATK_OP_COUNT };
/* Install a table that fails call number @nth (1-based) of @op with @err;
 * @nth 0 fails nothing (only counts and records). */
void atk_sys_fail(enum atk_op op, unsigned nth, int err);
void atk_sys_restore(void);
unsigned atk_sys_calls(enum atk_op op);
/* How many of the ranges the table's mmap returned since atk_sys_fail()
 * still overlap a mapping in /proc/self/maps (0: nothing leaked). Reads the
 * file without allocating, so that no allocator mapping lands in between. */
unsigned atk_sys_leaked(void);
/* The prctl calls seen, in order, as "op:a2:a3" strings; and the madvise
 * advice values, interleaved in @trace as "madvise:<advice>". */
extern char atk_trace[4096];

/* Drop CAP_IPC_LOCK from the effective set (for memlock tests in a child). */
int atk_drop_ipc_lock(void);

#endif
