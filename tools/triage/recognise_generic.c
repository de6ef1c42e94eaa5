/*
 * The vocabulary every engine shares, beneath the engine shapes: a line no
 * engine's recogniser took is read here for what any startup log says in
 * its own words. Failure evidence (an error or fatal level, a traceback as
 * one block whose last exception line is the cause, a panic, an exit status
 * that is not 0, a signal, a timeout, the "failed to load" family); ready
 * evidence with its subject (the model, server, runner, engine,
 * application) and its negation ("not ready after", "never became ready",
 * "still loading" are not ready); load figures anywhere in the line
 * (`took N s`, `load time = N ms`, `t_load_us: N`, `file size = N GiB`, a
 * tqdm bar's `n/N [elapsed<left, rate]`, a percentage), and which of them
 * are the weights' own load and which a step after it (a graph capture, a
 * compile: a floor of the time to ready); a start under way that no
 * engine line marks (its launch command, its parameter count, its files'
 * download count, a wait that ran out, a launcher's elapsed counter, its
 * tensors or its share loaded: load_progress.c); the process gone in its
 * own words (a console's pause prompt, a shutdown before ready); a
 * server's request dumps (no start); and the rows of a status table a
 * program drew (READY, UNAVAILABLE: reason).
 *
 * Parts of it live in files of their own, each one job: what a ready or
 * failure word is about (subject.c), a server up at its address
 * (ready_address.c), a GPU tool's device table (device_table.c), memory
 * brought in (memory_amount.c), a process started after ready
 * (process_start.c), a failure quoting its child's output
 * (quoted_output.c), a checkpoint over the RAM (ram_fit.c), the model
 * loaded in words (model_loaded.c), amounts moved
 * (moved.c) and loads line by line (load_progress.c).
 *
 * Words are matched by meaning, not as substrings: `exit code 0`, `0
 * failures`, `succeeded` and `ok` are not failures. This is what reads an
 * engine no shape names, and what the leave-one-engine-out test measures
 * (tests/test_triage_verdict_files.c).
 */
#include <string.h>
#include <strings.h>

#include "internal.h"

/* The line being read, lowered once (into the triage's scratch buffer),
 * so that the forty-odd case-blind searches a line may need are plain
 * memmem calls over it; set by tr_recognise_generic for its one line and
 * cleared before it returns (one triage runs on one thread at a time). */
static _Thread_local struct {
	const char *orig, *low;
	char *buf;   /* where to lower it, on first use */
	size_t n;
	int ready;   /* ready_words of the whole line, once known; -2 not yet */
} cur_line;

/* The lowered copy of the line being read, made on first use: most lines
 * that reach this recogniser are turned away before any search. */
static const char *lowered(const char *s, size_t n)
{
	if (!cur_line.orig || s < cur_line.orig || s + n > cur_line.orig + cur_line.n)
		return NULL;
	if (!cur_line.low) {
		for (size_t i = 0; i < cur_line.n; i++)
			cur_line.buf[i] = (char)tr_lower((unsigned char)cur_line.orig[i]);
		cur_line.buf[cur_line.n] = 0;
		cur_line.low = cur_line.buf;
	}
	return cur_line.low + (s - cur_line.orig);
}

/* The first @w (lower case) in @s[0..n), case-blind: over the lowered
 * copy when @s lies in the line being read. */
static const char *ci(const char *s, size_t n, const char *w)
{
	const char *lo = lowered(s, n);
	if (lo) {
		/* the lowered copy of a cleaned line holds no NUL and ends in one:
		 * a range to its end is a C string, which strstr searches fastest */
		const char *k = lo[n] ? tr_memmem(lo, n, w) : strstr(lo, w);
		return k ? cur_line.orig + (k - cur_line.low) : NULL;
	}
	return tr_memmem_ci(s, n, w);
}

/* Does @s[0..n) hold @w (lower case) as a word (no letter on either side)? Case-blind. */
static const char *word(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);
	for (const char *p = s, *end = s + n; p + wl <= end;) {
		const char *k = ci(p, (size_t)(end - p), w);
		if (!k)
			return NULL;
		int lb = k > s && (tr_isword(k[-1]) && k[-1] != '_');
		int rb = k + wl < end && tr_isword(k[wl]) && k[wl] != '_';
		if (!lb && !rb)
			return k;
		p = k + 1;
	}
	return NULL;
}

/* Is one of @set (lower-case single words, NULL-terminated) a whole word
 * of @s[0..n)? One pass over the line's words, each compared with the set
 * by its first byte and length: cheaper than a search per word of the set. */
static int any_word(const char *s, size_t n, const char *const *set)
{
	const char *low = lowered(s, n);
	size_t i = 0;
	while (i < n) {
		while (i < n && !(tr_digit(s[i]) || ((unsigned)(tr_lower((unsigned char)s[i]) - 'a') < 26)))
			i++;
		size_t b = i;
		while (i < n && (tr_digit(s[i]) || ((unsigned)(tr_lower((unsigned char)s[i]) - 'a') < 26)))
			i++;
		size_t len = i - b;
		if (!len)
			continue;
		unsigned char c0 = low ? (unsigned char)low[b] : tr_lower((unsigned char)s[b]);
		for (const char *const *w = set; *w; w++) {
			if ((unsigned char)(*w)[0] != c0 || strlen(*w) != len)
				continue;
			size_t j = 1;
			while (j < len && (low ? (unsigned char)low[b + j] : tr_lower((unsigned char)s[b + j])) ==
						  (unsigned char)(*w)[j])
				j++;
			if (j == len)
				return 1;
		}
	}
	return 0;
}

int tr_any_word(const char *s, size_t n, const char *const *set)
{
	return any_word(s, n, set);
}

/* Is @w[0..len) one of @set (lower case), case-blind? */
static int word_is(const char *w, size_t len, const char *const *set)
{
	for (const char *const *x = set; *x; x++)
		if (strlen(*x) == len && !strncasecmp(w, *x, len))
			return 1;
	return 0;
}

/* The line's level from its fields, when the cleaner found none in its
 * prefix: logfmt `level=error`, JSON `"level":"error"`, slog `lvl=`, a
 * leading `Error:` / `FATAL:` / `panic:` (a CLI's last word). A message
 * that opens with a graver level than its prefix's is that level: the
 * prefix was a collector's (`I ` of an outer logger over a launcher's
 * `ERROR shard-manager: ...`). */
static int level_of(const struct tr_line *l)
{
	int pre = l->level;
	const char *s = l->s;
	size_t n = l->len;
	static const struct { const char *k; int lv; } lead[] = {
		{"Error:", TR_LV_ERROR}, {"ERROR:", TR_LV_ERROR}, {"error:", TR_LV_ERROR}, {"FATAL", TR_LV_FATAL},
		{"fatal:", TR_LV_FATAL}, {"Fatal:", TR_LV_FATAL}, {"panic:", TR_LV_FATAL}, {"CRITICAL", TR_LV_FATAL},
		{"fatal error:", TR_LV_FATAL}, {"Fatal error:", TR_LV_FATAL},
		{"ERROR ", TR_LV_ERROR}, {"[ERROR]", TR_LV_ERROR}, {"[error]", TR_LV_ERROR}, {"E ", TR_LV_ERROR}};
	for (size_t i = 0; i < sizeof(lead) / sizeof(lead[0]); i++) {
		size_t kl = strlen(lead[i].k);
		if (n >= kl && !memcmp(s, lead[i].k, kl))
			return lead[i].lv > pre ? lead[i].lv : pre;
	}
	if (pre)
		return pre;
	static const char *const keys[] = {"level=", "lvl=", "\"level\":\"", "\"level\": \"", "severity="};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *k = tr_memmem(s, n, keys[i]);
		if (!k)
			continue;
		const char *v = k + strlen(keys[i]);
		size_t left = (size_t)(s + n - v);
		if (left >= 3 && (!strncasecmp(v, "err", 3)))
			return TR_LV_ERROR;
		if (left >= 4 && (!strncasecmp(v, "fata", 4) || !strncasecmp(v, "crit", 4) || !strncasecmp(v, "pani", 4)))
			return TR_LV_FATAL;
		if (left >= 4 && !strncasecmp(v, "warn", 4))
			return TR_LV_WARN;
		return TR_LV_INFO;
	}
	return TR_LV_NONE;
}

/* "exit code 1", "exit status 2", "exitcode: -9", "exited with code 137":
 * 1 when the status is not 0, 0 when it is 0, -1 no status here. */
static int exit_status_v(const char *s, size_t n, double *val);

static int exit_status(const char *s, size_t n)
{
	double v;
	return exit_status_v(s, n, &v);
}

/* As exit_status, with the status in *val. */
static int exit_status_v(const char *s, size_t n, double *val)
{
	/* systemd's "Main process exited, code=exited, status=1/FAILURE" too */
	static const char *const k[] = {"exit code", "exit status", "exitcode", "exited with code", "exited with status",
					"return code", "returncode", "code=exited, status"};
	const char *end = s + n;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		const char *p = ci(s, n, k[i]);
		if (!p)
			continue;
		p += strlen(k[i]);
		while (p < end && (*p == ' ' || *p == ':' || *p == '=' || *p == '('))
			p++;
		/* "exited with status code 1": the noun after the key */
		if (end - p > 5 && !strncasecmp(p, "code", 4) && !tr_isword(p[4]))
			for (p += 4; p < end && (*p == ' ' || *p == ':' || *p == '='); p++)
				;
		/* Windows' NTSTATUS in hex ("exit code: 0xc0000409"): not 0 */
		if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && tr_xdigit(p[2])) {
			double v = 0;
			for (p += 2; p < end && tr_xdigit(*p) && v < 1e12; p++)
				v = v * 16 + (tr_digit(*p) ? *p - '0' : tr_lower((unsigned char)*p) - 'a' + 10);
			*val = v;
			return v != 0;
		}
		if (p < end && (*p == '-' || tr_digit(*p))) {
			const char *q = p + (*p == '-');
			double v;
			if (tr_num(&q, end, &v)) {
				*val = *p == '-' ? -v : v;
				return v != 0;
			}
		}
	}
	return -1;
}

/* A kill, in the words every launcher uses for it: Go's and Python's
 * "signal: killed", a shell's job report ("line 89:  33 Killed  cmd", a
 * lone "Killed"), an exit status of 137 or -9 (128 + SIGKILL). */
