/*
 * Description: the phase line of a phase that failed (issue 14). An
 * allocation refused at its first mmap once printed its asked-for bytes
 * over a wall time of microseconds, "248030.64 GiB/s"; a read that failed
 * half way printed the rate of the whole file. A span inside which its
 * thread printed a failure line now says "failed", gives no rate and, when
 * progress was reported, the bytes really done. The failures come from the
 * real arena through the syscall shim, and from the loader's own error line.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "helpers/capture.h"
#include "helpers/process.h"
#include "helpers/sys_shim.h"
#include "loader/arena.h"
#include "profiler/internal.h"

#define MIB (1ull << 20)

static struct lsct_capture cap;

Test(phase_failed, refused_allocation_has_no_rate)
{
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	cr_assert_not_null(p);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.thp = LSC_THP_4K;
	o.prefault_threads = 1;
	struct lsc__arena a;
	lsct_sys_fail(LSCT_SYS_MMAP, 1, ENOMEM); /* the reservation */
	int rc = lsc__arena_alloc(p, &o, 64 * MIB, &a);
	lsct_sys_restore();
	lsc_profiler_destroy(p);
	cr_assert_eq(rc, -ENOMEM);
	char v[256];
	cr_assert(lsct_field(&cap, "phase", "kind", v, sizeof(v)), "%s", cap.buf);
	cr_assert_str_eq(v, "allocate");
	cr_assert(lsct_field(&cap, "phase", "gibps", v, sizeof(v)));
	cr_assert_str_eq(v, "n/a", "%s", cap.buf);
	cr_assert(lsct_field(&cap, "phase", "us_per_page", v, sizeof(v)));
	cr_assert_str_eq(v, "n/a");
	cr_assert(lsct_field(&cap, "phase", "failed", v, sizeof(v)), "%s", cap.buf);
	cr_assert_str_eq(v, "1");
	cr_assert(lsct_field(&cap, "phase", "bytes", v, sizeof(v)));
	cr_assert_str_eq(v, "67108864");
	cr_assert_eq(lsct_count_with(&cap, "phase", "allocate: failed after "), 1, "%s", cap.buf);
	cr_assert_eq(lsct_count_with(&cap, "phase", "(64.0 MiB asked)"), 1, "%s", cap.buf);
	cr_assert_eq(lsct_count_with(&cap, "phase", "GiB/s"), 0, "%s", cap.buf);
}

/* A read that failed after a quarter: the bytes done, no rate; the error
 * line is the loader's own (lsc__emit of an "error" record). The span that
 * encloses it, opened by the engine, did not fail and keeps its rate. */
Test(phase_failed, failed_read_reports_the_bytes_done)
{
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	lsc_span outer, s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_CUSTOM, "model", 4096, &outer), 0);
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_READ, NULL, 4 * MIB, &s), 0);
	lsc_span_progress(p, s, MIB);
	struct lsc__rec r;
	lsc__rec_init(&r, "error");
	lsc__rec_say(&r, "read failed: test");
	lsc__rec_str(&r, "what", "read");
	lsc__emit(p, &r);
	cr_assert_eq(lsc_span_end(p, s, NULL), 0);
	cr_assert_eq(lsc_span_end(p, outer, NULL), 0);
	lsc_profiler_destroy(p);
	cr_assert_eq(lsct_count_with(&cap, "phase", "read (nested): failed after "), 1, "%s", cap.buf);
	cr_assert_eq(lsct_count_with(&cap, "phase", ", 1.0 MiB of 4.0 MiB done"), 1, "%s", cap.buf);
	char v[64];
	cr_assert(lsct_field(&cap, "phase", "done_bytes", v, sizeof(v)));
	cr_assert_str_eq(v, "1048576");
	cr_assert(lsct_field(&cap, "phase", "gibps", v, sizeof(v)));
	cr_assert_str_eq(v, "n/a");
	/* the second phase line, the engine's span, has a rate */
	cr_assert_eq(lsct_count_with(&cap, "phase", "model: 4.0 KiB in "), 1, "%s", cap.buf);
	cr_assert_eq(lsct_count_with(&cap, "phase", "failed"), 1, "%s", cap.buf);
}

/* A pin segment's note carries `err` when its backend refused it, and the
 * fallback chain may then pin the arena with the next backend: the phase
 * did not fail and keeps its rate. */
Test(phase_failed, a_refused_segment_note_is_not_a_failed_phase)
{
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_PIN, NULL, 4 * MIB, &s), 0);
	struct lsc__rec r;
	lsc__rec_init(&r, "note");
	lsc__rec_say(&r, "pin: segment 1/1 with galloc: 0 retries, 1 failures: refused");
	lsc__rec_str(&r, "topic", "pin");
	lsc__rec_str(&r, "err", "ENOMEM");
	lsc__emit(p, &r);
	cr_assert_eq(lsc_span_end(p, s, NULL), 0);
	lsc_profiler_destroy(p);
	char v[64];
	cr_assert_not(lsct_field(&cap, "phase", "failed", v, sizeof(v)), "%s", cap.buf);
	cr_assert_eq(lsct_count_with(&cap, "phase", "pin: 4.0 MiB in "), 1, "%s", cap.buf);
	cr_assert_eq(lsct_count_with(&cap, "phase", "GiB/s"), 1, "%s", cap.buf);
}
