/*
 * Small hand-written scanners for the shapes log lines share: a number in
 * the styles people's locales write ("3,770", "3'770", "1.234.567", a decimal
 * comma as in "1234,56 ms" or "1.234,56"), a number with a size, time
 * or rate unit, and the first such number after a keyword. Recognisers are
 * built from these instead of sample strings, so that "28.47 GiB", "30 GB",
 * "29153 MiB" and "**7.51 s**" (once cleaned) all read the same.
 */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

const char *tr_memmem(const char *h, size_t hn, const char *needle)
{
	/* A cleaned line is a C string to its end and holds no NUL: there
	 * strstr, which glibc vectorises, finds the same first match three
	 * times faster than memmem on lines of a log's length. */
	if (!h[hn] && strlen(h) == hn)
		return strstr(h, needle);
	size_t nn = strlen(needle);
	if (hn > 256 || !nn)
		return memmem(h, hn, needle, nn);
	/* a short range (a bracket's contents): the first byte by memchr, then
	 * the rest; memmem's setup costs more than the whole search */
	const char *p = h, *end = h + hn;
	while ((size_t)(end - p) >= nn && (p = memchr(p, needle[0], (size_t)(end - p) - nn + 1))) {
		if (!memcmp(p + 1, needle + 1, nn - 1))
			return p;
		p++;
	}
	return NULL;
}

const char *tr_memmem_ci(const char *h, size_t hn, const char *needle)
{
	size_t nn = strlen(needle);
	if (nn == 0 || hn < nn)
		return NULL;
	const unsigned char *u = (const unsigned char *)h, *k = (const unsigned char *)needle;
	unsigned char c0 = tr_lower(k[0]);
	/* eight bytes at a time past those that cannot begin a match: a
	 * letter in either case (its 0x20 bit set), another byte exactly */
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t fold = c0 >= 'a' && c0 <= 'z' ? 0x20 * ones : 0, pat = c0 * ones;
	for (size_t i = 0; i + nn <= hn; i++) {
		if (i + 8 <= hn) {
			uint64_t x;
			memcpy(&x, u + i, 8);
			uint64_t v = (x | fold) ^ pat;
			if (!((v - ones) & ~v & high)) {
				i += 7;
				continue;
			}
		}
		if (tr_lower(u[i]) != c0)
			continue;
		size_t j = 1;
		while (j < nn && tr_lower(u[i + j]) == tr_lower(k[j]))
			j++;
		if (j == nn)
			return h + i;
	}
	return NULL;
}

