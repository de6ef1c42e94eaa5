/*
 * Undo what pasting does to a log line, in place, before any recogniser sees
 * it: CR line ends, ANSI colour, markdown `> ` quoting, code fences (nested
 * ones too: a fence line is markup whatever its depth), <details>/<summary>
 * tags, `**bold**` and `code` marks around numbers, and the prefixes that
 * loggers, journald and process managers put in front of a message (syslog,
 * ISO and bracketed timestamps, `(Name pid=N)` chains, `[pid N]`, vLLM's
 * `INFO 10-16 15:39:01 [file.py:12]` and its older `file.py:12]`, llama.cpp's
 * `0.00.189.951 I`, a launcher's `[name]: ` tag, docker compose's `name  | `).
 *
 * The original line number travels with the line (tr_line.no), so evidence
 * quotes what the user can find in their own paste. A leading wall-clock
 * timestamp is kept as seconds of the day: a start's duration can then be
 * measured from engines that never print one (triage.md: in one vLLM report
 * 30 s of a 59 s start were logged nowhere).
 */
#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/* The bytes of an engine's own prefix ("strata generate: "): letters (the C
 * locale's, the triage's), ' ', '-' and '_'. A table: every line is tested. */
#define PFX(c) ((((c) | 0x20) >= 'a' && ((c) | 0x20) <= 'z') || (c) == ' ' || (c) == '-' || (c) == '_')
#define PFX4(c) PFX(c), PFX((c) + 1), PFX((c) + 2), PFX((c) + 3)
#define PFX16(c) PFX4(c), PFX4((c) + 4), PFX4((c) + 8), PFX4((c) + 12)
static const unsigned char prefix_byte[256] = {
	PFX16(0x00), PFX16(0x10), PFX16(0x20), PFX16(0x30), PFX16(0x40), PFX16(0x50), PFX16(0x60), PFX16(0x70),
};

static int is_fence(const char *p, const char *end)
{
	if (end - p >= 3 && ((p[0] == '`' && p[1] == '`' && p[2] == '`') ||
			     (p[0] == '~' && p[1] == '~' && p[2] == '~')))
		return 1;
	return 0;
}

/* Markup tags removed wherever they sit (the text between them is kept). */
static const char *const tags[] = {"<details>", "</details>", "<summary>", "</summary>", "<br>",
				   "<br/>", "<pre>", "</pre>", "<code>", "</code>", "<b>", "</b>",
				   "<p>", "</p>", NULL};

static size_t tag_len(const char *p, const char *end)
{
	/* every tag's second byte is one of these: most '<' of a log are not tags */
	if (end - p < 3 || !strchr("/bBcCdDpPsS", p[1]) || !p[1])
		return 0;
	for (const char *const *t = tags; *t; t++) {
		size_t n = strlen(*t);
		if ((size_t)(end - p) >= n && !strncasecmp(p, *t, n))
			return n;
	}
	/* <details open>, <summary class="..."> */
	if (end - p > 9 && (!strncasecmp(p, "<details ", 9) || !strncasecmp(p, "<summary ", 9))) {
		const char *q = memchr(p, '>', (size_t)(end - p));
		if (q)
			return (size_t)(q - p) + 1;
	}
	return 0;
}

/* Does @s hold a byte >= 0x80? Sixteen bytes at a time: most log lines are ASCII. */
static int any_high(const char *s, size_t n)
{
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		uint64_t x, y;
		memcpy(&x, s + i, 8);
		memcpy(&y, s + i + 8, 8);
		if ((x | y) & 0x8080808080808080ull)
			return 1;
	}
	for (; i + 8 <= n; i += 8) {
		uint64_t x;
		memcpy(&x, s + i, 8);
		if (x & 0x8080808080808080ull)
			return 1;
	}
	if (i < n && n >= 8) { /* the last eight bytes, some seen already */
		uint64_t x;
		memcpy(&x, s + n - 8, 8);
		return (x & 0x8080808080808080ull) != 0;
	}
	for (; i < n; i++)
		if ((unsigned char)s[i] >= 0x80)
			return 1;
	return 0;
}

/* Is every multi-byte sequence in @s valid UTF-8? (Invalid bytes pass
 * through; they are only replaced where quoted, tr_sanitize.) */
static int valid_utf8(const char *s, size_t n)
{
	for (size_t r = 0; r < n;) {
		unsigned char c = (unsigned char)s[r];
		if (c < 0x80) {
			r++;
			continue;
		}
		int need = c >= 0xc2 && c < 0xe0 ? 1 : c >= 0xe0 && c < 0xf0 ? 2 : c >= 0xf0 && c < 0xf5 ? 3 : -1;
		if (need < 0 || r + (size_t)need >= n)
			return 0;
		for (int i = 1; i <= need; i++)
			if (((unsigned char)s[r + i] & 0xc0) != 0x80)
				return 0;
		r += (size_t)need + 1;
	}
	return 1;
}

/* A colour escape whose ESC did not survive as the byte: a web page or an
 * editor replaced it with U+FFFD ("\xef\xbf\xbd[1;36m", as GitHub shows a
 * pasted terminal capture), rsyslog and the collectors behind it
 * (CloudWatch, journald's forwarders) write a control byte as '#' and its
 * three octal digits ("#033[32m INFO#033[0m"), and `cat -v`, less and a
 * terminal shown raw write it in caret notation ("^[[33m", "^[[M"). Each is
 * the stand-in, '[', digits and ';', and a final letter of the ones a
 * colour, an erase or a terminal's mouse report ends in (m K J H M);
 * in caret notation also a key's SS3 ("^[OP": F1 pressed while the log
 * ran, echoed). Its length, or 0 (a stand-in that begins no escape stays, as any text:
 * "#0331" or "^[x" is prose). */
static size_t lost_esc_len(const char *p, const char *end)
{
	size_t sl;
	if (end - p >= 4 && !memcmp(p, "\xef\xbf\xbd[", 4))
		sl = 4;
	else if (end - p >= 5 && !memcmp(p, "#033[", 5))
		sl = 5;
	else if (end - p >= 3 && !memcmp(p, "^[[", 3))
		sl = 3;
	else if (end - p >= 4 && !memcmp(p, "^[O", 3) && strchr("ABCDHFPQRS", p[3]) && p[3])
		return 4; /* a cursor or function key's SS3 ("^[OP", F1) echoed into the paste */
	else
		return 0;
	const char *q = p + sl;
	while (q < end && q - p < 24 && (tr_digit(*q) || *q == ';'))
		q++;
	return q < end && *q && strchr("mKJHM", *q) ? (size_t)(q + 1 - p) : 0;
}

/* A colour escape that lost its ESC with no stand-in, or with a space in
 * its place, as a browser's copy of a terminal capture leaves it
 * (`[2mtext_generation_launcher [0m [2m: [0m Args`, `[32m INFO`): '[',
 * one to three parameters (digits and ';'), 'm', and not ']' or seconds
 * after it (`[0m]`, `[2m30s`: text in brackets, a duration). Its length, or 0. */
