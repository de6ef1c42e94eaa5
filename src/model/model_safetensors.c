/*
 * The safetensors header (huggingface/safetensors, "Format"): an 8-byte
 * little-endian length N, then N bytes of UTF-8 JSON starting with '{'
 * (possibly padded with spaces), then the data. Each key of the JSON object
 * is a tensor, {"dtype", "shape", "data_offsets": [begin, end]}, the
 * offsets relative to the start of the data; the optional "__metadata__"
 * maps strings to strings. The format asks readers to refuse a header over
 * 100 MB, and a data buffer that is not entirely indexed (holes would allow
 * polyglot files), which is what lsc__mfile_check(contiguous) enforces.
 *
 * Every length is checked against the dtype and shape, with overflow
 * checks, so that an extent never reaches past what the header claims.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/json.h"
#include "model/model.h"

/* The dtypes the format defines, with their size in bits. */
static const struct {
	const char *name;
	unsigned bits;
} dtypes[] = {
	{"BOOL", 8}, {"U8", 8}, {"I8", 8}, {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8},
	{"E8M0", 8}, {"I16", 16}, {"U16", 16}, {"F16", 16}, {"BF16", 16}, {"I32", 32},
	{"U32", 32}, {"F32", 32}, {"C64", 64}, {"F64", 64}, {"I64", 64}, {"U64", 64},
	{"F4", 4}, {"F6_E2M3", 6}, {"F6_E3M2", 6},
};

static int dtype_find(const char *s, const char **name, unsigned *bits)
{
	for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (!strcmp(dtypes[i].name, s)) {
			*name = dtypes[i].name;
			*bits = dtypes[i].bits;
			return 0;
		}
	return -1;
}

static int bad_json(struct lsc__json *j, struct lsc__merr *e, const char *name)
{
	size_t pos;
	const char *why = lsc__json_error(j, &pos);
	if (name)
		return lsc__merr_set(e, lsc__json_errno(j), 8 + pos, "header JSON at byte %zu (tensor \"%s\"): %s",
				     pos, name, why ? why : "malformed");
	return lsc__merr_set(e, lsc__json_errno(j), 8 + pos, "header JSON at byte %zu: %s", pos,
			     why ? why : "malformed");
}

static int metadata(struct lsc__json *j)
{
	const char *k, *v;
	int r;
	if (lsc__json_peek(j) != LSC__J_OBJECT)
		return lsc__json_fail(j, "__metadata__ is not an object");
	if (lsc__json_object(j) < 0)
		return -1;
	while ((r = lsc__json_key(j, &k, NULL)) == 1) {
		if (lsc__json_peek(j) != LSC__J_STRING)
			return lsc__json_fail(j, "a __metadata__ value that is not a string");
		if (lsc__json_string(j, &v, NULL) < 0)
			return -1;
	}
	return r;
}

/* One tensor's object; its name is already in @t. */
static int tensor(struct lsc__json *j, struct lsc__pool *pool, struct lsc__mtensor *t,
		  uint64_t data_off, struct lsc__merr *e)
{
	const char *k;
	int r, have_dtype = 0, have_shape = 0, have_off = 0;
	unsigned bits = 0;
	uint64_t begin = 0, end = 0;
	if (lsc__json_peek(j) != LSC__J_OBJECT)
		return lsc__json_fail(j, "a tensor entry that is not an object");
	if (lsc__json_object(j) < 0)
		return -1;
	while ((r = lsc__json_key(j, &k, NULL)) == 1) {
		if (!strcmp(k, "dtype")) {
			const char *d;
			if (have_dtype++)
				return lsc__json_fail(j, "dtype given twice");
			if (lsc__json_peek(j) != LSC__J_STRING)
				return lsc__json_fail(j, "a dtype that is not a string");
			if (lsc__json_string(j, &d, NULL) < 0)
				return -1;
			if (dtype_find(d, &t->dtype, &bits) < 0)
				return lsc__json_fail(j, "a dtype the format does not define");
		} else if (!strcmp(k, "shape")) {
			if (have_shape++)
				return lsc__json_fail(j, "shape given twice");
			if (lsc__json_peek(j) != LSC__J_ARRAY || lsc__json_array(j) < 0)
				return lsc__json_fail(j, "a shape that is not an array");
			/* The shape is read twice: counted, then kept, so the pool
			 * holds exactly n_dims numbers. */
			size_t at = j->pos;
			unsigned depth = j->depth;
			uint32_t n = 0;
			uint64_t v;
			while ((r = lsc__json_more(j)) == 1) {
				if (lsc__json_u64(j, &v) < 0)
					return -1;
				if (++n > 1024)
					return lsc__json_fail(j, "a shape of more than 1024 dimensions");
			}
			if (r < 0)
				return -1;
			uint64_t *dims = lsc__pool_alloc(pool, (n ? n : 1) * sizeof(*dims));
			if (!dims)
				return lsc__merr_set(e, -ENOMEM, 0, "out of memory for tensor shapes");
			j->pos = at;
			j->depth = depth;
			j->first[depth] = 1;
			for (uint32_t i = 0; lsc__json_more(j) == 1; i++)
				lsc__json_u64(j, &dims[i]);
			t->dims = dims;
			t->n_dims = n;
		} else if (!strcmp(k, "data_offsets")) {
			if (have_off++)
				return lsc__json_fail(j, "data_offsets given twice");
			if (lsc__json_peek(j) != LSC__J_ARRAY || lsc__json_array(j) < 0)
				return lsc__json_fail(j, "data_offsets that are not an array");
			if (lsc__json_more(j) != 1 || lsc__json_u64(j, &begin) < 0 ||
			    lsc__json_more(j) != 1 || lsc__json_u64(j, &end) < 0 ||
			    lsc__json_more(j) != 0)
				return lsc__json_fail(j, "data_offsets that are not [begin, end]");
		} else if (lsc__json_skip(j) < 0) {
			return -1;
		}
	}
	if (r < 0)
		return -1;
	if (!have_dtype || !have_shape || !have_off)
		return lsc__merr_set(e, -EBADMSG, 8 + j->pos, "tensor \"%s\" has no %s", t->name,
				     !have_dtype ? "dtype" : !have_shape ? "shape" : "data_offsets");
	if (end < begin)
		return lsc__merr_set(e, -EBADMSG, data_off + begin,
				     "tensor \"%s\": data_offsets [%" PRIu64 ", %" PRIu64 "] end before they begin",
				     t->name, begin, end);
	/* elements x bits / 8, refusing overflow at every step. */
	uint64_t elems = 1;
	for (uint32_t i = 0; i < t->n_dims; i++) {
		if (t->dims[i] && elems > UINT64_MAX / t->dims[i])
			return lsc__merr_set(e, -EBADMSG, data_off + begin,
					     "tensor \"%s\": its shape overflows 64 bits", t->name);
		elems *= t->dims[i];
	}
	if (elems > UINT64_MAX / bits)
		return lsc__merr_set(e, -EBADMSG, data_off + begin,
				     "tensor \"%s\": its size overflows 64 bits", t->name);
	if (elems * bits % 8)
		return lsc__merr_set(e, -EBADMSG, data_off + begin,
				     "tensor \"%s\": %" PRIu64 " elements of %s are not a whole number of bytes",
				     t->name, elems, t->dtype);
	if (elems * bits / 8 != end - begin)
		return lsc__merr_set(e, -EBADMSG, data_off + begin,
				     "tensor \"%s\": %s of %" PRIu64 " elements is %" PRIu64
				     " bytes, but data_offsets [%" PRIu64 ", %" PRIu64 "] hold %" PRIu64,
				     t->name, t->dtype, elems, elems * bits / 8, begin, end, end - begin);
	t->off = begin;
	t->len = end - begin;
	return 0;
}

