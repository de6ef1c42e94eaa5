/*
 * The pread reader: the fallback when io_uring cannot be used (ENOSYS,
 * EPERM, kernel.io_uring_disabled) and the path that is always tested. It
 * keeps the reader contract with a small FIFO: submit() queues, complete()
 * does the oldest read synchronously, so the pipeline above runs the same
 * loop (and the same staging buffers) as with io_uring. There is no overlap
 * of reading with copying or hashing here; the summary line says which
 * reader ran, so a slow load on this path explains itself.
 */
#include <errno.h>
#include <stdlib.h>

#include "loader/read/reader.h"
#include "sys/sys.h"

struct lsc__reader {
	unsigned qd, head, count;
	struct lsc__rd_req q[];
};

static int pread_setup(const struct lsc__rd_cfg *cfg, struct lsc__reader **out, char *why,
		       size_t why_len)
{
	(void)why;
	(void)why_len;
	unsigned qd = cfg->qd ? cfg->qd : 1;
	struct lsc__reader *r = calloc(1, sizeof(*r) + qd * sizeof(r->q[0]));
	if (!r)
		return -ENOMEM;
	r->qd = qd;
	*out = r;
	return 0;
}

static int pread_submit(struct lsc__reader *r, const struct lsc__rd_req *req)
{
	if (r->count == r->qd)
		return -EBUSY;
	r->q[(r->head + r->count) % r->qd] = *req;
	r->count++;
	return 0;
}

/* A regular file's pread does not say EAGAIN; a file system that does
 * (FUSE, a network one under pressure) gets this many in a row without a
 * byte before the read fails, instead of spinning the engine's thread. */
#define EAGAIN_MAX 1000

/* Whole length (or q->need of it), or fewer bytes only at end of file;
 * EINTR retried, EAGAIN up to EAGAIN_MAX times in a row. Also the io_uring
 * reader's fallback (reader.h). */
int64_t lsc__pread_full(const struct lsc__rd_req *q)
{
	uint64_t got = 0, need = q->need ? q->need : q->len;
	unsigned again = 0;
	while (got < need) {
		ssize_t n = lsc__sys->pread(q->fd, (char *)q->buf + got, q->len - got,
					    (off_t)(q->off + got));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN && ++again < EAGAIN_MAX)
				continue;
			return -errno;
		}
		again = 0;
		if (n == 0)
			break;
		got += (uint64_t)n;
	}
	return (int64_t)got;
}

static int pread_complete(struct lsc__reader *r, struct lsc__rd_done *done)
{
	if (!r->count)
		return -EINVAL;
	const struct lsc__rd_req *q = &r->q[r->head];
	done->tag = q->tag;
	done->res = lsc__pread_full(q);
	r->head = (r->head + 1) % r->qd;
	r->count--;
	return 0;
}

static int pread_replace_fd(struct lsc__reader *r, unsigned file, int fd)
{
	(void)r;
	(void)file;
	(void)fd;
	return 0; /* requests carry their fd */
}

static unsigned pread_state(const struct lsc__reader *r)
{
	(void)r;
	return 0;
}

static void pread_teardown(struct lsc__reader *r)
{
	free(r);
}

const struct lsc__reader_ops lsc__reader_pread = {
	.name = "pread",
	.caps = 0,
	.setup = pread_setup,
	.submit = pread_submit,
	.complete = pread_complete,
	.replace_fd = pread_replace_fd,
	.state = pread_state,
	.teardown = pread_teardown,
};
