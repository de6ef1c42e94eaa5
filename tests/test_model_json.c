/*
 * Description: the strict JSON reader the model headers are parsed with
 * (src/model/json.c), on its own. As properties: every code point, written
 * as a \u escape (a surrogate pair above U+FFFF, hex digits in either case)
 * or as raw UTF-8, decodes to the UTF-8 bytes an encoder written here gives;
 * every simple escape decodes to its byte and every other escape letter is
 * refused; every integer from 0 to UINT64_MAX reads back and the first past
 * it is refused; numbers of RFC 8259's grammar are skipped whole and the
 * malformed ones refused; nesting is read to LSC__JSON_DEPTH and refused one
 * deeper. Each refusal says why and where (the byte offset of the error).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/json.h"

/* The UTF-8 form of @cp, written apart from the reader: the count of
 * continuation bytes first, then the lead byte's marker from that count. */
static size_t utf8_of(unsigned cp, unsigned char *o)
{
	int more = cp >= 0x10000 ? 3 : cp >= 0x800 ? 2 : cp >= 0x80 ? 1 : 0;
	static const unsigned char lead[] = {0x00, 0xc0, 0xe0, 0xf0};
	o[0] = (unsigned char)(lead[more] | (cp >> (6 * more)));
	for (int i = 1; i <= more; i++)
		o[i] = (unsigned char)(0x80 | ((cp >> (6 * (more - i))) & 0x3f));
	return (size_t)more + 1;
}

/* Decode the one string value of @doc; NULL (and the error in *why) when refused. */
static const char *decode(struct lsc__json *j, const char *doc, size_t *len, const char **why, size_t *at)
{
	const char *s = NULL;
	lsc__json_init(j, doc, strlen(doc));
	int r = lsc__json_string(j, &s, len);
	*why = lsc__json_error(j, at);
	if (r < 0) {
		cr_assert_not_null(*why, "%s: refused without a reason", doc);
		return NULL;
	}
	cr_assert_null(*why, "%s: read, but an error is set: %s", doc, *why);
	return s;
}

/* The code points checked: every edge of every UTF-8 length and of the
 * surrogate block, and a stride through each plane. */
static size_t points(unsigned *cp, size_t cap)
{
	static const unsigned edge[] = {0x01, 0x1f, 0x20, 0x7e, 0x7f, 0x80, 0xff, 0x100, 0x7ff, 0x800,
					0xfff, 0x1000, 0xd7ff, 0xe000, 0xfffd, 0xfffe, 0xffff, 0x10000,
					0x10001, 0x103ff, 0x10400, 0xfffff, 0x100000, 0x10fffe, 0x10ffff};
	size_t n = 0;
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		cp[n++] = edge[i];
	for (unsigned c = 3; c < 0x110000 && n < cap; c += 4099)
		if (c < 0xd800 || c > 0xdfff)
			cp[n++] = c;
	return n;
}

Test(model_json, every_code_point_as_an_escape_decodes_to_its_utf8)
{
	static unsigned cp[400];
	size_t n = points(cp, 400);
	for (size_t i = 0; i < n; i++) {
		for (int upper = 0; upper < 2; upper++) {
			char doc[64];
			const char *f = upper ? "\\u%04X" : "\\u%04x";
			char esc[32];
			if (cp[i] >= 0x10000) {
				unsigned v = cp[i] - 0x10000, hi = 0xd800 + (v >> 10), lo = 0xdc00 + (v & 0x3ff);
				char a[8], b[8];
				snprintf(a, sizeof(a), f, hi);
				snprintf(b, sizeof(b), f, lo);
				snprintf(esc, sizeof(esc), "%s%s", a, b);
			} else {
				snprintf(esc, sizeof(esc), f, cp[i]);
			}
			snprintf(doc, sizeof(doc), "\"<%s>\"", esc);
			unsigned char want[8];
			size_t wl = utf8_of(cp[i], want + 1) + 2;
			want[0] = '<';
			want[wl - 1] = '>';
			struct lsc__json j;
			const char *why;
			size_t len = 0, at;
			const char *s = decode(&j, doc, &len, &why, &at);
			cr_assert_not_null(s, "%s (U+%04X) refused: %s", doc, cp[i], why);
			cr_expect_eq(len, wl, "%s: %zu bytes, want %zu", doc, len, wl);
			cr_expect(len == wl && !memcmp(s, want, wl), "%s: wrong bytes", doc);
			cr_expect_eq(s[len], '\0', "%s: not terminated", doc);
			cr_expect_eq(j.pos, strlen(doc), "%s: stopped at %zu", doc, j.pos);
			lsc__json_free(&j);
		}
	}
}

