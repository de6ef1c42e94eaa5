/*
 * Description: `loadscope probe` (tools/cmd_probe.c), run as a program on the
 * fixture trees: the system line, one `warn` line per problem with its stable
 * id and numbers (a THP stall risk, memlock, hugetlb and MemAvailable
 * shortfalls), an `ok` line when nothing is wrong, both output formats, the
 * default arena size, the memory this process may take (the `note` with
 * topic=memory: MemAvailable, or the cgroup limit below it, with the
 * cgroup's name), and the exit codes (0, 1, 3 no size, 64 usage).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/line.h"
#include "host/procfs.h"

#define FX LSC_TEST_FIXTURES

struct run {
	int status;        /* exit code */
	char out[65536];
	size_t len;
};

enum { KEEP_CAPS = 0, DROP_IPC_LOCK = 1 };

/* Run the probe with @argv (NULL-terminated, without the program name) and
 * RLIMIT_MEMLOCK at @memlock (0: as inherited). With DROP_IPC_LOCK the
 * child drops CAP_IPC_LOCK from its bounding set before exec, so that even
 * root runs it without the capability that lifts the memlock limit. */
static void run_probe(struct run *r, const char *const *argv, rlim_t memlock, int flags)
{
	const char *args[32] = {LSC_TEST_TOOL, "probe"};
	int fd[2];
	size_t n = 2;
	pid_t pid;

	if (!LSC_TEST_TOOL[0])
		cr_skip_test("the loadscope program is not built (LOADSCOPE_BUILD_TOOLS=OFF)");
	for (; argv[n - 2]; n++)
		args[n] = argv[n - 2];
	args[n] = NULL;
	cr_assert_eq(pipe(fd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct rlimit rl;

		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		if (memlock && getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
			/* the hard limit too: the probe reports it, and the
			 * machine's own would differ from one host to another */
			rl.rlim_cur = rl.rlim_max = memlock <= rl.rlim_max ? memlock : rl.rlim_max;
			setrlimit(RLIMIT_MEMLOCK, &rl);
		}
		if ((flags & DROP_IPC_LOCK) && prctl(PR_CAPBSET_DROP, CAP_IPC_LOCK, 0, 0, 0) != 0 &&
		    errno != EINVAL)
			_exit(99); /* could not drop it: the caller skips */
		execv(args[0], (char *const *)args);
		_exit(98);
	}
	close(fd[1]);
	r->len = 0;
	for (ssize_t k; (k = read(fd[0], r->out + r->len, sizeof(r->out) - 1 - r->len)) > 0;)
		r->len += (size_t)k;
	r->out[r->len] = '\0';
	close(fd[0]);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "probe died: status %#x", st);
	r->status = WEXITSTATUS(st);
	if (r->status == 99)
		cr_skip_test("cannot drop CAP_IPC_LOCK here (needs CAP_SETPCAP)");
	cr_assert_neq(r->status, 98, "exec %s failed", args[0]);
}

/* The @nth line of @event in the output, parsed (into @store). */
static int find(const struct run *r, const char *event, unsigned nth, struct lsc__parsed *p,
		char *store)
{
	const char *line = r->out;

	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		memcpy(store, line, len);
		store[len] = '\0';
		if (lsc__line_parse(store, len, p) == 1 && !strcmp(p->event, event) && nth-- == 0)
			return 1;
		line += len + (nl != NULL);
	}
	return 0;
}

static unsigned count(const struct run *r, const char *event)
{
	static char store[LSC__LINE_MAX + 1];
	struct lsc__parsed p;
	unsigned n = 0;

	while (find(r, event, n, &p, store))
		n++;
	return n;
}

/* The warn line with id @id, or a failed assertion. */
static void warn_with_id(const struct run *r, const char *id, struct lsc__parsed *p, char *store)
{
	for (unsigned i = 0; find(r, "warn", i, p, store); i++)
		if (!strcmp(lsc__parsed_get(p, "id"), id))
			return;
	cr_assert_fail("no warn id=%s in:\n%s", id, r->out);
}

static void assert_field(const struct lsc__parsed *p, const char *key, const char *want)
{
	const char *v = lsc__parsed_get(p, key);

	cr_assert_not_null(v, "no %s", key);
	cr_assert_str_eq(v, want, "%s=%s, want %s", key, v, want);
}

static int has_cap_ipc_lock(void)
{
	struct lsc__status st;

	return lsc__status_read("/proc", &st) == 0 && st.cap_ipc_lock == 1;
}

