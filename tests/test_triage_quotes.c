/*
 * Description: what a finding says, beyond its id and severity: the lines
 * it quotes, the figures it works out and the remedy it gives, each for the
 * input that should produce it, and the readers under them (clocks in
 * brackets, a value awaited after `cat`, the HTML axis, the sanitiser).
 * Each case was a mutant the suite let through (docs/testing.md, "Random
 * mutants"): a rule that fired with the right id but dropped its evidence
 * line or its arithmetic, or fell through to another cause's remedy. The
 * expected texts are what docs/triage.md says each finding shows, with the
 * numbers worked out here from the log.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "triage/internal.h"
#include "triage/triage.h"
#include "helpers/triage_run.h"

static char *json_of(const char *log)
{
	struct lsc_triage *t = trun_text(log);
	cr_assert_not_null(t);
	size_t n;
	char *o = trun_render(t, LSC_TRIAGE_JSON, &n);
	cr_assert_not_null(o);
	lsc_triage_free(t);
	return o;
}

/* The JSON object of finding @id in @json (up to the next finding), or NULL. */
static const char *finding(const char *json, const char *id, char *buf, size_t cap)
{
	char key[64];
	snprintf(key, sizeof(key), "{\"id\":\"%s\"", id);
	const char *p = strstr(json, key);
	if (!p)
		return NULL;
	const char *e = strstr(p + 1, "{\"id\":\"");
	size_t n = e ? (size_t)(e - p) : strlen(p);
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
	return buf;
}

/* How many times @needle occurs in @hay. */
static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

#define NUMA_LOG(bytes) "[loadscope/1] start e | run=00000001\n" \
	"warning: NUMA balancing is enabled, this is known to degrade performance\n" \
	"[loadscope/1] loaded x | run=00000001 bytes=" bytes " wall_s=2.000\n" \
	"[loadscope/1] ready | run=00000001 wall_s=3\n"

/* numa-balancing spares a model under 4 GiB (docs/triage.md), and for one
 * of 4 GiB says how much is scanned: 2^32 bytes is 4.00 GiB. */
Test(triage_quotes, numa_balancing_from_four_gib_with_the_size)
{
	char buf[4096];
	char *j = json_of(NUMA_LOG("4294967296"));
	const char *f = finding(j, "numa-balancing", buf, sizeof(buf));
	cr_assert_not_null(f, "4 GiB is not spared: %s", j);
	cr_expect(strstr(f, "4.00 GiB of model pages are scanned"), "the size is worked out: %s", f);
	cr_expect(strstr(f, "NUMA balancing is enabled"), "the engine's warning is quoted: %s", f);
	free(j);
	j = json_of(NUMA_LOG("4294967295"));
	cr_expect_null(finding(j, "numa-balancing", buf, sizeof(buf)), "a byte under 4 GiB is spared: %s", j);
	free(j);
}

/* ollama's offload estimate is quoted beside the kill: both its figures. */
Test(triage_quotes, an_oom_kill_quotes_the_engines_estimate)
{
	static const char log[] =
		"May 27 12:33:12 h ollama[233489]: time=2024-05-27T12:33:12.568Z level=INFO source=memory.go:133 "
		"msg=\"offload to gpu\" layers.requested=-1 layers.real=5 memory.available=\"7.8 GiB\" "
		"memory.required.full=\"38.9 GiB\" memory.required.partial=\"7.7 GiB\"\n"
		"May 27 12:33:13 h ollama[233489]: time=2024-05-27T12:33:13.568Z level=INFO source=server.go:320 "
		"msg=\"starting llama server\" cmd=\"/tmp/ollama_runners/cpu/ollama_llama_server --model /m\"\n"
		"May 27 12:34:13 h kernel: Out of memory: Killed process 233490 (ollama_llama_se) "
		"total-vm:41000000kB, anon-rss:39000000kB\n";
	char *j = json_of(log);
	cr_expect(strstr(j, "the engine's estimate: 38.9 GiB required, 7.8 GiB available"), "%s", j);
	/* 39000000 kB is 37.19 GiB */
	cr_expect(strstr(j, "37.19 GiB of anonymous memory"), "%s", j);
	free(j);
}

