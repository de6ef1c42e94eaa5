/*
 * Description: the runtime profiler's ranges (NVTX for cuda, roctx for hip)
 * around the loader's phases. Through a pin table of the test's own whose
 * range hooks keep a stack per thread (the runtimes' ranges are per thread),
 * a load with staging, verify and a device copy must push a range for every
 * phase its log shows (allocate, prefault, pin, read, and the overlapped
 * copy, verify and device copy), named like the phase line; pop every one on
 * the thread that pushed it, innermost first, in the order the spans closed;
 * nest the overlapped work inside `read`; and stay balanced when the load
 * fails half-way. A table without ranges (mlock) loads as before.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/pin_fakes.h"

#define MAX_EVENTS 4096
#define MAX_DEPTH 16
#define NAME_MAX_LEN 32

/* What the hooks saw; the hooks may run on any thread, so they only record
 * and the test asserts afterwards. */
static struct {
	pthread_mutex_t lock;
	unsigned pushes, pops, bad_pops, too_deep, too_many, foreign;
	/* The caller's string need not outlive the range: each push's name is
	 * copied here, and the rest points into it. */
	char names[MAX_EVENTS][NAME_MAX_LEN];
	unsigned n_closed;
	const char *closed[MAX_EVENTS];   /* names in the order they were popped */
	unsigned n_nested;
	const char *nested[MAX_EVENTS][2]; /* {name, the range it was pushed in, or NULL} */
	int fail_pin, fail_copy_at, copies;
} R = {.lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_t test_thread;
static _Thread_local const char *stack[MAX_DEPTH];
static _Thread_local unsigned depth;

static void range_push(const char *name)
{
	pthread_mutex_lock(&R.lock);
	R.pushes++;
	R.foreign += !pthread_equal(pthread_self(), test_thread);
	const char *copy = "(too many ranges)";
	if (R.n_nested < MAX_EVENTS) {
		char *n = R.names[R.n_nested];
		snprintf(n, NAME_MAX_LEN, "%s", name);
		copy = n;
		R.nested[R.n_nested][0] = copy;
		R.nested[R.n_nested++][1] = depth ? stack[depth - 1] : NULL;
	} else {
		R.too_many++;
	}
	pthread_mutex_unlock(&R.lock);
	if (depth == MAX_DEPTH) {
		R.too_deep++;
		return;
	}
	stack[depth++] = copy;
}

static void range_pop(void)
{
	pthread_mutex_lock(&R.lock);
	R.pops++;
	if (!depth)
		R.bad_pops++; /* a pop on a thread that has no range open */
	else if (R.n_closed < MAX_EVENTS)
		R.closed[R.n_closed++] = stack[depth - 1];
	pthread_mutex_unlock(&R.lock);
	if (depth)
		depth--;
}

static int fake_pin(void *addr, size_t len, unsigned flags, unsigned *retries, char *why,
		    size_t why_len)
{
	(void)addr, (void)len, (void)flags, (void)retries;
	if (R.fail_pin) {
		snprintf(why, why_len, "fake: pin refused (test)");
		return -EIO;
	}
	return 0;
}

struct lsc__dev {
	unsigned char *mem;
	size_t bytes;
};

static int fake_open(int device, size_t bytes, unsigned slots, struct lsc__dev **out, char *why,
		     size_t why_len)
{
	(void)device, (void)slots, (void)why, (void)why_len;
	struct lsc__dev *d = calloc(1, sizeof(*d));
	d->mem = calloc(1, bytes);
	d->bytes = bytes;
	*out = d;
	return 0;
}

static int fake_copy(struct lsc__dev *d, size_t off, const void *host, size_t len, unsigned slot)
{
	(void)slot;
	if (++R.copies == R.fail_copy_at)
		return LSC_E_GPU;
	memcpy(d->mem + off, host, len);
	return 0;
}

static int fake_wait(struct lsc__dev *d, unsigned slot)
{
	(void)d, (void)slot;
	return 0;
}

static void *fake_base(struct lsc__dev *d)
{
	return d->mem;
}

static void fake_close(struct lsc__dev *d)
{
	free(d->mem);
	free(d);
}

static const struct lsc__pin_ops ranged = {
	.name = "ranged",
	.caps = LSC__PIN_CAP_REGISTER | LSC__PIN_CAP_DEVICE | LSC__PIN_CAP_LOCKS,
	.pin = fake_pin,
	.unpin = lsct_unpin_nothing,
	.dev_open = fake_open,
	.dev_copy = fake_copy,
	.dev_wait = fake_wait,
	.dev_close = fake_close,
	.dev_base = fake_base,
	.range_push = range_push,
	.range_pop = range_pop,
};

static struct lsct_capture cap;

static void setup(void)
{
	test_thread = pthread_self();
}

static void teardown(void)
{
	lsct_capture_reset(&cap);
}

TestSuite(load_ranges, .init = setup, .fini = teardown);

/* Load a fresh file over @ops through staging, with verify and a device copy. */
static int load(const struct lsc__pin_ops *ops, unsigned flags, lsc_arena **a)
{
	char *path = strdup(lsct_make_file("r.bin", (3u << 20) + 4097, 61));
	struct lsc_load_options o;
	lsct_pinned_options(&o, 0);
	o.device = 0;
	o.staging_count = 2;
	o.staging_bytes = 256u << 10;
	o.flags |= flags;
	int ret = lsct_load_over(&cap, ops, &o, path, a);
	free(path);
	return ret;
}

static int in(const char *name, const char *const *set, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(set[i], name))
			return 1;
	return 0;
}

