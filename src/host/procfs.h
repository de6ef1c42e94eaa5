/*
 * The host readers: small readers for /proc and /sys (procfs.c) and the
 * vmstat, status, snapshot and region code over them, used by the profiler,
 * the loader and the probe alike. They take roots, never a profiler. Every
 * path is taken relative to a root ("/proc", "/sys", or a fixture tree under
 * tests/fixtures/), so the same parsers run on the real machine and on
 * copies of other kernels' files.
 *
 * Nothing here allocates or uses stdio: the span path reads vmstat and
 * /proc/self/status twice per span, and an engine leaves the profiler on in
 * every start. Parsers are exact: a value with trailing junk, an overflow or
 * a missing unit is an error (the caller reports it as n/a), never a guess.
 */
#ifndef LSC_HOST_PROCFS_H
#define LSC_HOST_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <loadscope/profiler.h>

/* Longest path built from a root and a relative name. */
#define LSC__PATH_MAX 512

/*
 * lsc__path - write "<root>/<rel>" into @out (@cap bytes, NUL-terminated).
 * A NULL or empty @root is the filesystem root. Return: the length, or
 * -ENAMETOOLONG.
 */
int lsc__path(char *out, size_t cap, const char *root, const char *rel);

/*
 * lsc__read_file - read "<root>/<rel>" into @buf without allocating: an
 * open/read loop (EINTR retried) until EOF or until @cap - 1 bytes are in,
 * then NUL-terminated. A file larger than the buffer is cut: only what fits
 * is kept and *@truncated (may be NULL) is set to 1.
 * Return: the number of bytes read (>= 0), or a negative errno.
 */
ssize_t lsc__read_file(const char *root, const char *rel, char *buf, size_t cap, int *truncated);

/*
 * The readers' two system calls, through a table in the style of the
 * loader's syscall shim (sys/sys.h), so that a test can give short reads
 * and EINTR at chosen calls instead of waiting for a signal to land. The
 * hooks have libc semantics (-1 and errno). Production code uses the
 * default; lsc__procfs_sys_set(NULL) restores it. Not for concurrent use.
 */
struct lsc__procfs_sys {
	int (*open)(const char *path, int flags);
	ssize_t (*read)(int fd, void *buf, size_t len);
};
void lsc__procfs_sys_set(const struct lsc__procfs_sys *s);

/*
 * The system snapshot's process-level call (system.c), through a table in
 * the same style: RLIMIT_MEMLOCK's RLIM_INFINITY path cannot be reached by
 * setrlimit on a machine whose hard limit is finite, so a test gives the
 * limit here instead. libc semantics (-1 and errno); NULL restores the
 * default. Not for concurrent use.
 */
struct rlimit;
struct lsc__system_sys {
	int (*getrlimit)(int resource, struct rlimit *rl);
};
void lsc__system_sys_set(const struct lsc__system_sys *s);

/*
 * lsc__read_lines - lsc__read_file for line-oriented files: when the file was
 * cut, the partial last line is dropped as well, so that a parser never sees
 * "VmRSS: 12" where the file said "VmRSS: 12345". Return: as lsc__read_file.
 */
ssize_t lsc__read_lines(const char *root, const char *rel, char *buf, size_t cap);

/*
 * lsc__parse_i64 - parse the decimal integer in [@s, @end), optionally
 * signed, with leading and trailing blanks (space, tab, newline) allowed and
 * nothing else. Return: 0 and *@out, -EINVAL (empty, junk) or -ERANGE.
 */
int lsc__parse_i64(const char *s, const char *end, int64_t *out);

/*
 * lsc__sysfs_choice - the current choice of a sysfs selector: the word in
 * brackets ("always [madvise] never" -> "madvise"), or a file's single bare
 * word ("madvise\n", as some kernels and containers print it). A word is
 * [a-z0-9_+-] and non-empty; there must be exactly one bracketed word, or one
 * bare word with nothing else. Return: 0 and @out set (NUL-terminated, at most
 * @cap - 1 chars), or -EINVAL (garbage, several words without brackets,
 * unbalanced brackets) / -ERANGE (the word does not fit). On error @out is "".
 */
int lsc__sysfs_choice(const char *text, char *out, size_t cap);

/*
 * lsc__kv_i64 - find the line "@key:<blanks><number>[ kB]" in @text (a
 * NUL-terminated /proc/meminfo or /proc/self/status) and parse it. The key
 * must start a line and match exactly ("Hugepagesize" never matches
 * "Hugepagesizes"). *@kib is set to 1 when the value had a " kB" unit and 0
 * when it had none, so that callers can insist on the unit they expect.
 * Return: 0, -ENOENT (no such line), -EINVAL (junk), -ERANGE (overflow).
 */
int lsc__kv_i64(const char *text, const char *key, int64_t *out, int *kib);

/* lsc__kv_kib - lsc__kv_i64 that requires the " kB" unit and a value >= 0. */
int lsc__kv_kib(const char *text, const char *key, int64_t *out);

/* lsc__kv_word - copy the first word after "@key:" into @out ("" on error).
 * Return: 0, -ENOENT, -EINVAL (no word), -ERANGE (does not fit). */
