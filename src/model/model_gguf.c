/*
 * The GGUF header (ggml, docs/gguf.md): "GGUF", a uint32 version (2 or 3;
 * version 1 had 32-bit counts and is refused, as is a byte-swapped,
 * big-endian file), uint64 tensor and KV counts, the KV pairs (a string key,
 * a uint32 type, a value; arrays carry an element type and a uint64 count,
 * strings a uint64 length), then per tensor its name, uint32 n_dims,
 * n_dims uint64 dims, uint32 ggml type and a uint64 offset relative to the
 * data section, which starts at the next multiple of general.alignment (a
 * uint32 power of two, default 32) after the tensor infos.
 *
 * Read streaming through a 64 KiB window: the KV section (a tokenizer's
 * vocabulary, megabytes of strings) is checked and skipped, never kept, so
 * memory is the tensor list's. Counts are checked against what the file
 * could hold before anything is allocated for them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/escape.h"
#include "model/model.h"

#define GGUF_DEFAULT_ALIGNMENT 32u
#define GGUF_MAX_DIMS 4u
#define GGUF_NAME_MAX 64u
#define GGUF_KEY_MAX 65536u /* the longest KV key read; longer is a bad header */
#define GGUF_ARRAY_DEPTH 8

/* ggml's types: name, elements per block, bytes per block (ggml.c's
 * type_traits). Removed or unused ids are absent and refused. */
static const struct gtype {
	unsigned id;
	const char *name;
	unsigned blck, size;
} gtypes[] = {
	{0, "F32", 1, 4}, {1, "F16", 1, 2}, {2, "Q4_0", 32, 18}, {3, "Q4_1", 32, 20},
	{6, "Q5_0", 32, 22}, {7, "Q5_1", 32, 24}, {8, "Q8_0", 32, 34}, {9, "Q8_1", 32, 36},
	{10, "Q2_K", 256, 84}, {11, "Q3_K", 256, 110}, {12, "Q4_K", 256, 144},
	{13, "Q5_K", 256, 176}, {14, "Q6_K", 256, 210}, {15, "Q8_K", 256, 292},
	{16, "IQ2_XXS", 256, 66}, {17, "IQ2_XS", 256, 74}, {18, "IQ3_XXS", 256, 98},
	{19, "IQ1_S", 256, 50}, {20, "IQ4_NL", 32, 18}, {21, "IQ3_S", 256, 110},
	{22, "IQ2_S", 256, 82}, {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1}, {25, "I16", 1, 2},
	{26, "I32", 1, 4}, {27, "I64", 1, 8}, {28, "F64", 1, 8}, {29, "IQ1_M", 256, 56},
	{30, "BF16", 1, 2}, {34, "TQ1_0", 256, 54}, {35, "TQ2_0", 256, 66},
	{39, "MXFP4", 32, 17},
};

enum { T_U8, T_I8, T_U16, T_I16, T_U32, T_I32, T_F32, T_BOOL, T_STRING, T_ARRAY, T_U64, T_I64, T_F64, T_COUNT };
static const unsigned char scalar_size[T_COUNT] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

struct rd {
	const struct lsc__msrc *s;
	uint64_t pos;          /* next byte of the file */
	uint64_t win_off;      /* the window holds [win_off, win_off + win_len) */
	size_t win_len;
	unsigned char win[64 * 1024];
	/* A key as long as GGUF allows, here and not on the caller's stack:
	 * the engine's loading thread may have a small one (docs/embedding.md
	 * advises 64 KiB for a whole load). */
	char key[GGUF_KEY_MAX + 1];
	struct lsc__merr *e;
	const char *where;     /* what is being read, for the line */
};

/* @n bytes at the cursor; a read past the end is the header truncated. */
static int get(struct rd *r, void *buf, size_t n)
{
	unsigned char *o = buf;
	while (n) {
		if (r->pos >= r->s->size || n > r->s->size - r->pos)
			return lsc__merr_set(r->e, -EBADMSG, r->pos,
					     "the header is truncated: the file ends in %s", r->where);
		if (r->pos - r->win_off >= r->win_len || r->pos < r->win_off) {
			uint64_t left = r->s->size - r->pos;
			size_t want = left < sizeof(r->win) ? (size_t)left : sizeof(r->win);
			int ret = lsc__msrc_read(r->s, r->pos, r->win, want);
			if (ret < 0)
				return lsc__merr_set(r->e, ret, r->pos, "reading the header (%s)", r->where);
			r->win_off = r->pos;
			r->win_len = want;
		}
		size_t at = (size_t)(r->pos - r->win_off);
		size_t take = r->win_len - at < n ? r->win_len - at : n;
		if (o) {
			memcpy(o, r->win + at, take);
			o += take;
		}
		r->pos += take;
		n -= take;
	}
	return 0;
}