/* A refused pinned allocation the engine survived quotes the refusal and
 * the line that says what it did instead. */
Test(triage_quotes, a_pinned_refusal_quotes_the_fallback_line)
{
	static const char log[] = "llama_model_loader: loaded meta data with 33 key-value pairs\n"
				  "WARNING: failed to allocate 1024.00 MB of pinned memory: invalid argument\n"
				  "ggml_backend_cuda_host_buffer: falling back to pageable memory\n"
				  "llama_perf_context_print:        load time =    3301.15 ms\n";
	char buf[4096];
	char *j = json_of(log);
	const char *f = finding(j, "pinned-alloc-failed", buf, sizeof(buf));
	cr_assert_not_null(f, "%s", j);
	cr_expect(strstr(f, "\"line\":2,"), "the refusal is quoted: %s", f);
	cr_expect(strstr(f, "\"line\":3,\"text\":\"ggml_backend_cuda_host_buffer: falling back"),
		  "the fallback is quoted: %s", f);
	cr_expect(strstr(f, "went on with pageable memory"), "%s", f);
	/* every line of it was read for something: 4 of 4 recognised */
	cr_expect(strstr(j, "\"lines\":4,\"recognised\":4,"), "%s", j);
	free(j);
}

/* load-failed gives the remedy of the cause its failure line names, and only
 * that one, then the pointer to its page: two remedies for each of these. */
Test(triage_quotes, a_load_failure_gets_its_causes_remedy_alone)
{
	static const struct {
		const char *err, *remedy;
	} c[] = {
		{"No such file or directory", "a file was not found"},
		{"Permission denied", "permission was refused"},
		{"Input/output error", "reading the model failed"},
		{"Invalid argument", "an argument was refused (EINVAL)"},
		{"Operation not supported", "the operation is not supported here"},
		{"timed out waiting", "the engine gave up waiting"},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char log[1024], buf[4096];
		snprintf(log, sizeof(log),
			 "llama_model_loader: loaded meta data with 33 key-value pairs\n"
			 "llama_model_load: error loading model: failed to open /m/x.gguf: %s\n"
			 "llama_load_model_from_file: failed to load model\n"
			 "main: error: unable to load model\n",
			 c[i].err);
		char *j = json_of(log);
		const char *f = finding(j, "load-failed", buf, sizeof(buf));
		cr_assert_not_null(f, "%s: %s", c[i].err, j);
		const char *r = strstr(f, "\"remedies\":[");
		cr_assert_not_null(r);
		char want[160];
		snprintf(want, sizeof(want), "\"remedies\":[\"%s", c[i].remedy);
		cr_expect(!strncmp(r, want, strlen(want)), "%s: %s", c[i].err, r);
		/* the remedies array: its strings are the quotes after its "[" up to "]" */
		const char *e = strchr(r, ']');
		cr_assert_not_null(e);
		char arr[2048];
		snprintf(arr, sizeof(arr), "%.*s", (int)(e - r), r);
		cr_expect_eq(count(arr, "\",\""), 1, "%s: two remedies, not %s", c[i].err, arr);
		cr_expect(strstr(arr, "loadscope explain load-failed"), "%s", arr);
		free(j);
	}
}

/* A loaded line with bytes and wall_s but no rate: the rate is theirs,
 * 10 GiB in 4 s is 2.50 GiB/s, and the start's table shows it. */
Test(triage_quotes, a_load_rate_from_bytes_and_wall_time)
{
	char *j = json_of("[loadscope/1] start e | run=00000001\n"
			  "[loadscope/1] loaded x | run=00000001 bytes=10737418240 wall_s=4.000\n"
			  "[loadscope/1] ready | run=00000001 wall_s=5\n");
	cr_expect(strstr(j, "\"load rate (GiB/s)\":2.5"), "%s", j);
	free(j);
}

