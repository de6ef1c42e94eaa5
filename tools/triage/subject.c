/*
 * What a ready or failure word is about: its subject. A line says the
 * model, the server or what serves it is up (or failed to start); a Ray
 * cluster, a tokenizer or a container that is up says nothing of the
 * start; and one part of the server (a shard, a worker, a rank, a
 * replica) that is ready is a step of the load, not the server up: the
 * router or the API server still has to start after it, and can fail.
 *
 * Subjects are read as words, also inside the names code gives its parts:
 * snake_case (`load_model`) and CamelCase (`EngineCore`, `ModelRunner`,
 * `WorkerProc`, `HTTPServer`) are split where a word ends, so an engine
 * no shape names is read by the same words (`EngineCore failed to start`
 * is the engine's failure). Pure predicates over one cleaned line, called
 * only on the lines that hold a ready or failure word.
 */
#include <string.h>
#include <strings.h>

#include "internal.h"

/* Does a word end before @s[i] inside a run of letters: a capital after a
 * lower-case letter (EngineCore), or the last capital of a run before a
 * lower-case letter (HTTPServer)? */
static int camel_cut(const char *s, size_t n, size_t i)
{
	if (!tr_upper(s[i]) || !tr_alpha(s[i - 1]))
		return 0;
	if (!tr_upper(s[i - 1]))
		return 1;
	return i + 1 < n && tr_alpha(s[i + 1]) && !tr_upper(s[i + 1]);
}

enum { SUBJ_OTHER = 1, SUBJ_WHOLE = 2, SUBJ_PART = 4 };

/* Is the word @w[0..len) (as the line writes it) one of @set? */
static int in_set(const char *w, size_t len, const char *const *set)
{
	unsigned char c0 = tr_lower((unsigned char)w[0]);
	for (const char *const *x = set; *x; x++) {
		if ((unsigned char)(*x)[0] != c0 || strlen(*x) != len)
			continue;
		size_t j = 1;
		while (j < len && tr_lower((unsigned char)w[j]) == (unsigned char)(*x)[j])
			j++;
		if (j == len)
			return 1;
	}
	return 0;
}

/* something other than the model ("Model files are ready.": the files
 * are on disk, the model is not up) */
static const char *const other[] = {"ray", "cluster", "dashboard", "tokenizer", "container", "download",
				    "node", "gcs", "raylet", "pod", "files", NULL};
/* the whole of what serves the model, or the model */
static const char *const whole[] = {"model", "server", "runner", "engine", "application", "api", "service",
				    "endpoint", "http", "uvicorn", "weights", "backend", "serving", "requests",
				    "inference", "webserver", NULL};
/* one part of it */
static const char *const part[] = {"shard", "worker", "rank", "replica", NULL};

/* Which subjects @s[0..n) names, in one pass over its words: words are
 * parted by any byte that is not a letter or a digit, and inside a run of
 * them where camel_cut says one ends. */
static int subjects(const char *s, size_t n)
{
	int got = 0;
	size_t i = 0;
	while (i < n) {
		while (i < n && !(tr_alpha(s[i]) || tr_digit(s[i])))
			i++;
		if (i >= n)
			break;
		size_t b = i++;
		while (i < n && (tr_alpha(s[i]) || tr_digit(s[i])) && !camel_cut(s, n, i))
			i++;
		size_t len = i - b;
		if (len < 3 || len > 11)
			continue; /* no subject is shorter or longer */
		if (!(got & SUBJ_OTHER) && in_set(s + b, len, other))
			got |= SUBJ_OTHER;
		else if (!(got & SUBJ_WHOLE) && in_set(s + b, len, whole))
			got |= SUBJ_WHOLE;
		else if (!(got & SUBJ_PART) && in_set(s + b, len, part))
			got |= SUBJ_PART;
	}
	return got;
}

int tr_ready_about_other(const char *s, size_t n)
{
	return (subjects(s, n) & SUBJ_OTHER) != 0;
}

/* What holds the model or its files and is not it: a workspace, a cache,
 * a directory ready is the place prepared, not the model up. */
static const char *const holder[] = {"workspace", "cache", "directory", "dir", "folder", "repository", "repo",
				     "environment", "venv", "volume", "storage", "mount", NULL};

/* Is the word right before the ready word (over "is", "are", "now" and
 * the like: "Model workspace is now ready") a holder? The subject is the
 * noun that ends the phrase before its verb, whatever names it ("model"). */
