/*
 * This project's own lines, human and JSON, every format version: parsed by
 * the library's own parser (lsc__line_parse in src/format/line.c), never by
 * a second copy of the grammar, and the fields a cut or brief line lacks
 * read from its sentence (lsc_sentence.c). This file only maps events and documented
 * field names (docs/log-format.md), as src/format/vocab.h declares them for
 * the writers too, onto a start's facts, and tolerates any field being
 * absent or `n/a`: lines are pasted cut short, and the loader's
 * `complement` and `loaded` fields are still growing.
 */
#include <stdlib.h>
#include <string.h>

#include "format/line.h"
#include "format/vocab.h"
#include "internal.h"
#include "lsc_sentence.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static double num(const struct lsc__parsed *p, const char *key)
{
	double v;
	return lsc__parsed_f64(p, key, &v) == 0 ? v : NAN;
}

static double num2(const struct lsc__parsed *p, const char *a, const char *b)
{
	double v = num(p, a);
	return isnan(v) && b ? num(p, b) : v;
}

static const char *str(const struct lsc__parsed *p, const char *key)
{
	const char *v = lsc__parsed_get(p, key);
	return v && !(v[0] == 'n' && !strcmp(v, "n/a")) ? v : NULL;
}

static void setif(struct tr_num *n, double v, int ev)
{
	if (!isnan(v))
		tr_setnum(n, v, ev);
}

static int kind_of(const char *k)
{
	if (!k)
		return -1;
	if (!strcmp(k, "allocate") || !strcmp(k, "alloc"))
		return TR_K_ALLOC;
	if (!strcmp(k, "pin"))
		return TR_K_PIN;
	if (!strcmp(k, "read"))
		return TR_K_READ;
	if (!strcmp(k, "copy"))
		return TR_K_COPY;
	if (!strcmp(k, "verify"))
		return TR_K_VERIFY;
	return -1;
}

static int failed_word(const char *v)
{
	return v && (strstr(v, "fail") || strstr(v, "mismatch") || strstr(v, "timed out") ||
		     strstr(v, "timeout") || strstr(v, "error"));
}

/* An error's name: `err`, its one key on every line, or `error`, its key on
 * `arena` and `note` lines written before the key change (docs/log-format.md,
 * "Changes"): old logs still read the same. */
static const char *err_of(const struct lsc__parsed *p)
{
	const char *e = str(p, LSC__KEY(ERR));
	return e ? e : str(p, LSC__KEY(ERROR));
}

/* Whether a phase line whose tail is gone still has its whole sentence,
 * which lists every counter that moved: it ends as a phase sentence does
 * ("... 0 major faults", "stalled on memory 0.119 s", "overlapped with
 * other phases", a format-1 "pinned 0 B"), not part way through a name
 * or a number. */
static int sentence_whole(const struct lsc__parsed *p)
{
	static const char *const ends[] = {" faults", " s", " phases", ")", " B", "iB"};
	const char *h = p->human;
	size_t n = h ? strlen(h) : 0;
	if (p->n > 0 && lsc__parsed_get(p, LSC__KEY(RUN)))
		return 0; /* a tail of its own: vm=n/a there is the line's own word */
	for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
		size_t k = strlen(ends[i]);
		if (n >= k && !memcmp(h + n - k, ends[i], k))
			return 1;
	}
	return 0;
}

/* vmstat fields: "vm_<counter>" deltas in phases, "<counter>_per_s" rates in
 * still lines. One pass over the line's fields (a phase line has dozens).
 * A phase line lists only the counters that moved (docs/log-format.md), so
 * with @absent_zero a counter it does not list moved by 0. */
