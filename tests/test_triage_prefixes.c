/*
 * What a prefix every line of a paste carries must not change: a `> `
 * quote, a compose service's `name  | `, a syslog or journald head, a
 * collector's clock, colour. The triage reads the line behind it as it
 * reads the bare line: a `rich` record laid out in columns behind the
 * prefix is still one record (tools/triage/rich_wrap.c); a traceback's
 * frame behind a collector's head is still a frame (clean.c); a message
 * that opens with a graver level than the prefix's is that level
 * (recognise_generic.c); a line that opens with a clock or a drawn
 * table's border is its own line, not a wrapped line's end (triage.c);
 * and a kind of clock two clocks shared gives no span (triage.c's
 * clock_seen). tests/test_triage_damage.c holds the same property over
 * the whole corpus; these are its mechanisms one at a time, each with the
 * near miss on its other side.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/triage_run.h"

static struct lsc_triage_start_info start_of(struct lsc_triage *t, size_t i)
{
	struct lsc_triage_start_info si;
	memset(&si, 0, sizeof si);
	cr_assert(lsc_triage_start(t, i, &si) == 0, "no start %zu", i);
	return si;
}

/* The load time a log gives its first start, NAN when it gives none or
 * has no start. */
static double load_s_of(const char *log)
{
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si;
	double v = lsc_triage_start(t, 0, &si) == 0 ? si.load_s : NAN;
	lsc_triage_free(t);
	return v;
}

/* A rich record of two lines, 70 columns wide, each line behind @p1 and
 * @p2: "Model loaded in" / "312.5 s" is the load's 312.5 s only when the
 * two are one record. */
static double rich_load(const char *p1, const char *p2)
{
	char log[1024];
	snprintf(log, sizeof log, "%s%-58s%12s\n%s%-70s\n", p1, "INFO     12:00:00 engine: Model loaded in",
		 "loader.py:12", p2, "         312.5 s");
	return load_s_of(log);
}

Test(prefixes, a_rich_record_behind_a_prefix_is_one_record)
{
	static const char *const same[] = {
		"",
		"> ",
		"> > ",
		"engine-1  | ",
		"Oct 16 15:39:01 host engine[1234]: ",
		"[2026-10-16 15:39:01.123] ",
		"2026-10-16T15:39:01.123456Z ",
		"(EngineCore_0 pid=1401) (RayWorker pid=42) ",
		/* 104 bytes of prefixes stacked */
		"Oct 16 15:39:01 host engine[1234]: [2026-10-16 15:39:01.123] (EngineCore_0 pid=1401) (RayWorker pid=42) ",
	};
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
		cr_expect(rich_load(same[i], same[i]) == 312.5, "behind \"%s\": %f", same[i],
			  rich_load(same[i], same[i]));
	/* a collector's later clock and another pid on the continuation: the
	 * same prefix with other digits */
	cr_expect(rich_load("Oct 16 15:39:01 host engine[1234]: ", "Oct 16 15:39:02 host engine[1299]: ") == 312.5);
	/* a prefix past 128 bytes is not looked behind */
	char longp[160];
	memset(longp, 'x', 140);
	memcpy(longp + 140, ": ", 3);
	cr_expect(!(rich_load(longp, longp) == 312.5), "a record behind 142 bytes of prefix joined");
}

/* A line of digits only is no record's head, and its end is found
 * without reading before the line (AddressSanitizer's suite sees a read
 * past its start). */
Test(prefixes, a_line_of_digits_is_no_record)
{
	cr_expect_eq(load_s_of("123456789012345678901234567890\n") == 312.5, 0);
	struct lsc_triage *t = trun_text("123456789012345678901234567890\n12345678901234567890123456789\n");
	cr_assert(t);
	cr_expect_eq(lsc_triage_nstarts(t), 0);
	lsc_triage_free(t);
}

