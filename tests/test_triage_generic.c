/*
 * The shared vocabulary beneath the engine shapes (tools/triage/
 * recognise_generic.c and the cleaner's layouts): logs of engines that no
 * shape names, in the layouts they are pasted in, get the right outcome
 * and speed. Each case has its near miss: an exit code 0, a ready word
 * about a Ray cluster, a Ctrl-C. The expected values are the lines' own
 * figures.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

static void expect_start(const char *log, const char *outcome, const char *speed)
{
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0, "no start in:\n%s", log);
	cr_expect_str_eq(si.outcome, outcome, "outcome of:\n%s", log);
	if (speed)
		cr_expect_str_eq(si.speed, speed, "speed of:\n%s", log);
	lsc_triage_free(t);
}

/* expect_start for each line of @tail after the lines @before (a start
 * begun, or "" for none): the near misses of one mechanism, in a table. */
static void expect_each(const char *before, const char *const *tail, size_t n, const char *outcome,
			const char *speed)
{
	for (size_t i = 0; i < n; i++) {
		char log[512];
		snprintf(log, sizeof log, "%s%s\n", before, tail[i]);
		expect_start(log, outcome, speed);
	}
}

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

/* No start in each of the @n logs @logs: the near misses that begin nothing. */
static void expect_no_start_each(const char *const *logs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(nstarts_of(logs[i]), 0, "a start in: %s", logs[i]);
}

Test(generic, json_lines_message_unwrapped_with_escapes)
{
	const char *log = "{\"ts\":1,\"level\":\"info\",\"msg\":\"starting engine \\\"x\\\"\"}\n"
			  "{\"ts\":2,\"level\":\"info\",\"msg\":\"model weights loaded in 412.5 s\\n(from \\/mnt\\/nfs)\"}\n";
	expect_start(log, "completed", "slow"); /* 412.5 s with no size: over 300 s */
	struct lsc_triage *t = trun_text(log);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect(si.load_s > 412.4 && si.load_s < 412.6, "load %f", si.load_s);
	lsc_triage_free(t);
	/* an error level in JSON, with a failure word: failed */
	expect_start("{\"level\":\"info\",\"msg\":\"loading model shards\"}\n"
		     "{\"level\":\"error\",\"msg\":\"could not allocate the model buffer: failed\"}\n",
		     "failed", "-");
}

Test(generic, rank_prefix_traceback_is_one_block)
{
	struct lsc_triage *t = trun_text("[rank0]: INFO loading model weights from /m\n"
					 "[rank0]: Traceback (most recent call last):\n"
					 "[rank0]:   File \"x.py\", line 1, in <module>\n"
					 "[rank0]: ZeroDivisionError: weird\n");
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.outcome, "failed");
	int quoted = 0;
	for (size_t i = 0; i < lsc_triage_nfindings(t); i++) {
		struct lsc_triage_finding_info f;
		lsc_triage_finding(t, i, &f);
		quoted |= f.severity == LSC_TRIAGE_FAIL && f.first_line == 4;
	}
	cr_expect(quoted, "the fail quotes the exception line (line 4)");
	lsc_triage_free(t);
	/* Ctrl-C is not a failure */
	expect_start("[rank0]: INFO loading model weights from /m\n"
		     "[rank0]: Traceback (most recent call last):\n"
		     "[rank0]: KeyboardInterrupt\n",
		     "cut-off", NULL);
}

Test(generic, exit_statuses_and_signals)
{
	expect_start("worker: loading model /m\nworker exited with code 137\n", "failed", "-");
	expect_start("worker: loading model /m\nSegmentation fault (core dumped)\n", "failed", "-");
	/* exit code 0 and 0 failures are not failures */
	struct lsc_triage *t = trun_text("worker: loading model /m\nprefetch exited with code 0, 0 failures\n");
	cr_assert(t);
	struct lsc_triage_start_info si;
	if (lsc_triage_start(t, 0, &si) == 0)
		cr_expect(strcmp(si.outcome, "failed"), "exit code 0 read as a failure");
	lsc_triage_free(t);
}

Test(generic, glog_and_logfmt_levels)
{
	expect_start("I0725 12:48:50.100000 1234 server.cc:10] loading model weights\n"
		     "E0725 12:48:53.920000 1234 server.cc:99] failed to allocate the model buffer\n",
		     "failed", "-");
	/* an error-level line without a failure word is not a failure */
	expect_start("I0725 12:48:50.100000 1234 server.cc:10] loading model weights\n"
		     "E0725 12:48:53.920000 1234 server.cc:99] retrying the metrics push\n",
		     "cut-off", NULL);
	expect_start("time=2025-01-01T00:00:00Z level=INFO msg=\"loading model\" path=/m\n"
		     "time=2025-01-01T00:00:05Z level=ERROR msg=\"model load failed\" err=\"cannot map file\"\n",
		     "failed", "-");
}

Test(generic, ready_words_with_subject_and_negation)
{
	expect_start("INFO mistralrs_server: loading model /m\nINFO mistralrs_server: Model loaded in 12.3s\n",
		     "completed", "ok");
	/* one shard ready is that part's load done in 42.1 s (ok), not the
	 * server up (subject.c): a paste cut there is cut off */
	expect_start("loading model /m\nShard 0 ready in 42.1 s\n", "cut-off", "ok");
	expect_start("loading model /m\nmodel not ready after 30 minutes, giving up\n", "failed", "-");
	expect_start("loading model /m\nserver not ready after 10 minutes; exiting\n", "failed", "-");
	/* a watcher's wait that ran out, and nothing says the start stopped:
	 * not a failure (the engine may still be loading) */
	expect_start("loading model /m\nvLLM not ready after 30 minutes\n", "cut-off", "slow");
	/* the watcher's line alone: a start begun that it waited out */
	expect_start("vLLM not ready after 30 minutes\n", "cut-off", "slow");
	/* ... and a start begun, so a kill after it is that start's end */
	expect_start("vLLM not ready after 30 minutes\nzsh: killed     python serve.py\n", "failed", "-");
	/* what the watcher then lists are guesses, not the engine still loading */
	expect_start("loading model /m\nvLLM not ready after 30 minutes\nThis could mean:\n"
		     "  - Model is still loading (very large models may need more time)\n",
		     "cut-off", "slow");
	/* ... its failure bullets too, indented or not: a guess is no failure */
	expect_start("loading model /m\nvLLM not ready after 30 minutes\nThis could mean:\n"
		     "  - An error occurred during loading (out of memory)\n",
		     "cut-off", "slow");
	expect_start("loading model /m\nvLLM not ready after 30 minutes\nThis could mean:\n"
		     "- An error occurred during loading (out of memory)\n",
		     "cut-off", "slow");
	expect_start("loading model /m\nthe model may still be loading\n", "cut-off", NULL);
	expect_start("loading model /m\nserver not ready after 2 minutes\n", "cut-off", "-");
	expect_start("loading model /m\nRay cluster not ready after 30 minutes\n", "cut-off", "-");
	expect_start("loading model /m\nserver still loading, please wait\n", "loading", NULL);
	expect_start("loading model /m\nINFO engine still loading the weights\n", "loading", NULL);
	/* a ready word about something else is not the model's */
	expect_start("loading model /m\nRay cluster is ready\n", "cut-off", NULL);
	/* "Loaded model X on device D", where its message begins, is the event;
	 * the model kept ("Reusing loaded model") or unloaded is not */
	expect_start("[lib] [thread 2] [info] Loaded model whisper-small/ on device cpu:0\n", "completed", "-");
	expect_start("loading model /m\nReusing loaded model a.safetensors to load b.safetensors\n", "cut-off", NULL);
	expect_start("loading model /m\nINFO Unloaded model a\n", "cut-off", NULL);
}

Test(generic, figures_anywhere)
{
	/* a tqdm bar with h:mm:ss elapsed, still under way */
	expect_start("Loading checkpoint shards:  40%|####      | 4/10 [1:02:03<1:30:00, 930.75s/it]\n", "loading",
		     "slow");
	/* a bar that finished quickly, then a load that took seconds */
	expect_start("Loading checkpoint shards: 100%|##########| 10/10 [00:12<00:00,  1.20s/it]\n"
		     "weights loaded, model ready to serve\n",
		     "completed", "ok");
}

/* llama.cpp's loading dots as the last word: still loading; followed by
 * any other line: they are not the last word (cut off). */
Test(generic, loading_dots_only_as_the_last_word)
{
	expect_start("llama_model_loader: loaded meta data with 30 key-value pairs\n"
		     "llm_load_tensors: offloaded 33/33 layers to GPU\n"
		     "2024-06-22T11:40:42.118Z [CORTEX]::Error: .\n"
		     "2024-06-22T11:40:42.133Z [CORTEX]::Error: .\n",
		     "loading", NULL);
	expect_start("llama_model_loader: loaded meta data with 30 key-value pairs\n"
		     "llm_load_tensors: offloaded 33/33 layers to GPU\n"
		     "...................................\n"
		     "llama_new_context_with_model: n_ctx = 4096\n",
		     "cut-off", NULL);
}

/* A spinner's share with no words (triage.c's wordless_share) after a
 * load begun in words: under 100 still loading, at 100 not; a share with
 * a word is another line's figure; before any load it is nothing; and any
 * line after it takes its place as the last word. */
Test(generic, a_wordless_share_after_a_load_begun)
{
	static const char begun[] = "I Start loading model a/b.gguf...\n";
	static const struct {
		const char *tail, *outcome;
	} c[] = {
		{"\xe2\xa0\x87 [\xe2\x96\x8e] 99.90%\n", "loading"},
		{"[####      ] 45%\n", "loading"},
		{"\xe2\xa0\x87 [\xe2\x96\x88\xe2\x96\x88] 100%\n", "cut-off"},
		{"GPU 45%\n", "cut-off"},
		{"[####      ] 45%\nD Updating cliPref\n", "cut-off"},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char log[256];
		snprintf(log, sizeof log, "%s%s", begun, c[i].tail);
		expect_start(log, c[i].outcome, "-");
	}
	cr_expect_eq(nstarts_of("[####      ] 45%\n"), 0, "no load begun");
}

/* Kills in a launcher's words: both sides of each. */
Test(generic, kills_in_a_launchers_words)
{
	expect_start("```Error: llama runner process has terminated: signal: killed```\n", "failed", "-");
	expect_start("run.sh: line 89:    33 Killed                  python start.py\n", "failed", "-");
	struct lsc_triage *t = trun_text("run.sh: line 89:    33 Killed                  python start.py\n");
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "oom-killed"), LSC_TRIAGE_FAIL);
	lsc_triage_free(t);
	/* near misses: a lone Killed before any load, and prose about killing */
	t = trun_text("Killed\n");
	cr_expect_eq(lsc_triage_nrecognised(t), 0);
	lsc_triage_free(t);
	t = trun_text("the desktop was killed by the OOM (out of memory) detector, I think\n");
	cr_expect_eq(lsc_triage_nstarts(t), 0);
	lsc_triage_free(t);
}

/* Out of memory as an event, not as advice. */
Test(generic, out_of_memory_not_the_advice)
{
	expect_start("loading model weights\nCUDA out of memory. Tried to allocate 40.00 MiB. If reserved but "
		     "unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF\n",
		     "failed", "-");
	expect_start("Loading model weights took 6.1138 GB\nCUDA graphs can take additional 1~3 GiB memory per GPU. "
		     "If you are running out of memory, consider decreasing gpu_memory_utilization\n",
		     "completed", NULL);
}

/* A traceback pasted without its header, and one the paste ends in. */
Test(generic, traceback_fragments)
{
	const char *frames = "  File \"/x/worker.py\", line 125, in load_model\n"
			     "    self.model_runner.load_model()\n";
	expect_start(frames, "failed", "-");
	struct lsc_triage *t = trun_text(frames);
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL, "its frames name the load");
	lsc_triage_free(t);
	/* near miss: a Ctrl-C's traceback, cut or whole, is not a failure */
	t = trun_text("loading model /m\n^CTraceback (most recent call last):\n  File \"s.py\", line 3, in wait\n");
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect(strcmp(si.outcome, "failed"), "Ctrl-C read as a failure");
	lsc_triage_free(t);
	expect_start("thread 'main' panicked at src/pipeline/gguf.rs:261:9:\nRequestError(403)\n", "failed", "-");
}

/* Load figures and bars in the shared words. */
Test(generic, load_summaries_and_finished_bars)
{
	expect_start("Loading\nLoaded in 1740.90 seconds\n", "completed", "slow");
	expect_start("MODEL_LOG - Time to load model: 58.08 seconds\n", "completed", "ok");
	expect_start("Model loading time: 7.50 seconds\n", "completed", "ok");
	/* a bar that finished at 00:00 took under a second; one that has not, says nothing yet */
	expect_start("loading model /m\nLoading checkpoint shards: 100%|##########| 2/2 [00:00<00:00,  4.96it/s]\n",
		     "completed", "ok");
	expect_start("loading model /m\nLoading checkpoint shards:   0%|          | 0/2 [00:00<?, ?it/s]\n", "loading",
		     "-");
	/* a second load figure after a completed start: a second run */
	cr_expect_eq(nstarts_of("Loading took 26.03 seconds\n## After\nModel loading time: 7.50 seconds\n"), 2);
	cr_expect_eq(nstarts_of("the loading time of the page was long\n"), 0, "no duration");
	expect_start("loading model /m\nLoading safetensors checkpoint shards: 100% Completed | 1/1 [00:00<00:00,  1.07it/s]\n",
		     "completed", "ok");
	/* near miss: a bar under way is loading, and a failure after a full bar fails */
	expect_start("loading model /m\nLoading checkpoint shards:  50%|#####     | 1/2 [00:10<00:10, 10.0s/it]\n",
		     "loading", NULL);
	expect_start("loading model /m\nLoading checkpoint shards: 100%|##########| 2/2 [00:10<00:00,  5.0s/it]\n"
		     "ERROR: failed to allocate the KV cache\n",
		     "failed", "-");
	/* a failure after the load summary, before ready, fails the start; after ready it does not */
	expect_start("loading model /m\nLoading model weights took 27.7 GB\nERROR: failed to determine the KV cache blocks\n",
		     "failed", "-");
	expect_start("loading model /m\nModel loaded in 3.0 s\nserver is ready\nERROR: failed to parse a request\n",
		     "completed", "ok");
	/* the load's end in words, and its negation */
	expect_start("loading model /m\nserver finished loading the model\n", "completed", NULL);
	expect_start("loading model /m\nlevel=WARN msg=\"client connection closed before server finished loading, "
		     "aborting load\"\n",
		     "failed", "-");
	/* waiting for the server: begun, cut off */
	expect_start("INFO text_generation_launcher: Waiting for shard 0 to be ready...\n", "cut-off", NULL);
}

/* No start in the paste but the traceback: the start's failure when the
 * engine's logger wrote it at error level, or when a frame is in a loading
 * function; not a request's traceback, nor an info-level one about nothing
 * that loads. */

Test(generic, traceback_alone_opens_a_start)
{
	/* at error level, cut before its exception line: failed */
	const char *err = "ERROR 07-28 23:29:37 [worker.py:226] Traceback (most recent call last):\n"
			  "ERROR 07-28 23:29:37 [worker.py:226]   File \"/x/comm.py\", line 17, in __init__\n"
			  "ERROR 07-28 23:29:37 [worker.py:226]     self.comm = init_rank(\n";
	expect_start(err, "failed", "-");
	/* its frames at error level, the header cut off the paste */
	expect_start("ERROR 03-20 17:39:14 [core.py:1100]   File \"/x/ops.py\", line 268, in sdpa_wrapper\n"
		     "ERROR 03-20 17:39:14 [core.py:1100]     return op(q, k, v)\n",
		     "failed", "-");
	/* a frame in a loading function, no level: failed, and the load's */
	const char *ld = "Traceback (most recent call last):\n"
			 "  File \"/x/sample.py\", line 8, in <module>\n"
			 "    cm = ChatModule(name=\"m\")\n"
			 "  File \"/x/chat_module.py\", line 927, in _reload\n"
			 "    self._reload_func(lib, path)\n";
	expect_start(ld, "failed", "-");
	struct lsc_triage *t = trun_text(ld);
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL, "a frame in _reload: the load failed");
	lsc_triage_free(t);
	/* near misses: the same traceback at info level with no loading frame,
	 * and an error-level one right after a request's failure */
	cr_expect_eq(nstarts_of("Traceback (most recent call last):\n"
				"  File \"/x/sample.py\", line 8, in <module>\n"
				"  File \"/x/chat_module.py\", line 927, in _run\n"),
		     0, "a traceback about nothing that loads is no start");
	/* a request's traceback: the paste shows a running server, not a start */
	static const char req[] = "INFO:     127.0.0.1:58408 - \"POST /v1/model/unload HTTP/1.1\" 500\n"
				  "ERROR:    Exception in ASGI application\n"
				  "ERROR:    Traceback (most recent call last):\n"
				  "ERROR:      File \"/x/httptools_impl.py\", line 409, in run_asgi\n"
				  "ERROR:      File \"/x/model.py\", line 9, in unload_model\n";
	cr_expect_eq(nstarts_of(req), 1);
	expect_start(req, "none", "-");
	t = trun_text(req);
	cr_assert(t);
	cr_expect_neq(lsc_triage_exit_code(t), 2, "no fail: nothing of a start failed");
	lsc_triage_free(t);
	/* a start after it is a start */
	char more[1024];
	snprintf(more, sizeof more, "%sINFO loading model /m\nERROR load failed: no such file\n", req);
	expect_start(more, "failed", "-");
	cr_expect_eq(nstarts_of(more), 1);
}

/* The load's beginning in words ("Load weight begin", "begin loading",
 * "start loading") opens a start; a failure after it is the load's. */
Test(generic, load_begins_in_words_and_its_failure_is_the_loads)
{
	static const char *const begin[] = {"Load weight begin. avail mem=23.20 GB\n", "begin loading the shards\n",
					    "Start loading model /m\n"};
	for (size_t i = 0; i < sizeof(begin) / sizeof(begin[0]); i++) {
		cr_expect_eq(nstarts_of(begin[i]), 1, "%s", begin[i]);
		expect_start(begin[i], "cut-off", NULL);
		char log[256];
		snprintf(log, sizeof log, "%sScheduler hit an exception: Traceback (most recent call last):\n"
			 "  File \"/x/scheduler.py\", line 3206, in run_scheduler_process\n", begin[i]);
		expect_start(log, "failed", "-");
		struct lsc_triage *t = trun_text(log);
		cr_assert(t);
		cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL, "%s", log);
		lsc_triage_free(t);
	}
	/* near miss: the same failure after a server's start, no load begun,
	 * is a failed start but not the load's */
	const char *other = "Starting the server on port 8000\n"
			    "ERROR: Scheduler hit an exception: Traceback (most recent call last):\n"
			    "  File \"/x/scheduler.py\", line 3206, in run_scheduler_process\n";
	struct lsc_triage *t = trun_text(other);
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "load-failed"), -1, "no load began");
	lsc_triage_free(t);
}

/* The steps after the weights (a CUDA graph capture, torch.compile, a
 * warmup) with their time: the start got past its load (completed), and
 * took at least that long, which says slow from 300 s but never ok. */
Test(generic, steps_after_the_weights_are_a_floor_of_the_time_to_ready)
{
	expect_start("Graph capturing finished in 11412 secs, took 1.31 GiB\n", "completed", "slow");
	expect_start("Compiling a graph for compile range (1, 8000) takes 2219.43 s\n"
		     "torch.compile takes 2222.52 s in total\n",
		     "completed", "slow");
	struct lsc_triage *t = trun_text("torch.compile takes 2222.52 s in total\n");
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect(si.load_s > 2222.5 && si.load_s < 2222.6, "the longest step: %f", si.load_s);
	lsc_triage_free(t);
	/* near misses: a short step is no figure of the start's speed, nor is
	 * a load of the compiled graph from a cache; the weights' own load
	 * judges, unless a step after it took minutes */
	expect_start("torch.compile takes 45.81 s in total\n", "completed", "-");
	expect_start("Directly load the compiled graph(s) for dynamic shape from the cache, took 5.920 s\n", "completed", "-");
	expect_start("init engine (profile, create kv cache, warmup model) took 90.84 seconds\n", "completed", "-");
	expect_start("Model loading took 7.68 GiB and 2.2 seconds\nGraph capturing finished in 37 secs, took 0.45 GiB\n",
		     "completed", "ok");
	expect_start("Model loading took 7.68 GiB and 2.2 seconds\nGraph capturing finished in 400 secs, took 0.45 GiB\n",
		     "completed", "slow");
	/* a line with two duration words: the one a duration follows */
	expect_start("loading model /m\nweights took 3.1 GiB, the model finished in 130 s\n", "completed", "slow");
}

/* A status table a program drew (+---+ borders): a model READY is up, one
 * UNAVAILABLE with its reason fails the start, even after others were
 * READY. A Markdown table in the report's prose, and a drawn table of
 * options, are neither. */
Test(generic, status_table_rows)
{
	static const char head[] = "I0110 21:30:54.920681 60 server.cc:592]\n"
				   "+---------------+---------+---------+\n"
				   "| Model         | Version | Status  |\n"
				   "+---------------+---------+---------+\n";
	char log[1024];
	snprintf(log, sizeof log, "%s| densenet_onnx | 1       | READY   |\n+---+\n", head);
	expect_start(log, "completed", NULL);
	snprintf(log, sizeof log,
		 "%s| densenet_onnx | 1       | READY   |\n"
		 "| simple        | 1       | UNAVAILABLE: Internal: failed to stat file /opt/backends/python |\n",
		 head);
	expect_start(log, "failed", "-");
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL);
	lsc_triage_free(t);
	/* the only model UNAVAILABLE, nothing READY before it: the model was
	 * being loaded, and failed */
	snprintf(log, sizeof log,
		 "%s| simple        | 1       | UNAVAILABLE: Internal: failed to stat file /opt/backends/python |\n",
		 head);
	expect_start(log, "failed", "-");
	t = trun_text(log);
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL, "a lone UNAVAILABLE row");
	lsc_triage_free(t);
	/* near misses */
	cr_expect_eq(nstarts_of("| Model | Version | Status |\n|---|---|---|\n| m | 1 | UNAVAILABLE: x |\n"), 0,
		     "a Markdown table is the report's prose");
	cr_expect_eq(nstarts_of("+--------+-------+\n| Option | Value |\n+--------+-------+\n"
				"| strict_readiness | READY_X |\n| exit_on_error | 1 |\n"),
		     0, "an options table holds no model state");
}

/* A start under way that no engine line marks: the command that launches
 * it (--model), its files' download count, a warning that it is taking
 * long. Begun: cut off (or still loading) when nothing follows, never
 * failed; and each has its near miss. */
Test(generic, start_under_way_in_words)
{
	expect_start("% mlx_lm.server --model mlx-community/m-4bit --host 0.0.0.0\n", "cut-off", "-");
	expect_start("python -m sglang.launch_server --model-path /m --port 30000\n", "cut-off", "-");
	cr_expect_eq(nstarts_of("It hangs. I also tried --model with a local path\n"), 0, "a sentence about the flag");
	cr_expect_eq(nstarts_of("run it with --models-dir /x\n"), 0, "another flag");
	/* a model server's own name as the line's first word, with an argument */
	expect_start("trtllm-serve /home/u/engines/qwen-7b \\\n--tokenizer /home/u/models/qwen\n", "cut-off", "-");
	expect_start("./build/bin/llama-server -m /models/m.gguf -ngl 99\n", "cut-off", "-");
	expect_start("vllm serve Qwen/Qwen2.5-7B-Instruct --port 8000\n", "cut-off", "-");
	cr_expect_eq(nstarts_of("llama-server --help\n"), 0, "the help");
	cr_expect_eq(nstarts_of("trtllm-serve\n"), 0, "no argument");
	cr_expect_eq(nstarts_of("I ran llama-server -m x.gguf and it hangs\n"), 0, "prose naming it");
	cr_expect_eq(nstarts_of("vllm serve\n"), 0, "the subcommand alone");
	/* the model built, with its count of parameters */
	expect_start("DiffusionWrapper has 859.52 M params.\n", "cut-off", "-");
	expect_start("Total params: 6,738,415,616\n", "cut-off", "-");
	expect_start("the model has 7.24B parameters\n", "cut-off", "-");
	/* a bare count before the word, both sides of a million */
	expect_start("model built with 6738415616 parameters\n", "cut-off", "-");
	expect_start("Model has 1,000,000 params\n", "cut-off", "-");
	cr_expect_eq(nstarts_of("Model has 999,999 params\n"), 0, "a bare count under a million");
	expect_start("the model has 1.0 M params\n", "cut-off", "-");
	cr_expect_eq(nstarts_of("the model has 0.99 M params\n"), 0, "a scaled count under a million");
	cr_expect_eq(nstarts_of("Sampling parameters: temperature 0.7\n"), 0, "no count");
	cr_expect_eq(nstarts_of("using 12 params for the sampler\n"), 0, "a count under a million");
	expect_start("INFO text_generation_launcher: Download file: model-00010-of-00019.safetensors\n"
		     "INFO text_generation_launcher: Download: [10/19] -- ETA: 0:00:31.500000\n",
		     "loading", "-");
	expect_start("loading model /m\nDownloading shards: 19/19\n", "cut-off", "-");
	cr_expect_eq(nstarts_of("Downloading pip-24.0-py3-none-any.whl 2/3\n"), 0, "a download of no model");
	expect_start("WARNING controller -- Deployment 'VLLMDeployment' in application 'default' has 1 replicas that "
		     "have taken more than 30s to initialize.\n",
		     "cut-off", "-");
	cr_expect_eq(nstarts_of("the request has taken more than 30s, retrying\n"), 0, "a request, not a start");
	/* a failure after the command is the start's; an exit that names the model is the load's */
	struct lsc_triage *t = trun_text("llama.cpp args: [-ngl 999 --model /m.gguf]\n"
					 "Backend llama.cpp running model ai/llama3.2 exited with error: exit status 0xc0000135\n");
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.outcome, "failed");
	cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL);
	lsc_triage_free(t);
}

/* Inside a traceback, the frames' functions and the calls on their code
 * lines say whether it was loading: init_model, load_weight, from_pretrained;
 * not json.loads, a download, an unload. */
Test(generic, traceback_code_lines_name_the_load)
{
	static const char *const loads[] = {"    self.model.load_weight(path)\n", "    m = AutoModel.from_pretrained(p)\n",
					    "  File \"/x/worker.py\", line 97, in init_model\n"};
	static const char *const other[] = {"    cfg = json.loads(text)\n", "    hf_hub_download(repo)\n",
					    "    self.unload_adapter(a)\n", "  File \"/x/worker.py\", line 97, in run\n"};
	for (int pass = 0; pass < 2; pass++) {
		const char *const *set = pass ? other : loads;
		size_t n = pass ? sizeof(other) / sizeof(other[0]) : sizeof(loads) / sizeof(loads[0]);
		for (size_t i = 0; i < n; i++) {
			char log[512];
			snprintf(log, sizeof log, "python serve.py --model /m\nTraceback (most recent call last):\n"
				 "  File \"/x/a.py\", line 3, in main\n%sRuntimeError\n", set[i]);
			expect_start(log, "failed", "-");
			struct lsc_triage *t = trun_text(log);
			cr_assert(t);
			cr_expect_eq(trun_sev_of(t, "load-failed"), pass ? -1 : LSC_TRIAGE_FAIL, "%s", set[i]);
			lsc_triage_free(t);
		}
	}
}

