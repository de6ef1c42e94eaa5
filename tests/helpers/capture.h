/*
 * The test kit's one capture: a profiler whose sink appends every line to a
 * buffer in memory, and the lookups the tests make on it (the nth line of an
 * event parsed by the grammar's own parser, a field of the first such line,
 * lines of an event that contain a text, the fallback line of one `what`).
 * Every test that reads the lines a profiler wrote uses this one kit, so a
 * lookup means the same thing in every test.
 */
#ifndef LSC_TESTS_CAPTURE_H
#define LSC_TESTS_CAPTURE_H

#include <stddef.h>

#include <loadscope/profiler.h>

#include "format/line.h"

struct lsct_capture {
	char buf[1 << 20];              /* the lines, NUL-terminated */
	size_t len;
	unsigned lines;                 /* lines kept in buf */
	unsigned calls_without_newline; /* sink calls whose line did not end in '\n' */
};

/* The sink (@user is a struct lsct_capture): appends the line when it fits.
 * With LSCT_ECHO set in the environment it also copies it to stderr. */
void lsct_sink(void *user, const char *line, size_t len);
/* A profiler (human format, no watchdog, environment ignored) whose lines go
 * to @cap, appended to what @cap holds. Aborts if it cannot be created. */
lsc_profiler *lsct_profiler(struct lsct_capture *cap);
/* The same after emptying @cap. */
lsc_profiler *lsct_profiler_fresh(struct lsct_capture *cap);
/* A profiler in @fmt, with the watchdog when @watchdog, into @cap. */
lsc_profiler *lsct_profiler_fmt(struct lsct_capture *cap, enum lsc_format fmt, int watchdog);
/* Forget every captured line. */
void lsct_capture_reset(struct lsct_capture *cap);

/* The @k-th line (0 = first) of @event parsed into @out, or 0 when absent.
 * @buf (@buf_len bytes; LSC__LINE_MAX + 1 takes any line) receives a copy of
 * the line, which the parse points into. */
int lsct_find(const struct lsct_capture *cap, const char *event, unsigned k, char *buf,
	      size_t buf_len, struct lsc__parsed *out);
/* Count lines of @event (parsed). */
unsigned lsct_count(const struct lsct_capture *cap, const char *event);
/* Count lines tagged "[loadscope/2] @event " that contain @needle (NULL:
 * any), by plain text: for asserting on a phrase of the human part. */
unsigned lsct_count_with(const struct lsct_capture *cap, const char *event, const char *needle);
/* The value of @key in the first line of @event, copied into @out. Return 1
 * found, 0 not (no such line, or the first one lacks @key). */
int lsct_field(const struct lsct_capture *cap, const char *event, const char *key, char *out,
	       size_t out_len);
/* The fallback line with what=@what parsed into @out (whichever other
 * fallbacks the machine took before it), or 0. */
int lsct_find_fallback(const struct lsct_capture *cap, const char *what, char *buf, size_t buf_len,
		       struct lsc__parsed *out);
/* Whether a fallback line with what=@what was captured. */
int lsct_has_fallback(const struct lsct_capture *cap, const char *what);
/* Print every captured line to stderr (for a failed assertion's context). */
void lsct_dump(const struct lsct_capture *cap);

#endif
