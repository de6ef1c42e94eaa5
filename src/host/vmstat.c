/*
 * /proc/vmstat, read at the begin and the end of every span: the counters
 * that explain a slow allocate or pin phase (seed 001: compact_stall ==
 * compact_fail, thp_fault_fallback and allocstall all moving while the fill
 * crawled at 60-77 MB/s).
 *
 * This is the profiler's hot path, measured against a 50 us budget per
 * span: one buffer on the stack, one pass over the lines, no allocation and
 * no stdio. A line is matched by its length first, then its bytes.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <loadscope/profiler.h>

#include "format/vocab.h"
#include "host/procfs.h"

/* vmstat is ~4-6 KiB on 6.x kernels (more with many zones and NUMA). */
#define VMSTAT_BUF 16384

#define VM_NAME(s) {s, sizeof(s) - 1}

/* The counters' names, from the one list in format/vocab.h (the line keys
 * are made from the same names). */
#define VM_ROW(sym, name) [LSC_VM_##sym] = VM_NAME(name),
static const struct {
	const char *s;
	size_t len;
} vm_names[LSC_VM_COUNT] = {LSC__VM_LIST(VM_ROW)};

LSC_API const char *lsc_vm_name(enum lsc_vm_counter c)
{
	return (unsigned)c < LSC_VM_COUNT ? vm_names[c].s : NULL;
}

/* The kernel has no allocstall total: before 4.8 one "allocstall" line,
 * since then one "allocstall_<zone>" line per zone, which are summed. */
static int is_allocstall(const char *name, size_t n)
{
	return n >= 10 && !memcmp(name, "allocstall", 10) && (n == 10 || name[10] == '_');
}

/* Bit n is set when a counter's name is n bytes long: most of vmstat's
 * ~180 lines (nr_*, numa_*, pgalloc_*, ...) are rejected on their length
 * without a comparison. */
#define LEN_BIT(s) (1u << (sizeof(s) - 1))
#define LEN_ROW(sym, name) | (LSC_VM_##sym == LSC_VM_ALLOCSTALL ? 0u : LEN_BIT(name))
static const uint32_t name_lengths = 0u LSC__VM_LIST(LEN_ROW);

static int counter_of(const char *name, size_t n)
{
	if (name[0] == 'a')
		return is_allocstall(name, n) ? LSC_VM_ALLOCSTALL : -1;
	if (n >= 32 || !(name_lengths >> n & 1))
		return -1;
	for (int c = 0; c < LSC_VM_COUNT; c++)
		if (vm_names[c].len == n && c != LSC_VM_ALLOCSTALL && !memcmp(vm_names[c].s, name, n))
			return c;
	return -1;
}

/* A vmstat value: unsigned decimal digits, nothing else. -1 on garbage or
 * overflow. */
static int64_t parse_count(const char *s, const char *end)
{
	int64_t v = 0;

	if (s == end)
		return -1;
	for (; s < end; s++) {
		unsigned d = (unsigned char)*s - '0';

		if (d > 9 || v > (INT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	return v;
}

int lsc__vmstat_parse(const char *text, size_t len, struct lsc_vmstat *out)
{
	return lsc__vmstat_parse_at(text, len, out, NULL);
}

int lsc__vmstat_parse_at(const char *text, size_t len, struct lsc_vmstat *out,
			 struct lsc__vmstat_span *at)
{
	const char *p = text, *end = text + len;
	int allocstall_bad = 0, found = 0;
	struct lsc__vmstat_span where = {0, 0};

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *sp;
		int64_t v;
		int c;

		if (!nl)
			nl = end;
		sp = memchr(p, ' ', (size_t)(nl - p));
		if (sp && (c = counter_of(p, (size_t)(sp - p))) >= 0) {
			where.lines++;
			where.end = (size_t)(nl - text) + (nl < end);
			v = parse_count(sp + 1, nl);
			if (c == LSC_VM_ALLOCSTALL) {
				allocstall_bad |= v < 0 || out->v[c] > INT64_MAX - v;
				if (!allocstall_bad)
					out->v[c] += v;
				out->valid |= 1u << c;
			} else if (v >= 0) {
				out->v[c] = v;
				out->valid |= 1u << c;
			}
		}
		p = nl + 1;
	}
	if (allocstall_bad) {
		out->v[LSC_VM_ALLOCSTALL] = 0;
		out->valid &= ~(1u << LSC_VM_ALLOCSTALL);
	}
	for (int c = 0; c < LSC_VM_COUNT; c++)
		found += !!(out->valid & (1u << c));
	if (at)
		*at = where;
	return found;
}

LSC_API int lsc_vmstat_read(const char *proc_root, struct lsc_vmstat *out)
{
	char buf[VMSTAT_BUF];
	ssize_t n;

	if (!out)
		return -EINVAL;
	n = lsc__read_lines(proc_root ? proc_root : "/proc", "vmstat", buf, sizeof(buf));
	if (n < 0) {
		memset(out, 0, sizeof(*out));
		return (int)n;
	}
	lsc__vmstat_parse(buf, (size_t)n, out);
	return 0;
}
