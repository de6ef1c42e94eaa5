/*
 * loadscope pintest: the standalone page-locked allocation test of seed 000
 * (its pintest.cpp), for every pin backend.
 *
 * Per repeat and mode: time the allocation (whole, or in --chunk-gib
 * pieces), then a one-thread memset of every byte (the engine copies its
 * weights in next), then the free, with the /proc/vmstat deltas over the
 * allocation. The seed used it to show that a 28.47 GiB hipHostMalloc could
 * take 3 s or 1,071 s on the same machine, and what moved while it did
 * (compaction stalls, THP faults, swap-ins). Modes:
 *   alloc-mp  the backend's pinned allocation, Mapped | Portable (what the
 *             engine in seed 000 does); mlock: mmap + mlock
 *   alloc-m   Mapped only;  alloc-d  Default flags
 *   register  mmap + touch every page + pin (Mapped | Portable): the
 *             seed's malloc + memset + hipHostRegister, without the
 *             compiler turning it into calloc
 * Several modes may be given as a comma list; they are interleaved per
 * repeat so that a drifting machine hits every mode alike.
 *
 * The default backend is the first of the build that runs here (its probe
 * passes), so that `pintest SIZE` works on a machine without a GPU as on one
 * with; a backend asked for by name that cannot run here is one line that
 * names the one that can (`--backend mlock`). The mlock backend needs no
 * GPU, so the command and its table are tested on the build machines.
 * Exit (docs/cli.md): 0, 1 when the backend cannot run here (one line says
 * why) or a case failed, 64 usage.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <loadscope/loadscope.h>

#include "pin/kfd_counter.h"
#include "pin/pin.h"
#include "mem_guard.h"
#include "pin_cost.h"
#include "tool.h"

const char lsc_cmd_pintest_help[] =
	"time page-locked allocations per pin backend, with the vmstat deltas of each";

#define GIB 1073741824.0
#define MAX_MODES 4
#define MAX_PIECES 4096

enum mode { M_ALLOC_MP, M_ALLOC_M, M_ALLOC_D, M_REGISTER };
static const char *const mode_names[] = {"alloc-mp", "alloc-m", "alloc-d", "register"};

enum thp { T_DEFAULT, T_4K, T_THP, T_PROCESS_OFF };
static const char *const thp_names[] = {"default", "4k", "thp", "process-off"};

struct opts {
	double gib;
	double chunk_gib;
	unsigned repeats;
	enum mode modes[MAX_MODES];
	unsigned n_modes;
	enum thp thp;
	int h2d;
	const char *backend;
};

struct piece {
	void *p;
	size_t len;
	int pinned;   /* register mode: pin succeeded */
	int mapped;   /* we mmap'ed it (mlock backend, register mode) */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: loadscope pintest SIZE_GIB [--mode alloc-mp|alloc-m|alloc-d|register[,...]]\n"
		"                         [--chunk-gib N] [--repeats R] [--backend BACKEND]\n"
		"                         [--thp default|4k|thp|process-off] [--h2d]\n"
		"  SIZE_GIB     total size, may be fractional (0.0625 = 64 MiB; at most 1048576)\n"
		"  --mode       default alloc-mp; a comma list runs the modes interleaved\n"
		"  --chunk-gib  0 = one allocation (default); N = ceil(SIZE/N) pieces of N GiB,\n"
		"               at most %d pieces\n"
		"  --repeats    default 1, at most 1000\n"
		"  --backend    a page-locking backend of this build:",
		MAX_PIECES);
	for (const struct lsc__pin_ops *const *b = lsc__pin_backends; *b; b++)
		if ((*b)->caps & LSC__PIN_CAP_LOCKS)
			fprintf(f, " %s", (*b)->name);
	fprintf(f, "\n"
		"               (default: the first that runs here, GPU runtimes before mlock)\n"
		"  --thp        register: madvise before the touch (4k, thp) or PR_SET_THP_DISABLE\n"
		"               around the allocation (process-off, also for alloc modes)\n"
		"  --h2d        after each allocation, copy it all to the device (GPU backends)\n"
		"  -h, --help   this text;  -V, --version  version and backends\n"
		"Prints a Markdown table: case, alloc s, GiB/s, memset s, notes (vmstat deltas\n"
		"that moved over the allocation, retries, slow pieces, KFD counts when\n"
		"libloadscope_kfdcount.so is preloaded). Exit 0; 1 the backend cannot run here\n"
		"or a case failed; 4 stdout unwritable; 64 usage (docs/cli.md).\n");
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_modes(const char *s, struct opts *o)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", s);
	o->n_modes = 0;
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		unsigned m = 0;
		while (m < 4 && strcmp(t, mode_names[m]))
			m++;
		if (m == 4)
			return lsc_cli_usage("--mode %s: %s%snot a mode (alloc-mp, alloc-m, alloc-d, "
					     "register)", s, strcmp(s, t) ? t : "",
					     strcmp(s, t) ? " is " : "");
		if (o->n_modes == MAX_MODES)
			return lsc_cli_usage("--mode %s: at most %d modes", s, MAX_MODES);
		o->modes[o->n_modes++] = (enum mode)m;
	}
	return o->n_modes ? 0 : lsc_cli_usage("--mode '%s': no mode given", s);
}

