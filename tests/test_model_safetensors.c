/*
 * Description: safetensors files as manifests. A real header (three dtypes,
 * __metadata__, tensors listed out of data order, padded to 8 bytes) gives
 * one extent per tensor at the offsets computed here by hand, the arena
 * holds the data section's bytes, and the `loaded` line and the stats count
 * the tensors and files, through the API and through `loadscope load`; two
 * shards given on the command line and a directory with
 * model.safetensors.index.json give the same layout; a plain file is still
 * one extent. Every malformed header (a length larger than the file or over
 * the limit, JSON that does not parse, non-UTF-8 names, offsets past the
 * end, overlapping tensors, a hole, a length that disagrees with dtype and
 * shape, an index that disagrees with its shards) gives its one line and
 * -EBADMSG, no manifest, no descriptor left open; so does a read of the
 * header that fails (through the syscall shim). As properties: the good
 * file cut at every length gets the cause of where the cut falls (the
 * length field, the header, the data section), and a header length from
 * 1 to 64 bytes past the end of the file is "larger than the file", while
 * one that ends exactly at the end of the file is read.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers/model_files.h"
#include "helpers/sys_shim.h"

static struct lsct_capture cap;
static char out[1 << 16];

/* A safetensors file: @json padded with spaces to @hdr bytes, then @data. */
static char *st_file(const char *name, const char *json, size_t hdr, const unsigned char *data,
		     size_t n)
{
	size_t jl = strlen(json);
	cr_assert_leq(jl, hdr, "header %zu > %zu", jl, hdr);
	unsigned char *b = malloc(8 + hdr + n);
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)((uint64_t)hdr >> (8 * i));
	memcpy(b + 8, json, jl);
	memset(b + 8 + jl, ' ', hdr - jl);
	memcpy(b + 8 + hdr, data, n);
	char *p = lsct_write(name, b, 8 + hdr + n);
	free(b);
	return p;
}

static unsigned char data[64];

static void fill(void)
{
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + 1);
}

/* F32 [2,3] = 24 bytes at [0,24), BF16 [4] = 8 at [24,32), U8 [5] = 5 at
 * [32,37): listed out of order. Header of 200 bytes: data at 208. */
static const char three[] =
	"{\"c\":{\"dtype\":\"U8\",\"shape\":[5],\"data_offsets\":[32,37]},"
	"\"__metadata__\":{\"format\":\"pt\"},"
	"\"a\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
	"\"b\":{\"dtype\":\"BF16\",\"shape\":[4],\"data_offsets\":[24,32]}}";

TestSuite(model_safetensors, .init = fill);

Test(model_safetensors, one_extent_per_tensor)
{
	char *path = st_file("three.safetensors", three, 200, data, 37);
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	struct lsc_manifest *m = NULL;
	int ret = lsc_manifest_from_files(p, (const char *const *)&path, 1, &m);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	cr_assert_eq(m->n_extents, 3);
	cr_assert_eq(m->n_tensors, 3);
	cr_assert_eq(m->n_files, 1);
	cr_assert_str_eq(m->files[0], path);
	cr_assert_eq(m->arena_bytes, 37);
	static const char *names[] = {"a", "b", "c"}, *dt[] = {"F32", "BF16", "U8"};
	static const uint64_t foff[] = {208, 232, 240}, len[] = {24, 8, 5}, aoff[] = {0, 24, 32};
	for (int i = 0; i < 3; i++) {
		const struct lsc_tensor *t = &m->tensors[i];
		const struct lsc_extent *e = &m->extents[t->extent];
		cr_assert_str_eq(t->name, names[i]);
		cr_assert_str_eq(t->dtype, dt[i]);
		cr_assert_eq(t->file, 0);
		cr_assert_str_eq(e->path, path);
		cr_assert_eq(e->file_offset, foff[i], "%s at %llu", names[i], (unsigned long long)e->file_offset);
		cr_assert_eq(e->length, len[i]);
		cr_assert_eq(e->arena_offset, aoff[i]);
	}
	cr_assert_eq(m->tensors[0].n_dims, 2);
	cr_assert_eq(m->tensors[0].dims[0], 2);
	cr_assert_eq(m->tensors[0].dims[1], 3);

	lsc_arena *a = NULL;
	ret = lsc_load_manifest(p, NULL, m, &a);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	lsc_manifest_destroy(m);
	cr_assert_eq(lsc_arena_size(a), 37);
	cr_assert(memcmp(lsc_arena_data(a), data, 37) == 0, "the arena is the data section");
	struct lsc_load_stats st;
	cr_assert_eq(lsc_arena_stats(a, &st), 0);
	cr_assert_eq(st.tensors, 3);
	cr_assert_eq(st.files, 1);
	cr_assert_eq(st.bytes, 37);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	char v[64];
	cr_assert_eq(lsct_field(&cap, "loaded", "tensors", v, sizeof(v)), 1);
	cr_assert_str_eq(v, "3");
	cr_assert_eq(lsct_field(&cap, "loaded", "files", v, sizeof(v)), 1);
	cr_assert_str_eq(v, "1");
	cr_assert_eq(lsct_count_with(&cap, "loaded", "files=1 extents=3 tensors=3"), 1);
	free(path);
}

