/*
 * loadscope probe: print the system snapshot and say, before any load, what
 * would hurt a large pinned arena on this machine: a THP setting that makes
 * MADV_HUGEPAGE faults compact in the faulting thread while too little memory
 * is free in huge-page-sized blocks (seed 001: 432 s to ready instead of
 * 25 s), a memlock limit below the arena, a hugetlb pool too small for it,
 * an arena larger than MemAvailable.
 *
 * The judgement is lsc__assess(), the same one the loader's `auto` policy
 * takes, so the probe never warns about something the loader would do.
 * Output is the library's own line grammar (human or JSON), one `system`
 * line, then one `warn` line per problem, with a stable id and the numbers,
 * or one `ok` line.
 *
 * Exit (docs/cli.md): 0 nothing to warn about, 1 warnings, 3 no arena size
 * (no --arena-gib and MemAvailable unreadable), 64 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <loadscope/loadscope.h>

#include "format/human.h"
#include "host/assess.h"
#include "host/mem_room.h"
#include "profiler/internal.h"
#include "host/procfs.h"
#include "tool.h"

const char lsc_cmd_probe_help[] = "print the memory settings and warn about what would slow a large pinned arena";

/* Without --arena-gib: most of what the kernel says is available, leaving
 * room for the engine's own heap and the page cache of the files it reads. */
#define DEFAULT_ARENA_SHARE 0.8

struct probe_args {
	double arena_gib;       /* 0: not given */
	enum lsc_format format;
	const char *proc_root, *sys_root;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: loadscope probe [--arena-gib N] [--format human|json]\n"
		"                       [--proc-root DIR] [--sys-root DIR]\n"
		"\n"
		"Prints the memory settings that decide how a large pinned arena behaves,\n"
		"then warns about what would hurt an arena of N GiB (default: 80%% of\n"
		"MemAvailable).\n"
		"  --arena-gib N      the arena to judge, in GiB (above 0, at most 1048576)\n"
		"  --format F         human (default) or json\n"
		"  --proc-root DIR    read /proc from DIR (a copied tree)\n"
		"  --sys-root DIR     read /sys from DIR\n"
		"  -h, --help         this text\n"
		"  -V, --version      version and backends\n"
		"Exit 0: no warning; 1: warnings; 3: no arena size (no --arena-gib, MemAvailable\n"
		"unreadable); 4: stdout unwritable; 64: usage (docs/cli.md).\n");
}

enum { OPT_ARENA = 256, OPT_FORMAT, OPT_PROC, OPT_SYS };

static const struct option longopts[] = {
	{"arena-gib", required_argument, NULL, OPT_ARENA},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"proc-root", required_argument, NULL, OPT_PROC},
	{"sys-root", required_argument, NULL, OPT_SYS},
	LSC_CLI_COMMON_OPTS,
};

/* 0 parsed, 1 --help or --version done, -1 usage error (message printed). */
static int parse_args(int argc, char **argv, struct probe_args *a)
{
	struct lsc_cli cli = {argc, argv, "hV", longopts, 0, 0};
	int c;

	memset(a, 0, sizeof(*a));
	a->format = LSC_FORMAT_HUMAN;
	while ((c = lsc_cli_next(&cli)) != -1) {
		switch (c) {
		case OPT_ARENA:
			if (lsc_cli_real("--arena-gib", optarg, 0, 1024.0 * 1024, 1, &a->arena_gib) < 0)
				return -1;
			if (a->arena_gib * 1024 * 1024 * 1024 < 1) {
				lsc_cli_usage("--arena-gib %s: less than one byte (%.10g GiB)", optarg,
					      1.0 / (1024 * 1024 * 1024));
				return -1;
			}
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "human")) {
				a->format = LSC_FORMAT_HUMAN;
			} else if (!strcmp(optarg, "json")) {
				a->format = LSC_FORMAT_JSON;
			} else {
				lsc_cli_usage("--format %s: human or json", optarg);
				return -1;
			}
			break;
		case OPT_PROC:
			a->proc_root = optarg;
			break;
		case OPT_SYS:
			a->sys_root = optarg;
			break;
		default:
			return lsc_cli_common(c, usage) == LSC_EXIT_OK ? 1 : -1;
		}
	}
	if (cli.nops) {
		lsc_cli_usage("%s: unexpected argument (probe takes options only)", argv[1]);
		return -1;
	}
	return 0;
}

static void warn_init(struct lsc__rec *r, const char *id, uint64_t arena)
{
	lsc__rec_init(r, LSC__EV(WARN));
	lsc__rec_str(r, LSC__KEY(ID), id);
	lsc__rec_u64(r, LSC__KEY(ARENA_BYTES), arena);
}

