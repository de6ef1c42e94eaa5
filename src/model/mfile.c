/*
 * The pieces every model-file parser shares (model.h): reads from the
 * file at an offset, the one error a parser fills for its line, the string
 * pool the names and shapes live in, and the tensor list with its check
 * that the tensors tile the data section. Apart from model.c, which decides
 * what an input is and lays the files out, so that a parser depends on
 * these alone.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "sys/sys.h"

int lsc__msrc_read(const struct lsc__msrc *s, uint64_t off, void *buf, size_t n)
{
	if (off > s->size || n > s->size - off)
		return -EBADMSG;
	if (s->mem) {
		memcpy(buf, s->mem + off, n);
		return 0;
	}
	for (size_t done = 0; done < n;) {
		ssize_t r = lsc__sys->pread(s->fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EBADMSG; /* the file shrank under us */
		done += (size_t)r;
	}
	return 0;
}

int lsc__merr_set(struct lsc__merr *e, int err, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	e->err = err;
	e->offset = offset;
	va_start(ap, fmt);
	vsnprintf(e->why, sizeof(e->why), fmt, ap);
	va_end(ap);
	return err;
}

struct lsc__pool_blk {
	struct lsc__pool_blk *next;
	size_t used, cap;
	max_align_t data[];
};

void *lsc__pool_alloc(struct lsc__pool *p, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	struct lsc__pool_blk *b = p->head;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->cap = cap;
		b->used = 0;
		b->next = p->head;
		p->head = b;
	}
	void *r = (char *)b->data + b->used;
	b->used += n;
	return r;
}

char *lsc__pool_strndup(struct lsc__pool *p, const char *s, size_t n)
{
	char *d = lsc__pool_alloc(p, n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

void lsc__pool_free(struct lsc__pool *p)
{
	while (p->head) {
		struct lsc__pool_blk *n = p->head->next;
		free(p->head);
		p->head = n;
	}
}

void *lsc__grow(void *p, size_t *cap, size_t first, size_t size)
{
	size_t c = *cap ? *cap * 2 : first;
	void *n = realloc(p, c * size);
	if (n)
		*cap = c;
	return n;
}

struct lsc__mtensor *lsc__mfile_add(struct lsc__mfile *f)
{
	if (f->n == f->cap) {
		struct lsc__mtensor *t = lsc__grow(f->t, &f->cap, 16, sizeof(*t));
		if (!t)
			return NULL;
		f->t = t;
	}
	memset(&f->t[f->n], 0, sizeof(f->t[0]));
	return &f->t[f->n++];
}

void lsc__mfile_free(struct lsc__mfile *f)
{
	free(f->t);
	memset(f, 0, sizeof(*f));
}

static int cmp_off(const void *a, const void *b)
{
	const struct lsc__mtensor *x = a, *y = b;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->len < y->len ? -1 : x->len > y->len;
}

int lsc__mfile_check(struct lsc__mfile *f, int contiguous, struct lsc__merr *e)
{
	if (f->n)
		qsort(f->t, f->n, sizeof(*f->t), cmp_off);
	uint64_t reach = 0;
	const char *reach_name = NULL;
	for (size_t i = 0; i < f->n; i++) {
		const struct lsc__mtensor *t = &f->t[i];
		if (t->off > f->data_bytes || t->len > f->data_bytes - t->off)
			return lsc__merr_set(e, -EBADMSG, f->data_off + (t->off < f->data_bytes ? t->off : 0),
					     "tensor \"%s\": bytes [%" PRIu64 ", %" PRIu64 ") of the data section "
					     "reach past the end of the file (the section holds %" PRIu64 " bytes)",
					     t->name, t->off, t->off + t->len, f->data_bytes);
		if (t->off < reach && (t->len || contiguous))
			return lsc__merr_set(e, -EBADMSG, f->data_off + t->off,
					     "tensors \"%s\" and \"%s\" overlap at byte %" PRIu64
					     " of the data section",
					     reach_name, t->name, t->off);
		if (contiguous && t->off > reach)
			return lsc__merr_set(e, -EBADMSG, f->data_off + reach,
					     "a hole of %" PRIu64 " bytes before tensor \"%s\" (safetensors "
					     "indexes its whole data buffer)",
					     t->off - reach, t->name);
		if (t->off + t->len >= reach) {
			reach = t->off + t->len;
			reach_name = t->name;
		}
	}
	if (contiguous && reach != f->data_bytes)
		return lsc__merr_set(e, -EBADMSG, f->data_off + reach,
				     "%" PRIu64 " bytes after the last tensor that no tensor indexes",
				     f->data_bytes - reach);
	return 0;
}