static size_t bare_sgr_len(const char *p, const char *end)
{
	const char *q = p + 1;
	while (q < end && q - p <= 8 && (tr_digit(*q) || *q == ';'))
		q++;
	if (q == p + 1 || q - p > 8 || q >= end || *q != 'm' || !tr_digit(p[1]))
		return 0;
	q++;
	const char *d = q;
	while (d < end && tr_digit(*d))
		d++;
	int dur = d > q && d < end && *d == 's' && (d + 1 == end || !tr_alpha(d[1]));
	return (q < end && *q == ']') || dur ? 0 : (size_t)(q - p);
}

/* How a line holds such bare escapes, from the first one at @p (@s the
 * line, whose bytes from @p on are still the original ones): 0 not at all
 * (no reset `[0m` among them: `[37m 36s elapsed]` is a launcher's
 * counter, `[1m` alone a name), 1 strip them, 2 strip them with the space
 * before each (every one at the line's start or after a space: the space
 * stood for the ESC, `launcher [0m [2m: [0m Args` is `launcher: Args`).
 * Asked once per line, at its first candidate: lines with one are rare. */
static int bare_sgr_mode(const char *s, const char *p, const char *end)
{
	int reset = 0, spaced = 1;
	for (const char *q = p; q && q < end; q = memchr(q + 1, '[', (size_t)(end - q - 1))) {
		size_t el = bare_sgr_len(q, end);
		if (!el)
			continue;
		reset |= (el == 3 && q[1] == '0') || (el == 4 && q[1] == '0' && q[2] == '0');
		spaced &= q == s || q[-1] == ' ';
	}
	return !reset ? 0 : spaced ? 2 : 1;
}

/* Remove ANSI escapes, tags, bold and backtick marks, CR and NUL; flag
 * invalid UTF-8. The runs between special bytes are found with strcspn
 * (vectorised in libc): most lines have none. @s[len] must be NUL. */
static size_t compact(char *s, size_t len, unsigned *flags)
{
	static const char specials[] = "\x1b*`<\r\xef#^[";
	int bare = -1; /* bare_sgr_mode of the line, once asked */
	if (any_high(s, len) && !valid_utf8(s, len))
		*flags |= TR_L_BADUTF8;
	size_t r = 0, w = 0;
	for (;;) {
		size_t n = strcspn(s + r, specials); /* stops at NUL too */
		if (r + n > len)
			n = len - r;
		if (w != r)
			memmove(s + w, s + r, n);
		w += n;
		r += n;
		if (r >= len)
			break;
		unsigned char c = (unsigned char)s[r];
		if (c == 0x1b) {
			r++;
			if (r < len && s[r] == '[') { /* CSI: params, then a final byte */
				r++;
				while (r < len && !((unsigned char)s[r] >= 0x40 && (unsigned char)s[r] <= 0x7e))
					r++;
				if (r < len)
					r++;
			} else if (r < len && s[r] == ']') { /* OSC: to BEL or ST */
				while (r < len && s[r] != 0x07 && !(s[r] == 0x1b && r + 1 < len && s[r + 1] == '\\'))
					r++;
				/* An unterminated OSC runs to the end of the line:
				 * step past the terminator only when there is one. */
				if (r < len)
					r += s[r] == 0x1b ? 2 : 1;
			} else if (r < len) {
				r++;
			}
			continue;
		}
		if (c == 0xef || c == '#' || c == '^') {
			size_t el = lost_esc_len(s + r, s + len);
			if (el) {
				r += el;
				continue;
			}
			s[w++] = s[r++];
			continue;
		}
		if (c == '[') {
			size_t el = bare == 0 ? 0 : bare_sgr_len(s + r, s + len);
			if (el && bare < 0)
				bare = bare_sgr_mode(s, s + r, s + len);
			if (el && bare > 0) {
				if (bare == 2 && w > 0 && s[w - 1] == ' ')
					w--;
				r += el;
				continue;
			}
			s[w++] = s[r++];
			continue;
		}
		if (c == '*' && r + 1 < len && s[r + 1] == '*') {
			r += 2;
			continue;
		}
		if (c == '`') {
			/* inline code marks go; a run of three or more is a fence, kept
			 * for tr_clean_line to see */
			size_t run = 1;
			while (r + run < len && s[r + run] == '`')
				run++;
			if (run < 3) {
				r += run;
				continue;
			}
			while (run--)
				s[w++] = s[r++];
			continue;
		}
		if (c == '<') {
			size_t tl = tag_len(s + r, s + len);
			if (tl) {
				r += tl;
				continue;
			}
		}
		if (c == '\r' || c == 0) {
			r++;
			continue;
		}
		s[w++] = s[r++];
	}
	return w;
}

static int dig(const char *p, const char *end, int n)
{
	if (end - p < n)
		return 0;
	for (int i = 0; i < n; i++)
		if (!tr_digit(p[i]))
			return 0;
	return 1;
}

/* hh:mm:ss[.frac] -> seconds of the day; returns the length taken. */
static size_t clock_at(const char *p, const char *end, double *secs)
{
	const char *q = p;
	if (!(dig(q, end, 2) && q + 2 < end && q[2] == ':' && dig(q + 3, end, 2) && q + 5 < end &&
	      q[5] == ':' && dig(q + 6, end, 2)))
		return 0;
	double v = ((q[0] - '0') * 10 + (q[1] - '0')) * 3600.0 + ((q[3] - '0') * 10 + (q[4] - '0')) * 60.0 +
		   ((q[6] - '0') * 10 + (q[7] - '0'));
	q += 8;
	if (q < end && (*q == '.' || *q == ',') && q + 1 < end && tr_digit(q[1]))
		q = tr_add_frac(q + 1, end, &v);
	*secs = v;
	return (size_t)(q - p);
}

static const char *skip_tz(const char *q, const char *end)
{
	if (q < end && *q == 'Z')
		return q + 1;
	if (q < end && (*q == '+' || *q == '-') && dig(q + 1, end, 2)) {
		q += 3;
		if (q < end && *q == ':')
			q++;
		if (dig(q, end, 2))
			q += 2;
	}
	return q;
}

static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
				     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", NULL};

static const char *const levels[] = {"TRACE", "DEBUG", "INFO", "WARNING", "WARN", "ERROR",
				     "CRITICAL", "FATAL", "NOTICE", NULL};

/* A host and a `prog[pid]:` / `prog:` after a syslog or journald time. After
 * an ISO time (@strict) only `prog[pid]:` and `kernel:` count, so that an
 * engine's own "strata generate:" is not taken for a host and a program. */
