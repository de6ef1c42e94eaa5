/*
 * The real page backing of an address range (the arena), from
 * /proc/self/smaps: how much of it is resident, in PMD-sized THPs
 * (AnonHugePages), in hugetlb pages, locked, and whether the kernel considers
 * it THP-eligible. This is what tells "we asked for huge pages" apart from
 * "we got them" (seed 001's arena asked, and its fill crawled while the
 * kernel compacted for pages it mostly never got).
 *
 * smaps can be megabytes in a process with many mappings and is costly to
 * generate (the kernel walks page tables), so it is streamed through a fixed
 * buffer, only the mappings overlapping the range are parsed, and reading
 * stops at the first mapping past the range (smaps is in address order).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <loadscope/profiler.h>

#include "host/procfs.h"
#include "sys/guard.h"

/* Large enough for any header line (a path is at most PATH_MAX). */
#define SMAPS_BUF 16384

/* Lines of a file, streamed through a fixed buffer. */
struct line_reader {
	int fd;
	int eof, err, skipping;
	unsigned skipped; /* lines dropped for being longer than the buffer */
	size_t start, end;
	char buf[SMAPS_BUF + 1]; /* + 1: room for the NUL of a last line without '\n' */
};

static int fill(struct line_reader *r)
{
	ssize_t n;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	do
		n = read(r->fd, r->buf + r->end, SMAPS_BUF - r->end);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		r->err = -errno;
	else if (n == 0)
		r->eof = 1;
	else
		r->end += (size_t)n;
	return n > 0;
}

/*
 * The next line, NUL-terminated in place without its '\n', or NULL at the
 * end (or on a read error, left in r->err). A line longer than the buffer
 * cannot be a line this parser needs; it is skipped whole.
 */
