/*
 * Description: /proc/vmstat, the counters every span reports as deltas
 * (src/host/vmstat.c): exact values from the fixture trees of three
 * kernels, the allocstall sum across zones (and the single pre-4.8 line),
 * absent counters left n/a, garbage lines left n/a without losing the good
 * ones, the real file moving when this process faults, and the span path's
 * prefix read (src/profiler/procfd.c) giving the same values as a whole
 * read when the file grows under it; and a span's deltas and the
 * watchdog's rates only for a counter read at both ends.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#include "format/line.h"
#include "host/procfs.h"

#define FX LSC_TEST_FIXTURES
#define BIT(c) (1u << (c))
#define ALL ((1u << LSC_VM_COUNT) - 1)

static void assert_counter(const struct lsc_vmstat *v, enum lsc_vm_counter c, int64_t want)
{
	cr_assert(v->valid & BIT(c), "%s: n/a", lsc_vm_name(c));
	cr_assert_eq(v->v[c], want, "%s: %lld, want %lld", lsc_vm_name(c), (long long)v->v[c],
		     (long long)want);
}

static void assert_na(const struct lsc_vmstat *v, enum lsc_vm_counter c)
{
	cr_assert(!(v->valid & BIT(c)), "%s: %lld, want n/a", lsc_vm_name(c), (long long)v->v[c]);
}

Test(vmstat, names)
{
	static const char *const want[LSC_VM_COUNT] = {
		"compact_stall", "compact_fail", "compact_success", "thp_fault_alloc",
		"thp_fault_fallback", "thp_fault_fallback_charge", "allocstall", "pgscan_direct",
		"pgsteal_direct", "pgfault", "pgmajfault", "pswpin", "pswpout", "nr_free_pages",
	};

	for (int c = 0; c < LSC_VM_COUNT; c++)
		cr_assert_str_eq(lsc_vm_name(c), want[c]);
	cr_assert_null(lsc_vm_name(LSC_VM_COUNT));
	cr_assert_null(lsc_vm_name((enum lsc_vm_counter)-1));
}

Test(vmstat, host_6_18)
{
	struct lsc_vmstat v;

	cr_assert_eq(lsc_vmstat_read(FX "/host-6.18-madvise/proc", &v), 0);
	cr_assert_eq(v.valid, ALL, "valid %#x", v.valid);
	assert_counter(&v, LSC_VM_NR_FREE_PAGES, 1052021);
	assert_counter(&v, LSC_VM_PGFAULT, 2800191);
	assert_counter(&v, LSC_VM_PGMAJFAULT, 1322);
	assert_counter(&v, LSC_VM_THP_FAULT_ALLOC, 32);
	assert_counter(&v, LSC_VM_COMPACT_STALL, 0);
	assert_counter(&v, LSC_VM_ALLOCSTALL, 0);
	assert_counter(&v, LSC_VM_THP_FAULT_FALLBACK_CHARGE, 0);
}

Test(vmstat, stalled_6_8)
{
	struct lsc_vmstat v;

	cr_assert_eq(lsc_vmstat_read(FX "/always-defer-madvise/proc", &v), 0);
	cr_assert_eq(v.valid, ALL, "valid %#x", v.valid);
	assert_counter(&v, LSC_VM_COMPACT_STALL, 5432);
	assert_counter(&v, LSC_VM_COMPACT_FAIL, 5432);
	assert_counter(&v, LSC_VM_COMPACT_SUCCESS, 0);
	assert_counter(&v, LSC_VM_THP_FAULT_ALLOC, 1262);
	assert_counter(&v, LSC_VM_THP_FAULT_FALLBACK, 1810);
	assert_counter(&v, LSC_VM_THP_FAULT_FALLBACK_CHARGE, 3);
	assert_counter(&v, LSC_VM_ALLOCSTALL, 11 + 1800); /* dma32 + normal */
	assert_counter(&v, LSC_VM_PGSCAN_DIRECT, 912345); /* not pgscan_direct_throttle (5) */
	assert_counter(&v, LSC_VM_PGSTEAL_DIRECT, 455012);
	assert_counter(&v, LSC_VM_PGFAULT, 123456789);
	assert_counter(&v, LSC_VM_PGMAJFAULT, 4321);
	assert_counter(&v, LSC_VM_PSWPIN, 777);
	assert_counter(&v, LSC_VM_PSWPOUT, 8888);
	assert_counter(&v, LSC_VM_NR_FREE_PAGES, 349553); /* not nr_free_pages_blocks */
}

