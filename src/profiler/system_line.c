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

static const char *bytes_or_na(char b[LSC__HBUF], int64_t v)
{
	if (v == LSC_NA)
		return LSC__WORD_NA;
	if (v == LSC_UNLIMITED)
		return LSC__WORD_UNLIMITED;
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

	/* The brief sentence: the settings that decide how a large arena
	 * behaves, each once; what is at its default or plainly harmless
	 * (prctl allows THP, no hugetlb pool, no swap), the hugetlb page size
	 * and the NUMA nodes only in the fields. */
	lsc__rec_say(r, "%s; THP %s, defrag %s", txt(s->kernel), txt(s->thp_enabled),
		     txt(s->thp_defrag));
	if (s->prctl_thp_disable > 0)
		lsc__rec_say(r, " (%s by prctl)", lsc_thp_disable_name(s->prctl_thp_disable));
	lsc__rec_say(r, "; MemAvailable %s of %s, %s in huge-page blocks", bytes_or_na(b2, s->mem_available),
		     bytes_or_na(b3, s->mem_total), bytes_or_na(b4, s->free_huge_blocks_bytes));
	if (s->hugetlb_total > 0)
		lsc__rec_say(r, "; hugetlb %lld of %lld free", (long long)s->hugetlb_free,
			     (long long)s->hugetlb_total);
	if (s->swap_total > 0)
		lsc__rec_say(r, "; swap %s", bytes_or_na(b5, s->swap_total));
	if (s->memlock_cur == LSC_UNLIMITED)
		lsc__rec_say(r, "; memlock unlimited");
	else if (s->cap_ipc_lock == 1)
		lsc__rec_say(r, "; CAP_IPC_LOCK");
	else
		lsc__rec_say(r, "; memlock %s", bytes_or_na(b1, s->memlock_cur));
	if (s->page_reporting == 1 && s->page_reporting_order != LSC_NA)
		lsc__rec_say(r, "; page reporting (order %lld)", (long long)s->page_reporting_order);
	else if (s->page_reporting == 1)
		lsc__rec_say(r, "; page reporting");

	lsc__rec_detail(r);
	lsc__rec_str(r, "kernel", txt(s->kernel));
	lsc__rec_str(r, LSC__KEY(THP_ENABLED), txt(s->thp_enabled));
	lsc__rec_str(r, LSC__KEY(THP_DEFRAG), txt(s->thp_defrag));
	lsc__rec_str(r, "thp_shmem", txt(s->thp_shmem_enabled));
	lsc__rec_num(r, "thp_khugepaged_defrag", s->khugepaged_defrag);
	lsc__rec_num(r, "thp_max_ptes_none", s->khugepaged_max_ptes_none);
	lsc__rec_num(r, "thp_pmd_bytes", s->hpage_pmd_size);
	lsc__rec_str(r, "mthp", ml ? mthp : "n/a");
	lsc__rec_str(r, LSC__KEY(THP_PRCTL), lsc_thp_disable_name(s->prctl_thp_disable));
	/* a 0/1 flag, a number in JSON as cap_ipc_lock is */
	lsc__rec_num(r, LSC__KEY(THP_PROCESS),
		     (s->proc_thp_enabled[0] == '0' || s->proc_thp_enabled[0] == '1') && !s->proc_thp_enabled[1]
			     ? s->proc_thp_enabled[0] - '0'
			     : LSC_NA);
	lsc__rec_num(r, LSC__KEY(HUGETLB_TOTAL), s->hugetlb_total);
	lsc__rec_num(r, LSC__KEY(HUGETLB_FREE), s->hugetlb_free);
	lsc__rec_num(r, "hugetlb_page_kib", s->hugetlb_page_kib);
	lsc__rec_num(r, LSC__KEY(MEMLOCK_BYTES), s->memlock_cur);
	lsc__rec_num(r, LSC__KEY(CAP_IPC_LOCK), s->cap_ipc_lock);
	lsc__rec_num(r, LSC__KEY(MEM_TOTAL_BYTES), s->mem_total);
	lsc__rec_num(r, "mem_available_bytes", s->mem_available);
	lsc__rec_num(r, "free_huge_blocks_bytes", s->free_huge_blocks_bytes);
	lsc__rec_num(r, "numa_nodes", s->numa_nodes);
	lsc__rec_num(r, "swap_total_bytes", s->swap_total);
	lsc__rec_num(r, "swap_free_bytes", s->swap_free);
	lsc__rec_num(r, LSC__KEY(PAGE_REPORTING), s->page_reporting);
	lsc__rec_num(r, LSC__KEY(PAGE_REPORTING_ORDER), s->page_reporting_order);
}
