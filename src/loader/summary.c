/*
 * The two summaries that close a load (docs/log-format.md, "Loader"; the
 * loader's other lines are lines.c's):
 *
 * - `complement ready`: resident and pinned bytes and the total time with
 *   allocation, pinning and copy separated (seed 000 asked for exactly
 *   this: a slow allocation hid inside one "complement" number), then the
 *   real page backing from smaps. The THP policy and why, the pin backend
 *   and its retries, and the vmstat counters that moved over the load are
 *   fields only: the arena line, the pin note and the phase lines say them
 *   in their sentences (each figure once in a brief log).
 * - `loaded`: the rate over the whole wall time first, then each phase's
 *   time (seed 001: a rate over the copy alone said 2.86 GiB/s for a start
 *   that took 432 s), and what ran; why the arena was not registered is a
 *   field (`unregistered`).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "loader/load_state.h"
#include "profiler/internal.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static double sec(uint64_t ns)
{
	return (double)ns / 1e9;
}

static double rate(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes / GIB / sec(ns) : 0.0;
}

static void vm_fields(struct lsc__rec *r, const struct lsc_vmstat *vm0, const struct lsc_vmstat *vm1)
{
	for (int c = 0; c < LSC_VM_COUNT; c++) {
		uint32_t bit = 1u << c;
		if ((vm0->valid & bit) && (vm1->valid & bit) && vm1->v[c] != vm0->v[c])
			lsc__rec_i64(r, lsc__vm_keys[c], vm1->v[c] - vm0->v[c]);
	}
	if (!vm0->valid || !vm1->valid)
		lsc__rec_str(r, LSC__KEY(VM), "n/a");
}

/* lsc_load_into: the memory was allocated and pinned by the caller, so
 * there are no allocate and pin figures of ours; what the profiler can see
 * of that memory takes their place (smaps backing and Locked, the
 * process's VmPin: a driver's pin of the caller's buffer shows there). */
static void caller_complement(const struct lsc__load *L, struct lsc__rec *r,
			      const struct lsc_vmstat *vm0, const struct lsc_vmstat *vm1)
{
	const struct lsc_load_stats *st = &L->out->st;
	lsc__rec_say(r,
		     "ready: %.2f GiB read into memory allocated and pinned by the caller in %.3f s "
		     "(copy %.3f s); the caller's memory: %.2f GiB of %.2f GiB in huge pages, "
		     "%.2f GiB locked",
		     st->bytes / GIB, sec(st->wall_ns), sec(st->read_ns), st->huge_bytes / GIB,
		     st->arena_bytes / GIB, st->locked_bytes / GIB);
	if (st->process_pin_kib >= 0)
		lsc__rec_say(r, ", process VmPin %.2f GiB", st->process_pin_kib / (1024.0 * 1024));
	else
		lsc__rec_say(r, ", process VmPin n/a");
	lsc__rec_detail(r);
	lsc__rec_u64(r, LSC__KEY(RESIDENT_BYTES), st->arena_bytes);
	lsc__rec_u64(r, LSC__KEY(PINNED_BYTES), st->locked_bytes);
	lsc__rec_f64(r, LSC__KEY(TOTAL_S), sec(st->wall_ns), 3);
	lsc__rec_f64(r, LSC__KEY(ALLOC_S), 0.0, 3);
	lsc__rec_f64(r, "pin_s", 0.0, 3);
	lsc__rec_f64(r, LSC__KEY(COPY_S), sec(st->read_ns), 3);
	lsc__rec_f64(r, LSC__KEY(READ_S), sec(st->read_ns), 3);
	lsc__rec_str(r, "memory", "caller");
	lsc__rec_u64(r, "huge_bytes", st->huge_bytes);
	lsc__rec_u64(r, "locked_bytes", st->locked_bytes);
	lsc__rec_i64(r, "process_pin_kib", st->process_pin_kib);
	vm_fields(r, vm0, vm1);
	lsc__emit(L->p, r);
}

