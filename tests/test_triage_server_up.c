/*
 * A server up at its address with no model in it (tools/triage/
 * server_up.c): `Uvicorn running on http://...` after the server's own
 * log lines, none of which named a model, is the serving process up, not
 * a start (outcome none). The near misses stay starts: the line pasted
 * alone, a paste that named its model before the line (a load's result,
 * `max_model_len`), a server whose app startup brings the model up
 * (`Waiting for application startup.`), a ready line that names its
 * model; and a line that is no server's address is not read here.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

static const struct {
	const char *line;
	int up_only;
} cases[] = {
	{"Uvicorn running on http://127.0.0.1:9997 (Press CTRL+C to quit)", 1},
	{"Listening on 127.0.0.1:11434 (version 0.1.17)", 1},
	{"Serving model llama3 on http://0.0.0.0:8000", 0},      /* names its model */
	{"Model server ready at http://0.0.0.0:8000", 0},
	{"Uvicorn running on http://0.0.0.0:8000/models/ready", 1}, /* a path, no word of a model */
	{"Application startup complete.", 0},                      /* no address */
};

Test(triage_server_up, a_server_at_its_address_naming_no_model)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(tr_server_up_only(cases[i].line, strlen(cases[i].line)), cases[i].up_only, "%s",
			     cases[i].line);
}

static void expect_outcome(const char *log, const char *outcome)
{
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0, "no start in:\n%s", log);
	cr_expect_str_eq(si.outcome, outcome, "outcome of:\n%s", log);
	lsc_triage_free(t);
}

Test(triage_server_up, a_server_with_no_model_is_no_start)
{
	const char *sup = "2023-11-21 13:52:57,022 xinference.core.supervisor 50309 INFO     Xinference supervisor "
			  "127.0.0.1:23432 started\n"
			  "2023-11-21 13:52:58,896 xinference.api.restful_api 50292 INFO     Starting Xinference at "
			  "endpoint: http://127.0.0.1:9997\n";
	char log[2048];
	snprintf(log, sizeof(log), "%s2023-11-21 13:52:58,945 uvicorn.error 50292 INFO     Uvicorn running on "
				   "http://127.0.0.1:9997 (Press CTRL+C to quit)\n", sup);
	expect_outcome(log, "none");
	/* the model named before it: the server that loaded it is up */
	expect_outcome("Load Model OK: True\nUvicorn running on http://0.0.0.0:5001\n", "completed");
	expect_outcome("INFO Pipeline config { max_model_len: 262144 }\nServer started at http://0.0.0.0:7650.\n",
		       "completed");
	/* the app's startup (which brings the model up) shown: a start */
	expect_outcome("INFO:     Waiting for application startup.\nINFO:     Application startup complete.\n"
		       "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)\n",
		       "completed");
	/* the line pasted alone: nothing before it says what it holds */
	expect_outcome("2023-11-21 13:52:58,945 uvicorn.error 50292 INFO     Uvicorn running on "
		       "http://127.0.0.1:9997 (Press CTRL+C to quit)\n",
		       "completed");
	/* a ready line that names its model */
	expect_outcome("Uvicorn running on http://0.0.0.0:8000 serving model llama3\n", "completed");
	expect_outcome("Model llama3 ready, listening on 0.0.0.0:8000\n", "completed");
}

/* The ASGI server's own startup shown (`Waiting for application
 * startup.`, `Application startup complete.`) after the app's log lines,
 * none of which named a model, then the address: the startup loaded
 * nothing (issue 23's thirteenth round: TabbyAPI started with no model
 * configured, then answered `/v1/model/list`). A model named in the
 * startup, or only the startup's lines before the address, stay a start. */
Test(triage_server_up, an_app_startup_that_named_no_model)
{
	const char *app = "INFO:     ExllamaV2 version: 0.2.4\n"
			  "INFO:     Generation logging is disabled\n"
			  "INFO:     Started server process [1]\n";
	const char *up = "INFO:     Waiting for application startup.\nINFO:     Application startup complete.\n"
			 "INFO:     Uvicorn running on http://0.0.0.0:5000 (Press CTRL+C to quit)\n";
	char log[2048];
	snprintf(log, sizeof(log), "%s%s", app, up);
	expect_outcome(log, "none");
	snprintf(log, sizeof(log), "%sINFO:     Waiting for application startup.\nINFO:     Loading model: "
				   "/models/Llama-3-8B\nINFO:     Application startup complete.\n"
				   "INFO:     Uvicorn running on http://0.0.0.0:5000 (Press CTRL+C to quit)\n", app);
	expect_outcome(log, "completed");
	expect_outcome(up, "completed");
}

/* issue 23's fourteenth round: gradio names the address before it
 * (`Running on local URL:  http://...`, `Running on public URL: https://...`):
 * an app up at its address (tr_ready_at_address 2), not a bare server
 * process (its models are loaded by the script before launch, not by
 * request later): never a server with no model. The address's name
 * must be a few words of letters naming a URL or an address: `running
 * on local device: cuda:0` and a name with no address after it are no
 * address. */
Test(triage_server_up, an_app_up_at_its_named_address)
{
	static const struct {
		const char *line;
		int at;
	} c[] = {
		{"Running on local URL:  http://0.0.0.0:9872", 2},
		{"* Running on local URL:  http://127.0.0.1:7860", 2},
		{"Running on public URL: https://abc123.gradio.live", 2},
		{"Running on http://127.0.0.1:7860", 1},
		{"Running on local device: cuda:0", 0},
		{"Running on local URL: (none)", 0},
		{"Running on my_local_url: http://0.0.0.0:1", 0}, /* a name of more than letters */
		{"Running on a very long name of the address here: http://0.0.0.0:1", 0},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		cr_expect_eq(tr_ready_at_address(c[i].line, strlen(c[i].line)), c[i].at, "%s", c[i].line);
		cr_expect_eq(tr_server_up_only(c[i].line, strlen(c[i].line)), c[i].at == 1, "%s", c[i].line);
	}
	/* the weights named before it: up with them (GPT-SoVITS) */
	expect_outcome("Loading VITS weights from SoVITS_weights_v2/Aris_e15_s405.pth\n"
		       "Running on local URL:  http://0.0.0.0:9872\n",
		       "completed");
	/* after the app's own log lines naming no model: still an app up, no bare server */
	expect_outcome("2024-01-01 10:00:00,000 INFO Starting app\n2024-01-01 10:00:01,000 INFO Theme loaded\n"
		       "Running on local URL:  http://0.0.0.0:7860\n",
		       "completed");
}
