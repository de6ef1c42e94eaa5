/*
 * The triage tests' runner: see triage_run.h.
 */
#include <dirent.h>
#include <sys/stat.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/damage.h"
#include "helpers/triage_run.h"
#include "triage/render.h"

/* Triage one in-memory log in one piece; NULL when out of memory. */
struct lsc_triage *trun_text(const char *log)
{
	struct lsc_triage *t = lsc_triage_new(NULL);
	if (!t)
		return NULL;
	lsc_triage_feed(t, log, strlen(log));
	lsc_triage_finish(t);
	return t;
}

/* The severity of finding @id, or -1 when it did not fire. */
int trun_sev_of(struct lsc_triage *t, const char *id)
{
	for (size_t i = 0; i < lsc_triage_nfindings(t); i++) {
		struct lsc_triage_finding_info f;
		lsc_triage_finding(t, i, &f);
		if (!strcmp(f.id, id))
			return (int)f.severity;
	}
	return -1;
}

static const char *const trun_sev_names[] = {"info", "warn", "fail"};

int trun_sev_parse(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(s, trun_sev_names[i]) == 0)
			return i;
	return -1;
}

const char *trun_sev_name(int s)
{
	return s >= 0 && s < 3 ? trun_sev_names[s] : "?";
}

void tset_free(struct tset *s)
{
	free(s->r);
	s->r = NULL;
	s->n = s->cap = 0;
}

int tset_add(struct tset *s, const char *id, int sev, unsigned start)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct trow *r = realloc(s->r, cap * sizeof *r);
		if (!r)
			return -ENOMEM;
		s->r = r;
		s->cap = cap;
	}
	struct trow *w = &s->r[s->n++];
	snprintf(w->id, sizeof w->id, "%s", id);
	w->sev = sev;
	w->start = start;
	return 0;
}

static int trow_cmp(const void *a, const void *b)
{
	const struct trow *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	int c = strcmp(x->id, y->id);
	if (c)
		return c;
	return x->sev - y->sev;
}

void tset_sort(struct tset *s)
{
	if (s->n)
		qsort(s->r, s->n, sizeof *s->r, trow_cmp);
}

/* "id sev start" per row, one per line, into @buf (truncated to @cap). */
const char *tset_str(const struct tset *s, char *buf, size_t cap)
{
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < s->n && o + 1 < cap; i++) {
		int w = snprintf(buf + o, cap - o, "%s%s %s %u", i ? "; " : "", s->r[i].id,
				 trun_sev_name(s->r[i].sev), s->r[i].start);
		if (w < 0)
			break;
		o += (size_t)w;
	}
	if (!s->n)
		snprintf(buf, cap, "(none)");
	return buf;
}

int tset_equal(const struct tset *a, const struct tset *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (trow_cmp(&a->r[i], &b->r[i]))
			return 0;
	return 1;
}

/* Whole file into a malloc'ed, NUL-terminated buffer. */
char *trun_corpus_log(const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof path, LSC_TEST_CORPUS "/logs/%s", name);
	return trun_slurp(path, len);
}

char *trun_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *p = malloc(cap + 1);
	while (p) {
		size_t r = fread(p + n, 1, cap - n, f);
		n += r;
		if (n < cap)
			break;
		cap *= 2;
		char *q = realloc(p, cap + 1);
		if (!q) {
			free(p);
			p = NULL;
		} else {
			p = q;
		}
	}
	fclose(f);
	if (p) {
		p[n] = '\0';
		if (len)
			*len = n;
	}
	return p;
}

int trun_write(const char *path, const char *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -errno;
	int rc = fwrite(buf, 1, len, f) == len ? 0 : -EIO;
	if (fclose(f))
		rc = -EIO;
	return rc;
}

/* The .ids spec: "id severity start" per line, '#' comments, blank lines. */
int trun_read_ids(const char *path, struct tset *out)
{
	size_t len;
	char *buf = trun_slurp(path, &len);
	if (!buf)
		return -ENOENT;
	int rc = 0;
	for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char id[TR_ID_MAX], sev[16];
		unsigned start;
		while (*l == ' ' || *l == '\t')
			l++;
		if (*l == '#' || *l == '\0')
			continue;
		if (sscanf(l, "%47s %15s %u", id, sev, &start) != 3 || trun_sev_parse(sev) < 0) {
			rc = -EINVAL;
			break;
		}
		tset_add(out, id, trun_sev_parse(sev), start);
	}
	free(buf);
	tset_sort(out);
	return rc;
}

