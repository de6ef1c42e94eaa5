/*
 * The "cuda" pin backend: page-locks the arena with cudaHostRegister (or
 * allocates it with cudaHostAlloc), maps it for the device, and copies
 * staging buffers to device memory on one stream, one event per slot.
 *
 * The CUDA runtime is dlopen'ed the first time a load asks for it
 * (libcudart.so.13, libcudart.so, then the toolkit's own copy under
 * /usr/local/cuda), so the library links against nothing from CUDA and an
 * engine that never asks for a GPU pin never maps it. The toolkit headers
 * are included for types and constants only: calling a CUDA function by name
 * here would fail to link, which is the point. NVTX3 is header-only and
 * dlopens its injection library only when Nsight sets NVTX_INJECTION64_PATH,
 * so the ranges cost a branch without a profiler attached.
 *
 * Retry policy: cudaHostRegister / cudaHostAlloc that fail with
 * cudaErrorMemoryAllocation are retried at most LSC_CUDA_RETRIES times,
 * after 1 ms then 10 ms, and the retries are counted in *retries. Any other
 * error is final. The CUDA runtime itself does not retry silently the way
 * ROCm's thunk does (seed 000), so what is counted here is all there is.
 *
 * Observed on the build machine (CUDA 13.0 runtime, no NVIDIA driver, no
 * libcuda.so.1): cudaGetDeviceCount returns cudaErrorInsufficientDriver,
 * not cudaErrorNoDevice; every later call returns the same; nothing is
 * printed. With a driver and no device the runtime returns cudaErrorNoDevice.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <loadscope/common.h>

#include "loader/gpu_dl.h"
#include "loader/pin.h"

#define LSC_CUDA_RETRIES 2
#define LSC_CUDA_MAX_SLOTS 64

static const char *const cudart_names[] = {
	"libcudart.so.13",
	"libcudart.so.12", /* the calls used here kept their ABI from 12 to 13 */
	"libcudart.so",
	"/usr/local/cuda/lib64/libcudart.so.13",
	NULL,
};

/* The runtime, loaded once per process and never unloaded (gpu_dl.h). */
static struct {
	pthread_once_t once;
	int err;
	char why[512];
	const char *file;
	cudaError_t (*GetDeviceCount)(int *);
	const char *(*GetErrorName)(cudaError_t);
	const char *(*GetErrorString)(cudaError_t);
	cudaError_t (*GetLastError)(void);
	cudaError_t (*HostRegister)(void *, size_t, unsigned);
	cudaError_t (*HostUnregister)(void *);
	cudaError_t (*HostAlloc)(void **, size_t, unsigned);
	cudaError_t (*FreeHost)(void *);
	cudaError_t (*HostGetDevicePointer)(void **, void *, unsigned);
	cudaError_t (*SetDevice)(int);
	cudaError_t (*GetDevice)(int *);
	cudaError_t (*Malloc)(void **, size_t);
	cudaError_t (*Free)(void *);
	cudaError_t (*StreamCreateWithFlags)(cudaStream_t *, unsigned);
	cudaError_t (*StreamSynchronize)(cudaStream_t);
	cudaError_t (*StreamDestroy)(cudaStream_t);
	cudaError_t (*EventCreateWithFlags)(cudaEvent_t *, unsigned);
	cudaError_t (*EventRecord)(cudaEvent_t, cudaStream_t);
	cudaError_t (*EventSynchronize)(cudaEvent_t);
	cudaError_t (*EventDestroy)(cudaEvent_t);
	cudaError_t (*MemcpyAsync)(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);
} rt = {.once = PTHREAD_ONCE_INIT};

#define SYM(n) {"cuda" #n, (void **)&rt.n}

