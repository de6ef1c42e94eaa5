/*
 * A server up in the words that give where it answers: `Server started at
 * http://0.0.0.0:7650`, `serving on 127.0.0.1:8080`, `API available at
 * https://host/v1`. An engine that prints no "ready" says it is up by
 * naming the address it serves: a verb of being up (started, running,
 * serving, available, listening) with `at` or `on` and, right after it,
 * an address (a URL, an IP address, localhost, host:port). The verb with
 * anything else after it is not this (`started at 10:42`, `running on
 * cuda:0`, `available on this device`). A pure predicate over one cleaned
 * line, asked only by the ready words (recognise_generic.c) of a line
 * that holds one of those verbs.
 *
 * The same server also says it is up by inviting the user to it: `Please
 * connect to custom endpoint at http://0.0.0.0:5001`, `You can now access
 * the UI at http://127.0.0.1:7860`, `Please open http://localhost:8188`.
 * An invitation is polite or enabling words and a verb of using the
 * address (`please connect`, `you can now access`), then the address after
 * ` at`, ` on`, ` to` or at once; a client's own words about connecting
 * (`Connecting to http://...`, `failed to connect to ...`) invite nobody.
 */
#include <string.h>
#include <strings.h>

#include "internal.h"

/* Does an address begin at @p: a URL, localhost, an IPv4 address or
 * [::], or a host name with its port (`node1:8000`)? */
static int address_at(const char *p, const char *end)
{
	static const char *const scheme[] = {"http://", "https://", "grpc://", "ws://", "localhost", "[::]"};
	for (size_t i = 0; i < sizeof(scheme) / sizeof(scheme[0]); i++) {
		size_t k = strlen(scheme[i]);
		if ((size_t)(end - p) >= k && !strncasecmp(p, scheme[i], k))
			return 1;
	}
	/* 0.0.0.0, 127.0.0.1:8080: four numbers parted by three dots */
	const char *q = p;
	int dots = 0, digits = 0;
	for (; q < end && (tr_digit(*q) || *q == '.'); q++) {
		dots += *q == '.';
		digits += tr_digit(*q);
	}
	if (dots == 3 && digits >= 4 && tr_digit(q[-1]))
		return 1;
	/* "port 8080" */
	if (end - p >= 6 && !strncasecmp(p, "port ", 5) && tr_digit(p[5]))
		return 1;
	/* host:port: a name of letters, digits, dots and dashes, a colon, a
	 * port of digits (not cuda:0, a device and its index: 2 digits at least) */
	q = p;
	while (q < end && (tr_alpha(*q) || tr_digit(*q) || *q == '.' || *q == '-'))
		q++;
	if (q == p || q >= end || *q != ':' || !tr_alpha(*p))
		return 0;
	const char *d = ++q;
	while (q < end && tr_digit(*q))
		q++;
	return q - d >= 2 && (q == end || !tr_alpha(*q));
}

/* Is the word that ends at @e (exclusive) one of @set? Where it begins
 * in *@b. */
static int word_before(const char *s, const char *e, const char *const *set, const char **b0)
{
	const char *b = e;
	while (b > s && e - b < 12 && tr_alpha(b[-1]))
		b--;
	*b0 = b;
	if (b == e || (b > s && tr_alpha(b[-1])))
		return 0;
	size_t wl = (size_t)(e - b);
	for (const char *const *w = set; *w; w++)
		if (strlen(*w) == wl && !strncasecmp(b, *w, wl))
			return 1;
	return 0;
}

/* Does a verb of being up end at @e, or a verb and the thing it started
 * ("started server on", "ready on")? */
static int up_verb_before(const char *s, const char *e)
{
	static const char *const verb[] = {"started", "running", "serving", "available", "listening", "up", "ready",
					   NULL};
	static const char *const thing[] = {"server", "service", "endpoint", "api", "model", "engine", NULL};
	const char *b;
	if (word_before(s, e, verb, &b))
		return 1;
	return word_before(s, e, thing, &b) && b > s + 1 && b[-1] == ' ' && word_before(s, b - 1, verb, &b);
}

/* Does an invitation to use an address end at @e: "please connect to
 * custom endpoint", "you can now access the UI", "please open"? The
 * invitation begins the text before @e, within a few words of it. */
static int invited_before(const char *s, const char *e)
{
	static const char *const inv[] = {"please connect", "please open", "please visit", "please go to",
					  "please navigate", "you can connect", "you can now connect", "you can access",
					  "you can now access", "you can open", "you can now open"};
	for (size_t i = 0; i < sizeof(inv) / sizeof(inv[0]); i++) {
		const char *k = tr_memmem_ci(s, (size_t)(e - s), inv[i]);
		if (k && e - (k + strlen(inv[i])) <= 40)
			return 1;
	}
	return 0;
}

/* Past the address's name before the address itself, as gradio writes
 * it ("local URL:  http://...", "public URL: https://..."): a few words
 * of letters naming a URL or an address, then a colon; @q when none. */
static const char *address_named(const char *q, const char *end)
{
	size_t room = (size_t)(end - q) < 24 ? (size_t)(end - q) : 24;
	const char *c = memchr(q, ':', room);
	if (!c || c - q < 3)
		return q;
	for (const char *p = q; p < c; p++)
		if (!tr_alpha(*p) && *p != ' ')
			return q;
	if (!tr_memmem_ci(q, (size_t)(c - q), "url") && !tr_memmem_ci(q, (size_t)(c - q), "address"))
		return q;
	return tr_skip_ws(c + 1, end);
}

/* A verb of being up before " at" or " on" and the address after it: 1;
 * after its name (address_named): 2. */
static int up_at_address(const char *s, size_t n)
{
	/* each " at" or " on" (as logs write them, lower case) with a space or
	 * a colon after it ("Listening at: http://..."), the verb before it and
	 * the address after it */
	static const char *const prep[] = {" at", " on"};
	const char *end = s + n;
	for (size_t i = 0; i < sizeof(prep) / sizeof(prep[0]); i++)
		for (const char *p = tr_memmem(s, n, prep[i]); p; p = tr_memmem(p + 1, (size_t)(end - p - 1), prep[i])) {
			const char *q = p + 3;
			if (q < end && *q == ':')
				q++;
			if (q >= end || *q != ' ')
				continue;
			while (q < end && *q == ' ')
				q++;
			if (up_verb_before(s, p) && address_at(q, end))
				return 1;
			if (up_verb_before(s, p) && address_at(address_named(q, end), end))
				return 2;
		}
	return 0;
}

int tr_ready_at_address(const char *s, size_t n)
{
	/* an invitation: the address right after its verb or after the
	 * preposition that follows it */
	static const char *const iprep[] = {" at ", " on ", " to ", "open ", "visit ", "access "};
	const char *end = s + n;
	for (size_t i = 0; i < sizeof(iprep) / sizeof(iprep[0]); i++)
		for (const char *p = tr_memmem(s, n, iprep[i]); p;
		     p = tr_memmem(p + 1, (size_t)(end - p - 1), iprep[i])) {
			const char *q = tr_skip_ws(p + strlen(iprep[i]), end);
			if (address_at(q, end) && invited_before(s, p + strlen(iprep[i])))
				return 1;
		}
	return up_at_address(s, n);
}