/* Names take more than one block of the parser's pool (64 KiB each):
 * 3000 tensors of names of 40 bytes and more, every one read back whole at
 * its offset, whatever the blocks held before (the heap is not zeroed in
 * the tests; the sanitizer build sees a write past a block). */
Test(model_safetensors, names_over_several_pool_blocks)
{
	enum { N = 3000 };
	size_t room = (size_t)N * 128 + 16;
	char *json = malloc(room);
	unsigned char *bytes = malloc(N);
	cr_assert(json && bytes);
	size_t at = 0;
	at += (size_t)snprintf(json + at, room - at, "{");
	for (unsigned i = 0; i < N; i++) {
		bytes[i] = (unsigned char)(i * 13 + 5);
		at += (size_t)snprintf(json + at, room - at,
				       "%s\"model.layers.%04u.self_attn.q_proj.weight\":{\"dtype\":\"U8\","
				       "\"shape\":[1],\"data_offsets\":[%u,%u]}",
				       i ? "," : "", i, i, i + 1);
	}
	at += (size_t)snprintf(json + at, room - at, "}");
	cr_assert_lt(at, room);
	char *path = st_file("many.safetensors", json, at, bytes, N);
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	struct lsc_manifest *m = NULL;
	int ret = lsc_manifest_from_files(p, (const char *const *)&path, 1, &m);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	cr_assert_eq(m->n_tensors, N);
	for (unsigned i = 0; i < N; i++) {
		char want[64];
		snprintf(want, sizeof want, "model.layers.%04u.self_attn.q_proj.weight", i);
		const struct lsc_tensor *t = &m->tensors[i];
		cr_assert_str_eq(t->name, want);
		cr_assert_str_eq(t->dtype, "U8");
		cr_assert_eq(m->extents[t->extent].file_offset, 8 + at + i, "%s", want);
	}
	lsc_manifest_destroy(m);
	lsc_profiler_destroy(p);
	free(path);
	free(json);
	free(bytes);
}

Test(model_safetensors, the_command_line)
{
	if (!LSC_TEST_TOOL[0])
		cr_skip_test("the loadscope program is not built (LOADSCOPE_BUILD_TOOLS=OFF)");
	char *path = st_file("cli.safetensors", three, 200, data, 37);
	char args[1024], buf[LSC__LINE_MAX + 1];
	snprintf(args, sizeof(args), "'%s'", path);
	cr_assert_eq(lsct_tool_load(args, out, sizeof(out)), 0, "%s", out);
	cr_assert_str_eq(lsct_out_field(out, "loaded", "tensors", buf, sizeof(buf)), "3", "%s", out);
	cr_assert_str_eq(lsct_out_field(out, "loaded", "extents", buf, sizeof(buf)), "3");
	cr_assert_str_eq(lsct_out_field(out, "loaded", "bytes", buf, sizeof(buf)), "37");
	/* --expect is a whole file's hash: a usage error on a model. */
	snprintf(args, sizeof(args), "--expect 0123456789abcdef '%s'", path);
	cr_assert_eq(lsct_tool_load(args, out, sizeof(out)), 64, "%s", out);
	cr_assert_str_eq(out, "");
	/* A malformed one: exit 1 and its line. */
	char *bad = st_file("cli-bad.safetensors", "{\"a\":", 8, data, 0);
	snprintf(args, sizeof(args), "--format json '%s'", bad);
	cr_assert_eq(lsct_tool_load(args, out, sizeof(out)), 1, "%s", out);
	cr_assert_str_eq(lsct_out_field(out, "error", "what", buf, sizeof(buf)), "model", "%s", out);
	cr_assert_str_eq(lsct_out_field(out, "error", "err", buf, sizeof(buf)), "EBADMSG");
	cr_assert_null(lsct_out_field(out, "loaded", "bytes", buf, sizeof(buf)), "nothing loaded");
	free(bad);
	free(path);
}

/* Two shards: x F16 [2] (4 bytes) in the first, y I64 [1] (8 bytes) in the
 * second; headers of 64 bytes, data at 72. */
static const char shard1[] = "{\"x\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]}}";
static const char shard2[] = "{\"y\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,8]}}";

static void check_shards(struct lsc_manifest *m, const char *dir)
{
	cr_assert_eq(m->n_tensors, 2);
	cr_assert_eq(m->n_files, 2);
	char want[600];
	snprintf(want, sizeof(want), "%s/model-00002-of-00002.safetensors", dir);
	cr_assert_str_eq(m->files[1], want);
	cr_assert_str_eq(m->tensors[0].name, "x");
	cr_assert_str_eq(m->tensors[1].name, "y");
	cr_assert_eq(m->extents[0].file_offset, 72);
	cr_assert_eq(m->extents[0].arena_offset, 0);
	cr_assert_eq(m->extents[1].file_offset, 72);
	cr_assert_eq(m->extents[1].arena_offset, 4096, "the second file at the next 4 KiB");
	cr_assert_eq(m->arena_bytes, 4096 + 8);
	lsc_arena *a = NULL;
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	cr_assert_eq(lsc_load_manifest(p, NULL, m, &a), 0);
	const unsigned char *b = lsc_arena_data(a);
	cr_assert(memcmp(b, data, 4) == 0 && memcmp(b + 4096, data + 4, 8) == 0);
	struct lsc_load_stats st;
	lsc_arena_stats(a, &st);
	cr_assert_eq(st.tensors, 2);
	cr_assert_eq(st.files, 2);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
}