/* Timestamps in brackets with a date ("[2024-05-27 12:33:12]", and with a
 * T) are the lines' clocks: 12:33:12 to 12:38:12 is 300 s to ready. */
Test(triage_quotes, bracketed_date_times_are_clocks)
{
	static const char *const fmt[] = {"[2024-05-27 %s]", "[2024-05-27T%s]"};
	for (int i = 0; i < 2; i++) {
		char a[40], b[40], c[40], log[512];
		snprintf(a, sizeof(a), fmt[i], "12:33:12");
		snprintf(b, sizeof(b), fmt[i], "12:33:13");
		snprintf(c, sizeof(c), fmt[i], "12:38:12");
		snprintf(log, sizeof(log),
			 "%s INFO starting vLLM API server\n%s INFO Loading weights took 2.00 seconds\n"
			 "%s INFO Application startup complete.\n",
			 a, b, c);
		struct lsc_triage *t = trun_text(log);
		cr_assert_not_null(t);
		struct lsc_triage_start_info si;
		cr_assert_eq(lsc_triage_start(t, 0, &si), 0);
		cr_expect(fabs(si.ready_s - 300) < 1e-6, "%s: ready_s %g, want 300", fmt[i], si.ready_s);
		lsc_triage_free(t);
	}
}

/* `cat FILE` alone awaits its value on the next line; a line that the
 * cleaner drops (a code fence) breaks that, and the line after it is read
 * for what it is. */
Test(triage_quotes, a_value_awaited_after_cat_is_only_the_next_line)
{
	struct lsc_triage *t = trun_text("$ cat /proc/sys/kernel/numa_balancing\n```\n"
					 "vmstat: pswpin +262144 pswpout +0\n");
	cr_assert_not_null(t);
	cr_expect_eq(trun_sev_of(t, "swap-during-load"), LSC_TRIAGE_FAIL, "the vmstat line is read");
	lsc_triage_free(t);
	/* and on the next line it is the value */
	t = trun_text("$ cat /proc/sys/kernel/numa_balancing\n1\n"
		      "[loadscope/1] loaded x | run=00000001 bytes=8589934592 wall_s=2.000\n");
	cr_assert_not_null(t);
	cr_expect_eq(trun_sev_of(t, "numa-balancing"), LSC_TRIAGE_WARN);
	lsc_triage_free(t);
}

/* The HTML axis: ticks of 1, 2 or 5 times a power of ten, about 8 of them:
 * a 40 s start is ticked every 5 s (40 / 8 = 5), 0 to 40 s, nine ticks. */
Test(triage_quotes, the_time_axis_ticks_every_five_seconds_over_forty)
{
	struct lsc_triage *t = trun_text("[loadscope/1] start e | run=00000001\n"
					 "[loadscope/1] phase read | run=00000001 kind=read bytes=10737418240 wall_s=30\n"
					 "[loadscope/1] ready | run=00000001 wall_s=40\n");
	cr_assert_not_null(t);
	size_t n;
	char *page = trun_render(t, TRUN_HTML, &n);
	cr_assert_not_null(page);
	lsc_triage_free(t);
	cr_expect_eq(count(page, "text-anchor=\"middle\">"), 9, "nine ticks");
	cr_expect(strstr(page, ">5 s</text>") && strstr(page, ">40 s</text>"), "every 5 s to 40 s");
	free(page);
}

/* The sanitiser: a control byte becomes one space and the byte after it is
 * kept; every other byte of ASCII is itself. */
Test(triage_quotes, a_control_byte_is_one_space)
{
	char out[32];
	size_t n = tr_sanitize("a\x01" "b\x7f" "c\td", 7, out, sizeof(out));
	cr_expect_eq(n, 7);
	cr_expect_str_eq(out, "a b c d");
}

