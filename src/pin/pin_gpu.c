/*
 * The GPU pin backends' shared core (see pin_gpu.h): registration and
 * allocation with bounded retries, the device pointer, and the
 * double-buffered device copy, over a runtime table that pin_cuda.c or
 * pin_hip.c fills. No GPU header and no #ifdef: compiled in every build.
 *
 * Every hook first replays the device count taken once per process: the
 * runtime enumerates devices once at initialisation too, so a machine
 * without a device gets the same one reason from pin, alloc and dev_open
 * as from probe.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <loadscope/common.h>

#include "pin/gpu_dl.h"
#include "pin/kfd_counter.h"
#include "pin/pin_gpu.h"

/* One line naming the call, the runtime's error and its words, as the
 * backend words it; the runtime's error is cleared for the next call. */
static int fail(const struct lsc__gpu_rt *rt, int e, const char *call, char *why, size_t why_len)
{
	const struct lsc__gpu_fns *fn = &rt->state->fn;
	int r = rt->map_err(e);

	if (fn->GetLastError)
		(void)fn->GetLastError(); /* a non-sticky error would taint the next call */
	if (!why || !why_len)
		return r;
	const char *name = fn->GetErrorName ? fn->GetErrorName(e) : NULL;
	const char *words = fn->GetErrorString ? fn->GetErrorString(e) : NULL;
	const struct lsc__gpu_err err = {
		.err = e,
		.r = r,
		.call = call,
		.name = name ? name : rt->unknown,
		.words = words ? words : "unknown error",
	};
	rt->describe(&err, why, why_len);
	return r;
}

/* fail() for a call named by its entry point ("Malloc" -> "cudaMalloc"). */
static int fail_in(const struct lsc__gpu_rt *rt, int e, const char *entry, char *why,
		   size_t why_len)
{
	char call[64];
	snprintf(call, sizeof(call), "%s%s", rt->name, entry);
	return fail(rt, e, call, why, why_len);
}

/* fail() for a call on @len bytes ("cudaHostRegister(4096 bytes, after retries)"). */
static int fail_sized(const struct lsc__gpu_rt *rt, int e, const char *prefix, const char *symbol,
		      size_t len, unsigned tries, char *why, size_t why_len)
{
	char call[96];
	snprintf(call, sizeof(call), "%s%s(%zu bytes%s)", prefix, symbol, len,
		 tries ? ", after retries" : "");
	return fail(rt, e, call, why, why_len);
}

/* dlopen the runtime and resolve every entry point, all or nothing. */
static int load(const struct lsc__gpu_rt *rt, struct lsc__gpu_fns *fn, char *why, size_t why_len)
{
#define PREFIXED(f) {#f, NULL, (void **)&fn->f}
	const struct {
		const char *entry, *symbol; /* a symbol is <name><entry> unless named */
		void **slot;
	} rows[] = {
		PREFIXED(GetDeviceCount), PREFIXED(GetErrorName), PREFIXED(GetErrorString),
		PREFIXED(GetLastError), PREFIXED(HostRegister), PREFIXED(HostUnregister),
		{NULL, rt->host_alloc, (void **)&fn->HostAlloc},
		{NULL, rt->free_host, (void **)&fn->FreeHost},
		PREFIXED(HostGetDevicePointer), PREFIXED(SetDevice), PREFIXED(GetDevice),
		PREFIXED(Malloc), PREFIXED(Free), PREFIXED(StreamCreateWithFlags),
		PREFIXED(StreamSynchronize), PREFIXED(StreamDestroy), PREFIXED(EventCreateWithFlags),
		PREFIXED(EventRecord), PREFIXED(EventSynchronize), PREFIXED(EventDestroy),
		PREFIXED(MemcpyAsync),
	};
#undef PREFIXED
	enum { N = sizeof(rows) / sizeof(rows[0]) };
	char names[N][64];
	struct lsc__gpu_sym syms[N];
	const char *file;
	void *h;

	if (rt->fns) {
		*fn = *rt->fns;
		return 0;
	}
	for (size_t i = 0; i < N; i++) {
		syms[i].slot = rows[i].slot;
		syms[i].name = rows[i].symbol;
		if (!rows[i].symbol) {
			snprintf(names[i], sizeof(names[i]), "%s%s", rt->name, rows[i].entry);
			syms[i].name = names[i];
		}
	}
	int r = lsc__gpu_dlopen(rt->name, rt->libs, &h, &file, why, why_len);
	if (r)
		return r;
	/* On a missing symbol the handle stays open: harmless, and dlclose of a
	 * runtime that may have started threads is not. */
	return lsc__gpu_dlsyms(rt->name, h, file, syms, N, why, why_len);
}

