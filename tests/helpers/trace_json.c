/*
 * The trace reader: see trace_json.h. Whether the text is JSON at all is
 * the test kit's one strict reader's to say (json_strict.h, RFC 8259 to the
 * letter), given the text as it is or, for the array form left open, with
 * its closing bracket added; then a recursive-descent pass over the array
 * reads and checks the fields of each event.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/json_strict.h"
#include "helpers/trace_json.h"

struct jp {
	const char *s, *end;
	const char *err;
};

/* The fields of the event being read (depth 1), as seen. */
struct seen {
	unsigned mask; /* bit per field below */
	struct lsct_trace_ev ev;
};
enum { F_NAME = 1, F_CAT = 2, F_PH = 4, F_TS = 8, F_PID = 16, F_TID = 32, F_DUR = 64, F_ARGS = 128 };

static void ws(struct jp *j)
{
	while (j->s < j->end && (*j->s == ' ' || *j->s == '\t' || *j->s == '\r' || *j->s == '\n'))
		j->s++;
}

static int fail(struct jp *j, const char *why)
{
	if (!j->err)
		j->err = why;
	return -1;
}

static int hex4(struct jp *j, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++, j->s++) {
		if (j->s >= j->end)
			return fail(j, "short \\u escape");
		char c = *j->s;
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return fail(j, "bad \\u escape");
	}
	*out = v;
	return 0;
}

/* A string; its bytes (escapes decoded, cut to fit) into @out when not NULL. */
static int string(struct jp *j, char *out, size_t cap)
{
	size_t n = 0;
	if (j->s >= j->end || *j->s != '"')
		return fail(j, "string expected");
	j->s++;
	for (;;) {
		if (j->s >= j->end)
			return fail(j, "unterminated string");
		unsigned char c = (unsigned char)*j->s;
		if (c == '"')
			break;
		if (c < 0x20)
			return fail(j, "control character in string");
		char add = (char)c;
		if (c == '\\') {
			j->s++;
			if (j->s >= j->end)
				return fail(j, "unterminated escape");
			const char *esc = strchr("\"\\/bfnrtu", *j->s);
			if (!esc || !*j->s)
				return fail(j, "bad escape");
			if (*j->s == 'u') {
				j->s++;
				unsigned u;
				if (hex4(j, &u) < 0)
					return -1;
				add = u < 0x80 ? (char)u : '?';
			} else {
				static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
				add = to[strchr(from, *j->s) - from];
				j->s++;
			}
		} else {
			j->s++;
		}
		if (out && n + 1 < cap)
			out[n++] = add;
	}
	j->s++;
	if (out)
		out[n] = '\0';
	return 0;
}

static int digits(struct jp *j)
{
	const char *s = j->s;
	while (j->s < j->end && *j->s >= '0' && *j->s <= '9')
		j->s++;
	return j->s > s ? 0 : fail(j, "digit expected");
}

static int number(struct jp *j, double *out)
{
	const char *s = j->s;
	if (j->s < j->end && *j->s == '-')
		j->s++;
	if (j->s < j->end && *j->s == '0')
		j->s++;
	else if (j->s < j->end && *j->s >= '1' && *j->s <= '9')
		digits(j);
	else
		return fail(j, "bad value");
	if (j->s < j->end && *j->s == '.') {
		j->s++;
		if (digits(j) < 0)
			return -1;
	}
	if (j->s < j->end && (*j->s == 'e' || *j->s == 'E')) {
		j->s++;
		if (j->s < j->end && (*j->s == '+' || *j->s == '-'))
			j->s++;
		if (digits(j) < 0)
			return -1;
	}
	char b[64];
	size_t l = (size_t)(j->s - s);
	if (l >= sizeof(b))
		return fail(j, "number too long");
	memcpy(b, s, l);
	b[l] = '\0';
	*out = strtod(b, NULL);
	return 0;
}

