/*
 * The memory this process may still take (mem_room.h): MemAvailable, and
 * the memory cgroup limits at every level from this process's cgroup up to
 * the root of the hierarchy it can see.
 *
 * Where a hierarchy is: /proc/self/cgroup names the process's cgroup in
 * each one ("0::/a/b" for v2, "4:memory:/a/b" for v1's memory controller),
 * and /proc/self/mountinfo says where it is mounted and which cgroup is
 * the mount's root: a container without a cgroup namespace (docker on v1)
 * sees "/docker/<id>" in /proc/self/cgroup, while its /sys/fs/cgroup/memory
 * is that cgroup already, so the mount's root is cut off the path. A mount
 * point under /sys is read under the sys root, so that a fixture tree holds
 * the whole hierarchy; where mountinfo cannot be read, the usual places
 * (/sys/fs/cgroup for v2, /sys/fs/cgroup/memory for v1) are tried.
 *
 * Why the file cache is not counted as used: a cgroup at its limit reclaims
 * its own page cache before its OOM killer runs, and a load's files are
 * mostly cache (in a 512 MiB cgroup a 448 MiB load, whose file's cache was
 * charged there, filled the cgroup to its limit and loaded, every time:
 * docs/reliability.md). An engine restarted in the same container finds its
 * model in the cache, active; counting that cache as used would refuse the
 * load that fits. What the kernel cannot take back (anonymous memory,
 * shmem, kernel memory, pages under read I/O) stays used or is the guard's
 * reserve.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <loadscope/profiler.h>

#include "host/mem_room.h"
#include "host/procfs.h"

#define MOUNTINFO_MAX (256 * 1024) /* a host with thousands of mounts; cut past it */
#define CGROUP_TEXT 8192           /* /proc/self/cgroup: one line per hierarchy */
#define STAT_TEXT 8192             /* memory.stat: about 1.5 KiB in v1 and v2 */
#define DIR_MAX 1024
#define V1_UNLIMITED (1ll << 62)   /* v1 prints PAGE_COUNTER_MAX pages: 2^63 - 4096 on 4 KiB pages */
#define MEMINFO_TEXT 8192

struct work {
	char mountinfo[MOUNTINFO_MAX];
	int have_mountinfo;
	char cgroup[CGROUP_TEXT];
	char stat[STAT_TEXT];
	char line[STAT_TEXT];
	char dir[DIR_MAX];
	char name[DIR_MAX];
	char root[DIR_MAX], point[DIR_MAX];
};

static const char *const src_names[LSC__MEM_SRC_COUNT] = {
	[LSC__MEM_AVAILABLE] = "MemAvailable",
	[LSC__MEM_CG2_MAX] = "memory.max",
	[LSC__MEM_CG2_HIGH] = "memory.high",
	[LSC__MEM_CG1_LIMIT] = "memory.limit_in_bytes",
};

static const char *const src_whats[LSC__MEM_SRC_COUNT] = {
	[LSC__MEM_AVAILABLE] = "MemAvailable",
	[LSC__MEM_CG2_MAX] = "cgroup v2 memory.max",
	[LSC__MEM_CG2_HIGH] = "cgroup v2 memory.high",
	[LSC__MEM_CG1_LIMIT] = "cgroup v1 memory.limit_in_bytes",
};

const char *lsc__mem_src_name(int src)
{
	return src >= 0 && src < LSC__MEM_SRC_COUNT ? src_names[src] : "?";
}

const char *lsc__mem_src_what(int src)
{
	return src >= 0 && src < LSC__MEM_SRC_COUNT ? src_whats[src] : "?";
}

/* Keep @room for bound @src when it is tighter than what was kept. */
static void offer(struct lsc__mem_room *m, int src, int64_t limit, int64_t used, const char *name)
{
	struct lsc__mem_bound *b = &m->b[src];
	int64_t room = limit > used ? limit - used : 0;
	if (b->room >= 0 && b->room <= room)
		return;
	b->room = room;
	b->limit = limit;
	b->used = used;
	size_t n = strlen(name);
	if (n >= sizeof b->cgroup) /* cut, and marked so: "/kubepods/burst..." */
		n = sizeof b->cgroup - 4;
	memcpy(b->cgroup, name, n);
	strcpy(b->cgroup + n, name[n] ? "..." : "");
}

static void read_meminfo(const char *proc_root, struct lsc__mem_room *m)
{
	char buf[MEMINFO_TEXT];
	int64_t avail, total;
	if (lsc__read_lines(proc_root, "meminfo", buf, sizeof buf) < 0 ||
	    lsc__kv_kib(buf, "MemAvailable", &avail) < 0 || avail > INT64_MAX / 1024)
		return;
	avail *= 1024;
	if (lsc__kv_kib(buf, "MemTotal", &total) < 0 || total > INT64_MAX / 1024 || total * 1024 < avail)
		total = avail; /* MemTotal n/a: nothing known of the used part */
	else
		total *= 1024;
	offer(m, LSC__MEM_AVAILABLE, total, total - avail, "");
}

