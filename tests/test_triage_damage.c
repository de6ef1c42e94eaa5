/*
 * Paste damage must not change a diagnosis. Every corpus log developed on
 * (the reviewed ones and those judged by their verdicts alone; the held-out
 * ones are not read) is re-rendered through each kind of damage in
 * tests/helpers/damage.c (CRLF, ANSI, quoting, fences, <details>, bold
 * numbers, syslog, journald, pid chains, timestamps, and all of them
 * stacked) and must give the same findings (id, severity, start) as the
 * undamaged log, fed in random chunk sizes. The seed engine's own prefix
 * ("strata generate: ", alone and in the full stack) goes over the reviewed
 * logs only: on another engine's lines it makes them strata's.
 *
 * A log cut at a byte (deterministic seeds; a cut mid-line, inside a number
 * or a UTF-8 sequence, and at line boundaries) must never crash and may only
 * lose information, never invent it. The exact property, for every finding
 * of the cut log:
 *   - `log-truncated` (any severity), `healthy`, `completed`, `not-evaluated`
 *     and `slow-start` may appear: the cut start never ended, or the cut
 *     removed the evidence that came after its end; `start-failed`
 *     and `load-failed` where the whole log has a fail for that start (the
 *     cut kept the failure line, not the line that names its cause);
 *   - any other id must also be in the whole log's findings for the same
 *     start, with a severity no higher than there.
 * The exit code of a cut log is 0..3. This compares the tool with itself (the
 * whole log's findings), so it tests the cleaning and the streaming, not the
 * rules; test_triage_corpus compares the rules with the spec.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/damage.h"
#include "helpers/triage_run.h"

#define LOGS LSC_TEST_CORPUS "/logs"

struct clog {
	char *name;
	char *buf;
	size_t len;
	struct tset whole;
};

/* The logs a damage is applied to: every log developed on, reviewed or
 * judged by its verdict alone (the property is the triage's own, whatever
 * the spec; the held-out logs are left out, so that their findings are
 * never read while the triage is tuned), or, with @reviewed, only the
 * reviewed ones (those with a findings spec). */
static struct clog *load_all(size_t *n, int reviewed)
{
	char **names = reviewed ? trun_list_specd(LOGS, LSC_TEST_CORPUS "/expected", n) : trun_list_developed(LOGS, n);
	cr_assert(names && *n, "no corpus logs under %s", LOGS);
	struct clog *v = calloc(*n, sizeof *v);
	cr_assert(v);
	for (size_t i = 0; i < *n; i++) {
		char path[512];
		snprintf(path, sizeof path, LOGS "/%s", names[i]);
		v[i].name = names[i];
		v[i].buf = trun_slurp(path, &v[i].len);
		cr_assert(v[i].buf, "cannot read %s", path);
		cr_assert(trun_run(v[i].buf, v[i].len, 0, 0x5eed + i, &v[i].whole) == 0);
	}
	free(names);
	return v;
}

static void free_all(struct clog *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].buf);
		tset_free(&v[i].whole);
	}
	free(v);
}

static void same_findings_after(enum dmg_kind k)
{
	size_t n;
	/* the seed engine's own prefix makes every line strata's: the reviewed
	 * logs (the engines the recognisers were written on) take it, and the
	 * stack without it goes over every log */
	struct clog *v = load_all(&n, k == DMG_ENGINE || k == DMG_ALL);
	for (size_t i = 0; i < n; i++) {
		struct dmg_buf d = {0};
		cr_assert(dmg_apply(k, v[i].buf, v[i].len, &d) == 0);
		struct tset got = {0};
		cr_assert(trun_run(d.p, d.len, 0, 0xda11 + i, &got) == 0);
		char a[2048], b[2048];
		cr_expect(tset_equal(&v[i].whole, &got), "%s through \"%s\":\n  whole:   %s\n  damaged: %s",
			  v[i].name, dmg_name(k), tset_str(&v[i].whole, a, sizeof a), tset_str(&got, b, sizeof b));
		tset_free(&got);
		dmg_free(&d);
	}
	free_all(v, n);
}

Test(damage, crlf) { same_findings_after(DMG_CRLF); }
Test(damage, ansi) { same_findings_after(DMG_ANSI); }
Test(damage, quote) { same_findings_after(DMG_QUOTE); }
Test(damage, quote_nested) { same_findings_after(DMG_QUOTE2); }
Test(damage, fence) { same_findings_after(DMG_FENCE); }
Test(damage, fence_nested) { same_findings_after(DMG_FENCE_NESTED); }
Test(damage, details) { same_findings_after(DMG_DETAILS); }
Test(damage, bold_numbers) { same_findings_after(DMG_BOLD); }
Test(damage, syslog) { same_findings_after(DMG_SYSLOG); }
Test(damage, journald) { same_findings_after(DMG_JOURNALD); }
Test(damage, pid_chain) { same_findings_after(DMG_PIDCHAIN); }
Test(damage, ts_iso) { same_findings_after(DMG_TS_ISO); }
Test(damage, ts_bracket) { same_findings_after(DMG_TS_BRACKET); }
Test(damage, ts_elapsed) { same_findings_after(DMG_TS_ELAPSED); }
Test(damage, engine_prefix) { same_findings_after(DMG_ENGINE); }
Test(damage, all_combined) { same_findings_after(DMG_ALL); }
Test(damage, all_but_the_engine_prefix_combined) { same_findings_after(DMG_ALL_FOREIGN); }