static struct run r; /* 64 KiB: not on the stack */

/* The whole output as reviewed, with the run id and the clock (the only
 * fields that differ between runs of a probe whose memlock limit and
 * capability the test set) written as RUN and T: any field, word or
 * figure a change adds, drops or alters is a diff to review. The files are
 * under tests/fixtures/probe-golden/; LSC_UPDATE_GOLDEN=1 writes them. */
static void matches_golden(const struct run *got, const char *name)
{
	static char norm[sizeof(got->out)];
	size_t w = 0;
	for (const char *c = got->out; *c && w + 16 < sizeof(norm);) {
		int json = !strncmp(c, "\"run\":\"", 7) || !strncmp(c, "\"t_s\":", 6);
		if ((!strncmp(c, "run=", 4) || !strncmp(c, "\"run\":\"", 7)) && (c == got->out || c[-1] == ' ' || c[-1] == ',')) {
			size_t k = json ? 7 : 4;
			memcpy(norm + w, c, k), w += k, c += k;
			memcpy(norm + w, "RUN", 3), w += 3;
			c += strspn(c, "0123456789abcdef");
			continue;
		}
		if ((!strncmp(c, "t_s=", 4) || !strncmp(c, "\"t_s\":", 6)) && c > got->out && (c[-1] == ' ' || c[-1] == ',')) {
			size_t k = json ? 6 : 4;
			memcpy(norm + w, c, k), w += k, c += k;
			norm[w++] = 'T';
			c += strspn(c, "0123456789.");
			continue;
		}
		norm[w++] = *c++;
	}
	norm[w] = '\0';
	char path[512];
	snprintf(path, sizeof path, "%s/probe-golden/%s", FX, name);
	const char *up = getenv("LSC_UPDATE_GOLDEN");
	if (up && !strcmp(up, "1")) {
		FILE *f = fopen(path, "w");
		cr_assert_not_null(f, "%s", path);
		fputs(norm, f);
		fclose(f);
		return;
	}
	static char want[sizeof(got->out)];
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "no golden %s (LSC_UPDATE_GOLDEN=1 writes it; review it)", path);
	size_t n = fread(want, 1, sizeof(want) - 1, f);
	fclose(f);
	want[n] = '\0';
	size_t k = 0;
	while (want[k] && want[k] == norm[k])
		k++;
	cr_assert(!want[k] && !norm[k], "%s differs at byte %zu:\n  golden: %.160s\n  output: %.160s", path, k,
		  want + k, norm + k);
}
static char store[LSC__LINE_MAX + 1];

#define ROOTS(tree) "--proc-root", FX "/" tree "/proc", "--sys-root", FX "/" tree "/sys"

Test(probe, vm_with_page_reporting_warns_host_refault)
{
	const char *argv[] = {"--arena-gib", "1", ROOTS("vm-page-reporting"), NULL};
	struct lsc__parsed p;

	run_probe(&r, argv, 0, KEEP_CAPS);
	cr_assert_eq(r.status, 1, "exit %d:\n%s", r.status, r.out);
	cr_assert_eq(count(&r, "warn"), 1, "%s", r.out);
	warn_with_id(&r, "host-refault", &p, store);
	assert_field(&p, "page_reporting", "1");
	assert_field(&p, "page_reporting_order", "9");
	/* The fixture's buddyinfo below order 9, summed by hand in
	 * test_thp_auto.c: 81244 KiB, which does not cover 1 GiB. */
	assert_field(&p, "free_unreported_bytes", "83193856");
	cr_assert_not_null(strstr(p.human, "does not cover the arena"), "%s", p.human);
	cr_assert_not_null(strstr(p.human, "remedy:"), "%s", p.human);
	cr_assert(find(&r, "system", 0, &p, store));
	assert_field(&p, "page_reporting", "1");
}