static void warn_thp(lsc_profiler *p, const struct lsc_system *s, const struct lsc__assessment *a,
		     uint64_t arena)
{
	char b[LSC__HBUF];
	struct lsc__rec r;

	warn_init(&r, LSC__ID(THP_STALL_RISK), arena);
	lsc__rec_say(&r, "probe: an MADV_HUGEPAGE arena of %s can stall in direct compaction: %s; "
		     "remedy: use the loader's auto or 4k policy, or run under PR_SET_THP_DISABLE",
		     lsc__fmt_bytes(b, (double)arena), a->thp_reason);
	lsc__rec_str(&r, LSC__KEY(THP_ENABLED), s->thp_enabled[0] ? s->thp_enabled : "n/a");
	lsc__rec_str(&r, LSC__KEY(THP_DEFRAG), s->thp_defrag);
	lsc__rec_num(&r, "free_huge_blocks_bytes", a->huge_free_bytes);
	lsc__rec_num(&r, "thp_pmd_bytes", s->hpage_pmd_size);
	lsc__emit(p, &r);
}

static void warn_host_refault(lsc_profiler *p, const char *proc_root, const struct lsc_system *s,
			      const struct lsc__assessment *a, uint64_t arena)
{
	/* The measured rates are docs/benchmarks.md's (bench_host_refault and
	 * the policy matrix). */
	char b[LSC__HBUF], u[LSC__HBUF], cover[96];
	struct lsc__rec r;
	unsigned order;
	int64_t unreported = lsc__free_unreported(proc_root, s, &order);

	warn_init(&r, LSC__ID(HOST_REFAULT), arena);
	if (unreported != LSC_NA)
		snprintf(cover, sizeof cover, "the %s free in smaller blocks (never reported) %s the arena",
			 lsc__fmt_bytes(u, (double)unreported),
			 (uint64_t)unreported >= arena ? "covers" : "does not cover");
	else
		snprintf(cover, sizeof cover, "the free memory in smaller blocks is n/a here");
	lsc__rec_say(&r, "probe: this VM gives idle free memory back to its host (free page "
		     "reporting, blocks of order %u and up): a page of a %s arena taken from such a "
		     "block faults in again in the host at its first touch (well under 1 GiB/s, "
		     "nothing in /proc/vmstat); huge pages always come from them, 4 KiB "
		     "pages only once the smaller free blocks run out, and %s (the auto policy moves "
		     "that part to 4 KiB pages when huge pages fault in the host); remedy: turn free "
		     "page reporting off in the VM's "
		     "balloon device for inference hosts",
		     order, lsc__fmt_bytes(b, (double)arena), cover);
	lsc__rec_num(&r, LSC__KEY(PAGE_REPORTING), s->page_reporting);
	lsc__rec_num(&r, LSC__KEY(PAGE_REPORTING_ORDER), s->page_reporting_order);
	lsc__rec_num(&r, "free_huge_blocks_bytes", a->huge_free_bytes);
	lsc__rec_num(&r, "free_unreported_bytes", unreported);
	lsc__emit(p, &r);
}

static void warn_memlock(lsc_profiler *p, const struct lsc_system *s, uint64_t arena)
{
	char b1[LSC__HBUF], b2[LSC__HBUF];
	struct lsc__rec r;

	warn_init(&r, LSC__ID(MEMLOCK_SHORT), arena);
	lsc__rec_say(&r, "probe: RLIMIT_MEMLOCK is %s, below the %s arena: pinning it with mlock "
		     "fails; remedy: raise the limit (ulimit -l unlimited; LimitMEMLOCK=infinity "
		     "in a systemd unit; docker run --ulimit memlock=-1)",
		     lsc__fmt_bytes(b1, (double)s->memlock_cur), lsc__fmt_bytes(b2, (double)arena));
	lsc__rec_num(&r, LSC__KEY(MEMLOCK_BYTES), s->memlock_cur);
	lsc__rec_num(&r, "memlock_max_bytes", s->memlock_max);
	lsc__emit(p, &r);
}

