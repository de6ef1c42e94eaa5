/*
 * libFuzzer target: arbitrary bytes through the whole triage, the way the
 * CLI meets a paste: fed in random chunk sizes (a line split anywhere across
 * feeds), finished, then rendered in every format (with the A/B table and
 * redaction toggled by the input) into /dev/null, findings listed.
 *
 * The first two bytes choose the options and the chunking seed, the rest is
 * the log, so the seed corpus (whole logs) keeps its meaning.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "triage/triage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	if (!null)
		null = fopen("/dev/null", "w");
	if (!null)
		return 0;
	unsigned flags = 0, seed = 1;
	if (size >= 2) {
		flags = (data[0] & 1 ? LSC_TRIAGE_TABLE : 0) | (data[0] & 2 ? LSC_TRIAGE_REDACT : 0) |
			(data[0] & 4 ? LSC_TRIAGE_COLOR : 0) |
			((data[0] & 9) == 9 ? LSC_TRIAGE_TABLE_ONLY : 0);
		seed = data[1] | 1u;
		data += 2;
		size -= 2;
	}
	struct lsc_triage_opts o = {.flags = flags, .source = "fuzz"};
	struct lsc_triage *t = lsc_triage_new(&o);
	if (!t)
		return 0;
	size_t off = 0;
	uint32_t x = seed * 2654435761u;
	while (off < size) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		size_t n = 1 + x % 257;
		if (x & 0x10000)
			n = 1 + x % 8192;
		if (n > size - off)
			n = size - off;
		lsc_triage_feed(t, (const char *)data + off, n);
		off += n;
	}
	lsc_triage_finish(t);
	for (int f = LSC_TRIAGE_TEXT; f <= LSC_TRIAGE_MD; f++)
		lsc_triage_render(t, (enum lsc_triage_fmt)f, null);
	size_t nf = lsc_triage_nfindings(t);
	for (size_t i = 0; i < nf; i++) {
		struct lsc_triage_finding_info fi;
		if (lsc_triage_finding(t, i, &fi) == 0 && fi.id && fi.summary)
			fputs(fi.id, null);
	}
	(void)lsc_triage_exit_code(t);
	(void)lsc_triage_nstarts(t);
	lsc_triage_free(t);
	return 0;
}
