/*
 * `loadscope load`: the project's main job. Loads files back to back into
 * one pinned arena with the profiler on, so that a user sees, on a fresh
 * machine, the lines an engine embedding the library would print: start,
 * system, the allocate/pin/read phases, `complement ready`, `loaded`,
 * `ready`. `--make-test-file` writes a file of pseudo-random bytes to load
 * (and prints its XXH3-64 for `--expect`).
 *
 * Lines go to stdout so that they can be piped (into `loadscope triage`,
 * grep, a file); usage errors go to stderr, one line each (tools/cli.c).
 * `--html OUT.html` also feeds the run's own lines to the triage library as
 * they are printed and writes the triage's page of this start
 * (tools/triage/render_html.c) at the end, with one line on stderr that
 * says where; `--html -` is stdout, as for `loadscope triage --html -`, and
 * the lines then go to stderr so that the page stands alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include <loadscope/loadscope.h>

#include "pin/pin.h"
#include "loader/read/reader.h"
#include "profiler/internal.h"
#include "load_device.h"
#include "tool.h"
#include "triage/render.h"
#include "triage/triage.h"

const char lsc_cmd_load_help[] = "load files into a pinned arena and print the startup lines";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: loadscope load FILE... [options]\n"
		"       loadscope load --make-test-file PATH [--gib N]\n"
		"\n"
		"Loads the files back to back into one arena, each at a 4 KiB-aligned offset,\n"
		"and prints the profiler's lines on stdout, so they can be piped: start,\n"
		"system, allocate/pin/read phases, complement ready, loaded, ready. A model\n"
		"(FILE.safetensors, shards, a directory with model.safetensors.index.json,\n"
		"a GGUF file) loads one extent per tensor at the file's alignment; any other\n"
		"file is one extent. Exit 0 loaded; 1 the load failed (the error line says\n"
		"why); 4 the test file or stdout could not be written; 64 usage (docs/cli.md).\n"
		"\n"
		"  --thp auto|thp|4k|hugetlb|process-off   page-size policy (default auto)\n"
		"  --pin BACKEND                pin backend, with its fallback chain (default none);\n"
		"                               this build's: ");
	for (const struct lsc__pin_ops *const *b = lsc__pin_backends; *b; b++)
		fprintf(f, "%s%s", b == lsc__pin_backends ? "" : ", ", (*b)->name);
	fprintf(f, "\n"
		"  --pin-readonly               register the arena read-only for the device (cuda;\n"
		"                               hip with ROCm 6 headers); elsewhere ignored, with a note\n"
		"  --chunk-gib N                allocate the arena in pieces of N GiB (above 0, at most\n"
		"                               1024, fractional; rounded up to the arena's page)\n"
		"  --staging KxC                read through K staging buffers (1 to 4096) of C MiB\n"
		"                               (1 to 1024)\n"
		"  --qd Q                       reads in flight (io_uring queue depth, 1 to 4096)\n"
		"  --direct                     O_DIRECT (falls back to buffered on EINVAL)\n"
		"  --threads T                  prefault threads (1 to 1024; default: one per CPU,\n"
		"                               at most 8)\n"
		"  --reader auto|io_uring|pread the reader (auto: io_uring, else pread)\n"
		"  --device N                   copy to GPU N (0 to 1023) as the arena fills (a pin\n"
		"                               backend with device memory: --pin, else the build's\n"
		"                               first); fails with the backend's line where there is\n"
		"                               no such device\n"
		"  --expect HEX                 XXH3-64 of the (single) file, 16 hex digits\n"
		"  --no-verify                  do not hash\n"
		"  --format human|json          line format (default human; LOADSCOPE=json too)\n"
		"  --html OUT.html              also write the triage's page of this start\n"
		"                               (timeline, counters, findings; no script);\n"
		"                               - is stdout, and the lines then go to stderr\n"
		"  --make-test-file PATH        write pseudo-random bytes to PATH, print XXH3-64\n"
		"  --gib N                      size of the test file in GiB (above 0, at most 1024;\n"
		"                               default 1)\n"
		"  -h, --help                   this text\n"
		"  -V, --version                version and backends\n");
}

/* xorshift64*: fast enough that the disk or page cache is the limit. */
static uint64_t xs_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static int make_test_file(const char *path, double gib, FILE *out)
{
	uint64_t total = (uint64_t)(gib * 1024.0 * 1024.0 * 1024.0);
	const size_t bufsz = 16u << 20;
	uint64_t *buf = malloc(bufsz);
	XXH3_state_t *st = XXH3_createState();
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (!buf || !st || fd < 0) {
		fprintf(stderr, "loadscope load: --make-test-file %s: %s\n", path,
			fd < 0 ? strerror(errno) : "out of memory");
		free(buf);
		XXH3_freeState(st);
		if (fd >= 0)
			close(fd);
		return LSC_EXIT_IO;
	}
	XXH3_64bits_reset(st);
	uint64_t seed = 0x9E3779B97F4A7C15ull ^ total, done = 0;
	uint64_t t0 = lsc__now_ns();
	while (done < total) {
		size_t n = total - done < bufsz ? (size_t)(total - done) : bufsz;
		for (size_t i = 0; i < (n + 7) / 8; i++)
			buf[i] = xs_next(&seed);
		XXH3_64bits_update(st, buf, n);
		for (size_t w = 0; w < n;) {
			ssize_t r = write(fd, (char *)buf + w, n - w);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				fprintf(stderr, "loadscope load: writing %s at offset %" PRIu64 ": %s\n",
					path, done + w, r < 0 ? strerror(errno) : "short write");
				close(fd);
				free(buf);
				XXH3_freeState(st);
				return LSC_EXIT_IO;
			}
			w += (size_t)r;
		}
		done += n;
	}
	int cerr = close(fd) ? errno : 0;
	uint64_t h = XXH3_64bits_digest(st);
	free(buf);
	XXH3_freeState(st);
	if (cerr) {
		fprintf(stderr, "loadscope load: closing %s: %s\n", path, strerror(cerr));
		return LSC_EXIT_IO;
	}
	fprintf(out, "made %s: %" PRIu64 " bytes (%.2f GiB) in %.3f s, xxh3=%016" PRIx64 "\n", path, total,
		total / (1024.0 * 1024 * 1024), (lsc__now_ns() - t0) / 1e9, h);
	fflush(out);
	return 0;
}

