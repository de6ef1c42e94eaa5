/*
 * Description: the line grammar's round trips as properties, in both forms
 * (src/format/line.c, escape.c, human.c). Every integer the writer takes
 * comes back as the same decimal digits: unsigned 0, 1, 2^63-1, 2^63 and
 * UINT64_MAX (a u64 of 2^63 or more written as a signed number would read
 * back negative) and 2000 more drawn from a fixed seed at every bit length;
 * signed INT64_MIN..INT64_MAX the same way; a double with the precision it
 * was given, negative zero included, and a NaN or an infinity is written
 * "n/a" and refused by the number parser. A name with any byte 1..255 in it
 * (and every valid two-, three- and four-byte UTF-8 sequence class) parses
 * back from the human form to its exact bytes, and from JSON to its bytes
 * with each byte that starts no UTF-8 sequence as U+FFFD, the JSON line
 * staying valid (tests/helpers/json_strict.c). The expected digits come from
 * strtoull/strtoll of the parsed text compared with the value the test put
 * in, and from literals written out by hand for the named edges. And the
 * human units agree with the triage's reader of them (tools/triage/scan.c):
 * a size formatted by lsc__fmt_bytes just below, at and just above every
 * unit boundary from 1 KiB to 1 TiB (and at the 100-units switch from two
 * decimals to one) reads back within half of its last printed digit; the
 * same for lsc__fmt_secs around its 100 s switch. A record rendered into
 * a buffer of every size from 80 to 400 bytes (80 holds the head of the
 * line and the 24 bytes kept for the marker; the library renders into 4096
 * behind a prefix under 64) is one valid, parseable line
 * in both forms, says trunc=1 exactly when something of it was cut, and is
 * whole once the buffer holds it and the 24 bytes kept for the marker.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/human.h"
#include "format/line.h"
#include "helpers/json_strict.h"
#include "triage/internal.h"

static struct lsc__rec rec;
static char line[LSC__LINE_MAX];

static const enum lsc_format forms[] = {LSC_FORMAT_HUMAN, LSC_FORMAT_JSON};

/* Render rec in @fmt, check JSON validity, parse it into @p. */
static void render_parse(enum lsc_format fmt, struct lsc__parsed *p)
{
	size_t n = lsc__rec_render(&rec, fmt, "engine: ", line, sizeof(line));
	cr_assert_gt(n, 0);
	cr_assert_eq(rec.truncated, 0);
	if (fmt == LSC_FORMAT_JSON) {
		char why[128];
		const char *j = strchr(line, '{');
		cr_assert_eq(lsct_json_strict(j, strlen(j), why, sizeof(why)), 0, "%s: %s", why, line);
	}
	cr_assert_eq(lsc__line_parse(line, n, p), 1, "%s", line);
	cr_assert_str_eq(p->event, "note");
}

static uint64_t xs = 0x9e3779b97f4a7c15ull;
static uint64_t next_u64(void)
{
	xs ^= xs << 13;
	xs ^= xs >> 7;
	xs ^= xs << 17;
	return xs;
}

Test(line_roundtrip, u64_edges_are_their_digits)
{
	static const struct {
		uint64_t v;
		const char *digits;
	} edge[] = {
		{0, "0"},
		{1, "1"},
		{9223372036854775807ull, "9223372036854775807"},
		{9223372036854775808ull, "9223372036854775808"},
		{18446744073709551615ull, "18446744073709551615"},
	};
	for (int f = 0; f < 2; f++) {
		lsc__rec_init(&rec, "note");
		for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
			static const char *keys[] = {"a", "b", "c", "d", "e"};
			lsc__rec_u64(&rec, keys[i], edge[i].v);
		}
		struct lsc__parsed p;
		render_parse(forms[f], &p);
		static const char *keys[] = {"a", "b", "c", "d", "e"};
		for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
			cr_assert_str_eq(lsc__parsed_get(&p, keys[i]), edge[i].digits, "form %d: %s", f, line);
	}
}

