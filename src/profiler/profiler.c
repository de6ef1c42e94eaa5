/*
 * The profiler handle: creation, the LOADSCOPE environment switch, sinks and
 * the emission of every line.
 *
 * A line reaches the sink in one call, complete and newline-terminated, and
 * a FILE* sink is flushed at once. Seed 001's logs ended at the line before
 * the arena note because the engine's output was buffered when the start was
 * stopped: a crawling start must leave its last line in the log.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "format/c_locale.h"
#include "host/procfs.h"
#include "profiler/profiler_impl.h"

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t (*lsc__clock)(void) = monotonic_ns;

uint64_t lsc__now_ns(void)
{
	return lsc__clock ? lsc__clock() : monotonic_ns();
}

pid_t lsc__tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void copy_str(char *dst, size_t cap, const char *src, const char *dflt)
{
	snprintf(dst, cap, "%s", src ? src : dflt);
}

LSC_API void lsc_profiler_options_init(struct lsc_profiler_options *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof(*o));
	o->format = LSC_FORMAT_HUMAN;
	o->mode = LSC_MODE_DEFAULT;
	o->watchdog_after_s = 5.0;
	o->watchdog_every_s = 5.0;
}

/* Eight hex digits. Async-signal-safe (fork.c calls it in a forked child):
 * no stdio. */
void lsc__run_id(char run[9])
{
	static const char hex[] = "0123456789abcdef";
	uint32_t r;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
		r = (uint32_t)(lsc__now_ns() ^ ((uint64_t)getpid() << 16));
	for (int i = 7; i >= 0; i--, r >>= 4)
		run[i] = hex[r & 15u];
	run[8] = '\0';
}