static int skip(struct rd *r, uint64_t n)
{
	if (n > r->s->size - r->pos)
		return lsc__merr_set(r->e, -EBADMSG, r->pos,
				     "the header is truncated: %s needs %" PRIu64 " bytes, %" PRIu64 " remain",
				     r->where, n, r->s->size - r->pos);
	/* Large skips jump; the window is refilled at the next read. */
	r->pos += n;
	return 0;
}

static int u32(struct rd *r, uint32_t *v)
{
	unsigned char b[4];
	if (get(r, b, 4) < 0)
		return -1;
	*v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return 0;
}

static int u64(struct rd *r, uint64_t *v)
{
	unsigned char b[8];
	if (get(r, b, 8) < 0)
		return -1;
	*v = 0;
	for (int i = 7; i >= 0; i--)
		*v = *v << 8 | b[i];
	return 0;
}

/* A string of at most @max bytes into @buf (NUL-terminated), UTF-8 checked. */
static int str(struct rd *r, char *buf, size_t max, uint64_t *len)
{
	uint64_t at = r->pos;
	if (u64(r, len) < 0)
		return -1;
	if (*len > max)
		return lsc__merr_set(r->e, -EBADMSG, at, "%s: a string of %" PRIu64 " bytes (at most %zu)",
				     r->where, *len, max);
	if (get(r, buf, (size_t)*len) < 0)
		return -1;
	buf[*len] = 0;
	if (!lsc__utf8_valid((const unsigned char *)buf, (size_t)*len) || memchr(buf, 0, (size_t)*len))
		return lsc__merr_set(r->e, -EBADMSG, at, "%s: a string that is not valid UTF-8", r->where);
	return 0;
}

static int value(struct rd *r, uint32_t type, int depth, const char *key)
{
	if (type >= T_COUNT)
		return lsc__merr_set(r->e, -EBADMSG, r->pos - 4, "KV \"%s\": value type %" PRIu32 " is not a GGUF type",
				     key, type);
	if (type == T_STRING) {
		uint64_t n;
		if (u64(r, &n) < 0)
			return -1;
		return skip(r, n);
	}
	if (type != T_ARRAY)
		return skip(r, scalar_size[type]);
	uint32_t et;
	uint64_t n;
	if (depth >= GGUF_ARRAY_DEPTH)
		return lsc__merr_set(r->e, -EBADMSG, r->pos, "KV \"%s\": arrays nested deeper than %d", key,
				     GGUF_ARRAY_DEPTH);
	if (u32(r, &et) < 0 || u64(r, &n) < 0)
		return -1;
	if (et >= T_COUNT)
		return lsc__merr_set(r->e, -EBADMSG, r->pos - 12,
				     "KV \"%s\": array element type %" PRIu32 " is not a GGUF type", key, et);
	if (et != T_STRING && et != T_ARRAY) {
		if (n > (r->s->size - r->pos) / scalar_size[et])
			return lsc__merr_set(r->e, -EBADMSG, r->pos,
					     "the header is truncated: KV \"%s\" is an array of %" PRIu64
					     " elements of %u bytes, %" PRIu64 " bytes remain",
					     key, n, scalar_size[et], r->s->size - r->pos);
		return skip(r, n * scalar_size[et]);
	}
	/* Strings and arrays take at least 8 bytes each: a count that cannot
	 * fit is refused before it is walked. */
	if (n > (r->s->size - r->pos) / 8)
		return lsc__merr_set(r->e, -EBADMSG, r->pos,
				     "the header is truncated: KV \"%s\" is an array of %" PRIu64
				     " elements, %" PRIu64 " bytes remain", key, n, r->s->size - r->pos);
	for (uint64_t i = 0; i < n; i++)
		if (value(r, et, depth + 1, key) < 0)
			return -1;
	return 0;
}

static const struct gtype *gtype_find(uint32_t id)
{
	for (size_t i = 0; i < sizeof(gtypes) / sizeof(gtypes[0]); i++)
		if (gtypes[i].id == id)
			return &gtypes[i];
	return NULL;
}

