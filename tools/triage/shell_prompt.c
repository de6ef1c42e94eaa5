/*
 * A shell's prompt and the command typed after it, as people paste them
 * above a log: `user@host:~$ cmd`, `(env) root@node1:~# cmd`, `$ cmd`,
 * `% cmd`, zsh's `➜  dir git:(main) ✗ cmd` and its default `user@host ~ %
 * cmd`, Windows' `C:\dir>cmd` and `PS C:\dir> cmd`. A command that runs a program (a server, a script, a
 * log viewer's output of one: `kubectl logs`, `docker logs`) begins what
 * follows: a start under way, and the end of the start before it (two runs
 * parted by a prompt). A command that only inspects the machine (`cat`,
 * `sysctl`, `nvidia-smi`, `free`) begins nothing: its output is a setting,
 * which stays with the start it describes. The shapes are read at the
 * line's first bytes only, so the cost on a line that is no prompt is a
 * byte or two.
 */
#include <string.h>

#include "internal.h"

static int namech(char c) { return tr_isword(c) || c == '-' || c == '.' || c == '_'; }

/* Past a leading "(env) ", or @p. */
static const char *after_env(const char *p, const char *end)
{
	if (p >= end || *p != '(')
		return p;
	const char *q = p + 1;
	while (q < end && q - p < 48 && namech(*q))
		q++;
	if (q >= end || *q != ')' || q == p + 1 || q + 1 >= end || q[1] != ' ')
		return p;
	return q + 2;
}

/* zsh's "➜  dir git:(branch) ✗ ": past it, or NULL. */
static const char *zsh_prompt(const char *p, const char *end)
{
	static const char arrow[] = "\xe2\x9e\x9c", cross[] = "\xe2\x9c\x97";
	if (end - p < 5 || memcmp(p, arrow, 3))
		return NULL;
	const char *q = tr_skip_ws(p + 3, end), *b = q;
	while (q < end && *q != ' ')
		q++;
	if (q == b)
		return NULL;
	q = tr_skip_ws(q, end);
	if (end - q > 5 && !memcmp(q, "git:(", 5)) {
		const char *c = memchr(q, ')', (size_t)(end - q));
		if (!c)
			return NULL;
		q = tr_skip_ws(c + 1, end);
	}
	if (end - q >= 3 && !memcmp(q, cross, 3))
		q = tr_skip_ws(q + 3, end);
	return q;
}

/* "user@host:~/dir$ ", "root@node1:~# ": past it, or NULL. The user may
 * be gone from the paste ("@radxa-e54c:~/x$ ", a copy begun one word in):
 * the host, its path and the sign still make the prompt. */
static const char *user_host_prompt(const char *p, const char *end)
{
	const char *q = p;
	while (q < end && q - p < 40 && namech(*q))
		q++;
	if (q >= end || *q != '@')
		return NULL;
	const char *h = ++q;
	while (q < end && q - h < 64 && namech(*q))
		q++;
	if (q == h || q >= end || *q != ':')
		return NULL;
	for (const char *c = q + 1; c < end && c - q < 160; c++) {
		if (*c == ' ')
			return NULL; /* the path ends at the prompt's sign */
		if ((*c == '$' || *c == '#') && c + 1 == end)
			return end; /* the prompt alone: the shell is back */
		if ((*c == '$' || *c == '#') && c[1] == ' ')
			return c + 2;
	}
	return NULL;
}

/* zsh's default prompt, "user@host dir % " or "~ % ", and sh's "/srv $ ":
 * a directory (from ~ or /, no spaces), maybe after "user@host ", then the
 * sign between spaces: past it, or NULL. Not a figure ("50 % done": no
 * directory) nor a path in prose ("/x % y": the sign's command is read
 * after). */
static const char *dir_prompt(const char *p, const char *end)
{
	size_t lim = (size_t)(end - p) < 160 ? (size_t)(end - p) : 160;
	if (!memchr(p, '%', lim) && !memchr(p, '$', lim))
		return NULL; /* most lines that open with a path are no prompt */
	const char *q = p;
	const char *sp = memchr(q, ' ', (size_t)(end - q) < 64 ? (size_t)(end - q) : 64);
	if (sp && sp > q && (*q != '~' && *q != '/') && memchr(q, '@', (size_t)(sp - q)))
		q = sp + 1; /* "user@host " */
	if (q >= end || (*q != '~' && *q != '/'))
		return NULL;
	while (q < end && *q != ' ')
		q++;
	if (end - q < 4 || (q[1] != '%' && q[1] != '$') || q[2] != ' ')
		return NULL;
	return q + 3;
}