static int killed_line(const char *s, size_t n, int lone)
{
	double v = 0;
	if (ci(s, n, "signal: killed") || ci(s, n, "signal killed") || (exit_status_v(s, n, &v) == 1 && (v == 137 || v == -9)))
		return 1;
	for (const char *k = s; (k = tr_memmem(k, (size_t)(s + n - k), "Killed")) != NULL; k++) {
		const char *b = k;
		while (b > s && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		int after_ok = k + 6 == s + n || k[6] == ' ' || k[6] == '\t';
		if (after_ok && b > s && b < k && tr_digit(b[-1]))
			return 1; /* a shell's job report, "33 Killed  cmd" */
		if (after_ok && b == s && lone)
			return 1; /* a lone "Killed" once loading began */
	}
	/* zsh's job report, "[1]  + 12345 killed     python server.py" (its
	 * job number may have gone with the prefixes): the pid, the word */
	const char *p = s, *end = s + n;
	if (p < end && *p == '[') {
		for (p++; p < end && tr_digit(*p); p++)
			;
		p = p < end && *p == ']' ? p + 1 : s;
	}
	while (p < end && (*p == ' ' || *p == '+' || *p == '-'))
		p++;
	const char *d = p;
	while (p < end && tr_digit(*p))
		p++;
	if (p == d || p >= end || *p != ' ')
		return 0;
	p = tr_skip_ws(p, end);
	return end - p > 7 && !memcmp(p, "killed ", 7);
}

/* "CUDA out of memory", "cudaMalloc failed: out of memory": memory ran
 * out, not the advice that it might ("if you are running out of memory,
 * consider ..."). */
static int oom_said(const char *s, size_t n)
{
	static const char *const advice[] = {"if", "consider", "avoid", "prevent", "try", "may", "might",
					     "think", "likely", "probably", "maybe", "reason", "because", NULL};
	const char *k = word(s, n, "out of memory");
	/* the advice before the words (PyTorch's own message ends in advice
	 * after them: "If reserved but unallocated memory is large try ...") */
	return k && !any_word(s, (size_t)(k - s), advice);
}

int tr_hedged(const char *s, size_t n)
{
	static const char *const w[] = {"may", "might", "could", "if", "possibly", "perhaps", NULL};
	return any_word(s, n, w);
}

/* Failure words read by meaning: a count of 0 failures, a success, an ok,
 * and a limit that is unlimited say nothing failed. */
int tr_says_failed(const char *s, size_t n)
{
	static const char *const bad[] = {"failed", "failure", "fails", "error", "cannot", "unable", "denied",
					  "refused", "couldn", NULL};
	if (!any_word(s, n, bad) && !ci(s, n, "not permitted") && !ci(s, n, "could not") && !ci(s, n, "can't"))
		return 0;
	if (word(s, n, "0 failures") || word(s, n, "no failures") || word(s, n, "0 errors") ||
	    word(s, n, "no errors") || word(s, n, "succeeded") || word(s, n, "successfully") ||
	    word(s, n, "without error"))
		return 0;
	return 1;
}

/* "Traceback (most recent call last):" opens a block; the exception line
 * that ends it ("torch.OutOfMemoryError: ...", "ValueError: ...") is its cause. */
static int exception_line(const char *s, size_t n)
{
	const char *c = memchr(s, ':', n);
	if (!c || c == s)
		return 0;
	for (const char *p = s; p < c; p++)
		if (!(tr_isword(*p) || *p == '.' || *p == '_'))
			return 0;
	size_t w = (size_t)(c - s);
	return (w >= 5 && (tr_memmem(s, w, "Error") || tr_memmem(s, w, "Exception") || tr_memmem(s, w, "Exit") ||
			   tr_memmem(s, w, "Interrupt")));
}

/* "giving up", "exiting", "aborting", "killing it": the line says what
 * waited stopped. */
static int gave_up(const char *s, size_t n)
{
	static const char *const w[] = {"giving", "gave", "exiting", "exit", "aborting", "abort", "aborted", "killing",
					"stopping", "terminating", "shutting", NULL};
	return any_word(s, n, w);
}

/* A step of the start that ran past its time, stated as its failure or
 * its stop ("Runner failed with exception: Runner has been initializing
 * for too long: 300 seconds", "startup took too long, giving up"): a
 * platform's or a supervisor's timeout, the start's end. Not the step's
 * own warning with no failure ("has been loading for too long, still
 * waiting"), not advice ("if loading takes too long"), not a name or a
 * path too long (no step of a start named). */
static int ran_too_long(const char *s, size_t n)
{
	static const char *const step[] = {"initializing", "initialising", "initialization", "starting", "startup",
					   "start", "loading", "load", "booting", "ready", NULL};
	const char *k = ci(s, n, "for too long");
	if (!k)
		k = ci(s, n, "took too long");
	return k && any_word(s, n, step) && (tr_says_failed(s, n) || gave_up(s, n)) && !tr_hedged(s, (size_t)(k - s));
}

/* The phrases that say the thing is up (ready_words_of), each reachable
 * through a prefilter key (test_triage_prefilter checks it). */
static const char *const ready_yes[] = {"startup complete", "is ready", "are ready", "ready to", "ready in",
					"ready after", "ready!", "now ready", "started in", "started successfully",
					"running on http", "listening on", "loaded successfully", "model loaded",
					"loaded in", "up and running", "ready for", "ready:", "ready.", "ready - ", "ready,",
					/* the server says what it can do now ("server can now handle requests") */
					"can now handle requests", "can now accept requests", "now accepting requests",
					"accepting connections", "initialized successfully", "initialised successfully",
					NULL};

const char *const *tr_ready_phrases(void)
{
	return ready_yes;
}

/* Ready words and their negations: 1 ready, 0 not about readiness, -1 the
 * opposite of ready, which ends a start ("never became ready", "failed
 * to start", "not ready after 30 minutes, giving up"). */
static int ready_words_of(const char *s, size_t n);

static int ready_words(const char *s, size_t n)
{
	/* several parts ask about the whole line: once */
	if (s == cur_line.orig && n == cur_line.n && cur_line.orig) {
		if (cur_line.ready == -2)
			cur_line.ready = ready_words_of(s, n);
		return cur_line.ready;
	}
	return ready_words_of(s, n);
}

static int ready_words_of(const char *s, size_t n)
{
	/* every phrase below holds one of these words (an invitation to an
	 * address, ready_address.c, one of its verbs): one pass turns most
	 * lines away before forty searches */
	static const char *const anchor[] = {"ready", "start", "started", "starting", "startup", "listening",
					     "running", "loaded", "still", "waiting", "before", "until", "up", "serving",
					     "available", "connect", "access", "open", "visit", "navigate", "go",
					     "online", "initialized", "initialised", "requests", "connections",
					     "successfully", NULL};
	if (!any_word(s, n, anchor))
		return 0;
	/* a launcher gave up on it: "xtts server failed to come online" */
	if (tr_never_came_up(s, n))
		return -1;
	static const char *const dead[] = {"never became ready", "never ready", "failed to start",
					   "did not start", "didn't start", "did not become ready", "not become ready"};
	/* "not ready after 30 minutes": a watcher's wait ran out; the start
	 * ended only where the line says it stopped ("giving up", "exiting") */
	if (ci(s, n, "not ready after"))
		return gave_up(s, n) ? -1 : 0;
	static const char *const neg[] = {"not ready", "isn't ready", "not yet ready", "not started", "not online", "still loading",
					  "still starting", "waiting for", "not up", "before", "until", "unloaded",
					  "not initiali", "not accepting", "not handle",
					  /* a wait asked for, the ready still to come ("Please wait for
					   * vllm server to become ready...") */
					  "wait for", "to become ready", "to be ready"};
	for (size_t i = 0; i < sizeof(dead) / sizeof(dead[0]); i++)
		if (ci(s, n, dead[i]))
			return -1;
	for (size_t i = 0; i < sizeof(neg) / sizeof(neg[0]); i++)
		if (ci(s, n, neg[i]))
			return 0;
	/* "Model workspace is now ready": the place the model is put, not it */
	for (size_t i = 0; ready_yes[i]; i++)
		if (ci(s, n, ready_yes[i]))
			return !tr_ready_holder(s, n);
	/* "Initialize ASR server engine successfully on device: cpu.": the
	 * init's verb in any form, its object between, then that it went well */
	static const char *const init[] = {"initialize", "initialise", "initialized", "initialised", "init", NULL};
	static const char *const bad[] = {"failed", "fail", "not", "error", "unable", "cannot", NULL};
	const char *ok = word(s, n, "successfully");
	if (ok && any_word(s, (size_t)(ok - s), init) && !any_word(s, n, bad))
		return !tr_ready_holder(s, n);
	/* "Loaded model X on device D": the event, capitalised where its
	 * message begins; "reusing loaded model X" is the model kept */
	double v;
	if (tr_memmem(s, n, "Loaded model ") || tr_ready_at_address(s, n) || tr_whole_started(s, n) ||
	    tr_started_named_in(s, n, &v))
		return 1;
	return n >= 6 && s[n - 6] == ' ' && !strncasecmp(s + n - 5, "ready", 5);
}

int tr_never_came_up(const char *s, size_t n)
{
	/* one search for the verb's end before the four phrases */
	if (!tr_memmem(s, n, "me up") && !tr_memmem(s, n, "me online"))
		return 0; /* the lines' case: a line no other search lowered stays as it is */
	static const char *const up[] = {"come online", "come up", "came online", "came up"};
	static const char *const neg[] = {"failed to", "fail to", "did not", "didn't", "never", "could not",
					  "couldn't", "unable to"};
	for (size_t i = 0; i < sizeof(up) / sizeof(up[0]); i++) {
		const char *k = word(s, n, up[i]);
		if (!k)
			continue;
		/* the negation right before the verb ("failed to come online"),
		 * and no guess before the negation ("if it failed to ..."): the
		 * guess is looked for before it, since "could not" holds one */
		const char *b = k - s > 12 ? k - 12 : s, *m;
		for (size_t j = 0; j < sizeof(neg) / sizeof(neg[0]); j++)
			if ((m = ci(b, (size_t)(k - b), neg[j])) && !tr_hedged(s, (size_t)(m - s)))
				return 1;
	}
	return 0;
}

int tr_ready_negated(const char *s, size_t n)
{
	return ready_words(s, n) <= 0;
}

/* "mm:ss" or "h:mm:ss" at *p, in seconds. */
static int clock_dur(const char **p, const char *end, double *out)
{
	const char *q = *p;
	double part[3];
	int k = 0;
	while (k < 3) {
		double v = 0;
		int d = 0;
		while (q < end && tr_digit(*q) && d < 3)
			v = v * 10 + (*q++ - '0'), d++;
		if (!d)
			return 0;
		part[k++] = v;
		if (q < end && *q == ':' && k < 3)
			q++;
		else
			break;
	}
	if (k < 2)
		return 0;
	*out = k == 2 ? part[0] * 60 + part[1] : part[0] * 3600 + part[1] * 60 + part[2];
	*p = q;
	return 1;
}

/* The factor of a tqdm scale letter (k, M, G, T), or 0 for any other byte. */
static double scale_of(char c)
{
	return c == 'k' ? 1e3 : c == 'M' ? 1e6 : c == 'G' ? 1e9 : c == 'T' ? 1e12 : 0;
}

/* A scale letter, with a B after it or not, right before @*p (a count's
 * end, the count's last digit before it): its factor, *@p moved before
 * it; 1 none. */
static double count_scale(const char *s, const char **p)
{
	const char *q = *p;
	if (q > s && q[-1] == 'B')
		q--;
	double f = q - 1 > s ? scale_of(q[-1]) : 0;
	if (!(f > 0) || !tr_digit(q[-2]))
		return 1;
	*p = q - 1;
	return f;
}

/* The same scale letter right after a count at @*p, *@p moved past it. */
static double scale_after(const char **p, const char *end)
{
	const char *q = *p;
	double f = q < end ? scale_of(*q) : 0;
	if (!(f > 0))
		return 1;
	*p = q + 1 + (q + 1 < end && q[1] == 'B');
	return f;
}

/* A tqdm bar: "45%|...| 9/20 [00:37<00:49,  9.75s/it]" (or cut after its
 * elapsed time, "| 9/20 [00:37"). Return 1 with the counts and the
 * elapsed time. */
static int tqdm_bar(const char *s, const char *end, double *done, double *all, double *elapsed)
{
	const char *br = NULL, *q = NULL;
	/* the last bar of the line whose clock reads: where many ranks' bars
	 * were glued into one line, the last may be cut inside its bracket
	 * ("... 6/19 [01:42<03:47, 17.50s/it] Loading ...: 32%| 6/19 [0") and
	 * the one before it is the latest figure */
	int tries = 0;
	for (const char *p = end; p > s && tries < 2; p--) {
		if (p[-1] != '[')
			continue;
		tries++;
		q = p;
		/* "[15:59<21:33, ...]", or cut after its elapsed time where bars
		 * were glued into one line ("| 45/96 [19:29" at the line's end) */
		if (clock_dur(&q, end, elapsed) && (q == end || *q == '<')) {
			br = p;
			break;
		}
	}
	if (!br)
		return 0;
	/* n/N before the bracket */
	const char *sl = NULL;
	for (const char *p = br - 1; p > s && br - p < 40; p--)
		if (*p == '/') {
			sl = p;
			break;
		}
	if (!sl)
		return 0;
	/* counts in tqdm's scaled units too ("3.03G/3.30G", "104k/231kB"):
	 * each number with its own scale */
	const char *ne = sl;
	double sa = count_scale(s, &ne), sb;
	const char *a = ne;
	while (a > s && (tr_digit(a[-1]) || a[-1] == '.'))
		a--;
	const char *b = sl + 1;
	if (a == ne || !tr_digit(*a) || !tr_num(&a, ne, done) || a != ne || !tr_num(&b, end, all))
		return 0;
	sb = scale_after(&b, end);
	*done *= sa;
	*all *= sb;
	return *all > 0 && *done <= *all;
}

/* FNV-1a over a cleaned line: the same words again, not the same place */
static uint32_t line_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static struct tr_start *take(struct lsc_triage *t, struct tr_line *l, int *e)
{
	struct tr_start *s = tr_current(t, l);
	if (!s)
		return NULL;
	*e = tr_evid(s, l);
	tr_touch(s, l);
	return s;
}

static int loading_words(const char *s, size_t n)
{
	static const char *const w[] = {"load", "loading", "loaded", "model", "weights", "checkpoint", "shards", "tensors",
					"gguf", "safetensors", "pretrained", NULL};
	return any_word(s, n, w);
}

/* Does the line speak of the weights' own load ("Model loaded in",
 * "Loaded the model in", "Moving model(s) has taken", "Loading weights
 * took"), not of a start's other steps (an engine's init with its
 * profile, KV cache and warmup; a compile; a graph capture), whose time
 * says nothing of the reading? */
static int load_said(const char *s, size_t n)
{
	static const char *const load[] = {"load", "loading", "loaded", "loads", "weights", "checkpoint", "shards",
					   "tensors", "safetensors", "gguf", "moving", "pretrained", NULL};
	return any_word(s, n, load);
}

static int weights_said(const char *s, size_t n)
{
	static const char *const other[] = {"init", "initialization", "initialize", "warmup", "profile", "profiling",
					    "compile", "compiling", "compilation", "capture", "capturing", "graph",
					    "graphs", "startup", "tokenizer", "lora", "adapter", NULL};
	return load_said(s, n) && !any_word(s, n, other);
}

/* The first of the duration words in @s ("took", "loaded in", "finished
 * in") that a duration follows within a few words: *kk the word, *at where,
 * *v the seconds, 1. With none, 0, and *kk / *at the first word that is
 * followed by a size only ("took 6.1138 GB"), *gib that size. A line may
 * hold two ("Graph capturing finished in 11412 secs, took 1.31 GiB"). */
static int duration_after_key(const char *s, const char *end, const char **kk, const char **at, double *v,
			      double *gib)
{
	/* the end words too, with their time after them ("Model load complete
	 * (12.3 seconds)", "Finished loading model in 12.3 s") */
	static const char *const durk[] = {"load time", "loaded time", "took", "loaded in", "started in", "finished", "ready in",
					   "ready after", "time to load", "has taken", "taking", "the model in", "takes",
					   "loading time", "weights in", "pretrained time", "executed in", "complete",
					   "done", "cost"};
	size_t n = (size_t)(end - s);
	*kk = NULL;
	for (size_t i = 0; i < sizeof(durk) / sizeof(durk[0]); i++) {
		const char *k = ci(s, n, durk[i]);
		if (!k)
			continue;
		double g = NAN;
		/* "took 7.68 GiB and 2.20 seconds": the duration may follow a size */
		const char *p = k + strlen(durk[i]);
		for (const char *lim = p + 48; p < end && p < lim; p++)
			if (tr_digit(*p)) {
				const char *q = p;
				double gg;
				if (tr_dur_s(&q, end, v) || (q = p, tr_bare_secs(&q, end, v))) {
					*kk = durk[i], *at = k;
					if (!isnan(g))
						*gib = g;
					return 1;
				}
				/* the first size after the key: "took 19.97 GiB of
				 * device memory (19.98 GiB/94.62 GiB used)" is 19.97,
				 * not the device's total after the slash */
				if ((q = p, tr_size_gib(&q, end, &gg)) && isnan(g))
					g = gg;
				/* past the whole number: "2.2845 GiB" is not also "2845 GiB" */
				for (q = p; q < end && (tr_digit(*q) || *q == '.' || *q == ','); q++)
					;
				p = q - 1;
			}
		if (!*kk) {
			*kk = durk[i], *at = k;
			*gib = g;
		}
	}
	return 0;
}

/* "t_load_us: 4173895", "load_ms=812", "model_load_time_s: 3.2": a key
 * that names the load and ends in its unit; 1 with the seconds. */
static int keyed_load_duration(const char *s, size_t n, double *v)
{
	static const struct { const char *u; double mul; } units[] = {
		{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}, {"sec", 1}, {"secs", 1}, {"seconds", 1}};
	const char *end = s + n;
	for (const char *k = s; (k = tr_memmem(k, (size_t)(end - k), "load")) != NULL; k++) {
		/* "load" opens the key or one of its parts ("t_load", not "payload") */
		if (k > s && (tr_isword(k[-1]) && k[-1] != '_'))
			continue;
		const char *e = k;
		while (e < end && (tr_isword(*e) || *e == '_'))
			e++;
		const char *us = e;
		while (us > k && us[-1] != '_')
			us--;
		if (us <= k + 4)
			continue; /* no "_unit" after "load" */
		/* between "load" and the unit only the words of a duration
		 * ("load_time_s", "loading_duration_ms"), not "load_balancer_ms" */
		static const char *const mid[] = {"_", "_time_", "_duration_", "ing_", "ing_time_", "ing_duration_"};
		int ok = 0;
		for (size_t i = 0; i < sizeof(mid) / sizeof(mid[0]) && !ok; i++)
			ok = (size_t)(us - (k + 4)) == strlen(mid[i]) && !memcmp(k + 4, mid[i], strlen(mid[i]));
		if (!ok)
			continue;
		size_t ul = (size_t)(e - us);
		double mul = 0;
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strlen(units[i].u) == ul && !memcmp(us, units[i].u, ul))
				mul = units[i].mul;
		const char *p = e;
		while (p < end && (*p == '"' || *p == ' '))
			p++;
		if (!mul || p >= end || (*p != ':' && *p != '='))
			continue;
		p = tr_skip_ws(p + 1, end);
		double x;
		if (p < end && tr_digit(*p) && tr_num(&p, end, &x) && (p == end || !tr_isword(*p))) {
			*v = x * mul;
			return 1;
		}
	}
	return 0;
}

/* Does the key @k[0..n) ("memory.weights.total", "model_size",
 * "weights_bytes") name the size of the model's weights: a part that says
 * weights or model, and a last part that says size or total? Not an
 * estimate of what loading them needs ("memory.required.full"). */
static int model_size_key(const char *k, size_t n)
{
	const char *last = k + n;
	while (last > k && last[-1] != '.' && last[-1] != '_')
		last--;
	size_t ll = (size_t)(k + n - last);
	int sized = (ll == 4 && !strncasecmp(last, "size", 4)) || (ll == 5 && !strncasecmp(last, "total", 5)) ||
		    (ll == 5 && !strncasecmp(last, "bytes", 5));
	return sized && last > k && (tr_memmem_ci(k, (size_t)(last - k), "weights") || tr_memmem_ci(k, (size_t)(last - k), "model"));
}

/* A field in a structured line (logfmt `key=value`, JSON `"key": value`)
 * whose key names the weights' size (model_size_key) and whose value is a
 * size ("34.6 GiB"; a bare number under a key that ends in bytes): the
 * model's size, as an engine that plans its load states it. 1 with GiB. */
static int keyed_model_size(const char *s, size_t n, double *gib)
{
	const char *end = s + n;
	for (const char *p = s; p < end; p++) {
		if (*p != '=' && !(*p == ':' && p > s && p[-1] == '"'))
			continue;
		const char *ke = *p == ':' ? p - 1 : p, *kb = ke;
		while (kb > s && (tr_isword(kb[-1]) || kb[-1] == '_' || kb[-1] == '.'))
			kb--;
		if (kb == ke || !model_size_key(kb, (size_t)(ke - kb)))
			continue;
		const char *v = p + 1;
		while (v < end && (*v == '"' || *v == ' '))
			v++;
		const char *q = v;
		double x;
		/* a megabyte or more: "model_size=7B" counts parameters, not bytes */
		if (q < end && tr_digit(*q) && tr_size_gib(&q, end, &x) && x >= 1.0 / 1024 && x < 1e6) {
			*gib = x;
			return 1;
		}
		q = v;
		if ((size_t)(ke - kb) > 5 && !strncasecmp(ke - 5, "bytes", 5) && q < end && tr_digit(*q) &&
		    tr_num(&q, end, &x) && (q == end || !tr_isword(*q)) && x >= 1e6 && x < 1e15) {
			*gib = x / (1024.0 * 1024.0 * 1024.0);
			return 1;
		}
	}
	return 0;
}

/* The steps an engine takes after its weights are in, named with their
 * time: a CUDA graph capture, a torch.compile of the model's graph, a
 * warmup, the KV cache ("Graph capturing finished in 11412 secs",
 * "torch.compile takes 2222.52 s in total"). */
static int step_words(const char *s, size_t n)
{
	static const char *const w[] = {"graph", "graphs", "cudagraph", "cudagraphs", "warmup", NULL};
	return any_word(s, n, w) || ci(s, n, "torch.compile") || ci(s, n, "kv cache");
}

/* Such a step took @v s: the weights are in (the start got past its
 * load), and the start took at least that long to come up (a floor of
 * the time to ready, which the verdict takes only when it says slow). */
static int start_step(struct lsc_triage *t, struct tr_line *l, double v)
{
	int e;
	struct tr_start *st = take(t, l, &e);
	if (!st)
		return 0;
	if (!tr_has(&st->step_s) || v > st->step_s.v)
		tr_setnum(&st->step_s, v, e);
	if (st->ev_error < 0 && st->ev_gen_fail < 0)
		tr_stage_raise(st, TR_ST_LOADED);
	st->progress_open = 0;
	return 1;
}

/* Has @s shown only the work of a running server or app (requests, a
 * sampling bar), nothing of a start? */
static int served_only(const struct tr_start *s)
{
	return s->nserved && s->stage == TR_ST_NONE;
}

/* A bar with no label of its own ("100%|####| 88/88 [00:03<00:00, ...]"):
 * what it counts is what the line before it began. Inside a load begun in
 * words ("Loading model on cuda...") it is the load's; where no load is
 * under way it is work, as any bar without load words is. */
static int unlabelled_bar(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\r'))
		i++;
	return i < n && (tr_digit(s[i]) || s[i] == '|');
}

/* A bar's label that says it downloads the model's files ("Downloading
 * shards: 100%|...| 15/15 [07:19<00:00", "Fetching 5 files: 40%"), or a
 * bar that counts bytes under a label that does not say it loads: the
 * fetch before the load, no load's time. The label is what comes before
 * the bar's share. */
/* The words of a fetch, and of what a model's fetch moves (download_bar,
 * download_count) */
static const char *const fetch_words[] = {"download", "downloading", "fetching", NULL};
static const char *const fetched_words[] = {"model", "models", "shard", "shards", "safetensors", "gguf", "weights",
					    "files", "checkpoint", NULL};

static int download_bar(const char *s, size_t n)
{
	const char *pc = memchr(s, '%', n);
	size_t ln = pc ? (size_t)(pc - s) : n;
	if (any_word(s, ln, fetch_words) && any_word(s, ln, fetched_words))
		return 1;
	/* a bar that counts bytes ("campplus_cn_common.bin: 0%| | 0.00/28.0M
	 * [00:00<?, ?B/s]") moves a file, whatever it is named: a fetch,
	 * unless its label says it loads */
	const char *br = memrchr(s, '[', n);
	if (!br || !tr_memmem(br, (size_t)(s + n - br), "B/s"))
		return 0;
	/* a label that is a file's name alone ("ggml-model-i2_s.gguf: 0%|",
	 * a hub's fetch of that file) names what moves, not a load, whatever
	 * words the name holds */
	const char *c = memchr(s, ':', ln), *b = s;
	while (b < s + ln && *b == ' ')
		b++;
	int file = c && c > b && !memchr(b, ' ', (size_t)(c - b)) && memchr(b, '.', (size_t)(c - b));
	return file || !loading_words(s, ln);
}

/* The figures that say how much: a load bar with its elapsed time and
 * its share of the size, the model's or the checkpoint's size in words
 * or in a structured line's key. 1 used. */
