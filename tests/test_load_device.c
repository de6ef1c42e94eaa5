/*
 * Description: the device copy (`device >= 0`). Through a device table of
 * the test's own (host memory standing in for the GPU, with the slot
 * contract checked: a slot is never given a copy before its last one was
 * waited for), every byte of the arena reaches the "device" and
 * lsc_arena_device_data returns it; a backend without device memory, or one
 * whose dev_open fails, leaves a host-only load and a fallback line; a
 * copy that fails fails the load with one line carrying the runtime's words
 * and closes the device. The real CUDA and HIP tables are exercised where a
 * GPU is present (their own tests).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/load_helpers.h"
#include "loader/read/read.h"

static struct lsct_capture cap;

struct lsc__dev {
	unsigned char *mem;
	size_t bytes;
	unsigned slots;
	int busy[16];
	char why[64];
};

static struct {
	int opens, closes, copies, waits, reused_busy, fail_open, fail_copy_at, fail_wait_at, quiet;
} D;

static int fake_open(int device, size_t bytes, unsigned slots, struct lsc__dev **out, char *why,
		     size_t why_len)
{
	(void)device;
	if (D.fail_open) {
		snprintf(why, why_len, "fake: no device (test)");
		return LSC_E_NODEVICE;
	}
	struct lsc__dev *d = calloc(1, sizeof(*d));
	d->mem = calloc(1, bytes ? bytes : 1);
	d->bytes = bytes;
	d->slots = slots;
	cr_assert(slots >= 1 && slots <= 16);
	D.opens++;
	*out = d;
	return 0;
}

static int fake_copy(struct lsc__dev *d, size_t off, const void *host, size_t len, unsigned slot)
{
	cr_assert(slot < d->slots && off + len <= d->bytes);
	if (++D.copies == D.fail_copy_at) {
		snprintf(d->why, sizeof(d->why), "%s", D.quiet ? "" : "fake: copy engine on fire");
		return LSC_E_GPU;
	}
	D.reused_busy += d->busy[slot];
	d->busy[slot] = 1;
	memcpy(d->mem + off, host, len);
	return 0;
}

static int fake_wait(struct lsc__dev *d, unsigned slot)
{
	if (++D.waits == D.fail_wait_at) {
		snprintf(d->why, sizeof(d->why), "%s", D.quiet ? "" : "fake: wait lost");
		return LSC_E_GPU;
	}
	d->busy[slot] = 0;
	return 0;
}

static void fake_close(struct lsc__dev *d)
{
	D.closes++;
	free(d->mem);
	free(d);
}

static void *fake_base(struct lsc__dev *d)
{
	return d->mem;
}

static const char *fake_why(struct lsc__dev *d)
{
	return d->why;
}

static const struct lsc__pin_ops fake = {
	.name = "fake", .caps = LSC__PIN_CAP_DEVICE,
	.dev_open = fake_open, .dev_copy = fake_copy, .dev_wait = fake_wait, .dev_close = fake_close,
	.dev_base = fake_base, .dev_why = fake_why,
};

static void setup(void)
{
	memset(&D, 0, sizeof(D));
}

static void teardown(void)
{
	lsc__device_override(NULL);
	lsct_capture_reset(&cap);
}

TestSuite(load_device, .init = setup, .fini = teardown);

static int load(const char *path, unsigned qd, lsc_arena **a)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.device = 0;
	o.queue_depth = qd;
	o.staging_count = 2;
	o.staging_bytes = 256u << 10;
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	int ret = lsc_load(p, &o, &e, 1, 0, a);
	lsc_profiler_destroy(p);
	return ret;
}

Test(load_device, every_byte_reaches_the_device)
{
	lsc__device_override(&fake);
	char *path = strdup(lsct_make_file("d.bin", (3u << 20) + 77, 51));
	uint64_t len;
	unsigned char *want = lsct_read_file(path, &len);
	lsc_arena *a = NULL;
	cr_assert_eq(load(path, 3, &a), 0);
	cr_assert_eq(D.opens, 1);
	cr_assert_gt(D.copies, 3, "one copy per chunk");
	cr_assert_eq(D.reused_busy, 0, "a slot took a copy before its last one was waited for");
	const unsigned char *dev = lsc_arena_device_data(a);
	cr_assert_not_null(dev);
	cr_assert(memcmp(dev, want, len) == 0, "device bytes differ from the file");
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "device"), "0");
	lsc_arena_destroy(a);
	cr_assert_eq(D.closes, 1);
	free(want);
	free(path);
}

Test(load_device, no_device_is_a_host_only_load)
{
	char *path = strdup(lsct_make_file("n.bin", 100000, 52));
	for (int k = 0; k < 2; k++) {
		if (k == 1) { /* a backend whose dev_open fails */
			lsc__device_override(&fake);
			D.fail_open = 1;
		}
		lsc_arena *a = NULL;
		cr_assert_eq(load(path, 2, &a), 0);
		cr_assert_null(lsc_arena_device_data(a));
		char buf[LSC__LINE_MAX + 1];
		struct lsc__parsed pl;
		cr_assert(lsct_find_fallback(&cap, "device", buf, sizeof(buf), &pl), "no device fallback line");
		cr_assert_str_eq(lsc__parsed_get(&pl, "took"), "host only");
		cr_assert(strstr(lsc__parsed_get(&pl, "reason"), k ? "fake: no device" : "no device memory"),
			  "%s", lsc__parsed_get(&pl, "reason"));
		lsc_arena_destroy(a);
		lsct_capture_reset(&cap);
	}
	free(path);
}