static int probe_now(const struct lsc__gpu_rt *rt, char *why, size_t why_len)
{
	struct lsc__gpu_fns *fn = &rt->state->fn;
	int n = 0;
	int r = load(rt, fn, why, why_len);

	if (r)
		return r;
	int e = fn->GetDeviceCount(&n);
	if (e != rt->ok)
		return fail(rt, e, NULL, why, why_len);
	if (n <= 0)
		return fail(rt, rt->no_device, NULL, why, why_len);
	return 0;
}

/* The runtime's answer, loaded and probed once per process. */
static int ready(const struct lsc__gpu_rt *rt, char *why, size_t why_len)
{
	struct lsc__gpu_state *s = rt->state;

	if (!atomic_load_explicit(&s->done, memory_order_acquire)) {
		pthread_mutex_lock(&s->lock);
		if (!atomic_load_explicit(&s->done, memory_order_relaxed)) {
			s->err = probe_now(rt, s->why, sizeof(s->why));
			atomic_store_explicit(&s->done, 1, memory_order_release);
		}
		pthread_mutex_unlock(&s->lock);
	}
	if (s->err && why && why_len)
		snprintf(why, why_len, "%s", s->why);
	return s->err;
}

int lsc__gpu_probe(const struct lsc__gpu_rt *rt, char *why, size_t why_len)
{
	return ready(rt, why, why_len);
}

static unsigned runtime_flags(const struct lsc__gpu_flags *m, unsigned flags)
{
	unsigned f = 0;

	if (flags & LSC__PIN_PORTABLE)
		f |= m->portable;
	if (flags & LSC__PIN_MAPPED)
		f |= m->mapped;
	if (flags & LSC__PIN_READONLY)
		f |= m->readonly;
	return f;
}

/* Whether to call again after @e: an allocation failure only, at most
 * LSC__GPU_RETRIES times, after 1 ms then 10 ms. Any other error is final. */
static int again(const struct lsc__gpu_rt *rt, int e, unsigned *tries)
{
	if (e != rt->out_of_memory || *tries == LSC__GPU_RETRIES)
		return 0;
	(void)rt->state->fn.GetLastError();
	struct timespec ts = {0, (*tries ? 10 : 1) * 1000000L};
	nanosleep(&ts, NULL);
	(*tries)++;
	return 1;
}

int lsc__gpu_pin(const struct lsc__gpu_rt *rt, void *addr, size_t len, unsigned flags,
		 unsigned *retries, char *why, size_t why_len)
{
	const struct lsc__gpu_fns *fn = &rt->state->fn;
	unsigned f = runtime_flags(&rt->register_flags, flags), tries = 0;
	int e, r = ready(rt, why, why_len);

	if (retries)
		*retries = 0;
	if (r)
		return r;
	uint64_t eagain0 = 0, eagain1 = 0;
	int counted = rt->kfd_eagain && lsc__kfd_counter_read(NULL, &eagain0, NULL) == 0;
	do
		e = fn->HostRegister(addr, len, f);
	while (again(rt, e, &tries));
	if (counted && lsc__kfd_counter_read(NULL, &eagain1, NULL) == 0 && eagain1 > eagain0)
		tries += (unsigned)(eagain1 - eagain0);
	if (retries)
		*retries = tries;
	return e == rt->ok ? 0 : fail_sized(rt, e, rt->name, "HostRegister", len, tries, why, why_len);
}

int lsc__gpu_unpin(const struct lsc__gpu_rt *rt, void *addr, size_t len)
{
	int r = ready(rt, NULL, 0);

	(void)len;
	if (r)
		return r;
	int e = rt->state->fn.HostUnregister(addr);
	return e == rt->ok ? 0 : fail(rt, e, NULL, NULL, 0);
}

int lsc__gpu_alloc(const struct lsc__gpu_rt *rt, size_t len, unsigned flags, void **out,
		   char *why, size_t why_len)
{
	const struct lsc__gpu_fns *fn = &rt->state->fn;
	unsigned f = runtime_flags(&rt->alloc_flags, flags), tries = 0;
	int e, r = ready(rt, why, why_len);

	*out = NULL;
	if (r)
		return r;
	do
		e = fn->HostAlloc(out, len, f);
	while (again(rt, e, &tries));
	if (e == rt->ok)
		return 0;
	*out = NULL;
	return fail_sized(rt, e, "", rt->host_alloc, len, tries, why, why_len);
}

void lsc__gpu_free(const struct lsc__gpu_rt *rt, void *addr, size_t len)
{
	(void)len;
	if (addr && !ready(rt, NULL, 0))
		(void)rt->state->fn.FreeHost(addr);
}

