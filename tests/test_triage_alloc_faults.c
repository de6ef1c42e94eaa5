/*
 * The triage with its allocations failing, one at a time, at every point:
 * a program triaging logs inside an engine's process (or a container near
 * its memory limit) must not crash, and what it could not keep must not be
 * counted as read. The test program replaces malloc with glibc's own behind
 * a countdown (glibc lets a program define malloc, calloc, realloc and free;
 * __libc_malloc and its kin are the allocator underneath), armed only
 * around lsc_triage_feed and lsc_triage_finish, and fails the k-th
 * allocation there for every k until a run needs fewer. The property, for
 * every k: the run finishes, and a line no start could be made for is not
 * counted recognised. An ASan or TSan build brings its own allocator, which
 * this one would split in two: there the tests are a loud skip.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "helpers/triage_run.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LSC_OWN_MALLOC 0
#else
#define LSC_OWN_MALLOC 1
#endif

#if LSC_OWN_MALLOC
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t m);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);

/* the allocations left before the failing one while armed; -1 unarmed */
static long countdown = -1;
static long counted;

static int fail_now(void)
{
	if (countdown < 0)
		return 0;
	counted++;
	return countdown-- == 0;
}

void *malloc(size_t n) { return fail_now() ? NULL : __libc_malloc(n); }
void *calloc(size_t n, size_t m) { return fail_now() ? NULL : __libc_calloc(n, m); }
void *realloc(void *p, size_t n) { return fail_now() ? NULL : __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
#endif

struct outcome {
	int starts;
	unsigned long recognised;
	long allocations; /* made while armed (the run's own) */
};

/* Triage @log with the @k-th allocation of its feed and finish failing
 * (k < 0: none fails). */
static struct outcome run_failing(const char *log, long k)
{
	struct outcome o = {0};
#if LSC_OWN_MALLOC
	struct lsc_triage *t = lsc_triage_new(NULL);
	cr_assert(t);
	counted = 0;
	countdown = k < 0 ? 1L << 40 : k;
	lsc_triage_feed(t, log, strlen(log));
	lsc_triage_finish(t);
	countdown = -1;
	o.allocations = counted;
	struct lsc_triage_start_info si;
	while (lsc_triage_start(t, (size_t)o.starts, &si) == 0)
		o.starts++;
	o.recognised = lsc_triage_nrecognised(t);
	lsc_triage_free(t);
#else
	(void)log;
	(void)k;
#endif
	return o;
}

static void skip_under_sanitizers(void)
{
	if (!LSC_OWN_MALLOC)
		cr_skip_test("SKIP: a sanitizer build brings its own malloc; the countdown allocator is left out");
}

/* A setting pasted under the command that printed it (`cat .../enabled`,
 * then `always [madvise] never`) is read into the start it opens; where
 * that start could not be made, the line is not counted recognised. */
Test(alloc_faults, a_setting_with_no_start_made_is_not_recognised)
{
	skip_under_sanitizers();
	static const char *const logs[] = {
		"$ cat /sys/kernel/mm/transparent_hugepage/enabled\nalways [madvise] never\n",
		"$ cat /sys/kernel/mm/transparent_hugepage/defrag\nalways defer defer+madvise [madvise] never\n",
		"$ cat /proc/sys/vm/nr_hugepages\n0\n",
	};
	for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		struct outcome whole = run_failing(logs[i], -1);
		cr_assert_eq(whole.starts, 1, "no start in:\n%s", logs[i]);
		cr_assert_gt(whole.recognised, 0);
		int none_made = 0;
		for (long k = 0; k < whole.allocations; k++) {
			struct outcome o = run_failing(logs[i], k);
			if (o.starts)
				continue;
			none_made++;
			cr_expect_eq(o.recognised, 0, "allocation %ld failed: no start, but %lu line(s) recognised in:\n%s", k,
				     o.recognised, logs[i]);
		}
		/* the start's own allocation is among those failed */
		cr_expect_gt(none_made, 0, "no failing allocation left the start unmade:\n%s", logs[i]);
	}
}

/* Every allocation of a real start's triage failing in turn: the run ends,
 * and finds no more starts than the whole run. */
Test(alloc_faults, every_allocation_failing_in_turn)
{
	skip_under_sanitizers();
	static const char log[] = "INFO 10-16 15:30:00 [api_server.py:1] vLLM API server version 0.10.1\n"
				  "Loading safetensors checkpoint shards: 100% Completed | 4/4 [05:10<00:00, 77.5s/it]\n"
				  "INFO 10-16 15:35:12 [default_loader.py:267] Loading weights took 312.50 seconds\n"
				  "INFO 10-16 15:35:13 [gpu_model_runner.py:1] Model loading took 32.8894 GiB and 313.87 seconds\n"
				  "INFO:     Application startup complete.\n";
	struct outcome whole = run_failing(log, -1);
	cr_assert_eq(whole.starts, 1);
	cr_assert_gt(whole.allocations, 0);
	for (long k = 0; k < whole.allocations; k++) {
		struct outcome o = run_failing(log, k);
		cr_expect_leq(o.starts, whole.starts, "allocation %ld failed: %d starts", k, o.starts);
		cr_expect_leq(o.recognised, whole.recognised, "allocation %ld failed: %lu recognised", k, o.recognised);
	}
}