/* A timings block's load in a key that ends in its unit ("t_load_us: N",
 * "load_ms=N"): the weights' load, done; not another key with "load" in
 * it, nor another timing. */
Test(generic, load_in_a_keyed_timing)
{
	expect_start("t_eval_us: 3515782  # total microseconds spent generating tokens\n"
		     "t_load_us: 4173895  # total microseconds spent loading the model\n",
		     "completed", "ok");
	expect_start("t_load_us: 432872591  # total microseconds spent loading the model\n", "completed", "slow");
	expect_start("level=info model_load_time_s=3.2\n", "completed", "ok");
	struct lsc_triage *t = trun_text("t_load_us: 4173895\n");
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect(si.load_s > 4.17 && si.load_s < 4.18, "4173895 us: %f s", si.load_s);
	lsc_triage_free(t);
	cr_expect_eq(nstarts_of("t_p_eval_us: 73317136  # total microseconds spent prompt processing\n"), 0);
	cr_expect_eq(nstarts_of("load_balancer_ms: 12\n"), 0);
	cr_expect_eq(nstarts_of("payload_ms=812\n"), 0);
	/* a unit the reader does not know is no duration (not 0 s) */
	cr_expect_eq(nstarts_of("model_load_time_min: 12\n"), 0);
	cr_expect_eq(nstarts_of("load_fortnights=3\n"), 0);
}

/* Bars glued into one line, each cut after its elapsed time ("| 45/96
 * [19:29"): the last one counts, under way; a bracketed clock with no
 * count before it is no bar. */
Test(generic, glued_bars_cut_after_their_elapsed_time)
{
	const char *glued = "Loading checkpoint shards:  44%|####      | 42/96 [18:11Loading checkpoint shards:  "
			    "47%|####      | 45/96 [19:29\n";
	expect_start(glued, "loading", "slow");
	struct lsc_triage *t = trun_text(glued);
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect(si.load_s > 1168.9 && si.load_s < 1169.1, "19:29 is 1169 s: %f", si.load_s);
	lsc_triage_free(t);
	expect_start("Loading checkpoint shards: 100%|##########| 2/2 [00:10\n", "completed", "ok");
	cr_expect_eq(nstarts_of("shards: 45%| done [19:29] at the loading dock\n"), 0, "no n/N before the clock");
	/* text after the clock: no bar (the load began, in words, and no more) */
	expect_start("Loading checkpoint shards:  47%| 45/96 [19:29 later\n", "cut-off", "-");
}

/* The loader's words for a model file that is not what it reads ("has
 * wrong size in model file", "size mismatch for x.weight", "bad magic"),
 * and a report that something "Fails: reason", end the start; the same
 * words about no model, and "fails" with no reason after it, do not. */
Test(generic, bad_model_file_and_fails_colon)
{
	expect_start("stablelm_model_load: loading model from 'm.bin' - please wait ...\n"
		     "stablelm_model_load: tensor 'gpt_neox.embed_in.weight' has wrong size in model file\n",
		     "failed", "-");
	expect_start("loading model /m\nsize mismatch for lm_head.weight: copying a param with shape [1, 2]\n", "failed",
		     "-");
	expect_start("loading model /m\n[tinydream] Fails: grpc process not found: /tmp/grpc/tinydream\n", "failed", "-");
	/* near misses */
	expect_start("loading model /m\nthe font has wrong size on the page\n", "cut-off", "-");
	expect_start("loading model /m\nif it fails we retry\n", "cut-off", "-");
}

/* nvidia-smi's head in its drawn table is the machine, pasted as a
 * setting: alone, not a start (outcome none); before a log, part of that
 * log's start. */
Test(generic, nvidia_smi_table_is_a_setting)
{
	static const char smi[] = "+-----------------------------------------------------------------------------+\n"
				  "| NVIDIA-SMI 550.144.03   Driver Version: 550.144.03   CUDA Version: 12.4     |\n"
				  "|-------------------------------+----------------------+----------------------+\n";
	expect_start(smi, "none", "-");
	char log[1024];
	snprintf(log, sizeof log, "%sloading model /m\nModel loaded in 3.0 s\n", smi);
	expect_start(log, "completed", "ok");
	cr_expect_eq(nstarts_of(log), 1);
	/* a row of another drawn table is no setting */
	cr_expect_eq(nstarts_of("+-----+\n| GPU  Name   Persistence-M |\n+-----+\n"), 0);
}

/* Each of the shared vocabulary's words that end a start, alone after a
 * start's first line: the start failed. The same start without it is cut
 * off (the near miss). */
Test(generic, each_fatal_phrase_ends_the_start)
{
	static const char *const fatal[] = {
		"error loading the weights",      "could not load the weights", "unable to load the weights",
		"cannot load the weights",        "failed to load the weights", "Segmentation fault (core dumped)",
		"panic: runtime error: index out of range", "thread 'main' panicked at src/main.rs:10:5",
		"Illegal instruction",            "weights: load failed",       "the worker terminated unexpectedly",
		"received SIGKILL",               "timed out waiting for the worker",
		/* a C++ exception nobody caught: the runtime aborts the process */
		"terminate called after throwing an instance of 'std::runtime_error'",
		/* a CLI's last word at its fatal level, about the model */
		"fatal error: unable to open model file /m.gguf",
	};
	expect_start("Starting engine with pid 4711\n", "cut-off", NULL);
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
		char log[256];
		snprintf(log, sizeof log, "Starting engine with pid 4711\n%s\n", fatal[i]);
		expect_start(log, "failed", NULL);
	}
}

/* A launcher that tries its backends in turn: a load that begins after
 * the start under way failed is a retry, a start of its own, with its own
 * outcome. The near misses: a load that begins again after a warning (the
 * same start), and the words inside the failure's traceback. */
Test(generic, load_begun_after_a_failure_is_a_retry)
{
	static const char log[] = "INFO [alpha] attempting to load model m\n"
				  "ERROR [alpha] load failed: unsupported format\n"
				  "INFO [beta] trying to load model m\n"
				  "INFO [beta] model loaded in 3.2 s\n";
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	cr_assert_eq(lsc_triage_nstarts(t), 2);
	struct lsc_triage_start_info a, b;
	cr_assert(lsc_triage_start(t, 0, &a) == 0 && lsc_triage_start(t, 1, &b) == 0);
	cr_expect_str_eq(a.outcome, "failed");
	cr_expect_eq(a.first_line, 1);
	cr_expect_str_eq(b.outcome, "completed");
	cr_expect_str_eq(b.speed, "ok"); /* 3.2 s */
	cr_expect_eq(b.first_line, 3);
	lsc_triage_free(t);
	cr_expect_eq(nstarts_of("INFO attempting to load model m\n"
				"WARNING low host memory\n"
				"INFO loading model m shards\n"
				"INFO model loaded in 3.2 s\n"),
		     1, "a warning is no failure");
	cr_expect_eq(nstarts_of("INFO loading model m\n"
				"Traceback (most recent call last):\n"
				"  File \"x.py\", line 3, in run\n"
				"    print('loading model m')\n"
				"ValueError: bad\n"),
		     1, "inside the traceback");
	/* the model let go after the failure is no load begun: one start,
	 * whose failure is the load's; a load after the unload is a retry */
	cr_expect_eq(nstarts_of("[ERROR] llama-server process has terminated with exit code: -1073740791\n"
				"[Router] Retry also failed: llama-server failed to start\n"
				"[LlamaCpp] Unloading model...\n"
				"[Server ERROR] Failed to load model: llama-server failed to start\n"),
		     1, "an unload");
	cr_expect_eq(nstarts_of("[ERROR] llama-server process has terminated with exit code: 1\n"
				"[LlamaCpp] Unloading model a, loading model b\n"
				"[LlamaCpp] model loaded in 3.2 s\n"),
		     2, "an unload, then a load");
}

/* A structured line that plans the load with the weights' size in a key
 * (`weights.total="34.6 GiB"`, `"model_size_bytes": 7516192768`) is a
 * start under way, cut off when nothing follows, with that size as the
 * model's. Near misses: a size of something else (the machine's memory,
 * the KV cache), a model size in parameters, prose. */
Test(generic, weights_size_in_a_key_is_a_start_under_way)
{
	static const char *const logs[] = {
		"level=INFO msg=\"offload\" layers.model=49 memory.weights.total=\"34.6 GiB\"\n",
		"{\"event\":\"plan\",\"model_size_bytes\": 37151946752}\n",
	};
	for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
		struct lsc_triage *t = trun_text(logs[i]);
		cr_assert(t);
		struct lsc_triage_start_info si;
		cr_assert(lsc_triage_start(t, 0, &si) == 0, "%s", logs[i]);
		cr_expect_str_eq(si.outcome, "cut-off", "%s", logs[i]);
		lsc_triage_free(t);
	}
	/* the size is the model's: a load of 34.6 GiB in 120 s is 0.29 GiB/s, slow */
	struct lsc_triage *t = trun_text("level=INFO memory.weights.total=\"34.6 GiB\"\n"
					 "level=INFO msg=\"model loaded in 120 s\"\n");
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.outcome, "completed");
	cr_expect_str_eq(si.speed, "slow");
	cr_expect(si.gib > 34.59 && si.gib < 34.61, "gib %f", si.gib);
	lsc_triage_free(t);
	/* bare bytes under a key that ends in bytes: 37151946752 is 34.6 GiB */
	t = trun_text("{\"event\":\"plan\",\"model_size_bytes\": 37151946752}\n"
		      "level=INFO msg=\"model loaded in 120 s\"\n");
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.speed, "slow");
	cr_expect_float_eq(si.gib, 37151946752.0 / (1024.0 * 1024 * 1024), 1e-9, "gib %f", si.gib);
	lsc_triage_free(t);
	cr_expect_eq(nstarts_of("level=INFO memory.total=\"62.6 GiB\" kv.size=\"2.2 GiB\"\n"), 0, "not the weights");
	cr_expect_eq(nstarts_of("level=INFO model_size=7B\n"), 0, "parameters, not bytes");
	cr_expect_eq(nstarts_of("the weights_total was 34.6 GiB last time\n"), 0, "no key=value");
}

/* A poller that waits on the load itself ("Sleep 30 seconds for load m..",
 * "waiting for the model to finish loading") says the load is under way:
 * a paste that ends there is loading, one with a load summary after it
 * completed. A wait for a server to come up is only begun (cut off); a
 * wait that timed out, or a guess, is no load under way. */
Test(generic, wait_on_the_load_is_loading)
{
	expect_start("INFO:root:Sleep 30 seconds for load llama2-7b-chat..\n", "loading", "-");
	expect_start("engine: waiting for the model to finish loading\n", "loading", "-");
	expect_start("INFO:root:Sleep 30 seconds for load m..\nINFO model loaded in 4.0 s\n", "completed", "ok");
	/* near misses */
	expect_start("INFO: waiting for server to start\n", "cut-off", "-");
	cr_expect_eq(nstarts_of("if it hangs, wait for load to finish\n"), 0, "a guess");
	cr_expect_eq(nstarts_of("sleep 5 for loadavg to settle\n"), 0, "not the load");
}

/* An amount moved in a time ("pinned 28.47 GiB in 18 s") is the load's own
 * measure, judged on that amount: 18 s is ok (under 60 s) even where the
 * engine's time to ready (61 s, which alone says nothing) follows; 223 s
 * for 28.47 GiB is 0.128 GiB/s, slow. A download of the same amount is
 * not the load. */
Test(generic, amount_moved_in_a_time_is_the_load)
{
	struct lsc_triage *t = trun_text("engine: pinned 28.47 GiB in 18 s; page-locked\nengine ready after 61 s\n");
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.outcome, "completed");
	cr_expect_str_eq(si.speed, "ok");
	cr_expect(si.load_s == 18.0, "load %f", si.load_s);
	cr_expect(si.gib > 28.469 && si.gib < 28.471, "gib %f", si.gib);
	lsc_triage_free(t);
	t = trun_text("engine: copied 28.47 GiB in 223 s\nengine ready after 291 s\n");
	cr_assert(t);
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.speed, "slow");
	cr_expect(si.gibps > 0.1276 && si.gibps < 0.1278, "rate %f", si.gibps); /* 28.47 / 223 */
	lsc_triage_free(t);
	/* near misses: a download, a size with no time after it */
	expect_start("engine: downloaded 28.47 GiB in 223 s\nengine ready after 61 s\n", "completed", "-");
	expect_start("engine: pinned 28.47 GiB (in 2 pieces)\nengine ready after 61 s\n", "completed", "-");
	/* judged on the amount moved, its line is the size's evidence too: the
	 * checkpoint's size, on another line, is not what the rate is of */
	t = trun_text("engine: checkpoint size: 40.0 GiB\nengine: copied 28.47 GiB in 223 s\nengine ready after 291 s\n");
	cr_assert(t);
	size_t nf = lsc_triage_nfindings(t);
	int seen = 0;
	for (size_t i = 0; i < nf; i++) {
		struct lsc_triage_finding_info f;
		cr_assert_eq(lsc_triage_finding(t, i, &f), 0);
		if (strcmp(f.id, "slow-start"))
			continue;
		seen = 1;
		cr_expect_eq(f.first_line, 2, "slow-start's first quote is line %lu, not the amount's", f.first_line);
		cr_expect(strstr(f.summary, "28.47 GiB in 223.0 s"), "%s", f.summary);
	}
	cr_expect(seen, "no slow-start");
	lsc_triage_free(t);
	/* the amount alone, the log ending there: a load under way, cut off
	 * (not settings, not "none"), and an unfinished start is only ever slow */
	expect_start("engine: pinned 28.47 GiB in 18 s\n", "cut-off", "-");
	expect_start("engine: pinned 28.47 GiB in 900 s\n", "cut-off", "slow");
}

/* A line an engine shape takes for another fact (here the hugetlb pool's
 * need and size) that also says the load failed fails the start: the
 * failure words are read whichever recogniser took the line. A guess
 * before them ("if it failed to load") is none. */
Test(generic, load_failure_words_on_a_line_taken_for_another_fact)
{
	static const char fail[] = "engine: could not load weights: hugetlb mmap failed: need 23584 free 2 MiB pages, "
				   "pool has 13567\n";
	expect_start(fail, "failed", "-");
	struct lsc_triage *t = trun_text(fail);
	cr_assert(t);
	cr_expect_geq(trun_sev_of(t, "hugetlb-pool-short"), LSC_TRIAGE_INFO, "the pool's finding too");
	lsc_triage_free(t);
	expect_start("engine: hugetlb mmap failed: need 23584 free 2 MiB pages, pool has 13567\n", "cut-off", "-");
	expect_start("engine: if it failed to load, hugetlb mmap failed: need 23584 free 2 MiB pages, pool has 13567\n",
		     "cut-off", "-");
}

/* A page-locked allocation refused, in any engine's words (an allocation
 * word, pinned or page-locked memory, a failure read by meaning), with
 * the size it names: pinned-alloc-failed (warn), the start not failed by
 * it (the engine may go on with pageable memory), also where the reason
 * is "out of memory" and llama.cpp's shapes are off. Near misses: a
 * success, a guess. */
Test(generic, pinned_refusal_in_any_words)
{
	static const char *const logs[] = {
		"engine: unable to register page-locked host memory (4.00 GiB): operation not permitted\n",
		"It initializes with an error: ggml_cuda_host_malloc: failed to allocate 1012.00 MiB of pinned memory: "
		"out of memory\n",
	};
	static const char *const size[] = {"4.00 GiB", "1012.00 MiB"};
	for (size_t i = 0; i < 2; i++) {
		struct lsc_triage_opts o = {.source = "x"};
		struct lsc_triage *t = lsc_triage_new(&o);
		cr_assert(t);
		lsc_triage_engine_off(t, "llama.cpp");
		lsc_triage_feed(t, logs[i], strlen(logs[i]));
		lsc_triage_finish(t);
		struct lsc_triage_start_info si;
		cr_assert(lsc_triage_start(t, 0, &si) == 0, "%s", logs[i]);
		cr_expect_str_eq(si.outcome, "cut-off", "%s", logs[i]);
		int found = 0;
		for (size_t k = 0; k < lsc_triage_nfindings(t); k++) {
			struct lsc_triage_finding_info f;
			lsc_triage_finding(t, k, &f);
			if (!strcmp(f.id, "pinned-alloc-failed")) {
				found = 1;
				cr_expect_eq(f.severity, LSC_TRIAGE_WARN);
				cr_expect(strstr(f.summary, size[i]) != NULL, "%s: %s", size[i], f.summary);
			}
		}
		cr_expect(found, "%s", logs[i]);
		lsc_triage_free(t);
	}
	cr_expect_eq(nstarts_of("engine: registered 4.00 GiB of page-locked host memory, 0 failures\n"), 0);
	cr_expect_eq(nstarts_of("if the allocation of pinned memory failed, use pageable memory\n"), 0);
}

/* A bar's share of the checkpoint is what its elapsed time moved: 7 of 11
 * shards of a 17.69 GiB checkpoint are 11.26 GiB in 60 s, 0.19 GiB/s,
 * slow so far (60 s is not under 60 s); the checkpoint's size is read in
 * words ("checkpoint size: X"). Without a size the same bar is not judged. */
Test(generic, bar_share_of_the_checkpoint)
{
	static const char bar[] = "Loading checkpoint shards:  64%|######    | 7/11 [01:00<00:30,  7.72s/it]\n";
	char log[512];
	snprintf(log, sizeof log, "engine: checkpoint size: 17.69 GiB\n%s", bar);
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.outcome, "loading");
	cr_expect_str_eq(si.speed, "slow");
	cr_expect(si.load_s == 60.0, "load %f", si.load_s);
	cr_expect(fabs(si.gib - 17.69 * 7 / 11) < 1e-9, "gib %f", si.gib);
	lsc_triage_free(t);
	expect_start(bar, "loading", "-");
}

/* A bar under way with its share of a stated size is judged on its rate so
 * far: 7 of 46 shards of 148.66 GiB (22.62 GiB) in 7 s is 3.2 GiB/s, ok,
 * never a projection of the whole. Near misses: the same share at just
 * under 1 GiB/s (23 s: 0.98 GiB/s) and just over (22 s: 1.03 GiB/s), and
 * the bar with no size. */
static void expect_bar_so_far(const char *clock, const char *speed)
{
	char log[512];
	snprintf(log, sizeof log,
		 "engine: checkpoint size: 148.66 GiB\n"
		 "Loading safetensors checkpoint shards:  15%% Completed | 7/46 [%s<00:44,  1.15s/it]\n",
		 clock);
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.outcome, "loading");
	cr_expect_str_eq(si.speed, speed, "%s: speed %s, want %s", clock, si.speed, speed);
	cr_expect(fabs(si.gib - 148.66 * 7 / 46) < 1e-9, "gib %f", si.gib);
	lsc_triage_free(t);
}

Test(generic, bar_share_of_the_checkpoint_so_far)
{
	expect_bar_so_far("00:07", "ok");
	expect_bar_so_far("00:22", "ok");
	expect_bar_so_far("00:23", "-");
	expect_start("Loading safetensors checkpoint shards:  15% Completed | 7/46 [00:07<00:44,  1.15s/it]\n",
		     "loading", "-");
}

/* A GPU management tool's device properties ("GPU[0]    : (Topology) Numa
 * Node: 0", as rocm-smi lists them) are the machine, pasted as a setting:
 * alone, not a start (outcome none); before a log, part of its start.
 * Near misses: a GPU named in a sentence, a property with no value. */
Test(generic, device_properties_are_a_setting)
{
	static const char props[] = "GPU[0]    : (Topology) Numa Node: 0\nGPU[0]    : (Topology) Numa Affinity: 0\n";
	expect_start(props, "none", "-");
	char log[512];
	snprintf(log, sizeof log, "%sloading model /m\nModel loaded in 3.0 s\n", props);
	expect_start(log, "completed", "ok");
	cr_expect_eq(nstarts_of(log), 1);
	cr_expect_eq(nstarts_of("GPU[0] is the one that hangs\n"), 0);
	cr_expect_eq(nstarts_of("GPU[0] : Numa Node\n"), 0);
}

/* A progress bar over work that is no load (sampling steps) where no
 * start is under way is an app at work: alone, not a start (outcome
 * none). Near misses: a bar that names the load is loading; a load that
 * begins after the bars is a start (cut off). */
Test(generic, sampling_bar_alone_is_no_start)
{
	static const char bars[] = "  4%|3         | 1/28 [00:01<00:40,  1.51s/it]\n"
				   "  7%|7         | 2/28 [00:03<00:39,  1.51s/it]\n";
	expect_start(bars, "none", "-");
	cr_expect_eq(nstarts_of(bars), 1);
	expect_start("Loading shards:  7%|7         | 2/28 [00:03<00:39,  1.51s/it]\n", "loading", "-");
	char log[512];
	snprintf(log, sizeof log, "%sloading model /m\n", bars);
	expect_start(log, "cut-off", "-");
	cr_expect_eq(nstarts_of(log), 1);
}

/* A load summary in other words: "loaded weights in N ms" is the weights'
 * own load, done, and "X GB loaded at Y GB/s" the amount moved at a rate
 * (its time is X / Y). A second summary after the first start completed
 * is a second run. Near misses: a download at a rate, a size at an
 * address. */
Test(generic, load_summary_with_amount_at_a_rate)
{
	static const char two[] = "loaded weights in 1392.69 ms, 5.21 GB loaded at 3.74 GB/s\n"
				  "loaded weights in 400000 ms, 50 GB loaded at 0.125 GB/s\n";
	struct lsc_triage *t = trun_text(two);
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.outcome, "completed");
	cr_expect_str_eq(si.speed, "ok");
	/* 5.21e9 B is 4.852 GiB; at 3.74e9 B/s it took 1.393 s */
	cr_expect(si.gib > 4.851 && si.gib < 4.853, "gib %f", si.gib);
	cr_expect(si.load_s > 1.392 && si.load_s < 1.394, "load %f", si.load_s);
	cr_assert(lsc_triage_start(t, 1, &si) == 0, "the second summary is a second run");
	cr_expect_str_eq(si.outcome, "completed");
	cr_expect_str_eq(si.speed, "slow"); /* 46.57 GiB in 400 s: 0.116 GiB/s */
	cr_expect(si.load_s > 399.9 && si.load_s < 400.1, "load %f", si.load_s);
	cr_expect(lsc_triage_start(t, 2, &si) != 0);
	lsc_triage_free(t);
	/* the summary's words alone: completed, its time judged without a size */
	expect_start("loaded weights in 20793.81 ms\n", "completed", "ok");
	expect_start("engine: downloaded 5.21 GB at 3.74 GB/s\nengine ready after 61 s\n", "completed", "-");
	/* a second measure after a start that completed with one: a second run */
	cr_expect_eq(nstarts_of("engine: copied 12 GB at 1.2 GB/s\nengine ready after 12 s\n"
				"engine: copied 12 GB at 1.2 GB/s\nengine ready after 12 s\n"), 2);
	/* the verb before the size: the same measure (12 GB at 1.2 GB/s: 10 s) */
	t = trun_text("engine: copied 12 GB at 1.2 GB/s\nengine ready after 61 s\n");
	cr_assert(t);
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.speed, "ok");
	cr_expect(si.load_s > 9.99 && si.load_s < 10.01, "load %f", si.load_s);
	lsc_triage_free(t);
	expect_start("engine: mapped 5.21 GB at 0x7f00aa000000\nengine ready after 61 s\n", "completed", "-");
}

/* "From pretrained time: 14.59s": the time of the loading function every
 * Hugging Face loader calls (from_pretrained) is the weights' own load:
 * ok under a minute, slow past 100 s with no size, as any weights' load. */
Test(generic, from_pretrained_time_is_the_load)
{
	expect_start("[ INFO ] From pretrained time: 14.59s\n", "completed", "ok");
	expect_start("[ INFO ] From pretrained time: 150.2s\n", "completed", "slow");
	struct lsc_triage *t = trun_text("[ INFO ] From pretrained time: 14.59s\n");
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect(si.load_s > 14.58 && si.load_s < 14.60, "load %f", si.load_s);
	lsc_triage_free(t);
	cr_expect_eq(nstarts_of("[ INFO ] Tokenization time: 14.59s\n"), 0, "no load word: no figure");
}

/* A line per tensor loaded ("loading blk.48.attn_kv_b.weight to
 * cuda:0") is a load under way: a paste that stops on them is loading,
 * and a load summary after them completes it. Near misses: a file, a
 * name with no tensor's suffix. */
Test(generic, per_tensor_lines_are_a_load_under_way)
{
	static const char tensors[] = "loading blk.48.attn_kv_b.weight to cuda:0\n"
				      "loading blk.48.attn_norm.weight to cuda:0\n"
				      "loading model.layers.3.mlp.bias to cpu\n";
	expect_start(tensors, "loading", "-");
	cr_expect_eq(nstarts_of(tensors), 1);
	char log[512];
	snprintf(log, sizeof log, "%sModel loaded in 3.0 s\n", tensors);
	expect_start(log, "completed", "ok");
	cr_expect_eq(nstarts_of("loading config.json from /m\n"), 0);
	cr_expect_eq(nstarts_of("loading blk.48.attn_kv_b to cuda:0\n"), 0);
	cr_expect_eq(nstarts_of("unloading blk.48.attn_kv_b.weight\n"), 0);
}

/* A share of the model loaded ("loaded  51% model tensors into buffer")
 * is the load under way; behind the process clock llama.cpp's servers
 * print (`m.ss.mmm.uuu I`), the shares and their clocks give the whole
 * load's time at that rate: 10% at 0:30, 50% at 3:30 is 40% in 180 s
 * (not slow so far), 450 s for the whole, slow; 10% to 90% in 40 s is 50 s, never ok
 * (a projection). Near misses: a download's share, a share with no
 * part of the model named. */
Test(generic, share_of_the_model_loaded_with_the_process_clock)
{
	expect_start("0.30.000.000 I loaded  10% model tensors into buffer\n"
		     "3.30.000.000 I loaded  50% model tensors into buffer\n",
		     "loading", "slow");
	struct lsc_triage *t = trun_text("0.30.000.000 I loaded  10% model tensors into buffer\n"
					 "3.30.000.000 I loaded  50% model tensors into buffer\n");
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect(si.load_s > 449.9 && si.load_s < 450.1, "whole load %f", si.load_s);
	lsc_triage_free(t);
	expect_start("0.30.000.000 I loaded  10% model tensors into buffer\n"
		     "1.10.000.000 I loaded  90% model tensors into buffer\n",
		     "loading", "-");
	/* no clock: under way, its speed not judged */
	expect_start("loaded 45% of the weights\n", "loading", "-");
	/* a space before the sign, after the verb's colon */
	expect_start("Loading: 45 % of the model\n", "loading", "-");
	cr_expect_eq(nstarts_of("download: loaded 45% of model file\n"), 0);
	cr_expect_eq(nstarts_of("loaded 45% of the queue\n"), 0);
}

