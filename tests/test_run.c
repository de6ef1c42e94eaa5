/*
 * Description: `loadscope run`, the built program (LSC_TEST_TOOL) setting
 * the process THP control and exec'ing a command that inherits it: --thp
 * off shows in the child's /proc/self/status (THP_enabled 0), --thp
 * default undoes an inherited off, except-advised is set where this kernel
 * has it (PR_GET_THP_DISABLE in the child, through `loadscope probe`'s
 * thp_prctl) and refused in one line where it does not (this kernel's own
 * answer, and an older kernel's EINVAL through a seccomp filter on a
 * kernel that has it); --env reaches the child; CMD's own exit status, 127
 * for a CMD not found, 64 for a usage error, with nothing run; CMD without
 * '--', as env(1) takes it, and its options left to it.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/tool_run.h"

#ifndef PR_THP_DISABLE_EXCEPT_ADVISED
#define PR_THP_DISABLE_EXCEPT_ADVISED (1 << 1)
#endif

static char out[1 << 16], err[1 << 14];

static void setup(void)
{
	lsct_tool_required();
	lsct_scratch("run");
}

TestSuite(run, .init = setup, .fini = lsct_scratch_remove);

/* Does this kernel print THP_enabled at all (CONFIG_TRANSPARENT_HUGEPAGE era)? */
static void need_thp_status(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int have = 0;
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		have |= !strncmp(line, "THP_enabled:", 12);
	fclose(f);
	if (!have)
		cr_skip_test("this kernel's /proc/self/status has no THP_enabled line");
}

/* Does this kernel take PR_THP_DISABLE_EXCEPT_ADVISED? Asked in a child, so
 * that the test process keeps its own control. */
static int kernel_has_except_advised(void)
{
	pid_t pid = fork();
	int st;
	if (pid == 0)
		_exit(prctl(PR_SET_THP_DISABLE, 1, PR_THP_DISABLE_EXCEPT_ADVISED, 0, 0) == 0 ? 0 : errno == EINVAL ? 1 : 2);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) < 2, "prctl failed other than with EINVAL");
	return WEXITSTATUS(st) == 0;
}

Test(run, off_shows_in_the_childs_status)
{
	need_thp_status();
	cr_assert_eq(lsct_tool(out, sizeof(out), err, sizeof(err), "run --thp off -- grep THP_enabled /proc/self/status"),
		     0, "%s", err);
	cr_assert_str_eq(out, "THP_enabled:\t0\n");
	cr_assert(strstr(err, "loadscope run: --thp off: THP disabled (PR_SET_THP_DISABLE 1"), "%s", err);
	cr_assert(strstr(err, "; exec grep\n"), "%s", err);
	/* one line, before the exec */
	cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "%s", err);
}

Test(run, default_undoes_an_inherited_off)
{
	need_thp_status();
	cr_assert_eq(lsct_tool(out, sizeof(out), err, sizeof(err),
			       "run --thp off -- '%s' run --thp default -- grep THP_enabled /proc/self/status",
			       LSC_TEST_TOOL),
		     0, "%s", err);
	cr_assert_str_eq(out, "THP_enabled:\t1\n");
	cr_assert(strstr(err, "loadscope run: --thp default: THP allowed"), "%s", err);
	/* and without --thp, the inherited control stays */
	cr_assert_eq(lsct_tool(out, sizeof(out), err, sizeof(err),
			       "run --thp off -- '%s' run -- grep THP_enabled /proc/self/status", LSC_TEST_TOOL),
		     0, "%s", err);
	cr_assert_str_eq(out, "THP_enabled:\t0\n");
	cr_assert(strstr(err, "loadscope run: THP control inherited: THP disabled"), "%s", err);
}

Test(run, except_advised_where_the_kernel_has_it)
{
	if (!kernel_has_except_advised()) {
		/* An older kernel: the refusal, in one line, and CMD not run. */
		cr_assert_eq(lsct_tool(out, sizeof(out), err, sizeof(err), "run --thp except-advised -- echo ran"), 1);
		cr_assert_str_eq(out, "");
		cr_assert(strstr(err, "loadscope run: --thp except-advised: this kernel ("), "%s", err);
		cr_assert(strstr(err, ") refuses PR_THP_DISABLE_EXCEPT_ADVISED (prctl: EINVAL;"), "%s", err);
		return;
	}
	/* The child's PR_GET_THP_DISABLE (probe's thp_prctl): bits 1 and 2. */
	/* probe's own status says what it warned of: not this test's business */
	cr_assert_eq(lsct_tool(out, sizeof(out), err, sizeof(err),
			       "run --thp except-advised -- sh -c \"'%s' probe; exit 0\"", LSC_TEST_TOOL),
		     0, "%s", err);
	cr_assert(strstr(out, " thp_prctl=disabled-except-advised "), "%s", out);
	cr_assert(strstr(err, "loadscope run: --thp except-advised: THP disabled except where advised"), "%s", err);
	/* The kernel's THP_enabled says "completely disabled" only: still 1. */
	need_thp_status();
	cr_assert_eq(lsct_tool(out, sizeof(out), err, sizeof(err),
			       "run --thp except-advised -- grep THP_enabled /proc/self/status"),
		     0, "%s", err);
	cr_assert_str_eq(out, "THP_enabled:\t1\n");
}

/* A kernel before 6.18 answers prctl(PR_SET_THP_DISABLE, 1, 2) with EINVAL;
 * a seccomp filter gives that answer here, to the program only. */
