/*
 * Description: the geometry of the --html page's timelines, as properties
 * over every corpus log's page (no browser needed). The plot is 1100 units
 * wide with a 96-unit label column and a 24-unit right margin, so a bar
 * that starts at S seconds and lasts D in a start of T seconds is drawn at
 * x = 96 + S/T * 980, D/T * 980 wide (at least 1; a gap at least 3, moved
 * left so that it still ends where it ends), with its share 100 * D / T;
 * every bar lies inside the plot; rows are 34 units apart from y = 8 in
 * the order start, phases, nested, overlapped, each used row once, and the
 * picture is 28 units taller than its last row; a gap, and only a gap,
 * is hatched over its bar; a label written on a bar
 * starts 6 units into it; the axis ticks every 1, 2 or 5 times a power of
 * ten, about 8 of them, from 0 to T. The A/B chart: arms 30 units apart,
 * points at 300 + v / hi * 776 (hi 1.04 times the slowest), each arm's
 * median line at its points' median. Each is derived here from those
 * numbers, not read from the renderer.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/triage.h"

#define LBL 96.0
#define PLOT 980.0

/* The value of attribute @name in the tag that starts at @tag (up to its '>'). */
static int attr(const char *tag, const char *name, char *out, size_t cap)
{
	const char *e = strchr(tag, '>');
	char key[48];
	snprintf(key, sizeof key, " %s=\"", name);
	const char *p = strstr(tag, key);
	if (!p || (e && p > e))
		return 0;
	p += strlen(key);
	const char *q = strchr(p, '"');
	size_t n = (size_t)(q - p);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return 1;
}

static double num(const char *tag, const char *name)
{
	char v[64];
	cr_assert(attr(tag, name, v, sizeof v), "no %s in %.200s", name, tag);
	return strtod(v, NULL);
}

static const char *const rows[] = {"start", "phases", "nested", "overlapped"};

static int row_index(const char *tag)
{
	char v[32];
	cr_assert(attr(tag, "data-row", v, sizeof v));
	for (int r = 0; r < 4; r++)
		if (!strcmp(v, rows[r]))
			return r;
	cr_assert_fail("row %s", v);
	return -1;
}

