/*
 * Description: GGUF files as manifests. A real GGUF v3 file written here
 * (string, uint32, bool, string-array and float-array KV pairs,
 * general.alignment 64, F32, Q8_0 and F16 tensors) gives one extent per
 * tensor at the data section's offset computed here by hand (header of 453
 * bytes, data at 512; without general.alignment, 420 and 448), the arena holds the tensors at their aligned
 * offsets, and the `loaded` line and the stats count them, through the API
 * and `loadscope load`. Malformed files (a truncated KV array, counts the
 * file cannot hold, a version it does not read, an alignment that is not a
 * power of two, an offset past the end, overlapping tensors, a non-UTF-8
 * name, a tensor that is not whole blocks) give their one line and
 * -EBADMSG, with nothing left open. As properties: a header that ends at
 * every residue of the alignment (8, 16, 32 by default, 64; the architecture
 * name grown a byte at a time), exactly on it included, puts the data section
 * at the next multiple, computed here as ceil(header / alignment) *
 * alignment; and the file cut at every length from the magic on is refused
 * with one line and -EBADMSG. Hand-built headers make every other fault
 * once, each limit beside the header just inside it (key and name lengths,
 * value and element types, array depth, dimensions, 63-bit shapes, 64-bit
 * sizes, ggml types, a 1 GiB header in a sparse file).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers/model_files.h"
#include "helpers/sys_shim.h"

struct w {
	unsigned char b[4096];
	size_t n;
};

static void put(struct w *w, const void *p, size_t n)
{
	cr_assert_leq(w->n + n, sizeof(w->b));
	memcpy(w->b + w->n, p, n);
	w->n += n;
}
static void u32(struct w *w, uint32_t v)
{
	unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			      (unsigned char)(v >> 24)};
	put(w, b, 4);
}
static void u64(struct w *w, uint64_t v)
{
	u32(w, (uint32_t)v);
	u32(w, (uint32_t)(v >> 32));
}
static void str(struct w *w, const char *s)
{
	u64(w, strlen(s));
	put(w, s, strlen(s));
}

struct spec {
	uint32_t version;
	uint64_t n_tensors;
	uint32_t alignment;
	const char *name1;      /* the Q8_0 tensor's name */
	uint64_t off1, off2;    /* offsets of the 2nd and 3rd tensors */
	uint64_t ne0_1;         /* the Q8_0 tensor's row */
	size_t data_at;         /* where the writer puts the data */
	const char *arch;       /* general.architecture (NULL: "llama") */
};

static const struct spec good = {3, 3, 64, "blk.0.attn_q.weight", 64, 192, 32, 512, NULL};

/* The file of the header comment; returns the header's length. */
static size_t gguf(struct w *w, const struct spec *s)
{
	w->n = 0;
	put(w, "GGUF", 4);
	u32(w, s->version);
	u64(w, s->n_tensors);
	u64(w, s->alignment ? 6 : 5);
	str(w, "general.architecture"), u32(w, 8), str(w, s->arch ? s->arch : "llama");
	if (s->alignment) /* 0: no general.alignment, the default 32 */
		str(w, "general.alignment"), u32(w, 4), u32(w, s->alignment);
	str(w, "tokenizer.ggml.tokens"), u32(w, 9), u32(w, 8), u64(w, 3);
	str(w, "a"), str(w, "bc"), str(w, "def");
	str(w, "tokenizer.ggml.scores"), u32(w, 9), u32(w, 6), u64(w, 3);
	float f[3] = {0.5f, -1.0f, 2.0f};
	put(w, f, sizeof(f));
	str(w, "general.file_type"), u32(w, 4), u32(w, 7);
	str(w, "test.flag"), u32(w, 7), put(w, "\1", 1);
	str(w, "tok_embd.weight"), u32(w, 2), u64(w, 4), u64(w, 2), u32(w, 0), u64(w, 0);
	str(w, s->name1), u32(w, 2), u64(w, s->ne0_1), u64(w, 2), u32(w, 8), u64(w, s->off1);
	str(w, "output_norm.weight"), u32(w, 1), u64(w, 3), u32(w, 1), u64(w, s->off2);
	size_t hdr = w->n;
	while (w->n < s->data_at)
		put(w, "", 1);
	for (int i = 0; i < 198; i++) {
		unsigned char c = (unsigned char)(i * 13 + 5);
		put(w, &c, 1);
	}
	return hdr;
}

static struct lsct_capture cap;
static char out[1 << 16];