Test(model_json, raw_utf8_passes_through_unchanged)
{
	static unsigned cp[400];
	size_t n = points(cp, 400);
	for (size_t i = 0; i < n; i++) {
		if (cp[i] < 0x20 || cp[i] == '"' || cp[i] == '\\')
			continue;
		unsigned char u[8];
		size_t l = utf8_of(cp[i], u);
		char doc[16];
		doc[0] = '"';
		memcpy(doc + 1, u, l);
		doc[l + 1] = '"';
		doc[l + 2] = '\0';
		struct lsc__json j;
		const char *why;
		size_t len = 0, at;
		const char *s = decode(&j, doc, &len, &why, &at);
		cr_assert_not_null(s, "U+%04X raw refused: %s", cp[i], why);
		cr_expect(len == l && !memcmp(s, u, l), "U+%04X raw: %zu bytes", cp[i], len);
		lsc__json_free(&j);
	}
}

Test(model_json, simple_escapes_and_unknown_ones)
{
	static const struct {
		char e, byte;
	} ok[] = {{'"', '"'}, {'\\', '\\'}, {'/', '/'}, {'b', '\b'}, {'f', '\f'}, {'n', '\n'}, {'r', '\r'}, {'t', '\t'}};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char doc[16];
		snprintf(doc, sizeof(doc), "\"a\\%cz\"", ok[i].e);
		struct lsc__json j;
		const char *why;
		size_t len = 0, at;
		const char *s = decode(&j, doc, &len, &why, &at);
		cr_assert_not_null(s, "%s refused: %s", doc, why);
		cr_expect_eq(len, 3, "%s: %zu bytes", doc, len);
		cr_expect(len == 3 && s[0] == 'a' && s[1] == ok[i].byte && s[2] == 'z', "%s: wrong bytes", doc);
		lsc__json_free(&j);
	}
	/* Every other printable letter after a backslash is refused (u is the
	 * \u escape, with its hex digits missing here). */
	for (int c = 0x21; c < 0x7f; c++) {
		if (strchr("\"\\/bfnrt", c))
			continue;
		char doc[16];
		snprintf(doc, sizeof(doc), "\"a\\%c\"", c);
		struct lsc__json j;
		const char *why;
		size_t len, at;
		cr_expect_null(decode(&j, doc, &len, &why, &at), "%s read", doc);
		if (why)
			cr_expect_str_eq(why, c == 'u' ? "a bad \\u escape" : "an unknown escape in a string", "%s", doc);
		lsc__json_free(&j);
	}
}

