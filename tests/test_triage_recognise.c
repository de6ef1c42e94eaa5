/*
 * Description: the recognisers (tools/triage/recognise_*.c). This project's
 * own lines through the shared parser (human and JSON), the seed engine's
 * lines in each variant and with other numbers, units and spacing, strace of
 * the KFD ioctl, vmstat deltas, llama.cpp, ik_llama.cpp, vLLM and the Run:ai
 * streamer. Facts are checked through what the triage keeps after a start
 * closes: its phase-table summary, its --table row and its findings.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "triage/internal.h"
#include "triage/triage.h"
#include "helpers/triage_run.h"

static struct lsc_triage *run(const char *log)
{
	struct lsc_triage *t = trun_text(log);
	cr_assert_not_null(t);
	return t;
}

#define sev_of trun_sev_of

static const char *cfg(struct lsc_triage *t, size_t row, const char *key)
{
	cr_assert_lt(row, t->nrows);
	for (unsigned i = 0; i < t->rows[row].ncfg; i++)
		if (!strcmp(t->rows[row].cfg[i][0], key))
			return t->rows[row].cfg[i][1];
	return "";
}

Test(triage_recognise, loadscope_human_and_json_lines)
{
	struct lsc_triage *t = run(
		"x [loadscope/1] start s | run=aa000001 t_s=0 pid=1 name=e\n"
		"[loadscope/1] system k | run=aa000001 thp_enabled=madvise thp_defrag=defer thp_prctl=off\n"
		"{\"loadscope\":1,\"event\":\"phase\",\"msg\":\"read\",\"run\":\"aa000001\",\"kind\":\"read\","
		"\"bytes\":10737418240,\"wall_s\":4.0}\n"
		"[loadscope/1] phase pin | run=aa000001 kind=pin bytes=10737418240 wall_s=1.5\n"
		"[loadscope/1] ready in 9 s | run=aa000001 wall_s=9.0 covered_s=5.5 unattributed_s=3.5\n");
	cr_assert_eq(lsc_triage_nstarts(t), 1);
	cr_assert_eq(lsc_triage_nrecognised(t), 5);
	const struct tr_startsum *m = &t->sums[0];
	cr_assert_str_eq(m->family, "loadscope");
	cr_assert_str_eq(m->run, "aa000001");
	cr_assert_float_eq(m->ph[TR_K_READ], 4.0, 1e-9);
	cr_assert_float_eq(m->ph[TR_K_PIN], 1.5, 1e-9);
	cr_assert_float_eq(m->ready_s, 9.0, 1e-9);
	cr_assert_float_eq(m->unattributed_s, 3.5, 1e-9);
	cr_assert_str_eq(cfg(t, 0, "defrag"), "defer");
	cr_assert_eq(sev_of(t, "healthy"), LSC_TRIAGE_INFO);
	lsc_triage_free(t);
}

/* With no unattributed_s of its own, a start's unattributed time is its
 * ready time less its phases, to the fraction of a second; where the
 * phases sum past the ready time (they overlap), 0. */
Test(triage_recognise, unattributed_is_ready_less_the_phases)
{
	static const struct {
		const char *ready;
		double want;
	} c[] = {{"9.5", 0.5}, {"9.0", 0.0}, {"8.5", 0.0}, {"12.25", 3.25}};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char log[512];
		snprintf(log, sizeof log,
			 "[loadscope/1] start s | run=aa000001 t_s=0 pid=1 name=e\n"
			 "[loadscope/1] phase read | run=aa000001 kind=read bytes=10737418240 wall_s=4.0\n"
			 "[loadscope/1] phase pin | run=aa000001 kind=pin bytes=10737418240 wall_s=5.0\n"
			 "[loadscope/1] ready | run=aa000001 wall_s=%s\n",
			 c[i].ready);
		struct lsc_triage *t = run(log);
		cr_assert_eq(lsc_triage_nstarts(t), 1);
		cr_expect_float_eq(t->sums[0].unattributed_s, c[i].want, 1e-9, "ready %s: %g", c[i].ready,
				   t->sums[0].unattributed_s);
		lsc_triage_free(t);
	}
}

Test(triage_recognise, interleaved_runs_stay_apart)
{
	struct lsc_triage *t = run(
		"[loadscope/1] start a | run=00000001\n"
		"[loadscope/1] start b | run=00000002\n"
		"[loadscope/1] phase p | run=00000001 kind=copy wall_s=1\n"
		"[loadscope/1] phase p | run=00000002 kind=copy wall_s=2\n"
		"[loadscope/1] ready | run=00000002 wall_s=3\n"
		"[loadscope/1] ready | run=00000001 wall_s=4\n");
	cr_assert_eq(lsc_triage_nstarts(t), 2);
	double a = t->sums[0].ph[TR_K_COPY], b = t->sums[1].ph[TR_K_COPY];
	cr_assert((a == 1 && b == 2) || (a == 2 && b == 1), "copy %g %g", a, b);
	cr_assert_eq(sev_of(t, "log-truncated"), -1);
	lsc_triage_free(t);
}

Test(triage_recognise, arena_note_variants)
{
	struct lsc_triage *t = run(
		"strata generate: expert arena: cudaHostRegister PORTABLE ok; MAP_HUGETLB unavailable (needed 20464 "
		"2 MiB pages, vm.nr_hugepages=0); transparent huge pages requested (MADV_HUGEPAGE)\n"
		"strata generate: expert arena: cudaHostRegister PORTABLE ok; hugetlb 2 MB pages\n"
		"strata generate: expert arena: cudaHostRegister PORTABLE ok; using 4 KB pages\n"
		"engine: expert arena: hipHostRegister ok;  MAP_HUGETLB unavailable (needed 1,024 2MiB pages, "
		"vm.nr_hugepages = 12); transparent huge pages skipped (STRATA_NO_ARENA_THP); using 4 KiB pages\n"
		"strata serve: expert arena: cudaHostRegister PORTABLE ok; MAP_HUGETLB unavailable (needed 20464 2 MiB "
		"pages, vm.nr_hugepages=0); transparent huge pages requested (MADV_HUGEPAGE; kernel defrag=madvise)\n");
	cr_assert_eq(lsc_triage_nstarts(t), 5, "one arena note per start");
	cr_assert_str_eq(cfg(t, 0, "thp"), "requested");
	cr_assert_str_eq(cfg(t, 0, "hugetlb"), "no");
	cr_assert_str_eq(cfg(t, 1, "hugetlb"), "yes");
	cr_assert_str_eq(cfg(t, 2, "thp"), "not requested");
	cr_assert_str_eq(cfg(t, 3, "thp"), "not requested");
	cr_assert_str_eq(cfg(t, 3, "hugetlb"), "no");
	cr_assert_str_eq(cfg(t, 4, "defrag"), "madvise");
	cr_assert_eq(sev_of(t, "hugetlb-pool-short"), LSC_TRIAGE_INFO);
	cr_assert_eq(sev_of(t, "hugetlb-arena-cost"), LSC_TRIAGE_INFO);
	lsc_triage_free(t);
}