Test(vmstat, old_kernel_4_4)
{
	struct lsc_vmstat v;

	cr_assert_eq(lsc_vmstat_read(FX "/old-kernel-no-mthp/proc", &v), 0);
	assert_counter(&v, LSC_VM_ALLOCSTALL, 387); /* the single pre-4.8 line */
	assert_counter(&v, LSC_VM_COMPACT_STALL, 40127);
	assert_counter(&v, LSC_VM_COMPACT_FAIL, 33802);
	assert_counter(&v, LSC_VM_THP_FAULT_FALLBACK, 9871);
	assert_counter(&v, LSC_VM_NR_FREE_PAGES, 2051210);
	/* 5.8 added thp_fault_fallback_charge; before 4.8 direct scan and steal
	 * were per zone (pgscan_direct_normal, ...) */
	assert_na(&v, LSC_VM_THP_FAULT_FALLBACK_CHARGE);
	assert_na(&v, LSC_VM_PGSCAN_DIRECT);
	assert_na(&v, LSC_VM_PGSTEAL_DIRECT);
}

Test(vmstat, container_without_vmstat)
{
	struct lsc_vmstat v;

	memset(&v, 0xff, sizeof(v));
	cr_assert_eq(lsc_vmstat_read(FX "/container-no-vmstat/proc", &v), -ENOENT);
	cr_assert_eq(v.valid, 0);
	for (int c = 0; c < LSC_VM_COUNT; c++)
		cr_assert_eq(v.v[c], 0);
}

Test(vmstat, garbage_lines_are_na_and_good_lines_survive)
{
	struct lsc_vmstat v;

	cr_assert_eq(lsc_vmstat_read(FX "/garbage/proc", &v), 0);
	assert_na(&v, LSC_VM_NR_FREE_PAGES);    /* "12x" */
	assert_na(&v, LSC_VM_COMPACT_STALL);    /* "-5" */
	assert_na(&v, LSC_VM_COMPACT_FAIL);     /* overflow */
	assert_na(&v, LSC_VM_COMPACT_SUCCESS);  /* no value */
	assert_na(&v, LSC_VM_THP_FAULT_ALLOC);  /* two spaces */
	assert_na(&v, LSC_VM_ALLOCSTALL);       /* one zone line is junk: no partial sum */
	assert_na(&v, LSC_VM_PGMAJFAULT);       /* INT64_MAX + 1 */
	assert_counter(&v, LSC_VM_PGFAULT, 1234);
	assert_counter(&v, LSC_VM_PSWPIN, 42);
	assert_counter(&v, LSC_VM_PSWPOUT, INT64_MAX);
	assert_counter(&v, LSC_VM_PGSCAN_DIRECT, 5);
}

Test(vmstat, parse_strings)
{
	struct lsc_vmstat v;
	const char *t;

	t = "allocstall_dma 1\nallocstall_dma32 2\nallocstall_normal 3\nallocstall_movable 4\n"
	    "allocstall_device 5\n";
	cr_assert_eq(lsc__vmstat_parse(t, strlen(t), &v), 1);
	assert_counter(&v, LSC_VM_ALLOCSTALL, 15);

	t = "allocstallx 9\nallocstal 9\nxallocstall 9\nallocstall_normal 1\n";
	lsc__vmstat_parse(t, strlen(t), &v);
	assert_counter(&v, LSC_VM_ALLOCSTALL, 1);

	/* same length as a counter, or a first letter that starts one */
	t = "pgscan_direct_throttle 9\npgfaults 9\npgfault\t9\npgfaulx 9\nnr_free_pagez 9\n"
	    "apgfault 9\n";
	cr_assert_eq(lsc__vmstat_parse(t, strlen(t), &v), 0);
	cr_assert_eq(v.valid, 0);

	t = "pgfault 7"; /* no newline, and a length that stops mid-buffer */
	cr_assert_eq(lsc__vmstat_parse(t, strlen(t), &v), 1);
	assert_counter(&v, LSC_VM_PGFAULT, 7);
	cr_assert_eq(lsc__vmstat_parse("pgfault 712", 9, &v), 1);
	assert_counter(&v, LSC_VM_PGFAULT, 7);

	cr_assert_eq(lsc__vmstat_parse("", 0, &v), 0);
	cr_assert_eq(lsc__vmstat_parse("\n\n\n", 3, &v), 0);

	/* an allocstall sum that would overflow is n/a, not wrapped */
	t = "allocstall_normal 9223372036854775807\nallocstall_movable 1\n";
	lsc__vmstat_parse(t, strlen(t), &v);
	assert_na(&v, LSC_VM_ALLOCSTALL);
}

