/*
 * Description: `loadscope ab`'s arithmetic (tools/ab_stats.c) and its order
 * of runs (tools/ab_order.c), called directly. The statistics against
 * values worked by hand here; the Mann-Whitney U test against the published
 * two-sided 0.05 critical values for equal samples (n = 5: 2, 6: 5, 7: 8,
 * 8: 13, 9: 17, 10: 23, 20: 127; e.g. Siegel & Castellan, table J), on both
 * sides of each (p <= 0.05 at the critical U, above at one more), and
 * against exact probabilities counted by hand (2 / C(n1 + n2, n1) for
 * complete separation), with ties through the normal approximation worked
 * by hand; the verdict's words on each side of the threshold and at the
 * floor n = 3 cannot get under; the rounds' order balanced as a Williams
 * design must be, for every number of arms ab takes.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ab.h"

Test(ab_stats, mean_sd_median_by_hand)
{
	struct ab_stats s;
	const double odd[] = {3, 1, 10, 4, 2};
	ab_stats_of(odd, 5, &s);
	/* mean 20 / 5 = 4; squares 1 9 36 0 4 = 50, / 4 -> sqrt(12.5) */
	cr_assert_eq(s.n, 5);
	cr_assert_float_eq(s.mean, 4.0, 1e-12);
	cr_assert_float_eq(s.sd, 3.5355339059, 1e-9);
	cr_assert_float_eq(s.median, 3.0, 1e-12);
	cr_assert_float_eq(s.min, 1.0, 1e-12);
	cr_assert_float_eq(s.max, 10.0, 1e-12);
	const double even[] = {4, 1, 3, 2};
	ab_stats_of(even, 4, &s);
	/* the middle two 2 and 3; squares 2.25 .25 .25 2.25 = 5, / 3 */
	cr_assert_float_eq(s.median, 2.5, 1e-12);
	cr_assert_float_eq(s.sd, 1.2909944487, 1e-9);
	const double one[] = {7};
	ab_stats_of(one, 1, &s);
	cr_assert_float_eq(s.mean, 7.0, 1e-12);
	cr_assert(isnan(s.sd), "one run has no sigma");
	ab_stats_of(one, 0, &s);
	cr_assert(isnan(s.mean) && isnan(s.median));
	cr_assert(isnan(ab_median(one, 0)));
}

/* Samples of @n each whose U (pairs a > b) is @u: b = 1..n, each a
 * between c and c + 1, above exactly c of the b's, the c's summing to u;
 * no two values equal. */
static void with_u(unsigned n, unsigned u, double *a, double *b)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned c = u > n ? n : u;
		u -= c;
		a[i] = c + 0.1 + 0.8 * i / n;
		b[i] = i + 1;
	}
	cr_assert_eq(u, 0);
}

Test(ab_stats, mann_whitney_against_the_tables)
{
	static const unsigned crit[][2] = {{5, 2}, {6, 5}, {7, 8}, {8, 13}, {9, 17}, {10, 23}, {20, 127}};
	double a[20], b[20];
	struct ab_mwu t;
	for (size_t i = 0; i < sizeof(crit) / sizeof(crit[0]); i++) {
		unsigned n = crit[i][0], u = crit[i][1];
		with_u(n, u, a, b);
		cr_assert_eq(ab_mwu(a, n, b, n, &t), 0);
		cr_assert(t.exact, "n = %u: no ties, exact", n);
		cr_assert_float_eq(t.u, u, 1e-9);
		cr_assert_leq(t.p, 0.05, "n = %u, U = %u: p = %g", n, u, t.p);
		with_u(n, u + 1, a, b);
		cr_assert_eq(ab_mwu(a, n, b, n, &t), 0);
		cr_assert_gt(t.p, 0.05, "n = %u, U = %u: p = %g", n, u + 1, t.p);
		/* the mirror: U counted from the other side, the same p */
		struct ab_mwu m;
		cr_assert_eq(ab_mwu(b, n, a, n, &m), 0);
		cr_assert_float_eq(m.u, n * n - (u + 1.0), 1e-9);
		cr_assert_float_eq(m.p, t.p, 1e-12);
	}
}

