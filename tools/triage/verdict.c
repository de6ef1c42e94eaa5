/*
 * The verdict every start gets before any cause: what became of it (its
 * outcome) and whether it loaded at a speed in range. `healthy` rests on
 * both (a start that completed, at a speed in range), never on "no rule
 * fired"; a completed but slow start with no known cause gets a finding of
 * its own (slow-start, rules.c); a failed one always gets a fail.
 *
 * The thresholds (docs/triage.md, "Verdicts", says where each comes from):
 * a load under TR_OK_S is fine whatever the size (a page-cache read of any
 * model an engine starts in seconds, seed 001's good start took 25 s); a
 * load at TR_OK_GIBPS or more is fine whatever the time (an NVMe drive
 * gives 2-7 GiB/s, the page cache more); a load over TR_OK_S at under
 * TR_OK_GIBPS is slow (a network file system, a SATA disk or a stalled
 * allocation: seed 001's 432 s for 40 GiB is 0.09 GiB/s, the NFS streamer
 * of vllm-runai-disk-bound 0.58 GiB/s); with no size, a load over
 * TR_SLOW_NOSIZE_S is slow (several minutes) and one between TR_OK_S and
 * that is not judged: the log cannot tell a slow disk from a big model.
 * Where the figure is the weights' own load (a load summary, a shard bar,
 * not an engine's init or its time to ready), TR_SLOW_WEIGHTS_NOSIZE_S
 * is slow already: at the 1 GiB/s floor that is a 100 GiB read, and the
 * engines that state their weights' time without its size (diffusion UIs,
 * text-generation-webui, transformers' shard bar) load a few GiB to a few
 * tens; every such start of 100-300 s in the corpus is slow by its thread.
 */
#include <string.h>

#include "internal.h"

#define TR_OK_S 60.0
#define TR_OK_GIBPS 1.0
#define TR_SLOW_NOSIZE_S 300.0
#define TR_SLOW_WEIGHTS_NOSIZE_S 100.0

const char *tr_outcome_name(int o)
{
	static const char *const n[] = {"none", "completed", "failed", "cut-off", "loading"};
	return o >= 0 && o <= TR_OUT_LOADING ? n[o] : "none";
}

const char *tr_speed_name(int sp)
{
	return sp == TR_SPEED_OK ? "ok" : sp == TR_SPEED_SLOW ? "slow" : "-";
}

/* The first of @n numbers that is present, and its evidence. */
static int first_of(const struct tr_num *const *n, size_t k, double *v, int *ev)
{
	for (size_t i = 0; i < k; i++)
		if (n[i] && tr_has(n[i]) && n[i]->v >= 0) {
			*v = n[i]->v;
			*ev = n[i]->ev;
			return 1;
		}
	return 0;
}

static enum tr_outcome outcome_of(const struct tr_start *s, int *ev_fail)
{
	const int fails[] = {s->ev_error, s->ev_oom, s->ev_killed, s->ev_verify_fail, s->ev_exit, s->ev_gen_fail_last,
			     s->ev_gen_fail};
	*ev_fail = -1;
	for (size_t i = 0; i < sizeof(fails) / sizeof(fails[0]) && *ev_fail < 0; i++)
		if (fails[i] >= 0)
			*ev_fail = fails[i];
	if (s->probe && s->stage < TR_ST_LOADING && *ev_fail < 0)
		return TR_OUT_NONE; /* a probe judges a machine: nothing was loaded */
	/* a verification that failed, or an exit before ready, ends the start
	 * even after its load summary (seed 001's verify timeout) */
	if (s->ev_verify_fail >= 0 || s->ev_exit >= 0)
		return TR_OUT_FAILED;
	/* a traceback the paste ends in (its exception line cut off) ended
	 * the start, even after its load summary, if it never came up */
	if (s->in_traceback && s->ev_tb >= 0 && s->stage < TR_ST_READY && s->ev_gen_ready < 0 && *ev_fail < 0) {
		*ev_fail = s->ev_tb;
		return TR_OUT_FAILED;
	}
	/* every line of it a server up at its address, no model named: the
	 * serving process up with no model in it, not a start (server_up.c) */
	if (s->nbare_ready && s->recognised == s->nbare_ready + s->napp_startup && *ev_fail < 0)
		return TR_OUT_NONE;
	/* a server whose settings said it starts with no model, and nothing
	 * of a load since (its ready line, if any, before any): up with none */
	if (s->no_model && *ev_fail < 0 && (s->stage < TR_ST_LOADING || (s->stage == TR_ST_READY && s->ready_early)))
		return TR_OUT_NONE;
	if (s->done)
		return TR_OUT_COMPLETED;
	if (*ev_fail >= 0)
		return TR_OUT_FAILED;
	if (s->ev_gen_ready >= 0)
		return TR_OUT_COMPLETED;
	if (s->stage == TR_ST_NONE && s->recognised <= s->nsettings + s->nserved)
		return TR_OUT_NONE; /* settings pasted, or a running server's requests: nothing of a start */
	/* the start's last word is that its load is under way (a bar short
	 * of N/N, loading dots, a step it says takes a while): loading */
	if (s->progress_open || s->dots_open || s->began_open)
		return TR_OUT_LOADING;
	/* a load bar that reached N/N, and nothing failed after it: the
	 * weights are in (a load summary in all but words) */
	if (s->bar_done && s->stage == TR_ST_LOADING)
		return TR_OUT_COMPLETED;
	return TR_OUT_CUTOFF;
}

