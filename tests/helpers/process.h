/*
 * The test process as the kernel sees it, read from /proc/self (never from
 * the library's own readers, which are under test): the mappings and page
 * backing of a range, the resident set, the open descriptors; and one
 * change to it, dropping CAP_IPC_LOCK (for memlock tests in a child).
 */
#ifndef LSC_TESTS_PROCESS_H
#define LSC_TESTS_PROCESS_H

#include <stddef.h>
#include <stdint.h>

/* The mappings overlapping [addr, addr+len) in /proc/self/smaps. */
struct lsct_vma {
	unsigned mappings;
	uint64_t bytes, rss_bytes, anon_huge_bytes, locked_bytes;
	int all_hg, all_nh, any_hg, any_nh; /* VmFlags "hg" / "nh" */
	int contiguous;                     /* the mappings cover the range without a hole */
};
int lsct_vma_read(const void *addr, size_t len, struct lsct_vma *out);

/* VmRSS of /proc/self/status in bytes; -1 when unreadable. */
int64_t lsct_rss_bytes(void);

/* Open file descriptors of this process (entries of /proc/self/fd). */
int lsct_open_fds(void);

/* Drop CAP_IPC_LOCK from the effective set; 0 or a negative errno. */
int lsct_drop_ipc_lock(void);

#endif
