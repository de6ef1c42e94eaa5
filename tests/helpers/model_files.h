/*
 * Model files for the manifest tests (test_model_safetensors.c,
 * test_model_gguf.c): write bytes to a file of the test's directory, run
 * `loadscope load` on it, and the one check every malformed header gets:
 * the error, one `error` line naming the file and the problem, no manifest,
 * no descriptor left open.
 */
#ifndef LSC_TESTS_MODEL_FILES_H
#define LSC_TESTS_MODEL_FILES_H

#include <stddef.h>

#include "helpers/load_helpers.h"

/* Write @len bytes to <tmpdir>/@name; return the path (malloc'd). */
char *lsct_write(const char *name, const void *bytes, size_t len);

/* Run the loadscope program's `load` with @args; stdout into @out (NUL-
 * terminated); return the exit status (-1 when it did not exit). */
int lsct_tool_load(const char *args, char *out, size_t cap);
/* The value of @key in the first line of @event in @out, or NULL. */
const char *lsct_out_field(const char *out, const char *event, const char *key, char *buf,
			   size_t cap);

/* lsc_manifest_from_files on @input fails with @err, leaves *out NULL and
 * no descriptor open, and prints exactly one `error` line with what=model,
 * path=@path (NULL: @input), err=@errname, a cause containing @cause and
 * an offset inside the file (at most its size, when it is a file); returns
 * that offset. */
unsigned long long lsct_model_fails(const char *input, const char *path, int err, const char *errname,
				    const char *cause);

#endif
