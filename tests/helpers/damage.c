/*
 * Paste damage (see damage.h): each kind is a line transform or a wrapper
 * around the whole text, written the way real reports show it
 * (../shared/reference/triage.md lists what vLLM, llama.cpp and ollama issues
 * look like). Timestamps added by a prefix are constant: they claim nothing
 * about durations, so a triage that measured time from them would be wrong,
 * not this damage.
 */
#include "helpers/damage.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[DMG_N] = {
	"crlf", "ansi", "quote", "quote2", "fence", "fence-nested", "details", "bold",
	"syslog", "journald", "pidchain", "ts-iso", "ts-bracket", "ts-elapsed", "engine", "all", "all-foreign",
};

const char *dmg_name(enum dmg_kind k)
{
	return (unsigned)k < DMG_N ? names[k] : NULL;
}

void dmg_free(struct dmg_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

static int put(struct dmg_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static int puts_(struct dmg_buf *b, const char *s)
{
	return put(b, s, strlen(s));
}

uint64_t dmg_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

size_t dmg_cut_point(uint64_t seed, size_t len)
{
	if (len < 2)
		return 0;
	uint64_t s = seed;
	return 1 + (size_t)(dmg_rand(&s) % (len - 1));
}

/* ---- numbers with a unit (bold, ANSI) ------------------------------------ */

static const char *const units[] = {
	"GiB/s", "MiB/s", "GB/s", "MB/s", "seconds", "GiB", "MiB", "GB", "MB", "min", "ms", "s", NULL,
};

/* Length of a unit at @p (after optional single space), 0 when none. */
static size_t unit_at(const char *p, const char *end)
{
	for (const char *const *u = units; *u; u++) {
		size_t n = strlen(*u);
		if ((size_t)(end - p) >= n && memcmp(p, *u, n) == 0 &&
		    (p + n == end || !isalnum((unsigned char)p[n])))
			return n;
	}
	return 0;
}

/*
 * Find the next "number [space] unit" in [p, end): set *ns and *ne to the span
 * (number through unit). A number starts at a boundary (not after a letter,
 * digit, '.', '=' or '_') and is digits with at most one decimal point.
 */
static int next_measure(const char *p, const char *end, const char **ns, const char **ne)
{
	for (const char *q = p; q < end; q++) {
		if (!isdigit((unsigned char)*q))
			continue;
		if (q != p) {
			unsigned char c = (unsigned char)q[-1];
			if (isalnum(c) || c == '.' || c == '=' || c == '_' || c == '+' || c == '-')
				goto skip;
		}
		const char *r = q;
		while (r < end && isdigit((unsigned char)*r))
			r++;
		if (r + 1 < end && *r == '.' && isdigit((unsigned char)r[1])) {
			r++;
			while (r < end && isdigit((unsigned char)*r))
				r++;
		}
		if (r < end && (*r == '.' || isalnum((unsigned char)*r) || *r == ',')) {
			/* a version, an address, a word: not a measure (unless a unit is glued: "119.64s") */
			size_t u = unit_at(r, end);
			if (u && r + u <= end) {
				*ns = q;
				*ne = r + u;
				return 1;
			}
			q = r;
			continue;
		}
		if (r < end && *r == ' ') {
			size_t u = unit_at(r + 1, end);
			if (u) {
				*ns = q;
				*ne = r + 1 + u;
				return 1;
			}
		}
		q = r;
		continue;
skip:
		while (q + 1 < end && isalnum((unsigned char)q[1]))
			q++;
	}
	return 0;
}

/* ---- per-line transforms ------------------------------------------------- */

typedef int (*line_fn)(struct dmg_buf *o, const char *s, size_t n, unsigned long no);

static int l_crlf(struct dmg_buf *o, const char *s, size_t n, unsigned long no)
{
	(void)no;
	return put(o, s, n) || puts_(o, "\r\n");
}

static int l_ansi(struct dmg_buf *o, const char *s, size_t n, unsigned long no)
{
	(void)no;
	const char *end = s + n, *sp = memchr(s, ' ', n);
	int rc = puts_(o, "\x1b[2m");
	if (!sp)
		return rc || put(o, s, n) || puts_(o, "\x1b[0m\n");
	rc = rc || put(o, s, (size_t)(sp - s)) || puts_(o, "\x1b[0m");
	const char *ns, *ne;
	if (next_measure(sp, end, &ns, &ne))
		rc = rc || put(o, sp, (size_t)(ns - sp)) || puts_(o, "\x1b[1;36m") ||
		     put(o, ns, (size_t)(ne - ns)) || puts_(o, "\x1b[0m") || put(o, ne, (size_t)(end - ne));
	else
		rc = rc || put(o, sp, (size_t)(end - sp));
	return rc || puts_(o, "\x1b[K\n");
}

static int l_quote(struct dmg_buf *o, const char *s, size_t n, unsigned long no)
{
	(void)no;
	return (n ? puts_(o, "> ") : puts_(o, ">")) || put(o, s, n) || puts_(o, "\n");
}

static int l_quote2(struct dmg_buf *o, const char *s, size_t n, unsigned long no)
{
	(void)no;
	return (n ? puts_(o, "> > ") : puts_(o, "> >")) || put(o, s, n) || puts_(o, "\n");
}

static int l_bold(struct dmg_buf *o, const char *s, size_t n, unsigned long no)
{
	(void)no;
	const char *p = s, *end = s + n, *ns, *ne;
	int rc = 0;
	while (!rc && next_measure(p, end, &ns, &ne)) {
		rc = put(o, p, (size_t)(ns - p)) || puts_(o, "**") || put(o, ns, (size_t)(ne - ns)) ||
		     puts_(o, "**");
		p = ne;
	}
	return rc || put(o, p, (size_t)(end - p)) || puts_(o, "\n");
}

static int prefixed(struct dmg_buf *o, const char *pre, const char *s, size_t n)
{
	return puts_(o, pre) || put(o, s, n) || puts_(o, "\n");
}

static int l_syslog(struct dmg_buf *o, const char *s, size_t n, unsigned long no)
{
	(void)no;
	return prefixed(o, "Oct 16 15:39:01 host strata[1234]: ", s, n);
}

static int l_journald(struct dmg_buf *o, const char *s, size_t n, unsigned long no)
{
	int rc = 0;
	if (no == 1)
		rc = puts_(o, "Oct 16 15:39:01 host systemd[1]: Starting strata.service - Strata inference server...\n"
			      "\xe2\x96\x91\xe2\x96\x91 Subject: A start job for unit strata.service has begun execution\n"
			      "\xe2\x96\x91\xe2\x96\x91 Defined-By: systemd\n"
			      "\xe2\x96\x91\xe2\x96\x91 Support: https://www.debian.org/support\n"
			      "\xe2\x96\x91\xe2\x96\x91 \n"
			      "\xe2\x96\x91\xe2\x96\x91 A start job for unit strata.service has begun execution.\n"
			      "Oct 16 15:39:01 host systemd[1]: Started strata.service - Strata inference server.\n");
	else if (no % 40 == 0)
		rc = puts_(o, "Oct 16 15:39:01 host systemd-journald[312]: Suppressed 1043 messages from strata.service\n");
	return rc || prefixed(o, "Oct 16 15:39:01 host strata[1234]: ", s, n);
}

static int l_pidchain(struct dmg_buf *o, const char *s, size_t n, unsigned long no)
{
	(void)no;
	return prefixed(o, "(EngineCore_0 pid=1401) (RayWorker pid=42) ", s, n);
}

static int l_ts_iso(struct dmg_buf *o, const char *s, size_t n, unsigned long no)
{
	(void)no;
	return prefixed(o, "2026-10-16T15:39:01.123456Z ", s, n);
}

static int l_ts_bracket(struct dmg_buf *o, const char *s, size_t n, unsigned long no)
{
	(void)no;
	return prefixed(o, "[2026-10-16 15:39:01.123] ", s, n);
}

static int l_ts_elapsed(struct dmg_buf *o, const char *s, size_t n, unsigned long no)
{
	(void)no;
	return prefixed(o, "0.00.189.951 I ", s, n);
}

static int l_engine(struct dmg_buf *o, const char *s, size_t n, unsigned long no)
{
	(void)no;
	return prefixed(o, "strata generate: ", s, n);
}

/*
 * Apply @fn to every line of @in. A last line without '\n' keeps having none
 * (the transform's own newline is taken back off), so a cut log stays cut.
 */
static int each_line(line_fn fn, const char *in, size_t len, struct dmg_buf *o)
{
	const char *p = in, *end = in + len;
	unsigned long no = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (fn(o, p, n, ++no))
			return -ENOMEM;
		if (!nl) {
			/* drop the newline the transform added (and a CR before it) */
			if (o->len && o->p[o->len - 1] == '\n')
				o->len--;
			if (fn == l_crlf && o->len && o->p[o->len - 1] == '\r')
				o->len--;
			o->p[o->len] = '\0';
			break;
		}
		p = nl + 1;
	}
	if (!o->p)
		return put(o, "", 0);
	return 0;
}

static int ends_nl(const char *in, size_t len)
{
	return len == 0 || in[len - 1] == '\n';
}

static int wrap(const char *head, const char *in, size_t len, const char *tail, struct dmg_buf *o)
{
	/* a cut log has no end: a paste of it has no closing markup either */
	if (!ends_nl(in, len))
		return puts_(o, head) || put(o, in, len);
	return puts_(o, head) || put(o, in, len) || puts_(o, tail);
}

static int apply1(enum dmg_kind k, const char *in, size_t len, struct dmg_buf *o)
{
	switch (k) {
	case DMG_CRLF: return each_line(l_crlf, in, len, o);
	case DMG_ANSI: return each_line(l_ansi, in, len, o);
	case DMG_QUOTE: return each_line(l_quote, in, len, o);
	case DMG_QUOTE2: return each_line(l_quote2, in, len, o);
	case DMG_FENCE: return wrap("```\n", in, len, "```\n", o);
	case DMG_FENCE_NESTED: return wrap("````\n```text\n", in, len, "```\n````\n", o);
	case DMG_DETAILS:
		return wrap("<details><summary>log</summary>\n\n```console\n", in, len, "```\n\n</details>\n", o);
	case DMG_BOLD: return each_line(l_bold, in, len, o);
	case DMG_SYSLOG: return each_line(l_syslog, in, len, o);
	case DMG_JOURNALD: {
		int rc = each_line(l_journald, in, len, o);
		if (!rc && ends_nl(in, len))
			rc = puts_(o, "Oct 16 15:47:12 host systemd[1]: strata.service: Consumed 4min 12.345s CPU time.\n");
		return rc;
	}
	case DMG_PIDCHAIN: return each_line(l_pidchain, in, len, o);
	case DMG_TS_ISO: return each_line(l_ts_iso, in, len, o);
	case DMG_TS_BRACKET: return each_line(l_ts_bracket, in, len, o);
	case DMG_TS_ELAPSED: return each_line(l_ts_elapsed, in, len, o);
	case DMG_ENGINE: return each_line(l_engine, in, len, o);
	default: return -EINVAL;
	}
}

int dmg_apply(enum dmg_kind k, const char *in, size_t len, struct dmg_buf *out)
{
	out->len = 0;
	if (out->p)
		out->p[0] = '\0';
	if ((unsigned)k >= DMG_N)
		return -EINVAL;
	if (k != DMG_ALL && k != DMG_ALL_FOREIGN) {
		int rc = apply1(k, in, len, out);
		if (rc)
			dmg_free(out);
		return rc;
	}
	/* innermost first: the engine's prefix, the launcher's pid chain, a
	 * timestamp, the journal; then what the person pasting does */
	static const enum dmg_kind order[] = {
		DMG_ENGINE, DMG_PIDCHAIN, DMG_TS_BRACKET, DMG_JOURNALD, DMG_BOLD, DMG_ANSI,
		DMG_FENCE_NESTED, DMG_DETAILS, DMG_QUOTE2, DMG_CRLF,
	};
	struct dmg_buf a = {0}, b = {0};
	if (put(&a, in, len))
		return -ENOMEM;
	for (size_t i = k == DMG_ALL_FOREIGN ? 1 : 0; i < sizeof order / sizeof order[0]; i++) {
		b.len = 0;
		if (apply1(order[i], a.p, a.len, &b)) {
			dmg_free(&a);
			dmg_free(&b);
			dmg_free(out);
			return -ENOMEM;
		}
		struct dmg_buf t = a;
		a = b;
		b = t;
	}
	dmg_free(&b);
	dmg_free(out);
	*out = a;
	return 0;
}
