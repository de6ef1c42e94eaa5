/*
 * The baseline of issue 3's end-to-end target: what a loader does with no
 * care at all. malloc the whole file, one thread reading it with 16 MiB
 * preads (page faults happen inside the reads), then XXH3-64 over the
 * buffer afterwards. Prints one line: wall_s, read_s, hash_s, gibps.
 *
 *   bench_baseline FILE
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: bench_baseline FILE\n");
		return 2;
	}
	double t0 = now();
	int fd = open(argv[1], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		perror(argv[1]);
		return 1;
	}
	size_t n = (size_t)st.st_size;
	unsigned char *buf = malloc(n ? n : 1);
	if (!buf) {
		fprintf(stderr, "malloc %zu failed\n", n);
		return 1;
	}
	for (size_t off = 0; off < n;) {
		size_t want = n - off < (16u << 20) ? n - off : (16u << 20);
		ssize_t r = pread(fd, buf + off, want, (off_t)off);
		if (r <= 0) {
			perror("pread");
			return 1;
		}
		off += (size_t)r;
	}
	double t1 = now();
	uint64_t h = XXH3_64bits(buf, n);
	double t2 = now();
	close(fd);
	free(buf);
	printf("baseline wall_s=%.4f read_s=%.4f hash_s=%.4f gibps=%.3f xxh3=%016" PRIx64 "\n",
	       t2 - t0, t1 - t0, t2 - t1, n / 1073741824.0 / (t2 - t0), h);
	return 0;
}
