/*
 * Description: every allocation failing in turn. This program puts its own
 * malloc, calloc, realloc and free in front of the C library's (they call
 * glibc's __libc_* functions), and while a case is armed it fails the k-th
 * allocation with ENOMEM, for k = 0, 1, 2, ... until the case makes fewer
 * than k + 1 allocations. Then, for each k: a manifest of a sharded
 * safetensors model (an index and two shards), and of a GGUF file, is
 * refused with -ENOMEM and one error line that says "out of memory", or
 * built whole; a load of a
 * file either succeeds with the file's bytes or returns -ENOMEM (or the
 * line of the fallback it took instead); a triage of each corpus log gives
 * the same verdicts as without the failure or says that it dropped findings
 * or lines (a start it could not allocate: then it never exits 0), and its
 * JSON stays valid, and a setting whose start could not be made is not
 * counted recognised. Every case leaves no descriptor open and frees
 * every allocation it made (counted here), whichever allocation failed.
 * Under AddressSanitizer, whose allocator these would bypass, it is a loud
 * skip (the sanitizer suite runs the rest).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers/json_strict.h"
#include "helpers/load_helpers.h"
#include "helpers/model_files.h"
#include "helpers/triage_run.h"
#include "triage/triage.h"

#if defined(__SANITIZE_ADDRESS__)
#define LSCT_INTERPOSE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LSCT_INTERPOSE 0
#endif
#endif
#ifndef LSCT_INTERPOSE
#define LSCT_INTERPOSE 1
#endif

#if LSCT_INTERPOSE
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t m);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);

/* The allocations made while armed, by address: open addressing, so that
 * tracking one allocates nothing. */
#define SLOTS (1u << 16)
static void *live[SLOTS];
static atomic_int armed;
static atomic_long calls, fail_at = -1, nlive, overflow;
static atomic_flag lock = ATOMIC_FLAG_INIT;

static unsigned slot_of(const void *p)
{
	return (unsigned)(((uintptr_t)p >> 4) * 2654435761u) & (SLOTS - 1);
}

static void track(void *p)
{
	while (atomic_flag_test_and_set(&lock))
		;
	unsigned i = slot_of(p), n = 0;
	while (live[i] && n++ < SLOTS)
		i = (i + 1) & (SLOTS - 1);
	if (n < SLOTS) {
		live[i] = p;
		nlive++;
	} else {
		overflow++;
	}
	atomic_flag_clear(&lock);
}

static void untrack(void *p)
{
	while (atomic_flag_test_and_set(&lock))
		;
	unsigned i = slot_of(p), n = 0;
	while (live[i] != p && n++ < SLOTS) {
		if (!live[i])
			break;
		i = (i + 1) & (SLOTS - 1);
	}
	if (live[i] == p) {
		/* a deletion in open addressing: put back the run after it */
		live[i] = NULL;
		nlive--;
		for (unsigned j = (i + 1) & (SLOTS - 1); live[j]; j = (j + 1) & (SLOTS - 1)) {
			void *q = live[j];
			live[j] = NULL;
			unsigned k = slot_of(q);
			while (live[k])
				k = (k + 1) & (SLOTS - 1);
			live[k] = q;
		}
	}
	atomic_flag_clear(&lock);
}

/* Whether this allocation is the one to fail. */
static int fails(void)
{
	if (!armed)
		return 0;
	return atomic_fetch_add(&calls, 1) == fail_at;
}

void *malloc(size_t n)
{
	if (fails()) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = __libc_malloc(n);
	if (p && armed)
		track(p);
	return p;
}

void *calloc(size_t n, size_t m)
{
	if (fails()) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = __libc_calloc(n, m);
	if (p && armed)
		track(p);
	return p;
}

void *realloc(void *old, size_t n)
{
	if (!old)
		return malloc(n);
	if (fails()) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = __libc_realloc(old, n);
	if (!p && !n) {
		untrack(old); /* realloc(p, 0) freed it */
	} else if (p && p != old) {
		/* the same allocation, moved: tracked if the old one was */
		long before = nlive;
		untrack(old);
		if (nlive != before)
			track(p);
	}
	return p;
}

void free(void *p)
{
	if (p)
		untrack(p);
	__libc_free(p);
}

