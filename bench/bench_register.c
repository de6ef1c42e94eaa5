/*
 * What io_uring buffer registration costs against the buffer's page
 * backing: the figures behind the loader's rule that registers the arena
 * only when it is wholly huge pages (src/loader/read/pipeline.c).
 *
 * io_uring pins a registered buffer page by page and keeps one entry per
 * page unless every page belongs to a folio of one size; the memlock
 * accounting of each huge page then scans the entries before it. So a
 * buffer of huge pages, one of 4 KiB pages and one that mixes the two cost
 * very different times to register. Four backings, each a fresh anonymous
 * mapping faulted with MADV_POPULATE_WRITE before the timing, registered
 * in the loader's 1 GiB pieces and unregistered:
 *   huge   MADV_HUGEPAGE over all of it
 *   4k     MADV_NOHUGEPAGE over all of it
 *   mixed  huge, but for the last 2 MiB of every 1 GiB piece (a `thp`
 *          arena where a few huge faults fell back)
 *   half   the first half huge, the rest 4 KiB (an `auto` arena that
 *          switched half way)
 * The variants are interleaved round by round, the first one rotating.
 * Each line gives the huge pages the mapping really had and the time the
 * smaps read of it took (what the loader reads to choose): where THP is
 * off or memory is fragmented, `huge` is not huge and says so.
 *
 *   bench_register [MiB [ROUNDS]]   (default 2048 MiB, 5 rounds)
 *
 * Needs RLIMIT_MEMLOCK above the buffer (or CAP_IPC_LOCK, as root): where
 * registration is refused with ENOMEM it prints one `skip` line and exits 0.
 */
#include <errno.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <loadscope/profiler.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define MIB (1ull << 20)
#define HUGE (2ull << 20)
#define PIECE (1ull << 30)
#define MAXR 64
#define MAXPIECES 1024 /* of 1 GiB: the largest buffer */
#define NV 4

static const char *const names[NV] = {"huge", "4k", "mixed", "half"};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One registration of a fresh buffer of backing @v; 0, or -errno. */
static int one(int v, size_t len, double *reg_s, double *unreg_s, double *smaps_s,
	       uint64_t *huge_bytes)
{
	char *m = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	char *b = (char *)(((uintptr_t)m + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
	madvise(b, len, v == 1 ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
	if (v == 2)
		for (size_t o = 0; o < len; o += PIECE) {
			size_t end = o + PIECE < len ? o + PIECE : len;
			madvise(b + end - HUGE, HUGE, MADV_NOHUGEPAGE);
		}
	if (v == 3)
		madvise(b + len / 2, len - len / 2, MADV_NOHUGEPAGE);
	int ret = 0;
	if (madvise(b, len, MADV_POPULATE_WRITE) != 0)
		for (size_t o = 0; o < len; o += 4096)
			b[o] = 1;
	struct lsc_region_info ri;
	double s0 = now_s();
	*huge_bytes = lsc_region_read(NULL, b, len, &ri) == 0 ? ri.anon_huge_bytes : 0;
	*smaps_s = now_s() - s0;

	struct io_uring ring;
	static struct iovec iov[MAXPIECES];
	unsigned n = 0;
	for (size_t o = 0; o < len && n < sizeof(iov) / sizeof(iov[0]); o += PIECE, n++) {
		iov[n].iov_base = b + o;
		iov[n].iov_len = len - o < PIECE ? len - o : PIECE;
	}
	if ((ret = io_uring_queue_init(8, &ring, 0)) < 0)
		goto out;
	double t0 = now_s();
	ret = io_uring_register_buffers(&ring, iov, n);
	double t1 = now_s();
	if (ret == 0)
		io_uring_unregister_buffers(&ring);
	*reg_s = t1 - t0;
	*unreg_s = now_s() - t1;
	io_uring_queue_exit(&ring);
out:
	munmap(m, len + HUGE);
	return ret;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 2048;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	if (mib < 8 || mib % 2 || mib > MAXPIECES * 1024ull || rounds < 1 || rounds > MAXR) {
		fprintf(stderr, "usage: bench_register [MiB (even, 8-%d) [ROUNDS (1-%d)]]\n",
			MAXPIECES * 1024, MAXR);
		return 2;
	}
	size_t len = mib * MIB;
	double reg[NV][MAXR], unreg[NV][MAXR], smaps[NV][MAXR];
	uint64_t huge[NV][MAXR];
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < NV; k++) {
			int v = (r + k) % NV;
			int ret = one(v, len, &reg[v][r], &unreg[v][r], &smaps[v][r], &huge[v][r]);
			if (ret == -ENOMEM) {
				printf("skip bench_register: registering %zu MiB: ENOMEM (RLIMIT_MEMLOCK "
				       "below the buffer: run as root or raise it)\n",
				       mib);
				return 0;
			}
			if (ret < 0) {
				fprintf(stderr, "bench_register: %s, %zu MiB: %s\n", names[v], mib,
					strerror(-ret));
				return 1;
			}
			printf("register variant=%s round=%d mib=%zu huge_bytes=%llu register_s=%.4f "
			       "unregister_s=%.4f smaps_s=%.4f\n",
			       names[v], r + 1, mib, (unsigned long long)huge[v][r], reg[v][r],
			       unreg[v][r], smaps[v][r]);
			fflush(stdout);
		}
	printf("\n| backing | huge GiB (first round) | register s (median) | per GiB ms | "
	       "unregister s | smaps read s |\n| --- | ---: | ---: | ---: | ---: | ---: |\n");
	for (int v = 0; v < NV; v++) {
		double mr = median(reg[v], rounds), mu = median(unreg[v], rounds);
		double ms = median(smaps[v], rounds);
		printf("| %s | %.2f | %.4f | %.1f | %.4f | %.4f |\n", names[v],
		       (double)huge[v][0] / (double)(1ull << 30), mr, mr * 1e3 / ((double)mib / 1024.0),
		       mu, ms);
	}
	for (int v = 0; v < NV; v++)
		printf("summary variant=%s median_register_s=%.4f\n", names[v], median(reg[v], rounds));
	return 0;
}
