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
 * check of its own (Criterion does not fail a test whose worker LSan
 * reports at exit, so the check is made inside the test).
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <loadscope/common.h>

#include "loader/pin.h"

#define RT "hip"
#define NO_DEVICE_ERR "hipErrorNoDevice"
#define KFD "/dev/kfd"
#define MIB (1u << 20)

static const struct lsc__pin_ops *ops(void)
{
	const struct lsc__pin_ops *o = lsc__pin_find(RT);
	if (!o)
		cr_skip_test("the " RT " backend is not compiled in this build (toolkit not found)");
	return o;
}

/* The KFD node decides whether HIP can see an AMD GPU at all. */
static int kfd_present(void)
{
	return access(KFD, F_OK) == 0;
}

/* probe(); returns 1 when a device is usable. */
static int have_device(char *why, size_t why_len)
{
	return ops()->probe(why, why_len) == 0;
}

static void require_device(void)
{
	char why[512] = "";
	if (!have_device(why, sizeof(why)))
		cr_skip_test("no HIP device: %s", why);
}

/* LeakSanitizer's on-demand check, present only in the sanitizer build. */
extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

static void assert_no_leaks(void)
{
	if (__lsan_do_recoverable_leak_check)
		cr_assert_eq(__lsan_do_recoverable_leak_check(), 0, "LeakSanitizer found leaks (above)");
}

static void require_no_device(void)
{
	char why[512] = "";
	if (have_device(why, sizeof(why)))
		cr_skip_test("a HIP device is present: the no-device path is not reachable here");
}

Test(pin_hip, table_is_complete)
{
	const struct lsc__pin_ops *o = ops();
	cr_assert_eq(o->abi, LSC__PIN_ABI);
	cr_assert_str_eq(o->name, RT);
	cr_assert(o->caps & LSC__PIN_CAP_REGISTER);
	cr_assert(o->caps & LSC__PIN_CAP_ALLOC);
	cr_assert(o->caps & LSC__PIN_CAP_DEVICE);
	cr_assert(o->caps & LSC__PIN_CAP_LOCKS);
	cr_assert(o->probe && o->pin && o->unpin && o->alloc && o->free && o->device_pointer);
	cr_assert(o->dev_open && o->dev_copy && o->dev_wait && o->dev_close);
	cr_assert(o->range_push && o->range_pop && o->dev_base && o->dev_why);
}

Test(pin_hip, probe_without_device_names_the_runtime_error)
{
	char why[512] = "";
	int r = ops()->probe(why, sizeof(why));
	if (r == 0)
		cr_skip_test("a HIP device is present: the no-device path is not reachable here");

	cr_log_info("probe: %d (%s): %s", r, lsc_strerror(r), why);
	cr_assert(strncmp(why, RT ": ", strlen(RT) + 2) == 0, "why does not name the runtime: '%s'",
		  why);
	/* Observed here (HIP 5.2.3, no /dev/kfd): hipErrorNoDevice, count 0,
	 * nothing printed. */
	cr_assert_eq(r, LSC_E_NODEVICE, "probe returned %d (%s): %s", r, lsc_strerror(r), why);
	cr_assert(strstr(why, "no HIP-capable device"), "why: '%s'", why);
	cr_assert(strstr(why, NO_DEVICE_ERR), "why: '%s'", why);
	if (!kfd_present())
		cr_assert(strstr(why, "no " KFD), "why does not say " KFD " is missing: '%s'", why);
}

Test(pin_hip, probe_is_stable_across_calls)
{
	char a[512] = "", b[512] = "";
	int r1 = ops()->probe(a, sizeof(a));
	int r2 = ops()->probe(b, sizeof(b));
	cr_assert_eq(r1, r2, "first %d '%s', then %d '%s'", r1, a, r2, b);
	cr_assert_str_eq(a, b);
}

Test(pin_hip, pin_without_device_fails_cleanly)
{
	require_no_device();
	size_t len = 4 * MIB;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(p, MAP_FAILED);
	memset(p, 0x5a, len);

	char why[512] = "";
	unsigned retries = 77;
	int r = ops()->pin(p, len, LSC__PIN_PORTABLE | LSC__PIN_MAPPED, &retries, why, sizeof(why));
	cr_log_info("pin: %d (%s): %s", r, lsc_strerror(r), why);
	cr_assert_lt(r, 0);
	cr_assert(r == LSC_E_NODEVICE || r == LSC_E_NORUNTIME, "pin returned %d (%s): %s", r,
		  lsc_strerror(r), why);
	cr_assert_eq(retries, 0, "no retry is made for a missing device, got %u", retries);
	cr_assert(strncmp(why, RT ": ", strlen(RT) + 2) == 0, "why: '%s'", why);
	/* The probe's reason, not hipHostRegister's own hipErrorInvalidDevice:
	 * the hooks replay the probe on a machine without a device. */
	cr_assert(strstr(why, NO_DEVICE_ERR), "why: '%s'", why);
	/* The memory is untouched and still ours. */
	cr_assert_eq(p[0], 0x5a);
	cr_assert_eq(p[len - 1], 0x5a);
	cr_assert_eq(munmap(p, len), 0);
	assert_no_leaks();
}

