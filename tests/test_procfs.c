/*
 * Description: the small /proc and /sys readers (src/host/procfs.c and
 * status.c): reading a file into a fixed buffer (cut files, short reads,
 * EINTR), the exact number parser, the bracketed sysfs choice, the
 * "Key:  123 kB" lines, buddyinfo, and /proc/self/status, on the fixture
 * trees of tests/fixtures and on the real /proc.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/procfs.h"

#define FX LSC_TEST_FIXTURES
#define HOST FX "/host-6.18-madvise"
#define ADM FX "/always-defer-madvise"
#define OLD FX "/old-kernel-no-mthp"
#define CONT FX "/container-no-vmstat"
#define GARB FX "/garbage"
#define THP "kernel/mm/transparent_hugepage/"
#define MIB (1024LL * 1024)

/* ---- lsc__path --------------------------------------------------------- */

Test(path, joins_root_and_relative_name)
{
	char out[64];

	cr_assert_eq(lsc__path(out, sizeof(out), "/proc", "vmstat"), 12);
	cr_assert_str_eq(out, "/proc/vmstat");
	cr_assert_eq(lsc__path(out, sizeof(out), "/tmp/fx/", "/self/status"), 19);
	cr_assert_str_eq(out, "/tmp/fx/self/status");
	cr_assert_eq(lsc__path(out, sizeof(out), NULL, "proc/vmstat"), 12);
	cr_assert_str_eq(out, "/proc/vmstat");
	cr_assert_eq(lsc__path(out, sizeof(out), "", "a"), 2);
	cr_assert_str_eq(out, "/a");
}

Test(path, too_long_is_an_error_not_a_cut)
{
	char out[12];

	cr_assert_eq(lsc__path(out, sizeof(out), "/proc", "vmstat"), -ENAMETOOLONG);
	cr_assert_eq(lsc__path(out, sizeof(out), "/proc", "vmsta"), 11);
	cr_assert_str_eq(out, "/proc/vmsta");
}

/* ---- lsc__read_file / lsc__read_lines ---------------------------------- */

Test(read_file, reads_a_whole_sysfs_file)
{
	char buf[256];
	int cut = -1;

	cr_assert_eq(lsc__read_file(HOST "/sys", THP "enabled", buf, sizeof(buf), &cut), 23);
	cr_assert_str_eq(buf, "always [madvise] never\n");
	cr_assert_eq(cut, 0);
}

Test(read_file, missing_file_is_enoent)
{
	char buf[16] = "x";
	int cut = -1;

	cr_assert_eq(lsc__read_file(CONT "/proc", "vmstat", buf, sizeof(buf), &cut), -ENOENT);
	cr_assert_str_eq(buf, "");
	cr_assert_eq(cut, 0);
}

Test(read_file, a_directory_is_an_error)
{
	char buf[16];

	cr_assert_eq(lsc__read_file(HOST, "proc", buf, sizeof(buf), NULL), -EISDIR);
}

Test(read_file, larger_than_the_buffer_keeps_what_fits)
{
	char buf[8];
	int cut = 0;

	cr_assert_eq(lsc__read_file(HOST "/sys", THP "enabled", buf, sizeof(buf), &cut), 7);
	cr_assert_str_eq(buf, "always ");
	cr_assert_eq(cut, 1);
}

Test(read_file, exactly_the_buffer_is_not_cut)
{
	char buf[24];
	int cut = -1;

	cr_assert_eq(lsc__read_file(HOST "/sys", THP "enabled", buf, sizeof(buf), &cut), 23);
	cr_assert_eq(cut, 0);
}

Test(read_file, zero_capacity_is_einval)
{
	char buf[1];

	cr_assert_eq(lsc__read_file(HOST "/sys", THP "enabled", buf, 0, NULL), -EINVAL);
	cr_assert_eq(lsc__read_file(HOST "/sys", THP "enabled", NULL, 8, NULL), -EINVAL);
}

