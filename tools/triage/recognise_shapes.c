/*
 * Applies the declared engine shapes (shapes.c) to the start a line belongs
 * to: the event a shape yields becomes a fact of the start (an engine error,
 * a refused pinned allocation, an OOM kill, NUMA balancing on, a ready
 * line), with its figure read by its shape. A figure that is not a sane
 * number (negative, NaN, 1e308, an overflow) is dropped and the fact kept:
 * the finding then comes without the figure, never with a wrong one.
 *
 * Settings pasted as people paste them have their value on the next line
 * (`cat /proc/sys/kernel/numa_balancing`, then `1`): the `cat` line leaves
 * a pending setting that tr_recognise_setting_value reads off the next line,
 * whatever it holds (a bare value has no keyword for the prefilter).
 */
#include <ctype.h>
#include <string.h>

#include "internal.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

enum { SET_NONE, SET_NUMA, SET_THP_ENABLED, SET_THP_DEFRAG, SET_NR_HUGEPAGES, SET_ULIMIT_L };

/* A size or count a log may carry, or NAN: nothing beyond a petabyte, no
 * negative, no infinity. */
static double sane(double v, double max)
{
	return isfinite(v) && v >= 0 && v <= max ? v : NAN;
}

/* The first figure after @after (else the first in the line) with its size
 * unit, in GiB; NAN when the figure is not a sane size. A number glued to a
 * sign or a letter ("-5 MiB", "1e308 MiB") is not read from its middle. */
static double size_after(const char *s, const char *end, const char *after)
{
	const char *p = s;
	if (after) {
		const char *k = tr_memmem(s, (size_t)(end - s), after);
		if (!k)
			return NAN;
		p = k + strlen(after);
	}
	while (p < end && !tr_digit(*p))
		p++;
	if (p >= end || (p > s && (tr_isword(p[-1]) || p[-1] == '-' || p[-1] == '.')))
		return NAN;
	double g;
	const char *q = p;
	if (!tr_size_gib(&q, end, &g))
		return NAN;
	return sane(g, 1024.0 * 1024.0);
}

/* Does @h echo a failure already reported (the last word again, a
 * traceback, a kill) rather than begin anything? */
static int echo(const struct tr_shape *h)
{
	return (h->ev == TR_EV_LOAD_FAIL && (h->fields & (TR_FLD_FINAL | TR_FLD_LOADING))) || h->ev == TR_EV_OOM_KILL ||
	       h->ev == TR_EV_KILL;
}

/* A bare byte count after @after ("of size 124650209312", or with spaced
 * thousands as some locales print it: "108 000 000 000"), in GiB; NAN when
 * it is not a whole, sane number ending there. */
static double bytes_after(const char *s, const char *end, const char *after)
{
	const char *k = after ? tr_memmem(s, (size_t)(end - s), after) : NULL;
	if (!k)
		return NAN;
	const char *p = tr_skip_ws(k + strlen(after), end);
	if (p >= end || !tr_digit(*p))
		return NAN;
	double v = 0;
	int digits = 0;
	while (p < end) {
		if (tr_digit(*p)) {
			v = v * 10 + (*p++ - '0');
			digits++;
		} else if ((*p == ' ' || *p == ',' || *p == '\'' || *p == '.') && digits && p + 3 < end + 0 &&
			   tr_digit(p[1]) && tr_digit(p[2]) && tr_digit(p[3]) &&
			   (p + 4 >= end || !tr_digit(p[4]))) {
			p++; /* a group of three */
		} else {
			break;
		}
	}
	if (p < end && (tr_isword(*p) || *p == '.'))
		return NAN;
	return sane(v / GIB, 1024.0 * 1024.0);
}

/* The number after @w and a separator ("progress 0.42", "progress=0.42"); -1 none. */
static double num_after_word(const char *s, const char *end, const char *w)
{
	const char *k = tr_memmem(s, (size_t)(end - s), w);
	if (!k)
		return -1;
	const char *p = k + strlen(w);
	while (p < end && (*p == ' ' || *p == '=' || *p == ':'))
		p++;
	double v;
	return p < end && tr_digit(*p) && tr_num(&p, end, &v) ? v : -1;
}

