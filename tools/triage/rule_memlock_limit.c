/*
 * memlock-limit: page-locking with mlock (llama.cpp's --mlock, loadscope's
 * mlock pin backend) counts against RLIMIT_MEMLOCK, which is 8 MiB on many
 * distributions and in containers. Fires on a refused mlock, or when the
 * limit is below what a start pinned through mlock.
 */
#include "internal.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	(void)c;
	/* a limit the log shows unlimited is not what refused the lock
	 * (docs/triage.md: `unlimited` does not fire) */
	if (tr_has(&s->memlock_bytes) && isinf(s->memlock_bytes.v))
		return TR_NOFIRE;
	int refused = s->ev_mlock_fail >= 0;
	int under = tr_has(&s->memlock_bytes) && tr_has(&s->pin_bytes) && s->memlock_bytes.v < s->pin_bytes.v;
	if (!refused && !under)
		return TR_NOFIRE;
	tr_f_init(f, "memlock-limit", LSC_TRIAGE_WARN, s);
	tr_f_summary(f, "page-locking was refused by the locked-memory limit (RLIMIT_MEMLOCK): the memory "
		     "stays pageable");
	tr_f_ev(f, s, s->ev_mlock_fail);
	tr_f_ev(f, s, s->memlock_bytes.ev);
	if (tr_has(&s->memlock_bytes) && !isinf(s->memlock_bytes.v))
		tr_f_math(f, "limit %.2f MiB%s", s->memlock_bytes.v / (1024 * 1024),
			  tr_has(&s->pin_bytes) ? "" : "");
	if (tr_has(&s->pin_bytes))
		tr_f_math(f, "wanted to lock %.2f GiB", s->pin_bytes.v / GIB);
	tr_f_rem(f, "raise the limit for the engine: ulimit -l unlimited (as root), LimitMEMLOCK=infinity in a "
		    "systemd unit, --ulimit memlock=-1 for docker, or memlock in /etc/security/limits.conf");
	tr_f_rem(f, "or pin through the GPU runtime (cudaHostRegister / hipHostRegister), which does not use "
		    "mlock");
	return tr_f_fire(f);
}

const struct tr_rule tr_rule_memlock_limit = {"memlock-limit", NULL, eval};
