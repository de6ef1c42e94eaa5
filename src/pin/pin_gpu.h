/*
 * The GPU pin backends' shared core: what the "cuda" and "hip" backends do
 * the same way (load the runtime once, take the device count once and replay
 * it, register and allocate with bounded retries, map for the device, the
 * double-buffered device copy on one stream with one event per slot, putting
 * the engine's current device back), written once over a small const table
 * of the runtime's entry points and constants (struct lsc__gpu_rt).
 *
 * A backend file keeps what is its own: its toolkit headers, the library
 * names to dlopen, the symbol prefix and the two symbols HIP renamed, the
 * flag and error constants, the mapping of its errors to ours, the wording
 * of its reason lines (the runtimes fail differently without a device) and
 * its profiler ranges (NVTX, roctx). There is no GPU header and no #ifdef
 * here: the runtimes' types travel as plain C types (an error enum as int, a
 * stream or event handle as void *), which each backend checks against its
 * toolkit's with static assertions, so the core can be compiled, and tested
 * against a fake runtime, in every build.
 *
 * Private to src/pin/ (and tests): the others use pin.h.
 */
#ifndef LSC_PIN_PIN_GPU_H
#define LSC_PIN_PIN_GPU_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "pin/pin.h"

#define LSC__GPU_RETRIES 2    /* of an allocation failure, after 1 ms then 10 ms */
#define LSC__GPU_MAX_SLOTS 64 /* events per device buffer */

/* The runtime entry points the core calls, by the name that follows the
 * runtime's prefix (cudaMalloc, hipMalloc); HostAlloc and FreeHost are
 * CUDA's names, which HIP spells hipHostMalloc and hipHostFree. */
struct lsc__gpu_fns {
	int (*GetDeviceCount)(int *count);
	const char *(*GetErrorName)(int err);
	const char *(*GetErrorString)(int err);
	int (*GetLastError)(void);
	int (*HostRegister)(void *host, size_t len, unsigned flags);
	int (*HostUnregister)(void *host);
	int (*HostAlloc)(void **out, size_t len, unsigned flags);
	int (*FreeHost)(void *host);
	int (*HostGetDevicePointer)(void **dev, void *host, unsigned flags);
	int (*SetDevice)(int device);
	int (*GetDevice)(int *device);
	int (*Malloc)(void **out, size_t len);
	int (*Free)(void *dev);
	int (*StreamCreateWithFlags)(void **stream, unsigned flags);
	int (*StreamSynchronize)(void *stream);
	int (*StreamDestroy)(void *stream);
	int (*EventCreateWithFlags)(void **event, unsigned flags);
	int (*EventRecord)(void *event, void *stream);
	int (*EventSynchronize)(void *event);
	int (*EventDestroy)(void *event);
	int (*MemcpyAsync)(void *dst, const void *src, size_t len, int kind, void *stream);
};

/* A backend's mutable side: the runtime, loaded and probed once per process
 * (never unloaded, see gpu_dl.h). Zero it with LSC__GPU_STATE_INIT. */
struct lsc__gpu_state {
	pthread_mutex_t lock;
	atomic_int done;
	int err;
	char why[512];
	struct lsc__gpu_fns fn;
};
#define LSC__GPU_STATE_INIT {.lock = PTHREAD_MUTEX_INITIALIZER}

/* The runtime's flags for LSC__PIN_PORTABLE, _MAPPED and _READONLY (0 where
 * it has none: the flag is then ignored). */
struct lsc__gpu_flags {
	unsigned portable, mapped, readonly;
};

/* A failed call, for the backend to put in words. */
struct lsc__gpu_err {
	int err;           /* the runtime's error */
	int r;             /* what map_err made of it */
	const char *call;  /* "cudaHostRegister(4096 bytes)", or NULL (the probe) */
	const char *name;  /* the error's name ("cudaErrorNoDevice") */
	const char *words; /* the runtime's words for it */
};

struct lsc__gpu_rt {
	/* The backend's name: the first word of its lines, the tag of its
	 * dlopen messages and the prefix of the runtime's symbols. An array, so
	 * that the ops table can point at it in a constant initializer. */
	char name[8];
	const char *const *libs; /* to dlopen, in order; NULL-terminated */
	const char *host_alloc;  /* the symbols of HostAlloc and FreeHost */
	const char *free_host;
	/* Resolved already: no dlopen (a test's fake runtime). */
	const struct lsc__gpu_fns *fns;

	int ok;              /* the success code */
	int no_device;       /* reported for a device count of 0 */
	int out_of_memory;   /* the one error worth retrying */
	const char *unknown; /* the error's name when the runtime has none */
	/* 0, LSC_E_NODEVICE, LSC_E_NORUNTIME, a negative errno or LSC_E_GPU. */
	int (*map_err)(int err);
	/* Write the one reason line for @e into @why (never NULL here). */
	void (*describe)(const struct lsc__gpu_err *e, char *why, size_t why_len);

	struct lsc__gpu_flags register_flags, alloc_flags;
	unsigned stream_flags;  /* non-blocking */
	unsigned event_flags;   /* timing disabled */
	int host_to_device;     /* the copy kind */
	/* Add the KFD counter's EAGAIN returns during HostRegister to its
	 * retries (ROCm's thunk retries them without a trace; kfd_counter.h). */
	int kfd_eagain;