/* A failed start whose lines name no cause and not the model (an exit
 * before ready that names the model is load-failed's): start-failed
 * quotes the line and gives its two remedies, then its page; the cause is
 * "not evaluated". */
Test(triage_quotes, an_unclassified_failure_quotes_its_line_and_says_what_to_paste)
{
	char buf[4096];
	char *j = json_of("Starting engine with pid 4711\n"
			  "RuntimeError: widget count mismatch in the scheduler\n"
			  "Process exited with code 1\n");
	const char *f = finding(j, "start-failed", buf, sizeof(buf));
	cr_assert_not_null(f, "%s", j);
	cr_expect(strstr(f, "\"severity\":\"fail\""), "%s", f);
	cr_expect(strstr(f, "\"line\":3,\"text\":\"Process exited with code 1\""), "%s", f);
	cr_expect(strstr(f, "\"remedies\":[\"read the quoted failure line: its last exception or error names the "
			    "cause\",\"paste the lines before it (the whole traceback, the engine's last lines before "
			    "the exit)\",\"loadscope explain start-failed"),
		  "%s", f);
	cr_expect(strstr(f, "\"not_evaluated\":[\"a cause the triage knows"), "%s", f);
	free(j);
}

/* A slow start nothing explains: slow-start quotes the load figure, works
 * out why it is slow (the weights' own load, 100 s with no size, is past
 * what 100 GiB takes at the 1 GiB/s floor of docs/triage.md's table) and
 * says what to collect next. */
Test(triage_quotes, a_slow_start_says_what_to_collect)
{
	char buf[4096];
	char *j = json_of("loading model /m\nINFO mistralrs_server: Model loaded in 100.0s\n");
	const char *f = finding(j, "slow-start", buf, sizeof(buf));
	cr_assert_not_null(f, "%s", j);
	cr_expect(strstr(f, "\"line\":2,\"text\":\"INFO mistralrs_server: Model loaded in 100.0s\""), "%s", f);
	cr_expect(strstr(f, "100.0 s for the weights' own load without a size: over 100 s is slow"), "%s", f);
	cr_expect(strstr(f, "vmstat -w 1"), "%s", f);
	cr_expect(strstr(f, "df -T MODEL_DIR"), "%s", f);
	cr_expect(strstr(f, "loadscope load MODEL"), "%s", f);
	free(j);
	/* 99.9 s without a size is not judged: no slow-start */
	j = json_of("loading model /m\nINFO mistralrs_server: Model loaded in 99.9s\n");
	cr_expect_null(finding(j, "slow-start", buf, sizeof(buf)), "%s", j);
	free(j);
}

/* The text on a timeline bar, by its width on the 980 px plot: from 150
 * px the label, the time and the share; from 70 the label and the share;
 * from 34 the share; under that nothing (docs/triage.md). A read of N s in
 * a start of 980 s is N px wide. */
static char *bar_label(double read_s, char *buf, size_t cap)
{
	char log[512];
	snprintf(log, sizeof log,
		 "[loadscope/1] start e | run=00000001\n"
		 "[loadscope/1] phase read | run=00000001 kind=read bytes=10737418240 wall_s=%g\n"
		 "[loadscope/1] ready | run=00000001 wall_s=980\n",
		 read_s);
	struct lsc_triage *t = trun_text(log);
	cr_assert_not_null(t);
	size_t n;
	char *page = trun_render(t, TRUN_HTML, &n);
	cr_assert_not_null(page);
	lsc_triage_free(t);
	/* the read bar's group, up to its end */
	const char *g = strstr(page, "data-phase=\"read\"");
	cr_assert_not_null(g);
	const char *e = strstr(g, "</g>");
	const char *l = strstr(g, "<text class=\"lbl in\"");
	buf[0] = 0;
	if (l && l < e) {
		l = strchr(l, '>') + 1;
		snprintf(buf, cap, "%.*s", (int)(strstr(l, "</text>") - l), l);
	}
	free(page);
	return buf;
}

