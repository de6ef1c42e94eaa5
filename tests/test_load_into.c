/*
 * Description: lsc_load_into, a load into memory the caller allocated (as
 * llama.cpp fills its own backend buffers). The bytes of each extent land
 * at its offset in the caller's buffer and nothing else of it is written;
 * no allocate or pin phase is opened, the summary lines say the memory is
 * the caller's and what smaps shows of it; the loader maps, unmaps,
 * advises and locks nothing of it (the syscall shim counts every call),
 * and an mlock'ed buffer stays locked. A failure leaves no descriptor and
 * the caller's memory mapped.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helpers/load_helpers.h"
#include "helpers/sys_shim.h"
#include "helpers/test_env.h"

static struct lsct_capture cap;

static void setup(void)
{
	lsct_sys_install(NULL);
}

static void teardown(void)
{
	lsct_sys_restore();
	lsct_capture_reset(&cap);
}

TestSuite(load_into, .init = setup, .fini = teardown);

static unsigned char pattern(uint64_t i)
{
	return (unsigned char)(i * 7 + 3);
}

/* A file of @bytes whose byte i is pattern(i). */
static char *pattern_file(const char *name, uint64_t bytes)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", lsct_tmpdir(), name);
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	for (uint64_t i = 0; i < bytes; i++)
		fputc(pattern(i), f);
	cr_assert_eq(fclose(f), 0);
	return strdup(path);
}

static unsigned phase_lines(const char *kind)
{
	char needle[32];
	snprintf(needle, sizeof(needle), "kind=%s ", kind);
	return lsct_count_with(&cap, "phase", needle);
}

/* Two extents of one file at offsets 4096 and 20000 of a 64 KiB buffer;
 * every byte outside them keeps the caller's 0xAB. */
Test(load_into, bytes_land_at_their_offsets_and_nowhere_else)
{
	char *path = pattern_file("into.bin", 30000);
	size_t len = 65536;
	unsigned char *dst = aligned_alloc(4096, len);
	memset(dst, 0xAB, len);
	struct lsc_extent e[2] = {
		{.path = path, .file_offset = 100, .length = 5000, .arena_offset = 4096},
		{.path = path, .file_offset = 29000, .length = UINT64_MAX, .arena_offset = 20000},
	};
	lsc_profiler *p = lsct_profiler(&cap);
	struct lsc_load_stats st;
	int fds = lsct_open_fds();
	int ret = lsc_load_into(p, NULL, e, 2, dst, len, &st);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	cr_assert_eq(lsct_open_fds(), fds);
	for (uint64_t i = 0; i < len; i++) {
		unsigned char want = 0xAB;
		if (i >= 4096 && i < 4096 + 5000)
			want = pattern(100 + (i - 4096));
		else if (i >= 20000 && i < 21000)
			want = pattern(29000 + (i - 20000));
		cr_assert_eq(dst[i], want, "byte %llu is %u, want %u", (unsigned long long)i, dst[i], want);
	}
	cr_assert_eq(st.bytes, 6000);
	cr_assert_eq(st.arena_bytes, 65536);
	cr_assert_eq(st.caller_memory, 1);
	cr_assert_eq(st.alloc_ns, 0);
	cr_assert_eq(st.prefault_ns, 0);
	cr_assert_eq(st.pin_ns, 0);
	cr_assert_str_eq(st.pin_applied, "none");
	/* The caller's phases are not ours: no allocate or pin span. */
	cr_assert_eq(phase_lines("allocate"), 0);
	cr_assert_eq(phase_lines("pin"), 0);
	cr_assert_eq(phase_lines("read"), 1);
	cr_assert_eq(lsct_count_with(&cap, "complement", "allocated and pinned by the caller"), 1);
	cr_assert_eq(lsct_count_with(&cap, "loaded", "allocate and pin by the caller"), 1);
	char v[64];
	cr_assert(lsct_field(&cap, "complement", "memory", v, sizeof(v)));
	cr_assert_str_eq(v, "caller");
	cr_assert(lsct_field(&cap, "loaded", "memory", v, sizeof(v)));
	cr_assert_str_eq(v, "caller");
	cr_assert(lsct_field(&cap, "loaded", "bytes", v, sizeof(v)));
	cr_assert_str_eq(v, "6000");
	/* the sentence gives the process's VmPin the field has (a driver's pin
	 * of the caller's buffer shows there), in GiB */
	cr_assert(lsct_field(&cap, "complement", "process_pin_kib", v, sizeof(v)));
	long kib = strtol(v, NULL, 10);
	char said[64];
	if (kib >= 0)
		snprintf(said, sizeof(said), "process VmPin %.2f GiB", kib / (1024.0 * 1024));
	else
		snprintf(said, sizeof(said), "process VmPin n/a");
	cr_assert_eq(lsct_count_with(&cap, "complement", said), 1, "no \"%s\"", said);
	/* Nothing of the caller's memory was mapped, unmapped, advised or locked. */
	cr_assert_eq(lsct_sys_calls(LSCT_SYS_MMAP), 0);
	cr_assert_eq(lsct_sys_calls(LSCT_SYS_MUNMAP), 0);
	cr_assert_eq(lsct_sys_calls(LSCT_SYS_MADVISE), 0);
	cr_assert_eq(lsct_sys_calls(LSCT_SYS_MLOCK), 0);
	lsc_profiler_destroy(p);
	free(dst);
	free(path);
}

