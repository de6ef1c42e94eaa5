/*
 * The example model (model.h): the GGUF writer and the forward pass, on
 * ggml's public API only.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggml-alloc.h>
#include <ggml-backend.h>
#include <ggml-cpu.h>
#include <ggml.h>
#include <gguf.h>
#include <xxhash.h>

#include "model.h"

#define KEY_EMBD TOY_ARCH ".embedding_length"
#define KEY_FF TOY_ARCH ".feed_forward_length"
#define KEY_LAYERS TOY_ARCH ".block_count"

int toy_is_io(const char *name)
{
	return strncmp(name, "blk.", 4) != 0;
}

/* ---- writing ------------------------------------------------------------- */

/* xorshift64*: the same weights from the same seed on every machine. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static void add(struct ggml_context *c, struct gguf_context *g, const char *name, int64_t ne0, int64_t ne1)
{
	struct ggml_tensor *t = ne1 ? ggml_new_tensor_2d(c, GGML_TYPE_F32, ne0, ne1)
				    : ggml_new_tensor_1d(c, GGML_TYPE_F32, ne0);
	ggml_set_name(t, name);
	gguf_add_tensor(g, t);
}

static void add_block(struct ggml_context *c, struct gguf_context *g, int i, int64_t e, int64_t f)
{
	char n[64];
#define T(suffix, ne0, ne1) (snprintf(n, sizeof n, "blk.%d." suffix, i), add(c, g, n, ne0, ne1))
	T("attn_norm.weight", e, 0);
	T("attn_q.weight", e, e);
	T("attn_k.weight", e, e);
	T("attn_output.weight", e, e);
	T("ffn_norm.weight", e, 0);
	T("ffn_up.weight", e, f);
	T("ffn_down.weight", f, e);
#undef T
}

/* A tensor's random values: a norm's around 1, a matrix's scaled by its
 * fan-in so that activations stay near 1 through every block. */
static int write_values(FILE *f, const char *name, int64_t n, int64_t fan_in, uint64_t *seed)
{
	static float buf[1 << 16];
	int norm = strstr(name, "norm") != NULL;
	float scale = norm ? 0.1f : 1.0f / sqrtf((float)fan_in);
	for (int64_t done = 0; done < n;) {
		int64_t k = n - done < (int64_t)(sizeof buf / sizeof buf[0]) ? n - done
									      : (int64_t)(sizeof buf / sizeof buf[0]);
		for (int64_t i = 0; i < k; i++) {
			float u = (float)(next(seed) >> 40) / (float)(1 << 24) * 2.0f - 1.0f;
			buf[i] = norm ? 1.0f + scale * u : scale * u;
		}
		if (fwrite(buf, sizeof(float), (size_t)k, f) != (size_t)k)
			return -1;
		done += k;
	}
	return 0;
}

/* The data section after ggml's header: each tensor at its offset, the
 * gaps zero (gguf pads each tensor to the alignment). */
static int write_data(FILE *f, const struct gguf_context *g, const struct ggml_context *c)
{
	long data = ftell(f);
	uint64_t seed = 0x6c6f616473636f70ull; /* "loadscop" */
	for (int64_t i = 0; i < gguf_get_n_tensors(g); i++) {
		const char *name = gguf_get_tensor_name(g, i);
		const struct ggml_tensor *t = ggml_get_tensor((struct ggml_context *)c, name);
		long at = data + (long)gguf_get_tensor_offset(g, i);
		while (ftell(f) < at)
			if (fputc(0, f) == EOF)
				return -1;
		if (write_values(f, name, ggml_nelements(t), t->ne[0], &seed) < 0)
			return -1;
	}
	return 0;
}

int toy_write(const char *path, double gib, int64_t e)
{
	int64_t f = 2 * e;
	double per_layer = (3.0 * e * e + 2.0 * e * f + 2.0 * e) * sizeof(float);
	int layers = (int)(gib * (1u << 30) / per_layer);
	if (layers < 1)
		layers = 1;
	struct ggml_init_params ip = {.mem_size = (size_t)(layers * 7 + 8) * ggml_tensor_overhead(),
				      .no_alloc = true};
	struct ggml_context *c = ggml_init(ip);
	struct gguf_context *g = gguf_init_empty();
	gguf_set_val_str(g, "general.architecture", TOY_ARCH);
	gguf_set_val_str(g, "general.name", "loadscope example model (random weights)");
	gguf_set_val_u32(g, KEY_EMBD, (uint32_t)e);
	gguf_set_val_u32(g, KEY_FF, (uint32_t)f);
	gguf_set_val_u32(g, KEY_LAYERS, (uint32_t)layers);
	add(c, g, "output_norm.weight", e, 0);
	add(c, g, "output.weight", e, e);
	for (int i = 0; i < layers; i++)
		add_block(c, g, i, e, f);
	int rc = -1;
	if (!gguf_write_to_file(g, path, true)) {
		fprintf(stderr, "ggml-load: cannot write the header of %s\n", path);
	} else {
		FILE *out = fopen(path, "ab");
		if (out && write_data(out, g, c) == 0 && fclose(out) == 0)
			rc = 0;
		else
			fprintf(stderr, "ggml-load: cannot write the tensors of %s\n", path);
	}
	gguf_free(g);
	ggml_free(c);
	return rc;
}

