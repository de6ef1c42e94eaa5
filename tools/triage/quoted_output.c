/*
 * A failure that quotes the failed process's output: `Command 'health check
 * of container c' timed out after 20 seconds: logs: ggml_cuda_init: ...`,
 * `server exited with code 1, stderr:`, `process failed; output:`. A
 * launcher that gives up on a child (a health check, a runner) prints what
 * the child had said, after its own failure line: those lines are the
 * failed start's own, quoted, not a retry; a load begun in them is the
 * load that failed (load-failed). Read on the failure line only: one of
 * the nouns of a process's output (logs, output, stderr, stdout) as a
 * word, with its colon.
 */
#include <string.h>
#include <strings.h>

#include "internal.h"

int tr_quotes_output(const char *s, size_t n)
{
	static const char *const noun[] = {"logs", "log", "output", "stderr", "stdout"};
	const char *end = s + n;
	/* one pass over the line's colons: the word before each, as a word */
	for (const char *c = memchr(s, ':', n); c; c = memchr(c + 1, ':', (size_t)(end - c - 1))) {
		if (c + 1 < end && c[1] != ' ')
			continue;
		const char *b = c;
		while (b > s && c - b < 6 && tr_alpha(b[-1]))
			b--;
		if (b == c || (b > s && (tr_alpha(b[-1]) || b[-1] == '_')))
			continue;
		size_t wl = (size_t)(c - b);
		for (size_t i = 0; i < sizeof(noun) / sizeof(noun[0]); i++)
			if (strlen(noun[i]) == wl && !strncasecmp(b, noun[i], wl))
				return 1;
		if (c + 1 >= end)
			break;
	}
	return 0;
}
