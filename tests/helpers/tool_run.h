/*
 * Running the built program (LSC_TEST_TOOL) from a test: through sh with
 * stdout and stderr captured and the exit status returned, or in the
 * background with its stdout on a pipe, so that a test can wait for a line
 * the program prints (`holding ...`) instead of sleeping, look at the
 * process while it is in that state, and signal it. Also a scratch
 * directory per test, removed at the end.
 */
#ifndef LSC_TESTS_TOOL_RUN_H
#define LSC_TESTS_TOOL_RUN_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Skip the test (loudly) when the program was not built. */
void lsct_tool_required(void);

/* A fresh directory under /tmp named after @what; lsct_scratch_remove
 * removes it and what is in it. */
const char *lsct_scratch(const char *what);
void lsct_scratch_remove(void);
/* Write @text to <scratch>/@name (mode @mode); its path (static, 8 kept). */
const char *lsct_scratch_file(const char *name, const char *text, int mode);

/* `loadscope ARGS` through sh -c (ARGS may quote and redirect), LOADSCOPE
 * unset; stdout into @out, stderr into @err (each NUL-terminated, cut at its
 * cap). Return the exit status, or 128 + the signal that ended it. */
int lsct_tool(char *out, size_t out_cap, char *err, size_t err_cap, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* The program in the background with @argv (argv[0] is the first argument
 * after the program's path: "lab"), stdout on a pipe, stderr to @err_path
 * (NULL: inherited). The child gets SIGTERM if the test process ends first
 * (a failed assertion), so that it never outlives the test. */
struct lsct_child {
	pid_t pid;
	FILE *out;
};
int lsct_tool_spawn(struct lsct_child *c, const char *const *argv, const char *err_path);
/* Read its stdout until a line that contains @needle (copied into @line);
 * 1 found, 0 its stdout ended first. Everything read goes to @log (may be
 * NULL), for a failed assertion's message. */
int lsct_child_wait_line(struct lsct_child *c, const char *needle, char *line, size_t cap, char *log,
			 size_t log_cap);
/* Read the rest of its stdout into @log (appended) and reap it: the exit
 * status, or 128 + the signal. */
int lsct_child_finish(struct lsct_child *c, char *log, size_t log_cap);

#endif
