/*
 * The strict JSON reader of json_strict.h: recursive descent over bytes,
 * with its own UTF-8 decoder (not the library's), depth bounded.
 */
#include <stdio.h>
#include <string.h>

#include "helpers/json_strict.h"

struct js {
	const unsigned char *s, *b, *end;
	const char *err;
	int depth;
};

static int fail(struct js *j, const char *why)
{
	if (!j->err)
		j->err = why;
	return -1;
}

static void ws(struct js *j)
{
	while (j->s < j->end && (*j->s == ' ' || *j->s == '\t' || *j->s == '\n' || *j->s == '\r'))
		j->s++;
}

static int hex4(struct js *j, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++, j->s++) {
		if (j->s >= j->end)
			return fail(j, "\\u cut short");
		unsigned c = *j->s, d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return fail(j, "\\u needs four hex digits");
		*v = *v * 16 + d;
	}
	return 0;
}

/* One UTF-8 character from a byte >= 0x80: decode, then reject what RFC 3629
 * forbids. */
static int utf8(struct js *j)
{
	unsigned c = *j->s++, need, cp, min;
	if (c >= 0xc0 && c < 0xe0)
		need = 1, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c < 0xf0)
		need = 2, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c < 0xf8)
		need = 3, cp = c & 0x07, min = 0x10000;
	else
		return fail(j, "invalid UTF-8 lead byte");
	while (need--) {
		if (j->s >= j->end || (*j->s & 0xc0) != 0x80)
			return fail(j, "UTF-8 sequence cut short");
		cp = cp << 6 | (*j->s++ & 0x3f);
	}
	if (cp < min)
		return fail(j, "overlong UTF-8");
	if (cp >= 0xd800 && cp <= 0xdfff)
		return fail(j, "UTF-8 encoded surrogate");
	if (cp > 0x10ffff)
		return fail(j, "UTF-8 above U+10FFFF");
	return 0;
}

static int string(struct js *j)
{
	j->s++; /* the opening quote */
	while (j->s < j->end) {
		unsigned c = *j->s;
		if (c == '"') {
			j->s++;
			return 0;
		}
		if (c < 0x20)
			return fail(j, "raw control character in a string");
		if (c >= 0x80) {
			if (utf8(j))
				return -1;
			continue;
		}
		j->s++;
		if (c != '\\')
			continue;
		if (j->s >= j->end)
			return fail(j, "escape cut short");
		c = *j->s++;
		if (strchr("\"\\/bfnrt", (int)c) && c)
			continue;
		if (c != 'u')
			return fail(j, "not a JSON escape");
		unsigned v;
		if (hex4(j, &v))
			return -1;
		if (v >= 0xdc00 && v <= 0xdfff)
			return fail(j, "lone low surrogate");
		if (v >= 0xd800 && v <= 0xdbff) {
			if (j->end - j->s < 6 || j->s[0] != '\\' || j->s[1] != 'u')
				return fail(j, "high surrogate without a low one");
			j->s += 2;
			if (hex4(j, &v))
				return -1;
			if (v < 0xdc00 || v > 0xdfff)
				return fail(j, "high surrogate without a low one");
		}
	}
	return fail(j, "unterminated string");
}

static int digits(struct js *j)
{
	const unsigned char *s0 = j->s;
	while (j->s < j->end && *j->s >= '0' && *j->s <= '9')
		j->s++;
	return j->s > s0 ? 0 : fail(j, "digit expected");
}

static int number(struct js *j)
{
	if (*j->s == '-')
		j->s++;
	if (j->s < j->end && *j->s == '0')
		j->s++;
	else if (digits(j))
		return -1;
	if (j->s < j->end && *j->s == '.') {
		j->s++;
		if (digits(j))
			return -1;
	}
	if (j->s < j->end && (*j->s == 'e' || *j->s == 'E')) {
		j->s++;
		if (j->s < j->end && (*j->s == '+' || *j->s == '-'))
			j->s++;
		if (digits(j))
			return -1;
	}
	return 0;
}

static int word(struct js *j, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(j->end - j->s) < n || memcmp(j->s, w, n))
		return fail(j, "unexpected character");
	j->s += n;
	return 0;
}

static int value(struct js *j);

static int container(struct js *j, char close)
{
	if (++j->depth > 64)
		return fail(j, "nested too deep");
	j->s++;
	ws(j);
	if (j->s < j->end && *j->s == close) {
		j->s++;
		j->depth--;
		return 0;
	}
	for (;;) {
		ws(j);
		if (close == '}') {
			if (j->s >= j->end || *j->s != '"')
				return fail(j, "object key expected");
			if (string(j))
				return -1;
			ws(j);
			if (j->s >= j->end || *j->s != ':')
				return fail(j, "':' expected");
			j->s++;
		}
		if (value(j))
			return -1;
		ws(j);
		if (j->s < j->end && *j->s == ',') {
			j->s++;
			continue;
		}
		if (j->s < j->end && *j->s == close) {
			j->s++;
			j->depth--;
			return 0;
		}
		return fail(j, close == '}' ? "',' or '}' expected" : "',' or ']' expected");
	}
}

static int value(struct js *j)
{
	ws(j);
	if (j->s >= j->end)
		return fail(j, "value expected");
	switch (*j->s) {
	case '{':
		return container(j, '}');
	case '[':
		return container(j, ']');
	case '"':
		return string(j);
	case 't':
		return word(j, "true");
	case 'f':
		return word(j, "false");
	case 'n':
		return word(j, "null");
	default:
		if (*j->s == '-' || (*j->s >= '0' && *j->s <= '9'))
			return number(j);
		return fail(j, "unexpected character");
	}
}

int lsct_json_strict(const char *text, size_t len, char *why, size_t why_len)
{
	struct js j = {(const unsigned char *)text, (const unsigned char *)text,
		       (const unsigned char *)text + len, NULL, 0};
	int rc = value(&j);
	if (!rc) {
		ws(&j);
		if (j.s != j.end)
			rc = fail(&j, "text after the value");
	}
	if (rc && why && why_len)
		snprintf(why, why_len, "%s at byte %zu", j.err, (size_t)(j.s - j.b));
	return rc;
}
