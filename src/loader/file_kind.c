/*
 * What a load accepts as a file, decided before anything is read: regular
 * files on a real file system, and block devices. Everything else is
 * refused with one line naming what the path is:
 *
 * - A FIFO would block open() until a writer comes (forever, for an
 *   engine), a socket cannot be opened, and a character device has no size
 *   to check a manifest against. The type is looked at with stat() before
 *   opening (opening some devices has side effects) and again with fstat()
 *   on a descriptor opened O_NONBLOCK | O_NOCTTY, so a path swapped for a
 *   FIFO in between cannot block either; O_NONBLOCK is then cleared (io_uring
 *   would answer EAGAIN to reads on a descriptor that keeps it).
 * - /proc, /sys and the other pseudo file systems report sizes that are not
 *   their content (0 for /proc files, 4096 for sysfs attributes): a "load"
 *   of one gave 0 bytes and success. They are recognised by their statfs
 *   magic, and any other regular file of size 0 that still reads a byte is
 *   refused the same way.
 * - A block device's size comes from seeking to its end (st_size is 0).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "loader/load_state.h"
#include "sys/sys.h"

int lsc__file_precheck(lsc_profiler *p, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return 0; /* open() will say why, with its own errno */
	if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))
		return 0;
	int err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	lsc__load_error(p, "open", path, 0, err, "%s, not a regular file or block device",
			lsc__file_type_name(st.st_mode));
	return err;
}

static const char *pseudo_fs(long type)
{
	switch (type) {
	case PROC_SUPER_MAGIC: return "proc";
	case SYSFS_MAGIC: return "sysfs";
	case DEBUGFS_MAGIC: return "debugfs";
	case TRACEFS_MAGIC: return "tracefs";
	case CGROUP_SUPER_MAGIC: return "cgroup";
	case CGROUP2_SUPER_MAGIC: return "cgroup2";
	case SECURITYFS_MAGIC: return "securityfs";
	case BPF_FS_MAGIC: return "bpf";
	case 0x62656570: return "configfs"; /* CONFIGFS_MAGIC, not in every linux/magic.h */
	case 0xde5e81e4: return "efivarfs"; /* EFIVARFS_MAGIC */
	default: return NULL;
	}
}

int lsc__file_check(lsc_profiler *p, struct lsc__lfile *f, const struct stat *st)
{
	if (!S_ISREG(st->st_mode) && !S_ISBLK(st->st_mode)) {
		int err = S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
		lsc__load_error(p, "open", f->path, 0, err, "%s, not a regular file or block device",
				lsc__file_type_name(st->st_mode));
		return err;
	}
	int fl = fcntl(f->fd, F_GETFL);
	if (fl < 0 || fcntl(f->fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		int err = -errno;
		lsc__load_error(p, "open", f->path, 0, err, "fcntl clearing O_NONBLOCK");
		return err;
	}
	if (S_ISBLK(st->st_mode)) {
		off_t end = lseek(f->fd, 0, SEEK_END);
		if (end < 0) {
			int err = -errno;
			lsc__load_error(p, "open", f->path, 0, err, "the size of a block device (lseek)");
			return err;
		}
		f->size = (uint64_t)end;
		return 0;
	}
	struct statfs fs;
	const char *pseudo = fstatfs(f->fd, &fs) == 0 ? pseudo_fs((long)fs.f_type) : NULL;
	if (pseudo) {
		lsc__load_error(p, "open", f->path, 0, -EINVAL,
				"a file of the %s pseudo file system: its size (%lld bytes) is not its "
				"content",
				pseudo, (long long)st->st_size);
		return -EINVAL;
	}
	f->size = (uint64_t)st->st_size;
	if (st->st_size == 0) {
		char c;
		ssize_t n = lsc__sys->pread(f->fd, &c, 1, 0);
		if (n > 0) {
			lsc__load_error(p, "open", f->path, 0, -EINVAL,
					"reports 0 bytes but has content (a pseudo file system?)");
			return -EINVAL;
		}
	}
	return 0;
}
