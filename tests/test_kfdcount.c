/*
 * Description: the KFD EAGAIN counter (tools/preload, libloadscope_kfdcount.so)
 * and the library's reader of it (src/pin/kfd_counter.c).
 *
 * This machine has no /dev/kfd, so the test runs this very executable again
 * as a child under LD_PRELOAD with two seams, and says so:
 *   - LSC_KFDCOUNT_KFD_PATH names a scratch file to treat as the KFD node;
 *   - a seccomp filter makes the kernel answer the KFD allocation request
 *     number with EAGAIN, standing in for the driver (before the filter, the
 *     same request on a regular file gets the kernel's real ENOTTY).
 * What is tested: forwarding to the real ioctl (FIONREAD on a pipe returns
 * the real byte count through the preload), errno kept across the wrapper,
 * the request filter, the fd test (the same request on another file counts
 * as not-KFD), the EAGAIN and other-error counts, the reader finding the
 * preload through dlsym(RTLD_DEFAULT), -ENOENT without the preload, and the
 * exit report file. What is not: a real /dev/kfd, ROCm's own retry loop,
 * and the time figures beyond their consistency (eagain time <= total).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <loadscope/loader.h>

#include "loader/arena.h"
#include "pin/kfd_counter.h"

#define CHILD_ENV "LSC_KFDCOUNT_TEST_CHILD"

static int deny_kfd_alloc_with_eagain(void)
{
#if defined(__x86_64__)
	const unsigned arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
	const unsigned arch = AUDIT_ARCH_AARCH64;
#else
	return -1;
#endif
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 3),
		/* low 32 bits of args[1] (little-endian) */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)LSC__KFD_IOC_ALLOC_MEMORY_OF_GPU, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EAGAIN & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) ? -1 : 0;
}

/* A pin table standing in for hipHostRegister over KFD: each pin makes the
 * allocation ioctl on the "KFD" file, which the filter answers with EAGAIN
 * twice before the call counts as done, as ROCm's retry loop would. */
static int kfd_fd = -1;

static int kfd_pin(void *addr, size_t len, unsigned flags, unsigned *retries, char *why,
		   size_t why_len)
{
	struct lsc__kfd_alloc_args args = {0};
	(void)addr, (void)len, (void)flags, (void)why, (void)why_len;
	for (int i = 0; i < 2; i++)
		(void)ioctl(kfd_fd, LSC__KFD_IOC_ALLOC_MEMORY_OF_GPU, &args);
	*retries = 2;
	return 0;
}

static int kfd_unpin(void *addr, size_t len)
{
	(void)addr, (void)len;
	return 0;
}

static const struct lsc__pin_ops kfd_ops = {
	.name = "kfd-test", .caps = LSC__PIN_CAP_REGISTER | LSC__PIN_CAP_LOCKS,
	.pin = kfd_pin, .unpin = kfd_unpin,
};

static void print_line(void *user, const char *line, size_t len)
{
	(void)user;
	if (strstr(line, "topic=kfd"))
		fwrite(line, 1, len, stdout);
}

/* Child mode "arena": the loader's pin phase over 3 segments reports the
 * KFD counts the preload saw during it. */
static void arena_child(void)
{
	kfd_fd = open(getenv("LSC_KFDCOUNT_KFD_PATH"), O_RDWR);
	if (kfd_fd < 0 || deny_kfd_alloc_with_eagain())
		_exit(4);
	struct lsc_profiler_options po;
	lsc_profiler_options_init(&po);
	po.sink = print_line;
	po.mode = LSC_MODE_ON;
	po.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
	lsc_profiler *p;
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.thp = LSC_THP_4K;
	o.pin_segment_bytes = 1 << 20;
	struct lsc__arena a = {0};
	if (lsc_profiler_create(&po, &p) || lsc__arena_alloc(p, &o, 3 << 20, &a))
		_exit(5);
	lsc__pin_override(&kfd_ops);
	if (lsc__arena_pin(p, &o, &a))
		_exit(5);
	lsc__pin_override(NULL);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
	fflush(stdout);
	exit(0);
}

/* The child: runs before Criterion's main when CHILD_ENV is set, prints one
 * line of results and exits. */
