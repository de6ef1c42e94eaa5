/*
 * Description: `loadscope triage --redact` (tools/triage/redact.c) on each
 * kind of token it replaces, and on its near misses, which stay: a path of
 * two or more components (but /proc, /sys and /dev, which say what the
 * kernel was asked), user@host, a dotted IPv4 address, a host name of three
 * or more labels; a version number, a file name, a size and a figure with
 * a dot stay as they were, because the triage reads them, and so do a
 * dotted name in code and a file's name. The expected
 * outputs are written by hand from those rules (docs/triage.md).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

static void redacts(const char *in, const char *want)
{
	char out[512];
	tr_redact(in, out, sizeof out);
	cr_expect_str_eq(out, want, "redact(\"%s\")", in);
}

Test(triage_redact, each_kind_and_its_near_miss)
{
	redacts("loading /home/alice/models/x.gguf", "loading <path>");
	redacts("cd ~/models/x", "cd <path>");
	redacts("reading /proc/sys/vm/nr_hugepages", "reading /proc/sys/vm/nr_hugepages");
	redacts("open /dev/kfd", "open /dev/kfd");
	redacts("file /x", "file /x"); /* one component: not a path anyone owns */
	/* a relative path names its user too */
	redacts("from path: ./home/llama/models/x.bin", "from path: <path>");
	redacts("in ../home/bob/x.gguf", "in <path>");
	redacts("run ./start.sh", "run ./start.sh"); /* one component */
	redacts("v0./x/y", "v0./x/y"); /* a dot inside a token opens no path */
	redacts("ssh alice@gpu-node-7 failed", "ssh <user>@<host> failed");
	redacts("from 10.20.30.40 port 22", "from <ip> port 22");
	redacts("0.0.0.0:8000", "0.0.0.0:8000"); /* the wildcard address: no one's */
	redacts("connect node1.cluster.example.com refused", "connect <host> refused");
	redacts("vllm 0.6.3.post1 started", "vllm 0.6.3.post1 started"); /* a version */
	/* dotted names that are not hosts: a file's, and code's */
	redacts("model.safetensors.index.json", "model.safetensors.index.json");
	redacts("gpu1.example.org.json", "gpu1.example.org.json");
	redacts("loaded 39.97 GiB in 13.9 s", "loaded 39.97 GiB in 13.9 s");
	redacts("torch.cuda.OutOfMemoryError: x", "torch.cuda.OutOfMemoryError: x");
	redacts("at org.apache.Thing.run", "at org.apache.Thing.run");
	redacts("pulling from registry.ollama.ai now", "pulling from <host> now");
	/* a dotted name is a host from four letters on: both sides */
	redacts("via n1.d.io now", "via <host> now");
	redacts("via n1.2.io now", "via n1.2.io now");
	/* a Windows drive's path; an address glued inside a token */
	redacts("at C:\\Users\\paolo\\llama-box.exe now", "at <path> now");
	redacts("D:/models/qwen/x.gguf", "<path>");
	redacts("C:\\x", "C:\\x"); /* one component */
	redacts("GRPC(m.Q5_K_M.gguf-10.1.2.3:41245)", "GRPC(m.Q5_K_M.gguf-<ip>:41245)");
	redacts("uri '10.181.196.67:7890'", "uri '<ip>:7890'");
	redacts("bind 0.0.0.0:8080, v1.2.3.4.5, 1.2.3.256", "bind 0.0.0.0:8080, v1.2.3.4.5, 1.2.3.256");
}

/* What the log says of who and where, found here by the test's own
 * reading of the raw log: an IPv4 address (not 0.x, four numbers to 255),
 * a home directory's user (/home/NAME, /Users/NAME, C:\Users\NAME), a
 * user@host. Each goes in @tok (at most @cap), longest kinds first. */
