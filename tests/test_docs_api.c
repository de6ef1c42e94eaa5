/*
 * Description: docs/api.md against the public headers. Every LSC_API
 * function, every LSC_* macro (but the export macro's own definitions) and
 * every struct, enum and typedef of the headers in include/loadscope/ has
 * an entry in the index; every entry names something the header declares
 * on the very line its link points at
 * (`[\`name\`](../include/loadscope/H.h#LN)`), so neither a removed name nor
 * a moved line goes unnoticed. The headers are read as text, with the
 * shapes the project writes them in (one declaration's name on its first
 * line).
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/triage_run.h"

#define ROOT LSC_TEST_FIXTURES "/../.."
#define MAX_NAMES 256
#define MAX_LINES 2048

struct header {
	char file[256];
	char *text;
	char *line[MAX_LINES]; /* line[n - 1] is line n, NUL-terminated */
	unsigned n;
};

static struct header hdr[8];
static unsigned n_hdr;

/* The whole file; a file that cannot be read fails the test. */
static char *slurp(const char *path)
{
	char *s = trun_slurp(path, NULL);
	cr_assert_not_null(s, "cannot read %s", path);
	return s;
}

static void read_headers(void)
{
	DIR *d = opendir(ROOT "/include/loadscope");
	cr_assert_not_null(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 3 || strcmp(e->d_name + l - 2, ".h"))
			continue;
		cr_assert_lt(n_hdr, 8);
		struct header *h = &hdr[n_hdr++];
		snprintf(h->file, sizeof h->file, "%s", e->d_name);
		char path[1024];
		snprintf(path, sizeof path, ROOT "/include/loadscope/%s", e->d_name);
		h->text = slurp(path);
		for (char *s = h->text; *s && h->n < MAX_LINES;) {
			h->line[h->n++] = s;
			char *nl = strchr(s, '\n');
			if (!nl)
				break;
			*nl = '\0';
			s = nl + 1;
		}
	}
	closedir(d);
	cr_assert_geq(n_hdr, 5, "the five public headers");
}

static void free_headers(void)
{
	for (unsigned i = 0; i < n_hdr; i++)
		free(hdr[i].text);
	n_hdr = 0;
}

TestSuite(docs_api, .init = read_headers, .fini = free_headers);

static int ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Whether @name is on @line as a whole identifier. */
static int has_ident(const char *line, const char *name)
{
	size_t n = strlen(name);
	for (const char *s = strstr(line, name); s; s = strstr(s + 1, name))
		if ((s == line || !ident(s[-1])) && !ident(s[n]))
			return 1;
	return 0;
}

/* The identifier that ends right before @end (skipping blanks and '*', '('). */
static void ident_before(const char *start, const char *end, char *out, size_t cap)
{
	while (end > start && !ident(end[-1]))
		end--;
	const char *b = end;
	while (b > start && ident(b[-1]))
		b--;
	size_t n = (size_t)(end - b) < cap - 1 ? (size_t)(end - b) : cap - 1;
	memcpy(out, b, n);
	out[n] = '\0';
}

/* Every public name of the headers, as the index spells it ("lsc_load",
 * "struct lsc_extent", "LSC_NA"). */
