/*
 * The syscall shim: every system call of the library's loading side (the
 * loader, its read path, the model files, the pin backends) that can fail
 * at run time goes through this table, so that a test can make the Nth call fail
 * with a chosen errno and check that the loader says so in one line and
 * releases what it took. Production code uses lsc__sys_default; nothing
 * here changes behaviour.
 *
 * All hooks have libc semantics (return -1 and set errno); the caller turns
 * that into a negative errno at the call site. A folder of its own, below
 * every folder that calls it, so that none of them includes another's.
 */
#ifndef LSC_SYS_SYS_H
#define LSC_SYS_SYS_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

struct io_uring;
struct io_uring_cqe;
struct io_uring_params;
struct iovec;
struct timespec;

struct lsc__sys {
	int (*open)(const char *path, int flags, int mode);
	int (*close)(int fd);
	ssize_t (*pread)(int fd, void *buf, size_t len, off_t off);
	int (*fstat)(int fd, struct stat *st);
	void *(*mmap)(void *addr, size_t len, int prot, int flags, int fd, off_t off);
	int (*munmap)(void *addr, size_t len);
	int (*madvise)(void *addr, size_t len, int advice);
	int (*mlock)(const void *addr, size_t len);
	int (*munlock)(const void *addr, size_t len);
	int (*prctl)(int op, unsigned long a2, unsigned long a3, unsigned long a4, unsigned long a5);
	int (*posix_fadvise)(int fd, off_t off, off_t len, int advice);
	/* liburing's setup: returns 0 or a negative errno, as liburing does */
	int (*uring_init)(unsigned entries, struct io_uring *ring, struct io_uring_params *p);
	/* The rest of liburing the reader calls, same convention: every call
	 * that enters the kernel (io_uring_enter, io_uring_register), so a test
	 * can deny one (a seccomp filter) or change a completion's result
	 * (uring_wait_cqe hands back the CQE, whose res a test may rewrite). */
	int (*uring_register_files)(struct io_uring *ring, const int *fds, unsigned n);
	int (*uring_register_buffers)(struct io_uring *ring, const struct iovec *iov, unsigned n);
	int (*uring_submit)(struct io_uring *ring);
	int (*uring_submit_and_wait)(struct io_uring *ring, unsigned wait_nr);
	int (*uring_wait_cqe)(struct io_uring *ring, struct io_uring_cqe **cqe);
	/* The reader's naps between retries (a refused submission, a peek at
	 * the completion queue): a test makes them free, so that a retry
	 * limit is counted rather than waited out. */
	int (*nanosleep)(const struct timespec *req, struct timespec *rem);
};

extern const struct lsc__sys lsc__sys_default;

/* The table in use. Tests swap it (lsc__sys_set) and restore it; the
 * loader reads it once per call. Not for concurrent loads in tests. */
extern const struct lsc__sys *lsc__sys;
void lsc__sys_set(const struct lsc__sys *s); /* NULL restores the default */

#endif
