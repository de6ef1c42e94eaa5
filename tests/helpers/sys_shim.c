/*
 * The failing syscall table: see sys_shim.h. Each hook counts its call
 * first (atomically: the loader calls some hooks from its reader threads),
 * then does what the plan says or the real call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/sys_shim.h"
#include "sys/sys.h"

static unsigned calls[LSCT_SYS_OP_COUNT];
static struct lsct_sys_plan plan;
static long long mapped;
char lsct_sys_trace[4096];

static struct {
	uintptr_t lo, hi;
} ranges[256];
static unsigned n_ranges;

static void trace(const char *fmt, ...)
{
	size_t n = strlen(lsct_sys_trace);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(lsct_sys_trace + n, sizeof lsct_sys_trace - n, fmt, ap);
	va_end(ap);
}

/* Count the call; 1 when the plan fails it (errno set for LSCT_SYS_ERR). */
static int should_fail(enum lsct_sys_op op)
{
	unsigned n = __atomic_add_fetch(&calls[op], 1, __ATOMIC_SEQ_CST);
	if (op != plan.op || !plan.nth || (plan.every ? n < plan.nth : n != plan.nth))
		return 0;
	errno = plan.err;
	return 1;
}

static void *t_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	int planned = should_fail(LSCT_SYS_MMAP);
	if (planned && plan.how == LSCT_SYS_ELSEWHERE) {
		addr = NULL;
		flags &= ~MAP_FIXED;
	} else if (planned || (plan.mmap_len && len == plan.mmap_len)) {
		errno = plan.err;
		return MAP_FAILED;
	}
	void *m = lsc__sys_default.mmap(addr, len, prot, flags, fd, off);
	if (m == MAP_FAILED)
		return m;
	if (n_ranges < 256) {
		ranges[n_ranges].lo = (uintptr_t)m;
		ranges[n_ranges++].hi = (uintptr_t)m + len;
	}
	if (!(flags & MAP_FIXED))
		__atomic_add_fetch(&mapped, (long long)len, __ATOMIC_SEQ_CST);
	return m;
}

static int t_munmap(void *addr, size_t len)
{
	if (should_fail(LSCT_SYS_MUNMAP))
		return -1;
	__atomic_sub_fetch(&mapped, (long long)len, __ATOMIC_SEQ_CST);
	return lsc__sys_default.munmap(addr, len);
}

struct lsct_madvise lsct_sys_madv[LSCT_MADV_MAX];
static unsigned n_madv;

static int t_madvise(void *addr, size_t len, int advice)
{
	trace("madvise:%d ", advice);
	/* The prefault threads call it too: a slot each, in call order. */
	unsigned i = __atomic_fetch_add(&n_madv, 1, __ATOMIC_SEQ_CST);
	if (i < LSCT_MADV_MAX)
		lsct_sys_madv[i] = (struct lsct_madvise){.addr = addr, .len = len, .advice = advice};
	if (should_fail(LSCT_SYS_MADVISE))
		return -1;
	return lsc__sys_default.madvise(addr, len, advice);
}

static int t_mlock(const void *addr, size_t len)
{
	if (should_fail(LSCT_SYS_MLOCK))
		return -1;
	return lsc__sys_default.mlock(addr, len);
}

static int t_prctl(int op, unsigned long a2, unsigned long a3, unsigned long a4, unsigned long a5)
{
	trace("prctl:%d:%lu:%lu ", op, a2, a3);
	if (should_fail(LSCT_SYS_PRCTL))
		return -1;
	return lsc__sys_default.prctl(op, a2, a3, a4, a5);
}

static ssize_t t_pread(int fd, void *buf, size_t len, off_t off)
{
	int direct = (plan.direct & (LSCT_DIRECT_NO_READ | LSCT_DIRECT_ALIGNED)) &&
		     (fcntl(fd, F_GETFL) & O_DIRECT);
	if (direct && ((plan.direct & LSCT_DIRECT_NO_READ) || ((off | (off_t)len) & 4095))) {
		errno = EINVAL;
		return -1;
	}
	if (should_fail(LSCT_SYS_PREAD)) {
		if (plan.how == LSCT_SYS_ZERO)
			return 0;
		if (plan.how == LSCT_SYS_SHORT)
			return lsc__sys_default.pread(fd, buf, len > 1000 ? 1000 : len, off);
		return -1;
	}
	return lsc__sys_default.pread(fd, buf, len, off);
}

static int t_open(const char *path, int flags, int mode)
{
	if (should_fail(LSCT_SYS_OPEN))
		return -1;
	if ((plan.direct & LSCT_DIRECT_NO_OPEN) && (flags & O_DIRECT)) {
		errno = EINVAL;
		return -1;
	}
	return lsc__sys_default.open(path, flags, mode);
}

static int t_fstat(int fd, struct stat *st)
{
	int ret = lsc__sys_default.fstat(fd, st);
	int saved = errno;
	if (!should_fail(LSCT_SYS_FSTAT)) {
		errno = saved;
		return ret;
	}
	if (plan.how == LSCT_SYS_SHORT) { /* the file "changed": a later mtime */
		errno = saved;
		st->st_mtim.tv_sec += 1;
		return ret;
	}
	return -1;
}

unsigned lsct_sys_leaked(void)
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

static struct lsc__sys table;

void lsct_sys_install(const struct lsct_sys_plan *p)
{
	memset(calls, 0, sizeof calls);
	n_ranges = 0;
	mapped = 0;
	lsct_sys_trace[0] = '\0';
	n_madv = 0;
	if (p)
		plan = *p;
	else
		memset(&plan, 0, sizeof plan);
	table = lsc__sys_default;
	table.mmap = t_mmap;
	table.munmap = t_munmap;
	table.madvise = t_madvise;
	table.mlock = t_mlock;
	table.prctl = t_prctl;
	table.pread = t_pread;
	table.open = t_open;
	table.fstat = t_fstat;
	lsc__sys_set(&table);
}

void lsct_sys_fail(enum lsct_sys_op op, unsigned nth, int err)
{
	lsct_sys_install(&(struct lsct_sys_plan){.op = op, .nth = nth, .err = err});
}

void lsct_sys_restore(void)
{
	lsc__sys_set(NULL);
}

unsigned lsct_sys_calls(enum lsct_sys_op op)
{
	return calls[op];
}

long long lsct_sys_mapped(void)
{
	return __atomic_load_n(&mapped, __ATOMIC_SEQ_CST);
}

unsigned lsct_sys_madvised(int advice, struct lsct_madvise *out, unsigned cap)
{
	unsigned n = __atomic_load_n(&n_madv, __ATOMIC_SEQ_CST), k = 0;
	if (n > LSCT_MADV_MAX)
		n = LSCT_MADV_MAX;
	for (unsigned i = 0; i < n; i++)
		if (lsct_sys_madv[i].advice == advice) {
			if (k < cap)
				out[k] = lsct_sys_madv[i];
			k++;
		}
	return k;
}
