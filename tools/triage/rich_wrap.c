/*
 * Python's `rich` logging handler lays a record out in columns at the
 * terminal's width: the level (and a time) on the left, the message in the
 * middle, the source location right-aligned on the record's first line
 * (`select_model.py:81`), and a message too long for its column wrapped
 * onto the next lines, indented to the message column and padded to the
 * same width:
 *
 *     INFO     2024-01-12 ... INFO: ready   batch_handler.py:242
 *              to batch requests.
 *
 * The triage joins such a record back into one line (triage.c holds the
 * first line while its continuations come): the location column is cut,
 * each continuation's text appended after a space, so "ready to batch
 * requests." is read whole. The shapes are checked on a line's last and
 * first bytes only.
 *
 * The record may sit behind a prefix every line of the paste carries (a
 * `> ` quote, a compose service's `name  | `, a syslog or journald head, a
 * collector's clock): the level column then begins after it, and each
 * continuation carries a prefix of the same length (the same bytes, or
 * the same with other digits: a later clock, another pid) before the
 * spaces to the message column.
 */
#include <string.h>

#include "internal.h"


/* rich's level column at @q: an optional "[time]", a level name, two
 * spaces or more; the message's start, or NULL, and where the level name
 * begins in *lv_at (a time before it is blank on the continuations, as
 * rich leaves its own time column, or the same again, as a collector's
 * clock: both are the prefix). */
static const char *level_column(const char *q, const char *m, const char **lv_at)
{
	if (*q == '[') {
		const char *e = memchr(q, ']', (size_t)(m - q) < 32 ? (size_t)(m - q) : 32);
		if (!e)
			return NULL;
		q = tr_skip_ws(e + 1, m);
	}
	const char *lw = q;
	while (q < m && tr_alpha(*q))
		q++;
	static const char *const lv[] = {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"};
	int ok = 0;
	for (size_t i = 0; i < sizeof(lv) / sizeof(lv[0]) && !ok; i++)
		ok = (size_t)(q - lw) == strlen(lv[i]) && !memcmp(lw, lv[i], (size_t)(q - lw));
	const char *msg = tr_skip_ws(q, m);
	*lv_at = lw;
	/* rich pads the level to its column: two spaces or more after INFO */
	return ok && msg - q >= 2 && msg < m ? msg : NULL;
}

/* how far into a line a prefix before the level column may reach */
#define RICH_PREFIX_MAX 128

size_t tr_rich_head(const char *s, size_t n, size_t *indent, size_t *prefix)
{
	/* the location at the very end (right-aligned): "name.py:81"; most
	 * lines are turned away at their last byte */
	if (n < 24 || !tr_digit(s[n - 1]))
		return 0;
	const char *end = s + n, *p = end;
	while (p > s && tr_digit(p[-1]))
		p--;
	if (p == s || p[-1] != ':' || end - p > 6)
		return 0;
	const char *c = --p;
	while (p > s && (tr_isword(p[-1]) || p[-1] == '.' || p[-1] == '_' || p[-1] == '-'))
		p--;
	if (p == s || p[-1] != ' ' || !memchr(p, '.', (size_t)(c - p)))
		return 0;
	const char *m = p;
	while (m > s && m[-1] == ' ')
		m--;
	/* the level column at the line's start, or after a prefix that ends
	 * in a space */
	for (const char *q = s; q < m && q - s < RICH_PREFIX_MAX; q++) {
		if (q > s && q[-1] != ' ')
			continue;
		const char *lv, *msg = level_column(q, m, &lv);
		if (msg) {
			*indent = (size_t)(msg - s);
			*prefix = (size_t)(lv - s);
			return (size_t)(m - s);
		}
	}
	return 0;
}

/* Is @c[0..n) the prefix @h[0..n) of the record's first line again: the
 * same bytes, or the same with other digits (a later clock, another pid),
 * or blank (the prefix was rich's own time column)? */
static int same_prefix(const char *c, const char *h, size_t n)
{
	int blank = 1, same = 1;
	for (size_t i = 0; i < n; i++) {
		blank &= c[i] == ' ';
		same &= c[i] == h[i] || (tr_digit(c[i]) && tr_digit(h[i]));
	}
	return blank || same;
}

size_t tr_rich_more(const char *s, size_t n, size_t indent, const char *head, size_t prefix, const char **text)
{
	if (n <= indent || !same_prefix(s, head, prefix))
		return 0;
	for (size_t i = prefix; i < indent; i++)
		if (s[i] != ' ')
			return 0;
	const char *b = tr_skip_ws(s + indent, s + n), *e = s + n;
	while (e > b && e[-1] == ' ')
		e--;
	*text = b;
	return (size_t)(e - b);
}

size_t tr_strip_csi(char *s, size_t n)
{
	size_t r = 0, w = 0;
	while (r < n) {
		if (s[r] == 0x1b && r + 1 < n && s[r + 1] == '[') {
			/* CSI: parameters, then a final byte in 0x40-0x7e */
			r += 2;
			while (r < n && !((unsigned char)s[r] >= 0x40 && (unsigned char)s[r] <= 0x7e))
				r++;
			r += r < n;
			continue;
		}
		s[w++] = s[r++];
	}
	return w;
}