/* Many ranks' bars glued into one line, the last cut inside its bracket
 * ("6/19 [0"): the bar before it is the latest figure (102 s for 6 of 19
 * shards with no size: the whole load at that pace is 323 s, over 300 s,
 * slow so far; the bar's 102 s is no whole load to hold to 100 s). */
Test(generic, glued_bars_last_cut_in_its_bracket)
{
	static const char glued[] = "Loading checkpoint shards: 26%|## | 5/19 [01:23<03:56, 16.87s/it] "
				    "Loading checkpoint shards: 32%|### | 6/19 [01:42<03:47, 17.50s/it] "
				    "Loading checkpoint shards: 32%|### | 6/19 [0\n";
	expect_start(glued, "loading", "slow");
	struct lsc_triage *t = trun_text(glued);
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect(fabs(si.load_s - 102.0 * 19 / 6) < 1e-6, "01:42 for 6 of 19 is 323 s: %f", si.load_s);
	lsc_triage_free(t);
}

/* A supervisor's report of its child's exit, "exited with status code 1"
 * (the noun after the key), behind a spinner's line: a status that is not
 * 0 ends the start before ready; 0 does not. */
Test(generic, exit_status_code_in_a_supervisors_words)
{
	expect_start("\xe2\xa0\x8b     9.609 s   Starting...2025-06-18T15:08:32.800393Z  WARN supervisor: llama-server "
		     "exited with status code 1, args: -m /m/model.gguf\n",
		     "failed", "-");
	expect_start("loading model /m\nserver exited with status code: 3\n", "failed", "-");
	expect_start("loading model /m\nserver exited with status code 0\n", "cut-off", "-");
}

/* A Windows console's `pause` prompt ("Press any key to continue . . .",
 * in the console's language) glued to a bar mid-way: the process ended
 * before the model came up, its load failed. After ready it is the
 * window waiting to close; with no start under way, nothing. */
Test(generic, console_pause_prompt_is_the_process_gone)
{
	static const char zh[] = "Loading checkpoint shards:  50%|#####     | 2/4 [00:00<00:00,  6.11it/s]"
				 "\xe8\xaf\xb7\xe6\x8c\x89\xe4\xbb\xbb\xe6\x84\x8f\xe9\x94\xae\xe7\xbb\xa7\xe7\xbb\xad. . .\n";
	expect_start(zh, "failed", "-");
	struct lsc_triage *t = trun_text(zh);
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL);
	lsc_triage_free(t);
	expect_start("loading model /m\nPress any key to continue . . .\n", "failed", "-");
	expect_start("loading model /m\nModel loaded in 3.0 s\nserver is ready\nPress any key to continue . . .\n",
		     "completed", "ok");
	cr_expect_eq(nstarts_of("Press any key to continue . . .\n"), 0);
	/* the bar alone stays loading */
	expect_start("Loading checkpoint shards:  50%|#####     | 2/4 [00:00<00:00,  6.11it/s]\n", "loading", "-");
}

/* An engine's own elapsed clock on its ready line ("startup [ 163.1 s]
 * model ready") is its time to ready, and the running total of its
 * allocations ("dmalloc: 80.000 MiB (total 18.928 GiB, #655)", the
 * largest) what it brought into memory: 18.928 GiB in 163.1 s is
 * 0.116 GiB/s over a minute, slow. Near misses: the same total in 43 s
 * (ok); the clock with no size (60-300 s: not judged); a total with no
 * allocation named; a bracket that holds no duration. */
Test(generic, elapsed_clock_on_ready_and_allocation_total)
{
	static const char allocs[] = "dmalloc:    256.000 MiB  (total   17.544 GiB, #637)\n"
				     "dmalloc:     80.000 MiB  (total   18.928 GiB, #655)\n";
	char log[512];
	snprintf(log, sizeof log, "%sstartup [ 163.1 s] model ready\n", allocs);
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.outcome, "completed");
	cr_expect_str_eq(si.speed, "slow");
	cr_expect(si.load_s > 163.09 && si.load_s < 163.11, "ready %f", si.load_s);
	cr_expect(si.gib > 18.927 && si.gib < 18.929, "gib %f", si.gib);
	lsc_triage_free(t);
	cr_expect_eq(nstarts_of(log), 1);
	snprintf(log, sizeof log, "%sstartup [ 43.1 s] model ready\n", allocs);
	expect_start(log, "completed", "ok");
	expect_start("startup [ 163.1 s] model ready\n", "completed", "-");
	expect_start("cache:  (total   18.928 GiB)\nstartup [ 163.1 s] model ready\n", "completed", "-");
	expect_start("[163 tokens] model ready\n", "completed", "-");
}

/* A request or a response a running server dumps as it serves
 * ("model_service: request: model_spec {"), where no start is under way,
 * is an app at work: a start whose outcome is none. Under way, it is not
 * the start's (a load that follows is); near misses: a request's words
 * with no structure after them, "request:" inside a word. */
Test(generic, request_dumps_are_no_start)
{
	static const char dumps[] = "model_service: request: model_spec {\n"
				    "  name: \"Qwen3-8B-int4-ov\"\n"
				    "}\n"
				    "model_service: response: model_version_status {\n"
				    "  state: LOADING\n"
				    "}\n";
	expect_start(dumps, "none", "-");
	cr_expect_eq(nstarts_of(dumps), 1);
	expect_start("loading model /m\nmodel_service: request: model_spec {\n", "cut-off", "-");
	cr_expect_eq(nstarts_of("request: the model is missing\n"), 0);
	cr_expect_eq(nstarts_of("subrequest: {\n"), 0);
}

/* A process that says it shuts down ("PythonInterpreterModule shutting
 * down") before its model came up ended the start: failed. Near misses:
 * a shutdown asked for (a signal, Ctrl-C before it), one after ready, a
 * setting's name, a plan. */
Test(generic, shutdown_before_ready_is_an_exit)
{
	expect_start("$ ovms --rest_port 8000 --config_path ./models/config.json\n"
		     "PythonInterpreterModule starting\nPythonInterpreterModule shutting down\n",
		     "failed", "-");
	expect_start("loading model /m\nShutting down the server\n", "failed", "-");
	expect_start("loading model /m\nreceived SIGTERM, shutting down\n", "cut-off", "-");
	expect_start("loading model /m\nModel loaded in 3.0 s\nserver is ready\nShutting down the server\n", "completed", "ok");
	expect_start("loading model /m\ngraceful_shutdown = 30\n", "cut-off", "-");
	expect_start("loading model /m\nthe server will shut down when idle\n", "cut-off", "-");
}

/* What a server is ready for names it: "ready to batch requests.",
 * "ready for inference" are the server up. Near miss: ready for nothing
 * named. */
Test(generic, ready_for_requests_names_the_server)
{
	expect_start("infinity_emb INFO: ready to batch requests.\n", "completed", "-");
	expect_start("ready for inference\n", "completed", "-");
	cr_expect_eq(nstarts_of("ready to batch\n"), 0);
}

/* A launcher's elapsed counter beside the start under way ("Loading
 * model... [37m 36s elapsed]") is its time so far: 2256 s, slow so far,
 * still cut off (no progress shown). Near misses: 2 s so far; a counter
 * after the start failed; a counter with no start. */
Test(generic, launcher_elapsed_counter_is_time_so_far)
{
	struct lsc_triage *t = trun_text("Loading model... [0m 02s elapsed]\nLoading model... [37m 36s elapsed]\n");
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.outcome, "cut-off");
	cr_expect_str_eq(si.speed, "slow");
	cr_expect(si.load_s > 2255.9 && si.load_s < 2256.1, "so far %f", si.load_s);
	lsc_triage_free(t);
	expect_start("Loading model... [0m 02s elapsed]\n", "cut-off", "-");
	expect_start("loading model /m\n  Starting... [1h 05m 00s elapsed]\n", "cut-off", "slow");
	expect_start("loading model /m\nerror loading model: bad magic\n  Starting... [1h 05m 00s elapsed]\n", "failed", "-");
	cr_expect_eq(nstarts_of("  Starting... [5m 02s elapsed]\n"), 0);
}

/* A server up where it answers (ready_address.c): the verb with "at" or
 * "on" and an address after it, a URL, an IP address, host:port; the
 * same verb with a time, a device or a place that is no address after it
 * is not the server up (no start: nothing else in the line is one). */
Test(generic, server_up_at_its_address)
{
	expect_start("2025-09-03T04:42:20.958605Z  WARN candle_vllm: Server started at http://0.0.0.0:7650.\n",
		     "completed", "-");
	expect_start("INFO api: serving on 127.0.0.1:8080\n", "completed", "-");
	expect_start("INFO: API server running at node1:8000\n", "completed", "-");
	expect_start("INFO: the endpoint is available at https://host/v1\n", "completed", "-");
	expect_start("[2024-05-01 10:00:00 +0000] [1] [INFO] Listening at: http://0.0.0.0:8000 (1)\n", "completed", "-");
	/* a port is an address; the verb may have the thing it started after it */
	expect_start("gRPC server started on port 50051\n", "completed", "-");
	expect_start("INFO Model server ready on port 8080\n", "completed", "-");
	expect_start("INFO: Started server on 0.0.0.0:9000\n", "completed", "-");
	/* a whole subject and "started" as the line's last word: up; a part
	 * or something else started is not */
	expect_start("INFO Engine started.\n", "completed", "-");
	cr_expect_eq(nstarts_of("INFO download started\n"), 0);
	cr_expect_eq(nstarts_of("INFO the server has not started\n"), 0);
	cr_expect_eq(nstarts_of("INFO candle_vllm: Server started at 10:42:20.\n"), 0);
	cr_expect_eq(nstarts_of("INFO candle_vllm: model running on cuda:0\n"), 0);
	cr_expect_eq(nstarts_of("INFO: the server is available on this machine\n"), 0);
}

/* One log a row: its start's outcome (speed `-`); and logs that give no
 * start at all. */
struct outcome_row {
	const char *log, *outcome;
};

static void expect_rows(const struct outcome_row *c, size_t n, const char *const *none, size_t nn)
{
	for (size_t i = 0; i < n; i++)
		expect_start(c[i].log, c[i].outcome, "-");
	for (size_t i = 0; i < nn; i++)
		cr_expect_eq(nstarts_of(none[i]), 0, "%s", none[i]);
}

/* A runtime's init that failed, stated as the event ("rkllm init failed",
 * "Initialization failed."), ends a start, and opens one where none was:
 * the start's own step failed. Near misses: a part that failed to
 * initialize ("Failed to initialize NVML: Unknown Error", a warning an
 * engine goes on after), an init that started. */
Test(generic, init_failed_ends_the_start)
{
	static const struct outcome_row c[] = {
		{"rkllm init start\nrkllm init failed\n", "failed"},
		{"rkllm init failed\n", "failed"},
		{"loading model /m\nInitialization failed.\n", "failed"},
		{"loading model /m\nE engine: initialisation failed, giving up\n", "failed"},
		{"loading model /m\nFailed to initialize NVML: Unknown Error\n", "cut-off"},
	};
	static const char *const none[] = {"Failed to initialize NVML: Unknown Error\n", "rkllm init start\n"};
	expect_rows(c, sizeof c / sizeof c[0], none, sizeof none / sizeof none[0]);
}

/* A program's own failed check, in the words each macro prints
 * (GGML_ASSERT, glibc's assert, "Assertion failed:", glog's and TVM's
 * "Check failed:"), aborts it: it ends the start under way and opens one
 * where none was. Near misses: a test suite's count of failed assertions,
 * a probe's failed health check, an assertion named in prose, the macro's
 * name without a failure. */
Test(generic, a_failed_check_ends_the_start)
{
	static const struct outcome_row c[] = {
		{"`D:\\a\\koboldcpp\\ggml\\src\\ggml-cuda\\ggml-cuda.cu:924: GGML_ASSERT(tensor->view_src == nullptr) failed`\n",
		 "failed"},
		{"loading model /m\nserver: main.c:12: load: Assertion `n > 0' failed.\n", "failed"},
		{"Error: tlc_init: [TensorRT-LLM][ERROR] Assertion failed: Failed to deserialize cuda engine.\n", "failed"},
		{"loading model /m\nF1202 10:00:00.000 123 m.cc:42] Check failed: (p != nullptr) is false\n", "failed"},
		{"loading model /m\nhealth check failed: connection refused, retrying\n", "cut-off"},
	};
	static const char *const none[] = {
		"tests: 3 assertions failed of 120\n",
		"health check failed: connection refused, retrying\n",
		"the assertion failed because the shape was wrong, I think\n",
		"GGML_ASSERT(x) is a macro\n",
	};
	expect_rows(c, sizeof c / sizeof c[0], none, sizeof none / sizeof none[0]);
}

/* A server up by inviting the user to its address (ready_address.c):
 * polite or enabling words and a verb of using it ("Please connect to
 * custom endpoint at http://...", "You can now access the UI at ...",
 * "Please open http://..."), after a load's summary or alone. Near misses:
 * a client's own connecting, a failure to connect, an invitation with no
 * address, an address too far from the invitation. */
Test(generic, server_up_by_its_invitation)
{
	static const struct outcome_row c[] = {
		{"Please connect to custom endpoint at http://0.0.0.0:5001\n", "completed"},
		{"You can now access the UI at http://127.0.0.1:7860\n", "completed"},
		{"Please open http://localhost:8188 in your browser\n", "completed"},
		{"Load Model OK: True\nStarting the HTTP server on port 5001\n"
		 "Please connect to custom endpoint at http://0.0.0.0:5001\n",
		 "completed"},
		/* after a load begun, neither is the server up */
		{"loading model /m\nfailed to connect to http://0.0.0.0:5001\n", "cut-off"},
		{"loading model /m\nConnecting to http://0.0.0.0:5001\n", "cut-off"},
	};
	static const char *const none[] = {
		"Connecting to http://127.0.0.1:5001\n",
		"failed to connect to server at http://0.0.0.0:5001\n",
		"please connect your charger to the device\n",
		"please connect the second GPU through the bridge before you restart the whole rack at 10.0.0.12\n",
	};
	expect_rows(c, sizeof c / sizeof c[0], none, sizeof none / sizeof none[0]);
}

/* The head of a GPU management tool's table of its devices (device_table.c)
 * is the machine, a setting: a paste of the table alone is no start
 * (outcome none), and the table before a start stays that start's. Near
 * misses: a sentence that begins with "GPU", cells parted by one space,
 * a head of two columns. */
Test(generic, device_table_head_is_a_setting)
{
	static const char table[] = "========================ROCm System Management Interface========================\n"
				    "GPU  Temp   AvgPwr  SCLK    MCLK    Fan    Perf  PwrCap  VRAM%  GPU%\n"
				    "1    25.0c  10.0W   852Mhz  167Mhz  14.9%  auto  170.0W  N/A    0%\n";
	expect_start(table, "none", "-");
	expect_start("Device  Name         Memory   Util\n0       Arc A770     16 GiB   3%\n", "none", "-");
	expect_start("GPU  Temp (DieEdge)  AvgPwr  SCLK     MCLK     Fan   Perf  PwrCap  VRAM%  GPU%\n", "none", "-");
	char log[768];
	snprintf(log, sizeof log, "%sloading model /m\nModel loaded in 3.0 s\n", table);
	expect_start(log, "completed", "ok");
	cr_expect_eq(nstarts_of(log), 1);
	cr_expect_eq(nstarts_of("GPU  memory is full again, see the table\n"), 0);
	cr_expect_eq(nstarts_of("GPU  Temp AvgPwr SCLK MCLK\n"), 0);
	cr_expect_eq(nstarts_of("GPU  Temp   AvgPwr\n"), 0);
}

/* The head of a listing the machine's own tools print (device_table.c):
 * capitals in every cell (`ollama ps`, `docker ps`), `df`'s:
 * what runs or what the machine holds, a setting: a paste of only that is
 * no start (outcome none). Near misses: a heading of capitals with fewer
 * cells, a line of capitals with a lower-case word, prose that names the
 * columns with one space between them. */
Test(generic, machine_listing_head_is_a_setting)
{
	expect_start("NAME                         ID              SIZE     PROCESSOR         UNTIL\n"
		     "qwen2.5-coder-abl:32b-32k    47e43500b8ef    32 GB    3%/97% CPU/GPU    Forever\n",
		     "none", "-");
	expect_start("Filesystem      Size  Used Avail Use% Mounted on\n/dev/nvme0n1p3   59G   44G   12G  79% /\n", "none",
		     "-");
	/* before a start it stays that start's setting: one start */
	cr_expect_eq(nstarts_of("NAME    ID    SIZE    PROCESSOR\nloading model /m\nModel loaded in 3.0 s\n"), 1);
	/* near misses, and free's head, which is nothing of a start nor a setting */
	static const char *const none[] = {
		"NAME  ID  SIZE\n", "NAME  ID  SIZE  then the Processor\n", "the total used free memory is fine\n",
		"               total        used        free      shared  buff/cache   available\n"};
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		cr_expect_eq(nstarts_of(none[i]), 0, "a start in: %s", none[i]);
}

/* PyTorch's environment report (collect_env, which issue templates ask
 * for) is the machine, a setting: pasted alone it is no start (outcome
 * none); before a start it is that start's (one start). Near miss: the
 * same words inside a sentence. */
Test(generic, environment_report_is_a_setting)
{
	expect_start("PyTorch version: 2.3.1+cu121\nIs debug build: False\nCUDA used to build PyTorch: 12.1\n"
		     "Is CUDA available: True\n",
		     "none", "-");
	cr_expect_eq(nstarts_of("PyTorch version: 2.8.0+cu128\nIs CUDA available: True\nloading model /m\n"
				"Model loaded in 3.0 s\n"),
		     1);
	cr_expect_eq(nstarts_of("which PyTorch version: the one pip gave me\n"), 0);
}

/* An amount of memory brought in, in an engine's words (memory_amount.c),
 * opens a start under way where none is: cut off when nothing follows.
 * Near misses: what is free or available, a refusal (a failure, not a
 * start's evidence alone), a download, a size too far from its verb. */
Test(generic, memory_brought_in_is_a_start_under_way)
{
	expect_start("[TensorRT-LLM][INFO] Loaded engine size: 15323 MiB\n", "cut-off", "-");
	expect_start("[TensorRT-LLM][INFO] Allocated 1504.00 MiB for execution context memory.\n", "cut-off", "-");
	expect_start("[TensorRT-LLM][INFO] Max tokens in paged KV cache: 38400. Allocating 5033164800 bytes.\n",
		     "cut-off", "-");
	expect_start("INFO reserved 12 GiB for the KV cache\n", "cut-off", "-");
	cr_expect_eq(nstarts_of("INFO 93262 MiB free, 12 GiB allocated by other processes on the device: free\n"), 0);
	cr_expect_eq(nstarts_of("INFO Allocated memory: 4.0 GiB available\n"), 0);
	cr_expect_eq(nstarts_of("INFO downloaded and loaded 4.34 GB\n"), 0);
	cr_expect_eq(nstarts_of("INFO allocated the scratch buffers for the requests that came in, 512 MiB\n"), 0);
	/* in a start under way it adds nothing: still one start, its outcome its own */
	cr_expect_eq(nstarts_of("loading model /m\nAllocated 1504.00 MiB for execution context memory.\n"
				"Model loaded in 3.0 s\n"),
		     1);
}

/* The same bar back at 0/N after the load it counted finished is the model
 * loaded again: a second start, loading while the bar is short of N.
 * Near misses: a bar of another N after the load (sampling steps: the app
 * at work), and a bar at 0 before the load finished (the same start). */
Test(generic, the_load_bar_again_is_a_second_run)
{
	static const char again[] = "  0%|          | 0/148 [00:00<?, ?it/s]\n"
				    "ram used:  2.47 GB, freqs_cis    : 100%|##########| 148/148 [00:08<00:00, 18.50it/s]\n"
				    "loaded weights in 8005.22 ms, 2.47 GB loaded at 0.31 GB/s\n"
				    "  0%|          | 0/148 [00:00<?, ?it/s]\n";
	struct lsc_triage *t = trun_text(again);
	cr_assert(t);
	cr_assert_eq(lsc_triage_nstarts(t), 2);
	struct lsc_triage_start_info a, b;
	cr_assert(lsc_triage_start(t, 0, &a) == 0 && lsc_triage_start(t, 1, &b) == 0);
	cr_expect_str_eq(a.outcome, "completed");
	cr_expect_str_eq(a.speed, "ok"); /* 8.0 s */
	cr_expect_str_eq(b.outcome, "loading");
	cr_expect_eq(b.first_line, 4);
	lsc_triage_free(t);
	cr_expect_eq(nstarts_of("  0%|          | 0/148 [00:00<?, ?it/s]\n"
				"ram used:  2.47 GB, freqs_cis    : 100%|##########| 148/148 [00:08<00:00, 18.50it/s]\n"
				"loaded weights in 8005.22 ms, 2.47 GB loaded at 0.31 GB/s\n"
				"  0%|          | 0/20 [00:00<?, ?it/s]\n"),
		     1, "a bar of other work");
	cr_expect_eq(nstarts_of("  0%|          | 0/148 [00:00<?, ?it/s]\n"
				"ram used:  1.02 GB, layers.9.w    :  40%|####      | 59/148 [00:03<00:05, 18.50it/s]\n"
				"  0%|          | 0/148 [00:00<?, ?it/s]\n"),
		     1, "the load not finished");
}

/* A process that says it started, with its pid (process_start.c), after
 * the start was up is another process coming up: a second start, which
 * its own ready completes. Near misses: the same line within a start
 * under way (its own process), and a line with no pid. */
Test(generic, a_process_started_after_ready_is_a_second_start)
{
	static const char two[] = "I srv  start: server is ready\n"
				  "INFO:     Started server process [4803]\n"
				  "INFO:     Waiting for application startup.\n"
				  "INFO:     Application startup complete.\n";
	struct lsc_triage *t = trun_text(two);
	cr_assert(t);
	cr_assert_eq(lsc_triage_nstarts(t), 2);
	struct lsc_triage_start_info a, b;
	cr_assert(lsc_triage_start(t, 0, &a) == 0 && lsc_triage_start(t, 1, &b) == 0);
	cr_expect_str_eq(a.outcome, "completed");
	cr_expect_str_eq(b.outcome, "completed");
	cr_expect_eq(b.first_line, 2);
	lsc_triage_free(t);
	cr_expect_eq(nstarts_of("loading model /m\n"
				"INFO:     Started server process [4803]\n"
				"INFO:     Application startup complete.\n"),
		     1, "its own process");
	cr_expect_eq(nstarts_of("I srv  start: server is ready\n"
				"INFO:     Started the server process again\n"),
		     1, "no pid");
	cr_expect_eq(nstarts_of("I srv  start: server is ready\n"
				"INFO:     worker process 12 started\n"),
		     2, "the pid before the verb");
}

/* A failure that quotes the failed process's output after it
 * (quoted_output.c): the load begun in those lines is the load that
 * failed, one start, load-failed; the same load after a failure that
 * quotes nothing is a retry, a second start. */
Test(generic, a_failure_quoting_its_output_keeps_the_load_it_quotes)
{
	static const char quoted[] = "ERROR - Failed to serve model llama3\n"
				     "ERROR - Command 'health check of container c1' timed out after 20 seconds: logs: "
				     "ggml_cuda_init: found 1 ROCm devices:\n"
				     "main: loading model\n"
				     "srv    load_model: loading model '/mnt/models/llama3'\n";
	struct lsc_triage *t = trun_text(quoted);
	cr_assert(t);
	cr_expect_eq(lsc_triage_nstarts(t), 1);
	struct lsc_triage_start_info a;
	cr_assert(lsc_triage_start(t, 0, &a) == 0);
	cr_expect_str_eq(a.outcome, "failed");
	cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL);
	lsc_triage_free(t);
	cr_expect_eq(nstarts_of("ERROR - Failed to serve model llama3\n"
				"ERROR - Command 'health check of container c1' timed out after 20 seconds\n"
				"main: loading model\n"),
		     2, "a retry");
}

/* The model loaded, in words (model_loaded.c): the load ended, a start
 * completed when nothing fails after it (no figure: speed not judged).
 * Near misses: a share still under way, a load to come, its negation, a
 * clause about it in prose, a part that is no weights. */
Test(generic, the_model_loaded_in_words)
{
	expect_start("INFO: Model llama3 loaded.\n", "completed", "-");
	expect_start("Successfully loaded model x\n", "completed", "-");
	expect_start("INFO: model x loaded successfully\n", "completed", "-");
	expect_start("INFO Model llama3 is loaded\n", "completed", "-");
	expect_start("INFO all shards loaded, starting the API server\n", "completed", "-");
	/* the statement that the load went well, alone, after its tag */
	expect_start("1:59PM INF [llama-cpp] Loads OK\n", "completed", "-");
	expect_start("model load succeeded\n", "completed", "-");
	cr_expect_eq(nstarts_of("the health check loads ok pages every 5 s\n"), 0, "a sentence around the words");
	cr_expect_eq(nstarts_of("[llama-cpp] Loads OK?\n"), 0, "a question");
	cr_expect_eq(nstarts_of("[x] config load ok\n"), 0, "a part that is no weights");
	/* a failure after it, before the server came up, fails the start, also
	 * one an engine shape reads (`CUDA error:`), as after a load summary */
	expect_start("INFO Model llama3 loaded.\nERROR: CUDA error: out of memory while allocating the KV cache\n",
		     "failed", "-");
	expect_start("INFO Loading weights took 4.6 seconds\nERROR: CUDA error: out of memory while allocating the KV "
		     "cache\n",
		     "failed", "-");
	expect_start("INFO Model llama3 loaded.\nINFO: Application startup complete.\nERROR: CUDA error: out of "
		     "memory\n",
		     "completed", "-");
	cr_expect_eq(nstarts_of("Reusing loaded model a.safetensors\n"), 0);
	/* a list of the models loaded before, and a model taken off it; a
	 * load begun after it is still under way */
	cr_expect_eq(nstarts_of("D Removing model from last loaded models: a/b.gguf\n"), 0);
	cr_expect_eq(nstarts_of("recently loaded models: 2\n"), 0);
	expect_start("D Removing model from last loaded models: a/b.gguf\nI Loading model \"a/b.gguf\"...\n"
		     "I Start loading model a/b.gguf...\n",
		     "cut-off", "-");
	cr_expect_eq(nstarts_of("the model will be loaded on the first request\n"), 0);
	cr_expect_eq(nstarts_of("model config loaded\n"), 0);
	cr_expect_eq(nstarts_of("the model is not loaded\n"), 0);
	cr_expect_eq(nstarts_of("After the model has been fully loaded and the benchmark is running:\n"), 0);
	expect_start("INFO loading model m\nINFO loaded 51% of the model\n", "loading", "-");
	/* begun and ended on one line: the load's last word says it finished */
	expect_start("INFO loading model llama3 ... done\n", "completed", "-");
	expect_start("Loading weights: ok\n", "completed", "-");
	expect_start("Loading model... 45% done\n", "cut-off", "-");
	expect_start("Loading model m\n", "cut-off", "-");
}