Test(triage_recognise, prose_about_the_note_is_not_the_note)
{
	struct lsc_triage *t = run(
		"With defrag=madvise, the arena's own madvise(MADV_HUGEPAGE) is what can put this mapping into\n"
		"ROCr implements this hipHostMalloc as an anonymous mmap, madvise(MADV_HUGEPAGE) on it, then one\n"
		"3. Print the allocation time separately from the copy in the complement ready line\n");
	cr_assert_eq(lsc_triage_nrecognised(t), 0);
	cr_assert_eq(lsc_triage_exit_code(t), LSC_TRIAGE_EXIT_UNUSABLE);
	lsc_triage_free(t);
}

Test(triage_recognise, loaded_line_shapes)
{
	struct lsc_triage *t = run("strata generate: loaded 39.97 GiB at 3.12 GiB/s\n"
				   "eng: Loaded 40 GB in 12.5 s\n"
				   "other: loaded 40960 MiB (3200 MB/s)\n");
	cr_assert_eq(lsc_triage_nstarts(t), 3);
	cr_assert_float_eq(t->sums[0].loaded_gib, 39.97, 1e-9);
	cr_assert_float_eq(t->sums[0].loaded_rate, 3.12, 1e-9);
	cr_assert_float_eq(t->sums[1].loaded_gib, 40e9 / (1 << 30), 1e-9);
	cr_assert_float_eq(t->sums[1].loaded_rate, 40e9 / (1 << 30) / 12.5, 1e-9);
	cr_assert_float_eq(t->sums[2].loaded_gib, 40.0, 1e-9);
	cr_assert_float_eq(t->sums[2].loaded_rate, 3.2e9 / (1 << 30), 1e-9);
	lsc_triage_free(t);
}

Test(triage_recognise, complement_line_with_and_without_split)
{
	struct lsc_triage *t = run(
		"FileExpertSource: mapped pinned cache complement ready: resident 28.47 GiB, pinned 28.47 GiB in 300 s; "
		"page-locked and mapped\n"
		"FileExpertSource: mapped pinned cache complement ready: resident 13.21 GiB, pinned 13.21 GiB in 34.5 s "
		"(alloc 18.0 s, copy 15.2 s); page-locked and mapped\n");
	cr_assert_eq(lsc_triage_nstarts(t), 2);
	cr_assert_float_eq(t->sums[0].comp_total_s, 300, 1e-9);
	cr_assert(isnan(t->sums[0].comp_alloc_s));
	cr_assert_float_eq(t->sums[1].comp_total_s, 34.5, 1e-9);
	cr_assert_float_eq(t->sums[1].comp_alloc_s, 18.0, 1e-9);
	cr_assert_float_eq(t->sums[1].comp_copy_s, 15.2, 1e-9);
	lsc_triage_free(t);
}

Test(triage_recognise, strace_kfd_ioctl)
{
	char log[4096] = "16:20:09.100000 madvise(0x7c4843e00000, 30569431040, MADV_HUGEPAGE) = 0\n";
	for (int i = 0; i < 20; i++)
		strcat(log, "[pid  4711] 16:20:10.000000 ioctl(3, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, 0x7ffe) = -1 EAGAIN "
			    "(Resource temporarily unavailable) <0.500000>\n");
	strcat(log, "ioctl(3, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, 0x7ffe) = 0 <0.340000>\n");
	struct lsc_triage *t = run(log);
	cr_assert_eq(lsc_triage_nrecognised(t), 22);
	cr_assert_eq(sev_of(t, "kfd-userptr-eagain"), LSC_TRIAGE_FAIL); /* 10 s retrying */
	cr_assert_str_eq(cfg(t, 0, "thp"), "requested");
	lsc_triage_free(t);
}

Test(triage_recognise, public_engines)
{
	struct lsc_triage *t = run(
		"llama_model_loader: loaded meta data with 33 key-value pairs\n"
		"load_tensors: loading model tensors, this can take a while... (mmap = true)\n"
		"llama_perf_context_print:        load time =   12345.67 ms\n");
	cr_assert_eq(lsc_triage_nstarts(t), 1);
	cr_assert_str_eq(t->sums[0].family, "llama.cpp");
	cr_assert_float_eq(t->sums[0].ready_s, 12.34567, 1e-6);
	lsc_triage_free(t);

	t = run("Allocating 28.00 GiB of pinned host memory\n"
		"done allocating 28.00 GiB in 95000 ms\n");
	cr_assert_float_eq(t->sums[0].ph[TR_K_ALLOC], 95.0, 1e-9);
	lsc_triage_free(t);

	t = run("INFO 10-16 15:39:01 [api_server.py:1] vLLM API server version 0.9.1\n"
		"(VllmWorker rank=0 pid=7) INFO 10-16 15:39:30 [default_loader.py:272] Loading weights took 30.12 seconds\n"
		"(VllmWorker rank=0 pid=7) INFO 10-16 15:39:31 [gpu_model_runner.py:1] Model loading took 14.99 GiB and "
		"31.5 seconds\n"
		"INFO 10-16 15:40:00 [launcher.py:1] Application startup complete.\n");
	cr_assert_str_eq(t->sums[0].family, "vllm");
	cr_assert_float_eq(t->sums[0].read_s, 30.12, 1e-9);
	cr_assert_float_eq(t->sums[0].loaded_gib, 14.99, 1e-9);
	cr_assert_float_eq(t->sums[0].ready_s, 59.0, 1e-9, "ready from the timestamps");
	lsc_triage_free(t);

	t = run("[RunAI Streamer] Overall time to stream 14.99 GiB of all files to cpu: 10.2s, 1505.1 MiB/s\n");
	cr_assert_float_eq(t->sums[0].read_s, 10.2, 1e-9);
	lsc_triage_free(t);
}

Test(triage_recognise, vmstat_deltas_and_thp_settings)
{
	struct lsc_triage *t = run(
		"strata generate: GPU 0: NVIDIA GeForce RTX 5070 Ti, compute capability 12.0\n"
		"strata generate: expert arena: cudaHostRegister PORTABLE ok; MAP_HUGETLB unavailable (needed 20464 "
		"2 MiB pages, vm.nr_hugepages=0); transparent huge pages requested (MADV_HUGEPAGE)\n"
		"/sys/kernel/mm/transparent_hugepage/defrag: always defer defer+madvise [madvise] never\n"
		"vmstat over 8 s: compact_stall +858 compact_fail +858 thp_fault_fallback +290 allocstall_normal +286\n"
		"RSS +484 MB in 8 s\n");
	cr_assert_str_eq(cfg(t, 0, "defrag"), "madvise");
	cr_assert_eq(sev_of(t, "thp-direct-compaction"), LSC_TRIAGE_FAIL);
	lsc_triage_free(t);
}

/* An error's name has one key, `err`; `arena` and `note` lines written
 * before the key change said `error` (docs/log-format.md, "Changes"). A
 * verify phase that failed reads the same under either key, and not at
 * all under neither. */
