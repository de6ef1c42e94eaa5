/*
 * A real browser for the tests of the project's pages (triage --html, ab
 * --html): headless Chromium (Debian's `chromium`, or LSC_TEST_CHROMIUM)
 * run in a process group of its own that is killed afterwards, the page's
 * DOM dumped or a screenshot taken, and a loud skip where no browser
 * starts. One home for what the page tests share.
 */
#ifndef LSC_TESTS_BROWSER_H
#define LSC_TESTS_BROWSER_H

#include <stddef.h>
#include <stdint.h>

/* Run @argv with stdout to @out (NULL: /dev/null) in a process group of its
 * own, killed afterwards (a browser leaves helpers behind). An alarm bounds
 * a hung child; it is no synchronisation. Return the exit status, 128 +
 * signal when killed, -1 when exec failed. */
int lsct_run_argv(char *const argv[], const char *out);
/* The browser's path, or NULL when none is installed. */
const char *lsct_chromium(void);
/* Open file://@page headless, its profile under @dir: --dump-dom into
 * @dom, or a screenshot into @png. The browser's exit status. */
int lsct_browse(const char *dir, const char *page, const char *dom, const char *png);
/* Skip the test loudly unless a browser is here and renders a page of
 * @dir's. */
void lsct_need_browser(const char *dir);
/* The PNG's size from its IHDR; 0 when the file is no PNG. */
int lsct_png_size(const char *path, uint32_t *w, uint32_t *h, size_t *bytes);

#endif
