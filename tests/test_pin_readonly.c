/*
 * Description: read-only registration (LSC_LOAD_PIN_READONLY). Through a
 * pin table of the test's own, the option reaches every pin call as
 * LSC__PIN_READONLY beside Portable | Mapped, and the pin note says
 * readonly=1 when the backend claims the flag; without the option the flag
 * is never passed; a backend that does not claim it (mlock, none, the real
 * mlock here), or memory a backend allocated itself, gets a `pin` note
 * saying it was ignored. The flag's value at the runtime's register call is
 * tested against the GPU core's fake runtime (tests/test_pin_gpu.c).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/pin_fakes.h"

static struct {
	unsigned pins, with_readonly, without_mapped;
} P;

static struct lsct_capture cap;

static int ro_pin(void *addr, size_t len, unsigned flags, unsigned *retries, char *why,
		  size_t why_len)
{
	(void)addr, (void)len, (void)retries, (void)why, (void)why_len;
	P.pins++;
	P.with_readonly += !!(flags & LSC__PIN_READONLY);
	P.without_mapped += (flags & (LSC__PIN_PORTABLE | LSC__PIN_MAPPED)) !=
			    (LSC__PIN_PORTABLE | LSC__PIN_MAPPED);
	return 0;
}

static const struct lsc__pin_ops readonly = {
	.name = "ro",
	.caps = LSC__PIN_CAP_REGISTER | LSC__PIN_CAP_ALLOC | LSC__PIN_CAP_LOCKS |
		LSC__PIN_CAP_READONLY,
	.pin = ro_pin,
	.unpin = lsct_unpin_nothing,
	.alloc = lsct_alloc_anon,
	.free = lsct_free_anon,
};

static void teardown(void)
{
	lsct_capture_reset(&cap);
}

TestSuite(pin_readonly, .fini = teardown);

/* Load a 3 MiB file pinned in 1 MiB segments with @ops (NULL: o.pin = @pin). */
static void load(const struct lsc__pin_ops *ops, const char *pin, enum lsc_thp_policy thp,
		 unsigned flags)
{
	char *path = strdup(lsct_make_file("ro.bin", 3u << 20, 81));
	struct lsc_load_options o;
	lsct_pinned_options(&o, 1u << 20);
	o.pin = pin;
	o.thp = thp;
	o.flags |= flags;
	lsc_arena *a = NULL;
	cr_assert_eq(lsct_load_over(&cap, ops, &o, path, &a), 0);
	free(path);
	lsc_arena_destroy(a);
}

static int pin_note(unsigned k, char *buf, size_t len, struct lsc__parsed *pl)
{
	return lsct_pin_note(&cap, k, buf, len, pl);
}

Test(pin_readonly, the_option_reaches_every_pin_call)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	load(&readonly, NULL, LSC_THP_4K, LSC_LOAD_PIN_READONLY);
	cr_assert_eq(P.pins, 3, "one call per segment, got %u", P.pins);
	cr_assert_eq(P.with_readonly, P.pins, "%u of %u calls had LSC__PIN_READONLY",
		     P.with_readonly, P.pins);
	cr_assert_eq(P.without_mapped, 0, "read-only is added to Portable | Mapped");
	cr_assert(pin_note(0, buf, sizeof buf, &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "readonly"), "1");
	cr_assert(strstr(pl.human, "read-only for the device"), "%s", pl.human);
	cr_assert_not(pin_note(1, buf, sizeof buf, &pl), "no other pin note: %s", pl.human);
}

Test(pin_readonly, not_asked_not_passed)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	load(&readonly, NULL, LSC_THP_4K, 0);
	cr_assert_eq(P.pins, 3);
	cr_assert_eq(P.with_readonly, 0);
	cr_assert(pin_note(0, buf, sizeof buf, &pl));
	cr_assert_null(lsc__parsed_get(&pl, "readonly"));
}

Test(pin_readonly, a_backend_without_the_flag_ignores_it_with_a_note)
{
	struct lsc__pin_ops plain = readonly;
	plain.caps &= ~LSC__PIN_CAP_READONLY;
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	load(&plain, NULL, LSC_THP_4K, LSC_LOAD_PIN_READONLY);
	cr_assert(pin_note(0, buf, sizeof buf, &pl));
	cr_assert_null(lsc__parsed_get(&pl, "readonly"), "not honoured: %s", pl.human);
	cr_assert(pin_note(1, buf, sizeof buf, &pl), "no note says the flag was ignored");
	cr_assert_str_eq(lsc__parsed_get(&pl, "readonly"), "ignored");
	cr_assert_str_eq(lsc__parsed_get(&pl, "backend"), "ro");
	cr_assert(strstr(pl.human, "ro has no read-only flag: ignored"), "%s", pl.human);
}

Test(pin_readonly, memory_the_backend_allocated_ignores_it_with_a_note)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	load(&readonly, NULL, LSC_THP_PROCESS_OFF, LSC_LOAD_PIN_READONLY);
	cr_assert_eq(P.pins, 0, "the backend allocated, nothing was registered");
	cr_assert(pin_note(0, buf, sizeof buf, &pl), "no note says the flag was ignored");
	cr_assert_str_eq(lsc__parsed_get(&pl, "readonly"), "ignored");
	cr_assert(strstr(pl.human, "ro allocated the arena itself"), "%s", pl.human);
}

Test(pin_readonly, mlock_ignores_it_with_a_note)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	load(NULL, "mlock", LSC_THP_4K, LSC_LOAD_PIN_READONLY);
	/* mlock, or none where the memlock limit refused it: neither has the flag. */
	cr_assert(pin_note(1, buf, sizeof buf, &pl), "no note says the flag was ignored");
	cr_assert_str_eq(lsc__parsed_get(&pl, "readonly"), "ignored");
}
