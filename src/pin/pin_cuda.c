/*
 * The "cuda" pin backend: page-locks the arena with cudaHostRegister (or
 * allocates it with cudaHostAlloc), maps it for the device, and copies
 * staging buffers to device memory on one stream, one event per slot. The
 * work itself is the GPU core's (pin_gpu.c); this file holds what is CUDA's:
 * the runtime's names, flags and errors, and the NVTX ranges.
 *
 * The CUDA runtime is dlopen'ed the first time a load asks for it (one the
 * engine already loaded, else libcudart.so.13, libcudart.so.12,
 * libcudart.so, then the toolkit's own copy under /usr/local/cuda), so the
 * library links against nothing from CUDA and an engine that never asks for
 * a GPU pin never maps it. The toolkit headers
 * are included for types and constants only: calling a CUDA function by name
 * here would fail to link, which is the point. NVTX3 is header-only and
 * dlopens its injection library only when Nsight sets NVTX_INJECTION64_PATH,
 * so the ranges cost a branch without a profiler attached.
 *
 * Retry policy: cudaHostRegister / cudaHostAlloc that fail with
 * cudaErrorMemoryAllocation are retried at most LSC__GPU_RETRIES times,
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
#include <stdio.h>

#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <loadscope/common.h>

#include "pin/pin_gpu.h"

/* The core calls the runtime through plain C types. */
_Static_assert(sizeof(cudaError_t) == sizeof(int), "cudaError_t is passed as an int");
_Static_assert(sizeof(enum cudaMemcpyKind) == sizeof(int), "cudaMemcpyKind is passed as an int");
_Static_assert(sizeof(cudaStream_t) == sizeof(void *) && sizeof(cudaEvent_t) == sizeof(void *),
	       "streams and events are passed as void *");

static const char *const cudart_names[] = {
	"libcudart.so.13",
	"libcudart.so.12", /* the calls used here kept their ABI from 12 to 13 */
	"libcudart.so",
	"/usr/local/cuda/lib64/libcudart.so.13",
	NULL,
};

/* The runtime's errors that mean "no usable driver or device", as opposed to
 * a call that failed on a working GPU. */
static int map_err(int err)
{
	switch ((cudaError_t)err) {
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
static void describe(const struct lsc__gpu_err *e, char *why, size_t why_len)
{
	const char *call = e->call ? e->call : "", *sep = e->call ? ": " : "";

	if (e->err == cudaErrorNoDevice) {
		snprintf(why, why_len, "cuda: no CUDA-capable device (%s: %s)", e->name, e->words);
	} else if (e->r == LSC_E_NORUNTIME) {
		void *drv = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
		snprintf(why, why_len, "cuda: %s%s%s (%s)%s", call, sep, e->words, e->name,
			 drv ? "" : "; libcuda.so.1 is not loaded: no NVIDIA driver on this machine?");
		if (drv)
			dlclose(drv); /* only drops the reference NOLOAD took */
	} else {
		snprintf(why, why_len, "cuda: %s%s%s (%s)", call, sep, e->words, e->name);
	}
}

static void range_push(const char *name)
{
	nvtxRangePushA(name);
}

static void range_pop(void)
{
	nvtxRangePop();
}

static struct lsc__gpu_state state = LSC__GPU_STATE_INIT;

static const struct lsc__gpu_rt cuda = {
	.name = "cuda",
	.libs = cudart_names,
	.host_alloc = "cudaHostAlloc",
	.free_host = "cudaFreeHost",
	.ok = cudaSuccess,
	.no_device = cudaErrorNoDevice,
	.out_of_memory = cudaErrorMemoryAllocation,
	.unknown = "cudaError?",
	.map_err = map_err,
	.describe = describe,
	.register_flags = {cudaHostRegisterPortable, cudaHostRegisterMapped, cudaHostRegisterReadOnly},
	.alloc_flags = {cudaHostAllocPortable, cudaHostAllocMapped, 0},
	.stream_flags = cudaStreamNonBlocking,
	.event_flags = cudaEventDisableTiming,
	.host_to_device = cudaMemcpyHostToDevice,
	.range_push = range_push,
	.range_pop = range_pop,
	.state = &state,
};

LSC__GPU_PIN_OPS(lsc__pin_cuda, cuda, LSC__PIN_CAP_READONLY);
