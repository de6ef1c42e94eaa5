/*
 * `loadscope triage [FILE...]`: read pasted startup logs (stdin when no file)
 * and print diagnoses with evidence and remedies. The work is in
 * tools/triage/ (docs/triage.md); this file is only the options and the
 * exit status: 0 healthy, 1 warnings, 2 failures, 3 no verdict (nothing
 * recognised, or a start that neither completed nor failed),
 * 4 an input unreadable or stdout unwritable, 64 usage (docs/cli.md).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

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
		"Options may follow the files. Colour: on a terminal, unless NO_COLOR is set and\n"
		"not empty, or TERM=dumb; --color and --no-color decide instead.\n"
		"  -h, --help     this text      -V, --version  version and backends\n"
		"exit: 0 healthy, 1 warnings, 2 failures, 3 no verdict (nothing recognised, or\n"
		"a start that neither completed nor failed), 4 a file could\n"
		"not be read or stdout written, 64 usage error (docs/cli.md)\n");
}

enum { OPT_FORMAT = 256, OPT_TABLE, OPT_TABLE_ONLY, OPT_REDACT, OPT_COLOR, OPT_NO_COLOR, OPT_HTML };

static const struct option longopts[] = {
	{"format", required_argument, NULL, OPT_FORMAT},
	{"table", no_argument, NULL, OPT_TABLE},
	{"html", required_argument, NULL, OPT_HTML},
	{"table-only", no_argument, NULL, OPT_TABLE_ONLY},
	{"redact", no_argument, NULL, OPT_REDACT},
	{"color", no_argument, NULL, OPT_COLOR},
	{"colour", no_argument, NULL, OPT_COLOR},
	{"no-color", no_argument, NULL, OPT_NO_COLOR},
	{"no-colour", no_argument, NULL, OPT_NO_COLOR},
	LSC_CLI_COMMON_OPTS,
};

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
	long size = f != stdout ? ftell(f) : -1;
	if (ferror(f))
		r = -1;
	if (f != stdout && fclose(f))
		r = -1;
	if (r < 0)
		fprintf(stderr, "loadscope triage: --html %s: write failed\n", path);
	else if (f != stdout) /* without --format, the only word of the run */
		fprintf(stderr, "loadscope triage: --html: wrote %s (%ld bytes)\n", path, size);
	return r;
}

int lsc_cmd_triage(int argc, char **argv)
{
	struct lsc_triage_opts o = {0};
	enum lsc_triage_fmt fmt = LSC_TRIAGE_TEXT;
	struct lsc_cli cli = {argc, argv, "hV", longopts, 0, 0};
	int color = -1, c, fmt_given = 0;
	const char *html = NULL;

	while ((c = lsc_cli_next(&cli)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			fmt_given = 1;
			if (!strcmp(optarg, "text"))
				fmt = LSC_TRIAGE_TEXT;
			else if (!strcmp(optarg, "json"))
				fmt = LSC_TRIAGE_JSON;
			else if (!strcmp(optarg, "md") || !strcmp(optarg, "markdown"))
				fmt = LSC_TRIAGE_MD;
			else
				return lsc_cli_usage("--format %s: text, json or md", optarg);
			break;
		case OPT_HTML:
			if (!*optarg)
				return lsc_cli_usage("--html: a file name (or -)");
			html = optarg;
			break;
		case OPT_TABLE:
			o.flags |= LSC_TRIAGE_TABLE;
			break;
		case OPT_TABLE_ONLY:
			o.flags |= LSC_TRIAGE_TABLE | LSC_TRIAGE_TABLE_ONLY;
			break;
		case OPT_REDACT:
			o.flags |= LSC_TRIAGE_REDACT;
			break;
		case OPT_COLOR:
			color = 1;
			break;
		case OPT_NO_COLOR:
			color = 0;
			break;
		default:
			return lsc_cli_common(c, usage);
		}
	}
	if (color < 0)
		color = fmt == LSC_TRIAGE_TEXT && lsc_cli_color(-1);
	if (color)
		o.flags |= LSC_TRIAGE_COLOR;
	struct lsc_triage *t = lsc_triage_new(&o);
	static char buf[1 << 16];
	if (!t) {
		fprintf(stderr, "loadscope triage: out of memory\n");
		return LSC_EXIT_IO;
	}
	int bad = 0, read = 0;
	if (!cli.nops) {
		bad |= feed_file(t, "-", buf, sizeof(buf)) < 0;
		read += !bad;
	}
	for (int i = 1; i <= cli.nops; i++) {
		int rc = feed_file(t, argv[i], buf, sizeof(buf));
		bad |= rc < 0;
		read += rc == 0;
	}
	if (!read) {
		/* Every input failed: the error lines say why; no empty report. */
		lsc_triage_free(t);
		return LSC_EXIT_IO;
	}
	lsc_triage_finish(t);
	/* stdout is flushed and checked at exit (lsc_cli_finish). */
	int r = 0;
	if (html && write_html(t, html) < 0)
		r = -1;
	if (!html || fmt_given)
		r |= lsc_triage_render(t, fmt, stdout);
	int code = lsc_triage_exit_code(t);
	lsc_triage_free(t);
	if (bad || r < 0)
		return LSC_EXIT_IO;
	return code;
}
