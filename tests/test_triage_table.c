/*
 * Description: --table (tools/triage/table.c). Starts are grouped into arms
 * by the configuration keys that differ between them (here the process THP
 * state, as in seed 000's interleaved A/B); each arm gets n, median, min and
 * max for the complement total, alloc, copy and load to ready, a column
 * relative to the fastest arm, and a warning when it has fewer than 3 starts.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <math.h>

#include "triage/internal.h"
#include "triage/render.h"
#include "triage/triage.h"

static void add_start(char *log, size_t cap, int n, int thp_off, double total, double alloc, double copy,
		      double ready)
{
	snprintf(log + strlen(log), cap - strlen(log),
		 "[loadscope/1] start e | run=%08x\n"
		 "[loadscope/1] system k | run=%08x thp_enabled=madvise thp_defrag=madvise thp_prctl=%s\n"
		 "[loadscope/1] complement ready | run=%08x wall_s=%.1f alloc_s=%.1f copy_s=%.1f bytes=30569431040\n"
		 "[loadscope/1] ready | run=%08x wall_s=%.1f\n",
		 n, n, thp_off ? "disabled" : "off", n, total, alloc, copy, n, ready);
}

static char *render(struct lsc_triage *t, enum lsc_triage_fmt f)
{
	char *out = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&out, &len);
	cr_assert_eq(lsc_triage_render(t, f, o), 0);
	fclose(o);
	return out;
}

static struct lsc_triage *ab(unsigned flags)
{
	static char log[16384];
	log[0] = 0;
	/* interleaved, as seed 000: d1 n1 d2 n2 d3 */
	add_start(log, sizeof(log), 1, 0, 300, 286, 14, 370);
	add_start(log, sizeof(log), 2, 1, 35, 20, 15, 77);
	add_start(log, sizeof(log), 3, 0, 301, 287, 14, 363);
	add_start(log, sizeof(log), 4, 1, 33, 18, 15, 75);
	add_start(log, sizeof(log), 5, 0, 294, 280, 14, 356);
	struct lsc_triage_opts o = {.flags = flags};
	struct lsc_triage *t = lsc_triage_new(&o);
	lsc_triage_feed(t, log, strlen(log));
	lsc_triage_finish(t);
	return t;
}

Test(triage_table, arms_by_the_differing_key)
{
	struct lsc_triage *t = ab(LSC_TRIAGE_TABLE | LSC_TRIAGE_TABLE_ONLY);
	cr_assert_eq(lsc_triage_nstarts(t), 5);
	char *md = render(t, LSC_TRIAGE_MD);
	cr_assert(strstr(md, "| **median, thp=default (3)** |"), "%s", md);
	cr_assert(strstr(md, "| **median, thp=off (process) (2)** |"), "%s", md);
	cr_assert(strstr(md, "**300.0** (294.0-301.0)"), "default arm median/min/max: %s", md);
	cr_assert(strstr(md, "**34.0** (33.0-35.0)"), "THP-off arm: %s", md);
	cr_assert(strstr(md, "fewer than 3"), "n<3 warning: %s", md);
	cr_assert(strstr(md, "1.00x"), "relative column: %s", md);
	cr_assert_null(strstr(md, "defrag="), "keys that do not differ are not shown: %s", md);
	free(md);
	lsc_triage_free(t);
}

Test(triage_table, json_and_text)
{
	struct lsc_triage *t = ab(LSC_TRIAGE_TABLE);
	char *js = render(t, LSC_TRIAGE_JSON);
	cr_assert(strstr(js, "\"table\":{\"keys\":[\"thp\"]"), "%s", js);
	cr_assert(strstr(js, "\"few\":true"), "%s", js);
	free(js);
	char *tx = render(t, LSC_TRIAGE_TEXT);
	cr_assert(strstr(tx, "warning: arm"), "%s", tx);
	free(tx);
	lsc_triage_free(t);
}

