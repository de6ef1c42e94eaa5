/*
 * The descriptor and signal guards of guard.h: why each exists is there.
 * Every call here is async-signal-safe but pthread_sigmask, which is
 * safe in practice on Linux (a system call).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "sys/guard.h"

int lsc__fd_high(int fd)
{
	if (fd < 0 || fd > 2)
		return fd;
	int nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	int err = errno;
	close(fd);
	errno = err;
	return nfd;
}

int lsc__open_high(const char *path, int flags, int mode)
{
	return lsc__fd_high(open(path, flags | O_CLOEXEC, mode));
}

static const int guarded[2] = {SIGPIPE, SIGXFSZ};

void lsc__nosig_enter(struct lsc__nosig *g)
{
	sigset_t block, pend;
	sigemptyset(&block);
	sigaddset(&block, SIGPIPE);
	sigaddset(&block, SIGXFSZ);
	pthread_sigmask(SIG_BLOCK, &block, &g->old);
	g->pending_before = 0;
	if (sigpending(&pend) == 0)
		for (int i = 0; i < 2; i++)
			if (sigismember(&pend, guarded[i]) == 1)
				g->pending_before |= 1 << i;
}

void lsc__nosig_leave(struct lsc__nosig *g)
{
	int err = errno;
	sigset_t pend;
	if (sigpending(&pend) == 0)
		for (int i = 0; i < 2; i++) {
			if (!(g->pending_before >> i & 1) && sigismember(&pend, guarded[i]) == 1) {
				/* Ours: the write raised it. Zero timeout: never waits. */
				sigset_t one;
				sigemptyset(&one);
				sigaddset(&one, guarded[i]);
				struct timespec zero = {0, 0};
				while (sigtimedwait(&one, NULL, &zero) < 0 && errno == EINTR)
					;
			}
		}
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
	errno = err;
}
