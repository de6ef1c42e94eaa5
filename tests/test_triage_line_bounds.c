/*
 * Description: every word reader of the triage reads @s[0..n) and nothing
 * after it. The recognisers hand them pieces of a line (a message after its
 * prefix, one of several records glued on one line, the words before a
 * bar), so the bytes after n are the rest of a line, not a terminator: a
 * reader that looks one byte too far finds a word the piece does not hold
 * ("... loade" + "d"). The property, on every line of the corpus cut inside
 * each of its words: a reader gives the same answer on the cut piece
 * whether the line goes on after it or a NUL and blanks do. The cut piece
 * is also given in a block one byte longer than it, that byte the line's
 * next, so that the sanitizer build reports a read further on: a reader
 * may look at the byte after its piece (where a cleaned line keeps its
 * NUL, tr_memmem asks whether the piece is the whole line) and nothing
 * past it.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "triage/internal.h"

/* A reader's answer as numbers: the result, then any figures it gives. */
struct answer {
	double v[3];
};

typedef void reader(const char *s, size_t n, struct answer *a);

#define INT_READER(f)                                                    \
	static void r_##f(const char *s, size_t n, struct answer *a)     \
	{                                                                \
		a->v[0] = f(s, n);                                       \
	}
INT_READER(tr_pinned_words)
INT_READER(tr_killed_words)
INT_READER(tr_says_failed)
INT_READER(tr_ready_subject)
INT_READER(tr_ready_about_other)
INT_READER(tr_prompt_alone)
INT_READER(tr_shell_signal)
INT_READER(tr_shell_signal_after_bar)
INT_READER(tr_quotes_output)
INT_READER(tr_process_started)
INT_READER(tr_model_loaded_words)
INT_READER(tr_load_said_done)
INT_READER(tr_memory_brought)
INT_READER(tr_device_table_head)
INT_READER(tr_env_report_line)
INT_READER(tr_ready_at_address)
INT_READER(tr_ready_part_only)
INT_READER(tr_whole_started)
INT_READER(tr_ready_negated)
INT_READER(tr_tensor_loading)
INT_READER(tr_load_failure_words)
INT_READER(tr_hedged)
INT_READER(tr_cause_of)

static void r_prompt_command(const char *s, size_t n, struct answer *a)
{
	const char *c = tr_prompt_command(s, n);
	a->v[0] = c ? (double)(c - s) : -1;
}

static void r_moved_in(const char *s, size_t n, struct answer *a)
{
	a->v[1] = a->v[2] = -1;
	a->v[0] = tr_moved_in(s, n, &a->v[1], &a->v[2]);
}

static void r_ckpt_over_ram(const char *s, size_t n, struct answer *a)
{
	a->v[1] = -1;
	a->v[0] = tr_ckpt_over_ram(s, n, &a->v[1]);
}

static void r_percent_loaded(const char *s, size_t n, struct answer *a)
{
	a->v[1] = -1;
	a->v[0] = tr_percent_loaded(s, n, &a->v[1]);
}

static void r_parts_counted(const char *s, size_t n, struct answer *a)
{
	a->v[1] = -1;
	a->v[0] = tr_parts_counted(s, n, &a->v[1]);
}

static void r_rich_head(const char *s, size_t n, struct answer *a)
{
	size_t indent = 0, prefix = 0;
	a->v[0] = (double)tr_rich_head(s, n, &indent, &prefix);
	a->v[1] = a->v[0] ? (double)indent : 0;
	a->v[2] = a->v[0] ? (double)prefix : 0;
}

/* The figure readers at each word of the piece: what they read from
 * there, and where they stopped. */
#define FIGURE_READER(f)                                                  \
	static void r_##f(const char *s, size_t n, struct answer *a)      \
	{                                                                 \
		a->v[0] = a->v[1] = a->v[2] = 0;                          \
		for (size_t i = 0; i < n; i++) {                          \
			if (i && s[i - 1] != ' ')                         \
				continue;                                 \
			const char *p = s + i;                            \
			double v = -1;                                    \
			if (f(&p, s + n, &v)) {                           \
				a->v[0] += 1;                             \
				a->v[1] += v;                             \
				a->v[2] += (double)(p - s);               \
			}                                                 \
		}                                                         \
	}
FIGURE_READER(tr_size_gib)
FIGURE_READER(tr_num)
FIGURE_READER(tr_dur_s)
FIGURE_READER(tr_rate_gibps)

