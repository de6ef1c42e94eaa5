/*
 * Definitions every loadscope header shares: the export macro, the error
 * convention and the run-time version query.
 *
 * Error convention (as liburing): functions return int, >= 0 on success and a
 * negative errno value on failure, and never read or set errno. Errors that
 * come from a GPU runtime have no errno equivalent; they are reported in the
 * reserved range below LSC_E_BASE and named by lsc_strerror().
 */
#ifndef LOADSCOPE_COMMON_H
#define LOADSCOPE_COMMON_H

#include <loadscope/version.h>

#if defined(LSC_STATIC)
#define LSC_API
#elif defined(LSC_BUILDING)
#define LSC_API __attribute__((visibility("default")))
#else
#define LSC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Errors outside errno's range. Values are stable: they appear in logs. */
enum lsc_error {
	LSC_E_BASE = -10000,
	LSC_E_NODEVICE = -10001,   /* the GPU runtime is installed but sees no device */
	LSC_E_NORUNTIME = -10002,  /* the GPU runtime library could not be used */
	LSC_E_GPU = -10003,        /* any other GPU runtime error (see the log line) */
	LSC_E_HASH = -10004,       /* verify: content hash differs from the expected one */
	LSC_E_CHANGED = -10005,    /* a file changed size or mtime during the load */
	LSC_E_SHORT = -10006,      /* a file is shorter than the manifest says */
};

/*
 * lsc_strerror - name an error returned by any lsc_ function.
 * @err: a negative return value (a positive value is treated as its negative).
 * Return: a static string; never NULL. Thread-safe.
 */
LSC_API const char *lsc_strerror(int err);

/*
 * lsc_version_string - the library's version at run time ("0.3.0"), which may
 * differ from LSC_VERSION_STRING of the headers a program was built with.
 * Return: a static string. Thread-safe.
 */
LSC_API const char *lsc_version_string(void);

/* lsc_version_number - LSC_VERSION_NUMBER of the library at run time. */
LSC_API int lsc_version_number(void);

#ifdef __cplusplus
}
#endif
#endif