static void arm(long k)
{
	calls = 0;
	fail_at = k;
	nlive = 0;
	overflow = 0;
	armed = 1;
}

/* Disarm; return the number of allocations the case made. */
static long disarm(void)
{
	armed = 0;
	return calls;
}
#endif

static void need_interpose(void)
{
#if !LSCT_INTERPOSE
	cr_skip_test("SKIP: built with AddressSanitizer, whose allocator these interposed functions would bypass");
#endif
}

#if LSCT_INTERPOSE
static struct lsct_capture cap;

/* A safetensors file of one F32 tensor "@name" of 4 bytes. */
static void shard(const char *dir, const char *file, const char *name)
{
	char json[160], path[700];
	int jl = snprintf(json, sizeof json, "{\"%s\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", name);
	unsigned char b[256] = {0};
	uint64_t hl = (uint64_t)jl;
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(hl >> (8 * i));
	memcpy(b + 8, json, (size_t)jl);
	memcpy(b + 8 + jl, "\x01\x02\x03\x04", 4);
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(b, 1, 8 + (size_t)jl + 4, f), 8 + (size_t)jl + 4);
	fclose(f);
}
#endif

#if LSCT_INTERPOSE
/* A manifest of @in built with its allocation @k failing. Where none
 * failed (1), the whole manifest: @files files, @extents extents, all its
 * allocations freed. Where one did (0), refused with -ENOMEM, no manifest,
 * one error line whose err is ENOMEM; the line stays in cap for the
 * caller's own checks, and manifest_failure_done ends the case. */
static int manifest_at(const char *in, long k, unsigned files, unsigned extents, lsc_profiler **pp)
{
	lsc_profiler *p = *pp = lsct_profiler_fresh(&cap);
	struct lsc_manifest *m = (struct lsc_manifest *)1;
	arm(k);
	int ret = lsc_manifest_from_files(p, &in, 1, &m);
	long made = disarm();
	if (made <= k) {
		cr_assert_eq(ret, 0, "no failure, yet %d (%s)", ret, lsc_strerror(ret));
		cr_assert_not_null(m);
		cr_expect_eq(m->n_files, files);
		cr_expect_eq(m->n_extents, extents, "%u extents", (unsigned)m->n_extents);
		lsc_manifest_destroy(m);
		lsc_profiler_destroy(p);
		cr_expect_eq(nlive, 0, "%ld allocations left", (long)nlive);
		return 1;
	}
	cr_expect_eq(ret, -ENOMEM, "allocation %ld of %ld failed: %d (%s)", k, made, ret, lsc_strerror(ret));
	cr_expect_null(m, "allocation %ld: a manifest after a failure", k);
	if (m && m != (struct lsc_manifest *)1)
		lsc_manifest_destroy(m);
	cr_expect_eq(lsct_count(&cap, "error"), 1, "allocation %ld: one error line", k);
	char err[32] = "";
	lsct_field(&cap, "error", "err", err, sizeof err);
	cr_expect_str_eq(err, "ENOMEM", "allocation %ld: the line's err", k);
	if (ret != -ENOMEM)
		lsct_dump(&cap);
	return 0;
}

/* The end of a case where allocation @k failed: the profiler gone, no
 * descriptor (of the @fds open before) and no allocation left. */
static void manifest_failure_done(lsc_profiler *p, int fds, long k)
{
	lsc_profiler_destroy(p);
	cr_expect_eq(lsct_open_fds(), fds, "allocation %ld: a descriptor left open", k);
	cr_expect_eq(nlive, 0, "allocation %ld: %ld allocations left", k, (long)nlive);
	cr_assert_eq(overflow, 0);
}
#endif