Test(triage_recognise, old_error_key_reads_as_err)
{
	static const char *const field[] = {" error=\"hash mismatch\"", " err=\"hash mismatch\"", ""};
	static const int want[] = {LSC_TRIAGE_FAIL, LSC_TRIAGE_FAIL, -1};
	char log[512];

	for (int i = 0; i < 3; i++) {
		snprintf(log, sizeof log,
			 "[loadscope/1] start s | run=aa000002 t_s=0 pid=1 name=e\n"
			 "[loadscope/1] phase verify | run=aa000002 kind=verify bytes=1073741824 "
			 "wall_s=2.0%s\n"
			 "[loadscope/1] ready in 3 s | run=aa000002 wall_s=3.0\n",
			 field[i]);
		struct lsc_triage *t = run(log);
		cr_expect_eq(sev_of(t, "verify-failed"), want[i], "with \"%s\"", field[i]);
		lsc_triage_free(t);
	}
}

/* A verify phase failed by any one of its signs alone: its result, its
 * ok of 0, or its sentence saying so; none of them (ok=1) leaves it
 * passed. */
Test(triage_recognise, a_verify_phase_fails_by_any_one_sign)
{
	static const struct { const char *head, *field; int want; } c[] = {
		{"phase verify", " ok=0", LSC_TRIAGE_FAIL},
		{"phase verify", " result=failed", LSC_TRIAGE_FAIL},
		{"phase verify failed", "", LSC_TRIAGE_FAIL},
		{"phase verify failed", " ok=0", LSC_TRIAGE_FAIL},
		{"phase verify", " ok=1", -1},
	};
	char log[512];
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(log, sizeof log,
			 "[loadscope/1] start s | run=aa000002 t_s=0 pid=1 name=e\n"
			 "[loadscope/1] %s | run=aa000002 kind=verify bytes=1073741824 wall_s=2.0%s\n"
			 "[loadscope/1] ready in 3 s | run=aa000002 wall_s=3.0\n",
			 c[i].head, c[i].field);
		struct lsc_triage *t = run(log);
		cr_expect_eq(sev_of(t, "verify-failed"), c[i].want, "in:\n%s", log);
		lsc_triage_free(t);
	}
}

/* A line read for its rates ("RSS +484 MB in 8 s") counts as recognised,
 * and the rate is the fill's: 484 MB in 8 s. */
Test(triage_recognise, a_rate_in_prose_is_a_recognised_line)
{
	struct lsc_triage *t = run("RSS deltas: +484 MB in 8 s\n");
	cr_expect_eq(lsc_triage_nlines(t), 1);
	cr_expect_eq(lsc_triage_nrecognised(t), 1);
	lsc_triage_free(t);
}

/* Inputs are apart: a load figure in the second file is not the first
 * file's start, cut off before it: two starts, the first cut off. */
Test(triage_recognise, a_second_input_does_not_finish_the_firsts_start)
{
	struct lsc_triage *t = lsc_triage_new(NULL);
	cr_assert_not_null(t);
	static const char a[] = "INFO mistralrs_server: loading model /m\n";
	static const char b[] = "INFO mistralrs_server: Model loaded in 12.3s\n";
	cr_assert_eq(lsc_triage_source(t, "a.log"), 0);
	cr_assert_eq(lsc_triage_feed(t, a, strlen(a)), 0);
	cr_assert_eq(lsc_triage_source(t, "b.log"), 0);
	cr_assert_eq(lsc_triage_feed(t, b, strlen(b)), 0);
	cr_assert_eq(lsc_triage_finish(t), 0);
	cr_assert_eq(lsc_triage_nstarts(t), 2);
	struct lsc_triage_start_info si;
	cr_assert_eq(lsc_triage_start(t, 0, &si), 0);
	cr_expect_str_eq(si.outcome, "cut-off");
	cr_assert_eq(lsc_triage_start(t, 1, &si), 0);
	cr_expect_str_eq(si.outcome, "completed");
	/* the first name names the first input; it opens no second one */
	size_t n;
	char *j = trun_render(t, LSC_TRIAGE_JSON, &n);
	cr_assert_not_null(j);
	cr_expect(strstr(j, "\"inputs\":[\"a.log\",\"b.log\"],"), "%.200s", j);
	free(j);
	lsc_triage_free(t);
}

/* strace -f splits a call another thread interrupts: "ioctl(... <unfinished
 * ...>" then "<... ioctl resumed> ) = -1 EAGAIN <0.5>". The resumed half
 * counts only after its unfinished half named the KFD allocation: 20 such
 * pairs are 10 s of retries, as 20 whole lines are. */
Test(triage_recognise, strace_kfd_ioctl_unfinished_and_resumed)
{
	char log[8192] = "";
	for (int i = 0; i < 20; i++)
		strcat(log, "[pid  4711] 16:20:10.000000 ioctl(3, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, 0x7ffe <unfinished ...>\n"
			    "[pid  4711] 16:20:10.500000 <... ioctl resumed> ) = -1 EAGAIN (Resource temporarily "
			    "unavailable) <0.500000>\n");
	struct lsc_triage *t = run(log);
	cr_expect_eq(lsc_triage_nrecognised(t), 40);
	cr_expect_eq(sev_of(t, "kfd-userptr-eagain"), LSC_TRIAGE_FAIL);
	lsc_triage_free(t);
	/* near miss: resumed halves with no unfinished KFD call before them */
	log[0] = 0;
	for (int i = 0; i < 20; i++)
		strcat(log, "[pid  4711] 16:20:10.500000 <... ioctl resumed> ) = -1 EAGAIN (Resource temporarily "
			    "unavailable) <0.500000>\n");
	t = run(log);
	cr_expect_eq(lsc_triage_nrecognised(t), 0);
	cr_expect_eq(sev_of(t, "kfd-userptr-eagain"), -1);
	lsc_triage_free(t);
}

/* "n/a" is loadscope's "not measured" (docs/log-format.md): a system line
 * with thp_defrag=n/a says nothing of defrag, as one without the key, so
 * the compaction finding is the same and quotes no defrag mode. */
Test(triage_recognise, n_a_is_a_value_not_measured)
{
	static const char *const fmt =
		"[loadscope/1] start e | run=0000000e\n"
		"[loadscope/1] system k | run=0000000e thp_enabled=madvise%s\n"
		"[loadscope/1] arena a | run=0000000e policy=thp requested=thp source=option\n"
		"[loadscope/1] phase allocate | run=0000000e kind=allocate bytes=214748365 wall_s=2 "
		"vm_compact_stall=10 vm_compact_fail=10 vm_thp_fault_fallback=300\n"
		"[loadscope/1] phase copy | run=0000000e kind=copy bytes=42917472256 wall_s=13\n"
		"[loadscope/1] ready | run=0000000e wall_s=40\n";
	const char *const tails[] = {"", " thp_defrag=n/a"};
	char *json[2];
	for (int i = 0; i < 2; i++) {
		char log[1024];
		snprintf(log, sizeof log, fmt, tails[i]);
		struct lsc_triage *t = run(log);
		cr_expect_eq(sev_of(t, "thp-direct-compaction"), LSC_TRIAGE_FAIL, "%s", tails[i]);
		size_t n;
		json[i] = trun_render(t, LSC_TRIAGE_JSON, &n);
		cr_assert_not_null(json[i]);
		cr_expect_null(strstr(json[i], "\"line\":2,"), "%s: the system line names no defrag mode", tails[i]);
		lsc_triage_free(t);
	}
	free(json[0]);
	free(json[1]);
}

