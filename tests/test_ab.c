/*
 * Description: `loadscope ab`, the built program (LSC_TEST_TOOL) running
 * small commands the test writes. A fake start prints llama.cpp's or this
 * project's lines with a load time taken from a per-arm list (no sleeping)
 * and notes the order it was run in and the THP_enabled it saw. Asserted:
 * the runs are interleaved (A B, B A, A B; three arms balanced as a
 * Williams design), each arm's THP control and environment reach its runs,
 * each run's output is kept in the file the report names, a progress line
 * per run, the triage's figures joined per run and per arm (computed here
 * by hand from the fake data), --warmup and --prepare in their order, a
 * failing --prepare stopping, peak RSS from wait4, any command compared by
 * its wall time (two sleeps far apart: the faster arm named, p exact), the
 * n = 3 floor, a run that blocks on a FIFO past --timeout killed with
 * its process group and counted as a timeout, not dropped, and SIGINT or
 * SIGTERM to ab ending the running run's group and the experiment. No assertion
 * depends on how long anything took, beyond differences of 30x.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helpers/tool_run.h"
#include "triage/triage.h"

static char out[1 << 17], err[1 << 15];
static const char *dir;

static void setup(void)
{
	lsct_tool_required();
	dir = lsct_scratch("ab");
}

TestSuite(ab, .init = setup, .fini = lsct_scratch_remove);

/* The fake start: run n of arm $ARM loads in the n-th time of $D/times.$ARM. */
static const char fake_llama[] =
	"#!/bin/sh\n"
	"n=$(cat \"$D/count.$ARM\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > \"$D/count.$ARM\"\n"
	"t=$(sed -n \"${n}p\" \"$D/times.$ARM\")\n"
	"echo \"$ARM\" >> \"$D/order\"\n"
	"grep THP_enabled /proc/self/status >> \"$D/thp.$ARM\"\n"
	"echo \"llama_model_loader: loaded meta data with 40 key-value pairs and 626 tensors from /m/x.gguf\"\n"
	"echo \"load_tensors: loading model tensors, this can take a while... (mmap = true)\"\n"
	"echo \"llama_perf_context_print:        load time =    $t ms\"\n";

static void slurp(const char *name, char *buf, size_t cap)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	size_t n = 0;
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[n] = 0;
}

Test(ab, interleaved_with_the_table_by_hand)
{
	char buf[4096];
	const char *fake = lsct_scratch_file("fake.sh", fake_llama, 0755);
	lsct_scratch_file("times.A", "3000\n1000\n2000\n", 0644);
	lsct_scratch_file("times.B", "500\n700\n600\n", 0644);
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 3 --pause 0 --arm A=thp=default,env=ARM=A --arm B=thp=off,env=ARM=B,env=LSCT_X=1 "
			   "--out '%s/logs' --format json -- env D='%s' '%s'",
			   dir, dir, fake);
	cr_assert_eq(rc, 0, "%s", err);

	/* A B, B A, A B: round r begins with arm r mod 2 */
	slurp("order", buf, sizeof(buf));
	cr_assert_str_eq(buf, "A\nB\nB\nA\nA\nB\n");
	/* each arm's THP control reached each of its runs */
	slurp("thp.A", buf, sizeof(buf));
	cr_assert_str_eq(buf, "THP_enabled:\t1\nTHP_enabled:\t1\nTHP_enabled:\t1\n");
	slurp("thp.B", buf, sizeof(buf));
	cr_assert_str_eq(buf, "THP_enabled:\t0\nTHP_enabled:\t0\nTHP_enabled:\t0\n");

	/* A progress line per run, in order, with the time to ready (ms / 1000). */
	const char *const progress[] = {
		"loadscope ab: run 1/6 arm A: ready 3.000 s, exit 0, ",
		"loadscope ab: run 2/6 arm B: ready 0.500 s, exit 0, ",
		"loadscope ab: run 3/6 arm B: ready 0.700 s, exit 0, ",
		"loadscope ab: run 4/6 arm A: ready 1.000 s, exit 0, ",
		"loadscope ab: run 5/6 arm A: ready 2.000 s, exit 0, ",
		"loadscope ab: run 6/6 arm B: ready 0.600 s, exit 0, ",
	};
	const char *at = err;
	for (size_t i = 0; i < 6; i++) {
		const char *p = strstr(at, progress[i]);
		cr_assert_not_null(p, "%s not after %s", progress[i], at);
		at = p + 1;
	}
	/* The logs are kept where the report says, one per run. */
	char want[512];
	snprintf(want, sizeof(want), "\"index\":4,\"arm\":\"A\",\"log\":\"%s/logs/004-A.log\",\"exit\":0,", dir);
	cr_assert(strstr(out, want), "%s", out);
	slurp("logs/004-A.log", buf, sizeof(buf));
	cr_assert(strstr(buf, "load time =    1000 ms\n"), "%s", buf);
	slurp("logs/003-B.log", buf, sizeof(buf));
	cr_assert(strstr(buf, "load time =    700 ms\n"), "%s", buf);

	/* By hand: A 3.0 1.0 2.0 -> median 2.0 (1.0-3.0); B 0.5 0.7 0.6 -> 0.6
	 * (0.5-0.7); relative to the fastest arm, B: A 2.0 / 0.6 = 3.33333. */
	cr_assert(strstr(out, "\"table\":{\"keys\":[\"arm\"],\"relative_to\":\"load_to_ready_s\""), "%s", out);
	cr_assert(strstr(out, "{\"arm\":\"arm=A\",\"n\":3,\"few\":false,"), "%s", out);
	cr_assert(strstr(out, "\"load_to_ready_s\":{\"n\":3,\"median\":2,\"min\":1,\"max\":3},\"relative\":3.33333}"),
		  "%s", out);
	cr_assert(strstr(out, "{\"arm\":\"arm=B\",\"n\":3,\"few\":false,"), "%s", out);
	cr_assert(strstr(out, "\"load_to_ready_s\":{\"n\":3,\"median\":0.6,\"min\":0.5,\"max\":0.7},\"relative\":1}"),
		  "%s", out);
	cr_assert(strstr(out, "\"arm_spec\":\"thp=default,env=ARM=A\",\"thp\":\"default\",\"runs\":3,"
			      "\"ok\":3,\"failed\":0,\"timeouts\":0,"),
		  "%s", out);
	cr_assert(strstr(out, "\"arm_spec\":\"thp=off,env=ARM=B,env=LSCT_X=1\",\"thp\":\"off\""), "%s", out);
	/* the triage's figures joined per run and per arm: A's in run order
	 * 3.0 1.0 2.0, median 2; B's 0.5 0.7 0.6, median 0.6 */
	cr_assert(strstr(out, "\"ready_s\":[3,1,2],\"arm_spec\":\"thp=default"), "%s", out);
	cr_assert(strstr(out, "\"ready_s\":[0.5,0.7,0.6],\"arm_spec\":\"thp=off"), "%s", out);
	cr_assert(strstr(out, "\"load_to_ready_s\":{\"n\":3,\"median\":2}"), "%s", out);
	cr_assert(strstr(out, "\"load_to_ready_s\":{\"n\":3,\"median\":0.6}"), "%s", out);
	/* and tested as the wall time is: separated, but n = 3 cannot show it
	 * (p = 2 / C(6,3) = 0.1); B's median 2.0 / 0.6 = 3.33x lower */
	cr_assert(strstr(out, "\"metric\":\"load_to_ready_s\",\"test\":\"mann-whitney-u\",\"valid\":true,\"u\":9,"
			      "\"p\":0.1,\"exact\":true,\"faster\":\"B\",\"ratio\":3.33333333,\"significant\":false,"),
		  "%s", out);
}