Test(probe, seed_001_machine_warns_about_everything)
{
	const char *argv[] = {"--arena-gib", "40", ROOTS("always-defer-madvise"), NULL};
	struct lsc__parsed p;

	run_probe(&r, argv, 64 * 1024, DROP_IPC_LOCK);
	cr_assert_eq(r.status, 1, "exit %d:\n%s", r.status, r.out);
	cr_assert_eq(count(&r, "system"), 1);
	cr_assert_eq(count(&r, "warn"), 4, "%s", r.out);
	cr_assert_eq(count(&r, "ok"), 0);

	cr_assert(find(&r, "system", 0, &p, store));
	assert_field(&p, "kernel", "6.8.0-49-generic");
	assert_field(&p, "thp_defrag", "madvise");

	warn_with_id(&r, "thp-stall-risk", &p, store);
	assert_field(&p, "arena_bytes", "42949672960");
	assert_field(&p, "free_huge_blocks_bytes", "20971520");
	assert_field(&p, "thp_defrag", "madvise");
	cr_assert_not_null(strstr(p.human, "only 20.0 MiB of 40.00 GiB is free in 2 MiB blocks"), "%s",
			   p.human);
	cr_assert_not_null(strstr(p.human, "remedy:"), "%s", p.human);

	warn_with_id(&r, "memlock-short", &p, store);
	assert_field(&p, "memlock_bytes", "65536");
	cr_assert_not_null(strstr(p.human, "ulimit -l"), "%s", p.human);

	warn_with_id(&r, "hugetlb-short", &p, store);
	assert_field(&p, "hugetlb_needed", "20480");
	assert_field(&p, "hugetlb_free", "2"); /* 4 free, 2 reserved */
	assert_field(&p, "hugetlb_page_kib", "2048");
	cr_assert_not_null(strstr(p.human, "page cache"), "%s", p.human);

	warn_with_id(&r, "mem-short", &p, store);
	assert_field(&p, "mem_available_bytes", "3221225472");

	/* the verdict line: the first risk in the order of the verdict table
	 * (memory short before the rest), the 3 others counted, the arena */
	cr_assert(find(&r, "verdict", 0, &p, store));
	assert_field(&p, "verdict", "at-risk");
	assert_field(&p, "id", "mem-short");
	assert_field(&p, "arena_bytes", "42949672960");
	cr_assert(strstr(p.human, "probe: at risk: a 40.00 GiB pinned arena: ") &&
			  strstr(p.human, "(mem-short; 3 more below)"),
		  "%s", p.human);
	matches_golden(&r, "seed-001-40gib.txt");
}

Test(probe, json_lines_carry_the_same_records)
{
	const char *argv[] = {"--format", "json", "--arena-gib", "40", ROOTS("always-defer-madvise"),
			      NULL};
	struct lsc__parsed p;

	run_probe(&r, argv, 64 * 1024, DROP_IPC_LOCK);
	cr_assert_eq(r.status, 1);
	for (const char *l = r.out; *l; l = strchr(l, '\n') + 1)
		cr_assert(!strncmp(l, "{\"loadscope\":2,", 15), "not a JSON line: %.80s", l);
	cr_assert_eq(count(&r, "warn"), 4);
	warn_with_id(&r, "hugetlb-short", &p, store);
	cr_assert_eq(p.format, LSC_FORMAT_JSON);
	assert_field(&p, "hugetlb_needed", "20480");
	/* Counts and flags are JSON numbers: the fixture's THP_enabled: 1 is
	 * "thp_process":1, and no field of the system line but the run id is
	 * a quoted string of digits only. */
	const char *sys = strstr(r.out, "{\"loadscope\":2,\"event\":\"system\"");
	cr_assert_not_null(sys, "%s", r.out);
	const char *eol = strchr(sys, '\n');
	cr_assert_not_null(eol);
	char *line = strndup(sys, (size_t)(eol - sys));
	cr_assert(strstr(line, ",\"thp_process\":1,"), "%s", line);
	for (const char *q = strstr(line, "\":\""); q; q = strstr(q + 1, "\":\"")) {
		size_t d = strspn(q + 3, "0123456789");
		if (d && q[3 + d] == '"') {
			const char *k = q;
			while (k > line && k[-1] != '"')
				k--;
			cr_assert(!strncmp(k, "run\"", 4), "a number as text: %.40s", k);
		}
	}
	free(line);
	matches_golden(&r, "seed-001-40gib.json");
}

Test(probe, capability_lifts_the_memlock_limit)
{
	const char *argv[] = {"--arena-gib", "40", ROOTS("always-defer-madvise"), NULL};
	struct lsc__parsed p;

	if (!has_cap_ipc_lock())
		cr_skip_test("this process has no CAP_IPC_LOCK to pass on");
	run_probe(&r, argv, 64 * 1024, KEEP_CAPS);
	cr_assert_eq(r.status, 1);
	cr_assert_eq(count(&r, "warn"), 3, "%s", r.out);
	for (unsigned i = 0; find(&r, "warn", i, &p, store); i++)
		cr_assert_str_neq(lsc__parsed_get(&p, "id"), "memlock-short");
	cr_assert(find(&r, "note", 1, &p, store), "%s", r.out);
	cr_assert_not_null(strstr(p.human, "CAP_IPC_LOCK"), "%s", p.human);
}

