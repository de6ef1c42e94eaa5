/*
 * A program's parsed arguments printed whole, naming its model: a Rust
 * launcher's `Args { model_id: "/data/Baichuan-13B-Base", revision: None,
 * ... }` (clap's Debug), Python's `Namespace(model='m', port=8000)` or a
 * dataclass's `ServerArgs(model_path='m', ...)`, or its argument vector
 * as a list (`args=['--model', 'm', ...]`). A launcher prints them as
 * it begins bringing that model up, before any word of the load: a start
 * begun (cut off when the paste ends there), as its launch command is.
 *
 * Only a model key with a value (`model`, `model_id`, `model_path`,
 * `model_name`, `model_name_or_path`, `model_dir`; not `None`, not empty)
 * inside the dump's own brackets; not a dump that names no model (`Args {
 * port: 80 }`, `Namespace(host='0.0.0.0')`), not a key of another thing
 * (`draft_model_id`, `tokenizer_model`), not a model key alone in prose
 * or a config file (`model_id: x` with no dump around it). A pure predicate
 * over one cleaned line.
 */
#include <string.h>
#include <strings.h>

#include "internal.h"

/* Is the key @k[0..n) one that names the model the program brings up? */
static int model_key(const char *k, size_t n)
{
	static const char *const keys[] = {"model", "model_id", "model_path", "model_name", "model_name_or_path",
					   "model_dir", NULL};
	for (const char *const *x = keys; *x; x++)
		if (strlen(*x) == n && !memcmp(k, *x, n))
			return 1;
	return 0;
}

/* The dump's opening at @s: "Args {", "Args(", "Namespace(" (the name may
 * end in Args: ServerArgs, EngineArgs); where its fields begin, or NULL. */
static const char *dump_open(const char *s, const char *end)
{
	static const char *const open[] = {"Args {", "Args(", "Namespace("};
	for (size_t i = 0; i < sizeof(open) / sizeof(open[0]); i++) {
		const char *k = tr_memmem(s, (size_t)(end - s), open[i]);
		if (k)
			return k + strlen(open[i]);
	}
	return NULL;
}

/* An argument vector printed as a list of quoted words (`Running
 * VllmWorker with args=['--model', '/root/.cache/.../Llama-3.3-70B',
 * '--block-size', '64']`, dynamo; Python's repr of sys.argv): the flag of
 * a model key (`--model`, `--model-path`, model_key's keys with `-` for
 * `_`) as one quoted word of a list the line opened (after its "[" or a
 * ", "), its value the next word, not empty. */
static int argv_names_model(const char *s, const char *end)
{
	const char *open = memchr(s, '[', (size_t)(end - s));
	/* each "--" inside the list: k[-1] is after the "[", so k[-2] and
	 * (after a space, not the "[") k[-3] are in the line */
	for (const char *k = open; k && (k = tr_memmem(k, (size_t)(end - k), "--")) != NULL; k++) {
		if (k[-1] != '\'' && k[-1] != '"')
			continue;
		const char q = k[-1], *f = k + 2;
		const char *c = memchr(f, q, (size_t)(end - f));
		if (!c || !(k[-2] == '[' || (k[-2] == ' ' && k[-3] == ',')))
			continue;
		char key[32];
		size_t kl = (size_t)(c - f);
		if (kl >= sizeof(key))
			continue;
		for (size_t i = 0; i < kl; i++)
			key[i] = f[i] == '-' ? '_' : f[i];
		/* the list's next word: ", 'value'" */
		const char *v = c + 1;
		if (!model_key(key, kl) || end - v < 4 || v[0] != ',' || v[1] != ' ' || v[2] != q || v[3] == q)
			continue;
		return 1;
	}
	return 0;
}

int tr_args_name_model(const char *s, size_t n)
{
	const char *end = s + n, *p = dump_open(s, end);
	if (!p)
		return argv_names_model(s, end);
	while (p < end) {
		/* a key: letters and '_' at a field's start */
		while (p < end && !(tr_alpha(*p) || *p == '_'))
			p++;
		const char *k = p;
		while (p < end && (tr_alpha(*p) || tr_digit(*p) || *p == '_'))
			p++;
		size_t kl = (size_t)(p - k);
		const char *v = p;
		while (v < end && *v == ' ')
			v++;
		int sep = v < end && (*v == ':' || *v == '=');
		/* a key is a field's first word: after the opening, ", " or "(" */
		const char *b = k;
		while (b > s && b[-1] == ' ')
			b--;
		int field = b > s && (b[-1] == ',' || b[-1] == '{' || b[-1] == '(');
		if (sep) {
			const char *val = tr_skip_ws(v + 1, end), *w = val;
			while (w < end && (*w == '"' || *w == '\''))
				w++;
			if (field && model_key(k, kl) && w < end && *w != ',' && *w != ')' && *w != '}' && *w != '"' &&
			    *w != '\'' && !(end - w >= 4 && !memcmp(w, "None", 4) && (w + 4 == end || !tr_alpha(w[4]))))
				return 1;
			/* past the value: a quoted one may hold ", " */
			p = val;
			if (p < end && (*p == '"' || *p == '\'')) {
				const char *q = memchr(p + 1, *p, (size_t)(end - p - 1));
				p = q ? q + 1 : end;
			}
		}
		while (p < end && *p != ',')
			p++;
	}
	return 0;
}
