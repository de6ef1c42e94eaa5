/*
 * The system line: the memory settings that decide how a large arena
 * behaves, printed once per start so that every pasted log carries them.
 * Seed 001's author had to add "kernel defrag=madvise" to the engine's note
 * by hand to make the crawl explain itself; here it is always there.
 */
#include <stdio.h>
#include <string.h>

#include "format/human.h"
#include "profiler/internal.h"

static const char *txt(const char *s)
{
	return s && *s ? s : "n/a";
}

static void num(struct lsc__rec *r, const char *key, int64_t v)
{
	if (v == LSC_NA)
		lsc__rec_str(r, key, "n/a");
	else if (v == LSC_UNLIMITED)
		lsc__rec_str(r, key, "unlimited");
	else
		lsc__rec_i64(r, key, v);
}

static const char *bytes_or_na(char b[LSC__HBUF], int64_t v)
{
	if (v == LSC_NA)
		return "n/a";
	if (v == LSC_UNLIMITED)
		return "unlimited";
	return lsc__fmt_bytes(b, (double)v);
}

void lsc__system_rec(struct lsc__rec *r, const struct lsc_system *s)
{
	char b1[LSC__HBUF], b2[LSC__HBUF], b3[LSC__HBUF], b4[LSC__HBUF], b5[LSC__HBUF];
	char mthp[LSC_MTHP_MAX * 24] = "";
	size_t ml = 0;
	for (unsigned i = 0; i < s->n_mthp && i < LSC_MTHP_MAX; i++) {
		int n = snprintf(mthp + ml, sizeof(mthp) - ml, "%s%ukB:%s", i ? "," : "", s->mthp[i].size_kib,
				 txt(s->mthp[i].enabled));
		if (n < 0 || (size_t)n >= sizeof(mthp) - ml)
			break;
		ml += (size_t)n;
	}

	lsc__rec_say(r, "kernel %s; THP enabled=%s defrag=%s", txt(s->kernel), txt(s->thp_enabled),
		     txt(s->thp_defrag));
	if (s->khugepaged_defrag != LSC_NA)
		lsc__rec_say(r, " khugepaged/defrag=%lld", (long long)s->khugepaged_defrag);
	lsc__rec_say(r, "; THP for this process %s by prctl", lsc_thp_disable_name(s->prctl_thp_disable));
	if (s->hugetlb_total != LSC_NA)
		lsc__rec_say(r, "; hugetlb %lld of %lld pages free (%lld KiB each)", (long long)s->hugetlb_free,
			     (long long)s->hugetlb_total, (long long)s->hugetlb_page_kib);
	lsc__rec_say(r, "; memlock %s%s; MemAvailable %s of %s; %s free in huge-page blocks; swap %s",
		     bytes_or_na(b1, s->memlock_cur), s->cap_ipc_lock == 1 ? " (lifted by CAP_IPC_LOCK)" : "",
		     bytes_or_na(b2, s->mem_available),
		     bytes_or_na(b3, s->mem_total), bytes_or_na(b4, s->free_huge_blocks_bytes),
		     bytes_or_na(b5, s->swap_total));
	if (s->numa_nodes != LSC_NA)
		lsc__rec_say(r, "; %lld NUMA node%s", (long long)s->numa_nodes, s->numa_nodes == 1 ? "" : "s");
	if (s->page_reporting == 1 && s->page_reporting_order != LSC_NA)
		lsc__rec_say(r, "; free blocks of order %lld and up go back to the host (free page reporting)",
			     (long long)s->page_reporting_order);
	else if (s->page_reporting == 1)
		lsc__rec_say(r, "; free blocks go back to the host (free page reporting)");

	lsc__rec_str(r, "kernel", txt(s->kernel));
	lsc__rec_str(r, "thp_enabled", txt(s->thp_enabled));
	lsc__rec_str(r, "thp_defrag", txt(s->thp_defrag));
	lsc__rec_str(r, "thp_shmem", txt(s->thp_shmem_enabled));
	num(r, "thp_khugepaged_defrag", s->khugepaged_defrag);
	num(r, "thp_max_ptes_none", s->khugepaged_max_ptes_none);
	num(r, "thp_pmd_bytes", s->hpage_pmd_size);
	lsc__rec_str(r, "mthp", ml ? mthp : "n/a");
	lsc__rec_str(r, "thp_prctl", lsc_thp_disable_name(s->prctl_thp_disable));
	lsc__rec_str(r, "thp_process", txt(s->proc_thp_enabled));
	num(r, "hugetlb_total", s->hugetlb_total);
	num(r, "hugetlb_free", s->hugetlb_free);
	num(r, "hugetlb_page_kib", s->hugetlb_page_kib);
	num(r, "memlock_bytes", s->memlock_cur);
	num(r, "cap_ipc_lock", s->cap_ipc_lock);
	num(r, "mem_total_bytes", s->mem_total);
	num(r, "mem_available_bytes", s->mem_available);
	num(r, "free_huge_blocks_bytes", s->free_huge_blocks_bytes);
	num(r, "numa_nodes", s->numa_nodes);
	num(r, "swap_total_bytes", s->swap_total);
	num(r, "swap_free_bytes", s->swap_free);
	num(r, "page_reporting", s->page_reporting);
	num(r, "page_reporting_order", s->page_reporting_order);
}