/* A cgroup file of one number, or "max" (v2: no limit). 0 and *@v, 1 for
 * "max" (@allow_max), or a negative errno. */
static int read_value(const char *dir, const char *file, int allow_max, int64_t *v)
{
	char buf[64];
	int truncated;
	ssize_t n = lsc__read_file(dir, file, buf, sizeof buf, &truncated);
	if (n < 0)
		return (int)n;
	if (truncated)
		return -EINVAL;
	if (allow_max && !strcmp(buf, "max\n"))
		return 1;
	int ret = lsc__parse_i64(buf, buf + n, v);
	return ret < 0 ? ret : *v < 0 ? -EINVAL : 0;
}

/* "key value" in memory.stat: the value, or -1 without such a line. */
static int64_t stat_value(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, key, kl) || l[kl] != ' ')
			continue;
		const char *end = strchr(l, '\n');
		int64_t v;
		if (lsc__parse_i64(l + kl + 1, end ? end : l + strlen(l), &v) < 0 || v < 0)
			return -1;
		return v;
	}
	return -1;
}

/* The file cache of a level (both LRU lists), 0 when n/a: then all of
 * the usage counts, the cautious side. v1's total_ figures take the
 * children in, as usage_in_bytes does. */
static int64_t file_cache(struct work *w, const char *dir, int v1)
{
	if (lsc__read_lines(dir, "memory.stat", w->stat, sizeof w->stat) < 0)
		return 0;
	int64_t a = stat_value(w->stat, v1 ? "total_active_file" : "active_file");
	int64_t i = stat_value(w->stat, v1 ? "total_inactive_file" : "inactive_file");
	return a >= 0 && i >= 0 && a <= INT64_MAX - i ? a + i : 0;
}

static int64_t in_use(int64_t usage, int64_t file)
{
	return file < usage ? usage - file : 0;
}

static void level_v2(struct work *w, struct lsc__mem_room *m)
{
	int64_t max = 0, high = 0, cur;
	int rmax = read_value(w->dir, "memory.max", 1, &max);
	int rhigh = read_value(w->dir, "memory.high", 1, &high);
	if ((rmax != 0 && rhigh != 0) || read_value(w->dir, "memory.current", 0, &cur) != 0)
		return;
	int64_t used = in_use(cur, file_cache(w, w->dir, 0));
	if (rmax == 0)
		offer(m, LSC__MEM_CG2_MAX, max, used, w->name);
	if (rhigh == 0)
		offer(m, LSC__MEM_CG2_HIGH, high, used, w->name);
}

static void level_v1(struct work *w, struct lsc__mem_room *m)
{
	int64_t limit, usage;
	if (read_value(w->dir, "memory.limit_in_bytes", 0, &limit) != 0 || limit >= V1_UNLIMITED ||
	    read_value(w->dir, "memory.usage_in_bytes", 0, &usage) != 0)
		return;
	offer(m, LSC__MEM_CG1_LIMIT, limit, in_use(usage, file_cache(w, w->dir, 1)), w->name);
}

/* Cut the last component off a path ("/a/b" -> "/a", "/a" -> "/"). */
static void cut_last(char *s)
{
	char *slash = strrchr(s, '/');
	if (!slash)
		return;
	if (slash == s)
		slash[1] = '\0';
	else
		*slash = '\0';
}

/* From w->dir (the process's cgroup) up to the mount's directory, whose
 * length is @top: each level's files, under the name w->name. */
static void walk(struct work *w, struct lsc__mem_room *m, size_t top, int v1)
{
	for (;;) {
		if (v1)
			level_v1(w, m);
		else
			level_v2(w, m);
		if (strlen(w->dir) <= top)
			return;
		cut_last(w->dir);
		cut_last(w->name);
	}
}

/* Is @tok one of the @sep-separated words of @list? */
static int has_word(const char *list, const char *tok, char sep)
{
	size_t n = strlen(tok);
	for (const char *t = list; t; t = strchr(t, sep), t = t ? t + 1 : NULL)
		if (!strncmp(t, tok, n) && (t[n] == sep || t[n] == '\0'))
			return 1;
	return 0;
}

/* The path of this process's cgroup in the v2 hierarchy ("0::/a") or in
 * v1's memory controller ("4:memory,x:/a"), into @out. 0 or -ENOENT. */
static int self_cgroup(char *text, int v1, char *out, size_t cap)
{
	char *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(l, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || c2[1] != '/')
			continue;
		*c2 = '\0'; /* the controllers end there */
		int match = v1 ? has_word(c1 + 1, "memory", ',') : !strcmp(l, "0:");
		if (match && (size_t)snprintf(out, cap, "%s", c2 + 1) < cap)
			return 0;
	}
	return -ENOENT;
}