static struct tr_start *use_h(struct lsc_triage *t, struct tr_line *l, int *e, const char *family,
			      const struct tr_shape *h)
{
	struct tr_start *s = tr_current(t, l);
	/* after the engine's last word on a failed start, a line that is not
	 * an echo of the failure belongs to a new start (a retry) */
	if (s && s->final && !(h && echo(h)))
		s = tr_fresh_if(t, l, 1, family);
	if (!s)
		return NULL;
	*e = tr_evid(s, l);
	tr_touch(s, l);
	if (family && !s->family[0])
		snprintf(s->family, sizeof(s->family), "%s", family);
	return s;
}


/* A start ended before it completed: an error, a kill, a timeout. A start
 * that already completed keeps its verdict (a traceback after ready is not
 * a failed load). Return 0 when it had completed. */
static int ended(struct tr_start *st, int e)
{
	if (st->done)
		return 0;
	if (st->stage < TR_ST_READY) {
		st->stage = TR_ST_READY;
		st->ev_end = e;
	}
	return 1;
}

static int pending_kind(const char *s, size_t n)
{
	if (tr_memmem(s, n, "numa_balancing"))
		return SET_NUMA;
	if (tr_memmem(s, n, "transparent_hugepage/enabled"))
		return SET_THP_ENABLED;
	if (tr_memmem(s, n, "transparent_hugepage/defrag"))
		return SET_THP_DEFRAG;
	if (tr_memmem(s, n, "nr_hugepages"))
		return SET_NR_HUGEPAGES;
	if (tr_memmem(s, n, "ulimit -l"))
		return SET_ULIMIT_L;
	return SET_NONE;
}

/* The bracketed mode of a THP sysfs file as cat prints it ("always [madvise] never") */
static int bracketed(const char *s, const char *end, char *out, size_t cap)
{
	const char *b = memchr(s, '[', (size_t)(end - s));
	if (!b)
		return 0;
	size_t n = 0;
	while (b + 1 + n < end && (isalpha((unsigned char)b[1 + n]) || b[1 + n] == '+') && n + 1 < cap)
		n++;
	if (!n || b + 1 + n >= end || b[1 + n] != ']')
		return 0;
	memcpy(out, b + 1, n);
	out[n] = 0;
	return 1;
}

/* Apply setting @kind with its value at @p to the current start. */
static int setting(struct lsc_triage *t, struct tr_line *l, int kind, const char *p)
{
	const char *end = l->s + l->len;
	p = tr_skip_ws(p, end);
	double v = NAN;
	const char *q = p;
	int isnum = tr_num(&q, end, &v) && tr_skip_ws(q, end) == end;
	int e;
	struct tr_start *st;
	char w[24];
	switch (kind) {
	case SET_NUMA:
		if (!isnum)
			return 0;
		if (!(st = use_h(t, l, &e, NULL, NULL)))
			return 0;
		st->nsettings++;
		if (v > 0 && st->ev_numa < 0)
			st->ev_numa = e;
		return 1;
	case SET_NR_HUGEPAGES:
		if (!isnum || isnan(sane(v, 1e12)))
			return 0;
		if (!(st = use_h(t, l, &e, NULL, NULL)))
			return 0;
		st->nsettings++;
		if (!tr_has(&st->huge_pool))
			tr_setnum(&st->huge_pool, v, e);
		return 1;
	case SET_THP_ENABLED:
	case SET_THP_DEFRAG:
		if (!bracketed(p, end, w, sizeof(w)))
			return 0;
		if (!(st = use_h(t, l, &e, NULL, NULL)))
			return 0;
		st->nsettings++;
		if (kind == SET_THP_ENABLED) {
			size_t n = strnlen(w, sizeof(st->thp_enabled) - 1);
			memcpy(st->thp_enabled, w, n);
			st->thp_enabled[n] = 0;
		} else {
			snprintf(st->thp_defrag, sizeof(st->thp_defrag), "%s", w);
			st->ev_defrag = e;
		}
		return 1;
	case SET_ULIMIT_L:
		if (!(st = use_h(t, l, &e, NULL, NULL)))
			return 0;
		st->nsettings++;
		if (tr_memmem(p, (size_t)(end - p), "unlimited"))
			tr_setnum(&st->memlock_bytes, INFINITY, e);
		else if (isnum && !isnan(sane(v, 1e15)))
			tr_setnum(&st->memlock_bytes, v * 1024, e); /* ulimit -l: kbytes */
		else
			return 0;
		return 1;
	}
	return 0;
}

int tr_recognise_setting_value(struct lsc_triage *t, struct tr_line *l)
{
	int kind = t->pending_setting;
	t->pending_setting = SET_NONE;
	if (l->no != t->pending_line + 1)
		return 0;
	return setting(t, l, kind, l->s);
}

