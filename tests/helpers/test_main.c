/*
 * The main of every test program: Criterion's own run, with one change to
 * its exit status. Criterion counts a skipped test as passing and exits 0,
 * so CTest's SKIP_RETURN_CODE (77, the automake and liburing convention)
 * never saw a skip: a program whose tests all passed or skipped, at least
 * one skipped, now exits 77, and CTest lists it as "Not Run" (Skipped). A
 * failure or a crash still exits 1, whatever else skipped. Before exiting
 * the program repeats every skip with its reason on stderr, after the
 * synthesis line, so the reason stands beside CTest's verdict. Linked as
 * objects into every test program, like test_env.c.
 */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <stdio.h>
#include <string.h>

#define SKIP_EXIT 77

static size_t n_tests, n_skipped, n_failed, n_crashed;
static char skips[8192];

/* Tests that a worker started. Criterion reports a test that --filter left
 * out (or .disabled) as skipped too, without starting it: that is the
 * caller's choice, not a missing feature, and is no reason for 77. */
static const struct criterion_test *started[4096];
static size_t n_started;

/* The runner calls the hooks in this process, as its workers report. */
ReportHook(PRE_INIT)(struct criterion_test *t)
{
	if (n_started < sizeof started / sizeof started[0])
		started[n_started++] = t;
}

static int was_started(const struct criterion_test *t)
{
	for (size_t i = 0; i < n_started; i++)
		if (started[i] == t)
			return 1;
	return 0;
}

ReportHook(POST_TEST)(struct criterion_test_stats *st)
{
	if (st->test_status != CR_STATUS_SKIPPED || !was_started(st->test))
		return;
	n_skipped++;
	size_t n = strlen(skips);
	snprintf(skips + n, sizeof skips - n, "[SKIP] %s::%s: %s\n", st->test->category,
		 st->test->name, st->message ? st->message : "(no reason given)");
}

ReportHook(POST_ALL)(struct criterion_global_stats *st)
{
	n_tests = st->nb_tests;
	n_failed = st->tests_failed;
	n_crashed = st->tests_crashed;
}

/* Default visibility: the worker finds main by its symbol to enter the
 * test instead (BoxFort), and the build hides symbols by default. */
__attribute__((visibility("default"))) int main(int argc, char *argv[])
{
	struct criterion_test_set *tests = criterion_initialize();
	int result = 0;
	if (criterion_handle_args(argc, argv, true))
		result = !criterion_run_all_tests(tests);
	criterion_finalize(tests);
	if (result == 0 && n_skipped && !n_failed && !n_crashed) {
		fprintf(stderr, "%s%zu of %zu tests skipped, none failed: exit %d (skipped)\n", skips,
			n_skipped, n_tests, SKIP_EXIT);
		return SKIP_EXIT;
	}
	return result;
}
