/*
 * Description: an engine's start as it ran. A start whose engine opened
 * spans of its own (custom phases, as examples/ggml's metadata, buffers,
 * weights, graph, first compute) shows them in its phase table in the order
 * they ran, beside the loader's phases, and the page draws every span where
 * it ran: it began at its line's t_s less its wall time, so a loader phase
 * nested in the engine's "weights" sits inside it, not at t = 0. The
 * figures below are the lines' own t_s and wall_s, chosen apart from the
 * code: weights ends at 3.0 s after 2.0 s, so it began at 1.0 s.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/test_env.h"
#include "helpers/triage_run.h"
#include "triage/internal.h"
#include "triage/triage.h"

static const char *const LOG =
	"[loadscope/2] start eng: pid 1, loadscope 0.3.0, 2026-12-01T00:00:00Z | run=0000000b t_s=0.000\n"
	"[loadscope/2] phase metadata: 0.500 s | run=0000000b t_s=0.500 kind=custom wall_s=0.500 name=metadata\n"
	"[loadscope/2] phase buffers: 0.500 s | run=0000000b t_s=1.000 kind=custom wall_s=0.500 name=buffers\n"
	"[loadscope/2] phase read (nested): 1.00 GiB in 1.500 s (0.67 GiB/s) | run=0000000b t_s=2.900 kind=read "
	"wall_s=1.500 name=read depth=1 bytes=1073741824\n"
	"[loadscope/2] phase weights: 2.000 s | run=0000000b t_s=3.000 kind=custom wall_s=2.000 name=weights\n"
	"[loadscope/2] phase first compute: 1.000 s | run=0000000b t_s=4.000 kind=custom wall_s=1.000 "
	"name=\"first compute\"\n"
	"[loadscope/2] ready in 4.000 s: 5 phases, 0.000 s (0.0%) unattributed | run=0000000b t_s=4.000 "
	"wall_s=4.0\n";

#define HTML TRUN_HTML

static char *render(struct lsc_triage *t, int fmt)
{
	size_t len;
	char *buf = trun_render(t, (enum lsc_triage_fmt)fmt, &len);
	cr_assert_not_null(buf);
	return buf;
}

Test(triage_spans, the_engine_phases_are_in_the_table_in_order)
{
	struct lsc_triage *t = trun_text(LOG);
	char *txt = render(t, LSC_TRIAGE_TEXT);
	const char *rows[] = {"metadata (s)", "buffers (s)", "weights (s)", "first compute (s)"};
	const char *at = txt;
	for (size_t i = 0; i < 4; i++) {
		const char *r = strstr(txt, rows[i]);
		cr_assert_not_null(r, "no row %s:\n%s", rows[i], txt);
		cr_assert_geq(r, at, "%s out of order:\n%s", rows[i], txt);
		at = r;
	}
	/* the nested loader phase is the read row, not one of the engine's */
	cr_assert(strstr(txt, "read (s)"), "%s", txt);
	free(txt);
	lsc_triage_free(t);
}

/* The bar of @label on the page: where it starts and how long it is. */
static int bar(const char *html, const char *label, double *start, double *dur)
{
	char key[64];
	snprintf(key, sizeof key, "data-phase=\"%s\"", label);
	const char *b = strstr(html, key);
	if (!b)
		return 0;
	const char *s = strstr(b, "data-start-s=\""), *d = strstr(b, "data-dur-s=\"");
	cr_assert(s && d);
	*start = strtod(s + strlen("data-start-s=\""), NULL);
	*dur = strtod(d + strlen("data-dur-s=\""), NULL);
	return 1;
}

Test(triage_spans, the_page_draws_each_span_where_it_ran)
{
	struct lsc_triage *t = trun_text(LOG);
	char *html = render(t, HTML);
	static const struct {
		const char *label;
		double start, dur;
	} want[] = {
		{"metadata (s)", 0.0, 0.5}, {"buffers (s)", 0.5, 0.5},	  {"weights (s)", 1.0, 2.0},
		{"read (s)", 1.4, 1.5},	    {"first compute (s)", 3.0, 1.0},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		double s, d;
		cr_assert(bar(html, want[i].label, &s, &d), "no bar %s", want[i].label);
		cr_expect(s > want[i].start - 1e-6 && s < want[i].start + 1e-6, "%s starts at %g, not %g",
			  want[i].label, s, want[i].start);
		cr_expect(d > want[i].dur - 1e-6 && d < want[i].dur + 1e-6, "%s lasts %g, not %g", want[i].label, d,
			  want[i].dur);
	}
	free(html);
	lsc_triage_free(t);
}

