/*
 * Description: memory stall time per phase (/proc/pressure/memory, PSI):
 * the reader on the fixture trees (this build machine's real file, a
 * constructed stalling machine, a container without PSI) and on broken
 * text; a span's psi_some_us and psi_full_us equal to the difference of two
 * fixture readings swapped in between its begin and its end (computed by
 * hand below), with the human "stalled on memory" phrase; n/a without PSI
 * and when the counters go back; the watchdog's still lines with the stall
 * per second (a number once the file moved, n/a without PSI; the value
 * depends on the watchdog's timing, so only its presence is asserted); and
 * the real file on this machine.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#include "helpers/capture.h"
#include "host/procfs.h"

#define FX LSC_TEST_FIXTURES

static struct lsct_capture cap;

Test(psi, reads_the_build_machines_file)
{
	struct lsc__psi v;
	cr_assert_eq(lsc__psi_read(FX "/host-6.18-madvise/proc", &v), 0);
	cr_assert_eq(v.some_us, 0);
	cr_assert_eq(v.full_us, 0);
}

Test(psi, reads_a_stalling_machine)
{
	struct lsc__psi v;
	cr_assert_eq(lsc__psi_read(FX "/psi-stalling/proc", &v), 0);
	cr_assert_eq(v.some_us, 1234567890);
	cr_assert_eq(v.full_us, 987654321);
}

Test(psi, absent_in_a_container)
{
	struct lsc__psi v = {7, 7};
	cr_assert_eq(lsc__psi_read(FX "/container-no-vmstat/proc", &v), -ENOENT);
	cr_assert_eq(v.some_us, -1);
	cr_assert_eq(v.full_us, -1);
}

static void parse(const char *text, int want_rc, int64_t some, int64_t full)
{
	struct lsc__psi v;
	cr_assert_eq(lsc__psi_parse(text, strlen(text), &v), want_rc, "%s", text);
	cr_assert_eq(v.some_us, some, "%s: some %lld", text, (long long)v.some_us);
	cr_assert_eq(v.full_us, full, "%s: full %lld", text, (long long)v.full_us);
}

Test(psi, broken_text_is_na_field_by_field)
{
	parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=12\n", 0, 12, -1);
	parse("some avg10=0.00 total=12x\nfull avg10=0.00 total=5\n", -EINVAL, -1, 5);
	parse("some avg10=0.00 total=-3\nfull total=4", -EINVAL, -1, 4);
	parse("some avg10=0.00 total=\nfull total=99999999999999999999\n", -EINVAL, -1, -1);
	parse("something avg10=0.00 total=1\nfull avg10=1.00 xtotal=2\n", -EINVAL, -1, -1);
	parse("", -EINVAL, -1, -1);
	/* "full" first, and an avg10 that looks like a total. */
	parse("full avg10=1 total=8\nsome avg10=total=3 total=9\n", 0, 9, 8);
}

/* A profiler on the tree at @root, lines into cap. */
static lsc_profiler *profiler_at(const char *root)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
	o.proc_root = root;
	lsc_profiler *p;
	lsct_capture_reset(&cap);
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	return p;
}

/* Rewrite @dst in place (same inode, so a kept descriptor sees it) with the
 * bytes of @src. */
static void put(const char *src, const char *dst)
{
	char buf[512];
	FILE *in = fopen(src, "r");
	cr_assert_not_null(in, "%s", src);
	size_t n = fread(buf, 1, sizeof buf, in);
	fclose(in);
	FILE *out = fopen(dst, "w");
	cr_assert_not_null(out, "%s", dst);
	cr_assert_eq(fwrite(buf, 1, n, out), n);
	fclose(out);
}

struct tree {
	char root[32], dir[64], file[80];
};

static void make_tree(struct tree *t, const char *first)
{
	snprintf(t->root, sizeof t->root, "/tmp/lsc-psi-XXXXXX");
	cr_assert_not_null(mkdtemp(t->root));
	snprintf(t->dir, sizeof t->dir, "%s/pressure", t->root);
	cr_assert_eq(mkdir(t->dir, 0700), 0);
	snprintf(t->file, sizeof t->file, "%s/memory", t->dir);
	put(first, t->file);
}

static void drop_tree(struct tree *t)
{
	unlink(t->file);
	rmdir(t->dir);
	rmdir(t->root);
}

Test(psi, a_span_gives_the_difference_of_its_two_readings)
{
	struct tree t;
	make_tree(&t, FX "/psi-stalling/proc/pressure/memory");
	lsc_profiler *p = profiler_at(t.root);
	lsc_span s;
	struct lsc_span_result r;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_ALLOCATE, NULL, 0, &s), 0);
	put(FX "/psi-stalling/proc/pressure/memory.later", t.file);
	cr_assert_eq(lsc_span_end(p, s, &r), 0);
	/* 1242667890 - 1234567890 and 989654321 - 987654321 */
	cr_assert_eq(r.psi_some_us, 8100000, "some %lld", (long long)r.psi_some_us);
	cr_assert_eq(r.psi_full_us, 2000000, "full %lld", (long long)r.psi_full_us);
	char v[32];
	cr_assert(lsct_field(&cap, "phase", "psi_some_us", v, sizeof v));
	cr_assert_str_eq(v, "8100000");
	cr_assert(lsct_field(&cap, "phase", "psi_full_us", v, sizeof v));
	cr_assert_str_eq(v, "2000000");
	/* the sentence: some task's stall; every task's is psi_full_us */
	cr_assert_eq(lsct_count_with(&cap, "phase", "; stalled on memory 8.100 s"), 1);

	/* The file going back (another machine's copy swapped in): n/a, not a
	 * negative stall. */
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_ALLOCATE, NULL, 0, &s), 0);
	put(FX "/psi-stalling/proc/pressure/memory", t.file);
	cr_assert_eq(lsc_span_end(p, s, &r), 0);
	cr_assert_eq(r.psi_some_us, -1);
	cr_assert_eq(r.psi_full_us, -1);
	lsc_profiler_destroy(p);
	drop_tree(&t);
}

