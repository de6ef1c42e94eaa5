/*
 * The span path's /proc files (vmstat, self/status, pressure/memory), opened
 * once per profiler and read with pread at offset 0 (which makes the kernel
 * regenerate them). Opening /proc/vmstat
 * and /proc/self/status for every read cost about 8 and 7 us more on the
 * build machine than a pread of a kept descriptor (21 vs 13 us, 13 vs 6 us):
 * a third of a span's budget. A file larger than a page takes several
 * preads, and a pread at offset 0 from another thread in between would
 * start a new snapshot under the first, so reads of one descriptor are
 * serialised (by their own lock, not the profiler's). After a fork, "self"
 * would still name the parent, so a child (different pid) falls back to
 * opening by path.
 *
 * The descriptors are shared: every profiler of a process that reads the
 * same root uses one set, counted by reference, and the table of sets
 * has LSC__PROCFD_SLOTS entries. Two descriptors per profiler for its whole
 * life meant 600 profilers under `ulimit -n 1024` took the table and the
 * host's own next open() failed (issue 14); now the profilers of a process
 * hold at most 3 * LSC__PROCFD_SLOTS between calls, however many there are
 * (the third, pressure/memory, only where the kernel has PSI).
 * A profiler that finds the table full (or a descriptor it cannot open)
 * opens by path at each read, as a forked child does.
 *
 * /proc/vmstat is a seq_file that prints one line per show() call only
 * while the reader's buffer has room, and the counters a span needs all
 * come before thp_fault_fallback_charge, about four fifths into the file.
 * So after one whole read, a span asks for just that prefix plus some slack
 * for numbers that grow longer: a span went from 43 to 38 us median on the
 * build machine (docs/benchmarks.md). A prefix is used only when it holds as many counter lines as the
 * whole file did (the kernel's order is fixed, so that means all of them,
 * the last one complete); otherwise the whole file is read again and the
 * prefix re-learned.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "host/procfs.h"
#include "profiler/profiler_impl.h"
#include "sys/guard.h"

#define PROCFD_BUF 16384

/* A set of kept descriptors and what is learned of vmstat's layout. */
struct lsc__procfd {
	unsigned refs;              /* profilers using it; 0 = free (under table_lock) */
	pid_t pid;                  /* the process that opened them */
	char root[sizeof(((lsc_profiler *)0)->proc_root)];
	int vm_fd, status_fd;
	int psi_fd;                 /* pressure/memory; -1 without PSI */
	pthread_mutex_t lock;       /* one reader at a time on them, and: */
	size_t vm_want;             /* bytes of vmstat that hold our counters, + slack */
	unsigned vm_lines;          /* how many of its lines name one of them */
};

#define SLOT_INIT {.vm_fd = -1, .status_fd = -1, .psi_fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER}
static struct lsc__procfd table[LSC__PROCFD_SLOTS] = {SLOT_INIT, SLOT_INIT, SLOT_INIT, SLOT_INIT};
_Static_assert(LSC__PROCFD_SLOTS == 4, "one SLOT_INIT per slot");
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static int open_in(const char *root, const char *name)
{
	char path[600];
	if (lsc__path(path, sizeof(path), root, name) < 0)
		return -1;
	return lsc__open_high(path, O_RDONLY, 0);
}

void lsc__procfd_open(lsc_profiler *p)
{
	pid_t pid = getpid();
	struct lsc__procfd *free_slot = NULL;
	p->fds = NULL;
	pthread_mutex_lock(&table_lock);
	for (unsigned i = 0; i < LSC__PROCFD_SLOTS; i++) {
		struct lsc__procfd *t = &table[i];
		if (!t->refs) {
			if (!free_slot)
				free_slot = t;
		} else if (t->pid == pid && !strcmp(t->root, p->proc_root)) {
			t->refs++;
			p->fds = t;
			break;
		}
	}
	if (!p->fds && free_slot) {
		struct lsc__procfd *t = free_slot;
		t->vm_fd = open_in(p->proc_root, "vmstat");
		t->status_fd = open_in(p->proc_root, "self/status");
		t->psi_fd = open_in(p->proc_root, "pressure/memory");
		if (t->vm_fd >= 0 || t->status_fd >= 0 || t->psi_fd >= 0) {
			t->refs = 1;
			t->pid = pid;
			snprintf(t->root, sizeof(t->root), "%s", p->proc_root);
			t->vm_want = 0;
			t->vm_lines = 0;
			p->fds = t;
		}
	}
	pthread_mutex_unlock(&table_lock);
}

/* Close a set's descriptors (close(2) only: the fork child calls it too). */
static void close_set(struct lsc__procfd *t)
{
	if (t->vm_fd >= 0)
		close(t->vm_fd);
	if (t->status_fd >= 0)
		close(t->status_fd);
	if (t->psi_fd >= 0)
		close(t->psi_fd);
	t->vm_fd = t->status_fd = t->psi_fd = -1;
}

void lsc__procfd_close(lsc_profiler *p)
{
	struct lsc__procfd *t = p->fds;
	p->fds = NULL;
	if (!t)
		return;
	pthread_mutex_lock(&table_lock);
	if (--t->refs == 0)
		close_set(t);
	pthread_mutex_unlock(&table_lock);
}

/* fork.c's handlers: no read is half done on a shared descriptor, and no
 * slot half taken, when the child copies them. */
