/*
 * Description: the loader's shared lines (src/loader/lines.c): one name for
 * an error whichever file met it, the LSC_E_* codes included, and one key
 * for it (`err`) on the `arena` failure line and the pin segment note as on
 * `error` lines. The fake pin tables reach the arena through the load's
 * own seam (lsc__pin_override).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/capture.h"
#include "helpers/process.h"
#include "helpers/sys_shim.h"
#include "loader/arena.h"
#include "loader/lines.h"

#define MIB (1ull << 20)
#define ARENA (8 * MIB)

static struct lsct_capture cap;

static void setup(void)
{
	unsetenv("LOADSCOPE_ARENA_THP");
}

TestSuite(loader_lines, .init = setup);

Test(loader_lines, errname_knows_errno_and_lsc_codes)
{
	cr_expect_str_eq(lsc__errname(-EIO), "EIO");
	cr_expect_str_eq(lsc__errname(-ENOMEM), "ENOMEM");
	cr_expect_str_eq(lsc__errname(EAGAIN), "EAGAIN", "a positive errno reads as its negative");
	cr_expect_str_eq(lsc__errname(EPERM), "EPERM", "errno 1, the smallest positive one");
	cr_expect_str_eq(lsc__errname(-EPERM), "EPERM");
	cr_expect_str_eq(lsc__errname(LSC_E_NODEVICE), "LSC_E_NODEVICE");
	cr_expect_str_eq(lsc__errname(LSC_E_NORUNTIME), "LSC_E_NORUNTIME");
	cr_expect_str_eq(lsc__errname(LSC_E_GPU), "LSC_E_GPU");
	cr_expect_str_eq(lsc__errname(LSC_E_HASH), "LSC_E_HASH");
	cr_expect_str_eq(lsc__errname(LSC_E_CHANGED), "LSC_E_CHANGED");
	cr_expect_str_eq(lsc__errname(LSC_E_SHORT), "LSC_E_SHORT");
	cr_expect_str_eq(lsc__errname(0), "error");
	cr_expect_str_eq(lsc__errname(-20000), "error");
}

/* A backend that allocates (and cannot register) and whose runtime fails
 * with LSC_E_GPU, leaving @why empty. */
static int gpu_alloc(size_t len, unsigned flags, void **out, char *why, size_t why_len)
{
	(void)len, (void)flags, (void)out, (void)why, (void)why_len;
	return LSC_E_GPU;
}

static void gpu_free(void *addr, size_t len)
{
	(void)addr, (void)len;
}

static int no_pin(void *addr, size_t len, unsigned flags, unsigned *retries, char *why,
		  size_t why_len)
{
	(void)addr, (void)len, (void)flags, (void)retries, (void)why, (void)why_len;
	return -EOPNOTSUPP;
}

static int no_unpin(void *addr, size_t len)
{
	(void)addr, (void)len;
	return 0;
}

static const struct lsc__pin_ops galloc = {
	.name = "galloc",
	.caps = LSC__PIN_CAP_ALLOC | LSC__PIN_CAP_LOCKS,
	.pin = no_pin,
	.unpin = no_unpin,
	.alloc = gpu_alloc,
	.free = gpu_free,
};

Test(loader_lines, gpu_error_is_named_in_the_arena_lines)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	char v[128];
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	lsc_load_options_init(&o);
	o.thp = LSC_THP_4K; /* process-off for memory the backend maps */
	lsc__pin_override(&galloc);
	cr_assert_eq(lsc__arena_alloc(p, &o, ARENA, &a), 0, "%s", cap.buf);
	cr_expect_not(a.allocated_by_pin);
	cr_assert(lsct_field(&cap, "fallback", "reason", v, sizeof v), "%s", cap.buf);
	cr_expect_str_eq(v, "galloc: LSC_E_GPU");
	lsc__arena_release(&a);

	o.flags |= LSC_LOAD_PIN_STRICT;
	cap.len = 0;
	cap.buf[0] = 0;
	cr_expect_eq(lsc__arena_alloc(p, &o, ARENA, &a), LSC_E_GPU, "%s", cap.buf);
	cr_assert(lsct_field(&cap, "arena", "err", v, sizeof v), "%s", cap.buf);
	cr_expect_str_eq(v, "LSC_E_GPU");
	cr_assert(lsct_field(&cap, "arena", "reason", v, sizeof v), "%s", cap.buf);
	cr_expect_str_eq(v, "galloc: LSC_E_GPU");
	cr_expect_eq(lsct_count_with(&cap, "arena", "error="), 0, "the old key: %s", cap.buf);
	lsc__pin_override(NULL);
	lsc_profiler_destroy(p);
}

/* A table that refuses every segment with EIO. */
static int eio_pin(void *addr, size_t len, unsigned flags, unsigned *retries, char *why,
		   size_t why_len)
{
	(void)addr, (void)len, (void)flags, (void)why, (void)why_len;
	*retries = 0;
	return -EIO;
}

static const struct lsc__pin_ops eio_ops = {
	.name = "eio",
	.caps = LSC__PIN_CAP_REGISTER | LSC__PIN_CAP_LOCKS,
	.pin = eio_pin,
	.unpin = no_unpin,
};

Test(loader_lines, segment_note_says_err)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	lsc_load_options_init(&o);
	o.thp = LSC_THP_4K;
	o.flags |= LSC_LOAD_PIN_STRICT;
	lsc__pin_override(&eio_ops);
	cr_assert_eq(lsc__arena_alloc(p, &o, ARENA, &a), 0, "%s", cap.buf);
	cr_expect_eq(lsc__arena_pin(p, &o, &a), -EIO, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "note", "segment 1/1"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "note", "err=EIO reason=\"eio: EIO\""), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "note", "error="), 0, "the old key: %s", cap.buf);
	lsc__pin_override(NULL);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}
