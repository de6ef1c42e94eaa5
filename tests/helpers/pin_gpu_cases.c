/*
 * The GPU pin backends' shared test cases (see pin_gpu_cases.h), moved here
 * from the two backends' test files, which had them twice.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <loadscope/common.h>

#include "helpers/pin_gpu_cases.h"

#define MIB (1u << 20)

const struct lsc__pin_ops *lsct_gpu_ops(const struct lsct_gpu *g)
{
	const struct lsc__pin_ops *o = lsc__pin_find(g->name);
	if (!o)
		cr_skip_test("the %s backend is not compiled in this build (toolkit not found)", g->name);
	return o;
}

/* probe(); returns 1 when a device is usable. */
static int have_device(const struct lsct_gpu *g, char *why, size_t why_len)
{
	return lsct_gpu_ops(g)->probe(why, why_len) == 0;
}

void lsct_gpu_require_device(const struct lsct_gpu *g)
{
	char why[512] = "";
	if (!have_device(g, why, sizeof(why)))
		cr_skip_test("no %s device: %s", g->kind, why);
}

void lsct_gpu_require_no_device(const struct lsct_gpu *g)
{
	char why[512] = "";
	if (have_device(g, why, sizeof(why)))
		cr_skip_test("a %s device is present: the no-device path is not reachable here", g->kind);
}

/* Where the reason starts with the backend's name and ": ". */
static int names_backend(const struct lsct_gpu *g, const char *why)
{
	size_t n = strlen(g->name);
	return strncmp(why, g->name, n) == 0 && strncmp(why + n, ": ", 2) == 0;
}

int lsct_gpu_probe_failure(const struct lsct_gpu *g, char *why, size_t why_len)
{
	int r = lsct_gpu_ops(g)->probe(why, why_len);
	if (r == 0)
		cr_skip_test("a %s device is present: the no-device path is not reachable here", g->kind);

	cr_log_info("probe: %d (%s): %s", r, lsc_strerror(r), why);
	cr_assert(names_backend(g, why), "why does not name the runtime: '%s'", why);
	return r;
}

/* Present only in the sanitizer build. */
extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

void lsct_gpu_assert_no_leaks(void)
{
	if (__lsan_do_recoverable_leak_check)
		cr_assert_eq(__lsan_do_recoverable_leak_check(), 0, "LeakSanitizer found leaks (above)");
}

/* @len bytes of private anonymous memory, every byte @byte. */
static char *filled(size_t len, int byte)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(p, MAP_FAILED);
	memset(p, byte, len);
	return p;
}

void lsct_gpu_table_is_complete(const struct lsct_gpu *g)
{
	const struct lsc__pin_ops *o = lsct_gpu_ops(g);
	cr_assert_str_eq(o->name, g->name);
	cr_assert(o->caps & LSC__PIN_CAP_REGISTER);
	cr_assert(o->caps & LSC__PIN_CAP_ALLOC);
	cr_assert(o->caps & LSC__PIN_CAP_DEVICE);
	cr_assert(o->caps & LSC__PIN_CAP_LOCKS);
	cr_assert(o->probe && o->pin && o->unpin && o->alloc && o->free && o->device_pointer);
	cr_assert(o->dev_open && o->dev_copy && o->dev_wait && o->dev_close);
	cr_assert(o->range_push && o->range_pop && o->dev_base && o->dev_why);
}

void lsct_gpu_probe_is_stable_across_calls(const struct lsct_gpu *g)
{
	char a[512] = "", b[512] = "";
	int r1 = lsct_gpu_ops(g)->probe(a, sizeof(a));
	int r2 = lsct_gpu_ops(g)->probe(b, sizeof(b));
	cr_assert_eq(r1, r2, "first %d '%s', then %d '%s'", r1, a, r2, b);
	cr_assert_str_eq(a, b);
}

void lsct_gpu_pin_without_device_fails_cleanly(const struct lsct_gpu *g)
{
	lsct_gpu_require_no_device(g);
	size_t len = 4 * MIB;
	char *p = filled(len, 0x5a);

	char why[512] = "";
	unsigned retries = 77;
	int r = lsct_gpu_ops(g)->pin(p, len, LSC__PIN_PORTABLE | LSC__PIN_MAPPED, &retries, why,
				     sizeof(why));
	cr_log_info("pin: %d (%s): %s", r, lsc_strerror(r), why);
	cr_assert_lt(r, 0);
	cr_assert(r == LSC_E_NODEVICE || r == LSC_E_NORUNTIME, "pin returned %d (%s): %s", r,
		  lsc_strerror(r), why);
	cr_assert_eq(retries, 0, "no retry is made for a missing device, got %u", retries);
	cr_assert(names_backend(g, why), "why: '%s'", why);
	cr_assert(strstr(why, g->no_device_err()), "why: '%s'", why);
	/* The memory is untouched and still ours. */
	cr_assert_eq(p[0], 0x5a);
	cr_assert_eq(p[len - 1], 0x5a);
	cr_assert_eq(munmap(p, len), 0);
	lsct_gpu_assert_no_leaks();
}

