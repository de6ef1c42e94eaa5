/*
 * Description: the adaptive `auto` prefault (src/loader/prefault_adaptive.c)
 * driven by fixture sequences of readings (clock, compact_stall,
 * compact_fail, PSI some) handed to the loop through its test seam, with
 * the madvise calls and their ranges recorded by the syscall shim: a
 * compaction that starts failing mid-prefault moves the rest of the huge
 * part to 4 KiB pages before it is touched, with one line that gives the
 * offset, the time and the figures; a rate that falls while some task is
 * stalled on memory does the same; a clean run and a slow run without any
 * sign of a memory stall never switch. Then a whole `auto` allocation on a
 * /proc tree whose free 2 MiB blocks cover part of the arena: the split in
 * the arena line, the madvise ranges, and a switch in the arena's fields.
 * Every figure below is computed by hand from the sequences.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/capture.h"
#include "helpers/comma_locale.h"
#include "helpers/sys_shim.h"
#include "loader/arena.h"
#include "loader/arena_int.h"

#define MIB (1ull << 20)
#define MS 1000000ull

static struct lsct_capture cap;

/* A fixture sequence: readings handed out in order. */
struct seq {
	const struct lsc__adapt_reading *r;
	unsigned n, at;
};

static int next(void *user, struct lsc__adapt_reading *out)
{
	struct seq *s = user;
	if (s->at >= s->n)
		return -ENODATA;
	*out = s->r[s->at++];
	return 0;
}

static struct seq seq;
static struct lsc__adapt_source src = {.next = next, .user = &seq};

static void use(const struct lsc__adapt_reading *r, unsigned n)
{
	seq = (struct seq){.r = r, .n = n};
	lsc__adapt_set_source(&src);
}

static void fini(void)
{
	lsc__adapt_set_source(NULL);
	lsct_sys_restore();
}

/* 256 MiB, the first 192 MiB asked for huge pages: steps of 32 MiB (192/16
 * is under the 32 MiB minimum), six of them. */
#define BYTES (256 * MIB)
#define HUGE (192 * MIB)

static char *arena(void)
{
	void *m = mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(m, MAP_FAILED);
	madvise(m, BYTES, MADV_HUGEPAGE);
	return m;
}

static lsc_profiler *prof(void)
{
	return lsct_profiler_fresh(&cap);
}

static void field(const char *key, const char *want)
{
	char v[128];
	cr_assert(lsct_field(&cap, "fallback", key, v, sizeof v), "no %s in: %s", key, cap.buf);
	cr_expect_str_eq(v, want, "%s=%s, want %s", key, v, want);
}

/* Every step 10 ms (32 MiB in 10 ms = 3.125 GiB/s), compaction quiet until
 * the fourth step, where compact_stall and compact_fail rise by 20. */
static const struct lsc__adapt_reading failing[] = {
	{.ns = 1000 * MS, .compact_stall = 500, .compact_fail = 400, .psi_some_us = 7000},
	{.ns = 1010 * MS, .compact_stall = 500, .compact_fail = 400, .psi_some_us = 7000},
	{.ns = 1020 * MS, .compact_stall = 500, .compact_fail = 400, .psi_some_us = 7000},
	{.ns = 1030 * MS, .compact_stall = 501, .compact_fail = 401, .psi_some_us = 7100},
	{.ns = 1040 * MS, .compact_stall = 521, .compact_fail = 421, .psi_some_us = 9100},
	{.ns = 1050 * MS, .compact_stall = 600, .compact_fail = 500, .psi_some_us = 19100},
	{.ns = 1060 * MS, .compact_stall = 700, .compact_fail = 600, .psi_some_us = 29100},
};

/* The failing machine's readings through a whole adaptive prefault of a
 * fresh arena, two threads; the arena in *@m and the profiler in *@p. */
static void prefault_failing(char **m, lsc_profiler **p, struct lsc__adapt_result *ar)
{
	*m = arena();
	*p = prof();
	use(failing, sizeof failing / sizeof failing[0]);
	lsct_sys_install(NULL);
	struct lsc__prefault_result r;
	cr_assert_eq(lsc__prefault_adaptive(*p, NULL, 0, *m, BYTES, HUGE, 0, 2, -1, &r, ar), 0, "%s",
		     cap.buf);
}

