/*
 * Description: the text a user reads stands on its own. No `--help` of the
 * program or of any command, and no finding the triage writes for any
 * corpus log, cites the project's history ("seed 001", "the build VM");
 * `loadscope explain ID` prints docs/troubleshooting.md's section for ID,
 * byte for byte, and refuses an unknown id; every remedy list ends by
 * naming `loadscope explain ID`; `probe`'s first line is its verdict.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <criterion/criterion.h>

#include "helpers/tool_run.h"
#include "helpers/triage_run.h"
#include "triage/internal.h"

#define BIG (1 << 20)

/* "seed" followed by a number or "'s", or "build VM"/"build machine",
 * in any case: the project's own history. */
static const char *jargon(const char *s)
{
	for (const char *p = s; *p; p++) {
		if (!strncasecmp(p, "seed ", 5) && (isdigit((unsigned char)p[5])))
			return p;
		if (!strncasecmp(p, "seed's", 6) || !strncasecmp(p, "build VM", 8) ||
		    !strncasecmp(p, "build machine", 13))
			return p;
	}
	return NULL;
}

Test(user_text, no_history_in_any_help)
{
	lsct_tool_required();
	static const char *const cmds[] = {"", "probe", "load", "triage", "ab", "lab", "run", "pintest", "explain",
					   "lab fragment", "lab drain"};
	static char out[BIG], err[BIG];
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		lsct_tool(out, sizeof out, err, sizeof err, "%s --help", cmds[i]);
		const char *j = jargon(out);
		cr_expect_null(j, "loadscope %s --help: \"%.40s\"", cmds[i], j ? j : "");
		j = jargon(err);
		cr_expect_null(j, "loadscope %s --help (stderr): \"%.40s\"", cmds[i], j ? j : "");
	}
}

Test(user_text, no_history_in_any_finding)
{
	lsct_tool_required();
	size_t n;
	char dir[512];
	snprintf(dir, sizeof dir, "%s/logs", LSC_TEST_CORPUS);
	char **logs = trun_list(dir, ".log", &n);
	cr_assert(logs && n > 10, "no corpus logs in %s", dir);
	static char out[1 << 22], err[BIG];
	for (size_t i = 0; i < n; i++) {
		lsct_tool(out, sizeof out, err, sizeof err, "triage '%s/%s'", dir, logs[i]);
		const char *j = jargon(out);
		cr_expect_null(j, "%s: \"%.60s\"", logs[i], j ? j : "");
	}
	trun_names_free(logs, n);
}

/* docs/troubleshooting.md's "### @id" section, as the file has it. */
static char *section(const char *id)
{
	char path[512];
	snprintf(path, sizeof path, "%s/../../docs/troubleshooting.md", LSC_TEST_CORPUS);
	size_t len;
	char *doc = trun_slurp(path, &len);
	cr_assert_not_null(doc, "%s", path);
	char head[96];
	snprintf(head, sizeof head, "\n### %s\n", id);
	char *s = strstr(doc, head);
	cr_assert_not_null(s, "no section %s", id);
	s++;
	char *e = strstr(s + 1, "\n#");
	if (e)
		e[1] = '\0';
	char *r = strdup(s);
	free(doc);
	return r;
}

Test(user_text, explain_prints_the_section)
{
	lsct_tool_required();
	static char out[BIG], err[BIG];
	static const char *const ids[] = {"host-refault", "thp-direct-compaction", "healthy", "mem-short"};
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		cr_assert_eq(lsct_tool(out, sizeof out, err, sizeof err, "explain %s", ids[i]), 0, "%s", err);
		char *want = section(ids[i]);
		cr_expect_str_eq(out, want, "explain %s", ids[i]);
		free(want);
	}
	cr_expect_eq(lsct_tool(out, sizeof out, err, sizeof err, "explain no-such-finding"), 64);
	cr_expect(strstr(err, "no-such-finding"), "%s", err);
	cr_expect_eq(lsct_tool(out, sizeof out, err, sizeof err, "explain"), 0);
	cr_expect(strstr(out, "  host-refault\n") && strstr(out, "  load-failed\n"), "%s", out);
}

/* Every finding the corpus fires ends its remedies with `loadscope explain
 * ID`, and explain knows the id. */
