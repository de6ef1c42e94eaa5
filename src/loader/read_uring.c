/*
 * The io_uring reader (liburing 2.3): registered files, fixed buffers
 * (staging buffers, or the arena itself in <= 1 GiB pieces) read with
 * READ_FIXED, a queue of Q reads in flight.
 *
 * Why each piece:
 * - Registered files and buffers save the per-read fget and page pinning;
 *   buffer registration is charged to RLIMIT_MEMLOCK and fails with ENOMEM
 *   at the distribution default (liburing #365), so we fall back to plain
 *   READ into the same memory and print why, rather than failing the load
 *   (iree #23654). A registered buffer is at most 1 GiB.
 * - A read from the page cache is done inline at submit time by the
 *   submitting thread unless it is marked IOSQE_ASYNC; marked, it is done
 *   by the kernel's io-wq workers, so the caller's copy and hash run
 *   alongside it. Which is faster is measured (docs/benchmarks.md).
 * - Short reads are resubmitted for the rest, -EINTR and -EAGAIN retried:
 *   callers only see whole reads, end of file, or an error.
 * - Setup failure (ENOSYS: no io_uring; EPERM: kernel.io_uring_disabled or
 *   a seccomp filter) is returned with a reason naming the sysctl's value;
 *   the loader falls back to pread and prints it.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "loader/load_internal.h"
#include "loader/reader.h"
#include "loader/sys.h"
#include "profiler/internal.h"

struct slot {
	struct lsc__rd_req req;
	uint64_t got;   /* bytes already read (short reads) */
	int used;
};

struct lsc__reader {
	struct io_uring ring;
	unsigned qd;
	unsigned state;    /* LSC__RD_FIXED_*, LSC__RD_ASYNC */
	unsigned pending;  /* prepared, not yet submitted */
	unsigned inflight; /* submitted, completion not yet reaped */
	struct slot s[];
};

static void read_sysctl(lsc_profiler *p, char *out, size_t cap)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/sys/kernel/io_uring_disabled", lsc__proc_root(p));
	out[0] = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(out, cap, "n/a");
		return;
	}
	ssize_t n = read(fd, out, cap - 1);
	close(fd);
	if (n <= 0) {
		snprintf(out, cap, "n/a");
		return;
	}
	out[n] = 0;
	out[strcspn(out, "\n")] = 0;
}

static void memlock_text(char *out, size_t cap)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0)
		snprintf(out, cap, "RLIMIT_MEMLOCK n/a");
	else if (rl.rlim_cur == RLIM_INFINITY)
		snprintf(out, cap, "RLIMIT_MEMLOCK unlimited");
	else
		snprintf(out, cap, "RLIMIT_MEMLOCK %llu KiB; raise it with ulimit -l",
			 (unsigned long long)rl.rlim_cur / 1024);
}