Test(prefixes, another_prefix_on_the_continuation_is_another_line)
{
	/* another service's line, a line of the same width that happens to be
	 * indented: not this record's continuation */
	cr_expect(!(rich_load("engine-1  | ", "worker-1  | ") == 312.5));
	cr_expect(!(rich_load("> ", "| ") == 312.5));
	cr_expect(!(rich_load("Oct 16 15:39:01 host engine[1234]: ", "Oct 16 15:39:01 host worker[1234]: ") == 312.5));
	/* blank where the head had its prefix: rich's own time column, joined */
	cr_expect(rich_load("[12:00:00] ", "           ") == 312.5);
}

/* Colour takes no column: a head whose level is coloured is as wide as
 * its continuation once the escapes are out; on a pipe of other widths it
 * still is no record. */
Test(prefixes, colour_takes_no_column)
{
	char log[1024];
	snprintf(log, sizeof log, "\x1b[32m%-58s\x1b[0m%12s\n%-70s\n", "INFO     12:00:00 engine: Model loaded in",
		 "loader.py:12", "         312.5 s");
	cr_expect(load_s_of(log) == 312.5, "%f", load_s_of(log));
	snprintf(log, sizeof log, "\x1b[32m%-58s\x1b[0m%12s\n%-75s\n", "INFO     12:00:00 engine: Model loaded in",
		 "loader.py:12", "         312.5 s");
	cr_expect(!(load_s_of(log) == 312.5), "joined a continuation five columns wider");
}

/* The same log, bare and behind @prefix on every line: equal findings. */
static void same_behind(const char *log, const char *prefix)
{
	size_t n = strlen(log), pl = strlen(prefix), lines = 0;
	for (size_t i = 0; i < n; i++)
		lines += log[i] == '\n';
	char *d = malloc(n + (lines + 1) * pl + 1), *w = d;
	cr_assert(d);
	for (const char *p = log; *p;) {
		const char *e = strchr(p, '\n');
		size_t ll = e ? (size_t)(e - p + 1) : strlen(p);
		memcpy(w, prefix, pl);
		memcpy(w + pl, p, ll);
		w += pl + ll;
		p += ll;
	}
	*w = 0;
	struct tset a = {0}, b = {0};
	cr_assert(trun_run(log, n, 0, 7, &a) == 0);
	cr_assert(trun_run(d, (size_t)(w - d), 0, 7, &b) == 0);
	char sa[512], sb[512];
	cr_expect(a.n > 0, "the bare log gives nothing: %s", log);
	cr_expect(tset_equal(&a, &b), "behind \"%s\":\n  bare:     %s\n  prefixed: %s", prefix, tset_str(&a, sa, sizeof sa),
		  tset_str(&b, sb, sizeof sb));
	tset_free(&a);
	tset_free(&b);
	free(d);
}

/* A traceback pasted from its middle: its frames say it was the load's
 * (`in load_model`), behind a collector's head as bare. */
Test(prefixes, a_frame_behind_a_collector_is_a_frame)
{
	static const char tb[] = "  File \"/srv/engine/model_runner.py\", line 285, in __init__\n"
				 "    self.load_model()\n"
				 "  File \"/srv/engine/model_runner.py\", line 323, in load_model\n"
				 "    model = model_class(config)\n"
				 "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB\n";
	same_behind(tb, "Oct 16 15:39:01 host engine[1234]: ");
	same_behind(tb, "2026-10-16T15:39:01.123456Z ");
	same_behind(tb, "0.00.189.951 I ");
	same_behind(tb, "engine-1  | ");
	struct lsc_triage *t = trun_text(tb);
	cr_assert(t);
	cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL);
	lsc_triage_free(t);
}

/* An outer logger's `I` over a launcher's `ERROR ...: Error when
 * initializing model` is an error line: the start failed, as it does
 * bare. The other side: the same line at info, or a message that opens
 * with no level, keeps the prefix's info. */