Test(probe, a_small_arena_on_this_machine_is_ok)
{
	const char *argv[] = {"--arena-gib", "0.001", ROOTS("host-6.18-madvise"), NULL};
	struct lsc__parsed p;

	run_probe(&r, argv, 0, DROP_IPC_LOCK);
	if (r.status == 1 && strstr(r.out, "memlock-short"))
		cr_skip_test("RLIMIT_MEMLOCK here is below 1 MiB");
	cr_assert_eq(r.status, 0, "exit %d:\n%s", r.status, r.out);
	cr_assert_eq(count(&r, "warn"), 0);
	cr_assert_eq(count(&r, "ok"), 1);
	cr_assert(find(&r, "ok", 0, &p, store));
	assert_field(&p, "arena_bytes", "1073741");
	cr_assert_not_null(strstr(p.human, "enough for 1.0 MiB"), "%s", p.human);
	/* the field "thp" is the sentence's reason, whole */
	const char *thp = lsc__parsed_get(&p, "thp");
	cr_assert_not_null(thp, "no thp field: %s", r.out);
	const char *colon = strstr(p.human, "pinned arena: ");
	cr_assert_not_null(colon);
	cr_assert_str_eq(thp, colon + strlen("pinned arena: "));
}

Test(probe, default_arena_is_80_percent_of_memavailable)
{
	const char *argv[] = {ROOTS("container-no-vmstat"), NULL};
	struct lsc__parsed p;
	char want[32];

	run_probe(&r, argv, 0, DROP_IPC_LOCK);
	cr_assert(find(&r, "note", 0, &p, store), "%s", r.out);
	snprintf(want, sizeof(want), "%llu", (unsigned long long)(12104512.0 * 1024 * 0.8));
	assert_field(&p, "arena_bytes", want);
	cr_assert_not_null(strstr(p.human, "80% of MemAvailable"), "%s", p.human);
	/* no THP files, no hugetlb pool: only memlock can be short here */
	for (unsigned i = 0; find(&r, "warn", i, &p, store); i++)
		assert_field(&p, "id", "memlock-short");
}

/* The note with topic=memory, found by its topic. */
static void memory_note(const struct run *rr, struct lsc__parsed *p)
{
	for (unsigned i = 0; find(rr, "note", i, p, store); i++)
		if (!strcmp(lsc__parsed_get(p, "topic"), "memory"))
			return;
	cr_assert_fail("no note topic=memory in:\n%s", rr->out);
}

/* cgroup2-nested: 140 MiB room under the leaf's memory.high (1164 MiB less
 * 1 GiB in use), far below 40 GiB MemAvailable */
Test(probe, a_memory_cgroup_is_reported_and_sizes_the_default_arena)
{
	const char *argv[] = {ROOTS("cgroup2-nested"), NULL};
	struct lsc__parsed p;
	char want[32];

	run_probe(&r, argv, 0, KEEP_CAPS);
	memory_note(&r, &p);
	assert_field(&p, "mem_room_bytes", "146800640");
	assert_field(&p, "mem_room_source", "memory.high");
	assert_field(&p, "mem_room_cgroup", "/kubepods.slice/kubepods-pod1.slice/cri-ctr1.scope");
	assert_field(&p, "mem_room_limit_bytes", "1220542464");
	assert_field(&p, "mem_room_used_bytes", "1073741824");
	cr_assert_not_null(strstr(p.human, "this process may take 140.0 MiB more: the room under the "
					   "cgroup v2 memory.high of cgroup "),
			   "%s", p.human);
	cr_assert(find(&r, "note", 0, &p, store));
	snprintf(want, sizeof(want), "%llu", (unsigned long long)(146800640.0 * 0.8));
	assert_field(&p, "arena_bytes", want);
	cr_assert_not_null(strstr(p.human, "80% of the room under cgroup v2 memory.high"), "%s", p.human);
	for (unsigned i = 0; find(&r, "warn", i, &p, store); i++)
		cr_assert_str_neq(lsc__parsed_get(&p, "id"), "mem-short", "80%% of the room fits");
}

