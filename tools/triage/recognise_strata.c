/*
 * The seed engine's startup lines (../shared/seeds): the expert-arena note in
 * all its variants (MAP_HUGETLB unavailable + THP requested, hugetlb 2 MB
 * pages, using 4 KB pages, THP skipped, with or without the defrag policy),
 * `loaded X at Y/s`, the `complement ready` line with or without a separate
 * allocation time, `still starting (N s)`, `verify: ... timed out`, and the
 * per-GPU line that opens a start.
 *
 * Matched by shape: a keyword to find the line cheaply (memmem), then numbers
 * with their units wherever they sit, so other wordings, units and prefixes
 * read the same.
 */
#include <ctype.h>
#include <string.h>

#include "internal.h"

static const char *family_of(const struct tr_line *l)
{
	return tr_find(l, "strata") ? "strata" : "engine";
}

static void word_after(const char *p, const char *end, const char *key, char *out, size_t cap)
{
	const char *k = tr_memmem(p, (size_t)(end - p), key);
	if (!k)
		return;
	k += strlen(key);
	k = tr_skip_ws(k, end);
	if (k < end && (*k == '[' || *k == '='))
		k = tr_skip_ws(k + 1, end);
	size_t n = 0;
	while (k + n < end && (isalnum((unsigned char)k[n]) || k[n] == '+' || k[n] == '_' || k[n] == '-') &&
	       n + 1 < cap)
		n++;
	if (n) {
		memcpy(out, k, n);
		out[n] = 0;
	}
}

/* "hugetlb 2 MB pages", "using 4 KB pages": a size, then "pages" */
static int sized_pages(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == ':' || *p == '('))
		p++;
	double v;
	if (!tr_size_gib(&p, end, &v))
		return 0;
	p = tr_skip_ws(p, end);
	return end - p >= 5 && !strncmp(p, "pages", 5);
}

static int arena_note(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = l->s + l->len;
	/* The note's shape: the arena, and a decision about its pages: the
	 * hugetlb attempt (unavailable / N MB pages), the THP request
	 * (requested / skipped), or the page size used. Prose that only
	 * mentions MADV_HUGEPAGE is not a note. */
	if (!tr_find(l, "arena"))
		return 0;
	const char *th = tr_memmem_ci(s, l->len, "transparent huge pages");
	int thp = th && (tr_memmem_ci(th, (size_t)(end - th), "requested") ||
			 tr_memmem_ci(th, (size_t)(end - th), "skipped") ||
			 tr_memmem_ci(th, (size_t)(end - th), "not requested"));
	const char *mh = tr_find(l, "MAP_HUGETLB");
	int unavail = mh && (tr_memmem_ci(mh, (size_t)(end - mh), "unavailable") ||
			     tr_memmem(mh, (size_t)(end - mh), "needed"));
	const char *ht = tr_memmem_ci(s, l->len, "hugetlb ");
	int hused = ht && sized_pages(ht + 8, end);
	const char *us = tr_find(l, "using ");
	int small = us && sized_pages(us + 6, end);
	int huge = unavail || hused;
	if (!(thp || unavail || hused || small))
		return 0;
	struct tr_start *st = tr_fresh_if(t, l, t->cur && t->cur->ev_arena >= 0, family_of(l));
	if (!st)
		return 0;
	int e = tr_evid(st, l);
	tr_touch(st, l);
	st->ev_arena = e;
	tr_stage_raise(st, TR_ST_LOADING);
	double v;
	if (unavail) {
		if (tr_after(s, end, "needed", tr_num, &v))
			tr_setnum(&st->huge_needed, v, e);
		if (tr_after(s, end, "nr_hugepages", tr_num, &v))
			tr_setnum(&st->huge_pool, v, e);
	} else if (hused) {
		st->hugetlb_used = 1;
		st->ev_hugetlb_used = e;
	}
	(void)huge;
	if (thp) {
		const char *from = th;
		size_t n = (size_t)(end - from);
		int skipped = tr_memmem_ci(from, n, "skipped") || tr_memmem_ci(from, n, "not requested") ||
			      tr_memmem_ci(from, n, "disabled");
		st->thp_req = skipped ? 0 : 1;
		st->ev_thp = e;
		if (tr_find(l, "defrag")) {
			word_after(s, end, "defrag", st->thp_defrag, sizeof(st->thp_defrag));
			st->ev_defrag = e;
		}
	} else if (small && st->thp_req < 0) {
		st->thp_req = 0;
		st->ev_thp = e;
	}
	if (tr_find(l, "hipHost") || tr_find(l, "HIP"))
		st->hip = 1;
	return 1;
}

