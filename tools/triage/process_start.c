/*
 * A process that says it started, with its id: `Started server process
 * [4803]` (uvicorn, under every Python server), `Starting worker process
 * (pid 12)`, `process 4803 started`. After a start that was up, such a
 * line is another process coming up: a second start (a launcher that
 * starts a model server and then its API server, two runs pasted one
 * after the other). Within a start under way it is that start's own
 * process, and adds nothing. A pure predicate over one cleaned line: the
 * verb (started, starting), the noun process, and a pid (a number in
 * brackets or parentheses, or after "pid").
 */
#include <string.h>
#include <strings.h>

#include "internal.h"

static const char *word_at(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);
	const char *end = s + n;
	for (const char *p = tr_memmem_ci(s, n, w); p; p = tr_memmem_ci(p + 1, (size_t)(end - p - 1), w))
		if (!(p > s && tr_alpha(p[-1])) && !(p + wl < end && tr_alpha(p[wl])))
			return p;
	return NULL;
}

int tr_process_started(const char *s, size_t n)
{
	const char *end = s + n, *proc = word_at(s, n, "process");
	if (!proc || !(word_at(s, n, "started") || word_at(s, n, "starting")) || tr_says_failed(s, n))
		return 0;
	/* the pid: "[4803]", "(pid 12)", "pid=12", "process 4803" */
	for (const char *p = proc + 7; p < end && p < proc + 7 + 24; p++) {
		if (!tr_digit(*p))
			continue;
		const char *b = p;
		while (p < end && tr_digit(*p))
			p++;
		int opened = b > s && (b[-1] == '[' || b[-1] == '(' || b[-1] == '=' || b[-1] == ' ');
		int closed = p == end || *p == ']' || *p == ')' || *p == ' ' || *p == ',' || *p == '.';
		return opened && closed;
	}
	return 0;
}