static int size_figures(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len;
	size_t n = l->len;
	double v, done, all;
	int e;
	struct tr_start *st;
	uint64_t kw = l->kw;
	int bar = (kw & TR_G_GBAR) && tqdm_bar(s, end, &done, &all, &v);
	struct tr_start *c = t->cur && t->cur->src == l->src ? t->cur : NULL;
	if (bar && download_bar(s, n)) {
		/* the model's files fetched: the start under way, no load figure;
		 * where no start is, a download command's own output */
		if (!c && t->fetch_src == l->src + 1)
			return 1;
		if (!(st = take(t, l, &e)))
			return 0;
		if (!st->done && st->stage < TR_ST_LOADED && !tr_start_failed(st)) {
			tr_stage_raise(st, TR_ST_BEGAN);
			st->progress_open = done < all;
		}
		return 1;
	}
	int load_bar = bar && (loading_words(s, n) || (unlabelled_bar(s, n) && c && c->gen_load_began && !c->done &&
						       !tr_start_failed(c) && !served_only(c)));
	if (bar && done == 0 && c && (c->done || c->bar_done) && !tr_start_failed(c) && c->bar_all == all &&
	    (load_bar || tr_has(&c->gen_load_s) || tr_has(&c->read_s))) {
		/* the same bar back at 0/N after the load it counted finished:
		 * the model loaded again, a second run */
		if (!(st = tr_fresh_if(t, l, 1, NULL)))
			return 0;
		tr_evid(st, l);
		tr_touch(st, l);
		tr_stage_raise(st, TR_ST_LOADING);
		st->progress_open = 1;
		st->bar_all = all;
		return 1;
	}
	if (bar && !load_bar && (!c || served_only(c))) {
		/* a bar over work that is no load (sampling steps, "1/28 [00:01<00:40,
		 * 1.51s/it]") where no start is under way: an app at work, not a start */
		if (!(st = take(t, l, &e)))
			return 0;
		st->nserved++;
		st->bar_all = all;
		return 1;
	}
	if (load_bar) {
		if (!(st = take(t, l, &e)))
			return 0;
		st->bar_all = all;
		tr_stage_raise(st, TR_ST_LOADING);
		st->progress_open = done < all;
		st->bar_done = done >= all;
		/* a bar that finished at 00:00 took under a second: a figure too */
		if ((v > 0 || done >= all) && (!tr_has(&st->read_s) || st->read_s.ev < 0 || v >= st->read_s.v)) {
			tr_setnum(&st->read_s, v, e);
			st->bar_frac = done / all;
			/* the bar's share of the checkpoint or the model is what that time
			 * moved (7 of 11 shards of 17.69 GiB: 11.26 GiB) */
			const struct tr_num *sz = tr_has(&st->ckpt_gib) ? &st->ckpt_gib : &st->model_gib;
			if (tr_has(sz) && sz->v > 0)
				tr_setnum(&st->read_gib, sz->v * done / all, e);
		}
		return 1;
	}
	const char *k;
	int ckpt = 0;
	if ((kw & TR_G_GSIZE) &&
	    ((k = ci(s, n, "file size")) || (k = ci(s, n, "model size")) || (ckpt = 1, k = ci(s, n, "checkpoint size")))) {
		if (tr_after(k, end, "size", tr_size_gib, &v) && v > 0 && v < 1e6) {
			if (!(st = take(t, l, &e)))
				return 0;
			tr_stage_raise(st, TR_ST_BEGAN);
			struct tr_num *sz = ckpt ? &st->ckpt_gib : &st->model_gib;
			if (!tr_has(sz))
				tr_setnum(sz, v, e);
			/* larger than the page cache can hold: read from the device */
			if (tr_ckpt_over_ram(s, n, &v))
				st->from_device = 1;
			return 1;
		}
	}
	if ((kw & TR_G_GSIZE) && tr_alloc_total(s, n, &v)) {
		/* the start's allocations so far: what it brought into memory */
		if (!(st = take(t, l, &e)))
			return 0;
		tr_stage_raise(st, TR_ST_BEGAN);
		if (!tr_has(&st->alloc_gib) || v > st->alloc_gib.v)
			tr_setnum(&st->alloc_gib, v, e);
		return 1;
	}
	if ((kw & TR_G_GSIZE) && keyed_model_size(s, n, &v)) {
		/* the load's plan with the model's size: a start under way */
		if (!(st = take(t, l, &e)))
			return 0;
		tr_stage_raise(st, TR_ST_BEGAN);
		if (!tr_has(&st->model_gib))
			tr_setnum(&st->model_gib, v, e);
		return 1;
	}
	return 0;
}

/* "Loaded the model in 1.73 seconds." and a few lines on "INFO:Loaded the
 * model in 1.77 seconds.": a loader's summary, then the summary of the
 * function that called it, which timed the same load and a little more.
 * A second summary within ten lines of the first, no shorter and not much
 * longer (a quarter, or half a second), encloses it: the same load, not a
 * second run (177 s after 1.77 s is another load). */
static int encloses(const struct tr_start *c, const struct tr_line *l, double v)
{
	int ev = c->gen_load_s.ev;
	if (ev < 0 || (unsigned)ev >= c->nev || c->stage >= TR_ST_READY || c->ev_gen_ready >= 0)
		return 0;
	double was = c->gen_load_s.v;
	return l->no >= c->ev[ev].line && l->no - c->ev[ev].line <= 10 && v >= was && v <= was * 1.25 + 0.5;
}

/* An amount moved in a time, the longest of the start's kept. */
static void moved_measure(struct tr_start *st, int e, double gib, double secs)
{
	if (!tr_has(&st->moved_s) || secs > st->moved_s.v) {
		tr_setnum(&st->moved_s, secs, e);
		tr_setnum(&st->moved_gib, gib, e);
	}
}

/* A part of the start's load figure listed right after it ("- Encoder
 * load time: 519.13 seconds", then "- Decoder load time: 1.69 seconds",
 * "- Tokenizer load time: 0.34 seconds"): a list's item, the line next
 * but one at most to the figure or to the part before, the parts' sum
 * within the figure (2 % and 0.05 s for the printed rounding). Counts @v
 * in. Not a figure of its own line after a heading (a report's "After"
 * run). */
static int part_of(struct tr_start *c, const struct tr_line *l, double v)
{
	int ev = c->gen_load_s.ev;
	if (ev < 0 || (unsigned)ev >= c->nev || l->len < 2 || l->s[0] != '-' || l->s[1] != ' ')
		return 0;
	unsigned long last = c->parts_no > c->ev[ev].line ? c->parts_no : c->ev[ev].line;
	double sum = (c->parts_no > c->ev[ev].line ? c->parts_s : 0) + v;
	if (l->no <= last || l->no - last > 2 || sum > c->gen_load_s.v * 1.02 + 0.05)
		return 0;
	c->parts_s = sum;
	c->parts_no = l->no;
	return 1;
}

/* The start a load figure of @v s on @l belongs to, its evidence in @e:
 * a second load figure after the start completed is a second run (the
 * same model loaded again, or on another device), unless it is the
 * enclosing loader's summary of the same load or a part of it listed
 * after it; else the current start. NULL when none can be had. */
static struct tr_start *load_figure_start(struct lsc_triage *t, struct tr_line *l, double v, int *e)
{
	struct tr_start *c = t->cur && t->cur->src == l->src ? t->cur : NULL, *st;
	if (!(c && c->done && tr_has(&c->gen_load_s) && !encloses(c, l, v) && !part_of(c, l, v)))
		return take(t, l, e);
	if (!(st = tr_fresh_if(t, l, 1, NULL)))
		return NULL;
	*e = tr_evid(st, l);
	tr_touch(st, l);
	return st;
}

/* A load's summary in words no key of figures() names, with its time
 * (`Loaded models for whisper size: large-v3 in 25.66s`, `load duration:
 * 6.7s`: load_summary.c): the load done in @v s. A second one after the
 * start completed with a load figure is a second run (the same model
 * loaded on another device, or again), as a second `Model loaded in` is. */
static int summary_in_words(struct lsc_triage *t, struct tr_line *l, double v)
{
	int e;
	struct tr_start *st = load_figure_start(t, l, v, &e);
	if (!st)
		return 0;
	if (st->stage < TR_ST_BEGAN)
		st->stage = TR_ST_BEGAN;
	if (!tr_has(&st->gen_load_s) || v > st->gen_load_s.v) {
		tr_setnum(&st->gen_load_s, v, e);
		st->gen_load_weights = weights_said(l->s, l->len);
	}
	if (!st->done && st->ev_error < 0 && st->ev_gen_fail < 0)
		tr_stage_raise(st, TR_ST_LOADED);
	st->progress_open = 0;
	return 1;
}

static int figures(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len;
	size_t n = l->len;
	double v;
	int e;
	struct tr_start *st;
	uint64_t kw = l->kw;
	if ((kw & (TR_G_GBAR | TR_G_GSIZE)) && size_figures(t, l))
		return 1;
	const char *k = NULL;
	if ((kw & TR_G_GFIG) && keyed_load_duration(s, n, &v) && v >= 0 && v < 1e7) {
		/* a timings block's load, in its own key: the weights' load, done */
		if (!(st = take(t, l, &e)))
			return 0;
		if (!tr_has(&st->gen_load_s) || v > st->gen_load_s.v) {
			tr_setnum(&st->gen_load_s, v, e);
			st->gen_load_weights = 1;
		}
		if (!st->done && st->ev_error < 0 && st->ev_gen_fail < 0)
			tr_stage_raise(st, TR_ST_LOADED);
		return 1;
	}
	double gib = NAN, mg, ms;
	const char *kk = NULL;
	int got = (kw & (TR_G_GFIG | TR_G_GREADY)) && duration_after_key(s, end, &kk, &k, &v, &gib);
	int moved = (kw & TR_G_GFIG) && tr_moved_in(s, n, &mg, &ms);
	/* "pinned 28.47 GiB in 18 s": a load's own measure; with a load summary
	 * on the same line ("loaded weights in 1392 ms, 5.21 GB loaded at 3.74
	 * GB/s") it is that summary's start's, which may be a second run */
	if (moved && !(got && v >= 0 && v < 1e7 && (loading_words(s, n) || tr_ready_subject(s, n)))) {
		struct tr_start *c = t->cur && t->cur->src == l->src ? t->cur : NULL;
		/* a second measure after the start completed with one: a second run */
		if (c && c->done && (tr_has(&c->moved_s) || tr_has(&c->gen_load_s))) {
			if (!(st = tr_fresh_if(t, l, 1, NULL)))
				return 0;
			e = tr_evid(st, l);
			tr_touch(st, l);
		} else if (!(st = take(t, l, &e))) {
			return 0;
		}
		moved_measure(st, e, mg, ms);
		tr_stage_raise(st, TR_ST_LOADING);
		return 1;
	}
	/* "Loading model weights took 6.1138 GB": the load's summary in memory, no time */
	static const char *const loadw[] = {"load", "loading", "weights", "checkpoint", "shards", NULL};
	if (!got && kk && kk[0] == 't' && !isnan(gib) && gib > 0 && gib < 1e6 && any_word(s, (size_t)(k - s), loadw)) {
		if (!(st = take(t, l, &e)))
			return 0;
		if (!tr_has(&st->model_gib))
			tr_setnum(&st->model_gib, gib, e);
		if (st->ev_error < 0 && st->ev_gen_fail < 0)
			tr_stage_raise(st, TR_ST_LOADED);
		return 1;
	}
	/* "Model workspace is now ready. It took 0.203 seconds": the place
	 * the model goes prepared, a step before its load: the start under
	 * way, no load figure and no ready */
	if (got && (tr_memmem(s, n, "eady") || tr_memmem(s, n, "EADY")) && tr_ready_holder(s, n)) {
		if (!(st = take(t, l, &e)))
			return 0;
		if (st->stage < TR_ST_BEGAN)
			st->stage = TR_ST_BEGAN;
		return 1;
	}
	/* a step's time, even where it names the model ("warmup model") or a
	 * load of its own ("load the compiled graph from the cache"), is not
	 * the weights' load */
	if (got && v >= 0 && v < 1e7 && step_words(s, n) && !weights_said(s, n) && !ready_words(s, n))
		return start_step(t, l, v);
	if (got && v >= 0 && v < 1e7 && (loading_words(s, n) || tr_ready_subject(s, n))) {
		if (!(st = load_figure_start(t, l, v, &e)))
			return 0;
		if (!isnan(gib) && gib > 0 && gib < 1e6 && !tr_has(&st->model_gib))
			tr_setnum(&st->model_gib, gib, e);
		if (moved)
			moved_measure(st, e, mg, ms);
		/* "Loading weights took 4.6 s", "model loaded in 3 s": the load is done */
		int summary = kk[0] != 'r' && kk[0] != 'R' && loading_words(s, n) && !ready_words(s, n);
		if (!tr_has(&st->gen_load_s) || v > st->gen_load_s.v) {
			tr_setnum(&st->gen_load_s, v, e);
			st->gen_load_weights = (summary || ci(s, n, "loaded in")) && weights_said(s, n);
		}
		if (summary && !st->done && st->ev_error < 0 && st->ev_gen_fail < 0) {
			tr_stage_raise(st, TR_ST_LOADED);
		} else if (ready_words(s, n) > 0 && tr_ready_part_only(s, n)) {
			/* "Shard 0 ready in 370.8 s": one part loaded in that
			 * time; the server is not up yet */
			st->gen_load_part = st->gen_load_s.ev == e;
			tr_stage_raise(st, TR_ST_LOADING);
		} else if (ready_words(s, n) > 0 || ci(s, n, "load time")) {
			if (!tr_has(&st->ready_s))
				tr_setnum(&st->ready_s, v, e);
			if (!st->done && st->ev_error < 0 && st->ev_gen_fail < 0)
				st->ev_gen_ready = e;
			tr_stage_raise(st, TR_ST_READY);
		} else {
			tr_stage_raise(st, TR_ST_LOADING);
		}
		st->progress_open = 0;
		return 1;
	}
	if (((kw & TR_G_GFIG) && tr_load_duration_key(s, n, &v)) || ((kw & TR_G_LOADED) && tr_loaded_in_words(s, n, &v)))
		return summary_in_words(t, l, v);
	return 0;
}

/* Is @id[0..n) (a Python name) one that loads or sets up the model:
 * load_model, _reload, load_weight, from_pretrained, init_model, not
 * json.loads, download, upload, payload, unload? */
static int loading_ident(const char *id, size_t n)
{
	if (tr_memmem_ci(id, n, "pretrained") || tr_memmem_ci(id, n, "weights") || tr_memmem_ci(id, n, "checkpoint"))
		return 1;
	/* a model built, or switched to ("switch_model": another model
	 * brought in, a load) */
	if (tr_memmem_ci(id, n, "model") && (tr_memmem_ci(id, n, "init") || tr_memmem_ci(id, n, "build") ||
					     tr_memmem_ci(id, n, "create") || tr_memmem_ci(id, n, "setup") ||
					     tr_memmem_ci(id, n, "switch")))
		return 1;
	if (!tr_memmem_ci(id, n, "load") || (n == 5 && !strncasecmp(id, "loads", 5)))
		return 0;
	return !tr_memmem_ci(id, n, "download") && !tr_memmem_ci(id, n, "upload") && !tr_memmem_ci(id, n, "payload") &&
	       !tr_memmem_ci(id, n, "unload");
}

/* "tensor 'x.weight' has wrong size in model file", "size mismatch for
 * x.weight", "bad magic": the loader found the model file is not what it
 * reads, which ends the load. */
static int bad_model_file(const char *s, size_t n)
{
	static const char *const bad[] = {"wrong size", "wrong shape", "size mismatch", "shape mismatch", "bad magic",
					  "invalid magic"};
	static const char *const what[] = {"tensor", "tensors", "weight", "weights", "model", "file", "checkpoint",
					   "gguf", NULL};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (word(s, n, bad[i]))
			return any_word(s, n, what) || ci(s, n, ".weight");
	return 0;
}

/* A code line that builds the model: a call assigned to a name of the
 * model (`llm_model = Llama(`, `self.model = AutoModel.from_config(c)`,
 * `llm = LLM(model=m)`): the model constructed, its load. The name is
 * the target's last part, `model` or `llm` as a word of it (`llm_model`,
 * `self.model`), not a word inside another (`modeling`); the value a
 * callee's name, then `(`. Not a comparison (`==`, `!=`, `<=`). */
static int model_built(const char *s, size_t n)
{
	const char *end = s + n, *eq = memchr(s, '=', n);
	if (!eq || eq == s || eq + 1 >= end || eq[1] == '=' || strchr("=!<>+-*/", eq[-1]))
		return 0;
	const char *te = eq;
	while (te > s && te[-1] == ' ')
		te--;
	const char *tb = te;
	while (tb > s && (tr_isword(tb[-1]) || tb[-1] == '_'))
		tb--;
	/* the target alone on its side, past any `self.` or `x.` before it */
	const char *lead = tb;
	while (lead > s && (tr_isword(lead[-1]) || lead[-1] == '_' || lead[-1] == '.'))
		lead--;
	if (tb == te || tr_skip_ws(s, lead) != lead)
		return 0;
	int named = 0;
	for (const char *w = tb; w < te && !named;) {
		const char *we = w;
		while (we < te && *we != '_')
			we++;
		size_t wl = (size_t)(we - w);
		named = (wl == 5 && !strncasecmp(w, "model", 5)) || (wl == 3 && !strncasecmp(w, "llm", 3));
		w = we + (we < te);
	}
	if (!named)
		return 0;
	const char *v = tr_skip_ws(eq + 1, end), *c = v;
	while (c < end && (tr_isword(*c) || *c == '_' || *c == '.'))
		c++;
	return c > v && c < end && *c == '(';
}

/* A traceback frame, `File "...", line N, in FUNC`, whose function loads
 * ("_reload", "load_model", "from_pretrained", "init_model"), or a
 * frame's code line that calls one ("self.model.load_weight(path)"): the
 * traceback is the load's, whatever the words around it. */
static int frame_loads(const char *s, size_t n)
{
	const char *end = s + n;
	const char *in = tr_memmem(s, n, ", in ");
	if (in && tr_memmem(s, (size_t)(in - s), "\", line ")) {
		in += 5;
		size_t fl = 0;
		while (in + fl < end && (tr_isword(in[fl]) || in[fl] == '_'))
			fl++;
		/* a launcher's wait for its server process to come up, the
		 * frame that raised ("in _wait_until_server_is_live"): the start
		 * not coming up. Only a wait named for the server or its being
		 * live: a bare `wait_ready` is as often a poller the user's
		 * Ctrl-C stops (strata-buffered-stopped), and a code line
		 * calling it is only the call */
		if (tr_memmem_ci(in, fl, "wait") && (tr_memmem_ci(in, fl, "server") || tr_memmem_ci(in, fl, "live")))
			return 1;
		/* the server's startup hook, where a model server brings its
		 * model up: ASGI's `lifespan` (starlette, under every FastAPI
		 * server), `startup`, `on_startup`, `startup_event`; its raising
		 * is the start not coming up. Not `shutdown`, not a request's
		 * handler */
		if (tr_memmem(in, fl, "lifespan") ||
		    (fl >= 7 && (!memcmp(in, "startup", 7) || !memcmp(in + fl - 7, "startup", 7))))
			return 1;
		/* a model's constructor: `__init__` in a file of a models
		 * folder (vLLM's `model_executor/models/llama.py`,
		 * transformers' `models/llama/modeling_llama.py`) or a module
		 * named for the model (FastChat's and InternVL's
		 * `serve/model_worker.py`, whose worker loads it as it is
		 * built): the model being built, its load; not its `forward`
		 * (a request's) */
		if (fl == 8 && !memcmp(in, "__init__", 8) &&
		    (tr_memmem(s, n, "/models/") || tr_memmem(s, n, "\\models\\") || tr_memmem(s, n, "modeling_") ||
		     tr_memmem(s, n, "/model_") || tr_memmem(s, n, "\\model_")))
			return 1;
		return loading_ident(in, fl);
	}
	if (n > 6 && !memcmp(s, "File \"", 6))
		return 0;
	/* a code line: the names it calls */
	for (const char *p = s; p < end; p++) {
		if (*p != '(' || p == s)
			continue;
		const char *b = p;
		while (b > s && (tr_isword(b[-1]) || b[-1] == '_'))
			b--;
		if (b < p && loading_ident(b, (size_t)(p - b)))
			return 1;
	}
	return model_built(s, n);
}

