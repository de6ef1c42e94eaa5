/*
 * Description: `loadscope load --device N` (tools/load_device.c). Over a
 * fake runtime's table (a pin backend with device memory) the option
 * makes a strict device load whose `loaded` line gives the device copy's
 * rate and whose device bytes are the file's; a fake runtime that finds
 * no device, and this build's real runtimes on a machine without one,
 * give one `error what=device` line with the backend's reason and load
 * nothing; a backend without device memory is refused. The program
 * itself exits 1 with that one line, or 64 for a backend without device
 * memory.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "helpers/load_helpers.h"
#include "helpers/pin_fakes.h"
#include "helpers/sys_shim.h"
#include "load_device.h"
#include "loader/arena.h"

static struct lsct_capture cap;

struct lsc__dev {
	unsigned char *mem;
	size_t bytes;
};

static int probe_fails;

static int fake_probe(char *why, size_t why_len)
{
	if (!probe_fails)
		return 0;
	snprintf(why, why_len, "fake: no device (test)");
	return LSC_E_NODEVICE;
}

static int fake_open(int device, size_t bytes, unsigned slots, struct lsc__dev **out, char *why,
		     size_t why_len)
{
	(void)device, (void)slots, (void)why, (void)why_len;
	struct lsc__dev *d = calloc(1, sizeof(*d));
	d->mem = calloc(1, bytes ? bytes : 1);
	d->bytes = bytes;
	*out = d;
	return 0;
}

static int fake_copy(struct lsc__dev *d, size_t off, const void *host, size_t len, unsigned slot)
{
	(void)slot;
	cr_assert(off + len <= d->bytes);
	memcpy(d->mem + off, host, len);
	return 0;
}

static int fake_wait(struct lsc__dev *d, unsigned slot)
{
	(void)d, (void)slot;
	return 0;
}

static void fake_close(struct lsc__dev *d)
{
	free(d->mem);
	free(d);
}

static void *fake_base(struct lsc__dev *d)
{
	return d->mem;
}

static const struct lsc__pin_ops fake = {
	.name = "fakegpu", .caps = LSC__PIN_CAP_LOCKS | LSC__PIN_CAP_REGISTER | LSC__PIN_CAP_DEVICE,
	.probe = fake_probe, .pin = lsct_pin_nothing, .unpin = lsct_unpin_nothing,
	.dev_open = fake_open, .dev_copy = fake_copy, .dev_wait = fake_wait, .dev_close = fake_close,
	.dev_base = fake_base,
};

static void setup(void)
{
	probe_fails = 0;
	lsct_sys_install(NULL);
}

static void teardown(void)
{
	lsc__pin_override(NULL);
	lsct_sys_restore();
	lsct_capture_reset(&cap);
}

TestSuite(load_device_cli, .init = setup, .fini = teardown);

Test(load_device_cli, a_fake_device_gets_every_byte_and_a_rate)
{
	char *path = strdup(lsct_make_file("dev_cli.bin", (3u << 20) + 5, 11));
	lsc__pin_override(&fake);
	lsc_profiler *p = lsct_profiler(&cap);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.reader = "pread";
	char why[320] = "";
	cr_assert_eq(lsc_tool_load_device(p, &o, 0, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(o.device, 0);
	cr_assert(o.flags & LSC_LOAD_PIN_STRICT);
	cr_assert_eq(lsct_count(&cap, "error"), 0);
	struct lsc_extent e = {.path = path, .length = UINT64_MAX};
	lsc_arena *a = NULL;
	cr_assert_eq(lsc_load(p, &o, &e, 1, 0, &a), 0);
	uint64_t len;
	unsigned char *want = lsct_read_file(path, &len);
	cr_assert_eq(len, (3u << 20) + 5);
	cr_assert(memcmp(lsc_arena_device_data(a), want, len) == 0, "device bytes differ");
	char v[64];
	cr_assert(lsct_field(&cap, "loaded", "device", v, sizeof(v)));
	cr_assert_str_eq(v, "0");
	cr_assert(lsct_field(&cap, "loaded", "device_gibps", v, sizeof(v)), "no device rate");
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "loaded", 0, buf, sizeof(buf), &pl));
	const char *dc = strstr(pl.human, "device copy ");
	cr_assert_not_null(dc, "%s", pl.human);
	double secs, rate;
	cr_assert_eq(sscanf(dc, "device copy %lf s busy (%lf GiB/s)", &secs, &rate), 2, "%s", dc);
	free(want);
	lsc_arena_destroy(a);
	lsc_profiler_destroy(p);
	free(path);
}

Test(load_device_cli, a_fake_runtime_without_a_device_gives_its_one_line)
{
	lsc__pin_override(&fake);
	probe_fails = 1;
	lsc_profiler *p = lsct_profiler(&cap);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	char why[320] = "";
	cr_assert_eq(lsc_tool_load_device(p, &o, 2, why, sizeof(why)), LSC_E_NODEVICE);
	cr_assert_str_eq(why, "fake: no device (test)");
	cr_assert_eq(o.device, -1);
	cr_assert_eq(lsct_count(&cap, "error"), 1);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
	cr_assert_str_eq(lsc__parsed_get(&pl, "what"), "device");
	cr_assert_str_eq(lsc__parsed_get(&pl, "err"), "LSC_E_NODEVICE");
	cr_assert_str_eq(lsc__parsed_get(&pl, "cause"), "--device 2: fake: no device (test)");
	cr_assert_eq(lsct_sys_calls(LSCT_SYS_MMAP), 0, "memory was mapped for a load that cannot run");
	lsc_profiler_destroy(p);
}

Test(load_device_cli, a_backend_without_device_memory_is_refused)
{
	lsc_profiler *p = lsct_profiler(&cap);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.pin = "mlock";
	char why[320] = "";
	cr_assert_eq(lsc_tool_load_device(p, &o, 0, why, sizeof(why)), -EINVAL);
	cr_assert_str_eq(why, "the mlock pin backend has no device memory");
	cr_assert_eq(cap.lines, 0);
	lsc_profiler_destroy(p);
}

/* This build's real runtimes, on a machine where they find no device. */
static void real_runtime(const char *name)
{
	const struct lsc__pin_ops *ops = lsc__pin_find(name);
	if (!ops)
		cr_skip("this build has no %s backend", name);
	char pw[256] = "";
	if (ops->probe(pw, sizeof(pw)) == 0)
		cr_skip("%s finds a device here: the no-device path is not reachable", name);
	lsc_profiler *p = lsct_profiler(&cap);
	struct lsc_load_options o;
	lsc_load_options_init(&o);
	o.pin = name;
	char why[320] = "";
	int ret = lsc_tool_load_device(p, &o, 0, why, sizeof(why));
	cr_assert(ret == LSC_E_NODEVICE || ret == LSC_E_NORUNTIME, "%d", ret);
	cr_assert_str_eq(why, pw);
	char prefix[16];
	snprintf(prefix, sizeof(prefix), "%s: ", name);
	cr_assert(!strncmp(why, prefix, strlen(prefix)), "%s", why);
	cr_assert_eq(lsct_count(&cap, "error"), 1);
	cr_assert_eq(cap.lines, 1);
	char buf[LSC__LINE_MAX + 1];
	struct lsc__parsed pl;
	cr_assert(lsct_find(&cap, "error", 0, buf, sizeof(buf), &pl));
	char cause[320];
	snprintf(cause, sizeof(cause), "--device 0: %s", pw);
	cr_assert_str_eq(lsc__parsed_get(&pl, "cause"), cause);
	lsc_profiler_destroy(p);
}

