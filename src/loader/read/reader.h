/*
 * Readers: how the pipeline gets bytes from files into memory. Each reader
 * is one const ops table in its own file (read_uring.c, read_pread.c); the
 * pipeline only calls through this table, so io_uring and pread run the
 * same loop over the same staging buffers, and a test can hand the loader a
 * reader of its own that fails where it wants.
 *
 * Contract: submit() queues one read and may not start it; complete()
 * starts what is queued and returns one finished read. A reader resubmits
 * short reads for the rest and retries -EINTR/-EAGAIN itself, so a
 * completion is either the whole length, fewer bytes only at end of file,
 * or a negative errno.
 */
#ifndef LSC_LOADER_READ_READER_H
#define LSC_LOADER_READ_READER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <loadscope/profiler.h>

#define LSC__RD_CAP_FIXED (1u << 0) /* can register files and buffers */
#define LSC__RD_CAP_ASYNC (1u << 1) /* reads proceed while the caller copies and hashes */

/* State bits a reader reports after setup. */
#define LSC__RD_FIXED_FILES (1u << 0)
#define LSC__RD_FIXED_BUFS (1u << 1)
#define LSC__RD_ASYNC (1u << 2)       /* reads forced to the kernel's workers */

struct lsc__rd_cfg {
	lsc_profiler *p;            /* for fallback lines */
	const int *fds;             /* index = the request's .file */
	unsigned n_fds;
	const struct iovec *bufs;   /* to register (each <= 1 GiB); may be none */
	unsigned n_bufs;
	unsigned qd;
	int async;                  /* punt reads to kernel workers (IOSQE_ASYNC) */
};

struct lsc__rd_req {
	unsigned file;
	int fd;
	uint64_t off;
	void *buf;
	uint32_t len;
	/* A short read that has brought this many bytes is complete (0: len).
	 * An O_DIRECT cover of a file's tail asks for len rounded up to the
	 * block size; asking again for the padding past end of file costs a
	 * round trip, and a misaligned retry an EINVAL where the filesystem
	 * checks alignment before end of file. */
	uint32_t need;
	int buf_index;              /* registered buffer holding buf, or -1 */
	uint64_t tag;               /* returned with the completion */
};

struct lsc__rd_done {
	uint64_t tag;
	int64_t res;                /* bytes read, or a negative errno */
};

struct lsc__reader;

struct lsc__reader_ops {
	const char *name;           /* "io_uring", "pread" */
	unsigned caps;
	/* Return 0, or a negative errno with @why filled (the caller falls back). */
	int (*setup)(const struct lsc__rd_cfg *cfg, struct lsc__reader **out, char *why,
		     size_t why_len);
	/* Queue one read; at most cfg->qd may be outstanding. */
	int (*submit)(struct lsc__reader *r, const struct lsc__rd_req *req);
	/* Wait for one completion. Return 0 or a negative errno (the reader
	 * itself broke; individual read errors come in done->res). */
	int (*complete)(struct lsc__reader *r, struct lsc__rd_done *done);
	/* A file was reopened (O_DIRECT fallback): use @fd for @file. */
	int (*replace_fd)(struct lsc__reader *r, unsigned file, int fd);
	/* LSC__RD_FIXED_* in effect. */
	unsigned (*state)(const struct lsc__reader *r);
	/* Waits for reads still in flight, then frees. Accepts NULL. */
	void (*teardown)(struct lsc__reader *r);
};

/* One request read whole with pread through the syscall shim: the bytes
 * read (fewer only at end of file) or a negative errno. The pread reader,
 * and the io_uring reader once it fell back (read_pread.c). */
int64_t lsc__pread_full(const struct lsc__rd_req *q);

/* State bit: the reader fell back to pread during the load (a line said
 * why); the rest of the load was read with pread. */
#define LSC__RD_FELL_BACK (1u << 3)

extern const struct lsc__reader_ops lsc__reader_uring;
extern const struct lsc__reader_ops lsc__reader_pread;

/* Tests: the reader lsc_load uses instead of its choice (NULL: choose). */
void lsc__reader_override(const struct lsc__reader_ops *ops);
extern const struct lsc__reader_ops *lsc__reader_forced;

#endif
