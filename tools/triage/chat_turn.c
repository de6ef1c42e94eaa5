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
 *
 * And a chat CLI's list of its commands, shown once the model is up and
 * the CLI waits for the user's turn (llama-cli's `  /exit or Ctrl+C
 * stop or exit` under `available commands:`): the command to leave as the
 * line's first word, described after it.
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

int tr_repl_help(const char *s, size_t n)
{
	static const char *const leave[] = {"/exit", "/quit", "/bye", NULL};
	const char *p = s, *end = s + n;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	for (const char *const *w = leave; *w; w++) {
		size_t wl = strlen(*w);
		/* its description after it ("or Ctrl+C  stop or exit", "  quit"),
		 * not the user's own turn (`> /exit`, `/exit`) */
		if ((size_t)(end - p) > wl + 1 && !memcmp(p, *w, wl) && p[wl] == ' ' && tr_skip_ws(p + wl, end) < end)
			return 1;
	}
	return 0;
}
