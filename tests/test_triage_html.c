/*
 * Description: the triage's HTML page (`loadscope triage --html`, `loadscope
 * load --html`, tools/triage/render_html.c), checked as text and in a real
 * browser. As text: the page is well-formed (every tag closed, attributes
 * quoted, every `<` and `&` markup), valid UTF-8, carries the CSP that
 * forbids every script, escapes a hostile log, and stays the same size
 * whatever the number of starts. In headless Chromium (Debian's `chromium`,
 * scripts/deps.sh --test installs it; the browser tests skip loudly where it
 * is missing or cannot start): the timeline is in the DOM after load (one
 * rect per phase with its data attributes, the axis), the screenshot is the
 * window's size and far from a blank page's, and the hostile page's DOM has
 * no element or attribute the log tried to inject and its title is the
 * page's own (the canary a script would change).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "helpers/triage_run.h"
#include "helpers/browser.h"
#include "helpers/tool_run.h"

static const char *dir; /* the test's scratch directory */

static void setup(void)
{
	lsct_tool_required();
	dir = lsct_scratch("triage-html");
}

static void teardown(void)
{
	lsct_scratch_remove();
}

static const char *path_in(const char *name)
{
	static char p[8][256];
	static int k;
	char *r = p[k++ % 8];
	snprintf(r, 256, "%s/%s", dir, name);
	return r;
}


static int triage_html(const char *log, const char *page)
{
	char *argv[] = {(char *)LSC_TEST_TOOL, "triage", "--html", (char *)page, (char *)log, NULL};
	return lsct_run_argv(argv, NULL);
}

static char *slurp(const char *p, size_t *n)
{
	size_t len = 0;
	char *b = trun_slurp(p, &len);
	cr_assert_not_null(b, "cannot read %s", p);
	if (n)
		*n = len;
	return b;
}

/* ---- the page as text ------------------------------------------------------------ */

/* Is @s strictly valid UTF-8 (no overlong form, surrogate or value past U+10FFFF)? */
static int valid_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t k = c < 0x80 ? 1 : c >= 0xc2 && c < 0xe0 ? 2 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xf0 && c < 0xf5 ? 4 : 0;
		if (!k || i + k > n)
			return 0;
		for (size_t j = 1; j < k; j++)
			if ((s[i + j] & 0xc0) != 0x80)
				return 0;
		if ((c == 0xe0 && s[i + 1] < 0xa0) || (c == 0xed && s[i + 1] >= 0xa0) || (c == 0xf0 && s[i + 1] < 0x90) ||
		    (c == 0xf4 && s[i + 1] >= 0x90))
			return 0;
		i += k;
	}
	return 1;
}

/*
 * Strict well-formedness, as an XML parser would see the page: every tag
 * closed in order (or written <x/>), attribute values in double quotes
 * with no '<' inside, every '&' an entity, no '<' in text. The DOCTYPE is
 * the one declaration allowed. Return NULL, or what is wrong.
 */
