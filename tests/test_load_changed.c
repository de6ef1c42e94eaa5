/*
 * Description: what counts as "the file changed during the load". The
 * descriptor the load reads holds the inode it opened, so a chmod, a hard
 * link, or a new file renamed over the path (how model downloaders update
 * files) leave the bytes read whole: each passes, and the arena holds the
 * bytes of the file as it was opened (a `note` line says when the path now
 * names another file). A write in place or an append fails the load with
 * LSC_E_CHANGED and a line that says the file was written, showing the
 * mtime or size that moved. Each change is made from the syscall shim at
 * the second pread of the load, so it lands between reads, every time.
 *
 * The file's mtime is set to 2020 first, and the test waits for the coarse
 * clock (which stamps inodes) to pass its ctime, so that each change
 * really moves ctime: the precondition the old check failed on, asserted.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "helpers/load_helpers.h"
#include "sys/sys.h"

#define SIZE ((4u << 20) + 100)

static struct lsct_capture cap;
static struct lsc__sys shim;
enum act { A_CHMOD, A_LINK, A_RENAME, A_WRITE, A_APPEND };
static struct {
	enum act act;
	const char *path;
	char other[512];
	int n_pread;
	int held; /* the original inode, opened by the test before a rename */
} F;

static void act(void)
{
	switch (F.act) {
	case A_CHMOD:
		cr_assert_eq(chmod(F.path, 0400), 0);
		break;
	case A_LINK:
		cr_assert_eq(link(F.path, F.other), 0, "%s", strerror(errno));
		break;
	case A_RENAME:
		F.held = open(F.path, O_RDONLY | O_CLOEXEC);
		cr_assert(F.held >= 0);
		cr_assert_eq(rename(F.other, F.path), 0, "%s", strerror(errno));
		break;
	case A_WRITE:
	case A_APPEND: {
		int fd = open(F.path, O_WRONLY | O_CLOEXEC | (F.act == A_APPEND ? O_APPEND : 0));
		cr_assert(fd >= 0);
		char junk[4096];
		memset(junk, 0x5a, sizeof(junk));
		cr_assert_eq(pwrite(fd, junk, sizeof(junk), 0), (ssize_t)sizeof(junk));
		close(fd);
		break;
	}
	}
}

static ssize_t f_pread(int fd, void *buf, size_t len, off_t off)
{
	if (++F.n_pread == 2)
		act();
	return pread(fd, buf, len, off);
}

static void setup(void)
{
	memset(&F, 0, sizeof(F));
	F.held = -1;
	shim = lsc__sys_default;
	shim.pread = f_pread;
	lsc__sys_set(&shim);
}

static void teardown(void)
{
	lsc__sys_set(NULL);
	if (F.held >= 0)
		close(F.held);
	lsct_capture_reset(&cap);
}

TestSuite(load_changed, .init = setup, .fini = teardown);

static int ts_le(struct timespec a, struct timespec b)
{
	return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec <= b.tv_nsec);
}

/* A file with an old mtime and a ctime strictly in the past. */
static char *old_file(const char *name, struct stat *st0)
{
	char *path = strdup(lsct_make_file(name, SIZE, 77));
	struct timespec t[2] = {{1577836800, 0}, {1577836800, 0}}; /* 2020-01-01 */
	cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0);
	cr_assert_eq(stat(path, st0), 0);
	struct timespec now;
	do
		clock_gettime(CLOCK_REALTIME_COARSE, &now);
	while (ts_le(now, st0->st_ctim));
	return path;
}

static int load(const char *path, lsc_arena **a)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	o.staging_count = 2;
	o.staging_bytes = 1u << 20;
	o.queue_depth = 2;
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	int fds = lsct_open_fds();
	int ret = lsc_load(p, &o, &e, 1, 0, a);
	cr_assert_eq(lsct_open_fds(), fds + (F.held >= 0), "a descriptor was left open");
	lsc_profiler_destroy(p);
	return ret;
}

