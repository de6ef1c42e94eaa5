/*
 * Verdict semantics (docs/triage.md, Verdicts): every start gets an outcome
 * and a speed before any cause; `healthy` only for a completed start at a
 * speed in range; a slow completed start with no known cause is slow-start
 * (warn); a failed one always has a fail quoting its failure line; a start
 * with no figures and no outcome is not-evaluated (exit 3). The six cases
 * of issue 23 are here, each as a test, with the thresholds on both sides.
 * Expected values come from the logs' own figures, worked out by hand.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/triage_run.h"

static struct lsc_triage_start_info start_of(struct lsc_triage *t, size_t i)
{
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, i, &si) == 0, "no start %zu (the tool found %zu)", i, lsc_triage_nstarts(t));
	return si;
}

/* Rendered output as a string (free it). */
static char *rendered(struct lsc_triage *t, enum lsc_triage_fmt fmt)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	cr_assert(f);
	cr_assert(lsc_triage_render(t, fmt, f) == 0);
	fclose(f);
	return buf;
}

/* Issue 23 case 1: vLLM, 32.89 GiB in 313.87 s = 0.10 GiB/s. */
Test(outcome, vllm_slow_load_is_slow_start_not_healthy)
{
	struct lsc_triage *t = trun_text(
		"INFO 10-16 15:30:00 [api_server.py:1000] vLLM API server version 0.10.1\n"
		"(EngineCore_0 pid=10) INFO 10-16 15:35:12 [default_loader.py:267] Loading weights took 312.50 seconds\n"
		"(EngineCore_0 pid=10) INFO 10-16 15:35:13 [gpu_model_runner.py:2653] Model loading took 32.8894 GiB "
		"and 313.87 seconds\n"
		"(APIServer pid=9) INFO:     Application startup complete.\n");
	cr_assert(t);
	struct lsc_triage_start_info si = start_of(t, 0);
	cr_expect_str_eq(si.outcome, "completed");
	cr_expect_str_eq(si.speed, "slow");
	cr_expect(si.gibps > 0.10 && si.gibps < 0.11, "rate %f, 32.8894 / 313.87 = 0.1048", si.gibps);
	cr_expect_eq(trun_sev_of(t, "healthy"), -1);
	cr_expect_eq(trun_sev_of(t, "slow-start"), LSC_TRIAGE_WARN);
	cr_expect_eq(lsc_triage_exit_code(t), 1);
	char *md = rendered(t, LSC_TRIAGE_MD);
	cr_expect(!strstr(md, "`healthy`"), "the Markdown table says healthy:\n%s", md);
	cr_expect(strstr(md, "313.9 s") || strstr(md, "313.87"), "the time is quoted:\n%s", md);
	free(md);
	lsc_triage_free(t);
}

/* Issue 23 case 2: llama.cpp, 39.59 GiB in 284.53 s = 0.14 GiB/s. */
Test(outcome, llamacpp_slow_load_with_file_size)
{
	struct lsc_triage *t = trun_text("llama_model_loader: loaded meta data with 40 key-value pairs\n"
					 "print_info: file size   = 39.59 GiB (4.85 BPW)\n"
					 "load_tensors: offloaded 81/81 layers to GPU\n"
					 "llama_perf_context_print:        load time =  284530.11 ms\n");
	cr_assert(t);
	struct lsc_triage_start_info si = start_of(t, 0);
	cr_expect_str_eq(si.outcome, "completed");
	cr_expect_str_eq(si.speed, "slow");
	cr_expect(si.gib > 39.58 && si.gib < 39.60, "size %f, the file size", si.gib);
	cr_expect(si.load_s > 284.5 && si.load_s < 284.6, "time %f", si.load_s);
	cr_expect_eq(trun_sev_of(t, "slow-start"), LSC_TRIAGE_WARN);
	cr_expect_eq(trun_sev_of(t, "healthy"), -1);
	lsc_triage_free(t);
}

/* The thresholds on both sides: 59 s is fine whatever the size; 61 s at
 * 0.5 GiB/s is slow; 61 s at 1.2 GiB/s is fine; with no size, llama.cpp's
 * load time (the weights') of 99 s is not judged and 101 s is slow. */
static const char *speed_for(const char *gib, const char *secs, char *outcome)
{
	char log[512];
	if (gib)
		snprintf(log, sizeof log,
			 "INFO 10-16 15:30:00 [api_server.py:1] vLLM API server version 0.10.1\n"
			 "INFO 10-16 15:31:00 [gpu_model_runner.py:2653] Model loading took %s GiB and %s seconds\n"
			 "INFO:     Application startup complete.\n",
			 gib, secs);
	else
		snprintf(log, sizeof log,
			 "llama_model_loader: loaded meta data with 40 key-value pairs\n"
			 "llama_perf_context_print:        load time =  %s ms\n",
			 secs);
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si = start_of(t, 0);
	static char sp[8];
	snprintf(sp, sizeof sp, "%s", si.speed);
	snprintf(outcome, 16, "%s", si.outcome);
	lsc_triage_free(t);
	return sp;
}

