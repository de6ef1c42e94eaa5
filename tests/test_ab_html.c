/*
 * Description: `loadscope ab --html` (tools/ab_html.c), over a fake start
 * that prints llama.cpp's lines with load times from a per-arm list (no
 * sleeping), checked as text and in a real browser, as test_triage_html.c
 * checks the triage's page. As text: the CSP that forbids every script, no
 * script, an arm's spec with markup in it escaped. In headless Chromium
 * (Debian's `chromium`; the browser tests skip loudly where it is missing or
 * cannot start): the title and the strip chart carry the arms' own names
 * (one row per arm, one point per run), the phase table per arm has the
 * medians worked by hand from the fake data, both verdicts are on the page
 * (the wall time's, the load to ready's worked by hand), the spec's markup
 * is text, not elements, and the screenshot is far from a blank page's.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "helpers/browser.h"
#include "helpers/tool_run.h"
#include "helpers/triage_run.h"

static char out[1 << 16], err[1 << 15];
static const char *dir;

static void setup(void)
{
	lsct_tool_required();
	dir = lsct_scratch("ab-html");
}

TestSuite(ab_html, .init = setup, .fini = lsct_scratch_remove);

static const char *path_in(const char *name)
{
	static char p[8][256];
	static int k;
	char *r = p[k++ % 8];
	snprintf(r, 256, "%s/%s", dir, name);
	return r;
}

static const char fake_llama[] =
	"#!/bin/sh\n"
	"n=$(cat \"$D/count.$ARM\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > \"$D/count.$ARM\"\n"
	"t=$(sed -n \"${n}p\" \"$D/times.$ARM\")\n"
	"echo \"llama_model_loader: loaded meta data with 40 key-value pairs and 626 tensors from /m/x.gguf\"\n"
	"echo \"load_tensors: loading model tensors, this can take a while... (mmap = true)\"\n"
	"echo \"llama_perf_context_print:        load time =    $t ms\"\n";

/* The page of 3 runs per arm: auto 3.0 1.0 2.0 s, 4k 0.5 0.7 0.6 s. */
static char *make_page(const char *page)
{
	const char *fake = lsct_scratch_file("fake.sh", fake_llama, 0755);
	lsct_scratch_file("times.auto", "3000\n1000\n2000\n", 0644);
	lsct_scratch_file("times.4k", "500\n700\n600\n", 0644);
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 3 --pause 0 --arm auto=env=ARM=auto --arm '4k=env=ARM=4k,env=X=<b>x</b>' "
			   "--out '%s/logs' --html '%s' -- env D='%s' '%s'",
			   dir, page, dir, fake);
	cr_assert_eq(rc, 0, "%s", err);
	char *h = trun_slurp(page, &(size_t){0});
	cr_assert_not_null(h, "no page %s", page);
	return h;
}

