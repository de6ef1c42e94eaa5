/*
 * A load's summary in words no fixed key names (tools/triage/load_summary.c):
 * the past verb and its object before the time (`Loaded models for whisper
 * size: large-v3 in 25.66s`), and a key named for the load with a duration
 * for its value (`load duration: 6.736757958s`, Go's `1m5.2s`). Each figure
 * is written out here from the line's own numbers; each predicate has its
 * near misses (a plan, a negation, a download, a part that is no weights,
 * a duration of something else, a bare number with no unit). Then whole
 * pastes: two such summaries are two loads, and a load over 100 s with no
 * size is slow (docs/triage.md's thresholds).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

static const struct {
	const char *line;
	int found;
	double secs;
} loaded_in[] = {
	{"Loaded models for whisper size: large-v3 in 25.66s", 1, 25.66},
	{"INFO Loaded model weights in 850 ms", 1, 0.85},
	{"loaded the checkpoint from /m/x.safetensors in 2 min", 1, 120},
	{"Loaded model in 1m5.5s", 1, 65.5},
	{"Loaded model weights in fp16 in 3.2 s", 1, 3.2}, /* an "in" of the object's, then the duration's */
	{"Loaded model in 4 bit in 3 s", 1, 3},
	{"Downloaded model in 30 s", 0, 0},         /* a download: the verb is no word of its own */
	{"Unloaded model in 2 s", 0, 0},
	{"model will be loaded in 5 s", 0, 0},     /* a plan */
	{"model not loaded in 30 s", 0, 0},         /* negated */
	{"Loaded tokenizer in 0.2 s", 0, 0},        /* a part that is no weights */
	{"Loaded config in 0.01s", 0, 0},
	{"Loaded model, ready in 3 s", 0, 0},       /* a second clause: a ready time, not the load's */
	{"Loaded model in memory", 0, 0},           /* no duration */
	{"Loaded 4 models in 2 groups", 0, 0},      /* a count, no unit of time */
	{"Loaded 5 images in 3 s", 0, 0},           /* no word of the weights */
};

Test(triage_load_summary, loaded_before_its_time)
{
	for (size_t i = 0; i < sizeof(loaded_in) / sizeof(loaded_in[0]); i++) {
		double v = NAN;
		int got = tr_loaded_in_words(loaded_in[i].line, strlen(loaded_in[i].line), &v);
		cr_expect_eq(got, loaded_in[i].found, "%s: %d", loaded_in[i].line, got);
		if (got && loaded_in[i].found)
			cr_expect(fabs(v - loaded_in[i].secs) < 1e-6, "%s: %f s", loaded_in[i].line, v);
	}
}

static const struct {
	const char *line;
	int found;
	double secs;
} keyed[] = {
	{"load duration:        6.736757958s", 1, 6.736757958},
	{"load duration: 1m37.5s", 1, 97.5},
	{"loading_duration = 2h3m", 1, 7380},
	{"\"load duration\": \"178.535µs\"", 1, 178.535e-6},
	{"load duration: 12.5 seconds", 1, 12.5},
	{"prompt eval duration: 17.494932917s", 0, 0}, /* a duration of something else */
	{"total duration:       2m1.633245708s", 0, 0},
	{"download duration: 5s", 0, 0},               /* not the load's key */
	{"\"load_duration\":6736757958", 0, 0},        /* a bare number: its unit is no key's */
	{"load duration: fast", 0, 0},
};

Test(triage_load_summary, a_key_named_for_the_load_with_a_duration)
{
	for (size_t i = 0; i < sizeof(keyed) / sizeof(keyed[0]); i++) {
		double v = NAN;
		int got = tr_load_duration_key(keyed[i].line, strlen(keyed[i].line), &v);
		cr_expect_eq(got, keyed[i].found, "%s: %d", keyed[i].line, got);
		if (got && keyed[i].found)
			cr_expect(fabs(v - keyed[i].secs) < 1e-9, "%s: %.9f s", keyed[i].line, v);
	}
}

