/*
 * What the library borrows from its host process, kept out of the host's
 * way: the descriptors it opens never take 0, 1 or 2 (an engine that
 * closed its stderr would otherwise see every later line land in our
 * trace file or /proc reader), and its own writes never raise a signal
 * whose default action ends the host (SIGPIPE: the reader of a pipe or
 * socket went away; SIGXFSZ: the write crossed RLIMIT_FSIZE). One home
 * for both, used by every open and every write of the library.
 */
#ifndef LSC_SYS_GUARD_H
#define LSC_SYS_GUARD_H

#include <signal.h>

/* @fd itself when it is < 0 or above 2; else a close-on-exec duplicate of
 * it at 3 or above, @fd closed. On failure -1 with errno set, @fd closed. */
int lsc__fd_high(int fd);

/* open(2) with O_CLOEXEC added and the result through lsc__fd_high. */
int lsc__open_high(const char *path, int flags, int mode);

/* The calling thread's SIGPIPE and SIGXFSZ blocked around a write, and any
 * of them that write raised consumed before they are unblocked, so the
 * write only fails (EPIPE, EFBIG). One the host itself had pending before
 * the write (sigpending) is left pending. The library sends on no socket
 * of its own (where it would, MSG_NOSIGNAL would do); a FILE* sink that is
 * a socket is covered by the block. */
struct lsc__nosig {
	sigset_t old;
	int pending_before; /* bit 0 SIGPIPE, bit 1 SIGXFSZ */
};
void lsc__nosig_enter(struct lsc__nosig *g);
void lsc__nosig_leave(struct lsc__nosig *g);

#endif
