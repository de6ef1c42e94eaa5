/*
 * The report `loadscope ab` prints on stdout, as text or Markdown (the
 * Markdown is also --export-markdown's file): a header, one row per arm
 * with what ab measured (wall time mean ± σ, median, min, max, the median
 * relative to the fastest arm's, CPU time, peak RSS), the phase figures
 * when the logs had them, and one verdict line per pair of arms. Short by
 * default; --verbose adds each run, the triage's A/B table and each arm's
 * findings.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "ab.h"

static void num(FILE *o, const char *fmt, double v, int width)
{
	char b[32];
	if (isnan(v))
		snprintf(b, sizeof(b), "-");
	else
		snprintf(b, sizeof(b), fmt, v);
	if (width)
		fprintf(o, " %*s", width, b);
	else
		fprintf(o, " %s", b);
}

static double fastest(const struct ab *x)
{
	double best = NAN;
	for (unsigned a = 0; a < x->narms; a++)
		if (!isnan(x->st[a].median) && (isnan(best) || x->st[a].median < best))
			best = x->st[a].median;
	return best;
}

static void header(FILE *o, const struct ab *x, int md)
{
	fprintf(o, md ? "## loadscope ab: `%s`\n\n" : "loadscope ab: %s\n", x->cmdline);
	if (x->done == x->total)
		fprintf(o, "%u arms x %u runs", x->narms, x->runs);
	else
		fprintf(o, "%u arms, %u of %u runs", x->narms, x->done, x->total);
	if (x->warmup)
		fprintf(o, " after %u warm-up round%s", x->warmup, x->warmup == 1 ? "" : "s");
	fprintf(o, ", interleaved, %.3g s apart", x->pause);
	if (x->prepare)
		fprintf(o, md ? ", `--prepare %s`" : ", --prepare %s", x->prepare);
	fprintf(o, md ? "; logs in `%s`.\n\n" : "; logs in %s\n\n", x->dir);
}

static void arm_rows(FILE *o, const struct ab *x, int md)
{
	double best = fastest(x);
	if (md)
		fputs("| arm | spec | n | mean ± σ (s) | median (s) | min (s) | max (s) | relative | user (s) | sys (s) "
		      "| peak RSS (MiB) |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
		      o);
	else
		fprintf(o, "%-16s %3s %17s %10s %9s %9s %8s %8s %8s %9s\n", "arm", "n", "mean ± σ (s)", "median (s)",
			"min (s)", "max (s)", "relative", "user (s)", "sys (s)", "RSS (MiB)");
	for (unsigned a = 0; a < x->narms; a++) {
		const struct ab_stats *s = &x->st[a];
		char ms[48];
		if (isnan(s->mean))
			snprintf(ms, sizeof(ms), "-");
		else if (isnan(s->sd))
			snprintf(ms, sizeof(ms), "%.3f", s->mean);
		else
			snprintf(ms, sizeof(ms), "%.3f ± %.3f", s->mean, s->sd);
		if (md)
			fprintf(o, "| %s | `%s` | %u | %s |", x->arms[a].name, x->arms[a].spec[0] ? x->arms[a].spec : "(none)",
				s->n, ms);
		else /* the ± is two bytes, one column */
			fprintf(o, "%-16s %3u %*s", x->arms[a].name, s->n, strstr(ms, "±") ? 18 : 17, ms);
		const double v[] = {s->median, s->min, s->max, s->median / best, s->user, s->sys, s->rss_mib};
		const char *const f[] = {"%.3f", "%.3f", "%.3f", "%.2fx", "%.3f", "%.3f", "%.1f"};
		const int w[] = {10, 9, 9, 8, 8, 8, 9};
		for (unsigned i = 0; i < 7; i++) {
			num(o, f[i], v[i], md ? 0 : w[i]);
			if (md)
				fputs(" |", o);
		}
		fputc('\n', o);
	}
	for (unsigned a = 0; a < x->narms; a++) {
		const struct ab_arm *m = &x->arms[a];
		if (m->failed || m->timeouts)
			fprintf(o, "%sarm %s: %u of %u runs failed, %u timed out: its figures are over the %u that exited 0\n",
				md ? "\n" : "", m->name, m->failed, m->runs, m->timeouts, m->ok);
	}
}