Test(alloc_faults, a_sharded_manifest_fails_whole_at_every_allocation, .timeout = 300)
{
	need_interpose();
#if LSCT_INTERPOSE
	char dir[600];
	snprintf(dir, sizeof dir, "%s/sharded", lsct_tmpdir());
	cr_assert_eq(mkdir(dir, 0700), 0);
	shard(dir, "model-00001-of-00002.safetensors", "a");
	shard(dir, "model-00002-of-00002.safetensors", "b");
	char ix[700];
	snprintf(ix, sizeof ix, "%s/model.safetensors.index.json", dir);
	FILE *f = fopen(ix, "w");
	cr_assert_not_null(f);
	fputs("{\"metadata\":{\"total_size\":8},\"weight_map\":{\"a\":\"model-00001-of-00002.safetensors\","
	      "\"b\":\"model-00002-of-00002.safetensors\"}}",
	      f);
	fclose(f);
	const char *in = dir;
	long k, failed = 0;
	for (k = 0; k < 100000; k++) {
		int fds = lsct_open_fds();
		lsc_profiler *p;
		if (manifest_at(in, k, 2, 2, &p))
			break;
		failed++;
		char path[700] = "", cause[256] = "";
		/* the line names the model by a file of it: the index, a shard,
		 * or (for the whole model's tables) its first shard */
		lsct_field(&cap, "error", "path", path, sizeof path);
		lsct_field(&cap, "error", "cause", cause, sizeof cause);
		cr_expect(!strncmp(path, dir, strlen(dir)), "allocation %ld: path %s", k, path);
		if (strstr(cause, "tensor names") || strstr(cause, "extents"))
			cr_expect(strstr(path, "model-00001-of-00002.safetensors"), "allocation %ld (%s): path %s", k,
				  cause, path);
		/* a table the parser could not allocate is at no byte of the
		 * file: offset 0 (the weight_map's names are where the index
		 * reader stood) */
		char off[32] = "";
		lsct_field(&cap, "error", "offset", off, sizeof off);
		if (!strncmp(cause, "out of memory for", 17) && !strstr(cause, "weight_map"))
			cr_expect_str_eq(off, "0", "allocation %ld (%s): offset %s", k, cause, off);
		manifest_failure_done(p, fds, k);
	}
	cr_expect_gt(failed, 5, "only %ld allocations to fail", failed);
#endif
}

#if LSCT_INTERPOSE
/* A GGUF v3 file of @nt F32 tensors of one element and one key, written
 * field by field, its data at the default 32-byte alignment. The
 * tensors' names are 19 bytes long but the first's, @first bytes: the
 * parser keeps each tensor's dimensions and name in a pool of 64 KiB
 * blocks, and the first name's length moves which of the two allocations
 * meets a block's end. */
struct gw {
	unsigned char *b;
	size_t n;
};
static void gw_put(struct gw *w, const void *p, size_t len)
{
	memcpy(w->b + w->n, p, len);
	w->n += len;
}
static void gw_u32(struct gw *w, uint32_t v)
{
	gw_put(w, &v, 4);
}
static void gw_u64(struct gw *w, uint64_t v)
{
	gw_put(w, &v, 8);
}
static void gw_str(struct gw *w, const char *s)
{
	gw_u64(w, strlen(s));
	gw_put(w, s, strlen(s));
}
static void gguf_tensors(const char *path, unsigned nt, unsigned first)
{
	size_t room = 256 + (size_t)nt * (64 + 32) + 64;
	struct gw w = {.b = calloc(1, room), .n = 0};
	cr_assert_not_null(w.b);
	gw_put(&w, "GGUF", 4);
	gw_u32(&w, 3), gw_u64(&w, nt), gw_u64(&w, 1);
	gw_str(&w, "general.architecture"), gw_u32(&w, 8), gw_str(&w, "llama");
	for (unsigned i = 0; i < nt; i++) {
		char name[64];
		snprintf(name, sizeof name, "blk.%015u", i); /* 19 bytes and a NUL: 32 in the pool */
		if (i == 0)
			snprintf(name, sizeof name, "%.*s", (int)first, "t0_abcdefghijklmnopqrstuvwxyz0123456789abcdef");
		gw_str(&w, name), gw_u32(&w, 1), gw_u64(&w, 1), gw_u32(&w, 0), gw_u64(&w, (uint64_t)i * 32);
	}
	size_t n = (w.n + 31) / 32 * 32 + (size_t)nt * 32; /* one element per tensor, 32 bytes apart */
	cr_assert(n <= room);
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(w.b, 1, n, f), n);
	fclose(f);
	free(w.b);
}
#endif

