/*
 * The comma-decimal locale (see comma_locale.h). Compiled into a temporary
 * directory and renamed into place, so test programs run side by side never
 * see half a locale.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/comma_locale.h"

static int have(const char *dir)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof(p), "%s/de_DE.UTF-8/LC_NUMERIC", dir);
	return access(p, R_OK) == 0;
}

void lsct_comma_locale(void)
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
	if (!have(dir)) {
		snprintf(tmp, sizeof(tmp), "%s/locale.%d", exe, (int)getpid());
		mkdir(tmp, 0755);
		/* localedef exits 1 for warnings in Debian's sources; what counts is
		 * the compiled locale. */
		snprintf(cmd, sizeof(cmd),
			 "localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1", tmp);
		int rc = system(cmd);
		if (!have(tmp)) {
			snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
			(void)!system(cmd);
			cr_skip_test("SKIP: cannot compile de_DE.UTF-8 with localedef (rc %d): install "
				"the locales package (its de_DE source and UTF-8 charmap)", rc);
		}
		if (rename(tmp, dir) != 0) { /* another test program was first */
			snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
			(void)!system(cmd);
		}
	}
	setenv("LOCPATH", dir, 1);
	if (!setlocale(LC_ALL, "de_DE.UTF-8"))
		cr_skip_test("SKIP: setlocale(de_DE.UTF-8) failed with LOCPATH=%s", dir);
	if (strcmp(localeconv()->decimal_point, ","))
		cr_skip_test("SKIP: de_DE.UTF-8 from %s has decimal point '%s', not ','", dir,
			localeconv()->decimal_point);
}
