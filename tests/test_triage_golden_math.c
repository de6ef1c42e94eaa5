/*
 * Description: the arithmetic the triage prints in its reviewed outputs
 * (the .txt files of tests/corpus/golden). Every "A / B = C" (C plain, "x" or "%") and
 * every "X GiB in Y s (Z GiB/s)" in a finding is recomputed here from A and
 * B as printed: C must be what some A and B that round to the printed ones
 * give, to C's printed precision. A review once blessed "69.30 GiB / 121.9 s
 * = 0.58 GiB/s" (0.57); this catches that kind of line in any golden.
 * Quoted log lines (`NAME.log:N:`) are the engines' numbers, not the
 * triage's, and are skipped.
 */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#define GOLDEN LSC_TEST_CORPUS "/golden"

/* the number ending just before @end (walking back over one unit word and
 * spaces); its printed half-unit in *half; 0 when there is none */
static int num_before(const char *line, const char *end, double *v, double *half)
{
	const char *p = end;
	while (p > line && p[-1] == ' ')
		p--;
	const char *w = p;
	while (w > line && (isalpha((unsigned char)w[-1]) || w[-1] == '/' || w[-1] == '%' || w[-1] == '+'))
		w--;
	if (w != p) { /* a unit: "GiB", "s", "GiB/s" */
		p = w;
		while (p > line && p[-1] == ' ')
			p--;
	}
	const char *e = p;
	while (p > line && (isdigit((unsigned char)p[-1]) || p[-1] == '.'))
		p--;
	if (p == e || !isdigit((unsigned char)*p))
		return 0;
	char *q;
	*v = strtod(p, &q);
	const char *dot = memchr(p, '.', (size_t)(e - p));
	*half = 0.5 * pow(10, dot ? -(double)(e - dot - 1) : 0);
	return q == e;
}

/* the number at or after @p, skipping words (a unit, "MemAvailable");
 * *end after it */
static int num_after(const char *p, double *v, double *half, const char **end)
{
	for (int words = 0; *p && words < 3; words++) {
		while (*p == ' ')
			p++;
		if (isdigit((unsigned char)*p))
			break;
		while (*p && *p != ' ')
			p++;
	}
	if (!isdigit((unsigned char)*p))
		return 0;
	char *q;
	*v = strtod(p, &q);
	const char *dot = memchr(p, '.', (size_t)(q - p));
	*half = 0.5 * pow(10, dot ? -(double)(q - dot - 1) : 0);
	*end = q;
	return 1;
}

/* does C (+- hc) meet (A +- ha) / (B +- hb) * scale? */
static int agrees(double a, double ha, double b, double hb, double c, double hc, double scale)
{
	if (b - hb <= 0)
		return 1; /* a divisor that rounds to 0 bounds nothing */
	double lo = (a - ha > 0 ? a - ha : 0) / (b + hb) * scale, hi = (a + ha) / (b - hb) * scale;
	return c + hc >= lo - 1e-9 && c - hc <= hi + 1e-9;
}

struct tally {
	unsigned checked, wrong;
	char first[1200];
};

static void bad(struct tally *t, const char *file, unsigned no, const char *line)
{
	if (!t->wrong++)
		snprintf(t->first, sizeof(t->first), "%s:%u: %.900s", file, no, line);
}

static void check_line(const char *file, unsigned no, const char *line, struct tally *t)
{
	if (strstr(line, ".log:"))
		return;
	for (const char *s = strstr(line, " / "); s; s = strstr(s + 3, " / ")) {
		double a, ha, b, hb, c, hc;
		const char *e;
		if (!num_before(line, s, &a, &ha) || !num_after(s + 3, &b, &hb, &e))
			continue;
		const char *eq = e;
		while (*eq && *eq != '=' && eq - e < 24 && *eq != '(' && *eq != ',')
			eq++;
		if (*eq != '=')
			continue;
		if (!num_after(eq + 1, &c, &hc, &e) || eq[1] != ' ')
			continue;
		double scale = *e == '%' ? 100 : 1;
		t->checked++;
		if (!agrees(a, ha, b, hb, c, hc, scale))
			bad(t, file, no, line);
	}
	for (const char *s = strstr(line, " GiB in "); s; s = strstr(s + 8, " GiB in ")) {
		double g, hg, secs, hs, r, hr;
		const char *e;
		if (!num_before(line, s + 4, &g, &hg) || !num_after(s + 8, &secs, &hs, &e) || strncmp(e, " s (", 4))
			continue;
		if (!num_after(e + 4, &r, &hr, &e) || strncmp(e, " GiB/s", 6))
			continue;
		t->checked++;
		if (!agrees(g, hg, secs, hs, r, hr, 1))
			bad(t, file, no, line);
	}
}

static void check_text(const char *name, const char *text, struct tally *t)
{
	char line[8192];
	unsigned no = 0;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), p);
		check_line(name, ++no, line, t);
		p += n + (nl ? 1 : 0);
	}
}

Test(golden_math, the_checker_catches_wrong_lines)
{
	struct tally t = {0};
	check_text("x", "      = 69.30 GiB / 121.9 s = 0.58 GiB/s (the rule fires under 1 GiB/s)\n", &t);
	cr_assert_eq(t.checked, 1);
	cr_assert_eq(t.wrong, 1, "0.58 passed");
	memset(&t, 0, sizeof(t));
	check_text("x", "      = 69.30 GiB / 121.9 s = 0.57 GiB/s\n"
			"      = alloc+pin 184.2 s / 217.0 s to ready = 85% (the rule fires at 50%)\n"
			"      = arena 40.00 GiB / MemAvailable 22.32 GiB = 1.79x\n"
			"  loaded 2.00 GiB in 4.169 s (0.48 GiB/s), fine\n",
		   &t);
	cr_assert_eq(t.checked, 4);
	cr_assert_eq(t.wrong, 0, "%s", t.first);
	check_text("x", "      = alloc+pin 184.2 s / 217.0 s to ready = 84% (the rule fires at 50%)\n"
			"      = arena 40.00 GiB / MemAvailable 22.32 GiB = 1.80x\n"
			"  2.00 GiB in 4.169 s (0.50 GiB/s)\n",
		   &t);
	cr_assert_eq(t.wrong, 3);
}

Test(golden_math, every_golden_quotient_is_right)
{
	DIR *d = opendir(GOLDEN);
	cr_assert_not_null(d);
	struct tally t = {0};
	unsigned files = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 4, ".txt"))
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", GOLDEN, de->d_name);
		FILE *f = fopen(path, "r");
		cr_assert_not_null(f, "%s", path);
		static char buf[1 << 20];
		size_t got = fread(buf, 1, sizeof(buf) - 1, f);
		buf[got] = '\0';
		fclose(f);
		check_text(de->d_name, buf, &t);
		files++;
	}
	closedir(d);
	cr_assert_geq(files, 85, "%u golden texts", files);
	cr_assert_geq(t.checked, 20, "only %u quotients found: the patterns no longer match the goldens", t.checked);
	cr_assert_eq(t.wrong, 0, "%u wrong, first: %s", t.wrong, t.first);
}
