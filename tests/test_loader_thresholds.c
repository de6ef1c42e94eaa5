/*
 * Description: every documented threshold of the loader's policies on both
 * sides, table-driven. Each row names the sentence of docs/loader.md that
 * states it (the test fails when the page no longer says so, so the page
 * and the rows move together) and runs the policy just below and just
 * above the number:
 * - the memory guard (src/loader/mem_guard.c): an arena of exactly
 *   MemAvailable less the reserve loads, one byte more is refused, with
 *   the reserve MemTotal / 32 held to 512 MiB .. 8 GiB, at and around both
 *   ends of that range (a /proc root written here with its meminfo);
 * - `auto`'s split (src/loader/thp_auto.c): free 2 MiB blocks holding the
 *   arena give huge pages for all of it, 2 MiB fewer give the split; a
 *   huge part of 64 MiB is kept, 62 MiB is all 4 KiB pages;
 * - `auto`'s stall rules (src/loader/prefault_adaptive.c), through the
 *   readings source a test sets: compact_fail rising by 7 in a step does not
 *   switch, by 8 does; a step at exactly 1/4 of the first steps' rate while
 *   compacting does not, a nanosecond slower does; a slow step stalled on
 *   memory for 10 % of it switches, 1 us less does not. The clock values
 *   are binary fractions of a second, so the rates are exact.
 * - the load's limits (docs/reliability.md): a queue depth or a count of
 *   staging buffers of 4096 loads, 4097 is refused with -EINVAL and one
 *   `error what=options` line, and as data (lsc_load_result) with no file
 *   and offset 0.
 * (The readers' EAGAIN limits and the pin tries are on both sides in
 * test_load_fault_orders.c, the GPU tries in test_pin_gpu.c.)
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "helpers/capture.h"
#include "helpers/load_helpers.h"
#include "loader/arena_int.h"
#include "loader/load_state.h"

#define MIB (1ull << 20)
#define GIB (1ull << 30)

static struct lsct_capture cap;
static char doc[1 << 17];

/* The page's text with each run of spaces and line breaks as one space, so
 * a sentence may wrap. */
static const char *loader_md(void)
{
	if (doc[0])
		return doc;
	FILE *f = fopen(LSC_TEST_FIXTURES "/../../docs/loader.md", "r");
	cr_assert_not_null(f);
	size_t n = fread(doc, 1, sizeof(doc) - 1, f);
	fclose(f);
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char c = doc[i] == '\n' || doc[i] == '\t' ? ' ' : doc[i];
		if (c != ' ' || (o && doc[o - 1] != ' '))
			doc[o++] = c;
	}
	doc[o] = 0;
	return doc;
}

static void documented(const char *phrase)
{
	cr_assert(strstr(loader_md(), phrase), "docs/loader.md no longer says \"%s\"", phrase);
}

/* The same for docs/reliability.md, whose table gives the load's limits. */
static void documented_limit(const char *phrase)
{
	static char rel[1 << 17];
	FILE *f = fopen(LSC_TEST_FIXTURES "/../../docs/reliability.md", "r");
	cr_assert_not_null(f);
	size_t n = fread(rel, 1, sizeof(rel) - 1, f);
	fclose(f);
	rel[n] = 0;
	cr_assert(strstr(rel, phrase), "docs/reliability.md no longer says \"%s\"", phrase);
}

static void fini(void)
{
	lsc__adapt_set_source(NULL);
	lsct_capture_reset(&cap);
}

TestSuite(loader_thresholds, .fini = fini);

/* ---- the memory guard --------------------------------------------------- */

static int guard(uint64_t total_kib, uint64_t avail_kib, uint64_t bytes)
{
	char dir[600], path[700];
	snprintf(dir, sizeof(dir), "%s/proc-guard", lsct_tmpdir());
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/meminfo", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "MemTotal:       %llu kB\nMemFree:        %llu kB\nMemAvailable:   %llu kB\n",
		(unsigned long long)total_kib, (unsigned long long)avail_kib,
		(unsigned long long)avail_kib);
	fclose(f);
	struct lsc_profiler_options po;
	lsc_profiler_options_init(&po);
	po.sink = lsct_sink;
	po.sink_user = &cap;
	po.mode = LSC_MODE_ON;
	po.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
	po.proc_root = dir;
	lsc_profiler *p = NULL;
	cr_assert_eq(lsc_profiler_create(&po, &p), 0);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.thp = LSC_THP_4K;
	int ret = lsc__arena_mem_guard(p, &o, bytes);
	lsc_profiler_destroy(p);
	lsct_capture_reset(&cap);
	return ret;
}

