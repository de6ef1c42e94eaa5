/*
 * The command-line conventions every subcommand shares (docs/cli.md): one
 * option parser over getopt_long, so that `--opt=value`, `--opt value` and
 * options after operands work alike everywhere; a usage error in one line
 * that names the option and the reason (never the whole usage, which
 * hides the reason: `pintest --mode nonsense` printed 14 lines and none);
 * numbers that refuse inf, nan and out-of-range values before they reach
 * arithmetic (`pintest --chunk-gib inf` died of SIGFPE); colour as
 * no-color.org says; --version with the backends this build has; and the
 * check of stdout at exit, since a report lost to a full disk must not
 * exit 0.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <loadscope/loadscope.h>

#include "pin/pin.h"
#include "loader/read/reader.h"
#include "tool.h"

const char *lsc_cli_cmd;

static void prefix(void)
{
	if (lsc_cli_cmd)
		fprintf(stderr, "loadscope %s: ", lsc_cli_cmd);
	else
		fputs("loadscope: ", stderr);
}

int lsc_cli_usage(const char *fmt, ...)
{
	va_list ap;

	prefix();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; see 'loadscope%s%s --help'\n", lsc_cli_cmd ? " " : "",
		lsc_cli_cmd ? lsc_cli_cmd : "");
	return LSC_EXIT_USAGE;
}

/* The long options @name (up to '=' or its end) is a prefix of; none for
 * an empty name ("--=x" names no option, it does not name them all). */
static void candidates(const struct option *lo, const char *name, char *out, size_t cap)
{
	size_t len = strcspn(name, "="), used = 0;

	out[0] = 0;
	for (; len && lo->name; lo++)
		if (!strncmp(lo->name, name, len) && used < cap) {
			int w = snprintf(out + used, cap - used, "%s--%s", used ? ", " : "", lo->name);
			used += w > 0 ? (size_t)w : 0;
		}
}

static const struct option *exact(const struct option *lo, const char *name)
{
	size_t len = strcspn(name, "=");

	for (; lo->name; lo++)
		if (strlen(lo->name) == len && !strncmp(lo->name, name, len))
			return lo;
	return NULL;
}

/* getopt_long reports with opterr off; say what went wrong in one line. */
static void report(const struct lsc_cli *c, int ch)
{
	const char *arg = optind > 0 && optind <= c->argc ? c->argv[optind - 1] : "";
	int is_long = !strncmp(arg, "--", 2) && arg[2];
	char list[256];

	/* In a cluster (-xh) optind stays on it: arg is then an earlier,
	 * valid long option, and the culprit is the short one in optopt. */
	if (is_long && !strchr(arg, '=') && exact(c->longopts, arg + 2) && ch == '?')
		is_long = 0;
	if (ch == ':') {
		if (is_long)
			lsc_cli_usage("%s: needs a value", arg);
		else
			lsc_cli_usage("-%c: needs a value", optopt);
		return;
	}
	if (!is_long) {
		lsc_cli_usage("-%c: unknown option", isprint(optopt) ? optopt : '?');
		return;
	}
	const struct option *o = exact(c->longopts, arg + 2);
	if (o && strchr(arg, '=')) {
		lsc_cli_usage("%s: --%s takes no value", arg, o->name);
		return;
	}
	candidates(c->longopts, arg + 2, list, sizeof(list));
	if (list[0])
		lsc_cli_usage("%s: ambiguous (%s)", arg, list);
	else
		lsc_cli_usage("%s: unknown option", arg);
}

int lsc_cli_next(struct lsc_cli *c)
{
	/* "-": operands come back in order as 1, whatever POSIXLY_CORRECT
	 * says; "+" (asked for by a leading '+'): getopt stops at the first
	 * operand, and the end below gathers it and the rest; ":": a missing
	 * value is told apart from an unknown option. */
	char shorts[32];
	const char *own = c->shorts ? c->shorts : "";
	int in_order = own[0] == '+';

	snprintf(shorts, sizeof(shorts), "%s:%s", in_order ? "+" : "-", own + in_order);
	if (!c->started) {
		optind = 0; /* glibc: 0 re-reads the optstring's leading "-" */
		opterr = 0;
		c->started = 1;
		c->nops = 0;
	}
	for (;;) {
		int ch = getopt_long(c->argc, c->argv, shorts, c->longopts, NULL);
		if (ch == 1) {
			/* Slots 1..nops were consumed already: safe to reuse. */
			c->argv[1 + c->nops++] = optarg;
			continue;
		}
		if (ch == -1) {
			while (optind < c->argc)
				c->argv[1 + c->nops++] = c->argv[optind++];
			return -1;
		}
		if (ch == '?' || ch == ':') {
			report(c, ch);
			return '?';
		}
		return ch;
	}
}

int lsc_cli_real(const char *opt, const char *s, double lo, double hi, int above, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = *s && !isspace((unsigned char)*s) ? strtod(s, &end) : NAN;
	if (isnan(v) || errno || *end || !isfinite(v) || v < lo || v > hi || (above && v == lo)) {
		if (above)
			lsc_cli_usage("%s %s: a number above %.15g, at most %.15g", opt, s, lo, hi);
		else
			lsc_cli_usage("%s %s: a number from %.15g to %.15g", opt, s, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

int lsc_cli_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	size_t n = strlen(s);
	unsigned long long v = 0;

	errno = 0;
	if (n && n <= 20 && strspn(s, "0123456789") == n)
		v = strtoull(s, NULL, 10);
	if (!n || n > 20 || strspn(s, "0123456789") != n || errno || v < lo || v > hi) {
		lsc_cli_usage("%s %s: a whole number from %llu to %llu", opt, s,
			      (unsigned long long)lo, (unsigned long long)hi);
		return -1;
	}
	*out = v;
	return 0;
}

int lsc_cli_color(int asked)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");

	if (asked >= 0)
		return asked;
	if (nc && *nc) /* no-color.org: set and not empty */
		return 0;
	if (term && !strcmp(term, "dumb"))
		return 0;
	return isatty(STDOUT_FILENO);
}

void lsc_cli_version(FILE *f)
{
	fprintf(f, "loadscope %s\npin backends:", lsc_version_string());
	for (const struct lsc__pin_ops *const *b = lsc__pin_backends; *b; b++)
		fprintf(f, "%s %s", b == lsc__pin_backends ? "" : ",", (*b)->name);
	fprintf(f, "\nreaders: %s, %s\n", lsc__reader_uring.name, lsc__reader_pread.name);
}

int lsc_cli_common(int opt, void (*usage)(FILE *f))
{
	switch (opt) {
	case 'h':
		usage(stdout);
		return LSC_EXIT_OK;
	case 'V':
		lsc_cli_version(stdout);
		return LSC_EXIT_OK;
	default:
		return LSC_EXIT_USAGE;
	}
}

int lsc_cli_finish(int rc)
{
	int err = 0, bad;

	errno = 0;
	bad = fflush(stdout) != 0;
	if (bad)
		err = errno;
	bad |= ferror(stdout) != 0;
	errno = 0;
	if (fclose(stdout) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	if (!bad)
		return rc;
	prefix();
	/* An earlier failed write (the profiler flushes each line) left no
	 * errno to tell; say only that it failed. */
	if (err)
		fprintf(stderr, "writing to stdout: %s\n", strerror(err));
	else
		fputs("writing to stdout failed\n", stderr);
	return rc == LSC_EXIT_USAGE ? rc : LSC_EXIT_IO;
}