LSC_API int lsc_profiler_create(const struct lsc_profiler_options *opt, lsc_profiler **out)
{
	if (!out)
		return -EINVAL;
	*out = NULL;
	struct lsc_profiler_options d;
	if (!opt) {
		lsc_profiler_options_init(&d);
		opt = &d;
	}
	/* Enums are ints in the struct: mode 9 was taken as "on". */
	if ((unsigned)opt->format > LSC_FORMAT_JSON || (unsigned)opt->mode > LSC_MODE_OFF)
		return -EINVAL;
	if (opt->prefix && strlen(opt->prefix) >= sizeof(((lsc_profiler *)0)->prefix))
		return -EINVAL;
	/* A newline in the prefix made one sink call carry two lines (and the
	 * second a line of no known shape): no control character at all. */
	for (const char *c = opt->prefix; c && *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return -EINVAL;
	/* A cut path would read other files or write the trace elsewhere. */
	if ((opt->proc_root && strlen(opt->proc_root) >= sizeof(((lsc_profiler *)0)->proc_root)) ||
	    (opt->sys_root && strlen(opt->sys_root) >= sizeof(((lsc_profiler *)0)->sys_root)) ||
	    (opt->trace_path && strlen(opt->trace_path) >= sizeof(((lsc_profiler *)0)->trace_path)))
		return -ENAMETOOLONG;
	/* The thresholds become nanosecond integers: keep them finite. */
	if (!(opt->watchdog_after_s >= 0.01 && opt->watchdog_after_s <= 86400) ||
	    !(opt->watchdog_every_s >= 0.01 && opt->watchdog_every_s <= 86400))
		return -EINVAL;

	lsc_profiler *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->on = opt->mode != LSC_MODE_OFF;
	p->format = opt->format;
	p->stream = opt->stream ? opt->stream : stderr;
	p->sink = opt->sink;
	p->sink_user = opt->sink_user;
	p->sink_level = opt->sink_level;
	p->flags = opt->flags;
	p->verbose = !!(opt->flags & LSC_PROFILER_VERBOSE);
	copy_str(p->prefix, sizeof(p->prefix), opt->prefix, "");
	copy_str(p->proc_root, sizeof(p->proc_root), opt->proc_root, "/proc");
	copy_str(p->sys_root, sizeof(p->sys_root), opt->sys_root, "/sys");
	copy_str(p->trace_path, sizeof(p->trace_path), opt->trace_path, "");
	p->wd_after_s = opt->watchdog_after_s;
	p->wd_every_s = opt->watchdog_every_s;
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->sink_lock, NULL);
	pthread_cond_init(&p->sink_cond, NULL);
	pthread_cond_init(&p->wd_cond, NULL);
	lsc__run_id(p->run);

	const char *bad_env = NULL;
	int bad_trace = 0;
	if (!(opt->flags & LSC_PROFILER_IGNORE_ENV)) {
		/* Read once, here: an engine's environment does not change under it,
		 * and getenv is not safe against a concurrent setenv later. */
		const char *e = getenv("LOADSCOPE");
		if (e && *e) {
			/* Any case: LOADSCOPE=OFF is what people type. */
			if (!lsc__ascii_casecmp(e, "off") || !strcmp(e, "0") || !lsc__ascii_casecmp(e, "no")) {
				p->on = 0;
			} else if (!lsc__ascii_casecmp(e, "on") || !strcmp(e, "1") || !lsc__ascii_casecmp(e, "yes")) {
				p->on = 1;
			} else if (!lsc__ascii_casecmp(e, "json")) {
				p->on = 1;
				p->format = LSC_FORMAT_JSON;
			} else if (!strcasecmp(e, "verbose")) {
				/* every field and line; JSON (the option) has them anyway */
				p->on = 1;
				p->verbose = 1;
			} else {
				bad_env = e;
			}
		}
		const char *t = getenv("LOADSCOPE_TRACE");
		if (!opt->trace_path && t && *t) {
			if (strlen(t) < sizeof(p->trace_path))
				copy_str(p->trace_path, sizeof(p->trace_path), t, "");
			else
				bad_trace = 1;
		}
	}
	if (p->on && p->trace_path[0]) {
		if (lsc__trace_create(p) < 0) {
			pthread_cond_destroy(&p->wd_cond);
			pthread_cond_destroy(&p->sink_cond);
			pthread_mutex_destroy(&p->sink_lock);
			pthread_mutex_destroy(&p->lock);
			free(p);
			return -ENOMEM;
		}
	}
	if (p->on)
		lsc__procfd_open(p);
	if (bad_env) {
		char msg[160];
		snprintf(msg, sizeof(msg), "LOADSCOPE=%.40s is not off, on, json, verbose, 0, 1, no or yes; ignored", bad_env);
		lsc__usage(p, LSC__USAGE_ENV, msg);
	}
	if (bad_trace) {
		char msg[96];
		snprintf(msg, sizeof(msg), "LOADSCOPE_TRACE is longer than %zu bytes; no trace file",
			 sizeof(p->trace_path) - 1);
		lsc__usage(p, LSC__USAGE_ENV_TRACE, msg);
	}
	lsc__fork_track(p);
	*out = p;
	return 0;
}