static char *make_shards(const char *dir_name, const char *index)
{
	char *dir = NULL;
	cr_assert_geq(asprintf(&dir, "%s/%s", lsct_tmpdir(), dir_name), 0);
	mkdir(dir, 0755);
	char n1[300], n2[300];
	snprintf(n1, sizeof(n1), "%s/model-00001-of-00002.safetensors", dir_name);
	snprintf(n2, sizeof(n2), "%s/model-00002-of-00002.safetensors", dir_name);
	free(st_file(n1, shard1, 64, data, 4));
	free(st_file(n2, shard2, 64, data + 4, 8));
	if (index) {
		char ni[300];
		snprintf(ni, sizeof(ni), "%s/model.safetensors.index.json", dir_name);
		free(lsct_write(ni, index, strlen(index)));
	}
	return dir;
}

static const char index_ok[] =
	"{\"metadata\": {\"total_size\": 12},\n \"weight_map\": {\"y\": \"model-00002-of-00002.safetensors\",\n"
	"  \"x\": \"model-00001-of-00002.safetensors\"}}\n";

Test(model_safetensors, shards_and_index)
{
	char *dir = make_shards("sharded", index_ok);
	char s1[600], s2[600];
	snprintf(s1, sizeof(s1), "%s/model-00001-of-00002.safetensors", dir);
	snprintf(s2, sizeof(s2), "%s/model-00002-of-00002.safetensors", dir);
	const char *both[] = {s1, s2};
	struct lsc_manifest *m = NULL;
	cr_assert_eq(lsc_manifest_from_files(NULL, both, 2, &m), 0);
	check_shards(m, dir);
	lsc_manifest_destroy(m);
	const char *d = dir;
	cr_assert_eq(lsc_manifest_from_files(NULL, &d, 1, &m), 0);
	check_shards(m, dir);
	lsc_manifest_destroy(m);
	/* The same shard twice: its tensors twice. */
	const char *twice[] = {s1, s1};
	int fds = lsct_open_fds();
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	cr_assert_eq(lsc_manifest_from_files(p, twice, 2, &m), -EBADMSG);
	lsc_profiler_destroy(p);
	cr_assert_null(m);
	cr_assert_eq(lsct_open_fds(), fds);
	cr_assert_eq(lsct_count_with(&cap, "error", "tensor \"x\" is in"), 1);
	if (LSC_TEST_TOOL[0]) {
		char args[700], buf[LSC__LINE_MAX + 1];
		snprintf(args, sizeof(args), "'%s'", dir);
		cr_assert_eq(lsct_tool_load(args, out, sizeof(out)), 0, "%s", out);
		cr_assert_str_eq(lsct_out_field(out, "loaded", "tensors", buf, sizeof(buf)), "2");
		cr_assert_str_eq(lsct_out_field(out, "loaded", "files", buf, sizeof(buf)), "2");
	}
	free(dir);
}

Test(model_safetensors, index_that_disagrees)
{
	char *dir = make_shards("wrongmap",
				"{\"weight_map\": {\"x\": \"model-00002-of-00002.safetensors\","
				" \"y\": \"model-00002-of-00002.safetensors\"}}");
	char ip[600];
	snprintf(ip, sizeof(ip), "%s/model.safetensors.index.json", dir);
	/* x is not where the map says: the index is named. */
	const char *d = dir;
	struct lsc_manifest *m = NULL;
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	cr_assert_eq(lsc_manifest_from_files(p, &d, 1, &m), -EBADMSG);
	lsc_profiler_destroy(p);
	char v[600];
	cr_assert_eq(lsct_field(&cap, "error", "path", v, sizeof(v)), 1);
	cr_assert_str_eq(v, ip);
	cr_assert_eq(lsct_count_with(&cap, "error", "weight_map: tensor \"x\" is not in shard"), 1);
	free(dir);
	/* An escaping shard name, a map that is not JSON, no map. */
	dir = make_shards("escape", "{\"weight_map\": {\"x\": \"../x.safetensors\"}}");
	snprintf(ip, sizeof(ip), "%s/model.safetensors.index.json", dir);
	lsct_model_fails(dir, ip, -EBADMSG, "EBADMSG", "is not a file in the directory");
	free(dir);
	dir = make_shards("notjson", "{\"weight_map\": {\"x\": }");
	snprintf(ip, sizeof(ip), "%s/model.safetensors.index.json", dir);
	lsct_model_fails(dir, ip, -EBADMSG, "EBADMSG", "index JSON at byte 21");
	free(dir);
	/* A directory with neither file. */
	dir = make_shards("noindex", NULL);
	d = dir;
	p = lsct_profiler_fresh(&cap);
	cr_assert_eq(lsc_manifest_from_files(p, &d, 1, &m), -EISDIR);
	lsc_profiler_destroy(p);
	cr_assert_eq(lsct_count_with(&cap, "error", "neither model.safetensors.index.json"), 1);
	free(dir);
}

/* A shard that is not a regular file was read as a file of no tensors, and
 * the map's tensor was "not in shard": the line now says what the shard is
 * (and the FIFO does not block the open). */
