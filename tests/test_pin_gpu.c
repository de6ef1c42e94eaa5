/*
 * Description: the GPU pin backends' shared core (src/pin/pin_gpu.c)
 * against a fake runtime, so that what a machine without a GPU cannot reach
 * in the real backends is tested in every build: the retries of an
 * allocation failure and their count, the flags handed to the runtime, the
 * reason lines of failed calls, putting the engine's current device back
 * and releasing everything when dev_open fails half-way, the copy's bounds
 * and its error in dev_why, the probe taken once and replayed, the device
 * pointer's reason, a load's read-only option reaching the runtime's
 * register call as the runtime's flag, and a register call interrupted by a
 * signal (an error the runtime's table maps to EINTR) tried again by the
 * load's segments, up to three tries, before the load falls back.
 *
 * The fake is a table of entry points (struct lsc__gpu_rt's test seam, no
 * dlopen) over counters; each test runs in a fresh worker, so it starts
 * from a fresh runtime and a fresh probe.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <loadscope/common.h>

#include "helpers/pin_fakes.h"
#include "pin/pin_gpu.h"

enum { OK, E_NODEV = 100, E_NORT, E_OOM, E_OTHER, E_INVALID, E_INTR };
#define MAX_QUEUED 8

static struct {
	int count, count_err;
	unsigned count_calls;
	/* Answers of the next calls, then OK. */
	int register_errs[MAX_QUEUED], alloc_errs[MAX_QUEUED];
	unsigned register_calls, alloc_calls, register_flags, alloc_flags, unregistered;
	int event_fail_at; /* the 1-based EventCreateWithFlags call that fails */
	int memcpy_err, sync_err;
	unsigned event_calls, event_flags, stream_flags;
	int device, live_buffers, live_streams, live_events, cleared;
	int copy_kind;
	void *recorded;
	unsigned pushed, popped;
} fake = {.count = 1, .device = 3};

static char stream_obj, event_obj[LSC__GPU_MAX_SLOTS], buffer_obj[64], host_obj;

static int GetDeviceCount(int *n)
{
	fake.count_calls++;
	*n = fake.count;
	return fake.count_err;
}

static const char *GetErrorName(int e)
{
	switch (e) {
	case E_NODEV:
		return "fakeErrorNoDevice";
	case E_OOM:
		return "fakeErrorMemoryAllocation";
	default:
		return NULL; /* the core's fallback names it */
	}
}

static const char *GetErrorString(int e)
{
	return e == E_OOM ? "out of memory" : NULL;
}

static int GetLastError(void)
{
	fake.cleared++;
	return OK;
}

static int next(int *queue, unsigned calls)
{
	return calls <= MAX_QUEUED ? queue[calls - 1] : OK;
}

static int HostRegister(void *p, size_t len, unsigned flags)
{
	fake.register_flags = flags;
	return next(fake.register_errs, ++fake.register_calls);
}

static int HostUnregister(void *p)
{
	fake.unregistered++;
	return p ? OK : E_INVALID;
}

static int HostAlloc(void **out, size_t len, unsigned flags)
{
	fake.alloc_flags = flags;
	int e = next(fake.alloc_errs, ++fake.alloc_calls);
	if (e == OK)
		*out = &host_obj;
	return e;
}

static int FreeHost(void *p)
{
	return p == &host_obj ? OK : E_INVALID;
}

static int HostGetDevicePointer(void **dev, void *host, unsigned flags)
{
	*dev = host == &host_obj ? buffer_obj : NULL;
	return host == &host_obj ? OK : E_INVALID;
}

static int SetDevice(int d)
{
	fake.device = d;
	return OK;
}

static int GetDevice(int *d)
{
	*d = fake.device;
	return OK;
}

static int Malloc(void **out, size_t len)
{
	fake.live_buffers++;
	*out = buffer_obj;
	return OK;
}

static int Free(void *p)
{
	fake.live_buffers--;
	return OK;
}

static int StreamCreateWithFlags(void **s, unsigned flags)
{
	fake.stream_flags = flags;
	fake.live_streams++;
	*s = &stream_obj;
	return OK;
}

static int StreamSynchronize(void *s)
{
	return OK;
}

static int StreamDestroy(void *s)
{
	fake.live_streams--;
	return OK;
}

static int EventCreateWithFlags(void **ev, unsigned flags)
{
	fake.event_flags = flags;
	if ((int)++fake.event_calls == fake.event_fail_at)
		return E_OOM;
	*ev = &event_obj[fake.live_events++];
	return OK;
}

static int EventRecord(void *ev, void *s)
{
	fake.recorded = ev;
	return OK;
}

