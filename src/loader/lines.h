/*
 * The loader's lines that more than one of its steps prints: the `error`
 * line of a failure, the `fallback` line of a path wanted and not taken,
 * and the `note` with the KFD counts (docs/log-format.md); the name of an
 * error they give is format/errname.h's. One home, so that each line has one format
 * and every step prints it the same way; a line that only one step prints
 * stays beside that step (the `arena` line in arena.c, the pin notes in
 * pin_segments.c), and the two summaries that close a load are summary.c's.
 *
 * This header needs nothing of the loader's state, so that any step can
 * print a line without including the others.
 */
#ifndef LSC_LOADER_LINES_H
#define LSC_LOADER_LINES_H

#include <stdint.h>
#include <sys/types.h>

#include <loadscope/profiler.h>

#include "format/errname.h" /* lsc__errname, which every caller of these names */

struct lsc__arena;

/* One clear line for a failure: what failed, on which file at which offset,
 * and why (err named). @path may be NULL. */
void lsc__load_error(lsc_profiler *p, const char *what, const char *path, uint64_t offset,
		     int err, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* One `fallback` line: what was wanted, what was taken, why. */
void lsc__load_fallback(lsc_profiler *p, const char *what, const char *wanted, const char *took,
			const char *reason);

/* What a path that is not a regular file is, for a line: "a directory",
 * "a FIFO", "a socket", "a character device", "a block device", "a
 * symbolic link", else "not a file". A static string. */
const char *lsc__file_type_name(mode_t mode);

/* The note with the KFD counts (a->kfd_seen set): the preload's evidence
 * for seed 000's silent EAGAIN retries. */
void lsc__kfd_note(lsc_profiler *p, const struct lsc__arena *a, const char *backend);

#endif
