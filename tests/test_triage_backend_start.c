/*
 * A launcher's report of a backend it starts itself (tools/triage/
 * backend_start.c): the start noun opening the message (`Self-Start`,
 * `Launch`), a named process, and the first sentence's end: `is loading`
 * under way, `failed` ended before it came up. Near misses: the verb in
 * prose, another end of the sentence, a failure denied. Then pastes: each
 * backend process is one start, its failure the load's (load-failed, as
 * a runner's: `failed to start a llama runner`), the last one cut off.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

static const struct {
	const char *line;
	int said;
} cases[] = {
	{"[Init] Self-Start ComfyUI-0 on port 7846 is loading...", TR_BK_LOADING},
	{"Self-Start ComfyUI-0 on port 7845 failed. Restarting per configuration AutoRestart=true...", TR_BK_FAILED},
	{"Self-Start ComfyUI-0 on port 7821 failed. AutoRestart ignored as this was an initial launch failure.",
	 TR_BK_FAILED},
	{"Launch backend-1 is starting", TR_BK_LOADING},
	{"I start ComfyUI and it failed.", 0},                     /* prose: the noun does not open it */
	{"Self-Start ComfyUI-0 on port 7821 is disabled.", 0},     /* another end */
	{"Self-Start ComfyUI-0 on port 7821 has not failed.", 0},  /* denied */
	{"Start time: 12:00, nothing failed", 0},
	{"Self-Start ComfyUI-0 failed to find python. Trying again", 0}, /* failed is not the sentence's end */
};

Test(triage_backend_start, the_reports_and_their_near_misses)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(tr_backend_start_said(cases[i].line, strlen(cases[i].line)), cases[i].said, "%s",
			     cases[i].line);
}

/* The outcome of start @i and whether a load-failed finding is on it. */
static void expect(struct lsc_triage *t, unsigned i, const char *outcome, int load_failed)
{
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, i, &si) == 0, "no start %u", i);
	cr_expect_str_eq(si.outcome, outcome, "start %u", i);
	int lf = 0;
	for (size_t k = 0; k < lsc_triage_nfindings(t); k++) {
		struct lsc_triage_finding_info f;
		lsc_triage_finding(t, k, &f);
		lf |= f.start == i && !strcmp(f.id, "load-failed");
	}
	cr_expect_eq(lf, load_failed, "start %u: load-failed %d", i, lf);
}

Test(triage_backend_start, each_backend_process_is_a_start)
{
	struct lsc_triage *t = trun_text("23:09:39.391 [Error] Self-Start ComfyUI-0 on port 7845 failed. Restarting.\n"
					 "23:09:39.395 [Init] Self-Start ComfyUI-0 on port 7846 is loading...\n"
					 "23:09:40.391 [Error] Self-Start ComfyUI-0 on port 7846 failed. Restarting.\n"
					 "23:09:40.395 [Init] Self-Start ComfyUI-0 on port 7847 is loading...\n");
	cr_assert(t);
	expect(t, 0, "failed", 1);
	expect(t, 1, "failed", 1);
	expect(t, 2, "cut-off", 0);
	struct lsc_triage_start_info si;
	cr_expect(lsc_triage_start(t, 3, &si) != 0, "three starts");
	lsc_triage_free(t);
	/* prose about a start opens none */
	t = trun_text("I start ComfyUI and it failed.\n");
	cr_assert(t);
	cr_expect(lsc_triage_start(t, 0, &si) != 0, "no start");
	lsc_triage_free(t);
}

/* A runner holds the model as a backend does: its start failing, in a
 * CLI's last word, is the load failing; an error that names nothing that
 * loads stays start-failed. */
Test(triage_backend_start, a_runner_that_failed_to_start_is_the_load)
{
	struct lsc_triage *t = trun_text("$ ollama run llava\nError: failed to start a llama runner\n");
	cr_assert(t);
	expect(t, 0, "failed", 1);
	lsc_triage_free(t);
	t = trun_text("$ ollama run llava\nError: failed to open the history file\n");
	cr_assert(t);
	expect(t, 0, "failed", 0);
	lsc_triage_free(t);
}
