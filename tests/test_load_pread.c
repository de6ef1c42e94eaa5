/*
 * Description: the pread reader (the fallback that always works). Files of
 * odd sizes load byte for byte into the arena, through staging buffers and
 * straight into the arena, with the hash of each extent equal to XXH3-64 of
 * the file, and the two summary lines naming the pread reader; a slow read
 * phase reports its progress to the watchdog's `still in read` lines.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "sys/sys.h"

#include "helpers/load_helpers.h"

static struct lsct_capture cap;

static void teardown(void)
{
	lsc__sys_set(NULL);
	lsct_capture_reset(&cap);
	unsetenv("LOADSCOPE_READ_PATH");
}

TestSuite(load_pread, .fini = teardown);

Test(load_pread, into_the_arena)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	setenv("LOADSCOPE_READ_PATH", "arena", 1);
	lsct_load_check(&cap, "pread", lsct_make_file("a.bin", (5u << 20) + 4097, 1), &o, "none");
}

Test(load_pread, through_staging)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.staging_count = 3;
	o.staging_bytes = 1u << 20;
	o.queue_depth = 2;
	o.thp = LSC_THP_4K; /* the complement line must say 4k, with no huge pages */
	lsct_load_check(&cap, "pread", lsct_make_file("s.bin", (7u << 20) + 13, 2), &o, "3x1MiB");
}

Test(load_pread, staging_smaller_than_a_page_rounds_up)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.staging_count = 1;
	o.staging_bytes = 100;
	o.queue_depth = 1;
	lsct_load_check(&cap, "pread", lsct_make_file("p.bin", 100000, 3), &o, "1x4KiB");
}

Test(load_pread, tiny_file)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	lsct_load_check(&cap, "pread", lsct_make_file("t.bin", 1, 4), &o, "none");
}

/* Reads that wait, from the third on, until the watchdog has reported the
 * read phase with some progress (at most 30 s): the phase outlives the
 * watchdog's threshold however the machine schedules its thread. */
static int read_reported;

static void watching_sink(void *user, const char *line, size_t len)
{
	lsct_sink(user, line, len);
	if (strstr(line, "still in read") && !strstr(line, "done_bytes=0 "))
		__atomic_store_n(&read_reported, 1, __ATOMIC_RELEASE);
}

static ssize_t slow_pread(int fd, void *buf, size_t len, off_t off)
{
	static unsigned calls;
	if (++calls == 3) /* once: progress never reported fails the test in 30 s, not 30 s a read */
		for (int i = 0; i < 30000 && !__atomic_load_n(&read_reported, __ATOMIC_ACQUIRE); i++)
			usleep(1000);
	return pread(fd, buf, len, off);
}

Test(load_pread, progress_reaches_the_watchdog)
{
	struct lsc__sys s = lsc__sys_default;
	s.pread = slow_pread;
	lsc__sys_set(&s);
	struct lsc_profiler_options po;
	lsc_profiler_options_init(&po);
	po.sink = watching_sink;
	po.sink_user = &cap;
	po.mode = LSC_MODE_ON;
	po.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE;
	po.watchdog_after_s = 0.02;
	po.watchdog_every_s = 0.02;
	lsc_profiler *p = NULL;
	cr_assert_eq(lsc_profiler_create(&po, &p), 0);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.staging_count = 1;
	o.staging_bytes = 64u << 10;
	o.queue_depth = 1;
	struct lsc_extent e = {.path = lsct_make_file("slow.bin", 4u << 20, 5), .length = UINT64_MAX};
	lsc_arena *a = NULL;
	lsc_start_begin(p, "slow"); /* the watchdog runs while a start is open */
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	lsc_start_end(p);
	lsc__sys_set(NULL);
	cr_assert_eq(ret, 0);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	/* Some `still` line of the read phase shows bytes done of the total. */
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	int seen = 0;
	for (unsigned k = 0; lsct_find(&cap, "still", k, buf, sizeof(buf), &pl); k++) {
		int64_t done, total;
		if (strcmp(lsc__parsed_get(&pl, "kind"), "read") ||
		    lsc__parsed_i64(&pl, "done_bytes", &done) || lsc__parsed_i64(&pl, "total_bytes", &total))
			continue;
		cr_assert_eq(total, 4 << 20);
		cr_assert(done <= total);
		seen |= done > 0;
	}
	if (!seen)
		lsct_dump(&cap);
	cr_assert(seen, "no `still in read` line with progress");
}
