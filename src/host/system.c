/*
 * The system snapshot: the memory settings that decide how a large pinned
 * arena behaves, read once per start (struct lsc_system in profiler.h).
 *
 * Every value is read on its own and every failure is local: a container
 * without /sys/kernel/mm/transparent_hugepage, an old kernel without
 * hpage_pmd_size, a truncated file, all leave that field "" or LSC_NA and the
 * rest of the snapshot intact. Nothing is ever written to /sys.
 *
 * No heap allocation of our own; the two directory scans (mTHP sizes, NUMA
 * nodes) go through opendir(), which allocates inside libc. That is accepted
 * here because the snapshot is taken once per start, never on the span path.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#include "host/procfs.h"

/* 6.18 added "THP only where advised" to PR_SET_THP_DISABLE; older headers
 * lack the bit that PR_GET_THP_DISABLE reports for it. */
#ifndef PR_THP_DISABLE_EXCEPT_ADVISED
#define PR_THP_DISABLE_EXCEPT_ADVISED (1 << 1)
#endif

#define THP_DIR "kernel/mm/transparent_hugepage"
#define SMALL_BUF 256    /* a sysfs value */
#define MEMINFO_BUF 8192 /* /proc/meminfo is ~1.5 KiB */
#define BUDDY_BUF 16384  /* one ~100-byte row per node and zone */
#define DEFAULT_HUGE_ORDER 9 /* 2 MiB on 4 KiB pages, when hpage_pmd_size is n/a */

LSC_API const char *lsc_thp_disable_name(int64_t bits)
{
	if (bits == LSC_NA || bits < 0)
		return "n/a";
	if (!(bits & 1))
		return "allowed";
	return bits & PR_THP_DISABLE_EXCEPT_ADVISED ? "disabled-except-advised" : "disabled";
}

/* The bracketed choice of <root>/<rel>, or "" when unreadable or garbage. */
static void read_choice(const char *root, const char *rel, char *out, size_t cap)
{
	char buf[SMALL_BUF];
	int truncated;

	out[0] = '\0';
	if (lsc__read_file(root, rel, buf, sizeof(buf), &truncated) < 0 || truncated)
		return;
	lsc__sysfs_choice(buf, out, cap);
}

/* A file holding one decimal number, or LSC_NA. */
static int64_t read_number(const char *root, const char *rel)
{
	char buf[SMALL_BUF];
	int64_t v;
	ssize_t n;
	int truncated;

	n = lsc__read_file(root, rel, buf, sizeof(buf), &truncated);
	if (n < 0 || truncated || lsc__parse_i64(buf, buf + n, &v) < 0)
		return LSC_NA;
	return v;
}

/* One token of printable characters, e.g. "6.18.44-fc-v782". */
static void copy_release(const char *text, char *out, size_t cap)
{
	size_t n = 0;

	out[0] = '\0';
	while (text[n] > ' ' && text[n] < 0x7f)
		n++;
	if (n == 0 || n >= cap || (text[n] && text[n] != '\n'))
		return;
	if (text[n] == '\n' && text[n + 1])
		return; /* more than one line */
	memcpy(out, text, n);
	out[n] = '\0';
}

/* The kernel is the running one, except under a fixture root: a copied tree
 * carries its own release in sys/kernel/osrelease. */
static void read_kernel(const char *proc_root, struct lsc_system *s)
{
	char buf[SMALL_BUF];
	struct utsname u;
	int truncated;

	s->kernel[0] = '\0';
	if (!strcmp(proc_root, "/proc")) {
		if (uname(&u) == 0)
			copy_release(u.release, s->kernel, sizeof(s->kernel));
		return;
	}
	if (lsc__read_file(proc_root, "sys/kernel/osrelease", buf, sizeof(buf), &truncated) >= 0 &&
	    !truncated)
		copy_release(buf, s->kernel, sizeof(s->kernel));
}

/* A decimal number at *p, advancing past it; -1 without a digit. */
static int release_number(const char **p)
{
	int v = -1;
	while (**p >= '0' && **p <= '9' && v < 100000)
		v = (v < 0 ? 0 : v * 10) + (*(*p)++ - '0');
	return v;
}