Test(psi, no_stall_says_nothing_in_words)
{
	struct tree t;
	make_tree(&t, FX "/host-6.18-madvise/proc/pressure/memory");
	lsc_profiler *p = profiler_at(t.root);
	lsc_span s;
	struct lsc_span_result r;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_READ, NULL, 0, &s), 0);
	cr_assert_eq(lsc_span_end(p, s, &r), 0);
	cr_assert_eq(r.psi_some_us, 0);
	cr_assert_eq(r.psi_full_us, 0);
	char v[32];
	cr_assert(lsct_field(&cap, "phase", "psi_some_us", v, sizeof v));
	cr_assert_str_eq(v, "0");
	cr_assert_eq(lsct_count_with(&cap, "phase", "stalled on memory"), 0);
	lsc_profiler_destroy(p);
	drop_tree(&t);
}

Test(psi, na_without_psi)
{
	lsc_profiler *p = profiler_at(FX "/container-no-vmstat/proc");
	lsc_span s;
	struct lsc_span_result r;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_READ, NULL, 0, &s), 0);
	cr_assert_eq(lsc_span_end(p, s, &r), 0);
	cr_assert_eq(r.psi_some_us, -1);
	cr_assert_eq(r.psi_full_us, -1);
	char v[32];
	cr_assert(lsct_field(&cap, "phase", "psi_some_us", v, sizeof v));
	cr_assert_str_eq(v, "n/a");
	cr_assert(lsct_field(&cap, "phase", "psi_full_us", v, sizeof v));
	cr_assert_str_eq(v, "n/a");
	lsc_profiler_destroy(p);
}

Test(psi, this_machine)
{
	struct lsc__psi v;
	int rc = lsc__psi_read(NULL, &v);
	if (rc < 0)
		cr_skip("/proc/pressure/memory unreadable here (%s): no PSI", strerror(-rc));
	lsc_profiler *p = profiler_at(NULL);
	lsc_span s;
	struct lsc_span_result r;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_READ, NULL, 0, &s), 0);
	cr_assert_eq(lsc_span_end(p, s, &r), 0);
	cr_assert_geq(r.psi_some_us, 0);
	cr_assert_geq(r.psi_full_us, 0);
	lsc_profiler_destroy(p);
}

/* A profiler on @root whose watchdog reports any span open for 10 ms. */
static lsc_profiler *watched_at(const char *root)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE;
	o.watchdog_after_s = 0.01;
	o.watchdog_every_s = 0.01;
	o.proc_root = root;
	lsc_profiler *p;
	lsct_capture_reset(&cap);
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	return p;
}

/* A still line whose psi_some_us_per_s is a number above 0: the one whose
 * two samples straddle the swap. */
static int stalled_still(void)
{
	static char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	for (unsigned k = 0; lsct_find(&cap, "still", k, buf, sizeof buf, &pl); k++) {
		const char *v = lsc__parsed_get(&pl, "psi_some_us_per_s");
		if (v && strcmp(v, "n/a") && atof(v) > 0 && strstr(pl.human, "; stalled on memory "))
			return 1;
	}
	return 0;
}

Test(psi, still_lines_give_the_stall_per_second)
{
	struct tree t;
	make_tree(&t, FX "/psi-stalling/proc/pressure/memory");
	lsc_profiler *p = watched_at(t.root);
	lsc_start_begin(p, "stalling");
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_ALLOCATE, NULL, 0, &s), 0);
	put(FX "/psi-stalling/proc/pressure/memory.later", t.file);
	/* Wait for the line, however long the machine takes to schedule it. */
	for (int i = 0; i < 600 && !stalled_still(); i++)
		usleep(50000);
	lsc_span_end(p, s, NULL);
	lsc_profiler_destroy(p);
	cr_assert(stalled_still(), "no still line with the stall: %s", cap.buf);
	drop_tree(&t);
}

Test(psi, still_lines_say_na_without_psi)
{
	lsc_profiler *p = watched_at(FX "/container-no-vmstat/proc");
	lsc_start_begin(p, "no psi");
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_ALLOCATE, NULL, 0, &s), 0);
	for (int i = 0; i < 600 && lsct_count(&cap, "still") == 0; i++)
		usleep(50000);
	lsc_span_end(p, s, NULL);
	lsc_profiler_destroy(p);
	static char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "still", 0, buf, sizeof buf, &pl), "no still line: %s", cap.buf);
	cr_assert_str_eq(lsc__parsed_get(&pl, "psi_some_us_per_s"), "n/a");
	cr_assert_str_eq(lsc__parsed_get(&pl, "psi_full_us_per_s"), "n/a");
	cr_assert_null(strstr(pl.human, "stalled on memory"), "%s", pl.human);
}