static int holder_ready(const char *s, size_t n)
{
	static const char *const verb[] = {"is", "are", "was", "were", "now", "all", "already", "been", "has",
					   "have", NULL};
	for (const char *r = tr_memmem_ci(s, n, "ready"); r; r = tr_memmem_ci(r + 5, (size_t)(s + n - r - 5), "ready")) {
		size_t i = (size_t)(r - s);
		if ((i && tr_alpha(s[i - 1])) || (i + 5 < n && tr_alpha(s[i + 5])))
			continue;
		size_t e = i;
		for (int w = 0; w < 4; w++) {
			while (e > 0 && s[e - 1] == ' ')
				e--;
			size_t b = e;
			while (b > 0 && tr_alpha(s[b - 1]))
				b--;
			if (b == e)
				break;
			if (!in_set(s + b, e - b, verb))
				return in_set(s + b, e - b, holder);
			e = b;
		}
	}
	return 0;
}

int tr_ready_subject(const char *s, size_t n)
{
	int g = subjects(s, n);
	return !(g & SUBJ_OTHER) && (g & (SUBJ_WHOLE | SUBJ_PART));
}

int tr_ready_holder(const char *s, size_t n)
{
	return holder_ready(s, n);
}

int tr_ready_part_only(const char *s, size_t n)
{
	return (subjects(s, n) & (SUBJ_PART | SUBJ_WHOLE)) == SUBJ_PART;
}

int tr_whole_started(const char *s, size_t n)
{
	/* "Engine started.", "gRPC server started": the line's last word,
	 * after a whole subject (a part or something else started is not the
	 * server up) */
	while (n && (s[n - 1] == '.' || s[n - 1] == '!' || s[n - 1] == ' '))
		n--;
	if (n < 9 || strncasecmp(s + n - 7, "started", 7) || s[n - 8] != ' ')
		return 0;
	size_t e = n - 8, b = e;
	while (b > 0 && (tr_alpha(s[b - 1]) || tr_digit(s[b - 1])))
		b--;
	return e > b && in_set(s + b, e - b, whole);
}

int tr_started_named_in(const char *s, size_t n, double *secs)
{
	/* "Started DemoApplication in 2.345 seconds (process running for
	 * 2.7)": the verb opens the line, one to three words name what
	 * started, then its time; not "Started server process [28960]" */
	const char *end = s + n, *p = s + 8;
	if (n < 14 || memcmp(s, "Started ", 8))
		return 0;
	for (int w = 0; w < 3; w++) {
		const char *b = p;
		while (p < end && (tr_isword(*p) || *p == '_' || *p == '.' || *p == '-'))
			p++;
		if (p == b || p >= end || *p != ' ')
			return 0;
		p++;
		if (end - p > 3 && !memcmp(p, "in ", 3)) {
			p += 3;
			double v;
			if (p < end && tr_digit(*p) && tr_dur_s(&p, end, &v) && v >= 0 && v < 1e7) {
				*secs = v;
				return 1;
			}
			return 0;
		}
	}
	return 0;
}

/* What a load of can fail and the start go on: a credential, which only
 * gated downloads need (`Could not load token at "~/.cache/huggingface/
 * token"`). Not a tokenizer, a config or the model, which a start needs. */
static const char *const optional[] = {"token", "credentials", "credential", NULL};

/* What a program says it does instead of what failed: the failure handled,
 * the start goes on (`, using no HF token`, `falling back to CPU`). */
static const char *const instead[] = {", using ",     "falling back", "fall back to", "continuing without",
				      "proceeding without", ", skipping", "skipping it", ", ignoring", "defaulting to",
				      "using default", "will be skipped", "will use ",    NULL};