/* seed 20261217's survivor at model_gguf.c:295 (`!t || !dims && !nm`: a
 * tensor's dimensions not allocated went unnoticed): a GGUF manifest of
 * 1500 tensors (two 64 KiB pool blocks of names and dimensions), each
 * allocation failing in turn, is refused with -ENOMEM and one error line,
 * or built whole with one extent per tensor. Three files whose first name
 * is 16 bytes apart in the pool put a block's end at each tensor's
 * dimensions in one of them (each tensor takes 48 bytes of the pool). */
#if LSCT_INTERPOSE
static void gguf_every_allocation(unsigned first);
#endif

Test(alloc_faults, a_gguf_manifest_fails_whole_at_every_allocation, .timeout = 300)
{
	need_interpose();
#if LSCT_INTERPOSE
	for (unsigned first = 8; first <= 40; first += 16)
		gguf_every_allocation(first);
#endif
}

#if LSCT_INTERPOSE
static void gguf_every_allocation(unsigned first)
{
	enum { NT = 1500 };
	char path[600];
	snprintf(path, sizeof path, "%s/many-%u.gguf", lsct_tmpdir(), first);
	gguf_tensors(path, NT, first);
	const char *in = path;
	long k, failed = 0;
	for (k = 0; k < 100000; k++) {
		int fds = lsct_open_fds();
		lsc_profiler *p;
		if (manifest_at(in, k, 1, NT, &p))
			break;
		failed++;
		manifest_failure_done(p, fds, k);
	}
	cr_expect_gt(failed, 3, "only %ld allocations to fail", failed);
}
#endif

Test(alloc_faults, a_load_succeeds_or_fails_cleanly_at_every_allocation, .timeout = 300)
{
	need_interpose();
#if LSCT_INTERPOSE
	const char *path = lsct_make_file("alloc.bin", 3u << 20, 7);
	char pathc[600];
	snprintf(pathc, sizeof pathc, "%s", path);
	uint64_t want = lsct_file_hash(pathc, 0, 3u << 20);
	long k, failed = 0, ok_anyway = 0;
	for (k = 0; k < 100000; k++) {
		int fds = lsct_open_fds();
		lsc_profiler *p = lsct_profiler_fresh(&cap);
		struct lsc_extent e = {.path = pathc, .length = UINT64_MAX, .xxh3 = want, .has_xxh3 = 1};
		lsc_arena *a = NULL;
		struct lsc_load_options lo;
		lsc_load_options_init(&lo);
		struct lsc_load_result res;
		lo.result = &res;
		arm(k);
		int ret = lsc_load(p, &lo, &e, 1, 0, &a);
		long made = disarm();
		if (ret == 0) {
			cr_assert_not_null(a);
			cr_expect_eq(lsc_arena_size(a), 3u << 20);
			uint64_t fl = 0;
			unsigned char *fb = lsct_read_file(pathc, &fl);
			cr_expect(fb && fl == 3u << 20 && !memcmp(lsc_arena_data(a), fb, 3u << 20),
				  "allocation %ld: the arena differs from the file", k);
			free(fb);
			lsc_arena_destroy(a);
			if (made > k) {
				/* an allocation failed and the load went on: it said how */
				ok_anyway++;
				cr_expect_gt(lsct_count(&cap, "fallback") + lsct_count(&cap, "note"), 0,
					     "allocation %ld failed unsaid", k);
			}
		} else {
			cr_expect_gt(made, k, "no allocation failed, yet %d", ret);
			cr_expect_null(a);
			cr_expect_eq(ret, -ENOMEM, "allocation %ld: %d (%s)", k, ret, lsc_strerror(ret));
			cr_expect_eq(lsct_count(&cap, "error"), 1, "allocation %ld: one error line", k);
			/* the result as data says what the line says; an offset
			 * only where there is a file to blame */
			cr_expect_eq(res.err, ret, "allocation %ld", k);
			char buf[LSC__LINE_MAX + 1];
			struct lsc__parsed pl;
			if (lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl))
				cr_expect_str_eq(res.err_what, lsc__parsed_get(&pl, "what"), "allocation %ld", k);
			if (!res.err_path[0])
				cr_expect_eq(res.err_offset, 0, "allocation %ld: %s failed with no file, at offset %llu",
					     k, res.err_what, (unsigned long long)res.err_offset);
		}
		lsc_profiler_destroy(p);
		cr_expect_eq(lsct_open_fds(), fds, "allocation %ld: a descriptor left open", k);
		cr_expect_eq(nlive, 0, "allocation %ld: %ld allocations left", k, (long)nlive);
		if (made <= k)
			break;
		failed++;
	}
	cr_expect_gt(failed, 3, "only %ld allocations to fail", failed);
	cr_log_info("%ld allocations failed in turn, %ld loads went on", failed, ok_anyway);
