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

/* What fragment() asked for, and what it holds: each step takes the
 * struct, and release() gives back whatever the steps took. */
struct frag {
	double gib, hold, keep_free, drain_max, leave;
	int drain;
	struct state s;
	size_t blocks, bytes;     /* blocks of s.block, the faulted bytes */
	char *map, *base;         /* the mapping, and its first block */
	size_t map_len;
	struct io_uring *rings;
	size_t nrings, up;        /* rings made, rings with buffers registered */
	struct iovec *iov;
	struct lab_drain dr;
};

/* Refuse before anything is taken: MemAvailable less --keep-free (a memory
 * cgroup's room less the guard's reserve), and the pins over RLIMIT_MEMLOCK. 0, or the exit status (the line printed). */
static int refuse_early(const struct frag *f)
{
	int64_t avail = lab_mem_available();

	if (avail < 0) {
		fprintf(stderr, "loadscope lab: MemAvailable unreadable in /proc/meminfo; refusing without it\n");
		return LSC_EXIT_IO;
	}
	/* --keep-free below MemAvailable; below a memory cgroup's limit, the guard's reserve */
	if (lsc_cli_mem_guard(stderr, "loadscope lab", "--gib", f->bytes, (int64_t)(f->keep_free * GIB)))
		return LSC_EXIT_PROBLEM;
	/* The pins count against RLIMIT_MEMLOCK without CAP_IPC_LOCK: refuse
	 * before faulting anything rather than after. (The kernel's own count
	 * is per user, so a smaller shortfall is still its refusal later.) */
	struct lsc__status st;
	struct rlimit rl;
	if (lsc__status_read(NULL, &st) == 0 && st.cap_ipc_lock == 0 && getrlimit(RLIMIT_MEMLOCK, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < f->blocks * (size_t)f->s.page) {
		pin_refused(ENOMEM, &f->s, f->blocks * (size_t)f->s.page, 1);
		return LSC_EXIT_PROBLEM;
	}
	return 0;
}

/* Map N GiB aligned to a block, so that each block of the mapping is one
 * the buddy allocator could have handed out whole, and fault it in 4 KiB
 * pages. 0; 1 stopped by a signal (nothing more to do); or LSC_EXIT_IO. */
static int fault_in(struct frag *f)
{
	f->map_len = f->bytes + f->s.block;
	f->map = mmap(NULL, f->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (f->map == MAP_FAILED) {
		f->map = NULL;
		fprintf(stderr, "loadscope lab: mmap %zu bytes: %s\n", f->map_len, strerror(errno));
		return LSC_EXIT_IO;
	}
	f->base = (char *)(((uintptr_t)f->map + f->s.block - 1) & ~((uintptr_t)f->s.block - 1));
	if (madvise(f->base, f->bytes, MADV_NOHUGEPAGE))
		fprintf(stderr, "loadscope lab: madvise(MADV_NOHUGEPAGE): %s (THP may fill some blocks whole)\n",
			strerror(errno));
	for (size_t off = 0; off < f->bytes; off += (size_t)f->s.page) {
		f->base[off] = 1;
		if (off % f->s.block == 0 && stop_asked()) {
			printf("stopped by a signal while faulting: releasing\n");
			return 1;
		}
	}
	return 0;
}

/* One 4 KiB page of every block pinned (io_uring registered buffers), then
 * the rest of every block back to the kernel: 4 KiB holes around a pin.
 * 0, or the exit status (the line printed). */
static int pin_and_punch(struct frag *f)
{
	f->nrings = (f->blocks + RING_BUFS - 1) / RING_BUFS;
	f->rings = calloc(f->nrings, sizeof(*f->rings));
	f->iov = calloc(f->blocks, sizeof(*f->iov));
	if (!f->rings || !f->iov) {
		fprintf(stderr, "loadscope lab: out of memory\n");
		return LSC_EXIT_IO;
	}
	for (size_t b = 0; b < f->blocks; b++) {
		f->iov[b].iov_base = f->base + b * f->s.block;
		f->iov[b].iov_len = (size_t)f->s.page;
	}
	for (; f->up < f->nrings; f->up++) {
		size_t first = f->up * RING_BUFS;
		size_t n = f->blocks - first < RING_BUFS ? f->blocks - first : RING_BUFS;
		int r = io_uring_queue_init(1, &f->rings[f->up], 0);
		if (r == 0) {
			r = io_uring_register_buffers(&f->rings[f->up], f->iov + first, (unsigned)n);
			if (r < 0)
				io_uring_queue_exit(&f->rings[f->up]);
		}
		if (r < 0) {
			pin_refused(-r, &f->s, f->blocks * (size_t)f->s.page, 0);
			return LSC_EXIT_PROBLEM;
		}
	}
	for (size_t b = 0; b < f->blocks; b++)
		if (madvise(f->base + b * f->s.block + f->s.page, f->s.block - (size_t)f->s.page, MADV_DONTNEED)) {
			fprintf(stderr, "loadscope lab: madvise(MADV_DONTNEED): %s\n", strerror(errno));
			return LSC_EXIT_IO;
		}
	return 0;
}

/* Hold until SIGINT or SIGTERM, or --hold runs out. Draining, the hold
 * wakes every second: blocks that reclaim, compaction or a program's exit
 * give back are taken again, so that the state lasts from one load to the
 * next. */
static void hold_state(struct frag *f)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	struct timespec end, now;
	clock_gettime(CLOCK_MONOTONIC, &end);
	double e = (double)end.tv_sec + end.tv_nsec / 1e9 + (isinf(f->hold) ? 0 : f->hold);
	int64_t last = f->drain ? lab_free_blocks(&f->dr) : -1;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		double left = isinf(f->hold) ? 86400 : e - ((double)now.tv_sec + now.tv_nsec / 1e9);
		if (left <= 0)
			break;
		if (f->drain && left > 1)
			left = 1;
		struct timespec ts = {.tv_sec = (time_t)left, .tv_nsec = (long)((left - floor(left)) * 1e9)};
		int sig = sigtimedwait(&set, NULL, &ts);
		if (sig > 0) {
			printf("%s: releasing\n", strsignal(sig));
			break;
		}
		int64_t fb = f->drain ? lab_free_blocks(&f->dr) : -1;
		if (fb >= 0 && fb > last + LAB_DRAIN_CHUNK) {
			int64_t took = lab_drain_take(&f->dr, (int64_t)(f->keep_free * GIB),
						      (uint64_t)(f->drain_max * GIB));
			if (took > 0)
				drained(" while holding", &f->dr, took, &f->s);
			last = lab_free_blocks(&f->dr);
		} else if (fb >= 0 && fb < last) {
			last = fb;
		}
	}
}

