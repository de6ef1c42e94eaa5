/*
 * The library's threads with explicit stack sizes (thread.h says why), and
 * the painted stacks that measure them.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>

#include "sys/thread.h"

/* Measured with the painted stacks (docs/reliability.md has the figures
 * and the command); each is several times its measurement. */
const size_t lsc__thread_stack[LSC__THREAD_KINDS] = {
	[LSC__THREAD_WATCHDOG] = 256u << 10,
	[LSC__THREAD_PREFAULT] = 64u << 10,
};

int lsc__thread_paint;
size_t lsc__thread_peak[LSC__THREAD_KINDS];

#define PAINT 0xA5

int lsc__thread_start(struct lsc__thread *t, enum lsc__thread_kind kind, void *(*fn)(void *), void *arg)
{
	pthread_attr_t a;
	size_t len = lsc__thread_stack[kind];
	if (len < (size_t)PTHREAD_STACK_MIN)
		len = (size_t)PTHREAD_STACK_MIN;
	t->kind = kind;
	t->painted = NULL;
	t->painted_len = 0;
	int rc = pthread_attr_init(&a);
	if (rc)
		return rc;
	if (lsc__thread_paint) {
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (m == MAP_FAILED) {
			pthread_attr_destroy(&a);
			return errno;
		}
		memset(m, PAINT, len);
		t->painted = m;
		t->painted_len = len;
		rc = pthread_attr_setstack(&a, m, len);
	} else {
		rc = pthread_attr_setstacksize(&a, len);
	}
	if (!rc)
		rc = pthread_create(&t->tid, &a, fn, arg);
	pthread_attr_destroy(&a);
	if (rc && t->painted) {
		munmap(t->painted, t->painted_len);
		t->painted = NULL;
	}
	return rc;
}

void lsc__thread_join(struct lsc__thread *t)
{
	pthread_join(t->tid, NULL);
	if (!t->painted)
		return;
	/* The stack grows down: the lowest byte that lost the paint is the
	 * deepest the thread went (glibc keeps its thread descriptor and TLS
	 * at the top of a stack it was given, which this counts as use). */
	const unsigned char *s = t->painted;
	size_t i = 0;
	while (i < t->painted_len && s[i] == PAINT)
		i++;
	size_t used = t->painted_len - i;
	if (used > lsc__thread_peak[t->kind])
		lsc__thread_peak[t->kind] = used;
	munmap(t->painted, t->painted_len);
	t->painted = NULL;
}
