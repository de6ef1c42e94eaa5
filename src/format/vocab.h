/*
 * The line vocabulary (docs/log-format.md), declared once for the writers
 * (profiler, loader, system line, probe) and the reader (the triage): the
 * event names, the field keys a reader looks for, the probe's warning ids
 * and the vmstat counters with their keys. A name spelled in two places
 * drifts, and a triage that looks for a key nobody writes any more goes
 * quiet instead of failing; here a writer and the reader take the same
 * entry.
 *
 * Each list is an X-macro, X(SYMBOL, "name"): the enum, the table of names
 * and the lookup come from the one entry, and a misspelt symbol does not
 * compile. LSC__EV(PHASE), LSC__KEY(WALL_S) and LSC__ID(HOST_REFAULT) are
 * the strings. A key that only people read stays a literal at its writer;
 * the list holds the keys some reader matches.
 */
#ifndef LSC_FORMAT_VOCAB_H
#define LSC_FORMAT_VOCAB_H

#include <stdint.h>

#include <loadscope/profiler.h>

#include "format/line.h"

/* ---- events ------------------------------------------------------------------------ */

#define LSC__EVENT_LIST(X)                                                                  \
	X(START, "start")                                                                   \
	X(SYSTEM, "system")                                                                 \
	X(PHASE, "phase")                                                                   \
	X(REGION, "region")                                                                 \
	X(STILL, "still")                                                                   \
	X(READY, "ready")                                                                   \
	X(NOTE, "note")                                                                     \
	X(FALLBACK, "fallback")                                                             \
	X(ARENA, "arena")                                                                   \
	X(COMPLEMENT, "complement")                                                         \
	X(LOADED, "loaded")                                                                 \
	X(USAGE, "usage")                                                                   \
	X(ERROR, "error")                                                                   \
	X(WARN, "warn")                                                                     \
	X(OK, "ok")                                                                         \
	X(VERDICT, "verdict")

/* ---- keys a reader matches ------------------------------------------------------- */

#define LSC__KEY_LIST(X)                                                                    \
	/* every line */                                                                    \
	X(RUN, "run")                                                                       \
	/* phase, still, ready, region */                                                   \
	X(KIND, "kind")                                                                     \
	X(NAME, "name")                                                                     \
	X(BYTES, "bytes")                                                                   \
	X(WALL_S, "wall_s")                                                                 \
	X(GIBPS, "gibps")                                                                   \
	X(FAULTS_PER_S, "faults_per_s")                                                     \
	X(MAJFLT, "majflt")                                                                 \
	X(DEPTH, "depth")                                                                   \
	X(VM, "vm")                                                                         \
	X(OVERLAPPED, "overlapped")                                                         \
	X(ELAPSED_S, "elapsed_s")                                                           \
	X(DONE_BYTES, "done_bytes")                                                         \
	X(COVERED_S, "covered_s")                                                           \
	X(UNATTRIBUTED_S, "unattributed_s")                                                 \
	X(HUGETLB_BYTES, "hugetlb_bytes")                                                   \
	X(PSI_SOME_US, "psi_some_us")                                                       \
	X(PSI_FULL_US, "psi_full_us")                                                       \
	X(PSI_SOME_US_PER_S, "psi_some_us_per_s")                                           \
	X(PSI_FULL_US_PER_S, "psi_full_us_per_s")                                           \
	/* system (and the probe's warnings) */                                             \
	X(THP_ENABLED, "thp_enabled")                                                       \
	X(THP_DEFRAG, "thp_defrag")                                                         \
	X(THP_PRCTL, "thp_prctl")                                                           \
	X(THP_PROCESS, "thp_process")                                                       \
	X(MEMLOCK_BYTES, "memlock_bytes")                                                   \
	X(CAP_IPC_LOCK, "cap_ipc_lock")                                                     \
	X(MEM_TOTAL_BYTES, "mem_total_bytes")                                               \
	X(HUGETLB_TOTAL, "hugetlb_total")                                                   \
	X(HUGETLB_FREE, "hugetlb_free")                                                     \
	X(PAGE_REPORTING, "page_reporting")                                                 \
	X(PAGE_REPORTING_ORDER, "page_reporting_order")                                     \
	/* note, usage, error, fallback, arena */                                           \
	X(TOPIC, "topic")                                                                   \
	X(TEXT, "text")                                                                     \
	X(WHAT, "what")                                                                     \
	X(WANTED, "wanted")                                                                 \
	X(TOOK, "took")                                                                     \
	X(REASON, "reason")                                                                 \
	X(POLICY, "policy")                                                                 \
	X(REQUESTED, "requested")                                                           \
	X(SOURCE, "source")                                                                 \
	X(ARENA_BYTES, "arena_bytes")                                                       \
	X(ERR, "err")                                                                       \
	/* complement, loaded */                                                            \
	X(TOTAL_S, "total_s")                                                               \
	X(ALLOC_S, "alloc_s")                                                               \
	X(COPY_S, "copy_s")                                                                 \
	X(READ_S, "read_s")                                                                 \
	X(READ_GIBPS, "read_gibps")                                                         \
	X(RESIDENT_BYTES, "resident_bytes")                                                 \
	X(PINNED_BYTES, "pinned_bytes")                                                     \
	X(PIN, "pin")                                                                       \
	X(THP_REASON, "thp_reason")                                                         \
	X(DIRECT, "direct")                                                                 \
	/* warn */                                                                          \
	X(ID, "id")                                                                         \
	/* read only: names that other versions' lines used, which no writer uses now */    \
	X(ERROR, "error") /* arena and note lines before 0.3 */                            \
	X(RESULT, "result")                                                                 \
	X(OK, "ok")                                                                         \
	X(VERIFY, "verify")                                                                 \
	X(PAGES_NEEDED, "pages_needed")                                                     \
	X(NEEDED_PAGES, "needed_pages")                                                     \
	X(NR_HUGEPAGES, "nr_hugepages")                                                     \
	X(ALLOCATE_S, "allocate_s")