static const char *wellformed(const char *s, char *why, size_t cap)
{
	const char *stack[256];
	size_t sl[256], depth = 0;
	const char *p = s;
	if (strncmp(p, "<!DOCTYPE html>", 15))
		return "no <!DOCTYPE html> first";
	p += 15;
	while (*p) {
		if (*p == '&') {
			const char *e = p + 1;
			if (*e == '#')
				e++;
			while ((*e >= 'a' && *e <= 'z') || (*e >= '0' && *e <= '9'))
				e++;
			if (*e != ';' || e == p + 1) {
				snprintf(why, cap, "bare & at byte %zu", (size_t)(p - s));
				return why;
			}
			p = e + 1;
			continue;
		}
		if (*p != '<') {
			if (*p == '>') {
				snprintf(why, cap, "bare > at byte %zu", (size_t)(p - s));
				return why;
			}
			p++;
			continue;
		}
		int closing = p[1] == '/';
		const char *n = p + 1 + closing, *ne = n;
		while ((*ne >= 'a' && *ne <= 'z') || (*ne >= 'A' && *ne <= 'Z') || (*ne >= '0' && *ne <= '9'))
			ne++;
		if (ne == n) {
			snprintf(why, cap, "'<' that opens no tag at byte %zu", (size_t)(p - s));
			return why;
		}
		const char *q = ne;
		int selfclose = 0;
		for (;;) {
			while (*q == ' ' || *q == '\n')
				q++;
			if (*q == '>')
				break;
			if (q[0] == '/' && q[1] == '>') {
				selfclose = 1;
				q++;
				break;
			}
			if (closing) {
				snprintf(why, cap, "junk in a closing tag at byte %zu", (size_t)(q - s));
				return why;
			}
			const char *a = q;
			while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
			       *q == '-' || *q == ':')
				q++;
			if (q == a || q[0] != '=' || q[1] != '"') {
				snprintf(why, cap, "unquoted or nameless attribute at byte %zu", (size_t)(a - s));
				return why;
			}
			q += 2;
			while (*q && *q != '"') {
				if (*q == '<') {
					snprintf(why, cap, "'<' in an attribute at byte %zu", (size_t)(q - s));
					return why;
				}
				q++;
			}
			if (!*q)
				return "unterminated attribute";
			q++;
		}
		size_t len = (size_t)(ne - n);
		if (closing) {
			if (!depth || sl[depth - 1] != len || strncmp(stack[depth - 1], n, len)) {
				snprintf(why, cap, "</%.*s> closes %.*s at byte %zu", (int)len, n,
					 depth ? (int)sl[depth - 1] : 4, depth ? stack[depth - 1] : "none", (size_t)(p - s));
				return why;
			}
			depth--;
		} else if (!selfclose) {
			if (depth == 256)
				return "nested too deep";
			stack[depth] = n;
			sl[depth++] = len;
			/* the style sheet's text is not markup */
			if (len == 5 && !strncmp(n, "style", 5)) {
				const char *e = strstr(q, "</style>");
				if (!e)
					return "unclosed <style>";
				if (memchr(q, '<', (size_t)(e - q)))
					return "'<' inside <style>";
				q = e - 1;
			}
		}
		p = q + 1;
	}
	if (depth) {
		snprintf(why, cap, "<%.*s> never closed", (int)sl[depth - 1], stack[depth - 1]);
		return why;
	}
	return NULL;
}

static void assert_page_sound(const char *page, size_t n)
{
	char why[160];
	cr_assert(valid_utf8((const unsigned char *)page, n), "the page is not valid UTF-8");
	const char *w = wellformed(page, why, sizeof(why));
	cr_assert_null(w, "the page is not well-formed: %s", w ? w : "");
	cr_assert(strstr(page, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
			       "style-src 'unsafe-inline';"),
		  "no CSP that forbids scripts");
	cr_assert_null(strcasestr(page, "<script"), "the page has a script tag");
	/* nothing to fetch: no tag names an address but the SVG namespace
	 * (never fetched), no href or src, no url() but the page's own
	 * patterns; log text may hold addresses, as text */
	for (const char *p = page; (p = strchr(p, '<')); p++) {
		const char *e = strchr(p, '>');
		cr_assert_not_null(e);
		for (const char *q = p; q < e; q++) {
			cr_assert(strncmp(q, "http", 4) || !strncmp(q, "http://www.w3.org/2000/svg\"", 27) ||
					  !strncmp(q, "http-equiv=", 11),
				  "an address in %.*s", (int)(e - p + 1), p);
			cr_assert(strncmp(q, " href=", 6) && strncmp(q, " src=", 5), "%.*s", (int)(e - p + 1), p);
			cr_assert(strncmp(q, "url(", 4) || q[4] == '#', "%.*s", (int)(e - p + 1), p);
		}
	}
	const char *st = strstr(page, "<style>"), *se = st ? strstr(st, "</style>") : NULL;
	cr_assert(st && se);
	for (const char *q = st; q < se; q++)
		cr_assert(strncmp(q, "url(", 4) && strncmp(q, "@import", 7), "the style sheet fetches");
}

/* The hostile log: every trick a pasted log could play on a page, in lines
 * the triage quotes as evidence (an engine's error ends a start and is
 * quoted by load-failed). */
static const char hostile[] =
	"[strata] starting engine: <script>document.title='pwned-0'</script>\n"
	"llama_model_load: error loading model: "
	"bad utf-8 \xff\xfe\xc0\xbc overlong-lt \xe0\x80\xbc surrogate \xed\xa0\x80 bidi \xe2\x80\xae gnp.exe "
	"<script>document.title='pwned-1'</script><img src=x onerror=\"document.title='pwned-2'\"> "
	"\" onmouseover=\"document.title='pwned-3' ' onfocus='document.title=4' "
	"<a href=\"javascript:document.title='pwned-5'\">x</a> <svg onload=document.title=6> "
	"</code></li></ol></div></section><script>document.title='pwned-7'</script><!--\n";

