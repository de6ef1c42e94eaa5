/*
 * Description: the figures of a loadscope line read back from its sentence
 * alone (tools/triage/lsc_sentence.c), event by event. Each line below is a
 * sentence as the library writes it (docs/log-format.md) with its tail cut
 * off, and the fields it must give are listed by hand from the sentence's
 * own numbers: exactly those fields, no others, with those values. Then, as
 * a property, every cut of each line at every byte gives only fields the
 * whole sentence gives, and every number among them equal to the whole
 * sentence's: a cut inside a number ("+8" of "+85") drops it rather than
 * reading a smaller one. A field the line's tail has is never replaced.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/line.h"
#include "format/vocab.h"
#include "triage/lsc_sentence.h"

#define GIB 1073741824.0
#define MIB 1048576.0

struct read_back {
	char line[2048];
	char said[1024];
	struct lsc__parsed p;
	int ok;
};

/* Parse @n bytes of @line and add what its sentence says. */
static void read_back(struct read_back *r, const char *line, size_t n)
{
	memcpy(r->line, line, n);
	r->line[n] = '\0';
	r->ok = lsc__line_parse(r->line, n, &r->p) == 1;
	if (r->ok)
		tr_lsc_sentence(&r->p, lsc__event_of(r->p.event), r->said, sizeof r->said);
}

static int is_num(const char *s, double *v)
{
	char *e;
	*v = strtod(s, &e);
	return *s && !*e;
}

struct want {
	const char *line;
	/* "key=value" entries separated by '|': a value that reads as a number
	 * is compared as one (within 1e-9 relative), else as text */
	const char *fields;
};

#define S2 "[loadscope/2] "

