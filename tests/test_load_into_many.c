/*
 * Description: lsc_load_into_many, one load into several buffers the
 * caller owns (ggml's backend buffers), and a manifest loaded into caller
 * memory with its tensors found by name. Each extent's bytes land at its
 * offset in its own destination and nowhere else, in one start's lines;
 * every refusal (no destination, too many, overlapping ones, an address
 * missing, an extent past its destination or naming one that is not
 * there, a destination index on a load that has none) is -EINVAL with
 * its line, with nothing written and no descriptor left.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "helpers/load_helpers.h"
#include "helpers/test_env.h"

static struct lsct_capture cap;

static void teardown(void)
{
	lsct_capture_reset(&cap);
}

TestSuite(load_into_many, .fini = teardown);

/* The test files' bytes, read back from the files themselves. */
static unsigned char *file_bytes;

static char *pattern_file(const char *name, uint64_t bytes)
{
	char *path = strdup(lsct_make_file(name, bytes, 0x5eed + bytes));
	uint64_t len;
	free(file_bytes);
	file_bytes = lsct_read_file(path, &len);
	cr_assert(file_bytes && len == bytes);
	return path;
}

/* Bytes [0, n) of @buf equal the file's [foff, foff + n). */
static void expect_file_bytes(const unsigned char *buf, uint64_t foff, uint64_t n, const char *what)
{
	for (uint64_t i = 0; i < n; i++)
		if (buf[i] != file_bytes[foff + i])
			cr_assert_fail("%s: byte %llu is %u, the file's is %u", what, (unsigned long long)i,
				       buf[i], file_bytes[foff + i]);
}

static void expect_untouched(const unsigned char *buf, uint64_t from, uint64_t to, const char *what)
{
	for (uint64_t i = from; i < to; i++)
		if (buf[i] != 0xAB)
			cr_assert_fail("%s: byte %llu was written", what, (unsigned long long)i);
}

/* Three destinations of different sizes and alignments, the extents given
 * out of order, two of them at the same offset of different destinations. */
Test(load_into_many, each_extent_lands_in_its_destination)
{
	char *path = pattern_file("many.bin", 200000);
	unsigned char *a = malloc(70000), *b = malloc(5001), *c = aligned_alloc(4096, 1 << 20);
	cr_assert(a && b && c);
	memset(a, 0xAB, 70000);
	memset(b, 0xAB, 5001);
	memset(c, 0xAB, 1 << 20);
	struct lsc_dest d[3] = {{a, 70000, "CPU"}, {b + 1, 5000, "odd"}, {c, 1 << 20, "CUDA_Host"}};
	struct lsc_extent e[4] = {
		{.path = path, .file_offset = 150000, .length = 50000, .arena_offset = 8192, .dest = 2},
		{.path = path, .file_offset = 0, .length = 60000, .arena_offset = 100, .dest = 0},
		{.path = path, .file_offset = 77, .length = 5000, .arena_offset = 0, .dest = 1},
		{.path = path, .file_offset = 60000, .length = 100, .arena_offset = 100, .dest = 2},
	};
	lsc_profiler *p = lsct_profiler(&cap);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.tensors = 4;
	struct lsc_load_stats st;
	int fds = lsct_open_fds();
	int ret = lsc_load_into_many(p, &o, e, 4, d, 3, &st);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0);
	cr_assert_eq(lsct_open_fds(), fds, "a descriptor left open");
	expect_untouched(a, 0, 100, "CPU");
	expect_file_bytes(a + 100, 0, 60000, "CPU");
	expect_untouched(a, 60100, 70000, "CPU");
	expect_file_bytes(b + 1, 77, 5000, "odd");
	cr_assert_eq(b[0], 0xAB);
	expect_untouched(c, 0, 100, "CUDA_Host");
	expect_file_bytes(c + 100, 60000, 100, "CUDA_Host");
	expect_untouched(c, 200, 8192, "CUDA_Host");
	expect_file_bytes(c + 8192, 150000, 50000, "CUDA_Host");
	expect_untouched(c, 8192 + 50000, 1 << 20, "CUDA_Host");
	cr_assert_eq(st.bytes, 50000 + 60000 + 5000 + 100);
	cr_assert_eq(st.arena_bytes, 70000 + 5000 + (1 << 20));
	cr_assert_eq(st.caller_memory, 1);
	cr_assert_eq(st.tensors, 4);
	/* One start's summaries for all three, which say why nothing is
	 * registered with io_uring. */
	cr_assert_eq(lsct_count(&cap, "loaded"), 1);
	cr_assert_eq(lsct_count(&cap, "complement"), 1);
	char v[64];
	cr_assert(lsct_field(&cap, "loaded", "tensors", v, sizeof v));
	cr_assert_str_eq(v, "4");
	cr_assert(lsct_field(&cap, "loaded", "fixed_arena", v, sizeof v));
	cr_assert_str_eq(v, "0");
	free(a);
	free(b);
	free(c);
	free(path);
}

