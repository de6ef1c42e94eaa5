/*
 * Helpers for the loader tests (tests/test_load_*.c): test files of
 * pseudo-random bytes, a profiler whose sink captures lines for parsing,
 * an independent read of a file to compare the arena with, and an open-fd
 * count to prove that a failed load released its files.
 */
#ifndef LSC_TESTS_LOAD_HELPERS_H
#define LSC_TESTS_LOAD_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include <loadscope/loadscope.h>

#include "format/line.h"

#define LSCT_LINES_MAX 256

struct lsct_capture {
	char *lines[LSCT_LINES_MAX];
	unsigned n;
};

/* A fresh temporary directory for this test (removed at exit). */
const char *lsct_tmpdir(void);
/* Write @bytes pseudo-random bytes (seeded) to <tmpdir>/@name; return the path (static storage per call: copy it). */
char *lsct_make_file(const char *name, uint64_t bytes, uint64_t seed);
/* The whole file, malloc'd; *len set. */
unsigned char *lsct_read_file(const char *path, uint64_t *len);
/* XXH3-64 of [off, off+len) of the file. */
uint64_t lsct_file_hash(const char *path, uint64_t off, uint64_t len);

/* The capturing sink (@user is a struct lsct_capture). */
void lsct_sink(void *user, const char *line, size_t len);
/* A profiler (no watchdog, environment ignored) whose lines go to @cap. */
lsc_profiler *lsct_profiler(struct lsct_capture *cap);
void lsct_capture_free(struct lsct_capture *cap);
/* The @k-th line (0 = first) of @event parsed into @out, or 0 when absent.
 * @buf receives a copy of the line (the parse points into it). */
int lsct_find(const struct lsct_capture *cap, const char *event, unsigned k, char *buf, size_t cap_len,
	      struct lsc__parsed *out);
/* Count lines of @event. */
unsigned lsct_count(const struct lsct_capture *cap, const char *event);
/* The fallback line with what=@what parsed into @out (whichever other
 * fallbacks the machine took before it), or 0. */
int lsct_find_fallback(const struct lsct_capture *cap, const char *what, char *buf, size_t cap_len,
		       struct lsc__parsed *out);
/* Whether a fallback line with what=@what was captured. */
int lsct_has_fallback(const struct lsct_capture *cap, const char *what);
/* Print every captured line to stderr (for a failed assertion's context). */
void lsct_dump(const struct lsct_capture *cap);

/* Load @path whole with @o; assert the arena equals the file, the extent hash
 * is XXH3-64 of the file, the stats and the `loaded`/`complement` lines
 * (reader @reader, staging @staging). */
void lsct_load_check(struct lsct_capture *cap, const char *reader, const char *path,
		     struct lsc_load_options *o, const char *staging);

/* Open file descriptors of this process. */
int lsct_open_fds(void);

#endif