Test(ab_html, the_page_as_text)
{
	char *h = make_page(path_in("ab.html"));
	cr_assert(strstr(h, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "), "%s", h);
	cr_assert_null(strstr(h, "<script"));
	cr_assert_null(strstr(h, "<b>x"), "the spec's markup reached the page");
	cr_assert(strstr(h, "<code>env=ARM=4k,env=X=&lt;b&gt;x&lt;/b&gt;</code>"), "%s", h);
	cr_assert(strstr(h, "<title>loadscope ab: auto vs 4k</title>"), "%s", h);
	/* each run's row gives its exit, 0 for the fake's six runs, in its
	 * fourth cell (seed 20261218's survivor at ab_html.c:173: the exit
	 * words not written) */
	int rows = 0;
	for (const char *r = h; (r = strstr(r, "<tr data-run=\"")) != NULL; r++, rows++) {
		const char *c = r;
		for (int k = 0; k < 4 && c; k++)
			if ((c = strstr(c, "<td>")) != NULL)
				c += 4;
		cr_expect(c && !strncmp(c, "0</td>", 6), "run row %d: %.120s", rows + 1, r);
	}
	cr_expect_eq(rows, 6);
	free(h);
}

/* A number attribute @name="..." of the element at @p (NAN when it has none
 * before the element closes). */
static double attr(const char *p, const char *name)
{
	char key[32];
	snprintf(key, sizeof key, " %s=\"", name);
	const char *close = strchr(p, '>');
	const char *k = strstr(p, key);
	return k && (!close || k < close) ? strtod(k + strlen(key), NULL) : NAN;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The strip chart to scale, whatever the runs' wall times were (they are
 * measured, so read off the page): the axis runs from the plot's left
 * edge for its width; the slowest run sits at 1/1.04 of it (the page's
 * margin, so no point is drawn on the frame); every run's point is at its
 * time over that scale, in its arm's row; each arm's median line is at the
 * median of its own points, worked here; five ticks at quarters of the
 * scale, each labelled with its time and centred on it, the last ending
 * at the frame. */
Test(ab_html, the_strip_chart_to_scale)
{
	char *h = make_page(path_in("scale.html"));
	const char *svg = strstr(h, "<svg class=\"abchart\"");
	cr_assert_not_null(svg, "no chart");
	const char *end = strstr(svg, "</svg>");
	const char *ax = strstr(svg, "<g class=\"axis\"><line");
	cr_assert(ax && ax < end);
	ax = strstr(ax, "<line");
	double lw = attr(ax, "x1"), right = attr(ax, "x2"), pw = right - lw;
	cr_assert(pw > 0, "axis %g..%g", lw, right);
	double v[2][8], hi = 0;
	unsigned n[2] = {0, 0};
	const char *arm[2] = {strstr(svg, "<g class=\"arm\" data-arm=\"auto\""), strstr(svg, "<g class=\"arm\" data-arm=\"4k\"")};
	cr_assert(arm[0] && arm[1] && arm[0] < arm[1] && arm[1] < end, "one row per arm, in order");
	for (int a = 0; a < 2; a++) {
		const char *row_end = strstr(arm[a], "</g>");
		for (const char *c = arm[a]; (c = strstr(c, "<circle")) && c < row_end; c++) {
			cr_assert_lt(n[a], 8);
			v[a][n[a]] = attr(c, "data-v");
			hi = v[a][n[a]] > hi ? v[a][n[a]] : hi;
			n[a]++;
		}
		cr_expect_eq(n[a], 3, "arm %d: %u points, want one per run", a, n[a]);
	}
	double scale = hi * 1.04;
	for (int a = 0; a < 2; a++) {
		const char *row_end = strstr(arm[a], "</g>");
		unsigned i = 0;
		for (const char *c = arm[a]; (c = strstr(c, "<circle")) && c < row_end; c++, i++) {
			double want = lw + v[a][i] / scale * pw;
			cr_expect(fabs(attr(c, "cx") - want) <= 0.06, "arm %d run %u: cx %g, want %.2f", a, i, attr(c, "cx"),
				  want);
		}
		qsort(v[a], n[a], sizeof(double), by_value);
		double med = v[a][n[a] / 2];
		const char *m = strstr(arm[a], "<line class=\"median\"");
		cr_assert(m && m < row_end, "arm %d: no median line", a);
		cr_expect(fabs(attr(m, "data-median") - med) <= 1e-5 * med, "arm %d: median %g, want %g", a,
			  attr(m, "data-median"), med);
		cr_expect(fabs(attr(m, "x1") - (lw + med / scale * pw)) <= 0.06, "arm %d: median at %g, want %.2f", a,
			  attr(m, "x1"), lw + med / scale * pw);
		cr_expect_eq(attr(m, "x1"), attr(m, "x2"), "arm %d: the median line is upright", a);
	}
	unsigned ticks = 0;
	for (const char *t = ax; (t = strstr(t, "<text class=\"tick\"")) && t < end; t++, ticks++) {
		double at = lw + pw * ticks / 4;
		cr_expect(fabs(attr(t, "x") - at) <= 0.06, "tick %u at %g, want %.2f", ticks, attr(t, "x"), at);
		char lbl[48], anchor[48];
		snprintf(lbl, sizeof lbl, ">%.3g s</text>", scale * ticks / 4);
		cr_expect(!strncmp(strchr(t, '>'), lbl, strlen(lbl)), "tick %u says %.16s, want %s", ticks, strchr(t, '>'),
			  lbl);
		snprintf(anchor, sizeof anchor, " text-anchor=\"%s\"", ticks == 4 ? "end" : "middle");
		cr_expect(strstr(t, anchor) && strstr(t, anchor) < strchr(t, '>'), "tick %u: not%s", ticks, anchor);
	}
	cr_expect_eq(ticks, 5, "%u ticks, want 5", ticks);
	free(h);
}

/* Whatever bytes CMD holds, the page is valid UTF-8 and shows them
 * faithfully: each well-formed sequence as it is (2, 3 and 4 bytes), every
 * byte of a malformed one as '?' (a stray continuation, an overlong form,
 * a surrogate, past U+10FFFF, a sequence cut by the end), control bytes
 * as '?', markup as entities; the expected text is written out here byte
 * by byte from those rules. */
Test(ab_html, every_byte_of_the_command_is_shown_or_replaced)
{
	static const char arg[] = "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80" /* e acute, a CJK, an emoji */
				  "\xff"                                 /* never in UTF-8 */
				  "\xc0\xaf"                             /* an overlong '/' */
				  "\xed\xa0\x80"                         /* a surrogate */
				  "\xf4\x90\x80\x80"                     /* past U+10FFFF */
				  "\xe0\x80\x80"                         /* an overlong NUL */
				  "\x80"                                 /* a lone continuation */
				  "<&>\""                                /* markup */
				  "\x01\x7f"                             /* controls */
				  "\xe2\x82";                            /* a euro sign cut short */
	static const char want[] = "<code>true &#39;\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80"
				   "?" "??" "???" "????" "???" "?" "&lt;&amp;&gt;&quot;" "??" "??"
				   "&#39;</code>";
	const char *page = path_in("bytes.html");
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 3 --pause 0 --arm a=env=A=1 --arm b=env=A=2 --out '%s/logs' --html '%s' -- true '%s'",
			   dir, page, arg);
	cr_assert(rc == 0 || rc == 1, "exit %d: %s", rc, err);
	size_t n = 0;
	char *h = trun_slurp(page, &n);
	cr_assert_not_null(h, "no page %s: %s", page, err);
	cr_assert(strstr(h, want), "the command as shown:\n%s", strstr(h, "<code>") ? strstr(h, "<code>") : h);
	free(h);
}

/* ---- in a real browser ------------------------------------------------------ */





static unsigned count(const char *s, const char *needle)
{
	unsigned n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p++)
		n++;
	return n;
}