enum {
	OPT_THP = 256, OPT_PIN, OPT_CHUNK, OPT_STAGING, OPT_QD, OPT_DIRECT, OPT_THREADS,
	OPT_READER, OPT_EXPECT, OPT_FORMAT, OPT_MAKE, OPT_GIB, OPT_NOVERIFY, OPT_PIN_READONLY,
	OPT_DEVICE,
	OPT_HTML,
};

static const struct option longopts[] = {
	{"thp", required_argument, NULL, OPT_THP},
	{"pin", required_argument, NULL, OPT_PIN},
	{"pin-readonly", no_argument, NULL, OPT_PIN_READONLY},
	{"chunk-gib", required_argument, NULL, OPT_CHUNK},
	{"staging", required_argument, NULL, OPT_STAGING},
	{"qd", required_argument, NULL, OPT_QD},
	{"direct", no_argument, NULL, OPT_DIRECT},
	{"threads", required_argument, NULL, OPT_THREADS},
	{"reader", required_argument, NULL, OPT_READER},
	{"expect", required_argument, NULL, OPT_EXPECT},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"make-test-file", required_argument, NULL, OPT_MAKE},
	{"gib", required_argument, NULL, OPT_GIB},
	{"no-verify", no_argument, NULL, OPT_NOVERIFY},
	{"device", required_argument, NULL, OPT_DEVICE},
	{"html", required_argument, NULL, OPT_HTML},
	LSC_CLI_COMMON_OPTS,
};

/* --html: each line goes where the lines go, as without it, and to the
 * triage. */
struct tee {
	FILE *out;
	struct lsc_triage *t;
};

static void tee_line(void *user, const char *line, size_t len)
{
	struct tee *tee = user;
	fwrite(line, 1, len, tee->out);
	fflush(tee->out);
	lsc_triage_feed(tee->t, line, len);
}

/* The triage's page of the run to @path ("-": stdout, as triage --html);
 * 0, or -1 with the line that says why. A file written is one line on
 * stderr, so that a run whose stdout is the lines says where the page went. */