/* A note is a remark inside a start: one about a failed verification
 * fails it (verify-failed), any other leaves it as it was, completed; only
 * a probe's `ok` verdict makes a run a probe's. */
Test(triage_recognise, notes_inside_a_start)
{
	static const char *const fmt =
		"[loadscope/1] start e | run=00000001\n"
		"[loadscope/1] note %s | run=00000001 topic=%s text=\"%s\"\n"
		"[loadscope/1] loaded x | run=00000001 bytes=10737418240 wall_s=4.000\n"
		"[loadscope/1] ready | run=00000001 wall_s=5\n";
	char log[1024];
	snprintf(log, sizeof log, fmt, "verify: chunk 3 failed its checksum", "verify", "chunk 3 failed its checksum");
	struct lsc_triage *t = run(log);
	cr_expect_eq(sev_of(t, "verify-failed"), LSC_TRIAGE_FAIL);
	lsc_triage_free(t);
	snprintf(log, sizeof log, fmt, "pin: cudaHostRegister took 2 tries", "pin", "took 2 tries");
	t = run(log);
	struct lsc_triage_start_info si;
	cr_assert_eq(lsc_triage_start(t, 0, &si), 0);
	cr_expect_str_eq(si.outcome, "completed");
	cr_expect_eq(sev_of(t, "healthy"), LSC_TRIAGE_INFO);
	cr_expect_eq(sev_of(t, "not-a-start"), -1);
	lsc_triage_free(t);
}

/* vLLM's checkpoint line gives the size the shard bar's time is judged
 * against: 140 GiB in 120 s is 1.17 GiB/s. A size no checkpoint has (2
 * million GiB, a garbled paste) is no size: the time alone. */
Test(triage_recognise, the_checkpoint_size_and_an_absurd_one)
{
	static const char *const fmt =
		"INFO 10-16 15:39:01 [weight_utils.py:80] Filesystem type for checkpoints: EXT4. Checkpoint size: %s "
		"GiB. Available RAM: 1000.00 GiB.\n"
		"Loading safetensors checkpoint shards: 100%% Completed | 20/20 [02:00<00:00,  6.00s/it]\n";
	char log[512];
	snprintf(log, sizeof log, fmt, "140.00");
	struct lsc_triage *t = run(log);
	struct lsc_triage_start_info si;
	cr_assert_eq(lsc_triage_start(t, 0, &si), 0);
	cr_expect_eq(si.load_s, 120);
	cr_expect_eq(si.gib, 140);
	lsc_triage_free(t);
	snprintf(log, sizeof log, fmt, "2000000.00");
	t = run(log);
	cr_assert_eq(lsc_triage_start(t, 0, &si), 0);
	cr_expect_eq(si.load_s, 120);
	cr_expect(isnan(si.gib), "an absurd size is no size: %g", si.gib);
	lsc_triage_free(t);
}

/* vLLM's shard bar pasted from a page that dropped its glyphs ("100%
 * 163/163 [01:12<00:00, 2.25it/s]", no "|"): the same bar, 163 of 163
 * shards in 72 s; with the checkpoint of 140 GiB, 1.94 GiB/s, ok. */
Test(triage_recognise, shard_bar_without_its_glyphs)
{
	static const char log[] =
		"INFO 10-16 15:39:01 [weight_utils.py:80] Filesystem type for checkpoints: EXT4. Checkpoint size: 140.00 "
		"GiB. Available RAM: 1000.00 GiB.\n"
		"Loading safetensors checkpoint shards:   0% 0/163 [00:00<?, ?it/s]\n"
		"Loading safetensors checkpoint shards: 100% 163/163 [01:12<00:00,  2.25it/s]\n";
	struct lsc_triage *t = run(log);
	struct lsc_triage_start_info si;
	cr_assert_eq(lsc_triage_start(t, 0, &si), 0);
	cr_expect_eq(si.load_s, 72);
	cr_expect_eq(si.gib, 140);
	cr_expect_str_eq(si.speed, "ok");
	lsc_triage_free(t);
}

/* A brief sentence cut inside a number ("in 17" of "in 17.000 s"): every
 * figure a sentence gives is followed by its unit, so the last number is
 * not read (it could be 17.5 s or 170 s); the size before it is. */
Test(triage_recognise, a_number_cut_at_the_end_of_a_sentence_is_not_read)
{
	struct lsc_triage *t = run("[loadscope/2] start eng: pid 1, loadscope 0.3.0, 2026-12-01T00:00:00Z\n"
				   "[loadscope/2] loaded 8.00 GiB in 17\n");
	struct lsc_triage_start_info si;
	cr_assert_eq(lsc_triage_start(t, 0, &si), 0);
	cr_expect(isnan(si.load_s), "read the cut number: %g", si.load_s);
	cr_expect_eq(si.gib, 8);
	lsc_triage_free(t);
	t = run("[loadscope/2] start eng: pid 1, loadscope 0.3.0, 2026-12-01T00:00:00Z\n"
		"[loadscope/2] loaded 8.00 GiB in 17.000 s (0.47 GiB/s over the wall time)\n");
	cr_assert_eq(lsc_triage_start(t, 0, &si), 0);
	cr_expect_eq(si.load_s, 17);
	lsc_triage_free(t);
}

/* The same for a counter: "compact_stall +3" ending a cut sentence may be
 * +3, +30 or +300, so it is unknown; thp_fault_alloc +8 before it is
 * whole. The line's sum keeps what it read. */
Test(triage_recognise, a_counter_cut_at_the_end_of_a_sentence_is_not_read)
{
	struct lsc_triage *t = run("[loadscope/2] start eng: pid 1, loadscope 0.3.0, 2026-12-01T00:00:00Z\n"
				   "[loadscope/2] phase allocate: 1.00 GiB in 0.429 s (2.33 GiB/s); machine "
				   "thp_fault_alloc +8 compact_stall +3\n");
	cr_assert_geq(t->nsums, 1);
	cr_expect(isnan(t->sums[0].vm[TR_VM_COMPACT_STALL]), "read the cut counter: %g",
		  t->sums[0].vm[TR_VM_COMPACT_STALL]);
	cr_expect_eq(t->sums[0].vm[TR_VM_THP_FAULT_ALLOC], 8);
	lsc_triage_free(t);
}

/* A shard bar at 0 of N has read nothing: its elapsed time is no load
 * time, and no rate (0 GiB in 5 s) is worked out from it; at 1 of 20 it is
 * one (5 s for 7 GiB of the 140). */
