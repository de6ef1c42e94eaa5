/*
 * How a string becomes text inside a quoted value, one character at a time,
 * for the two forms of a line (docs/log-format.md, "Strings"): the line
 * writer and the trace writer both call these, so a file name or span name
 * is escaped the same way everywhere.
 *
 * JSON: valid UTF-8 passes through; `"` `\` become `\"` `\\`; newline, tab
 * and carriage return their short escapes; other control characters and DEL
 * `\u00XX`; a byte that starts no valid UTF-8 sequence (invalid, overlong,
 * surrogate, cut short) becomes `\ufffd`, U+FFFD, one per byte.
 * Human: the same, except that control characters, DEL and invalid bytes
 * become `\xHH`, so the human line keeps the exact bytes of a path and
 * parses back to them.
 */
#ifndef LSC_FORMAT_ESCAPE_H
#define LSC_FORMAT_ESCAPE_H

#include <stddef.h>

#define LSC__ESC_MAX 8 /* the longest piece: "\ufffd" or a 4-byte sequence */

/* Length of the valid UTF-8 sequence @s starts with (1-4; NUL-terminated
 * input), or 0 when its first byte starts none. */
size_t lsc__utf8_seq(const char *s);

/* The same for @s[0..n): 0 also when the sequence runs past @n. The one
 * UTF-8 check of the project (lines, trace, model headers). */
size_t lsc__utf8_len(const unsigned char *s, size_t n);

/* Whether @s[0..n) is valid UTF-8 throughout. */
int lsc__utf8_valid(const unsigned char *s, size_t n);

/*
 * The escaped text of the character at @s (not at its NUL), in @buf, its
 * length in *@n. @json: JSON rules, else the human grammar's. Return: the
 * bytes of @s consumed.
 */
size_t lsc__esc_char(const char *s, int json, char buf[LSC__ESC_MAX], size_t *n);

#endif
