/*
 * A shell's prompt and the command after it (tools/triage/shell_prompt.c):
 * the shapes people paste (`user@host:~$`, `(env) root@node1:~#`, `$`, `%`,
 * zsh's arrow, `C:\dir>`, `PS C:\dir>`), a command that runs a program as
 * the beginning of a start, and two runs parted by a prompt as two starts.
 * Near misses: a command that only inspects the machine (its output is a
 * setting of the start it describes), a program asked only its version,
 * prose with a dollar in it, an e-mail address.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

static const char *cmd_of(const char *line)
{
	return tr_prompt_command(line, strlen(line));
}

Test(prompt, shapes)
{
	static const struct { const char *line, *cmd; } ok[] = {
		{"user@host:~/llama.cpp$ ./llama-server -m m.gguf", "./llama-server -m m.gguf"},
		{"(openvino) root@node1:~# ovms --rest_port 8000", "ovms --rest_port 8000"},
		{"$ python serve.py --port 8000", "python serve.py --port 8000"},
		{"% mlx_lm.server --model m", "mlx_lm.server --model m"},
		{"\xe2\x9e\x9c  tinygrad git:(271110bb5) \xe2\x9c\x97 PYTHONPATH=. python examples/sdv2.py --timing",
		 "PYTHONPATH=. python examples/sdv2.py --timing"},
		{"(env_ov) c:\\AIGC\\openvino\\llm_bench\\python>python benchmark.py -d GPU", "python benchmark.py -d GPU"},
		{"PS C:\\Users\\me> ollama run llama3", "ollama run llama3"},
		{"\xe2\x9e\x9c  app git:(main) python serve.py", "python serve.py"},
		/* the space before the dirty mark lost in the paste */
		{"\xe2\x9e\x9c  app git:(main)\xe2\x9c\x97 python serve.py", "python serve.py"},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		const char *c = cmd_of(ok[i].line);
		cr_assert(c, "no prompt in: %s", ok[i].line);
		cr_expect_str_eq(c, ok[i].cmd);
	}
	static const char *const no[] = {"it costs $ 5 a month", "mail me at user@host.org: thanks", "$ ",
					 "% Total    % Received % Xferd  Average Speed", "$ Loading the model is slow",
					 "C:\\env\\lib\\transformer_2d.py:34: FutureWarning: x -> y",
					 "INFO 10-16 15:39:01 [loader.py:12] loading", "(a) b c", "user@host:~ $ ls",
					 /* a prompt that ends in its branch: no command after it */
					 "\xe2\x9e\x9c  app git:(main)", "\xe2\x9e\x9c  app git:(main) "};
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_expect_null(cmd_of(no[i]), "a prompt in: %s", no[i]);
}

Test(prompt, launches_or_looks)
{
	static const char *const runs[] = {"./llama-server -m m.gguf", "PYTHONPATH=. python x.py", "sudo -E ovms --port 1",
					   "kubectl logs -f pod-1", "docker run --gpus all img", "numactl --membind=0 python x.py"};
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		cr_expect(tr_command_launches(runs[i], runs[i] + strlen(runs[i])), "no launch: %s", runs[i]);
	static const char *const looks[] = {"cat /sys/kernel/mm/transparent_hugepage/enabled", "sysctl vm.nr_hugepages",
					    "nvidia-smi", "ollama --version", "docker ps -a", "sudo sh -c \"echo 3 > /proc/sys/vm/drop_caches\"",
					    "loadscope probe --size 1G", "python", "free -g"};
	for (size_t i = 0; i < sizeof(looks) / sizeof(looks[0]); i++)
		cr_expect(!tr_command_launches(looks[i], looks[i] + strlen(looks[i])), "a launch: %s", looks[i]);
}


static unsigned nstarts(const char *log, const char **out0)
{
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	unsigned n = 0;
	struct lsc_triage_start_info si;
	static char o0[32];
	while (lsc_triage_start(t, n, &si) == 0) {
		if (!n)
			snprintf(o0, sizeof o0, "%s", si.outcome);
		n++;
	}
	if (out0)
		*out0 = n ? o0 : "";
	lsc_triage_free(t);
	return n;
}

