/*
 * The findings the verdict itself gives (verdict.c decides; this file says
 * it): `start-failed` for a failed start that no rule gave a fail, quoting
 * its failure line; `slow-start` for a slow start that no rule explained,
 * quoting its time, size and rate and what to collect next; `healthy`,
 * `completed` (no figure to judge its speed from), `not-a-start` (a probe)
 * and `not-evaluated`. Kept apart from rules.c, which runs the rules.
 */
#include <string.h>

#include "internal.h"

static const char *fam(const struct tr_start *s)
{
	return s->family[0] ? s->family : "unknown";
}

/* "12.3 GiB in 312.5 s (0.04 GiB/s)", as far as the figures go */
static void figures(char *out, size_t cap, const struct tr_verdict *v)
{
	int n = 0;
	out[0] = 0;
	if (!isnan(v->gib))
		n = snprintf(out, cap, "%.2f GiB in ", v->gib);
	if (n < 0 || (size_t)n >= cap)
		return;
	int m = snprintf(out + n, cap - (size_t)n, "%.1f s", v->load_s);
	if (m < 0 || (size_t)(n + m) >= cap)
		return;
	if (!isnan(v->rate))
		snprintf(out + n + m, cap - (size_t)(n + m), " at %.2f GiB/s", v->rate);
}

void tr_verdict_failed(struct tr_finding *f, const struct tr_start *s, const struct tr_verdict *v)
{
	tr_f_init(f, "start-failed", LSC_TRIAGE_FAIL, s);
	const char *txt = v->ev_fail >= 0 && (unsigned)v->ev_fail < s->nev ? s->ev[v->ev_fail].text : "";
	tr_f_summary(f, "start %u (%s, lines %lu-%lu) failed: %.200s", s->idx, fam(s), s->first_line, s->last_line,
		     txt[0] ? txt : "the log shows it ended without coming up");
	tr_f_ev(f, s, v->ev_fail);
	if (s->ev_gen_fail >= 0 && s->ev_gen_fail != v->ev_fail)
		tr_f_ev(f, s, s->ev_gen_fail);
	tr_f_miss(f, "a cause the triage knows: the failure line does not name one");
	tr_f_rem(f, "read the quoted failure line: its last exception or error names the cause");
	tr_f_rem(f, "paste the lines before it (the whole traceback, the engine's last lines before the exit)");
	tr_f_fire(f);
}

void tr_verdict_slow(struct tr_finding *f, const struct tr_start *s, const struct tr_verdict *v)
{
	char fig[96];
	figures(fig, sizeof(fig), v);
	tr_f_init(f, "slow-start", LSC_TRIAGE_WARN, s);
	tr_f_summary(f, "start %u (%s, lines %lu-%lu) %s slowly: %s (%s); nothing in the log says why", s->idx, fam(s),
		     s->first_line, s->last_line, s->done ? "completed" : "is loading", fig, v->basis);
	tr_f_ev(f, s, v->ev_time);
	if (v->ev_size != v->ev_time)
		tr_f_ev(f, s, v->ev_size);
	if (!isnan(v->rate))
		tr_f_math(f, "%.2f GiB / %.1f s = %.2f GiB/s: over 60 s at under 1 GiB/s is slow (docs/triage.md, Verdicts)",
			  v->gib, v->load_s, v->rate);
	else if (v->weights && v->load_s < 300)
		tr_f_math(f, "%.1f s for the weights' own load without a size: over 100 s is slow (100 GiB at the 1 GiB/s "
			  "floor; docs/triage.md, Verdicts)", v->load_s);
	else
		tr_f_math(f, "%.1f s without a size: over 300 s is slow whatever the model (docs/triage.md, Verdicts)",
			  v->load_s);
	tr_f_miss(f, "what the load waited on: loadscope's lines, or the kernel's counters over the load");
	tr_f_rem(f, "run `vmstat -w 1` (or `loadscope probe`) while the model loads and paste it beside the log");
	tr_f_rem(f, "say where the model files live (`df -T MODEL_DIR`: a network file system reads at its link's rate)");
	tr_f_rem(f, "embed loadscope (or run `loadscope load MODEL`) for its phase lines: allocate, pin, read, copy");
	tr_f_fire(f);
}

void tr_verdict_healthy(struct tr_finding *f, const struct tr_start *s, const struct tr_verdict *v)
{
	char fig[96];
	tr_f_init(f, "healthy", LSC_TRIAGE_INFO, s);
	if (tr_f_lite(f))
		return; /* no text is kept: none is formatted */
	figures(fig, sizeof(fig), v);
	tr_f_summary(f, "start %u (%s, lines %lu-%lu) completed at a speed in range (%s) and shows none of the known "
		     "problems", s->idx, fam(s), s->first_line, s->last_line, fig);
}

void tr_verdict_completed(struct tr_finding *f, const struct tr_start *s)
{
	tr_f_init(f, "completed", LSC_TRIAGE_INFO, s);
	tr_f_summary(f, "start %u (%s, lines %lu-%lu) completed and shows none of the known problems; the log gives no "
		     "load time with its size, so its speed is not judged", s->idx, fam(s), s->first_line,
		     s->last_line);
	tr_f_ev(f, s, s->ev_end);
	tr_f_miss(f, "the load's time and size (llama.cpp `load time =` and `file size =`, vLLM `Model loading took`)");
}

void tr_verdict_probe(struct tr_finding *f, const struct tr_start *s)
{
	tr_f_init(f, "not-a-start", LSC_TRIAGE_INFO, s);
	tr_f_summary(f, "lines %lu-%lu are a `loadscope probe` run, not a start: nothing was loaded; the probe found "
		     "nothing in the way", s->first_line, s->last_line);
}

void tr_verdict_noteval(struct tr_finding *f, const struct tr_start *s, const struct tr_verdict *v)
{
	tr_f_init(f, "not-evaluated", LSC_TRIAGE_INFO, s);
	const char *what = v->outcome == TR_OUT_LOADING ? "is still loading where the log ends"
			   : v->outcome == TR_OUT_NONE  ? "is not a start (settings or estimates only)"
							: "is cut off before it completed or failed";
	tr_f_summary(f, "start %u (%s, lines %lu-%lu) shows no problem, but it %s: not called healthy", s->idx, fam(s),
		     s->first_line, s->last_line, what);
	tr_f_ev(f, s, s->ev_begin);
	if (f->nev < TR_F_EV && s->lastev.text[0] && (f->nev == 0 || f->ev[0].line != s->lastev.line))
		f->ev[f->nev++] = tr_evid_cooked(&s->lastev);
	tr_f_miss(f, "the start's ready or load-summary line (llama.cpp `load time =`, vLLM `Model loading "
		     "took`, ollama `llama runner started in`, loadscope `ready`)");
	tr_f_rem(f, "paste the whole start, up to the line where the engine says it is ready or loaded");
	tr_f_fire(f); /* the last remedy: loadscope explain not-evaluated */
}
