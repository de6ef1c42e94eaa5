/*
 * A program's parsed arguments printed whole, naming its model
 * (tools/triage/args_dump.c): clap's `Args { model_id: "m", ... }`,
 * argparse's `Namespace(model='m', ...)`, a dataclass's `ServerArgs(
 * model_path='m')`. Each line is read on its own; the near misses name no
 * model (another key, a key of another thing, `None`, an empty value) or
 * are no dump (a model key in prose or a config file). Then a paste: the
 * dump alone is a start begun and cut off, not failed, not completed.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

static const struct {
	const char *line;
	int found;
} cases[] = {
	{"text_generation_launcher: Args { model_id: \"/data/Baichuan-13B-Base\", revision: None, num_shard: None }", 1},
	{"args: Namespace(host='0.0.0.0', port=8000, model='facebook/opt-125m', dtype='auto')", 1},
	{"server_args=ServerArgs(model_path='Qwen/Qwen2-7B', tokenizer_path='Qwen/Qwen2-7B')", 1},
	{"Args { revision: Some(\"main, v2\"), model_id: \"bigscience/bloom\" }", 1},
	{"Args { model_id: None, port: 80 }", 0},                      /* no model named */
	{"Args { port: 80, hostname: \"0.0.0.0\" }", 0},
	{"Namespace(host='0.0.0.0', draft_model_id='x')", 0},           /* a key of another thing */
	{"Namespace(tokenizer_model='t', model='')", 0},                /* an empty value */
	{"model_id: bigscience/bloom", 0},                              /* a key alone: no dump */
	{"the Args { model_id } struct is printed at start", 0},
	{"Args { note: \"model_id: x\" }", 0},                          /* the key inside a value */
	/* issue 23's twenty-first round: an argument vector as a list of
	 * quoted words (dynamo's `Running VllmWorker with args=[...]`) */
	{"Running VllmWorker with args=['--model', '/root/.cache/Llama-3.3-70B', '--block-size', '64']", 1},
	{"argv: [\"serve.py\", \"--model-path\", \"Qwen/Qwen2-7B\"]", 1},
	{"Running VllmWorker with args=['--block-size', '64', '--model', '']", 0}, /* an empty value */
	{"Running VllmWorker with args=['--model-revision', 'main']", 0},           /* another flag */
	{"Running VllmWorker with args=['--model']", 0},                            /* no value after it */
	{"pass '--model', 'm' to the server", 0},                                    /* no list */
	{"args=[x'--model', 'm']", 0},                                                /* not a word of the list */
	{"args=['--port', '8000', '--model-name', 'qwen']", 1},                      /* model_key's keys, - for _ */
	{"args=[\"--model_dir\", \"/m\"]", 1},
	{"[x] pass '--model', 'm' to it", 0},                                        /* no ", " before the flag */
	{"args=['--model-revision-x', 'm']", 0},
};

Test(triage_args_dump, a_dump_that_names_the_model)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(tr_args_name_model(cases[i].line, strlen(cases[i].line)), cases[i].found, "%s",
			     cases[i].line);
}

Test(triage_args_dump, the_dump_alone_is_a_start_begun_and_cut_off)
{
	struct lsc_triage *t = trun_text("text_generation_launcher: Args { model_id: \"/data/m\", revision: None }\n"
					 "text_generation_launcher: trust_remote_code is set.\n");
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.outcome, "cut-off");
	cr_expect(lsc_triage_start(t, 1, &si) != 0, "one start");
	lsc_triage_free(t);
	/* a dump that names no model opens nothing */
	t = trun_text("text_generation_launcher: Args { port: 80 }\n");
	cr_assert(t);
	cr_expect(lsc_triage_start(t, 0, &si) != 0, "no start");
	lsc_triage_free(t);
}
