/*
 * The "hip" pin backend: page-locks the arena with hipHostRegister (or
 * allocates it with hipHostMalloc), maps it for the device, and copies
 * staging buffers to device memory on one stream, one event per slot. The
 * same shape as pin_cuda.c, kept as its own file so that every #ifdef and
 * every runtime name stays in its backend.
 *
 * The HIP runtime is dlopen'ed the first time a load asks for it
 * (one the engine already loaded, else libamdhip64.so.7, .6, .5, then the
 * unversioned name); the library links against nothing
 * from ROCm. hip/hip_runtime_api.h is included for types and constants only.
 * roctx ranges come from libroctx64 when it can be dlopen'ed, else the range
 * hooks do nothing.
 *
 * hipHostMalloc maps and madvises its memory itself (ROCr: an anonymous
 * mmap, MADV_HUGEPAGE, one KFD userptr ioctl), so of the arena's THP
 * policies only process-off reaches it; the arena says so in its line.
 *
 * Retry policy: ROCm's thunk already retries the KFD allocation ioctl on
 * EAGAIN without bound and without a trace (seed 000: ~11,000 times, 1,069
 * s). This backend adds few retries of its own: hipHostRegister /
 * hipHostMalloc that fail with hipErrorOutOfMemory are retried at most
 * LSC_HIP_RETRIES times, after 1 ms then 10 ms. *retries reports those plus
 * the EAGAIN returns the KFD counter observed during the call, when the
 * counter's preload is loaded (tools/preload, kfd_counter.h).
 *
 * Observed on the build machine (HIP 5.2.3 from Debian, no /dev/kfd):
 * hipGetDeviceCount returns hipErrorNoDevice with count 0 after trying to
 * open /dev/kfd four times; it prints nothing, takes ~20 ms, and the process
 * survives, also under ASan; hipHostRegister and hipHostMalloc then return
 * hipErrorInvalidDevice. So initialising it without a device is safe here
 * and is not guarded; the reason line adds whether /dev/kfd exists.
 * HIP 5.2 has no read-only registration flag: LSC__PIN_READONLY is ignored.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <hip/hip_runtime_api.h>

#include <loadscope/common.h>

#include "loader/gpu_dl.h"
#include "loader/kfd_counter.h"
#include "loader/pin.h"

#define LSC_HIP_RETRIES 2
#define LSC_HIP_MAX_SLOTS 64

static const char *const hip_names[] = {
	"libamdhip64.so.7",
	"libamdhip64.so.6",
	"libamdhip64.so.5",
	"libamdhip64.so",
	"/opt/rocm/lib/libamdhip64.so",
	NULL,
};

/* The runtime, loaded once per process and never unloaded (gpu_dl.h). */
static struct {
	pthread_once_t once;
	int err;
	char why[512];
	const char *file;
	hipError_t (*GetDeviceCount)(int *);
	const char *(*GetErrorName)(hipError_t);
	const char *(*GetErrorString)(hipError_t);
	hipError_t (*GetLastError)(void);
	hipError_t (*HostRegister)(void *, size_t, unsigned);
	hipError_t (*HostUnregister)(void *);
	hipError_t (*HostMalloc)(void **, size_t, unsigned);
	hipError_t (*HostFree)(void *);
	hipError_t (*HostGetDevicePointer)(void **, void *, unsigned);
	hipError_t (*SetDevice)(int);
	hipError_t (*GetDevice)(int *);
	hipError_t (*Malloc)(void **, size_t);
	hipError_t (*Free)(void *);
	hipError_t (*StreamCreateWithFlags)(hipStream_t *, unsigned);
	hipError_t (*StreamSynchronize)(hipStream_t);
	hipError_t (*StreamDestroy)(hipStream_t);
	hipError_t (*EventCreateWithFlags)(hipEvent_t *, unsigned);
	hipError_t (*EventRecord)(hipEvent_t, hipStream_t);
	hipError_t (*EventSynchronize)(hipEvent_t);
	hipError_t (*EventDestroy)(hipEvent_t);
	hipError_t (*MemcpyAsync)(void *, const void *, size_t, hipMemcpyKind, hipStream_t);
} rt = {.once = PTHREAD_ONCE_INIT};

#define SYM(n) {"hip" #n, (void **)&rt.n}

