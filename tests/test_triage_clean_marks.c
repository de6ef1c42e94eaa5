/*
 * Description: the paste cleaner's (tools/triage/clean.c) limits between
 * damage and text, each found by a mutation the suite let through
 * (scripts/mutate.sh, docs/testing.md): a lone '*' is text (only "**" is
 * bold), a run of two backticks is an inline code mark like one (three
 * start a fence), and a CSI sequence ends at any final byte 0x40-0x7e,
 * '~' included (ECMA-48: "ESC [ 2 ~" is the Insert key). Expected text
 * written out by hand.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "triage/internal.h"
#include "triage/triage.h"

static char buf[4096];

static void clean_is(const char *in, const char *want)
{
	struct tr_clean c = {0};
	snprintf(buf, sizeof(buf), "%s", in);
	struct tr_line l = {.s = buf, .len = strlen(buf), .no = 1, .ts = NAN, .tsk = {NAN, NAN, NAN}};
	cr_assert(tr_clean_line(&c, &l), "dropped: %s", in);
	cr_assert_str_eq(l.s, want, "input: %s", in);
}

Test(triage_clean_marks, a_lone_star_is_text)
{
	clean_is("strata generate: 2 * 20 GiB shards", "strata generate: 2 * 20 GiB shards");
	clean_is("strata generate: **2** * 20 GiB", "strata generate: 2 * 20 GiB");
}

Test(triage_clean_marks, double_backticks_are_inline_code)
{
	clean_is("strata generate: ``loaded 39.97 GiB``", "strata generate: loaded 39.97 GiB");
}

Test(triage_clean_marks, csi_ends_at_a_tilde)
{
	clean_is("\x1b[2~strata generate: loaded", "strata generate: loaded");
	clean_is("\x1b[15;2~strata", "strata");
}
