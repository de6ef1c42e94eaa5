/*
 * The arena's allocate phase under each page-size policy: map, advise and
 * prefault N GiB with 4k, thp, process-off and auto (and 4k with one prefault
 * thread, to show what the parallel prefault buys; and thp again right
 * after a thp arena was released, which separates the cost of fresh memory
 * from the cost of huge pages on a VM), interleaved round by round so that
 * a noisy virtual machine's drift hits every variant alike.
 * Prints per variant the median allocate+prefault time, its rate, the
 * huge-page bytes really obtained (smaps), and the ratio to 4k.
 *
 * With IDLE_S > 0, every variant that does not run back to back waits that
 * long first: in a guest with free page reporting, a block that stays free
 * for about 2 s is handed back to the host, so the wait decides whether an
 * arena gets memory the host still backs or memory it must fault in again.
 *
 * usage: bench_arena [GiB] [rounds] [IDLE_S]   (default 2 GiB, 5 rounds, 0 s)
 *        VARIANTS=4k,thp,auto bench_arena ...   (only the variants named)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/arena.h"

struct variant {
	const char *name;
	enum lsc_thp_policy policy;
	unsigned threads;
	int again; /* run right after the previous variant, back to back */
	double s[64];
	uint64_t huge[64];
	/* auto: what it asked for huge pages and whether it switched */
	uint64_t auto_huge[64];
	int switched[64];
	uint64_t switch_at[64];
};

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	double t[64];
	memcpy(t, v, sizeof(double) * (size_t)n);
	qsort(t, (size_t)n, sizeof(double), cmp);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static int run(struct variant *x, int r, uint64_t bytes, unsigned *threads_used)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	struct lsc_region_info ri;

	lsc_load_options_init(&o);
	o.thp = x->policy;
	o.prefault_threads = x->threads;
	int rc = lsc__arena_alloc(NULL, &o, bytes, &a);
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", x->name, lsc_strerror(rc));
		return rc;
	}
	x->s[r] = (double)(a.alloc_ns + a.prefault_ns) / 1e9;
	if (lsc_region_read(NULL, a.base, a.mapped_bytes, &ri) == 0)
		x->huge[r] = ri.anon_huge_bytes;
	x->auto_huge[r] = a.auto_watch ? a.auto_huge_bytes : 0;
	x->switched[r] = a.auto_switched;
	x->switch_at[r] = a.auto_switch_at;
	if (!x->threads)
		*threads_used = a.prefault_threads;
	lsc__arena_release(&a);
	return 0;
}

int main(int argc, char **argv)
{
	double gib = argc > 1 ? atof(argv[1]) : 2.0;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	unsigned idle_s = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
	if (rounds < 1)
		rounds = 1;
	if (rounds > 64)
		rounds = 64;
	uint64_t bytes = (uint64_t)(gib * (double)(1ull << 30));
	struct variant v[] = {
		{.name = "4k", .policy = LSC_THP_4K},
		{.name = "thp", .policy = LSC_THP_THP},
		{.name = "thp, right after thp", .policy = LSC_THP_THP, .again = 1},
		{.name = "process-off", .policy = LSC_THP_PROCESS_OFF},
		{.name = "4k, 1 prefault thread", .policy = LSC_THP_4K, .threads = 1},
		{.name = "auto", .policy = LSC_THP_AUTO},
	};
	/* VARIANTS=4k,thp,auto: only those (by name, in the table's order). */
	const char *only = getenv("VARIANTS");
	if (only && *only) {
		int kept = 0;
		for (int k = 0; k < (int)(sizeof v / sizeof v[0]); k++) {
			char want[64];
			snprintf(want, sizeof want, ",%s,", v[k].name);
			char list[256];
			snprintf(list, sizeof list, ",%s,", only);
			if (strstr(list, want))
				v[kept++] = v[k];
		}
		if (!kept) {
			fprintf(stderr, "VARIANTS=%s names none of the variants\n", only);
			return 64;
		}
		memset(&v[kept], 0, sizeof v - (size_t)kept * sizeof v[0]);
	}
	int nv = 0;
	while (nv < (int)(sizeof v / sizeof v[0]) && v[nv].name)
		nv++;
	unsigned threads_used = 0;

	unsetenv("LOADSCOPE_ARENA_THP");
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < nv; k++) {
			/* Rotate the order each round; a back-to-back variant always
			 * follows the one before it in the table. */
			int idx = (k + r) % nv;
			if (v[idx].again)
				continue;
			if (idle_s)
				sleep(idle_s);
			for (int j = idx; j < nv && (j == idx || v[j].again); j++)
				if (run(&v[j], r, bytes, &threads_used) < 0)
					return 1;
		}
	}
	double base = median(v[0].s, rounds);
	struct lsc_system s;
	lsc_system_read(NULL, NULL, &s);
	printf("arena of %.2f GiB, %d rounds interleaved, %u s idle before each variant, default "
	       "prefault threads: %u; free page reporting %s (order %lld)\n\n",
	       gib, rounds, idle_s, threads_used,
	       s.page_reporting == 1 ? "on" : s.page_reporting == 0 ? "off" : "n/a",
	       (long long)s.page_reporting_order);
	printf("| policy | median s | GiB/s | huge-page bytes (last round) | time vs 4k |\n");
	printf("| --- | ---: | ---: | ---: | ---: |\n");
	for (int k = 0; k < nv; k++) {
		double m = median(v[k].s, rounds);
		printf("| %s | %.3f | %.2f | %llu | %.2f |\n", v[k].name, m, gib / m,
		       (unsigned long long)v[k].huge[rounds - 1], m / base);
	}
	for (int k = 0; k < nv; k++) {
		if (v[k].policy != LSC_THP_AUTO)
			continue;
		printf("\nauto per round (s, huge pages asked for, switched at):");
		for (int r = 0; r < rounds; r++) {
			printf(" %.3f/%llu", v[k].s[r], (unsigned long long)v[k].auto_huge[r]);
			if (v[k].switched[r])
				printf("/%llu", (unsigned long long)v[k].switch_at[r]);
			else
				printf("/-");
		}
		printf("\n");
	}
	for (int k = 0; k < nv; k++) {
		printf("%s per round (s):", v[k].name);
		for (int r = 0; r < rounds; r++)
			printf(" %.3f", v[k].s[r]);
		printf("\n");
	}
	return 0;
}
