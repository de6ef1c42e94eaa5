/*
 * /proc/pressure/memory, read at the begin and the end of every span: the
 * time, in microseconds since boot, during which some task (`some`) or
 * every non-idle task (`full`) was stalled on memory: reclaim, compaction,
 * refaults of thrashed pages. A phase that crawls because its faults
 * compact (seed 001) shows it here as stall time of the same size as its
 * wall time, which no rate can say as plainly.
 *
 * The counters are the whole system's (the root cgroup's), not this
 * process's. Kernels before 4.20, kernels booted with psi=0 (the file is
 * there and a read fails with EOPNOTSUPP) and sandboxes without /proc/pressure
 * give n/a. Like vmstat.c this is the span path: a buffer on the stack, no
 * allocation, no stdio.
 */
#include <errno.h>
#include <string.h>

#include "host/procfs.h"

/* The "total=" value of the line that starts with @word ("some", "full"):
 * digits up to a blank or the end of the line; -1 when absent or garbage. */
static int64_t total_of(const char *text, size_t len, const char *word)
{
	const char *p = text, *end = text + len;
	size_t wl = strlen(word);

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((size_t)(nl - p) > wl && !memcmp(p, word, wl) && p[wl] == ' ') {
			const char *t = p + wl;
			for (; t + 6 <= nl; t++)
				if (t[-1] == ' ' && !memcmp(t, "total=", 6))
					break;
			if (t + 6 > nl)
				return -1;
			const char *s = t + 6, *e = s;
			while (e < nl && *e != ' ' && *e != '\t')
				e++;
			int64_t v;
			if (e == s || lsc__parse_i64(s, e, &v) < 0 || v < 0 || *s == '-' || *s == '+')
				return -1;
			return v;
		}
		p = nl + 1;
	}
	return -1;
}

int lsc__psi_parse(const char *text, size_t len, struct lsc__psi *out)
{
	out->some_us = total_of(text, len, "some");
	out->full_us = total_of(text, len, "full");
	return out->some_us >= 0 ? 0 : -EINVAL;
}

int lsc__psi_read(const char *proc_root, struct lsc__psi *out)
{
	char buf[512];
	ssize_t n = lsc__read_lines(proc_root ? proc_root : "/proc", "pressure/memory", buf,
				    sizeof(buf));
	if (n < 0) {
		out->some_us = out->full_us = -1;
		return (int)n;
	}
	return lsc__psi_parse(buf, (size_t)n, out);
}