TestSuite(model_gguf);

Test(model_gguf, one_extent_per_tensor)
{
	struct w w;
	cr_assert_eq(gguf(&w, &good), 453, "the writer's header is the hand-computed one");
	char *path = lsct_write("model.gguf", w.b, w.n);
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	struct lsc_manifest *m = NULL;
	int ret = lsc_manifest_from_files(p, (const char *const *)&path, 1, &m);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	cr_assert_eq(m->n_tensors, 3);
	cr_assert_eq(m->n_extents, 3);
	static const char *names[] = {"tok_embd.weight", "blk.0.attn_q.weight", "output_norm.weight"};
	static const char *types[] = {"F32", "Q8_0", "F16"};
	/* 4x2 F32 = 32 bytes; 32x2 Q8_0 = 2 blocks of 34; 3 F16 = 6. */
	static const uint64_t foff[] = {512, 576, 704}, len[] = {32, 68, 6}, aoff[] = {0, 64, 192};
	for (int i = 0; i < 3; i++) {
		const struct lsc_tensor *t = &m->tensors[i];
		const struct lsc_extent *e = &m->extents[t->extent];
		cr_assert_str_eq(t->name, names[i]);
		cr_assert_str_eq(t->dtype, types[i]);
		cr_assert_eq(e->file_offset, foff[i], "%s at %llu", names[i], (unsigned long long)e->file_offset);
		cr_assert_eq(e->length, len[i]);
		cr_assert_eq(e->arena_offset, aoff[i]);
	}
	cr_assert_eq(m->tensors[1].n_dims, 2);
	cr_assert_eq(m->tensors[1].dims[0], 32);
	cr_assert_eq(m->arena_bytes, 198);
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load_manifest(p, NULL, m, &a), 0);
	lsc_manifest_destroy(m);
	const unsigned char *b = lsc_arena_data(a);
	for (int i = 0; i < 3; i++)
		cr_assert(memcmp(b + aoff[i], w.b + foff[i], len[i]) == 0, "tensor %d's bytes", i);
	struct lsc_load_stats st;
	lsc_arena_stats(a, &st);
	cr_assert_eq(st.tensors, 3);
	cr_assert_eq(st.files, 1);
	cr_assert_eq(st.bytes, 32 + 68 + 6);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	cr_assert_eq(lsct_count_with(&cap, "loaded", "files=1 extents=3 tensors=3"), 1);

	if (LSC_TEST_TOOL[0]) {
		char args[700], buf[LSC__LINE_MAX + 1];
		snprintf(args, sizeof(args), "--format json '%s'", path);
		cr_assert_eq(lsct_tool_load(args, out, sizeof(out)), 0, "%s", out);
		cr_assert_str_eq(lsct_out_field(out, "loaded", "tensors", buf, sizeof(buf)), "3", "%s", out);
		cr_assert_str_eq(lsct_out_field(out, "loaded", "bytes", buf, sizeof(buf)), "106");
	}
	free(path);
}

Test(model_gguf, default_alignment)
{
	/* Without general.alignment (33 bytes fewer): header 420 bytes, data
	 * at the next multiple of 32, 448. */
	struct spec s = good;
	s.alignment = 0;
	s.data_at = 448;
	struct w w;
	cr_assert_eq(gguf(&w, &s), 420);
	char *path = lsct_write("default.gguf", w.b, w.n);
	struct lsc_manifest *m = NULL;
	cr_assert_eq(lsc_manifest_from_files(NULL, (const char *const *)&path, 1, &m), 0);
	cr_assert_eq(m->extents[0].file_offset, 448);
	cr_assert_eq(m->extents[1].file_offset, 448 + 64);
	cr_assert_eq(m->extents[2].file_offset, 448 + 192);
	lsc_manifest_destroy(m);
	free(path);
}

/* Version 2 (64-bit counts, as 3; 3 only adds big-endian files) is read
 * as 3 is: the same tensors at the same offsets. */
Test(model_gguf, version_2_reads_as_3)
{
	struct spec s = good;
	s.version = 2;
	struct w w;
	cr_assert_eq(gguf(&w, &s), 453);
	char *path = lsct_write("v2.gguf", w.b, w.n);
	struct lsc_manifest *m = NULL;
	cr_assert_eq(lsc_manifest_from_files(NULL, (const char *const *)&path, 1, &m), 0);
	cr_assert_eq(m->n_tensors, 3);
	cr_assert_eq(m->extents[0].file_offset, 512);
	cr_assert_eq(m->extents[2].file_offset, 704);
	lsc_manifest_destroy(m);
	free(path);
}