Test(prefault_adaptive, compact_fail_mid_prefault_switches_the_rest, .fini = fini)
{
	char *m;
	lsc_profiler *p;
	struct lsc__adapt_result ar;
	prefault_failing(&m, &p, &ar);

	struct lsct_madvise no[8];
	cr_assert_eq(lsct_sys_madvised(MADV_NOHUGEPAGE, no, 8), 2, "%s", lsct_sys_trace);
	/* the 4 KiB part, before anything is touched */
	cr_expect_eq(no[0].addr, m + 192 * MIB);
	cr_expect_eq(no[0].len, 64 * MIB);
	/* after the fourth step: the untouched rest of the huge part */
	cr_expect_eq(no[1].addr, m + 128 * MIB);
	cr_expect_eq(no[1].len, 64 * MIB);
	/* and nothing was populated before its advice: the tail's advice is
	 * the first call, the switch's comes after exactly four steps of
	 * populate calls (32 MiB steps over two threads of 16 MiB). */
	cr_expect_eq(lsct_sys_madv[0].advice, MADV_NOHUGEPAGE);
	unsigned before = 0;
	for (unsigned i = 1; lsct_sys_madv[i].advice != MADV_NOHUGEPAGE; i++)
		before++;
	cr_expect_eq(before, 8, "populate calls before the switch: %u", before);

	cr_expect_eq(ar.switched, 1);
	cr_expect_eq(ar.switch_at, 128 * MIB);
	cr_expect_eq(ar.switch_ns, 40 * MS);
	cr_expect_eq(ar.steps, 4);
	cr_expect_eq(ar.huge_bytes, HUGE);
	cr_expect(strstr(ar.why, "compact_fail rising at 134217728 of 201326592 bytes"), "%s", ar.why);

	cr_assert_eq(lsct_count(&cap, "fallback"), 1, "%s", cap.buf);
	field("what", "auto");
	field("wanted", "thp");
	field("took", "4k");
	field("at_bytes", "134217728");
	field("huge_bytes", "201326592");
	field("after_s", "0.040");
	field("step_bytes", "33554432");
	field("step_gibps", "3.125");
	field("first_gibps", "3.125");
	field("compact_stall_delta", "20");
	field("compact_fail_delta", "20");
	field("psi_some_us", "2000");
	cr_expect_eq(lsct_count_with(&cap, "fallback",
				     "after 128.0 MiB of 192.0 MiB in huge pages (0.040 s into the "
				     "prefault), a step of 32.0 MiB ran at 3.12 GiB/s against 3.12 GiB/s "
				     "in the first steps, compact_stall +20, compact_fail +20, stalled on "
				     "memory 0.002 s: compact_fail rising; the other 64.0 MiB of the huge "
				     "part get 4 KiB pages"),
		     1, "%s", cap.buf);
	lsc_profiler_destroy(p);
	munmap(m, BYTES);
}

/* The switch's reason, kept in the stats for the engine, has its figures
 * in the C locale whatever the engine's setlocale (de_DE here). */
Test(prefault_adaptive, the_reason_keeps_the_point_in_a_comma_locale, .fini = fini)
{
	lsct_comma_locale();
	char *m;
	lsc_profiler *p;
	struct lsc__adapt_result ar;
	prefault_failing(&m, &p, &ar);
	cr_assert_eq(ar.switched, 1);
	cr_expect(strstr(ar.why, "at 3.12 GiB/s against 3.12 GiB/s first"), "%s", ar.why);
	lsc_profiler_destroy(p);
	munmap(m, BYTES);
}

/* The same machine, clean: counters still, every step as fast. */
static const struct lsc__adapt_reading clean[] = {
	{.ns = 0 * MS, .compact_stall = 3, .compact_fail = 3, .psi_some_us = 0},
	{.ns = 10 * MS, .compact_stall = 3, .compact_fail = 3, .psi_some_us = 0},
	{.ns = 20 * MS, .compact_stall = 3, .compact_fail = 3, .psi_some_us = 0},
	{.ns = 30 * MS, .compact_stall = 3, .compact_fail = 3, .psi_some_us = 0},
	{.ns = 40 * MS, .compact_stall = 3, .compact_fail = 3, .psi_some_us = 0},
	{.ns = 50 * MS, .compact_stall = 3, .compact_fail = 3, .psi_some_us = 0},
	{.ns = 60 * MS, .compact_stall = 3, .compact_fail = 3, .psi_some_us = 0},
};

Test(prefault_adaptive, a_clean_run_never_switches, .fini = fini)
{
	char *m = arena();
	lsc_profiler *p = prof();
	use(clean, sizeof clean / sizeof clean[0]);
	lsct_sys_install(NULL);
	struct lsc__prefault_result r;
	struct lsc__adapt_result ar;
	cr_assert_eq(lsc__prefault_adaptive(p, NULL, 0, m, BYTES, HUGE, 0, 2, -1, &r, &ar), 0);
	struct lsct_madvise no[8];
	cr_assert_eq(lsct_sys_madvised(MADV_NOHUGEPAGE, no, 8), 1, "%s", lsct_sys_trace);
	cr_expect_eq(no[0].addr, m + 192 * MIB);
	cr_expect_eq(no[0].len, 64 * MIB);
	cr_expect_eq(ar.switched, 0);
	cr_expect_eq(ar.steps, 6);
	cr_expect_eq(lsct_count(&cap, "fallback"), 0, "%s", cap.buf);
	lsc_profiler_destroy(p);
	munmap(m, BYTES);
}