/* This project's own lines: the start and ready lines a program using
 * loadscope prints, with a run id and wall_s per run. */
static const char fake_lsc[] =
	"#!/bin/sh\n"
	"n=$(cat \"$D/count.$ARM\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > \"$D/count.$ARM\"\n"
	"t=$(sed -n \"${n}p\" \"$D/times.$ARM\")\n"
	"r=$(printf '%08x' $((n * 16 + ${#ARM})))\n"
	"echo \"[loadscope/1] start engine: run $r, pid $$ | run=$r t_s=0.000 pid=$$ name=engine lib=0.2.0\"\n"
	"echo \"[loadscope/1] ready in $t s: 0 phases | run=$r t_s=$t wall_s=$t phases=0 covered_s=0 "
	"unattributed_s=$t\"\n";

Test(ab, this_projects_lines_in_markdown)
{
	const char *fake = lsct_scratch_file("fake.sh", fake_lsc, 0755);
	lsct_scratch_file("times.slow", "4.0\n6.0\n", 0644);
	lsct_scratch_file("times.fast", "1.0\n2.0\n", 0644);
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 2 --pause 0 --verbose --arm slow=env=ARM=slow --arm fast=env=ARM=fast --out '%s/logs' --format md "
			   "-- env D='%s' '%s'",
			   dir, dir, fake);
	cr_assert_eq(rc, 0, "%s", err);
	/* By hand: slow 4.0 6.0 -> 5.0 (4.0-6.0); fast 1.0 2.0 -> 1.5 (1.0-2.0);
	 * relative 5.0 / 1.5 = 3.33x. Two per arm: the few-starts warning. */
	cr_assert(strstr(out, "| **median, arm=slow (2)** | | - | - | - | **5.0** (4.0-6.0) | 3.33x |\n"), "%s", out);
	cr_assert(strstr(out, "| **median, arm=fast (2)** | | - | - | - | **1.5** (1.0-2.0) | 1.00x |\n"), "%s", out);
	cr_assert(strstr(out, "Arm \"arm=slow\" has 2 starts: fewer than 3"), "%s", out);
	cr_assert(strstr(out, "### Arm slow: findings\n"), "%s", out);
	/* the triage's table is a table of its own, under its heading, after
	 * the last run's row and before the arms' findings (Markdown would
	 * read rows right after the runs' as more runs) */
	const char *runs = strstr(out, "| run | arm | wall (s) |"), *tab = strstr(out, "\n\n### A/B table (triage)\n\n"),
		   *arm = strstr(out, "### Arm slow: findings");
	cr_assert(runs && tab && arm && runs < tab && tab < arm, "%s", out);
	cr_assert(!strncmp(tab - 2, " |", 2), "the heading right after the last run's row: %s", out);
	cr_assert_eq(tab[strlen("\n\n### A/B table (triage)\n\n")], '|', "%s", out);
	/* the arm's row, as many runs as asked; the phases the logs gave */
	cr_assert(strstr(out, "| slow | `env=ARM=slow` | 2 | "), "%s", out);
	cr_assert(strstr(out, "| arm | load to ready (s) | unattributed (s) |\n|---|---:|---:|\n"
			      "| slow | 5.000 | 5.000 |\n| fast | 1.500 | 1.500 |\n"),
		  "%s", out);
	cr_assert(strstr(out, "- load to ready: slow vs fast: no measurable difference at n = 2: run more (every run of "
			      "fast was faster, 3.33x by median, but n = 2 cannot show it: p = 0.33 is the least it "
			      "allows)\n"),
		  "%s", out);
	/* order: slow fast, fast slow */
	cr_assert(strstr(err, "run 1/4 arm slow: ready 4.000 s"), "%s", err);
	cr_assert(strstr(err, "run 2/4 arm fast: ready 1.000 s"), "%s", err);
	cr_assert(strstr(err, "run 3/4 arm fast: ready 2.000 s"), "%s", err);
	cr_assert(strstr(err, "run 4/4 arm slow: ready 6.000 s"), "%s", err);
}