Test(triage_recognise, a_bar_at_zero_is_no_load_time)
{
	static const char *const fmt =
		"INFO 10-16 15:39:01 [weight_utils.py:80] Filesystem type for checkpoints: EXT4. Checkpoint size: "
		"140.00 GiB. Available RAM: 1000.00 GiB.\n"
		"Loading safetensors checkpoint shards:   %s%% Completed | %s/20 [00:05<?, ?it/s]\n";
	char log[512];
	snprintf(log, sizeof log, fmt, "0", "0");
	struct lsc_triage *t = run(log);
	struct lsc_triage_start_info si;
	cr_assert_eq(lsc_triage_start(t, 0, &si), 0);
	cr_expect_str_eq(si.outcome, "loading");
	cr_expect(isnan(si.load_s), "a load time from a bar at 0: %g", si.load_s);
	cr_expect(isnan(si.gibps), "a rate from a bar at 0: %g", si.gibps);
	lsc_triage_free(t);
	snprintf(log, sizeof log, fmt, "5", "1");
	t = run(log);
	cr_assert_eq(lsc_triage_start(t, 0, &si), 0);
	cr_expect_eq(si.load_s, 5);
	lsc_triage_free(t);
}

/* A brief region line says in its sentence how much of the mapping is in
 * hugetlb pages: 2 GiB there is an arena in hugetlb pages (the info
 * hugetlb-arena-cost), 0 B is not. */
Test(triage_recognise, a_region_sentence_gives_its_hugetlb_bytes)
{
	static const char *const fmt =
		"[loadscope/2] start eng: pid 1, loadscope 0.3.0, 2026-12-01T00:00:00Z\n"
		"[loadscope/2] region buffer: 2.00 GiB mapped, 2.00 GiB resident, 0 B in transparent huge pages, %s "
		"hugetlb, 0 B locked; THPeligible 0; 1 mapping\n"
		"[loadscope/2] loaded 2.00 GiB in 1.000 s (2.00 GiB/s over the wall time)\n";
	char log[512];
	snprintf(log, sizeof log, fmt, "2.00 GiB");
	struct lsc_triage *t = run(log);
	cr_expect_eq(sev_of(t, "hugetlb-arena-cost"), LSC_TRIAGE_INFO);
	lsc_triage_free(t);
	snprintf(log, sizeof log, fmt, "0 B");
	t = run(log);
	cr_expect_eq(sev_of(t, "hugetlb-arena-cost"), -1);
	lsc_triage_free(t);
}

/* A THP file pasted with `cat` gives the bracketed mode: "always defer
 * defer+madvise [madvise] never" is madvise, on the line after the
 * command or on the same line. */
Test(triage_recognise, the_bracketed_thp_mode_of_a_cat)
{
	struct lsc_triage *t = run("$ cat /sys/kernel/mm/transparent_hugepage/defrag\n"
				   "always defer defer+madvise [madvise] never\n"
				   "[loadscope/1] start e | run=00000001\n"
				   "[loadscope/1] loaded x | run=00000001 bytes=10737418240 wall_s=4.000\n");
	cr_assert_geq(t->nsums, 1);
	cr_expect_str_eq(t->sums[0].thp_defrag, "madvise");
	lsc_triage_free(t);
	t = run("$ cat /sys/kernel/mm/transparent_hugepage/defrag [defer+madvise]\n"
		"[loadscope/1] start e | run=00000001\n"
		"[loadscope/1] loaded x | run=00000001 bytes=10737418240 wall_s=4.000\n");
	cr_assert_geq(t->nsums, 1);
	cr_expect_str_eq(t->sums[0].thp_defrag, "defer+madvise");
	lsc_triage_free(t);
}

/* A brief still line's sentence gives the fill rate it says ("0.10
 * GiB/s now", 10 GiB done: past the 1 GiB under which a rate is noise). */
Test(triage_recognise, a_still_sentence_gives_its_rate)
{
	struct lsc_triage *t = run("[loadscope/2] start eng: pid 1, loadscope 0.3.0, 2026-12-01T00:00:00Z\n"
				   "[loadscope/2] still in read after 100.004 s: 10.00 GiB of 80.00 GiB done (12%), "
				   "0.10 GiB/s now\n");
	cr_assert_geq(t->nsums, 1);
	cr_expect_eq(t->sums[0].fill_rate, 0.10);
	lsc_triage_free(t);
}

/* An error line that names its cause is the cause's line too: llama.cpp's
 * "error loading model: failed to reserve buffer: cudaMallocHost failed to
 * pin 8192 MiB" fails the load and is the refused pinned allocation (8 GiB). */
Test(triage_recognise, a_load_error_that_names_a_pinned_refusal)
{
	struct lsc_triage *t = run("llama_model_loader: loaded meta data with 33 key-value pairs\n"
				   "llama_model_load: error loading model: failed to reserve buffer: cudaMallocHost "
				   "failed to pin 8192 MiB\n");
	cr_expect_eq(sev_of(t, "load-failed"), LSC_TRIAGE_FAIL);
	cr_expect_eq(sev_of(t, "pinned-alloc-failed"), LSC_TRIAGE_FAIL);
	lsc_triage_free(t);
}

/* A summary of the machine that states both THP modes as key=value (a
 * check tool's system line) is a setting: alone it is no start (outcome
 * none), and its modes are the start's. One mode alone, or a mode that a
 * sentence goes on to weigh ("defrag=madvise or never"), is prose. */
Test(triage_recognise, thp_modes_as_key_value_are_a_setting)
{
	struct lsc_triage *t = run("system: kernel 6.1; THP enabled=always defrag=defer+madvise; memlock 8.0 MiB\n");
	cr_assert_eq(lsc_triage_nrecognised(t), 1);
	cr_assert_eq(t->nsums, 1);
	cr_expect_str_eq(t->sums[0].thp_defrag, "defer+madvise");
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.outcome, "none");
	lsc_triage_free(t);
	static const char *const prose[] = {
		"With defrag=madvise, the arena's own request is what can stall\n",
		"set enabled=madvise and defrag=madvise or never\n",
		"THP enabled=madvised defrag=madvise\n", /* not a mode */
	};
	for (size_t i = 0; i < sizeof prose / sizeof prose[0]; i++) {
		t = run(prose[i]);
		cr_expect_eq(lsc_triage_nrecognised(t), 0, "%s", prose[i]);
		lsc_triage_free(t);
	}
}

/* tr_moved_in: a size, "in", a duration, on a line whose verbs move
 * memory; the figures as the line gives them (12 GB = 12e9 / 2^30 GiB,
 * 2 min = 120 s). */
Test(triage_recognise, amount_moved_in_a_time)
{
	double g = 0, d = 0;
	const char *a = "read 4,096 MiB in 2 min from /models";
	cr_assert(tr_moved_in(a, strlen(a), &g, &d));
	cr_expect_float_eq(g, 4.0, 1e-12);
	cr_expect_float_eq(d, 120.0, 1e-12);
	const char *b = "copied 12 GB in 9.5 s";
	cr_assert(tr_moved_in(b, strlen(b), &g, &d));
	cr_expect_float_eq(g, 12e9 / (1024.0 * 1024 * 1024), 1e-12);
	cr_expect_float_eq(d, 9.5, 1e-12);
	static const char *const no[] = {
		"downloaded 12 GB in 9.5 s",       /* a network's bytes */
		"pinned 12 GB in two pieces",      /* no duration */
		"the 12 GB in 9.5 s of the doc",   /* no verb of a load */
		"pinned 512 B in 2 s",             /* under a megabyte */
		"pinned v12 GB in 9.5 s",          /* a name, not a number */
	};
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		cr_expect(!tr_moved_in(no[i], strlen(no[i]), &g, &d), "%s", no[i]);
}

