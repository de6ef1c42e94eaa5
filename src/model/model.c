/*
 * Model files as manifests (lsc_manifest_from_files, loader.h): the one
 * place that decides what an input is, reads model.safetensors.index.json,
 * lays the tensors of every file out in the arena, and builds the extents
 * lsc_load reads. The format parsers are model_safetensors.c and
 * model_gguf.c; the JSON reader is json.c.
 *
 * Why each file's data section keeps its internal layout in the arena (a
 * tensor lands at the section's arena base + its offset in the section):
 * the alignment the file promises (GGUF's general.alignment, safetensors'
 * 8-byte data start) then holds in memory too, and an engine finds a
 * tensor at the offset its own header parser would compute.
 *
 * A failure prints one line and releases everything: the parsers fill a
 * struct lsc__merr, and this file prints it with the file's path.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <loadscope/loader.h>

#include "loader/lines.h"
#include "model/json.h"
#include "model/model.h"
#include "sys/sys.h"

#define INDEX_NAME "model.safetensors.index.json"
#define SINGLE_NAME "model.safetensors"
#define ARENA_ALIGN 4096ull

/* ---- the builder ------------------------------------------------------- */

struct in_file {
	const char *path;      /* pool */
	struct lsc__mfile mf;  /* format NULL: a plain file, one extent */
	uint64_t size;
};

struct builder {
	lsc_profiler *p;
	struct lsc__pool pool;
	struct in_file *f;
	size_t n, cap;
};

struct manifest_impl {
	struct lsc_manifest pub;
	struct lsc__pool pool;
	struct lsc_extent *ext;
	struct lsc_tensor *t;
	const struct lsc_tensor **by_name; /* the tensors sorted by name */
	const char **files;
};

