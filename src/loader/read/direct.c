/*
 * Opening the files, with O_DIRECT when asked. Some filesystems refuse
 * O_DIRECT with EINVAL at open (tmpfs before 6.6, some FUSE mounts), others
 * only at the first read (llama.cpp #18766); either way the file is
 * reopened buffered and one fallback line says so, because a load that
 * quietly went through the page cache would be measured wrongly.
 *
 * Both opens are O_NONBLOCK | O_NOCTTY, so that a path that became a FIFO
 * or a terminal after the type was checked cannot block or take over the
 * process's terminal; file_kind.c checks the descriptor and clears
 * O_NONBLOCK.
 *
 * Alignment is the pipeline's job: with O_DIRECT every read covers whole
 * 4 KiB blocks into a page-aligned staging buffer and the wanted slice is
 * copied out (pipeline.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>

#include "loader/read/read.h"
#include "sys/sys.h"

int lsc__file_open(lsc_profiler *p, struct lsc__lfile *f, int direct)
{
	f->direct = 0;
	if (direct) {
		int fd = lsc__sys->open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_DIRECT, 0);
		if (fd >= 0) {
			f->fd = fd;
			f->direct = 1;
			return 0;
		}
		int err = -errno;
		if (err != -EINVAL)
			return err;
		char reason[512];
		snprintf(reason, sizeof(reason), "%s: open with O_DIRECT: EINVAL (the filesystem refuses direct I/O)",
			 f->path);
		lsc__load_fallback(p, "direct", "O_DIRECT", "buffered", reason);
	}
	int fd = lsc__sys->open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0);
	if (fd < 0)
		return -errno;
	f->fd = fd;
	return 0;
}

/* The same descriptor, with O_DIRECT cleared (Linux allows it through
 * F_SETFL): reads already queued carry its number, and closing it for a new
 * one would let another thread of the engine open a file under that number
 * and have those reads come silently from it. */
int lsc__direct_reopen(lsc_profiler *p, struct lsc__lfile *f)
{
	int fl = fcntl(f->fd, F_GETFL);
	if (fl < 0 || fcntl(f->fd, F_SETFL, fl & ~O_DIRECT) < 0)
		return -errno;
	char reason[512];
	snprintf(reason, sizeof(reason), "%s: first O_DIRECT read: EINVAL (alignment or filesystem)", f->path);
	lsc__load_fallback(p, "direct", "O_DIRECT", "buffered", reason);
	f->direct = 0;
	return f->fd;
}
