/*
 * Description: each THP policy of the arena on a real 64 MiB mapping, read
 * back from /proc/self/smaps: 4k (MADV_NOHUGEPAGE, no huge pages), thp
 * (MADV_HUGEPAGE applied, 2 MiB aligned), hugetlb with an empty pool (falls
 * back with the pool numbers, fails under LSC_LOAD_HUGETLB_STRICT),
 * process-off (PR_SET_THP_DISABLE held around the faults, the previous value
 * restored, checked in a forked child), chunked arenas (contiguous, every
 * piece mapped and advised), LOADSCOPE_ARENA_THP, and a NULL profiler.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/capture.h"
#include "helpers/process.h"
#include "helpers/sys_shim.h"
#include "host/procfs.h"
#include "loader/arena.h"

#ifndef PR_THP_DISABLE_EXCEPT_ADVISED
#define PR_THP_DISABLE_EXCEPT_ADVISED (1 << 1)
#endif

#define MIB (1ull << 20)
#define ARENA (64 * MIB)

static struct lsct_capture cap;

static void opts(struct lsc_load_options *o, enum lsc_thp_policy pol)
{
	lsc_load_options_init(o);
	o->thp = pol;
	o->prefault_threads = 2;
}

static void setup(void)
{
	unsetenv("LOADSCOPE_ARENA_THP");
}

TestSuite(arena_policy, .init = setup);

Test(arena_policy, four_k_has_no_huge_pages)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	struct lsct_vma v;
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	opts(&o, LSC_THP_4K);
	cr_assert_eq(lsc__arena_alloc(p, &o, ARENA, &a), 0, "%s", cap.buf);
	cr_expect_eq(a.applied, LSC_THP_4K);
	cr_expect_eq(a.mapped_bytes, ARENA);
	cr_assert_eq(lsct_vma_read(a.base, ARENA, &v), 0);
	cr_expect(v.all_nh, "VmFlags of the arena lack nh (MADV_NOHUGEPAGE not applied)");
	cr_expect_eq(v.anon_huge_bytes, 0, "AnonHugePages %llu on a 4k arena",
		     (unsigned long long)v.anon_huge_bytes);
	cr_expect_geq(v.rss_bytes, ARENA, "prefault left Rss at %llu", (unsigned long long)v.rss_bytes);
	cr_expect_eq(lsct_count_with(&cap, "arena", "policy=4k"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "arena", "requested=4k"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "phase", "kind=allocate"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "phase", "name=prefault"), 1, "%s", cap.buf);
	lsc__arena_release(&a);
	cr_expect_null(a.base);
	lsc_profiler_destroy(p);
}

/* Huge-page faults that fell back to 4 KiB pages, anywhere on the machine
 * (-1 when vmstat cannot say). */
static int64_t thp_fallbacks(void)
{
	struct lsc_vmstat vm;
	const uint32_t both = (1u << LSC_VM_THP_FAULT_FALLBACK) | (1u << LSC_VM_THP_FAULT_FALLBACK_CHARGE);
	if (lsc_vmstat_read(NULL, &vm) < 0 || (vm.valid & both) != both)
		return -1;
	return vm.v[LSC_VM_THP_FAULT_FALLBACK] + vm.v[LSC_VM_THP_FAULT_FALLBACK_CHARGE];
}

