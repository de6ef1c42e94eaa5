/*
 * libloadscope_kfdcount.so: an LD_PRELOAD library that counts the KFD
 * allocation ioctls ROCm retries without telling anyone.
 *
 * ROCm's thunk (libhsakmt, kmtIoctl) calls AMDKFD_IOC_ALLOC_MEMORY_OF_GPU
 * again and again while it returns EAGAIN; the kernel logs it only at
 * pr_debug. In seed 000 one hipHostMalloc of 28.47 GiB spent 1,069 s in
 * ~11,000 such calls, and only strace could show it. This library wraps
 * ioctl(2), forwards every call to the real one (dlsym(RTLD_NEXT)), and for
 * that one request on the KFD file counts calls, EAGAIN returns, other
 * failures and the time spent inside them, with atomics (ROCr calls from
 * several threads).
 *
 * Reading the counts:
 *   - in a process that uses loadscope: the library finds
 *     lsc_kfdcount_snapshot() with dlsym(RTLD_DEFAULT) and prints a `note`
 *     with topic=kfd, kfd_calls=, kfd_eagain= and kfd_s= after the arena's
 *     allocation and pin steps (src/pin/kfd_counter.c, pin_segments.c);
 *   - in any process (an engine that does not embed loadscope): set
 *     LSC_KFDCOUNT_FILE=path and one line is appended there at exit.
 *
 * Which fd is KFD: the one whose /proc/self/fd link reads "/dev/kfd", looked
 * up only for the counted request number, so other ioctls pay one compare.
 * LSC_KFDCOUNT_KFD_PATH names another path to treat as KFD: the test seam
 * (a machine without an AMD GPU has no /dev/kfd), never needed in real use.
 *
 * Built without sanitizers: an interposer preloaded into arbitrary programs
 * must not drag a sanitizer runtime into them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "pin/kfd_counter.h"

#define EXPORT __attribute__((visibility("default")))

typedef int (*ioctl_fn)(int, unsigned long, ...);

static _Atomic(ioctl_fn) real_ioctl;
static _Atomic uint64_t counts[LSC__KFD_STAT_COUNT];
static char kfd_path[256] = "/dev/kfd";
static char report_path[512];

static ioctl_fn resolve(void)
{
	ioctl_fn f = atomic_load_explicit(&real_ioctl, memory_order_acquire);
	if (!f) {
		void *p = dlsym(RTLD_NEXT, "ioctl");
		memcpy(&f, &p, sizeof(f));
		atomic_store_explicit(&real_ioctl, f, memory_order_release);
	}
	return f;
}

__attribute__((constructor)) static void kfdcount_init(void)
{
	const char *p = getenv("LSC_KFDCOUNT_KFD_PATH");
	if (p && *p && strlen(p) < sizeof(kfd_path))
		memcpy(kfd_path, p, strlen(p) + 1);
	p = getenv("LSC_KFDCOUNT_FILE");
	if (p && *p && strlen(p) < sizeof(report_path))
		memcpy(report_path, p, strlen(p) + 1);
	(void)resolve();
}

static int is_kfd(int fd)
{
	char link[64], target[sizeof(kfd_path) + 1];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0 || (size_t)n >= sizeof(target) - 1)
		return 0;
	target[n] = '\0';
	return strcmp(target, kfd_path) == 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void add(enum lsc__kfd_stat s, uint64_t v)
{
	atomic_fetch_add_explicit(&counts[s], v, memory_order_relaxed);
}

/* glibc's prototype. The third argument is always a pointer-sized value for
 * the requests that matter; reading it as void * is what every ioctl
 * interposer does. */
EXPORT int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	va_start(ap, request);
	void *arg = va_arg(ap, void *);
	va_end(ap);

	ioctl_fn f = resolve();
	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	add(LSC__KFD_IOCTLS, 1);
	/* The kernel compares the low 32 bits of the request. */
	if ((unsigned)request != (unsigned)LSC__KFD_IOC_ALLOC_MEMORY_OF_GPU)
		return f(fd, request, arg);
	if (!is_kfd(fd)) {
		add(LSC__KFD_NOT_KFD, 1);
		return f(fd, request, arg);
	}
	uint64_t t0 = now_ns();
	int r = f(fd, request, arg);
	int err = errno;
	uint64_t dt = now_ns() - t0;
	add(LSC__KFD_CALLS, 1);
	add(LSC__KFD_NS, dt);
	if (r < 0 && err == EAGAIN) {
		add(LSC__KFD_EAGAIN, 1);
		add(LSC__KFD_EAGAIN_NS, dt);
	} else if (r < 0) {
		add(LSC__KFD_OTHER_ERR, 1);
	}
	errno = err;
	return r;
}

/* lsc_kfdcount_snapshot - copy up to @n counters (enum lsc__kfd_stat order)
 * into @out. Return: how many were copied. */
EXPORT int lsc_kfdcount_snapshot(uint64_t *out, unsigned n)
{
	unsigned k = n < LSC__KFD_STAT_COUNT ? n : LSC__KFD_STAT_COUNT;
	for (unsigned i = 0; out && i < k; i++)
		out[i] = atomic_load_explicit(&counts[i], memory_order_relaxed);
	return out ? (int)k : 0;
}

__attribute__((destructor)) static void kfdcount_report(void)
{
	if (!report_path[0])
		return;
	FILE *f = fopen(report_path, "a");
	if (!f)
		return;
	uint64_t v[LSC__KFD_STAT_COUNT];
	lsc_kfdcount_snapshot(v, LSC__KFD_STAT_COUNT);
	fprintf(f,
		"kfdcount pid=%d kfd_calls=%llu kfd_eagain=%llu kfd_s=%.6f kfd_eagain_s=%.6f "
		"kfd_other_err=%llu not_kfd=%llu ioctls=%llu\n",
		(int)getpid(), (unsigned long long)v[LSC__KFD_CALLS],
		(unsigned long long)v[LSC__KFD_EAGAIN], (double)v[LSC__KFD_NS] / 1e9,
		(double)v[LSC__KFD_EAGAIN_NS] / 1e9, (unsigned long long)v[LSC__KFD_OTHER_ERR],
		(unsigned long long)v[LSC__KFD_NOT_KFD], (unsigned long long)v[LSC__KFD_IOCTLS]);
	fclose(f);
}
