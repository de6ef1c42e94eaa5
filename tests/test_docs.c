/*
 * Description: the docs against the program. The test makes a set of real
 * runs (the built `loadscope`: a load in human and JSON lines, a model
 * file, probe twice, a failing load, fallbacks, a bad variable; and, in
 * this process, a profiler whose watchdog reports a slow span, a region
 * and an API misuse) and checks that
 *   - every event and key those lines carry is named in docs/log-format.md,
 *     and the page has an example of every event;
 *   - every example line of docs/ *.md and README.md (code-block lines that
 *     start with `[loadscope/` or `{"loadscope":`) parses with the grammar's
 *     parser, names only keys the program prints for that event, and, when
 *     it is whole (not abridged with "..."), carries every key that all the
 *     real lines of its event carry, and gives each number with as many
 *     decimals as the real lines give it (the writer's fixed precision);
 *   - every `docs/PAGE.md#anchor` the program prints (the triage's remedies,
 *     the runs' lines) is a heading of that page, by GitHub's anchor rules;
 *   - README.md's example block (scripts/readme-example.sh) has the shape of
 *     the same load run now: the same events with the same keys in the same
 *     order (but the vmstat deltas, which depend on what moved).
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#include "format/line.h"
#include "format/vocab.h"
#include "helpers/capture.h"
#include "helpers/test_env.h"
#include "helpers/tool_run.h"
#include "helpers/triage_run.h"
#include "triage/internal.h"

#define ROOT LSC_TEST_FIXTURES "/../.."
#define MAX_LINES 512
#define KEY_MAX 48
#define OUT_CAP (1 << 20)

/* ---- text ------------------------------------------------------------------- */

/* The whole file; a file that cannot be read fails the test. */
static char *slurp(const char *path)
{
	char *s = trun_slurp(path, NULL);
	cr_assert_not_null(s, "cannot read %s", path);
	return s;
}

/* ---- lines, as event and keys -------------------------------------------------- */

struct kline {
	char event[16];
	char id[40]; /* the id= field (warn lines: each id carries its own keys), or "" */
	char key[LSC__FIELDS_MAX][KEY_MAX];
	signed char dec[LSC__FIELDS_MAX]; /* a plain decimal value's digits after the point, or -1 */
	unsigned n;
	int abridged; /* an example cut short ("...", or a human line without " | ") */
	char text[160]; /* the line's start, for messages */
};

/* The digits after the point of @v when it is a plain decimal number
 * (`-`, digits, an optional point and digits), else -1: the writer gives
 * each key a fixed number of decimals, so an example shows it. */
static int decimals_of(const char *v)
{
	const char *s = v + (*v == '-');
	const char *d = s;
	while (isdigit((unsigned char)*d))
		d++;
	if (d == s)
		return -1;
	if (!*d)
		return 0;
	if (*d != '.')
		return -1;
	const char *f = ++d;
	while (isdigit((unsigned char)*d))
		d++;
	return *d || d == f ? -1 : (int)(d - f);
}

/* Parse @line (a copy is made) into @out; the parser's result. */
static int kline_parse(const char *line, size_t len, struct kline *out)
{
	static char buf[LSC__LINE_MAX * 2];
	if (len >= sizeof buf - 1)
		len = sizeof buf - 2;
	memcpy(buf, line, len);
	buf[len] = '\0';
	memset(out, 0, sizeof *out);
	snprintf(out->text, sizeof out->text, "%.*s", (int)(len < 150 ? len : 150), line);
	struct lsc__parsed p;
	int rc = lsc__line_parse(buf, len, &p);
	if (rc != 1)
		return rc;
	snprintf(out->event, sizeof out->event, "%s", p.event);
	const char *id = lsc__parsed_get(&p, "id");
	snprintf(out->id, sizeof out->id, "%s", id ? id : "");
	for (unsigned i = 0; i < p.n && i < LSC__FIELDS_MAX; i++) {
		out->dec[out->n] = (signed char)decimals_of(p.kv[i].val);
		snprintf(out->key[out->n++], KEY_MAX, "%s", p.kv[i].key);
	}
	out->abridged = memmem(line, len, "...", 3) != NULL ||
			(p.format == LSC_FORMAT_HUMAN && !memmem(line, len, " | ", 3));
	return 1;
}

