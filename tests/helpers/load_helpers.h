/*
 * Helpers for the loader tests (tests/test_load_*.c): test files of
 * pseudo-random bytes, an independent read of a file to compare the arena
 * with, and one whole load checked end to end. The capture (capture.h) and
 * the open-fd count (process.h) come with it, since every loader test uses
 * them.
 */
#ifndef LSC_TESTS_LOAD_HELPERS_H
#define LSC_TESTS_LOAD_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include <loadscope/loadscope.h>

#include "helpers/capture.h"
#include "helpers/process.h"

/* A fresh temporary directory for this test (removed at exit). */
const char *lsct_tmpdir(void);
/* Write @bytes pseudo-random bytes (seeded) to <tmpdir>/@name; return the path (static storage per call: copy it). */
char *lsct_make_file(const char *name, uint64_t bytes, uint64_t seed);
/* The whole file, malloc'd; *len set. */
unsigned char *lsct_read_file(const char *path, uint64_t *len);
/* XXH3-64 of [off, off+len) of the file. */
uint64_t lsct_file_hash(const char *path, uint64_t off, uint64_t len);

/* Skip the test loudly where io_uring cannot be set up here. */
void lsct_need_uring(void);

/* Load @path whole with @o; assert the arena equals the file, the extent hash
 * is XXH3-64 of the file, the stats and the `loaded`/`complement` lines
 * (reader @reader, staging @staging). */
void lsct_load_check(struct lsct_capture *cap, const char *reader, const char *path,
		     struct lsc_load_options *o, const char *staging);

#endif