Test(triage_quotes, a_bars_text_by_its_width)
{
	char b[128];
	cr_expect_str_eq(bar_label(150, b, sizeof b), "read 150 s \xc2\xb7 15%");
	cr_expect_str_eq(bar_label(149, b, sizeof b), "read 15%");
	cr_expect_str_eq(bar_label(70, b, sizeof b), "read 7%");
	cr_expect_str_eq(bar_label(69, b, sizeof b), "7%");
	cr_expect_str_eq(bar_label(34, b, sizeof b), "3%");
	cr_expect_str_eq(bar_label(33, b, sizeof b), "");
}

/* swap-during-load quotes what the log says of swapping beside the
 * counters, and works out the pages: 2048 x 4 KiB = 8 MiB, a warning
 * (from 1024 pages, docs/triage.md). */
Test(triage_quotes, swapping_quotes_the_words_and_the_counters)
{
	char buf[4096];
	char *j = json_of("loading model /m\nthe machine is swapping heavily, kswapd0 at 100% CPU\n"
			  "vmstat: pswpin +2048 pswpout +0\n");
	const char *f = finding(j, "swap-during-load", buf, sizeof(buf));
	cr_assert_not_null(f, "%s", j);
	cr_expect(strstr(f, "\"severity\":\"warn\""), "%s", f);
	cr_expect(strstr(f, "\"line\":2,\"text\":\"the machine is swapping heavily"), "%s", f);
	cr_expect(strstr(f, "\"line\":3,\"text\":\"vmstat: pswpin +2048 pswpout +0\""), "%s", f);
	cr_expect(strstr(f, "2048 pages x 4 KiB = 8 MiB"), "%s", f);
	free(j);
	/* a counter the line does not give counts 0 in the sum, either one */
	j = json_of("loading model /m\nvmstat: pswpout +2048\n");
	cr_assert_not_null(finding(j, "swap-during-load", buf, sizeof(buf)), "%s", j);
	cr_expect(strstr(buf, "pswpin 0 + pswpout 2048 = 2048 pages"), "%s", buf);
	free(j);
	j = json_of("loading model /m\nvmstat: pswpin +2048\n");
	cr_assert_not_null(finding(j, "swap-during-load", buf, sizeof(buf)), "%s", j);
	cr_expect(strstr(buf, "pswpin 2048 + pswpout 0 = 2048 pages"), "%s", buf);
	free(j);
}

/* A line of loading dots alone (a llama.cpp loader's progress, wrapped
 * onto a line of its own) is the load still under way. */
Test(triage_quotes, a_line_of_dots_alone_is_still_loading)
{
	struct lsc_triage *t = trun_text("loading model /m\n.....\n");
	cr_assert_not_null(t);
	struct lsc_triage_start_info si;
	cr_assert_eq(lsc_triage_start(t, 0, &si), 0);
	cr_expect_str_eq(si.outcome, "loading");
	lsc_triage_free(t);
}

#define POOL_NOTE                                                                                               \
	"strata generate: expert arena: cudaHostRegister PORTABLE ok; MAP_HUGETLB unavailable (needed 20464 2 MiB " \
	"pages); transparent huge pages requested (MADV_HUGEPAGE)\n"

/* The hugetlb pool pasted as `cat /proc/sys/vm/nr_hugepages` and its value
 * on the next line is the pool the arena was short of: the first value
 * given, a pool as large as the need is not short, and a value that is
 * not a count of pages (or not on the next line) is not read. */
