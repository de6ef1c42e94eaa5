/*
 * `loadscope triage [FILE...]`: read pasted startup logs (stdin when no file)
 * and print diagnoses with evidence and remedies. The work is in
 * tools/triage/ (docs/triage.md); this file is only the options and the
 * exit status: 0 healthy, 1 warnings, 2 failures, 3 unusable input,
 * 4 usage or I/O error.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "tool.h"
#include "triage/render.h"
#include "triage/triage.h"

const char lsc_cmd_triage_help[] = "diagnose pasted startup logs (evidence, remedies, A/B tables)";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: loadscope triage [--format text|json|md] [--table] [--table-only] [--redact]\n"
		"                        [--color|--no-color] [--html OUT.html] [FILE...]\n"
		"Reads startup logs (stdin when no FILE or FILE is -), pasted or whole, and reports\n"
		"findings per start with the lines they rest on and what to do (docs/triage.md).\n"
		"  --html OUT.html   also write one self-contained page (timelines, findings, A/B\n"
		"                    chart; no script, no network); '-' is stdout. Without --format\n"
		"                    nothing else is printed on stdout\n"
		"exit: 0 healthy, 1 warnings, 2 failures, 3 nothing recognisable, 4 usage or I/O error\n");
}

static int feed_file(struct lsc_triage *t, const char *path, char *buf, size_t cap)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		fprintf(stderr, "loadscope triage: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (lsc_triage_source(t, strcmp(path, "-") ? path : "stdin") < 0) {
		fprintf(stderr, "loadscope triage: %s: out of memory\n", path);
		if (f != stdin)
			fclose(f);
		return -1;
	}
	size_t n;
	errno = 0;
	while ((n = fread(buf, 1, cap, f)) > 0)
		lsc_triage_feed(t, buf, n);
	int err = ferror(f) ? (errno ? errno : EIO) : 0;
	if (f != stdin)
		fclose(f);
	if (err) {
		fprintf(stderr, "loadscope triage: %s: %s\n", path, strerror(err));
		return -1;
	}
	return 0;
}

/* The page to @path ("-": stdout); the error line says why it was not written. */
static int write_html(struct lsc_triage *t, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!f) {
		fprintf(stderr, "loadscope triage: --html %s: %s\n", path, strerror(errno));
		return -1;
	}
	int r = tr_render_html(t, f);
	if (ferror(f))
		r = -1;
	if (f != stdout && fclose(f))
		r = -1;
	if (r < 0)
		fprintf(stderr, "loadscope triage: --html %s: write failed\n", path);
	return r;
}

int lsc_cmd_triage(int argc, char **argv)
{
	struct lsc_triage_opts o = {0};
	enum lsc_triage_fmt fmt = LSC_TRIAGE_TEXT;
	int color = -1, i, fmt_given = 0;
	const char *html = NULL;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--format") || !strncmp(a, "--format=", 9)) {
			const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : "");
			fmt_given = 1;
			if (!strcmp(v, "text"))
				fmt = LSC_TRIAGE_TEXT;
			else if (!strcmp(v, "json"))
				fmt = LSC_TRIAGE_JSON;
			else if (!strcmp(v, "md") || !strcmp(v, "markdown"))
				fmt = LSC_TRIAGE_MD;
			else {
				fprintf(stderr, "loadscope triage: unknown format '%s'\n", v);
				usage(stderr);
				return 4;
			}
		} else if (!strcmp(a, "--html") || !strncmp(a, "--html=", 7)) {
			html = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : "");
			if (!*html) {
				fprintf(stderr, "loadscope triage: --html needs a file name (or -)\n");
				usage(stderr);
				return 4;
			}
		} else if (!strcmp(a, "--table")) {
			o.flags |= LSC_TRIAGE_TABLE;
		} else if (!strcmp(a, "--table-only")) {
			o.flags |= LSC_TRIAGE_TABLE | LSC_TRIAGE_TABLE_ONLY;
		} else if (!strcmp(a, "--redact")) {
			o.flags |= LSC_TRIAGE_REDACT;
		} else if (!strcmp(a, "--color") || !strcmp(a, "--colour")) {
			color = 1;
		} else if (!strcmp(a, "--no-color") || !strcmp(a, "--no-colour")) {
			color = 0;
		} else if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "loadscope triage: unknown option '%s'\n", a);
			usage(stderr);
			return 4;
		} else {
			break;
		}
	}
	if (color < 0)
		color = fmt == LSC_TRIAGE_TEXT && isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	if (color)
		o.flags |= LSC_TRIAGE_COLOR;
	struct lsc_triage *t = lsc_triage_new(&o);
	static char buf[1 << 16];
	if (!t) {
		fprintf(stderr, "loadscope triage: out of memory\n");
		return 4;
	}
	int bad = 0, read = 0;
	if (i == argc) {
		bad |= feed_file(t, "-", buf, sizeof(buf)) < 0;
		read += !bad;
	}
	for (; i < argc; i++) {
		int rc = feed_file(t, argv[i], buf, sizeof(buf));
		bad |= rc < 0;
		read += rc == 0;
	}
	if (!read) {
		/* Every input failed: the error lines say why; no empty report. */
		lsc_triage_free(t);
		return 4;
	}
	lsc_triage_finish(t);
	int r = 0;
	if (html && write_html(t, html) < 0)
		r = -1;
	if (!html || fmt_given)
		r |= lsc_triage_render(t, fmt, stdout);
	fflush(stdout);
	int code = lsc_triage_exit_code(t);
	lsc_triage_free(t);
	if (bad || r < 0)
		return 4;
	return code;
}
