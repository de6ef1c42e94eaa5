/*
 * Lines users paste that come from other programs: strace of the KFD
 * allocation ioctl (`= -1 EAGAIN (...) <secs>`), /proc/vmstat deltas written
 * as `name +N`, the THP sysfs settings, RSS growth and fault rates quoted in
 * prose, llama.cpp, ik_llama.cpp, vLLM and the Run:ai streamer's timings,
 * and the generic shapes of the failures the rules look for (io_uring not
 * available, O_DIRECT refused, mlock refused, a server that says it is
 * ready).
 *
 * Each shape is found by one or two fixed substrings first (memmem), then
 * its numbers are read with their units by the scanners in scan.c.
 */
#include <ctype.h>
#include <string.h>

#include "internal.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static struct tr_start *use(struct lsc_triage *t, struct tr_line *l, int *e)
{
	struct tr_start *s = tr_current(t, l);
	if (!s)
		return NULL;
	*e = tr_evid(s, l);
	tr_touch(s, l);
	return s;
}

/* use(), and @family for a start that has none yet. */
static struct tr_start *use_as(struct lsc_triage *t, struct tr_line *l, int *e, const char *family)
{
	struct tr_start *s = use(t, l, e);
	if (s && !s->family[0])
		snprintf(s->family, sizeof(s->family), "%s", family);
	return s;
}

/* ---- strace ------------------------------------------------------------------ */

static int kfd_alloc(const char *s, size_t n)
{
	/* by name, or by number: _IOC(..., 0x4b, 0x16, ...) is 'K' 0x16 */
	return tr_memmem(s, n, "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU") ||
	       (tr_memmem(s, n, "0x4b, 0x16") && tr_memmem(s, n, "_IOC("));
}

static int strace_line(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len;
	int named = kfd_alloc(s, l->len);
	int resumed = tr_find(l, "ioctl resumed") != NULL;
	if (!named && !resumed)
		return 0;
	struct tr_start *cur = t->cur;
	if (resumed && !(cur && cur->kfd_pending))
		return 0;
	if (named && tr_find(l, "<unfinished")) {
		int e;
		struct tr_start *st = use(t, l, &e);
		if (st) {
			st->kfd_pending = 1;
			st->hip = 1;
		}
		return st != NULL;
	}
	const char *eq = NULL;
	for (const char *q = s; (q = tr_memmem(q, (size_t)(end - q), ") = ")); q += 4)
		eq = q;
	if (!eq)
		return 0;
	const char *r = eq + 4;
	double secs = NAN;
	const char *lt = memchr(r, '<', (size_t)(end - r));
	if (lt) {
		const char *p = lt + 1;
		double v;
		if (tr_num(&p, end, &v))
			secs = v;
	}
	int e;
	struct tr_start *st = tr_current(t, l);
	if (!st)
		return 0;
	tr_touch(st, l);
	if (!st->family[0])
		snprintf(st->family, sizeof(st->family), "strace");
	st->hip = 1;
	st->kfd_pending = 0;
	if (!isnan(l->ts)) { /* strace -tt: when each call began */
		if (isnan(st->kfd_ts_first))
			st->kfd_ts_first = l->ts;
		st->kfd_ts_last = l->ts;
	}
	if (tr_memmem(r, (size_t)(end - r), "EAGAIN")) {
		st->eagain_n++;
		if (!isnan(secs))
			st->eagain_s += secs;
		if (st->ev_eagain_first < 0)
			st->ev_eagain_first = tr_evid(st, l);
		tr_evid_raw(&st->eagain_tail, l);
	} else if (r < end && (*r == '0' || tr_digit(*r))) {
		st->kfd_ok_n++;
		if (!isnan(secs))
			st->kfd_ok_s += secs;
		e = tr_evid(st, l);
		st->ev_kfd_ok = e;
	}
	tr_stage_raise(st, TR_ST_LOADING);
	return 1;
}

