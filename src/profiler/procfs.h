/*
 * Reading /proc and /sys through a configurable root, without allocating.
 * Every reader turns a missing, truncated or garbage file into "n/a" values
 * rather than an error that could stop the engine it runs in.
 */
#ifndef LSC_PROFILER_PROCFS_H
#define LSC_PROFILER_PROCFS_H

#include <stdint.h>
#include <sys/types.h>

/* /proc/self/status fields a span reports. */
struct lsc__status {
	int64_t rss_kib, lck_kib, pin_kib; /* -1 when n/a */
	char thp_enabled[24];              /* "THP_enabled:" value, "" n/a */
};

/* lsc__status_read - read <proc_root>/self/status. Return 0 or a negative
 * errno (fields are -1/"" then). */
int lsc__status_read(const char *proc_root, struct lsc__status *out);

#endif