	void (*range_push)(const char *name);
	void (*range_pop)(void);

	struct lsc__gpu_state *state;
};

/* The pin hooks over @rt; the same contracts as struct lsc__pin_ops. */
int lsc__gpu_probe(const struct lsc__gpu_rt *rt, char *why, size_t why_len);
int lsc__gpu_pin(const struct lsc__gpu_rt *rt, void *addr, size_t len, unsigned flags,
		 unsigned *retries, char *why, size_t why_len);
int lsc__gpu_unpin(const struct lsc__gpu_rt *rt, void *addr, size_t len);
int lsc__gpu_alloc(const struct lsc__gpu_rt *rt, size_t len, unsigned flags, void **out,
		   char *why, size_t why_len);
void lsc__gpu_free(const struct lsc__gpu_rt *rt, void *addr, size_t len);
int lsc__gpu_device_pointer(const struct lsc__gpu_rt *rt, void *host, void **dev, char *why,
			    size_t why_len);
int lsc__gpu_dev_open(const struct lsc__gpu_rt *rt, int device, size_t bytes, unsigned slots,
		      struct lsc__dev **out, char *why, size_t why_len);
/* A device handle knows its runtime: these go into the table as they are. */
int lsc__gpu_dev_copy(struct lsc__dev *d, size_t dev_off, const void *host, size_t len,
		      unsigned slot);
int lsc__gpu_dev_wait(struct lsc__dev *d, unsigned slot);
void lsc__gpu_dev_close(struct lsc__dev *d);
void *lsc__gpu_dev_base(struct lsc__dev *d);
const char *lsc__gpu_dev_why(struct lsc__dev *d);

/*
 * LSC__GPU_PIN_OPS - define the pin ops table @ops over the runtime table
 * @rt (a static const struct lsc__gpu_rt defined above it), with the
 * capabilities every GPU backend has plus @more_caps: LSC__PIN_CAP_READONLY
 * where rt.register_flags.readonly is not 0 (a member of @rt is no constant
 * expression, so the backend says it twice). The hooks that take no device
 * handle have no way to carry @rt, so each backend gets its own one-line
 * hooks that pass it on; this macro writes them once.
 */
#define LSC__GPU_PIN_OPS(ops, rt, more_caps)                                                   \
	static int gpu_probe(char *why, size_t why_len)                                        \
	{                                                                                      \
		return lsc__gpu_probe(&(rt), why, why_len);                                    \
	}                                                                                      \
	static int gpu_pin(void *addr, size_t len, unsigned flags, unsigned *retries, char *why, \
			   size_t why_len)                                                     \
	{                                                                                      \
		return lsc__gpu_pin(&(rt), addr, len, flags, retries, why, why_len);           \
	}                                                                                      \
	static int gpu_unpin(void *addr, size_t len)                                           \
	{                                                                                      \
		return lsc__gpu_unpin(&(rt), addr, len);                                       \
	}                                                                                      \
	static int gpu_alloc(size_t len, unsigned flags, void **out, char *why, size_t why_len) \
	{                                                                                      \
		return lsc__gpu_alloc(&(rt), len, flags, out, why, why_len);                   \
	}                                                                                      \
	static void gpu_free(void *addr, size_t len)                                           \
	{                                                                                      \
		lsc__gpu_free(&(rt), addr, len);                                               \
	}                                                                                      \
	static int gpu_device_pointer(void *host, void **dev, char *why, size_t why_len)       \
	{                                                                                      \
		return lsc__gpu_device_pointer(&(rt), host, dev, why, why_len);                \
	}                                                                                      \
	static int gpu_dev_open(int device, size_t bytes, unsigned slots, struct lsc__dev **out, \
				char *why, size_t why_len)                                     \
	{                                                                                      \
		return lsc__gpu_dev_open(&(rt), device, bytes, slots, out, why, why_len);      \
	}                                                                                      \
	static void gpu_range_push(const char *name)                                           \
	{                                                                                      \
		(rt).range_push(name);                                                         \
	}                                                                                      \
	static void gpu_range_pop(void)                                                        \
	{                                                                                      \
		(rt).range_pop();                                                              \
	}                                                                                      \
	const struct lsc__pin_ops ops = {                                                      \
		.name = (rt).name,                                                             \
		.caps = LSC__PIN_CAP_REGISTER | LSC__PIN_CAP_ALLOC | LSC__PIN_CAP_DEVICE |     \
			LSC__PIN_CAP_LOCKS | (more_caps),                                      \
		.probe = gpu_probe,                                                            \
		.pin = gpu_pin,                                                                \
		.unpin = gpu_unpin,                                                            \
		.alloc = gpu_alloc,                                                            \
		.free = gpu_free,                                                              \
		.device_pointer = gpu_device_pointer,                                          \
		.dev_open = gpu_dev_open,                                                      \
		.dev_copy = lsc__gpu_dev_copy,                                                 \
		.dev_wait = lsc__gpu_dev_wait,                                                 \
		.dev_close = lsc__gpu_dev_close,                                               \
		.range_push = gpu_range_push,                                                  \
		.range_pop = gpu_range_pop,                                                    \
		.dev_base = lsc__gpu_dev_base,                                                 \
		.dev_why = lsc__gpu_dev_why,                                                   \
	}

#endif