/* The allocation's geometry: the total and the piece, page-rounded, and
 * how many pieces. Counted wide: a tiny chunk must not wrap. */
static uint64_t geometry(const struct opts *o, size_t *total, size_t *chunk)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	*total = (size_t)ceil(o->gib * GIB);
	*total = (*total + page - 1) / page * page;
	*chunk = o->chunk_gib > 0 ? (size_t)ceil(o->chunk_gib * GIB) : *total;
	*chunk = (*chunk + page - 1) / page * page;
	if (*chunk > *total)
		*chunk = *total;
	return (*total + *chunk - 1) / *chunk;
}

/* The first page-locking backend in the registry's fallback order (GPU
 * runtimes, then mlock) that can run here, other than @except: its probe
 * passes, or it has none. NULL when none can. The default is this, so that
 * `pintest SIZE` works on the machine it runs on; @passed gets the probe
 * lines of those passed over, "; " between them (why the default is not
 * the first backend of the build). */
static const struct lsc__pin_ops *runnable_backend(const struct lsc__pin_ops *except,
						   char *passed, size_t len)
{
	char why[512];
	size_t used = 0;

	if (passed && len)
		passed[0] = '\0';
	for (const struct lsc__pin_ops *const *b = lsc__pin_backends; *b; b++) {
		if (!((*b)->caps & LSC__PIN_CAP_LOCKS) || *b == except)
			continue;
		why[0] = '\0';
		if (!(*b)->probe || (*b)->probe(why, sizeof(why)) == 0)
			return *b;
		if (passed && used < len) {
			int w = snprintf(passed + used, len - used, "%s%s", used ? "; " : "",
					 why[0] ? why : (*b)->name);
			used += w > 0 ? (size_t)w : 0;
		}
	}
	return NULL;
}

/* The registry decides the names; "none" locks nothing, so times nothing. */
static int check_backend(const char *name)
{
	const struct lsc__pin_ops *ops = lsc__pin_find(name);
	char have[128] = "";
	size_t used = 0;

	if (ops && (ops->caps & LSC__PIN_CAP_LOCKS))
		return 0;
	for (const struct lsc__pin_ops *const *b = lsc__pin_backends; *b; b++) {
		if (!((*b)->caps & LSC__PIN_CAP_LOCKS))
			continue;
		int w = snprintf(have + used, sizeof(have) - used, "%s%s", used ? ", " : "", (*b)->name);
		if (w < 0 || (size_t)w >= sizeof(have) - used)
			break;
		used += (size_t)w;
	}
	return lsc_cli_usage("--backend %s: %s (this build has %s)", name,
			     ops ? "locks no memory" : "not a pin backend of this build", have);
}

enum { OPT_MODE = 256, OPT_CHUNK, OPT_REPEATS, OPT_BACKEND, OPT_THP, OPT_H2D };

