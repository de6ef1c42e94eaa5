/*
 * `loadscope lab fragment --gib N [--hold S] [--keep-free GIB]`: bring the
 * machine into the state both seed reports could not bring on at will:
 * plenty of free memory, almost none of it in free 2 MiB blocks, and no
 * way for compaction to make more. It faults N GiB of 4 KiB pages
 * (MADV_NOHUGEPAGE), pins one 4 KiB page in every 2 MiB block for the long
 * term with io_uring registered buffers (pin_user_pages FOLL_LONGTERM: a
 * pinned page cannot be migrated, so compaction cannot empty its block),
 * then frees the rest of every block (MADV_DONTNEED). Each 2 MiB block then
 * holds 511 free pages the buddy allocator cannot merge.
 *
 * It prints /proc/buddyinfo and the free memory in 2 MiB blocks before and
 * after (the host readers of src/host/), holds until SIGINT or SIGTERM or
 * --hold runs out, and releases everything (the process exiting would too:
 * pins and mappings are the process's). It says that it stresses the
 * machine, refuses to leave less than --keep-free of MemAvailable, and
 * never writes sysfs or /proc/sys (dropping the page cache, which makes
 * the state worse, is the user's choice: docs/reproduce.md).
 *
 * Exit status: 0 fragmented, held and released (also when a signal ended
 * the hold); 1 refused (--keep-free) or the pins cannot be taken here
 * (io_uring unavailable, RLIMIT_MEMLOCK); 4 /proc unreadable or the
 * memory could not be mapped; 64 usage (docs/cli.md).
 */
#include <errno.h>
#include <liburing.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "host/procfs.h"
#include "lab_drain.h"
#include "mem_guard.h"
#include "tool.h"

const char lsc_cmd_lab_help[] = "bring on the fragmented state on purpose (lab fragment; stresses the machine)";

#define GIB (1024.0 * 1024 * 1024)
#define RING_BUFS 16384 /* IORING_MAX_REG_BUFFERS: registered buffers per ring */
#define BUDDY_BUF 16384
#define MEMINFO_BUF 8192

static void usage(FILE *f)
{
	fprintf(f,
		"usage: loadscope lab fragment --gib N [--hold S] [--keep-free GIB] [--drain [--drain-max GIB] [--leave GIB]]\n"
		"Stresses the machine on purpose: fragments N GiB of free memory so that almost none\n"
		"of it is left in free 2 MiB blocks, and compaction cannot make more. It faults N GiB\n"
		"of 4 KiB pages, pins one 4 KiB page in every 2 MiB block (io_uring registered\n"
		"buffers, which compaction cannot move), frees the rest, prints /proc/buddyinfo and\n"
		"the free memory in 2 MiB blocks before and after, and holds until killed.\n"
		"  --gib N          memory to fragment, above 0, at most 65536\n"
		"  --hold S         release after S seconds (0 to 31536000; 0: at once); default:\n"
		"                   hold until SIGINT or SIGTERM\n"
		"  --keep-free GIB  refuse to leave less than GIB of MemAvailable (default 2)\n"
		"  --drain          then take the free 2 MiB blocks that are left, and those that\n"
		"                   reclaim and compaction build while it holds, with huge-page\n"
		"                   faults kept until the end (never below --keep-free): no free\n"
		"                   block is left for compaction to make, the worst state\n"
		"  --drain-max GIB  hold at most GIB of drained huge pages (default: no bound)\n"
		"  --leave GIB      drain only down to GIB free in 2 MiB blocks (default 0): a state\n"
		"                   where the free blocks are a little short of an arena\n"
		"Everything is released at the end, also on SIGINT and SIGTERM. Never writes sysfs\n"
		"or /proc/sys. Pins count against RLIMIT_MEMLOCK without CAP_IPC_LOCK (2 MiB per\n"
		"GiB fragmented). How to reach the worst state: docs/reproduce.md.\n"
		"  -h, --help     this text      -V, --version  version and backends\n"
		"exit: 0 fragmented, held and released, 1 refused (--keep-free) or the pins cannot\n"
		"be taken here, 4 /proc unreadable or the memory could not be mapped, 64 usage\n"
		"error (docs/cli.md)\n");
}

