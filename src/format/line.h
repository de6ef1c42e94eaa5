/*
 * The line grammar of docs/log-format.md, in one place: the writer the
 * profiler and loader use, and the parser `loadscope triage` uses, so the two
 * can never drift apart.
 *
 * A record is an event name, a human sentence and an ordered list of typed
 * fields. It renders as either
 *
 *   [loadscope/2] <event> <human text> | key=value key="quoted value" ...
 *   {"loadscope":2,"event":"<event>","msg":"<human text>","key":value,...}
 *
 * and either form parses back into the same event and fields, wherever the
 * tag sits in the line (engines put their own prefixes in front).
 *
 * Nothing here allocates: records and parsed lines live in the caller's
 * storage (the profiler builds them on the stack).
 */
#ifndef LSC_FORMAT_LINE_H
#define LSC_FORMAT_LINE_H

#include <stddef.h>
#include <stdint.h>

#include <loadscope/profiler.h>

#define LSC__LINE_MAX 4096   /* a rendered line, prefix and newline included */
#define LSC__HUMAN_MAX 1024
#define LSC__FIELDS_MAX 96
#define LSC__STRBUF_MAX 1536
#define LSC__TAG "[loadscope/"
#define LSC__JSON_TAG "{\"loadscope\":"

enum lsc__vtype { LSC__V_I64, LSC__V_U64, LSC__V_F64, LSC__V_STR };

struct lsc__field {
	const char *key;  /* a static string or in the record's strbuf */
	enum lsc__vtype type;
	int prec;         /* F64: digits after the point */
	unsigned char detail; /* verbose and JSON only: dropped from a brief human line */
	union {
		int64_t i;
		uint64_t u;
		double d;
		const char *s; /* points into the record's strbuf */
	} v;
};

struct lsc__rec {
	const char *event;          /* static string: "start", "phase", ... */
	char human[LSC__HUMAN_MAX];
	size_t hlen;
	struct lsc__field f[LSC__FIELDS_MAX];
	unsigned n;
	char strbuf[LSC__STRBUF_MAX];
	size_t slen;
	unsigned truncated;         /* fields or text that did not fit */
	unsigned char in_detail;    /* fields added from here on are detail */
	unsigned char detail_line;  /* the whole line is detail: verbose and JSON only */
	unsigned char brief;        /* render a human line without its detail fields */
};

/* Start a record for @event (a static string, one word). */
void lsc__rec_init(struct lsc__rec *r, const char *event);
/* Append printf-style text to the human sentence. '|' and control
 * characters are replaced so that the sentence can never look like fields. */
void lsc__rec_say(struct lsc__rec *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append a field. @key must be a static string (or outlive the record). */
void lsc__rec_i64(struct lsc__rec *r, const char *key, int64_t v);
void lsc__rec_u64(struct lsc__rec *r, const char *key, uint64_t v);
void lsc__rec_f64(struct lsc__rec *r, const char *key, double v, int prec);
void lsc__rec_str(struct lsc__rec *r, const char *key, const char *v); /* copied */

/* The fields added after this call are detail: a brief human line (the
 * default, docs/log-format.md "Brief and verbose lines") leaves them out,
 * LOADSCOPE=verbose, JSON and the trace keep them. */
void lsc__rec_detail(struct lsc__rec *r);

/*
 * Render @r in @fmt behind @prefix (may be NULL) into @out, newline included,
 * NUL-terminated. Never overflows: a line that does not fit loses fields from
 * the end, then the end of its sentence (cut between characters), and gets
 * "trunc=1"; a capacity too small for the prefix, the tag and the event
 * (with 24 bytes kept for the marker) gives no line. Return: the length
 * written (without the NUL), 0 for no line.
 */
size_t lsc__rec_render(const struct lsc__rec *r, enum lsc_format fmt, const char *prefix,
		       char *out, size_t cap);

/* ---- parsing ---------------------------------------------------------------- */

struct lsc__kv {
	const char *key;
	const char *val; /* unquoted, unescaped */
};

struct lsc__parsed {
	int version;            /* the format version in the tag */
	enum lsc_format format;
	const char *event;
	const char *human;      /* "" for JSON lines without "msg" */
	size_t tag_offset;      /* where the tag starts in the input line */
	unsigned n;
	struct lsc__kv kv[LSC__FIELDS_MAX];
	unsigned damaged;       /* fields dropped because the line was cut */
	/* one bit per hash of a key's first three bytes: a lookup of a key
	 * the line lacks (most of a reader's lookups) ends at its bit */
	uint64_t keys[4];
};

/*
 * Find and parse a loadscope line inside @line (any prefix before the tag).
 * @line is modified in place (tokens are NUL-terminated and unescaped);
 * @len is its length, which need not be NUL-terminated but must be writable
 * up to line[len] (one byte more). Parsed pointers point into @line.
 * Return: 1 parsed, 0 no loadscope tag in the line, -EINVAL a tag with a
 * malformed rest (the event could not be read).
 */
int lsc__line_parse(char *line, size_t len, struct lsc__parsed *out);

/* Add @key=@val unless the line has @key already (a reader filling in what
 * a cut line's sentence gives; both strings must outlive @p). Return 1
 * added, 0 present, -ENOSPC no room. */
int lsc__parsed_add(struct lsc__parsed *p, const char *key, const char *val);

/* Look up a field; NULL when absent. */
const char *lsc__parsed_get(const struct lsc__parsed *p, const char *key);
/* Numeric lookups: 0 and *v set, or -ENOENT (absent) / -EINVAL (not a number). */
int lsc__parsed_f64(const struct lsc__parsed *p, const char *key, double *v);
int lsc__parsed_i64(const struct lsc__parsed *p, const char *key, int64_t *v);

#endif
