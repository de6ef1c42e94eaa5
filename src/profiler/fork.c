/*
 * Fork safety. An engine forks (Python multiprocessing, helper processes)
 * while the profiler's watchdog thread may hold one of the profiler's locks
 * or be inside pthread_cond_timedwait, whose timeout path takes the
 * condition variable's internal lock. The child inherits those locks held
 * by a thread it does not have, and its first span, line or destroy waits
 * forever: CI caught exactly that (a child of the fork test hung until its
 * alarm). So every live profiler is on a list, and pthread_atfork takes all
 * of its locks before the fork, releases them in the parent, and in the
 * child releases them, gives the condition variable a fresh state and
 * forgets the parent's watchdog thread (a child that begins a start gets
 * its own). A sink must therefore not call fork() itself.
 */
#include <pthread.h>
#include <time.h>

#include "profiler/profiler_impl.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static lsc_profiler *registry; /* live profilers, linked through fork_next */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* The order every lock is taken in here. The library never holds two of
 * them at once, so no thread can be holding one while waiting for another
 * that prepare already has. */
static void lock_one(lsc_profiler *p)
{
	pthread_mutex_lock(&p->sink_lock);
	pthread_mutex_lock(&p->lock);
	pthread_mutex_lock(&p->fd_lock);
}

static void unlock_one(lsc_profiler *p)
{
	pthread_mutex_unlock(&p->fd_lock);
	pthread_mutex_unlock(&p->lock);
	pthread_mutex_unlock(&p->sink_lock);
}

static void prepare(void)
{
	pthread_mutex_lock(&registry_lock);
	for (lsc_profiler *p = registry; p; p = p->fork_next)
		lock_one(p);
}

static void parent(void)
{
	for (lsc_profiler *p = registry; p; p = p->fork_next)
		unlock_one(p);
	pthread_mutex_unlock(&registry_lock);
}

/* Only async-signal-safe work here: the child of a threaded process may
 * call nothing else until it execs or returns from fork. Unlocking a mutex
 * this thread locked in prepare and initialising a condition variable in
 * place are both plain stores. */
static void child(void)
{
	for (lsc_profiler *p = registry; p; p = p->fork_next) {
		lsc__watchdog_forget(p);
		unlock_one(p);
	}
	pthread_mutex_unlock(&registry_lock);
}

static void register_handlers(void)
{
	pthread_atfork(prepare, parent, child);
}

void lsc__fork_track(lsc_profiler *p)
{
	pthread_once(&atfork_once, register_handlers);
	pthread_mutex_lock(&registry_lock);
	p->fork_next = registry;
	registry = p;
	pthread_mutex_unlock(&registry_lock);
}

void lsc__fork_untrack(lsc_profiler *p)
{
	pthread_mutex_lock(&registry_lock);
	for (lsc_profiler **q = &registry; *q; q = &(*q)->fork_next)
		if (*q == p) {
			*q = p->fork_next;
			break;
		}
	pthread_mutex_unlock(&registry_lock);
}