static void write_hostile(const char *p)
{
	FILE *f = fopen(p, "wb");
	cr_assert_not_null(f);
	fputs(hostile, f);
	/* a very long error line, cut by the triage and by the page: every cut
	 * falls between the characters (2-byte é, 3-byte €) */
	fputs("failed to load model: ", f);
	for (int i = 0; i < 50000; i++)
		fputs(i % 2 ? "\xc3\xa9" : "\xe2\x82\xac<\"'&", f);
	fputs("<script>document.title='pwned-8'</script>\n", f);
	fclose(f);
}

/* A file name is log text too: it is in the header and every evidence line. */
static const char hostile_name[] = "x\"'><img src=y onerror=alert(1)>.log";

TestSuite(triage_html, .init = setup, .fini = teardown);

Test(triage_html, hostile_log_is_escaped_and_page_well_formed)
{
	const char *log = path_in(hostile_name), *page = path_in("hostile.html");
	write_hostile(log);
	cr_assert_eq(triage_html(log, page), 2, "a start that logged an error fails (exit 2)");
	size_t n;
	char *h = slurp(page, &n);
	assert_page_sound(h, n);
	/* the injected markup is there, as text */
	cr_assert(strstr(h, "&lt;script&gt;document.title=&#39;pwned-1&#39;&lt;/script&gt;"), "%.400s", h);
	cr_assert(strstr(h, "&lt;img src=x onerror=&quot;document.title=&#39;pwned-2&#39;&quot;&gt;"));
	cr_assert(strstr(h, "x&quot;&#39;&gt;&lt;img src=y onerror=alert(1)&gt;.log"), "the file name, escaped");
	/* invalid bytes and the overlong '<' became U+FFFD; the bidi override too */
#define FFFD "\xef\xbf\xbd"
	cr_assert(strstr(h, "bad utf-8 " FFFD FFFD FFFD FFFD " overlong-lt " FFFD FFFD FFFD " surrogate " FFFD FFFD FFFD
			    " bidi " FFFD " gnp"),
		  "%s",
		  strstr(h, "bad utf-8") ? strstr(h, "bad utf-8") : "no 'bad utf-8' in the page");
	cr_assert_null(strstr(h, "\xe2\x80\xae"), "a bidi override reached the page");
	cr_assert_null(strstr(h, "<img"));
	cr_assert_null(strstr(h, "<a "));
	cr_assert_null(strstr(h, "<!--"));
	free(h);
}

Test(triage_html, every_corpus_log_gives_a_sound_page)
{
	size_t nlogs;
	char **logs = trun_list(LSC_TEST_CORPUS "/logs", ".log", &nlogs);
	cr_assert_gt(nlogs, 10, "the corpus logs are missing");
	for (size_t i = 0; i < nlogs; i++) {
		char log[512];
		snprintf(log, sizeof(log), LSC_TEST_CORPUS "/logs/%s", logs[i]);
		const char *page = path_in("corpus.html");
		int rc = triage_html(log, page);
		cr_assert(rc >= 0 && rc <= 3, "%s: exit %d", logs[i], rc);
		size_t n;
		char *h = slurp(page, &n);
		cr_assert(strstr(h, "</html>"), "%s: no page", logs[i]);
		assert_page_sound(h, n);
		free(h);
	}
	trun_names_free(logs, nlogs);
}

/* ---- size and memory are bounded -------------------------------------------------- */

static void write_starts(const char *p, unsigned n)
{
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f);
	for (unsigned i = 0; i < n; i++) {
		fprintf(f, "[loadscope/1] start x: run %08x | run=%08x t_s=0.000 pid=1 name=x\n", i, i);
		fprintf(f, "[loadscope/1] phase allocate: 1 GiB in 1 s | run=%08x t_s=1 depth=0 kind=allocate "
			   "name=allocate bytes=1073741824 wall_s=1.5 gibps=0.67\n", i);
		fprintf(f, "[loadscope/1] ready in 2 s | run=%08x t_s=2 wall_s=2.0 phases=1 covered_s=1.5 "
			   "unattributed_s=0.5\n", i);
	}
	fclose(f);
}

static size_t count(const char *h, const char *needle)
{
	size_t c = 0;
	for (const char *p = h; (p = strstr(p, needle)); p++)
		c++;
	return c;
}