/* Every bit length from 0 to 64, several values each, in one record per
 * bit length so that the fields fit. */
Test(line_roundtrip, u64_any_value)
{
	static const char *keys[] = {"v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7"};
	for (int bits = 0; bits <= 64; bits++) {
		for (int f = 0; f < 2; f++) {
			uint64_t v[8];
			lsc__rec_init(&rec, "note");
			for (int k = 0; k < 8; k++) {
				uint64_t x = next_u64();
				v[k] = bits == 64 ? x | (1ull << 63) : bits ? (x & ((1ull << bits) - 1)) | (1ull << (bits - 1)) : 0;
				lsc__rec_u64(&rec, keys[k], v[k]);
			}
			struct lsc__parsed p;
			render_parse(forms[f], &p);
			for (int k = 0; k < 8; k++) {
				const char *s = lsc__parsed_get(&p, keys[k]);
				cr_assert_not_null(s);
				cr_assert(s[0] >= '0' && s[0] <= '9', "not digits: %s", s);
				char *e;
				errno = 0;
				unsigned long long back = strtoull(s, &e, 10);
				cr_assert(!*e && !errno, "%s", s);
				cr_assert_eq(back, v[k], "bits %d: wrote %" PRIu64 ", read %s", bits, v[k], s);
			}
		}
	}
}

Test(line_roundtrip, i64_any_value)
{
	static const int64_t edge[] = {INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX};
	for (int f = 0; f < 2; f++) {
		lsc__rec_init(&rec, "note");
		static const char *keys[] = {"a", "b", "c", "d", "e", "f"};
		for (int i = 0; i < 6; i++)
			lsc__rec_i64(&rec, keys[i], edge[i]);
		struct lsc__parsed p;
		render_parse(forms[f], &p);
		cr_assert_str_eq(lsc__parsed_get(&p, "a"), "-9223372036854775808");
		cr_assert_str_eq(lsc__parsed_get(&p, "f"), "9223372036854775807");
		for (int i = 0; i < 6; i++) {
			int64_t back;
			cr_assert_eq(lsc__parsed_i64(&p, keys[i], &back), 0);
			cr_assert_eq(back, edge[i]);
		}
	}
	for (int round = 0; round < 200; round++) {
		int64_t v = (int64_t)next_u64() >> (round % 64);
		for (int f = 0; f < 2; f++) {
			lsc__rec_init(&rec, "note");
			lsc__rec_i64(&rec, "v", v);
			struct lsc__parsed p;
			render_parse(forms[f], &p);
			int64_t back;
			cr_assert_eq(lsc__parsed_i64(&p, "v", &back), 0);
			cr_assert_eq(back, v);
		}
	}
}

Test(line_roundtrip, f64_with_its_precision_and_nan_refused)
{
	static const struct {
		double v;
		int prec;
		const char *text;
	} cases[] = {
		{0.0, 3, "0.000"},     {-0.0, 3, "-0.000"},   {1.5, 1, "1.5"},
		{2.25, 0, "2"},        {1e15, 2, "1000000000000000.00"},
		{-3.0625, 4, "-3.0625"}, {0.001, 3, "0.001"}, {0.0004, 3, "0.000"},
	};
	for (int f = 0; f < 2; f++) {
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			lsc__rec_init(&rec, "note");
			lsc__rec_f64(&rec, "x", cases[i].v, cases[i].prec);
			lsc__rec_f64(&rec, "nan", NAN, 3);
			lsc__rec_f64(&rec, "inf", INFINITY, 3);
			lsc__rec_f64(&rec, "ninf", -INFINITY, 1);
			struct lsc__parsed p;
			render_parse(forms[f], &p);
			cr_assert_str_eq(lsc__parsed_get(&p, "x"), cases[i].text, "%s", line);
			double back;
			cr_assert_eq(lsc__parsed_f64(&p, "x", &back), 0);
			cr_assert_eq(back, strtod(cases[i].text, NULL));
			cr_assert_eq(!!signbit(back), cases[i].text[0] == '-');
			const char *na[] = {"nan", "inf", "ninf"};
			for (int k = 0; k < 3; k++) {
				cr_assert_str_eq(lsc__parsed_get(&p, na[k]), "n/a", "%s", line);
				back = 42;
				cr_assert_eq(lsc__parsed_f64(&p, na[k], &back), -EINVAL);
				cr_assert_eq(back, 42);
			}
		}
	}
}

