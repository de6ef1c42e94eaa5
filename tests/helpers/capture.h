/*
 * Test helpers shared by the test files: a profiler sink that captures lines
 * into memory, a lookup of the nth line of an event, and a strict JSON
 * checker for trace files.
 */
#ifndef LSC_TEST_CAPTURE_H
#define LSC_TEST_CAPTURE_H

#include <stddef.h>

#include <loadscope/profiler.h>

#include "format/line.h"

struct capture {
	char buf[1 << 20];
	size_t len;
	unsigned lines;
	unsigned calls_without_newline;
};

/* A sink: appends the line; counts calls whose line does not end in '\n'. */
void capture_sink(void *user, const char *line, size_t len);

/* Create a profiler that writes into @c (watchdog off unless @watchdog). */
lsc_profiler *capture_profiler(struct capture *c, enum lsc_format fmt, int watchdog);

/* Number of captured lines of @event. */
unsigned capture_count(const struct capture *c, const char *event);

/* Parse the @nth (0-based) captured line of @event into @p, using @store
 * (LSC__LINE_MAX bytes) for the text. Return 1 found, 0 not found. */
int capture_find(const struct capture *c, const char *event, unsigned nth, struct lsc__parsed *p,
		 char *store);

/* Trace-file check: strict JSON syntax, and "X" events of each tid nest
 * strictly. Return 0 when valid, else -1 with a reason in @why. @n_x
 * receives the number of X events. */
int json_check_trace(const char *text, size_t len, unsigned *n_x, char *why, size_t why_len);

#endif