static void warn_hugetlb(lsc_profiler *p, const struct lsc_system *s,
			 const struct lsc__assessment *a, uint64_t arena)
{
	char b[LSC__HBUF];
	struct lsc__rec r;

	warn_init(&r, LSC__ID(HUGETLB_SHORT), arena);
	lsc__rec_say(&r, "probe: a hugetlb arena of %s needs %lld pages of %lld KiB but the pool "
		     "has %lld available (free and not reserved, of %lld); remedy: reserve more (vm.nr_hugepages) or use THP "
		     "or 4 KiB pages: in a field report a hugetlb arena measured no gain and took "
		     "its memory from the page cache",
		     lsc__fmt_bytes(b, (double)arena), (long long)a->hugetlb_needed,
		     (long long)s->hugetlb_page_kib, (long long)a->hugetlb_free,
		     (long long)s->hugetlb_total);
	lsc__rec_num(&r, "hugetlb_needed", a->hugetlb_needed);
	lsc__rec_num(&r, LSC__KEY(HUGETLB_FREE), a->hugetlb_free);
	lsc__rec_num(&r, LSC__KEY(HUGETLB_TOTAL), s->hugetlb_total);
	lsc__rec_num(&r, "hugetlb_page_kib", s->hugetlb_page_kib);
	lsc__emit(p, &r);
}

static void warn_mem(lsc_profiler *p, const struct lsc_system *s, uint64_t arena)
{
	char b1[LSC__HBUF], b2[LSC__HBUF];
	struct lsc__rec r;

	warn_init(&r, LSC__ID(MEM_SHORT), arena);
	lsc__rec_say(&r, "probe: the %s arena is larger than MemAvailable (%s): pinning it "
		     "reclaims the page cache, swaps or fails; remedy: a smaller arena, or free "
		     "memory before the start",
		     lsc__fmt_bytes(b1, (double)arena), lsc__fmt_bytes(b2, (double)s->mem_available));
	lsc__rec_num(&r, "mem_available_bytes", s->mem_available);
	lsc__emit(p, &r);
}

/* The arena above a memory cgroup's room: its OOM killer, not the host's
 * shortage, ends the engine; the loader's guard refuses such an arena. */
static void warn_cgroup(lsc_profiler *p, const struct lsc__mem_room *m, uint64_t arena)
{
	const struct lsc__mem_bound *b = &m->b[m->tightest];
	char b1[LSC__HBUF], b2[LSC__HBUF];
	struct lsc__rec r;

	warn_init(&r, LSC__ID(MEM_SHORT), arena);
	lsc__rec_say(&r, "probe: the %s arena is larger than the room under the %s of cgroup %s "
		     "(%s): faulting it brings the cgroup's OOM killer (the loader refuses it "
		     "before faulting); remedy: a smaller arena, or a larger limit for the container",
		     lsc__fmt_bytes(b1, (double)arena), lsc__mem_src_what(m->tightest), b->cgroup,
		     lsc__fmt_bytes(b2, (double)b->room));
	lsc__rec_num(&r, "mem_room_bytes", b->room);
	lsc__rec_str(&r, "mem_room_source", lsc__mem_src_name(m->tightest));
	lsc__rec_str(&r, "mem_room_cgroup", b->cgroup);
	lsc__emit(p, &r);
}

/* What this process may still take, and which bound says so. */
static void say_room(lsc_profiler *p, const struct lsc__mem_room *m)
{
	char b1[LSC__HBUF], b2[LSC__HBUF], b3[LSC__HBUF], text[640];
	struct lsc__rec r;
	int t = m->tightest;
	const struct lsc__mem_bound *b = t >= 0 ? &m->b[t] : NULL;

	if (!b)
		snprintf(text, sizeof text, "the memory this process may take is n/a (neither "
					    "MemAvailable nor a memory cgroup's files could be read)");
	else if (t == LSC__MEM_AVAILABLE)
		snprintf(text, sizeof text, "this process may take %s more: MemAvailable, the tightest "
					    "bound (no memory cgroup limit below it)",
			 lsc__fmt_bytes(b1, (double)b->room));
	else
		snprintf(text, sizeof text, "this process may take %s more: the room under the %s of "
					    "cgroup %s (the limit %s less %s in use besides the file "
					    "cache), below MemAvailable",
			 lsc__fmt_bytes(b1, (double)b->room), lsc__mem_src_what(t), b->cgroup,
			 lsc__fmt_bytes(b2, (double)b->limit), lsc__fmt_bytes(b3, (double)b->used));
	lsc__rec_init(&r, LSC__EV(NOTE));
	lsc__rec_say(&r, "probe: %s", text);
	lsc__rec_str(&r, LSC__KEY(TOPIC), "memory");
	lsc__rec_str(&r, LSC__KEY(TEXT), text);
	lsc__rec_num(&r, "mem_room_bytes", b ? b->room : LSC_NA);
	lsc__rec_str(&r, "mem_room_source", b ? lsc__mem_src_name(t) : "n/a");
	if (b && t != LSC__MEM_AVAILABLE) {
		lsc__rec_str(&r, "mem_room_cgroup", b->cgroup);
		lsc__rec_num(&r, "mem_room_limit_bytes", b->limit);
		lsc__rec_num(&r, "mem_room_used_bytes", b->used);
	}
	lsc__emit(p, &r);
}

