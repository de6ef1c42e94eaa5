/*
 * The load's results as data (result.c): the fallbacks and the failure a
 * load's lines report, recorded into the caller's lsc_load_result by the
 * line writers of lines.c, for the thread that runs the load.
 */
#ifndef LSC_LOADER_RESULT_H
#define LSC_LOADER_RESULT_H

#include <stdint.h>

#include <loadscope/loader.h>

/* Record into @r (zeroed here; may be NULL: record nothing) until
 * lsc__result_end. Return the result that was current, for _end. */
struct lsc_load_result *lsc__result_begin(struct lsc_load_result *r);
/* Close the recording: the return value and the bytes; restore @prev. */
void lsc__result_end(struct lsc_load_result *prev, int err, uint64_t done, uint64_t total);
/* The current result set back to @prev, without touching the one that is
 * current (a load that never returned: its caller's result may be gone). */
void lsc__result_restore(struct lsc_load_result *prev);
/* Called by lsc__load_fallback and lsc__load_error (lines.c). */
void lsc__result_fallback(const char *what, const char *wanted, const char *took, const char *reason);
void lsc__result_error(const char *what, const char *path, uint64_t offset, const char *cause);

#endif
