/*
 * dlopen helper for the GPU pin backends (see gpu_dl.h): no GPU headers and
 * no #ifdef here, only the loader's side of "which file, which symbol, why
 * not".
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <loadscope/common.h>

#include "pin/gpu_dl.h"

int lsc__gpu_dlopen(const char *rt, const char *const *names, void **handle, const char **which,
		    char *why, size_t why_len)
{
	char tried[768];
	size_t used = 0;

	tried[0] = '\0';
	/* A runtime the engine already loaded comes first: a second cudart, or
	 * a second HIP/ROCr on /dev/kfd, in one process would not share the
	 * engine's contexts (and two ROCr instances on one device break). */
	for (const char *const *n = names; *n; n++) {
		void *h = dlopen(*n, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
		if (h) {
			*handle = h;
			if (which)
				*which = *n;
			return 0;
		}
	}
	dlerror();
	for (const char *const *n = names; *n; n++) {
		void *h = dlopen(*n, RTLD_NOW | RTLD_LOCAL);
		if (h) {
			*handle = h;
			if (which)
				*which = *n;
			return 0;
		}
		/* dlerror() already names the file; keep only its reason. */
		const char *e = dlerror();
		const char *colon = e ? strrchr(e, ':') : NULL;
		int w = snprintf(tried + used, sizeof(tried) - used, "%s%s:%s", used ? "; " : "", *n,
				 colon ? colon + 1 : " failed");
		if (w > 0)
			used += (size_t)w < sizeof(tried) - used ? (size_t)w : sizeof(tried) - used - 1;
	}
	*handle = NULL;
	if (why && why_len)
		snprintf(why, why_len, "%s: %s not found (dlopen: %s)", rt, names[0], tried);
	return LSC_E_NORUNTIME;
}

int lsc__gpu_dlsyms(const char *rt, void *handle, const char *file, const struct lsc__gpu_sym *syms,
		    size_t n, char *why, size_t why_len)
{
	for (size_t i = 0; i < n; i++) {
		void *p = dlsym(handle, syms[i].name);
		if (!p) {
			for (size_t j = 0; j < n; j++)
				*syms[j].slot = NULL;
			if (why && why_len)
				snprintf(why, why_len, "%s: %s has no symbol %s (runtime too old?)", rt,
					 file, syms[i].name);
			return LSC_E_NORUNTIME;
		}
		*syms[i].slot = p;
	}
	return 0;
}

unsigned long long lsc__gpu_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}