static char *next_line(struct line_reader *r)
{
	for (;;) {
		char *s = r->buf + r->start;
		char *nl = memchr(s, '\n', r->end - r->start);

		if (nl) {
			*nl = '\0';
			r->start = (size_t)(nl + 1 - r->buf);
			if (r->skipping) {
				r->skipping = 0;
				r->skipped++;
				continue;
			}
			return s;
		}
		if (r->eof || r->err) {
			if (r->start == r->end || r->skipping || r->err)
				return NULL;
			r->buf[r->end] = '\0';
			r->start = r->end;
			return s;
		}
		if (r->start == 0 && r->end == SMAPS_BUF) {
			r->skipping = 1;
			r->end = 0;
		}
		fill(r);
	}
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Parse hex digits at *@p; 0 on success with *@p advanced. */
static int parse_hex(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int d, n = 0;

	for (; (d = hex_digit(*s)) >= 0; s++, n++) {
		if (v >> 60)
			return -ERANGE;
		v = v << 4 | (uint64_t)d;
	}
	if (!n)
		return -EINVAL;
	*p = s;
	*out = v;
	return 0;
}

/* A mapping's header: "7f5d3c000000-7f5d40000000 rw-p 00000000 00:00 0  [path]".
 * Field lines ("AnonHugePages:  0 kB") never have hex digits then '-'. */
static int parse_header(const char *line, uint64_t *start, uint64_t *end)
{
	const char *p = line;

	if (parse_hex(&p, start) < 0 || *p++ != '-' || parse_hex(&p, end) < 0 || *p != ' ')
		return 0;
	return *start <= *end;
}

/* "Key:   123 kB" -> bytes into *@sum when the line is @key; 1 if it was. */
static int add_kib_field(const char *line, const char *key, size_t klen, uint64_t *sum)
{
	const char *v, *end;
	int64_t kib;

	if (strncmp(line, key, klen) || line[klen] != ':')
		return 0;
	v = line + klen + 1;
	end = v + strlen(v);
	if (end - v < 3 || memcmp(end - 3, " kB", 3) || lsc__parse_i64(v, end - 3, &kib) < 0 ||
	    kib < 0 || (uint64_t)kib > (UINT64_MAX - *sum) / 1024)
		return 1; /* the line was ours but garbage: count nothing */
	*sum += (uint64_t)kib * 1024;
	return 1;
}

#define KEY(s) s, sizeof(s) - 1

static void parse_field(const char *line, int first, struct lsc_region_info *out)
{
	int64_t v;

	if (add_kib_field(line, KEY("Size"), &out->bytes) ||
	    add_kib_field(line, KEY("Rss"), &out->rss_bytes) ||
	    add_kib_field(line, KEY("AnonHugePages"), &out->anon_huge_bytes) ||
	    add_kib_field(line, KEY("Private_Hugetlb"), &out->hugetlb_bytes) ||
	    add_kib_field(line, KEY("Shared_Hugetlb"), &out->hugetlb_bytes) ||
	    add_kib_field(line, KEY("Locked"), &out->locked_bytes))
		return;
	/* THPeligible (5.0+) is 0 or 1; the first overlapping mapping speaks
	 * for the range, since an arena is one mapping unless split. */
	if (first && !strncmp(line, "THPeligible:", 12) &&
	    lsc__parse_i64(line + 12, line + strlen(line), &v) == 0 && (v == 0 || v == 1))
		out->thp_eligible = (int)v;
}

static void region_clear(struct lsc_region_info *out)
{
	memset(out, 0, sizeof(*out));
	out->thp_eligible = -1;
}

int lsc__region_read_root(const char *proc_root, const void *addr, size_t len,
			  struct lsc_region_info *out)
{
	struct line_reader r = {.fd = -1};
	char path[LSC__PATH_MAX];
	uint64_t lo = (uintptr_t)addr, hi, s, e;
	unsigned skipped = 0;
	int in = 0, first = 0, ret;
	char *line;

	if (!out)
		return -EINVAL;
	region_clear(out);
	if (len == 0)
		return 0;
	hi = len > UINT64_MAX - lo ? UINT64_MAX : lo + len;
	ret = lsc__path(path, sizeof(path), proc_root ? proc_root : "/proc", "self/smaps");
	if (ret < 0)
		return ret;
	do
		r.fd = lsc__open_high(path, O_RDONLY, 0);
	while (r.fd < 0 && errno == EINTR);
	if (r.fd < 0)
		return -ENOENT;

	while ((line = next_line(&r))) {
		if (r.skipped != skipped) {
			/* The dropped line may have been a header: the fields that
			 * follow belong to a mapping we cannot place. */
			skipped = r.skipped;
			in = 0;
		}
		if (parse_header(line, &s, &e)) {
			if (s >= hi)
				break; /* in address order: nothing further can overlap */
			in = s < hi && lo < e;
			first = in && out->mappings == 0;
			out->mappings += in;
		} else if (in) {
			parse_field(line, first, out);
		}
	}
	close(r.fd);
	if (r.err) {
		region_clear(out);
		return r.err;
	}
	return 0;
}

/* "start-end perms ...": the range and whether perms give write. */
static int parse_maps_line(const char *line, uint64_t *start, uint64_t *end, int *writable)
{
	const char *p = line;

	if (parse_hex(&p, start) < 0 || *p++ != '-' || parse_hex(&p, end) < 0 || *p++ != ' ' ||
	    strlen(p) < 4)
		return 0;
	*writable = p[1] == 'w';
	return *start <= *end;
}

int lsc__region_writable(const void *addr, size_t len, uintptr_t *bad)
{
	struct line_reader r = {.fd = -1};
	uint64_t lo = (uintptr_t)addr, hi, s, e, at;
	int w, ret = -EFAULT;
	char *line;

	*bad = (uintptr_t)addr;
	if (len == 0)
		return 0;
	hi = len > UINT64_MAX - lo ? UINT64_MAX : lo + len;
	do
		r.fd = lsc__open_high("/proc/self/maps", O_RDONLY, 0);
	while (r.fd < 0 && errno == EINTR);
	if (r.fd < 0)
		return -ENOENT;
	/* In address order: every byte from @at on must be in the next
	 * mapping, and that mapping writable. */
	at = lo;
	while ((line = next_line(&r))) {
		if (!parse_maps_line(line, &s, &e, &w) || e <= at)
			continue;
		if (s > at || !w)
			break; /* a hole at @at, or a mapping without write */
		at = e;
		if (at >= hi) {
			ret = 0;
			break;
		}
	}
	close(r.fd);
	if (ret < 0 && r.err)
		return r.err;
	*bad = (uintptr_t)at;
	return ret;
}
