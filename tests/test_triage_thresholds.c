/*
 * Description: one threshold of a triage rule (tools/triage/rule_*.c) or
 * recogniser at a time, on both sides of its edge, each found by a mutation
 * the suite let through because the near misses of test_triage_rules.c
 * change several inputs at once (scripts/mutate.sh, docs/testing.md). The
 * edges are the documented ones (docs/triage.md): swap-during-load warns
 * from 1024 pages swapped and fails from 262144 (1 GiB); hugetlb-pool-short
 * needs more pages than the pool holds; rate-hides-wall-time needs a wall
 * time of at least 3x what the rate implies and 20 s more; io-uring-
 * unavailable is only info when the fallback still read at 1.5 GiB/s or
 * more; alloc-dominates calls an allocation slow for its size from 16 GiB
 * at under 2 GiB/s for 60 s; memlock-limit needs a pin over the limit (equal
 * fits). And the loadscope recogniser adds up phases
 * of one kind, and spans of one name in one row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "triage/internal.h"
#include "triage/triage.h"
#include "helpers/triage_run.h"

static int sev(const char *log, const char *id)
{
	struct lsc_triage *t = trun_text(log);
	cr_assert_not_null(t);
	int s = trun_sev_of(t, id);
	lsc_triage_free(t);
	return s;
}

Test(triage_thresholds, swap_warns_from_1024_pages)
{
	cr_assert_eq(sev("vmstat: pswpin +1024 pswpout +0\n", "swap-during-load"), LSC_TRIAGE_WARN);
	cr_assert_eq(sev("vmstat: pswpin +1023 pswpout +0\n", "swap-during-load"), -1);
}

Test(triage_thresholds, swap_fails_from_one_gib)
{
	cr_assert_eq(sev("vmstat: pswpin +262144 pswpout +0\n", "swap-during-load"), LSC_TRIAGE_FAIL);
	cr_assert_eq(sev("vmstat: pswpin +262143 pswpout +0\n", "swap-during-load"), LSC_TRIAGE_WARN);
}

#define NOTE(pool) "strata generate: expert arena: cudaHostRegister PORTABLE ok; MAP_HUGETLB unavailable (needed " \
		   "20464 2 MiB pages, vm.nr_hugepages=" pool "); transparent huge pages requested (MADV_HUGEPAGE)\n"

Test(triage_thresholds, hugetlb_short_only_when_the_pool_is_smaller)
{
	cr_assert_neq(sev(NOTE("20463"), "hugetlb-pool-short"), -1);
	cr_assert_eq(sev(NOTE("20464"), "hugetlb-pool-short"), -1);
}

/* 40 GiB at 2 GiB/s implies 20 s: 60 s is 3x and 40 s more; 59 s is not 3x
 * (though 39 s more). */
Test(triage_thresholds, rate_hides_wall_time_from_three_times)
{
	cr_assert_eq(sev("strata generate: loaded 40.00 GiB at 2.00 GiB/s\n[strata] ready in 60 s\n",
			 "rate-hides-wall-time"), LSC_TRIAGE_WARN);
	cr_assert_eq(sev("strata generate: loaded 40.00 GiB at 2.00 GiB/s\n[strata] ready in 59 s\n",
			 "rate-hides-wall-time"), -1);
}

#define URING(read_s, rate) "[loadscope/1] start e | run=00000001\n" \
	"[loadscope/1] fallback reader | run=00000001 what=reader wanted=io_uring took=pread reason=EPERM\n" \
	"[loadscope/1] loaded x | run=00000001 bytes=16106127360 wall_s=11.000 read_s=" read_s \
	" read_gibps=" rate "\n"

/* A warning only for a read under 1.5 GiB/s that lasts 10 s or more: each
 * edge moved alone. */
Test(triage_thresholds, io_uring_fallback_is_info_when_still_fast)
{
	cr_assert_eq(sev(URING("10.000", "1.50"), "io-uring-unavailable"), LSC_TRIAGE_INFO);
	cr_assert_eq(sev(URING("10.000", "1.49"), "io-uring-unavailable"), LSC_TRIAGE_WARN);
	cr_assert_eq(sev(URING("9.990", "1.49"), "io-uring-unavailable"), LSC_TRIAGE_INFO);
}

