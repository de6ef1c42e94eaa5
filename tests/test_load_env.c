/*
 * Description: the loader's environment variables, each read with one
 * vocabulary (docs/configuration.md). A bad value of LOADSCOPE_READ_PATH,
 * LOADSCOPE_READ_FIXED, LOADSCOPE_READ_ASYNC or LOADSCOPE_ARENA_MEM_CHECK
 * is one `usage` line naming it, its words and the default, and the load
 * runs with that default (the first two were once taken silently); the
 * words are taken in any case, in ASCII whatever the engine's locale: under
 * tr_TR.UTF-8 STAGING is staging, though strcasecmp there says it is not
 * (the dotless i). The io_uring cases skip loudly where the kernel has no
 * usable io_uring.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/comma_locale.h"
#include "helpers/load_helpers.h"

static struct lsct_capture cap;
static char store[LSC__LINE_MAX + 1];

static void teardown(void)
{
	lsct_capture_reset(&cap);
	unsetenv("LOADSCOPE_READ_PATH");
	unsetenv("LOADSCOPE_READ_FIXED");
	unsetenv("LOADSCOPE_READ_ASYNC");
	unsetenv("LOADSCOPE_ARENA_MEM_CHECK");
}

TestSuite(load_env, .fini = teardown);

/* A 3 MiB load by io_uring; its rc. */
static int load(void)
{
	const char *path = lsct_make_file("env.bin", 3u << 20, 41);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "io_uring";
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	return ret;
}

static void one_usage_line(const char *want)
{
	cr_assert_eq(lsct_count(&cap, "usage"), 1, "%s", cap.buf);
	struct lsc__parsed u;
	cr_assert(lsct_find(&cap, "usage", 0, store, sizeof store, &u));
	cr_assert_str_eq(u.human, want);
}

static void loaded_field(const char *key, const char *want)
{
	char v[64];
	cr_assert(lsct_field(&cap, "loaded", key, v, sizeof v), "no %s in: %s", key, cap.buf);
	cr_assert_str_eq(v, want, "%s in: %s", key, cap.buf);
}

Test(load_env, bad_read_path_is_one_line_and_the_arena_path)
{
	lsct_need_uring();
	setenv("LOADSCOPE_READ_PATH", "bogus", 1);
	cr_assert_eq(load(), 0, "%s", cap.buf);
	one_usage_line("API misuse: LOADSCOPE_READ_PATH=bogus is not staging or arena; "
		       "the default, arena, applies (reported once)");
	loaded_field("staging", "none");
}

Test(load_env, read_path_words_in_any_case)
{
	lsct_need_uring();
	setenv("LOADSCOPE_READ_PATH", "Staging", 1);
	cr_assert_eq(load(), 0, "%s", cap.buf);
	cr_assert_eq(lsct_count(&cap, "usage"), 0, "%s", cap.buf);
	char v[64];
	cr_assert(lsct_field(&cap, "loaded", "staging", v, sizeof v));
	cr_assert_str_neq(v, "none", "%s", cap.buf);
}

Test(load_env, read_path_staging_under_a_turkish_locale)
{
	lsct_need_uring();
	lsct_turkish_locale();
	setenv("LOADSCOPE_READ_PATH", "STAGING", 1);
	setenv("LOADSCOPE_READ_ASYNC", "ON", 1);
	cr_assert_eq(load(), 0, "%s", cap.buf);
	cr_assert_eq(lsct_count(&cap, "usage"), 0, "%s", cap.buf);
	char v[64];
	cr_assert(lsct_field(&cap, "loaded", "staging", v, sizeof v));
	cr_assert_str_neq(v, "none", "STAGING was not staging: %s", cap.buf);
	loaded_field("async", "1");
}

Test(load_env, bad_read_fixed_is_one_line_and_the_default)
{
	lsct_need_uring();
	setenv("LOADSCOPE_READ_FIXED", "bogus", 1);
	cr_assert_eq(load(), 0, "%s", cap.buf);
	one_usage_line("API misuse: LOADSCOPE_READ_FIXED=bogus is not 1, on, yes, 0, off, no or "
		       "auto; the default, auto, applies (reported once)");
	/* auto: the arena is registered only where it is all huge pages, so
	 * the line names the reason exactly when it is not (test_load_fixed). */
	char v[64];
	cr_assert(lsct_field(&cap, "loaded", "fixed", v, sizeof v), "%s", cap.buf);
	if (!lsct_has_fallback(&cap, "buffers"))
		cr_assert_eq(!strcmp(v, "0"), strstr(cap.buf, "(arena not registered: ") != NULL,
			     "fixed=%s in: %s", v, cap.buf);
}

