/*
 * Small readers for /proc and /sys (see procfs.h): reading a file into a
 * caller's buffer, and the exact parsers for the shapes those files have
 * (a bracketed sysfs choice, "Key:  123 kB" lines, buddyinfo rows).
 *
 * A procfs read returns at most one page per call (seq_file fills a
 * page-sized buffer), so a short read is not EOF: the reader loops until
 * read() returns 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "host/procfs.h"
#include "sys/guard.h"

#define BUDDY_TEXT 16384 /* one ~100-byte row per node and zone, as system.c reads it */

int lsc__path(char *out, size_t cap, const char *root, const char *rel)
{
	size_t rl = root ? strlen(root) : 0;
	size_t ll = strlen(rel);

	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	while (*rel == '/') {
		rel++;
		ll--;
	}
	if (rl + 1 + ll + 1 > cap)
		return -ENAMETOOLONG;
	if (rl)
		memcpy(out, root, rl);
	out[rl] = '/';
	memcpy(out + rl + 1, rel, ll);
	out[rl + 1 + ll] = '\0';
	return (int)(rl + 1 + ll);
}

static int sys_open(const char *path, int flags)
{
	return lsc__open_high(path, flags, 0);
}

static const struct lsc__procfs_sys sys_default = {.open = sys_open, .read = read};
static const struct lsc__procfs_sys *sys = &sys_default;

void lsc__procfs_sys_set(const struct lsc__procfs_sys *s)
{
	sys = s ? s : &sys_default;
}