/* Give back what the steps took; after a clean run, the released lines. */
static void release(struct frag *f, int rc)
{
	int64_t released;
	uint64_t drained_bytes = f->dr.bytes;

	lab_drain_release(&f->dr);
	/* Unregistered first: the ring's own teardown runs later in a kernel
	 * worker, and the pins would outlive this line by that much. */
	for (size_t i = 0; i < f->up; i++) {
		io_uring_unregister_buffers(&f->rings[i]);
		io_uring_queue_exit(&f->rings[i]);
	}
	if (f->map)
		munmap(f->map, f->map_len);
	free(f->rings);
	free(f->iov);
	if (rc != LSC_EXIT_OK || show("released", &f->s, &released) < 0)
		return;
	/* The kernel's count of what this process still pins: 0 now. */
	struct lsc__status self;
	lsc__status_read(NULL, &self);
	printf("released: %zu pins and %.2f GiB of mappings", f->blocks, (double)f->bytes / GIB);
	if (f->drain)
		printf(", %.2f GiB of drained huge pages", (double)drained_bytes / GIB);
	printf("; VmPin now ");
	if (self.pin_kib < 0)
		printf("n/a\n");
	else
		printf("%lld kB\n", (long long)self.pin_kib);
}

static int fragment(struct frag *f)
{
	int64_t before, after;

	machine(&f->s);
	f->blocks = (size_t)ceil(f->gib * GIB / (double)f->s.block);
	f->bytes = f->blocks * f->s.block;
	int rc = refuse_early(f);
	if (rc)
		return rc;
	fprintf(stderr,
		"loadscope lab: this stresses the machine: %.2f GiB of free memory is fragmented into 4 KiB "
		"holes with one pinned page per %zu KiB block%s, so every program here that wants huge pages "
		"gets fewer or stalls in compaction, until this ends (SIGINT or SIGTERM releases all)\n",
		(double)f->bytes / GIB, f->s.block / 1024,
		f->drain ? ", and the free blocks left are taken too (--drain)" : "");
	f->dr.block = f->s.block;
	f->dr.order = f->s.order;
	f->dr.page = f->s.page;
	f->dr.leave = (uint64_t)(f->leave * GIB);
	f->dr.stop = stop_asked; /* a signal while draining goes to the release at once */
	if (show("before", &f->s, &before) < 0)
		return LSC_EXIT_IO;

	rc = fault_in(f);
	if (rc == 1) { /* stopped by a signal: nothing pinned yet */
		release(f, -1);
		return LSC_EXIT_OK;
	}
	if (rc == 0)
		rc = pin_and_punch(f);
	if (rc == 0 && f->drain) {
		int64_t took = lab_drain_take(&f->dr, (int64_t)(f->keep_free * GIB), (uint64_t)(f->drain_max * GIB));
		if (took < 0)
			fprintf(stderr, "loadscope lab: drain: %s (smaps_rollup or meminfo unreadable); not drained\n",
				strerror((int)-took));
		else
			drained("", &f->dr, took, &f->s);
	}
	if (rc == 0 && show("after", &f->s, &after) < 0)
		rc = LSC_EXIT_IO;
	if (rc == 0) {
		if (before >= 0 && after >= 0)
			printf("fragmented: %zu pages of %ld bytes pinned, one per %zu KiB block of the %.2f GiB "
			       "faulted; free in %zu KiB blocks %.2f -> %.2f GiB\n",
			       f->blocks, f->s.page, f->s.block / 1024, (double)f->bytes / GIB, f->s.block / 1024,
			       (double)before / GIB, (double)after / GIB);
		if (isinf(f->hold))
			printf("holding until SIGINT or SIGTERM (pid %d)\n", (int)getpid());
		else if (f->hold == 0)
			printf("releasing at once (--hold 0)\n");
		else
			printf("holding for %.6g s or until SIGINT or SIGTERM (pid %d)\n", f->hold, (int)getpid());
		fflush(stdout);
		hold_state(f);
	}
	release(f, rc);
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
	struct frag f = {.gib = gib, .hold = hold, .keep_free = keep_free, .drain = drain,
			 .drain_max = drain_max, .leave = leave};
	return fragment(&f);
}