#endif
}

#if LSCT_INTERPOSE
/* Triage @log (named @name) with each of its allocations failing in turn;
 * the number of triages that said they dropped something. */
static long triage_every_allocation_of(const char *name, const char *log, size_t n)
{
	struct tset ref = {0};
	cr_assert_eq(trun_run(log, n, 4096, 0, &ref), 0);
	long k, failed = 0, dropped = 0;
	for (k = 0; k < 100000; k++) {
		arm(k);
		struct lsc_triage *t = trun_feed(log, n, 4096, 0, NULL);
		char *js = NULL;
		size_t jl = 0;
		int exit_code = -1;
		if (t) {
			exit_code = lsc_triage_exit_code(t);
			js = trun_render(t, LSC_TRIAGE_JSON, &jl);
		}
		long made = disarm();
		struct tset got = {0};
		if (t)
			trun_findings(t, &got);
		if (js) {
			char why[256];
			cr_expect_eq(lsct_json_strict(js, jl, why, sizeof why), 0, "%s, allocation %ld: %s", name, k, why);
			const char *u = strstr(js, "\"findings_unlisted\":"), *o = strstr(js, "\"lines_out_of_memory\":");
			cr_expect_not_null(u, "%s, allocation %ld: no findings_unlisted", name, k);
			cr_expect_not_null(o, "%s, allocation %ld: no lines_out_of_memory", name, k);
			long unlisted = u ? strtol(u + strlen("\"findings_unlisted\":"), NULL, 10) : 0;
			long unread = o ? strtol(o + strlen("\"lines_out_of_memory\":"), NULL, 10) : 0;
			if (unread > 0)
				/* a start it could not open: said, and nothing vouched for */
				cr_expect(exit_code != 0, "%s, allocation %ld: lines unread, yet exit 0", name, k);
			if (unlisted > 0 || unread > 0)
				dropped++; /* the findings it could not keep, counted and said */
			else
				cr_expect(tset_equal(&got, &ref), "%s, allocation %ld of %ld: findings differ unsaid: %s", name,
					  k, made, tset_str(&got, why, sizeof why));
			cr_expect(exit_code >= 0 && exit_code <= 4, "%s, allocation %ld: exit %d", name, k, exit_code);
		}
		free(js);
		tset_free(&got);
		lsc_triage_free(t);
		cr_expect_eq(nlive, 0, "%s, allocation %ld: %ld allocations left", name, k, (long)nlive);
		if (made <= k)
			break;
		failed++;
	}
	tset_free(&ref);
	cr_log_info("%s: %ld allocations failed in turn, %ld triages dropped findings", name, failed, dropped);
	cr_expect_gt(failed, 5, "%s: only %ld allocations to fail", name, failed);
	return dropped;
}

/* Triage corpus log @name with each of its allocations failing in turn. */
static void triage_every_allocation(const char *name)
{
	size_t n;
	char *log = trun_corpus_log(name, &n);
	cr_assert_not_null(log, "%s", name);
	triage_every_allocation_of(name, log, n);
	free(log);
}
#endif

/* The line buffers grow with the longest line: a log whose lines outgrow
 * them (a 20,000-byte line in the middle of a start, its failure at its
 * end, and a 70,000-byte one after it) has growths to fail, each cut
 * where its buffer ends and counted in lines_out_of_memory, never
 * unsaid (the failure's finding lost without a word). */