static int uring_setup(const struct lsc__rd_cfg *cfg, struct lsc__reader **out, char *why,
		       size_t why_len)
{
	unsigned qd = cfg->qd ? cfg->qd : 1;
	struct lsc__reader *r = calloc(1, sizeof(*r) + qd * sizeof(r->s[0]));
	if (!r)
		return -ENOMEM;
	r->qd = qd;
	if (cfg->async)
		r->state |= LSC__RD_ASYNC;

	struct io_uring_params prm;
	memset(&prm, 0, sizeof(prm));
	int ret = lsc__sys->uring_init(qd, &r->ring, &prm);
	if (ret < 0) {
		char sysctl[32];
		read_sysctl(cfg->p, sysctl, sizeof(sysctl));
		snprintf(why, why_len, "io_uring_queue_init: %s (%s; kernel.io_uring_disabled=%s)",
			 lsc__errname(ret),
			 ret == -ENOSYS ? "kernel without io_uring"
			 : ret == -EPERM ? "not permitted: io_uring_disabled sysctl or a seccomp filter"
			 : ret == -ENOMEM ? "ring memory charged to RLIMIT_MEMLOCK"
					  : strerror(-ret),
			 sysctl);
		free(r);
		return ret;
	}

	if (cfg->n_fds) {
		ret = io_uring_register_files(&r->ring, cfg->fds, cfg->n_fds);
		if (ret == 0) {
			r->state |= LSC__RD_FIXED_FILES;
		} else {
			char reason[192];
			snprintf(reason, sizeof(reason), "io_uring_register_files: %s (%s)",
				 lsc__errname(ret), strerror(-ret));
			lsc__load_fallback(cfg->p, "files", "registered", "plain", reason);
		}
	}
	if (cfg->n_bufs) {
		ret = io_uring_register_buffers(&r->ring, cfg->bufs, cfg->n_bufs);
		if (ret == 0) {
			r->state |= LSC__RD_FIXED_BUFS;
		} else {
			char reason[256], ml[96];
			memlock_text(ml, sizeof(ml));
			snprintf(reason, sizeof(reason),
				 "io_uring_register_buffers (%u buffers): %s (%s)", cfg->n_bufs,
				 lsc__errname(ret), ret == -ENOMEM ? ml : strerror(-ret));
			lsc__load_fallback(cfg->p, "buffers", "fixed", "unregistered", reason);
		}
	}
	*out = r;
	return 0;
}

static int prep(struct lsc__reader *r, unsigned i)
{
	struct slot *s = &r->s[i];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);
	if (!sqe) {
		/* Full: push what is queued to the kernel and retry once. */
		int ret = io_uring_submit(&r->ring);
		if (ret < 0)
			return ret;
		unsigned took = (unsigned)ret < r->pending ? (unsigned)ret : r->pending;
		r->inflight += took;
		r->pending -= took;
		sqe = io_uring_get_sqe(&r->ring);
		if (!sqe)
			return -EBUSY;
	}
	const struct lsc__rd_req *q = &s->req;
	int fd = (r->state & LSC__RD_FIXED_FILES) ? (int)q->file : q->fd;
	void *buf = (char *)q->buf + s->got;
	unsigned len = (unsigned)(q->len - s->got);
	uint64_t off = q->off + s->got;
	if ((r->state & LSC__RD_FIXED_BUFS) && q->buf_index >= 0)
		io_uring_prep_read_fixed(sqe, fd, buf, len, off, q->buf_index);
	else
		io_uring_prep_read(sqe, fd, buf, len, off);
	if (r->state & LSC__RD_FIXED_FILES)
		sqe->flags |= IOSQE_FIXED_FILE;
	if (r->state & LSC__RD_ASYNC)
		sqe->flags |= IOSQE_ASYNC;
	io_uring_sqe_set_data64(sqe, i);
	r->pending++;
	return 0;
}

static int uring_submit(struct lsc__reader *r, const struct lsc__rd_req *req)
{
	for (unsigned i = 0; i < r->qd; i++) {
		if (r->s[i].used)
			continue;
		r->s[i].req = *req;
		r->s[i].got = 0;
		r->s[i].used = 1;
		int ret = prep(r, i);
		if (ret < 0)
			r->s[i].used = 0;
		return ret;
	}
	return -EBUSY;
}

/* The user_data of the cancel request teardown may send: read slots are
 * small indexes, so this cannot be one of them. */
#define CANCEL_TAG UINT64_MAX

static void nap_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000L};
	nanosleep(&ts, NULL);
}

