/*
 * Description: the triage's one keyword pass finds every keyword wherever
 * it sits in a line. The pass looks at every second byte only, through two
 * three-byte windows per keyword (one of them begins at an even offset) and
 * the 256 windows that end in a three-byte keyword's first two bytes, so
 * each keyword is put at every offset from 0 to 9, amid filler that holds
 * none, and must give its group (or its shape's bit) there, at the very
 * start and at the very end of the line; filler alone gives nothing.
 * Every triage reads one table built once (tr_prefilter_shared): it is one
 * table whichever thread asks first, and reads every corpus line as a
 * table of its own does.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

static struct tr_prefilter *pf;

static void setup(void)
{
	pf = tr_prefilter_new();
	cr_assert_not_null(pf, "the prefilter could not hold the keywords");
}

static void teardown(void)
{
	free(pf);
}

TestSuite(prefilter, .init = setup, .fini = teardown);

/* "~" * off + @kw + @tail, as a cleaned line (NUL after its last byte) */
static size_t place(char *buf, size_t cap, size_t off, const char *kw, const char *tail)
{
	int n = snprintf(buf, cap, "%.*s%s%s", (int)off, "~~~~~~~~~~~~~~~~", kw, tail);
	cr_assert(n > 0 && (size_t)n < cap);
	return (size_t)n;
}

Test(prefilter, a_fixed_keyword_is_found_at_every_offset)
{
	/* keywords of three, four and more bytes, each with its group */
	static const struct {
		const char *kw;
		uint64_t g;
	} cases[] = {
		{"RSS", TR_G_RATES},		{"HIP ", TR_G_HIP},	      {"ROCm", TR_G_HIP},
		{"pswp", TR_G_VMSTAT},		{"[loadscope/", TR_G_LSC},     {"timestamp=", TR_G_EPOCH},
		{"io_uring", TR_G_IO},		{"Model loading took", TR_G_VLLM}, {"kswapd", TR_G_SWAP},
	};
	char buf[128];
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (size_t off = 0; off < 10; off++) {
			for (int end = 0; end < 2; end++) {
				size_t n = place(buf, sizeof(buf), off, cases[c].kw, end ? "" : " ~~~~~ ~~");
				uint64_t m = tr_prefilter(pf, buf, n);
				cr_expect(m & cases[c].g, "\"%s\" at offset %zu%s: groups %#llx lack %#llx", cases[c].kw,
					  off, end ? " (line end)" : "", (unsigned long long)m,
					  (unsigned long long)cases[c].g);
			}
		}
}

Test(prefilter, every_shape_keyword_sets_its_own_bit_at_every_offset)
{
	char buf[512];
	for (size_t i = 0; i < tr_nshapes; i++)
		for (size_t off = 0; off < 10; off++) {
			struct tr_line l = {.s = buf};
			l.len = place(buf, sizeof(buf), off, tr_shapes[i].key, off & 1 ? "" : " ~~~");
			tr_prefilter_line(pf, &l);
			cr_expect(l.shapes[i / 64] >> (i % 64) & 1, "shape %zu's keyword \"%s\" at offset %zu: no bit", i,
				  tr_shapes[i].key, off);
			cr_expect(l.kw & tr_shape_group(i), "shape %zu's keyword \"%s\" at offset %zu: no group", i,
				  tr_shapes[i].key, off);
		}
}

Test(prefilter, filler_holds_no_keyword)
{
	static const char s[] = "~~~~ ~~~~~~~ ~~ ~~~~~~~~~~~~~~~~~~~~~~ ~~~ 12345 ~~~";
	struct tr_line l = {.s = (char *)s, .len = sizeof(s) - 1};
	tr_prefilter_line(pf, &l);
	cr_expect_eq(l.kw, 0ull);
	cr_expect_eq(l.shapes[0] | l.shapes[1], 0ull);
	cr_expect_eq(tr_prefilter(pf, "RS", 2), 0ull, "a keyword's prefix is not the keyword");
}

static void *ask_shared(void *arg)
{
	(void)arg;
	return (void *)tr_prefilter_shared();
}

Test(prefilter, the_shared_table_is_one_whichever_thread_asks_first)
{
	pthread_t th[4];
	void *got[4];
	for (int i = 0; i < 4; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, ask_shared, NULL), 0);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(pthread_join(th[i], &got[i]), 0);
	cr_assert_not_null(got[0]);
	for (int i = 1; i < 4; i++)
		cr_assert_eq(got[i], got[0]);
	cr_assert_eq((const void *)tr_prefilter_shared(), got[0]);
}

Test(prefilter, the_shared_table_reads_every_corpus_line_as_a_new_one)
{
	const struct tr_prefilter *sh = tr_prefilter_shared();
	cr_assert_not_null(sh);
	size_t n = 0, lines = 0, hits = 0;
	char **logs = trun_list(LSC_TEST_CORPUS "/logs", ".log", &n);
	cr_assert(n > 0);
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/logs/%s", LSC_TEST_CORPUS, logs[i]);
		FILE *f = fopen(path, "r");
		cr_assert_not_null(f, "%s", path);
		char *line = NULL;
		size_t cap = 0;
		ssize_t len;
		while ((len = getline(&line, &cap, f)) > 0) {
			struct tr_line a = {.s = line, .len = (size_t)len}, b = a;
			tr_prefilter_line(sh, &a);
			tr_prefilter_line(pf, &b);
			cr_expect(a.kw == b.kw && a.shapes[0] == b.shapes[0] && a.shapes[1] == b.shapes[1],
				  "%s: \"%.*s\"", logs[i], (int)(len > 80 ? 80 : len), line);
			lines++;
			hits += a.kw != 0;
		}
		free(line);
		fclose(f);
	}
	trun_names_free(logs, n);
	/* the comparison meant something: most corpus lines hold a keyword */
	cr_assert_gt(hits, lines / 4, "%zu of %zu lines with a keyword", hits, lines);
}

/* Every phrase the ready reader takes as "up" (tr_ready_phrases) reaches
 * a reader: a line that holds the phrase, in lower case or with its first
 * letter a capital, at any offset, gets the ready group (or, for "model
 * loaded" and "loaded in", the loaded group: model_loaded.c reads those
 * lines). "Rasa server is up and running." was read by no reader until
 * its key was added (issue 23's twenty-second round). */
Test(prefilter, every_ready_phrase_reaches_the_ready_reader)
{
	char buf[128], ph[64];
	for (const char *const *p = tr_ready_phrases(); *p; p++)
		for (int cap = 0; cap < 2; cap++) {
			snprintf(ph, sizeof ph, "%s", *p);
			if (cap && ph[0] >= 'a' && ph[0] <= 'z')
				ph[0] = (char)(ph[0] - 'a' + 'A');
			for (size_t off = 0; off < 4; off++) {
				size_t n = place(buf, sizeof(buf), off, ph, " ~~~~");
				/* the loaded group only for the phrases model_loaded.c reads */
				uint64_t want = TR_G_GREADY | (strstr(*p, "loaded") ? TR_G_LOADED : 0);
				cr_expect(tr_prefilter(pf, buf, n) & want, "no ready key in \"%s\"", buf);
			}
		}
}
