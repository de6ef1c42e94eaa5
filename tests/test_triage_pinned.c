/*
 * pinned-alloc-failed's own words (tools/triage/rule_pinned_alloc_failed.c):
 * the refused size in MiB below 1 GiB and in GiB from it (1023 MiB and
 * 1024 MiB either side), the reason as the line's tail after "pinned
 * memory:" (cut at 60 bytes with "..."; "no reason given" where the line
 * has none), what became of the load (failed, a fail; otherwise a warn
 * that says the log does not show it), the remedy of the reason's class
 * (out of memory, a refused registration, a driver mismatch), and the
 * arithmetic against a locked-memory limit from `ulimit -a` (in KiB:
 * 65536 KiB is 0.06 GiB). Each expected sentence is written out here from
 * the line's own numbers.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/triage_run.h"

static const char *summary_of(struct lsc_triage *t, const char *id, int *sev)
{
	for (size_t i = 0; i < lsc_triage_nfindings(t); i++) {
		struct lsc_triage_finding_info f;
		if (lsc_triage_finding(t, i, &f) == 0 && !strcmp(f.id, id)) {
			*sev = (int)f.severity;
			return f.summary;
		}
	}
	return NULL;
}

#define PRE "a pinned (page-locked) host allocation"
#define UNSHOWN "the log does not show whether the load went on"

Test(pinned, size_reason_and_outcome_in_the_summary)
{
	static const struct {
		const char *lines; /* after the load's first line */
		const char *summary;
		int sev;
	} c[] = {
		{"failed to allocate 1023.00 MiB of pinned memory: out of memory\n",
		 PRE " of 1023.00 MiB was refused (out of memory); " UNSHOWN, LSC_TRIAGE_WARN},
		{"failed to allocate 1024.00 MiB of pinned memory: out of memory\n",
		 PRE " of 1.00 GiB was refused (out of memory); " UNSHOWN, LSC_TRIAGE_WARN},
		{"failed to allocate 2.50 GiB of pinned memory: invalid argument\n",
		 PRE " of 2.50 GiB was refused (invalid argument); " UNSHOWN, LSC_TRIAGE_WARN},
		/* the reason's quoting taken off */
		{"failed to allocate 2.50 GiB of pinned memory: \"out of memory\",\n",
		 PRE " of 2.50 GiB was refused (\"out of memory); " UNSHOWN, LSC_TRIAGE_WARN},
		/* no reason on the line (no colon, no words of a class); with a
		 * prefix's colon, the words after it are the reason */
		{"failed to register 2.50 GiB of pinned memory\n", PRE " of 2.50 GiB was refused (no reason given); " UNSHOWN,
		 LSC_TRIAGE_WARN},
		{"ggml_cuda_host_register: failed to register 2.50 GiB of pinned memory\n",
		 PRE " of 2.50 GiB was refused (failed to register 2.50 GiB of pinned memory); " UNSHOWN, LSC_TRIAGE_WARN},
		/* a reason of 61 bytes is cut at 60 */
		{"failed to allocate 2.50 GiB of pinned memory: "
		 "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijX\n",
		 PRE " of 2.50 GiB was refused (abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij...); " UNSHOWN,
		 LSC_TRIAGE_WARN},
		/* ... and one of 60 is whole */
		{"failed to allocate 2.50 GiB of pinned memory: "
		 "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij\n",
		 PRE " of 2.50 GiB was refused (abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij); " UNSHOWN,
		 LSC_TRIAGE_WARN},
		/* the load failed after it */
		{"failed to allocate 2.00 GiB of pinned memory: out of memory\n"
		 "llama_model_load: error loading model: failed\n",
		 PRE " of 2.00 GiB was refused (out of memory); the load then failed", LSC_TRIAGE_FAIL},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char log[512];
		snprintf(log, sizeof(log), "llama_model_load: loading model from /m/x.gguf\n%s", c[i].lines);
		struct lsc_triage *t = trun_text(log);
		cr_assert(t);
		int sev = -1;
		const char *s = summary_of(t, "pinned-alloc-failed", &sev);
		cr_assert(s, "no pinned-alloc-failed in:\n%s", log);
		cr_expect_str_eq(s, c[i].summary, "%s", log);
		cr_expect_eq(sev, c[i].sev, "%s: severity %d", log, sev);
		lsc_triage_free(t);
	}
}

/* The remedy follows the reason's class, and only that class's. */
Test(pinned, the_remedy_of_the_reasons_class)
{
	static const char OOM[] = "page-locked memory must fit in free RAM at once";
	static const char REG[] = "registration was refused (";
	static const char DRV[] = "the driver and the CUDA runtime do not match";
	static const struct {
		const char *reason;
		const char *has, *not1, *not2;
	} c[] = {
		{"out of memory", OOM, REG, DRV},
		{"something odd", OOM, REG, DRV}, /* unclassified: the memory remedy */
		{"invalid argument", REG, OOM, DRV},
		{"operation not supported", REG, OOM, DRV},
		{"CUDA driver version is insufficient for CUDA runtime version", DRV, OOM, REG},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char log[512];
		snprintf(log, sizeof(log),
			 "llama_model_load: loading model from /m/x.gguf\n"
			 "failed to allocate 2.00 GiB of pinned memory: %s\n",
			 c[i].reason);
		struct lsc_triage *t = trun_text(log);
		cr_assert(t);
		char *txt = trun_render(t, LSC_TRIAGE_TEXT, NULL);
		cr_assert_not_null(txt, "the text rendering failed");
		cr_expect(strstr(txt, c[i].has), "%s: no \"%s\" in:\n%s", c[i].reason, c[i].has, txt);
		cr_expect(!strstr(txt, c[i].not1), "%s: \"%s\" in:\n%s", c[i].reason, c[i].not1, txt);
		cr_expect(!strstr(txt, c[i].not2), "%s: \"%s\" in:\n%s", c[i].reason, c[i].not2, txt);
		cr_expect(strstr(txt, "to go on without pinning: llama.cpp's GGML_CUDA_NO_PINNED=1"), "%s", txt);
		free(txt);
		lsc_triage_free(t);
	}
}

/* The limit from `ulimit -a` is in KiB: 65536 KiB = 64 MiB = 0.06 GiB; an
 * unlimited one gives no arithmetic (nothing to compare). */
Test(pinned, asked_against_the_locked_memory_limit)
{
	struct lsc_triage *t = trun_text("max locked memory       (kbytes, -l) 65536\n"
					 "llama_model_load: loading model from /m/x.gguf\n"
					 "failed to allocate 2.00 GiB of pinned memory: out of memory\n");
	cr_assert(t);
	char *txt = trun_render(t, LSC_TRIAGE_TEXT, NULL);
	cr_assert_not_null(txt, "the text rendering failed");
	cr_expect(strstr(txt, "= asked 2.00 GiB against a locked-memory limit of 0.06 GiB\n"), "%s", txt);
	free(txt);
	lsc_triage_free(t);
	t = trun_text("max locked memory       (kbytes, -l) unlimited\n"
		      "llama_model_load: loading model from /m/x.gguf\n"
		      "failed to allocate 2.00 GiB of pinned memory: out of memory\n");
	cr_assert(t);
	txt = trun_render(t, LSC_TRIAGE_TEXT, NULL);
	cr_assert_not_null(txt, "the text rendering failed");
	cr_expect(strstr(txt, "pinned-alloc-failed"), "%s", txt);
	cr_expect(!strstr(txt, "against a locked-memory limit"), "%s", txt);
	free(txt);
	lsc_triage_free(t);
}
