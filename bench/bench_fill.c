/*
 * The THP policy matrix of issue 9: the whole arena fill (allocate,
 * prefault, read) of one file under each page-size policy, in whatever
 * state the machine is in (bench/run.sh brings on the fragmented states
 * with `loadscope lab fragment` around it). Each round runs every variant
 * once, in the order of a Williams square (order() below), so that a noisy
 * virtual machine's drift, and what each variant leaves behind in memory,
 * hit all alike; with IDLE_S > 0 each variant first waits
 * that long, so that on a guest with free page reporting every variant
 * starts on memory the host has taken back (docs/benchmarks.md, "Host
 * refault"), not some on memory the one before just freed.
 *
 * A round is one lsc_load of FILE (defaults otherwise: io_uring into the
 * arena, verify on, pin none, profiler NULL); the figures come from
 * lsc_arena_stats (alloc_s is the allocate phase with its prefault, as in
 * the `loaded` line; fill_s = alloc_s + read_s), the compaction counters
 * from /proc/vmstat around it, and the free memory in 2 MiB blocks just
 * before it (what `auto` saw: the state drifts while a lab holds, as
 * reclaim builds blocks out of the page cache).
 * hugetlb runs only where the pool's free pages cover the arena; this
 * never reserves one (that is a system setting), it says so and skips.
 *
 *   bench_fill FILE [ROUNDS [IDLE_S [VARIANTS]]]
 *              defaults: 3 rounds, 0 s, thp,4k,process-off,hugetlb,auto
 *
 * Output: a "run" line per load and a "summary" line per variant (medians)
 * with key=value figures, for bench/run.sh and docs/benchmarks.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <loadscope/loadscope.h>

#define MAXR 64
#define MAXV 8

struct variant {
	enum lsc_thp_policy policy;
	double alloc[MAXR], prefault[MAXR], read[MAXR], fill[MAXR];
	double huge[MAXR], stall[MAXR], fail[MAXR];
	double free2m[MAXR]; /* GiB free in 2 MiB blocks just before the load */
	int switched;
};

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
	double t[MAXR];
	memcpy(t, v, sizeof(double) * (size_t)n);
	qsort(t, (size_t)n, sizeof(double), cmp);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* compact_stall and compact_fail now, -1 each when unreadable. */
static void compaction(long long *stall, long long *fail)
{
	struct lsc_vmstat vm;
	*stall = *fail = -1;
	if (lsc_vmstat_read(NULL, &vm) != 0)
		return;
	if (vm.valid & (1u << LSC_VM_COMPACT_STALL))
		*stall = (long long)vm.v[LSC_VM_COMPACT_STALL];
	if (vm.valid & (1u << LSC_VM_COMPACT_FAIL))
		*fail = (long long)vm.v[LSC_VM_COMPACT_FAIL];
}

/*
 * The variant run @k-th in round @r: a Williams square (0, 1, n-1, 2, n-2,
 * ... shifted by r), so that over n rounds every variant runs first once and
 * right after each other variant once (n even; for odd n, over 2n rounds
 * with the mirrored rows). A plain rotation keeps the cyclic order, and the
 * variant after a 4 KiB one would always meet the memory it left behind.
 */