Test(outcome, speed_thresholds_both_sides)
{
	char o[16];
	cr_expect_str_eq(speed_for("100.0", "59.0", o), "ok");
	cr_expect_str_eq(o, "completed");
	cr_expect_str_eq(speed_for("30.5", "61.0", o), "slow");
	cr_expect_str_eq(speed_for("73.2", "61.0", o), "ok");
	cr_expect_str_eq(speed_for("60.0", "61.0", o), "slow"); /* 0.98 GiB/s */
	/* llama.cpp's load time is the weights' own: slow from 100 s with no size */
	cr_expect_str_eq(speed_for(NULL, "99000", o), "-");
	cr_expect_str_eq(speed_for(NULL, "101000", o), "slow");
	cr_expect_str_eq(speed_for(NULL, "59000", o), "ok");
}

/* The speed of a start whose one figure is the line @fig with @secs in it. */
static const char *speed_of_line(const char *fig, const char *secs)
{
	char log[512];
	snprintf(log, sizeof log, "Loading model from /models/m\n");
	size_t k = strlen(log);
	snprintf(log + k, sizeof log - k, fig, secs);
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si = start_of(t, 0);
	static char sp[8];
	snprintf(sp, sizeof sp, "%s", si.speed);
	lsc_triage_free(t);
	return sp;
}

/* With no size, the weights' own load summary is slow from 100 s (a
 * 100 GiB read at the 1 GiB/s floor); a figure that is an engine's init
 * (profile, KV cache, warmup) or a time to start only from 300 s. */
Test(outcome, weights_load_without_size_slow_from_100_s)
{
	static const char *const weights[] = {"Model loaded in %s s (create model: 0.6s).\n",
					      "Loaded the model in %s seconds.\n",
					      "Moving model(s) has taken %s seconds\n",
					      "Loading weights took %s seconds\n"};
	for (size_t i = 0; i < sizeof(weights) / sizeof(weights[0]); i++) {
		cr_expect_str_eq(speed_of_line(weights[i], "99.0"), "-", "%s", weights[i]);
		cr_expect_str_eq(speed_of_line(weights[i], "101.0"), "slow", "%s", weights[i]);
		cr_expect_str_eq(speed_of_line(weights[i], "59.0"), "ok", "%s", weights[i]);
	}
	static const char *const other[] = {"init engine (profile, create kv cache, warmup model) took %s seconds\n",
					    "Graph capturing for the model took %s seconds\n",
					    "Server started in %s seconds\n"};
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		cr_expect_str_eq(speed_of_line(other[i], "101.0"), "-", "%s", other[i]);
		cr_expect_str_eq(speed_of_line(other[i], "299.0"), "-", "%s", other[i]);
		cr_expect_str_eq(speed_of_line(other[i], "301.0"), "slow", "%s", other[i]);
	}
}

/* Issue 23 case 3: RLIMIT_MEMLOCK unlimited, mlock ok, 0 failures. */
Test(outcome, memlock_words_read_by_meaning)
{
	static const char *const fine[] = {
		"RLIMIT_MEMLOCK: unlimited\n",
		"note: RLIMIT_MEMLOCK is unlimited here, mlock worked\n",
		"mlock: ok, 0 failures\n",
		"note pin: 1.00 GiB with mlock in 1 segments of 1.00 GiB: 0.094 s (0.094 s/GiB), 0 retries, 0 failures\n",
	};
	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
		char log[1024];
		snprintf(log, sizeof log,
			 "llama_model_loader: loaded meta data with 40 key-value pairs\n%s"
			 "llama_perf_context_print:        load time =    3312.48 ms\n",
			 fine[i]);
		struct lsc_triage *t = trun_text(log);
		cr_assert(t);
		cr_expect_eq(trun_sev_of(t, "memlock-limit"), -1, "memlock-limit from %s", fine[i]);
		cr_expect_eq(lsc_triage_exit_code(t), 0, "exit for %s", fine[i]);
		lsc_triage_free(t);
	}
	/* the other side: a refusal still fires */
	struct lsc_triage *t = trun_text("llama_model_loader: loaded meta data with 40 key-value pairs\n"
					 "warning: failed to mlock 18554585088-byte buffer (after previously locking 0 "
					 "bytes): Cannot allocate memory\n"
					 "Try increasing RLIMIT_MEMLOCK ('ulimit -l' as root).\n"
					 "llama_perf_context_print:        load time =    3312.48 ms\n");
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "memlock-limit"), LSC_TRIAGE_WARN);
	lsc_triage_free(t);
}

/* Issue 23 case 4: `ollama serve`: the server starts its runner, the runner
 * loads, the server says it started: one start, completed, no truncation. */
