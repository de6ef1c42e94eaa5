/*
 * A load's summary with its duration, in words no fixed key names: the
 * past verb and its object before the time (`Loaded models for whisper
 * size: large-v3 in 25.66s`, `Loaded model weights in 3.1 s`), and a key
 * named for the load whose value is a duration with its unit (`load
 * duration: 6.736757958s`, `loading duration = 1m5.2s`, as a program that
 * prints Go's time.Duration gives it). Either says the load finished and
 * how long it took: a load summary, as `Model loaded in N s` is.
 *
 * Not a load to come or denied (`will be loaded in 5 s`, `not loaded in
 * time`), not a part that is no weights (`Loaded tokenizer in 0.2 s`, a
 * config, a dataset, an adapter), not a download or an unload
 * (`Downloaded model in 30 s`: the verb must be a word of its own), not
 * an object that names no weights (`Loaded 5 images in 3 s`), and
 * not a duration that is no load's (`prompt eval duration`, `download
 * duration`). Pure predicates over one cleaned line.
 *
 * And the load's end with its extent and no time: `loaded completely 0.0
 * 159.87 True`, `loaded partially 9617.49 9617.35 0` (an image UI's model
 * manager, the model put on the device whole or in part, with its sizes):
 * the model is in, as `Model x loaded` says. Not a question, not its
 * negation (`not loaded completely`), not prose around it (the verb must
 * open the line, the extent right after it, a figure after that).
 */
#include <string.h>
#include <strings.h>

#include "internal.h"

/* Is @w[0..len) one of @set (lower case), case-blind? */
static int is_one(const char *w, size_t len, const char *const *set)
{
	for (const char *const *x = set; *x; x++)
		if (strlen(*x) == len && !strncasecmp(w, *x, len))
			return 1;
	return 0;
}

/* The word that ends right before @p (spaces skipped), its length in *len. */
static const char *word_before(const char *s, const char *p, size_t *len)
{
	while (p > s && p[-1] == ' ')
		p--;
	const char *b = p;
	while (b > s && tr_alpha(b[-1]))
		b--;
	*len = (size_t)(p - b);
	return b;
}

/* A Go duration ("6.736757958s", "1m37.339828541s", "2h3m", "850ms",
 * "178.535µs") at *p: 1 with the seconds, *p past it. Parts in order of
 * size, each a number and its unit, no space between. */
static int go_duration(const char **pp, const char *end, double *secs)
{
	static const struct { const char *u; double mul; } units[] = {
		{"ms", 1e-3}, {"us", 1e-6}, {"\xc2\xb5s", 1e-6}, {"ns", 1e-9}, {"h", 3600}, {"m", 60}, {"s", 1}};
	const char *p = *pp;
	double sum = 0;
	int parts = 0;
	while (p < end && tr_digit(*p)) {
		double x;
		if (!tr_num(&p, end, &x))
			return 0;
		size_t i = 0;
		for (; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t ul = strlen(units[i].u);
			if ((size_t)(end - p) >= ul && !memcmp(p, units[i].u, ul) &&
			    (p + ul == end || !tr_alpha(p[ul]))) {
				sum += x * units[i].mul;
				p += ul;
				break;
			}
		}
		if (i == sizeof(units) / sizeof(units[0]))
			return 0;
		parts++;
	}
	if (!parts)
		return 0;
	*secs = sum;
	*pp = p;
	return 1;
}

