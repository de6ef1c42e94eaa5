/*
 * Description: what lsc_load accepts as a file. A FIFO (which blocked
 * open() forever), a directory, a character device, a socket, a file of
 * /proc or /sys (whose size is not its content: a /proc file "loaded" 0
 * bytes with rc 0), a size-0 file that reads a byte, and a path swapped for
 * a FIFO between the type check and open() are each refused at once with
 * one `error what=open` line naming the path and what it is, and leave no
 * descriptor open. A block device is accepted, sized by seeking to its end;
 * an empty regular file still loads 0 bytes.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "helpers/load_helpers.h"
#include "sys/sys.h"

static struct lsct_capture cap;
static struct lsc__sys shim;
static struct {
	const char *fifo_at_open; /* replace this path by a FIFO just before open() */
	int zero_size;            /* fstat reports st_size 0 */
} F;

static int f_open(const char *path, int flags, int mode)
{
	if (F.fifo_at_open && !strcmp(path, F.fifo_at_open)) {
		cr_assert_eq(unlink(path), 0);
		cr_assert_eq(mkfifo(path, 0600), 0);
	}
	return open(path, flags, mode);
}

static int f_fstat(int fd, struct stat *st)
{
	int ret = fstat(fd, st);
	if (F.zero_size && ret == 0 && S_ISREG(st->st_mode))
		st->st_size = 0;
	return ret;
}

static void setup(void)
{
	memset(&F, 0, sizeof(F));
	shim = lsc__sys_default;
	shim.open = f_open;
	shim.fstat = f_fstat;
	lsc__sys_set(&shim);
}

static void teardown(void)
{
	lsc__sys_set(NULL);
	lsct_capture_reset(&cap);
}

TestSuite(load_inputs, .init = setup, .fini = teardown, .timeout = 30);

/* The load of @path fails at once with @want and one open line whose text
 * contains @says. */
static void refused(const char *path, int want, const char *says)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	int fds = lsct_open_fds();
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	if (ret != want)
		lsct_dump(&cap);
	cr_assert_eq(ret, want, "%s: got %d (%s), want %d", path, ret, lsc_strerror(ret), want);
	cr_assert_null(a);
	cr_assert_eq(lsct_open_fds(), fds, "a descriptor was left open");
	cr_assert_eq(lsct_count(&cap, "error"), 1);
	cr_assert_eq(lsct_count(&cap, "loaded"), 0);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "what"), "open");
	cr_assert_str_eq(lsc__parsed_get(&pl, "path"), path);
	cr_assert(strstr(pl.human, says), "%s", pl.human);
	lsc_profiler_destroy(p);
}

static char *tmp_path(const char *name)
{
	char *s = malloc(512);
	snprintf(s, 512, "%s/%s", lsct_tmpdir(), name);
	return s;
}

Test(load_inputs, fifo_is_refused_without_blocking)
{
	char *path = tmp_path("pipe");
	cr_assert_eq(mkfifo(path, 0600), 0);
	refused(path, -EINVAL, "a FIFO, not a regular file or block device");
	free(path);
}

Test(load_inputs, path_swapped_for_a_fifo_before_open_does_not_block)
{
	char *path = strdup(lsct_make_file("swapped.bin", 8192, 3));
	F.fifo_at_open = path;
	refused(path, -EINVAL, "a FIFO, not a regular file or block device");
	free(path);
}

Test(load_inputs, directory_is_refused)
{
	char *path = strdup(lsct_tmpdir());
	refused(path, -EISDIR, "a directory");
	free(path);
}

Test(load_inputs, character_device_is_refused)
{
	refused("/dev/null", -EINVAL, "a character device");
}

Test(load_inputs, socket_is_refused)
{
	char *path = tmp_path("sock");
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert(s >= 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	cr_assert_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0, "%s", strerror(errno));
	refused(path, -EINVAL, "a socket");
	close(s);
	free(path);
}

Test(load_inputs, proc_file_is_refused)
{
	refused("/proc/self/status", -EINVAL, "proc pseudo file system");
}

Test(load_inputs, sysfs_file_is_refused)
{
	const char *cands[] = {"/sys/kernel/mm/transparent_hugepage/enabled", "/sys/kernel/uevent_seqnum",
			       "/sys/power/state"};
	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		if (access(cands[i], R_OK) == 0) {
			refused(cands[i], -EINVAL, "sysfs pseudo file system");
			return;
		}
	}
	cr_skip_test("no readable sysfs attribute here");
}

/* A file system unknown to the list that reports 0 bytes for content. */
Test(load_inputs, size_zero_with_content_is_refused)
{
	char *path = strdup(lsct_make_file("zero-but-not.bin", 4096, 4));
	F.zero_size = 1;
	refused(path, -EINVAL, "reports 0 bytes but has content");
	free(path);
}

Test(load_inputs, empty_regular_file_still_loads)
{
	char *path = strdup(lsct_make_file("empty.bin", 0, 0));
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, NULL, &e, 1, 0, &a), 0);
	cr_assert_eq(lsc_arena_size(a), 0);
	cr_assert_eq(lsct_count(&cap, "error"), 0);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	free(path);
}

/* Whatever block device this machine lets us read: its size comes from
 * lseek (st_size is 0), and its first bytes are loaded. */
Test(load_inputs, block_device_is_accepted)
{
	const char *cands[] = {"/dev/loop0", "/dev/loop1", "/dev/vda", "/dev/sda", "/dev/nvme0n1"};
	const char *dev = NULL;
	int fd = -1;
	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]) && fd < 0; i++) {
		struct stat st;
		if (stat(cands[i], &st) == 0 && S_ISBLK(st.st_mode) &&
		    (fd = open(cands[i], O_RDONLY | O_CLOEXEC)) >= 0)
			dev = cands[i];
	}
	if (fd < 0)
		cr_skip_test("no readable block device here");
	off_t size = lseek(fd, 0, SEEK_END);
	cr_assert(size >= 0);
	uint64_t len = size > (1 << 20) ? (1u << 20) : (uint64_t)size;
	unsigned char *want = malloc(len ? len : 1);
	cr_assert_eq(pread(fd, want, len, 0), (ssize_t)len);
	close(fd);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	struct lsc_extent e = {.path = dev, .length = len};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	if (ret)
		lsct_dump(&cap);
	cr_assert_eq(ret, 0, "%s: %s", dev, lsc_strerror(ret));
	cr_assert_eq(lsc_arena_size(a), len);
	if (len)
		cr_assert(memcmp(lsc_arena_data(a), want, len) == 0);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	free(want);
}