Test(outcome, ollama_server_and_runner_are_one_start)
{
	struct lsc_triage *t = trun_text(
		"time=2025-03-02T10:11:02.123Z level=INFO source=server.go:405 msg=\"starting llama server\" "
		"cmd=\"/usr/bin/ollama runner --model /root/.ollama/models/blobs/sha256-abc --ctx-size 8192\"\n"
		"time=2025-03-02T10:11:02.200Z level=INFO source=server.go:580 msg=\"waiting for llama runner to start "
		"responding\"\n"
		"ggml_cuda_init: found 1 CUDA devices:\n"
		"  Device 0: NVIDIA A100-SXM4-80GB, compute capability 8.0, VMM: yes\n"
		"llama_model_loader: loaded meta data with 30 key-value pairs and 292 tensors from /root/.ollama/models\n"
		"load_tensors: offloaded 33/33 layers to GPU\n"
		"time=2025-03-02T10:11:47.345Z level=INFO source=server.go:619 msg=\"llama runner started in 45.22 "
		"seconds\"\n");
	cr_assert(t);
	cr_expect_eq(lsc_triage_nstarts(t), 1, "starts: %zu", lsc_triage_nstarts(t));
	cr_expect_eq(trun_sev_of(t, "log-truncated"), -1);
	struct lsc_triage_start_info si = start_of(t, 0);
	cr_expect_str_eq(si.outcome, "completed");
	cr_expect_str_eq(si.speed, "ok");
	lsc_triage_free(t);
}

/* A failed start always has a fail quoting its failure line, even when the
 * cause is not one the triage knows. */
Test(outcome, failed_start_always_fails_with_its_line)
{
	struct lsc_triage *t = trun_text("INFO 10-16 15:30:00 [api_server.py:1] vLLM API server version 0.10.1\n"
					 "Loading safetensors checkpoint shards:  10% Completed | 1/10 [00:05<00:45]\n"
					 "Traceback (most recent call last):\n"
					 "  File \"/usr/lib/python3/site-packages/vllm/x.py\", line 12, in load\n"
					 "    raise ZeroDivisionError(\"weird\")\n"
					 "ZeroDivisionError: weird\n");
	cr_assert(t);
	struct lsc_triage_start_info si = start_of(t, 0);
	cr_expect_str_eq(si.outcome, "failed");
	cr_expect_eq(lsc_triage_exit_code(t), 2);
	int fail = 0, quoted = 0;
	for (size_t i = 0; i < lsc_triage_nfindings(t); i++) {
		struct lsc_triage_finding_info f;
		lsc_triage_finding(t, i, &f);
		if (f.severity == LSC_TRIAGE_FAIL) {
			fail = 1;
			quoted |= f.first_line == 6 || strstr(f.summary, "ZeroDivisionError") != NULL;
		}
	}
	cr_expect(fail && quoted, "a fail quoting the traceback's last exception line (line 6)");
	lsc_triage_free(t);
}

/* A start with no figures and no outcome: not-evaluated, exit 3; a start
 * stopped with Ctrl-C is not failed; a ready word about something else, or
 * negated, is not ready. */
Test(outcome, no_outcome_is_not_evaluated)
{
	struct lsc_triage *t = trun_text("INFO 10-16 15:30:00 [api_server.py:1] vLLM API server version 0.10.1\n"
					 "INFO 10-16 15:30:05 Ray cluster is ready\n"
					 "WARNING 10-16 16:00:05 model not ready after 30 minutes? still loading\n");
	cr_assert(t);
	struct lsc_triage_start_info si = start_of(t, 0);
	cr_expect(strcmp(si.outcome, "completed"), "outcome %s", si.outcome);
	cr_expect_eq(trun_sev_of(t, "healthy"), -1);
	lsc_triage_free(t);

	t = trun_text("INFO 10-16 15:30:00 [api_server.py:1] vLLM API server version 0.10.1\n"
		      "INFO 10-16 15:30:01 [model_runner.py:1] Starting to load model /m\n");
	cr_assert(t);
	si = start_of(t, 0);
	cr_expect_str_eq(si.outcome, "cut-off");
	cr_expect_str_eq(si.speed, "-");
	/* a start marker and nothing after it: not evaluated, or the log
	 * stopped (log-truncated); never healthy */
	cr_expect(trun_sev_of(t, "not-evaluated") == LSC_TRIAGE_INFO || trun_sev_of(t, "log-truncated") == LSC_TRIAGE_WARN);
	cr_expect_eq(trun_sev_of(t, "healthy"), -1);
	cr_expect_neq(lsc_triage_exit_code(t), 0);

	lsc_triage_free(t);
	t = trun_text("a settings paste:\n$ cat /sys/kernel/mm/transparent_hugepage/enabled\nalways [madvise] never\n");
	cr_assert(t);
	si = start_of(t, 0);
	cr_expect_str_eq(si.outcome, "none");
	cr_expect_eq(trun_sev_of(t, "not-evaluated"), LSC_TRIAGE_INFO);
	cr_expect_eq(lsc_triage_exit_code(t), 3);
	lsc_triage_free(t);

	t = trun_text("[strata] starting engine\n[strata] still starting (8 s) - please wait ...\n"
		      "^CTraceback (most recent call last):\n  File \"server.py\", line 305, in wait_ready\n"
		      "KeyboardInterrupt\n");
	cr_assert(t);
	si = start_of(t, 0);
	cr_expect(strcmp(si.outcome, "failed") && strcmp(si.outcome, "completed"), "Ctrl-C: outcome %s", si.outcome);
	lsc_triage_free(t);
}