static const struct option longopts[] = {
	{"mode", required_argument, NULL, OPT_MODE},
	{"chunk-gib", required_argument, NULL, OPT_CHUNK},
	{"repeats", required_argument, NULL, OPT_REPEATS},
	{"backend", required_argument, NULL, OPT_BACKEND},
	{"thp", required_argument, NULL, OPT_THP},
	{"h2d", no_argument, NULL, OPT_H2D},
	LSC_CLI_COMMON_OPTS,
};

/* 0 parsed, 1 --help or --version done, LSC_EXIT_USAGE (line printed). */
static int parse(int argc, char **argv, struct opts *o)
{
	struct lsc_cli cli = {argc, argv, "hV", longopts, 0, 0};
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	o->repeats = 1;
	o->backend = NULL; /* lsc_cmd_pintest: the first one that runs here */
	o->modes[0] = M_ALLOC_MP;
	o->n_modes = 1;
	while ((c = lsc_cli_next(&cli)) != -1) {
		switch (c) {
		case OPT_H2D:
			o->h2d = 1;
			break;
		case OPT_MODE:
			if (parse_modes(optarg, o))
				return LSC_EXIT_USAGE;
			break;
		case OPT_CHUNK:
			if (lsc_cli_real("--chunk-gib", optarg, 0, 1 << 20, 0, &o->chunk_gib) < 0)
				return LSC_EXIT_USAGE;
			break;
		case OPT_REPEATS:
			if (lsc_cli_uint("--repeats", optarg, 1, 1000, &v) < 0)
				return LSC_EXIT_USAGE;
			o->repeats = (unsigned)v;
			break;
		case OPT_BACKEND:
			if (check_backend(optarg))
				return LSC_EXIT_USAGE;
			o->backend = optarg;
			break;
		case OPT_THP: {
			unsigned t = 0;
			while (t < 4 && strcmp(optarg, thp_names[t]))
				t++;
			if (t == 4)
				return lsc_cli_usage("--thp %s: default, 4k, thp or process-off", optarg);
			o->thp = (enum thp)t;
			break;
		}
		default:
			return lsc_cli_common(c, usage) == LSC_EXIT_OK ? 1 : LSC_EXIT_USAGE;
		}
	}
	if (cli.nops != 1)
		return lsc_cli_usage(cli.nops ? "%s: one SIZE_GIB only" : "no SIZE_GIB given",
				     cli.nops ? argv[2] : "");
	if (lsc_cli_real("SIZE_GIB", argv[1], 0, 1 << 20, 1, &o->gib) < 0)
		return LSC_EXIT_USAGE;
	size_t total, chunk;
	uint64_t pieces = geometry(o, &total, &chunk);
	if (pieces > MAX_PIECES)
		return lsc_cli_usage("--chunk-gib %g: %llu pieces of SIZE_GIB %g, at most %d",
				     o->chunk_gib, (unsigned long long)pieces, o->gib, MAX_PIECES);
	return 0;
}

static unsigned pin_flags(enum mode m)
{
	switch (m) {
	case M_ALLOC_M:
		return LSC__PIN_MAPPED;
	case M_ALLOC_D:
		return 0;
	default:
		return LSC__PIN_MAPPED | LSC__PIN_PORTABLE;
	}
}

/* Allocate one piece the way @m asks. Returns 0 or a negative error, with
 * @why filled. Adds the touch and pin time of register mode to *touch_s. */