/* The index of @k in @l, or -1. */
static int key_at(const struct kline *l, const char *k)
{
	for (unsigned i = 0; i < l->n; i++)
		if (!strcmp(l->key[i], k))
			return (int)i;
	return -1;
}

static int has_key(const struct kline *l, const char *k)
{
	return key_at(l, k) >= 0;
}

static int is_vm_key(const char *k)
{
	for (unsigned c = 0; c < LSC_VM_COUNT; c++)
		if (!strcmp(k, lsc__vm_keys[c]))
			return 1;
	return 0;
}

/* The lines of the real runs. */
static struct kline real[MAX_LINES];
static unsigned n_real;

static void add_real_text(const char *text)
{
	for (const char *s = text; *s;) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		if ((memmem(s, len, LSC__TAG, strlen(LSC__TAG)) ||
		     memmem(s, len, LSC__JSON_TAG, strlen(LSC__JSON_TAG))) &&
		    n_real < MAX_LINES) {
			int rc = kline_parse(s, len, &real[n_real]);
			cr_assert_eq(rc, 1, "a line of a real run does not parse: %.*s", (int)len, s);
			n_real++;
		}
		s += len + (nl ? 1 : 0);
	}
}

static char out[OUT_CAP], err[OUT_CAP];
static char all_out[4 * OUT_CAP]; /* every run's output, for the anchors */
static size_t all_len;

/* Run `loadscope ARGS`; keep its lines; return its exit status. */
static int run(const char *args)
{
	int rc = lsct_tool(out, sizeof out, err, sizeof err, "%s", args);
	add_real_text(out);
	add_real_text(err);
	size_t lo = strlen(out), le = strlen(err);
	if (all_len + lo + le + 2 < sizeof all_out) {
		memcpy(all_out + all_len, out, lo);
		all_len += lo;
		memcpy(all_out + all_len, err, le);
		all_len += le;
		all_out[all_len] = '\0';
	}
	return rc;
}

static struct lsct_capture cap;

/* A profiler in this process: a slow span the watchdog reports, a region,
 * a span ended twice. */
static void in_process_lines(void)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = lsct_sink;
	o.sink_user = &cap;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV;
	o.watchdog_after_s = 0.01;
	o.watchdog_every_s = 0.01;
	lsc_profiler *p;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	lsc_start_begin(p, "docs");
	static char buf[1 << 16];
	memset(buf, 1, sizeof buf);
	lsc_span s;
	lsc_span_begin(p, LSC_PHASE_READ, "slow read", sizeof buf, &s);
	lsc_span_progress(p, s, sizeof buf / 4);
	/* Wait for the line, however long the machine takes to schedule it. */
	for (int i = 0; i < 600 && lsct_count(&cap, "still") == 0; i++)
		usleep(50000);
	lsc_span_end(p, s, NULL);
	lsc_region_note(p, "buffer", buf, sizeof buf, NULL);
	lsc_span_end(p, s, NULL);
	lsc_start_end(p);
	lsc_profiler_destroy(p);
	cr_assert_geq(lsct_count(&cap, "still"), 1, "no still line");
	add_real_text(cap.buf);
}

/* A safetensors file of one F32 tensor of 4 values. */
static void write_model(const char *path)
{
	const char hdr[] = "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}";
	uint64_t n = sizeof hdr - 1;
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	unsigned char le[8];
	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(n >> (8 * i));
	cr_assert_eq(fwrite(le, 1, 8, f), 8u);
	cr_assert_eq(fwrite(hdr, 1, n, f), n);
	float v[4] = {1, 2, 3, 4};
	cr_assert_eq(fwrite(v, 1, sizeof v, f), sizeof v);
	fclose(f);
}

