/*
 * Description (ThreadSanitizer): a load through the public API with the
 * threads it starts. The allocate phase prefaults with four threads, each
 * crediting progress to the allocate and prefault spans while the watchdog
 * reads them; the read phase hashes each chunk while later reads are in
 * flight (the overlapped verify), once with io_uring (when the kernel
 * allows it) and once with pread, against the hash the first load
 * computed. The bytes are checked against the file's pattern.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <loadscope/loader.h>
#include <loadscope/profiler.h>

#include "tsan_check.h"

#define FILE_BYTES (24u << 20)

static unsigned lines;

static void sink(void *user, const char *line, size_t len)
{
	(void)user;
	(void)line;
	(void)len;
	lines++;
}

static int pattern_ok(const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i += 4093)
		if (b[i] != (unsigned char)(i * 2654435761u >> 24))
			return 0;
	return 1;
}

static void load_once(lsc_profiler *p, const char *path, const char *reader, uint64_t *hash)
{
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.prefault_threads = 4;
	o.chunk_bytes = 4u << 20;
	o.reader = reader;
	struct lsc_extent e = {.path = path, .length = UINT64_MAX, .xxh3 = *hash, .has_xxh3 = *hash != 0};
	lsc_arena *a = NULL;
	int rc = lsc_load(p, &o, &e, 1, 0, &a);
	CHECK(rc == 0);
	CHECK(lsc_arena_size(a) >= FILE_BYTES);
	CHECK(pattern_ok(lsc_arena_data(a), FILE_BYTES));
	uint64_t h = 0;
	CHECK(lsc_arena_extent_hash(a, 0, &h) == 0);
	CHECK(*hash == 0 || h == *hash);
	*hash = h;
	lsc_arena_destroy(a);
}

int main(void)
{
	char path[] = "/tmp/lsc-tsan-load-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	unsigned char *buf = malloc(FILE_BYTES);
	CHECK(buf);
	for (size_t i = 0; i < FILE_BYTES; i++)
		buf[i] = (unsigned char)(i * 2654435761u >> 24);
	CHECK(write(fd, buf, FILE_BYTES) == (ssize_t)FILE_BYTES);
	close(fd);
	free(buf);

	struct lsc_profiler_options o;
	lsc_profiler_options_init(&o);
	o.sink = sink;
	o.mode = LSC_MODE_ON;
	o.flags = LSC_PROFILER_IGNORE_ENV;
	o.watchdog_after_s = 0.01;
	o.watchdog_every_s = 0.01;
	lsc_profiler *p;
	CHECK(lsc_profiler_create(&o, &p) == 0);
	CHECK(lsc_start_begin(p, "tsan load") == 0);
	uint64_t hash = 0;
	load_once(p, path, "auto", &hash);     /* computes the hash */
	load_once(p, path, "auto", &hash);     /* verifies against it, overlapped */
	load_once(p, path, "pread", &hash);
	CHECK(lsc_start_end(p) == 0);
	lsc_profiler_destroy(p);
	unlink(path);
	CHECK(lines > 0);
	printf("tsan load: 3 loads, %u lines, ok\n", lines);
	return 0;
}
