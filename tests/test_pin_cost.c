/*
 * Description: pin cost accounting (tools/pin_cost.c): cost per GiB
 * over all calls, and a call flagged slow when it costs more than 4x the
 * median per-GiB cost of the calls before it. Pure arithmetic on figures
 * the test chooses; no clock is read.
 */
#include <criterion/criterion.h>

#include "pin_cost.h"

#define GIB (1ull << 30)
#define MS 1000000ull

Test(pin_cost, totals_and_cost_per_gib)
{
	struct lsc__pin_cost c;
	lsc__pin_cost_init(&c);
	cr_assert_eq(lsc__pin_cost_s_per_gib(&c), 0);
	for (int i = 0; i < 4; i++)
		lsc__pin_cost_add(&c, GIB, 500 * MS, (unsigned)i, NULL);
	cr_assert_eq(c.calls, 4);
	cr_assert_eq(c.bytes, 4 * GIB);
	cr_assert_eq(c.retries, 0 + 1 + 2 + 3);
	cr_assert_float_eq(lsc__pin_cost_s_per_gib(&c), 0.5, 1e-9);
	cr_assert_eq(c.slow, 0);
}

Test(pin_cost, no_judgement_without_a_baseline)
{
	struct lsc__pin_cost c;
	int slow = -1;
	lsc__pin_cost_init(&c);
	cr_assert_eq(lsc__pin_cost_add(&c, GIB, 100 * MS, 0, &slow), 0);
	cr_assert_eq(slow, 0);
	/* one previous call is not a median yet */
	cr_assert_eq(lsc__pin_cost_add(&c, GIB, 100000 * MS, 0, &slow), 0);
	cr_assert_eq(slow, 0);
	cr_assert_eq(c.slow, 0);
}

Test(pin_cost, flags_a_call_far_above_the_median)
{
	struct lsc__pin_cost c;
	int slow = -1;
	lsc__pin_cost_init(&c);
	lsc__pin_cost_add(&c, GIB, 500 * MS, 0, NULL);
	lsc__pin_cost_add(&c, GIB, 600 * MS, 0, NULL);
	lsc__pin_cost_add(&c, GIB, 400 * MS, 0, NULL);
	/* half a GiB in 1.25 s = 2.5 s/GiB = 5x the median 0.5 s/GiB */
	double ratio = lsc__pin_cost_add(&c, GIB / 2, 1250 * MS, 7, &slow);
	cr_assert_float_eq(ratio, 5.0, 1e-9);
	cr_assert_eq(slow, 1);
	cr_assert_eq(c.slow, 1);
	cr_assert_eq(c.worst_call, 3);
	/* the near miss: 1.95 s/GiB against the median 0.55 s/GiB (3.5x) is not slow */
	ratio = lsc__pin_cost_add(&c, GIB, 500 * MS * 39 / 10 + 0, 0, &slow);
	cr_assert_lt(ratio, 4.0);
	cr_assert_eq(slow, 0);
	cr_assert_eq(c.slow, 1);
}

Test(pin_cost, tiny_calls_are_counted_not_judged)
{
	struct lsc__pin_cost c;
	int slow = -1;
	lsc__pin_cost_init(&c);
	lsc__pin_cost_add(&c, GIB, 500 * MS, 0, NULL);
	lsc__pin_cost_add(&c, GIB, 500 * MS, 0, NULL);
	cr_assert_eq(lsc__pin_cost_add(&c, 4096, 50 * MS, 0, &slow), 0);
	cr_assert_eq(slow, 0);
	cr_assert_eq(c.calls, 3);
	cr_assert_eq(c.n_window, 2);
}
