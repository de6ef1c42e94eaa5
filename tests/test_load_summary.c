/*
 * Description: the `complement ready` line's numbers (src/loader/summary.c)
 * against what the test made happen, not against the loader's own fields:
 * the vmstat counters are deltas over the load (the test rewrites a vmstat
 * file of its own while the load runs, so every delta is known), a counter
 * read at one end only is left out, and the allocate time includes the
 * prefault (which the syscall shim makes take at least 30 ms by
 * construction), as the `loaded` line's does.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "helpers/load_helpers.h"
#include "sys/sys.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define PREFAULT_NS 30000000ull /* the least time the shim's prefault takes */

static struct lsct_capture cap;
static char root[] = "/tmp/lsc-summary-XXXXXX";
static char vmstat_path[64];
static int populates;

static void write_vmstat(const char *text)
{
	FILE *f = fopen(vmstat_path, "w");
	cr_assert_not_null(f);
	cr_assert(fputs(text, f) >= 0);
	fclose(f);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The prefault's madvise: the real call, then the counters of a load that
 * faulted, then a wait on the clock (not for another thread: it only gives
 * the prefault a duration no rounding can lose). */
static int f_madvise(void *addr, size_t len, int advice)
{
	int ret = madvise(addr, len, advice);
	if (advice != MADV_POPULATE_WRITE)
		return ret;
	if (populates++ == 0)
		write_vmstat("nr_free_pages 1500\npgfault 14345\ncompact_stall 7\nthp_fault_alloc 4\n");
	uint64_t t0 = mono_ns();
	while (mono_ns() - t0 < PREFAULT_NS)
		;
	return ret;
}

static struct lsc__sys shim;

static void setup(void)
{
	cr_assert_not_null(mkdtemp(root));
	snprintf(vmstat_path, sizeof(vmstat_path), "%s/vmstat", root);
	/* thp_fault_alloc is absent at the start; pgscan_direct at the end */
	write_vmstat("nr_free_pages 2000\npgfault 2000\ncompact_stall 7\npgscan_direct 99\n");
	shim = lsc__sys_default;
	shim.madvise = f_madvise;
	lsc__sys_set(&shim);
}

static void teardown(void)
{
	lsc__sys_set(NULL);
	lsct_capture_reset(&cap);
	unlink(vmstat_path);
	rmdir(root);
}

TestSuite(load_summary, .init = setup, .fini = teardown);

static double f64(const struct lsc__parsed *pl, const char *key)
{
	double d;
	cr_assert_eq(lsc__parsed_f64(pl, key, &d), 0, "%s: %s", key, lsc__parsed_get(pl, key));
	return d;
}

Test(load_summary, complement_vmstat_deltas_and_allocate_with_prefault)
{
	char *path = strdup(lsct_make_file("s.bin", 4u << 20, 7));
	struct lsc_profiler_options po;
	lsc_profiler_options_init(&po);
	po.sink = lsct_sink;
	po.sink_user = &cap;
	po.mode = LSC_MODE_ON;
	po.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
	po.proc_root = root;
	lsc_profiler *p;
	cr_assert_eq(lsc_profiler_create(&po, &p), 0);

	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.thp = LSC_THP_4K;
	o.prefault_threads = 1;
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	cr_assert_geq(populates, 1, "the prefault never called madvise(MADV_POPULATE_WRITE)");

	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "complement", 0, buf, sizeof(buf), &pl), "no complement line");
	/* Deltas: pgfault 2000 -> 14345, nr_free_pages 2000 -> 1500;
	 * compact_stall did not move; thp_fault_alloc and pgscan_direct were
	 * read at one end only. */
	cr_assert_str_eq(lsc__parsed_get(&pl, "vm_pgfault"), "12345", "%s", pl.human);
	cr_assert_str_eq(lsc__parsed_get(&pl, "vm_nr_free_pages"), "-500", "%s", pl.human);
	cr_assert_null(lsc__parsed_get(&pl, "vm_compact_stall"), "%s", pl.human);
	cr_assert_null(lsc__parsed_get(&pl, "vm_thp_fault_alloc"), "%s", pl.human);
	cr_assert_null(lsc__parsed_get(&pl, "vm_pgscan_direct"), "%s", pl.human);
	/* the phase lines say the counters: the summary's sentence does not
	 * say them again (its fields do) */
	cr_assert_null(strstr(pl.human, "pgfault"), "%s", pl.human);

	/* The allocate time is the mapping and the prefault together: at least
	 * the prefault's 30 ms, the same figure as the loaded line's, and the
	 * one the sentence gives. */
	double alloc_s = f64(&pl, "alloc_s"), prefault_s = f64(&pl, "prefault_s");
	cr_assert_geq(prefault_s, PREFAULT_NS / 1e9, "prefault_s %.3f", prefault_s);
	cr_assert_geq(alloc_s, prefault_s, "alloc_s %.3f < prefault_s %.3f", alloc_s, prefault_s);
	char want[64];
	snprintf(want, sizeof(want), "(alloc %.3f s, ", alloc_s);
	cr_assert(strstr(pl.human, want) != NULL, "want %s in: %s", want, pl.human);
	cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof(buf), &pl), "no loaded line");
	cr_assert_float_eq(f64(&pl, "alloc_s"), alloc_s, 1e-9, "loaded alloc_s %s",
			   lsc__parsed_get(&pl, "alloc_s"));

	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	free(path);
}