Test(probe, an_arena_above_the_cgroups_room_warns_mem_short)
{
	const char *argv[] = {"--arena-gib", "1", ROOTS("cgroup2-nested"), NULL};
	struct lsc__parsed p;

	run_probe(&r, argv, 0, KEEP_CAPS);
	cr_assert_eq(r.status, 1, "exit %d:\n%s", r.status, r.out);
	warn_with_id(&r, "mem-short", &p, store);
	assert_field(&p, "mem_room_source", "memory.high");
	assert_field(&p, "mem_room_bytes", "146800640");
	cr_assert_not_null(strstr(p.human, "larger than the room under the cgroup v2 memory.high of "
					   "cgroup /kubepods.slice/kubepods-pod1.slice/cri-ctr1.scope "
					   "(140.0 MiB)"),
			   "%s", p.human);
}

Test(probe, memavailable_is_the_room_without_a_cgroup)
{
	const char *argv[] = {"--arena-gib", "0.001", ROOTS("host-6.18-madvise"), NULL};
	struct lsc__parsed p;

	run_probe(&r, argv, 0, KEEP_CAPS);
	memory_note(&r, &p);
	assert_field(&p, "mem_room_source", "MemAvailable");
	assert_field(&p, "mem_room_bytes", "24929804288"); /* 24345512 kB */
	cr_assert_null(lsc__parsed_get(&p, "mem_room_cgroup"));
}

/* A size below one byte was taken as no size: "MemAvailable is n/a"
 * (exit 3) on a machine where it was not. One byte is the smallest. */
Test(probe, an_arena_below_one_byte_is_a_usage_error)
{
	const char *tiny[] = {"--arena-gib", "1e-10", ROOTS("host-6.18-madvise"), NULL};
	const char *byte[] = {"--arena-gib", "9.32e-10", ROOTS("host-6.18-madvise"), NULL};
	struct lsc__parsed p;

	run_probe(&r, tiny, 0, KEEP_CAPS);
	cr_assert_eq(r.status, 64, "exit %d:\n%s", r.status, r.out);
	cr_assert_eq(r.len, 0);
	run_probe(&r, byte, 0, KEEP_CAPS);
	cr_assert_lt(r.status, 2, "exit %d:\n%s", r.status, r.out);
	cr_assert(find(&r, "note", 0, &p, store), "%s", r.out);
	assert_field(&p, "arena_bytes", "1");
}

Test(probe, no_size_and_no_memavailable_exits_3)
{
	const char *argv[] = {ROOTS("garbage"), NULL};

	run_probe(&r, argv, 0, KEEP_CAPS);
	cr_assert_eq(r.status, 3, "exit %d:\n%s", r.status, r.out);
	cr_assert_eq(count(&r, "system"), 1, "the snapshot is printed first");
}

Test(probe, usage_errors_exit_64)
{
	static const char *const bad[][4] = {
		{"--format", "xml", NULL},
		{"--arena-gib", "-1", NULL},
		{"--arena-gib", "0", NULL},
		{"--arena-gib", "40x", NULL},
		{"--arena-gib", NULL},
		{"--bogus", "1", NULL},
		{"positional", NULL},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		run_probe(&r, (const char *const *)bad[i], 0, KEEP_CAPS);
		cr_assert_eq(r.status, 64, "%s %s: exit %d", bad[i][0], bad[i][1] ? bad[i][1] : "",
			     r.status);
		cr_assert_eq(r.len, 0, "nothing on stdout for a usage error");
	}
}

/* The last --format given is the one used, either way round. */
Test(probe, the_last_format_wins)
{
	const char *human_last[] = {"--format", "json", "--format", "human", "--arena-gib", "1", ROOTS("host-6.18-madvise"),
				    NULL};
	run_probe(&r, human_last, 0, KEEP_CAPS);
	cr_assert(!strncmp(r.out, "[loadscope/", 11), "%.80s", r.out);
	const char *json_last[] = {"--format", "human", "--format", "json", "--arena-gib", "1", ROOTS("host-6.18-madvise"),
				   NULL};
	run_probe(&r, json_last, 0, KEEP_CAPS);
	cr_assert(!strncmp(r.out, "{\"loadscope\":", 13), "%.80s", r.out);
}

Test(probe, help_exits_0)
{
	const char *argv[] = {"--help", NULL};

	run_probe(&r, argv, 0, KEEP_CAPS);
	cr_assert_eq(r.status, 0);
	cr_assert_not_null(strstr(r.out, "usage: loadscope probe"));
}