static ssize_t read_retry(int fd, char *buf, size_t len)
{
	ssize_t n;

	do
		n = sys->read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

ssize_t lsc__read_file(const char *root, const char *rel, char *buf, size_t cap, int *truncated)
{
	char path[LSC__PATH_MAX];
	size_t len = 0;
	ssize_t n = 0;
	int fd, ret;

	if (truncated)
		*truncated = 0;
	if (!buf || cap == 0)
		return -EINVAL;
	buf[0] = '\0';
	ret = lsc__path(path, sizeof(path), root, rel);
	if (ret < 0)
		return ret;
	do
		fd = sys->open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return -errno;

	while (len < cap - 1) {
		n = read_retry(fd, buf + len, cap - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (n >= 0 && len == cap - 1 && truncated) {
		char probe;

		*truncated = read_retry(fd, &probe, 1) > 0;
	}
	close(fd);
	if (n < 0) {
		buf[0] = '\0';
		return n; /* a half-read file is not what the kernel said */
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

ssize_t lsc__read_lines(const char *root, const char *rel, char *buf, size_t cap)
{
	int truncated;
	ssize_t n = lsc__read_file(root, rel, buf, cap, &truncated);
	char *nl;

	if (n <= 0 || !truncated)
		return n;
	nl = memrchr(buf, '\n', (size_t)n);
	n = nl ? nl + 1 - buf : 0;
	buf[n] = '\0';
	return n;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

int lsc__parse_i64(const char *s, const char *end, int64_t *out)
{
	uint64_t limit = INT64_MAX, v = 0;
	int neg = 0, digits = 0;

	while (s < end && is_blank(*s))
		s++;
	while (end > s && is_blank(end[-1]))
		end--;
	if (s < end && (*s == '-' || *s == '+')) {
		neg = *s == '-';
		limit += neg; /* |INT64_MIN| */
		s++;
	}
	for (; s < end; s++, digits++) {
		unsigned d = (unsigned char)*s - '0';

		if (d > 9)
			return -EINVAL;
		if (v > (limit - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (!digits)
		return -EINVAL;
	/* -INT64_MIN cannot be negated in int64_t: go through the unsigned form. */
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

static int is_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '+' || c == '-';
}

/* Length of the word at @s, 0 if @s does not start one. */
static size_t word_len(const char *s)
{
	size_t n = 0;

	while (is_word_char(s[n]))
		n++;
	return n;
}

static int copy_word(const char *w, size_t n, char *out, size_t cap)
{
	if (n + 1 > cap)
		return -ERANGE;
	memcpy(out, w, n);
	out[n] = '\0';
	return 0;
}

int lsc__sysfs_choice(const char *text, char *out, size_t cap)
{
	const char *chosen = NULL, *first = NULL, *p = text;
	size_t chosen_len = 0, first_len = 0, words = 0;
	int ret;

	if (!out || cap == 0)
		return -EINVAL;
	out[0] = '\0';
	if (!text)
		return -EINVAL;
	/* Tokens: words and one "[word]", separated by blanks; nothing else. */
	for (;;) {
		size_t n;

		while (is_blank(*p))
			p++;
		if (!*p)
			break;
		if (*p == '[') {
			n = word_len(p + 1);
			if (!n || p[1 + n] != ']' || chosen)
				return -EINVAL;
			chosen = p + 1;
			chosen_len = n;
			p += n + 2;
		} else {
			n = word_len(p);
			if (!n)
				return -EINVAL;
			if (!first) {
				first = p;
				first_len = n;
			}
			p += n;
		}
		if (*p && !is_blank(*p))
			return -EINVAL;
		words++;
	}
	if (!chosen) {
		/* No brackets: only a file holding one bare word names its choice. */
		if (words != 1)
			return -EINVAL;
		chosen = first;
		chosen_len = first_len;
	}
	ret = copy_word(chosen, chosen_len, out, cap);
	if (ret < 0)
		out[0] = '\0';
	return ret;
}

/* Start of the value of the line "@key:" in @text, or NULL. */
static const char *kv_find(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *line = text;

	while (line && *line) {
		if (!strncmp(line, key, kl) && line[kl] == ':')
			return line + kl + 1;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return NULL;
}

static const char *line_end(const char *s)
{
	const char *nl = strchr(s, '\n');

	return nl ? nl : s + strlen(s);
}

int lsc__kv_i64(const char *text, const char *key, int64_t *out, int *kib)
{
	const char *v = text ? kv_find(text, key) : NULL;
	const char *end;

	if (!v)
		return -ENOENT;
	end = line_end(v);
	*kib = 0;
	/* "123 kB": the unit is the only thing allowed after the number. */
	if (end - v >= 3 && !memcmp(end - 3, " kB", 3)) {
		*kib = 1;
		end -= 3;
	}
	return lsc__parse_i64(v, end, out);
}

int lsc__kv_kib(const char *text, const char *key, int64_t *out)
{
	int64_t v;
	int kib, ret = lsc__kv_i64(text, key, &v, &kib);

	if (ret < 0)
		return ret;
	if (!kib || v < 0)
		return -EINVAL;
	*out = v;
	return 0;
}

int lsc__kv_word(const char *text, const char *key, char *out, size_t cap)
{
	const char *v = text ? kv_find(text, key) : NULL;
	const char *end;
	int ret;

	if (!out || cap == 0)
		return -EINVAL;
	out[0] = '\0';
	if (!v)
		return -ENOENT;
	end = line_end(v);
	while (v < end && is_blank(*v))
		v++;
	while (end > v && is_blank(end[-1]))
		end--;
	if (v == end || memchr(v, ' ', (size_t)(end - v)) || memchr(v, '\t', (size_t)(end - v)))
		return -EINVAL;
	ret = copy_word(v, (size_t)(end - v), out, cap);
	if (ret < 0)
		out[0] = '\0';
	return ret;
}

/* Skip blanks, then expect @lit. Return the position after it, or NULL. */
static const char *expect(const char *p, const char *lit)
{
	size_t n = strlen(lit);

	while (*p == ' ' || *p == '\t')
		p++;
	return strncmp(p, lit, n) ? NULL : p + n;
}

/* Parse one unsigned decimal token at @p (after blanks) up to a blank, ','
 * or end of line. Return the position after it, or NULL. */
static const char *next_u64(const char *p, uint64_t *out)
{
	const char *s;
	int64_t v;

	while (*p == ' ' || *p == '\t')
		p++;
	s = p;
	while (*p >= '0' && *p <= '9')
		p++;
	if (p == s || lsc__parse_i64(s, p, &v) < 0 || v < 0)
		return NULL;
	*out = (uint64_t)v;
	return p;
}

static size_t alnum_len(const char *s)
{
	size_t n = 0;

	while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
	       (s[n] >= '0' && s[n] <= '9'))
		n++;
	return n;
}

/* Add @count free blocks of @order to *@sum, in bytes, without overflow. */
static int buddy_add(uint64_t *sum, uint64_t count, unsigned order, long page_size)
{
	uint64_t block;

	if (count == 0)
		return 0;
	if (order >= 63 || (uint64_t)page_size > ((uint64_t)INT64_MAX >> order))
		return -ERANGE;
	block = (uint64_t)page_size << order;
	if (count > (uint64_t)INT64_MAX / block || *sum > (uint64_t)INT64_MAX - count * block)
		return -ERANGE;
	*sum += count * block;
	return 0;
}

/* One buddyinfo row: "Node 0, zone   Normal    293    284 ...\n", one
 * count per order from 0 up (11 orders on x86, more on other configs). */
static int buddy_row(const char *line, const char *end, unsigned min_order, long page_size,
		     uint64_t *sum)
{
	const char *p = expect(line, "Node");
	uint64_t v;
	size_t n;

	if (!p || !(p = next_u64(p, &v)) || !(p = expect(p, ",")) || !(p = expect(p, "zone")))
		return -EINVAL;
	while (*p == ' ' || *p == '\t')
		p++;
	n = alnum_len(p); /* the zone: DMA, DMA32, Normal, Movable, Device */
	if (!n)
		return -EINVAL;
	p += n;
	for (unsigned order = 0;; order++) {
		int ret;

		if (p < end && *p != ' ' && *p != '\t')
			return -EINVAL;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end)
			return order ? 0 : -EINVAL;
		if (!(p = next_u64(p, &v)))
			return -EINVAL;
		if (order >= min_order && (ret = buddy_add(sum, v, order, page_size)) < 0)
			return ret;
	}
}

int64_t lsc__buddy_free_bytes(const char *text, unsigned min_order, long page_size)
{
	uint64_t sum = 0;
	int rows = 0;

	if (!text || page_size <= 0)
		return -EINVAL;
	while (*text) {
		const char *end = line_end(text);
		int ret = buddy_row(text, end, min_order, page_size, &sum);

		if (ret < 0)
			return ret;
		rows++;
		text = *end ? end + 1 : end;
	}
	return rows ? (int64_t)sum : -EINVAL;
}

int64_t lsc__buddy_free_below(const char *proc_root, unsigned order)
{
	char buf[BUDDY_TEXT];
	long page = sysconf(_SC_PAGESIZE);
	int truncated;

	ssize_t n = lsc__read_file(proc_root ? proc_root : "/proc", "buddyinfo", buf, sizeof buf, &truncated);
	if (n < 0)
		return n;
	if (truncated)
		return -EFBIG;
	int64_t all = lsc__buddy_free_bytes(buf, 0, page), big = lsc__buddy_free_bytes(buf, order, page);
	if (all < 0)
		return all;
	if (big < 0)
		return big;
	return all - big;
}