static const char *skip_host_prog(const char *q, const char *end, int strict)
{
	const char *h = tr_skip_ws(q, end);
	const char *he = h;
	while (he < end && *he != ' ' && *he != ':')
		he++;
	if (he == h || he >= end || *he != ' ')
		return q;
	const char *pg = he + 1;
	const char *pe = pg;
	while (pe < end && *pe != ' ' && *pe != ':')
		pe++;
	if (pe == pg || pe >= end || *pe != ':' || pe + 1 >= end || pe[1] != ' ')
		return q;
	/* a program token is a name, maybe with [pid] */
	if (!(isalpha((unsigned char)*pg) || *pg == '(' || *pg == '_'))
		return q;
	if (strict && pe[-1] != ']' && !(pe - pg == 6 && !strncmp(pg, "kernel", 6)))
		return q;
	return pe + 2;
}

static int level_index(const char *name)
{
	switch (name[0]) {
	case 'T': case 'D': return TR_LV_DEBUG;
	case 'I': case 'N': return TR_LV_INFO;
	case 'W': return TR_LV_WARN;
	case 'E': return TR_LV_ERROR;
	default: return TR_LV_FATAL; /* CRITICAL, FATAL */
	}
}

static int ascii_alpha(char c)
{
	return ((unsigned char)c | 0x20) >= 'a' && ((unsigned char)c | 0x20) <= 'z';
}

/* Is @s[0..n) one of the level names, in any case ("ERROR", "warn")? */
static int is_level_word(const char *s, size_t n)
{
	if (n < 4 || n > 8)
		return 0; /* INFO .. CRITICAL */
	for (const char *const *lv = levels; *lv; lv++)
		if (strlen(*lv) == n && !strncasecmp(s, *lv, n))
			return 1;
	return 0;
}

/* docker compose's "service-1  | " before every line of a service: a name
 * at the line's start, spaces, a bar (a Markdown table row opens with the
 * bar, and prose has words before it): past it, or @p. */
static const char *strip_compose(const char *p, const char *end)
{
	const char *q = p;
	while (q < end && (tr_isword(*q) || *q == '-' || *q == '.'))
		q++;
	if (q - p < 2 || q - p > 64 || !ascii_alpha(*p) || q >= end || *q != ' ')
		return p;
	/* a level's column (strip_level_column), not a service's name */
	int caps = 1;
	for (const char *c = p; c < q && caps; c++)
		caps = tr_upper(*c);
	if (caps && is_level_word(p, (size_t)(q - p)))
		return p;
	const char *b = tr_skip_ws(q, end);
	if (b >= end || *b != '|' || (b + 1 < end && b[1] != ' '))
		return p;
	return tr_skip_ws(b + 1, end);
}

/* A bracketed prefix at @q ("[ 123.456789]" dmesg, "[pid  1234]" strace -f,
 * "[2026-10-16 15:39:01]"): past it, or @q when it is none of those. */
static const char *strip_bracket(const char *q, const char *end, double *ts)
{
	const char *r = tr_skip_ws(q + 1, end);
	if (end - r > 4 && !strncmp(r, "pid", 3)) {
		r = tr_skip_ws(r + 3, end);
		while (r < end && tr_digit(*r))
			r++;
		if (r < end && *r == ']')
			return tr_skip_ws(r + 1, end);
	}
	const char *e = memchr(q, ']', (size_t)(end - q) < 48 ? (size_t)(end - q) : 48);
	if (e) {
		double sub;
		const char *in = tr_skip_ws(q + 1, e);
		if (dig(in, e, 4) && in + 10 <= e && in[4] == '-') { /* a bracketed date-time */
			const char *c = in + 10;
			if (c < e && (*c == ' ' || *c == 'T'))
				c++;
			if (clock_at(c, e, &sub))
				*ts = sub;
			return tr_skip_ws(e + 1, end);
		}
		if (clock_at(in, e, &sub)) {
			*ts = sub;
			return tr_skip_ws(e + 1, end);
		}
		const char *d = in;
		while (d < e && (tr_digit(*d) || *d == '.'))
			d++;
		if (d == e && d > in)
			return tr_skip_ws(e + 1, end);
		/* torch's "[rank0]: " before every line of a rank */
		if (e - in > 4 && !strncmp(in, "rank", 4)) {
			for (d = in + 4; d < e && tr_digit(*d); d++)
				;
			if (d == e && d > in + 4)
				return tr_skip_ws(e + 1 + (e + 1 < end && e[1] == ':'), end);
		}
		/* a launcher's tag for the program it runs, "[vllm]: ": one
		 * name and a colon (not a level, "[ERROR]: ", which is read) */
		if (e + 2 < end && e[1] == ':' && e[2] == ' ' && e - in >= 2 && e - in <= 32 && ascii_alpha(*in) &&
		    !is_level_word(in, (size_t)(e - in))) {
			for (d = in; d < e && (tr_isword(*d) || *d == '-' || *d == '.'); d++)
				;
			if (d == e)
				return tr_skip_ws(e + 2, end);
		}
	}
	return q;
}

/* A front end's tag for the program whose lines it relays ("[Server]
 * [54634] 0.00.100.264 I srv ...", "[worker] 2024-05-01 10:00:00 ..."):
 * a bracketed name, then a prefix of the program's own (a bracketed pid,
 * a date, a clock). Past the tag, or @q. A bracketed name before text
 * ("[Server] Starting") is the text's. strip_one reads a level in
 * brackets ("[INFO]") before it comes here. */
static const char *strip_relay_tag(const char *q, const char *end)
{
	const char *e = memchr(q, ']', (size_t)(end - q) < 34 ? (size_t)(end - q) : 34);
	if (!e || e - q < 3 || !ascii_alpha(q[1]))
		return q;
	for (const char *d = q + 1; d < e; d++)
		if (!(tr_isword(*d) || *d == '-' || *d == '.'))
			return q;
	const char *r = e + 1;
	if (r >= end || *r != ' ')
		return q;
	r = tr_skip_ws(r, end);
	double secs;
	if (r < end && *r == '[') {
		const char *d = r + 1;
		while (d < end && tr_digit(*d))
			d++;
		return d > r + 1 && d < end && *d == ']' ? r : q;
	}
	return (dig(r, end, 4) && r + 4 < end && r[4] == '-') || clock_at(r, end, &secs) ? r : q;
}

/* A JSON-lines record ({"level":"error","msg":"..."}, journald's
 * {"MESSAGE":"..."}): its message, unescaped, replaces the line, so the
 * recognisers read what the engine said; its level is kept. Not this
 * project's own JSON lines, which recognise_lsc.c parses whole. Returns
 * the message's end (written from @p), or @end when there is none. */