static int value(struct jp *j, int depth, struct seen *ev, const char *key);

static int literal(struct jp *j, const char *w)
{
	size_t l = strlen(w);
	if ((size_t)(j->end - j->s) < l || memcmp(j->s, w, l))
		return fail(j, "bad value");
	j->s += l;
	return 0;
}

/* @ev: the event being read when this object is one (depth 1), whose
 * fields value() checks and keeps. */
static int object(struct jp *j, int depth, struct seen *ev)
{
	j->s++;
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
			return fail(j, "':' expected");
		j->s++;
		ws(j);
		if (value(j, depth + 1, ev, ev ? key : NULL) < 0)
			return -1;
		ws(j);
		if (j->s < j->end && *j->s == ',') {
			j->s++;
			continue;
		}
		if (j->s < j->end && *j->s == '}') {
			j->s++;
			return 0;
		}
		return fail(j, "',' or '}' expected");
	}
}

static unsigned field_bit(const char *key)
{
	static const struct {
		const char *k;
		unsigned bit;
	} f[] = {{"name", F_NAME}, {"cat", F_CAT}, {"ph", F_PH},   {"ts", F_TS},
		 {"pid", F_PID},   {"tid", F_TID}, {"dur", F_DUR}, {"args", F_ARGS}};
	for (unsigned i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!strcmp(key, f[i].k))
			return f[i].bit;
	return 0;
}

/* @key: the event's key when this is the value of one of an event's
 * fields (with @ev), else NULL. */
static int value(struct jp *j, int depth, struct seen *ev, const char *key)
{
	ws(j);
	if (j->s >= j->end)
		return fail(j, "value expected");
	if (depth > 64)
		return fail(j, "nested too deep");
	unsigned bit = key ? field_bit(key) : 0;
	if (bit && (ev->mask & bit))
		return fail(j, "an event field given twice");
	char c = *j->s;
	if (c == '{') {
		if (bit && bit != F_ARGS)
			return fail(j, "an event field of the wrong type");
		if (bit)
			ev->mask |= F_ARGS;
		return object(j, depth, NULL);
	}
	if (c == '[') {
		if (bit)
			return fail(j, "an event field of the wrong type");
		j->s++;
		ws(j);
		if (j->s < j->end && *j->s == ']') {
			j->s++;
			return 0;
		}
		for (;;) {
			if (value(j, depth + 1, NULL, NULL) < 0)
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
			return fail(j, "',' or ']' expected");
		}
	}
	if (c == '"') {
		char v[64];
		if (string(j, v, sizeof(v)) < 0)
			return -1;
		if (bit == F_NAME)
			snprintf(ev->ev.name, sizeof(ev->ev.name), "%s", v);
		else if (bit == F_CAT)
			snprintf(ev->ev.cat, sizeof(ev->ev.cat), "%s", v);
		else if (bit == F_PH) {
			if (strlen(v) != 1)
				return fail(j, "ph is not one character");
			ev->ev.ph = v[0];
		} else if (bit)
			return fail(j, "an event field of the wrong type");
		if (bit)
			ev->mask |= bit;
		return 0;
	}
	if (c == 't' || c == 'f' || c == 'n') {
		if (bit)
			return fail(j, "an event field of the wrong type");
		return literal(j, c == 't' ? "true" : c == 'f' ? "false" : "null");
	}
	double d;
	if (number(j, &d) < 0)
		return -1;
	if (bit == F_TS)
		ev->ev.ts = d;
	else if (bit == F_DUR)
		ev->ev.dur = d;
	else if (bit == F_PID)
		ev->ev.pid = (long)d;
	else if (bit == F_TID)
		ev->ev.tid = (long)d;
	else if (bit)
		return fail(j, "an event field of the wrong type");
	if (bit)
		ev->mask |= bit;
	return 0;
}

/* args.name of the event whose object spans [s, e): found again by a
 * second, shallow pass, so that value() need not track args' keys. */
