/*
 * A program saying it starts, in a paste where nothing else opened a
 * start: `Starting LOLLMS Web UI...`, `voicebox-server starting up...`,
 * `Welcome to KoboldCpp - Version 1.95`, `start to init the engine`. A
 * report pasted from such a program and cut before its load is a start
 * begun and cut off, not "nothing recognisable": the corpus's verdicts
 * call 23 such pastes cut-off, the tool found no start in any of them.
 *
 * Only as an input's last resort (tr_boot_start, at the input's end):
 * where any line of it opened a start, that start says more, and a
 * program's startup line inside it adds nothing. Not a service manager's
 * own line (`systemd[1]: Starting x.service...`). Not an activity started
 * (`Starting download`, `Starting 4 processes` of fio, `starting
 * inference`), not a failure (`starting failed`).
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/* What a line that opens with "Starting " starts: a name, not a count
 * (`Starting 4 processes`) or an activity (`Starting download`, with an
 * article too: `Starting the download`). */
static int object_is_program(const char *o, const char *end)
{
	static const char *const act[] = {"download", "downloading", "downloads", "inference", "generation",
					  "generating", "training", "request", "requests", "job", "jobs", "task",
					  "tasks", "batch", "benchmark", "test", "tests", "evaluation", "eval",
					  "conversion", "compile", "compilation", "sampling", "process", "processes",
					  "thread", "threads", "to", "new", "chat", "transcription", "upload",
					  "installation", "install", "build", "export", "run", "step", "epoch", NULL};
	if (o < end && (*o == 't' || *o == 'T') && end - o > 4 && !strncasecmp(o, "the ", 4))
		o += 4;
	if (o >= end || !(tr_alpha(*o) || *o == '_'))
		return 0;
	const char *w = o;
	while (w < end && (tr_isword(*w) || *w == '_' || *w == '-' || *w == '.' || *w == ':'))
		w++;
	return !tr_any_word(o, (size_t)(w - o), act);
}

int tr_boot_said(const char *s, size_t n)
{
	const char *end = s + n;
	if (n < 10 || tr_says_failed(s, n))
		return 0;
	/* "Starting LOLLMS Web UI...", "INFO: Starting microservice.py:main" */
	if (!strncmp(s, "Starting ", 9))
		return object_is_program(s + 9, end);
	/* "voicebox-server starting up...": a name, then the words */
	const char *up = tr_memmem_ci(s, n, " starting up");
	if (up && up > s && !memchr(s, ' ', (size_t)(up - s)))
		return 1;
	/* "Welcome to KoboldCpp - Version 1.95": a banner with its version */
	if (!strncmp(s, "Welcome to ", 11) && tr_memmem_ci(s, n, "version"))
		return 1;
	/* PaddleSpeech's "start to init the engine" */
	return tr_memmem_ci(s, n, "start to init") != NULL;
}

void tr_boot_seen(struct lsc_triage *t, const struct tr_line *l)
{
	/* a service manager's own line (`systemd[1]: Starting x.service...`)
	 * is the manager's step, whatever the program then prints */
	if (t->boot_no || t->nstarts != t->boot_base || t->cur || (l->flags & TR_L_MANAGER) ||
	    !tr_boot_said(l->s, l->len))
		return;
	size_t len = l->len < sizeof(t->boot_text) - 1 ? l->len : sizeof(t->boot_text) - 1;
	memcpy(t->boot_text, l->s, len);
	t->boot_text[len] = 0;
	t->boot_len = len;
	t->boot_no = l->no;
	t->boot_src = l->src;
}

void tr_boot_start(struct lsc_triage *t)
{
	unsigned long no = t->boot_no;
	t->boot_no = 0;
	if (!no || t->nstarts != t->boot_base)
		return;
	struct tr_line l = {.s = t->boot_text,
			    .len = t->boot_len,
			    .no = no,
			    .src = t->boot_src,
			    .ts = NAN,
			    .tsk = {NAN, NAN, NAN}};
	struct tr_start *st = tr_begin(t, &l, NULL);
	if (!st)
		return;
	tr_touch(st, &l);
	t->nrecog++;
}
