/*
 * Description: the memory this process may take (src/host/mem_room.c) and
 * the guard's judgement of it (src/loader/mem_guard.c), on fixture trees
 * and on trees each test writes: a cgroup v2 hierarchy three levels deep
 * where memory.high of the leaf binds below memory.max of its parent
 * (cgroup2-nested), a docker container on cgroup v1 whose memory mount's
 * root is its own cgroup (cgroup1-docker: a path that kept that root would
 * reach a decoy limit), the usual places where mountinfo is missing, "max"
 * and v1's unlimited as no bound, garbage skipped, usage above the limit
 * as no room, MemAvailable when it is the tightest, and the reserve on
 * both sides of the threshold.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/tool_run.h"
#include "host/mem_room.h"
#include "loader/mem_guard.h"

#define FX LSC_TEST_FIXTURES
#define MIB (1ll << 20)
#define GIB (1ll << 30)

static void teardown(void)
{
	lsct_scratch_remove();
}

TestSuite(mem_room, .fini = teardown);

/* Write @text to <root>/@rel, making the directories on the way. */
static void put(const char *root, const char *rel, const char *text)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s", path);
		*s = '/';
	}
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static void read_room(const char *tree, struct lsc__mem_room *m)
{
	char proc[512], sys[512];
	snprintf(proc, sizeof proc, "%s/proc", tree);
	snprintf(sys, sizeof sys, "%s/sys", tree);
	lsc__mem_room_read(proc, sys, m);
}

static void assert_bound(const struct lsc__mem_room *m, int src, int64_t limit, int64_t used,
			 const char *cgroup)
{
	const struct lsc__mem_bound *b = &m->b[src];
	cr_assert_eq(b->limit, limit, "%s limit %lld, want %lld", lsc__mem_src_name(src),
		     (long long)b->limit, (long long)limit);
	cr_assert_eq(b->used, used, "%s used %lld, want %lld", lsc__mem_src_name(src),
		     (long long)b->used, (long long)used);
	cr_assert_eq(b->room, limit > used ? limit - used : 0, "%s room %lld",
		     lsc__mem_src_name(src), (long long)b->room);
	cr_assert_str_eq(b->cgroup, cgroup, "%s of %s, want %s", lsc__mem_src_name(src), b->cgroup,
			 cgroup);
}

#define CTR "/kubepods.slice/kubepods-pod1.slice/cri-ctr1.scope"
#define POD "/kubepods.slice/kubepods-pod1.slice"

/* The files' numbers, by hand: ctr1 high 1164 MiB, 1.25 GiB charged of
 * which 256 MiB file cache; pod1 max 4 GiB, 2 GiB charged, 512 MiB file;
 * kubepods max 48 GiB, 10 GiB, 2 GiB file; MemAvailable 40 of 64 GiB. */
Test(mem_room, cgroup2_every_level_and_the_tightest)
{
	struct lsc__mem_room m;
	read_room(FX "/cgroup2-nested", &m);
	assert_bound(&m, LSC__MEM_CG2_HIGH, 1164 * MIB, 1 * GIB, CTR);
	assert_bound(&m, LSC__MEM_CG2_MAX, 4 * GIB, 1536 * MIB, POD); /* 2.5 GiB room, not 40 */
	assert_bound(&m, LSC__MEM_AVAILABLE, 64 * GIB, 24 * GIB, "");
	cr_assert_eq(m.b[LSC__MEM_CG1_LIMIT].room, -1, "no v1 hierarchy here");
	cr_assert_eq(m.tightest, LSC__MEM_CG2_HIGH);
}

Test(mem_room, cgroup1_docker_mount_root_is_cut_off)
{
	struct lsc__mem_room m;
	read_room(FX "/cgroup1-docker", &m);
	/* usage 300 MiB less 150 MiB of file cache; the decoy 64 MiB limit
	 * under memory/docker/<id> is never read */
	assert_bound(&m, LSC__MEM_CG1_LIMIT, 1 * GIB, 150 * MIB, "/docker/3f2a9c41d07b");
	cr_assert_eq(m.b[LSC__MEM_CG2_MAX].room, -1, "the unified hierarchy has no memory files");
	cr_assert_eq(m.tightest, LSC__MEM_CG1_LIMIT);
}