Test(triage_table, one_configuration_is_one_arm)
{
	static char log[4096];
	log[0] = 0;
	for (int i = 0; i < 3; i++)
		add_start(log, sizeof(log), i + 1, 0, 30 + i, 10, 20, 60);
	struct lsc_triage_opts o = {.flags = LSC_TRIAGE_TABLE | LSC_TRIAGE_TABLE_ONLY};
	struct lsc_triage *t = lsc_triage_new(&o);
	lsc_triage_feed(t, log, strlen(log));
	char *md = render(t, LSC_TRIAGE_MD);
	cr_assert(strstr(md, "**median, all starts (3)**"), "%s", md);
	cr_assert(strstr(md, "**31.0** (30.0-32.0)"), "%s", md);
	cr_assert_null(strstr(md, "fewer than 3"), "%s", md);
	free(md);
	lsc_triage_free(t);
}

/* The text table's warning counts its starts in words: "has 2 starts",
 * and for an arm of one start "has 1 start". */
Test(triage_table, the_small_arm_warning_counts_in_words)
{
	struct lsc_triage *t = ab(LSC_TRIAGE_TABLE | LSC_TRIAGE_TABLE_ONLY);
	char *txt = render(t, LSC_TRIAGE_TEXT);
	cr_expect(strstr(txt, "has 2 starts (fewer than 3)"), "%s", txt);
	free(txt);
	lsc_triage_free(t);
	static char log[2048];
	log[0] = 0;
	add_start(log, sizeof(log), 1, 0, 300, 286, 14, 370);
	struct lsc_triage_opts o = {.flags = LSC_TRIAGE_TABLE | LSC_TRIAGE_TABLE_ONLY};
	t = lsc_triage_new(&o);
	lsc_triage_feed(t, log, strlen(log));
	lsc_triage_finish(t);
	txt = render(t, LSC_TRIAGE_TEXT);
	cr_expect(strstr(txt, "has 1 start (fewer than 3)"), "%s", txt);
	free(txt);
	lsc_triage_free(t);
}

/* The relative column divides each arm's median load to ready by the
 * fastest arm's: 363 / 76 = 4.78x for the default arm; with a fastest
 * median of 0 s there is nothing to divide by, and the column says so
 * ("-", JSON null) rather than printing inf. */
Test(triage_table, relative_to_the_fastest_arm_and_to_none)
{
	struct lsc_triage *t = ab(LSC_TRIAGE_TABLE | LSC_TRIAGE_TABLE_ONLY);
	char *md = render(t, LSC_TRIAGE_MD);
	cr_expect(strstr(md, "4.78x |"), "%s", md);
	cr_expect(strstr(md, "1.00x |"), "%s", md);
	free(md);
	lsc_triage_free(t);

	static char log[8192];
	log[0] = 0;
	add_start(log, sizeof(log), 1, 0, 300, 286, 14, 370);
	add_start(log, sizeof(log), 2, 1, 35, 20, 15, 0);
	add_start(log, sizeof(log), 3, 0, 301, 287, 14, 363);
	add_start(log, sizeof(log), 4, 1, 33, 18, 15, 0);
	struct lsc_triage_opts o = {.flags = LSC_TRIAGE_TABLE | LSC_TRIAGE_TABLE_ONLY};
	t = lsc_triage_new(&o);
	lsc_triage_feed(t, log, strlen(log));
	lsc_triage_finish(t);
	md = render(t, LSC_TRIAGE_MD);
	cr_expect_null(strstr(md, "inf"), "%s", md);
	cr_expect_null(strstr(md, "nanx"), "%s", md);
	cr_expect_null(strstr(md, "0.00x"), "%s", md);
	free(md);
	char *js = render(t, LSC_TRIAGE_JSON);
	cr_expect_null(strstr(js, "inf"), "%s", js);
	cr_expect(strstr(js, "\"relative\":null"), "%s", js);
	free(js);
	lsc_triage_free(t);
}

/* With no start's load to ready, the relative column is on the complement's
 * total: medians 300.0 s (294, 300, 301) and 34.0 s (33, 35), so 300 / 34
 * = 8.82x and 1.00x. */
