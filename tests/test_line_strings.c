/*
 * Description: every string in a line survives both forms. In JSON lines
 * and the trace, quotes, backslashes, control characters and bytes that are
 * not UTF-8 are escaped to strict, valid UTF-8 JSON (an invalid byte reads
 * U+FFFD); in human lines a path with '|', '=', quotes, a newline or a
 * non-UTF-8 byte is quoted and escaped so that the grammar's parser gives
 * back its exact bytes, and the fields after it still parse. A line cut at
 * its bound stays valid JSON. Expected texts are written out by hand from
 * docs/log-format.md ("Strings").
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <loadscope/loader.h>

#include "format/line.h"

#include "helpers/capture.h"
#include "helpers/json_strict.h"
#include "helpers/load_helpers.h"

static struct lsct_capture cap;

static void render(const struct lsc__rec *r, enum lsc_format fmt, char *out)
{
	lsc__rec_render(r, fmt, NULL, out, LSC__LINE_MAX);
}

static void strict(const char *s, size_t n)
{
	char why[128];
	cr_assert_eq(lsct_json_strict(s, n, why, sizeof(why)), 0, "%s: %.*s", why, (int)n, s);
}

Test(line_strings, json_escapes_to_valid_utf8)
{
	struct lsc__rec r;
	lsc__rec_init(&r, "note");
	lsc__rec_str(&r, "path", "a\"b\\c\nd\te\x01\x7f|\xff\xc3\xa9");
	char out[LSC__LINE_MAX];
	render(&r, LSC_FORMAT_JSON, out);
	cr_assert_str_eq(out, "{\"loadscope\":2,\"event\":\"note\",\"msg\":\"\","
			      "\"path\":\"a\\\"b\\\\c\\nd\\te\\u0001\\u007f|\\ufffd\xc3\xa9\"}\n");
	strict(out, strlen(out));
	struct lsc__parsed p;
	cr_assert_eq(lsc__line_parse(out, strlen(out), &p), 1);
	cr_assert_str_eq(lsc__parsed_get(&p, "path"), "a\"b\\c\nd\te\x01\x7f|\xef\xbf\xbd\xc3\xa9");
}

Test(line_strings, json_replaces_every_invalid_sequence)
{
	/* overlong '/', a UTF-16 surrogate, above U+10FFFF, a cut sequence,
	 * a lone continuation byte; then valid 2, 3 and 4 byte characters. */
	struct lsc__rec r;
	lsc__rec_init(&r, "note");
	lsc__rec_str(&r, "s", "\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xe2\x82|\x80|\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	char out[LSC__LINE_MAX];
	render(&r, LSC_FORMAT_JSON, out);
	cr_assert(strstr(out, "\"s\":\"\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd\\ufffd|"
			      "\\ufffd\\ufffd|\\ufffd|\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"") != NULL, "%s", out);
	strict(out, strlen(out));
}

Test(line_strings, human_value_keeps_exact_bytes)
{
	const char *path = "/m/a | b=c \"q\" \\ \nx\x01\xff\xc3\xa9.bin";
	struct lsc__rec r;
	lsc__rec_init(&r, "error");
	lsc__rec_say(&r, "open failed: %s", path);
	lsc__rec_str(&r, "path", path);
	lsc__rec_i64(&r, "code", -2);
	char out[LSC__LINE_MAX];
	render(&r, LSC_FORMAT_HUMAN, out);
	cr_assert_str_eq(out, "[loadscope/2] error open failed: /m/a / b=c \"q\" \\  x ?\xc3\xa9.bin | "
			      "path=\"/m/a | b=c \\\"q\\\" \\\\ \\nx\\x01\\xff\xc3\xa9.bin\" code=-2\n");
	struct lsc__parsed p;
	cr_assert_eq(lsc__line_parse(out, strlen(out), &p), 1);
	cr_assert_str_eq(p.event, "error");
	cr_assert_eq(p.n, 2);
	cr_assert_str_eq(lsc__parsed_get(&p, "path"), path);
	cr_assert_str_eq(lsc__parsed_get(&p, "code"), "-2");
	cr_assert_eq(p.damaged, 0);
}

Test(line_strings, json_line_cut_at_its_bound_stays_valid)
{
	struct lsc__rec r;
	lsc__rec_init(&r, "note");
	for (int i = 0; i < 100; i++)
		lsc__rec_say(&r, "\"\\\xc3\xa9");
	lsc__rec_str(&r, "k", "v");
	char prefix[3700];
	memset(prefix, 'p', sizeof(prefix) - 1);
	prefix[sizeof(prefix) - 1] = '\0';
	char out[LSC__LINE_MAX];
	size_t n = lsc__rec_render(&r, LSC_FORMAT_JSON, prefix, out, sizeof(out));
	cr_assert_lt(n, sizeof(out));
	const char *j = strstr(out, "{\"loadscope\":");
	cr_assert_not_null(j);
	strict(j, strlen(j));
	cr_assert(strstr(j, ",\"trunc\":1}\n") != NULL, "%s", j);
}

Test(line_strings, load_lines_and_trace_of_an_odd_file_name)
{
	char name[] = "w | x=\"y\"\n\xff.bin";
	const char *file = lsct_make_file(name, 8192, 3);
	char path[4096];
	snprintf(path, sizeof(path), "%s", file);
	char trace[] = "/tmp/lsc-trace-strings-XXXXXX";
	int fd = mkstemp(trace);
	cr_assert_geq(fd, 0);
	close(fd);

	for (int fmt = 0; fmt < 2; fmt++) {
		lsct_capture_reset(&cap);
		struct lsc_profiler_options po;
		lsc_profiler_options_init(&po);
		po.sink = lsct_sink;
		po.sink_user = &cap;
		po.format = fmt ? LSC_FORMAT_JSON : LSC_FORMAT_HUMAN;
		po.mode = LSC_MODE_ON;
		po.trace_path = trace;
		po.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
		lsc_profiler *p;
		cr_assert_eq(lsc_profiler_create(&po, &p), 0);
		lsc_start_begin(p, "odd \"start\" \xfe");
		lsc_span s;
		lsc_span_begin(p, LSC_PHASE_CUSTOM, "tensor \"a\\b\"\n\xc3", 1, &s);
		lsc_span_end(p, s, NULL);
		struct lsc_extent e = {.path = path, .length = UINT64_MAX};
		lsc_arena *a = NULL;
		cr_assert_eq(lsc_load(p, NULL, &e, 1, 0, &a), 0, "%s", cap.buf);
		lsc_arena_destroy(a);
		/* The same file name, failing: the error line names it. */
		char missing[4200];
		snprintf(missing, sizeof(missing), "%s.missing", path);
		e.path = missing;
		cr_assert_lt(lsc_load(p, NULL, &e, 1, 0, &a), 0);
		lsc_start_end(p);
		lsc_profiler_destroy(p);

		char buf[LSC__LINE_MAX + 1];
		struct lsc__parsed err;
		cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &err), "%s", cap.buf);
		cr_assert_eq(err.damaged, 0, "%s", cap.buf);
		if (fmt) {
			/* JSON: the invalid byte reads U+FFFD. */
			char want[4200];
			snprintf(want, sizeof(want), "%s", missing);
			char *ff = strstr(want, "\xff");
			cr_assert_not_null(ff);
			memmove(ff + 3, ff + 1, strlen(ff + 1) + 1);
			memcpy(ff, "\xef\xbf\xbd", 3);
			cr_assert_str_eq(lsc__parsed_get(&err, "path"), want);
		} else {
			cr_assert_str_eq(lsc__parsed_get(&err, "path"), missing);
			cr_assert_str_eq(lsc__parsed_get(&err, "what"), "open");
		}
		unsigned n = 0;
		for (const char *l = cap.buf; *l;) {
			const char *nl = strchr(l, '\n');
			cr_assert_not_null(nl);
			if (fmt) {
				strict(l, (size_t)(nl - l));
				n++;
			}
			l = nl + 1;
		}
		cr_assert(!fmt || n >= 4, "%u JSON lines", n);

		FILE *f = fopen(trace, "r");
		cr_assert_not_null(f);
		static char text[1 << 20];
		size_t len = fread(text, 1, sizeof(text), f);
		fclose(f);
		strict(text, len);
		cr_assert(strstr(text, "\"name\":\"tensor \\\"a\\\\b\\\"\\n\\ufffd\"") != NULL, "%s", text);
	}
	unlink(trace);
}

