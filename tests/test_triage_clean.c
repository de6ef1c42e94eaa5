/*
 * Description: the paste cleaner (tools/triage/clean.c). Each kind of damage
 * that pasting does to a log (CRLF, ANSI colour, `> ` quoting, fences,
 * <details>, bold, syslog/journald/timestamp/(Name pid=N)/llama/vLLM
 * prefixes) is undone; line numbers survive; over-long lines and invalid
 * UTF-8 are flagged, not crashed on; any chunking gives the same result.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "triage/internal.h"
#include "triage/triage.h"

static char buf[4096];

/* Clean one line; return the cleaned text or NULL when dropped. */
static const char *clean(struct tr_clean *c, const char *in, struct tr_line *out)
{
	snprintf(buf, sizeof(buf), "%s", in);
	struct tr_line l = {.s = buf, .len = strlen(buf), .no = 7, .ts = NAN, .tsk = {NAN, NAN, NAN}};
	int keep = tr_clean_line(c, &l);
	if (out)
		*out = l;
	return keep ? l.s : NULL;
}

#define CLEAN(in, want)                                                         \
	do {                                                                    \
		struct tr_clean c_ = {0};                                       \
		const char *got_ = clean(&c_, in, NULL);                        \
		cr_assert(got_ != NULL, "dropped: %s", in);                     \
		cr_assert_str_eq(got_, want, "input: %s", in);                  \
	} while (0)

static const char *L = "strata generate: loaded 39.97 GiB at 3.12 GiB/s";