static void complement(const struct lsc__load *L, const struct lsc_vmstat *vm0,
		       const struct lsc_vmstat *vm1)
{
	const struct lsc__arena *a = &L->out->a;
	const struct lsc_load_stats *st = &L->out->st;
	struct lsc__rec r;
	lsc__rec_init(&r, LSC__EV(COMPLEMENT));
	uint64_t resident = st->arena_bytes;
	if (L->caller_memory) {
		caller_complement(L, &r, vm0, vm1);
		return;
	}
	/* The arena line gave the policy's reason and the phase lines the
	 * counters: the brief sentence says neither again (the fields do). */
	lsc__rec_say(&r,
		     "ready: resident %.2f GiB, pinned %.2f GiB in %.3f s "
		     "(alloc %.3f s, pin %.3f s, copy %.3f s); %.2f GiB of it in huge pages",
		     resident / GIB, a->pinned_bytes / GIB, sec(st->wall_ns),
		     sec(a->alloc_ns + a->prefault_ns), sec(a->pin_ns), sec(st->read_ns),
		     st->huge_bytes / GIB);
	/* the pin note said the backend, its retries and failures */
	lsc__rec_detail(&r);

	lsc__rec_u64(&r, LSC__KEY(RESIDENT_BYTES), resident);
	lsc__rec_u64(&r, LSC__KEY(PINNED_BYTES), a->pinned_bytes);
	lsc__rec_f64(&r, LSC__KEY(TOTAL_S), sec(st->wall_ns), 3);
	lsc__rec_f64(&r, LSC__KEY(ALLOC_S), sec(a->alloc_ns + a->prefault_ns), 3); /* the allocate phase, prefault included */
	lsc__rec_f64(&r, "prefault_s", sec(a->prefault_ns), 3);
	lsc__rec_f64(&r, "pin_s", sec(a->pin_ns), 3);
	lsc__rec_f64(&r, LSC__KEY(COPY_S), sec(st->read_ns), 3);
	lsc__rec_f64(&r, LSC__KEY(READ_S), sec(st->read_ns), 3);
	lsc__rec_u64(&r, "huge_bytes", st->huge_bytes);
	lsc__rec_str(&r, "thp_policy", lsc_thp_policy_name(a->applied));
	lsc__rec_str(&r, LSC__KEY(THP_REASON), a->thp_reason[0] ? a->thp_reason : "n/a");
	if (a->auto_watch) {
		lsc__rec_u64(&r, "auto_huge_bytes", a->auto_huge_bytes);
		lsc__rec_u64(&r, "auto_switched", (uint64_t)a->auto_switched);
		if (a->auto_switched)
			lsc__rec_u64(&r, "auto_switch_at_bytes", a->auto_switch_at);
	}
	lsc__rec_str(&r, LSC__KEY(PIN), a->pin ? a->pin->name : "none");
	lsc__rec_u64(&r, "pin_retries", a->pin_retries);
	lsc__rec_u64(&r, "pin_segments", a->pin_segments);
	lsc__rec_u64(&r, "pin_failures", a->pin_failures);
	vm_fields(&r, vm0, vm1);
	lsc__emit(L->p, &r);
}