int tr_loaded_in_words(const char *s, size_t n, double *secs)
{
	static const char *const no[] = {"not", "never", "be", "being", "will", "until", "before", "if", NULL};
	static const char *const part[] = {"tokenizer", "vocab", "vocabulary", "config", "configuration", "dataset",
					   "data", "processor", "adapter", "adapters", "lora", "plugin", "plugins",
					   "extension", "extensions", "metadata", NULL};
	static const char *const weights[] = {"model", "models", "weights", "checkpoint", "checkpoints", "shards",
					      "tensors", "safetensors", "gguf", "pipeline", NULL};
	const char *end = s + n;
	/* "oaded" case-sensitively, its first letter either case (the
	 * prefilter found "loaded " or "Loaded "): one fast search a line */
	for (const char *o = s; (o = tr_memmem(o, (size_t)(end - o), "oaded")) != NULL; o += 5) {
		if (o == s || (o[-1] != 'l' && o[-1] != 'L'))
			continue;
		const char *k = o - 1;
		/* the verb as a word: not "Downloaded", "Unloaded", "preloaded" */
		if ((k > s && tr_isword(k[-1])) || (k + 6 < end && tr_isword(k[6])))
			continue;
		size_t bl;
		const char *b = word_before(s, k, &bl);
		if (bl && is_one(b, bl, no))
			continue;
		/* its object, then "in" and the duration, in one clause: no
		 * sentence break, list or second clause between; the object
		 * names the model's weights in some word (not "5 images") */
		int named = 0;
		for (const char *p = k + 6, *lim = k + 6 + 96; p < end && p < lim; p++) {
			if (*p == ';' || *p == ',' || *p == '|' || *p == '(' || (*p == '.' && p + 1 < end && p[1] == ' '))
				break;
			if (!tr_alpha(*p) || (p > s && tr_alpha(p[-1])))
				continue;
			const char *w = p;
			while (p < end && tr_alpha(*p))
				p++;
			size_t wl = (size_t)(p - w);
			if (is_one(w, wl, part))
				break;
			named |= is_one(w, wl, weights);
			if (wl == 2 && !strncasecmp(w, "in", 2) && p < end && *p == ' ' && named) {
				const char *q = tr_skip_ws(p, end);
				double v;
				if (q < end && tr_digit(*q) && (tr_dur_s(&q, end, &v) || go_duration(&q, end, &v)) &&
				    v >= 0 && v < 1e7) {
					*secs = v;
					return 1;
				}
				/* an "in" of the object's ("in fp16", "in 4 bit"):
				 * the duration's may follow in the same clause */
			}
			p--;
		}
	}
	return 0;
}

int tr_load_duration_key(const char *s, size_t n, double *secs)
{
	static const char *const load[] = {"load", "loading"};
	const char *end = s + n;
	/* "uration" case-sensitively (the prefilter found "oad duration" or
	 * "oad_duration"), then the load's word before it, in either case:
	 * one fast search for the many lines with other figures */
	for (const char *u = s; (u = tr_memmem(u, (size_t)(end - u), "uration")) != NULL; u += 7) {
		if (u - s < 2 || (u[-1] != 'd' && u[-1] != 'D') || (u[-2] != ' ' && u[-2] != '_'))
			continue;
		const char *sep = u - 2;
		for (size_t i = 0; i < sizeof(load) / sizeof(load[0]); i++) {
			size_t ll = strlen(load[i]);
			if ((size_t)(sep - s) < ll)
				continue;
			const char *k = sep - ll;
			/* the key's first word: not "download duration" */
			if (strncasecmp(k, load[i], ll) || (k > s && tr_isword(k[-1])))
				continue;
			const char *p = u + 7;
			while (p < end && (*p == ' ' || *p == '"'))
				p++;
			if (p >= end || (*p != ':' && *p != '='))
				continue;
			p = tr_skip_ws(p + 1, end);
			while (p < end && *p == '"')
				p++;
			const char *q = p;
			double v;
			/* the unit is the value's (a bare number is some unit no key says) */
			if (q < end && tr_digit(*q) && (go_duration(&q, end, &v) || (q = p, tr_dur_s(&q, end, &v))) &&
			    (q == end || !tr_alpha(*q)) && v >= 0 && v < 1e7) {
				*secs = v;
				return 1;
			}
		}
	}
	return 0;
}

int tr_loaded_extent(const char *s, size_t n)
{
	static const char *const extent[] = {"completely", "partially", "fully", NULL};
	const char *end = s + n, *p = tr_skip_ws(s, end);
	if (end - p < 7 || strncasecmp(p, "loaded ", 7))
		return 0;
	const char *w = tr_skip_ws(p + 7, end), *e = w;
	while (e < end && tr_alpha(*e))
		e++;
	if (!is_one(w, (size_t)(e - w), extent))
		return 0;
	const char *f = tr_skip_ws(e, end);
	return f < end && tr_digit(*f) && !memchr(s, '?', n);
}