Test(arena_policy, thp_is_advised_and_aligned)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	struct lsct_vma v;
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	char en[64] = "";
	if (lsc__read_file("/sys", "kernel/mm/transparent_hugepage/enabled", en, sizeof(en), NULL) < 0 ||
	    strstr(en, "[never]"))
		cr_skip_test("transparent huge pages are off or absent here (enabled: %s)", en);

	opts(&o, LSC_THP_THP);
	int64_t fb0 = thp_fallbacks();
	cr_assert_eq(lsc__arena_alloc(p, &o, ARENA - 4096, &a), 0, "%s", cap.buf);
	int64_t fb1 = thp_fallbacks();
	cr_expect_eq(a.applied, LSC_THP_THP);
	cr_expect_eq(a.mapped_bytes, ARENA, "thp rounds up to 2 MiB");
	cr_expect_eq((uintptr_t)a.base % (2 * MIB), 0, "arena at %p is not 2 MiB aligned", a.base);
	cr_assert_eq(lsct_vma_read(a.base, a.mapped_bytes, &v), 0);
	cr_expect(v.all_hg, "VmFlags of the arena lack hg (MADV_HUGEPAGE not applied)");
	cr_expect_leq(v.anon_huge_bytes, a.mapped_bytes);
	/* The prefault faulted it all: in huge pages, unless the kernel
	 * counted a huge-page fault falling back meanwhile. */
	if (fb0 >= 0 && fb1 == fb0)
		cr_expect_eq(v.anon_huge_bytes, ARENA, "AnonHugePages %llu with no fallback counted",
			     (unsigned long long)v.anon_huge_bytes);
	cr_expect_eq(lsct_count_with(&cap, "arena", "policy=thp"), 1, "%s", cap.buf);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}

static int hugetlb_pool_empty(void)
{
	struct lsc_system s;
	lsc_system_read(NULL, NULL, &s);
	return s.hugetlb_total == 0;
}

Test(arena_policy, hugetlb_empty_pool_falls_back)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	if (!hugetlb_pool_empty())
		cr_skip_test("a hugetlb pool exists here (vm.nr_hugepages > 0): this test needs it empty");
	opts(&o, LSC_THP_HUGETLB);
	lsct_sys_fail(LSCT_SYS_MMAP, 0, 0); /* records the mappings */
	int rc = lsc__arena_alloc(p, &o, ARENA, &a);
	lsct_sys_restore();
	cr_assert_eq(rc, 0, "%s", cap.buf);
	cr_expect_neq(a.applied, LSC_THP_HUGETLB);
	cr_expect_eq(a.wanted, LSC_THP_HUGETLB);
	cr_expect_eq(lsct_count_with(&cap, "fallback",
			       "hugetlb unavailable (needed 32 2 MiB pages, pool has 0 free of 0, 0 of them reserved)"),
		     1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "fallback", "wanted=hugetlb"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "arena", "requested=hugetlb"), 1, "%s", cap.buf);
	lsc__arena_release(&a);
	cr_expect_eq(lsct_sys_leaked(), 0, "a mapping was left");
	lsc_profiler_destroy(p);
}

/* A verbose profiler into cap that reads the fixture tree @tree's /proc
 * and /sys. */
static lsc_profiler *fixture_profiler(const char *tree)
{
	static char proc[256], sys[256];
	struct lsc_profiler_options po;
	lsc_profiler_options_init(&po);
	memset(&cap, 0, sizeof cap);
	snprintf(proc, sizeof proc, "%s/%s/proc", LSC_TEST_FIXTURES, tree);
	snprintf(sys, sizeof sys, "%s/%s/sys", LSC_TEST_FIXTURES, tree);
	po.sink = lsct_sink;
	po.sink_user = &cap;
	po.mode = LSC_MODE_ON;
	po.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG | LSC_PROFILER_VERBOSE;
	po.proc_root = proc;
	po.sys_root = sys;
	lsc_profiler *p;
	cr_assert_eq(lsc_profiler_create(&po, &p), 0);
	return p;
}

/* Where the pool cannot be read (a container's /proc without hugetlb
 * lines), the fallback says how many pages were needed and that the pool
 * is n/a, not that it has 0 free of 0. */
Test(arena_policy, hugetlb_pool_not_readable_is_said_na)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	if (!hugetlb_pool_empty())
		cr_skip_test("a hugetlb pool exists here (vm.nr_hugepages > 0): this test needs it empty");
	lsc_profiler *p = fixture_profiler("container-no-vmstat");
	opts(&o, LSC_THP_HUGETLB);
	cr_assert_eq(lsc__arena_alloc(p, &o, ARENA, &a), 0, "%s", cap.buf);
	char v[512];
	cr_assert(lsct_field(&cap, "fallback", "reason", v, sizeof v), "%s", cap.buf);
	cr_expect_str_eq(v, "hugetlb unavailable (needed 32 2 MiB pages, pool n/a)");
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}

