/*
 * Description: the numbers of the `complement` and `loaded` lines
 * (src/loader/summary.c) that field-presence checks let through, each found
 * by a mutation (scripts/mutate.sh, docs/testing.md). One load of 96 MiB
 * with the pread reader straight into the arena and no pin backend:
 * - sizes are in GiB of 2^30 bytes: 96 MiB is "0.09 GiB" (0.10 in 10^9);
 * - nothing is page-locked by the "none" backend: pinned_bytes=0;
 * - reads that land in the arena copy nothing: copy_s=0.000;
 * - read_gibps is bytes over the read time, not over the wall time: it lies
 *   within the rounding of bytes / 2^30 / read_s (3 decimals, then 2).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/load_helpers.h"

#define MIB (1ull << 20)
#define BYTES (96 * MIB)

static struct lsct_capture cap;
static char buf[LSC__LINE_MAX + 1];

static void load_once(void)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.thp = LSC_THP_4K;
	setenv("LOADSCOPE_READ_PATH", "arena", 1);
	struct lsc_extent e = {.path = lsct_make_file("sum.bin", BYTES, 3), .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	unsetenv("LOADSCOPE_READ_PATH");
	lsc_profiler_destroy(p);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	lsc_arena_destroy(a);
}

static const char *get(const char *event, const char *key, struct lsc__parsed *pl)
{
	cr_assert(lsct_find(&cap, event, 0, buf, sizeof(buf), pl), "no %s line", event);
	const char *v = lsc__parsed_get(pl, key);
	cr_assert_not_null(v, "no %s in the %s line", key, event);
	return v;
}

Test(summary_units, sizes_are_in_binary_gib)
{
	struct lsc__parsed pl;
	load_once();
	get("complement", "resident_bytes", &pl);
	cr_assert(strstr(pl.human, "ready: resident 0.09 GiB, pinned 0.00 GiB"), "%s", pl.human);
	get("loaded", "bytes", &pl);
	cr_assert(!strncmp(pl.human, "0.09 GiB in ", 12), "%s", pl.human);
}

Test(summary_units, nothing_pinned_by_none)
{
	struct lsc__parsed pl;
	load_once();
	cr_assert_str_eq(get("complement", "pin", &pl), "none");
	cr_assert_str_eq(get("complement", "pinned_bytes", &pl), "0");
	cr_assert_str_eq(get("complement", "resident_bytes", &pl), "100663296");
}

Test(summary_units, reads_into_the_arena_copy_nothing)
{
	struct lsc__parsed pl;
	load_once();
	cr_assert_str_eq(get("loaded", "staging", &pl), "none");
	cr_assert_str_eq(get("loaded", "copy_s", &pl), "0.000");
}

Test(summary_units, read_rate_is_over_the_read_time)
{
	struct lsc__parsed pl;
	double read_s, rate;
	load_once();
	get("loaded", "read_s", &pl);
	cr_assert_eq(lsc__parsed_f64(&pl, "read_s", &read_s), 0);
	cr_assert_eq(lsc__parsed_f64(&pl, "read_gibps", &rate), 0);
	if (read_s < 0.002)
		cr_skip_test("the read took %.3f s: too short to tell its rate from the wall's", read_s);
	double gib = (double)BYTES / (double)(1ull << 30);
	double hi = gib / (read_s - 0.0005) + 0.005, lo = gib / (read_s + 0.0005) - 0.005;
	cr_assert(rate >= lo && rate <= hi, "read_gibps %.2f, read_s %.3f: expected %.2f-%.2f", rate,
		  read_s, lo, hi);
}