Test(model_gguf, found_by_its_magic)
{
	struct w w;
	gguf(&w, &good);
	char *path = lsct_write("no-suffix.bin", w.b, w.n);
	struct lsc_manifest *m = NULL;
	cr_assert_eq(lsc_manifest_from_files(NULL, (const char *const *)&path, 1, &m), 0);
	cr_assert_eq(m->n_tensors, 3);
	lsc_manifest_destroy(m);
	free(path);
}

static void fails(const struct spec *s, size_t cut, const char *cause)
{
	struct w w;
	gguf(&w, s);
	char *path = lsct_write("bad.gguf", w.b, cut ? cut : w.n);
	lsct_model_fails(path, NULL, -EBADMSG, "EBADMSG", cause);
	free(path);
}

Test(model_gguf, malformed)
{
	/* Cut inside the tokens array (its "def" is at 174..177), and inside
	 * the scores array's floats (222..234): the counts still fit in what is left. */
	fails(&good, 176, "the header is truncated: a KV value needs 3 bytes, 2 remain");
	fails(&good, 226, "the header is truncated: KV \"tokenizer.ggml.scores\" is an array of 3");
	struct spec s = good;
	s.n_tensors = 1ull << 40;
	fails(&s, 0, "1099511627776 tensors and 6 KV pairs cannot fit");
	s = good;
	s.version = 1;
	fails(&s, 0, "GGUF version 1");
	s.version = 0x03000000; /* a big-endian file */
	fails(&s, 0, "GGUF version 50331648 (big-endian) (2 and 3 are read)");
	s.version = 0x02000000;
	fails(&s, 0, "GGUF version 33554432 (big-endian) (2 and 3 are read)");
	/* no version at all, and not byte-swapped: nothing said of the byte order */
	s.version = 0;
	fails(&s, 0, "GGUF version 0 (2 and 3 are read)");
	s.version = 0x00010000;
	fails(&s, 0, "GGUF version 65536 (2 and 3 are read)");
	s.version = 4;
	fails(&s, 0, "GGUF version 4 (2 and 3 are read)");
	s = good;
	s.alignment = 48;
	fails(&s, 0, "general.alignment 48 is not a power of two");
	s = good;
	s.off2 = 1 << 20;
	fails(&s, 0, "tensor \"output_norm.weight\": bytes [1048576, 1048582) of the data section reach past");
	s = good;
	s.off1 = 0;
	fails(&s, 0, "tensors \"tok_embd.weight\" and \"blk.0.attn_q.weight\" overlap at byte 0");
	s = good;
	s.off1 = 65;
	fails(&s, 0, "offset 65 is not a multiple of the alignment 64");
	s = good;
	s.name1 = "blk.0.\xc0\xaf.weight_____"; /* an overlong '/', same length */
	fails(&s, 0, "not valid UTF-8");
	s = good;
	s.ne0_1 = 31;
	fails(&s, 0, "31 elements in a row are not whole Q8_0 blocks of 32");
	/* The magic alone. */
	fails(&good, 6, "the header is truncated");
}

/* The header's length at every residue of each alignment: the data section
 * is where the writer put it, the next multiple, and the tensors' bytes are
 * read from there. */
Test(model_gguf, data_section_at_every_residue_of_the_alignment)
{
	static const uint32_t aligns[] = {8, 16, 0, 64};
	char name[128];
	for (size_t k = 0; k < sizeof(aligns) / sizeof(aligns[0]); k++) {
		uint64_t A = aligns[k] ? aligns[k] : 32, seen = 0;
		for (unsigned pad = 0; pad < A; pad++) {
			snprintf(name, sizeof(name), "llama%.*s", (int)pad,
				 "________________________________________________________________");
			struct spec s = good;
			s.alignment = aligns[k];
			s.arch = name;
			struct w w;
			s.data_at = 0;
			size_t hdr = gguf(&w, &s);
			s.data_at = (hdr + A - 1) / A * A;
			cr_assert_eq(gguf(&w, &s), hdr);
			seen |= 1ull << (hdr % A);
			char *path = lsct_write("residue.gguf", w.b, w.n);
			struct lsc_manifest *m = NULL;
			int ret = lsc_manifest_from_files(NULL, (const char *const *)&path, 1, &m);
			cr_assert_eq(ret, 0, "alignment %llu, header %zu: %s", (unsigned long long)A, hdr,
				     lsc_strerror(ret));
			static const uint64_t rel[] = {0, 64, 192}, len[] = {32, 68, 6};
			for (int i = 0; i < 3; i++) {
				const struct lsc_extent *e = &m->extents[m->tensors[i].extent];
				cr_assert_eq(e->file_offset, s.data_at + rel[i],
					     "alignment %llu, header %zu (residue %zu): tensor %d at %llu, want %zu",
					     (unsigned long long)A, hdr, hdr % A, i,
					     (unsigned long long)e->file_offset, s.data_at + rel[i]);
				cr_assert_eq(e->length, len[i]);
			}
			lsc_manifest_destroy(m);
			free(path);
		}
		cr_assert_eq(seen, A == 64 ? ~0ull : (1ull << A) - 1, "not every residue of %llu",
			     (unsigned long long)A);
	}
}