static int madvise_line(struct lsc_triage *t, struct tr_line *l)
{
	/* strace's shape: madvise(0x..., N, MADV_HUGEPAGE) = 0 */
	if (!tr_find(l, "madvise(0x") || !tr_find(l, "MADV_HUGEPAGE") ||
	    !tr_find(l, ") = 0"))
		return 0;
	int e;
	struct tr_start *st = use(t, l, &e);
	if (st && st->thp_req < 0) {
		st->thp_req = 1;
		st->ev_thp = e;
	}
	return st != NULL;
}

/* ---- vmstat deltas, THP settings, rates in prose -------------------------------- */

static const struct {
	const char *name;
	int vm;
} vmkeys[] = {
	{"compact_stall", TR_VM_COMPACT_STALL}, {"compact_fail", TR_VM_COMPACT_FAIL},
	{"compact_success", TR_VM_COMPACT_SUCCESS}, {"thp_fault_alloc", TR_VM_THP_FAULT_ALLOC},
	{"thp_fault_fallback", TR_VM_THP_FAULT_FALLBACK}, {"allocstall_normal", TR_VM_ALLOCSTALL},
	{"allocstall_movable", TR_VM_ALLOCSTALL}, {"allocstall", TR_VM_ALLOCSTALL},
	{"pswpin", TR_VM_PSWPIN}, {"pswpout", TR_VM_PSWPOUT}, {"pgmajfault", TR_VM_PGMAJFAULT},
	{"pgfault", TR_VM_PGFAULT}, {NULL, 0},
};

static int vmstat_line(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len;
	if (!tr_find(l, "compact_") && !tr_find(l, "thp_fault") &&
	    !tr_find(l, "pswp") && !tr_find(l, "allocstall") &&
	    !tr_find(l, "pgmajfault") && !tr_find(l, "pgfault"))
		return 0;
	struct tr_start *st = NULL;
	int e = -1, got = 0;
	double seen[TR_VM_N];
	for (int k = 0; k < TR_VM_N; k++)
		seen[k] = NAN;
	for (const char *p = s; p < end; p++) {
		if (!isalpha((unsigned char)*p) || (p > s && tr_isword(p[-1])))
			continue;
		for (int i = 0; vmkeys[i].name; i++) {
			size_t kn = strlen(vmkeys[i].name);
			if ((size_t)(end - p) <= kn || strncmp(p, vmkeys[i].name, kn) || tr_isword(p[kn]))
				continue;
			/* `name +N`, `name+N`, `name -N`, `name: +N`, `name = N` (a delta) */
			const char *q = tr_skip_ws(p + kn, end);
			if (q < end && (*q == ':' || *q == '='))
				q = tr_skip_ws(q + 1, end);
			if (!(q < end && (*q == '+' || *q == '-' || tr_digit(*q))))
				break;
			double v;
			const char *r = q;
			if (!tr_num(&r, end, &v))
				break;
			if (r < end && (*r == 'M' || *r == 'k' || *r == 'K') && (r + 1 >= end || !isalpha((unsigned char)r[1])))
				v *= *r == 'M' ? 1e6 : 1e3;
			int k = vmkeys[i].vm;
			seen[k] = (isnan(seen[k]) ? 0 : seen[k]) + v;
			got = 1;
			p = r - 1;
			break;
		}
	}
	if (!got)
		return 0;
	st = use(t, l, &e);
	if (!st)
		return 0;
	for (int k = 0; k < TR_VM_N; k++)
		if (!isnan(seen[k]))
			tr_setnum(&st->vm[k], seen[k], e);
	/* "8 s window", "over 8 s", "in 8 s" */
	double w;
	if (tr_after(s, end, "window", tr_dur_s, &w) || tr_after(s, end, "over ", tr_dur_s, &w))
		tr_setnum(&st->vm_window_s, w, e);
	else {
		const char *p = s;
		while (p < end && !tr_digit(*p))
			p++;
		const char *q = p;
		if (tr_dur_s(&q, end, &w) && tr_memmem(q, (size_t)(end - q), "window"))
			tr_setnum(&st->vm_window_s, w, e);
	}
	return 1;
}