/* A step's prefault refused (ENOMEM on the second step's populate, call 3
 * with one thread: the tail's advice is call 1) ends the huge part there:
 * the error comes back, one step counted, no step after it tried; the
 * same run with nothing refused makes six. */
Test(prefault_adaptive, a_refused_step_stops_the_steps, .fini = fini)
{
	char *m = arena();
	lsc_profiler *p = prof();
	use(clean, sizeof clean / sizeof clean[0]);
	lsct_sys_fail(LSCT_SYS_MADVISE, 3, ENOMEM);
	struct lsc__prefault_result r;
	struct lsc__adapt_result ar;
	cr_expect_eq(lsc__prefault_adaptive(p, NULL, 0, m, BYTES, HUGE, 0, 1, -1, &r, &ar), -ENOMEM, "%s", cap.buf);
	cr_expect_eq(ar.steps, 1);
	cr_expect_eq(lsct_sys_calls(LSCT_SYS_MADVISE), 3, "%s", lsct_sys_trace);
	lsc_profiler_destroy(p);
	munmap(m, BYTES);
}

/* Steps 1-3 at 10 ms; step 4 takes 50 ms (0.625 GiB/s, under 3.125 / 4)
 * with 10 ms of PSI some (20 % of it) and no compaction: switch. */
static const struct lsc__adapt_reading slow_psi[] = {
	{.ns = 0 * MS, .compact_stall = 0, .compact_fail = 0, .psi_some_us = 100},
	{.ns = 10 * MS, .compact_stall = 0, .compact_fail = 0, .psi_some_us = 100},
	{.ns = 20 * MS, .compact_stall = 0, .compact_fail = 0, .psi_some_us = 100},
	{.ns = 30 * MS, .compact_stall = 0, .compact_fail = 0, .psi_some_us = 100},
	{.ns = 80 * MS, .compact_stall = 0, .compact_fail = 0, .psi_some_us = 10100},
};

Test(prefault_adaptive, a_slow_step_stalled_on_memory_switches, .fini = fini)
{
	char *m = arena();
	lsc_profiler *p = prof();
	use(slow_psi, sizeof slow_psi / sizeof slow_psi[0]);
	lsct_sys_install(NULL);
	struct lsc__prefault_result r;
	struct lsc__adapt_result ar;
	cr_assert_eq(lsc__prefault_adaptive(p, NULL, 0, m, BYTES, HUGE, 0, 1, -1, &r, &ar), 0);
	struct lsct_madvise no[8];
	cr_assert_eq(lsct_sys_madvised(MADV_NOHUGEPAGE, no, 8), 2, "%s", lsct_sys_trace);
	cr_expect_eq(no[1].addr, m + 128 * MIB);
	cr_expect_eq(no[1].len, 64 * MIB);
	cr_expect_eq(ar.switch_at, 128 * MIB);
	cr_expect_eq(ar.switch_ns, 80 * MS);
	field("step_gibps", "0.625");
	field("first_gibps", "3.125");
	field("psi_some_us", "10000");
	field("compact_fail_delta", "0");
	cr_expect_eq(lsct_count_with(&cap, "fallback", ": the rate fell while stalled on memory;"), 1,
		     "%s", cap.buf);
	lsc_profiler_destroy(p);
	munmap(m, BYTES);
}

/* The same slow step with no compaction and no PSI: a slow first touch
 * (a VM's host refault) is not ours to fix with 4 KiB pages. Also PSI n/a. */
static const struct lsc__adapt_reading slow_only[] = {
	{.ns = 0 * MS, .compact_stall = 0, .compact_fail = 0, .psi_some_us = -1},
	{.ns = 10 * MS, .compact_stall = 0, .compact_fail = 0, .psi_some_us = -1},
	{.ns = 20 * MS, .compact_stall = 0, .compact_fail = 0, .psi_some_us = -1},
	{.ns = 30 * MS, .compact_stall = 0, .compact_fail = 0, .psi_some_us = -1},
	{.ns = 80 * MS, .compact_stall = 0, .compact_fail = 0, .psi_some_us = -1},
	{.ns = 200 * MS, .compact_stall = 0, .compact_fail = 0, .psi_some_us = -1},
	{.ns = 400 * MS, .compact_stall = 0, .compact_fail = 0, .psi_some_us = -1},
};

