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