static unsigned starts_of(const char *log, const char *outcome0, const char *speed0)
{
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	unsigned n = 0;
	struct lsc_triage_start_info si;
	while (lsc_triage_start(t, n, &si) == 0) {
		if (n == 0 && outcome0) {
			cr_expect_str_eq(si.outcome, outcome0, "outcome of:\n%s", log);
			cr_expect_str_eq(si.speed, speed0, "speed of:\n%s", log);
		}
		n++;
	}
	lsc_triage_free(t);
	return n;
}

Test(triage_load_summary, each_summary_is_a_load_completed)
{
	/* two devices, one load each: two starts; 25.66 s is ok (under 60 s) */
	cr_expect_eq(starts_of("1. Macbook Pro\nLoaded models for whisper size: large-v3 in 25.66s\n\n"
			       "2. iPhone 16\nLoaded models for whisper size: large-v3 in 148.82s\n",
			       "completed", "ok"),
		     2);
	/* 148.82 s of the models' own load, no size: slow (over 100 s) */
	cr_expect_eq(starts_of("Loaded models for whisper size: large-v3 in 148.82s\n", "completed", "slow"), 1);
	/* a CLI's statistics: the load's key among the run's other durations */
	cr_expect_eq(starts_of("total duration:       2m1.633245708s\nload duration:        6.736757958s\n"
			       "prompt eval duration: 17.494932917s\neval rate:            49.90 tokens/s\n",
			       "completed", "ok"),
		     1);
	/* near misses: no start at all */
	cr_expect_eq(starts_of("Downloaded model in 30 s\nprompt eval duration: 17.4s\n", NULL, NULL), 0);
}

static const struct {
	const char *line;
	int found;
} extent[] = {
	{"loaded completely 0.0 159.87335777282715 True", 1},
	{"loaded partially 9617.495919891357 9617.35546875 0", 1},
	{"loaded fully 4777.5 MB", 1},
	{"not loaded completely 0.0 159.8", 0},          /* negated: the verb does not open it */
	{"the model loaded completely fine", 0},         /* prose, no figure */
	{"loaded completely 0.0 159.8?", 0},             /* a question */
	{"loaded completely", 0},                        /* no figure after it */
	{"loaded quickly 0.0 159.8", 0},                 /* no extent */
};

Test(triage_load_summary, the_load_with_its_extent)
{
	for (size_t i = 0; i < sizeof(extent) / sizeof(extent[0]); i++)
		cr_expect_eq(tr_loaded_extent(extent[i].line, strlen(extent[i].line)), extent[i].found, "%s",
			     extent[i].line);
}

/* An image UI's prompt that put its model on the device (`loaded
 * partially`), sampled and finished: one start, completed, no load figure
 * (the prompt's 94.81 s and the bar's 01:15 are the job's). The near
 * miss: the job's bar and time alone are a running app's work (none). */
Test(triage_load_summary, an_image_ui_prompt_that_loaded_its_model)
{
	cr_expect_eq(starts_of("got prompt\nloaded partially 9617.495919891357 9617.35546875 0\n"
			       "100%|##########| 20/20 [01:15<00:00,  3.76s/it]\n"
			       "Requested to load AutoencodingEngine\nLoading 1 new model\n"
			       "loaded completely 0.0 159.87335777282715 True\nPrompt executed in 94.81 seconds\n",
			       "completed", "-"),
		     1);
	struct lsc_triage *t = trun_text("got prompt\n100%|##########| 20/20 [01:15<00:00,  3.76s/it]\n"
					 "Prompt executed in 94.81 seconds\n");
	cr_assert(t);
	struct lsc_triage_start_info si;
	if (lsc_triage_start(t, 0, &si) == 0)
		cr_expect_str_eq(si.outcome, "none");
	lsc_triage_free(t);
}