__attribute__((constructor)) static void child(void)
{
	const char *mode = getenv(CHILD_ENV);
	if (!mode)
		return;
	if (!strcmp(mode, "arena"))
		arena_child();
	struct lsc__kfd_alloc_args args = {0};
	int p[2], n = -1;
	int fwd_ok, kfd, other, errno_kept = 1, enotty = 0;

	/* 1. forwarding: the real ioctl answers through the preload. */
	if (pipe(p) || write(p[1], "12345", 5) != 5)
		_exit(3);
	fwd_ok = ioctl(p[0], FIONREAD, &n) == 0 && n == 5;

	kfd = open(getenv("LSC_KFDCOUNT_KFD_PATH"), O_RDWR);
	other = open("/proc/self/exe", O_RDONLY);
	if (kfd < 0 || other < 0)
		_exit(4);
	/* 2. the request on the "KFD" file, before the seccomp filter: a real
	 *    ENOTTY from the kernel, counted as another failure. */
	if (ioctl(kfd, LSC__KFD_IOC_ALLOC_MEMORY_OF_GPU, &args) == -1 && errno == ENOTTY)
		enotty = 1;
	/* 3. the kernel now answers that request with EAGAIN, as KFD does. */
	if (deny_kfd_alloc_with_eagain())
		_exit(5);
	for (int i = 0; i < 3; i++) {
		errno = 0;
		if (ioctl(kfd, LSC__KFD_IOC_ALLOC_MEMORY_OF_GPU, &args) != -1 || errno != EAGAIN)
			errno_kept = 0;
	}
	/* 4. the same request on a file that is not KFD: not counted as KFD. */
	for (int i = 0; i < 2; i++)
		(void)ioctl(other, LSC__KFD_IOC_ALLOC_MEMORY_OF_GPU, &args);

	uint64_t v[LSC__KFD_STAT_COUNT];
	int got = lsc__kfd_counter_read_all(v, LSC__KFD_STAT_COUNT);
	uint64_t calls = 0, eagain = 0, ns = 0;
	int r = lsc__kfd_counter_read(&calls, &eagain, &ns);
	printf("got=%d r=%d fwd_ok=%d enotty=%d errno_kept=%d calls=%llu eagain=%llu ns_ok=%d "
	       "other_err=%llu not_kfd=%llu ioctls=%llu calls2=%llu eagain2=%llu\n",
	       got, r, fwd_ok, enotty, errno_kept, (unsigned long long)v[LSC__KFD_CALLS],
	       (unsigned long long)v[LSC__KFD_EAGAIN], v[LSC__KFD_EAGAIN_NS] <= v[LSC__KFD_NS],
	       (unsigned long long)v[LSC__KFD_OTHER_ERR], (unsigned long long)v[LSC__KFD_NOT_KFD],
	       (unsigned long long)v[LSC__KFD_IOCTLS], (unsigned long long)calls,
	       (unsigned long long)eagain);
	fflush(stdout);
	exit(0); /* exit, not _exit: the preload's report runs as a destructor */
}

static char preload[4096];

static void find_preload(void)
{
	char tool[4096];
	snprintf(tool, sizeof(tool), "%s", LSC_TEST_TOOL);
	if (!tool[0])
		cr_skip_test("LSC_TEST_TOOL is empty: the tools (and the preload) are not built");
	snprintf(preload, sizeof(preload), "%s/libloadscope_kfdcount.so", dirname(tool));
	if (access(preload, R_OK))
		cr_skip_test("%s not built", preload);
}

/* Run the child; fills @line with its output. Returns its exit status. */
static int run_child_mode(const char *mode, const char *report, char *line, size_t line_len)
{
	char self[4096], fake[] = "/tmp/lsc-kfdXXXXXX", cmd[16384];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	cr_assert_gt(n, 0);
	self[n] = '\0';
	int fd = mkstemp(fake);
	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "exec env %s=%s LD_PRELOAD='%s' LSC_KFDCOUNT_KFD_PATH='%s' LSC_KFDCOUNT_FILE='%s' "
		 "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 '%s'",
		 CHILD_ENV, mode, preload, fake, report ? report : "", self);
	FILE *f = popen(cmd, "r");
	cr_assert_not_null(f);
	line[0] = '\0';
	if (!fgets(line, (int)line_len, f))
		line[0] = '\0';
	int st = pclose(f);
	unlink(fake);
	return st;
}

