/*
 * The model-file test kit (model_files.h).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "helpers/model_files.h"

char *lsct_write(const char *name, const void *bytes, size_t len)
{
	char *path = NULL;
	cr_assert_geq(asprintf(&path, "%s/%s", lsct_tmpdir(), name), 0);
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(bytes, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	return path;
}

int lsct_tool_load(const char *args, char *out, size_t cap)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "LOADSCOPE=verbose '%s' load %s 2>/dev/null", LSC_TEST_TOOL, args);
	FILE *f = popen(cmd, "r");
	cr_assert_not_null(f);
	size_t n = fread(out, 1, cap - 1, f);
	out[n] = 0;
	int st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

const char *lsct_out_field(const char *out, const char *event, const char *key, char *buf,
			   size_t cap)
{
	static struct lsc__parsed pl;
	for (const char *s = out; *s;) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if (len < cap) {
			memcpy(buf, s, len);
			buf[len] = 0;
			if (lsc__line_parse(buf, len, &pl) == 1 && !strcmp(pl.event, event))
				return lsc__parsed_get(&pl, key);
		}
		s += len + (e ? 1 : 0);
	}
	return NULL;
}

unsigned long long lsct_model_fails(const char *input, const char *path, int err, const char *errname,
				    const char *cause)
{
	if (!path)
		path = input;
	static struct lsct_capture cap;
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	int fds = lsct_open_fds();
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	struct lsc_manifest *m = (struct lsc_manifest *)1;
	int ret = lsc_manifest_from_files(p, &input, 1, &m);
	lsc_profiler_destroy(p);
	if (ret != err)
		lsct_dump(&cap);
	cr_assert_eq(ret, err, "%s: %d (%s), wanted %d", path, ret, lsc_strerror(ret), err);
	cr_assert_null(m);
	cr_assert_eq(lsct_open_fds(), fds, "a descriptor left open");
	cr_assert_eq(lsct_count(&cap, "error"), 1, "one error line");
	cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "what"), "model");
	cr_assert_str_eq(lsc__parsed_get(&pl, "path"), path);
	cr_assert_str_eq(lsc__parsed_get(&pl, "err"), errname);
	cr_assert(strstr(lsc__parsed_get(&pl, "cause"), cause), "cause \"%s\" lacks \"%s\"",
		  lsc__parsed_get(&pl, "cause"), cause);
	const char *o = lsc__parsed_get(&pl, "offset");
	cr_assert_not_null(o, "no offset");
	unsigned long long off = strtoull(o, NULL, 10);
	struct stat st;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		cr_assert_leq(off, (unsigned long long)st.st_size, "%s: offset %llu past its %lld bytes", path, off,
			      (long long)st.st_size);
	return off;
}