Test(triage_html, thousands_of_starts_give_a_bounded_page)
{
	const char *a = path_in("3k.log"), *b = path_in("30k.log"), *pa = path_in("3k.html"), *pb = path_in("30k.html");
	write_starts(a, 3000);
	write_starts(b, 30000);
	cr_assert_eq(triage_html(a, pa), 0);
	cr_assert_eq(triage_html(b, pb), 0);
	size_t na, nb;
	char *ha = slurp(pa, &na), *hb = slurp(pb, &nb);
	assert_page_sound(ha, na);
	assert_page_sound(hb, nb);
	/* the first 50 starts drawn, the rest counted */
	cr_assert_eq(count(ha, "<section class=\"start\""), 50);
	cr_assert_eq(count(hb, "<section class=\"start\""), 50);
	cr_assert(strstr(ha, "2950 more starts not drawn"));
	cr_assert(strstr(hb, "29950 more starts not drawn"));
	/* ten times the starts: the same page but for a few counts */
	cr_assert_lt(nb > na ? nb - na : na - nb, 256, "3k starts: %zu bytes, 30k: %zu", na, nb);
	cr_assert_lt(na, 2u << 20);
	free(ha);
	free(hb);
}

/* The header names the first 16 inputs and counts the rest: 16 inputs are
 * all named, 17 are 16 named and "and 1 more inputs". In process: the
 * page of a triage fed N inputs. */
static char *page_of_inputs(unsigned n)
{
	struct lsc_triage *t = lsc_triage_new(NULL);
	cr_assert_not_null(t);
	for (unsigned i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof name, "in%02u.log", i);
		cr_assert_eq(lsc_triage_source(t, name), 0);
		cr_assert_eq(lsc_triage_feed(t, "vmstat: pswpin +1 pswpout +0\n", 29), 0);
	}
	lsc_triage_finish(t);
	size_t len;
	char *page = trun_render(t, TRUN_HTML, &len);
	cr_assert_not_null(page);
	lsc_triage_free(t);
	char *end = strstr(page, "</header>");
	cr_assert_not_null(end);
	*end = 0; /* the header alone: the starts' evidence names inputs too */
	return page;
}

Test(triage_html, the_header_names_sixteen_inputs_and_counts_the_rest)
{
	char *p = page_of_inputs(16);
	cr_expect(strstr(p, "in15.log: "), "the 16th is named last");
	cr_expect_null(strstr(p, "more inputs"));
	free(p);
	p = page_of_inputs(17);
	cr_expect(strstr(p, "in15.log, and 1 more inputs: "), "the 17th is counted");
	cr_expect_null(strstr(p, "in16.log"));
	free(p);
}

/* ---- from a load --------------------------------------------------------------------- */

Test(triage_html, load_writes_the_page_of_its_start)
{
	const char *bin = path_in("w.bin"), *page = path_in("load.html"), *out = path_in("load.out");
	char *mk[] = {(char *)LSC_TEST_TOOL, "load", "--make-test-file", (char *)bin, "--gib", "0.01", NULL};
	cr_assert_eq(lsct_run_argv(mk, NULL), 0);
	char *ld[] = {(char *)LSC_TEST_TOOL, "load", (char *)bin, "--thp", "4k", "--html", (char *)page, NULL};
	cr_assert_eq(lsct_run_argv(ld, out), 0);
	size_t n;
	char *lines = slurp(out, NULL), *h = slurp(page, &n);
	assert_page_sound(h, n);
	/* stdout still has the run's lines, and the page is of that run */
	const char *r = strstr(lines, " run=");
	cr_assert_not_null(r, "%s", lines);
	char run_id[16];
	cr_assert_eq(sscanf(r, " run=%8[0-9a-f]", run_id), 1);
	char want[64];
	snprintf(want, sizeof(want), "run %s</span>", run_id);
	cr_assert(strstr(h, want), "the page names run %s", run_id);
	cr_assert_eq(count(h, "<svg class=\"timeline\""), 1);
	cr_assert(strstr(h, "data-phase=\"allocate\""));
	cr_assert(strstr(h, "data-phase=\"read\""));
	cr_assert(strstr(h, "data-phase=\"load to ready\""));
	free(lines);
	free(h);
}