/* A probe is not a start (issue 29). */
Test(outcome, probe_is_not_a_start)
{
	struct lsc_triage *t = trun_text(
		"[loadscope/1] ok probe: nothing in the way of a 1.00 GiB pinned arena | run=7a99188f t_s=0.001\n");
	cr_assert(t);
	struct lsc_triage_start_info si = start_of(t, 0);
	cr_expect_str_eq(si.outcome, "none");
	cr_expect_eq(trun_sev_of(t, "not-a-start"), LSC_TRIAGE_INFO);
	cr_expect_eq(trun_sev_of(t, "healthy"), -1);
	lsc_triage_free(t);
}

/* Issue 27: NUMA balancing on a model of 4-8 GiB warns; under 4 GiB not. */
Test(outcome, numa_balancing_size_threshold_both_sides)
{
	static const struct { const char *gib; int sev; } c[] = {{"3.90", -1}, {"4.10", LSC_TRIAGE_WARN},
								  {"7.50", LSC_TRIAGE_WARN}};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char log[512];
		snprintf(log, sizeof log,
			 "INFO 10-16 15:30:00 [api_server.py:1] vLLM API server version 0.10.1\n"
			 "WARNING: NUMA balancing is enabled, this is known to degrade performance\n"
			 "INFO 10-16 15:30:10 [gpu_model_runner.py:2653] Model loading took %s GiB and 9.5 seconds\n"
			 "INFO:     Application startup complete.\n",
			 c[i].gib);
		struct lsc_triage *t = trun_text(log);
		cr_assert(t);
		cr_expect_eq(trun_sev_of(t, "numa-balancing"), c[i].sev, "numa-balancing at %s GiB", c[i].gib);
		lsc_triage_free(t);
	}
}

/* Issue 27: a start that reached loading and then died, then the engine's
 * restart: two starts, the first not merged into the second. */
Test(outcome, died_while_loading_then_restart_is_two_starts)
{
	struct lsc_triage *t = trun_text("llama_model_loader: loaded meta data with 40 key-value pairs\n"
					 "load_tensors: loading model tensors, this can take a while... (mmap = true)\n"
					 "load_tensors: offloaded 20/81 layers to GPU\n"
					 "llama_model_loader: loaded meta data with 40 key-value pairs\n"
					 "load_tensors: loading model tensors, this can take a while... (mmap = true)\n"
					 "llama_perf_context_print:        load time =    3312.48 ms\n");
	cr_assert(t);
	cr_expect_eq(lsc_triage_nstarts(t), 2, "starts: %zu", lsc_triage_nstarts(t));
	struct lsc_triage_start_info si = start_of(t, 0);
	cr_expect(strcmp(si.outcome, "completed"), "the first start did not complete: %s", si.outcome);
	cr_expect_neq(lsc_triage_exit_code(t), 0);
	lsc_triage_free(t);
}

/* Issue 23 case 5: a paste wrapped at 80 columns keeps its figures: the
 * engine's 312.50 s, not the progress bar's rounded 05:10; the refusal's
 * reason whole ("out of memory", not "out of me"). The other side: a line
 * of another width is not joined, nor a next line that opens a line. */
Test(outcome, wrapped_paste_keeps_its_figures)
{
	struct lsc_triage *t =
		trun_text("INFO 10-16 15:30:00 [api_server.py:1] vLLM API server version 0.10.1\n"
			  "Loading safetensors checkpoint shards: 100% Completed | 4/4 [05:10<00:00, 77.5s/it]\n"
			  "(EngineCore_0 pid=10) INFO 10-16 15:35:12 [default_loader.py:267] Loading weight\n"
			  "s took 312.50 seconds\n");
	cr_assert(t);
	struct lsc_triage_start_info si = start_of(t, 0);
	cr_expect(si.load_s > 312.4 && si.load_s < 312.6, "the load read %f s, the engine says 312.50", si.load_s);
	lsc_triage_free(t);

	t = trun_text("llama_model_loader: loaded meta data with 40 key-value pairs\n"
		      "ggml_cuda_host_malloc: failed to allocate 512.00 MiB of pinned memory: out of me\n"
		      "mory\n");
	cr_assert(t);
	int found = 0;
	for (size_t i = 0; i < lsc_triage_nfindings(t); i++) {
		struct lsc_triage_finding_info f;
		lsc_triage_finding(t, i, &f);
		if (!strcmp(f.id, "pinned-alloc-failed"))
			found = strstr(f.summary, "(out of memory)") != NULL ? 1 : -1;
	}
	cr_expect_eq(found, 1, "the wrapped reason is read whole");
	lsc_triage_free(t);

	/* 79 columns: not a wrap width; the next line stays its own */
	t = trun_text("llama_model_loader: loaded meta data with 40 key-value pairs\n"
		      "ggml_cuda_host_malloc: failed to allocate 512.00 MiB of pinned memory: out of m\n"
		      "emory\n");
	cr_assert(t);
	for (size_t i = 0; i < lsc_triage_nfindings(t); i++) {
		struct lsc_triage_finding_info f;
		lsc_triage_finding(t, i, &f);
		if (!strcmp(f.id, "pinned-alloc-failed"))
			cr_expect(!strstr(f.summary, "out of memory"), "a 79-column line was joined: %s", f.summary);
	}
	lsc_triage_free(t);
}