Test(vmstat, null_out)
{
	cr_assert_eq(lsc_vmstat_read(NULL, NULL), -EINVAL);
}

Test(vmstat, the_real_file_moves_with_our_faults)
{
	struct lsc_vmstat a, b;
	const size_t len = 16u << 20;

	if (lsc_vmstat_read(NULL, &a) == -ENOENT)
		cr_skip_test("no /proc/vmstat here (a container?)");
	cr_assert(a.valid & BIT(LSC_VM_PGFAULT));
	cr_assert(a.valid & BIT(LSC_VM_NR_FREE_PAGES));
	cr_assert(a.valid & BIT(LSC_VM_COMPACT_STALL));
	cr_assert(a.valid & BIT(LSC_VM_ALLOCSTALL));

	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(m, MAP_FAILED);
	madvise(m, len, MADV_NOHUGEPAGE); /* one fault per 4 KiB page */
	for (size_t i = 0; i < len; i += 4096)
		m[i] = 1;
	cr_assert_eq(lsc_vmstat_read("/proc", &b), 0);
	munmap(m, len);

	cr_assert_geq(b.v[LSC_VM_PGFAULT] - a.v[LSC_VM_PGFAULT], (int64_t)(len / 4096),
		      "pgfault moved by %lld", (long long)(b.v[LSC_VM_PGFAULT] - a.v[LSC_VM_PGFAULT]));
}

/* The file the profiler reads, rewritten in place between reads: @pad
 * bytes of counters nobody asks for ahead of ours, and our values. */
static size_t write_vmstat(const char *path, size_t pad, long fault, long charge, size_t *charge_at)
{
	static char text[16384];
	size_t n = (size_t)snprintf(text, sizeof(text), "nr_free_pages 1000\n");
	for (unsigned i = 0; pad > 0; i++) {
		char line[64];
		int k = snprintf(line, sizeof(line), "nr_unasked_%u 0\n", i);
		if ((size_t)k > pad) /* the last one, cut to fit */
			k = snprintf(line, sizeof(line), "%.*s\n", (int)pad - 1, "x_xxxxxxxxxxxxxxxxxxxxx");
		memcpy(text + n, line, (size_t)k);
		n += (size_t)k;
		pad -= (size_t)k;
	}
	n += (size_t)snprintf(text + n, sizeof(text) - n, "pgfault %ld\n", fault);
	*charge_at = n;
	n += (size_t)snprintf(text + n, sizeof(text) - n,
			      "thp_fault_fallback_charge %ld\nthp_split_page 0\nballoon_inflate 0\n",
			      charge);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(text, 1, n, f), n);
	fclose(f);
	return n;
}

static void span_over(lsc_profiler *p, const char *path, size_t pad, long fault, long charge,
		      long want_fault, long want_charge)
{
	size_t at;
	lsc_span s;
	struct lsc_span_result r;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_READ, NULL, 0, &s), 0);
	write_vmstat(path, pad, fault, charge, &at);
	cr_assert_eq(lsc_span_end(p, s, &r), 0);
	cr_assert(r.vm_valid & BIT(LSC_VM_PGFAULT));
	cr_assert(r.vm_valid & BIT(LSC_VM_THP_FAULT_FALLBACK_CHARGE));
	cr_assert_eq(r.vm[LSC_VM_PGFAULT], want_fault, "pgfault delta %lld, want %ld (pad %zu)",
		     (long long)r.vm[LSC_VM_PGFAULT], want_fault, pad);
	cr_assert_eq(r.vm[LSC_VM_THP_FAULT_FALLBACK_CHARGE], want_charge,
		     "charge delta %lld, want %ld (pad %zu)",
		     (long long)r.vm[LSC_VM_THP_FAULT_FALLBACK_CHARGE], want_charge, pad);
}

