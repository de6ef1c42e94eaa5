/*
 * The KFD EAGAIN counter, read from inside the library.
 *
 * ROCm's thunk (libhsakmt, kmtIoctl) retries AMDKFD_IOC_ALLOC_MEMORY_OF_GPU
 * on EAGAIN in an unbounded loop that nobody counts or logs; seed 000 lost
 * 200-1000 s there. tools/preload builds libloadscope_kfdcount.so, an
 * LD_PRELOAD library that counts those ioctls, and exports
 * lsc_kfdcount_snapshot(). This reader finds it with dlsym(RTLD_DEFAULT), so
 * the counts exist only when the user preloaded it, and cost nothing
 * otherwise.
 */
#ifndef LSC_PIN_KFD_COUNTER_H
#define LSC_PIN_KFD_COUNTER_H

#include <stdint.h>
#include <sys/ioctl.h>

/*
 * AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, defined here rather than taken from
 * <linux/kfd_ioctl.h>: that header includes <drm/drm.h>, which is not
 * installed without libdrm's headers. The number is _IOWR('K', 0x16, struct
 * kfd_ioctl_alloc_memory_of_gpu_args), a 40-byte struct (va_addr, size,
 * handle, mmap_offset: u64; gpu_id, flags: u32), stable since Linux 4.17:
 * 0xc0284b16.
 */
struct lsc__kfd_alloc_args {
	uint64_t va_addr, size, handle, mmap_offset;
	uint32_t gpu_id, flags;
};
#define LSC__KFD_IOC_ALLOC_MEMORY_OF_GPU _IOWR('K', 0x16, struct lsc__kfd_alloc_args)

/* The order of the values lsc_kfdcount_snapshot() fills (a plain array, so
 * the preload and the library share no struct layout). */
enum lsc__kfd_stat {
	LSC__KFD_CALLS = 0,   /* ALLOC_MEMORY_OF_GPU ioctls on the KFD fd */
	LSC__KFD_EAGAIN,      /* ... of which returned EAGAIN */
	LSC__KFD_NS,          /* ns spent inside all of them */
	LSC__KFD_EAGAIN_NS,   /* ns spent inside the ones that returned EAGAIN */
	LSC__KFD_OTHER_ERR,   /* ... of which failed otherwise */
	LSC__KFD_NOT_KFD,     /* the same request number on an fd that is not KFD */
	LSC__KFD_IOCTLS,      /* every ioctl that went through the preload */
	LSC__KFD_STAT_COUNT
};

/* The name the preload exports. */
#define LSC__KFD_SNAPSHOT_SYM "lsc_kfdcount_snapshot"
typedef int (*lsc__kfd_snapshot_fn)(uint64_t *out, unsigned n);

/* Defined only in the preload (tools/preload/kfdcount.c), never in the
 * library: the library must not reference it by name. */
int lsc_kfdcount_snapshot(uint64_t *out, unsigned n);

/*
 * lsc__kfd_counter_read - the preload's counts since the process began.
 * Any pointer may be NULL. Return: 0, or -ENOENT when the preload is not
 * loaded (the outputs are then set to 0).
 */
int lsc__kfd_counter_read(uint64_t *calls, uint64_t *eagain, uint64_t *ns);

/* A step's share of the counts: lsc__kfd_mark before it, lsc__kfd_add
 * after it adds the difference to the three sums (and sets *seen) when the
 * preload is loaded; both cost one dlsym otherwise. */
struct lsc__kfd_mark {
	int ok;
	uint64_t calls, eagain, ns;
};
void lsc__kfd_mark(struct lsc__kfd_mark *m);
void lsc__kfd_add(const struct lsc__kfd_mark *m, int *seen, uint64_t *calls, uint64_t *eagain,
		  uint64_t *ns);

/* lsc__kfd_counter_read_all - every value, in enum lsc__kfd_stat order.
 * Return: how many were filled (<= @n), or -ENOENT. */
int lsc__kfd_counter_read_all(uint64_t *out, unsigned n);

#endif
