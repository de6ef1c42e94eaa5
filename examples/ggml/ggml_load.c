/*
 * ggml-load: a small GGUF model runner on ggml's public API that loads its
 * weights as a ggml engine would, three ways, and runs one forward pass:
 *
 *   ggml-load --write-model FILE --gib N   write a random-weight model (model.h)
 *   ggml-load FILE                         loadscope: the tensor bytes straight
 *                                          into ggml's backend buffers
 *   ggml-load --ggml FILE                  ggml's own path: gguf_init_from_file
 *                                          with data, then ggml_backend_tensor_set
 *   ggml-load --mmap FILE                  llama.cpp's default: the file mapped,
 *                                          a CPU buffer over the mapping
 *
 * Each prints `checksum=` and the XXH3-64 of the output on a line of its
 * own (equal for the three), then `timing` with its phases. The tensors
 * live in two backend buffers, as llama.cpp's do: the output tensors in a
 * CPU buffer, the blocks in a second (CUDA_Host where a GPU device is, so
 * the weights are pinned for the copy to it; CPU otherwise): loadscope
 * loads both in one call (lsc_load_into_many). The engine's own startup
 * phases are profiler spans, and ggml's log goes through the same sink as
 * loadscope's lines, so the engine's log is one log that `loadscope
 * triage` reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ggml-backend.h>
#include <ggml-cpu.h>
#include <ggml.h>
#include <gguf.h>
#include <loadscope/loadscope.h>

#include "model.h"

enum path { PATH_LOADSCOPE, PATH_GGML, PATH_MMAP };

struct engine {
	enum path path;
	const char *file;
	double cancel_at;             /* cancel the load past this fraction; <0 never */
	lsc_profiler *p;
	struct gguf_context *g;
	struct ggml_context *meta;    /* the header's tensors (no data, or ggml's copy) */
	struct ggml_context *ctx[2];  /* the weights of each buffer: 0 io, 1 blocks */
	ggml_backend_buffer_t buf[2];
	void *map;                    /* --mmap */
	size_t map_len;
	struct toy_hparams hp;
	double t[5];                  /* seconds of each span below */
	int last_pct;
};

enum { T_META, T_BUF, T_WEIGHTS, T_GRAPH, T_COMPUTE };
static const char *const span_name[] = {"metadata", "buffers", "weights", "graph", "first compute"};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- one log: the engine's, ggml's and loadscope's lines ----------------- */

static int bar_open; /* a progress bar is part way along its line */

static void log_line(const char *level, const char *text, size_t len)
{
	while (len && text[len - 1] == '\n')
		len--;
	fprintf(stderr, "%sggml-load %s: %.*s\n", bar_open ? "\n" : "", level, (int)len, text);
	bar_open = 0;
}

static void lsc_sink(void *user, enum lsc_level level, const char *event, const char *line, size_t len)
{
	(void)user;
	(void)event;
	log_line(lsc_level_name(level), line, len);
}

static void ggml_sink(enum ggml_log_level level, const char *text, void *user)
{
	(void)user;
	static const char *const names[] = {"none", "debug", "info", "warn", "error", "cont"};
	if (level == GGML_LOG_LEVEL_CONT || level == GGML_LOG_LEVEL_DEBUG)
		return;
	log_line(level <= GGML_LOG_LEVEL_ERROR ? names[level] : "info", text, strlen(text));
}

/* ---- progress, as llama.cpp's callback ------------------------------------ */

/* llama.cpp's llama_progress_callback: true to go on. */
typedef int (*llama_progress_callback)(float progress, void *user);

struct progress_adapter {
	llama_progress_callback cb;
	void *user;
};

/* loadscope's polarity is the reverse (0 to go on): the one line an
 * engine's adapter needs (loader.h, lsc_progress_fn). */
static int to_llama(uint64_t done, uint64_t total, void *user)
{
	const struct progress_adapter *a = user;
	return !a->cb(total ? (float)((double)done / (double)total) : 1.0f, a->user);
}

/* The engine's callback: a bar of dots as llama.cpp prints, and a cancel. */
static int engine_progress(float progress, void *user)
{
	struct engine *E = user;
	int pct = (int)(progress * 100.0f);
	while (E->last_pct < pct) {
		fputc(++E->last_pct % 10 == 0 ? '0' + (E->last_pct / 10) % 10 : '.', stderr);
		bar_open = E->last_pct < 100;
		if (E->last_pct == 100)
			fputc('\n', stderr);
	}
	return E->cancel_at < 0 || progress < E->cancel_at;
}

/* ---- the metadata and the buffers ----------------------------------------- */

static int read_metadata(struct engine *E)
{
	struct gguf_init_params ip = {.no_alloc = E->path != PATH_GGML, .ctx = &E->meta};
	E->g = gguf_init_from_file(E->file, ip);
	if (!E->g || toy_hparams_read(E->g, &E->hp) < 0) {
		fprintf(stderr, "ggml-load: %s is not a model this program wrote\n", E->file);
		return -1;
	}
	return 0;
}

