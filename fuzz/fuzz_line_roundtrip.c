/*
 * libFuzzer target: the line writer and parser as a pair. The input is cut
 * at NUL bytes into strings (at most 4, 96 bytes each, so every escaped
 * field fits a line); each becomes a string field, and the first also the
 * sentence. The record is rendered in both forms and parsed back:
 *  - the human line gives back every string byte for byte, with the fields
 *    in order, nothing damaged;
 *  - the JSON line is strict, valid UTF-8 JSON (tests/helpers/json_strict.c,
 *    written apart from the writer), and gives back every string that was
 *    valid UTF-8 byte for byte (an invalid byte reads U+FFFD by design).
 * Any difference aborts, which libFuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/line.h"
#include "helpers/json_strict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N_STR 4
#define STR_MAX 96

static const char *const keys[N_STR] = {"s0", "s1", "s2", "s3"};

/* Valid UTF-8 by decoding (RFC 3629), apart from the library's check. */
static int valid_utf8(const unsigned char *s)
{
	while (*s) {
		unsigned c = *s++, need, cp, min;
		if (c < 0x80)
			continue;
		if (c >= 0xc0 && c < 0xe0)
			need = 1, cp = c & 0x1f, min = 0x80;
		else if (c >= 0xe0 && c < 0xf0)
			need = 2, cp = c & 0x0f, min = 0x800;
		else if (c >= 0xf0 && c < 0xf8)
			need = 3, cp = c & 0x07, min = 0x10000;
		else
			return 0;
		while (need--) {
			if ((*s & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (*s++ & 0x3f);
		}
		if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return 0;
	}
	return 1;
}

static void check(int ok, const char *what, const char *line)
{
	if (!ok) {
		fprintf(stderr, "fuzz_line_roundtrip: %s\n%s\n", what, line);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char str[N_STR][STR_MAX + 1];
	unsigned n = 0;
	size_t at = 0;
	while (n < N_STR && at <= size) {
		size_t len = 0;
		while (at + len < size && data[at + len] && len < STR_MAX)
			len++;
		memcpy(str[n], data + at, len);
		str[n][len] = '\0';
		n++;
		at += len + 1;
	}

	static struct lsc__rec r;
	lsc__rec_init(&r, "note");
	lsc__rec_say(&r, "%s", str[0]);
	for (unsigned i = 0; i < n; i++)
		lsc__rec_str(&r, keys[i], str[i]);
	check(r.truncated == 0 && r.n == n, "the record did not keep every string", str[0]);

	static char line[LSC__LINE_MAX + 1];
	static struct lsc__parsed p;
	char why[128];
	for (int json = 0; json < 2; json++) {
		size_t len = lsc__rec_render(&r, json ? LSC_FORMAT_JSON : LSC_FORMAT_HUMAN, NULL, line,
					     sizeof(line) - 1);
		check(len > 0 && line[len - 1] == '\n', "no newline at the end", line);
		if (json)
			check(lsct_json_strict(line, len, why, sizeof(why)) == 0, why, line);
		static char copy[LSC__LINE_MAX + 1];
		memcpy(copy, line, len + 1);
		check(lsc__line_parse(copy, len, &p) == 1, "the line did not parse", line);
		check(lsc__parsed_get(&p, "trunc") == NULL, "the line was cut", line);
		check(p.n == n && p.damaged == 0, "fields lost or damaged", line);
		check(!strcmp(p.event, "note"), "event changed", line);
		for (unsigned i = 0; i < n; i++) {
			check(!strcmp(p.kv[i].key, keys[i]), "key changed or out of order", line);
			if (!json || valid_utf8((const unsigned char *)str[i]))
				check(!strcmp(p.kv[i].val, str[i]), "value did not round-trip", line);
		}
	}
	return 0;
}