/* A launch begins a start (cut off if nothing follows); a second launch
 * after a start that began is a second start; settings pasted by an
 * inspecting command before the launch stay with it (one start). */
Test(prompt, a_launch_begins_a_start)
{
	const char *o;
	cr_expect_eq(nstarts("$ ./llama-server -m m.gguf --port 8080\n", &o), 1);
	cr_expect_str_eq(o, "cut-off");
	cr_expect_eq(nstarts("$ ./server -m a.gguf\nloading model /a\n$ ./server -m b.gguf\nloading model /b\n", NULL), 2);
	cr_expect_eq(nstarts("$ cat /sys/kernel/mm/transparent_hugepage/enabled\nalways [madvise] never\n"
			     "$ ./server -m a.gguf\nModel loaded in 3.0 s\n", &o), 1);
	cr_expect_str_eq(o, "completed");
	cr_expect_eq(nstarts("$ cat /sys/kernel/mm/transparent_hugepage/enabled\nalways [madvise] never\n", &o), 1);
	cr_expect_str_eq(o, "none");
	cr_expect_eq(nstarts("$ ollama --version\nollama version is 0.1.32\n", NULL), 0);
}

/* A log viewer's command with no prompt before it ("kubectl logs -f pod",
 * pasted as the line above the log it shows) begins the start that log
 * is; a cluster tool's other commands, or the words in a sentence, do not. */
Test(prompt, log_viewer_command_begins_a_start)
{
	cr_expect_str_eq(cmd_of("kubectl logs -f llama3-8b-predictor-00001"), "kubectl logs -f llama3-8b-predictor-00001");
	cr_expect_str_eq(cmd_of("journalctl -u ollama --no-pager"), "journalctl -u ollama --no-pager");
	cr_expect_null(cmd_of("kubectl get pods -A"));
	cr_expect_null(cmd_of("the kubectl logs show nothing"));
	const char *o;
	cr_expect_eq(nstarts("kubectl logs -f llama3-8b-predictor-00001\nNIM Version 1.0.0\n", &o), 1);
	cr_expect_str_eq(o, "cut-off");
	cr_expect_eq(nstarts("kubectl get pods -A\nNAME READY STATUS\n", NULL), 0);
}

/* A program asked for the environment it sees (`--env`) describes itself,
 * and a container tool that opens a shell in the container (`oc exec -it
 * pod -- bash`) runs nothing yet: the command typed in that shell is the
 * run. Near misses: the same program with its model, the same exec with a
 * server after `--`, a docker run of a server image. */
Test(prompt, a_shell_in_a_container_and_the_env_are_no_run)
{
	static const char *const looks[] = {"text-generation-launcher --env", "oc exec -it tgi-596cc -- bash",
					    "kubectl exec -it pod-1 -- /bin/sh", "docker run -it --gpus all img bash",
					    "docker exec -it c1 zsh"};
	for (size_t i = 0; i < sizeof(looks) / sizeof(looks[0]); i++)
		cr_expect(!tr_command_launches(looks[i], looks[i] + strlen(looks[i])), "a launch: %s", looks[i]);
	static const char *const runs[] = {"text-generation-launcher --model-id m --env",
					   "oc exec -it tgi-596cc -- text-generation-launcher --model-id m",
					   "docker run --gpus all img --model m", "kubectl exec pod-1 -- bash -c ./serve.sh"};
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		cr_expect(tr_command_launches(runs[i], runs[i] + strlen(runs[i])), "no launch: %s", runs[i]);
	/* the shell, then the environment dumped: no start under way, what the
	 * dump shows is the machine (outcome none) */
	cr_expect_eq(nstarts("[u@client ~]$ oc exec -it tgi-596cc -- bash\n"
			     "root@tgi-596cc:/usr/src# text-generation-launcher --env\n"
			     "Target: x86_64-unknown-linux-gnu\n",
			     NULL),
		     0);
}