static int exec_under_older_kernel(const char *args)
{
#if defined(__x86_64__)
	const unsigned arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
	const unsigned arch = AUDIT_ARCH_AARCH64;
#else
	const unsigned arch = 0;
	cr_skip_test("no seccomp architecture constant for this machine in the test");
#endif
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 0, 7),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_THP_DISABLE, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PR_THP_DISABLE_EXCEPT_ADVISED, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "LOADSCOPE= '%s' %s", LSC_TEST_TOOL, args);
	int pfd[2], efd[2];
	cr_assert_eq(pipe(pfd), 0);
	cr_assert_eq(pipe(efd), 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(efd[1], 2);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			_exit(99);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(98);
	}
	close(pfd[1]);
	close(efd[1]);
	ssize_t n = read(pfd[0], out, sizeof(out) - 1);
	out[n > 0 ? n : 0] = 0;
	size_t e = 0;
	while ((n = read(efd[0], err + e, sizeof(err) - 1 - e)) > 0)
		e += (size_t)n;
	err[e] = 0;
	close(pfd[0]);
	close(efd[0]);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st));
	cr_assert_neq(WEXITSTATUS(st), 99, "seccomp filter refused");
	return WEXITSTATUS(st);
}

Test(run, except_advised_refused_by_an_older_kernel)
{
	cr_assert_eq(exec_under_older_kernel("run --thp except-advised -- echo ran"), 1, "%s", err);
	cr_assert_str_eq(out, "");
	cr_assert(strstr(err, "loadscope run: --thp except-advised: this kernel ("), "%s", err);
	/* the kernel named is this one, by its release (seed 20261218's
	 * survivor at thp_ctl.c:49: a "?" put there when uname succeeded) */
	struct utsname u;
	cr_assert_eq(uname(&u), 0);
	char named[160];
	snprintf(named, sizeof named, "this kernel (%s) refuses", u.release);
	cr_expect(strstr(err, named), "no \"%s\" in: %s", named, err);
	cr_assert(strstr(err, ") refuses PR_THP_DISABLE_EXCEPT_ADVISED (prctl: EINVAL; the mode came with Linux "
			      "6.18); --thp off disables THP for every mapping instead\n"),
		  "%s", err);
	/* the filter leaves --thp off alone */
	cr_assert_eq(exec_under_older_kernel("run --thp off -- echo ran"), 0, "%s", err);
	cr_assert_str_eq(out, "ran\n");
}

Test(run, env_and_exit_status)
{
	cr_assert_eq(lsct_tool(out, sizeof(out), err, sizeof(err),
			       "run --env LSCT_A=one --env 'LSCT_B=two words' -- sh -c 'echo \"$LSCT_A/$LSCT_B\"; exit 7'"),
		     7, "%s", err);
	cr_assert_str_eq(out, "one/two words\n");
	cr_assert(strstr(err, "; env LSCT_A=one LSCT_B=two words; exec sh\n"), "%s", err);
	cr_assert_eq(lsct_tool(out, sizeof(out), err, sizeof(err), "run -- /nonexistent/lsct-cmd"), 127);
	cr_assert(strstr(err, "loadscope run: /nonexistent/lsct-cmd: No such file or directory\n"), "%s", err);
}

Test(run, usage_errors_run_nothing)
{
	const struct {
		const char *args, *want;
	} cases[] = {
		{"run --thp sometimes -- echo ran", "loadscope run: --thp sometimes: off, except-advised or default; see 'loadscope run --help'\n"},
		{"run --env =x -- echo ran", "loadscope run: --env =x: not NAME=VALUE; see 'loadscope run --help'\n"},
		{"run --env X -- echo ran", "loadscope run: --env X: not NAME=VALUE; see 'loadscope run --help'\n"},
		{"run --thp off --", "loadscope run: no CMD given; see 'loadscope run --help'\n"},
		{"run --thp off", "loadscope run: no CMD given; see 'loadscope run --help'\n"},
		{"run --bogus echo ran", "loadscope run: --bogus: unknown option; see 'loadscope run --help'\n"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(lsct_tool(out, sizeof(out), err, sizeof(err), "%s", cases[i].args), 64, "%s", cases[i].args);
		cr_assert_str_eq(out, "", "%s", cases[i].args);
		cr_assert_str_eq(err, cases[i].want, "%s", cases[i].args);
	}
}

/* As env, nice, taskset and numactl: options end at CMD, so '--' is
 * optional, and what follows CMD is CMD's, options that look like run's
 * included. */
Test(run, cmd_without_dashdash)
{
	cr_assert_eq(lsct_tool(out, sizeof(out), err, sizeof(err), "run --env LSCT_A=one sh -c 'echo \"$LSCT_A\"; exit 5'"),
		     5, "%s", err);
	cr_assert_str_eq(out, "one\n");
	cr_assert(strstr(err, "; env LSCT_A=one; exec sh\n"), "%s", err);
	/* CMD's own --thp and --env are its arguments, not run's */
	cr_assert_eq(lsct_tool(out, sizeof(out), err, sizeof(err), "run echo --thp off --env A=b -- x"), 0, "%s", err);
	cr_assert_str_eq(out, "--thp off --env A=b -- x\n");
	cr_assert(strstr(err, "THP control inherited"), "no --thp was run's: %s", err);
	/* a CMD that begins with '-' still needs '--' */
	cr_assert_eq(lsct_tool(out, sizeof(out), err, sizeof(err), "run -- echo -n x"), 0, "%s", err);
	cr_assert_str_eq(out, "x");
}
