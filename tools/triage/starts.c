/*
 * Splitting a log into starts. loadscope's own lines carry a run id, so
 * interleaved starts (two engines writing to one journal) stay apart; other
 * engines' lines go to the current start. A new start begins at a start
 * marker (loadscope `start`, an engine's first lines) once the current start
 * has got past its beginning, or when a fact that happens once per start
 * (the arena note, the `loaded` summary, the complement line) shows up a
 * second time: a pasted log of five restarts rarely says where each began.
 *
 * A start's facts live only while it is open; closing it runs the rules,
 * keeps a short summary (the phase table) and a row for --table, and frees it.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "evid_cut.h"
#include "internal.h"

const char *const tr_vm_names[TR_VM_N] = {
	"compact_stall", "compact_fail", "compact_success", "thp_fault_alloc", "thp_fault_fallback",
	"allocstall", "pswpin", "pswpout", "pgmajfault", "pgfault"};

/* memcpy of @n bytes, at most a few hundred, in 16-byte moves: for a copy
 * of bounded size gcc inlines `rep movsq`, whose start costs more than the
 * copy, and tr_touch copies every recognised line. */
static void copy_short(char *d, const char *s, size_t n)
{
	if (n >= 16) {
		for (size_t i = 0; i + 16 <= n; i += 16)
			memcpy(d + i, s + i, 16);
		memcpy(d + n - 16, s + n - 16, 16);
	} else if (n >= 8) {
		memcpy(d, s, 8);
		memcpy(d + n - 8, s + n - 8, 8);
	} else {
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
	}
}

void tr_evid_raw(struct tr_evid *e, const struct tr_line *l)
{
	size_t n = l->len < TR_EVTEXT / 2 - 1 ? l->len : TR_EVTEXT / 2 - 1;
	e->line = l->no;
	e->src = l->src;
	copy_short(e->text, l->s, n); /* cleaned lines hold no NUL */
	e->text[n] = 0;
	if (n < l->len)
		tr_evid_cut(e->text, n, TR_EVTEXT / 2); /* at a token, with an ellipsis */
}

struct tr_evid tr_evid_cooked(const struct tr_evid *raw)
{
	struct tr_evid e = {.line = raw->line, .src = raw->src};
	tr_sanitize(raw->text, strlen(raw->text), e.text, sizeof(e.text));
	return e;
}

void tr_setnum(struct tr_num *n, double v, int ev)
{
	n->v = v;
	n->ev = ev;
}