/* The damage itself: a transform that changed nothing would make the tests
 * above pass vacuously. */
Test(damage, every_kind_changes_the_bytes_and_keeps_the_text)
{
	static const char log[] = "strata generate: loaded 39.97 GiB at 2.86 GiB/s\n"
				  "[strata] still starting (424 s) - please wait\n";
	for (int k = 0; k < DMG_N; k++) {
		struct dmg_buf d = {0};
		cr_assert(dmg_apply((enum dmg_kind)k, log, sizeof log - 1, &d) == 0);
		cr_expect(d.len != sizeof log - 1 || memcmp(d.p, log, d.len), "%s changed nothing",
			  dmg_name((enum dmg_kind)k));
		cr_expect(strstr(d.p, "still starting (") != NULL, "%s lost the text", dmg_name((enum dmg_kind)k));
		dmg_free(&d);
	}
	struct dmg_buf d = {0};
	cr_assert(dmg_apply(DMG_BOLD, log, sizeof log - 1, &d) == 0);
	cr_expect(strstr(d.p, "loaded **39.97 GiB** at **2.86 GiB/s**") != NULL, "bold: %s", d.p);
	dmg_free(&d);
	cr_assert(dmg_apply(DMG_CRLF, log, sizeof log - 2, &d) == 0); /* a cut: no final newline */
	cr_expect(d.p[d.len - 1] != '\n' && d.p[d.len - 1] != '\r', "a cut log must stay cut");
	dmg_free(&d);
}

static int cut_ok(const struct tset *whole, const struct trow *c)
{
	/* a cut start may lose its end: truncated, or not evaluated for want of
	 * its ready line (never healthy without it) */
	if (strcmp(c->id, "log-truncated") == 0 || strcmp(c->id, "healthy") == 0 ||
	    strcmp(c->id, "not-evaluated") == 0 || strcmp(c->id, "completed") == 0)
		return 1;
	/* a cut start may also end on a figure that says it was slow so far,
	 * or on a failure line whose specific cause came after the cut (a
	 * traceback, then `Killed`): the generic failures, start-failed and
	 * load-failed, only where the whole log has a fail for that start */
	if (strcmp(c->id, "slow-start") == 0)
		return 1;
	if (strcmp(c->id, "start-failed") == 0 || strcmp(c->id, "load-failed") == 0) {
		for (size_t i = 0; i < whole->n; i++)
			if (whole->r[i].start == c->start && whole->r[i].sev == LSC_TRIAGE_FAIL)
				return 1;
		return 0;
	}
	for (size_t i = 0; i < whole->n; i++)
		if (whole->r[i].start == c->start && strcmp(whole->r[i].id, c->id) == 0 && c->sev <= whole->r[i].sev)
			return 1;
	return 0;
}

static void check_cut(const struct clog *l, size_t at, uint64_t seed)
{
	struct lsc_triage *t = trun_feed(l->buf, at, 0, seed, NULL);
	cr_assert(t, "%s cut at %zu: no triage", l->name, at);
	int ex = lsc_triage_exit_code(t);
	cr_expect(ex >= 0 && ex <= 3, "%s cut at %zu: exit code %d", l->name, at, ex);
	/* every format renders without crashing */
	FILE *null = fopen("/dev/null", "w");
	cr_assert(null);
	for (int f = LSC_TRIAGE_TEXT; f <= LSC_TRIAGE_MD; f++)
		lsc_triage_render(t, (enum lsc_triage_fmt)f, null);
	fclose(null);
	struct tset got = {0};
	trun_findings(t, &got);
	for (size_t i = 0; i < got.n; i++) {
		char a[2048];
		cr_expect(cut_ok(&l->whole, &got.r[i]),
			  "%s cut at byte %zu: invented \"%s %s %u\" (whole log: %s)", l->name, at, got.r[i].id,
			  trun_sev_name(got.r[i].sev), got.r[i].start, tset_str(&l->whole, a, sizeof a));
	}
	tset_free(&got);
	lsc_triage_free(t);
}

Test(damage, cut_at_a_byte_only_loses_information)
{
	size_t n;
	struct clog *v = load_all(&n, 0);
	for (size_t i = 0; i < n; i++) {
		const struct clog *l = &v[i];
		/* eight cuts anywhere */
		for (uint64_t s = 1; s <= 8; s++) {
			size_t at = dmg_cut_point(s * 7919 + i, l->len);
			if (at)
				check_cut(l, at, s);
		}
		/* four cuts right after a newline (a log that ends cleanly, early) */
		for (uint64_t s = 1; s <= 4; s++) {
			size_t at = dmg_cut_point(s * 104729 + i, l->len);
			while (at && at < l->len && l->buf[at - 1] != '\n')
				at++;
			if (at && at < l->len)
				check_cut(l, at, s);
		}
	}
	free_all(v, n);
}