/* The THP mode after "KEY=" in @s[0..end) ("enabled=madvise;", "thp_defrag=defer "): a mode word
 * that ends there (not "defrag=madvise or never"), copied into @out; 1 found. */
static int kv_mode(const char *s, const char *end, const char *key, char *out, size_t cap)
{
	static const char *const modes[] = {"always", "defer+madvise", "defer", "madvise", "never", NULL};
	size_t kl = strlen(key);
	for (const char *k = s; (k = tr_memmem(k, (size_t)(end - k), key)) != NULL; k++) {
		if ((k > s && isalnum((unsigned char)k[-1])) || k + kl >= end || k[kl] != '=')
			continue;
		const char *v = k + kl + 1;
		for (const char *const *m = modes; *m; m++) {
			size_t ml = strlen(*m);
			const char *a = v + ml;
			if ((size_t)(end - v) >= ml && !strncmp(v, *m, ml) &&
			    (a == end || *a == ';' || *a == ')' || *a == ',' || (*a == ' ' && strncmp(a, " or ", 4)))) {
				snprintf(out, cap, "%s", *m);
				return 1;
			}
		}
	}
	return 0;
}

/* A summary of the machine's settings that states both THP modes as
 * key=value ("THP enabled=madvise defrag=madvise khugepaged/defrag=1",
 * "thp_enabled=always thp_defrag=defer"): the settings, as a tool that
 * reports them prints them. One of the two alone is not enough: a
 * sentence says "with defrag=madvise, ...". */
static int thp_kv_settings(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len;
	char en[16], df[24];
	if (!kv_mode(s, end, "enabled", en, sizeof en) || !kv_mode(s, end, "defrag", df, sizeof df))
		return 0;
	int e;
	struct tr_start *st = use(t, l, &e);
	if (!st)
		return 0;
	snprintf(st->thp_enabled, sizeof(st->thp_enabled), "%s", en);
	snprintf(st->thp_defrag, sizeof(st->thp_defrag), "%s", df);
	st->ev_defrag = e;
	st->nsettings++;
	return 1;
}

static int thp_settings(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len;
	const char *d = tr_find(l, "defrag");
	const char *en = tr_find(l, "transparent_hugepage/enabled");
	const char *pr = tr_find(l, "PR_SET_THP_DISABLE");
	const char *st_ = tr_find(l, "THP_enabled:");
	if (!d && !en && !pr && !st_)
		return 0;
	int e;
	struct tr_start *st = NULL;
	char w[24];
	if (d) {
		/* sysfs as cat prints it: "defrag = [madvise]", ".../defrag: always defer
		 * [madvise] never"; the selected mode is the bracketed one. Prose
		 * ("defrag=madvise or never") is not a setting. */
		const char *b = memchr(d, '[', (size_t)(end - d) < 64 ? (size_t)(end - d) : 64);
		const char *p = b ? b + 1 : end;
		size_t n = 0;
		while (p + n < end && (isalnum((unsigned char)p[n]) || p[n] == '+') && n + 1 < sizeof(w))
			n++;
		if (!(p + n < end && p[n] == ']'))
			n = 0;
		static const char *const modes[] = {"always", "defer+madvise", "defer", "madvise", "never", NULL};
		for (const char *const *m = modes; *m && n; m++)
			if (n == strlen(*m) && !strncmp(p, *m, n)) {
				st = st ? st : use(t, l, &e);
				if (!st)
					return 0;
				snprintf(st->thp_defrag, sizeof(st->thp_defrag), "%s", *m);
				st->ev_defrag = e;
				break;
			}
	}
	if (en) {
		const char *b = memchr(en, '[', (size_t)(end - en));
		if (b) {
			st = st ? st : use(t, l, &e);
			if (!st)
				return 0;
			size_t n = 0;
			while (b + 1 + n < end && isalpha((unsigned char)b[1 + n]) && n + 1 < sizeof(st->thp_enabled))
				n++;
			memcpy(st->thp_enabled, b + 1, n);
			st->thp_enabled[n] = 0;
		}
	}
	/* strace's prctl(PR_SET_THP_DISABLE, 1, ...) = 0, or /proc/PID/status's
	 * THP_enabled: 0; prose that names the prctl is not its result */
	int prctl_ok = pr && tr_find(l, "prctl(PR_SET_THP_DISABLE, 1") && tr_memmem(pr, (size_t)(end - pr), ") = 0");
	double thpv = 1;
	const char *q = st_ ? tr_skip_ws(st_ + 12, end) : NULL;
	int status_off = q && tr_num(&q, end, &thpv) && thpv == 0;
	if (prctl_ok || status_off) {
		st = st ? st : use(t, l, &e);
		if (!st)
			return 0;
		snprintf(st->thp_process, sizeof(st->thp_process), "disabled");
		st->ev_thp_process = e;
	}
	if (st)
		st->nsettings++;
	return st != NULL;
}

