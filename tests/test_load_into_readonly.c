/*
 * Description: lsc_load_into into memory it cannot write. The direct
 * paths returned -EFAULT (the kernel's pread refuses), but a copy out of
 * staging faulted and ended the process, including when
 * LOADSCOPE_READ_PATH=staging alone chose it. Now every path is refused
 * with -EFAULT and one `error` line before a byte is read: read-only
 * memory (PROT_READ, and memory made read-only with mprotect), a range
 * whose second half is read-only (its writable half keeps its bytes), and
 * a range with a hole; with pread and io_uring, direct and through
 * staging, chosen by the options or by the environment alone. No file is
 * left open. A crash here is the old behaviour.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers/load_helpers.h"

static struct lsct_capture cap;

static void teardown(void)
{
	unsetenv("LOADSCOPE_READ_PATH");
	lsct_capture_reset(&cap);
}

TestSuite(load_into_readonly, .fini = teardown);

#define LEN (3u << 20)

enum shape { ALL_RO, MPROTECTED, SECOND_HALF_RO, HOLE };

/* A mapping of LEN bytes filled with 0x5A, then shaped. */
static unsigned char *memory(enum shape sh)
{
	unsigned char *m = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(m, MAP_FAILED);
	memset(m, 0x5A, LEN);
	if (sh == ALL_RO || sh == MPROTECTED)
		cr_assert_eq(mprotect(m, LEN, PROT_READ), 0);
	else if (sh == SECOND_HALF_RO)
		cr_assert_eq(mprotect(m + LEN / 2, LEN / 2, PROT_READ), 0);
	else
		cr_assert_eq(munmap(m + LEN / 2, 4096), 0);
	return m;
}

static void refused(enum shape sh, const char *reader, int staging, int by_env)
{
	const char *path = lsct_make_file("ro.bin", LEN, 3);
	unsigned char *m = memory(sh);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = reader;
	if (staging && !by_env) {
		o.staging_count = 2;
		o.staging_bytes = 1u << 20;
	}
	if (by_env)
		setenv("LOADSCOPE_READ_PATH", "staging", 1);
	if (!strcmp(reader, "io_uring"))
		lsct_need_uring();
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	int fds = lsct_open_fds();
	int ret = lsc_load_into(p, &o, &e, 1, m, LEN, NULL);
	cr_assert_eq(ret, -EFAULT, "got %d (%s): %s", ret, lsc_strerror(ret), cap.buf);
	cr_assert_eq(lsct_open_fds(), fds, "files left open");
	cr_assert_eq(lsct_count(&cap, "error"), 1, "%s", cap.buf);
	cr_assert_eq(lsct_count_with(&cap, "error", "err=EFAULT"), 1, "%s", cap.buf);
	cr_assert_eq(lsct_count_with(&cap, "error", "not writable"), 1, "%s", cap.buf);
	/* Refused before reading: the writable bytes are the caller's still. */
	size_t upto = sh == ALL_RO || sh == MPROTECTED ? LEN : LEN / 2;
	for (size_t i = 0; i < upto; i++)
		if (m[i] != 0x5A)
			cr_assert_fail("byte %zu changed to 0x%02x", i, m[i]);
	lsc_profiler_destroy(p);
	if (sh == HOLE) {
		munmap(m, LEN / 2);
		munmap(m + LEN / 2 + 4096, LEN / 2 - 4096);
	} else {
		munmap(m, LEN);
	}
}

Test(load_into_readonly, pread_direct)
{
	refused(ALL_RO, "pread", 0, 0);
}

Test(load_into_readonly, pread_staging_by_option)
{
	refused(ALL_RO, "pread", 1, 0);
}

Test(load_into_readonly, pread_staging_by_the_environment_alone)
{
	refused(MPROTECTED, "pread", 1, 1);
}

Test(load_into_readonly, io_uring_direct)
{
	refused(MPROTECTED, "io_uring", 0, 0);
}

Test(load_into_readonly, io_uring_staging_by_option)
{
	refused(ALL_RO, "io_uring", 1, 0);
}

Test(load_into_readonly, io_uring_staging_by_the_environment_alone)
{
	refused(ALL_RO, "io_uring", 1, 1);
}

Test(load_into_readonly, second_half_read_only_through_staging)
{
	refused(SECOND_HALF_RO, "pread", 1, 1);
}

Test(load_into_readonly, a_hole_through_staging)
{
	refused(HOLE, "io_uring", 1, 0);
}

/* Writable memory still loads, through staging chosen by the environment. */
Test(load_into_readonly, writable_memory_still_loads)
{
	const char *path = lsct_make_file("rw.bin", LEN, 3);
	unsigned char *m = memory(SECOND_HALF_RO);
	cr_assert_eq(mprotect(m + LEN / 2, LEN / 2, PROT_READ | PROT_WRITE), 0);
	setenv("LOADSCOPE_READ_PATH", "staging", 1);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	int ret = lsc_load_into(p, &o, &e, 1, m, LEN, NULL);
	cr_assert_eq(ret, 0, "%s: %s", lsc_strerror(ret), cap.buf);
	uint64_t len;
	unsigned char *want = lsct_read_file(path, &len);
	cr_assert(memcmp(m, want, LEN) == 0);
	free(want);
	lsc_profiler_destroy(p);
	munmap(m, LEN);
}