static void vm_fields(struct tr_start *s, const struct lsc__parsed *p, int ev, const char *suffix,
		      int absent_zero)
{
	size_t sl = suffix ? strlen(suffix) : 0;
	double seen[TR_VM_N];
	for (int k = 0; k < TR_VM_N; k++)
		seen[k] = NAN;
	for (unsigned i = 0; i < p->n; i++) {
		const char *key = p->kv[i].key;
		size_t kl;
		if (!suffix) {
			if (strncmp(key, LSC__VM_KEY_PREFIX, sizeof(LSC__VM_KEY_PREFIX) - 1))
				continue;
			key += sizeof(LSC__VM_KEY_PREFIX) - 1;
			kl = strlen(key);
		} else {
			kl = strlen(key);
			if (kl <= sl || strcmp(key + kl - sl, suffix))
				continue;
			kl -= sl;
		}
		for (int k = 0; k < TR_VM_N; k++) {
			if (key[0] != tr_vm_names[k][0]) /* the first byte tells most pairs apart */
				continue;
			size_t nl = strlen(tr_vm_names[k]);
			/* allocstall_normal, allocstall_movable, ... add up */
			int match = kl == nl ? !strncmp(key, tr_vm_names[k], nl)
					     : k == TR_VM_ALLOCSTALL && kl > nl && !strncmp(key, "allocstall_", 11);
			if (!match)
				continue;
			char *endp;
			double v = strtod(p->kv[i].val, &endp);
			if (endp != p->kv[i].val)
				seen[k] = (isnan(seen[k]) ? 0 : seen[k]) + v;
			break;
		}
	}
	for (int k = 0; k < TR_VM_N; k++) {
		if (isnan(seen[k]) && absent_zero)
			seen[k] = 0;
		/* A phase whose counters are not known (vm=n/a: cut off with its
		 * line's tail, or unreadable) leaves every sum over the phases
		 * unknown, never a smaller one: the other phases' lines cannot
		 * stand in for the figure it lost. */
		if (isnan(seen[k]) && !suffix && !absent_zero)
			s->vm_lost[k] = 1;
		if (s->vm_lost[k] && !suffix) {
			s->vm[k].v = NAN;
			continue;
		}
		if (isnan(seen[k]))
			continue;
		double v = seen[k];
		if (tr_has(&s->vm[k]) && !suffix)
			v += s->vm[k].v;
		tr_setnum(&s->vm[k], v, ev);
	}
}

/* "hugetlb unavailable (needed 512 2 MiB pages, pool has 0 free of 0)" */
static void hugetlb_from_text(struct tr_start *s, const char *r, int ev)
{
	if (!r || !strstr(r, "needed"))
		return;
	const char *end = r + strlen(r);
	double v;
	if (!tr_has(&s->huge_needed) && tr_after(r, end, "needed", tr_num, &v))
		tr_setnum(&s->huge_needed, v, ev);
	if (!tr_has(&s->huge_pool) && (tr_after(r, end, "pool has", tr_num, &v) || tr_after(r, end, "nr_hugepages", tr_num, &v)))
		tr_setnum(&s->huge_pool, v, ev);
}

static void on_system(struct tr_start *s, const struct lsc__parsed *p, int ev)
{
	const char *v;
	if ((v = str(p, LSC__KEY(THP_DEFRAG)))) {
		snprintf(s->thp_defrag, sizeof(s->thp_defrag), "%s", v);
		s->ev_defrag = ev;
	}
	if ((v = str(p, LSC__KEY(THP_ENABLED))))
		snprintf(s->thp_enabled, sizeof(s->thp_enabled), "%s", v);
	const char *pr = str(p, LSC__KEY(THP_PRCTL));
	const char *proc = str(p, LSC__KEY(THP_PROCESS));
	/* thp_prctl: allowed, disabled, disabled-except-advised. The last still
	 * gives MADV_HUGEPAGE regions huge pages (and their compaction), so only
	 * a plain "disabled" (or THP_enabled: 0 without the exception) is off. */
	int except = pr && strstr(pr, "except");
	if (!except && ((pr && !strcmp(pr, "disabled")) || (proc && !strcmp(proc, "0")))) {
		snprintf(s->thp_process, sizeof(s->thp_process), "disabled");
		s->ev_thp_process = ev;
	}
	if ((v = str(p, LSC__KEY(MEMLOCK_BYTES))))
		tr_setnum(&s->memlock_bytes, !strcmp(v, "unlimited") ? INFINITY : num(p, LSC__KEY(MEMLOCK_BYTES)), ev);
	if ((v = str(p, LSC__KEY(CAP_IPC_LOCK))) && !strcmp(v, "1"))
		tr_setnum(&s->memlock_bytes, INFINITY, ev); /* CAP_IPC_LOCK lifts RLIMIT_MEMLOCK */
	double mt = num(p, LSC__KEY(MEM_TOTAL_BYTES));
	if (!isnan(mt))
		tr_setnum(&s->mem_total_gib, mt / GIB, ev);
	double ht = num(p, LSC__KEY(HUGETLB_TOTAL));
	if (!isnan(ht) && !tr_has(&s->huge_pool))
		tr_setnum(&s->huge_pool, ht, ev);
	setif(&s->page_reporting, num(p, LSC__KEY(PAGE_REPORTING)), ev);
	setif(&s->page_reporting_order, num(p, LSC__KEY(PAGE_REPORTING_ORDER)), ev);
}