Test(prefault_adaptive, a_slow_step_without_a_stall_does_not_switch, .fini = fini)
{
	char *m = arena();
	lsc_profiler *p = prof();
	use(slow_only, sizeof slow_only / sizeof slow_only[0]);
	lsct_sys_install(NULL);
	struct lsc__prefault_result r;
	struct lsc__adapt_result ar;
	cr_assert_eq(lsc__prefault_adaptive(p, NULL, 0, m, BYTES, HUGE, 0, 1, -1, &r, &ar), 0);
	cr_expect_eq(lsct_sys_madvised(MADV_NOHUGEPAGE, NULL, 0), 1, "%s", lsct_sys_trace);
	cr_expect_eq(ar.switched, 0);
	cr_expect_eq(lsct_count(&cap, "fallback"), 0, "%s", cap.buf);
	lsc_profiler_destroy(p);
	munmap(m, BYTES);
}

/* ---- a whole `auto` allocation --------------------------------------------------- */

/* A /proc tree: the build machine's files, with a buddyinfo of 100 free
 * order-9 blocks (200 MiB in 2 MiB blocks, nothing larger); THP from the
 * build machine's sysfs (enabled=madvise, defrag=madvise: synchronous). */
struct tree {
	char root[40], proc[64], sys[300];
};

static void link_in(const struct tree *t, const char *name)
{
	char from[400], to[200];
	snprintf(from, sizeof from, "%s/host-6.18-madvise/proc/%s", LSC_TEST_FIXTURES, name);
	snprintf(to, sizeof to, "%s/%s", t->proc, name);
	cr_assert_eq(symlink(from, to), 0, "%s", to);
}

static void make_tree(struct tree *t)
{
	snprintf(t->root, sizeof t->root, "/tmp/lsc-adapt-XXXXXX");
	cr_assert_not_null(mkdtemp(t->root));
	snprintf(t->proc, sizeof t->proc, "%s/proc", t->root);
	cr_assert_eq(mkdir(t->proc, 0700), 0);
	snprintf(t->sys, sizeof t->sys, "%s/host-6.18-madvise/sys", LSC_TEST_FIXTURES);
	const char *names[] = {"meminfo", "vmstat", "self", "sys", "pressure"};
	for (unsigned i = 0; i < 5; i++)
		link_in(t, names[i]);
	char path[128];
	snprintf(path, sizeof path, "%s/buddyinfo", t->proc);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "Node 0, zone   Normal   2909   1061    448    283    121     80     28      9      "
		   "7    100      0 \n");
	fclose(f);
}

static void drop_tree(const struct tree *t)
{
	const char *names[] = {"meminfo", "vmstat", "self", "sys", "pressure", "buddyinfo"};
	char path[128];
	for (unsigned i = 0; i < 6; i++) {
		snprintf(path, sizeof path, "%s/%s", t->proc, names[i]);
		unlink(path);
	}
	rmdir(t->proc);
	rmdir(t->root);
}

static lsc_profiler *prof_at(const struct tree *t)
{
	struct lsc_profiler_options po;
	lsc_profiler *p;
	lsct_capture_reset(&cap);
	lsc_profiler_options_init(&po);
	po.sink = lsct_sink;
	po.sink_user = &cap;
	po.mode = LSC_MODE_ON;
	po.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
	po.proc_root = t->proc;
	po.sys_root = t->sys;
	cr_assert_eq(lsc_profiler_create(&po, &p), 0);
	return p;
}

static void arena_field(const char *key, const char *want)
{
	char v[512];
	cr_assert(lsct_field(&cap, "arena", key, v, sizeof v), "no %s in: %s", key, cap.buf);
	cr_expect_str_eq(v, want, "%s=%s, want %s", key, v, want);
}

/* Readings for the allocation: compact_fail +8 in the second step. */
static const struct lsc__adapt_reading second_step_fails[] = {
	{.ns = 0 * MS, .compact_stall = 0, .compact_fail = 0, .psi_some_us = 0},
	{.ns = 10 * MS, .compact_stall = 0, .compact_fail = 0, .psi_some_us = 0},
	{.ns = 25 * MS, .compact_stall = 8, .compact_fail = 8, .psi_some_us = 4000},
};