static char *json_message(char *p, char *end, unsigned char *lvl)
{
	static const char *const keys[] = {"\"msg\":\"", "\"message\":\"", "\"MESSAGE\":\"", "\"msg\": \"",
					   "\"message\": \""};
	if (end - p < 8 || (size_t)(end - p) > 65536 || !strncmp(p, "{\"loadscope\"", 12))
		return end;
	const char *v = NULL;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]) && !v; i++) {
		const char *k = tr_memmem(p, (size_t)(end - p), keys[i]);
		if (k)
			v = k + strlen(keys[i]);
	}
	if (!v)
		return end;
	const char *lk = tr_memmem(p, (size_t)(end - p), "\"level\":\"");
	if (!lk)
		lk = tr_memmem(p, (size_t)(end - p), "\"severity\":\"");
	if (lk && !*lvl) {
		const char *x = memchr(lk + 1, ':', (size_t)(end - lk - 1));
		unsigned char c = x && x + 2 < end ? tr_lower((unsigned char)x[2]) : 0;
		*lvl = c == 'e' ? TR_LV_ERROR : c == 'f' || c == 'c' || c == 'p' ? TR_LV_FATAL : c == 'w' ? TR_LV_WARN
		       : c == 'd' || c == 't' ? TR_LV_DEBUG : c ? TR_LV_INFO : 0;
	}
	/* unescape in place: the message only shrinks */
	char *w = p;
	for (const char *r = v; r < end && *r != '"'; r++) {
		if (*r != '\\' || r + 1 >= end) {
			*w++ = *r;
			continue;
		}
		r++;
		switch (*r) {
		case 'n': case 't': case 'r': *w++ = ' '; break;
		case 'u':
			if (end - r > 4) {
				unsigned cp = 0;
				for (int i = 1; i <= 4; i++) {
					char h = r[i];
					cp = cp * 16 + (unsigned)(tr_digit(h) ? h - '0' : (tr_lower((unsigned char)h) - 'a' + 10) & 15);
				}
				*w++ = cp >= 0x20 && cp < 0x7f ? (char)cp : '?';
				r += 4;
			}
			break;
		default: *w++ = *r; break; /* \" \\ \/ */
		}
	}
	return w;
}

/* Python logging's default format, `%(levelname)s:%(name)s:%(message)s`
 * ("INFO:python_coreml_stable_diffusion.coreml_model:Done. Took 6.1
 * seconds.", "WARNING:root:..."): the logger's name right after the
 * level's colon, a dotted identifier, then a colon and the message. Past
 * it, or @c. Not a scheme or a drive (`http://`, `C:\`: the name has two
 * characters at least and no `/` or `\` follows), not words (a name holds
 * no space), not a clock (a name opens with a letter or `_`). */
static const char *strip_logger_name(const char *c, const char *end)
{
	const char *p = c;
	if (p >= end || !(tr_alpha(*p) || *p == '_'))
		return c;
	while (p < end && p - c < 96 && (tr_isword(*p) || *p == '_' || *p == '.'))
		p++;
	if (p - c < 2 || p >= end || *p != ':' || p[-1] == '.')
		return c;
	if (p + 1 < end && (p[1] == '/' || p[1] == '\\'))
		return c;
	return p + 1;
}

/* A level word and what follows it in python logging and vLLM: "INFO
 * 10-16 15:39:01 [loader.py:123] ", "ERROR: "; its level into *@lvl. */
static const char *strip_level(const char *p, const char *end, double *ts, unsigned char *lvl)
{
	const char *q = p;
	double secs;
	size_t n;
	/* vLLM / python logging: "INFO 10-16 15:39:01 [loader.py:123] " */
	for (const char *const *lv = levels; q < end && tr_upper(*q) && *lv; lv++) {
		if (*q != (*lv)[0])
			continue;
		size_t ln = strlen(*lv);
		if ((size_t)(end - q) > ln + 1 && !strncmp(q, *lv, ln) && (q[ln] == ' ' || q[ln] == ':')) {
			const char *c = tr_skip_ws(q + ln + (q[ln] == ':'), end);
			if (dig(c, end, 2) && c + 5 < end && c[2] == '-' && dig(c + 3, end, 2))
				c = tr_skip_ws(c + 5, end);
			n = clock_at(c, end, &secs);
			if (n) {
				*ts = secs;
				c = tr_skip_ws(c + n, end);
			}
			if (c < end && *c == '[') {
				const char *e = memchr(c, ']', (size_t)(end - c) < 96 ? (size_t)(end - c) : 96);
				if (e && tr_memmem(c, (size_t)(e - c), ".py"))
					c = tr_skip_ws(e + 1, end);
			} else if (n && c < end) {
				/* vLLM's older prefix: "ERROR 07-28 23:29:37 file.py:226] " */
				const char *e = memchr(c, ']', (size_t)(end - c) < 96 ? (size_t)(end - c) : 96);
				const char *py = e ? tr_memmem(c, (size_t)(e - c), ".py:") : NULL;
				if (py && !memchr(c, ' ', (size_t)(e - c)))
					c = tr_skip_ws(e + 1, end);
			}
			if (c != tr_skip_ws(q + ln + (q[ln] == ':'), end) || q[ln] == ':') {
				*lvl = (unsigned char)level_index(*lv);
				return c == q + ln + 1 ? strip_logger_name(c, end) : c;
			}
		}
	}
	return p;
}

/* The level a bracketed field of a prefix names: the whole field ("info",
 * " INFO "), or, in a field that holds a clock, one of its words in upper
 * case ("09-25 19:03:45.989 ERROR  nim_sdk::hub  repo.rs:119"); -1 none. */
static int field_level(const char *in, const char *ie)
{
	if (ie > in && is_level_word(in, (size_t)(ie - in)))
		return level_index((char[2]){(char)(tr_upper(*in) ? *in : *in - 32), 0});
	const char *c = ie - in >= 8 ? memchr(in, ':', (size_t)(ie - in)) : NULL;
	double secs;
	if (!c || c - in < 2)
		return -1;
	for (c -= 2; c + 8 <= ie && !(tr_digit(*c) && clock_at(c, ie, &secs));)
		c = (c = memchr(c + 3, ':', (size_t)(ie - c - 3))) ? c - 2 : ie;
	if (c + 8 > ie)
		return -1;
	for (const char *w = c; w < ie; w++) {
		if (!tr_upper(*w) || (w > in && ascii_alpha(w[-1])))
			continue;
		const char *we = w;
		while (we < ie && ascii_alpha(*we))
			we++;
		for (const char *const *lv = levels; *lv; lv++)
			if ((size_t)(we - w) == strlen(*lv) && !memcmp(w, *lv, (size_t)(we - w)))
				return level_index(*lv);
		w = we;
	}
	return -1;
}

/* A library's run of bracketed fields before its message, one of them the
 * level ("[serving][info][server.cpp:89] ", "[lib] [thread 7] [info] ",
 * "[ INFO ] ", "[09-25 19:03:45.989 ERROR  nim_sdk::hub::repo  repo.rs:119] "):
 * past the run, the level kept; @q when no field of the run (at most six,
 * each short) names a level. */
