/*
 * The process THP control that `run` and `ab` set before they exec a
 * command: PR_SET_THP_DISABLE, inherited across fork and exec, so an engine
 * started under it never asks the kernel for huge pages (seed 000's nothp.c:
 * the complement took 34 s instead of 300 s), and its 6.18 mode
 * PR_THP_DISABLE_EXCEPT_ADVISED, which keeps huge pages for the mappings
 * that ask for them with MADV_HUGEPAGE. One home for the names, the parse,
 * the prctl and the one line that says what was set.
 */
#ifndef LSC_TOOLS_THP_CTL_H
#define LSC_TOOLS_THP_CTL_H

#include <stddef.h>

enum lsc_thp_ctl {
	LSC_THP_CTL_INHERIT = -1, /* not asked: leave what the process inherited */
	LSC_THP_CTL_DEFAULT = 0,  /* PR_SET_THP_DISABLE 0: the system's THP settings apply */
	LSC_THP_CTL_OFF,          /* PR_SET_THP_DISABLE 1: no huge pages at all */
	LSC_THP_CTL_EXCEPT_ADVISED, /* 1 with PR_THP_DISABLE_EXCEPT_ADVISED (Linux 6.18+) */
};

/* The mode named @s ("off", "except-advised", "default"); 0, or -1. */
int lsc_thp_ctl_parse(const char *s, enum lsc_thp_ctl *out);
/* Its name as --thp spells it ("inherited" for LSC_THP_CTL_INHERIT). */
const char *lsc_thp_ctl_name(enum lsc_thp_ctl m);

/*
 * Set @m for this process and what it execs. Return 0, or a negative errno
 * with one sentence in @why (@cap bytes) saying what the kernel refused:
 * -EINVAL for except-advised is a kernel older than 6.18.
 */
int lsc_thp_ctl_set(enum lsc_thp_ctl m, char *why, size_t cap);

/* What the process has now, as PR_GET_THP_DISABLE reads it, in words
 * ("THP allowed", "THP disabled (PR_SET_THP_DISABLE 1)", ...). */
const char *lsc_thp_ctl_now(void);

#endif
