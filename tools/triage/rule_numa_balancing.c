/*
 * numa-balancing: automatic NUMA balancing is on (the engine's own warning,
 * or kernel.numa_balancing = 1 pasted from sysctl or /proc) while a model
 * loads. The kernel then unmaps pages periodically to see who touches them
 * (NUMA hinting faults) and migrates them: on a large model in host memory
 * that is a steady stream of faults and page copies during the load and
 * inference, which llama.cpp warns about. A start whose log shows a small
 * model (under 4 GiB) is spared.
 */
#include "internal.h"

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	(void)c;
	if (s->ev_numa < 0)
		return TR_NOFIRE;
	if (tr_has(&s->loaded_gib) && s->loaded_gib.v < 4)
		return TR_NOFIRE;
	tr_f_init(f, "numa-balancing", LSC_TRIAGE_WARN, s);
	tr_f_summary(f, "automatic NUMA balancing is on while the model loads: the kernel unmaps and migrates its "
		     "pages behind the engine");
	tr_f_ev(f, s, s->ev_numa);
	if (tr_has(&s->loaded_gib))
		tr_f_math(f, "%.2f GiB of model pages are scanned and may be migrated between nodes", s->loaded_gib.v);
	tr_f_rem(f, "turn it off for the run: sysctl -w kernel.numa_balancing=0 (as root; it is a system setting)");
	tr_f_rem(f, "or bind the engine to one node (numactl --cpunodebind=0 --membind=0, llama.cpp --numa)");
	return tr_f_fire(f);
}

const struct tr_rule tr_rule_numa_balancing = {"numa-balancing", NULL, eval};