/* The span a phase line closes, at its real time: it ended at t_s after
 * wall_s. Overlapped work (busy time inside the read) has no place of its
 * own; a span named twice (a phase per file) keeps its first place and
 * adds its time. */
static void record_span(struct tr_start *s, const struct lsc__parsed *p)
{
	const char *name = str(p, LSC__KEY(NAME)), *kind = str(p, LSC__KEY(KIND)), *depth = str(p, LSC__KEY(DEPTH));
	double wall = num(p, LSC__KEY(WALL_S)), ts = num(p, "t_s");
	if (!name || !*name || isnan(wall) || isnan(ts) || wall < 0)
		return;
	char label[40];
	snprintf(label, sizeof label, "%s (s)", name);
	for (unsigned i = 0; i < s->nspans; i++)
		if (!strcmp(s->spans[i].label, label)) {
			s->spans[i].dur += wall;
			return;
		}
	if (s->nspans == TR_SPANS_MAX)
		return;
	struct tr_span *sp = &s->spans[s->nspans++];
	snprintf(sp->label, sizeof sp->label, "%s", label);
	snprintf(sp->kind, sizeof sp->kind, "%s", kind ? kind : "custom");
	sp->t0 = ts - wall > 0 ? ts - wall : 0;
	sp->dur = wall;
	sp->depth = depth ? atoi(depth) : 0;
	sp->custom = !kind || !strcmp(kind, "custom");
}

static void on_phase(struct tr_start *s, const struct lsc__parsed *p, int ev)
{
	int k = kind_of(str(p, LSC__KEY(KIND)));
	double wall = num(p, LSC__KEY(WALL_S)), bytes = num(p, LSC__KEY(BYTES));
	if (k >= 0 && !isnan(wall)) {
		tr_setnum(&s->ph_s[k], (tr_has(&s->ph_s[k]) ? s->ph_s[k].v : 0) + wall, ev);
		if (!isnan(bytes))
			s->ph_gib[k] += bytes / GIB;
	}
	if (k == TR_K_ALLOC || k == TR_K_PIN) {
		double g = num(p, LSC__KEY(GIBPS));
		if (isnan(g) && !isnan(bytes) && wall > 0)
			g = bytes / GIB / wall;
		if (!isnan(g) && (!tr_has(&s->fill_rate) || g < s->fill_rate.v) && !isnan(bytes) && bytes > (1 << 30))
			tr_setnum(&s->fill_rate, g, ev);
		setif(&s->faults_per_s, num(p, LSC__KEY(FAULTS_PER_S)), ev);
		if (!isnan(wall) && !tr_has(&s->vm_window_s))
			tr_setnum(&s->vm_window_s, wall, ev);
	}
	const char *nm = str(p, LSC__KEY(NAME));
	if (nm && (strstr(nm, "hip") || strstr(nm, "HIP")))
		s->hip = 1;
	double majflt = num(p, LSC__KEY(MAJFLT));
	if (k == TR_K_READ && !isnan(majflt) && !isnan(bytes) && majflt * 4096.0 >= 0.1 * bytes)
		s->from_device = 1; /* the bytes came in by major faults: from the device */
	if (k == TR_K_READ) {
		setif(&s->read_s, (tr_has(&s->read_s) ? s->read_s.v : 0) + wall, ev);
		if (!isnan(bytes))
			tr_setnum(&s->read_gib, (tr_has(&s->read_gib) ? s->read_gib.v : 0) + bytes / GIB, ev);
		if (tr_has(&s->read_gib) && s->read_s.v > 0)
			tr_setnum(&s->read_rate, s->read_gib.v / s->read_s.v, ev);
	}
	if (k == TR_K_VERIFY && (failed_word(str(p, LSC__KEY(RESULT))) || failed_word(err_of(p)) ||
				 (str(p, LSC__KEY(OK)) && !strcmp(str(p, LSC__KEY(OK)), "0")) || failed_word(p->human)))
		s->ev_verify_fail = ev;
	/* Only top-level phases add up: a nested span's deltas (prefault inside
	 * allocate) are already in its parent's. Overlapped phases carry none. */
	const char *depth = str(p, LSC__KEY(DEPTH)), *vm = lsc__parsed_get(p, LSC__KEY(VM)) /* str() hides n/a */, *ov = str(p, LSC__KEY(OVERLAPPED));
	if (!(ov && !strcmp(ov, "1")))
		record_span(s, p);
	if ((!depth || !strcmp(depth, "0")) && !(ov && !strcmp(ov, "1")))
		vm_fields(s, p, ev, NULL, !(vm && !strcmp(vm, "n/a")) || (p->damaged == 0 && sentence_whole(p)));
	tr_stage_raise(s, TR_ST_LOADING);
}

