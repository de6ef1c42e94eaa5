/*
 * The triage's front door: assemble lines from arbitrarily chunked input in
 * one fixed buffer (so memory does not grow with the input), clean each line,
 * hand it to the recognisers, and at the end close the open starts so that
 * their rules run. A line longer than LSC_TRIAGE_LINE_MAX keeps its first
 * LSC_TRIAGE_LINE_MAX bytes and is flagged; the rest is skipped up to the
 * next newline.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Has a line of this input named a model so far, and how many log lines
 * (a level or a clock) came before one did (server_up.c: a server up at
 * its address after its own log lines, none naming a model, holds no
 * model)? Searched for in each line only until one names a model, so a
 * model's log pays for it on its first lines and no more; reset at each
 * input. */
static void model_named(struct lsc_triage *t, const struct tr_line *l)
{
	if (t->model_src != l->src) {
		t->model_src = l->src;
		t->model_said = 0;
		t->unnamed_log_lines = 0;
	}
	if (t->model_said)
		return;
	t->model_said = strstr(l->s, "odel") || strstr(l->s, "ODEL");
	/* a service manager's own lines in a journal (`systemd[1]: Started
	 * x.service`) are not the program's, nor is the shell's prompt with
	 * the command that ran it (a clock a collector put before it too) */
	if (!t->model_said && !(l->flags & TR_L_MANAGER) && (l->level != TR_LV_NONE || !isnan(l->ts)) &&
	    !tr_prompt_command(l->s, l->len))
		t->unnamed_log_lines++;
}

static void flush_held(struct lsc_triage *t);

/* An input's name as the output shows it: under --redact with its paths
 * and user names taken out, as the quoted lines are (a file under
 * /home/NAME names the user). */
static void set_source(struct lsc_triage *t, unsigned i, const char *name)
{
	if (!name)
		name = "input";
	if (t->opts.flags & LSC_TRIAGE_REDACT)
		tr_redact(name, t->srcname[i], sizeof(t->srcname[0]));
	else
		snprintf(t->srcname[i], sizeof(t->srcname[0]), "%s", name);
}

struct lsc_triage *lsc_triage_new(const struct lsc_triage_opts *opts)
{
	struct lsc_triage *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	if (opts)
		t->opts = *opts;
	t->opts.source = NULL;
	t->bcap = t->hcap = t->scap = TR_LINE_CAP0;
	t->buf = malloc(t->bcap);
	t->held = malloc(t->hcap);
	t->scratch = malloc(t->scap);
	t->fscratch = malloc(sizeof(*t->fscratch));
	t->full = calloc(64, sizeof(*t->full));
	t->pf = tr_prefilter_shared();
	t->sums = calloc(64, sizeof(*t->sums));
	t->srcname = calloc(8, sizeof(*t->srcname));
	t->srccap = 8;
	if (!t->buf || !t->held || !t->scratch || !t->fscratch || !t->full || !t->sums || !t->pf || !t->srcname) {
		lsc_triage_free(t);
		return NULL;
	}
	t->full_cap = t->sums_cap = 64;
	t->rules = tr_rules;
	t->nrules = tr_nrules;
	t->ctx.normal_fill_gibps = NAN;
	for (int k = 0; k < TR_TS_KINDS; k++)
		t->pending_ts[k] = t->pending_last[k] = NAN;
	t->nsrc = 1;
	/* LSC_TRIAGE_DEBUG=1: every cleaned line and whether a recogniser used it */
	t->debug = getenv("LSC_TRIAGE_DEBUG") != NULL;
	set_source(t, 0, opts ? opts->source : NULL);
	return t;
}

/* Give one of the line buffers room for @need bytes and a terminator: a
 * triage takes what its longest line needs (the cap is
 * LSC_TRIAGE_LINE_MAX), not 3 MiB up front, since a run of many small
 * inputs (an engine's health check, the damage test) pays for every byte
 * it takes. 0 when it holds them; -1 when memory ran out (the caller cuts
 * the line at what fits and counts it in lines_oom, or, for a join, leaves
 * the lines apart). */