static void mem_estimate(struct tr_start *st, const char *s, const char *end, int e)
{
	double g;
	if (tr_after(s, end, "memory.required.full=", tr_size_gib, &g) && !isnan(sane(g, 1e6)))
		tr_setnum(&st->mem_required_gib, g, e);
	if (tr_after(s, end, "memory.available=", tr_size_gib, &g) && !isnan(sane(g, 1e6)))
		tr_setnum(&st->mem_available_gib, g, e);
}

/* Is @e an engine name that names no family of its own ("any", the kernel's,
 * systemd's, a shell's, sysctl's, Python's lines)? */
static int generic(const char *e)
{
	static const char *const g[] = {"any", "kernel", "systemd", "shell", "sysctl", "python", NULL};
	for (const char *const *w = g; *w; w++)
		if (e[0] == (*w)[0] && !strcmp(e, *w))
			return 1;
	return 0;
}

/* A shape that moves its start along: opens it, shows it loading, loaded or ready. */
static int apply_start(struct lsc_triage *t, struct tr_line *l, const struct tr_shape *h, const char *fam)
{
	const char *s = l->s, *end = s + l->len;
	struct tr_start *st;
	int e;
	double v;
	switch (h->ev) {
	case TR_EV_OPEN:
		/* a loader's line that says its load, or its step, failed
		 * ("llama_model_load: error loading", where a cut took the rest
		 * of the error; "llama_kv_cache_init: failed to allocate buffer
		 * for kv cache") is the failure of the start under way, for the
		 * shared vocabulary to read, not the first line of another; a
		 * launcher's "Error:" tag on its engine's stderr, or a part it
		 * goes on without ("cannot be used ..., using CPU"), is no
		 * failure, so only the verb counts */
		if (tr_load_failure_words(s, l->len) || tr_memmem_ci(s, l->len, "failed"))
			return 0;
		if (!(st = tr_fresh_if(t, l, 0, fam)))
			return 0;
		e = tr_evid(st, l);
		tr_touch(st, l);
		tr_stage_raise(st, TR_ST_BEGAN);
		if (tr_find(l, "file size") && !tr_has(&st->model_gib)) {
			v = size_after(s, end, "file size");
			if (!isnan(v) && v > 0)
				tr_setnum(&st->model_gib, v, e);
		}
		if ((h->fields & TR_FLD_SIZE) && tr_find(l, "CUDA_Host")) {
			v = size_after(s, end, h->num_after);
			if (!isnan(v))
				tr_setnum(&st->pin_bytes, v * GIB, e);
		}
		return 1;
	case TR_EV_BEGIN:
		if (!(st = tr_begin(t, l, fam)))
			return 0;
		tr_touch(st, l);
		return 1;
	case TR_EV_PROGRESS:
		if (!(st = use_h(t, l, &e, fam, h)))
			return 0;
		tr_stage_raise(st, TR_ST_LOADING);
		st->progress_open = 1;
		/* "model load progress 0.42": the fraction, for its rate */
		if ((v = num_after_word(s, end, "progress")) >= 0)
			tr_progress_at(st, l, v);
		/* "the checkpoint size (148.66 GiB) exceeds 90% of available RAM" */
		if (tr_ckpt_over_ram(s, l->len, &v)) {
			st->from_device = 1;
			if (!tr_has(&st->ckpt_gib))
				tr_setnum(&st->ckpt_gib, v, e);
		}
		return 1;
	case TR_EV_SUMMARY:
		if (!(st = use_h(t, l, &e, fam, h)))
			return 0;
		if (st->stage == TR_ST_NONE)
			tr_opened_at_load_end(st, l);
		tr_stage_raise(st, TR_ST_LOADED);
		st->progress_open = 0;
		return 1;
	case TR_EV_READY:
		if (!(st = tr_current(t, l)) || (st->stage >= TR_ST_READY && !st->done))
			return 0;
		e = tr_evid(st, l);
		tr_touch(st, l);
		if (fam && !st->family[0])
			snprintf(st->family, sizeof(st->family), "%s", fam);
		if ((h->fields & TR_FLD_DUR) && tr_after(s, end, h->num_after, tr_dur_s, &v) && !isnan(sane(v, 1e7)))
			tr_setnum(&st->ready_s, v, e);
		tr_stage_raise(st, TR_ST_READY);
		st->ev_end = e;
		st->progress_open = 0;
		return 1;
	default:
		break;
	}
	return 0;
}