/* The prompt alone, nothing typed after it: the shell is back. */
Test(prompt, alone)
{
	static const char *const yes[] = {"PS D:\\ChatGLM3\\composite_demo>", "user@host:~/llama.cpp$",
					  "(env) root@node1:~# ", "C:\\AIGC>", "$", "% ", "(venv) $"};
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		cr_expect(tr_prompt_alone(yes[i], strlen(yes[i])), "not a prompt alone: %s", yes[i]);
	static const char *const no[] = {"PS D:\\dir> python x.py", "user@host:~$ ls", "a > b", "price: 5$",
					 "C:\\x\\file.py:34: FutureWarning>", "Loading checkpoint shards:   0%| | 0/7",
					 "#", "$$", "5%", ">"};
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_expect(!tr_prompt_alone(no[i], strlen(no[i])), "a prompt alone: %s", no[i]);
}

static const char *outcome_of(const char *log)
{
	static char out[32];
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si;
	snprintf(out, sizeof out, "%s", lsc_triage_start(t, 0, &si) == 0 ? si.outcome : "no start");
	lsc_triage_free(t);
	return out;
}

/* The shell back while the load was under way: the program ended before
 * it came up (failed); near misses: the same prompt after the weights
 * loaded (a script that loaded, worked and exited), after a Ctrl-C (a
 * stop), and with no load before it (nothing began). */
Test(prompt, back_during_the_load_is_an_exit)
{
	cr_expect_str_eq(outcome_of("Loading checkpoint shards:   0%|          | 0/7 [00:00<?, ?it/s]\n"
				    "PS D:\\ChatGLM3\\composite_demo>\n"),
			 "failed");
	cr_expect_str_eq(outcome_of("Loading checkpoint shards:   0%|          | 0/7 [00:00<?, ?it/s]\n"
				    "user@host:~$ python other.py\n"),
			 "failed");
	cr_expect_str_eq(outcome_of("Loading checkpoint shards: 100%|##########| 7/7 [00:05<00:00, 1.4it/s]\n"
				    "PS D:\\ChatGLM3\\composite_demo>\n"),
			 "completed");
	cr_expect_str_eq(outcome_of("Loading checkpoint shards:   0%|          | 0/7 [00:00<?, ?it/s]\n"
				    "^C\nuser@host:~$\n"),
			 "loading"); /* stopped by the user: as the bar left it, not failed */
	cr_expect_str_eq(outcome_of("user@host:~$\nSetting eos_token is not supported, use the default one.\n"),
			 "no start");
}

/* The bare prompt (`$`, `%`) back after the program said anything of its
 * own is its exit before ready, even before a bar or a load figure (the
 * loader's first lines); near misses: the prompt with the next command at
 * that stage (another terminal's, perhaps), the prompt right after the
 * command with nothing of the program's (a detached container returns),
 * a `#` alone (a Markdown heading), and after the load summary. */
Test(prompt, bare_prompt_back_after_the_programs_own_words)
{
	const char *began = "user@host:~$ ./llama-server -m m.gguf\n"
			    "main: loading model\n"
			    "srv    load_model: loading model 'm.gguf'\n";
	char log[512];
	snprintf(log, sizeof log, "%s$\n", began);
	cr_expect_str_eq(outcome_of(log), "failed");
	snprintf(log, sizeof log, "%s%%\n", began);
	cr_expect_str_eq(outcome_of(log), "failed");
	snprintf(log, sizeof log, "%s$ python other.py --model m\n", began);
	cr_expect_str_neq(outcome_of(log), "failed");
	snprintf(log, sizeof log, "%s#\n", began);
	cr_expect_str_neq(outcome_of(log), "failed");
	cr_expect_str_eq(outcome_of("$ docker run -d --gpus all vllm/vllm-openai --model m\n3f2a9c\n$\n"), "cut-off");
	cr_expect_str_eq(outcome_of("main: loading model\nModel loaded in 5.0 s\n$\n"), "completed");
}

/* issue 23's tenth round: a Python script or module run pasted as a line
 * of its own, with no prompt before it (a thread's "same thing if I run it
 * through the CLI"), is a command that runs a program: a second traceback
 * after it is a second start; an installer run, prose that opens with the
 * word, and the interpreter alone are none */