static void real_runs(void)
{
	lsct_tool_required();
	const char *d = lsct_scratch("docs");
	char a[1024];
	snprintf(a, sizeof a, "load --make-test-file '%s/t.bin' --gib 0.0625", d);
	cr_assert_eq(run(a), 0, "%s%s", out, err);
	snprintf(a, sizeof a, "load '%s/t.bin'", d);
	cr_assert_eq(run(a), 0, "%s%s", out, err);
	snprintf(a, sizeof a, "load '%s/t.bin' --format json", d);
	cr_assert_eq(run(a), 0, "%s%s", out, err);
	char model[512];
	snprintf(model, sizeof model, "%s/m.safetensors", d);
	write_model(model);
	snprintf(a, sizeof a, "load '%s'", model);
	cr_assert_eq(run(a), 0, "%s%s", out, err);
	run("probe");
	/* A copied host's /proc and /sys where a small arena draws no warning. */
	run("probe --arena-gib 0.01 --proc-root '" LSC_TEST_FIXTURES "/host-6.18-madvise/proc' "
	    "--sys-root '" LSC_TEST_FIXTURES "/host-6.18-madvise/sys'");
	run("probe --arena-gib 0.01 --format json --proc-root '" LSC_TEST_FIXTURES
	    "/host-6.18-madvise/proc' --sys-root '" LSC_TEST_FIXTURES "/host-6.18-madvise/sys'");
	snprintf(a, sizeof a, "load '%s/missing.bin'", d);
	cr_assert_eq(run(a), 1, "%s%s", out, err);
	/* A failure that concerns no file: no such device (or no GPU runtime). */
	snprintf(a, sizeof a, "load '%s/t.bin' --device 99", d);
	cr_assert_eq(run(a), 1, "%s%s", out, err);
	/* Fallbacks, where this machine takes them: hugetlb without a pool,
	 * pinned staging over the memlock limit. A bad variable: a usage line. */
	setenv("LOADSCOPE_READ_PATH", "bogus", 1);
	snprintf(a, sizeof a, "load '%s/t.bin' --thp hugetlb --reader pread --staging 2x4 --pin mlock", d);
	run(a);
	unsetenv("LOADSCOPE_READ_PATH");
	in_process_lines();
	lsct_scratch_remove();
}

/* ---- docs/log-format.md ---------------------------------------------------------- */

static char *grammar_page;

/* The page up to its "Changes" (history, which names keys that went away
 * or were renamed, defines nothing). */
static void load_page(void)
{
	grammar_page = slurp(ROOT "/docs/log-format.md");
	char *changes = strstr(grammar_page, "\n## Changes\n");
	cr_assert_not_null(changes, "docs/log-format.md has no Changes section");
	*changes = '\0';
}

/* Named on the page: `key` or `key=...`. */
static int documented(const char *key)
{
	char a[KEY_MAX + 4], b[KEY_MAX + 4];
	snprintf(a, sizeof a, "`%s`", key);
	snprintf(b, sizeof b, "`%s=", key);
	return strstr(grammar_page, a) || strstr(grammar_page, b);
}

static void setup_runs(void)
{
	load_page();
	real_runs();
}

static void teardown_runs(void)
{
	free(grammar_page);
}

Test(docs, every_key_the_program_prints_is_documented, .init = setup_runs, .fini = teardown_runs,
     .timeout = 300)
{
	cr_assert_geq(n_real, 40, "the real runs gave only %u lines", n_real);
	unsigned missing = 0;
	for (unsigned i = 0; i < n_real; i++) {
		char ev[32];
		snprintf(ev, sizeof ev, "**`%s`**", real[i].event);
		if (!strstr(grammar_page, ev)) {
			cr_log_error("event %s is not documented (line: %s)", real[i].event, real[i].text);
			missing++;
		}
		for (unsigned k = 0; k < real[i].n; k++)
			if (!documented(real[i].key[k])) {
				cr_log_error("key %s of event %s is not in docs/log-format.md (line: %s)",
					     real[i].key[k], real[i].event, real[i].text);
				missing++;
			}
	}
	cr_assert_eq(missing, 0, "%u events or keys the program prints are undocumented", missing);
	/* The runs reached what they were made for. */
	const char *want[] = {"start", "system", "arena", "phase", "note", "complement", "loaded", "ready",
			      "error", "warn", "ok", "usage", "still", "region"};
	for (size_t w = 0; w < sizeof want / sizeof *want; w++) {
		int seen = 0;
		for (unsigned i = 0; i < n_real && !seen; i++)
			seen = !strcmp(real[i].event, want[w]);
		cr_expect(seen, "no %s line in the real runs", want[w]);
	}
}

/* ---- example lines ----------------------------------------------------------------- */

