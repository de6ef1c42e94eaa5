/*
 * The test locales (see comma_locale.h). Each compiled into a temporary
 * directory and renamed into place, so test programs run side by side never
 * see half a locale.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/comma_locale.h"

static int have(const char *dir, const char *name)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof(p), "%s/%s/LC_CTYPE", dir, name);
	return access(p, R_OK) == 0;
}

/* Compile @src in @charmap as @name (once per build tree) beside the test
 * program and setlocale(LC_ALL, @name) it; skip loudly where that fails. */
static void use_locale(const char *src, const char *charmap, const char *name)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	cr_assert_gt(n, 0);
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	cr_assert_not_null(slash);
	*slash = '\0';
	char dir[PATH_MAX + 32], tmp[PATH_MAX + 32], cmd[3 * PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/locale", exe);
	if (!have(dir, name)) {
		snprintf(tmp, sizeof(tmp), "%s/locale.%d", exe, (int)getpid());
		mkdir(tmp, 0755);
		/* localedef exits 1 for warnings in Debian's sources; what counts is
		 * the compiled locale. */
		snprintf(cmd, sizeof(cmd), "localedef -i %s -f %s '%s/%s' >/dev/null 2>&1", src, charmap,
			 tmp, name);
		int rc = system(cmd);
		if (!have(tmp, name)) {
			snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
			(void)!system(cmd);
			cr_skip_test("SKIP: cannot compile %s with localedef (rc %d): install the "
				     "locales package (its %s source and %s charmap)", name, rc, src, charmap);
		}
		/* Into place one locale at a time: the directory may exist already
		 * with the other locale, or another test program was first. */
		mkdir(dir, 0755);
		char from[2 * PATH_MAX], to[2 * PATH_MAX];
		snprintf(from, sizeof(from), "%s/%s", tmp, name);
		snprintf(to, sizeof(to), "%s/%s", dir, name);
		if (rename(from, to) != 0 && !have(dir, name))
			cr_skip_test("SKIP: cannot move %s into %s", name, dir);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		(void)!system(cmd);
	}
	setenv("LOCPATH", dir, 1);
	if (!setlocale(LC_ALL, name))
		cr_skip_test("SKIP: setlocale(%s) failed with LOCPATH=%s", name, dir);
}

void lsct_comma_locale(void)
{
	use_locale("de_DE", "UTF-8", "de_DE.UTF-8");
	if (strcmp(localeconv()->decimal_point, ","))
		cr_skip_test("SKIP: de_DE.UTF-8 has decimal point '%s', not ','",
			     localeconv()->decimal_point);
}

void lsct_turkish_locale(void)
{
	use_locale("tr_TR", "UTF-8", "tr_TR.UTF-8");
	/* The locale's own folding (strcasecmp under ASan is the sanitizer's,
	 * in ASCII, so it is not asked) */
	if (tolower('I') == 'i')
		cr_skip_test("SKIP: tr_TR.UTF-8 folds I to i here, so it cannot show the dotless i");
}
