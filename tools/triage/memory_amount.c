/*
 * An amount of memory the start brought in, in any engine's words: `Loaded
 * engine size: 15323 MiB`, `Allocated 1504.00 MiB for execution context
 * memory`, `Allocating 5033164800 bytes`, `reserved 12 GiB for the KV
 * cache`. A verb of bringing memory in (loaded, allocated, allocating,
 * reserved, mapped) as a whole word, and a size close after it: a start
 * under way, in an engine no shape names, where nothing else opened one
 * (a paste that begins after the engine's first lines). Not a failure (a
 * refusal is pinned_refused's and the failure words'), not what is free
 * or available, not a download. The size is not taken as the model's:
 * an allocation of the KV cache or of scratch memory is not the weights.
 */
#include <string.h>
#include <strings.h>

#include "internal.h"

int tr_memory_brought(const char *s, size_t n)
{
	static const char *const verb[] = {"loaded", "allocated", "allocating", "reserved", "reserving", "mapped"};
	static const char *const not_in[] = {"free", "available", "download", "downloaded", "unloaded"};
	const char *end = s + n, *v = NULL;
	size_t vl = 0;
	for (size_t i = 0; i < sizeof(verb) / sizeof(verb[0]) && !v; i++) {
		vl = strlen(verb[i]);
		for (const char *p = tr_memmem_ci(s, n, verb[i]); p; p = tr_memmem_ci(p + 1, (size_t)(end - p - 1), verb[i]))
			if (!(p > s && tr_alpha(p[-1])) && !(p + vl < end && tr_alpha(p[vl]))) {
				v = p;
				break;
			}
	}
	if (!v)
		return 0;
	/* the size: the first number within a few words after the verb */
	const char *p = v + vl, *lim = p + 40 < end ? p + 40 : end;
	while (p < lim && !tr_digit(*p))
		p++;
	double gib;
	if (p >= lim || (p > s && (tr_alpha(p[-1]) || p[-1] == '.')) || !tr_size_gib(&p, end, &gib) ||
	    !(gib >= 1.0 / 1024 && gib < 1e6))
		return 0;
	for (size_t i = 0; i < sizeof(not_in) / sizeof(not_in[0]); i++) {
		const char *w = tr_memmem_ci(s, n, not_in[i]);
		if (w && !(w > s && tr_alpha(w[-1])) && !(w + strlen(not_in[i]) < end && tr_alpha(w[strlen(not_in[i])])))
			return 0;
	}
	return !tr_says_failed(s, n);
}
