/*
 * A tiny "engine" embedding loadscope: its startup loads one weights file
 * into a pinned arena, and every loadscope line goes through the engine's
 * own logger (a sink callback that adds the prefix "engine: "), which is
 * how lines end up in a real engine's log and, from there, in a bug report
 * that `loadscope triage` can read.
 *
 *   engine WEIGHTS_FILE [--pin none|mlock|cuda|hip]
 */
#include <stdio.h>
#include <string.h>

#include <loadscope/loadscope.h>

/* The engine's logger: one call per complete line. */
static void engine_log(void *user, const char *line, size_t len)
{
	FILE *f = user;
	fprintf(f, "engine: %.*s", (int)len, line);
	fflush(f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: engine WEIGHTS_FILE [--pin none|mlock|cuda|hip]\n");
		return 2;
	}
	struct lsc_profiler_options po;
	lsc_profiler_options_init(&po);
	po.sink = engine_log;
	po.sink_user = stdout;
	lsc_profiler *p = NULL;
	int ret = lsc_profiler_create(&po, &p);
	if (ret < 0) {
		fprintf(stderr, "engine: profiler: %s\n", lsc_strerror(ret));
		return 1;
	}
	lsc_start_begin(p, "engine");

	struct lsc_load_options o;
	lsc_load_options_init(&o);
	if (argc > 3 && !strcmp(argv[2], "--pin"))
		o.pin = argv[3];
	struct lsc_extent weights = {.path = argv[1], .length = UINT64_MAX};
	lsc_arena *arena = NULL;
	ret = lsc_load(p, &o, &weights, 1, 0, &arena);
	if (ret == 0) {
		uint64_t h = 0;
		lsc_arena_extent_hash(arena, 0, &h);
		printf("engine: weights at %p, %llu bytes, xxh3 %016llx\n", lsc_arena_data(arena),
		       (unsigned long long)lsc_arena_size(arena), (unsigned long long)h);
		lsc_start_end(p); /* "ready" */
	}
	lsc_arena_destroy(arena);
	lsc_profiler_destroy(p);
	return ret == 0 ? 0 : 1;
}