/* The pread reader and staging buffers reach the caller's memory the same way. */
Test(load_into, through_staging_with_pread)
{
	char *path = pattern_file("into_stg.bin", 300000);
	size_t len = 300000 + 17;
	unsigned char *dst = malloc(len);
	memset(dst, 0, len);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.staging_count = 2;
	o.staging_bytes = 65536;
	struct lsc_extent e = {.path = path, .length = UINT64_MAX, .arena_offset = 17};
	lsc_profiler *p = lsct_profiler(&cap);
	struct lsc_load_stats st;
	int ret = lsc_load_into(p, &o, &e, 1, dst, len, &st);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	for (uint64_t i = 0; i < 300000; i++)
		cr_assert_eq(dst[17 + i], pattern(i), "byte %llu", (unsigned long long)i);
	cr_assert_str_eq(st.reader_applied, "pread");
	cr_assert_eq(st.bytes, 300000);
	lsc_profiler_destroy(p);
	free(dst);
	free(path);
}

/* An mlock'ed buffer is reported locked in the stats and the line, and is
 * still locked (smaps, read by the test kit) after the load. */
Test(load_into, locked_memory_is_reported_and_stays_locked)
{
	char why[256];
	size_t len = 4u << 20;
	if (!lsct_can_mlock(len, why, sizeof(why)))
		cr_skip("cannot mlock 4 MiB here: %s", why);
	unsigned char *dst = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(dst, MAP_FAILED);
	/* The system call itself: AddressSanitizer makes mlock() a no-op. */
	cr_assert_eq(syscall(SYS_mlock, dst, len), 0);
	struct lsct_vma before;
	cr_assert_eq(lsct_vma_read(dst, len, &before), 0);
	cr_assert_eq(before.locked_bytes, 4u << 20);
	char *path = pattern_file("into_lck.bin", 1u << 20);
	struct lsc_extent e = {.path = path, .length = UINT64_MAX, .arena_offset = 0};
	lsc_profiler *p = lsct_profiler(&cap);
	struct lsc_load_stats st;
	int ret = lsc_load_into(p, NULL, &e, 1, dst, len, &st);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	cr_assert_eq(st.locked_bytes, 4u << 20, "locked %llu", (unsigned long long)st.locked_bytes);
	char v[64];
	cr_assert(lsct_field(&cap, "complement", "locked_bytes", v, sizeof(v)));
	cr_assert_str_eq(v, "4194304");
	struct lsct_vma vma;
	cr_assert_eq(lsct_vma_read(dst, len, &vma), 0);
	cr_assert_eq(vma.locked_bytes, 4u << 20, "the caller's lock was undone");
	cr_assert_eq(dst[12345], pattern(12345));
	lsc_profiler_destroy(p);
	syscall(SYS_munlock, dst, len);
	munmap(dst, len);
	free(path);
}

