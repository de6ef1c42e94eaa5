/*
 * A shell's report that the program it ran ended on a signal, in the words
 * the shells print for it: bash's `Killed`, `Segmentation fault (core
 * dumped)`, `Aborted (core dumped)`, `Illegal instruction`, `Bus error`,
 * `Floating point exception`, macOS's `Trace/BPT trap: 5`, `Abort trap: 6`,
 * `Killed: 9`; a script's or a job's report (`./run.sh: line 12:  4711
 * Killed   python x.py`, `[1]+  Killed   python x.py`, zsh's `[1]    26478
 * killed     python x.py`); zsh's lowercase
 * `zsh: killed     python x.py`, `zsh: illegal hardware instruction`. The
 * engine wrote none of these: the shell saw its child die, so the line is
 * the start's end whichever engine it was, and the one failure word some
 * pastes hold (a script with no log of its own).
 *
 * The report is the whole line, or the line's end after a progress bar the
 * terminal never ended with a newline (`| 1/3 [00:49<01:39, 49.95s/it]Killed`).
 * After the name comes nothing, `: N` (the signal's number), ` (core
 * dumped)`, or two spaces or more and the command, as the shells align
 * it; never a word after one space, so prose (`Killed 3 idle workers`,
 * `the process was killed`) is no report.
 */
#include <string.h>
#include <strings.h>

#include "internal.h"

/* The names, lowered; the first is a kill, the rest a fault. */
static const char *const names[] = {
	"killed", "segmentation fault", "aborted", "abort trap", "illegal instruction", "illegal hardware instruction",
	"bus error", "trace/bpt trap", "trace trap", "floating point exception",
};

/* Past a shell's own prefix: `zsh: `, `bash: `, `sh: `, a script's `PATH:
 * line N: ` and the child's pid, a job's `[1]+ `. */
static const char *past_prefix(const char *p, const char *end)
{
	static const char *const sh[] = {"zsh: ", "bash: ", "sh: "};
	for (size_t i = 0; i < sizeof(sh) / sizeof(sh[0]); i++)
		if ((size_t)(end - p) > strlen(sh[i]) && !memcmp(p, sh[i], strlen(sh[i])))
			return p + strlen(sh[i]);
	if (p < end && *p == '[') {
		const char *q = p + 1;
		while (q < end && tr_digit(*q))
			q++;
		if (q > p + 1 && q < end && *q == ']') {
			for (q++; q < end && (*q == '+' || *q == '-' || *q == ' '); q++)
				;
			/* zsh's job report gives the pid before the name: `[1]    26478 killed     python x.py` */
			const char *d = q;
			while (q < end && tr_digit(*q))
				q++;
			if (q > d && q < end && *q == ' ')
				for (; q < end && *q == ' '; q++)
					;
			else
				q = d;
			return q;
		}
	}
	const char *ln = tr_memmem(p, (size_t)(end - p), ": line ");
	if (ln && memchr(p, ' ', (size_t)(ln - p)) == NULL) {
		const char *q = ln + 7;
		while (q < end && tr_digit(*q))
			q++;
		if (q < end && *q == ':') {
			for (q++; q < end && *q == ' '; q++)
				;
			const char *d = q;
			while (q < end && tr_digit(*q))
				q++;
			if (q > d && q < end && *q == ' ')
				for (; q < end && *q == ' '; q++)
					;
			else
				q = d;
			return q;
		}
	}
	return p;
}

/* What may follow a signal's name in a shell's report. */
static int report_end(const char *p, const char *end)
{
	if (p == end)
		return 1;
	if (*p == ':' && p + 1 < end && p[1] == ' ' && p + 2 < end && tr_digit(p[2]))
		return 1; /* macOS: "Trace/BPT trap: 5" */
	if (end - p >= 14 && !strncasecmp(p, " (core dumped)", 14))
		return 1;
	if (*p == '\t' || (end - p >= 2 && p[0] == ' ' && p[1] == ' '))
		return 1; /* the command, aligned after the name */
	return 0;
}

static int report_at(const char *p, const char *end)
{
	p = past_prefix(p, end);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t kl = strlen(names[i]);
		if ((size_t)(end - p) >= kl && !strncasecmp(p, names[i], kl) && report_end(p + kl, end))
			return i == 0 ? TR_SIG_KILLED : TR_SIG_FAULT;
	}
	return 0;
}

static const char *trimmed_end(const char *s, size_t n)
{
	const char *end = s + n;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	return end;
}

int tr_shell_signal(const char *s, size_t n)
{
	int r = report_at(s, trimmed_end(s, n));
	return r ? r : tr_shell_signal_after_bar(s, n);
}

int tr_shell_signal_after_bar(const char *s, size_t n)
{
	const char *end = trimmed_end(s, n);
	/* glued to a bar the terminal left open: the report after the bar's
	 * own bracket, its rate's (`?it/s]`, `49.95s/it]`), which may be
	 * followed by a job's bracket (`[1]    26478 killed ...`) */
	const char *br = NULL;
	for (const char *p = end; p - s >= 5 && !br; p--)
		if (p[-1] == ']' && (!memcmp(p - 5, "it/s", 4) || !memcmp(p - 5, "s/it", 4)))
			br = p;
	return br && br < end ? report_at(br, end) : 0;
}

/* The runtime's own report that its process is dying of a fault, which
 * no shell printed: Android's libc (`Fatal signal 11 (SIGSEGV), code 1
 * (SEGV_MAPERR), fault addr 0x68 in tid 20777`), Python's faulthandler
 * (`Fatal Python error: Segmentation fault`, `... Aborted`), Abseil's
 * failure signal handler (`*** SIGSEGV received at time=1700000000`). The
 * process is gone as after a shell's `Segmentation fault`: whatever ran
 * ended. Not a signal named in prose or handled (`received SIGTERM,
 * shutting down`: no fault's name, or no report's words). */
int tr_fault_report(const char *s, size_t n)
{
	static const char *const faults[] = {"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT"};
	const char *end = s + n, *k;
	if ((k = tr_memmem(s, n, "Fatal signal ")) && k + 13 < end && tr_digit(k[13])) {
		for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
			if (tr_memmem(k, (size_t)(end - k), faults[i]))
				return 1;
		return 0;
	}
	if ((k = tr_memmem(s, n, "Fatal Python error: ")))
		return tr_memmem_ci(k, (size_t)(end - k), "segmentation fault") ||
		       tr_memmem_ci(k, (size_t)(end - k), "aborted") || tr_memmem_ci(k, (size_t)(end - k), "bus error") ||
		       tr_memmem_ci(k, (size_t)(end - k), "floating point exception") ||
		       tr_memmem_ci(k, (size_t)(end - k), "illegal instruction");
	if ((k = tr_memmem(s, n, "*** SIG")) && tr_memmem(k, (size_t)(end - k), " received at time="))
		for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
			if (!memcmp(k + 4, faults[i], strlen(faults[i])))
				return 1;
	return 0;
}