static int gone(pid_t pid)
{
	char path[64], st[256];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 1;
	size_t n = fread(st, 1, sizeof(st) - 1, f);
	fclose(f);
	st[n] = 0;
	const char *p = strrchr(st, ')'); /* "pid (comm) S ..." */
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'); /* dead, not yet reaped */
}

/* Whether @pid (not a child of this process) ends: a SIGKILL is delivered
 * after kill() returns, so its end is waited for on a pidfd, which becomes
 * readable when the process exits. The 10 s bound is only for a process
 * nobody killed (a broken ab), which must fail the test, not hang it. */
static int ends(pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return errno == ESRCH || gone(pid);
	struct pollfd pf = {.fd = fd, .events = POLLIN};
	int r = poll(&pf, 1, 10000);
	close(fd);
	return r == 1 || gone(pid);
}

Test(ab, a_run_past_the_timeout_is_killed_and_counted)
{
	char fifo[256], buf[64];
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	/* Arm "hang" blocks on the FIFO, and so does a process it left in its
	 * group; arm "ok" finishes. Nobody ever writes the FIFO. */
	const char *fake = lsct_scratch_file(
		"fake.sh",
		"#!/bin/sh\n"
		"echo \"llama_model_loader: loaded meta data with 1 key-value pairs and 1 tensors from /m/x.gguf\"\n"
		"if [ \"$ARM\" = hang ]; then\n"
		"  cat \"$D/fifo\" > /dev/null &\n"
		"  echo $! > \"$D/grandchild\"; echo $$ > \"$D/child\"\n"
		"  read x < \"$D/fifo\"\n"
		"fi\n"
		"echo \"llama_perf_context_print:        load time =    250 ms\"\n",
		0755);
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 1 --pause 0 --arm ok=env=ARM=ok --arm hang=env=ARM=hang --timeout 1 --out '%s/logs' "
			   "--format json -- env D='%s' '%s'",
			   dir, dir, fake);
	cr_assert_eq(rc, 1, "%s", err);
	cr_assert(strstr(err, "loadscope ab: run 2/2 arm hang: ready n/a (no ready line recognised), exit timeout "
			      "(killed after "),
		  "%s", err);
	cr_assert(strstr(out, "\"index\":2,\"arm\":\"hang\","), "%s", out);
	cr_assert(strstr(out, ",\"exit\":null,\"signal\":null,\"timeout\":true,"), "%s", out);
	cr_assert(strstr(out, "\"arm_spec\":\"env=ARM=hang\",\"thp\":\"inherited\",\"runs\":1,\"ok\":0,"
			      "\"failed\":0,\"timeouts\":1,"),
		  "%s", out);
	cr_assert(strstr(out, "\"arm_spec\":\"env=ARM=ok\",\"thp\":\"inherited\",\"runs\":1,\"ok\":1,"), "%s", out);
	/* hyperfine's exit_codes: null for the run that was killed; no
	 * statistics over it (no run of the arm exited 0) */
	cr_assert(strstr(out, "{\"command\":\"hang\",\"mean\":null,\"stddev\":null,\"median\":null,"), "%s", out);
	cr_assert(strstr(out, "\"exit_codes\":[null],"), "%s", out);
	/* counted in the table as a start, with no time to ready */
	cr_assert(strstr(out, "{\"arm\":\"arm=hang\",\"n\":1,\"few\":true,"), "%s", out);
	/* the whole group went: the script and what it left behind */
	slurp("child", buf, sizeof(buf));
	cr_assert(gone((pid_t)atoi(buf)), "the run's shell %s is still alive", buf);
	slurp("grandchild", buf, sizeof(buf));
	cr_assert(ends((pid_t)atoi(buf)), "the run's background cat %s is still alive", buf);
}

/* CMD without "--", as run, env(1) and hyperfine take it: options end at
 * CMD, whose own options stay its own. */
Test(ab, cmd_without_dashdash)
{
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 1 --pause 0 --arm a=env=ARM=a --arm b=env=ARM=b --out '%s/logs' "
			   "sh -c 'echo $ARM >> %s/order' --runs",
			   dir, dir);
	cr_assert_eq(rc, 0, "%s", err);
	char buf[64];
	slurp("order", buf, sizeof(buf));
	cr_assert(!strcmp(buf, "a\nb\n") || !strcmp(buf, "b\na\n"), "%s", buf);
}

/* A container whose seccomp filter refuses prctl(PR_SET_THP_DISABLE) with
 * EPERM, installed in this test's process so that the shell, ab and ab's
 * children all inherit it: an arm asking for thp=off cannot run, and ab
 * says so in one line with the refusal's own words (the same refusal
 * here as in its child, not "refused in a child, not here"), before any
 * run. */
Test(ab, a_thp_control_refused_everywhere_is_one_line_with_its_words)
{
	struct sock_filter deny[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_THP_DISABLE, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof deny / sizeof deny[0], .filter = deny};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		cr_skip_test("no seccomp filter here: %s", strerror(errno));
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0 || errno != EPERM)
		cr_skip_test("the filter does not refuse prctl on this architecture");
	cr_assert_eq(chdir(dir), 0);
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err), "ab --runs 1 --arm A=thp=default --arm B=thp=off -- true");
	cr_assert_eq(rc, 1, "exit %d: %s", rc, err);
	cr_assert_str_eq(out, "", "nothing ran");
	/* the first arm that asks for a THP control is the one named */
	static const char want[] = "loadscope ab: arm A: --thp default: prctl(PR_SET_THP_DISABLE, 0, 0) failed: "
				   "Operation not permitted (kernel ";
	cr_assert(!strncmp(err, want, strlen(want)), "%s", err);
	cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
	glob_t g;
	cr_assert_eq(glob("loadscope-ab-*", 0, NULL, &g), GLOB_NOMATCH, "no run's directory was made");
}