/* A missing file fails with its one line and no descriptor; the caller's
 * memory is untouched and still its own. */
Test(load_into, a_failure_leaves_the_memory_alone)
{
	size_t len = 8192;
	unsigned char *dst = malloc(len);
	memset(dst, 0x5A, len);
	char path[512];
	snprintf(path, sizeof(path), "%s/no-such-file", lsct_tmpdir());
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	int fds = lsct_open_fds();
	struct lsc_load_stats st = {.bytes = 77};
	int ret = lsc_load_into(p, NULL, &e, 1, dst, len, &st);
	cr_assert_eq(ret, -ENOENT);
	cr_assert_eq(st.bytes, 77, "stats written on failure");
	cr_assert_eq(lsct_open_fds(), fds);
	cr_assert_eq(lsct_count(&cap, "error"), 1);
	cr_assert_eq(lsct_count(&cap, "loaded"), 0);
	for (size_t i = 0; i < len; i++)
		cr_assert_eq(dst[i], 0x5A);
	lsc_profiler_destroy(p);
	free(dst);
}

/* Extents past the caller's length, no memory, and a device copy (which
 * needs an arena to hold it) are refused before anything is read. */
Test(load_into, refused_before_reading)
{
	char *path = pattern_file("into_small.bin", 5000);
	unsigned char dst[4096];
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	char v[64];

	cr_assert_eq(lsc_load_into(p, NULL, &e, 1, dst, sizeof(dst), NULL), -EINVAL);
	cr_assert(lsct_field(&cap, "error", "what", v, sizeof(v)));
	cr_assert_str_eq(v, "manifest");
	lsct_capture_reset(&cap);

	cr_assert_eq(lsc_load_into(p, NULL, &e, 1, NULL, 8192, NULL), -EINVAL);
	cr_assert(lsct_field(&cap, "error", "what", v, sizeof(v)));
	cr_assert_str_eq(v, "options");
	lsct_capture_reset(&cap);

	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.device = 0;
	cr_assert_eq(lsc_load_into(p, &o, &e, 1, dst, sizeof(dst), NULL), -EINVAL);
	cr_assert(lsct_field(&cap, "error", "what", v, sizeof(v)));
	cr_assert_str_eq(v, "options");
	cr_assert_eq(lsct_sys_calls(LSCT_SYS_PREAD), 0);
	lsc_profiler_destroy(p);
	free(path);
}

/* A length of 0 is memory of 0 bytes, not "as large as the extents" (what
 * arena_bytes 0 means to lsc_load): the extents do not end within it, so
 * nothing is read into the caller's buffer, whose bytes past its stated
 * length are not the loader's to write. */
Test(load_into, zero_length_memory_is_not_grown_to_the_extents)
{
	char *path = pattern_file("into_zero.bin", 5000);
	size_t len = 8192;
	unsigned char *dst = malloc(len);
	memset(dst, 0x5A, len);
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	int fds = lsct_open_fds();
	cr_assert_eq(lsc_load_into(p, NULL, &e, 1, dst, 0, NULL), -EINVAL);
	char v[64];
	cr_assert(lsct_field(&cap, "error", "what", v, sizeof(v)));
	cr_assert_str_eq(v, "manifest");
	cr_assert_eq(lsct_count(&cap, "loaded"), 0);
	cr_assert_eq(lsct_sys_calls(LSCT_SYS_PREAD), 0);
	cr_assert_eq(lsct_open_fds(), fds);
	for (size_t i = 0; i < len; i++)
		cr_assert_eq(dst[i], 0x5A, "byte %zu of memory of length 0 written", i);
	lsc_profiler_destroy(p);
	free(dst);
	free(path);
}
