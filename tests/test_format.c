/*
 * Description: the line grammar (src/format/line.c). A record rendered in
 * either format parses back into the same event and fields, behind any
 * prefix; lines cut short keep their complete fields; garbage never crashes.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "format/human.h"
#include "format/line.h"

static struct lsc__rec rec;
static char line[LSC__LINE_MAX];

static void sample_record(struct lsc__rec *r)
{
	lsc__rec_init(r, "phase");
	lsc__rec_say(r, "allocate: %s in %.3f s | with a pipe", "4.00 GiB", 1.234);
	lsc__rec_str(r, "kind", "allocate");
	lsc__rec_str(r, "name", "expert arena \"A\"\n");
	lsc__rec_u64(r, "bytes", 4294967296ull);
	lsc__rec_i64(r, "vm_nr_free_pages", -262144);
	lsc__rec_f64(r, "wall_s", 1.234567, 6);
	lsc__rec_f64(r, "gibps", NAN, 3);
	lsc__rec_str(r, "empty", "");
}

static void check_sample(const struct lsc__parsed *p)
{
	cr_assert_str_eq(p->event, "phase");
	cr_assert_eq(p->version, LSC_LINE_FORMAT_VERSION);
	cr_assert_str_eq(lsc__parsed_get(p, "kind"), "allocate");
	cr_assert_str_eq(lsc__parsed_get(p, "name"), "expert arena \"A\"\n");
	int64_t i;
	cr_assert_eq(lsc__parsed_i64(p, "bytes", &i), 0);
	cr_assert_eq(i, 4294967296ll);
	cr_assert_eq(lsc__parsed_i64(p, "vm_nr_free_pages", &i), 0);
	cr_assert_eq(i, -262144);
	double d;
	cr_assert_eq(lsc__parsed_f64(p, "wall_s", &d), 0);
	cr_assert_float_eq(d, 1.234567, 1e-9);
	cr_assert_str_eq(lsc__parsed_get(p, "gibps"), "n/a");
	cr_assert_eq(lsc__parsed_f64(p, "gibps", &d), -EINVAL);
	cr_assert_str_eq(lsc__parsed_get(p, "empty"), "");
	cr_assert_eq(lsc__parsed_get(p, "absent"), NULL);
	cr_assert_eq(p->damaged, 0);
}

Test(format, human_round_trip_behind_prefix)
{
	sample_record(&rec);
	size_t n = lsc__rec_render(&rec, LSC_FORMAT_HUMAN, "strata generate: ", line, sizeof(line));
	cr_assert_eq(n, strlen(line));
	cr_assert(line[n - 1] == '\n');
	const char *want = "strata generate: [loadscope/2] phase allocate: 4.00 GiB in 1.234 s / with a pipe | "
			   "kind=allocate name=\"expert arena \\\"A\\\"\\n\" bytes=4294967296 ";
	cr_assert(strncmp(line, want, strlen(want)) == 0, "got: %s", line);
	struct lsc__parsed p;
	cr_assert_eq(lsc__line_parse(line, n, &p), 1);
	cr_assert_eq(p.tag_offset, strlen("strata generate: "));
	cr_assert_eq(p.format, LSC_FORMAT_HUMAN);
	cr_assert_str_eq(p.human, "allocate: 4.00 GiB in 1.234 s / with a pipe");
	check_sample(&p);
}

Test(format, json_round_trip_behind_prefix)
{
	sample_record(&rec);
	size_t n = lsc__rec_render(&rec, LSC_FORMAT_JSON, "INFO 10-16 15:39:01 ", line, sizeof(line));
	cr_assert(strstr(line, "{\"loadscope\":2,\"event\":\"phase\",\"msg\":\"allocate: 4.00 GiB") != NULL,
		  "got: %s", line);
	struct lsc__parsed p;
	cr_assert_eq(lsc__line_parse(line, n, &p), 1);
	cr_assert_eq(p.format, LSC_FORMAT_JSON);
	cr_assert_str_eq(p.human, "allocate: 4.00 GiB in 1.234 s / with a pipe");
	check_sample(&p);
}

Test(format, not_a_loadscope_line)
{
	char s[] = "strata generate: loaded 39.97 GiB at 3.12 GiB/s";
	struct lsc__parsed p;
	cr_assert_eq(lsc__line_parse(s, strlen(s), &p), 0);
}

Test(format, event_without_fields_or_sentence)
{
	char s[] = "[loadscope/2] ready\r\n";
	struct lsc__parsed p;
	cr_assert_eq(lsc__line_parse(s, strlen(s), &p), 1);
	cr_assert_str_eq(p.event, "ready");
	cr_assert_str_eq(p.human, "");
	cr_assert_eq(p.n, 0);
}

Test(format, malformed_tag_is_an_error)
{
	char a[] = "x [loadscope/] phase";
	char b[] = "x [loadscope/2]";
	char c[] = "{\"loadscope\":2,\"msg\":\"no event\"}";
	struct lsc__parsed p;
	cr_assert_eq(lsc__line_parse(a, strlen(a), &p), -EINVAL);
	cr_assert_eq(lsc__line_parse(b, strlen(b), &p), -EINVAL);
	cr_assert_eq(lsc__line_parse(c, strlen(c), &p), -EINVAL);
}

/* A paste cut in the middle of a quoted value keeps every field before it. */
Test(format, cut_lines_keep_complete_fields)
{
	for (int fmt = 0; fmt < 2; fmt++) {
		sample_record(&rec);
		size_t n = lsc__rec_render(&rec, fmt, NULL, line, sizeof(line));
		char *cut = strstr(line, fmt ? "\"name\":\"expert" : "name=\"expert");
		cr_assert_not_null(cut);
		size_t at = (size_t)(cut - line) + 12;
		cr_assert_lt(at, n);
		struct lsc__parsed p;
		cr_assert_eq(lsc__line_parse(line, at, &p), 1);
		cr_assert_str_eq(lsc__parsed_get(&p, "kind"), "allocate");
		cr_assert_eq(lsc__parsed_get(&p, "name"), NULL);
		cr_assert_gt(p.damaged, 0);
	}
}