/* A shape that ends its start: an engine error, a read error, a kill. */
static int apply_end(struct lsc_triage *t, struct tr_line *l, const struct tr_shape *h, const char *fam)
{
	const char *s = l->s, *end = s + l->len;
	struct tr_start *st;
	int e;
	double v;
	switch (h->ev) {
	case TR_EV_LOAD_FAIL:
	case TR_EV_READ_ERROR:
		if ((h->fields & TR_FLD_LOADING) &&
		    !(t->cur && t->cur->src == l->src && t->cur->stage >= TR_ST_LOADING && !t->cur->done))
			return 0; /* a traceback means a failed load only while loading */
		if (!(st = use_h(t, l, &e, fam, h)))
			return 0;
		if (st->done && (st->stage >= TR_ST_READY || st->ev_gen_ready >= 0))
			return 1; /* after ready: not a failed load */
		/* after a load summary only (the weights in, the engine not yet
		 * up: its KV cache, its graphs), the error ends the start */
		st->done = 0;
		if (st->ev_error < 0)
			st->ev_error = e;
		else if (st->ev_error2 < 0 && e != st->ev_error)
			st->ev_error2 = e;
		if (h->fields & TR_FLD_LOADING)
			st->in_traceback = 1; /* its last exception line is the cause (recognise_generic.c) */
		if ((h->fields & TR_FLD_SIZE) && !tr_has(&st->fail_gib)) {
			v = size_after(s, end, h->num_after);
			if (isnan(v)) /* "of size 124650209312": bytes, without a unit */
				v = bytes_after(s, end, h->num_after);
			if (!isnan(v))
				tr_setnum(&st->fail_gib, v, e);
		}
		if (st->ev_killed < 0 && tr_killed_words(s, l->len) && !tr_memmem_ci(s, l->len, "timed out"))
			st->ev_killed = e; /* "signal: killed", "exitcode: -9": a kill as well */
		if (h->fields & TR_FLD_FINAL)
			st->final = 1;
		ended(st, e);
		return 1;
	case TR_EV_OOM_KILL:
	case TR_EV_KILL:
		st = t->cur && t->cur->src == l->src ? t->cur : NULL;
		/* a bare "Killed" means something only once loading began */
		if (h->ev == TR_EV_KILL && (h->fields & TR_FLD_EXACT) && (!st || st->stage < TR_ST_LOADING))
			return 0;
		if (!(st = use_h(t, l, &e, NULL, h)))
			return 0;
		if (h->ev == TR_EV_OOM_KILL) {
			if (st->ev_oom < 0)
				st->ev_oom = e;
			/* the kernel's "anon-rss:61234567kB" counts KiB */
			const char *a = tr_find(l, "anon-rss:");
			const char *q = a ? a + 9 : NULL;
			if (q && tr_num(&q, end, &v) && !isnan(sane(v, 1e13)))
				tr_setnum(&st->oom_rss_gib, v * 1024 / GIB, e);
		} else if (st->ev_killed < 0) {
			st->ev_killed = e;
		}
		ended(st, e);
		return 1;
	default:
		break;
	}
	return 0;
}

