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
	static const char *const noun[] = {"logs:", "log:", "output:", "stderr:", "stdout:"};
	const char *end = s + n;
	for (size_t i = 0; i < sizeof(noun) / sizeof(noun[0]); i++) {
		size_t wl = strlen(noun[i]);
		for (const char *p = tr_memmem_ci(s, n, noun[i]); p; p = tr_memmem_ci(p + 1, (size_t)(end - p - 1), noun[i]))
			if (!(p > s && (tr_alpha(p[-1]) || p[-1] == '_')) && (p + wl == end || p[wl] == ' '))
				return 1;
	}
	return 0;
}