Test(prefixes, a_graver_level_in_the_message_wins)
{
	static const char err[] = "2023-07-09T15:31:40.000000Z  INFO text_generation_launcher: Starting shard 0\n"
				  "0.00.189.951 I ERROR shard-manager: text_generation_launcher: Error when initializing model\n";
	struct lsc_triage *t = trun_text(err);
	cr_assert(t);
	cr_expect_str_eq(start_of(t, 0).outcome, "failed");
	lsc_triage_free(t);
	static const char info[] = "2023-07-09T15:31:40.000000Z  INFO text_generation_launcher: Starting shard 0\n"
				   "0.00.189.951 I INFO shard-manager: text_generation_launcher: Error when initializing model\n";
	t = trun_text(info);
	cr_assert(t);
	cr_expect(lsc_triage_nstarts(t) == 0 || strcmp(start_of(t, 0).outcome, "failed"), "an info line failed the start");
	lsc_triage_free(t);
	static const char bare[] = "2023-07-09T15:31:40.000000Z  INFO text_generation_launcher: Starting shard 0\n"
				   "0.00.189.951 I shard-manager: text_generation_launcher: Error when initializing model\n";
	t = trun_text(bare);
	cr_assert(t);
	cr_expect(lsc_triage_nstarts(t) == 0 || strcmp(start_of(t, 0).outcome, "failed"), "an info line failed the start");
	lsc_triage_free(t);
}

/* A line of exactly 100 columns (a wrap width) and the next line: joined
 * when the next one continues a cut figure, not when it opens with a
 * clock of two separators or more, or a drawn table's border. */
Test(prefixes, a_clock_or_a_border_opens_its_own_line)
{
	char head[128], log[512];
	snprintf(head, sizeof head, "%-79s%s", "INFO 10-16 15:35:12 [default_loader.py:267]", " Loading weights took");
	cr_assert_eq(strlen(head), 100);
	snprintf(log, sizeof log, "%s\n312.50 seconds\n", head);
	cr_expect(load_s_of(log) == 312.5, "a cut figure not joined: %f", load_s_of(log));
	snprintf(log, sizeof log, "%s\n0.00.189.951 I 312.50 seconds\n", head);
	cr_expect(!(load_s_of(log) == 312.5), "a line behind llama.cpp's clock joined");
	snprintf(log, sizeof log, "%s\n12:00:01 312.50 seconds\n", head);
	cr_expect(!(load_s_of(log) == 312.5), "a line behind a clock joined");
	/* a table whose header row is 100 columns wide: the border under it is
	 * a line of its own, so the rows are still the table's */
	char row[128];
	snprintf(row, sizeof row, "| %-20s | %-73s |", "Model", "Status");
	cr_assert_eq(strlen(row), 100);
	snprintf(log, sizeof log, "+----+----+\n%s\n+----+----+\n| llama | READY |\n+----+----+\n", row);
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	cr_expect_str_eq(start_of(t, 0).outcome, "completed");
	lsc_triage_free(t);
}

/* An unfinished start's time so far by its clocks (over 300 s with no
 * size: slow), of one kind of clock only. */
static const char *speed_of(const char *log, double *so_far)
{
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si = start_of(t, 0);
	static char sp[8];
	snprintf(sp, sizeof sp, "%s", si.speed);
	*so_far = si.load_s;
	lsc_triage_free(t);
	return sp;
}

