/*
 * Description: the verdict table of docs/triage.md ("Verdicts", "Exit
 * status") as properties of every corpus log's triage, fed whole and in
 * pieces: each start's outcome is one of five words and its speed one of
 * three; `healthy` only on a completed start at a speed in range with no
 * warn or fail of its own; a completed slow start always has a warn or a
 * fail; a failed start always has a fail; a start cut off or still loading
 * is never healthy and, with nothing worse, not-evaluated; the exit status
 * is 2 with any fail, else 1 with any warn, else 3 with any start that is
 * not evaluated, else 0.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

#define STARTS_MAX 256

struct per_start {
	int fail, warn, healthy, noteval, n;
};

static int one_of(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(s, *set))
			return 1;
	return 0;
}

static void check(const char *name, struct lsc_triage *t)
{
	static struct per_start ps[STARTS_MAX];
	memset(ps, 0, sizeof ps);
	int any_fail = 0, any_warn = 0, any_noteval = 0;
	size_t nf = lsc_triage_nfindings(t);
	for (size_t i = 0; i < nf; i++) {
		struct lsc_triage_finding_info f;
		cr_assert_eq(lsc_triage_finding(t, i, &f), 0);
		any_fail |= f.severity == LSC_TRIAGE_FAIL;
		any_warn |= f.severity == LSC_TRIAGE_WARN;
		any_noteval |= !strcmp(f.id, "not-evaluated");
		if (f.start >= STARTS_MAX)
			continue;
		struct per_start *p = &ps[f.start];
		p->fail |= f.severity == LSC_TRIAGE_FAIL;
		p->warn |= f.severity == LSC_TRIAGE_WARN;
		p->healthy += !strcmp(f.id, "healthy");
		p->noteval |= !strcmp(f.id, "not-evaluated");
		p->n++;
	}
	static const char *const outcomes[] = {"completed", "failed", "cut-off", "loading", "none", NULL};
	static const char *const speeds[] = {"ok", "slow", "-", NULL};
	struct lsc_triage_start_info si;
	for (size_t i = 0; i < STARTS_MAX && lsc_triage_start(t, i, &si) == 0; i++) {
		cr_assert_eq(t->sums[i].idx, i, "%s: summary %zu is of start %u", name, i, t->sums[i].idx);
		const struct per_start *p = &ps[i];
		cr_expect(one_of(si.outcome, outcomes), "%s: start %zu: outcome %s", name, i, si.outcome);
		cr_expect(one_of(si.speed, speeds), "%s: start %zu: speed %s", name, i, si.speed);
		cr_expect_gt(p->n, 0, "%s: start %zu has no finding at all", name, i);
		cr_expect_leq(p->healthy, 1, "%s: start %zu healthy twice", name, i);
		if (p->healthy) {
			cr_expect_str_eq(si.outcome, "completed", "%s: start %zu healthy but %s", name, i, si.outcome);
			cr_expect_str_eq(si.speed, "ok", "%s: start %zu healthy at speed %s", name, i, si.speed);
			cr_expect(!p->fail && !p->warn, "%s: start %zu healthy with a warn or fail", name, i);
		}
		if (!strcmp(si.outcome, "completed") && !strcmp(si.speed, "slow"))
			cr_expect(p->warn || p->fail, "%s: start %zu completed slow with no warn", name, i);
		if (!strcmp(si.outcome, "failed"))
			cr_expect(p->fail, "%s: start %zu failed with no fail finding", name, i);
		if (!strcmp(si.outcome, "cut-off") || !strcmp(si.outcome, "loading")) {
			cr_expect(!p->healthy, "%s: start %zu %s yet healthy", name, i, si.outcome);
			cr_expect(p->fail || p->warn || p->noteval, "%s: start %zu %s, neither judged nor said not to be", name,
				  i, si.outcome);
		}
	}
	int want = any_fail ? 2 : any_warn ? 1 : any_noteval ? 3 : 0;
	int got = lsc_triage_exit_code(t);
	/* 3 also says that nothing was recognised */
	if (!(want == 0 && got == 3 && lsc_triage_nstarts(t) == 0))
		cr_expect_eq(got, want, "%s: exit %d, the findings say %d", name, got, want);
}

Test(triage_verdict_rules, every_corpus_log_keeps_the_verdict_table)
{
	size_t nlogs;
	char **logs = trun_list(LSC_TEST_CORPUS "/logs", ".log", &nlogs);
	cr_assert_gt(nlogs, 10);
	unsigned healthy_logs = 0, failed = 0, slow = 0;
	for (size_t i = 0; i < nlogs; i++) {
		size_t n;
		char *log = trun_corpus_log(logs[i], &n);
		cr_assert_not_null(log);
		for (int pieces = 0; pieces < 2; pieces++) {
			struct lsc_triage *t = trun_feed(log, n, pieces ? 0 : n + 1, 11 + i, NULL);
			cr_assert_not_null(t);
			check(logs[i], t);
			if (!pieces) {
				struct lsc_triage_start_info si;
				healthy_logs += trun_sev_of(t, "healthy") >= 0;
				for (size_t k = 0; lsc_triage_start(t, k, &si) == 0; k++) {
					failed += !strcmp(si.outcome, "failed");
					slow += !strcmp(si.speed, "slow");
				}
			}
			lsc_triage_free(t);
		}
		free(log);
	}
	trun_names_free(logs, nlogs);
	/* each side of the table is met in the corpus */
	cr_expect_gt(healthy_logs, 20, "%u logs with a healthy start", healthy_logs);
	cr_expect_gt(failed, 40, "%u failed starts", failed);
	cr_expect_gt(slow, 20, "%u slow starts", slow);
}