/* The load passed and the arena is @want, the file as it was opened. */
static void passes(const char *path, const unsigned char *want)
{
	lsc_arena *a = NULL;
	int ret = load(path, &a);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "%s", lsc_strerror(ret));
	cr_assert_eq(F.n_pread > 2, 1, "the change was not made during the load");
	cr_assert_eq(lsc_arena_size(a), SIZE);
	cr_assert(memcmp(lsc_arena_data(a), want, SIZE) == 0, "the arena is not the opened file");
	cr_assert_eq(lsct_count(&cap, "error"), 0);
	lsc_arena_destroy(a);
}

static void ctime_moved(int fd_or_neg, const char *path, const struct stat *st0)
{
	struct stat st;
	cr_assert_eq(fd_or_neg >= 0 ? fstat(fd_or_neg, &st) : stat(path, &st), 0);
	cr_assert(!ts_le(st.st_ctim, st0->st_ctim), "ctime did not move");
	cr_assert_eq(st.st_mtim.tv_sec, 1577836800);
}

Test(load_changed, chmod_during_the_load_passes)
{
	struct stat st0;
	char *path = old_file("chmod.bin", &st0);
	uint64_t n;
	unsigned char *want = lsct_read_file(path, &n);
	F.act = A_CHMOD;
	F.path = path;
	passes(path, want);
	ctime_moved(-1, path, &st0);
	free(want);
	free(path);
}

Test(load_changed, hard_link_during_the_load_passes)
{
	struct stat st0;
	char *path = old_file("link.bin", &st0);
	uint64_t n;
	unsigned char *want = lsct_read_file(path, &n);
	F.act = A_LINK;
	F.path = path;
	snprintf(F.other, sizeof(F.other), "%s/link2.bin", lsct_tmpdir());
	passes(path, want);
	ctime_moved(-1, path, &st0);
	free(want);
	free(path);
}

Test(load_changed, rename_over_during_the_load_passes_with_a_note)
{
	struct stat st0;
	char *path = old_file("renamed.bin", &st0);
	uint64_t n;
	unsigned char *want = lsct_read_file(path, &n);
	char *newer = strdup(lsct_make_file("renamed.new", SIZE, 78));
	F.act = A_RENAME;
	F.path = path;
	snprintf(F.other, sizeof(F.other), "%s", newer);
	passes(path, want);
	ctime_moved(F.held, NULL, &st0);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	int found = 0;
	for (unsigned k = 0; !found && lsct_find(&cap, "note", k, buf, sizeof(buf), &pl); k++)
		found = strstr(pl.human, "was replaced or removed during the load; the arena holds "
					 "the file as it was opened") != NULL;
	if (!found)
		lsct_dump(&cap);
	cr_assert(found, "no note that the path was replaced");
	free(newer);
	free(want);
	free(path);
}

static void fails_written(enum act a, const char *name, const char *says)
{
	struct stat st0;
	char *path = old_file(name, &st0);
	F.act = a;
	F.path = path;
	lsc_arena *ar = NULL;
	int ret = load(path, &ar);
	if (ret != LSC_E_CHANGED)
		lsct_dump(&cap);
	cr_assert_eq(ret, LSC_E_CHANGED, "%s", lsc_strerror(ret));
	cr_assert_null(ar);
	cr_assert_eq(lsct_count(&cap, "error"), 1);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "path"), path);
	cr_assert_str_eq(lsc__parsed_get(&pl, "err"), "LSC_E_CHANGED");
	cr_assert(strstr(pl.human, "the file was written during the load"), "%s", pl.human);
	cr_assert(strstr(pl.human, says), "%s", pl.human);
	cr_assert(strstr(pl.human, "the arena may hold bytes of both versions"), "%s", pl.human);
	free(path);
}

Test(load_changed, write_in_place_during_the_load_fails)
{
	fails_written(A_WRITE, "written.bin", "mtime 1577836800.000000000 -> ");
}

Test(load_changed, append_during_the_load_fails)
{
	fails_written(A_APPEND, "grown.bin", "size 4194404 -> 4198500 bytes");
}
