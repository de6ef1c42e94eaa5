/*
 * Model files as manifests: what the format parsers (model_safetensors.c,
 * model_gguf.c, over mfile.c's shared pieces) share with the builder
 * (model.c), which detects the format of each input, reads
 * model.safetensors.index.json and lays the tensors out in the arena. The
 * folder's one header for the others (the fuzzers and tests); json.h is
 * its own.
 *
 * A parser reads one file's header through a source (a descriptor, read
 * through the syscall shim, or a buffer, for the fuzzers) and appends its
 * tensors to a list: name, dtype, shape, and the byte range relative to the
 * file's data section. It checks everything a loader would trust (offsets
 * inside the file, no overlap, counts and lengths that fit) and, on the
 * first problem, fills a struct lsc__merr and returns its error; the
 * builder prints the one line and releases everything.
 */
#ifndef LSC_MODEL_MODEL_H
#define LSC_MODEL_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* The largest safetensors header (and index.json) read: the safetensors
 * project's own limit (100 MB). */
#define LSC__ST_HEADER_MAX 100000000ull
/* The largest GGUF header (magic to the data section) read. */
#define LSC__GGUF_HEADER_MAX (1ull << 30)
/* The most tensors one manifest holds. */
#define LSC__MODEL_TENSORS_MAX (1u << 22)

/* Where a header comes from: a descriptor (mem NULL) or a buffer. */
struct lsc__msrc {
	int fd;
	const unsigned char *mem;
	uint64_t size;
};
/* Read exactly @n bytes at @off; 0, or -EBADMSG past the end, or -errno. */
int lsc__msrc_read(const struct lsc__msrc *s, uint64_t off, void *buf, size_t n);

/* What went wrong, where in the file (offset), for the one line. */
struct lsc__merr {
	int err;
	uint64_t offset;
	char why[320];
};
int lsc__merr_set(struct lsc__merr *e, int err, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Bump allocation for names and shapes: freed all at once. */
struct lsc__pool {
	struct lsc__pool_blk *head;
};
void *lsc__pool_alloc(struct lsc__pool *p, size_t n);
char *lsc__pool_strndup(struct lsc__pool *p, const char *s, size_t n);
void lsc__pool_free(struct lsc__pool *p);

struct lsc__mtensor {
	const char *name;      /* pool */
	const char *dtype;     /* static */
	uint32_t n_dims;
	const uint64_t *dims;  /* pool */
	uint64_t off, len;     /* in the data section */
};

/* One file's tensors. */
struct lsc__mfile {
	struct lsc__mtensor *t;
	size_t n, cap;
	uint64_t data_off;     /* where the data section starts in the file */
	uint64_t data_bytes;   /* its length */
	uint64_t align;        /* the alignment of tensors within it */
	const char *format;    /* "safetensors", "gguf" */
};
/* @p, a full array of @*cap elements of @size bytes, doubled (@first when
 * empty) and @*cap updated; NULL, with @p and @*cap as they were. */
void *lsc__grow(void *p, size_t *cap, size_t first, size_t size);
struct lsc__mtensor *lsc__mfile_add(struct lsc__mfile *f);
void lsc__mfile_free(struct lsc__mfile *f);

/* Sort @f's tensors by offset and check that none overlaps the next
 * (@contiguous: and that they cover the data section without a hole, as
 * safetensors requires). 0 or -EBADMSG with @e filled. */
int lsc__mfile_check(struct lsc__mfile *f, int contiguous, struct lsc__merr *e);

/* The parsers. 0, or a negative error with @e filled. */
int lsc__safetensors_parse(const struct lsc__msrc *s, struct lsc__pool *pool,
			   struct lsc__mfile *out, struct lsc__merr *e);
int lsc__gguf_parse(const struct lsc__msrc *s, struct lsc__pool *pool, struct lsc__mfile *out,
		    struct lsc__merr *e);

#endif
