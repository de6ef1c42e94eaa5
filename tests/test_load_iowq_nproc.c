/*
 * Description: an io-wq ECANCELED is not blamed on RLIMIT_NPROC when
 * RLIMIT_NPROC is unlimited. io-wq cancels a read when it cannot start a
 * worker: the worker counts against RLIMIT_NPROC and a pids cgroup, and its
 * start is abandoned when a signal is pending on the submitting task (a
 * signal storm). Every completion is rewritten to -ECANCELED through the
 * syscall shim's uring_wait_cqe; the fallback's reason must name the
 * signal storm and say it is not RLIMIT_NPROC. Raising RLIMIT_NPROC to
 * unlimited needs CAP_SYS_RESOURCE: a loud skip without it (the finite
 * case is test_load_uring_faults.c::ecanceled_under_a_finite_nproc_names_it).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <liburing.h>
#include <string.h>
#include <sys/resource.h>

#include "helpers/load_helpers.h"
#include "sys/sys.h"

static struct lsct_capture cap;
static struct lsc__sys shim;

static int cancel_every_read(struct io_uring *ring, struct io_uring_cqe **cqe)
{
	int ret = io_uring_wait_cqe(ring, cqe);
	if (ret == 0 && (*cqe)->user_data != UINT64_MAX)
		(*cqe)->res = -ECANCELED;
	return ret;
}

Test(load_iowq_nproc, ecanceled_under_unlimited_nproc_does_not_blame_it)
{
	lsct_need_uring();
	struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
	if (setrlimit(RLIMIT_NPROC, &rl) != 0)
		cr_skip_test("cannot make RLIMIT_NPROC unlimited here (it needs CAP_SYS_RESOURCE): %s",
			     strerror(errno));
	shim = lsc__sys_default;
	shim.uring_wait_cqe = cancel_every_read;
	lsc__sys_set(&shim);
	const char *path = lsct_make_file("nproc.bin", (2u << 20) + 10, 2);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "io_uring";
	o.staging_count = 2;
	o.staging_bytes = 1u << 20;
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	int ret = lsc_load(p, &o, &e, 1, 0, &a);
	lsc__sys_set(NULL);
	cr_assert_eq(ret, 0, "%s: %s", lsc_strerror(ret), cap.buf);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find_fallback(&cap, "reader", buf, sizeof(buf), &pl), "%s", cap.buf);
	const char *why = lsc__parsed_get(&pl, "reason");
	cr_assert(strstr(why, "a signal storm"), "%s", why);
	cr_assert(strstr(why, "not RLIMIT_NPROC: unlimited"), "%s", why);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
}