static int piece_alloc(const struct lsc__pin_ops *ops, int is_mlock, enum mode m, enum thp thp,
		       struct piece *pc, unsigned *retries, double *touch_s, char *why,
		       size_t why_len)
{
	long page = sysconf(_SC_PAGESIZE);
	*retries = 0;
	if (m != M_REGISTER && !is_mlock) {
		int r = ops->alloc(pc->len, pin_flags(m), &pc->p, why, why_len);
		if (r < 0)
			pc->p = NULL;
		return r;
	}
	pc->p = mmap(NULL, pc->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pc->p == MAP_FAILED) {
		int err = errno;
		pc->p = NULL;
		snprintf(why, why_len, "mmap(%zu bytes): %s", pc->len, strerror(err));
		return -err;
	}
	pc->mapped = 1;
	if (m != M_REGISTER) /* mlock "alloc": mlock faults and locks in one call */
		return ops->pin(pc->p, pc->len, pin_flags(m), retries, why, why_len);
	if (thp == T_4K || thp == T_THP)
		(void)madvise(pc->p, pc->len, thp == T_THP ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	double t0 = now_s();
	/* A non-zero byte per page: a zero write could be optimised into a
	 * calloc-like no-op (it was, in the seed's pintest.cpp). */
	for (size_t off = 0; off < pc->len; off += (size_t)page)
		((volatile char *)pc->p)[off] = 1;
	*touch_s += now_s() - t0;
	int r = ops->pin(pc->p, pc->len, pin_flags(m), retries, why, why_len);
	if (r == 0)
		pc->pinned = 1;
	return r;
}

static void piece_free(const struct lsc__pin_ops *ops, enum mode m, struct piece *pc)
{
	if (!pc->p)
		return;
	if (pc->mapped) {
		if (pc->pinned)
			(void)ops->unpin(pc->p, pc->len);
		munmap(pc->p, pc->len); /* also drops an mlock */
	} else {
		ops->free(pc->p, pc->len);
	}
	(void)m;
	memset(pc, 0, sizeof(*pc));
}

/* Copy every piece to one device buffer, 64 MiB at a time on two slots. */
static int h2d(const struct lsc__pin_ops *ops, struct piece *pcs, unsigned n, size_t total,
	       double *secs, char *why, size_t why_len)
{
	const size_t step = 64u << 20;
	struct lsc__dev *d = NULL;
	int r = ops->dev_open(0, total, 2, &d, why, why_len);
	if (r < 0)
		return r;
	unsigned slot = 0, issued = 0;
	size_t dev_off = 0;
	double t0 = now_s();
	for (unsigned i = 0; i < n && r == 0; i++)
		for (size_t off = 0; off < pcs[i].len && r == 0; off += step) {
			size_t len = pcs[i].len - off < step ? pcs[i].len - off : step;
			if (issued >= 2)
				r = ops->dev_wait(d, slot);
			if (r == 0)
				r = ops->dev_copy(d, dev_off, (char *)pcs[i].p + off, len, slot);
			dev_off += len;
			issued++;
			slot ^= 1;
		}
	for (unsigned s = 0; s < 2 && s < issued; s++)
		if (ops->dev_wait(d, s) < 0 && r == 0)
			r = LSC_E_GPU;
	*secs = now_s() - t0;
	if (r < 0)
		snprintf(why, why_len, "%s", ops->dev_why ? ops->dev_why(d) : "device copy failed");
	ops->dev_close(d);
	return r;
}

static void vm_notes(const struct lsc_vmstat *a, const struct lsc_vmstat *b, char *out,
		     size_t len)
{
	size_t used = strlen(out);
	for (int c = 0; c < LSC_VM_COUNT; c++) {
		if (!(a->valid & b->valid & (1u << c)))
			continue;
		long long d = (long long)(b->v[c] - a->v[c]);
		if (d == 0)
			continue;
		int w = snprintf(out + used, len - used, "%s%s%s%lld", used ? " " : "",
				 lsc_vm_name((enum lsc_vm_counter)c), d > 0 ? "+" : "", d);
		if (w < 0 || (size_t)w >= len - used)
			return;
		used += (size_t)w;
	}
}

__attribute__((format(printf, 3, 4))) static void note(char *out, size_t len, const char *fmt,
							     ...)
{
	size_t used = strlen(out);
	char tmp[640];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	snprintf(out + used, len - used, "%s%s", used ? "; " : "", tmp);
}

static int run_case(const struct opts *o, const struct lsc__pin_ops *ops, int is_mlock,
		    enum mode m, unsigned rep)
{
	size_t total, chunk;
	unsigned n = (unsigned)geometry(o, &total, &chunk); /* at most MAX_PIECES: parse() */
	struct piece *pcs = calloc(n, sizeof(*pcs));
	if (!pcs) {
		fprintf(stderr, "loadscope pintest: out of memory\n");
		return LSC_EXIT_IO;
	}
	struct lsc__pin_cost cost;
	struct lsc_vmstat v0, v1;
	char why[512] = "", notes[1024] = "";
	double touch_s = 0;
	unsigned retries_total = 0;
	int r = 0, thp_off = 0;
	uint64_t kfd0[LSC__KFD_STAT_COUNT], kfd1[LSC__KFD_STAT_COUNT];
	int kfd = lsc__kfd_counter_read_all(kfd0, LSC__KFD_STAT_COUNT) > 0;

	lsc__pin_cost_init(&cost);
	(void)lsc_vmstat_read(NULL, &v0);
	if (o->thp == T_PROCESS_OFF && prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 0)
		thp_off = prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0;
	double t0 = now_s();
	for (unsigned i = 0; i < n && r == 0; i++) {
		unsigned retries = 0;
		pcs[i].len = i + 1 < n ? chunk : total - chunk * (n - 1);
		double p0 = now_s();
		r = piece_alloc(ops, is_mlock, m, o->thp, &pcs[i], &retries, &touch_s, why,
				sizeof(why));
		double p1 = now_s();
		retries_total += retries;
		if (r == 0)
			lsc__pin_cost_add(&cost, pcs[i].len, (uint64_t)((p1 - p0) * 1e9), retries, NULL);
	}
	double alloc_s = now_s() - t0;
	if (thp_off)
		(void)prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0);
	(void)lsc_vmstat_read(NULL, &v1);
	if (kfd && lsc__kfd_counter_read_all(kfd1, LSC__KFD_STAT_COUNT) <= 0)
		kfd = 0;

	char label[160];
	char size[48];
	if (n > 1)
		snprintf(size, sizeof(size), "%ux%.3g GiB", n, (double)chunk / GIB);
	else
		snprintf(size, sizeof(size), "%.3g GiB", (double)total / GIB);
	snprintf(label, sizeof(label), "%s %s %s%s%s #%u", ops->name, mode_names[m], size,
		 o->thp != T_DEFAULT ? " thp=" : "", o->thp != T_DEFAULT ? thp_names[o->thp] : "",
		 rep + 1);
	if (r < 0) {
		printf("| %s | failed | | | %s |\n", label, why);
		fflush(stdout);
		for (unsigned i = 0; i < n; i++)
			piece_free(ops, m, &pcs[i]);
		free(pcs);
		return 1;
	}

	t0 = now_s();
	for (unsigned i = 0; i < n; i++)
		memset(pcs[i].p, 0x5a, pcs[i].len);
	double memset_s = now_s() - t0;

	double h2d_s = 0;
	int h2d_r = 1;
	char h2d_why[512] = "";
	if (o->h2d && (ops->caps & LSC__PIN_CAP_DEVICE))
		h2d_r = h2d(ops, pcs, n, total, &h2d_s, h2d_why, sizeof(h2d_why));

	for (unsigned i = 0; i < n; i++)
		piece_free(ops, m, &pcs[i]);
	free(pcs);

	if (m == M_REGISTER)
		note(notes, sizeof(notes), "touch %.3f s, pin %.3f s", touch_s, alloc_s - touch_s);
	if (retries_total)
		note(notes, sizeof(notes), "retries %u", retries_total);
	if (cost.slow)
		note(notes, sizeof(notes), "%u slow piece(s), worst %.1fx the median", cost.slow,
		     cost.worst_ratio);
	if (kfd)
		note(notes, sizeof(notes), "kfd_calls+%llu kfd_eagain+%llu kfd_s=%.3f",
		     (unsigned long long)(kfd1[LSC__KFD_CALLS] - kfd0[LSC__KFD_CALLS]),
		     (unsigned long long)(kfd1[LSC__KFD_EAGAIN] - kfd0[LSC__KFD_EAGAIN]),
		     (double)(kfd1[LSC__KFD_NS] - kfd0[LSC__KFD_NS]) / 1e9);
	if (h2d_r == 0)
		note(notes, sizeof(notes), "h2d %.2f GiB/s (%.3f s)", (double)total / GIB / h2d_s,
		     h2d_s);
	else if (h2d_r < 0)
		note(notes, sizeof(notes), "h2d failed: %s", h2d_why);
	if (m != M_REGISTER && !is_mlock && o->thp != T_DEFAULT && o->thp != T_PROCESS_OFF)
		note(notes, sizeof(notes), "thp=%s ignored: the runtime maps this memory itself",
		     thp_names[o->thp]);
	char vm[512] = "";
	vm_notes(&v0, &v1, vm, sizeof(vm));
	if (vm[0])
		note(notes, sizeof(notes), "%s", vm);
	printf("| %s | %.3f | %.2f | %.3f | %s |\n", label, alloc_s,
	       alloc_s > 0 ? (double)total / GIB / alloc_s : 0.0, memset_s, notes);
	fflush(stdout);
	return 0;
}