/* A tree of our own: meminfo, self/cgroup and the v2 files of one level
 * "/app" under sys/fs/cgroup; no mountinfo, so the usual place is read. */
static const char *tree_v2(const char *max, const char *high, const char *current, const char *stat)
{
	const char *t = lsct_scratch("mem_room");
	put(t, "proc/meminfo", "MemTotal:       8388608 kB\nMemAvailable:   4194304 kB\n");
	put(t, "proc/self/cgroup", "0::/app\n");
	if (max)
		put(t, "sys/fs/cgroup/app/memory.max", max);
	if (high)
		put(t, "sys/fs/cgroup/app/memory.high", high);
	if (current)
		put(t, "sys/fs/cgroup/app/memory.current", current);
	if (stat)
		put(t, "sys/fs/cgroup/app/memory.stat", stat);
	return t;
}

Test(mem_room, without_mountinfo_the_usual_place_is_read)
{
	struct lsc__mem_room m;
	read_room(tree_v2("1073741824\n", "max\n", "104857600\n", "active_file 0\ninactive_file 0\n"), &m);
	assert_bound(&m, LSC__MEM_CG2_MAX, 1 * GIB, 100 * MIB, "/app");
	cr_assert_eq(m.b[LSC__MEM_CG2_HIGH].room, -1, "high is max: no bound");
	cr_assert_eq(m.tightest, LSC__MEM_CG2_MAX);
}

Test(mem_room, max_everywhere_leaves_memavailable)
{
	struct lsc__mem_room m;
	read_room(tree_v2("max\n", "max\n", "104857600\n", NULL), &m);
	cr_assert_eq(m.b[LSC__MEM_CG2_MAX].room, -1);
	cr_assert_eq(m.b[LSC__MEM_CG2_HIGH].room, -1);
	assert_bound(&m, LSC__MEM_AVAILABLE, 8 * GIB, 4 * GIB, "");
	cr_assert_eq(m.tightest, LSC__MEM_AVAILABLE);
}

Test(mem_room, a_cgroup_looser_than_memavailable_is_kept_but_not_tightest)
{
	struct lsc__mem_room m;
	read_room(tree_v2("6442450944\n", "max\n", "0\n", NULL), &m); /* 6 GiB, 4 available */
	assert_bound(&m, LSC__MEM_CG2_MAX, 6 * GIB, 0, "/app");
	cr_assert_eq(m.tightest, LSC__MEM_AVAILABLE);
}

Test(mem_room, usage_over_the_limit_is_no_room_and_cache_over_usage_no_use)
{
	struct lsc__mem_room m;
	/* memory.high can be passed: current 1.5 GiB over a 1 GiB high */
	read_room(tree_v2("max\n", "1073741824\n", "1610612736\n", NULL), &m);
	assert_bound(&m, LSC__MEM_CG2_HIGH, 1 * GIB, 1536 * MIB, "/app");
	cr_assert_eq(m.b[LSC__MEM_CG2_HIGH].room, 0);
	lsct_scratch_remove();
	/* a stat that claims more cache than the charge: nothing in use */
	read_room(tree_v2("1073741824\n", NULL, "1048576\n", "inactive_file 2097152\nactive_file 0\n"), &m);
	assert_bound(&m, LSC__MEM_CG2_MAX, 1 * GIB, 0, "/app");
}

