/*
 * Inputs apart: two logs triaged as two inputs of one run (what
 * `loadscope triage a.log b.log` does) give each its own findings, those
 * it gives alone, the second's starts numbered after the first's.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/triage_run.h"

#define LOGS LSC_TEST_CORPUS "/logs"

static struct lsc_triage *two(const char *a, size_t al, const char *b, size_t bl)
{
	struct lsc_triage_opts o = {.source = "a.log"};
	struct lsc_triage *t = lsc_triage_new(&o);
	cr_assert(t);
	lsc_triage_feed(t, a, al);
	cr_assert_eq(lsc_triage_source(t, "b.log"), 0);
	lsc_triage_feed(t, b, bl);
	lsc_triage_finish(t);
	return t;
}

Test(inputs, each_input_gets_its_own_findings)
{
	size_t n;
	char **names = trun_list_developed(LOGS, &n);
	cr_assert(names && n > 1);
	char **buf = calloc(n, sizeof *buf);
	size_t *len = calloc(n, sizeof *len), *ns = calloc(n, sizeof *ns);
	struct tset *alone = calloc(n, sizeof *alone);
	cr_assert(buf && len && ns && alone);
	for (size_t i = 0; i < n; i++) {
		buf[i] = trun_corpus_log(names[i], &len[i]);
		cr_assert(buf[i]);
		struct lsc_triage *t = trun_feed(buf[i], len[i], len[i] ? len[i] : 1, 0, NULL);
		cr_assert(t);
		ns[i] = lsc_triage_nstarts(t);
		trun_findings(t, &alone[i]);
		lsc_triage_free(t);
	}
	for (size_t i = 0; i + 1 < n; i++) {
		size_t j = i + 1;
		struct tset want = {0}, got = {0};
		for (size_t k = 0; k < alone[i].n; k++)
			cr_assert(tset_add(&want, alone[i].r[k].id, alone[i].r[k].sev, alone[i].r[k].start) == 0);
		for (size_t k = 0; k < alone[j].n; k++)
			cr_assert(tset_add(&want, alone[j].r[k].id, alone[j].r[k].sev,
					   alone[j].r[k].start + (unsigned)ns[i]) == 0);
		tset_sort(&want);
		struct lsc_triage *t = two(buf[i], len[i], buf[j], len[j]);
		trun_findings(t, &got);
		char a[2048], b[2048];
		cr_expect(tset_equal(&want, &got), "%s then %s:\n  apart:    %s\n  together: %s", names[i], names[j],
			  tset_str(&want, a, sizeof a), tset_str(&got, b, sizeof b));
		lsc_triage_free(t);
		tset_free(&want);
		tset_free(&got);
	}
	for (size_t i = 0; i < n; i++) {
		free(buf[i]);
		tset_free(&alone[i]);
	}
	free(buf);
	free(len);
	free(ns);
	free(alone);
	trun_names_free(names, n);
}

/* Two inputs through the program's API: the findings and starts of @b as
 * the second input after @a. */
static struct lsc_triage *after(const char *a, const char *b)
{
	return two(a, strlen(a), b, strlen(b));
}

/* Each thing an input leaves open, and the second input that would read
 * it as its own. */
Test(inputs, nothing_open_in_one_input_reaches_the_next)
{
	/* the first input's start, still loading: the second's lines are not
	 * its (a second input's load summary is its own start) */
	struct lsc_triage *t = after("INFO engine: Loading model /m/a\n", "ERROR engine: failed to load model /m/b\n");
	cr_expect_eq(lsc_triage_nstarts(t), 2);
	lsc_triage_free(t);
	/* clocks seen before any start: the second input's start is 10 s
	 * under way, not 370 s */
	t = after("10:00:00 hello\n", "10:06:00 Loading weights from /m/model.safetensors\n10:06:10 Appl\n");
	struct lsc_triage_start_info si;
	cr_assert_eq(lsc_triage_start(t, 0, &si), 0);
	cr_expect_str_eq(si.speed, "-", "the first input's clock began the second's start: %f s", si.load_s);
	lsc_triage_free(t);
	/* two clocks that shared a kind before any start: the second input's
	 * one clock still spans its start, 330 s */
	t = after("10:00:00 a\n09:00:00 b\n", "10:06:00 Loading weights from /m/model.safetensors\n10:11:30 Appl\n");
	cr_assert_eq(lsc_triage_start(t, 0, &si), 0);
	cr_expect_str_eq(si.speed, "slow", "the second input's clock span lost: %f s", si.load_s);
	lsc_triage_free(t);
	/* a drawn table's border ends the first input: the second's `| ... |`
	 * line is a Markdown row (prose), not the table's */
	t = after("+-------+-------+\n", "| model | READY |\n");
	cr_expect_eq(lsc_triage_nstarts(t), 0);
	lsc_triage_free(t);
	/* the same row under its border in one input is the table's */
	struct lsc_triage *one = trun_text("+-------+-------+\n| model | READY |\n");
	cr_expect_eq(lsc_triage_nstarts(one), 1);
	lsc_triage_free(one);
	/* a request that failed on the first input's line 3 does not make the
	 * second input's traceback on its line 4 the request's */
	static const char tb[] = "x\ny\nz\n"
				 "Traceback (most recent call last):\n"
				 "  File \"/srv/engine/model_runner.py\", line 323, in load_model\n"
				 "RuntimeError: CUDA error: out of memory\n";
	one = trun_text(tb);
	cr_assert(one);
	size_t want = lsc_triage_nstarts(one);
	cr_expect_eq(want, 1, "the traceback alone is a failed start");
	lsc_triage_free(one);
	/* (the served request is a start of its own, outcome none) */
	t = after("a\nb\nException in ASGI application\n", tb);
	cr_expect_eq(lsc_triage_nstarts(t), 1 + want);
	cr_assert_eq(lsc_triage_start(t, lsc_triage_nstarts(t) - 1, &si), 0);
	cr_expect_str_eq(si.outcome, "failed");
	lsc_triage_free(t);
}
