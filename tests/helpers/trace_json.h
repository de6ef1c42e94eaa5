/*
 * A strict check of a trace file (LOADSCOPE_TRACE's Chrome trace JSON),
 * written apart from the writer: JSON syntax, and the "X" events of each
 * thread nesting strictly, as trace viewers require.
 */
#ifndef LSC_TESTS_TRACE_JSON_H
#define LSC_TESTS_TRACE_JSON_H

#include <stddef.h>

/* Return 0 when @text (@len bytes) is valid, else -1 with a reason in @why.
 * @n_x receives the number of X events. */
int lsct_trace_json_check(const char *text, size_t len, unsigned *n_x, char *why, size_t why_len);

#endif
