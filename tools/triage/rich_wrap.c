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
 */
#include <string.h>

#include "internal.h"


size_t tr_rich_head(const char *s, size_t n, size_t *indent)
{
	/* a level column or a time first: most lines are turned away here */
	if (n < 24 || !(*s == '[' || *s == 'D' || *s == 'I' || *s == 'W' || *s == 'E' || *s == 'C'))
		return 0;
	/* the location at the very end (right-aligned): "name.py:81" */
	const char *end = s + n, *p = end;
	while (p > s && tr_digit(p[-1]))
		p--;
	if (p == end || p == s || p[-1] != ':' || end - p > 6)
		return 0;
	const char *c = --p;
	while (p > s && (tr_isword(p[-1]) || p[-1] == '.' || p[-1] == '_' || p[-1] == '-'))
		p--;
	if (p == s || p[-1] != ' ' || !memchr(p, '.', (size_t)(c - p)))
		return 0;
	const char *m = p;
	while (m > s && m[-1] == ' ')
		m--;
	/* the level column: an optional "[time]", a level name, spaces to the message */
	const char *q = s;
	if (*q == '[') {
		const char *e = memchr(q, ']', (size_t)(m - q) < 32 ? (size_t)(m - q) : 32);
		if (!e)
			return 0;
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
	if (!ok || msg - q < 2 || msg >= m)
		return 0; /* rich pads the level to its column: two spaces or more after INFO */
	*indent = (size_t)(msg - s);
	return (size_t)(m - s);
}

size_t tr_rich_more(const char *s, size_t n, size_t indent, const char **text)
{
	if (n <= indent)
		return 0;
	for (size_t i = 0; i < indent; i++)
		if (s[i] != ' ')
			return 0;
	const char *b = tr_skip_ws(s + indent, s + n), *e = s + n;
	while (e > b && e[-1] == ' ')
		e--;
	*text = b;
	return (size_t)(e - b);
}