int toy_hparams_read(const struct gguf_context *g, struct toy_hparams *hp)
{
	int64_t ke = gguf_find_key(g, KEY_EMBD), kf = gguf_find_key(g, KEY_FF), kl = gguf_find_key(g, KEY_LAYERS);
	if (ke < 0 || kf < 0 || kl < 0)
		return -1;
	hp->n_embd = gguf_get_val_u32(g, ke);
	hp->n_ff = gguf_get_val_u32(g, kf);
	hp->n_layer = (int)gguf_get_val_u32(g, kl);
	return 0;
}

/* ---- the forward pass ---------------------------------------------------- */

struct toy_graph {
	struct ggml_context *c;
	ggml_backend_t cpu;
	ggml_gallocr_t ga;
	struct ggml_cgraph *gf;
	struct ggml_tensor *in;
	int64_t n_embd;
};

struct weights {
	toy_lookup_fn get;
	void *user;
};

static struct ggml_tensor *W(const struct weights *w, const char *fmt, int i)
{
	char n[64];
	snprintf(n, sizeof n, fmt, i);
	return w->get(w->user, n);
}

static struct ggml_tensor *norm(struct ggml_context *c, struct ggml_tensor *x, struct ggml_tensor *g)
{
	return ggml_mul(c, ggml_rms_norm(c, x, 1e-5f), g);
}

static struct ggml_tensor *block(struct ggml_context *c, const struct weights *w, int i, struct ggml_tensor *x)
{
	struct ggml_tensor *h = norm(c, x, W(w, "blk.%d.attn_norm.weight", i));
	struct ggml_tensor *q = ggml_mul_mat(c, W(w, "blk.%d.attn_q.weight", i), h);
	struct ggml_tensor *k = ggml_mul_mat(c, W(w, "blk.%d.attn_k.weight", i), h);
	struct ggml_tensor *a = ggml_mul_mat(c, W(w, "blk.%d.attn_output.weight", i), ggml_mul(c, ggml_silu(c, q), k));
	x = ggml_add(c, x, a);
	h = norm(c, x, W(w, "blk.%d.ffn_norm.weight", i));
	struct ggml_tensor *u = ggml_gelu(c, ggml_mul_mat(c, W(w, "blk.%d.ffn_up.weight", i), h));
	return ggml_add(c, x, ggml_mul_mat(c, W(w, "blk.%d.ffn_down.weight", i), u));
}

static size_t graph_size(const struct toy_hparams *hp)
{
	return (size_t)hp->n_layer * 24 + 64;
}

struct toy_graph *toy_graph_new(toy_lookup_fn get, void *user, const struct toy_hparams *hp, int n_threads)
{
	struct toy_graph *g = calloc(1, sizeof(*g));
	struct weights w = {get, user};
	struct ggml_init_params ip = {.mem_size = ggml_tensor_overhead() * graph_size(hp) +
						  ggml_graph_overhead_custom(graph_size(hp), false),
				      .no_alloc = true};
	g->c = ggml_init(ip);
	g->cpu = ggml_backend_cpu_init();
	g->ga = ggml_gallocr_new(ggml_backend_cpu_buffer_type());
	g->n_embd = hp->n_embd;
	g->gf = ggml_new_graph_custom(g->c, graph_size(hp), false);
	struct ggml_tensor *x = g->in = ggml_new_tensor_1d(g->c, GGML_TYPE_F32, hp->n_embd);
	ggml_set_input(x);
	for (int i = 0; i < hp->n_layer; i++)
		x = block(g->c, &w, i, x);
	struct ggml_tensor *out = ggml_mul_mat(g->c, get(user, "output.weight"),
					       norm(g->c, x, get(user, "output_norm.weight")));
	ggml_set_output(out);
	ggml_build_forward_expand(g->gf, out);
	if (!g->cpu || !g->ga || !ggml_gallocr_alloc_graph(g->ga, g->gf)) {
		fprintf(stderr, "ggml-load: cannot allocate the graph\n");
		toy_graph_free(g);
		return NULL;
	}
	ggml_backend_cpu_set_n_threads(g->cpu, n_threads);
	return g;
}

int toy_graph_run(struct toy_graph *g, uint64_t *hash)
{
	size_t n_in = (size_t)g->n_embd * sizeof(float);
	float *x0 = malloc(n_in);
	for (int64_t i = 0; i < g->n_embd; i++)
		x0[i] = sinf((float)i * 0.01f);
	ggml_backend_tensor_set(g->in, x0, 0, n_in);
	free(x0);
	if (ggml_backend_graph_compute(g->cpu, g->gf) != GGML_STATUS_SUCCESS) {
		fprintf(stderr, "ggml-load: the forward pass failed\n");
		return -1;
	}
	struct ggml_tensor *out = ggml_graph_node(g->gf, -1);
	size_t n = ggml_nbytes(out);
	void *y = malloc(n);
	ggml_backend_tensor_get(out, y, 0, n);
	*hash = XXH3_64bits(y, n);
	free(y);
	return 0;
}

void toy_graph_free(struct toy_graph *g)
{
	if (!g)
		return;
	ggml_gallocr_free(g->ga);
	if (g->cpu)
		ggml_backend_free(g->cpu);
	ggml_free(g->c);
	free(g);
}
