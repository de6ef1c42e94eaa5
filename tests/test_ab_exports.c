/*
 * Description: `loadscope ab`'s exports, from the built program over a
 * command that prints nothing (`true`; ab times it itself). --export-json
 * is valid JSON (the strict reader in tests/helpers) in hyperfine's shape:
 * "results", one per arm, each with "command" (the arm's name), "mean",
 * "stddev", "median", "min", "max", "user", "system", "times" (one per
 * run) and "exit_codes"; the statistics are recomputed here from "times"
 * (mean, the n - 1 sigma, median, extremes), so they are checked whatever
 * the times were. --format json writes the same document on stdout;
 * --export-csv is hyperfine's header and one row per arm with the JSON's
 * figures; --export-markdown is the report as Markdown with the verdict;
 * an export that cannot be written is one line and exit 4, the report
 * still printed.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers/json_strict.h"
#include "helpers/tool_run.h"
#include "helpers/triage_run.h"

static char out[1 << 17], err[1 << 15];
static const char *dir;

static void setup(void)
{
	lsct_tool_required();
	dir = lsct_scratch("ab-exports");
}

TestSuite(ab_exports, .init = setup, .fini = lsct_scratch_remove);

static char *slurp_in(const char *name, size_t *n)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	char *b = trun_slurp(p, n);
	cr_assert_not_null(b, "cannot read %s", p);
	return b;
}

/* The number after "key": in @obj (before @end); NAN for null. */
static double num_at(const char *obj, const char *end, const char *key)
{
	char k[64];
	snprintf(k, sizeof(k), "\"%s\":", key);
	const char *p = strstr(obj, k);
	cr_assert(p && p < end, "no %s in %.*s", key, (int)(end - obj), obj);
	p += strlen(k);
	if (!strncmp(p, "null", 4))
		return NAN;
	char *e;
	double v = strtod(p, &e);
	cr_assert_neq(e, p, "%s: not a number: %.20s", key, p);
	return v;
}

