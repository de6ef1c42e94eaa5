/*
 * The figures a speed verdict rests on, not only the verdict: for every
 * start of the logs developed on whose verdict judges its speed (ok or
 * slow), tests/corpus/verdicts/FIGURES holds the time, size and rate that
 * judgement rests on, read from the log by a person with its unit as
 * printed (never from the tool). The triage's own figures for that start
 * (lsc_triage_start's load_s, gib, gibps) must be the same within 2 %,
 * the rounding of a printed figure (where the log states the rate the
 * judgement rests on, that rate alone: the time and the size are its two
 * sides, and the tool may take them from other lines): a reader that takes a neighbour's
 * number, drops a unit's factor or reads a clock's span wrong changes a
 * figure long before it changes a verdict. Starts whose figures the tool
 * does not give yet are listed in FIGURES_KNOWN with the reason, and the
 * test fails when a listed one agrees, so the list stays true.
 *
 * The units are converted here, by this file's own table (a GB is 10^9
 * bytes, a GiB 2^30), apart from the triage's scanners.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/triage_run.h"

#define VERDICTS LSC_TEST_CORPUS "/verdicts"

/* The number and the unit of a figure as printed: a decimal comma
 * (`3386,19 ms`, as a German locale prints it) read as a point. */
static int number_unit(const char *s, double *v, char *unit, size_t cap)
{
	char num[32];
	size_t n = strcspn(s, " ");
	if (n == 0 || n >= sizeof num || !s[n] || strlen(s + n + 1) >= cap)
		return -1;
	memcpy(num, s, n);
	num[n] = 0;
	char *c = strchr(num, ',');
	if (c && !strchr(num, '.'))
		*c = '.';
	char *e;
	*v = strtod(num, &e);
	if (*e || e == num)
		return -1;
	strcpy(unit, s + n + 1);
	return 0;
}

/* "312.50 s", "284530.11 ms", "2.5 min" -> seconds; "-" -> NAN; -1 bad. */
static int parse_time(const char *s, double *out)
{
	static const struct {
		const char *u;
		double mul;
	} u[] = {{"s", 1}, {"ms", 1e-3}, {"min", 60}};
	*out = NAN;
	if (!strcmp(s, "-"))
		return 0;
	char unit[8];
	double v;
	if (number_unit(s, &v, unit, sizeof unit))
		return -1;
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
		if (!strcmp(unit, u[i].u)) {
			*out = v * u[i].mul;
			return 0;
		}
	return -1;
}

/* "32.89 GiB", "140.54 MB" -> GiB (@rate: "GiB/s", "MB/s" -> GiB/s). */
static int parse_size(const char *s, int rate, double *out)
{
	static const struct {
		const char *u;
		double bytes;
	} u[] = {{"GiB", 1073741824.0}, {"GB", 1e9}, {"MiB", 1048576.0}, {"MB", 1e6},
		 {"KiB", 1024.0},       {"kB", 1e3}, {"TiB", 1099511627776.0}, {"TB", 1e12}, {"B", 1}};
	*out = NAN;
	if (!strcmp(s, "-"))
		return 0;
	char unit[12];
	double v;
	if (number_unit(s, &v, unit, sizeof unit))
		return -1;
	size_t ul = strlen(unit);
	if (rate) {
		if (ul < 3 || strcmp(unit + ul - 2, "/s"))
			return -1;
		unit[ul - 2] = 0;
	}
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
		if (!strcmp(unit, u[i].u)) {
			*out = v * u[i].bytes / 1073741824.0;
			return 0;
		}
	return -1;
}

/* Are @got and @want the same figure, to a printed figure's rounding? */
static int same(double got, double want)
{
	if (isnan(want))
		return 1;
	return !isnan(got) && fabs(got - want) <= 0.02 * fabs(want) + 1e-9;
}

/* Is start @i of @stem listed in FIGURES_KNOWN? */
static int known(const char *stem, unsigned i)
{
	return trun_listed(VERDICTS "/FIGURES_KNOWN", stem, i);
}

/* The column @c (0-based) of a tab-separated @line, into @out. */
static int column(const char *line, int c, char *out, size_t cap)
{
	const char *p = line;
	for (int i = 0; i < c; i++) {
		p = strchr(p, '\t');
		if (!p)
			return -1;
		p++;
	}
	size_t n = strcspn(p, "\t\n");
	if (n >= cap)
		return -1;
	memcpy(out, p, n);
	out[n] = 0;
	return 0;
}

