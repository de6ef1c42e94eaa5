/*
 * The strict JSON pull reader (json.h). Written for hostile input: every
 * read is bounded by the buffer's length, nesting is limited, and the
 * only memory it takes is the scratch string, at most as long as the
 * input. Strings are decoded once, into that scratch, with their UTF-8
 * checked, so that a caller that keeps a name keeps valid UTF-8.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/escape.h"
#include "model/json.h"

void lsc__json_init(struct lsc__json *j, const char *s, size_t n)
{
	memset(j, 0, sizeof(*j));
	j->s = s;
	j->n = n;
}

void lsc__json_free(struct lsc__json *j)
{
	free(j->str);
	j->str = NULL;
	j->str_cap = 0;
}

int lsc__json_fail(struct lsc__json *j, const char *why)
{
	if (!j->err) {
		j->err = why;
		j->err_pos = j->pos;
	}
	return -1;
}

int lsc__json_errno(const struct lsc__json *j)
{
	return j->oom ? -ENOMEM : -EBADMSG;
}

const char *lsc__json_error(const struct lsc__json *j, size_t *pos)
{
	if (pos)
		*pos = j->err_pos;
	return j->err;
}

static void ws(struct lsc__json *j)
{
	while (j->pos < j->n) {
		char c = j->s[j->pos];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		j->pos++;
	}
}

enum lsc__json_type lsc__json_peek(struct lsc__json *j)
{
	if (j->err)
		return LSC__J_ERROR;
	ws(j);
	if (j->pos >= j->n) {
		lsc__json_fail(j, "the JSON ends where a value was expected");
		return LSC__J_ERROR;
	}
	switch (j->s[j->pos]) {
	case '{': return LSC__J_OBJECT;
	case '[': return LSC__J_ARRAY;
	case '"': return LSC__J_STRING;
	case 't': return LSC__J_TRUE;
	case 'f': return LSC__J_FALSE;
	case 'n': return LSC__J_NULL;
	default:
		if (j->s[j->pos] == '-' || (j->s[j->pos] >= '0' && j->s[j->pos] <= '9'))
			return LSC__J_NUMBER;
	}
	lsc__json_fail(j, "not a JSON value");
	return LSC__J_ERROR;
}

static int open_level(struct lsc__json *j, char c)
{
	if (j->err)
		return -1;
	ws(j);
	if (j->pos >= j->n || j->s[j->pos] != c)
		return lsc__json_fail(j, c == '{' ? "expected an object" : "expected an array");
	if (j->depth >= LSC__JSON_DEPTH)
		return lsc__json_fail(j, "nested too deep");
	j->pos++;
	j->depth++;
	j->first[j->depth] = 1;
	return 0;
}

int lsc__json_object(struct lsc__json *j)
{
	return open_level(j, '{');
}

int lsc__json_array(struct lsc__json *j)
{
	return open_level(j, '[');
}

/* Before a member: the closing bracket (0), or a comma unless first (1). */
static int next_member(struct lsc__json *j, char close)
{
	if (j->err)
		return -1;
	ws(j);
	if (j->pos >= j->n)
		return lsc__json_fail(j, "the JSON ends inside an object or array");
	if (j->s[j->pos] == close) {
		/* "[1,]" never gets here: the comma's check below refuses it. */
		j->pos++;
		j->depth--;
		return 0;
	}
	if (!j->first[j->depth]) {
		if (j->s[j->pos] != ',')
			return lsc__json_fail(j, "expected ',' between members");
		j->pos++;
		ws(j);
		if (j->pos < j->n && j->s[j->pos] == close)
			return lsc__json_fail(j, "a trailing comma");
	}
	j->first[j->depth] = 0;
	return 1;
}

int lsc__json_more(struct lsc__json *j)
{
	return next_member(j, ']');
}

static int scratch(struct lsc__json *j, size_t need)
{
	if (need <= j->str_cap)
		return 0;
	size_t cap = j->str_cap ? j->str_cap : 64;
	while (cap < need)
		cap *= 2;
	char *s = realloc(j->str, cap);
	if (!s) {
		j->oom = !j->err;
		return lsc__json_fail(j, "out of memory for a string");
	}
	j->str = s;
	j->str_cap = cap;
	return 0;
}