Test(mem_room, garbage_and_missing_files_skip_the_level)
{
	static const char *const bad[][3] = {
		{"12abc\n", "max\n", "0\n"},       /* junk in the limit */
		{"-5\n", "max\n", "0\n"},          /* negative */
		{"99999999999999999999\n", NULL, "0\n"}, /* overflow */
		{"1073741824\n", NULL, NULL},      /* no memory.current */
		{"1073741824\n", NULL, "lots\n"},  /* a current that is not a number */
		{"", NULL, "0\n"},                 /* empty */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct lsc__mem_room m;
		read_room(tree_v2(bad[i][0], bad[i][1], bad[i][2], NULL), &m);
		cr_assert_eq(m.b[LSC__MEM_CG2_MAX].room, -1, "case %zu read as a bound", i);
		cr_assert_eq(m.tightest, LSC__MEM_AVAILABLE, "case %zu", i);
		lsct_scratch_remove();
	}
}

Test(mem_room, cgroup1_unlimited_is_no_bound_and_levels_walk_up)
{
	const char *t = lsct_scratch("mem_room");
	put(t, "proc/self/cgroup", "4:memory:/outer/inner\n0::/\n");
	put(t, "proc/self/mountinfo",
	    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n");
	/* the root and the leaf unlimited (2^63 - 4096), the middle level limited */
	put(t, "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
	put(t, "sys/fs/cgroup/memory/memory.usage_in_bytes", "1000\n");
	put(t, "sys/fs/cgroup/memory/outer/memory.limit_in_bytes", "2147483648\n");
	put(t, "sys/fs/cgroup/memory/outer/memory.usage_in_bytes", "1073741824\n");
	put(t, "sys/fs/cgroup/memory/outer/memory.stat",
	    "inactive_file 1\nactive_file 1\ntotal_inactive_file 268435456\ntotal_active_file 0\n");
	put(t, "sys/fs/cgroup/memory/outer/inner/memory.limit_in_bytes", "9223372036854771712\n");
	put(t, "sys/fs/cgroup/memory/outer/inner/memory.usage_in_bytes", "5\n");
	struct lsc__mem_room m;
	read_room(t, &m);
	/* the hierarchical total_ cache counts, not the level's own */
	assert_bound(&m, LSC__MEM_CG1_LIMIT, 2 * GIB, 768 * MIB, "/outer");
	cr_assert_eq(m.tightest, LSC__MEM_CG1_LIMIT, "no meminfo in this tree");
	cr_assert_eq(m.b[LSC__MEM_AVAILABLE].room, -1);
}

Test(mem_room, mount_points_escaped_or_outside_sys)
{
	const char *t = lsct_scratch("mem_room");
	put(t, "proc/self/cgroup", "0::/a b\n");
	/* a mount point with a space (\040), and an earlier cgroup2 mount
	 * outside /sys, which a fixture root cannot hold: skipped */
	put(t, "proc/self/mountinfo",
	    "40 1 0:50 / /mnt/cg2 rw - cgroup2 cgroup2 rw\n"
	    "41 1 0:38 / /sys/fs/cg\\040two rw - cgroup2 cgroup2 rw\n");
	put(t, "sys/fs/cg two/a b/memory.max", "536870912\n");
	put(t, "sys/fs/cg two/a b/memory.current", "0\n");
	struct lsc__mem_room m;
	read_room(t, &m);
	cr_assert_eq(m.b[LSC__MEM_CG2_MAX].room, -1, "the mount outside /sys was read");
	lsct_scratch_remove();
	t = lsct_scratch("mem_room");
	put(t, "proc/self/cgroup", "0::/a b\n");
	put(t, "proc/self/mountinfo", "41 1 0:38 / /sys/fs/cg\\040two rw - cgroup2 cgroup2 rw\n");
	put(t, "sys/fs/cg two/a b/memory.max", "536870912\n");
	put(t, "sys/fs/cg two/a b/memory.current", "0\n");
	read_room(t, &m);
	assert_bound(&m, LSC__MEM_CG2_MAX, 512 * MIB, 0, "/a b");
}

/* A mount whose root (mountinfo's fourth field) is a cgroup with a space
 * in its name, written \040 there: the root is read unescaped, so it is
 * the process's cgroup and cut off the path, as any other root is. */
Test(mem_room, a_mount_root_escaped)
{
	const char *t = lsct_scratch("mem_room");
	put(t, "proc/self/cgroup", "4:memory:/my job/step\n");
	put(t, "proc/self/mountinfo",
	    "35 31 0:32 /my\\040job /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n");
	put(t, "sys/fs/cgroup/memory/step/memory.limit_in_bytes", "1073741824\n");
	put(t, "sys/fs/cgroup/memory/step/memory.usage_in_bytes", "0\n");
	struct lsc__mem_room m;
	read_room(t, &m);
	assert_bound(&m, LSC__MEM_CG1_LIMIT, 1 * GIB, 0, "/my job/step");
	lsct_scratch_remove();
}

Test(mem_room, nothing_readable_is_enoent)
{
	struct lsc__mem_room m;
	const char *t = lsct_scratch("mem_room");
	char proc[512];
	snprintf(proc, sizeof proc, "%s/proc", t);
	cr_assert_eq(lsc__mem_room_read(proc, t, &m), -ENOENT);
	cr_assert_eq(m.tightest, -1);
	struct lsc__mem_verdict v;
	lsc__mem_judge(proc, t, -1, 0, &v);
	char why[256];
	cr_assert_eq(v.src, -1);
	cr_assert_eq(lsc__mem_refusal(&v, "arena", NULL, UINT64_MAX, why, sizeof why), 0,
		     "no bound, no guard");
}

/* The reserve below a cgroup limit: the limit / 32, at least 128 MiB. In
 * cgroup2-nested the leaf's 140 MiB room under its 1164 MiB high keeps
 * 128 MiB: 12 MiB may be taken, and not a byte more. */
Test(mem_room, the_judgement_on_both_sides_of_the_threshold)
{
	struct lsc__mem_verdict v;
	lsc__mem_judge(FX "/cgroup2-nested/proc", FX "/cgroup2-nested/sys", -1, 0, &v);
	uint64_t reserve = 128ull * MIB, may = 140ull * MIB - reserve;
	cr_assert_eq(v.src, LSC__MEM_CG2_HIGH);
	cr_assert_eq(v.reserve, reserve);
	cr_assert_eq(v.may_take, may, "%llu", (unsigned long long)v.may_take);
	char why[512];
	cr_assert_eq(lsc__mem_refusal(&v, "arena", NULL, may, why, sizeof why), 0);
	cr_assert_str_eq(why, "");
	cr_assert_eq(lsc__mem_refusal(&v, "arena", NULL, may + 1, why, sizeof why), 1);
	cr_assert(strstr(why, "arena of 0.01 GiB (12582913 bytes) is more than the room under the "
			      "cgroup v2 memory.high of cgroup " CTR ", 0.14 GiB (the limit 1.14 GiB "
			      "less 1.00 GiB in use besides the file cache), less a reserve of 0.12 GiB"),
		  "%s", why);
	/* the free hugetlb pool counts beside it */
	lsc__mem_judge(FX "/cgroup2-nested/proc", FX "/cgroup2-nested/sys", -1, 1 * MIB, &v);
	cr_assert_eq(v.may_take, may + MIB);
	cr_assert_eq(lsc__mem_refusal(&v, "arena", NULL, may + MIB + 1, why, sizeof why), 1);
	cr_assert(strstr(why, "plus the free hugetlb pool of 0.00 GiB, less a reserve"), "%s", why);
}

/* Below MemAvailable the reserve is MemTotal / 32, at least 512 MiB, or the
 * caller's (lab's --keep-free); a cgroup tighter after its reserve wins
 * even where its room is larger than MemAvailable's. */
Test(mem_room, memavailable_reserve_and_the_callers_own)
{
	struct lsc__mem_verdict v;
	/* 4 GiB available of 8: reserve 512 MiB (8 GiB / 32 is less) */
	const char *t = tree_v2("max\n", NULL, "0\n", NULL);
	char proc[512], sys[512], why[512];
	snprintf(proc, sizeof proc, "%s/proc", t);
	snprintf(sys, sizeof sys, "%s/sys", t);
	lsc__mem_judge(proc, sys, -1, 0, &v);
	cr_assert_eq(v.src, LSC__MEM_AVAILABLE);
	cr_assert_eq(v.may_take, 4ull * GIB - 512ull * MIB);
	lsc__mem_judge(proc, sys, 2 * GIB, 0, &v);
	cr_assert_eq(v.may_take, 2ull * GIB);
	cr_assert_eq(lsc__mem_refusal(&v, "--gib", "--keep-free", 2ull * GIB + 1, why, sizeof why), 1);
	cr_assert_str_eq(why, "--gib of 2.00 GiB (2147483649 bytes) is more than MemAvailable 4.00 GiB "
			      "less --keep-free 2.00 GiB");
	lsct_scratch_remove();
	/* 4.1 GiB room under a 4.2 GiB max (reserve 134.4 MiB: 3.97 GiB may
	 * be taken) against 4 GiB - 512 MiB below MemAvailable: MemAvailable */
	t = tree_v2("4509715660\n", NULL, "107374182\n", NULL);
	snprintf(proc, sizeof proc, "%s/proc", t);
	snprintf(sys, sizeof sys, "%s/sys", t);
	lsc__mem_judge(proc, sys, -1, 0, &v);
	cr_assert_eq(v.src, LSC__MEM_AVAILABLE);
	/* with lab's --keep-free 0, the cgroup decides, whose room is larger */
	lsc__mem_judge(proc, sys, 0, 0, &v);
	cr_assert_eq(v.src, LSC__MEM_CG2_MAX);
	cr_assert_eq(v.may_take, 4509715660ull - 107374182ull - 4509715660ull / 32);
}

/* The cgroup reserve's bounds: 128 MiB under a 512 MiB limit (not 16), and
 * 8 GiB under a 1 TiB one (not 32) */
Test(mem_room, the_cgroup_reserve_is_clamped)
{
	static const struct {
		const char *max;
		uint64_t reserve;
	} cases[] = {
		{"536870912\n", 128ull * MIB},
		{"2147483648\n", 128ull * MIB},
		{"4294967296\n", 128ull * MIB},
		{"8589934592\n", 256ull * MIB},
		{"1099511627776\n", 8ull * GIB},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *t = tree_v2(cases[i].max, NULL, "0\n", NULL);
		char proc[512], sys[512];
		snprintf(proc, sizeof proc, "%s/proc", t);
		snprintf(sys, sizeof sys, "%s/sys", t);
		struct lsc__mem_verdict v;
		lsc__mem_judge(proc, sys, 0, 0, &v); /* MemAvailable 4 GiB with no reserve */
		uint64_t limit = strtoull(cases[i].max, NULL, 10);
		uint64_t want = limit - cases[i].reserve < 4ull * GIB ? limit - cases[i].reserve : 4ull * GIB;
		cr_assert_eq(v.may_take, want, "max %s: may take %llu, want %llu", cases[i].max,
			     (unsigned long long)v.may_take, (unsigned long long)want);
		if (v.src == LSC__MEM_CG2_MAX)
			cr_assert_eq(v.reserve, cases[i].reserve);
		lsct_scratch_remove();
	}
}

Test(mem_room, names)
{
	cr_assert_str_eq(lsc__mem_src_name(LSC__MEM_AVAILABLE), "MemAvailable");
	cr_assert_str_eq(lsc__mem_src_name(LSC__MEM_CG2_MAX), "memory.max");
	cr_assert_str_eq(lsc__mem_src_name(LSC__MEM_CG2_HIGH), "memory.high");
	cr_assert_str_eq(lsc__mem_src_name(LSC__MEM_CG1_LIMIT), "memory.limit_in_bytes");
	cr_assert_str_eq(lsc__mem_src_what(LSC__MEM_CG1_LIMIT), "cgroup v1 memory.limit_in_bytes");
	cr_assert_str_eq(lsc__mem_src_name(-1), "?");
	cr_assert_str_eq(lsc__mem_src_name(LSC__MEM_SRC_COUNT), "?");
}