int lsc_cmd_pintest(int argc, char **argv)
{
	struct opts o;
	int pr = parse(argc, argv, &o);
	if (pr)
		return pr > 1 ? pr : LSC_EXIT_OK;
	char why[512] = "", passed[1024] = "";
	const struct lsc__pin_ops *ops;
	if (!o.backend) {
		ops = runnable_backend(NULL, passed, sizeof(passed));
		if (!ops) {
			printf("pintest: no page-locking backend of this build runs here (%s)\n",
			       passed[0] ? passed : "none compiled in");
			return LSC_EXIT_PROBLEM;
		}
	} else {
		/* In the registry with CAP_LOCKS: parse() checked. */
		ops = lsc__pin_find(o.backend);
		if (ops->probe && ops->probe(why, sizeof(why)) < 0) {
			const struct lsc__pin_ops *alt = runnable_backend(ops, NULL, 0);
			printf("pintest: %s%s%s%s\n", why[0] ? why : "backend unusable here",
			       alt ? "; --backend " : "", alt ? alt->name : "", alt ? " runs here" : "");
			return LSC_EXIT_PROBLEM;
		}
	}
	int is_mlock = !strcmp(ops->name, "mlock");
	for (unsigned k = 0; k < o.n_modes; k++)
		if (o.modes[k] != M_REGISTER && !is_mlock && !ops->alloc) {
			printf("pintest: %s has no pinned allocation (mode %s)\n", ops->name,
			       mode_names[o.modes[k]]);
			return 1;
		}
	if (lsc_cli_mem_guard(stdout, "pintest", "allocation", (uint64_t)ceil(o.gib * GIB), -1))
		return LSC_EXIT_PROBLEM;
	if (o.h2d && !(ops->caps & LSC__PIN_CAP_DEVICE))
		printf("pintest: --h2d ignored: %s has no device\n", ops->name);

	struct lsc_system sys;
	lsc_system_read(NULL, NULL, &sys);
	const char *en = sys.thp_enabled[0] ? sys.thp_enabled : "n/a";
	const char *df = sys.thp_defrag[0] ? sys.thp_defrag : "n/a";
	printf("pintest: backend=%s size=%.4g GiB chunk=%.4g GiB repeats=%u thp_enabled=%s "
	       "thp_defrag=%s thp=%s kfd_counter=%s\n",
	       ops->name, o.gib, o.chunk_gib, o.repeats, en, df, thp_names[o.thp],
	       lsc__kfd_counter_read(NULL, NULL, NULL) == 0 ? "on" : "off");
	if (passed[0]) /* the default passed over the build's first backend */
		printf("pintest: default backend %s, the first that runs here (%s)\n", ops->name,
		       passed);
	printf("\n");
	printf("| case | alloc s | GiB/s | memset s | notes |\n|---|---:|---:|---:|---|\n");
	fflush(stdout);
	int rc = 0;
	for (unsigned rep = 0; rep < o.repeats; rep++)
		for (unsigned k = 0; k < o.n_modes; k++) {
			int r = run_case(&o, ops, is_mlock, o.modes[k], rep);
			if (r == LSC_EXIT_IO)
				return r;
			if (r)
				rc = LSC_EXIT_PROBLEM;
		}
	return rc;
}
