/*
 * Description: the installed headers are good guests in C and C++ code.
 * No identifier in include/loadscope/ is reserved to the implementation:
 * none starts with an underscore and a capital or a second underscore, and
 * none contains a double underscore anywhere (reserved in C++, where an
 * engine includes these headers). Only the compiler's own names that the
 * headers test or use (__cplusplus, __attribute__, ...) may appear.
 * Comments and string literals are skipped.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INCLUDE_DIR LSC_TEST_FIXTURES "/../../include/loadscope"

/* The implementation's names a header may use, never define. */
static const char *const implementation[] = {"__cplusplus", "__attribute__", "__visibility__",
					     "__GNUC__", "__clang__", "__has_attribute",
					     "__STDC_VERSION__", NULL};

static int reserved(const char *id)
{
	for (const char *const *n = implementation; *n; n++)
		if (!strcmp(id, *n))
			return 0;
	if (id[0] == '_' && (id[1] == '_' || isupper((unsigned char)id[1])))
		return 1;
	return strstr(id, "__") != NULL;
}

/* The reserved identifiers of @text, listed in @out; their count. */
static unsigned scan(const char *text, char *out, size_t cap)
{
	unsigned bad = 0;
	out[0] = '\0';
	for (const char *s = text; *s;) {
		if (s[0] == '/' && s[1] == '*') {
			const char *e = strstr(s + 2, "*/");
			s = e ? e + 2 : s + strlen(s);
		} else if (s[0] == '/' && s[1] == '/') {
			s += strcspn(s, "\n");
		} else if (*s == '"' || *s == '\'') {
			char q = *s++;
			while (*s && *s != q)
				s += (*s == '\\' && s[1]) ? 2 : 1;
			if (*s)
				s++;
		} else if (isalpha((unsigned char)*s) || *s == '_') {
			char id[128];
			size_t n = 0;
			while ((isalnum((unsigned char)*s) || *s == '_') && n + 1 < sizeof(id))
				id[n++] = *s++;
			id[n] = '\0';
			if (reserved(id)) {
				bad++;
				size_t l = strlen(out);
				snprintf(out + l, cap - l, " %s", id);
			}
		} else if (isdigit((unsigned char)*s)) {
			while (isalnum((unsigned char)*s) || *s == '_' || *s == '.')
				s++;
		} else {
			s++;
		}
	}
	return bad;
}

Test(public_headers, scanner_finds_reserved_names)
{
	char out[256];
	cr_assert_eq(scan("#define LSC__STR2(x) #x\n#define _Foo 1\n/* __x */ \"__y\" int ok_a;", out,
			  sizeof(out)), 2);
	cr_assert_str_eq(out, " LSC__STR2 _Foo");
	cr_assert_eq(scan("#ifdef __cplusplus\nextern \"C\" {\n#endif\n", out, sizeof(out)), 0);
}

Test(public_headers, no_reserved_identifiers)
{
	DIR *d = opendir(INCLUDE_DIR);
	cr_assert_not_null(d, "%s", INCLUDE_DIR);
	unsigned headers = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 3 || strcmp(e->d_name + l - 2, ".h"))
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", INCLUDE_DIR, e->d_name);
		FILE *f = fopen(path, "r");
		cr_assert_not_null(f, "%s", path);
		static char text[1 << 20];
		size_t n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
		text[n] = '\0';
		char bad[1024];
		cr_expect_eq(scan(text, bad, sizeof(bad)), 0, "%s: reserved identifiers:%s", e->d_name, bad);
		headers++;
	}
	closedir(d);
	cr_assert_geq(headers, 5, "found %u headers in %s", headers, INCLUDE_DIR);
}