Test(ab, usage_errors_run_nothing)
{
	const struct {
		const char *args, *want;
	} cases[] = {
		{"ab --runs 2 --arm A= -- true", "loadscope ab: one --arm: an A/B needs at least two --arm; see 'loadscope ab --help'\n"},
		{"ab --arm A= --arm B= --pause -1 -- true", "loadscope ab: --pause -1: a number from 0 to 3600; see 'loadscope ab --help'\n"},
		{"ab --arm A= --arm B= --warmup 101 -- true", "loadscope ab: --warmup 101: a whole number from 0 to 100; see 'loadscope ab --help'\n"},
		{"ab --arm A= --arm B= --prepare '' -- true", "loadscope ab: --prepare: an empty command; see 'loadscope ab --help'\n"},
		{"ab --arm A= --arm B= --export-json '' -- true", "loadscope ab: --export-json: an empty file name; see 'loadscope ab --help'\n"},
		{"ab --runs 0 --arm A= --arm B= -- true", "loadscope ab: --runs 0: a whole number from 1 to 1000; see 'loadscope ab --help'\n"},
		{"ab --runs 1 --arm A=thp=maybe --arm B= -- true", "loadscope ab: --arm A=thp=maybe: thp=maybe: thp=off, thp=except-advised or thp=default; see 'loadscope ab --help'\n"},
		{"ab --runs 1 --arm A=fast --arm B= -- true", "loadscope ab: --arm A=fast: fast: not thp=MODE or env=K=V (loadscope ab --help lists them); see 'loadscope ab --help'\n"},
		{"ab --runs 1 --arm A= --arm A= -- true", "loadscope ab: --arm A=: arm A given twice; see 'loadscope ab --help'\n"},
		{"ab --runs 1 --arm 'a b=' --arm B= -- true", "loadscope ab: --arm a b=: not NAME=SPEC with a NAME of at most 23 letters, digits, '.', '_' or '-'; see 'loadscope ab --help'\n"},
		{"ab --runs 1 --arm A= --arm B= --timeout 0 -- true", "loadscope ab: --timeout 0: a number above 0, at most 604800; see 'loadscope ab --help'\n"},
		{"ab --runs 1 --arm A= --arm B=", "loadscope ab: no CMD given; see 'loadscope ab --help'\n"},
		{"ab --runs 1 --arm A= --arm B= --", "loadscope ab: no CMD given; see 'loadscope ab --help'\n"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char args[512];
		snprintf(args, sizeof(args), "%s", cases[i].args);
		cr_assert_eq(chdir(dir), 0);
		cr_assert_eq(lsct_tool(out, sizeof(out), err, sizeof(err), "%s", args), 64, "%s", args);
		cr_assert_str_eq(out, "", "%s", args);
		cr_assert_str_eq(err, cases[i].want, "%s", args);
	}
	/* nothing was made: no ./loadscope-ab-XXXXXX */
	glob_t g;
	cr_assert_eq(glob("loadscope-ab-*", 0, NULL, &g), GLOB_NOMATCH);
}

/* The triage's two siblings ab rests on, called directly: the arm of an
 * input groups its starts in the table even when nothing else tells them
 * apart, and each start's time to ready reads back. */
Test(ab, triage_groups_by_the_inputs_arm)
{
	static const char *const logs[] = {
		"llama_model_loader: loaded meta data with 1 key-value pairs and 1 tensors from /m/x.gguf\n"
		"llama_perf_context_print:        load time =    4000.00 ms\n",
		"llama_model_loader: loaded meta data with 1 key-value pairs and 1 tensors from /m/x.gguf\n"
		"llama_perf_context_print:        load time =    1000.00 ms\n",
	};
	for (int named = 0; named < 2; named++) {
		struct lsc_triage_opts o = {.flags = LSC_TRIAGE_TABLE | LSC_TRIAGE_TABLE_ONLY};
		struct lsc_triage *t = lsc_triage_new(&o);
		cr_assert_not_null(t);
		for (int i = 0; i < 2; i++) {
			cr_assert_eq(lsc_triage_source(t, i ? "b.log" : "a.log"), 0);
			if (named)
				cr_assert_eq(lsc_triage_arm(t, i ? "fast" : "slow"), 0);
			cr_assert_eq(lsc_triage_feed(t, logs[i], strlen(logs[i])), 0);
		}
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		cr_assert_eq(lsc_triage_render(t, LSC_TRIAGE_JSON, m), 0);
		fclose(m);
		if (named) {
			cr_assert(strstr(buf, "{\"keys\":[\"arm\"],"), "%s", buf);
			cr_assert(strstr(buf, "{\"arm\":\"arm=slow\",\"n\":1,"), "%s", buf);
			cr_assert(strstr(buf, "{\"arm\":\"arm=fast\",\"n\":1,"), "%s", buf);
		} else {
			cr_assert(strstr(buf, "{\"keys\":[],"), "%s", buf);
			cr_assert(strstr(buf, "{\"arm\":\"all starts\",\"n\":2,"), "%s", buf);
		}
		free(buf);
		struct lsc_triage_start_info si;
		cr_assert_eq(lsc_triage_start(t, 0, &si), 0);
		cr_assert_float_eq(si.ready_s, 4.0, 1e-9);
		cr_assert_eq(lsc_triage_start(t, 1, &si), 0);
		cr_assert_float_eq(si.ready_s, 1.0, 1e-9);
		cr_assert_eq(lsc_triage_start(t, 2, &si), -ENOENT);
		lsc_triage_free(t);
	}
}

/* ab keeps its log directory's name in 400 bytes. A longer --out was cut
 * there, so the logs went to whatever the cut named: here P/, the parent
 * of the P/runs asked for (P is 398 bytes long), where nothing of this
 * experiment belongs. A name that does not fit is refused before any run. */
Test(ab, an_out_directory_too_long_to_keep_is_refused)
{
	char p[512];
	snprintf(p, sizeof(p), "%s", dir);
	cr_assert_lt(strlen(p), 300);
	size_t pad = 398 - strlen(p) - 1; /* "/" + the padding: P is 398 bytes */
	char *end = p + strlen(p);
	*end++ = '/';
	while (pad) {
		size_t k = pad > 200 ? 200 : pad;
		if (pad - k == 1)
			k--; /* no component of 0 bytes after a '/' */
		memset(end, 'd', k);
		end += k;
		*end = 0;
		cr_assert_eq(mkdir(p, 0777), 0, "%s: %s", p, strerror(errno));
		pad -= k;
		if (pad) {
			*end++ = '/';
			pad--;
		}
	}
	cr_assert_eq(strlen(p), 398);
	cr_assert_eq(chdir(dir), 0);
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 1 --pause 0 --arm A= --arm B= --out '%s/runs' -- true", p);
	char stray[600];
	snprintf(stray, sizeof(stray), "%s/001-A.log", p);
	cr_assert_neq(access(stray, F_OK), 0, "a log written outside --out: %s", stray);
	cr_assert_neq(rc, 0, "%s", err);
	cr_assert(strstr(err, "--out"), "%s", err);
}

/* Any command is compared by the wall time ab measures itself: here one
 * that prints nothing, sleeping 0.02 s in one arm and 0.6 s in the other,
 * a difference far beyond a loaded machine's jitter. Five runs each, every
 * fast run below every slow one: p = 2 / C(10,5) = 0.0079. */
Test(ab, any_command_by_its_wall_time)
{
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 5 --pause 0 --arm slow=env=T=0.6 --arm fast=env=T=0.02 --out '%s/logs' "
			   "-- sh -c 'sleep $T'",
			   dir);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert(strstr(out, "loadscope ab: sh -c 'sleep $T'\n2 arms x 5 runs, interleaved, 0 s apart; logs in "), "%s", out);
	cr_assert(strstr(out, "\nslow               5 "), "%s", out);
	cr_assert(strstr(out, "\nfast               5 "), "%s", out);
	const char *v = strstr(out, "\nfast is ");
	cr_assert_not_null(v, "%s", out);
	double ratio = 0;
	cr_assert_eq(sscanf(v, "\nfast is %lfx faster than slow (p = 0.0079)", &ratio), 1, "%s", out);
	cr_assert(strstr(v, "x faster than slow (p = 0.0079)\n"), "%s", out);
	cr_assert_gt(ratio, 1.0);
	/* nothing the triage reads: no phases, no per-start findings */
	cr_assert_null(strstr(out, "phases"), "%s", out);
	cr_assert_null(strstr(out, "findings"), "%s", out);
}