enum { OPT_GIB = 256, OPT_HOLD, OPT_KEEP_FREE, OPT_DRAIN, OPT_DRAIN_MAX, OPT_LEAVE };

static const struct option longopts[] = {
	{"gib", required_argument, NULL, OPT_GIB},
	{"hold", required_argument, NULL, OPT_HOLD},
	{"keep-free", required_argument, NULL, OPT_KEEP_FREE},
	{"drain", no_argument, NULL, OPT_DRAIN},
	{"drain-max", required_argument, NULL, OPT_DRAIN_MAX},
	{"leave", required_argument, NULL, OPT_LEAVE},
	LSC_CLI_COMMON_OPTS,
};

struct state {
	long page;
	size_t block;   /* the huge-page size: hpage_pmd_size, else 2 MiB */
	unsigned order; /* of a block, in pages */
};

/* Print buddyinfo as it is and the free memory in blocks; 0, or -errno. */
static int show(const char *when, const struct state *s, int64_t *free_blocks)
{
	char buf[BUDDY_BUF], mi[MEMINFO_BUF];
	int64_t memfree = -1, avail = -1;

	ssize_t n = lsc__read_file("/proc", "buddyinfo", buf, sizeof(buf), NULL);
	if (n < 0) {
		fprintf(stderr, "loadscope lab: /proc/buddyinfo: %s\n", strerror((int)-n));
		return (int)n;
	}
	int64_t fb = lsc__buddy_free_bytes(buf, s->order, s->page);
	int64_t all = lsc__buddy_free_bytes(buf, 0, s->page);
	if (lsc__read_lines("/proc", "meminfo", mi, sizeof(mi)) >= 0) {
		lsc__kv_kib(mi, "MemFree", &memfree);
		lsc__kv_kib(mi, "MemAvailable", &avail);
	}
	printf("%s: /proc/buddyinfo (free blocks of 2^order pages, order 0 first)\n%s", when, buf);
	if (fb >= 0)
		printf("%s: free in %zu KiB blocks: %.2f GiB (%lld blocks); in smaller blocks %.2f GiB (4 KiB "
		       "faults take these first); MemFree %.2f GiB, MemAvailable %.2f GiB\n",
		       when, s->block / 1024, (double)fb / GIB, (long long)(fb / (int64_t)s->block),
		       all >= fb ? (double)(all - fb) / GIB : NAN,
		       memfree < 0 ? NAN : (double)memfree * 1024 / GIB,
		       avail < 0 ? NAN : (double)avail * 1024 / GIB);
	else
		printf("%s: free in %zu KiB blocks: n/a (buddyinfo not understood)\n", when, s->block / 1024);
	fflush(stdout);
	*free_blocks = fb;
	return 0;
}

static void machine(struct state *s)
{
	char buf[64];
	int64_t v;

	s->page = sysconf(_SC_PAGESIZE);
	s->block = 2u << 20;
	if (lsc__read_file("/sys", "kernel/mm/transparent_hugepage/hpage_pmd_size", buf, sizeof(buf), NULL) > 0 &&
	    lsc__parse_i64(buf, buf + strlen(buf), &v) == 0 && v > s->page && (v & (v - 1)) == 0)
		s->block = (size_t)v;
	s->order = 0;
	while (((size_t)s->page << s->order) < s->block)
		s->order++;
}