static int write_html(struct lsc_triage *t, const char *path)
{
	int to_stdout = !strcmp(path, "-");
	FILE *f = to_stdout ? stdout : fopen(path, "w");
	int r = f ? tr_render_html(t, f) : -1;
	long size = f && !to_stdout ? ftell(f) : -1;
	if (f && ferror(f))
		r = -1;
	if (f && !to_stdout && fclose(f))
		r = -1;
	if (r < 0)
		fprintf(stderr, "loadscope load: --html %s: %s\n", path, f ? "write failed" : strerror(errno));
	else if (!to_stdout)
		fprintf(stderr, "loadscope load: --html: wrote %s (%ld bytes)\n", path, size);
	return r;
}

static int bad(const char *opt, const char *val, const char *want)
{
	return lsc_cli_usage("%s %s: %s", opt, val, want);
}

/* The pin registry decides which names exist: a backend added to the
 * build needs no edit here. */
static int bad_pin(const char *val)
{
	char have[128] = "";
	size_t used = 0;

	for (const struct lsc__pin_ops *const *b = lsc__pin_backends; *b; b++) {
		int w = snprintf(have + used, sizeof(have) - used, "%s%s", used ? ", " : "", (*b)->name);
		if (w < 0 || (size_t)w >= sizeof(have) - used)
			break;
		used += (size_t)w;
	}
	return lsc_cli_usage("--pin %s: not a pin backend of this build (it has %s)", val, have);
}

/* The reader names are the readers' own (auto: io_uring, else pread). */
static int reader_known(const char *name)
{
	return !strcmp(name, "auto") || !strcmp(name, lsc__reader_uring.name) ||
	       !strcmp(name, lsc__reader_pread.name);
}

/* What the command line asked for. */
struct load_args {
	struct lsc_load_options o;
	enum lsc_format fmt;
	const char *make, *html;
	double gib;
	uint64_t expect;
	int has_expect, device;
	int n_files;                  /* at argv[1..n_files] */
	const char *const *files;
	FILE *lines;                  /* stdout; stderr when the page goes there */
	struct tee tee;
};

/* --staging KxC. Digits only on both sides: %u would take "-1" as 4294967295. */
static int parse_staging(const char *arg, struct lsc_load_options *o)
{
	size_t kl = strspn(arg, "0123456789");
	size_t cl = arg[kl] == 'x' ? strspn(arg + kl + 1, "0123456789") : 0;
	unsigned long k = kl && kl < 6 ? strtoul(arg, NULL, 10) : 0;
	unsigned long cm = cl && cl < 6 ? strtoul(arg + kl + 1, NULL, 10) : 0;
	if (arg[kl + 1 + cl] || arg[kl] != 'x' || !k || k > 4096 || !cm || cm > 1024)
		return bad("--staging", arg, "KxC: K buffers (1-4096) of C MiB (1-1024)");
	o->staging_count = k;
	o->staging_bytes = (uint64_t)cm << 20;
	return 0;
}

/* --expect: strtoull would take a sign, "0x" or spaces: only 16 hex digits. */
static int parse_expect(const char *arg, uint64_t *out)
{
	char *end;
	if (strlen(arg) != 16 || strspn(arg, "0123456789abcdefABCDEF") != 16)
		return bad("--expect", arg, "16 hex digits (XXH3-64)");
	errno = 0;
	*out = strtoull(arg, &end, 16);
	if (errno || *end)
		return bad("--expect", arg, "16 hex digits (XXH3-64)");
	return 0;
}

/* One option into @A: 0, or the exit status (a usage line printed; or 0
 * after --help and --version, with *done set). */
