/*
 * A start begun in words no vocabulary knows. Each engine's shapes and the
 * shared vocabulary open a start on the lines they know (a banner, a load
 * verb with its object, a launch command); an engine none of them knows
 * (a new server, a TTS or ASR runtime, a plugin) leaves its whole log
 * without a start, and the verdict is "nothing recognisable" where the
 * paste plainly shows a program bringing a model up (`create_tensor:
 * loading tensor blk.15`, `Injecting model.layers.48 ...`, `Failed to
 * create LLM 'llama' from ...`). So, in an input where no start has begun,
 * a program's own line (a level, a clock, or a logger's `name:` before
 * it, not prose) that names the model's parts (the model, its weights,
 * tensors, layers, a checkpoint or shard, a model file's extension) is
 * taken as a start begun; what follows is read as any start's lines are
 * (a failure fails it, a ready line completes it, nothing more cuts it
 * off). Not a begin: a request's line (`GET /v1/models`), a line that
 * says there is no model (`Initial Models: N/A`, `no model loaded`), a
 * line that lists or reports (a table's row, a settings dump's `key =
 * value`).
 */
#include <string.h>

#include "internal.h"

/* Does @s open with a logger's name and a colon (`create_tensor: `,
 * `llama_new_context_with_model: `, `VoskAPI:`): an identifier of at
 * least four bytes, then ':' and a space or the end. */
static int logger_name(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && i < 48 && (tr_alpha(s[i]) || tr_digit(s[i]) || s[i] == '_' || s[i] == '.'))
		i++;
	return i >= 4 && i < n && s[i] == ':' && (i + 1 == n || s[i + 1] == ' ');
}

/* The model's parts, named in a program's line: whole words or parts of
 * identifiers (`model.layers`, `load_model`, `llama_model_loader`). */
static int names_model_parts(const char *s, size_t n)
{
	static const char *const part[] = {"model", "weights", "tensor", "checkpoint", "shard", ".gguf",
					   ".safetensors", ".onnx", NULL};
	for (const char *const *p = part; *p; p++)
		if (tr_memmem_ci(s, n, *p))
			return 1;
	return 0;
}

/* A line that says no model is here, or serves requests, or lists. */
static int not_a_begin(const char *s, size_t n)
{
	static const char *const no[] = {"GET /", "POST /", "HTTP/1", "n/a", "no model", "none loaded", "not loaded",
					 "unloaded", "unload", " = ", "|", NULL};
	for (const char *const *p = no; *p; p++)
		if (tr_memmem_ci(s, n, *p))
			return 1;
	return 0;
}

int tr_fallback_begins(const struct tr_line *l)
{
	if (l->len < 12 || l->len > 1024)
		return 0;
	/* a failure line is the failure's to read (a traceback's, an
	 * error's), which opens a start of its own when it names the load */
	if (l->level >= TR_LV_ERROR || tr_memmem_ci(l->s, l->len, "error") || tr_memmem_ci(l->s, l->len, "fail") ||
	    tr_memmem_ci(l->s, l->len, "exception"))
		return 0;
	int program = l->level != TR_LV_NONE || !isnan(l->ts) || logger_name(l->s, l->len);
	return program && names_model_parts(l->s, l->len) && !not_a_begin(l->s, l->len);
}