/* A loadscope load of its own (no engine span) keeps its layout: the
 * loader's phases laid end to end from 0. */
Test(triage_spans, a_plain_load_keeps_its_layout)
{
	static const char *const plain =
		"[loadscope/2] start loadscope load: pid 1 | run=0000000c t_s=0.000\n"
		"[loadscope/2] phase allocate: 1.00 GiB in 0.500 s (2.00 GiB/s) | run=0000000c t_s=0.600 kind=allocate "
		"wall_s=0.500 bytes=1073741824\n"
		"[loadscope/2] phase read: 1.00 GiB in 1.000 s (1.00 GiB/s) | run=0000000c t_s=1.700 kind=read "
		"wall_s=1.000 bytes=1073741824\n"
		"[loadscope/2] ready in 1.800 s: 2 phases | run=0000000c t_s=1.800 wall_s=1.8\n";
	struct lsc_triage *t = trun_text(plain);
	char *html = render(t, HTML);
	double s, d;
	cr_assert(bar(html, "read", &s, &d), "%s", html);
	cr_expect(s > 0.5 - 1e-6 && s < 0.5 + 1e-6, "read at %g", s);
	free(html);
	lsc_triage_free(t);
}

/* A start with no ready line is drawn to the end of its copy: allocate
 * 2 s, then the read (3 s) overlapped by the copy (5 s) it feeds, so the
 * axis runs to 2 + 5 = 7 s and the copy bar starts at 2 s. */
Test(triage_spans, a_start_without_ready_ends_with_its_copy)
{
	struct lsc_triage *t = trun_text(
		"[loadscope/1] start e | run=00000001\n"
		"[loadscope/1] phase allocate | run=00000001 kind=allocate bytes=1073741824 wall_s=2\n"
		"[loadscope/1] phase read | run=00000001 kind=read bytes=1073741824 wall_s=3\n"
		"[loadscope/1] phase copy | run=00000001 kind=copy bytes=1073741824 wall_s=5\n");
	char *html = render(t, HTML);
	cr_expect(strstr(html, "data-total-s=\"7\""), "%s", html);
	double s, d;
	cr_assert(bar(html, "copy", &s, &d));
	cr_expect_eq(s, 2);
	cr_expect_eq(d, 5);
	free(html);
	lsc_triage_free(t);
}

/* An engine's load summary alone ("loaded 40.00 GiB at 2.00 GiB/s") is
 * drawn as the load it implies, from the start: 40 / 2 = 20 s from 0. */
Test(triage_spans, a_load_summary_is_drawn_from_the_start)
{
	struct lsc_triage *t = trun_text("strata generate: loaded 40.00 GiB at 2.00 GiB/s\n[strata] ready in 60 s\n");
	char *html = render(t, HTML);
	double s, d;
	cr_assert(bar(html, "load", &s, &d), "%s", html);
	cr_expect_eq(s, 0);
	cr_expect_eq(d, 20);
	free(html);
	lsc_triage_free(t);
}

/* The loader's phase kinds by name, as the lines spell them, and "?" for
 * a value past the last kind (a kind read from a newer line): never a read
 * past the table. */
Test(triage_spans, each_kind_has_its_lines_name)
{
	static const char *const names[] = {"allocate", "pin", "read", "copy", "verify"};
	cr_assert_eq(TR_K_N, sizeof(names) / sizeof(names[0]));
	for (int k = 0; k < TR_K_N; k++)
		cr_expect_str_eq(tr_kind_name((enum tr_kind)k), names[k]);
	cr_expect_str_eq(tr_kind_name(TR_K_N), "?");
	cr_expect_str_eq(tr_kind_name((enum tr_kind)-1), "?");
}
