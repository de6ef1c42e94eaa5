/*
 * Description: lines that are the same in every process, whatever the
 * engine's locale. Under de_DE.UTF-8 (decimal comma, set with setlocale as
 * an engine does) the line writer, the unit helpers, the parser and the
 * trace still write and read "0.259", a load's lines too, and every JSON
 * line and trace is strict JSON; the engine's own locale is back once a
 * line is written.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/human.h"
#include "format/line.h"

#include "helpers/capture.h"
#include "helpers/comma_locale.h"
#include "helpers/json_strict.h"
#include "helpers/load_helpers.h"

static struct lsct_capture cap;

/* Every line of @c that carries a JSON record, checked strictly. */
static unsigned check_json_lines(const struct lsct_capture *c)
{
	unsigned n = 0;
	for (const char *s = c->buf; *s;) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		const char *j = memmem(s, len, "{\"loadscope\":", 13);
		if (j) {
			char why[128];
			cr_assert_eq(lsct_json_strict(j, len - (size_t)(j - s), why, sizeof(why)), 0,
				     "%s: %.*s", why, (int)len, s);
			n++;
		}
		s += len + (nl ? 1 : 0);
	}
	return n;
}

/* A decimal comma: "0,259" (a JSON list separator is never between two
 * digits in what the writers emit). */
static const char *digit_comma_digit(const char *s)
{
	for (s = *s ? s + 1 : s; *s; s++)
		if (s[0] == ',' && s[-1] >= '0' && s[-1] <= '9' && s[1] >= '0' && s[1] <= '9')
			return s;
	return NULL;
}

Test(line_locale, record_numbers_keep_the_point)
{
	lsct_comma_locale();
	char probe[16];
	snprintf(probe, sizeof(probe), "%.3f", 0.259);
	cr_assert_str_eq(probe, "0,259", "the locale is not comma-decimal");

	struct lsc__rec r;
	lsc__rec_init(&r, "ready");
	lsc__rec_say(&r, "in %.3f s", 0.259);
	lsc__rec_f64(&r, "wall_s", 0.259, 3);
	lsc__rec_f64(&r, "gibps", 12.5, 2);
	char out[LSC__LINE_MAX];
	lsc__rec_render(&r, LSC_FORMAT_HUMAN, NULL, out, sizeof(out));
	cr_assert_str_eq(out, "[loadscope/2] ready in 0.259 s | wall_s=0.259 gibps=12.50\n");
	lsc__rec_render(&r, LSC_FORMAT_JSON, NULL, out, sizeof(out));
	cr_assert_str_eq(out, "{\"loadscope\":2,\"event\":\"ready\",\"msg\":\"in 0.259 s\","
			      "\"wall_s\":0.259,\"gibps\":12.50}\n");
	char why[128];
	cr_assert_eq(lsct_json_strict(out, strlen(out), why, sizeof(why)), 0, "%s", why);

	/* The engine's locale is its own again. */
	snprintf(probe, sizeof(probe), "%.1f", 2.5);
	cr_assert_str_eq(probe, "2,5");
}

Test(line_locale, unit_helpers_keep_the_point)
{
	lsct_comma_locale();
	char b[LSC__HBUF];
	cr_assert_str_eq(lsc__fmt_secs(b, 0.259), "0.259 s");
	cr_assert_str_eq(lsc__fmt_bytes(b, 4.0 * 1024 * 1024 * 1024), "4.00 GiB");
	cr_assert_str_eq(lsc__fmt_bytes(b, 1536.0), "1.5 KiB");
	cr_assert_str_eq(lsc__fmt_count(b, 1050000.0), "1.05M");
}

Test(line_locale, parser_reads_the_point)
{
	lsct_comma_locale();
	char line[] = "[loadscope/2] ready in 0.259 s | wall_s=0.259 covered_s=1.5e-3";
	struct lsc__parsed p;
	cr_assert_eq(lsc__line_parse(line, strlen(line), &p), 1);
	double v = 0;
	cr_assert_eq(lsc__parsed_f64(&p, "wall_s", &v), 0);
	cr_assert_eq(v, 0.259);
	cr_assert_eq(lsc__parsed_f64(&p, "covered_s", &v), 0);
	cr_assert_eq(v, 0.0015);
}