Test(user_text, remedies_end_with_explain)
{
	lsct_tool_required();
	static char out[1 << 22], err[BIG];
	char path[512];
	snprintf(path, sizeof path, "%s/logs", LSC_TEST_CORPUS);
	size_t n;
	char **logs = trun_list(path, ".log", &n);
	cr_assert(logs && n);
	unsigned seen = 0;
	for (size_t i = 0; i < n; i++) {
		lsct_tool(out, sizeof out, err, sizeof err, "triage --format json '%s/%s'", path, logs[i]);
		/* each finding's "remedies" array: its last string names explain */
		for (char *r = strstr(out, "\"remedies\":"); r; r = strstr(r + 1, "\"remedies\":")) {
			char *end = strchr(r, ']');
			cr_assert_not_null(end);
			*end = '\0';
			char *last = strrchr(r, '"');
			if (last && last > r + 12) {
				*last = '\0';
				char *open = strrchr(r, '"');
				cr_expect(open && !strncmp(open + 1, "loadscope explain ", 18), "%s: last remedy: %s",
					  logs[i], open ? open + 1 : r);
				seen++;
			}
			*end = ']';
		}
	}
	cr_expect_gt(seen, 5);
	trun_names_free(logs, n);
}

Test(user_text, probe_answers_first)
{
	lsct_tool_required();
	static char out[BIG], err[BIG];
	lsct_tool(out, sizeof out, err, sizeof err,
		  "probe --arena-gib 0.01 --proc-root '%s/host-6.18-madvise/proc' --sys-root '%s/host-6.18-madvise/sys'",
		  LSC_TEST_FIXTURES, LSC_TEST_FIXTURES);
	cr_expect(!strncmp(out, "[loadscope/2] verdict probe: fine: ", 35), "%s", out);
	lsct_tool(out, sizeof out, err, sizeof err, "probe --arena-gib 100000");
	cr_expect(!strncmp(out, "[loadscope/2] verdict probe: at risk: ", 38), "%s", out);
	cr_expect(strstr(out, "(mem-short"), "%s", out);
	/* the sentence closes what it opens, before its fields */
	const char *bar = strstr(out, " | ");
	cr_assert_not_null(bar, "%s", out);
	int depth = 0;
	for (const char *c = out; c < bar; c++)
		depth += *c == '(' ? 1 : *c == ')' ? -1 : 0;
	cr_expect_eq(depth, 0, "unbalanced: %.*s", (int)(bar - out), out);
	cr_expect_eq(bar[-1], ')', "%.*s", (int)(bar - out), out);
}

/* Every finding a rule gives (and the two the triage gives itself) has a
 * section `loadscope explain` prints: a remedy never names a missing one. */
Test(user_text, every_finding_id_is_explained)
{
	lsct_tool_required();
	static char out[BIG], err[BIG];
	const char *extra[] = {"healthy", "not-evaluated", "hugetlb-arena-cost", "rule-error"};
	for (size_t i = 0; i < tr_nrules + sizeof extra / sizeof extra[0]; i++) {
		const char *id = i < tr_nrules ? tr_rules[i]->id : extra[i - tr_nrules];
		cr_expect_eq(lsct_tool(out, sizeof out, err, sizeof err, "explain %s", id), 0, "%s: %s", id, err);
		char head[96];
		snprintf(head, sizeof head, "### %s\n", id);
		cr_expect(!strncmp(out, head, strlen(head)), "%s: %.80s", id, out);
	}
}

/* The probe's verdict counts the rest: "; N more below" is the number of
 * `warn probe:` lines after it less its own, and there is none to count
 * with one warning; on each fixture tree, for arenas of 1, 20 and 200 GiB. */
Test(user_text, the_probes_verdict_counts_the_warnings_below)
{
	lsct_tool_required();
	static const char *const trees[] = {"host-6.18-madvise", "always-defer-madvise", "old-kernel-no-mthp",
					    "container-no-vmstat"};
	static const unsigned gib[] = {1, 20, 200};
	unsigned counted = 0;
	for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++)
		for (size_t g = 0; g < 3; g++) {
			static char out[1 << 16], err[1 << 12];
			lsct_tool(out, sizeof out, err, sizeof err,
				  "probe --arena-gib %u --proc-root '%s/%s/proc' --sys-root '%s/%s/sys'", gib[g],
				  LSC_TEST_FIXTURES, trees[i], LSC_TEST_FIXTURES, trees[i]);
			unsigned warns = 0;
			for (const char *p = out; (p = strstr(p, "] warn probe: ")); p++)
				warns++;
			const char *m = strstr(out, " more below)");
			cr_expect(!strncmp(out, "[loadscope/2] verdict probe: ", 29), "%s", out);
			if (warns > 1) {
				cr_assert_not_null(m, "%s %u GiB: %u warnings, none counted: %.300s", trees[i], gib[g], warns,
						   out);
				const char *d = m;
				while (d > out && d[-1] >= '0' && d[-1] <= '9')
					d--;
				cr_expect_eq(strtoul(d, NULL, 10), warns - 1, "%s %u GiB: %u warnings: %.300s", trees[i], gib[g],
					     warns, out);
				counted++;
			} else {
				cr_expect_null(m, "%s %u GiB: %u warning counted: %.300s", trees[i], gib[g], warns, out);
			}
		}
	cr_expect_geq(counted, 2, "only %u verdicts with warnings to count", counted);
}