Test(ab_html, the_page_in_the_browser)
{
	lsct_need_browser(dir);
	const char *page = path_in("ab.html"), *dom = path_in("ab.dom");
	free(make_page(page));
	cr_assert_eq(lsct_browse(dir, page, dom, NULL), 0);
	char *d = trun_slurp(dom, &(size_t){0});
	cr_assert_not_null(d);
	cr_assert(strstr(d, "<title>loadscope ab: auto vs 4k</title>"), "%s", d);
	/* the strip chart: a row per arm by its own name, a point per run */
	cr_assert(strstr(d, "<g class=\"arm\" data-arm=\"auto\" data-n=\"3\">"), "%s", d);
	cr_assert(strstr(d, "<g class=\"arm\" data-arm=\"4k\" data-n=\"3\">"), "%s", d);
	cr_assert_eq(count(d, "<circle class=\"pt\""), 6, "%s", d);
	cr_assert_eq(count(d, "<line class=\"median\""), 2, "%s", d);
	/* the phases per arm, by hand: auto 3.0 1.0 2.0 -> 2.000; 4k -> 0.600 */
	cr_assert(strstr(d, "<tr data-phase=\"load_to_ready_s\"><th>load to ready (s)</th><td>2.000</td><td>0.600</td></tr>"),
		  "%s", d);
	/* both verdicts; on load to ready 4k is below auto in every run, but
	 * n = 3 cannot show it; 2.0 / 0.6 = 3.33x */
	cr_assert(strstr(d, "<p class=\"conclusion same\" data-metric=\"wall_s\" data-a=\"auto\" data-b=\"4k\""), "%s", d);
	cr_assert(strstr(d, "load to ready: auto vs 4k: no measurable difference at n = 3: run more (every run of 4k "
			    "was faster, 3.33x by median, but n = 3 cannot show it: p = 0.1 is the least it allows)"),
		  "%s", d);
	/* the spec's markup is text: no <b> element came of it */
	cr_assert(strstr(d, "env=X=&lt;b&gt;x&lt;/b&gt;"), "%s", d);
	cr_assert_null(strstr(d, "<b>x</b>"), "%s", d);
	/* each arm's findings section, and each run with its log */
	cr_assert(strstr(d, "<section class=\"findings\" data-arm=\"auto\">"), "%s", d);
	cr_assert_eq(count(d, "<tr data-run=\""), 6, "%s", d);
	free(d);

	/* drawn: the screenshot is the window's width and far from blank */
	const char *png = path_in("ab.png"), *blank = path_in("blank.html"), *bpng = path_in("blank.png");
	FILE *f = fopen(blank, "w");
	cr_assert_not_null(f);
	fputs("<!DOCTYPE html><html><head><title>blank</title></head><body></body></html>", f);
	fclose(f);
	cr_assert_eq(lsct_browse(dir, page, NULL, png), 0);
	cr_assert_eq(lsct_browse(dir, blank, NULL, bpng), 0);
	uint32_t w = 0, bw = 0;
	uint32_t h, bh;
	size_t n = 0, bn = 0;
	if (!lsct_png_size(png, &w, &h, &n))
		n = 0;
	if (!lsct_png_size(bpng, &bw, &bh, &bn))
		bn = 0;
	cr_assert(n && bn, "no screenshot");
	cr_assert_eq(w, 1200);
	cr_assert_gt(n, 5 * bn, "the page's screenshot (%zu bytes) is close to a blank page's (%zu)", n, bn);
}