/* Issue 22 item 12: a failed start after the first 262,144 findings (which
 * are only counted past that) still makes the exit status 2; the other
 * side: the same log without it exits 0. */
Test(outcome, failure_past_the_finding_store_still_fails, .timeout = 300)
{
	static const char ok[] = "llama_model_loader: loaded meta data with 1 key-value pairs\n"
				 "llama_perf_context_print:        load time =      10.00 ms\n";
	static const char bad[] = "llama_model_loader: loaded meta data with 1 key-value pairs\n"
				  "llama_model_load: error loading model: read error: Invalid argument\n";
	size_t n = (1u << 18) + 16;
	for (int with_fail = 0; with_fail < 2; with_fail++) {
		struct lsc_triage *t = lsc_triage_new(NULL);
		cr_assert(t);
		for (size_t i = 0; i < n; i++)
			lsc_triage_feed(t, ok, sizeof(ok) - 1);
		if (with_fail)
			lsc_triage_feed(t, bad, sizeof(bad) - 1);
		cr_expect_eq(lsc_triage_exit_code(t), with_fail ? 2 : 0, "exit with%s the failed start",
			     with_fail ? "" : "out");
		lsc_triage_free(t);
	}
}

/* Each log's first start has its outcome. */
struct log_outcome {
	const char *log, *outcome;
};

static void expect_outcomes(const struct log_outcome *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct lsc_triage *t = trun_text(c[i].log);
		cr_assert(t);
		struct lsc_triage_start_info si = start_of(t, 0);
		cr_expect_str_eq(si.outcome, c[i].outcome, "%s", c[i].log);
		lsc_triage_free(t);
	}
}

/* A start whose last recognised line begins a step it says takes long
 * ("this can take a while...", "please wait ...") is still loading where
 * the paste ends, also after a later line of the same step (its function's
 * name before ": "); a recognised line of another step, or a load summary,
 * ends that (cut off, completed). */
Test(outcome, step_said_to_take_long_is_loading_at_the_end)
{
	static const struct log_outcome c[] = {
		{"engine: loading model weights from /m - please wait ...\n", "loading"},
		{"load_tensors: loading model tensors, this can take a while... (mmap = true)\n"
		 "load_tensors: skipping 456 vision/mtp tensors\n",
		 "loading"},
		/* near misses */
		{"engine: loading model weights from /m\n", "cut-off"},
		{"load_tensors: loading model tensors, this can take a while... (mmap = true)\n"
		 "llama_context: n_ctx = 4096\n",
		 "cut-off"},
		{"engine: loading model weights from /m - please wait ...\nengine: model loaded in 3.0 s\n", "completed"},
	};
	expect_outcomes(c, sizeof c / sizeof c[0]);
}

/* issue 23's twenty-first round: a load or a fetch that counts its own
 * share in words (Jarvis' `Downloading model... 7%`, the paste's last
 * line) is under way where the paste ends: loading. Near misses: 100 %,
 * a share the line only reports (no load or fetch word), a share that is
 * not the line's last figure, and one glued to a word leave it cut off;
 * a line of another step after the share ends that step. */
Test(outcome, a_share_counted_in_words_is_loading_at_the_end)
{
	static const struct log_outcome c[] = {
		{"Loading model...\n  Downloading model... 2%\n  Downloading model... 7%\n", "loading"},
		{"Initializing TTS engine (piper)...\nLoading model weights 45.5 %\n", "loading"},
		{"Loading checkpoint shards (99%)\n", "loading"},
		/* near misses */
		{"Loading model...\n  Downloading model... 100%\n", "cut-off"},
		{"Loading model /m/x.gguf\nloading: 45% of memory used by the page cache, 3 GiB\n", "cut-off"},
		{"Loading model /m/x.gguf\nmemory in use 45%\n", "cut-off"},
		{"Loading model /m/x.gguf\nLoading model... 45%\nengine: model loaded in 3.0 s\n", "completed"},
		{"Loading model /m/x.gguf\nLoading model x12%\n", "cut-off"},
	};
	expect_outcomes(c, sizeof c / sizeof c[0]);
}

/* seed 20261218's survivor at verdict.c:244 (the projection's basis not
 * said): a slow-start on an unfinished start says what its time is, as
 * the Verdicts table tells them apart, since a projection is no time the
 * log printed: the whole load at its bar's pace (6 of 19 shards in 1:42,
 * 323 s), the whole load at its progress rate (0.07 in 67 s), the time so
 * far by its clocks (330 s). */
