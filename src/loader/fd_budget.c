/*
 * The descriptors a load may take. A load holds one descriptor per
 * distinct file of its manifest, plus the io_uring ring's, for its whole
 * duration (none once it returns). Opening them until EMFILE would fail
 * cleanly, but meanwhile every other thread of the engine finds the table
 * full (its own open() fails); so a manifest that would leave fewer than
 * LSC__FD_HEADROOM descriptors of RLIMIT_NOFILE to the rest of the process
 * is refused before the first open, with one line giving the figures.
 * The count of open descriptors comes from <proc_root>/self/fd; where that
 * cannot be read there is no check (open() still fails cleanly).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>

#include "loader/load_state.h"
#include "profiler/internal.h"

static long open_now(lsc_profiler *p)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/self/fd", lsc__proc_root(p));
	DIR *d = opendir(path);
	if (!d)
		return -1;
	long n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own descriptor */
}

int lsc__fd_budget(lsc_profiler *p, unsigned n_files)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	long now = open_now(p);
	if (now < 0)
		return 0;
	unsigned long long need = (unsigned long long)n_files + LSC__FD_RING;
	unsigned long long lim = (unsigned long long)rl.rlim_cur;
	if ((unsigned long long)now + need + LSC__FD_HEADROOM <= lim)
		return 0;
	lsc__load_error(p, "open", NULL, 0, -EMFILE,
			"%u files need %llu descriptors; RLIMIT_NOFILE is %llu with %ld open, and %u "
			"are left to the rest of the process: raise it (ulimit -n)",
			n_files, need, lim, now, LSC__FD_HEADROOM);
	return -EMFILE;
}