static int line_room(char **p, size_t *cap, size_t need)
{
	need += 2;
	if (need <= *cap)
		return 0;
	size_t n = *cap;
	while (n < need)
		n *= 2;
	if (n > LSC_TRIAGE_LINE_MAX + 2)
		n = LSC_TRIAGE_LINE_MAX + 2;
	char *q = realloc(*p, n);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

void *tr_grow(void *p, size_t *cap, size_t size)
{
	void *n = realloc(p, 2 * *cap * size);
	if (n)
		*cap *= 2;
	return n;
}

/* A new input: nothing of the one before carries over but its starts
 * (which a loadscope line's run id may still name): not the start its
 * unkeyed lines went to, the clocks seen before a start, a drawn table
 * still open, or a request's failure (by its line number,
 * which restarts). The held line was flushed and a setting's awaited
 * value is the next line's, so neither can leak. */
static void input_apart(struct lsc_triage *t)
{
	t->cur = NULL;
	for (int k = 0; k < TR_TS_KINDS; k++) {
		t->pending_ts[k] = t->pending_last[k] = NAN;
		t->pending_mixed[k] = t->pending_depth[k] = 0;
	}
	t->clean.ascii_table = 0;
	t->req_fail_no = 0;
	t->box_end_no = 0;
}

int lsc_triage_source(struct lsc_triage *t, const char *name)
{
	if (t->finished)
		return -EINVAL;
	/* a new input: its last unterminated line ends here */
	if (t->blen || t->overlong) {
		t->tail_no = t->lineno + 1;
		lsc_triage_feed(t, "\n", 1);
	}
	flush_held(t); /* the last line of the input before: its source's */
	t->tail_no = 0;  /* the next input's line numbers start again */
	tr_boot_start(t);
	t->boot_base = t->nstarts;
	if (t->lineno == 0 && t->nsrc == 1 && t->src == 0) {
		set_source(t, 0, name);
		return 0;
	}
	if (t->nsrc == t->srccap) {
		void *more = realloc(t->srcname, 2 * t->srccap * sizeof(*t->srcname));
		if (!more)
			return -ENOMEM;
		t->srcname = more;
		t->srccap *= 2;
	}
	t->src = t->nsrc++;
	set_source(t, t->src, name);
	t->lineno = 0;
	input_apart(t);
	return 0;
}

const char *tr_src_name(const struct lsc_triage *t, unsigned src)
{
	return src < t->nsrc ? t->srcname[src] : "input";
}

/* Does @s begin with one of the prefilter's TR_G_LSC keywords (the human
 * tag, or the JSON tag's key)? */
static int opens_with_tag(const char *s, size_t n)
{
	static const char human[] = "[loadscope/", json[] = "{\"loadscope\"";
	return (n >= sizeof(human) - 1 && !memcmp(s, human, sizeof(human) - 1)) ||
	       (n >= sizeof(json) - 1 && !memcmp(s, json, sizeof(json) - 1));
}

/* A share with no words of its own ("\xe2\xa0\x87 [\xe2\x96\x8e] 99.90%", a
 * spinner's frame and its bar): in a start whose load began in words, not
 * done, the load's share so far; under 100 it is still under way. *frac
 * gets the share. The line holds no letter: a word makes it another
 * line's figure ("GPU 45%", "disk 99%"). */
static int wordless_share(const struct tr_start *st, const struct tr_line *l, double *frac)
{
	if (!st->gen_load_began || l->s[l->len - 1] != '%')
		return 0;
	for (size_t i = 0; i < l->len; i++)
		if (tr_alpha(l->s[i]))
			return 0;
	size_t b = l->len - 1;
	while (b > 0 && (tr_digit(l->s[b - 1]) || l->s[b - 1] == '.'))
		b--;
	const char *p = l->s + b;
	double v;
	if (b == l->len - 1 || !tr_num(&p, l->s + l->len, &v) || v < 0 || v > 100)
		return 0;
	*frac = v / 100;
	return 1;
}

/* A spinner's frame alone on the line (a braille pattern, U+2800-U+28FF,
 * as CLI spinners draw them: "\xe2\xa0\xb9"): the program was at work when
 * the paste took it, with nothing said yet of the step's end. */
static int spinner_frame(const struct tr_line *l)
{
	const unsigned char *p = (const unsigned char *)l->s, *end = p + l->len;
	while (p < end && *p == ' ')
		p++;
	if (end - p < 3 || p[0] != 0xe2 || p[1] < 0xa0 || p[1] > 0xa3 || (p[2] & 0xc0) != 0x80)
		return 0;
	for (p += 3; p < end; p++)
		if (*p != ' ')
			return 0;
	return 1;
}

/* llama.cpp prints a dot per tensor group while it loads ("....", or one
 * "." a line behind an app's label), and a launcher a spinner's share
 * (wordless_share): in a start that is loading and not done, a line whose
 * text ends in a run of dots alone, or that is a share under 100 alone,
 * says the load is still under way. */
static int progress_dots(struct lsc_triage *t, const struct tr_line *l)
{
	struct tr_start *st = t->cur;
	if (!st || st->src != l->src || st->done || st->stage < TR_ST_BEGAN || st->stage >= TR_ST_READY || !l->len)
		return 0;
	double frac;
	if (wordless_share(st, l, &frac)) {
		st->dots_open = frac < 1;
		return 0;
	}
	if (spinner_frame(l)) {
		st->dots_open = 1;
		return 0;
	}
	if (l->s[l->len - 1] != '.')
		return 0;
	size_t i = l->len;
	while (i > 0 && l->s[i - 1] == '.')
		i--;
	if (i > 0 && l->s[i - 1] != ' ')
		return 0;
	st->dots_open = 1;
	return 0; /* a hint, not a recognised line: the next recognised line clears it */
}

/* "loading model tensors, this can take a while...", "loading model from
 * 'm.bin' - please wait ...": the engine says the step it just began
 * takes long. Read on a line some recogniser used, whichever, or (@next)
 * on the line right after the start's last recognised one, which says it
 * of that line's step ("Loading Model: m", then "This action can take a
 * few minutes!"): when no recognised line of the start follows it
 * (tr_touch clears it), the paste ends with that step under way
 * (loading), not merely before an outcome. */
static void long_step_said(struct lsc_triage *t, const struct tr_line *l, int next)
{
	static const char *const w[] = {"take a while", "takes a while", "please wait", "take a few minutes",
					"take several minutes", "take some time"};
	struct tr_start *st = t->cur;
	if (!(l->kw & TR_G_GSTEP) || !st || st->src != l->src || st->done || st->stage < TR_ST_BEGAN ||
	    st->stage >= TR_ST_READY || (next && st->last_line + 1 != l->no))
		return;
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (tr_memmem_ci(l->s, l->len, w[i])) {
			/* the step is the line before's, which no name here repeats */
			size_t n = next ? 0 : tr_step_name(l);
			st->began_open = 1;
			memcpy(st->began_step, l->s, n);
			st->began_step[n] = 0;
			return;
		}
}

/* "Downloading model... 7%", "Loading weights 45 %": a load or a fetch
 * that counts its own share in words, the share the line's last figure.
 * Under 100 on the start's recognised line, the paste that ends there
 * ends with that step under way (loading), as long_step_said's; 100 %
 * says nothing of what comes next. Not a share of something else that
 * the line only reports ("45% of memory used": no load or fetch word). */
static void share_so_far(struct lsc_triage *t, const struct tr_line *l)
{
	static const char *const ing[] = {"loading", "downloading", "fetching", "reading", NULL};
	struct tr_start *st = t->cur;
	size_t n = l->len;
	while (n > 0 && (l->s[n - 1] == ' ' || l->s[n - 1] == '.' || l->s[n - 1] == ')'))
		n--;
	if (n < 3 || l->s[n - 1] != '%' || !st || st->src != l->src || st->done || st->stage < TR_ST_BEGAN ||
	    st->stage >= TR_ST_READY || tr_start_failed(st))
		return;
	size_t e = n - 1;
	while (e > 0 && l->s[e - 1] == ' ')
		e--;
	size_t b = e;
	while (b > 0 && (tr_digit(l->s[b - 1]) || l->s[b - 1] == '.'))
		b--;
	if (b == e || !tr_digit(l->s[b]) || (b > 0 && l->s[b - 1] != ' ' && l->s[b - 1] != '(' && l->s[b - 1] != ':'))
		return;
	const char *p = l->s + b;
	double v;
	if (!tr_num(&p, l->s + e, &v) || p != l->s + e || !(v < 100) || !tr_any_word(l->s, b, ing))
		return;
	size_t k = tr_step_name(l);
	st->began_open = 1;
	memcpy(st->began_step, l->s, k);
	st->began_step[k] = 0;
}

/* "It's stuck here all the time", "hangs at this point": the reporter (or
 * a watchdog) saying the start under way stopped moving. The paste that
 * ends with that said ends with its step under way (loading, as a step
 * said to take long), until a recognised line of the start says more.
 * Not negated ("not stuck", "no longer hangs"), not a guess ("may be
 * stuck"); a start that failed or came up (or holds only settings) keeps
 * that outcome, which the verdict reads before a step under way. */
static void stuck_said(struct lsc_triage *t, const struct tr_line *l)
{
	static const char *const stuck[] = {"stuck", "hangs", "hanging", "hung", "freezes", "frozen", NULL};
	static const char *const neg[] = {"not", "no", "never", "isn", "wasn", "doesn", "didn", "unstuck", NULL};
	struct tr_start *st = t->cur;
	/* the prefilter's keys first: most lines hold none of the words */
	if (!(l->kw & TR_G_GSTEP) || !st || st->src != l->src || !tr_any_word(l->s, l->len, stuck))
		return;
	if (tr_any_word(l->s, l->len, neg) || tr_hedged(l->s, l->len))
		return;
	st->began_open = 1;
	st->began_step[0] = 0;
}

/* What a line says of the start under way once the recognisers are done
 * with it (@used: one took it): a step said to take long, a share counted
 * in words, the start said to be stuck, a load's failure in words. */
static void hints_after(struct lsc_triage *t, const struct tr_line *l, int used)
{
	long_step_said(t, l, !used);
	if (used)
		share_so_far(t, l);
	stuck_said(t, l);
	if (used && (l->kw & TR_G_GFATAL))
		tr_load_failure_said(t, l);
}

/* A clock in a structured line's field, the kind of clock no prefix
 * gives: ik_llama's and llama-server's "timestamp=1760633941" (Unix
 * seconds), logfmt's "time=2024-07-21T09:37:04.768Z" (Go's slog, ollama
 * and most Go programs), at the line's start or after a space. */
static void field_clock(struct tr_line *l)
{
	const char *end = l->s + l->len;
	const char *k = tr_memmem(l->s, l->len, "timestamp=");
	double v;
	if (k) {
		const char *p = k + 10;
		if (tr_num(&p, end, &v) && v > 1e8)
			l->tsk[2] = l->ts = fmod(v, 86400.0);
		return;
	}
	k = tr_memmem(l->s, l->len, "time=");
	if (!k || (k > l->s && k[-1] != ' ') || end - k < 24)
		return;
	const char *d = k + 5; /* YYYY-MM-DDTHH:MM:SS */
	if (!(tr_digit(d[0]) && tr_digit(d[3]) && d[4] == '-' && d[7] == '-' && (d[10] == 'T' || d[10] == ' ') &&
	      tr_digit(d[11]) && tr_digit(d[12]) && d[13] == ':' && tr_digit(d[14]) && tr_digit(d[15]) && d[16] == ':' &&
	      tr_digit(d[17]) && tr_digit(d[18])))
		return;
	v = ((d[11] - '0') * 10 + (d[12] - '0')) * 3600.0 + ((d[14] - '0') * 10 + (d[15] - '0')) * 60.0 +
	    (d[17] - '0') * 10 + (d[18] - '0');
	if (d + 19 < end && (d[19] == '.' || d[19] == ','))
		tr_add_frac(d + 20, end, &v);
	if (v < 86400)
		l->tsk[2] = l->ts = v;
}

/* A line's clock of one kind (tr_line.tsk): the first and the latest of
 * that kind in a start. A line with fewer prefix clocks than the kind's
 * first (@depth; 0 not counted) lacks the innermost stamp (a fence, a
 * brace, a continuation a collector stamped, not the engine): its inner
 * clock is the collector's, and is passed over. A kind holds two clocks,
 * and its span says nothing, when a line carries more prefix clocks than
 * its first (the first was a collector's), or when it goes back by more
 * than the out-of-order output of a few workers (a minute): the engine's
 * own stamps on some lines, a collector's on the others, hours apart when
 * their time zones differ. A step back of half a day or more is midnight. */
#define TR_CLOCK_BACK_S 60.0
static void clock_seen(double *first, double *last, unsigned char *mixed, unsigned char *first_depth, double v,
		       unsigned char depth)
{
	if (!isnan(*first) && depth && *first_depth && depth < *first_depth)
		return;
	if (isnan(*first)) {
		*first = v;
		*first_depth = depth;
	} else if ((depth && *first_depth && depth != *first_depth) ||
		   (!isnan(*last) && v < *last - TR_CLOCK_BACK_S && *last - v < 43200)) {
		*mixed = 1;
	}
	*last = v;
}

/* A line with Chinese load words is read in English (cjk_words.c), the
 * pasted text kept for the quotes; out of memory, as it was. */
static void cjk_in_english(struct lsc_triage *t, struct tr_line *l)
{
	size_t cap = 3 * l->len + 8;
	if (cap > LSC_TRIAGE_LINE_MAX)
		return;
	if (cap > t->cjkcap) {
		char *p = realloc(t->cjk, cap);
		if (!p)
			return;
		t->cjk = p;
		t->cjkcap = cap;
	}
	size_t n = tr_cjk_words(l->s, l->len, t->cjk, t->cjkcap - 1);
	if (!n || line_room(&t->scratch, &t->scap, n))
		return;
	t->cjk[n] = 0;
	l->quote = l->s;
	l->quote_len = l->len;
	l->s = t->cjk;
	l->len = n;
}

static void process_line(struct lsc_triage *t, char *s, size_t len, unsigned long no, int overlong)
{
	/* the recognisers' scratch holds any line they are given (out of
	 * memory: the line is cut to what it holds, and counted) */
	int cut = 0;
	if (line_room(&t->scratch, &t->scap, len)) {
		len = t->scap - 2;
		s[len] = 0;
		cut = 1;
		t->lines_oom++;
	}
	struct tr_line l = {.s = s, .len = len, .no = no, .src = t->src, .ts = NAN, .tsk = {NAN, NAN, NAN}};
	if (no && no == t->tail_no)
		l.flags |= TR_L_TAIL;
	if (overlong) {
		l.flags |= TR_L_TRUNCATED;
		t->ntrunc++;
	}
	if (cut)
		l.flags |= TR_L_TRUNCATED;
	t->nlines++;
	if (!tr_clean_line(&t->clean, &l))
		return;
	if (l.flags & TR_L_BADUTF8)
		t->nbad_utf8++;
	cjk_in_english(t, &l);
	if (t->cur)
		t->cur->dots_open = 0; /* any line after loading dots: they are not the last word */
	tr_prompt_after(t, &l);
	int used = 0;
	if (t->pending_setting && tr_recognise_setting_value(t, &l)) {
		t->nrecog++;
		return;
	}
	/* A line that opens with this project's tag (half the bytes of a log
	 * loadscope writes to) is its recogniser's: the keyword pass, the
	 * costliest step per byte, runs for it only when that recogniser does
	 * not take it. Its one other keyword that matters first is the clock. */
	int lsc_first = opens_with_tag(l.s, l.len);
	if (lsc_first)
		l.kw = TR_G_LSC | (tr_memmem(l.s, l.len, "timestamp=") ? TR_G_EPOCH : 0);
	else
		tr_prefilter_line(t->pf, &l);
	if (l.kw & TR_G_EPOCH)
		field_clock(&l);
	/* rich's rounded box closing (its traceback panel): the exception
	 * line right after it is the block's (recognise_generic.c) */
	if (l.len >= 6 && (unsigned char)l.s[0] == 0xe2 && !memcmp(l.s, "\xe2\x95\xb0\xe2\x94\x80", 6))
		t->box_end_no = l.no;
	for (int k = 0; k < TR_TS_KINDS && !(l.flags & TR_L_MANAGER); k++) {
		if (isnan(l.tsk[k]))
			continue;
		/* the inner kind is the one whose clock the prefix count tells */
		unsigned char depth = k == 1 ? l.nclocks : 0;
		if (t->cur && t->cur->stage < TR_ST_READY && t->cur->src == l.src) {
			struct tr_start *c = t->cur;
			/* the lines before the start gave the kind's first clock at
			 * another prefix depth (an engine's stamps, then a collector's
			 * on the start's own lines): the start's span is on its own */
			if (!(c->ts_own >> k & 1) && depth && c->ts_depth[k] && depth != c->ts_depth[k]) {
				c->ts_begin[k] = c->ts_last[k] = NAN;
				c->ts_mixed[k] = 0;
			}
			clock_seen(&c->ts_begin[k], &c->ts_last[k], &c->ts_mixed[k], &c->ts_depth[k], l.tsk[k], depth);
			c->ts_own |= (unsigned char)(1u << k);
		} else
			clock_seen(&t->pending_ts[k], &t->pending_last[k], &t->pending_mixed[k], &t->pending_depth[k],
				   l.tsk[k], depth);
	}
	/* a frame of a JVM's or .NET's stack trace: the line before it was
	 * the exception (managed_trace.c) */
	int framed = tr_managed_block(t, &l);
	used = framed;
	if (!used && (l.kw & TR_G_LSC))
		used = tr_recognise_lsc(t, &l);
	if (!used && lsc_first)
		tr_prefilter_line(t->pf, &l);
	/* a shell's prompt and a command that runs a program: what follows is a start */
	if (!used && !lsc_first && !(l.flags & TR_L_MDTABLE))
		used = tr_recognise_prompt(t, &l);
	/* a row of a status table a program drew (Triton's models) */
	if (!used && (l.flags & TR_L_TABLE))
		used = tr_recognise_table_row(t, &l);
	/* A markdown table row is a report's prose, not a log line (seed
	 * 000's A/B table); only this project's tagged lines count there. */
	if (!used && l.kw && !(l.flags & TR_L_MDTABLE))
		used = tr_recognise_strata(t, &l) || tr_recognise_public(t, &l) || tr_recognise_shapes(t, &l);
	/* the shared vocabulary: levels, failures, ready words, figures */
	/* (and every line of an open traceback: its frames say what it was
	 * doing; of one that opened no start yet, too: a line of it that loads
	 * opens it) */
	/* (and, in a program that opened its load under a banner, a banner
	 * line: the section of its next step, which no keyword marks) */
	if (!used &&
	    ((l.kw & (TR_G_GANY | TR_G_LOADED | TR_G_IK)) || l.level >= TR_LV_ERROR ||
	     (t->cur && (t->cur->in_traceback || (t->cur->load_banner && l.len > 3 && strchr("=-#*~", l.s[0])))) ||
	     (!t->cur && t->tb_orphan_no) || (t->cur && t->tb_late_no)) &&
	    !(l.flags & TR_L_MDTABLE))
		used = tr_recognise_generic(t, &l);
	if (!used)
		used = progress_dots(t, &l);
	hints_after(t, &l, used);
	if (!framed)
		tr_managed_keep(t, &l);
	if (!used)
		tr_boot_seen(t, &l);
	if (used)
		t->nrecog++;
	model_named(t, &l);
	if (t->debug)
		fprintf(stderr, "triage: %lu %s start=%d: %.*s\n", l.no, used ? "USED" : "    ",
			t->cur ? (int)t->cur->first_line : -1, (int)(l.len < 160 ? l.len : 160), l.s);
}

/* Is @w a terminal's width a paste is commonly wrapped at? */
static int wrap_width(size_t w)
{
	return w == 80 || w == 100 || w == 120 || w == 132 || w == 160 || w == 200;
}

/* A terminal pane's right border, `│` (a tmux or IDE pane copied whole) */
#define PANE_BAR "\xe2\x94\x82"

/* Does the line @s[0..n) end on a pane's border right after its text (no
 * padding between): the pane wrapped it there, and its next line inside
 * the pane continues it ("...gemma.cc:117: Failed│" / " to open model file
 * - does it exist?   │")? */
static int pane_cut(const char *s, size_t n)
{
	while (n && s[n - 1] == '\r')
		n--;
	return n > 4 && !memcmp(s + n - 3, PANE_BAR, 3) && s[n - 4] != ' ' && s[n - 4] != '\t';
}

/* The prefix the pane's next line @s[0..n) shares with the held line @h
 * (a quote's `> `, a logger's stamp pasted over both): its length, the
 * continuation's text after it; -1 where the two part inside a word (two
 * clocks a second apart), which is no shared prefix. */
static ptrdiff_t pane_prefix(const char *h, size_t hn, const char *s, size_t n)
{
	size_t k = 0;
	while (k < hn && k < n && h[k] == s[k])
		k++;
	return k && tr_isword(h[k - 1]) ? -1 : (ptrdiff_t)k;
}

/* Does @s (a raw line) continue the held line, which a paste wrapped at a
 * terminal's width? Only when the held line is exactly such a width and
 * @s does not open like a line of its own (a prefix, a bracket, indent,
 * markup, a "name: " of a logger): a wrapped "Loading weigh" / "ts took
 * 312.50 seconds" is one line, whose figure is read whole, not from a
 * progress bar's rounded clock. */
static int continues(const struct lsc_triage *t, const char *s, size_t n)
{
	if (pane_cut(t->held, t->hlen))
		return n >= 3 && n <= 4096 && !memcmp(s + n - 3, PANE_BAR, 3) && pane_prefix(t->held, t->hlen, s, n) >= 0;
	if (!wrap_width(t->held_w) || n == 0 || n > 4096)
		return 0;
	unsigned char c = (unsigned char)s[0];
	/* a terminal capture (ANSI escapes) is not a wrapped paste */
	if (c < 0x21 || memchr(t->held, 0x1b, t->hlen) || memchr(s, 0x1b, n))
		return 0;
	if (c == ' ' || c == '\t' || c == '[' || c == '(' || c == '{' || c == '<' || c == '>' || c == '|' || c == '#' ||
	    c == '`' || c == '*' || c == '$' || c == '~' || c == '-' || c == '\r' || c >= 0x80 || tr_upper((char)c))
		return 0;
	/* a clock or a date opens a line ("10:45PM", "2024-01-12"), and so
	 * does a first token of digits with two separators or more (llama.cpp's
	 * "0.00.189.951"), where a number cut by the wrap ("12.50 seconds") has
	 * one at most */
	if (tr_digit(s[0]) && n > 4 && (s[2] == ':' || s[4] == '-' || s[1] == ':'))
		return 0;
	if (tr_digit(s[0])) {
		size_t i = 0, seps = 0;
		while (i < n && i < 32 && (tr_digit(s[i]) || s[i] == ':' || s[i] == '-' || s[i] == '.'))
			seps += !tr_digit(s[i++]);
		if (seps >= 2)
			return 0;
		/* a date of month and day before its clock (logcat's "09-26
		 * 23:40:56.583"): a clock's "d:dd:d" within the first words */
		for (i = 1; i + 4 < n && i < 24; i++)
			if (s[i] == ':' && s[i + 3] == ':' && tr_digit(s[i - 1]) && tr_digit(s[i + 1]) &&
			    tr_digit(s[i + 2]) && tr_digit(s[i + 4]))
				return 0;
	}
	/* a drawn table's border ("+-----+") is a line of its own */
	if (c == '+' && n > 1 && (s[1] == '-' || s[1] == '='))
		return 0;
	/* "llama_model_loader: ...", "print_info: ...": a logger's name;
	 * "time=...": a logfmt record */
	for (size_t i = 0; i < n && i < 40; i++) {
		if ((s[i] == ':' && i + 1 < n && s[i + 1] == ' ') || s[i] == '=')
			return 0;
		if (s[i] == ' ')
			break;
	}
	return 1;
}

static void flush_held(struct lsc_triage *t)
{
	if (!t->have_held)
		return;
	t->have_held = 0;
	t->held[t->hlen] = 0;
	process_line(t, t->held, t->hlen, t->held_no, t->held_over);
}

/* The assembled line t->buf[0..blen) is complete: join it to the held
 * line when it continues it, else process the held one and hold it. */
static void line_done(struct lsc_triage *t)
{
	/* the width a terminal showed: colour escapes take no column (the
	 * cleaner would take them out anyway) */
	if (!t->overlong && memchr(t->buf, 0x1b, t->blen))
		t->blen = tr_strip_csi(t->buf, t->blen);
	size_t raw = t->blen;
	while (raw && t->buf[raw - 1] == '\r')
		raw--;
	/* a rich record's continuation, padded to its first line's width */
	const char *rt;
	size_t rl;
	if (t->have_held && t->rich_w && raw == t->rich_w && !t->overlong &&
	    (rl = tr_rich_more(t->buf, raw, t->rich_indent, t->held, t->rich_prefix, &rt)) > 0 &&
	    t->hlen + rl + 1 <= LSC_TRIAGE_LINE_MAX && !line_room(&t->held, &t->hcap, t->hlen + rl + 1)) {
		t->held[t->hlen++] = ' ';
		memmove(t->held + t->hlen, rt, rl);
		t->hlen += rl;
		t->nlines++;
		return;
	}
	t->rich_w = 0;
	if (t->have_held && !t->overlong && !t->held_over && t->hlen + t->blen <= LSC_TRIAGE_LINE_MAX &&
	    continues(t, t->buf, raw) && !line_room(&t->held, &t->hcap, t->hlen + t->blen)) {
		size_t skip = 0;
		if (pane_cut(t->held, t->hlen)) {
			/* the border, and the prefix the two lines share, inside the joined line */
			skip = (size_t)pane_prefix(t->held, t->hlen, t->buf, raw);
			while (t->held[t->hlen - 1] == '\r')
				t->hlen--;
			t->hlen -= 3;
		}
		memcpy(t->held + t->hlen, t->buf + skip, t->blen - skip);
		t->hlen += t->blen - skip;
		t->held_w = raw;
		t->nlines++; /* a line read, joined to the one before */
		if (!wrap_width(raw) && !pane_cut(t->held, t->hlen))
			flush_held(t);
		return;
	}
	flush_held(t);
	char *b = t->held; /* the buffers swap: no copy for a line that is not joined */
	t->held = t->buf;
	t->buf = b;
	size_t c = t->hcap;
	t->hcap = t->bcap;
	t->bcap = c;
	t->hlen = t->blen;
	t->held_no = t->lineno;
	t->held_over = t->overlong;
	t->held_w = raw;
	t->have_held = 1;
	size_t ind, pre, me = t->overlong ? 0 : tr_rich_head(t->held, raw, &ind, &pre);
	if (me) {
		/* held for its continuations, its location column cut */
		t->hlen = me;
		t->rich_w = raw;
		t->rich_indent = ind;
		t->rich_prefix = pre;
		return;
	}
	/* only a line of a wrap width, or cut by a pane, can be continued: any
	 * other is read now */
	if (!wrap_width(raw) && !pane_cut(t->held, raw))
		flush_held(t);
}

int lsc_triage_feed(struct lsc_triage *t, const char *buf, size_t len)
{
	if (t->finished)
		return -EINVAL;
	while (len) {
		const char *nl = memchr(buf, '\n', len);
		size_t take = nl ? (size_t)(nl - buf) : len;
		size_t want = take < LSC_TRIAGE_LINE_MAX - t->blen ? t->blen + take : LSC_TRIAGE_LINE_MAX;
		/* out of memory: the line is cut where its buffer ends and
		 * counted (lines_oom: no verdict is vouched for); once cut, the
		 * rest of it is skipped, even when memory comes back before its
		 * end */
		size_t room;
		if (t->overlong || t->cut_oom) {
			room = 0;
		} else if (line_room(&t->buf, &t->bcap, want)) {
			room = t->bcap - 2 - t->blen;
			if (take > room) {
				t->cut_oom = 1;
				t->lines_oom++;
			}
		} else {
			room = LSC_TRIAGE_LINE_MAX - t->blen;
		}
		if (take > room) {
			memcpy(t->buf + t->blen, buf, room);
			t->blen += room;
			t->overlong |= !t->cut_oom;
		} else {
			memcpy(t->buf + t->blen, buf, take);
			t->blen += take;
		}
		if (!nl)
			break;
		t->lineno++;
		line_done(t);
		t->blen = 0;
		t->overlong = t->cut_oom = 0;
		buf = nl + 1;
		len -= take + 1;
	}
	return 0;
}

static int lite_cmp(const void *a, const void *b)
{
	const struct tr_lite *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int sum_cmp(const void *a, const void *b)
{
	const struct tr_startsum *x = a, *y = b;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int row_cmp(const void *a, const void *b)
{
	const struct tr_row *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Starts close in the order they end (interleaved runs, a start closed
 * when a new one begins); output lists them in the order they began. */
static void sort_outputs(struct lsc_triage *t)
{
	for (size_t i = 0; i < t->nlite; i++)
		t->lite[i].seq = i;
	if (t->nlite > 1)
		qsort(t->lite, t->nlite, sizeof(*t->lite), lite_cmp);
	if (t->nsums > 1)
		qsort(t->sums, t->nsums, sizeof(*t->sums), sum_cmp);
	if (t->nrows > 1)
		qsort(t->rows, t->nrows, sizeof(*t->rows), row_cmp);
}

int lsc_triage_finish(struct lsc_triage *t)
{
	if (t->finished)
		return 0;
	if (t->blen || t->overlong) {
		t->lineno++;
		t->tail_no = t->lineno;
		line_done(t);
		t->blen = 0;
		t->overlong = 0;
	}
	flush_held(t);
	tr_boot_start(t);
	tr_close_all(t);
	sort_outputs(t);
	t->finished = 1;
	return 0;
}

int lsc_triage_exit_code(struct lsc_triage *t)
{
	lsc_triage_finish(t);
	if (t->nrecog == 0)
		return LSC_TRIAGE_EXIT_UNUSABLE;
	int worst = 0, noteval = 0;
	for (size_t i = 0; i < t->nlite; i++) {
		if (t->lite[i].sev == LSC_TRIAGE_FAIL)
			return LSC_TRIAGE_EXIT_FAIL;
		if (t->lite[i].sev == LSC_TRIAGE_WARN)
			worst = LSC_TRIAGE_EXIT_WARN;
		if (!strcmp(t->lite[i].id, "not-evaluated"))
			noteval = 1;
	}
	/* findings past the store are only counted, but by severity: a failed
	 * start after the first 262,144 findings still fails the run */
	if (t->dropped_sev[LSC_TRIAGE_FAIL])
		return LSC_TRIAGE_EXIT_FAIL;
	if (t->dropped_sev[LSC_TRIAGE_WARN] && !worst)
		worst = LSC_TRIAGE_EXIT_WARN;
	if (t->dropped_noteval || t->lines_oom)
		noteval = 1;
	/* no warning or failure, but a start the log does not show completing:
	 * not "healthy" (issue 8: a wrong healthy is worse than no answer) */
	if (!worst && noteval)
		return LSC_TRIAGE_EXIT_UNUSABLE;
	return worst;
}

size_t lsc_triage_nfindings(struct lsc_triage *t)
{
	lsc_triage_finish(t);
	return t->nlite;
}

int lsc_triage_finding(struct lsc_triage *t, size_t i, struct lsc_triage_finding_info *out)
{
	lsc_triage_finish(t);
	if (i >= t->nlite)
		return -ERANGE;
	const struct tr_lite *x = &t->lite[i];
	out->id = x->id;
	out->severity = x->sev;
	out->start = x->start;
	out->first_line = x->first_line;
	out->summary = x->full >= 0 ? t->full[x->full].summary : x->id;
	return 0;
}

int lsc_triage_arm(struct lsc_triage *t, const char *name)
{
	if (t->finished)
		return -EINVAL;
	snprintf(t->arm, sizeof(t->arm), "%s", name ? name : "");
	return 0;
}

int lsc_triage_start(struct lsc_triage *t, size_t i, struct lsc_triage_start_info *out)
{
	lsc_triage_finish(t);
	if (i >= t->nsums)
		return -ENOENT;
	out->first_line = t->sums[i].first_line;
	out->reached_ready = t->sums[i].stage >= TR_ST_READY;
	out->ready_s = t->sums[i].ready_s;
	out->outcome = tr_outcome_name(t->sums[i].outcome);
	out->speed = tr_speed_name(t->sums[i].speed);
	out->load_s = t->sums[i].v_load_s;
	out->gib = t->sums[i].v_gib;
	out->gibps = t->sums[i].v_rate;
	return 0;
}

int lsc_triage_engine_off(struct lsc_triage *t, const char *engine)
{
	if (t->finished)
		return -EINVAL;
	snprintf(t->off_engine, sizeof(t->off_engine), "%s", engine ? engine : "");
	return 0;
}

size_t lsc_triage_nstarts(struct lsc_triage *t)
{
	lsc_triage_finish(t);
	return t->nstarts;
}

unsigned long lsc_triage_nlines(struct lsc_triage *t)
{
	return t->nlines;
}

unsigned long lsc_triage_nrecognised(struct lsc_triage *t)
{
	return t->nrecog;
}

int lsc_triage_render(struct lsc_triage *t, enum lsc_triage_fmt fmt, FILE *out)
{
	lsc_triage_finish(t);
	int r;
	if ((t->opts.flags & LSC_TRIAGE_TABLE) && (t->opts.flags & LSC_TRIAGE_TABLE_ONLY))
		r = fmt == LSC_TRIAGE_JSON ? tr_render_json_table(t, out)
		    : fmt == LSC_TRIAGE_MD ? tr_render_md_table(t, out)
					   : tr_render_text_table(t, out);
	else if (fmt == LSC_TRIAGE_JSON)
		r = tr_render_json(t, out);
	else if (fmt == LSC_TRIAGE_MD)
		r = tr_render_md(t, out);
	else
		r = tr_render_text(t, out);
	if (r < 0 || ferror(out))
		return -EIO;
	return 0;
}

void lsc_triage_free(struct lsc_triage *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < t->nopen; i++)
		free(t->open[i]);
	free(t->buf);
	free(t->held);
	free(t->scratch);
	free(t->cjk);
	free(t->fscratch);
	free(t->full);
	free(t->lite);
	free(t->sums);
	free(t->rows);
	free(t->srcname);
	free(t);
}
