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
 * The mlock backend needs no GPU, so the command and its table are tested
 * on the build machines. Exit: 0, 1 when the backend cannot run here (one
 * line says why) or a case failed, 2 usage.
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

#include "loader/kfd_counter.h"
#include "loader/pin.h"
#include "pin_cost.h"
#include "tool.h"

const char lsc_cmd_pintest_help[] =
	"time page-locked allocations per pin backend, as seed 000's pintest (vmstat deltas)";

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
		"                         [--chunk-gib N] [--repeats R] [--backend cuda|hip|mlock]\n"
		"                         [--thp default|4k|thp|process-off] [--h2d]\n"
		"  SIZE_GIB     total size, may be fractional (0.0625 = 64 MiB)\n"
		"  --mode       default alloc-mp; a comma list runs the modes interleaved\n"
		"  --chunk-gib  0 = one allocation (default); N = ceil(SIZE/N) pieces of N GiB\n"
		"  --repeats    default 1\n"
		"  --backend    default cuda\n"
		"  --thp        register: madvise before the touch (4k, thp) or PR_SET_THP_DISABLE\n"
		"               around the allocation (process-off, also for alloc modes)\n"
		"  --h2d        after each allocation, copy it all to the device (GPU backends)\n"
		"Prints a Markdown table: case, alloc s, GiB/s, memset s, notes (vmstat deltas\n"
		"that moved over the allocation, retries, slow pieces, KFD counts when\n"
		"libloadscope_kfdcount.so is preloaded).\n");
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
		if (m == 4 || o->n_modes == MAX_MODES)
			return -1;
		o->modes[o->n_modes++] = (enum mode)m;
	}
	return o->n_modes ? 0 : -1;
}

static int parse(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->repeats = 1;
	o->backend = "cuda";
	o->modes[0] = M_ALLOC_MP;
	o->n_modes = 1;
	int have_size = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 1;
		} else if (!strcmp(a, "--h2d")) {
			o->h2d = 1;
		} else if (!strcmp(a, "--mode") && v) {
			if (parse_modes(v, o))
				return -1;
			i++;
		} else if (!strcmp(a, "--chunk-gib") && v) {
			o->chunk_gib = strtod(v, &end);
			if (*end || o->chunk_gib < 0)
				return -1;
			i++;
		} else if (!strcmp(a, "--repeats") && v) {
			long r = strtol(v, &end, 10);
			if (*end || r < 1 || r > 1000)
				return -1;
			o->repeats = (unsigned)r;
			i++;
		} else if (!strcmp(a, "--backend") && v) {
			o->backend = v;
			i++;
		} else if (!strcmp(a, "--thp") && v) {
			unsigned t = 0;
			while (t < 4 && strcmp(v, thp_names[t]))
				t++;
			if (t == 4)
				return -1;
			o->thp = (enum thp)t;
			i++;
		} else if (a[0] != '-' && !have_size) {
			o->gib = strtod(a, &end);
			if (*end || !(o->gib > 0) || o->gib > 1 << 20)
				return -1;
			have_size = 1;
		} else {
			return -1;
		}
	}
	return have_size ? 0 : -1;
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
	size_t total = (size_t)ceil(o->gib * GIB);
	long page = sysconf(_SC_PAGESIZE);
	total = (total + (size_t)page - 1) / (size_t)page * (size_t)page;
	size_t chunk = o->chunk_gib > 0 ? (size_t)ceil(o->chunk_gib * GIB) : total;
	chunk = (chunk + (size_t)page - 1) / (size_t)page * (size_t)page;
	if (chunk > total)
		chunk = total;
	uint64_t pieces = (total + chunk - 1) / chunk; /* counted wide: a tiny chunk must not wrap */
	if (pieces > MAX_PIECES) {
		fprintf(stderr, "pintest: %llu pieces is too many (at most %d)\n",
			(unsigned long long)pieces, MAX_PIECES);
		return 2;
	}
	unsigned n = (unsigned)pieces;
	struct piece *pcs = calloc(n, sizeof(*pcs));
	if (!pcs) {
		fprintf(stderr, "pintest: out of memory\n");
		return 1;
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
	size_t used = strlen(notes);
	char vm[512] = "";
	vm_notes(&v0, &v1, vm, sizeof(vm));
	if (vm[0])
		snprintf(notes + used, sizeof(notes) - used, "%s%s", used ? "; " : "", vm);
	printf("| %s | %.3f | %.2f | %.3f | %s |\n", label, alloc_s,
	       alloc_s > 0 ? (double)total / GIB / alloc_s : 0.0, memset_s, notes);
	fflush(stdout);
	return 0;
}

int lsc_cmd_pintest(int argc, char **argv)
{
	struct opts o;
	int pr = parse(argc, argv, &o);
	if (pr > 0)
		return 0;
	if (pr < 0) {
		usage(stderr);
		return 2;
	}
	int is_mlock = !strcmp(o.backend, "mlock");
	if (strcmp(o.backend, "cuda") && strcmp(o.backend, "hip") && !is_mlock) {
		fprintf(stderr, "pintest: unknown backend '%s' (cuda, hip, mlock)\n", o.backend);
		return 2;
	}
	const struct lsc__pin_ops *ops = lsc__pin_find(o.backend);
	if (!ops) {
		printf("pintest: %s: backend not compiled into this build (toolkit not found at build time)\n",
		       o.backend);
		return 1;
	}
	char why[512] = "";
	if (ops->probe && ops->probe(why, sizeof(why)) < 0) {
		printf("pintest: %s\n", why[0] ? why : "backend unusable here");
		return 1;
	}
	for (unsigned k = 0; k < o.n_modes; k++)
		if (o.modes[k] != M_REGISTER && !is_mlock && !ops->alloc) {
			printf("pintest: %s has no pinned allocation (mode %s)\n", ops->name,
			       mode_names[o.modes[k]]);
			return 1;
		}
	if (o.h2d && !(ops->caps & LSC__PIN_CAP_DEVICE))
		printf("pintest: --h2d ignored: %s has no device\n", ops->name);

	struct lsc_system sys;
	lsc_system_read(NULL, NULL, &sys);
	const char *en = sys.thp_enabled[0] ? sys.thp_enabled : "n/a";
	const char *df = sys.thp_defrag[0] ? sys.thp_defrag : "n/a";
	printf("pintest: backend=%s size=%.4g GiB chunk=%.4g GiB repeats=%u thp_enabled=%s "
	       "thp_defrag=%s thp=%s kfd_counter=%s\n\n",
	       ops->name, o.gib, o.chunk_gib, o.repeats, en, df, thp_names[o.thp],
	       lsc__kfd_counter_read(NULL, NULL, NULL) == 0 ? "on" : "off");
	printf("| case | alloc s | GiB/s | memset s | notes |\n|---|---:|---:|---:|---|\n");
	fflush(stdout);
	int rc = 0;
	for (unsigned rep = 0; rep < o.repeats; rep++)
		for (unsigned k = 0; k < o.n_modes; k++) {
			int r = run_case(&o, ops, is_mlock, o.modes[k], rep);
			if (r == 2)
				return 2;
			if (r)
				rc = 1;
		}
	return rc;
}
