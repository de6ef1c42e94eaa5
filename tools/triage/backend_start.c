/*
 * A launcher's report of a backend it starts itself, in its own words:
 * SwarmUI's `Self-Start ComfyUI-0 on port 7846 is loading...`, then `Self-
 * Start ComfyUI-0 on port 7846 failed. Restarting per configuration ...`.
 * The subject is the start (a noun: `Self-Start`, `Auto-Start`, `Launch`,
 * `Start`) of a named process, the first sentence's last words what
 * became of it: `is loading` / `is starting` (under way) or `failed`
 * (ended before it came up). Each backend process the launcher starts is
 * one start; the backend is what brings the model up, so its start
 * failing is the load failing (as an engine's `Could not create backend`).
 *
 * Not the verb in prose (`I start ComfyUI and it failed`: the start noun
 * must open the message, after its bracketed tags), not a sentence whose
 * end says something else (`Self-Start ComfyUI-0 on port 7821 is
 * disabled`), not a key (`Start time: 12:00`), not a failure denied
 * (`has not failed`, `nothing failed`). A pure predicate
 * over one cleaned line.
 */
#include <string.h>
#include <strings.h>

#include "internal.h"

/* Is @w[0..len) one of @set (lower case), case-blind? */
static int one_of(const char *w, size_t len, const char *const *set)
{
	for (const char *const *x = set; *x; x++)
		if (strlen(*x) == len && !strncasecmp(w, *x, len))
			return 1;
	return 0;
}

/* Do the words right before @e (spaces and the sentence's dots skipped)
 * end with @a then @b (@a NULL: only @b)? */
static int ends_with(const char *s, const char *e, const char *a, const char *b)
{
	while (e > s && (e[-1] == ' ' || e[-1] == '.'))
		e--;
	size_t bl = strlen(b);
	if ((size_t)(e - s) < bl || strncasecmp(e - bl, b, bl) || (e - bl > s && tr_alpha((e - bl)[-1])))
		return 0;
	if (!a)
		return 1;
	const char *q = e - bl;
	while (q > s && q[-1] == ' ')
		q--;
	size_t al = strlen(a);
	return (size_t)(q - s) >= al && !strncasecmp(q - al, a, al) && !(q - al > s && tr_alpha((q - al)[-1]));
}

int tr_backend_start_said(const char *s, size_t n)
{
	static const char *const noun[] = {"self-start", "auto-start", "autostart", "self-launch", "launch", "start",
					   NULL};
	const char *end = s + n, *p = s;
	/* past the tags a prefix left ("[Init] ") */
	for (;;) {
		p = tr_skip_ws(p, end);
		const char *c = p < end && *p == '[' ? memchr(p, ']', (size_t)(end - p)) : NULL;
		if (!c || c - p > 24)
			break;
		p = c + 1;
	}
	const char *w = p;
	while (p < end && (tr_alpha(*p) || *p == '-'))
		p++;
	if (!one_of(w, (size_t)(p - w), noun) || p >= end || *p != ' ')
		return 0;
	/* a name after the noun: a word of its own, not a verb's object in prose */
	const char *nm = tr_skip_ws(p, end);
	if (nm >= end || !(tr_alpha(*nm) || tr_digit(*nm)))
		return 0;
	const char *ne = nm;
	while (ne < end && *ne != ' ')
		ne++;
	if (ne[-1] == ':')
		return 0; /* a key ("Start time: 12:00"), not a name */
	/* the first sentence: to ". " or the line's end */
	const char *e = nm;
	while (e < end && !(*e == '.' && (e + 1 == end || e[1] == ' ' || e[1] == '.')))
		e++;
	if (ends_with(nm, e, "is", "loading") || ends_with(nm, e, "is", "starting"))
		return TR_BK_LOADING;
	if (ends_with(nm, e, NULL, "failed")) {
		const char *q = e;
		while (q > nm && (q[-1] == ' ' || q[-1] == '.'))
			q--;
		q -= 6; /* before "failed": not a negation */
		if (ends_with(nm, q, NULL, "not") || ends_with(nm, q, NULL, "never") || ends_with(nm, q, NULL, "nothing"))
			return 0;
		return TR_BK_FAILED;
	}
	return 0;
}
