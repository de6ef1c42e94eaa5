/*
 * Description: the trace checker (tests/helpers/trace_json.h) that every
 * trace test relies on refuses what a strict consumer refuses: JSON that
 * RFC 8259 does not allow, an event without one of name, cat, ph, ts, pid
 * or tid, an X event without dur, an E event that closes no B of its
 * thread, a cut last event, a trailing comma, and overlapping slices of
 * one thread; and it accepts the array form with its closing bracket
 * missing, and B events left open. Each input is written here by hand,
 * but for the sample traces in docs/, which it reads too.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "helpers/trace_json.h"

static struct lsct_trace tr;
static char why[256];

static int parse(const char *s)
{
	return lsct_trace_parse(s, strlen(s), &tr, why, sizeof(why));
}

#define EV(extra) "{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"i\",\"ts\":1.5,\"pid\":1,\"tid\":2" extra "}"

Test(trace_checker, accepts_the_array_form_closed_or_not)
{
	cr_assert_eq(parse("[\n" EV("") ",\n" EV(",\"args\":{\"name\":\"x\\u00e9\"}") "\n]\n"), 0, "%s", why);
	cr_assert(tr.closed);
	cr_assert_eq(tr.n, 2);
	cr_assert_str_eq(tr.ev[1].arg_name, "x?");
	cr_assert_eq(parse("[\n" EV("") ",\n" EV("")), 0, "%s", why);
	cr_assert_not(tr.closed);
	cr_assert_eq(tr.n, 2);
	cr_assert_eq(parse("[\n" EV(",\"s\":\"t\"") "\n"), 0, "%s", why);
	cr_assert_eq(parse("[{\"name\":\"x\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":0,\"dur\":2e3,\"pid\":1,\"tid\":1}]"), 0,
		     "%s", why);
	/* B and E: matched, nested, and one left open */
	cr_assert_eq(parse("[{\"name\":\"o\",\"cat\":\"c\",\"ph\":\"B\",\"ts\":0,\"pid\":1,\"tid\":1},"
			   "{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"B\",\"ts\":1,\"pid\":1,\"tid\":1},"
			   "{\"name\":\"b\",\"cat\":\"c\",\"ph\":\"B\",\"ts\":1,\"pid\":1,\"tid\":2},"
			   "{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"E\",\"ts\":3,\"pid\":1,\"tid\":1},"
			   "{\"name\":\"b\",\"cat\":\"c\",\"ph\":\"E\",\"ts\":9,\"pid\":1,\"tid\":2}"),
		     0, "%s", why);
	cr_assert_eq(tr.n_open, 1);
	cr_assert_eq(tr.ev[1].dur, 2);
	cr_assert_eq(tr.ev[0].dur, -1);
	cr_assert_eq(parse("[{\"name\":\"\xc3\xa9\",\"cat\":\"c\",\"ph\":\"i\",\"ts\":0,\"pid\":1,\"tid\":1}]"), 0, "%s",
		     why);
}