Test(prefault_adaptive, auto_allocation_splits_and_switches, .fini = fini)
{
	struct tree t;
	make_tree(&t);
	unsetenv("LOADSCOPE_ARENA_THP");
	lsc_profiler *p = prof_at(&t);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.prefault_threads = 1;
	struct lsc__arena a;
	use(second_step_fails, 3);
	lsct_sys_install(NULL);
	cr_assert_eq(lsc__arena_alloc(p, &o, BYTES, &a), 0, "%s", cap.buf);

	/* 200 MiB free, less 1/16 (12.5 MiB), down to 2 MiB: 186 MiB huge,
	 * 70 MiB of 4 KiB pages; steps of 32 MiB. */
	cr_expect_eq(a.applied, LSC_THP_THP);
	cr_expect_eq(a.auto_watch, 1);
	cr_expect_eq(a.auto_huge_bytes, 186 * MIB);
	arena_field("policy", "thp");
	arena_field("requested", "auto");
	arena_field("auto_watch", "1");
	arena_field("auto_huge_bytes", "195035136");
	arena_field("auto_4k_bytes", "73400320");
	arena_field("free_huge_blocks_bytes", "209715200");
	cr_expect_eq(lsct_count_with(&cap, "arena", "huge pages for the first 186.0 MiB, 4 KiB "
						    "pages for the other 70.0 MiB"),
		     1, "%s", cap.buf);

	char *b = a.base;
	struct lsct_madvise yes[4], no[4];
	cr_assert_eq(lsct_sys_madvised(MADV_HUGEPAGE, yes, 4), 1, "%s", lsct_sys_trace);
	cr_expect_eq(yes[0].addr, b);
	cr_expect_eq(yes[0].len, BYTES);
	cr_assert_eq(lsct_sys_madvised(MADV_NOHUGEPAGE, no, 4), 2, "%s", lsct_sys_trace);
	cr_expect_eq(no[0].addr, b + 186 * MIB);
	cr_expect_eq(no[0].len, 70 * MIB);
	cr_expect_eq(no[1].addr, b + 64 * MIB);
	cr_expect_eq(no[1].len, 122 * MIB);

	cr_expect_eq(a.auto_switched, 1);
	cr_expect_eq(a.auto_switch_at, 64 * MIB);
	cr_expect_eq(a.auto_switch_ns, 25 * MS);
	cr_expect_eq(a.auto_steps, 2);
	cr_expect(strstr(a.auto_why, "compact_fail rising at 67108864 of 195035136 bytes"), "%s",
		  a.auto_why);
	field("at_bytes", "67108864");
	field("compact_fail_delta", "8");
	field("step_gibps", "2.083");
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
	drop_tree(&t);
}

/* `thp` asked for is not watched: the policy asked for is applied as is. */
Test(prefault_adaptive, thp_asked_for_is_not_watched, .fini = fini)
{
	struct tree t;
	make_tree(&t);
	unsetenv("LOADSCOPE_ARENA_THP");
	lsc_profiler *p = prof_at(&t);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.thp = LSC_THP_THP;
	struct lsc__arena a;
	use(second_step_fails, 3);
	lsct_sys_install(NULL);
	cr_assert_eq(lsc__arena_alloc(p, &o, BYTES, &a), 0, "%s", cap.buf);
	cr_expect_eq(a.auto_watch, 0);
	cr_expect_eq(a.auto_switched, 0);
	cr_expect_eq(lsct_sys_madvised(MADV_NOHUGEPAGE, NULL, 0), 0, "%s", lsct_sys_trace);
	cr_expect_eq(lsct_count(&cap, "fallback"), 0, "%s", cap.buf);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
	drop_tree(&t);
}

/* ---- a refused advice is said, and the faults go on ------------------------------ */

Test(prefault_adaptive, refused_tail_advice_is_a_fallback, .fini = fini)
{
	char *m = arena();
	lsc_profiler *p = prof();
	use(clean, sizeof clean / sizeof clean[0]);
	lsct_sys_fail(LSCT_SYS_MADVISE, 1, ENOMEM); /* the tail's MADV_NOHUGEPAGE */
	struct lsc__prefault_result r;
	struct lsc__adapt_result ar;
	cr_assert_eq(lsc__prefault_adaptive(p, NULL, 0, m, BYTES, HUGE, 0, 1, -1, &r, &ar), 0, "%s",
		     cap.buf);
	cr_expect_eq(ar.switched, 0);
	field("what", "auto");
	field("wanted", "4k for the rest");
	field("took", "huge pages for all");
	cr_expect_eq(lsct_count_with(&cap, "fallback", "madvise(MADV_NOHUGEPAGE) on the last "
						       "67108864 bytes: ENOMEM"),
		     1, "%s", cap.buf);
	lsc_profiler_destroy(p);
	munmap(m, BYTES);
}

/* One thread: the tail's advice is call 1, each 32 MiB step one populate
 * call (2-5), the switch's advice call 6. */