Test(triage_thresholds, phases_of_one_kind_add_up)
{
	struct lsc_triage *t = trun_text("[loadscope/1] start s | run=aa000001\n"
					 "[loadscope/1] phase pin | run=aa000001 kind=pin wall_s=1.5\n"
					 "[loadscope/1] phase pin | run=aa000001 kind=pin wall_s=2.25\n"
					 "[loadscope/1] ready in 9 s | run=aa000001 wall_s=9.0\n");
	cr_assert_not_null(t);
	cr_assert_eq(lsc_triage_nstarts(t), 1);
	cr_assert_float_eq(t->sums[0].ph[TR_K_PIN], 3.75, 1e-9);
	lsc_triage_free(t);
}

/* `ulimit -a` prints kbytes: 8192 of them are 8.00 MiB. */
Test(triage_thresholds, ulimit_memlock_is_in_kib)
{
	struct lsc_triage *t = trun_text("max locked memory       (kbytes, -l) 8192\n"
					 "warning: failed to mlock 1417339904-byte buffer (after previously "
					 "locking 0 bytes): Cannot allocate memory\n");
	cr_assert_not_null(t);
	char *out = trun_render(t, LSC_TRIAGE_TEXT, NULL);
	cr_assert_not_null(out, "the text rendering failed");
	cr_assert(strstr(out, "limit 8.00 MiB"), "%s", out);
	free(out);
	lsc_triage_free(t);
}

/* A start that loaded but never said ready was cut (stage 3 of 4). */
Test(triage_thresholds, loaded_without_ready_is_truncated)
{
	cr_assert_neq(sev("[loadscope/1] start e | run=0000000b\n"
			  "[loadscope/1] loaded x | run=0000000b bytes=1073741824 wall_s=1.000\n",
			  "log-truncated"), -1);
}

/* The table's allocate time without an alloc_s is the complement less the
 * copy: 300 - 14 = 286 s. */
Test(triage_thresholds, table_alloc_is_total_less_copy)
{
	const char *log = "[loadscope/1] start e | run=0000000c\n"
			  "[loadscope/1] complement ready | run=0000000c wall_s=300.0 copy_s=14.0 bytes=30569431040\n"
			  "[loadscope/1] ready | run=0000000c wall_s=370.0\n";
	struct lsc_triage_opts o = {.flags = LSC_TRIAGE_TABLE};
	struct lsc_triage *t = lsc_triage_new(&o);
	cr_assert_not_null(t);
	lsc_triage_feed(t, log, strlen(log));
	lsc_triage_finish(t);
	cr_assert_eq(t->nrows, 1);
	cr_assert_float_eq(t->rows[0].alloc, 286.0, 1e-9);
	lsc_triage_free(t);
}

/* disk-bound-read: a read of 20 s or more, slower than 1 GiB/s, whose bytes
 * came by major faults (here all of them: majflt * 4096 == bytes). */
#define READ_PHASE(bytes, wall, majflt) "[loadscope/1] start e | run=0000000d\n" \
	"[loadscope/1] phase read | run=0000000d kind=read bytes=" bytes " wall_s=" wall " majflt=" majflt "\n"

Test(triage_thresholds, disk_bound_read_from_20_s)
{
	/* 15 GiB in 20 s = 0.75 GiB/s */
	cr_assert_eq(sev(READ_PHASE("16106127360", "20.0", "3932160"), "disk-bound-read"), LSC_TRIAGE_WARN);
	/* 11.25 GiB in 15 s: the same rate, too short to matter */
	cr_assert_eq(sev(READ_PHASE("12079595520", "15.0", "2949120"), "disk-bound-read"), -1);
}

Test(triage_thresholds, disk_bound_read_below_1_gibps)
{
	/* 30 GiB in 20 s = 1.5 GiB/s: not slow */
	cr_assert_eq(sev(READ_PHASE("32212254720", "20.0", "7864320"), "disk-bound-read"), -1);
}

/* alloc-dominates: allocation of 20 s or more and 3x the reads. */
#define ALLOC_READ(alloc, read) "[loadscope/1] start e | run=0000000e\n" \
	"[loadscope/1] phase allocate | run=0000000e kind=allocate wall_s=" alloc "\n" \
	"[loadscope/1] phase read | run=0000000e kind=read wall_s=" read "\n"

Test(triage_thresholds, alloc_dominates_from_three_times_the_reads)
{
	cr_assert_eq(sev(ALLOC_READ("36.0", "12.0"), "alloc-dominates"), LSC_TRIAGE_WARN);
	cr_assert_eq(sev(ALLOC_READ("30.0", "12.0"), "alloc-dominates"), -1);
}

/* host-refault blames the huge-page allocate when the read of the same
 * bytes ran at least 3x faster: 40 GiB allocated at 0.5 GiB/s, read at
 * 5 GiB/s (10x) fires; read at 1 GiB/s (2x) the machine is slow all over. */