/* "Exception in ASGI application", "Error handling request": a request
 * the server was serving failed; the traceback after it is the request's,
 * not a start's. */
static int request_failed(const char *s, size_t n)
{
	static const char *const req[] = {"asgi", "wsgi", "request", "requests", NULL};
	return any_word(s, n, req) && (word(s, n, "exception") || tr_says_failed(s, n));
}

/* A request the server was serving failed ("Exception in ASGI
 * application", "Error handling request"): not one the engine sent out
 * ("error sending request for url"), which may be its start's. */
static int request_served_failed(const char *s, size_t n)
{
	static const char *const srv[] = {"asgi", "wsgi", "handling", "processing", "serving", NULL};
	return request_failed(s, n) && any_word(s, n, srv);
}

int tr_dynlib_missing(const char *s, size_t n)
{
	return tr_memmem(s, n, "while loading shared librar") != NULL; /* ld.so's words, in its case */
}

/* "Error when loading model: UnicodeDecodeError ...", "Exception while
 * loading the weights": an error word, then within two words the load as
 * the step it happened in; where the error word begins, NULL none. Not
 * the dynamic loader's "error while loading shared libraries" (a program
 * that could not start: no model read), nor a load after the words
 * ("error while loading? retry"). */
static const char *error_in_loading(const char *s, size_t n)
{
	static const char *const when[] = {"when", "while", "during", NULL};
	static const char *const err[] = {"error", "errors", "exception", "failure", NULL};
	const char *end = s + n;
	/* the lines' own case ("Error when loading model"), so that a line
	 * no other search lowered is not lowered for this one */
	for (const char *k = tr_memmem(s, n, " loading"); k; k = tr_memmem(k + 1, (size_t)(end - k - 1), " loading")) {
		/* the word before it a "when"; before that, within two words, an error word */
		const char *we = k, *wb = we;
		while (wb > s && tr_alpha(wb[-1]))
			wb--;
		if (wb == we || !word_is(wb, (size_t)(we - wb), when))
			continue;
		const char *b = wb;
		for (int w = 0; w < 3 && b > s; w++) {
			while (b > s && b[-1] == ' ')
				b--;
			while (b > s && b[-1] != ' ')
				b--;
		}
		if (any_word(b, (size_t)(wb - b), err) && !tr_dynlib_missing(s, n))
			return b;
	}
	return NULL;
}

/* "failed to load", "error loading", "load failed": the load itself
 * failed; where the words begin, NULL none. */
static const char *load_failed_at(const char *s, size_t n)
{
	/* the contractions too ("Couldn't load model 'transformer'"), and the
	 * step named before the error word ("load model error: ...") */
	static const char *const w[] = {"failed to load", "error loading", "could not load", "unable to load",
					"cannot load", "couldn't load", "can't load", "load model error",
					"model load error", "load model failed", "model load failed",
					/* a frequent misspelling in engines' own messages ("Faild to load model") */
					"faild to load",
					/* the gerund ("Failed loading model qwen3.5", Foundry Local) */
					"failed loading",
					/* the model built from its file failed ("Failed to create LLM 'llama'
					 * from '...bin'", ctransformers): its load, in the constructor's words */
					"failed to create llm", "failed to create model", "failed to create the model",
					"failed to initialize model", "failed to initialise model",
					/* its file could not even be opened ("Failed to open model file -
					 * does it exist?", gemma.cpp; "failed to open GGUF file") */
					"failed to open model", "could not open model", "unable to open model",
					"cannot open model", "failed to open gguf"};
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		const char *k = ci(s, n, w[i]);
		/* "could not load" and its kin need what they could not load:
		 * with nothing after them the line was cut there (a paste that
		 * ends mid-line), and says nothing of what failed; "X failed to
		 * load" is whole without it */
		if (k && i >= 2 && i <= 6 && tr_skip_ws(k + strlen(w[i]), s + n) == s + n)
			continue;
		if (k)
			return k;
	}
	const char *k = word(s, n, "loading failed");
	if (!k)
		k = word(s, n, "load failed");
	return k ? k : error_in_loading(s, n);
}

/* Does what failed to load name the model (its weights, checkpoint,
 * shards, tensors) after the verb at @k ("load", "loading")? */
static int model_after_verb(const char *k, const char *end)
{
	static const char *const obj[] = {"model", "models", "weights", "checkpoint", "shards", "tensors", "gguf",
					  "safetensors", "pretrained", NULL};
	const char *v = ci(k, (size_t)(end - k), "load");
	if (!v)
		return 1; /* no verb to read the object after: as said */
	while (v < end && tr_alpha(*v))
		v++;
	return any_word(v, (size_t)(end - v), obj);
}

/* The "failed to load" family on a line at level @lv: at a warning, only
 * where what failed is the model (`[WARNING] Failed to load bitsandbytes:
 * No module named ...` is said and gone past). */
static int load_failure_at(const char *s, size_t n, int lv)
{
	if (!tr_load_failure_words(s, n))
		return 0;
	return lv != TR_LV_WARN || model_after_verb(load_failed_at(s, n), s + n);
}

/* "rkllm init failed", "Initialization failed. warmup error: ...": the
 * runtime's or the engine's bringing up failed, stated as the event (the
 * step's name and `failed`), the start's end as a load's failure is; not
 * "failed to initialize NVML", a part named after the verb, which engines
 * print as a warning and go on. */
static int init_failed(const char *s, size_t n)
{
	return word(s, n, "init failed") || word(s, n, "initialization failed") ||
	       word(s, n, "initialisation failed");
}

/* "ggml-cuda.cu:924: GGML_ASSERT(x) failed", glibc's "main.c:12: main:
 * Assertion `x' failed.", "Assertion failed: ...", glog's and TVM's
 * "Check failed: (p != nullptr)": a program's own check that aborts it,
 * the end of whatever it was doing, in the words each such macro prints
 * (their case). Not a test suite's count ("3 assertions failed"), not a
 * probe's ("health check failed: retrying"). */
static int assert_failed(const char *s, size_t n)
{
	const char *end = s + n, *a = tr_memmem(s, n, "_ASSERT(");
	if (a && tr_memmem(a, (size_t)(end - a), ") failed"))
		return 1;
	/* glibc's quotes the condition `like this'; a paste's cleaning may
	 * have taken the backquote for Markdown's */
	if ((a = tr_memmem(s, n, "Assertion ")) != NULL && tr_memmem(a, (size_t)(end - a), "' failed"))
		return 1;
	if (tr_memmem(s, n, "Assertion failed: "))
		return 1;
	const char *k = tr_memmem(s, n, "Check failed: ");
	return k && !(k - s >= 7 && !memcmp(k - 7, "health ", 7)) && !(k - s >= 7 && !memcmp(k - 7, "Health ", 7));
}

int tr_load_failure_words(const char *s, size_t n)
{
	/* a guess before the words is none ("if you can't load the model, ..."),
	 * nor a failure the program goes on past (subject.c) */
	const char *k = load_failed_at(s, n);
	return k && !tr_hedged(s, (size_t)(k - s)) && !tr_failure_gone_past(s, n, k);
}

int tr_load_failure_gone_past(const char *s, size_t n)
{
	/* most failure lines hold no fallback and no optional thing: a few
	 * plain searches for what every phrase of subject.c's lists holds
	 * (in any case but its first letter's) before the failure words' */
	static const char *const gate[] = {", ", "back", "without", "kip", "efault", "ill use", "oken", "redential"};
	int any = 0;
	for (size_t i = 0; i < sizeof(gate) / sizeof(gate[0]) && !any; i++)
		any = tr_memmem(s, n, gate[i]) != NULL;
	if (!any)
		return 0;
	const char *k = load_failed_at(s, n);
	return k && tr_failure_gone_past(s, n, k);
}

int tr_load_failure_said(struct lsc_triage *t, const struct tr_line *l)
{
	struct tr_start *st = t->cur;
	if (!st || st->src != l->src || st->done || st->ev_error >= 0 ||
	    st->ev_gen_fail >= 0 || st->in_traceback)
		return 0;
	/* an event, not a guess before it ("if it fails to load ..."; "could not load" is no guess) */
	const char *k = load_failed_at(l->s, l->len);
	if (!k || tr_hedged(l->s, (size_t)(k - l->s)) || tr_failure_gone_past(l->s, l->len, k))
		return 0;
	/* a warning that something other than the model failed to load
	 * (`[WARNING] Failed to load bitsandbytes: No module named ...`): the
	 * program says it and goes on; the model's own at any level fails */
	if (l->level == TR_LV_WARN && !model_after_verb(k, l->s + l->len))
		return 0; /* load_failure_at's warning */
	int e = tr_evid(st, l);
	st->ev_gen_fail = st->ev_gen_fail_last = e;
	if (st->stage < TR_ST_BEGAN)
		st->stage = TR_ST_BEGAN; /* the line is the start's, as its first */
	return 1;
}

/* A traceback that opens where no start is (a paste of the traceback
 * alone): a start's failure when the engine's logger wrote it at error
 * level, not just after a request's failure, or when its frame is in a
 * loading function. */
static int traceback_opens_start(const struct lsc_triage *t, const struct tr_line *l, int lv, int frame)
{
	if (t->req_fail_no && l->no >= t->req_fail_no && l->no - t->req_fail_no <= 3)
		return 0;
	return lv >= TR_LV_ERROR || (frame && frame_loads(l->s, l->len));
}

/* The same failure again, word for word, after the start it failed
 * (`Failed to load the model` for each of three models a launcher tried
 * in turn): another attempt, a start of its own. Not a different failure
 * line after it (a loader's `failed to load model` after its `error
 * loading model`: one failure said by two layers), nor the same line
 * with nothing recognised between (`load model error: ...` from each of
 * two tensor-parallel ranks: one failure said by each worker; an
 * attempt shows something of its own, an exit, a load begun, before it
 * fails again), nor after the failed load's own line again (the same
 * load retried in the same process: load_begin's retry). */
static int failure_again(const struct tr_start *c, const char *s, size_t n)
{
	int k = c->ev_gen_fail;
	if (k < 0 || (unsigned)k >= c->nev || c->lastev.line == c->ev[k].line || c->load_retried)
		return 0;
	char x[TR_EVTEXT];
	size_t w = tr_sanitize(s, n, x, sizeof(x));
	return w < sizeof(x) && w == strlen(c->ev[k].text) && !memcmp(x, c->ev[k].text, w);
}

/* MPI's end of a job, every rank with it: "MPI_ABORT was invoked on rank
 * 0", "Per user-direction, the job has been aborted." (mpirun's default
 * direction, not a user's stop); not a job the user cancelled ("aborted
 * by the user"), nor a request's ("request aborted"). */
static int mpi_aborted(const char *s, size_t n)
{
	if (!tr_memmem(s, n, "bort") && !tr_memmem(s, n, "BORT"))
		return 0; /* two searches in the line's case turn most lines away */
	if (tr_memmem(s, n, "MPI_ABORT") || tr_memmem(s, n, "MPI_Abort"))
		return 1;
	const char *k = word(s, n, "has been aborted");
	if (!k)
		k = word(s, n, "job aborted");
	return k && word(s, n, "job") && !word(s, n, "by user") && !word(s, n, "by the user");
}

/* A container platform's word that the program's container failed to
 * run: kubelet's event `Back-off restarting failed container NAME` (it
 * died, and again), a runtime's `OCI runtime create failed` (it could not
 * start at all). The start's end, pasted alone or after the program's
 * lines. Not a pod table's `CrashLoopBackOff` status (a listing, often
 * of a pod the paste's log lines then show). */
static int container_failed(const char *s, size_t n)
{
	return tr_memmem_ci(s, n, "back-off restarting failed container") ||
	       tr_memmem(s, n, "OCI runtime create failed");
}

/* "Launch unsuccessful. Exiting.", "startup failed", "failed to
 * launch": the program's own word that its launch, the start itself,
 * failed; after a ready line too (gradio printed the address, then its
 * launch() raised). Not a guess ("if the launch failed, ..."). */
static int launch_failed(const char *s, size_t n)
{
	static const char *const w[] = {"launch unsuccessful", "launch failed", "failed to launch",
					"startup failed", "startup unsuccessful"};
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		const char *k = word(s, n, w[i]);
		if (k && !tr_hedged(s, (size_t)(k - s)))
			return 1;
	}
	return 0;
}

/* The words that end a start, on a line at level @lv. */
static int fatal_words(const char *s, size_t n, int lv)
{
	return exit_status(s, n) == 1 || tr_dynlib_missing(s, n) || mpi_aborted(s, n) || word(s, n, "segmentation fault") || word(s, n, "core dumped") ||
	       word(s, n, "timed out") || load_failure_at(s, n, lv) || tr_memmem(s, n, "panic:") ||
	       tr_memmem(s, n, "' panicked at ") || word(s, n, "sigkill") || word(s, n, "sigsegv") ||
	       word(s, n, "sigabrt") || word(s, n, "illegal instruction") ||
	       (word(s, n, "aborting") && loading_words(s, n)) || bad_model_file(s, n) || word(s, n, "fails:") ||
	       word(s, n, "terminated unexpectedly") || word(s, n, "terminate called after throwing") ||
	       /* a launcher's word that its step's process failed, with no
	        * status given (`download_models.py exited with error code.
	        * Aborting`) */
	       word(s, n, "exited with error") || word(s, n, "exited with an error") ||
	       tr_uncaught_exception(s, n) ||
	       init_failed(s, n) || launch_failed(s, n) || assert_failed(s, n) || ran_too_long(s, n) ||
	       container_failed(s, n) ||
	       (oom_said(s, n) && lv != TR_LV_WARN && !word(s, n, "warning")) || ready_words(s, n) < 0;
}

/* A kill: a launcher's words for it once loading began, a shell's report
 * (@sig) once the start began, or one glued to a bar (`0/2 [00:00<?,
 * ?it/s]Killed`): a load under way killed, on the line that may be the
 * start's first, so no start need have begun before it. */
static int kill_said(const struct tr_start *cur, const char *s, size_t n, int sig)
{
	return killed_line(s, n, cur && cur->stage >= TR_ST_LOADING && !cur->done) ||
	       (sig == TR_SIG_KILLED && cur && cur->stage >= TR_ST_BEGAN && !cur->done) ||
	       (sig == TR_SIG_KILLED && !(cur && cur->done) && tr_shell_signal_after_bar(s, n) == TR_SIG_KILLED);
}

/* Ctrl-C: the user stopped the start; it did not fail, even where a shape
 * took the traceback's first line for a failed load. */
static void interrupt_undoes_failure(struct tr_start *st)
{
	if (st->ev_error >= 0 && (unsigned)st->ev_error < st->nev &&
	    strstr(st->ev[st->ev_error].text, "Traceback (most recent call last)")) {
		st->ev_error = -1;
		st->ev_end = -1;
		st->final = 0;
		st->stage = TR_ST_LOADING;
	}
}

/* A request that failed: outside a start, the paste's last such line
 * (t->req_fail_no); one a running server served is the server's, not a
 * start's: the paste shows a server (outcome none) unless a start follows.
 * 1 the line was one a server served, *used whether a start took it. */
static int request_failure(struct lsc_triage *t, struct tr_line *l, struct tr_start *cur, int *used)
{
	if (!cur && request_failed(l->s, l->len))
		t->req_fail_no = l->no;
	if (!((!cur || served_only(cur)) && request_served_failed(l->s, l->len)))
		return 0;
	t->req_fail_no = l->no;
	int e;
	struct tr_start *st = take(t, l, &e);
	if (st)
		st->nserved++;
	*used = st != NULL;
	return 1;
}

/* A watcher whose wait ran out ("vLLM not ready after 30 minutes") lists
 * what it could mean ("This could mean:", then "- An error occurred
 * during loading"): a bullet of that list is a guess, no failure. */
static int listed_guess(const struct tr_start *cur, const char *s, size_t n)
{
	const char *p = tr_skip_ws(s, s + n);
	return cur && cur->waited_out && s + n - p > 2 && (*p == '-' || *p == '*') && p[1] == ' ';
}

static void load_begun_after_ready(struct tr_start *st, const struct tr_line *l);

/* Failure evidence; 1 used. */
/* A line of a traceback that opened no start at its header: one that loads
 * (a frame, a code line building the model: `llm_model = Llama(`) opens the
 * start as the load's; its exception line, reached first, ends the wait.
 * Returns failure()'s answer, or -1 where the line is not the block's. */
static int orphan_traceback_line(struct lsc_triage *t, struct tr_line *l)
{
	if (exception_line(l->s, l->len)) {
		t->tb_orphan_no = 0;
		return -1;
	}
	if (!frame_loads(l->s, l->len))
		return -1;
	int e;
	struct tr_start *st = take(t, l, &e);
	t->tb_orphan_no = 0;
	if (!st)
		return 0;
	st->done = 0;
	st->in_traceback = 1;
	st->ev_tb = st->ev_tb_load = e;
	return 1;
}

/* A traceback whose header (@header: l is one) came after the start's
 * early ready line (a web UI's address before any load, lollms' `Please
 * open your browser`) is marked; a later frame of it that loads (`in
 * _rebuild_model`) says the block is the model's load failing after the
 * UI came up, so the start is the model's, failed (as
 * load_begun_after_ready's failure words say); its exception line,
 * reached first, leaves the ready as it was (a request's error). Returns
 * 1 used, or -1 where the line is not the block's loading frame. */
static int late_traceback_line(struct lsc_triage *t, struct tr_start *st, struct tr_line *l, int header)
{
	if (header && st->done && st->ready_early && st->ev_gen_ready >= 0) {
		t->tb_late_no = l->no;
		t->tb_late_src = l->src;
		return -1;
	}
	if (!t->tb_late_no || t->tb_late_src != l->src || header)
		return -1;
	if (!st->done || !st->ready_early || exception_line(l->s, l->len)) {
		t->tb_late_no = 0;
		return -1;
	}
	if (!frame_loads(l->s, l->len))
		return -1;
	t->tb_late_no = 0;
	load_begun_after_ready(st, l);
	if (st->done)
		return -1;
	int e = tr_evid(st, l);
	tr_touch(st, l);
	st->in_traceback = 1;
	st->ev_tb = st->ev_tb_load = e;
	return 1;
}

/* what the failing line is to record_failure(): one of these */
enum { FL_TB = 1, FL_FRAME, FL_EXC, FL_SIG };

/* Records failing line l (evidence e) in start st: a traceback's header or
 * first frame opens the block, its exception line is the cause, a shell's
 * report of a signal is the cause only where none came before it. */