/* At n = 3 no order of the runs can reach p < 0.05 (the least is 0.1):
 * whatever the times, the verdict is no measurable difference. */
Test(ab, three_runs_cannot_show_a_difference)
{
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 3 --pause 0 --arm a=env=X=1 --arm b=env=X=2 --out '%s/logs' -- true", dir);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert(strstr(out, "\na vs b: no measurable difference at n = 3: run more ("), "%s", out);
}

/* --prepare runs before every run, warm-ups included, in the arm's
 * environment; the warm-up rounds come first and are not counted. */
Test(ab, warmup_and_prepare_in_order)
{
	char buf[4096];
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 2 --warmup 1 --pause 0 --arm A=env=ARM=A --arm B=env=ARM=B --out '%s/logs' "
			   "--prepare 'echo p $ARM >> %s/order' --format json -- sh -c 'echo r $ARM >> %s/order'",
			   dir, dir, dir);
	cr_assert_eq(rc, 0, "%s", err);
	slurp("order", buf, sizeof(buf));
	/* warm-up round A B; then A B, B A */
	cr_assert_str_eq(buf, "p A\nr A\np B\nr B\np A\nr A\np B\nr B\np B\nr B\np A\nr A\n");
	cr_assert(strstr(err, "loadscope ab: warm-up 1/2 arm A: exit 0, "), "%s", err);
	cr_assert(strstr(err, "loadscope ab: warm-up 2/2 arm B: exit 0, "), "%s", err);
	cr_assert(strstr(err, "loadscope ab: run 4/4 arm A: "), "%s", err);
	cr_assert_null(strstr(err, "run 5/"), "%s", err);
	cr_assert(strstr(out, "\"runs_planned\":4,\"warmup\":1,\"pause_s\":0,\"prepare\":\"echo p $ARM >> "), "%s", out);
	cr_assert(strstr(out, "{\"command\":\"A\","), "%s", out);
	cr_assert(strstr(out, "\"exit_codes\":[0,0],"), "%s", out);
	slurp("logs/prepare.log", buf, sizeof(buf));
	cr_assert(strstr(buf, "loadscope ab: arm B: prepare: echo p $ARM >> "), "%s", buf);
	slurp("logs/w001-A.log", buf, sizeof(buf));
	cr_assert(strstr(buf, "loadscope ab: arm A: "), "%s", buf);
	/* the logs are the user's files: 0666 under the umask, as any file a
	 * program creates (no execute or sticky bit, readable where the umask
	 * allows) */
	mode_t um = umask(0);
	umask(um);
	static const char *const logs[] = {"logs/prepare.log", "logs/w001-A.log"};
	for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		char path[512];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, logs[i]);
		cr_assert(stat(path, &st) == 0, "%s", path);
		cr_expect_eq(st.st_mode & 07777, 0666 & ~um, "%s: mode %o", logs[i], (unsigned)(st.st_mode & 07777));
	}
}

