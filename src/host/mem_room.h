/*
 * The memory this process may still take, and what bounds it: the host's
 * MemAvailable, and the memory cgroup limits that apply to this process at
 * every level of its hierarchy, cgroup v2 (memory.max, memory.high) and
 * cgroup v1 (memory.limit_in_bytes). A load in a container is killed by its
 * cgroup long before the host runs short: MemAvailable alone let a 1 GiB
 * arena fault in a 512 MiB cgroup, and the OOM killer ended the engine with
 * no line (issue 22).
 *
 * One reader, shared by the loader's memory guard, `probe`, `lab fragment`
 * and `pintest`; it only reads, through the profiler's roots (/proc and
 * /sys, or a fixture tree), and never writes a cgroup file.
 */
#ifndef LSC_HOST_MEM_ROOM_H
#define LSC_HOST_MEM_ROOM_H

#include <stdint.h>

/* The kinds of bound, each the tightest of its kind found. */
enum lsc__mem_src {
	LSC__MEM_AVAILABLE = 0, /* /proc/meminfo MemAvailable */
	LSC__MEM_CG2_MAX,       /* cgroup v2 memory.max (the OOM killer's limit) */
	LSC__MEM_CG2_HIGH,      /* cgroup v2 memory.high (throttled and reclaimed past it) */
	LSC__MEM_CG1_LIMIT,     /* cgroup v1 memory.limit_in_bytes */
	LSC__MEM_SRC_COUNT,
};

/* One bound. For a cgroup: @limit is the file's value, @used what counts
 * against it (memory.current or memory.usage_in_bytes less the file cache
 * of its memory.stat, active and inactive, which the kernel reclaims in
 * the cgroup before it kills), @room = @limit - @used (0 when over). For
 * MemAvailable: @limit is MemTotal, @room MemAvailable, @used the rest. */
struct lsc__mem_bound {
	int64_t room;       /* bytes; -1: this kind of bound is not in force or not readable */
	int64_t limit;
	int64_t used;
	char cgroup[256];   /* the level whose limit it is, as /proc/self/cgroup names it
	                     * ("/kubepods/pod1/ctr"; "/" the namespace's root); "" for
	                     * MemAvailable; a longer name is cut */
};

struct lsc__mem_room {
	struct lsc__mem_bound b[LSC__MEM_SRC_COUNT];
	int tightest;       /* the index of the smallest room, -1 when no bound is readable */
};

/*
 * lsc__mem_room_read - read every bound that applies to the calling
 * process from <proc_root> (NULL: "/proc": meminfo, self/cgroup,
 * self/mountinfo) and <sys_root> (NULL: "/sys": the cgroup hierarchies
 * mounted under /sys/fs/cgroup, where mountinfo says, else at their usual
 * places, /sys/fs/cgroup and /sys/fs/cgroup/memory). A level whose files
 * are missing or garbage is skipped, a limit of "max" (v2) or of 2^62 and
 * more (v1's "unlimited") is no bound. Return: 0, or -ENOENT when no bound
 * at all could be read (out->tightest -1). Thread-safe; allocates one work
 * buffer (mountinfo can be long), freed before it returns.
 */
int lsc__mem_room_read(const char *proc_root, const char *sys_root, struct lsc__mem_room *out);

/* lsc__mem_src_name - the bound's name as lines print it: "MemAvailable",
 * "memory.max", "memory.high", "memory.limit_in_bytes"; "?" out of range. */
const char *lsc__mem_src_name(int src);

/* lsc__mem_src_what - the same for a sentence: "MemAvailable", "cgroup v2
 * memory.max", "cgroup v2 memory.high", "cgroup v1 memory.limit_in_bytes". */
const char *lsc__mem_src_what(int src);

#endif