/* One destination through lsc_load_into_many is lsc_load_into. */
Test(load_into_many, one_destination_is_load_into)
{
	char *path = pattern_file("one.bin", 9000);
	unsigned char *a = malloc(20000), *b = malloc(20000);
	memset(a, 0xAB, 20000);
	memset(b, 0xAB, 20000);
	struct lsc_extent e = {.path = path, .length = UINT64_MAX, .arena_offset = 3000};
	struct lsc_dest d = {a, 20000, NULL};
	lsc_profiler *p = lsct_profiler(&cap);
	cr_assert_eq(lsc_load_into_many(p, NULL, &e, 1, &d, 1, NULL), 0);
	cr_assert_eq(lsc_load_into(p, NULL, &e, 1, b, 20000, NULL), 0);
	cr_assert_eq(memcmp(a, b, 20000), 0);
	expect_file_bytes(a + 3000, 0, 9000, "one");
	free(a);
	free(b);
	free(path);
}

struct refusal {
	const char *name;
	struct lsc_dest d[3];
	size_t n_dst;
	struct lsc_extent e;
	const char *phrase; /* in the error line */
};

static void refused(const struct refusal *r, unsigned char *mem)
{
	lsct_capture_reset(&cap);
	lsc_profiler *p = lsct_profiler(&cap);
	int fds = lsct_open_fds();
	int ret = lsc_load_into_many(p, NULL, &r->e, 1, r->n_dst ? r->d : NULL, r->n_dst, NULL);
	cr_expect_eq(ret, -EINVAL, "%s: %d", r->name, ret);
	cr_expect_eq(lsct_open_fds(), fds, "%s: a descriptor left open", r->name);
	cr_expect_eq(lsct_count_with(&cap, "error", r->phrase), 1, "%s: no error line with \"%s\"",
		     r->name, r->phrase);
	for (size_t i = 0; i < 3 * 4096; i++)
		if (mem[i] != 0xAB)
			cr_assert_fail("%s: byte %zu written", r->name, i);
}

Test(load_into_many, refusals_write_nothing)
{
	char *path = pattern_file("ref.bin", 8192);
	unsigned char *m = aligned_alloc(4096, 3 * 4096);
	memset(m, 0xAB, 3 * 4096);
	struct lsc_extent ok = {.path = path, .length = 4096};
	struct lsc_extent far = {.path = path, .length = 4096, .arena_offset = 1};
	struct lsc_extent third = {.path = path, .length = 10, .dest = 2};
	struct refusal rs[] = {
		{"no destination", {{0}}, 0, ok, "0 destinations"},
		{"overlap", {{m, 8192, "a"}, {m + 4096, 4096, "b"}}, 2, ok, "overlap"},
		{"no address", {{m, 4096, "a"}, {NULL, 10, "b"}}, 2, ok, "no address"},
		{"past its destination", {{m, 4096, "a"}, {m + 8192, 4096, "b"}}, 2, far, "past destination 0"},
		{"a destination not there", {{m, 4096, "a"}, {m + 8192, 4096, "b"}}, 2, third,
		 "destination 2 of 2"},
	};
	for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++)
		refused(&rs[i], m);
	/* Overlap is by address, whatever the order the destinations are
	 * given in: descending and apart loads; the first and the last
	 * overlapping, with one between them in address order, is refused. */
	struct lsc_dest down[3] = {{m + 8192, 4096, "c"}, {m + 4096, 4096, "b"}, {m, 4096, "a"}};
	lsc_profiler *q = lsct_profiler_fresh(&cap);
	cr_assert_eq(lsc_load_into_many(q, NULL, &ok, 1, down, 3, NULL), 0, "%s", cap.buf);
	lsc_profiler_destroy(q);
	struct lsc_dest far_apart[3] = {{m + 4000, 200, "a"}, {m + 8192, 100, "c"}, {m, 4196, "b"}};
	q = lsct_profiler_fresh(&cap);
	cr_assert_eq(lsc_load_into_many(q, NULL, &ok, 1, far_apart, 3, NULL), -EINVAL);
	lsc_profiler_destroy(q);
	cr_assert_eq(lsct_count_with(&cap, "error", "overlap"), 1, "%s", cap.buf);
	/* Both sides of the bound: the extent that ends exactly at the end of
	 * its destination loads. */
	struct lsc_dest two[2] = {{m, 4097, "a"}, {m + 8192, 4096, "b"}};
	lsc_profiler *p = lsct_profiler(&cap);
	cr_assert_eq(lsc_load_into_many(p, NULL, &far, 1, two, 2, NULL), 0);
	expect_file_bytes(m + 1, 0, 4096, "exact end");
	/* More than LSC_DESTS_MAX. */
	struct lsc_dest *many = calloc(LSC_DESTS_MAX + 1, sizeof(*many));
	many[0] = (struct lsc_dest){m, 4096, "a"};
	lsct_capture_reset(&cap);
	p = lsct_profiler(&cap);
	cr_assert_eq(lsc_load_into_many(p, NULL, &ok, 1, many, LSC_DESTS_MAX + 1, NULL), -EINVAL);
	cr_assert_eq(lsc_load_into_many(p, NULL, &ok, 1, many, LSC_DESTS_MAX, NULL), 0);
	free(many);
	free(m);
	free(path);
}