Test(triage_table, relative_on_the_complement_without_ready_lines)
{
	static char log[8192];
	log[0] = 0;
	static const struct { int off; double total; } st[] = {{0, 300}, {1, 35}, {0, 301}, {1, 33}, {0, 294}};
	for (int i = 0; i < 5; i++) {
		add_start(log, sizeof(log), i + 1, st[i].off, st[i].total, st[i].total - 14, 14, 0);
		/* drop the start's ready line: only the complement is measured */
		char *r = strrchr(log, '\n');
		*r = 0;
		r = strrchr(log, '\n');
		r[1] = 0;
	}
	struct lsc_triage_opts o = {.flags = LSC_TRIAGE_TABLE | LSC_TRIAGE_TABLE_ONLY};
	struct lsc_triage *t = lsc_triage_new(&o);
	lsc_triage_feed(t, log, strlen(log));
	lsc_triage_finish(t);
	char *md = render(t, LSC_TRIAGE_MD);
	cr_expect(strstr(md, "8.82x |"), "%s", md);
	cr_expect(strstr(md, "1.00x |"), "%s", md);
	cr_expect(strstr(md, "| - | 8.82x |"), "load to ready not measured: %s", md);
	free(md);
	lsc_triage_free(t);
}

/* A strata start that says it reads through the file cache has the reader
 * "buffered", a configuration key of its own: starts that differ only
 * there are two arms, and a second such line with no arena note between
 * is a second start (the line comes once per start, just before the note). */
Test(triage_table, the_buffered_reader_is_a_key_and_a_start)
{
	static const char one[] = "[strata] starting engine: strata generate --port 8080\n"
				  "strata generate: expert arena read through the file cache (buffered (not Windows))\n"
				  "strata generate: loaded 39.97 GiB at 3.08 GiB/s\n"
				  "[strata] engine ready after 25 s (serve/server.py:318)\n";
	static const char two[] = "[strata] starting engine: strata generate --port 8080\n"
				  "strata generate: loaded 39.97 GiB at 3.21 GiB/s\n"
				  "[strata] engine ready after 24 s (serve/server.py:318)\n";
	char log[1024];
	snprintf(log, sizeof(log), "%s%s", one, two);
	struct lsc_triage_opts o = {.flags = LSC_TRIAGE_TABLE};
	struct lsc_triage *t = lsc_triage_new(&o);
	lsc_triage_feed(t, log, strlen(log));
	lsc_triage_finish(t);
	cr_assert_eq(lsc_triage_nstarts(t), 2);
	char *js = render(t, LSC_TRIAGE_JSON);
	cr_assert(strstr(js, "\"table\":{\"keys\":[\"reader\"]"), "%s", js);
	cr_assert(strstr(js, "buffered"), "%s", js);
	free(js);
	lsc_triage_free(t);

	static const char twice[] = "strata generate: expert arena read through the file cache (buffered (not Windows))\n"
				    "strata generate: expert arena read through the file cache (buffered (not Windows))\n";
	t = lsc_triage_new(&(struct lsc_triage_opts){0});
	lsc_triage_feed(t, twice, strlen(twice));
	lsc_triage_finish(t);
	cr_assert_eq(lsc_triage_nstarts(t), 2, "a second read-through line with no note between is a second start");
	lsc_triage_free(t);
}

/*
 * The table's figures as a property, over arms drawn at random (each input
 * its own arm, named with lsc_triage_arm): every arm's n, and per metric
 * (the complement's total, its allocation, its copy, load to ready) the
 * count, the median (the middle one of an odd count, the mean of the two
 * middle ones of an even count), the minimum and the maximum, each
 * computed here from the values written into the lines; the relative
 * column is the arm's median load to ready over the smallest arm median.
 * Past TR_ARMS_MAX arms, the last slot holds every further arm, labelled
 * "other", and the arms before it keep their own.
 */
static unsigned lcg(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 16) & 0x7fff;
}

static int dcmp_(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(double), dcmp_);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

