/*
 * The model loaded, in the words any engine uses for it: `Model llama3
 * loaded.`, `Successfully loaded model x`, `model x loaded successfully`,
 * `the model is loaded`, `all shards loaded`, `All models loaded.` (the
 * plural right before the verb). The verb loaded as a word
 * with the model, its weights, its checkpoint or its shards as a word of
 * the same line (or its tensors: `Loaded tensors from manifest`) says the
 * load ended: the weights are in (a load summary in
 * all but its figures; the server may still have to come up after it,
 * and a failure after it fails the start; a count and its noun, `Loaded
 * 310 tensors, 1136.5 MB`, is what loaded). Not a load still under way or
 * one to come (`loaded 51%`, `loaded 3/10`, `to be loaded`, `being
 * loaded`, `will be loaded`), not its negation (`not loaded`, `failed`,
 * `before the model loaded`, a hedge: `if the model loaded`), and not a
 * part that is no weights (a config, metadata, a vocabulary, a tokenizer,
 * an adapter) or a step on the way to the model (its state dict read in,
 * `Model dict loaded`: the model is built from it after), nor a list of
 * models loaded before (`last loaded models`, `recently loaded`) or a
 * model taken off one (`Removing model from ...`).
 * A pure predicate over one cleaned line, asked of the lines
 * the prefilter finds `loaded ` in.
 *
 * Or the statement that the load went well, alone (`[llama-cpp] Loads
 * OK`, `model load succeeded`), or that the model's init ended (`New LLM
 * model initialized`).
 *
 * The same end on the line that began the load: `Loading model ...
 * done`, `loading weights: ok`, the last word saying the step finished
 * (a loader that prints its step and, when it returns, its result).
 */
#include <string.h>
#include <strings.h>

#include "internal.h"

/* Is the word @w[0..len) one of @set (lower case), case-blind? */
static int one_of(const char *w, size_t len, const char *const *set)
{
	unsigned char c0 = tr_lower((unsigned char)w[0]);
	for (const char *const *x = set; *x; x++)
		if ((unsigned char)(*x)[0] == c0 && strlen(*x) == len && !strncasecmp(w, *x, len))
			return 1;
	return 0;
}

/* "[llama-cpp] Loads OK", "model load succeeded", "Weights loaded
 * successfully": the line's statement is that the load went well, its
 * last two words the verb and the word for it, and the words before them
 * (after the line's last tag in brackets) only the subject (LocalAI says
 * it of its backend this way). Not a longer sentence around them ("the load ok'd by ..."). */
static int load_went_well(const char *s, size_t n)
{
	static const char *const verb[] = {"load", "loads", "loaded", NULL};
	static const char *const well[] = {"ok", "okay", "succeeded", "successfully", "successful", "fine", NULL};
	static const char *const before[] = {"model", "weights", "checkpoint", "the", NULL};
	/* after the last tag in brackets: what a prefix left before it (a
	 * clock, a level) is not the statement's */
	const char *w[8], *end = s + n, *from = memrchr(s, ']', n);
	from = from ? from + 1 : s;
	size_t wl[8], nw = 0;
	for (const char *p = from; p < end && nw < 8; p++) {
		if (!tr_alpha(*p) || (p > from && tr_alpha(p[-1])))
			continue;
		const char *b = p;
		while (p < end && tr_alpha(*p))
			p++;
		w[nw] = b, wl[nw++] = (size_t)(p - b);
		p--;
	}
	if (nw < 2 || nw > 4 || !one_of(w[nw - 2], wl[nw - 2], verb) || !one_of(w[nw - 1], wl[nw - 1], well))
		return 0;
	for (size_t i = 0; i + 2 < nw; i++)
		if (!one_of(w[i], wl[i], before))
			return 0;
	return !memchr(s, '?', n);
}

/* "✅ New LLM model initialized", "Model initialised.": the model's init
 * ended, its load in other words; the model the word right before the
 * verb (not "Initialized model parallel groups", a verb before its
 * object). Not negated or to come ("model not initialized", "will be"),
 * not a question, not a failure. */
static int model_initialized(const char *s, size_t n)
{
	static const char *const no[] = {"not", "never", "be", "being", "will", "if", "when", "until", "before",
					 "once", "whether", "uninitialized", NULL};
	const char *end = s + n, *k = tr_memmem_ci(s, n, "model initiali");
	if (!k || (k > s && tr_alpha(k[-1])) || end - k < 17 || (k[14] != 'z' && k[14] != 's') ||
	    strncasecmp(k + 15, "ed", 2) || (k + 17 < end && tr_alpha(k[17])))
		return 0;
	return !tr_any_word(s, n, no) && !tr_says_failed(s, n) && !memchr(s, '?', n);
}

