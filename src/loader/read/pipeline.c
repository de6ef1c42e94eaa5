/*
 * The read pipeline: keep Q reads in flight, and as each completes, copy it
 * from its staging buffer into the arena (unless it was read straight into
 * the arena), hash what is now contiguous, and refill the queue. One
 * thread drives it; the overlap comes from the kernel (io-wq workers with
 * IOSQE_ASYNC, or the device for direct I/O) working while this thread
 * copies and hashes.
 *
 * Rules that come from reports:
 * - A staging buffer is reused only after its bytes were copied out (the
 *   copy is synchronous here), never while a copy is in flight (sglang
 *   #32913 corrupted weights that way).
 * - Chunks never cross a 1 GiB boundary of the arena, so each read into
 *   the arena falls inside one registered piece (READ_FIXED's limit).
 * - By default the arena is registered only when it is wholly huge pages
 *   (lsc__arena_fixed_choice): io_uring registers a buffer of 4 KiB pages
 *   page by page, and one that mixes huge and 4 KiB pages far slower still.
 * - With O_DIRECT a read covers whole 4 KiB blocks. Aligned chunks go
 *   straight into the arena; the others are cut so that their aligned cover
 *   fits one staging buffer, and only the wanted slice is copied out, so a
 *   direct read never writes outside its chunk's place in the arena.
 * - Progress goes to the read span per completion, so the watchdog's
 *   `still in read` lines show bytes done of total while a load crawls.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/human.h"
#include "host/procfs.h"
#include "loader/read/read.h"
#include "loader/read/reader.h"
#include "sys/sys.h"
#include "profiler/internal.h"

#define TAG_SEQ_MASK ((1ull << 47) - 1)
#define TAG_DIRECT (1ull << 47)
#define TAG_BUF_SHIFT 48

static uint64_t piece_len(const struct lsc__load *L, const struct lsc__lext *x, uint64_t pos)
{
	uint64_t max = L->C;
	if (L->to_arena) {
		uint64_t in_piece = LSC__REG_MAX - ((x->arena_off + pos) % LSC__REG_MAX);
		if (in_piece < max)
			max = in_piece;
	}
	if (L->files[x->file].direct) {
		/* The aligned cover of the piece must fit one staging buffer. */
		uint64_t fit = L->C - ((x->off + pos) % LSC__DIO_ALIGN);
		if (fit < max)
			max = fit;
	}
	uint64_t rest = x->len - pos;
	return rest < max ? rest : max;
}

/* Through staging: always on the staging path; with O_DIRECT, any chunk
 * whose file offset, address in memory or length is not block-aligned (a direct
 * read of its cover would write outside the chunk's place in the arena). */
static int staged(const struct lsc__load *L, const struct lsc__lext *x, uint64_t pos, uint64_t len)
{
	if (!L->to_arena)
		return 1;
	if (!L->files[x->file].direct)
		return 0;
	return ((x->off + pos) | ((uintptr_t)x->mem + pos) | len) % LSC__DIO_ALIGN != 0;
}

int lsc__chunks_build(struct lsc__load *L)
{
	uint64_t n = 0;
	for (size_t i = 0; i < L->n_ext; i++) {
		struct lsc__lext *x = &L->lx[i];
		x->first_chunk = n;
		for (uint64_t pos = 0; pos < x->len; pos += piece_len(L, x, pos))
			n++;
		x->n_chunks = n - x->first_chunk;
	}
	L->n_chunks = n;
	if (!n)
		return 0;
	L->chunks = calloc(n, sizeof(*L->chunks));
	if (!L->chunks)
		return -ENOMEM;
	n = 0;
	L->n_staged = 0;
	for (size_t i = 0; i < L->n_ext; i++) {
		struct lsc__lext *x = &L->lx[i];
		for (uint64_t pos = 0; pos < x->len;) {
			uint64_t len = piece_len(L, x, pos);
			int st = staged(L, x, pos, len);
			L->chunks[n++] = (struct lsc__chunk){
				.ext = (uint32_t)i, .len = (uint32_t)len, .off_in_ext = pos, .staged = (uint8_t)st};
			L->n_staged += (uint64_t)st;
			pos += len;
		}
	}
	return 0;
}