/* A profiler on the tree at @root whose lines go nowhere. */
static void discard(void *user, const char *line, size_t len)
{
	(void)user, (void)line, (void)len;
}

static lsc_profiler *profiler_at(const char *root)
{
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = discard;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE | LSC_PROFILER_NO_WATCHDOG;
	o.proc_root = root;
	lsc_profiler *p;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	return p;
}

Test(vmstat, prefix_read_follows_a_file_that_moves)
{
	char root[] = "/tmp/lsc-vmstat-XXXXXX", path[64];
	cr_assert_not_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/vmstat", root);
	size_t charge_at, end;
	write_vmstat(path, 0, 10, 1, &charge_at);
	lsc_profiler *p = profiler_at(root);

	/* Learned from a whole read; then the same layout, through the prefix. */
	span_over(p, path, 0, 15, 2, 5, 1);
	span_over(p, path, 0, 25, 4, 10, 2);
	/* Our counters pushed 2000 bytes further than the prefix reaches. */
	span_over(p, path, 2000, 40, 5, 15, 1);
	/* Re-learned at 2000: the last counter's line now straddles the end of
	 * the prefix (the whole read learned its end + slack) right after the
	 * first digit, so a read that trusted the prefix would see
	 * "thp_fault_fallback_charge 1". */
	end = write_vmstat(path, 2000, 40, 5, &charge_at);
	(void)end;
	size_t learned_end = charge_at + strlen("thp_fault_fallback_charge 5\n");
	size_t want = learned_end + 256; /* procfd.c's slack */
	size_t pad = 2000 + (want - strlen("thp_fault_fallback_charge 1")) - charge_at;
	span_over(p, path, pad, 41, 123456789, 1, 123456784);
	span_over(p, path, pad, 51, 123456790, 10, 1);

	lsc_profiler_destroy(p);
	unlink(path);
	rmdir(root);
}

/* The file the profiler reads, rewritten with only the lines given. */
static void write_lines(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fputs(text, f) >= 0, 1);
	fclose(f);
}

/* A span's delta exists only for a counter read at both ends: one that
 * vanished before the end, or appeared only at the end, is n/a (a delta
 * against a missing value would be the other value, negated or whole),
 * while the counters read at both ends keep exact deltas. */
Test(vmstat, a_counter_read_at_one_end_only_is_na)
{
	char root[] = "/tmp/lsc-vmstat-XXXXXX", path[64];
	cr_assert_not_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/vmstat", root);
	write_lines(path, "nr_free_pages 1000\npgfault 10\ncompact_stall 7\n");
	lsc_profiler *p = profiler_at(root);
	lsc_span s;
	struct lsc_span_result r;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_READ, NULL, 0, &s), 0);
	/* compact_stall gone, allocstall new, the other two moved */
	write_lines(path, "nr_free_pages 900\npgfault 25\nallocstall_normal 3\n");
	cr_assert_eq(lsc_span_end(p, s, &r), 0);
	cr_assert_eq(r.vm_valid, BIT(LSC_VM_NR_FREE_PAGES) | BIT(LSC_VM_PGFAULT), "vm_valid %#x",
		     r.vm_valid);
	cr_assert_eq(r.vm[LSC_VM_PGFAULT], 15);
	cr_assert_eq(r.vm[LSC_VM_NR_FREE_PAGES], -100);
	cr_assert_eq(r.vm[LSC_VM_COMPACT_STALL], 0, "compact_stall %lld",
		     (long long)r.vm[LSC_VM_COMPACT_STALL]);
	cr_assert_eq(r.vm[LSC_VM_ALLOCSTALL], 0, "allocstall %lld", (long long)r.vm[LSC_VM_ALLOCSTALL]);
	lsc_profiler_destroy(p);
	unlink(path);
	rmdir(root);
}

/* The watchdog's rates follow the same rule: a counter read at one of the
 * two samples only has no rate. The sink changes the file as each `still`
 * line arrives, so each line's two samples are known: the 1st line's
 * samples both have compact_stall; the file then loses it (2nd line: read
 * at the earlier sample only), and gets it back (3rd line: read at the
 * later sample only). The other three counters never move: rate 0. */