static int parse_opt(int c, struct load_args *A, int *done)
{
	uint64_t v;

	switch (c) {
	case OPT_THP:
		if (lsc_thp_policy_parse(optarg, &A->o.thp) < 0)
			return bad("--thp", optarg, "auto, thp, 4k, hugetlb or process-off");
		return 0;
	case OPT_PIN:
		if (!lsc__pin_find(optarg))
			return bad_pin(optarg);
		A->o.pin = optarg;
		return 0;
	case OPT_PIN_READONLY:
		A->o.flags |= LSC_LOAD_PIN_READONLY;
		return 0;
	case OPT_CHUNK: {
		/* fractional, as pintest's: the arena rounds it up to its page */
		double gib;
		if (lsc_cli_real("--chunk-gib", optarg, 0, 1024, 1, &gib) < 0)
			return LSC_EXIT_USAGE;
		A->o.chunk_bytes = (uint64_t)ceil(gib * 1073741824.0);
		return 0;
	}
	case OPT_STAGING:
		return parse_staging(optarg, &A->o);
	case OPT_QD:
		if (lsc_cli_uint("--qd", optarg, 1, 4096, &v) < 0)
			return LSC_EXIT_USAGE;
		A->o.queue_depth = (unsigned)v;
		return 0;
	case OPT_DIRECT:
		A->o.flags |= LSC_LOAD_DIRECT;
		return 0;
	case OPT_THREADS:
		if (lsc_cli_uint("--threads", optarg, 1, 1024, &v) < 0)
			return LSC_EXIT_USAGE;
		A->o.prefault_threads = (unsigned)v;
		return 0;
	case OPT_READER:
		if (!reader_known(optarg))
			return bad("--reader", optarg, "auto, io_uring or pread");
		A->o.reader = optarg;
		return 0;
	case OPT_EXPECT:
		A->has_expect = 1;
		return parse_expect(optarg, &A->expect);
	case OPT_FORMAT:
		if (!strcmp(optarg, "human"))
			A->fmt = LSC_FORMAT_HUMAN;
		else if (!strcmp(optarg, "json"))
			A->fmt = LSC_FORMAT_JSON;
		else
			return bad("--format", optarg, "human or json");
		return 0;
	case OPT_MAKE:
		A->make = optarg;
		return 0;
	case OPT_GIB: /* above 0: an empty test file loads nothing */
		return lsc_cli_real("--gib", optarg, 0, 1024, 1, &A->gib) < 0 ? LSC_EXIT_USAGE : 0;
	case OPT_HTML:
		A->html = optarg;
		return 0;
	case OPT_NOVERIFY:
		A->o.flags |= LSC_LOAD_NO_VERIFY;
		return 0;
	case OPT_DEVICE:
		if (lsc_cli_uint("--device", optarg, 0, 1023, &v) < 0)
			return LSC_EXIT_USAGE;
		A->device = (int)v;
		return 0;
	default:
		*done = 1;
		return lsc_cli_common(c, usage);
	}
}

/* The command line into @A: 0, or the exit status (*done: --help,
 * --version or a usage error; nothing more to do). */
static int parse_args(int argc, char **argv, struct load_args *A, int *done)
{
	struct lsc_cli cli = {argc, argv, "hV", longopts, 0, 0};
	int c;

	memset(A, 0, sizeof(*A));
	lsc_load_options_init(&A->o);
	A->fmt = LSC_FORMAT_HUMAN;
	A->gib = 1.0;
	A->device = -1;
	*done = 0;
	while ((c = lsc_cli_next(&cli)) != -1) {
		int r = parse_opt(c, A, done);
		if (r || *done) {
			*done = 1;
			return r;
		}
	}
	A->n_files = cli.nops;
	A->files = (const char *const *)argv + 1;
	/* --html -: the page alone on stdout, as triage's; the lines on stderr */
	A->lines = A->html && !strcmp(A->html, "-") ? stderr : stdout;
	return 0;
}

/* The profiler on A->lines, and with --html the triage fed its lines; 0, or
 * the exit status after the line that says why. */
static int open_profiler(struct load_args *A, lsc_profiler **p, struct lsc_triage **tri)
{
	struct lsc_profiler_options po;
	lsc_profiler_options_init(&po);
	po.stream = A->lines;
	po.format = A->fmt;
	*tri = NULL;
	if (A->html) {
		*tri = lsc_triage_new(&(struct lsc_triage_opts){.source = "loadscope load"});
		if (!*tri || lsc_triage_source(*tri, "loadscope load") < 0) {
			fprintf(stderr, "loadscope load: --html: out of memory\n");
			lsc_triage_free(*tri);
			return LSC_EXIT_IO;
		}
		A->tee = (struct tee){A->lines, *tri};
		po.sink = tee_line;
		po.sink_user = &A->tee;
	}
	int ret = lsc_profiler_create(&po, p);
	if (ret < 0) {
		fprintf(stderr, "loadscope load: profiler: %s\n", lsc_strerror(ret));
		lsc_triage_free(*tri);
		return LSC_EXIT_IO;
	}
	return 0;
}