/* One timeline: the svg from @svg to @end. Return the number of bars. */
static unsigned check_timeline(const char *log, const char *svg, const char *end)
{
	double total = num(svg, "data-total-s");
	cr_assert_gt(total, 0, "%s", log);
	int used[4] = {0};
	double row_y[4] = {NAN, NAN, NAN, NAN};
	unsigned bars = 0;
	for (const char *r = svg; (r = strstr(r, "<rect class=\"phase")) && r < end; r++, bars++) {
		double s = num(r, "data-start-s"), d = num(r, "data-dur-s"), x = num(r, "x"), w = num(r, "width");
		double y = num(r, "y"), share = num(r, "data-share");
		char kind[32];
		cr_assert(attr(r, "data-kind", kind, sizeof kind));
		double wx = LBL + s / total * PLOT, ww = d / total * PLOT;
		/* the attributes are printed with %.6g (times) and %.1f (units) */
		double tol = 0.06 + PLOT * 1e-5;
		if (!strcmp(kind, "gap") && ww < 3 && d > 0) {
			wx -= 3 - ww;
			ww = 3;
		}
		cr_expect(fabs(x - wx) <= tol, "%s: %s at %g s: x %.1f, want %.2f", log, kind, s, x, wx);
		cr_expect(fabs(w - (ww < 1 ? 1 : ww)) <= tol, "%s: %s of %g s: width %.1f, want %.2f", log, kind, d, w, ww);
		cr_expect(fabs(share - 100 * d / total) <= 0.05 + 1e-3, "%s: %s share %.1f, want %.2f", log, kind, share,
			  100 * d / total);
		cr_expect(x >= LBL - 3 - tol && x + w <= LBL + PLOT + tol + 1, "%s: %s outside the plot: %.1f..%.1f", log,
			  kind, x, x + w);
		cr_expect_float_eq(num(r, "height"), 26, 1e-9);
		int ri = row_index(r);
		if (isnan(row_y[ri]))
			row_y[ri] = y;
		cr_expect_float_eq(y, row_y[ri], 1e-9, "%s: row %s at two heights", log, rows[ri]);
		used[ri] = 1;
		/* a label written on the bar starts 6 units into it, 18 below its top */
		const char *ge = strstr(r, "</g>"), *lb = strstr(r, "<text class=\"lbl in\"");
		/* an unattributed gap, and only a gap, is hatched over its whole bar */
		const char *hr = strstr(r, "<rect class=\"hatch\"");
		int hatched = hr && hr < ge;
		cr_expect_eq(hatched, !strcmp(kind, "gap"), "%s: a %s bar %shatched", log, kind, hatched ? "" : "not ");
		if (hatched) {
			cr_expect_float_eq(num(hr, "x"), x, 1e-9);
			cr_expect_float_eq(num(hr, "width"), w, 1e-9);
			cr_expect_float_eq(num(hr, "y"), y, 1e-9);
		}
		if (lb && lb < ge) {
			cr_expect(fabs(num(lb, "x") - (x + 6)) <= 0.06, "%s: label at %.1f, bar at %.1f", log, num(lb, "x"), x);
			cr_expect_float_eq(num(lb, "y"), y + 18, 1e-9);
		}
	}
	/* rows: 34 apart from 8, in their order, only the used ones */
	double y = 8;
	for (int ri = 0; ri < 4; ri++) {
		if (!used[ri])
			continue;
		cr_expect_float_eq(row_y[ri], y, 1e-9, "%s: row %s at %g, want %g", log, rows[ri], row_y[ri], y);
		y += 34;
	}
	char vb[64];
	cr_assert(attr(svg, "viewBox", vb, sizeof vb));
	double vw = 0, vh = 0;
	cr_assert_eq(sscanf(vb, "0 0 %lf %lf", &vw, &vh), 2, "%s", vb);
	cr_expect_float_eq(vw, 1100, 1e-9);
	cr_expect_float_eq(vh, y + 28, 1e-9, "%s: height %g, rows end at %g", log, vh, y);
	/* the axis: steps of 1, 2 or 5 x 10^k near total / 8, ticks at 0, step, ... up to total */
	double raw = total / 8, mag = pow(10, floor(log10(raw))), k = raw / mag;
	double st = (k <= 1 ? 1 : k <= 2 ? 2 : k <= 5 ? 5 : 10) * mag;
	unsigned want = 0;
	for (int i = 0; i <= 20 && i * st <= total * 1.0001; i++)
		want++;
	unsigned ticks = 0;
	for (const char *t = svg; (t = strstr(t, "<text class=\"tick\"")) && t < end; t++, ticks++) {
		double tx = num(t, "x"), at = LBL + ticks * st / total * PLOT;
		cr_expect(fabs(tx - at) <= 0.06, "%s: tick %u at %.1f, want %.2f", log, ticks, tx, at);
		char lbl[32];
		snprintf(lbl, sizeof lbl, ">%g s</text>", ticks * st);
		cr_expect(!strncmp(strchr(t, '>'), lbl, strlen(lbl)), "%s: tick %u says %.20s, want %s", log, ticks,
			  strchr(t, '>'), lbl);
		cr_expect_float_eq(num(t, "y"), y + 2 + 18, 1e-9);
	}
	cr_expect_eq(ticks, want, "%s: %u ticks over %g s, want %u (step %g)", log, ticks, total, want, st);
	return bars;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The A/B chart from @svg to @end: arms 30 units apart from y = 8, a
 * 300-unit label column, points at 300 + v / hi * 776 where hi is 1.04
 * times the slowest point, each arm's median line at its points' median.
 * Return the number of points. */
static unsigned small_arms; /* arms of fewer than 3 starts, over the corpus */

static unsigned check_abchart(const char *log, const char *svg, const char *end)
{
	double hi = 0;
	unsigned npts = 0;
	for (const char *c = svg; (c = strstr(c, "<circle class=\"pt\"")) && c < end; c++, npts++)
		if (num(c, "data-v") > hi)
			hi = num(c, "data-v");
	cr_assert_geq(npts, 2, "%s: an A/B chart of %u points", log, npts);
	hi *= 1.04;
	unsigned arms = 0;
	for (const char *g = svg; (g = strstr(g, "<g class=\"arm\"")) && g < end; g++, arms++) {
		const char *ge = strstr(g, "</g>");
		double y = 8 + 30.0 * arms;
		const char *band = strstr(g, "<rect class=\"band\"");
		cr_assert(band && band < ge);
		cr_expect_float_eq(num(band, "x"), 300, 1e-9);
		cr_expect_float_eq(num(band, "width"), 776, 1e-9);
		cr_expect_float_eq(num(band, "y"), y, 1e-9, "%s: arm %u at %g", log, arms, num(band, "y"));
		double v[256];
		unsigned n = 0;
		for (const char *c = g; (c = strstr(c, "<circle class=\"pt\"")) && c < ge && n < 256; c++) {
			v[n] = num(c, "data-v");
			double want = 300 + v[n] / hi * 776;
			cr_expect(fabs(num(c, "cx") - want) <= 0.06 + 776 * 1e-5, "%s: point %g at %.1f, want %.2f", log, v[n],
				  num(c, "cx"), want);
			cr_expect_float_eq(num(c, "cy"), y + 13, 1e-9);
			n++;
		}
		const char *ml = strstr(g, "<line class=\"median\"");
		if (n && ml && ml < ge && !strstr(end, "more starts not drawn")) {
			qsort(v, n, sizeof v[0], dcmp);
			double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, got = num(ml, "data-median");
			cr_expect(fabs(got - med) <= 1e-5 * fmax(1, med), "%s: arm %u median %g, its points' %g", log, arms,
				  got, med);
			double x = 300 + got / hi * 776;
			cr_expect(fabs(num(ml, "x1") - x) <= 0.06 + 776 * 1e-5, "%s: median at %.1f, want %.2f", log,
				  num(ml, "x1"), x);
			cr_expect_float_eq(num(ml, "x2"), num(ml, "x1"), 1e-9);
			cr_expect_float_eq(num(ml, "y1"), y + 1, 1e-9);
			cr_expect_float_eq(num(ml, "y2"), y + 25, 1e-9);
			const char *mt = strstr(ml, "<text class=\"med\"");
			cr_assert(mt && mt < ge);
			double tx = x + 5 > 990 ? x - 95 : x + 5;
			cr_expect(fabs(num(mt, "x") - tx) <= 0.12, "%s: median label at %.1f, want %.2f", log, num(mt, "x"), tx);
		}
	}
	/* under the chart, one warning per arm of fewer than 3 starts (its
	 * data-n), naming it and its count, and none for the others */
	const char *sec_end = strstr(end, "</section>");
	cr_assert_not_null(sec_end);
	unsigned few = 0, warned = 0;
	for (const char *g = svg; (g = strstr(g, "<g class=\"arm\"")) && g < end; g++) {
		char label[200], nbuf[16];
		cr_assert(attr(g, "data-arm", label, sizeof label) && attr(g, "data-n", nbuf, sizeof nbuf));
		unsigned na = (unsigned)strtoul(nbuf, NULL, 10);
		if (na >= 3)
			continue;
		few++;
		small_arms++;
		char want[320];
		snprintf(want, sizeof want, "<p class=\"miss\">Arm &#8220;%s&#8221; has %u start%s: fewer than 3", label,
			 na, na == 1 ? "" : "s");
		const char *w = strstr(end, want);
		cr_expect(w && w < sec_end, "%s: no warning for arm %s of %u", log, label, na);
	}
	for (const char *w = end; (w = strstr(w, "<p class=\"miss\">Arm &#8220;")) && w < sec_end; w++)
		warned++;
	cr_expect_eq(warned, few, "%s: %u warnings of small arms, %u arms have fewer than 3 starts", log, warned, few);
	char vb[64];
	cr_assert(attr(svg, "viewBox", vb, sizeof vb));
	double vw = 0, vh = 0;
	cr_assert_eq(sscanf(vb, "0 0 %lf %lf", &vw, &vh), 2);
	cr_expect_float_eq(vh, 8 + 30.0 * arms + 30, 1e-9, "%s: %u arms, height %g", log, arms, vh);
	const char *ax = strstr(svg, "<g class=\"axis\"");
	cr_assert(ax && ax < end);
	cr_expect_float_eq(num(strstr(ax, "<line"), "y1"), 8 + 30.0 * arms + 2, 1e-9);
	cr_expect_float_eq(num(strstr(ax, "<line"), "x1"), 300, 0.06);
	cr_expect(fabs(num(strstr(ax, "<line"), "x2") - 1076) <= 0.06, "%s: axis to %.1f", log, num(strstr(ax, "<line"), "x2"));
	return npts;
}

Test(triage_html_geometry, every_corpus_page_is_drawn_to_scale)
{
	size_t nlogs;
	char **logs = trun_list(LSC_TEST_CORPUS "/logs", ".log", &nlogs);
	cr_assert_gt(nlogs, 10);
	unsigned timelines = 0, bars = 0, charts = 0, points = 0;
	for (size_t i = 0; i < nlogs; i++) {
		size_t n;
		char *log = trun_corpus_log(logs[i], &n);
		cr_assert_not_null(log);
		struct lsc_triage *t = trun_feed(log, n, 4096, 0, NULL);
		cr_assert_not_null(t);
		char *page = trun_render(t, TRUN_HTML, &n);
		cr_assert_not_null(page, "%s", logs[i]);
		for (const char *s = page; (s = strstr(s, "<svg class=\"timeline\"")); s++) {
			const char *e = strstr(s, "</svg>");
			cr_assert_not_null(e);
			bars += check_timeline(logs[i], s, e);
			timelines++;
		}
		for (const char *s = page; (s = strstr(s, "<svg class=\"abchart\"")); s++) {
			const char *e = strstr(s, "</svg>");
			cr_assert_not_null(e);
			points += check_abchart(logs[i], s, e);
			charts++;
		}
		free(page);
		lsc_triage_free(t);
		free(log);
	}
	trun_names_free(logs, nlogs);
	/* the corpus draws: not a property that holds of nothing */
	cr_expect_gt(timelines, 50, "%u timelines", timelines);
	cr_expect_gt(bars, 200, "%u bars", bars);
	cr_expect_geq(charts, 3, "%u A/B charts", charts);
	cr_expect_geq(points, 10, "%u A/B points", points);
	cr_expect_gt(small_arms, 0, "no arm of fewer than 3 starts: its warning is unchecked");
}

/* One start laid out by hand: allocate 2 s, pin 1 s, read 3 s (from 3 s),
 * copy and verify 0.5 s alongside the read, 0.5 s unattributed after the
 * read (at 6 s), ready at 7 s; the read is the longest work. */
Test(triage_html_geometry, phases_sit_where_they_ran)
{
	static const char log[] =
		"[loadscope/1] start e | run=00000001\n"
		"[loadscope/1] phase allocate | run=00000001 kind=allocate name=allocate depth=0 wall_s=2.0\n"
		"[loadscope/1] phase pin | run=00000001 kind=pin name=pin depth=0 wall_s=1.0\n"
		"[loadscope/1] phase read | run=00000001 kind=read name=read depth=0 wall_s=3.0\n"
		"[loadscope/1] phase copy | run=00000001 kind=copy name=copy depth=0 wall_s=0.5 overlapped=1\n"
		"[loadscope/1] phase verify | run=00000001 kind=verify name=verify depth=0 wall_s=0.5 overlapped=1\n"
		"[loadscope/1] ready | run=00000001 wall_s=7.0 unattributed_s=0.5\n";
	struct lsc_triage *t = trun_feed(log, sizeof log - 1, 4096, 0, NULL);
	cr_assert_not_null(t);
	size_t n;
	char *page = trun_render(t, TRUN_HTML, &n);
	cr_assert_not_null(page);
	const char *svg = strstr(page, "<svg class=\"timeline\"");
	cr_assert_not_null(svg);
	cr_expect_float_eq(num(svg, "data-total-s"), 7, 1e-9);
	static const struct {
		const char *phase;
		double s, d;
		const char *row;
	} want[] = {{"allocate", 0, 2, "phases"}, {"pin", 2, 1, "phases"},        {"read", 3, 3, "phases"},
		    {"copy", 3, 0.5, "overlapped"}, {"verify", 3, 0.5, "overlapped"}, {"unattributed", 6, 0.5, "phases"},
		    {"load to ready", 0, 7, "start"}};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		char key[64];
		snprintf(key, sizeof key, "data-phase=\"%s\"", want[i].phase);
		const char *r = strstr(svg, key);
		cr_assert_not_null(r, "no %s bar", want[i].phase);
		while (r > svg && strncmp(r, "<rect", 5))
			r--;
		cr_expect_float_eq(num(r, "data-start-s"), want[i].s, 1e-9, "%s", want[i].phase);
		cr_expect_float_eq(num(r, "data-dur-s"), want[i].d, 1e-9, "%s", want[i].phase);
		char row[32];
		cr_assert(attr(r, "data-row", row, sizeof row));
		cr_expect_str_eq(row, want[i].row, "%s", want[i].phase);
		/* the longest bar of work is marked, here the read's 3 s; the
		 * start's own bar is no work of its own */
		const char *e = strchr(r, '>');
		char cls[96] = "";
		cr_assert(attr(r, "class", cls, sizeof cls) && e);
		cr_expect_eq(strstr(cls, "longest") != NULL, !strcmp(want[i].phase, "read"), "%s: class %s",
			     want[i].phase, cls);
	}
	/* and the page's lead sentence names it: 3 s of 7 is 43 % */
	cr_expect(strstr(page, "<b>read</b> took 3 s, <b>43%</b> of the start (7 s to ready)."), "%s",
		  strstr(page, "class=\"lead\"") ? strstr(page, "class=\"lead\"") : page);
	free(page);
	lsc_triage_free(t);
}

