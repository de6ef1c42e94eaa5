/*
 * Description: the "cuda" pin backend against the real CUDA runtime
 * installed on this machine.
 *
 * Without a device (the build machines: CUDA 13 toolkit, no NVIDIA driver,
 * no libcuda.so.1) every hook must fail cleanly with one reason line that
 * names the runtime's error, leave nothing allocated, and leave the process
 * running; with a driver and no device the error is cudaErrorNoDevice. The
 * tests that need a device run only where probe() finds one and skip loudly
 * otherwise. In the sanitizer build each no-device test ends with a leak
 * check of its own. The cases both GPU backends share are in
 * tests/helpers/pin_gpu_cases.c; this file keeps what is CUDA's.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <string.h>

#include <loadscope/common.h>

#include "helpers/pin_gpu_cases.h"

#define NO_DEVICE_ERR "cudaErrorNoDevice"
#define NO_DRIVER_ERR "cudaErrorInsufficientDriver"
#define DRIVER_LIB "libcuda.so.1"

/* Which no-device answer this machine should give: the driver library
 * decides between "no driver" and "no device". */
static int driver_present(void)
{
	void *h = dlopen(DRIVER_LIB, RTLD_LAZY | RTLD_LOCAL);
	if (h)
		dlclose(h);
	return h != NULL;
}

static const char *no_device_err(void)
{
	return driver_present() ? NO_DEVICE_ERR : NO_DRIVER_ERR;
}

static const struct lsct_gpu cuda = {.name = "cuda", .kind = "CUDA", .no_device_err = no_device_err};

LSCT_GPU_CASES(pin_cuda, &cuda)

Test(pin_cuda, probe_without_device_names_the_runtime_error)
{
	char why[512] = "";
	int r = lsct_gpu_probe_failure(&cuda, why, sizeof(why));

	if (driver_present()) {
		cr_assert_eq(r, LSC_E_NODEVICE, "probe returned %d (%s): %s", r, lsc_strerror(r), why);
		cr_assert(strstr(why, "no CUDA-capable device"), "why: '%s'", why);
		cr_assert(strstr(why, NO_DEVICE_ERR), "why: '%s'", why);
	} else {
		/* Observed here: the CUDA 13 runtime without libcuda.so.1 answers
		 * cudaErrorInsufficientDriver, not cudaErrorNoDevice. */
		cr_assert_eq(r, LSC_E_NORUNTIME, "probe returned %d (%s): %s", r, lsc_strerror(r), why);
		cr_assert(strstr(why, NO_DRIVER_ERR), "why: '%s'", why);
		cr_assert(strstr(why, DRIVER_LIB), "why does not say the driver is missing: '%s'", why);
	}
}

Test(pin_cuda, claims_read_only_registration)
{
	/* cudaHostRegisterReadOnly is in every toolkit this backend builds with. */
	cr_assert(lsct_gpu_ops(&cuda)->caps & LSC__PIN_CAP_READONLY);
}