Test(model_safetensors, a_shard_that_is_not_a_regular_file_says_what_it_is)
{
	static const struct {
		const char *shard, *kind, *errname;
		int err;
	} cases[] = {
		{"pipe.safetensors", "a FIFO", "EINVAL", -EINVAL},
		{"sub", "a directory", "EISDIR", -EISDIR},
		{".", "a directory", "EISDIR", -EISDIR},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char name[32], index[200], ip[700], cause[160], path[700];
		snprintf(name, sizeof name, "notreg%zu", i);
		snprintf(index, sizeof index,
			 "{\"weight_map\": {\"x\": \"model-00001-of-00002.safetensors\", \"z\": \"%s\"}}",
			 cases[i].shard);
		char *dir = make_shards(name, index);
		snprintf(path, sizeof path, "%s/%s", dir, cases[i].shard);
		if (i == 0)
			cr_assert_eq(mkfifo(path, 0644), 0, "%s", path);
		else if (i == 1)
			cr_assert_eq(mkdir(path, 0755), 0, "%s", path);
		snprintf(ip, sizeof ip, "%s/model.safetensors.index.json", dir);
		snprintf(cause, sizeof cause, "weight_map: shard \"%s\" is %s, not a regular file",
			 cases[i].shard, cases[i].kind);
		/* the shard as a whole, not a place in the index: offset 0, as a
		 * directory or a missing file is (docs/loader.md, Bad input) */
		cr_expect_eq(lsct_model_fails(dir, ip, cases[i].err, cases[i].errname, cause), 0, "%s",
			     cases[i].shard);
		free(dir);
	}
}

Test(model_safetensors, plain_files_stay_one_extent)
{
	char *path = lsct_write("plain.bin", data, 50);
	char *st = st_file("mixed.safetensors", three, 200, data, 37);
	const char *both[] = {path, st};
	struct lsc_manifest *m = NULL;
	cr_assert_eq(lsc_manifest_from_files(NULL, both, 2, &m), 0);
	cr_assert_eq(m->n_extents, 4);
	cr_assert_eq(m->n_tensors, 3);
	cr_assert_eq(m->extents[0].file_offset, 0);
	cr_assert_eq(m->extents[0].length, UINT64_MAX);
	cr_assert_eq(m->extents[0].arena_offset, 0);
	cr_assert_eq(m->extents[1].arena_offset, 4096);
	cr_assert_eq(m->tensors[0].extent, 1);
	cr_assert_eq(m->tensors[0].file, 1);
	lsc_manifest_destroy(m);
	free(path);
	free(st);
}