Test(ab_stats, mann_whitney_exact_by_hand)
{
	struct ab_mwu t;
	const double lo3[] = {1, 2, 3}, hi3[] = {4, 5, 6};
	cr_assert_eq(ab_mwu(lo3, 3, hi3, 3, &t), 0);
	cr_assert_float_eq(t.u, 0, 1e-12);
	cr_assert_float_eq(t.p, 2.0 / 20, 1e-12); /* C(6,3) = 20 orders, 2 as extreme */
	const double lo5[] = {0.1, 0.11, 0.12, 0.105, 0.09}, hi5[] = {0.3, 0.31, 0.29, 0.32, 0.305};
	cr_assert_eq(ab_mwu(hi5, 5, lo5, 5, &t), 0);
	cr_assert_float_eq(t.u, 25, 1e-12);
	cr_assert_float_eq(t.p, 2.0 / 252, 1e-12);
	/* 4 against 4 with one overlap: U = 1; U <= 1 in 2 of 70 orders */
	const double a4[] = {1, 2, 3, 5}, b4[] = {4, 6, 7, 8};
	cr_assert_eq(ab_mwu(a4, 4, b4, 4, &t), 0);
	cr_assert_float_eq(t.u, 1, 1e-12);
	cr_assert_float_eq(t.p, 4.0 / 70, 1e-12);
	/* unequal sizes: 3 against 5, separated: 2 / C(8,3) */
	cr_assert_eq(ab_mwu(lo3, 3, hi5, 5, &t), 0);
	cr_assert_float_eq(t.p, 2.0 / 56, 1e-12);
	/* interleaved evenly: U at its mean, p = 1 */
	const double x[] = {1, 4, 5, 8}, y[] = {2, 3, 6, 7};
	cr_assert_eq(ab_mwu(x, 4, y, 4, &t), 0);
	cr_assert_float_eq(t.u, 8, 1e-12);
	cr_assert_float_eq(t.p, 1, 1e-12);
	cr_assert_eq(ab_mwu(x, 0, y, 4, &t), -1);
	/* the floor: the strongest result n runs can give */
	cr_assert_float_eq(ab_mwu_floor(3, 3), 0.1, 1e-12);
	cr_assert_float_eq(ab_mwu_floor(4, 4), 2.0 / 70, 1e-12);
	cr_assert_float_eq(ab_mwu_floor(5, 5), 2.0 / 252, 1e-12);
	cr_assert_float_eq(ab_mwu_floor(3, 5), 2.0 / 56, 1e-12);
	cr_assert_float_eq(ab_mwu_floor(1, 1), 1, 1e-12);
}

Test(ab_stats, mann_whitney_ties_normal_by_hand)
{
	struct ab_mwu t;
	/* pooled 1 1 1 | 2 x 6 | 3 3 3: mid-ranks 2, 6.5, 11; R_a = 3 * 2 +
	 * 3 * 6.5 = 25.5, U = 25.5 - 21 = 4.5, mean 18; ties 24 + 210 + 24 =
	 * 258, var = 36 / 12 * (13 - 258 / 132) = 33.136364; z = (13.5 - 0.5)
	 * / 5.756419 = 2.258345, p = erfc(z / sqrt 2) = 0.023925 */
	const double a[] = {1, 1, 1, 2, 2, 2}, b[] = {2, 2, 2, 3, 3, 3};
	cr_assert_eq(ab_mwu(a, 6, b, 6, &t), 0);
	cr_assert_not(t.exact, "ties: the normal approximation");
	cr_assert_float_eq(t.u, 4.5, 1e-12);
	cr_assert_float_eq(t.p, 0.023925, 2e-6);
	/* nearly the same samples: far above the threshold */
	const double c[] = {1, 2, 2, 3}, d[] = {1, 2, 3, 3};
	cr_assert_eq(ab_mwu(c, 4, d, 4, &t), 0);
	cr_assert_gt(t.p, 0.5);
	/* every value equal: nothing to tell apart */
	const double e[] = {2, 2, 2};
	cr_assert_eq(ab_mwu(e, 3, e, 3, &t), 0);
	cr_assert_float_eq(t.p, 1, 1e-12);
}

static struct ab_pair pair(double p, double u, int faster, double ratio)
{
	struct ab_pair q = {.a = 0, .b = 1, .valid = 1, .faster = faster, .ratio = ratio};
	q.t.p = p;
	q.t.u = u;
	q.t.exact = 1;
	return q;
}