/* "C:\dir>", "PS C:\dir> ": past it, or NULL. */
static const char *windows_prompt(const char *p, const char *end)
{
	if (end - p > 3 && !memcmp(p, "PS ", 3))
		p += 3;
	if (end - p < 4 || !tr_alpha(p[0]) || p[1] != ':' || p[2] != '\\')
		return NULL;
	const char *g = memchr(p, '>', (size_t)(end - p) < 200 ? (size_t)(end - p) : 200);
	/* a path up to the sign: no second colon ("C:\x\file.py:34: FutureWarning" is a warning) */
	if (!g || memchr(p + 2, ':', (size_t)(g - p - 2)))
		return NULL;
	return tr_skip_ws(g + 1, end);
}

/* A log viewer's command at the line's start, with no prompt before it
 * ("kubectl logs -f pod", "docker logs c", "journalctl -u ollama"): what
 * follows is the log it shows. */
static int log_viewer(const char *p, const char *end)
{
	static const struct { const char *w; size_t n; } v[] = {
		{"kubectl logs ", 13}, {"oc logs ", 8}, {"docker logs ", 12}, {"podman logs ", 12},
		{"docker compose logs ", 20}, {"journalctl -", 12}};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (*p == v[i].w[0] && (size_t)(end - p) > v[i].n && !memcmp(p, v[i].w, v[i].n))
			return 1;
	return 0;
}

/* "python phi3-qa.py -m m -l 2048", "python3 -m vllm.entrypoints...": a
 * Python script or module run, pasted as a line of its own with no prompt
 * before it (a thread's "same thing if I run it through the CLI"): the
 * interpreter is the line's first word and its argument a script (a name
 * ending in .py) or -m with a module that is no installer (pip, venv). */
static int script_run(const char *p, const char *end)
{
	size_t n = (size_t)(end - p);
	size_t w = n > 8 && !memcmp(p, "python3 ", 8) ? 8 : n > 7 && !memcmp(p, "python ", 7) ? 7 : 0;
	if (!w)
		return 0;
	const char *a = tr_skip_ws(p + w, end), *e = a;
	while (e < end && *e != ' ')
		e++;
	if (e - a > 3 && !memcmp(e - 3, ".py", 3))
		return 1;
	if (e - a != 2 || memcmp(a, "-m", 2))
		return 0;
	const char *m = tr_skip_ws(e, end), *me = m;
	while (me < end && *me != ' ')
		me++;
	static const char *const tools[] = {"pip", "venv", "ensurepip", "virtualenv", "http.server", "json.tool"};
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if ((size_t)(me - m) == strlen(tools[i]) && !memcmp(m, tools[i], (size_t)(me - m)))
			return 0;
	return me > m;
}

const char *tr_prompt_command(const char *s, size_t n)
{
	/* an inline code span the paste opened right before the prompt
	 * ("`(venv) ~/x % cmd") */
	if (n > 2 && s[0] == '`') {
		s++;
		n--;
	}
	const char *end = s + n, *p = after_env(n && s[0] == ' ' ? tr_skip_ws(s, end) : s, end), *c = NULL;
	int win = 0;
	if (p < end && (*p == 'k' || *p == 'o' || *p == 'd' || *p == 'p' || *p == 'j') && log_viewer(p, end))
		return p;
	if (p < end && *p == 'p' && script_run(p, end))
		return p;
	if (p + 2 < end && (*p == '$' || *p == '%') && p[1] == ' ')
		c = p + 2;
	else if (p < end && (unsigned char)*p == 0xe2)
		c = zsh_prompt(p, end);
	else if (p < end && tr_alpha(*p)) {
		if ((p + 1 < end && p[1] == ':') || (end - p > 3 && !memcmp(p, "PS ", 3)))
			win = (c = windows_prompt(p, end)) != NULL;
		else if (memchr(p, '@', (size_t)(end - p) < 40 ? (size_t)(end - p) : 40) &&
			 !(c = user_host_prompt(p, end))) /* most lines have no '@' near their start */
			c = dir_prompt(p, end);
	} else if (p < end && (*p == '~' || *p == '/')) {
		c = dir_prompt(p, end);
	} else if (p < end && *p == '@') {
		c = user_host_prompt(p, end);
	}
	if (!c)
		return NULL;
	c = tr_skip_ws(c, end);
	if (c >= end)
		return NULL;
	/* a Unix command opens in lower case, a path, or a VAR=value ("% Total
	 * % Received" is curl's progress header, not a command); Windows'
	 * are in any case */
	if (tr_upper(*c) && !win) {
		const char *v = c;
		while (v < end && (tr_upper(*v) || tr_digit(*v) || *v == '_'))
			v++;
		return v < end && *v == '=' ? c : NULL;
	}
	return tr_alpha(*c) || *c == '.' || *c == '/' || *c == '~' ? c : NULL;
}