/* The string literals of the writers' sources (src/, tools/): a key an
 * example names that no real run printed must at least be one of these. */
static char *writer_literals;

static void load_literals(void)
{
	FILE *f = popen("cd '" ROOT "' && grep -rhoE '\"[a-z0-9_]+\"' src tools | sort -u", "r");
	cr_assert_not_null(f);
	size_t cap_ = 1 << 20, len = 0;
	writer_literals = malloc(cap_);
	cr_assert_not_null(writer_literals);
	size_t got;
	while ((got = fread(writer_literals + len, 1, cap_ - 1 - len, f)) > 0)
		len += got;
	writer_literals[len] = '\0';
	pclose(f);
	cr_assert_gt(len, 1000, "no string literals in src/ and tools/");
}

static int written_by_program(const char *key)
{
	char q[KEY_MAX + 4];
	snprintf(q, sizeof q, "\"%s\"\n", key);
	return strstr(writer_literals, q) != NULL;
}

static int event_seen(const char *ev)
{
	for (unsigned i = 0; i < n_real; i++)
		if (!strcmp(real[i].event, ev))
			return 1;
	return 0;
}

static int key_seen(const char *ev, const char *key)
{
	for (unsigned i = 0; i < n_real; i++)
		if (!strcmp(real[i].event, ev) && has_key(&real[i], key))
			return 1;
	return 0;
}

/* Keys that come and go with what the adaptive `auto` policy met on the
 * machine (a refault cover on a guest with free page reporting, a switch
 * mid-prefault): the README's run, the docs' examples and this one may differ there by
 * design. */
static int is_auto_key(const char *k)
{
	return !strcmp(k, "auto_refault_cover_bytes") || !strcmp(k, "auto_switch_at_bytes");
}

/* Whether every real line of @ex's event (and id: a warn line's keys are
 * its id's) carries @key. */
static int key_always(const struct kline *ex, const char *key)
{
	int any = 0;
	if (is_auto_key(key))
		return 0;
	for (unsigned i = 0; i < n_real; i++)
		if (!strcmp(real[i].event, ex->event) && !strcmp(real[i].id, ex->id)) {
			any = 1;
			if (!has_key(&real[i], key))
				return 0;
		}
	return any;
}

/* The decimals every real line of @ex's event (and id) gives @key's
 * number, or -1 when they are no number or do not agree (a count that is
 * sometimes `n/a`, a value written in the shortest form). */
static int real_decimals(const struct kline *ex, const char *key)
{
	int d = -2;
	for (unsigned i = 0; i < n_real; i++) {
		if (strcmp(real[i].event, ex->event) || strcmp(real[i].id, ex->id))
			continue;
		int k = key_at(&real[i], key);
		if (k < 0)
			continue;
		if (real[i].dec[k] < 0 || (d != -2 && d != real[i].dec[k]))
			return -1;
		d = real[i].dec[k];
	}
	return d < 0 ? -1 : d;
}

/* Check one example line; the number of problems (logged). */
static unsigned check_example(const char *file, unsigned lineno, const char *line, size_t len)
{
	struct kline ex;
	int rc = kline_parse(line, len, &ex);
	if (rc != 1) {
		cr_log_error("%s:%u: does not parse (%d): %s", file, lineno, rc, ex.text);
		return 1;
	}
	if (lsc__event_of(ex.event) < 0) {
		cr_log_error("%s:%u: no such event %s", file, lineno, ex.event);
		return 1;
	}
	unsigned bad = 0;
	for (unsigned k = 0; k < ex.n; k++) {
		const char *key = ex.key[k];
		if (!documented(key)) {
			cr_log_error("%s:%u: key %s is not in docs/log-format.md", file, lineno, key);
			bad++;
		}
		if (!key_seen(ex.event, key) && !(is_vm_key(key) && key_seen(ex.event, "run")) &&
		    !written_by_program(key)) {
			cr_log_error("%s:%u: %s lines have no key %s", file, lineno, ex.event, key);
			bad++;
		}
		/* The precision a reader sees is the program's: an example with
		 * another number of decimals than every real line of its event
		 * is out of date, or the writer's precision changed. */
		int want = real_decimals(&ex, key);
		if (want >= 0 && ex.dec[k] >= 0 && ex.dec[k] != want && !is_auto_key(key)) {
			cr_log_error("%s:%u: %s has %d decimals; every real %s line has %d: %s", file, lineno, key,
				     ex.dec[k], ex.event, want, ex.text);
			bad++;
		}
	}
	if (!ex.abridged && event_seen(ex.event)) {
		/* The keys every real line of the event carries. */
		for (unsigned i = 0; i < n_real; i++) {
			if (strcmp(real[i].event, ex.event) || strcmp(real[i].id, ex.id))
				continue;
			for (unsigned k = 0; k < real[i].n; k++) {
				const char *key = real[i].key[k];
				if (key_always(&ex, key) && !has_key(&ex, key)) {
					cr_log_error("%s:%u: a %s line always has %s, the example has not: %s",
						     file, lineno, ex.event, key, ex.text);
					bad++;
				}
			}
			break;
		}
	}
	return bad;
}

