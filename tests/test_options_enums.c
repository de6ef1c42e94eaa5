/*
 * Description: the enum fields of the public options structs on both sides
 * of their ranges (docs/configuration.md: a bad field is the function's
 * -EINVAL). An enum is an int in the struct, and a value outside it was
 * taken: lsc_load with thp = 42 built an arena under some policy, and
 * lsc_profiler_create with mode = 9 made a profiler that was on. Each
 * field: one below its first value and one past its last are -EINVAL
 * (with the loader's `error what=options` line, nothing opened), the first
 * and the last are taken.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "helpers/load_helpers.h"

static struct lsct_capture cap;

static void teardown(void)
{
	lsct_capture_reset(&cap);
}

TestSuite(options_enums, .fini = teardown);

static int create(enum lsc_format format, enum lsc_mode mode)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.format = format;
	o.mode = mode;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
	o.sink = lsct_sink;
	o.sink_user = &cap;
	lsc_profiler *p = (lsc_profiler *)&cap; /* must be reset to NULL on failure */
	int ret = lsc_profiler_create(&o, &p);
	if (ret == 0)
		lsc_profiler_destroy(p);
	else
		cr_assert_null(p);
	return ret;
}

Test(options_enums, profiler_format)
{
	cr_assert_eq(create((enum lsc_format)-1, LSC_MODE_ON), -EINVAL);
	cr_assert_eq(create(LSC_FORMAT_HUMAN, LSC_MODE_ON), 0);
	cr_assert_eq(create(LSC_FORMAT_JSON, LSC_MODE_ON), 0);
	cr_assert_eq(create((enum lsc_format)(LSC_FORMAT_JSON + 1), LSC_MODE_ON), -EINVAL);
}

Test(options_enums, profiler_mode)
{
	cr_assert_eq(create(LSC_FORMAT_HUMAN, (enum lsc_mode)-1), -EINVAL);
	cr_assert_eq(create(LSC_FORMAT_HUMAN, LSC_MODE_DEFAULT), 0);
	cr_assert_eq(create(LSC_FORMAT_HUMAN, LSC_MODE_OFF), 0);
	cr_assert_eq(create(LSC_FORMAT_HUMAN, (enum lsc_mode)(LSC_MODE_OFF + 1)), -EINVAL);
	cr_assert_eq(create(LSC_FORMAT_HUMAN, (enum lsc_mode)9), -EINVAL);
}

enum entry { LOAD, MANIFEST, INTO };

/* A 1 MiB load with thp = @thp through @how; its rc. */
static int load_with(enum entry how, int thp)
{
	static char path[512];
	snprintf(path, sizeof path, "%s", lsct_make_file("enum.bin", 1u << 20, 3));
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.thp = (enum lsc_thp_policy)thp;
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	lsc_arena *a = NULL;
	int ret;
	if (how == INTO) {
		static char dst[1u << 20];
		ret = lsc_load_into(p, &o, &e, 1, dst, sizeof dst, NULL);
	} else if (how == MANIFEST) {
		struct lsc_manifest m = {.extents = &e, .n_extents = 1, .arena_bytes = 1u << 20};
		ret = lsc_load_manifest(p, &o, &m, &a);
	} else {
		ret = lsc_load(p, &o, &e, 1, 0, &a);
	}
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	return ret;
}

static void refused(enum entry how, int thp)
{
	lsct_capture_reset(&cap);
	int fds = lsct_open_fds();
	cr_assert_eq(load_with(how, thp), -EINVAL, "entry %d, thp %d: %s", how, thp, cap.buf);
	cr_assert_eq(lsct_open_fds(), fds);
	char store[LSC__LINE_MAX + 1], want[96];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "error", 0, store, sizeof store, &pl), "%s", cap.buf);
	cr_assert_str_eq(lsc__parsed_get(&pl, "what"), "options");
	snprintf(want, sizeof want, "thp %d is not a policy (0 auto to 4 process-off)", thp);
	cr_assert(strstr(pl.human, want), "%s", pl.human);
	cr_assert_eq(lsct_count(&cap, "arena"), 0, "an arena was made: %s", cap.buf);
}

Test(options_enums, load_thp)
{
	for (enum entry how = LOAD; how <= INTO; how++) {
		refused(how, -1);
		refused(how, LSC_THP_PROCESS_OFF + 1);
		refused(how, 42);
		lsct_capture_reset(&cap);
		cr_assert_eq(load_with(how, LSC_THP_AUTO), 0, "entry %d: %s", how, cap.buf);
		lsct_capture_reset(&cap);
		cr_assert_eq(load_with(how, LSC_THP_PROCESS_OFF), 0, "entry %d: %s", how, cap.buf);
	}
}

/* The _init functions set every field, whatever the struct held: a struct
 * of garbage (every byte 0xa5) comes out equal, byte for byte, to one
 * built here from the documented defaults (docs/configuration.md): all
 * zero but the profiler's human format, default mode and 5 s watchdog,
 * and the loader's auto THP, "none" pin, 1 GiB pin segments, no NUMA node
 * (-1), "auto" reader and no device (-1). */
Test(options_enums, init_sets_every_field_from_garbage)
{
	struct lsc_profiler_options po, pw;
	memset(&po, 0xa5, sizeof po);
	lsc_profiler_options_init(&po);
	memset(&pw, 0, sizeof pw);
	pw.format = LSC_FORMAT_HUMAN;
	pw.mode = LSC_MODE_DEFAULT;
	pw.watchdog_after_s = 5.0;
	pw.watchdog_every_s = 5.0;
	cr_expect(!memcmp(&po, &pw, sizeof po), "lsc_profiler_options_init left a field as it was");
	struct lsc_load_options lo, lw;
	memset(&lo, 0xa5, sizeof lo);
	lsc_load_options_init(&lo);
	memset(&lw, 0, sizeof lw);
	lw.thp = LSC_THP_AUTO;
	lw.pin = lo.pin;
	lw.reader = lo.reader;
	lw.pin_segment_bytes = 1ull << 30;
	lw.numa_node = -1;
	lw.device = -1;
	cr_expect_str_eq(lo.pin, "none");
	cr_expect_str_eq(lo.reader, "auto");
	cr_expect(!memcmp(&lo, &lw, sizeof lo), "lsc_load_options_init left a field as it was");
}