/* A step on the way to the model is not its load's end: the state dict
 * read in (`Model dict loaded`) and the config after it, then the paste
 * ends before `Model loaded in`: cut off. The near miss: the model itself
 * loaded after those steps completes the start. */
Test(generic, a_state_dict_read_in_is_no_load_summary)
{
	const char *steps = "11:31:20-397672 DEBUG    Load model: info=False dict=False\n"
			    "Loading weights: models/v1-5-pruned-emaonly.safetensors 0.0/4.3 GB -:--:--\n"
			    "11:31:20-593392 DEBUG    Model dict loaded: {'ram': {'used': 1.56, 'total': 27.41}}\n"
			    "11:31:20-600574 DEBUG    Model config loaded: {'ram': {'used': 1.56, 'total': 27.41}}\n";
	expect_start(steps, "cut-off", "-");
	char log[1024];
	snprintf(log, sizeof(log), "%s11:31:25-000000 INFO     Model loaded in 4.6s\n", steps);
	expect_start(log, "completed", "ok");
	cr_expect_eq(nstarts_of("INFO state dict loaded into the model\n"), 0, "a dict named alone");
}

/* A ready line after a load summary alone is the server up: a panic on a
 * request after it is the server's work, not the start's failure (near
 * miss: the same panic before the server line fails the start). */
Test(generic, ready_after_load_summary_then_panic_is_completed)
{
	const char *up = "Loading model on cuda:0...\n"
			 "Model loaded.\n"
			 "Serving on http://0.0.0.0:1234.\n"
			 "thread '<unnamed>' panicked at src/pipeline.rs:409:17:\n"
			 "Model failed with error `DriverError(CUDA_ERROR_OUT_OF_MEMORY)`.\n";
	expect_start(up, "completed", NULL);
	struct lsc_triage *t = trun_text(up);
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "load-failed"), -1);
	cr_expect_eq(trun_sev_of(t, "start-failed"), -1);
	lsc_triage_free(t);
	expect_start("Loading model on cuda:0...\n"
		     "Model loaded.\n"
		     "thread '<unnamed>' panicked at src/pipeline.rs:409:17:\n"
		     "Model failed with error `DriverError(CUDA_ERROR_OUT_OF_MEMORY)`.\n",
		     "failed", "-");
}

/* A bar with no label inside a load begun in words is the load's bar: its
 * elapsed time is the load's (6 s: ok); where no load began, an unlabelled
 * bar is work, no start. */
Test(generic, unlabelled_bar_inside_a_load_is_the_load)
{
	const char *log = "Loading model on cuda:0...\n"
			  "100%|#####| 203/203 [00:06<00:00, 23.31it/s]\n"
			  "Model loaded.\n"
			  "Serving on http://0.0.0.0:1234.\n";
	expect_start(log, "completed", "ok");
	struct lsc_triage *t = trun_text(log);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect(si.load_s > 5.9 && si.load_s < 6.1, "load %f, the bar's 00:06", si.load_s);
	lsc_triage_free(t);
	/* the same bar where nothing loads: work, never the load (no load time) */
	t = trun_text("100%|#####| 203/203 [00:06<00:00, 23.31it/s]\n");
	cr_assert(t);
	if (lsc_triage_start(t, 0, &si) == 0)
		cr_expect(!(si.load_s > 0), "a bar with no load is no load time: %f", si.load_s);
	lsc_triage_free(t);
	/* a labelled bar of other work inside the load is not the load's */
	t = trun_text("Loading model on cuda:0...\n"
		      "Sampling: 100%|#####| 28/28 [00:09<00:00, 3.1it/s]\n");
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect(!(si.load_s > 8.9 && si.load_s < 9.1), "a sampling bar is no load time: %f", si.load_s);
	lsc_triage_free(t);
}

/* A loader's summary and, a few lines on, the summary of the function that
 * called it (1.73 s, then 1.77 s): one load, its time the longer; near
 * miss: a summary far longer after it (177.16 s) is a second load. */
Test(generic, enclosing_load_summary_is_the_same_load)
{
	const char *one = "Loaded the model in 1.73 seconds.\n"
			  "Finalizing Autograd Lora: []\n"
			  "INFO:Loaded the model in 1.77 seconds.\n";
	cr_expect_eq(nstarts_of(one), 1);
	struct lsc_triage *t = trun_text(one);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect(si.load_s > 1.76 && si.load_s < 1.78, "load %f, the enclosing 1.77 s", si.load_s);
	lsc_triage_free(t);
	const char *two = "Loaded the model in 1.73 seconds.\n"
			  "INFO:Loaded the model in 1.77 seconds.\n"
			  "\n"
			  "INFO:Loaded the model in 177.16 seconds.\n";
	cr_expect_eq(nstarts_of(two), 2);
	t = trun_text(two);
	cr_assert(lsc_triage_start(t, 1, &si) == 0);
	cr_expect(si.load_s > 177.1 && si.load_s < 177.2, "second load %f", si.load_s);
	cr_expect_str_eq(si.speed, "slow");
	lsc_triage_free(t);
}

/* A server's streamed load events count the model's parts and their
 * total (load_progress.c): at 4 of 163 the load is under way (loading);
 * at 163 of 163 with nothing after, no longer under way (cut off). Near
 * misses: the same counts with no model or load in the record (a job's
 * steps), a download's. */
Test(generic, parts_counted_in_a_record_are_the_load_under_way)
{
	expect_start("message\t{\"model_type\":\"draft\",\"module\":67,\"modules\":67,\"status\":\"finished\"}\n"
		     "message\t{\"model_type\":\"model\",\"module\":4,\"modules\":163,\"status\":\"processing\"}\n",
		     "loading", "-");
	expect_start("message\t{\"model_type\":\"model\",\"module\":163,\"modules\":163,\"status\":\"processing\"}\n",
		     "cut-off", "-");
	double f = 0;
	const char *r = "{\"model_type\":\"model\",\"module\":4,\"modules\":163}";
	cr_expect(tr_parts_counted(r, strlen(r), &f) && f > 0.0245 && f < 0.0246, "share %f, 4 / 163", f);
	cr_expect_eq(nstarts_of("{\"job\":\"etl\",\"layer\":3,\"layers\":40}\n"), 0);
	r = "{\"download\":\"model\",\"shard\":1,\"shards\":3}";
	cr_expect(!tr_parts_counted(r, strlen(r), &f));
	r = "{\"model\":\"m\",\"shard\":4,\"shards\":3}";
	cr_expect(!tr_parts_counted(r, strlen(r), &f), "more parts than the total");
}

/* A load's summary in microseconds, after a capitalised `Took` (a C++
 * serving runtime's `SavedModel load for tags { serve }; Status: success.
 * Took N microseconds.`): the load done, judged on its time with no size
 * (under 60 s ok, 60-300 s `-`, over 300 s slow). Near misses: a count
 * in no unit of time after it, and the load's words with no figure. */
Test(generic, load_summary_in_microseconds)
{
	expect_start("I loader.cc:379] SavedModel load for tags { serve }; Status: success. "
		     "Took 8468104 microseconds.\n",
		     "completed", "ok");
	expect_start("I loader.cc:364] SavedModel load for tags { serve }; Status: success: OK. "
		     "Took 59000000 microseconds.\n",
		     "completed", "ok");
	expect_start("I loader.cc:364] SavedModel load for tags { serve }; Status: success: OK. "
		     "Took 61000000 microseconds.\n",
		     "completed", "-");
	expect_start("I loader.cc:364] SavedModel load for tags { serve }; Status: success: OK. "
		     "Took 441335988 microseconds.\n",
		     "completed", "slow");
	/* near misses */
	cr_expect_eq(nstarts_of("I loader.cc:364] SavedModel load for tags { serve }; Status: success: OK. "
				"Took 8468104 cycles.\n"),
		     0);
	cr_expect_eq(nstarts_of("I loader.cc:364] SavedModel load for tags { serve }; Status: success: OK.\n"), 0);
}

/* A step of the start that ran past its time, stated as its failure or
 * stop (a platform's `Runner failed with exception: Runner has been
 * initializing for too long: 300 seconds`), ends the start after its load
 * summary, as a timeout: failed, load-failed. Near misses: the step's own
 * warning with no failure, the same words as a guess (`if`), and a
 * failure that ran too long with no step of a start named. */
Test(generic, a_step_that_ran_too_long_ends_the_start)
{
	static const char load[] = "Loading model from /m\nLoading weights took 4.6 s\n";
	char log[512];
	snprintf(log, sizeof log,
		 "%sRunner failed with exception: Runner has been initializing for too long: 300 seconds\n", load);
	expect_start(log, "failed", "-");
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL);
	lsc_triage_free(t);
	snprintf(log, sizeof log, "%sthe runner took too long to start, giving up\n", load);
	expect_start(log, "failed", "-");
	/* near misses */
	snprintf(log, sizeof log, "%sRunner has been initializing for too long: 300 seconds, still waiting\n", load);
	expect_start(log, "completed", NULL);
	snprintf(log, sizeof log, "%sIf the runner took too long to start, it failed: raise its timeout\n", load);
	expect_start(log, "completed", NULL);
	snprintf(log, sizeof log, "%sRunner failed with exception: the request waited for too long\n", load);
	expect_start(log, "completed", NULL);
}

/* The start's own last step failing after its ready line (its init:
 * `Initialization failed. warmup error: ...`; its warmup, at error level):
 * the server said it was up before its start was done, so the start
 * failed. Near misses: a part that failed to initialize (NVML), a
 * request's failure at error level, a warmup at error level that did not
 * fail, and a warmup failure in no error's words. */
static void expect_after_ready(const char *line, const char *outcome)
{
	char log[512];
	snprintf(log, sizeof log,
		 "Loading model from /m\nLoading weights took 4.6 s\n"
		 "INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)\n%s\n",
		 line);
	expect_start(log, outcome, NULL);
}

Test(generic, the_starts_own_step_failing_after_ready)
{
	expect_after_ready("[2024-12-13 01:47:34] Initialization failed. warmup error: boom", "failed");
	expect_after_ready("ERROR:sglang:warmup request failed: status 502", "failed");
	expect_after_ready("warmup timed out after 600 s", "failed");
	expect_after_ready("[2024-12-13 01:47:34] Initialization failed. warmup error: "
			   "Traceback (most recent call last):\n"
			   "  File \"/sglang/srt/server.py\", line 621, in _wait_and_warmup\n"
			   "AssertionError: res=<Response [502]>",
			   "failed");
	struct lsc_triage *t = trun_text("Loading model from /m\nLoading weights took 4.6 s\n"
					 "INFO:     Uvicorn running on http://0.0.0.0:30000\n"
					 "Initialization failed. warmup error: boom\n");
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL);
	lsc_triage_free(t);
	/* near misses */
	expect_after_ready("Failed to initialize NVML: Unknown Error", "completed");
	expect_after_ready("ERROR:sglang:request failed: status 502", "completed");
	expect_after_ready("ERROR:sglang:warmup done", "completed");
	expect_after_ready("warmup request failed: status 502", "completed");
}

/* The tensors loaded are the weights loaded (`msg="Loaded tensors from
 * manifest" count=8633`, a runner's slog line): the model's load done,
 * with no figure. Near misses: a count still under way after the verb,
 * the negation, a tokenizer's tensors, one tensor's metadata. */
Test(generic, the_tensors_loaded_are_the_weights)
{
	expect_start("time=2026-05-08T14:52:03.057-05:00 source=runner.go:159 msg=\"Loaded tensors from manifest\" "
		     "count=8633\n",
		     "completed", "-");
	cr_expect(tr_model_loaded_words("Loaded tensors from manifest", 28));
	static const char *const no[] = {"loaded 51% of tensors", "tensors not loaded", "Loaded tokenizer tensors",
					 "Loaded tensor metadata"};
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_expect(!tr_model_loaded_words(no[i], strlen(no[i])), "the model loaded: %s", no[i]);
}

/* The same load failure again, word for word, after the start it failed
 * (a launcher that tried three models in turn): each a start of its own,
 * failed. Near misses: a different failure line after the first (one
 * failure said by two layers: one start), and a failure that is no load's
 * said twice (out of memory, an engine's error: the same failure's echo). */
Test(generic, the_same_failure_again_is_another_attempt)
{
	static const char one[] = "Failed to load the model\n"
				  "Engine runtime llama-server for a exited before becoming healthy. exitCode=1\n\n";
	char log[512];
	snprintf(log, sizeof log, "%s%s%s", one, one, one);
	cr_expect_eq(nstarts_of(log), 3);
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	for (unsigned k = 0; k < 3; k++) {
		struct lsc_triage_start_info si;
		cr_assert(lsc_triage_start(t, k, &si) == 0);
		cr_expect_str_eq(si.outcome, "failed", "start %u", k);
	}
	lsc_triage_free(t);
	/* near misses */
	cr_expect_eq(nstarts_of("ERROR: failed to load model: file not found\n"
				"ERROR: could not load model, exiting\n"),
		     1);
	cr_expect_eq(nstarts_of("Loading model from /m\nERROR: CUDA error: out of memory\n"
				"ERROR: CUDA error: out of memory\n"),
		     1);
	cr_expect_eq(nstarts_of("Loading model from /m\nERROR: the engine failed: bad config\n"
				"ERROR: the engine failed: bad config\n"),
		     1);
}

/* issue 23's ninth round: the bare verb for the load's end ("Finish
 * loading", mlc_chat_cli's), and a chat program's answer turn after it:
 * the model is up, so what fails inside the answer is the app's work */
Test(generic, finish_loading_then_a_chat_answer)
{
	expect_start("mlc_chat_cli --model dolly\nFinish loading\n", "completed", "-");
	/* a wait for the end, or a plan of it, is no end */
	expect_start("mlc_chat_cli --model dolly\nwaiting for the model to finish loading\n", "loading", "-");
	expect_start("mlc_chat_cli --model dolly\nit will finish loading soon\n", "cut-off", "-");
	/* the answer turn after the load: completed there, a failure inside it is not the start's */
	const char *turn = "mlc_chat_cli --model dolly\nFinish loading\n### Instruction: hello\n"
			   "### Response: [13:55:51] allocator.h:64: Warning: got InternalError during allocation:\n"
			   "Check failed: (e == cudaSuccess) is false: CUDA: out of memory\n";
	expect_start(turn, "completed", "-");
	expect_start("Finish loading\nAssistant: Hello!\nterminate called after throwing an instance of 'x'\n",
		     "completed", "-");
	/* without the turn, the failure after the load's end fails the start */
	expect_start("mlc_chat_cli --model dolly\nFinish loading\nCheck failed: (e == cudaSuccess) is false: CUDA: out "
		     "of memory\n",
		     "failed", "-");
	/* a key of a dump, the word inside a sentence, a turn before any load: no turn */
	expect_start("mlc_chat_cli --model dolly\nFinish loading\nresponse: {\"id\": 1}\nCheck failed: (e) is "
		     "false: CUDA: out of memory\n",
		     "failed", "-");
	expect_start("mlc_chat_cli --model dolly\nFinish loading\nthe response: was cut\nCheck failed: (e) is false: "
		     "CUDA: out of memory\n",
		     "failed", "-");
	cr_expect(tr_chat_answer("### Response: hi", 16));
	cr_expect(tr_chat_answer("Assistant:", 10));
	cr_expect(!tr_chat_answer("the response: was cut", 21));
	cr_expect(!tr_chat_answer("Response: {\"a\":1}", 17));
	cr_expect(!tr_chat_answer("Responses: 3", 12));
}

/* issue 23's ninth round: a launcher's own words for the load's failure
 * (contracted, or the step named before the error word), the same failure
 * said by each rank with nothing between, and a launcher's wait for its
 * server to come up as the frame that raised */
Test(generic, a_launchers_words_for_the_load_failing)
{
	static const char *const said[] = {
		"load model error: Can't get attribute 'TrainingArguments' on <module 'x'>\n",
		"2023-09-18 17:59:09,453 [mlserver] INFO - Couldn't load model 'transformer'. Model will be removed.\n",
		"ERROR model load error: bad header\n",
		"I can't load the model m\n",
	};
	for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++) {
		struct lsc_triage *t = trun_text(said[i]);
		cr_assert(t);
		cr_expect_eq(lsc_triage_nstarts(t), 1, "%s", said[i]);
		cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL, "%s", said[i]);
		lsc_triage_free(t);
	}
	/* a hedge before the words, and a load said to go well, are no failure */
	cr_expect_eq(nstarts_of("if you can't load the model, check the path\n"), 0);
	cr_expect_eq(nstarts_of("model loaded, no load error\n") <= 1, 1);
	/* two ranks say one failure: one start; an attempt between (an exit) makes it another */
	cr_expect_eq(nstarts_of("load model error: x\n################\nload model error: x\n"), 1);
	cr_expect_eq(nstarts_of("Failed to load the model\nexited before becoming healthy. exitCode=1\n"
				"Failed to load the model\n"),
		     2);
	/* a traceback raised in the launcher's wait for its server to come up: the start failed to come up */
	const char *tb = "Traceback (most recent call last):\n"
			 "  File \"/x/mii/backend/server.py\", line 47, in __init__\n"
			 "    self._wait_until_server_is_live(processes,\n"
			 "  File \"/x/mii/backend/server.py\", line 62, in _wait_until_server_is_live\n"
			 "    raise RuntimeError(\n"
			 "RuntimeError: server crashed for some reason, unable to proceed\n";
	struct lsc_triage *t = trun_text(tb);
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL, "a wait for the server to come up raised");
	lsc_triage_free(t);
	/* the same raised in a wait for something else (a queue): no load named */
	const char *q = "Traceback (most recent call last):\n"
			"  File \"/x/app.py\", line 62, in _wait_for_queue\n"
			"    raise RuntimeError(\n"
			"RuntimeError: crashed for some reason, unable to proceed\n";
	t = trun_text(q);
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "load-failed"), -1, "a wait for a queue");
	lsc_triage_free(t);
}

/* issue 23's ninth round: the verb with a colon before what loaded
 * (Fooocus's `Base model loaded: D:\...\juggernautXL.safetensors`) */
Test(generic, model_loaded_colon_and_its_path)
{
	expect_start("Base model loaded: D:\\Fooocus\\models\\checkpoints\\juggernautXL.safetensors\n", "completed", "-");
	expect_start("Model loaded: /m/llama3.gguf\n", "completed", "-");
	/* a part that is no weights, the negation, a count under way */
	cr_expect_eq(nstarts_of("Tokenizer loaded: /m/tokenizer.json\n"), 0);
	cr_expect_eq(nstarts_of("Model not loaded: /m/llama3.gguf\n"), 0);
	cr_expect_eq(nstarts_of("Refiner unloaded.\n"), 0);
}

/* The load's end in words is a line read: each of its phrases, alone, is
 * counted among the recognised lines (the JSON's "recognised") and is a
 * start whose load completed. */
Test(generic, the_loads_end_in_words_is_a_line_read)
{
	static const char *const ends[] = {"Load weight end. type=Gemma3, avail mem=131.08 GB",
					   "All weights loaded.", "Loading complete.", "Finished loading the checkpoint",
					   "done loading"};
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		char log[256];
		snprintf(log, sizeof(log), "%s\n", ends[i]);
		struct lsc_triage *t = trun_text(log);
		cr_assert(t);
		cr_expect_eq(lsc_triage_nrecognised(t), 1, "%s: not read", ends[i]);
		struct lsc_triage_start_info si;
		cr_assert(lsc_triage_start(t, 0, &si) == 0, "no start: %s", ends[i]);
		cr_expect_str_eq(si.outcome, "completed", "%s", ends[i]);
		lsc_triage_free(t);
	}
}

/* issue 23's tenth round: the load begun with its object named after the
 * verb, in any case and with up to two words of its kind between ("Loading
 * Model: x", "Loading ONNX model from ..."), and a step said to take long
 * on the line right after the one that began it */
Test(generic, the_load_begun_with_its_object_named)
{
	expect_start("Loading Model: TheBloke/Llama-2-7B-Chat-GGML, on: cuda\n", "cut-off", "-");
	expect_start("INFO | Loading ONNX model from /app/models/kokoro.onnx\n", "cut-off", "-");
	expect_start("Loading TTS model and voice packs...\n", "cut-off", "-");
	/* the engine's word that the step takes long, on the next line */
	expect_start("Loading Model: TheBloke/Llama-2-7B-Chat-GGML, on: cuda\nThis action can take a few minutes!\n",
		     "loading", "-");
	/* ... not a line later, after something else of the paste */
	expect_start("Loading Model: x, on: cuda\nsome other output\nThis action can take a few minutes!\n", "cut-off",
		     "-");
	/* each of the words, and their near misses: the prefilter's pieces of
	 * them ("a while", "some time") with no step said to take that long */
	static const char *const takes[] = {"this can take a while", "it takes a while", "please wait...",
					    "this can take several minutes", "may take some time"};
	static const char *const not_said[] = {"it has been a while", "for some time now", "a few minutes ago"};
	char log[160];
	for (size_t i = 0; i < sizeof(takes) / sizeof(takes[0]); i++) {
		snprintf(log, sizeof(log), "Loading Model: x, on: cuda\n%s\n", takes[i]);
		expect_start(log, "loading", "-");
	}
	for (size_t i = 0; i < sizeof(not_said) / sizeof(not_said[0]); i++) {
		snprintf(log, sizeof(log), "Loading Model: x, on: cuda\n%s\n", not_said[i]);
		expect_start(log, "cut-off", "-");
	}
	/* something loaded that is no model, a part that is no weights, the negation, a plan */
	cr_expect_eq(nstarts_of("Loading eval dataset...\n"), 0);
	cr_expect_eq(nstarts_of("Loading tokenizer model from /m/tokenizer.model\n"), 0);
	cr_expect(tr_loading_model_named("Loading Model: x", 16));
	cr_expect(tr_loading_model_named("loading int4 gguf weights", 25));
	cr_expect(!tr_loading_model_named("Loading eval dataset", 20));
	cr_expect(!tr_loading_model_named("Loading the big fancy model", 27), "three words between");
	cr_expect(!tr_loading_model_named("not loading model x", 19));
	cr_expect(!tr_loading_model_named("Downloading model x", 19));
	cr_expect(!tr_loading_model_named("Loading tokenizer model", 23));
	/* a count of models, an image UI's manager per job: its bars after it are the work */
	cr_expect(!tr_loading_model_named("Loading 1 new model", 19));
}

/* A warmup done ran the model: its weights are in, the start completed as
 * after a load summary; a wait for it or a warmup begun is none */
Test(generic, a_warmup_done_is_the_weights_in)
{
	expect_start("Loading TTS model and voice packs...\nRunning warmup inference on voice af\nModel warm-up "
		     "complete\n",
		     "completed", "-");
	expect_start("Loading ONNX model from /m.onnx\nCompleted warmup for voice af\n", "completed", "-");
	expect_start("Loading ONNX model from /m.onnx\nRunning warmup inference on voice af\n", "cut-off", "-");
	expect_start("Loading ONNX model from /m.onnx\nwaiting for warmup complete\n", "cut-off", "-");
}

/* uvicorn's wait for its app's startup (the app loads the model) is a
 * start begun; as the start's first step, its clock is where the start
 * began, not the clocks of what the paste showed before it */
Test(generic, a_wait_for_the_applications_startup)
{
	expect_start("INFO:     Started server process [1]\nINFO:     Waiting for application startup.\n", "cut-off",
		     "-");
	cr_expect_eq(nstarts_of("INFO:     Waiting for application logs.\n"), 0);
	/* a paste that begins at a graph capture's end: no time to ready */
	expect_start("Capturing batches (bs=1): 100%|##########| 4/4 [00:05<00:00,  1.20it/s]\n"
		     "[2025-11-30 11:18:01] Capture cuda graph end. Time elapsed: 5.92 s.\n"
		     "[2025-11-30 11:18:05] INFO:     Waiting for application startup.\n"
		     "[2025-11-30 11:18:05] INFO:     Application startup complete.\n",
		     "completed", "-");
	/* after a load begun, the wait is a step of that start: its clocks count */
	expect_start("[2025-11-30 11:17:35] Loading model weights from /m\n"
		     "[2025-11-30 11:18:05] INFO:     Waiting for application startup.\n"
		     "[2025-11-30 11:18:05] INFO:     Application startup complete.\n",
		     "completed", "ok");
}

/* A time to ready off the clocks needs a clock on the start's own lines:
 * a server's stamped lines, then its unstamped waits and ready line, say
 * when it began at best */
Test(generic, a_time_to_ready_needs_the_starts_own_clock)
{
	expect_start("I1013 11:35:04.023735 23 grpc_server.cc:4544] Started GRPCInferenceService at 0.0.0.0:8001\n"
		     "I1013 11:35:04.135290 23 http_server.cc:180] Started Metrics Service at 0.0.0.0:8002\n"
		     "Waiting for Riva server to load all models...retrying in 10 seconds\n"
		     "Waiting for Riva server to load all models...retrying in 10 seconds\n"
		     "Riva server is ready...\n",
		     "completed", "-");
	/* ... with a collector's clock on every line: the engine's clocks before
	 * the start are still not its own (the collector's, all one second, say
	 * nothing) */
	expect_start("Oct 16 15:39:01 host riva[1]: I1013 11:35:04.023735 23 grpc_server.cc:4544] Started "
		     "GRPCInferenceService at 0.0.0.0:8001\n"
		     "Oct 16 15:39:01 host riva[1]: I1013 11:35:04.135290 23 http_server.cc:180] Started Metrics "
		     "Service at 0.0.0.0:8002\n"
		     "Oct 16 15:39:01 host riva[1]: Waiting for Riva server to load all models...retrying in 10 "
		     "seconds\n"
		     "Oct 16 15:39:01 host riva[1]: Riva server is ready...\n",
		     "completed", "-");
	/* ... and with two clocks stacked, the engine's stamps innermost on
	 * the lines before the start, the collector's on the start's own: its
	 * span is on its own lines' clock, not the 4 hours between the two */
	expect_start("Oct 16 15:39:01 host riva[1]: [2026-10-16 15:39:01.123] I1013 11:35:04.023735 23 "
		     "grpc_server.cc:4544] Started GRPCInferenceService at 0.0.0.0:8001\n"
		     "Oct 16 15:39:01 host riva[1]: [2026-10-16 15:39:01.123] Waiting for Riva server to load all "
		     "models...retrying in 10 seconds\n"
		     "Oct 16 15:39:01 host riva[1]: [2026-10-16 15:39:01.123] Riva server is ready...\n",
		     "completed", "-");
	/* the ready line's own clock, or a stamped line of the start: timed */
	expect_start("I1013 11:35:04.023735 23 grpc_server.cc:4544] Started GRPCInferenceService at 0.0.0.0:8001\n"
		     "Waiting for Riva server to load all models...retrying in 10 seconds\n"
		     "I1013 11:35:24.135290 23 server.cc:1] Riva server is ready\n",
		     "completed", "ok");
	expect_start("I1013 11:35:04.023735 23 grpc_server.cc:4544] Started GRPCInferenceService at 0.0.0.0:8001\n"
		     "Waiting for Riva server to load all models...retrying in 10 seconds\n"
		     "I1013 11:35:24.135290 23 server.cc:1] all models loaded, polling\n"
		     "Riva server is ready...\n",
		     "completed", "ok");
}

