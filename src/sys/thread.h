/*
 * The library's own threads (the watchdog, the prefault helpers) with a
 * stack size of their own, measured, instead of the process default: an
 * engine that set a small default (pthread_setattr_default_np, `ulimit -s`
 * before it started, musl's 128 KiB) had the watchdog segfault at its
 * first line. The sizes and how they were measured are in
 * docs/reliability.md ("Limits a load holds to").
 *
 * For that measurement, and the test that keeps it true, a thread's stack
 * can be painted: the helper then maps the stack itself, fills it with a
 * pattern, and at the join records the deepest byte that lost it.
 */
#ifndef LSC_SYS_THREAD_H
#define LSC_SYS_THREAD_H

#include <pthread.h>
#include <stddef.h>

enum lsc__thread_kind { LSC__THREAD_WATCHDOG = 0, LSC__THREAD_PREFAULT, LSC__THREAD_KINDS };

/* The stack each kind gets: what it was measured to use (painted, in the
 * RelWithDebInfo and ASan builds), with room for the code it calls that
 * the measurement cannot see (the engine's sink runs on the watchdog
 * thread; libnuma on the prefault helpers). */
extern const size_t lsc__thread_stack[LSC__THREAD_KINDS];

struct lsc__thread {
	pthread_t tid;
	void *painted;      /* the painted stack's mapping, or NULL */
	size_t painted_len;
	enum lsc__thread_kind kind;
};

/* pthread_create with the kind's stack size; 0 or the error number. */
int lsc__thread_start(struct lsc__thread *t, enum lsc__thread_kind kind, void *(*fn)(void *), void *arg);
/* pthread_join, and the painted stack measured and unmapped. */
void lsc__thread_join(struct lsc__thread *t);

/* Tests and the measurement: nonzero paints every thread started from
 * now on; the deepest use seen per kind, in bytes. Not for production. */
extern int lsc__thread_paint;
extern size_t lsc__thread_peak[LSC__THREAD_KINDS];

#endif
