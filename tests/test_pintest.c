/*
 * Description: `loadscope pintest`, run as a program (LSC_TEST_TOOL) on
 * 64 MiB with the mlock backend, which needs no GPU: the table's shape, one
 * row per mode and repeat, interleaved, the register notes, chunking, and
 * the one-line exit 1 of a GPU backend on a machine without a device, which
 * names the backend that runs here, and the default, which is one that does.
 * Timings are printed, never asserted.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/test_env.h"
#include "pin/pin.h"

static char out[65536];

/* AddressSanitizer reserves terabytes of shadow memory as a program starts,
 * which an address-space limit refuses (and the refusal is a sanitizer
 * report): the limit's test does not run in that build. */
#if defined(__SANITIZE_ADDRESS__)
static const int under_asan = 1;
#else
static const int under_asan = 0;
#endif

/* Run pintest with @args, after the shell words @before (a limit); its
 * exit status, -1 when it did not exit (a signal). */
static int run_after(const char *before, const char *args)
{
	char cmd[1024];
	if (!LSC_TEST_TOOL[0])
		cr_skip_test("LSC_TEST_TOOL is empty: the loadscope program is not built");
	snprintf(cmd, sizeof(cmd), "%s'%s' pintest %s 2>&1", before, LSC_TEST_TOOL, args);
	FILE *f = popen(cmd, "r");
	cr_assert_not_null(f);
	size_t n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	int st = pclose(f);
	cr_log_info("$ loadscope pintest %s\n%s", args, out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int run(const char *args)
{
	int rc = run_after("", args);
	cr_assert_geq(rc, 0, "pintest did not exit normally:\n%s", out);
	return rc;
}

static void require_memlock(size_t bytes)
{
	char why[160];
	if (!lsct_can_mlock(bytes, why, sizeof why))
		cr_skip_test("%s", why);
}

/* Rows of the table that start with "| <prefix>". */
static int rows(const char *prefix)
{
	int n = 0;
	char want[128];
	snprintf(want, sizeof(want), "| %s", prefix);
	for (const char *p = out; (p = strstr(p, want)); p++)
		if (p == out || p[-1] == '\n')
			n++;
	return n;
}

static int cells(const char *line)
{
	int n = 0;
	for (const char *p = line; *p && *p != '\n'; p++)
		n += *p == '|';
	return n - 1;
}

Test(pintest, mlock_table_interleaves_modes)
{
	require_memlock(64u << 20);
	int rc = run("0.0625 --backend mlock --mode register,alloc-mp --repeats 2");
	cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
	cr_assert(strstr(out, "pintest: backend=mlock size=0.0625 GiB"), "%s", out);
	cr_assert(strstr(out, "| case | alloc s | GiB/s | memset s | notes |\n|---|---:|---:|---:|---|\n"),
		  "%s", out);
	cr_assert_eq(rows("mlock register 0.0625 GiB #1 |"), 1);
	cr_assert_eq(rows("mlock alloc-mp 0.0625 GiB #1 |"), 1);
	cr_assert_eq(rows("mlock register 0.0625 GiB #2 |"), 1);
	cr_assert_eq(rows("mlock alloc-mp 0.0625 GiB #2 |"), 1);
	/* interleaved: register #1, alloc-mp #1, register #2 */
	const char *r1 = strstr(out, "| mlock register 0.0625 GiB #1");
	const char *a1 = strstr(out, "| mlock alloc-mp 0.0625 GiB #1");
	const char *r2 = strstr(out, "| mlock register 0.0625 GiB #2");
	cr_assert(r1 < a1 && a1 < r2, "modes are not interleaved:\n%s", out);
	cr_assert_eq(cells(r1), 5, "row: %.200s", r1);
	double alloc_s = -1, gibps = -1, memset_s = -1;
	cr_assert_eq(sscanf(strchr(r1 + 1, '|'), "| %lf | %lf | %lf |", &alloc_s, &gibps, &memset_s),
		     3, "row: %.200s", r1);
	cr_assert_geq(alloc_s, 0);
	cr_assert_geq(memset_s, 0);
	cr_assert(strstr(r1, "touch "), "register notes say the touch time: %.200s", r1);
	/* mlock has no device: no host-to-device copy was made, none is told */
	cr_assert_null(strstr(out, "h2d"), "an h2d figure without a device:\n%s", out);
}

Test(pintest, chunks)
{
	require_memlock(64u << 20);
	int rc = run("0.0625 --backend mlock --mode register --chunk-gib 0.015625 --thp 4k");
	cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
	cr_assert_eq(rows("mlock register 4x0.0156 GiB thp=4k #1 |"), 1, "%s", out);
}

/* Whether @repeats repeats of 64 MiB in four pieces all run under an
 * address-space limit of @mib MiB (ulimit -v: it binds root too). */
static int runs_under(unsigned mib, unsigned repeats)
{
	char before[64], args[128];
	snprintf(before, sizeof before, "ulimit -v %u && exec ", mib * 1024);
	snprintf(args, sizeof args, "0.0625 --backend mlock --mode alloc-mp --chunk-gib 0.015625 --repeats %u",
		 repeats);
	return run_after(before, args) == 0;
}

/* Each repeat gives back what it took before the next: under a limit on
 * the address space that holds the program and one repeat's 64 MiB but
 * not two, four repeats all run. The limit is found, not assumed: the
 * least that one repeat runs under (to 4 MiB), plus 32 MiB. */
Test(pintest, each_repeat_gives_back_its_pieces)
{
	require_memlock(64u << 20);
	if (under_asan)
		cr_skip_test("an AddressSanitizer build cannot start under an address-space limit");
	unsigned lo = 64, hi = 4096; /* 64 MiB cannot hold 64 MiB of pieces and the program */
	if (!runs_under(hi, 1))
		cr_skip_test("one repeat does not run under a %u MiB address-space limit", hi);
	while (hi - lo > 4) {
		unsigned mid = lo + (hi - lo) / 2;
		if (runs_under(mid, 1))
			hi = mid;
		else
			lo = mid;
	}
	cr_assert(runs_under(hi + 32, 4), "one repeat runs under %u MiB, four do not under %u MiB:\n%s", hi,
		  hi + 32, out);
	cr_assert_eq(rows("mlock alloc-mp 4x0.0156 GiB #4 |"), 1, "%s", out);
}

/* The first page-locking backend of the registry, other than @except, that
 * passes its probe here (or has none): read off the registry, as a user
 * would try them one by one. */
static const struct lsc__pin_ops *first_runnable(const char *except)
{
	char why[512];
	for (const struct lsc__pin_ops *const *b = lsc__pin_backends; *b; b++)
		if (((*b)->caps & LSC__PIN_CAP_LOCKS) && (!except || strcmp((*b)->name, except)) &&
		    (!(*b)->probe || (*b)->probe(why, sizeof why) == 0))
			return *b;
	return NULL;
}

static void no_device_line(const char *backend, const char *err_prefix)
{
	char args[128];
	snprintf(args, sizeof(args), "0.0625 --backend %s --mode register", backend);
	int rc = run(args);
	if (!lsc__pin_find(backend)) {
		/* not in this build's registry: a usage error (docs/cli.md) */
		cr_assert_eq(rc, 64, "exit %d:\n%s", rc, out);
		cr_skip_test("the %s backend is not compiled in this build", backend);
	}
	if (rc == 0)
		cr_skip_test("a %s device is present: the no-device path is not reachable here", backend);
	cr_assert_eq(rc, 1, "exit %d:\n%s", rc, out);
	char want[64];
	snprintf(want, sizeof(want), "pintest: %s: ", backend);
	cr_assert(strncmp(out, want, strlen(want)) == 0, "%s", out);
	cr_assert(strstr(out, err_prefix), "the line names the runtime's error: %s", out);
	cr_assert_eq(strchr(out, '\n'), out + strlen(out) - 1, "one line only:\n%s", out);
	const struct lsc__pin_ops *alt = first_runnable(backend);
	if (alt) {
		snprintf(want, sizeof(want), "; --backend %s runs here\n", alt->name);
		cr_assert(strstr(out, want), "the line names the backend that runs here (%s):\n%s", alt->name,
			  out);
	}
}

/* Without --backend: one that runs here, so the command works on a machine
 * without a GPU; each backend it passed over is named with its reason. */
Test(pintest, default_backend_runs_here)
{
	const struct lsc__pin_ops *want = first_runnable(NULL);
	cr_assert_not_null(want, "mlock has no probe: some backend always runs");
	if (!strcmp(want->name, "mlock"))
		require_memlock(64u << 20);
	int rc = run("0.0625 --mode register");
	cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
	char line[96];
	snprintf(line, sizeof(line), "pintest: backend=%s size=0.0625 GiB", want->name);
	cr_assert(strstr(out, line), "want %s:\n%s", line, out);
	snprintf(line, sizeof(line), "| %s register 0.0625 GiB #1 |", want->name);
	cr_assert(strstr(out, line), "want a row %s:\n%s", line, out);
	for (const struct lsc__pin_ops *const *b = lsc__pin_backends; *b && *b != want; b++)
		if ((*b)->caps & LSC__PIN_CAP_LOCKS) {
			snprintf(line, sizeof(line), "(%s: ", (*b)->name);
			char alt[96];
			snprintf(alt, sizeof(alt), "; %s: ", (*b)->name);
			cr_assert(strstr(out, line) || strstr(out, alt),
				  "the default line says why %s was passed over:\n%s", (*b)->name, out);
		}
}

Test(pintest, cuda_without_device_is_one_line)
{
	no_device_line("cuda", "cudaError");
}

Test(pintest, hip_without_device_is_one_line)
{
	no_device_line("hip", "hipError");
}

Test(pintest, usage_errors)
{
	cr_assert_eq(run(""), 64);
	cr_assert_eq(run("1 --mode nope"), 64);
	cr_assert_eq(run("1 --backend nope"), 64);
	cr_assert_eq(run("-1"), 64);
	cr_assert_eq(run("1 --repeats 0"), 64);
	cr_assert_eq(run("--help"), 0);
	/* the repeats' bound on both sides, read before --help ends the run */
	cr_assert_eq(run("--repeats 1000 --help"), 0);
	cr_assert_eq(run("--repeats 1001 --help"), 64);
	/* 2^44 pieces: refused, not wrapped to 0 and reported as a result */
	cr_assert_eq(run("16384 --backend mlock --mode register --chunk-gib 0.000000001"), 64);
}