static void load_once(void)
{
	void *h;
	const struct lsc__gpu_sym syms[] = {
		SYM(GetDeviceCount), SYM(GetErrorName), SYM(GetErrorString), SYM(GetLastError),
		SYM(HostRegister), SYM(HostUnregister), SYM(HostMalloc), SYM(HostFree),
		SYM(HostGetDevicePointer), SYM(SetDevice), SYM(GetDevice), SYM(Malloc), SYM(Free),
		SYM(StreamCreateWithFlags), SYM(StreamSynchronize), SYM(StreamDestroy),
		SYM(EventCreateWithFlags), SYM(EventRecord), SYM(EventSynchronize),
		SYM(EventDestroy), SYM(MemcpyAsync),
	};

	rt.err = lsc__gpu_dlopen("hip", hip_names, &h, &rt.file, rt.why, sizeof(rt.why));
	if (rt.err)
		return;
	rt.err = lsc__gpu_dlsyms("hip", h, rt.file, syms, sizeof(syms) / sizeof(syms[0]), rt.why,
				 sizeof(rt.why));
	/* On a missing symbol the handle stays open: harmless, and dlclose of a
	 * runtime that may have started threads is not. */
}

static int rt_load(char *why, size_t why_len)
{
	pthread_once(&rt.once, load_once);
	if (rt.err && why && why_len)
		snprintf(why, why_len, "%s", rt.why);
	return rt.err;
}

static const char *err_name(hipError_t e)
{
	const char *s = rt.GetErrorName ? rt.GetErrorName(e) : NULL;
	return s ? s : "hipError?";
}

static const char *err_string(hipError_t e)
{
	const char *s = rt.GetErrorString ? rt.GetErrorString(e) : NULL;
	return s ? s : "unknown error";
}

/* The runtime's errors that mean "no usable driver or device", as opposed to
 * a call that failed on a working GPU. */
static int map_err(hipError_t e)
{
	switch (e) {
	case hipSuccess:
		return 0;
	case hipErrorNoDevice:
		return LSC_E_NODEVICE;
	case hipErrorInsufficientDriver:
	case hipErrorNotInitialized:
	case hipErrorRuntimeOther:
		return LSC_E_NORUNTIME;
	case hipErrorOutOfMemory:
		return -ENOMEM;
	case hipErrorHostMemoryAlreadyRegistered:
		return -EEXIST;
	case hipErrorInvalidValue:
		return -EINVAL;
	default:
		return LSC_E_GPU;
	}
}

/* Whether the KFD device node exists: the first thing to know on a machine
 * where HIP sees no device. */
static const char *kfd_note(void)
{
	struct stat st;
	return stat("/dev/kfd", &st) == 0 ? "/dev/kfd present" : "no /dev/kfd: no AMD GPU driver";
}

/* One line naming the call, the runtime's words and the error's name. HIP
 * 5.2's hipGetErrorString returns the error's name for most errors, so the
 * words are left out when they say nothing more. */
static int fail(hipError_t e, const char *call, char *why, size_t why_len)
{
	int r = map_err(e);

	if (rt.GetLastError)
		(void)rt.GetLastError(); /* clear the error for the next call */
	if (!why || !why_len)
		return r;
	const char *name = err_name(e), *words = err_string(e);
	int same = strcmp(name, words) == 0;
	if (e == hipErrorNoDevice)
		snprintf(why, why_len, "hip: no HIP-capable device (%s%s%s; %s)", name,
			 same ? "" : ": ", same ? "" : words, kfd_note());
	else if (r == LSC_E_NORUNTIME)
		snprintf(why, why_len, "hip: %s%s%s%s%s (%s)", call ? call : "", call ? ": " : "",
			 same ? "" : words, same ? "" : " ", name, kfd_note());
	else
		snprintf(why, why_len, "hip: %s%s%s%s%s", call ? call : "", call ? ": " : "",
			 same ? "" : words, same ? "" : " ", name);
	return r;
}

static int probe_now(char *why, size_t why_len)
{
	int n = 0;
	int r = rt_load(why, why_len);

	if (r)
		return r;
	hipError_t e = rt.GetDeviceCount(&n);
	if (e != hipSuccess)
		return fail(e, NULL, why, why_len);
	if (n <= 0)
		return fail(hipErrorNoDevice, NULL, why, why_len);
	return 0;
}

/* The device count, taken once per process: the runtime enumerates devices
 * once at initialisation too, and every hook replays the same answer, so a
 * machine without a device gets the same one reason from pin, alloc and
 * dev_open as from probe. */
static struct {
	pthread_once_t once;
	int err;
	char why[512];
} probed = {.once = PTHREAD_ONCE_INIT};

static void probe_once(void)
{
	probed.err = probe_now(probed.why, sizeof(probed.why));
}

static int ready(char *why, size_t why_len)
{
	pthread_once(&probed.once, probe_once);
	if (probed.err && why && why_len)
		snprintf(why, why_len, "%s", probed.why);
	return probed.err;
}

