/*
 * The io_uring reader (liburing 2.3): registered files, fixed buffers
 * (staging buffers, or the arena itself in <= 1 GiB pieces where it is all
 * huge pages: pipeline.c chooses) read with READ_FIXED, plain READ into
 * memory not registered, a queue of Q reads in flight.
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
 * - Failures after setup fall back to pread inside this reader, with one
 *   `fallback` line, instead of failing a load pread would finish: reads
 *   that complete with -ECANCELED (the kernel could not start an io-wq
 *   worker: RLIMIT_NPROC, a pids cgroup limit) or with -EAGAIN again and
 *   again, and io_uring_enter denied (-EPERM, -EACCES or -ENOSYS from a
 *   seccomp filter that allowed the setup), with or without reads in
 *   flight. Reads still in the ring are waited for (after a denial, by
 *   reading the completion queue, which needs no system call); every read
 *   after that, and the one that failed, are done with pread into the same
 *   memory. The reads prepared and not taken by the kernel are never
 *   submitted again: the reader enters the kernel no more.
 * - Teardown unregisters the buffers and files before closing the ring:
 *   the kernel frees a closed ring's resources later, from a workqueue, and
 *   the registered buffers stayed pinned (VmPin) for ~50 ms after the load
 *   returned; unregistering releases them before it returns.
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

#include "loader/read/read.h"
#include "loader/read/reader.h"
#include "sys/guard.h"
#include "sys/sys.h"
#include "profiler/internal.h"

/* -EAGAIN completions of one read in a row before it is read with pread. */
#define EAGAIN_MAX 16

struct slot {
	struct lsc__rd_req req;
	uint64_t got;   /* bytes already read (short reads) */
	int used;
	int sync;       /* to be read with pread (after the fallback) */
	unsigned eagain;
};

struct lsc__reader {
	struct io_uring ring;
	lsc_profiler *p;   /* for the fallback line */
	unsigned qd;
	unsigned state;    /* LSC__RD_FIXED_*, LSC__RD_ASYNC, LSC__RD_FELL_BACK */
	unsigned pending;  /* prepared, not yet submitted */
	unsigned inflight; /* submitted, completion not yet reaped */
	unsigned n_sync;   /* slots waiting for their pread */
	int enter_denied;  /* io_uring_enter refused with reads in flight: reaped without it */
	struct slot s[];
};

static void read_sysctl(lsc_profiler *p, char *out, size_t cap)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/sys/kernel/io_uring_disabled", lsc__proc_root(p));
	out[0] = 0;
	int fd = lsc__open_high(path, O_RDONLY, 0);
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
	r->p = cfg->p;
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

	/* The ring's descriptor above 2, as every descriptor of the library
	 * (sys/guard.h): a ring on fd 2 would take the engine's stderr. */
	if (r->ring.ring_fd >= 0 && r->ring.ring_fd < 3) {
		int fd = lsc__fd_high(r->ring.ring_fd);
		if (r->ring.enter_ring_fd == r->ring.ring_fd)
			r->ring.enter_ring_fd = fd;
		r->ring.ring_fd = fd;
		if (fd < 0) {
			int err = errno;
			snprintf(why, why_len, "moving the ring's descriptor above 2: %s", strerror(err));
			io_uring_queue_exit(&r->ring); /* unmaps; the descriptor is closed */
			free(r);
			return -err;
		}
	}
	if (cfg->n_fds) {
		ret = lsc__sys->uring_register_files(&r->ring, cfg->fds, cfg->n_fds);
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
		ret = lsc__sys->uring_register_buffers(&r->ring, cfg->bufs, cfg->n_bufs);
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
		int ret = lsc__sys->uring_submit(&r->ring);
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
		r->s[i].eagain = 0;
		if (r->state & LSC__RD_FELL_BACK) {
			r->s[i].sync = 1;
			r->n_sync++;
			return 0;
		}
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
	lsc__sys->nanosleep(&ts, NULL);
}

