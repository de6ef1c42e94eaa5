/*
 * Fork safety. An engine forks (Python multiprocessing, helper processes)
 * while the profiler's watchdog thread may hold one of the profiler's locks
 * or be inside pthread_cond_timedwait, whose timeout path takes the
 * condition variable's internal lock. The child inherits those locks held
 * by a thread it does not have, and its first span, line or destroy waits
 * forever: CI caught exactly that (a child of the fork test hung until its
 * alarm). So every live profiler is on a list, and pthread_atfork takes the
 * locks that guard the profiler's own state (its span table, and the shared
 * /proc descriptors of procfd.c) before the fork, releases them in the
 * parent, and in the child releases them, gives the condition variable a
 * fresh state, forgets the parent's watchdog thread (a child that begins a
 * start gets its own), closes the parent's trace and /proc descriptors
 * (procfd.c) and draws a run id of its own, so that the triage
 * does not merge the child's lines into the parent's start.
 *
 * The sink's turn is the exception (sink.c). It is held for as long as the
 * sink takes a line, and a sink may block: a full stderr pipe, a stopped
 * log reader, a slow callback. Waiting for it before the fork made every
 * fork() in the host wait for the slowest line (issue 14: a test program
 * still blocked after 5 s). The turn guards nothing of the profiler's,
 * only the order of calls into the sink, so prepare leaves it alone and the
 * child, which has no thread inside the sink, starts with a fresh one. A
 * line that was in the sink in the parent is the parent's: the child
 * neither repeats nor finishes it. (A FILE* sink's own lock the C library
 * resets in the child.)
 * The locks taken here are never held across a sink call or any other
 * wait, so prepare waits for nothing slower than a /proc read.
 */
#include <pthread.h>
#include <time.h>

#include "profiler/profiler_impl.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static lsc_profiler *registry; /* live profilers, linked through fork_next */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* The order every lock is taken in here: the registry, each profiler's
 * lock, then procfd's. The library never holds two of them at once, so no
 * thread can be holding one while waiting for another that prepare already
 * has. */
static void prepare(void)
{
	pthread_mutex_lock(&registry_lock);
	for (lsc_profiler *p = registry; p; p = p->fork_next)
		pthread_mutex_lock(&p->lock);
	lsc__procfd_fork_lock();
}

static void parent(void)
{
	lsc__procfd_fork_unlock();
	for (lsc_profiler *p = registry; p; p = p->fork_next)
		pthread_mutex_unlock(&p->lock);
	pthread_mutex_unlock(&registry_lock);
}

/* Only async-signal-safe work here: the child of a threaded process may
 * call nothing else until it execs or returns from fork. Unlocking a mutex
 * this thread locked in prepare, and initialising a mutex or a condition
 * variable in place, are plain stores; the run id is a getrandom call. */
static void child(void)
{
	lsc__procfd_fork_child();
	for (lsc_profiler *p = registry; p; p = p->fork_next) {
		lsc__watchdog_forget(p);
		lsc__trace_forget(p);
		lsc__sink_fork_child(p);
		lsc__run_id(p->run);
		pthread_mutex_unlock(&p->lock);
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
