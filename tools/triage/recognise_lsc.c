/*
 * This project's own lines, human and JSON, every format version: parsed by
 * the library's own parser (lsc__line_parse in src/format/line.c), never by
 * a second copy of the grammar. This file only maps events and documented
 * field names (docs/log-format.md) onto a start's facts, and tolerates any
 * field being absent or `n/a`: lines are pasted cut short, and the loader's
 * `complement` and `loaded` fields are still growing.
 */
#include <stdlib.h>
#include <string.h>

#include "format/line.h"
#include "internal.h"

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
	return v && strcmp(v, "n/a") ? v : NULL;
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
		size_t kl = strlen(key);
		if (!suffix) {
			if (strncmp(key, "vm_", 3))
				continue;
			key += 3;
			kl -= 3;
		} else {
			if (kl <= sl || strcmp(key + kl - sl, suffix))
				continue;
			kl -= sl;
		}
		for (int k = 0; k < TR_VM_N; k++) {
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
	if ((v = str(p, "thp_defrag"))) {
		snprintf(s->thp_defrag, sizeof(s->thp_defrag), "%s", v);
		s->ev_defrag = ev;
	}
	if ((v = str(p, "thp_enabled")))
		snprintf(s->thp_enabled, sizeof(s->thp_enabled), "%s", v);
	const char *pr = str(p, "thp_prctl");
	const char *proc = str(p, "thp_process");
	/* thp_prctl: allowed, disabled, disabled-except-advised. The last still
	 * gives MADV_HUGEPAGE regions huge pages (and their compaction), so only
	 * a plain "disabled" (or THP_enabled: 0 without the exception) is off. */
	int except = pr && strstr(pr, "except");
	if (!except && ((pr && !strcmp(pr, "disabled")) || (proc && !strcmp(proc, "0")))) {
		snprintf(s->thp_process, sizeof(s->thp_process), "disabled");
		s->ev_thp_process = ev;
	}
	if ((v = str(p, "memlock_bytes")))
		tr_setnum(&s->memlock_bytes, !strcmp(v, "unlimited") ? INFINITY : num(p, "memlock_bytes"), ev);
	if ((v = str(p, "cap_ipc_lock")) && !strcmp(v, "1"))
		tr_setnum(&s->memlock_bytes, INFINITY, ev); /* CAP_IPC_LOCK lifts RLIMIT_MEMLOCK */
	double mt = num(p, "mem_total_bytes");
	if (!isnan(mt))
		tr_setnum(&s->mem_total_gib, mt / GIB, ev);
	double ht = num(p, "hugetlb_total");
	if (!isnan(ht) && !tr_has(&s->huge_pool))
		tr_setnum(&s->huge_pool, ht, ev);
	setif(&s->page_reporting, num(p, "page_reporting"), ev);
	setif(&s->page_reporting_order, num(p, "page_reporting_order"), ev);
}

static void on_phase(struct tr_start *s, const struct lsc__parsed *p, int ev)
{
	int k = kind_of(str(p, "kind"));
	double wall = num(p, "wall_s"), bytes = num(p, "bytes");
	if (k >= 0 && !isnan(wall)) {
		tr_setnum(&s->ph_s[k], (tr_has(&s->ph_s[k]) ? s->ph_s[k].v : 0) + wall, ev);
		if (!isnan(bytes))
			s->ph_gib[k] += bytes / GIB;
	}
	if (k == TR_K_ALLOC || k == TR_K_PIN) {
		double g = num(p, "gibps");
		if (isnan(g) && !isnan(bytes) && wall > 0)
			g = bytes / GIB / wall;
		if (!isnan(g) && (!tr_has(&s->fill_rate) || g < s->fill_rate.v) && !isnan(bytes) && bytes > (1 << 30))
			tr_setnum(&s->fill_rate, g, ev);
		setif(&s->faults_per_s, num(p, "faults_per_s"), ev);
		if (!isnan(wall) && !tr_has(&s->vm_window_s))
			tr_setnum(&s->vm_window_s, wall, ev);
	}
	const char *nm = str(p, "name");
	if (nm && (strstr(nm, "hip") || strstr(nm, "HIP")))
		s->hip = 1;
	double majflt = num(p, "majflt");
	if (k == TR_K_READ && !isnan(majflt) && !isnan(bytes) && majflt * 4096.0 >= 0.1 * bytes)
		s->from_device = 1; /* the bytes came in by major faults: from the device */
	if (k == TR_K_READ) {
		setif(&s->read_s, (tr_has(&s->read_s) ? s->read_s.v : 0) + wall, ev);
		if (!isnan(bytes))
			tr_setnum(&s->read_gib, (tr_has(&s->read_gib) ? s->read_gib.v : 0) + bytes / GIB, ev);
		if (tr_has(&s->read_gib) && s->read_s.v > 0)
			tr_setnum(&s->read_rate, s->read_gib.v / s->read_s.v, ev);
	}
	if (k == TR_K_VERIFY && (failed_word(str(p, "result")) || failed_word(str(p, "error")) ||
				 (str(p, "ok") && !strcmp(str(p, "ok"), "0")) || failed_word(p->human)))
		s->ev_verify_fail = ev;
	/* Only top-level phases add up: a nested span's deltas (prefault inside
	 * allocate) are already in its parent's. Overlapped phases carry none. */
	const char *depth = str(p, "depth"), *vm = str(p, "vm"), *ov = str(p, "overlapped");
	if ((!depth || !strcmp(depth, "0")) && !(ov && !strcmp(ov, "1")))
		vm_fields(s, p, ev, NULL, !(vm && !strcmp(vm, "n/a")));
	tr_stage_raise(s, TR_ST_LOADING);
}