static void on_still(struct tr_start *s, const struct lsc__parsed *p, int ev)
{
	s->still_n++;
	double e = num(p, LSC__KEY(ELAPSED_S));
	if (!isnan(e) && (!tr_has(&s->still_max_s) || e > s->still_max_s.v))
		tr_setnum(&s->still_max_s, e, ev);
	double g = num(p, LSC__KEY(GIBPS));
	double done = num(p, LSC__KEY(DONE_BYTES));
	if (!isnan(g) && !isnan(done) && done > (1 << 30) && (!tr_has(&s->fill_rate) || g < s->fill_rate.v))
		tr_setnum(&s->fill_rate, g, ev);
	setif(&s->faults_per_s, num(p, LSC__KEY(FAULTS_PER_S)), ev);
	/* rates per second: only when no phase gave counts */
	if (!tr_has(&s->vm[TR_VM_COMPACT_STALL])) {
		vm_fields(s, p, ev, LSC__VM_RATE_SUFFIX, 0);
		tr_setnum(&s->vm_window_s, 1.0, ev);
	}
	tr_stage_raise(s, TR_ST_LOADING);
}

static void on_fallback(struct tr_start *s, const struct lsc__parsed *p, int ev)
{
	const char *what = str(p, LSC__KEY(WHAT)), *wanted = str(p, LSC__KEY(WANTED)), *reason = str(p, LSC__KEY(REASON));
	if (!what)
		return;
	if (!strcmp(what, "reader") && wanted && strstr(wanted, "uring"))
		s->ev_uring = ev;
	else if (!strcmp(what, "direct") || (wanted && strstr(wanted, "direct")))
		s->ev_direct = ev;
	else if (!strcmp(what, "pin") && reason &&
		 (strstr(reason, "memlock") || strstr(reason, "EPERM") || strstr(reason, "ENOMEM") ||
		  strstr(reason, "RLIMIT")))
		s->ev_mlock_fail = ev;
	else if (!strcmp(what, "arena") && wanted && strstr(wanted, "hugetlb")) {
		setif(&s->huge_needed, num2(p, LSC__KEY(PAGES_NEEDED), LSC__KEY(NEEDED_PAGES)), ev);
		setif(&s->huge_pool, num2(p, LSC__KEY(HUGETLB_FREE), LSC__KEY(NR_HUGEPAGES)), ev);
		hugetlb_from_text(s, reason, ev);
		s->hugetlb_asked = 1; /* loadscope only tries hugetlb when asked or when auto chose it */
	}
}