Test(prefault_adaptive, refused_switch_advice_keeps_huge_pages_and_says_so, .fini = fini)
{
	char *m = arena();
	lsc_profiler *p = prof();
	use(failing, sizeof failing / sizeof failing[0]);
	lsct_sys_fail(LSCT_SYS_MADVISE, 6, ENOMEM);
	struct lsc__prefault_result r;
	struct lsc__adapt_result ar;
	cr_assert_eq(lsc__prefault_adaptive(p, NULL, 0, m, BYTES, HUGE, 0, 1, -1, &r, &ar), 0, "%s",
		     cap.buf);
	cr_expect_eq(lsct_sys_madv[5].advice, MADV_NOHUGEPAGE);
	cr_expect_eq(lsct_sys_madv[5].addr, m + 128 * MIB);
	cr_expect_eq(ar.switched, 0, "the advice was refused: nothing moved");
	field("took", "thp");
	cr_expect_eq(lsct_count_with(&cap, "fallback", "(madvise(MADV_NOHUGEPAGE) failed: ENOMEM; "
						       "they stay advised for huge pages)"),
		     1, "%s", cap.buf);
	lsc_profiler_destroy(p);
	munmap(m, BYTES);
}

/* One thread through a whole adaptive prefault of a fresh arena with a
 * refault cover of @cover bytes, the readings @rd; the arena in *@m and
 * the profiler in *@p. */
static void prefault_cover(const struct lsc__adapt_reading *rd, unsigned n, uint64_t cover, char **m,
			   lsc_profiler **p, struct lsc__adapt_result *ar)
{
	*m = arena();
	*p = prof();
	use(rd, n);
	lsct_sys_install(NULL);
	struct lsc__prefault_result r;
	cr_assert_eq(lsc__prefault_adaptive(*p, NULL, 0, *m, BYTES, HUGE, cover, 1, -1, &r, ar), 0, "%s",
		     cap.buf);
}

/* ---- free page reporting: the refault probe ----------------------------- */

/* The whole huge part is the refault cover. The probe (the last 16 MiB of
 * it, in 4 KiB pages) takes 4 ms: 16/1024 GiB / 0.004 s = 3.906 GiB/s.
 * The first huge step (16 MiB) then takes 32 ms, 0.488 GiB/s, with the
 * compaction counters still: huge pages fault in the host. */
static const struct lsc__adapt_reading refaulting[] = {
	{.ns = 0 * MS, .compact_stall = 3, .compact_fail = 3, .psi_some_us = 0},
	{.ns = 4 * MS, .compact_stall = 3, .compact_fail = 3, .psi_some_us = 0},
	{.ns = 36 * MS, .compact_stall = 3, .compact_fail = 3, .psi_some_us = 0},
};

Test(prefault_adaptive, huge_pages_slower_than_4k_ones_move_the_cover, .fini = fini)
{
	char *m;
	lsc_profiler *p;
	struct lsc__adapt_result ar;
	prefault_cover(refaulting, sizeof refaulting / sizeof refaulting[0], HUGE, &m, &p, &ar);
	struct lsct_madvise no[8];
	cr_assert_eq(lsct_sys_madvised(MADV_NOHUGEPAGE, no, 8), 3, "%s", lsct_sys_trace);
	/* the 4 KiB part; the probe, the cover's last 16 MiB; and, after the
	 * first 16 MiB step, the rest of the huge part up to the probe */
	cr_expect_eq(no[0].addr, m + 192 * MIB);
	cr_expect_eq(no[0].len, 64 * MIB);
	cr_expect_eq(no[1].addr, m + 176 * MIB);
	cr_expect_eq(no[1].len, 16 * MIB);
	cr_expect_eq(no[2].addr, m + 16 * MIB);
	cr_expect_eq(no[2].len, 160 * MIB);
	cr_expect_eq(ar.switched, 1);
	cr_expect_eq(ar.refault, 1);
	cr_expect_eq(ar.switch_at, 16 * MIB);
	cr_expect_eq(ar.switch_ns, 36 * MS);
	cr_expect_eq(ar.steps, 1);
	cr_expect(strstr(ar.why, "huge pages fault in the host at 16777216 of 201326592 bytes: a "
				 "step of 16777216 bytes at 0.49 GiB/s against 3.91 GiB/s for 4 KiB pages"),
		  "%s", ar.why);
	cr_assert_eq(lsct_count(&cap, "fallback"), 1, "%s", cap.buf);
	field("what", "auto");
	field("took", "4k");
	field("at_bytes", "16777216");
	field("moved_bytes", "167772160");
	field("step_bytes", "16777216");
	field("step_gibps", "0.488");
	field("probe_bytes", "16777216");
	field("probe_gibps", "3.906");
	field("compact_stall_delta", "0");
	cr_expect_eq(lsct_count_with(&cap, "fallback",
				     "took 4k for 160.0 MiB: huge pages fault in the host at 0.49 GiB/s, "
				     "4 KiB pages at 3.91 GiB/s"),
		     1, "%s", cap.buf);
	lsc_profiler_destroy(p);
	munmap(m, BYTES);
}