Test(outcome, a_slow_unfinished_start_says_what_its_time_is)
{
	static const struct {
		const char *log, *basis;
	} c[] = {
		{"Loading checkpoint shards:  32%|###2      | 6/19 [01:42<03:47, 17.50s/it]\n",
		 "(whole load at its bar's pace)"},
		{"time=2024-07-21T09:37:04.768Z level=DEBUG msg=\"weights load progress 0.01\"\n"
		 "time=2024-07-21T09:38:11.808Z level=DEBUG msg=\"weights load progress 0.08\"\n",
		 "(whole load at its progress rate)"},
		{"2024-03-01 20:17:58 Loading weights from /m/x.safetensors\n2024-03-01 20:23:28 still here\n",
		 "(time so far)"},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct lsc_triage *t = trun_text(c[i].log);
		cr_assert(t);
		struct lsc_triage_finding_info f;
		int found = 0;
		for (size_t k = 0; lsc_triage_finding(t, k, &f) == 0; k++)
			if (!strcmp(f.id, "slow-start")) {
				found = 1;
				cr_expect(strstr(f.summary, c[i].basis), "%s: %s", c[i].basis, f.summary);
			}
		cr_expect(found, "no slow-start for:\n%s", c[i].log);
		lsc_triage_free(t);
	}
}

/* An unfinished start is slow so far by its lines' own clocks when they
 * span minutes with no figure stated: "Loading weights" at 20:17:58 and
 * the last line at 20:23:28 are 330 s (over 300 s with no size: slow),
 * cut off. Near misses: 200 s is not judged; one clock on every line
 * (a prefix added by hand) says nothing. */
Test(outcome, unfinished_start_slow_by_its_clocks)
{
	struct lsc_triage *t = trun_text("2024-09-25 20:17:58 app-1  | Loading weights from /m/model.safetensors\n"
					 "2024-09-25 20:18:12 app-1  | Creating model from config: /m/config.yaml\n"
					 "2024-09-25 20:23:28 app-1  | Appl\n");
	cr_assert(t);
	struct lsc_triage_start_info si = start_of(t, 0);
	cr_expect_str_eq(si.outcome, "cut-off");
	cr_expect_str_eq(si.speed, "slow");
	cr_expect(si.load_s == 330.0, "so far %f", si.load_s);
	lsc_triage_free(t);
	static const char *const near[] = {
		"2024-09-25 20:17:58 app-1  | Loading weights from /m/model.safetensors\n"
		"2024-09-25 20:21:18 app-1  | Appl\n",
		"2024-09-25 20:17:58 app-1  | Loading weights from /m/model.safetensors\n"
		"2024-09-25 20:17:58 app-1  | Appl\n",
	};
	for (size_t i = 0; i < 2; i++) {
		t = trun_text(near[i]);
		cr_assert(t);
		si = start_of(t, 0);
		cr_expect_str_eq(si.outcome, "cut-off");
		cr_expect_str_eq(si.speed, "-", "%s", near[i]);
		lsc_triage_free(t);
	}
}

/* A load's progress fraction and its lines' clocks give the whole load's
 * time at that rate: 0.01 at 09:37:04.768 and 0.08 at 09:38:11.808 (the
 * logfmt "time=" field) are 67.04 s for 7%, 957.7 s for the whole: slow,
 * still loading; the same through ollama's shape. Near misses: 0.01 to
 * 0.50 in the same time (136.8 s for the whole, not judged without a
 * size), and the fractions without clocks. */
Test(outcome, progress_rate_projects_the_whole_load)
{
	static const char *const slow[] = {
		"time=2024-07-21T09:37:04.768Z level=DEBUG msg=\"weights load progress 0.01\"\n"
		"time=2024-07-21T09:38:11.808Z level=DEBUG msg=\"weights load progress 0.08\"\n",
		"time=2024-07-21T09:37:04.768Z level=DEBUG source=server.go:623 msg=\"model load progress 0.01\"\n"
		"time=2024-07-21T09:38:11.808Z level=DEBUG source=server.go:623 msg=\"model load progress 0.08\"\n",
	};
	for (size_t i = 0; i < 2; i++) {
		struct lsc_triage *t = trun_text(slow[i]);
		cr_assert(t);
		struct lsc_triage_start_info si = start_of(t, 0);
		cr_expect_str_eq(si.outcome, "loading", "%s", slow[i]);
		cr_expect_str_eq(si.speed, "slow", "%s", slow[i]);
		cr_expect(fabs(si.load_s - 67.04 / 0.07) < 1e-6, "whole %f", si.load_s);
		lsc_triage_free(t);
	}
	static const char *const near[] = {
		"time=2024-07-21T09:37:04.768Z level=DEBUG msg=\"weights load progress 0.01\"\n"
		"time=2024-07-21T09:38:11.808Z level=DEBUG msg=\"weights load progress 0.50\"\n",
		"level=DEBUG msg=\"weights load progress 0.01\"\nlevel=DEBUG msg=\"weights load progress 0.08\"\n",
	};
	for (size_t i = 0; i < 2; i++) {
		struct lsc_triage *t = trun_text(near[i]);
		cr_assert(t);
		struct lsc_triage_start_info si = start_of(t, 0);
		cr_expect_str_eq(si.outcome, "loading", "%s", near[i]);
		cr_expect_str_eq(si.speed, "-", "%s", near[i]);
		lsc_triage_free(t);
	}
}