/* mountinfo's octal escapes (\040 a space) decoded in place. */
static void unescape(char *s)
{
	char *o = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* Is @root (a mount's cgroup) @cg or one of its ancestors? */
static int root_of(const char *root, const char *cg)
{
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return 1;
	return !strncmp(root, cg, n) && (cg[n] == '\0' || cg[n] == '/');
}

/* One mountinfo line: is it the hierarchy wanted, mounted at a cgroup
 * that contains @cg? Its root and mount point into w->root, w->point. */
static int mount_line(struct work *w, char *line, int v1, const char *cg)
{
	char *f[6], *save = NULL, *dash = strstr(line, " - ");
	if (!dash)
		return 0;
	*dash = '\0';
	char *fs = strtok_r(dash + 3, " ", &save), *src = strtok_r(NULL, " ", &save);
	char *opts = strtok_r(NULL, " ", &save);
	if (!fs || !src || !opts)
		return 0;
	if (v1 ? strcmp(fs, "cgroup") || !has_word(opts, "memory", ',') : strcmp(fs, "cgroup2") != 0)
		return 0;
	f[0] = strtok_r(line, " ", &save);
	for (int i = 1; i < 6; i++)
		f[i] = f[i - 1] ? strtok_r(NULL, " ", &save) : NULL;
	if (!f[5])
		return 0;
	unescape(f[3]);
	unescape(f[4]);
	if (!root_of(f[3], cg) || strlen(f[3]) >= DIR_MAX || strlen(f[4]) >= DIR_MAX)
		return 0;
	strcpy(w->root, f[3]);
	strcpy(w->point, f[4]);
	return 1;
}

/* Where the hierarchy is mounted: from mountinfo, else at @usual with the
 * cgroup root "/". 0, or -ENOENT (mountinfo read, no such mount). */
static int find_mount(struct work *w, int v1, const char *cg, const char *usual)
{
	if (!w->have_mountinfo) {
		strcpy(w->root, "/");
		strcpy(w->point, usual);
		return 0;
	}
	/* A copy: the parse cuts the text, and the other hierarchy reads it too. */
	for (char *l = w->mountinfo; *l;) {
		char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		if (n < sizeof w->line) {
			memcpy(w->line, l, n);
			w->line[n] = '\0';
			if (mount_line(w, w->line, v1, cg))
				return 0;
		}
		l += n + (nl != NULL);
	}
	return -ENOENT;
}

/* One hierarchy: v2, or v1's memory controller. */
static void hierarchy(struct work *w, const char *proc_root, const char *sys_root, int v1,
		      struct lsc__mem_room *m)
{
	char cg[DIR_MAX];
	if (lsc__read_lines(proc_root, "self/cgroup", w->cgroup, sizeof w->cgroup) < 0 ||
	    self_cgroup(w->cgroup, v1, cg, sizeof cg) < 0 ||
	    find_mount(w, v1, cg, v1 ? "/sys/fs/cgroup/memory" : "/sys/fs/cgroup") < 0)
		return;
	/* The mount point, under the sys root when it is under /sys; elsewhere
	 * only on the real machine (a fixture cannot hold it). */
	const char *prefix = sys_root ? sys_root : "/sys", *base = w->point;
	if (!strncmp(w->point, "/sys", 4) && (w->point[4] == '/' || w->point[4] == '\0'))
		base = w->point + 4;
	else if (!strcmp(prefix, "/sys"))
		prefix = "";
	else
		return;
	const char *rel = cg + (strcmp(w->root, "/") ? strlen(w->root) : 0);
	int top = snprintf(w->dir, sizeof w->dir, "%s%s", prefix, base);
	if (top < 0 || (size_t)top >= sizeof w->dir ||
	    (size_t)snprintf(w->dir + top, sizeof w->dir - (size_t)top, "%s",
			     strcmp(rel, "/") ? rel : "") >= sizeof w->dir - (size_t)top)
		return;
	snprintf(w->name, sizeof w->name, "%s", cg);
	walk(w, m, (size_t)top, v1);
}

int lsc__mem_room_read(const char *proc_root, const char *sys_root, struct lsc__mem_room *out)
{
	memset(out, 0, sizeof *out);
	for (int i = 0; i < LSC__MEM_SRC_COUNT; i++)
		out->b[i].room = out->b[i].limit = out->b[i].used = -1;
	out->tightest = -1;
	if (!proc_root)
		proc_root = "/proc";
	read_meminfo(proc_root, out);
	struct work *w = malloc(sizeof *w);
	if (w) {
		w->have_mountinfo =
			lsc__read_lines(proc_root, "self/mountinfo", w->mountinfo, sizeof w->mountinfo) >= 0;
		hierarchy(w, proc_root, sys_root, 0, out);
		hierarchy(w, proc_root, sys_root, 1, out);
		free(w);
	}
	for (int i = 0; i < LSC__MEM_SRC_COUNT; i++)
		if (out->b[i].room >= 0 && (out->tightest < 0 || out->b[i].room < out->b[out->tightest].room))
			out->tightest = i;
	return out->tightest < 0 ? -ENOENT : 0;
}