/* The bytes JSON gives back for @in: valid UTF-8 kept, a byte that starts
 * no sequence as U+FFFD. Written from RFC 3629's table, apart from
 * escape.c: lead byte ranges and the continuation bytes they need. */
static size_t json_expect(const unsigned char *in, size_t n, unsigned char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = in[i];
		size_t len = 0;
		unsigned char lo = 0x80, hi = 0xbf;
		if (c < 0x80)
			len = 1;
		else if (c >= 0xc2 && c <= 0xdf)
			len = 2;
		else if (c >= 0xe0 && c <= 0xef) {
			len = 3;
			lo = c == 0xe0 ? 0xa0 : 0x80;
			hi = c == 0xed ? 0x9f : 0xbf;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4;
			lo = c == 0xf0 ? 0x90 : 0x80;
			hi = c == 0xf4 ? 0x8f : 0xbf;
		}
		int ok = len > 0 && i + len <= n;
		for (size_t k = 1; ok && k < len; k++) {
			unsigned char lim_lo = k == 1 ? lo : 0x80, lim_hi = k == 1 ? hi : 0xbf;
			ok = in[i + k] >= lim_lo && in[i + k] <= lim_hi;
		}
		if (ok) {
			memcpy(out + o, in + i, len);
			o += len;
			i += len;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	out[o] = 0;
	return o;
}

static void name_round_trip(const unsigned char *name, size_t n)
{
	char s[64];
	cr_assert_lt(n, sizeof(s));
	memcpy(s, name, n);
	s[n] = 0;
	for (int f = 0; f < 2; f++) {
		lsc__rec_init(&rec, "note");
		lsc__rec_say(&rec, "a name");
		lsc__rec_str(&rec, "name", s);
		lsc__rec_u64(&rec, "after", 7);
		struct lsc__parsed p;
		render_parse(forms[f], &p);
		const char *back = lsc__parsed_get(&p, "name");
		cr_assert_not_null(back, "%s", line);
		if (forms[f] == LSC_FORMAT_HUMAN) {
			cr_assert_str_eq(back, s, "byte %02x: %s", name[1], line);
		} else {
			unsigned char want[256];
			json_expect(name, n, want);
			cr_assert_str_eq(back, (const char *)want, "byte %02x: %s", name[1], line);
		}
		cr_assert_str_eq(lsc__parsed_get(&p, "after"), "7", "%s", line);
	}
}

Test(line_roundtrip, every_byte_in_a_name)
{
	for (unsigned b = 1; b < 256; b++) {
		unsigned char one[] = {'a', (unsigned char)b, 'z'};
		name_round_trip(one, 3);
		unsigned char twice[] = {'/', (unsigned char)b, (unsigned char)b, ' ', '='};
		name_round_trip(twice, 5);
	}
}

Test(line_roundtrip, every_utf8_lead_with_each_continuation_class)
{
	static const unsigned char conts[] = {0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0};
	for (unsigned lead = 0xc0; lead < 0x100; lead++) {
		for (size_t i = 0; i < sizeof(conts); i++) {
			for (size_t j = 0; j < sizeof(conts); j++) {
				unsigned char s[] = {'x', (unsigned char)lead, conts[i], conts[j], 0x80, 'y'};
				name_round_trip(s, sizeof(s));
				name_round_trip(s, 3); /* cut after the first continuation */
			}
		}
	}
}

/* Half of the last digit @text shows, in the unit it shows (@unit_mul). */
static double half_digit(const char *text, double unit_mul)
{
	const char *dot = strchr(text, '.');
	int digits = 0;
	if (dot)
		while (dot[1 + digits] >= '0' && dot[1 + digits] <= '9')
			digits++;
	return 0.5 * pow(10, -digits) * unit_mul;
}

static double unit_bytes(const char *text)
{
	static const struct {
		const char *name;
		double mul;
	} u[] = {{" B", 1}, {" KiB", 1024.0}, {" MiB", 1048576.0}, {" GiB", 1073741824.0},
		 {" TiB", 1099511627776.0}};
	for (int i = 0; i < 5; i++)
		if (strstr(text, u[i].name))
			return u[i].mul;
	cr_assert_fail("no unit in \"%s\"", text);
	return 0;
}

Test(line_roundtrip, human_sizes_read_back_at_every_unit_boundary)
{
	for (int k = 1; k <= 4; k++) {
		double unit = pow(1024, k);
		const double at[] = {unit - 1, unit, unit + 1, unit * 1.5, 99.99 * unit, 99.996 * unit,
				     100 * unit, 100 * unit + 1, 1023.9 * unit, 1023.96 * unit};
		for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
			char b[LSC__HBUF];
			lsc__fmt_bytes(b, at[i]);
			const char *q = b;
			double gib;
			cr_assert(tr_size_gib(&q, b + strlen(b), &gib), "unread: \"%s\"", b);
			double back = gib * 1073741824.0;
			double tol = half_digit(b, unit_bytes(b)) * (1 + 1e-9);
			cr_assert(fabs(back - at[i]) <= tol, "%.0f bytes written \"%s\", read %.0f", at[i], b, back);
		}
	}
	for (unsigned x = 0; x < 2048; x++) {
		char b[LSC__HBUF];
		lsc__fmt_bytes(b, x);
		const char *q = b;
		double gib;
		cr_assert(tr_size_gib(&q, b + strlen(b), &gib), "unread: \"%s\"", b);
		cr_assert(fabs(gib * 1073741824.0 - x) <= half_digit(b, unit_bytes(b)) * (1 + 1e-9), "%u: %s", x, b);
	}
}