Test(model_json, bad_u_escapes_and_surrogates_are_refused_with_their_reason)
{
	static const struct {
		const char *doc, *why;
	} bad[] = {
		{"\"\\u12\"", "a bad \\u escape"},
		{"\"\\u123\"", "a bad \\u escape"},
		{"\"\\u12g4\"", "a bad \\u escape"},
		{"\"\\u12G4\"", "a bad \\u escape"},
		{"\"\\u 123\"", "a bad \\u escape"},
		{"\"\\u/000\"", "a bad \\u escape"},
		{"\"\\u:000\"", "a bad \\u escape"},
		{"\"\\u@000\"", "a bad \\u escape"},
		{"\"\\u`000\"", "a bad \\u escape"},
		{"\"\\udc00\"", "a lone low surrogate in a \\u escape"},
		{"\"\\udfff\"", "a lone low surrogate in a \\u escape"},
		{"\"\\ud800\"", "a high surrogate without its low half"},
		{"\"\\udbff\"", "a high surrogate without its low half"},
		{"\"\\ud800x\\udc00\"", "a high surrogate without its low half"},
		{"\"\\ud800\\n\\udc00\"", "a high surrogate without its low half"},
		{"\"\\ud800\\ud800\"", "a high surrogate without its low half"},
		{"\"\\ud800\\udbff\"", "a high surrogate without its low half"},
		{"\"\\ud800\\ue000\"", "a high surrogate without its low half"},
		{"\"\\ud800\\u0041\"", "a high surrogate without its low half"},
		{"\"\\ud800\\udc0\"", "a high surrogate without its low half"},
		{"\"\\u0000\"", "a NUL character (\\u0000) in a string"},
		{"\"a\tb\"", "a control character in a string"},
		{"\"a\x1f\"", "a control character in a string"},
		{"\"\xc0\x80\"", "a string that is not valid UTF-8"},
		{"\"\xed\xa0\x80\"", "a string that is not valid UTF-8"},
		{"\"\xf4\x90\x80\x80\"", "a string that is not valid UTF-8"},
		{"\"abc", "a string with no closing quote"},
		{"\"abc\\\"", "a string with no closing quote"},
		{"abc\"", "expected a string"},
		{"", "expected a string"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct lsc__json j;
		const char *why;
		size_t len, at;
		cr_expect_null(decode(&j, bad[i].doc, &len, &why, &at), "%s read", bad[i].doc);
		if (why)
			cr_expect_str_eq(why, bad[i].why, "%s", bad[i].doc);
		/* The first error stays: a later call is refused and keeps it. */
		const char *s;
		cr_expect_eq(lsc__json_string(&j, &s, NULL), -1);
		cr_expect_eq(lsc__json_peek(&j), LSC__J_ERROR);
		cr_expect_eq(lsc__json_error(&j, NULL), why);
		lsc__json_free(&j);
	}
	/* The edges just inside the surrogate block's neighbours are ordinary. */
	static const char *fine[] = {"\"\\ud7ff\"", "\"\\ue000\"", "\"\\ud800\\udc00\"", "\"\\udbff\\udfff\""};
	for (size_t i = 0; i < 4; i++) {
		struct lsc__json j;
		const char *why;
		size_t len, at;
		cr_expect_not_null(decode(&j, fine[i], &len, &why, &at), "%s refused: %s", fine[i], why);
		lsc__json_free(&j);
	}
}

/* Read @doc as one u64; 0 with *v, or -1 with the reason in *why. */
static int u64_of(const char *doc, uint64_t *v, const char **why)
{
	struct lsc__json j;
	lsc__json_init(&j, doc, strlen(doc));
	int r = lsc__json_u64(&j, v);
	if (r == 0 && lsc__json_end(&j) < 0)
		r = -1;
	*why = lsc__json_error(&j, NULL);
	lsc__json_free(&j);
	return r;
}

Test(model_json, every_u64_reads_back_and_the_first_past_it_is_refused)
{
	uint64_t vals[200];
	size_t n = 0;
	for (int b = 0; b < 64; b++) {
		uint64_t p = (uint64_t)1 << b;
		vals[n++] = p - 1;
		vals[n++] = p;
		vals[n++] = p + 1;
	}
	vals[n++] = UINT64_MAX;
	vals[n++] = UINT64_MAX - 1;
	vals[n++] = UINT64_MAX / 10 * 10; /* ...610: the last full decade */
	vals[n++] = 9999999999999999999ull;
	vals[n++] = 10000000000000000000ull;
	for (size_t i = 0; i < n; i++) {
		char doc[32];
		snprintf(doc, sizeof(doc), " %llu ", (unsigned long long)vals[i]);
		uint64_t v = 1234;
		const char *why;
		cr_expect_eq(u64_of(doc, &v, &why), 0, "%s refused: %s", doc, why);
		cr_expect_eq(v, vals[i], "%s read as %llu", doc, (unsigned long long)v);
	}
	/* Past UINT64_MAX (18446744073709551615) by 1, by each of the last
	 * digit's steps, and by a digit more. */
	static const char *over[] = {"18446744073709551616", "18446744073709551619", "18446744073709551620",
				     "18446744073709551700", "99999999999999999999", "184467440737095516150"};
	for (size_t i = 0; i < sizeof(over) / sizeof(over[0]); i++) {
		uint64_t v;
		const char *why;
		cr_expect_eq(u64_of(over[i], &v, &why), -1, "%s read as %llu", over[i], (unsigned long long)v);
		cr_expect_str_eq(why ? why : "", "an integer larger than 64 bits", "%s", over[i]);
	}
	static const struct {
		const char *doc, *why;
	} notint[] = {
		{"-0", "expected a non-negative integer"}, {"-1", "expected a non-negative integer"},
		{"1.0", "expected a non-negative integer"}, {"1e2", "expected a non-negative integer"},
		{"1E2", "expected a non-negative integer"}, {"0.5", "expected a non-negative integer"},
		{"01", "a number with a leading zero"},     {"\"1\"", "expected a number"},
		{"true", "expected a number"},              {"", "the JSON ends where a value was expected"},
		{"1 2", "bytes after the end of the JSON value"},
	};
	for (size_t i = 0; i < sizeof(notint) / sizeof(notint[0]); i++) {
		uint64_t v;
		const char *why;
		cr_expect_eq(u64_of(notint[i].doc, &v, &why), -1, "%s read", notint[i].doc);
		cr_expect_str_eq(why ? why : "", notint[i].why, "%s", notint[i].doc);
	}
}

/* Skip the one value of @doc and check only whitespace follows. */
static int skip_all(const char *doc, const char **why, size_t *at)
{
	struct lsc__json j;
	lsc__json_init(&j, doc, strlen(doc));
	int r = lsc__json_skip(&j);
	if (r == 0)
		r = lsc__json_end(&j);
	*why = lsc__json_error(&j, at);
	lsc__json_free(&j);
	return r;
}

Test(model_json, numbers_of_the_grammar_are_skipped_and_malformed_ones_refused)
{
	static const char *good[] = {"0",      "-0",    "7",      "-7",     "10",    "0.0",     "-0.5",
				     "1.25",   "1e5",   "1E5",    "1e+5",   "1e-5",  "1.5e10",  "-1.5E-10",
				     "0e0",    "0E+0",  "123456789012345678901234567890", "2.50", " 3 \n"};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const char *why;
		size_t at;
		cr_expect_eq(skip_all(good[i], &why, &at), 0, "%s refused: %s", good[i], why);
	}
	static const struct {
		const char *doc;
		size_t at;
	} bad[] = {{"-", 0},  {"--1", 0}, {"+1", 0}, {".5", 0}, {"1.", 0}, {"1.e5", 0}, {"1e", 0},
		   {"1e+", 0}, {"1e-", 0}, {"1E", 0}, {"00", 0}, {"-01", 0}, {"-a", 0}};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why;
		size_t at = 99;
		cr_expect_eq(skip_all(bad[i].doc, &why, &at), -1, "%s skipped", bad[i].doc);
		cr_expect_not_null(why, "%s: no reason", bad[i].doc);
		cr_expect_eq(at, bad[i].at, "%s: error at %zu", bad[i].doc, at);
	}
	/* every digit in every place of a number: first and later, integer,
	 * fraction and exponent */
	for (char d = '0'; d <= '9'; d++) {
		char doc[32];
		const char *dwhy;
		size_t dat;
		snprintf(doc, sizeof doc, "%c%c.%c%ce%c%c", d == '0' ? '1' : d, d, d, d, d, d);
		cr_expect_eq(skip_all(doc, &dwhy, &dat), 0, "%s refused: %s", doc, dwhy);
	}
	/* A number followed by what no number has: the value ends there. */
	const char *why;
	size_t at;
	cr_expect_eq(skip_all("12x", &why, &at), -1);
	cr_expect_str_eq(why, "bytes after the end of the JSON value");
	cr_expect_eq(at, 2);
}