/* mlock() ignores RLIMIT_MEMLOCK for a process with CAP_IPC_LOCK (root,
 * usually): a low limit is then no problem, but worth one line, since the
 * same engine run unprivileged would fail. */
static void note_memlock_lifted(lsc_profiler *p, const struct lsc_system *s, uint64_t arena)
{
	char b1[LSC__HBUF], b2[LSC__HBUF], text[200];
	struct lsc__rec r;

	snprintf(text, sizeof(text),
		 "RLIMIT_MEMLOCK is %s, below the %s arena, but this process has CAP_IPC_LOCK, "
		 "which lifts it; without that capability mlock pinning would fail",
		 lsc__fmt_bytes(b1, (double)s->memlock_cur), lsc__fmt_bytes(b2, (double)arena));
	lsc__rec_init(&r, LSC__EV(NOTE));
	lsc__rec_say(&r, "probe: %s", text);
	lsc__rec_str(&r, LSC__KEY(TOPIC), "probe");
	lsc__rec_str(&r, LSC__KEY(TEXT), text);
	lsc__emit(p, &r);
}

static void say_ok(lsc_profiler *p, const struct lsc__assessment *a, uint64_t arena)
{
	char b[LSC__HBUF];
	struct lsc__rec r;

	lsc__rec_init(&r, LSC__EV(OK));
	lsc__rec_say(&r, "probe: nothing in the way of a %s pinned arena: %s",
		     lsc__fmt_bytes(b, (double)arena), a->thp_reason);
	lsc__rec_u64(&r, LSC__KEY(ARENA_BYTES), arena);
	lsc__rec_str(&r, "thp", a->thp_reason);
	lsc__emit(p, &r);
}

/* The arena size: the option, or a share of what this process may take.
 * 0 when neither. */
static uint64_t arena_size(const struct probe_args *a, const struct lsc__mem_room *m)
{
	if (a->arena_gib > 0)
		return (uint64_t)(a->arena_gib * 1024 * 1024 * 1024);
	if (m->tightest < 0 || m->b[m->tightest].room <= 0)
		return 0;
	return (uint64_t)((double)m->b[m->tightest].room * DEFAULT_ARENA_SHARE);
}

static void say_arena(lsc_profiler *p, const struct probe_args *a, const struct lsc__mem_room *m,
		      uint64_t arena)
{
	char b[LSC__HBUF], text[200];
	struct lsc__rec r;

	if (a->arena_gib > 0)
		snprintf(text, sizeof(text), "judging an arena of %s (--arena-gib)",
			 lsc__fmt_bytes(b, (double)arena));
	else
		snprintf(text, sizeof(text), "judging an arena of %s (80%% of %s%s; --arena-gib N to choose)",
			 lsc__fmt_bytes(b, (double)arena), m->tightest ? "the room under " : "",
			 lsc__mem_src_what(m->tightest));
	lsc__rec_init(&r, LSC__EV(NOTE));
	lsc__rec_say(&r, "probe: %s", text);
	lsc__rec_str(&r, LSC__KEY(TOPIC), "probe");
	lsc__rec_str(&r, LSC__KEY(TEXT), text);
	lsc__rec_u64(&r, LSC__KEY(ARENA_BYTES), arena);
	lsc__emit(p, &r);
}

/* The answer first (systemd-analyze's "Startup finished in ..."): fine or
 * at risk for the arena asked about, and the one reason that matters most
 * (what fails before what is slow); the details follow. */