/* ok, slow or unknown for @secs over @gib (NAN: no size); @weights: the
 * time is the weights' own load, not a time to ready or an init. */
static enum tr_speed judge_of(double secs, double gib, int weights)
{
	if (isnan(secs))
		return TR_SPEED_UNKNOWN;
	if (secs < TR_OK_S)
		return TR_SPEED_OK;
	if (!isnan(gib) && gib > 0) {
		double r = gib / secs;
		return r >= TR_OK_GIBPS ? TR_SPEED_OK : TR_SPEED_SLOW;
	}
	return secs >= (weights ? TR_SLOW_WEIGHTS_NOSIZE_S : TR_SLOW_NOSIZE_S) ? TR_SPEED_SLOW : TR_SPEED_UNKNOWN;
}

static enum tr_speed judge(double secs, double gib)
{
	return judge_of(secs, gib, 0);
}

/* Is the load figure @ev the weights' own (a read, a load summary, the
 * loaded line, a shard bar), not a generic figure that may be an engine's
 * init or its time to start? */
static int weights_figure(const struct tr_start *s, int ev)
{
	if (ev < 0)
		return 0;
	/* a bar still under way at the paste's end ("61/99 [02:37<01:36]")
	 * gives the time so far, not the weights' whole load: an unfinished
	 * start with no size is judged as the Verdicts table says, on minutes
	 * (its clocks, its projection), not on the whole load's 100 s */
	if (ev == s->read_s.ev && s->progress_open)
		return 0;
	if (ev == s->read_s.ev || ev == s->loaded_s.ev || ev == s->comp_total_s.ev || ev == s->moved_s.ev)
		return 1;
	return ev == s->gen_load_s.ev && s->gen_load_weights;
}

/* A load time the engine states for the weights in words (`checkpoint
 * loading time at rank 1: 108.87 sec`, `Model loaded in 12.3 s`) is the
 * whole load's; a bar's elapsed time (the load @*load chosen, @*ev its
 * line) is what a terminal last drew of it (cut before its N/N, or a
 * rank's copy of the bar). The stated one wins where it is at least the
 * bar's time: a shorter one may be a step's or a part's, which the bar
 * outlasted. */
static void stated_over_bar(const struct tr_start *s, double *load, int *ev)
{
	if (*ev == s->read_s.ev && *load == s->read_s.v && s->bar_frac > 0 && tr_has(&s->gen_load_s) &&
	    s->gen_load_weights && s->gen_load_s.v >= *load) {
		*load = s->gen_load_s.v;
		*ev = s->gen_load_s.ev;
	}
}

/* How long an unfinished start has been under way by its lines' own
 * clocks: from its first line to its last, on the most specific kind of
 * clock both carry (never a collector's against the engine's), after the
 * load began; NAN when they do not say. Equal clocks say nothing (a paste
 * stamped with one time); a span over midnight wraps, one that goes back
 * by more than half a day says nothing (lines pasted out of order), nor
 * does a kind that two clocks shared (ts_mixed). */
