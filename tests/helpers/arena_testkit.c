/*
 * The arena tests' kit: see arena_testkit.h. Reads the real /proc of the
 * test process; the failing syscall table wraps the real calls.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arena_testkit.h"
#include "format/line.h"
#include "loader/sys.h"

void atk_sink(void *user, const char *line, size_t len)
{
	struct atk_cap *c = user;
	if (c->len + len + 1 < sizeof c->buf) {
		memcpy(c->buf + c->len, line, len);
		c->len += len;
		c->buf[c->len] = '\0';
	}
	c->lines++;
	if (getenv("ATK_ECHO"))
		fwrite(line, 1, len, stderr);
}

lsc_profiler *atk_profiler(struct atk_cap *c)
{
	struct lsc_profiler_options o;
	lsc_profiler *p = NULL;

	memset(c, 0, sizeof *c);
	lsc_profiler_options_init(&o);
	o.sink = atk_sink;
	o.sink_user = c;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV | LSC_PROFILER_NO_WATCHDOG;
	if (lsc_profiler_create(&o, &p) < 0)
		return NULL;
	return p;
}

unsigned atk_count(const struct atk_cap *c, const char *event, const char *needle)
{
	unsigned n = 0;
	char tag[64];
	snprintf(tag, sizeof tag, "[loadscope/1] %s ", event);
	for (const char *l = c->buf; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		char line[4096];
		if (len >= sizeof line)
			len = sizeof line - 1;
		memcpy(line, l, len);
		line[len] = '\0';
		if (strstr(line, tag) && (!needle || strstr(line, needle)))
			n++;
		l += len + (e ? 1 : 0);
	}
	return n;
}

int atk_field(const struct atk_cap *c, const char *event, const char *key, char *out,
	      size_t out_len)
{
	static char line[LSC__LINE_MAX + 1];
	static struct lsc__parsed parsed;
	for (const char *l = c->buf; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		const char *next = l + len + (e ? 1 : 0);
		if (len <= LSC__LINE_MAX) {
			memcpy(line, l, len);
			line[len] = '\0';
			if (lsc__line_parse(line, len, &parsed) == 1 && strcmp(parsed.event, event) == 0) {
				const char *v = lsc__parsed_get(&parsed, key);
				if (!v)
					return 0;
				snprintf(out, out_len, "%s", v);
				return 1;
			}
		}
		l = next;
	}
	return 0;
}

int atk_vma_read(const void *addr, size_t len, struct atk_vma *out)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	uintptr_t lo = (uintptr_t)addr, hi = lo + len, next = lo;
	int in = 0;

	memset(out, 0, sizeof *out);
	out->all_hg = out->all_nh = 1;
	out->contiguous = 1;
	if (!f)
		return -errno;
	while (fgets(line, sizeof line, f)) {
		uintptr_t a, b;
		unsigned long long kib;
		/* A header "lo-hi perms ..."; field names never parse as hex-hex. */
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &a, &b) == 2) {
			in = a < hi && b > lo;
			if (in) {
				if (a > next)
					out->contiguous = 0;
				next = b;
				out->mappings++;
				out->bytes += b - a;
			}
			continue;
		}
		if (!in)
			continue;
		if (sscanf(line, "Rss: %llu kB", &kib) == 1)
			out->rss_bytes += kib << 10;
		else if (sscanf(line, "AnonHugePages: %llu kB", &kib) == 1)
			out->anon_huge_bytes += kib << 10;
		else if (sscanf(line, "Locked: %llu kB", &kib) == 1)
			out->locked_bytes += kib << 10;
		else if (strncmp(line, "VmFlags:", 8) == 0) {
			int hg = strstr(line, " hg") != NULL, nh = strstr(line, " nh") != NULL;
			out->all_hg &= hg;
			out->all_nh &= nh;
			out->any_hg |= hg;
			out->any_nh |= nh;
		}
	}
	fclose(f);
	if (next < hi)
		out->contiguous = 0;
	if (!out->mappings)
		out->all_hg = out->all_nh = out->contiguous = 0;
	return 0;
}