/* Two extents that overlap in one destination are refused whatever the
 * order they are given in, with extents of the other destination given
 * between them, before and after (the check walks the extents sorted by
 * destination, then offset: a sort that left another destination's
 * extent between the two would hide the overlap); the same extents with
 * the overlap removed load. Nothing is written when refused. */
Test(load_into_many, extents_overlapping_in_one_destination)
{
	char *path = pattern_file("ovl.bin", 8192);
	unsigned char *m = aligned_alloc(4096, 3 * 4096);
	struct lsc_dest d[2] = {{m, 4096, "a"}, {m + 8192, 4096, "b"}};
	/* dest 0: [0, 100) and [50, 150) overlap; dest 1: one extent */
	const struct lsc_extent a0 = {.path = path, .length = 100, .arena_offset = 0, .dest = 0};
	const struct lsc_extent a1 = {.path = path, .file_offset = 200, .length = 100, .arena_offset = 50, .dest = 0};
	const struct lsc_extent b0 = {.path = path, .file_offset = 400, .length = 10, .arena_offset = 0, .dest = 1};
	const struct lsc_extent orders[][3] = {{a0, b0, a1}, {a1, b0, a0}, {b0, a1, a0}, {a0, a1, b0}, {a1, a0, b0}};
	for (size_t i = 0; i < sizeof orders / sizeof orders[0]; i++) {
		memset(m, 0xAB, 3 * 4096);
		lsct_capture_reset(&cap);
		lsc_profiler *p = lsct_profiler_fresh(&cap);
		cr_expect_eq(lsc_load_into_many(p, NULL, orders[i], 3, d, 2, NULL), -EINVAL, "order %zu", i);
		lsc_profiler_destroy(p);
		cr_expect_eq(lsct_count_with(&cap, "error", "overlap in the arena"), 1, "order %zu: %s", i, cap.buf);
		for (size_t k = 0; k < 3 * 4096; k++)
			if (m[k] != 0xAB)
				cr_assert_fail("order %zu: byte %zu written", i, k);
	}
	/* apart by one byte: [0, 100) and [100, 200) */
	struct lsc_extent apart[3] = {a0, b0, a1};
	apart[2].arena_offset = 100;
	lsct_capture_reset(&cap);
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	cr_assert_eq(lsc_load_into_many(p, NULL, apart, 3, d, 2, NULL), 0, "%s", cap.buf);
	lsc_profiler_destroy(p);
	expect_file_bytes(m, 0, 100, "dest a, first");
	expect_file_bytes(m + 100, 200, 100, "dest a, second");
	expect_file_bytes(m + 8192, 400, 10, "dest b");
	free(m);
	free(path);
}

/* A destination index is for lsc_load_into_many only. */
Test(load_into_many, dest_on_a_load_of_one_destination_is_refused)
{
	char *path = pattern_file("dest1.bin", 4096);
	struct lsc_extent e = {.path = path, .length = 4096, .dest = 1};
	unsigned char *m = malloc(4096);
	lsc_profiler *p = lsct_profiler(&cap);
	cr_assert_eq(lsc_load_into(p, NULL, &e, 1, m, 4096, NULL), -EINVAL);
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, NULL, &e, 1, 0, &a), -EINVAL);
	cr_assert_null(a);
	cr_assert_eq(lsct_count_with(&cap, "error", "names destination 1"), 2);
	free(m);
	free(path);
}

/* A safetensors file of @n tensors "t0".."t{n-1}", tensor i of i + 1
 * bytes, written after an 8-byte length and its JSON header. */