static void on_arena(struct tr_start *s, const struct lsc__parsed *p, int ev)
{
	const char *pol = str(p, LSC__KEY(POLICY)), *req = str(p, LSC__KEY(REQUESTED));
	const char *took = str(p, LSC__KEY(TOOK));
	const char *v = pol ? pol : req;
	/* THP off first: "nothp" and the policy "process-off" (THP off for
	 * the process) hold no request, though "nothp" holds "thp" */
	if (v && (strstr(v, "4k") || strstr(v, "none") || strstr(v, "nothp") || strstr(v, "process-off"))) {
		s->thp_req = 0;
		s->ev_thp = ev;
	} else if (v && (strstr(v, "thp") || strstr(v, "madvise"))) {
		s->thp_req = 1;
		s->ev_thp = ev;
	} else if (v && (strstr(v, "hugetlb"))) {
		if (!took || strstr(took, "hugetlb")) {
			s->hugetlb_used = 1;
			s->ev_hugetlb_used = ev;
		}
	}
	setif(&s->huge_needed, num2(p, LSC__KEY(PAGES_NEEDED), LSC__KEY(NEEDED_PAGES)), ev);
	setif(&s->huge_pool, num2(p, LSC__KEY(HUGETLB_FREE), LSC__KEY(NR_HUGEPAGES)), ev);
	hugetlb_from_text(s, str(p, LSC__KEY(REASON)), ev);
	const char *src = str(p, LSC__KEY(SOURCE));
	if (req && strstr(req, "hugetlb") && src && strcmp(src, "auto") && strcmp(src, "default"))
		s->hugetlb_asked = 1; /* an explicit request that was not met */
	double b = num2(p, LSC__KEY(BYTES), LSC__KEY(ARENA_BYTES));
	if (!isnan(b))
		tr_setnum(&s->arena_gib, b / GIB, ev);
	tr_stage_raise(s, TR_ST_LOADING);
}

static void on_complement(struct tr_start *s, const struct lsc__parsed *p, int ev)
{
	setif(&s->comp_total_s, num2(p, LSC__KEY(WALL_S), LSC__KEY(TOTAL_S)), ev);
	setif(&s->comp_alloc_s, num2(p, LSC__KEY(ALLOC_S), LSC__KEY(ALLOCATE_S)), ev);
	setif(&s->comp_copy_s, num(p, LSC__KEY(COPY_S)), ev);
	double b = num2(p, LSC__KEY(BYTES), LSC__KEY(RESIDENT_BYTES));
	if (isnan(b))
		b = num(p, LSC__KEY(PINNED_BYTES));
	if (!isnan(b))
		tr_setnum(&s->comp_gib, b / GIB, ev);
	const char *pin = str(p, LSC__KEY(PIN));
	if (pin && !strcmp(pin, "hip"))
		s->hip = 1;
	hugetlb_from_text(s, str(p, LSC__KEY(THP_REASON)), ev);
	tr_stage_raise(s, TR_ST_LOADED);
}

static void on_loaded(struct tr_start *s, const struct lsc__parsed *p, int ev)
{
	double b = num(p, LSC__KEY(BYTES));
	if (!isnan(b))
		tr_setnum(&s->loaded_gib, b / GIB, ev);
	setif(&s->loaded_s, num(p, LSC__KEY(WALL_S)), ev);
	double g = num(p, LSC__KEY(GIBPS));
	s->loaded_rate_stated |= !isnan(g);
	if (isnan(g) && !isnan(b) && tr_has(&s->loaded_s) && s->loaded_s.v > 0)
		g = b / GIB / s->loaded_s.v;
	setif(&s->loaded_rate, g, ev);
	const char *vr = str(p, LSC__KEY(VERIFY));
	if (failed_word(vr))
		s->ev_verify_fail = ev;
	const char *dio = str(p, LSC__KEY(DIRECT));
	if (dio && !strcmp(dio, "1"))
		s->from_device = 1; /* O_DIRECT reads come from the device */
	if (!tr_has(&s->read_s)) {
		setif(&s->read_s, num(p, LSC__KEY(READ_S)), ev);
		double rg = num(p, LSC__KEY(READ_GIBPS));
		if (!isnan(rg))
			tr_setnum(&s->read_rate, rg, ev);
	}
	tr_stage_raise(s, TR_ST_LOADED);
}

/* The events whose fields a handler of their own reads; the rest are
 * read in tr_recognise_lsc. */
static void (*const handlers[LSC__EV_COUNT])(struct tr_start *, const struct lsc__parsed *, int) = {
	[LSC__EV_SYSTEM] = on_system,     [LSC__EV_PHASE] = on_phase,   [LSC__EV_STILL] = on_still,
	[LSC__EV_FALLBACK] = on_fallback, [LSC__EV_ARENA] = on_arena,   [LSC__EV_COMPLEMENT] = on_complement,
	[LSC__EV_LOADED] = on_loaded,
};