static int trun_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted names of the files in @dir ending in @suffix; *n set. Free with trun_names_free. */
char **trun_list(const char *dir, const char *suffix, size_t *n)
{
	DIR *d = opendir(dir);
	*n = 0;
	if (!d)
		return NULL;
	size_t cap = 64, sl = strlen(suffix);
	char **v = malloc(cap * sizeof *v);
	struct dirent *e;
	while (v && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] == '.' || l < sl || strcmp(e->d_name + l - sl, suffix))
			continue;
		if (*n == cap) {
			cap *= 2;
			char **w = realloc(v, cap * sizeof *v);
			if (!w)
				break;
			v = w;
		}
		v[(*n)++] = strdup(e->d_name);
	}
	closedir(d);
	if (v && *n)
		qsort(v, *n, sizeof *v, trun_name_cmp);
	return v;
}

void trun_names_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * Feed @buf to a new triage: in @chunk-byte pieces, or, when @chunk is 0, in
 * pseudo-random pieces of 1..4096 bytes drawn from @seed. Return the triage
 * (finished) or NULL.
 */
struct lsc_triage *trun_feed(const char *buf, size_t len, size_t chunk, uint64_t seed,
					    const struct lsc_triage_opts *opts)
{
	struct lsc_triage *t = lsc_triage_new(opts);
	if (!t)
		return NULL;
	size_t o = 0;
	while (o < len) {
		size_t n = chunk ? chunk : 1 + (size_t)(dmg_rand(&seed) % 4096);
		if (n > len - o)
			n = len - o;
		lsc_triage_feed(t, buf + o, n);
		o += n;
	}
	lsc_triage_finish(t);
	return t;
}

void trun_findings(struct lsc_triage *t, struct tset *out)
{
	size_t n = lsc_triage_nfindings(t);
	for (size_t i = 0; i < n; i++) {
		struct lsc_triage_finding_info fi;
		if (lsc_triage_finding(t, i, &fi) == 0)
			tset_add(out, fi.id, (int)fi.severity, fi.start);
	}
	tset_sort(out);
}

/* Run the triage over @buf and collect its findings into @out. */
int trun_run(const char *buf, size_t len, size_t chunk, uint64_t seed, struct tset *out)
{
	struct lsc_triage *t = trun_feed(buf, len, chunk, seed, NULL);
	if (!t)
		return -ENOMEM;
	trun_findings(t, out);
	lsc_triage_free(t);
	return 0;
}

/* Render @t in @fmt into a malloc'ed buffer (open_memstream). */
char *trun_render(struct lsc_triage *t, enum lsc_triage_fmt fmt, size_t *len)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);
	if (!f)
		return NULL;
	int rc = (int)fmt == TRUN_HTML ? tr_render_html(t, f) : lsc_triage_render(t, fmt, f);
	fclose(f);
	if (rc < 0) {
		free(p);
		return NULL;
	}
	if (len)
		*len = n;
	return p;
}

int trun_held_out(const char *stem)
{
	FILE *f = fopen(LSC_TEST_CORPUS "/validation.txt", "r");
	if (!f)
		return 0;
	char line[256];
	int hit = 0;
	while (!hit && fgets(line, sizeof line, f)) {
		line[strcspn(line, " \t\r\n#")] = 0;
		hit = line[0] && !strcmp(line, stem);
	}
	fclose(f);
	return hit;
}

struct lsc_triage *trun_stem(const char *stem, const char *off)
{
	char path[512];
	snprintf(path, sizeof path, LSC_TEST_CORPUS "/logs/%s.log", stem);
	size_t len;
	char *buf = trun_slurp(path, &len);
	if (!buf)
		return NULL;
	struct lsc_triage_opts o = {.source = stem};
	struct lsc_triage *t = lsc_triage_new(&o);
	if (t) {
		lsc_triage_engine_off(t, off);
		lsc_triage_feed(t, buf, len);
		lsc_triage_finish(t);
	}
	free(buf);
	return t;
}

int trun_listed(const char *path, const char *stem, unsigned i)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[512], st[256];
	unsigned k;
	int hit = 0;
	while (!hit && fgets(line, sizeof line, f))
		hit = line[0] != '#' && sscanf(line, "%255s %u", st, &k) == 2 && k == i && !strcmp(st, stem);
	fclose(f);
	return hit;
}

char **trun_list_developed(const char *logs, size_t *n)
{
	size_t all;
	char **v = trun_list(logs, ".log", &all);
	*n = 0;
	for (size_t i = 0; v && i < all; i++) {
		char stem[256];
		snprintf(stem, sizeof stem, "%.*s", (int)(strlen(v[i]) - 4), v[i]);
		if (!trun_held_out(stem))
			v[(*n)++] = v[i];
		else
			free(v[i]);
	}
	return v;
}

char **trun_list_specd(const char *logs, const char *expected, size_t *n)
{
	size_t all;
	char **v = trun_list(logs, ".log", &all);
	*n = 0;
	for (size_t i = 0; v && i < all; i++) {
		char path[1024];
		struct stat st;
		size_t l = strlen(v[i]);
		snprintf(path, sizeof path, "%s/%.*s.ids", expected, (int)(l - 4), v[i]);
		if (stat(path, &st) == 0)
			v[(*n)++] = v[i];
		else
			free(v[i]);
	}
	return v;
}
