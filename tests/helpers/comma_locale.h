/*
 * A comma-decimal locale for the tests, as an engine that calls
 * setlocale(LC_ALL, "") in Germany has: de_DE.UTF-8 compiled with localedef
 * into a private directory beside the test program (under the build tree,
 * never the system's locale directory) and reached through LOCPATH.
 */
#ifndef LSC_TESTS_COMMA_LOCALE_H
#define LSC_TESTS_COMMA_LOCALE_H

/* Make de_DE.UTF-8 (once per build tree) and setlocale(LC_ALL, ...) it in
 * this process. Skips the test loudly (cr_skip_test) when localedef or the
 * locale sources are missing, or the locale does not give ',' as the
 * decimal point. */
void lsct_comma_locale(void);

#endif