int lsc__gpu_device_pointer(const struct lsc__gpu_rt *rt, void *host, void **dev, char *why,
			    size_t why_len)
{
	*dev = NULL;
	int r = ready(rt, why, why_len);
	if (r)
		return r;
	int e = rt->state->fn.HostGetDevicePointer(dev, host, 0);
	if (e == rt->ok)
		return 0;
	*dev = NULL;
	return fail_in(rt, e, "HostGetDevicePointer", why, why_len);
}

/* Device side: one device buffer, one stream, one event per slot. */
struct lsc__dev {
	const struct lsc__gpu_rt *rt;
	void *base;
	size_t bytes;
	unsigned slots;
	int device;
	void *stream;
	void *ev[LSC__GPU_MAX_SLOTS];
	char why[256];
};

void lsc__gpu_dev_close(struct lsc__dev *d)
{
	if (!d)
		return;
	const struct lsc__gpu_fns *fn = &d->rt->state->fn;
	if (d->stream)
		(void)fn->StreamSynchronize(d->stream);
	for (unsigned i = 0; i < d->slots; i++)
		if (d->ev[i])
			(void)fn->EventDestroy(d->ev[i]);
	if (d->stream)
		(void)fn->StreamDestroy(d->stream);
	if (d->base)
		(void)fn->Free(d->base);
	(void)fn->GetLastError();
	free(d);
}

int lsc__gpu_dev_open(const struct lsc__gpu_rt *rt, int device, size_t bytes, unsigned slots,
		      struct lsc__dev **out, char *why, size_t why_len)
{
	const struct lsc__gpu_fns *fn = &rt->state->fn;
	const char *entry;
	int e, r = ready(rt, why, why_len);

	*out = NULL;
	if (r)
		return r;
	if (slots == 0 || slots > LSC__GPU_MAX_SLOTS || device < 0) {
		snprintf(why, why_len, "%s: dev_open: %u slots on device %d (1..%d slots)", rt->name,
			 slots, device, LSC__GPU_MAX_SLOTS);
		return -EINVAL;
	}
	struct lsc__dev *d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(why, why_len, "%s: dev_open: out of host memory", rt->name);
		return -ENOMEM;
	}
	d->rt = rt;
	d->bytes = bytes;
	d->slots = slots;
	d->device = device;
	/* The engine's thread keeps its current device: set ours for the
	 * allocations, put the engine's back on every way out. */
	int old_device = -1;
	entry = "GetDevice";
	if ((e = fn->GetDevice(&old_device)) != rt->ok)
		goto err;
	entry = "SetDevice";
	if ((e = fn->SetDevice(device)) != rt->ok)
		goto err;
	entry = "Malloc";
	if ((e = fn->Malloc(&d->base, bytes)) != rt->ok) {
		d->base = NULL;
		goto err;
	}
	entry = "StreamCreateWithFlags";
	if ((e = fn->StreamCreateWithFlags(&d->stream, rt->stream_flags)) != rt->ok) {
		d->stream = NULL;
		goto err;
	}
	entry = "EventCreateWithFlags";
	for (unsigned i = 0; i < slots; i++)
		if ((e = fn->EventCreateWithFlags(&d->ev[i], rt->event_flags)) != rt->ok) {
			d->ev[i] = NULL;
			goto err;
		}
	(void)fn->SetDevice(old_device);
	*out = d;
	return 0;
err:
	r = fail_in(rt, e, entry, why, why_len);
	lsc__gpu_dev_close(d);
	if (old_device >= 0)
		(void)fn->SetDevice(old_device);
	return r;
}

int lsc__gpu_dev_copy(struct lsc__dev *d, size_t dev_off, const void *host, size_t len,
		      unsigned slot)
{
	if (!d || slot >= d->slots || dev_off > d->bytes || len > d->bytes - dev_off)
		return -EINVAL;
	const struct lsc__gpu_rt *rt = d->rt;
	const struct lsc__gpu_fns *fn = &rt->state->fn;
	int e = fn->MemcpyAsync((char *)d->base + dev_off, host, len, rt->host_to_device, d->stream);
	if (e != rt->ok)
		return fail_in(rt, e, "MemcpyAsync", d->why, sizeof(d->why));
	e = fn->EventRecord(d->ev[slot], d->stream);
	if (e != rt->ok)
		return fail_in(rt, e, "EventRecord", d->why, sizeof(d->why));
	return 0;
}

int lsc__gpu_dev_wait(struct lsc__dev *d, unsigned slot)
{
	if (!d || slot >= d->slots)
		return -EINVAL;
	int e = d->rt->state->fn.EventSynchronize(d->ev[slot]);
	return e == d->rt->ok ? 0 : fail_in(d->rt, e, "EventSynchronize", d->why, sizeof(d->why));
}

void *lsc__gpu_dev_base(struct lsc__dev *d)
{
	return d ? d->base : NULL;
}

const char *lsc__gpu_dev_why(struct lsc__dev *d)
{
	return d ? d->why : "";
}