/* The next token of @p[..end): its bounds in *b / *e; the position after it. */
static const char *token(const char *p, const char *end, const char **b, const char **e)
{
	p = tr_skip_ws(p, end);
	*b = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	*e = p;
	return p;
}

static int is(const char *b, const char *e, const char *w)
{
	return e > b && *b == *w && (size_t)(e - b) == strlen(w) && !memcmp(b, w, (size_t)(e - b));
}

/* Does the command's last word, after @p, name a shell ("kubectl exec -it
 * pod -- bash", "docker run -it image /bin/sh")? It opens a shell in the
 * container, where the next prompt's command is what runs. */
static int opens_shell(const char *p, const char *end)
{
	static const char *const sh[] = {"bash", "sh", "zsh", "ash", "dash", NULL};
	const char *b = p, *e = p, *tb, *te;
	for (int i = 0; i < 32; i++) {
		p = token(p, end, &tb, &te);
		if (tb == te)
			break;
		b = tb, e = te;
	}
	const char *base = e;
	while (base > b && base[-1] != '/')
		base--;
	for (const char *const *w = sh; *w; w++)
		if (is(base, e, *w))
			return 1;
	return 0;
}

enum { CMD_NONE, CMD_RUN, CMD_FETCH };

/* What the command @c[..end) does: runs a program (CMD_RUN), fetches a
 * model's files (CMD_FETCH), or only looks (CMD_NONE). */
