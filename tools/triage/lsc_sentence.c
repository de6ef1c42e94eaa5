/*
 * The figures of a loadscope line read back from its human sentence alone.
 * A pasted line loses its ` | key=value` tail first (a chat cuts it at 80,
 * 120 or 1000 columns, a paste drops the part after the bar, and a brief
 * `[loadscope/2]` line never had most fields), while its sentence still
 * says every time, size, rate and count (docs/log-format.md, "Brief and
 * verbose lines"). This file turns the sentence into the fields the
 * recogniser reads, added only where the line lacks them, so a whole line
 * and its cut copy give the triage the same figures within the sentence's
 * rounding. It knows the sentences of /2 lines and the figures /1 sentences
 * share with them.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/vocab.h"
#include "lsc_sentence.h"

struct fill {
	struct lsc__parsed *p;
	char *buf;
	size_t cap, len;
};

static void put_str(struct fill *f, const char *key, const char *v, size_t n)
{
	if (lsc__parsed_get(f->p, key) || f->len + n + 1 > f->cap)
		return;
	char *d = f->buf + f->len;
	memcpy(d, v, n);
	d[n] = '\0';
	f->len += n + 1;
	lsc__parsed_add(f->p, key, d);
}

static void put_num(struct fill *f, const char *key, double v)
{
	/* most lines carry the field already: put_str would drop the text, so
	 * it is not formatted (the formatting was a tenth of the triage's time
	 * on verbose logs) */
	if (isnan(v) || lsc__parsed_get(f->p, key))
		return;
	char t[40];
	int n = snprintf(t, sizeof t, "%.17g", v);
	if (n > 0 && (size_t)n < sizeof t)
		put_str(f, key, t, (size_t)n);
}

/* A number at @s in the C form the writer prints ("0.429", "258.1k",
 * "-12"); NAN when none. @end past it. */
static double number(const char *s, const char **end)
{
	char *e;
	if (!s || !(isdigit((unsigned char)*s) || ((*s == '-' || *s == '+') && isdigit((unsigned char)s[1])))) {
		*end = s;
		return NAN;
	}
	double v = strtod(s, &e);
	*end = e;
	return v;
}

/* A count with the writer's k/M/G suffix (format/human.c). */
static double count(const char *s, const char **end)
{
	double v = number(s, end);
	if (isnan(v))
		return v;
	switch (**end) {
	case 'k': v *= 1e3, (*end)++; break;
	case 'M': v *= 1e6, (*end)++; break;
	case 'G': v *= 1e9, (*end)++; break;
	default: break;
	}
	return v;
}

/* "1.00 GiB", "64.0 MiB", "0 B": bytes. */
static double bytes(const char *s, const char **end)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = number(s, end);
	if (isnan(v) || **end != ' ')
		return NAN;
	const char *u = *end + 1;
	double m = 1;
	for (unsigned i = 0; i < sizeof unit / sizeof unit[0]; i++, m *= 1024) {
		size_t n = strlen(unit[i]);
		if (!strncmp(u, unit[i], n) && !isalpha((unsigned char)u[n])) {
			*end = u + n;
			return v * m;
		}
	}
	return NAN;
}

/* "0.429 s" */
static double secs(const char *s, const char **end)
{
	double v = number(s, end);
	if (isnan(v) || strncmp(*end, " s", 2) || isalpha((unsigned char)(*end)[2]))
		return NAN;
	*end += 2;
	return v;
}

/* The number after the first @word in @h (NULL when absent). */
static const char *after(const char *h, const char *word)
{
	const char *w = strstr(h, word);
	return w ? w + strlen(word) : NULL;
}

static void put_secs_after(struct fill *f, const char *h, const char *word, const char *key)
{
	const char *s = after(h, word), *e;
	if (s)
		put_num(f, key, secs(s, &e));
}