/* Every example line of @name; the count of lines checked in *n. */
static unsigned check_file(const char *name, unsigned *n, const char *want_event_examples)
{
	char path[1024];
	snprintf(path, sizeof path, ROOT "/%s", name);
	char *text = slurp(path);
	unsigned bad = 0, lineno = 0;
	int in_code = 0;
	unsigned char events_with_example[LSC__EV_COUNT] = {0};
	for (char *s = text; *s;) {
		char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		lineno++;
		if (len >= 3 && !strncmp(s, "```", 3))
			in_code = !in_code;
		else if (in_code && ((len > 11 && !strncmp(s, LSC__TAG, strlen(LSC__TAG)) && s[14] != '<') ||
				     !strncmp(s, LSC__JSON_TAG, strlen(LSC__JSON_TAG)))) {
			bad += check_example(name, lineno, s, len);
			(*n)++;
			struct kline ex;
			if (kline_parse(s, len, &ex) == 1 && lsc__event_of(ex.event) >= 0)
				events_with_example[lsc__event_of(ex.event)] = 1;
		}
		s += len + (nl ? 1 : 0);
	}
	free(text);
	if (want_event_examples)
		for (unsigned e = 0; e < LSC__EV_COUNT; e++)
			if (!events_with_example[e]) {
				cr_log_error("%s has no example of event %s", name, lsc__event_names[e]);
				bad++;
			}
	return bad;
}

Test(docs, example_lines_parse_and_carry_the_programs_keys, .init = setup_runs,
     .fini = teardown_runs, .timeout = 300)
{
	load_literals();
	unsigned n = 0, bad = 0;
	DIR *d = opendir(ROOT "/docs");
	cr_assert_not_null(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 4 || strcmp(e->d_name + l - 3, ".md"))
			continue;
		char name[300];
		snprintf(name, sizeof name, "docs/%s", e->d_name);
		bad += check_file(name, &n, strcmp(e->d_name, "log-format.md") ? NULL : "every event");
	}
	closedir(d);
	bad += check_file("README.md", &n, NULL);
	free(writer_literals);
	cr_assert_geq(n, 30, "only %u example lines found", n);
	cr_assert_eq(bad, 0, "%u problems in %u example lines (see the log)", bad, n);
}

/* ---- anchors ------------------------------------------------------------------------ */

/* GitHub's anchor of heading text @h: lowercase, spaces to '-', every
 * character but letters, digits, '-' and '_' dropped. */
static void anchor_of(const char *h, char *dst, size_t cap_)
{
	size_t o = 0;
	for (; *h && o + 1 < cap_; h++) {
		unsigned char c = (unsigned char)*h;
		if (c == ' ')
			dst[o++] = '-';
		else if (isalnum(c) || c == '-' || c == '_')
			dst[o++] = (char)tolower(c);
		else if (c >= 0x80)
			dst[o++] = (char)c;
	}
	dst[o] = '\0';
}

/* Whether docs/@page has a heading whose anchor is @anchor (the n-th
 * duplicate of a heading gets "-n", as GitHub numbers them). */