void tr_start_reset(struct tr_start *s, unsigned idx, unsigned src)
{
	/* everything but the evidence texts, which are read only up to nev:
	 * a start is reset for every restart in a log, and those are 16 KiB */
	memset(s, 0, offsetof(struct tr_start, lastev));
	s->lastev.text[0] = 0;
	s->lastev.line = 0;
	s->eagain_tail.text[0] = 0;
	s->eagain_tail.line = 0;
	s->nev = 0;
	s->idx = idx;
	s->src = src;
	struct tr_num *nums[] = {&s->ready_s, &s->unattributed_s, &s->covered_s, &s->comp_total_s,
				 &s->comp_alloc_s, &s->comp_copy_s, &s->comp_gib, &s->loaded_gib,
				 &s->loaded_rate, &s->loaded_s, &s->read_s, &s->read_gib, &s->read_rate,
				 &s->huge_needed, &s->huge_pool, &s->arena_gib, &s->vm_window_s,
				 &s->fill_rate, &s->faults_per_s, &s->still_max_s, &s->memlock_bytes,
				 &s->pin_bytes, &s->mem_total_gib, &s->page_reporting, &s->page_reporting_order,
				 &s->pinned_fail_gib, &s->oom_rss_gib, &s->mem_required_gib, &s->mem_available_gib,
				 &s->ckpt_gib, &s->fail_gib, &s->model_gib, &s->gen_load_s, &s->step_s,
				 &s->moved_s, &s->moved_gib, &s->alloc_gib};
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		tr_setnum(nums[i], NAN, -1);
	for (int k = 0; k < TR_K_N; k++)
		tr_setnum(&s->ph_s[k], NAN, -1);
	for (int k = 0; k < TR_VM_N; k++)
		tr_setnum(&s->vm[k], NAN, -1);
	s->thp_req = -1;
	s->ev_begin = s->ev_end = s->ev_thp = s->ev_defrag = s->ev_thp_process = -1;
	s->ev_hugetlb_used = s->ev_eagain_first = s->ev_eagain_last = s->ev_kfd_ok = -1;
	s->ev_verify_fail = s->ev_mlock_fail = s->ev_uring = s->ev_direct = s->ev_swap_text = -1;
	s->ev_arena = s->ev_exit = s->ev_thp_risk = s->ev_refault_risk = -1;
	s->ev_error = s->ev_error2 = s->ev_pinned_fail = s->ev_pageable = s->ev_oom = s->ev_killed = -1;
	s->ev_numa = s->ev_hugetlb_fail = s->ev_gds = s->ev_mem_short = -1;
	s->ev_gen_fail = s->ev_gen_fail_last = s->ev_gen_ready = s->ev_tb = s->ev_tb_load = -1;
	s->mem_short_arena = s->mem_short_avail = NAN;
	s->kfd_ts_first = s->kfd_ts_last = NAN;
	for (int k = 0; k < TR_TS_KINDS; k++)
		s->ts_begin[k] = s->ts_last[k] = s->prog_ts_first[k] = s->prog_ts_last[k] = NAN;
	s->prog_first = s->prog_last = NAN;
}

void tr_progress_at(struct tr_start *s, const struct tr_line *l, double frac)
{
	if (!(frac >= 0 && frac <= 1))
		return;
	if (isnan(s->prog_first)) {
		s->prog_first = frac;
		memcpy(s->prog_ts_first, l->tsk, sizeof(s->prog_ts_first));
	}
	s->prog_last = frac;
	memcpy(s->prog_ts_last, l->tsk, sizeof(s->prog_ts_last));
}

/* Every fact's evidence index, so that a full store can reuse a slot no
 * fact points at (a start with thousands of progress lines keeps the lines
 * its facts came from, not the first 48 lines it saw). */
static int referenced(const struct tr_start *s, int i)
{
	const int evs[] = {s->ev_begin, s->ev_end, s->ev_thp, s->ev_defrag, s->ev_thp_process,
			   s->ev_hugetlb_used, s->ev_eagain_first, s->ev_eagain_last, s->ev_kfd_ok, s->ev_arena,
			   s->ev_exit, s->ev_thp_risk, s->ev_refault_risk, s->ev_verify_fail, s->ev_mlock_fail, s->ev_uring,
			   s->ev_direct, s->ev_swap_text, s->ev_error, s->ev_error2, s->ev_pinned_fail,
			   s->ev_pageable, s->ev_oom, s->ev_killed, s->ev_numa, s->ev_hugetlb_fail, s->ev_gds,
			   s->ev_mem_short, s->ev_gen_fail, s->ev_gen_fail_last, s->ev_gen_ready, s->ev_tb, s->ev_tb_load};
	for (size_t k = 0; k < sizeof(evs) / sizeof(evs[0]); k++)
		if (evs[k] == i)
			return 1;
	const struct tr_num *nums[] = {&s->ready_s, &s->unattributed_s, &s->covered_s, &s->comp_total_s,
				       &s->comp_alloc_s, &s->comp_copy_s, &s->comp_gib, &s->loaded_gib,
				       &s->loaded_rate, &s->loaded_s, &s->read_s, &s->read_gib, &s->read_rate,
				       &s->huge_needed, &s->huge_pool, &s->arena_gib, &s->vm_window_s,
				       &s->fill_rate, &s->faults_per_s, &s->still_max_s, &s->memlock_bytes,
				       &s->pin_bytes, &s->mem_total_gib, &s->page_reporting, &s->page_reporting_order,
				       &s->pinned_fail_gib, &s->oom_rss_gib, &s->mem_required_gib,
				       &s->mem_available_gib, &s->ckpt_gib, &s->fail_gib, &s->model_gib, &s->gen_load_s, &s->step_s,
				       &s->moved_s, &s->moved_gib, &s->alloc_gib};
	for (size_t k = 0; k < sizeof(nums) / sizeof(nums[0]); k++)
		if (nums[k]->ev == i)
			return 1;
	for (int k = 0; k < TR_K_N; k++)
		if (s->ph_s[k].ev == i)
			return 1;
	for (int k = 0; k < TR_VM_N; k++)
		if (s->vm[k].ev == i)
			return 1;
	return 0;
}