Test(arena_policy, lines_parse_back)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	char v[512];
	/* The host fixture tree: an empty hugetlb pool, THP madvise/madvise
	 * and 3.94 GiB free in 2 MiB blocks, so auto takes thp for 64 MiB. */
	lsc_profiler *p = fixture_profiler("host-6.18-madvise");

	opts(&o, LSC_THP_HUGETLB);
	o.chunk_bytes = 16 * MIB;
	cr_assert_eq(lsc__arena_alloc(p, &o, ARENA, &a), 0, "%s", cap.buf);
	cr_assert(lsct_field(&cap, "fallback", "what", v, sizeof v), "%s", cap.buf);
	cr_expect_str_eq(v, "arena");
	cr_assert(lsct_field(&cap, "fallback", "wanted", v, sizeof v));
	cr_expect_str_eq(v, "hugetlb");
	cr_assert(lsct_field(&cap, "fallback", "took", v, sizeof v));
	cr_expect_str_eq(v, "auto (thp)");
	cr_assert(lsct_field(&cap, "fallback", "reason", v, sizeof v));
	cr_expect_str_eq(v, "hugetlb unavailable (needed 32 2 MiB pages, pool has 0 free of 0, 0 of them reserved)");
	cr_assert(lsct_field(&cap, "arena", "policy", v, sizeof v));
	cr_expect_str_eq(v, "thp");
	cr_assert(lsct_field(&cap, "arena", "requested", v, sizeof v));
	cr_expect_str_eq(v, "hugetlb");
	cr_assert(lsct_field(&cap, "arena", "reason", v, sizeof v));
	static const char hugetlb_why[] =
		"hugetlb unavailable (needed 32 2 MiB pages, pool has 0 free of 0, 0 of them reserved); auto: ";
	cr_expect(strncmp(v, hugetlb_why, sizeof hugetlb_why - 1) == 0, "reason=%s", v);
	cr_expect(strstr(v, "3.94 GiB") != NULL, "the auto reason has the free blocks: %s", v);
	cr_assert(lsct_field(&cap, "arena", "pieces", v, sizeof v));
	cr_expect_str_eq(v, "4");
	cr_assert(lsct_field(&cap, "arena", "arena_bytes", v, sizeof v));
	cr_expect_str_eq(v, "67108864");
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}

Test(arena_policy, hugetlb_strict_fails)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	if (!hugetlb_pool_empty())
		cr_skip_test("a hugetlb pool exists here (vm.nr_hugepages > 0): this test needs it empty");
	opts(&o, LSC_THP_HUGETLB);
	o.flags |= LSC_LOAD_HUGETLB_STRICT;
	lsct_sys_fail(LSCT_SYS_MMAP, 0, 0);
	int rc = lsc__arena_alloc(p, &o, ARENA, &a);
	lsct_sys_restore();
	cr_expect_eq(rc, -ENOMEM, "%s", cap.buf);
	cr_expect_null(a.base);
	cr_expect_eq(lsct_count_with(&cap, "fallback", "LSC_LOAD_HUGETLB_STRICT"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "fallback", "pool has 0 free of 0, 0 of them reserved"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "arena", NULL), 0, "a failed strict hugetlb prints one line: %s",
		     cap.buf);
	cr_expect_eq(lsct_sys_leaked(), 0, "a mapping was left");
	lsc_profiler_destroy(p);
}

/* In a child: set the process's THP switch to @bits, allocate with
 * process-off, and check the switch is back and was held around the faults.
 * Exit 0 on success, 77 when the kernel lacks @bits, 1 otherwise. */
