/*
 * The rule table and the loop that runs it over a closing start. A rule that
 * fails internally (returns < 0) becomes a `rule-error` finding and the rest
 * still run (flutter doctor's "crash" result, triage.md). alloc-dominates is
 * the generic allocation finding: it stays quiet when a more specific cause
 * (THP compaction, a host refault, KFD EAGAIN) explained the same time, so
 * those rules run before it.
 *
 * A verdict never claims more than the log shows. Every start gets its
 * outcome and speed first (verdict.c); then `healthy` only for a start that
 * completed at a speed in range with no warning or failure, `slow-start`
 * for a slow one that no rule explained, `start-failed` for a failed one
 * that no rule gave a fail, and `not-evaluated` for a start the log does
 * not show completing, which says what is missing (exit status 3,
 * docs/triage.md). The texts of these are in verdict_text.c.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define TR_RULE_REF(name) &tr_rule_##name,
const struct tr_rule *const tr_rules[] = {TR_RULE_LIST(TR_RULE_REF)};
#undef TR_RULE_REF
const size_t tr_nrules = sizeof(tr_rules) / sizeof(tr_rules[0]);

/* --redact: a finding's own texts quote the log too (a failed start's
 * summary quotes its failure line, arithmetic quotes a path's figures),
 * so they are redacted as its evidence lines are, once, when kept. */
static void redact_one(char *s, size_t cap)
{
	char tmp[TR_F_TXT > 320 ? TR_F_TXT : 320];
	tr_redact(s, tmp, cap < sizeof tmp ? cap : sizeof tmp);
	memcpy(s, tmp, strlen(tmp) + 1);
}

static void redact_texts(struct tr_finding *f)
{
	redact_one(f->summary, sizeof f->summary);
	for (unsigned i = 0; i < f->nmath; i++)
		redact_one(f->math[i], sizeof f->math[i]);
	for (unsigned i = 0; i < f->nrem; i++)
		redact_one(f->rem[i], sizeof f->rem[i]);
	for (unsigned i = 0; i < f->nmiss; i++)
		redact_one(f->miss[i], sizeof f->miss[i]);
}

void tr_add_finding(struct lsc_triage *t, const struct tr_finding *f, unsigned long first_line)
{
	if (t->nlite == t->lite_cap) {
		if (t->lite_cap >= TR_LITE_MAX) {
			t->dropped_findings++;
			t->dropped_sev[f->sev]++;
			t->dropped_noteval += !strcmp(f->id, "not-evaluated");
			return;
		}
		size_t cap = t->lite_cap ? t->lite_cap * 2 : 64;
		struct tr_lite *n = realloc(t->lite, cap * sizeof(*n));
		if (!n) {
			t->dropped_findings++;
			t->dropped_sev[f->sev]++;
			t->dropped_noteval += !strcmp(f->id, "not-evaluated");
			return;
		}
		t->lite = n;
		t->lite_cap = cap;
	}
	struct tr_lite *x = &t->lite[t->nlite++];
	x->id = f->id;
	x->sev = f->sev;
	x->start = f->start;
	x->first_line = first_line;
	x->full = -1;
	if (t->nfull < TR_FULL_FINDINGS) {
		if (t->nfull == t->full_cap) {
			struct tr_finding *n = tr_grow(t->full, &t->full_cap, sizeof(*n));
			if (!n)
				return;
			t->full = n;
		}
		t->full[t->nfull] = *f;
		if (t->opts.flags & LSC_TRIAGE_REDACT)
			redact_texts(&t->full[t->nfull]);
		x->full = (int)t->nfull++;
	}
}

static struct tr_startsum *sum_of(struct lsc_triage *t, const struct tr_start *s)
{
	if (t->nsums && t->sums[t->nsums - 1].idx == s->idx)
		return &t->sums[t->nsums - 1];
	return NULL;
}

/* Quoted lines read as a log excerpt: in input order. (The finding's
 * "line" stays its first piece of evidence as the rule ranked it.) */