static void on_still(struct tr_start *s, const struct lsc__parsed *p, int ev)
{
	s->still_n++;
	double e = num(p, "elapsed_s");
	if (!isnan(e) && (!tr_has(&s->still_max_s) || e > s->still_max_s.v))
		tr_setnum(&s->still_max_s, e, ev);
	double g = num(p, "gibps");
	double done = num(p, "done_bytes");
	if (!isnan(g) && !isnan(done) && done > (1 << 30) && (!tr_has(&s->fill_rate) || g < s->fill_rate.v))
		tr_setnum(&s->fill_rate, g, ev);
	setif(&s->faults_per_s, num(p, "faults_per_s"), ev);
	/* rates per second: only when no phase gave counts */
	if (!tr_has(&s->vm[TR_VM_COMPACT_STALL])) {
		vm_fields(s, p, ev, "_per_s", 0);
		tr_setnum(&s->vm_window_s, 1.0, ev);
	}
	tr_stage_raise(s, TR_ST_LOADING);
}

static void on_fallback(struct tr_start *s, const struct lsc__parsed *p, int ev)
{
	const char *what = str(p, "what"), *wanted = str(p, "wanted"), *reason = str(p, "reason");
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
		setif(&s->huge_needed, num2(p, "pages_needed", "needed_pages"), ev);
		setif(&s->huge_pool, num2(p, "hugetlb_free", "nr_hugepages"), ev);
		hugetlb_from_text(s, reason, ev);
		s->hugetlb_asked = 1; /* loadscope only tries hugetlb when asked or when auto chose it */
	}
}

static void on_arena(struct tr_start *s, const struct lsc__parsed *p, int ev)
{
	const char *pol = str(p, "policy"), *req = str(p, "requested");
	const char *took = str(p, "took");
	const char *v = pol ? pol : req;
	if (v && (strstr(v, "thp") || strstr(v, "madvise"))) {
		s->thp_req = 1;
		s->ev_thp = ev;
	} else if (v && (strstr(v, "hugetlb"))) {
		if (!took || strstr(took, "hugetlb")) {
			s->hugetlb_used = 1;
			s->ev_hugetlb_used = ev;
		}
	} else if (v && (strstr(v, "4k") || strstr(v, "none") || strstr(v, "nothp"))) {
		s->thp_req = 0;
		s->ev_thp = ev;
	}
	setif(&s->huge_needed, num2(p, "pages_needed", "needed_pages"), ev);
	setif(&s->huge_pool, num2(p, "hugetlb_free", "nr_hugepages"), ev);
	hugetlb_from_text(s, str(p, "reason"), ev);
	const char *src = str(p, "source");
	if (req && strstr(req, "hugetlb") && src && strcmp(src, "auto") && strcmp(src, "default"))
		s->hugetlb_asked = 1; /* an explicit request that was not met */
	double b = num2(p, "bytes", "arena_bytes");
	if (!isnan(b))
		tr_setnum(&s->arena_gib, b / GIB, ev);
	tr_stage_raise(s, TR_ST_LOADING);
}

static void on_complement(struct tr_start *s, const struct lsc__parsed *p, int ev)
{
	setif(&s->comp_total_s, num2(p, "wall_s", "total_s"), ev);
	setif(&s->comp_alloc_s, num2(p, "alloc_s", "allocate_s"), ev);
	setif(&s->comp_copy_s, num(p, "copy_s"), ev);
	double b = num2(p, "bytes", "resident_bytes");
	if (isnan(b))
		b = num(p, "pinned_bytes");
	if (!isnan(b))
		tr_setnum(&s->comp_gib, b / GIB, ev);
	const char *pin = str(p, "pin");
	if (pin && !strcmp(pin, "hip"))
		s->hip = 1;
	hugetlb_from_text(s, str(p, "thp_reason"), ev);
	tr_stage_raise(s, TR_ST_LOADED);
}

