/*
 * lsc_load_into against lsc_load, for the same file: does a load into the
 * caller's memory cost more than a load into an arena of the library's
 * own? Interleaved (the order swapped every round, the build VM is
 * noisy), compared by medians.
 *
 *   bench_load_into FILE ROUNDS [thp]
 *
 * thp: MADV_HUGEPAGE on the caller's buffer before it is faulted, the
 * backing the arena's auto policy gives itself where THP is "madvise"
 * (registering 4 KiB pages with io_uring, inside the read phase, costs
 * more than registering huge pages: a property of the memory, which the
 * huge_bytes figure shows, not of the load).
 *
 * Two figures per variant: the wall time of the call (lsc_load's includes
 * allocating and prefaulting its arena; the caller's buffer is mapped and
 * faulted once, before the rounds, as an engine's buffer would be), and
 * the read phase alone (lsc_load_stats.read_ns: the same reads into two
 * kinds of memory). The profiler is on, its lines dropped by the sink.
 * Output: one "variant" line each with key=value medians, then "ratio".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include <loadscope/loadscope.h>

static void drop(void *user, const char *line, size_t len)
{
	(void)user, (void)line, (void)len;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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
	if (argc != 3 && !(argc == 4 && !strcmp(argv[3], "thp"))) {
		fprintf(stderr, "usage: bench_load_into FILE ROUNDS [thp]\n");
		return 2;
	}
	int rounds = atoi(argv[2]);
	struct stat st;
	if (rounds < 1 || rounds > 1000 || stat(argv[1], &st) != 0) {
		fprintf(stderr, "bench_load_into: bad FILE or ROUNDS\n");
		return 2;
	}
	size_t len = (size_t)st.st_size;
	unsigned char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return 1;
	if (argc == 4)
		madvise(buf, len, MADV_HUGEPAGE);
	memset(buf, 0, len); /* the caller's buffer, faulted once */
	struct lsc_profiler_options po;
	lsc_profiler_options_init(&po);
	po.sink = drop;
	po.mode = LSC_MODE_ON;
	po.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
	lsc_profiler *p = NULL;
	if (lsc_profiler_create(&po, &p))
		return 1;
	struct lsc_extent e = {.path = argv[1], .length = UINT64_MAX};
	double *w[2], *r[2];
	uint64_t huge[2] = {0, 0};
	for (int v = 0; v < 2; v++) {
		w[v] = calloc((size_t)rounds, sizeof(double));
		r[v] = calloc((size_t)rounds, sizeof(double));
	}
	/* One warm-up of each: the file in the page cache. */
	lsc_arena *a = NULL;
	if (lsc_load(p, NULL, &e, 1, 0, &a) || lsc_load_into(p, NULL, &e, 1, buf, len, NULL))
		return 1;
	lsc_arena_destroy(a);
	for (int i = 0; i < rounds; i++) {
		for (int k = 0; k < 2; k++) {
			int v = (i + k) % 2; /* 0: lsc_load, 1: lsc_load_into */
			struct lsc_load_stats s;
			double t0 = now();
			int ret;
			if (v == 0) {
				ret = lsc_load(p, NULL, &e, 1, 0, &a);
				if (!ret)
					lsc_arena_stats(a, &s);
			} else {
				ret = lsc_load_into(p, NULL, &e, 1, buf, len, &s);
			}
			w[v][i] = now() - t0;
			if (ret) {
				fprintf(stderr, "bench_load_into: load failed: %s\n", lsc_strerror(ret));
				return 1;
			}
			r[v][i] = (double)s.read_ns / 1e9;
			huge[v] = s.huge_bytes;
			if (v == 0)
				lsc_arena_destroy(a);
		}
	}
	const char *names[2] = {"lsc_load", "lsc_load_into"};
	double mw[2], mr[2];
	for (int v = 0; v < 2; v++) {
		mw[v] = median(w[v], rounds);
		mr[v] = median(r[v], rounds);
		printf("variant %s rounds=%d bytes=%zu call_s=%.4f read_s=%.4f read_gibps=%.2f "
		       "huge_bytes=%llu\n",
		       names[v], rounds, len, mw[v], mr[v], (double)len / (1 << 30) / mr[v],
		       (unsigned long long)huge[v]);
	}
	printf("ratio into/arena call=%.3f read=%.3f\n", mw[1] / mw[0], mr[1] / mr[0]);
	lsc_profiler_destroy(p);
	munmap(buf, len);
	return 0;
}