/* One sentence on why the pins were refused. */
static void pin_refused(int err, const struct state *s, size_t pinned_bytes, int before)
{
	struct rlimit rl;
	char lim[48] = "?";

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
		if (rl.rlim_cur == RLIM_INFINITY)
			snprintf(lim, sizeof(lim), "unlimited");
		else
			snprintf(lim, sizeof(lim), "%llu KiB", (unsigned long long)rl.rlim_cur / 1024);
	}
	if (err == ENOMEM)
		fprintf(stderr,
			"loadscope lab: %s%sthe pins (%zu KiB: %ld KiB per %zu KiB block) are over "
			"RLIMIT_MEMLOCK (%s) without CAP_IPC_LOCK; raise it (ulimit -l) or fragment less; "
			"nothing done\n",
			before ? "" : "io_uring_register_buffers: ", before ? "" : "Cannot allocate memory: ",
			pinned_bytes / 1024, s->page / 1024, s->block / 1024, lim);
	else if (err == EPERM || err == ENOSYS || err == EACCES)
		fprintf(stderr,
			"loadscope lab: io_uring: %s: io_uring is off here (kernel.io_uring_disabled, a "
			"seccomp filter or a container), and it is how the lab pins pages; nothing done\n",
			strerror(err));
	else
		fprintf(stderr, "loadscope lab: io_uring: %s; nothing pinned\n", strerror(err));
}

/* SIGINT or SIGTERM pending (they are blocked: taken in the hold). */
static int stop_asked(void)
{
	sigset_t p;
	return sigpending(&p) == 0 && (sigismember(&p, SIGINT) == 1 || sigismember(&p, SIGTERM) == 1);
}

/* The drain's figures, one line; how much it took this time. */
static void drained(const char *when, const struct lab_drain *d, int64_t took, const struct state *s)
{
	int64_t fb = lab_free_blocks(d);

	printf("drained%s: took %.2f GiB of %zu KiB blocks in huge pages (%.2f GiB held so far); "
	       "free in %zu KiB blocks now %.2f GiB\n",
	       when, (double)took / GIB, s->block / 1024, (double)d->bytes / GIB, s->block / 1024,
	       fb < 0 ? NAN : (double)fb / GIB);
	fflush(stdout);
}