static const struct {
	const char *name;
	reader *f;
} readers[] = {
#define R(f) {#f, r_##f}
	R(tr_pinned_words), R(tr_killed_words), R(tr_says_failed), R(tr_ready_subject),
	R(tr_ready_about_other), R(tr_prompt_alone), R(tr_shell_signal), R(tr_shell_signal_after_bar),
	R(tr_quotes_output),
	R(tr_process_started), R(tr_model_loaded_words), R(tr_load_said_done), R(tr_memory_brought),
	R(tr_device_table_head), R(tr_env_report_line), R(tr_ready_at_address), R(tr_ready_part_only),
	R(tr_whole_started), R(tr_ready_negated), R(tr_tensor_loading), R(tr_load_failure_words),
	R(tr_hedged), R(tr_cause_of), R(prompt_command), R(moved_in), R(ckpt_over_ram),
	R(percent_loaded), R(parts_counted), R(rich_head), R(tr_size_gib), R(tr_num), R(tr_dur_s), R(tr_rate_gibps),
#undef R
};
#define NREADERS (sizeof(readers) / sizeof(readers[0]))

static int same(const struct answer *x, const struct answer *y)
{
	for (int i = 0; i < 3; i++)
		if (!(x->v[i] == y->v[i] || (isnan(x->v[i]) && isnan(y->v[i]))))
			return 0;
	return 1;
}

static int alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static unsigned long cuts, differ;

/* @line[0..n) read in place (the line goes on), from a copy followed by a
 * NUL and blanks, and from a block of n + 1 bytes whose last is the
 * line's next (not a NUL). */
static void check_cut(const char *line, size_t n, const char *where)
{
	char *pad = malloc(n + 16), *exact = malloc(n + 1);
	cr_assert(pad && exact);
	memcpy(pad, line, n);
	memset(pad + n, ' ', 16);
	pad[n] = '\0';
	memcpy(exact, line, n);
	exact[n] = line[n] ? line[n] : 'x';
	cuts++;
	for (size_t r = 0; r < NREADERS; r++) {
		struct answer a = {{0}}, b = {{0}}, c = {{0}};
		readers[r].f(line, n, &a);
		readers[r].f(pad, n, &b);
		readers[r].f(exact, n, &c);
		if (!same(&a, &b) || !same(&b, &c)) {
			differ++;
			cr_expect(0, "%s reads past its piece: \"%.*s\" (cut of %s) gives %g %g %g with the line going on, %g %g %g without",
				  readers[r].name, (int)n, line, where, a.v[0], a.v[1], a.v[2], b.v[0], b.v[1], b.v[2]);
		}
	}
	free(pad);
	free(exact);
}

/* Cut inside each word: before its last character (the rest of the word
 * would complete a longer word) and after its first. */
static void check_line(const char *line, size_t len, const char *where)
{
	check_cut(line, len, where);
	for (size_t i = 1; i < len; i++) {
		int word_end = alnum(line[i]) && (i + 1 == len || !alnum(line[i + 1]));
		int word_second = alnum(line[i - 1]) && alnum(line[i]) && (i < 2 || !alnum(line[i - 2]));
		if (word_end || word_second)
			check_cut(line, i, where);
	}
}

Test(triage_line_bounds, no_reader_reads_past_its_piece_on_the_corpus)
{
	DIR *d = opendir(LSC_TEST_CORPUS "/logs");
	cr_assert_not_null(d);
	struct dirent *e;
	unsigned files = 0;
	char *buf = malloc(1 << 16);
	while ((e = readdir(d)) != NULL) {
		size_t nl = strlen(e->d_name);
		if (nl < 5 || strcmp(e->d_name + nl - 4, ".log"))
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", LSC_TEST_CORPUS "/logs", e->d_name);
		FILE *f = fopen(path, "r");
		cr_assert_not_null(f, "%s", path);
		while (fgets(buf, 1 << 16, f)) {
			size_t len = strcspn(buf, "\r\n");
			/* the readers see lines the cleaner cut to at most a few
			 * hundred bytes of message; longer ones add time, not cases */
			check_line(buf, len < 400 ? len : 400, e->d_name);
		}
		fclose(f);
		files++;
	}
	closedir(d);
	free(buf);
	cr_assert_gt(files, 100, "the corpus was not found");
	cr_assert_gt(cuts, 10000);
	cr_assert_eq(differ, 0, "%lu readings of %lu cuts differed", differ, cuts);
}

/* Pieces made for the readers whose words a corpus line rarely cuts: each
 * is followed by the bytes that would make it say something else. */
Test(triage_line_bounds, a_piece_followed_by_the_word_it_lacks)
{
	static const char *const lines[] = {
		"preloaded: reserved 2 GiB for the cache loaded",
		"unloaded; allocated 512 MiB of scratch allocating",
		"Model llama3 loaded",
		"Loading model weights ... done",
		"signal: killed",
		"Server started at http://0.0.0.0:7650",
		"not ready after 30 minutes still loading",
		"pinned 28.47 GiB in 18 s",
		"loaded  51% model tensors into buffer",
		"user@host:~$ python serve.py",
		"failed to load model",
		"cudaMallocHost failed",
		"loaded 39.97 GiB at 3.06 GiB/s in 12.5 seconds",
		"load time = 284530.11 ms, 1,234,567 bytes",
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		for (size_t n = 0; n <= strlen(lines[i]); n++)
			check_cut(lines[i], n, "a made piece");
	cr_assert_eq(differ, 0);
}