int tr_failure_gone_past(const char *s, size_t n, const char *k)
{
	const char *end = s + n;
	/* the object: the word after the verb `load` (over `the`, `a`, `your`) */
	const char *o = k;
	while (o < end && !(tr_lower((unsigned char)*o) == 'l' && o + 4 <= end && !strncasecmp(o, "load", 4)))
		o++;
	while (o < end && tr_alpha(*o))
		o++;
	for (int w = 0; w < 3; w++) {
		o = tr_skip_ws(o, end);
		const char *b = o;
		while (o < end && tr_alpha(*o))
			o++;
		if (o == b)
			break;
		static const char *const art[] = {"the", "a", "an", "your", "hf", "huggingface", NULL};
		if (in_set(b, (size_t)(o - b), optional))
			return 1;
		if (!in_set(b, (size_t)(o - b), art))
			break;
	}
	/* the same sentence says what it does instead */
	const char *se = k;
	while (se < end && !(*se == '.' && (se + 1 == end || se[1] == ' ')))
		se++;
	/* one pass: a phrase is tried only where a word (or its comma) opens
	 * with its first byte */
	for (const char *q = k; q < se; q++) {
		unsigned char c = tr_lower((unsigned char)*q);
		if (c != ',' && (!memchr("fcpswdui", c, 8) || (q > s && tr_alpha(q[-1]))))
			continue;
		for (const char *const *x = instead; *x; x++) {
			size_t xl = strlen(*x);
			if ((unsigned char)(*x)[0] == c && (size_t)(se - q) >= xl && !strncasecmp(q, *x, xl))
				return 1;
		}
	}
	return 0;
}

/* The protocols a process serves on: their ready is the endpoint's. */
static const char *const transport[] = {"grpc", "rpc", "http", "https", "websocket", "socket", "tcp", NULL};
static const char *const of_model[] = {"model", "models", "weights", "checkpoint", "llm", NULL};

int tr_ready_transport_only(const char *s, size_t n)
{
	int tr = 0;
	size_t i = 0;
	while (i < n) {
		while (i < n && !tr_alpha(s[i]))
			i++;
		size_t b = i;
		while (i < n && tr_alpha(s[i]) && !(i > b && camel_cut(s, n, i)))
			i++;
		if (i == b)
			break;
		if (in_set(s + b, i - b, of_model))
			return 0;
		if (!tr && in_set(s + b, i - b, transport))
			tr = 1;
	}
	return tr;
}

/* The queries of a server's state, and the words of a prober that gave
 * up on it or ran out of its time (tr_probe_said, tr_probe_not_up). */
static const char *const probe_words[] = {"server status", "health check", "healthcheck", "readiness probe",
					  "liveness probe", "startup probe", "get status", "status check"};
static const char *const gave_words[] = {"giving up", "gave up", "exiting", "aborting", "shutting down", "timed out"};

static int probe_named(const char *s, size_t n)
{
	int p = 0;
	for (size_t i = 0; i < sizeof(probe_words) / sizeof(probe_words[0]) && !p; i++)
		p = tr_memmem_ci(s, n, probe_words[i]) != NULL;
	for (size_t i = 0; p && i < sizeof(gave_words) / sizeof(gave_words[0]); i++)
		if (tr_memmem_ci(s, n, gave_words[i]))
			return 0;
	return p;
}

int tr_probe_said(const char *s, size_t n)
{
	return probe_named(s, n);
}

/* A probe of a server's readiness that found it not up yet: a status or
 * health query (`unable to get server status: ... Connection refused`,
 * `Readiness probe failed: ... connect: connection refused`, `health check
 * failed: 503`) refused or unanswered, or failed with no reason said.
 * What probes a server while it comes up is waiting on it, not failing
 * it: the server's own start goes on (Riva's model registry polling
 * Triton while Triton loads). Not a probe that gave up (`giving up`,
 * `exiting`: the prober's end, read as such) or ran out of its time
 * (`health check ... timed out after 20 seconds`: a launcher's deadline,
 * its end of the start), nor a connection to anything else refused
 * (LocalAI's `failed starting/connecting to the gRPC service`: a backend
 * it started). */
int tr_probe_not_up(const char *s, size_t n)
{
	static const char *const not_up[] = {"connection refused", "failed to connect", "unavailable", "503",
					     "not ready"};
	if (!probe_named(s, n))
		return 0;
	for (size_t i = 0; i < sizeof(not_up) / sizeof(not_up[0]); i++)
		if (tr_memmem_ci(s, n, not_up[i]))
			return 1;
	/* or it failed with no reason after it (`unable to get server status:
	 * failed`, `health check failed`) */
	size_t m = n;
	while (m > 0 && (s[m - 1] == ' ' || s[m - 1] == '.' || s[m - 1] == ':'))
		m--;
	return m >= 7 && !strncasecmp(s + m - 6, "failed", 6) && !tr_alpha(s[m - 7]);
}