static int loaded_line(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = l->s + l->len;
	const char *k = tr_find(l, "loaded ");
	/* the word, not the end of another: "downloaded 28 GiB in 9 s" is a download */
	while (k && k > s && tr_isword(k[-1]))
		k = strstr(k + 1, "loaded ");
	if (!k)
		k = tr_find(l, "Loaded ");
	if (!k)
		return 0;
	const char *p = tr_skip_ws(k + 7, end);
	double gib, rate = NAN, secs = NAN;
	if (!tr_size_gib(&p, end, &gib))
		return 0;
	/* the rate: "at 3.12 GiB/s", "(3.12 GiB/s)", "@ 3.1 GB/s"; the time: "in 12.8 s" */
	for (const char *q = p; q < end; q++)
		if (tr_digit(*q) && !tr_digit(q[-1]) && q[-1] != '.') {
			const char *r = q;
			double x;
			if (isnan(rate) && tr_rate_gibps(&r, end, &x)) {
				rate = x;
				q = r - 1;
				continue;
			}
			r = q;
			if (isnan(secs) && tr_dur_s(&r, end, &x)) {
				secs = x;
				q = r - 1;
			}
		}
	if (isnan(rate) && isnan(secs))
		return 0;
	struct tr_start *st = tr_fresh_if(t, l, t->cur && tr_has(&t->cur->loaded_gib), family_of(l));
	if (!st)
		return 0;
	int e = tr_evid(st, l);
	tr_touch(st, l);
	tr_setnum(&st->loaded_gib, gib, e);
	st->loaded_rate_stated |= !isnan(rate);
	if (isnan(rate) && secs > 0)
		rate = gib / secs;
	if (isnan(secs) && rate > 0)
		secs = gib / rate;
	tr_setnum(&st->loaded_rate, rate, e);
	tr_setnum(&st->loaded_s, secs, e);
	tr_stage_raise(st, TR_ST_LOADED);
	/* "reached ready at 432 s while still printing loaded ... at 2.86 GiB/s" */
	const char *rd = tr_find(l, "ready ");
	double w;
	if (rd && (rd == s || !isalpha((unsigned char)rd[-1])) && tr_after(rd, end, "ready ", tr_dur_s, &w)) {
		tr_setnum(&st->ready_s, w, e);
		tr_stage_raise(st, TR_ST_READY);
		st->ev_end = e;
	}
	return 1;
}

static int complement_line(struct lsc_triage *t, struct tr_line *l)
{
	const char *end = l->s + l->len;
	const char *c = tr_find(l, "complement");
	if (!c || !tr_memmem(c, (size_t)(end - c), "ready"))
		return 0;
	/* "pinned 28.47 GiB in 300 s" (or "resident X GiB"): a size, then "in"
	 * and a duration; without a size it is prose about the line */
	const char *pinned = tr_memmem(c, (size_t)(end - c), "pinned");
	const char *p = pinned ? pinned : c;
	while (p < end && !tr_digit(*p))
		p++;
	double gib, total = NAN, alloc = NAN, copy = NAN, v;
	if (!tr_size_gib(&p, end, &gib))
		return 0;
	if (tr_after(p, end, " in ", tr_dur_s, &v))
		total = v;
	if (tr_after(c, end, "alloc", tr_dur_s, &v))
		alloc = v;
	if (tr_after(c, end, "copy", tr_dur_s, &v))
		copy = v;
	struct tr_start *st = tr_fresh_if(t, l, t->cur && tr_has(&t->cur->comp_gib), family_of(l));
	if (!st)
		return 0;
	int e = tr_evid(st, l);
	tr_touch(st, l);
	tr_setnum(&st->comp_gib, gib, e);
	if (!isnan(total))
		tr_setnum(&st->comp_total_s, total, e);
	if (!isnan(alloc))
		tr_setnum(&st->comp_alloc_s, alloc, e);
	if (!isnan(copy))
		tr_setnum(&st->comp_copy_s, copy, e);
	if (tr_find(l, "hip") || tr_find(l, "HIP"))
		st->hip = 1;
	tr_stage_raise(st, TR_ST_LOADED);
	return 1;
}

static int still_line(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = l->s + l->len;
	const char *k = tr_memmem_ci(s, l->len, "still starting");
	if (!k)
		k = tr_memmem_ci(s, l->len, "still loading");
	/* not a guess ("the model may still be loading"), nor after a
	 * watcher's wait ran out: what it lists then are its guesses */
	if (!k || tr_hedged(s, l->len) || (t->cur && t->cur->waited_out))
		return 0;
	double v = NAN;
	const char *p = k + 14;
	while (p < end && !tr_digit(*p) && p - k < 40)
		p++;
	if (!(p < end && tr_dur_s(&p, end, &v)))
		v = NAN;
	struct tr_start *cur = t->cur;
	/* the counter went back: the engine was restarted */
	int restarted = cur && !isnan(v) && tr_has(&cur->still_max_s) && v + 1 < cur->still_max_s.v;
	struct tr_start *st = tr_fresh_if(t, l, restarted, family_of(l));
	if (!st)
		return 0;
	int e = tr_evid(st, l);
	tr_touch(st, l);
	st->still_n++;
	if (!isnan(v) && (!tr_has(&st->still_max_s) || v > st->still_max_s.v))
		tr_setnum(&st->still_max_s, v, e);
	tr_stage_raise(st, TR_ST_BEGAN);
	/* "still loading": visibly under way (a "still starting" counter is
	 * the engine waiting, which the log may stop in) */
	if (k[6] == 'l' || k[6] == 'L') {
		tr_stage_raise(st, TR_ST_LOADING);
		st->progress_open = 1;
	}
	return 1;
}