/* A shape that records a fact of its start (a refusal, a setting the engine reports). */
static int apply_fact(struct lsc_triage *t, struct tr_line *l, const struct tr_shape *h, const char *fam)
{
	const char *s = l->s, *end = s + l->len;
	struct tr_start *st;
	int e;
	double v;
	switch (h->ev) {
	case TR_EV_PINNED_FAIL:
		if (!(st = use_h(t, l, &e, fam, h)))
			return 0;
		if (st->ev_pinned_fail < 0) {
			st->ev_pinned_fail = e;
			v = (h->fields & TR_FLD_SIZE) ? size_after(s, end, h->num_after) : NAN;
			if (!isnan(v))
				tr_setnum(&st->pinned_fail_gib, v, e);
		}
		tr_stage_raise(st, TR_ST_LOADING);
		return 1;
	case TR_EV_PAGEABLE:
		if (!(st = use_h(t, l, &e, fam, h)))
			return 0;
		if (st->ev_pageable < 0)
			st->ev_pageable = e;
		return 1;
	case TR_EV_NUMA_ON:
		if (!(st = use_h(t, l, &e, fam, h)))
			return 0;
		if (st->ev_numa < 0)
			st->ev_numa = e;
		return 1;
	case TR_EV_HUGETLB_SHORT: {
		if (!(st = use_h(t, l, &e, fam, h)))
			return 0;
		double need = NAN, pool = NAN;
		if (tr_after(s, end, "need", tr_num, &need))
			need = sane(need, 1e12);
		if (tr_after(s, end, "has", tr_num, &pool))
			pool = sane(pool, 1e12);
		if (!isnan(need) && !isnan(pool)) {
			tr_setnum(&st->huge_needed, need, e);
			tr_setnum(&st->huge_pool, pool, e);
		}
		st->hugetlb_asked = 1;
		if (st->ev_arena < 0)
			st->ev_arena = e;
		if (!tr_has(&st->huge_needed))
			st->ev_hugetlb_fail = e;
		return 1;
	}
	case TR_EV_DIRECT_ON:
		if (!(st = use_h(t, l, &e, fam, h)))
			return 0;
		st->direct_on = 1;
		st->from_device = 1;
		return 1;
	case TR_EV_DIRECT_FAIL:
		if (!(st = use_h(t, l, &e, fam, h)))
			return 0;
		if (st->ev_gds < 0)
			st->ev_gds = e;
		return 1;
	case TR_EV_MEM_ESTIMATE:
		if (!(st = use_h(t, l, &e, fam, h)))
			return 0;
		mem_estimate(st, s, end, e);
		return 1;
	default:
		break;
	}
	return 0;
}

/* A shape whose figures are read off the line (the checkpoint, shard progress, settings). */
static int apply_reading(struct lsc_triage *t, struct tr_line *l, const struct tr_shape *h, const char *fam)
{
	const char *s = l->s, *end = s + l->len;
	struct tr_start *st;
	int e;
	switch (h->ev) {
	case TR_EV_WEIGHTS_FS: {
		if (!(st = use_h(t, l, &e, fam, h)))
			return 0;
		double ck = NAN, ram = NAN;
		if (tr_after(s, end, "Checkpoint size:", tr_size_gib, &ck))
			ck = sane(ck, 1e6);
		if (tr_after(s, end, "Available RAM:", tr_size_gib, &ram))
			ram = sane(ram, 1e6);
		if (!isnan(ck))
			tr_setnum(&st->ckpt_gib, ck, e);
		/* the bytes come from the device when the page cache cannot hold
		 * them, or from the network file system the engine names */
		static const char *const netfs[] = {"NFS", "Lustre", "LUSTRE", "CEPH", "Ceph", "FUSE", "fuse", "GPFS",
						    "BeeGFS", "CIFS", "SMB", NULL};
		int net = 0;
		const char *fs = tr_find(l, "checkpoints:");
		for (const char *const *w = netfs; fs && *w && !net; w++)
			net = tr_memmem(fs, (size_t)(end - fs) < 24 ? (size_t)(end - fs) : 24, *w) != NULL;
		if (net || (!isnan(ck) && !isnan(ram) && ck > 0.9 * ram))
			st->from_device = 1;
		tr_stage_raise(st, TR_ST_LOADING);
		return 1;
	}
	case TR_EV_SHARDS: {
		if (!(st = use_h(t, l, &e, fam, h)))
			return 0;
		tr_stage_raise(st, TR_ST_LOADING);
		/* "45% Completed | 9/20 [00:37<00:49,  9.75s/it]": shards done of all, and the elapsed time */
		const char *bar = memchr(s, '|', l->len);
		/* a page that dropped the bar's glyphs keeps "100% 163/163 [01:12<...": after the share */
		if (!bar)
			bar = memchr(s, '%', l->len);
		const char *p = bar ? tr_skip_ws(bar + 1, end) : NULL;
		/* and one that dropped its pipes too keeps the word between them,
		 * "62% Completed 61/99 [02:37<01:36]": the count after that word */
		if (p && *bar == '%')
			for (const char *w = p; w < end && w - p < 16 && *w != '['; w++)
				if (tr_digit(*w)) {
					p = w;
					break;
				}
		double done = NAN, all = NAN, mm = NAN, ss = NAN;
		if (!p || !tr_num(&p, end, &done) || p >= end || *p != '/')
			return 1;
		p++;
		if (!tr_num(&p, end, &all) || !(all > 0) || done > all)
			return 1;
		st->progress_open = done < all;
		st->bar_done = done >= all;
		const char *br = memchr(p, '[', (size_t)(end - p));
		const char *q = br ? br + 1 : NULL;
		if (!q || !tr_num(&q, end, &mm) || q >= end || *q != ':')
			return 1;
		q++;
		if (!tr_num(&q, end, &ss))
			return 1;
		double secs = sane(mm * 60 + ss, 1e6);
		/* a bar done in under a second reads [00:00<00:00]: a load time of 0 */
		if (isnan(secs) || secs < 0 || !(done > 0) || (secs == 0 && done < all))
			return 1;
		tr_setnum(&st->read_s, secs, e);
		st->bar_frac = done / all;
		if (tr_has(&st->ckpt_gib) && secs > 0) {
			double gib = st->ckpt_gib.v * done / all;
			tr_setnum(&st->read_gib, gib, e);
			tr_setnum(&st->read_rate, gib / secs, e);
		}
		return 1;
	}
	case TR_EV_SETTING: {
		const char *eq = memchr(s, '=', l->len);
		return eq && setting(t, l, pending_kind(s, l->len), eq + 1);
	}
	case TR_EV_SETTING_CAT: {
		/* `cat FILE` (or `ulimit -l`) alone: the value is the next line;
		 * `cat FILE` followed by the value on the same line is read here */
		const char *k = tr_find(l, h->key);
		const char *after = tr_skip_ws(k + strlen(h->key), end);
		int kind = pending_kind(s, l->len);
		if (after == end) {
			t->pending_setting = kind;
			t->pending_line = l->no;
			if ((st = t->cur)) {
				tr_touch(st, l);
				st->nsettings++;
			}
			return st != NULL;
		}
		/* `ulimit -l unlimited` raises the limit, which takes privilege
		 * and is often refused on the next line: an attempt, not the
		 * limit the engine ran under (a number only lowers it, or is
		 * refused the same way, and is read) */
		if (kind == SET_ULIMIT_L && !strncmp(after, "unlimited", 9)) {
			int ev;
			if (!(st = use_h(t, l, &ev, NULL, NULL)))
				return 0;
			st->nsettings++;
			return 1;
		}
		return setting(t, l, kind, after);
	}
	default:
		break;
	}
	return 0;
}

