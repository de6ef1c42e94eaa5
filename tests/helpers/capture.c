/*
 * The capture: see capture.h. Lines are kept in one flat buffer, so that a
 * failed assertion can print them all with "%s" and a lookup walks them in
 * the order the profiler wrote them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/capture.h"

void lsct_sink(void *user, const char *line, size_t len)
{
	struct lsct_capture *c = user;
	if (len == 0 || line[len - 1] != '\n')
		c->calls_without_newline++;
	if (getenv("LSCT_ECHO"))
		fwrite(line, 1, len, stderr);
	if (c->len + len >= sizeof(c->buf))
		return;
	memcpy(c->buf + c->len, line, len);
	c->len += len;
	c->buf[c->len] = '\0';
	c->lines++;
}

void lsct_capture_reset(struct lsct_capture *c)
{
	c->len = 0;
	c->buf[0] = '\0';
	c->lines = 0;
	c->calls_without_newline = 0;
}

lsc_profiler *lsct_profiler_fmt(struct lsct_capture *c, enum lsc_format fmt, int watchdog)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = c;
	o.format = fmt;
	o.mode = LSC_MODE_ON;
	/* Verbose: the tests look fields up, and a brief line leaves most of
	 * them to its sentence (tests/test_lines_brief.c checks those). */
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | (watchdog ? 0 : LSC_PROFILER_NO_WATCHDOG);
	lsc_profiler *p = NULL;
	if (lsc_profiler_create(&o, &p) != 0)
		abort();
	return p;
}

lsc_profiler *lsct_profiler(struct lsct_capture *c)
{
	return lsct_profiler_fmt(c, LSC_FORMAT_HUMAN, 0);
}

lsc_profiler *lsct_profiler_fresh(struct lsct_capture *c)
{
	lsct_capture_reset(c);
	return lsct_profiler(c);
}

/* The line at *@at (its length with the newline in *@len), and *@at moved
 * past it; NULL at the end. */
static const char *next_line(const struct lsct_capture *c, size_t *at, size_t *len)
{
	if (*at >= c->len)
		return NULL;
	const char *s = c->buf + *at, *nl = memchr(s, '\n', c->len - *at);
	*len = nl ? (size_t)(nl - s) + 1 : c->len - *at;
	*at += *len;
	return s;
}

int lsct_find(const struct lsct_capture *c, const char *event, unsigned k, char *buf,
	      size_t buf_len, struct lsc__parsed *out)
{
	size_t at = 0, len;
	for (const char *l; (l = next_line(c, &at, &len));) {
		if (len + 1 > buf_len)
			continue;
		memcpy(buf, l, len);
		buf[len] = '\0';
		if (lsc__line_parse(buf, len, out) == 1 && !strcmp(out->event, event) && k-- == 0)
			return 1;
	}
	return 0;
}

unsigned lsct_count(const struct lsct_capture *c, const char *event)
{
	static char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed p;
	unsigned n = 0;
	while (lsct_find(c, event, n, buf, sizeof(buf), &p))
		n++;
	return n;
}

unsigned lsct_count_with(const struct lsct_capture *c, const char *event, const char *needle)
{
	static char line[LSC__LINE_MAX + 1];
	char tag[64];
	size_t at = 0, len;
	unsigned n = 0;
	snprintf(tag, sizeof tag, "[loadscope/2] %s ", event);
	for (const char *l; (l = next_line(c, &at, &len));) {
		if (len >= sizeof line)
			len = sizeof line - 1;
		memcpy(line, l, len);
		line[len] = '\0';
		if (strstr(line, tag) && (!needle || strstr(line, needle)))
			n++;
	}
	return n;
}

int lsct_field(const struct lsct_capture *c, const char *event, const char *key, char *out,
	       size_t out_len)
{
	static char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed p;
	if (!lsct_find(c, event, 0, buf, sizeof buf, &p))
		return 0;
	const char *v = lsc__parsed_get(&p, key);
	if (!v)
		return 0;
	snprintf(out, out_len, "%s", v);
	return 1;
}

int lsct_find_fallback(const struct lsct_capture *c, const char *what, char *buf, size_t buf_len,
		       struct lsc__parsed *out)
{
	for (unsigned k = 0; lsct_find(c, "fallback", k, buf, buf_len, out); k++) {
		const char *w = lsc__parsed_get(out, "what");
		if (w && !strcmp(w, what))
			return 1;
	}
	return 0;
}

int lsct_has_fallback(const struct lsct_capture *c, const char *what)
{
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed p;
	return lsct_find_fallback(c, what, buf, sizeof(buf), &p);
}

void lsct_dump(const struct lsct_capture *c)
{
	fwrite(c->buf, 1, c->len, stderr);
}
