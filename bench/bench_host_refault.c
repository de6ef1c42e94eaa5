/*
 * Does the host take back this guest's idle free memory, and where does a
 * load pay for it?
 *
 * Table 1: a 2 MiB-aligned
 * MADV_HUGEPAGE region is faulted in (MADV_POPULATE_WRITE) and released,
 * then the same size again after a gap of 0, 1, 3 and 5 s, interleaved
 * round by round. With free page reporting (virtio-balloon), a free block
 * of order 9 and up that stays free for about 2 s (PAGE_REPORTING_DELAY)
 * is handed to the host, and a huge-page fault that takes it waits while
 * the host backs it again: the rate falls between the 1 s and 3 s gaps.
 * Without reporting the four rates are alike.
 *
 * Table 2: after 5 s idle, the same size with 4 KiB pages and with huge
 * pages: the populate (what the loader's allocate phase does), then two
 * read passes over it (one 8-byte load per 64 bytes). A page size that
 * populates fast but reads slowly the first time has only moved the host's
 * cost into the first access, which in a load is the read phase.
 *
 * Prints medians and the snapshot's page_reporting fields.
 *
 * usage: bench_host_refault [MiB] [rounds]   (default 512 MiB, 5 rounds)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define HPAGE (2ul << 20)

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* GiB/s of faulting @len bytes of huge pages, or -1. */
static double fault_rate(size_t len)
{
	char *p = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	char *a = (char *)(((unsigned long)p + HPAGE - 1) & ~(HPAGE - 1));
	double t = -1;
	if (madvise(a, len, MADV_HUGEPAGE) == 0) {
		double t0 = now_s();
		if (madvise(a, len, MADV_POPULATE_WRITE) == 0)
			t = now_s() - t0;
	}
	munmap(p, len + HPAGE);
	return t > 0 ? (double)len / t / (double)(1u << 30) : -1;
}

/* Table 2's three timings (GiB/s) for one page size, or -1 on failure. */
static int first_touch(size_t len, int huge, double out[3])
{
	char *p = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	volatile uint64_t *a = (uint64_t *)(((unsigned long)p + HPAGE - 1) & ~(HPAGE - 1));
	int rc = madvise((void *)a, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	double t0 = now_s();
	if (rc == 0)
		rc = madvise((void *)a, len, MADV_POPULATE_WRITE);
	out[0] = (double)len / (now_s() - t0) / (double)(1u << 30);
	for (int pass = 1; pass <= 2 && rc == 0; pass++) {
		uint64_t sum = 0;
		t0 = now_s();
		for (size_t i = 0; i < len / 8; i += 8)
			sum += a[i];
		out[pass] = (double)len / (now_s() - t0) / (double)(1u << 30);
		(void)sum; /* the loads are volatile: they happen anyway */
	}
	munmap(p, len + HPAGE);
	return rc;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 512;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	static const unsigned gaps[] = {0, 1, 3, 5};
	enum { NG = sizeof(gaps) / sizeof(gaps[0]), MAXR = 64 };
	double v[NG][MAXR];
	if (rounds < 1 || rounds > MAXR || mib < 2) {
		fprintf(stderr, "usage: bench_host_refault [MiB >= 2] [rounds 1-64]\n");
		return 2;
	}
	size_t len = mib << 20;
	for (int r = 0; r < rounds; r++)
		for (int g = 0; g < NG; g++) {
			if (fault_rate(len) < 0) { /* the blocks the next fault may reuse */
				perror("bench_host_refault: mmap/madvise");
				return 1;
			}
			sleep(gaps[g]);
			v[g][r] = fault_rate(len);
		}
	double ft[2][3][MAXR];
	for (int r = 0; r < rounds; r++)
		for (int huge = 0; huge < 2; huge++) {
			double t[3];
			sleep(5);
			if (first_touch(len, huge, t) < 0) {
				perror("bench_host_refault: mmap/madvise");
				return 1;
			}
			for (int k = 0; k < 3; k++)
				ft[huge][k][r] = t[k];
		}
	struct lsc_system s;
	lsc_system_read(NULL, NULL, &s);
	printf("%zu MiB of MADV_HUGEPAGE faults, again after a gap, %d rounds interleaved; "
	       "THP enabled=%s defrag=%s; free page reporting %s (order %lld)\n\n",
	       mib, rounds, s.thp_enabled, s.thp_defrag,
	       s.page_reporting == 1 ? "on" : s.page_reporting == 0 ? "off" : "n/a",
	       (long long)s.page_reporting_order);
	printf("| gap before the second fault | median GiB/s | min | max |\n| --- | ---: | ---: | ---: |\n");
	for (int g = 0; g < NG; g++) {
		qsort(v[g], (size_t)rounds, sizeof(double), cmp);
		printf("| %u s | %.2f | %.2f | %.2f |\n", gaps[g], v[g][rounds / 2], v[g][0], v[g][rounds - 1]);
	}
	printf("\nAfter 5 s idle, median GiB/s:\n\n| pages | populate | first read pass | second read pass |\n"
	       "| --- | ---: | ---: | ---: |\n");
	for (int huge = 0; huge < 2; huge++) {
		double m[3];
		for (int k = 0; k < 3; k++) {
			qsort(ft[huge][k], (size_t)rounds, sizeof(double), cmp);
			m[k] = ft[huge][k][rounds / 2];
		}
		printf("| %s | %.2f | %.2f | %.2f |\n", huge ? "huge (MADV_HUGEPAGE)" : "4 KiB (MADV_NOHUGEPAGE)",
		       m[0], m[1], m[2]);
	}
	return 0;
}