int tr_evid(struct tr_start *s, const struct tr_line *l)
{
	for (unsigned i = s->nev; i-- > 0 && i + 4 >= s->nev;)
		if (s->ev[i].line == l->no && s->ev[i].src == l->src)
			return (int)i;
	int slot;
	if (s->nev < TR_START_EVID) {
		slot = (int)s->nev++;
	} else {
		for (slot = 0; slot < TR_START_EVID && referenced(s, slot); slot++)
			;
		if (slot == TR_START_EVID)
			return -1;
	}
	struct tr_evid *e = &s->ev[slot];
	e->line = l->no;
	e->src = l->src;
	/* the line as pasted, where the recognisers read it in other words;
	 * tr_sanitize writes at least a byte per byte: fewer means it cut */
	const char *q = l->quote ? l->quote : l->s;
	size_t qn = l->quote ? l->quote_len : l->len;
	size_t w = tr_sanitize(q, qn, e->text, sizeof(e->text));
	if (w < qn)
		tr_evid_cut(e->text, w, sizeof(e->text));
	return slot;
}

static struct tr_start *new_start(struct lsc_triage *t, const struct tr_line *l)
{
	if (t->nopen == TR_OPEN_MAX)
		tr_close(t, t->open[0]);
	struct tr_start *s = malloc(sizeof(*s));
	if (!s) {
		t->lines_oom++;
		return NULL;
	}
	tr_start_reset(s, 0, l->src);
	s->t = t;
	s->no_model = t->no_model_no && t->no_model_src == l->src;
	memcpy(s->arm, t->arm, sizeof(s->arm));
	for (int k = 0; k < TR_TS_KINDS; k++) {
		s->ts_begin[k] = t->pending_ts[k];
		s->ts_last[k] = isnan(t->pending_last[k]) ? t->pending_ts[k] : t->pending_last[k];
		s->ts_mixed[k] = t->pending_mixed[k];
		s->ts_depth[k] = t->pending_depth[k];
		t->pending_ts[k] = t->pending_last[k] = NAN;
		t->pending_mixed[k] = t->pending_depth[k] = 0;
		/* the clock of the line that opens it is its own; where the
		 * lines before it gave that kind at another prefix depth (an
		 * engine's stamps, a collector's on this line), its span begins
		 * here (triage.c's clock_seen counts the depth on the inner kind) */
		if (isnan(l->tsk[k]))
			continue;
		s->ts_own |= (unsigned char)(1u << k);
		if (k == 1 && l->nclocks && s->ts_depth[k] && l->nclocks != s->ts_depth[k]) {
			s->ts_begin[k] = s->ts_last[k] = l->tsk[k];
			s->ts_depth[k] = l->nclocks;
			s->ts_mixed[k] = 0;
		}
	}
	t->open[t->nopen++] = s;
	t->cur = s;
	return s;
}

struct tr_start *tr_current(struct lsc_triage *t, const struct tr_line *l)
{
	if (t->cur && t->cur->src != l->src)
		tr_close(t, t->cur); /* a new file is a new log */
	if (t->cur)
		return t->cur;
	return new_start(t, l);
}

