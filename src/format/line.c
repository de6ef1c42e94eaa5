/*
 * The line grammar: writer and parser in one file, so that what the profiler
 * prints and what `loadscope triage` reads can never disagree. See line.h for
 * the shape and docs/log-format.md for the contract.
 *
 * The parser works in place on a line the caller owns and never allocates:
 * triage feeds it every line of logs of any size, and fuzzers feed it
 * garbage. A line cut short (a truncated paste) keeps every field that was
 * complete and counts the rest as damaged.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/c_locale.h"
#include "format/escape.h"
#include "format/line.h"

/* ---- writer ----------------------------------------------------------------- */

void lsc__rec_init(struct lsc__rec *r, const char *event)
{
	r->event = event;
	r->human[0] = '\0';
	r->hlen = 0;
	r->n = 0;
	r->slen = 0;
	r->truncated = 0;
	r->in_detail = 0;
	r->detail_line = 0;
	r->brief = 0;
}

void lsc__rec_detail(struct lsc__rec *r)
{
	r->in_detail = 1;
}

void lsc__rec_say(struct lsc__rec *r, const char *fmt, ...)
{
	size_t room = sizeof(r->human) - r->hlen;
	if (room <= 1) {
		r->truncated++;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	locale_t loc = lsc__c_locale_enter();
	int n = vsnprintf(r->human + r->hlen, room, fmt, ap);
	lsc__c_locale_leave(loc);
	va_end(ap);
	if (n < 0)
		return;
	size_t added = (size_t)n < room ? (size_t)n : room - 1;
	if ((size_t)n >= room)
		r->truncated++;
	/* The sentence must never look like the field separator or break the
	 * line: a '|' or a control character would make a parser misread it.
	 * Invalid UTF-8 (a file name's, or a character cut by the bound)
	 * becomes '?', so both forms of the line stay valid UTF-8; the exact
	 * bytes are in the fields. */
	char *h = r->human;
	for (size_t i = r->hlen; i < r->hlen + added;) {
		unsigned char c = (unsigned char)h[i];
		size_t k = 1;
		if (c == '|')
			h[i] = '/';
		else if (c < 0x20 || c == 0x7f)
			h[i] = ' ';
		else if (c >= 0x80 && (k = lsc__utf8_seq(h + i)) == 0)
			h[i] = '?', k = 1;
		i += k;
	}
	r->hlen += added;
}

static struct lsc__field *rec_add(struct lsc__rec *r, const char *key, enum lsc__vtype t)
{
	if (r->n >= LSC__FIELDS_MAX) {
		r->truncated++;
		return NULL;
	}
	struct lsc__field *f = &r->f[r->n++];
	f->key = key;
	f->type = t;
	f->prec = 0;
	f->detail = r->in_detail;
	return f;
}

void lsc__rec_i64(struct lsc__rec *r, const char *key, int64_t v)
{
	struct lsc__field *f = rec_add(r, key, LSC__V_I64);
	if (f)
		f->v.i = v;
}

void lsc__rec_u64(struct lsc__rec *r, const char *key, uint64_t v)
{
	struct lsc__field *f = rec_add(r, key, LSC__V_U64);
	if (f)
		f->v.u = v;
}

void lsc__rec_f64(struct lsc__rec *r, const char *key, double v, int prec)
{
	struct lsc__field *f = rec_add(r, key, LSC__V_F64);
	if (f) {
		f->v.d = v;
		f->prec = prec < 0 ? 0 : prec > 9 ? 9 : prec;
	}
}

void lsc__rec_str(struct lsc__rec *r, const char *key, const char *v)
{
	if (!v)
		v = "n/a";
	size_t len = strlen(v);
	if (r->slen + len + 1 > sizeof(r->strbuf)) {
		r->truncated++;
		return;
	}
	struct lsc__field *f = rec_add(r, key, LSC__V_STR);
	if (!f)
		return;
	char *dst = r->strbuf + r->slen;
	memcpy(dst, v, len + 1);
	r->slen += len + 1;
	f->v.s = dst;
}

/* A bounded output cursor: appends never overflow, and `full` says a piece
 * did not fit so the caller can roll back to the last whole field. */
struct out {
	char *buf;
	size_t cap, len;
	int full;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->full || o->len + n >= o->cap) {
		o->full = 1;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void putf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct out *o, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(o, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static int bare_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("._:/+@%-", c) != NULL;
}

static int is_bare(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!bare_char((unsigned char)*s))
			return 0;
	return 1;
}

/* A quoted string (escape.h says how). With @cut, a string that does not
 * fit is cut after its last whole character and still closed, so the line
 * stays valid; return 1 then. Without, a string that does not fit sets
 * o->full and the caller rolls the field back. */
static int put_quoted_cut(struct out *o, const char *s, int json, int cut)
{
	put(o, "\"", 1);
	while (*s && !o->full) {
		char e[LSC__ESC_MAX];
		size_t n;
		size_t used = lsc__esc_char(s, json, e, &n);
		if (cut && o->len + n + 1 >= o->cap) {
			put(o, "\"", 1);
			return 1;
		}
		put(o, e, n);
		s += used;
	}
	put(o, "\"", 1);
	return 0;
}

static void put_quoted(struct out *o, const char *s, int json)
{
	put_quoted_cut(o, s, json, 0);
}

static void put_value(struct out *o, const struct lsc__field *f, int json)
{
	switch (f->type) {
	case LSC__V_I64:
		putf(o, "%lld", (long long)f->v.i);
		break;
	case LSC__V_U64:
		putf(o, "%llu", (unsigned long long)f->v.u);
		break;
	case LSC__V_F64:
		if (!isfinite(f->v.d))
			puts_(o, json ? "\"n/a\"" : "n/a");
		else
			putf(o, "%.*f", f->prec, f->v.d);
		break;
	case LSC__V_STR:
		if (!json && is_bare(f->v.s))
			puts_(o, f->v.s);
		else
			put_quoted(o, f->v.s, json);
		break;
	}
}

size_t lsc__rec_render(const struct lsc__rec *r, enum lsc_format fmt, const char *prefix,
		       char *out, size_t cap)
{
	if (!out || cap == 0)
		return 0;
	/* Keep room for the truncation marker and the newline whatever happens. */
	const size_t reserve = 24;
	struct out o = {out, cap > reserve ? cap - reserve : 0, 0, 0};
	int json = fmt == LSC_FORMAT_JSON;
	unsigned truncated = r->truncated;
	locale_t loc = lsc__c_locale_enter();

	if (prefix)
		puts_(&o, prefix);
	if (json) {
		putf(&o, "{\"loadscope\":%d,\"event\":", LSC_LINE_FORMAT_VERSION);
		put_quoted(&o, r->event, 1);
		puts_(&o, ",\"msg\":");
		truncated += (unsigned)put_quoted_cut(&o, r->human, 1, 1);
	} else {
		putf(&o, LSC__TAG "%d] ", LSC_LINE_FORMAT_VERSION);
		puts_(&o, r->event);
		if (r->hlen) {
			put(&o, " ", 1);
			/* Cut a sentence that does not fit at a character boundary,
			 * with room left for the " |" that starts the fields. */
			size_t h = r->hlen;
			if (!o.full && o.len + h + 3 >= o.cap) {
				h = o.cap > o.len + 3 ? o.cap - o.len - 3 : 0;
				while (h && ((unsigned char)r->human[h] & 0xc0) == 0x80)
					h--;
				truncated++;
			}
			put(&o, r->human, h);
		}
		if (r->n)
			puts_(&o, " |");
	}
	if (o.full) {
		/* Not even the prefix, the tag and the event fit (the sentence is
		 * cut to fit above): no line rather than a broken one. Only a
		 * capacity far below LSC__LINE_MAX gets here. */
		out[0] = '\0';
		lsc__c_locale_leave(loc);
		return 0;
	}
	for (unsigned i = 0; i < r->n; i++) {
		if (!json && r->brief && r->f[i].detail)
			continue;
		size_t mark = o.len;
		if (json) {
			put(&o, ",", 1);
			put_quoted(&o, r->f[i].key, 1);
			put(&o, ":", 1);
		} else {
			put(&o, " ", 1);
			puts_(&o, r->f[i].key);
			put(&o, "=", 1);
		}
		put_value(&o, &r->f[i], json);
		if (o.full) {
			o.len = mark;
			truncated += r->n - i;
			break;
		}
	}
	/* The reserve is ours now. */
	o.cap = cap;
	o.full = 0;
	if (truncated)
		puts_(&o, json ? ",\"trunc\":1" : " trunc=1");
	if (json)
		put(&o, "}", 1);
	put(&o, "\n", 1);
	out[o.len] = '\0';
	lsc__c_locale_leave(loc);
	return o.len;
}

/* ---- parser ------------------------------------------------------------------ */

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* The bytes of a key or an event name, as a table: the parser tests every
 * byte of every field's key, on every line of a log the triage reads. */
#define KEY_ROW(c)                                                                                 \
	(((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z') || ((c) >= '0' && (c) <= '9') || \
	 (c) == '_' || (c) == '.' || (c) == '-' || (c) == ':')
#define KEY_ROW4(c) KEY_ROW(c), KEY_ROW((c) + 1), KEY_ROW((c) + 2), KEY_ROW((c) + 3)
#define KEY_ROW16(c) KEY_ROW4(c), KEY_ROW4((c) + 4), KEY_ROW4((c) + 8), KEY_ROW4((c) + 12)
static const unsigned char key_chars[256] = {
	KEY_ROW16(0x00), KEY_ROW16(0x10), KEY_ROW16(0x20), KEY_ROW16(0x30),
	KEY_ROW16(0x40), KEY_ROW16(0x50), KEY_ROW16(0x60), KEY_ROW16(0x70),
};

static int key_char(unsigned char c)
{
	return key_chars[c];
}

/* Unescape a quoted string starting after the opening quote, in place.
 * Returns a pointer just past the closing quote, or NULL if unterminated. */
static char *unquote(char *s, char *end, int json, char **val)
{
	char *w = s;
	*val = s;
	while (s < end) {
		char c = *s++;
		if (c == '"') {
			*w = '\0';
			return s;
		}
		if (c != '\\') {
			*w++ = c;
			continue;
		}
		if (s >= end)
			return NULL;
		c = *s++;
		switch (c) {
		case 'n':
			*w++ = '\n';
			break;
		case 't':
			*w++ = '\t';
			break;
		case 'r':
			*w++ = '\r';
			break;
		case 'x': {
			/* Human lines only: a control character or a byte that is
			 * not UTF-8, kept exactly (escape.h). */
			char hex[3] = {s < end ? s[0] : 0, s + 1 < end ? s[1] : 0, 0};
			char *e;
			unsigned long b = strtoul(hex, &e, 16);
			if (json || e != hex + 2 || hex[0] == '+' || hex[0] == '-' || hex[0] == ' ')
				return NULL;
			s += 2;
			*w++ = (char)b;
			break;
		}
		case 'u': {
			if (!json || end - s < 4)
				return NULL;
			char hex[5] = {s[0], s[1], s[2], s[3], 0};
			char *e;
			unsigned long cp = strtoul(hex, &e, 16);
			if (*e)
				return NULL;
			s += 4;
			/* A surrogate pair is one character; a lone surrogate
			 * becomes '?'. UTF-8 is never longer than the escape
			 * (6 bytes for 3, 12 for 4), so in place is safe. */
			if (cp >= 0xd800 && cp <= 0xdbff && end - s >= 6 && s[0] == '\\' && s[1] == 'u') {
				char lo_hex[5] = {s[2], s[3], s[4], s[5], 0};
				unsigned long lo = strtoul(lo_hex, &e, 16);
				if (!*e && lo >= 0xdc00 && lo <= 0xdfff) {
					s += 6;
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					*w++ = (char)(0xf0 | (cp >> 18));
					*w++ = (char)(0x80 | ((cp >> 12) & 0x3f));
					*w++ = (char)(0x80 | ((cp >> 6) & 0x3f));
					*w++ = (char)(0x80 | (cp & 0x3f));
					break;
				}
			}
			if (cp < 0x80) {
				*w++ = (char)cp;
			} else if (cp < 0x800) {
				*w++ = (char)(0xc0 | (cp >> 6));
				*w++ = (char)(0x80 | (cp & 0x3f));
			} else if (cp >= 0xd800 && cp <= 0xdfff) {
				*w++ = '?';
			} else {
				*w++ = (char)(0xe0 | (cp >> 12));
				*w++ = (char)(0x80 | ((cp >> 6) & 0x3f));
				*w++ = (char)(0x80 | (cp & 0x3f));
			}
			break;
		}
		default:
			*w++ = c; /* \" \\ \/ and anything else: the character itself */
			break;
		}
	}
	return NULL;
}

/* The bit of lsc__parsed.keys for @k. */
static unsigned key_bit(const char *k)
{
	unsigned a = (unsigned char)k[0], b = a ? (unsigned char)k[1] : 0, c = b ? (unsigned char)k[2] : 0;
	return ((a * 31 + b) * 31 + c) & 255;
}

static int add_kv(struct lsc__parsed *p, const char *k, const char *v)
{
	if (p->n >= LSC__FIELDS_MAX) {
		p->damaged++;
		return -1;
	}
	unsigned b = key_bit(k);
	p->keys[b >> 6] |= 1ull << (b & 63);
	p->kv[p->n].key = k;
	p->kv[p->n].val = v;
	p->n++;
	return 0;
}

static int parse_human(char *tag, char *end, struct lsc__parsed *out)
{
	char *s = tag + strlen(LSC__TAG);
	char *e;
	long ver = strtol(s, &e, 10);
	if (e == s || e >= end || *e != ']' || ver < 1 || ver > 1000)
		return -EINVAL;
	out->version = (int)ver;
	out->format = LSC_FORMAT_HUMAN;
	s = e + 1;
	while (s < end && is_space(*s))
		s++;
	char *ev = s;
	while (s < end && (key_char((unsigned char)*s)))
		s++;
	if (s == ev)
		return -EINVAL;
	char *ev_end = s;
	/* The sentence runs to the first " |" that is followed by a space or
	 * the end: the writer never lets '|' into the sentence. */
	char *sep = NULL;
	for (char *q = s; q + 1 < end && (q = memchr(q + 1, '|', (size_t)(end - q - 1))); ) {
		if (q[-1] == ' ' && (q + 1 >= end || q[1] == ' ')) {
			sep = q - 1;
			break;
		}
	}
	char *h = s;
	while (h < end && is_space(*h))
		h++;
	char *fields = sep ? sep + 2 : end;
	*ev_end = '\0';
	out->event = ev;
	if (sep)
		*sep = '\0';
	out->human = h <= (sep ? sep : end) ? h : "";
	if (!sep)
		return 1;

	s = fields;
	while (s < end) {
		while (s < end && is_space(*s))
			s++;
		if (s >= end)
			break;
		char *k = s;
		while (s < end && key_char((unsigned char)*s))
			s++;
		if (s == k || s >= end || *s != '=') {
			/* Not a field: a damaged tail. Skip the token. */
			out->damaged++;
			while (s < end && !is_space(*s))
				s++;
			continue;
		}
		*s++ = '\0';
		char *v;
		if (s < end && *s == '"') {
			char *next = unquote(s + 1, end, 0, &v);
			if (!next) {
				out->damaged++;
				break;
			}
			s = next;
		} else {
			v = s;
			while (s < end && !is_space(*s))
				s++;
			if (s < end)
				*s++ = '\0';
			else
				*end = '\0';
		}
		add_kv(out, k, v);
	}
	return 1;
}

static void json_store(struct lsc__parsed *out, char *k, char *v)
{
	if (!strcmp(k, "loadscope"))
		out->version = atoi(v);
	else if (!strcmp(k, "event"))
		out->event = v;
	else if (!strcmp(k, "msg"))
		out->human = v;
	else
		add_kv(out, k, v);
}

static char *skip_ws(char *s, char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

static int parse_json(char *tag, char *end, struct lsc__parsed *out)
{
	char *s = tag + 1; /* past '{' */
	out->format = LSC_FORMAT_JSON;
	out->version = 0;
	out->event = NULL;
	for (;;) {
		s = skip_ws(s, end);
		if (s >= end) {
			out->damaged++;
			break;
		}
		if (*s == '}')
			break;
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s != '"') {
			out->damaged++;
			break;
		}
		char *k;
		char *next = unquote(s + 1, end, 1, &k);
		if (!next) {
			out->damaged++;
			break;
		}
		s = skip_ws(next, end);
		if (s >= end || *s != ':') {
			out->damaged++;
			break;
		}
		s = skip_ws(s + 1, end);
		char *v;
		char delim = 0;
		if (s < end && *s == '"') {
			next = unquote(s + 1, end, 1, &v);
			if (!next) {
				out->damaged++;
				break;
			}
			s = next;
		} else {
			/* A number, true, false or null: the bare token. */
			v = s;
			while (s < end && *s != ',' && *s != '}' && !is_space(*s))
				s++;
			if (s == v) {
				out->damaged++;
				break;
			}
			delim = s < end ? *s : '\0';
			*s = '\0';
			if (delim)
				s++;
		}
		json_store(out, k, v);
		if (delim == '}')
			break;
	}
	if (out->version < 1 || !out->event || !*out->event)
		return -EINVAL;
	return 1;
}

int lsc__line_parse(char *line, size_t len, struct lsc__parsed *out)
{
	if (!line || !out)
		return -EINVAL;
	/* not a memset: kv[] is read only up to n, and it is 1.5 KiB */
	out->version = 0;
	out->format = 0;
	out->event = NULL;
	out->tag_offset = 0;
	out->n = 0;
	out->damaged = 0;
	memset(out->keys, 0, sizeof(out->keys));
	out->human = "";
	line[len] = '\0';
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	char *end = line + len;

	/* strstr, vectorised, where the line holds no NUL (the triage's lines
	 * never do); memmem for the rest */
	int cstr = strlen(line) == len;
	char *h = cstr ? strstr(line, LSC__TAG) : memmem(line, len, LSC__TAG, strlen(LSC__TAG));
	/* the first tag wins: a JSON tag counts only where it begins before h */
	size_t jn = h ? (size_t)(h - line) + strlen(LSC__JSON_TAG) - 1 : len;
	char *j = cstr && !h ? strstr(line, LSC__JSON_TAG)
			     : memmem(line, jn < len ? jn : len, LSC__JSON_TAG, strlen(LSC__JSON_TAG));
	if (!h && !j)
		return 0;
	char *tag = (h && (!j || h < j)) ? h : j;
	out->tag_offset = (size_t)(tag - line);
	return tag == h ? parse_human(tag, end, out) : parse_json(tag, end, out);
}

int lsc__parsed_add(struct lsc__parsed *p, const char *key, const char *val)
{
	if (!key || !val || lsc__parsed_get(p, key))
		return 0;
	return add_kv(p, key, val) < 0 ? -ENOSPC : 1;
}

const char *lsc__parsed_get(const struct lsc__parsed *p, const char *key)
{
	/* a phase line has dozens of fields, and the triage asks each line
	 * for a dozen keys, most of which it lacks */
	unsigned b = key_bit(key);
	if (!(p->keys[b >> 6] >> (b & 63) & 1))
		return NULL;
	for (unsigned i = 0; i < p->n; i++)
		if (p->kv[i].key[0] == key[0] && !strcmp(p->kv[i].key, key))
			return p->kv[i].val;
	return NULL;
}

/* A plain decimal ("-12", "0.259") of at most 15 digits, read exactly: the
 * digits make an integer below 2^53 and the power of ten is exact, so one
 * division rounds as strtod does (Clinger's fast path). 0 when @s is not
 * that shape, for strtod to decide. The triage reads a dozen numbers off
 * every loadscope line; strtod and its locale switch cost ten times more. */
static int plain_decimal(const char *s, double *v)
{
	static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
				       1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
	int neg = *s == '-';
	s += neg;
	uint64_t m = 0;
	int digits = 0, frac = -1;
	for (;; s++) {
		if (*s >= '0' && *s <= '9') {
			if (++digits > 15)
				return 0;
			m = m * 10 + (uint64_t)(*s - '0');
			if (frac >= 0)
				frac++;
		} else if (*s == '.' && frac < 0 && digits) {
			frac = 0;
		} else {
			break;
		}
	}
	if (*s || !digits || frac == 0)
		return 0; /* "1.", "1e5", "0x1", trailing bytes: strtod's to judge */
	double d = (double)m / pow10[frac > 0 ? frac : 0];
	*v = neg ? -d : d;
	return 1;
}

int lsc__parsed_f64(const struct lsc__parsed *p, const char *key, double *v)
{
	const char *s = lsc__parsed_get(p, key);
	if (!s)
		return -ENOENT;
	if (plain_decimal(s, v))
		return 0;
	char *e;
	/* A decimal point is '.', whatever locale the engine set. */
	locale_t loc = lsc__c_locale_enter();
	double d = strtod(s, &e);
	lsc__c_locale_leave(loc);
	if (e == s || *e || !isfinite(d))
		return -EINVAL;
	*v = d;
	return 0;
}

int lsc__parsed_i64(const struct lsc__parsed *p, const char *key, int64_t *v)
{
	const char *s = lsc__parsed_get(p, key);
	if (!s)
		return -ENOENT;
	char *e;
	errno = 0;
	long long x = strtoll(s, &e, 10);
	if (e == s || *e || errno)
		return -EINVAL;
	*v = x;
	return 0;
}
