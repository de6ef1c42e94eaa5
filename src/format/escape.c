/*
 * String escaping for the line grammar and the trace (see escape.h). The
 * UTF-8 check is the strict one of RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF, so what passes is what a strict JSON
 * reader accepts.
 */
#include "format/escape.h"

static int cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

size_t lsc__utf8_seq(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return cont(s[1]) ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		/* E0: no overlong (A0..BF); ED: no surrogates (80..9F). */
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		return s[1] >= lo && s[1] <= hi && cont(s[2]) ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		/* F0: no overlong (90..BF); F4: at most U+10FFFF (80..8F). */
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		return s[1] >= lo && s[1] <= hi && cont(s[2]) && cont(s[3]) ? 4 : 0;
	}
	return 0;
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