size_t tr_step_name(const struct tr_line *l)
{
	size_t i = 0;
	while (i < l->len && i < 24 && (tr_isword(l->s[i]) || l->s[i] == '_' || l->s[i] == '.'))
		i++;
	return i > 0 && i < 24 && i + 1 < l->len && l->s[i] == ':' && l->s[i + 1] == ' ' ? i : 0;
}

int tr_step_name_is(const struct tr_line *l, const char *name)
{
	size_t n = tr_step_name(l);
	return n && strlen(name) == n && !memcmp(l->s, name, n);
}

void tr_touch(struct tr_start *s, const struct tr_line *l)
{
	if (!s)
		return;
	if (!s->recognised)
		s->idx = s->t->nstarts++; /* numbered in the order starts begin */
	if (!s->first_line)
		s->first_line = l->no;
	s->last_line = l->no;
	s->recognised++;
	/* the ASGI server's own startup lines (uvicorn, hypercorn: the same
	 * words under every Python server), which say nothing of a model:
	 * server_up.c counts them with the server's address */
	if ((l->len >= 31 && !memcmp(l->s, "Waiting for application startup", 31)) ||
	    (l->len >= 28 && !memcmp(l->s, "Application startup complete", 28)))
		s->napp_startup++;
	s->dots_open = 0;
	/* a later line of the same step (its function's name before ": ",
	 * "load_tensors: skipping 456 tensors") does not say the step ended */
	if (s->began_open && !(s->began_step[0] && tr_step_name_is(l, s->began_step)))
		s->began_open = 0;
	for (int k = 0; k < TR_TS_KINDS; k++)
		if (isnan(s->ts_begin[k]) && !isnan(l->tsk[k])) {
			s->ts_begin[k] = l->tsk[k];
			s->ts_depth[k] = k == 1 ? l->nclocks : 0;
		}
	tr_evid_raw(&s->lastev, l);
}

static void set_family(struct tr_start *s, const char *family)
{
	if (family && !s->family[0])
		snprintf(s->family, sizeof(s->family), "%s", family);
}

/* A launcher that runs the engine as a child (ollama's server and its
 * llama.cpp runner, LocalAI's backends, Jan's cortex): the child's banner,
 * while the launcher's start is still under way, is the same start. */
static int joins_launcher(const struct tr_start *s, const char *family)
{
	static const char *const launchers[] = {"ollama", "localai", "jan"};
	if (!family || !s->family[0] || !strcmp(family, s->family) || s->done || s->final || s->ev_error >= 0 ||
	    s->ev_exit >= 0 || s->ev_oom >= 0 || s->ev_killed >= 0 || s->stage >= TR_ST_READY)
		return 0;
	for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++)
		if (!strcmp(s->family, launchers[i]))
			return 1;
	return 0;
}

/* A start that is only its ready line, the paste's first of it (a
 * server's `Uvicorn running on ...`, nothing of a model before it), which
 * an engine's load now continues: that ready was the frontend's, and the
 * load is the same start's, loading again (recognise_generic.c's
 * load_begun_after_ready, for the lines an engine's shape reads). Not a
 * ready line after anything of the start's own (an engine's loader lines
 * the shared vocabulary does not count as a load: the next load is a
 * start of its own). 1 when @s was such a start, now open. */
static int ready_was_early(struct tr_start *s)
{
	if (!s->done || !s->ready_early || s->ev_gen_ready != 0 || tr_start_failed(s))
		return 0;
	s->done = 0;
	s->ready_early = 0;
	s->ev_gen_ready = -1;
	s->stage = TR_ST_LOADING;
	return 1;
}

struct tr_start *tr_begin(struct lsc_triage *t, const struct tr_line *l, const char *family)
{
	struct tr_start *s = tr_current(t, l);
	if (s && s->stage >= TR_ST_LOADING && !joins_launcher(s, family) && !ready_was_early(s)) {
		if (!s->run[0])
			tr_close(t, s);
		s = new_start(t, l);
	}
	if (!s)
		return NULL;
	set_family(s, family);
	if (s->stage < TR_ST_BEGAN) {
		s->stage = TR_ST_BEGAN;
		s->ev_begin = tr_evid(s, l);
	}
	return s;
}

