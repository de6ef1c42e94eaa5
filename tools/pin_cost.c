/*
 * Pin cost accounting (see pin_cost.h). The median of a small window is
 * taken by sorting a copy: the window holds at most 32 values and a pin call
 * takes milliseconds at least.
 */
#include <string.h>

#include "pin_cost.h"

#define GIB 1073741824.0

void lsc__pin_cost_init(struct lsc__pin_cost *c)
{
	memset(c, 0, sizeof(*c));
}

static double median(const double *v, unsigned n)
{
	double s[LSC__PIN_COST_WINDOW];

	memcpy(s, v, sizeof(*v) * n);
	for (unsigned i = 1; i < n; i++) { /* insertion sort: n <= 32 */
		double x = s[i];
		unsigned j = i;
		for (; j > 0 && s[j - 1] > x; j--)
			s[j] = s[j - 1];
		s[j] = x;
	}
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double lsc__pin_cost_add(struct lsc__pin_cost *c, uint64_t bytes, uint64_t ns, unsigned retries,
			 int *slow)
{
	double ratio = 0;
	unsigned idx = c->calls;

	if (slow)
		*slow = 0;
	c->bytes += bytes;
	c->ns += ns;
	c->calls++;
	c->retries += retries;
	if (bytes < LSC__PIN_COST_MIN_BYTES)
		return 0;

	double per_gib = (double)ns * GIB / (double)bytes;
	if (c->n_window >= LSC__PIN_COST_MIN_PREV) {
		double m = median(c->window, c->n_window);
		/* A baseline of 0 ns (a clock too coarse) judges nothing. */
		if (m > 0) {
			ratio = per_gib / m;
			if (ratio > c->worst_ratio) {
				c->worst_ratio = ratio;
				c->worst_call = idx;
			}
			if (ratio > LSC__PIN_COST_SLOW_RATIO) {
				c->slow++;
				if (slow)
					*slow = 1;
			}
		}
	}
	c->window[c->next] = per_gib;
	c->next = (c->next + 1) % LSC__PIN_COST_WINDOW;
	if (c->n_window < LSC__PIN_COST_WINDOW)
		c->n_window++;
	return ratio;
}

double lsc__pin_cost_s_per_gib(const struct lsc__pin_cost *c)
{
	if (!c->bytes)
		return 0;
	return (double)c->ns / 1e9 / ((double)c->bytes / GIB);
}