static const struct want cases[] = {
	{S2 "phase allocate: 64.0 MiB in 0.073 s (0.86 GiB/s); machine thp_fault_alloc +24 compact_stall -3; "
	    "this process 4127 minor, 2 major faults; stalled on memory 0.250 s",
	 "vm=n/a|name=allocate|kind=allocate|bytes=67108864|wall_s=0.073|gibps=0.86|minflt=4127|majflt=2|"
	 "faults_per_s=56534.24657534247|vm_thp_fault_alloc=24|vm_compact_stall=-3|psi_some_us=250000"},
	{S2 "phase prefault (nested): 1.50 GiB in 2.000 s (0.75 GiB/s); this process 258.1k minor, 1.2M major faults",
	 "vm=n/a|depth=1|name=prefault|bytes=1610612736|wall_s=2|gibps=0.75|minflt=258100|majflt=1200000|"
	 "faults_per_s=129050"},
	{S2 "phase pin: 0.000 s; this process 0 minor, 0 major faults",
	 "vm=n/a|name=pin|kind=pin|wall_s=0|minflt=0|majflt=0|faults_per_s=0"},
	/* faults in no time: no rate */
	{S2 "phase pin: 0.000 s; this process 5 minor, 0 major faults", "vm=n/a|name=pin|kind=pin|wall_s=0|minflt=5|majflt=0"},
	{S2 "phase copy: 3.00 GiB in 1.500 s (2.00 GiB/s); this process 1.5G minor, 7 major faults",
	 "vm=n/a|name=copy|kind=copy|bytes=3221225472|wall_s=1.5|gibps=2|minflt=1500000000|majflt=7|faults_per_s=1e9"},
	{S2 "phase verify: 64.0 MiB in 0.014 s busy (4.50 GiB/s), overlapped with other phases",
	 "vm=n/a|name=verify|kind=verify|bytes=67108864|wall_s=0.014|overlapped=1"},
	{S2 "phase verify: 64.0 MiB in 0.014 s busy (4.50 GiB/s)", "vm=n/a|name=verify|kind=verify|bytes=67108864|wall_s=0.014"},
	{S2 "phase read: failed after 1.500 s", "vm=n/a|name=read|kind=read|wall_s=1.5|failed=1"},
	/* a name that starts with a kind's is no kind; a counter not in the
	 * vocabulary is stepped over, k counts thousands */
	{S2 "phase reading: 2.00 GiB in 4.000 s (0.50 GiB/s); machine nosuch +3 compact_fail +2k; this process 1 minor, "
	    "0 major faults",
	 "vm=n/a|name=reading|bytes=2147483648|wall_s=4|gibps=0.5|vm_compact_fail=2000|minflt=1|majflt=0|faults_per_s=0.25"},
	/* cut inside its last number: that number is not read */
	{S2 "phase reading: 2.00 GiB in 4.000 s (0.50 GiB/s); machine nosuch +3 compact_fail +2k",
	 "vm=n/a|name=reading|bytes=2147483648|wall_s=4|gibps=0.5"},
	{S2 "phase allocate: 1.00 GiB in 0.429 s (2.33 GiB/s); machine thp_fault_alloc +8 compact_stall +85",
	 "vm=n/a|name=allocate|kind=allocate|bytes=1073741824|wall_s=0.429|gibps=2.33|vm_thp_fault_alloc=8"},
	/* the tail's fields stay as they are, the sentence fills in the rest */
	{S2 "phase read: 1.00 GiB in 2.000 s (0.50 GiB/s) | wall_s=9 kind=read",
	 "wall_s=9|kind=read|name=read|bytes=1073741824|gibps=0.5"},

	{S2 "complement ready: resident 0.06 GiB, pinned 0.50 GiB in 0.111 s (alloc 0.073 s, pin 0.002 s, copy 0.038 s); "
	    "0.05 GiB of it in huge pages",
	 "resident_bytes=64424509.44|pinned_bytes=536870912|total_s=0.111|alloc_s=0.073|pin_s=0.002|copy_s=0.038"},
	{S2 "complement ready: 2.00 GiB read into memory allocated and pinned by the caller in 3.250 s (copy 3.100 s); the "
	    "caller's memory: 0.00 GiB of 2.00 GiB in huge pages, 2.00 GiB locked, process VmPin 0.00 GiB",
	 "total_s=3.25|copy_s=3.1"},

	{S2 "loaded 2.00 GiB in 4.000 s (0.50 GiB/s over the wall time); allocate 1.000 s, pin 0.500 s, read 2.000 s "
	    "(1.00 GiB/s), copy 0.250 s, verify 0.100 s busy; io_uring, O_DIRECT",
	 "bytes=2147483648|wall_s=4|gibps=0.5|alloc_s=1|pin_s=0.5|read_s=2|read_gibps=1|copy_s=0.25|verify_s=0.1|direct=1"},
	{S2 "loaded 1.00 GiB in 2.000 s (0.50 GiB/s over the wall time); allocate and pin by the caller, read 2.000 s "
	    "(0.50 GiB/s); io_uring, buffered",
	 "bytes=1073741824|wall_s=2|gibps=0.5|read_s=2|read_gibps=0.5"},

	{S2 "ready in 0.764 s: 5 phases, 0.044 s (5.7%) unattributed",
	 "wall_s=0.764|phases=5|unattributed_s=0.044|covered_s=0.72"},
	{S2 "ready in 0.500 s", "wall_s=0.5"},
	{S2 "ready in 0.500 s: all phases", "wall_s=0.5"},
	{S2 "ready after 3 s", ""},

	{S2 "system 6.18.44; THP madvise, defrag madvise; MemAvailable 22.58 GiB of 23.54 GiB, 5.43 GiB in huge-page "
	    "blocks; hugetlb 3 of 8 free; CAP_IPC_LOCK; memlock 8.0 MiB; page reporting (order 9)",
	 "thp_enabled=madvise|thp_defrag=madvise|mem_available_bytes=24245090385.92|mem_total_bytes=25275882536.96|"
	 "hugetlb_free=3|hugetlb_total=8|cap_ipc_lock=1|memlock_bytes=8388608|page_reporting=1|page_reporting_order=9"},
	{S2 "system 6.1; THP always, defrag never, disabled by prctl; memlock unlimited; page reporting",
	 "thp_enabled=always|thp_defrag=never|thp_prctl=disabled|memlock_bytes=unlimited|page_reporting=1"},
	{"[loadscope/1] system kernel 5.15 THP enabled=always defrag=defer+madvise; hugetlb 0; memlock 64.0 KiB",
	 "thp_enabled=always|thp_defrag=defer+madvise|hugetlb_free=0|memlock_bytes=65536"},

	{S2 "arena 64.0 MiB as thp (requested auto by option): room; faulted in steps",
	 "arena_bytes=67108864|policy=thp|requested=auto|source=option"},
	{S2 "arena 1.00 TiB as 4k (requested 4k by env): asked for", "arena_bytes=1099511627776|policy=4k|requested=4k|source=env"},
	{S2 "arena 64.0 MiB in thp", ""},

	{S2 "fallback pin: wanted cuda, took mlock: no GPU runtime (libcudart.so.13 not found)",
	 "what=pin|wanted=cuda|took=mlock|reason=no GPU runtime (libcudart.so.13 not found)"},
	{S2 "fallback lines: wanted stream, took none", "what=lines|wanted=stream|took=none"},
	{S2 "fallback pin: took none", "what=pin"},
	{S2 "fallback reader", ""},

	{S2 "note pin: 64.0 MiB left pageable (none), 0 retries, 0 failures",
	 "topic=pin|text=64.0 MiB left pageable (none), 0 retries, 0 failures"},
	{S2 "note pin:left", "topic=pin"},
	{S2 "note two words: here", ""},
	{S2 "note :here", ""},

	{S2 "region buffer: 64.0 MiB mapped, 64.0 MiB resident, 0 B in transparent huge pages, 2.00 MiB hugetlb, 0 B "
	    "locked; THPeligible 0; 1 mapping",
	 "hugetlb_bytes=2097152"},
	{S2 "region buffer: 64.0 MiB mapped, 64.0 MiB resident, 0 B in transparent huge pages, 2.00 MiB locked", ""},

	{S2 "still in read after 10.004 s: 1.00 GiB of 8.00 GiB done (12%), 0.10 GiB/s now; machine compact_stall 120/s "
	    "thp_fault_alloc 3.5k/s; this process 25.6k faults/s; stalled on memory 81% of the time",
	 "elapsed_s=10.004|done_bytes=1073741824|total_bytes=8589934592|gibps=0.1|faults_per_s=25600|"
	 "compact_stall_per_s=120|thp_fault_alloc_per_s=3500"},
	{S2 "still in allocate after 30.000 s; this process 1.2M faults/s", "elapsed_s=30|faults_per_s=1200000"},
	{S2 "still in read after 2.000 s: 9.00 GiB done, more than the 8.00 GiB the span was given, rate n/a",
	 "elapsed_s=2|done_bytes=9663676416|total_bytes=8589934592"},
	{S2 "still in read after 2.000 s: 1.00 GiB done (12%)", "elapsed_s=2"},
	{S2 "still in allocate after 30.000 s; machine compact_stall 12 thp_fault_alloc 3/s", "elapsed_s=30"},

	{S2 "error read failed: EIO on model.bin", "what=read"},
	{S2 "error the read failed: EIO", ""},
};