/* "successfully loaded 'fastertransformer' version 1" (Triton): the verb's
 * object a quoted name, the model the server calls by it; not a file
 * that is no weights ("loaded 'config.json'"). */
static int named_after(const char *p, const char *end)
{
	static const char *const cfg[] = {".json", ".yaml", ".yml", ".txt", ".py", ".toml", NULL};
	while (p < end && *p == ' ')
		p++;
	if (p >= end || (*p != '\'' && *p != '"' && *p != '`'))
		return 0;
	const char *q = memchr(p + 1, *p, (size_t)(end - p - 1));
	if (!q || q - p < 2)
		return 0;
	for (const char *const *c = cfg; *c; c++)
		if (tr_memmem_ci(p + 1, (size_t)(q - p - 1), *c))
			return 0;
	return 1;
}

int tr_model_loaded_words(const char *s, size_t n)
{
	if (load_went_well(s, n) || model_initialized(s, n))
		return 1;
	static const char *const subj[] = {"model", "weights", "checkpoint", "shards", "tensors", NULL};
	static const char *const no[] = {"not", "never", "before", "until", "being", "will", "be", "if", "when",
					 "whether", "after", "once", "reusing", "reused", "using", "keeping", "kept",
					 "existing", "previously", "config", "configuration", "metadata", "meta", "vocab",
					 "vocabulary", "tokenizer", "adapter", "lora", "already", "unloaded", "cannot",
					 /* a step on the way: the state dict read in, the model
					  * not yet built from it (`Model dict loaded: {...}`) */
					 "dict",
					 /* a list of the models loaded before, what is done to it
					  * ("Removing model from last loaded models: m") */
					 "recently", "removing", "removed", "list", NULL};
	const char *end = s + n, *v = NULL;
	/* "no models loaded": the word right before the subject; "All models
	 * loaded": the plural only right before the verb (a count of models
	 * in something else that loaded is not them: "map loaded with 2 models") */
	int has = 0, none = 0, models = 0;
	/* one pass over the line's words */
	for (const char *p = s; p < end;) {
		while (p < end && !tr_alpha(*p))
			p++;
		const char *b = p;
		while (p < end && tr_alpha(*p))
			p++;
		size_t len = (size_t)(p - b);
		if (len < 2 || len > 13)
			continue;
		/* a part of a name in code, not the event: `is_model_loaded
		 * false` is a flag's value read out */
		if ((b > s && b[-1] == '_') || (p < end && *p == '_'))
			continue;
		if (len == 6 && !v && !strncasecmp(b, "loaded", 6)) {
			v = b;
			has |= models;
		} else if (!has && one_of(b, len, subj) && !none)
			has = 1;
		else if (one_of(b, len, no))
			return 0;
		models = len == 6 && !strncasecmp(b, "models", 6) && !none && p < end && *p == ' ';
		none = len == 2 && !strncasecmp(b, "no", 2);
	}
	if (!v || (!has && !named_after(v + 6, end)))
		return 0;
	/* still under way after the verb: a share or a count of a whole
	 * ("loaded 51%", "3/10", "3 of 10 shards"); a count then its noun
	 * ("Loaded 310 tensors, 1136.5 MB") is what loaded, a summary */
	const char *p = v + 6;
	while (p < end && *p == ' ')
		p++;
	const char *q = p;
	while (q < end && (tr_digit(*q) || *q == '.'))
		q++;
	if (q > p && q < end && (*q == '%' || *q == '/'))
		return 0;
	if (q > p && q < end && *q == ' ') {
		const char *w = q + 1, *we = w;
		while (we < end && tr_alpha(*we))
			we++;
		if (!one_of(w, (size_t)(we - w), subj) && !(we - w == 6 && !strncasecmp(w, "layers", 6)))
			return 0;
	}
	return !tr_says_failed(s, n) && !memchr(s, '?', n);
}

int tr_load_said_done(const char *s, size_t n)
{
	static const char *const fin[] = {"done", "ok", "finished", "complete", "completed", "success"};
	while (n && !(tr_alpha(s[n - 1]) || tr_digit(s[n - 1])))
		n--;
	size_t b = n;
	while (b > 0 && tr_alpha(s[b - 1]))
		b--;
	if (b == 0 || b == n || tr_digit(s[b - 1]))
		return 0;
	/* "45% done", "3/10 done": a share of it, still under way */
	size_t k = b;
	while (k > 0 && s[k - 1] == ' ')
		k--;
	if (k > 0 && (s[k - 1] == '%' || tr_digit(s[k - 1])))
		return 0;
	for (size_t i = 0; i < sizeof(fin) / sizeof(fin[0]); i++)
		if (strlen(fin[i]) == n - b && !strncasecmp(s + b, fin[i], n - b))
			return !tr_says_failed(s, n);
	return 0;
}
