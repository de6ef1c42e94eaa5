/*
 * What may leave the machine when a report is pasted back: --redact replaces
 * paths (anything with a slash that looks like a file path, ~ paths, a
 * Windows drive's), user names in /home/NAME, user@host, IPv4 addresses
 * (also glued inside a token) and dotted host names with
 * placeholders (not a dotted name in code or a file's name: code_or_file).
 * /proc and /sys paths are kept: they name kernel knobs, not the user.
 * tr_sanitize makes any bytes printable UTF-8 for quoting.
 */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

/* The length of the run of printable ASCII (0x20-0x7e) that @s begins
 * with, sixteen or eight bytes at a time: nearly every quoted line is all of it, and
 * tr_sanitize copies such a run as it is. */
static size_t plain_run(const char *s, size_t n)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		uint64_t x, y;
		memcpy(&x, s + i, 8);
		memcpy(&y, s + i + 8, 8);
		if ((x | (x - 0x20 * ones) | (x + ones) | y | (y - 0x20 * ones) | (y + ones)) & high)
			break;
	}
	for (; i + 8 <= n; i += 8) {
		uint64_t x;
		memcpy(&x, s + i, 8);
		/* a byte >= 0x80, below 0x20, or 0x7f (x + 1 reaches 0x80) */
		if ((x | (x - 0x20 * ones) | (x + ones)) & high)
			break;
	}
	while (i < n && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f)
		i++;
	return i;
}

size_t tr_sanitize(const char *in, size_t n, char *out, size_t cap)
{
	size_t w = 0;
	if (cap == 0)
		return 0;
	/* w + 4 < cap: room for any character this writes (at most 4 bytes,
	 * U+FFFD's 3) and the NUL, so no step below checks room again */
	for (size_t r = 0; r < n && w + 4 < cap;) {
		size_t run = plain_run(in + r, n - r);
		if (run) {
			/* as the byte loop below would: up to the last byte that
			 * leaves room for a 4-byte sequence and the NUL */
			size_t room = cap - 4 - w;
			if (run > room)
				run = room;
			memcpy(out + w, in + r, run);
			w += run;
			r += run;
			continue;
		}
		/* not printable ASCII (plain_run took any such byte, and room
		 * for one is always left): a control, or the first of UTF-8 */
		unsigned char c = (unsigned char)in[r];
		if (c < 0x20 || c == 0x7f) {
			out[w++] = ' ';
			r++;
			continue;
		}
		int need = c >= 0xc2 && c < 0xe0 ? 1 : c >= 0xe0 && c < 0xf0 ? 2 : c >= 0xf0 && c < 0xf5 ? 3 : -1;
		int ok = need > 0 && r + (size_t)need < n;
		for (int i = 1; ok && i <= need; i++)
			if (((unsigned char)in[r + i] & 0xc0) != 0x80)
				ok = 0;
		if (!ok) {
			memcpy(out + w, "\xef\xbf\xbd", 3); /* U+FFFD */
			w += 3;
			r++;
			continue;
		}
		/* C1 controls (U+0080-U+009F: U+009B is a CSI to some terminals)
		 * and the bidi and line-breaking format characters (U+202E
		 * reverses what follows) are valid UTF-8 that must not reach a
		 * terminal: C1 like C0, the format characters made visible */
		unsigned cp = need == 1 ? (c & 0x1fu) << 6 | ((unsigned char)in[r + 1] & 0x3fu)
			      : need == 2 ? (c & 0x0fu) << 12 | ((unsigned char)in[r + 1] & 0x3fu) << 6 |
						 ((unsigned char)in[r + 2] & 0x3fu)
					  : 0x10000;
		if (cp >= 0x80 && cp < 0xa0) {
			out[w++] = ' ';
			r += (size_t)need + 1;
			continue;
		}
		if (cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
		    (cp >= 0x2066 && cp <= 0x2069)) {
			memcpy(out + w, "\xef\xbf\xbd", 3); /* U+FFFD */
			w += 3;
			r += (size_t)need + 1;
			continue;
		}
		for (int i = 0; i <= need; i++)
			out[w++] = in[r++];
	}
	out[w] = 0;
	return w;
}

/* Is the dotted token @s[0..n) a name in code or a file's name rather than
 * a host's? A label after the first that opens in upper case is Python's
 * or Java's (torch.cuda.OutOfMemoryError), and a last label that is a
 * file's extension names a file (model.safetensors.index.json): the triage
 * quotes both as evidence, and neither says where the user works. */
static int code_or_file(const char *s, size_t n)
{
	static const char *const ext[] = {"json", "gguf", "safetensors", "bin", "pt", "pth", "py", "so", "txt",
					  "log", "yaml", "yml", "toml", "onnx", "engine", "plan", "cc", "cpp", "c",
					  "h", "cu", "sh", NULL};
	for (size_t i = 1; i < n; i++)
		if (s[i - 1] == '.' && s[i] >= 'A' && s[i] <= 'Z') /* ASCII, whatever the locale */
			return 1;
	const char *dot = memrchr(s, '.', n);
	if (!dot)
		return 0;
	size_t el = n - (size_t)(dot + 1 - s);
	for (const char *const *e = ext; *e; e++)
		if (strlen(*e) == el && !strncmp(dot + 1, *e, el))
			return 1;
	return 0;
}