static void expect_fields(const struct want *w)
{
	struct read_back r;
	read_back(&r, w->line, strlen(w->line));
	cr_assert(r.ok, "not parsed: %s", w->line);
	char spec[1024];
	snprintf(spec, sizeof spec, "%s", w->fields);
	unsigned n = 0;
	for (char *save, *e = strtok_r(spec, "|", &save); e; e = strtok_r(NULL, "|", &save), n++) {
		char *eq = strchr(e, '=');
		cr_assert_not_null(eq, "bad spec %s", e);
		*eq = '\0';
		const char *got = lsc__parsed_get(&r.p, e), *val = eq + 1;
		cr_expect_not_null(got, "%s: no %s", w->line, e);
		if (!got)
			continue;
		double a, b;
		if (is_num(val, &b)) {
			cr_expect(is_num(got, &a) && fabs(a - b) <= 1e-9 * fmax(1, fabs(b)), "%s: %s=%s, want %s", w->line, e,
				  got, val);
		} else {
			cr_expect_str_eq(got, val, "%s: %s", w->line, e);
		}
	}
	if (r.p.n != n) {
		for (unsigned i = 0; i < r.p.n; i++)
			cr_log_info("  %s=%s", r.p.kv[i].key, r.p.kv[i].val);
	}
	cr_expect_eq(r.p.n, n, "%s: %u fields, want %u", w->line, r.p.n, n);
}

Test(triage_sentence, each_sentence_gives_exactly_its_figures)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_fields(&cases[i]);
}

Test(triage_sentence, every_cut_gives_a_subset_with_the_same_numbers)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *line = cases[i].line;
		if (strstr(line, " | "))
			continue; /* the cut of a tail is not a cut sentence */
		static struct read_back whole, cut;
		read_back(&whole, line, strlen(line));
		cr_assert(whole.ok);
		for (size_t n = strlen(S2); n < strlen(line); n++) {
			read_back(&cut, line, n);
			if (!cut.ok)
				continue;
			for (unsigned k = 0; k < cut.p.n; k++) {
				const char *key = cut.p.kv[k].key, *v = cut.p.kv[k].val;
				const char *wv = lsc__parsed_get(&whole.p, key);
				cr_expect_not_null(wv, "cut at %zu of \"%s\": %s=%s, which the whole sentence does not give", n,
						   line, key, v);
				double a, b;
				if (wv && is_num(wv, &b) && strcmp(key, LSC__KEY(TEXT)) && strcmp(key, LSC__KEY(REASON)))
					cr_expect(is_num(v, &a) && fabs(a - b) <= 1e-9 * fmax(1, fabs(b)),
						  "cut at %zu of \"%s\": %s=%s, the whole gives %s", n, line, key, v, wv);
			}
		}
	}
}

Test(triage_sentence, a_line_with_no_sentence_or_no_room_is_left_alone)
{
	struct read_back r;
	const char *line = S2 "phase read: 1.00 GiB in 2.000 s (0.50 GiB/s)";
	memcpy(r.line, line, strlen(line) + 1);
	cr_assert_eq(lsc__line_parse(r.line, strlen(line), &r.p), 1);
	tr_lsc_sentence(&r.p, LSC__EV_PHASE, r.said, 1);
	cr_expect_eq(r.p.n, 0, "no room for one field: %u added", r.p.n);
	/* An event the sentence reader does not know adds nothing. */
	tr_lsc_sentence(&r.p, LSC__EV_START, r.said, sizeof r.said);
	cr_expect_eq(r.p.n, 0);
	/* The same sentence given the room reads its figures. */
	tr_lsc_sentence(&r.p, LSC__EV_PHASE, r.said, sizeof r.said);
	cr_expect_str_eq(lsc__parsed_get(&r.p, "bytes") ? lsc__parsed_get(&r.p, "bytes") : "", "1073741824");
}