/* An unfinished start's "still in read after N s" (the watchdog's line,
 * or an engine's heartbeat) is time so far: over 300 s with no size it is
 * slow so far, under it nothing is judged. */
Test(outcome, still_after_n_seconds_is_time_so_far)
{
	static const struct {
		const char *after;
		const char *speed;
	} c[] = {{"900.004", "slow"}, {"301.000", "slow"}, {"299.000", "-"}, {"20.000", "-"}};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char log[512];
		snprintf(log, sizeof log,
			 "[loadscope/2] start e: pid 1, loadscope 0.3.0, 2026-12-01T00:00:00Z\n"
			 "[loadscope/2] still in read after %s s\n",
			 c[i].after);
		struct lsc_triage *t = trun_text(log);
		cr_assert(t);
		struct lsc_triage_start_info si = start_of(t, 0);
		cr_expect_str_eq(si.outcome, "cut-off");
		cr_expect_str_eq(si.speed, c[i].speed, "still after %s s", c[i].after);
		if (!strcmp(c[i].speed, "slow"))
			cr_expect_float_eq(si.load_s, strtod(c[i].after, NULL), 1e-6);
		lsc_triage_free(t);
	}
}

/* A record `rich` laid out in columns at the terminal's width (here 70,
 * not a wrap width: rich pads to whatever the terminal is) keeps its
 * message whole: the location column cut, the continuations indented to
 * the message column joined: "Model loaded in" / "312.5 s" is the load's
 * 312.5 s; "ready" / "to batch requests." a ready line. The other side: a
 * continuation of another width, or a first line with no level column,
 * is not joined. */
Test(outcome, rich_columns_are_one_record)
{
	char log[1024];
	snprintf(log, sizeof log, "%-58s%12s\n%-70s\n%-58s%12s\n%-70s\n", "INFO     12:00:00 engine: Model loaded in",
		 "loader.py:12", "         312.5 s", "INFO     12:00:01 engine: ready", "batch.py:242",
		 "         to batch requests.");
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si = start_of(t, 0);
	cr_expect_str_eq(si.outcome, "completed");
	cr_expect(si.load_s > 312.4 && si.load_s < 312.6, "load %f", si.load_s);
	cr_expect_eq(lsc_triage_nlines(t), 4);
	lsc_triage_free(t);
	/* the continuation is not of the first line's width: not joined */
	snprintf(log, sizeof log, "%-58s%12s\n%-60s\n", "INFO     12:00:00 engine: Model loaded in", "loader.py:12",
		 "         312.5 s");
	t = trun_text(log);
	cr_assert(t);
	cr_expect(lsc_triage_start(t, 0, &si) != 0 || !(si.load_s > 312.4 && si.load_s < 312.6),
		  "joined a line of another width: %f", si.load_s);
	lsc_triage_free(t);
	/* no level column: not a rich record */
	snprintf(log, sizeof log, "%-58s%12s\n%-70s\n", "engine says: Model loaded in", "loader.py:12", "         312.5 s");
	t = trun_text(log);
	cr_assert(t);
	cr_expect(lsc_triage_start(t, 0, &si) != 0 || !(si.load_s > 312.4 && si.load_s < 312.6),
		  "joined without a level column: %f", si.load_s);
	lsc_triage_free(t);
	snprintf(log, sizeof log, "%-58s%12s\n%-70s\n", "INFO     12:00:01 engine: ready", "batch.py:242",
		 "         to batch requests.");
	t = trun_text(log);
	cr_assert(t);
	cr_expect_str_eq(start_of(t, 0).outcome, "completed");
	lsc_triage_free(t);
}

/* A load still under way, with its size and its progress on clocks: the
 * share gained, of the size, in the time the clocks span is the rate so
 * far. 8 % of 39.59 GiB in 1.005 s (3.15 GiB/s) is ok; the same share in
 * 60 s (0.05 GiB/s) is slow (the whole load at that rate, 750 s); with no
 * size the rate is unknown and so is the speed. */
static const char *progress_log(const char *second, int size)
{
	static char log[1024];
	snprintf(log, sizeof log,
		 "%s"
		 "time=2025-02-08T12:59:12.908+11:00 level=DEBUG source=server.go:603 msg=\"model load progress 0.01\"\n"
		 "time=2025-02-08T12:59:%s+11:00 level=DEBUG source=server.go:603 msg=\"model load progress 0.09\"\n",
		 size ? "llm_load_print_meta: model size       = 39.59 GiB (4.82 BPW)\n" : "", second);
	return log;
}