static void phase_rows(FILE *o, const struct ab *x, int md)
{
	if (!x->any_phase)
		return;
	fputs(md ? "\nPhases, the median of each arm's runs as the triage read them from the logs:\n\n| arm |"
		 : "\nphases, the median of each arm's runs as the triage read them from the logs:\n",
	      o);
	if (!md)
		fprintf(o, "%-16s", "arm");
	for (unsigned p = 0; p < AB_PHASES; p++) {
		int any = 0;
		for (unsigned a = 0; a < x->narms; a++)
			any |= x->ph_n[a][p] > 0;
		if (any)
			fprintf(o, md ? " %s |" : " %s", ab_phase_names[p]);
	}
	if (md) {
		fputs("\n|---|", o);
		for (unsigned p = 0; p < AB_PHASES; p++) {
			int any = 0;
			for (unsigned a = 0; a < x->narms; a++)
				any |= x->ph_n[a][p] > 0;
			if (any)
				fputs("---:|", o);
		}
	}
	fputc('\n', o);
	for (unsigned a = 0; a < x->narms; a++) {
		fprintf(o, md ? "| %s |" : "%-16s", x->arms[a].name);
		for (unsigned p = 0; p < AB_PHASES; p++) {
			int any = 0;
			for (unsigned b = 0; b < x->narms; b++)
				any |= x->ph_n[b][p] > 0;
			if (!any)
				continue;
			num(o, "%.3f", x->ph_med[a][p], md ? 0 : (int)strlen(ab_phase_names[p]));
			if (md)
				fputs(" |", o);
		}
		fputc('\n', o);
	}
}

static void run_rows(FILE *o, const struct ab *x, int md)
{
	char ex[96];
	fputs(md ? "\n| run | arm | wall (s) | exit | ready (s) | log |\n|---:|---|---:|---|---:|---|\n"
		 : "\n run arm              wall (s)  exit                          ready (s)  log\n",
	      o);
	for (unsigned i = 0; i < x->done; i++) {
		const struct ab_run *r = &x->run[i];
		ab_exit_words(r, ex, sizeof(ex));
		fprintf(o, md ? "| %u | %s | %.3f | %s | " : "%4u %-16s %9.3f  %-28s ", i + 1, x->arms[r->arm].name,
			r->wall_s, ex);
		num(o, "%.3f", r->ready_s, md ? 0 : 10);
		fprintf(o, md ? " | `%s` |\n" : "  %s\n", r->log);
	}
}

int ab_report(FILE *o, struct ab *x, enum ab_fmt f)
{
	int md = f == AB_MD, bad = 0;
	header(o, x, md);
	arm_rows(o, x, md);
	phase_rows(o, x, md);
	fputc('\n', o);
	for (unsigned i = 0; i < x->npairs; i++)
		fprintf(o, md ? "- %s\n" : "%s\n", x->pair[i].conclusion);
	if (!x->verbose)
		return ferror(o) ? -EIO : 0;
	run_rows(o, x, md);
	fputs(md ? "\n### A/B table (triage)\n\n" : "\n", o);
	bad |= lsc_triage_render(x->all, md ? LSC_TRIAGE_MD : LSC_TRIAGE_TEXT, o) < 0;
	for (unsigned a = 0; a < x->narms; a++) {
		fprintf(o, md ? "\n### Arm %s: findings\n\n" : "\n== arm %s: findings ==\n", x->arms[a].name);
		bad |= lsc_triage_render(x->arms[a].t, md ? LSC_TRIAGE_MD : LSC_TRIAGE_TEXT, o) < 0;
	}
	return bad || ferror(o) ? -EIO : 0;
}