struct tr_start *tr_fresh_if(struct lsc_triage *t, const struct tr_line *l, int have, const char *family)
{
	struct tr_start *s = tr_current(t, l);
	/* An engine that embeds loadscope prints its own summary next to
	 * loadscope's (seed 000's complement line): same start, not a new one. */
	if (s && s->run[0] && s->stage < TR_ST_READY)
		have = 0;
	if (s && (have || s->stage >= TR_ST_READY) && !(!have && ready_was_early(s))) {
		if (!s->run[0])
			tr_close(t, s);
		s = new_start(t, l);
	}
	if (s)
		set_family(s, family);
	return s;
}

int tr_start_failed(const struct tr_start *s)
{
	return !s->done && (s->ev_error >= 0 || s->ev_gen_fail >= 0 || s->ev_exit >= 0 || s->ev_oom >= 0 ||
			    s->ev_killed >= 0 || s->final);
}

struct tr_start *tr_by_run(struct lsc_triage *t, const struct tr_line *l, const char *run, int create)
{
	for (unsigned i = 0; i < t->nopen; i++)
		if (t->open[i]->run[0] == run[0] && !strcmp(t->open[i]->run, run)) {
			if (create && t->open[i]->stage >= TR_ST_LOADING) {
				/* the same run id began again: a new start */
				tr_close(t, t->open[i]);
				break;
			}
			t->cur = t->open[i];
			return t->open[i];
		}
	struct tr_start *s = t->cur && t->cur->src == l->src ? t->cur : NULL;
	/* An engine that embeds loadscope prints its own lines too: adopt the
	 * engine's start when it has not got far and has no run of its own. */
	if (!(s && !s->run[0] && (s->stage <= TR_ST_BEGAN || !create)))
		s = new_start(t, l);
	if (!s)
		return NULL;
	snprintf(s->run, sizeof(s->run), "%s", run);
	if (!s->family[0])
		snprintf(s->family, sizeof(s->family), "loadscope");
	return s;
}

static void summarise(struct lsc_triage *t, const struct tr_start *s)
{
	if (t->nsums >= TR_FULL_STARTS)
		return;
	if (t->nsums == t->sums_cap) {
		struct tr_startsum *n = tr_grow(t->sums, &t->sums_cap, sizeof(*n));
		if (!n)
			return;
		t->sums = n;
	}
	struct tr_startsum *m = &t->sums[t->nsums++];
	memset(m, 0, sizeof(*m));
	m->idx = s->idx;
	m->src = s->src;
	m->first_line = s->first_line;
	m->last_line = s->last_line;
	snprintf(m->family, sizeof(m->family), "%s", s->family[0] ? s->family : "unknown");
	snprintf(m->run, sizeof(m->run), "%s", s->run);
	m->stage = s->stage;
	m->ready_s = s->ready_s.v;
	for (int k = 0; k < TR_K_N; k++)
		m->ph[k] = s->ph_s[k].v;
	m->nspans = s->nspans;
	memcpy(m->spans, s->spans, sizeof(m->spans));
	m->comp_total_s = s->comp_total_s.v;
	m->comp_alloc_s = s->comp_alloc_s.v;
	m->comp_copy_s = s->comp_copy_s.v;
	m->loaded_gib = s->loaded_gib.v;
	m->loaded_rate = s->loaded_rate.v;
	m->read_s = s->read_s.v;
	for (int k = 0; k < TR_K_N; k++)
		m->ph_gib[k] = s->ph_gib[k];
	m->faults_per_s = s->faults_per_s.v;
	m->fill_rate = s->fill_rate.v;
	for (int k = 0; k < TR_VM_N; k++)
		m->vm[k] = s->vm[k].v;
	m->thp_req = s->thp_req;
	m->hugetlb_used = s->hugetlb_used;
	snprintf(m->thp_defrag, sizeof(m->thp_defrag), "%s", s->thp_defrag);
	snprintf(m->thp_process, sizeof(m->thp_process), "%s", s->thp_process);
	/* Unattributed: what the start itself says, else ready minus what was
	 * measured (the complement includes its own alloc and copy). */
	if (tr_has(&s->unattributed_s)) {
		m->unattributed_s = s->unattributed_s.v;
	} else if (tr_has(&s->ready_s)) {
		double covered = 0;
		int any = 0;
		if (tr_has(&s->comp_total_s)) {
			covered += s->comp_total_s.v;
			any = 1;
		} else {
			for (int k = 0; k < TR_K_N; k++)
				if (tr_has(&s->ph_s[k])) {
					covered += s->ph_s[k].v;
					any = 1;
				}
		}
		if (tr_has(&s->read_s) && !tr_has(&s->ph_s[TR_K_READ])) {
			covered += s->read_s.v;
			any = 1;
		} else if (!any && tr_has(&s->loaded_s) && s->loaded_s.ev != s->ready_s.ev) {
			/* A load time that is also the only ready time (llama.cpp's
			 * "load time = X ms") measures nothing apart: the remainder
			 * is unknown, not 0. */
			covered += s->loaded_s.v;
			any = 1;
		}
		m->unattributed_s = any ? s->ready_s.v - covered : NAN;
		if (m->unattributed_s < 0)
			m->unattributed_s = 0;
	} else {
		m->unattributed_s = NAN;
	}
}