/* "allocate: 1.00 GiB in 0.429 s (2.33 GiB/s); machine thp_fault_alloc +8
 * compact_stall +3; this process 258.1k minor, 0 major faults" */
static void phase(struct fill *f, const char *h)
{
	const char *c = strchr(h, ':'), *e;
	if (!c || !c[1])
		return;
	/* the span's name, and the kind a loader span's name is */
	size_t nl = (size_t)(c - h);
	if (nl > 9 && !strncmp(c - 9, " (nested)", 9)) {
		put_str(f, LSC__KEY(DEPTH), "1", 1);
		nl -= 9;
	}
	put_str(f, LSC__KEY(NAME), h, nl);
	static const char *const kinds[] = {"allocate", "pin", "read", "copy", "verify"};
	for (unsigned i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (nl == strlen(kinds[i]) && !strncmp(h, kinds[i], nl))
			put_str(f, LSC__KEY(KIND), h, nl);
	const char *s = c + 2;
	if (!strncmp(s, "failed after ", 13)) {
		put_num(f, LSC__KEY(WALL_S), secs(s + 13, &e));
		put_str(f, "failed", "1", 1);
		return;
	}
	double b = bytes(s, &e);
	if (!isnan(b) && !strncmp(e, " in ", 4)) {
		put_num(f, LSC__KEY(BYTES), b);
		s = e + 4;
	}
	double w = secs(s, &e);
	put_num(f, LSC__KEY(WALL_S), w);
	if (!isnan(w) && !strncmp(e, " busy", 5) && strstr(e, "overlapped"))
		put_str(f, LSC__KEY(OVERLAPPED), "1", 1);
	if (!isnan(w) && !strncmp(e, " (", 2))
		put_num(f, LSC__KEY(GIBPS), number(e + 2, &e));
	const char *m = after(h, "; this process ");
	if (m) {
		double minflt = count(m, &e);
		put_num(f, "minflt", minflt);
		if (!strncmp(e, " minor, ", 8))
			put_num(f, LSC__KEY(MAJFLT), count(e + 8, &e));
		if (!isnan(minflt) && (w > 0 || minflt == 0))
			put_num(f, LSC__KEY(FAULTS_PER_S), minflt > 0 ? minflt / w : 0);
	}
	const char *v = after(h, "; machine ");
	if (v) {
		/* "name +N name -N ..." up to the next ';' */
		while (*v && *v != ';') {
			const char *sp = strchr(v, ' ');
			if (!sp)
				break;
			double d = count(sp + 1, &e);
			if (isnan(d))
				break;
			for (int k = 0; k < LSC_VM_COUNT; k++) {
				const char *nm = lsc_vm_name((enum lsc_vm_counter)k);
				if (nm && strlen(nm) == (size_t)(sp - v) && !strncmp(v, nm, (size_t)(sp - v)))
					put_num(f, lsc__vm_keys[k], d);
			}
			v = *e == ' ' ? e + 1 : e;
		}
	}
	const char *ps = after(h, "; stalled on memory ");
	if (ps) {
		double st = secs(ps, &e);
		if (!isnan(st))
			put_num(f, LSC__KEY(PSI_SOME_US), st * 1e6);
	}
}

/* "ready: resident 1.00 GiB, pinned 0.00 GiB in 0.721 s (alloc 0.292 s,
 * pin 0.000 s, copy 0.429 s); 0.02 GiB of it in huge pages" */
static void complement(struct fill *f, const char *h)
{
	const char *s, *e;
	if ((s = after(h, "resident ")))
		put_num(f, LSC__KEY(RESIDENT_BYTES), bytes(s, &e));
	if ((s = after(h, "pinned ")))
		put_num(f, LSC__KEY(PINNED_BYTES), bytes(s, &e));
	if ((s = after(h, " by the caller in ")) || (s = after(h, " GiB in ")))
		put_num(f, LSC__KEY(TOTAL_S), secs(s, &e));
	put_secs_after(f, h, "(alloc ", LSC__KEY(ALLOC_S));
	put_secs_after(f, h, ", pin ", "pin_s");
	put_secs_after(f, h, ", copy ", LSC__KEY(COPY_S));
	put_secs_after(f, h, "(copy ", LSC__KEY(COPY_S)); /* the caller's memory */
}

/* "1.00 GiB in 0.721 s (1.39 GiB/s over the wall time); allocate 0.292 s,
 * pin 0.000 s, read 0.429 s (2.33 GiB/s), verify 0.281 s busy; io_uring,
 * buffered" */
static void loaded(struct fill *f, const char *h)
{
	const char *e, *s;
	put_num(f, LSC__KEY(BYTES), bytes(h, &e));
	if (!strncmp(e, " in ", 4)) {
		put_num(f, LSC__KEY(WALL_S), secs(e + 4, &e));
		if (!strncmp(e, " (", 2))
			put_num(f, LSC__KEY(GIBPS), number(e + 2, &e));
	}
	put_secs_after(f, h, "; allocate ", LSC__KEY(ALLOC_S));
	put_secs_after(f, h, ", pin ", "pin_s");
	if ((s = after(h, " read "))) {
		put_num(f, LSC__KEY(READ_S), secs(s, &e));
		if (!strncmp(e, " (", 2))
			put_num(f, LSC__KEY(READ_GIBPS), number(e + 2, &e));
	}
	put_secs_after(f, h, ", copy ", LSC__KEY(COPY_S));
	put_secs_after(f, h, ", verify ", "verify_s");
	if (strstr(h, ", O_DIRECT"))
		put_str(f, LSC__KEY(DIRECT), "1", 1);
}

/* "in 0.764 s: 5 phases, 0.044 s (5.7%) unattributed" */
static void ready(struct fill *f, const char *h)
{
	const char *e;
	if (strncmp(h, "in ", 3))
		return;
	double w = secs(h + 3, &e);
	put_num(f, LSC__KEY(WALL_S), w);
	if (strncmp(e, ": ", 2))
		return;
	put_num(f, "phases", number(e + 2, &e));
	if (strncmp(e, " phases, ", 9))
		return;
	double u = secs(e + 9, &e);
	put_num(f, LSC__KEY(UNATTRIBUTED_S), u);
	if (!isnan(w) && !isnan(u))
		put_num(f, LSC__KEY(COVERED_S), w - u);
}

/* A word after @word up to the next delimiter. */
static void put_word_after(struct fill *f, const char *h, const char *word, const char *key)
{
	const char *s = after(h, word);
	if (!s)
		return;
	size_t n = strcspn(s, " ,;()");
	if (n)
		put_str(f, key, s, n);
}

/* "6.18.44; THP madvise, defrag madvise; MemAvailable 22.58 GiB of 23.54
 * GiB, 5.43 GiB in huge-page blocks; hugetlb 0 of 8 free;
 * CAP_IPC_LOCK | memlock 8.0 MiB; page reporting (order 9)" */
static void system_(struct fill *f, const char *h)
{
	const char *s, *e;
	put_word_after(f, h, "; THP ", LSC__KEY(THP_ENABLED));
	put_word_after(f, h, ", defrag ", LSC__KEY(THP_DEFRAG));
	put_word_after(f, h, " THP enabled=", LSC__KEY(THP_ENABLED)); /* /1 */
	put_word_after(f, h, " defrag=", LSC__KEY(THP_DEFRAG));
	if (strstr(h, "disabled by prctl"))
		put_str(f, LSC__KEY(THP_PRCTL), "disabled", 8);
	if ((s = after(h, "MemAvailable "))) {
		double a = bytes(s, &e);
		put_num(f, "mem_available_bytes", a);
		if (!strncmp(e, " of ", 4))
			put_num(f, LSC__KEY(MEM_TOTAL_BYTES), bytes(e + 4, &e));
	}
	if ((s = after(h, "; hugetlb "))) {
		put_num(f, LSC__KEY(HUGETLB_FREE), number(s, &e));
		if (!strncmp(e, " of ", 4))
			put_num(f, LSC__KEY(HUGETLB_TOTAL), number(e + 4, &e));
	}
	if (strstr(h, "CAP_IPC_LOCK"))
		put_str(f, LSC__KEY(CAP_IPC_LOCK), "1", 1);
	if ((s = after(h, "; memlock "))) {
		if (!strncmp(s, "unlimited", 9))
			put_str(f, LSC__KEY(MEMLOCK_BYTES), "unlimited", 9);
		else
			put_num(f, LSC__KEY(MEMLOCK_BYTES), bytes(s, &e));
	}
	if ((s = after(h, "page reporting"))) {
		put_str(f, LSC__KEY(PAGE_REPORTING), "1", 1);
		if ((s = after(s, "(order ")))
			put_num(f, LSC__KEY(PAGE_REPORTING_ORDER), number(s, &e));
	}
}

/* "1.00 GiB as thp (requested auto by option): room; ..." */
static void arena(struct fill *f, const char *h)
{
	const char *e;
	double b = bytes(h, &e);
	if (isnan(b) || strncmp(e, " as ", 4))
		return;
	put_num(f, LSC__KEY(ARENA_BYTES), b);
	put_word_after(f, e, " as ", LSC__KEY(POLICY));
	put_word_after(f, e, "(requested ", LSC__KEY(REQUESTED));
	put_word_after(f, e, " by ", LSC__KEY(SOURCE));
}

/* "WHAT: wanted W, took T: REASON" */
static void fallback(struct fill *f, const char *h)
{
	const char *c = strchr(h, ':');
	if (!c)
		return;
	put_str(f, LSC__KEY(WHAT), h, (size_t)(c - h));
	const char *w = after(c, ": wanted "), *t = w ? strstr(w, ", took ") : NULL;
	if (!w || !t)
		return;
	put_str(f, LSC__KEY(WANTED), w, (size_t)(t - w));
	t += 7;
	const char *r = strstr(t, ": ");
	put_str(f, LSC__KEY(TOOK), t, r ? (size_t)(r - t) : strlen(t));
	if (r)
		put_str(f, LSC__KEY(REASON), r + 2, strlen(r + 2));
}

/* "TOPIC: text" */
static void note(struct fill *f, const char *h)
{
	const char *c = strchr(h, ':');
	if (!c || c == h || strcspn(h, " ") < (size_t)(c - h))
		return;
	put_str(f, LSC__KEY(TOPIC), h, (size_t)(c - h));
	if (c[1] == ' ')
		put_str(f, LSC__KEY(TEXT), c + 2, strlen(c + 2));
}

/* "buffer: 64.0 MiB mapped, 64.0 MiB resident, 0 B in transparent huge
 * pages, 0 B hugetlb, 0 B locked; THPeligible 0; 1 mapping" */
static void region(struct fill *f, const char *h)
{
	const char *s = after(h, " in transparent huge pages, "), *e;
	if (s) {
		double b = bytes(s, &e);
		if (!strncmp(e, " hugetlb", 8))
			put_num(f, LSC__KEY(HUGETLB_BYTES), b);
	}
}

/* "in read after 10.004 s: 1.00 GiB of 8.00 GiB done (12%), 0.10 GiB/s now;
 * machine compact_stall 120/s; this process 25.6k faults/s; stalled on
 * memory 81% of the time" */
static void still(struct fill *f, const char *h)
{
	const char *s, *e;
	if ((s = after(h, " after ")))
		put_num(f, LSC__KEY(ELAPSED_S), secs(s, &e));
	if ((s = after(h, " s: "))) {
		double d = bytes(s, &e);
		if (!isnan(d) && !strncmp(e, " of ", 4)) {
			put_num(f, LSC__KEY(DONE_BYTES), d);
			put_num(f, "total_bytes", bytes(e + 4, &e));
		} else if (!isnan(d) && !strncmp(e, " done, more than the ", 21)) {
			/* progress past what the span was given */
			put_num(f, LSC__KEY(DONE_BYTES), d);
			put_num(f, "total_bytes", bytes(e + 21, &e));
		}
	}
	if ((s = strstr(h, " GiB/s now"))) {
		while (s > h && (isdigit((unsigned char)s[-1]) || s[-1] == '.'))
			s--;
		put_num(f, LSC__KEY(GIBPS), number(s, &e));
	}
	if ((s = after(h, "; this process ")))
		put_num(f, LSC__KEY(FAULTS_PER_S), count(s, &e));
	const char *v = after(h, "; machine ");
	while (v && *v && *v != ';') {
		const char *sp = strchr(v, ' ');
		if (!sp)
			break;
		double d = count(sp + 1, &e);
		if (isnan(d) || strncmp(e, "/s", 2))
			break;
		for (int k = 0; k < LSC_VM_COUNT; k++) {
			const char *nm = lsc_vm_name((enum lsc_vm_counter)k);
			if (nm && strlen(nm) == (size_t)(sp - v) && !strncmp(v, nm, (size_t)(sp - v)))
				put_num(f, lsc__vm_rate_keys[k], d);
		}
		v = e[2] == ' ' ? e + 3 : e + 2;
	}
}

/* "WHAT failed: ..." */
static void error(struct fill *f, const char *h)
{
	const char *s = strstr(h, " failed");
	if (s && strcspn(h, " ") == (size_t)(s - h))
		put_str(f, LSC__KEY(WHAT), h, (size_t)(s - h));
}

void tr_lsc_sentence(struct lsc__parsed *p, int ev, char *buf, size_t cap)
{
	struct fill f = {p, buf, cap, 0};
	const char *h = p->human;
	if (!h || !*h || cap < 2)
		return;
	/* A line with no field after its sentence may have been cut inside
	 * it. Every number of a sentence is followed by its unit or a word
	 * ("0.429 s", "3 major faults"), so a sentence that ends in a number
	 * ("+8" of "+85", "2." of "2.33") was cut there, and that number is
	 * not read. A line with fields has its sentence whole. */
	size_t hl = strlen(h);
	size_t e = hl && strchr("kMG", h[hl - 1]) ? hl - 1 : hl;
	if (e && h[e - 1] == '.')
		e--;
	if (!p->n && e && isdigit((unsigned char)h[e - 1])) {
		const char *sp = strrchr(h, ' ');
		size_t n = sp ? (size_t)(sp - h) : 0;
		if (n + 1 > cap / 2)
			n = cap / 2 - 1;
		memcpy(buf, h, n);
		buf[n] = '\0';
		h = buf;
		f.len = n + 1;
	}
	/* the counters a cut sentence does not list are not known to be 0 */
	if (!p->n && ev == LSC__EV_PHASE)
		put_str(&f, LSC__KEY(VM), "n/a", 3);
	switch (ev) {
	case LSC__EV_PHASE: phase(&f, h); break;
	case LSC__EV_COMPLEMENT: complement(&f, h); break;
	case LSC__EV_LOADED: loaded(&f, h); break;
	case LSC__EV_READY: ready(&f, h); break;
	case LSC__EV_SYSTEM: system_(&f, h); break;
	case LSC__EV_ARENA: arena(&f, h); break;
	case LSC__EV_FALLBACK: fallback(&f, h); break;
	case LSC__EV_NOTE: note(&f, h); break;
	case LSC__EV_ERROR: error(&f, h); break;
	case LSC__EV_REGION: region(&f, h); break;
	case LSC__EV_STILL: still(&f, h); break;
	default: break;
	}
}