static int process_off_child(unsigned long on, unsigned long mode)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	struct lsct_capture c;

	if (prctl(PR_SET_THP_DISABLE, on, mode, 0, 0) != 0)
		return errno == EINVAL ? 77 : 1;
	int before = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
	lsc_profiler *p = lsct_profiler_fresh(&c);
	opts(&o, LSC_THP_PROCESS_OFF);
	o.prefault_threads = 1;
	lsct_sys_fail(LSCT_SYS_PRCTL, 0, 0);
	int rc = lsc__arena_alloc(p, &o, ARENA, &a);
	lsct_sys_restore();
	int after = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
	int ok = rc == 0 && before == after && a.applied == LSC_THP_PROCESS_OFF;
	/* SET 1 comes before the populate (advice 23), the restore after it. */
	char set1[32], restore[48];
	snprintf(set1, sizeof set1, "prctl:%d:1:0 ", PR_SET_THP_DISABLE);
	snprintf(restore, sizeof restore, "prctl:%d:%lu:%lu ", PR_SET_THP_DISABLE, on,
		 on ? mode : 0ul);
	const char *s1 = strstr(lsct_sys_trace, set1), *pop = strstr(lsct_sys_trace, "madvise:23 ");
	const char *rs = pop ? strstr(pop, restore) : NULL;
	ok = ok && s1 && pop && s1 < pop && rs;
	/* the arena line names the value put back and what it means */
	char back[128];
	snprintf(back, sizeof back, "then restored to %d (%s)", before,
		 !on ? "THP allowed" : mode ? "THP disabled except advised" : "THP disabled");
	ok = ok && lsct_count_with(&c, "arena", "policy=process-off") == 1 &&
	     lsct_count_with(&c, "arena", "PR_SET_THP_DISABLE held") == 1 &&
	     lsct_count_with(&c, "arena", back) == 1;
	if (!ok)
		fprintf(stderr, "rc=%d before=%d after=%d applied=%d want '%s' trace=%s\nlines:\n%s", rc, before,
			after, a.applied, back, lsct_sys_trace, c.buf);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
	return ok ? 0 : 1;
}

static int run_child(unsigned long on, unsigned long mode)
{
	pid_t pid = fork();
	if (pid == 0) {
		alarm(20); /* a hang (an allocator lock held at fork) fails the test, not the suite */
		_exit(process_off_child(on, mode));
	}
	int st = 0;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

Test(arena_policy, process_off_restores_enabled)
{
	cr_expect_eq(run_child(0, 0), 0, "THP allowed before: not restored (see stderr)");
}

Test(arena_policy, process_off_restores_disabled)
{
	cr_expect_eq(run_child(1, 0), 0, "THP disabled before: not restored (see stderr)");
}

Test(arena_policy, process_off_restores_except_advised)
{
	int rc = run_child(1, PR_THP_DISABLE_EXCEPT_ADVISED);
	if (rc == 77)
		cr_skip_test("this kernel has no PR_THP_DISABLE_EXCEPT_ADVISED (6.18+)");
	cr_expect_eq(rc, 0, "disabled-except-advised before: not restored (see stderr)");
}

static void *parallel_alloc(void *arg)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	(void)arg;
	opts(&o, LSC_THP_PROCESS_OFF);
	o.prefault_threads = 1;
	for (int i = 0; i < 8; i++) {
		if (lsc__arena_alloc(NULL, &o, 16 * MIB, &a) < 0)
			return (void *)1;
		lsc__arena_release(&a);
	}
	return NULL;
}

/* Distinct arenas in parallel threads, each holding the process's switch:
 * the value before must be the value after. In a child (fork). */
static int parallel_child(unsigned long on)
{
	pthread_t t[4];
	int bad = 0;
	if (prctl(PR_SET_THP_DISABLE, on, 0, 0, 0) != 0)
		return 1;
	int before = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, parallel_alloc, NULL);
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		bad |= r != NULL;
	}
	int after = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
	if (bad || before != after)
		fprintf(stderr, "bad=%d before=%d after=%d\n", bad, before, after);
	return bad || before != after;
}

