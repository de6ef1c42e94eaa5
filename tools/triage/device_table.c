/*
 * The head of a table a GPU management tool prints of its devices
 * (rocm-smi's concise table `GPU  Temp   AvgPwr  SCLK  ...  VRAM%  GPU%`,
 * amd-smi's, xpu-smi's, `nvidia-smi --query-gpu` as columns): the
 * machine's state, pasted beside a report as a setting, not a start. A
 * paste of only such a table is no start (outcome none). The head is read
 * by its layout, not by a tool's name: its first cell names the device
 * (GPU, Device), and at least three more short cells of words, units and
 * signs (Temp, AvgPwr, VRAM%, Pwr:Usage/Cap, Temp (DieEdge)) follow, each parted from the
 * one before by two spaces or more, as a program aligns its columns; a
 * sentence that begins with "GPU" has one space between its words. A
 * pure predicate over one cleaned line, asked of the lines the prefilter
 * finds "GPU  " or "Device  " in. PyTorch's environment report (its
 * `PyTorch version: `, `Is CUDA available: ` lines) is the machine too.
 */
#include <string.h>

#include "internal.h"

/* A cell of a table's head at @p: its end, or NULL when it holds a byte
 * no column name has (a sentence's comma, a quote) or is too long. */
static const char *head_cell(const char *p, const char *end)
{
	const char *q = p;
	while (q < end && *q != ' ') {
		char c = *q;
		if (!(tr_alpha(c) || tr_digit(c) || c == '%' || c == '/' || c == ':' || c == '-' || c == '_' ||
		      c == '.' || c == '(' || c == ')' || c == '#' || c == '[' || c == ']'))
			return NULL;
		q++;
	}
	return q > p && q - p <= 20 ? q : NULL;
}

/* The head of a listing the machine's own tools print, by the same
 * layout: every cell in capitals (`ollama ps`'s `NAME  ID  SIZE
 * PROCESSOR  UNTIL`, `docker ps`'s, `kubectl get`'s), `df`'s `Filesystem
 * Size  Used Avail Use% Mounted on`: what runs or what the machine holds,
 * a setting, never a start (`free`'s head is left alone: a paste of only
 * pip's errors and `free` is nothing recognisable, the reviewed spec of
 * unrecognised-paste). @p: past the first cell. */
static int listing_head(const char *s, const char *end, const char **p)
{
	const char *q = s;
	while (q < end && (tr_upper(*q) || tr_digit(*q) || *q == '_'))
		q++;
	if (q - s >= 2 && q < end && *q == ' ') {
		/* capitals only: each later cell too */
		for (const char *c = q; c < end; c++)
			if (tr_alpha(*c) && !tr_upper(*c))
				return 0;
		*p = q;
		return 2;
	}
	if (end - s > 12 && !memcmp(s, "Filesystem ", 11) && end - s >= 10 && !memcmp(end - 10, "Mounted on", 10)) {
		*p = end;
		return 4; /* df: its last cell is two words */
	}
	return 0;
}

int tr_device_table_head(const char *s, size_t n)
{
	const char *end = s + n, *p;
	int need = 3;
	if (n >= 5 && !memcmp(s, "GPU", 3))
		p = s + 3;
	else if (n >= 8 && !memcmp(s, "Device", 6))
		p = s + 6;
	else if (!(need = listing_head(s, end, &p)))
		return 0;
	if (p == end)
		return 1;
	if (need == 2)
		need = 3; /* NAME and three more: a line of capitals with fewer is a heading */
	if (p + 1 >= end || p[0] != ' ' || p[1] != ' ')
		return 0;
	int cells = 0;
	while (p < end) {
		const char *b = p;
		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		if (p - b < 2)
			return 0; /* one space: words of a sentence, or a cell of two words */
		if (!(p = head_cell(p, end)))
			return 0;
		/* "Temp (DieEdge)": a cell's qualifier after one space */
		if (p + 1 < end && p[0] == ' ' && p[1] == '(' && !(p = head_cell(p + 1, end)))
			return 0;
		cells++;
	}
	return cells >= need;
}

int tr_env_report_line(const char *s, size_t n)
{
	/* the keys that open PyTorch's environment report (torch.utils.collect_env,
	 * and the engines' copies of it: vLLM's, SGLang's), which issue templates
	 * ask every reporter to paste: the machine, a setting */
	static const char *const keys[] = {"PyTorch version: ", "Is debug build: ", "CUDA used to build PyTorch: ",
					   "ROCM used to build PyTorch: ", "Is CUDA available: "};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t kl = strlen(keys[i]);
		if (n > kl && !memcmp(s, keys[i], kl))
			return 1;
	}
	return 0;
}
