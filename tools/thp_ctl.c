/*
 * PR_SET_THP_DISABLE for `run` and `ab` (thp_ctl.h). The except-advised
 * mode is bit 1 of arg3, which kernels before 6.18 reject with EINVAL
 * (they accept only arg3 = 0): that refusal is the only way to know, so it
 * is turned into a sentence that names the kernel and the way out (--thp
 * off), never a silent fall back to "off", which is a different experiment.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>

#include "thp_ctl.h"

#ifndef PR_THP_DISABLE_EXCEPT_ADVISED
#define PR_THP_DISABLE_EXCEPT_ADVISED (1 << 1)
#endif

static const char *const names[] = {"default", "off", "except-advised"};

int lsc_thp_ctl_parse(const char *s, enum lsc_thp_ctl *out)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			*out = (enum lsc_thp_ctl)i;
			return 0;
		}
	return -1;
}

const char *lsc_thp_ctl_name(enum lsc_thp_ctl m)
{
	return m >= 0 && m < 3 ? names[m] : "inherited";
}

int lsc_thp_ctl_set(enum lsc_thp_ctl m, char *why, size_t cap)
{
	unsigned long on = m != LSC_THP_CTL_DEFAULT;
	unsigned long flags = m == LSC_THP_CTL_EXCEPT_ADVISED ? PR_THP_DISABLE_EXCEPT_ADVISED : 0;
	struct utsname u;

	why[0] = 0;
	if (m == LSC_THP_CTL_INHERIT)
		return 0;
	if (prctl(PR_SET_THP_DISABLE, on, flags, 0, 0) == 0)
		return 0;
	int err = errno;
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	if (m == LSC_THP_CTL_EXCEPT_ADVISED && err == EINVAL)
		snprintf(why, cap,
			 "--thp except-advised: this kernel (%s) refuses PR_THP_DISABLE_EXCEPT_ADVISED "
			 "(prctl: EINVAL; the mode came with Linux 6.18); --thp off disables THP for "
			 "every mapping instead",
			 u.release);
	else
		snprintf(why, cap, "--thp %s: prctl(PR_SET_THP_DISABLE, %lu, %#lx) failed: %s (kernel %s)",
			 names[m], on, flags, strerror(err), u.release);
	return -err;
}

const char *lsc_thp_ctl_now(void)
{
	int b = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);

	if (b < 0)
		return "THP state unreadable (PR_GET_THP_DISABLE failed)";
	if (!(b & 1))
		return "THP allowed (PR_SET_THP_DISABLE 0: the system settings apply)";
	if (b & PR_THP_DISABLE_EXCEPT_ADVISED)
		return "THP disabled except where advised (PR_SET_THP_DISABLE 1, "
		       "PR_THP_DISABLE_EXCEPT_ADVISED: only MADV_HUGEPAGE mappings get huge pages)";
	return "THP disabled (PR_SET_THP_DISABLE 1: no huge pages for any mapping)";
}
