/*
 * Description: marked lines of every length around the end of the trace
 * writer's event buffer (src/profiler/trace.c, 4096 bytes) keep the trace
 * file valid. A `fallback` line with two string fields of control
 * characters (six bytes each in JSON), the first behind 0 to 5 plain bytes
 * and the second grown a character at a time, is emitted 606 times: the
 * event's text crosses the buffer's end at every offset (some events whole,
 * the later ones cut at a whole field with "trunc":1). The file then parses as the strict
 * trace reader wants (tests/helpers/trace_json.c: JSON, every event whole)
 * and holds one instant per line.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#include "format/vocab.h"
#include "helpers/capture.h"
#include "helpers/load_helpers.h"
#include "helpers/trace_json.h"
#include "profiler/internal.h"

static struct lsct_capture cap;
static struct lsct_trace tr;

Test(trace_long_lines, every_length_around_the_event_buffer)
{
	char path[600], why[256];
	snprintf(path, sizeof(path), "%s/long.json", lsct_tmpdir());
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
	o.trace_path = path;
	lsc_profiler *p;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	cr_assert_eq(lsc_start_begin(p, "long"), 0);
	/* Control characters are six bytes each in JSON (\u0001): 400 of them
	 * and then 200 to 300 more, behind 0 to 5 plain bytes, cross the
	 * buffer's end at every offset. */
	static char a[512], b[512];
	unsigned n = 0;
	for (unsigned k = 0; k < 6; k++) {
		memset(a, 'a', k);
		memset(a + k, 1, 400);
		a[k + 400] = 0;
		for (unsigned len = 200; len <= 300; len++) {
			memset(b, 1, len);
			b[len] = 0;
			struct lsc__rec r;
			lsc__rec_init(&r, LSC__EV(FALLBACK));
			lsc__rec_say(&r, "a long line");
			lsc__rec_str(&r, "what", "test");
			lsc__rec_str(&r, "first", a);
			lsc__rec_str(&r, "second", b);
			lsc__rec_u64(&r, "len", len);
			cr_assert_eq(r.truncated, 0);
			lsc__emit(p, &r);
			n++;
			lsct_capture_reset(&cap);
		}
	}
	cr_assert_eq(lsc_start_end(p), 0);
	lsc_profiler_destroy(p);
	cr_assert_eq(lsct_trace_read(path, &tr, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(lsct_trace_count(&tr, 'i', "fallback"), n, "%u instants of %u lines",
		     lsct_trace_count(&tr, 'i', "fallback"), n);
	/* The range holds both: whole events, and cut ones. */
	uint64_t size;
	char *text = (char *)lsct_read_file(path, &size);
	unsigned cut = 0;
	static const char mark[] = "\"trunc\":1";
	for (const char *q = text, *end = text + size;
	     (q = memmem(q, (size_t)(end - q), mark, sizeof(mark) - 1)); q++)
		cut++;
	cr_assert(cut > 0 && cut < n, "%u of %u events cut", cut, n);
	free(text);
	unlink(path);
}
