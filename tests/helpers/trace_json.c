/*
 * The trace checker: see trace_json.h. A small recursive-descent JSON
 * reader that remembers ph, ts, dur and tid of each object in traceEvents.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/trace_json.h"

struct xev {
	double ts, dur;
	long tid;
};

struct jp {
	const char *s, *end;
	const char *err;
	struct xev ev[8192];
	unsigned n;
	/* fields of the object being read at depth 2 */
	char ph;
	double ts, dur;
	long tid;
};

static void ws(struct jp *j)
{
	while (j->s < j->end && strchr(" \t\r\n", *j->s))
		j->s++;
}

static int value(struct jp *j, int depth, const char *key);

static int string(struct jp *j, char *out, size_t cap)
{
	if (j->s >= j->end || *j->s != '"')
		return j->err = "string expected", -1;
	j->s++;
	size_t n = 0;
	while (j->s < j->end && *j->s != '"') {
		if ((unsigned char)*j->s < 0x20)
			return j->err = "control character in string", -1;
		if (*j->s == '\\') {
			j->s++;
			if (j->s >= j->end || !strchr("\"\\/bfnrtu", *j->s))
				return j->err = "bad escape", -1;
			if (*j->s == 'u')
				j->s += 4;
		}
		if (out && n + 1 < cap)
			out[n++] = *j->s;
		j->s++;
	}
	if (j->s >= j->end)
		return j->err = "unterminated string", -1;
	j->s++;
	if (out)
		out[n] = '\0';
	return 0;
}

static int number(struct jp *j, double *out)
{
	char *e;
	double d = strtod(j->s, &e);
	if (e == j->s || e > j->end)
		return j->err = "bad value", -1;
	j->s = e;
	if (out)
		*out = d;
	return 0;
}

static int object(struct jp *j, int depth)
{
	j->s++;
	if (depth == 2) {
		j->ph = 0;
		j->ts = j->dur = -1;
		j->tid = -1;
	}
	ws(j);
	if (j->s < j->end && *j->s == '}') {
		j->s++;
		return 0;
	}
	for (;;) {
		char key[64];
		ws(j);
		if (string(j, key, sizeof(key)) < 0)
			return -1;
		ws(j);
		if (j->s >= j->end || *j->s != ':')
			return j->err = "':' expected", -1;
		j->s++;
		ws(j);
		if (value(j, depth + 1, depth == 2 ? key : NULL) < 0)
			return -1;
		ws(j);
		if (j->s < j->end && *j->s == ',') {
			j->s++;
			continue;
		}
		if (j->s < j->end && *j->s == '}') {
			j->s++;
			break;
		}
		return j->err = "',' or '}' expected", -1;
	}
	if (depth == 2 && j->ph == 'X') {
		if (j->ts < 0 || j->dur < 0 || j->tid < 0)
			return j->err = "X event without ts, dur or tid", -1;
		if (j->n < sizeof(j->ev) / sizeof(j->ev[0]))
			j->ev[j->n++] = (struct xev){j->ts, j->dur, j->tid};
	}
	return 0;
}

static int value(struct jp *j, int depth, const char *key)
{
	ws(j);
	if (j->s >= j->end)
		return j->err = "value expected", -1;
	char c = *j->s;
	if (c == '{')
		return object(j, depth);
	if (c == '[') {
		j->s++;
		ws(j);
		if (j->s < j->end && *j->s == ']') {
			j->s++;
			return 0;
		}
		for (;;) {
			if (value(j, depth + 1, NULL) < 0)
				return -1;
			ws(j);
			if (j->s < j->end && *j->s == ',') {
				j->s++;
				continue;
			}
			if (j->s < j->end && *j->s == ']') {
				j->s++;
				return 0;
			}
			return j->err = "',' or ']' expected", -1;
		}
	}
	if (c == '"') {
		char v[64];
		if (string(j, v, sizeof(v)) < 0)
			return -1;
		if (key && !strcmp(key, "ph"))
			j->ph = v[0];
		return 0;
	}
	if (!strncmp(j->s, "true", 4) || !strncmp(j->s, "null", 4)) {
		j->s += 4;
		return 0;
	}
	if (!strncmp(j->s, "false", 5)) {
		j->s += 5;
		return 0;
	}
	double d;
	if (number(j, &d) < 0)
		return -1;
	if (key && !strcmp(key, "ts"))
		j->ts = d;
	else if (key && !strcmp(key, "dur"))
		j->dur = d;
	else if (key && !strcmp(key, "tid"))
		j->tid = (long)d;
	return 0;
}

int lsct_trace_json_check(const char *text, size_t len, unsigned *n_x, char *why, size_t why_len)
{
	static struct jp j;
	memset(&j, 0, sizeof(j));
	j.s = text;
	j.end = text + len;
	/* depth: the top object is 0, traceEvents' array 1, its events 2 */
	if (value(&j, 0, NULL) < 0) {
		snprintf(why, why_len, "%s at byte %zu", j.err, (size_t)(j.s - text));
		return -1;
	}
	ws(&j);
	if (j.s != j.end) {
		snprintf(why, why_len, "trailing bytes at %zu", (size_t)(j.s - text));
		return -1;
	}
	/* Strict nesting per thread: two X events of one tid either nest or
	 * do not overlap. Timestamps are printed to 1 ns (3 decimals of us). */
	for (unsigned a = 0; a < j.n; a++)
		for (unsigned b = 0; b < j.n; b++) {
			const struct xev *x = &j.ev[a], *y = &j.ev[b];
			if (a == b || x->tid != y->tid)
				continue;
			double xe = x->ts + x->dur, ye = y->ts + y->dur;
			int overlap = x->ts < ye && y->ts < xe;
			int nested = (x->ts >= y->ts && xe <= ye + 0.001) || (y->ts >= x->ts && ye <= xe + 0.001);
			if (overlap && !nested) {
				snprintf(why, why_len, "X events %u and %u of tid %ld overlap without nesting", a, b, x->tid);
				return -1;
			}
		}
	*n_x = j.n;
	return 0;
}