Test(model_json, structure_errors_say_what_and_where)
{
	static const struct {
		const char *doc, *why;
		size_t at;
	} bad[] = {
		{"[1,]", "a trailing comma", 3},
		{"[1, ]", "a trailing comma", 4},
		{"{\"a\":1,}", "a trailing comma", 7},
		{"[1 2]", "expected ',' between members", 3},
		{"{\"a\":1 \"b\":2}", "expected ',' between members", 7},
		{"{\"a\" 1}", "expected ':' after a key", 5},
		{"{\"a\"", "expected ':' after a key", 4},
		{"{1:2}", "expected a string", 1},
		{"[1", "the JSON ends inside an object or array", 2},
		{"{", "the JSON ends inside an object or array", 1},
		{"{\"a\":", "the JSON ends where a value was expected", 5},
		{"[", "the JSON ends inside an object or array", 1},
		{"tru", "not a JSON value", 0},
		{"nul", "not a JSON value", 0},
		{"fals", "not a JSON value", 0},
		{"trUe", "not a JSON value", 0},
		{"x", "not a JSON value", 0},
		{"[]]", "bytes after the end of the JSON value", 2},
		{"{} {}", "bytes after the end of the JSON value", 3},
		{"", "the JSON ends where a value was expected", 0},
		{"   ", "the JSON ends where a value was expected", 3},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why;
		size_t at = 99;
		cr_expect_eq(skip_all(bad[i].doc, &why, &at), -1, "%s skipped", bad[i].doc);
		cr_expect_str_eq(why ? why : "", bad[i].why, "%s", bad[i].doc);
		cr_expect_eq(at, bad[i].at, "%s: error at %zu, want %zu", bad[i].doc, at, bad[i].at);
	}
	static const char *good[] = {"[]", "{}", "[ ]", "{ }", "[1,2,3]", "{\"a\":[true,false,null],\"b\":{}}",
				     "\t[\r\n1 , \"x\" ]\n", "null", "true", "false", "\"\""};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const char *why;
		size_t at;
		cr_expect_eq(skip_all(good[i], &why, &at), 0, "%s refused: %s", good[i], why);
	}
}