Test(load_env, read_fixed_yes_registers)
{
	lsct_need_uring();
	setenv("LOADSCOPE_READ_FIXED", "Yes", 1);
	cr_assert_eq(load(), 0, "%s", cap.buf);
	cr_assert_eq(lsct_count(&cap, "usage"), 0, "%s", cap.buf);
	/* 1 as asked, unless this process cannot register 3 MiB: then the
	 * buffers fallback says so, and 0 is that fallback's, not the word's. */
	if (!lsct_has_fallback(&cap, "buffers"))
		loaded_field("fixed", "1");
}

Test(load_env, read_fixed_no_turns_it_off)
{
	lsct_need_uring();
	setenv("LOADSCOPE_READ_FIXED", "NO", 1);
	cr_assert_eq(load(), 0, "%s", cap.buf);
	cr_assert_eq(lsct_count(&cap, "usage"), 0, "%s", cap.buf);
	loaded_field("fixed", "0");
}

Test(load_env, bad_read_async_is_one_line_and_async)
{
	lsct_need_uring();
	setenv("LOADSCOPE_READ_ASYNC", "maybe", 1);
	cr_assert_eq(load(), 0, "%s", cap.buf);
	one_usage_line("API misuse: LOADSCOPE_READ_ASYNC=maybe is not 1, on, yes, 0, off or no; "
		       "the default, 1, applies (reported once)");
	loaded_field("async", "1");
}

Test(load_env, read_async_off_in_capitals)
{
	lsct_need_uring();
	setenv("LOADSCOPE_READ_ASYNC", "OFF", 1); /* was taken as on */
	cr_assert_eq(load(), 0, "%s", cap.buf);
	loaded_field("async", "0");
}

/* The guard stays on: an arena of 1 PiB is refused before it is mapped. */
Test(load_env, bad_mem_check_is_one_line_and_the_guard)
{
	setenv("LOADSCOPE_ARENA_MEM_CHECK", "bogus", 1);
	const char *path = lsct_make_file("env-small.bin", 4096, 42);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 1ull << 50, &a);
	lsc_profiler_destroy(p);
	cr_assert_eq(ret, -ENOMEM, "%s", cap.buf);
	cr_assert_null(a);
	one_usage_line("API misuse: LOADSCOPE_ARENA_MEM_CHECK=bogus is not 1, on, yes, 0, off or no; "
		       "the default, 1, applies (reported once)");
	char v[64];
	cr_assert(lsct_field(&cap, "error", "what", v, sizeof v), "%s", cap.buf);
	cr_assert_str_eq(v, "allocate");
}

/* Two loads on one profiler: the line once, the default both times. */
Test(load_env, reported_once_per_profiler)
{
	lsct_need_uring();
	setenv("LOADSCOPE_READ_PATH", "nowhere", 1);
	const char *path = lsct_make_file("env2.bin", 1u << 20, 43);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "io_uring";
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	for (int i = 0; i < 2; i++) {
		lsc_arena *a = NULL;
		cr_assert_eq(lsc_load(p, &o, &e, 1, 0, &a), 0, "%s", cap.buf);
		lsc_arena_destroy(a);
	}
	lsc_profiler_destroy(p);
	cr_assert_eq(lsct_count(&cap, "usage"), 1, "%s", cap.buf);
	cr_assert_eq(lsct_count_with(&cap, "loaded", "staging=none"), 2, "%s", cap.buf);
}

/* The loaded line names the staging buffers K x C, C in MiB when it is
 * whole MiB and in KiB otherwise: 1, 2 MiB; 1536 and 1028 KiB. */
Test(load_env, the_staging_label_in_whole_units)
{
	lsct_need_uring();
	static const struct {
		uint64_t c;
		const char *want;
	} c[] = {{1u << 20, "2x1MiB"}, {2u << 20, "2x2MiB"}, {1536u << 10, "2x1536KiB"}, {1028u << 10, "2x1028KiB"}};
	const char *path = lsct_make_file("env-staging.bin", 3u << 20, 43);
	setenv("LOADSCOPE_READ_PATH", "staging", 1);
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct lsc_load_options o;
		lsc_load_options_init(&o);
		o.reader = "io_uring";
		o.staging_count = 2;
		o.staging_bytes = c[i].c;
		struct lsc_extent e = {.path = path, .length = UINT64_MAX};
		lsc_profiler *p = lsct_profiler_fresh(&cap);
		lsc_arena *a = NULL;
		cr_assert_eq(lsc_load(p, &o, &e, 1, 0, &a), 0, "%s", cap.buf);
		lsc_arena_destroy(a);
		lsc_profiler_destroy(p);
		loaded_field("staging", c[i].want);
	}
}