static const char *const WD_WITH = "compact_stall 7\ncompact_fail 3\nthp_fault_fallback 1\nallocstall_normal 2\n";
static const char *const WD_WITHOUT = "compact_fail 3\nthp_fault_fallback 1\nallocstall_normal 2\n";
static struct {
	char path[64];
	char lines[3][LSC__LINE_MAX + 1];
	unsigned n;
	sem_t third;
} wd;

static void changing_sink(void *user, const char *line, size_t len)
{
	(void)user;
	if (!strstr(line, "] still ") || wd.n >= 3)
		return;
	memcpy(wd.lines[wd.n], line, len < LSC__LINE_MAX ? len : LSC__LINE_MAX);
	wd.n++;
	if (wd.n == 1)
		write_lines(wd.path, WD_WITHOUT);
	else if (wd.n == 2)
		write_lines(wd.path, WD_WITH);
	else
		sem_post(&wd.third);
}

Test(vmstat, watchdog_rates_need_the_counter_at_both_samples)
{
	char root[] = "/tmp/lsc-vmstat-XXXXXX";
	cr_assert_not_null(mkdtemp(root));
	snprintf(wd.path, sizeof(wd.path), "%s/vmstat", root);
	write_lines(wd.path, WD_WITH);
	cr_assert_eq(sem_init(&wd.third, 0, 0), 0);
	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = changing_sink;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE;
	o.proc_root = root;
	o.watchdog_after_s = 0.01;
	o.watchdog_every_s = 0.01;
	lsc_profiler *p;
	cr_assert_eq(lsc_profiler_create(&o, &p), 0);
	lsc_start_begin(p, "rates");
	lsc_span s;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_ALLOCATE, NULL, 0, &s), 0);
	/* a deadline only so that a silent watchdog fails instead of hanging */
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 60;
	int rc;
	while ((rc = sem_timedwait(&wd.third, &ts)) < 0 && errno == EINTR)
		;
	lsc_span_end(p, s, NULL);
	lsc_start_end(p);
	lsc_profiler_destroy(p);
	unlink(wd.path);
	rmdir(root);
	cr_assert_eq(rc, 0, "%u still lines, want 3", wd.n);

	static const char *const want_stall[3] = {"0.0", "n/a", "n/a"};
	for (unsigned i = 0; i < 3; i++) {
		struct lsc__parsed pl;
		cr_assert_eq(lsc__line_parse(wd.lines[i], strlen(wd.lines[i]), &pl), 1, "%s", wd.lines[i]);
		cr_assert_str_eq(lsc__parsed_get(&pl, "compact_stall_per_s"), want_stall[i], "line %u: %s",
				 i + 1, pl.human);
		cr_assert_str_eq(lsc__parsed_get(&pl, "compact_fail_per_s"), "0.0", "line %u", i + 1);
		cr_assert_str_eq(lsc__parsed_get(&pl, "thp_fault_fallback_per_s"), "0.0", "line %u", i + 1);
		cr_assert_str_eq(lsc__parsed_get(&pl, "allocstall_per_s"), "0.0", "line %u", i + 1);
	}
}

/* The span path reads the descriptor it opened at creation: with the file
 * gone from the tree afterwards, spans still get their counters (a path
 * opened per read would find nothing and leave them n/a). */
Test(vmstat, spans_read_the_kept_descriptor)
{
	char root[] = "/tmp/lsc-vmstat-XXXXXX", path[64];
	size_t at;
	cr_assert_not_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/vmstat", root);
	write_vmstat(path, 0, 10, 1, &at);
	lsc_profiler *p = profiler_at(root);
	unlink(path);
	rmdir(root);
	lsc_span s;
	struct lsc_span_result r;
	cr_assert_eq(lsc_span_begin(p, LSC_PHASE_READ, NULL, 0, &s), 0);
	cr_assert_eq(lsc_span_end(p, s, &r), 0);
	cr_assert(r.vm_valid & BIT(LSC_VM_PGFAULT), "no counters: the span opened the path");
	lsc_profiler_destroy(p);
}