/* Memory locking is read in the words of the syscall and its limit, not
 * as one engine's shape: with llama.cpp's recognisers off, a refused
 * mlock still gives memlock-limit (warn) on a start, its size of 39813120
 * bytes kept; "mlock: ok, 0 failures" refuses nothing. */
Test(triage_recognise, mlock_refusal_is_shared_vocabulary)
{
	static const char *const logs[] = {
		"warning: failed to mlock 39813120-byte buffer (after previously locking 4106670080 bytes): Cannot "
		"allocate memory\n",
		"mlock: ok, 0 failures\n",
	};
	for (int off = 0; off < 2; off++)
		for (size_t i = 0; i < 2; i++) {
			struct lsc_triage_opts o = {.source = "x"};
			struct lsc_triage *t = lsc_triage_new(&o);
			cr_assert_not_null(t);
			if (off)
				lsc_triage_engine_off(t, "llama.cpp");
			lsc_triage_feed(t, logs[i], strlen(logs[i]));
			lsc_triage_finish(t);
			if (i == 0)
				cr_expect_eq(sev_of(t, "memlock-limit"), LSC_TRIAGE_WARN, "off=%d", off);
			else
				cr_expect_eq(sev_of(t, "memlock-limit"), -1, "off=%d: %s", off, logs[i]);
			lsc_triage_free(t);
		}
}

/* A loaded line whose verify field says the check failed is the failed
 * verification's line (`verify=mismatch`, `verify=failed`, `verify=timed
 * out`), and one that says it passed is not. */
Test(triage_recognise, a_loaded_lines_verify_field)
{
	static const char *const v[] = {"mismatch", "failed", "\"timed out\"", "ok", "xxh3", NULL};
	static const int want[] = {LSC_TRIAGE_FAIL, LSC_TRIAGE_FAIL, LSC_TRIAGE_FAIL, -1, -1};
	for (int i = 0; v[i]; i++) {
		char log[512];
		snprintf(log, sizeof log,
			 "[loadscope/1] start s | run=aa000003 t_s=0 pid=1 name=e\n"
			 "[loadscope/1] loaded x | run=aa000003 bytes=1073741824 wall_s=1.0 verify=%s\n"
			 "[loadscope/1] ready in 2 s | run=aa000003 wall_s=2.0\n",
			 v[i]);
		struct lsc_triage *t = run(log);
		cr_expect_eq(sev_of(t, "verify-failed"), want[i], "verify=%s", v[i]);
		lsc_triage_free(t);
	}
}

/* A start line cut before its run id (a paste at 80 columns) still begins
 * a start of its own: after a start that reached ready, its phase lines
 * are the second start's. */
Test(triage_recognise, a_start_line_without_its_run_begins_a_start)
{
	struct lsc_triage *t = run("[loadscope/2] start e: pid 1, loadscope 0.3.0, 2026-12-01T00:00:00Z | run=0000000a\n"
				   "[loadscope/2] ready in 1.000 s | run=0000000a\n"
				   "[loadscope/2] start e: pid 2, loadscope 0.3.0, 2026-12-01T00:00:09Z\n"
				   "[loadscope/2] phase read: 1.00 GiB in 2.000 s (0.50 GiB/s)\n");
	cr_assert_eq(t->nsums, 2, "%zu starts", t->nsums);
	cr_expect_float_eq(t->sums[1].ph[TR_K_READ], 2.0, 1e-9);
	cr_expect_eq(t->sums[1].first_line, 3);
	lsc_triage_free(t);
}

/* A loader's line that opens a start by its prefix ("llama_model_load:")
 * but says the load failed is that failure, whole or cut by the paste
 * ("llama_model_load: error loading", where a byte cut took "model: ..."):
 * one start, failed, the first line's cause kept. The near miss: the same
 * prefix with no failure words after a failure is a new load, a second
 * start. */
Test(triage_recognise, a_loader_line_that_says_it_failed_opens_no_start)
{
	static const char oom[] = "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 7825.94 MiB on device 0: "
				  "cudaMalloc failed: out of memory\n";
	static const char *const failed[] = {"llama_model_load: error loading\n",
					     "llama_model_load: error loading model: failed to allocate buffer\n",
					     "llama_model_load: failed to load\n"};
	for (size_t i = 0; i < sizeof failed / sizeof failed[0]; i++) {
		char log[512];
		snprintf(log, sizeof log, "%s%s", oom, failed[i]);
		struct lsc_triage *t = trun_text(log);
		cr_assert(t);
		cr_expect_eq(lsc_triage_nstarts(t), 1, "%s", failed[i]);
		struct lsc_triage_start_info si;
		cr_assert(lsc_triage_start(t, 0, &si) == 0);
		cr_expect_str_eq(si.outcome, "failed", "%s", failed[i]);
		cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL, "%s", failed[i]);
		lsc_triage_free(t);
	}
	char log[512];
	snprintf(log, sizeof log, "%s%s", oom, "llama_model_load: vocab only - skipping tensors\n");
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	cr_expect_eq(lsc_triage_nstarts(t), 2, "a loader line with no failure words after a failure");
	lsc_triage_free(t);
}

/* A `still starting` counter that went back is the engine restarted, a
 * new start; back by a second or less is the same start (a counter
 * rounded, or two clocks): both sides of that second. */
Test(triage_recognise, a_still_counter_back_by_more_than_a_second_is_a_restart)
{
	static const struct {
		const char *second;
		unsigned starts;
	} cases[] = {
		{"23.5", 1}, /* back 0.5 s */
		{"23", 1},   /* back exactly 1 s */
		{"22.9", 2}, /* back 1.1 s */
		{"8", 2},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char log[512];
		snprintf(log, sizeof(log),
			 "[strata] starting engine: strata generate --port 8080\n"
			 "[strata] still starting (24 s) - please wait ... (serve/server.py:307)\n"
			 "[strata] still starting (%s s) - please wait ... (serve/server.py:307)\n",
			 cases[i].second);
		struct lsc_triage *t = run(log);
		cr_expect_eq(lsc_triage_nstarts(t), cases[i].starts, "24 s then %s s: %zu starts", cases[i].second,
			     lsc_triage_nstarts(t));
		lsc_triage_free(t);
	}
}

/*
 * The seed engine's loaded line states a size and either a rate or a time:
 * the other is derived from them (40 GiB at 0.5 GiB/s is 80 s; 40 GiB in
 * 20 s is 2 GiB/s), which is what the speed verdict is judged on; a ready
 * time on the same line ("ready 432 s") ends the start there, a "ready"
 * inside another word ("already") does not; a "downloaded" line is a
 * download, not the load; a size with neither figure gives no loaded
 * figure (the start it opens, if any, has none).
 */