Test(loader_thresholds, memory_guard_reserve_on_both_sides)
{
	documented("MemAvailable less a reserve (MemTotal / 32, 512 MiB to 8 GiB");
	static const struct {
		uint64_t total_mib, reserve_mib;
	} rows[] = {
		{8 * 1024, 512},             /* 256 MiB by the ratio: the floor */
		{16 * 1024 - 32, 512},       /* 511 MiB: the floor */
		{16 * 1024, 512},            /* exactly the floor */
		{16 * 1024 + 32, 513},       /* just over it */
		{64 * 1024, 2048},
		{256 * 1024 - 32, 8191},     /* just under the ceiling */
		{256 * 1024, 8192},          /* exactly the ceiling */
		{256 * 1024 + 32, 8192},     /* over it: the ceiling */
		{1024 * 1024, 8192},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint64_t avail = rows[i].total_mib / 2 * MIB;
		uint64_t room = avail - rows[i].reserve_mib * MIB;
		cr_assert_eq(guard(rows[i].total_mib * 1024, avail >> 10, room), 0,
			     "MemTotal %llu MiB: an arena of MemAvailable less %llu MiB refused",
			     (unsigned long long)rows[i].total_mib, (unsigned long long)rows[i].reserve_mib);
		cr_assert_eq(guard(rows[i].total_mib * 1024, avail >> 10, room + 1), -ENOMEM,
			     "MemTotal %llu MiB: one byte over MemAvailable less %llu MiB let through",
			     (unsigned long long)rows[i].total_mib, (unsigned long long)rows[i].reserve_mib);
	}
}

/* ---- auto's split ----------------------------------------------------------- */

static struct lsc__thp_decision decide(int64_t free_blocks, uint64_t bytes)
{
	struct lsc_system s;
	memset(&s, 0, sizeof s);
	snprintf(s.kernel, sizeof s.kernel, "6.18.0");
	snprintf(s.thp_enabled, sizeof s.thp_enabled, "madvise");
	snprintf(s.thp_defrag, sizeof s.thp_defrag, "madvise");
	snprintf(s.proc_thp_enabled, sizeof s.proc_thp_enabled, "1");
	s.khugepaged_defrag = 1;
	s.khugepaged_max_ptes_none = 511;
	s.hpage_pmd_size = 2 << 20;
	s.hugetlb_page_kib = 2048;
	s.memlock_cur = s.memlock_max = 8 << 20;
	s.mem_total = 64 * (int64_t)GIB;
	s.mem_available = 48 * (int64_t)GIB;
	s.free_huge_blocks_bytes = free_blocks;
	s.numa_nodes = 1;
	struct lsc__thp_decision d;
	cr_assert_eq(lsc__thp_auto(&s, bytes, NULL, &d), 0);
	return d;
}

Test(loader_thresholds, auto_split_on_both_sides)
{
	documented("free 2 MiB blocks >= the arena | huge pages for all of it, watched");
	struct lsc__thp_decision d = decide(8 * (int64_t)GIB, 8 * GIB);
	cr_assert_eq(d.policy, LSC_THP_THP, "%s", d.reason);
	cr_assert_eq(d.huge_bytes, 8 * GIB, "free blocks that hold the arena: all huge (%s)", d.reason);
	d = decide(8 * (int64_t)GIB - 2 * (int64_t)MIB, 8 * GIB);
	uint64_t F = 8 * GIB - 2 * MIB, want = (F - F / 16) / (2 * MIB) * (2 * MIB);
	cr_assert_eq(d.huge_bytes, want, "2 MiB short: F - F/16 = %llu, got %llu (%s)",
		     (unsigned long long)want, (unsigned long long)d.huge_bytes, d.reason);

	documented("F - F/16 bytes (F: free memory in 2 MiB blocks, rounded down to 2 MiB)");
	documented("all 4 KiB pages when that part is under 64 MiB");
	/* F = 68 MiB: 68 - 4.25 = 63.75, down to 62 MiB: under 64, all 4 KiB;
	 * F = 70 MiB: 70 - 4.375 = 65.6, down to 64 MiB: kept. */
	d = decide(68 * (int64_t)MIB, 8 * GIB);
	cr_assert_eq(d.policy, LSC_THP_4K, "62 MiB of huge pages kept: %s", d.reason);
	cr_assert_eq(d.huge_bytes, 0);
	d = decide(70 * (int64_t)MIB, 8 * GIB);
	cr_assert_eq(d.policy, LSC_THP_THP, "%s", d.reason);
	cr_assert_eq(d.huge_bytes, 64 * MIB);
}

/* ---- auto's stall rules ------------------------------------------------------ */

#define T0 1000000000ull
#define FAST 15625000ull /* 1/64 s: 32 MiB at 2 GiB/s */

static struct {
	struct lsc__adapt_reading r[8];
	unsigned at;
} rd;

static int next_reading(void *user, struct lsc__adapt_reading *out)
{
	(void)user;
	if (rd.at >= 8)
		return -ENODATA;
	*out = rd.r[rd.at++];
	return 0;
}

/* 128 MiB all asked for huge pages: four steps of 32 MiB, the first two at
 * 2 GiB/s; the third takes @ns with @stall, @fail and @psi_us added. */