Test(arena_policy, process_off_in_parallel_threads)
{
	for (unsigned long on = 0; on <= 1; on++) {
		pid_t pid = fork();
		if (pid == 0) {
			alarm(20); /* a hang fails the test, not the suite */
			_exit(parallel_child(on));
		}
		int st = 0;
		waitpid(pid, &st, 0);
		cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "THP switch %lu: see stderr", on);
	}
}

static void chunked(enum lsc_thp_policy pol, int hg)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	struct lsct_vma v;
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	opts(&o, pol);
	o.chunk_bytes = 16 * MIB;
	lsct_sys_fail(LSCT_SYS_MMAP, 0, 0);
	int rc = lsc__arena_alloc(p, &o, ARENA, &a);
	unsigned mmaps = lsct_sys_calls(LSCT_SYS_MMAP);
	lsct_sys_restore();
	cr_assert_eq(rc, 0, "%s", cap.buf);
	cr_expect_eq(a.n_pieces, 4);
	cr_expect_eq(a.piece_bytes, 16 * MIB);
	cr_expect_eq(mmaps, 5, "one reservation and 4 pieces, got %u mmap calls", mmaps);
	cr_assert_eq(lsct_vma_read(a.base, ARENA, &v), 0);
	cr_expect(v.contiguous, "the pieces leave a hole in the arena");
	for (unsigned i = 0; i < 4; i++) {
		struct lsct_vma pv;
		lsct_vma_read((char *)a.base + i * 16 * MIB, 16 * MIB, &pv);
		cr_expect(pv.contiguous && pv.bytes >= 16 * MIB, "piece %u is not mapped", i);
		cr_expect(hg ? pv.all_hg : pv.all_nh, "piece %u lacks its advice", i);
		cr_expect_geq(pv.rss_bytes, 16 * MIB, "piece %u not prefaulted", i);
	}
	cr_expect_eq(lsct_count_with(&cap, "arena", "pieces=4"), 1, "%s", cap.buf);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}

Test(arena_policy, chunked_4k)
{
	chunked(LSC_THP_4K, 0);
}

Test(arena_policy, chunked_thp)
{
	chunked(LSC_THP_THP, 1);
}

Test(arena_policy, env_overrides_the_option)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	struct lsct_vma v;
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	setenv("LOADSCOPE_ARENA_THP", "4k", 1);
	opts(&o, LSC_THP_THP);
	cr_assert_eq(lsc__arena_alloc(p, &o, ARENA, &a), 0, "%s", cap.buf);
	cr_expect_eq(a.applied, LSC_THP_4K);
	cr_expect(a.thp_from_env);
	lsct_vma_read(a.base, ARENA, &v);
	cr_expect(v.all_nh);
	cr_expect_eq(lsct_count_with(&cap, "arena", "source=LOADSCOPE_ARENA_THP"), 1, "%s", cap.buf);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}

/* "any case" (docs/configuration.md): 4K was a bad value once, and the arena
 * took the option's THP instead, with a fallback line. */
Test(arena_policy, env_words_in_any_case)
{
	static const struct {
		const char *word;
		enum lsc_thp_policy want;
	} cases[] = {{"4K", LSC_THP_4K}, {"THP", LSC_THP_THP}, {"Process-Off", LSC_THP_PROCESS_OFF}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct lsc_load_options o;
		struct lsc__arena a;
		lsc_profiler *p = lsct_profiler_fresh(&cap);
		setenv("LOADSCOPE_ARENA_THP", cases[i].word, 1);
		opts(&o, cases[i].want == LSC_THP_4K ? LSC_THP_THP : LSC_THP_4K);
		cr_assert_eq(lsc__arena_alloc(p, &o, ARENA, &a), 0, "%s", cap.buf);
		cr_expect_eq(a.applied, cases[i].want, "%s: %s", cases[i].word, cap.buf);
		cr_expect(a.thp_from_env, "%s", cases[i].word);
		cr_expect_eq(lsct_count_with(&cap, "fallback", NULL), 0, "%s: %s", cases[i].word, cap.buf);
		lsc__arena_release(&a);
		lsc_profiler_destroy(p);
		lsct_capture_reset(&cap);
	}
}

