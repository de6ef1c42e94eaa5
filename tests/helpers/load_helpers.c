/*
 * Loader test helpers: see load_helpers.h.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "helpers/load_helpers.h"

void lsct_need_uring(void)
{
	struct io_uring ring;
	int ret = io_uring_queue_init(4, &ring, 0);
	if (ret < 0)
		cr_skip_test("io_uring unavailable here: io_uring_queue_init: %s", strerror(-ret));
	io_uring_queue_exit(&ring);
}

static char tmpdir[256];

static void rm_tmpdir(void)
{
	char cmd[300];
	if (tmpdir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", tmpdir);
	}
}

const char *lsct_tmpdir(void)
{
	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/lsc-load-test-XXXXXX");
		if (!mkdtemp(tmpdir))
			abort();
		atexit(rm_tmpdir);
	}
	return tmpdir;
}

char *lsct_make_file(const char *name, uint64_t bytes, uint64_t seed)
{
	static char path[512];
	snprintf(path, sizeof(path), "%s/%s", lsct_tmpdir(), name);
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
	unsigned char buf[65536];
	for (uint64_t done = 0; done < bytes;) {
		size_t n = bytes - done < sizeof(buf) ? (size_t)(bytes - done) : sizeof(buf);
		for (size_t i = 0; i < n; i++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			buf[i] = (unsigned char)(s >> 24);
		}
		if (fwrite(buf, 1, n, f) != n)
			abort();
		done += n;
	}
	if (fclose(f) != 0)
		abort();
	return path;
}

unsigned char *lsct_read_file(const char *path, uint64_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *b = malloc(n ? (size_t)n : 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = (uint64_t)n;
	return b;
}

uint64_t lsct_file_hash(const char *path, uint64_t off, uint64_t len)
{
	uint64_t n;
	unsigned char *b = lsct_read_file(path, &n);
	if (!b || off + len > n)
		abort();
	uint64_t h = XXH3_64bits(b + off, len);
	free(b);
	return h;
}

/* Load @path whole with @o and check bytes, hash, stats and both summary lines. */
void lsct_load_check(struct lsct_capture *capp, const char *reader, const char *path,
		     struct lsc_load_options *o, const char *staging)
{
	uint64_t len;
	unsigned char *want = lsct_read_file(path, &len);
	cr_assert_not_null(want);
	lsc_profiler *p = lsct_profiler(capp);
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_arena *a = NULL;
	int fds = lsct_open_fds();
	int ret = lsc_load(p, o, &e, 1, 0, &a);
	if (ret)
		lsct_dump(capp);
	cr_assert_eq(ret, 0, "lsc_load: %d (%s)", ret, lsc_strerror(ret));
	cr_assert_eq(lsct_open_fds(), fds, "files left open");
	cr_assert_eq(lsc_arena_size(a), len);
	cr_assert(memcmp(lsc_arena_data(a), want, len) == 0, "arena differs from the file");
	uint64_t h;
	cr_assert_eq(lsc_arena_extent_hash(a, 0, &h), 0);
	cr_assert_eq(h, XXH3_64bits(want, len), "hash %016llx", (unsigned long long)h);

