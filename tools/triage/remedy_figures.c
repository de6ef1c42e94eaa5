/*
 * The one home of every measured figure a remedy prints. A remedy says how
 * much its fix bought where that was measured; the figure is written here
 * once, with the page that records the measurement and the words that page
 * uses for it, and the rules print it from here (tr_fig). A test
 * (tests/test_triage_figures.c) reads each page and checks that it still
 * holds those words, so a page that withdraws or changes a figure fails
 * the test until the remedy follows (the host-refault remedy printed a
 * "1.18x slower" that docs/benchmarks.md had withdrawn).
 */
#include "internal.h"

const struct tr_figure tr_figures[TR_FIG_N] = {
	[TR_FIG_REFAULT_4K] = {"host-refault", "docs/benchmarks.md", "1.43x *faster* end to end",
			       "with 4 KiB pages a 2 GiB load on a VM with free page reporting ran 1.43x faster end to end: their faults "
			       "took free blocks below order 9, which are never reported; measure (docs/benchmarks.md)"},
	[TR_FIG_SEED000_THP_OFF] = {"kfd-userptr-eagain", "docs/triage.md", "complement 300.5 s -> 34.0 s",
				    "in a field report's A/B, complement 300.5 s -> 34.0 s median, 4 of 4 starts each"},
	[TR_FIG_SEEDS_THP] = {"thp-direct-compaction", "docs/slow-start.md", "300 s -> 34 s, seed 001: 432 s -> 25 s",
			      "in field reports 300 s -> 34 s and 432 s -> 25 s"},
	[TR_FIG_SEED002_HUGETLB] = {"hugetlb-arena-cost", "docs/troubleshooting.md",
				    "78% of expert mass already in VRAM",
				    "a field report saw no prefill or decode gain on a 4-GPU rig (78% of expert mass already in "
				    "VRAM), and 40 GiB less page cache"},
};

const char *tr_fig(enum tr_fig_id id)
{
	return id < TR_FIG_N && tr_figures[id].text ? tr_figures[id].text : "";
}
