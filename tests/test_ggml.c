/*
 * Description: the ggml integration, end to end (examples/ggml). A model
 * written with ggml's own GGUF writer is loaded three ways: by loadscope
 * straight into ggml's backend buffers (two buffers, one lsc_load_into_many
 * call), by ggml's own path (gguf_init_from_file with data, then
 * ggml_backend_tensor_set) and through a mapping used in place; one forward
 * pass each gives the same checksum, bit for bit, and a changed weight
 * changes it (so equal checksums mean equal weights, not an output that
 * ignores them). A cancel from the engine's progress callback stops the
 * load with its error line and no output. The loadscope run's log, the
 * engine's and ggml's lines and loadscope's in one stream, triages as one
 * healthy start.
 *
 * A loud skip where the build has no ggml (LOADSCOPE_GGML_DIR unset).
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "helpers/test_env.h"
#include "helpers/tool_run.h"

#ifdef LSC_TEST_GGML_LOAD

static char out[1 << 16], err[1 << 20];

/* Run a shell command; stdout into out, stderr into err. The exit status. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	const char *dir = lsct_scratch("ggml");
	char full[8192];
	snprintf(full, sizeof full, "(%s) 2>'%s/err' >'%s/out'", cmd, dir, dir);
	int st = system(full);
	for (int k = 0; k < 2; k++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", dir, k ? "err" : "out");
		FILE *f = fopen(path, "r");
		char *buf = k ? err : out;
		size_t cap = k ? sizeof err : sizeof out;
		size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
		buf[n] = 0;
		if (f)
			fclose(f);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The checksum line of the last run: 16 hex digits alone on a line. */
static uint64_t checksum(void)
{
	const char *c = strstr(out, "checksum=");
	cr_assert_not_null(c, "no checksum line; stderr:\n%s", err);
	cr_assert(c == out || c[-1] == '\n');
	char hex[17];
	cr_assert_eq(sscanf(c, "checksum=%16[0-9a-f]", hex), 1);
	cr_assert_eq(strlen(hex), 16);
	cr_assert(c[9 + 16] == '\n', "the checksum line holds only the checksum");
	return strtoull(hex, NULL, 16);
}

static const char *model(void)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/model.gguf", lsct_scratch("ggml"));
	cr_assert_eq(sh("'%s' --write-model '%s' --gib 0.03", LSC_TEST_GGML_LOAD, path), 0, "%s", err);
	return path;
}

TestSuite(ggml, .fini = lsct_scratch_remove);

Test(ggml, three_ways_one_checksum)
{
	const char *m = model();
	cr_assert_eq(sh("'%s' '%s'", LSC_TEST_GGML_LOAD, m), 0, "%s", err);
	uint64_t a = checksum();
	/* loadscope's lines came through the engine's one log, both buffers
	 * in one load. */
	cr_assert(strstr(err, "ggml-load info: [loadscope/"), "%s", err);
	cr_assert(strstr(err, "read into memory allocated and pinned by the caller"), "%s", err);
	cr_assert(strstr(err, "] loaded "), "%s", err);
	cr_assert_eq(sh("'%s' --ggml '%s'", LSC_TEST_GGML_LOAD, m), 0, "%s", err);
	uint64_t b = checksum();
	cr_assert_eq(sh("'%s' --mmap '%s'", LSC_TEST_GGML_LOAD, m), 0, "%s", err);
	uint64_t c = checksum();
	cr_assert_eq(a, b, "loadscope %016llx, ggml %016llx", (unsigned long long)a, (unsigned long long)b);
	cr_assert_eq(a, c, "loadscope %016llx, mmap %016llx", (unsigned long long)a, (unsigned long long)c);
}

/* One float of the last tensor's data changed: every path sees it. */
Test(ggml, a_changed_weight_changes_the_checksum)
{
	const char *m = model();
	cr_assert_eq(sh("'%s' '%s'", LSC_TEST_GGML_LOAD, m), 0, "%s", err);
	uint64_t before = checksum();
	FILE *f = fopen(m, "r+b");
	cr_assert_not_null(f);
	cr_assert_eq(fseek(f, -64, SEEK_END), 0);
	float v = 0.75f;
	cr_assert_eq(fwrite(&v, sizeof v, 1, f), 1);
	fclose(f);
	cr_assert_eq(sh("'%s' '%s'", LSC_TEST_GGML_LOAD, m), 0, "%s", err);
	uint64_t after = checksum();
	cr_assert_neq(before, after);
	cr_assert_eq(sh("'%s' --ggml '%s'", LSC_TEST_GGML_LOAD, m), 0, "%s", err);
	cr_assert_eq(checksum(), after);
}

/* The engine's callback (llama.cpp's polarity, through the adapter)
 * cancels at its first call. */
Test(ggml, a_cancel_from_the_progress_callback_stops_the_load)
{
	const char *m = model();
	int rc = sh("'%s' --cancel-at 0.001 '%s'", LSC_TEST_GGML_LOAD, m);
	cr_assert_eq(rc, 1, "exit %d; stderr:\n%s", rc, err);
	cr_assert(strstr(err, "error cancel"), "%s", err);
	cr_assert_null(strstr(out, "checksum="));
	/* Without the cancel the same adapter lets the load run to its end. */
	cr_assert_eq(sh("'%s' --cancel-at 2 '%s'", LSC_TEST_GGML_LOAD, m), 0, "%s", err);
}

Test(ggml, the_engine_log_triages_as_one_healthy_start)
{
	lsct_tool_required();
	const char *m = model();
	const char *dir = lsct_scratch("ggml");
	cr_assert_eq(sh("'%s' '%s' 2>'%s/engine.log' >/dev/null; '%s' triage '%s/engine.log'",
			LSC_TEST_GGML_LOAD, m, dir, LSC_TEST_TOOL, dir),
		     0, "%s\n%s", out, err);
	cr_assert(strstr(out, "1 start"), "%s", out);
	cr_assert(strstr(out, "healthy"), "%s", out);
	/* the engine's own phases are in the start's table, in the order they
	 * ran, beside the loader's (read, nested in weights) */
	const char *rows[] = {"metadata (s)", "buffers (s)", "weights (s)", "graph (s)", "first compute (s)", "read (s)"};
	const char *at = out;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const char *r = strstr(out, rows[i]);
		cr_assert_not_null(r, "no row %s:\n%s", rows[i], out);
		if (i < 5) {
			cr_assert_geq(r, at, "%s out of order:\n%s", rows[i], out);
			at = r;
		}
	}
}

#else

Test(ggml, skipped)
{
	cr_skip("[SKIP] the ggml integration: this build has no ggml (configure with "
		"-DLOADSCOPE_GGML_DIR=<a ggml source tree>; scripts/test.sh does where ../shared/ggml is)");
}

#endif