LSC_API void lsc_profiler_destroy(lsc_profiler *p)
{
	if (!p)
		return;
	/* A sink call of this thread that never returned would keep the
	 * watchdog, whose line waits for the turn, from being joined. */
	lsc__sink_reclaim(p);
	lsc__watchdog_stop(p);
	if (p->on) {
		unsigned open = 0;
		pthread_mutex_lock(&p->lock);
		for (unsigned i = 0; i < LSC__SPANS_MAX; i++)
			open += p->spans[i].id != 0;
		pthread_mutex_unlock(&p->lock);
		if (open) {
			char msg[96];
			snprintf(msg, sizeof(msg), "%u span(s) still open when the profiler was destroyed", open);
			lsc__usage(p, LSC__USAGE_OPEN_AT_END, msg);
		}
	}
	/* Off the fork list before anything is freed: a fork in another thread
	 * from here on leaves this profiler alone in the child, where the
	 * child handler would otherwise touch a trace being freed. */
	lsc__fork_untrack(p);
	lsc__trace_destroy(p);
	lsc__procfd_close(p);
	pthread_cond_destroy(&p->wd_cond);
	pthread_cond_destroy(&p->sink_cond);
	pthread_mutex_destroy(&p->sink_lock);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

LSC_API int lsc_profiler_enabled(const lsc_profiler *p)
{
	return p && p->on;
}

const char *lsc__proc_root(const lsc_profiler *p)
{
	return p ? p->proc_root : "/proc";
}

const char *lsc__sys_root(const lsc_profiler *p)
{
	return p ? p->sys_root : "/sys";
}

/* A line that says the phase failed: the loader's `error` line, or the
 * arena's own failure line (an `arena` line with an `err` field). Not any
 * line with `err`: a pin segment's note carries one too when its backend
 * refused it, and the chain may still pin the arena with the next backend. */
static int says_failure(const struct lsc__rec *r)
{
	if (!strcmp(r->event, LSC__EV(ERROR)))
		return 1;
	if (strcmp(r->event, LSC__EV(ARENA)))
		return 0;
	for (unsigned i = 0; i < r->n; i++)
		if (!strcmp(r->f[i].key, LSC__KEY(ERR)))
			return 1;
	return 0;
}

LSC_API const char *lsc_level_name(enum lsc_level level)
{
	static const char *const names[] = {"info", "note", "warn", "error"};
	return (unsigned)level < sizeof(names) / sizeof(names[0]) ? names[level] : "?";
}

/* The level of a record, by its event (profiler.h has the table). */
static enum lsc_level level_of(const struct lsc__rec *r)
{
	const char *e = r->event;
	if (says_failure(r))
		return LSC_LEVEL_ERROR;
	if (!strcmp(e, LSC__EV(FALLBACK)) || !strcmp(e, LSC__EV(USAGE)) || !strcmp(e, LSC__EV(WARN)) ||
	    !strcmp(e, LSC__EV(STILL)))
		return LSC_LEVEL_WARN;
	if (!strcmp(e, LSC__EV(NOTE)))
		return LSC_LEVEL_NOTE;
	if (!strcmp(e, LSC__EV(PHASE)))
		for (unsigned i = 0; i < r->n; i++)
			if (!strcmp(r->f[i].key, "failed"))
				return LSC_LEVEL_WARN;
	return LSC_LEVEL_INFO;
}

int lsc__emit(lsc_profiler *p, struct lsc__rec *r)
{
	if (!p || !p->on || !r)
		return 0;
	if (says_failure(r))
		lsc__span_mark_failed(p);
	char line[LSC__LINE_MAX];
	/* The common fields go first in the field list so that a line cut
	 * short by a paste still names its run. */
	struct lsc__rec *rr = r;
	uint64_t now = lsc__now_ns();
	uint64_t t0 = __atomic_load_n(&p->start_ns, __ATOMIC_RELAXED);
	double t = t0 ? (double)(now - t0) / 1e9 : 0.0;
	if (rr->n + 2 <= LSC__FIELDS_MAX) {
		memmove(&rr->f[2], &rr->f[0], rr->n * sizeof(rr->f[0]));
		rr->n += 2;
		rr->f[0].key = "run";
		rr->f[0].type = LSC__V_STR;
		rr->f[0].detail = rr->f[1].detail = 0;
		rr->f[0].v.s = p->run; /* lives as long as the profiler */
		rr->f[1].key = "t_s";
		rr->f[1].type = LSC__V_F64;
		rr->f[1].prec = 3;
		rr->f[1].v.d = t;
	}
	/* The trace first: a sink that blocks must not keep the line's
	 * instant from the file. */
	if (p->trace)
		lsc__trace_line(p, rr);
	/* A brief human line leaves its detail out; a detail line (a nested
	 * span, an overlapped phase, the pin note: figures another line
	 * already gives) is for verbose and JSON readers only. */
	int brief = p->format == LSC_FORMAT_HUMAN && !p->verbose;
	if (brief && rr->detail_line)
		return 0;
	rr->brief = (unsigned char)brief;
	size_t len = lsc__rec_render(rr, p->format, p->prefix, line, sizeof(line));
	lsc__sink_line(p, level_of(rr), rr->event, line, len);
	return 0;
}

/* The misuses whose call does nothing; the others are reported and the
 * call goes on (a start ends, a profiler is destroyed, a bad variable is
 * not read), so their line must not say the call was ignored. */
static const unsigned ignored_kinds = 1u << LSC__USAGE_DOUBLE_END | 1u << LSC__USAGE_OUT_OF_ORDER |
				      1u << LSC__USAGE_FOREIGN_THREAD | 1u << LSC__USAGE_START_TWICE |
				      1u << LSC__USAGE_NO_START | 1u << LSC__USAGE_TOO_MANY;

void lsc__usage(lsc_profiler *p, enum lsc__usage kind, const char *what)
{
	if (!p || !p->on)
		return;
	pthread_mutex_lock(&p->lock);
	p->usage_count++;
	int seen = (p->usage_seen >> kind) & 1u;
	p->usage_seen |= 1u << kind;
	pthread_mutex_unlock(&p->lock);
	if (seen)
		return;
	struct lsc__rec r;
	lsc__rec_init(&r, LSC__EV(USAGE));
	lsc__rec_say(&r, "API misuse: %s (reported once%s)", what,
		     (ignored_kinds >> kind) & 1u ? "; the call was ignored" : "");
	lsc__rec_detail(&r); /* the sentence has it */
	lsc__rec_str(&r, LSC__KEY(WHAT), what);
	lsc__emit(p, &r);
}

void lsc__usage_env(lsc_profiler *p, enum lsc__env_var var, const char *what)
{
	if ((unsigned)var < LSC__ENV_LOADER_MAX)
		lsc__usage(p, (enum lsc__usage)(LSC__USAGE_ENV_LOADER + (unsigned)var), what);
}

/* Thread CPU and process faults: two getrusage calls, no /proc read. */
void lsc__sample(const lsc_profiler *p, struct lsc__sample *s)
{
	struct rusage th, self;
	s->ns = lsc__now_ns();
	if (getrusage(RUSAGE_THREAD, &th) == 0) {
		s->user_ns = (uint64_t)th.ru_utime.tv_sec * 1000000000ull + (uint64_t)th.ru_utime.tv_usec * 1000ull;
		s->sys_ns = (uint64_t)th.ru_stime.tv_sec * 1000000000ull + (uint64_t)th.ru_stime.tv_usec * 1000ull;
	} else {
		s->user_ns = s->sys_ns = 0;
	}
	if (getrusage(RUSAGE_SELF, &self) == 0) {
		s->minflt = self.ru_minflt;
		s->majflt = self.ru_majflt;
	} else {
		s->minflt = s->majflt = -1;
	}
	if (lsc__procfd_vmstat(p, &s->vm) < 0)
		s->vm.valid = 0;
	struct lsc__psi psi;
	lsc__procfd_psi(p, &psi);
	s->psi_some_us = psi.some_us;
	s->psi_full_us = psi.full_us;
}

LSC_API int lsc_note(lsc_profiler *p, const char *topic, const char *text)
{
	if (!p || !p->on)
		return 0;
	if (!topic || !text)
		return -EINVAL;
	struct lsc__rec r;
	lsc__rec_init(&r, LSC__EV(NOTE));
	lsc__rec_say(&r, "%s: %s", topic, text);
	lsc__rec_str(&r, LSC__KEY(TOPIC), topic);
	lsc__rec_detail(&r); /* the sentence is the text: said once in a brief line */
	lsc__rec_str(&r, LSC__KEY(TEXT), text);
	return lsc__emit(p, &r);
}

LSC_API int lsc_profiler_system(const lsc_profiler *p, struct lsc_system *out)
{
	return lsc_system_read(lsc__proc_root(p), lsc__sys_root(p), out);
}

/* The host readers take roots, not a profiler: this is where a profiler's
 * roots meet them (src/host/region.c). */
LSC_API int lsc_region_read(const lsc_profiler *p, const void *addr, size_t len,
			    struct lsc_region_info *out)
{
	return lsc__region_read_root(lsc__proc_root(p), addr, len, out);
}
