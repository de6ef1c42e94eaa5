/*
 * oom-killed: the kernel's OOM killer (`Out of memory: Killed process N`,
 * `oom-kill:`, `invoked oom-killer`), systemd's report of it (`killed by the
 * OOM killer`, `Failed with result 'oom-kill'`), or a SIGKILL once loading
 * began (`code=killed, status=9/KILL`, a shell's bare `Killed`), which on a
 * loading host is the OOM killer far more often than anything else. The
 * memory figures the log gives are quoted (the killed process's anon-rss).
 * A kill once the model was up and at work is a warning: the start
 * completed, and what ran out of memory was its work.
 */
#include "internal.h"

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	(void)c;
	if (s->ev_oom < 0 && s->ev_killed < 0)
		return TR_NOFIRE;
	/* killed once the model was up and at work (a ready line, a generation
	 * begun): the start did not fail, its work ran out of memory; a kill
	 * right after a load summary, before ready, is the start's */
	int at_work = s->done && s->stage >= TR_ST_READY;
	const char *when = at_work ? "after the model was up, at its work" :
			   s->done ? "after the start completed" : "while it loaded";
	tr_f_init(f, "oom-killed", at_work ? LSC_TRIAGE_WARN : LSC_TRIAGE_FAIL, s);
	if (s->ev_oom >= 0)
		tr_f_summary(f, "the OOM killer killed the process %s", when);
	else
		tr_f_summary(f, "the process was killed (SIGKILL) %s; on a loading host that is most often the OOM "
			     "killer", when);
	tr_f_ev(f, s, s->ev_oom);
	tr_f_ev(f, s, s->ev_killed);
	if (tr_has(&s->oom_rss_gib))
		tr_f_math(f, "the killed process held %.2f GiB of anonymous memory (anon-rss)", s->oom_rss_gib.v);
	if (tr_has(&s->loaded_gib))
		tr_f_math(f, "the model: %.2f GiB", s->loaded_gib.v);
	if (tr_has(&s->mem_total_gib))
		tr_f_math(f, "the machine: %.2f GiB of RAM", s->mem_total_gib.v);
	if (tr_has(&s->mem_required_gib) && tr_has(&s->mem_available_gib))
		tr_f_math(f, "the engine's estimate: %.1f GiB required, %.1f GiB available", s->mem_required_gib.v,
			  s->mem_available_gib.v);
	if (s->ev_oom < 0)
		tr_f_rem(f, "confirm it was the OOM killer: dmesg or journalctl -k around the time, `Out of memory: "
			    "Killed process`");
	if (at_work)
		tr_f_rem(f, "the model loaded and was at work when it was killed: what it ran (a generation, a batch, a "
			    "decode) needed more memory than was free; lower its size (resolution, frames, batch) or "
			    "offload more to the GPU");
	else
		tr_f_rem(f, "the load needs more memory than was free: use mmap instead of reading the whole model "
			    "into RAM (llama.cpp without --no-mmap), offload more to the GPU, or a smaller quantisation");
	tr_f_rem(f, "a systemd unit's MemoryMax= or a container's memory limit counts too: raise it or load less");
	return tr_f_fire(f);
}

const struct tr_rule tr_rule_oom_killed = {"oom-killed", NULL, eval};