/* A model server's frontend up before anything of the load, then its
 * worker's model init under way: the model is still to come (loading);
 * near misses: the same ready after the load, a failure before it */
Test(generic, a_frontend_up_before_its_models_init)
{
	expect_start("Model server started.\nW-9000 WorkerLifeCycle - model initialising, waiting for 2 minutes\n",
		     "loading", "-");
	expect_start("Model server started.\nInitializing model x on cuda\nModel x loaded in 3.0 s\n", "completed",
		     "ok");
	/* the ready line after the load: a later init is another start's */
	struct lsc_triage *t = trun_text("loading model weights from /m\nweights loaded\nModel server started.\n"
					 "model initialising, waiting for 2 minutes\n");
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.outcome, "completed");
	lsc_triage_free(t);
}

/* A failure's words for what holds the model: the backend, as the engine;
 * a traceback pasted from its first frame, in a function that switches
 * the model (a load), is the load's */
Test(generic, a_backend_and_a_model_switched_to)
{
	struct lsc_triage *t = trun_text("text-embeddings-1  | Error: Could not create backend\n"
					 "text-embeddings-1  | Caused by:\n"
					 "text-embeddings-1  |     Could not start backend: Runtime compute cap 52 "
					 "is not compatible with compile time compute cap 75\n");
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL, "the backend could not be created");
	lsc_triage_free(t);
	t = trun_text("Error: Could not create output directory /out\n");
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "load-failed"), -1, "an output directory is no backend");
	lsc_triage_free(t);
	const char *tb = "  File \"D:\\RWKV\\routes\\config.py\", line 73, in %s\n"
			 "    RWKV(model=body.model, strategy=body.strategy),\n"
			 "  File \"D:\\RWKV\\utils\\rwkv.py\", line 644, in RWKV\n"
			 "    x = Thing(path)\n"
			 "ValueError: rwkv_init_from_file failed, check stderr\n";
	char log[512];
	snprintf(log, sizeof(log), tb, "switch_model");
	t = trun_text(log);
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL, "a frame in switch_model: the load");
	lsc_triage_free(t);
	snprintf(log, sizeof(log), tb, "switch_theme");
	t = trun_text(log);
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "load-failed"), -1, "a theme switched is no model loaded");
	lsc_triage_free(t);
}

/* A chat program's answer turn in capitals is the same turn */
Test(generic, a_chat_answer_in_capitals)
{
	expect_start("Finish loading\nASSISTANT: Hello!\nterminate called after throwing an instance of 'x'\n",
		     "completed", "-");
	expect_start("Finish loading\nASSISTANTS: 3\nterminate called after throwing an instance of 'x'\n", "failed",
		     "-");
}

/* "executed in" is a duration word, as "finished in" is: a load's time
 * when the line names the load; a prompt's time names none */
Test(generic, executed_in_is_a_duration)
{
	expect_start("Device 0: Loading HuggingFace model: openai/whisper-large-v3\n"
		     "[load_model] async executed in 248.5093 seconds. Whisper model load\n",
		     "completed", "slow");
	expect_start("Device 0: Loading HuggingFace model: openai/whisper-large-v3\n"
		     "[load_model] async executed in 12.5 seconds. Whisper model load\n",
		     "completed", "ok");
	cr_expect_eq(nstarts_of("Prompt executed in 287.69 seconds\n"), 0);
}

/* rich's traceback: a panel of the frames, the exception line right under
 * it; pasted from the panel's middle, without its `Traceback` title, the
 * line after the panel closes is still the block's exception */
Test(generic, a_rich_traceback_panel_and_its_exception)
{
	static const char panel[] = "                             \xe2\x94\x82 \xe2\x9d\xb1  483 \xe2\x94\x82   sess.initialize_"
				    "session(provider \xe2\x94\x82\n"
				    "                             \xe2\x95\xb0\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80"
				    "\xe2\x95\xaf\n";
	char log[1024];
	snprintf(log, sizeof(log), "%s                             RuntimeError:                          \n"
		 "                             /onnxruntime_src/core/providers/cuda/cu\n", panel);
	expect_start(log, "failed", "-");
	/* the panel's next line that is no exception, or an exception a line later: none */
	snprintf(log, sizeof(log), "%sNote: the panel above is a settings summary\n", panel);
	cr_expect_eq(nstarts_of(log), 0);
	snprintf(log, sizeof(log), "%sthe app printed more\nRuntimeError:\n", panel);
	cr_expect_eq(nstarts_of(log), 0);
}

/* issue 23's eleventh round: an error word, then the load as the step it
 * happened in (LM Studio's `Error when loading model: UnicodeDecodeError
 * ...` after its `Failed to load model`): the same failure, not a load
 * begun after it (a second start, cut off) */
Test(generic, an_error_during_the_load)
{
	static const char *const said[] = {
		"Error when loading model: UnicodeDecodeError: 'utf-8' codec can't decode byte 0xb0\n",
		"Exception while loading the weights: bad header\n",
		"ERROR an error occurred during loading: out of disk\n",
	};
	for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++) {
		struct lsc_triage *t = trun_text(said[i]);
		cr_assert(t);
		cr_expect_eq(lsc_triage_nstarts(t), 1, "%s", said[i]);
		cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL, "%s", said[i]);
		lsc_triage_free(t);
	}
	/* after the failure it names: one start, failed */
	cr_expect_eq(nstarts_of("Failed to load model\n\nError when loading model: UnicodeDecodeError: x\n"), 1);
	expect_start("Failed to load model\n\nError when loading model: UnicodeDecodeError: x\n", "failed", "-");
	/* no error word before the step, or the step not the load: no failure */
	cr_expect_eq(nstarts_of("Progress shown when loading the page\n"), 0);
	cr_expect_eq(nstarts_of("error count 0, then while reading the docs we found loading fast\n"), 0);
	/* a watcher's list of what its wait running out could mean is guesses */
	expect_start("vLLM not ready after 30 minutes\n"
		     "This could mean:\n"
		     "  - Model is still loading (very large models may need more time)\n"
		     "  - An error occurred during loading\n",
		     "cut-off", NULL);
}

/* The dynamic loader's refusal to start a program (NIM's TensorRT-LLM
 * `executorWorker: error while loading shared libraries: libnvinfer.so.10:
 * cannot open shared object file`), then MPI's abort of the job: a start
 * that failed, before any model was read (start-failed, not load-failed) */
Test(generic, a_shared_library_missing_and_mpis_abort)
{
	const char *dl = "/x/bin/executorWorker: error while loading shared libraries: libnvinfer.so.10: cannot open "
			 "shared object file: No such file or directory\n";
	struct lsc_triage *t = trun_text(dl);
	cr_assert(t);
	cr_expect_eq(lsc_triage_nstarts(t), 1);
	cr_expect_eq(trun_sev_of(t, "start-failed"), LSC_TRIAGE_FAIL);
	cr_expect_eq(trun_sev_of(t, "load-failed"), -1, "the program never ran: no load");
	lsc_triage_free(t);
	/* the same line after MPI's abort: the same start, said by each rank */
	char two[1024];
	snprintf(two, sizeof two,
		 "%sChild job 2 terminated normally, but 1 process returned\n"
		 "a non-zero exit code. Per user-direction, the job has been aborted.\n%s",
		 dl, dl);
	expect_start(two, "failed", "-");
	cr_expect_eq(nstarts_of(two), 1);
	/* MPI's abort ends a start under way */
	expect_start("loading model weights from /m\nMPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD\n",
		     "failed", "-");
	expect_start("loading model weights from /m\nmpirun: the job has been aborted.\n", "failed", "-");
	/* near misses: a job the user cancelled, a request aborted, a library
	 * a program only warns it could not open (TensorFlow's dlerror) */
	expect_start("loading model weights from /m\nthe job has been aborted by the user\n", "cut-off", NULL);
	expect_start("loading model weights from /m\nrequest aborted: client went away\n", "cut-off", NULL);
	cr_expect_eq(nstarts_of("W tensorflow: Could not load dynamic library 'libcudart.so.11.0'; dlerror: "
				"libcudart.so.11.0: cannot open shared object file\n") <= 1,
		     1);
}

/* A launcher that gave up on its server (Pandrator's `xtts server failed
 * to come online within the specified attempts`): the model's server
 * never came up, a load that failed (as ollama's `timed out waiting for
 * llama runner to start`); its poller's `not online yet` is no ready, and
 * the server's own `starts to load, wait until it loads` is the load under
 * way (a paste that ends there is still loading) */
Test(generic, a_launcher_gave_up_on_its_server)
{
	const char *gave = "Attempt 60/60: xtts server is not online yet. Waiting...\n"
			   "ERROR:root:xtts server failed to come online within the specified attempts.\n";
	struct lsc_triage *t = trun_text(gave);
	cr_assert(t);
	cr_expect_eq(lsc_triage_nstarts(t), 1);
	cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL);
	lsc_triage_free(t);
	expect_start("INFO server did not come up after 600 s, giving up\n", "failed", "-");
	/* a hedge, or the server that came up (at its address: up): no failure */
	cr_expect_eq(nstarts_of("if the server failed to come online, check the port\n"), 0);
	expect_start("loading model weights from /m\nthe server came up on port 8020\n", "completed", NULL);
	/* the poller and the server's own wait on its load */
	const char *poll = "Waiting for xtts server to come online...\n"
			   "Attempt 1/200: xtts server is not online yet. Waiting...\n"
			   "XTTS stderr: Model: 'v2.0.2' starts to load,wait until it loads\n"
			   "Attempt 5/200: xtts server is not online yet. Waiting...\n";
	expect_start(poll, "loading", "-");
	/* the poller alone: a start begun, how far the load got unknown */
	expect_start("Waiting for xtts server to come online...\n"
		     "Attempt 1/200: xtts server is not online yet. Waiting...\n",
		     "cut-off", NULL);
	/* a wait until something else: no load under way */
	cr_expect_eq(nstarts_of("please wait until the download page opens\n"), 0);
}

/* A traceback frame in a model's constructor (`__init__` in a file of a
 * models folder: vLLM's `model_executor/models/llama.py`, transformers'
 * `modeling_llama.py`) is the model being built, its load: load-failed;
 * the same model's `forward` is a request's, and an `__init__` elsewhere
 * names no load */
Test(generic, a_frame_in_a_models_constructor_loads)
{
	static const char *const frame[] = {
		"  File \"/x/vllm/model_executor/models/llama.py\", line 190, in __init__\n",
		"  File \"/x/transformers/models/llama/modeling_llama.py\", line 9, in __init__\n",
		"  File \"C:\\x\\models\\llama.py\", line 190, in __init__\n",
	};
	static const char *const not_load[] = {
		"  File \"/x/vllm/model_executor/models/llama.py\", line 190, in forward\n",
		"  File \"/x/app/server.py\", line 190, in __init__\n",
	};
	for (size_t i = 0; i < 5; i++) {
		char log[512];
		snprintf(log, sizeof log, "Traceback (most recent call last):\n%sValueError: Unknown RoPE scaling type\n",
			 i < 3 ? frame[i] : not_load[i - 3]);
		struct lsc_triage *t = trun_text(log);
		cr_assert(t);
		cr_expect_eq(trun_sev_of(t, "load-failed"), i < 3 ? LSC_TRIAGE_FAIL : -1, "%s", log);
		lsc_triage_free(t);
	}
}

/* faster-whisper-GUI's log: a section banner for the load
 * (`==========LoadModel==========`), its settings, then `Load over` (the
 * load, then the word that it ended, as the line's last): completed; the
 * `==========Process==========` section after it is the model's work, so
 * a traceback there (cut before its exception line) does not fail the
 * start */
Test(generic, a_load_banner_and_load_over)
{
	cr_expect(tr_load_banner("==========LoadModel==========", 29));
	cr_expect(tr_load_banner("----- Loading model -----", 25));
	/* near misses: the step named in a frame or a failure, a banner of another title, one rule run */
	cr_expect(!tr_load_banner("llm.LoadModel failed: ==== x ====", 33));
	cr_expect(!tr_load_banner("==========Process==========", 27));
	cr_expect(!tr_load_banner("==========LoadModel failed==========", 36));
	cr_expect(!tr_load_banner("========== LoadModel", 20));
	const char *log = "==========LoadModel==========\n"
			  "\n"
			  "model_size_or_path: D:/Whisper/large-v3\n"
			  "device: cuda\n"
			  "\n"
			  "Load over\n"
			  "max_length:             448\n"
			  "==========Process==========\n"
			  "\n"
			  "Traceback (most recent call last):\n"
			  "  File \"D:\\x\\transcribe.py\", line 347\n";
	expect_start(log, "completed", "-");
	cr_expect_eq(nstarts_of(log), 1);
	/* the banner alone, cut: a start begun and cut off; the load said over in other words */
	expect_start("==========LoadModel==========\ndevice: cuda\n", "cut-off", NULL);
	expect_start("Model loading done.\n", "completed", "-");
	expect_start("Weights load finished\n", "completed", "-");
	/* near misses: the load over a network (the end word not last), a
	 * sentence of more than the load before the word, the game over */
	cr_expect_eq(nstarts_of("Load over NFS is slow\n"), 0);
	cr_expect_eq(nstarts_of("we saw the load over\n"), 0);
	cr_expect_eq(nstarts_of("Game over\n"), 0);
	/* before the load ended a section banner is no ready: the traceback fails the start */
	expect_start("==========LoadModel==========\n==========Process==========\n"
		     "Traceback (most recent call last):\n  File \"x.py\", line 3, in load_model\n"
		     "RuntimeError: no CUDA\n",
		     "failed", "-");
}

/* issue 23's eleventh round: the verb, then a count and its noun
 * (`[WeightCtx] Loaded 310 tensors, 1136.5 MB into backend`) is what
 * loaded, a summary, not a count under way (`loaded 3/10`, `loaded 51%`,
 * `loaded 3 of 10 shards`); and another model file opened with its count
 * of tensors after such a part's summary (`[GGUF] /m/x.gguf: 678 tensors,
 * data at offset 56800`) is the load going on: a paste that ends there is
 * cut off, not completed (KoboldCpp's ACE-Step encoders, journald) */
Test(generic, a_count_and_its_noun_loaded_and_the_next_file)
{
	static const char loaded[] = "[WeightCtx] Loaded 310 tensors, 1136.5 MB into backend";
	cr_expect(tr_model_loaded_words(loaded, sizeof loaded - 1));
	cr_expect(tr_model_loaded_words("loaded 4 shards", 15));
	static const char *const no[] = {"loaded 3/10 tensors", "loaded 51% of tensors", "loaded 3 of 10 shards",
					 "Loaded 2 tokenizer tensors"};
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_expect(!tr_model_loaded_words(no[i], strlen(no[i])), "the model loaded: %s", no[i]);
	static const char opened[] = "[GGUF] /m/acestep-Q8_0.gguf: 678 tensors, data at offset 56800";
	cr_expect(tr_model_file_opened(opened, sizeof opened - 1));
	cr_expect(!tr_model_file_opened("[GGUF] /m/acestep-Q8_0.gguf: 678 tensorsx", 41));
	cr_expect(!tr_model_file_opened("wrote /m/acestep-Q8_0.gguf: done", 32));
	const char *pre = "Mar 12 07:01:19 h python[4]: [WeightCtx] Loaded 310 tensors, 1136.5 MB into backend\n"
			  "Mar 12 07:01:19 h python[4]: [Load] TextEncoder: 173.4 ms\n";
	expect_start(pre, "completed", "-");
	char log[512];
	snprintf(log, sizeof log, "%sMar 12 07:01:19 h python[4]: [GGUF] /m/acestep-Q8_0.gguf: 678 tensors, data at "
		 "offset 56800\n", pre);
	expect_start(log, "cut-off", "-");
	/* after the server is up another file is no load of this start */
	expect_start("Model loaded.\nServer is ready\n[GGUF] /m/x.gguf: 678 tensors, data at offset 1\n", "completed",
		     "-");
}

/* A banner after a load summary in a log that marked no load with one (a
 * profiler's `===== Profiling =====`) is no ready: the failure after it
 * still fails the start */
Test(generic, a_banner_without_a_load_banner_is_no_ready)
{
	expect_start("Loading weights took 4.20 seconds\n===== Profiling =====\nERROR CUDA out of memory\n", "failed",
		     "-");
}

/*
 * The end of a load in words (recognise_generic.c's load_end_words): each
 * phrase after a load began completes the start (its weights are in, as
 * after a load summary); the same words as a wait or a plan ("waiting for
 * it to finish loading", "will be done loading") end nothing. "still
 * loading" keeps the start under way, unless it is a guess ("may still be
 * loading"), which says nothing of the start.
 */
Test(generic, load_end_words_and_their_near_misses)
{
	static const struct {
		const char *line;
		const char *outcome;
	} c[] = {
		{"INFO load weight end", "completed"},
		{"INFO weights loaded", "completed"},
		{"INFO loading complete", "completed"},
		{"INFO load complete", "completed"},
		{"INFO finished loading", "completed"},
		{"INFO Finish loading", "completed"},
		{"INFO done loading", "completed"},
		{"INFO loaded the model", "completed"},
		{"INFO warmup complete", "completed"},
		{"INFO Model warm-up complete", "completed"},
		{"INFO warmup finished", "completed"},
		{"INFO warm-up done", "completed"},
		{"INFO Completed warmup for voice x", "completed"},
		{"INFO finished warmup", "completed"},
		/* a wait or a plan of the end is no end */
		{"INFO waiting for it to finish loading", "loading"},
		{"INFO it will be done loading soon", "cut-off"},
		{"INFO do not send requests until loading complete", "cut-off"},
		/* under way, and a guess that it is */
		{"INFO the model is still loading", "loading"},
		{"INFO the model may still be loading", "cut-off"},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char log[256];
		snprintf(log, sizeof(log), "INFO loading model /m/x\n%s\n", c[i].line);
		expect_start(log, c[i].outcome, NULL);
	}
}

/*
 * An exit after loading began, by its status (recognise_generic.c's
 * exit_status_v and killed_line): 137 and -9 are SIGKILL (128 + 9, or the
 * signal negated), which on a loading host is the OOM killer, so
 * oom-killed; 136 and 138 are other statuses, a failure but no kill; 0 is
 * no failure at all. A shell's job report ("33 Killed  cmd"), Go's
 * "signal: killed" and a lone "Killed" are kills; "Killed" after a word
 * is not a job report.
 */
Test(generic, exit_statuses_and_kills)
{
	static const struct {
		const char *line;
		const char *outcome;
		int killed; /* oom-killed fires */
	} c[] = {
		{"process exited with code 137", "failed", 1},
		{"process exited with code -9", "failed", 1},
		{"worker exitcode: -9", "failed", 1},
		{"process exited with code 136", "failed", 0},
		{"process exited with code 138", "failed", 0},
		{"worker returncode=138", "failed", 0},
		{"process exited with code 1", "failed", 0},
		{"process exited with status code 1", "failed", 0},
		{"process exited with code 0", "cut-off", 0},
		/* "exit status", which the seed engine's reader takes too */
		{"exit status: 137", "failed", 1},
		{"process exit status 137", "failed", 1},
		{"exit status -9", "failed", 1},
		{"exit status: 1", "failed", 0},
		{"exit status 138", "failed", 0},
		{"exit status: 0", "cut-off", 0},
		{"signal: killed", "failed", 1},
		{"line 89:  33 Killed  python x.py", "failed", 1},
		{"Killed", "failed", 1},
		{"worker Killed", "cut-off", 0},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char log[256];
		snprintf(log, sizeof(log), "INFO loading model /m/x\n%s\n", c[i].line);
		expect_start(log, c[i].outcome, NULL);
		struct lsc_triage *t = trun_text(log);
		cr_assert(t);
		int s = trun_sev_of(t, "oom-killed");
		cr_expect_eq(s, c[i].killed ? LSC_TRIAGE_FAIL : -1, "%s: oom-killed %d", c[i].line, s);
		lsc_triage_free(t);
	}
}

/*
 * A load's figure in words (recognise_generic.c's figures): "loaded in
 * 12.5 s" is the load and the start up; "Loading weights took 4.6 s" the
 * load done, not yet up; a time from 0 s up to under 1e7 s is a figure
 * (0 s and 9999999 s are read, 10000000 s is not: no start takes years);
 * "ready in 30 s" the time to ready; a size with no time ("took 6.1138
 * GB") the model's size in GiB (6.1138e9 / 2^30); a warmup's time is no
 * load figure.
 */
Test(generic, load_figures_in_words)
{
	static const struct {
		const char *line;
		double load_s, ready_s, gib; /* NAN: none */
		int ready;
	} c[] = {
		{"INFO model weights loaded in 12.5 s", 12.5, 12.5, NAN, 1},
		{"INFO Loading weights took 4.6 s", 4.6, NAN, NAN, 0},
		{"INFO model weights loaded in 0 s", 0, 0, NAN, 1},
		{"INFO model weights loaded in 9999999 s", 9999999, 9999999, NAN, 1},
		{"INFO model weights loaded in 10000000 s", NAN, NAN, NAN, 0},
		{"INFO server ready in 30 s", 30, 30, NAN, 1},
		{"INFO Loading model weights took 6.1138 GB", NAN, NAN, 6.1138e9 / 1073741824.0, 0},
		{"INFO warmup model took 3.2 s", NAN, NAN, NAN, 0},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char log[256];
		snprintf(log, sizeof(log), "%s\n", c[i].line);
		struct lsc_triage *t = trun_text(log);
		cr_assert(t);
		struct lsc_triage_start_info si;
		cr_assert_eq(lsc_triage_start(t, 0, &si), 0, "%s", c[i].line);
		cr_expect_str_eq(si.outcome, "completed", "%s", c[i].line);
		const double got[3] = {si.load_s, si.ready_s, si.gib}, want[3] = {c[i].load_s, c[i].ready_s, c[i].gib};
		static const char *const what[3] = {"load_s", "ready_s", "gib"};
		for (int k = 0; k < 3; k++)
			if (isnan(want[k]))
				cr_expect(isnan(got[k]), "%s: %s %f", c[i].line, what[k], got[k]);
			else
				cr_expect_float_eq(got[k], want[k], 1e-6, "%s: %s %f", c[i].line, what[k], got[k]);
		cr_expect_eq(si.reached_ready, c[i].ready, "%s", c[i].line);
		lsc_triage_free(t);
	}
}

/*
 * The model said loaded after a load under way (a "still loading" line,
 * an open progress figure): the load is over, the start completed, not
 * still loading; without the loaded line it is still loading.
 */
Test(generic, model_loaded_closes_a_load_under_way)
{
	expect_start("INFO loading model /m/x\nINFO the model is still loading\nINFO weights were loaded onto the GPU\n",
		     "completed", NULL);
	expect_start("INFO loading model /m/x\nINFO model load progress 0.5\nINFO weights were loaded onto the GPU\n",
		     "completed", NULL);
	expect_start("INFO loading model /m/x\nINFO the model is still loading\n", "loading", NULL);
	expect_start("INFO loading model /m/x\nINFO model load progress 0.5\n", "loading", NULL);
}

/* A load failure the program goes on past (issue 23's thirteenth round:
 * mistral.rs's `Could not load token at ..., using no HF token` read as the
 * start failing): an optional thing's, a credential only gated downloads
 * need, or one whose sentence says what the program does instead. The
 * model's, a tokenizer's, one with nothing done instead still fail. */
Test(generic, a_failure_the_program_goes_on_past)
{
	const char *head = "2024-06-17T02:12:33.837475Z  INFO server: Loading model `m.gguf`\n";
	char log[1024];
	static const char *const past[] = {
		"INFO tokens: Could not load token at \"/home/u/.cache/huggingface/token\", using no HF token.",
		"WARN hub: failed to load the HF token: file not found",
		"WARN failed to load model on GPU 1, falling back to CPU",
		"WARN unable to load the draft model, continuing without speculative decoding",
		"WARN could not load chat template file, using default template",
		/* the line cut right after the words: what failed is lost */
		"INFO tokens: Could not load ",
	};
	for (size_t i = 0; i < sizeof(past) / sizeof(past[0]); i++) {
		snprintf(log, sizeof(log), "%s%s\n", head, past[i]);
		expect_start(log, "cut-off", "-");
	}
	static const char *const fails[] = {
		"ERROR could not load model at /m/m.gguf",
		"ERROR failed to load tokenizer: file not found",
		"ERROR Failed to load the model. Using the wrong format?",
		"ERROR could not load tokens.json: invalid JSON",
	};
	for (size_t i = 0; i < sizeof(fails) / sizeof(fails[0]); i++) {
		snprintf(log, sizeof(log), "%s%s\n", head, fails[i]);
		expect_start(log, "failed", "-");
	}
}

/* A load time the engine states for the weights is preferred over a bar's
 * elapsed time (issue 23's thirteenth round: TorchServe's `checkpoint
 * loading time at rank 1: 108.87 sec` under a shard bar last drawn at
 * 6/7 [01:30], which alone is 60-100 s with no size: `-`). Near misses: a
 * stated time shorter than the bar (a step's or a part's), a bar with no
 * stated time. */
Test(generic, a_stated_load_time_over_a_bars_time)
{
	const char *bar = "Loading 7 checkpoint shards:  86%|########  | 6/7 [01:30<00:15, 15.05s/it]\n";
	char log[1024];
	snprintf(log, sizeof(log), "%scheckpoint loading time at rank 1: 108.87 sec\n%s", bar, bar);
	expect_start(log, "completed", "slow");
	struct lsc_triage *t = trun_text(log);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect(si.load_s > 108.8 && si.load_s < 108.9, "load %f", si.load_s);
	lsc_triage_free(t);
	/* shorter than the bar: the bar's 90 s stays, `-` with no size */
	snprintf(log, sizeof(log), "%scheckpoint loading time at rank 1: 40.2 sec\n%s", bar, bar);
	t = trun_text(log);
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect(si.load_s > 89.9 && si.load_s < 90.1, "load %f", si.load_s);
	cr_expect_str_eq(si.speed, "-");
	lsc_triage_free(t);
}

/* A paste that opens at the load's end (sglang's `Load weight end.`) has
 * no time to ready in its clocks: they span the steps after the load, not
 * the start. The same clocks from a line before the load's end do. */
