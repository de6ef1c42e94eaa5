/*
 * seed000_ab: writes tests/corpus/logs/strata-ab-thp-default-vs-off.log, the
 * interleaved A/B of seed 000 (2x RX 7900 XTX, HIP, 28.47 GiB complement,
 * THP default vs PR_SET_THP_DISABLE, 4 starts each) as an engine that embeds
 * loadscope would print it. Such a start cannot be reproduced here (no AMD
 * GPU, no 28 GiB), so the numbers are seed 000's table, and every loadscope
 * line is rendered by the library's own writer (lsc__rec_render, the code
 * the profiler prints with), so the grammar is the real one, not a copy.
 *
 *   cc -I include -I src seed000_ab.c build/libloadscope.a ... > ../logs/strata-ab-thp-default-vs-off.log
 * (tests/corpus/gen/README.md has the exact command.)
 */
#include <stdio.h>

#include "format/line.h"

#define GIB 1073741824.0
#define P "strata generate: "

struct row {
	const char *name;
	int off;          /* THP disabled for the process */
	double total, copy, ready;
};

/* seed 000, "Interleaved A/B, real engine (2026-10-16, 15:39-16:27)" */
static const struct row rows[] = {
	{"d1", 0, 300, 14, 370}, {"n1", 1, 35, 15, 77}, {"d2", 0, 301, 14, 363}, {"n2", 1, 33, 15, 75},
	{"d3", 0, 294, 14, 356}, {"n3", 1, 33, 15, 73}, {"d4", 0, 322, 15, 370}, {"n4", 1, 35, 17, 74},
};

static void out(struct lsc__rec *r)
{
	char line[LSC__LINE_MAX];
	lsc__rec_render(r, LSC_FORMAT_HUMAN, P, line, sizeof line);
	fputs(line, stdout);
}

