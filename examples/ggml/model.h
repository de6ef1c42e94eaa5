/*
 * The example's model: a small transformer-like stack on ggml's public API,
 * written as a GGUF file with ggml's own writer and run with ggml's CPU
 * backend. Random weights, a fixed input: what matters is that every way of
 * loading it (loadscope into the backend buffers, ggml's own GGUF path, a
 * mapping used in place) computes the same output, bit for bit.
 *
 * Tensors (ggml's ne order, innermost first), E = embedding, F = feed
 * forward, L blocks:
 *   output_norm.weight [E]        output.weight [E, E]        (the "io" group)
 *   blk.N.attn_norm.weight [E]    blk.N.attn_q.weight [E, E]
 *   blk.N.attn_k.weight [E, E]    blk.N.attn_output.weight [E, E]
 *   blk.N.ffn_norm.weight [E]     blk.N.ffn_up.weight [E, F]
 *   blk.N.ffn_down.weight [F, E]                              (the "blocks" group)
 * One block: x += Wo (silu(Wq h) * (Wk h)), h = rmsnorm(x) * attn_norm;
 * x += Wdown gelu(Wup h), h = rmsnorm(x) * ffn_norm; then the output
 * projection of rmsnorm(x) * output_norm.
 */
#ifndef GGML_LOAD_MODEL_H
#define GGML_LOAD_MODEL_H

#include <stdint.h>

#include <ggml.h>
#include <gguf.h>

#define TOY_ARCH "lsc-toy"

struct toy_hparams {
	int64_t n_embd, n_ff;
	int n_layer;
};

/* Write a model of about @gib GiB to @path: the header through
 * gguf_write_to_file, then each tensor's random bytes at its offset.
 * 0, or -1 with a line on stderr. */
int toy_write(const char *path, double gib, int64_t n_embd);

/* The hyperparameters a model file's header gives. 0 or -1. */
int toy_hparams_read(const struct gguf_context *g, struct toy_hparams *hp);

/* Whether a tensor name belongs to the "io" group (output_norm, output),
 * which the example keeps in a CPU buffer of its own, apart from the
 * blocks (a second buffer: CUDA_Host where a GPU is, else CPU). */
int toy_is_io(const char *name);

/* The weight called @name, wherever the caller keeps it. */
typedef struct ggml_tensor *(*toy_lookup_fn)(void *user, const char *name);

/* The forward pass as a graph: built and allocated on the CPU backend. */
struct toy_graph;
struct toy_graph *toy_graph_new(toy_lookup_fn get, void *user, const struct toy_hparams *hp, int n_threads);
/* Run it once on the fixed input: the output vector's XXH3-64 into @hash.
 * 0 or -1 with a line on stderr. */
int toy_graph_run(struct toy_graph *g, uint64_t *hash);
void toy_graph_free(struct toy_graph *g);

#endif