int lsc__kernel_at_least(const char *proc_root, int maj, int min)
{
	char buf[SMALL_BUF];
	int truncated;
	if (lsc__read_file(proc_root ? proc_root : "/proc", "sys/kernel/osrelease", buf, sizeof(buf),
			   &truncated) < 0)
		return 0;
	const char *p = buf;
	int a = release_number(&p);
	if (a < 0 || *p++ != '.')
		return 0;
	int b = release_number(&p);
	return b >= 0 && (a > maj || (a == maj && b >= min));
}

static void read_thp(const char *sys_root, struct lsc_system *s)
{
	read_choice(sys_root, THP_DIR "/enabled", s->thp_enabled, sizeof(s->thp_enabled));
	read_choice(sys_root, THP_DIR "/defrag", s->thp_defrag, sizeof(s->thp_defrag));
	read_choice(sys_root, THP_DIR "/shmem_enabled", s->thp_shmem_enabled,
		    sizeof(s->thp_shmem_enabled));
	s->khugepaged_defrag = read_number(sys_root, THP_DIR "/khugepaged/defrag");
	s->khugepaged_max_ptes_none = read_number(sys_root, THP_DIR "/khugepaged/max_ptes_none");
	s->hpage_pmd_size = read_number(sys_root, THP_DIR "/hpage_pmd_size");
	if (s->hpage_pmd_size != LSC_NA && s->hpage_pmd_size <= 0)
		s->hpage_pmd_size = LSC_NA;
}

/* A non-empty run of decimal digits, nothing else, that fits: 0 and *@v. */
static int parse_digits(const char *p, const char *end, int64_t *v)
{
	for (const char *q = p; q < end; q++)
		if (*q < '0' || *q > '9')
			return -EINVAL;
	return lsc__parse_i64(p, end, v);
}

/* "hugepages-2048kB" -> 2048; 0 for any other name. */
static uint32_t mthp_size_kib(const char *name)
{
	static const char pre[] = "hugepages-";
	size_t n = strlen(name);
	int64_t v;

	if (n < sizeof(pre) - 1 + 2 || strncmp(name, pre, sizeof(pre) - 1) ||
	    strcmp(name + n - 2, "kB"))
		return 0;
	if (parse_digits(name + sizeof(pre) - 1, name + n - 2, &v) < 0 || v <= 0 || v > UINT32_MAX)
		return 0;
	return (uint32_t)v;
}

/* Insert by size; past LSC_MTHP_MAX the largest sizes are dropped. */
static void mthp_insert(struct lsc_system *s, uint32_t kib, const char *enabled)
{
	unsigned i = s->n_mthp;

	if (i == LSC_MTHP_MAX) {
		if (kib >= s->mthp[i - 1].size_kib)
			return;
		i--;
	} else {
		s->n_mthp++;
	}
	for (; i > 0 && s->mthp[i - 1].size_kib > kib; i--)
		s->mthp[i] = s->mthp[i - 1];
	s->mthp[i].size_kib = kib;
	snprintf(s->mthp[i].enabled, sizeof(s->mthp[i].enabled), "%s", enabled);
}

/* Multi-size THP (6.8+): one hugepages-<size>kB directory per size. A size
 * without an "enabled" file (hugepages-8kB on x86: order 1 is not offered
 * for anonymous memory) is not a setting and is skipped. */
