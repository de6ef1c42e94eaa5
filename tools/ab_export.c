/*
 * `loadscope ab`'s machine-readable exports. --export-json (and --format
 * json) is hyperfine's shape, so that the scripts people plot hyperfine
 * results with read it: "results", one per arm, with "command" (the arm's
 * name, as hyperfine writes a --command-name), "mean", "stddev", "median",
 * "user", "system", "min", "max" in seconds, "times" (every timed run, in
 * order) and "exit_codes" beside them, "memory_usage_byte" (peak RSS). The
 * statistics are over the runs that exited 0, which is all of "times"
 * whenever every exit code is 0, as in hyperfine. ab's additions sit beside
 * hyperfine's keys: per result the arm's spec, counts and phase medians;
 * at the top "comparisons" (each pair's test and verdict), "runs" (each
 * run as measured) and "table" (the triage's A/B table). --export-csv is
 * hyperfine's CSV: command,mean,stddev,median,user,system,min,max.
 */
#include <errno.h>
#include <math.h>
#include <sys/wait.h>

#include "ab.h"

static void jnum(FILE *o, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", o);
	else
		fprintf(o, "%.9g", v);
}

static void jkey(FILE *o, const char *k, double v)
{
	fprintf(o, ",\"%s\":", k);
	jnum(o, v);
}

/* A run's exit code as hyperfine's exit_codes hold it: null when killed. */
static void jexit(FILE *o, const struct ab_run *r)
{
	if (!r->timed_out && !r->interrupted && WIFEXITED(r->status))
		fprintf(o, "%d", WEXITSTATUS(r->status));
	else
		fputs("null", o);
}

static void result(FILE *o, const struct ab *x, unsigned a)
{
	const struct ab_arm *m = &x->arms[a];
	const struct ab_stats *s = &x->st[a];
	fputs("{\"command\":", o);
	lsc_triage_json_str(o, m->name);
	const char *k[] = {"mean", "stddev", "median", "user", "system", "min", "max"};
	const double v[] = {s->mean, s->sd, s->median, s->user, s->sys, s->min, s->max};
	for (unsigned i = 0; i < 7; i++)
		jkey(o, k[i], v[i]);
	const char *lists[] = {"times", "exit_codes", "memory_usage_byte", "ready_s"};
	for (unsigned l = 0; l < 4; l++) {
		fprintf(o, ",\"%s\":[", lists[l]);
		for (unsigned i = 0, n = 0; i < x->done; i++) {
			const struct ab_run *r = &x->run[i];
			if (r->arm != a)
				continue;
			fputs(n++ ? "," : "", o);
			if (l == 0)
				jnum(o, r->wall_s);
			else if (l == 1)
				jexit(o, r);
			else if (l == 2)
				fprintf(o, "%lld", (long long)r->max_rss_kib * 1024);
			else
				jnum(o, r->ready_s);
		}
		fputc(']', o);
	}
	fputs(",\"arm_spec\":", o);
	lsc_triage_json_str(o, m->spec);
	fprintf(o, ",\"thp\":\"%s\",\"runs\":%u,\"ok\":%u,\"failed\":%u,\"timeouts\":%u,\"phases\":{",
		lsc_thp_ctl_name(m->thp), m->runs, m->ok, m->failed, m->timeouts);
	for (unsigned p = 0, n = 0; p < AB_PHASES; p++)
		if (x->ph_n[a][p]) {
			fprintf(o, "%s\"%s\":{\"n\":%u,\"median\":", n++ ? "," : "", ab_phase_keys[p], x->ph_n[a][p]);
			jnum(o, x->ph_med[a][p]);
			fputc('}', o);
		}
	fputs("}}", o);
}