static void say_verdict(lsc_profiler *p, const struct lsc__assessment *a, int cgroup_short, uint64_t arena,
			int warnings)
{
	static const struct {
		const char *id, *why;
	} order[] = {
		{"mem-short", "it is larger than the room under its memory cgroup's limit"},
		{"mem-short", "it is larger than MemAvailable"},
		{"memlock-short", "RLIMIT_MEMLOCK is below it: mlock pinning fails"},
		{"thp-stall-risk", "its MADV_HUGEPAGE faults can stall in direct compaction"},
		{"host-refault", "its pages fault in again in the host at their first touch (free page reporting)"},
		{"hugetlb-short", "the hugetlb pool is too small for it"},
	};
	const int risk[] = {cgroup_short, a->mem_short, a->memlock_short, a->stall_risk, a->host_refault,
			    a->hugetlb_short};
	char b[LSC__HBUF];
	struct lsc__rec r;
	unsigned i = 0;

	while (i < sizeof order / sizeof order[0] && !risk[i])
		i++;
	lsc__rec_init(&r, LSC__EV(VERDICT));
	if (i == sizeof order / sizeof order[0]) {
		lsc__rec_say(&r, "probe: fine: nothing in the way of a %s pinned arena",
			     lsc__fmt_bytes(b, (double)arena));
		lsc__rec_str(&r, "verdict", "fine");
	} else {
		lsc__rec_say(&r, "probe: at risk: a %s pinned arena: %s (%s", lsc__fmt_bytes(b, (double)arena),
			     order[i].why, order[i].id);
		if (warnings > 1)
			lsc__rec_say(&r, "; %d more below", warnings - 1);
		lsc__rec_say(&r, ")");
		lsc__rec_str(&r, "verdict", "at-risk");
		lsc__rec_str(&r, LSC__KEY(ID), order[i].id);
	}
	lsc__rec_u64(&r, LSC__KEY(ARENA_BYTES), arena);
	lsc__emit(p, &r);
}

static int probe(lsc_profiler *p, const struct probe_args *args)
{
	struct lsc__assessment a;
	struct lsc__mem_room m;
	struct lsc_system s;
	struct lsc__rec r;
	uint64_t arena;
	int warnings = 0;

	lsc_profiler_system(p, &s);
	lsc__mem_room_read(args->proc_root, args->sys_root, &m);
	arena = arena_size(args, &m);
	int cg_short = arena && m.tightest > LSC__MEM_AVAILABLE && arena > (uint64_t)m.b[m.tightest].room;
	if (arena) {
		lsc__assess(&s, arena, &a);
		/* the cgroup's shortage is told instead of the host's, below */
		say_verdict(p, &a, cg_short, arena,
			    (cg_short || a.mem_short) + a.memlock_short + a.stall_risk + a.host_refault +
				    a.hugetlb_short);
	}
	lsc__rec_init(&r, LSC__EV(SYSTEM));
	lsc__system_rec(&r, &s);
	lsc__emit(p, &r);

	if (!arena) {
		fprintf(stderr, "loadscope probe: neither MemAvailable nor a memory cgroup limit can "
				"be read here; give the arena size with --arena-gib N\n");
		return LSC_EXIT_NOTHING;
	}
	say_arena(p, args, &m, arena);
	if (a.memlock_lifted)
		note_memlock_lifted(p, &s, arena);
	say_room(p, &m);

	if (a.stall_risk) {
		warn_thp(p, &s, &a, arena);
		warnings++;
	}
	if (a.host_refault) {
		warn_host_refault(p, args->proc_root, &s, &a, arena);
		warnings++;
	}
	if (a.memlock_short) {
		warn_memlock(p, &s, arena);
		warnings++;
	}
	if (a.hugetlb_short) {
		warn_hugetlb(p, &s, &a, arena);
		warnings++;
	}
	if (cg_short) {
		warn_cgroup(p, &m, arena);
		warnings++;
	} else if (a.mem_short) {
		warn_mem(p, &s, arena);
		warnings++;
	}
	if (!warnings)
		say_ok(p, &a, arena);
	return warnings ? LSC_EXIT_PROBLEM : LSC_EXIT_OK;
}

int lsc_cmd_probe(int argc, char **argv)
{
	struct lsc_profiler_options o;
	struct probe_args args;
	lsc_profiler *p;
	int ret;

	ret = parse_args(argc, argv, &args);
	if (ret != 0)
		return ret > 0 ? LSC_EXIT_OK : LSC_EXIT_USAGE;
	lsc_profiler_options_init(&o);
	o.stream = stdout;
	o.format = args.format;
	o.mode = LSC_MODE_ON;
	o.proc_root = args.proc_root;
	o.sys_root = args.sys_root;
	/* The probe is asked for explicitly: LOADSCOPE=off must not silence it. */
	/* every field: the probe's lines are the details behind its verdict */
	o.flags = LSC_PROFILER_NO_WATCHDOG | LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_VERBOSE;
	ret = lsc_profiler_create(&o, &p);
	if (ret < 0) {
		fprintf(stderr, "loadscope probe: %s\n", lsc_strerror(ret));
		return LSC_EXIT_IO;
	}
	ret = probe(p, &args);
	lsc_profiler_destroy(p);
	return ret;
}
