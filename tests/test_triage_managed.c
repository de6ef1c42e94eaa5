/*
 * A managed runtime's stack trace (tools/triage/managed_trace.c): the
 * JVM's and .NET's print an exception's message first and its frames
 * (`at A.B.Method(...)`) after it, the other way round from Python. The
 * line right above a block's first frame is the start's failure, quoted
 * as its evidence; a frame that calls a loading method makes the failure
 * the load's; `Caused by:` is the block's deeper cause. An exception the
 * runtime reports as uncaught fails the start with no frames. Near
 * misses: a warning's or a debug level (a handled exception logged), a block
 * after the start was up, prose that opens with "at", a message with a
 * line between it and the frames, an application's own words about an
 * unhandled exception.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

static const char *outcome_of(const char *log, unsigned *nstarts)
{
	static char out[16];
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si;
	unsigned n = 0;
	while (lsc_triage_start(t, n, &si) == 0)
		n++;
	if (nstarts)
		*nstarts = n;
	snprintf(out, sizeof out, "%s", n && lsc_triage_start(t, 0, &si) == 0 ? si.outcome : "no start");
	lsc_triage_free(t);
	return out;
}

/* The text output of @log, for what a finding quotes (free it). */
static char *rendered(const char *log)
{
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	size_t on;
	char *o = trun_render(t, LSC_TRIAGE_TEXT, &on);
	cr_assert_not_null(o);
	lsc_triage_free(t);
	return o;
}

static const char *const dotnet = "Loading model file...\n"
				  "The type initializer for 'Microsoft.ML.OnnxRuntime.NativeMethods' threw an exception.\n"
				  "   at Microsoft.ML.OnnxRuntime.SessionOptions..ctor()\n"
				  "   at Microsoft.ML.OnnxRuntime.InferenceSession..ctor(String modelPath)\n"
				  "   at App.Program.Main(String[] args) in C:\\src\\Program.cs:line 28\n";

Test(managed, the_line_above_the_frames_is_the_failure)
{
	unsigned n;
	cr_expect_str_eq(outcome_of(dotnet, &n), "failed");
	cr_expect_eq(n, 1);
	char *o = rendered(dotnet);
	cr_expect(strstr(o, ":2: The type initializer for 'Microsoft.ML.OnnxRuntime.NativeMethods' threw an exception."),
		  "the message is quoted: %s", o);
	cr_expect(!strstr(o, ":3: at "), "a frame is not the failure: %s", o);
	free(o);
	/* without its frames the message is no failure word: the start is cut off */
	cr_expect_str_eq(outcome_of("Loading model file...\n"
				    "The type initializer for 'Microsoft.ML.OnnxRuntime.NativeMethods' threw an exception.\n",
				    NULL),
			 "cut-off");
}

Test(managed, near_misses_leave_the_start_as_it_was)
{
	/* the exception logged at a warning's or a debug level: handled, work goes on */
	cr_expect_str_eq(outcome_of("Loading model file...\n"
				    "WARNING: retrying after IOException: connection reset\n"
				    "   at App.Net.Fetch(String url)\n",
				    NULL),
			 "cut-off");
	cr_expect_str_eq(outcome_of("Loading model file...\n"
				    "DEBUG: cache miss\n"
				    "   at App.Cache.Get(String key)\n",
				    NULL),
			 "cut-off");
	/* at info, as an engine that stamps every line with its level
	 * prints its end: the start's failure */
	cr_expect_str_eq(outcome_of("Loading model file...\n"
				    "INFO: cache miss\n"
				    "   at App.Cache.Get(String key)\n",
				    NULL),
			 "failed");
	/* the start was up before the block: a request's exception */
	cr_expect_str_eq(outcome_of("Loading model file...\n"
				    "Model loaded in 3.2 s\n"
				    "Server ready, listening on http://0.0.0.0:8080\n"
				    "Request failed: timeout\n"
				    "   at App.Handler.Run(Request r)\n",
				    NULL),
			 "completed");
	/* prose that opens with "at", no dotted method before its parenthesis */
	cr_expect_str_eq(outcome_of("Loading model file...\n"
				    "the server went away\n"
				    "at least (three times)\n",
				    NULL),
			 "cut-off");
	/* a blank line between the message and the frames (a double-spaced
	 * paste): the message is still the line above them */
	cr_expect_str_eq(outcome_of("Loading model file...\n"
				    "something odd happened\n"
				    "\n"
				    "   at App.Program.Main(String[] args)\n",
				    NULL),
			 "failed");
	/* no start under way and no load in the message: nothing to fail */
	unsigned n;
	cr_expect_str_eq(outcome_of("Object reference not set to an instance of an object.\n"
				    "   at App.Ui.Paint(Graphics g)\n",
				    &n),
			 "no start");
	cr_expect_eq(n, 0);
	/* ... but a message that speaks of the load opens one, failed */
	cr_expect_str_eq(outcome_of("Failed to load model weights from /m/x.onnx\n"
				    "   at App.Engine.Open(String p)\n",
				    NULL),
			 "failed");
}

