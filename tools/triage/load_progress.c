/*
 * A load under way in the words every loader prints while it reads: a
 * line per tensor ("loading blk.48.attn_kv_b.weight to cuda:0"), a
 * share of the model done ("loaded  51% model tensors into buffer",
 * "loaded 45% of the weights"), and a count of the model's parts and
 * their total in a record a server streams as it loads
 * (`{"model_type":"model","module":4,"modules":163}`), a part loaded by
 * its number (`Loaded enoch/llama-65b-hf block 73`), and a model file
 * opened with its count of tensors (`[GGUF] /m/x.gguf: 678 tensors, data
 * at offset 56800`: another file of the load, after a part's summary the
 * load not over). Neither says the load began or ended: a
 * paste that stops on them stops while the model is still loading, and
 * the shares with their lines' clocks say how long the whole load takes
 * (verdict.c's progress rate). Read by the shared vocabulary
 * (recognise_generic.c) for an engine no shape names; pure predicates
 * over one cleaned line, so the cost is a few comparisons on the lines
 * the prefilter hands over (a tensor's suffix, a percentage).
 */
#include <string.h>
#include <strings.h>

#include "internal.h"


/* The verb of a load at @p ("loading", "loaded", "load"), as a whole word:
 * its end, or NULL. */
static const char *load_verb(const char *s, const char *p, const char *end)
{
	static const char *const verbs[] = {"loading", "loaded", "load"};
	if (p > s && tr_alpha(p[-1]))
		return NULL;
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		size_t vl = strlen(verbs[i]);
		if ((size_t)(end - p) >= vl && !strncasecmp(p, verbs[i], vl) && (p + vl == end || !tr_alpha(p[vl])))
			return p + vl;
	}
	return NULL;
}

int tr_tensor_loading(const char *s, size_t n)
{
	const char *end = s + n;
	static const char *const tails[] = {".weight", ".bias"};
	for (const char *p = s; p + 4 < end; p++) {
		if ((*p | 32) != 'l')
			continue;
		const char *q = load_verb(s, p, end);
		if (!q)
			continue;
		q = tr_skip_ws(q, end);
		/* a tensor's name: dotted parts of a module path, ending in what
		 * a layer holds ("blk.48.attn_kv_b.weight", "model.layers.3.mlp.bias") */
		const char *b = q;
		int dots = 0;
		while (q < end && (tr_isword(*q) || *q == '_' || *q == '.'))
			dots += *q++ == '.';
		if (dots < 2)
			continue;
		for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
			size_t tl = strlen(tails[i]);
			if ((size_t)(q - b) > tl && !memcmp(q - tl, tails[i], tl))
				return 1;
		}
	}
	return 0;
}

int tr_part_loaded(const char *s, size_t n)
{
	/* the model's parts by number: a server that holds a span of blocks
	 * (Petals' "Loaded enoch/llama-65b-hf block 73"), a layer, a shard */
	static const char *const parts[] = {"block", "layer", "shard"};
	const char *end = s + n;
	for (const char *p = s; p + 6 < end; p++) {
		if ((*p | 32) != 'l')
			continue;
		const char *q = load_verb(s, p, end);
		if (!q || q - p != 6) /* "loaded": the part is in */
			continue;
		/* the part's word within the next three words, then its number */
		for (int w = 0; w < 3 && q < end; w++) {
			q = tr_skip_ws(q, end);
			const char *b = q;
			while (q < end && *q != ' ')
				q++;
			int part = 0; /* the whole word, not a name that holds it ("kv_block") */
			for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]) && !part; i++)
				part = (size_t)(q - b) == strlen(parts[i]) && !strncasecmp(b, parts[i], (size_t)(q - b));
			if (!part)
				continue;
			const char *d = tr_skip_ws(q, end), *e = d;
			while (e < end && tr_digit(*e))
				e++;
			if (e > d && (e == end || *e == ',' || *e == ' ' || *e == ':'))
				return 1;
		}
	}
	return 0;
}

int tr_model_file_opened(const char *s, size_t n)
{
	static const char *const ext[] = {".gguf:", ".safetensors:", ".onnx:"};
	const char *end = s + n;
	if (!tr_memmem(s, n, " tensors"))
		return 0;
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		const char *k = tr_memmem(s, n, ext[i]);
		if (!k)
			continue;
		const char *p = tr_skip_ws(k + strlen(ext[i]), end), *q = p;
		while (q < end && tr_digit(*q))
			q++;
		if (q > p && end - q >= 8 && !memcmp(q, " tensors", 8) && (q + 8 == end || !tr_alpha(q[8])))
			return 1;
	}
	return 0;
}

int tr_percent_loaded(const char *s, size_t n, double *frac)
{
	const char *end = s + n;
	static const char *const what[] = {"model", "tensors", "weights", "checkpoint", "shards", "layers"};
	const char *pc = memchr(s, '%', n);
	if (!pc)
		return 0;
	for (const char *p = s; p + 4 < pc; p++) {
		if ((*p | 32) != 'l')
			continue;
		const char *q = load_verb(s, p, end);
		if (!q)
			continue;
		/* the verb, then the share: "loaded  51%", "Loading: 45 %", or
		 * the share under its key after the object ("Loading
		 * stable-whisper model... Progress: 30%") */
		const char *pk = tr_memmem_ci(q, (size_t)(pc - q), "progress");
		if (pk)
			q = pk + 8;
		while (q < pc && (*q == ' ' || *q == ':' || *q == '\t'))
			q++;
		double v;
		if (q >= pc || !tr_digit(*q) || !tr_num(&q, end, &v))
			continue;
		q = tr_skip_ws(q, end);
		if (q != pc || !(v >= 0 && v <= 100))
			continue;
		/* and a part of the model is what it loads (not a download's share) */
		for (size_t i = 0; i < sizeof(what) / sizeof(what[0]); i++)
			if (tr_memmem_ci(s, n, what[i]) && !tr_memmem_ci(s, n, "download")) {
				*frac = v / 100;
				return 1;
			}
		return 0;
	}
	return 0;
}

/* The number after `"@key":` at the record's key @k (the quote after the
 * key included in @key): 1 with it in *v. */
static int key_number(const char *s, const char *end, const char *key, double *v)
{
	size_t kl = strlen(key);
	for (const char *k = s; (k = tr_memmem(k, (size_t)(end - k), key)) != NULL; k += kl) {
		if (k == s || k[-1] != '"')
			continue;
		const char *p = tr_skip_ws(k + kl, end);
		if (p < end && *p == ':')
			p = tr_skip_ws(p + 1, end);
		if (p < end && tr_digit(*p) && tr_num(&p, end, v))
			return 1;
	}
	return 0;
}

int tr_parts_counted(const char *s, size_t n, double *frac)
{
	/* a part of the model and its plural, the total */
	static const char *const parts[][2] = {{"module\"", "modules\""}, {"layer\"", "layers\""},
					       {"shard\"", "shards\""}, {"tensor\"", "tensors\""}};
	const char *end = s + n;
	if (!memchr(s, '{', n) || !(tr_memmem_ci(s, n, "model") || tr_memmem_ci(s, n, "load")) ||
	    tr_memmem_ci(s, n, "download"))
		return 0;
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		double k, all;
		if (key_number(s, end, parts[i][0], &k) && key_number(s, end, parts[i][1], &all) && all > 0 &&
		    k <= all) {
			*frac = k / all;
			return 1;
		}
	}
	return 0;
}
