/*
 * The default syscall table: thin wrappers over libc and liburing. See sys.h
 * for why the loader calls the system through a table.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sys/guard.h"
#include "sys/sys.h"

static int sys_open(const char *path, int flags, int mode)
{
	return lsc__open_high(path, flags, mode);
}

static int sys_prctl(int op, unsigned long a2, unsigned long a3, unsigned long a4, unsigned long a5)
{
	return prctl(op, a2, a3, a4, a5);
}

/* The raw system calls: AddressSanitizer replaces mlock/munlock with no-ops
 * that return 0, which would make a sanitized build claim pinned memory it
 * never locked (and hide RLIMIT_MEMLOCK failures from its tests). */
static int sys_mlock(const void *addr, size_t len)
{
	return (int)syscall(SYS_mlock, addr, len);
}

static int sys_munlock(const void *addr, size_t len)
{
	return (int)syscall(SYS_munlock, addr, len);
}

/* posix_fadvise returns its error instead of setting errno: give it the
 * table's convention (-1 and errno) like every other hook. */
static int sys_posix_fadvise(int fd, off_t off, off_t len, int advice)
{
	int err = posix_fadvise(fd, off, len, advice);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

static int sys_uring_init(unsigned entries, struct io_uring *ring, struct io_uring_params *p)
{
	return io_uring_queue_init_params(entries, ring, p);
}

static int sys_uring_register_files(struct io_uring *ring, const int *fds, unsigned n)
{
	return io_uring_register_files(ring, fds, n);
}

static int sys_uring_register_buffers(struct io_uring *ring, const struct iovec *iov, unsigned n)
{
	return io_uring_register_buffers(ring, iov, n);
}

static int sys_uring_submit_and_wait(struct io_uring *ring, unsigned wait_nr)
{
	return io_uring_submit_and_wait(ring, wait_nr);
}

static int sys_uring_wait_cqe(struct io_uring *ring, struct io_uring_cqe **cqe)
{
	return io_uring_wait_cqe(ring, cqe);
}

const struct lsc__sys lsc__sys_default = {
	.open = sys_open,
	.close = close,
	.pread = pread,
	.fstat = fstat,
	.mmap = mmap,
	.munmap = munmap,
	.madvise = madvise,
	.mlock = sys_mlock,
	.munlock = sys_munlock,
	.prctl = sys_prctl,
	.posix_fadvise = sys_posix_fadvise,
	.uring_init = sys_uring_init,
	.uring_register_files = sys_uring_register_files,
	.uring_register_buffers = sys_uring_register_buffers,
	.uring_submit = io_uring_submit,
	.uring_submit_and_wait = sys_uring_submit_and_wait,
	.uring_wait_cqe = sys_uring_wait_cqe,
	.nanosleep = nanosleep,
};

const struct lsc__sys *lsc__sys = &lsc__sys_default;

void lsc__sys_set(const struct lsc__sys *s)
{
	lsc__sys = s ? s : &lsc__sys_default;
}