Test(generic, clocks_from_a_paste_that_opens_past_the_load)
{
	expect_start("[2025-05-14 09:29:03] Load weight end. type=Qwen3ForCausalLM, mem usage=15.35 GB.\n"
		     "[2025-05-14 09:29:10] Capture cuda graph end. Time elapsed: 5.92 s.\n"
		     "[2025-05-14 09:29:11] INFO:     Application startup complete.\n",
		     "completed", "-");
	expect_start("[2025-05-14 09:28:40] Load weight begin. avail mem=78.8 GB\n"
		     "[2025-05-14 09:29:03] Load weight end. type=Qwen3ForCausalLM, mem usage=15.35 GB.\n"
		     "[2025-05-14 09:29:11] INFO:     Application startup complete.\n",
		     "completed", "ok");
}

/* The model's generation figures after its load began are the model up
 * (issue 23's thirteenth round: PowerInfer's loader lines, a cut, then
 * `llama_print_timings: eval time = ... tokens per second` and `Log end`).
 * Near misses: the figures with no start before them, after a failure, a
 * setting named for the rate, a rate with no figure of its own. */
Test(generic, generation_figures_after_the_load_began)
{
	const char *loader = "llama_model_loader: loaded meta data with 3 key-value pairs and 64 tensors from ./m.gguf\n";
	const char *eval = "llama_print_timings:        eval time =    7664.05 ms /   127 runs   (   60.35 ms per token,"
			   "    16.57 tokens per second)\n";
	char log[1024];
	snprintf(log, sizeof(log), "%s```\n%sllama_print_timings:       total time =    8012.75 ms\nLog end\n", loader, eval);
	expect_start(log, "completed", "-");
	snprintf(log, sizeof(log), "%seval rate:            41.20 tokens/s\n", loader);
	expect_start(log, "completed", "-");
	/* no start before: a running server's figures, no start */
	cr_expect_eq(nstarts_of(eval), 0);
	/* after the start failed: still failed */
	snprintf(log, sizeof(log), "%sERROR: failed to load model: out of memory\n%s", loader, eval);
	expect_start(log, "failed", "-");
	/* a setting, and words with no figure: cut off */
	snprintf(log, sizeof(log), "%s  --max-tokens/sec 20\n", loader);
	expect_start(log, "cut-off", "-");
	snprintf(log, sizeof(log), "%sthe target is many tokens per second\n", loader);
	expect_start(log, "cut-off", "-");
}

/* A transport's ready before the load ended is the endpoint's, not the
 * model's (issue 23's thirteenth round: LocalAI's `GRPC Service Ready` of
 * the backend it spawned for a model, then the backend's `Loading model
 * with options` cut mid-line): the load after it is the same start, cut
 * off. Near misses: a ready that names the model, and a transport's ready
 * after the load ended, after which a load is another start. */
Test(generic, a_transports_ready_before_the_load_ended)
{
	const char *spawn = "6:56PM DBG Loading GRPC Model whisper: {backendString:whisper model:ggml-gpt4all-j}\n";
	char log[1024];
	snprintf(log, sizeof(log), "%s6:56PM DBG GRPC Service Ready\n6:56PM DBG GRPC: Loading model with options: "
				   "{state:{} Model:ggml-gpt4all-j ContextSize:512\n", spawn);
	cr_expect_eq(nstarts_of(log), 1);
	expect_start(log, "cut-off", "-");
	/* the ready names the model: it is up, and the next load another start */
	snprintf(log, sizeof(log), "%s6:56PM DBG GRPC model ggml-gpt4all-j ready\n6:58PM DBG Loading model m2\n", spawn);
	expect_start(log, "completed", "-");
	/* after the load's end the endpoint's ready is the server up with it */
	expect_start("Loading model m\nModel loaded in 3.2 s\nHTTP server ready\n", "completed", "ok");
	/* pasted alone, a transport's ready with nothing after it: as before */
	expect_start("6:56PM DBG GRPC Service Ready\n", "completed", "-");
}

/* A traceback through the server's startup hook is the start not coming
 * up (issue 23's thirteenth round: Infinity's starlette `in lifespan`
 * traceback, cut after three frames, under `ERROR:`): load-failed, as the
 * corpus's three such verdicts read it (alltalk, infinity, kokoro-fastapi).
 * Not a shutdown hook, not a request's handler. */
Test(generic, a_frame_in_the_servers_startup_hook)
{
	static const char *const frame[] = {
		"  File \"/x/starlette/routing.py\", line 677, in lifespan\n",
		"  File \"/x/app/main.py\", line 12, in startup_event\n",
		"  File \"/x/app/main.py\", line 12, in on_startup\n",
		"  File \"/x/starlette/routing.py\", line 677, in shutdown\n",
		"  File \"/x/app/main.py\", line 12, in handle_request\n",
	};
	for (size_t i = 0; i < 5; i++) {
		char log[512];
		snprintf(log, sizeof log, "Traceback (most recent call last):\n%sValueError: bad value\n", frame[i]);
		struct lsc_triage *t = trun_text(log);
		cr_assert(t);
		cr_expect_eq(trun_sev_of(t, "load-failed"), i < 3 ? LSC_TRIAGE_FAIL : -1, "%s", log);
		lsc_triage_free(t);
	}
}

/* An application's stated startup time, whose parts name the model's, is
 * the model up with that time to ready (issue 23's thirteenth round:
 * SD.Next's `Startup time: total=22.80 checkpoint=9.18 ...` under a
 * wrapped record). Near misses: a startup of the application alone (an
 * image UI's `import torch: 2.0s, ..., create ui: 0.7s`, before its
 * model), a setting, a key with no figure. */
Test(generic, a_stated_startup_time_with_the_models_part)
{
	expect_start("02:27:43-079500 INFO     Startup time: total=22.80 checkpoint=9.18 torch=4.65 gradio=0.75\n",
		     "completed", "ok");
	expect_start("06:18:11-841469 INFO     Startup time: 283.92s { torch=113.44s models=0.12s "
		     "checkpoint=45.66s }\n",
		     "completed", "-"); /* 284 s with no size: under the 300 s of a time to ready */
	cr_expect_eq(nstarts_of("Startup time: 7.2s (import torch: 2.0s, load scripts: 1.1s, create ui: 0.7s).\n"), 0);
	cr_expect_eq(nstarts_of("  --startup-timeout 300 (model checkpoint)\n"), 0);
	cr_expect_eq(nstarts_of("Startup time: unknown (model not loaded)\n"), 0);
}

/* A row of a job's profile naming the step that loads the model, with
 * its calls and seconds, after the load began: that step ran to its end,
 * the model is in (issue 23's thirteenth round: InvokeAI's graph stats
 * after `Loading model`); the row's time is not the load's. Near misses:
 * the row with no load begun before it, a step of another kind, a row
 * with no duration, a start that failed. */
Test(generic, a_profile_row_of_the_model_loader)
{
	const char *load = "INFO --> Loading model /m/sdxl/main/stable-diffusion-xl-base-1-0, type sdxl:main:vae\n";
	const char *row = "sdxl_model_loader        1     0.118s     1.71G\n";
	char log[1024];
	snprintf(log, sizeof(log), "%sINFO --> Graph stats: 9a42\nNode   Calls    Seconds VRAM Used\n%s"
				   "sdxl_compel_prompt       2    55.806s     1.97G\n", load, row);
	expect_start(log, "completed", "-");
	cr_expect_eq(nstarts_of(row), 0);
	snprintf(log, sizeof(log), "%ssdxl_compel_prompt       2    55.806s     1.97G\n", load);
	expect_start(log, "cut-off", "-");
	snprintf(log, sizeof(log), "%ssdxl_model_loader        1     many\n", load);
	expect_start(log, "cut-off", "-");
	snprintf(log, sizeof(log), "%sERROR: failed to load model: out of memory\n%s", load, row);
	expect_start(log, "failed", "-");
}

/* One reading of a poller or a spinner as the paste's last lines (issue
 * 23's thirteenth round, the ninth round's kept): the wait is a start under
 * way that is loading only where the paste shows the load itself under
 * way (after the runner answered at its address, its poller's wait with
 * the load as its status; the server's own words of its load); a wait
 * for a server to start or be ready, however often it is
 * repeated, and a spinner of a step, say how far the load got nowhere: cut
 * off. DeepSpeed-MII's repeated `waiting for server to start...`,
 * TabbyML's `Starting...` spinner and ipex-llm's ollama poller with the
 * status `llm server loading model` are read so; their verdicts disagree
 * (tests/corpus/verdicts/KNOWN_MISMATCHES). */
Test(generic, a_pollers_or_spinners_last_lines)
{
	char log[2048] = "";
	for (int i = 0; i < 6; i++)
		snprintf(log + strlen(log), sizeof(log) - strlen(log),
			 "[2023-11-06 15:41:%02d,927] [INFO] [server.py:124:_wait_until_server_is_live] waiting for "
			 "server to start...\n", 15 + 5 * i);
	expect_start(log, "cut-off", "-");
	expect_start("$ tabby serve --model Qwen2.5-Coder-3B --device cuda\n"
		     "\xe2\xa0\x8b     0.000 s\tStarting...\n\xe2\xa0\x99     0.080 s\tStarting...\n"
		     "\xe2\xa0\xb9     0.161 s\tStarting...\n",
		     "cut-off", NULL);
	/* the runner up at its address before its load, then its poller's
	 * wait with the load as its status: the load under way */
	expect_start("time=2025-03-07T17:49:11.690+08:00 level=INFO source=runner.go:1026 msg=\"Server listening on "
		     "127.0.0.1:51861\"\n"
		     "time=2025-03-07T17:49:11.742+08:00 level=INFO source=server.go:605 msg=\"waiting for server to "
		     "become available\" status=\"llm server loading model\"\n",
		     "loading", "-");
	/* the server's own words of its load after the waits: under way */
	snprintf(log + strlen(log), sizeof(log) - strlen(log), "engine: waiting for the model to finish loading\n");
	expect_start(log, "loading", "-");
}

/* issue 23's fourteenth round: a ready line before anything of the load
 * (a web UI up, no model yet), then the model the user picked failing
 * to load: that ready was the frontend's, and the start failed
 * (text-generation-webui's `Failed to load the model.`). Near miss: the
 * same failure after a ready line that followed a load (the server up
 * with its model, then another model's load failing) leaves the start
 * completed. */
Test(generic, a_load_failing_after_a_frontends_ready)
{
	expect_start("INFO Starting Text generation web UI\n"
		     "Running on local URL:  http://127.0.0.1:7860\n"
		     "INFO Loading \"x.gguf\"\n"
		     "ERROR Failed to load the model.\n",
		     "failed", "-");
	expect_start("INFO loading model /m/x.gguf\n"
		     "INFO model loaded in 5.0 s\n"
		     "Running on local URL:  http://127.0.0.1:7860\n"
		     "INFO Loading \"y.gguf\"\n"
		     "ERROR Failed to load the model.\n",
		     "completed", "ok");
}

/* issue 23's eighteenth round: a traceback after a frontend's early ready
 * line (a web UI's address before anything of the load, lollms' `Please
 * open your browser`), cut in a frame that loads (`in _rebuild_model`): the
 * model's load failing after the UI came up, so the start failed (as the
 * failure words do above). Near misses: the same traceback in a request's
 * frame, or ended by its exception line before any loading frame, leaves
 * the UI's start completed; after a ready line that followed a load, a
 * loading frame is another model's, the start stays completed. */
Test(generic, a_traceback_loading_after_a_frontends_ready)
{
	static const char ui[] = "Please open your browser and go to http://localhost:9600 to view the ui\n"
				 "Traceback (most recent call last):\n";
	static const char *const loads[] = {
		"  File \"C:\\app\\api\\__init__.py\", line 222, in _rebuild_model\n",
		"  File \"/app/api/__init__.py\", line 222, in load_model\n",
		"  File \"/app/serve/model_worker.py\", line 75, in __init__\n",
	};
	expect_each(ui, loads, sizeof loads / sizeof loads[0], "failed", "-");
	static const char *const others[] = {
		"  File \"/app/api/__init__.py\", line 222, in handle_request\n",
		"  File \"/app/serve/worker.py\", line 75, in __init__\n",
		"TypeError: bad operand\n  File \"/app/api/__init__.py\", line 9, in load_model\n",
	};
	expect_each(ui, others, sizeof others / sizeof others[0], "completed", "-");
	expect_start("INFO loading model /m/x.gguf\n"
		     "INFO model loaded in 5.0 s\n"
		     "Please open your browser and go to http://localhost:9600 to view the ui\n"
		     "Traceback (most recent call last):\n"
		     "  File \"/app/api/__init__.py\", line 222, in load_model\n",
		     "completed", "ok");
}

/* issue 23's eighteenth round: a paste where nothing opens a start but a
 * program saying it starts (`Starting LOLLMS Web UI...`, `Welcome to
 * KoboldCpp - Version 1.95`, `start to init the engine`), cut before its
 * load: one start, begun and cut off, not "nothing recognisable". Near
 * misses: an activity started (a download, fio's processes, inference), a
 * start that failed, a name of several words before
 * `starting up`: no start; a startup line before a load that opens its
 * own start: that one start, which completed. */
Test(generic, a_program_saying_it_starts_then_cut)
{
	static const char *const boots[] = {
		"Starting LOLLMS Web UI...\npersonal_path:/content/personal_data\n",
		"INFO: Starting microservice.py:main\nFound annotation a:b\n",
		"voicebox-server starting up...\nPython version: 3.12.10\n",
		"Welcome to KoboldCpp - Version 1.95\nFor command line arguments, please refer to --help\n",
		"[2022-06-23 06:18:31,311] [    INFO] - start to init the engine\n",
		"Starting the Seldon microservice\n",
	};
	for (size_t i = 0; i < sizeof boots / sizeof boots[0]; i++) {
		cr_expect_eq(nstarts_of(boots[i]), 1, "starts in: %s", boots[i]);
		expect_start(boots[i], "cut-off", "-");
	}
	static const char *const none[] = {
		"Starting download of model.bin\n",
		"Starting 4 processes\n",
		"Starting inference on 3 images\n",
		"Starting the download now\n",
		"Starting server failed: port in use\n",
		"the web server starting up\n",
		"Welcome to the forum, thanks for the report\n",
		"starting LOLLMS Web UI later\n",
	};
	expect_no_start_each(none, sizeof none / sizeof none[0]);
	static const char up[] = "Starting LOLLMS Web UI...\n"
				 "INFO loading model /m/x.gguf\n"
				 "INFO model loaded in 5.0 s\n";
	cr_expect_eq(nstarts_of(up), 1);
	expect_start(up, "completed", "ok");
}

/* issue 23's eighteenth round: a speech model's first decode, its
 * language detected (whisper.cpp's `auto-detected language: de`,
 * faster-whisper's `Detected language: English`), ran the model: the load
 * completed, as a warmup done says. Near misses: the load alone is cut
 * off, and a wait for the detection is no decode. */
Test(generic, a_language_detected_after_the_load)
{
	expect_start("loading model /m/ggml-base.bin\n"
		     "model size = 140.54 MB\n"
		     "auto-detected language: de (p = 0.995631)\n",
		     "completed", "-");
	expect_start("INFO loading model /m/large-v3\nINFO Detected language: English\n", "completed", "-");
	expect_start("loading model /m/ggml-base.bin\nmodel size = 140.54 MB\n", "cut-off", "-");
	expect_start("loading model /m/ggml-base.bin\nwaiting for the detected language: de\n", "cut-off", "-");
}

/* issue 23's eighteenth round: the parts of a load listed right after its
 * first figure (whisperkit's `- Encoder load time: 519.13 seconds`, then
 * `- Decoder load time: 1.69 seconds`, `- Tokenizer load time: 0.34
 * seconds`, under its `Models initialized in 521.27 seconds`) are that
 * load's, not runs of their own; the same list again after the next
 * command is the second run. Near misses: a part that takes the parts
 * past the first figure (2 % and 0.05 s of rounding aside), one three
 * lines after the part before, and one that is no list's item, are a
 * second run, as any second load figure after a completed start. */
Test(generic, a_loads_parts_listed_after_it)
{
	static const char run[] = "Initializing models...\n"
				  "Models initialized in 521.27 seconds\n"
				  "  - Encoder load time: 519.13 seconds\n"
				  "  - Decoder load time: 1.69 seconds\n"
				  "  - Tokenizer load time: 0.34 seconds\n";
	cr_expect_eq(nstarts_of(run), 1);
	expect_start(run, "completed", "slow");
	char two[1024];
	snprintf(two, sizeof two, "%s./cli transcribe x.wav\nInitializing models...\n"
				  "Models initialized in 1.25 seconds\n"
				  "  - Encoder load time: 0.83 seconds\n"
				  "  - Decoder load time: 0.06 seconds\n",
		 run);
	cr_expect_eq(nstarts_of(two), 2);
	static const char head[] = "Initializing models...\n  - Encoder load time: 1.00 seconds\n";
	char log[512];
	/* 0.50 + 0.57 = 1.07, the first figure's 1.02 + 0.05: a part */
	snprintf(log, sizeof log, "%s  - Decoder load time: 0.50 seconds\n  - Tokenizer load time: 0.57 seconds\n", head);
	cr_expect_eq(nstarts_of(log), 1, "%s", log);
	snprintf(log, sizeof log, "%s  - Decoder load time: 0.50 seconds\n  - Tokenizer load time: 0.58 seconds\n", head);
	cr_expect_eq(nstarts_of(log), 2, "%s", log);
	snprintf(log, sizeof log, "%s  - Decoder load time: 0.50 seconds\nx\n  - Tokenizer load time: 0.10 seconds\n",
		 head);
	cr_expect_eq(nstarts_of(log), 1, "%s", log);
	snprintf(log, sizeof log, "%s  - Decoder load time: 0.50 seconds\nx\ny\n  - Tokenizer load time: 0.10 seconds\n",
		 head);
	cr_expect_eq(nstarts_of(log), 2, "%s", log);
	/* no list's item: a figure of its own */
	snprintf(log, sizeof log, "%s  Decoder load time: 0.50 seconds\n", head);
	cr_expect_eq(nstarts_of(log), 2, "%s", log);
}

/* A size after a duration word is the first one after it: vLLM's HPU
 * runner's `took 19.97 GiB of device memory (19.98 GiB/94.62 GiB used)`
 * is 19.97 GiB, not the device's total after the slash (found by the
 * figures test, tests/test_triage_speed_figures.c). */
Test(generic, the_first_size_after_took)
{
	struct lsc_triage *t = trun_text("INFO Pre-loading model weights on hpu:0 took 19.97 GiB of device memory "
					 "(19.98 GiB/94.62 GiB used)\n"
					 "INFO Loading model weights took 4.0 seconds\n");
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect(fabs(si.gib - 19.97) < 1e-9, "size %f", si.gib);
	cr_expect(fabs(si.load_s - 4.0) < 1e-9, "time %f", si.load_s);
	lsc_triage_free(t);
}

/* issue 23's fourteenth round: a paste that opens at a server's ready
 * line, then an engine's loader (DB-GPT's `Uvicorn running on`, then
 * llama.cpp's `llama_model_loader:` lines, cut): one start, the load
 * under way after the frontend came up (tr_begin and tr_fresh_if
 * continue it). Near miss: a ready line after the engine's own lines,
 * then its loader again, is a second start. */
Test(generic, an_engines_load_after_a_pasted_first_ready_line)
{
	const char *loader = "llama_model_loader: loaded meta data with 22 key-value pairs and 403 tensors from "
			     "/m.gguf (version GGUF V3 (latest))\n";
	char log[1024];
	snprintf(log, sizeof(log), "INFO:     Uvicorn running on http://0.0.0.0:5670 (Press CTRL+C to quit)\n%s",
		 loader);
	cr_expect_eq(nstarts_of(log), 1);
	expect_start(log, "cut-off", "-");
	snprintf(log, sizeof(log), "%sllm_load_print_meta: model size = 3.56 GiB\nmain: server is listening on "
				   "127.0.0.1:8080\n%s",
		 loader, loader);
	cr_expect_eq(nstarts_of(log), 2);
	expect_start(log, "completed", NULL);
}

/* issue 23's fourteenth round: a traceback pasted alone, whose header
 * opened no start (no error level, no loading frame), opens its start at
 * the first line of it that loads: here a code line building the model,
 * a call assigned to a name of the model (`llm_model = Llama(`, the llm
 * CLI's plugin). Near misses: a traceback whose lines build no model (no
 * start, as before), a comparison (`model == Llama(x)`), a name with the
 * word inside another (`modeling = f(`), and the exception line before
 * any loading line (the wait ends there). */
Test(generic, an_orphan_tracebacks_line_that_builds_the_model)
{
	const char *head = "Traceback (most recent call last):\n  File \"/x/llm/models.py\", line 91, in __iter__\n";
	static const struct {
		const char *code;
		unsigned starts;
	} c[] = {
		{"    llm_model = Llama(", 1},
		{"    self.model = AutoModel.from_config(cfg)", 1},
		{"    llm = LLM(model=m)", 1},
		{"    parser = make_arg_parser(parser)", 0},
		{"    ok = model == Llama(x)", 0},
		{"    modeling = f(x)", 0},
		{"    model_path = cfg.path", 0},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char log[512];
		snprintf(log, sizeof(log), "%s%s\n  File \"/x/llama.py\", line 365, in __init__\n    assert x\nAssertionError\n",
			 head, c[i].code);
		cr_expect_eq(nstarts_of(log), c[i].starts, "%s", c[i].code);
		if (c[i].starts)
			expect_start(log, "failed", "-");
	}
	/* the block's exception line came first: the wait for a loading line ended */
	cr_expect_eq(nstarts_of("Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n    f()\n"
				"ValueError: bad\nllm_model = Llama(\n"),
		     0);
}

/* issue 23's fourteenth round: the model built from its file failed, in
 * a constructor's words (`Failed to create LLM 'llama' from '...bin'`,
 * ctransformers), as the "failed to load" family: a failed start whose
 * cause is the load's, even pasted alone. Near misses: something else
 * not created (a directory), and a part named after the verb that
 * engines warn of and go on (`failed to initialize NVML`). */
Test(generic, a_model_that_could_not_be_created)
{
	expect_start("Failed to create LLM 'llama' from '/root/.cache/m/wizard-mega-13B.ggmlv3.q4_0.bin'.\n", "failed",
		     "-");
	expect_start("ERROR failed to initialize model: bad magic\n", "failed", "-");
	cr_expect_eq(nstarts_of("Failed to create directory /tmp/cache: permission denied\n"), 0);
	cr_expect_eq(nstarts_of("WARNING failed to initialize NVML: driver not loaded\n"), 0);
}

/* issue 23's fourteenth round: a container platform's word that the
 * program's container failed to run, pasted as kubelet's events: the
 * runtime could not create it (`OCI runtime create failed`), kubelet
 * backs off restarting it: a failed start, pasted alone. Near misses:
 * a pod table's `CrashLoopBackOff` status (a listing), kubelet's normal
 * events, and a back-off that restarts no container (an image pull's). */
Test(generic, a_container_that_failed_to_run)
{
	expect_start("  Warning  Failed     62s (x4 over 105s)  kubelet  Error: failed to create containerd task: OCI "
		     "runtime create failed: runc create failed: unable to start container process\n",
		     "failed", "-");
	expect_start("  Warning  BackOff  29s (x8 over 104s)  kubelet  Back-off restarting failed container "
		     "kserve-container in pod p_default(4dd9)\n",
		     "failed", "-");
	/* the table is read as a status table (no model in it), never failed */
	expect_start("NAME                 READY   STATUS             RESTARTS   AGE\n"
		     "bert-v2-predictor    0/2     CrashLoopBackOff   6          10m\n",
		     "none", "-");
	cr_expect_eq(nstarts_of("  Normal   Started    115s  kubelet  Started container storage-initializer\n"), 0);
	cr_expect_eq(nstarts_of("  Normal   BackOff    10s  kubelet  Back-off pulling image \"vllm/vllm-openai\"\n"), 0);
}

/* issue 23's fourteenth round: a server's settings saying it starts with
 * no model (TorchServe's `Initial Models: N/A`, `Model config: N/A`):
 * what comes up holds none: outcome none, whether the start began
 * before the setting (its command) or after it (its ready line). Near
 * misses: a model named in the value, a path key that is empty (no
 * setting of what it starts with), a count, and a load after the
 * setting (a model registered later: a start). */
Test(generic, a_server_set_to_start_with_no_model)
{
	expect_start("$ torchserve --start --ncs --model-store model-store --foreground\n"
		     "Model Store: /home/model-server/model-store\nInitial Models: N/A\n",
		     "none", "-");
	expect_start("Model config: N/A\n2022-10-31T07:12:55,696 [INFO ] main ModelServer - Inference API bind to: "
		     "http://0.0.0.0:8080\nModel server started.\n",
		     "none", "-");
	expect_start("$ torchserve --start --foreground\nInitial Models: resnet-18.mar\n", "cut-off", "-");
	expect_start("$ torchserve --start --foreground\nModel path: N/A\n", "cut-off", "-");
	expect_start("$ torchserve --start --foreground\nInitial Models: 0\n", "cut-off", "-");
	expect_start("$ torchserve --start --foreground\nInitial Models: N/A\nINFO loading model /m/resnet-18\n"
		     "INFO model loaded in 5.0 s\n",
		     "completed", "ok");
}

/* issue 23's fifteenth round: a server saying what it can do now ("server
 * can now handle requests", "now accepting requests"), a model or server
 * "initialized successfully", an access log's `ready - ` is up after a
 * load; each negated ("not initialized", "not accepting", "cannot yet
 * handle"), or about something else (a logger), is not. */
Test(generic, a_server_that_can_now_take_requests)
{
	static const char *const up[] = {
		"Detector ready - server can now handle requests model_name=yolo",
		"the server can now accept requests",
		"Now accepting requests on 0.0.0.0:8080",
		"RKLLM Model has been initialized successfully",
		"Server initialised successfully",
	};
	static const char *const not_up[] = {
		"the server cannot yet handle requests",
		"Model not initialized successfully",
		"server not accepting requests: still warming up",
		"logger initialized successfully",
		"server not ready - retrying",
	};
	expect_each("INFO loading model weights from /m/yolo\n", up, sizeof up / sizeof up[0], "completed", "-");
	expect_each("INFO loading model weights from /m/yolo\n", not_up, sizeof not_up / sizeof not_up[0], "cut-off", "-");
}

/* issue 23's fifteenth round: a wrapper's word that the program never came
 * up ("did not become ready within 300 s") ends a start as failed, with
 * the load seen, with only the server's start, and pasted alone; the same
 * wait that ended well ("became ready after 3 s") fails nothing. */
Test(generic, a_process_that_never_became_ready)
{
	expect_start("INFO loading model weights from /m\n"
		     "ERROR handler did not become ready within 300 s\n",
		     "failed", "-");
	expect_start("INFO starting server on :8000\nhandler did not become ready within 300 s\n", "failed", "-");
	expect_start("handler did not become ready within 300 s\n", "failed", "-");
	cr_expect_eq(nstarts_of("handler became ready within 3 s\n"), 0);
	expect_start("INFO loading model weights from /m\nhandler became ready after 3 s\n", "completed", "ok");
}

