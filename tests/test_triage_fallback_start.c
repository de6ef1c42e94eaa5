/*
 * A start begun in words no vocabulary knows (tools/triage/
 * fallback_start.c): in an input where no start has begun, a program's own
 * line (a level, a clock, a logger's `name:`) naming the model's parts
 * begins one, and what follows is read as any start's lines are. Each case
 * has its near misses: the same words in prose, in a request's line, in a
 * line that says no model is here, in a settings dump or a table, on an
 * error line (the failure's to read), and after a start some engine's
 * words began (no second start).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

static unsigned nstarts_of(const char *log)
{
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	unsigned n = 0;
	struct lsc_triage_start_info si;
	while (lsc_triage_start(t, n, &si) == 0)
		n++;
	lsc_triage_free(t);
	return n;
}

/* the first start's outcome and first line ("" and 0 when none) */
static void first_start(const char *log, char *outcome, size_t cap, unsigned long *line)
{
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si;
	if (lsc_triage_start(t, 0, &si) == 0) {
		snprintf(outcome, cap, "%s", si.outcome);
		*line = si.first_line;
	} else {
		outcome[0] = 0;
		*line = 0;
	}
	lsc_triage_free(t);
}

static void expect_begun(const char *log, const char *outcome, unsigned long line)
{
	char o[32];
	unsigned long l;
	first_start(log, o, sizeof o, &l);
	cr_expect_str_eq(o, outcome, "outcome of:\n%s", log);
	cr_expect_eq(l, line, "first line %lu of:\n%s", l, log);
}

/* A program's line naming the model's parts, in each way a line says it
 * is a program's: a logger's name, a level, a clock. */
Test(fallback_start, a_programs_line_naming_the_models_parts_begins_a_start)
{
	expect_begun("### Logs\n"
		     "create_tensor: loading tensor blk.15.attn_norm.weight\n"
		     "create_tensor: loading tensor blk.15.attn_q.weight\n",
		     "cut-off", 2);
	expect_begun("[INFO] Injecting model.layers.48.mlp as default\n"
		     "[INFO] Injecting model.layers.48.mlp.gate as default\n",
		     "cut-off", 1);
	expect_begun("some words first\n"
		     "2024-05-01 10:00:01 reading checkpoint part 3\n",
		     "cut-off", 2);
}

/* What follows is the start's: a failure fails it, a ready line
 * completes it. */
Test(fallback_start, what_follows_is_read_as_the_starts)
{
	expect_begun("create_tensor: loading tensor blk.15.attn_norm.weight\n"
		     "Traceback (most recent call last):\n"
		     "  File \"run.py\", line 3, in <module>\n"
		     "RuntimeError: CUDA out of memory\n",
		     "failed", 1);
	expect_begun("create_tensor: loading tensor blk.15.attn_norm.weight\n"
		     "INFO server is ready to accept connections\n",
		     "completed", 1);
}

/* The same words where they do not say a program brings a model up; each
 * beside the same line without what makes it a near miss. */
Test(fallback_start, near_misses_begin_nothing)
{
	/* prose: no level, no clock, no logger's name */
	cr_expect_eq(nstarts_of("I think the model weights are fine and the tensor shapes match.\n"), 0);
	cr_expect_eq(nstarts_of("[INFO] I think the model weights are fine and the tensor shapes match.\n"), 1);
	/* a request's line */
	cr_expect_eq(nstarts_of("[INFO] 127.0.0.1 \"GET /v1/models HTTP/1.1\" 200\n"), 0);
	cr_expect_eq(nstarts_of("[INFO] 127.0.0.1 v1/models 200\n"), 1);
	/* a line that says no model is here */
	cr_expect_eq(nstarts_of("2024-05-01 10:00:01 INFO Initial Models: N/A\n"), 0);
	cr_expect_eq(nstarts_of("2024-05-01 10:00:01 INFO Initial Models: resnet\n"), 1);
	cr_expect_eq(nstarts_of("2024-05-01 10:00:01 INFO no model given, idle\n"), 0);
	cr_expect_eq(nstarts_of("2024-05-01 10:00:01 INFO model given, idle\n"), 1);
	/* a settings dump, a table's row */
	cr_expect_eq(nstarts_of("[INFO] model_path = /models/x.gguf\n"), 0);
	cr_expect_eq(nstarts_of("[INFO] model_path /models/x.gguf\n"), 1);
	cr_expect_eq(nstarts_of("[INFO] | model | weights | 7B |\n"), 0);
	cr_expect_eq(nstarts_of("[INFO] model weights 7B\n"), 1);
	/* shorter than a program's line says anything */
	cr_expect_eq(nstarts_of("I: model\n"), 0);
}

/* An error line is the failure's to read: it begins no start by this
 * rule (a traceback opens one when its frames name the load). */
Test(fallback_start, an_error_line_is_the_failures)
{
	cr_expect_eq(nstarts_of("2024-05-01 10:00:01 ERROR tensor blk.1 has a bad shape\n"), 0);
	cr_expect_eq(nstarts_of("2024-05-01 10:00:01 WARN tensor blk.1 has a bad shape\n"), 1, "the same line at warn");
	cr_expect_eq(nstarts_of("create_tensor: failed to read tensor blk.1.weight\n"), 0);
}

/* Only where no start has begun in the input: after a start an engine's
 * words began, the same line opens no second one; in a second input with
 * none of its own, it does. */
Test(fallback_start, only_in_an_input_with_no_start)
{
	const char *known = "llama_model_loader: loaded meta data with 19 key-value pairs\n"
			    "load_tensors: loading model tensors, this can take a while...\n";
	const char *unknown = "create_tensor: loading tensor blk.15.attn_norm.weight\n";
	char both[512];
	snprintf(both, sizeof both, "%s%s", known, unknown);
	cr_expect_eq(nstarts_of(known), 1);
	cr_expect_eq(nstarts_of(both), 1);
	struct lsc_triage *t = lsc_triage_new(NULL);
	cr_assert(t);
	cr_assert_eq(lsc_triage_source(t, "a.log"), 0);
	cr_assert_eq(lsc_triage_feed(t, known, strlen(known)), 0);
	cr_assert_eq(lsc_triage_source(t, "b.log"), 0);
	cr_assert_eq(lsc_triage_feed(t, unknown, strlen(unknown)), 0);
	lsc_triage_finish(t);
	cr_expect_eq(lsc_triage_nstarts(t), 2, "the second input's start");
	lsc_triage_free(t);
}
