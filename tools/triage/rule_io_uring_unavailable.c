/*
 * io-uring-unavailable: the reader wanted io_uring and fell back (kernel too
 * old, kernel.io_uring_disabled, a container's seccomp profile). A warning
 * when the read on the fallback was slow and long enough to cost something
 * (under 1.5 GiB/s for 10 s or more), information otherwise: a read of a
 * few seconds bounds what io_uring could have saved to those seconds.
 */
#include "internal.h"

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	(void)c;
	if (s->ev_uring < 0)
		return TR_NOFIRE;
	int fast = (tr_has(&s->read_rate) && s->read_rate.v >= 1.5) || (tr_has(&s->read_s) && s->read_s.v < 10);
	/* a warning needs the read's cost shown: with neither figure the
	 * fallback is information, its read not evaluated */
	int shown = tr_has(&s->read_rate) || tr_has(&s->read_s);
	tr_f_init(f, "io-uring-unavailable", fast || !shown ? LSC_TRIAGE_INFO : LSC_TRIAGE_WARN, s);
	tr_f_summary(f, "io_uring was not available; reads fell back to a slower path");
	tr_f_ev(f, s, s->ev_uring);
	tr_f_ev(f, s, s->read_rate.ev);
	if (tr_has(&s->read_rate))
		tr_f_math(f, "read rate %.2f GiB/s on the fallback (a warning under 1.5 GiB/s for 10 s or more)",
			  s->read_rate.v);
	if (tr_has(&s->read_s))
		tr_f_math(f, "read %.2f s on the fallback", s->read_s.v);
	if (!shown)
		tr_f_miss(f, "the read on the fallback (its phase line: time and rate), which says what io_uring could save");
	tr_f_rem(f, "check sysctl kernel.io_uring_disabled (0 allows it) and the kernel version (5.6+)");
	tr_f_rem(f, "in containers: the seccomp profile may block io_uring_setup (docker/podman "
		    "--security-opt seccomp=... allowing io_uring_*)");
	return tr_f_fire(f);
}

const struct tr_rule tr_rule_io_uring_unavailable = {"io-uring-unavailable", NULL, eval};