static int third_step_switches(uint64_t ns, int64_t stall, int64_t fail, int64_t psi_us)
{
	memset(&rd, 0, sizeof(rd));
	uint64_t t = T0;
	for (int i = 0; i < 8; i++) {
		rd.r[i] = (struct lsc__adapt_reading){.ns = t, .compact_stall = 100, .compact_fail = 50,
						      .psi_some_us = 1000};
		if (i >= 3) {
			rd.r[i].compact_stall += stall;
			rd.r[i].compact_fail += fail;
			rd.r[i].psi_some_us += psi_us;
		}
		t += i == 2 ? ns : FAST;
	}
	static const struct lsc__adapt_source src = {.next = next_reading};
	lsc__adapt_set_source(&src);
	uint64_t bytes = 128 * MIB;
	void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(m, MAP_FAILED);
	madvise(m, bytes, MADV_HUGEPAGE);
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	struct lsc__prefault_result r;
	struct lsc__adapt_result ar;
	cr_assert_eq(lsc__prefault_adaptive(p, NULL, 0, m, bytes, bytes, 0, 1, -1, &r, &ar), 0, "%s",
		     cap.buf);
	lsc_profiler_destroy(p);
	munmap(m, bytes);
	lsc__adapt_set_source(NULL);
	lsct_capture_reset(&cap);
	if (ar.switched)
		cr_assert_eq(ar.switch_at, 96 * MIB, "switched at %llu, not after the third step",
			     (unsigned long long)ar.switch_at);
	return ar.switched;
}

Test(loader_thresholds, auto_stall_rules_on_both_sides)
{
	documented("steps of 1/16 of it (32 to 256 MiB)");
	cr_assert_eq(third_step_switches(FAST, 0, 0, 0), 0, "a clean run switched");

	documented("`compact_fail` rose by 8 or more in it");
	cr_assert_eq(third_step_switches(FAST, 7, 7, 0), 0, "compact_fail +7 switched");
	cr_assert_eq(third_step_switches(FAST, 8, 8, 0), 1, "compact_fail +8 did not switch");

	documented("its rate fell under 1/4 of the best of the first two steps *while* compacting");
	cr_assert_eq(third_step_switches(4 * FAST, 1, 0, 0), 0, "exactly 1/4 of the rate switched");
	cr_assert_eq(third_step_switches(4 * FAST + 1, 1, 0, 0), 1, "under 1/4 while compacting kept");
	cr_assert_eq(third_step_switches(8 * FAST, 0, 0, 0), 0, "slow without a stall switched");

	documented("with some task stalled on memory for 10 % of the step");
	/* A step of 64 ms, under 1/4 of the rate: 6400 us is 10 % of it. */
	cr_assert_eq(third_step_switches(64000000, 0, 0, 6400), 1, "10 %% stalled did not switch");
	cr_assert_eq(third_step_switches(64000000, 0, 0, 6399), 0, "under 10 %% stalled switched");
}

/* ---- the load's limits ------------------------------------------------------------- */

static struct lsc_load_result res;

static int load_with(unsigned qd, unsigned k, const char *path)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.queue_depth = qd;
	o.staging_count = k;
	o.staging_bytes = k ? 4096 : 0;
	o.result = &res;
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	return ret;
}

Test(loader_thresholds, queue_depth_and_staging_count_on_both_sides)
{
	documented_limit("K ≤ 4096, C ≤ 1 GiB, queue depth ≤ 4096");
	char *path = strdup(lsct_make_file("limits.bin", 100000, 41));
	static const struct {
		unsigned qd, k;
		int ok;
	} rows[] = {{4096, 0, 1}, {4097, 0, 0}, {0, 4096, 1}, {0, 4097, 0}};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int ret = load_with(rows[i].qd, rows[i].k, path);
		if (rows[i].ok) {
			cr_assert_eq(ret, 0, "queue depth %u, %u buffers: %s", rows[i].qd, rows[i].k, cap.buf);
			lsct_capture_reset(&cap);
			continue;
		}
		cr_assert_eq(ret, -EINVAL, "queue depth %u, %u buffers: %d", rows[i].qd, rows[i].k, ret);
		cr_assert_eq(lsct_count(&cap, "error"), 1, "%s", cap.buf);
		char buf[LSC__LINE_MAX + 1];
		struct lsc__parsed pl;
		cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
		cr_assert_str_eq(lsc__parsed_get(&pl, "what"), "options");
		cr_assert_null(lsc__parsed_get(&pl, "offset"), "an offset without a file");
		/* and as data: the step, no file, offset 0 */
		cr_assert_eq(res.err, -EINVAL);
		cr_assert_str_eq(res.err_what, "options");
		cr_assert_str_eq(res.err_path, "");
		cr_assert_eq(res.err_offset, 0);
		lsct_capture_reset(&cap);
	}
	free(path);
}