static int rates_in_prose(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len;
	const char *rss = tr_find(l, "RSS");
	const char *mf = tr_find(l, "faults/s");
	if (!rss && !mf)
		return 0;
	double v = NAN, secs = NAN, rate = NAN;
	if (rss) {
		/* "+484 MB in 8 s" */
		const char *p = memchr(rss, '+', (size_t)(end - rss));
		if (p) {
			const char *q = p + 1;
			if (tr_size_gib(&q, end, &v) && tr_after(q, end, "in", tr_dur_s, &secs) && secs > 0)
				rate = v / secs;
		}
	}
	double fps = NAN;
	if (mf) {
		const char *p = mf;
		while (p > s && (tr_digit(p[-1]) || p[-1] == ',' || p[-1] == ' ' ||
				 isalpha((unsigned char)p[-1])) && mf - p < 40)
			p--;
		while (p < mf && !tr_digit(*p))
			p++;
		if (!tr_num(&p, mf, &fps))
			fps = NAN;
	}
	if (isnan(rate) && isnan(fps))
		return 0;
	int e;
	struct tr_start *st = use(t, l, &e);
	if (!st)
		return 0;
	if (!isnan(rate) && (!tr_has(&st->fill_rate) || rate < st->fill_rate.v))
		tr_setnum(&st->fill_rate, rate, e);
	if (!isnan(fps)) {
		tr_setnum(&st->faults_per_s, fps, e);
		double r = fps * 4096.0 / GIB;
		if (!tr_has(&st->fill_rate))
			tr_setnum(&st->fill_rate, r, e);
	}
	return 1;
}

/* ---- public engines ------------------------------------------------------------- */

static int llama_line(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len;
	int e;
	double v;
	struct tr_start *st;
	if (tr_find(l, "loading model tensors") || tr_find(l, "llama_model_loader: loaded meta")) {
		st = tr_begin(t, l, "llama.cpp");
		if (!st)
			return 0;
		tr_touch(st, l);
		/* the tensors are being read: a new banner after this is a new process */
		if (tr_find(l, "loading model tensors"))
			tr_stage_raise(st, TR_ST_LOADING);
		if (tr_find(l, "direct_io = true"))
			st->direct_on = 1; /* a read error later is direct I/O's */
		return 1;
	}
	/* llama.cpp's and whisper.cpp's timings write `load time = N ms`; a
	 * list of a program's own parts (whisperkit's `- Encoder load time:
	 * 519.13 seconds`) is the shared vocabulary's */
	const char *lt = tr_find(l, "load time");
	const char *eq = lt ? tr_skip_ws(lt + 9, end) : NULL;
	if (eq && eq < end && *eq == '=' && tr_after(s, end, "load time", tr_dur_s, &v)) {
		/* a second timings block is a second run (llama.cpp prints them once, at the end) */
		st = t->cur && t->cur->src == l->src && tr_has(&t->cur->loaded_s)
			     ? tr_fresh_if(t, l, 1, "llama.cpp")
			     : tr_current(t, l);
		if (!st)
			return 0;
		e = tr_evid(st, l);
		tr_touch(st, l);
		if (!st->family[0])
			snprintf(st->family, sizeof(st->family), "llama.cpp");
		tr_setnum(&st->loaded_s, v, e);
		if (!tr_has(&st->ready_s))
			tr_setnum(&st->ready_s, v, e);
		tr_stage_raise(st, TR_ST_LOADED);
		return 1;
	}
	return 0;
}