struct run {
	struct lsc__load *L;
	struct lsc__reader *r;
	const struct lsc__reader_ops *rd;
	unsigned *free_bufs;
	unsigned n_free;
	unsigned inflight;
	unsigned fixed_bufs;
	unsigned n_arena_iov;  /* the arena's pieces; in the table first, when registered */
	int arena_fixed;       /* the arena's pieces are among the registered buffers */
};

/* Queue the read of chunk @seq: into the arena, or into staging buffer @b. */
static int issue(struct run *R, uint64_t seq, unsigned b)
{
	struct lsc__load *L = R->L;
	const struct lsc__chunk *c = &L->chunks[seq];
	const struct lsc__lext *x = &L->lx[c->ext];
	const struct lsc__lfile *f = &L->files[x->file];
	uint64_t fo = x->off + c->off_in_ext;
	struct lsc__rd_req q = {.file = x->file, .fd = f->fd, .off = fo, .len = c->len,
				.buf_index = -1, .tag = seq};
	if (!c->staged) {
		uint64_t ao = x->arena_off + c->off_in_ext;
		q.buf = x->mem + c->off_in_ext;
		if (R->fixed_bufs && R->arena_fixed)
			q.buf_index = (int)(ao / LSC__REG_MAX);
		if (f->direct)
			q.tag |= TAG_DIRECT; /* aligned: no cover needed */
	} else {
		q.buf = lsc__staging_buf(&L->stg, b);
		q.tag |= (uint64_t)b << TAG_BUF_SHIFT;
		if (R->fixed_bufs)
			q.buf_index = (int)((R->arena_fixed ? R->n_arena_iov : 0) + b);
		if (f->direct) {
			uint64_t aoff = fo & ~(LSC__DIO_ALIGN - 1);
			uint64_t cover = (fo - aoff + c->len + LSC__DIO_ALIGN - 1) & ~(LSC__DIO_ALIGN - 1);
			q.off = aoff;
			q.len = (uint32_t)cover;
			q.need = (uint32_t)(fo - aoff + c->len);
			q.tag |= TAG_DIRECT;
		}
	}
	int ret = R->rd->submit(R->r, &q);
	if (ret < 0) {
		lsc__load_error(L->p, "read", f->path, fo, ret, "%s could not queue a read", R->rd->name);
		return ret;
	}
	R->inflight++;
	return 0;
}