/* From now on every read is done with pread; one line says why. */
static void fall_back(struct lsc__reader *r, const char *why)
{
	if (r->state & LSC__RD_FELL_BACK)
		return;
	r->state |= LSC__RD_FELL_BACK;
	lsc__load_fallback(r->p, "reader", "io_uring", "pread", why);
}

static void to_sync(struct lsc__reader *r, struct slot *s)
{
	s->sync = 1;
	r->n_sync++;
}

/* Ask again for the rest of slot @i's read: through the ring, or with
 * pread once the reader has fallen back. */
static int ask_again(struct lsc__reader *r, struct slot *s, unsigned i)
{
	if (r->state & LSC__RD_FELL_BACK) {
		to_sync(r, s);
		return 0;
	}
	return prep(r, i);
}

/* A read the ring could not do, done with pread from where it stopped. */
static int sync_read(struct lsc__reader *r, struct lsc__rd_done *done)
{
	struct slot *s = NULL;
	for (unsigned i = 0; i < r->qd && !s; i++)
		if (r->s[i].used && r->s[i].sync)
			s = &r->s[i];
	if (!s) {
		r->n_sync = 0;
		return -EIO; /* the count and the slots disagree: a bug, not a read */
	}
	struct lsc__rd_req q = s->req;
	q.buf = (char *)q.buf + s->got;
	q.off += s->got;
	q.len -= (uint32_t)s->got;
	q.need = q.need ? q.need - (uint32_t)s->got : 0;
	int64_t res = lsc__pread_full(&q);
	done->tag = s->req.tag;
	done->res = res < 0 ? res : (int64_t)s->got + res;
	s->sync = 0;
	s->used = 0;
	r->n_sync--;
	return 0;
}

/* After io_uring_enter was denied: every slot in use that is neither in
 * flight nor already waiting for pread was prepared and never taken by the
 * kernel; once nothing is in flight, those are read with pread. The slots
 * do not say which were taken, so this waits for the ring to drain. */
static void unsync_rest(struct lsc__reader *r)
{
	if (r->inflight)
		return;
	for (unsigned i = 0; i < r->qd; i++)
		if (r->s[i].used && !r->s[i].sync)
			to_sync(r, &r->s[i]);
}

/* A completion without io_uring_enter (denied): the kernel posts a read's
 * completion to the shared queue by itself, so it is peeked at, with a
 * short nap between looks, for about 10 s at most. */
static int reap_without_enter(struct lsc__reader *r, struct io_uring_cqe **cqe)
{
	for (unsigned tries = 0; tries < 10000; tries++) {
		if (io_uring_peek_cqe(&r->ring, cqe) == 0 && *cqe)
			return 0;
		nap_ms(1);
	}
	return -ETIME;
}

/* Why io-wq may fail to start a worker, as far as this process can tell:
 * the worker is a thread counted against RLIMIT_NPROC and a pids cgroup,
 * and its creation is abandoned when a signal is pending on the submitting
 * task, so a storm of signals (a profiler's timer, a supervisor's SIGCHLD)
 * cancels reads too. RLIMIT_NPROC is named only where it is finite. */
static void iowq_causes(char *out, size_t cap)
{
	struct rlimit rl;
	const char *sig = "a signal arriving while io-wq started its worker (a signal storm), or a pids "
			  "cgroup limit";
	if (getrlimit(RLIMIT_NPROC, &rl) != 0)
		snprintf(out, cap, "%s, or RLIMIT_NPROC (n/a)?", sig);
	else if (rl.rlim_cur == RLIM_INFINITY)
		snprintf(out, cap, "%s? (not RLIMIT_NPROC: unlimited)", sig);
	else
		snprintf(out, cap, "%s, or RLIMIT_NPROC (%llu processes for this user)?", sig,
			 (unsigned long long)rl.rlim_cur);
}

static int denied(int ret)
{
	return ret == -EPERM || ret == -EACCES || ret == -ENOSYS;
}

