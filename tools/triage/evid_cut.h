/*
 * Where a quoted evidence line is cut (evid_cut.c): at a token boundary,
 * with a visible ellipsis, never inside a number or a key.
 */
#ifndef LSC_TRIAGE_EVID_CUT_H
#define LSC_TRIAGE_EVID_CUT_H

#include <stddef.h>

/* @text holds the first @len bytes of a longer line, NUL-terminated, in a
 * buffer of @cap bytes (cap >= 8). Cut it back to its last whole token and
 * end it with " …"; return the new length. */
size_t tr_evid_cut(char *text, size_t len, size_t cap);

#endif
