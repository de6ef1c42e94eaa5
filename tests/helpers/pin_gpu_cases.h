/*
 * The cases every GPU pin backend's test runs against its real runtime
 * (tests/test_pin_cuda.c, tests/test_pin_hip.c): the table is complete, the
 * probe is stable, pin, alloc and dev_open fail cleanly without a device,
 * the ranges need none, and the device paths work where probe() finds a
 * device (they skip loudly otherwise). A test file describes its backend in
 * a struct lsct_gpu, states LSCT_GPU_CASES(suite, &backend) and keeps the
 * cases that are its runtime's own (what the probe answers on this machine).
 */
#ifndef LSC_TESTS_PIN_GPU_CASES_H
#define LSC_TESTS_PIN_GPU_CASES_H

#include <stddef.h>

#include "pin/pin.h"

struct lsct_gpu {
	const char *name; /* the backend: "cuda" */
	const char *kind; /* in skip messages: "no CUDA device" */
	/* The runtime's error that every no-device reason names here. */
	const char *(*no_device_err)(void);
};

/* The backend's table, or a skip when this build lacks it. */
const struct lsc__pin_ops *lsct_gpu_ops(const struct lsct_gpu *g);
/* Skip unless probe() finds a device (with its reason), or unless it finds none. */
void lsct_gpu_require_device(const struct lsct_gpu *g);
void lsct_gpu_require_no_device(const struct lsct_gpu *g);
/* probe() on a machine without a device: skips where there is one, asserts
 * the reason starts with "<name>: ", and returns probe's value. */
int lsct_gpu_probe_failure(const struct lsct_gpu *g, char *why, size_t why_len);
/* LeakSanitizer's on-demand check, in the sanitizer build only (Criterion
 * does not fail a test whose worker LSan reports at exit). */
void lsct_gpu_assert_no_leaks(void);

void lsct_gpu_table_is_complete(const struct lsct_gpu *g);
void lsct_gpu_probe_is_stable_across_calls(const struct lsct_gpu *g);
void lsct_gpu_pin_without_device_fails_cleanly(const struct lsct_gpu *g);
void lsct_gpu_alloc_without_device_fails_cleanly(const struct lsct_gpu *g);
void lsct_gpu_dev_open_without_device_fails_cleanly(const struct lsct_gpu *g);
void lsct_gpu_ranges_need_no_device(const struct lsct_gpu *g);
void lsct_gpu_dev_open_rejects_bad_slots(const struct lsct_gpu *g);
void lsct_gpu_register_map_copy_on_device(const struct lsct_gpu *g);
void lsct_gpu_alloc_and_free_on_device(const struct lsct_gpu *g);

/* The shared cases as Criterion tests of @suite (include criterion first). */
#define LSCT_GPU_CASE(suite, g, name)                                                              \
	Test(suite, name)                                                                          \
	{                                                                                          \
		lsct_gpu_##name(g);                                                                \
	}
#define LSCT_GPU_CASES(suite, g)                                                                   \
	LSCT_GPU_CASE(suite, g, table_is_complete)                                                 \
	LSCT_GPU_CASE(suite, g, probe_is_stable_across_calls)                                      \
	LSCT_GPU_CASE(suite, g, pin_without_device_fails_cleanly)                                  \
	LSCT_GPU_CASE(suite, g, alloc_without_device_fails_cleanly)                                \
	LSCT_GPU_CASE(suite, g, dev_open_without_device_fails_cleanly)                             \
	LSCT_GPU_CASE(suite, g, ranges_need_no_device)                                             \
	LSCT_GPU_CASE(suite, g, dev_open_rejects_bad_slots)                                        \
	LSCT_GPU_CASE(suite, g, register_map_copy_on_device)                                       \
	LSCT_GPU_CASE(suite, g, alloc_and_free_on_device)

#endif