static int page_has_anchor(const char *page, const char *anchor)
{
	char path[512];
	snprintf(path, sizeof path, ROOT "/docs/%s", page);
	if (access(path, R_OK) != 0)
		return 0;
	char *text = slurp(path);
	static char seen[512][128];
	unsigned n_seen = 0;
	int found = 0, in_code = 0;
	for (char *s = text; *s && !found;) {
		char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		if (len >= 3 && !strncmp(s, "```", 3))
			in_code = !in_code;
		if (!in_code && *s == '#') {
			char h[512];
			snprintf(h, sizeof h, "%.*s", (int)len, s);
			char *t = h;
			while (*t == '#')
				t++;
			while (*t == ' ')
				t++;
			char a[128], numbered[140];
			anchor_of(t, a, sizeof a);
			unsigned dup = 0;
			for (unsigned i = 0; i < n_seen; i++)
				dup += !strcmp(seen[i], a);
			if (n_seen < 512)
				snprintf(seen[n_seen++], sizeof seen[0], "%s", a);
			if (dup)
				snprintf(numbered, sizeof numbered, "%s-%u", a, dup);
			else
				snprintf(numbered, sizeof numbered, "%s", a);
			found = !strcmp(numbered, anchor);
		}
		s += len + (nl ? 1 : 0);
	}
	free(text);
	return found;
}

/* Every docs/PAGE.md#anchor in @text; problems logged with @where. */
static unsigned check_anchors_in(const char *where, const char *text, unsigned *n)
{
	unsigned bad = 0;
	for (const char *s = text; (s = strstr(s, "docs/"));) {
		s += 5;
		const char *p = s;
		while (isalnum((unsigned char)*p) || *p == '-' || *p == '_')
			p++;
		if (strncmp(p, ".md#", 4))
			continue;
		char page[128], anchor[128];
		snprintf(page, sizeof page, "%.*s.md", (int)(p - s), s);
		const char *a = p + 4, *q = a;
		while (isalnum((unsigned char)*q) || *q == '-' || *q == '_')
			q++;
		snprintf(anchor, sizeof anchor, "%.*s", (int)(q - a), a);
		if (!*anchor)
			continue; /* a format: "docs/triage.md#%s" with the rule's id */
		(*n)++;
		if (!page_has_anchor(page, anchor)) {
			cr_log_error("%s: docs/%s#%s is no heading of docs/%s", where, page, anchor, page);
			bad++;
		}
	}
	return bad;
}

Test(docs, every_printed_anchor_is_a_heading, .init = setup_runs, .fini = teardown_runs,
     .timeout = 300)
{
	unsigned n = 0, bad = 0;
	DIR *d = opendir(ROOT "/tools/triage");
	cr_assert_not_null(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 3 || strcmp(e->d_name + l - 2, ".c"))
			continue;
		char path[600];
		snprintf(path, sizeof path, ROOT "/tools/triage/%s", e->d_name);
		char *text = slurp(path);
		bad += check_anchors_in(e->d_name, text, &n);
		free(text);
	}
	closedir(d);
	bad += check_anchors_in("the real runs' lines", all_out, &n);
	/* Every fired finding ends with "see docs/triage.md#<its id>"
	 * (tr_f_fire): each rule's id is a heading. */
	for (size_t i = 0; i < tr_nrules; i++) {
		char ref[160];
		snprintf(ref, sizeof ref, "docs/triage.md#%s", tr_rules[i]->id);
		bad += check_anchors_in(tr_rules[i]->id, ref, &n);
	}
	cr_assert_geq(n, 10, "only %u anchors found in the remedies", n);
	cr_assert_eq(bad, 0, "%u of %u printed anchors do not resolve (see the log)", bad, n);
}

Test(docs, anchor_rules)
{
	char a[128];
	anchor_of("The adaptive `auto` policy", a, sizeof a);
	cr_assert_str_eq(a, "the-adaptive-auto-policy");
	anchor_of("--table", a, sizeof a);
	cr_assert_str_eq(a, "--table");
	anchor_of("Cleaning (tools/triage/clean.c)", a, sizeof a);
	cr_assert_str_eq(a, "cleaning-toolstriagecleanc");
	cr_assert(page_has_anchor("triage.md", "host-refault"));
	cr_assert_not(page_has_anchor("triage.md", "no-such-heading"));
}

/* ---- the README's example ------------------------------------------------------------ */

/* A line's shape: its event, then its keys but the vmstat deltas (which
 * counters moved is the machine's, not the format's). */
static int field_is(const char *line, size_t len, const char *key, const char *val);

