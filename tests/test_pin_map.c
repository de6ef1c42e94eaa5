/*
 * Description: the arena's device address (mapped pinning). Through a pin
 * table of the test's own, a load that pins with a backend that has
 * device_pointer asks it for every segment, reports the answer in the pin
 * note (device_ptr, whether it is the host address) and hands it out by
 * lsc_arena_device_ptr(); a backend that fails, answers nothing, or maps the
 * segments apart gives device_ptr=n/a and the reason, and the load still
 * succeeds; memory the backend allocated itself reports it in the arena
 * line; a backend without device_pointer reports nothing.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "helpers/load_helpers.h"
#include "loader/load_internal.h"

#define SEGMENT (1u << 20)
#define SHIFT ((uintptr_t)1 << 40) /* a device address space apart from the host's */

static struct {
	enum { SAME, SHIFTED, APART, FAIL, FAIL_SILENT, NOTHING } mode;
	unsigned asked;
	size_t alloc_len;
} M;

static struct lsct_capture cap;

static int map_pin(void *addr, size_t len, unsigned flags, unsigned *retries, char *why,
		   size_t why_len)
{
	(void)addr, (void)len, (void)flags, (void)retries, (void)why, (void)why_len;
	return 0;
}

static int map_unpin(void *addr, size_t len)
{
	(void)addr, (void)len;
	return 0;
}

static int map_alloc(size_t len, unsigned flags, void **out, char *why, size_t why_len)
{
	(void)flags, (void)why, (void)why_len;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	M.alloc_len = len;
	*out = m;
	return 0;
}

static void map_free(void *addr, size_t len)
{
	munmap(addr, len);
}

static int device_pointer(void *host, void **dev, char *why, size_t why_len)
{
	M.asked++;
	*dev = NULL;
	switch (M.mode) {
	case SAME:
		*dev = host;
		return 0;
	case SHIFTED:
		*dev = (void *)((uintptr_t)host + SHIFT);
		return 0;
	case APART: /* each segment mapped on its own, with a gap */
		*dev = (void *)((uintptr_t)host + SHIFT * M.asked);
		return 0;
	case FAIL:
		snprintf(why, why_len, "mapper: not mapped for the device (test)");
		return LSC_E_GPU;
	case FAIL_SILENT:
		return -EINVAL;
	case NOTHING:
		return 0;
	}
	return 0;
}

static const struct lsc__pin_ops mapper = {
	.abi = LSC__PIN_ABI,
	.name = "mapper",
	.caps = LSC__PIN_CAP_REGISTER | LSC__PIN_CAP_ALLOC | LSC__PIN_CAP_LOCKS,
	.pin = map_pin,
	.unpin = map_unpin,
	.alloc = map_alloc,
	.free = map_free,
	.device_pointer = device_pointer,
};

static void teardown(void)
{
	lsc__pin_override(NULL);
	lsct_capture_free(&cap);
}

TestSuite(pin_map, .fini = teardown);

/* A load of a 3 MiB + 1 file pinned in 1 MiB segments (4 of them) with
 * @ops; the line that reports the pin into @pl. */
static lsc_arena *load(const struct lsc__pin_ops *ops, enum lsc_thp_policy thp, const char *event,
		       char *buf, size_t len, struct lsc__parsed *pl)
{
	lsc__pin_override(ops);
	char *path = strdup(lsct_make_file("m.bin", (3u << 20) + 1, 71));
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.thp = thp;
	o.pin_segment_bytes = SEGMENT;
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	lsc_profiler_destroy(p);
	free(path);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "a device address is never a reason to fail the load");
	for (unsigned k = 0; lsct_find(&cap, event, k, buf, len, pl); k++) {
		const char *topic = lsc__parsed_get(pl, "topic");
		if (!strcmp(event, "arena") || (topic && !strcmp(topic, "pin") &&
						 !lsc__parsed_get(pl, "segment")))
			return a;
	}
	lsct_dump(&cap);
	cr_assert_fail("no %s line reports the pin", event);
	return NULL;
}

static const char *hex(const void *ptr)
{
	static char s[32];
	snprintf(s, sizeof s, "0x%" PRIxPTR, (uintptr_t)ptr);
	return s;
}

Test(pin_map, unified_addressing_is_the_host_address)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	lsc_arena *a = load(&mapper, LSC_THP_4K, "note", buf, sizeof buf, &pl);
	cr_assert_eq(M.asked, 4, "one question per segment, got %u", M.asked);
	cr_assert_eq(lsc_arena_device_ptr(a), lsc_arena_data(a));
	cr_assert_str_eq(lsc__parsed_get(&pl, "device_ptr"), hex(lsc_arena_data(a)));
	cr_assert_str_eq(lsc__parsed_get(&pl, "device_ptr_is_host"), "1");
	cr_assert(strstr(pl.human, "the host address (unified addressing)"), "%s", pl.human);
	lsc_arena_destroy(a);
}