Test(outcome, progress_so_far_with_a_size_is_its_rate)
{
	struct lsc_triage *t = trun_text(progress_log("13.913", 1));
	cr_assert(t);
	struct lsc_triage_start_info si = start_of(t, 0);
	cr_expect_str_eq(si.outcome, "loading");
	cr_expect_str_eq(si.speed, "ok");
	cr_expect(si.gibps > 3.1 && si.gibps < 3.2, "rate %f, 0.08 * 39.59 / 1.005 = 3.15", si.gibps);
	lsc_triage_free(t);
	t = trun_text(progress_log("13.913", 0));
	si = start_of(t, 0);
	cr_expect_str_eq(si.speed, "-", "no size, no rate: %s", si.speed);
	lsc_triage_free(t);
}

Test(outcome, progress_so_far_slow_is_slow)
{
	/* 12:59:12.908 to 13:00:12.908: 60 s for 8 % */
	char log[1024];
	snprintf(log, sizeof log, "%s",
		 "llm_load_print_meta: model size       = 39.59 GiB (4.82 BPW)\n"
		 "time=2025-02-08T12:59:12.908+11:00 level=DEBUG source=server.go:603 msg=\"model load progress 0.01\"\n"
		 "time=2025-02-08T13:00:12.908+11:00 level=DEBUG source=server.go:603 msg=\"model load progress 0.09\"\n");
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si = start_of(t, 0);
	cr_expect_str_eq(si.speed, "slow");
	lsc_triage_free(t);
}

/* A shard bar still under way at the paste's end gives the weights' time
 * so far, not their whole load: with no size it is judged on the whole
 * load at the bar's own pace, slow from 300 s, never ok. 6/19 at 01:42 is
 * 102 * 19 / 6 = 323 s: slow; 61/99 at 02:37 is 157 * 99 / 61 = 254.8 s:
 * not judged (it was slow by the finished load's 100 s before). The same
 * bar finished (19/19 at 01:42) is the weights' whole load: 102 s, slow by
 * that 100 s. Through vLLM's shape and through the shared vocabulary (a
 * bar whose glyphs, pipes and rate a page stripped, "62% Completed 61/99
 * [02:37<01:36]", is still the bar). */
Test(outcome, bar_under_way_projects_at_its_pace)
{
	static const struct {
		const char *log, *outcome, *speed;
		double load_s;
	} c[] = {
		{"Loading checkpoint shards:  32%|###       | 6/19 [01:42<03:47, 17.50s/it]\n", "loading", "slow",
		 102.0 * 19 / 6},
		{"Loading safetensors checkpoint shards:  62% Completed | 61/99 [02:37<01:36,  1.59s/it]\n", "loading",
		 "-", NAN},
		{"Loading safetensors checkpoint shards: 62% Completed 61/99 [02:37<01:36]\n", "loading", "-", NAN},
		{"Loading safetensors checkpoint shards: 32% Completed 6/19 [01:42<03:47]\n", "loading", "slow",
		 102.0 * 19 / 6},
		{"Loading checkpoint shards: 100%|##########| 19/19 [01:42<00:00,  5.37s/it]\n", "completed", "slow",
		 102.0},
	};
	for (int off = 0; off < 2; off++)
		for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
			struct lsc_triage_opts o = {.source = "x"};
			struct lsc_triage *t = lsc_triage_new(&o);
			cr_assert(t);
			if (off)
				lsc_triage_engine_off(t, "vllm");
			lsc_triage_feed(t, c[i].log, strlen(c[i].log));
			lsc_triage_finish(t);
			struct lsc_triage_start_info si = start_of(t, 0);
			cr_expect_str_eq(si.outcome, c[i].outcome, "%s (vllm %s)", c[i].log, off ? "off" : "on");
			cr_expect_str_eq(si.speed, c[i].speed, "%s (vllm %s)", c[i].log, off ? "off" : "on");
			if (!isnan(c[i].load_s))
				cr_expect(fabs(si.load_s - c[i].load_s) < 1e-6, "%s: %f, want %f", c[i].log, si.load_s,
					  c[i].load_s);
			lsc_triage_free(t);
		}
}

/* issue 23's nineteenth round: a logcat line at a wrap width is not
 * continued by the next logcat line, whose month-day date opens it
 * ("09-26 23:40:57.089 ..."): the failure is read on its own line (2),
 * not glued to the load line before it. */
Test(outcome, logcat_date_opens_its_line_after_a_wrap_width)
{
	static const char l1[] = "09-26 23:40:56.583 22955 23001 D RNLlamaContext: Loading model from /data/x.gguf";
	cr_assert_eq(strlen(l1), 80);
	char log[512];
	snprintf(log, sizeof log, "%s\n09-26 23:40:57.089 22955 23001 E RNLlama: failed to load model /data/x.gguf\n", l1);
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	unsigned long at = 0;
	for (size_t i = 0; i < lsc_triage_nfindings(t); i++) {
		struct lsc_triage_finding_info f;
		lsc_triage_finding(t, i, &f);
		if (!strcmp(f.id, "load-failed"))
			at = f.first_line;
	}
	cr_expect_eq(at, 2, "the failure's line is %lu", at);
	lsc_triage_free(t);
}