static void comparisons(FILE *o, const struct ab *x)
{
	fputs(",\"comparisons\":[", o);
	for (unsigned i = 0; i < x->npairs; i++) {
		const struct ab_pair *p = &x->pair[i];
		fprintf(o, "%s{\"a\":", i ? "," : "");
		lsc_triage_json_str(o, x->arms[p->a].name);
		fputs(",\"b\":", o);
		lsc_triage_json_str(o, x->arms[p->b].name);
		fprintf(o, ",\"metric\":\"%s\",\"test\":\"mann-whitney-u\",\"valid\":%s",
			p->ready ? "load_to_ready_s" : "wall_s", p->valid ? "true" : "false");
		jkey(o, "u", p->valid ? p->t.u : NAN);
		jkey(o, "p", p->valid ? p->t.p : NAN);
		fprintf(o, ",\"exact\":%s,\"faster\":", p->valid && p->t.exact ? "true" : "false");
		if (p->faster >= 0)
			lsc_triage_json_str(o, x->arms[p->faster].name);
		else
			fputs("null", o);
		jkey(o, "ratio", p->ratio);
		fprintf(o, ",\"significant\":%s,\"conclusion\":", ab_differ(p) ? "true" : "false");
		lsc_triage_json_str(o, p->conclusion);
		fputc('}', o);
	}
	fputc(']', o);
}

static void runs(FILE *o, const struct ab *x)
{
	fputs(",\"runs\":[", o);
	for (unsigned i = 0; i < x->done; i++) {
		const struct ab_run *r = &x->run[i];
		fprintf(o, "%s{\"index\":%u,\"arm\":", i ? "," : "", i + 1);
		lsc_triage_json_str(o, x->arms[r->arm].name);
		fputs(",\"log\":", o);
		lsc_triage_json_str(o, r->log);
		fputs(",\"exit\":", o);
		jexit(o, r);
		fputs(",\"signal\":", o);
		if (!r->timed_out && !r->interrupted && WIFSIGNALED(r->status))
			fprintf(o, "%d", WTERMSIG(r->status));
		else
			fputs("null", o);
		fprintf(o, ",\"timeout\":%s,\"interrupted\":%s", r->timed_out ? "true" : "false",
			r->interrupted ? "true" : "false");
		jkey(o, "wall_s", r->wall_s);
		jkey(o, "user_s", r->user_s);
		jkey(o, "sys_s", r->sys_s);
		fprintf(o, ",\"max_rss_kib\":%ld", r->max_rss_kib);
		jkey(o, "ready_s", r->ready_s);
		fputc('}', o);
	}
	fputc(']', o);
}

int ab_write_json(FILE *o, struct ab *x)
{
	fputs("{\"results\":[", o);
	for (unsigned a = 0; a < x->narms; a++) {
		fputs(a ? "," : "", o);
		result(o, x, a);
	}
	fputs("],\"schema\":\"loadscope-ab\",\"version\":2,\"cmd\":", o);
	lsc_triage_json_str(o, x->cmdline);
	fputs(",\"dir\":", o);
	lsc_triage_json_str(o, x->dir);
	fprintf(o, ",\"runs_planned\":%u,\"warmup\":%u", x->total, x->warmup);
	jkey(o, "pause_s", x->pause);
	fputs(",\"prepare\":", o);
	if (x->prepare)
		lsc_triage_json_str(o, x->prepare);
	else
		fputs("null", o);
	comparisons(o, x);
	runs(o, x);
	fputs(",\"table\":", o);
	int bad = lsc_triage_render(x->all, LSC_TRIAGE_JSON, o) < 0;
	fputs("}\n", o);
	return bad || ferror(o) ? -EIO : 0;
}

int ab_write_csv(FILE *o, const struct ab *x)
{
	fputs("command,mean,stddev,median,user,system,min,max\n", o);
	for (unsigned a = 0; a < x->narms; a++) {
		const struct ab_stats *s = &x->st[a];
		const double v[] = {s->mean, s->sd, s->median, s->user, s->sys, s->min, s->max};
		fputs(x->arms[a].name, o); /* letters, digits, '.', '_', '-': nothing to quote */
		for (unsigned i = 0; i < 7; i++) {
			fputc(',', o);
			if (!isnan(v[i]))
				fprintf(o, "%.9g", v[i]);
		}
		fputc('\n', o);
	}
	return ferror(o) ? -EIO : 0;
}