static int hip_probe(char *why, size_t why_len)
{
	return ready(why, why_len);
}

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static int hip_pin(void *addr, size_t len, unsigned flags, unsigned *retries, char *why,
		    size_t why_len)
{
	unsigned f = 0, tries = 0;
	hipError_t e;
	int r = ready(why, why_len);

	if (retries)
		*retries = 0;
	if (r)
		return r;
	if (flags & LSC__PIN_PORTABLE)
		f |= hipHostRegisterPortable;
	if (flags & LSC__PIN_MAPPED)
		f |= hipHostRegisterMapped;
	uint64_t eagain0 = 0, eagain1 = 0;
	int counted = lsc__kfd_counter_read(NULL, &eagain0, NULL) == 0;
	for (;;) {
		e = rt.HostRegister(addr, len, f);
		if (e != hipErrorOutOfMemory || tries == LSC_HIP_RETRIES)
			break;
		(void)rt.GetLastError();
		nap_ms(tries ? 10 : 1);
		tries++;
	}
	if (counted && lsc__kfd_counter_read(NULL, &eagain1, NULL) == 0 && eagain1 > eagain0)
		tries += (unsigned)(eagain1 - eagain0);
	if (retries)
		*retries = tries;
	if (e == hipSuccess)
		return 0;
	char call[96];
	snprintf(call, sizeof(call), "hipHostRegister(%zu bytes%s)", len,
		 tries ? ", after retries" : "");
	return fail(e, call, why, why_len);
}

static int hip_unpin(void *addr, size_t len)
{
	(void)len;
	if (ready(NULL, 0))
		return probed.err;
	hipError_t e = rt.HostUnregister(addr);
	return e == hipSuccess ? 0 : fail(e, NULL, NULL, 0);
}

static int hip_alloc(size_t len, unsigned flags, void **out, char *why, size_t why_len)
{
	unsigned f = 0, tries = 0;
	hipError_t e;
	int r = ready(why, why_len);

	*out = NULL;
	if (r)
		return r;
	if (flags & LSC__PIN_PORTABLE)
		f |= hipHostMallocPortable;
	if (flags & LSC__PIN_MAPPED)
		f |= hipHostMallocMapped;
	for (;;) {
		e = rt.HostMalloc(out, len, f);
		if (e != hipErrorOutOfMemory || tries == LSC_HIP_RETRIES)
			break;
		(void)rt.GetLastError();
		nap_ms(tries ? 10 : 1);
		tries++;
	}
	if (e == hipSuccess)
		return 0;
	*out = NULL;
	char call[96];
	snprintf(call, sizeof(call), "hipHostMalloc(%zu bytes%s)", len,
		 tries ? ", after retries" : "");
	return fail(e, call, why, why_len);
}

static void hip_free(void *addr, size_t len)
{
	(void)len;
	if (addr && !ready(NULL, 0))
		(void)rt.HostFree(addr);
}

static int hip_device_pointer(void *host, void **dev)
{
	*dev = NULL;
	if (ready(NULL, 0))
		return probed.err;
	hipError_t e = rt.HostGetDevicePointer(dev, host, 0);
	return e == hipSuccess ? 0 : fail(e, NULL, NULL, 0);
}

/* Device side: one device buffer, one stream, one event per slot. */
struct lsc__dev {
	void *base;
	size_t bytes;
	unsigned slots;
	int device;
	hipStream_t stream;
	hipEvent_t ev[LSC_HIP_MAX_SLOTS];
	char why[256];
};

static void hip_dev_close(struct lsc__dev *d)
{
	if (!d)
		return;
	if (d->stream)
		(void)rt.StreamSynchronize(d->stream);
	for (unsigned i = 0; i < d->slots; i++)
		if (d->ev[i])
			(void)rt.EventDestroy(d->ev[i]);
	if (d->stream)
		(void)rt.StreamDestroy(d->stream);
	if (d->base)
		(void)rt.Free(d->base);
	(void)rt.GetLastError();
	free(d);
}