static void on_loaded(struct tr_start *s, const struct lsc__parsed *p, int ev)
{
	double b = num(p, "bytes");
	if (!isnan(b))
		tr_setnum(&s->loaded_gib, b / GIB, ev);
	setif(&s->loaded_s, num(p, "wall_s"), ev);
	double g = num(p, "gibps");
	if (isnan(g) && !isnan(b) && tr_has(&s->loaded_s) && s->loaded_s.v > 0)
		g = b / GIB / s->loaded_s.v;
	setif(&s->loaded_rate, g, ev);
	const char *vr = str(p, "verify");
	if (failed_word(vr))
		s->ev_verify_fail = ev;
	const char *dio = str(p, "direct");
	if (dio && !strcmp(dio, "1"))
		s->from_device = 1; /* O_DIRECT reads come from the device */
	if (!tr_has(&s->read_s)) {
		setif(&s->read_s, num(p, "read_s"), ev);
		double rg = num(p, "read_gibps");
		if (!isnan(rg))
			tr_setnum(&s->read_rate, rg, ev);
	}
	tr_stage_raise(s, TR_ST_LOADED);
}

int tr_recognise_lsc(struct lsc_triage *t, struct tr_line *l)
{
	if (!tr_memmem(l->s, l->len, LSC__TAG) && !tr_memmem(l->s, l->len, "\"loadscope\""))
		return 0;
	/* the parser works in place; evidence must quote the line as it was */
	memcpy(t->scratch, l->s, l->len);
	t->scratch[l->len] = 0;
	struct lsc__parsed p;
	int r = lsc__line_parse(t->scratch, l->len, &p);
	if (r <= 0 || !p.event)
		return 0;
	const char *run = str(&p, "run");
	const char *ev = p.event;
	struct tr_start *s;
	if (run)
		s = tr_by_run(t, l, run, !strcmp(ev, "start"));
	else if (!strcmp(ev, "start"))
		s = tr_begin(t, l, "loadscope");
	else
		s = tr_current(t, l);
	if (!s)
		return 0;
	int e = tr_evid(s, l);
	tr_touch(s, l);
	if (!strcmp(ev, "start")) {
		tr_stage_raise(s, TR_ST_BEGAN);
		s->ev_begin = e;
	} else if (!strcmp(ev, "system")) {
		on_system(s, &p, e);
	} else if (!strcmp(ev, "phase")) {
		on_phase(s, &p, e);
	} else if (!strcmp(ev, "still")) {
		on_still(s, &p, e);
	} else if (!strcmp(ev, "ready")) {
		setif(&s->ready_s, num(&p, "wall_s"), e);
		setif(&s->unattributed_s, num(&p, "unattributed_s"), e);
		setif(&s->covered_s, num(&p, "covered_s"), e);
		tr_stage_raise(s, TR_ST_READY);
		s->ev_end = e;
	} else if (!strcmp(ev, "fallback")) {
		on_fallback(s, &p, e);
	} else if (!strcmp(ev, "arena")) {
		on_arena(s, &p, e);
	} else if (!strcmp(ev, "complement")) {
		on_complement(s, &p, e);
	} else if (!strcmp(ev, "loaded")) {
		on_loaded(s, &p, e);
	} else if (!strcmp(ev, "region")) {
		double hb = num(&p, "hugetlb_bytes");
		if (!isnan(hb) && hb > 0) {
			s->hugetlb_used = 1;
			s->ev_hugetlb_used = e;
		}
	} else if (!strcmp(ev, "warn")) {
		/* loadscope probe's predictions, by their id */
		const char *id = str(&p, "id");
		if (id && strstr(id, "thp") && (strstr(id, "stall") || strstr(id, "compact")))
			s->ev_thp_risk = e;
		if (id && !strcmp(id, "host-refault")) {
			s->ev_refault_risk = e;
			if (!tr_has(&s->page_reporting)) { /* the system line was cut off the paste */
				setif(&s->page_reporting, num(&p, "page_reporting"), e);
				setif(&s->page_reporting_order, num(&p, "page_reporting_order"), e);
			}
		}
	} else if (!strcmp(ev, "error")) {
		/* the load stopped with an error: the start ended (not truncated) */
		const char *what = str(&p, "what");
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
	} else if (!strcmp(ev, "ok")) {
		s->done = 1; /* a probe's verdict: the probe completed */
	} else if (!strcmp(ev, "note")) {
		const char *topic = str(&p, "topic"), *text = str(&p, "text");
		if (topic && strstr(topic, "verify") && (failed_word(text) || failed_word(p.human)))
			s->ev_verify_fail = e;
	}
	return 1;
}