/* Spaces after the last field (an editor's, a terminal's padding) are not
 * damage: the fields are whole and none is counted as cut. */
Test(format, trailing_spaces_are_no_damage)
{
	static const char *const tails[] = {"", " ", "   ", "\t", " \t "};
	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		char buf[256];
		snprintf(buf, sizeof(buf), "[loadscope/2] note pin: ok | run=0000abcd topic=pin n=3%s", tails[i]);
		struct lsc__parsed p;
		cr_assert_eq(lsc__line_parse(buf, strlen(buf), &p), 1);
		cr_assert_eq(p.damaged, 0, "tail %zu: %u damaged", i, p.damaged);
		cr_assert_str_eq(lsc__parsed_get(&p, "n"), "3");
	}
}

/* Every prefix of a rendered line parses without crashing (ASan checks the
 * bounds), in both formats; and once the prefix holds the tag and the event
 * word, it is that event's line, and every field it gives is one of the
 * whole line's, with the whole line's value (a cut never yields a value
 * the writer did not write; only a bare last value may be shortened). */
Test(format, every_cut_point_is_safe)
{
	for (int fmt = 0; fmt < 2; fmt++) {
		sample_record(&rec);
		char full[LSC__LINE_MAX], whole[LSC__LINE_MAX + 1];
		size_t n = lsc__rec_render(&rec, fmt, "p: ", full, sizeof(full));
		memcpy(whole, full, n);
		struct lsc__parsed w;
		cr_assert_eq(lsc__line_parse(whole, n, &w), 1);
		const char *ev = fmt ? "\"event\":\"phase\"," : "[loadscope/2] phase ";
		size_t known = (size_t)(strstr(full, ev) - full) + strlen(ev);
		for (size_t at = 0; at <= n; at++) {
			char buf[LSC__LINE_MAX + 1];
			memcpy(buf, full, at);
			struct lsc__parsed p;
			int rc = lsc__line_parse(buf, at, &p);
			cr_assert(rc == 0 || rc == 1 || rc == -EINVAL, "rc %d at %zu", rc, at);
			if (at < known)
				continue;
			cr_assert_eq(rc, 1, "format %d cut at %zu: rc %d", fmt, at, rc);
			cr_assert_str_eq(p.event, "phase");
			for (unsigned i = 0; i < p.n; i++) {
				const char *want = lsc__parsed_get(&w, p.kv[i].key);
				cr_assert_not_null(want, "format %d cut at %zu: field %s not in the line", fmt,
						   at, p.kv[i].key);
				/* The last field may be a bare value the cut shortened
				 * (a line that ends there is no different): a prefix of
				 * the whole value. Every other is exact. */
				if (i + 1 == p.n)
					cr_assert(strncmp(want, p.kv[i].val, strlen(p.kv[i].val)) == 0,
						  "format %d cut at %zu: %s=%s, not a prefix of %s", fmt, at,
						  p.kv[i].key, p.kv[i].val, want);
				else
					cr_assert_str_eq(p.kv[i].val, want, "format %d cut at %zu: %s", fmt,
							 at, p.kv[i].key);
			}
		}
	}
}

