/*
 * The cheap pass every line gets before any recogniser: one scan over the
 * line that finds which of a few dozen fixed keywords it contains, through a
 * table indexed by each keyword's first two bytes. Most lines of a real log
 * contain none and go no further; a line that does is handed only to the
 * recognisers whose keyword group it has. This is what keeps the triage at
 * memory speed on gigabyte logs (the recognisers' own memmem calls, one per
 * shape, cost ten times more when run on every line).
 *
 * The declared engine shapes (shapes.c) add their keywords here, each with
 * its own group bit (tr_shape_group), so recognise_shapes.c tries only the
 * rows whose keyword a line holds.
 *
 * A keyword is indexed by its rarest-looking three bytes, not its first
 * ones: "of pinned memory" or "read error:" would stop the scan at every
 * "of" and "re" of a log; "_b" or "r:" almost never do. Both two-byte pairs
 * of those three are indexed, so the scan looks at every second position
 * only: one of the two pairs of any occurrence starts at an even offset.
 * That halves the work of the loop every byte of the log goes through.
 * A position whose pair is indexed then has its three bytes checked
 * against a second bit table, of the keywords' three-byte windows (hashed),
 * before any keyword is compared: most pairs in use are common ones ("re",
 * "ad") that a window ("ead", "_re") tells apart.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const struct {
	const char *s;
	uint64_t g;
} kw[] = {
	{"[loadscope/", TR_G_LSC}, {"\"loadscope\"", TR_G_LSC},
	{"arena", TR_G_ARENA},
	{"complement", TR_G_COMPLEMENT},
	{"loaded ", TR_G_LOADED}, {"Loaded ", TR_G_LOADED},
	{"still starting", TR_G_STILL}, {"still loading", TR_G_STILL}, {"Still starting", TR_G_STILL},
	{"Still loading", TR_G_STILL},
	{"verif", TR_G_VERIFY}, {"Verif", TR_G_VERIFY}, {"VERIF", TR_G_VERIFY},
	{"compute capability", TR_G_GPU},
	{"read through the file cache", TR_G_READTHRU},
	{"AMDKFD_IOC_ALLOC_MEMORY_OF_GPU", TR_G_STRACE}, {"_IOC(", TR_G_STRACE}, {"ioctl resumed", TR_G_STRACE},
	{"madvise(0x", TR_G_STRACE},
	{"compact_", TR_G_VMSTAT}, {"thp_fault", TR_G_VMSTAT}, {"pswp", TR_G_VMSTAT}, {"allocstall", TR_G_VMSTAT},
	{"pgmajfault", TR_G_VMSTAT}, {"pgfault", TR_G_VMSTAT},
	{"defrag", TR_G_THPSET}, {"transparent_hugepage/enabled", TR_G_THPSET}, {"PR_SET_THP_DISABLE", TR_G_THPSET},
	{"THP_enabled:", TR_G_THPSET},
	{"RSS", TR_G_RATES}, {"faults/s", TR_G_RATES},
	{"loading model tensors", TR_G_LLAMA}, {"llama_model_loader: loaded meta", TR_G_LLAMA},
	{"load time", TR_G_LLAMA}, {"mlock", TR_G_LLAMA}, {"RLIMIT_MEMLOCK", TR_G_LLAMA},
	{"max locked memory", TR_G_LLAMA},
	{"llocating", TR_G_IK},
	{"vLLM API server version", TR_G_VLLM}, {"Initializing a", TR_G_VLLM},
	{"Loading weights took", TR_G_VLLM}, {"Model loading took", TR_G_VLLM},
	{"time to stream", TR_G_RUNAI},
	{"io_uring", TR_G_IO}, {"io-uring", TR_G_IO}, {"iouring", TR_G_IO}, {"O_DIRECT", TR_G_IO},
	{"direct I/O", TR_G_IO}, {"Direct I/O", TR_G_IO}, {"DIRECT I/O", TR_G_IO}, {"direct io", TR_G_IO},
	{"direct IO", TR_G_IO}, {"Direct IO", TR_G_IO}, {"Direct io", TR_G_IO},
	{"Application startup complete", TR_G_READY},
	{"model loaded", TR_G_READY}, {"ready after", TR_G_READY}, {"server ready", TR_G_READY}, {"Server ready", TR_G_READY},
	{"is ready", TR_G_READY}, {"ready in", TR_G_READY}, {"ready after", TR_G_READY}, {"Ready in", TR_G_READY},
	{"] ready", TR_G_READY}, {"startup took", TR_G_READY},
	{"ROCm", TR_G_HIP}, {"hipHost", TR_G_HIP}, {"HIP ", TR_G_HIP},
	{"starting engine", TR_G_BEGIN}, {"Starting engine", TR_G_BEGIN},
	{"exited with status", TR_G_EXIT}, {"exit status", TR_G_EXIT}, {"; exiting", TR_G_EXIT},
	{"timestamp=", TR_G_EPOCH},
	{"swapping", TR_G_SWAP}, {"Swapping", TR_G_SWAP}, {"SWAPPING", TR_G_SWAP}, {"kswapd", TR_G_SWAP},
};
#define NKW (sizeof(kw) / sizeof(kw[0]))
#define NALL 254 /* the fixed keywords and the shapes' */
#define NENT (2 * NALL) /* two index entries per keyword */

