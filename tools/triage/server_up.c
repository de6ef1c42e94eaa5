/*
 * A server up at its address and nothing else: `Uvicorn running on
 * http://127.0.0.1:9997 (Press CTRL+C to quit)`, `Listening on
 * 127.0.0.1:11434`, with no word of a model on the line. Where the paste
 * shows the server's own log lines before it (a level or a clock) and
 * none of them named a model (triage.c's model_named: a load's lines, a
 * config, `max_model_len`, `Load Model OK` all do), and every line a
 * start was read from is one of these (Xinference's supervisor and its
 * REST API up before any model is launched, `ollama serve` listening
 * before any `run`), what came up is the serving process with no model in
 * it: no start (outcome none), as a running server's requests are none.
 * The ASGI server's own startup lines (`Waiting for application startup.`,
 * `Application startup complete.`) say nothing of a model either: after
 * other log lines none of which named one, they too are the server with
 * no model (TabbyAPI with none configured; issue 23's thirteenth round). A
 * server whose startup loads the model names it (a load word, a figure,
 * `model`) and stays a start, as do the startup's lines alone; so
 * does one whose ready line names its model (`serving model m on :8000`),
 * and a ready line pasted alone, which says nothing of what it holds.
 * A pure predicate over one cleaned line, asked of ready lines only.
 */
#include <string.h>
#include <strings.h>

#include "internal.h"

int tr_server_up_only(const char *s, size_t n)
{
	static const char *const model[] = {"model", "models", "weights", "checkpoint", "gguf", "safetensors",
					    "llm", "loaded", "load", "loading", "ready", NULL};
	/* an app's own launch, not a server process: gradio's `Running on
	 * local URL:` ends a script's startup, the models it loads at import
	 * in before it (GPT-SoVITS, SD.Next); its models are not to come by
	 * request as a model server's are */
	if (tr_ready_at_address(s, n) != 1)
		return 0;
	const char *end = s + n;
	for (const char *p = s; p < end;) {
		while (p < end && !tr_alpha(*p))
			p++;
		const char *b = p;
		while (p < end && tr_alpha(*p))
			p++;
		size_t len = (size_t)(p - b);
		/* a word of the model, not inside an address or a path */
		if (b > s && (b[-1] == '/' || b[-1] == '.' || b[-1] == '-' || b[-1] == '_'))
			continue;
		for (const char *const *w = model; *w; w++)
			if (strlen(*w) == len && !strncasecmp(b, *w, len))
				return 0;
	}
	return 1;
}
