/*
 * A small strict JSON reader (RFC 8259) for the model headers: the
 * safetensors header and model.safetensors.index.json. It is a pull reader
 * over a buffer the caller owns: the caller walks objects and arrays and
 * takes the values it wants, skipping the rest, so memory stays bounded by
 * what the caller keeps, never by the shape of the input (a 100 MB header
 * of nested arrays builds no tree).
 *
 * Strict: no trailing commas, no comments, no leading zeros, no control
 * characters in strings, UTF-8 checked (no overlong forms, no surrogates,
 * nothing past U+10FFFF), \u escapes paired, nesting at most
 * LSC__JSON_DEPTH deep. The first error stops the reader; lsc__json_error()
 * says what and where.
 *
 * Private to src/model/ (and tests): the others use model.h.
 */
#ifndef LSC_MODEL_JSON_H
#define LSC_MODEL_JSON_H

#include <stddef.h>
#include <stdint.h>

#define LSC__JSON_DEPTH 64

enum lsc__json_type {
	LSC__J_ERROR = -1,
	LSC__J_OBJECT,
	LSC__J_ARRAY,
	LSC__J_STRING,
	LSC__J_NUMBER,
	LSC__J_TRUE,
	LSC__J_FALSE,
	LSC__J_NULL,
};

struct lsc__json {
	const char *s;
	size_t n, pos;
	unsigned depth;
	unsigned char first[LSC__JSON_DEPTH + 1]; /* no member read yet, per level */
	char *str;             /* the last decoded string (scratch, owned) */
	size_t str_cap;
	const char *err;       /* first error, static text; NULL while fine */
	size_t err_pos;
	int oom;               /* the error is memory the reader could not get */
};

/* Start reading @n bytes at @s (not copied; need not be NUL-terminated). */
void lsc__json_init(struct lsc__json *j, const char *s, size_t n);
/* Release the scratch string. */
void lsc__json_free(struct lsc__json *j);

/* The type of the next value (after whitespace), without consuming it. */
enum lsc__json_type lsc__json_peek(struct lsc__json *j);

/* Consume '{'. Then lsc__json_key() until it returns 0 (the '}' consumed):
 * 1 with the decoded key in *key (scratch: valid until the next string)
 * and the ':' consumed, so the caller must take or skip the value. */
int lsc__json_object(struct lsc__json *j);
int lsc__json_key(struct lsc__json *j, const char **key, size_t *len);
/* Consume '['. Then lsc__json_more() until 0 (the ']' consumed): 1 means
 * a value follows, which the caller must take or skip. */
int lsc__json_array(struct lsc__json *j);
int lsc__json_more(struct lsc__json *j);

/* A string value, decoded into scratch (valid until the next string). */
int lsc__json_string(struct lsc__json *j, const char **s, size_t *len);
/* A number that is a non-negative integer fitting 64 bits (no fraction, no
 * exponent, no sign). */
int lsc__json_u64(struct lsc__json *j, uint64_t *v);
/* Any value, checked and dropped. */
int lsc__json_skip(struct lsc__json *j);
/* Only whitespace left. */
int lsc__json_end(struct lsc__json *j);

/* All of the above return 0/1 as said, or -1 on an error; then: */
const char *lsc__json_error(const struct lsc__json *j, size_t *pos);
/* Record a caller's error (a value of the wrong type, say) at the current
 * position; returns -1. */
int lsc__json_fail(struct lsc__json *j, const char *why);
/* The errno of the error: -ENOMEM when the reader ran out of memory (the
 * input may be fine), else -EBADMSG (the input is not what was expected). */
int lsc__json_errno(const struct lsc__json *j);

#endif
