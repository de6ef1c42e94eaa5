/*
 * A shell's report that its program ended on a signal
 * (tools/triage/shell_signal.c): the words bash, zsh and macOS print
 * (`Killed`, `Segmentation fault (core dumped)`, `Aborted (core dumped)`,
 * `Illegal instruction`, `Bus error`, `Trace/BPT trap: 5`, a script's and
 * a job's report, one glued after an open bar) end the start under way as
 * failed, whatever engine ran. Near misses: the words inside prose or
 * followed by a word after one space (`Killed 3 idle workers`), a `Killed`
 * before any start began, and the shell's report after the start was up.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

static int sig_of(const char *line)
{
	return tr_shell_signal(line, strlen(line));
}

Test(shell_signal, the_shells_words)
{
	static const struct { const char *line; int sig; } ok[] = {
		{"Killed", TR_SIG_KILLED},
		{"Killed: 9", TR_SIG_KILLED},
		{"zsh: killed     python x.py", TR_SIG_KILLED},
		{"[1]+  Killed                  python x.py", TR_SIG_KILLED},
		{"./run.sh: line 12:  4711 Killed                  python x.py", TR_SIG_KILLED},
		{"Loading checkpoint shards:  33%|###      | 1/3 [00:49<01:39, 49.95s/it]Killed", TR_SIG_KILLED},
		{"Segmentation fault (core dumped)", TR_SIG_FAULT},
		{"Segmentation fault: 11", TR_SIG_FAULT},
		{"Aborted (core dumped)", TR_SIG_FAULT},
		{"Illegal instruction", TR_SIG_FAULT},
		{"zsh: illegal hardware instruction  python x.py", TR_SIG_FAULT},
		{"Bus error (core dumped)", TR_SIG_FAULT},
		{"Trace/BPT trap: 5     mlx-serve --model m --port 11234", TR_SIG_FAULT},
		{"Abort trap: 6", TR_SIG_FAULT},
		{"Floating point exception (core dumped)", TR_SIG_FAULT},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		cr_expect_eq(sig_of(ok[i].line), ok[i].sig, "%s: %d, want %d", ok[i].line, sig_of(ok[i].line), ok[i].sig);
	static const char *const no[] = {
		"Killed 3 idle workers",
		"the process was Killed by the scheduler",
		"Aborted by the user: retrying",
		"Segmentation faults are rare here",
		"Bus errors: 0",
		"INFO worker Killed",
		"100%|###| 3/3 [00:04<00:00]Killed 3 workers",
	};
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_expect_eq(sig_of(no[i]), 0, "%s: a report (%d)", no[i], sig_of(no[i]));
}

static void expect_start(const char *log, const char *outcome, int fail)
{
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0, "no start in:\n%s", log);
	cr_expect_str_eq(si.outcome, outcome, "outcome of:\n%s", log);
	size_t n = lsc_triage_nfindings(t);
	int got = 0;
	for (size_t k = 0; k < n; k++) {
		struct lsc_triage_finding_info fi;
		got |= lsc_triage_finding(t, k, &fi) == 0 && fi.severity == LSC_TRIAGE_FAIL;
	}
	cr_expect_eq(got, fail, "a fail finding %d, want %d:\n%s", got, fail, log);
	lsc_triage_free(t);
}

Test(shell_signal, ends_the_start_under_way)
{
	/* a script with no log of its own: the prompt's command began it */
	expect_start("v@host:~/inhouse$ /bin/python3 /home/v/inhouse/mistral.py\nKilled\n", "failed", 1);
	/* glued to the shard bar the terminal left open */
	expect_start("$ python3 -m fastchat.serve.cli --model-path /m\n"
		     "Loading checkpoint shards:  33%|###      | 1/3 [00:49<01:39, 49.95s/it]Killed\n",
		     "failed", 1);
	/* a fault after the weights began loading, with the command after it */
	expect_start("Loading weights...\nLoading model-00001-of-00003.safetensors...\n"
		     "Trace/BPT trap: 5     mlx-serve --model m\n",
		     "failed", 1);
	/* near miss: the same load with no report is cut off */
	expect_start("Loading weights...\nLoading model-00001-of-00003.safetensors...\n", "cut-off", 0);
}

Test(shell_signal, an_abort_with_no_load_words_is_a_start_that_failed)
{
	const char *log = "terminate called after throwing an instance of 'std::runtime_error'\n"
			  "  what():  [TM][ERROR] pointer_mapping_ does not have information of ptr. Assertion fail: "
			  "allocator.h:284\n"
			  "Aborted (core dumped)\n";
	expect_start(log, "failed", 1);
	/* the cause is the exception's message, not the shell's report */
	struct lsc_triage *t = trun_text(log);
	cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL);
	lsc_triage_free(t);
}

Test(shell_signal, near_misses_begin_nothing_or_fail_nothing)
{
	/* a bare `Killed` before anything ran: no start */
	struct lsc_triage *t = trun_text("Killed\n");
	cr_assert(t);
	cr_expect_eq(lsc_triage_nstarts(t), 0);
	lsc_triage_free(t);
	/* the report after the server was up: the start completed (oom-killed
	 * still says the running server was killed, after the start) */
	t = trun_text("Loading model on cuda:0...\nModel loaded.\nServing on http://0.0.0.0:1234.\nKilled\n");
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.outcome, "completed");
	cr_expect_eq(trun_sev_of(t, "start-failed"), -1);
	cr_expect_eq(trun_sev_of(t, "load-failed"), -1);
	lsc_triage_free(t);
}

/* A kill glued to the bar that is the paste's first recognised line: the
 * load was under way and was killed on that line, so the start opens
 * there and failed, with no prompt or load word before it. Near misses:
 * the bar alone (loading), a word after the bar that is no report, a kill
 * glued to a bar after the load's summary (the start completed, as a
 * whole-line `Killed` after it leaves it), and a report that is the whole
 * line, not glued. */