void tr_close(struct lsc_triage *t, struct tr_start *s)
{
	unsigned i;
	for (i = 0; i < t->nopen && t->open[i] != s; i++)
		;
	if (i == t->nopen)
		return;
	memmove(&t->open[i], &t->open[i + 1], (t->nopen - i - 1) * sizeof(t->open[0]));
	t->nopen--;
	if (t->cur == s)
		t->cur = t->nopen ? t->open[t->nopen - 1] : NULL;
	if (s->recognised > 0) {
		summarise(t, s);
		tr_run_rules(t, s);
		tr_table_row(t, s);
		/* what this machine does on a good day, for the next starts' rules */
		double r[] = {s->loaded_rate.v, s->fill_rate.v,
			      tr_has(&s->comp_total_s) && s->comp_total_s.v > 0 ? s->comp_gib.v / s->comp_total_s.v : NAN};
		for (size_t k = 0; k < 3; k++)
			if (!isnan(r[k]) && (isnan(t->ctx.normal_fill_gibps) || r[k] > t->ctx.normal_fill_gibps))
				t->ctx.normal_fill_gibps = r[k];
	}
	free(s);
}

void tr_close_all(struct lsc_triage *t)
{
	while (t->nopen)
		tr_close(t, t->open[0]);
}

void tr_opened_at_load_end(struct tr_start *s, const struct tr_line *l)
{
	if (s->stage > TR_ST_NONE)
		return;
	for (int k = 0; k < TR_TS_KINDS; k++)
		if (!isnan(s->ts_begin[k]) && !(s->ts_begin[k] == l->tsk[k]))
			return; /* an earlier line's clock: the start opened before */
	s->opened_loaded = 1;
}

int tr_clock_span(const struct tr_start *st, const struct tr_line *l, double *v)
{
	for (int k = TR_TS_KINDS; k-- > 0;) {
		/* ... but only a kind the start's own lines carried: the clocks
		 * of the lines before it alone (a server's stamped lines, then
		 * its unstamped `retrying in 10 seconds` waits and ready line)
		 * say when it began at best, not when it was up */
		if (isnan(l->tsk[k]) && !(st->ts_own >> k & 1))
			continue;
		double at = isnan(l->tsk[k]) ? st->ts_last[k] : l->tsk[k];
		if (isnan(at) || isnan(st->ts_begin[k]) || st->ts_mixed[k])
			continue;
		double d = at - st->ts_begin[k];
		if (d < 0)
			d += 86400;
		if (d > 0) {
			*v = d;
			return 1;
		}
		return 0;
	}
	return 0;
}
