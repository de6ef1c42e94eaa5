/*
 * The loader's shared lines (lines.h): `error`, `fallback`, the KFD note,
 * with the error names of format/errname.h, and the one name of a file's
 * type that the lines of the loader and the model reader give. Every step of a load prints
 * through these, so a reader fallback and an arena fallback read the same.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "format/c_locale.h"
#include "format/errname.h"
#include "loader/arena.h"
#include "loader/lines.h"
#include "loader/result.h"
#include "profiler/internal.h"

const char *lsc__file_type_name(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
	       : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
	       : S_ISLNK(m) ? "a symbolic link" : "not a file";
}

static const char *errtext(int err)
{
	if (err <= LSC_E_BASE)
		return lsc_strerror(err);
	const char *d = err < 0 ? strerrordesc_np(-err) : NULL;
	return d ? d : "unknown error";
}

void lsc__load_error(lsc_profiler *p, const char *what, const char *path, uint64_t offset,
		     int err, const char *fmt, ...)
{
	char cause[512];
	va_list ap;
	va_start(ap, fmt);
	/* The step's own figures ("arena of 24.05 GiB"): in the C locale, as
	 * the rest of the line is (format/c_locale.h). */
	locale_t loc = lsc__c_locale_enter();
	vsnprintf(cause, sizeof(cause), fmt, ap);
	lsc__c_locale_leave(loc);
	va_end(ap);
	lsc__result_error(what, path, offset, cause); /* data even with the profiler off */
	if (!lsc_profiler_enabled(p))
		return;
	struct lsc__rec r;
	lsc__rec_init(&r, LSC__EV(ERROR));
	if (path)
		lsc__rec_say(&r, "%s failed: %s at offset %" PRIu64 ": %s: %s (%s)", what, path, offset,
			     cause, lsc__errname(err), errtext(err));
	else
		lsc__rec_say(&r, "%s failed: %s: %s (%s)", what, cause, lsc__errname(err), errtext(err));
	lsc__rec_str(&r, LSC__KEY(WHAT), what);
	if (path) {
		lsc__rec_str(&r, "path", path);
		lsc__rec_u64(&r, "offset", offset);
	}
	lsc__rec_str(&r, LSC__KEY(ERR), lsc__errname(err));
	lsc__rec_detail(&r); /* the sentence has the cause */
	lsc__rec_i64(&r, "code", err);
	lsc__rec_str(&r, "cause", cause);
	lsc__emit(p, &r);
}

void lsc__load_fallback(lsc_profiler *p, const char *what, const char *wanted, const char *took,
			const char *reason)
{
	struct lsc__rec r;

	lsc__result_fallback(what, wanted, took, reason);
	if (!lsc_profiler_enabled(p))
		return;
	lsc__rec_init(&r, LSC__EV(FALLBACK));
	lsc__rec_say(&r, "%s: wanted %s, took %s: %s", what, wanted, took, reason);
	lsc__rec_str(&r, LSC__KEY(WHAT), what);
	lsc__rec_str(&r, LSC__KEY(WANTED), wanted);
	lsc__rec_str(&r, LSC__KEY(TOOK), took);
	lsc__rec_detail(&r); /* the sentence has the reason */
	lsc__rec_str(&r, LSC__KEY(REASON), reason);
	lsc__emit(p, &r);
}

void lsc__kfd_note(lsc_profiler *p, const struct lsc__arena *a, const char *backend)
{
	struct lsc__rec r;

	if (!lsc_profiler_enabled(p))
		return;
	lsc__rec_init(&r, LSC__EV(NOTE));
	lsc__rec_say(&r, "kfd: %llu ALLOC_MEMORY_OF_GPU ioctls during the %s allocation and pinning, "
			 "%llu returned EAGAIN (retried by ROCm), %.3f s inside them (process-wide)",
		     (unsigned long long)a->kfd_calls, backend, (unsigned long long)a->kfd_eagain,
		     (double)a->kfd_ns / 1e9);
	lsc__rec_str(&r, LSC__KEY(TOPIC), "kfd");
	lsc__rec_str(&r, "backend", backend);
	lsc__rec_u64(&r, "kfd_calls", a->kfd_calls);
	lsc__rec_u64(&r, "kfd_eagain", a->kfd_eagain);
	lsc__rec_f64(&r, "kfd_s", (double)a->kfd_ns / 1e9, 3);
	lsc__emit(p, &r);
}