/* Every cut of the good file from the magic on is refused; a cut in the
 * data section names the tensor that reaches past the end. */
Test(model_gguf, every_truncation_is_refused)
{
	struct w w;
	size_t hdr = gguf(&w, &good);
	for (size_t cut = 4; cut < w.n; cut++)
		fails(&good, cut, cut < hdr ? "" : cut < good.data_at ? "before its data section" : "reach past the end");
}

/* Hand-built headers, one fault each, for the faults the writer above
 * cannot make: the magic, a key or a name over its limit, value and
 * element types that do not exist, arrays nested too deep or counted past
 * the file, general.alignment of another type or 0, too many dimensions,
 * a shape past 63 bits, a ggml type nobody defined, a size past 64 bits.
 * Beside each limit, the header just inside it loads. */
static void pre(struct w *w, uint64_t n_tensors, uint64_t n_kv)
{
	w->n = 0;
	put(w, "GGUF", 4);
	u32(w, 3);
	u64(w, n_tensors);
	u64(w, n_kv);
}

/* One tensor info: @name, @nd dimensions from @dims, ggml type @type, offset 0. */
static void tinfo(struct w *w, const char *name, uint32_t nd, const uint64_t *dims, uint32_t type)
{
	str(w, name);
	u32(w, nd);
	for (uint32_t i = 0; i < nd; i++)
		u64(w, dims[i]);
	u32(w, type);
	u64(w, 0);
}

/* The file at @path refused with @cause, or (NULL) read as a manifest of
 * @tensors tensors. */
static void refused_or_loads(const char *path, const char *cause, uint64_t tensors)
{
	if (cause) {
		lsct_model_fails(path, NULL, -EBADMSG, "EBADMSG", cause);
		return;
	}
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	struct lsc_manifest *m = NULL;
	int ret = lsc_manifest_from_files(p, &path, 1, &m);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	cr_assert_eq(m->n_tensors, tensors);
	lsc_manifest_destroy(m);
	lsc_profiler_destroy(p);
}

/* The file of @w padded with @data zero bytes after its header's 32-byte
 * boundary: refused with @cause, or (NULL) loaded with @tensors tensors. */
static void check(struct w *w, size_t data, const char *cause, uint64_t tensors)
{
	while (w->n % 32)
		put(w, "", 1);
	for (size_t i = 0; i < data; i++)
		put(w, "", 1);
	char *path = lsct_write("hand.gguf", w->b, w->n);
	refused_or_loads(path, cause, tensors);
	free(path);
}