static int uring_complete(struct lsc__reader *r, struct lsc__rd_done *done)
{
	unsigned refused = 0;
	for (;;) {
		struct io_uring_cqe *cqe;
		int ret;
		if (r->pending) {
			ret = io_uring_submit_and_wait(&r->ring, 1);
			if (ret == -EINTR || ret == -EAGAIN || ret == -EBUSY) {
				/* Nothing taken (or the CQ is full): reap, then retry.
				 * With nothing in flight to reap, wait a little and give
				 * up after about 10 s rather than spin forever. */
				if (!r->inflight) {
					if (ret != -EINTR && ++refused > 10000)
						return ret;
					if (ret != -EINTR)
						nap_ms(1);
					continue;
				}
			} else if (ret < 0) {
				return ret;
			} else {
				/* The kernel may take fewer than we prepared. */
				unsigned took = (unsigned)ret < r->pending ? (unsigned)ret : r->pending;
				r->inflight += took;
				r->pending -= took;
			}
		}
		if (!r->inflight)
			return -EINVAL;
		ret = io_uring_wait_cqe(&r->ring, &cqe);
		if (ret == -EINTR || ret == -EAGAIN)
			continue;
		if (ret < 0)
			return ret;
		unsigned i = (unsigned)io_uring_cqe_get_data64(cqe);
		int res = cqe->res;
		io_uring_cqe_seen(&r->ring, cqe);
		r->inflight--;
		if (i >= r->qd || !r->s[i].used)
			return -EIO;
		struct slot *s = &r->s[i];
		if (res == -EINTR || res == -EAGAIN) {
			if ((ret = prep(r, i)) < 0)
				return ret;
			continue;
		}
		uint64_t need = s->req.need ? s->req.need : s->req.len;
		if (res > 0 && s->got + (uint64_t)res < need) {
			s->got += (uint64_t)res; /* short read: ask for the rest */
			if ((ret = prep(r, i)) < 0)
				return ret;
			continue;
		}
		done->tag = s->req.tag;
		done->res = res < 0 ? res : (int64_t)(s->got + (uint64_t)res);
		s->used = 0;
		return 0;
	}
}

static int uring_replace_fd(struct lsc__reader *r, unsigned file, int fd)
{
	if (!(r->state & LSC__RD_FIXED_FILES))
		return 0;
	int ret = io_uring_register_files_update(&r->ring, file, &fd, 1);
	return ret < 0 ? ret : 0;
}

static unsigned uring_state(const struct lsc__reader *r)
{
	return r->state;
}

static void uring_teardown(struct lsc__reader *r)
{
	if (!r)
		return;
	/* Buffers are freed after this returns: no read may still target them. */
	if (r->pending) {
		int ret = io_uring_submit(&r->ring);
		if (ret > 0)
			r->inflight += (unsigned)ret < r->pending ? (unsigned)ret : r->pending;
	}
	/* If waiting fails, cancel everything in flight and keep waiting for a
	 * while: closing the ring would let the kernel finish those reads in
	 * the background, into buffers the caller is about to unmap. */
	int cancelled = 0;
	unsigned tries = 0;
	while (r->inflight) {
		struct io_uring_cqe *cqe;
		int ret = io_uring_wait_cqe(&r->ring, &cqe);
		if (ret == -EINTR)
			continue;
		if (ret < 0) {
			if (!cancelled) {
				struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);
				if (sqe) {
					io_uring_prep_cancel(sqe, NULL, IORING_ASYNC_CANCEL_ANY);
					io_uring_sqe_set_data64(sqe, CANCEL_TAG);
					io_uring_submit(&r->ring);
				}
				cancelled = 1;
			}
			if (++tries > 1000)
				break;
			nap_ms(10);
			continue;
		}
		if (cqe->user_data != CANCEL_TAG)
			r->inflight--;
		io_uring_cqe_seen(&r->ring, cqe);
	}
	io_uring_queue_exit(&r->ring);
	free(r);
}

const struct lsc__reader_ops lsc__reader_uring = {
	.name = "io_uring",
	.caps = LSC__RD_CAP_FIXED | LSC__RD_CAP_ASYNC,
	.setup = uring_setup,
	.submit = uring_submit,
	.complete = uring_complete,
	.replace_fd = uring_replace_fd,
	.state = uring_state,
	.teardown = uring_teardown,
};