int tr_isword(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

const char *tr_skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static int digit_at(const char *p, const char *end)
{
	return p < end && tr_digit(*p);
}

/* ".234" or "'234" or ",234" followed by no fourth digit: a group of three */
static int group3(const char *p, const char *end)
{
	return p + 3 < end + 0 && digit_at(p + 1, end) && digit_at(p + 2, end) && digit_at(p + 3, end) &&
	       !digit_at(p + 4, end);
}

const char *tr_add_frac(const char *p, const char *end, double *v)
{
	double f = 0.1;
	while (p < end && tr_digit(*p)) {
		*v += (*p - '0') * f;
		f /= 10;
		p++;
	}
	return p;
}

int tr_num(const char **pp, const char *end, double *v)
{
	const char *p = *pp;
	int neg = 0;
	if (p < end && (*p == '+' || *p == '-')) {
		neg = *p == '-';
		p++;
	}
	if (p >= end || !(tr_digit(*p) || (*p == '.' && p + 1 < end && tr_digit(p[1]))))
		return 0;
	/* "1.234,56" and "1.234.567": dots that group thousands (a decimal
	 * comma or another group follows), as much of Europe writes them */
	int dot_groups = 0;
	{
		const char *q = p;
		while (digit_at(q, end))
			q++;
		if (q < end && *q == '.' && p + 1 <= q && q - p <= 3 && group3(q, end) &&
		    q + 4 < end && (q[4] == ',' || q[4] == '.') && digit_at(q + 5, end))
			dot_groups = 1;
	}
	double x = 0;
	int digits = 0;
	while (p < end) {
		if (tr_digit(*p)) {
			x = x * 10 + (*p - '0');
			digits++;
			p++;
		} else if ((*p == ',' || *p == '\'' || (*p == '.' && dot_groups)) && digits > 0 && p + 3 <= end &&
			   group3(p, end) && !(dot_groups && *p == ',')) {
			p++; /* "3,770", "3'770", "1.234.567": a thousands separator, not a list */
		} else {
			break;
		}
	}
	/* the fraction: "7.51", or a decimal comma ("1234,56 ms", "1.234,56") */
	char dec = dot_groups ? ',' : '.';
	if (p < end && (*p == dec || (*p == ',' && digits > 0)) && p + 1 < end && tr_digit(p[1]))
		p = tr_add_frac(p + 1, end, &x);
	*v = neg ? -x : x;
	*pp = p;
	return 1;
}

static int unit_is(const char *p, const char *end, const char *u, const char **after)
{
	/* the first byte before the call: a number is tried against a dozen units */
	if (p >= end || tr_lower((unsigned char)*p) != tr_lower((unsigned char)*u))
		return 0;
	size_t n = strlen(u);
	if ((size_t)(end - p) < n || strncasecmp(p, u, n))
		return 0;
	if (p + n < end && isalpha((unsigned char)p[n]))
		return 0;
	*after = p + n;
	return 1;
}

struct unit {
	const char *name;
	double mul;
};

static int num_unit(const char **pp, const char *end, double *v, const struct unit *u)
{
	const char *p = *pp;
	double x;
	if (!tr_num(&p, end, &x))
		return 0;
	p = tr_skip_ws(p, end);
	for (; u->name; u++) {
		const char *a;
		if (unit_is(p, end, u->name, &a)) {
			*v = x * u->mul;
			*pp = a;
			return 1;
		}
	}
	return 0;
}

#define GIB (1024.0 * 1024.0 * 1024.0)

int tr_size_gib(const char **p, const char *end, double *gib)
{
	/* Longest names first: "GiB" before "G", "bytes" before "B". Units
	 * match in any case, so "KB" and "kb" are kB, 1000 bytes, as "GB" is
	 * 10^9. */
	static const struct unit u[] = {
		{"TiB", 1024.0}, {"TB", 1e12 / GIB}, {"GiB", 1.0}, {"GB", 1e9 / GIB},
		{"MiB", 1.0 / 1024}, {"MB", 1e6 / GIB}, {"KiB", 1.0 / (1024 * 1024)},
		{"kB", 1e3 / GIB}, {"bytes", 1.0 / GIB},
		{"byte", 1.0 / GIB}, {"G", 1.0}, {"M", 1.0 / 1024}, {"B", 1.0 / GIB},
		{NULL, 0}};
	return num_unit(p, end, gib, u);
}

int tr_elapsed_clock(const char *s, size_t n, double *secs)
{
	const char *end = s + (n < 64 ? n : 64), *b = memchr(s, '[', (size_t)(end - s));
	if (!b)
		return 0;
	const char *p = tr_skip_ws(b + 1, end);
	double v;
	if (p >= end || !tr_digit(*p) || !tr_dur_s(&p, end, &v))
		return 0;
	p = tr_skip_ws(p, end);
	if (end - p >= 7 && !memcmp(p, "elapsed", 7))
		p = tr_skip_ws(p + 7, end);
	if (p >= end || *p != ']' || !(v >= 0 && v < 1e7))
		return 0;
	*secs = v;
	return 1;
}

int tr_elapsed_counter(const char *s, size_t n, double *secs)
{
	const char *end = s + n, *k = tr_memmem(s, n, " elapsed]");
	if (!k)
		return 0;
	const char *b = k;
	while (b > s && k - b < 24 && b[-1] != '[')
		b--;
	if (b == s || b[-1] != '[')
		return 0;
	/* "37m 36s", "1h 02m 05s", "12s": each a number and its unit */
	double v = 0;
	int parts = 0;
	for (const char *p = b; p < k;) {
		p = tr_skip_ws(p, k);
		if (p >= k)
			break;
		double x = 0;
		int d = 0;
		while (p < k && tr_digit(*p) && d < 6)
			x = x * 10 + (*p++ - '0'), d++;
		if (!d || p >= k)
			return 0;
		double mul = *p == 'h' ? 3600 : *p == 'm' ? 60 : *p == 's' ? 1 : 0;
		if (!mul || (p + 1 < k && p[1] != ' '))
			return 0;
		v += x * mul;
		p++;
		parts++;
	}
	(void)end;
	if (!parts || !(v < 1e7))
		return 0;
	*secs = v;
	return 1;
}

int tr_alloc_total(const char *s, size_t n, double *gib)
{
	const char *end = s + n, *k = tr_memmem(s, n, "(total ");
	if (!k || !tr_memmem_ci(s, (size_t)(k - s), "alloc"))
		return 0;
	const char *p = tr_skip_ws(k + 7, end);
	double g;
	if (p >= end || !tr_digit(*p) || !tr_size_gib(&p, end, &g) || !(g >= 1.0 / 1024 && g < 1e6))
		return 0;
	*gib = g;
	return 1;
}

int tr_dur_s(const char **p, const char *end, double *s)
{
	static const struct unit u[] = {
		{"seconds", 1}, {"second", 1}, {"secs", 1}, {"sec", 1}, {"ms", 1e-3},
		{"milliseconds", 1e-3}, {"microseconds", 1e-6}, {"us", 1e-6}, {"\xc2\xb5s", 1e-6}, {"minutes", 60},
		{"min", 60}, {"s", 1}, {NULL, 0}};
	/* "milliseconds" must be tried before "ms"? no: unit_is requires a
	 * non-letter after the unit, so "ms" does not match "milliseconds". */
	if (num_unit(p, end, s, u))
		return 1;
	/* the unit in parentheses, as a C++ runner's statistics print it
	 * ("Model Load Time:\t0.887000 (seconds)") */
	const char *q = *p, *a;
	double x;
	if (!tr_num(&q, end, &x))
		return 0;
	q = tr_skip_ws(q, end);
	if (q >= end || *q != '(')
		return 0;
	for (const struct unit *k = u; k->name; k++)
		if (unit_is(q + 1, end, k->name, &a) && a < end && *a == ')') {
			*s = x * k->mul;
			*p = a + 1;
			return 1;
		}
	return 0;
}

int tr_bare_secs(const char **p, const char *end, double *s)
{
	const char *q = *p, *dot = NULL;
	while (q < end && (tr_digit(*q) || (*q == '.' && !dot))) {
		if (*q == '.')
			dot = q;
		q++;
	}
	/* three decimals at least: a float's repr, not a count or a version */
	if (!dot || q - dot < 4 || dot == *p)
		return 0;
	for (const char *r = q; r < end; r++)
		if (*r != ' ' && *r != '.' && *r != ')' && *r != '!')
			return 0;
	const char *n = *p;
	if (!tr_num(&n, end, s) || n != q)
		return 0;
	*p = q;
	return 1;
}

int tr_rate_gibps(const char **p, const char *end, double *g)
{
	static const struct unit u[] = {
		{"GiB/s", 1.0}, {"GB/s", 1e9 / GIB}, {"MiB/s", 1.0 / 1024}, {"MB/s", 1e6 / GIB},
		{"KiB/s", 1.0 / (1024 * 1024)}, {"kB/s", 1e3 / GIB}, {NULL, 0}};
	return num_unit(p, end, g, u);
}

int tr_after(const char *p, const char *end, const char *after,
	     int (*fn)(const char **, const char *, double *), double *v)
{
	const char *k = tr_memmem(p, (size_t)(end - p), after);
	if (!k)
		return 0;
	const char *q = k + strlen(after);
	/* The number may follow a few separators: "took 7.51 s", "= 312 ms",
	 * "stream 30 GiB". Scan at most 24 bytes for its first digit. */
	for (const char *lim = q + 24; q < end && q < lim; q++) {
		if (tr_digit(*q)) {
			const char *r = q;
			if (fn(&r, end, v))
				return 1;
			/* skip this number and keep looking */
			while (q < end && (tr_digit(*q) || *q == '.' || *q == ','))
				q++;
			q--;
		}
	}
	return 0;
}
