/*
 * A chat program's answer turn: `### Response: ...`, `Response: ...`,
 * `Assistant: ...`, `Assistant:` alone (the prefilter's `esponse: ` and
 * `ssistant:`). A chat CLI loads its model, shows
 * its help and reads the user's turn; the line that opens the model's
 * answer says the model is up and serving (mlc_chat_cli's `### Response:`
 * after `Finish loading`), so what fails inside the answer is the running
 * app's, not the start's. A pure predicate over one cleaned line: the turn
 * word is the line's first word (after Markdown heading marks, a quote or
 * a list bullet) and a colon follows it; the word inside a sentence, a
 * key of a dump (`response: {`) or a request's (`request: ...`) is none.
 */
#include <string.h>
#include <strings.h>

#include "internal.h"

int tr_chat_answer(const char *s, size_t n)
{
	static const char *const turn[] = {"response", "assistant", NULL};
	const char *p = s, *end = s + n;
	while (p < end && (*p == '#' || *p == '>' || *p == '*' || *p == ' ' || *p == '\t'))
		p++;
	for (const char *const *w = turn; *w; w++) {
		size_t wl = strlen(*w);
		if ((size_t)(end - p) <= wl || strncasecmp(p, *w, wl) || p[wl] != ':')
			continue;
		/* a structure dumped under the key is a server's record, not a turn */
		const char *v = tr_skip_ws(p + wl + 1, end);
		return v == end || *v != '{';
	}
	return 0;
}