static double clock_so_far(const struct tr_start *s)
{
	if (s->stage < TR_ST_BEGAN)
		return NAN;
	for (int k = TR_TS_KINDS; k-- > 0;) {
		if (isnan(s->ts_begin[k]) || isnan(s->ts_last[k]) || s->ts_mixed[k])
			continue;
		double d = s->ts_last[k] - s->ts_begin[k];
		/* a clock that went back wrapped at midnight only if the wrapped
		 * span is short: lines pasted out of their order are not a day */
		if (d < 0)
			d = d + 86400 < 43200 ? d + 86400 : NAN;
		return d > 0 ? d : NAN;
	}
	return NAN;
}

/* The time the progress lines' clocks span for the share they gained (at
 * least 2%), on one kind of clock: with the size, the rate the load ran at
 * so far ("progress 0.01" to "0.09" in 1.0 s of 39.59 GiB: 3.2 GiB/s), as
 * a bar under way moved its share. NAN when the lines do not say. */
static double progress_span(const struct tr_start *s, double *gain)
{
	*gain = s->prog_last - s->prog_first;
	if (!(*gain >= 0.02))
		return NAN;
	for (int k = TR_TS_KINDS; k-- > 0;) {
		double d = s->prog_ts_last[k] - s->prog_ts_first[k];
		if (!isnan(d))
			return d > 0 && d < 43200 ? d : NAN;
	}
	return NAN;
}

/* The whole load's time at the rate its progress moved: from the first
 * progress fraction to the last, on one kind of clock, the time over the
 * fraction gained ("progress 0.01" at 09:37:04.8, "0.08" at 09:38:11.8:
 * 67 s for 7%, 957 s for the whole). NAN when the lines do not say (no
 * clocks, no gain, or less than 2% gained: too little to extrapolate). */
static double progress_whole(const struct tr_start *s)
{
	double gain, d = progress_span(s, &gain);
	return isnan(d) ? NAN : d / gain;
}

/* An unfinished start (cut off, loading): only "slow so far" means
 * anything, from its figures or, where it states none, its clocks. */
static void unfinished(const struct tr_start *s, struct tr_verdict *v, int have_l, int have_g)
{
	/* a part that finished loading (a shard ready in 30.9 s) is a
	 * finished measure, which the rest of the start does not undo */
	int part = have_l && s->gen_load_part && v->ev_time == s->gen_load_s.ev && v->speed == TR_SPEED_OK;
	if (v->speed != TR_SPEED_SLOW && !part)
		v->speed = TR_SPEED_UNKNOWN;
	v->basis = "time so far";
	double so_far = clock_so_far(s), whole = progress_whole(s);
	/* the engine's own "still loading after N s" is time so far too, and
	 * the line that says it is the evidence */
	int ev_so_far = -1;
	if (tr_has(&s->still_max_s) && !(s->still_max_s.v <= so_far)) {
		so_far = s->still_max_s.v;
		ev_so_far = s->still_max_s.ev;
	}
	if (v->speed != TR_SPEED_SLOW && !have_l && judge(so_far, have_g ? v->gib : NAN) == TR_SPEED_SLOW) {
		v->speed = TR_SPEED_SLOW;
		v->load_s = so_far;
		v->ev_time = ev_so_far;
	} else if (v->speed != TR_SPEED_SLOW && !have_l && judge(whole, have_g ? v->gib : NAN) == TR_SPEED_SLOW) {
		v->speed = TR_SPEED_SLOW;
		v->load_s = whole;
		v->ev_time = -1;
		v->basis = "whole load at its progress rate";
	} else if (v->speed != TR_SPEED_SLOW && have_l && v->ev_time == s->read_s.ev && s->progress_open &&
		   s->bar_frac > 0 && s->bar_frac < 1 && judge(s->read_s.v / s->bar_frac, NAN) == TR_SPEED_SLOW) {
		/* a bar under way with its elapsed time: the whole load at the
		 * bar's own pace ("6/19 [01:42<...": 323 s), slow over minutes as
		 * the clocks' projection is; never ok, a projection */
		v->speed = TR_SPEED_SLOW;
		v->load_s = s->read_s.v / s->bar_frac;
		v->basis = "whole load at its bar's pace";
	} else if (v->speed == TR_SPEED_UNKNOWN && have_l && v->ev_time == s->read_s.ev && s->progress_open &&
		   tr_has(&s->read_gib) && v->ev_size == s->read_gib.ev && s->read_s.v > 0 &&
		   s->read_gib.v / s->read_s.v >= TR_OK_GIBPS) {
		/* a bar under way with its share of the size (7 of 46 shards
		 * of 148.66 GiB in 7 s): the rate so far, ok at 1 GiB/s or
		 * more, as progress fractions on their clocks are */
		v->speed = TR_SPEED_OK;
		v->basis = "its progress so far";
	} else if (v->speed == TR_SPEED_UNKNOWN && !have_l && have_g) {
		/* the share its progress gained, of the size, in the time its
		 * clocks span: a rate so far of 1 GiB/s or more is ok, as a bar
		 * under way is judged on its share */
		double gain, d = progress_span(s, &gain);
		if (!isnan(d) && judge(d, v->gib * gain) == TR_SPEED_OK && v->gib * gain / d >= 1.0) {
			v->speed = TR_SPEED_OK;
			v->load_s = d;
			v->gib = v->gib * gain;
			v->rate = v->gib / d;
			v->ev_time = -1;
			v->basis = "its progress so far";
		}
	}
}