#define REFAULT(read_s) "[loadscope/1] start e | run=0000000f\n" \
	"[loadscope/1] system k | run=0000000f thp_enabled=madvise thp_defrag=madvise page_reporting=1 " \
	"page_reporting_order=9\n" \
	"[loadscope/1] arena a | run=0000000f policy=thp requested=thp source=option\n" \
	"[loadscope/1] phase allocate | run=0000000f depth=0 kind=allocate bytes=42949672960 wall_s=80 " \
	"vm_thp_fault_alloc=20480\n" \
	"[loadscope/1] phase read | run=0000000f depth=0 kind=read bytes=42949672960 wall_s=" read_s " majflt=0\n" \
	"[loadscope/1] ready | run=0000000f wall_s=130\n"

Test(triage_thresholds, host_refault_needs_a_read_three_times_faster)
{
	cr_assert_neq(sev(REFAULT("8"), "host-refault"), -1);
	cr_assert_eq(sev(REFAULT("40"), "host-refault"), -1);
}

/* thp-direct-compaction's wall clause: compaction failing while the fill
 * itself was fast (4840 MB in 2 s), so only the wall time can say the start
 * was slow: 8 GiB at 2 GiB/s implies 4 s; 30 s is 3x and 26 s more, 15 s is
 * 3x but only 11 s more. */
#define THP_WALL(ready) "GPU 0: X, compute capability 12.0\n" \
	"strata generate: expert arena: cudaHostRegister PORTABLE ok; MAP_HUGETLB unavailable (needed " \
	"20464 2 MiB pages, vm.nr_hugepages=0); transparent huge pages requested (MADV_HUGEPAGE)\n" \
	"defrag = [madvise]\n" \
	"compact_stall +858, compact_fail +858, thp_fault_alloc +0, thp_fault_fallback +290, " \
	"allocstall_normal +286 (8 s window)\n" \
	"RSS deltas: +4840 MB in 2 s\n" \
	"strata generate: loaded 8.00 GiB at 2.00 GiB/s\n" \
	"[strata] ready in " ready " s\n"

Test(triage_thresholds, thp_compaction_wall_20_s_over_the_rate)
{
	cr_assert_eq(sev(THP_WALL("30"), "thp-direct-compaction"), LSC_TRIAGE_FAIL);
	cr_assert_neq(sev(THP_WALL("15"), "thp-direct-compaction"), LSC_TRIAGE_FAIL);
}

/* ... and its fill clause: with the wall time no slower than the rate says
 * (ready in 5 s), a fill below a quarter of the 2 GiB/s load rate fails
 * (484 MB in 2 s, about 0.23 GiB/s), one at about 0.75 GiB/s does not. */
#define THP_FILL(mb) "GPU 0: X, compute capability 12.0\n" \
	"strata generate: expert arena: cudaHostRegister PORTABLE ok; MAP_HUGETLB unavailable (needed " \
	"20464 2 MiB pages, vm.nr_hugepages=0); transparent huge pages requested (MADV_HUGEPAGE)\n" \
	"defrag = [madvise]\n" \
	"compact_stall +858, compact_fail +858, thp_fault_alloc +0, thp_fault_fallback +290, " \
	"allocstall_normal +286 (8 s window)\n" \
	"RSS deltas: +" mb " MB in 2 s\n" \
	"strata generate: loaded 8.00 GiB at 2.00 GiB/s\n" \
	"[strata] ready in 5 s\n"

Test(triage_thresholds, thp_compaction_fill_below_a_quarter)
{
	cr_assert_eq(sev(THP_FILL("484"), "thp-direct-compaction"), LSC_TRIAGE_FAIL);
	cr_assert_neq(sev(THP_FILL("1536"), "thp-direct-compaction"), LSC_TRIAGE_FAIL);
}

#define REFAULT_ALLOC(alloc_s) "[loadscope/1] start e | run=0000000c\n" \
	"[loadscope/1] system k | run=0000000c thp_enabled=madvise thp_defrag=madvise page_reporting=1\n" \
	"[loadscope/1] arena a | run=0000000c policy=thp requested=thp source=option\n" \
	"[loadscope/1] phase allocate | run=0000000c depth=0 kind=allocate bytes=42949672960 wall_s=" alloc_s \
	" vm_thp_fault_alloc=20480\n" \
	"[loadscope/1] phase read | run=0000000c depth=0 kind=read bytes=42949672960 wall_s=8 majflt=0\n" \
	"[loadscope/1] ready | run=0000000c wall_s=50\n"