	struct lsc_load_stats st;
	cr_assert_eq(lsc_arena_stats(a, &st), 0);
	cr_assert_eq(st.bytes, len);
	cr_assert_str_eq(st.reader_applied, reader);

	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(capp, "loaded", 0, buf, sizeof(buf), &pl), "no loaded line");
	cr_assert_str_eq(lsc__parsed_get(&pl, "reader"), reader);
	cr_assert_str_eq(lsc__parsed_get(&pl, "staging"), staging);
	int64_t v;
	cr_assert_eq(lsc__parsed_i64(&pl, "bytes", &v), 0);
	cr_assert_eq((uint64_t)v, len);
	cr_assert_eq(lsc__parsed_i64(&pl, "extents", &v), 0);
	cr_assert_eq(v, 1);
	/* The rate is over the whole wall time (seed 001), both from the stats. */
	char want_wall[32], want_rate[32];
	snprintf(want_wall, sizeof(want_wall), "%.3f", (double)st.wall_ns / 1e9);
	snprintf(want_rate, sizeof(want_rate), "%.2f",
		 st.wall_ns ? (double)len / (1024.0 * 1024.0 * 1024.0) / ((double)st.wall_ns / 1e9) : 0.0);
	cr_assert_str_eq(lsc__parsed_get(&pl, "wall_s"), want_wall);
	cr_assert_str_eq(lsc__parsed_get(&pl, "gibps"), want_rate);
	/* The times are the load's own (lsc_arena_stats), in seconds to the
	 * millisecond; allocate is the mapping and its prefault together
	 * (docs/log-format.md), in both summary lines. */
	char want_alloc[32], want_verify[32];
	snprintf(want_alloc, sizeof(want_alloc), "%.3f", (double)st.alloc_ns / 1e9); /* prefault included */
	if (o->flags & LSC_LOAD_NO_VERIFY)
		snprintf(want_verify, sizeof(want_verify), "n/a");
	else
		snprintf(want_verify, sizeof(want_verify), "%.3f", (double)st.verify_ns / 1e9);
	cr_assert_str_eq(lsc__parsed_get(&pl, "alloc_s"), want_alloc);
	cr_assert_str_eq(lsc__parsed_get(&pl, "verify_s"), want_verify);
	cr_assert(strstr(pl.human, "over the wall time"), "%s", pl.human);
	/* The fast path is what ran, not only what was asked for: registered
	 * files and fixed buffers unless a fallback line says why not, and
	 * forced-async reads as LOADSCOPE_READ_ASYNC (default on) asks. */
	int uring = !strcmp(reader, "io_uring");
	const char *env = getenv("LOADSCOPE_READ_ASYNC");
	int want_async = uring && !(env && !strcmp(env, "0"));
	int want_files = uring && !lsct_has_fallback(capp, "files");
	/* Registered buffers (pipeline.c): the staging buffers, and the arena
	 * only where it is wholly huge pages (its mapping is rounded to 2 MiB
	 * then), unless LOADSCOPE_READ_FIXED says 1 or 0. */
	const char *fx = getenv("LOADSCOPE_READ_FIXED");
	uint64_t in_2m = (len + (2ull << 20) - 1) & ~((2ull << 20) - 1);
	int by_pages = strcmp(staging, "none") != 0 || (st.huge_bytes && st.huge_bytes >= in_2m);
	int want_fixed = uring && !lsct_has_fallback(capp, "buffers") &&
			 (fx && !strcmp(fx, "1") ? 1 : fx && !strcmp(fx, "0") ? 0 : by_pages);
	cr_assert_eq(lsc__parsed_i64(&pl, "fixed_files", &v), 0);
	cr_assert_eq(v, want_files, "fixed_files=%lld: %s", (long long)v, pl.human);
	cr_assert_eq(lsc__parsed_i64(&pl, "fixed", &v), 0);
	cr_assert_eq(v, want_fixed, "fixed=%lld: %s", (long long)v, pl.human);
	cr_assert_eq(lsc__parsed_i64(&pl, "async", &v), 0);
	cr_assert_eq(v, want_async, "async=%lld: %s", (long long)v, pl.human);
	cr_assert(lsct_find(capp, "complement", 0, buf, sizeof(buf), &pl), "no complement line");
	/* The sentence continues the event word: "complement ready: ..." */
	cr_assert(strncmp(pl.human, "ready: resident ", 16) == 0, "%s", pl.human);
	cr_assert_eq(lsc__parsed_i64(&pl, "resident_bytes", &v), 0);
	cr_assert_eq((uint64_t)v, len);
	cr_assert_str_eq(lsc__parsed_get(&pl, "alloc_s"), want_alloc);
	cr_assert_str_eq(lsc__parsed_get(&pl, "total_s"), want_wall, "the load's wall time, as in `loaded`");
	/* The policy: the one asked for, or the one an arena fallback line
	 * says was taken; under auto, one of the four concrete ones. */
	const char *policy = lsc__parsed_get(&pl, "thp_policy");
	cr_assert_not_null(policy);
	const char *env_thp = getenv("LOADSCOPE_ARENA_THP");
	if (o->thp != LSC_THP_AUTO && !env_thp) {
		char fb[LSC__LINE_MAX + 1];
		struct lsc__parsed fl;
		const char *want_policy = lsc_thp_policy_name(o->thp);
		if (lsct_find_fallback(capp, "arena", fb, sizeof(fb), &fl))
			want_policy = lsc__parsed_get(&fl, "took");
		cr_assert_str_eq(policy, want_policy);
	} else {
		cr_assert(!strcmp(policy, "4k") || !strcmp(policy, "thp") || !strcmp(policy, "hugetlb") ||
				  !strcmp(policy, "process-off"),
			  "thp_policy=%s", policy);
	}
	cr_assert_str_eq(policy, lsc_thp_policy_name(st.thp_applied));
	/* Huge pages: what smaps said at the end of the load, never more than
	 * the arena rounded up to a 2 MiB page, and none under a policy that
	 * keeps them away. */
	cr_assert_eq(lsc__parsed_i64(&pl, "huge_bytes", &v), 0);
	cr_assert_eq((uint64_t)v, st.huge_bytes);
	cr_assert_leq((uint64_t)v, (st.arena_bytes + (2u << 20) - 1) / (2u << 20) * (2u << 20));
	if (!strcmp(policy, "4k") || !strcmp(policy, "process-off"))
		cr_assert_eq(v, 0, "huge_bytes=%lld under %s", (long long)v, policy);
	cr_assert_eq(lsc__parsed_i64(&pl, "pinned_bytes", &v), 0);
	if (!o->pin || !strcmp(o->pin, "none"))
		cr_assert_eq(v, 0, "pinned_bytes=%lld with nothing asked to pin", (long long)v);
	cr_assert(lsct_count(capp, "error") == 0);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	free(want);
	lsct_capture_reset(capp);
}

