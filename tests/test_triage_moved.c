/*
 * Description: an amount of memory moved over a time (tools/triage/moved.c)
 * read from one line on its own: a size, then "in" and a duration, or a
 * verb of the load and "at" a rate (the time is the size over the rate),
 * the verb before the size or after it. Each figure is written out here
 * from the line's numbers (GB as 10^9 bytes, GiB as 2^30); a download, a
 * size with a rate and no verb, or a rate with no size gives nothing.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "triage/internal.h"

#define GB (1e9 / 1073741824.0)

static const struct {
	const char *line;
	int found;
	double gib, secs;
} cases[] = {
	{"5.21 GB loaded at 3.74 GB/s", 1, 5.21 * GB, 5.21 / 3.74},
	{"copied 12 GB at 1.2 GB/s", 1, 12 * GB, 10},
	{"INFO loaded weights: 6 GiB loaded at 2 GiB/s", 1, 6, 3},
	{"pinned 28.47 GiB in 18 s", 1, 28.47, 18},
	{"read 4,000 MiB in 2 min", 1, 4000 / 1024.0, 120},
	{"model: copied 512 MiB in 250 ms", 1, 0.5, 0.25},
	{"loading model: downloaded 4 GB at 100 MB/s", 0, 0, 0},
	{"loading model: fetched 4 GB in 40 s", 0, 0, 0},
	{"loading model: 4 GB in 40 s", 1, 4 * GB, 40},
	{"12 GB at 1.2 GB/s", 0, 0, 0},
	{"loaded at 3.74 GB/s", 0, 0, 0},
	{"the run took 40 s", 0, 0, 0},
	/* a verb after the size with no "at" after it, and a rate later in
	 * the line (seed 20261218's survivor at moved.c:52: any line's verb
	 * taken for one followed by "at") */
	{"5.21 GB loaded, the disk at 3.74 GB/s", 0, 0, 0},
	{"5.21 GB loaded; at 3.74 GB/s", 0, 0, 0},
};

Test(triage_moved, each_line_gives_its_amount_and_time)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double gib = NAN, secs = NAN;
		int got = tr_moved_in(cases[i].line, strlen(cases[i].line), &gib, &secs);
		cr_assert_eq(got != 0, cases[i].found, "\"%s\": %s", cases[i].line, got ? "read" : "not read");
		if (!cases[i].found)
			continue;
		cr_assert(fabs(gib - cases[i].gib) <= 1e-9 * cases[i].gib, "\"%s\": %.9g GiB, want %.9g", cases[i].line,
			  gib, cases[i].gib);
		cr_assert(fabs(secs - cases[i].secs) <= 1e-9 * cases[i].secs, "\"%s\": %.9g s, want %.9g", cases[i].line,
			  secs, cases[i].secs);
	}
}