Test(format, overlong_records_are_truncated_and_marked)
{
	lsc__rec_init(&rec, "note");
	char big[600];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	for (int i = 0; i < 20; i++)
		lsc__rec_str(&rec, "k", big);
	for (int i = 0; i < 200; i++)
		lsc__rec_u64(&rec, "n", (uint64_t)i);
	cr_assert_gt(rec.truncated, 0);
	char small[300];
	size_t n = lsc__rec_render(&rec, LSC_FORMAT_HUMAN, NULL, small, sizeof(small));
	cr_assert_lt(n, sizeof(small));
	cr_assert(small[n - 1] == '\n');
	struct lsc__parsed p;
	cr_assert_eq(lsc__line_parse(small, n, &p), 1);
	cr_assert_str_eq(lsc__parsed_get(&p, "trunc"), "1");
	n = lsc__rec_render(&rec, LSC_FORMAT_JSON, NULL, small, sizeof(small));
	cr_assert_eq(lsc__line_parse(small, n, &p), 1);
	cr_assert_str_eq(lsc__parsed_get(&p, "trunc"), "1");
}

Test(format, garbage_never_crashes)
{
	unsigned x = 12345, accepted = 0;
	for (int round = 0; round < 2000; round++) {
		char buf[256];
		size_t n = 1 + (x % 200);
		for (size_t i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			buf[i] = (char)(x >> 16);
		}
		/* Plant a tag so the parser gets past the search. */
		const char *tag = (round & 1) ? "[loadscope/2] " : "{\"loadscope\":2,";
		size_t tl = strlen(tag);
		if (n > tl + 4)
			memcpy(buf + (x % (n - tl)), tag, tl);
		char copy[256];
		memcpy(copy, buf, n);
		struct lsc__parsed p;
		int rc = lsc__line_parse(buf, n, &p);
		cr_assert(rc == 0 || rc == 1 || rc == -EINVAL);
		if (rc != 1)
			continue;
		accepted++;
		/* A line it accepts has its tag where it says, in the input, and
		 * an event word made of the grammar's characters. */
		cr_assert_lt(p.tag_offset, n);
		cr_assert(copy[p.tag_offset] == tag[0], "round %d: tag_offset %zu points at %#x", round,
			  p.tag_offset, (unsigned char)copy[p.tag_offset]);
		cr_assert(p.event && p.event[0], "round %d: an accepted line without an event", round);
		for (const char *e = p.event; *e; e++)
			cr_assert((*e >= 'a' && *e <= 'z') || (*e >= '0' && *e <= '9') || *e == '_' ||
					  *e == '-' || *e == '.' || *e == ':' || (*e >= 'A' && *e <= 'Z'),
				  "round %d: event byte %#x", round, (unsigned char)*e);
	}
	cr_assert_gt(accepted, 0, "no round gave a line the parser accepts: the checks above never ran");
}

Test(format, human_units)
{
	char b[LSC__HBUF];
	cr_assert_str_eq(lsc__fmt_bytes(b, 0), "0 B");
	cr_assert_str_eq(lsc__fmt_bytes(b, 4294967296.0), "4.00 GiB");
	cr_assert_str_eq(lsc__fmt_bytes(b, 512.0 * 1048576), "512.0 MiB");
	cr_assert_str_eq(lsc__fmt_bytes(b, -1), "n/a");
	cr_assert_str_eq(lsc__fmt_count(b, 18304), "18.3k");
	cr_assert_str_eq(lsc__fmt_count(b, 1050000), "1.05M");
	cr_assert_str_eq(lsc__fmt_secs(b, 1.2344), "1.234 s");
	cr_assert_str_eq(lsc__fmt_secs(b, 432.4), "432 s");
}

/* What is no amount reads "n/a" in every unit, whatever the buffer held
 * before (a caller's stack), and each unit's edges fall on both sides
 * where the format says: seconds with 3 decimals below 100 s, whole
 * seconds from 100; counts bare up to 9999, then k, M, G, each up to what would round to 1000 of it. */