/* issue 23's fifteenth round: "loading PATH" whose file is a checkpoint by
 * its format (.pth, .safetensors, .gguf, ...) is the load begun, as
 * "loading model" is; a directory, a config, a library, a bare extension
 * are not. */
Test(generic, loading_a_weight_file_by_its_name)
{
	static const char *const yes[] = {
		"INFO: loading .cache/modelscope/hub/models/Wan-AI/Wan2.1_VAE.pth",
		"Loading '/models/flux/ae.safetensors'",
		"loading /m/qwen2.5-7b-q4_k_m.gguf ...",
		"Loading `pytorch_model.bin`",
	};
	static const char *const no[] = {
		"INFO: loading .cache/modelscope/hub/models/Wan-AI/",
		"Loading /m/config.json",
		"loading /usr/lib/libcudart.so.12",
		"Loading .pth",
		"loading my.pth.d/notes.txt",
	};
	char log[256];
	expect_each("", yes, sizeof yes / sizeof yes[0], "cut-off", "-");
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		snprintf(log, sizeof log, "%s\n", no[i]);
		cr_expect_eq(nstarts_of(log), 0, "%s", no[i]);
	}
}

/* issue 23's fifteenth round: a pipeline beginning its output ("Generating
 * video ...") after its load began was up: the start completed there, and
 * a kill during the generation does not fail it. Near misses: the same
 * line with no load before it, a generation of something the load makes
 * ("Generating embeddings cache"), the word inside a sentence. */
Test(generic, a_pipeline_that_began_its_output)
{
	const char *load = "[2025-03-02 12:01:54,569] INFO: loading /m/Wan2.1_VAE.pth\n"
			   "[2025-03-02 12:02:11,709] INFO: Creating WanModel from /m\n";
	char log[512];
	snprintf(log, sizeof log, "%s[2025-03-02 12:02:35,384] INFO: Generating video ...\nKilled\n", load);
	expect_start(log, "completed", "-");
	snprintf(log, sizeof log, "%s[2025-03-02 12:02:35,384] INFO: Generating images\n", load);
	expect_start(log, "completed", "-");
	snprintf(log, sizeof log, "%s[2025-03-02 12:02:35,384] INFO: Generating embeddings cache\n", load);
	expect_start(log, "cut-off", "-");
	snprintf(log, sizeof log, "%s[2025-03-02 12:02:35,384] INFO: now Generating video\n", load);
	expect_start(log, "cut-off", "-");
	cr_expect_eq(nstarts_of("INFO: Generating video ...\n"), 0);
}

/* issue 23's fifteenth round: a spinner's frame alone on the paste's last
 * line (a braille pattern) after a load begun: the program at work, still
 * loading; a frame with a word, a frame with a line after it, a character
 * just outside the braille block, or a frame before any load say nothing
 * of the load. */
Test(generic, a_spinners_frame_last)
{
	static const char begun[] = "$ nexa run Llama3.2-3B-Instruct:q4_0\nDownloading Llama3.2-3B-Instruct/q4_0.gguf...\n";
	static const struct {
		const char *tail, *outcome;
	} c[] = {
		{"\xe2\xa0\xb9\n", "loading"},
		{"  \xe2\xa3\xbf  \n", "loading"},
		{"\xe2\xa0\xb9 x\n", "cut-off"},
		{"\xe2\xa0\xb9\nthe user typed this\n", "cut-off"},
		{"\xe2\x9f\xbf\n", "cut-off"}, /* U+27FF, before the block */
		{"\xe2\xa4\x80\n", "cut-off"}, /* U+2900, after it */
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char log[256];
		snprintf(log, sizeof log, "%s%s", begun, c[i].tail);
		expect_start(log, c[i].outcome, "-");
	}
	cr_expect_eq(nstarts_of("\xe2\xa0\xb9\n"), 0, "no load begun");
}

/* issue 23's fifteenth round: Triton's model repository manager's
 * `loading: NAME:VERSION` (glog-prefixed) begins a model's load; a share,
 * a name with no version, words after the version, an unload are not. */
Test(generic, tritons_loading_of_a_model_version)
{
	expect_start("I0601 23:46:17.708228 408 model_repository_manager.cc:997] loading: deepfm_nvt:1\n", "cut-off", "-");
	expect_start("I0601 23:46:17.708228 408 model_repository_manager.cc:997] loading: ensemble-v2.onnx:12\n",
		     "cut-off", "-");
	static const char *const no[] = {
		"I0601 23:46:17.708228 408 model_repository_manager.cc:997] loading: 45%\n",
		"I0601 23:46:17.708228 408 model_repository_manager.cc:997] loading: deepfm_nvt\n",
		"I0601 23:46:17.708228 408 model_repository_manager.cc:997] loading: deepfm_nvt:1 skipped\n",
		"I0601 23:46:17.708228 408 model_repository_manager.cc:997] unloading: deepfm_nvt:1\n",
		"I0601 23:46:17.708228 408 model_repository_manager.cc:997] loading: deepfm_nvt:\n",
	};
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_expect_eq(nstarts_of(no[i]), 0, "%s", no[i]);
}

/* issue 23's fifteenth round: a Java application's `Started NAME in N
 * seconds` is its ready line with its time to ready (ok under a minute,
 * slow over 300 s with no size); uvicorn's `Started server process [N]`,
 * `Started in the background`, a time with no number, a verb inside the
 * line are not. And `Model ready, serving on :8080`: the ready word
 * before a comma, about the model; negated or with no subject, not. */
Test(generic, a_java_applications_started_in_and_ready_before_a_comma)
{
	expect_start("Loading model weights from /m\nStarted DemoApplication in 2.345 seconds (process running for 2.7)\n",
		     "completed", "ok");
	expect_start("Loading model weights from /m\nStarted Model Server App in 402.5 seconds\n", "completed", "slow");
	static const char *const no[] = {"Started server process [28960]", "Started in the background",
					 "Started DemoApplication in a moment", "Server Started DemoApplication in 2 s",
					 "Started Model Server Worker App in 2.0 seconds"};
	expect_each("Loading model weights from /m\n", no, sizeof no / sizeof no[0], "cut-off", "-");
	expect_start("Loading model weights from /m\nModel ready, serving on :8080\n", "completed", NULL);
	expect_start("Loading model weights from /m\nModel not ready, retrying\n", "cut-off", "-");
	expect_start("Loading model weights from /m\nready, set, go\n", "cut-off", "-");
}

/* issue 23's fifteenth round: systemd's report of its service's exit
 * (`Main process exited, code=exited, status=1/FAILURE`) is an exit
 * status: not 0 fails the start under way; 0 does not, nor does a
 * failure after the server was up. */
Test(generic, a_services_exit_in_systemds_words)
{
	expect_start("May 01 10:00:00 host app[12]: loading model weights from /m\n"
		     "May 01 10:00:05 host systemd[1]: app.service: Main process exited, code=exited, status=1/FAILURE\n",
		     "failed", "-");
	expect_start("loading model weights from /m\napp.service: Main process exited, code=exited, status=0/SUCCESS\n",
		     "cut-off", "-");
	expect_start("model loaded in 5.0 s\nserver is ready\n"
		     "app.service: Main process exited, code=exited, status=1/FAILURE\n",
		     "completed", "ok");
}

/* Exits and kills in three more launchers' words: Windows' NTSTATUS as a
 * hex exit code (not 0: failed; 0x0: not), zsh's job report with the
 * pid before `killed` (a kill; a sentence with the word, a count of
 * workers, a longer word: not), and Kubernetes' `OOMKilled` (the OOM
 * killer ended the container: oom-killed). */
Test(generic, hex_exit_codes_zsh_job_kills_and_oomkilled)
{
	expect_start("Loading model weights from /m\nerror: process didn't exit successfully: `target\\release\\server.exe` "
		     "(exit code: 0xc0000409, STATUS_STACK_BUFFER_OVERRUN)\n",
		     "failed", "-");
	expect_start("Loading model weights from /m\nexit code: 0x0\n", "cut-off", "-");
	expect_start("Loading model weights from /m\n[1]    12345 killed     python server.py\n", "failed", "-");
	expect_start("Loading model weights from /m\n[1]  + 12345 killed     python server.py\n", "failed", "-");
	static const char *const no[] = {"[1] the process was killed", "12 workers killed  ", "12345 killedx python"};
	expect_each("Loading model weights from /m\n", no, sizeof no / sizeof no[0], "cut-off", "-");
	struct lsc_triage *t = trun_text("    State:          Terminated\n      Reason:       OOMKilled\n"
					 "      Exit Code:    137\n");
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.outcome, "failed");
	cr_expect_eq(trun_sev_of(t, "oom-killed"), LSC_TRIAGE_FAIL);
	lsc_triage_free(t);
}

/* The load's end words before its time ("Model load complete (12.3
 * seconds)", "Finished loading model in 412.3 s"): the load's figure,
 * judged by the thresholds; and `accepting connections` is a server up,
 * negated not. Near misses: an end word with no time, a time of
 * something that is no load. */
Test(generic, end_words_before_the_loads_time_and_accepting_connections)
{
	expect_start("Loading model weights from /m\nModel load complete (12.3 seconds)\n", "completed", "ok");
	expect_start("Loading model weights from /m\nFinished loading model in 12.3 s\n", "completed", "ok");
	expect_start("Loading model weights from /m\nFinished loading model in 412.3 s\n", "completed", "slow");
	expect_start("Loading model weights from /m\nModel load complete.\n", "completed", "-");
	expect_start("Loading model weights from /m\nmodel warmed up, accepting connections\n", "completed", "-");
	expect_start("Loading model weights from /m\nnot accepting connections\n", "cut-off", "-");
}

/* The plural right before the verb ("All models loaded.") is the load's
 * end as "model loaded" is; "no models loaded", a count of models in
 * something else that loaded ("map loaded with 2 models"), the plural
 * away from the verb are not. */
Test(generic, all_models_loaded)
{
	expect_start("Loading model weights from /m\nAll models loaded.\n", "completed", "-");
	expect_start("Loading model weights from /m\n3 models loaded\n", "completed", "-");
	static const char *const no[] = {"no models loaded", "Last loaded map loaded with 2 models.", "models: loaded",
					 "models were loaded"};
	expect_each("Loading model weights from /m\n", no, sizeof no / sizeof no[0], "cut-off", "-");
}

/* issue 23's sixteenth round: a warning that something other than the
 * model failed to load (`[WARNING] Failed to load bitsandbytes: No module
 * named ...`) is said and gone past: the start goes on; the model's own
 * failed load fails it at a warning too, and anything's at an error. */
Test(generic, a_warnings_failed_load_of_a_library)
{
	expect_start("[2023-10-29 08:23:41,540] [INFO] loading model weights from /m/visualglm\n"
		     "[2023-10-29 08:23:41,539] [WARNING] Failed to load bitsandbytes:No module named 'bitsandbytes'\n"
		     "[2023-10-29 08:23:46,454] [INFO] [RANK 0] replacing layer 0 attention with lora\n",
		     "cut-off", "-");
	expect_start("[2023-10-29 08:23:41,540] [INFO] loading model weights from /m/visualglm\n"
		     "[2023-10-29 08:23:41,539] [WARNING] Failed to load model weights: file is truncated\n",
		     "failed", "-");
	expect_start("[2023-10-29 08:23:41,540] [INFO] loading model weights from /m/visualglm\n"
		     "[2023-10-29 08:23:41,539] [ERROR] Failed to load bitsandbytes:No module named 'bitsandbytes'\n",
		     "failed", "-");
}

/* A service manager's own lines in a journal (`systemd[1]: Started
 * x.service`) are not the program's log lines: a server up at its
 * address as the program's first line reads the same with them before it
 * as without (test_triage_damage's journald on BentoML's paste). */
Test(generic, a_journals_manager_lines_are_not_the_programs)
{
	const char *up = "2023-07-04T17:56:21+0800 [INFO] [cli] Starting production HTTP BentoServer from \"svc.py:svc\" "
			 "listening on http://0.0.0.0:2000 (Press CTRL+C to quit)\n";
	char log[1024];
	struct lsc_triage *t = trun_text(up);
	cr_assert(t);
	struct lsc_triage_start_info whole;
	cr_assert(lsc_triage_start(t, 0, &whole) == 0);
	lsc_triage_free(t);
	snprintf(log, sizeof log,
		 "Oct 16 15:39:01 host systemd[1]: Starting strata.service - Strata inference server...\n"
		 "Oct 16 15:39:01 host systemd[1]: Started strata.service - Strata inference server.\n"
		 "Oct 16 15:39:01 host strata[1234]: %s",
		 up);
	expect_start(log, whole.outcome, whole.speed);
}

/* A load's time under a key in Title Case or past tense ("Model Load
 * Time:", "Model loaded time:"), and a unit in parentheses as a C++
 * runner's statistics print it ("0.887000 (seconds)"): the load's figure,
 * in the unit given. Near misses: a time that is no load's (inference),
 * a parenthesis that holds no unit, a unit left open. */
Test(generic, a_load_time_in_title_case_or_parenthesised_units)
{
	static const struct { const char *line; double secs; } cases[] = {
		{"Model Load Time:\t\t0.887000 (seconds)", 0.887},
		{"Model loaded time: 3411 ms", 3.411},
		{"MODEL LOAD TIME: 412.5 s", 412.5},
		{"Model Load Time: 9 (s)", 9},
		{"Model load time: 2500 (ms)", 2.5},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct lsc_triage *t = trun_text(cases[i].line);
		cr_assert(t);
		struct lsc_triage_start_info si;
		cr_assert(lsc_triage_start(t, 0, &si) == 0, "no start: %s", cases[i].line);
		cr_expect_str_eq(si.outcome, "completed", "%s", cases[i].line);
		cr_expect(fabs(si.load_s - cases[i].secs) < 1e-6, "%s: %f", cases[i].line, si.load_s);
		cr_expect_str_eq(si.speed, cases[i].secs > 300 ? "slow" : "ok", "%s", cases[i].line);
		lsc_triage_free(t);
	}
	static const char *const none[] = {
		"Total inference time:\t\t1.834000 (seconds)",
		"Model Load Time: 0.887000 (samples)",
		"Model Load Time: 0.887000 (seconds",
	};
	expect_no_start_each(none, sizeof none / sizeof none[0]);
}

/* Parts of a pipeline loaded one after another under Python logging's
 * default layout (`INFO:name:`): each part's `Done. Took N seconds.` is no
 * second run, and a part begun after the last one done, with nothing
 * after it, leaves the one start cut off; with its own done after it, the
 * parts are in. */
Test(generic, a_pipelines_parts_loaded_in_turn)
{
	const char *head = "INFO:sd.coreml_model:Loading text_encoder mlpackage\n"
			   "INFO:sd.coreml_model:Loading models/sd_text_encoder.mlpackage\n"
			   "INFO:sd.coreml_model:Done. Took 6.1 seconds.\n"
			   "INFO:sd.coreml_model:Loading unet mlpackage\n"
			   "INFO:sd.coreml_model:Loading models/sd_unet.mlpackage\n"
			   "INFO:sd.coreml_model:Done. Took 91.7 seconds.\n";
	char log[1024];
	snprintf(log, sizeof log, "%sINFO:sd.coreml_model:Loading safety_checker mlpackage\n", head);
	cr_expect_eq(nstarts_of(log), 1);
	expect_start(log, "cut-off", "-");
}

/* A probe of a server's readiness that found it not up, at error level
 * among the server's loading lines (Riva's model registry asking Triton
 * for its status while Triton loads): a wait, the start still under way.
 * Near misses, each the start's failure: a probe that ran out of its
 * time or gave up, a connection refused that is no probe's (a backend the
 * launcher started), a probe's answer that is no "not up". */
Test(generic, a_readiness_probe_refused_is_no_failure)
{
	const char *before = "I0324 18:13:59.725618 19 model_lifecycle.cc:459] loading: intent_slot_tokens:1\n";
	static const char *const waits[] = {
		"E0324 18:13:59.729030 21 model_registry.cc:286] error: unable to get server status: failed to connect "
		"to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:8001: Failed to connect to remote host: "
		"Connection refused\n"
		"I0324 18:13:59.732746 19 model_lifecycle.cc:459] loading: riva-punctuation-en-US:1",
		"Warning  Unhealthy  pod/x  Readiness probe failed: Get \"http://10.0.0.5:8000/health\": dial tcp "
		"10.0.0.5:8000: connect: connection refused",
		"ERROR: health check failed: 503 Service Unavailable",
	};
	static const char *const fails[] = {
		"ERROR - Command 'health check of container x' timed out after 20 seconds",
		"ERROR: health check failed: connection refused, giving up",
		"ERROR failed starting/connecting to the gRPC service error=connection refused",
		"ERROR: health check failed: 500 internal error",
	};
	expect_each(before, waits, sizeof waits / sizeof waits[0], "cut-off", "-");
	expect_each(before, fails, sizeof fails / sizeof fails[0], "failed", "-");
}

/* A duration with no unit, as a program prints a float it got from two
 * time.time() readings, after a duration's key ("model init cost:
 * 9.023834943771362", "Pipeline loaded in 355.45468401908875"): seconds.
 * Near misses: two decimals (a figure of anything), a word after the
 * number, a bare number with no key, a version. */
