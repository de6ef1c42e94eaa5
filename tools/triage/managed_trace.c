/*
 * A stack trace of a managed runtime (the JVM's, .NET's): the exception's
 * message first, then its frames, `at Name.Space.Type.Method(args)` (with
 * `(File.java:123)` or ` in C:\path\File.cs:line 28` after them), then
 * maybe `Caused by: ...` and its frames, `... 12 more`, `--- End of inner
 * exception stack trace ---`. Python's order is the other way round (its
 * frames, then the exception line), which recognise_generic.c reads: here
 * the block's first frame says that the line before it was an exception's
 * message, the start's failure unless a level said it was handled.
 *
 * The line before each frame block is kept (a copy: the reader's buffer
 * is reused), so that the block's first frame can hand it over as the
 * failure's evidence. Pure predicates below, the state in struct
 * lsc_triage.
 */
#include <string.h>

#include "internal.h"

/* `at NAME(`: a frame, where NAME is a qualified method (a dot in it:
 * `A.B..ctor`, `java.lang.ClassLoader.loadLibrary`, `Foo$Bar.<init>`) and
 * the parenthesis closes on the line. Not prose ("at 12:30 (UTC)", "at
 * least (...)": no dotted name right after the word). */
int tr_managed_frame(const char *s, size_t n)
{
	if (n < 8 || s[0] != 'a' || s[1] != 't' || s[2] != ' ')
		return 0;
	const char *p = s + 3, *end = s + n;
	int dot = 0;
	while (p < end && (tr_isword(*p) || strchr("._$<>`+[],", *p))) {
		dot |= *p == '.';
		p++;
	}
	if (!dot || p >= end || *p != '(' || p == s + 3 || s[3] == '.')
		return 0;
	return memchr(p, ')', (size_t)(end - p)) != NULL;
}

/* A line of the block that is no frame: its deeper cause (1), the frames
 * it left out or the end of an inner exception's frames (2); 0 none. */
static int block_line(const char *s, size_t n)
{
	if (n > 10 && !memcmp(s, "Caused by:", 10))
		return 1;
	if (n > 8 && !memcmp(s, "... ", 4) && tr_digit(s[4]) && tr_memmem(s, n, " more"))
		return 2;
	if (n > 11 && !memcmp(s, "--- End of ", 11))
		return 2;
	return 0;
}

int tr_managed_block(struct lsc_triage *t, struct tr_line *l)
{
	if (tr_managed_frame(l->s, l->len)) {
		/* the block's first frame, right under its message (blank
		 * lines, which a double-spaced paste adds, are no lines) */
		if (!t->frame_block && t->frame_prev_len && t->frame_prev_src == l->src) {
			struct tr_line m = *l;
			m.s = t->frame_prev;
			m.len = t->frame_prev_len;
			m.no = t->frame_prev_no;
			m.level = t->frame_prev_level;
			m.quote = NULL;
			m.quote_len = 0;
			t->frame_block = 1 + tr_managed_failed(t, &m);
		}
		if (!t->frame_block)
			t->frame_block = 1;
		tr_managed_frame_seen(t, l);
		t->frame_prev_len = 0;
		return 1;
	}
	if (!t->frame_block)
		return 0;
	int k = block_line(l->s, l->len);
	if (k == 1 && t->frame_block == 2)
		tr_managed_cause(t, l);
	if (k)
		return 1;
	t->frame_block = 0;
	return 0;
}

void tr_managed_keep(struct lsc_triage *t, const struct tr_line *l)
{
	size_t n = l->len < sizeof(t->frame_prev) ? l->len : sizeof(t->frame_prev);
	memcpy(t->frame_prev, l->s, n);
	t->frame_prev_len = n;
	t->frame_prev_no = l->no;
	t->frame_prev_src = l->src;
	t->frame_prev_level = l->level;
}

/* Is a qualified exception type's name at @p (`java.lang.OutOfMemoryError`,
 * `System.DllNotFoundException`): a dotted name that ends in Error or
 * Exception, then a colon or the line's end? */
static int qualified_exception(const char *p, const char *end)
{
	const char *b = p;
	int dot = 0;
	while (p < end && (tr_isword(*p) || *p == '.' || *p == '_' || *p == '$')) {
		dot |= *p == '.';
		p++;
	}
	if (!dot || (p < end && *p != ':'))
		return 0;
	size_t w = (size_t)(p - b);
	return (w > 5 && !memcmp(p - 5, "Error", 5)) || (w > 9 && !memcmp(p - 9, "Exception", 9));
}

/* The runtime's report of an exception nobody caught, which ends the
 * thread (the JVM's `Exception in thread "main" java.lang.X: msg`) or the
 * process (.NET's `Unhandled exception. System.X: msg`, older `Unhandled
 * Exception: System.X: msg`), frames or not after it. Not an application's
 * own words about one ("Unhandled exception in request handler": no
 * exception type named after them). */
int tr_uncaught_exception(const char *s, size_t n)
{
	const char *end = s + n, *k;
	if ((k = tr_memmem(s, n, "Exception in thread \""))) {
		const char *q = memchr(k + 21, '"', (size_t)(end - k - 21));
		return q && qualified_exception(tr_skip_ws(q + 1, end), end);
	}
	if ((k = tr_memmem_ci(s, n, "unhandled exception")) && k + 20 < end && (k[19] == '.' || k[19] == ':'))
		return qualified_exception(tr_skip_ws(k + 20, end), end);
	return 0;
}
