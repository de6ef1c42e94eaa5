/*
 * From the runs to what `loadscope ab` reports: each arm's statistics over
 * its runs that exited 0 in time (a failed start's wall time measures the
 * failure, not the start; the failures are counted beside), the median of
 * each phase the triage read from the logs, and for each pair of arms the
 * Mann-Whitney test on the wall times with its one-line verdict; and the
 * same on the triage's load to ready when every such run's log has one
 * (a server's start is over at ready, its wall time includes the stop).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ab.h"

/* Arm @a's wall times (@ready: times to ready) of its ok runs into @v;
 * their number. */
static unsigned walls(const struct ab *x, unsigned a, double *v, int ready)
{
	unsigned n = 0;
	for (unsigned i = 0; i < x->done; i++)
		if (x->run[i].arm == a && ab_run_ok(&x->run[i]))
			v[n++] = ready ? x->run[i].ready_s : x->run[i].wall_s;
	return n;
}

/* Has every ok run a time to ready (and some arm a run)? */
static int all_ready(const struct ab *x)
{
	unsigned n = 0;
	for (unsigned i = 0; i < x->done; i++)
		if (ab_run_ok(&x->run[i])) {
			if (isnan(x->run[i].ready_s))
				return 0;
			n++;
		}
	return n > 0;
}

static void arm_stats(struct ab *x, unsigned a, double *v)
{
	struct ab_stats *s = &x->st[a];
	ab_stats_of(v, walls(x, a, v, 0), s);
	double user = 0, sys = 0;
	long rss = 0;
	for (unsigned i = 0; i < x->done; i++) {
		const struct ab_run *r = &x->run[i];
		if (r->arm != a || !ab_run_ok(r))
			continue;
		user += r->user_s;
		sys += r->sys_s;
		rss = r->max_rss_kib > rss ? r->max_rss_kib : rss;
	}
	s->user = s->n ? user / s->n : NAN;
	s->sys = s->n ? sys / s->n : NAN;
	s->rss_mib = s->n ? rss / 1024.0 : NAN;
	for (unsigned p = 0; p < AB_PHASES; p++) {
		unsigned n = 0;
		for (unsigned i = 0; i < x->done; i++)
			if (x->run[i].arm == a && ab_run_ok(&x->run[i]) && !isnan(x->run[i].ph[p]))
				v[n++] = x->run[i].ph[p];
		x->ph_n[a][p] = n;
		x->ph_med[a][p] = ab_median(v, n);
		x->any_phase |= n > 0;
	}
}

static void pair_of(struct ab *x, unsigned a, unsigned b, int ready, double *va, double *vb)
{
	struct ab_pair *p = &x->pair[x->npairs++];
	unsigned na = walls(x, a, va, ready), nb = walls(x, b, vb, ready);
	p->a = a;
	p->b = b;
	p->ready = ready;
	p->valid = na >= 2 && nb >= 2 && ab_mwu(va, na, vb, nb, &p->t) == 0;
	double ma = ready ? x->ph_med[a][AB_PH_READY] : x->st[a].median;
	double mb = ready ? x->ph_med[b][AB_PH_READY] : x->st[b].median;
	p->faster = ma < mb ? (int)a : mb < ma ? (int)b : -1;
	p->ratio = ma < mb ? mb / ma : ma / mb;
	ab_conclude(p, x->arms[a].name, x->arms[b].name, na, nb);
	if (ready) { /* the same verdict, said to be on the logs' figure */
		char c[sizeof(p->conclusion)];
		snprintf(c, sizeof(c), "%s", p->conclusion);
		snprintf(p->conclusion, sizeof(p->conclusion), "load to ready: %.*s", (int)sizeof(c) - 20, c);
	}
}

void ab_summarise(struct ab *x)
{
	double *va = malloc((x->done + 1) * sizeof(*va)), *vb = malloc((x->done + 1) * sizeof(*vb));
	x->npairs = 0;
	x->any_phase = 0;
	if (!va || !vb) {
		free(va);
		free(vb);
		return;
	}
	for (unsigned a = 0; a < x->narms; a++)
		arm_stats(x, a, va);
	for (int ready = 0; ready <= all_ready(x); ready++)
		for (unsigned a = 0; a < x->narms; a++)
			for (unsigned b = a + 1; b < x->narms; b++)
				pair_of(x, a, b, ready, va, vb);
	free(va);
	free(vb);
}
