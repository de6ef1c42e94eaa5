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

/* Is one of @set (lower-case words, NULL-terminated) a word of @s[0..n)?
 * Words are parted by any byte that is not a letter or a digit, and
 * inside a run of them where camel_cut says one ends. */
static int has_word(const char *s, size_t n, const char *const *set)
{
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
		for (const char *const *w = set; *w; w++) {
			if ((unsigned char)(*w)[0] != tr_lower((unsigned char)s[b]) || strlen(*w) != len)
				continue;
			size_t j = 1;
			while (j < len && tr_lower((unsigned char)s[b + j]) == (unsigned char)(*w)[j])
				j++;
			if (j == len)
				return 1;
		}
	}
	return 0;
}

int tr_ready_about_other(const char *s, size_t n)
{
	static const char *const other[] = {"ray", "cluster", "dashboard", "tokenizer", "container", "download",
					    "node", "gcs", "raylet", "pod", NULL};
	return has_word(s, n, other);
}

/* the whole of what serves the model, or the model */
static const char *const whole[] = {"model", "server", "runner", "engine", "application", "api", "service",
				    "endpoint", "http", "uvicorn", "weights", "backend", "serving", "requests",
				    "inference", "webserver", NULL};
/* one part of it */
static const char *const part[] = {"shard", "worker", "rank", "replica", NULL};

int tr_ready_subject(const char *s, size_t n)
{
	return !tr_ready_about_other(s, n) && (has_word(s, n, whole) || has_word(s, n, part));
}

int tr_ready_part_only(const char *s, size_t n)
{
	return has_word(s, n, part) && !has_word(s, n, whole);
}