Test(triage_recognise, loaded_line_derives_the_missing_figure)
{
	static const struct {
		const char *line;
		double gib, rate, secs, ready; /* NAN: none; secs NAN: not checked */
	} c[] = {
		{"strata generate: loaded 40.0 GiB at 0.50 GiB/s\n", 40.0, 0.5, 80.0, NAN},
		{"strata generate: loaded 40.0 GiB in 20 s\n", 40.0, 2.0, 20.0, NAN},
		{"strata generate: loaded 40.0 GiB at 4.00 GiB/s in 12 s\n", 40.0, 4.0, 12.0, NAN},
		{"strata generate: loaded 39.97 GiB at 2.86 GiB/s, ready 432 s\n", 39.97, 2.86, NAN, 432.0},
		{"strata generate: loaded 39.97 GiB at 2.86 GiB/s, already 432 s\n", 39.97, 2.86, NAN, NAN},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct lsc_triage *t = run(c[i].line);
		cr_assert_eq(lsc_triage_nstarts(t), 1, "%s", c[i].line);
		struct lsc_triage_start_info si;
		cr_assert_eq(lsc_triage_start(t, 0, &si), 0);
		cr_expect_float_eq(t->sums[0].loaded_gib, c[i].gib, 1e-9, "%s", c[i].line);
		cr_expect_float_eq(t->sums[0].loaded_rate, c[i].rate, 1e-9, "%s", c[i].line);
		if (!isnan(c[i].secs))
			cr_expect_float_eq(si.load_s, c[i].secs, 1e-6, "%s: load %f", c[i].line, si.load_s);
		if (isnan(c[i].ready)) {
			cr_expect(isnan(si.ready_s), "%s: ready %f", c[i].line, si.ready_s);
			cr_expect_not(si.reached_ready, "%s", c[i].line);
		} else {
			cr_expect_float_eq(si.ready_s, c[i].ready, 1e-9, "%s: ready %f", c[i].line, si.ready_s);
			cr_expect(si.reached_ready, "%s", c[i].line);
		}
		lsc_triage_free(t);
	}
	struct lsc_triage *t = run("strata generate: loaded 40.0 GiB\n");
	for (size_t i = 0; i < lsc_triage_nstarts(t) && i < t->nsums; i++)
		cr_expect(isnan(t->sums[i].loaded_gib), "a size alone: %f", t->sums[i].loaded_gib);
	lsc_triage_free(t);
	t = run("strata generate: downloaded 28 GiB in 9 s\n");
	cr_expect_eq(lsc_triage_nstarts(t), 0, "a download is no start");
	lsc_triage_free(t);
}

/*
 * A ready line with no figure of its own and no clock on the lines: the
 * time to ready is the largest "still starting (N s)" counter before it
 * (the server's own count of the wait), 16 s here; with a figure of its
 * own, that figure (20 s); with neither, no time to ready, the start
 * still completed.
 */
Test(triage_recognise, a_bare_ready_line_takes_the_still_counter)
{
	static const struct {
		const char *log;
		double ready;
	} c[] = {
		{"strata generate: GPU 0: NVIDIA X\n"
		 "[strata] still starting (8 s) - please wait\n"
		 "[strata] still starting (16 s) - please wait\n"
		 "[strata] engine is ready\n",
		 16.0},
		{"strata generate: GPU 0: NVIDIA X\n"
		 "[strata] still starting (8 s) - please wait\n"
		 "[strata] still starting (16 s) - please wait\n"
		 "[strata] engine is ready after 20 s\n",
		 20.0},
		{"strata generate: GPU 0: NVIDIA X\n"
		 "strata generate: expert arena: cudaHostRegister PORTABLE ok; using 4 KB pages\n"
		 "[strata] engine is ready\n",
		 NAN},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct lsc_triage *t = run(c[i].log);
		struct lsc_triage_start_info si;
		cr_assert_eq(lsc_triage_start(t, 0, &si), 0, "%s", c[i].log);
		cr_expect_str_eq(si.outcome, "completed", "%s", c[i].log);
		cr_expect(si.reached_ready, "%s", c[i].log);
		if (isnan(c[i].ready))
			cr_expect(isnan(si.ready_s), "%s: %f", c[i].log, si.ready_s);
		else
			cr_expect_float_eq(si.ready_s, c[i].ready, 1e-9, "%s: %f", c[i].log, si.ready_s);
		lsc_triage_free(t);
	}
}

/*
 * vLLM's workers (tensor-parallel ranks) each print their own "Model
 * loading took X GiB and Y seconds": the start loaded their sum, in the
 * longest worker's time, whichever order the lines come in; the rate is
 * that sum over that time. The loaded figures are what the verdict and
 * the rules read the speed from.
 */
Test(triage_recognise, vllm_workers_add_up_in_the_longest_time)
{
	static const struct {
		double gib[3], secs[3];
		int n;
	} c[] = {
		{{20.0}, {12.0}, 1},
		{{7.5, 7.5}, {12.0, 15.0}, 2},
		{{7.5, 7.5}, {15.0, 12.0}, 2}, /* the longest first: a shorter one after does not shorten it */
		{{4.0, 6.0, 5.0}, {9.0, 20.0, 11.0}, 3},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char log[1024] = "INFO 10-16 15:39:01 [api_server.py:1] vLLM API server version 0.9.1\n";
		double sum = 0, max = 0;
		for (int w = 0; w < c[i].n; w++) {
			snprintf(log + strlen(log), sizeof(log) - strlen(log),
				 "(VllmWorker rank=%d pid=7) INFO 10-16 15:39:31 [gpu_model_runner.py:1] Model loading took "
				 "%.2f GiB and %.1f seconds\n",
				 w, c[i].gib[w], c[i].secs[w]);
			sum += c[i].gib[w];
			max = c[i].secs[w] > max ? c[i].secs[w] : max;
		}
		struct lsc_triage *t = run(log);
		cr_assert_eq(lsc_triage_nstarts(t), 1, "%s", log);
		cr_expect_float_eq(t->sums[0].loaded_gib, sum, 1e-9, "%s", log);
		cr_expect_float_eq(t->sums[0].loaded_rate, sum / max, 1e-9, "%s", log);
		struct lsc_triage_start_info si;
		cr_assert_eq(lsc_triage_start(t, 0, &si), 0);
		cr_expect_float_eq(si.load_s, max, 1e-9, "%s: load %f", log, si.load_s);
		cr_expect_float_eq(si.gib, sum, 1e-9, "%s", log);
		lsc_triage_free(t);
	}
}

/*
 * A vmstat delta line (recognise_public.c's vmstat_line), each of its
 * forms: "name +N", "name+N", "name: +N", "name = N", a negative delta,
 * the k and M suffixes (a following letter makes no suffix: "3Mi" is 3),
 * two keys of one counter added up (allocstall_normal and _movable), and
 * the near misses: a key inside a longer word on either side, a key with
 * no number after it.
 */