static void arg_name(const char *s, const char *e, char *out, size_t cap)
{
	out[0] = '\0';
	const char *a = NULL;
	for (const char *q = s; q + 8 <= e; q++)
		if (!memcmp(q, "\"args\":{", 8)) {
			a = q + 8;
			break;
		}
	if (!a)
		return;
	for (const char *q = a; q + 8 <= e; q++)
		if (!memcmp(q, "\"name\":\"", 8) && (q == a || q[-1] == ',' || q[-1] == '{')) {
			struct jp j = {q + 7, e, NULL};
			if (string(&j, out, cap) < 0)
				out[0] = '\0';
			return;
		}
}

static int event(struct jp *j, struct lsct_trace *t)
{
	ws(j);
	if (j->s >= j->end || *j->s != '{')
		return fail(j, "an event is not an object");
	struct seen ev;
	memset(&ev, 0, sizeof(ev));
	ev.ev.dur = -1;
	const char *s = j->s;
	if (object(j, 1, &ev) < 0)
		return -1;
	static const char *const names[] = {"name", "cat", "ph", "ts", "pid", "tid"};
	for (unsigned i = 0; i < 6; i++)
		if (!(ev.mask & (1u << i))) {
			static char msg[64];
			snprintf(msg, sizeof(msg), "an event without %s", names[i]);
			return fail(j, msg);
		}
	if (ev.ev.ph == 'X' && (!(ev.mask & F_DUR) || ev.ev.dur < 0))
		return fail(j, "an X event without a dur >= 0");
	if (!ev.ev.cat[0])
		return fail(j, "an event with an empty cat");
	arg_name(s, j->s, ev.ev.arg_name, sizeof(ev.ev.arg_name));
	if (t->n >= sizeof(t->ev) / sizeof(t->ev[0]))
		return fail(j, "more events than the checker holds");
	t->ev[t->n++] = ev.ev;
	return 0;
}

/* 0 when @text is strict JSON as it is, or once "\n]" closes it. */
static int strict_json(const char *text, size_t len, char *why, size_t why_len)
{
	if (lsct_json_strict(text, len, why, why_len) == 0)
		return 0;
	char *closed = malloc(len + 3);
	if (!closed) {
		snprintf(why, why_len, "out of memory");
		return -1;
	}
	memcpy(closed, text, len);
	memcpy(closed + len, "\n]", 3);
	int ret = lsct_json_strict(closed, len + 2, why, why_len);
	free(closed);
	return ret;
}