Test(triage_html, cli_options)
{
	const char *log = path_in("a.log"), *out = path_in("a.out");
	write_starts(log, 1);
	char *dash[] = {(char *)LSC_TEST_TOOL, "triage", "--html", "-", (char *)log, NULL};
	cr_assert_eq(lsct_run_argv(dash, out), 0);
	char *h = slurp(out, NULL);
	cr_assert_eq(strncmp(h, "<!DOCTYPE html>", 15), 0, "--html - writes the page, alone, on stdout");
	free(h);
	char *both[] = {(char *)LSC_TEST_TOOL, "triage", "--format", "json", "--html", (char *)path_in("b.html"),
			(char *)log, NULL};
	cr_assert_eq(lsct_run_argv(both, out), 0);
	h = slurp(out, NULL);
	cr_assert_eq(strncmp(h, "{\"schema\":\"loadscope-triage\"", 28), 0, "with --format, the report too");
	free(h);
	char *missing[] = {(char *)LSC_TEST_TOOL, "triage", "--html", NULL};
	cr_assert_eq(lsct_run_argv(missing, NULL), 64); /* a usage error (docs/cli.md) */
	char *unwritable[] = {(char *)LSC_TEST_TOOL, "triage", "--html", "/nonexistent/dir/p.html", (char *)log, NULL};
	cr_assert_eq(lsct_run_argv(unwritable, NULL), 4);
	char *help[] = {(char *)LSC_TEST_TOOL, "triage", "--help", NULL};
	cr_assert_eq(lsct_run_argv(help, out), 0);
	h = slurp(out, NULL);
	cr_assert(strstr(h, "--html OUT.html"));
	free(h);
}

/* ---- in a real browser ---------------------------------------------------------------- */





/* The start-@idx timeline's part of the DOM, NUL-terminated in place. */
static char *timeline_of(char *dom, unsigned idx)
{
	char key[64];
	snprintf(key, sizeof(key), "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\"");
	char *p = dom;
	for (unsigned i = 0; p && (p = strstr(p, key)); i++, p++)
		if (i == idx) {
			char *e = strstr(p, "</svg>");
			cr_assert_not_null(e);
			*e = 0;
			return p;
		}
	cr_assert_fail("no timeline %u in the DOM", idx);
	return NULL;
}

/* The rect of @phase in @svg has each of @attrs (NULL-terminated). */
static void assert_rect(const char *svg, const char *phase, const char *const *attrs)
{
	char key[96];
	snprintf(key, sizeof(key), "data-phase=\"%s\"", phase);
	const char *r = strstr(svg, key);
	cr_assert_not_null(r, "no rect for phase %s", phase);
	while (r > svg && strncmp(r, "<rect", 5))
		r--;
	const char *e = strchr(r, '>');
	cr_assert_not_null(e);
	for (const char *const *a = attrs; *a; a++) {
		const char *f = strstr(r, *a);
		cr_assert(f && f < e, "phase %s: no %s in %.*s", phase, *a, (int)(e - r + 1), r);
	}
}