int main(void)
{
	const unsigned long long bytes = 30569431040ull; /* 28.47 GiB */
	int minute = 39, hour = 15;
	for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct row *w = &rows[i];
		char run[16], when[32];
		snprintf(run, sizeof run, "%08x", 0x5eed0000u + i * 0x1111u);
		snprintf(when, sizeof when, "2026-10-16T%02d:%02d:07Z", hour, minute);
		double alloc = w->total - w->copy, t = 0;
		printf("$ %spython serve/server.py --engine strata --config configs/strata-2x7900.json   # start %s\n",
		       w->off ? "nothp " : "", w->name);
		printf("[strata] starting engine: strata generate --config configs/strata-2x7900.json --resident-budget-gib 40 --port 8080\n");
		printf(P "strata 0.1.44.1 (release), ROCm 6.4.2, HIP 6.4.43483\n");

		struct lsc__rec r;
		lsc__rec_init(&r, "start");
		lsc__rec_say(&r, "strata generate: run %s, pid %d, loadscope 0.1.0, %s", run, 91000 + (int)i * 37, when);
		lsc__rec_str(&r, "run", run);
		lsc__rec_f64(&r, "t_s", 0, 3);
		lsc__rec_i64(&r, "pid", 91000 + (int)i * 37);
		lsc__rec_str(&r, "name", "strata generate");
		lsc__rec_str(&r, "lib", "0.1.0");
		lsc__rec_str(&r, "time", when);
		out(&r);

		lsc__rec_init(&r, "system");
		lsc__rec_say(&r, "kernel 6.14.0-33-generic; THP enabled=madvise defrag=madvise khugepaged/defrag=1; "
				 "process THP %s; hugetlb 0 of 0 pages free (2048 KiB each); memlock unlimited; "
				 "MemAvailable 98.41 GiB of 125.71 GiB; 61.20 GiB free in huge-page blocks; swap 8.00 GiB; 1 NUMA node",
			     w->off ? "disabled (prctl)" : "off");
		lsc__rec_str(&r, "run", run);
		lsc__rec_f64(&r, "t_s", 0.001, 3);
		lsc__rec_str(&r, "kernel", "6.14.0-33-generic");
		lsc__rec_str(&r, "thp_enabled", "madvise");
		lsc__rec_str(&r, "thp_defrag", "madvise");
		lsc__rec_i64(&r, "thp_khugepaged_defrag", 1);
		lsc__rec_i64(&r, "thp_pmd_bytes", 2097152);
		lsc__rec_str(&r, "thp_prctl", w->off ? "disabled" : "off");
		lsc__rec_i64(&r, "thp_process", w->off ? 0 : 1);
		lsc__rec_i64(&r, "hugetlb_total", 0);
		lsc__rec_i64(&r, "hugetlb_free", 0);
		lsc__rec_i64(&r, "hugetlb_page_kib", 2048);
		lsc__rec_str(&r, "memlock_bytes", "unlimited");
		lsc__rec_u64(&r, "mem_total_bytes", 134980120576ull);
		lsc__rec_u64(&r, "mem_available_bytes", 105668632576ull);
		lsc__rec_u64(&r, "free_huge_blocks_bytes", 65712160768ull);
		lsc__rec_i64(&r, "numa_nodes", 1);
		lsc__rec_u64(&r, "swap_total_bytes", 8589930496ull);
		lsc__rec_u64(&r, "swap_free_bytes", 8589930496ull);
		out(&r);

		printf(P "GPU 0: AMD Radeon RX 7900 XTX (gfx1100), 24.0 GiB\n");
		printf(P "GPU 1: AMD Radeon RX 7900 XTX (gfx1100), 24.0 GiB\n");
		printf(P "FileExpertSource: resident budget 40 GiB -> cache complement 28.47 GiB (mapped | portable)\n");
		t = 21.4;

		lsc__rec_init(&r, "phase");
		lsc__rec_say(&r, "allocate: 28.47 GiB in %.3f s (%.2f GiB/s); hipHostMalloc(mapped|portable)", alloc,
			     bytes / GIB / alloc);
		lsc__rec_str(&r, "run", run);
		lsc__rec_f64(&r, "t_s", t + alloc, 3);
		lsc__rec_i64(&r, "span", 64);
		lsc__rec_i64(&r, "parent", 0);
		lsc__rec_i64(&r, "depth", 0);
		lsc__rec_str(&r, "kind", "allocate");
		lsc__rec_str(&r, "name", "hipHostMalloc");
		lsc__rec_u64(&r, "bytes", bytes);
		lsc__rec_f64(&r, "wall_s", alloc, 3);
		lsc__rec_f64(&r, "gibps", bytes / GIB / alloc, 3);
		lsc__rec_str(&r, "vm", "n/a");
		out(&r);
		t += alloc;

		lsc__rec_init(&r, "phase");
		lsc__rec_say(&r, "copy: 28.47 GiB in %.3f s (%.2f GiB/s)", w->copy, bytes / GIB / w->copy);
		lsc__rec_str(&r, "run", run);
		lsc__rec_f64(&r, "t_s", t + w->copy, 3);
		lsc__rec_i64(&r, "span", 128);
		lsc__rec_i64(&r, "parent", 0);
		lsc__rec_i64(&r, "depth", 0);
		lsc__rec_str(&r, "kind", "copy");
		lsc__rec_str(&r, "name", "experts");
		lsc__rec_u64(&r, "bytes", bytes);
		lsc__rec_f64(&r, "wall_s", w->copy, 3);
		lsc__rec_f64(&r, "gibps", bytes / GIB / w->copy, 3);
		lsc__rec_str(&r, "vm", "n/a");
		out(&r);
		t += w->copy;

		lsc__rec_init(&r, "complement");
		lsc__rec_say(&r, "complement ready: resident 28.47 GiB, pinned 28.47 GiB in %.3f s (alloc %.3f s, pin 0.000 s, "
				 "copy %.3f s); THP policy %s; pin hip, 0 retries in 1 segments",
			     w->total, alloc, w->copy, w->off ? "process-off" : "default");
		lsc__rec_str(&r, "run", run);
		lsc__rec_f64(&r, "t_s", t, 3);
		lsc__rec_u64(&r, "resident_bytes", bytes);
		lsc__rec_u64(&r, "pinned_bytes", bytes);
		lsc__rec_f64(&r, "total_s", w->total, 3);
		lsc__rec_f64(&r, "alloc_s", alloc, 3);
		lsc__rec_f64(&r, "pin_s", 0, 3);
		lsc__rec_f64(&r, "copy_s", w->copy, 3);
		lsc__rec_str(&r, "thp_policy", w->off ? "process-off" : "default");
		lsc__rec_str(&r, "pin", "hip");
		lsc__rec_i64(&r, "pin_retries", 0);
		lsc__rec_i64(&r, "pin_segments", 1);
		out(&r);
		printf(P "FileExpertSource: mapped pinned cache complement ready: resident 28.47 GiB, pinned 28.47 GiB in %.0f s; page-locked and mapped\n",
		       w->total);

		lsc__rec_init(&r, "ready");
		double covered = alloc + w->copy;
		lsc__rec_say(&r, "ready in %.3f s: 2 phases, %.3f s (%.1f%%) unattributed", w->ready, w->ready - covered,
			     100 * (w->ready - covered) / w->ready);
		lsc__rec_str(&r, "run", run);
		lsc__rec_f64(&r, "t_s", w->ready, 3);
		lsc__rec_f64(&r, "wall_s", w->ready, 6);
		lsc__rec_i64(&r, "phases", 2);
		lsc__rec_f64(&r, "covered_s", covered, 6);
		lsc__rec_f64(&r, "unattributed_s", w->ready - covered, 6);
		out(&r);
		printf("[strata] engine ready after %.0f s (serve/server.py:318)\n", w->ready);
		printf("[strata] bench: short prompt + 32K prompt, then shutting down (SIGTERM)\n");
		minute += 6;
		if (minute >= 60) {
			minute -= 60;
			hour++;
		}
	}
	return 0;
}