Test(line_locale, profiler_lines_and_trace_are_c_locale)
{
	lsct_comma_locale();
	char path[] = "/tmp/lsc-trace-locale-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.format = LSC_FORMAT_JSON;
	o.mode = LSC_MODE_ON;
	o.trace_path = path;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG | LSC_PROFILER_VERBOSE;
	lsc_profiler *p;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	lsc_start_begin(p, "locale");
	lsc_span s;
	lsc_span_begin(p, LSC_PHASE_READ, NULL, 1 << 20, &s);
	lsc_span_end(p, s, NULL);
	lsc_phase_record(p, LSC_PHASE_VERIFY, NULL, 1 << 20, 1234567);
	lsc_start_end(p);
	lsc_profiler_destroy(p);

	cr_assert_geq(check_json_lines(&cap), 3, "%s", cap.buf);
	/* Fractions with a point, in the sentences and the fields alike. */
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed ready;
	cr_assert(lsct_find(&cap, "ready", 0, buf, sizeof(buf), &ready));
	const char *w = lsc__parsed_get(&ready, "wall_s");
	cr_assert_not_null(w);
	cr_assert(strchr(w, '.') && !strchr(w, ','), "wall_s=%s", w);
	cr_assert_null(digit_comma_digit(cap.buf), "%s", cap.buf);

	FILE *f = fopen(path, "r");
	cr_assert_not_null(f);
	static char text[1 << 20];
	size_t n = fread(text, 1, sizeof(text), f);
	fclose(f);
	unlink(path);
	char why[128];
	cr_assert_eq(lsct_json_strict(text, n, why, sizeof(why)), 0, "%s\n%s", why, text);
	cr_assert_null(digit_comma_digit(text), "%s", text);
	/* The verify phase was busy 1234567 ns: 1.235 ms. */
	cr_assert(strstr(text, "\"busy_ms\":1.235") != NULL, "%s", text);
}

Test(line_locale, load_lines_are_c_locale)
{
	lsct_comma_locale();
	const char *file = lsct_make_file("w.bin", 3 << 20, 7);
	lsc_profiler *p = lsct_profiler_fmt(&cap, LSC_FORMAT_JSON, 0);
	struct lsc_extent e = {.path = file, .length = UINT64_MAX};
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, NULL, &e, 1, 0, &a), 0, "%s", cap.buf);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	cr_assert_geq(check_json_lines(&cap), 2, "%s", cap.buf);
	cr_assert_null(digit_comma_digit(cap.buf), "%s", cap.buf);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed l;
	cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof(buf), &l), "%s", cap.buf);
	/* 3 MiB reads "0.00 GiB", never "0,00 GiB"; every rate and time with
	 * a point (digit_comma_digit above). */
	cr_assert(strncmp(l.human, "0.00 GiB in ", 12) == 0, "%s", l.human);
	double w = -1;
	cr_assert_eq(lsc__parsed_f64(&l, "wall_s", &w), 0);
	cr_assert_geq(w, 0.0);
}

/* An error's cause is formatted by the step that failed (here the memory
 * guard's "arena of 0.00 GiB ... MemAvailable 0.06 GiB"), then put in the
 * sentence and the cause field: it keeps the point too, in the line and in
 * the load's result. The fixture small-memavailable gives 64 MiB
 * MemAvailable, so a 4 MiB arena is refused before anything is mapped. */
Test(line_locale, error_causes_keep_the_point)
{
	lsct_comma_locale();
	const char *file = lsct_make_file("g.bin", 4u << 20, 5);
	struct lsc_profiler_options po;
	lsc_profiler_options_init(&po);
	po.sink = lsct_sink;
	po.sink_user = &cap;
	po.mode = LSC_MODE_ON;
	po.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG | LSC_PROFILER_VERBOSE;
	po.proc_root = LSC_TEST_FIXTURES "/small-memavailable/proc";
	lsc_profiler *p = NULL;
	cr_assert_eq(lsc_profiler_create(&po, &p), 0);
	struct lsc_load_result res;
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.result = &res;
	struct lsc_extent e = {.path = file, .length = UINT64_MAX};
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, &o, &e, 1, 0, &a), -ENOMEM, "%s", cap.buf);
	lsc_profiler_destroy(p);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed l;
	cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &l), "%s", cap.buf);
	const char *cause = lsc__parsed_get(&l, "cause");
	cr_assert_not_null(cause, "%s", cap.buf);
	cr_assert(strstr(cause, "arena of 0.00 GiB (4194304 bytes)"), "%s", cause);
	cr_assert(strstr(cause, "MemAvailable 0.06 GiB"), "%s", cause);
	cr_assert_null(digit_comma_digit(l.human), "%s", l.human);
	cr_assert(strstr(res.err_cause, "arena of 0.00 GiB"), "%s", res.err_cause);
}
