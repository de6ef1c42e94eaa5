/*
 * The arithmetic of `loadscope ab`, on plain arrays so that it is tested on
 * its own (tests/test_ab_stats.c) against values worked by hand and the
 * published tables: mean, sample standard deviation (n - 1, as hyperfine),
 * median (the mean of the middle two for an even n), and the Mann-Whitney U
 * test of whether two arms' wall times differ.
 *
 * Mann-Whitney suits a few runs per arm: it assumes no distribution (start
 * times are skewed: a slow outlier is the common case) and is exact for
 * small samples. Without ties and with at most AB_EXACT_N runs in all, p is
 * the exact two-sided probability from the distribution of the rank sum
 * (counted by dynamic programming over the ranks); otherwise the normal
 * approximation with the tie correction and the continuity correction.
 * A pair differs when p < AB_ALPHA and its medians are AB_MIN_RATIO apart.
 * The exact test has a floor: with 3 runs an arm, the most extreme result
 * possible has p = 2 / C(6, 3) = 0.1, so n = 3 can never show a difference
 * at the 0.05 level, and the verdict says so instead of "no difference".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"

#define AB_EXACT_N 60 /* runs in all for the exact distribution */

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double ab_median(const double *v, unsigned n)
{
	if (!n)
		return NAN;
	double *s = malloc(n * sizeof(*s));
	if (!s)
		return NAN;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), dcmp);
	double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

void ab_stats_of(const double *v, unsigned n, struct ab_stats *s)
{
	s->n = n;
	s->mean = s->sd = s->median = s->min = s->max = NAN;
	if (!n)
		return;
	double sum = 0, lo = v[0], hi = v[0];
	for (unsigned i = 0; i < n; i++) {
		sum += v[i];
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	s->mean = sum / n;
	if (n > 1) {
		double ss = 0;
		for (unsigned i = 0; i < n; i++)
			ss += (v[i] - s->mean) * (v[i] - s->mean);
		s->sd = sqrt(ss / (n - 1));
	}
	s->median = ab_median(v, n);
	s->min = lo;
	s->max = hi;
}

/* Exact two-sided p of rank sum @w (integer: no ties) of @na among @n. */
static double exact_p(unsigned na, unsigned n, unsigned w)
{
	unsigned smax = n * (n + 1) / 2;
	double *c = calloc((size_t)(na + 1) * (smax + 1), sizeof(*c));
	if (!c)
		return NAN;
#define C(k, s) c[(size_t)(k) * (smax + 1) + (s)]
	C(0, 0) = 1; /* subsets of the ranks 1..i: how many of size k sum to s */
	for (unsigned i = 1; i <= n; i++)
		for (unsigned k = i < na ? i : na; k >= 1; k--)
			for (unsigned s = smax; s >= i; s--)
				C(k, s) += C(k - 1, s - i);
	double tot = 0, le = 0, ge = 0;
	for (unsigned s = 0; s <= smax; s++) {
		tot += C(na, s);
		le += s <= w ? C(na, s) : 0;
		ge += s >= w ? C(na, s) : 0;
	}
#undef C
	free(c);
	double p = 2 * (le < ge ? le : ge) / tot;
	return p > 1 ? 1 : p;
}

int ab_mwu(const double *a, unsigned na, const double *b, unsigned nb, struct ab_mwu *out)
{
	unsigned n = na + nb;
	if (!na || !nb)
		return -1;
	double *v = malloc(n * sizeof(*v));
	if (!v)
		return -1;
	memcpy(v, a, na * sizeof(*v));
	memcpy(v + na, b, nb * sizeof(*v));
	qsort(v, n, sizeof(*v), dcmp);
	/* a's rank sum, ties at their mid-rank; the tie term for the variance */
	double r1 = 0, ties = 0;
	for (unsigned i = 0; i < n;) {
		unsigned j = i;
		while (j < n && v[j] == v[i])
			j++;
		double t = j - i, mid = (i + 1 + j) / 2.0;
		ties += t * t * t - t;
		for (unsigned k = 0; k < na; k++)
			r1 += a[k] == v[i] ? mid : 0;
		i = j;
	}
	free(v);
	out->u = r1 - na * (na + 1) / 2.0;
	out->exact = ties == 0 && n <= AB_EXACT_N;
	if (out->exact) {
		out->p = exact_p(na, n, (unsigned)lround(r1));
		return isnan(out->p) ? -1 : 0;
	}
	double mu = na * (double)nb / 2;
	double var = na * (double)nb / 12 * ((n + 1) - ties / ((double)n * (n - 1)));
	if (!(var > 0)) { /* every value the same */
		out->p = 1;
		return 0;
	}
	double z = (fabs(out->u - mu) - 0.5) / sqrt(var);
	out->p = z > 0 ? erfc(z / sqrt(2)) : 1;
	return 0;
}

double ab_mwu_floor(unsigned na, unsigned nb)
{
	double c = 1; /* C(na + nb, na) */
	for (unsigned i = 1; i <= na; i++)
		c = c * (nb + i) / i;
	double p = 2 / c;
	return p > 1 ? 1 : p;
}

static void p_words(double p, char *out, size_t cap)
{
	if (p < 0.001)
		snprintf(out, cap, "p < 0.001");
	else
		snprintf(out, cap, "p = %.2g", p);
}

/* Did @p come out as far apart as its sizes allow (every run of one arm
 * faster than every run of the other)? */
static int separated(const struct ab_pair *p, unsigned n_a, unsigned n_b)
{
	return p->t.u == 0 || p->t.u == (double)n_a * n_b;
}

int ab_differ(const struct ab_pair *p)
{
	return p->valid && p->faster >= 0 && p->t.p < AB_ALPHA && p->ratio >= AB_MIN_RATIO;
}

void ab_conclude(struct ab_pair *p, const char *na, const char *nb, unsigned n_a, unsigned n_b)
{
	char pw[32], nw[48];
	size_t cap = sizeof(p->conclusion);
	if (n_a == n_b)
		snprintf(nw, sizeof(nw), "n = %u", n_a);
	else
		snprintf(nw, sizeof(nw), "n = %u and %u", n_a, n_b);
	if (!p->valid) {
		snprintf(p->conclusion, cap, "%s vs %s: too few runs that exited 0 to compare (%s): run more", na, nb, nw);
		return;
	}
	p_words(p->t.p, pw, sizeof(pw));
	const char *fast = p->faster == (int)p->a ? na : nb, *slow = p->faster == (int)p->a ? nb : na;
	if (ab_differ(p))
		snprintf(p->conclusion, cap, "%s is %.2fx faster than %s (%s)", fast, p->ratio, slow, pw);
	else if (p->t.p < AB_ALPHA)
		snprintf(p->conclusion, cap,
			 "%s vs %s: no measurable difference at %s: the medians are %.1f%% apart, under %.0f%% (%s)", na,
			 nb, nw, (p->ratio - 1) * 100, (AB_MIN_RATIO - 1) * 100, pw);
	else if (p->faster >= 0 && separated(p, n_a, n_b) && ab_mwu_floor(n_a, n_b) >= AB_ALPHA)
		/* the strongest result these sizes can give, and still not enough */
		snprintf(p->conclusion, cap,
			 "%s vs %s: no measurable difference at %s: run more (every run of %s was faster, %.2fx by "
			 "median, but %s cannot show it: %s is the least it allows)",
			 na, nb, nw, fast, p->ratio, nw, pw);
	else
		snprintf(p->conclusion, cap, "%s vs %s: no measurable difference at %s: run more (%s)", na, nb, nw, pw);
}