Test(alloc_faults, a_line_that_outgrows_its_buffer_is_cut_and_said, .timeout = 300)
{
	need_interpose();
#if LSCT_INTERPOSE
	size_t n;
	char *base = trun_corpus_log("ollama-runner-started-healthy.log", &n);
	cr_assert_not_null(base);
	const size_t l1 = 20000, l2 = 70000;
	char *log = malloc(n + l1 + l2 + 2);
	cr_assert_not_null(log);
	size_t half = n / 2;
	while (half < n && base[half - 1] != '\n')
		half++;
	size_t o = 0;
	memcpy(log + o, base, half);
	o += half;
	/* the first long line's finding is at its end: a cut loses it */
	static const char head[] = "strata generate:", tail[] = " verify: timed out at layer 32";
	memset(log + o, 'x', l1);
	memcpy(log + o, head, sizeof(head) - 1);
	memcpy(log + o + l1 - (sizeof(tail) - 1), tail, sizeof(tail) - 1);
	o += l1;
	log[o++] = '\n';
	memcpy(log + o, base + half, n - half);
	o += n - half;
	memset(log + o, 'y', l2);
	o += l2;
	log[o++] = '\n';
	cr_expect_gt(triage_every_allocation_of("long lines", log, o), 0,
		     "no failed growth was counted as a line cut for want of memory");
	free(log);
	free(base);
#endif
}

Test(alloc_faults, a_triage_keeps_its_verdict_or_says_it_dropped, .timeout = 300)
{
	need_interpose();
#if LSCT_INTERPOSE
	triage_every_allocation("loadscope-mlock-over-limit.log");
	triage_every_allocation("loadscope-ab-thp-vs-4k.log");
	triage_every_allocation("ollama-runner-started-healthy.log");
	triage_every_allocation("ollama-cudamalloc-oom-terminated.log");
	triage_every_allocation("vllm-api-server-died-long-load.log");
#endif
}

/* The same over every log of the corpus: each engine's lines go through
 * recognisers of their own, and each of those may be the one whose start
 * could not be allocated. */
Test(alloc_faults, every_corpus_log_keeps_its_verdict_or_says_it_dropped, .timeout = 600)
{
	need_interpose();
#if LSCT_INTERPOSE
	size_t n;
	char **logs = trun_list(LSC_TEST_CORPUS "/logs", ".log", &n);
	cr_assert(logs && n > 100);
	for (size_t i = 0; i < n; i++)
		triage_every_allocation(logs[i]);
	trun_names_free(logs, n);
#endif
}

/* A setting pasted under the command that printed it (`cat .../enabled`,
 * then `always [madvise] never`) is read into the start it opens; with
 * each allocation failing in turn, a run where that start could not be
 * made counts no line recognised (the setting is not read into nothing),
 * and leaves nothing allocated. */
Test(alloc_faults, a_setting_with_no_start_made_is_not_recognised, .timeout = 300)
{
	need_interpose();
#if LSCT_INTERPOSE
	static const char *const logs[] = {
		"$ cat /sys/kernel/mm/transparent_hugepage/enabled\nalways [madvise] never\n",
		"$ cat /sys/kernel/mm/transparent_hugepage/defrag\nalways defer defer+madvise [madvise] never\n",
		"$ cat /proc/sys/vm/nr_hugepages\n0\n",
	};
	for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		size_t n = strlen(logs[i]);
		long none_made = 0;
		for (long k = 0; k < 100000; k++) {
			arm(k);
			struct lsc_triage *t = trun_feed(logs[i], n, 4096, 0, NULL);
			struct lsc_triage_start_info si;
			int started = t && lsc_triage_start(t, 0, &si) == 0;
			unsigned long rec = t ? lsc_triage_nrecognised(t) : 0;
			long made = disarm();
			lsc_triage_free(t);
			cr_expect_eq(nlive, 0, "allocation %ld: %ld allocations left", k, (long)nlive);
			if (made <= k) {
				cr_expect(started && rec > 0, "no start with every allocation made:\n%s", logs[i]);
				break;
			}
			if (t && !started) {
				none_made++;
				cr_expect_eq(rec, 0, "allocation %ld failed: no start, but %lu line(s) recognised in:\n%s", k,
					     rec, logs[i]);
			}
		}
		cr_expect_gt(none_made, 0, "no failing allocation left the start unmade:\n%s", logs[i]);
	}
#endif
}