Test(model_gguf, every_malformed_field_names_its_fault)
{
	struct w w;
	uint64_t one[] = {1};
	/* the magic */
	pre(&w, 0, 0);
	memcpy(w.b, "GGUX", 4);
	check(&w, 0, "no GGUF magic", 0);
	/* a key of 65,537 bytes, over the 65,536 read (its bytes never needed) */
	pre(&w, 0, 1);
	u64(&w, 65537);
	check(&w, 64, "a KV key: a string of 65537 bytes (at most 65536)", 0);
	/* value types: 13 is none, 12 (float64) the last */
	pre(&w, 0, 1);
	str(&w, "k"), u32(&w, 13), u64(&w, 0);
	check(&w, 0, "KV \"k\": value type 13 is not a GGUF type", 0);
	pre(&w, 1, 1);
	str(&w, "k"), u32(&w, 12), u64(&w, 0);
	tinfo(&w, "t", 1, one, 0);
	check(&w, 4, NULL, 1);
	/* an array of arrays of ... 8 deep is read, 9 is refused */
	for (int deep = 8; deep <= 9; deep++) {
		pre(&w, 1, 1);
		str(&w, "k"), u32(&w, 9);
		for (int d = 1; d < deep; d++)
			u32(&w, 9), u64(&w, 1);
		u32(&w, 0), u64(&w, 1), put(&w, "x", 1);
		tinfo(&w, "t", 1, one, 0);
		check(&w, 4, deep == 9 ? "KV \"k\": arrays nested deeper than 8" : NULL, 1);
	}
	/* an array whose element type does not exist */
	pre(&w, 0, 1);
	str(&w, "k"), u32(&w, 9), u32(&w, 13), u64(&w, 1);
	check(&w, 8, "KV \"k\": array element type 13 is not a GGUF type", 0);
	/* an array of strings counted past what the file holds (8 bytes each at least) */
	pre(&w, 0, 1);
	str(&w, "k"), u32(&w, 9), u32(&w, 8), u64(&w, 1000);
	check(&w, 0, "the header is truncated: KV \"k\" is an array of 1000 elements", 0);
	/* general.alignment as a uint64 (10), and 0 */
	pre(&w, 0, 1);
	str(&w, "general.alignment"), u32(&w, 10), u64(&w, 32);
	check(&w, 0, "general.alignment has type 10, not uint32", 0);
	pre(&w, 0, 1);
	str(&w, "general.alignment"), u32(&w, 4), u32(&w, 0);
	check(&w, 0, "general.alignment 0 is not a power of two", 0);
	/* a tensor name of 65 bytes, over the 64 read; 64 loads */
	char name[80];
	memset(name, 'n', 65);
	name[65] = 0;
	pre(&w, 1, 0);
	tinfo(&w, name, 1, one, 0);
	check(&w, 4, "a tensor info: a string of 65 bytes (at most 64)", 0);
	name[64] = 0;
	pre(&w, 1, 0);
	tinfo(&w, name, 1, one, 0);
	check(&w, 4, NULL, 1);
	/* 5 dimensions, over the 4 ggml has; 4 load */
	uint64_t five[] = {1, 1, 1, 1, 1};
	pre(&w, 1, 0);
	tinfo(&w, "t", 5, five, 0);
	check(&w, 4, "tensor \"t\": 5 dimensions (at most 4)", 0);
	pre(&w, 1, 0);
	tinfo(&w, "t", 4, five, 0);
	check(&w, 4, NULL, 1);
	/* a dimension past INT64_MAX (INT64_MAX itself fits), and a product past it: 2^31 x 2^32 is
	 * 2^63, one too many; 2^31 x (2^32 - 1) fits (and is then too big a
	 * tensor for the file) */
	uint64_t big[] = {(uint64_t)INT64_MAX + 1};
	pre(&w, 1, 0);
	tinfo(&w, "t", 1, big, 0);
	check(&w, 4, "tensor \"t\": its shape overflows 63 bits", 0);
	uint64_t max63[] = {(uint64_t)INT64_MAX};
	pre(&w, 1, 0);
	tinfo(&w, "t", 1, max63, 24); /* INT64_MAX one-byte I8: a shape that fits */
	check(&w, 4, "of the data section reach past the end", 0);
	uint64_t prod[] = {1ull << 31, 1ull << 32};
	pre(&w, 1, 0);
	tinfo(&w, "t", 2, prod, 24);
	check(&w, 4, "tensor \"t\": its shape overflows 63 bits", 0);
	uint64_t fits[] = {1ull << 31, (1ull << 32) - 1};
	pre(&w, 1, 0);
	tinfo(&w, "t", 2, fits, 24);
	check(&w, 4, "of the data section reach past the end", 0);
	/* ggml types: 31 was never defined (removed Q4_0_4_4 and kin); 39 is MXFP4 */
	pre(&w, 1, 0);
	tinfo(&w, "t", 1, one, 31);
	check(&w, 4, "tensor \"t\": ggml type 31 is not known", 0);
	uint64_t row32[] = {32};
	pre(&w, 1, 0);
	tinfo(&w, "t", 1, row32, 39);
	check(&w, 17, NULL, 1);
	/* F32's 4 bytes an element: 2^62 elements are 2^64 bytes, one too many */
	uint64_t e62[] = {1ull << 62};
	pre(&w, 1, 0);
	tinfo(&w, "t", 1, e62, 0);
	check(&w, 4, "tensor \"t\": its size overflows 64 bits", 0);
	uint64_t e62m[] = {(1ull << 62) - 1};
	pre(&w, 1, 0);
	tinfo(&w, "t", 1, e62m, 0);
	check(&w, 4, "of the data section reach past the end", 0);
}