/* The JVM's words for an exception nobody caught, and .NET's, fail the
 * start with or without frames; the same words without a type named
 * after them are an application's own and fail nothing. */
Test(managed, an_uncaught_exception_fails_the_start)
{
	static const char *const fails[] = {
		"Exception in thread \"main\" java.lang.UnsatisfiedLinkError: no onnxruntime in java.library.path",
		"Exception in thread \"main\" java.lang.OutOfMemoryError",
		"Unhandled exception. System.DllNotFoundException: Unable to load DLL 'onnxruntime'",
		"Unhandled Exception: System.IO.FileNotFoundException: model.onnx",
	};
	static const char *const not_fails[] = {
		"Exception in thread \"main\" happened",
		"Unhandled exception in request handler",
		"unhandled exceptions: 0",
		"Exception in thread \"main\" java.lang.Thread.run",
	};
	char log[512];
	for (size_t i = 0; i < sizeof fails / sizeof fails[0]; i++) {
		snprintf(log, sizeof log, "Loading model file...\n%s\n", fails[i]);
		cr_expect_str_eq(outcome_of(log, NULL), "failed", "%s", fails[i]);
	}
	for (size_t i = 0; i < sizeof not_fails / sizeof not_fails[0]; i++) {
		snprintf(log, sizeof log, "Loading model file...\n%s\n", not_fails[i]);
		cr_expect_str_eq(outcome_of(log, NULL), "cut-off", "%s", not_fails[i]);
	}
}

/* A frame that calls a loading method makes a failure the load's
 * (load-failed) where nothing before it loaded; `Caused by:` is quoted
 * as the block's deeper cause. */
Test(managed, a_loading_frame_and_the_deeper_cause)
{
	const char *log = "$ java -jar server.jar\n"
			  "Exception in thread \"main\" java.lang.IllegalStateException: bad state\n"
			  "\tat com.example.Engine.loadModel(Engine.java:42)\n"
			  "\tat com.example.Main.main(Main.java:7)\n"
			  "Caused by: java.io.FileNotFoundException: /models/m.onnx (No such file or directory)\n"
			  "\tat java.io.FileInputStream.open0(Native Method)\n"
			  "\t... 2 more\n";
	cr_expect_str_eq(outcome_of(log, NULL), "failed");
	char *o = rendered(log);
	cr_expect(strstr(o, "load-failed"), "a loading frame: load-failed: %s", o);
	cr_expect(strstr(o, ":5: Caused by: java.io.FileNotFoundException"), "the deeper cause quoted: %s", o);
	free(o);
	/* the same block with no loading frame: the start failed, not its load */
	const char *plain = "$ java -jar server.jar\n"
			    "Exception in thread \"main\" java.lang.IllegalStateException: bad state\n"
			    "\tat com.example.Engine.run(Engine.java:42)\n"
			    "\tat com.example.Main.main(Main.java:7)\n";
	cr_expect_str_eq(outcome_of(plain, NULL), "failed");
	o = rendered(plain);
	cr_expect(!strstr(o, "load-failed"), "no loading frame: %s", o);
	cr_expect(strstr(o, "start-failed"), "no loading frame: %s", o);
	free(o);
}

/* The predicate alone: a frame's shapes, and prose that is none. */
Test(managed, frames_by_their_shape)
{
	static const char *const yes[] = {
		"at A.B..ctor()",
		"at java.lang.ClassLoader.loadLibrary(ClassLoader.java:1860)",
		"at ai.mlc.AppViewModel$ChatState.$r8$lambda$JJ(Unknown Source:0)",
		"at App.Program.Main(String[] args) in C:\\src\\Program.cs:line 28",
	};
	static const char *const no[] = {
		"at 12:30 (UTC) the server stopped", "at least (three times)", "at Main(String[] args)",
		"at A.B.C", "at A.B.C(unclosed", "at .B(x)", "that A.B(x)",
	};
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		cr_expect(tr_managed_frame(yes[i], strlen(yes[i])), "%s", yes[i]);
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		cr_expect(!tr_managed_frame(no[i], strlen(no[i])), "%s", no[i]);
}