static char *safetensors(const char *name, unsigned n, uint64_t *data_off)
{
	char hdr[4096];
	size_t k = 0;
	uint64_t at = 0;
	k += (size_t)snprintf(hdr + k, sizeof hdr - k, "{");
	for (unsigned i = 0; i < n; i++) {
		k += (size_t)snprintf(hdr + k, sizeof hdr - k,
				      "%s\"t%u\":{\"dtype\":\"U8\",\"shape\":[%u],\"data_offsets\":[%llu,%llu]}",
				      i ? "," : "", i, i + 1, (unsigned long long)at,
				      (unsigned long long)(at + i + 1));
		at += i + 1;
	}
	k += (size_t)snprintf(hdr + k, sizeof hdr - k, "}");
	char path[512];
	snprintf(path, sizeof path, "%s/%s", lsct_tmpdir(), name);
	FILE *f = fopen(path, "wb");
	uint64_t len = k;
	fwrite(&len, 8, 1, f);
	fwrite(hdr, 1, k, f);
	for (uint64_t i = 0; i < at; i++)
		fputc((int)(i & 0xff), f);
	fclose(f);
	*data_off = 8 + k;
	return strdup(path);
}

Test(load_into_many, manifest_into_caller_memory_and_lookup_by_name)
{
	uint64_t data_off;
	char *path = safetensors("m.safetensors", 20, &data_off);
	const char *paths[] = {path};
	struct lsc_manifest *m;
	lsc_profiler *p = lsct_profiler(&cap);
	cr_assert_eq(lsc_manifest_from_files(p, paths, 1, &m), 0);
	cr_assert_eq(m->n_tensors, 20);
	unsigned char *mem = malloc(m->arena_bytes);
	struct lsc_load_stats st;
	cr_assert_eq(lsc_load_manifest_into(p, NULL, m, mem, m->arena_bytes, &st), 0);
	cr_assert_eq(st.tensors, 20);
	/* Every tensor by name: tensor i holds bytes [i(i+1)/2, +i+1) of the
	 * data section, at its extent's offset in the memory. */
	for (unsigned i = 0; i < 20; i++) {
		char name[8];
		snprintf(name, sizeof name, "t%u", i);
		const struct lsc_tensor *t = lsc_manifest_tensor(m, name);
		cr_assert_not_null(t, "%s", name);
		cr_assert_str_eq(t->name, name);
		cr_assert_eq(t->dims[0], i + 1);
		const struct lsc_extent *x = &m->extents[t->extent];
		cr_assert_eq(x->length, i + 1);
		uint64_t first = (uint64_t)i * (i + 1) / 2;
		for (unsigned b = 0; b <= i; b++)
			cr_assert_eq(mem[x->arena_offset + b], (unsigned char)((first + b) & 0xff));
	}
	cr_assert_null(lsc_manifest_tensor(m, "t20"));
	cr_assert_null(lsc_manifest_tensor(m, "t"));
	cr_assert_null(lsc_manifest_tensor(m, ""));
	cr_assert_null(lsc_manifest_tensor(m, NULL));
	cr_assert_null(lsc_manifest_tensor(NULL, "t0"));
	cr_assert_eq(lsc_load_manifest_into(p, NULL, NULL, mem, 1, NULL), -EINVAL);
	lsc_manifest_destroy(m);
	free(mem);
	free(path);
}

/* A read-only destination among several is refused before a byte is read,
 * whichever of them it is (the staging path would fault in it). */
Test(load_into_many, a_read_only_destination_is_efault)
{
	char *path = pattern_file("ro.bin", 8192);
	for (int which = 0; which < 2; which++) {
		unsigned char *m = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		cr_assert_neq(m, MAP_FAILED);
		cr_assert_eq(mprotect(m + which * 4096, 4096, PROT_READ), 0);
		struct lsc_dest d[2] = {{m, 4096, "a"}, {m + 4096, 4096, "b"}};
		struct lsc_extent e[2] = {{.path = path, .length = 4096, .dest = 0},
					  {.path = path, .file_offset = 4096, .length = 4096, .dest = 1}};
		lsct_capture_reset(&cap);
		lsc_profiler *p = lsct_profiler(&cap);
		cr_assert_eq(lsc_load_into_many(p, NULL, e, 2, d, 2, NULL), -EFAULT, "read-only destination %d", which);
		cr_assert_eq(lsct_count_with(&cap, "error", "not writable"), 1);
		cr_assert_eq(m[(1 - which) * 4096], 0, "the writable destination was written");
		munmap(m, 2 * 4096);
	}
	free(path);
}
