/*
 * Loader benchmark. Speed is measured here, never in tests; the build VM is
 * noisy, so variants run interleaved (round-robin, several rounds) and are
 * compared by their medians.
 *
 *   bench_load FILE once [on|off] [noverify]
 *                                     one default load; profiler on or off
 *                                     (lines to a sink that drops them);
 *                                     noverify: LSC_LOAD_NO_VERIFY
 *   bench_load FILE matrix ROUNDS     the read-path variants behind the
 *                                     defaults in load.c, interleaved
 *
 * Output: one line per load ("load ...") or per variant ("variant ...")
 * with key=value figures, for bench/compare_fio.sh and docs/benchmarks.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <loadscope/loadscope.h>

struct variant {
	const char *name;
	const char *path;  /* LOADSCOPE_READ_PATH */
	const char *async; /* LOADSCOPE_READ_ASYNC */
	const char *fixed; /* LOADSCOPE_READ_FIXED */
	const char *reader;
	unsigned k, c_mib, qd;
};

static const struct variant variants[] = {
	{"arena-async-q4", "arena", "1", "1", "io_uring", 0, 0, 4},
	{"arena-async-q2", "arena", "1", "1", "io_uring", 0, 0, 2},
	{"arena-async-q8", "arena", "1", "1", "io_uring", 0, 0, 8},
	{"arena-async-q4-unreg", "arena", "1", "0", "io_uring", 0, 0, 4},
	{"arena-inline-q4", "arena", "0", "1", "io_uring", 0, 0, 4},
	{"staging-async-4x16", "staging", "1", "1", "io_uring", 4, 16, 4},
	{"staging-async-8x4", "staging", "1", "1", "io_uring", 8, 4, 8},
	{"staging-async-2x64", "staging", "1", "1", "io_uring", 2, 64, 2},
	{"staging-inline-4x16", "staging", "0", "1", "io_uring", 4, 16, 4},
	{"pread-arena", "arena", "0", "0", "pread", 0, 0, 1},
	{"pread-staging-4x16", "staging", "0", "0", "pread", 4, 16, 4},
};
#define NV (sizeof(variants) / sizeof(variants[0]))

static void drop(void *u, const char *l, size_t n)
{
	(void)u;
	(void)l;
	(void)n;
}

static int load(const char *file, lsc_profiler *p, const struct lsc_load_options *o,
		struct lsc_load_stats *st)
{
	struct lsc_extent e = {.path = file, .length = UINT64_MAX};
	lsc_arena *a = NULL;
	int ret = lsc_load(p, o, &e, 1, 0, &a);
	if (ret == 0)
		lsc_arena_stats(a, st);
	lsc_arena_destroy(a);
	return ret;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench_load FILE once [on|off] | bench_load FILE matrix ROUNDS\n");
		return 2;
	}
	const char *file = argv[1];
	struct lsc_load_options o;
	struct lsc_load_stats st;
	if (!strcmp(argv[2], "once")) {
		struct lsc_profiler_options po;
		lsc_profiler_options_init(&po);
		po.sink = drop;
		po.mode = argc > 3 && !strcmp(argv[3], "off") ? LSC_MODE_OFF : LSC_MODE_ON;
		po.flags = LSC_PROFILER_IGNORE_ENV;
		lsc_profiler *p = NULL;
		if (lsc_profiler_create(&po, &p))
			return 1;
		lsc_start_begin(p, "bench");
		lsc_load_options_init(&o);
		if (argc > 4 && !strcmp(argv[4], "noverify"))
			o.flags |= LSC_LOAD_NO_VERIFY;
		int ret = load(file, p, &o, &st);
		lsc_start_end(p);
		lsc_profiler_destroy(p);
		if (ret) {
			fprintf(stderr, "load: %s\n", lsc_strerror(ret));
			return 1;
		}
		printf("load profiler=%s wall_s=%.4f alloc_s=%.4f read_s=%.4f read_gibps=%.3f "
		       "copy_s=%.4f verify_s=%.4f reader=%s\n",
		       po.mode == LSC_MODE_OFF ? "off" : "on", st.wall_ns / 1e9,
		       (st.alloc_ns + st.prefault_ns) / 1e9, st.read_ns / 1e9,
		       st.bytes / 1073741824.0 / (st.read_ns / 1e9), st.copy_ns / 1e9,
		       st.verify_ns / 1e9, st.reader_applied);
		return 0;
	}
	if (strcmp(argv[2], "matrix") || argc < 4)
		return 2;
	int rounds = atoi(argv[3]);
	if (rounds < 1 || rounds > 50)
		return 2;
	static double rd[NV][50], wall[NV][50];
	for (int r = 0; r < rounds; r++) {
		for (unsigned v = 0; v < NV; v++) {
			/* Rotate the starting variant so none always runs first. */
			const struct variant *V = &variants[(v + (unsigned)r) % NV];
			unsigned idx = (v + (unsigned)r) % NV;
			setenv("LOADSCOPE_READ_PATH", V->path, 1);
			setenv("LOADSCOPE_READ_ASYNC", V->async, 1);
			setenv("LOADSCOPE_READ_FIXED", V->fixed, 1);
			lsc_load_options_init(&o);
			o.reader = V->reader;
			o.staging_count = V->k;
			o.staging_bytes = (uint64_t)V->c_mib << 20;
			o.queue_depth = V->qd;
			if (load(file, NULL, &o, &st)) {
				fprintf(stderr, "%s failed\n", V->name);
				return 1;
			}
			rd[idx][r] = st.bytes / 1073741824.0 / (st.read_ns / 1e9);
			wall[idx][r] = st.wall_ns / 1e9;
		}
	}
	double best = 0, med[NV], medw[NV];
	for (unsigned v = 0; v < NV; v++) {
		med[v] = median(rd[v], rounds);
		medw[v] = median(wall[v], rounds);
		if (med[v] > best)
			best = med[v];
	}
	for (unsigned v = 0; v < NV; v++)
		printf("variant %-22s read_gibps_median=%.3f vs_best=%.3f wall_s_median=%.3f rounds=%d\n",
		       variants[v].name, med[v], med[v] / best, medw[v], rounds);
	return 0;
}