static int run_child(const char *report, char *line, size_t line_len)
{
	return run_child_mode("1", report, line, line_len);
}

static unsigned long long field(const char *line, const char *key)
{
	char k[64];
	snprintf(k, sizeof(k), " %s=", key);
	char padded[4096];
	snprintf(padded, sizeof(padded), " %s", line);
	const char *p = strstr(padded, k);
	cr_assert_not_null(p, "no %s in '%s'", key, line);
	return strtoull(p + strlen(k), NULL, 10);
}

Test(kfdcount, reader_without_preload_is_enoent)
{
	uint64_t calls = 9, eagain = 9, ns = 9;
	cr_assert_eq(lsc__kfd_counter_read(&calls, &eagain, &ns), -ENOENT);
	cr_assert_eq(calls, 0);
	cr_assert_eq(eagain, 0);
	cr_assert_eq(ns, 0);
	cr_assert_eq(lsc__kfd_counter_read(NULL, NULL, NULL), -ENOENT);
}

Test(kfdcount, counts_kfd_eagain_under_the_preload)
{
	char line[4096];
	find_preload();
	int st = run_child(NULL, line, sizeof(line));
	cr_log_info("child: %s", line);
	cr_assert_eq(st, 0, "child exit status %d, output '%s'", st, line);
	cr_assert_eq(field(line, "got"), LSC__KFD_STAT_COUNT, "the reader found the preload");
	cr_assert_eq(field(line, "r"), 0);
	cr_assert_eq(field(line, "fwd_ok"), 1, "FIONREAD through the preload: %s", line);
	cr_assert_eq(field(line, "enotty"), 1, "the real ioctl's ENOTTY came back: %s", line);
	cr_assert_eq(field(line, "errno_kept"), 1, "EAGAIN survived the wrapper: %s", line);
	cr_assert_eq(field(line, "calls"), 4, "%s", line);
	cr_assert_eq(field(line, "eagain"), 3, "%s", line);
	cr_assert_eq(field(line, "other_err"), 1, "%s", line);
	cr_assert_eq(field(line, "not_kfd"), 2, "%s", line);
	cr_assert_geq(field(line, "ioctls"), 7, "%s", line);
	cr_assert_eq(field(line, "ns_ok"), 1, "%s", line);
	cr_assert_eq(field(line, "calls2"), 4, "lsc__kfd_counter_read agrees: %s", line);
	cr_assert_eq(field(line, "eagain2"), 3, "%s", line);
}

Test(kfdcount, writes_the_exit_report)
{
	char line[4096], report[] = "/tmp/lsc-kfdrepXXXXXX", text[1024] = "";
	find_preload();
	int fd = mkstemp(report);
	cr_assert_geq(fd, 0);
	close(fd);
	int st = run_child(report, line, sizeof(line));
	cr_assert_eq(st, 0, "child: %s", line);
	FILE *f = fopen(report, "r");
	cr_assert_not_null(f);
	char *got = fgets(text, sizeof(text), f);
	fclose(f);
	unlink(report);
	cr_assert_not_null(got, "the report file is empty");
	cr_log_info("report: %s", text);
	cr_assert(strstr(text, "kfd_calls=4 kfd_eagain=3 "), "report: '%s'", text);
	cr_assert(strstr(text, "not_kfd=2"), "report: '%s'", text);
}

/* The loader's own report: the pin phase over three 1 MiB segments saw six
 * KFD allocation ioctls, all answered EAGAIN, and says so in a kfd note. */
Test(kfdcount, loader_reports_kfd_retries_of_its_pin_phase)
{
	char line[4096];
	find_preload();
	int st = run_child_mode("arena", NULL, line, sizeof(line));
	cr_assert_eq(st, 0, "child exit status %d, output '%s'", st, line);
	cr_assert(strstr(line, "[loadscope/2] note kfd: 6 ALLOC_MEMORY_OF_GPU ioctls"), "%s", line);
	cr_assert(strstr(line, " kfd_calls=6 kfd_eagain=6 "), "%s", line);
	cr_assert(strstr(line, " backend=kfd-test "), "%s", line);
}