/* One completion: check it, copy its slice into the arena, free its buffer. */
static int finish(struct run *R, const struct lsc__rd_done *d)
{
	struct lsc__load *L = R->L;
	uint64_t seq = d->tag & TAG_SEQ_MASK;
	unsigned b = (unsigned)(d->tag >> TAG_BUF_SHIFT);
	int was_direct = !!(d->tag & TAG_DIRECT);
	struct lsc__chunk *c = &L->chunks[seq];
	const struct lsc__lext *x = &L->lx[c->ext];
	struct lsc__lfile *f = &L->files[x->file];
	uint64_t fo = x->off + c->off_in_ext;
	uint64_t lead = was_direct ? fo & (LSC__DIO_ALIGN - 1) : 0;

	if (d->res == -EINVAL && was_direct) {
		/* The filesystem took O_DIRECT at open but not at read. */
		if (f->direct) {
			int fd = lsc__direct_reopen(L->p, f);
			if (fd < 0) {
				lsc__load_error(L->p, "open", f->path, 0, fd, "reopening without O_DIRECT");
				return fd;
			}
			int ret = R->rd->replace_fd(R->r, x->file, fd);
			if (ret < 0) {
				lsc__load_error(L->p, "read", f->path, 0, ret,
						"%s could not take the reopened file", R->rd->name);
				return ret;
			}
		}
		return issue(R, seq, b);
	}
	if (d->res < 0) {
		lsc__load_error(L->p, "read", f->path, fo - lead, (int)d->res, "%s read of %u bytes",
				R->rd->name, c->len);
		return (int)d->res;
	}
	if ((uint64_t)d->res < lead + c->len) {
		/* Reads complete out of order: after a truncation, a chunk past
		 * the new end reads 0 bytes at its own start, which may come
		 * before the chunk where the file really ends. The size the file
		 * has now says where that is. */
		uint64_t end = fo - lead + (uint64_t)d->res;
		struct stat st;
		if (lsc__sys->fstat(f->fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    (uint64_t)st.st_size < end)
			end = (uint64_t)st.st_size;
		lsc__load_error(L->p, "read", f->path, end, LSC_E_SHORT,
				"file ends at byte %" PRIu64 " but the manifest wants %" PRIu64
				" bytes from offset %" PRIu64 " (it shrank during the load)",
				end, x->len, x->off);
		return LSC_E_SHORT;
	}
	if (c->staged) {
		struct lsc__busy busy;
		lsc__busy_begin(L->pin, LSC_PHASE_COPY, NULL, &busy);
		memcpy(x->mem + c->off_in_ext,
		       (unsigned char *)lsc__staging_buf(&L->stg, b) + lead, c->len);
		lsc__busy_end(&busy, &L->copy_ns);
		R->free_bufs[R->n_free++] = b;
	}
	c->done = 1;
	L->bytes_done += c->len;
	return 0;
}

/* Issue chunks in order while the queue has room and, for a staged chunk,
 * a staging buffer is free (one always comes back: only reads hold them). */
static int refill(struct run *R, uint64_t *next)
{
	struct lsc__load *L = R->L;
	while (*next < L->n_chunks && R->inflight < L->Q) {
		unsigned b = 0;
		if (L->chunks[*next].staged) {
			if (!R->n_free)
				break;
			b = R->free_bufs[--R->n_free];
		}
		int ret = issue(R, *next, b);
		if (ret < 0)
			return ret;
		(*next)++;
	}
	return 0;
}

/*
 * Register the arena's pieces as fixed buffers, or not. io_uring pins a
 * registered buffer page by page and keeps one entry per page unless every
 * page belongs to a folio of one size, which it then coalesces (for
 * buffers of several huge pages, since Linux 6.10): on the build VM
 * (kernel 6.18) a 1 GiB piece of huge pages registered in 2.2-2.4 ms, one
 * of 4 KiB pages in 18.7-18.8 ms, and one with 2 MiB of 4 KiB pages at its
 * end in 179-227 ms, since the memlock accounting of each huge page in an
 * uncoalesced buffer scans the entries before it (bench_register,
 * docs/benchmarks.md). Before 6.10 every buffer of several huge pages
 * takes that slow path. A buffered read into an unregistered arena is no
 * slower, so by default only an arena whose mappings are wholly huge pages
 * of one kind (THP or hugetlb) is registered, and only from 6.10: `auto`
 * after a switch, and a `thp` arena with a few fallback faults, are mixed.
 * Unknown backing (no smaps) is not registered either. The figures in *why
 * are those of the mappings the range lies in (smaps has no finer grain).
 */
int lsc__arena_fixed_choice(int want, int coalesces, int region_rc,
			    const struct lsc_region_info *ri, char *why, size_t cap)
{
	char b1[LSC__HBUF], b2[LSC__HBUF];
	why[0] = 0;
	if (want >= 0) {
		if (!want)
			snprintf(why, cap, "LOADSCOPE_READ_FIXED=0");
		return want;
	}
	uint64_t huge = ri->anon_huge_bytes + ri->hugetlb_bytes;
	if (region_rc < 0 || ri->mappings == 0 || ri->bytes == 0)
		snprintf(why, cap, "its page backing is unknown");
	else if (huge == 0)
		snprintf(why, cap, "it has no huge pages");
	else if (ri->anon_huge_bytes && ri->hugetlb_bytes)
		snprintf(why, cap, "its mappings mix THP and hugetlb pages");
	else if (huge < ri->bytes)
		snprintf(why, cap, "%s of its mappings' %s are not huge pages",
			 lsc__fmt_bytes(b1, (double)(ri->bytes - huge)),
			 lsc__fmt_bytes(b2, (double)ri->bytes));
	else if (!coalesces)
		snprintf(why, cap, "this kernel, before 6.10, registers huge pages one by one");
	return why[0] == 0;
}

static int arena_fixed(struct lsc__load *L)
{
	const struct lsc__arena *a = &L->out->a;
	struct lsc_region_info ri;
	int rc = 0;
	memset(&ri, 0, sizeof(ri));
	if (L->register_bufs >= 0) {
		/* the variable decides */
	} else if (!L->caller_memory && a->applied == LSC_THP_4K) {
		/* MADV_NOHUGEPAGE over all of it: smaps would say no huge pages,
		 * after walking every page table entry (4.2 ms per GiB here). */
		ri.bytes = a->bytes;
		ri.mappings = 1;
	} else {
		rc = lsc__region_read_root(lsc__proc_root(L->p), a->base, a->bytes, &ri);
	}
	int coalesces = lsc__kernel_at_least(lsc__proc_root(L->p), 6, 10);
	return lsc__arena_fixed_choice(L->register_bufs, coalesces, rc, &ri, L->arena_unreg_why,
				       sizeof(L->arena_unreg_why));
}

static int setup_reader(struct run *R, int *fds, struct iovec *iov, unsigned n_iov)
{
	struct lsc__load *L = R->L;
	/* Unregistered arena pieces are left out of the table; the staging
	 * buffers, reused for every staged read, are registered unless
	 * LOADSCOPE_READ_FIXED=0. */
	unsigned skip = R->arena_fixed ? 0 : R->n_arena_iov;
	struct lsc__rd_cfg cfg = {.p = L->p, .fds = fds, .n_fds = L->n_files, .bufs = iov + skip,
				  .n_bufs = L->register_bufs ? n_iov - skip : 0, .qd = L->Q,
				  .async = L->async};
	char why[384] = "";
	R->rd = L->rd;
	int ret = R->rd->setup(&cfg, &R->r, why, sizeof(why));
	if (ret < 0 && R->rd != &lsc__reader_pread) {
		lsc__load_fallback(L->p, "reader", R->rd->name, "pread", why[0] ? why : lsc__errname(ret));
		R->rd = &lsc__reader_pread;
		ret = R->rd->setup(&cfg, &R->r, why, sizeof(why));
	}
	if (ret < 0) {
		lsc__load_error(L->p, "reader", NULL, 0, ret, "%s setup: %s", R->rd->name,
				why[0] ? why : "failed");
		R->r = NULL;
		return ret;
	}
	L->rd = R->rd;
	unsigned st = R->rd->state(R->r);
	L->fixed_bufs = R->fixed_bufs = !!(st & LSC__RD_FIXED_BUFS);
	L->arena_fixed = R->fixed_bufs && R->arena_fixed;
	L->fixed_files = !!(st & LSC__RD_FIXED_FILES);
	L->async_applied = !!(st & LSC__RD_ASYNC);
	return 0;
}

int lsc__pipeline_run(struct lsc__load *L)
{
	struct run R = {.L = L};
	struct lsc__verify *v = NULL;
	int *fds = calloc(L->n_files ? L->n_files : 1, sizeof(*fds));
	/* Several destinations are several ranges, which a registration of
	 * pieces of one range cannot cover: none of them is registered. */
	int one_range = !(L->caller_memory && L->n_dst > 1);
	R.n_arena_iov = L->to_arena && one_range
				? (unsigned)((L->out->a.bytes + LSC__REG_MAX - 1) / LSC__REG_MAX)
				: 0;
	if (!one_range && L->to_arena)
		snprintf(L->arena_unreg_why, sizeof(L->arena_unreg_why), "it is %zu destinations", L->n_dst);
	unsigned n_iov = R.n_arena_iov + L->stg.count;
	struct iovec *iov = calloc(n_iov ? n_iov : 1, sizeof(*iov));
	R.free_bufs = calloc(L->stg.count ? L->stg.count : 1, sizeof(*R.free_bufs));
	int ret = -ENOMEM;
	if (!fds || !iov || !R.free_bufs) {
		lsc__load_error(L->p, "read", NULL, 0, ret, "pipeline tables");
		goto out;
	}
	if (L->verify && (ret = lsc__verify_create(&v)) < 0) {
		lsc__load_error(L->p, "verify", NULL, 0, ret, "hash state");
		goto out;
	}
	for (unsigned i = 0; i < L->n_files; i++)
		fds[i] = L->files[i].fd;
	for (unsigned i = 0; i < n_iov; i++) {
		if (i < R.n_arena_iov) {
			uint64_t off = (uint64_t)i * LSC__REG_MAX, rest = L->out->a.bytes - off;
			iov[i].iov_base = (unsigned char *)L->out->a.base + off;
			iov[i].iov_len = rest < LSC__REG_MAX ? rest : LSC__REG_MAX;
		} else {
			iov[i].iov_base = lsc__staging_buf(&L->stg, i - R.n_arena_iov);
			iov[i].iov_len = L->stg.bytes;
		}
	}
	for (unsigned i = 0; i < L->stg.count; i++)
		R.free_bufs[R.n_free++] = L->stg.count - 1 - i;

	struct lsc__phase span;
	lsc__phase_begin(L->p, L->pin, LSC_PHASE_READ, NULL, L->total_bytes, &span);
	uint64_t t0 = lsc__now_ns();
	if (R.n_arena_iov && L->rd != &lsc__reader_pread)
		R.arena_fixed = arena_fixed(L);
	if ((ret = setup_reader(&R, fds, iov, n_iov)) < 0)
		goto end_span;
	L->rd_live_ops = R.rd;
	L->rd_live = R.r;

	uint64_t next_issue = 0, next_hash = 0, completed = 0;
	while (completed < L->n_chunks) {
		if ((ret = refill(&R, &next_issue)) < 0)
			goto end_span;
		struct lsc__rd_done d;
		ret = R.rd->complete(R.r, &d);
		if (ret < 0) {
			/* The reader broke, not one read: name the oldest read
			 * still outstanding. */
			uint64_t k = 0;
			while (k < next_issue && L->chunks[k].done)
				k++;
			const struct lsc__lext *x = &L->lx[L->chunks[k < L->n_chunks ? k : 0].ext];
			uint64_t off = k < L->n_chunks ? x->off + L->chunks[k].off_in_ext : 0;
			lsc__load_error(L->p, "read", L->files[x->file].path, off, ret,
					"%s completion, %u reads in flight from this offset", R.rd->name,
					R.inflight);
			goto end_span;
		}
		R.inflight--;
		uint64_t before = L->bytes_done;
		if ((ret = finish(&R, &d)) < 0)
			goto end_span;
		if (L->bytes_done == before)
			continue; /* resubmitted after an O_DIRECT fallback */
		completed++;
		lsc_span_progress(L->p, span.span, L->bytes_done);
		if ((ret = lsc__progress(L, L->bytes_done)) < 0)
			goto end_span;
		if ((ret = lsc__device_copy(L, d.tag & TAG_SEQ_MASK)) < 0)
			goto end_span;
		/* Refill before hashing, so the kernel reads while we hash. */
		if ((ret = refill(&R, &next_issue)) < 0)
			goto end_span;
		if (v && (ret = lsc__verify_advance(L, v, &next_hash)) < 0)
			goto end_span;
	}
	ret = lsc__device_finish(L);
end_span:
	if (R.r && (R.rd->state(R.r) & LSC__RD_FELL_BACK)) {
		/* The rest was read with pread (a fallback line said why). */
		L->rd = &lsc__reader_pread;
		L->fixed_bufs = L->fixed_files = L->async_applied = L->arena_fixed = 0;
	}
	L->rd_live = NULL;
	if (R.r)
		R.rd->teardown(R.r); /* waits for reads still in flight */
	L->read_ns = lsc__now_ns() - t0;
	lsc__phase_end(L->p, &span);
	/* Copy and hash ran inside the read span, between completions: their
	 * busy time is reported as overlapped phases, not as covered time. */
	if (ret == 0 && L->n_staged)
		lsc_phase_record(L->p, LSC_PHASE_COPY, NULL, L->bytes_done, L->copy_ns);
	if (ret == 0 && v)
		lsc_phase_record(L->p, LSC_PHASE_VERIFY, NULL, L->bytes_done, L->verify_ns);
	if (ret == 0 && L->out->dev)
		lsc_phase_record(L->p, LSC_PHASE_COPY, LSC__DEVICE_COPY, L->bytes_done, L->dev_ns);
out:
	lsc__verify_destroy(v);
	free(fds);
	free(iov);
	free(R.free_bufs);
	return ret;
}