static void read_mthp(const char *sys_root, struct lsc_system *s)
{
	char dir[LSC__PATH_MAX], rel[128], enabled[24];
	struct dirent *e;
	DIR *d;

	s->n_mthp = 0;
	if (lsc__path(dir, sizeof(dir), sys_root, THP_DIR) < 0 || !(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		uint32_t kib = mthp_size_kib(e->d_name);

		if (!kib)
			continue;
		snprintf(rel, sizeof(rel), THP_DIR "/hugepages-%ukB/enabled", (unsigned)kib);
		read_choice(sys_root, rel, enabled, sizeof(enabled));
		if (enabled[0])
			mthp_insert(s, kib, enabled);
	}
	closedir(d);
}

static int64_t kib_to_bytes(int64_t kib)
{
	return kib < 0 || kib > INT64_MAX / 1024 ? LSC_NA : kib * 1024;
}

static int64_t meminfo_bytes(const char *text, const char *key)
{
	int64_t v;

	return lsc__kv_kib(text, key, &v) < 0 ? LSC_NA : kib_to_bytes(v);
}

/* HugePages_Total and friends are page counts: no unit. */
static int64_t meminfo_count(const char *text, const char *key)
{
	int64_t v;
	int kib;

	if (lsc__kv_i64(text, key, &v, &kib) < 0 || kib || v < 0)
		return LSC_NA;
	return v;
}

static void read_meminfo(const char *proc_root, struct lsc_system *s)
{
	char buf[MEMINFO_BUF];
	int64_t v;

	if (lsc__read_lines(proc_root, "meminfo", buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	s->mem_total = meminfo_bytes(buf, "MemTotal");
	s->mem_available = meminfo_bytes(buf, "MemAvailable");
	s->swap_total = meminfo_bytes(buf, "SwapTotal");
	s->swap_free = meminfo_bytes(buf, "SwapFree");
	s->hugetlb_total = meminfo_count(buf, "HugePages_Total");
	s->hugetlb_free = meminfo_count(buf, "HugePages_Free");
	s->hugetlb_rsvd = meminfo_count(buf, "HugePages_Rsvd");
	s->hugetlb_page_kib = lsc__kv_kib(buf, "Hugepagesize", &v) < 0 || v == 0 ? LSC_NA : v;
}

/* The buddy order of a huge page: log2(hpage_pmd_size / page size). */
static unsigned huge_order(int64_t hpage, long page)
{
	unsigned order = 0;

	if (hpage == LSC_NA || page <= 0 || hpage < page || hpage % page)
		return DEFAULT_HUGE_ORDER;
	for (int64_t pages = hpage / page; pages > 1; pages >>= 1)
		order++;
	return ((int64_t)page << order) == hpage ? order : DEFAULT_HUGE_ORDER;
}

static void read_buddy(const char *proc_root, struct lsc_system *s)
{
	char buf[BUDDY_BUF];
	long page = sysconf(_SC_PAGESIZE);
	int truncated;
	int64_t v;

	s->free_huge_blocks_bytes = LSC_NA;
	/* A cut file would undercount: all of it or n/a. */
	if (lsc__read_file(proc_root, "buddyinfo", buf, sizeof(buf), &truncated) < 0 || truncated)
		return;
	v = lsc__buddy_free_bytes(buf, huge_order(s->hpage_pmd_size, page), page);
	if (v >= 0)
		s->free_huge_blocks_bytes = v;
}

static int is_node_name(const char *name)
{
	int64_t v;

	return !strncmp(name, "node", 4) && parse_digits(name + 4, name + strlen(name), &v) == 0;
}

static void read_numa(const char *sys_root, struct lsc_system *s)
{
	char dir[LSC__PATH_MAX];
	struct dirent *e;
	int64_t n = 0;
	DIR *d;

	s->numa_nodes = LSC_NA;
	if (lsc__path(dir, sizeof(dir), sys_root, "devices/system/node") < 0 || !(d = opendir(dir)))
		return;
	while ((e = readdir(d)))
		n += is_node_name(e->d_name);
	closedir(d);
	if (n > 0)
		s->numa_nodes = n;
}

/* Free page reporting: a virtio-balloon device with VIRTIO_BALLOON_F_REPORTING
 * (feature bit 5, the features file is one '0'/'1' per bit) gets every free
 * block of page_reporting_order and up that stays free for about two
 * seconds, and the host drops its backing; the first touch of such memory
 * faults it in again in the host. On the build VM (docs/benchmarks.md) a
 * huge-page fault into a block freed 3 s before ran at 0.60 GiB/s, into one
 * freed a moment before at 15.2 GiB/s; 4 KiB pages populated quickly and
 * paid the same price at their first access instead. */
#define VIRTIO_ID_BALLOON 5
#define VIRTIO_BALLOON_F_REPORTING 5

static void read_page_reporting(const char *sys_root, struct lsc_system *s)
{
	char dir[LSC__PATH_MAX], rel[LSC__PATH_MAX], buf[SMALL_BUF];
	struct dirent *e;
	DIR *d;

	s->page_reporting = LSC_NA;
	s->page_reporting_order = LSC_NA;
	if (lsc__path(dir, sizeof(dir), sys_root, "bus") < 0 || !(d = opendir(dir)))
		return;
	closedir(d);
	s->page_reporting = 0;
	if (lsc__path(dir, sizeof(dir), sys_root, "bus/virtio/devices") < 0 || !(d = opendir(dir)))
		return; /* no virtio bus: nothing reports */
	while ((e = readdir(d)) && s->page_reporting == 0) {
		int64_t id;
		ssize_t n;
		if (e->d_name[0] == '.' || strlen(e->d_name) > 64)
			continue;
		snprintf(rel, sizeof(rel), "bus/virtio/devices/%s/device", e->d_name);
		n = lsc__read_file(sys_root, rel, buf, sizeof(buf), NULL);
		/* "0x0005\n" */
		if (n < 3 || buf[0] != '0' || buf[1] != 'x')
			continue;
		id = strtoll(buf + 2, NULL, 16);
		if (id != VIRTIO_ID_BALLOON)
			continue;
		snprintf(rel, sizeof(rel), "bus/virtio/devices/%s/features", e->d_name);
		n = lsc__read_file(sys_root, rel, buf, sizeof(buf), NULL);
		if (n > VIRTIO_BALLOON_F_REPORTING && buf[VIRTIO_BALLOON_F_REPORTING] == '1')
			s->page_reporting = 1;
	}
	closedir(d);
	if (s->page_reporting == 1)
		s->page_reporting_order =
			read_number(sys_root, "module/page_reporting/parameters/page_reporting_order");
}

static int64_t rlim_value(rlim_t v)
{
	return v == RLIM_INFINITY || v > (rlim_t)INT64_MAX ? LSC_UNLIMITED : (int64_t)v;
}

/* CAP_IPC_LOCK in the effective set, from the kernel rather than a file:
 * like the rlimit it is the calling process's own, whatever the root. */
static int64_t cap_ipc_lock(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d) != 0)
		return LSC_NA;
	return (d[CAP_IPC_LOCK / 32].effective >> (CAP_IPC_LOCK % 32)) & 1u;
}

static int sys_getrlimit(int resource, struct rlimit *rl)
{
	return getrlimit((__rlimit_resource_t)resource, rl);
}

static const struct lsc__system_sys sys_default = {.getrlimit = sys_getrlimit};
static const struct lsc__system_sys *sys = &sys_default;

void lsc__system_sys_set(const struct lsc__system_sys *s)
{
	sys = s ? s : &sys_default;
}

/* What belongs to this process rather than to a root: the prctl bits, the
 * memlock limit, and THP_enabled of its status under the proc root. */
static void read_process(const char *proc_root, struct lsc_system *s)
{
	struct lsc__status st;
	struct rlimit rl;
	int bits = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);

	s->prctl_thp_disable = bits < 0 ? LSC_NA : bits;
	if (sys->getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
		s->memlock_cur = rlim_value(rl.rlim_cur);
		s->memlock_max = rlim_value(rl.rlim_max);
	} else {
		s->memlock_cur = s->memlock_max = LSC_NA;
	}
	s->cap_ipc_lock = cap_ipc_lock();
	lsc__status_read(proc_root, &st);
	snprintf(s->proc_thp_enabled, sizeof(s->proc_thp_enabled), "%s", st.thp_enabled);
}

LSC_API int lsc_system_read(const char *proc_root, const char *sys_root, struct lsc_system *out)
{
	if (!out)
		return -EINVAL;
	if (!proc_root)
		proc_root = "/proc";
	if (!sys_root)
		sys_root = "/sys";
	memset(out, 0, sizeof(*out));
	read_kernel(proc_root, out);
	read_thp(sys_root, out);
	read_mthp(sys_root, out);
	read_meminfo(proc_root, out);
	read_buddy(proc_root, out); /* after read_thp: needs hpage_pmd_size */
	read_numa(sys_root, out);
	read_page_reporting(sys_root, out);
	read_process(proc_root, out);
	return 0;
}