Test(pin_map, a_device_address_of_its_own)
{
	M.mode = SHIFTED;
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	lsc_arena *a = load(&mapper, LSC_THP_4K, "note", buf, sizeof buf, &pl);
	void *want = (void *)((uintptr_t)lsc_arena_data(a) + SHIFT);
	cr_assert_eq(lsc_arena_device_ptr(a), want);
	cr_assert_str_eq(lsc__parsed_get(&pl, "device_ptr"), hex(want));
	cr_assert_str_eq(lsc__parsed_get(&pl, "device_ptr_is_host"), "0");
	cr_assert(strstr(pl.human, "not the host address"), "%s", pl.human);
	lsc_arena_destroy(a);
}

Test(pin_map, segments_mapped_apart_are_no_device_range)
{
	M.mode = APART;
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	lsc_arena *a = load(&mapper, LSC_THP_4K, "note", buf, sizeof buf, &pl);
	cr_assert_null(lsc_arena_device_ptr(a));
	cr_assert_str_eq(lsc__parsed_get(&pl, "device_ptr"), "n/a");
	const char *why = lsc__parsed_get(&pl, "device_ptr_reason");
	cr_assert(why && strstr(why, "the segment at +1048576 maps to") &&
			  strstr(why, "no one device range"),
		  "%s", pl.human);
	lsc_arena_destroy(a);
}

Test(pin_map, a_failure_is_a_reason_not_a_failed_load)
{
	M.mode = FAIL;
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	lsc_arena *a = load(&mapper, LSC_THP_4K, "note", buf, sizeof buf, &pl);
	cr_assert_null(lsc_arena_device_ptr(a));
	cr_assert_eq(M.asked, 1, "the first failure ends the questions");
	cr_assert_str_eq(lsc__parsed_get(&pl, "device_ptr"), "n/a");
	cr_assert_str_eq(lsc__parsed_get(&pl, "device_ptr_reason"),
			 "mapper: not mapped for the device (test)");
	cr_assert(strstr(pl.human, "no device pointer: mapper: not mapped"), "%s", pl.human);
	lsc_arena_destroy(a);
}

Test(pin_map, a_failure_without_words_or_an_answer_is_named)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	M.mode = FAIL_SILENT;
	lsc_arena *a = load(&mapper, LSC_THP_4K, "note", buf, sizeof buf, &pl);
	cr_assert_str_eq(lsc__parsed_get(&pl, "device_ptr_reason"), "mapper: device_pointer: EINVAL");
	lsc_arena_destroy(a);
	lsct_capture_free(&cap);

	M.mode = NOTHING;
	a = load(&mapper, LSC_THP_4K, "note", buf, sizeof buf, &pl);
	cr_assert_null(lsc_arena_device_ptr(a));
	cr_assert_str_eq(lsc__parsed_get(&pl, "device_ptr_reason"),
			 "mapper: no device address for +0");
	lsc_arena_destroy(a);
}

Test(pin_map, memory_the_backend_allocated_reports_it_in_the_arena_line)
{
	M.mode = SHIFTED;
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	lsc_arena *a = load(&mapper, LSC_THP_PROCESS_OFF, "arena", buf, sizeof buf, &pl);
	cr_assert_gt(M.alloc_len, 0, "the backend allocated the arena");
	cr_assert_str_eq(lsc__parsed_get(&pl, "allocated_by"), "mapper");
	void *want = (void *)((uintptr_t)lsc_arena_data(a) + SHIFT);
	cr_assert_eq(lsc_arena_device_ptr(a), want);
	cr_assert_str_eq(lsc__parsed_get(&pl, "device_ptr"), hex(want));
	lsc_arena_destroy(a);
}

Test(pin_map, a_backend_without_device_pointer_reports_nothing)
{
	struct lsc__pin_ops plain = mapper;
	plain.device_pointer = NULL;
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	lsc_arena *a = load(&plain, LSC_THP_4K, "note", buf, sizeof buf, &pl);
	cr_assert_null(lsc_arena_device_ptr(a));
	cr_assert_null(lsc__parsed_get(&pl, "device_ptr"));
	cr_assert_null(strstr(pl.human, "device pointer"), "%s", pl.human);
	lsc_arena_destroy(a);
	cr_assert_null(lsc_arena_device_ptr(NULL));
}
