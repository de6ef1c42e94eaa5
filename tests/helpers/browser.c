/*
 * The page tests' browser (browser.h).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/browser.h"
#include "helpers/triage_run.h"

int lsct_run_argv(char *const argv[], const char *out)
{
	pid_t pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		setpgid(0, 0);
		int fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int nul = open("/dev/null", O_RDWR);
		if (fd < 0 || nul < 0)
			_exit(126);
		dup2(nul, 0);
		dup2(fd, 1);
		dup2(nul, 2);
		alarm(120);
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	kill(-pid, SIGKILL);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st) == 127 ? -1 : WEXITSTATUS(st);
}

const char *lsct_chromium(void)
{
	static const char *const names[] = {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"};
	const char *env = getenv("LSC_TEST_CHROMIUM");
	if (env && *env)
		return access(env, X_OK) ? NULL : env;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!access(names[i], X_OK))
			return names[i];
	return NULL;
}

int lsct_browse(const char *dir, const char *page, const char *dom, const char *png)
{
	const char *b = lsct_chromium();
	char prof[512], url[1024], shot[1024];
	snprintf(prof, sizeof(prof), "--user-data-dir=%s/profile-XXXXXX", dir);
	cr_assert_not_null(mkdtemp(prof + strlen("--user-data-dir=")));
	snprintf(url, sizeof(url), "file://%s", page);
	snprintf(shot, sizeof(shot), "--screenshot=%s", png ? png : "");
	char *argv[] = {(char *)b, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync", prof,
			"--window-size=1200,900", png ? shot : "--dump-dom", url, NULL};
	return lsct_run_argv(argv, dom);
}

void lsct_need_browser(const char *dir)
{
	if (!lsct_chromium())
		cr_skip_test("SKIPPED LOUDLY: no chromium (scripts/deps.sh --test installs Debian's chromium: "
			     "apt-get install -y chromium); the page was not checked in a browser");
	/* a page the browser must render: if it cannot start here, say so */
	char p[512], d[512];
	snprintf(p, sizeof p, "%s/probe.html", dir);
	snprintf(d, sizeof d, "%s/probe.dom", dir);
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f);
	fputs("<!DOCTYPE html><html><head><title>probe</title></head><body>probe-ok</body></html>", f);
	fclose(f);
	int rc = lsct_browse(dir, p, d, NULL);
	char *dom = trun_slurp(d, &(size_t){0});
	int ok = rc == 0 && dom && strstr(dom, "probe-ok");
	free(dom);
	if (!ok)
		cr_skip_test("SKIPPED LOUDLY: %s did not start headless (exit %d); the page was not checked in a browser",
			     lsct_chromium(), rc);
}

int lsct_png_size(const char *p, uint32_t *w, uint32_t *h, size_t *bytes)
{
	size_t n;
	unsigned char *b = (unsigned char *)trun_slurp(p, &n);
	int ok = b && n > 24 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8) && !memcmp(b + 12, "IHDR", 4);
	if (ok) {
		*w = (uint32_t)b[16] << 24 | (uint32_t)b[17] << 16 | (uint32_t)b[18] << 8 | b[19];
		*h = (uint32_t)b[20] << 24 | (uint32_t)b[21] << 16 | (uint32_t)b[22] << 8 | b[23];
		*bytes = n;
	}
	free(b);
	return ok;
}