static void loaded(const struct lsc__load *L)
{
	const struct lsc_load_stats *st = &L->out->st;
	const struct lsc__arena *a = &L->out->a;
	uint64_t alloc_ns = a->alloc_ns + a->prefault_ns;
	char staging[48];
	if (!L->n_staged)
		snprintf(staging, sizeof(staging), "none");
	else if (L->C % (1u << 20) == 0)
		snprintf(staging, sizeof(staging), "%ux%" PRIu64 "MiB", L->K, L->C >> 20);
	else
		snprintf(staging, sizeof(staging), "%ux%" PRIu64 "KiB", L->K, L->C >> 10);

	struct lsc__rec r;
	lsc__rec_init(&r, LSC__EV(LOADED));
	lsc__rec_say(&r, "%.2f GiB in %.3f s (%.2f GiB/s over the wall time); ",
		     st->bytes / GIB, sec(st->wall_ns), rate(st->bytes, st->wall_ns));
	if (L->caller_memory)
		lsc__rec_say(&r, "allocate and pin by the caller, ");
	else
		lsc__rec_say(&r, "allocate %.3f s, pin %.3f s, ", sec(alloc_ns), sec(a->pin_ns));
	lsc__rec_say(&r, "read %.3f s (%.2f GiB/s)", sec(st->read_ns), rate(st->bytes, st->read_ns));
	if (L->n_staged)
		lsc__rec_say(&r, ", copy %.3f s busy", sec(st->copy_ns));
	if (L->verify)
		lsc__rec_say(&r, ", verify %.3f s busy", sec(st->verify_ns));
	if (L->out->dev)
		lsc__rec_say(&r, ", device copy %.3f s busy (%.2f GiB/s)", sec(L->dev_ns),
			     rate(st->bytes, L->dev_ns));
	/* What ran; why the arena was not registered is in the fields. */
	const char *fixed = !L->fixed_bufs ? "" : L->arena_fixed || !L->to_arena ? " fixed" : " fixed staging";
	lsc__rec_say(&r, "; %s%s, %s", st->reader_applied, fixed, st->direct_applied ? "O_DIRECT" : "buffered");
	if (L->n_staged)
		lsc__rec_say(&r, ", staging %s", staging);
	if (L->n_files > 1)
		lsc__rec_say(&r, ", %u files", L->n_files);
	if (L->n_tensors)
		lsc__rec_say(&r, ", %zu tensor%s", L->n_tensors, L->n_tensors == 1 ? "" : "s");
	lsc__rec_detail(&r);

	lsc__rec_u64(&r, LSC__KEY(BYTES), st->bytes);
	lsc__rec_f64(&r, LSC__KEY(WALL_S), sec(st->wall_ns), 3);
	lsc__rec_f64(&r, LSC__KEY(GIBPS), rate(st->bytes, st->wall_ns), 2);
	lsc__rec_f64(&r, LSC__KEY(ALLOC_S), sec(alloc_ns), 3);
	lsc__rec_f64(&r, "pin_s", sec(a->pin_ns), 3);
	lsc__rec_f64(&r, LSC__KEY(READ_S), sec(st->read_ns), 3);
	lsc__rec_f64(&r, LSC__KEY(READ_GIBPS), rate(st->bytes, st->read_ns), 2);
	lsc__rec_f64(&r, LSC__KEY(COPY_S), sec(st->copy_ns), 3);
	if (L->verify)
		lsc__rec_f64(&r, "verify_s", sec(st->verify_ns), 3);
	else
		lsc__rec_str(&r, "verify_s", "n/a");
	lsc__rec_str(&r, "reader", st->reader_applied);
	lsc__rec_i64(&r, "fixed", L->fixed_bufs);
	lsc__rec_i64(&r, "fixed_arena", L->arena_fixed);
	lsc__rec_i64(&r, "fixed_files", L->fixed_files);
	if (L->arena_unreg_why[0] && strcmp(st->reader_applied, "pread"))
		lsc__rec_str(&r, "unregistered", L->arena_unreg_why);
	lsc__rec_i64(&r, "async", L->async_applied);
	lsc__rec_i64(&r, LSC__KEY(DIRECT), st->direct_applied);
	lsc__rec_str(&r, "staging", staging);
	lsc__rec_u64(&r, "qd", L->Q);
	lsc__rec_u64(&r, "files", L->n_files);
	lsc__rec_u64(&r, "extents", L->n_ext);
	lsc__rec_u64(&r, "tensors", L->n_tensors);
	if (L->caller_memory)
		lsc__rec_str(&r, "memory", "caller");
	if (L->out->dev) {
		lsc__rec_i64(&r, "device", L->o.device);
		lsc__rec_f64(&r, "device_s", sec(L->dev_ns), 3);
		lsc__rec_f64(&r, "device_gibps", rate(st->bytes, L->dev_ns), 2);
	}
	lsc__emit(L->p, &r);
}

void lsc__load_summary(const struct lsc__load *L, const struct lsc_vmstat *vm0,
		       const struct lsc_vmstat *vm1)
{
	if (!lsc_profiler_enabled(L->p))
		return;
	complement(L, vm0, vm1);
	loaded(L);
}