static int fragment(double gib, double hold, double keep_free, int drain, double drain_max, double leave)
{
	struct lab_drain dr = {0};
	struct state s;
	machine(&s);
	size_t blocks = (size_t)ceil(gib * GIB / (double)s.block);
	size_t bytes = blocks * s.block;
	int64_t avail = lab_mem_available(), before, after, released;

	if (avail < 0) {
		fprintf(stderr, "loadscope lab: MemAvailable unreadable in /proc/meminfo; refusing without it\n");
		return LSC_EXIT_IO;
	}
	/* --keep-free below MemAvailable; below a memory cgroup's limit, the guard's reserve */
	if (lsc_cli_mem_guard(stderr, "loadscope lab", "--gib", bytes, (int64_t)(keep_free * GIB)))
		return LSC_EXIT_PROBLEM;
	/* The pins count against RLIMIT_MEMLOCK without CAP_IPC_LOCK: refuse
	 * before faulting anything rather than after. (The kernel's own count
	 * is per user, so a smaller shortfall is still its refusal later.) */
	struct lsc__status st;
	struct rlimit rl;
	if (lsc__status_read(NULL, &st) == 0 && st.cap_ipc_lock == 0 && getrlimit(RLIMIT_MEMLOCK, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < blocks * (size_t)s.page) {
		pin_refused(ENOMEM, &s, blocks * (size_t)s.page, 1);
		return LSC_EXIT_PROBLEM;
	}
	fprintf(stderr,
		"loadscope lab: this stresses the machine: %.2f GiB of free memory is fragmented into 4 KiB "
		"holes with one pinned page per %zu KiB block%s, so every program here that wants huge pages "
		"gets fewer or stalls in compaction, until this ends (SIGINT or SIGTERM releases all)\n",
		(double)bytes / GIB, s.block / 1024,
		drain ? ", and the free blocks left are taken too (--drain)" : "");
	dr.block = s.block;
	dr.order = s.order;
	dr.page = s.page;
	dr.leave = (uint64_t)(leave * GIB);
	dr.stop = stop_asked; /* a signal while draining goes to the release at once */
	if (show("before", &s, &before) < 0)
		return LSC_EXIT_IO;

	/* Aligned to a block, so that each block of the mapping is one the
	 * buddy allocator could have handed out whole. */
	size_t map_len = bytes + s.block;
	char *map = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "loadscope lab: mmap %zu bytes: %s\n", map_len, strerror(errno));
		return LSC_EXIT_IO;
	}
	char *base = (char *)(((uintptr_t)map + s.block - 1) & ~((uintptr_t)s.block - 1));
	if (madvise(base, bytes, MADV_NOHUGEPAGE))
		fprintf(stderr, "loadscope lab: madvise(MADV_NOHUGEPAGE): %s (THP may fill some blocks whole)\n",
			strerror(errno));
	for (size_t off = 0; off < bytes; off += (size_t)s.page) {
		base[off] = 1;
		if (off % s.block == 0 && stop_asked()) {
			printf("stopped by a signal while faulting: releasing\n");
			munmap(map, map_len);
			return LSC_EXIT_OK;
		}
	}

	size_t nrings = (blocks + RING_BUFS - 1) / RING_BUFS;
	struct io_uring *rings = calloc(nrings, sizeof(*rings));
	struct iovec *iov = calloc(blocks, sizeof(*iov));
	int rc = LSC_EXIT_OK;
	size_t up = 0;
	if (!rings || !iov) {
		fprintf(stderr, "loadscope lab: out of memory\n");
		rc = LSC_EXIT_IO;
		goto out;
	}
	for (size_t b = 0; b < blocks; b++) {
		iov[b].iov_base = base + b * s.block;
		iov[b].iov_len = (size_t)s.page;
	}
	for (; up < nrings; up++) {
		size_t first = up * RING_BUFS, n = blocks - first < RING_BUFS ? blocks - first : RING_BUFS;
		int r = io_uring_queue_init(1, &rings[up], 0);
		if (r == 0) {
			r = io_uring_register_buffers(&rings[up], iov + first, (unsigned)n);
			if (r < 0)
				io_uring_queue_exit(&rings[up]);
		}
		if (r < 0) {
			pin_refused(-r, &s, blocks * (size_t)s.page, 0);
			rc = LSC_EXIT_PROBLEM;
			goto out;
		}
	}
	/* The rest of every block back to the kernel: 4 KiB holes around a pin. */
	for (size_t b = 0; b < blocks; b++)
		if (madvise(base + b * s.block + s.page, s.block - (size_t)s.page, MADV_DONTNEED)) {
			fprintf(stderr, "loadscope lab: madvise(MADV_DONTNEED): %s\n", strerror(errno));
			rc = LSC_EXIT_IO;
			goto out;
		}
	if (drain) {
		int64_t took = lab_drain_take(&dr, (int64_t)(keep_free * GIB), (uint64_t)(drain_max * GIB));
		if (took < 0)
			fprintf(stderr, "loadscope lab: drain: %s (smaps_rollup or meminfo unreadable); not drained\n",
				strerror((int)-took));
		else
			drained("", &dr, took, &s);
	}
	if (show("after", &s, &after) < 0) {
		rc = LSC_EXIT_IO;
		goto out;
	}
	if (before >= 0 && after >= 0)
		printf("fragmented: %zu pages of %ld bytes pinned, one per %zu KiB block of the %.2f GiB faulted; "
		       "free in %zu KiB blocks %.2f -> %.2f GiB\n",
		       blocks, s.page, s.block / 1024, (double)bytes / GIB, s.block / 1024, (double)before / GIB,
		       (double)after / GIB);
	if (isinf(hold))
		printf("holding until SIGINT or SIGTERM (pid %d)\n", (int)getpid());
	else
		printf("holding for %.6g s or until SIGINT or SIGTERM (pid %d)\n", hold, (int)getpid());
	fflush(stdout);

	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	struct timespec end, now;
	clock_gettime(CLOCK_MONOTONIC, &end);
	double e = (double)end.tv_sec + end.tv_nsec / 1e9 + (isinf(hold) ? 0 : hold);
	/* Draining, the hold wakes every second: blocks that reclaim,
	 * compaction or a program's exit give back are taken again, so that
	 * the state lasts from one load to the next. */
	int64_t last = drain ? lab_free_blocks(&dr) : -1;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		double left = isinf(hold) ? 86400 : e - ((double)now.tv_sec + now.tv_nsec / 1e9);
		if (left <= 0)
			break;
		if (drain && left > 1)
			left = 1;
		struct timespec ts = {.tv_sec = (time_t)left, .tv_nsec = (long)((left - floor(left)) * 1e9)};
		int sig = sigtimedwait(&set, NULL, &ts);
		if (sig > 0) {
			printf("%s: releasing\n", strsignal(sig));
			break;
		}
		int64_t fb = drain ? lab_free_blocks(&dr) : -1;
		if (fb >= 0 && fb > last + LAB_DRAIN_CHUNK) {
			int64_t took = lab_drain_take(&dr, (int64_t)(keep_free * GIB), (uint64_t)(drain_max * GIB));
			if (took > 0)
				drained(" while holding", &dr, took, &s);
			last = lab_free_blocks(&dr);
		} else if (fb >= 0 && fb < last) {
			last = fb;
		}
	}