static int order(int k, int r, int n)
{
	int b = k == 0 ? 0 : k % 2 ? (k + 1) / 2 : n - k / 2;
	if (n % 2 && (r / n) % 2)
		b = n - 1 - b;
	return (b + r) % n;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_fill FILE [ROUNDS [IDLE_S [VARIANTS]]]\n");
		return 64;
	}
	const char *file = argv[1];
	int rounds = argc > 2 ? atoi(argv[2]) : 3;
	unsigned idle = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
	char list[256];
	snprintf(list, sizeof list, "%s", argc > 4 ? argv[4] : "thp,4k,process-off,hugetlb,auto");
	if (rounds < 1 || rounds > MAXR) {
		fprintf(stderr, "bench_fill: ROUNDS must be 1-%d\n", MAXR);
		return 64;
	}

	struct variant v[MAXV];
	int nv = 0;
	struct lsc_system sys;
	lsc_system_read(NULL, NULL, &sys);
	FILE *f = fopen(file, "rb");
	if (!f) {
		perror(file);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	long long size = ftell(f);
	fclose(f);
	for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		enum lsc_thp_policy p;
		if (lsc_thp_policy_parse(t, &p) != 0 || nv == MAXV) {
			fprintf(stderr, "bench_fill: unknown variant %s\n", t);
			return 64;
		}
		if (p == LSC_THP_HUGETLB) {
			long long page = sys.hugetlb_page_kib > 0 ? (long long)sys.hugetlb_page_kib * 1024 : 2097152;
			long long pool = sys.hugetlb_free > 0 ? (long long)sys.hugetlb_free * page : 0;
			if (pool < size) {
				printf("skip variant=hugetlb: the hugetlb pool has %lld free pages of %lld KiB, "
				       "the arena needs %lld; this benchmark never reserves one (a system "
				       "setting: vm.nr_hugepages)\n",
				       (long long)(sys.hugetlb_free > 0 ? sys.hugetlb_free : 0), page / 1024,
				       (size + page - 1) / page);
				continue;
			}
		}
		memset(&v[nv], 0, sizeof v[nv]);
		v[nv++].policy = p;
	}
	if (!nv)
		return 64;

	unsetenv("LOADSCOPE_ARENA_THP");
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < nv; k++) {
			struct variant *x = &v[order(k, r, nv)];
			struct lsc_load_options o;
			struct lsc_extent e = {.path = file, .length = UINT64_MAX};
			struct lsc_load_stats st;
			lsc_arena *a = NULL;
			long long s0, f0, s1, f1;

			if (idle)
				sleep(idle);
			lsc_load_options_init(&o);
			o.thp = x->policy;
			struct lsc_system now;
			lsc_system_read(NULL, NULL, &now);
			x->free2m[r] = now.free_huge_blocks_bytes >= 0
					       ? (double)now.free_huge_blocks_bytes / 1073741824.0
					       : -1;
			compaction(&s0, &f0);
			int rc = lsc_load(NULL, &o, &e, 1, 0, &a);
			compaction(&s1, &f1);
			if (rc != 0) {
				fprintf(stderr, "bench_fill: %s: %s\n", lsc_thp_policy_name(x->policy),
					lsc_strerror(rc));
				return 1;
			}
			lsc_arena_stats(a, &st);
			x->alloc[r] = (double)st.alloc_ns / 1e9;
			x->prefault[r] = (double)st.prefault_ns / 1e9;
			x->read[r] = (double)st.read_ns / 1e9;
			x->fill[r] = x->alloc[r] + x->read[r]; /* alloc_ns includes the prefault */
			x->huge[r] = (double)st.huge_bytes;
			x->stall[r] = s0 >= 0 && s1 >= s0 ? (double)(s1 - s0) : -1;
			x->fail[r] = f0 >= 0 && f1 >= f0 ? (double)(f1 - f0) : -1;
			x->switched += st.auto_switched;
			printf("run variant=%s round=%d alloc_s=%.3f prefault_s=%.3f read_s=%.3f fill_s=%.3f "
			       "huge_bytes=%llu compact_stall=%+.0f compact_fail=%+.0f free2m_before_gib=%.2f",
			       lsc_thp_policy_name(x->policy), r + 1, x->alloc[r], x->prefault[r],
			       x->read[r], x->fill[r], (unsigned long long)st.huge_bytes, x->stall[r],
			       x->fail[r], x->free2m[r]);
			if (x->policy == LSC_THP_AUTO)
				printf(" auto_huge_bytes=%llu auto_switched=%d auto_switch_at=%llu "
				       "auto_reason=\"%s\"",
				       (unsigned long long)st.auto_huge_bytes, st.auto_switched,
				       (unsigned long long)st.auto_switch_at, st.auto_reason);
			printf("\n");
			fflush(stdout);
			lsc_arena_destroy(a);
		}
	for (int k = 0; k < nv; k++) {
		struct variant *x = &v[k];
		double rd = median(x->read, rounds);
		printf("summary variant=%s n=%d fill_s=%.3f alloc_s=%.3f prefault_s=%.3f read_s=%.3f "
		       "read_gibps=%.2f huge_gib=%.2f compact_stall=%.0f compact_fail=%.0f switched=%d/%d "
		       "free2m_before_gib=%.2f\n",
		       lsc_thp_policy_name(x->policy), rounds, median(x->fill, rounds),
		       median(x->alloc, rounds), median(x->prefault, rounds), rd,
		       rd > 0 ? (double)size / 1073741824.0 / rd : 0,
		       median(x->huge, rounds) / 1073741824.0, median(x->stall, rounds),
		       median(x->fail, rounds), x->switched, rounds, median(x->free2m, rounds));
	}
	return 0;
}