Test(line_roundtrip, human_seconds_read_back_around_their_switch)
{
	const double at[] = {0, 0.0004, 0.0005, 0.001, 1.2345, 99.9994, 99.9996, 100, 100.4, 100.6, 432, 86400.2};
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		char b[LSC__HBUF];
		lsc__fmt_secs(b, at[i]);
		const char *q = b;
		double s;
		cr_assert(tr_dur_s(&q, b + strlen(b), &s), "unread: \"%s\"", b);
		cr_assert(fabs(s - at[i]) <= half_digit(b, 1) * (1 + 1e-9), "%g s written \"%s\", read %g", at[i], b, s);
	}
}

/* Every buffer size: the line is whole or says it is not. */
Test(line_roundtrip, every_buffer_size_is_one_line_that_says_when_it_was_cut)
{
	char human[301];
	memset(human, '"', 300); /* two bytes each in JSON */
	human[300] = 0;
	for (int f = 0; f < 4; f++) {
		/* With a field after the sentence, and without: the cut
		 * sentence alone must say so. Only in JSON, where escapes can
		 * make a sentence of LSC__HUMAN_MAX bytes longer than a line;
		 * a human sentence is at most that, and always fits. */
		int field = f < 2;
		if (!field && forms[f % 2] == LSC_FORMAT_HUMAN)
			continue;
		lsc__rec_init(&rec, "note");
		lsc__rec_say(&rec, "%s", human);
		if (field)
			lsc__rec_u64(&rec, "n", 7);
		char whole[LSC__LINE_MAX];
		size_t full = lsc__rec_render(&rec, forms[f % 2], NULL, whole, sizeof(whole));
		for (size_t cap = 80; cap <= 400; cap++) {
			char out[512];
			size_t n = lsc__rec_render(&rec, forms[f % 2], NULL, out, cap);
			cr_assert_lt(n, cap);
			cr_assert_eq(out[n - 1], '\n', "form %d, %zu bytes: no newline", f, cap);
			if (forms[f % 2] == LSC_FORMAT_JSON) {
				char why[128];
				cr_assert_eq(lsct_json_strict(out, n, why, sizeof(why)), 0, "%zu bytes: %s: %s", cap,
					     why, out);
			}
			struct lsc__parsed p;
			cr_assert_eq(lsc__line_parse(out, n, &p), 1, "form %d, %zu bytes: %s", f, cap, out);
			const char *t = lsc__parsed_get(&p, "trunc"), *v = lsc__parsed_get(&p, "n");
			int all = (!field || (v && !strcmp(v, "7"))) && !strcmp(p.human, human);
			cr_assert_eq(t && !strcmp(t, "1"), !all, "form %d, %zu bytes (whole: %zu), trunc=%s: %s",
				     f, cap, full, t ? t : "(none)", out);
			if (cap >= full + 24)
				cr_assert(all, "form %d: %zu bytes hold the line and the marker's room", f, cap);
		}
	}
}

