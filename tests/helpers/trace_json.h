/*
 * A strict reader of a trace file (LOADSCOPE_TRACE's Chrome trace JSON),
 * written apart from the writer: the JSON Array Format, whose closing
 * bracket may be missing (a process killed or hung before destroy) but
 * nothing else: strict JSON (json_strict.h's RFC 8259), every event an
 * object with name, cat, ph, ts, pid and tid of the right types, dur for X
 * events, every E event closing the last open B event of its thread with
 * the same name, and the slices of each thread (X events,
 * and B events with their E) nesting strictly, as trace viewers require.
 * A B event without its E (a span still open when the process died) is
 * allowed.
 */
#ifndef LSC_TESTS_TRACE_JSON_H
#define LSC_TESTS_TRACE_JSON_H

#include <stddef.h>

struct lsct_trace_ev {
	char name[64];
	char cat[64];
	char ph;
	double ts, dur;   /* dur -1 when absent; a B event's is its E's ts minus its own,
	                   * -1 when it has no E */
	long pid, tid;
	char arg_name[64]; /* args.name (M events), "" when absent */
};

struct lsct_trace {
	struct lsct_trace_ev ev[16384];
	unsigned n;
	int closed;        /* the closing bracket was there */
	unsigned n_open;   /* B events without their E */
};

/* Parse @text (@len bytes) into @out. Return 0, or -1 with a reason in @why. */
int lsct_trace_parse(const char *text, size_t len, struct lsct_trace *out, char *why, size_t why_len);
/* The same from the file at @path. */
int lsct_trace_read(const char *path, struct lsct_trace *out, char *why, size_t why_len);
/* The @k-th event (0 = first) with @ph and @name (NULL: any), or NULL. */
const struct lsct_trace_ev *lsct_trace_find(const struct lsct_trace *t, char ph, const char *name, unsigned k);
/* How many events have @ph and @name (NULL: any). */
unsigned lsct_trace_count(const struct lsct_trace *t, char ph, const char *name);

/* Check @text; @n_x receives the number of slices (X and B events). 0 or
 * -1 as above. */
int lsct_trace_json_check(const char *text, size_t len, unsigned *n_x, char *why, size_t why_len);

#endif