static const char *strip_level_run(const char *q, const char *end, unsigned char *lvl)
{
	const char *p = q, *past = q;
	int lv = -1;
	for (int i = 0; i < 6 && p < end && *p == '['; i++) {
		const char *e = memchr(p, ']', (size_t)(end - p) < 128 ? (size_t)(end - p) : 128);
		if (!e)
			break;
		const char *in = tr_skip_ws(p + 1, e), *ie = e;
		while (ie > in && ie[-1] == ' ')
			ie--;
		if (lv < 0)
			lv = field_level(in, ie);
		past = e + 1;
		p = past < end && *past == ' ' && past + 1 < end && past[1] == '[' ? past + 1 : past;
	}
	/* "[ERROR]: ..." is a message that opens with its level (level_of reads it) */
	if (lv < 0 || (past < end && *past == ':'))
		return q;
	*lvl = (unsigned char)lv;
	past = tr_skip_ws(past, end);
	/* the dash between the head and the message ("[    INFO] - start to
	 * init the engine", PaddleSpeech's logger) */
	if (end - past >= 3 && past[0] == '-' && past[1] == ' ' && past[2] != '-')
		past = tr_skip_ws(past + 2, end);
	return past;
}

/* The name of the stream a line came on, written before it by what
 * collected it: an app's or a runner's `STDOUT: ` / `stderr: `, a bracketed
 * `[stderr] `, the container runtime's CRI record `stdout F ` (after its
 * ISO time, `P` a partial line). Every line behind it is the program's own
 * and is read as such (a macOS app that prints `[21:06:59] STDOUT: ` before
 * each of its server's slog lines hid them all). The name alone in either
 * case, then its separator and a message: not `stdout_logfile=`, `stderr is
 * redirected`, `StdOut: `, a bare `stdout:` (nothing of the program's). */
static const char *strip_stream(const char *q, const char *end)
{
	const char *r = q + (*q == '[');
	if (end - r < 8 || (r[0] | 0x20) != 's' || (r[1] | 0x20) != 't' || (r[2] | 0x20) != 'd' ||
	    (strncasecmp(r + 3, "out", 3) && strncasecmp(r + 3, "err", 3)))
		return q;
	/* one case for the whole name: "STDOUT", "stdout", not "StdOut" */
	for (int i = 1; i < 6; i++)
		if (tr_upper(r[i]) != tr_upper(r[0]))
			return q;
	const char *e = r + 6;
	if (r != q) { /* "[stderr] ", "[stderr]: " */
		if (*e != ']')
			return q;
		e++;
		if (e < end && *e == ':')
			e++;
		return e < end && *e == ' ' ? tr_skip_ws(e, end) : q;
	}
	if (e[0] == ':' && e + 1 < end && e[1] == ' ')
		return tr_skip_ws(e + 1, end);
	/* CRI: "stdout F message", "stderr P message" */
	if (e + 2 < end && e[0] == ' ' && (e[1] == 'F' || e[1] == 'P') && e[2] == ' ' && tr_lower(r[0]) == r[0])
		return e + 3;
	return q;
}

/* A level as a column of a pipe-separated head, `ERROR | ` (loguru's
 * `| INFO     | `, FastChat's `| ERROR | stderr | `): a level word in
 * capitals, its padding, then the bar; past it with the level in *@lvl,
 * or @q. Not a word in capitals that is no level (`GPU | `, a table's
 * column, stays). */
static const char *strip_level_column(const char *q, const char *end, unsigned char *lvl)
{
	const char *w = q;
	while (w < end && tr_upper(*w))
		w++;
	const char *b = tr_skip_ws(w, end);
	if (w == q || b == w || end - b < 2 || b[0] != '|' || b[1] != ' ' || !is_level_word(q, (size_t)(w - q)))
		return q;
	char name[2] = {*q, 0};
	*lvl = (unsigned char)level_index(name);
	return tr_skip_ws(b + 1, end);
}

/* A log viewer's date and time as a column before ` | ` (Rancher's `Sun,
 * May 29 2022 2:12:16 am | `, a dashboard's `2022-05-29 02:12:16 | `):
 * words of a date only (a weekday's or a month's name, am/pm, a zone),
 * numbers and a clock, then the bar. Every line behind such a column is
 * the program's own, read as such (the line's own clock after it is
 * kept). Not a table row (`| a | b |` opens with the bar), not a name's
 * column (docker compose's, strip_compose), not prose or a clock with
 * words of its own before a bar (`12:00:01 step one | two`). */
