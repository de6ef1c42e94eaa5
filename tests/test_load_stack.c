/*
 * Description: the stack a load needs on the caller's thread, as
 * include/loadscope/loader.h documents it (LSC_LOAD_STACK_BYTES). A load
 * runs on a thread whose stack the test mapped and painted with a pattern;
 * the deepest byte that lost the pattern gives the stack used, which must
 * stay under the documented figure, for the pread and io_uring readers,
 * into the arena and through staging, with verify and with a failure line
 * (the error path prints from deeper frames). Then a load runs on a thread
 * created with exactly that stack size. Sanitizer builds grow every frame
 * (redzones): there the bound is 4 times the figure. A GGUF model's
 * manifest and load are measured the same way (the header parser's
 * buffers must not be on the caller's stack). The prefault threads
 * are the library's own and not counted here.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "helpers/load_helpers.h"
#include "helpers/model_files.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
#define BOUND (4 * LSC_LOAD_STACK_BYTES)
#else
#define BOUND LSC_LOAD_STACK_BYTES
#endif
#define PAINTED (1u << 20)
#define PAINT 0xa5

static struct lsct_capture cap;

struct job {
	const char *path;
	const char *reader;
	unsigned staging;
	uint64_t length; /* UINT64_MAX: whole file; else more than it holds (fails) */
	int good;        /* no expected hash: the load succeeds, summary lines and all */
	const char *pin;
	int ret;
};

static void *run(void *arg)
{
	struct job *j = arg;
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = j->reader;
	o.prefault_threads = 1;
	if (j->staging) {
		o.staging_count = j->staging;
		o.staging_bytes = 1u << 20;
	}
	o.pin = j->pin;
	struct lsc_extent e = {.path = j->path, .length = j->length, .has_xxh3 = !j->good, .xxh3 = 1};
	lsc_profiler *p = lsct_profiler(&cap);
	lsc_arena *a = NULL;
	j->ret = lsc_load(p, &o, &e, 1, 0, &a);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	return NULL;
}

/* A GGUF file by hand: version 3, one KV (general.architecture = "llama"),
 * one F32 tensor "t" of 4 elements at offset 0; the header is 24 + 45 + 33
 * = 102 bytes, the data at 128 (alignment 32), 16 bytes. */
static char *gguf_file(void)
{
	unsigned char b[144] = {0};
	size_t n = 0;
#define PUT(p, len) (memcpy(b + n, (p), (len)), n += (len))
#define U32(v) do { uint32_t v_ = (v); PUT(&v_, 4); } while (0)
#define U64(v) do { uint64_t v_ = (v); PUT(&v_, 8); } while (0)
	PUT("GGUF", 4);
	U32(3);
	U64(1);
	U64(1);
	U64(20);
	PUT("general.architecture", 20);
	U32(8);
	U64(5);
	PUT("llama", 5);
	U64(1);
	PUT("t", 1);
	U32(1);
	U64(4);
	U32(0);
	U64(0);
	cr_assert_eq(n, 102);
	for (unsigned i = 0; i < 16; i++)
		b[128 + i] = (unsigned char)(i * 7 + 1);
#undef PUT
#undef U32
#undef U64
	return lsct_write("s.gguf", b, sizeof b);
}

static void *run_gguf(void *arg)
{
	struct job *j = arg;
	lsc_profiler *p = lsct_profiler(&cap);
	struct lsc_manifest *m = NULL;
	lsc_arena *a = NULL;
	j->ret = lsc_manifest_from_files(p, &j->path, 1, &m);
	if (j->ret == 0)
		j->ret = lsc_load_manifest(p, NULL, m, &a);
	lsc_arena_destroy(a);
	lsc_manifest_destroy(m);
	lsc_profiler_destroy(p);
	return NULL;
}

/* Bytes of a painted stack that @fn(@j) used. */
static size_t used_by_fn(void *(*fn)(void *), struct job *j)
{
	unsigned char *stk = mmap(NULL, PAINTED, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(stk != MAP_FAILED);
	memset(stk, PAINT, PAINTED);
	pthread_attr_t at;
	pthread_attr_init(&at);
	cr_assert_eq(pthread_attr_setstack(&at, stk, PAINTED), 0);
	pthread_t t;
	cr_assert_eq(pthread_create(&t, &at, fn, j), 0);
	pthread_join(t, NULL);
	pthread_attr_destroy(&at);
	size_t low = 0;
	while (low < PAINTED && stk[low] == PAINT)
		low++;
	munmap(stk, PAINTED);
	lsct_capture_reset(&cap);
	return PAINTED - low;
}

static size_t used_by(struct job *j)
{
	return used_by_fn(run, j);
}

static void within(const char *reader, unsigned staging, uint64_t length, int want)
{
	struct job j = {.path = lsct_make_file("s.bin", (3u << 20) + 9, 8), .reader = reader,
			.staging = staging, .length = length, .good = want == 0, .pin = "mlock"};
	size_t used = used_by(&j);
	/* want != 0: has_xxh3 with a wrong hash, so the verify path and its
	 * error line run; want == 0: the summary lines */
	cr_assert_eq(j.ret, want, "%s", lsc_strerror(j.ret));
	fprintf(stderr, "stack used by a %s load (staging %u, rc %d): %zu bytes\n", reader, staging,
		j.ret, used);
	cr_assert_lt(used, (size_t)BOUND, "%s: %zu bytes of stack, documented %u", reader, used,
		     (unsigned)LSC_LOAD_STACK_BYTES);
}

Test(load_stack, pread_into_the_arena)
{
	within("pread", 0, UINT64_MAX, LSC_E_HASH);
}

Test(load_stack, pread_through_staging)
{
	within("pread", 4, UINT64_MAX, LSC_E_HASH);
}

Test(load_stack, io_uring_into_the_arena)
{
	within("io_uring", 0, UINT64_MAX, LSC_E_HASH);
}

Test(load_stack, io_uring_through_staging)
{
	within("io_uring", 4, UINT64_MAX, LSC_E_HASH);
}

Test(load_stack, pread_success)
{
	within("pread", 0, UINT64_MAX, 0);
}

Test(load_stack, io_uring_success_through_staging)
{
	within("io_uring", 4, UINT64_MAX, 0);
}

Test(load_stack, manifest_error)
{
	within("io_uring", 0, 1ull << 40, LSC_E_SHORT);
}

Test(load_stack, gguf_manifest_and_load)
{
	char *path = gguf_file();
	struct job j = {.path = path};
	size_t used = used_by_fn(run_gguf, &j);
	free(path);
	cr_assert_eq(j.ret, 0, "%s", lsc_strerror(j.ret));
	fprintf(stderr, "stack used by a GGUF manifest and load: %zu bytes\n", used);
	cr_assert_lt(used, (size_t)BOUND, "%zu bytes of stack, documented %u", used,
		     (unsigned)LSC_LOAD_STACK_BYTES);
}

Test(load_stack, a_thread_of_exactly_the_documented_size_loads)
{
	struct job j = {.path = lsct_make_file("t.bin", (3u << 20) + 9, 9), .reader = "io_uring",
			.length = UINT64_MAX};
	pthread_attr_t at;
	pthread_attr_init(&at);
	cr_assert_eq(pthread_attr_setstacksize(&at, BOUND), 0);
	pthread_t t;
	cr_assert_eq(pthread_create(&t, &at, run, &j), 0);
	pthread_join(t, NULL);
	pthread_attr_destroy(&at);
	cr_assert_eq(j.ret, LSC_E_HASH, "%s", lsc_strerror(j.ret));
}