static void record_failure(struct tr_start *st, struct tr_line *l, int lv, int e, int what)
{
	const char *s = l->s;
	size_t n = l->len;
	if (what == FL_TB || what == FL_FRAME) {
		st->in_traceback = 1;
		/* "^CTraceback": the user's Ctrl-C opened it, not a failure */
		st->ev_tb = n >= 2 && s[0] == '^' && s[1] == 'C' ? -1 : e;
		/* a traceback pasted from its first frame: that frame loading
		 * ("in switch_model") is the block's, as any later one is */
		if (what == FL_FRAME && st->ev_tb_load < 0 && frame_loads(s, n))
			st->ev_tb_load = e;
		return;
	}
	if (what == FL_EXC) {
		st->in_traceback = 0;
		st->ev_tb = -1;
		if (tr_memmem(s, n, "KeyboardInterrupt")) {
			interrupt_undoes_failure(st);
			return;
		}
		st->ev_gen_fail_last = e; /* the block's cause */
	} else if (what != FL_SIG || st->ev_gen_fail_last < 0) {
		/* the shell's report of the death is no cause where the start's
		 * own failure came before it */
		st->ev_gen_fail_last = e;
	}
	if (tr_quotes_output(s, n))
		st->quotes_output = 1;
	if (st->ev_gen_fail < 0) {
		st->ev_gen_fail = e;
		st->fail_plain = lv <= TR_LV_INFO && !what && !exception_line(s, n);
	}
	if (st->stage < TR_ST_BEGAN)
		st->stage = TR_ST_BEGAN;
}

/* An error stated: a failure's words at an error's level or in an
 * exception's line; at an error's level, a thing not found ("ERROR:root:
 * Model config for ViT-bigG-14 not found"); an exception thrown out where
 * a load is under way (@open), its name opening the line ("GPUPipelineError:
 * [Invalid ShaderModule] is invalid.", WebLLM): the load's end, whatever
 * its message's words. */
static int error_said(const struct tr_start *cur, int open, const char *s, size_t n, int lv)
{
	if ((lv >= TR_LV_ERROR || exception_line(s, n)) &&
	    (tr_says_failed(s, n) || (lv >= TR_LV_ERROR && (word(s, n, "not found") || ci(s, n, "no such file")))))
		return 1;
	return open && !cur->in_traceback && tr_upper(s[0]) && exception_line(s, n);
}

/* "python.exe: can't open file 'x.py': [Errno 2] No such file or
 * directory": an action said to have failed, with the OS error in
 * Python's form after it (the number and its text), at any level but a
 * warning's or a debug line's (a program that stamps every line `I` says
 * its end at info too). Not an exception a program reports it caught and
 * goes past ("exception in config_file_change_fp32: [Errno 2] ...": no
 * failure said before the error), and not a wait that retries after it
 * ("Retrying ... [Errno 111] Connection refused"). */
static int errno_failed(const char *s, size_t n, int lv)
{
	const char *k = tr_memmem(s, n, "[Errno ");
	if (!k || lv == TR_LV_WARN || lv == TR_LV_DEBUG || !tr_says_failed(s, (size_t)(k - s)))
		return 0;
	const char *p = k + 7, *end = s + n;
	while (p < end && tr_digit(*p))
		p++;
	static const char *const wait[] = {"retry", "retrying", "retries", "waiting", NULL};
	return p > k + 7 && end - p > 2 && p[0] == ']' && p[1] == ' ' && tr_alpha(p[2]) && !any_word(s, n, wait);
}

/* An error said on the line (error_said, errno_failed), 1; where a
 * program said it starts (boot_said.c) and nothing opened a start since,
 * its own failure ends that start as an open one's would: the start is
 * made, and *@cur and *@open say so. */
static int failure_said(struct lsc_triage *t, const struct tr_line *l, int lv, struct tr_start **cur, int *open)
{
	const char *s = l->s;
	size_t n = l->len;
	int booted = !*cur && t->boot_no && t->boot_src == l->src && t->nstarts == t->boot_base;
	int errlv = error_said(*cur, *open, s, n, lv) || ((*open || booted) && errno_failed(s, n, lv)) ||
		    (booted && tr_upper(s[0]) && exception_line(s, n));
	if (booted && errlv && !tr_probe_not_up(s, n)) {
		tr_boot_start(t);
		*cur = t->cur && t->cur->src == l->src ? t->cur : NULL;
		*open = *cur != NULL;
	}
	return errlv;
}

static int failure(struct lsc_triage *t, struct tr_line *l, int lv)
{
	const char *s = l->s;
	size_t n = l->len;
	struct tr_start *cur = t->cur && t->cur->src == l->src ? t->cur : NULL;
	/* open: begun and not up (a load summary alone is not up) */
	int open = cur && cur->stage >= TR_ST_BEGAN &&
		   (!cur->done || (cur->stage < TR_ST_READY && cur->ev_gen_ready < 0));
	uint64_t k = l->kw;
	int tb = (k & TR_G_GFATAL) && tr_memmem(s, n, "Traceback (most recent call last)") != NULL;
	/* a traceback pasted without its header: its frames say what it is */
	int frame = (k & TR_G_GFATAL) && !(cur && (cur->in_traceback || cur->done)) && n > 6 && !memcmp(s, "File \"", 6) &&
		    tr_memmem(s, n, "\", line ") != NULL;
	tb = tb || frame;
	/* "KeyboardInterrupt" alone (no message, no colon) ends the block too */
	int exc = cur && cur->in_traceback && (exception_line(s, n) || word(s, n, "keyboardinterrupt"));
	/* rich draws a traceback as a panel of its frames, the exception line
	 * under it (`╰───╯`, then `RuntimeError: ...`): the line right after
	 * the panel closes is the block's exception, with or without the
	 * panel's `Traceback` title in the paste */
	int rich_exc = !exc && t->box_end_no && l->no == t->box_end_no + 1 && exception_line(s, n);
	exc = exc || rich_exc;
	/* the words that end a start: only on a line that holds one (the prefilter's group) */
	int fatal = (k & TR_G_GFATAL) && fatal_words(s, n, lv) && !listed_guess(cur, s, n);
	/* a shell's report of its program's death by a signal: a kill ends the
	 * start begun (a prompt's command, a load), a fault ends whatever ran */
	int sig = (k & TR_G_GFATAL) ? tr_shell_signal(s, n) : 0;
	if (!sig && (k & TR_G_GFATAL) && tr_fault_report(s, n))
		sig = TR_SIG_FAULT;
	fatal = fatal || sig == TR_SIG_FAULT;
	int kill = (k & TR_G_GFATAL) && kill_said(cur, s, n, sig);
	/* a frame of the open traceback in a loading function says the block
	 * is the load's: kept as its evidence (load-failed reads it) */
	if (cur && cur->in_traceback && cur->ev_tb_load < 0 && frame_loads(s, n)) {
		cur->ev_tb_load = tr_evid(cur, l);
		tr_touch(cur, l);
		return 1;
	}
	if (cur && late_traceback_line(t, cur, l, tb && !frame) > 0)
		return 1;
	if (!cur && t->tb_orphan_no && t->tb_orphan_src == l->src && !tb) {
		int r = orphan_traceback_line(t, l);
		if (r >= 0)
			return r;
	}
	int errlv = failure_said(t, l, lv, &cur, &open);
	/* a probe of a server's readiness that found it not up: a wait on
	 * the server coming up (its own start goes on), no failure of it; so
	 * is a probe on an input's last line cut before its newline, its
	 * reason maybe lost with the rest of the line */
	if ((errlv || fatal) && !kill && sig != TR_SIG_FAULT &&
	    (tr_probe_not_up(s, n) || ((l->flags & TR_L_TAIL) && tr_probe_said(s, n))))
		return 0;
	int used;
	if (request_failure(t, l, cur, &used))
		return used;
	/* what fails where only requests were seen is theirs (the request's
	 * traceback), not a start's; a kill ends whatever ran */
	if (cur && served_only(cur) && !kill)
		return 0;
	/* "what():  msg" after "terminate called after throwing ...": the
	 * uncaught C++ exception's message, the block's cause (as a Python
	 * traceback's exception line is) */
	int what = cur && tr_start_failed(cur) && n > 7 && !memcmp(s, "what():", 7);
	if (!(tb || exc || fatal || errlv || kill || what))
		return 0;
	/* an error about nothing that loads, in no start (a pip error, a
	 * shell's), is not a start's failure; a kill ends whatever ran, and
	 * the start's own step failing (a runtime's init, a warmup) is its */
	int own_step = init_failed(s, n) || word(s, n, "warmup") || launch_failed(s, n);
	/* a process that never came up ("did not become ready within 300 s",
	 * "failed to start"): a start's end whatever it names */
	int never_up = (k & TR_G_GREADY) && ready_words(s, n) < 0;
	if (!open && !kill && sig != TR_SIG_FAULT && !word(s, n, "terminate called after throwing") && !own_step &&
	    !assert_failed(s, n) && !container_failed(s, n) && !never_up &&
	    !(loading_words(s, n) || tr_ready_subject(s, n) || (exception_line(s, n) && !tb) || tr_load_failure_words(s, n)) &&
	    !(tb && !cur && traceback_opens_start(t, l, lv, frame))) {
		if (tb && !cur && !(t->req_fail_no && l->no >= t->req_fail_no && l->no - t->req_fail_no <= 3)) {
			t->tb_orphan_no = l->no;
			t->tb_orphan_src = l->src;
		}
		return 0;
	}
	int e;
	if (cur && tr_start_failed(cur) && tr_load_failure_words(s, n) && failure_again(cur, s, n) &&
	    !tr_fresh_if(t, l, 1, NULL))
		return 0;
	struct tr_start *st = take(t, l, &e);
	if (!st)
		return 0;
	/* after ready: not a failed start; after a load summary only (the
	 * weights are in, the engine not yet up: its KV cache, its graphs), a
	 * failure line (not a traceback's header alone) ends the start */
	if (st->done && (st->stage >= TR_ST_READY || st->ev_gen_ready >= 0)) {
		/* unless the start's own last step failed after its ready line
		 * (`Initialization failed. warmup error: ...`, a warmup's error
		 * or fatal line): the server said it was up before its start
		 * was done */
		/* a load failing after a ready line that came before anything
		 * of the load (a web UI up, then the model the user picked in
		 * it failing to load): that ready was the frontend's, and the
		 * start is the model's, failed */
		if (st->ready_early && tr_load_failure_words(s, n))
			load_begun_after_ready(st, l);
		else if (!own_step)
			return 1;
		st->done = 0;
	}
	if (st->done && tb) {
		/* its exception line decides; a paste that ends in it failed */
		st->in_traceback = 1;
		st->ev_tb = n >= 2 && s[0] == '^' && s[1] == 'C' ? -1 : e;
		return 1;
	}
	st->done = 0;
	if (kill && st->ev_killed < 0)
		st->ev_killed = e;
	record_failure(st, l, lv, e, tb ? (frame ? FL_FRAME : FL_TB) : exc ? FL_EXC : sig ? FL_SIG : 0);
	return 1;
}

int tr_managed_failed(struct lsc_triage *t, struct tr_line *msg)
{
	struct tr_start *cur = t->cur && t->cur->src == msg->src ? t->cur : NULL;
	/* a warning's or a debug line's level: the exception logged as
	 * handled, work goes on (not info's: an engine that stamps every line
	 * with a level prints its end at info as often as not) */
	if (msg->level == TR_LV_WARN || msg->level == TR_LV_DEBUG)
		return 0;
	/* after ready, an exception is the work's (a request's), not the start's */
	if (cur && cur->done && (cur->stage >= TR_ST_READY || cur->ev_gen_ready >= 0))
		return 0;
	/* no start under way: one only where the message speaks of the load */
	if ((!cur || cur->stage < TR_ST_BEGAN) && !loading_words(msg->s, msg->len) &&
	    !tr_load_failure_words(msg->s, msg->len))
		return 0;
	int e;
	struct tr_start *st = take(t, msg, &e);
	if (!st)
		return 0;
	st->done = 0;
	record_failure(st, msg, TR_LV_ERROR, e, FL_EXC);
	return 1;
}

void tr_managed_frame_seen(struct lsc_triage *t, struct tr_line *l)
{
	struct tr_start *st = t->cur;
	if (!st || st->src != l->src || st->ev_tb_load >= 0 || !tr_start_failed(st))
		return;
	/* the method's name, the last part before its arguments */
	const char *p = memchr(l->s, '(', l->len), *m = p;
	if (!p)
		return;
	while (m > l->s + 3 && m[-1] != '.')
		m--;
	if (p > m && loading_ident(m, (size_t)(p - m))) {
		st->ev_tb_load = tr_evid(st, l);
		tr_touch(st, l);
	}
}

void tr_managed_cause(struct lsc_triage *t, struct tr_line *l)
{
	struct tr_start *st = t->cur;
	if (!st || st->src != l->src || st->ev_gen_fail < 0)
		return;
	st->ev_gen_fail_last = tr_evid(st, l);
	tr_touch(st, l);
}

/* The line is the one word "Ready" ("Ready.", "ready!", "READY"), no
 * subject and nothing else: what a small server prints once it is up
 * (wyoming's `INFO:__main__:Ready`). */
static int bare_ready(const char *s, size_t n)
{
	while (n && (s[n - 1] == '.' || s[n - 1] == '!' || s[n - 1] == ' '))
		n--;
	return n == 5 && !strncasecmp(s, "ready", 5);
}

static int ready(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s;
	size_t n = l->len;
	/* a traceback's frames name functions, not events ("in wait_ready") */
	if ((t->cur && t->cur->in_traceback) || (n > 6 && !memcmp(s, "File \"", 6)))
		return 0;
	/* "Ready" alone on its line, once a start is under way: the program
	 * that began it says it is up, its subject the line's speaker */
	int bare = bare_ready(s, n) && t->cur && t->cur->src == l->src && t->cur->stage >= TR_ST_BEGAN;
	if (!bare && (ready_words(s, n) <= 0 || !tr_ready_subject(s, n)))
		return 0;
	int e;
	struct tr_start *st = take(t, l, &e);
	if (!st)
		return 0;
	/* a server up at its address, all its start has shown so far (with
	 * the ASGI server's own startup lines, `Waiting for application
	 * startup.` and its `complete`, which load nothing where no line named
	 * a model), after its own log lines (others than those) and none of
	 * them naming a model: a serving process with no model in it
	 * (server_up.c); a line alone, or with only the startup's lines
	 * before it, says nothing of what it holds */
	if (st->recognised == st->nbare_ready + st->napp_startup + 1 && !t->model_said &&
	    t->unnamed_log_lines > st->napp_startup && tr_server_up_only(s, n))
		st->nbare_ready++;
	/* a ready line after a load summary alone is the server up (the
	 * weights in, then `Serving on ...`): what fails after it is the
	 * server's work, not the start's */
	if ((st->done && (st->stage >= TR_ST_READY || st->ev_gen_ready >= 0)) || st->ev_error >= 0 ||
	    st->ev_oom >= 0 || st->ev_killed >= 0)
		return 1;
	if (tr_ready_part_only(s, n)) {
		/* a shard or a worker ready: a step of the load, the server
		 * still to come up after it */
		tr_stage_raise(st, TR_ST_LOADING);
		return 1;
	}
	if (st->stage < TR_ST_BEGAN)
		st->stage = TR_ST_BEGAN;
	/* nothing of the load before it: it may be a frontend's, the model
	 * still to come (load_begun_after_ready); so may a transport's ready
	 * before the load ended (`GRPC Service Ready` of the backend process a
	 * launcher spawned for the model, which then loads it: subject.c) */
	st->ready_early = (st->stage < TR_ST_LOADING && !st->gen_load_began) ||
			  (st->stage < TR_ST_LOADED && tr_ready_transport_only(s, n));
	st->ev_gen_ready = e;
	st->ev_end = e;
	st->progress_open = 0;
	/* "startup [ 163.1 s] model ready": the engine's own clock on its ready
	 * line is its time to ready */
	double v;
	if (!tr_has(&st->ready_s) && (tr_elapsed_clock(s, n, &v) || tr_started_named_in(s, n, &v)))
		tr_setnum(&st->ready_s, v, e);
	tr_stage_raise(st, TR_ST_READY);
	return 1;
}

/* "Waiting for shard 0 to be ready...", "waiting for server to start":
 * a start under way that has not come up (begun, not a marker: a paste
 * that ends here is cut off). */
static int waits_on_load(const char *s, size_t n);

static int waiting(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s;
	size_t n = l->len;
	/* "Waiting for application startup.": uvicorn's, under every Python
	 * server, before the app's startup brings the model up */
	static const char *const until[] = {"ready", "start", "startup", "load", "live", "up", "online", NULL};
	const char *w = ci(s, n, "waiting for");
	if (!w)
		w = ci(s, n, "wait for"); /* "Please wait for vllm server to become ready..." */
	int on_load = ci(s, n, "load") && waits_on_load(s, n); /* each of its phrases holds "load" */
	if (!on_load && (!w || !any_word(w, (size_t)(s + n - w), until) || !tr_ready_subject(s, n)))
		return 0;
	struct tr_start *st = t->cur && t->cur->src == l->src ? t->cur : NULL;
	if (st && (st->done || st->stage >= TR_ST_READY))
		return 0;
	int e;
	if (!(st = take(t, l, &e)))
		return 0;
	/* a server process's wait for its app's startup, as the start's first
	 * step (nothing before it begun), is where that process began: the
	 * clocks of the lines before it are another step's or process's (a
	 * paste that begins at a graph capture's end), not the time this
	 * start took */
	if (st->stage < TR_ST_BEGAN && !on_load && word(w, (size_t)(s + n - w), "startup"))
		for (int c = 0; c < TR_TS_KINDS; c++)
			if (!isnan(l->tsk[c]))
				st->ts_begin[c] = st->ts_last[c] = l->tsk[c];
	tr_stage_raise(st, on_load ? TR_ST_LOADING : TR_ST_BEGAN);
	if (on_load)
		st->progress_open = 1;
	return 1;
}

/* "Sleep 30 seconds for load llama2-7b-chat..", "waiting for the model to
 * finish loading": a poller waits on the load itself, which is under way
 * (a paste that ends here is still loading); not a wait for a server to
 * come up, which says nothing of how far the load got. */
static int waits_on_load(const char *s, size_t n)
{
	static const char *const wait[] = {"sleep", "sleeping", "wait", "waiting", NULL};
	static const char *const on[] = {"for load", "for loading", "to load", "to finish loading", "for the load"};
	int said = 0;
	for (size_t i = 0; i < sizeof(on) / sizeof(on[0]) && !said; i++)
		said = word(s, n, on[i]) != NULL;
	return said && any_word(s, n, wait) && !tr_hedged(s, n) && !tr_says_failed(s, n) && !word(s, n, "timed out");
}

/* A status table's row: a cell that is the model's state, READY, or
 * UNAVAILABLE with the reason ("UNAVAILABLE: Internal: unable to create
 * stream: ..."). One model that could not be loaded fails the start even
 * after other rows said READY: the server does not come up with it
 * missing (Triton exits on a model that failed to load, by default). */