/* ---- the probe's warning ids (stable: scripts match them) ------------------------ */

#define LSC__PROBE_ID_LIST(X)                                                               \
	X(THP_STALL_RISK, "thp-stall-risk")                                                 \
	X(HOST_REFAULT, "host-refault")                                                     \
	X(MEMLOCK_SHORT, "memlock-short")                                                   \
	X(HUGETLB_SHORT, "hugetlb-short")                                                   \
	X(MEM_SHORT, "mem-short")

/* ---- vmstat counters ---------------------------------------------------------------- */

/* Every counter of enum lsc_vm_counter with its /proc/vmstat name (also
 * lsc_vm_name()). A phase or complement line carries a counter's delta as
 * "vm_<name>", a still line its rate as "<name>_per_s". */
#define LSC__VM_LIST(X)                                                                     \
	X(COMPACT_STALL, "compact_stall")                                                   \
	X(COMPACT_FAIL, "compact_fail")                                                     \
	X(COMPACT_SUCCESS, "compact_success")                                               \
	X(THP_FAULT_ALLOC, "thp_fault_alloc")                                               \
	X(THP_FAULT_FALLBACK, "thp_fault_fallback")                                         \
	X(THP_FAULT_FALLBACK_CHARGE, "thp_fault_fallback_charge")                           \
	X(ALLOCSTALL, "allocstall")                                                         \
	X(PGSCAN_DIRECT, "pgscan_direct")                                                   \
	X(PGSTEAL_DIRECT, "pgsteal_direct")                                                 \
	X(PGFAULT, "pgfault")                                                               \
	X(PGMAJFAULT, "pgmajfault")                                                         \
	X(PSWPIN, "pswpin")                                                                 \
	X(PSWPOUT, "pswpout")                                                               \
	X(NR_FREE_PAGES, "nr_free_pages")

#define LSC__VM_KEY_PREFIX "vm_"
#define LSC__VM_RATE_SUFFIX "_per_s"

/* The words a number field says instead of a number (struct lsc_system's
 * LSC_NA and LSC_UNLIMITED). */
#define LSC__WORD_NA "n/a"
#define LSC__WORD_UNLIMITED "unlimited"

/* ---- what the lists make --------------------------------------------------------- */

#define LSC__VOCAB_EV_ENUM(sym, name) LSC__EV_##sym,
#define LSC__VOCAB_KEY_ENUM(sym, name) LSC__KEY_##sym,
#define LSC__VOCAB_ID_ENUM(sym, name) LSC__ID_##sym,
enum lsc__event { LSC__EVENT_LIST(LSC__VOCAB_EV_ENUM) LSC__EV_COUNT };
enum lsc__key { LSC__KEY_LIST(LSC__VOCAB_KEY_ENUM) LSC__KEY_COUNT };
enum lsc__probe_id { LSC__PROBE_ID_LIST(LSC__VOCAB_ID_ENUM) LSC__ID_COUNT };

extern const char *const lsc__event_names[LSC__EV_COUNT];
extern const char *const lsc__key_names[LSC__KEY_COUNT];
extern const char *const lsc__probe_ids[LSC__ID_COUNT];
/* "vm_compact_stall", ... and "compact_stall_per_s", ..., by enum lsc_vm_counter. */
extern const char *const lsc__vm_keys[LSC_VM_COUNT];
extern const char *const lsc__vm_rate_keys[LSC_VM_COUNT];

#define LSC__EV(sym) (lsc__event_names[LSC__EV_##sym])
#define LSC__KEY(sym) (lsc__key_names[LSC__KEY_##sym])
#define LSC__ID(sym) (lsc__probe_ids[LSC__ID_##sym])

/* lsc__event_of - the event named @name; -1 for none declared (or NULL). */
int lsc__event_of(const char *name);

/* lsc__probe_id_of - the probe id @id; -1 for none declared (or NULL). */
int lsc__probe_id_of(const char *id);

/*
 * lsc__rec_num - a number field of the system snapshot's kind: @v, or
 * "n/a" for LSC_NA and "unlimited" for LSC_UNLIMITED, so that a reader
 * never takes INT64_MIN for a value.
 */
void lsc__rec_num(struct lsc__rec *r, const char *key, int64_t v);

#endif
