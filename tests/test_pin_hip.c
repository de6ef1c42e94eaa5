/*
 * Description: the "hip" pin backend against the real HIP runtime installed
 * on this machine.
 *
 * Without a device (the build machines: Debian's HIP 5.2.3, no /dev/kfd)
 * every hook must fail cleanly with one reason line that names the
 * runtime's error (hipErrorNoDevice from the probe, observed here), leave
 * nothing allocated, and leave the process running. The
 * tests that need a device run only where probe() finds one and skip loudly
 * otherwise. In the sanitizer build each no-device test ends with a leak
 * check of its own. The cases both GPU backends share are in
 * tests/helpers/pin_gpu_cases.c; this file keeps what is HIP's.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include <loadscope/common.h>

#include "helpers/pin_gpu_cases.h"

#define NO_DEVICE_ERR "hipErrorNoDevice"
#define KFD "/dev/kfd"

/* The KFD node decides whether HIP can see an AMD GPU at all. */
static int kfd_present(void)
{
	return access(KFD, F_OK) == 0;
}

/* The probe's reason, not hipHostRegister's own hipErrorInvalidDevice: the
 * hooks replay the probe on a machine without a device. */
static const char *no_device_err(void)
{
	return NO_DEVICE_ERR;
}

static const struct lsct_gpu hip = {.name = "hip", .kind = "HIP", .no_device_err = no_device_err};

LSCT_GPU_CASES(pin_hip, &hip)

Test(pin_hip, probe_without_device_names_the_runtime_error)
{
	char why[512] = "";
	int r = lsct_gpu_probe_failure(&hip, why, sizeof(why));

	/* Observed here (HIP 5.2.3, no /dev/kfd): hipErrorNoDevice, count 0,
	 * nothing printed. */
	cr_assert_eq(r, LSC_E_NODEVICE, "probe returned %d (%s): %s", r, lsc_strerror(r), why);
	cr_assert(strstr(why, "no HIP-capable device"), "why: '%s'", why);
	cr_assert(strstr(why, NO_DEVICE_ERR), "why: '%s'", why);
	if (!kfd_present())
		cr_assert(strstr(why, "no " KFD), "why does not say " KFD " is missing: '%s'", why);
}