static void sort_evidence(struct tr_finding *f)
{
	for (unsigned i = 1; i < f->nev; i++) {
		struct tr_evid e = f->ev[i];
		unsigned j = i;
		while (j > 0 && (f->ev[j - 1].src > e.src || (f->ev[j - 1].src == e.src && f->ev[j - 1].line > e.line))) {
			f->ev[j] = f->ev[j - 1];
			j--;
		}
		f->ev[j] = e;
	}
}

void tr_run_rules(struct lsc_triage *t, struct tr_start *s)
{
	struct tr_finding *f = t->fscratch;
	struct tr_startsum *sum = sum_of(t, s);
	int bad = 0, failed = 0, specific = 0;
	for (size_t i = 0; i < t->nrules; i++) {
		const struct tr_rule *r = t->rules[i];
		if (r == &tr_rule_alloc_dominates && specific)
			continue;
		tr_f_init(f, r->id, LSC_TRIAGE_INFO, s);
		/* text that nothing keeps is not formatted: a finding's text
		 * goes to the full store (while it has room) and a not-evaluated
		 * rule's to the start's summary (while there is one) */
		f->lite = t->nfull >= TR_FULL_FINDINGS && !sum;
		int ret = r->eval(s, &t->ctx, f);
		if (ret < 0) {
			t->rule_errors++;
			tr_f_init(f, "rule-error", LSC_TRIAGE_WARN, s);
			tr_f_summary(f, "rule %s failed internally (%d); the other rules ran", r->id, ret);
			tr_f_rem(f, "report this log to the loadscope maintainers");
			tr_add_finding(t, f, s->first_line);
			continue;
		}
		if (ret == TR_NOTEVAL) {
			if (sum && sum->nnoteval < TR_NOTEVAL_MAX)
				for (unsigned k = 0; k < f->nmiss && sum->nnoteval < TR_NOTEVAL_MAX; k++) {
					sum->noteval[sum->nnoteval].id = r->id;
					snprintf(sum->noteval[sum->nnoteval].text, TR_F_TXT, "%s", f->miss[k]);
					sum->nnoteval++;
				}
			continue;
		}
		if (ret != TR_FIRE)
			continue;
		if (r->specific_of && f->sev >= LSC_TRIAGE_WARN)
			specific = 1;
		if (f->sev >= LSC_TRIAGE_WARN)
			bad = 1;
		if (f->sev == LSC_TRIAGE_FAIL)
			failed = 1;
		unsigned long first = f->nev ? f->ev[0].line : s->first_line;
		sort_evidence(f);
		tr_add_finding(t, f, first);
	}
	f->lite = t->nfull >= TR_FULL_FINDINGS;
	struct tr_verdict v;
	tr_verdict_of(s, &v);
	if (sum) {
		sum->outcome = (int)v.outcome;
		sum->speed = (int)v.speed;
		sum->v_load_s = v.load_s;
		sum->v_gib = v.gib;
		sum->v_rate = v.rate;
	}
	if (v.outcome == TR_OUT_FAILED && !failed) {
		tr_verdict_failed(f, s, &v);
		tr_add_finding(t, f, f->nev ? f->ev[0].line : s->first_line);
		bad = 1;
	}
	if (bad)
		;
	else if (v.speed == TR_SPEED_SLOW)
		tr_verdict_slow(f, s, &v);
	else if (v.outcome == TR_OUT_COMPLETED && v.speed == TR_SPEED_OK)
		tr_verdict_healthy(f, s, &v);
	else if (v.outcome == TR_OUT_COMPLETED)
		tr_verdict_completed(f, s);
	else if (v.outcome == TR_OUT_NONE && s->probe)
		tr_verdict_probe(f, s);
	else
		tr_verdict_noteval(f, s, &v);
	if (!bad)
		tr_add_finding(t, f, f->nev ? f->ev[0].line : s->first_line);
}