Test(triage_recognise, vmstat_delta_forms)
{
	static const struct {
		const char *line;
		int vm;
		double want; /* NAN: not set */
	} c[] = {
		{"vmstat over 8 s: compact_stall +858 compact_fail +857", TR_VM_COMPACT_STALL, 858},
		{"vmstat over 8 s: compact_stall +858 compact_fail +857", TR_VM_COMPACT_FAIL, 857},
		{"vmstat: compact_stall+7", TR_VM_COMPACT_STALL, 7},
		{"vmstat: compact_stall: +12", TR_VM_COMPACT_STALL, 12},
		{"vmstat: compact_stall = 5", TR_VM_COMPACT_STALL, 5},
		{"vmstat: compact_success -3", TR_VM_COMPACT_SUCCESS, -3},
		{"vmstat: thp_fault_alloc +4", TR_VM_THP_FAULT_ALLOC, 4},
		{"vmstat: thp_fault_fallback +290", TR_VM_THP_FAULT_FALLBACK, 290},
		{"vmstat: pgfault +1.5M", TR_VM_PGFAULT, 1.5e6},
		{"vmstat: pgfault +20k", TR_VM_PGFAULT, 20e3},
		{"vmstat: pgfault +20K", TR_VM_PGFAULT, 20e3},
		{"vmstat: pgfault +3Mi", TR_VM_PGFAULT, 3},
		{"vmstat: pgmajfault +9 pgfault +1", TR_VM_PGMAJFAULT, 9},
		{"vmstat: pgmajfault +9 pgfault +1", TR_VM_PGFAULT, 1},
		{"vmstat: pswpin +2 pswpout +6", TR_VM_PSWPIN, 2},
		{"vmstat: pswpin +2 pswpout +6", TR_VM_PSWPOUT, 6},
		{"vmstat: allocstall_normal +286 allocstall_movable +14", TR_VM_ALLOCSTALL, 300},
		{"vmstat: allocstall +5", TR_VM_ALLOCSTALL, 5},
		/* near misses */
		{"vmstat: xcompact_stall +5 pgfault +1", TR_VM_COMPACT_STALL, NAN},
		{"vmstat: compact_stalls +5 pgfault +1", TR_VM_COMPACT_STALL, NAN},
		{"vmstat: compact_stall rose pgfault +1", TR_VM_COMPACT_STALL, NAN},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char log[256];
		snprintf(log, sizeof(log), "strata generate: GPU 0: NVIDIA X\n%s\n", c[i].line);
		struct lsc_triage *t = run(log);
		cr_assert_geq(t->nsums, 1, "%s", c[i].line);
		double got = t->sums[0].vm[c[i].vm];
		if (isnan(c[i].want))
			cr_expect(isnan(got), "%s: %s = %f", c[i].line, tr_vm_names[c[i].vm], got);
		else
			cr_expect_float_eq(got, c[i].want, 1e-9, "%s: %s = %f", c[i].line, tr_vm_names[c[i].vm], got);
		lsc_triage_free(t);
	}
}

/*
 * This project's arena line (recognise_lsc.c's on_arena), by its policy
 * and what it took: a THP policy is THP requested; a hugetlb policy that
 * took hugetlb (or says nothing of what it took) lives in hugetlb pages,
 * the info finding hugetlb-arena-cost; one that fell back to 4k did not;
 * a 4k policy, process-off and nothp are THP not requested. Read through
 * the A/B table's keys.
 */
Test(triage_recognise, the_arena_lines_policy_and_what_it_took)
{
	static const struct {
		const char *fields;
		const char *thp, *hugetlb;
		int cost; /* hugetlb-arena-cost fires */
	} c[] = {
		{"policy=thp requested=thp source=option", "requested", "", 0},
		{"policy=madvise source=option", "requested", "", 0},
		{"policy=hugetlb took=hugetlb source=option", "default", "yes", 1},
		{"policy=hugetlb source=option", "default", "yes", 1},
		{"policy=hugetlb took=4k source=option", "default", "", 0},
		{"policy=4k source=option", "not requested", "", 0},
		/* THP off for the process (the library's policy name), and a
		 * name that holds "thp" but turns it off */
		{"policy=process-off source=option", "not requested", "", 0},
		{"policy=nothp source=option", "not requested", "", 0},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char log[512];
		snprintf(log, sizeof(log),
			 "[loadscope/1] start e | run=0000000a\n"
			 "[loadscope/1] arena a | run=0000000a %s\n"
			 "[loadscope/1] ready | run=0000000a wall_s=10\n",
			 c[i].fields);
		struct lsc_triage *t = run(log);
		cr_expect_str_eq(cfg(t, 0, "thp"), c[i].thp, "%s", c[i].fields);
		cr_expect_str_eq(cfg(t, 0, "hugetlb"), c[i].hugetlb, "%s", c[i].fields);
		cr_expect_eq(sev_of(t, "hugetlb-arena-cost"), c[i].cost ? LSC_TRIAGE_INFO : -1, "%s", c[i].fields);
		lsc_triage_free(t);
	}
}

/* The finding @id of start 0, or NULL. */
static const struct tr_finding *finding(struct lsc_triage *t, const char *id)
{
	for (size_t i = 0; i < t->nfull; i++)
		if (!strcmp(t->full[i].id, id))
			return &t->full[i];
	return NULL;
}

/*
 * This project's own ready line is where its start ended (recognise_lsc.c
 * keeps it as the start's end evidence): a start that completed without a
 * size and a time to judge its speed by says so in `completed`, quoting
 * that line, the one that shows it completed. Here the ready line is cut
 * inside its time (a paste cut at a column, its tail gone), so it gives no
 * figure whose own evidence could quote it instead; it is line 3, after a
 * system line that is not the end. The near miss: the same start cut off
 * before its ready line has not completed, and is log-truncated.
 */
Test(triage_recognise, the_ready_line_is_the_quoted_end_of_a_completed_start)
{
	static const char *const start = "[loadscope/2] start e | run=0000000b\n"
					 "[loadscope/2] system 6.1; THP madvise, defrag madvise | run=0000000b\n";
	char log[512];
	snprintf(log, sizeof(log), "%s[loadscope/2] ready in 0.5\n", start);
	struct lsc_triage *t = run(log);
	const struct tr_finding *f = finding(t, "completed");
	cr_assert_not_null(f, "no completed finding: the ready line did not end the start");
	cr_expect_eq(f->sev, LSC_TRIAGE_INFO);
	unsigned quoted = 0;
	for (unsigned i = 0; i < f->nev; i++)
		if (f->ev[i].line == 3) {
			quoted = 1;
			cr_expect_str_eq(f->ev[i].text, "[loadscope/2] ready in 0.5");
		}
	cr_expect(quoted, "completed quotes %u lines, not the ready line (3)", f->nev);
	lsc_triage_free(t);

	t = run(start);
	cr_expect_null(finding(t, "completed"), "a start with no ready line completed");
	cr_expect_eq(sev_of(t, "log-truncated"), LSC_TRIAGE_WARN, "a start with no ready line is cut off");
	lsc_triage_free(t);
}