int tr_recognise_table_row(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len;
	int state = 0; /* 1 ready, -1 unavailable */
	for (const char *c = s; c < end && !state;) {
		const char *b = tr_skip_ws(c + 1, end), *e = memchr(c + 1, '|', (size_t)(end - c - 1));
		if (!e)
			break;
		const char *ce = e;
		while (ce > b && ce[-1] == ' ')
			ce--;
		if (ce - b == 5 && !memcmp(b, "READY", 5))
			state = 1;
		else if (ce - b >= 11 && !memcmp(b, "UNAVAILABLE", 11) && (ce - b == 11 || b[11] == ':'))
			state = -1;
		c = e;
	}
	int e;
	struct tr_start *st;
	if (!state) {
		/* nvidia-smi's head, "| NVIDIA-SMI 550.144.03  Driver Version: ...
		 * CUDA Version: 12.4 |": the machine, pasted as a setting */
		if (!tr_memmem(s, l->len, "Driver Version:") || !(st = take(t, l, &e)))
			return 0;
		st->nsettings++;
		return 1;
	}
	if (!(st = take(t, l, &e)))
		return 0;
	tr_stage_raise(st, TR_ST_LOADING);
	if (state < 0) {
		st->done = 0;
		st->ev_gen_ready = -1;
		if (st->ev_gen_fail < 0)
			st->ev_gen_fail = e;
		st->ev_gen_fail_last = e;
		return 1;
	}
	if (st->ev_gen_fail < 0 && st->ev_error < 0 && st->ev_oom < 0 && st->ev_killed < 0) {
		st->ev_gen_ready = e;
		st->progress_open = 0;
		tr_stage_raise(st, TR_ST_READY);
	}
	return 1;
}

/* "% mlx_lm.server --model m", "vllm serve --model m": the command that
 * launches a model server, its model named by --model (--model-path,
 * --model-id); not a sentence that mentions the flag. */
static int launch_command(const char *s, size_t n)
{
	const char *end = s + n;
	for (const char *k = s; (k = tr_memmem(k, (size_t)(end - k), " --model")) != NULL; k++) {
		const char *a = k + 8;
		if (a < end && !(*a == ' ' || *a == '=' || *a == '-' || *a == '_'))
			continue;
		/* a sentence before the flag ("I ran it. Then --model") is prose */
		for (const char *p = s; p + 1 < k; p++)
			if ((*p == '.' || *p == '?' || *p == '!') && p[1] == ' ')
				return 0;
		return 1;
	}
	return 0;
}

/* "trtllm-serve /models/qwen \", "llama-server -m m.gguf", "vllm serve
 * Qwen/Qwen2.5-7B": a command, as the paste's own line (no prompt), that
 * launches a model server by its name (a program called *-serve,
 * *-server, *_server, or one whose subcommand is serve), with an argument
 * that is not --help or --version. Not prose that names one ("I ran
 * llama-server and ..."): the program is the line's first word. */
static int server_launch(const char *s, size_t n)
{
	const char *end = s + n, *b = s;
	while (b < end && (*b == ' ' || *b == '\t'))
		b++;
	const char *e = b;
	while (e < end && *e != ' ' && *e != '\t')
		e++;
	const char *base = e;
	while (base > b && base[-1] != '/')
		base--;
	size_t bl = (size_t)(e - base);
	static const char *const tail[] = {"-serve", "-server", "_server"};
	int named = 0;
	for (size_t i = 0; i < 3 && !named; i++) {
		size_t tl = strlen(tail[i]);
		named = bl > tl && !memcmp(e - tl, tail[i], tl) && tr_alpha(*base);
	}
	const char *a = tr_skip_ws(e, end), *ae = a;
	while (ae < end && *ae != ' ' && *ae != '\t')
		ae++;
	if (!named && bl >= 2 && tr_alpha(*base) && ae - a == 5 && !memcmp(a, "serve", 5)) {
		named = 1; /* "vllm serve MODEL": the argument after the subcommand */
		a = tr_skip_ws(ae, end);
		for (ae = a; ae < end && *ae != ' ' && *ae != '\t';)
			ae++;
	}
	if (!named || a == ae)
		return 0;
	for (const char *p = b; p < base; p++)
		if (!(tr_alpha(*p) || tr_digit(*p) || *p == '/' || *p == '.' || *p == '_' || *p == '-' || *p == '~'))
			return 0; /* a path before the name, nothing else */
	size_t al = (size_t)(ae - a);
	return !((al == 6 && !memcmp(a, "--help", 6)) || (al == 2 && !memcmp(a, "-h", 2)) ||
		 (al == 9 && !memcmp(a, "--version", 9)) || (al == 2 && !memcmp(a, "-v", 2)));
}

/* "Download: [9/19]", "Downloading shards: 3/8": the model's files are
 * being fetched; 1 with the counts. A download is not the load: it gives
 * no load time. */
static int download_count(const char *s, size_t n, double *done, double *all)
{
	const char *end = s + n;
	if (!any_word(s, n, fetch_words))
		return 0;
	for (const char *p = s; p < end; p++) {
		if (*p != '/' || p == s || !tr_digit(p[-1]) || p + 1 >= end || !tr_digit(p[1]))
			continue;
		const char *a0 = p;
		while (a0 > s && tr_digit(a0[-1]))
			a0--;
		const char *a = a0, *b = p + 1;
		if (!tr_num(&a, p, done) || !tr_num(&b, end, all) || !(*all > 0) || *done > *all)
			return 0;
		/* "[9/19] -- ETA": the count of the model's files (the line before named them) */
		return any_word(s, n, fetched_words) || (a0 > s && a0[-1] == '[');
	}
	return 0;
}

/* "DiffusionWrapper has 859.52 M params", "7.24B parameters", "Total
 * params: 6,738,415,616": the model is being built, with its size in
 * parameters (a million or more). */
static int param_count(const char *s, size_t n)
{
	static const char *const w[] = {"params", "parameters"};
	for (size_t i = 0; i < 2; i++) {
		const char *k = word(s, n, w[i]);
		if (!k)
			continue;
		/* the count after "params: " or before the word, with its scale */
		const char *p = k + strlen(w[i]), *end = s + n;
		while (p < end && (*p == ':' || *p == ' ' || *p == '='))
			p++;
		double v;
		if (p < end && tr_digit(*p) && tr_num(&p, end, &v) && v >= 1e6)
			return 1;
		const char *q = k;
		while (q > s && q[-1] == ' ')
			q--;
		double mul = 1;
		if (q > s && (q[-1] == 'M' || q[-1] == 'B' || q[-1] == 'G'))
			mul = q[-1] == 'M' ? 1e6 : 1e9, q--;
		while (q > s && q[-1] == ' ')
			q--;
		const char *b = q;
		while (b > s && (tr_digit(b[-1]) || b[-1] == '.' || b[-1] == ','))
			b--;
		const char *c = b;
		if (b < q && tr_digit(*b) && tr_num(&c, q, &v) && c == q && v * mul >= 1e6)
			return 1;
	}
	return 0;
}

/* "Downloading detection model, please wait.", "Fetching model weights
 * from the Hub...": the program fetching, in words, the model it is about
 * to load (a bar with a count is size_figures' or download_count's, read
 * before): the start under way, with no load figure. The fetch word in
 * its -ing form (under way, not "Downloaded"), what it fetches among the
 * next four words, nothing before it that negates or skips it ("Skipping
 * downloading model"). */
static int model_fetch_said(const char *s, size_t n)
{
	static const char *const neg[] = {"not", "no", "skip", "skipping", "skipped", "without", "already", NULL};
	const char *k = word(s, n, "downloading");
	if (!k)
		k = word(s, n, "fetching");
	if (!k || any_word(s, (size_t)(k - s), neg) || tr_hedged(s, (size_t)(k - s)))
		return 0;
	const char *p = k, *end = s + n;
	for (int w = 0; w < 5 && p < end; w++) { /* the fetch word and four more */
		while (p < end && *p != ' ')
			p++;
		while (p < end && *p == ' ')
			p++;
	}
	while (k < p && *k != ' ')
		k++; /* past the fetch word */
	return any_word(k, (size_t)(p - k), fetched_words);
}

/* A start under way that nothing else marks: its launch command, its
 * model built with its count of parameters, its files' download count (loading, open until n = N), a warning that it
 * is taking long ("replicas that have taken more than 30s to
 * initialize"). Begun, not a start marker: a paste that ends here is cut
 * off (or still loading), never failed. */
static int under_way(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s;
	size_t n = l->len;
	double done, all;
	int e;
	struct tr_start *st;
	static const char *const slow[] = {"taken more than", "taking longer than"};
	static const char *const until[] = {"initialize", "initialise", "start", "load", "scheduled", "ready", NULL};
	/* a command that only fetches the model (`modelscope download
	 * --model x`, after a prompt or as the paste's own line) runs none */
	const char *pc = tr_prompt_command(s, n);
	int fetch = tr_command_fetches(pc ? pc : s, s + n);
	if (!fetch && (launch_command(s, n) || server_launch(s, n) || param_count(s, n) || tr_args_name_model(s, n))) {
		if (!(st = tr_fresh_if(t, l, 0, NULL)))
			return 0;
		tr_evid(st, l);
		tr_touch(st, l);
		tr_stage_raise(st, TR_ST_BEGAN);
		return 1;
	}
	if (download_count(s, n, &done, &all)) {
		if (!(t->cur && t->cur->src == l->src) && t->fetch_src == l->src + 1)
			return 1;
		if (!(st = take(t, l, &e)))
			return 0;
		if (st->done || st->stage >= TR_ST_LOADED)
			return 1;
		tr_stage_raise(st, TR_ST_LOADING);
		st->progress_open = done < all;
		return 1;
	}
	if (model_fetch_said(s, n)) {
		/* where no start is, a download command's own output is none */
		if (!(t->cur && t->cur->src == l->src) && t->fetch_src == l->src + 1)
			return 1;
		if (!(st = take(t, l, &e)))
			return 0;
		if (!st->done && st->stage < TR_ST_LOADED && !tr_start_failed(st))
			tr_stage_raise(st, TR_ST_LOADING);
		return 1;
	}
	/* "vLLM not ready after 30 minutes": a watcher's wait ran out; the
	 * start took at least that, and what came after is not in the paste
	 * (not under way any more in what it shows) */
	const char *na = ci(s, n, "not ready after");
	if (na && !ready_words(s, n) && !tr_ready_about_other(s, n)) {
		const char *p = na + 15, *end = s + n;
		p = tr_skip_ws(p, end);
		double v;
		if (!(p < end && tr_digit(*p) && tr_dur_s(&p, end, &v)))
			return 0;
		if (t->cur && t->cur->src == l->src && (t->cur->done || t->cur->stage >= TR_ST_READY))
			return 0;
		if (!(st = take(t, l, &e)))
			return 0;
		tr_stage_raise(st, TR_ST_BEGAN);
		if (!tr_has(&st->step_s) || v > st->step_s.v)
			tr_setnum(&st->step_s, v, e);
		st->progress_open = 0;
		st->waited_out = 1;
		return 1;
	}
	for (size_t i = 0; i < sizeof(slow) / sizeof(slow[0]); i++) {
		const char *k = ci(s, n, slow[i]);
		if (!k || !any_word(k, (size_t)(s + n - k), until))
			continue;
		if (t->cur && t->cur->src == l->src && (t->cur->done || t->cur->stage >= TR_ST_READY))
			return 0;
		if (!(st = take(t, l, &e)))
			return 0;
		tr_stage_raise(st, TR_ST_BEGAN);
		return 1;
	}
	return 0;
}

static int generic_line(struct lsc_triage *t, struct tr_line *l, uint64_t k);

/* The model's load begun, or its init under way ("model initialising,
 * waiting for 2 minutes"), after a ready line that came before anything
 * of the load (a model server's frontend: `Model server started.`, then
 * its worker's `model initialising`): that ready was the frontend's, not
 * the model up. The start is loading again; its own ready or load
 * summary, if the paste has one, completes it. Not after a failure, nor
 * after a ready line that followed the load (a server up with its model,
 * then a request's load of another). */
static void load_begun_after_ready(struct tr_start *st, const struct tr_line *l)
{
	if (!st->done || !st->ready_early || st->ev_gen_ready < 0 || tr_start_failed(st))
		return;
	st->done = 0;
	st->ready_early = 0;
	st->ev_gen_ready = -1;
	st->stage = TR_ST_LOADING;
	/* under way where the line says it goes on ("model initialising,
	 * waiting for 2 minutes"); a load begun in words alone as the paste's
	 * end is cut off, as anywhere else (`GRPC: Loading model with
	 * options: {...` cut mid-line) */
	static const char *const on[] = {"waiting", "initialising", "initializing", NULL};
	st->progress_open = any_word(l->s, l->len, on);
}

/* "Loading Model: NAME", "Loading ONNX model from PATH", "Loading TTS
 * model and voice packs...": the load begun in words, as "loading model"
 * is, with the object in any case and up to two words naming its kind
 * between the verb and it (letters: a kind, not a count). Not a part that
 * is no weights ("Loading tokenizer model", a vocabulary), not a download
 * or an unload (other words), not the verb's negation or a plan ("not
 * loading", "before loading"), not a load of something else ("Loading
 * eval dataset"). */

/* Triton's `loading: NAME:VERSION` (its model repository manager's word
 * that a model's version began to load): the line ends in a name, a colon
 * and a version number. */
static int model_version_named(const char *p, const char *end)
{
	const char *b = p;
	while (p < end && (tr_isword(*p) || *p == '-' || *p == '.'))
		p++;
	if (p == b || p >= end || *p != ':')
		return 0;
	const char *v = ++p;
	while (p < end && tr_digit(*p))
		p++;
	return p > v && p == end;
}

/* The verb's object a weight file by its name ("loading
 * .cache/Wan2.1_VAE.pth", "Loading '/models/x.safetensors'"): one token,
 * quoted or not, whose name ends in a checkpoint format's extension; a
 * directory, a library, a config file are not. */
int tr_weight_file_named(const char *p, const char *end)
{
	/* and the compiled models of the NPU runtimes and mobile engines
	 * (Hailo's .hef, Rockchip's .rknn and .rkllm, TFLite's .tflite) */
	static const char *const ext[] = {".pth", ".pt",   ".ckpt",  ".safetensors", ".gguf", ".ggml",
					  ".bin", ".onnx", ".hef",   ".rknn",        ".rkllm", ".tflite"};
	while (p < end && (*p == ' ' || *p == '\'' || *p == '"' || *p == '`'))
		p++;
	const char *b = p;
	while (p < end && *p != ' ' && *p != '\'' && *p != '"' && *p != '`' && *p != ',')
		p++;
	while (p > b && (p[-1] == '.' || p[-1] == ':' || p[-1] == ')'))
		p--; /* the sentence's end after the name */
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t el = strlen(ext[i]);
		if ((size_t)(p - b) > el && !strncasecmp(p - el, ext[i], el) && *(p - el - 1) != '/')
			return 1;
	}
	return 0;
}

/* Is the path after "from" a file in a model's folder: a directory on it
 * whose name holds "model" ("/models/", "vosk-model-en/"), then the
 * file's own name? */
static int in_model_folder(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\'' || *p == '"' || *p == '`'))
		p++;
	const char *b = p;
	while (p < end && *p != ' ' && *p != '\'' && *p != '"' && *p != '`')
		p++;
	const char *last = NULL;
	for (const char *q = b; q < p; q++)
		if (*q == '/' || *q == '\\')
			last = q;
	if (!last || last + 1 >= p)
		return 0;
	return tr_memmem_ci(b, (size_t)(last - b), "model") != NULL;
}

/* "Initializing a text summarization model...", "Initializing text
 * classification pipeline with model x": the model's init begun, the
 * verb opening the line (a status glyph may come before it: "⚡
 * Initializing LLM model from ...") and the model a word of the next five (its
 * kind's words between); not a part that is no weights before it
 * ("Initializing tokenizer for model x"), not a number's count. */
static int model_init_begun(const char *s, size_t n)
{
	static const char *const verb[] = {"initializing", "initialising", NULL};
	static const char *const obj[] = {"model", "models", "weights", "checkpoint", NULL};
	static const char *const not_weights[] = {"tokenizer", "vocab", "vocabulary", "processor", "config", NULL};
	const char *end = s + n, *v = s;
	/* past a status glyph before it ("⚡ Initializing ..."): symbols and
	 * spaces, no letter or digit */
	while (v < end && v - s < 8 && !tr_isword(*v))
		v++;
	const char *p = v;
	while (p < end && tr_isword(*p))
		p++;
	if (!word_is(v, (size_t)(p - v), verb))
		return 0;
	for (int w = 0; w < 5 && p < end; w++) {
		while (p < end && *p == ' ')
			p++;
		const char *b = p;
		while (p < end && (tr_isword(*p) || *p == '-'))
			p++;
		if (p == b || tr_digit(*b) || word_is(b, (size_t)(p - b), not_weights))
			return 0;
		if (word_is(b, (size_t)(p - b), obj))
			return 1;
	}
	return 0;
}

int tr_loading_model_named(const char *s, size_t n)
{
	static const char *const obj[] = {"model", "models", "weights", "checkpoint", NULL};
	static const char *const not_weights[] = {"tokenizer", "vocab", "vocabulary", "processor", "config", NULL};
	static const char *const notyet[] = {"not", "before", "until", "after", "without", "skip", "skipping", NULL};
	const char *end = s + n;
	const char *c = tr_memmem(s, n, "oading: ");
	if (c && c > s && (c[-1] == 'l' || c[-1] == 'L') && (c - 1 == s || !tr_isword(c[-2])) &&
	    model_version_named(c + 8, end))
		return 1;
	/* the verb as the prefilter found it, read in place: no lowered copy
	 * of the line for the many lines that only say "loading" */
	for (const char *k = tr_memmem(s, n, "oading "); k; k = tr_memmem(k + 1, (size_t)(end - k - 1), "oading ")) {
		if (k == s || (k[-1] != 'L' && k[-1] != 'l') || (k - 1 > s && tr_isword(k[-2])))
			continue;
		/* the word before the verb: its negation or a plan */
		const char *pe = k - 1;
		while (pe > s && pe[-1] == ' ')
			pe--;
		const char *pb = pe;
		while (pb > s && tr_isword(pb[-1]))
			pb--;
		if (pb < pe && word_is(pb, (size_t)(pe - pb), notyet))
			return 0;
		const char *p = k + 7;
		if (tr_weight_file_named(p, end))
			return 1;
		for (int w = 0; w < 3 && p < end; w++) {
			while (p < end && (*p == ' ' || *p == ':'))
				p++;
			const char *b = p;
			while (p < end && (tr_isword(*p) || *p == '-'))
				p++;
			if (p == b || tr_digit(*b) || word_is(b, (size_t)(p - b), not_weights))
				break;
			if (word_is(b, (size_t)(p - b), obj))
				return 1;
			/* "Loading HCLG from /opt/vosk-model-en/model/graph/HCLG.fst":
			 * a part named in its own words, read from the model's folder */
			if (w > 0 && p - b == 4 && !strncasecmp(b, "from", 4))
				return in_model_folder(p, end);
		}
	}
	return 0;
}