int lsc__safetensors_parse(const struct lsc__msrc *s, struct lsc__pool *pool,
			   struct lsc__mfile *out, struct lsc__merr *e)
{
	unsigned char lenb[8];
	if (s->size < 8)
		return lsc__merr_set(e, -EBADMSG, 0, "%" PRIu64 " bytes: shorter than the 8-byte header length",
				     s->size);
	int ret = lsc__msrc_read(s, 0, lenb, 8);
	if (ret < 0)
		return lsc__merr_set(e, ret, 0, "reading the header length");
	uint64_t n = 0;
	for (int i = 7; i >= 0; i--)
		n = n << 8 | lenb[i];
	if (n > LSC__ST_HEADER_MAX)
		return lsc__merr_set(e, -EBADMSG, 0,
				     "a header of %" PRIu64 " bytes, over the limit of %llu bytes", n,
				     (unsigned long long)LSC__ST_HEADER_MAX);
	if (n > s->size - 8)
		return lsc__merr_set(e, -EBADMSG, 0,
				     "a header length of %" PRIu64 " bytes, larger than the file (%" PRIu64 " bytes)",
				     n, s->size);
	if (n < 2)
		return lsc__merr_set(e, -EBADMSG, 8, "a header of %" PRIu64 " bytes cannot hold a JSON object", n);
	char *h = malloc((size_t)n);
	if (!h)
		return lsc__merr_set(e, -ENOMEM, 0, "out of memory for a header of %" PRIu64 " bytes", n);
	if ((ret = lsc__msrc_read(s, 8, h, (size_t)n)) < 0) {
		free(h);
		return lsc__merr_set(e, ret, 8, "reading the header");
	}
	out->format = "safetensors";
	out->data_off = 8 + n;
	out->data_bytes = s->size - 8 - n;
	out->align = 8;

	struct lsc__json j;
	lsc__json_init(&j, h, (size_t)n);
	const char *k;
	size_t kl;
	int r, have_meta = 0;
	if (h[0] != '{') {
		ret = lsc__merr_set(e, -EBADMSG, 8, "the header does not start with '{'");
		goto out;
	}
	if (lsc__json_object(&j) < 0) {
		ret = bad_json(&j, e, NULL);
		goto out;
	}
	while ((r = lsc__json_key(&j, &k, &kl)) == 1) {
		if (!strcmp(k, "__metadata__")) {
			if (have_meta++ || metadata(&j) < 0) {
				if (have_meta > 1)
					lsc__json_fail(&j, "__metadata__ given twice");
				ret = bad_json(&j, e, NULL);
				goto out;
			}
			continue;
		}
		if (out->n >= LSC__MODEL_TENSORS_MAX) {
			ret = lsc__merr_set(e, -EBADMSG, 8 + j.pos, "more than %u tensors",
					    LSC__MODEL_TENSORS_MAX);
			goto out;
		}
		struct lsc__mtensor *t = lsc__mfile_add(out);
		char *name = t ? lsc__pool_strndup(pool, k, kl) : NULL;
		if (!name) {
			ret = lsc__merr_set(e, -ENOMEM, 0, "out of memory for %zu tensors", out->n);
			goto out;
		}
		t->name = name;
		if (tensor(&j, pool, t, out->data_off, e) < 0) {
			ret = e->err ? e->err : bad_json(&j, e, name);
			goto out;
		}
	}
	if (r < 0 || lsc__json_end(&j) < 0) {
		ret = bad_json(&j, e, NULL);
		goto out;
	}
	ret = lsc__mfile_check(out, 1, e);
out:
	lsc__json_free(&j);
	free(h);
	return ret;
}
