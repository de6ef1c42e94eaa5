/*
 * An amount of memory moved over a time, in the words every engine uses
 * for it: "pinned 28.47 GiB in 18 s", "copied 12 GB in 9.5 s", "read
 * 4,000 MiB in 2 min". A size followed by "in" and a duration, or by a
 * verb of the load and "at" a rate ("5.21 GB loaded at 3.74 GB/s": the time
 * is the size over the rate), is a load's
 * own measure (a rate), whoever printed it, so the shared vocabulary reads
 * it for an engine no shape names; a line that only says how long
 * something took (or when the engine was ready) gives no size, and a
 * ready time that includes other work would make a fast load look slow.
 * A download or an upload is not the load (its bytes come over a
 * network, not from the model's storage into memory).
 */
#include <string.h>

#include "internal.h"

/* Does @s[0..n) say it moved memory (the verbs of a load), not fetched it
 * over a network? */
static int moving_words(const char *s, size_t n)
{
	static const char *const verbs[] = {"pinned", "copied", "copying", "read", "loaded", "loading", "allocated",
					    "mapped", "transferred", "streamed", "moved", "registered", "resident",
					    "prefetched", "populated", "locked"};
	static const char *const net[] = {"download", "upload", "fetched", "pulled", "received", "sent"};
	for (size_t i = 0; i < sizeof(net) / sizeof(net[0]); i++)
		if (tr_memmem_ci(s, n, net[i]))
			return 0;
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		size_t vl = strlen(verbs[i]);
		for (const char *k = s; (k = tr_memmem_ci(k, (size_t)(s + n - k), verbs[i])) != NULL; k++)
			if ((k == s || !tr_isword(k[-1])) && (k + vl == s + n || !tr_isword(k[vl])))
				return 1;
	}
	return 0;
}

/* "5.21 GB loaded at 3.74 GB/s", "copied 12 GB at 1.2 GB/s": after a
 * size, a verb of the load (or the verb before it: the caller checks the
 * line's) and "at" a rate; 1 with the rate. */
static int moved_at(const char *q, const char *end, double *rate)
{
	const char *w = q;
	while (q < end && tr_alpha(*q))
		q++;
	if (q - w == 2 && !memcmp(w, "at", 2))
		q = w; /* the rate right after the size */
	else if (q == w || !moving_words(w, (size_t)(q - w)))
		return 0;
	q = tr_skip_ws(q, end);
	if (end - q < 4 || memcmp(q, "at ", 3))
		return 0;
	q = tr_skip_ws(q + 3, end);
	return q < end && tr_digit(*q) && tr_rate_gibps(&q, end, rate) && *rate > 0;
}

int tr_moved_in(const char *s, size_t n, double *gib, double *secs)
{
	const char *end = s + n;
	int at = tr_memmem(s, n, " at ") != NULL;
	if (!at && !tr_memmem(s, n, " in "))
		return 0;
	for (const char *p = s; p < end; p++) {
		/* a number's first digit: not inside another number or a name */
		if (!tr_digit(*p) || (p > s && (tr_digit(p[-1]) || p[-1] == '.' || p[-1] == ',' || tr_isword(p[-1]))))
			continue;
		const char *q = p;
		double g, d;
		if (!tr_size_gib(&q, end, &g))
			continue;
		q = tr_skip_ws(q, end);
		double r;
		if (at && g >= 1.0 / 1024 && g < 1e6 && moved_at(q, end, &r) && moving_words(s, n)) {
			*gib = g;
			*secs = g / r;
			return 1;
		}
		if (end - q < 4 || memcmp(q, "in ", 3))
			continue;
		q = tr_skip_ws(q + 3, end);
		/* a megabyte or more, a sane time: the figure of a load */
		/* the verbs last: most lines with a size and "in" have no duration */
		if (q < end && tr_digit(*q) && tr_dur_s(&q, end, &d) && g >= 1.0 / 1024 && g < 1e6 && d > 0 && d < 1e7 &&
		    moving_words(s, n)) {
			*gib = g;
			*secs = d;
			return 1;
		}
	}
	return 0;
}