Test(model_safetensors, malformed_headers)
{
	unsigned char b[32] = {0};
	/* A header length larger than the file. */
	b[0] = 0xe8, b[1] = 0x03; /* 1000 */
	char *p = lsct_write("long.safetensors", b, 20);
	lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", "a header length of 1000 bytes, larger than the file (20 bytes)");
	free(p);
	/* Over the 100 MB limit (and the file). */
	memset(b, 0, 8);
	b[3] = 0x10; /* 268435456 */
	p = lsct_write("huge.safetensors", b, 32);
	lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", "a header of 268435456 bytes, over the limit of 100000000");
	free(p);
	/* Shorter than the length itself. */
	p = lsct_write("tiny.safetensors", b, 5);
	lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", "shorter than the 8-byte header length");
	free(p);
	/* JSON that does not parse, truncated: byte 21 is where it ends. */
	p = st_file("cut.safetensors", "{\"a\":{\"dtype\":\"F32\",", 21, data, 0);
	lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", "header JSON at byte 21");
	free(p);
	p = st_file("comma.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],}}", 64, data, 4);
	lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", "a trailing comma");
	free(p);
	/* A name that is not UTF-8. */
	p = st_file("utf8.safetensors", "{\"\xff\xfe\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 64, data, 1);
	lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", "not valid UTF-8");
	free(p);
	p = st_file("surrogate.safetensors", "{\"\\ud800\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 64, data, 1);
	lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", "high surrogate");
	free(p);
	/* Offsets past the end of the file: 100 bytes wanted, 8 there. */
	p = st_file("past.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[25],\"data_offsets\":[0,100]}}", 64, data, 8);
	lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", "tensor \"a\": bytes [0, 100) of the data section reach past the end");
	free(p);
	/* Overlapping tensors. */
	p = st_file("overlap.safetensors",
		    "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
		    "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 128, data, 12);
	lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", "tensors \"a\" and \"b\" overlap at byte 4");
	free(p);
	/* A hole between two tensors. */
	p = st_file("hole.safetensors",
		    "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
		    "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}", 128, data, 12);
	lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", "a hole of 4 bytes before tensor \"b\"");
	free(p);
	/* A length that is not dtype x shape. */
	p = st_file("size.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 64, data, 8);
	lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", "F32 of 3 elements is 12 bytes, but data_offsets [0, 8] hold 8");
	free(p);
	/* An unknown dtype, a shape that overflows. */
	p = st_file("dtype.safetensors", "{\"a\":{\"dtype\":\"F128\",\"shape\":[1],\"data_offsets\":[0,16]}}", 64, data, 16);
	lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", "a dtype the format does not define");
	free(p);
	p = st_file("overflow.safetensors",
		    "{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,4]}}", 96, data, 4);
	lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", "overflows 64 bits");
	free(p);
	/* __metadata__ maps strings to strings */
	p = st_file("meta.safetensors",
		    "{\"__metadata__\":{\"layers\":[1,2]},\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}",
		    96, data, 1);
	lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", "a __metadata__ value that is not a string");
	free(p);
}

Test(model_safetensors, a_read_that_fails)
{
	char *path = st_file("eio.safetensors", three, 200, data, 37);
	/* preads: the first 4 bytes (format), the length, then the header. */
	lsct_sys_fail(LSCT_SYS_PREAD, 3, EIO);
	lsct_model_fails(path, NULL, -EIO, "EIO", "reading the header");
	lsct_sys_restore();
	struct lsct_sys_plan plan = {.op = LSCT_SYS_PREAD, .nth = 3, .how = LSCT_SYS_ZERO};
	lsct_sys_install(&plan);
	lsct_model_fails(path, NULL, -EBADMSG, "EBADMSG", "reading the header");
	lsct_sys_restore();
	free(path);
}

/* The file of one_extent_per_tensor cut at every length: 8 bytes of length,
 * 200 of header, 37 of data. */
Test(model_safetensors, every_truncation_gets_its_cause)
{
	char *full = st_file("whole.safetensors", three, 200, data, 37);
	uint64_t n;
	unsigned char *b = lsct_read_file(full, &n);
	cr_assert_eq(n, 245);
	char cause[160];
	/* Under 4 bytes the format cannot be told: a plain file. */
	for (size_t cut = 4; cut < n; cut++) {
		char *p = lsct_write("cut.safetensors", b, cut);
		if (cut < 8)
			lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", "shorter than the 8-byte header length");
		else {
			if (cut < 208)
				snprintf(cause, sizeof(cause),
					 "a header length of 200 bytes, larger than the file (%zu bytes)", cut);
			else
				snprintf(cause, sizeof(cause), "of the data section reach past the end");
			lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", cause);
		}
		free(p);
	}
	free(b);
	free(full);
}

/* A header length k bytes past what the file holds after its 8-byte
 * length, for k = 1..64; and k = 0, a header that is the rest of the file. */
Test(model_safetensors, header_length_past_the_end_by_every_amount)
{
	static const char json[] = "{\"__metadata__\":{\"a\":\"b\"}}";
	char cause[160];
	for (unsigned k = 0; k <= 64; k++) {
		size_t body = 40; /* the bytes after the length field */
		unsigned char b[8 + 40];
		uint64_t len = body + k;
		for (int i = 0; i < 8; i++)
			b[i] = (unsigned char)(len >> (8 * i));
		memset(b + 8, ' ', body);
		memcpy(b + 8, json, strlen(json));
		char *p = lsct_write("past.safetensors", b, sizeof(b));
		if (!k) {
			struct lsc_manifest *m = NULL;
			int ret = lsc_manifest_from_files(NULL, (const char *const *)&p, 1, &m);
			cr_assert_eq(ret, 0, "a header that ends at the end of the file: %s", lsc_strerror(ret));
			cr_assert_eq(m->n_tensors, 0);
			lsc_manifest_destroy(m);
		} else {
			snprintf(cause, sizeof(cause),
				 "a header length of %llu bytes, larger than the file (48 bytes)",
				 (unsigned long long)len);
			lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", cause);
		}
		free(p);
	}
}

/* A path that is not a regular file (a character device here) is left to
 * lsc_load to refuse: the manifest takes it as one extent and keeps no
 * descriptor of it open. */
Test(model_safetensors, a_device_is_one_extent_and_left_closed)
{
	const char *dev[] = {"/dev/zero"};
	int fds = lsct_open_fds();
	struct lsc_manifest *m = NULL;
	cr_assert_eq(lsc_manifest_from_files(NULL, dev, 1, &m), 0);
	cr_assert_eq(lsct_open_fds(), fds, "a descriptor of /dev/zero left open");
	cr_assert_eq(m->n_extents, 1);
	cr_assert_eq(m->n_tensors, 0);
	lsc_manifest_destroy(m);
}

/* Keys the reader does not know are skipped whatever their value: an
 * array (empty, nested, of objects), an object, a string, a number, true,
 * false, null; in a tensor and in the index (__metadata__'s values are
 * strings by the format: malformed_headers refuses others). The tensors
 * and their offsets are those of the file without them. */
Test(model_safetensors, unknown_keys_of_every_json_type_are_skipped)
{
	static const char extra[] =
		"{\"a\":{\"dtype\":\"F32\",\"q\":[[1,2],[],[{\"k\":[true]}]],\"shape\":[2,3],"
		"\"n\":null,\"o\":{\"x\":[1]},\"data_offsets\":[0,24],\"t\":true,\"f\":false,\"e\":[]},"
		"\"__metadata__\":{\"format\":\"pt\",\"s\":\"x\"}}";
	char *path = st_file("extra.safetensors", extra, 248, data, 24);
	struct lsc_manifest *m = NULL;
	const char *one[] = {path};
	cr_assert_eq(lsc_manifest_from_files(NULL, one, 1, &m), 0);
	cr_assert_eq(m->n_tensors, 1);
	cr_assert_str_eq(m->tensors[0].name, "a");
	cr_assert_eq(m->tensors[0].n_dims, 2);
	cr_assert_eq(m->tensors[0].dims[1], 3);
	cr_assert_eq(m->extents[0].file_offset, 8 + 248);
	cr_assert_eq(m->extents[0].length, 24);
	lsc_manifest_destroy(m);
	free(path);
	char *dir = make_shards("sharded-extra",
				"{\"metadata\": {\"total_size\": 12, \"parts\": [[1], []]}, \"other\": [{}, [], 0],\n"
				" \"weight_map\": {\"y\": \"model-00002-of-00002.safetensors\",\n"
				"  \"x\": \"model-00001-of-00002.safetensors\"}, \"after\": [null]}\n");
	const char *d = dir;
	cr_assert_eq(lsc_manifest_from_files(NULL, &d, 1, &m), 0);
	check_shards(m, dir);
	lsc_manifest_destroy(m);
	free(dir);
}

/* Every way one tensor entry (or the header around it) can be wrong, each
 * with the cause its error line must name, and beside each limit the entry
 * just inside it, which loads: a dropped check lets the bad entry through
 * (or fails on a later one), a changed limit fails the good one. */
struct st_case {
	const char *json;
	const char *cause; /* NULL: a valid header, @bytes of data, @tensors tensors */
	size_t bytes;
};

#define T_OK(rest) "{\"a\":{" rest "}}"
static const struct st_case st_cases[] = {
	{"{\"__metadata__\":[1]," "\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}",
	 "__metadata__ is not an object", 0},
	{"{\"__metadata__\":{},\"__metadata__\":{}," "\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}",
	 "__metadata__ given twice", 0},
	{"{\"__metadata__\":{\"k\":\"v\"}," "\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", NULL, 1},
	{"{\"a\":5}", "a tensor entry that is not an object", 0},
	{T_OK("\"dtype\":1,\"shape\":[1],\"data_offsets\":[0,1]"), "a dtype that is not a string", 0},
	{T_OK("\"dtype\":\"U8\",\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]"), "dtype given twice", 0},
	{T_OK("\"dtype\":\"U8\",\"shape\":[1],\"shape\":[1],\"data_offsets\":[0,1]"), "shape given twice", 0},
	{T_OK("\"dtype\":\"U8\",\"shape\":3,\"data_offsets\":[0,1]"), "a shape that is not an array", 0},
	{T_OK("\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"data_offsets\":[0,1]"),
	 "data_offsets given twice", 0},
	{T_OK("\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":5"), "data_offsets that are not an array", 0},
	{T_OK("\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1]"), "data_offsets that are not [begin, end]", 0},
	{T_OK("\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[]"), "data_offsets that are not [begin, end]", 0},
	{T_OK("\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1,2]"), "data_offsets that are not [begin, end]", 0},
	{T_OK("\"shape\":[1],\"data_offsets\":[0,1]"), "tensor \"a\" has no dtype", 0},
	{T_OK("\"dtype\":\"U8\",\"data_offsets\":[0,1]"), "tensor \"a\" has no shape", 0},
	{T_OK("\"dtype\":\"U8\",\"shape\":[1]"), "tensor \"a\" has no data_offsets", 0},
	{T_OK("\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[4,0]"),
	 "tensor \"a\": data_offsets [4, 0] end before they begin", 0},
	{T_OK("\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]"), NULL, 0},
	/* 2^62 four-byte elements: the count fits in 64 bits, the bytes do not */
	{T_OK("\"dtype\":\"F32\",\"shape\":[4611686018427387904],\"data_offsets\":[0,4]"),
	 "tensor \"a\": its size overflows 64 bits", 0},
	/* the size is counted in bits: 2^61 U8 elements are 2^64 bits, too many;
	 * 2^60 are 2^63, counted, and then a length that disagrees */
	{T_OK("\"dtype\":\"U8\",\"shape\":[2305843009213693952],\"data_offsets\":[0,4]"),
	 "tensor \"a\": its size overflows 64 bits", 0},
	{T_OK("\"dtype\":\"U8\",\"shape\":[1152921504606846976],\"data_offsets\":[0,4]"),
	 "U8 of 1152921504606846976 elements is 1152921504606846976 bytes", 0},
	/* (2^32 - 1) x (2^32 + 1) = 2^64 - 1 elements: the shape fits, its bits do not */
	{T_OK("\"dtype\":\"U8\",\"shape\":[4294967295,4294967297],\"data_offsets\":[0,4]"),
	 "tensor \"a\": its size overflows 64 bits", 0},
	/* a dimension of 0 after a large one: no elements, no division by it */
	{T_OK("\"dtype\":\"U8\",\"shape\":[1099511627776,0],\"data_offsets\":[0,0]"), NULL, 0},
	/* the most F32 elements whose bits fit, (2^64 - 1) / 32, are counted */
	{T_OK("\"dtype\":\"F32\",\"shape\":[576460752303423487],\"data_offsets\":[0,4]"),
	 "F32 of 576460752303423487 elements is 2305843009213693948 bytes", 0},
	/* sub-byte types: 3 F4 are 12 bits, 2 are a byte; 3 F6 are 18 bits, 4 are 3 bytes */
	{T_OK("\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]"),
	 "tensor \"a\": 3 elements of F4 are not a whole number of bytes", 0},
	{T_OK("\"dtype\":\"F4\",\"shape\":[2],\"data_offsets\":[0,1]"), NULL, 1},
	{T_OK("\"dtype\":\"F6_E2M3\",\"shape\":[3],\"data_offsets\":[0,3]"),
	 "tensor \"a\": 3 elements of F6_E2M3 are not a whole number of bytes", 0},
	{T_OK("\"dtype\":\"F6_E3M2\",\"shape\":[4],\"data_offsets\":[0,3]"), NULL, 3},
	{"[{\"a\":1}]", "the header does not start with '{'", 0},
};

Test(model_safetensors, every_malformed_entry_names_its_fault)
{
	unsigned char zeros[8] = {0};
	for (size_t i = 0; i < sizeof(st_cases) / sizeof(st_cases[0]); i++) {
		const struct st_case *c = &st_cases[i];
		char name[64];
		snprintf(name, sizeof(name), "case%zu.safetensors", i);
		size_t hdr = (strlen(c->json) + 7) / 8 * 8;
		char *p = st_file(name, c->json, hdr, zeros, c->cause ? 4 : c->bytes);
		if (c->cause) {
			lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", c->cause);
		} else {
			lsc_profiler *pr = lsct_profiler_fresh(&cap);
			struct lsc_manifest *m = NULL;
			int ret = lsc_manifest_from_files(pr, (const char *const *)&p, 1, &m);
			if (ret)
				lsct_dump(&cap);
			cr_assert_eq(ret, 0, "case %zu (%s): %s", i, c->json, lsc_strerror(ret));
			cr_assert_eq(m->n_tensors, 1, "case %zu", i);
			cr_assert_eq(m->arena_bytes, c->bytes, "case %zu", i);
			lsc_manifest_destroy(m);
			lsc_profiler_destroy(pr);
		}
		free(p);
	}
}

/* A shape of 1024 dimensions is the most a header may give; 1025 is refused. */
static void dims_file(unsigned n, const char *cause)
{
	size_t room = 64 + 2 * (size_t)n;
	char *json = malloc(room);
	size_t at = (size_t)snprintf(json, room, "{\"a\":{\"dtype\":\"U8\",\"data_offsets\":[0,1],\"shape\":[");
	for (unsigned i = 0; i < n; i++)
		at += (size_t)snprintf(json + at, room - at, i ? ",1" : "1");
	snprintf(json + at, room - at, "]}}");
	unsigned char one = 7;
	char *p = st_file("dims.safetensors", json, (strlen(json) + 7) / 8 * 8, &one, 1);
	if (cause) {
		lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", cause);
	} else {
		lsc_profiler *pr = lsct_profiler_fresh(&cap);
		struct lsc_manifest *m = NULL;
		cr_assert_eq(lsc_manifest_from_files(pr, (const char *const *)&p, 1, &m), 0);
		cr_assert_eq(m->tensors[0].n_dims, n);
		lsc_manifest_destroy(m);
		lsc_profiler_destroy(pr);
	}
	free(p);
	free(json);
}

Test(model_safetensors, a_shape_of_1024_dimensions_and_not_1025)
{
	dims_file(1024, NULL);
	dims_file(1025, "a shape of more than 1024 dimensions");
}

/* A header length of 0 or 1 cannot hold "{}"; 2 can (and names no tensor). */
Test(model_safetensors, a_header_too_short_for_an_object)
{
	unsigned char b[16] = {0};
	for (unsigned n = 0; n < 2; n++) {
		b[0] = (unsigned char)n;
		char *p = lsct_write("short-hdr.safetensors", b, 16);
		char cause[64];
		snprintf(cause, sizeof(cause), "a header of %u bytes cannot hold a JSON object", n);
		lsct_model_fails(p, NULL, -EBADMSG, "EBADMSG", cause);
		free(p);
	}
}

/* Every way the index's weight_map can be wrong names its cause, beside
 * the same map made right: two maps, a map that is not an object, a value
 * that is not a string, a tensor named twice (sorted apart in the file),
 * no map at all. */
Test(model_safetensors, every_malformed_index_names_its_fault)
{
	static const struct {
		const char *index, *cause;
	} cases[] = {
		{"{\"weight_map\": {\"x\": \"model-00001-of-00002.safetensors\", \"y\": \"model-00002-of-00002.safetensors\"},"
		 " \"weight_map\": {}}",
		 "weight_map given twice"},
		{"{\"weight_map\": [\"model-00001-of-00002.safetensors\"]}", "weight_map is not an object"},
		{"{\"weight_map\": {\"x\": 1, \"y\": \"model-00002-of-00002.safetensors\"}}",
		 "a weight_map value that is not a string"},
		{"{\"weight_map\": {\"x\": \"model-00001-of-00002.safetensors\", \"y\": \"model-00002-of-00002.safetensors\","
		 " \"x\": \"model-00001-of-00002.safetensors\"}}",
		 "weight_map: tensor \"x\" is named twice"},
		{"{\"metadata\": {\"total_size\": 12}}", "no weight_map"},
		/* the same shards, the map right: loads (keys it does not know skipped) */
		{"{\"metadata\": {\"total_size\": 12, \"format\": [1, {\"a\": null}]}, \"weight_map\": "
		 "{\"y\": \"model-00002-of-00002.safetensors\", \"x\": \"model-00001-of-00002.safetensors\"}, \"extra\": true}",
		 NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char dn[32], ip[600];
		snprintf(dn, sizeof(dn), "index%zu", i);
		char *dir = make_shards(dn, cases[i].index);
		snprintf(ip, sizeof(ip), "%s/model.safetensors.index.json", dir);
		if (cases[i].cause) {
			unsigned long long off = lsct_model_fails(dir, ip, -EBADMSG, "EBADMSG", cases[i].cause);
			/* a key the whole file lacks is at no byte of it */
			if (!strcmp(cases[i].cause, "no weight_map"))
				cr_expect_eq(off, 0, "no weight_map at offset %llu", off);
		} else {
			const char *d = dir;
			struct lsc_manifest *m = NULL;
			lsc_profiler *p = lsct_profiler_fresh(&cap);
			int ret = lsc_manifest_from_files(p, &d, 1, &m);
			if (ret)
				lsct_dump(&cap);
			cr_assert_eq(ret, 0, "case %zu: %s", i, lsc_strerror(ret));
			check_shards(m, dir);
			lsc_manifest_destroy(m);
			lsc_profiler_destroy(p);
		}
		free(dir);
	}
}

/* Every call a sharded model's read makes (the directory's index and two
 * shards: their opens, fstats and preads), failed in turn, each alone: the
 * read fails with that call's error, one `error` line names a file of the
 * model and the error, no manifest is made and no descriptor stays open
 * (a pread that ends early instead, 0 bytes, is a truncated file's
 * EBADMSG); or, where the failed call only looked at a shard's kind before
 * the shard is opened to be read, the read gives the whole manifest, as
 * without the fault. Never a manifest with a part missing. */
Test(model_safetensors, every_call_of_a_sharded_read_failed_in_turn)
{
	char *dir = make_shards("faults", index_ok);
	const char *d = dir;
	struct lsc_manifest *m = NULL;
	lsct_sys_install(NULL);
	cr_assert_eq(lsc_manifest_from_files(NULL, &d, 1, &m), 0);
	size_t n_tensors = m->n_tensors, n_extents = m->n_extents;
	uint64_t arena = m->arena_bytes;
	lsc_manifest_destroy(m);
	cr_assert_eq(n_tensors, 2);
	static const struct {
		enum lsct_sys_op op;
		enum lsct_sys_how how;
		int err;
		const char *errname;
	} ops[] = {
		{LSCT_SYS_OPEN, LSCT_SYS_ERR, EACCES, "EACCES"},
		{LSCT_SYS_FSTAT, LSCT_SYS_ERR, EIO, "EIO"},
		{LSCT_SYS_PREAD, LSCT_SYS_ERR, EIO, "EIO"},
		{LSCT_SYS_PREAD, LSCT_SYS_ZERO, 0, "EBADMSG"},
	};
	unsigned calls[LSCT_SYS_OP_COUNT];
	for (int op = 0; op < LSCT_SYS_OP_COUNT; op++)
		calls[op] = lsct_sys_calls((enum lsct_sys_op)op);
	lsct_sys_restore();
	cr_assert_geq(calls[LSCT_SYS_OPEN], 3, "the index and two shards");
	cr_assert_geq(calls[LSCT_SYS_PREAD], 3);
	unsigned tried = 0, recovered[4] = {0};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		for (unsigned k = 1; k <= calls[ops[i].op]; k++) {
			int fds = lsct_open_fds();
			lsc_profiler *p = lsct_profiler_fresh(&cap);
			struct lsct_sys_plan plan = {.op = ops[i].op, .nth = k, .err = ops[i].err, .how = ops[i].how};
			lsct_sys_install(&plan);
			m = (struct lsc_manifest *)&cap;
			int ret = lsc_manifest_from_files(p, &d, 1, &m);
			lsct_sys_restore();
			lsc_profiler_destroy(p);
			cr_assert_eq(lsct_open_fds(), fds, "%s call %u: a descriptor left open", ops[i].errname, k);
			if (ret == 0 && ops[i].op != LSCT_SYS_PREAD) {
				recovered[i]++;
				cr_assert(m->n_tensors == n_tensors && m->n_extents == n_extents && m->arena_bytes == arena,
					  "%s call %u: a manifest with a part missing", ops[i].errname, k);
				cr_assert_eq(lsct_count(&cap, "error"), 0, "%s", cap.buf);
				lsc_manifest_destroy(m);
				lsct_capture_reset(&cap);
				continue;
			}
			cr_assert_eq(ret, ops[i].err ? -ops[i].err : -EBADMSG, "%s call %u: %d\n%s", ops[i].errname, k, ret,
				     cap.buf);
			cr_assert_null(m);
			cr_assert_eq(lsct_count(&cap, "error"), 1, "%s call %u: %s", ops[i].errname, k, cap.buf);
			char buf[LSC__LINE_MAX + 1];
			struct lsc__parsed pl;
			cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
			cr_assert_str_eq(lsc__parsed_get(&pl, "err"), ops[i].errname, "%s", pl.human);
			const char *path = lsc__parsed_get(&pl, "path");
			cr_assert(path && !strncmp(path, dir, strlen(dir)), "%s call %u names no file of the model: %s",
				  ops[i].errname, k, pl.human);
			lsct_capture_reset(&cap);
			tried++;
		}
	cr_assert_geq(tried, 9);
	/* the one look per shard at its kind, by an open and an fstat */
	cr_assert_eq(recovered[0], 2);
	cr_assert_eq(recovered[1], 2);
	free(dir);
}