Test(generic, a_float_of_seconds_with_no_unit_after_a_duration_key)
{
	static const struct { const char *line; double secs; const char *speed; } cases[] = {
		{"magic_pdf.model:custom_model_init:128 - model init cost: 9.023834943771362", 9.023834943771362, "ok"},
		{"Pipeline loaded in 355.45468401908875", 355.45468401908875, "slow"},
		{"Model loaded in 12.000", 12, "ok"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct lsc_triage *t = trun_text(cases[i].line);
		cr_assert(t);
		struct lsc_triage_start_info si;
		cr_assert(lsc_triage_start(t, 0, &si) == 0, "no start: %s", cases[i].line);
		cr_expect_str_eq(si.outcome, "completed", "%s", cases[i].line);
		cr_expect_str_eq(si.speed, cases[i].speed, "%s", cases[i].line);
		double got = isnan(si.load_s) ? si.ready_s : si.load_s;
		cr_expect(fabs(got - cases[i].secs) < 1e-6, "%s: load %f ready %f", cases[i].line, si.load_s, si.ready_s);
		lsc_triage_free(t);
	}
	static const char *const none[] = {
		"model init cost: 9.02",
		"model init cost: 9.023834943771362 on gpu",
		"9.023834943771362",
		"model version 1.2.345",
	};
	expect_no_start_each(none, sizeof none / sizeof none[0]);
}

/* "Initializing a text summarization model...": the model's init begun
 * in words, the verb opening the line and the model a word of the five
 * after it; the paste ending there is cut off. Near misses: the verb
 * elsewhere in the line, a part that is no weights before the model, the
 * model six words on, a subject that is no model. */
Test(generic, a_models_init_begun_in_words)
{
	static const char *const begun[] = {
		"Initializing a text summarization model...",
		"Initializing one two three four model", /* the fifth word after the verb */
		"Initializing text classification pipeline with model joeddav/distilbert",
		"initialising the model",
	};
	static const char *const not_begun[] = {
		"Now initializing a text summarization model...",
		"Initializing tokenizer for model x",
		"Initializing one two three four five model",
		"Initializing ChromaDB",
	};
	for (size_t i = 0; i < sizeof begun / sizeof begun[0]; i++) {
		cr_expect_eq(nstarts_of(begun[i]), 1, "%s", begun[i]);
		expect_start(begun[i], "cut-off", "-");
	}
	expect_no_start_each(not_begun, sizeof not_begun / sizeof not_begun[0]);
}

/* The load's share under a `Progress:` key after its verb and object
 * ("Loading stable-whisper model... Progress: 30%"): the load under way
 * (loading); at 100% the share is whole (no longer under way). */
Test(generic, a_loads_share_under_a_progress_key)
{
	expect_start("Loading stable-whisper model... Progress: 30%\n", "loading", "-");
	expect_start("Loading stable-whisper model... Progress: 30 %\n", "loading", "-");
	/* near misses: a share with no load before it; a download's share is
	 * the fetch under way (loading where the paste ends, as a download
	 * bar short of N/N is since the twenty-first round), at 100 % no
	 * longer */
	expect_start("Loading stable-whisper model...\nDownloading model... Progress: 30%\n", "loading", "-");
	expect_start("Loading stable-whisper model...\nDownloading model... Progress: 100%\n", "cut-off", "-");
	cr_expect_eq(nstarts_of("Upload of the report... Progress: 30%\n"), 0);
}

/* A bar whose label says it downloads the model's files ("Downloading
 * shards: 100%|...| 15/15 [07:19<00:00"): the fetch before the load,
 * under way until N/N, never the load's time (its 7 min 19 s is no slow
 * load) and no second start before the load's own bar. */
Test(generic, a_download_bar_is_no_load)
{
	const char *log = "Downloading shards: 100%|##########| 15/15 [07:19<00:00, 29.30s/it]\n"
			  "Loading checkpoint shards:  93%|#########3| 14/15 [00:55<00:03,  3.57s/it]\n";
	cr_expect_eq(nstarts_of(log), 1);
	expect_start(log, "loading", "-");
	/* the download alone, cut mid-way: the start under way */
	expect_start("Downloading shards:  40%|####      | 6/15 [02:55<04:23, 29.30s/it]\n", "loading", "-");
	/* near miss: the same bar labelled as the load is the load's time */
	struct lsc_triage *t = trun_text("Loading checkpoint shards: 100%|##########| 15/15 [07:19<00:00, 29.30s/it]\n");
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect(fabs(si.load_s - 439) < 1e-6, "%f", si.load_s);
	lsc_triage_free(t);
}

/* "Ready" alone on its line once a start is under way (wyoming's
 * `INFO:__main__:Ready` after its model's download): the start's program
 * is up. Near misses: the word alone with nothing begun before it, its
 * negation, a count after it (kubectl's column). */
Test(generic, a_bare_ready_after_a_start_begun)
{
	const char *before = "$ docker run -it rhasspy/wyoming-whisper --model tiny-int8 --language en\n"
			     "INFO:__main__:Downloading FasterWhisperModel.TINY_INT8 to /data\n";
	static const char *const up[] = {"INFO:__main__:Ready", "Ready.", "READY!"};
	static const char *const not_up[] = {"INFO:__main__:Not ready", "Ready 0/1"};
	expect_each(before, up, sizeof up / sizeof up[0], "completed", "-");
	expect_each(before, not_up, sizeof not_up / sizeof not_up[0], "cut-off", "-");
	cr_expect_eq(nstarts_of("INFO:__main__:Ready\n"), 0);
}

/* The model's init in words, its start and its end: a status glyph may
 * open the line before the verb ("⚡ Initializing LLM model from ..."),
 * and "New LLM model initialized" ends it (completed), as "model loaded"
 * does. Near misses: the model's init negated or to come, a verb before
 * its object ("Initialized model parallel groups"), a question. */
Test(generic, a_models_init_begun_after_a_glyph_and_its_end)
{
	const char *before = "\xe2\x9a\xa1 Initializing LLM model from /m/gemma-3-4b-it.gguf...\n";
	cr_expect_eq(nstarts_of(before), 1);
	expect_start(before, "cut-off", "-");
	static const char *const ended[] = {"\xe2\x9c\x85 New LLM model initialized", "Model initialised."};
	static const char *const not_ended[] = {"Model not initialized yet", "model will be initialized later",
						"Initialized model parallel groups", "model initialized?"};
	expect_each(before, ended, sizeof ended / sizeof ended[0], "completed", "-");
	expect_each(before, not_ended, sizeof not_ended / sizeof not_ended[0], "cut-off", "-");
	/* letters before the verb: no glyph, a sentence */
	cr_expect_eq(nstarts_of("Now Initializing LLM model from /m/x.gguf\n"), 0);
}

/* At an error's level, a thing not found is the error: a start that
 * failed, opened there when it speaks of the model ("ERROR:root:Model
 * config for ViT-bigG-14 not found"). Near misses: the same words at a
 * warning's level, at no level. */
Test(generic, not_found_at_an_errors_level_fails)
{
	expect_start("auto-1  | ERROR:root:Model config for ViT-bigG-14 not found; available models ['RN50']\n",
		     "failed", "-");
	expect_start("ERROR: model file /m/x.gguf: No such file or directory\n", "failed", "-");
	cr_expect_eq(nstarts_of("WARNING:root:Model config for ViT-bigG-14 not found\n"), 0);
	cr_expect_eq(nstarts_of("Model config for ViT-bigG-14 not found\n"), 0);
}

/* "Initialize ASR server engine successfully on device: cpu." behind
 * PaddleSpeech's "[    INFO] - " head: the init's verb in any form, its
 * object between, then that it went well: the engine up (completed), so
 * uvicorn's address after it is that start's, no server with no model.
 * Near misses: a failure in the same words, an init that went well of a
 * holder (a workspace), the verb with no "successfully". */
Test(generic, an_init_that_went_well_in_any_words)
{
	const char *before = "[2023-07-19 07:09:22,393] [    INFO] - start to init the engine\n";
	static const char *const up[] = {
		"[2023-07-19 07:09:25,198] [    INFO] - Initialize ASR server engine successfully on device: cpu.",
		"Engine init successfully",
	};
	expect_each(before, up, sizeof up / sizeof up[0], "completed", "-");
	static const char *const not_up[] = {
		"Initialize ASR server engine failed, not successfully",
		"Initialize ASR server engine on device: cpu.",
	};
	for (size_t i = 0; i < sizeof not_up / sizeof not_up[0]; i++) {
		struct lsc_triage *t = trun_text(not_up[i]);
		struct lsc_triage_start_info si;
		cr_expect(lsc_triage_start(t, 0, &si) != 0 || strcmp(si.outcome, "completed"), "%s", not_up[i]);
		lsc_triage_free(t);
	}
}

/* A bar that counts bytes ("campplus_cn_common.bin: 0%| | 0.00/28.0M
 * [00:00<?, ?B/s]") moves a file whatever its label: a fetch, the start
 * under way, no app's work (a bar of steps is). */
Test(generic, a_bar_that_counts_bytes_is_a_fetch)
{
	expect_start("campplus_cn_common.bin:   0%|          | 0.00/28.0M [00:00<?, ?B/s]\n", "loading", "-");
	/* near miss: a bar of steps is the app's work, no start */
	struct lsc_triage *t = trun_text("Sampling:  40%|####      | 8/20 [00:05<00:07, 1.5it/s]\n");
	struct lsc_triage_start_info si;
	cr_expect(lsc_triage_start(t, 0, &si) != 0 || !strcmp(si.outcome, "none"));
	lsc_triage_free(t);
}

/* issue 23's nineteenth round: a model loaded, called by the name in
 * quotes the server gives it (Triton's `successfully loaded
 * 'fastertransformer' version 1`, behind glog's and docker compose's
 * prefixes): completed. Near misses: a quoted config file and a library
 * loaded are no model, and the verb's object unquoted is no name. */
Test(generic, a_model_loaded_by_its_quoted_name)
{
	expect_start("I0415 15:10:10.022000 89 model_repository_manager.cc:1345] successfully loaded "
		     "'fastertransformer' version 1\n",
		     "completed", "-");
	expect_start("fauxpilot-triton-1         | I0415 15:10:10.022000 89 model_repository_manager.cc:1345] "
		     "successfully loaded 'fastertransformer' version 1\n",
		     "completed", "-");
	static const char *const none[] = {
		"successfully loaded 'config.json'\n",
		"2024-09-19 23:01:44 | INFO | faiss.loader | Successfully loaded faiss with AVX2 support.\n",
		"successfully loaded fastertransformer version 1\n",
	};
	expect_no_start_each(none, sizeof none / sizeof none[0]);
}

/* issue 23's nineteenth round: the model's file not opened (gemma.cpp's
 * `Failed to open model file - does it exist?`, `failed to open GGUF
 * file`): the load failed, at any level. Near misses: a file that is no
 * model not opened, and a load that opened its model file. */
Test(generic, the_model_file_not_opened)
{
	expect_start("Abort at /src/gemma.cpp/gemma.cc:117: Failed to open model file  - does it exist?\n", "failed",
		     "-");
	expect_start("loading model /m/x.gguf\ngguf_init_from_file: failed to open GGUF file '/m/x.gguf'\n", "failed",
		     "-");
	expect_start("loading model /m/x.gguf\nfailed to open log file /tmp/x.log, logging to stderr\n", "cut-off",
		     "-");
	static const char *const none[] = {"Failed to open log file  - does it exist?\n",
					   "opened model file /m/x.gguf\n"};
	expect_no_start_each(none, sizeof none / sizeof none[0]);
}

/* issue 23's nineteenth round: the model reading a prompt (rwkv.cpp's
 * chat: `Processing 92 prompt tokens, may take a while`) ran it: its load
 * completed. Near misses: a plan to process them, a count with no verb
 * before it, and the verb with no count are no run. */
Test(generic, a_prompt_read_by_the_model)
{
	expect_start("Loading RWKV model\nProcessing 92 prompt tokens, may take a while\n", "completed", "-");
	expect_start("loading model /m/x.bin\n[chat] evaluated 12 prompt tokens\n", "completed", "-");
	expect_each("Loading RWKV model\n",
		    (const char *const[]){"it will process 92 prompt tokens next", "max 92 prompt tokens",
					  "Processing prompt tokens"},
		    3, "cut-off", "-");
}

/* issue 23's nineteenth round: `loaded` inside a name of code
 * (`[RNLlama] is_model_loaded false`) is a flag read out, no load
 * ended. Near miss: the same words as a sentence are the load's end. */
Test(generic, loaded_inside_a_name_is_no_load)
{
	static const char *const none[] = {"I RNLLAMA_ANDROID_JNI: [RNLlama] is_model_loaded false\n",
					   "model_loaded_callback registered\n"};
	expect_no_start_each(none, sizeof none / sizeof none[0]);
	expect_start("loading model /m/x.gguf\nI RNLLAMA_ANDROID_JNI: [RNLlama] model loaded\n", "completed", "-");
	expect_start("loading model /m/x.gguf\nis_model_loaded false\n", "cut-off", "-");
}

/* issue 23's nineteenth round: `Failed loading model X` (the gerund,
 * Foundry Local's words) is the load's failure, and its repeat with no
 * line of its own between is the same failure (one start). Near miss:
 * `Finished loading model X` is its end. */
Test(generic, failed_loading_is_the_loads_failure)
{
	static const char log[] = "Loading model...\n"
				  "[12:31:04 ERR] Failed loading model:qwen3.5-0.8b-generic-cpu:2\n"
				  "Internal Server Error\n"
				  "Failed loading model qwen3.5-0.8b-generic-cpu:2\n";
	expect_start(log, "failed", "-");
	cr_expect_eq(nstarts_of(log), 1);
	expect_start("Failed loading model qwen3.5-0.8b\n", "failed", "-");
	expect_start("Loading model...\nFinished loading model qwen3.5-0.8b\n", "completed", "-");
}

/* issue 23's nineteenth round: an exception's name opening the line
 * while a load is under way (WebLLM's `GPUPipelineError: [Invalid
 * ShaderModule (unlabeled)] is invalid.` after its `Loading model from
 * cache[49/49]`) ends the load, whatever the message's words. Near
 * misses: the same line after the model is up is the running app's, a
 * warning's name is no exception, and a lowercase `error:` key is no
 * name. */
Test(generic, an_exception_thrown_out_of_a_load)
{
	static const char load[] = "Loading model from cache[49/49]: 0MB loaded. 0% completed, 0 secs elapsed.\n\n";
	expect_each(load, (const char *const[]){"GPUPipelineError: [Invalid ShaderModule (unlabeled)] is invalid."}, 1,
		    "failed", "-");
	expect_each("loading model /m/x.gguf\nmodel loaded in 3.0 s\n",
		    (const char *const[]){"GPUPipelineError: [Invalid ShaderModule (unlabeled)] is invalid."}, 1,
		    "completed", "ok");
	expect_each(load,
		    (const char *const[]){"DeprecationWarning: [x] is invalid.",
					  "shader_error: [Invalid ShaderModule (unlabeled)] is invalid."},
		    2, "cut-off", "-");
}

/* issue 23's nineteenth round: the same load line again after its load
 * failed (Deep-Live-Cam's `Loading face swapper model from: X` after
 * `Error loading face swapper model: ... should exist`, three times) is
 * the same app trying the same file once more: one start, failed. Near
 * miss: a different load after the failure (a launcher trying its next
 * backend) is a start of its own. */
Test(generic, the_same_load_retried_is_one_start)
{
	static const char once[] = "[DLC.FACE-SWAPPER] Loading face swapper model from: C:\\m\\inswapper_128.onnx\n"
				   "[DLC.FACE-SWAPPER] Error loading face swapper model: model_file "
				   "C:\\m\\inswapper_128.onnx should exist\n";
	char log[1024];
	snprintf(log, sizeof log, "%s%s%s", once, once, once);
	cr_expect_eq(nstarts_of(log), 1);
	expect_start(log, "failed", "-");
	static const char two[] = "Loading model /m/a.gguf\n"
				  "Error loading model: /m/a.gguf should exist\n"
				  "Loading model /m/b.gguf\n"
				  "Error loading model: /m/b.gguf should exist\n";
	cr_expect_eq(nstarts_of(two), 2);
}

/* issue 23's nineteenth round: a part of the model named in its own
 * words, read from the model's folder (vosk's Kaldi lines `Loading HCLG
 * from /opt/vosk-model-en/model/graph/HCLG.fst`): the load under way.
 * Near misses: the same part from a folder that is no model's, the
 * tokenizer from the model's folder, and the folder alone. */
Test(generic, a_part_read_from_the_models_folder)
{
	expect_start("LOG (VoskAPI:ReadDataFiles():model.cc:263) Loading HCLG from "
		     "/opt/vosk-model-en/model/graph/HCLG.fst\n",
		     "cut-off", "-");
	expect_start("Loading i-vector extractor from C:\\models\\en\\ivector\\final.ie\n", "cut-off", "-");
	static const char *const none[] = {"Loading HCLG from /opt/graphs/HCLG.fst\n",
					   "Loading tokenizer from /models/x/tokenizer.json\n",
					   "Loading settings from /opt/models/\n"};
	expect_no_start_each(none, sizeof none / sizeof none[0]);
}

/* issue 23's nineteenth round: a terminal pane's border right after a
 * line's text (`...gemma.cc:117: Failed│`) is where the pane wrapped it:
 * the next line inside the pane continues it, the border dropped, so
 * `Failed to open model file` is read whole, under a prefix both lines
 * share too. Near misses: text padded to the border is a line of its own,
 * and so is a next line outside the pane, or one whose stamp differs. */
Test(generic, a_line_wrapped_at_a_panes_border)
{
	static const char bar[] = "\xe2\x94\x82";
	char log[512];
	snprintf(log, sizeof log, "Abort at /src/gemma.cc:117: Failed%s\n to open model file  - does it exist?   %s\n",
		 bar, bar);
	expect_start(log, "failed", "-");
	snprintf(log, sizeof log, "Abort at /src/gemma.cc:117: Failed %s\nto open model file  - does it exist?   %s\n",
		 bar, bar);
	cr_expect_eq(nstarts_of(log), 0, "joined:\n%s", log);
	snprintf(log, sizeof log, "Abort at /src/gemma.cc:117: Failed%s\n to open model file  - does it exist?\n", bar);
	cr_expect_eq(nstarts_of(log), 0, "joined:\n%s", log);
	/* a prefix over both lines (a quote, a constant stamp) is dropped from
	 * the continuation; stamps that differ inside a word are no shared
	 * prefix, and the lines stay apart */
	snprintf(log, sizeof log, "> Abort at /src/gemma.cc:117: Failed%s\r\n>  to open model file  - does it exist?   %s\r\n",
		 bar, bar);
	expect_start(log, "failed", "-");
	snprintf(log, sizeof log, "12:00:01 Abort at /src/gemma.cc:117: Failed%s\n12:00:02 loading model /m/x.gguf   %s\n",
		 bar, bar);
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_eq(si.first_line, 2, "the load's line joined to the one before:\n%s", log);
	lsc_triage_free(t);
}

/* issue 23's nineteenth round: a chat CLI's help for its command to
 * leave (llama-cli's `  /exit or Ctrl+C     stop or exit` under
 * `available commands:`), after the model's load began, is the CLI up
 * and waiting for the user: completed. Near misses: the user's own
 * `/exit` typed at the prompt, the help before any load, and the command
 * named in a sentence. */
Test(generic, a_chat_clis_help_after_the_load)
{
	expect_start("Loading model...\navailable commands:\n  /exit or Ctrl+C     stop or exit\n", "completed", "-");
	expect_start("loading model /m/x.gguf\n/bye         leave the chat\n", "completed", "-");
	expect_each("Loading model...\n",
		    (const char *const[]){"> /exit", "/exit", "type /exit or Ctrl+C to stop or exit"}, 3,
		    "cut-off", "-");
	cr_expect_eq(nstarts_of("available commands:\n  /exit or Ctrl+C     stop or exit\n"), 0);
}

/* issue 23's twentieth round: the program fetching, in words, the model
 * it is about to load (EasyOCR's `Downloading recognition model, please
 * wait. This may take several minutes ...`) is the start under way: a
 * paste that ends there, on a step it says takes long, is still loading,
 * and one that ends on the fetch alone is cut off. Near misses: the fetch
 * negated or skipped, the past tense, a fetch of something that is no
 * model, and the object five words after the fetch word begin nothing. */
Test(generic, the_model_fetched_in_words)
{
	expect_start("Downloading detection model, please wait. This may take several minutes depending upon your "
		     "network connection.\n",
		     "loading", "-");
	expect_start("CUDA not available - defaulting to CPU.\nFetching model weights from the hub\n", "cut-off", "-");
	expect_start("Loading model...\nDownloading recognition model, please wait.\n", "loading", "-");
	expect_start("Downloading the big detection model, please wait.\n", "loading", "-"); /* four words on */
	static const char *const none[] = {"Skipping downloading detection model, please wait.\n",
					   "Not downloading the detection weights, please wait.\n",
					   "Downloaded detection model, please wait.\n",
					   "Downloading the dataset index, please wait.\n",
					   "Downloading one two three four models, please wait.\n"};
	expect_no_start_each(none, sizeof none / sizeof none[0]);
	/* the load that follows the fetch completes the start */
	expect_start("Downloading detection model, please wait.\nmodel loaded in 2.5 s\n", "completed", "ok");
}

/* issue 23's twentieth round: a speech model at work on its input
 * (insanely-fast-whisper's `🤗 Transcribing... ━━━ 0:00:00`) after its
 * start began ran the model: completed. Near misses: the word inside
 * another (`Transcribingly`), in a sentence's middle, and with no start
 * before it. */
Test(generic, a_speech_model_transcribing)
{
	expect_start("C:\\w>insanely-fast-whisper --file-name a.wav --device-id 0\n"
		     "\xf0\x9f\xa4\x97 Transcribing... \xe2\x94\x81\xe2\x94\x81 0:00:00\n",
		     "completed", "-");
	expect_start("Loading whisper model large-v3\nTranscribing audio file a.wav\n", "completed", "-");
	expect_each("Loading whisper model large-v3\n",
		    (const char *const[]){"Transcribingly slow", "the model is Transcribing soon"}, 2, "cut-off",
		    "-");
	cr_expect_eq(nstarts_of("Transcribing audio file a.wav\n"), 0);
}

/* issue 23's twenty-first round: a program that said it starts (boot
 * line, no start opened since), then its interpreter's failure to run it
 * (`python.exe: can't open file '...main_api.py': [Errno 2] No such file
 * or directory`) or an exception line: that start failed. Near misses: an
 * exception the program says it caught and went past (no failure said
 * before the error), a warning's errno, and a wait that retries after it
 * leave it cut off. */
Test(generic, a_failure_after_a_program_said_it_starts)
{
	static const char boot[] = "Starting the StableProjectorz API server, please wait...\n";
	expect_each(boot,
		    (const char *const[]){"C:\\v\\python.exe: can't open file 'C:\\\\main_api.py': [Errno 2] No such "
					  "file or directory",
					  "FileNotFoundError: [Errno 2] No such file or directory: 'x.bin'",
					  "ERROR: could not bind the port: [Errno 98] Address already in use"},
		    3, "failed", "-");
	expect_each(boot,
		    (const char *const[]){"exception in config_file_change_fp32: [Errno 2] No such file or directory",
					  "WARNING: failed to read x: [Errno 2] No such file or directory",
					  "Retrying: failed to connect: [Errno 111] Connection refused",
					  "failed to reach it: [Errno ] Connection refused",
					  "DEBUG: failed to read x: [Errno 2] No such file or directory"},
		    5, "cut-off", "-");
	/* at info, as a program that stamps every line `I` says its end */
	expect_start("Loading model /m/x.gguf\nINFO: unable to open /m/x.gguf: [Errno 2] No such file or directory\n",
		     "failed", "-");
	/* an open start fails by the errno failure too, with no boot line */
	expect_start("Loading model /m/x.gguf\nunable to open /m/x.gguf: [Errno 13] Permission denied\n", "failed",
		     "-");
}

/* issue 23's twenty-first round: a fetch's bar that lost its glyphs and
 * pipes (`tokenizer_config.json: 100% 251/251 [00:00<00:00, 3.97MB/s]`)
 * is still a bar: the fetch under way, a start begun and cut off. Near
 * misses: the same figures with no rate in bytes, and a rate in prose. */
Test(generic, a_fetch_bar_without_its_glyphs)
{
	expect_start("tokenizer_config.json: 100% 251/251 [00:00<00:00, 3.97MB/s]\n", "cut-off", "-");
	expect_start("vocab.txt: 45% 104/231 [00:01<00:02, 96.1kB/s]\n", "loading", "-");
	static const char *const none[] = {"tokenizer_config.json: 100% 251/251 [00:00<00:00]\n",
					   "the link gave 3.97MB/s] at best\n"};
	expect_no_start_each(none, sizeof none / sizeof none[0]);
}

/* issue 23's twenty-first round: a wait asked for (`Please wait for vllm
 * server to become ready...`, OCRFlux's poller) is no ready: the start
 * under way, and loading where the paste ends on its "please wait". Near
 * misses: the server's own `vllm server is ready.` is its ready, and a
 * wait with no "please wait" ends cut off. */
Test(generic, a_wait_asked_for_is_no_ready)
{
	expect_start("Attempt 212: Please wait for vllm server to become ready...\n", "loading", "-");
	expect_start("starting engine\nwait for the server to be ready\n", "cut-off", "-");
	expect_start("starting engine\nvllm server is ready.\n", "completed", "-");
	expect_each("starting engine\n",
		    (const char *const[]){"the model is about to become ready", "the model has yet to be ready",
					  "wait for the model ready"},
		    3, "cut-off", "-");
}

/* issue 23's twenty-second round: tqdm's counts in its scaled units
 * (`Zonos-v0.1-hybrid-Hebrew.safetensors:  95% 3.14G/3.30G [02:40<00:08,
 * 19.7MB/s]`, a hub's fetch of a file) are a bar's counts: a fetch under
 * way, loading where the paste ends; at N/N no longer. A label that is a
 * file's name alone names what moves, a fetch, whatever words the name
 * holds (`ggml-model-i2_s.gguf`), where a label in words that load is a
 * load's bar. Near misses: counts whose numbers do not end where the
 * slash is, and a done count over the total. */
Test(generic, a_bars_counts_in_scaled_units)
{
	expect_start("Zonos-v0.1-hybrid-Hebrew.safetensors:  95% 3.14G/3.30G [02:40<00:08, 19.7MB/s]\n", "loading", "-");
	expect_start("vocab.txt: 45% 104k/231k [00:01<00:02, 96.1kB/s]\n", "loading", "-");
	expect_start("q4_0.gguf: 100%|##########| 1.92G/1.92G [03:37<00:00, 9.4MB/s]\n", "cut-off", "-");
	/* a load's bar in words, scaled: its time is the weights' own load
	 * (217 s: over 100 s, slow) */
	expect_start("Loading model weights: 100%|##########| 1.92G/1.92G [03:37<00:00, 9.4MB/s]\n", "completed", "slow");
	static const char *const none[] = {"x.bin: 45% 3.1.4G/3.30G [02:40<00:08, 19.7MB/s]\n",
					   "x.bin: 45% 3.40G/3.30G [02:40<00:08, 19.7MB/s]\n"};
	expect_no_start_each(none, sizeof none / sizeof none[0]);
}

/* issue 23's twenty-second round: a fetch of the model before its engine
 * says anything (localGPT's `Downloading (...)q4_0.bin: 100%|...| 3.79G/
 * 3.79G [05:25<00:00, ...]`, then ggml's `Device 0: ...`) is the same
 * process: the engine's first line after the fetch opens no second start,
 * as after a load it would. */
Test(generic, the_engine_after_its_models_fetch_is_one_start)
{
	cr_expect_eq(nstarts_of("Loading Model: TheBloke/Llama-2-7B-Chat-GGML\n"
				"Downloading (...)q4_0.bin: 100%|##########| 3.79G/3.79G [05:25<00:00, 11.6MB/s]\n"
				"ggml_init_cublas: found 1 CUDA devices:\n"
				"  Device 0: NVIDIA GeForce RTX 2080 Ti, compute capability 7.5\n"),
		     1);
}

/* issue 23's twenty-second round: a part of the model loaded by its
 * number (Petals' `Loaded enoch/llama-65b-hf block 73, <All keys matched
 * successfully>`) is the load under way: loading where the paste ends.
 * Near misses: the part's word with no number, a count of parts, a
 * part about to load, and the load of something named like a part. */
Test(generic, a_part_loaded_by_its_number)
{
	expect_start("Loaded enoch/llama-65b-hf block 73, <All keys matched successfully>\n", "loading", "-");
	expect_start("starting engine\nloaded layer 12\n", "loading", "-");
	expect_each("starting engine\n",
		    (const char *const[]){"loaded block cache", "loaded 12 layers", "loaded blockchain 7",
					  "loaded kv_block 7", "loaded block", "loaded block, then more",
					  "loading block 74 and loaded, ok", "loaded layer 3x3 kernels"},
		    8, "cut-off", "-");
}

/* issue 23's twenty-second round: a probe of the server's state that
 * failed with no reason after it (Riva's `error: unable to get server
 * status: failed`, the rest of the line cut off) is a wait on the server,
 * as with its reason (`Connection refused`); near misses: a probe that
 * gave up, and a failure of anything else, end the start. */
Test(generic, a_probe_that_failed_with_no_reason)
{
	cr_expect(tr_probe_not_up("error: unable to get server status: failed", 42));
	cr_expect(tr_probe_not_up("health check failed.", 20));
	cr_expect(!tr_probe_not_up("health check failed, giving up", 30));
	cr_expect(!tr_probe_not_up("health check timed out after 20 s, failed", 41)); /* ran out of its time */
	cr_expect(!tr_probe_not_up("unable to get server status: unfailed", 37));
	expect_start("loading: riva-punctuation-en-US:1\nE0324 18:13:59.729030 21 x.cc:286] error: unable to get server "
		     "status: failed\n",
		     "cut-off", "-");
	expect_start("loading: riva-punctuation-en-US:1\nE0324 18:13:59.729030 21 x.cc:286] error: unable to open the "
		     "model: failed\n",
		     "failed", "-");
	/* the probe's line cut at the input's end, no newline after it: its
	 * reason may be what was lost, a wait; with its newline, an answer
	 * that is no "not up" fails the start */
	expect_start("loading: riva-punctuation-en-US:1\nE0324 18:13:59.729030 21 x.cc:286] error: unable to get server "
		     "status: f",
		     "cut-off", "-");
	expect_start("loading: riva-punctuation-en-US:1\nE0324 18:13:59.729030 21 x.cc:286] error: unable to get server "
		     "status: f\n",
		     "failed", "-");
	/* a cut last line that is no probe's, or a probe's that gave up,
	 * still fails it */
	expect_start("loading: riva-punctuation-en-US:1\nE0324 18:13:59.729030 21 x.cc:286] error: unable to open the "
		     "model: f",
		     "failed", "-");
	expect_start("loading: riva-punctuation-en-US:1\nE0324 18:13:59.729030 21 x.cc:286] error: server status check "
		     "failed, giving up: f",
		     "failed", "-");
}

/* issue 23's twenty-second round: the program's own word that its launch
 * failed (SadTalker's launcher: `Running on local URL`, gradio's launch()
 * raising, then `Launch unsuccessful. Exiting.`) fails the start, after a
 * ready line too. Near misses: a guess about it, and a launch of
 * something else that went well. */
Test(generic, the_launch_said_to_fail)
{
	expect_start("Running on local URL:  http://127.0.0.1:7861\nLaunch unsuccessful. Exiting.\n", "failed", "-");
	expect_each("loading model /m/x.gguf\n",
		    (const char *const[]){"startup failed: no device", "failed to launch the server"}, 2, "failed", "-");
	expect_each("loading model /m/x.gguf\n",
		    (const char *const[]){"if the launch failed, see the docs", "launch succeeded"}, 2, "cut-off", "-");
	expect_start("Running on local URL:  http://127.0.0.1:7861\nif startup failed, check the port\n", "completed", "-");
}

/* seed 20261218's survivor at recognise_generic.c:170 (the level read
 * before its key): a structured line's level key that the cleaner leaves
 * in the text (`caller=x.go:1 lvl=err msg="..."`) gives the line's level,
 * read after the key: at error a failure said ends the load; at info the
 * same words do not. */
Test(generic, a_level_key_inside_the_line)
{
	expect_start("loading model /m/x.gguf\ncaller=x.go:1 lvl=err msg=\"failed to map the device\"\n", "failed", "-");
	expect_start("loading model /m/x.gguf\ncaller=x.go:1 severity=ERROR msg=\"failed to map the device\"\n", "failed",
		     "-");
	expect_start("loading model /m/x.gguf\ncaller=x.go:1 lvl=info msg=\"failed to map the device\"\n", "cut-off",
		     "-");
}

/* issue 23's twenty-third round: a launcher's word that its step's
 * process failed, with no status given (horde-worker's
 * `download_models.py exited with error code. Aborting`), ends the start:
 * failed. Near misses: an exit that went well, and the words in a
 * question. */
Test(generic, a_step_that_exited_with_error)
{
	expect_each("Loading CLIP model ViT-L-14/openai...\n",
		    (const char *const[]){"download_models.py exited with error code. Aborting",
					  "the worker exited with an error"},
		    2, "failed", "-");
	expect_each("Loading CLIP model ViT-L-14/openai...\n",
		    (const char *const[]){"download_models.py exited without error", "if it exited with errors, look"},
		    2, "cut-off", "-");
}

/* issue 23's twenty-third round: the start under way said to be stuck
 * (the reporter's `It's stuck here all the time` after a load line, on
 * that line or the next) ends the paste with its step under way:
 * loading. Near misses: not stuck, a guess, a recognised line of the
 * start after it, and a start already up. */
Test(generic, a_start_said_to_be_stuck)
{
	expect_start("Loading wd14-vit-v2-git model file from Smilingwolf/x \"It's stuck here all the time\"\n", "loading",
		     "-");
	expect_start("Loading model /m/x.gguf\nit hangs here forever\n", "loading", "-");
	expect_each("Loading model /m/x.gguf\n",
		    (const char *const[]){"it is not stuck, just slow", "it may be stuck here", "no longer stuck"}, 3,
		    "cut-off", "-");
	/* a failure before it keeps the start failed */
	expect_start("Loading model /m/x.gguf\nerror loading model: bad magic\nit hangs here forever\n", "failed", "-");
	expect_start("Loading model /m/x.gguf\nit hangs here forever\nmodel loaded in 3.0 s\n", "completed", "ok");
	expect_start("Loading model /m/x.gguf\nmodel loaded in 3.0 s\nthen it hangs\n", "completed", "ok");
}

/* issue 23's twenty-third round: llama.cpp's context lines between its
 * two names for them (`llama_init_from_model:`, `llama_kv_cache_init:`,
 * early 2025; llama-box's instance log) open its start, a paste that
 * ends there cut off; its line that says the step failed (`llama_kv_
 * cache_init: failed to allocate buffer for kv cache`) is the failure of
 * the start under way, no second start; a launcher's `Error:` tag on its
 * engine's lines is no failure. */
Test(generic, llamacpp_context_lines_and_their_failure)
{
	expect_start("0.00.319.935 I llama_init_from_model: n_seq_max     = 1\n"
		     "0.00.320.603 I llama_kv_cache_init:      CUDA0 KV buffer size =    72.00 MiB\n",
		     "cut-off", "-");
	cr_expect_eq(nstarts_of("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 204800.00 MiB on device 0: "
				"cudaMalloc failed: out of memory\n"
				"llama_kv_cache_init: failed to allocate buffer for kv cache\n"),
		     1);
	expect_start("2024-06-22T11:40:42.013Z [CORTEX]::Error: llm_load_tensors: offloading 32 repeating layers to GPU\n",
		     "cut-off", "-");
}

/* seed 20261218's survivor at recognise_generic.c:241 (the blanks before
 * "Killed" looked for before the line's start): a lone `Killed` behind a
 * prefix the cleaner took off (`[12:00:01] Killed`, the prefix's space
 * right before the line's text) is the load killed, as it is alone. */
Test(generic, a_lone_killed_behind_a_prefix)
{
	static const char *const logs[] = {"Loading model /m/x.gguf\n[12:00:01] Killed\n",
					   "Loading model /m/x.gguf\n2024-01-01 12:00:01 Killed\n",
					   "Loading model /m/x.gguf\nKilled\n"};
	for (size_t i = 0; i < 3; i++) {
		struct lsc_triage *t = trun_text(logs[i]);
		cr_assert(t);
		cr_expect_eq(trun_sev_of(t, "oom-killed"), LSC_TRIAGE_FAIL, "%s", logs[i]);
		lsc_triage_free(t);
	}
}
