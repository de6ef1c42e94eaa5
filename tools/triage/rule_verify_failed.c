/*
 * verify-failed: the post-load check failed or timed out (seed 000: `verify:
 * timed out at layer 32`). A failed verification means the loaded bytes or
 * the device cannot be trusted for this start: a failure, whatever else the
 * start shows.
 */
#include "internal.h"

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	(void)c;
	if (s->ev_verify_fail < 0)
		return TR_NOFIRE;
	tr_f_init(f, "verify-failed", LSC_TRIAGE_FAIL, s);
	tr_f_summary(f, "verification after the load failed or timed out");
	tr_f_ev(f, s, s->ev_verify_fail);
	tr_f_rem(f, "rerun the start: if it recurs, check the weight files' hashes and the kernel log (dmesg) "
		    "for I/O or GPU errors");
	tr_f_rem(f, "a timeout rather than a mismatch points at the device or a stall during the check: note "
		    "what else was loading at the time");
	return tr_f_fire(f);
}

const struct tr_rule tr_rule_verify_failed = {"verify-failed", NULL, eval};