/* The buffer type of the blocks: a GPU device's host (pinned) type, else CPU. */
static ggml_backend_buffer_type_t blocks_buft(void)
{
	ggml_backend_dev_t gpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_GPU);
	ggml_backend_buffer_type_t host = gpu ? ggml_backend_dev_host_buffer_type(gpu) : NULL;
	return host ? host : ggml_backend_cpu_buffer_type();
}

static int make_buffers(struct engine *E)
{
	int n = (int)gguf_get_n_tensors(E->g);
	for (int k = 0; k < 2; k++) {
		struct ggml_init_params ip = {.mem_size = (size_t)(n + 1) * ggml_tensor_overhead(), .no_alloc = true};
		E->ctx[k] = ggml_init(ip);
	}
	for (int i = 0; i < n; i++) {
		const char *name = gguf_get_tensor_name(E->g, i);
		struct ggml_tensor *src = ggml_get_tensor(E->meta, name);
		struct ggml_tensor *t = ggml_dup_tensor(E->ctx[toy_is_io(name) ? 0 : 1], src);
		ggml_set_name(t, name);
	}
	E->buf[0] = ggml_backend_alloc_ctx_tensors_from_buft(E->ctx[0], ggml_backend_cpu_buffer_type());
	E->buf[1] = ggml_backend_alloc_ctx_tensors_from_buft(E->ctx[1], blocks_buft());
	if (!E->buf[0] || !E->buf[1]) {
		fprintf(stderr, "ggml-load: cannot allocate the backend buffers\n");
		return -1;
	}
	for (int k = 0; k < 2; k++)
		ggml_backend_buffer_set_usage(E->buf[k], GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
	return 0;
}

static struct ggml_tensor *weight(void *user, const char *name)
{
	struct engine *E = user;
	if (E->path == PATH_MMAP)
		return ggml_get_tensor(E->meta, name);
	struct ggml_tensor *t = ggml_get_tensor(E->ctx[0], name);
	return t ? t : ggml_get_tensor(E->ctx[1], name);
}

/* ---- the three ways to the weights ---------------------------------------- */

/* loadscope: the manifest it reads from the GGUF header, each tensor's
 * extent sent to its place in its backend buffer, one load for both. */
static int weights_loadscope(struct engine *E)
{
	struct lsc_manifest *m = NULL;
	const char *paths[] = {E->file};
	int rc = lsc_manifest_from_files(E->p, paths, 1, &m);
	if (rc < 0)
		return -1;
	struct lsc_extent *ext = calloc(m->n_tensors ? m->n_tensors : 1, sizeof(*ext));
	struct lsc_dest dst[2];
	for (int k = 0; k < 2; k++)
		dst[k] = (struct lsc_dest){ggml_backend_buffer_get_base(E->buf[k]),
					   ggml_backend_buffer_get_size(E->buf[k]),
					   ggml_backend_buffer_name(E->buf[k])};
	size_t n = 0;
	for (int k = 0; k < 2; k++) {
		for (struct ggml_tensor *t = ggml_get_first_tensor(E->ctx[k]); t; t = ggml_get_next_tensor(E->ctx[k], t)) {
			const struct lsc_tensor *mt = lsc_manifest_tensor(m, ggml_get_name(t));
			if (!mt || m->extents[mt->extent].length != ggml_nbytes(t)) {
				fprintf(stderr, "ggml-load: tensor %s: not in the file as ggml reads it\n", ggml_get_name(t));
				rc = -1;
				goto out;
			}
			ext[n] = m->extents[mt->extent];
			ext[n].dest = (uint32_t)k;
			ext[n].arena_offset = (uint64_t)((char *)t->data - (char *)dst[k].addr);
			n++;
		}
	}
	struct progress_adapter pa = {engine_progress, E};
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.progress = to_llama;
	o.progress_user = &pa;
	o.tensors = n;
	rc = lsc_load_into_many(E->p, &o, ext, n, dst, 2, NULL) < 0 ? -1 : 0;
out:
	free(ext);
	lsc_manifest_destroy(m);
	return rc;
}

/* ggml's own: gguf_init_from_file read the data into its context; each
 * tensor copied into its backend buffer. */
static int weights_ggml(struct engine *E)
{
	for (int k = 0; k < 2; k++)
		for (struct ggml_tensor *t = ggml_get_first_tensor(E->ctx[k]); t; t = ggml_get_next_tensor(E->ctx[k], t))
			ggml_backend_tensor_set(t, ggml_get_tensor(E->meta, ggml_get_name(t))->data, 0, ggml_nbytes(t));
	return 0;
}

/* llama.cpp's default: the file mapped, a CPU buffer over the mapping,
 * each tensor used where it lies (CPU_Mapped). Nothing is copied here; the
 * pages fault in during the first compute. */
static int weights_mmap(struct engine *E)
{
	int fd = open(E->file, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "ggml-load: %s: %s\n", E->file, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	E->map_len = (size_t)st.st_size;
	E->map = mmap(NULL, E->map_len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (E->map == MAP_FAILED) {
		E->map = NULL;
		fprintf(stderr, "ggml-load: mmap %s: %s\n", E->file, strerror(errno));
		return -1;
	}
	E->buf[0] = ggml_backend_cpu_buffer_from_ptr(E->map, E->map_len);
	size_t data = gguf_get_data_offset(E->g);
	for (int64_t i = 0; i < gguf_get_n_tensors(E->g); i++) {
		struct ggml_tensor *t = ggml_get_tensor(E->meta, gguf_get_tensor_name(E->g, i));
		char *at = (char *)E->map + data + gguf_get_tensor_offset(E->g, i);
		if (ggml_backend_tensor_alloc(E->buf[0], t, at) != GGML_STATUS_SUCCESS)
			return -1;
	}
	return 0;
}

/* ---- the start --------------------------------------------------------- */

static int phase(struct engine *E, int which, int (*fn)(struct engine *))
{
	lsc_span s;
	double t0 = now();
	lsc_span_begin(E->p, LSC_PHASE_CUSTOM, span_name[which], 0, &s);
	int rc = fn(E);
	lsc_span_end(E->p, s, NULL);
	E->t[which] = now() - t0;
	return rc;
}

static int weights(struct engine *E)
{
	return E->path == PATH_LOADSCOPE ? weights_loadscope(E) : E->path == PATH_GGML ? weights_ggml(E)
											: weights_mmap(E);
}

static int buffers(struct engine *E)
{
	return E->path == PATH_MMAP ? 0 : make_buffers(E);
}

static struct toy_graph *graph;
static uint64_t checksum;

static int graph_build(struct engine *E)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	graph = toy_graph_new(weight, E, &E->hp, cpus > 0 ? (int)cpus : 1);
	return graph ? 0 : -1;
}

static int compute(struct engine *E)
{
	(void)E;
	return toy_graph_run(graph, &checksum);
}

static void engine_free(struct engine *E)
{
	toy_graph_free(graph);
	for (int k = 0; k < 2; k++) {
		if (E->buf[k])
			ggml_backend_buffer_free(E->buf[k]);
		if (E->ctx[k])
			ggml_free(E->ctx[k]);
	}
	if (E->map)
		munmap(E->map, E->map_len);
	if (E->meta)
		ggml_free(E->meta);
	if (E->g)
		gguf_free(E->g);
	lsc_profiler_destroy(E->p);
}

static int run(struct engine *E)
{
	struct lsc_profiler_options po;
	lsc_profiler_options_init(&po);
	po.sink_level = lsc_sink;
	if (lsc_profiler_create(&po, &E->p) < 0)
		return 1;
	ggml_log_set(ggml_sink, NULL);
	static const char *const names[] = {"ggml-load", "ggml-load --ggml", "ggml-load --mmap"};
	lsc_start_begin(E->p, names[E->path]);
	double t0 = now();
	int rc = phase(E, T_META, read_metadata);
	if (rc == 0)
		rc = phase(E, T_BUF, buffers);
	if (rc == 0)
		rc = phase(E, T_WEIGHTS, weights);
	if (rc == 0)
		rc = phase(E, T_GRAPH, graph_build);
	if (rc == 0)
		rc = phase(E, T_COMPUTE, compute);
	if (rc == 0) {
		lsc_start_end(E->p);
		printf("checksum=%016llx\n", (unsigned long long)checksum);
		printf("timing path=%s layers=%d metadata_s=%.3f buffers_s=%.3f weights_s=%.3f graph_s=%.3f "
		       "first_compute_s=%.3f total_s=%.3f\n",
		       E->path == PATH_LOADSCOPE ? "loadscope" : E->path == PATH_GGML ? "ggml" : "mmap", E->hp.n_layer,
		       E->t[T_META], E->t[T_BUF], E->t[T_WEIGHTS], E->t[T_GRAPH], E->t[T_COMPUTE], now() - t0);
		fflush(stdout);
	}
	engine_free(E);
	return rc == 0 ? 0 : 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: ggml-load --write-model FILE --gib N [--n-embd E]\n"
			"       ggml-load [--ggml | --mmap] [--cancel-at FRACTION] FILE\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct engine E = {.path = PATH_LOADSCOPE, .cancel_at = -1};
	const char *write = NULL;
	double gib = 0;
	long n_embd = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--write-model") && i + 1 < argc)
			write = argv[++i];
		else if (!strcmp(a, "--gib") && i + 1 < argc)
			gib = strtod(argv[++i], NULL);
		else if (!strcmp(a, "--n-embd") && i + 1 < argc)
			n_embd = strtol(argv[++i], NULL, 10);
		else if (!strcmp(a, "--cancel-at") && i + 1 < argc)
			E.cancel_at = strtod(argv[++i], NULL);
		else if (!strcmp(a, "--ggml"))
			E.path = PATH_GGML;
		else if (!strcmp(a, "--mmap"))
			E.path = PATH_MMAP;
		else if (a[0] == '-' || E.file)
			return usage();
		else
			E.file = a;
	}
	if (write) {
		if (!(gib > 0) || E.file || (n_embd && (n_embd < 32 || n_embd % 32)))
			return usage();
		return toy_write(write, gib, n_embd ? n_embd : gib < 0.5 ? 256 : 1024) == 0 ? 0 : 1;
	}
	if (!E.file)
		return usage();
	return run(&E);
}