Test(format, human_units_at_their_edges_and_on_no_amount)
{
	char b[LSC__HBUF];
	const double none[] = {NAN, INFINITY, -INFINITY};
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		memset(b, 'x', sizeof b);
		cr_expect_str_eq(lsc__fmt_secs(b, none[i]), "n/a");
		memset(b, 'x', sizeof b);
		cr_expect_str_eq(lsc__fmt_bytes(b, none[i]), "n/a");
		memset(b, 'x', sizeof b);
		cr_expect_str_eq(lsc__fmt_count(b, none[i]), "n/a");
	}
	memset(b, 'x', sizeof b);
	cr_expect_str_eq(lsc__fmt_secs(b, -0.5), "n/a", "a time before its start");
	cr_expect_str_eq(lsc__fmt_secs(b, 0), "0.000 s");
	cr_expect_str_eq(lsc__fmt_secs(b, 99.9994), "99.999 s");
	cr_expect_str_eq(lsc__fmt_secs(b, 100), "100 s");
	/* a unit ends where it would print 1000 of itself */
	cr_expect_str_eq(lsc__fmt_count(b, 9999.4), "9999");
	cr_expect_str_eq(lsc__fmt_count(b, 9999.5), "10.0k");
	cr_expect_str_eq(lsc__fmt_count(b, -10000), "-10.0k");
	cr_expect_str_eq(lsc__fmt_count(b, 999949), "999.9k");
	cr_expect_str_eq(lsc__fmt_count(b, 999950), "1.00M");
	cr_expect_str_eq(lsc__fmt_count(b, 999994999), "999.99M");
	cr_expect_str_eq(lsc__fmt_count(b, 999995000), "1.00G");
	cr_expect_str_eq(lsc__fmt_bytes(b, 1023), "1023 B");
	cr_expect_str_eq(lsc__fmt_bytes(b, 1024), "1.0 KiB");
	cr_expect_str_eq(lsc__fmt_bytes(b, 1073741824.0 * 99.99), "99.99 GiB");
	cr_expect_str_eq(lsc__fmt_bytes(b, 1073741824.0 * 100), "100.0 GiB");
	cr_expect_str_eq(lsc__fmt_bytes(b, 1073741824.0 * 1024 * 1024 * 1024 * 2), "2048.0 PiB", "no unit past PiB");
}

/* The four escapes of a quoted value (docs/log-format.md: \" \\ \n \t),
 * written by the renderer and read by the parser. The expected bytes are
 * spelled out here: a writer that left a backslash or a tab bare, or a
 * reader that skipped an escape, changes them. */
Test(format, quoted_escapes_are_written_and_read_back)
{
	static const char *const value = "C:\\dir\tq\"x\"\n\\";
	static const char *const want[2] = {
		"path=\"C:\\\\dir\\tq\\\"x\\\"\\n\\\\\"",
		"\"path\":\"C:\\\\dir\\tq\\\"x\\\"\\n\\\\\"",
	};
	for (int fmt = 0; fmt < 2; fmt++) {
		lsc__rec_init(&rec, "note");
		lsc__rec_str(&rec, "path", value);
		size_t n = lsc__rec_render(&rec, fmt, NULL, line, sizeof(line));
		cr_assert(strstr(line, want[fmt]) != NULL, "format %d: want %s in: %s", fmt, want[fmt], line);
		struct lsc__parsed p;
		cr_assert_eq(lsc__line_parse(line, n, &p), 1);
		cr_assert_str_eq(lsc__parsed_get(&p, "path"), value, "format %d: %s", fmt, line);
	}
	/* Lines as another writer (or a hand) spells them. */
	char h[] = "[loadscope/2] note | a=\"x\\ty\" b=\"back\\\\slash\" c=\"q\\\"\" d=\"two\\\\\\\\\"\n";
	struct lsc__parsed p;
	cr_assert_eq(lsc__line_parse(h, strlen(h), &p), 1);
	cr_assert_str_eq(lsc__parsed_get(&p, "a"), "x\ty");
	cr_assert_str_eq(lsc__parsed_get(&p, "b"), "back\\slash");
	cr_assert_str_eq(lsc__parsed_get(&p, "c"), "q\"");
	cr_assert_str_eq(lsc__parsed_get(&p, "d"), "two\\\\");
	char j[] = "{\"loadscope\":2,\"event\":\"note\",\"a\":\"x\\ty\",\"b\":\"back\\\\slash\"}\n";
	cr_assert_eq(lsc__line_parse(j, strlen(j), &p), 1);
	cr_assert_str_eq(lsc__parsed_get(&p, "a"), "x\ty");
	cr_assert_str_eq(lsc__parsed_get(&p, "b"), "back\\slash");
}
