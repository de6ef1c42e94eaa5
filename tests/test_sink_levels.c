/*
 * Description: the sink that knows levels (lsc_profiler_options.sink_level).
 * Each line comes with its event name and the level profiler.h's table
 * gives it: start, system, phase and ready info, note note, usage and
 * fallback warn, error error, a failed phase warn; the line is byte for
 * byte the one the plain sink gets, in both formats; and the level sink
 * takes the place of .sink when both are set.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include <stdlib.h>

#include <loadscope/loadscope.h>

#include "helpers/load_helpers.h"

struct got {
	unsigned n;
	enum lsc_level level[32];
	char event[32][16];
	char line[32][4096];
	unsigned plain;
};

static void level_sink(void *user, enum lsc_level level, const char *event, const char *line,
		       size_t len)
{
	struct got *g = user;
	if (g->n >= 32)
		return;
	g->level[g->n] = level;
	snprintf(g->event[g->n], sizeof(g->event[0]), "%s", event);
	snprintf(g->line[g->n], sizeof(g->line[0]), "%.*s", (int)len, line);
	g->n++;
}

static void plain_sink(void *user, const char *line, size_t len)
{
	struct got *g = user;
	(void)line;
	(void)len;
	g->plain++;
}

static lsc_profiler *make(struct got *g, enum lsc_format fmt, int with_plain)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink_level = level_sink;
	o.sink = with_plain ? plain_sink : NULL;
	o.sink_user = g;
	o.format = fmt;
	o.mode = LSC_MODE_ON;
	o.prefix = "eng: ";
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
	lsc_profiler *p = NULL;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	return p;
}

static int find(const struct got *g, const char *event, unsigned k)
{
	for (unsigned i = 0; i < g->n; i++)
		if (!strcmp(g->event[i], event) && k-- == 0)
			return (int)i;
	return -1;
}

Test(sink_levels, level_names)
{
	cr_assert_str_eq(lsc_level_name(LSC_LEVEL_INFO), "info");
	cr_assert_str_eq(lsc_level_name(LSC_LEVEL_NOTE), "note");
	cr_assert_str_eq(lsc_level_name(LSC_LEVEL_WARN), "warn");
	cr_assert_str_eq(lsc_level_name(LSC_LEVEL_ERROR), "error");
	cr_assert_str_eq(lsc_level_name((enum lsc_level)4), "?");
}

static void run(enum lsc_format fmt)
{
	struct got g = {0};
	lsc_profiler *p = make(&g, fmt, 1);
	cr_assert_eq(lsc_start_begin(p, "levels"), 0);
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_CUSTOM, "warmup", 0, &s), 0);
	cr_assert_eq(lsc_span_end(p, s, NULL), 0);
	cr_assert_eq(lsc_note(p, "engine", "chose 4 threads"), 0);
	cr_assert_eq(lsc_span_end(p, s, NULL), -EINVAL); /* a usage line */
	/* A failed load: one error line (the missing file fails before any phase). */
	struct lsc_extent e = {.path = "/nonexistent/loadscope-levels", .length = UINT64_MAX};
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, NULL, &e, 1, 0, &a), -ENOENT);
	cr_assert_eq(lsc_start_end(p), 0);
	lsc_profiler_destroy(p);

	cr_assert_eq(g.plain, 0, "the plain sink was called with a level sink set");
	struct {
		const char *event;
		enum lsc_level level;
	} want[] = {
		{"start", LSC_LEVEL_INFO}, {"system", LSC_LEVEL_INFO}, {"phase", LSC_LEVEL_INFO},
		{"note", LSC_LEVEL_NOTE},  {"usage", LSC_LEVEL_WARN},  {"error", LSC_LEVEL_ERROR},
		{"ready", LSC_LEVEL_INFO},
	};
	cr_assert_eq(g.n, 7, "%u lines", g.n);
	for (unsigned i = 0; i < 7; i++) {
		cr_assert_str_eq(g.event[i], want[i].event, "line %u", i);
		cr_assert_eq(g.level[i], want[i].level, "line %u (%s): level %s", i, g.event[i],
			     lsc_level_name(g.level[i]));
		cr_assert(!strncmp(g.line[i], "eng: ", 5), "%s", g.line[i]);
		cr_assert(strstr(g.line[i], fmt == LSC_FORMAT_JSON ? "\"event\":\"" : "[loadscope/2] "));
	}
}

Test(sink_levels, each_event_has_its_level_human)
{
	run(LSC_FORMAT_HUMAN);
}

Test(sink_levels, each_event_has_its_level_json)
{
	run(LSC_FORMAT_JSON);
}

/* A fallback is warn; a phase inside which a failure line was printed
 * (failed=1) is warn; the failure itself error. */
Test(sink_levels, fallback_and_failed_phase)
{
	struct got g = {0};
	lsc_profiler *p = make(&g, LSC_FORMAT_HUMAN, 0);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.device = 0; /* the "none" pin backend has no device: a fallback */
	char *path = strdup(lsct_make_file("levels.bin", 8192, 9));
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, &o, &e, 1, 0, &a), 0);
	lsc_arena_destroy(a);
	int k = find(&g, "fallback", 0);
	cr_assert_geq(k, 0);
	cr_assert(strstr(g.line[k], "what=device"), "%s", g.line[k]);
	cr_assert_eq(g.level[k], LSC_LEVEL_WARN);
	k = find(&g, "loaded", 0);
	cr_assert_eq(g.level[k], LSC_LEVEL_INFO);
	o.device = -1;
	o.reader = "no-such-reader";
	cr_assert_eq(lsc_load(p, &o, &e, 1, 0, &a), -EINVAL);
	k = find(&g, "error", 0);
	cr_assert_geq(k, 0);
	cr_assert(strstr(g.line[k], "what=options"), "%s", g.line[k]);
	cr_assert_eq(g.level[k], LSC_LEVEL_ERROR);
	g.n = 0;
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_READ, "weights", 100, &s), 0);
	cr_assert_eq(lsc_load(p, &o, &e, 1, 0, &a), -EINVAL); /* its error line fails the span */
	cr_assert_eq(lsc_span_end(p, s, NULL), 0);
	k = find(&g, "phase", 0);
	cr_assert_geq(k, 0);
	cr_assert(strstr(g.line[k], "failed=1"), "%s", g.line[k]);
	cr_assert_eq(g.level[k], LSC_LEVEL_WARN);
	lsc_profiler_destroy(p);
	free(path);
}
