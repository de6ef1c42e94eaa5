/*
 * Test helpers: the capturing sink and the trace checker (see capture.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/capture.h"

void capture_sink(void *user, const char *line, size_t len)
{
	struct capture *c = user;
	if (len == 0 || line[len - 1] != '\n')
		c->calls_without_newline++;
	if (c->len + len >= sizeof(c->buf))
		return;
	memcpy(c->buf + c->len, line, len);
	c->len += len;
	c->buf[c->len] = '\0';
	c->lines++;
}

lsc_profiler *capture_profiler(struct capture *c, enum lsc_format fmt, int watchdog)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = capture_sink;
	o.sink_user = c;
	o.format = fmt;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | (watchdog ? 0 : LSC_PROFILER_NO_WATCHDOG);
	lsc_profiler *p = NULL;
	if (lsc_profiler_create(&o, &p) != 0)
		return NULL;
	return p;
}

static int nth_line(const struct capture *c, const char *event, unsigned nth,
		    struct lsc__parsed *p, char *store)
{
	const char *s = c->buf, *end = c->buf + c->len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		if (n >= LSC__LINE_MAX)
			n = LSC__LINE_MAX - 1;
		memcpy(store, s, n);
		if (lsc__line_parse(store, n, p) == 1 && !strcmp(p->event, event)) {
			if (nth == 0)
				return 1;
			nth--;
		}
		s += n + 1;
	}
	return 0;
}

unsigned capture_count(const struct capture *c, const char *event)
{
	static char store[LSC__LINE_MAX + 1];
	struct lsc__parsed p;
	unsigned n = 0;
	while (nth_line(c, event, n, &p, store))
		n++;
	return n;
}

int capture_find(const struct capture *c, const char *event, unsigned nth, struct lsc__parsed *p,
		 char *store)
{
	return nth_line(c, event, nth, p, store);
}

/* ---- a strict JSON checker, collecting X events ------------------------- */

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

int json_check_trace(const char *text, size_t len, unsigned *n_x, char *why, size_t why_len)
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