Test(prompt, a_script_run_with_no_prompt)
{
	static const char *const runs[] = {"python phi3-qa.py -m Phi-3-mini/cuda -l 2048", "python3 serve.py",
					   "python3 -m vllm.entrypoints.openai.api_server --model m"};
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		const char *c = cmd_of(runs[i]);
		cr_expect(c && !strcmp(c, runs[i]), "no command in: %s", runs[i]);
	}
	static const char *const no[] = {"python -m pip install onnxruntime-genai", "python is slow here",
					 "pythonic code", "python", "python3 -m venv .venv"};
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_expect_null(cmd_of(no[i]), "a command in: %s", no[i]);
	const char *tb = "Traceback (most recent call last):\n"
			 "  File \"x.py\", line 5, in <module>\n"
			 "    model = og.Model(name)\n"
			 "OrtException: Load model from m.onnx failed:Protobuf parsing failed.\n";
	char log[1024];
	snprintf(log, sizeof(log), "%spython phi3-qa.py -m m -l 2048\n%s", tb, tb);
	cr_expect_eq(nstarts(log, NULL), 2, "the script run again: a second start");
	snprintf(log, sizeof(log), "%spython is what it runs under\n%s", tb, tb);
	cr_expect_eq(nstarts(log, NULL), 1, "prose between the two: one failure said twice");
}

/* issue 23's eleventh round: zsh's default prompt (`~ % ollama run x`,
 * `user@Mac ~ % cmd`, a leading space a paste left) and sh's `/srv $ cmd`;
 * two runs parted by it are two starts. A lone failure said in a sentence
 * before the first command (an issue's title) and a command quoted in
 * the description with no prompt are the reporter's account of the run
 * that follows, no start of their own. */
Test(prompt, zsh_default_prompt_and_the_account_before_the_run)
{
	static const struct { const char *line, *cmd; } ok[] = {
		{"~ % ollama run qwen3.5:9b-mxfp8", "ollama run qwen3.5:9b-mxfp8"},
		{" ~ % ollama run qwen3.5:9b-nvfp4", "ollama run qwen3.5:9b-nvfp4"},
		{"me@MacBook-Pro ~/llm % ./llama-server -m m.gguf", "./llama-server -m m.gguf"},
		{"/srv/app $ python serve.py", "python serve.py"},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		const char *c = cmd_of(ok[i].line);
		cr_assert(c, "no prompt in: %s", ok[i].line);
		cr_expect_str_eq(c, ok[i].cmd);
	}
	/* near misses: a figure and its sign, a path in prose, a directory with no sign */
	static const char *const no[] = {"50 % done", "GPU 0 % util", "loaded 100 % of 8 GPUs", "~/models/m.gguf loaded",
					 "~ %ollama run x"};
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_expect_null(cmd_of(no[i]), "a prompt in: %s", no[i]);
	const char *two = "can't load mxfp8 or nvfp4 any models run with mlx\n"
			  "\n"
			  "~ % ollama run qwen3.5:9b-mxfp8\n"
			  "Error: 500 Internal Server Error: mlx runner failed: failed to load MLX dynamic library\n"
			  " ~ % ollama run qwen3.5:9b-nvfp4\n"
			  "Error: 500 Internal Server Error: mlx runner failed: failed to load MLX dynamic library\n";
	cr_expect_eq(nstarts(two, NULL), 2, "two runs, the title with the first");
	/* the same behind a collector's info level on every line (a paste's damage) */
	cr_expect_eq(nstarts("0.00.189.951 I can't load mxfp8 models run with mlx\n"
			     "0.00.189.951 I ~ % ollama run a\n0.00.189.951 I Error: failed to load model a\n"
			     "0.00.189.951 I ~ % ollama run b\n0.00.189.951 I Error: failed to load model b\n",
			     NULL),
		     2);
	/* the same failure printed by the program (a level) before the command is a run of its own */
	const char *own = "ERROR: failed to load model m\n~ % ollama run m\nError: failed to load model m\n";
	cr_expect_eq(nstarts(own, NULL), 2);
	/* a command quoted in the description, then the same run at a prompt: one start */
	const char *quoted = "3) Start llama.cpp `build/bin/llama-cli --model /m/q.gguf`\n"
			     "~/llama.cpp $ build/bin/llama-cli --model /m/q.gguf\n"
			     "llama_model_load: error loading model: read error: Invalid argument\n";
	cr_expect_eq(nstarts(quoted, NULL), 1);
	/* a prompt's command, then another: two runs */
	cr_expect_eq(nstarts("~ % ollama run a\nloading model a\n~ % ollama run b\nloading model b\n", NULL), 2);
}

