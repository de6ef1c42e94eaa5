/*
 * The machine's own limit for the read phase, measured in the same run as
 * the policy matrix (issue 9): memory copy bandwidth into a large
 * prefaulted buffer on one thread and on every online CPU, and XXH3-64's
 * rate (the loader's verify hash) on one thread and on every CPU. fio is
 * not that limit: its buffer stays in the CPU cache. A read from the page
 * cache into the arena is a copy, and verify is a hash over the same bytes.
 *
 * Both buffers are mapped with MADV_HUGEPAGE and written before the first
 * timed pass, so no page fault lands inside a timing; each figure is the
 * median of ROUNDS passes, the variants interleaved pass by pass.
 *
 *   bench_limit [MiB [ROUNDS]]   (default 2048 MiB per buffer, 5 rounds)
 *
 * Output: one "limit" line per figure, key=value, for bench/run.sh.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#define MAXR 64
#define MAXT 256

static unsigned char *src, *dst;
static size_t len;

struct job {
	pthread_t t;
	size_t off, n;
	int hash;
	volatile uint64_t h; /* kept, so the hash is not optimised away */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *work(void *arg)
{
	struct job *j = arg;
	if (j->hash)
		j->h = XXH3_64bits(src + j->off, j->n);
	else
		memcpy(dst + j->off, src + j->off, j->n);
	return NULL;
}

/* GiB/s of one pass over the buffer split among @threads. */
static double pass(unsigned threads, int hash)
{
	struct job j[MAXT];
	size_t slice = len / threads / 4096 * 4096;
	double t0 = now_s();
	for (unsigned i = 0; i < threads; i++) {
		j[i].off = i * slice;
		j[i].n = i + 1 == threads ? len - i * slice : slice;
		j[i].hash = hash;
		if (threads == 1)
			work(&j[i]);
		else if (pthread_create(&j[i].t, NULL, work, &j[i]) != 0)
			return -1;
	}
	if (threads > 1)
		for (unsigned i = 0; i < threads; i++)
			pthread_join(j[i].t, NULL);
	return (double)len / 1073741824.0 / (now_s() - t0);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static unsigned char *buffer(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, n, MADV_HUGEPAGE); /* a hint: 4 KiB pages measure the same copy */
	memset(p, 0x5a, n);           /* prefaulted: no fault inside a timing */
	return p;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 2048;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned all = cpus > 0 ? (unsigned)(cpus < MAXT ? cpus : MAXT) : 1;
	if (mib < 1 || rounds < 1 || rounds > MAXR) {
		fprintf(stderr, "usage: bench_limit [MiB >= 1 [ROUNDS 1-%d]]\n", MAXR);
		return 64;
	}
	len = mib << 20;
	src = buffer(len);
	dst = buffer(len);
	if (!src || !dst) {
		perror("bench_limit: mmap");
		return 1;
	}
	for (size_t i = 0; i < len; i += 4096)
		src[i] = (unsigned char)(i >> 12);
	struct {
		const char *what;
		unsigned threads;
		int hash;
		double v[MAXR];
	} f[] = {
		{"memcpy", 1, 0, {0}},
		{"memcpy", all, 0, {0}},
		{"xxh3", 1, 1, {0}},
		{"xxh3", all, 1, {0}},
	};
	int nf = all > 1 ? 4 : 2;
	if (all == 1)
		f[1] = f[2]; /* one CPU: one figure of each */
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < nf; k++)
			if ((f[k].v[r] = pass(f[k].threads, f[k].hash)) < 0) {
				perror("bench_limit: pthread_create");
				return 1;
			}
	for (int k = 0; k < nf; k++) {
		qsort(f[k].v, (size_t)rounds, sizeof(double), cmp);
		printf("limit what=%s threads=%u mib=%zu rounds=%d gibps=%.2f min=%.2f max=%.2f\n", f[k].what,
		       f[k].threads, mib, rounds, f[k].v[rounds / 2], f[k].v[0], f[k].v[rounds - 1]);
	}
	munmap(src, len);
	munmap(dst, len);
	return 0;
}
