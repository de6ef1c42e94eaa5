/*
 * The shared vocabulary's word tests (tools/triage/recognise_generic.c),
 * one table each, every entry a line an engine prints and its near miss:
 * the words that say a load failed (and a guess before them that says
 * nothing), failure words read by meaning (a count of 0 failures is no
 * failure), hedges (a word, not a word's letters), a launcher that gave up
 * on its server coming up (the negation in the twelve bytes before the
 * verb), ready words and their negations (each phrase of the lists, the
 * lone trailing "ready" and its edge), and the dynamic loader's missing
 * library. The recognisers decide a start's outcome from these, so a
 * phrase dropped from a list, a word boundary off by one or a negation
 * inverted changes a verdict; the expected values are what the lines say
 * in English, with the rule of the function's comment, not its code.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "triage/internal.h"

struct wcase {
	const char *line;
	int want;
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void check(const char *what, int (*f)(const char *, size_t), const struct wcase *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int got = f(c[i].line, strlen(c[i].line)) != 0;
		cr_expect_eq(got, c[i].want, "%s(\"%s\") = %d, wanted %d", what, c[i].line, got, c[i].want);
	}
}

Test(words, load_failure_words)
{
	static const struct wcase c[] = {
		{"llama_load_model_from_file: failed to load model", 1},
		{"error loading model: unknown architecture", 1},
		{"Could not load the checkpoint", 1},
		{"unable to load model weights", 1},
		{"cannot load /m/x.gguf", 1},
		{"Couldn't load model 'transformer'", 1},
		{"can't load tokenizer", 1},
		{"load model error: bad magic", 1},
		{"model load error: bad magic", 1},
		{"load model failed", 1},
		{"model load failed: no such file", 1},
		{"Faild to load model", 1},
		{"the model loading failed", 1},
		{"weights load failed", 1},
		{"Error when loading model: UnicodeDecodeError", 1},
		{"Exception while loading the weights", 1},
		{"an error occurred during loading", 1},
		/* near misses: a guess before the words, a load that did not fail,
		 * the words as part of others, the dynamic loader */
		{"if the model failed to load, check the path", 0},
		{"it may fail to load: it might be cut; could not load it", 0},
		{"model loaded successfully", 0},
		{"preload failed", 0},
		{"reload failed", 0},
		{"error while loading shared libraries: libcuda.so.1", 0},
		{"loading model, no errors so far", 0},
		{"Error: loading model", 0},
		{"", 0},
	};
	check("tr_load_failure_words", tr_load_failure_words, c, N(c));
}

Test(words, failure_words_by_meaning)
{
	static const struct wcase c[] = {
		{"load failed", 1},
		{"a failure of the reader", 1},
		{"it fails on open", 1},
		{"error: bad header", 1},
		{"cannot open /m", 1},
		{"unable to open /m", 1},
		{"open: Permission denied", 1},
		{"connection refused", 1},
		{"couldn't open /m", 1},
		{"could not open /m", 1},
		{"can't open /m", 1},
		{"Operation not permitted", 1},
		{"FAILED", 1},
		/* a failure word by meaning says nothing failed */
		/* (each beside a failure word, so that the words by meaning are
		 * what turns the line away) */
		{"0 failures, error count reset", 0},
		{"no failures; the error path was not taken", 0},
		{"0 errors: cannot happen", 0},
		{"checked: no errors, nothing refused", 0},
		{"3 failures, error count 3", 1},
		{"error recovery succeeded", 0},
		{"error log opened successfully", 0},
		{"finished without error", 0},
		/* a word's letters are no word */
		{"errorless run", 0},
		{"failedover to node 2", 0},
		{"all good", 0},
		{"", 0},
	};
	check("tr_says_failed", tr_says_failed, c, N(c));
}

Test(words, hedges)
{
	static const struct wcase c[] = {
		{"this may take a while", 1},
		{"it might fail", 1},
		{"could be slow", 1},
		{"if it fails", 1},
		{"possibly out of memory", 1},
		{"perhaps the disk", 1},
		{"If", 1},
		/* the letters inside other words */
		{"mayday", 0},
		{"gif decoded", 0},
		{"the diff is small", 0},
		{"it fails", 0},
		{"", 0},
	};
	check("tr_hedged", tr_hedged, c, N(c));
}