/* issue 23's fourteenth round: the program's own log after its command,
 * in words no vocabulary knows (a line with a clock or a level the
 * prompt's line lacks), then the bare prompt back: the program exited
 * before it came up (CosyVoice's webui, back at PowerShell's prompt).
 * Near misses: output with no mark of a log (a detached client's id, a
 * line of prose), and a collector's clock on every line, the prompt's
 * too, with nothing of the program's own beyond it. */
Test(prompt, bare_prompt_back_after_the_programs_log_in_unknown_words)
{
	cr_expect_str_eq(outcome_of("(venv) PS D:\\tts> python webui.py --port 50000\n"
				    "2025-04-27 15:52:16,478 INFO input frame rate=50\n"
				    "(venv) PS D:\\tts>\n"),
			 "failed");
	cr_expect_str_eq(outcome_of("(venv) PS D:\\tts> python webui.py --port 50000\n"
				    "[INFO] input frame rate=50\n"
				    "(venv) PS D:\\tts>\n"),
			 "failed");
	cr_expect_str_eq(outcome_of("(venv) PS D:\\tts> python webui.py --port 50000\n"
				    "input frame rate=50\n"
				    "(venv) PS D:\\tts>\n"),
			 "cut-off");
	const char *pre = "Apr 27 15:52:16 host app[1]: ";
	char log[1024];
	snprintf(log, sizeof(log), "%s(venv) PS D:\\tts> python webui.py --port 50000\n%sinput frame rate=50\n%s(venv) PS D:\\tts>\n",
		 pre, pre, pre);
	cr_expect_str_eq(outcome_of(log), "cut-off");
	snprintf(log, sizeof(log),
		 "%s(venv) PS D:\\tts> python webui.py --port 50000\n%s2025-04-27 15:52:16,478 INFO input frame rate=50\n"
		 "%s(venv) PS D:\\tts>\n",
		 pre, pre, pre);
	cr_expect_str_eq(outcome_of(log), "failed");
	/* the program's log line, then the next command (another terminal's, perhaps): no exit */
	cr_expect_str_neq(outcome_of("(venv) PS D:\\tts> python webui.py --port 50000\n"
				     "2025-04-27 15:52:16,478 INFO input frame rate=50\n"
				     "(venv) PS D:\\tts> python other.py\n"),
			  "failed");
}

/* issue 23's nineteenth round: a command that fetches a model's files
 * (`hf download x`, `huggingface-cli download`, `ollama pull x`) runs no
 * model: its download bars are its own output, no start. Near misses: the
 * same bars after a command that runs a program are that start's fetch
 * (still loading), and a run typed after the download is a start. */
Test(prompt, a_download_command_is_no_start)
{
	static const char bar[] = "Fetching 3 files:   0%|          | 0/3 [00:00<?, ?it/s]\n";
	static const char *const fetch[] = {"hf download microsoft/BitNet-b1.58-2B-4T-gguf --local-dir m",
					    "huggingface-cli download Qwen/Qwen2-7B", "ollama pull llama3"};
	char log[512];
	const char *o;
	for (size_t i = 0; i < sizeof(fetch) / sizeof(fetch[0]); i++) {
		cr_expect(!tr_command_launches(fetch[i], fetch[i] + strlen(fetch[i])), "a launch: %s", fetch[i]);
		snprintf(log, sizeof log, "user@host:~$ %s\n%s", fetch[i], bar);
		cr_expect_eq(nstarts(log, NULL), 0, "a start in:\n%s", log);
	}
	snprintf(log, sizeof log, "user@host:~$ python app.py --model Qwen/Qwen2-7B\n%s", bar);
	cr_expect_eq(nstarts(log, &o), 1);
	cr_expect_str_eq(o, "loading");
	snprintf(log, sizeof log, "$ hf download Qwen/Qwen2-7B\n%s$ python app.py --model Qwen/Qwen2-7B\n%s", bar, bar);
	cr_expect_eq(nstarts(log, &o), 1);
	cr_expect_str_eq(o, "loading");
}