struct tr_prefilter {
	const char *s[NALL];
	uint64_t g[NALL];
	uint8_t len[NALL];
	uint64_t any[65536 / 64]; /* one bit per two-byte pair in use: 8 KiB, stays in L1 */
	uint64_t tri[65536 / 64]; /* one bit per (hashed) three-byte window in use */
	uint16_t head[65536];  /* 1 + index of the first entry with these two bytes; 0 none */
	/* the entries: a keyword and where in it the indexed pair is */
	uint16_t next[NENT];   /* chain: 1 + index of the next one; 0 end */
	uint8_t kwi[NENT];
	uint8_t off[NENT];
	uint32_t pre[NENT];    /* four bytes from there (fewer: masked) */
	uint32_t mask[NENT];
	size_t n, nent;
};

/* How common a byte is in log text: lower is rarer. */
static int common(unsigned char c)
{
	if (c == ' ')
		return 4;
	if (strchr("etaoinsrld", c))
		return 2;
	if (c >= 'a' && c <= 'z')
		return 1;
	return 0; /* upper case, digits, punctuation */
}

/* Where the keyword's rarest three bytes begin (its two pairs are indexed). */
static size_t window(const char *k, size_t len)
{
	size_t best = 0;
	int bs = 99;
	for (size_t i = 0; i + 2 < len; i++) {
		int sc = common((unsigned char)k[i]) + 2 * common((unsigned char)k[i + 1]) +
			 common((unsigned char)k[i + 2]);
		if (sc < bs) {
			bs = sc;
			best = i;
		}
	}
	return best;
}

/* The pair at @s as the scan reads it: one two-byte load. */
static inline unsigned pair(const unsigned char *s)
{
	return (unsigned)s[0] | (unsigned)s[1] << 8;
}

/* The three bytes at @s, hashed to 16 bits (s[2] may be the line's NUL). */
static inline unsigned tri_hash(const unsigned char *s)
{
	uint32_t x = (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16;
	return (x * 0x9e3779b1u) >> 16;
}

static int has_bit(const uint64_t *set, unsigned b)
{
	return set[b >> 6] >> (b & 63) & 1;
}

static void add_entry(struct tr_prefilter *p, size_t k, size_t o)
{
	size_t e = p->nent++;
	unsigned b = pair((const unsigned char *)p->s[k] + o);
	size_t m = p->len[k] - o < 4 ? p->len[k] - o : 4;
	p->kwi[e] = (uint8_t)k;
	p->off[e] = (uint8_t)o;
	p->pre[e] = p->mask[e] = 0;
	memcpy(&p->pre[e], p->s[k] + o, m);
	memset(&p->mask[e], 0xff, m);
	p->next[e] = p->head[b];
	p->head[b] = (uint16_t)(e + 1);
	p->any[b >> 6] |= 1ull << (b & 63);
}

struct tr_prefilter *tr_prefilter_new(void)
{
	struct tr_prefilter *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	_Static_assert(NALL < 255, "keyword index fits a byte");
	for (size_t i = 0; i < NKW; i++) {
		p->s[p->n] = kw[i].s;
		p->g[p->n++] = kw[i].g;
	}
	for (size_t i = 0; i < tr_nshapes && p->n < NALL; i++) {
		p->s[p->n] = tr_shapes[i].key;
		p->g[p->n++] = tr_shape_group(i);
	}
	if (p->n < NKW + tr_nshapes) { /* a table too large: fail loudly, not silently blind */
		free(p);
		return NULL;
	}
	for (size_t i = p->n; i-- > 0;) {
		size_t len = strlen(p->s[i]);
		if (len < 3 || len > 255) { /* the two pairs need three bytes */
			free(p);
			return NULL;
		}
		p->len[i] = (uint8_t)len;
		size_t o = window(p->s[i], len);
		add_entry(p, i, o + 1);
		add_entry(p, i, o);
		unsigned h = tri_hash((const unsigned char *)p->s[i] + o);
		p->tri[h >> 6] |= 1ull << (h & 63);
	}
	return p;
}

uint64_t tr_prefilter(const struct tr_prefilter *p, const char *s, size_t n)
{
	uint64_t m = 0;
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i + 1 < n; i += 2) {
		unsigned b = pair(u + i);
		if (!has_bit(p->any, b))
			continue;
		/* the window the pair belongs to begins here (the pair is its
		 * first) or a byte before (its second); i + 2 <= n, s[n] is NUL */
		if (!has_bit(p->tri, tri_hash(u + i)) && !(i && has_bit(p->tri, tri_hash(u + i - 1))))
			continue;
		/* four bytes at once before the full compare; s[n] is the line's
		 * NUL, and a line shorter than 4 from here reads it as zeros */
		uint32_t four = 0;
		if (n - i >= 4)
			memcpy(&four, s + i, 4);
		else
			memcpy(&four, s + i, n - i);
		for (unsigned h = p->head[b]; h; h = p->next[h - 1]) {
			size_t e = h - 1, o = p->off[e], k = p->kwi[e];
			if ((four & p->mask[e]) == p->pre[e] && i >= o && n - (i - o) >= p->len[k] &&
			    !memcmp(s + i - o, p->s[k], p->len[k]))
				m |= p->g[k];
		}
	}
	return m;
}
