/*
 * Description: a load's results as data. The fallbacks an engine reads
 * from lsc_load_result are the `fallback` lines, one for one and in order
 * (an O_DIRECT refused at open, through the syscall shim); a failed load
 * names its step, file, offset and cause, with the profiler on or off;
 * lsc_load_stats.alloc_ns is the `allocate` figure of the lines, prefault
 * included; and a start's phase table and unattributed time are readable
 * with lsc_start_table_read once it ends.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/load_helpers.h"
#include "helpers/sys_shim.h"

static struct lsct_capture cap;

static void setup(void)
{
	lsct_sys_install(NULL);
}

static void teardown(void)
{
	lsct_sys_restore();
	lsct_capture_reset(&cap);
}

TestSuite(results, .init = setup, .fini = teardown);

Test(results, fallbacks_are_the_fallback_lines)
{
	char *path = strdup(lsct_make_file("res.bin", 1u << 20, 3));
	lsct_sys_install(&(struct lsct_sys_plan){.direct = LSCT_DIRECT_NO_OPEN});
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.flags = LSC_LOAD_DIRECT;
	struct lsc_load_result res;
	memset(&res, 0xFF, sizeof(res)); /* the load zeroes it */
	o.result = &res;
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, &o, &e, 1, 0, &a), 0);
	cr_assert_eq(res.err, 0);
	cr_assert_str_eq(res.err_what, "");
	cr_assert_eq(res.bytes_done, 1u << 20);
	cr_assert_eq(res.bytes_total, 1u << 20);
	unsigned lines = lsct_count(&cap, "fallback");
	cr_assert_geq(lines, 1);
	cr_assert_eq(res.n_fallbacks, lines);
	cr_assert_eq(res.fallbacks_seen, lines);
	int direct = 0;
	for (unsigned k = 0; k < lines; k++) {
		char buf[LSC__LINE_MAX + 1];
		struct lsc__parsed pl;
		cr_assert(lsct_find(&cap, "fallback", k, buf, sizeof(buf), &pl));
		cr_assert_str_eq(res.fallbacks[k].what, lsc__parsed_get(&pl, "what"));
		cr_assert_str_eq(res.fallbacks[k].wanted, lsc__parsed_get(&pl, "wanted"));
		cr_assert_str_eq(res.fallbacks[k].took, lsc__parsed_get(&pl, "took"));
		cr_assert_str_eq(res.fallbacks[k].reason, lsc__parsed_get(&pl, "reason"));
		direct += !strcmp(res.fallbacks[k].what, "direct");
	}
	cr_assert_eq(direct, 1);
	for (unsigned k = 0; k < res.n_fallbacks; k++)
		if (!strcmp(res.fallbacks[k].what, "direct")) {
			cr_assert_str_eq(res.fallbacks[k].wanted, "O_DIRECT");
			cr_assert_str_eq(res.fallbacks[k].took, "buffered");
		}
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	free(path);
}

static void expect_failure(lsc_profiler *p)
{
	char *path = strdup(lsct_make_file("res_short.bin", 4096, 4));
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	struct lsc_load_result res;
	o.result = &res;
	struct lsc_extent e = {.path = path, .file_offset = 8192, .length = 100};
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, &o, &e, 1, 0, &a), LSC_E_SHORT);
	cr_assert_eq(res.err, LSC_E_SHORT);
	cr_assert_str_eq(res.err_what, "manifest");
	cr_assert_str_eq(res.err_path, path);
	cr_assert_eq(res.err_offset, 8192);
	cr_assert_str_eq(res.err_cause, "extent 0 starts past the end of the file (4096 bytes)");
	cr_assert_eq(res.n_fallbacks, 0);

	char missing[512];
	snprintf(missing, sizeof(missing), "%s/res-missing", lsct_tmpdir());
	e = (struct lsc_extent){.path = missing, .length = UINT64_MAX};
	cr_assert_eq(lsc_load(p, &o, &e, 1, 0, &a), -ENOENT);
	cr_assert_eq(res.err, -ENOENT);
	cr_assert_str_eq(res.err_what, "open");
	cr_assert_str_eq(res.err_path, missing);
	cr_assert_eq(res.err_offset, 0);
	cr_assert_str_eq(res.err_cause, "cannot open the file");
	free(path);
}

Test(results, a_failure_names_step_file_offset_and_cause)
{
	lsc_profiler *p = lsct_profiler(&cap);
	expect_failure(p);
	cr_assert_eq(lsct_count(&cap, "error"), 2);
	lsc_profiler_destroy(p);
}

