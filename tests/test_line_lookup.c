/*
 * Description: a parsed line's fields read the same by the quick paths as
 * by the slow ones. lsc__parsed_f64 reads a plain decimal of up to 15
 * digits without strtod: it must give the very double the C compiler makes
 * of the same literal (negative zero, 15 digits, long fractions), and leave
 * every other shape to strtod (16 digits, exponents, a leading or trailing
 * point) or refuse it as before (inf, trailing letters, n/a). A lookup of a
 * key the line lacks ends at a bit of a key set: every key the line has is
 * still found, and keys that share its first bytes are not confused.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>

#include "format/line.h"

static struct lsc__parsed p;
static char line[1024];

static void parse(const char *fields)
{
	snprintf(line, sizeof(line), "[loadscope/1] phase copy: test | %s", fields);
	cr_assert_eq(lsc__line_parse(line, strlen(line), &p), 1, "%s", fields);
}

/* @key read as @want, bit for bit */
static void expect_f64(const char *key, double want)
{
	double v = 12345.678;
	cr_assert_eq(lsc__parsed_f64(&p, key, &v), 0, "%s", key);
	cr_expect(memcmp(&v, &want, sizeof(v)) == 0, "%s: %.17g, not %.17g", key, v, want);
}

Test(lookup, plain_decimals_are_the_compilers_doubles)
{
	parse("a=0.259 b=123456789012345 c=-0 d=1.23456789012345 e=007 f=-42.5 g=0.1 h=99999999999999.9 "
	      "i=0.000000000000001 j=1234567890123456 k=9007199254740993 l=0.30000000000000004 m=0.3 n=1.7 "
	      "o=0.0017 q=0.000010");
	expect_f64("a", 0.259);
	expect_f64("b", 123456789012345.0);
	expect_f64("c", -0.0);
	cr_expect(signbit(-0.0), "the compiler's -0.0 has its sign");
	expect_f64("d", 1.23456789012345);
	expect_f64("e", 7.0);
	expect_f64("f", -42.5);
	expect_f64("g", 0.1);
	expect_f64("h", 99999999999999.9);
	/* where a product with the power's inverse would round the other way */
	expect_f64("m", 0.3);
	expect_f64("n", 1.7);
	expect_f64("o", 0.0017);
	expect_f64("q", 0.00001);
	/* past 15 digits: strtod's */
	expect_f64("i", 0.000000000000001);
	expect_f64("j", 1234567890123456.0);
	expect_f64("k", 9007199254740992.0);
	expect_f64("l", 0.30000000000000004);
}

Test(lookup, other_numbers_are_strtods_or_refused)
{
	parse("a=1e3 b=.5 c=1. d=+2 e=inf f=12abc g=n/a h=- i=1.2.3");
	expect_f64("a", 1000.0);
	expect_f64("b", 0.5);
	expect_f64("c", 1.0);
	expect_f64("d", 2.0);
	double v;
	cr_expect_eq(lsc__parsed_f64(&p, "e", &v), -EINVAL);
	cr_expect_eq(lsc__parsed_f64(&p, "f", &v), -EINVAL);
	cr_expect_eq(lsc__parsed_f64(&p, "g", &v), -EINVAL);
	cr_expect_eq(lsc__parsed_f64(&p, "h", &v), -EINVAL);
	cr_expect_eq(lsc__parsed_f64(&p, "i", &v), -EINVAL);
	cr_expect_eq(lsc__parsed_f64(&p, "absent", &v), -ENOENT);
}

Test(lookup, every_key_is_found_and_absent_ones_are_not)
{
	parse("wall_s=1 wall=2 vm_compact_stall=3 vm_pgfault=4 vm=5 w=6 x_y_z=7 kind=copy bytes=8");
	static const struct {
		const char *k, *v;
	} have[] = {{"wall_s", "1"}, {"wall", "2"}, {"vm_compact_stall", "3"}, {"vm_pgfault", "4"}, {"vm", "5"},
		    {"w", "6"}, {"x_y_z", "7"}, {"kind", "copy"}, {"bytes", "8"}};
	for (size_t i = 0; i < sizeof(have) / sizeof(have[0]); i++) {
		const char *v = lsc__parsed_get(&p, have[i].k);
		cr_expect(v && !strcmp(v, have[i].v), "%s: %s, not %s", have[i].k, v ? v : "(none)", have[i].v);
	}
	static const char *const lack[] = {"wal", "wall_", "vm_", "v", "x", "kinds", "byte", "", "run"};
	for (size_t i = 0; i < sizeof(lack) / sizeof(lack[0]); i++)
		cr_expect_null(lsc__parsed_get(&p, lack[i]), "\"%s\" found", lack[i]);
}