static int hex4(const char *s, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;
		if (d > 15)
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

int lsc__json_string(struct lsc__json *j, const char **out, size_t *len)
{
	if (j->err)
		return -1;
	ws(j);
	if (j->pos >= j->n || j->s[j->pos] != '"')
		return lsc__json_fail(j, "expected a string");
	size_t start = ++j->pos, end = start;
	/* Find the closing quote first: the decoded string is never longer. */
	while (end < j->n && j->s[end] != '"')
		end += j->s[end] == '\\' ? 2 : 1;
	if (end >= j->n)
		return lsc__json_fail(j, "a string with no closing quote");
	if (scratch(j, end - start + 1) < 0)
		return -1;
	size_t o = 0;
	while (j->pos < end) {
		const unsigned char *u = (const unsigned char *)j->s + j->pos;
		if (*u < 0x20)
			return lsc__json_fail(j, "a control character in a string");
		if (*u != '\\') {
			size_t l = lsc__utf8_len(u, end - j->pos);
			if (!l)
				return lsc__json_fail(j, "a string that is not valid UTF-8");
			memcpy(j->str + o, u, l);
			o += l;
			j->pos += l;
			continue;
		}
		char e = j->s[j->pos + 1];
		j->pos += 2;
		const char *simple = "\"\"\\\\//b\bf\fn\nr\rt\t";
		const char *m = NULL;
		for (const char *q = simple; *q; q += 2)
			if (*q == e) {
				m = q;
				break;
			}
		if (m) {
			j->str[o++] = m[1];
			continue;
		}
		if (e != 'u')
			return lsc__json_fail(j, "an unknown escape in a string");
		unsigned cp, lo;
		if (j->pos + 4 > end || hex4(j->s + j->pos, &cp) < 0)
			return lsc__json_fail(j, "a bad \\u escape");
		j->pos += 4;
		if (cp >= 0xdc00 && cp <= 0xdfff)
			return lsc__json_fail(j, "a lone low surrogate in a \\u escape");
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (j->pos + 6 > end || j->s[j->pos] != '\\' || j->s[j->pos + 1] != 'u' ||
			    hex4(j->s + j->pos + 2, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
				return lsc__json_fail(j, "a high surrogate without its low half");
			j->pos += 6;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		}
		if (cp == 0)
			return lsc__json_fail(j, "a NUL character (\\u0000) in a string");
		o += put_utf8(j->str + o, cp);
	}
	j->pos = end + 1;
	j->str[o] = '\0';
	*out = j->str;
	if (len)
		*len = o;
	return 0;
}

int lsc__json_key(struct lsc__json *j, const char **key, size_t *len)
{
	int r = next_member(j, '}');
	if (r <= 0)
		return r;
	if (lsc__json_string(j, key, len) < 0)
		return -1;
	ws(j);
	if (j->pos >= j->n || j->s[j->pos] != ':')
		return lsc__json_fail(j, "expected ':' after a key");
	j->pos++;
	return 1;
}

/* The number grammar of RFC 8259; *integer set when it has no fraction,
 * exponent or sign. */
static int number(struct lsc__json *j, size_t *start, size_t *end, int *integer)
{
	ws(j);
	size_t p = j->pos;
	*start = p;
	*integer = 1;
	if (p < j->n && j->s[p] == '-')
		p++, *integer = 0;
	if (p >= j->n || j->s[p] < '0' || j->s[p] > '9')
		return lsc__json_fail(j, "a malformed number");
	if (j->s[p] == '0') {
		p++;
		if (p < j->n && j->s[p] >= '0' && j->s[p] <= '9')
			return lsc__json_fail(j, "a number with a leading zero");
	} else {
		while (p < j->n && j->s[p] >= '0' && j->s[p] <= '9')
			p++;
	}
	if (p < j->n && j->s[p] == '.') {
		*integer = 0;
		if (++p >= j->n || j->s[p] < '0' || j->s[p] > '9')
			return lsc__json_fail(j, "a malformed number");
		while (p < j->n && j->s[p] >= '0' && j->s[p] <= '9')
			p++;
	}
	if (p < j->n && (j->s[p] == 'e' || j->s[p] == 'E')) {
		*integer = 0;
		if (++p < j->n && (j->s[p] == '+' || j->s[p] == '-'))
			p++;
		if (p >= j->n || j->s[p] < '0' || j->s[p] > '9')
			return lsc__json_fail(j, "a malformed number");
		while (p < j->n && j->s[p] >= '0' && j->s[p] <= '9')
			p++;
	}
	*end = p;
	j->pos = p;
	return 0;
}

int lsc__json_u64(struct lsc__json *j, uint64_t *v)
{
	size_t a, b;
	int integer;
	if (lsc__json_peek(j) != LSC__J_NUMBER)
		return lsc__json_fail(j, "expected a number");
	if (number(j, &a, &b, &integer) < 0)
		return -1;
	if (!integer) {
		j->pos = a;
		return lsc__json_fail(j, "expected a non-negative integer");
	}
	uint64_t x = 0;
	for (size_t i = a; i < b; i++) {
		unsigned d = (unsigned)(j->s[i] - '0');
		if (x > (UINT64_MAX - d) / 10) {
			j->pos = a;
			return lsc__json_fail(j, "an integer larger than 64 bits");
		}
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static int literal(struct lsc__json *j, const char *w)
{
	size_t l = strlen(w);
	if (j->n - j->pos < l || memcmp(j->s + j->pos, w, l))
		return lsc__json_fail(j, "not a JSON value");
	j->pos += l;
	return 0;
}

int lsc__json_skip(struct lsc__json *j)
{
	const char *s;
	size_t a, b;
	int integer, r;
	switch (lsc__json_peek(j)) {
	case LSC__J_OBJECT:
		if (lsc__json_object(j) < 0)
			return -1;
		while ((r = lsc__json_key(j, &s, NULL)) == 1)
			if (lsc__json_skip(j) < 0)
				return -1;
		return r;
	case LSC__J_ARRAY:
		if (lsc__json_array(j) < 0)
			return -1;
		while ((r = lsc__json_more(j)) == 1)
			if (lsc__json_skip(j) < 0)
				return -1;
		return r;
	case LSC__J_STRING: return lsc__json_string(j, &s, NULL);
	case LSC__J_NUMBER: return number(j, &a, &b, &integer);
	case LSC__J_TRUE: return literal(j, "true");
	case LSC__J_FALSE: return literal(j, "false");
	case LSC__J_NULL: return literal(j, "null");
	default: return -1;
	}
}

int lsc__json_end(struct lsc__json *j)
{
	if (j->err)
		return -1;
	ws(j);
	if (j->pos != j->n)
		return lsc__json_fail(j, "bytes after the end of the JSON value");
	return 0;
}