int lsc__kv_word(const char *text, const char *key, char *out, size_t cap);

/*
 * lsc__buddy_free_bytes - free memory in blocks of order >= @min_order, from
 * the text of /proc/buddyinfo ("Node 0, zone   Normal   293  284 ..."),
 * summed over every node and zone, for pages of @page_size bytes.
 * Return: the bytes (>= 0), or a negative errno: -EINVAL for a line that is
 * not in that shape or an empty file, -ERANGE on overflow.
 */
int64_t lsc__buddy_free_bytes(const char *text, unsigned min_order, long page_size);

/*
 * lsc__kernel_at_least - whether "<proc_root>/sys/kernel/osrelease" (NULL:
 * "/proc") names a release of at least @maj.@min ("6.18.44-fc" is 6.18).
 * Return: 1, or 0 when older, unreadable or not in that shape (callers make
 * 0 their cautious side). Thread-safe.
 */
int lsc__kernel_at_least(const char *proc_root, int maj, int min);

/*
 * lsc__buddy_free_below - free memory in blocks below @order, read from
 * "<proc_root>/buddyinfo" (NULL: "/proc") for pages of sysconf's size: on a
 * guest with free page reporting of that order, the free memory the host
 * still backs. Return: the bytes (>= 0), or a negative errno (unreadable,
 * cut or not understood). Thread-safe; allocates nothing.
 */
int64_t lsc__buddy_free_below(const char *proc_root, unsigned order);

/*
 * lsc__vmstat_parse - the counters of struct lsc_vmstat from the text of
 * /proc/vmstat (@len bytes, need not be NUL-terminated). A counter whose line
 * is absent or garbage keeps its valid bit clear; allocstall is the sum of
 * "allocstall" (kernels before 4.8) and every "allocstall_<zone>" line, and
 * is n/a when any of those lines is garbage. Return: the number of counters
 * found.
 */
int lsc__vmstat_parse(const char *text, size_t len, struct lsc_vmstat *out);

/* Where the counters lie in the text: how many lines named one, and the
 * offset just past the last of them. */
struct lsc__vmstat_span {
	unsigned lines;
	size_t end;
};

/* lsc__vmstat_parse_at - lsc__vmstat_parse, also filling @at (NULL allowed). */
int lsc__vmstat_parse_at(const char *text, size_t len, struct lsc_vmstat *out,
			 struct lsc__vmstat_span *at);

/* What a span reads from /proc/self/status at its end. */
struct lsc__status {
	int64_t rss_kib;       /* VmRSS; -1 n/a */
	int64_t lck_kib;       /* VmLck; -1 n/a */
	int64_t pin_kib;       /* VmPin; -1 n/a */
	char thp_enabled[24];  /* THP_enabled ("1"/"0"); "" n/a (before 4.19-era kernels) */
	int cap_ipc_lock;      /* CapEff has CAP_IPC_LOCK (mlock ignores RLIMIT_MEMLOCK); -1 n/a */
};

/*
 * lsc__status_read - read <proc_root>/self/status (NULL: "/proc") into @out.
 * Allocates nothing. Fields that are missing or garbage are -1 / "".
 * Return: 0, or a negative errno when the file cannot be read (all fields
 * n/a then).
 */
int lsc__status_read(const char *proc_root, struct lsc__status *out);

/* lsc__status_parse - the same from text already read (NUL-terminated). */
void lsc__status_parse(const char *text, struct lsc__status *out);

/* /proc/pressure/memory's stall totals (us since boot); -1 n/a. */
struct lsc__psi {
	int64_t some_us; /* some task stalled on memory */
	int64_t full_us; /* every non-idle task stalled at once */
};

/*
 * lsc__psi_parse - the `total=` of the "some" and "full" lines of
 * /proc/pressure/memory (@len bytes, need not be NUL-terminated); a line
 * that is absent or garbage leaves its field -1. Return: 0, or -EINVAL when
 * "some" is n/a.
 */
int lsc__psi_parse(const char *text, size_t len, struct lsc__psi *out);

/*
 * lsc__psi_read - read <proc_root>/pressure/memory (NULL: "/proc") into
 * @out without allocating. Return: 0, or a negative errno (-ENOENT without
 * PSI, -EOPNOTSUPP under psi=0, -EINVAL for garbage); the fields are -1 then.
 */
int lsc__psi_read(const char *proc_root, struct lsc__psi *out);

/*
 * lsc__region_read_root - lsc_region_read with the proc root given directly
 * (NULL: "/proc"); lsc_region_read takes it from the profiler.
 */
int lsc__region_read_root(const char *proc_root, const void *addr, size_t len,
			  struct lsc_region_info *out);

/*
 * lsc__region_writable - whether every byte of [addr, addr+len) is in a
 * mapping of this process that allows writing (/proc/self/maps, this
 * process's own whatever the proc root: it is about its memory, not the
 * host). 0 yes; -EFAULT no, with the first address that is not in *bad
 * (in a hole, or in a mapping without write); another negative errno when
 * the maps cannot be read (the answer is unknown).
 */
int lsc__region_writable(const void *addr, size_t len, uintptr_t *bad);

#endif