static unsigned public_names(char names[][64])
{
	unsigned k = 0;
	for (unsigned i = 0; i < n_hdr; i++) {
		for (unsigned j = 0; j < hdr[i].n; j++) {
			const char *l = hdr[i].line[j], *p;
			char id[64];
			if (!strncmp(l, "LSC_API ", 8) && (p = strchr(l, '('))) {
				ident_before(l, p, id, sizeof id);
				snprintf(names[k++], 64, "%s", id);
			} else if (!strncmp(l, "#define LSC_", 12)) {
				const char *b = l + 8, *e = b;
				while (ident(*e))
					e++;
				snprintf(names[k], 64, "%.*s", (int)(e - b), b);
				if (strcmp(names[k], "LSC_API"))
					k++;
			} else if ((!strncmp(l, "struct lsc_", 11) || !strncmp(l, "enum lsc_", 9)) &&
				   l[strlen(l) - 1] == '{') {
				const char *e = strchr(l, ' ') + 1;
				while (ident(*e))
					e++;
				snprintf(names[k++], 64, "%.*s", (int)(e - l), l);
			} else if (!strncmp(l, "typedef ", 8)) {
				p = strstr(l, "(*");
				if (p) {
					const char *e = p + 2;
					while (ident(*e))
						e++;
					snprintf(names[k++], 64, "%.*s", (int)(e - p - 2), p + 2);
				} else {
					ident_before(l, l + strlen(l), id, sizeof id);
					snprintf(names[k++], 64, "%s", id);
				}
			}
			cr_assert_lt(k, MAX_NAMES);
		}
	}
	return k;
}

struct entry {
	char name[64];
	char file[32];
	unsigned line;
};

/* The index's entries: every [`NAME`](../include/loadscope/FILE#LN). */
static unsigned index_entries(struct entry *out)
{
	char *doc = slurp(ROOT "/docs/api.md");
	unsigned k = 0;
	static const char link[] = "`](../include/loadscope/";
	for (char *s = strstr(doc, link); s; s = strstr(s + 1, link)) {
		char *b = s;
		while (b > doc && b[-1] != '`')
			b--;
		cr_assert(b > doc + 1 && b[-2] == '[', "an entry's name is [`NAME`]: %.40s", b);
		cr_assert_lt(k, MAX_NAMES);
		struct entry *e = &out[k++];
		snprintf(e->name, sizeof e->name, "%.*s", (int)(s - b), b);
		char *f = s + strlen(link), *hash = strchr(f, '#');
		cr_assert_not_null(hash);
		snprintf(e->file, sizeof e->file, "%.*s", (int)(hash - f), f);
		cr_assert_eq(sscanf(hash, "#L%u)", &e->line), 1, "%s: a #LN link", e->name);
	}
	free(doc);
	return k;
}

Test(docs_api, every_public_name_is_in_the_index)
{
	static char names[MAX_NAMES][64];
	static struct entry ent[MAX_NAMES];
	unsigned n = public_names(names), m = index_entries(ent);
	cr_assert_gt(n, 40, "the headers' names were read (%u)", n);
	unsigned functions = 0;
	for (unsigned i = 0; i < n; i++) {
		functions += !strncmp(names[i], "lsc_", 4);
		int found = 0;
		for (unsigned j = 0; j < m && !found; j++)
			found = !strcmp(ent[j].name, names[i]);
		cr_assert(found, "%s is declared in include/loadscope but not in docs/api.md", names[i]);
	}
	cr_assert_gt(functions, 40, "the LSC_API functions were read (%u)", functions);
}

Test(docs_api, every_entry_is_declared_where_it_links)
{
	static struct entry ent[MAX_NAMES];
	unsigned m = index_entries(ent);
	cr_assert_gt(m, 40);
	for (unsigned j = 0; j < m; j++) {
		const struct header *h = NULL;
		for (unsigned i = 0; i < n_hdr && !h; i++)
			if (!strcmp(hdr[i].file, ent[j].file))
				h = &hdr[i];
		cr_assert_not_null(h, "%s links to %s, not a public header", ent[j].name, ent[j].file);
		cr_assert(ent[j].line >= 1 && ent[j].line <= h->n, "%s: %s has no line %u",
			  ent[j].name, ent[j].file, ent[j].line);
		const char *key = strrchr(ent[j].name, ' ');
		key = key ? key + 1 : ent[j].name;
		cr_assert(has_ident(h->line[ent[j].line - 1], key),
			  "docs/api.md: %s is not on %s line %u (\"%s\")", ent[j].name, ent[j].file,
			  ent[j].line, h->line[ent[j].line - 1]);
	}
}