Test(triage_quotes, a_pasted_nr_hugepages_is_the_pool)
{
	char buf[8192];
	char *j = json_of("$ cat /proc/sys/vm/nr_hugepages\n20000\n$ cat /proc/sys/vm/nr_hugepages\n30000\n" POOL_NOTE);
	cr_assert_not_null(finding(j, "hugetlb-pool-short", buf, sizeof(buf)), "%s", j);
	cr_expect(strstr(buf, "holds 20000 of the 20464 2 MiB pages"), "%s", buf);
	cr_expect(strstr(buf, "short by 464 pages"), "%s", buf);
	free(j);
	static const char *const none[] = {"$ cat /proc/sys/vm/nr_hugepages\n20464\n" POOL_NOTE,
					   "$ cat /proc/sys/vm/nr_hugepages\n\n20000\n" POOL_NOTE,
					   "$ cat /proc/sys/vm/nr_hugepages\n20000 pages\n" POOL_NOTE,
					   POOL_NOTE};
	for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
		struct lsc_triage *t = trun_text(none[i]);
		cr_assert_not_null(t);
		cr_expect_eq(trun_sev_of(t, "hugetlb-pool-short"), -1, "%s", none[i]);
		lsc_triage_free(t);
	}
	/* past 1e12 pages is no pool: the engine's own figure is read instead */
	j = json_of("$ cat /proc/sys/vm/nr_hugepages\n10000000000000\n"
		    "strata generate: expert arena: MAP_HUGETLB unavailable (needed 20464 2 MiB pages, "
		    "vm.nr_hugepages=20000); transparent huge pages requested (MADV_HUGEPAGE)\n");
	cr_assert_not_null(finding(j, "hugetlb-pool-short", buf, sizeof(buf)), "%s", j);
	cr_expect(strstr(buf, "holds 20000 of the 20464"), "%s", buf);
	free(j);
}

#define MLOCK_FAIL                                                                                   \
	"llama_model_loader: loaded meta data\n"                                                     \
	"warning: failed to mlock 1073741824-byte buffer (after previously locking 0 bytes): Cannot " \
	"allocate memory\n"

/* `ulimit -l` pasted with its value on the next line is the locked-memory
 * limit in KiB; "unlimited" is no limit, so not what refused the lock. */
Test(triage_quotes, a_pasted_ulimit_l_is_the_limit_in_kib)
{
	char buf[8192];
	char *j = json_of("$ ulimit -l\n64\n" MLOCK_FAIL);
	cr_assert_not_null(finding(j, "memlock-limit", buf, sizeof(buf)), "%s", j);
	cr_expect(strstr(buf, "limit 0.06 MiB"), "%s", buf);
	cr_expect(strstr(buf, "\"$ ulimit -l\"") || strstr(buf, "\"64\""), "the value's line is quoted: %s", buf);
	free(j);
	j = json_of("$ ulimit -l\n8192\n" MLOCK_FAIL);
	cr_assert_not_null(finding(j, "memlock-limit", buf, sizeof(buf)), "%s", j);
	cr_expect(strstr(buf, "limit 8.00 MiB"), "%s", buf);
	free(j);
	struct lsc_triage *t = trun_text("$ ulimit -l\nunlimited\n" MLOCK_FAIL);
	cr_assert_not_null(t);
	cr_expect_eq(trun_sev_of(t, "memlock-limit"), -1, "blamed an unlimited limit");
	lsc_triage_free(t);
	/* a command that sets the limit is not a reading of it (here it was
	 * refused) */
	t = trun_text("> ulimit -l unlimited\n-bash: ulimit: max locked memory: cannot modify limit: Operation not "
		      "permitted\n" MLOCK_FAIL);
	cr_assert_not_null(t);
	cr_expect_eq(trun_sev_of(t, "memlock-limit"), LSC_TRIAGE_WARN, "an attempt to set it read as the limit");
	lsc_triage_free(t);
	static const char *const unread[] = {"$ ulimit -l\nabc\n" MLOCK_FAIL, "$ ulimit -l\n2000000000000000\n" MLOCK_FAIL};
	for (size_t i = 0; i < sizeof unread / sizeof unread[0]; i++) {
		j = json_of(unread[i]);
		if (finding(j, "memlock-limit", buf, sizeof(buf)))
			cr_expect(!strstr(buf, "\"limit "), "%s: %s", unread[i], buf);
		free(j);
	}
}

