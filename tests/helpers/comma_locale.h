/*
 * Locales for the tests, as an engine that calls setlocale(LC_ALL, "") has
 * them: a comma-decimal one (Germany) and a Turkish one (the dotless i),
 * compiled with localedef into a private directory beside the test program
 * (under the build tree, never the system's locale directory) and reached
 * through LOCPATH.
 */
#ifndef LSC_TESTS_COMMA_LOCALE_H
#define LSC_TESTS_COMMA_LOCALE_H

/* Make de_DE.UTF-8 (once per build tree) and setlocale(LC_ALL, ...) it in
 * this process. Skips the test loudly (cr_skip_test) when localedef or the
 * locale sources are missing, or the locale does not give ',' as the
 * decimal point. */
void lsct_comma_locale(void);

/* Make tr_TR.UTF-8 the same way and set it: tolower('I') is not 'i' there,
 * so libc's strcasecmp("STAGING", "staging") is not 0. Skips loudly as
 * above, and where the compiled locale folds I to i after all. */
void lsct_turkish_locale(void);

#endif
