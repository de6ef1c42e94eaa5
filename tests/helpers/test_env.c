/*
 * Every test program starts from the same process state, whatever launched
 * it: no LOADSCOPE* variables (the loader reads LOADSCOPE_ARENA_THP,
 * LOADSCOPE_READ_PATH and LOADSCOPE_READ_FIXED even from a profiler that
 * ignores the environment, and LOADSCOPE_TRACE writes a file), and THP not
 * disabled for the process by whoever started it (PR_SET_THP_DISABLE is
 * inherited across fork and exec; the probe and auto-policy tests expect
 * this process to be allowed THP). A constructor, so it runs before
 * Criterion starts any test, in every test program (each links it as
 * objects, since nothing calls it by name).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "helpers/test_env.h"
#include "host/procfs.h"

extern char **environ;

__attribute__((constructor)) static void lsct_clean_env(void)
{
	/* unsetenv shifts environ down: look again from the start after each. */
	for (int again = 1; again;) {
		again = 0;
		for (char **e = environ; e && *e; e++) {
			if (strncmp(*e, "LOADSCOPE", 9) != 0)
				continue;
			const char *eq = strchr(*e, '=');
			char name[128];
			size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
			if (n >= sizeof(name))
				continue;
			memcpy(name, *e, n);
			name[n] = '\0';
			unsetenv(name);
			again = 1;
			break;
		}
	}
	prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0);
}

/* Whether this process can mlock @bytes: CAP_IPC_LOCK in effect (root in a
 * container may not have it), or RLIMIT_MEMLOCK high enough. */
int lsct_can_mlock(uint64_t bytes, char *why, size_t cap)
{
	struct lsc__status st;
	struct rlimit rl;
	if (lsc__status_read("/proc", &st) == 0 && st.cap_ipc_lock == 1)
		return 1;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 &&
	    (rl.rlim_cur == RLIM_INFINITY || (uint64_t)rl.rlim_cur >= bytes))
		return 1;
	snprintf(why, cap, "no CAP_IPC_LOCK and RLIMIT_MEMLOCK is %llu bytes, below the %llu the test locks",
		 (unsigned long long)rl.rlim_cur, (unsigned long long)bytes);
	return 0;
}
