/*
 * What a ready or failure word is about (tools/triage/subject.c): the
 * subject read inside the names code gives its parts (CamelCase,
 * snake_case), and one part of the server (a shard, a worker) that is
 * ready, which is a step of the load, not the server up. Each case beside
 * its near miss; the expected outcomes and speeds are the lines' own
 * words and figures, read by hand against docs/triage.md's thresholds.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

static void expect_start(const char *log, size_t i, const char *outcome, const char *speed)
{
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, i, &si) == 0, "no start %zu (the tool found %zu) in:\n%s", i,
		  lsc_triage_nstarts(t), log);
	cr_expect_str_eq(si.outcome, outcome, "outcome of:\n%s", log);
	cr_expect_str_eq(si.speed, speed, "speed of:\n%s", log);
	lsc_triage_free(t);
}

static size_t starts_of(const char *log)
{
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	size_t n = lsc_triage_nstarts(t);
	lsc_triage_free(t);
	return n;
}

/* "EngineCore failed to start." is the engine's failure: the subject is a
 * word inside the name (Engine|Core), as "engine core failed to start"
 * is; a name with no subject in it ("TokenCache failed to start") is an
 * error about something else, which opens no start. */
Test(subject, camel_case_name_holds_its_subject)
{
	expect_start("(EngineCore_DP0 pid=280) ERROR 12-22 19:08:38 [core.py:708] EngineCore failed to start.\n", 0,
		     "failed", "-");
	expect_start("ERROR engine core failed to start.\n", 0, "failed", "-");
	expect_start("ERROR 12-22 19:08:38 ModelRunner failed to start.\n", 0, "failed", "-");
	expect_start("ERROR 12-22 19:08:38 HTTPServer failed to start.\n", 0, "failed", "-");
	cr_expect_eq(starts_of("ERROR 12-22 19:08:38 TokenCache failed to start.\n"), 0);
	cr_expect_eq(starts_of("ERROR 12-22 19:08:38 Enginecore failed to start.\n"), 0,
		     "one word, Enginecore, is not Engine + Core");
}

/* "Shard 0 ready in 370.8 s" is the shard's load done, not the server up:
 * a panic after it fails the start; the same line with the server as its
 * subject is the start up (370.8 s with no size: over 300 s, slow). */
Test(subject, a_part_ready_is_not_the_server_up)
{
	const char *part = "INFO launcher: Waiting for shard 0 to be ready...\n"
			   "INFO launcher: Shard 0 ready in 370.805438546s\n"
			   "INFO launcher: Starting Webserver\n"
			   "thread 'main' panicked at 'called unwrap() on an Err value', router/src/main.rs:101:70\n";
	expect_start(part, 0, "failed", "-");
	const char *whole = "INFO launcher: Waiting for the server to be ready...\n"
			    "INFO launcher: Server ready in 370.805438546s\n"
			    "INFO launcher: Starting Webserver\n"
			    "thread 'main' panicked at 'called unwrap() on an Err value', router/src/main.rs:101:70\n";
	expect_start(whole, 0, "completed", "slow");
	/* cut after the shards: loaded in 30.9 s (under 60 s: ok), never up */
	expect_start("INFO launcher: Waiting for shard to be ready...\n"
		     "INFO launcher: Shard ready in 30.897723226s\n"
		     "INFO launcher: Shard ready in 30.922683334s\n",
		     0, "cut-off", "ok");
	expect_start("INFO launcher: Waiting for worker 1 to be ready...\n"
		     "INFO launcher: Worker 1 is ready.\n",
		     0, "cut-off", "-");
}

/* issue 23's ninth round: the model's files ready (on disk) are not the
 * model up, so the load's failure after them fails the start (GPUStack's
 * `Model files are ready.` before vox-box's `Faild to load model`, the
 * engine's own misspelling) */
Test(subject, the_model_files_ready_are_not_the_model_up)
{
	cr_expect(!tr_ready_subject("Model files are ready.", 22));
	cr_expect(tr_ready_subject("Model is ready.", 15));
	const char *log = "INFO - Model files are ready.\nINFO - Starting vox-box server\nINFO - Loading model\n"
			  "CRITICAL - Faild to load model, CUDA failed with error out of memory\n";
	expect_start(log, 0, "failed", "-");
	/* the same with the misspelling alone, and a hedge before it */
	expect_start("INFO - Loading model\nERROR - Faild to load model\n", 0, "failed", "-");
	expect_start("INFO - Loading model\nINFO - if it faild to load model, retry\n", 0, "cut-off", "-");
}

/* issue 23's eleventh round: the ready word's own subject, the word right
 * before it, is a place that holds the model (NIM's `Model workspace is
 * now ready. It took 0.203 seconds`): the place prepared, a step before
 * the load, not the model up; so the `[rank0]:` traceback after it, in
 * the model's constructor, fails the start and is the load's */
Test(subject, a_workspace_ready_is_not_the_model_up)
{
	cr_expect(tr_ready_holder("Model workspace is now ready. It took 0.203 seconds", 51));
	cr_expect(tr_ready_holder("cache directory ready", 21));
	/* near misses: the model, and a holder named elsewhere in the line */
	cr_expect(!tr_ready_holder("Model is now ready. It took 0.203 seconds", 41));
	cr_expect(!tr_ready_holder("cache dir /x set; server is ready", 33));
	cr_expect(!tr_ready_holder("Model workspace", 15));
	const char *log = "INFO 07-31 06:02:40.26 ngc_injector.py:199] Preparing model workspace.\n"
			  "INFO 07-31 06:02:40.229 ngc_injector.py:214] Model workspace is now ready. It took 0.203 "
			  "seconds\n"
			  "[rank0]:   File \"/x/vllm/model_executor/models/llama.py\", line 190, in __init__\n"
			  "[rank0]:     self.self_attn = LlamaAttention(\n"
			  "[rank0]:   File \"/x/vllm/model_executor/layers/rotary_embedding.py\", line 860, in get_rope\n"
			  "[rank0]:     raise ValueError(f\"Unknown RoPE scaling type {scaling_type}\")\n"
			  "[rank0]: ValueError: Unknown RoPE scaling type extended\n";
	expect_start(log, 0, "failed", "-");
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL, "a traceback in the model's constructor");
	lsc_triage_free(t);
	/* the model itself ready with the same figure: completed, 0.2 s (ok) */
	expect_start("INFO Model is now ready. It took 0.203 seconds\n", 0, "completed", "ok");
}