/* Memory locking in the words of the syscall and its limit, which every
 * engine that locks its weights meets (not one engine's shape): mlock
 * refused ("failed to mlock 39813120-byte buffer", "mlock(...) failed:
 * Cannot allocate memory"), RLIMIT_MEMLOCK and ulimit's "max locked
 * memory" with their values. Read by meaning: "RLIMIT_MEMLOCK:
 * unlimited", "mlock: ok, 0 failures", "mlock worked" refuse nothing. */
static int memlock_line(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len;
	int e;
	double v;
	struct tr_start *st;
	if (tr_find(l, "mlock") || tr_find(l, "RLIMIT_MEMLOCK")) {
		int unlimited = tr_memmem_ci(s, l->len, "unlimited") != NULL;
		int refused = tr_find(l, "failed to mlock") || tr_find(l, "Try increasing RLIMIT_MEMLOCK") ||
			      (!unlimited && tr_says_failed(s, l->len));
		if (!refused && !unlimited)
			return 0;
		st = use(t, l, &e);
		if (!st)
			return 0;
		if (!refused) {
			if (!tr_has(&st->memlock_bytes))
				tr_setnum(&st->memlock_bytes, INFINITY, e);
			return 1;
		}
		if (st->ev_mlock_fail < 0)
			st->ev_mlock_fail = e;
		const char *p = tr_find(l, "mlock ");
		if (p && tr_after(p, end, "mlock", tr_size_gib, &v))
			tr_setnum(&st->pin_bytes, v * GIB, e);
		return 1;
	}
	if (tr_find(l, "max locked memory")) {
		st = use(t, l, &e);
		if (!st)
			return 0;
		if (tr_find(l, "unlimited"))
			tr_setnum(&st->memlock_bytes, INFINITY, e);
		else if (tr_after(s, end, ")", tr_num, &v))
			tr_setnum(&st->memlock_bytes, v * 1024, e); /* ulimit -a: kbytes */
		return 1;
	}
	return 0;
}

static int ik_llama_line(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len;
	double gib, ms;
	int e;
	const char *a = tr_find(l, "llocating");
	if (!a)
		return 0;
	const char *p = a + 9;
	while (p < end && !tr_digit(*p) && p - a < 24)
		p++;
	if (!tr_size_gib(&p, end, &gib))
		return 0;
	struct tr_start *st;
	if (tr_find(l, "done allocating") && tr_after(p, end, " in ", tr_dur_s, &ms)) {
		st = use(t, l, &e);
		if (!st)
			return 0;
		tr_setnum(&st->ph_s[TR_K_ALLOC], (tr_has(&st->ph_s[TR_K_ALLOC]) ? st->ph_s[TR_K_ALLOC].v : 0) + ms, e);
		st->ph_gib[TR_K_ALLOC] += gib;
		if (ms > 0 && gib > 1 && (!tr_has(&st->fill_rate) || gib / ms < st->fill_rate.v))
			tr_setnum(&st->fill_rate, gib / ms, e);
	} else if (tr_find(l, "pinned")) {
		st = tr_fresh_if(t, l, 0, "ik_llama.cpp");
		if (!st)
			return 0;
		tr_evid(st, l);
		tr_touch(st, l);
	} else {
		return 0;
	}
	tr_stage_raise(st, TR_ST_LOADING);
	return 1;
}

