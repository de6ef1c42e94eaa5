/*
 * Description: what lsc_arena_stats() returns after a load is what the
 * load's own lines said, field by field: the bytes and the arena's size,
 * the policy applied and the adaptive policy's watch and huge part (the
 * arena line), the reader, O_DIRECT, files and tensors (the loaded line),
 * the pin backend, its segments, retries and failures (the pin note), and
 * each phase's time to the millisecond the loaded line gives it. An
 * engine reads the struct, a user pastes the lines: a field the load
 * forgot to copy, or copied from the wrong member, shows as a difference.
 * Over both readers and the thp, 4k and auto policies.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/load_helpers.h"

static struct lsct_capture cap;
static char store[LSC__LINE_MAX + 1];

/* @key of the first @event line (for "note", the pin's: topic=pin). */
static const char *field(const char *event, const char *key)
{
	static char v[8][LSC__LINE_MAX + 1];
	static int k;
	struct lsc__parsed p;
	unsigned nth = 0;
	for (;; nth++) {
		cr_assert(lsct_find(&cap, event, nth, store, sizeof store, &p), "no %s line: %s", event, cap.buf);
		const char *topic = lsc__parsed_get(&p, "topic");
		if (strcmp(event, "note") || (topic && !strcmp(topic, "pin")))
			break;
	}
	const char *got = lsc__parsed_get(&p, key);
	cr_assert_not_null(got, "no %s in the %s line", key, event);
	char *r = v[k++ % 8];
	snprintf(r, LSC__LINE_MAX + 1, "%s", got);
	return r;
}

static uint64_t u64_of(const char *event, const char *key)
{
	return strtoull(field(event, key), NULL, 10);
}

/* A time in ns against the line's seconds at 3 decimals. */
static void same_time(uint64_t ns, const char *key)
{
	double s = strtod(field("loaded", key), NULL);
	cr_assert(fabs((double)ns / 1e9 - s) <= 0.0005 + 1e-9, "%s: %.6f s in the stats, %s in the line", key,
		  (double)ns / 1e9, field("loaded", key));
}

static void check(const char *reader, enum lsc_thp_policy thp)
{
	lsct_capture_reset(&cap);
	char *path = strdup(lsct_make_file("stats.bin", (24u << 20) + 4097, 5));
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = reader;
	o.thp = thp;
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	lsc_profiler_destroy(p);
	struct lsc_load_stats st;
	cr_assert_eq(lsc_arena_stats(a, &st), 0);

	cr_assert_eq(st.bytes, u64_of("loaded", "bytes"));
	cr_assert_eq(st.arena_bytes, u64_of("arena", "arena_bytes"));
	cr_assert_str_eq(lsc_thp_policy_name(st.thp_applied), field("arena", "policy"));
	cr_assert_str_eq(st.reader_applied, field("loaded", "reader"));
	cr_assert_eq((unsigned)st.direct_applied, (unsigned)u64_of("loaded", "direct"));
	cr_assert_eq(st.files, (unsigned)u64_of("loaded", "files"));
	cr_assert_eq(st.tensors, (size_t)u64_of("loaded", "tensors"));
	cr_assert_str_eq(st.pin_applied, field("note", "backend"));
	cr_assert_eq(st.pin_segments, (unsigned)u64_of("note", "segments"));
	cr_assert_eq(st.pin_retries, (unsigned)u64_of("note", "retries"));
	cr_assert_eq(st.pin_failures, (unsigned)u64_of("note", "failures"));
	if (thp == LSC_THP_AUTO) {
		cr_assert_eq((unsigned)st.auto_watch, (unsigned)u64_of("arena", "auto_watch"));
		cr_assert_eq(st.auto_huge_bytes, u64_of("arena", "auto_huge_bytes"));
	} else {
		cr_assert_eq(st.auto_watch, 0, "auto's watch set under %s", lsc_thp_policy_name(thp));
	}
	same_time(st.alloc_ns, "alloc_s");
	same_time(st.pin_ns, "pin_s");
	same_time(st.read_ns, "read_s");
	same_time(st.verify_ns, "verify_s");
	lsc_arena_destroy(a);
	free(path);
}

Test(load_stats, pread_and_each_policy)
{
	check("pread", LSC_THP_4K);
	check("pread", LSC_THP_THP);
	check("pread", LSC_THP_AUTO);
}

Test(load_stats, io_uring_and_each_policy)
{
	check("io_uring", LSC_THP_4K);
	check("io_uring", LSC_THP_THP);
	check("io_uring", LSC_THP_AUTO);
}