/* The start line, after --device's probe: a backend without device memory
 * is a usage error and prints nothing on stdout (LSC_EXIT_USAGE returned,
 * no start begun). Else 0 or the load's negative error, the line printed. */
static int begin_start(lsc_profiler *p, struct load_args *A)
{
	if (A->device < 0) {
		lsc_start_begin(p, "loadscope load");
		return 0;
	}
	char why[320];
	struct lsc_load_options d = A->o;
	int ret = lsc_tool_load_device(NULL, &d, A->device, why, sizeof(why));
	if (ret == -EINVAL)
		return lsc_cli_usage("--device %d: %s", A->device, why);
	lsc_start_begin(p, "loadscope load");
	if (ret < 0) /* the backend's one line, now on the profiler */
		lsc_tool_load_device(p, &A->o, A->device, why, sizeof(why));
	else
		A->o = d;
	return ret;
}

/* The start: manifest, load, the verify note, `ready`. 0, a negative error
 * (its line printed), or LSC_EXIT_USAGE with nothing on stdout. */
static int load_start(lsc_profiler *p, struct load_args *A)
{
	/* Model files become one extent per tensor, other files one extent
	 * each. Read before the start begins, silently, so that --expect on a
	 * model stays a usage error with nothing on stdout; a failure is read
	 * again inside the start, for its error line. */
	struct lsc_manifest *m = NULL;
	size_t n = (size_t)A->n_files;
	int mret = lsc_manifest_from_files(NULL, A->files, n, &m);
	if (mret == 0 && A->has_expect && m->n_tensors) {
		lsc_manifest_destroy(m);
		return lsc_cli_usage("--expect is the hash of a whole file; %s holds tensors", A->files[0]);
	}
	int ret = begin_start(p, A);
	if (ret == LSC_EXIT_USAGE) {
		lsc_manifest_destroy(m);
		return ret;
	}
	if (ret == 0 && mret)
		ret = lsc_manifest_from_files(p, A->files, n, &m);
	lsc_arena *arena = NULL;
	if (ret == 0 && A->has_expect) {
		/* One plain file: its one extent, with the hash. */
		struct lsc_extent e = m->extents[0];
		e.xxh3 = A->expect;
		e.has_xxh3 = 1;
		ret = lsc_load(p, &A->o, &e, 1, m->arena_bytes, &arena);
	} else if (ret == 0) {
		ret = lsc_load_manifest(p, &A->o, m, &arena);
	}
	lsc_manifest_destroy(m);
	if (ret == 0 && A->has_expect) {
		char text[96];
		snprintf(text, sizeof(text), "XXH3-64 %016" PRIx64 " matches --expect", A->expect);
		lsc_note(p, "verify", text);
	}
	if (ret == 0)
		lsc_start_end(p);
	if (ret < 0 && !lsc_profiler_enabled(p))
		fprintf(stderr, "loadscope load: %s\n", lsc_strerror(ret));
	lsc_arena_destroy(arena);
	return ret;
}

int lsc_cmd_load(int argc, char **argv)
{
	struct load_args A;
	int done;
	int ret = parse_args(argc, argv, &A, &done);
	if (done)
		return ret;
	if (A.make) {
		ret = make_test_file(A.make, A.gib, A.lines);
		if (ret || !A.n_files)
			return ret;
	}
	if (!A.n_files)
		return lsc_cli_usage("no FILE to load");
	if (A.has_expect && A.n_files != 1)
		return lsc_cli_usage("--expect is the hash of one file; %d given", A.n_files);

	lsc_profiler *p = NULL;
	struct lsc_triage *tri = NULL;
	ret = open_profiler(&A, &p, &tri);
	if (ret)
		return ret;
	ret = load_start(p, &A);
	lsc_profiler_destroy(p);
	if (ret == LSC_EXIT_USAGE) {
		lsc_triage_free(tri);
		return ret;
	}
	int hret = 0;
	if (tri) {
		/* the profiler is gone: every line it printed is in */
		lsc_triage_finish(tri);
		hret = write_html(tri, A.html);
		lsc_triage_free(tri);
	}
	if (hret < 0)
		return LSC_EXIT_IO;
	return ret == 0 ? LSC_EXIT_OK : LSC_EXIT_PROBLEM;
}