Test(arena_policy, bad_env_keeps_the_option)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	setenv("LOADSCOPE_ARENA_THP", "hugest", 1);
	opts(&o, LSC_THP_THP);
	cr_assert_eq(lsc__arena_alloc(p, &o, ARENA, &a), 0, "%s", cap.buf);
	cr_expect_eq(a.applied, LSC_THP_THP);
	cr_expect_not(a.thp_from_env);
	cr_expect_eq(lsct_count_with(&cap, "fallback", "LOADSCOPE_ARENA_THP=hugest is not a policy"), 1,
		     "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "fallback", NULL), 1, "%s", cap.buf);
	lsc__arena_release(&a);
	lsc_profiler_destroy(p);
}

Test(arena_policy, null_profiler_and_options)
{
	struct lsc__arena a;

	cr_assert_eq(lsc__arena_alloc(NULL, NULL, ARENA, &a), 0);
	cr_expect_neq(a.applied, LSC_THP_AUTO, "auto must resolve to a policy");
	cr_expect_gt(a.thp_reason[0], 0, "auto gives a reason");
	cr_expect_eq(lsc__arena_pin(NULL, NULL, &a), 0);
	cr_expect_eq(a.pin, &lsc__pin_none);
	lsc__arena_release(&a);
	lsc__arena_release(&a); /* twice is fine */
	cr_expect_eq(lsc__arena_alloc(NULL, NULL, 0, &a), -EINVAL);
}

Test(arena_policy, names_round_trip)
{
	enum lsc_thp_policy pol;
	for (int i = LSC_THP_AUTO; i <= LSC_THP_PROCESS_OFF; i++) {
		cr_assert_eq(lsc_thp_policy_parse(lsc_thp_policy_name(i), &pol), 0);
		cr_expect_eq(pol, i);
	}
	cr_expect_str_eq(lsc_thp_policy_name((enum lsc_thp_policy)42), "?");
	cr_expect_eq(lsc_thp_policy_parse("THP", &pol), -EINVAL);
	cr_expect_eq(lsc_thp_policy_parse(NULL, &pol), -EINVAL);

	struct lsc_load_options o;
	memset(&o, 0x5a, sizeof o);
	lsc_load_options_init(&o);
	cr_expect_eq(o.thp, LSC_THP_AUTO);
	cr_expect_str_eq(o.pin, "none");
	cr_expect_eq(o.pin_segment_bytes, 1ull << 30);
	cr_expect_eq(o.numa_node, -1);
	cr_expect_eq(o.device, -1);
	cr_expect_str_eq(o.reader, "auto");
	cr_expect_eq(o.chunk_bytes, 0);
	cr_expect_eq(o.flags, 0);
}

/* ---- a backend that maps memory itself (hipHostMalloc's kind) ------------ */

static struct {
	unsigned allocs, frees, pins;
	int thp_disable_inside; /* PR_GET_THP_DISABLE during alloc */
	int fail;
	size_t len;
} ta;

static int ta_alloc(size_t len, unsigned flags, void **out, char *why, size_t why_len)
{
	(void)flags;
	ta.allocs++;
	ta.thp_disable_inside = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
	if (ta.fail == 1) {
		snprintf(why, why_len, "talloc: out of pinnable memory");
		return -ENOMEM;
	}
	if (ta.fail == 2) /* "success" with no memory, and no words */
		return 0;
	if (ta.fail == 3) /* a failure with no words */
		return -EIO;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	ta.len = len;
	*out = m;
	return 0;
}

static void ta_free(void *addr, size_t len)
{
	ta.frees++;
	munmap(addr, len);
}

static int ta_pin(void *addr, size_t len, unsigned flags, unsigned *retries, char *why,
		  size_t why_len)
{
	(void)addr, (void)len, (void)flags, (void)why, (void)why_len;
	*retries = 0;
	ta.pins++;
	return 0;
}

static int ta_unpin(void *addr, size_t len)
{
	(void)addr, (void)len;
	return 0;
}