static void load_once(void)
{
	void *h;
	const struct lsc__gpu_sym syms[] = {
		SYM(GetDeviceCount), SYM(GetErrorName), SYM(GetErrorString), SYM(GetLastError),
		SYM(HostRegister), SYM(HostUnregister), SYM(HostAlloc), SYM(FreeHost),
		SYM(HostGetDevicePointer), SYM(SetDevice), SYM(GetDevice), SYM(Malloc), SYM(Free),
		SYM(StreamCreateWithFlags), SYM(StreamSynchronize), SYM(StreamDestroy),
		SYM(EventCreateWithFlags), SYM(EventRecord), SYM(EventSynchronize),
		SYM(EventDestroy), SYM(MemcpyAsync),
	};

	rt.err = lsc__gpu_dlopen("cuda", cudart_names, &h, &rt.file, rt.why, sizeof(rt.why));
	if (rt.err)
		return;
	rt.err = lsc__gpu_dlsyms("cuda", h, rt.file, syms, sizeof(syms) / sizeof(syms[0]), rt.why,
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

static const char *err_name(cudaError_t e)
{
	const char *s = rt.GetErrorName ? rt.GetErrorName(e) : NULL;
	return s ? s : "cudaError?";
}

static const char *err_string(cudaError_t e)
{
	const char *s = rt.GetErrorString ? rt.GetErrorString(e) : NULL;
	return s ? s : "unknown error";
}

/* The runtime's errors that mean "no usable driver or device", as opposed to
 * a call that failed on a working GPU. */
static int map_err(cudaError_t e)
{
	switch (e) {
	case cudaSuccess:
		return 0;
	case cudaErrorNoDevice:
		return LSC_E_NODEVICE;
	case cudaErrorInsufficientDriver:
	case cudaErrorCallRequiresNewerDriver:
	case cudaErrorSystemDriverMismatch:
	case cudaErrorCompatNotSupportedOnDevice:
	case cudaErrorSystemNotReady:
	case cudaErrorInitializationError:
	case cudaErrorDevicesUnavailable:
		return LSC_E_NORUNTIME;
	case cudaErrorMemoryAllocation:
		return -ENOMEM;
	case cudaErrorHostMemoryAlreadyRegistered:
		return -EEXIST;
	case cudaErrorInvalidValue:
		return -EINVAL;
	default:
		return LSC_E_GPU;
	}
}

/* One line naming the call, the runtime's words and the error's name; the
 * driver's absence is spelled out, since the runtime's own words for it
 * ("driver version is insufficient") mislead on a machine with no driver. */
static int fail(cudaError_t e, const char *call, char *why, size_t why_len)
{
	int r = map_err(e);

	if (rt.GetLastError)
		(void)rt.GetLastError(); /* clear a non-sticky error for the next call */
	if (!why || !why_len)
		return r;
	if (e == cudaErrorNoDevice) {
		snprintf(why, why_len, "cuda: no CUDA-capable device (%s: %s)", err_name(e),
			 err_string(e));
	} else if (r == LSC_E_NORUNTIME) {
		void *drv = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
		snprintf(why, why_len, "cuda: %s%s%s (%s)%s", call ? call : "", call ? ": " : "",
			 err_string(e), err_name(e),
			 drv ? "" : "; libcuda.so.1 is not loaded: no NVIDIA driver on this machine?");
		if (drv)
			dlclose(drv); /* only drops the reference NOLOAD took */
	} else {
		snprintf(why, why_len, "cuda: %s%s%s (%s)", call ? call : "", call ? ": " : "",
			 err_string(e), err_name(e));
	}
	return r;
}

static int probe_now(char *why, size_t why_len)
{
	int n = 0;
	int r = rt_load(why, why_len);

	if (r)
		return r;
	cudaError_t e = rt.GetDeviceCount(&n);
	if (e != cudaSuccess)
		return fail(e, NULL, why, why_len);
	if (n <= 0)
		return fail(cudaErrorNoDevice, NULL, why, why_len);
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

static int cuda_probe(char *why, size_t why_len)
{
	return ready(why, why_len);
}

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static int cuda_pin(void *addr, size_t len, unsigned flags, unsigned *retries, char *why,
		    size_t why_len)
{
	unsigned f = 0, tries = 0;
	cudaError_t e;
	int r = ready(why, why_len);

	if (retries)
		*retries = 0;
	if (r)
		return r;
	if (flags & LSC__PIN_PORTABLE)
		f |= cudaHostRegisterPortable;
	if (flags & LSC__PIN_MAPPED)
		f |= cudaHostRegisterMapped;
	if (flags & LSC__PIN_READONLY)
		f |= cudaHostRegisterReadOnly;
	for (;;) {
		e = rt.HostRegister(addr, len, f);
		if (e != cudaErrorMemoryAllocation || tries == LSC_CUDA_RETRIES)
			break;
		(void)rt.GetLastError();
		nap_ms(tries ? 10 : 1);
		tries++;
	}
	if (retries)
		*retries = tries;
	if (e == cudaSuccess)
		return 0;
	char call[96];
	snprintf(call, sizeof(call), "cudaHostRegister(%zu bytes%s)", len,
		 tries ? ", after retries" : "");
	return fail(e, call, why, why_len);
}

static int cuda_unpin(void *addr, size_t len)
{
	(void)len;
	if (ready(NULL, 0))
		return probed.err;
	cudaError_t e = rt.HostUnregister(addr);
	return e == cudaSuccess ? 0 : fail(e, NULL, NULL, 0);
}

static int cuda_alloc(size_t len, unsigned flags, void **out, char *why, size_t why_len)
{
	unsigned f = 0, tries = 0;
	cudaError_t e;
	int r = ready(why, why_len);

	*out = NULL;
	if (r)
		return r;
	if (flags & LSC__PIN_PORTABLE)
		f |= cudaHostAllocPortable;
	if (flags & LSC__PIN_MAPPED)
		f |= cudaHostAllocMapped;
	for (;;) {
		e = rt.HostAlloc(out, len, f);
		if (e != cudaErrorMemoryAllocation || tries == LSC_CUDA_RETRIES)
			break;
		(void)rt.GetLastError();
		nap_ms(tries ? 10 : 1);
		tries++;
	}
	if (e == cudaSuccess)
		return 0;
	*out = NULL;
	char call[96];
	snprintf(call, sizeof(call), "cudaHostAlloc(%zu bytes%s)", len,
		 tries ? ", after retries" : "");
	return fail(e, call, why, why_len);
}

static void cuda_free(void *addr, size_t len)
{
	(void)len;
	if (addr && !ready(NULL, 0))
		(void)rt.FreeHost(addr);
}

static int cuda_device_pointer(void *host, void **dev)
{
	*dev = NULL;
	if (ready(NULL, 0))
		return probed.err;
	cudaError_t e = rt.HostGetDevicePointer(dev, host, 0);
	return e == cudaSuccess ? 0 : fail(e, NULL, NULL, 0);
}

/* Device side: one device buffer, one stream, one event per slot. */
struct lsc__dev {
	void *base;
	size_t bytes;
	unsigned slots;
	int device;
	cudaStream_t stream;
	cudaEvent_t ev[LSC_CUDA_MAX_SLOTS];
	char why[256];
};

static void cuda_dev_close(struct lsc__dev *d)
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

static int cuda_dev_open(int device, size_t bytes, unsigned slots, struct lsc__dev **out,
			 char *why, size_t why_len)
{
	cudaError_t e;
	const char *call;
	int r = ready(why, why_len);

	*out = NULL;
	if (r)
		return r;
	if (slots == 0 || slots > LSC_CUDA_MAX_SLOTS || device < 0) {
		snprintf(why, why_len, "cuda: dev_open: %u slots on device %d (1..%d slots)", slots,
			 device, LSC_CUDA_MAX_SLOTS);
		return -EINVAL;
	}
	struct lsc__dev *d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(why, why_len, "cuda: dev_open: out of host memory");
		return -ENOMEM;
	}
	d->bytes = bytes;
	d->slots = slots;
	d->device = device;
	/* The engine's thread keeps its current device: set ours for the
	 * allocations, put the engine's back on every way out. */
	int old_device = -1;
	call = "cudaGetDevice";
	if ((e = rt.GetDevice(&old_device)) != cudaSuccess)
		goto err;
	call = "cudaSetDevice";
	if ((e = rt.SetDevice(device)) != cudaSuccess)
		goto err;
	call = "cudaMalloc";
	if ((e = rt.Malloc(&d->base, bytes)) != cudaSuccess) {
		d->base = NULL;
		goto err;
	}
	call = "cudaStreamCreateWithFlags";
	if ((e = rt.StreamCreateWithFlags(&d->stream, cudaStreamNonBlocking)) != cudaSuccess) {
		d->stream = NULL;
		goto err;
	}
	call = "cudaEventCreateWithFlags";
	for (unsigned i = 0; i < slots; i++)
		if ((e = rt.EventCreateWithFlags(&d->ev[i], cudaEventDisableTiming)) != cudaSuccess) {
			d->ev[i] = NULL;
			goto err;
		}
	(void)rt.SetDevice(old_device);
	*out = d;
	return 0;
err:
	r = fail(e, call, why, why_len);
	cuda_dev_close(d);
	if (old_device >= 0)
		(void)rt.SetDevice(old_device);
	return r;
}

static int cuda_dev_copy(struct lsc__dev *d, size_t dev_off, const void *host, size_t len,
			 unsigned slot)
{
	cudaError_t e;

	if (!d || slot >= d->slots || dev_off > d->bytes || len > d->bytes - dev_off)
		return -EINVAL;
	e = rt.MemcpyAsync((char *)d->base + dev_off, host, len, cudaMemcpyHostToDevice, d->stream);
	if (e != cudaSuccess)
		return fail(e, "cudaMemcpyAsync", d->why, sizeof(d->why));
	e = rt.EventRecord(d->ev[slot], d->stream);
	if (e != cudaSuccess)
		return fail(e, "cudaEventRecord", d->why, sizeof(d->why));
	return 0;
}

static int cuda_dev_wait(struct lsc__dev *d, unsigned slot)
{
	if (!d || slot >= d->slots)
		return -EINVAL;
	cudaError_t e = rt.EventSynchronize(d->ev[slot]);
	return e == cudaSuccess ? 0 : fail(e, "cudaEventSynchronize", d->why, sizeof(d->why));
}

static void *cuda_dev_base(struct lsc__dev *d)
{
	return d ? d->base : NULL;
}

static const char *cuda_dev_why(struct lsc__dev *d)
{
	return d ? d->why : "";
}

static void cuda_range_push(const char *name)
{
	nvtxRangePushA(name);
}

static void cuda_range_pop(void)
{
	nvtxRangePop();
}

const struct lsc__pin_ops lsc__pin_cuda = {
	.abi = LSC__PIN_ABI,
	.name = "cuda",
	.caps = LSC__PIN_CAP_REGISTER | LSC__PIN_CAP_ALLOC | LSC__PIN_CAP_DEVICE |
		LSC__PIN_CAP_LOCKS,
	.probe = cuda_probe,
	.pin = cuda_pin,
	.unpin = cuda_unpin,
	.alloc = cuda_alloc,
	.free = cuda_free,
	.device_pointer = cuda_device_pointer,
	.dev_open = cuda_dev_open,
	.dev_copy = cuda_dev_copy,
	.dev_wait = cuda_dev_wait,
	.dev_close = cuda_dev_close,
	.range_push = cuda_range_push,
	.range_pop = cuda_range_pop,
	.dev_base = cuda_dev_base,
	.dev_why = cuda_dev_why,
};