static int verify_line(struct lsc_triage *t, struct tr_line *l)
{
	const char *k = tr_memmem_ci(l->s, l->len, "verif");
	if (!k)
		return 0;
	size_t n = l->len - (size_t)(k - l->s);
	if (n > 64)
		n = 64;
	if (!(tr_memmem_ci(k, n, "timed out") || tr_memmem_ci(k, n, "timeout") || tr_memmem_ci(k, n, "fail") ||
	      tr_memmem_ci(k, n, "mismatch") || tr_memmem_ci(k, n, "error")))
		return 0;
	if (tr_memmem_ci(k, n, "0 fail") || tr_memmem_ci(k, n, "no error") || tr_memmem_ci(k, n, "0 error"))
		return 0;
	struct tr_start *st = tr_current(t, l);
	if (!st)
		return 0;
	int e = tr_evid(st, l);
	tr_touch(st, l);
	if (st->ev_verify_fail < 0)
		st->ev_verify_fail = e;
	return 1;
}

static int gpu_line(struct lsc_triage *t, struct tr_line *l)
{
	const char *k = tr_find(l, "compute capability");
	if (!k)
		return 0;
	const char *g = tr_find(l, "GPU 0:");
	if (!g)
		g = tr_find(l, "Device 0:");
	struct tr_start *st = g ? tr_begin(t, l, family_of(l)) : tr_current(t, l);
	if (!st)
		return 0;
	tr_touch(st, l);
	return 1;
}

/* "[strata] starting engine: ...", "Starting engine ...": a launcher opens a start */
static int begin_line(struct lsc_triage *t, struct tr_line *l)
{
	struct tr_start *st = tr_begin(t, l, family_of(l));
	if (!st)
		return 0;
	tr_touch(st, l);
	return 1;
}

/* "engine exited with status 1 after 71 s", "fatal: ...; exiting": the start
 * ended without becoming ready (not a truncated log) */
static int exit_line(struct lsc_triage *t, struct tr_line *l)
{
	struct tr_start *st = t->cur;
	if (!st || st->stage < TR_ST_BEGAN || st->stage >= TR_ST_READY)
		return 0;
	/* "exited with status 0", "exit status code 0", "exit status: 0": a
	 * clean exit ends nothing; 137 or -9 (128 + SIGKILL) is a kill, the
	 * shared vocabulary's to read (as "exit code 137" is) */
	const char *k = tr_find(l, "status"), *end = l->s + l->len;
	if (k) {
		k += 6;
		while (k < end && (*k == ' ' || *k == ':' || *k == '='))
			k++;
		if (end - k > 4 && !memcmp(k, "code", 4))
			for (k += 4; k < end && (*k == ' ' || *k == ':' || *k == '='); k++)
				;
		const char *q = k + (k < end && *k == '-');
		double v;
		if (q < end && tr_digit(*q) && tr_num(&q, end, &v) && (q == end || !tr_isword(*q))) {
			if (*k == '-')
				v = -v;
			if (v == 0 || v == 137 || v == -9)
				return 0;
		}
	}
	int e = tr_evid(st, l);
	tr_touch(st, l);
	st->ev_exit = e;
	st->ev_end = e;
	st->stage = TR_ST_READY;
	return 1;
}

/* ROCm/HIP named anywhere in a start: the KFD userptr path is in play. Only
 * context for the open start: such a line alone is not a recognised line. */
static int hip_line(struct lsc_triage *t, struct tr_line *l)
{
	if (t->cur && t->cur->src == l->src)
		t->cur->hip = 1;
	return 0;
}

int tr_recognise_strata(struct lsc_triage *t, struct tr_line *l)
{
	uint64_t k = l->kw;
	if (tr_engine_off(t, "strata"))
		return 0;
	if ((k & TR_G_BEGIN) && begin_line(t, l))
		return 1;
	if ((k & TR_G_ARENA) && arena_note(t, l))
		return 1;
	if ((k & TR_G_COMPLEMENT) && complement_line(t, l))
		return 1;
	if ((k & TR_G_LOADED) && loaded_line(t, l))
		return 1;
	if ((k & TR_G_STILL) && still_line(t, l))
		return 1;
	if ((k & TR_G_VERIFY) && verify_line(t, l))
		return 1;
	if ((k & TR_G_GPU) && gpu_line(t, l))
		return 1;
	if ((k & TR_G_EXIT) && exit_line(t, l))
		return 1;
	if (k & TR_G_READTHRU) {
		/* printed just before the arena note: a second one is a new start */
		struct tr_start *st = tr_fresh_if(t, l, t->cur && (t->cur->reader[0] || t->cur->ev_arena >= 0),
						  family_of(l));
		if (st) {
			tr_touch(st, l);
			snprintf(st->reader, sizeof(st->reader), "buffered");
			tr_stage_raise(st, TR_ST_BEGAN);
		}
		return 1;
	}
	if ((k & TR_G_HIP) && hip_line(t, l))
		return 1;
	return 0;
}