Test(figures, each_speed_verdict_rests_on_the_logs_figures)
{
	FILE *f = fopen(VERDICTS "/FIGURES", "r");
	cr_assert(f, "no %s/FIGURES", VERDICTS);
	char line[1024];
	unsigned rows = 0, agree = 0, lineno = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		char stem[256], start[16], tm[32], sz[32], rt[32];
		double want_s, want_gib, want_rate;
		cr_assert(!column(line, 0, stem, sizeof stem) && !column(line, 1, start, sizeof start) &&
				  !column(line, 2, tm, sizeof tm) && !column(line, 3, sz, sizeof sz) &&
				  !column(line, 4, rt, sizeof rt),
			  "FIGURES:%u: not five tab-separated columns", lineno);
		cr_assert(!parse_time(tm, &want_s) && !parse_size(sz, 0, &want_gib) && !parse_size(rt, 1, &want_rate),
			  "FIGURES:%u: a figure with no unit this test knows: %s | %s | %s", lineno, tm, sz, rt);
		cr_assert(!trun_held_out(stem), "FIGURES:%u: %s is held out", lineno, stem);
		unsigned k = (unsigned)strtoul(start, NULL, 10);
		struct lsc_triage *t = trun_stem(stem, NULL);
		cr_assert(t, "%s: cannot triage", stem);
		struct lsc_triage_start_info si;
		int have = lsc_triage_start(t, k, &si) == 0;
		/* a stated rate the judgement rests on is the figure: the time
		 * and the size are its two sides, whichever lines give them */
		int ok = have && ((!isnan(want_rate) && same(si.gibps, want_rate)) ||
				  (same(si.load_s, want_s) && same(si.gib, want_gib) && same(si.gibps, want_rate)));
		int kn = known(stem, k);
		rows++;
		agree += (unsigned)ok;
		if (!ok)
			cr_log_info("FIGURES MISMATCH%s %s start %u: the log's %s, %s, %s; the tool's %.3f s, %.3f GiB, "
				    "%.3f GiB/s",
				    kn ? " (known)" : "", stem, k, tm, sz, rt, have ? si.load_s : NAN,
				    have ? si.gib : NAN, have ? si.gibps : NAN);
		cr_expect(ok || kn, "%s start %u: the tool's figures are not the log's (%s, %s, %s)", stem, k, tm, sz,
			  rt);
		cr_expect(!(ok && kn), "%s start %u gives the log's figures now: remove it from FIGURES_KNOWN", stem,
			  k);
		lsc_triage_free(t);
	}
	fclose(f);
	cr_log_info("FIGURES SCORE: %u of %u starts give the figures their verdict rests on", agree, rows);
	cr_assert(rows > 0, "FIGURES holds no row");
}

/* The test's own unit table, on both sides of each factor. */
Test(figures, the_unit_table)
{
	double v;
	cr_assert(!parse_time("312.50 s", &v) && v == 312.5);
	cr_assert(!parse_time("284530.11 ms", &v) && fabs(v - 284.53011) < 1e-9);
	cr_assert(!parse_time("2.5 min", &v) && v == 150);
	cr_assert(!parse_time("3386,19 ms", &v) && fabs(v - 3.38619) < 1e-9);
	cr_assert(parse_time("1,2.5 s", &v) < 0 && parse_time("12s", &v) < 0 && parse_time("x s", &v) < 0);
	cr_assert(!parse_time("-", &v) && isnan(v));
	cr_assert(parse_time("3 h", &v) < 0);
	cr_assert(!parse_size("1 GiB", 0, &v) && v == 1);
	cr_assert(!parse_size("1 GB", 0, &v) && fabs(v - 0.9313225746) < 1e-9);
	cr_assert(!parse_size("1024 MiB", 0, &v) && v == 1);
	cr_assert(!parse_size("2 GiB/s", 1, &v) && v == 2);
	cr_assert(parse_size("2 GiB", 1, &v) < 0);
	cr_assert(same(101.0, 100.0) && same(98.0, 100.0) && !same(102.1, 100.0) && !same(97.9, 100.0));
	cr_assert(same(NAN, NAN) && !same(NAN, 1.0));
}