/* The host has the memory: the first huge step takes 2 ms (7.8 GiB/s),
 * faster than the probe, and so do the five steps of 32 MiB up to the
 * probe at 176 MiB, 4 ms each (7.8 GiB/s): nothing moves, only the probe
 * is in 4 KiB pages. The same when a step is slow but compacts
 * (compact_stall +5): that is the other rule's business, and +2
 * compact_fail is under its bar. */
static const struct lsc__adapt_reading host_has_it[] = {
	{.ns = 0 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 4 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 6 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 10 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 14 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 18 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 22 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 26 * MS, .compact_stall = 3, .compact_fail = 3},
};
static const struct lsc__adapt_reading slow_compacting[] = {
	{.ns = 0 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 4 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 36 * MS, .compact_stall = 8, .compact_fail = 5},
	{.ns = 40 * MS, .compact_stall = 8, .compact_fail = 5},
	{.ns = 44 * MS, .compact_stall = 8, .compact_fail = 5},
	{.ns = 48 * MS, .compact_stall = 8, .compact_fail = 5},
	{.ns = 52 * MS, .compact_stall = 8, .compact_fail = 5},
	{.ns = 56 * MS, .compact_stall = 8, .compact_fail = 5},
};

/* Some of the host's memory is back, some is not: the first huge step and
 * the next are fast (4 ms for 16 and 32 MiB), the third (32 MiB) takes
 * 64 ms, 0.488 GiB/s, without compaction: the rest of the cover moves
 * there, at 80 MiB, up to the probe at 176 MiB (96 MiB). */
static const struct lsc__adapt_reading partly_refaulting[] = {
	{.ns = 0 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 4 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 6 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 10 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 74 * MS, .compact_stall = 3, .compact_fail = 3},
};

Test(prefault_adaptive, a_later_slow_step_moves_the_rest_of_the_cover, .fini = fini)
{
	char *m;
	lsc_profiler *p;
	struct lsc__adapt_result ar;
	prefault_cover(partly_refaulting, sizeof partly_refaulting / sizeof partly_refaulting[0], HUGE, &m, &p, &ar);
	struct lsct_madvise no[8];
	cr_assert_eq(lsct_sys_madvised(MADV_NOHUGEPAGE, no, 8), 3, "%s", lsct_sys_trace);
	cr_expect_eq(no[2].addr, m + 80 * MIB);
	cr_expect_eq(no[2].len, 96 * MIB);
	cr_expect_eq(ar.switched, 1);
	cr_expect_eq(ar.refault, 1);
	cr_expect_eq(ar.switch_at, 80 * MIB);
	cr_expect_eq(ar.switch_ns, 74 * MS);
	cr_expect_eq(ar.steps, 3);
	field("at_bytes", "83886080");
	field("moved_bytes", "100663296");
	field("step_bytes", "33554432");
	field("step_gibps", "0.488");
	lsc_profiler_destroy(p);
	munmap(m, BYTES);
}

static void keeps_the_cover(const struct lsc__adapt_reading *rd, unsigned n)
{
	char *m;
	lsc_profiler *p;
	struct lsc__adapt_result ar;
	prefault_cover(rd, n, HUGE, &m, &p, &ar);
	struct lsct_madvise no[8];
	cr_assert_eq(lsct_sys_madvised(MADV_NOHUGEPAGE, no, 8), 2, "%s", lsct_sys_trace);
	cr_expect_eq(no[1].addr, m + 176 * MIB);
	cr_expect_eq(no[1].len, 16 * MIB);
	cr_expect_eq(ar.switched, 0);
	cr_expect_eq(ar.refault, 0);
	cr_expect_eq(ar.steps, 6, "16 MiB, then five of 32 MiB up to the probe: %u", ar.steps);
	cr_expect_eq(lsct_count(&cap, "fallback"), 0, "%s", cap.buf);
	lsc_profiler_destroy(p);
	munmap(m, BYTES);
}

Test(prefault_adaptive, huge_pages_faster_than_the_probe_keep_the_cover, .fini = fini)
{
	keeps_the_cover(host_has_it, sizeof host_has_it / sizeof host_has_it[0]);
}

Test(prefault_adaptive, a_slow_first_step_that_compacts_is_no_refault, .fini = fini)
{
	keeps_the_cover(slow_compacting, sizeof slow_compacting / sizeof slow_compacting[0]);
}

/* Without a cover nothing is probed: the first advice after the tail's is
 * a switch or nothing (a_clean_run_never_switches), and an arena whose huge
 * part is under two steps (48 MiB) is not probed either. */