/* JSON from another writer may spell a character outside the BMP as a
 * surrogate pair: read as its UTF-8 bytes (U+1F600 is F0 9F 98 80; U+10000,
 * the first, F0 90 80 80; U+10FFFF, the last, F4 8F BF BF). */
Test(line_roundtrip, a_json_surrogate_pair_reads_as_its_character)
{
	static const struct {
		const char *esc, *utf8;
	} pairs[] = {
		{"\\ud83d\\ude00", "\xf0\x9f\x98\x80"},
		{"\\ud800\\udc00", "\xf0\x90\x80\x80"},
		{"\\udbff\\udfff", "\xf4\x8f\xbf\xbf"},
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		char s[128];
		snprintf(s, sizeof(s), "{\"loadscope\":1,\"event\":\"note\",\"msg\":\"m\",\"name\":\"a%sb\"}",
			 pairs[i].esc);
		struct lsc__parsed p;
		cr_assert_eq(lsc__line_parse(s, strlen(s), &p), 1, "%s", s);
		char want[16];
		snprintf(want, sizeof(want), "a%sb", pairs[i].utf8);
		cr_assert_str_eq(lsc__parsed_get(&p, "name"), want, "pair %zu", i);
	}
}

/* \uXXXX of the BMP on both sides of the surrogate range: U+D7FF is ED 9F
 * BF, U+E000 (the first after it) EE 80 80, U+FFFF EF BF BF, U+0800 E0 A0
 * 80, U+07FF DF BF; a lone surrogate (U+D800, U+DFFF) is no character and
 * reads as '?'. */
Test(line_roundtrip, a_json_bmp_escape_at_each_edge)
{
	static const struct {
		const char *esc, *utf8;
	} c[] = {
		{"\\ud7ff", "\xed\x9f\xbf"}, {"\\ue000", "\xee\x80\x80"}, {"\\uffff", "\xef\xbf\xbf"},
		{"\\u0800", "\xe0\xa0\x80"}, {"\\u07ff", "\xdf\xbf"},     {"\\u0080", "\xc2\x80"},
		{"\\u007f", "\x7f"},         {"\\ud800", "?"},             {"\\udfff", "?"},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char s[128];
		snprintf(s, sizeof(s), "{\"loadscope\":1,\"event\":\"note\",\"msg\":\"m\",\"name\":\"a%sb\"}", c[i].esc);
		struct lsc__parsed p;
		cr_assert_eq(lsc__line_parse(s, strlen(s), &p), 1, "%s", s);
		char want[16];
		snprintf(want, sizeof(want), "a%sb", c[i].utf8);
		cr_expect_str_eq(lsc__parsed_get(&p, "name"), want, "%s", c[i].esc);
	}
}

/* The triage's number reader stops at the end it is given: a point that
 * is the last byte in range is no number, whatever digit follows it in
 * memory; one digit more in range and it is ".5". */
