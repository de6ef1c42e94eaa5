/*
 * /proc/self/status at the end of every span: the process's resident,
 * locked and pinned memory (VmRSS, VmLck, VmPin) and whether THP is allowed
 * for it (THP_enabled, which PR_SET_THP_DISABLE clears). A pinned arena shows
 * up in VmPin (GPU runtimes pin with FOLL_LONGTERM) or VmLck (mlock), so
 * these say whether a "pin" phase really pinned. CapEff's CAP_IPC_LOCK says
 * whether RLIMIT_MEMLOCK binds at all.
 *
 * On the span path: one buffer on the stack, no allocation.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "host/procfs.h"

/* status is ~1.5 KiB; the Vm* and THP_enabled lines come before the long
 * Cpus_allowed/Mems_allowed lines, so 8 KiB holds them even with many
 * supplementary groups. A longer file is cut at a line boundary. */
#define STATUS_BUF 8192

static int64_t kib_or_na(const char *text, const char *key)
{
	int64_t v;

	return lsc__kv_kib(text, key, &v) < 0 ? -1 : v;
}

/* CAP_IPC_LOCK is bit 14 of "CapEff:\t000001fffeffffff". */
static int cap_ipc_lock(const char *text)
{
	char hex[24];
	uint64_t v = 0;

	if (lsc__kv_word(text, "CapEff", hex, sizeof(hex)) < 0 || strlen(hex) > 16)
		return -1;
	for (const char *p = hex; *p; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;

		if (d < 0)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	return (int)(v >> 14 & 1);
}

void lsc__status_parse(const char *buf, struct lsc__status *out)
{
	out->rss_kib = kib_or_na(buf, "VmRSS");
	out->lck_kib = kib_or_na(buf, "VmLck");
	out->pin_kib = kib_or_na(buf, "VmPin");
	/* "THP_enabled:\t1": only a 0 or 1 is a value; anything else is n/a. */
	if (lsc__kv_word(buf, "THP_enabled", out->thp_enabled, sizeof(out->thp_enabled)) < 0 ||
	    (strcmp(out->thp_enabled, "0") && strcmp(out->thp_enabled, "1")))
		out->thp_enabled[0] = '\0';
	out->cap_ipc_lock = cap_ipc_lock(buf);
}

static void status_na(struct lsc__status *out)
{
	out->rss_kib = out->lck_kib = out->pin_kib = -1;
	out->thp_enabled[0] = '\0';
	out->cap_ipc_lock = -1;
}

int lsc__status_read(const char *proc_root, struct lsc__status *out)
{
	char buf[STATUS_BUF];
	ssize_t n;

	if (!out)
		return -EINVAL;
	status_na(out);
	n = lsc__read_lines(proc_root ? proc_root : "/proc", "self/status", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	lsc__status_parse(buf, out);
	return 0;
}