Test(trace_checker, refuses_what_a_strict_consumer_refuses)
{
	static const char *const bad[] = {
		"",
		"{\"traceEvents\":[]}",
		"[\n" EV("") ",",
		"[\n" EV("") ",\n",
		"[\n" EV("") ",\n{\"name\":\"a\",\"cat\":\"c\"",
		"[\n" EV("") "]x",
		"[\n" EV("") ",]",
		"[{\"name\":\"a\",\"ph\":\"i\",\"ts\":1,\"pid\":1,\"tid\":2}]",
		"[{\"name\":\"a\",\"cat\":\"\",\"ph\":\"i\",\"ts\":1,\"pid\":1,\"tid\":2}]",
		"[{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"i\",\"pid\":1,\"tid\":2}]",
		"[{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"i\",\"ts\":1,\"tid\":2}]",
		"[{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"i\",\"ts\":1,\"pid\":1}]",
		"[{\"cat\":\"c\",\"ph\":\"i\",\"ts\":1,\"pid\":1,\"tid\":2}]",
		"[{\"name\":\"a\",\"cat\":\"c\",\"ts\":1,\"pid\":1,\"tid\":2}]",
		"[{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":1,\"pid\":1,\"tid\":2}]",
		"[{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"i\",\"ts\":\"1\",\"pid\":1,\"tid\":2}]",
		"[" EV(",\"ts\":2") "]",
		"[" EV(",\"x\":01") "]",
		"[" EV(",\"x\":1.") "]",
		"[" EV(",\"x\":.5") "]",
		"[" EV(",\"x\":+1") "]",
		"[" EV(",\"x\":0x10") "]",
		"[" EV(",\"x\":NaN") "]",
		"[" EV(",\"x\":nul") "]",
		"[" EV(",\"x\":\"\\x\"") "]",
		"[" EV(",\"x\":\"\\u12\"") "]",
		"[" EV(",\"x\":\"\\ud800\"") "]",
		"[" EV(",\"x\":\"\t\"") "]",
		"[" EV(",\"x\":\"\xff\"") "]",
		"[" EV(",\"x\":\"\xc0\xaf\"") "]",
		"[" EV(",\"x\":\"\xed\xa0\x80\"") "]",
		"[" EV(",\"x\":[1,]") "]",
		"[" EV(",\"x\":{\"a\":1,}") "]",
		"[" EV(",}") "]",
		"[1]",
		"[{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"E\",\"ts\":0,\"pid\":1,\"tid\":1}]",
		"[{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"B\",\"ts\":0,\"pid\":1,\"tid\":1},"
		"{\"name\":\"b\",\"cat\":\"c\",\"ph\":\"E\",\"ts\":1,\"pid\":1,\"tid\":1}]",
		"[{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"B\",\"ts\":0,\"pid\":1,\"tid\":1},"
		"{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"E\",\"ts\":1,\"pid\":1,\"tid\":2}]",
		"[{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"B\",\"ts\":5,\"pid\":1,\"tid\":1},"
		"{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"E\",\"ts\":1,\"pid\":1,\"tid\":1}]",
		"[{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"B\",\"ts\":0,\"pid\":1,\"tid\":1},"
		"{\"name\":\"b\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":5,\"dur\":10,\"pid\":1,\"tid\":1},"
		"{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"E\",\"ts\":10,\"pid\":1,\"tid\":1}]",
		"[{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":0,\"dur\":10,\"pid\":1,\"tid\":1},"
		"{\"name\":\"b\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":5,\"dur\":10,\"pid\":1,\"tid\":1}]",
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(parse(bad[i]), -1, "accepted #%u: %s", i, bad[i]);
	/* the same two X events on two threads are fine */
	cr_assert_eq(parse("[{\"name\":\"a\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":0,\"dur\":10,\"pid\":1,\"tid\":1},"
			   "{\"name\":\"b\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":5,\"dur\":10,\"pid\":1,\"tid\":2}]"),
		     0, "%s", why);
}

/* The sample docs/trace.md shows is a trace the checker reads, closed. */
Test(trace_checker, reads_the_sample_in_docs)
{
	cr_assert_eq(lsct_trace_read(LSC_TEST_FIXTURES "/../../docs/trace-sample.json", &tr, why, sizeof(why)), 0,
		     "%s", why);
	cr_assert(tr.closed);
	cr_assert_eq(tr.n_open, 0);
	cr_assert_eq(lsct_trace_count(&tr, 'i', "fallback"), 1);
	cr_assert_eq(lsct_trace_count(&tr, 'X', "verify"), 1);
}

/* The killed sample: no closing bracket, the allocate span and the
 * prefault in it, where it was killed, begun and never ended. */
Test(trace_checker, reads_the_killed_sample_in_docs)
{
	cr_assert_eq(lsct_trace_read(LSC_TEST_FIXTURES "/../../docs/trace-sample-killed.json", &tr, why,
				     sizeof(why)),
		     0, "%s", why);
	cr_assert_not(tr.closed);
	cr_assert_eq(tr.n_open, 2);
	static const char *const open_spans[] = {"allocate", "prefault"};
	for (unsigned i = 0; i < 2; i++) {
		const struct lsct_trace_ev *b = lsct_trace_find(&tr, 'B', open_spans[i], 0);
		cr_assert_not_null(b, "%s", open_spans[i]);
		cr_assert_eq(b->dur, -1, "%s", open_spans[i]);
	}
}