Test(load_device, failed_copy_fails_the_load)
{
	lsc__device_override(&fake);
	D.fail_copy_at = 3;
	char *path = strdup(lsct_make_file("f.bin", (2u << 20) + 1, 53));
	lsc_arena *a = NULL;
	cr_assert_eq(load(path, 2, &a), LSC_E_GPU);
	cr_assert_null(a);
	cr_assert_eq(D.closes, D.opens, "the device was not closed");
	cr_assert_eq(lsct_count(&cap, "error"), 1);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl);
	cr_assert_str_eq(lsc__parsed_get(&pl, "what"), "device");
	cr_assert(strstr(pl.human, "copy engine on fire"), "%s", pl.human);
	/* It names the file and where in it the failed chunk's bytes were. */
	const char *named = lsc__parsed_get(&pl, "path");
	cr_assert(named && !strcmp(named, path), "%s", pl.human);
	cr_assert_not_null(lsc__parsed_get(&pl, "offset"), "%s", pl.human);
	free(path);
}

/* The error's cause is the step, then the runtime's words after ": " only
 * when it has some: a runtime that says nothing leaves no dangling colon,
 * with a chunk to blame (its arena offset in the cause) and without one
 * (the wait for the last copies). */
static void failed_cause(int fail_copy_at, int fail_wait_at, int quiet, char *cause, size_t len,
			 char *offset, size_t olen)
{
	lsc__device_override(&fake);
	memset(&D, 0, sizeof(D));
	D.fail_copy_at = fail_copy_at;
	D.fail_wait_at = fail_wait_at;
	D.quiet = quiet;
	char *path = strdup(lsct_make_file("w.bin", 200000, 54));
	lsc_arena *a = NULL;
	cr_assert_eq(load(path, 2, &a), LSC_E_GPU);
	cr_assert_null(a);
	cr_assert_eq(D.closes, D.opens, "the device was not closed");
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
	snprintf(cause, len, "%s", lsc__parsed_get(&pl, "cause"));
	const char *o = lsc__parsed_get(&pl, "offset");
	snprintf(offset, olen, "%s", o ? o : "-");
	lsct_capture_reset(&cap);
	free(path);
}

Test(load_device, a_cause_has_the_runtime_words_only_when_it_has_some)
{
	char cause[512], off[32], want[600];
	/* A file of one chunk: its copy is the first, the wait for it the
	 * load's last and only wait. */
	failed_cause(0, 1, 1, cause, sizeof(cause), off, sizeof(off));
	cr_assert_str_eq(cause, "waiting for the last device copies");
	cr_assert_str_eq(off, "-", "no one chunk is to blame");
	failed_cause(0, 1, 0, cause, sizeof(cause), off, sizeof(off));
	cr_assert_str_eq(cause, "waiting for the last device copies: fake: wait lost");
	failed_cause(1, 0, 1, cause, sizeof(cause), off, sizeof(off));
	cr_assert_str_eq(off, "0", "the first chunk starts the file");
	cr_assert_str_eq(cause, "queueing a device copy at arena offset 0");
	failed_cause(1, 0, 0, cause, sizeof(cause), off, sizeof(off));
	snprintf(want, sizeof(want), "queueing a device copy at arena offset %s: fake: copy engine on fire", off);
	cr_assert_str_eq(cause, want);
}