/* The magic, the version and the two counts, checked against the room the
 * file has for them. 0 or -EBADMSG with @e set. */
static int read_preamble(struct rd *r, uint64_t *n_tensors, uint64_t *n_kv)
{
	struct lsc__merr *e = r->e;
	unsigned char magic[4];
	uint32_t version;
	r->where = "the magic and counts";
	if (get(r, magic, 4) < 0 || u32(r, &version) < 0)
		return -EBADMSG;
	if (memcmp(magic, "GGUF", 4))
		return lsc__merr_set(e, -EBADMSG, 0, "no GGUF magic");
	/* Big-endian only where the swapped bytes name a version that exists:
	 * version 0 has its low bytes zero too, and is no version at all. */
	uint32_t swapped = __builtin_bswap32(version);
	if (version != 2 && version != 3)
		return lsc__merr_set(e, -EBADMSG, 4, "GGUF version %" PRIu32 "%s (2 and 3 are read)", version,
				     version == 1 ? " (32-bit counts)"
				     : swapped >= 1 && swapped <= 3 ? " (big-endian)" : "");
	if (u64(r, n_tensors) < 0 || u64(r, n_kv) < 0)
		return -EBADMSG;
	/* A KV pair takes at least 13 bytes (key length, type, one byte), a
	 * tensor info 24 (name length, n_dims, type, offset). */
	uint64_t room = r->s->size - r->pos;
	if (*n_tensors > LSC__MODEL_TENSORS_MAX || *n_kv > room / 13 || *n_tensors > room / 24 ||
	    *n_kv * 13 + *n_tensors * 24 > room)
		return lsc__merr_set(e, -EBADMSG, 8,
				     "%" PRIu64 " tensors and %" PRIu64 " KV pairs cannot fit in a file of %" PRIu64
				     " bytes (at most %u tensors are read)",
				     *n_tensors, *n_kv, r->s->size, LSC__MODEL_TENSORS_MAX);
	return 0;
}

/* Every KV pair, skipped but for general.alignment, which sets @align. 0 or
 * -EBADMSG with @e set. */
static int read_kv(struct rd *r, uint64_t n_kv, uint64_t *align)
{
	struct lsc__merr *e = r->e;
	char *key = r->key;
	for (uint64_t i = 0; i < n_kv; i++) {
		uint64_t klen, at = r->pos;
		uint32_t type;
		r->where = "a KV key";
		if (str(r, key, GGUF_KEY_MAX, &klen) < 0)
			return -EBADMSG;
		r->where = "a KV value";
		if (u32(r, &type) < 0)
			return -EBADMSG;
		if (strcmp(key, "general.alignment")) {
			if (value(r, type, 0, key) < 0)
				return -EBADMSG;
			continue;
		}
		uint32_t a;
		if (type != T_U32)
			return lsc__merr_set(e, -EBADMSG, at, "general.alignment has type %" PRIu32 ", not uint32",
					     type);
		if (u32(r, &a) < 0)
			return -EBADMSG;
		if (!a || (a & (a - 1)))
			return lsc__merr_set(e, -EBADMSG, at, "general.alignment %" PRIu32 " is not a power of two",
					     a);
		*align = a;
	}
	return 0;
}

/* A tensor's @nd dimensions into @dims, checked against 63 bits of
 * elements. 0 or -EBADMSG with @e set; @elems the element count. */
static int read_dims(struct rd *r, uint64_t *dims, uint32_t nd, const char *name, uint64_t at,
		     uint64_t *elems)
{
	*elems = 1;
	for (uint32_t d = 0; d < nd; d++) {
		if (u64(r, &dims[d]) < 0)
			return -EBADMSG;
		if (dims[d] > INT64_MAX || (dims[d] && *elems > INT64_MAX / dims[d]))
			return lsc__merr_set(r->e, -EBADMSG, at, "tensor \"%s\": its shape overflows 63 bits", name);
		*elems *= dims[d];
	}
	return 0;
}

/* One tensor info into a new tensor of @out: its name, shape, type, offset
 * and byte length, each checked. 0, -ENOMEM or -EBADMSG with @e set. */
