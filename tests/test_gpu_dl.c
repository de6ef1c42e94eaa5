/*
 * Description: the GPU runtime loader (src/pin/gpu_dl.c): the first name
 * that loads wins, a runtime that is not installed gives LSC_E_NORUNTIME and
 * one line naming every file tried with dlopen's reason, and a symbol table
 * resolves all or nothing. Uses libc and libm as the "runtime" (always
 * present) and names that cannot exist.
 */
#include <criterion/criterion.h>
#include <string.h>

#include <loadscope/common.h>

#include "pin/gpu_dl.h"

Test(gpu_dl, not_installed_names_every_file_tried)
{
	static const char *const names[] = {"libloadscope-nope.so.13", "/nonexistent/libnope.so", NULL};
	void *h = (void *)1;
	const char *which = "x";
	char why[512] = "";
	int r = lsc__gpu_dlopen("cuda", names, &h, &which, why, sizeof(why));
	cr_log_info("%s", why);
	cr_assert_eq(r, LSC_E_NORUNTIME);
	cr_assert_null(h);
	cr_assert(strncmp(why, "cuda: libloadscope-nope.so.13 not found (dlopen: ", 49) == 0, "%s", why);
	cr_assert(strstr(why, "libloadscope-nope.so.13: "), "%s", why);
	cr_assert(strstr(why, "/nonexistent/libnope.so: "), "%s", why);
	cr_assert(strstr(why, "No such file"), "dlopen's reason is kept: %s", why);
}

Test(gpu_dl, first_name_that_loads_wins)
{
	/* glibc's libanl and libutil are always installed and never loaded by
	 * this test program. */
	static const char *const names[] = {"libloadscope-nope.so", "libanl.so.1", "libutil.so.1", NULL};
	void *h = NULL;
	const char *which = NULL;
	char why[256] = "";
	cr_assert_eq(lsc__gpu_dlopen("rt", names, &h, &which, why, sizeof(why)), 0, "%s", why);
	cr_assert_not_null(h);
	cr_assert_str_eq(which, "libanl.so.1");
}

/* A runtime the process already has wins over an earlier name in the list:
 * the engine's own cudart or HIP, never a second copy. */
Test(gpu_dl, already_loaded_runtime_wins)
{
	static const char *const names[] = {"libutil.so.1", "libc.so.6", NULL};
	void *h = NULL;
	const char *which = NULL;
	char why[256] = "";
	cr_assert_eq(lsc__gpu_dlopen("rt", names, &h, &which, why, sizeof(why)), 0, "%s", why);
	cr_assert_str_eq(which, "libc.so.6");
}

Test(gpu_dl, symbols_all_or_nothing)
{
	static const char *const names[] = {"libm.so.6", NULL};
	void *h = NULL, *a = NULL, *b = NULL;
	char why[256] = "";
	cr_assert_eq(lsc__gpu_dlopen("rt", names, &h, NULL, why, sizeof(why)), 0);
	const struct lsc__gpu_sym ok[] = {{"cos", &a}, {"sin", &b}};
	cr_assert_eq(lsc__gpu_dlsyms("rt", h, names[0], ok, 2, why, sizeof(why)), 0);
	cr_assert(a && b);
	const struct lsc__gpu_sym bad[] = {{"cos", &a}, {"cudaNope", &b}};
	cr_assert_eq(lsc__gpu_dlsyms("rt", h, names[0], bad, 2, why, sizeof(why)), LSC_E_NORUNTIME);
	cr_assert_null(a, "a partial table is reset");
	cr_assert_null(b);
	cr_assert_str_eq(why, "rt: libm.so.6 has no symbol cudaNope (runtime too old?)");
}