/* The axis at the edges of its steps: 16 s is 2 s a tick (16 / 8 = 2,
 * nine ticks), 40 s is 5 s (nine), 8.8 s is 2 s (1.1 is over 1: five). */
Test(triage_html_geometry, axis_steps_at_their_edges)
{
	static const struct {
		double total;
		unsigned ticks;
		const char *last;
	} want[] = {{16, 9, ">16 s</text>"}, {40, 9, ">40 s</text>"}, {8.8, 5, ">8 s</text>"}};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		char log[512];
		snprintf(log, sizeof log,
			 "[loadscope/1] start e | run=00000001\n"
			 "[loadscope/1] phase read | run=00000001 kind=read name=read depth=0 wall_s=1.0\n"
			 "[loadscope/1] ready | run=00000001 wall_s=%g\n",
			 want[i].total);
		struct lsc_triage *t = trun_feed(log, strlen(log), 4096, 0, NULL);
		cr_assert_not_null(t);
		size_t n;
		char *page = trun_render(t, TRUN_HTML, &n);
		cr_assert_not_null(page);
		const char *svg = strstr(page, "<svg class=\"timeline\""), *e = svg ? strstr(svg, "</svg>") : NULL;
		cr_assert(svg && e);
		check_timeline("axis", svg, e);
		unsigned ticks = 0;
		const char *last = NULL;
		for (const char *p = svg; (p = strstr(p, "<text class=\"tick\"")) && p < e; p++, ticks++)
			last = strchr(p, '>');
		cr_expect_eq(ticks, want[i].ticks, "%g s: %u ticks", want[i].total, ticks);
		cr_expect(last && !strncmp(last, want[i].last, strlen(want[i].last)), "%g s: last tick %.12s", want[i].total,
			  last ? last : "");
		free(page);
		lsc_triage_free(t);
	}
}