/* host-refault's huge-page shape: populating under 1.0 GiB/s (the refault
 * ran at 0.4-0.91 GiB/s on the build VM). 40 GiB in 40 s is 1.00 GiB/s:
 * not it; in 40.4 s, 0.99 GiB/s: it. */
Test(triage_thresholds, host_refault_below_one_gib_per_second)
{
	cr_assert_eq(sev(REFAULT_ALLOC("40"), "host-refault"), -1);
	cr_assert_eq(sev(REFAULT_ALLOC("40.4"), "host-refault"), LSC_TRIAGE_FAIL);
}

/* ... and its 4 KiB shape: pages populated quickly, the first write into
 * them crawling, so the allocate must have run at least 1.5x the read's
 * rate: 48 GiB read in 96 s (0.5 GiB/s), allocated in 64 s (0.75 GiB/s,
 * exactly 1.5x) is it; allocated in 64.1 s (0.749 GiB/s) the machine is
 * about as slow at both. */
#define REFAULT_SMALL(alloc_s) "[loadscope/1] start e | run=0000000d\n" \
	"[loadscope/1] system k | run=0000000d thp_enabled=madvise thp_defrag=madvise page_reporting=1\n" \
	"[loadscope/1] arena a | run=0000000d policy=4k requested=4k source=option\n" \
	"[loadscope/1] phase allocate | run=0000000d depth=0 kind=allocate bytes=51539607552 wall_s=" alloc_s \
	" vm_thp_fault_alloc=0\n" \
	"[loadscope/1] phase read | run=0000000d depth=0 kind=read bytes=51539607552 wall_s=96 majflt=0\n" \
	"[loadscope/1] ready | run=0000000d wall_s=170\n"

Test(triage_thresholds, host_refault_4k_needs_the_allocate_1_5_times_the_read)
{
	cr_assert_neq(sev(REFAULT_SMALL("64"), "host-refault"), -1);
	cr_assert_eq(sev(REFAULT_SMALL("64.1"), "host-refault"), -1);
}

/* The probe's warning is a risk on its own, whatever line it is on: here
 * the first, the start's evidence number 0. */
Test(triage_thresholds, host_refault_from_the_probe_on_the_first_line)
{
	cr_assert_eq(sev("[loadscope/1] warn probe: this VM gives idle free memory back | run=0000000f "
			 "id=host-refault arena_bytes=2147483648 page_reporting=1 page_reporting_order=9\n",
			 "host-refault"),
		     LSC_TRIAGE_WARN);
}

/* A still line's counters are rates over 1 s: compaction failing at 5
 * stalls a second or more (90 % failing, faults falling back) during a
 * crawling fill is thp-direct-compaction, at 4 a second it is not (under
 * the 20 stalls that count whatever the window). */
#define STILL_RATES(cs, cf)                                                                                     \
	"[loadscope/1] start e | run=00000001\n"                                                                  \
	"[loadscope/1] system k | run=00000001 thp_enabled=always thp_defrag=always\n"                           \
	"[loadscope/1] arena x | run=00000001 policy=thp requested=thp source=option arena_bytes=85899345920\n"   \
	"[loadscope/1] still x | run=00000001 kind=allocate elapsed_s=100 done_bytes=10737418240 "              \
	"total_bytes=85899345920 gibps=0.10 compact_stall_per_s=" cs " compact_fail_per_s=" cf                  \
	" thp_fault_fallback_per_s=12\n"

Test(triage_thresholds, still_line_compaction_rates_per_second)
{
	cr_assert_eq(sev(STILL_RATES("5", "5"), "thp-direct-compaction"), LSC_TRIAGE_FAIL);
	cr_assert_eq(sev(STILL_RATES("10", "9"), "thp-direct-compaction"), LSC_TRIAGE_FAIL);
	cr_assert_neq(sev(STILL_RATES("4", "4"), "thp-direct-compaction"), LSC_TRIAGE_FAIL);
}

/* alloc-dominates with nothing else logged: an allocation slow for its
 * size, 16 GiB or more at under 2 GiB/s for 60 s or more (docs/triage.md);
 * each edge on both sides. */
#define ALLOC_ONLY(bytes, wall) "[loadscope/1] start e | run=00000010\n" \
	"[loadscope/1] phase allocate | run=00000010 depth=0 kind=allocate bytes=" bytes " wall_s=" wall "\n"