static const char *strip_viewer_clock(const char *q, const char *end)
{
	const char *bar = memchr(q, '|', (size_t)(end - q) < 40 ? (size_t)(end - q) : 40);
	if (!bar || bar - q < 8 || bar[-1] != ' ' || bar + 1 >= end || bar[1] != ' ')
		return q;
	static const char *const days[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", NULL};
	static const char *const zone[] = {"am", "pm", "AM", "PM", "UTC", "GMT", "Z", NULL};
	int clock = 0;
	for (const char *p = q; p < bar - 1;) {
		while (p < bar && (*p == ' ' || *p == ','))
			p++;
		const char *b = p;
		while (p < bar && *p != ' ' && *p != ',')
			p++;
		if (p == b)
			break;
		size_t len = (size_t)(p - b);
		if (tr_digit(*b)) {
			int colons = 0;
			for (const char *c = b; c < p; c++) {
				if (*c == ':')
					colons++;
				else if (!(tr_digit(*c) || *c == '.' || *c == '-' || *c == '/' || *c == 'T' || *c == '+'))
					return q;
			}
			clock |= colons >= 2;
			continue;
		}
		int ok = 0;
		for (const char *const *w = zone; *w && !ok; w++)
			ok = strlen(*w) == len && !memcmp(b, *w, len);
		/* a weekday's or a month's name, short or whole ("May", "Sunday") */
		for (const char *const *w = days; *w && !ok && len >= 3; w++)
			ok = !memcmp(b, *w, 3) && (len == 3 || (len >= 6 && !memcmp(p - 3, "day", 3)));
		for (const char *const *w = months; *w && !ok && len >= 3; w++)
			ok = !memcmp(b, *w, 3) && (len == 3 || (len == 4 && b[3] == '.'));
		if (!ok)
			return q;
	}
	return clock ? tr_skip_ws(bar + 1, end) : q;
}

/* A logger's fields joined by `::` and its level before an arrow, after
 * its bracketed time (InvokeAI's `[2023-08-08 15:09:33,287]::[InvokeAI]::
 * INFO --> `): `::[name]::`, then a level word and `-->` (or `->`), the
 * level kept. Not a C++ scope (`ns::f`, which opens with a name), not an
 * arrow after any other word. */
static const char *strip_colon_fields(const char *q, const char *end, unsigned char *lvl)
{
	if (end - q < 8 || q[0] != ':' || q[1] != ':' || q[2] != '[')
		return q;
	const char *e = memchr(q + 3, ']', (size_t)(end - q - 3) < 48 ? (size_t)(end - q - 3) : 48);
	if (!e || e + 2 >= end || e[1] != ':' || e[2] != ':')
		return q;
	const char *w = e + 3, *we = w;
	while (we < end && ascii_alpha(*we))
		we++;
	if (we == w || !is_level_word(w, (size_t)(we - w)))
		return q;
	const char *a = tr_skip_ws(we, end);
	size_t al = end - a >= 3 && !memcmp(a, "-->", 3) ? 3 : end - a >= 2 && !memcmp(a, "->", 2) ? 2 : 0;
	if (!al)
		return q;
	char name[12];
	size_t nl = (size_t)(we - w) < sizeof(name) - 1 ? (size_t)(we - w) : sizeof(name) - 1;
	for (size_t i = 0; i < nl; i++)
		name[i] = (char)toupper((unsigned char)w[i]);
	name[nl] = 0;
	int li = level_index(name);
	if (li)
		*lvl = (unsigned char)li;
	return tr_skip_ws(a + al, end);
}

/* loguru's place of the call after its level, `name:function:line - `
 * (its default format) or ` | ` (a variant): a module path, a function
 * (`<module>` too), a line number, as one token, then the separator.
 * Past it, or @q. A function named like an event (`_wait_for_ready`,
 * `on_startup`) is no word of the message. */
static const char *strip_code_place(const char *q, const char *end)
{
	size_t room = (size_t)(end - q) < 160 ? (size_t)(end - q) : 160;
	const char *sp = memchr(q, ' ', room);
	if (!sp || sp - q < 5 || end - sp < 3 || !((sp[1] == '-' || sp[1] == '|') && sp[2] == ' '))
		return q;
	const char *d = sp;
	while (d > q && tr_digit(d[-1]))
		d--;
	if (d == sp || d - q < 4 || d[-1] != ':')
		return q;
	const char *c = memchr(q, ':', (size_t)(d - 1 - q));
	if (!c || c == q || c + 1 >= d - 1)
		return q;
	for (const char *x = q; x < d - 1; x++)
		if (!(tr_isword(*x) || *x == '_' || *x == '.' || *x == '-' || *x == '<' || *x == '>' || x == c))
			return q;
	return tr_skip_ws(sp + 3, end);
}

/* Python logging's `%(name)s %(levelname)s : %(message)s` (Frigate's):
 * a logger's dotted name, spaces, a level word in capitals, spaces, then
 * `: `. Past it with the level in *@lvl, or @q. */
static const char *strip_name_level(const char *q, const char *end, unsigned char *lvl)
{
	/* the line's first colon is the one after the level, a space before
	 * it (a name holds none): one memchr turns most lines away */
	const char *colon = memchr(q, ':', (size_t)(end - q) < 128 ? (size_t)(end - q) : 128);
	if (!colon || colon == q || colon[-1] != ' ')
		return q;
	const char *n = q;
	while (n < end && n - q < 96 && (tr_isword(*n) || *n == '_' || *n == '.'))
		n++;
	if (n == q || n >= end || *n != ' ')
		return q;
	const char *w = tr_skip_ws(n, end), *we = w;
	while (we < end && tr_upper(*we))
		we++;
	if (we == w || !is_level_word(w, (size_t)(we - w)))
		return q;
	const char *c = tr_skip_ws(we, end);
	if (end - c < 2 || c[0] != ':' || c[1] != ' ')
		return q;
	char name[12];
	size_t nl = (size_t)(we - w) < sizeof(name) - 1 ? (size_t)(we - w) : sizeof(name) - 1;
	memcpy(name, w, nl);
	name[nl] = 0;
	*lvl = (unsigned char)level_index(name);
	return tr_skip_ws(c + 2, end);
}

/* glog's prefix: "E0725 12:48:53.920000 127614 file.py:702] ", with the
 * year its newer releases print ("I20241218 09:35:42.357483 ..."), or
 * a letter and a clock with no date before the place as one token
 * (ExecuTorch's runner: "I 00:00:02.721396 executorch:runner.cpp:414] ").
 * Its length, with the clock in *@ts and the level in *@lvl; 0 none. */
static size_t strip_glog(const char *q, const char *end, double *ts, unsigned char *lvl)
{
	double secs;
	size_t n;
	unsigned char lv = (unsigned char)(*q == 'F' ? TR_LV_FATAL : level_index((char[2]){*q, 0}));
	int gd = q + 6 < end && dig(q + 1, end, 4) ? (q[5] == ' ' ? 4 : dig(q + 1, end, 8) && q + 9 < end && q[9] == ' ' ? 8 : 0) : 0;
	if (gd && (n = clock_at(q + 2 + gd, end, &secs))) {
		const char *c = tr_skip_ws(q + 2 + gd + n, end);
		const char *e = memchr(c, ']', (size_t)(end - c) < 128 ? (size_t)(end - c) : 128);
		if (e) {
			*ts = secs;
			*lvl = lv;
			return (size_t)(tr_skip_ws(e + 1, end) - q);
		}
	}
	if (end - q > 12 && q[1] == ' ' && tr_digit(q[2]) && (n = clock_at(q + 2, end, &secs))) {
		const char *c = tr_skip_ws(q + 2 + n, end), *e = c;
		while (e < end && e - c < 128 && *e != ']' && *e != ' ')
			e++;
		if (e > c && e < end && *e == ']' && memchr(c, ':', (size_t)(e - c))) {
			*ts = secs;
			*lvl = lv;
			return (size_t)(tr_skip_ws(e + 1, end) - q);
		}
	}
	return 0;
}

/* Android Studio's logcat columns after the date and clock: `PID-TID
 * TAG PACKAGE L ` ("20738-20777 libc com.mnn.llm A  Fatal signal 11"),
 * the level a letter (V, D, I, W, E, and F or A for a fatal assert). Past
 * them with the level in *@lvl, or @q. */
static const char *strip_logcat(const char *q, const char *end, unsigned char *lvl)
{
	const char *p = q;
	if (p >= end || !tr_digit(*p))
		return q;
	while (p < end && tr_digit(*p))
		p++;
	if (p >= end || *p != '-' || p + 1 >= end || !tr_digit(p[1]))
		return q;
	for (p++; p < end && tr_digit(*p); p++)
		;
	for (int field = 0; field < 2; field++) { /* the tag, the package */
		if (p >= end || *p != ' ')
			return q;
		p = tr_skip_ws(p, end);
		const char *f = p;
		while (p < end && *p != ' ' && p - f < 96)
			p++;
		if (p == f)
			return q;
	}
	p = tr_skip_ws(p, end);
	static const char letters[] = "VDIWEFA";
	if (end - p < 3 || !memchr(letters, *p, sizeof(letters) - 1) || p[1] != ' ')
		return q;
	*lvl = (unsigned char)(*p == 'V' || *p == 'D'   ? TR_LV_DEBUG
			       : *p == 'I'              ? TR_LV_INFO
			       : *p == 'W'              ? TR_LV_WARN
			       : *p == 'E'              ? TR_LV_ERROR
						        : TR_LV_FATAL);
	return tr_skip_ws(p + 1, end);
}

/* Logback's and Log4j's default layouts after the clock, `[thread] LEVEL
 * logger - ` ("[main] ERROR c.e.ModelServer - ", "[pool-1-thread-2] INFO
 * ai.djl.serving.ModelServer - "): the thread in brackets, a level word
 * in capitals, a logger's dotted name, then ` - `. Past them with the
 * level in *@lvl, or @q. Not a bracket and a level with no logger and
 * dash after them (a sentence that opens with a capital word). */
static const char *strip_logback(const char *q, const char *end, unsigned char *lvl)
{
	const char *p = q;
	const char *rb = memchr(p, ']', (size_t)(end - p) < 64 ? (size_t)(end - p) : 64);
	if (!rb || memchr(p, ' ', (size_t)(rb - p)))
		return q;
	p = tr_skip_ws(rb + 1, end);
	const char *w = p;
	while (p < end && tr_upper(*p))
		p++;
	if (p == w || p >= end || *p != ' ' || !is_level_word(w, (size_t)(p - w)))
		return q;
	char name[12];
	size_t nl = (size_t)(p - w) < sizeof(name) - 1 ? (size_t)(p - w) : sizeof(name) - 1;
	memcpy(name, w, nl);
	name[nl] = 0;
	p = tr_skip_ws(p, end);
	const char *g = p;
	int dot = 0;
	while (p < end && (tr_isword(*p) || *p == '.' || *p == '_' || *p == '$')) {
		dot |= *p == '.';
		p++;
	}
	if (p == g || !dot || end - p < 3 || memcmp(p, " - ", 3))
		return q;
	*lvl = (unsigned char)level_index(name);
	return tr_skip_ws(p + 3, end);
}

/* Python logging's `%(asctime)s - %(name)s - %(levelname)s - %(message)s`
 * after its clock (the format most examples print; Seldon's `- module:
 * function:line - INFO: `, a script's `- __main__ - INFO - `): the dash,
 * a logger's name as one token and its dash, maybe, then a level word and
 * ` - ` or `: `. Past them with the level in *@lvl, or @q. Not a dash
 * before words (a list's item), not a name with no level after it. */
static const char *strip_dash_fields(const char *q, const char *end, unsigned char *lvl)
{
	if (end - q < 8 || q[0] != '-' || q[1] != ' ')
		return q;
	const char *w = q + 2;
	for (int field = 0; field < 2; field++) {
		const char *we = w;
		while (we < end && we - w < 96 && *we != ' ')
			we++;
		const char *sep = we;
		if (we > w && we[-1] == ':')
			we--;
		if (we > w && is_level_word(w, (size_t)(we - w)) && tr_upper(*w)) {
			int dash = end - sep >= 3 && !memcmp(sep, " - ", 3);
			int colon = sep[-1] == ':' && sep < end && *sep == ' ';
			if (!dash && !colon)
				return q;
			char name[2] = {*w, 0};
			*lvl = (unsigned char)level_index(name);
			return tr_skip_ws(dash ? sep + 3 : sep, end);
		}
		if (field || we == w || end - sep < 3 || memcmp(sep, " - ", 3))
			return q;
		w = sep + 3;
	}
	return q;
}

/* One leading prefix; returns the new start (== p when none). */
static const char *strip_one(const char *p, const char *end, double *ts, unsigned char *lvl)
{
	const char *q = p;
	double secs;
	size_t n;

	if (q < end && (tr_alpha(*q) || *q == '_' || *q == '<')) {
		const char *r = strip_code_place(q, end);
		if (r != q || (r = strip_name_level(q, end, lvl)) != q)
			return r;
	}

	if (q < end && *q == '-')
		return strip_dash_fields(q, end, lvl);
	/* every prefix below opens with one of these: most lines go no further */
	if (q >= end || !(*q == '[' || *q == '(' || tr_digit(*q) || tr_upper(*q) || *q == 's' || *q == ':'))
		return p;
	if (*q == ':')
		return strip_colon_fields(q, end, lvl);
	if (*q == 's' || *q == 'S' || *q == '[') {
		const char *r = strip_stream(q, end);
		if (r != q || *q == 's')
			return r;
	}
	if (tr_upper(*q) || tr_digit(*q)) {
		const char *r = strip_level_column(q, end, lvl);
		if (r != q)
			return r;
		r = strip_viewer_clock(q, end);
		if (r != q)
			return r;
	}

	if (*q == '[') {
		const char *r = strip_logback(q, end, lvl);
		if (r != q)
			return r;
		r = strip_bracket(q, end, ts);
		if (r != q)
			return r;
		if ((r = strip_level_run(q, end, lvl)) != q)
			return r;
		if ((r = strip_relay_tag(q, end)) != q)
			return r;
	}
	/* 2026-10-16T15:39:01.123+02:00, 2026-10-16 15:39:01,123 */
	if (dig(q, end, 4) && q + 10 < end && q[4] == '-' && q[7] == '-') {
		const char *c = q + 10;
		if (*c == 'T' || *c == ' ') {
			n = clock_at(c + 1, end, &secs);
			if (n) {
				*ts = secs;
				c = skip_tz(c + 1 + n, end);
				c = tr_skip_ws(c, end);
				const char *r = skip_host_prog(c, end, 1);
				return r != c ? r : strip_logcat(c, end, lvl);
			}
		}
	}
	/* Nov 30 04:05:16 host prog[123]: */
	for (const char *const *m = months; end - q > 15 && tr_upper(*q) && q[3] == ' ' && *m; m++) {
		if (end - q > 15 && q[0] == (*m)[0] && !strncmp(q, *m, 3) && q[3] == ' ') {
			const char *c = tr_skip_ws(q + 4, end);
			while (c < end && tr_digit(*c))
				c++;
			c = tr_skip_ws(c, end);
			n = clock_at(c, end, &secs);
			if (n) {
				*ts = secs;
				/* with no host and program after the clock ("Jul 20
				 * 12:17:05.251 [INFO] Loaded ..."), what follows is
				 * read as any prefix is */
				const char *r = skip_host_prog(c + n, end, 0);
				return r != c + n ? r : tr_skip_ws(r, end);
			}
		}
	}
	/* a bare clock: 15:39:01.123 (strace -tt) */
	n = clock_at(q, end, &secs);
	if (n && q + n < end && q[n] == ' ') {
		*ts = secs;
		return tr_skip_ws(q + n, end);
	}
	/* llama.cpp and the servers built on it: "4.32.012.275 I " (the
	 * process's clock, minutes.seconds.ms.us, then a level letter): the
	 * engine's own clock, from the process's start */
	if (q < end && tr_digit(*q)) {
		const char *c = q;
		int dots = 0;
		double part[4] = {0, 0, 0, 0};
		while (c < end && (tr_digit(*c) || *c == '.')) {
			if (*c == '.')
				dots++;
			else if (dots < 4)
				part[dots] = part[dots] * 10 + (*c - '0');
			c++;
		}
		if (dots == 3 && end - c >= 3 && c[0] == ' ' && strchr("DIWETN", c[1]) && c[2] == ' ') {
			*lvl = (unsigned char)level_index((char[2]){c[1], 0});
			if (part[1] < 60 && part[2] < 1000 && part[3] < 1000)
				*ts = part[0] * 60 + part[1] + part[2] / 1e3 + part[3] / 1e6;
			return c + 3;
		}
	}
	if (strchr("IWEF", *q) && (n = strip_glog(q, end, ts, lvl)))
		return q + n;
	/* (VllmWorker rank=0 pid=123), (EngineCore_0 pid=9) */
	if (q < end && *q == '(') {
		const char *e = memchr(q, ')', (size_t)(end - q) < 96 ? (size_t)(end - q) : 96);
		if (e && tr_memmem(q, (size_t)(e - q), "pid="))
			return tr_skip_ws(e + 1, end);
	}
	return strip_level(p, end, ts, lvl);
}

/* Is @p..@end a table's border a program drew, "+----+-----+"? */
static int is_border(const char *p, const char *end)
{
	if (end - p < 3 || *p != '+' || end[-1] != '+')
		return 0;
	int dash = 0;
	for (const char *q = p; q < end; q++) {
		if (*q != '+' && *q != '-' && *q != '=')
			return 0;
		dash |= *q != '+';
	}
	return dash;
}

/* Do the prefixes @pre..@p name the service manager as the line's program
 * ("host systemd[1]: Started x.service", "systemd-journald[312]:
 * Suppressed ...")? Its line's clock is not the engine's. */
static int manager_prefix(const char *pre, const char *p)
{
	/* a journal's prefix is at least "Oct 16 15:39:01 h systemd[1]: " long */
	const char *k = p - pre >= 24 ? tr_memmem(pre, (size_t)(p - pre), " systemd") : NULL;
	return k && k + 8 < p && (k[8] == '[' || k[8] == '-');
}

/* An engine's own prefix ("strata generate: ") at @p is kept, but the
 * clock of the logger behind it is still the line's (the innermost, after
 * @clocks prefix clocks): 1 when there was one. */
static int engine_prefix_clock(struct tr_line *l, const char *p, const char *end, int clocks)
{
	const char *w = p, *lim = end - p < 40 ? end : p + 40;
	while (w < lim && prefix_byte[(unsigned char)*w])
		w++;
	if (!(w > p && w + 1 < end && w[0] == ':' && w[1] == ' '))
		return 0;
	const char *q = w + 2;
	for (int i = 0; i < 8; i++) {
		double ts = NAN;
		const char *n = strip_one(q, end, &ts, &l->level);
		if (!isnan(ts)) {
			l->tsk[clocks ? 1 : 0] = l->ts = ts;
			return 1;
		}
		if (n == q)
			break;
		q = n;
	}
	return 0;
}

int tr_clean_line(struct tr_clean *c, struct tr_line *l)
{
	l->len = compact(l->s, l->len, &l->flags);
	char *p = l->s, *end = l->s + l->len;

	/* whitespace and markdown quoting, possibly nested ("> > ") */
	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p < end && *p == '>') {
			p++;
			continue;
		}
		break;
	}
	if (is_fence(p, end)) {
		/* ``` opens or closes; ```lang opens. Depth is only a hint. A
		 * fence glued to text ("```Error: ... killed```", a one-line
		 * code block) is that text: its marks go, the line stays. */
		const char *q = p + 3;
		while (q < end && (*q == '`' || *q == '~'))
			q++;
		q = tr_skip_ws(q, end);
		const char *te = end;
		while (te > q && (te[-1] == ' ' || te[-1] == '\t' || te[-1] == '\n'))
			te--;
		int closes = te - q >= 3 && is_fence(te - 3, te);
		if (!closes && memchr(q, ' ', (size_t)(te - q)) == NULL) {
			if (q < end)
				c->fence++;
			else if (c->fence)
				c->fence--;
			c->dropped++;
			return 0;
		}
		if (closes)
			while (te > q && (te[-1] == '`' || te[-1] == '~'))
				te--;
		p = (char *)q;
		end = (char *)te;
	}
	/* compose's tag first, or (below) once after a viewer's clock: not
	 * taken for stripped where only a quote or a fence went before it */
	const char *before = p;
	p = (char *)strip_compose(p, end);
	int clocks = 0, compose = p != before;
	const char *pre = p;
	for (int i = 0; i < 8; i++) {
		double ts = NAN;
		const char *q = strip_one(p, end, &ts, &l->level);
		/* compose's tag after the viewer's clock ("2024-09-25 20:17:43
		 * auto-1  | ..."), once */
		if (q == p && !compose) {
			q = strip_compose(p, end);
			compose = 1;
		}
		if (q == p)
			break;
		if (!isnan(ts)) {
			l->tsk[clocks++ ? 1 : 0] = ts; /* outermost, then the innermost */
			l->ts = ts;
		}
		p = (char *)q;
	}
	/* the line's text begins after the prefixes' indentation too, as it
	 * does on a line with none: a traceback's `  File "..."` behind a
	 * collector's head is the same frame */
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (manager_prefix(pre, p))
		l->flags |= TR_L_MANAGER;
	/* a quoted paste collected again ("host app[1]: > Traceback ..."):
	 * the quote behind the prefixes is the same quote as at the start */
	while (p != pre && p < end && *p == '>' && (p + 1 == end || p[1] == ' ' || p[1] == '\t' || p[1] == '>')) {
		p++;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
	}
	if (p < end && *p == '{') {
		char *me = json_message(p, end, &l->level);
		if (me != end) {
			end = me;
			/* the message may open with its own prefixes */
			for (int i = 0; i < 4; i++) {
				double ts = NAN;
				const char *q = strip_one(p, end, &ts, &l->level);
				if (q == p)
					break;
				p = (char *)q;
			}
		}
	}
	clocks += engine_prefix_clock(l, p, end, clocks);
	l->nclocks = (unsigned char)clocks;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
		end--;
	l->s = p;
	l->len = (size_t)(end - p);
	l->s[l->len] = 0;
	if (l->len >= 2 && p[0] == '|' && end[-1] == '|') {
		l->flags |= TR_L_MDTABLE;
		if (c->ascii_table)
			l->flags |= TR_L_TABLE;
	} else {
		/* "+-----+---------+": a program drew the table (Markdown's rule
		 * is "|---|---|"); its rows are the program's output */
		c->ascii_table = is_border(p, end);
	}
	if (l->len == 0) {
		c->dropped++;
		return 0;
	}
	return 1;
}