Test(triage_table, arm_figures_as_a_property)
{
	unsigned seed = 27001;
	for (int rd = 0; rd < 40; rd++) {
		unsigned narms = 2 + lcg(&seed) % (TR_ARMS_MAX + 3); /* up to TR_ARMS_MAX + 4: "other" too */
		struct lsc_triage_opts o = {.flags = LSC_TRIAGE_TABLE};
		struct lsc_triage *t = lsc_triage_new(&o);
		cr_assert(t);
		/* the values of each slot, per metric */
		static double v[TR_ARMS_MAX][TR_TABLE_METRICS][64];
		unsigned nv[TR_ARMS_MAX] = {0};
		unsigned run = 1;
		for (unsigned a = 0; a < narms; a++) {
			unsigned slot = a < TR_ARMS_MAX ? a : TR_ARMS_MAX - 1;
			unsigned k = 1 + lcg(&seed) % 4;
			for (unsigned j = 0; j < k; j++, run++) {
				double copy = (10 + lcg(&seed) % 200) / 10.0, alloc = (lcg(&seed) % 3000) / 10.0;
				double total = alloc + copy, ready = total + (lcg(&seed) % 900) / 10.0;
				char src[32], arm[16], log[512];
				snprintf(src, sizeof(src), "run%u", run);
				snprintf(arm, sizeof(arm), "A%02u", a);
				cr_assert_eq(lsc_triage_source(t, src), 0);
				cr_assert_eq(lsc_triage_arm(t, arm), 0);
				snprintf(log, sizeof(log),
					 "[loadscope/1] start e | run=%08x\n"
					 "[loadscope/1] complement ready | run=%08x wall_s=%.1f alloc_s=%.1f copy_s=%.1f "
					 "bytes=30569431040\n"
					 "[loadscope/1] ready | run=%08x wall_s=%.1f\n",
					 run, run, total, alloc, copy, run, ready);
				cr_assert_eq(lsc_triage_feed(t, log, strlen(log)), 0);
				const double m[TR_TABLE_METRICS] = {total, alloc, copy, ready};
				for (int x = 0; x < TR_TABLE_METRICS; x++)
					/* as the line prints it: one decimal */
					v[slot][x][nv[slot]] = round(m[x] * 10) / 10;
				nv[slot]++;
			}
		}
		lsc_triage_finish(t);
		cr_assert_eq(lsc_triage_nstarts(t), run - 1);
		struct tr_table tb;
		cr_assert_eq(tr_table_build(t, &tb), 0);
		unsigned want_arms = narms < TR_ARMS_MAX ? narms : TR_ARMS_MAX;
		cr_assert_eq(tb.narms, want_arms, "round %d: %u arms of %u", rd, tb.narms, narms);
		double best = INFINITY, med_ready[TR_ARMS_MAX];
		for (unsigned a = 0; a < want_arms; a++) {
			char lab[32];
			if (a == TR_ARMS_MAX - 1 && narms > TR_ARMS_MAX)
				snprintf(lab, sizeof(lab), "other");
			else
				snprintf(lab, sizeof(lab), "arm=A%02u", a);
			cr_expect_str_eq(tb.arms[a].label, lab, "round %d", rd);
			cr_expect_eq(tb.arms[a].n, nv[a], "round %d arm %u: n %u, not %u", rd, a, tb.arms[a].n, nv[a]);
			for (int x = 0; x < TR_TABLE_METRICS; x++) {
				double w[64];
				memcpy(w, v[a][x], nv[a] * sizeof(double));
				double med = median_of(w, nv[a]);
				cr_expect_eq(tb.arms[a].cnt[x], nv[a], "round %d arm %u metric %d", rd, a, x);
				cr_expect_float_eq(tb.arms[a].med[x], med, 1e-6, "round %d arm %u metric %d: median %f, not %f",
						   rd, a, x, tb.arms[a].med[x], med);
				cr_expect_float_eq(tb.arms[a].min[x], w[0], 1e-6, "round %d arm %u metric %d: min", rd, a, x);
				cr_expect_float_eq(tb.arms[a].max[x], w[nv[a] - 1], 1e-6, "round %d arm %u metric %d: max",
						   rd, a, x);
				if (x == 3) {
					med_ready[a] = med;
					if (med < best)
						best = med;
				}
			}
		}
		cr_expect_eq(tb.basis, 3, "relative on load to ready");
		for (unsigned a = 0; a < want_arms; a++)
			cr_expect_float_eq(tr_table_relative(&tb, a), med_ready[a] / best, 1e-9, "round %d arm %u", rd, a);
		tr_table_free(&tb);
		lsc_triage_free(t);
	}
}