Test(prefixes, a_clock_kind_two_clocks_shared_gives_no_span)
{
	double d;
	/* every line behind the collector, the bracket and the engine's own
	 * clock: the engine's 330 s */
	cr_expect_str_eq(speed_of("Oct 16 15:39:01 h e[1]: [2026-10-16 10:00:00.000] 2024-09-25 20:17:58 app: "
				  "Loading weights from /m/model.safetensors\n"
				  "Oct 16 15:39:01 h e[1]: [2026-10-16 10:00:00.000] 2024-09-25 20:23:28 app: Appl\n",
				  &d),
			 "slow");
	cr_expect(d == 330.0, "%f", d);
	/* the first line carries one clock fewer: its innermost is the
	 * bracket's 10:00:00, the next line's the engine's 20:23:28; no span */
	cr_expect_str_eq(speed_of("Oct 16 15:39:01 h e[1]: [2026-10-16 10:00:00.000] Loading weights from /m/x.safetensors\n"
				  "Oct 16 15:39:01 h e[1]: [2026-10-16 10:00:00.000] 2024-09-25 20:23:28 app: Appl\n",
				  &d),
			 "-");
	/* a line between them with one clock fewer (a brace the collector
	 * stamped, not the engine: its innermost is the bracket's 10:00:00)
	 * is passed over, wherever it falls: the engine's 330 s */
	static const char *const between[] = {
		"Oct 16 15:39:01 h e[1]: [2026-10-16 10:00:00.000] 2024-09-25 20:17:58 app: Loading weights from "
		"/m/model.safetensors\nOct 16 15:39:01 h e[1]: [2026-10-16 10:00:00.000] {}\n"
		"Oct 16 15:39:01 h e[1]: [2026-10-16 10:00:00.000] 2024-09-25 20:23:28 app: Appl\n",
		"Oct 16 15:39:01 h e[1]: [2026-10-16 10:00:00.000] 2024-09-25 20:17:58 app: Loading weights from "
		"/m/model.safetensors\nOct 16 15:39:01 h e[1]: [2026-10-16 10:00:00.000] 2024-09-25 20:23:28 app: Appl\n"
		"Oct 16 15:39:01 h e[1]: [2026-10-16 10:00:00.000] {}\n",
	};
	for (size_t i = 0; i < sizeof between / sizeof between[0]; i++) {
		cr_expect_str_eq(speed_of(between[i], &d), "slow", "%s", between[i]);
		cr_expect(d == 330.0, "%f", d);
	}
	/* the same two clocks up to an engine's ready line: no time to ready
	 * either (the bracket's 10:00:00 against the engine's 20:23:28 once
	 * read as 37408 s, slow) */
	{
		struct lsc_triage *t = trun_text("Oct 16 15:39:01 h e[1]: [2026-10-16 10:00:00.000] Loading weights from "
						 "/m/x.safetensors\n"
						 "Oct 16 15:39:01 h e[1]: [2026-10-16 10:00:00.000] 2024-09-25 20:23:28 app: "
						 "server ready\n");
		cr_assert(t);
		struct lsc_triage_start_info si = start_of(t, 0);
		cr_expect_str_eq(si.outcome, "completed");
		cr_expect_str_eq(si.speed, "-");
		cr_expect(isnan(si.ready_s), "%f", si.ready_s);
		lsc_triage_free(t);
	}
	/* one clock that steps back by 30 s (workers' lines out of order) is
	 * still one clock: 20:17:58 to 20:23:28 */
	cr_expect_str_eq(speed_of("2024-09-25 20:17:58 app-1  | Loading weights from /m/model.safetensors\n"
				  "2024-09-25 20:23:28 app-1  | Creating model\n"
				  "2024-09-25 20:22:58 app-1  | Appl\n",
				  &d),
			 "slow");
	/* one that steps back by 61 s past the minute is two: no span */
	cr_expect_str_eq(speed_of("2024-09-25 20:17:58 app-1  | Loading weights from /m/model.safetensors\n"
				  "2024-09-25 20:23:28 app-1  | Creating model\n"
				  "2024-09-25 20:22:27 app-1  | Appl\n",
				  &d),
			 "-");
	/* midnight: 23:59:00 to 00:05:00 is 360 s */
	cr_expect_str_eq(speed_of("2024-09-25 23:59:00 app-1  | Loading weights from /m/model.safetensors\n"
				  "2024-09-26 00:05:00 app-1  | Appl\n",
				  &d),
			 "slow");
	cr_expect(d == 360.0, "%f", d);
}
