/*
 * A line into the sink: the caller's callback, or the FILE* stream.
 *
 * One line at a time (profiler.h promises calls that never overlap), but
 * with no library lock held across the call. A sink that throws or
 * longjmps out would have left a held mutex behind, and the profiler's
 * next line, on any thread, waited forever (issue 22). So the sink is a
 * turn: a short lock hands it out and takes it back, and the thread that
 * holds it is recorded with the stack address of its call. A thread that
 * finds the turn held by itself takes it back: the earlier call left
 * without returning (a longjmp or an exception through it; certain when
 * the new call is not deeper on the stack), or the sink called back into
 * the profiler, which after NEST_MAX lines in a row is refused (the line
 * dropped) so that a sink that logs through the profiler does not recurse
 * without end. Either is one usage line. A thread waiting for a turn that
 * another thread abandoned waits until that thread calls the profiler
 * again or destroys it.
 *
 * The stream is written with SIGPIPE and SIGXFSZ held off the writing
 * thread (sys/guard.h): an engine whose stderr goes to a pipe whose reader
 * went away (a restarted log shipper, `| head`) gets EPIPE, not death. A
 * failed write (but EAGAIN from a full non-blocking pipe, which loses that
 * line only) stops the stream for good (retrying would fail each line
 * again): the reason is a `fallback what=lines` record in
 * the trace file, where there is one, since the stream cannot carry it.
 * The stream's error flag is left set for the host to see (the CLI exits
 * 4 on it).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "format/errname.h"
#include "profiler/profiler_impl.h"
#include "sys/guard.h"

/* The sink call this thread is inside, innermost: which profiler, the
 * stack address of the call, and how many times in a row this thread took
 * its own turn back from a deeper frame. */
struct in_sink {
	const lsc_profiler *p;
	const char *frame;
	unsigned nest;
};
static __thread struct in_sink in_sink;

/* Beyond this many take-overs from deeper frames without a sink call that
 * returned, it is a sink calling back into the profiler, line after line. */
#define NEST_MAX 4

enum { TURN_TAKEN, TURN_REFUSED, TURN_TAKEN_BACK };

/* Take the turn. A turn this thread holds already is either abandoned (the
 * call left without returning: certain when this call is not deeper on the
 * stack than it) or this is a sink that called back into the profiler; the
 * two look alike from a deeper frame, so a few are let through and then
 * refused. */
static int take_turn(lsc_profiler *p, const char *frame)
{
	pid_t self = lsc__tid();
	int how = TURN_TAKEN;
	pthread_mutex_lock(&p->sink_lock);
	while (p->sink_busy) {
		if (p->sink_owner == self) {
			int deeper = in_sink.p == p && in_sink.frame && frame < in_sink.frame;
			if (!deeper) {
				in_sink.nest = 0;
			} else if (++in_sink.nest > NEST_MAX) {
				in_sink.nest = NEST_MAX;
				p->sink_reentered = 1;
				pthread_mutex_unlock(&p->sink_lock);
				return TURN_REFUSED;
			}
			how = TURN_TAKEN_BACK;
			break;
		}
		pthread_cond_wait(&p->sink_cond, &p->sink_lock);
	}
	p->sink_busy = 1;
	p->sink_owner = self;
	pthread_mutex_unlock(&p->sink_lock);
	return how;
}

static int give_turn(lsc_profiler *p)
{
	pthread_mutex_lock(&p->sink_lock);
	p->sink_busy = 0;
	p->sink_owner = 0;
	int reentered = p->sink_reentered;
	p->sink_reentered = 0;
	pthread_cond_broadcast(&p->sink_cond);
	pthread_mutex_unlock(&p->sink_lock);
	return reentered;
}

void lsc__sink_reclaim(lsc_profiler *p)
{
	pthread_mutex_lock(&p->sink_lock);
	if (p->sink_busy && p->sink_owner == lsc__tid()) {
		p->sink_busy = 0;
		p->sink_owner = 0;
		pthread_cond_broadcast(&p->sink_cond);
	}
	pthread_mutex_unlock(&p->sink_lock);
}

void lsc__sink_fork_child(lsc_profiler *p)
{
	pthread_mutex_init(&p->sink_lock, NULL);
	pthread_cond_init(&p->sink_cond, NULL);
	p->sink_busy = 0;
	p->sink_owner = 0;
	p->sink_reentered = 0;
}

/* The stream failed with @err: no more lines to it; the trace says why. */
static void stream_failed(lsc_profiler *p, int err)
{
	p->stream_err = err ? err : EIO;
	if (!p->trace)
		return;
	char why[160];
	snprintf(why, sizeof(why), "writing a line to the stream failed: %s (%s); no more lines to it",
		 lsc__errname(-p->stream_err),
		 p->stream_err == EPIPE	  ? "the reader went away"
		 : p->stream_err == EFBIG ? "the file size limit (RLIMIT_FSIZE)"
					  : strerror(p->stream_err));
	struct lsc__rec r;
	lsc__rec_init(&r, LSC__EV(FALLBACK));
	lsc__rec_say(&r, "lines: wanted stream, took none: %s", why);
	lsc__rec_str(&r, LSC__KEY(WHAT), "lines");
	lsc__rec_str(&r, LSC__KEY(WANTED), "stream");
	lsc__rec_str(&r, LSC__KEY(TOOK), "none");
	lsc__rec_str(&r, LSC__KEY(REASON), why);
	lsc__trace_line(p, &r);
}

static void write_stream(lsc_profiler *p, const char *line, size_t len)
{
	if (p->stream_err)
		return;
	struct lsc__nosig g;
	lsc__nosig_enter(&g);
	errno = 0;
	int bad = fwrite(line, 1, len, p->stream) != len;
	bad |= fflush(p->stream) != 0;
	int err = errno;
	lsc__nosig_leave(&g);
	/* A full non-blocking pipe loses this line only: the next may fit. */
	if (bad && err != EAGAIN && err != EINTR)
		stream_failed(p, err);
}

void lsc__sink_line(lsc_profiler *p, enum lsc_level level, const char *event, const char *line, size_t len)
{
	char frame = 0; /* only its address is used: where this call sits on the stack */
	int how = take_turn(p, &frame);
	if (how == TURN_REFUSED)
		return;
	struct in_sink outer = in_sink;
	in_sink.p = p;
	in_sink.frame = &frame;
	if (p->sink_level)
		p->sink_level(p->sink_user, level, event, line, len);
	else if (p->sink)
		p->sink(p->sink_user, line, len);
	else
		write_stream(p, line, len);
	in_sink = outer;
	in_sink.nest = 0;
	int reentered = give_turn(p);
	if (how == TURN_TAKEN_BACK || reentered)
		lsc__usage(p, LSC__USAGE_SINK_RETURN,
			   "a sink call did not return (a longjmp or an exception out of it) or called back "
			   "into the profiler; the turn was taken back");
}