Test(model_json, nesting_is_read_to_the_depth_limit_and_refused_past_it)
{
	for (int depth = LSC__JSON_DEPTH - 1; depth <= LSC__JSON_DEPTH + 1; depth++) {
		for (int obj = 0; obj < 2; obj++) {
			char doc[1024];
			size_t o = 0;
			for (int d = 0; d < depth; d++)
				o += (size_t)snprintf(doc + o, sizeof(doc) - o, "%s", obj ? "{\"k\":" : "[");
			doc[o++] = '1';
			for (int d = 0; d < depth; d++)
				doc[o++] = obj ? '}' : ']';
			doc[o] = '\0';
			const char *why;
			size_t at;
			int r = skip_all(doc, &why, &at);
			if (depth <= LSC__JSON_DEPTH) {
				cr_expect_eq(r, 0, "depth %d (%s) refused: %s", depth, obj ? "objects" : "arrays", why);
			} else {
				cr_expect_eq(r, -1, "depth %d (%s) read", depth, obj ? "objects" : "arrays");
				cr_expect_str_eq(why ? why : "", "nested too deep");
				/* At the bracket that would open level 65. */
				cr_expect_eq(at, (size_t)LSC__JSON_DEPTH * (obj ? 5 : 1), "depth %d: at %zu", depth, at);
			}
		}
	}
}

