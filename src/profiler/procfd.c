/*
 * The span path's /proc files, opened once per profiler and read with pread
 * at offset 0 (which makes the kernel regenerate them). Opening /proc/vmstat
 * and /proc/self/status for every read cost about 8 and 7 us more on the
 * build machine than a pread of a kept descriptor (21 vs 13 us, 13 vs 6 us):
 * a third of a span's budget. A file larger than a page takes several
 * preads, and a pread at offset 0 from another thread in between would
 * start a new snapshot under the first, so reads of one descriptor are
 * serialised (by their own lock, not the profiler's). After a fork, "self"
 * would still name the parent, so a child (different pid) falls back to
 * opening by path.
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

#define PROCFD_BUF 16384

void lsc__procfd_open(lsc_profiler *p)
{
	char path[600];
	p->fd_pid = getpid();
	p->vm_fd = p->status_fd = -1;
	if (lsc__path(path, sizeof(path), p->proc_root, "vmstat") >= 0)
		p->vm_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (lsc__path(path, sizeof(path), p->proc_root, "self/status") >= 0)
		p->status_fd = open(path, O_RDONLY | O_CLOEXEC);
}

void lsc__procfd_close(lsc_profiler *p)
{
	if (p->vm_fd >= 0)
		close(p->vm_fd);
	if (p->status_fd >= 0)
		close(p->status_fd);
	p->vm_fd = p->status_fd = -1;
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

static int usable(const lsc_profiler *p, int fd)
{
	return fd >= 0 && getpid() == p->fd_pid;
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

int lsc__procfd_vmstat(const lsc_profiler *cp, struct lsc_vmstat *out)
{
	if (!usable(cp, cp->vm_fd))
		return lsc_vmstat_read(cp->proc_root, out);
	/* vm_want and vm_lines are the descriptor's, under its lock. */
	lsc_profiler *p = (lsc_profiler *)cp;
	char buf[PROCFD_BUF];
	struct lsc__vmstat_span at;
	pthread_mutex_lock(&p->fd_lock);
	if (p->vm_want) {
		ssize_t n = pread_prefix(p->vm_fd, buf, p->vm_want);
		if (n >= 0) {
			lsc__vmstat_parse_at(buf, (size_t)n, out, &at);
			if (at.lines == p->vm_lines) {
				pthread_mutex_unlock(&p->fd_lock);
				return 0;
			}
		}
	}
	ssize_t n = pread_all(p->vm_fd, buf, sizeof(buf));
	if (n >= 0) {
		lsc__vmstat_parse_at(buf, (size_t)n, out, &at);
		p->vm_lines = at.lines;
		p->vm_want = at.lines && at.end + VMSTAT_SLACK < sizeof(buf) ? at.end + VMSTAT_SLACK : 0;
	}
	pthread_mutex_unlock(&p->fd_lock);
	if (n < 0) {
		memset(out, 0, sizeof(*out));
		return -EIO;
	}
	return 0;
}

int lsc__procfd_status(const lsc_profiler *p, struct lsc__status *out)
{
	if (!usable(p, p->status_fd))
		return lsc__status_read(p->proc_root, out);
	char buf[PROCFD_BUF];
	pthread_mutex_lock((pthread_mutex_t *)&p->fd_lock);
	ssize_t n = pread_all(p->status_fd, buf, sizeof(buf));
	pthread_mutex_unlock((pthread_mutex_t *)&p->fd_lock);
	if (n < 0) {
		out->rss_kib = out->lck_kib = out->pin_kib = -1;
		out->thp_enabled[0] = '\0';
		out->cap_ipc_lock = -1;
		return -EIO;
	}
	lsc__status_parse(buf, out);
	return 0;
}