void tr_verdict_of(const struct tr_start *s, struct tr_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->load_s = v->gib = v->rate = NAN;
	v->ev_time = v->ev_size = -1;
	v->basis = "";
	v->outcome = outcome_of(s, &v->ev_fail);
	v->speed = TR_SPEED_UNKNOWN;
	if (v->outcome == TR_OUT_FAILED || v->outcome == TR_OUT_NONE)
		return;

	/* the size: what was loaded, the checkpoint, the model file, what the
	 * start allocated (its allocations' running total) */
	const struct tr_num *sizes[] = {&s->loaded_gib, &s->comp_gib, &s->ckpt_gib, &s->model_gib, &s->arena_gib,
					&s->alloc_gib};
	int have_g = first_of(sizes, sizeof(sizes) / sizeof(sizes[0]), &v->gib, &v->ev_size);
	if (have_g && !(v->gib > 0))
		have_g = 0, v->gib = NAN;

	/* the load: the most specific measure of bringing the weights in */
	double ph = 0;
	int nph = 0, ev_ph = -1;
	for (int k = 0; k < TR_K_N; k++)
		if (k != TR_K_VERIFY && tr_has(&s->ph_s[k])) {
			ph += s->ph_s[k].v;
			nph++;
			ev_ph = s->ph_s[k].ev;
		}
	struct tr_num phn = {nph ? ph : NAN, ev_ph};
	const struct tr_num *loads[] = {&s->comp_total_s, s->loaded_rate_stated ? NULL : &s->loaded_s, &s->read_s, &phn,
					&s->moved_s, &s->gen_load_s};
	double load = NAN;
	int ev_load = -1;
	int have_l = first_of(loads, sizeof(loads) / sizeof(loads[0]), &load, &ev_load);
	if (!have_l && s->loaded_rate_stated && tr_has(&s->loaded_s))
		have_l = 1, load = s->loaded_s.v, ev_load = s->loaded_s.ev;
	/* a rate stated without its time ("loaded 40 GiB at 2.86 GiB/s") */
	if (!have_l && have_g && tr_has(&s->loaded_rate) && s->loaded_rate.v > 0)
		have_l = 1, load = v->gib / s->loaded_rate.v, ev_load = s->loaded_rate.ev;

	if (have_l)
		stated_over_bar(s, &load, &ev_load);
	/* phases moved their own bytes (an allocation of the pinned part, not the model) */
	if (have_l && ev_load == ev_ph && load == ph && nph) {
		double pg = 0;
		for (int k = 0; k < TR_K_N; k++)
			if (k != TR_K_VERIFY && tr_has(&s->ph_s[k]) && s->ph_gib[k] > pg)
				pg = s->ph_gib[k];
		if (pg > 0) {
			v->gib = pg;
			v->ev_size = ev_ph;
			have_g = 1;
		}
	}
	/* a read still under way (a progress bar) moved only its share */
	if (have_l && ev_load == s->read_s.ev && load == s->read_s.v && tr_has(&s->read_gib) && s->read_gib.v > 0) {
		v->gib = s->read_gib.v;
		v->ev_size = s->read_gib.ev;
		have_g = 1;
	}
	/* an amount moved in a time is judged on that amount ("pinned 28.47 GiB in 18 s") */
	if (have_l && ev_load == s->moved_s.ev && load == s->moved_s.v && tr_has(&s->moved_gib)) {
		v->gib = s->moved_gib.v;
		v->ev_size = s->moved_gib.ev;
		have_g = 1;
	}
	/* a time to ready read off the lines' clocks (which a paste may mix:
	 * a collector's, the engine's) counts only when nothing states a load */
	double ready = tr_has(&s->ready_s) && !(s->ready_from_clock && have_l) ? s->ready_s.v : NAN;
	int ev_ready = s->ready_s.ev;
	/* a step after the weights (a graph capture, a compile) that took
	 * longer: the start took at least that to come up. A floor only says
	 * slow (minutes), never ok: what came after it is not in the figure */
	if (tr_has(&s->step_s) && (isnan(ready) || s->step_s.v > ready) && judge(s->step_s.v, NAN) == TR_SPEED_SLOW) {
		ready = s->step_s.v;
		ev_ready = s->step_s.ev;
	}
	/* The lines' clocks alone are not a load time: a paste stacks a
	 * collector's clock on the engine's, and a prefix added by hand makes
	 * every line the same second (tests/test_triage_damage.c). */
	enum tr_speed a = have_l ? judge_of(load, have_g ? v->gib : NAN, weights_figure(s, ev_load)) : TR_SPEED_UNKNOWN;
	/* time to ready counts when it is minutes and several times the load
	 * (a rate that hides the wall time, seed 001), or when it is all there is */
	enum tr_speed b = TR_SPEED_UNKNOWN;
	if (!isnan(ready) && (!have_l || (ready >= TR_SLOW_NOSIZE_S && ready >= 3 * load)))
		b = judge(ready, have_g ? v->gib : NAN);
	if (b == TR_SPEED_SLOW || (a == TR_SPEED_UNKNOWN && b != TR_SPEED_UNKNOWN)) {
		v->speed = b;
		v->load_s = ready;
		v->ev_time = ev_ready;
		v->basis = "time to ready";
	} else {
		v->speed = a;
		v->load_s = have_l ? load : NAN;
		v->ev_time = ev_load;
		v->basis = "load";
		v->weights = have_l && weights_figure(s, ev_load);
	}
	/* a phase that moved its bytes over a minute at under 1 GiB/s (an
	 * allocation of 33 GiB in 184 s) is slow whatever the rest did */
	for (int k = 0; k < TR_K_N && v->speed != TR_SPEED_SLOW; k++)
		if (k != TR_K_VERIFY && tr_has(&s->ph_s[k]) && s->ph_gib[k] > 0 &&
		    judge(s->ph_s[k].v, s->ph_gib[k]) == TR_SPEED_SLOW) {
			v->speed = TR_SPEED_SLOW;
			v->load_s = s->ph_s[k].v;
			v->gib = s->ph_gib[k];
			v->ev_time = v->ev_size = s->ph_s[k].ev;
			v->basis = tr_kind_name((enum tr_kind)k);
			have_g = 1;
		}
	if (v->outcome == TR_OUT_LOADING || v->outcome == TR_OUT_CUTOFF)
		unfinished(s, v, have_l, have_g);
	if (!isnan(v->load_s) && v->load_s > 0 && have_g)
		v->rate = v->gib / v->load_s;
}

int tr_engine_off(const struct lsc_triage *t, const char *engine)
{
	const char *off = t->off_engine;
	if (!off[0] || !engine)
		return 0;
	if (!strcmp(off, engine))
		return 1;
	/* ggml is llama.cpp's own library: its lines are llama.cpp's */
	return !strcmp(off, "llama.cpp") && !strcmp(engine, "ggml");
}
