/*
 * `loadscope ab [OPTIONS] --arm NAME=SPEC --arm NAME=SPEC ... [--] CMD [ARGS...]`:
 * seed 000's experiment as one command, with what people who use hyperfine
 * and llama-bench expect of it. Its author started the server 4 times per
 * arm, interleaved, and built the median table by hand; here CMD runs
 * --runs times per arm in rounds after --warmup untimed rounds, with the
 * order of the arms rotated per round (ab_order.c), --prepare before and
 * a --pause between runs (a VM's freed memory goes back to its host a
 * moment after it is freed: back-to-back runs would reuse it), each run
 * with its arm's THP control and environment, its output in a file of its
 * own. ab times every run itself (wall time, exit status, CPU time, peak
 * RSS: ab_exec.c), so any command is compared; the triage (tools/triage/)
 * reads the logs, so the phase figures join in when CMD prints lines it
 * knows. The report gives each arm's statistics and, for each pair, a
 * Mann-Whitney U test with a one-line verdict (ab_stats.c); exports in
 * hyperfine's JSON and CSV, Markdown, and a page. The files: tools/ab.h.
 *
 * Exit status: 0 every run exited 0 in time; 1 a run or --prepare failed, a
 * run was killed or timed out, ab was interrupted, or the kernel refused an
 * arm's THP control; 4 a log, an export or stdout could not be written, or
 * a log read; 64 usage (docs/cli.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "tool.h"

const char lsc_cmd_ab_help[] = "interleaved A/B runs of any command: wall time, statistics, a verdict";

/* Write one export with @fn; 0, or -1 after a line on stderr. */
static int export_to(const char *path, const char *what, int (*fn)(FILE *, struct ab *), struct ab *x)
{
	if (!path)
		return 0;
	FILE *f = fopen(path, "w");
	int rc = f ? fn(f, x) : -errno;
	if (f && fclose(f) && !rc)
		rc = -errno;
	if (!rc)
		return 0;
	fprintf(stderr, "loadscope ab: %s %s: %s\n", what, path, strerror(rc < 0 ? -rc : EIO));
	return -1;
}

static int csv_fn(FILE *f, struct ab *x)
{
	return ab_write_csv(f, x);
}

static int md_fn(FILE *f, struct ab *x)
{
	return ab_report(f, x, AB_MD);
}

/* The report on stdout and the exports; 0, or -1 when one could not be written. */
static int outputs(struct ab *x)
{
	int bad = 0;
	if (x->fmt == AB_JSON)
		bad |= ab_write_json(stdout, x) < 0;
	else
		bad |= ab_report(stdout, x, x->fmt) < 0;
	bad |= export_to(x->json, "--export-json", ab_write_json, x);
	bad |= export_to(x->md, "--export-markdown", md_fn, x);
	bad |= export_to(x->csv, "--export-csv", csv_fn, x);
	bad |= export_to(x->html, "--html", ab_write_html, x);
	return bad ? -1 : 0;
}

static int setup(struct ab *x)
{
	struct lsc_triage_opts to = {.flags = LSC_TRIAGE_TABLE | LSC_TRIAGE_TABLE_ONLY};
	x->total = x->runs * x->narms;
	x->run = calloc(x->total, sizeof(*x->run));
	x->all = lsc_triage_new(&to);
	int bad = !x->run || !x->all;
	for (unsigned a = 0; a < x->narms; a++)
		bad |= !(x->arms[a].t = lsc_triage_new(NULL));
	if (bad)
		fprintf(stderr, "loadscope ab: out of memory\n");
	return bad ? -1 : 0;
}

int lsc_cmd_ab(int argc, char **argv)
{
	static struct ab x;
	int done, rc;

	memset(&x, 0, sizeof(x));
	if ((rc = ab_parse(&x, argc, argv, &done)) || done)
		return rc;
	for (unsigned a = 0; a < x.narms; a++)
		if (ab_check_thp(&x.arms[a]))
			return LSC_EXIT_PROBLEM;
	if (setup(&x) || ab_experiment(&x)) {
		rc = LSC_EXIT_IO;
		goto out;
	}
	ab_summarise(&x);
	int healthy = !x.failed_prepare;
	for (unsigned i = 0; i < x.done; i++)
		healthy &= ab_run_ok(&x.run[i]);
	if (outputs(&x))
		x.io_bad = 1;
	if (x.io_bad)
		rc = LSC_EXIT_IO;
	else if (!healthy || x.stop || x.done < x.total)
		rc = LSC_EXIT_PROBLEM;
	else
		rc = LSC_EXIT_OK;
out:
	for (unsigned a = 0; a < x.narms; a++)
		lsc_triage_free(x.arms[a].t);
	lsc_triage_free(x.all);
	free(x.run);
	return rc;
}