/* The arena's entries with @ops as the pin backend to come, through the
 * load's own seam. */
static int alloc_with(lsc_profiler *p, const struct lsc_load_options *o,
		      const struct lsc__pin_ops *ops, uint64_t bytes, struct lsc__arena *a)
{
	lsc__pin_override(ops);
	int rc = lsc__arena_alloc(p, o, bytes, a);
	lsc__pin_override(NULL);
	return rc;
}

static int pin_with(lsc_profiler *p, const struct lsc_load_options *o,
		    const struct lsc__pin_ops *ops, struct lsc__arena *a)
{
	lsc__pin_override(ops);
	int rc = lsc__arena_pin(p, o, a);
	lsc__pin_override(NULL);
	return rc;
}

static const struct lsc__pin_ops talloc_both = {
	.name = "talloc",
	.caps = LSC__PIN_CAP_REGISTER | LSC__PIN_CAP_ALLOC | LSC__PIN_CAP_LOCKS,
	.pin = ta_pin,
	.unpin = ta_unpin,
	.alloc = ta_alloc,
	.free = ta_free,
};

static const struct lsc__pin_ops talloc_only = {
	.name = "talloc",
	.caps = LSC__PIN_CAP_ALLOC | LSC__PIN_CAP_LOCKS,
	.pin = ta_pin,
	.unpin = ta_unpin,
	.alloc = ta_alloc,
	.free = ta_free,
};

Test(arena_policy, process_off_reaches_backend_allocation)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	int before = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);

	memset(&ta, 0, sizeof ta);
	opts(&o, LSC_THP_PROCESS_OFF);
	cr_assert_eq(alloc_with(p, &o, &talloc_both, ARENA, &a), 0, "%s", cap.buf);
	cr_expect_eq(ta.allocs, 1);
	cr_expect_eq(ta.thp_disable_inside & 1, 1, "THP was not disabled inside the backend's alloc");
	cr_expect_eq(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0), before);
	cr_expect(a.allocated_by_pin);
	cr_expect_eq(a.pin, &talloc_both);
	cr_expect_eq(a.pinned_bytes, ARENA);
	cr_expect_eq(a.applied, LSC_THP_PROCESS_OFF);
	cr_expect_eq(lsct_count_with(&cap, "arena", "allocated_by=talloc"), 1, "%s", cap.buf);
	/* Pinned memory from a runtime is resident: not faulted again (the
	 * stand-in here is not, so its pages are still absent). */
	cr_expect_eq(lsct_count_with(&cap, "note", "prefault: skipped"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "phase", "name=prefault"), 0, "%s", cap.buf);
	unsigned char vec[4];
	cr_assert_eq(mincore(a.base, 4 * 4096, vec), 0);
	cr_expect_eq(vec[0] & 1, 0, "the backend's memory was touched");
	cr_expect_eq(ta.pins, 0, "memory the backend allocated is pinned already");
	lsc__arena_release(&a);
	cr_expect_eq(ta.frees, 1);
	lsc_profiler_destroy(p);
}

Test(arena_policy, other_policies_register_own_mapping)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	memset(&ta, 0, sizeof ta);
	opts(&o, LSC_THP_4K);
	cr_assert_eq(alloc_with(p, &o, &talloc_both, ARENA, &a), 0, "%s", cap.buf);
	cr_expect_eq(ta.allocs, 0, "4k cannot reach the backend's own mapping: register instead");
	cr_expect_not(a.allocated_by_pin);
	cr_expect_eq(pin_with(p, &o, &talloc_both, &a), 0);
	cr_expect_eq(ta.pins, 1);
	lsc__arena_release(&a);
	cr_expect_eq(ta.frees, 0);
	lsc_profiler_destroy(p);
}