Test(load_device_cli, real_cuda_without_a_device)
{
	real_runtime("cuda");
}

Test(load_device_cli, real_hip_without_a_device)
{
	real_runtime("hip");
}

static char out[1 << 16];

static int run(const char *args)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "LOADSCOPE= '%s' load %s 2>/dev/null", LSC_TEST_TOOL, args);
	FILE *f = popen(cmd, "r");
	cr_assert_not_null(f);
	size_t n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	int st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static unsigned count(const char *needle)
{
	unsigned n = 0;
	for (const char *s = out; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

Test(load_device_cli, the_program_without_a_device)
{
	if (!LSC_TEST_TOOL[0])
		cr_skip("the loadscope program is not built");
	const struct lsc__pin_ops *first = NULL;
	for (const struct lsc__pin_ops *const *b = lsc__pin_backends; *b && !first; b++)
		if ((*b)->caps & LSC__PIN_CAP_DEVICE)
			first = *b;
	if (!first)
		cr_skip("this build has no GPU backend");
	char pw[256] = "";
	if (first->probe(pw, sizeof(pw)) == 0)
		cr_skip("%s finds a device here", first->name);
	char *path = strdup(lsct_make_file("dev_prog.bin", 65536, 12));
	char args[700];
	snprintf(args, sizeof(args), "'%s' --device 0", path);
	cr_assert_eq(run(args), 1, "%s", out);
	cr_assert_eq(count("[loadscope/2] error "), 1, "%s", out);
	cr_assert_eq(count("what=device"), 1, "%s", out);
	cr_assert_eq(count("[loadscope/2] loaded "), 0, "%s", out);
	cr_assert_eq(count("[loadscope/2] phase "), 0, "something was allocated: %s", out);
	snprintf(args, sizeof(args), "'%s' --device 0 --pin mlock", path);
	cr_assert_eq(run(args), 64);
	cr_assert_str_eq(out, "");
	free(path);
}