/* Two arms of sub-second starts (the loader's own A/B on a small file):
 * the chart's scale is the slowest point's, 0.5 s, not a second. */
Test(triage_html_geometry, a_chart_of_sub_second_starts)
{
	struct lsc_triage *t = lsc_triage_new(NULL);
	cr_assert_not_null(t);
	static const double secs[] = {0.2, 0.3, 0.25, 0.5, 0.45, 0.4};
	for (unsigned i = 0; i < 6; i++) {
		if (i % 3 == 0)
			cr_assert_eq(lsc_triage_arm(t, i ? "fast" : "slow"), 0);
		char log[256];
		int n = snprintf(log, sizeof log,
				 "[loadscope/1] start e | run=0000000%u\n[loadscope/1] ready | run=0000000%u wall_s=%g\n", i + 1,
				 i + 1, secs[i]);
		cr_assert_eq(lsc_triage_feed(t, log, (size_t)n), 0);
	}
	size_t n;
	char *page = trun_render(t, TRUN_HTML, &n);
	cr_assert_not_null(page);
	const char *svg = strstr(page, "<svg class=\"abchart\""), *e = svg ? strstr(svg, "</svg>") : NULL;
	cr_assert(svg && e, "no A/B chart");
	cr_expect_eq(check_abchart("sub-second arms", svg, e), 6);
	/* the slowest point 1/1.04 of the way along the plot */
	const char *slow = strstr(svg, "data-v=\"0.5\"");
	cr_assert_not_null(slow);
	while (slow > svg && strncmp(slow, "<circle", 7))
		slow--;
	cr_expect(fabs(num(slow, "cx") - (300 + 776 / 1.04)) < 0.06, "the slowest point at %.1f", num(slow, "cx"));
	free(page);
	lsc_triage_free(t);
}
