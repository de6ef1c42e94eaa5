/*
 * Description: edges of the line grammar (src/format/line.c) that the round
 * trips of test_format.c do not pin, each found by a mutation that the suite
 * let through (scripts/mutate.sh, docs/testing.md): the exact JSON escape of
 * a control character, and integer fields that carry trailing garbage.
 * Expected bytes are written out by hand from docs/log-format.md and JSON
 * (RFC 8259: \u followed by four hex digits).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "format/escape.h"
#include "format/line.h"

static struct lsc__rec rec;
static char line[LSC__LINE_MAX];

/* ESC is 0x1b: "\u001b" in JSON, never its decimal 27 ("\u0027" is a quote). */
Test(format_edges, json_escapes_a_control_character_in_hex)
{
	lsc__rec_init(&rec, "note");
	lsc__rec_str(&rec, "name", "a\x1b" "b\x01");
	size_t n = lsc__rec_render(&rec, LSC_FORMAT_JSON, NULL, line, sizeof(line));
	cr_assert(strstr(line, "\"name\":\"a\\u001bb\\u0001\"") != NULL, "got: %s", line);
	struct lsc__parsed p;
	cr_assert_eq(lsc__line_parse(line, n, &p), 1);
	cr_assert_str_eq(lsc__parsed_get(&p, "name"), "a\x1b" "b\x01");
}

/* "12abc" is not the integer 12: a half-parsed number would feed a rule a
 * value the line never said. */
Test(format_edges, integer_with_trailing_garbage_is_invalid)
{
	char s[] = "[loadscope/1] note | a=12abc b=12 c=-7 d=";
	struct lsc__parsed p;
	int64_t v = 99;
	cr_assert_eq(lsc__line_parse(s, strlen(s), &p), 1);
	cr_assert_eq(lsc__parsed_i64(&p, "a", &v), -EINVAL);
	cr_assert_eq(v, 99);
	cr_assert_eq(lsc__parsed_i64(&p, "b", &v), 0);
	cr_assert_eq(v, 12);
	cr_assert_eq(lsc__parsed_i64(&p, "c", &v), 0);
	cr_assert_eq(v, -7);
	cr_assert_eq(lsc__parsed_i64(&p, "d", &v), -EINVAL);
	cr_assert_eq(lsc__parsed_i64(&p, "e", &v), -ENOENT);
}

/* A line rendered into every capacity from 1 byte to more than it needs,
 * with a sentence of 2- and 3-byte characters: whatever the room, the line
 * is valid UTF-8 ending in one newline, parses as its event, its sentence
 * is the whole sentence or a prefix of it cut between characters, every
 * field it keeps has its whole value, the fields kept are the first ones
 * (a short field never stands in for a longer one before it), and "trunc" is there exactly when
 * something was left out; a capacity too small for the line's head gives
 * no line at all (it gave the buffer's unwritten bytes as a line). */
Test(format_edges, every_capacity_cuts_between_characters)
{
	char sentence[400];
	size_t sl = 0;
	for (int i = 0; sl + 5 < sizeof(sentence); i++) {
		const char *c = i % 3 == 2 ? "\xe2\x82\xac" : "\xc3\xa9"; /* euro sign, e acute */
		memcpy(sentence + sl, c, strlen(c));
		sl += strlen(c);
	}
	sentence[sl] = '\0';
	for (int fmt = 0; fmt < 2; fmt++) {
		lsc__rec_init(&rec, "note");
		lsc__rec_say(&rec, "%s", sentence);
		lsc__rec_str(&rec, "topic", "edges");
		lsc__rec_u64(&rec, "n", 18446744073709551615ull);
		lsc__rec_u64(&rec, "k", 1); /* short: it would fit where n does not */
		char whole[LSC__LINE_MAX];
		size_t need = lsc__rec_render(&rec, fmt, NULL, whole, sizeof(whole)) + 1;
		/* the bytes before the sentence: no line can be shorter */
		size_t head = (size_t)(strstr(whole, "\xc3\xa9") - whole);
		for (size_t cap = 1; cap <= need + 30; cap++) {
			char out[LSC__LINE_MAX];
			memset(out, ' ', sizeof(out)); /* bytes the renderer never wrote must not show */
			size_t n = lsc__rec_render(&rec, fmt, NULL, out, cap);
			cr_assert_lt(n, cap, "format %d cap %zu: %zu bytes", fmt, cap, n);
			cr_assert_eq(out[n], '\0');
			if (n == 0) {
				/* no line only where the head and the marker's room cannot fit */
				cr_assert_lt(cap, head + 24 + 8, "format %d cap %zu: no line", fmt, cap);
				continue;
			}
			cr_assert(n > 0 && out[n - 1] == '\n' && !memchr(out, '\n', n - 1), "format %d cap %zu: %s", fmt,
				  cap, out);
			cr_assert(lsc__utf8_valid((const unsigned char *)out, n), "format %d cap %zu: %s", fmt, cap, out);
			int same = !strcmp(out, whole); /* before the parser cuts the buffer into its fields */
			struct lsc__parsed p;
			cr_assert_eq(lsc__line_parse(out, n, &p), 1, "format %d cap %zu: %s", fmt, cap, out);
			cr_assert_str_eq(p.event, "note");
			size_t hl = strlen(p.human);
			cr_assert_leq(hl, sl);
			cr_assert(!memcmp(p.human, sentence, hl), "format %d cap %zu: not a prefix: %s", fmt, cap, p.human);
			cr_assert(hl == sl || ((unsigned char)sentence[hl] & 0xc0) != 0x80,
				  "format %d cap %zu: cut inside a character at %zu", fmt, cap, hl);
			const char *topic = lsc__parsed_get(&p, "topic"), *num = lsc__parsed_get(&p, "n");
			if (topic)
				cr_assert_str_eq(topic, "edges");
			if (num)
				cr_assert_str_eq(num, "18446744073709551615");
			const char *k = lsc__parsed_get(&p, "k");
			if (k)
				cr_assert(topic && num && !strcmp(k, "1"),
					  "format %d cap %zu: k kept after a field left out: %s", fmt, cap, out);
			int cut = hl < sl || !topic || !num || !k;
			const char *tr = lsc__parsed_get(&p, "trunc");
			cr_assert_eq(tr != NULL, cut, "format %d cap %zu: trunc %s with %s cut: %s", fmt, cap,
				     tr ? tr : "absent", cut ? "something" : "nothing", out);
			/* whole once it fits with the 24 bytes kept for the marker */
			if (cap >= need + 24)
				cr_assert(!cut && same, "format %d cap %zu: the line needs %zu", fmt, cap, need);
		}
	}
}
