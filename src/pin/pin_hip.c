/*
 * The "hip" pin backend: page-locks the arena with hipHostRegister (or
 * allocates it with hipHostMalloc), maps it for the device, and copies
 * staging buffers to device memory on one stream, one event per slot. The
 * work itself is the GPU core's (pin_gpu.c), shared with pin_cuda.c; this
 * file holds what is HIP's: the runtime's names, flags and errors, and the
 * roctx ranges, so that every #ifdef and every runtime name stays here.
 *
 * The HIP runtime is dlopen'ed the first time a load asks for it
 * (one the engine already loaded, else libamdhip64.so.7, .6, .5, the
 * unversioned name, then /opt/rocm's copy); the library links against nothing
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
 * LSC__GPU_RETRIES times, after 1 ms then 10 ms. *retries reports those plus
 * the EAGAIN returns the KFD counter observed during the call, when the
 * counter's preload is loaded (tools/preload, kfd_counter.h).
 *
 * Observed on the build machine (HIP 5.2.3 from Debian, no /dev/kfd):
 * hipGetDeviceCount returns hipErrorNoDevice with count 0 after trying to
 * open /dev/kfd four times; it prints nothing, takes ~20 ms, and the process
 * survives, also under ASan; hipHostRegister and hipHostMalloc then return
 * hipErrorInvalidDevice. So initialising it without a device is safe here
 * and is not guarded; the reason line adds whether /dev/kfd exists.
 *
 * Read-only registration (LSC__PIN_READONLY) needs hipHostRegisterReadOnly,
 * which ROCm 6's headers define and HIP 5.2's lack: built against headers
 * without it, the backend does not claim the flag and the loader ignores it
 * with a note, rather than hand a runtime a bit it may not know.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <hip/hip_runtime_api.h>

#include <loadscope/common.h>

#include "pin/gpu_dl.h"
#include "pin/pin_gpu.h"

#ifdef hipHostRegisterReadOnly
#define REGISTER_READONLY hipHostRegisterReadOnly
#define CAPS LSC__PIN_CAP_READONLY
#else
#define REGISTER_READONLY 0
#define CAPS 0
#endif

/* The core calls the runtime through plain C types. */
_Static_assert(sizeof(hipError_t) == sizeof(int), "hipError_t is passed as an int");
_Static_assert(sizeof(hipMemcpyKind) == sizeof(int), "hipMemcpyKind is passed as an int");
_Static_assert(sizeof(hipStream_t) == sizeof(void *) && sizeof(hipEvent_t) == sizeof(void *),
	       "streams and events are passed as void *");

static const char *const hip_names[] = {
	"libamdhip64.so.7",
	"libamdhip64.so.6",
	"libamdhip64.so.5",
	"libamdhip64.so",
	"/opt/rocm/lib/libamdhip64.so",
	NULL,
};

/* The runtime's errors that mean "no usable driver or device", as opposed to
 * a call that failed on a working GPU. */
static int map_err(int err)
{
	switch ((hipError_t)err) {
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
static void describe(const struct lsc__gpu_err *e, char *why, size_t why_len)
{
	const char *call = e->call ? e->call : "", *sep = e->call ? ": " : "";
	int same = strcmp(e->name, e->words) == 0;
	const char *words = same ? "" : e->words;

	if (e->err == hipErrorNoDevice)
		snprintf(why, why_len, "hip: no HIP-capable device (%s%s%s; %s)", e->name,
			 same ? "" : ": ", words, kfd_note());
	else if (e->r == LSC_E_NORUNTIME)
		snprintf(why, why_len, "hip: %s%s%s%s%s (%s)", call, sep, words, same ? "" : " ",
			 e->name, kfd_note());
	else
		snprintf(why, why_len, "hip: %s%s%s%s%s", call, sep, words, same ? "" : " ",
			 e->name);
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

static void range_push(const char *name)
{
	pthread_once(&roctx.once, roctx_once);
	if (roctx.push)
		(void)roctx.push(name);
}

static void range_pop(void)
{
	pthread_once(&roctx.once, roctx_once);
	if (roctx.pop)
		(void)roctx.pop();
}

static struct lsc__gpu_state state = LSC__GPU_STATE_INIT;

static const struct lsc__gpu_rt hip = {
	.name = "hip",
	.libs = hip_names,
	.host_alloc = "hipHostMalloc",
	.free_host = "hipHostFree",
	.ok = hipSuccess,
	.no_device = hipErrorNoDevice,
	.out_of_memory = hipErrorOutOfMemory,
	.unknown = "hipError?",
	.map_err = map_err,
	.describe = describe,
	.register_flags = {hipHostRegisterPortable, hipHostRegisterMapped, REGISTER_READONLY},
	.alloc_flags = {hipHostMallocPortable, hipHostMallocMapped, 0},
	.stream_flags = hipStreamNonBlocking,
	.event_flags = hipEventDisableTiming,
	.host_to_device = hipMemcpyHostToDevice,
	.kfd_eagain = 1,
	.range_push = range_push,
	.range_pop = range_pop,
	.state = &state,
};

LSC__GPU_PIN_OPS(lsc__pin_hip, hip, CAPS);