static int apply(struct lsc_triage *t, struct tr_line *l, const struct tr_shape *h)
{
	const char *fam = generic(h->engine) ? NULL : h->engine;
	switch (h->ev) {
	case TR_EV_OPEN: case TR_EV_BEGIN: case TR_EV_PROGRESS: case TR_EV_SUMMARY: case TR_EV_READY:
		return apply_start(t, l, h, fam);
	case TR_EV_LOAD_FAIL: case TR_EV_READ_ERROR: case TR_EV_OOM_KILL: case TR_EV_KILL:
		/* a load failure the program goes on past ("failed to load model
		 * on GPU 1, falling back to CPU") is no start's end, whichever
		 * engine's words say it */
		if (h->ev == TR_EV_LOAD_FAIL && tr_load_failure_gone_past(l->s, l->len))
			return 0;
		return apply_end(t, l, h, fam);
	case TR_EV_WEIGHTS_FS: case TR_EV_SHARDS: case TR_EV_SETTING: case TR_EV_SETTING_CAT:
		return apply_reading(t, l, h, fam);
	case TR_EV_N:
		return 0;
	default:
		return apply_fact(t, l, h, fam);
	}
}

int tr_recognise_shapes(struct lsc_triage *t, struct tr_line *l)
{
	int i = tr_shape_match_line(l, 0);
	while (i >= 0 && tr_engine_off(t, tr_shapes[i].engine))
		i = tr_shape_match_line(l, (size_t)i + 1);
	if (i < 0 || !apply(t, l, &tr_shapes[i]))
		return 0;
	/* An error line that names its cause ("error loading model: hugetlb
	 * mmap failed: need N ... pool has M", "failed to reserve ...:
	 * cudaMallocHost failed to pin 8192 MiB") is the cause's line too. */
	if (tr_shapes[i].ev == TR_EV_LOAD_FAIL)
		for (int j = i; (j = tr_shape_match_line(l, (size_t)j + 1)) >= 0;) {
			enum tr_event ev = tr_shapes[j].ev;
			if (ev == TR_EV_PINNED_FAIL || ev == TR_EV_HUGETLB_SHORT || ev == TR_EV_DIRECT_FAIL) {
				apply(t, l, &tr_shapes[j]);
				break;
			}
		}
	return 1;
}