/* A failing --prepare stops the experiment: no run after it, exit 1. */
Test(ab, a_failing_prepare_stops)
{
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 3 --pause 0 --arm A=env=ARM=A --arm B=env=ARM=B --out '%s/logs' "
			   "--prepare '[ -e %s/stop ] && exit 3; [ $ARM = B ] && touch %s/stop; exit 0' -- true",
			   dir, dir, dir);
	cr_assert_eq(rc, 1, "%s", err);
	/* A, then B (whose prepare made the mark), then B's second prepare fails */
	cr_assert(strstr(err, "loadscope ab: run 2/6 arm B: "), "%s", err);
	cr_assert(strstr(err, "loadscope ab: --prepare for arm B: exit 3 (its output in "), "%s", err);
	cr_assert_null(strstr(err, "run 3/6"), "%s", err);
	cr_assert(strstr(out, "2 arms, 2 of 6 runs"), "%s", out);
}

/* Whether @text has the verdict line of arms @x and @y (one-letter names),
 * in any of its forms. */
static int pair_verdict(const char *text, char x, char y)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char vs[16], xy[40], yx[40];
		snprintf(vs, sizeof vs, "%c vs %c: ", x, y);
		snprintf(xy, sizeof xy, "%c is %%*fx faster than %c %%n", x, y);
		snprintf(yx, sizeof yx, "%c is %%*fx faster than %c %%n", y, x);
		int n = 0;
		if (!strncmp(l, vs, strlen(vs)))
			return 1;
		if ((sscanf(l, xy, &n), n > 0) || (sscanf(l, yx, &n), n > 0))
			return 1;
	}
	return 0;
}

/* Three arms: over 6 rounds each arm runs first twice and follows each
 * other arm twice (a Williams design), as the runs' own record shows. */
Test(ab, three_arms_rotated_and_balanced)
{
	char buf[4096];
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 6 --pause 0 --arm a=env=ARM=a --arm b=env=ARM=b --arm c=env=ARM=c --out '%s/logs' "
			   "-- sh -c 'echo $ARM >> %s/order'",
			   dir, dir);
	cr_assert_eq(rc, 0, "%s", err);
	slurp("order", buf, sizeof(buf));
	cr_assert_eq(strlen(buf), 36, "%s", buf);
	unsigned first[3] = {0}, after[3][3] = {{0}};
	for (unsigned r = 0; r < 6; r++) {
		const char *round = buf + r * 6; /* "x\ny\nz\n" */
		cr_assert(round[0] != round[2] && round[2] != round[4] && round[0] != round[4], "%s", buf);
		first[round[0] - 'a']++;
		after[round[0] - 'a'][round[2] - 'a']++;
		after[round[2] - 'a'][round[4] - 'a']++;
	}
	for (unsigned a = 0; a < 3; a++) {
		cr_assert_eq(first[a], 2, "%s", buf);
		for (unsigned b = 0; b < 3; b++)
			cr_assert_eq(after[a][b], a == b ? 0 : 2, "%c then %c: %s", 'a' + a, 'a' + b, buf);
	}
	/* three pairs, each with its verdict: "x vs y: no measurable ..." or,
	 * when the shells' start-up times happened to differ, "x is N.NNx
	 * faster than y" either way round */
	cr_assert(pair_verdict(out, 'a', 'b'), "%s", out);
	cr_assert(pair_verdict(out, 'a', 'c'), "%s", out);
	cr_assert(pair_verdict(out, 'b', 'c'), "%s", out);
}

/* CPU time and peak RSS come from wait4: an arm whose shell holds a
 * 40 MB string peaks above 40 MB, one that holds 10 bytes far below. */
Test(ab, peak_rss_from_wait4)
{
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 1 --pause 0 --arm big=env=N=40000000 --arm small=env=N=10 --out '%s/logs' "
			   "--format json -- sh -c 'x=$(head -c $N /dev/zero | tr \"\\\\0\" a); echo ${#x}'",
			   dir);
	cr_assert_eq(rc, 0, "%s", err);
	long long big = 0, small = 0;
	const char *b = strstr(out, "{\"command\":\"big\""), *s = strstr(out, "{\"command\":\"small\"");
	cr_assert(b && s, "%s", out);
	cr_assert_eq(sscanf(strstr(b, "\"memory_usage_byte\":["), "\"memory_usage_byte\":[%lld]", &big), 1, "%s", out);
	cr_assert_eq(sscanf(strstr(s, "\"memory_usage_byte\":["), "\"memory_usage_byte\":[%lld]", &small), 1, "%s", out);
	cr_assert_gt(big, 40000000LL, "%s", out);
	cr_assert_lt(small, 20000000LL, "%s", out);
	cr_assert_gt(small, 0);
	char buf[256];
	slurp("logs/001-big.log", buf, sizeof(buf));
	cr_assert(strstr(buf, "\n40000000\n"), "%s", buf);
}

/* ab --help lists every arm spec there is, with an example of each: the
 * process THP modes, and every arena policy the loader itself names when
 * LOADSCOPE_ARENA_THP holds something else (its fallback line's list). */