static int read_tensor(struct rd *r, struct lsc__pool *pool, struct lsc__mfile *out, uint64_t align,
		       uint64_t n_tensors)
{
	struct lsc__merr *e = r->e;
	char name[GGUF_NAME_MAX + 1];
	uint64_t nlen, at = r->pos, elems;
	uint32_t nd, type;
	r->where = "a tensor info";
	if (str(r, name, GGUF_NAME_MAX, &nlen) < 0 || u32(r, &nd) < 0)
		return -EBADMSG;
	if (nd > GGUF_MAX_DIMS)
		return lsc__merr_set(e, -EBADMSG, at, "tensor \"%s\": %" PRIu32 " dimensions (at most %u)", name,
				     nd, GGUF_MAX_DIMS);
	struct lsc__mtensor *t = lsc__mfile_add(out);
	uint64_t *dims = lsc__pool_alloc(pool, (nd ? nd : 1) * sizeof(uint64_t));
	char *nm = lsc__pool_strndup(pool, name, (size_t)nlen);
	if (!t || !dims || !nm)
		return lsc__merr_set(e, -ENOMEM, 0, "out of memory for %" PRIu64 " tensors", n_tensors);
	t->name = nm;
	t->dims = dims;
	t->n_dims = nd;
	if (read_dims(r, dims, nd, name, at, &elems) < 0 || u32(r, &type) < 0 || u64(r, &t->off) < 0)
		return -EBADMSG;
	const struct gtype *g = gtype_find(type);
	if (!g)
		return lsc__merr_set(e, -EBADMSG, at, "tensor \"%s\": ggml type %" PRIu32 " is not known", name,
				     type);
	t->dtype = g->name;
	uint64_t ne0 = nd ? dims[0] : 1;
	if (ne0 % g->blck)
		return lsc__merr_set(e, -EBADMSG, at,
				     "tensor \"%s\": %" PRIu64 " elements in a row are not whole %s blocks of %u",
				     name, ne0, g->name, g->blck);
	uint64_t blocks = elems / g->blck;
	if (blocks > UINT64_MAX / g->size)
		return lsc__merr_set(e, -EBADMSG, at, "tensor \"%s\": its size overflows 64 bits", name);
	t->len = blocks * g->size;
	if (t->off % align)
		return lsc__merr_set(e, -EBADMSG, at,
				     "tensor \"%s\": offset %" PRIu64 " is not a multiple of the alignment %" PRIu64,
				     name, t->off, align);
	return 0;
}

/* Where the data section starts: the next multiple of the alignment after
 * the header, within the header limit and the file (a file of no tensors
 * may end at its header). 0 or -EBADMSG with @e set. */
static int data_section(struct rd *r, struct lsc__mfile *out, uint64_t align, uint64_t n_tensors)
{
	uint64_t data = r->pos + (align - r->pos % align) % align;
	if (data > LSC__GGUF_HEADER_MAX)
		return lsc__merr_set(r->e, -EBADMSG, 0, "a header of %" PRIu64 " bytes, over the limit of %llu bytes",
				     data, (unsigned long long)LSC__GGUF_HEADER_MAX);
	if (data > r->s->size) {
		if (n_tensors)
			return lsc__merr_set(r->e, -EBADMSG, r->pos,
					     "the file ends (%" PRIu64 " bytes) before its data section (%" PRIu64 ")",
					     r->s->size, data);
		data = r->s->size;
	}
	out->data_off = data;
	out->data_bytes = r->s->size - data;
	out->align = align;
	return 0;
}

int lsc__gguf_parse(const struct lsc__msrc *s, struct lsc__pool *pool, struct lsc__mfile *out,
		    struct lsc__merr *e)
{
	struct rd *r = calloc(1, sizeof(*r));
	if (!r)
		return lsc__merr_set(e, -ENOMEM, 0, "out of memory for the header reader");
	r->s = s;
	r->e = e;
	out->format = "gguf";
	uint64_t n_tensors = 0, n_kv = 0, align = GGUF_DEFAULT_ALIGNMENT;
	int ret = read_preamble(r, &n_tensors, &n_kv);
	if (ret == 0)
		ret = read_kv(r, n_kv, &align);
	for (uint64_t i = 0; ret == 0 && i < n_tensors; i++)
		ret = read_tensor(r, pool, out, align, n_tensors);
	if (ret == 0)
		ret = data_section(r, out, align, n_tensors);
	if (ret == 0)
		ret = lsc__mfile_check(out, 0, e);
	free(r);
	if (ret == -EBADMSG && e->err)
		ret = e->err;
	return ret;
}