static int pathch(char c)
{
	return isalnum((unsigned char)c) || c == '/' || c == '.' || c == '_' || c == '-' || c == '~' || c == '+';
}

static int put(char *out, size_t cap, size_t *w, const char *s)
{
	size_t n = strlen(s);
	if (*w + n + 1 > cap)
		return 0;
	memcpy(out + *w, s, n);
	*w += n;
	return 1;
}

/* The length of the dotted quad @s begins with (four numbers of 1-3
 * digits, each at most 255, not followed by another digit or dot), or 0. */
static size_t quad_at(const char *s)
{
	size_t i = 0;
	for (int part = 0; part < 4; part++) {
		if (part && s[i++] != '.')
			return 0;
		size_t d = 0;
		unsigned v = 0;
		while (d < 4 && isdigit((unsigned char)s[i + d]))
			v = v * 10 + (unsigned)(s[i + d] - '0'), d++;
		if (d == 0 || d > 3 || v > 255)
			return 0;
		i += d;
	}
	return isdigit((unsigned char)s[i]) || (s[i] == '.' && isdigit((unsigned char)s[i + 1])) ? 0 : i;
}

/* An address glued inside a token ("model.gguf-10.1.2.3:41245", "uri
 * 'http://10.1.2.3'"), which the token rule below cannot see: replaced in
 * the output in place (<ip> is shorter than any address). Not 0.x.x.x,
 * which names no machine, and not a quad inside a longer dotted number. */
static void ipv4_inside(char *s)
{
	size_t w = 0;
	for (size_t r = 0; s[r];) {
		size_t q = (r == 0 || !(isdigit((unsigned char)s[r - 1]) || s[r - 1] == '.')) && s[r] != '0' ? quad_at(s + r) : 0;
		if (q) {
			memcpy(s + w, "<ip>", 4);
			w += 4;
			r += q;
		} else {
			s[w++] = s[r++];
		}
	}
	s[w] = 0;
}

void tr_redact(const char *in, char *out, size_t cap)
{
	size_t w = 0, n = strlen(in);
	for (size_t r = 0; r < n;) {
		int boundary = r == 0 || !pathch(in[r - 1]);
		/* a path: /a/b..., ~/x, ./x, ../x (a relative path names the
		 * user as well: ./home/NAME/...) */
		if (boundary && (in[r] == '/' || (in[r] == '~' && in[r + 1] == '/') || (in[r] == '.' && in[r + 1] == '/') ||
				 (in[r] == '.' && in[r + 1] == '.' && in[r + 2] == '/'))) {
			size_t e = r;
			int slashes = 0;
			while (e < n && pathch(in[e]))
				slashes += in[e++] == '/';
			int kernel = !strncmp(in + r, "/proc/", 6) || !strncmp(in + r, "/sys/", 5) ||
				     !strncmp(in + r, "/dev/", 5);
			if (slashes >= 2 && !kernel) {
				if (!put(out, cap, &w, "<path>"))
					break;
				r = e;
				continue;
			}
		}
		/* a Windows path: C:\Users\name\..., D:/models/x */
		if (boundary && isalpha((unsigned char)in[r]) && in[r + 1] == ':' && (in[r + 2] == '\\' || in[r + 2] == '/')) {
			size_t e = r + 2;
			int seps = 0;
			while (e < n && (pathch(in[e]) || in[e] == '\\'))
				seps += in[e] == '\\' || in[e] == '/', e++;
			if (seps >= 2) {
				if (!put(out, cap, &w, "<path>"))
					break;
				r = e;
				continue;
			}
		}
		/* a token: user@host, an IPv4 address, a dotted host name */
		if (boundary && isalnum((unsigned char)in[r])) {
			size_t e = r;
			int at = 0, dots = 0, alpha = 0;
			while (e < n && (isalnum((unsigned char)in[e]) || in[e] == '.' || in[e] == '-' ||
					 in[e] == '_' || in[e] == '@')) {
				at += in[e] == '@';
				dots += in[e] == '.';
				alpha += isalpha((unsigned char)in[e]) != 0;
				e++;
			}
			while (e > r && in[e - 1] == '.') {
				e--;
				dots--;
			}
			const char *rep = NULL;
			if (at == 1 && alpha)
				rep = "<user>@<host>";
			else if (in[r] != '0' && quad_at(in + r) == e - r)
				rep = "<ip>";
			else if (dots >= 2 && alpha >= 4 && !isdigit((unsigned char)in[r]) &&
				 isalpha((unsigned char)in[e - 1]) && !code_or_file(in + r, e - r))
				rep = "<host>";
			if (rep) {
				if (!put(out, cap, &w, rep))
					break;
				r = e;
				continue;
			}
			if (w + (e - r) + 1 > cap)
				break;
			memcpy(out + w, in + r, e - r);
			w += e - r;
			r = e;
			continue;
		}
		if (w + 2 > cap)
			break;
		out[w++] = in[r++];
	}
	out[w < cap ? w : cap - 1] = 0;
	ipv4_inside(out);
}