/* The numbers of array "key" in @obj into @v; their count. */
static unsigned nums_at(const char *obj, const char *end, const char *key, double *v, unsigned cap)
{
	char k[64];
	snprintf(k, sizeof(k), "\"%s\":[", key);
	const char *p = strstr(obj, k);
	cr_assert(p && p < end, "no %s array", key);
	p += strlen(k);
	unsigned n = 0;
	while (*p != ']') {
		char *e;
		cr_assert_lt(n, cap);
		v[n++] = strtod(p, &e);
		cr_assert_neq(e, p, "%s: not a number: %.20s", key, p);
		p = *e == ',' ? e + 1 : e;
	}
	return n;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* One result object, its statistics recomputed from its times. */
static void check_result(const char *json, const char *arm, unsigned runs)
{
	char key[64];
	snprintf(key, sizeof(key), "{\"command\":\"%s\",", arm);
	const char *r = strstr(json, key);
	cr_assert_not_null(r, "no result for %s: %s", arm, json);
	const char *end = strstr(r + 1, "{\"command\":");
	if (!end)
		end = strstr(r, "],\"schema\"");
	cr_assert_not_null(end);
	double t[16], codes[16];
	cr_assert_eq(nums_at(r, end, "times", t, 16), runs);
	cr_assert_eq(nums_at(r, end, "exit_codes", codes, 16), runs);
	double sum = 0, ss = 0;
	for (unsigned i = 0; i < runs; i++) {
		cr_assert_eq(codes[i], 0);
		cr_assert_gt(t[i], 0);
		sum += t[i];
	}
	double mean = sum / runs;
	for (unsigned i = 0; i < runs; i++)
		ss += (t[i] - mean) * (t[i] - mean);
	qsort(t, runs, sizeof(double), dcmp);
	double tol = 1e-6 * t[runs - 1];
	cr_assert_float_eq(num_at(r, end, "mean"), mean, tol);
	cr_assert_float_eq(num_at(r, end, "stddev"), sqrt(ss / (runs - 1)), tol);
	cr_assert_float_eq(num_at(r, end, "median"), runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2, tol);
	cr_assert_float_eq(num_at(r, end, "min"), t[0], tol);
	cr_assert_float_eq(num_at(r, end, "max"), t[runs - 1], tol);
	cr_assert_geq(num_at(r, end, "user"), 0);
	cr_assert_geq(num_at(r, end, "system"), 0);
}

Test(ab_exports, hyperfine_json_csv_and_markdown)
{
	cr_assert_eq(chdir(dir), 0);
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 3 --pause 0 --arm a=env=X=1 --arm b=env=X=2 --out logs "
			   "--export-json r.json --export-csv r.csv --export-markdown r.md --format json -- true");
	cr_assert_eq(rc, 0, "%s", err);
	size_t n;
	char why[256];
	char *json = slurp_in("r.json", &n);
	cr_assert_eq(lsct_json_strict(json, n, why, sizeof(why)), 0, "%s: %s", why, json);
	cr_assert_str_eq(out, json, "--format json and --export-json differ");
	static const char head[] = "{\"results\":[{\"command\":\"a\",";
	cr_assert_eq(strncmp(json, head, strlen(head)), 0, "%s", json);
	check_result(json, "a", 3);
	check_result(json, "b", 3);
	cr_assert(strstr(json, "\"comparisons\":[{\"a\":\"a\",\"b\":\"b\",\"metric\":\"wall_s\",\"test\":\"mann-whitney-u\","
			       "\"valid\":true,"),
		  "%s", json);
	cr_assert(strstr(json, "\"conclusion\":\"a vs b: no measurable difference at n = 3: run more ("), "%s", json);

	/* hyperfine's CSV: its header, one row per arm, the JSON's figures */
	char *csv = slurp_in("r.csv", NULL);
	static const char csv_head[] = "command,mean,stddev,median,user,system,min,max\na,";
	cr_assert_eq(strncmp(csv, csv_head, strlen(csv_head)), 0, "%s", csv);
	const char *rb = strstr(csv, "\nb,");
	cr_assert_not_null(rb, "%s", csv);
	double mean_a = strtod(csv + strlen(csv_head), NULL), mean_b = strtod(rb + 3, NULL);
	const char *ja = strstr(json, "{\"command\":\"a\""), *jb = strstr(json, "{\"command\":\"b\"");
	cr_assert_float_eq(mean_a, num_at(ja, jb, "mean"), 1e-9);
	cr_assert_float_eq(mean_b, num_at(jb, jb + strlen(jb), "mean"), 1e-9);
	unsigned lines = 0;
	for (const char *p = csv; *p; p++)
		lines += *p == '\n';
	cr_assert_eq(lines, 3, "%s", csv);

	char *md = slurp_in("r.md", NULL);
	static const char md_head[] = "## loadscope ab: `true`\n\n2 arms x 3 runs, interleaved, 0 s apart; logs in `logs`.\n";
	cr_assert_eq(strncmp(md, md_head, strlen(md_head)), 0, "%s", md);
	cr_assert(strstr(md, "| arm | spec | n | mean ± σ (s) | median (s) | min (s) | max (s) | relative |"), "%s", md);
	cr_assert(strstr(md, "\n| a | `env=X=1` | 3 | "), "%s", md);
	cr_assert(strstr(md, "\n- a vs b: no measurable difference at n = 3: run more ("), "%s", md);
	free(json);
	free(csv);
	free(md);
}

Test(ab_exports, an_unwritable_export_is_exit_4)
{
	cr_assert_eq(chdir(dir), 0);
	int rc = lsct_tool(out, sizeof(out), err, sizeof(err),
			   "ab --runs 1 --pause 0 --arm a= --arm b= --out logs --export-csv /nonexistent/dir/r.csv -- true");
	cr_assert_eq(rc, 4, "%s", err);
	cr_assert(strstr(err, "loadscope ab: --export-csv /nonexistent/dir/r.csv: No such file or directory\n"), "%s", err);
	cr_assert(strstr(out, "a vs b: too few runs that exited 0 to compare (n = 1): run more\n"), "%s", out);
}