static int vllm_line(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len;
	double v, g;
	int e;
	struct tr_start *st;
	if (tr_find(l, "vLLM API server version") ||
	    tr_find(l, "Initializing a V1 LLM engine") || tr_find(l, "Initializing an LLM engine")) {
		st = tr_begin(t, l, "vllm");
		if (!st)
			return 0;
		tr_touch(st, l);
		return 1;
	}
	const char *k = tr_find(l, "Loading weights took");
	if (k && tr_after(k, end, "took", tr_dur_s, &v)) {
		st = use_as(t, l, &e, "vllm");
		if (!st)
			return 0;
		tr_setnum(&st->read_s, v, e);
		tr_stage_raise(st, TR_ST_LOADED);
		return 1;
	}
	k = tr_find(l, "Model loading took");
	if (k && tr_after(k, end, "took", tr_size_gib, &g)) {
		st = use_as(t, l, &e, "vllm");
		if (!st)
			return 0;
		/* each worker of the start (TP ranks) prints its own share: the
		 * start loaded their sum, in the longest worker's time */
		int more = tr_has(&st->loaded_gib) && st->vllm_loaded_n > 0;
		st->vllm_loaded_n++;
		tr_setnum(&st->loaded_gib, more ? st->loaded_gib.v + g : g, e);
		if (tr_after(k, end, " and ", tr_dur_s, &v)) {
			if (!(more && tr_has(&st->loaded_s) && st->loaded_s.v > v))
				tr_setnum(&st->loaded_s, v, e);
			if (st->loaded_s.v > 0)
				tr_setnum(&st->loaded_rate, st->loaded_gib.v / st->loaded_s.v, e);
		}
		if (tr_has(&st->read_s) && st->read_s.v > 0 && !tr_has(&st->read_gib)) {
			tr_setnum(&st->read_gib, g, e);
			tr_setnum(&st->read_rate, g / st->read_s.v, e);
		}
		tr_stage_raise(st, TR_ST_LOADED);
		return 1;
	}
	return 0;
}

static int runai_line(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len;
	const char *k = tr_find(l, "time to stream");
	if (!k)
		return 0;
	double g, secs, rate = NAN;
	if (!tr_after(k, end, "stream", tr_size_gib, &g))
		return 0;
	const char *colon = memchr(k, ':', (size_t)(end - k));
	if (!colon)
		return 0;
	const char *p = tr_skip_ws(colon + 1, end);
	if (!tr_dur_s(&p, end, &secs))
		return 0;
	for (; p < end; p++)
		if (tr_digit(*p)) {
			const char *q = p;
			if (tr_rate_gibps(&q, end, &rate))
				break;
		}
	int e;
	struct tr_start *st = use(t, l, &e);
	if (!st)
		return 0;
	tr_setnum(&st->read_s, secs, e);
	tr_setnum(&st->read_gib, g, e);
	st->from_device = 1; /* a streamer reads files from storage, not from the page cache */
	tr_setnum(&st->read_rate, isnan(rate) && secs > 0 ? g / secs : rate, e);
	tr_stage_raise(st, TR_ST_LOADING);
	return 1;
}

/* ---- generic failures and readiness -------------------------------------------- */

static int io_line(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s;
	size_t n = l->len;
	int e;
	static const char *const bad[] = {"unavailable", "not available", "not supported", "unsupported",
					  "disabled", "ENOSYS", "EPERM", "not permitted", "not implemented",
					  "failed", "falling back", "fall back", "fallback", NULL};
	int uring = tr_memmem(s, n, "io_uring") || tr_memmem(s, n, "io-uring") || tr_memmem(s, n, "iouring");
	int direct = tr_memmem(s, n, "O_DIRECT") || tr_memmem_ci(s, n, "direct I/O") || tr_memmem_ci(s, n, "direct io");
	if (!uring && !direct)
		return 0;
	int isbad = 0;
	for (const char *const *b = bad; *b && !isbad; b++)
		isbad = tr_memmem_ci(s, n, *b) != NULL;
	if (!isbad)
		return 0;
	struct tr_start *st = use(t, l, &e);
	if (!st)
		return 0;
	if (uring && st->ev_uring < 0)
		st->ev_uring = e;
	else if (direct && st->ev_direct < 0)
		st->ev_direct = e;
	return 1;
}

