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

#include "helpers/pin_fakes.h"

#define SEGMENT (1u << 20)
#define SHIFT ((uintptr_t)1 << 40) /* a device address space apart from the host's */

static struct {
	enum { SAME, SHIFTED, APART, FAIL, FAIL_SILENT, NOTHING } mode;
	unsigned asked;
} M;

static struct lsct_capture cap;

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
	.name = "mapper",
	.caps = LSC__PIN_CAP_REGISTER | LSC__PIN_CAP_ALLOC | LSC__PIN_CAP_LOCKS,
	.pin = lsct_pin_nothing,
	.unpin = lsct_unpin_nothing,
	.alloc = lsct_alloc_anon,
	.free = lsct_free_anon,
	.device_pointer = device_pointer,
};

static void teardown(void)
{
	lsct_capture_reset(&cap);
}

TestSuite(pin_map, .fini = teardown);

/* A load of a 3 MiB + 1 file pinned in 1 MiB segments (4 of them) with
 * @ops under @thp (process-off: the backend allocates the arena); the line
 * that reports the pin (the pin note, or the arena line) into @pl. */
static lsc_arena *load(const struct lsc__pin_ops *ops, enum lsc_thp_policy thp, char *buf,
		       size_t len, struct lsc__parsed *pl)
{
	char *path = strdup(lsct_make_file("m.bin", (3u << 20) + 1, 71));
	struct lsc_load_options o;
	lsct_pinned_options(&o, SEGMENT);
	o.thp = thp;
	lsc_arena *a = NULL;
	cr_assert_eq(lsct_load_over(&cap, ops, &o, path, &a), 0,
		     "a device address is never a reason to fail the load");
	free(path);
	int found = thp == LSC_THP_PROCESS_OFF ? lsct_find(&cap, "arena", 0, buf, len, pl)
					       : lsct_pin_note(&cap, 0, buf, len, pl);
	cr_assert(found, "no line reports the pin");
	return a;
}

static const char *hex(const void *ptr)
{
	static char s[32];
	snprintf(s, sizeof s, "0x%" PRIxPTR, (uintptr_t)ptr);
	return s;
}

/* The backend answers host + @shift: the line and lsc_arena_device_ptr say so. */
static void expect_address(enum lsc_thp_policy thp, uintptr_t shift, const char *is_host,
			   const char *words)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	M.mode = shift ? SHIFTED : SAME;
	lsc_arena *a = load(&mapper, thp, buf, sizeof buf, &pl);
	void *want = (void *)((uintptr_t)lsc_arena_data(a) + shift);
	cr_assert_eq(lsc_arena_device_ptr(a), want);
	cr_assert_str_eq(lsc__parsed_get(&pl, "device_ptr"), hex(want), "%s", pl.human);
	cr_assert_str_eq(lsc__parsed_get(&pl, "device_ptr_is_host"), is_host);
	cr_assert(strstr(pl.human, words), "%s", pl.human);
	if (thp == LSC_THP_PROCESS_OFF)
		cr_assert_str_eq(lsc__parsed_get(&pl, "allocated_by"), "mapper", "%s", pl.human);
	lsc_arena_destroy(a);
	lsct_capture_reset(&cap);
}

/* The backend answers as @mode says: no address, and the line says why. */
static void expect_reason(int mode, const char *reason)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	M.mode = mode;
	lsc_arena *a = load(&mapper, LSC_THP_4K, buf, sizeof buf, &pl);
	cr_assert_null(lsc_arena_device_ptr(a));
	cr_assert_str_eq(lsc__parsed_get(&pl, "device_ptr"), "n/a", "%s", pl.human);
	const char *why = lsc__parsed_get(&pl, "device_ptr_reason");
	cr_assert(why && strstr(why, reason), "%s", pl.human);
	cr_assert(strstr(pl.human, "no device pointer: "), "%s", pl.human);
	lsc_arena_destroy(a);
	lsct_capture_reset(&cap);
}

Test(pin_map, unified_addressing_is_the_host_address)
{
	expect_address(LSC_THP_4K, 0, "1", "the host address (unified addressing)");
	cr_assert_eq(M.asked, 4, "one question per segment, got %u", M.asked);
}

Test(pin_map, a_device_address_of_its_own)
{
	expect_address(LSC_THP_4K, SHIFT, "0", "not the host address");
}

Test(pin_map, memory_the_backend_allocated_reports_it_in_the_arena_line)
{
	expect_address(LSC_THP_PROCESS_OFF, SHIFT, "0", "not the host address");
}

/* The reason names the segment, where it maps and where one range would
 * have put it: the first segment's device address plus the offset (the
 * fake maps segment n, from 0, at host + SHIFT * (n + 1)). */
Test(pin_map, segments_mapped_apart_are_no_device_range)
{
	expect_reason(APART, "the segment at +1048576 maps to 0x");
	cr_assert_eq(M.asked, 2, "the first segment apart ends the questions");

	char buf[LSC__LINE_MAX + 1], want[256];
	struct lsc__parsed pl;
	M.asked = 0;
	lsc_arena *a = load(&mapper, LSC_THP_4K, buf, sizeof buf, &pl);
	uintptr_t host = (uintptr_t)lsc_arena_data(a);
	snprintf(want, sizeof want,
		 "the segment at +%u maps to 0x%" PRIxPTR ", not 0x%" PRIxPTR ": no one device range for the arena",
		 SEGMENT, host + SEGMENT + 2 * SHIFT, host + SHIFT + SEGMENT);
	cr_assert_str_eq(lsc__parsed_get(&pl, "device_ptr_reason"), want, "%s", pl.human);
	lsc_arena_destroy(a);
	lsct_capture_reset(&cap);
}

Test(pin_map, a_failure_is_a_reason_not_a_failed_load)
{
	expect_reason(FAIL, "mapper: not mapped for the device (test)");
	cr_assert_eq(M.asked, 1, "the first failure ends the questions");
}

Test(pin_map, a_failure_without_words_or_an_answer_is_named)
{
	expect_reason(FAIL_SILENT, "mapper: device_pointer: EINVAL");
	expect_reason(NOTHING, "mapper: no device address for +0");
}

Test(pin_map, a_backend_without_device_pointer_reports_nothing)
{
	struct lsc__pin_ops plain = mapper;
	plain.device_pointer = NULL;
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	lsc_arena *a = load(&plain, LSC_THP_4K, buf, sizeof buf, &pl);
	cr_assert_null(lsc_arena_device_ptr(a));
	cr_assert_null(lsc__parsed_get(&pl, "device_ptr"));
	cr_assert_null(strstr(pl.human, "device pointer"), "%s", pl.human);
	lsc_arena_destroy(a);
	cr_assert_null(lsc_arena_device_ptr(NULL));
}