static int EventSynchronize(void *ev)
{
	return fake.sync_err;
}

static int EventDestroy(void *ev)
{
	fake.live_events--;
	return OK;
}

/* The fake device's memory is buffer_obj, in this process: a copy that
 * succeeds really lands there, so that a test reads the device bytes back. */
static int MemcpyAsync(void *dst, const void *src, size_t len, int kind, void *s)
{
	fake.copy_kind = kind;
	if (fake.memcpy_err)
		return fake.memcpy_err;
	cr_assert((char *)dst >= buffer_obj && (char *)dst + len <= buffer_obj + sizeof(buffer_obj),
		  "a copy to %p (%zu bytes) outside the device buffer", dst, len);
	memcpy(dst, src, len);
	return OK;
}

static const struct lsc__gpu_fns fns = {
	GetDeviceCount, GetErrorName, GetErrorString, GetLastError, HostRegister, HostUnregister,
	HostAlloc, FreeHost, HostGetDevicePointer, SetDevice, GetDevice, Malloc, Free,
	StreamCreateWithFlags, StreamSynchronize, StreamDestroy, EventCreateWithFlags, EventRecord,
	EventSynchronize, EventDestroy, MemcpyAsync,
};

static int map_err(int e)
{
	switch (e) {
	case OK:
		return 0;
	case E_NODEV:
		return LSC_E_NODEVICE;
	case E_NORT:
		return LSC_E_NORUNTIME;
	case E_OOM:
		return -ENOMEM;
	case E_INVALID:
		return -EINVAL;
	case E_INTR: /* a call a signal interrupted */
		return -EINTR;
	default:
		return LSC_E_GPU;
	}
}

static void describe(const struct lsc__gpu_err *e, char *why, size_t why_len)
{
	snprintf(why, why_len, "fake: %s%s%s (%s)", e->call ? e->call : "", e->call ? ": " : "",
		 e->words, e->name);
}

static void range_push(const char *name)
{
	fake.pushed++;
}

static void range_pop(void)
{
	fake.popped++;
}

static struct lsc__gpu_state state = LSC__GPU_STATE_INIT;

static const struct lsc__gpu_rt rt = {
	.name = "fake",
	.host_alloc = "fakeHostMalloc",
	.free_host = "fakeHostFree",
	.fns = &fns,
	.ok = OK,
	.no_device = E_NODEV,
	.out_of_memory = E_OOM,
	.unknown = "fakeError?",
	.map_err = map_err,
	.describe = describe,
	.register_flags = {0x10, 0x20, 0x40},
	.alloc_flags = {0x100, 0x200, 0},
	.stream_flags = 0x1,
	.event_flags = 0x2,
	.host_to_device = 7,
	.range_push = range_push,
	.range_pop = range_pop,
	.state = &state,
};

LSC__GPU_PIN_OPS(fake_ops, rt, LSC__PIN_CAP_READONLY);

#define ALL (LSC__PIN_PORTABLE | LSC__PIN_MAPPED | LSC__PIN_READONLY)

Test(pin_gpu, table_from_the_macro)
{
	cr_assert_str_eq(fake_ops.name, "fake");
	cr_assert_eq(fake_ops.caps, LSC__PIN_CAP_REGISTER | LSC__PIN_CAP_ALLOC | LSC__PIN_CAP_DEVICE |
					    LSC__PIN_CAP_LOCKS | LSC__PIN_CAP_READONLY);
	fake_ops.range_push("pin");
	fake_ops.range_pop();
	cr_assert_eq(fake.pushed, 1);
	cr_assert_eq(fake.popped, 1);
}

Test(pin_gpu, no_device_is_probed_once_and_replayed)
{
	fake.count = 0;
	char why[256] = "", again[256] = "";
	cr_assert_eq(fake_ops.probe(why, sizeof(why)), LSC_E_NODEVICE);
	cr_assert_str_eq(why, "fake: unknown error (fakeErrorNoDevice)");

	unsigned retries = 77;
	cr_assert_eq(fake_ops.pin(&host_obj, 4096, ALL, &retries, again, sizeof(again)),
		     LSC_E_NODEVICE);
	cr_assert_str_eq(again, why);
	cr_assert_eq(retries, 0);
	void *out = &out;
	cr_assert_eq(fake_ops.alloc(4096, ALL, &out, again, sizeof(again)), LSC_E_NODEVICE);
	cr_assert_null(out);
	struct lsc__dev *d = (struct lsc__dev *)1;
	cr_assert_eq(fake_ops.dev_open(0, 4096, 2, &d, again, sizeof(again)), LSC_E_NODEVICE);
	cr_assert_null(d);
	cr_assert_str_eq(again, why);
	cr_assert_eq(fake_ops.unpin(&host_obj, 4096), LSC_E_NODEVICE);
	cr_assert_eq(fake.count_calls, 1, "the device count is taken once per process");
	cr_assert_eq(fake.register_calls + fake.alloc_calls, 0);
}