static int ready_line(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len;
	/* not "server is listening": llama-server listens before it loads */
	static const char *const marks[] = {"Application startup complete", "model loaded", "server ready", "Server ready", "is ready",
					    "ready in", "ready after", "Ready in", "] ready", "startup took", NULL};
	const char *k = NULL;
	for (const char *const *m = marks; *m && !k; m++) {
		k = tr_find(l, *m);
		if (k && k > s && isalpha((unsigned char)k[-1]))
			k = NULL; /* "already in" is not "ready in" */
	}
	if (!k || tr_find(l, "complement") || tr_ready_about_other(s, l->len) || tr_ready_part_only(s, l->len) ||
	    ((tr_memmem_ci(s, l->len, "not ") || tr_memmem_ci(s, l->len, "never")) && tr_ready_negated(s, l->len)))
		return 0;
	struct tr_start *st = t->cur;
	if (!st || st->stage < TR_ST_BEGAN || st->stage >= TR_ST_READY)
		return 0;
	int e = tr_evid(st, l);
	tr_touch(st, l);
	double v;
	const char *p = k;
	while (p < end && !tr_digit(*p) && p - k < 48)
		p++;
	if (p < end && tr_dur_s(&p, end, &v))
		tr_setnum(&st->ready_s, v, e);
	/* the clocks from a start's first line are its time to ready only
	 * where that line came before its load ended: a paste that opens at
	 * the load's end measures the steps after it, not the start */
	else if (!st->opened_loaded && tr_clock_span(st, l, &v)) {
		tr_setnum(&st->ready_s, v, e);
		st->ready_from_clock = 1;
	}
	else if (tr_has(&st->still_max_s))
		tr_setnum(&st->ready_s, st->still_max_s.v, st->still_max_s.ev);
	tr_stage_raise(st, TR_ST_READY);
	st->ev_end = e;
	return 1;
}

static int swap_text(struct lsc_triage *t, struct tr_line *l)
{
	if (!tr_memmem_ci(l->s, l->len, "swapping") && !tr_find(l, "kswapd"))
		return 0;
	int e;
	struct tr_start *st = use(t, l, &e);
	if (st && st->ev_swap_text < 0)
		st->ev_swap_text = e;
	return st != NULL;
}

int tr_recognise_public(struct lsc_triage *t, struct tr_line *l)
{
	uint64_t k = l->kw;
	if ((k & TR_G_STRACE) && (strace_line(t, l) || madvise_line(t, l)))
		return 1;
	if ((k & TR_G_VMSTAT) && vmstat_line(t, l))
		return 1;
	if ((k & TR_G_THPSET) && (thp_kv_settings(t, l) || thp_settings(t, l)))
		return 1;
	if ((k & TR_G_RATES) && rates_in_prose(t, l))
		return 1;
	/* each engine's recogniser, tagged with its engine (tr_engine_off) */
	if ((k & TR_G_LLAMA) && !tr_engine_off(t, "llama.cpp") && llama_line(t, l))
		return 1;
	if ((k & TR_G_LLAMA) && memlock_line(t, l))
		return 1;
	if ((k & TR_G_IK) && !tr_engine_off(t, "ik_llama.cpp") && ik_llama_line(t, l))
		return 1;
	if ((k & TR_G_VLLM) && !tr_engine_off(t, "vllm") && vllm_line(t, l))
		return 1;
	if ((k & TR_G_RUNAI) && !tr_engine_off(t, "vllm") && runai_line(t, l))
		return 1;
	if ((k & TR_G_IO) && io_line(t, l))
		return 1;
	if ((k & TR_G_READY) && ready_line(t, l))
		return 1;
	if ((k & TR_G_SWAP) && swap_text(t, l))
		return 1;
	return 0;
}