Test(triage_clean, crlf_and_ansi)
{
	CLEAN("strata generate: loaded 39.97 GiB at 3.12 GiB/s\r", L);
	CLEAN("\x1b[32mstrata generate:\x1b[0m loaded \x1b[1m39.97\x1b[0m GiB at 3.12 GiB/s\r\r", L);
	CLEAN("\x1b]0;title\x07strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	/* OSC ended by ST (ESC \\), as terminals and OSC 8 hyperlinks write it:
	 * both bytes of the terminator go, and nothing after it. */
	CLEAN("\x1b]0;title\x1b\\strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("\x1b]8;;https://x.example/\x1b\\strata\x1b]8;;\x1b\\ generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	/* An ESC inside an OSC that is not ST does not end it. */
	CLEAN("\x1b]0;a\x1b" "b\x07strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
}

/* A colour escape whose ESC a web page replaced with U+FFFD goes like
 * one intact ("\xef\xbf\xbd[1;36m"); a U+FFFD that begins no escape, or
 * one before a bracket that is text, stays. */
Test(triage_clean, ansi_with_its_esc_replaced)
{
	CLEAN("\xef\xbf\xbd[1;36mstrata generate:\xef\xbf\xbd[0;0m loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("\xef\xbf\xbd[Kstrata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("a \xef\xbf\xbd b", "a \xef\xbf\xbd b");
	CLEAN("\xef\xbf\xbd[note] x", "\xef\xbf\xbd[note] x");
	CLEAN("\xef\xbc\x81 fullwidth", "\xef\xbc\x81 fullwidth");
}

/* The same escape with its ESC written out as text: rsyslog's octal
 * ("#033[32m", as CloudWatch shows a container's colours) and caret
 * notation ("^[[33m", as cat -v and a raw terminal show it; "^[[M", a
 * terminal's mouse report) go like one intact. A '#' or '^' that begins no
 * escape stays: a count, an issue number, an exponent, a caret in prose. */
Test(triage_clean, ansi_with_its_esc_written_out)
{
	CLEAN("#033[2mstrata generate:#033[0m#033[32m loaded 39.97 GiB#033[0m at 3.12 GiB/s", L);
	CLEAN("^[[1;33mstrata generate:^[[0m loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("^[[Kstrata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("^[[M`T2^[[M`T2", "T2T2");
	CLEAN("issue #0331 and #033 and #033[x", "issue #0331 and #033 and #033[x");
	CLEAN("2^[[3] and x^2 and ^[ alone", "2^[[3] and x^2 and ^[ alone");
	CLEAN("100%|##########| 8/8 [00:04<00:00]", "100%|##########| 8/8 [00:04<00:00]");
}

/* The same escape with its ESC lost and nothing written for it, or a
 * space: a browser's copy of a terminal capture. Where the line holds a
 * reset (`[0m`) among them, each goes, and where every one sits at the
 * line's start or after a space, that space goes too (it stood for the
 * ESC). Near misses stay: an index (`[2]`), a bracket closed after the
 * m (`[0m]`), a duration (`[2m30s`), a launcher's elapsed counter with no
 * reset on its line (`[37m 36s elapsed]`), a lone `[1m` with no reset. */
Test(triage_clean, ansi_with_its_esc_lost)
{
	CLEAN("[2mtext_generation_launcher [0m [2m: [0m Args { model_id: \"m\" }",
	      "text_generation_launcher: Args { model_id: \"m\" }");
	CLEAN("[1mdownload [0m:  [2mtext_generation_launcher [0m [2m: [0m Start",
	      "download: text_generation_launcher: Start");
	/* no stand-in: the spaces are the text's own and stay */
	CLEAN("[2mstrata generate:[0m[32m loaded 39.97 GiB[0m at 3.12 GiB/s", L);
	CLEAN("server [32mready[0m at [1m8080[0m now", "server ready at 8080 now");
	CLEAN("shard [2] of [4] ready", "shard [2] of [4] ready");
	CLEAN("took [0m] and [2m30s] then [0m]", "took [0m] and [2m30s] then [0m]");
	CLEAN("Loading model... [37m 36s elapsed]", "Loading model... [37m 36s elapsed]");
	CLEAN("[1m bold but never reset", "[1m bold but never reset");
}

/* A service manager's own line in a journal is flagged (its clock is not
 * the engine's); the engine's line under the same prefix is not. */
Test(triage_clean, service_manager_lines_are_flagged)
{
	struct tr_clean c = {0};
	struct tr_line l;
	cr_assert(clean(&c, "Oct 16 15:47:12 host systemd[1]: strata.service: Consumed 4min 12.345s CPU time.", &l));
	cr_expect(l.flags & TR_L_MANAGER);
	cr_assert(clean(&c, "Oct 16 15:39:01 host systemd-journald[312]: Suppressed 1043 messages", &l));
	cr_expect(l.flags & TR_L_MANAGER);
	cr_assert(clean(&c, "Oct 16 15:39:01 host strata[1234]: strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l));
	cr_expect(!(l.flags & TR_L_MANAGER));
	cr_assert(clean(&c, "Oct 16 15:39:01 host strata[1234]: restarting systemd[1] units", &l));
	cr_expect(!(l.flags & TR_L_MANAGER), "the words in the message are not the prefix");
}

Test(triage_clean, markdown_quoting_bold_and_tags)
{
	CLEAN("> strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("> > >strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("strata generate: loaded **39.97 GiB** at **3.12** GiB/s", L);
	CLEAN("<details><summary>log</summary>strata generate: loaded 39.97 GiB at 3.12 GiB/s</details>",
	      "logstrata generate: loaded 39.97 GiB at 3.12 GiB/s");
	CLEAN("`strata generate: loaded 39.97 GiB at 3.12 GiB/s`", L);
}

Test(triage_clean, fences_are_dropped_at_any_depth)
{
	struct tr_clean c = {0};
	cr_assert_null(clean(&c, "````text", NULL));
	cr_assert_null(clean(&c, "> ```", NULL));
	cr_assert_null(clean(&c, "~~~", NULL));
	cr_assert_null(clean(&c, "<details>", NULL));
	cr_assert_null(clean(&c, "   ", NULL));
	cr_assert_not_null(clean(&c, "text before ```x``` is not a fence", NULL));
}

Test(triage_clean, logger_prefixes)
{
	CLEAN("Nov 30 04:05:16 gpu-box strata[4711]: strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("2026-10-16T15:39:01.123456+0200 gpu-box strata[4711]: strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("2026-10-16 15:39:01,123 strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("[2026-10-16 15:39:01.5] strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("[  123.456789] strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("(APIServer pid=12) (EngineCore_0 pid=99) strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("INFO 10-16 15:39:01 [loader.py:123] strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("0.00.189.951 I strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("[pid  4712] 16:20:09.812345 ioctl(3, X) = 0", "ioctl(3, X) = 0");
	/* a quoted paste collected again: the quote behind the prefix goes
	 * too, nested or not, with the indentation after it, as it does at the
	 * line's start; a '>' glued to the text stays */
	CLEAN("Nov 30 04:05:16 gpu-box strata[4711]: > strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("[2026-10-16 15:39:01.5] > >   File \"x.py\", line 1", "File \"x.py\", line 1");
	CLEAN("[2026-10-16 15:39:01.5] >>> import x", "import x");
	CLEAN(">>> import x", "import x");
	CLEAN("[2026-10-16 15:39:01.5] ->x", "->x");
}

Test(triage_clean, timestamp_is_kept_as_seconds_of_day)
{
	struct tr_clean c = {0};
	struct tr_line l;
	cr_assert_not_null(clean(&c, "2026-10-16 15:39:01.5 hello", &l));
	cr_assert_float_eq(l.ts, 15 * 3600 + 39 * 60 + 1.5, 1e-9);
	cr_assert_eq(l.no, 7);
	cr_assert_not_null(clean(&c, "no time here", &l));
	cr_assert(isnan(l.ts));
}

Test(triage_clean, engine_prefix_is_kept_but_tag_is_found)
{
	/* the strata prefix stays: recognisers find their shapes anywhere */
	CLEAN("strata generate: [loadscope/1] ready | run=1", "strata generate: [loadscope/1] ready | run=1");
}

static struct lsc_triage *feed_chunks(const char *s, size_t n, size_t chunk)
{
	struct lsc_triage *t = lsc_triage_new(NULL);
	for (size_t i = 0; i < n; i += chunk)
		lsc_triage_feed(t, s + i, n - i < chunk ? n - i : chunk);
	lsc_triage_finish(t);
	return t;
}

Test(triage_clean, clocks_are_kept_by_kind)
{
	struct tr_clean c = {0};
	struct tr_line l;
	cr_assert_not_null(clean(&c, "Oct 16 15:39:01 host strata[1]: INFO 10-17 08:12:43 [x.py:1] hi", &l));
	cr_assert_float_eq(l.tsk[0], 15 * 3600 + 39 * 60 + 1, 1e-9, "the collector's clock");
	cr_assert_float_eq(l.tsk[1], 8 * 3600 + 12 * 60 + 43, 1e-9, "the engine's clock");
	cr_assert_str_eq(l.s, "hi");
}

/* A start's duration comes from two clocks of one kind only: a paste that
 * stamped every line with one collector time changes nothing. */
Test(triage_clean, constant_collector_clock_does_not_invent_a_duration)
{
	static const char a[] = "INFO 10-17 08:12:43 [api.py:1] vLLM API server version 0.11.0\n"
				"INFO 10-17 08:12:51 [core.py:7] Initializing a V1 LLM engine (v0.11.0)\n"
				"INFO:     Application startup complete.\n";
	static const char b[] = "Oct 16 15:39:01 host x[1]: INFO 10-17 08:12:43 [api.py:1] vLLM API server version 0.11.0\n"
				"Oct 16 15:39:01 host x[1]: INFO 10-17 08:12:51 [core.py:7] Initializing a V1 LLM engine (v0.11.0)\n"
				"Oct 16 15:39:01 host x[1]: INFO:     Application startup complete.\n";
	struct lsc_triage *ta = feed_chunks(a, sizeof(a) - 1, 9), *tb = feed_chunks(b, sizeof(b) - 1, 9);
	cr_assert_eq(lsc_triage_nstarts(ta), 1);
	cr_assert_eq(lsc_triage_nstarts(tb), 1);
	/* the ready line has no clock of its own: it came no earlier than the
	 * engine's last one, 08:12:51 - 08:12:43 = 8 s; the collector's
	 * constant 15:39:01 adds nothing to it (a 0 s duration is none) */
	cr_assert_float_eq(ta->sums[0].ready_s, 8.0, 1e-9, "got %g", ta->sums[0].ready_s);
	cr_assert_float_eq(tb->sums[0].ready_s, 8.0, 1e-9, "got %g", tb->sums[0].ready_s);
	lsc_triage_free(ta);
	lsc_triage_free(tb);
}

static const char LOG[] =
	"strata generate: GPU 0: NVIDIA GeForce RTX 5070 Ti, compute capability 12.0\r\n"
	"> strata generate: expert arena: cudaHostRegister PORTABLE ok; MAP_HUGETLB unavailable (needed 20464 "
	"2 MiB pages, vm.nr_hugepages=0); transparent huge pages requested (MADV_HUGEPAGE)\r\n"
	"```\n"
	"strata generate: loaded **39.97 GiB** at 2.86 GiB/s\n"
	"```\n"
	"[strata] still starting (432 s) - please wait\n";

Test(triage_clean, any_chunking_gives_the_same_findings)
{
	struct lsc_triage *whole = feed_chunks(LOG, sizeof(LOG) - 1, sizeof(LOG));
	size_t n = lsc_triage_nfindings(whole);
	cr_assert_gt(n, 0);
	for (size_t chunk = 1; chunk < 40; chunk += 3) {
		struct lsc_triage *t = feed_chunks(LOG, sizeof(LOG) - 1, chunk);
		cr_assert_eq(lsc_triage_nfindings(t), n, "chunk %zu", chunk);
		for (size_t i = 0; i < n; i++) {
			struct lsc_triage_finding_info a, b;
			lsc_triage_finding(whole, i, &a);
			lsc_triage_finding(t, i, &b);
			cr_assert_str_eq(a.id, b.id);
			cr_assert_eq(a.first_line, b.first_line);
		}
		lsc_triage_free(t);
	}
	lsc_triage_free(whole);
}

Test(triage_clean, original_line_numbers_survive_dropped_lines)
{
	struct lsc_triage *t = feed_chunks(LOG, sizeof(LOG) - 1, 5);
	int seen = 0;
	for (size_t i = 0; i < lsc_triage_nfindings(t); i++) {
		struct lsc_triage_finding_info f;
		lsc_triage_finding(t, i, &f);
		if (!strcmp(f.id, "rate-hides-wall-time")) {
			cr_assert_eq(f.first_line, 4); /* the loaded line, after the fence on line 3 */
			seen = 1;
		}
	}
	cr_assert(seen);
	lsc_triage_free(t);
}

Test(triage_clean, overlong_line_is_truncated_and_flagged)
{
	size_t n = LSC_TRIAGE_LINE_MAX + 4096;
	char *big = malloc(n + 200);
	cr_assert_not_null(big);
	memset(big, 'x', n);
	memcpy(big + 10, " loaded ", 8);
	big[n] = '\n';
	memcpy(big + n + 1, "strata generate: verify: timed out at layer 32\n", 48);
	struct lsc_triage *t = lsc_triage_new(NULL);
	lsc_triage_feed(t, big, n + 1 + 47);
	lsc_triage_finish(t);
	cr_assert_eq(lsc_triage_nlines(t), 2);
	cr_assert_eq(t->ntrunc, 1);
	int seen = 0;
	for (size_t i = 0; i < lsc_triage_nfindings(t); i++) {
		struct lsc_triage_finding_info f;
		lsc_triage_finding(t, i, &f);
		seen |= !strcmp(f.id, "verify-failed") && f.first_line == 2;
	}
	cr_assert(seen, "the line after the long one is still read, with its number");
	lsc_triage_free(t);
	free(big);
}

/* The line buffers grow with the longest line (and swap as lines are
 * held): a line's end is read whatever its length up to
 * LSC_TRIAGE_LINE_MAX, after lines as long as it, fed whole or in pieces
 * that cross each size the buffers pass through; one byte more is cut and
 * flagged. @n bytes a line, @lines of them, the failure at the last one's
 * very end, then a short line (no length a terminal wraps at, so no line
 * continues another). */
static struct lsc_triage *long_lines_then_failure(size_t n, unsigned lines, size_t chunk)
{
	static const char tail[] = " verify: timed out at layer 32";
	size_t len = lines * (n + 1) + 4;
	char *big = malloc(len);
	cr_assert_not_null(big);
	memset(big, 'x', len);
	for (unsigned i = 0; i < lines; i++) {
		char *line = big + i * (n + 1);
		memcpy(line, "strata generate:", 16);
		line[n] = '\n';
	}
	memcpy(big + lines * (n + 1) - 1 - (sizeof(tail) - 1), tail, sizeof(tail) - 1);
	memcpy(big + lines * (n + 1), "end\n", 4);
	struct lsc_triage *t = lsc_triage_new(NULL);
	cr_assert_not_null(t);
	for (size_t off = 0; off < len; off += chunk)
		cr_assert_eq(lsc_triage_feed(t, big + off, len - off < chunk ? len - off : chunk), 0);
	lsc_triage_finish(t);
	free(big);
	return t;
}

static int failure_read(struct lsc_triage *t, unsigned long line)
{
	for (size_t i = 0; i < lsc_triage_nfindings(t); i++) {
		struct lsc_triage_finding_info f;
		lsc_triage_finding(t, i, &f);
		if (!strcmp(f.id, "verify-failed") && f.first_line == line)
			return 1;
	}
	return 0;
}

Test(triage_clean, long_lines_are_read_to_their_end_whatever_the_pieces)
{
	const size_t lens[] = {99, 4093, 4094, 4095, 4096, 4097, 8190, 8191, 65537, 300000};
	const size_t chunks[] = {1 << 30, 4096, 4093, 1000};
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++)
			for (unsigned k = 1; k <= 3; k++) {
				struct lsc_triage *t = long_lines_then_failure(lens[i], k, chunks[c]);
				cr_assert_eq(lsc_triage_nlines(t), k + 1, "%u x %zu bytes in pieces of %zu", k, lens[i],
					     chunks[c]);
				cr_assert_eq(t->ntrunc, 0, "%u x %zu bytes in pieces of %zu", k, lens[i], chunks[c]);
				cr_assert(failure_read(t, k), "the end of line %u of %zu bytes, fed in pieces of %zu", k,
					  lens[i], chunks[c]);
				lsc_triage_free(t);
			}
}

Test(triage_clean, line_max_is_kept_and_one_byte_more_is_cut)
{
	struct lsc_triage *t = long_lines_then_failure(LSC_TRIAGE_LINE_MAX, 2, 65536);
	cr_assert_eq(t->ntrunc, 0);
	cr_assert(failure_read(t, 2), "a line of exactly LSC_TRIAGE_LINE_MAX bytes is read whole");
	lsc_triage_free(t);
	t = long_lines_then_failure(LSC_TRIAGE_LINE_MAX + 1, 2, 65536);
	cr_assert_eq(t->ntrunc, 2);
	cr_assert_eq(lsc_triage_nlines(t), 3);
	lsc_triage_free(t);
}

Test(triage_clean, invalid_utf8_and_nul_bytes)
{
	static const char s[] = "strata generate: \xff\xfe\xc3 loaded 39.97 GiB at 3.12 GiB/s \xe2\x82\n"
				"\x00\x01\x02 verify: timed out at layer 1 \xf4\x90\x80\x80\n";
	struct lsc_triage *t = feed_chunks(s, sizeof(s) - 1, 7);
	cr_assert_eq(lsc_triage_nlines(t), 2);
	cr_assert_geq(t->nbad_utf8, 1);
	cr_assert_eq(lsc_triage_exit_code(t), LSC_TRIAGE_EXIT_FAIL); /* verify-failed still found */
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	cr_assert_eq(lsc_triage_render(t, LSC_TRIAGE_JSON, f), 0);
	fclose(f);
	for (size_t i = 0; i < len; i++)
		cr_assert((unsigned char)out[i] != 0xff && (unsigned char)out[i] != 0xfe, "invalid byte rendered");
	free(out);
	lsc_triage_free(t);
}

/* A JSON-lines record's message, unescaped: \uXXXX is its character when
 * printable ASCII, else '?', and the text after it is kept whole; \n and
 * \t are spaces; \" \\ \/ their character. */
Test(triage_clean, json_message_escapes)
{
	CLEAN("{\"level\":\"info\",\"msg\":\"a\\u0041b\"}", "aAb");
	CLEAN("{\"level\":\"info\",\"msg\":\"x\\u00e9y\\u0007z\"}", "x?y?z");
	CLEAN("{\"level\":\"info\",\"msg\":\"one\\ntwo\\tthree \\\"q\\\" \\\\ \\/mnt\"}", "one two three \"q\" \\ /mnt");
}

/* A launcher's "[name]: " tag and docker compose's "service-1  | " go
 * before the logger's prefix is read; a level in brackets, a Markdown
 * table row and prose with a bar in it stay. */
Test(triage_clean, launcher_and_compose_tags)
{
	struct tr_clean c = {0};
	struct tr_line l;
	cr_assert_str_eq(clean(&c, "[vllm]: (VllmWorkerProcess pid=89) ERROR 07-28 23:29:37 multiproc_worker_utils.py:226]"
				   "   File \"x.py\", line 1, in f", &l),
			 "File \"x.py\", line 1, in f");
	cr_expect_eq(l.level, TR_LV_ERROR);
	cr_assert_str_eq(clean(&c, "tabbyapi-1  | 2025-05-07 14:50:47.950 ERROR:    Traceback (most recent call last):", &l),
			 "Traceback (most recent call last):");
	cr_expect_eq(l.level, TR_LV_ERROR);
	CLEAN("app_1 | strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	/* after the viewer's clock (Docker Desktop's), with its time kept */
	cr_assert_str_eq(clean(&c, "2024-09-25 20:17:58 auto-1  | Loading weights [2f049d7fc6] from /m", &l),
			 "Loading weights [2f049d7fc6] from /m");
	cr_expect_float_eq(l.ts, 20 * 3600 + 17 * 60 + 58, 1e-9);
	/* ... in a quoted paste too: the quote before the clock is no compose tag
	 * already taken (issue 23's tenth round: a compose log collected by
	 * journald, then quoted) */
	CLEAN("> > Oct 16 15:39:01 host strata[1234]: [2026-10-16 15:39:01.123] (EngineCore_0 pid=1401) "
	      "text-embeddings-1  | strata generate: loaded 39.97 GiB at 3.12 GiB/s",
	      L);
	CLEAN("> 2024-09-25 20:17:58 app_1 | strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("INFO 07-28 23:29:37 loader.py:12] strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	/* near misses */
	CLEAN("[ERROR]: could not open the model", "[ERROR]: could not open the model");
	CLEAN("| densenet_onnx | 1 | READY |", "| densenet_onnx | 1 | READY |");
	CLEAN("load the model | then serve", "load the model | then serve");
	CLEAN("[a b]: not a tag", "[a b]: not a tag");
	CLEAN("INFO 07-28 23:29:37 two words.py:12] kept", "two words.py:12] kept");
}

/* A table a program drew, +---+ borders: its rows are flagged as such; a
 * Markdown table's are prose only, and a row after the table ended is
 * not the table's. */
Test(triage_clean, drawn_table_rows_are_flagged)
{
	struct tr_clean c = {0};
	struct tr_line l;
	cr_assert_not_null(clean(&c, "+-------+--------+", &l));
	cr_assert_not_null(clean(&c, "| Model | Status |", &l));
	cr_expect(l.flags & TR_L_TABLE);
	cr_expect(l.flags & TR_L_MDTABLE);
	cr_assert_not_null(clean(&c, "+=======+========+", &l));
	cr_assert_not_null(clean(&c, "| m     | READY  |", &l));
	cr_expect(l.flags & TR_L_TABLE);
	clean(&c, "I0110 21:30:54.920786 60 tritonserver.cc:1920]", &l); /* a prefix alone: dropped, and ends the table */
	cr_assert_not_null(clean(&c, "| m     | READY  |", &l));
	cr_expect(!(l.flags & TR_L_TABLE), "the table ended");
	struct tr_clean md = {0};
	cr_assert_not_null(clean(&md, "| a | b |", &l));
	cr_assert_not_null(clean(&md, "|---|---|", &l));
	cr_assert_not_null(clean(&md, "| m | READY |", &l));
	cr_expect(!(l.flags & TR_L_TABLE), "a Markdown table");
	cr_expect(l.flags & TR_L_MDTABLE);
	cr_assert_not_null(clean(&md, "+ a + b +", &l));
	cr_assert_not_null(clean(&md, "| m | READY |", &l));
	cr_expect(!(l.flags & TR_L_TABLE), "not a border: words in it");
}

/* A fence's backticks are kept for the fence check and what follows them
 * is cleaned as anywhere else: bold marks, tags and inline code go. */
Test(triage_clean, after_a_fence_the_marks_still_go)
{
	CLEAN("```**Error**: the runner was killed```", "Error: the runner was killed");
	CLEAN("```<b>Error</b>: killed```", "Error: killed");
}

/* A JSON line's message may open with its own logger prefix: it goes. */
Test(triage_clean, a_json_message_loses_its_own_prefix)
{
	struct tr_clean c = {0};
	struct tr_line l;
	const char *got = clean(&c, "{\"level\":\"info\",\"msg\":\"INFO 10-17 08:12:43 [x.py:1] hi\"}", &l);
	cr_assert_not_null(got);
	cr_expect_str_eq(got, "hi");
	cr_expect_str_eq(clean(&c, "{\"msg\":\"WARNING 10-17 08:12:43 [x.py:1] hi\"}", &l), "hi");
}

/* A JSON line's level is its "level" (or "severity") word, read by its
 * first letter in any case: error; fatal, critical, panic; warn; debug,
 * trace; anything else info. */
Test(triage_clean, a_json_lines_level_word_is_its_level)
{
	static const struct {
		const char *word;
		unsigned char level;
	} w[] = {{"error", TR_LV_ERROR},   {"ERROR", TR_LV_ERROR}, {"fatal", TR_LV_FATAL}, {"critical", TR_LV_FATAL},
		 {"CRITICAL", TR_LV_FATAL}, {"panic", TR_LV_FATAL}, {"warn", TR_LV_WARN},   {"warning", TR_LV_WARN},
		 {"debug", TR_LV_DEBUG},   {"trace", TR_LV_DEBUG}, {"info", TR_LV_INFO},   {"notice", TR_LV_INFO}};
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		for (int sev = 0; sev < 2; sev++) {
			struct tr_clean c = {0};
			struct tr_line l;
			char line[128];
			snprintf(line, sizeof line, "{\"%s\":\"%s\",\"msg\":\"model weights read\"}",
				 sev ? "severity" : "level", w[i].word);
			cr_expect_str_eq(clean(&c, line, &l), "model weights read", "%s", line);
			cr_expect_eq(l.level, w[i].level, "%s: level %u", line, l.level);
		}
}

/* An engine's own "name: " prefix is looked behind for a clock when the
 * name is at most 40 bytes; a longer run of name bytes is prose. */
Test(triage_clean, an_engine_prefix_up_to_40_bytes_gives_its_clock)
{
	for (int len = 38; len <= 42; len++) {
		char in[256], name[64];
		memset(name, 'a', (size_t)len);
		name[len] = '\0';
		snprintf(in, sizeof in, "%s: INFO 10-17 08:12:43 [x.py:1] hi", name);
		struct tr_clean c = {0};
		struct tr_line l;
		cr_assert_not_null(clean(&c, in, &l));
		if (len <= 40)
			cr_expect_float_eq(l.ts, 8 * 3600 + 12 * 60 + 43, 1e-9, "a %d-byte name: no clock", len);
		else
			cr_expect(isnan(l.ts), "a %d-byte name: a clock %g", len, l.ts);
	}
}

/* glog's prefix with the year its newer releases print ("I20241218
 * 09:35:42.357483 tid file:line] ") is stripped like the older one, its
 * clock and level kept; and llama.cpp's process clock ("4.32.012.275 I ",
 * minutes.seconds.ms.us) is the engine's clock: 4 min 32.012275 s. Near
 * misses: a date of 6 digits, a dotted version with no level letter. */
Test(triage_clean, glog_year_prefix_and_llama_process_clock)
{
	struct tr_clean c = {0};
	struct tr_line l;
	const char *got = clean(&c, "I20241218 09:35:42.357483 3029784 server.cpp:311] Server listening on 0.0.0.0:8073", &l);
	cr_assert(got);
	cr_expect_str_eq(got, "Server listening on 0.0.0.0:8073");
	cr_expect_float_eq(l.ts, 9 * 3600 + 35 * 60 + 42.357483, 1e-6);
	cr_expect_eq(l.level, TR_LV_INFO);
	got = clean(&c, "E20241218 09:35:42.357483 3029784 server.cpp:311] bind failed", &l);
	cr_expect_eq(l.level, TR_LV_ERROR);
	CLEAN("I202412 09:35:42.357483 3029784 server.cpp:311] x", "I202412 09:35:42.357483 3029784 server.cpp:311] x");
	got = clean(&c, "4.32.012.275 I loaded  51% model tensors into buffer", &l);
	cr_assert(got);
	cr_expect_str_eq(got, "loaded  51% model tensors into buffer");
	cr_expect_float_eq(l.ts, 4 * 60 + 32.012275, 1e-6);
	got = clean(&c, "1.2.3.4 loaded", &l);
	cr_expect_str_eq(got, "1.2.3.4 loaded");
	cr_expect(isnan(l.ts));
}

/* A library's run of bracketed fields with a level among them is its
 * prefix: stripped whole, the level kept ("[serving][info][server.cpp:89]
 * ", after the date and pid the bracket reader takes; "[lib] [thread 7]
 * [warning] "; "[ INFO ] "). Near misses: a run with no level name, a
 * level inside a message's bracket further on. */
Test(triage_clean, bracketed_run_with_a_level)
{
	struct tr_clean c = {0};
	struct tr_line l;
	const char *got = clean(&c, "[2025-05-06 22:23:31.007][16942][serving][info][server.cpp:89] OpenVINO Model Server", &l);
	cr_assert(got);
	cr_expect_str_eq(got, "OpenVINO Model Server");
	cr_expect_eq(l.level, TR_LV_INFO);
	got = clean(&c, "[lib] [thread 7] [warning] slow read", &l);
	cr_expect_str_eq(got, "slow read");
	cr_expect_eq(l.level, TR_LV_WARN);
	got = clean(&c, "[ ERROR ] could not compile", &l);
	cr_expect_str_eq(got, "could not compile");
	cr_expect_eq(l.level, TR_LV_ERROR);
	CLEAN("[lib] [thread 7] slow read", "[lib] [thread 7] slow read");
	CLEAN("[a] b [info] c", "[a] b [info] c");
	/* one field with a clock and the level among its words (a Rust
	 * logger's), also as the message of a JSON record whose level is "None" */
	got = clean(&c, "[09-25 19:03:45.989 ERROR  nim_sdk::hub::repo  rust/nim-sdk/src/hub/repo.rs:119] error sending", &l);
	cr_expect_str_eq(got, "error sending");
	cr_expect_eq(l.level, TR_LV_ERROR);
	got = clean(&c, "{\"level\": \"None\", \"message\": \"[09-25 19:03:45.989 ERROR  nim_sdk::hub  repo.rs:119] "
			"error sending\", \"exc_info\": \"None\"}", &l);
	cr_expect_str_eq(got, "error sending");
	cr_expect_eq(l.level, TR_LV_ERROR);
	CLEAN("[see 12:00:00 Errors] x", "[see 12:00:00 Errors] x");
	CLEAN("[ERROR with no clock] x", "[ERROR with no clock] x");
}

/*
 * A logger prefix's level word, each of the nine, in three layouts
 * (vLLM's "LEVEL MM-DD hh:mm:ss [file.py:N] ", its older "LEVEL MM-DD
 * hh:mm:ss file.py:N] ", and a bracketed field "[LEVEL] "): the prefix is
 * taken off and the line gets the word's level, by its meaning: TRACE and
 * DEBUG debug, INFO and NOTICE info, WARN and WARNING warn, ERROR error,
 * CRITICAL and FATAL fatal. The level decides whether a line can be a
 * start's failure, so each word is checked on its own.
 */
Test(triage_clean, each_prefix_level_word_is_its_level)
{
	static const struct {
		const char *word;
		unsigned char level;
	} w[] = {{"TRACE", TR_LV_DEBUG},  {"DEBUG", TR_LV_DEBUG}, {"INFO", TR_LV_INFO},
		 {"NOTICE", TR_LV_INFO},  {"WARN", TR_LV_WARN},   {"WARNING", TR_LV_WARN},
		 {"ERROR", TR_LV_ERROR},  {"CRITICAL", TR_LV_FATAL}, {"FATAL", TR_LV_FATAL}};
	static const char *const layout[] = {"%s 10-17 08:12:43 [x.py:1] model weights read",
					     "%s 10-17 08:12:43 x.py:1] model weights read",
					     "[%s] model weights read"};
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		for (size_t k = 0; k < sizeof(layout) / sizeof(layout[0]); k++) {
			struct tr_clean c = {0};
			struct tr_line l;
			char line[128];
			snprintf(line, sizeof line, layout[k], w[i].word);
			const char *got = clean(&c, line, &l);
			cr_assert(got, "dropped: %s", line);
			cr_expect_str_eq(got, "model weights read", "%s", line);
			cr_expect_eq(l.level, w[i].level, "%s: level %u, not %u", line, l.level, w[i].level);
		}
}

/*
 * A GitHub <details> or <summary> tag with attributes ("<details open>",
 * "<summary class=...>") comes off as the bare tags do, up to its '>';
 * one with no '>' on the line, or a word that only starts like it
 * ("<detailsx"), is text.
 */
Test(triage_clean, a_details_tag_with_attributes_comes_off)
{
	CLEAN("<details open>strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("<summary class=\"log\">strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("<DETAILS open>strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	/* inside the line, where a '>' left behind would show */
	CLEAN("strata generate: <details open>loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("<details open strata generate: loaded 39.97 GiB at 3.12 GiB/s",
	      "<details open strata generate: loaded 39.97 GiB at 3.12 GiB/s");
	CLEAN("<detailsx>strata generate: loaded 39.97 GiB at 3.12 GiB/s",
	      "<detailsx>strata generate: loaded 39.97 GiB at 3.12 GiB/s");
}

/* The stream's name a collector writes before each line (issue 23's
 * thirteenth round: a macOS app's `[hh:mm:ss] STDOUT: ` over its server's
 * slog lines hid every one of them): gone, in any layout, with the clock
 * before it kept; near misses on both sides stay. */
Test(triage_clean, a_stream_name_before_the_line)
{
	struct tr_clean c = {0};
	struct tr_line l;
	cr_assert_str_eq(clean(&c, "[21:07:37] STDOUT: Mar 17 21:07:37 ERROR failed starting/connecting to the gRPC service",
			       &l),
			 "ERROR failed starting/connecting to the gRPC service");
	cr_expect_float_eq(l.ts, 21 * 3600 + 7 * 60 + 37, 1e-9);
	CLEAN("STDERR: strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("stderr: strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("[1] stdout: strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("[stderr] strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("[STDOUT]: strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	/* the container runtime's CRI record, after its time */
	CLEAN("2024-06-01T10:00:00.123456789Z stdout F strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("2024-06-01T10:00:00.123456789Z stderr P strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	/* near misses: a name in mixed case, a word that starts with it, the
	 * name as a sentence's subject, nothing after it, no CRI tag */
	CLEAN("StdOut: kept as written", "StdOut: kept as written");
	CLEAN("stdout_logfile=/var/log/x.log", "stdout_logfile=/var/log/x.log");
	CLEAN("stderr is redirected to the log", "stderr is redirected to the log");
	CLEAN("stdouts: kept", "stdouts: kept");
	CLEAN("[1] stdout:", "stdout:");
	CLEAN("stdout X kept", "stdout X kept");
	CLEAN("STDOUT F kept", "STDOUT F kept");
	CLEAN("[stdout]kept", "[stdout]kept");
	CLEAN("strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
}

/* A log viewer's date and time as a column before ` | ` (Rancher's UI):
 * gone, so the program's own line and its prefixes behind it are read;
 * a clock with words of its own, a table row, a compose name stay. */
Test(triage_clean, a_viewers_date_column)
{
	CLEAN("Sun, May 29 2022 2:12:16 am | strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("Sun, May 29 2022 2:12:16 am | I0529 09:12:16.195634 1 loader.cc:700] "
	      "strata generate: loaded 39.97 GiB at 3.12 GiB/s",
	      L);
	CLEAN("2022-05-29 02:12:16 | strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	CLEAN("Sunday, May 29 2022 14:12:16 UTC | strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	/* near misses */
	CLEAN("12:00:01 step one | two", "step one | two"); /* the bare clock goes, the words stay */
	CLEAN("Step 2 of 12:00:01 | x", "Step 2 of 12:00:01 | x");
	CLEAN("May 29 2022 | no clock", "May 29 2022 | no clock");
	CLEAN("| 2022-05-29 02:12:16 | row |", "| 2022-05-29 02:12:16 | row |");
	CLEAN("Sun, May 29 2022 2:12:16 am |x", "Sun, May 29 2022 2:12:16 am |x");
}

/* A logger's `::`-joined fields and its level before an arrow, after its
 * bracketed time (InvokeAI's `[...]::[InvokeAI]::INFO --> `): gone, the
 * level kept; a C++ scope, a name's fields with no level, an arrow after
 * another word stay. */
Test(triage_clean, colon_joined_fields_and_a_level_arrow)
{
	struct tr_clean c = {0};
	struct tr_line l;
	cr_assert_str_eq(clean(&c, "[2023-08-08 15:09:33,287]::[InvokeAI]::ERROR --> strata generate: loaded 39.97 GiB "
				   "at 3.12 GiB/s", &l),
			 L);
	cr_expect_eq(l.level, TR_LV_ERROR);
	CLEAN("::[app]::info -> strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	/* near misses */
	CLEAN("::[app]::step --> kept", "::[app]::step --> kept");
	CLEAN("::[app]::INFO kept", "::[app]::INFO kept");
	CLEAN("std::vector --> kept", "std::vector --> kept");
	CLEAN("::ffff:10.0.0.1 kept", "::ffff:10.0.0.1 kept");
}

/* A line, what the cleaner leaves of it, and the level it read (0 none). */
struct leveled {
	const char *in, *out;
	int level;
};

static void expect_cleaned_with_level(const struct leveled *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct tr_clean c = {0};
		struct tr_line l;
		const char *got = clean(&c, cases[i].in, &l);
		cr_assert(got, "dropped: %s", cases[i].in);
		cr_expect_str_eq(got, cases[i].out, "%s", cases[i].in);
		cr_expect_eq(l.level, cases[i].level, "level of %s: %d", cases[i].in, l.level);
	}
}

/* issue 23's eighteenth round: a pipe-separated head's level column
 * (FastChat's and InternVL's `date | ERROR | stderr | `): gone, the level
 * kept, at the line's start too (not taken for docker compose's service
 * tag, which the stream's column after it then is). Near misses: a word in capitals that is no level
 * before a bar (compose's tag: gone, no level), a stream name that is a
 * word of the message, a level with no space after its bar. */
Test(triage_clean, a_pipe_heads_level_and_stream_columns)
{
	static const struct leveled cases[] = {
		{"2024-05-17 15:30:19 | ERROR | stderr | Traceback (most recent call last):",
		 "Traceback (most recent call last):", TR_LV_ERROR},
		{"2024-05-17 15:30:19 | INFO | stdout | Loading the model",
		 "Loading the model", TR_LV_INFO},
		{"WARNING  | stderr | x", "x", TR_LV_WARN},
		{"2024-05-17 15:30:19 | GPU | x", "x", 0},
		{"stderr is redirected", "stderr is redirected", 0},
		{"ERROR |x", "ERROR |x", 0},
	};
	expect_cleaned_with_level(cases, sizeof cases / sizeof cases[0]);
}

/* issue 23's eighteenth round: Python logging's `asctime - name -
 * levelname - message` after its clock, and Seldon's `- module:func:line -
 * INFO: `: gone, the level kept. Near misses: a list's dash before words,
 * a name with no level after it, a level with neither dash nor colon after
 * it, a level word in lower case (a word of the message). */
Test(triage_clean, python_loggings_dashed_fields)
{
	static const struct leveled cases[] = {
		{"2026-04-17 10:24:25,709 - __main__ - INFO - voicebox-server starting up...",
		 "voicebox-server starting up...", TR_LV_INFO},
		{"2021-03-10 05:20:02,108 - seldon_core.microservice:main:225 - INFO: Starting microservice.py:main",
		 "Starting microservice.py:main", TR_LV_INFO},
		{"2026-04-17 10:24:25,709 - ERROR - model failed", "model failed", TR_LV_ERROR},
		{"2026-04-17 10:24:25,709 - app - WARNING: low memory", "low memory", TR_LV_WARN},
		{"- load the model first", "- load the model first", 0},
		{"- app - nothing here", "- app - nothing here", 0},
		{"- app - INFO model", "- app - INFO model", 0},
		{"- app - info - x", "- app - info - x", 0},
	};
	expect_cleaned_with_level(cases, sizeof cases / sizeof cases[0]);
}

/* loguru's place of the call after its level (`name:function:line - `, or
 * ` | ` in a variant): gone, so a function named like an event
 * (`_wait_for_ready`) is no word of the message; a `host:port - `, a ratio,
 * a place with no line number, a word with a space in it stay. */
Test(triage_clean, a_loggers_place_of_the_call)
{
	CLEAN("2026-05-01 22:05:05 | INFO     | app.core.handler_process:_wait_for_ready:675 | "
	      "strata generate: loaded 39.97 GiB at 3.12 GiB/s",
	      L);
	CLEAN("2024-01-02 03:04:05.678 | INFO     | __main__:<module>:12 - strata generate: loaded 39.97 GiB at 3.12 GiB/s",
	      L);
	CLEAN("server.loader:load-model:9 - strata generate: loaded 39.97 GiB at 3.12 GiB/s", L);
	/* near misses */
	CLEAN("localhost:8080 - kept as written", "localhost:8080 - kept as written");
	CLEAN("a:b - kept", "a:b - kept");
	CLEAN("app.loader:load:x - kept", "app.loader:load:x - kept");
	CLEAN("app.loader:load:12 -kept", "app.loader:load:12 -kept");
	CLEAN("app.loader:load:12 + kept", "app.loader:load:12 + kept");
	CLEAN("app loader:load:12 - kept", "app loader:load:12 - kept");
	CLEAN("app.loader:12 - kept", "app.loader:12 - kept");
}

/* Python logging's `name LEVEL : message` (Frigate's): the logger's name
 * and its level go, the level kept; a sentence with a capital word, a
 * level word that is not one, a colon with no space after it stay. */
Test(triage_clean, a_loggers_name_and_level_before_a_colon)
{
	struct tr_clean c = {0};
	struct tr_line l;
	cr_assert_str_eq(clean(&c, "frigate.detectors.plugins.tensorrt ERROR   : strata generate: loaded 39.97 GiB at 3.12 GiB/s",
			       &l),
			 L);
	cr_expect_eq(l.level, TR_LV_ERROR);
	cr_assert_str_eq(clean(&c, "detector.tensorrt              INFO    : strata generate: loaded 39.97 GiB at 3.12 GiB/s",
			       &l),
			 L);
	cr_expect_eq(l.level, TR_LV_INFO);
	cr_assert_str_eq(clean(&c, "frigate.app WARNING : strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l), L);
	cr_expect_eq(l.level, TR_LV_WARN);
	/* near misses */
	CLEAN("model NOTES : kept", "model NOTES : kept");
	CLEAN("frigate.app INFO :kept", "frigate.app INFO :kept");
	CLEAN("frigate.app Info : kept", "frigate.app Info : kept");
	CLEAN("frigate.app INFO kept", "frigate.app INFO kept");
}

/* Python logging's default `LEVEL:name:message` (basicConfig's): the
 * level and the logger's dotted name go, the level kept; a scheme or a
 * drive after the level, a name of one character, words with a space, a
 * clock, a name ending in a dot, uvicorn's `INFO:     ` stay as they were
 * read before (the level alone gone, or nothing). */
Test(triage_clean, a_loggers_default_level_and_name)
{
	struct tr_clean c = {0};
	struct tr_line l;
	cr_assert_str_eq(clean(&c, "INFO:python_coreml_stable_diffusion.coreml_model:strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l), L);
	cr_expect_eq(l.level, TR_LV_INFO);
	cr_assert_str_eq(clean(&c, "WARNING:root:strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l), L);
	cr_expect_eq(l.level, TR_LV_WARN);
	cr_assert_str_eq(clean(&c, "ERROR:__main__:strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l), L);
	cr_expect_eq(l.level, TR_LV_ERROR);
	/* near misses */
	CLEAN("ERROR:http://host/x", "http://host/x");
	CLEAN("ERROR:C:\\models\\x.gguf", "C:\\models\\x.gguf");
	CLEAN("ERROR:file:\\\\server\\m.gguf", "file:\\\\server\\m.gguf");
	CLEAN("INFO:x:kept", "x:kept");
	CLEAN("INFO:ab:kept", "kept"); /* two characters: a name */
	CLEAN("INFO:model loaded:kept", "model loaded:kept");
	CLEAN("INFO:12:30:kept", "12:30:kept");
	CLEAN("INFO:app.:kept", "app.:kept");
	CLEAN("INFO:     app.loader:kept", "app.loader:kept");
	CLEAN("INFO:app.loader", "app.loader");
}

/* glog's letter and a clock with no date, the place one token before its
 * `]` (ExecuTorch's runner): gone, the level kept; a place with a space,
 * no colon in it, or no `]` stays. */
Test(triage_clean, a_glog_letter_and_a_clock_with_no_date)
{
	struct tr_clean c = {0};
	struct tr_line l;
	cr_assert_str_eq(clean(&c, "I 00:00:02.721396 executorch:runner.cpp:420] strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l), L);
	cr_expect_eq(l.level, TR_LV_INFO);
	cr_assert_str_eq(clean(&c, "E 00:01:02.000001 executorch:method.cpp:9] strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l), L);
	cr_expect_eq(l.level, TR_LV_ERROR);
	/* near misses */
	CLEAN("I 00:00:02.721396 runner.cpp] kept", "I 00:00:02.721396 runner.cpp] kept");
	CLEAN("I 00:00:02.721396 a b:1] kept", "I 00:00:02.721396 a b:1] kept");
	CLEAN("I 00:00:02.721396 executorch:runner.cpp:420 kept", "I 00:00:02.721396 executorch:runner.cpp:420 kept");
	CLEAN("X 00:00:02.721396 executorch:runner.cpp:420] kept", "X 00:00:02.721396 executorch:runner.cpp:420] kept");
}

/* Android Studio's logcat columns after the date and the clock (`PID-TID
 * TAG PACKAGE L `): gone, the level letter kept (A and F fatal); a row
 * with no pid-tid pair, no level letter or a word where the letter goes
 * stays. */
Test(triage_clean, logcats_columns)
{
	struct tr_clean c = {0};
	struct tr_line l;
	cr_assert_str_eq(clean(&c, "2023-12-25 10:28:45.844 20738-20777 libc                    com.mnn.llm      "
				   "A  strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l), L);
	cr_expect_eq(l.level, TR_LV_FATAL);
	cr_assert_str_eq(clean(&c, "2025-02-13 16:10:00.357 28525-677   utorchllamademo  com.example.app  W  "
				   "strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l), L);
	cr_expect_eq(l.level, TR_LV_WARN);
	cr_assert_str_eq(clean(&c, "2025-02-13 16:10:00.357 1-2 ETLogging pid-677 E strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l), L);
	cr_expect_eq(l.level, TR_LV_ERROR);
	/* near misses */
	CLEAN("2025-02-13 16:10:00.357 28525 libc com.x A kept", "28525 libc com.x A kept");
	CLEAN("2025-02-13 16:10:00.357 28525-677 libc com.x kept", "28525-677 libc com.x kept");
	CLEAN("2025-02-13 16:10:00.357 28525-677 libc com.x Z kept", "28525-677 libc com.x Z kept");
	CLEAN("2025-02-13 16:10:00.357 28525-677 libc com.x Ab kept", "28525-677 libc com.x Ab kept");
}

/* Logback's and Log4j's `[thread] LEVEL logger - ` after the clock: gone,
 * the level kept; a thread with a space in its brackets, a level word
 * that is not one, a logger with no dot, no ` - ` after it stay as the
 * bracket's own readers leave them. */
Test(triage_clean, a_java_loggers_thread_level_and_name)
{
	struct tr_clean c = {0};
	struct tr_line l;
	cr_assert_str_eq(clean(&c, "2024-01-01 12:00:01.123 [main] ERROR c.e.ModelServer - strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l), L);
	cr_expect_eq(l.level, TR_LV_ERROR);
	cr_assert_str_eq(clean(&c, "12:00:00.123 [pool-1-thread-2] WARN  ai.djl.serving.ModelServer - strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l), L);
	cr_expect_eq(l.level, TR_LV_WARN);
	/* near misses */
	CLEAN("[main thread] ERROR c.e.M - kept", "[main thread] ERROR c.e.M - kept");
	CLEAN("[main] NOTES c.e.M - kept", "[main] NOTES c.e.M - kept");
	CLEAN("[main] ERROR Model - kept", "[main] ERROR Model - kept");
	CLEAN("[main] ERROR c.e.M: kept", "[main] ERROR c.e.M: kept");
}

/* The dash between a bracketed level and the message ("[    INFO] - ",
 * PaddleSpeech's logger): gone with the head, the level kept; a double
 * dash, a dash glued to the word, a dash after no level stay. */
Test(triage_clean, the_dash_after_a_bracketed_level)
{
	struct tr_clean c = {0};
	struct tr_line l;
	cr_assert_str_eq(clean(&c, "[2023-07-19 07:09:25,198] [    INFO] - strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l), L);
	cr_expect_eq(l.level, TR_LV_INFO);
	CLEAN("[    INFO] -- kept", "-- kept");
	CLEAN("[    INFO] -kept", "-kept");
	CLEAN("[x] - kept", "[x] - kept");
}

/* issue 23's twentieth round: a front end's tag for the program whose
 * lines it relays (`[Server] [54634] 0.00.174.596 E gguf_init...`, a
 * llama.cpp router child's lines), before the program's own prefix (a
 * bracketed pid, a date, a clock), goes with it, and the program's level
 * and clock are read. Near misses: the tag before text, a tag with a
 * space in it, a tag before a bracketed word or an empty bracket stay,
 * and a level in brackets is read as the level. */
Test(triage_clean, a_front_ends_tag_before_the_programs_prefix)
{
	struct tr_clean c = {0};
	struct tr_line l;
	cr_assert_str_eq(clean(&c, "[Server] [54634] 0.00.174.596 E strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l), L);
	cr_expect_eq(l.level, TR_LV_ERROR);
	cr_expect_float_eq(l.ts, 0.174596, 1e-9);
	cr_assert_str_eq(clean(&c, "[Docker] 2026-04-12T11:13:08.579523Z strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l), L);
	cr_expect_float_eq(l.ts, 11 * 3600 + 13 * 60 + 8.579523, 1e-6);
	cr_assert_str_eq(clean(&c, "[web-1] 11:13:08 strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l), L);
	cr_expect_float_eq(l.ts, 11 * 3600 + 13 * 60 + 8, 1e-9);
	CLEAN("[Server] Starting the model", "[Server] Starting the model");
	CLEAN("[Server] [init] kept", "[Server] [init] kept");
	CLEAN("[My Server] [54634] kept", "[My Server] [54634] kept");
	CLEAN("[Server] 2026 was kept", "[Server] 2026 was kept");
	CLEAN("[Server] [] kept", "[Server] [] kept");
	/* a level in brackets is the level's, read before any tag */
	cr_assert_str_eq(clean(&c, "[ERROR] [54634] strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l), L);
	cr_expect_eq(l.level, TR_LV_ERROR);
}

/* issue 23's twenty-second round: a syslog-style clock with no host and
 * program after it (Petals' `Jul 20 12:17:05.251 [INFO] Loaded ...`) is
 * a clock, and what follows is read as any prefix: the bracketed level
 * goes, kept as the line's level. A key's SS3 echoed in caret notation
 * (`^[OP`, F1 pressed while the log ran) goes with the other lost escapes;
 * near misses: `^[O` with no key letter after it, and prose, stay. */
Test(triage_clean, a_clock_with_no_host_then_a_level_and_an_echoed_key)
{
	struct tr_clean c = {0};
	struct tr_line l;
	cr_assert_str_eq(clean(&c, "Jul 20 12:17:05.251 [INFO] strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l), L);
	cr_expect_eq(l.level, TR_LV_INFO);
	cr_expect_float_eq(l.ts, 12 * 3600 + 17 * 60 + 5.251, 1e-6);
	cr_assert_str_eq(clean(&c, "^[OP^[OPJul 20 12:17:54.764 [INFO] strata generate: loaded 39.97 GiB at 3.12 GiB/s", &l),
			 L);
	CLEAN("^[O kept", "^[O kept");
	CLEAN("^[Ox kept", "^[Ox kept");
}