Test(prefault_adaptive, a_small_huge_part_is_not_probed, .fini = fini)
{
	char *m = arena();
	lsc_profiler *p = prof();
	use(clean, sizeof clean / sizeof clean[0]);
	lsct_sys_install(NULL);
	struct lsc__prefault_result r;
	struct lsc__adapt_result ar;
	cr_assert_eq(lsc__prefault_adaptive(p, NULL, 0, m, BYTES, 48 * MIB, 48 * MIB, 1, -1, &r, &ar), 0);
	struct lsct_madvise no[8];
	cr_assert_eq(lsct_sys_madvised(MADV_NOHUGEPAGE, no, 8), 1, "only the tail: %s", lsct_sys_trace);
	cr_expect_eq(no[0].addr, m + 48 * MIB);
	cr_expect_eq(ar.switched, 0);
	lsc_profiler_destroy(p);
	munmap(m, BYTES);
}

/* One thread: the tail's advice is call 1, the probe's advice 2 and its
 * populate 3, the first huge step's populate 4, the refault switch's
 * advice 5. Refused: said once, the cover stays advised for huge pages,
 * nothing counts as moved, and the later steps, as slow (32 MiB in 64 ms),
 * do not try again. */
static const struct lsc__adapt_reading refaulting_on[] = {
	{.ns = 0 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 4 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 36 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 100 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 164 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 228 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 292 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 356 * MS, .compact_stall = 3, .compact_fail = 3},
};

Test(prefault_adaptive, refused_refault_advice_is_said_once, .fini = fini)
{
	char *m = arena();
	lsc_profiler *p = prof();
	use(refaulting_on, sizeof refaulting_on / sizeof refaulting_on[0]);
	lsct_sys_fail(LSCT_SYS_MADVISE, 5, ENOMEM);
	struct lsc__prefault_result r;
	struct lsc__adapt_result ar;
	cr_assert_eq(lsc__prefault_adaptive(p, NULL, 0, m, BYTES, HUGE, HUGE, 1, -1, &r, &ar), 0, "%s",
		     cap.buf);
	cr_expect_eq(lsct_sys_madv[4].advice, MADV_NOHUGEPAGE);
	cr_expect_eq(lsct_sys_madv[4].addr, m + 16 * MIB);
	cr_expect_eq(ar.switched, 0);
	cr_expect_eq(ar.refault, 0);
	cr_expect_eq(ar.steps, 6, "every step faulted: %u", ar.steps);
	struct lsct_madvise no[8];
	cr_expect_eq(lsct_sys_madvised(MADV_NOHUGEPAGE, no, 8), 3, "tail, probe and the one refused "
		     "try: %s", lsct_sys_trace);
	cr_expect_eq(lsct_count(&cap, "fallback"), 1, "%s", cap.buf);
	field("took", "thp");
	cr_expect_eq(lsct_count_with(&cap, "fallback", "(madvise(MADV_NOHUGEPAGE) failed: ENOMEM; "
						       "they stay advised for huge pages)"),
		     1, "%s", cap.buf);
	lsc_profiler_destroy(p);
	munmap(m, BYTES);
}

/* A cover of 64 MiB of the 192 MiB huge part: the probe is its last
 * 16 MiB (176-192), and the slow first step (16 MiB in 32 ms) moves only
 * the rest of the cover, 128-176 MiB; the huge part before it keeps its
 * huge pages, in steps of 32 MiB (4 ms each) up to 128 MiB. */
static const struct lsc__adapt_reading refaulting_part[] = {
	{.ns = 0 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 4 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 36 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 40 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 44 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 48 * MS, .compact_stall = 3, .compact_fail = 3},
	{.ns = 52 * MS, .compact_stall = 3, .compact_fail = 3},
};

Test(prefault_adaptive, only_the_cover_moves, .fini = fini)
{
	char *m;
	lsc_profiler *p;
	struct lsc__adapt_result ar;
	prefault_cover(refaulting_part, sizeof refaulting_part / sizeof refaulting_part[0], 64 * MIB, &m, &p, &ar);
	struct lsct_madvise no[8];
	cr_assert_eq(lsct_sys_madvised(MADV_NOHUGEPAGE, no, 8), 3, "%s", lsct_sys_trace);
	cr_expect_eq(no[1].addr, m + 176 * MIB);
	cr_expect_eq(no[1].len, 16 * MIB);
	cr_expect_eq(no[2].addr, m + 128 * MIB);
	cr_expect_eq(no[2].len, 48 * MIB);
	cr_expect_eq(ar.refault, 1);
	cr_expect_eq(ar.switch_at, 128 * MIB);
	cr_expect_eq(ar.steps, 5, "16 MiB, then 32, 32, 32 and 16 up to the cover: %u", ar.steps);
	field("at_bytes", "134217728");
	field("moved_bytes", "50331648");
	lsc_profiler_destroy(p);
	munmap(m, BYTES);
}