Test(triage_thresholds, alloc_slow_for_its_size_under_2_gibps)
{
	/* 128 GiB: 64 s is 2.00 GiB/s, 64.1 s just under */
	cr_assert_eq(sev(ALLOC_ONLY("137438953472", "64.0"), "alloc-dominates"), -1);
	cr_assert_neq(sev(ALLOC_ONLY("137438953472", "64.1"), "alloc-dominates"), -1);
	/* 16 GiB in 60 s fires; a byte under 16 GiB, or 59.9 s, does not */
	cr_assert_neq(sev(ALLOC_ONLY("17179869184", "60.0"), "alloc-dominates"), -1);
	cr_assert_eq(sev(ALLOC_ONLY("17179869183", "60.0"), "alloc-dominates"), -1);
	cr_assert_eq(sev(ALLOC_ONLY("17179869184", "59.9"), "alloc-dominates"), -1);
}

/* A span named twice (a phase per file) keeps one row, its first place,
 * and the sum of its times, whichever span it is: the first one here, then
 * one after it. */
Test(triage_thresholds, a_span_named_twice_is_one_row_with_the_sum)
{
	struct lsc_triage *t = trun_text(
		"[loadscope/2] start s | run=aa000002 t_s=0\n"
		"[loadscope/2] phase metadata | run=aa000002 t_s=1.5 kind=custom wall_s=1.5 depth=0 name=metadata\n"
		"[loadscope/2] phase index | run=aa000002 t_s=2.0 kind=custom wall_s=0.5 depth=0 name=index\n"
		"[loadscope/2] phase metadata | run=aa000002 t_s=4.25 kind=custom wall_s=2.25 depth=0 name=metadata\n"
		"[loadscope/2] phase index | run=aa000002 t_s=5.0 kind=custom wall_s=0.75 depth=0 name=index\n"
		"[loadscope/2] ready in 9 s | run=aa000002 t_s=9 wall_s=9.0\n");
	cr_assert_not_null(t);
	cr_assert_eq(lsc_triage_nstarts(t), 1);
	char *out = trun_render(t, LSC_TRIAGE_TEXT, NULL);
	cr_assert_not_null(out, "the text rendering failed");
	const char *m = strstr(out, "  metadata (s)");
	cr_assert_not_null(m, "%s", out);
	cr_assert_null(strstr(m + 1, "  metadata (s)"), "two rows:\n%s", out);
	double v = 0;
	cr_assert_eq(sscanf(m, "  metadata (s) %lf", &v), 1, "%s", out);
	cr_assert_float_eq(v, 3.75, 1e-9, "%s", out);
	const char *i = strstr(out, "  index (s)");
	cr_assert_not_null(i, "%s", out);
	cr_assert_null(strstr(i + 1, "  index (s)"), "two rows:\n%s", out);
	cr_assert_eq(sscanf(i, "  index (s) %lf", &v), 1, "%s", out);
	cr_assert_float_eq(v, 1.25, 1e-9, "%s", out);
	cr_assert_lt(m, i, "the first span first:\n%s", out);
	free(out);
	lsc_triage_free(t);
}

/*
 * memlock-limit fires on a limit under what the engine pins (docs/triage.md:
 * the limit from `ulimit -a` in KiB, 65536 KiB = 64 MiB, against llama.cpp's
 * CUDA_Host buffer): 64.01 MiB is over it, 64.00 MiB is not (equal fits),
 * 63.99 MiB is under; when it fires, the arithmetic gives both figures.
 */
Test(triage_thresholds, memlock_limit_from_a_pin_over_the_limit)
{
	static const struct {
		const char *mib;
		int fires;
	} c[] = {{"63.99", 0}, {"64.00", 0}, {"64.01", 1}, {"1024.00", 1}};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char log[256];
		snprintf(log, sizeof(log),
			 "max locked memory       (kbytes, -l) 65536\n"
			 "load_tensors:    CUDA_Host model buffer size = %s MiB\n",
			 c[i].mib);
		cr_expect_eq(sev(log, "memlock-limit"), c[i].fires ? LSC_TRIAGE_WARN : -1, "%s MiB", c[i].mib);
	}
	struct lsc_triage *t = trun_text("max locked memory       (kbytes, -l) 65536\n"
					 "load_tensors:    CUDA_Host model buffer size = 2048.00 MiB\n");
	cr_assert_not_null(t);
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	cr_assert_eq(lsc_triage_render(t, LSC_TRIAGE_TEXT, o), 0);
	fclose(o);
	cr_expect(strstr(buf, "      = limit 64.00 MiB\n"), "%s", buf);
	cr_expect(strstr(buf, "      = wanted to lock 2.00 GiB\n"), "%s", buf);
	free(buf);
	lsc_triage_free(t);
}