static void shape_of(const struct kline *l, char *out_, size_t cap_)
{
	size_t o = (size_t)snprintf(out_, cap_, "%s:", l->event);
	for (unsigned k = 0; k < l->n && o < cap_; k++)
		if (!is_vm_key(l->key[k]) && !is_auto_key(l->key[k]))
			o += (size_t)snprintf(out_ + o, cap_ - o, " %s", l->key[k]);
}

/* A `fallback what=auto` line: the adaptive prefault's switch, there or
 * not as the machine's memory was. */
static int is_auto_switch(const char *line, size_t len)
{
	return !strncmp(strstr(line, "] ") ? strstr(line, "] ") + 2 : line, "fallback ", 9) &&
	       field_is(line, len, "what", "auto");
}

static int field_is(const char *line, size_t len, const char *key, const char *val)
{
	char pat[128];
	int n = snprintf(pat, sizeof pat, " %s=%s ", key, val);
	return memmem(line, len, pat, (size_t)n) != NULL;
}

Test(docs, readme_example_has_the_programs_shape, .timeout = 300)
{
	lsct_tool_required();
	char why[256];
	if (!lsct_can_mlock(128u << 20, why, sizeof why))
		cr_skip("the README's load pins 128 MiB with mlock, which this process cannot: %s", why);
	char *readme = slurp(ROOT "/README.md");
	char *b = strstr(readme, "<!-- readme-example:begin -->");
	char *eend = strstr(readme, "<!-- readme-example:end -->");
	cr_assert(b && eend && b < eend, "README.md has no readme-example markers");
	*eend = '\0';
	static struct kline doc[64];
	unsigned n_doc = 0;
	int policy_thp_doc = 0;
	for (char *s = b; *s;) {
		char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		if (!strncmp(s, LSC__TAG, strlen(LSC__TAG)) && n_doc < 64 && !is_auto_switch(s, len)) {
			cr_assert_eq(kline_parse(s, len, &doc[n_doc]), 1);
			if (!strcmp(doc[n_doc].event, "arena"))
				policy_thp_doc = field_is(s, len, "policy", "thp");
			n_doc++;
		}
		s += len + (nl ? 1 : 0);
	}
	cr_assert_geq(n_doc, 5, "the README's block has %u lines", n_doc);

	const char *d = lsct_scratch("readme");
	int rc = lsct_tool(out, sizeof out, err, sizeof err, "load --make-test-file '%s/demo.bin' --gib 0.125", d);
	cr_assert_eq(rc, 0, "%s%s", out, err);
	rc = lsct_tool(out, sizeof out, err, sizeof err, "load '%s/demo.bin' --pin mlock", d);
	cr_assert_eq(rc, 0, "%s%s", out, err);
	lsct_scratch_remove();
	static struct kline now[64];
	unsigned n_now = 0;
	int policy_thp_now = 0;
	for (char *s = out; *s;) {
		char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		if (!strncmp(s, LSC__TAG, strlen(LSC__TAG)) && n_now < 64 && !is_auto_switch(s, len)) {
			cr_assert_eq(kline_parse(s, len, &now[n_now]), 1);
			if (!strcmp(now[n_now].event, "arena"))
				policy_thp_now = field_is(s, len, "policy", "thp");
			if (strcmp(now[n_now].event, "start") && strcmp(now[n_now].event, "system"))
				n_now++;
		}
		s += len + (nl ? 1 : 0);
	}
	if (policy_thp_doc != policy_thp_now)
		cr_skip("this machine's auto policy picked %s, the README's run %s: shapes differ by design",
			policy_thp_now ? "thp" : "another", policy_thp_doc ? "thp" : "another");
	char sd[4096], sn[4096];
	for (unsigned i = 0; i < n_doc || i < n_now; i++) {
		cr_assert(i < n_doc && i < n_now,
			  "README.md has %u lines, the load now prints %u: run scripts/readme-example.sh", n_doc,
			  n_now);
		shape_of(&doc[i], sd, sizeof sd);
		shape_of(&now[i], sn, sizeof sn);
		cr_assert_str_eq(sd, sn, "README.md's line %u has drifted (run scripts/readme-example.sh):\n"
					 "README: %s\nnow:    %s", i + 1, sd, sn);
	}
	free(readme);
}