int tr_recognise_lsc(struct lsc_triage *t, struct tr_line *l)
{
	if (tr_engine_off(t, "loadscope"))
		return 0;
	/* TR_G_LSC: the prefilter found one of these already */
	if (!(l->kw & TR_G_LSC) && !tr_find(l, LSC__TAG) && !tr_find(l, "\"loadscope\""))
		return 0;
	/* the parser works in place; evidence must quote the line as it was */
	memcpy(t->scratch, l->s, l->len);
	t->scratch[l->len] = 0;
	struct lsc__parsed p;
	int r = lsc__line_parse(t->scratch, l->len, &p);
	if (r <= 0 || !p.event)
		return 0;
	const char *run = str(&p, LSC__KEY(RUN));
	/* a run id is 8 hex digits: a shorter one is a line cut inside it */
	if (run && strlen(run) != 8)
		run = NULL;
	int ev = lsc__event_of(p.event);
	/* the sentence gives every figure a cut (or brief) line's tail lacks */
	char said[1024];
	tr_lsc_sentence(&p, ev, said, sizeof said);
	struct tr_start *s;
	if (run)
		s = tr_by_run(t, l, run, ev == LSC__EV_START);
	else if (ev == LSC__EV_START)
		s = tr_begin(t, l, "loadscope");
	else
		s = tr_current(t, l);
	if (!s)
		return 0;
	int e = tr_evid(s, l);
	tr_touch(s, l);
	if (ev >= 0 && ev < LSC__EV_COUNT && handlers[ev]) {
		handlers[ev](s, &p, e);
	} else if (ev == LSC__EV_START) {
		tr_stage_raise(s, TR_ST_BEGAN);
		s->ev_begin = e;
	} else if (ev == LSC__EV_READY) {
		setif(&s->ready_s, num(&p, LSC__KEY(WALL_S)), e);
		setif(&s->unattributed_s, num(&p, LSC__KEY(UNATTRIBUTED_S)), e);
		setif(&s->covered_s, num(&p, LSC__KEY(COVERED_S)), e);
		tr_stage_raise(s, TR_ST_READY);
		s->ev_end = e;
	} else if (ev == LSC__EV_REGION) {
		double hb = num(&p, LSC__KEY(HUGETLB_BYTES));
		if (!isnan(hb) && hb > 0) {
			s->hugetlb_used = 1;
			s->ev_hugetlb_used = e;
		}
	} else if (ev == LSC__EV_WARN) {
		/* loadscope probe's predictions, by their id */
		int id = lsc__probe_id_of(str(&p, LSC__KEY(ID)));
		if (id == LSC__ID_THP_STALL_RISK || id == LSC__ID_MEM_SHORT || id == LSC__ID_HOST_REFAULT)
			s->probe = 1;
		if (id == LSC__ID_THP_STALL_RISK)
			s->ev_thp_risk = e;
		if (id == LSC__ID_MEM_SHORT) {
			s->ev_mem_short = e;
			s->mem_short_arena = num(&p, LSC__KEY(ARENA_BYTES));
			s->mem_short_avail = num(&p, "mem_available_bytes");
		}
		if (id == LSC__ID_HOST_REFAULT) {
			s->ev_refault_risk = e;
			if (!tr_has(&s->page_reporting)) { /* the system line was cut off the paste */
				setif(&s->page_reporting, num(&p, LSC__KEY(PAGE_REPORTING)), e);
				setif(&s->page_reporting_order, num(&p, LSC__KEY(PAGE_REPORTING_ORDER)), e);
			}
		}
	} else if (ev == LSC__EV_ERROR) {
		/* the load stopped with an error: the start ended (not truncated) */
		const char *what = str(&p, LSC__KEY(WHAT));
		/* a line cut before its fields still names its step in words */
		if ((what && strstr(what, "verify")) || (!what && p.human && !strncmp(p.human, "verify", 6)))
			s->ev_verify_fail = e;
		else if (s->ev_error < 0 && !s->done)
			s->ev_error = e; /* load-failed */
		s->ev_exit = e;
		if (s->stage < TR_ST_READY) {
			s->stage = TR_ST_READY;
			s->ev_end = e;
		}
	} else if (ev == LSC__EV_OK) {
		s->done = 1; /* a probe's verdict: the probe completed */
		s->probe = 1;
	} else if (ev == LSC__EV_NOTE) {
		const char *topic = str(&p, LSC__KEY(TOPIC)), *text = str(&p, LSC__KEY(TEXT));
		if (topic && strstr(topic, "verify") && (failed_word(text) || failed_word(p.human)))
			s->ev_verify_fail = e;
	}
	return 1;
}