/* A section's banner ("==========LoadModel==========", "----- Process
 * -----"): a run of one rule character (=, -, #, *, ~) on both sides of a
 * short title; 1 with the title in *b..*e. */
static int banner_title(const char *s, size_t n, const char **b, const char **e)
{
	static const char rule[] = "=-#*~";
	if (n < 10 || !strchr(rule, s[0]) || s[1] != s[0] || s[2] != s[0])
		return 0;
	const char *p = s, *q = s + n;
	while (p < q && *p == s[0])
		p++;
	while (q > p && q[-1] == ' ')
		q--;
	const char *te = q;
	while (te > p && te[-1] == s[0])
		te--;
	while (p < te && *p == ' ')
		p++;
	while (te > p && te[-1] == ' ')
		te--;
	if (q - te < 3 || te == p || te - p > 40)
		return 0;
	*b = p, *e = te;
	return 1;
}

/* "==========LoadModel==========", "----- Loading model -----": a
 * section a program opens for its load, the load begun: a banner whose
 * title's words, CamelCase split, are the load and its object and nothing
 * else; a line that only names the step (a frame, `LoadModel failed`) is
 * no banner. */
int tr_load_banner(const char *s, size_t n)
{
	const char *b, *te;
	if (!banner_title(s, n, &b, &te))
		return 0;
	int load = 0, obj = 0;
	for (const char *p = b; p < te;) {
		while (p < te && !tr_alpha(*p))
			p++;
		const char *w = p++;
		while (p < te && tr_alpha(*p) && !(tr_upper(*p) && !tr_upper(p[-1])))
			p++;
		size_t len = (size_t)(p - w);
		if (!len || w >= te)
			break;
		static const char *const lw[] = {"load", "loading", NULL};
		static const char *const ow[] = {"model", "models", "weights", "checkpoint", NULL};
		if (word_is(w, len, lw))
			load = 1;
		else if (word_is(w, len, ow))
			obj = 1;
		else
			return 0;
	}
	return load && obj;
}

/* The model is up at @l, seen from the work it does after its load (a
 * step's banner, an answer turn): the start's ready and its end there. */
static void ready_at(struct tr_start *st, struct tr_line *l)
{
	int e = tr_evid(st, l);
	tr_touch(st, l);
	st->ev_gen_ready = e;
	st->ev_end = e;
	st->progress_open = 0;
	tr_stage_raise(st, TR_ST_READY);
}

/* "==========Process==========" after the load's end, in a program that
 * opened its load with such a banner: it opens the section of its next
 * step, the work the model does, so the model was up (as a chat program's
 * answer turn after the load is). Only a title in words (no date, no
 * count), not the load's own banner, and only right after the load
 * ended: a banner before or during the load is a setting's or a step's of
 * it, and one in a log that marks no load with banners says nothing. */
static int section_after_load(struct lsc_triage *t, struct tr_line *l)
{
	struct tr_start *st = t->cur && t->cur->src == l->src ? t->cur : NULL;
	const char *b, *e;
	if (!st || st->stage != TR_ST_LOADED || !st->load_banner || tr_start_failed(st) || st->in_traceback ||
	    !banner_title(l->s, l->len, &b, &e) || tr_load_banner(l->s, l->len))
		return 0;
	for (const char *p = b; p < e; p++)
		if (!tr_alpha(*p) && *p != ' ')
			return 0;
	ready_at(st, l);
	return 1;
}

int tr_recognise_generic(struct lsc_triage *t, struct tr_line *l)
{
	/* each part only for the lines that hold one of its words (the
	 * prefilter's groups): most lines that get here hold one kind */
	uint64_t k = l->kw;
	int r = 0;
	cur_line.orig = l->s;
	cur_line.buf = t->scratch; /* free here: the lsc recogniser is done with this line */
	cur_line.low = NULL;
	cur_line.n = l->len;
	cur_line.ready = -2;
	r = generic_line(t, l, k);
	cur_line.orig = cur_line.low = NULL;
	return r;
}

/* "failed to allocate 1012.00 MiB of pinned memory: REASON", "unable to
 * register page-locked host memory": a page-locked allocation or
 * registration refused, in any engine's words (an allocation word, the
 * memory's kind and a failure read by meaning), with its size when the
 * line gives one. A warning, not the start's end: engines go on with
 * pageable memory (pinned-alloc-failed says which, when the log shows it). */
static int pinned_refused(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len;
	size_t n = l->len;
	static const char *const alloc[] = {"allocate", "alloc", "allocation", "register", "registration", "pin", NULL};
	const char *k = ci(s, n, "pinned memory");
	if (!k)
		k = ci(s, n, "pinned host memory");
	if (!k)
		k = ci(s, n, "page-locked");
	if (!k || !any_word(s, n, alloc) || !tr_says_failed(s, n) || tr_hedged(s, (size_t)(k - s)))
		return 0;
	int e;
	struct tr_start *st = take(t, l, &e);
	if (!st)
		return 0;
	if (st->ev_pinned_fail < 0) {
		st->ev_pinned_fail = e;
		for (const char *p = s; p < end; p++) {
			double g;
			const char *q = p;
			if (tr_digit(*p) && (p == s || !(tr_digit(p[-1]) || p[-1] == '.')) && tr_size_gib(&q, end, &g) &&
			    g >= 1.0 / 1024 && g < 1e6) {
				tr_setnum(&st->pinned_fail_gib, g, e);
				break;
			}
		}
	}
	tr_stage_raise(st, TR_ST_LOADING);
	return 1;
}

/* "GPU[0]    : (Topology) Numa Node: 0", "GPU[1] : VRAM Total Memory (B):
 * 68702699520": a device's property as a GPU management tool lists it
 * (rocm-smi, in every one of its reports): the machine, pasted as a
 * setting, as nvidia-smi's table head is. */
static int device_property(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len, *p = s + 4;
	if (tr_device_table_head(s, l->len) || tr_env_report_line(s, l->len))
		goto setting; /* "GPU  Temp   AvgPwr  SCLK ...": the head of the devices' table */
	if (l->len < 8 || memcmp(s, "GPU[", 4) || !tr_digit(*p))
		return 0;
	while (p < end && tr_digit(*p))
		p++;
	if (p >= end || *p != ']')
		return 0;
	p = tr_skip_ws(p + 1, end);
	if (p >= end || *p != ':' || !memchr(p + 1, ':', (size_t)(end - p - 1)))
		return 0;
setting:;
	int e;
	struct tr_start *st = take(t, l, &e);
	if (!st)
		return 0;
	st->nsettings++;
	return 1;
}

/* "Loading model... [37m 36s elapsed]": a launcher's counter of the start
 * under way (not done, not failed) is its time so far, the largest kept;
 * 1 when it was one. */
static int elapsed_so_far(struct tr_start *st, struct tr_line *l)
{
	double v;
	if (st->done || st->stage >= TR_ST_READY || tr_start_failed(st) || !tr_elapsed_counter(l->s, l->len, &v))
		return 0;
	int e = tr_evid(st, l);
	tr_touch(st, l);
	if (!tr_has(&st->still_max_s) || v > st->still_max_s.v)
		tr_setnum(&st->still_max_s, v, e);
	return 1;
}

/* A load under way line by line: a tensor loaded, a part loaded by its
 * number, a share of the model loaded (load_progress.c). The last such line of a paste leaves the
 * start loading; the shares with their clocks give the load's rate. */
static int load_progress(struct lsc_triage *t, struct tr_line *l)
{
	double frac = NAN;
	int tensor = !tr_percent_loaded(l->s, l->len, &frac) && !tr_parts_counted(l->s, l->len, &frac) &&
		     (tr_tensor_loading(l->s, l->len) || tr_part_loaded(l->s, l->len));
	int file = !tensor && isnan(frac) && tr_model_file_opened(l->s, l->len);
	if (!tensor && isnan(frac) && !file)
		return 0;
	int e;
	struct tr_start *st = take(t, l, &e);
	if (!st)
		return 0;
	/* another model file opened after one part's summary ("Loaded 310
	 * tensors, 1136.5 MB into backend", then "x.gguf: 678 tensors"): the
	 * load goes on, not over (a start up or failed stays so) */
	if (file && st->stage == TR_ST_LOADED && st->ev_gen_ready < 0 && !tr_start_failed(st)) {
		st->done = 0;
		st->stage = TR_ST_LOADING;
		return 1;
	}
	if (st->done || st->stage >= TR_ST_LOADED)
		return 1;
	if (file) {
		tr_stage_raise(st, TR_ST_LOADING);
		return 1;
	}
	tr_stage_raise(st, TR_ST_LOADING);
	st->progress_open = tensor || frac < 1;
	if (!tensor)
		tr_progress_at(st, l, frac);
	return 1;
}

/* The prompt a Windows console's `pause` prints when the launcher's
 * script reaches its end ("Press any key to continue . . .", in the
 * console's language), glued where the process left its last line (a
 * progress bar mid-way): the process is gone. */
static int pause_prompt(const char *s, size_t n)
{
	/* the prompt ends the line with its dots (". . .", "...") */
	while (n && s[n - 1] == ' ')
		n--;
	if (n < 8 || s[n - 1] != '.' || (s[n - 2] != '.' && s[n - 2] != ' '))
		return 0;
	static const char *const w[] = {"any key to continue", "\xe4\xbb\xbb\xe6\x84\x8f\xe9\x94\xae\xe7\xbb\xa7\xe7\xbb\xad" /* 任意键继续 */,
					"beliebige taste", "une touche pour continuer", "cualquier tecla",
					"\xe3\x82\xad\xe3\x83\xbc\xe3\x82\x92\xe6\x8a\xbc\xe3\x81\x97\xe3\x81\xa6" /* キーを押して */};
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (ci(s, n, w[i]))
			return 1;
	return 0;
}

/* The console paused after the process ended: what the line holds before
 * the prompt is read first (the bar it is glued to); then, before ready,
 * the start ended without coming up (an exit), after ready it is only
 * the window waiting to close. */
static int console_paused(struct lsc_triage *t, struct tr_line *l, uint64_t k)
{
	if (k & (TR_G_GFIGS | TR_G_GREADY))
		(void)figures(t, l);
	if (!t->cur || t->cur->src != l->src)
		return 0; /* no start under way: a script's end, nothing of a start */
	return tr_process_ended(t, l, TR_ST_BEGAN) >= 0;
}

int tr_process_ended(struct lsc_triage *t, struct tr_line *l, enum tr_stage from)
{
	struct tr_start *c = t->cur && t->cur->src == l->src ? t->cur : NULL;
	if (!c)
		return -1;
	if ((c->done && (c->stage >= TR_ST_READY || c->ev_gen_ready >= 0)) || c->stage < from || tr_start_failed(c) ||
	    c->in_traceback)
		return 0;
	int e;
	struct tr_start *st = take(t, l, &e);
	if (!st)
		return -1;
	st->done = 0;
	st->progress_open = 0;
	if (st->ev_exit < 0)
		st->ev_exit = e;
	return 1;
}

/* "model_service: request: model_spec {", "response: {"status": 200}": a
 * request or a response a running server dumps as it serves; where no
 * start is under way, an app at work (outcome none), as a served
 * request's failure is. Under way, not the start's. */
static int request_dump(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len, *k = NULL;
	/* the prefilter's words, in the case a dump writes them, before the case-blind search */
	if (tr_memmem(s, l->len, "equest: ") || tr_memmem(s, l->len, "EQUEST: "))
		k = ci(s, l->len, "request: ");
	if (!k && (tr_memmem(s, l->len, "esponse: ") || tr_memmem(s, l->len, "ESPONSE: ")))
		k = ci(s, l->len, "response: ");
	if (!k || (k > s && tr_isword(k[-1])))
		return 0;
	const char *v = tr_skip_ws(memchr(k, ':', (size_t)(end - k)) + 1, end), *e = end;
	while (e > v && e[-1] == ' ')
		e--;
	/* the dump opens a structure: "{" first or last ("model_spec {") */
	if (e == v || !(*v == '{' || e[-1] == '{'))
		return 0;
	if (t->cur && t->cur->src == l->src && !served_only(t->cur))
		return 0;
	int en;
	struct tr_start *st = take(t, l, &en);
	if (!st)
		return 0;
	st->nserved++;
	return 1;
}

/* "### Response: ..." after the model loaded: a chat program answers its
 * user's turn, so the model is up (the start completed at that line) and
 * what fails inside the answer is the app's work, not the start's. Only
 * after the load's end: a turn with no load before it says nothing of one. */
static int chat_answer(struct lsc_triage *t, struct tr_line *l)
{
	struct tr_start *st = t->cur && t->cur->src == l->src ? t->cur : NULL;
	if (!st || st->stage != TR_ST_LOADED || tr_start_failed(st) || st->in_traceback ||
	    !tr_chat_answer(l->s, l->len))
		return 0;
	ready_at(st, l);
	return 1;
}

/* "PythonInterpreterModule shutting down", "Shutting down the server": the
 * process ends in its own words. Before ready (a start under way that
 * neither completed nor failed) it is an exit before the model came up;
 * not when a signal or the user asked for it (SIGTERM, Ctrl-C: the line
 * or the start's last recognised line says so), nor a setting's name
 * ("graceful_shutdown"), nor a plan ("will shut down"). */
static int shuts_down(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s;
	size_t n = l->len;
	if (!tr_memmem(s, n, "hut") && !tr_memmem(s, n, "HUT"))
		return 0; /* most lines of the group are a traceback's */
	static const char *const asked[] = {"signal", "sigterm", "sigint", "interrupt", "keyboardinterrupt", "ctrl",
					    "received", "requested", "will", "would", "before", "after", "timeout", NULL};
	const char *k = word(s, n, "shutting down");
	if (!k)
		k = word(s, n, "shutdown");
	if (!k)
		k = word(s, n, "shut down");
	struct tr_start *st = t->cur && t->cur->src == l->src ? t->cur : NULL;
	if (!k || (k > s && (k[-1] == '_' || k[-1] == '-')) || !st || st->done || st->stage < TR_ST_BEGAN ||
	    st->stage >= TR_ST_READY || tr_start_failed(st) || st->in_traceback || any_word(s, n, asked))
		return 0;
	const char *last = st->lastev.text;
	if (tr_memmem_ci(last, strlen(last), "interrupt") || tr_memmem(last, strlen(last), "^C") ||
	    tr_memmem_ci(last, strlen(last), "signal"))
		return 0;
	int e = tr_evid(st, l);
	tr_touch(st, l);
	st->ev_exit = e;
	return 1;
}

/* "Loaded engine size: 15323 MiB", "Allocated 1504.00 MiB for ...": an
 * amount of memory brought in opens a start under way where none is (a
 * paste that begins after the engine's first lines); within a start it
 * adds nothing the start's own lines do not say. */
static int memory_brought(struct lsc_triage *t, struct tr_line *l)
{
	if ((t->cur && t->cur->src == l->src) || !tr_memory_brought(l->s, l->len))
		return 0;
	int e;
	struct tr_start *st = take(t, l, &e);
	if (!st)
		return 0;
	tr_stage_raise(st, TR_ST_LOADING);
	return 1;
}

/* "Model llama3 loaded.", "Successfully loaded model x": the load ended
 * (the weights are in), as the load's end in words is. */
static int model_loaded(struct lsc_triage *t, struct tr_line *l)
{
	/* or with its extent, an image UI's manager putting it on the device
	 * (`loaded partially 9617.49 9617.35 0`: load_summary.c) */
	if (!tr_model_loaded_words(l->s, l->len) && !tr_loaded_extent(l->s, l->len))
		return 0;
	int e;
	struct tr_start *st = take(t, l, &e);
	if (!st)
		return 0;
	if (st->stage < TR_ST_BEGAN)
		st->stage = TR_ST_BEGAN;
	if (st->ev_error < 0 && st->ev_gen_fail < 0) {
		st->progress_open = 0;
		tr_stage_raise(st, TR_ST_LOADED);
	}
	return 1;
}

/* "Started server process [4803]" after the start was up: another
 * process coming up, a second start (begun; its own ready completes it). */
static int process_after_ready(struct lsc_triage *t, struct tr_line *l)
{
	struct tr_start *c = t->cur && t->cur->src == l->src ? t->cur : NULL;
	if (!c || !(c->stage >= TR_ST_READY || c->ev_gen_ready >= 0) || tr_start_failed(c) ||
	    !tr_process_started(l->s, l->len))
		return 0;
	struct tr_start *st = tr_fresh_if(t, l, 1, NULL);
	if (!st)
		return 0;
	tr_evid(st, l);
	tr_touch(st, l);
	tr_stage_raise(st, TR_ST_BEGAN);
	return 1;
}

/* "Load over", "Model loading done.", "Weights load finished": the load,
 * then a word that it ended as the line's last: the load's end in words.
 * Not the load over something ("Load over NFS": the end word is not last),
 * nor a line of more than the load and its object before the words. */
static int load_then_over(const char *s, size_t n)
{
	static const char *const end_w[] = {"over", "done", "finished", "ended", NULL};
	static const char *const load_w[] = {"load", "loading", NULL};
	static const char *const obj[] = {"model", "weights", "checkpoint", NULL};
	while (n && (s[n - 1] == ' ' || s[n - 1] == '.' || s[n - 1] == '!'))
		n--;
	const char *w[3];
	size_t wl[3], k = 0;
	size_t i = n;
	while (k < 3 && i > 0) {
		size_t e = i;
		while (i > 0 && tr_alpha(s[i - 1]))
			i--;
		if (i == e)
			return 0;
		w[k] = s + i, wl[k++] = e - i;
		if (i > 0 && s[i - 1] != ' ')
			return 0;
		while (i > 0 && s[i - 1] == ' ')
			i--;
	}
	if (i > 0 || k < 2 || !word_is(w[0], wl[0], end_w) || !word_is(w[1], wl[1], load_w))
		return 0;
	return k == 2 || word_is(w[2], wl[2], obj);
}

/* The load's end in words ("load weight end", "weights loaded"), not its
 * negation ("closed before the server finished loading"); its progress in
 * words ("model load progress 0.42"), or "still loading"; 1 used. */