out:;
	uint64_t drained_bytes = dr.bytes;
	lab_drain_release(&dr);
	/* Unregistered first: the ring's own teardown runs later in a kernel
	 * worker, and the pins would outlive this line by that much. */
	for (size_t i = 0; i < up; i++) {
		io_uring_unregister_buffers(&rings[i]);
		io_uring_queue_exit(&rings[i]);
	}
	munmap(map, map_len);
	free(rings);
	free(iov);
	if (rc == LSC_EXIT_OK && show("released", &s, &released) == 0) {
		/* The kernel's count of what this process still pins: 0 now. */
		struct lsc__status self;
		lsc__status_read(NULL, &self);
		printf("released: %zu pins and %.2f GiB of mappings", blocks, (double)bytes / GIB);
		if (drain)
			printf(", %.2f GiB of drained huge pages", (double)drained_bytes / GIB);
		printf("; VmPin now ");
		if (self.pin_kib < 0)
			printf("n/a\n");
		else
			printf("%lld kB\n", (long long)self.pin_kib);
	}
	return rc;
}

int lsc_cmd_lab(int argc, char **argv)
{
	double gib = NAN, hold = INFINITY, keep_free = 2;
	int drain = 0;
	double drain_max = 0, leave = 0;
	struct lsc_cli cli = {argc, argv, "hV", longopts, 0, 0};
	int c;

	while ((c = lsc_cli_next(&cli)) != -1) {
		switch (c) {
		case OPT_GIB:
			if (lsc_cli_real("--gib", optarg, 0, 65536, 1, &gib))
				return LSC_EXIT_USAGE;
			break;
		case OPT_HOLD:
			if (lsc_cli_real("--hold", optarg, 0, 31536000, 0, &hold))
				return LSC_EXIT_USAGE;
			break;
		case OPT_KEEP_FREE:
			if (lsc_cli_real("--keep-free", optarg, 0, 65536, 0, &keep_free))
				return LSC_EXIT_USAGE;
			break;
		case OPT_DRAIN:
			drain = 1;
			break;
		case OPT_DRAIN_MAX:
			if (lsc_cli_real("--drain-max", optarg, 0, 65536, 1, &drain_max))
				return LSC_EXIT_USAGE;
			break;
		case OPT_LEAVE:
			if (lsc_cli_real("--leave", optarg, 0, 65536, 0, &leave))
				return LSC_EXIT_USAGE;
			break;
		default:
			return lsc_cli_common(c, usage);
		}
	}
	if (!cli.nops)
		return lsc_cli_usage("no experiment given (fragment)");
	if (strcmp(argv[1], "fragment"))
		return lsc_cli_usage("%s: not an experiment (fragment)", argv[1]);
	if (cli.nops > 1)
		return lsc_cli_usage("%s: one experiment at a time", argv[2]);
	if (isnan(gib))
		return lsc_cli_usage("fragment: no --gib N given");

	/* Taken from here on in the hold's sigtimedwait, so that a signal at
	 * any point, while faulting or pinning, still ends in the release. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if ((drain_max > 0 || leave > 0) && !drain)
		return lsc_cli_usage("fragment: %s without --drain", drain_max > 0 ? "--drain-max" : "--leave");
	return fragment(gib, hold, keep_free, drain, drain_max, leave);
}