static size_t private_tokens(const char *log, char tok[][96], size_t cap)
{
	size_t k = 0;
	for (const char *p = log; *p && k < cap; p++) {
		unsigned a, b, c, d;
		int used = 0;
		if ((p == log || !(isdigit((unsigned char)p[-1]) || p[-1] == '.')) && isdigit((unsigned char)*p) && *p != '0' &&
		    sscanf(p, "%3u.%3u.%3u.%3u%n", &a, &b, &c, &d, &used) == 4 && a < 256 && b < 256 && c < 256 &&
		    d < 256 && !isdigit((unsigned char)p[used]) && !(p[used] == '.' && isdigit((unsigned char)p[used + 1]))) {
			snprintf(tok[k++], 96, "%.*s", used, p);
			p += used - 1;
			continue;
		}
		static const char *const home[] = {"/home/", "/Users/", "\\Users\\"};
		for (size_t h = 0; h < 3 && k < cap; h++)
			if (!strncmp(p, home[h], strlen(home[h]))) {
				const char *u = p + strlen(home[h]);
				size_t n = 0;
				while (isalnum((unsigned char)u[n]) || u[n] == '_' || u[n] == '-')
					n++;
				if (n >= 2)
					snprintf(tok[k++], 96, "%s%.*s", home[h], (int)n, u);
			}
		if (*p == '@' && p > log && isalpha((unsigned char)p[-1]) && isalpha((unsigned char)p[1]) && k < cap) {
			const char *b0 = p, *e = p + 1;
			while (b0 > log && (isalnum((unsigned char)b0[-1]) || b0[-1] == '_' || b0[-1] == '.'))
				b0--;
			while (isalnum((unsigned char)*e) || *e == '.' || *e == '-')
				e++;
			if (memchr(p, '.', (size_t)(e - p)))
				snprintf(tok[k++], 96, "%.*s", (int)(e - b0), b0);
		}
	}
	return k;
}

/* The same token as a JSON string holds it: each backslash doubled. */
static void json_form(const char *t, char *out, size_t cap)
{
	size_t w = 0;
	for (; *t && w + 3 < cap; t++) {
		if (*t == '\\')
			out[w++] = '\\';
		out[w++] = *t;
	}
	out[w] = 0;
}

/* Every corpus log under --redact, in every format and on the page, with
 * its input named by a path under the user's home: nothing the log says of
 * who and where survives, in the quoted lines, the findings' own texts or
 * the input's name. */
Test(triage_redact, no_private_token_of_any_corpus_log_survives)
{
	size_t n;
	char **logs = trun_list(LSC_TEST_CORPUS "/logs", ".log", &n);
	cr_assert(logs && n > 100);
	static char tok[256][96];
	size_t seen = 0;
	for (size_t i = 0; i < n; i++) {
		char path[600];
		size_t len;
		snprintf(path, sizeof path, "%s/logs/%s", LSC_TEST_CORPUS, logs[i]);
		char *log = trun_slurp(path, &len);
		cr_assert_not_null(log);
		size_t nt = private_tokens(log, tok, 254);
		snprintf(tok[nt++], 96, "/home/alice");
		seen += nt - 1;
		struct lsc_triage_opts o = {.flags = LSC_TRIAGE_REDACT, .source = "/home/alice/logs/start.log"};
		struct lsc_triage *t = trun_feed(log, len, 4096, 0, &o);
		cr_assert_not_null(t);
		static const int fmts[] = {LSC_TRIAGE_TEXT, LSC_TRIAGE_JSON, LSC_TRIAGE_MD, TRUN_HTML};
		for (size_t f = 0; f < 4; f++) {
			size_t ol;
			char *out = trun_render(t, (enum lsc_triage_fmt)fmts[f], &ol);
			cr_assert_not_null(out);
			for (size_t k = 0; k < nt; k++) {
				char js[200];
				json_form(tok[k], js, sizeof js);
				cr_expect(!strstr(out, tok[k]) && !strstr(out, js), "%s, format %d: \"%s\" survives --redact",
					  logs[i], fmts[f], tok[k]);
			}
			free(out);
		}
		lsc_triage_free(t);
		free(log);
	}
	trun_names_free(logs, n);
	cr_assert_gt(seen, 10, "the corpus's own addresses and users were not found: the check checked nothing");
}

/* The output ends inside its buffer, at a whole token. */
Test(triage_redact, output_fits_and_ends)
{
	char out[16];
	tr_redact("loading /home/alice/models/x.gguf now", out, sizeof out);
	cr_expect_lt(strlen(out), sizeof out);
	cr_expect_str_eq(out, "loading <path> ");
}

/* @log triaged under --redact quotes @want, a redacted line, whole in
 * every format: all of it, and the next byte closes the quote rather than
 * a space before one more placeholder. */