Test(results, the_failure_is_data_with_the_profiler_off)
{
	expect_failure(NULL);
}

/* The stats' alloc_ns is the lines' `allocate` figure (alloc_s of both
 * summaries, to the millisecond they print), the prefault included. */
Test(results, alloc_ns_includes_the_prefault_as_the_lines_do)
{
	char *path = strdup(lsct_make_file("res_alloc.bin", 4096, 5));
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	/* A 256 MiB arena: its prefault takes milliseconds, the mmap microseconds. */
	cr_assert_eq(lsc_load(p, NULL, &e, 1, 256u << 20, &a), 0);
	struct lsc_load_stats st;
	cr_assert_eq(lsc_arena_stats(a, &st), 0);
	cr_assert_gt(st.prefault_ns, 0);
	cr_assert_geq(st.alloc_ns, st.prefault_ns, "alloc_ns %llu leaves out the prefault %llu",
		      (unsigned long long)st.alloc_ns, (unsigned long long)st.prefault_ns);
	char want[32], v[64];
	snprintf(want, sizeof(want), "%.3f", (double)st.alloc_ns / 1e9);
	cr_assert(lsct_field(&cap, "loaded", "alloc_s", v, sizeof(v)));
	cr_assert_str_eq(v, want);
	cr_assert(lsct_field(&cap, "complement", "alloc_s", v, sizeof(v)));
	cr_assert_str_eq(v, want);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	free(path);
}

Test(results, the_phase_table_of_a_start)
{
	lsc_profiler *p = lsct_profiler(&cap);
	struct lsc_start_table t;
	cr_assert_eq(lsc_start_table_read(p, &t), -ENOENT);
	cr_assert_eq(lsc_start_table_read(NULL, &t), -ENOENT);
	cr_assert_eq(lsc_start_table_read(p, NULL), -EINVAL);
	cr_assert_eq(lsc_start_begin(p, "table"), 0);
	lsc_span s;
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(lsc_span_begin(p, LSC_PHASE_CUSTOM, "tokenizer", 1000, &s), 0);
		cr_assert_eq(lsc_span_end(p, s, NULL), 0);
	}
	cr_assert_eq(lsc_phase_record(p, LSC_PHASE_COPY, NULL, 4096, 2500000), 0);
	cr_assert_eq(lsc_start_table_read(p, &t), -EAGAIN);
	cr_assert_eq(t.ended, 0);
	cr_assert_eq(t.n_rows, 2);
	cr_assert_eq(lsc_start_end(p), 0);
	cr_assert_eq(lsc_start_table_read(p, &t), 0);
	cr_assert_eq(t.ended, 1);
	cr_assert_eq(t.phases, 3);
	cr_assert_eq(t.n_rows, 2);
	cr_assert_eq(t.rows_dropped, 0);
	cr_assert_str_eq(t.rows[0].name, "tokenizer");
	cr_assert_eq(t.rows[0].kind, LSC_PHASE_CUSTOM);
	cr_assert_eq(t.rows[0].count, 2);
	cr_assert_eq(t.rows[0].bytes, 2000);
	cr_assert_eq(t.rows[0].overlapped, 0);
	cr_assert_str_eq(t.rows[1].name, "copy");
	cr_assert_eq(t.rows[1].kind, LSC_PHASE_COPY);
	cr_assert_eq(t.rows[1].count, 1);
	cr_assert_eq(t.rows[1].bytes, 4096);
	cr_assert_eq(t.rows[1].wall_ns, 2500000);
	cr_assert_eq(t.rows[1].overlapped, 1);
	cr_assert_eq(t.unattributed_ns, t.wall_ns - t.covered_ns);
	/* The `ready` line's figures, to the microsecond it prints. */
	char want[32], v[64];
	snprintf(want, sizeof(want), "%.6f", (double)t.unattributed_ns / 1e9);
	cr_assert(lsct_field(&cap, "ready", "unattributed_s", v, sizeof(v)));
	cr_assert_str_eq(v, want);
	snprintf(want, sizeof(want), "%.6f", (double)t.wall_ns / 1e9);
	cr_assert(lsct_field(&cap, "ready", "wall_s", v, sizeof(v)));
	cr_assert_str_eq(v, want);
	cr_assert(lsct_field(&cap, "ready", "phases", v, sizeof(v)));
	cr_assert_str_eq(v, "3");
	lsc_profiler_destroy(p);
}