Test(model_json, a_pull_walk_takes_keys_and_values_in_order)
{
	const char *doc = "{\"n\": 42, \"s\": \"x\\u00e9\", \"a\": [1, {\"k\": null}], \"e\": {}}";
	struct lsc__json j;
	lsc__json_init(&j, doc, strlen(doc));
	const char *k, *s;
	size_t kl, sl;
	uint64_t v;
	cr_assert_eq(lsc__json_peek(&j), LSC__J_OBJECT);
	cr_assert_eq(lsc__json_object(&j), 0);
	cr_assert_eq(lsc__json_key(&j, &k, &kl), 1);
	cr_expect(kl == 1 && k[0] == 'n');
	cr_assert_eq(lsc__json_u64(&j, &v), 0);
	cr_expect_eq(v, 42);
	cr_assert_eq(lsc__json_key(&j, &k, &kl), 1);
	cr_expect(kl == 1 && k[0] == 's');
	cr_assert_eq(lsc__json_peek(&j), LSC__J_STRING);
	cr_assert_eq(lsc__json_string(&j, &s, &sl), 0);
	cr_expect(sl == 3 && !memcmp(s, "x\xc3\xa9", 3), "\\u00e9 decoded to %zu bytes", sl);
	cr_assert_eq(lsc__json_key(&j, &k, &kl), 1);
	cr_assert_eq(lsc__json_peek(&j), LSC__J_ARRAY);
	cr_assert_eq(lsc__json_array(&j), 0);
	cr_assert_eq(lsc__json_more(&j), 1);
	cr_assert_eq(lsc__json_peek(&j), LSC__J_NUMBER);
	cr_assert_eq(lsc__json_u64(&j, &v), 0);
	cr_expect_eq(v, 1);
	cr_assert_eq(lsc__json_more(&j), 1);
	cr_assert_eq(lsc__json_skip(&j), 0);
	cr_assert_eq(lsc__json_more(&j), 0);
	cr_assert_eq(lsc__json_key(&j, &k, &kl), 1);
	cr_expect(kl == 1 && k[0] == 'e');
	cr_assert_eq(lsc__json_object(&j), 0);
	cr_assert_eq(lsc__json_key(&j, &k, &kl), 0, "an empty object has no key");
	cr_assert_eq(lsc__json_key(&j, &k, &kl), 0);
	cr_expect_eq(lsc__json_end(&j), 0);
	cr_expect_eq(j.depth, 0);
	/* A caller's own refusal is recorded at the position it was made, and
	 * only the first. */
	cr_expect_eq(lsc__json_fail(&j, "mine"), -1);
	cr_expect_eq(lsc__json_fail(&j, "second"), -1);
	size_t at;
	cr_expect_str_eq(lsc__json_error(&j, &at), "mine");
	cr_expect_eq(at, strlen(doc));
	cr_expect_eq(lsc__json_object(&j), -1);
	cr_expect_eq(lsc__json_more(&j), -1);
	cr_expect_eq(lsc__json_end(&j), -1);
	lsc__json_free(&j);
	/* The wrong bracket is refused by what was expected. */
	lsc__json_init(&j, "[]", 2);
	cr_expect_eq(lsc__json_object(&j), -1);
	cr_expect_str_eq(lsc__json_error(&j, NULL), "expected an object");
	lsc__json_free(&j);
	lsc__json_init(&j, "{}", 2);
	cr_expect_eq(lsc__json_array(&j), -1);
	cr_expect_str_eq(lsc__json_error(&j, NULL), "expected an array");
	lsc__json_free(&j);
}

Test(model_json, the_scratch_string_grows_for_a_long_string)
{
	/* Longer than the first scratch (64) and than its doublings up to 4096. */
	static char doc[5000];
	for (size_t len = 60; len < 4990; len = len * 2 + 1) {
		doc[0] = '"';
		for (size_t i = 0; i < len; i++)
			doc[1 + i] = (char)('a' + i % 26);
		doc[len + 1] = '"';
		doc[len + 2] = '\0';
		struct lsc__json j;
		const char *why;
		size_t l = 0, at;
		const char *s = decode(&j, doc, &l, &why, &at);
		cr_assert_not_null(s, "%zu bytes refused: %s", len, why);
		cr_expect_eq(l, len);
		cr_expect(l == len && !memcmp(s, doc + 1, len) && s[len] == '\0', "%zu bytes differ", len);
		lsc__json_free(&j);
	}
}
