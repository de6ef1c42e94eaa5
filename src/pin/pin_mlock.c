/*
 * The "mlock" pin backend: page-locks the arena with mlock(2), for engines
 * that pin without a GPU runtime and to measure the kernel's share of a
 * GPU runtime's pin cost. Limited by RLIMIT_MEMLOCK unless CAP_IPC_LOCK.
 * Calls go through the syscall shim so that tests can make them fail.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "format/errname.h"
#include "pin/pin.h"
#include "sys/sys.h"

static int mlock_pin(void *addr, size_t len, unsigned flags, unsigned *retries, char *why,
		     size_t why_len)
{
	(void)flags;
	if (retries)
		*retries = 0;
	if (lsc__sys->mlock(addr, len) == 0)
		return 0;
	int err = errno;
	struct rlimit rl;
	if ((err == ENOMEM || err == EPERM) && getrlimit(RLIMIT_MEMLOCK, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY)
		snprintf(why, why_len, "mlock: %s (RLIMIT_MEMLOCK %llu bytes; raise it with ulimit -l)",
			 lsc__errname(-err),
			 (unsigned long long)rl.rlim_cur);
	else
		snprintf(why, why_len, "mlock: %s", strerrordesc_np(err) ? strerrordesc_np(err) : "error");
	return -err;
}

static int mlock_unpin(void *addr, size_t len)
{
	return lsc__sys->munlock(addr, len) == 0 ? 0 : -errno;
}

const struct lsc__pin_ops lsc__pin_mlock = {
	.name = "mlock",
	.caps = LSC__PIN_CAP_REGISTER | LSC__PIN_CAP_LOCKS,
	.pin = mlock_pin,
	.unpin = mlock_unpin,
};