/* issue 23's twentieth round: a fetch command that names its model by
 * --model (`modelscope download --model X --local_dir d`), after a root
 * prompt or as the paste's own line, and the fetch's own "Downloading
 * Model to directory" line, open no start; near misses: the same --model
 * on a command that runs a program is its start, and a subcommand that
 * only sounds like a fetch (`download-and-serve`) runs one. */
Test(prompt, a_fetch_that_names_its_model_by_flag_is_no_start)
{
	static const char fetch[] = "modelscope download --model AI-ModelScope/sd-3.5 --local_dir ./sd";
	static const char said[] = "Downloading Model to directory: /root/.cache/modelscope/hub/sd-3.5\n";
	char log[512];
	const char *o;
	cr_expect(tr_command_fetches(fetch, fetch + strlen(fetch)));
	snprintf(log, sizeof log, "root@box-1a2b:~/autodl-tmp# %s\n%s", fetch, said);
	cr_expect_eq(nstarts(log, NULL), 0, "a start in:\n%s", log);
	snprintf(log, sizeof log, "%s\n", fetch);
	cr_expect_eq(nstarts(log, NULL), 0, "a start in:\n%s", log);
	static const char run[] = "modelscope serve --model AI-ModelScope/sd-3.5 --port 8000";
	cr_expect(!tr_command_fetches(run, run + strlen(run)));
	snprintf(log, sizeof log, "root@box-1a2b:~/autodl-tmp# %s\n", run);
	cr_expect_eq(nstarts(log, &o), 1, "no start in:\n%s", log);
	snprintf(log, sizeof log, "%s\n", run);
	cr_expect_eq(nstarts(log, &o), 1, "no start in:\n%s", log);
	static const char look[] = "cat /models/download/config.json"; /* only looks: no fetch either */
	cr_expect(!tr_command_fetches(look, look + strlen(look)));
	static const char near[] = "app download-and-serve --model m";
	cr_expect(!tr_command_fetches(near, near + strlen(near)));
	snprintf(log, sizeof log, "$ %s\n", near);
	cr_expect_eq(nstarts(log, &o), 1, "no start in:\n%s", log);
}

/* issue 23's twenty-second round: an inline code span the paste opened
 * right before the prompt (``(venv) ~/x % mlx_audio.server`) is still a
 * prompt, and the shell's line is none of the server's own log lines: a
 * collector's clock put before it too, a bare server up at its address
 * after it stays the start it is without the clock. Near miss: a double
 * backtick opens no span. */
Test(prompt, a_prompt_after_an_inline_codes_backtick)
{
	const char *c = cmd_of("`(venv) ~/Developer/mlx-audio % mlx_audio.server --port 8000");
	cr_assert(c);
	cr_expect_str_eq(c, "mlx_audio.server --port 8000");
	cr_expect_null(cmd_of("``(venv) ~/Developer/mlx-audio % mlx_audio.server"));
	const char *o;
	cr_expect_eq(nstarts("`(venv) ~/x % mlx_audio.server\nINFO:     Uvicorn running on http://0.0.0.0:8000\n", &o), 1);
	cr_expect_str_eq(o, "completed");
	cr_expect_eq(nstarts("Oct 16 15:39:01 box app[1]: `(venv) ~/x % mlx_audio.server\n"
			     "Oct 16 15:39:02 box app[1]: INFO:     Uvicorn running on http://0.0.0.0:8000\n",
			     &o),
		     1);
	cr_expect_str_eq(o, "completed");
}

/* issue 23's twenty-second round: the shell's prompt alone back after a
 * load began is the program's exit (failed), but not as an input's last
 * line with no newline after it: a paste or file cut there may have lost
 * the command typed after the prompt, which would say nothing of an exit
 * (cut off). */