void lsc__procfd_fork_lock(void)
{
	pthread_mutex_lock(&table_lock);
	for (unsigned i = 0; i < LSC__PROCFD_SLOTS; i++)
		pthread_mutex_lock(&table[i].lock);
}

void lsc__procfd_fork_unlock(void)
{
	for (unsigned i = LSC__PROCFD_SLOTS; i-- > 0;)
		pthread_mutex_unlock(&table[i].lock);
	pthread_mutex_unlock(&table_lock);
}

/* In the child: every set in use is the parent's, which the child never
 * reads (usable() sees another pid). Its descriptors are closed now, as the
 * trace's are: kept, they were held for nothing, and the last destroy
 * closed their numbers, which a child that closes what it inherited (a
 * daemon) may have given to files of its own by then. The references
 * stay, so the set is freed when the last inherited profiler is. */
void lsc__procfd_fork_child(void)
{
	for (unsigned i = 0; i < LSC__PROCFD_SLOTS; i++) {
		struct lsc__procfd *t = &table[i];
		if (t->refs)
			close_set(t);
	}
	lsc__procfd_fork_unlock();
}

/* Read the whole file from offset 0; cut at the last full line if it does
 * not fit. Return its length, or -1. */
static ssize_t pread_all(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	while (n + 1 < cap) {
		ssize_t r = pread(fd, buf + n, cap - 1 - n, (off_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	if (n + 1 >= cap) {
		char *nl = memrchr(buf, '\n', n);
		n = nl ? (size_t)(nl + 1 - buf) : 0;
		buf[n] = '\0';
	}
	return (ssize_t)n;
}

/* The shared pair, when it is this process's (not a forked parent's). Its
 * pid, root and descriptors do not change while a profiler holds a
 * reference, so they are read without the table's lock. */
static struct lsc__procfd *usable(const lsc_profiler *p)
{
	return p->fds && p->fds->pid == getpid() ? p->fds : NULL;
}

/* One pread of at most @want bytes, cut after its last full line. */
static ssize_t pread_prefix(int fd, char *buf, size_t want)
{
	ssize_t r;
	do
		r = pread(fd, buf, want, 0);
	while (r < 0 && errno == EINTR);
	if (r == (ssize_t)want) {
		char *nl = memrchr(buf, '\n', (size_t)r);
		r = nl ? nl + 1 - buf : 0;
	}
	return r;
}

#define VMSTAT_SLACK 256

int lsc__procfd_vmstat(const lsc_profiler *p, struct lsc_vmstat *out)
{
	struct lsc__procfd *t = usable(p);
	if (!t || t->vm_fd < 0)
		return lsc_vmstat_read(p->proc_root, out);
	char buf[PROCFD_BUF];
	struct lsc__vmstat_span at;
	pthread_mutex_lock(&t->lock);
	if (t->vm_want) {
		ssize_t n = pread_prefix(t->vm_fd, buf, t->vm_want);
		if (n >= 0) {
			lsc__vmstat_parse_at(buf, (size_t)n, out, &at);
			if (at.lines == t->vm_lines) {
				pthread_mutex_unlock(&t->lock);
				return 0;
			}
		}
	}
	ssize_t n = pread_all(t->vm_fd, buf, sizeof(buf));
	if (n >= 0) {
		lsc__vmstat_parse_at(buf, (size_t)n, out, &at);
		t->vm_lines = at.lines;
		t->vm_want = at.lines && at.end + VMSTAT_SLACK < sizeof(buf) ? at.end + VMSTAT_SLACK : 0;
	}
	pthread_mutex_unlock(&t->lock);
	if (n < 0) {
		memset(out, 0, sizeof(*out));
		return -EIO;
	}
	return 0;
}

int lsc__procfd_status(const lsc_profiler *p, struct lsc__status *out)
{
	struct lsc__procfd *t = usable(p);
	if (!t || t->status_fd < 0)
		return lsc__status_read(p->proc_root, out);
	char buf[PROCFD_BUF];
	pthread_mutex_lock(&t->lock);
	ssize_t n = pread_all(t->status_fd, buf, sizeof(buf));
	pthread_mutex_unlock(&t->lock);
	if (n < 0) {
		out->rss_kib = out->lck_kib = out->pin_kib = -1;
		out->thp_enabled[0] = '\0';
		out->cap_ipc_lock = -1;
		return -EIO;
	}
	lsc__status_parse(buf, out);
	return 0;
}

/* pressure/memory is two short lines (about 110 bytes): one pread. A read
 * that fails (psi=0 answers EOPNOTSUPP) is n/a, like a missing file. */
int lsc__procfd_psi(const lsc_profiler *p, struct lsc__psi *out)
{
	struct lsc__procfd *t = usable(p);
	if (!t || t->psi_fd < 0) {
		/* No descriptor: a profiler past the table, or a forked child;
		 * with the table's set but no PSI, do not retry the path. */
		if (t) {
			out->some_us = out->full_us = -1;
			return -ENOENT;
		}
		return lsc__psi_read(p->proc_root, out);
	}
	char buf[512];
	pthread_mutex_lock(&t->lock);
	ssize_t n = pread_all(t->psi_fd, buf, sizeof(buf));
	pthread_mutex_unlock(&t->lock);
	if (n < 0) {
		out->some_us = out->full_us = -1;
		return -EIO;
	}
	return lsc__psi_parse(buf, (size_t)n, out);
}