Test(ab, help_lists_every_spec_and_the_loaders_policies)
{
	static char help[1 << 14];
	const char *f = lsct_scratch_file("f.bin", "some bytes to load\n", 0644);
	cr_assert_eq(lsct_tool(help, sizeof(help), err, sizeof(err), "ab --help"), 0, "%s", err);
	for (const char *m = "off\0except-advised\0default\0"; *m; m += strlen(m) + 1) {
		char want[64];
		snprintf(want, sizeof(want), "      thp=%s ", m);
		cr_assert(strstr(help, want), "no %s in %s", want, help);
	}
	cr_assert(strstr(help, "      env=K=V "), "%s", help);
	/* the loader's list, from the loader */
	cr_assert_eq(setenv("LOADSCOPE_ARENA_THP", "not-a-policy", 1), 0);
	lsct_tool(out, sizeof(out), err, sizeof(err), "load '%s'", f);
	unsetenv("LOADSCOPE_ARENA_THP");
	const char *l = strstr(out, "is not a policy (");
	cr_assert_not_null(l, "the loader did not name its policies: %s", out);
	l += strlen("is not a policy (");
	unsigned n = 0;
	while (*l && *l != ')') {
		size_t k = strcspn(l, ",)");
		char want[96];
		snprintf(want, sizeof(want), "=env=LOADSCOPE_ARENA_THP=%.*s ", (int)k, l);
		cr_assert(strstr(help, want), "ab --help has no example of %.*s: %s", (int)k, l, help);
		n++;
		l += k;
		l += strspn(l, ", ");
	}
	cr_assert_geq(n, 5, "%s", out);
}

/* --pause S: between two runs at least S seconds pass (a lower bound, as
 * the runs note their own start times; nothing can make it shorter). */
Test(ab, the_pause_between_runs)
{
	char buf[4096];
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 2 --pause 0.3 --arm a= --arm b= --out '%s/logs' --format json "
			   "-- sh -c 'date +%%s.%%N >> %s/stamps'",
			   dir, dir);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert(strstr(out, "\"pause_s\":0.3,"), "%s", out);
	slurp("stamps", buf, sizeof(buf));
	double t[4];
	const char *p = buf;
	for (int i = 0; i < 4; i++) {
		char *e;
		t[i] = strtod(p, &e);
		cr_assert_neq(e, p, "%s", buf);
		p = e;
	}
	for (int i = 1; i < 4; i++)
		cr_assert_geq(t[i] - t[i - 1], 0.3, "runs %d and %d %.3f s apart: %s", i, i + 1, t[i] - t[i - 1], buf);
	/* the default, as --help says it */
	cr_assert_eq(lsct_tool(out, sizeof(out), err, sizeof(err), "ab --help"), 0);
	cr_assert(strstr(out, "  --pause S          seconds between runs, after --prepare (default 3: "), "%s", out);
}

/* Told to stop (SIGINT or SIGTERM) while a run is running: ab ends that
 * run's whole process group, starts no other run, reports the run as
 * interrupted (not a timeout, not an exit) with what it had, and exits 1.
 * The run tells the test it began through a FIFO the test reads, so the
 * signal lands while it runs, with no sleeping; nobody writes the FIFO
 * the run then waits on. What the run left in its group ignores SIGTERM,
 * so only the SIGKILL after its leader went ends it. (--timeout only bounds a broken ab: a signal it
 * missed would show as a timeout, not hang the suite.) */
static void stopped_by(int sig)
{
	char started[256], hold[256], errp[256], buf[64], log[8192];
	snprintf(started, sizeof(started), "%s/started", dir);
	snprintf(hold, sizeof(hold), "%s/hold", dir);
	snprintf(errp, sizeof(errp), "%s/stderr", dir);
	cr_assert_eq(mkfifo(started, 0600), 0);
	cr_assert_eq(mkfifo(hold, 0600), 0);
	const char *fake = lsct_scratch_file(
		"fake.sh",
		"#!/bin/sh\n"
		"echo \"$ARM\" >> \"$D/order\"\n"
		"echo \"llama_model_loader: loaded meta data with 1 key-value pairs and 1 tensors from /m/x.gguf\"\n"
		"(trap '' TERM; exec cat \"$D/hold\" > /dev/null) &\n"
		"echo $! > \"$D/grandchild\"\n"
		"echo $$ > \"$D/started\"\n"
		"read x < \"$D/hold\"\n"
		"echo \"llama_perf_context_print:        load time =    250 ms\"\n",
		0755);
	char outdir[256], cmd[256];
	snprintf(outdir, sizeof(outdir), "%s/logs", dir);
	snprintf(cmd, sizeof(cmd), "D=%s", dir);
	const char *argv[] = {"ab",   "--runs", "3",      "--pause", "0",   "--arm", "first=env=ARM=first",
			      "--arm", "second=env=ARM=second", "--timeout", "30", "--out", outdir,
			      "--format", "json", "--", "env", cmd, fake, NULL};
	struct lsct_child c;
	cr_assert_eq(lsct_tool_spawn(&c, argv, errp), 0);
	FILE *f = fopen(started, "r"); /* opens once the run opens it to write */
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	pid_t run = (pid_t)atoi(buf);
	cr_assert_gt(run, 1);
	cr_assert_eq(kill(c.pid, sig), 0);
	log[0] = 0;
	int rc = lsct_child_finish(&c, log, sizeof(log));
	slurp("stderr", err, sizeof(err));
	cr_assert_eq(rc, 1, "exit %d\n%s\n%s", rc, log, err);
	cr_assert(strstr(err, "loadscope ab: run 1/6 arm first: ready n/a (no ready line recognised), exit interrupted"),
		  "%s", err);
	cr_assert_null(strstr(err, "run 2/6"), "a run started after the stop: %s", err);
	slurp("order", buf, sizeof(buf));
	cr_assert_str_eq(buf, "first\n");
	/* a survivor is ended here before the assertion, so that a failing
	 * test leaves nothing blocked on the FIFO */
	int shell_gone = gone(run);
	slurp("grandchild", buf, sizeof(buf));
	pid_t cat = (pid_t)atoi(buf);
	int cat_gone = ends(cat);
	if (!shell_gone)
		kill(run, SIGKILL);
	if (!cat_gone && cat > 1)
		kill(cat, SIGKILL);
	cr_assert(shell_gone, "the run's shell %d is still alive", (int)run);
	cr_assert(cat_gone, "the run's background cat %d, deaf to SIGTERM, is still alive", (int)cat);
	/* the report still comes, with the one run as neither ok nor a timeout */
	cr_assert(strstr(log, "\"arm_spec\":\"env=ARM=first\",\"thp\":\"inherited\",\"runs\":1,\"ok\":0,"), "%s", log);
	cr_assert(strstr(log, "\"timeout\":false,"), "%s", log);
}