Test(ab_stats, the_verdict_on_each_side)
{
	struct ab_pair q = pair(2.0 / 252, 25, 1, 3.0);
	ab_conclude(&q, "slow", "fast", 5, 5);
	cr_assert_str_eq(q.conclusion, "fast is 3.00x faster than slow (p = 0.0079)");
	q = pair(0.01, 2, 0, 1.344);
	ab_conclude(&q, "A", "B", 8, 8);
	cr_assert_str_eq(q.conclusion, "A is 1.34x faster than B (p = 0.01)");
	/* just above the threshold: no difference, whatever the ratio */
	q = pair(4.0 / 70, 1, 0, 2.0);
	ab_conclude(&q, "A", "B", 4, 4);
	cr_assert_str_eq(q.conclusion, "A vs B: no measurable difference at n = 4: run more (p = 0.057)");
	q = pair(0.84, 11, 0, 1.001);
	ab_conclude(&q, "a", "b", 5, 5);
	cr_assert_str_eq(q.conclusion, "a vs b: no measurable difference at n = 5: run more (p = 0.84)");
	/* n = 3 separated: the strongest result there is, said so */
	q = pair(0.1, 9, 1, 2.93);
	ab_conclude(&q, "slow", "fast", 3, 3);
	cr_assert_str_eq(q.conclusion, "slow vs fast: no measurable difference at n = 3: run more (every run of fast "
				       "was faster, 2.93x by median, but n = 3 cannot show it: p = 0.1 is the least it "
				       "allows)");
	/* p below the threshold, the medians under 1% apart: not a difference
	 * an A/B is about; just over 1%: one */
	q = pair(0.0079, 25, 0, 1.0093);
	ab_conclude(&q, "a", "b", 5, 5);
	cr_assert_not(ab_differ(&q));
	cr_assert_str_eq(q.conclusion,
			 "a vs b: no measurable difference at n = 5: the medians are 0.9% apart, under 1% (p = 0.0079)");
	q = pair(0.0079, 25, 0, 1.0107);
	ab_conclude(&q, "a", "b", 5, 5);
	cr_assert(ab_differ(&q));
	cr_assert_str_eq(q.conclusion, "a is 1.01x faster than b (p = 0.0079)");
	/* on each threshold itself: medians exactly 1% apart differ (at
	 * least 1%, docs/cli.md), p exactly 0.05 does not (below it) */
	q = pair(0.0079, 25, 0, 1.01);
	cr_assert(ab_differ(&q), "a ratio of exactly 1.01");
	q = pair(0.05, 25, 0, 1.5);
	cr_assert_not(ab_differ(&q), "p of exactly 0.05");
	q = pair(0.0001, 0, 0, 5);
	ab_conclude(&q, "x", "y", 30, 20);
	cr_assert_str_eq(q.conclusion, "x is 5.00x faster than y (p < 0.001)");
	q = pair(0.5, 0, 0, 1);
	q.valid = 0;
	ab_conclude(&q, "x", "y", 1, 3);
	cr_assert_str_eq(q.conclusion, "x vs y: too few runs that exited 0 to compare (n = 1 and 3): run more");
}

Test(ab_stats, rounds_are_a_williams_design)
{
	/* two arms: A B, B A, A B, ... */
	const unsigned two[] = {0, 1, 1, 0, 0, 1, 1, 0};
	for (unsigned i = 0; i < 8; i++)
		cr_assert_eq(ab_arm_at(i / 2, i % 2, 2), two[i], "run %u", i);
	for (unsigned k = 2; k <= AB_ARMS_MAX; k++) {
		unsigned rows = k % 2 ? 2 * k : k, first[AB_ARMS_MAX] = {0}, after[AB_ARMS_MAX][AB_ARMS_MAX] = {{0}};
		for (unsigned r = 0; r < rows; r++) {
			unsigned seen = 0;
			for (unsigned j = 0; j < k; j++) {
				unsigned a = ab_arm_at(r, j, k);
				cr_assert_lt(a, k);
				cr_assert_not(seen & 1u << a, "k = %u round %u: arm %u twice", k, r, a);
				seen |= 1u << a;
				if (j)
					after[ab_arm_at(r, j - 1, k)][a]++;
				else
					first[a]++;
			}
			/* the design repeats */
			for (unsigned j = 0; j < k; j++)
				cr_assert_eq(ab_arm_at(r + rows, j, k), ab_arm_at(r, j, k));
		}
		for (unsigned a = 0; a < k; a++) {
			cr_assert_eq(first[a], rows / k, "k = %u: arm %u first %u times", k, a, first[a]);
			for (unsigned b = 0; b < k; b++)
				if (a != b)
					cr_assert_eq(after[a][b], rows / k, "k = %u: %u then %u %u times", k, a, b,
						     after[a][b]);
		}
	}
}