static int hip_dev_open(int device, size_t bytes, unsigned slots, struct lsc__dev **out,
			 char *why, size_t why_len)
{
	hipError_t e;
	const char *call;
	int r = ready(why, why_len);

	*out = NULL;
	if (r)
		return r;
	if (slots == 0 || slots > LSC_HIP_MAX_SLOTS || device < 0) {
		snprintf(why, why_len, "hip: dev_open: %u slots on device %d (1..%d slots)", slots,
			 device, LSC_HIP_MAX_SLOTS);
		return -EINVAL;
	}
	struct lsc__dev *d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(why, why_len, "hip: dev_open: out of host memory");
		return -ENOMEM;
	}
	d->bytes = bytes;
	d->slots = slots;
	d->device = device;
	/* The engine's thread keeps its current device: set ours for the
	 * allocations, put the engine's back on every way out. */
	int old_device = -1;
	call = "hipGetDevice";
	if ((e = rt.GetDevice(&old_device)) != hipSuccess)
		goto err;
	call = "hipSetDevice";
	if ((e = rt.SetDevice(device)) != hipSuccess)
		goto err;
	call = "hipMalloc";
	if ((e = rt.Malloc(&d->base, bytes)) != hipSuccess) {
		d->base = NULL;
		goto err;
	}
	call = "hipStreamCreateWithFlags";
	if ((e = rt.StreamCreateWithFlags(&d->stream, hipStreamNonBlocking)) != hipSuccess) {
		d->stream = NULL;
		goto err;
	}
	call = "hipEventCreateWithFlags";
	for (unsigned i = 0; i < slots; i++)
		if ((e = rt.EventCreateWithFlags(&d->ev[i], hipEventDisableTiming)) != hipSuccess) {
			d->ev[i] = NULL;
			goto err;
		}
	(void)rt.SetDevice(old_device);
	*out = d;
	return 0;
err:
	r = fail(e, call, why, why_len);
	hip_dev_close(d);
	if (old_device >= 0)
		(void)rt.SetDevice(old_device);
	return r;
}

static int hip_dev_copy(struct lsc__dev *d, size_t dev_off, const void *host, size_t len,
			 unsigned slot)
{
	hipError_t e;

	if (!d || slot >= d->slots || dev_off > d->bytes || len > d->bytes - dev_off)
		return -EINVAL;
	e = rt.MemcpyAsync((char *)d->base + dev_off, host, len, hipMemcpyHostToDevice, d->stream);
	if (e != hipSuccess)
		return fail(e, "hipMemcpyAsync", d->why, sizeof(d->why));
	e = rt.EventRecord(d->ev[slot], d->stream);
	if (e != hipSuccess)
		return fail(e, "hipEventRecord", d->why, sizeof(d->why));
	return 0;
}

static int hip_dev_wait(struct lsc__dev *d, unsigned slot)
{
	if (!d || slot >= d->slots)
		return -EINVAL;
	hipError_t e = rt.EventSynchronize(d->ev[slot]);
	return e == hipSuccess ? 0 : fail(e, "hipEventSynchronize", d->why, sizeof(d->why));
}

static void *hip_dev_base(struct lsc__dev *d)
{
	return d ? d->base : NULL;
}

static const char *hip_dev_why(struct lsc__dev *d)
{
	return d ? d->why : "";
}

/* roctx, when the ROCm tracer library is installed; loaded on the first
 * range so that a load without ranges never maps it. */
static struct {
	pthread_once_t once;
	int (*push)(const char *);
	int (*pop)(void);
} roctx = {.once = PTHREAD_ONCE_INIT};

static void roctx_once(void)
{
	static const char *const names[] = {"libroctx64.so.4", "libroctx64.so", NULL};
	void *h = NULL;
	const struct lsc__gpu_sym syms[] = {
		{"roctxRangePushA", (void **)&roctx.push},
		{"roctxRangePop", (void **)&roctx.pop},
	};

	if (lsc__gpu_dlopen("roctx", names, &h, NULL, NULL, 0) == 0)
		(void)lsc__gpu_dlsyms("roctx", h, names[0], syms, 2, NULL, 0);
}

static void hip_range_push(const char *name)
{
	pthread_once(&roctx.once, roctx_once);
	if (roctx.push)
		(void)roctx.push(name);
}

static void hip_range_pop(void)
{
	pthread_once(&roctx.once, roctx_once);
	if (roctx.pop)
		(void)roctx.pop();
}

const struct lsc__pin_ops lsc__pin_hip = {
	.abi = LSC__PIN_ABI,
	.name = "hip",
	.caps = LSC__PIN_CAP_REGISTER | LSC__PIN_CAP_ALLOC | LSC__PIN_CAP_DEVICE |
		LSC__PIN_CAP_LOCKS,
	.probe = hip_probe,
	.pin = hip_pin,
	.unpin = hip_unpin,
	.alloc = hip_alloc,
	.free = hip_free,
	.device_pointer = hip_device_pointer,
	.dev_open = hip_dev_open,
	.dev_copy = hip_dev_copy,
	.dev_wait = hip_dev_wait,
	.dev_close = hip_dev_close,
	.range_push = hip_range_push,
	.range_pop = hip_range_pop,
	.dev_base = hip_dev_base,
	.dev_why = hip_dev_why,
};
