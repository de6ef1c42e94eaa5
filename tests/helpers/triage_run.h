/*
 * What the corpus, damage and fuzz-regression tests share: read a corpus
 * file, list the corpus logs, run the triage over a buffer in given chunk
 * sizes, and hold its findings as a sorted set of "id severity start" rows so
 * two runs (or a run and the .ids spec) compare with one call.
 */
#ifndef LSC_TESTS_TRIAGE_RUN_H
#define LSC_TESTS_TRIAGE_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "triage/triage.h"

/* Triage one in-memory log in one piece; NULL when out of memory. */
struct lsc_triage *trun_text(const char *log);
/* The severity of finding @id, or -1 when it did not fire. */
int trun_sev_of(struct lsc_triage *t, const char *id);

#define TR_ID_MAX 48

struct trow {
	char id[TR_ID_MAX];
	int sev;         /* enum lsc_triage_sev */
	unsigned start;
};

struct tset {
	struct trow *r;
	size_t n, cap;
};

/* "info", "warn", "fail" to enum lsc_triage_sev and back (-1, "?" otherwise). */
int trun_sev_parse(const char *s);
const char *trun_sev_name(int s);

void tset_free(struct tset *s);
/* Append a row; 0 or -ENOMEM. */
int tset_add(struct tset *s, const char *id, int sev, unsigned start);
/* Sort by start, then id, then severity. */
void tset_sort(struct tset *s);
/* "id sev start" per row, "; "-separated, into @buf (truncated to @cap). */
const char *tset_str(const struct tset *s, char *buf, size_t cap);
int tset_equal(const struct tset *a, const struct tset *b);

/* Whole file into a malloc'ed, NUL-terminated buffer (its length in @len
 * unless NULL); NULL when unreadable. */
char *trun_slurp(const char *path, size_t *len);
/* The corpus log @name (tests/corpus/logs/@name), as trun_slurp. */
char *trun_corpus_log(const char *name, size_t *len);
/* Write @len bytes to @path; 0 or a negative errno. */
int trun_write(const char *path, const char *buf, size_t len);
/* The .ids spec: "id severity start" per line, '#' comments, blank lines;
 * appended to @out and sorted. 0, -ENOENT or -EINVAL. */
int trun_read_ids(const char *path, struct tset *out);
/* The sorted names of the files in @dir ending in @suffix; *n set. Free with trun_names_free. */
char **trun_list(const char *dir, const char *suffix, size_t *n);
/* The corpus logs under @logs with a findings spec (@expected/STEM.ids), in
 * name order: the reviewed ones. The others hold a verdict spec only
 * (tests/corpus/verdicts/), which tests/test_triage_verdict_files.c judges.
 * Free with trun_names_free(v, *n). */
char **trun_list_specd(const char *logs, const char *expected, size_t *n);
void trun_names_free(char **v, size_t n);
/* Is @stem held out of development (listed in tests/corpus/validation.txt)?
 * Those logs are scored apart and never read while the shapes are tuned. */
int trun_held_out(const char *stem);
/* The corpus log @stem (tests/corpus/logs/@stem.log) triaged whole, its
 * source named @stem, with engine @off's shapes switched off (NULL: none);
 * NULL when unreadable or out of memory. */
struct lsc_triage *trun_stem(const char *stem, const char *off);
/* Is start @i of @stem listed in the "stem start  why" file @path
 * (KNOWN_MISMATCHES, FIGURES_KNOWN; '#' lines are comments)? */
int trun_listed(const char *path, const char *stem, unsigned i);
/* The corpus logs (NAME.log) under @logs that are not held out, in name
 * order: every log the triage was developed on, reviewed or verdict-only.
 * Free with trun_names_free(v, *n). */
char **trun_list_developed(const char *logs, size_t *n);

/*
 * Feed @buf to a new triage: in @chunk-byte pieces, or, when @chunk is 0, in
 * pseudo-random pieces of 1..4096 bytes drawn from @seed. Return the triage
 * (finished) or NULL.
 */
struct lsc_triage *trun_feed(const char *buf, size_t len, size_t chunk, uint64_t seed,
			     const struct lsc_triage_opts *opts);
/* The findings of @t into @out, sorted. */
void trun_findings(struct lsc_triage *t, struct tset *out);
/* Run the triage over @buf and collect its findings into @out. */
int trun_run(const char *buf, size_t len, size_t chunk, uint64_t seed, struct tset *out);
/* Render @t in @fmt (or TRUN_HTML: the --html page) into a malloc'ed
 * buffer (open_memstream); *len set (when @len is not NULL). NULL when
 * out of memory or the renderer failed. */
#define TRUN_HTML (-1)
char *trun_render(struct lsc_triage *t, enum lsc_triage_fmt fmt, size_t *len);

#endif
