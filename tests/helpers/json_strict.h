/*
 * A strict JSON reader (RFC 8259), written apart from the line and trace
 * writers, for asserting that what they write is valid JSON: one value and
 * nothing after it but whitespace, strings of valid UTF-8 (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF) with no raw control
 * character, only the nine escapes and \u with four hex digits (surrogates
 * only as a high+low pair), numbers in the JSON grammar only ("0,259" and
 * "1." are not numbers).
 */
#ifndef LSC_TESTS_JSON_STRICT_H
#define LSC_TESTS_JSON_STRICT_H

#include <stddef.h>

/* Return 0 when @text (@len bytes) is one valid JSON value, else -1 with the
 * reason and the byte offset in @why. */
int lsct_json_strict(const char *text, size_t len, char *why, size_t why_len);

#endif