static int command_kind(const char *c, const char *end)
{
	static const char *const wrap[] = {"sudo", "env", "nohup", "time", "exec", "numactl", "taskset", "sh", "bash",
					   "zsh", NULL};
	static const char *const look[] = {"cat", "ls", "ll", "cd", "echo", "grep", "sysctl", "ulimit", "free",
					   "nvidia-smi", "rocm-smi", "amd-smi", "top", "htop", "ps", "df", "du", "mount",
					   "dmesg", "uname", "lscpu", "lsblk", "pip", "pip3", "conda", "git", "which",
					   "export", "source", "tail", "head", "less", "more", "watch", "nproc", "lspci",
					   "vmstat", "clear", "exit", "systemctl", "service", "sync", "swapoff", "swapon",
					   "modprobe", "mkdir", "rm", "cp", "mv", "chmod", "wget", "curl", "ulimit", "id",
					   "whoami", "date", "hostname", "lsmod", "stat", "file", "sha256sum", "md5sum", NULL};
	static const char *const runs[] = {"run", "logs", "exec", "up", "attach", "start", "serve", NULL};
	const char *b, *e, *p = c;
	for (int i = 0; i < 8; i++) {
		p = token(p, end, &b, &e);
		while (b < e && (*b == '"' || *b == '\''))
			b++; /* sh -c "cmd ...": the command in its quotes */
		if (b == e)
			return 0;
		const char *eq = memchr(b, '=', (size_t)(e - b));
		int wrapper = 0;
		for (const char *const *w = wrap; *w && !wrapper; w++)
			wrapper = is(b, e, *w);
		if ((eq && eq > b && tr_alpha(*b)) || wrapper || *b == '-')
			continue; /* "PYTHONPATH=. ", "sudo ", a wrapper's option */
		break;
	}
	const char *base = e;
	while (base > b && base[-1] != '/' && base[-1] != '\\')
		base--;
	for (const char *const *w = look; *w; w++)
		if (is(base, e, *w))
			return 0;
	const char *ab, *ae;
	token(e, end, &ab, &ae);
	if (ab == ae)
		return 0; /* a program with no arguments: a REPL, a bare tool */
	const char *nb, *ne;
	token(ae, end, &nb, &ne);
	if (nb == ne && (is(ab, ae, "--version") || is(ab, ae, "-v") || is(ab, ae, "-V") || is(ab, ae, "--help") ||
			 is(ab, ae, "-h") || is(ab, ae, "version") || is(ab, ae, "--env") || is(ab, ae, "env")))
		return 0; /* what it is (its version, its help, the environment it sees), not a run */
	/* the subcommands that only look: this project's probe and triage, an
	 * engine's list of what runs */
	static const char *const peek[][2] = {{"loadscope", "probe"}, {"loadscope", "triage"}, {"loadscope", "explain"},
					      {"ollama", "ps"}, {"ollama", "list"}, {"ollama", "show"}};
	for (size_t i = 0; i < sizeof(peek) / sizeof(peek[0]); i++)
		if (is(base, e, peek[i][0]) && is(ab, ae, peek[i][1]))
			return 0;
	/* a model fetched, not run: `hf download x`, `huggingface-cli
	 * download`, `modelscope download`, `ollama pull` (its files land on
	 * disk; no process brings the model up) */
	if (is(ab, ae, "download") || (is(base, e, "ollama") && is(ab, ae, "pull")))
		return CMD_FETCH;
	/* a container or cluster tool runs or shows a server only with these */
	if (is(base, e, "docker") || is(base, e, "podman") || is(base, e, "kubectl") || is(base, e, "oc")) {
		if (opens_shell(ae, end))
			return 0;
		for (const char *const *w = runs; *w; w++)
			if (is(ab, ae, *w) || (is(ab, ae, "compose") && ae < end))
				return CMD_RUN;
		return CMD_NONE;
	}
	return CMD_RUN;
}

int tr_command_launches(const char *c, const char *end)
{
	return command_kind(c, end) == CMD_RUN;
}

int tr_command_fetches(const char *c, const char *end)
{
	return command_kind(c, end) == CMD_FETCH;
}

int tr_prompt_alone(const char *s, size_t n)
{
	const char *end = s + n;
	while (end > s && (end[-1] == ' ' || end[-1] == '\r'))
		end--;
	const char *p = after_env(s, end);
	/* the bare sign, as a paste shows a prompt that names no user or
	 * directory: sh's `$`, zsh's `%` (not `#`, a Markdown heading's) */
	if (end - p == 1 && (*p == '$' || *p == '%'))
		return 1;
	if (p >= end || !tr_alpha(*p))
		return 0;
	if ((p + 1 < end && p[1] == ':') || (end - p > 3 && !memcmp(p, "PS ", 3)))
		return end[-1] == '>' && windows_prompt(p, end) == end;
	return (end[-1] == '$' || end[-1] == '#') && memchr(p, '@', (size_t)(end - p) < 40 ? (size_t)(end - p) : 40) &&
	       user_host_prompt(p, end) == end;
}

/* The shell is back while a load was under way (a bar short of N/N,
 * the weights being read): the program ended before it came up (an
 * exit), unless the user stopped it (a Ctrl-C, an interrupt: the start's
 * last recognised line says so). Not after the weights loaded: a one-shot
 * script that loads, works and exits is back at its prompt too. The
 * prompt alone (@from TR_ST_BEGAN) ends a start once the program said
 * anything of its own (`main: loading model`, the loader's first lines);
 * the prompt with the next command (@from TR_ST_LOADING) only a load
 * under way, as it may be another terminal's. */