static int fail(struct builder *b, const char *what, const char *path, const struct lsc__merr *e)
{
	lsc__load_error(b->p, what, path, e->offset, e->err, "%s", e->why);
	return e->err;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

static struct in_file *add_file(struct builder *b, const char *path)
{
	if (b->n == b->cap) {
		struct in_file *f = lsc__grow(b->f, &b->cap, 8, sizeof(*f));
		if (!f)
			return NULL;
		b->f = f;
	}
	struct in_file *f = &b->f[b->n];
	memset(f, 0, sizeof(*f));
	f->path = lsc__pool_strndup(&b->pool, path, strlen(path));
	if (!f->path)
		return NULL;
	b->n++;
	return f;
}

/* Open @path read-only; *st filled. 0, or a negative errno (no line). */
static int open_stat(const char *path, int *fd, struct stat *st)
{
	/* O_NONBLOCK: a FIFO given by mistake must not hang the open. */
	*fd = lsc__sys->open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
	if (*fd < 0)
		return -errno;
	if (lsc__sys->fstat(*fd, st) != 0) {
		int ret = -errno;
		lsc__sys->close(*fd);
		*fd = -1;
		return ret;
	}
	return 0;
}

/* One file (not a directory): detect its format and read its header. */
static int read_file(struct builder *b, const char *path, int want_safetensors)
{
	struct lsc__merr e = {0};
	struct stat st;
	int fd, ret = open_stat(path, &fd, &st);
	if (ret < 0) {
		lsc__merr_set(&e, ret, 0, "cannot open the file");
		return fail(b, "open", path, &e);
	}
	struct in_file *f = add_file(b, path);
	if (!f) {
		lsc__sys->close(fd);
		lsc__merr_set(&e, -ENOMEM, 0, "out of memory for the file list");
		return fail(b, "model", path, &e);
	}
	f->size = (uint64_t)st.st_size;
	if (!S_ISREG(st.st_mode)) {
		/* Not ours to judge: lsc_load refuses it with its own line. */
		lsc__sys->close(fd);
		return 0;
	}
	struct lsc__msrc src = {.fd = fd, .size = f->size};
	unsigned char magic[4] = {0};
	if (f->size >= 4 && (ret = lsc__msrc_read(&src, 0, magic, 4)) < 0) {
		lsc__sys->close(fd);
		lsc__merr_set(&e, ret, 0, "reading the first bytes");
		return fail(b, "model", path, &e);
	}
	ret = 0;
	if (!memcmp(magic, "GGUF", 4) || ends_with(path, ".gguf"))
		ret = lsc__gguf_parse(&src, &b->pool, &f->mf, &e);
	else if (want_safetensors || ends_with(path, ".safetensors"))
		ret = lsc__safetensors_parse(&src, &b->pool, &f->mf, &e);
	lsc__sys->close(fd);
	if (ret < 0)
		return fail(b, "model", path, &e);
	return 0;
}

/* A whole small file (index.json), at most LSC__ST_HEADER_MAX bytes. */
static int slurp(struct builder *b, const char *path, char **buf, size_t *len)
{
	struct lsc__merr e = {0};
	struct stat st;
	int fd, ret = open_stat(path, &fd, &st);
	if (ret < 0) {
		lsc__merr_set(&e, ret, 0, "cannot open the file");
		return fail(b, "open", path, &e);
	}
	if ((uint64_t)st.st_size > LSC__ST_HEADER_MAX) {
		lsc__sys->close(fd);
		lsc__merr_set(&e, -EBADMSG, 0, "%lld bytes, over the limit of %llu bytes for an index",
			      (long long)st.st_size, (unsigned long long)LSC__ST_HEADER_MAX);
		return fail(b, "model", path, &e);
	}
	*len = (size_t)st.st_size;
	*buf = malloc(*len ? *len : 1);
	struct lsc__msrc src = {.fd = fd, .size = *len};
	ret = *buf ? lsc__msrc_read(&src, 0, *buf, *len) : -ENOMEM;
	lsc__sys->close(fd);
	if (ret < 0) {
		free(*buf);
		*buf = NULL;
		lsc__merr_set(&e, ret, 0, "reading the index");
		return fail(b, "model", path, &e);
	}
	return 0;
}

struct wentry {
	const char *name, *shard;
	int seen;
};

static int cmp_wname(const void *a, const void *b)
{
	return strcmp(((const struct wentry *)a)->name, ((const struct wentry *)b)->name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A shard name from the index must stay inside the directory. */
static int shard_ok(const char *s)
{
	if (!*s || *s == '/')
		return 0;
	for (const char *c = s; *c;) {
		const char *n = strchr(c, '/');
		size_t l = n ? (size_t)(n - c) : strlen(c);
		if ((l == 2 && !memcmp(c, "..", 2)) || l == 0)
			return 0;
		c += l + (n ? 1 : 0);
	}
	return 1;
}

static char *join(struct builder *b, const char *dir, const char *name)
{
	size_t a = strlen(dir), n = strlen(name);
	char *s = lsc__pool_alloc(&b->pool, a + n + 2);
	if (s)
		snprintf(s, a + n + 2, "%s%s%s", dir, a && dir[a - 1] == '/' ? "" : "/", name);
	return s;
}

/* model.safetensors.index.json: {"metadata": ..., "weight_map": {tensor: shard}}. */
/* The weight map read so far: tensor name -> shard, in the pool. */
struct wmap {
	struct wentry *w;
	size_t n, cap;
};

/* The JSON reader's error as the index's cause. Return -EBADMSG. */
static int json_bad(struct lsc__json *j, struct lsc__merr *e)
{
	size_t pos;
	const char *why = lsc__json_error(j, &pos);
	return lsc__merr_set(e, lsc__json_errno(j), pos, "index JSON at byte %zu: %s", pos, why ? why : "malformed");
}

/* One `"tensor": "shard"` pair of weight_map, @k of @kl bytes the key,
 * appended to @m. 0 or a negative errno with @e set. */
static int add_weight(struct builder *b, struct lsc__json *j, struct wmap *m, const char *k, size_t kl,
		      struct lsc__merr *e)
{
	const char *v;
	size_t vl;
	char *name = lsc__pool_strndup(&b->pool, k, kl);
	if (lsc__json_peek(j) != LSC__J_STRING) {
		lsc__json_fail(j, "a weight_map value that is not a string");
		return json_bad(j, e);
	}
	if (lsc__json_string(j, &v, &vl) < 0)
		return json_bad(j, e);
	if (m->n == m->cap) {
		size_t c = m->cap ? m->cap * 2 : 64;
		struct wentry *x = c <= LSC__MODEL_TENSORS_MAX ? realloc(m->w, c * sizeof(*m->w)) : NULL;
		if (!x && c > LSC__MODEL_TENSORS_MAX)
			return lsc__merr_set(e, -EBADMSG, j->pos, "weight_map: more than %zu tensors", m->n);
		if (!x)
			return lsc__merr_set(e, -ENOMEM, j->pos, "out of memory for a weight_map of %zu tensors",
					     c);
		m->w = x;
		m->cap = c;
	}
	struct wentry *w = &m->w[m->n];
	w->name = name;
	w->shard = lsc__pool_strndup(&b->pool, v, vl);
	w->seen = 0;
	if (!name || !w->shard)
		return lsc__merr_set(e, -ENOMEM, 0, "out of memory for the weight_map");
	if (!shard_ok(w->shard))
		return lsc__merr_set(e, -EBADMSG, j->pos,
				     "weight_map: shard \"%s\" of tensor \"%s\" is not a file in the directory",
				     w->shard, name);
	m->n++;
	return 0;
}

/* The index's one weight_map object into @m, every other key skipped; its
 * names sorted and unique. 0 or a negative errno with @e set. */
static int parse_weight_map(struct builder *b, struct lsc__json *j, struct wmap *m, struct lsc__merr *e)
{
	const char *k;
	size_t kl;
	int r, ret, have_map = 0;
	if (lsc__json_object(j) < 0)
		return json_bad(j, e);
	while ((r = lsc__json_key(j, &k, &kl)) == 1) {
		if (strcmp(k, "weight_map")) {
			if (lsc__json_skip(j) < 0)
				return json_bad(j, e);
			continue;
		}
		if (have_map++) {
			lsc__json_fail(j, "weight_map given twice");
			return json_bad(j, e);
		}
		if (lsc__json_peek(j) != LSC__J_OBJECT || lsc__json_object(j) < 0) {
			lsc__json_fail(j, "weight_map is not an object");
			return json_bad(j, e);
		}
		while ((r = lsc__json_key(j, &k, &kl)) == 1)
			if ((ret = add_weight(b, j, m, k, kl, e)) < 0)
				return ret;
		if (r < 0)
			return json_bad(j, e);
	}
	if (r < 0 || lsc__json_end(j) < 0)
		return json_bad(j, e);
	if (!have_map)
		return lsc__merr_set(e, -EBADMSG, 0, "no weight_map");
	if (m->n)
		qsort(m->w, m->n, sizeof(*m->w), cmp_wname);
	for (size_t i = 1; i < m->n; i++)
		if (!strcmp(m->w[i].name, m->w[i - 1].name))
			return lsc__merr_set(e, -EBADMSG, 0, "weight_map: tensor \"%s\" is named twice",
					     m->w[i].name);
	return 0;
}

/* The shards @m names, once each, in name order (model-00001-of-00004
 * first), into a new array of @ns. 0 or -ENOMEM with @e set. */
static int shard_list(const struct wmap *m, const char ***out, size_t *ns, struct lsc__merr *e)
{
	const char **shards = malloc((m->n ? m->n : 1) * sizeof(*shards));
	*out = shards;
	*ns = 0;
	if (!shards)
		return lsc__merr_set(e, -ENOMEM, 0, "out of memory for the shard list");
	for (size_t i = 0; i < m->n; i++)
		shards[i] = m->w[i].shard;
	if (m->n)
		qsort(shards, m->n, sizeof(*shards), cmp_str);
	for (size_t i = 0; i < m->n; i++)
		if (!*ns || strcmp(shards[i], shards[*ns - 1]))
			shards[(*ns)++] = shards[i];
	return 0;
}

/* A shard must be a regular file: a FIFO, a directory or "." was read as a
 * file of no tensors, and the map's first tensor was "not in shard". 0, or
 * the error with @e set; a shard that cannot be opened is read_file's to
 * report. */
static int shard_kind(const char *path, const char *shard, struct lsc__merr *e)
{
	struct stat st;
	int fd;
	if (open_stat(path, &fd, &st) < 0)
		return 0;
	lsc__sys->close(fd);
	if (S_ISREG(st.st_mode))
		return 0;
	return lsc__merr_set(e, S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL, 0,
			     "weight_map: shard \"%s\" is %s, not a regular file", shard,
			     lsc__file_type_name(st.st_mode));
}

/* The tensors of the shard just read (the builder's last file) against the
 * map: each must be mapped to @shard, and is marked seen. 0 or -EBADMSG
 * with @e set. */
static int match_shard(const struct builder *b, struct wmap *m, const char *shard, struct lsc__merr *e)
{
	const struct in_file *f = &b->f[b->n - 1];
	for (size_t t = 0; t < f->mf.n; t++) {
		struct wentry key = {.name = f->mf.t[t].name};
		struct wentry *w = bsearch(&key, m->w, m->n, sizeof(*m->w), cmp_wname);
		if (!w || strcmp(w->shard, shard))
			return lsc__merr_set(e, -EBADMSG, 0, "tensor \"%s\" of shard %s is %s%s", key.name, shard,
					     w ? "mapped to " : "not in the weight_map", w ? w->shard : "");
		w->seen = 1;
	}
	return 0;
}

/* model.safetensors.index.json at @ipath in @dir: its weight map, then each
 * shard it names read as a file of the model and checked against the map.
 * 0 or a negative errno, its line printed. */
static int read_index(struct builder *b, const char *dir, const char *ipath)
{
	char *buf = NULL;
	size_t len = 0, ns = 0;
	struct wmap m = {0};
	const char **shards = NULL;
	struct lsc__merr e = {0};
	int ret = slurp(b, ipath, &buf, &len);
	if (ret < 0)
		return ret;
	struct lsc__json j;
	lsc__json_init(&j, buf, len);
	if ((ret = parse_weight_map(b, &j, &m, &e)) < 0 || (ret = shard_list(&m, &shards, &ns, &e)) < 0)
		goto failed;
	for (size_t s = 0; s < ns; s++) {
		const char *sp = join(b, dir, shards[s]);
		if (!sp) {
			ret = lsc__merr_set(&e, -ENOMEM, 0, "out of memory for the shard list");
			goto failed;
		}
		if ((ret = shard_kind(sp, shards[s], &e)) < 0)
			goto failed;
		if ((ret = read_file(b, sp, 1)) < 0)
			goto out; /* line printed */
		if ((ret = match_shard(b, &m, shards[s], &e)) < 0)
			goto failed;
	}
	for (size_t i = 0; i < m.n; i++)
		if (!m.w[i].seen) {
			ret = lsc__merr_set(&e, -EBADMSG, 0, "weight_map: tensor \"%s\" is not in shard %s",
					    m.w[i].name, m.w[i].shard);
			goto failed;
		}
	ret = 0;
	goto out;
failed:
	fail(b, "model", ipath, &e);
out:
	lsc__json_free(&j);
	free(buf);
	free(m.w);
	free(shards);
	return ret;
}

static int read_dir(struct builder *b, const char *dir)
{
	const char *ip = join(b, dir, INDEX_NAME), *sp = join(b, dir, SINGLE_NAME);
	struct lsc__merr e = {0};
	struct stat st;
	int fd;
	if (!ip || !sp) {
		lsc__merr_set(&e, -ENOMEM, 0, "out of memory for the file list");
		return fail(b, "model", dir, &e);
	}
	/* Only a name that is not there means the other layout: an index the
	 * process may not read is that index's failure, not "no index". */
	int ret = open_stat(ip, &fd, &st);
	if (ret == 0) {
		lsc__sys->close(fd);
		return read_index(b, dir, ip);
	}
	const char *tried = ip;
	if (ret == -ENOENT) {
		tried = sp;
		ret = open_stat(sp, &fd, &st);
		if (ret == 0) {
			lsc__sys->close(fd);
			return read_file(b, sp, 1);
		}
	}
	if (ret != -ENOENT) {
		lsc__merr_set(&e, ret, 0, "cannot open the file");
		return fail(b, "open", tried, &e);
	}
	lsc__merr_set(&e, -EISDIR, 0, "a directory with neither " INDEX_NAME " nor " SINGLE_NAME);
	return fail(b, "open", dir, &e);
}

struct tref {
	const char *name;
	size_t file;
};

static int cmp_tref(const void *a, const void *b)
{
	return strcmp(((const struct tref *)a)->name, ((const struct tref *)b)->name);
}

/* No tensor name twice across the whole manifest (a shard given twice, or
 * two models mixed): an engine looks tensors up by name. */
static int unique_names(struct builder *b, size_t n_tensors)
{
	struct lsc__merr e = {0};
	if (n_tensors < 2)
		return 0;
	struct tref *r = malloc(n_tensors * sizeof(*r));
	if (!r) {
		lsc__merr_set(&e, -ENOMEM, 0, "out of memory checking %zu tensor names", n_tensors);
		return fail(b, "model", b->f[0].path, &e);
	}
	size_t k = 0;
	for (size_t i = 0; i < b->n; i++)
		for (size_t t = 0; t < b->f[i].mf.n; t++)
			r[k++] = (struct tref){b->f[i].mf.t[t].name, i};
	qsort(r, k, sizeof(*r), cmp_tref);
	int ret = 0;
	for (size_t i = 1; i < k && !ret; i++)
		if (!strcmp(r[i].name, r[i - 1].name)) {
			size_t a = r[i - 1].file < r[i].file ? r[i - 1].file : r[i].file;
			size_t c = r[i - 1].file < r[i].file ? r[i].file : r[i - 1].file;
			lsc__merr_set(&e, -EBADMSG, 0, "tensor \"%s\" is in %s and in %s", r[i].name,
				      b->f[a].path, b->f[c].path);
			ret = fail(b, "model", b->f[c].path, &e);
		}
	free(r);
	return ret;
}

static void builder_free(struct builder *b)
{
	for (size_t i = 0; i < b->n; i++)
		lsc__mfile_free(&b->f[i].mf);
	free(b->f);
	lsc__pool_free(&b->pool);
}

LSC_API void lsc_manifest_destroy(struct lsc_manifest *pub)
{
	struct manifest_impl *m = (struct manifest_impl *)pub;
	if (!m)
		return;
	free(m->ext);
	free(m->t);
	free(m->by_name);
	free(m->files);
	lsc__pool_free(&m->pool);
	free(m);
}

static int cmp_tensor_name(const void *a, const void *b)
{
	return strcmp((*(const struct lsc_tensor *const *)a)->name, (*(const struct lsc_tensor *const *)b)->name);
}

/* The tensors by name, for lsc_manifest_tensor (names are unique). */
static int index_names(struct manifest_impl *m, size_t n_t)
{
	m->by_name = malloc((n_t ? n_t : 1) * sizeof(*m->by_name));
	if (!m->by_name)
		return -ENOMEM;
	for (size_t i = 0; i < n_t; i++)
		m->by_name[i] = &m->t[i];
	qsort(m->by_name, n_t, sizeof(*m->by_name), cmp_tensor_name);
	return 0;
}

LSC_API const struct lsc_tensor *lsc_manifest_tensor(const struct lsc_manifest *pub, const char *name)
{
	const struct manifest_impl *m = (const struct manifest_impl *)pub;
	if (!m || !name || !m->pub.n_tensors)
		return NULL;
	struct lsc_tensor key = {.name = name};
	const struct lsc_tensor *k = &key;
	const struct lsc_tensor **hit =
		bsearch(&k, m->by_name, m->pub.n_tensors, sizeof(*m->by_name), cmp_tensor_name);
	return hit ? *hit : NULL;
}

LSC_API int lsc_manifest_from_files(lsc_profiler *p, const char *const *paths, size_t n,
				    struct lsc_manifest **out)
{
	struct builder b = {.p = p};
	struct lsc__merr e = {0};
	struct manifest_impl *m = NULL;
	int ret;
	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!paths || !n) {
		lsc__load_error(p, "model", NULL, 0, -EINVAL, "no files to read");
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		int fd;
		if (!paths[i]) {
			lsc__load_error(p, "model", NULL, 0, -EINVAL, "file %zu has no path", i);
			ret = -EINVAL;
			goto out;
		}
		ret = open_stat(paths[i], &fd, &st);
		if (ret == 0) {
			lsc__sys->close(fd);
			ret = S_ISDIR(st.st_mode) ? read_dir(&b, paths[i]) : read_file(&b, paths[i], 0);
		} else {
			lsc__merr_set(&e, ret, 0, "cannot open the file");
			fail(&b, "open", paths[i], &e);
		}
		if (ret < 0)
			goto out;
	}
	size_t n_ext = 0, n_t = 0;
	for (size_t i = 0; i < b.n; i++) {
		n_t += b.f[i].mf.format ? b.f[i].mf.n : 0;
		n_ext += b.f[i].mf.format ? b.f[i].mf.n : 1;
	}
	if (n_t > LSC__MODEL_TENSORS_MAX) {
		lsc__merr_set(&e, -EBADMSG, 0, "%zu tensors in all, more than %u", n_t, LSC__MODEL_TENSORS_MAX);
		ret = fail(&b, "model", b.f[b.n - 1].path, &e);
		goto out;
	}
	if ((ret = unique_names(&b, n_t)) < 0)
		goto out;
	m = calloc(1, sizeof(*m));
	if (m) {
		m->ext = calloc(n_ext ? n_ext : 1, sizeof(*m->ext));
		m->t = calloc(n_t ? n_t : 1, sizeof(*m->t));
		m->files = calloc(b.n, sizeof(*m->files));
	}
	if (!m || !m->ext || !m->t || !m->files) {
		lsc__merr_set(&e, -ENOMEM, 0, "out of memory for %zu extents", n_ext);
		ret = fail(&b, "model", b.f[0].path, &e);
		goto out;
	}
	/* Lay the files out: each data section at an aligned arena offset,
	 * its tensors at their offsets within it. */
	uint64_t at = 0, end = 0;
	size_t x = 0, t = 0;
	for (size_t i = 0; i < b.n; i++) {
		const struct in_file *f = &b.f[i];
		m->files[i] = f->path;
		uint64_t align = f->mf.format && f->mf.align > ARENA_ALIGN ? f->mf.align : ARENA_ALIGN;
		uint64_t base = (at + align - 1) / align * align;
		if (!f->mf.format) {
			m->ext[x] = (struct lsc_extent){.path = f->path, .length = UINT64_MAX, .arena_offset = base};
			x++;
			at = base + f->size;
			end = at > end ? at : end;
			continue;
		}
		uint64_t reach = 0;
		for (size_t k = 0; k < f->mf.n; k++, x++, t++) {
			const struct lsc__mtensor *mt = &f->mf.t[k];
			m->ext[x] = (struct lsc_extent){.path = f->path, .file_offset = f->mf.data_off + mt->off,
							 .length = mt->len, .arena_offset = base + mt->off};
			m->t[t] = (struct lsc_tensor){.name = mt->name, .dtype = mt->dtype,
						      .n_dims = mt->n_dims, .dims = mt->dims,
						      .extent = x, .file = i};
			if (mt->off + mt->len > reach)
				reach = mt->off + mt->len;
		}
		at = base + reach;
		end = f->mf.n && at > end ? at : end;
	}
	m->pub.extents = m->ext;
	m->pub.n_extents = n_ext;
	m->pub.arena_bytes = end;
	m->pub.tensors = m->t;
	m->pub.n_tensors = n_t;
	m->pub.files = m->files;
	m->pub.n_files = b.n;
	if (index_names(m, n_t) < 0) {
		lsc__merr_set(&e, -ENOMEM, 0, "out of memory for the index of %zu tensor names", n_t);
		ret = fail(&b, "model", b.f[0].path, &e);
		goto out;
	}
	/* The names, shapes and paths live in the builder's pool: it moves. */
	m->pool = b.pool;
	b.pool.head = NULL;
	*out = &m->pub;
	m = NULL;
	ret = 0;
out:
	lsc_manifest_destroy(m ? &m->pub : NULL);
	builder_free(&b);
	return ret;
}
