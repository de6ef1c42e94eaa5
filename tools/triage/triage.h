/*
 * loadscope triage: pasted startup logs in, diagnoses with evidence and
 * remedies out. This is the entry point the `triage` subcommand, the tests,
 * the corpus runner, the fuzz target and the benchmark all call.
 *
 * It streams: feed any number of bytes in any chunking (a line may be split
 * across calls), then finish, then render. Memory stays bounded whatever the
 * input size: lines are assembled in a fixed buffer (a line over
 * LSC_TRIAGE_LINE_MAX is truncated and flagged), rules run as each start
 * closes, and only a capped number of findings keep their full evidence.
 *
 * The pipeline (docs/triage.md): clean the paste (keeping line numbers) ->
 * recognise lines (this project's via the shared grammar in
 * src/format/line.h, the seed engine's, public engines') -> split into
 * starts -> rules -> findings -> text | json | md.
 *
 * Stable API for the corpus runner and the fuzz target: the functions below
 * only ever gain siblings; enum values and ids never change meaning.
 */
#ifndef LSC_TOOLS_TRIAGE_H
#define LSC_TOOLS_TRIAGE_H

#include <stddef.h>
#include <stdio.h>

#define LSC_TRIAGE_LINE_MAX (1u << 20)  /* longer lines are truncated and flagged */
#define LSC_TRIAGE_SCHEMA_VERSION 1     /* of the JSON output, docs/triage.md */

enum lsc_triage_fmt {
	LSC_TRIAGE_TEXT = 0,
	LSC_TRIAGE_JSON = 1,
	LSC_TRIAGE_MD = 2,
};

enum lsc_triage_sev {
	LSC_TRIAGE_INFO = 0,
	LSC_TRIAGE_WARN = 1,
	LSC_TRIAGE_FAIL = 2,
};

/* Exit codes (lsc_triage_exit_code) */
enum lsc_triage_exit {
	LSC_TRIAGE_EXIT_HEALTHY = 0,
	LSC_TRIAGE_EXIT_WARN = 1,
	LSC_TRIAGE_EXIT_FAIL = 2,
	LSC_TRIAGE_EXIT_UNUSABLE = 3, /* no verdict: nothing recognisable, or a start not evaluated and no warn or fail */
};

#define LSC_TRIAGE_REDACT 0x1u  /* strip host names, user names and paths from quoted lines */
#define LSC_TRIAGE_TABLE 0x2u   /* render the A/B table over the starts as well */
#define LSC_TRIAGE_COLOR 0x4u   /* ANSI colour in text output (the CLI sets it on a tty) */
#define LSC_TRIAGE_TABLE_ONLY 0x8u /* render only the table (with LSC_TRIAGE_TABLE) */

struct lsc_triage_opts {
	unsigned flags;      /* LSC_TRIAGE_* */
	const char *source;  /* a name for the first input in the output ("stdin", a file); may be NULL */
};

struct lsc_triage;

/* A finding, as the tests see it. Pointers stay valid until lsc_triage_free. */
struct lsc_triage_finding_info {
	const char *id;                /* "thp-direct-compaction", "healthy", ... */
	enum lsc_triage_sev severity;
	unsigned start;                /* index of the start (0-based) it belongs to */
	unsigned long first_line;      /* line number (1-based, of the original input) of its first evidence; 0 none */
	const char *summary;           /* one sentence */
};

/* Create a triage; @opts may be NULL. Return NULL only when out of memory. */
struct lsc_triage *lsc_triage_new(const struct lsc_triage_opts *opts);

/*
 * Name the next input (a new file): line numbers restart at 1 and quoted
 * evidence is named "@name:N". Optional; call before its first feed.
 * Return 0, -EINVAL after finish, or -ENOMEM (the input's lines then count
 * as the previous input's).
 */
int lsc_triage_source(struct lsc_triage *t, const char *name);

/*
 * Name the A/B arm the next input's starts belong to (`loadscope ab` feeds
 * one input per run): --table groups starts by it ahead of the
 * configuration keys, as key "arm". Call after lsc_triage_source, before
 * the input's first feed; NULL or "" clears it; a name is kept to 23 bytes.
 * Return 0, or -EINVAL after finish.
 */
int lsc_triage_arm(struct lsc_triage *t, const char *name);

/* Feed @len bytes; any chunking. Return 0, or -EINVAL after finish. */
int lsc_triage_feed(struct lsc_triage *t, const char *buf, size_t len);

/* End of input: flush the last line, close open starts, run the rules.
 * Return 0; calling it twice is harmless. */
int lsc_triage_finish(struct lsc_triage *t);

/* Render the result (finishes first if needed). Return 0 or -EIO. */
int lsc_triage_render(struct lsc_triage *t, enum lsc_triage_fmt fmt, FILE *out);

/* @s as a JSON string, quoted and escaped as the JSON renderer writes
 * strings, for a tool that writes JSON around triage's (ab's report). */
void lsc_triage_json_str(FILE *o, const char *s);

/* 0 healthy, 1 warnings, 2 failures, 3 unusable input (finishes first if needed). */
int lsc_triage_exit_code(struct lsc_triage *t);

/* Findings, in order (finishes first if needed). */
size_t lsc_triage_nfindings(struct lsc_triage *t);
int lsc_triage_finding(struct lsc_triage *t, size_t i, struct lsc_triage_finding_info *out);

/* A start's summary, as `loadscope ab` reports each run. */
struct lsc_triage_start_info {
	unsigned long first_line; /* of its input (1-based) */
	int reached_ready;        /* a ready line was seen (the JSON's reached_ready) */
	double ready_s;           /* load to ready as the phase table reads it; NAN not measured */
	/* the verdict before any cause (docs/triage.md, Verdicts): "completed",
	 * "failed", "cut-off", "loading" or "none" (not a start: a probe, a
	 * settings paste); and "ok", "slow" or "-" (no figure to judge from) */
	const char *outcome;
	const char *speed;
	double load_s, gib, gibps; /* the figures the speed was judged on; NAN none */
};

/* The @i-th start summary, in the order of the JSON "starts" (finishes first
 * if needed). Return 0, or -ENOENT past the summaries kept. */
int lsc_triage_start(struct lsc_triage *t, size_t i, struct lsc_triage_start_info *out);

/*
 * Switch off the shapes and recognisers tagged with @engine ("vllm",
 * "llama.cpp", "ollama", ...), so that its logs are read by the shared
 * vocabulary alone: the leave-one-engine-out test. NULL or "" switches
 * none off. Call before the first feed. Return 0, or -EINVAL after finish.
 */
int lsc_triage_engine_off(struct lsc_triage *t, const char *engine);

/* Counts, for tests and the benchmark. */
size_t lsc_triage_nstarts(struct lsc_triage *t);
unsigned long lsc_triage_nlines(struct lsc_triage *t);      /* lines read */
unsigned long lsc_triage_nrecognised(struct lsc_triage *t); /* lines some recogniser used */

/* Accepts NULL. */
void lsc_triage_free(struct lsc_triage *t);

#endif