static void expect_redacted_whole(const char *log, size_t len, const char *want)
{
	struct lsc_triage_opts o = {.flags = LSC_TRIAGE_REDACT};
	struct lsc_triage *t = trun_feed(log, len, 4096, 0, &o);
	cr_assert_not_null(t);
	/* the HTML page escapes the placeholders' angle brackets */
	char esc[4096];
	size_t e = 0;
	for (const char *s = want; *s && e + 5 < sizeof esc; s++)
		e += (size_t)snprintf(esc + e, sizeof esc - e, "%s",
				      *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : (char[]){*s, 0});
	static const int fmts[] = {LSC_TRIAGE_TEXT, LSC_TRIAGE_JSON, LSC_TRIAGE_MD, TRUN_HTML};
	for (size_t f = 0; f < 4; f++) {
		size_t ol;
		char *out = trun_render(t, (enum lsc_triage_fmt)fmts[f], &ol);
		cr_assert_not_null(out);
		const char *whole = fmts[f] == TRUN_HTML ? esc : want;
		const char *at = strstr(out, whole);
		cr_expect_not_null(at, "format %d: the redacted line is not quoted whole:\n%s", fmts[f], out);
		if (at)
			cr_expect(at[strlen(whole)] != ' ', "format %d: more after the line: %.40s", fmts[f],
				  at + strlen(whole));
		free(out);
	}
	lsc_triage_free(t);
}

/* A quoted line is redacted whole, in every format: a placeholder is
 * longer than the path it hides (`<path>` for `/m/w`), so a line the triage
 * kept whole may grow under --redact; up to twice its length it is still
 * quoted to its last token, not cut at the length a line is kept to. */
Test(triage_redact, a_line_that_grows_is_quoted_whole)
{
	char line[400], want[800];
	int n = snprintf(line, sizeof line, "llama_model_load: error loading model: failed to open");
	int w = snprintf(want, sizeof want, "%s", line);
	for (int i = 0; i < 50; i++) {
		n += snprintf(line + n, sizeof line - (size_t)n, " /m/w");
		w += snprintf(want + w, sizeof want - (size_t)w, " <path>");
	}
	/* kept whole by the triage (under its 320 bytes), longer than that redacted */
	cr_assert_lt(n, 320);
	cr_assert_gt(w, 320);
	cr_assert_lt(w, 2 * n);
	char log[1024];
	size_t len = (size_t)snprintf(log, sizeof log, "%s\nllama_load_model_from_file: failed to load model\n", line);
	expect_redacted_whole(log, len, want);
}

/* The most a kept line can grow: `a@b` is the shortest token a placeholder
 * replaces, by the longest (`<user>@<host>`), 14 bytes for each 4 with the
 * space after it: an exception line of nothing else, kept whole, is quoted
 * whole redacted, over three times its length, in every format. */
Test(triage_redact, the_most_a_kept_line_grows_is_quoted_whole)
{
	char line[400], want[1400];
	int n = snprintf(line, sizeof line, "RuntimeError: a@b");
	int w = snprintf(want, sizeof want, "RuntimeError: <user>@<host>");
	while (n + 4 < 300) {
		n += snprintf(line + n, sizeof line - (size_t)n, " a@b");
		w += snprintf(want + w, sizeof want - (size_t)w, " <user>@<host>");
	}
	cr_assert_eq(n, 297);
	cr_assert_eq(w, 14 + 71 * 14 - 1);
	char log[1024];
	size_t len = (size_t)snprintf(log, sizeof log,
				      "Loading model weights\nTraceback (most recent call last):\n"
				      "  File \"x.py\", line 1, in <module>\n%s\n",
				      line);
	/* the triage keeps the line whole, unredacted */
	struct lsc_triage *t = trun_feed(log, len, 4096, 0, NULL);
	cr_assert_not_null(t);
	size_t ol;
	char *out = trun_render(t, LSC_TRIAGE_TEXT, &ol);
	cr_assert_not_null(out);
	const char *at = strstr(out, line);
	cr_assert(at && at[n] == '\n', "the line is not kept whole:\n%s", out);
	free(out);
	lsc_triage_free(t);
	expect_redacted_whole(log, len, want);
}