/* The page's compaction counters: a counter the log does not give is 0
 * beside one it does (12 stalls, none said failed or succeeded), and the
 * three as given when it gives them all. */
Test(triage_quotes, the_pages_compaction_counters)
{
	static const struct {
		const char *fields, *want;
	} c[] = {{"vm_compact_stall=12", "<dt>compaction</dt><dd>12 stalls, 0 failed, 0 succeeded"},
		 {"vm_compact_fail=7", "<dt>compaction</dt><dd>0 stalls, 7 failed, 0 succeeded"},
		 {"vm_compact_stall=12 vm_compact_fail=7 vm_compact_success=5",
		  "<dt>compaction</dt><dd>12 stalls, 7 failed, 5 succeeded"}};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char log[512];
		snprintf(log, sizeof log,
			 "[loadscope/1] start e | run=00000001\n"
			 "[loadscope/1] phase allocate | run=00000001 kind=allocate name=allocate depth=0 wall_s=2.0 %s\n"
			 "[loadscope/1] ready | run=00000001 wall_s=3.0\n",
			 c[i].fields);
		struct lsc_triage *t = trun_text(log);
		cr_assert_not_null(t);
		size_t n;
		char *page = trun_render(t, TRUN_HTML, &n);
		cr_assert_not_null(page);
		cr_expect(strstr(page, c[i].want), "%s: %s", c[i].fields,
			  strstr(page, "<dt>compaction") ? strstr(page, "<dt>compaction") : "no compaction entry");
		free(page);
		lsc_triage_free(t);
	}
	/* an engine's vmstat paste that gives the stalls alone: the others
	 * are not in the log, and count as 0 beside them */
	struct lsc_triage *t = trun_text("loading model /m\nvmstat: compact_stall +12 pswpin +0\nmodel loaded in 3 s\n");
	cr_assert_not_null(t);
	size_t n;
	char *page = trun_render(t, TRUN_HTML, &n);
	cr_assert_not_null(page);
	cr_expect(strstr(page, "<dt>compaction</dt><dd>12 stalls, 0 failed, 0 succeeded"), "%s",
		  strstr(page, "<dt>compaction") ? strstr(page, "<dt>compaction") : "no compaction entry");
	free(page);
	lsc_triage_free(t);
}

/* A start the log gives no phase durations for says so on the page, and
 * draws no timeline. */
Test(triage_quotes, a_page_of_a_start_without_durations)
{
	struct lsc_triage *t = trun_text("loading model /m\nERROR load failed: no such file\n");
	cr_assert_not_null(t);
	size_t n;
	char *page = trun_render(t, TRUN_HTML, &n);
	cr_assert_not_null(page);
	cr_expect(strstr(page, "<p class=\"lead\">The log gives no phase durations for this start.</p>"), "%s", page);
	cr_expect_null(strstr(page, "<svg class=\"timeline\""));
	free(page);
	lsc_triage_free(t);
}

/* A fault rate said in prose ("page faults 51,200 faults/s") is the fill's
 * measure when nothing better gives one: the compaction finding works out
 * what 4 KiB faults at that rate move (51,200 x 4 KiB = 200.0 MiB/s) and
 * judges the fill by it (0.195 GiB/s, under a quarter of 1 GiB/s). */
