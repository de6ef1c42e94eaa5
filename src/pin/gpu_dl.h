/*
 * Loading a GPU runtime at run time: the CUDA and HIP pin backends dlopen
 * their runtime (libcudart, libamdhip64) the first time a load asks for
 * them, so the library has no link-time dependency on any GPU stack and an
 * engine that never asks for a GPU pin never maps one. This helper holds the
 * part both backends share: try a list of names, say which were tried and
 * why each failed, and resolve a table of symbols all or nothing.
 *
 * A runtime, once loaded, stays loaded for the life of the process: CUDA and
 * HIP register atexit handlers and threads that must not outlive their code,
 * so the backends never dlclose.
 *
 * Private to src/pin/ (and tests): the others use pin.h.
 */
#ifndef LSC_PIN_GPU_DL_H
#define LSC_PIN_GPU_DL_H

#include <stddef.h>

/* One symbol to resolve: its name and where to store the address. */
struct lsc__gpu_sym {
	const char *name;
	void **slot;
};

/*
 * lsc__gpu_dlopen - dlopen the first of @names (NULL-terminated) that loads,
 * RTLD_NOW | RTLD_LOCAL. On success *@handle is set and @which names the
 * file that loaded. On failure @why gets "<rt>: <first name> not found
 * (dlopen: <each name tried and dlerror's words>)".
 * Return: 0, or LSC_E_NORUNTIME.
 */
int lsc__gpu_dlopen(const char *rt, const char *const *names, void **handle, const char **which,
		    char *why, size_t why_len);

/*
 * lsc__gpu_dlsyms - resolve every symbol of @syms (@n rows) in @handle. All
 * or nothing: on a missing symbol every slot is reset to NULL and @why names
 * the symbol and the file. Return: 0, or LSC_E_NORUNTIME.
 */
int lsc__gpu_dlsyms(const char *rt, void *handle, const char *file, const struct lsc__gpu_sym *syms,
		    size_t n, char *why, size_t why_len);

/* lsc__gpu_now_ns - CLOCK_MONOTONIC in nanoseconds, for timing runtime calls. */
unsigned long long lsc__gpu_now_ns(void);

#endif