Test(arena_policy, alloc_only_backend_gets_process_off_for_4k)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	lsc_profiler *p = lsct_profiler_fresh(&cap);

	memset(&ta, 0, sizeof ta);
	opts(&o, LSC_THP_4K);
	cr_assert_eq(alloc_with(p, &o, &talloc_only, ARENA, &a), 0, "%s", cap.buf);
	cr_expect_eq(ta.allocs, 1);
	cr_expect_eq(ta.thp_disable_inside & 1, 1);
	cr_expect_eq(a.applied, LSC_THP_PROCESS_OFF);
	cr_expect_eq(lsct_count_with(&cap, "arena", "requested=4k"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "arena", "policy=process-off"), 1, "%s", cap.buf);
	lsc__arena_release(&a);
	cr_expect_eq(ta.frees, 1);
	lsc_profiler_destroy(p);
}

Test(arena_policy, backend_allocation_failure_falls_back)
{
	struct lsc_load_options o;
	struct lsc__arena a;
	lsc_profiler *p = lsct_profiler_fresh(&cap);
	int before = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);

	memset(&ta, 0, sizeof ta);
	ta.fail = 1;
	opts(&o, LSC_THP_PROCESS_OFF);
	cr_assert_eq(alloc_with(p, &o, &talloc_both, ARENA, &a), 0, "%s", cap.buf);
	cr_expect_not(a.allocated_by_pin);
	cr_expect_eq(a.applied, LSC_THP_PROCESS_OFF);
	cr_expect_eq(lsct_count_with(&cap, "fallback", "talloc: out of pinnable memory"), 1, "%s", cap.buf);
	cr_expect_eq(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0), before);
	cr_expect_eq(pin_with(p, &o, &talloc_both, &a), 0);
	cr_expect_eq(ta.pins, 1, "the chain registers the own mapping with the same backend");
	lsc__arena_release(&a);

	o.flags |= LSC_LOAD_PIN_STRICT;
	cap.len = 0;
	cap.buf[0] = 0;
	cr_expect_eq(alloc_with(p, &o, &talloc_both, ARENA, &a), -ENOMEM, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "arena", "err=ENOMEM"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "arena", "talloc: out of pinnable memory"), 1, "%s", cap.buf);
	cr_expect_eq(lsct_count_with(&cap, "fallback", NULL), 0, "one line: %s", cap.buf);
	cr_expect_null(a.base);
	cr_expect_eq(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0), before);
	lsc_profiler_destroy(p);
}

/* A backend that says nothing of its failure, or that returns success with
 * no memory: the arena names the backend and the error itself (ENOMEM for
 * the memory that never came), falls back with that reason, and under
 * LSC_LOAD_PIN_STRICT fails with that error: never an arena with no base. */
Test(arena_policy, backend_allocation_failure_without_words)
{
	static const struct {
		int fail, err;
		const char *reason;
	} cases[] = {{2, -ENOMEM, "talloc: ENOMEM"}, {3, -EIO, "talloc: EIO"}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lsc_load_options o;
		struct lsc__arena a;
		lsc_profiler *p = lsct_profiler_fresh(&cap);
		memset(&ta, 0, sizeof ta);
		ta.fail = cases[i].fail;
		opts(&o, LSC_THP_PROCESS_OFF);
		cr_assert_eq(alloc_with(p, &o, &talloc_both, ARENA, &a), 0, "%s", cap.buf);
		cr_expect_not(a.allocated_by_pin);
		cr_expect_not_null(a.base, "the own mapping");
		char want[64];
		snprintf(want, sizeof want, "reason=\"%s\"", cases[i].reason);
		cr_expect_eq(lsct_count_with(&cap, "fallback", want), 1, "%s", cap.buf);
		lsc__arena_release(&a);

		o.flags |= LSC_LOAD_PIN_STRICT;
		cap.len = 0;
		cap.buf[0] = 0;
		cr_expect_eq(alloc_with(p, &o, &talloc_both, ARENA, &a), cases[i].err, "%s", cap.buf);
		cr_expect_null(a.base);
		cr_expect_eq(lsct_count_with(&cap, "arena", cases[i].reason), 1, "%s", cap.buf);
		lsc_profiler_destroy(p);
	}
}
