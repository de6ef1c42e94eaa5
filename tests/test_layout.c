/*
 * Description: the tree's layout rules, read from the tree itself.
 *   - A header whose opening comment says "Private to src/DIR/" is included
 *     only by files in src/DIR/ (and tests): each folder's other headers
 *     are what it offers the others (docs/architecture.md).
 *   - docs/architecture.md names every folder of src/ that holds sources.
 *   - No function in src/ or tools/ is over 120 lines, counted as
 *     universal-ctags counts them (its line: and end: fields); a loud skip
 *     where universal-ctags is not installed.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers/test_env.h"

#define ROOT LSC_TEST_FIXTURES "/../.."
#define MAX_FILES 1024
#define FN_MAX_LINES 120

struct file {
	char path[384];    /* relative to ROOT: "src/pin/pin_gpu.h" */
	char priv[64];     /* "src/pin/" when the header says it is private */
};

static struct file files[MAX_FILES];
static unsigned n_files;

static char *slurp(const char *rel)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", ROOT, rel);
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	size_t r;
	while (buf && (r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (n + 1 == cap) {
			char *b = realloc(buf, cap *= 2);
			if (!b) {
				free(buf);
				buf = NULL;
			}
			buf = b;
		}
	}
	fclose(f);
	if (buf)
		buf[n] = 0;
	return buf;
}

static int is_source(const char *name)
{
	size_t n = strlen(name);
	return n > 2 && name[n - 2] == '.' && (name[n - 1] == 'c' || name[n - 1] == 'h');
}

static void walk(const char *rel)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", ROOT, rel);
	DIR *d = opendir(path);
	cr_assert(d, "cannot open %s", path);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char sub[384];
		snprintf(sub, sizeof sub, "%s/%s", rel, e->d_name);
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", ROOT, sub);
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(sub);
		} else if (is_source(e->d_name)) {
			cr_assert_lt(n_files, MAX_FILES);
			struct file *f = &files[n_files++];
			snprintf(f->path, sizeof f->path, "%s", sub);
			f->priv[0] = 0;
		}
	}
	closedir(d);
}

/* The header's opening comment: "Private to src/DIR/" marks it. */
static void read_marks(void)
{
	for (unsigned i = 0; i < n_files; i++) {
		struct file *f = &files[i];
		if (f->path[strlen(f->path) - 1] != 'h')
			continue;
		char *s = slurp(f->path);
		cr_assert(s, "cannot read %s", f->path);
		char *end = strstr(s, "*/");
		if (end)
			*end = 0;
		const char *m = strstr(s, "Private to ");
		if (m) {
			m += strlen("Private to ");
			size_t k = strcspn(m, " ,.(:;\n");
			cr_assert_lt(k, sizeof f->priv);
			memcpy(f->priv, m, k);
			f->priv[k] = 0;
			cr_assert(strncmp(f->path, f->priv, k) == 0,
				  "%s says it is private to %s, a folder it is not in", f->path, f->priv);
		}
		free(s);
	}
}

static const struct file *header(const char *inc)
{
	char rel[384];
	snprintf(rel, sizeof rel, "src/%s", inc);
	for (unsigned i = 0; i < n_files; i++)
		if (!strcmp(files[i].path, rel))
			return &files[i];
	return NULL;
}

static void scan(void)
{
	n_files = 0;
	walk("src");
	walk("tools");
	read_marks();
}

Test(layout, private_headers_stay_in_their_folder)
{
	scan();
	unsigned n_private = 0, n_checked = 0;
	for (unsigned i = 0; i < n_files; i++)
		n_private += files[i].priv[0] != 0;
	/* The folders do have private headers (profiler_impl.h, arena_int.h,
	 * json.h, pin_gpu.h, gpu_dl.h): a marker nobody reads back would make
	 * this test pass on anything. */
	cr_assert_geq(n_private, 5, "only %u headers marked private", n_private);
	for (unsigned i = 0; i < n_files; i++) {
		char *s = slurp(files[i].path);
		cr_assert(s);
		for (char *p = s; (p = strstr(p, "#include \"")); p++) {
			char inc[200];
			const char *q = p + strlen("#include \"");
			size_t k = strcspn(q, "\"\n");
			if (k >= sizeof inc)
				continue;
			memcpy(inc, q, k);
			inc[k] = 0;
			const struct file *h = header(inc);
			if (!h || !h->priv[0])
				continue;
			n_checked++;
			cr_expect(strncmp(files[i].path, h->priv, strlen(h->priv)) == 0,
				  "%s includes %s, which is private to %s", files[i].path, inc, h->priv);
		}
		free(s);
	}
	cr_assert_gt(n_checked, 0, "no include of a private header found at all");
}

Test(layout, architecture_names_every_folder)
{
	scan();
	char *doc = slurp("docs/architecture.md");
	cr_assert(doc);
	char last[384] = "";
	unsigned n_dirs = 0;
	for (unsigned i = 0; i < n_files; i++) {
		if (strncmp(files[i].path, "src/", 4))
			continue;
		char dir[384];
		snprintf(dir, sizeof dir, "%s", files[i].path);
		char *slash = strrchr(dir, '/');
		if (slash == dir + 3) /* src/common.c */
			continue;
		slash[1] = 0;
		if (!strcmp(dir, last))
			continue;
		snprintf(last, sizeof last, "%s", dir);
		n_dirs++;
		char quoted[400];
		snprintf(quoted, sizeof quoted, "`%s`", dir);
		cr_expect(strstr(doc, quoted), "docs/architecture.md does not name %s", quoted);
	}
	cr_assert_geq(n_dirs, 8, "only %u folders of src/ found", n_dirs);
	free(doc);
}

Test(layout, no_function_over_120_lines)
{
#ifndef LSC_CTAGS
	cr_skip("[SKIP] function lengths: universal-ctags not installed (apt-get install universal-ctags)");
#else
	char cmd[1024];
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && '%s' --fields=+ne --c-kinds=f -o - -R src tools 2>/dev/null", ROOT, LSC_CTAGS);
	FILE *p = popen(cmd, "r");
	cr_assert(p);
	char line[4096];
	unsigned n_fn = 0, n_long = 0;
	while (fgets(line, sizeof line, p)) {
		const char *ln = strstr(line, "\tline:"), *en = strstr(line, "\tend:");
		if (!ln || !en)
			continue;
		long a = strtol(ln + 6, NULL, 10), b = strtol(en + 5, NULL, 10);
		n_fn++;
		if (b - a + 1 > FN_MAX_LINES) {
			n_long++;
			char name[128], file[256];
			if (sscanf(line, "%127[^\t]\t%255[^\t]", name, file) == 2)
				cr_expect(0, "%s in %s is %ld lines (at most %d)", name, file, b - a + 1,
					  FN_MAX_LINES);
		}
	}
	int rc = pclose(p);
	cr_assert_eq(rc, 0, "ctags failed");
	/* A ctags without end: fields (not universal-ctags) counts nothing. */
	cr_assert_gt(n_fn, 500, "ctags gave only %u functions with an end line", n_fn);
	cr_assert_eq(n_long, 0);
#endif
}