Test(prompt, a_bare_prompt_cut_at_the_inputs_end)
{
	const char *o;
	cr_expect_eq(nstarts("user@host:~$ python app.py --model m\nLoading weights from /m/x.safetensors\n"
			     "user@host:~$ \n",
			     &o),
		     1);
	cr_expect_str_eq(o, "failed");
	cr_expect_eq(nstarts("user@host:~$ python app.py --model m\nLoading weights from /m/x.safetensors\n"
			     "user@host:~$ ",
			     &o),
		     1);
	cr_expect_str_eq(o, "cut-off");
	/* the mark is the input's own: a second input's line of the same
	 * number, a bare prompt with its newline, is an exit */
	struct lsc_triage *t = lsc_triage_new(NULL);
	cr_assert(t);
	static const char a[] = "starting engine\nLoading weights from /m/a.safetensors\nstill here";
	static const char b[] = "user@host:~$ python app.py --model m\nLoading weights from /m/x.safetensors\n"
				"user@host:~$ \n";
	cr_assert_eq(lsc_triage_source(t, "a.log"), 0);
	cr_assert_eq(lsc_triage_feed(t, a, strlen(a)), 0);
	cr_assert_eq(lsc_triage_source(t, "b.log"), 0);
	cr_assert_eq(lsc_triage_feed(t, b, strlen(b)), 0);
	lsc_triage_finish(t);
	struct lsc_triage_start_info si;
	cr_assert_eq(lsc_triage_start(t, 1, &si), 0);
	cr_expect_str_eq(si.outcome, "failed");
	lsc_triage_free(t);
}

/* issue 23's nineteenth round: a prompt whose user the copy lost
 * (`@radxa-e54c:~/x$ ./llm_demo m.rkllm`) is still a prompt: the host, its
 * path and the sign. Near misses: an address, a mention and a decorator
 * opening a line are none. */
Test(prompt, a_prompt_without_its_user)
{
	const char *c = cmd_of("@radxa-e54c:~/rknn-llm/deploy$ ./llm_demo /m/Qwen3-4B-1.2.0.rkllm 2048 4096");
	cr_assert(c);
	cr_expect_str_eq(c, "./llm_demo /m/Qwen3-4B-1.2.0.rkllm 2048 4096");
	static const char *const no[] = {"@host.org: thanks for the fix", "@maintainer: same here $ 5",
					 "@torch.no_grad()", "@radxa-e54c:~/x $ ls"};
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_expect_null(cmd_of(no[i]), "a prompt in: %s", no[i]);
}

static const char *failure_id(const char *log)
{
	static char id[32];
	id[0] = 0;
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	for (size_t i = 0; i < lsc_triage_nfindings(t); i++) {
		struct lsc_triage_finding_info f;
		lsc_triage_finding(t, i, &f);
		if (f.severity == LSC_TRIAGE_FAIL)
			snprintf(id, sizeof id, "%s", f.id);
	}
	lsc_triage_free(t);
	return id;
}

/* issue 23's nineteenth round: a runtime's failure before ready, in a
 * start whose command ran a model file (`hailortcli benchmark x.hef`,
 * `./llm_demo /m/q.rkllm`), is that model's load failing (load-failed),
 * whatever its words. Near misses: the same failure after a command that
 * names no model file is the start's failure (start-failed), and so is
 * one after a config file. */
Test(prompt, a_failure_of_a_command_that_ran_a_model_file)
{
	static const char fail[] = "[HailoRT] [error] CHECK_EXPECTED failed with status=HAILO_INVALID_ARGUMENT(2) -\n";
	static const char *const model[] = {"hailortcli benchmark .\\tddfa_mobilenet_v1.hef",
					    "./llm_demo /home/radxa/rkllm/Qwen3-4B-1.2.0.rkllm 2048 4096",
					    "python run.py --model /m/yolov8n.tflite"};
	static const char *const other[] = {"hailortcli benchmark --help-all now", "python run.py --config /m/x.yaml"};
	char log[512];
	for (size_t i = 0; i < sizeof(model) / sizeof(model[0]); i++) {
		snprintf(log, sizeof log, "$ %s\nStarting Measurements...\n%s", model[i], fail);
		cr_expect_str_eq(failure_id(log), "load-failed", "in:\n%s", log);
	}
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		snprintf(log, sizeof log, "$ %s\nStarting Measurements...\n%s", other[i], fail);
		cr_expect_str_eq(failure_id(log), "start-failed", "in:\n%s", log);
	}
}