Test(line_roundtrip, a_number_ends_where_its_range_ends)
{
	const char buf[] = "x .5";
	const char *p = buf + 2;
	double v = -1;
	cr_assert_eq(tr_num(&p, buf + 3, &v), 0, "read past its end: %g", v);
	p = buf + 2;
	cr_assert_eq(tr_num(&p, buf + 4, &v), 1);
	cr_assert_eq(v, 0.5);
	cr_assert_eq(p, buf + 4);
}

/* The tag's version is a decimal from 1 to 1000: "[loadscope/10]" is 10,
 * "[loadscope/1000]" 1000; 0 and 1001 are not this format's lines. */
Test(line_roundtrip, the_tags_version_is_decimal_and_bounded)
{
	static const struct {
		const char *v;
		int want; /* 0: refused */
	} c[] = {{"1", 1}, {"2", 2}, {"9", 9}, {"10", 10}, {"19", 19}, {"1000", 1000}, {"0", 0}, {"1001", 0}};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char s[128];
		snprintf(s, sizeof s, "[loadscope/%s] note t: x | run=00000001 topic=t text=x", c[i].v);
		struct lsc__parsed p;
		int r = lsc__line_parse(s, strlen(s), &p);
		if (c[i].want) {
			cr_expect_eq(r, 1, "%s", s);
			cr_expect_eq(p.version, c[i].want, "%s", s);
		} else {
			cr_expect_neq(r, 1, "%s: parsed", s);
		}
	}
}

/* Every unit the triage's readers know, "3 UNIT" read as the unit's
 * definition says (IEC powers of 1024, SI powers of 1000; units in any
 * case, so KB is kB), in GiB, seconds or GiB/s: a unit's factor changed,
 * or one unit taken for another, reads a different number. */
Test(line_roundtrip, every_unit_the_triage_reads)
{
	static const struct {
		int kind; /* 0 size, 1 duration, 2 rate */
		const char *text;
		double want;
	} u[] = {
		{0, "3 TiB", 3 * 1024.0},      {0, "3 TB", 3e12 / 1073741824.0}, {0, "3 GiB", 3},
		{0, "3 GB", 3e9 / 1073741824.0}, {0, "3 MiB", 3 / 1024.0},       {0, "3 MB", 3e6 / 1073741824.0},
		{0, "3 KiB", 3 / 1048576.0},   {0, "3 kB", 3e3 / 1073741824.0},  {0, "3 KB", 3e3 / 1073741824.0},
		{0, "3 bytes", 3 / 1073741824.0}, {0, "1 byte", 1 / 1073741824.0}, {0, "3G", 3},
		{0, "3M", 3 / 1024.0},         {0, "3 B", 3 / 1073741824.0},
		{1, "3 seconds", 3},           {1, "1 second", 1},               {1, "3 secs", 3},
		{1, "3 sec", 3},               {1, "3 ms", 0.003},               {1, "3 milliseconds", 0.003},
		{1, "3 us", 3e-6},             {1, "3 \xc2\xb5s", 3e-6},         {1, "3 microseconds", 3e-6},
		{1, "3 minutes", 180},
		{1, "3 min", 180},             {1, "3 s", 3},
		{2, "3 GiB/s", 3},             {2, "3 GB/s", 3e9 / 1073741824.0}, {2, "3 MiB/s", 3 / 1024.0},
		{2, "3 MB/s", 3e6 / 1073741824.0}, {2, "3 KiB/s", 3 / 1048576.0}, {2, "3 kB/s", 3e3 / 1073741824.0},
	};
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		const char *q = u[i].text, *end = q + strlen(q);
		double v = NAN;
		int ok = u[i].kind == 0 ? tr_size_gib(&q, end, &v) : u[i].kind == 1 ? tr_dur_s(&q, end, &v)
										 : tr_rate_gibps(&q, end, &v);
		cr_assert(ok, "\"%s\" not read", u[i].text);
		cr_assert(fabs(v - u[i].want) <= 1e-12 * u[i].want, "\"%s\": read %.15g, want %.15g", u[i].text, v,
			  u[i].want);
		cr_assert_eq(q, end, "\"%s\": the unit not consumed whole", u[i].text);
	}
}