/* lsc__line_parse reads @len bytes, not up to a NUL: a line inside a larger
 * buffer (the next line's bytes after it) ends its last value, quoted or
 * not, and its sentence, at @len. */
Test(line_strings, a_line_ends_at_its_length_not_at_a_nul)
{
	static const char *const lines[] = {
		"[loadscope/2] note pin: left | run=0000000a topic=pin k=v1",
		"[loadscope/2] note pin: left | run=0000000a topic=pin k=\"v1\"",
		"{\"loadscope\":2,\"event\":\"note\",\"run\":\"0000000a\",\"topic\":\"pin\",\"k\":\"v1\"}",
	};
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		char buf[256];
		size_t n = strlen(lines[i]);
		memcpy(buf, lines[i], n);
		memcpy(buf + n, "XYZ more=1\n", 12);
		struct lsc__parsed p;
		cr_assert_eq(lsc__line_parse(buf, n, &p), 1, "%s", lines[i]);
		const char *k = lsc__parsed_get(&p, "k");
		cr_expect_str_eq(k ? k : "(none)", "v1", "%s", lines[i]);
		cr_expect_null(lsc__parsed_get(&p, "more"), "%s", lines[i]);
		cr_expect_str_eq(p.event, "note");
	}
	/* a line with no fields ends its sentence at @len too */
	char buf[64];
	memcpy(buf, "[loadscope/2] ready in 1.000 sXYZ", 34);
	struct lsc__parsed p;
	cr_assert_eq(lsc__line_parse(buf, 30, &p), 1);
	cr_expect_str_eq(p.human, "in 1.000 s");
}

/* A line's version is its own: a JSON line without "loadscope" (or with 0)
 * is refused even when the struct held a version-2 line before. */
Test(line_strings, a_json_line_without_a_version_is_refused)
{
	struct lsc__parsed p;
	char a[] = "[loadscope/2] ready in 1.000 s | run=00000001";
	cr_assert_eq(lsc__line_parse(a, strlen(a), &p), 1);
	cr_assert_eq(p.version, 2);
	static const char *const bad[] = {"{\"event\":\"ready\",\"run\":\"00000001\"}",
					  "{\"loadscope\":0,\"event\":\"ready\"}", "{\"loadscope\":2}",
					  "{\"loadscope\":2,\"event\":\"\"}"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char b[128];
		snprintf(b, sizeof b, "%s", bad[i]);
		cr_expect_neq(lsc__line_parse(b, strlen(b), &p), 1, "%s parsed", bad[i]);
	}
	char c[] = "{\"loadscope\":1,\"event\":\"ready\"}";
	cr_expect_eq(lsc__line_parse(c, strlen(c), &p), 1);
	cr_expect_eq(p.version, 1);
}