int lsct_trace_parse(const char *text, size_t len, struct lsct_trace *t, char *why, size_t why_len)
{
	struct jp j = {text, text + len, NULL};
	memset(t, 0, sizeof(*t));
	if (strict_json(text, len, why, why_len) < 0)
		return -1;
	ws(&j);
	int bad = 0;
	if (j.s >= j.end || *j.s != '[') {
		bad = fail(&j, "not a JSON array");
	} else {
		j.s++;
		ws(&j);
		if (j.s < j.end && *j.s == ']') {
			j.s++;
			t->closed = 1;
		}
		while (!t->closed && j.s < j.end && !bad) {
			if (event(&j, t) < 0) {
				bad = -1;
				break;
			}
			ws(&j);
			if (j.s >= j.end)
				break; /* the closing bracket may be missing: nothing else may */
			if (*j.s == ']') {
				j.s++;
				t->closed = 1;
			} else if (*j.s == ',') {
				j.s++;
				ws(&j);
				if (j.s >= j.end)
					bad = fail(&j, "the array ends after a comma");
			} else {
				bad = fail(&j, "',' or ']' expected");
			}
		}
		ws(&j);
		if (!bad && j.s != j.end)
			bad = fail(&j, "bytes after the array");
	}
	if (bad) {
		snprintf(why, why_len, "%s at byte %zu", j.err, (size_t)(j.s - text));
		return -1;
	}
	/* Each E closes the last open B of its thread, by name. */
	static unsigned open[sizeof(t->ev) / sizeof(t->ev[0])];
	unsigned n_open = 0;
	for (unsigned i = 0; i < t->n; i++) {
		struct lsct_trace_ev *e = &t->ev[i];
		if (e->ph == 'B') {
			open[n_open++] = i;
			continue;
		}
		if (e->ph != 'E')
			continue;
		unsigned k = n_open;
		while (k > 0 && (t->ev[open[k - 1]].tid != e->tid || t->ev[open[k - 1]].pid != e->pid))
			k--;
		if (k == 0 || strcmp(t->ev[open[k - 1]].name, e->name) || e->ts < t->ev[open[k - 1]].ts) {
			snprintf(why, why_len, "E event %u (%s) does not close its thread's last open B", i,
				 e->name);
			return -1;
		}
		t->ev[open[k - 1]].dur = e->ts - t->ev[open[k - 1]].ts;
		memmove(&open[k - 1], &open[k], (n_open - k) * sizeof(open[0]));
		n_open--;
	}
	t->n_open = n_open;
	/* Strict nesting per thread: two slices (X, or B with its E) of one
	 * tid either nest or do not overlap. Timestamps are printed to 1 ns (3
	 * decimals of us). */
	for (unsigned a = 0; a < t->n; a++)
		for (unsigned b = 0; b < t->n; b++) {
			const struct lsct_trace_ev *x = &t->ev[a], *y = &t->ev[b];
			int xs = x->ph == 'X' || (x->ph == 'B' && x->dur >= 0);
			int ys = y->ph == 'X' || (y->ph == 'B' && y->dur >= 0);
			if (a == b || !xs || !ys || x->tid != y->tid || x->pid != y->pid)
				continue;
			double xe = x->ts + x->dur, ye = y->ts + y->dur;
			/* Half a nanosecond of slack: at a clock of days, ts + dur
			 * in double rounds past the next slice's ts when they touch. */
			int overlap = x->ts < ye - 0.0005 && y->ts < xe - 0.0005;
			int nested = (x->ts >= y->ts && xe <= ye + 0.001) || (y->ts >= x->ts && ye <= xe + 0.001);
			if (overlap && !nested) {
				snprintf(why, why_len, "slices %u and %u of tid %ld overlap without nesting", a, b,
					 x->tid);
				return -1;
			}
		}
	return 0;
}

int lsct_trace_read(const char *path, struct lsct_trace *t, char *why, size_t why_len)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(why, why_len, "cannot open %s", path);
		return -1;
	}
	static char text[4 << 20];
	size_t n = fread(text, 1, sizeof(text), f);
	int big = !feof(f);
	fclose(f);
	if (big) {
		snprintf(why, why_len, "%s is larger than the checker reads", path);
		return -1;
	}
	return lsct_trace_parse(text, n, t, why, why_len);
}

const struct lsct_trace_ev *lsct_trace_find(const struct lsct_trace *t, char ph, const char *name, unsigned k)
{
	for (unsigned i = 0; i < t->n; i++)
		if (t->ev[i].ph == ph && (!name || !strcmp(t->ev[i].name, name)) && k-- == 0)
			return &t->ev[i];
	return NULL;
}

unsigned lsct_trace_count(const struct lsct_trace *t, char ph, const char *name)
{
	unsigned n = 0;
	for (unsigned i = 0; i < t->n; i++)
		n += t->ev[i].ph == ph && (!name || !strcmp(t->ev[i].name, name));
	return n;
}

int lsct_trace_json_check(const char *text, size_t len, unsigned *n_x, char *why, size_t why_len)
{
	static struct lsct_trace t;
	if (lsct_trace_parse(text, len, &t, why, why_len) < 0)
		return -1;
	*n_x = lsct_trace_count(&t, 'X', NULL) + lsct_trace_count(&t, 'B', NULL);
	return 0;
}
