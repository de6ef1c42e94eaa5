/*
 * A checkpoint set against the memory that could cache it, in an engine's
 * words: `the checkpoint size (148.66 GiB) exceeds 90% of available RAM
 * (0.65 GiB)`, `model size: 70 GiB, available memory: 31 GiB`. When the
 * checkpoint is larger than 90% of the RAM available, the page cache
 * cannot hold it: every byte of the load comes from the device (or the
 * share it lives on), and a slow read is the device's (disk-bound-read).
 * Read wherever a line names both, whichever recogniser took it (vLLM's
 * prefetch notice, an engine no shape names). Case-blind, the size within
 * a few bytes after its noun (`size (X)`, `size: X`, `RAM (Y)`).
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/* The first size within 12 bytes after @noun in @s[0..n), in GiB; NAN none. */
static double size_after(const char *s, size_t n, const char *noun)
{
	const char *k = tr_memmem_ci(s, n, noun), *end = s + n;
	if (!k)
		return NAN;
	const char *p = k + strlen(noun);
	for (const char *lim = p + 12; p < end && p < lim && !tr_digit(*p); p++)
		;
	double v;
	if (p >= end || !tr_digit(*p) || !tr_size_gib(&p, end, &v) || !(v > 0 && v < 1e6))
		return NAN;
	return v;
}

int tr_ckpt_over_ram(const char *s, size_t n, double *ckpt_gib)
{
	static const char *const ckpt[] = {"checkpoint size", "model size"};
	static const char *const ram[] = {"available ram", "ram available", "available memory", "memory available"};
	double ck = NAN, r = NAN;
	for (size_t i = 0; i < sizeof(ckpt) / sizeof(ckpt[0]) && isnan(ck); i++)
		ck = size_after(s, n, ckpt[i]);
	for (size_t i = 0; i < sizeof(ram) / sizeof(ram[0]) && isnan(r); i++)
		r = size_after(s, n, ram[i]);
	if (isnan(ck) || isnan(r))
		return 0;
	*ckpt_gib = ck;
	return ck > 0.9 * r;
}
