/*
 * String escaping for the line grammar and the trace (see escape.h). The
 * UTF-8 check is the strict one of RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF, so what passes is what a strict JSON
 * reader accepts.
 */
#include "format/escape.h"

size_t lsc__utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned cp, min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	/* Byte by byte: a NUL (or any non-continuation) stops it before
	 * the next byte is read, which keeps lsc__utf8_seq in its string. */
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* No overlong forms, no surrogates, nothing above U+10FFFF. */
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

size_t lsc__utf8_seq(const char *str)
{
	return lsc__utf8_len((const unsigned char *)str, 4);
}

int lsc__utf8_valid(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t l = lsc__utf8_len(s + i, n - i);
		if (!l)
			return 0;
		i += l;
	}
	return 1;
}

static size_t hex_escape(char *buf, const char *pre, size_t pre_n, unsigned v, size_t digits)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;
	for (size_t i = 0; i < pre_n; i++)
		buf[n++] = pre[i];
	while (digits--)
		buf[n++] = hex[(v >> (4 * digits)) & 0xf];
	return n;
}

size_t lsc__esc_char(const char *s, int json, char buf[LSC__ESC_MAX], size_t *n)
{
	unsigned char c = (unsigned char)*s;
	switch (c) {
	case '"':
	case '\\':
		buf[0] = '\\';
		buf[1] = (char)c;
		*n = 2;
		return 1;
	case '\n':
		buf[0] = '\\';
		buf[1] = 'n';
		*n = 2;
		return 1;
	case '\t':
		buf[0] = '\\';
		buf[1] = 't';
		*n = 2;
		return 1;
	case '\r':
		buf[0] = '\\';
		buf[1] = 'r';
		*n = 2;
		return 1;
	default:
		break;
	}
	if (c < 0x20 || c == 0x7f) {
		*n = json ? hex_escape(buf, "\\u", 2, c, 4) : hex_escape(buf, "\\x", 2, c, 2);
		return 1;
	}
	size_t k = lsc__utf8_seq(s);
	if (k == 0) {
		*n = json ? hex_escape(buf, "\\u", 2, 0xfffd, 4) : hex_escape(buf, "\\x", 2, c, 2);
		return 1;
	}
	for (size_t i = 0; i < k; i++)
		buf[i] = s[i];
	*n = k;
	return k;
}