Test(read_file, a_procfs_file_larger_than_a_page)
{
	/* seq_file returns at most a page per read(): a single read would stop
	 * there. /proc/self/smaps of any process is larger than a page. */
	char buf[16384];
	int cut = 0;
	ssize_t n = lsc__read_file("/proc", "self/smaps", buf, sizeof(buf), &cut);

	if (n == -ENOENT)
		cr_skip_test("no /proc/self/smaps on this system");
	cr_assert_gt(n, 4096, "read %zd bytes", n);
	cr_assert_eq((size_t)n, strlen(buf));
}

Test(read_lines, a_cut_file_loses_its_partial_last_line)
{
	char buf[40]; /* the first meminfo line is 28 bytes, the second is cut */

	cr_assert_eq(lsc__read_lines(HOST "/proc", "meminfo", buf, sizeof(buf)), 28);
	cr_assert_str_eq(buf, "MemTotal:       24683620 kB\n");
}

Test(read_lines, a_first_line_longer_than_the_buffer_leaves_nothing)
{
	char buf[8192];

	/* garbage/proc/meminfo starts with one 100 KiB line */
	cr_assert_eq(lsc__read_lines(GARB "/proc", "meminfo", buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "");
}

Test(read_lines, a_whole_file_is_unchanged)
{
	char buf[8192];
	struct stat st;

	cr_assert_eq(stat(HOST "/proc/meminfo", &st), 0);
	cr_assert_eq(lsc__read_lines(HOST "/proc", "meminfo", buf, sizeof(buf)), st.st_size);
}

/* Short reads and EINTR, given by the readers' system-call table
 * (procfs.h) at known calls: the open is interrupted once, then every
 * other read is interrupted and the rest return at most 5 bytes. The loop
 * must retry both and keep every piece; any other error fails the read
 * with nothing kept. */
static struct {
	unsigned opens, reads, eintrs, shorts;
	int fail_read_at; /* this read call (1-based) fails with EIO; 0 never */
} rd;

static int choppy_open(const char *path, int flags)
{
	if (rd.opens++ == 0) {
		errno = EINTR;
		return -1;
	}
	return open(path, flags);
}

static ssize_t choppy_read(int fd, void *buf, size_t len)
{
	unsigned n = ++rd.reads;
	if ((int)n == rd.fail_read_at) {
		errno = EIO;
		return -1;
	}
	if (n % 2) {
		rd.eintrs++;
		errno = EINTR;
		return -1;
	}
	if (len > 5) {
		len = 5;
		rd.shorts++;
	}
	return read(fd, buf, len);
}

static const struct lsc__procfs_sys choppy = {.open = choppy_open, .read = choppy_read};

Test(read_file, short_reads_and_eintr_are_retried)
{
	char buf[64];

	memset(&rd, 0, sizeof(rd));
	lsc__procfs_sys_set(&choppy);
	ssize_t n = lsc__read_file(HOST "/sys", THP "enabled", buf, sizeof(buf), NULL);
	lsc__procfs_sys_set(NULL);
	cr_assert_eq(n, 23, "read %zd: '%s'", n, buf);
	cr_assert_str_eq(buf, "always [madvise] never\n");
	/* 23 bytes in 5-byte pieces: 5 reads with data and the one that says
	 * EOF, each after an EINTR; the open once interrupted. */
	cr_assert_eq(rd.opens, 2);
	cr_assert_eq(rd.eintrs, 6, "%u reads interrupted", rd.eintrs);
	cr_assert_eq(rd.reads, 12);
	cr_assert_eq(rd.shorts, 6);
}

Test(read_file, an_error_mid_file_keeps_nothing)
{
	char buf[64];

	memset(&rd, 0, sizeof(rd));
	rd.fail_read_at = 6; /* after two 5-byte pieces */
	lsc__procfs_sys_set(&choppy);
	ssize_t n = lsc__read_file(HOST "/sys", THP "enabled", buf, sizeof(buf), NULL);
	lsc__procfs_sys_set(NULL);
	cr_assert_eq(n, -EIO);
	cr_assert_str_eq(buf, "");
}

/* ---- lsc__parse_i64 ----------------------------------------------------- */

struct i64_case {
	const char *in;
	int ret;
	int64_t v;
};

Test(parse_i64, table)
{
	static const struct i64_case cases[] = {
		{"0", 0, 0},
		{"2097152\n", 0, 2097152},
		{"  42 \t\n", 0, 42},
		{"-5", 0, -5},
		{"+7", 0, 7},
		{"9223372036854775807", 0, INT64_MAX},
		{"-9223372036854775808", 0, INT64_MIN},
		{"9223372036854775808", -ERANGE, 0},
		{"-9223372036854775809", -ERANGE, 0},
		{"99999999999999999999999", -ERANGE, 0},
		{"", -EINVAL, 0},
		{" \n", -EINVAL, 0},
		{"-", -EINVAL, 0},
		{"--1", -EINVAL, 0},
		{"12x", -EINVAL, 0},
		{"2097152abc\n", -EINVAL, 0},
		{"1 2", -EINVAL, 0},
		{"0x10", -EINVAL, 0},
		{"1.5", -EINVAL, 0},
		{"\377", -EINVAL, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct i64_case *c = &cases[i];
		int64_t v = 12345;
		int ret = lsc__parse_i64(c->in, c->in + strlen(c->in), &v);

		cr_assert_eq(ret, c->ret, "'%s': ret %d, want %d", c->in, ret, c->ret);
		if (c->ret == 0)
			cr_assert_eq(v, c->v, "'%s': %lld", c->in, (long long)v);
		else
			cr_assert_eq(v, 12345, "'%s': output written on error", c->in);
	}
}

Test(parse_i64, stops_at_the_given_end)
{
	const char *s = "123456";
	int64_t v;

	cr_assert_eq(lsc__parse_i64(s, s + 3, &v), 0);
	cr_assert_eq(v, 123);
}

/* ---- lsc__sysfs_choice ------------------------------------------------- */

struct choice_case {
	const char *in;
	int ret;
	const char *out;
};

Test(sysfs_choice, table)
{
	static const struct choice_case cases[] = {
		{"always [madvise] never\n", 0, "madvise"},
		{"[always] madvise never\n", 0, "always"},
		{"always madvise [never]\n", 0, "never"},
		{"[always] defer defer+madvise madvise never\n", 0, "always"},
		{"always defer defer+madvise [madvise] never\n", 0, "madvise"},
		{"always defer [defer+madvise] madvise never\n", 0, "defer+madvise"},
		{"always within_size advise [never] deny force\n", 0, "never"},
		{"always [inherit] madvise never\n", 0, "inherit"},
		{"madvise\n", 0, "madvise"},        /* a bare single word */
		{"  never  ", 0, "never"},
		{"[never]", 0, "never"},
		{"", -EINVAL, ""},
		{"\n", -EINVAL, ""},
		{"[madv", -EINVAL, ""},
		{"always madvise never\n", -EINVAL, ""}, /* no brackets, several words */
		{"[always] [madvise] never\n", -EINVAL, ""},
		{"[]", -EINVAL, ""},
		{"[ always]", -EINVAL, ""},
		{"[Always] never", -EINVAL, ""},
		{"[always]x never", -EINVAL, ""},
		{"x[always] never", -EINVAL, ""},
		{"always [madvise] never]", -EINVAL, ""},
		{"always ]madvise[ never", -EINVAL, ""},
		{"\001\377\033[1m", -EINVAL, ""},
		{"always\0[madvise]", 0, "always"}, /* a NUL ends the text */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct choice_case *c = &cases[i];
		char out[24] = "stale";
		int ret = lsc__sysfs_choice(c->in, out, sizeof(out));

		cr_assert_eq(ret, c->ret, "'%s': ret %d, want %d", c->in, ret, c->ret);
		cr_assert_str_eq(out, c->out, "'%s': got '%s'", c->in, out);
	}
}

Test(sysfs_choice, a_word_that_does_not_fit_is_erange_and_empty)
{
	char out[8] = "stale";

	cr_assert_eq(lsc__sysfs_choice("always [defer+madvise]", out, sizeof(out)), -ERANGE);
	cr_assert_str_eq(out, "");
	cr_assert_eq(lsc__sysfs_choice("[madvise]", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "madvise");
}

Test(sysfs_choice, null_arguments)
{
	char out[8] = "stale";

	cr_assert_eq(lsc__sysfs_choice(NULL, out, sizeof(out)), -EINVAL);
	cr_assert_str_eq(out, "");
	cr_assert_eq(lsc__sysfs_choice("[never]", NULL, 8), -EINVAL);
	cr_assert_eq(lsc__sysfs_choice("[never]", out, 0), -EINVAL);
}

static void assert_choice_file(const char *root, const char *rel, int ret, const char *want)
{
	char buf[256], out[24];

	cr_assert_geq(lsc__read_file(root, rel, buf, sizeof(buf), NULL), 0, "%s/%s", root, rel);
	cr_assert_eq(lsc__sysfs_choice(buf, out, sizeof(out)), ret, "%s/%s", root, rel);
	cr_assert_str_eq(out, want, "%s/%s", root, rel);
}

Test(sysfs_choice, every_fixture_file)
{
	assert_choice_file(HOST "/sys", THP "enabled", 0, "madvise");
	assert_choice_file(HOST "/sys", THP "defrag", 0, "madvise");
	assert_choice_file(HOST "/sys", THP "shmem_enabled", 0, "never");
	assert_choice_file(HOST "/sys", THP "hugepages-2048kB/enabled", 0, "inherit");
	assert_choice_file(HOST "/sys", THP "hugepages-64kB/enabled", 0, "never");
	assert_choice_file(HOST "/sys", THP "hugepages-64kB/shmem_enabled", 0, "never");
	assert_choice_file(ADM "/sys", THP "enabled", 0, "always");
	assert_choice_file(ADM "/sys", THP "defrag", 0, "madvise");
	assert_choice_file(ADM "/sys", THP "hugepages-64kB/enabled", 0, "madvise");
	assert_choice_file(OLD "/sys", THP "enabled", 0, "always");
	assert_choice_file(OLD "/sys", THP "defrag", 0, "never");
	assert_choice_file(GARB "/sys", THP "enabled", -EINVAL, "");
	assert_choice_file(GARB "/sys", THP "defrag", -EINVAL, "");
	assert_choice_file(GARB "/sys", THP "shmem_enabled", -EINVAL, "");
	assert_choice_file(GARB "/sys", THP "khugepaged/defrag", -EINVAL, "");
	assert_choice_file(GARB "/sys", THP "hugepages-64kB/enabled", -EINVAL, "");
}

/* The word the kernel marked: "[word]" in the file, or the file's only
 * word (any other word of the file is one the kernel did not select). */
static void assert_selected(const char *text, const char *word)
{
	char marked[32], alone[32];
	snprintf(marked, sizeof(marked), "[%s]", word);
	snprintf(alone, sizeof(alone), "%s\n", word);
	cr_assert(strstr(text, marked) != NULL || !strcmp(text, alone), "'%s' is not the choice in '%s'",
		  word, text);
}

Test(sysfs_choice, the_real_files)
{
	char buf[256], out[24];

	if (lsc__read_file("/sys", THP "enabled", buf, sizeof(buf), NULL) < 0)
		cr_skip_test("no /sys/" THP "enabled here (THP not built in, or a container)");
	cr_assert_eq(lsc__sysfs_choice(buf, out, sizeof(out)), 0, "'%s'", buf);
	cr_assert(!strcmp(out, "always") || !strcmp(out, "madvise") || !strcmp(out, "never"), "%s",
		  out);
	assert_selected(buf, out);
	cr_assert_geq(lsc__read_file("/sys", THP "defrag", buf, sizeof(buf), NULL), 0);
	cr_assert_eq(lsc__sysfs_choice(buf, out, sizeof(out)), 0, "'%s'", buf);
	cr_assert(!strcmp(out, "always") || !strcmp(out, "defer") || !strcmp(out, "defer+madvise") ||
			  !strcmp(out, "madvise") || !strcmp(out, "never"),
		  "%s", out);
	assert_selected(buf, out);
}

/* ---- "Key:  123 kB" lines ---------------------------------------------- */

static const char *slurp(const char *root, const char *rel)
{
	static char buf[65536];

	cr_assert_geq(lsc__read_lines(root, rel, buf, sizeof(buf)), 0, "%s/%s", root, rel);
	return buf;
}

Test(kv, meminfo_of_this_machine)
{
	const char *m = slurp(HOST "/proc", "meminfo");
	int64_t v = 0;
	int kib = -1;

	cr_assert_eq(lsc__kv_i64(m, "MemTotal", &v, &kib), 0);
	cr_assert_eq(v, 24683620);
	cr_assert_eq(kib, 1);
	cr_assert_eq(lsc__kv_kib(m, "MemAvailable", &v), 0);
	cr_assert_eq(v, 24345512);
	cr_assert_eq(lsc__kv_kib(m, "Hugepagesize", &v), 0);
	cr_assert_eq(v, 2048);
	cr_assert_eq(lsc__kv_i64(m, "HugePages_Total", &v, &kib), 0);
	cr_assert_eq(v, 0);
	cr_assert_eq(kib, 0);
	cr_assert_eq(lsc__kv_kib(m, "HugePages_Total", &v), -EINVAL, "no unit: not a kB value");
	/* exact key: a prefix or a suffix of a key never matches */
	cr_assert_eq(lsc__kv_kib(m, "MemTota", &v), -ENOENT);
	cr_assert_eq(lsc__kv_kib(m, "Total", &v), -ENOENT);
	cr_assert_eq(lsc__kv_kib(m, "Active", &v), 0);
	cr_assert_eq(v, 183336);
	cr_assert_eq(lsc__kv_kib(m, "Active(anon)", &v), 0);
	cr_assert_eq(v, 1552);
	cr_assert_eq(lsc__kv_kib(m, "VmallocTotal", &v), 0);
	cr_assert_eq(v, 34359738367);
}

Test(kv, meminfo_of_other_kernels)
{
	const char *m = slurp(ADM "/proc", "meminfo");
	int64_t v = 0;
	int kib;

	cr_assert_eq(lsc__kv_i64(m, "HugePages_Free", &v, &kib), 0);
	cr_assert_eq(v, 4);
	cr_assert_eq(lsc__kv_i64(m, "HugePages_Rsvd", &v, &kib), 0);
	cr_assert_eq(v, 2);
	m = slurp(CONT "/proc", "meminfo");
	cr_assert_eq(lsc__kv_kib(m, "MemAvailable", &v), 0);
	cr_assert_eq(v, 12104512);
	cr_assert_eq(lsc__kv_i64(m, "HugePages_Total", &v, &kib), -ENOENT);
	cr_assert_eq(lsc__kv_kib(m, "Hugepagesize", &v), -ENOENT);
}

Test(kv, junk_units_and_overflow)
{
	const char *t = "A:   12 kB trailing\n"
			"B:\t\001\002 kB\n"
			"C:    5 MB\n"
			"D: 99999999999999999999 kB\n"
			"E:\n"
			"F:  -3 kB\n"
			"G: 7 kB";
	int64_t v = 77;
	int kib;

	cr_assert_eq(lsc__kv_kib(t, "A", &v), -EINVAL);
	cr_assert_eq(lsc__kv_kib(t, "B", &v), -EINVAL);
	cr_assert_eq(lsc__kv_kib(t, "C", &v), -EINVAL);
	cr_assert_eq(lsc__kv_kib(t, "D", &v), -ERANGE);
	cr_assert_eq(lsc__kv_kib(t, "E", &v), -EINVAL);
	cr_assert_eq(lsc__kv_kib(t, "F", &v), -EINVAL, "a size is never negative");
	cr_assert_eq(v, 77, "output written on error");
	cr_assert_eq(lsc__kv_i64(t, "F", &v, &kib), 0);
	cr_assert_eq(v, -3);
	cr_assert_eq(lsc__kv_kib(t, "G", &v), 0, "the last line needs no newline");
	cr_assert_eq(v, 7);
	cr_assert_eq(lsc__kv_kib(NULL, "G", &v), -ENOENT);
}

Test(kv, word)
{
	const char *t = "THP_enabled:\t1\nName:\tmy prog\nEmpty:\t\nCapEff:\t000001fffeffffff\n";
	char out[8] = "stale";

	cr_assert_eq(lsc__kv_word(t, "THP_enabled", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "1");
	cr_assert_eq(lsc__kv_word(t, "Name", out, sizeof(out)), -EINVAL);
	cr_assert_str_eq(out, "");
	cr_assert_eq(lsc__kv_word(t, "Empty", out, sizeof(out)), -EINVAL);
	cr_assert_eq(lsc__kv_word(t, "CapEff", out, sizeof(out)), -ERANGE);
	cr_assert_str_eq(out, "");
	cr_assert_eq(lsc__kv_word(t, "Nope", out, sizeof(out)), -ENOENT);
}

/* ---- buddyinfo ---------------------------------------------------------- */

Test(buddy, this_machine_in_2mib_blocks)
{
	const char *b = slurp(HOST "/proc", "buddyinfo");

	/* order 9 (2 MiB) and 10 (4 MiB) columns of the copied file:
	 * DMA 1 + 3, DMA32 2 + 752, Normal 0 + 251 */
	cr_assert_eq(lsc__buddy_free_bytes(b, 9, 4096), (1 * 2 + 3 * 4 + 2 * 2 + 752 * 4 + 251 * 4) * MIB);
	cr_assert_eq(lsc__buddy_free_bytes(b, 10, 4096), (3 + 752 + 251) * 4 * MIB);
	cr_assert_eq(lsc__buddy_free_bytes(b, 11, 4096), 0);
	/* order 0 and up is all free memory in the buddy allocator */
	cr_assert_eq(lsc__buddy_free_bytes(b, 0, 4096),
		     4096LL * (1 * 256 + 1 * 512 + 3 * 1024 +
			       (2 + 3 * 2 + 0 * 4 + 2 * 8 + 3 * 16 + 2 * 32 + 1 * 64 + 4 * 128 +
				4 * 256 + 2 * 512 + 752 * 1024) +
			       (2909 + 1061 * 2 + 448 * 4 + 283 * 8 + 121 * 16 + 80 * 32 + 28 * 64 +
				9 * 128 + 7 * 256 + 0 * 512 + 251 * 1024)));
}

Test(buddy, two_nodes_fragmented)
{
	const char *b = slurp(ADM "/proc", "buddyinfo");

	/* DMA 1x2M + 3x4M, node 0 Normal 1x2M, node 1 Normal 1x4M */
	cr_assert_eq(lsc__buddy_free_bytes(b, 9, 4096), 20 * MIB);
}

Test(buddy, larger_pages_scale_the_blocks)
{
	const char *b = "Node 0, zone   Normal      1      0      2 \n";

	/* 64 KiB pages (arm64): order 2 is 256 KiB */
	cr_assert_eq(lsc__buddy_free_bytes(b, 2, 65536), 2 * 256 * 1024);
	cr_assert_eq(lsc__buddy_free_bytes(b, 0, 65536), 65536 + 2 * 256 * 1024);
}

Test(buddy, garbage)
{
	cr_assert_eq(lsc__buddy_free_bytes(slurp(GARB "/proc", "buddyinfo"), 9, 4096), -EINVAL);
	cr_assert_eq(lsc__buddy_free_bytes("", 9, 4096), -EINVAL);
	cr_assert_eq(lsc__buddy_free_bytes("Node 0, zone   Normal\n", 9, 4096), -EINVAL);
	cr_assert_eq(lsc__buddy_free_bytes("Node 0, zone\n", 9, 4096), -EINVAL);
	cr_assert_eq(lsc__buddy_free_bytes("Node x, zone Normal 1\n", 0, 4096), -EINVAL);
	cr_assert_eq(lsc__buddy_free_bytes("Node 0 zone Normal 1\n", 0, 4096), -EINVAL);
	cr_assert_eq(lsc__buddy_free_bytes("Node 0, zone Normal 1 -2\n", 0, 4096), -EINVAL);
	cr_assert_eq(lsc__buddy_free_bytes("Node 0, zone Normal 1 2x\n", 0, 4096), -EINVAL);
	cr_assert_eq(lsc__buddy_free_bytes("Node 0, zone Normal 1\n\nNode 0, zone DMA 1\n", 0, 4096),
		     -EINVAL);
	cr_assert_eq(lsc__buddy_free_bytes(NULL, 9, 4096), -EINVAL);
	cr_assert_eq(lsc__buddy_free_bytes("Node 0, zone Normal 1\n", 0, 0), -EINVAL);
}

Test(buddy, overflow_is_erange)
{
	cr_assert_eq(lsc__buddy_free_bytes("Node 0, zone Normal 0 0 0 0 0 0 0 0 0 0 9999999999999999\n",
					   9, 4096),
		     -ERANGE);
	cr_assert_eq(lsc__buddy_free_bytes("Node 0, zone Normal 2251799813685247\n"
					   "Node 0, zone DMA 2251799813685247\n",
					   0, 4096),
		     -ERANGE);
	/* a zero count in an absurd order is harmless */
	cr_assert_eq(lsc__buddy_free_bytes("Node 0, zone Normal 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
					   "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
					   "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
					   0, 4096),
		     4096);
}

/* ---- /proc/self/status -------------------------------------------------- */

Test(status, fixtures)
{
	struct lsc__status s;

	cr_assert_eq(lsc__status_read(HOST "/proc", &s), 0);
	cr_assert_eq(s.rss_kib, 83424);
	cr_assert_eq(s.lck_kib, 4096);
	cr_assert_eq(s.pin_kib, 0);
	cr_assert_str_eq(s.thp_enabled, "1");
	cr_assert_eq(s.cap_ipc_lock, 1);

	cr_assert_eq(lsc__status_read(ADM "/proc", &s), 0);
	cr_assert_eq(s.rss_kib, 41943040);
	cr_assert_eq(s.lck_kib, 0);
	cr_assert_eq(s.pin_kib, 29851648);

	cr_assert_eq(lsc__status_read(OLD "/proc", &s), 0);
	cr_assert_eq(s.rss_kib, 712);
	cr_assert_eq(s.pin_kib, 0);
	cr_assert_str_eq(s.thp_enabled, "", "4.4 has no THP_enabled");
	cr_assert_eq(s.cap_ipc_lock, 0);

	cr_assert_eq(lsc__status_read(CONT "/proc", &s), 0);
	cr_assert_eq(s.rss_kib, 3198976);
	cr_assert_eq(s.lck_kib, -1, "gVisor-style status has no VmLck");
	cr_assert_eq(s.pin_kib, -1);
	cr_assert_str_eq(s.thp_enabled, "");
	cr_assert_eq(s.cap_ipc_lock, 0, "docker's default CapEff lacks CAP_IPC_LOCK");
}

Test(status, garbage_is_na)
{
	struct lsc__status s;

	cr_assert_eq(lsc__status_read(GARB "/proc", &s), 0);
	cr_assert_eq(s.rss_kib, -1);
	cr_assert_eq(s.lck_kib, -1);
	cr_assert_eq(s.pin_kib, -1);
	cr_assert_str_eq(s.thp_enabled, "", "THP_enabled 2 is not a value");
	cr_assert_eq(s.cap_ipc_lock, -1);
}

Test(status, missing_file)
{
	struct lsc__status s;

	cr_assert_eq(lsc__status_read(FX "/no-such-tree/proc", &s), -ENOENT);
	cr_assert_eq(s.rss_kib, -1);
	cr_assert_eq(s.lck_kib, -1);
	cr_assert_eq(s.pin_kib, -1);
	cr_assert_str_eq(s.thp_enabled, "");
	cr_assert_eq(s.cap_ipc_lock, -1);
	cr_assert_eq(lsc__status_read(NULL, NULL), -EINVAL);
}

Test(status, the_real_process)
{
	struct lsc__status s;

	cr_assert_eq(lsc__status_read(NULL, &s), 0);
	cr_assert_gt(s.rss_kib, 0);
	cr_assert_geq(s.lck_kib, 0);
	cr_assert_geq(s.pin_kib, 0);
	if (!s.thp_enabled[0])
		cr_skip_test("kernel without THP_enabled in /proc/self/status");
	/* Turning THP off for the process shows in its status at once. */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0)
		cr_skip_test("PR_SET_THP_DISABLE failed: %s", strerror(errno));
	cr_assert_eq(lsc__status_read(NULL, &s), 0);
	cr_assert_str_eq(s.thp_enabled, "0");
}