Test(pin_gpu, a_runtime_error_from_the_count_is_the_probe_answer)
{
	fake.count_err = E_NORT;
	char why[256] = "";
	cr_assert_eq(fake_ops.probe(why, sizeof(why)), LSC_E_NORUNTIME);
	cr_assert_str_eq(why, "fake: unknown error (fakeError?)", "why: '%s'", why);
}

Test(pin_gpu, register_retries_allocation_failures_and_counts_them)
{
	fake.register_errs[0] = fake.register_errs[1] = E_OOM;
	char why[256] = "";
	unsigned retries = 77;
	cr_assert_eq(fake_ops.pin(&host_obj, 4096, ALL, &retries, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(retries, 2);
	cr_assert_eq(fake.register_calls, 3);
	cr_assert_eq(fake.register_flags, 0x70, "each flag mapped to the runtime's");
	cr_assert_eq(fake_ops.unpin(&host_obj, 4096), 0);
}

Test(pin_gpu, register_gives_up_after_two_retries)
{
	for (unsigned i = 0; i < MAX_QUEUED; i++)
		fake.register_errs[i] = E_OOM;
	char why[256] = "";
	unsigned retries = 77;
	int cleared = fake.cleared;
	cr_assert_eq(fake_ops.pin(&host_obj, 4096, LSC__PIN_MAPPED, &retries, why, sizeof(why)),
		     -ENOMEM);
	cr_assert_eq(retries, LSC__GPU_RETRIES);
	cr_assert_eq(fake.register_calls, LSC__GPU_RETRIES + 1);
	cr_assert_eq(fake.register_flags, 0x20);
	cr_assert_gt(fake.cleared, cleared, "the runtime's error is cleared");
	cr_assert_str_eq(why,
			 "fake: fakeHostRegister(4096 bytes, after retries): out of memory "
			 "(fakeErrorMemoryAllocation)");
}

Test(pin_gpu, other_errors_are_final)
{
	fake.register_errs[0] = E_OTHER;
	char why[256] = "";
	unsigned retries = 77;
	cr_assert_eq(fake_ops.pin(&host_obj, 4096, 0, &retries, why, sizeof(why)), LSC_E_GPU);
	cr_assert_eq(retries, 0);
	cr_assert_eq(fake.register_calls, 1);
	cr_assert_str_eq(why, "fake: fakeHostRegister(4096 bytes): unknown error (fakeError?)");
}

Test(pin_gpu, alloc_uses_its_own_symbol_and_flags)
{
	fake.alloc_errs[0] = E_OOM;
	fake.alloc_errs[1] = E_OTHER;
	void *out = &out;
	char why[256] = "";
	cr_assert_eq(fake_ops.alloc(8192, ALL, &out, why, sizeof(why)), LSC_E_GPU);
	cr_assert_null(out);
	cr_assert_eq(fake.alloc_calls, 2);
	cr_assert_eq(fake.alloc_flags, 0x300, "no read-only flag for alloc");
	cr_assert_str_eq(why, "fake: fakeHostMalloc(8192 bytes, after retries): unknown error "
			      "(fakeError?)");

	cr_assert_eq(fake_ops.alloc(8192, LSC__PIN_PORTABLE, &out, why, sizeof(why)), 0);
	cr_assert_eq(out, &host_obj);
	void *dev = NULL;
	cr_assert_eq(fake_ops.device_pointer(out, &dev, why, sizeof(why)), 0);
	cr_assert_eq(dev, buffer_obj);
	cr_assert_eq(fake_ops.device_pointer(&dev, &dev, why, sizeof(why)), -EINVAL);
	cr_assert_null(dev);
	cr_assert_str_eq(why, "fake: fakeHostGetDevicePointer: unknown error (fakeError?)",
			 "why: '%s'", why);
	fake_ops.free(out, 8192);
}

/* An allocation is retried as a register is: out of memory, LSC__GPU_RETRIES
 * tries more and then refused with the retries said; any other error on the
 * first call is final at once, with no retries said. */
Test(pin_gpu, alloc_gives_up_after_two_retries_and_other_errors_are_final)
{
	for (unsigned i = 0; i < MAX_QUEUED; i++)
		fake.alloc_errs[i] = E_OOM;
	void *out = &out;
	char why[256] = "";
	cr_assert_eq(fake_ops.alloc(8192, 0, &out, why, sizeof(why)), -ENOMEM);
	cr_assert_null(out);
	cr_assert_eq(fake.alloc_calls, LSC__GPU_RETRIES + 1);
	cr_assert_str_eq(why, "fake: fakeHostMalloc(8192 bytes, after retries): out of memory "
			      "(fakeErrorMemoryAllocation)");

	for (unsigned i = 0; i < MAX_QUEUED; i++)
		fake.alloc_errs[i] = OK;
	fake.alloc_errs[0] = E_OTHER;
	fake.alloc_calls = 0;
	out = &out;
	cr_assert_eq(fake_ops.alloc(8192, 0, &out, why, sizeof(why)), LSC_E_GPU);
	cr_assert_null(out);
	cr_assert_eq(fake.alloc_calls, 1);
	cr_assert_str_eq(why, "fake: fakeHostMalloc(8192 bytes): unknown error (fakeError?)");
}

Test(pin_gpu, dev_open_puts_the_engine_device_back)
{
	struct lsc__dev *d = NULL;
	char why[256] = "";
	cr_assert_eq(fake_ops.dev_open(1, sizeof(buffer_obj), 2, &d, why, sizeof(why)), 0, "%s",
		     why);
	cr_assert_eq(fake.device, 3, "the engine's current device is back");
	cr_assert_eq(fake_ops.dev_base(d), buffer_obj);
	cr_assert_eq(fake.stream_flags, 0x1);
	cr_assert_eq(fake.event_flags, 0x2);
	cr_assert_eq(fake.live_buffers + fake.live_streams + fake.live_events, 4);

	static const char weights[16] = "0123456789abcdef";
	memset(buffer_obj, '.', sizeof(buffer_obj));
	cr_assert_eq(fake_ops.dev_copy(d, 40, weights, 16, 1), 0);
	cr_assert_eq(fake.copy_kind, 7);
	/* The device bytes: the 16 at offset 40, nothing else touched. */
	cr_assert(memcmp(buffer_obj + 40, "0123456789abcdef", 16) == 0, "device bytes: %.16s",
		  buffer_obj + 40);
	for (size_t i = 0; i < sizeof(buffer_obj); i++)
		if (i < 40 || i >= 56)
			cr_assert_eq(buffer_obj[i], '.', "device byte %zu written", i);
	cr_assert_eq(fake.recorded, &event_obj[1], "slot 1's event is recorded");
	cr_assert_eq(fake_ops.dev_copy(d, 60, &host_obj, 5, 0), -EINVAL, "past the end");
	cr_assert_eq(fake_ops.dev_copy(d, 0, &host_obj, 1, 2), -EINVAL, "no slot 2");
	cr_assert_eq(fake_ops.dev_wait(d, 2), -EINVAL);
	cr_assert_eq(fake_ops.dev_wait(d, 0), 0);
	cr_assert_str_eq(fake_ops.dev_why(d), "");

	fake.memcpy_err = E_OTHER;
	cr_assert_eq(fake_ops.dev_copy(d, 0, &host_obj, 16, 0), LSC_E_GPU);
	cr_assert_str_eq(fake_ops.dev_why(d), "fake: fakeMemcpyAsync: unknown error (fakeError?)");
	fake.sync_err = E_OOM;
	cr_assert_eq(fake_ops.dev_wait(d, 0), -ENOMEM);
	cr_assert_str_eq(fake_ops.dev_why(d),
			 "fake: fakeEventSynchronize: out of memory (fakeErrorMemoryAllocation)");

	fake_ops.dev_close(d);
	cr_assert_eq(fake.live_buffers + fake.live_streams + fake.live_events, 0);
}

Test(pin_gpu, dev_open_failing_half_way_releases_all)
{
	fake.event_fail_at = 3;
	struct lsc__dev *d = (struct lsc__dev *)1;
	char why[256] = "";
	cr_assert_eq(fake_ops.dev_open(0, 4096, 4, &d, why, sizeof(why)), -ENOMEM);
	cr_assert_null(d);
	cr_assert_str_eq(why,
			 "fake: fakeEventCreateWithFlags: out of memory (fakeErrorMemoryAllocation)");
	cr_assert_eq(fake.device, 3, "the engine's current device is back");
	cr_assert_eq(fake.live_buffers, 0);
	cr_assert_eq(fake.live_streams, 0);
	cr_assert_eq(fake.live_events, 0);
}

Test(pin_gpu, dev_open_rejects_bad_slots)
{
	struct lsc__dev *d = (struct lsc__dev *)1;
	char why[256] = "";
	cr_assert_eq(fake_ops.dev_open(0, 4096, 0, &d, why, sizeof(why)), -EINVAL);
	cr_assert_null(d);
	cr_assert_str_eq(why, "fake: dev_open: 0 slots on device 0 (1..64 slots)");
	cr_assert_eq(fake_ops.dev_open(0, 4096, LSC__GPU_MAX_SLOTS + 1, &d, why, sizeof(why)),
		     -EINVAL);
	cr_assert_eq(fake_ops.dev_open(-1, 4096, 2, &d, why, sizeof(why)), -EINVAL);
	cr_assert_eq(fake.live_buffers, 0);
}

/* A whole load over the fake runtime: 2 MiB pinned in 1 MiB segments. */
static void load_with(unsigned flags)
{
	struct lsct_capture cap = {0};
	char *path = strdup(lsct_make_file("g.bin", 2u << 20, 91));
	struct lsc_load_options o;
	lsct_pinned_options(&o, 1u << 20);
	o.flags |= flags;
	lsc_arena *a = NULL;
	cr_assert_eq(lsct_load_over(&cap, &fake_ops, &o, path, &a), 0);
	cr_assert_eq(fake.register_calls, 2, "one registration per segment");
	lsc_arena_destroy(a);
	cr_assert_eq(fake.unregistered, 2);
	lsct_capture_reset(&cap);
	free(path);
}

Test(pin_gpu, a_loads_read_only_option_is_the_runtimes_flag)
{
	load_with(LSC_LOAD_PIN_READONLY);
	cr_assert_eq(fake.register_flags, 0x10 | 0x20 | 0x40,
		     "Portable | Mapped | ReadOnly in the runtime's values, got %#x",
		     fake.register_flags);
}

Test(pin_gpu, a_load_without_it_registers_portable_mapped)
{
	load_with(0);
	cr_assert_eq(fake.register_flags, 0x10 | 0x20, "got %#x", fake.register_flags);
}

/* 2 MiB in 1 MiB segments: the first segment interrupted once, the second
 * twice; both pin on their next try (three tries a segment). */
Test(pin_gpu, an_interrupted_register_is_tried_again)
{
	struct lsct_capture cap = {0};
	char *path = strdup(lsct_make_file("i.bin", 2u << 20, 92));
	struct lsc_load_options o;
	lsct_pinned_options(&o, 1u << 20);
	fake.register_errs[0] = E_INTR;
	fake.register_errs[2] = fake.register_errs[3] = E_INTR;
	lsc_arena *a = NULL;
	cr_assert_eq(lsct_load_over(&cap, &fake_ops, &o, path, &a), 0);
	struct lsc_load_stats st;
	cr_assert_eq(lsc_arena_stats(a, &st), 0);
	cr_assert_str_eq(st.pin_applied, "fake", "%s", cap.buf);
	cr_assert_eq(fake.register_calls, 5);
	cr_assert_eq(st.pin_failures, 3);
	cr_assert_eq(st.pin_segments, 2);
	/* each retried segment's own line says which of how many, where */
	cr_assert_eq(lsct_count_with(&cap, "note", "segment=1 segments=2 offset_bytes=0 bytes=1048576 "
						   "retries=1 failures=1"), 1, "%s", cap.buf);
	cr_assert_eq(lsct_count_with(&cap, "note", "segment=2 segments=2 offset_bytes=1048576 "
						   "bytes=1048576 retries=2 failures=2"), 1, "%s", cap.buf);
	lsc_arena_destroy(a);
	cr_assert_eq(fake.unregistered, 2);
	lsct_capture_reset(&cap);
	free(path);
}

/* Three interruptions of one segment: no fourth try, the fake runtime
 * does not pin it and nothing it registered stays registered. */
Test(pin_gpu, three_interruptions_end_the_tries)
{
	struct lsct_capture cap = {0};
	char *path = strdup(lsct_make_file("j.bin", 1u << 20, 93));
	struct lsc_load_options o;
	lsct_pinned_options(&o, 1u << 20);
	fake.register_errs[0] = fake.register_errs[1] = fake.register_errs[2] = E_INTR;
	lsc_arena *a = NULL;
	cr_assert_eq(lsct_load_over(&cap, &fake_ops, &o, path, &a), 0, "%s", cap.buf);
	struct lsc_load_stats st;
	cr_assert_eq(lsc_arena_stats(a, &st), 0);
	cr_assert_str_neq(st.pin_applied, "fake", "%s", cap.buf);
	cr_assert_eq(fake.register_calls, 3);
	cr_assert_eq(fake.unregistered, 0);
	lsc_arena_destroy(a);
	lsct_capture_reset(&cap);
	free(path);
}