Test(triage_quotes, a_fault_rate_in_prose_is_the_fill)
{
	char *j = json_of("GPU 0: X, compute capability 12.0\n"
			  "strata generate: expert arena: cudaHostRegister PORTABLE ok; MAP_HUGETLB unavailable (needed "
			  "20464 2 MiB pages, vm.nr_hugepages=0); transparent huge pages requested (MADV_HUGEPAGE)\n"
			  "defrag = [madvise]\n"
			  "compact_stall +858, compact_fail +858, thp_fault_fallback +290, allocstall_normal +286 "
			  "(8 s window)\n"
			  "page faults while filling: 51,200 faults/s\n");
	char buf[8192];
	const char *f = finding(j, "thp-direct-compaction", buf, sizeof buf);
	cr_assert_not_null(f, "%s", j);
	cr_assert(strstr(f, "51200 faults/s x 4 KiB = 200.0 MiB/s"), "%s", f);
	cr_assert(strstr(f, "fill 0.195 GiB/s against an assumed normal of 1.00 GiB/s = 19.5%"), "%s", f);
	free(j);
}

/* The sanitiser on text made of pieces whose printable forms are known
 * (runs of plain ASCII long enough for its eight-byte path, controls, UTF-8
 * of every length, C1 and bidi characters, stray and truncated bytes), cut
 * at every capacity: the whole text gives the pieces' forms one after the
 * other; a capacity cuts it at the first character boundary from which a
 * 4-byte character and the NUL would no longer fit (cap - 4), never inside
 * a character, and writes nothing past the capacity. */
Test(triage_quotes, the_sanitiser_cuts_its_whole_output_at_every_capacity)
{
	static const struct {
		const char *in, *out;
	} piece[] = {
		{"a", "a"},
		{"plain text of thirty one bytes", "plain text of thirty one bytes"},
		{"0123456789abcdefXYZ", "0123456789abcdefXYZ"},
		{"\x01", " "},
		{"\x7f", " "},
		{"\t", " "},
		{"\xc3\xa9", "\xc3\xa9"},                 /* é */
		{"\xe2\x82\xac", "\xe2\x82\xac"},         /* € */
		{"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"}, /* an emoji */
		{"\xc2\x85", " "},                        /* C1 NEL */
		{"\xe2\x80\xae", "\xef\xbf\xbd"},         /* U+202E, reverses what follows */
		{"\xff", "\xef\xbf\xbd"},
		{"\xe2\x82", "\xef\xbf\xbd\xef\xbf\xbd"}, /* a lead, a continuation, then another piece */
		{"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"}, /* an overlong '/' */
	};
	const size_t np = sizeof(piece) / sizeof(piece[0]);
	unsigned seed = 20261202;
	for (int round = 0; round < 300; round++) {
		char in[512] = "", want[1024] = "";
		size_t bound[1024], nb = 0; /* the character boundaries of want */
		int k = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 12;
		for (int i = 0; i < k; i++) {
			size_t p = ((seed = seed * 1103515245u + 12345u) >> 16) % np;
			strcat(in, piece[p].in);
			for (const char *c = piece[p].out; *c;) {
				bound[nb++] = strlen(want);
				size_t cl = (unsigned char)*c < 0x80 ? 1 : (unsigned char)*c < 0xe0 ? 2
					    : (unsigned char)*c < 0xf0 ? 3 : 4;
				strncat(want, c, cl);
				c += cl;
			}
		}
		bound[nb++] = strlen(want);
		size_t n = strlen(in), wl = strlen(want);
		for (size_t cap = 0; cap <= wl + 8; cap++) {
			char out[1100];
			memset(out, '#', sizeof(out));
			size_t w = tr_sanitize(in, n, out, cap);
			size_t expect = 0;
			if (cap > 4)
				for (size_t b = 0; b < nb; b++)
					if (bound[b] + 4 >= cap || b + 1 == nb) {
						expect = bound[b];
						break;
					}
			cr_assert_eq(w, expect, "round %d cap %zu: %zu bytes, not %zu", round, cap, w, expect);
			if (cap)
				cr_assert_eq(out[w], '\0');
			cr_assert(memcmp(out, want, w) == 0, "round %d cap %zu: not the whole output's start", round, cap);
			for (size_t j = cap; j < sizeof(out); j++)
				cr_assert_eq(out[j], '#', "round %d cap %zu: byte %zu written", round, cap, j);
		}
	}
}