void lsct_gpu_alloc_without_device_fails_cleanly(const struct lsct_gpu *g)
{
	lsct_gpu_require_no_device(g);
	void *out = (void *)1;
	char why[512] = "";
	int r = lsct_gpu_ops(g)->alloc(4 * MIB, LSC__PIN_PORTABLE | LSC__PIN_MAPPED, &out, why,
				       sizeof(why));
	cr_log_info("alloc: %d (%s): %s", r, lsc_strerror(r), why);
	cr_assert(r == LSC_E_NODEVICE || r == LSC_E_NORUNTIME, "alloc returned %d (%s): %s", r,
		  lsc_strerror(r), why);
	cr_assert_null(out);
	cr_assert(strstr(why, g->no_device_err()), "why: '%s'", why);
	lsct_gpu_ops(g)->free(NULL, 0); /* free(NULL) is a no-op */
	lsct_gpu_assert_no_leaks();
}

void lsct_gpu_dev_open_without_device_fails_cleanly(const struct lsct_gpu *g)
{
	lsct_gpu_require_no_device(g);
	struct lsc__dev *d = (struct lsc__dev *)1;
	char why[512] = "";
	int r = lsct_gpu_ops(g)->dev_open(0, 8 * MIB, 2, &d, why, sizeof(why));
	cr_log_info("dev_open: %d (%s): %s", r, lsc_strerror(r), why);
	cr_assert_lt(r, 0);
	cr_assert_null(d);
	cr_assert(names_backend(g, why), "why: '%s'", why);

	void *dev = (void *)1;
	char dp_why[512] = "";
	cr_assert_lt(lsct_gpu_ops(g)->device_pointer(why, &dev, dp_why, sizeof(dp_why)), 0);
	cr_assert_null(dev);
	cr_assert(names_backend(g, dp_why), "why: '%s'", dp_why);
	lsct_gpu_ops(g)->dev_close(NULL);
	lsct_gpu_assert_no_leaks();
}

void lsct_gpu_ranges_need_no_device(const struct lsct_gpu *g)
{
	/* Without a profiler attached (NVTX without Nsight, roctx absent): a
	 * branch or a no-op; must not crash or need the runtime. */
	lsct_gpu_ops(g)->range_push("pin");
	lsct_gpu_ops(g)->range_pop();
}

void lsct_gpu_dev_open_rejects_bad_slots(const struct lsct_gpu *g)
{
	lsct_gpu_require_device(g);
	struct lsc__dev *d = (struct lsc__dev *)1;
	char why[256] = "";
	cr_assert_eq(lsct_gpu_ops(g)->dev_open(0, MIB, 0, &d, why, sizeof(why)), -EINVAL);
	cr_assert_null(d);
	cr_assert_eq(lsct_gpu_ops(g)->dev_open(0, MIB, 1000, &d, why, sizeof(why)), -EINVAL);
}

void lsct_gpu_register_map_copy_on_device(const struct lsct_gpu *g)
{
	lsct_gpu_require_device(g);
	const struct lsc__pin_ops *o = lsct_gpu_ops(g);
	size_t len = 8 * MIB;
	char *p = filled(len, 0x33);

	char why[512] = "";
	unsigned retries = 0;
	int r = o->pin(p, len, LSC__PIN_PORTABLE | LSC__PIN_MAPPED, &retries, why, sizeof(why));
	cr_assert_eq(r, 0, "pin: %d: %s", r, why);
	void *dp = NULL;
	cr_assert_eq(o->device_pointer(p, &dp, why, sizeof(why)), 0, "%s", why);
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

void lsct_gpu_alloc_and_free_on_device(const struct lsct_gpu *g)
{
	lsct_gpu_require_device(g);
	void *p = NULL;
	char why[512] = "";
	int r = lsct_gpu_ops(g)->alloc(4 * MIB, LSC__PIN_PORTABLE | LSC__PIN_MAPPED, &p, why,
				       sizeof(why));
	cr_assert_eq(r, 0, "alloc: %d: %s", r, why);
	cr_assert_not_null(p);
	memset(p, 1, 4 * MIB);
	lsct_gpu_ops(g)->free(p, 4 * MIB);
}