static int load_end_words(struct lsc_triage *t, struct tr_line *l)
{
	const char *pg;
	/* "Finish loading": the bare verb some engines print for the past. A
	 * warmup done ("Model warm-up complete", "Completed warmup for voice
	 * x") ran the model: its weights are in, as after a load summary; so
	 * did a speech model's first decode, its language detected
	 * (whisper.cpp's `auto-detected language: de`, openai-whisper's and
	 * faster-whisper's `Detected language: English`) */
	static const char *const ends[] = {"load weight end", "weights loaded", "loading complete", "load complete",
					   "finished loading", "finish loading", "done loading", "loaded the model",
					   "warmup complete", "warm-up complete", "warmup finished", "warm-up finished",
					   "warmup done", "warm-up done", "completed warmup", "finished warmup",
					   "detected language:"};
	/* a wait for the end or a plan of it is no end: "waiting for it to finish loading" */
	static const char *const notyet[] = {"before", "until", "not", "never", "to", "will", "waiting", "wait", NULL};
	int said = load_then_over(l->s, l->len);
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]) + (size_t)said; i++)
		if ((pg = i < sizeof(ends) / sizeof(ends[0]) ? ci(l->s, l->len, ends[i]) : l->s) &&
		    !ready_words(l->s, l->len) && !any_word(l->s, (size_t)(pg - l->s), notyet)) {
			int e;
			struct tr_start *st = take(t, l, &e);
			if (!st)
				return 0;
			if (st->stage < TR_ST_BEGAN) {
				tr_opened_at_load_end(st, l);
				st->stage = TR_ST_BEGAN;
			}
			st->progress_open = 0;
			tr_stage_raise(st, TR_ST_LOADED);
			return 1;
		}
	/* "model load progress 0.42", "loading ... 45%": under way */
	pg = ci(l->s, l->len, "load progress");
	if (pg) {
		const char *p = pg + 13, *end = l->s + l->len;
		while (p < end && (*p == ' ' || *p == '=' || *p == ':'))
			p++;
		double v;
		if (p < end && tr_digit(*p) && tr_num(&p, end, &v)) {
			int e;
			struct tr_start *st = take(t, l, &e);
			if (!st)
				return 0;
			tr_stage_raise(st, TR_ST_LOADING);
			int pct = p < end && *p == '%';
			st->progress_open = !pct ? v < 1.0 : v < 100.0;
			tr_progress_at(st, l, pct ? v / 100 : v);
			return 1;
		}
	}
	/* "still loading", a percentage under way (not a guess: "the model
	 * may still be loading") */
	if (ci(l->s, l->len, "still loading") && !tr_hedged(l->s, l->len) && t->cur && t->cur->src == l->src &&
	    !t->cur->done && !t->cur->waited_out) {
		int e;
		struct tr_start *st = take(t, l, &e);
		if (!st)
			return 0;
		tr_stage_raise(st, TR_ST_LOADING);
		st->progress_open = 1;
		return 1;
	}
	return 0;
}

/* A launcher's report of a backend it starts itself (backend_start.c):
 * each backend process one start, under way (`is loading`) or failed,
 * its load with it (the backend is what brings the model up); 1 used. */
static int backend_start(struct lsc_triage *t, struct tr_line *l)
{
	int said = tr_backend_start_said(l->s, l->len);
	if (!said)
		return 0;
	struct tr_start *c = t->cur && t->cur->src == l->src ? t->cur : NULL;
	/* another backend process once the one before began; a failure
	 * ends the one under way, or is a start of its own after an end */
	int have = said == TR_BK_LOADING ? c && c->stage >= TR_ST_BEGAN : c && (tr_start_failed(c) || c->done);
	struct tr_start *st = tr_fresh_if(t, l, have, NULL);
	if (!st)
		return 0;
	int e = tr_evid(st, l);
	tr_touch(st, l);
	st->gen_load_began = 1;
	if (said == TR_BK_LOADING) {
		tr_stage_raise(st, TR_ST_LOADING);
		return 1;
	}
	if (st->stage < TR_ST_BEGAN)
		st->stage = TR_ST_BEGAN;
	st->done = 0;
	st->ev_gen_fail_last = e;
	if (st->ev_gen_fail < 0)
		st->ev_gen_fail = e;
	return 1;
}

/* "eval time = 7664.05 ms / 127 runs (60.35 ms per token, 16.57 tokens
 * per second)", "eval rate: 41.2 tokens/s": a generation's own figures, the
 * tokens the model made at a measured rate. Only a figure right before the
 * rate's words (not a setting's name, `--max-tokens-per-second`, nor a
 * target in prose with no number of its own). */
static int generation_rate(const char *s, size_t n)
{
	static const char *const rate[] = {"tokens per second", "tokens/s", "token/s", "tokens/sec", "tok/s"};
	for (size_t i = 0; i < sizeof(rate) / sizeof(rate[0]); i++) {
		const char *k = tr_memmem(s, n, rate[i]);
		if (!k)
			continue;
		const char *p = k;
		while (p > s && p[-1] == ' ')
			p--;
		if (p > s && tr_digit(p[-1]) && !(k + strlen(rate[i]) < s + n && tr_alpha(k[strlen(rate[i])])))
			return 1;
	}
	return 0;
}

/* "Generating video ...", "Generating images": the line opens with the
 * pipeline's work on its output (an image, a video, speech), which a
 * model that was not up could not begin. Not a generation of something
 * the load makes ("Generating embeddings cache", a config). A speech
 * model's work on its input says so in one word ("Transcribing...",
 * "🤗 Transcribing audio"), after a CLI's status symbol if any. */
static int output_begun(const char *s, size_t n)
{
	static const char *const out[] = {"video", "videos", "image", "images", "audio", "speech", "sample", "samples",
					  NULL};
	size_t i = 0;
	while (i < n && i < 8 && ((unsigned char)s[i] >= 0x80 || s[i] == ' '))
		i++;
	if (n - i >= 12 && !memcmp(s + i, "Transcribing", 12) && (n - i == 12 || !tr_alpha(s[i + 12])))
		return 1;
	if (n < 12 || memcmp(s, "Generating ", 11))
		return 0;
	const char *p = s + 11, *b = p, *end = s + n;
	while (p < end && tr_isword(*p))
		p++;
	return word_is(b, (size_t)(p - b), out);
}

/* "Processing 92 prompt tokens, may take a while" (rwkv.cpp's chat),
 * "Evaluating 12 prompt tokens": the model reading a prompt, the verb in
 * the present or past right before the count; its weights are in, as
 * after a warmup. Not a plan or a count in a sentence ("will process 92
 * prompt tokens", "max 92 prompt tokens"). */
static int prompt_run(const char *s, size_t n)
{
	static const char *const verb[] = {"processing ", "processed ", "evaluating ", "evaluated ", "ingesting "};
	const char *end = s + n;
	if (!tr_memmem_ci(s, n, " prompt token"))
		return 0; /* one search before the five verbs */
	for (size_t i = 0; i < sizeof(verb) / sizeof(verb[0]); i++) {
		const char *k = ci(s, n, verb[i]);
		if (!k || (k > s && k[-1] != ' ' && k[-1] != ']' && k[-1] != ':'))
			continue;
		const char *p = k + strlen(verb[i]), *d = p;
		while (p < end && tr_digit(*p))
			p++;
		if (p > d && end - p >= 13 && !strncasecmp(p, " prompt token", 13))
			return !any_word(s, (size_t)(k - s), (const char *const[]){"will", "to", "not", NULL});
	}
	return 0;
}

/* The model's generation figures after its load began (PowerInfer's
 * `llama_print_timings: eval time = ... tokens per second` under its
 * loader's lines, with a cut between them), its reading of a prompt, or
 * a chat CLI's help waiting for the user's turn: the model made tokens
 * (or waits to), so it was up; the start completed there, as at a chat
 * answer turn. Only for a
 * start of the same source under way (a figure with no start before it is
 * a running server's work), not one that failed or is inside a traceback:
 * the figures belong to the start before them. */
static int generation_after_load(struct lsc_triage *t, struct tr_line *l)
{
	struct tr_start *st = t->cur && t->cur->src == l->src ? t->cur : NULL;
	if (!st || st->stage < TR_ST_BEGAN || st->stage >= TR_ST_READY || st->done || tr_start_failed(st) ||
	    st->in_traceback)
		return 0;
	/* "may take a while" after a prompt's count hedges the time, not the run */
	if (!prompt_run(l->s, l->len) && !tr_repl_help(l->s, l->len) &&
	    (!(generation_rate(l->s, l->len) || output_begun(l->s, l->len)) || tr_hedged(l->s, l->len)))
		return 0;
	ready_at(st, l);
	return 1;
}

/* "Startup time: 7.2s (import torch: 2.0s, ...)", "Startup time: 283.92s
 * { torch=113.44s ... }", "Startup time: total=22.80 checkpoint=9.18 ...":
 * the application states its whole time to come up, with the model's
 * part among its parts, so it is up: the start's ready, with that time.
 * A duration with its unit, or the key `total` with seconds (the line
 * names them time). Not a plan or a
 * setting (`--startup-timeout 300`, `startup time limit: 600`), not a
 * figure with no number. */
static int startup_time(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len;
	/* the prefilter's keys, in the cases a log writes them, before the case-blind search */
	if (!tr_memmem(s, l->len, "tartup time") && !tr_memmem(s, l->len, "TARTUP TIME"))
		return 0;
	const char *k = ci(s, l->len, "startup time");
	if (!k || (k > s && tr_alpha(k[-1])))
		return 0;
	const char *p = tr_skip_ws(k + 12, end);
	if (p >= end || (*p != ':' && *p != '='))
		return 0;
	p = tr_skip_ws(p + 1, end);
	double v;
	if (p + 6 < end && !strncasecmp(p, "total=", 6)) {
		p += 6;
		if (!(p < end && tr_digit(*p) && tr_num(&p, end, &v)) || (p < end && !(*p == ' ' || *p == ',' || *p == 's')))
			return 0;
	} else if (!(p < end && tr_digit(*p) && tr_dur_s(&p, end, &v))) {
		return 0;
	}
	if (!(v >= 0 && v < 1e7))
		return 0;
	/* its parts name the model's (`checkpoint=9.18`, `models=0.12s`):
	 * the startup brought the model up. A startup of the application
	 * alone (`import torch: 2.0s, ..., create ui: 0.7s`: an image UI
	 * that creates its model after it) is not the model up */
	static const char *const part[] = {"checkpoint", "model", "models", "weights", NULL};
	if (!any_word(p, (size_t)(end - p), part))
		return 0;
	struct tr_start *st = t->cur && t->cur->src == l->src ? t->cur : NULL;
	if (st && (st->stage >= TR_ST_READY || tr_start_failed(st)))
		return 0;
	int e;
	if (!(st = take(t, l, &e)))
		return 0;
	if (!tr_has(&st->ready_s))
		tr_setnum(&st->ready_s, v, e);
	ready_at(st, l);
	return 1;
}

/* "sdxl_model_loader        1     0.118s     1.71G": a row of a job's
 * profile (one step per row: its name, its calls, its seconds), the step
 * that loads the model among them (InvokeAI's graph stats after its
 * `Loading model`): that step ran to its end, the model is in. Its time
 * in the profile is not taken as the load's (a loader step may hand back
 * a model already in memory). Only the row's whole shape: a name the
 * loading functions' words make (loading_ident) with the model's, a
 * count, a duration with its unit; after the start's load began. */
static int profile_row_loaded(struct lsc_triage *t, struct tr_line *l)
{
	const char *s = l->s, *end = s + l->len, *p = s;
	while (p < end && (tr_isword(*p) || *p == '_'))
		p++;
	size_t il = (size_t)(p - s);
	if (il < 6 || p >= end || *p != ' ')
		return 0;
	/* the row's shape first (most lines with the key are no row), then its name */
	p = tr_skip_ws(p, end);
	const char *c = p;
	while (p < end && tr_digit(*p))
		p++;
	if (p == c || p >= end || *p != ' ')
		return 0;
	p = tr_skip_ws(p, end);
	double v;
	if (!(p < end && tr_digit(*p) && tr_dur_s(&p, end, &v)) || (p < end && *p != ' '))
		return 0;
	if (!loading_ident(s, il) || !(tr_memmem_ci(s, il, "model") || tr_memmem_ci(s, il, "checkpoint")))
		return 0;
	struct tr_start *st = t->cur && t->cur->src == l->src ? t->cur : NULL;
	if (!st || st->stage < TR_ST_BEGAN || st->stage >= TR_ST_LOADED || st->done || tr_start_failed(st) ||
	    st->in_traceback)
		return 0;
	int e;
	if (!(st = take(t, l, &e)))
		return 0;
	tr_stage_raise(st, TR_ST_LOADED);
	return 1;
}

/* "Initial Models: N/A", "Model config: N/A", "default_models: none": a
 * server's setting, printed as it starts, saying it starts with no model
 * (TorchServe's banner without --models): the key names the models it
 * starts with, the value is none. What comes up then holds no model:
 * the start under way, or one begun after it in this input, is none
 * (verdict.c) until a load begins. Not a model's own setting that is
 * empty (`model_path: N/A`, a path), nor a count (`models: 0` is a
 * number the key did not promise). */
static int no_model_setting(struct lsc_triage *t, struct tr_line *l)
{
	static const char *const key[] = {"initial models", "model config", "default model", "default models",
					  "default_models", "models to load", "load models", "models"};
	static const char *const none[] = {"n/a", "none", "null", "[]", "{}"};
	const char *s = l->s, *end = s + l->len;
	const char *c = memchr(s, ':', l->len);
	if (!c || c == s)
		return 0;
	const char *kb = tr_skip_ws(s, c), *ke = c;
	while (ke > kb && ke[-1] == ' ')
		ke--;
	int k = 0;
	for (size_t i = 0; i < sizeof(key) / sizeof(key[0]) && !k; i++)
		k = (size_t)(ke - kb) == strlen(key[i]) && !strncasecmp(kb, key[i], strlen(key[i]));
	if (!k)
		return 0;
	const char *v = tr_skip_ws(c + 1, end), *ve = end;
	while (ve > v && (ve[-1] == ' ' || ve[-1] == '\r'))
		ve--;
	int no = 0;
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]) && !no; i++)
		no = (size_t)(ve - v) == strlen(none[i]) && !strncasecmp(v, none[i], strlen(none[i]));
	if (!no)
		return 0;
	t->no_model_no = l->no;
	t->no_model_src = l->src;
	struct tr_start *st = t->cur && t->cur->src == l->src ? t->cur : NULL;
	if (st && st->stage < TR_ST_LOADING && !st->gen_load_began)
		st->no_model = 1;
	return 1;
}

static int generic_line(struct lsc_triage *t, struct tr_line *l, uint64_t k)
{
	if ((k & TR_G_GENERIC) && no_model_setting(t, l))
		return 1;
	if (((k & TR_G_GPIN) && pinned_refused(t, l)) || ((k & TR_G_GENERIC) && device_property(t, l)) ||
	    ((k & TR_G_GENERIC) && (request_dump(t, l) || chat_answer(t, l) || generation_after_load(t, l))))
		return 1;
	if ((k & (TR_G_GENERIC | TR_G_GLOADW)) && backend_start(t, l))
		return 1;
	if ((k & TR_G_GFATAL) && pause_prompt(l->s, l->len))
		return console_paused(t, l, k);
	if ((k & TR_G_GFATAL) && shuts_down(t, l))
		return 1;
	if ((k & (TR_G_GENERIC | TR_G_GFATAL)) || l->level >= TR_LV_ERROR || (t->cur && t->cur->in_traceback) ||
	    t->tb_orphan_no || t->tb_late_no) {
		if (failure(t, l, level_of(l)))
			return 1;
	}
	if ((k & (TR_G_GFIGS | TR_G_GREADY | TR_G_LOADED)) && figures(t, l))
		return 1;
	if ((k & (TR_G_GFIG | TR_G_LOADED)) && load_progress(t, l))
		return 1;
	if ((k & TR_G_GREADY) && (ready(t, l) || startup_time(t, l)))
		return 1;
	if ((k & TR_G_GREADY) && waiting(t, l))
		return 1;
	if ((k & TR_G_GWAY) && under_way(t, l))
		return 1;
	if ((k & (TR_G_LOADED | TR_G_IK)) && memory_brought(t, l))
		return 1;
	if ((k & TR_G_GREADY) && process_after_ready(t, l))
		return 1;
	if ((k & TR_G_LOADED) && (model_loaded(t, l) || profile_row_loaded(t, l)))
		return 1;
	/* "loading model /m", "Loading weights from ...": the load began; after
	 * a failure of the start under way (not inside its traceback) it is a
	 * retry, a new start: a launcher that tries its backends in turn
	 * ("[llama-cpp] Fails: ...", then "[llama-ggml] Attempting to load") */
	if ((k & TR_G_GFIG) && !(k & TR_G_GBEGIN) && t->cur && t->cur->src == l->src && elapsed_so_far(t->cur, l))
		return 1;
	if (t->cur && t->cur->load_banner && section_after_load(t, l))
		return 1;
	/* "Unloading model...": the model let go, no load begun (after a
	 * failure, not a retry) */
	if ((((k & TR_G_GBEGIN) &&
	      !(ci(l->s, l->len, "unload") && !word(l->s, l->len, "loading") && !word(l->s, l->len, "load"))) ||
	     ((k & TR_G_GLOADW) && (tr_loading_model_named(l->s, l->len) || tr_load_banner(l->s, l->len) ||
				    model_init_begun(l->s, l->len)))) &&
	    !(k & TR_G_GEND)) {
		struct tr_start *c = t->cur && t->cur->src == l->src ? t->cur : NULL;
		/* not after a failure that quotes the failed process's output:
		 * that load is the one that failed; nor the very line that
		 * began the failed load, again (the same app trying the same
		 * file once more, "Loading face swapper model from: X" after
		 * "Error loading face swapper model": no new process) */
		uint32_t h = line_hash(l->s, l->len);
		if (c)
			load_begun_after_ready(c, l);
		int retry = c && tr_start_failed(c) && c->gen_load_began && c->load_line_hash == h;
		struct tr_start *st =
			tr_fresh_if(t, l, c && !c->in_traceback && !c->quotes_output && tr_start_failed(c) && !retry, NULL);
		if (!st)
			return 0;
		tr_evid(st, l);
		tr_touch(st, l);
		if (!st->gen_load_began)
			st->load_line_hash = h;
		st->load_retried |= retry;
		st->gen_load_began = 1;
		st->load_banner |= tr_load_banner(l->s, l->len);
		/* not a start marker (ev_begin): a paste cut after it is not
		 * log-truncated, only not evaluated; and only begun, so that the
		 * engine's own first loader line after it does not split it */
		tr_stage_raise(st, TR_ST_BEGAN);
		if (k & TR_G_GFIG)
			(void)elapsed_so_far(st, l);
		/* "Loading model ... done": begun and ended on one line */
		if (tr_load_said_done(l->s, l->len) && st->ev_error < 0 && st->ev_gen_fail < 0) {
			st->progress_open = 0;
			tr_stage_raise(st, TR_ST_LOADED);
		}
		return 1;
	}
	return (k & TR_G_GEND) && load_end_words(t, l);
}

