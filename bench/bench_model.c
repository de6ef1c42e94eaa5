/*
 * Model-manifest benchmark: a safetensors file of N tensors (default
 * 10,000, F16, 32768 to 32780 bytes each, so most extents start off a page)
 * loaded as a manifest (lsc_manifest_from_files, header parse included, +
 * lsc_load_manifest) against one extent of the same data bytes (lsc_load),
 * interleaved round by round, compared by the ratio of their medians. The
 * file is read once first so both run from the page cache.
 *
 *   bench_model FILE [ROUNDS [TENSORS [noverify]]]
 *                         writes FILE, then measures; noverify:
 *                         LSC_LOAD_NO_VERIFY for both
 *
 * Output: one "round" line per round and one "summary" line, for
 * docs/benchmarks.md ("Model manifests").
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <loadscope/loadscope.h>

static struct lsc_load_options opt;

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Header JSON, padded to 8 bytes, then the data; *data_off, *data_bytes. */
static int write_file(const char *path, unsigned n, uint64_t *data_off, uint64_t *data_bytes)
{
	size_t cap = (size_t)n * 96 + 64, len = 0;
	char *h = malloc(cap);
	if (!h)
		return -1;
	uint64_t off = 0;
	len += (size_t)snprintf(h + len, cap - len, "{\"__metadata__\":{\"format\":\"pt\"}");
	for (unsigned i = 0; i < n; i++) {
		uint64_t elems = 16384 + i % 7, bytes = elems * 2;
		len += (size_t)snprintf(h + len, cap - len,
					",\"model.layers.%u.weight\":{\"dtype\":\"F16\",\"shape\":[%" PRIu64
					"],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}",
					i, elems, off, off + bytes);
		off += bytes;
	}
	len += (size_t)snprintf(h + len, cap - len, "}");
	while (len % 8)
		h[len++] = ' ';
	FILE *f = fopen(path, "wb");
	if (!f) {
		free(h);
		return -1;
	}
	unsigned char lb[8];
	for (int i = 0; i < 8; i++)
		lb[i] = (unsigned char)((uint64_t)len >> (8 * i));
	fwrite(lb, 1, 8, f);
	fwrite(h, 1, len, f);
	free(h);
	unsigned char buf[1 << 16];
	uint64_t s = 0x9E3779B97F4A7C15ull;
	for (uint64_t done = 0; done < off;) {
		size_t k = off - done < sizeof(buf) ? (size_t)(off - done) : sizeof(buf);
		for (size_t i = 0; i < k; i++) {
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
			buf[i] = (unsigned char)s;
		}
		fwrite(buf, 1, k, f);
		done += k;
	}
	*data_off = 8 + len;
	*data_bytes = off;
	return fclose(f);
}

/* The read phase of the last load of each kind (lsc_load_stats.read_ns). */
static uint64_t read_m, read_o;

static uint64_t run_manifest(const char *path, size_t *tensors)
{
	uint64_t t0 = now_ns();
	struct lsc_manifest *m = NULL;
	lsc_arena *a = NULL;
	if (lsc_manifest_from_files(NULL, &path, 1, &m) || lsc_load_manifest(NULL, &opt, m, &a)) {
		fprintf(stderr, "bench_model: manifest load failed\n");
		exit(1);
	}
	uint64_t t = now_ns() - t0;
	*tensors = m->n_tensors;
	struct lsc_load_stats st;
	lsc_arena_stats(a, &st);
	read_m = st.read_ns;
	lsc_manifest_destroy(m);
	lsc_arena_destroy(a);
	return t;
}

static uint64_t run_one(const char *path, uint64_t off, uint64_t bytes)
{
	uint64_t t0 = now_ns();
	struct lsc_extent e = {.path = path, .file_offset = off, .length = bytes};
	lsc_arena *a = NULL;
	if (lsc_load(NULL, &opt, &e, 1, 0, &a)) {
		fprintf(stderr, "bench_model: one-extent load failed\n");
		exit(1);
	}
	uint64_t t = now_ns() - t0;
	struct lsc_load_stats st;
	lsc_arena_stats(a, &st);
	read_o = st.read_ns;
	lsc_arena_destroy(a);
	return t;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_model FILE [ROUNDS [TENSORS]]\n");
		return 64;
	}
	unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 15;
	unsigned n = argc > 3 ? (unsigned)atoi(argv[3]) : 10000;
	lsc_load_options_init(&opt);
	if (argc > 4 && !strcmp(argv[4], "noverify"))
		opt.flags |= LSC_LOAD_NO_VERIFY;
	if (!rounds || rounds > 1000 || !n || n > 1000000) {
		fprintf(stderr, "bench_model: ROUNDS 1-1000, TENSORS 1-1000000\n");
		return 64;
	}
	uint64_t off, bytes;
	if (write_file(argv[1], n, &off, &bytes)) {
		fprintf(stderr, "bench_model: cannot write %s\n", argv[1]);
		return 1;
	}
	uint64_t *tm = calloc(rounds, sizeof(*tm)), *to = calloc(rounds, sizeof(*to));
	uint64_t *rm = calloc(rounds, sizeof(*rm)), *ro = calloc(rounds, sizeof(*ro));
	size_t tensors = 0;
	run_one(argv[1], off, bytes); /* warm the page cache */
	for (unsigned r = 0; r < rounds; r++) {
		/* Alternate which goes first, so neither always follows the other. */
		if (r % 2) {
			to[r] = run_one(argv[1], off, bytes);
			tm[r] = run_manifest(argv[1], &tensors);
		} else {
			tm[r] = run_manifest(argv[1], &tensors);
			to[r] = run_one(argv[1], off, bytes);
		}
		rm[r] = read_m;
		ro[r] = read_o;
		printf("round %u manifest_s=%.4f one_extent_s=%.4f manifest_read_s=%.4f one_extent_read_s=%.4f\n",
		       r, tm[r] / 1e9, to[r] / 1e9, rm[r] / 1e9, ro[r] / 1e9);
	}
	uint64_t mm = median(tm, rounds), mo = median(to, rounds);
	uint64_t mrm = median(rm, rounds), mro = median(ro, rounds);
	printf("summary tensors=%zu data_bytes=%" PRIu64 " rounds=%u verify=%d manifest_median_s=%.4f "
	       "one_extent_median_s=%.4f ratio=%.3f read_median_s=%.4f/%.4f read_ratio=%.3f\n",
	       tensors, bytes, rounds, !(opt.flags & LSC_LOAD_NO_VERIFY), mm / 1e9, mo / 1e9, (double)mm / (double)mo,
	       mrm / 1e9, mro / 1e9, (double)mrm / (double)mro);
	free(tm);
	free(to);
	free(rm);
	free(ro);
	return 0;
}