int64_t atk_rss_bytes(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long long kib = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "VmRSS: %lld kB", &kib) == 1)
			break;
	fclose(f);
	return kib < 0 ? -1 : (int64_t)kib << 10;
}

/* ---- the failing syscall table -------------------------------------------- */

static unsigned calls[ATK_OP_COUNT];
static enum atk_op fail_op;
static unsigned fail_nth;
static int fail_err;
char atk_trace[4096];

static void trace(const char *fmt, ...)
{
	size_t n = strlen(atk_trace);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(atk_trace + n, sizeof atk_trace - n, fmt, ap);
	va_end(ap);
}

static int should_fail(enum atk_op op)
{
	unsigned n = __atomic_add_fetch(&calls[op], 1, __ATOMIC_SEQ_CST);
	if (op == fail_op && fail_nth && n == fail_nth) {
		errno = fail_err;
		return 1;
	}
	return 0;
}

static struct {
	uintptr_t lo, hi;
} ranges[256];
static unsigned n_ranges;

static void *t_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (should_fail(ATK_MMAP))
		return (void *)-1;
	void *m = lsc__sys_default.mmap(addr, len, prot, flags, fd, off);
	if (m != (void *)-1 && n_ranges < 256) {
		ranges[n_ranges].lo = (uintptr_t)m;
		ranges[n_ranges++].hi = (uintptr_t)m + len;
	}
	return m;
}

unsigned atk_sys_leaked(void)
{
	static char buf[1 << 20];
	size_t len = 0;
	ssize_t got;
	unsigned leaked = 0;
	int fd = open("/proc/self/maps", O_RDONLY);
	if (fd < 0)
		return 0;
	while (len < sizeof buf - 1 && (got = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
		len += (size_t)got;
	close(fd);
	buf[len] = '\0';
	for (unsigned i = 0; i < n_ranges; i++) {
		for (char *l = buf; *l;) {
			uintptr_t a = (uintptr_t)strtoull(l, &l, 16), b = 0;
			if (*l == '-')
				b = (uintptr_t)strtoull(l + 1, &l, 16);
			if (a < ranges[i].hi && b > ranges[i].lo) {
				leaked++;
				break;
			}
			char *e = strchr(l, '\n');
			if (!e)
				break;
			l = e + 1;
		}
	}
	return leaked;
}

static int t_munmap(void *addr, size_t len)
{
	if (should_fail(ATK_MUNMAP))
		return -1;
	return lsc__sys_default.munmap(addr, len);
}

static int t_madvise(void *addr, size_t len, int advice)
{
	trace("madvise:%d ", advice);
	if (should_fail(ATK_MADVISE))
		return -1;
	return lsc__sys_default.madvise(addr, len, advice);
}

static int t_mlock(const void *addr, size_t len)
{
	if (should_fail(ATK_MLOCK))
		return -1;
	return lsc__sys_default.mlock(addr, len);
}

static int t_prctl(int op, unsigned long a2, unsigned long a3, unsigned long a4, unsigned long a5)
{
	trace("prctl:%d:%lu:%lu ", op, a2, a3);
	if (should_fail(ATK_PRCTL))
		return -1;
	return lsc__sys_default.prctl(op, a2, a3, a4, a5);
}

static struct lsc__sys table;

void atk_sys_fail(enum atk_op op, unsigned nth, int err)
{
	memset(calls, 0, sizeof calls);
	n_ranges = 0;
	atk_trace[0] = '\0';
	fail_op = op;
	fail_nth = nth;
	fail_err = err;
	table = lsc__sys_default;
	table.mmap = t_mmap;
	table.munmap = t_munmap;
	table.madvise = t_madvise;
	table.mlock = t_mlock;
	table.prctl = t_prctl;
	lsc__sys_set(&table);
}

void atk_sys_restore(void)
{
	lsc__sys_set(NULL);
}

unsigned atk_sys_calls(enum atk_op op)
{
	return calls[op];
}

int atk_drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	d[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
	if (syscall(SYS_capset, &h, d) < 0)
		return -errno;
	return 0;
}
