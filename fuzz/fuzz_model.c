/*
 * libFuzzer target: the model header parsers (src/model/model.h) on
 * arbitrary bytes, from memory: the same input read as a safetensors file
 * and as a GGUF file (the magic prepended when it lacks one, so that the
 * fuzzer reaches the KV and tensor sections). Either parser returns 0 or an
 * error with its reason filled; ASan checks the bounds and the leaks.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(int gguf, const uint8_t *data, size_t size)
{
	struct lsc__msrc src = {.fd = -1, .mem = data, .size = size};
	struct lsc__pool pool = {0};
	struct lsc__mfile f = {0};
	struct lsc__merr e = {0};
	int ret = gguf ? lsc__gguf_parse(&src, &pool, &f, &e)
		       : lsc__safetensors_parse(&src, &pool, &f, &e);
	if (ret < 0 && !e.why[0])
		abort(); /* every failure has its reason */
	for (size_t i = 0; ret == 0 && i < f.n; i++)
		if (f.t[i].off + f.t[i].len > f.data_bytes)
			abort(); /* a parsed tensor is inside the file */
	lsc__mfile_free(&f);
	lsc__pool_free(&pool);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(0, data, size);
	if (size >= 4 && !memcmp(data, "GGUF", 4)) {
		one(1, data, size);
		return 0;
	}
	uint8_t *g = malloc(size + 8);
	if (!g)
		return 0;
	memcpy(g, "GGUF\3\0\0\0", 8);
	memcpy(g + 8, data, size);
	one(1, g, size + 8);
	free(g);
	return 0;
}