Test(triage_html, timeline_in_the_browser)
{
	lsct_need_browser(dir);
	const char *log = LSC_TEST_CORPUS "/logs/loadscope-ab-thp-vs-4k.log";
	const char *page = path_in("ab.html"), *dom = path_in("ab.dom"), *png = path_in("ab.png");
	const char *blank = path_in("blank.html"), *bpng = path_in("blank.png");
	cr_assert_eq(triage_html(log, page), 0);
	cr_assert_eq(lsct_browse(dir, page, dom, NULL), 0);
	size_t n;
	char *d = slurp(dom, &n);
	cr_assert(strstr(d, "<title>loadscope triage: 8 starts</title>"));
	/* every start drawn; the A/B chart: 8 points, two arms' medians
	 * (thp: 0.991869 1.093096 1.108920 0.616202 -> (0.991869+1.093096)/2;
	 * 4k: 2.099605 2.070669 1.982587 2.104675 -> (2.070669+2.099605)/2) */
	cr_assert_eq(count(d, "<svg class=\"timeline\""), 8);
	cr_assert_eq(count(d, "<circle class=\"pt\""), 8);
	cr_assert(strstr(d, "data-median=\"1.04248\""));
	cr_assert(strstr(d, "data-median=\"2.08514\""));
	/* start 0, from the log's own figures: each phase one rect, to scale */
	char *svg = timeline_of(d, 0);
	cr_assert_eq(count(svg, "<rect class=\"phase"), 7, "%s", svg);
	assert_rect(svg, "load to ready",
		    (const char *const[]){"data-row=\"start\"", "data-depth=\"0\"", "data-dur-s=\"0.991869\"", NULL});
	assert_rect(svg, "complement total",
		    (const char *const[]){"data-row=\"phases\"", "data-depth=\"1\"", "data-dur-s=\"0.989\"", NULL});
	assert_rect(svg, "allocate",
		    (const char *const[]){"longest", "data-row=\"nested\"", "data-depth=\"2\"", "data-start-s=\"0\"",
					  "data-dur-s=\"0.883131\"", "data-share=\"89.0\"", NULL});
	assert_rect(svg, "pin", (const char *const[]){"data-start-s=\"0.883131\"", "data-dur-s=\"6.3e-05\"", NULL});
	assert_rect(svg, "read", (const char *const[]){"data-dur-s=\"0.104309\"", "data-share=\"10.5\"", NULL});
	assert_rect(svg, "verify", (const char *const[]){"data-row=\"overlapped\"", "data-dur-s=\"0.092485\"", NULL});
	assert_rect(svg, "unattributed", (const char *const[]){"data-kind=\"gap\"", "data-dur-s=\"0.004366\"", NULL});
	/* the axis: 0 to 0.99 s in steps of 0.2 s */
	cr_assert(strstr(svg, "<g class=\"axis\" data-unit=\"s\">"));
	cr_assert_eq(count(svg, "<text class=\"tick\""), 5);
	cr_assert(strstr(svg, ">0.8 s</text>"));
	cr_assert_null(strstr(svg, ">1 s</text>"));
	free(d);

	/* the screenshot: the window's size, and not a blank page */
	FILE *f = fopen(blank, "w");
	cr_assert_not_null(f);
	fputs("<!DOCTYPE html><html><head><title>blank</title></head><body></body></html>", f);
	fclose(f);
	cr_assert_eq(lsct_browse(dir, page, NULL, png), 0);
	cr_assert_eq(lsct_browse(dir, blank, NULL, bpng), 0);
	uint32_t w, h, bw, bh;
	size_t sz, bsz;
	cr_assert(lsct_png_size(png, &w, &h, &sz), "no PNG written");
	cr_assert(lsct_png_size(bpng, &bw, &bh, &bsz), "no PNG of the blank page");
	cr_assert_eq(w, 1200);
	cr_assert_eq(h, 900);
	cr_assert_eq(bw, 1200);
	/* one colour compresses to a few KiB; a drawn page to tens */
	cr_assert_gt(sz, 8 * bsz, "screenshot %zu bytes, a blank page's %zu", sz, bsz);
}

Test(triage_html, hostile_page_runs_nothing_in_the_browser)
{
	lsct_need_browser(dir);
	const char *log = path_in(hostile_name), *page = path_in("hostile.html"), *dom = path_in("hostile.dom");
	write_hostile(log);
	cr_assert_eq(triage_html(log, page), 2);
	cr_assert_eq(lsct_browse(dir, page, dom, NULL), 0);
	char *d = slurp(dom, NULL);
	/* the canary: any script that ran would have set the title */
	cr_assert(strstr(d, "<title>loadscope triage: 1 start</title>"), "%.600s", d);
	cr_assert_null(strstr(d, "pwned</title>"));
	/* in the serialised DOM a text '<' is &lt;: a literal one is an element */
	cr_assert_null(strcasestr(d, "<script"));
	cr_assert_null(strcasestr(d, "<img"));
	cr_assert_null(strcasestr(d, "<a "));
	cr_assert_null(strcasestr(d, "<svg onload"));
	cr_assert_null(strstr(d, "<!--"));
	/* and no tag carries an attribute the log named: scan every tag's
	 * attribute names (values are quoted, their quotes escaped) */
	for (const char *p = d; (p = strchr(p, '<')); p++) {
		const char *e = strchr(p, '>');
		cr_assert_not_null(e);
		int inq = 0;
		for (const char *q = p; q < e; q++) {
			if (*q == '"')
				inq = !inq;
			if (inq || q[0] != ' ')
				continue;
			cr_assert(strncasecmp(q + 1, "on", 2) && strncasecmp(q + 1, "href", 4) &&
					  strncasecmp(q + 1, "src", 3),
				  "an injected attribute: %.*s", (int)(e - p + 1), p);
		}
	}
	cr_assert_eq(count(d, "<section class=\"start\""), 1);
	cr_assert(strstr(d, "&lt;script&gt;document.title='pwned-1'&lt;/script&gt;"));
	free(d);
}