static void assert_balanced(void)
{
	cr_assert_eq(R.bad_pops, 0, "a range was popped on a thread with none open");
	cr_assert_eq(R.pushes, R.pops, "%u ranges pushed, %u popped", R.pushes, R.pops);
	cr_assert_eq(depth, 0);
	cr_assert_eq(R.too_deep, 0);
	cr_assert_eq(R.too_many, 0);
	cr_assert_eq(R.foreign, 0, "the loader opens its phases on the calling thread");
}

Test(load_ranges, every_phase_of_the_log_is_a_range_closed_in_order)
{
	lsc_arena *a = NULL;
	cr_assert_eq(load(&ranged, 0, &a), 0);
	cr_assert_not_null(lsc_arena_device_data(a), "the device copy ran");
	lsc_arena_destroy(a);
	assert_balanced();

	/* The phase lines: spans in the order they closed, then the
	 * overlapped ones. */
	char names[16][NAME_MAX_LEN];
	const char *spans[16], *all[16];
	unsigned n_spans = 0, n_all = 0;
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	for (unsigned k = 0; lsct_find(&cap, "phase", k, buf, sizeof(buf), &pl); k++) {
		cr_assert_lt(n_all, 16);
		char *name = names[n_all];
		snprintf(name, NAME_MAX_LEN, "%s", lsc__parsed_get(&pl, "name"));
		all[n_all++] = name;
		if (!lsc__parsed_get(&pl, "overlapped"))
			spans[n_spans++] = name;
	}
	const char *want[] = {"allocate", "prefault", "pin", "read", "copy", "verify", "device copy"};
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_assert(in(want[i], all, n_all), "the log has no %s phase", want[i]);

	/* Every range is named like a phase of the log, and every phase of the
	 * log has a range. */
	for (unsigned i = 0; i < R.n_nested; i++)
		cr_assert(in(R.nested[i][0], all, n_all), "range \"%s\" is no phase of the log",
			  R.nested[i][0]);
	for (unsigned i = 0; i < n_all; i++) {
		unsigned found = 0;
		for (unsigned j = 0; j < R.n_nested; j++)
			found += !strcmp(R.nested[j][0], all[i]);
		cr_assert_gt(found, 0, "phase %s has no range", all[i]);
		if (in(all[i], spans, n_spans))
			cr_assert_eq(found, 1, "span %s pushed %u ranges", all[i], found);
		/* Every chunk is staged and copied to the device here: one copy
		 * range and one device copy range each, and one for the last wait. */
		if (!strcmp(all[i], "copy"))
			cr_assert_eq(found, R.copies, "%u copy ranges, %u chunks", found, R.copies);
		if (!strcmp(all[i], "device copy"))
			cr_assert_eq(found, R.copies + 1, "%u device copy ranges, %u chunks", found,
				     R.copies);
	}

	/* The spans' ranges closed in the order their lines were written:
	 * prefault inside allocate, then pin, then read. */
	unsigned k = 0;
	for (unsigned i = 0; i < R.n_closed; i++) {
		if (!in(R.closed[i], spans, n_spans))
			continue;
		cr_assert_lt(k, n_spans);
		cr_assert_str_eq(R.closed[i], spans[k], "range %u closed: %s, the log's span %u: %s", i,
				 R.closed[i], k, spans[k]);
		k++;
	}
	cr_assert_eq(k, n_spans);

	/* Nesting: prefault in allocate; each stretch of overlapped work in read. */
	for (unsigned i = 0; i < R.n_nested; i++) {
		const char *name = R.nested[i][0], *parent = R.nested[i][1];
		if (!strcmp(name, "prefault"))
			cr_assert(parent && !strcmp(parent, "allocate"), "prefault in %s", parent);
		else if (!in(name, spans, n_spans))
			cr_assert(parent && !strcmp(parent, "read"), "%s in %s", name,
				  parent ? parent : "nothing");
		else
			cr_assert_null(parent, "%s in %s", name, parent);
	}
}

Test(load_ranges, a_failed_pin_leaves_no_range_open)
{
	R.fail_pin = 1;
	lsc_arena *a = NULL;
	cr_assert_eq(load(&ranged, LSC_LOAD_PIN_STRICT, &a), -EIO);
	assert_balanced();
	cr_assert_eq(R.n_closed, 3, "allocate, prefault, pin; got %u", R.n_closed);
	cr_assert_str_eq(R.closed[2], "pin");
}

Test(load_ranges, a_failed_device_copy_leaves_no_range_open)
{
	R.fail_copy_at = 3;
	lsc_arena *a = NULL;
	cr_assert_eq(load(&ranged, 0, &a), LSC_E_GPU);
	assert_balanced();
	cr_assert_str_eq(R.closed[R.n_closed - 1], "read");
}

Test(load_ranges, a_table_without_ranges_pushes_none)
{
	struct lsc__pin_ops plain = ranged;
	plain.range_pop = NULL; /* half a pair is no pair */
	lsc_arena *a = NULL;
	cr_assert_eq(load(&plain, 0, &a), 0);
	lsc_arena_destroy(a);
	cr_assert_eq(R.pushes, 0);
}