Test(pin_hip, alloc_without_device_fails_cleanly)
{
	require_no_device();
	void *out = (void *)1;
	char why[512] = "";
	int r = ops()->alloc(4 * MIB, LSC__PIN_PORTABLE | LSC__PIN_MAPPED, &out, why, sizeof(why));
	cr_log_info("alloc: %d (%s): %s", r, lsc_strerror(r), why);
	cr_assert(r == LSC_E_NODEVICE || r == LSC_E_NORUNTIME, "alloc returned %d (%s): %s", r,
		  lsc_strerror(r), why);
	cr_assert_null(out);
	cr_assert(strstr(why, NO_DEVICE_ERR), "why: '%s'", why);
	ops()->free(NULL, 0); /* free(NULL) is a no-op */
	assert_no_leaks();
}

Test(pin_hip, dev_open_without_device_fails_cleanly)
{
	require_no_device();
	struct lsc__dev *d = (struct lsc__dev *)1;
	char why[512] = "";
	int r = ops()->dev_open(0, 8 * MIB, 2, &d, why, sizeof(why));
	cr_log_info("dev_open: %d (%s): %s", r, lsc_strerror(r), why);
	cr_assert_lt(r, 0);
	cr_assert_null(d);
	cr_assert(strncmp(why, RT ": ", strlen(RT) + 2) == 0, "why: '%s'", why);

	void *dev = (void *)1;
	cr_assert_lt(ops()->device_pointer(why, &dev), 0);
	cr_assert_null(dev);
	ops()->dev_close(NULL);
	assert_no_leaks();
}

Test(pin_hip, ranges_need_no_device)
{
	/* roctx is absent here: the hooks must be no-ops, not crashes. */
	ops()->range_push("pin");
	ops()->range_pop();
}

Test(pin_hip, dev_open_rejects_bad_slots)
{
	require_device();
	struct lsc__dev *d = (struct lsc__dev *)1;
	char why[256] = "";
	cr_assert_eq(ops()->dev_open(0, MIB, 0, &d, why, sizeof(why)), -EINVAL);
	cr_assert_null(d);
	cr_assert_eq(ops()->dev_open(0, MIB, 1000, &d, why, sizeof(why)), -EINVAL);
}

Test(pin_hip, register_map_copy_on_device)
{
	require_device();
	const struct lsc__pin_ops *o = ops();
	size_t len = 8 * MIB;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(p, MAP_FAILED);
	memset(p, 0x33, len);

	char why[512] = "";
	unsigned retries = 0;
	int r = o->pin(p, len, LSC__PIN_PORTABLE | LSC__PIN_MAPPED, &retries, why, sizeof(why));
	cr_assert_eq(r, 0, "pin: %d: %s", r, why);
	void *dp = NULL;
	cr_assert_eq(o->device_pointer(p, &dp), 0);
	cr_assert_not_null(dp);

	struct lsc__dev *d = NULL;
	r = o->dev_open(0, len, 2, &d, why, sizeof(why));
	cr_assert_eq(r, 0, "dev_open: %d: %s", r, why);
	cr_assert_not_null(o->dev_base(d));
	for (unsigned i = 0; i < 4; i++) {
		unsigned slot = i % 2;
		if (i >= 2)
			cr_assert_eq(o->dev_wait(d, slot), 0, "%s", o->dev_why(d));
		cr_assert_eq(o->dev_copy(d, i * (len / 4), p + i * (len / 4), len / 4, slot), 0, "%s",
			     o->dev_why(d));
	}
	cr_assert_eq(o->dev_wait(d, 0), 0);
	cr_assert_eq(o->dev_wait(d, 1), 0);
	cr_assert_eq(o->dev_copy(d, len - 1, p, 2, 0), -EINVAL, "a copy past the end is refused");
	o->dev_close(d);
	cr_assert_eq(o->unpin(p, len), 0);
	cr_assert_eq(munmap(p, len), 0);
}

Test(pin_hip, alloc_and_free_on_device)
{
	require_device();
	void *p = NULL;
	char why[512] = "";
	int r = ops()->alloc(4 * MIB, LSC__PIN_PORTABLE | LSC__PIN_MAPPED, &p, why, sizeof(why));
	cr_assert_eq(r, 0, "alloc: %d: %s", r, why);
	cr_assert_not_null(p);
	memset(p, 1, 4 * MIB);
	ops()->free(p, 4 * MIB);
}