Test(shell_signal, a_kill_glued_to_the_bar_that_opens_the_start)
{
	const char *glued = "Loading checkpoint shards:   0%|          | 0/2 [00:00<?, ?it/s]Killed";
	cr_expect_eq(tr_shell_signal_after_bar(glued, strlen(glued)), TR_SIG_KILLED);
	cr_expect_eq(tr_shell_signal_after_bar("Killed", 6), 0, "a whole line is no report after a bar");
	const char *fault = "Loading checkpoint shards:  50%|#    | 1/2 [00:03<00:03, 3.1s/it]"
			    "Segmentation fault (core dumped)";
	cr_expect_eq(tr_shell_signal_after_bar(fault, strlen(fault)), TR_SIG_FAULT);
	expect_start("Loading checkpoint shards:   0%|          | 0/2 [00:00<?, ?it/s]Killed\nkilled\n", "failed", 1);
	struct lsc_triage *t =
		trun_text("Loading checkpoint shards:  38%|######8   | 3/8 [00:02<00:03,  1.28it/s]Killed\n");
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "oom-killed"), LSC_TRIAGE_FAIL);
	lsc_triage_free(t);
	/* near misses */
	expect_start("Loading checkpoint shards:   0%|          | 0/2 [00:00<?, ?it/s]\n", "loading", 0);
	expect_start("Loading checkpoint shards:  38%|######8   | 3/8 [00:02<00:03,  1.28it/s]Killed 3 workers\n",
		     "loading", 0);
	expect_start("Loading weights from /m\nLoad weight end. elapsed=7.41 s\n"
		     "Loading checkpoint shards:  40%|####      | 2/5 [00:02<00:03,  1.00it/s]Killed\n",
		     "completed", 0);
}

/* issue 23's ninth round: zsh's job report, pid before the name
 * (`[1]    26478 killed     python test.py`), alone or glued to the bar
 * after a prompt's paste; the name still needs the shells' alignment */
Test(shell_signal, zsh_job_report_with_its_pid)
{
	cr_expect_eq(sig_of("[1]    26478 killed     python test.py"), TR_SIG_KILLED);
	cr_expect_eq(sig_of("[2]  + 4711 segmentation fault  ./llama-cli -m m.gguf"), TR_SIG_FAULT);
	cr_expect_eq(sig_of("[1]    26478 killed python test.py"), 0, "one space: prose, no alignment");
	cr_expect_eq(sig_of("[1] 26478 workers were killed"), 0);
	const char *glued = "Loading checkpoint shards:   0%|          | 0/3 [00:00<?, ?it/s][1]    26478 killed     python "
			    "test.py";
	cr_expect_eq(tr_shell_signal_after_bar(glued, strlen(glued)), TR_SIG_KILLED);
	/* the bar's own bracket is the rate's: a job bracket alone after text is none */
	cr_expect_eq(tr_shell_signal_after_bar("see [1]    26478 killed     python test.py", 42), 0);
	expect_start("pip install xformers.\nLoading checkpoint shards:   0%|          | 0/3 [00:00<?, ?it/s][1]    "
		     "26478 killed     python test.py\n",
		     "failed", 1);
	/* without the report the bar is a load still under way */
	expect_start("pip install xformers.\nLoading checkpoint shards:   0%|          | 0/3 [00:00<?, ?it/s]\n",
		     "loading", 0);
}

/* A runtime's own report that its process is dying of a fault, which no
 * shell printed (Android's libc, Python's faulthandler, Abseil's signal
 * handler): the start ends failed as after a shell's `Segmentation
 * fault`, even with no start begun before it, and behind Android
 * Studio's logcat columns. Near misses: a signal that is no fault, a
 * handled signal in prose, the words without a report's shape. */
Test(shell_signal, a_runtimes_own_fault_report)
{
	static const char *const yes[] = {
		"Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x68 in tid 20777 (Thread-3), pid 20738 (com.mnn.llm)",
		"Fatal signal 6 (SIGABRT), code -1 (SI_QUEUE) in tid 1234 (llm)",
		"Fatal Python error: Segmentation fault",
		"Fatal Python error: Aborted",
		"*** SIGSEGV received at time=1700000000 on cpu 3 ***",
	};
	static const char *const no[] = {
		"Fatal signal 15 (SIGTERM) in tid 1 (main)",
		"Fatal signal (SIGSEGV) in tid 1",
		"Fatal Python error: init_fs_encoding: failed to get the Python codec",
		"received SIGSEGV handler install request",
		"*** SIGTERM received at time=1700000000 ***",
		"the docs say Fatal signal 11 is rare",
	};
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		cr_expect(tr_fault_report(yes[i], strlen(yes[i])), "%s", yes[i]);
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		cr_expect(!tr_fault_report(no[i], strlen(no[i])), "%s", no[i]);
	/* behind logcat's columns, nothing begun before it: a start, failed */
	expect_start("2023-12-25 10:28:45.840 20738-20738 System.out com.mnn.llm I  ###loadmodel------\n"
		     "2023-12-25 10:28:45.844 20738-20777 libc com.mnn.llm A  Fatal signal 11 (SIGSEGV), code 1 "
		     "(SEGV_MAPERR), fault addr 0x68 in tid 20777 (Thread-3), pid 20738 (com.mnn.llm)\n",
		     "failed", 1);
	/* a signal that is no fault, nothing begun: no start */
	struct lsc_triage *t = trun_text("Fatal signal 15 (SIGTERM) in tid 1 (main)\n");
	cr_assert(t);
	cr_expect_eq(lsc_triage_nstarts(t), 0);
	lsc_triage_free(t);
}