/* A header may run to 1 GiB and no further: a KV string skipped over (a
 * sparse file, nothing written in it) ends the header at 2^30 - 1, whose
 * data section is at 2^30, read; at 2^30 + 1 it would be at 2^30 + 32, over
 * the limit. The string's length is all that changes. */
static void header_ending_at(uint64_t end, const char *cause)
{
	struct w w;
	pre(&w, 0, 1);
	str(&w, "k"), u32(&w, 8);
	uint64_t len = end - (w.n + 8);
	u64(&w, len);
	char *path = lsct_write("long-header.gguf", w.b, w.n);
	cr_assert_eq(truncate(path, (off_t)((1ull << 30) + 4096)), 0, "%s", strerror(errno));
	refused_or_loads(path, cause, 0);
	unlink(path);
	free(path);
}

Test(model_gguf, a_header_of_1_gib_and_not_more)
{
	header_ending_at((1ull << 30) - 1, NULL);
	header_ending_at((1ull << 30) + 1, "a header of 1073741856 bytes, over the limit of 1073741824 bytes");
}

/* Every call reading a GGUF makes (its open, fstat and preads), failed in
 * turn: the read fails with that call's error (a pread that ends early:
 * a truncated header's EBADMSG) and one `error` line naming the file, no
 * manifest, no descriptor left open. */
Test(model_gguf, every_call_of_the_read_failed_in_turn)
{
	static struct w w;
	gguf(&w, &good);
	char *path = lsct_write("calls.gguf", w.b, w.n);
	struct lsc_manifest *m = NULL;
	lsct_sys_install(NULL);
	cr_assert_eq(lsc_manifest_from_files(NULL, (const char *const *)&path, 1, &m), 0);
	lsc_manifest_destroy(m);
	unsigned opens = lsct_sys_calls(LSCT_SYS_OPEN), fstats = lsct_sys_calls(LSCT_SYS_FSTAT),
		 preads = lsct_sys_calls(LSCT_SYS_PREAD);
	lsct_sys_restore();
	cr_assert_geq(preads, 2, "the magic, then the header");
	static const struct {
		enum lsct_sys_op op;
		enum lsct_sys_how how;
		int err;
		const char *name;
	} ops[] = {
		{LSCT_SYS_OPEN, LSCT_SYS_ERR, EACCES, "EACCES"},
		{LSCT_SYS_FSTAT, LSCT_SYS_ERR, EIO, "EIO"},
		{LSCT_SYS_PREAD, LSCT_SYS_ERR, EIO, "EIO"},
		{LSCT_SYS_PREAD, LSCT_SYS_ZERO, EBADMSG, "EBADMSG"},
	};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		unsigned n = ops[i].op == LSCT_SYS_OPEN ? opens : ops[i].op == LSCT_SYS_FSTAT ? fstats : preads;
		for (unsigned k = 1; k <= n; k++) {
			struct lsct_sys_plan plan = {.op = ops[i].op, .nth = k, .err = ops[i].err, .how = ops[i].how};
			int fds = lsct_open_fds();
			lsc_profiler *p = lsct_profiler_fresh(&cap);
			lsct_sys_install(&plan);
			m = (struct lsc_manifest *)&w;
			int ret = lsc_manifest_from_files(p, (const char *const *)&path, 1, &m);
			lsct_sys_restore();
			lsc_profiler_destroy(p);
			cr_assert_eq(ret, -ops[i].err, "%s call %u: %d", ops[i].name, k, ret);
			cr_assert_null(m);
			cr_assert_eq(lsct_open_fds(), fds, "%s call %u: a descriptor left open", ops[i].name, k);
			cr_assert_eq(lsct_count(&cap, "error"), 1, "%s", cap.buf);
			char buf[LSC__LINE_MAX + 1];
			struct lsc__parsed pl;
			cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
			cr_assert_str_eq(lsc__parsed_get(&pl, "err"), ops[i].name);
			cr_assert_str_eq(lsc__parsed_get(&pl, "path"), path);
			/* the file not opened is open's; what its bytes said, the model's */
			cr_assert_str_eq(lsc__parsed_get(&pl, "what"), ops[i].op == LSCT_SYS_PREAD ? "model" : "open");
			lsct_capture_reset(&cap);
		}
	}
	free(path);
}
