/*
 * log-truncated: a start that began and never ended. In seed 001 the two
 * crawling starts were stopped and the engine's buffered output ended at the
 * GPU line before the arena note; a hung start looks the same. A loadscope
 * start without its `ready` line, or an engine start that never reached its
 * load summary, is reported with its first and last lines. An engine
 * fragment that does contain its load summary is not called truncated.
 */
#include "internal.h"

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	(void)c;
	if (s->stage >= TR_ST_READY || s->stage < TR_ST_BEGAN)
		return TR_NOFIRE;
	int lsc = s->run[0] != 0 && s->ev_begin >= 0;
	if (!lsc && s->stage >= TR_ST_LOADED && !s->still_n)
		return TR_NOFIRE;
	/* An engine fragment that starts mid-way (an arena note pasted alone)
	 * is not a truncated start: only a start whose beginning we saw is. */
	if (!lsc && s->ev_begin < 0 && !s->still_n)
		return TR_NOFIRE;
	tr_f_init(f, "log-truncated", LSC_TRIAGE_WARN, s);
	tr_f_summary(f, "start %u began (line %lu) and never reached ready; its log ends at line %lu", s->idx,
		     s->first_line, s->last_line);
	tr_f_ev(f, s, s->ev_begin >= 0 ? s->ev_begin : 0);
	if (f->nev < TR_F_EV && s->lastev.text[0] && (f->nev == 0 || f->ev[0].line != s->lastev.line))
		f->ev[f->nev++] = tr_evid_cooked(&s->lastev);
	if (tr_has(&s->still_max_s))
		tr_f_math(f, "still starting after %.0f s (%d progress lines), then nothing", s->still_max_s.v,
			  s->still_n);
	tr_f_rem(f, "if the start was stopped or hung: the last line says where; rerun with output unbuffered "
		    "(stdbuf -oL -eL, PYTHONUNBUFFERED=1) so the log reaches the step it was in");
	tr_f_rem(f, "if the paste was cut: paste the whole start, up to its ready line");
	return tr_f_fire(f);
}

const struct tr_rule tr_rule_log_truncated = {"log-truncated", NULL, eval};