static int uring_complete(struct lsc__reader *r, struct lsc__rd_done *done)
{
	unsigned refused = 0;
	for (;;) {
		struct io_uring_cqe *cqe;
		int ret;
		if (r->enter_denied)
			unsync_rest(r);
		if (r->n_sync)
			return sync_read(r, done);
		if (r->pending) {
			ret = lsc__sys->uring_submit_and_wait(&r->ring, 1);
			if (denied(ret)) {
				char why[192];
				snprintf(why, sizeof(why),
					 "io_uring_enter: %s (not permitted after a successful setup: "
					 "a seccomp filter?)%s",
					 lsc__errname(ret),
					 r->inflight ? "; the reads in flight are reaped first" : "");
				fall_back(r, why);
				r->enter_denied = 1;
				r->pending = 0;
				unsync_rest(r);
				continue;
			}
			if (ret == -EINTR || ret == -EAGAIN || ret == -EBUSY) {
				/* Nothing taken (or the CQ is full): reap, then retry.
				 * With nothing in flight to reap, wait a little; after
				 * 10,000 refusals in a row (about 10 s) the ring is given
				 * up for pread rather than spun on forever or the load
				 * failed: nothing was taken, so every prepared read is
				 * still the reader's to do. */
				if (!r->inflight) {
					if (ret != -EINTR && ++refused > 10000) {
						char why[160];
						snprintf(why, sizeof(why),
							 "io_uring_enter: %s 10000 times in a row with nothing in "
							 "flight (the kernel took no request)",
							 lsc__errname(ret));
						fall_back(r, why);
						r->pending = 0;
						unsync_rest(r);
						continue;
					}
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
		ret = r->enter_denied ? reap_without_enter(r, &cqe) : lsc__sys->uring_wait_cqe(&r->ring, &cqe);
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
		if (res == -ECANCELED || (res == -EAGAIN && ++s->eagain > EAGAIN_MAX)) {
			/* Only teardown cancels; a cancelled read here is io-wq
			 * failing to start a worker (or giving up on it). */
			char why[384], causes[224];
			iowq_causes(causes, sizeof(causes));
			snprintf(why, sizeof(why), "a read at offset %llu completed with %s%s (io-wq could not run it: %s)",
				 (unsigned long long)(s->req.off + s->got), lsc__errname(res),
				 res == -EAGAIN ? " again and again" : "", causes);
			fall_back(r, why);
			to_sync(r, s);
			continue;
		}
		if (res == -EINTR || res == -EAGAIN) {
			if ((ret = ask_again(r, s, i)) < 0)
				return ret;
			continue;
		}
		s->eagain = 0;
		uint64_t need = s->req.need ? s->req.need : s->req.len;
		if (res > 0 && s->got + (uint64_t)res < need) {
			s->got += (uint64_t)res; /* short read: ask for the rest */
			if ((ret = ask_again(r, s, i)) < 0)
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
	if (r->pending && !r->enter_denied) {
		int ret = lsc__sys->uring_submit(&r->ring);
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
		int ret = r->enter_denied ? reap_without_enter(r, &cqe) : lsc__sys->uring_wait_cqe(&r->ring, &cqe);
		if (ret == -EINTR)
			continue;
		if (ret < 0) {
			/* Not after a denial: the submit would also hand the kernel
			 * the reads prepared and never taken. */
			if (!cancelled && !r->enter_denied) {
				struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);
				if (sqe) {
					io_uring_prep_cancel(sqe, NULL, IORING_ASYNC_CANCEL_ANY);
					io_uring_sqe_set_data64(sqe, CANCEL_TAG);
					lsc__sys->uring_submit(&r->ring);
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
	/* Synchronous, unlike the release of a closed ring's resources. */
	if (r->state & LSC__RD_FIXED_BUFS)
		io_uring_unregister_buffers(&r->ring);
	if (r->state & LSC__RD_FIXED_FILES)
		io_uring_unregister_files(&r->ring);
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