Test(words, never_came_up)
{
	static const struct wcase c[] = {
		{"xtts server failed to come online within the specified attempts", 1},
		{"the server did not come up", 1},
		{"runner didn't come up", 1},
		{"the worker never came up", 1},
		{"api never came online", 1},
		{"couldn't come online", 1},
		{"unable to come up", 1},
		{"fail to come up", 1},
		{"the server could not come up", 1},
		{"server could not come online", 1},
		/* came up; a guess; a negation too far before the verb; no verb */
		{"the server came up", 0},
		{"the server came online after 30 s", 0},
		{"if the server failed to come up, retry", 0},
		{"if the server could not come up, retry", 0},
		{"it may never come up", 0},
		{"failed to load; then it came up", 0},
		{"it did not start", 0},
		{"", 0},
	};
	check("tr_never_came_up", tr_never_came_up, c, N(c));
}

/* 1: not ready (a negation, or no ready word); 0: the line says ready. */
Test(words, ready_and_its_negations)
{
	static const struct wcase c[] = {
		/* ready, by each phrase */
		{"Application startup complete.", 0},
		{"the server is ready", 0},
		{"workers are ready", 0},
		{"ready to serve requests", 0},
		{"engine ready in 12.3 s", 0},
		{"ready after 40 s", 0},
		{"Server ready!", 0},
		{"the model is now ready to chat", 0},
		{"worker started in 3.2 s", 0},
		{"server started successfully", 0},
		{"Uvicorn running on http://0.0.0.0:8000", 0},
		{"listening on 0.0.0.0:8080", 0},
		{"weights loaded successfully", 0},
		{"model loaded", 0},
		{"shards loaded in 12 s", 0},
		{"server up and running", 0},
		{"ready for requests", 0},
		{"status ready: yes", 0},
		{"all workers ready.", 0},
		{"Loaded model llama3 on device cuda:0", 0},
		{"the engine is ready", 0},
		{"engine ready", 0},
		/* the opposite of ready: a launcher gave up, a start that died */
		{"the server never became ready", 1},
		{"server never ready", 1},
		{"worker failed to start", 1},
		{"the engine did not start", 1},
		{"the engine didn't start", 1},
		{"the engine did not become ready", 1},
		{"xtts server failed to come online", 1},
		{"not ready after 30 minutes, giving up", 1},
		/* not about readiness, or not yet */
		{"not ready after 30 minutes", 1},
		{"server not ready", 1},
		{"server isn't ready", 1},
		{"server not yet ready", 1},
		{"worker not started", 1},
		{"api not online", 1},
		{"server is still loading", 1},
		{"server still starting", 1},
		{"waiting for the server to be ready", 1},
		{"server not up", 1},
		{"do not send before the server is ready", 1},
		{"wait until ready", 1},
		{"model unloaded", 1},
		{"Model workspace is now ready", 1},
		{"the weather is fine", 1},
		/* the lone trailing word: after a space only */
		{"ready", 1},
		{"already", 1},
		{"x ready", 0},
		{"", 1},
	};
	check("tr_ready_negated", tr_ready_negated, c, N(c));
}

Test(words, dynamic_loader_missing_library)
{
	static const struct wcase c[] = {
		{"./llama-server: error while loading shared libraries: libcuda.so.1: cannot open shared object file", 1},
		{"error while loading shared library x", 1},
		{"error while loading the model", 0},
		{"ERROR WHILE LOADING SHARED LIBRARIES", 0}, /* ld.so's own case only */
		{"", 0},
	};
	check("tr_dynlib_missing", tr_dynlib_missing, c, N(c));
}

/*
 * The pinned and killed word lists over a line longer than the lowered
 * copy (TR_EVTEXT * 2 bytes, shapes.c's any_of reads such a line in place):
 * the word found wherever it sits, and a line without it not taken, on
 * both sides of the copy's length.
 */
Test(words, pinned_and_killed_words_on_short_and_long_lines)
{
	static const size_t lens[] = {40, 2 * TR_EVTEXT - 1, 2 * TR_EVTEXT, 2 * TR_EVTEXT + 1, 3000};
	static char line[3100];
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t n = lens[i];
		memset(line, 'x', n);
		line[n] = 0;
		for (size_t j = 8; j < n; j += 9)
			line[j] = ' '; /* words of x, none of them a listed one */
		cr_expect_eq(tr_pinned_words(line, n), 0, "no pinned word in %zu bytes", n);
		cr_expect_eq(tr_killed_words(line, n), 0, "no killed word in %zu bytes", n);
		memcpy(line + n - 12, " page-locked", 12);
		cr_expect_eq(tr_pinned_words(line, n), 1, "pinned word at the end of %zu bytes", n);
		cr_expect_eq(tr_killed_words(line, n), 0, "%zu bytes", n);
		memcpy(line + n - 12, " got SIGKILL", 12);
		cr_expect_eq(tr_killed_words(line, n), 1, "killed word at the end of %zu bytes", n);
		cr_expect_eq(tr_pinned_words(line, n), 0, "%zu bytes", n);
	}
}