Test(ab, sigterm_ends_the_running_run_and_starts_no_other)
{
	stopped_by(SIGTERM);
}

Test(ab, sigint_ends_the_running_run_and_starts_no_other)
{
	stopped_by(SIGINT);
}

/* The run's process gets the signal mask ab had before it blocked SIGINT,
 * SIGTERM and SIGCHLD for its loop (a blocked mask survives exec: a
 * start that could not be stopped by Ctrl-C or its supervisor), and its
 * log opens with the arm and the program exec'd. The program is grep, not
 * a shell: dash clears the mask it was given. */
Test(ab, the_run_gets_the_mask_and_names_its_program)
{
	char buf[4096];
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 1 --pause 0 --arm A=env=X=1 --arm B=env=X=2 --out '%s/logs' -- grep SigBlk /proc/self/status",
			   dir);
	cr_assert_eq(rc, 0, "%s", err);
	slurp("logs/001-A.log", buf, sizeof(buf));
	cr_assert(strstr(buf, "loadscope ab: arm A: "), "%s", buf);
	cr_assert(strstr(buf, "; exec grep\n"), "%s", buf);
	const char *k = strstr(buf, "SigBlk:");
	cr_assert_not_null(k, "%s", buf);
	unsigned long long mask = strtoull(k + 7, NULL, 16);
	unsigned long long held = (1ull << (SIGINT - 1)) | (1ull << (SIGTERM - 1)) | (1ull << (SIGCHLD - 1));
	cr_expect_eq(mask & held, 0, "the run starts with %#llx blocked", mask & held);
}

/* An arm none of whose runs exited 0 has no figures: its row says `-` in
 * every column after its count (no number left over from the arm above),
 * and with --verbose a run with no ready line says `-` for its ready time,
 * in the text and in the Markdown export. */
Test(ab, an_arm_with_no_good_run_and_a_run_with_no_ready_line_show_dashes)
{
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 3 --pause 0 --verbose --arm a=env=X=1 --arm b=env=X=2 --out '%s/logs' "
			   "--export-markdown '%s/ab.md' -- sh -c 'test $X = 1'",
			   dir, dir);
	cr_assert_eq(rc, 1, "%s%s", out, err);
	const char *b = strstr(out, "\nb ");
	cr_assert_not_null(b, "%s", out);
	char row[256];
	cr_assert_eq(sscanf(b + 1, "%255[^\n]", row), 1);
	char *save = NULL, *tok = strtok_r(row, " ", &save);
	cr_assert_str_eq(tok, "b");
	cr_assert_str_eq(strtok_r(NULL, " ", &save), "0", "%s", out);
	unsigned dashes = 0;
	while ((tok = strtok_r(NULL, " ", &save))) {
		cr_expect_str_eq(tok, "-", "arm b's row has a figure: %s", out);
		dashes++;
	}
	/* mean, median, min, max, relative, user, sys, RSS */
	cr_assert_eq(dashes, 8, "%s", out);
	/* each of b's runs exited 1 in time: counted failed, none timed out;
	 * a's runs all exited 0, so no such line for a */
	cr_expect(strstr(out, "arm b: 3 of 3 runs failed, 0 timed out"), "%s", out);
	const char *f1 = strstr(out, "runs failed");
	cr_expect(f1 && !strstr(f1 + 1, "runs failed"), "one arm with failed runs: %s", out);
	/* the run rows: `   N arm wall exit ready log`, ready the one before the log */
	unsigned runs = 0;
	for (const char *s = strstr(out, "\n run arm"); s && (s = strchr(s + 1, '\n')) && s[1] == ' ';) {
		char line[512], *w[16];
		unsigned n = 0;
		cr_assert_eq(sscanf(s + 1, "%511[^\n]", line), 1);
		for (char *t = strtok_r(line, " ", &save); t && n < 16; t = strtok_r(NULL, " ", &save))
			w[n++] = t;
		cr_assert_geq(n, 6, "%s", s + 1);
		cr_expect_str_eq(w[n - 2], "-", "run %u's ready time: %s", runs + 1, out);
		runs++;
	}
	cr_assert_eq(runs, 6, "%s", out);
	char md[8192];
	slurp("ab.md", md, sizeof(md));
	const char *mb = strstr(md, "\n| b | ");
	cr_assert_not_null(mb, "%s", md);
	cr_assert_eq(sscanf(mb + 1, "%255[^\n]", row), 1);
	/* | b | `X=2` | 0 | - | - | - | - | - | - | - | - | */
	const char *cells = strstr(row, "| 0 |");
	cr_assert_not_null(cells, "%s", row);
	cr_expect_str_eq(cells, "| 0 | - | - | - | - | - | - | - | - |", "%s", md);
}