static int shell_back(struct lsc_triage *t, struct tr_line *l, enum tr_stage from)
{
	struct tr_start *c = t->cur && t->cur->src == l->src ? t->cur : NULL;
	if (!c || c->done || c->bar_done || c->interrupted)
		return 0;
	const char *last = c->lastev.text;
	if (tr_memmem(last, strlen(last), "^C") || tr_memmem_ci(last, strlen(last), "interrupt"))
		return 0;
	/* begun only: the program's own words after its command, not the
	 * command alone (`docker run -d`, a daemon's client: it returns);
	 * its own words may be none the vocabulary knows, but a line of its
	 * own log (a clock or a level the prompt's line lacks) is them */
	if (tr_prompt_command(last, strlen(last)) && !c->logged_after_prompt)
		return 0;
	return tr_process_ended(t, l, from) > 0;
}

/* A lone `^C`, the terminal's echo of the user's interrupt: the start
 * under way was stopped, so the shell back after it is no exit of its own. */
static void interrupt_echo(struct lsc_triage *t, const struct tr_line *l)
{
	size_t n = l->len;
	while (n > 2 && (l->s[n - 1] == ' ' || l->s[n - 1] == '\r'))
		n--;
	if (n == 2 && l->s[0] == '^' && l->s[1] == 'C' && t->cur && t->cur->src == l->src)
		t->cur->interrupted = 1;
}

/* Does the command @c[..end) name a weight file among its words (the
 * model it runs: `./llm_demo /m/Qwen3-4B.rkllm 2048`)? */
static int names_weight_file(const char *c, const char *end)
{
	const char *b, *e, *p = c;
	while ((p = token(p, end, &b, &e)) > b)
		if (tr_weight_file_named(b, e))
			return 1;
	return 0;
}

int tr_recognise_prompt(struct lsc_triage *t, struct tr_line *l)
{
	if (l->len && l->s[0] == '^')
		interrupt_echo(t, l);
	const char *c = tr_prompt_command(l->s, l->len);
	/* the prompt alone as an input's last line with no newline after it:
	 * the command typed after it may be what was cut off, so it says no
	 * exit */
	if (!c && tr_prompt_alone(l->s, l->len))
		return (l->flags & TR_L_TAIL) ? 0 : shell_back(t, l, TR_ST_BEGAN);
	int kind = c ? command_kind(c, l->s + l->len) : CMD_NONE;
	if (c) /* what the next prompt's command fetches is its own */
		t->fetch_src = kind == CMD_FETCH ? l->src + 1 : 0;
	if (kind != CMD_RUN)
		return 0;
	(void)shell_back(t, l, TR_ST_LOADING);
	/* the start before it ends here when it had begun (settings pasted
	 * before the command stay with the start it runs) */
	struct tr_start *cur = t->cur && t->cur->src == l->src ? t->cur : NULL;
	/* a lone failure said in a sentence before the command (an issue's
	 * title, "can't load mxfp8 models run with mlx"), or the command
	 * quoted in the description with no prompt ("3) Start llama.cpp
	 * `llama-cli --model m`"), is the reporter's account of the run that
	 * follows: the run takes it, no start of its own; a failure the
	 * program printed (a level, a traceback) ended a run, and a prompt's
	 * command alone is a run of its own */
	const char *last = cur ? cur->lastev.text : "";
	int account = cur && cur->nev == 1 &&
		      ((cur->ev_gen_fail == 0 && cur->fail_plain) ||
		       (cur->stage == TR_ST_BEGAN && cur->ev_gen_fail < 0 && !tr_prompt_command(last, strlen(last))));
	struct tr_start *st = tr_fresh_if(t, l, cur && !account && (cur->stage >= TR_ST_BEGAN || cur->done), NULL);
	if (!st)
		return 0;
	tr_evid(st, l);
	tr_touch(st, l);
	tr_stage_raise(st, TR_ST_BEGAN);
	st->prompt_began = 1;
	st->cmd_model = names_weight_file(c, l->s + l->len);
	st->logged_after_prompt = 0;
	st->prompt_nclocks = l->nclocks;
	st->prompt_level = l->level;
	return 1;
}

void tr_prompt_after(struct lsc_triage *t, const struct tr_line *l)
{
	struct tr_start *c = t->cur;
	if (c && c->src == l->src && c->prompt_began &&
	    (l->nclocks > c->prompt_nclocks || (l->level != TR_LV_NONE && c->prompt_level == TR_LV_NONE)))
		c->logged_after_prompt = 1;
}
