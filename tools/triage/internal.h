/*
 * The triage's internal model, shared by its small files: a cleaned line, the
 * facts a start accumulates as its lines are recognised, the findings the
 * rules derive from them, and the bounded stores that keep memory flat
 * whatever the log size (a start's facts live only while it is open; only a
 * capped number of findings and start summaries keep their full text).
 *
 * Numbers a log may or may not carry are `struct tr_num`: NAN when absent,
 * with the index of the evidence line that gave them.
 */
#ifndef LSC_TOOLS_TRIAGE_INTERNAL_H
#define LSC_TOOLS_TRIAGE_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "triage.h"

#define TR_EVTEXT 320     /* a quoted evidence line is cut here */
/* A quoted line under --redact: every placeholder is longer than what it
 * hides, at most `<user>@<host>` (13 bytes) for `a@b` (3), 14 bytes with
 * the byte before the next token for 4, so a line kept whole (under
 * TR_EVTEXT) is still whole redacted in this */
#define TR_EVTEXT_REDACTED (TR_EVTEXT / 4 * 14)
#define TR_START_EVID 48  /* evidence lines one start keeps (unreferenced ones are reused) */
#define TR_OPEN_MAX 8     /* starts open at once (interleaved loadscope runs) */
#define TR_FULL_FINDINGS 1024
#define TR_FULL_STARTS 4096
#define TR_LITE_MAX (1u << 18)
/* what every format says of lines_oom (a count, then "" or "s") */
/* (a line that would have opened a start, or one whose buffer could not
 * grow to hold it whole) */
#define TR_OUT_OF_MEMORY_SAID "%lu line%s could not be read whole: out of memory; no verdict here is vouched for"
#define TR_ROWS_MAX (1u << 14)
#define TR_CFG_KEYS 6

/* ---- cleaned lines ------------------------------------------------------- */

#define TR_L_TRUNCATED 0x1u /* longer than LSC_TRIAGE_LINE_MAX */
#define TR_L_BADUTF8 0x2u
#define TR_L_MDTABLE 0x4u  /* a markdown table row: prose, not a log line */
#define TR_L_TABLE 0x8u    /* a row of a table a program drew (+---+ borders): read as a status table */
#define TR_L_MANAGER 0x10u /* a service manager's own line in a journal (systemd[1]): not the start's clock */
#define TR_L_TAIL 0x20u    /* the input's last line, with no newline after it: it may be cut */

#define TR_TS_KINDS 3

struct tr_line {
	char *s;              /* cleaned text; s[len] is writable */
	size_t len;
	unsigned long no;     /* 1-based line number in the original input */
	unsigned src;         /* index of the input (file) */
	unsigned flags;
	double ts;            /* a leading timestamp, seconds of the day; NAN none */
	/* The same line's clocks by kind, seconds of the day (NAN none): the
	 * outermost prefix's (a collector's: syslog, journald), an inner
	 * prefix's (the engine's own logger), and a Unix `timestamp=` field.
	 * Durations are only taken between two clocks of one kind: a pasted
	 * log often has a collector's clock on some lines only. */
	double tsk[TR_TS_KINDS];
	/* how many prefix clocks the line carries: the inner kind's clock is
	 * one clock across lines only while they carry as many (a line with
	 * only a collector's and a bracket's has the bracket's innermost, one
	 * with the engine's own stamp too has the engine's) */
	unsigned char nclocks;
	uint64_t kw;          /* keyword groups found by the prefilter (TR_G_*) */
	/* one bit per declared shape (shapes.c) whose keyword the line holds,
	 * found by the same pass: no shape's keyword is searched for again */
	uint64_t shapes[2];
	/* the line's level, from its prefix or its fields (TR_LV_*): set by
	 * the cleaner (python logging, llama.cpp's letter, glog) or read by
	 * the generic recogniser (`level=error`, JSON's "level") */
	unsigned char level;
	/* the line as pasted, where the recognisers read another text (its
	 * Chinese words in English: cjk_words.c); what evidence quotes. NULL:
	 * the line itself */
	const char *quote;
	size_t quote_len;
};
enum { TR_LV_NONE, TR_LV_DEBUG, TR_LV_INFO, TR_LV_WARN, TR_LV_ERROR, TR_LV_FATAL };

/* managed_trace.c: a JVM's or .NET's stack trace, its message before its
 * frames. tr_managed_frame: is @s[0..n) a frame (`at A.B.Method(...)`)?
 * tr_managed_block: 1 when @l is a line of a block of frames (a frame, a
 * `Caused by:`, `... 12 more`), read; its first frame hands the line
 * before it to tr_managed_failed. tr_managed_keep: @l, no line of a
 * block, is the one before the next frame. */
int tr_managed_frame(const char *s, size_t n);
/* tr_uncaught_exception: the runtime's report of an exception nobody
 * caught (`Exception in thread "main" java.lang.X`, `Unhandled exception.
 * System.X: ...`), the end of what threw it */
int tr_uncaught_exception(const char *s, size_t n);
struct lsc_triage;
int tr_managed_block(struct lsc_triage *t, struct tr_line *l);
void tr_managed_keep(struct lsc_triage *t, const struct tr_line *l);
/* recognise_generic.c: @msg, the line above a managed block's first
 * frame, is the exception that ended the start under way (unless its
 * level said it was handled, or the start was up); a frame @l that calls
 * a loading method says the failure of the start under way is the load's;
 * `Caused by:` @l is the block's deeper cause. tr_managed_failed: 1 when
 * the block failed a start (its causes are asked only then) */
int tr_managed_failed(struct lsc_triage *t, struct tr_line *msg);
void tr_managed_frame_seen(struct lsc_triage *t, struct tr_line *l);
void tr_managed_cause(struct lsc_triage *t, struct tr_line *l);

/* cjk_words.c: @s[0..n) with its Chinese load words in English ("模型加载
 * 耗时 56.30s" -> "model load took 56.30s") into out[0..cap); the length
 * written, or 0 when the line holds none of them or the room is short. */
size_t tr_cjk_words(const char *s, size_t n, char *out, size_t cap);

/* prefilter.c: keyword groups a line contains, found in one pass */
enum {
	TR_G_LSC = 1u << 0, TR_G_ARENA = 1u << 1, TR_G_COMPLEMENT = 1u << 2, TR_G_LOADED = 1u << 3,
	TR_G_STILL = 1u << 4, TR_G_VERIFY = 1u << 5, TR_G_GPU = 1u << 6, TR_G_READTHRU = 1u << 7,
	TR_G_STRACE = 1u << 8, TR_G_VMSTAT = 1u << 9, TR_G_THPSET = 1u << 10, TR_G_RATES = 1u << 11,
	TR_G_LLAMA = 1u << 12, TR_G_IK = 1u << 13, TR_G_VLLM = 1u << 14, TR_G_RUNAI = 1u << 15,
	TR_G_IO = 1u << 16, TR_G_READY = 1u << 17, TR_G_SWAP = 1u << 18, TR_G_HIP = 1u << 19,
	TR_G_BEGIN = 1u << 20, TR_G_EXIT = 1u << 21, TR_G_EPOCH = 1u << 22,
	TR_G_GENERIC = 1u << 23, /* the shared vocabulary's failure words (recognise_generic.c) */
	/* bits TR_G_SHAPE_SHIFT and up: the declared shapes' keywords (shapes.c) */
};
/* the shared vocabulary's ready words and load figures: above the shapes' buckets */
#define TR_G_GREADY (1ull << 56)
#define TR_G_GFIG (1ull << 57)   /* a duration after took / load time / loaded in / finished in */
#define TR_G_GBAR (1ull << 59)   /* a tqdm bar's rate */
#define TR_G_GSIZE (1ull << 60)  /* file size / model size */
#define TR_G_GEND (1ull << 61)   /* the load's end in words, its progress, still loading */
#define TR_G_GFATAL (1ull << 58) /* words that end a start: a traceback, an exit status, a signal, a timeout */
#define TR_G_GBEGIN (1ull << 62) /* the load begins in words: loading model, loading weights */
#define TR_G_GWAY (1ull << 63)   /* a start under way: a launch command (--model), a download's count, "taken more than" */
#define TR_G_GSTEP (1ull << 54) /* a step said to take long: "this can take a while", "please wait" */
#define TR_G_GPIN (1ull << 55)  /* page-locked memory named: "pinned memory", "page-locked" */
#define TR_G_GLOADW (1ull << 53) /* the verb "loading" before its object: "Loading ONNX model from" */
#define TR_G_GFIGS (TR_G_GFIG | TR_G_GBAR | TR_G_GSIZE | TR_G_GEND)
#define TR_G_GANY                                                                                                     \
	((uint64_t)TR_G_GENERIC | TR_G_GREADY | TR_G_GFATAL | TR_G_GFIGS | TR_G_GBEGIN | TR_G_GWAY | TR_G_GPIN |      \
	 TR_G_GLOADW)
struct tr_prefilter;
/* A table of its own (the caller frees it), or NULL when out of memory or
 * the keywords do not fit. */
struct tr_prefilter *tr_prefilter_new(void);
/* The one table every triage reads, built on first use (thread-safe, never
 * freed); NULL when the keywords do not fit. */
const struct tr_prefilter *tr_prefilter_shared(void);
uint64_t tr_prefilter(const struct tr_prefilter *p, const char *s, size_t n);
/* tr_prefilter of a cleaned line into l->kw, and its shapes into l->shapes. */
void tr_prefilter_line(const struct tr_prefilter *p, struct tr_line *l);

struct tr_clean {
	unsigned fence;       /* open code-fence depth (informational) */
	int ascii_table;      /* inside a table a program drew: a +---+ border came, rows since */
	unsigned long dropped;/* markup-only lines dropped */
};

/* Clean @l->s in place (CR, ANSI, quoting, fences, tags, bold, prefixes).
 * Return 1 keep, 0 drop (markup only or empty). */
int tr_clean_line(struct tr_clean *c, struct tr_line *l);

/* ---- scanning helpers (scan.c) -------------------------------------------- */

/* The first @needle in @h[0..hn); h[hn] must be readable (a line's NUL, or
 * any byte of the line after the range). */
const char *tr_memmem(const char *h, size_t hn, const char *needle);
/* The first @needle in the whole of @l: a cleaned line is a C string that
 * holds no NUL, so strstr (vectorised) needs no length check. */
static inline const char *tr_find(const struct tr_line *l, const char *needle)
{
	return strstr(l->s, needle);
}
const char *tr_memmem_ci(const char *h, size_t hn, const char *needle);
/* A decimal number at *p (digits, thousands commas, one point, sign). */
int tr_num(const char **p, const char *end, double *v);
/* The digits at @p, after a decimal separator, added to *@v as its
 * fraction (digit by digit, as the parsers always did); past them. */
const char *tr_add_frac(const char *p, const char *end, double *v);
const char *tr_skip_ws(const char *p, const char *end);
/* Number + size unit -> GiB ("28.47 GiB", "30 GB", "484 MB", "123456789 bytes"). */
int tr_size_gib(const char **p, const char *end, double *gib);
/* Number + time unit -> seconds ("7.51 s", "312 ms", "2 min", "12.3 seconds"). */
int tr_dur_s(const char **p, const char *end, double *s);
/* A number of seconds with no unit, as a program prints a float it got
 * by subtracting two time.time() readings ("model init cost:
 * 9.023834943771362", "Pipeline loaded in 355.45468401908875"): three
 * decimals at least and nothing after it on the line but closing
 * punctuation. Only after a duration's key: a bare number alone is no
 * time. 1 with *s, *p past it. */
int tr_bare_secs(const char **p, const char *end, double *s);
/* An engine's own elapsed clock near a line's start, a duration in
 * brackets ("startup [ 163.1 s] model ready", "[37 s elapsed]"): 1 with
 * the seconds. */
int tr_elapsed_clock(const char *s, size_t n, double *secs);
/* A running total after an allocation ("dmalloc: 256.000 MiB (total 17.544
 * GiB, #637)"): 1 with the total in GiB. */
int tr_alloc_total(const char *s, size_t n, double *gib);
/* A launcher's elapsed counter ("Loading model... [37m 36s elapsed]"): 1
 * with the seconds (h, m and s parts). */
int tr_elapsed_counter(const char *s, size_t n, double *secs);
/* Number + rate unit -> GiB/s ("3.12 GiB/s", "850 MiB/s", "75 MB/s"). */
int tr_rate_gibps(const char **p, const char *end, double *g);
/* The first number after @after (searched from p) parsed by @fn; 1 found. */
int tr_after(const char *p, const char *end, const char *after,
	     int (*fn)(const char **, const char *, double *), double *v);
int tr_isword(char c);
/* recognise_generic.c: is one of the words of @s[0..n), read as words
 * (letters and digits) and case-blind, in @set (lower case, NULL-ended)? */
int tr_any_word(const char *s, size_t n, const char *const *set);
/* isdigit, isupper and tolower of the C locale (the triage's) inline: the
 * ctype functions are a call for every byte, and the cleaner, the number
 * scanners and the case-blind searches test several bytes of every line. */
static inline int tr_digit(char c) { return (unsigned)((unsigned char)c - '0') < 10; }
static inline int tr_upper(char c) { return (unsigned)((unsigned char)c - 'A') < 26; }
static inline unsigned char tr_lower(unsigned char c) { return tr_upper((char)c) ? (unsigned char)(c + 32) : c; }
static inline int tr_alpha(char c) { return (unsigned)(tr_lower((unsigned char)c) - 'a') < 26; }
static inline int tr_xdigit(char c) { return tr_digit(c) || (unsigned)(tr_lower((unsigned char)c) - 'a') < 6; }

/* ---- the facts of one start --------------------------------------------- */

struct tr_num {
	double v;  /* NAN: absent */
	int ev;    /* evidence index, -1 none */
};

struct tr_evid {
	unsigned long line;
	unsigned src;
	char text[TR_EVTEXT];
};

enum tr_kind { TR_K_ALLOC, TR_K_PIN, TR_K_READ, TR_K_COPY, TR_K_VERIFY, TR_K_N };

enum tr_vm {
	TR_VM_COMPACT_STALL, TR_VM_COMPACT_FAIL, TR_VM_COMPACT_SUCCESS, TR_VM_THP_FAULT_ALLOC,
	TR_VM_THP_FAULT_FALLBACK, TR_VM_ALLOCSTALL, TR_VM_PSWPIN, TR_VM_PSWPOUT, TR_VM_PGMAJFAULT,
	TR_VM_PGFAULT, TR_VM_N
};
extern const char *const tr_vm_names[TR_VM_N];

/* How far a start got, in the order a start gets there: a start only ever
 * moves forward (tr_stage_raise), and a marker that opens a start only
 * splits off a new one once the current start is past its beginning. */
enum tr_stage {
	TR_ST_NONE,     /* nothing of the start seen yet */
	TR_ST_BEGAN,    /* a start marker (loadscope `start`, an engine's first line) */
	TR_ST_LOADING,  /* a phase, an arena, a progress line */
	TR_ST_LOADED,   /* a load summary (loaded, complement, model loaded) */
	TR_ST_READY,    /* ready, or the start ended (exit, error) */
};

/* A span of a start at its real time, from a phase line's t_s and wall_s:
 * an engine's own (custom) phases and the loader's, so that the table and
 * the page show the start as it ran, not the loader's phases from t = 0. */
#define TR_SPANS_MAX 12
struct tr_span {
	char label[40];    /* "metadata (s)", as the phase table names it */
	char kind[12];     /* custom, allocate, pin, read, copy (the page's colour) */
	double t0, dur;    /* seconds from the start's t = 0 */
	int depth, custom;
};

struct tr_start {
	struct lsc_triage *t;   /* the owner: numbers starts in the order they begin */
	unsigned idx;
	unsigned src;
	unsigned long first_line, last_line;
	char family[16];
	char run[20];
	char arm[24];           /* lsc_triage_arm of its input, "" none */
	unsigned long recognised;
	enum tr_stage stage;
	int ev_begin, ev_end;
	double ts_begin[TR_TS_KINDS]; /* first timestamp of each kind in the start, NAN none */
	unsigned vllm_loaded_n;       /* vLLM `Model loading took` lines (one per worker) */
	double ts_last[TR_TS_KINDS];  /* latest timestamp of each kind before it was ready, NAN none */
	unsigned char ts_mixed[TR_TS_KINDS]; /* two clocks share that kind: its span says nothing (triage.c's clock_seen) */
	unsigned char ts_depth[TR_TS_KINDS]; /* the prefix clocks of the line that gave the kind's first clock */
	/* bit k: a line of the start itself carried a clock of kind k (not only the lines before it) */
	unsigned char ts_own;

	struct tr_num ready_s;  /* load to ready */
	struct tr_num unattributed_s, covered_s;
	struct tr_num ph_s[TR_K_N];
	struct tr_span spans[TR_SPANS_MAX];
	unsigned nspans;
	double ph_gib[TR_K_N];
	struct tr_num comp_total_s, comp_alloc_s, comp_copy_s, comp_gib;
	struct tr_num loaded_gib, loaded_rate, loaded_s;
	int loaded_rate_stated; /* the load line printed its rate (not derived here from size and time) */
	struct tr_num read_s, read_gib, read_rate;

	int thp_req;            /* 1 requested, 0 skipped/none, -1 unknown */
	int ev_thp;
	char thp_defrag[24];
	int ev_defrag;
	char thp_enabled[16];
	char thp_process[24];   /* "disabled" (prctl / THP_enabled: 0) or "" */
	int ev_thp_process;

	struct tr_num huge_needed, huge_pool;
	int hugetlb_used, ev_hugetlb_used;
	struct tr_num arena_gib;

	struct tr_num vm[TR_VM_N];
	unsigned char vm_lost[TR_VM_N]; /* a phase line lost this counter (a cut tail): its sum is unknown */
	struct tr_num vm_window_s;
	struct tr_num fill_rate;    /* GiB/s measured while filling (RSS, still, faults) */
	struct tr_num faults_per_s;
	int still_n;
	struct tr_num still_max_s;

	unsigned long eagain_n, kfd_ok_n;
	double eagain_s, kfd_ok_s;
	int ev_eagain_first, ev_eagain_last, ev_kfd_ok;
	int kfd_pending;        /* an unfinished KFD alloc ioctl (strace -f) */
	double kfd_ts_first, kfd_ts_last; /* strace -tt clocks of the first and last KFD alloc call */
	int hip;                /* HIP/ROCm is in play */
	int ev_arena;           /* the arena note (once per start) */
	int hugetlb_asked;      /* hugetlb was asked for explicitly (an option, not a default) */
	int from_device;        /* something says the read came from a device */
	int ev_exit;            /* the process exited (ended without ready) */
	int ev_thp_risk;        /* loadscope probe: an MADV_HUGEPAGE arena may stall in compaction */
	int ev_mem_short;       /* loadscope probe: the arena is larger than MemAvailable (mem-short) */
	double mem_short_arena, mem_short_avail; /* its arena_bytes and mem_available_bytes, NAN n/a */
	int ev_refault_risk;    /* loadscope probe: the host takes idle free memory back (host-refault) */
	/* loadscope's system line: 1 when a virtio-balloon device reports free
	 * pages to the host, 0 when nothing does; NAN when the line lacks it */
	struct tr_num page_reporting, page_reporting_order;

	int ev_verify_fail, ev_mlock_fail, ev_uring, ev_direct, ev_swap_text;

	/* How the start ended, as far as the log shows (shapes.c's events). A
	 * start is only called healthy with positive evidence that it
	 * completed (@done: its ready or load-summary line); an engine error,
	 * a kill or a timeout before that ends it (stage TR_ST_READY, @done 0). */
	int done;
	int ev_error;           /* the first engine error before ready (load-failed) */
	int ev_error2;          /* a second, more specific one (the cause after "failed to load model") */
	int ev_pinned_fail;     /* a page-locked allocation or registration refused */
	struct tr_num pinned_fail_gib;
	int ev_pageable;        /* the engine says it went on with pageable memory */
	int ev_oom;             /* the kernel's or systemd's OOM killer */
	int ev_killed;          /* a kill without OOM words (status=9/KILL, a bare "Killed") */
	struct tr_num oom_rss_gib;
	int ev_numa;            /* automatic NUMA balancing on (engine warning or the setting) */
	int direct_on;          /* the engine said it reads with direct I/O */
	int ev_hugetlb_fail;    /* MAP_HUGETLB refused without page counts */
	int ev_gds;             /* GDS/cuFile refused (direct-io-fallback unless the load failed) */
	int final;              /* the engine's last word on a failed start was seen */
	int probe;              /* a `loadscope probe` run: a judgement, not a start */
	int ready_from_clock;   /* ready_s is the span of the lines' clocks, not a stated figure */
	unsigned long nsettings;/* of the recognised lines, settings pasted (cat, sysctl, ulimit) */
	unsigned long nserved;  /* of the recognised lines, work a running server or app did, not a start's (a
				 * served request's failure, "Exception in ASGI application"; a sampling bar) */
	int progress_open;      /* the last progress line showed the load unfinished (n < N, a percentage) */
	/* the load's progress as a fraction, first and last, with the clocks of
	 * their lines (NAN none): their rate says how long the whole load takes */
	double prog_first, prog_last, prog_ts_first[TR_TS_KINDS], prog_ts_last[TR_TS_KINDS];
	int bar_done;           /* the last load bar (recognise_generic.c) reached N/N: the load finished */
	double bar_all;         /* the N of the start's last bar (n/N), 0 none: a bar at 0/N again is the load again */
	double bar_frac;        /* n/N of the load bar whose elapsed time is read_s (0 none): its pace projects the whole load */
	int interrupted;        /* a lone `^C` was echoed while it ran: the user stopped it (shell_prompt.c) */
	int waited_out;         /* a watcher's wait ran out ("not ready after N"): what follows is its guesses */
	int dots_open;          /* loading dots, or a wordless share under 100, came after the last recognised line (tr_touch clears it) */
	int began_open;         /* the last recognised line began a step it says takes long ("this can take a
				 * while..."; tr_touch clears it at a line of another step): a paste that ends
				 * there is still loading */
	char began_step[24];    /* that line's step, the function name before its ": " ("load_tensors"), "" none */
	int ev_gen_fail;        /* generic failure evidence (an error-level line, a traceback's cause, an exit) */
	int ev_gen_fail_last;   /* the latest such line (a traceback's last exception line) */
	int ev_tb;              /* the line that opened the traceback still open (its header or first frame) */
	int ev_tb_load;         /* a frame of a traceback of this start that is in a loading function (load_model) */
	int gen_load_began;     /* the shared vocabulary saw the load begin ("loading model /m", "Load weight begin") */
	uint32_t load_line_hash; /* the cleaned text of the line the load began on (a retry of it: recognise_generic.c) */
	int load_retried;        /* that line came again after the start failed: the same load tried again, no new start */
	int cmd_model;           /* the prompt's command that began it names a weight file (`./llm_demo /m/q.rkllm`) */
	/* its ready line came before anything of the load (a frontend's `Model server started.`) */
	int ready_early;
	/* begun at a shell prompt's command: the clocks and the level that line
	 * carried, and whether a later line of the start carried more (a line
	 * of the program's own log, even in words no vocabulary knows: a
	 * paste's prefix gives every line, the prompt's too, the same) */
	unsigned char prompt_nclocks, prompt_level;
	int prompt_began, logged_after_prompt;
	/* a setting of the server's before anything of a load said it starts
	 * with no model (`Initial Models: N/A`): up with none, no start
	 * (outcome none) unless a load follows */
	int no_model;
	int ev_gen_ready;       /* generic ready evidence about the model, server or engine */
	/* of its recognised lines, a server up at its address that names no
	 * model, as many as it has recognised so far: all of them such lines
	 * is a server with no model, no start (server_up.c) */
	unsigned long nbare_ready;
	int in_traceback;       /* inside a traceback block: its last exception line is the cause */
	int quotes_output;      /* its failure line quotes the failed process's output after it (quoted_output.c) */
	int fail_plain;         /* its first failure line carried no error level (none, or a collector's info):
				 * a sentence (shell_prompt.c reads it) */
	int load_banner;        /* its load began under a section banner ("=====LoadModel=====") */
	struct tr_num model_gib;/* the model's size as the engine prints it (file size, model size) */
	struct tr_num gen_load_s; /* a load duration in the shared vocabulary (took, load time, started in) */
	struct tr_num step_s;   /* a floor of the time to ready: the longest step after the weights (graph capture,
				 * torch.compile, warmup), or a watcher's wait that ran out ("not ready after 30 minutes") */
	int gen_load_weights;   /* gen_load_s is the weights' own load summary ("model loaded in"), not an init or ready time */
	int gen_load_part;      /* gen_load_s is one part's finished load ("Shard 0 ready in 30.9 s": subject.c) */
	unsigned napp_startup;  /* lines that were an ASGI server's own startup (`Waiting for application startup.`) */
	/* the parts of the load summary listed after it, their sum and the
	 * last one's line (recognise_generic.c's part_of); 0 none yet */
	double parts_s;
	unsigned long parts_no;
	int opened_loaded;      /* the start's first stage was the load's end or later: the paste opens past its load */
	struct tr_num moved_s, moved_gib; /* an amount moved in a time ("pinned 28.47 GiB in 18 s", moved.c): a load's measure */
	struct tr_num ckpt_gib; /* the checkpoint's size, as the engine gives it */
	struct tr_num alloc_gib; /* the running total of the start's allocations, the largest seen ("(total 18.9 GiB") */
	struct tr_num fail_gib; /* the size an engine error says it could not allocate */
	struct tr_num mem_required_gib, mem_available_gib; /* ollama's estimates */
	struct tr_num memlock_bytes, pin_bytes, mem_total_gib;
	char reader[24];

	/* The last recognised line and the last EAGAIN line, kept raw (made
	 * printable only when a finding quotes them: they change every line). */
	struct tr_evid lastev;
	struct tr_evid eagain_tail;
	unsigned nev;
	struct tr_evid ev[TR_START_EVID];
};

void tr_start_reset(struct tr_start *s, unsigned idx, unsigned src);
static inline void tr_stage_raise(struct tr_start *s, enum tr_stage st)
{
	if (s->stage < st)
		s->stage = st;
	/* a load summary or a ready line is evidence the start completed,
	 * unless it already ended in an error, a kill or an exit */
	if (st >= TR_ST_LOADED && s->ev_error < 0 && s->ev_oom < 0 && s->ev_killed < 0 && s->ev_exit < 0)
		s->done = 1;
	if (st >= TR_ST_LOADED)
		s->progress_open = 0; /* loaded: no longer under way */
}
/* starts.c: @l, the load's end in words, is the first of @s's lines (no
 * stage before it, no clock of an earlier line): the paste opens past the
 * load, so its clocks from here are the steps after it (opened_loaded). */
void tr_opened_at_load_end(struct tr_start *s, const struct tr_line *l);
/* The start's duration up to line l from its clocks, in *v: the most
 * specific kind both its first line and l carry (a Unix field, the
 * engine's own clock, a collector's), never a kind two clocks shared
 * (ts_mixed). Equal clocks say nothing (a paste that stamped every line
 * with one time); a start that spans midnight wraps. A line without a
 * clock of its own (uvicorn's `Application startup complete` after vLLM's
 * stamped lines) is no earlier than the last clock of that kind before it,
 * of a kind the start's own lines carried. 1 when the clocks say. */
int tr_clock_span(const struct tr_start *st, const struct tr_line *l, double *v);
/* Keep @l as evidence of @s; return its index or -1 when the store is full
 * (the same line twice returns the same index). */
int tr_evid(struct tr_start *s, const struct tr_line *l);
void tr_setnum(struct tr_num *n, double v, int ev);
/* Keep @l raw in @e (a cheap copy); tr_evid_cooked makes it printable. */
void tr_evid_raw(struct tr_evid *e, const struct tr_line *l);
struct tr_evid tr_evid_cooked(const struct tr_evid *raw);
static inline int tr_has(const struct tr_num *n) { return !isnan(n->v); }

/* ---- findings --------------------------------------------------------------- */

#define TR_F_EV 8
#define TR_F_MATH 6
#define TR_F_REM 5
#define TR_F_MISS 4
#define TR_F_TXT 240

struct tr_finding {
	const char *id;
	enum lsc_triage_sev sev;
	unsigned start;
	/* Set by tr_run_rules when no text of this finding can be kept (the
	 * full store is full and the start has no summary left): only its id,
	 * severity and evidence count, and tr_f_summary and the rest format
	 * nothing. On a gigabyte log that is nearly every finding. */
	int lite;
	char summary[320];
	unsigned nev, nmath, nrem, nmiss;
	struct tr_evid ev[TR_F_EV];
	char math[TR_F_MATH][TR_F_TXT];
	char rem[TR_F_REM][TR_F_TXT];
	char miss[TR_F_MISS][TR_F_TXT];
};

void tr_f_init(struct tr_finding *f, const char *id, enum lsc_triage_sev sev, const struct tr_start *s);
/* Is @f lite (see tr_finding.lite)? A rule may skip work that only feeds its text. */
static inline int tr_f_lite(const struct tr_finding *f) { return f->lite; }
void tr_f_summary(struct tr_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tr_f_ev(struct tr_finding *f, const struct tr_start *s, int ev);
void tr_f_math(struct tr_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tr_f_rem(struct tr_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tr_f_miss(struct tr_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A rule's last remedy is always the link to its page, built from the id
 * given to tr_f_init; adds it and returns TR_FIRE for the rule to return. */
int tr_f_fire(struct tr_finding *f);

/* ---- rules -------------------------------------------------------------------- */

struct tr_ctx {
	double normal_fill_gibps;  /* the best fill/load rate seen in this log; NAN none */
};

enum tr_rule_ret { TR_NOFIRE = 0, TR_FIRE = 1, TR_NOTEVAL = 2 };

/* A rule: fill @f and return TR_FIRE, or TR_NOTEVAL with f->miss filled when
 * data it needs is missing and the start looks relevant, or TR_NOFIRE. A
 * negative return is an internal failure: reported, and the rest still run. */
struct tr_rule {
	const char *id;
	const char *specific_of;   /* "alloc": suppresses alloc-dominates when fired */
	int (*eval)(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f);
};
extern const struct tr_rule *const tr_rules[];
extern const size_t tr_nrules;

/* The one list of rules, in the order they run (rules.c builds tr_rules
 * from it): each X(name) is tr_rule_<name> in rule_<name>.c, named after the
 * finding id it gives (hugetlb_pool_short also gives hugetlb-arena-cost).
 * The specific causes of a slow allocation run before alloc-dominates. */
#define TR_RULE_LIST(X)                                                                            \
	X(thp_direct_compaction) X(host_refault) X(kfd_userptr_eagain) X(hugetlb_pool_short)       \
	X(alloc_dominates) X(rate_hides_wall_time) X(log_truncated) X(disk_bound_read)             \
	X(swap_during_load) X(memlock_limit) X(io_uring_unavailable) X(direct_io_fallback)         \
	X(verify_failed) X(load_failed) X(pinned_alloc_failed) X(oom_killed) X(numa_balancing) \
	X(mem_short)
#define TR_RULE_DECL(name) extern const struct tr_rule tr_rule_##name;
TR_RULE_LIST(TR_RULE_DECL)
#undef TR_RULE_DECL

/* ---- per-start summaries (phase table) and table rows -------------------- */

#define TR_NOTEVAL_MAX 6
struct tr_startsum {
	unsigned idx, src;
	unsigned long first_line, last_line;
	char family[16];
	char run[20];
	enum tr_stage stage;
	double ready_s, unattributed_s;
	double ph[TR_K_N];
	struct tr_span spans[TR_SPANS_MAX];
	unsigned nspans;
	double comp_total_s, comp_alloc_s, comp_copy_s, loaded_gib, loaded_rate, read_s;
	unsigned nnoteval;
	struct { const char *id; char text[TR_F_TXT]; } noteval[TR_NOTEVAL_MAX];
	/* the counters the HTML page shows beside the phases (render_html.c) */
	double ph_gib[TR_K_N];
	double faults_per_s, fill_rate;
	double vm[TR_VM_N];
	int thp_req, hugetlb_used;
	char thp_defrag[24], thp_process[24];
	/* the verdict (verdict.c): outcome and speed, with the figures behind it */
	int outcome, speed;
	double v_load_s, v_gib, v_rate;
};

struct tr_row {
	unsigned start;
	char cfg[TR_CFG_KEYS][2][24]; /* key, value */
	unsigned ncfg;
	double comp_total, alloc, copy, ready;
};

struct tr_lite {
	const char *id;
	enum lsc_triage_sev sev;
	unsigned start;
	unsigned long first_line;
	int full;     /* index into full findings, -1 when only counted */
	size_t seq;   /* order of arrival, to keep a start's findings in rule order */
};

/* ---- the whole triage ----------------------------------------------------------- */

/* the line buffers' first size; they grow with the longest line (triage.c) */
#define TR_LINE_CAP0 4096u

struct lsc_triage {
	struct lsc_triage_opts opts;
	int finished;
	int debug;

	/* line assembly */
	/* buf, held and scratch grow with the longest line (triage.c's
	 * line_room), each to LSC_TRIAGE_LINE_MAX + 2 at most; their sizes */
	size_t bcap, hcap, scap;
	char *cjk;            /* a line's text in English words (cjk_words.c) */
	size_t cjkcap;
	char *buf;
	/* the line before, held back one line so that a paste wrapped at a
	 * terminal's width is joined before it is read (triage.c) */
	char *held;
	size_t hlen, held_w;
	size_t rich_w, rich_indent, rich_prefix; /* the held line is a rich record's first line of this width (rich_wrap.c); 0 none */
	unsigned long held_no;
	int held_over, have_held;
	size_t blen;
	int overlong;
	int cut_oom; /* the line being assembled was cut for want of memory (counted in lines_oom) */
	unsigned long lineno;
	/* an input's last line when the input ended with no newline after it
	 * (a paste or a file cut mid-line: what followed may be lost); 0 none */
	unsigned long tail_no;
	unsigned src;
	char (*srcname)[128]; /* one per input, grown as inputs come */
	char arm[24];         /* lsc_triage_arm: of the starts that begin from now on */
	unsigned nsrc, srccap;

	unsigned long nlines, nrecog, nbad_utf8, ntrunc;
	struct tr_clean clean;
	char *scratch;        /* for the shared parser, which parses in place */
	struct tr_finding *fscratch; /* the finding the rules fill in turn: taken
				      * with the triage, so that a start's rules
				      * never go unrun for want of memory */
	const struct tr_prefilter *pf; /* tr_prefilter_shared's */
	/* lsc_triage_engine_off: the engine whose shapes and recognisers are
	 * switched off (the leave-one-engine-out test); "" none */
	char off_engine[24];

	/* starts */
	struct tr_start *open[TR_OPEN_MAX];
	unsigned nopen;
	struct tr_start *cur;    /* where unkeyed lines go */
	unsigned long req_fail_no; /* the last line that said a request failed ("Exception in ASGI application"); 0 none */
	/* a traceback's header (or first frame) read where no start was and
	 * which opened none (no error level, no loading frame yet), in input
	 * @tb_orphan_src: a later line of it that loads (a frame, a code line
	 * building the model) opens its start; 0 none */
	unsigned long tb_orphan_no;
	unsigned tb_orphan_src;
	/* a traceback's header read after the current start's early ready
	 * line (a web UI up before any load), in input @tb_late_src: a later
	 * frame of it that loads makes it the model's load failing; 0 none */
	unsigned long tb_late_no;
	unsigned tb_late_src;
	/* the input (its number + 1) whose last prompt's command fetches a
	 * model's files (`hf download x`, shell_prompt.c): its download bars
	 * open no start; 0 none */
	unsigned fetch_src;
	/* the first line that said a program starts while the input had no
	 * start (boot_said.c), kept for an input where nothing else opens one;
	 * 0 none; @boot_base: the starts begun before the input */
	unsigned long boot_no;
	unsigned boot_base;
	unsigned boot_src;
	size_t boot_len;
	char boot_text[160];
	/* the line of input @no_model_src whose setting said the server starts
	 * with no model (`Model config: N/A`); 0 none: a start begun after it
	 * in that input holds none until a load says otherwise */
	unsigned long no_model_no;
	unsigned no_model_src;
	/* the last line that closed a Rich box (`╰───╯`, rich's traceback panel drawn round its frames); 0 none */
	unsigned long box_end_no;
	/* managed_trace.c: the last line read that was no frame of a managed
	 * runtime's stack trace (its first 256 bytes: an exception's message
	 * comes before its frames), and whether a block of frames is open */
	char frame_prev[257];
	size_t frame_prev_len;
	unsigned long frame_prev_no;
	unsigned frame_prev_src;
	unsigned char frame_prev_level;
	int frame_block; /* 0 none, 1 open, 2 open and a start's failure */
	/* a line of input @model_src has named a model ("model" in any case)
	 * so far, and how many of its log lines (a level or a clock) came
	 * before one did: a server up at its address after such lines, none
	 * naming a model, shows its own start with no model in it
	 * (server_up.c); asked of each line only until one names a model */
	int model_said;
	unsigned model_src;
	unsigned long unnamed_log_lines;
	unsigned nstarts;
	struct tr_ctx ctx;
	/* the rules to run: tr_rules; tests swap in a table with a failing rule */
	const struct tr_rule *const *rules;
	size_t nrules;

	/* outputs */
	struct tr_finding *full;
	size_t nfull, full_cap;
	struct tr_lite *lite;
	size_t nlite, lite_cap;
	unsigned long dropped_findings;
	unsigned long dropped_sev[3]; /* of those, per severity: the exit status counts them too */
	unsigned long dropped_noteval;
	/* lines that would have opened a start that could not be allocated:
	 * what they showed is missing, so no verdict is vouched for */
	unsigned long lines_oom;
	double pending_ts[TR_TS_KINDS]; /* first timestamps since the last start was ready */
	double pending_last[TR_TS_KINDS]; /* and the latest */
	unsigned char pending_mixed[TR_TS_KINDS]; /* and whether two clocks shared that kind */
	unsigned char pending_depth[TR_TS_KINDS]; /* and the prefix clocks of its first */
	struct tr_startsum *sums;
	size_t nsums, sums_cap;
	struct tr_row *rows;
	size_t nrows, rows_cap;
	unsigned long rule_errors;
	/* a pasted `cat FILE` or `ulimit -l` whose value is on the next line */
	int pending_setting;
	unsigned long pending_line;
};

/* starts.c */
struct tr_start *tr_current(struct lsc_triage *t, const struct tr_line *l);
/* A start marker: a fresh start unless the current one has only seen its
 * own beginning. @family names the log family. */
struct tr_start *tr_begin(struct lsc_triage *t, const struct tr_line *l, const char *family);
/* boot_said.c: does the line say a program starts (`Starting LOLLMS Web
 * UI...`, `x-server starting up...`, `Welcome to X - Version N`)? */
int tr_boot_said(const char *s, size_t n);
/* The first such line while no start has begun, kept (tr_boot_seen); at
 * the input's end, where no start begun, it opens one (tr_boot_start). */
void tr_boot_seen(struct lsc_triage *t, const struct tr_line *l);
void tr_boot_start(struct lsc_triage *t);
/* A singleton fact is about to be set on the current start: begin a fresh
 * start when the current one already has it (@have) or is ready. */
struct tr_start *tr_fresh_if(struct lsc_triage *t, const struct tr_line *l, int have, const char *family);
struct tr_start *tr_by_run(struct lsc_triage *t, const struct tr_line *l, const char *run, int create);
/* The load's progress reached @frac (0..1) on line @l. */
void tr_progress_at(struct tr_start *s, const struct tr_line *l, double frac);
/* Has @s ended in a failure so far (an engine error, generic failure
 * evidence, an exit, a kill) without having completed? What begins a load
 * after that is a retry: a start of its own. */
int tr_start_failed(const struct tr_start *s);
void tr_touch(struct tr_start *s, const struct tr_line *l);
/* The length of the step name that opens @l (a function's or logger's
 * name before ": ", "load_tensors: ..."; 0 none), and whether it is @name. */
size_t tr_step_name(const struct tr_line *l);
int tr_step_name_is(const struct tr_line *l, const char *name);
void tr_close(struct lsc_triage *t, struct tr_start *s);
void tr_close_all(struct lsc_triage *t);

/* rules.c */
void tr_run_rules(struct lsc_triage *t, struct tr_start *s);
void tr_add_finding(struct lsc_triage *t, const struct tr_finding *f, unsigned long first_line);
/* @p, a full array of @*cap (> 0) elements of @size bytes, grown to twice
 * that and @*cap doubled; NULL, with @p and @*cap as they were. */
void *tr_grow(void *p, size_t *cap, size_t size);

/* recognisers: return 1 when the line was used */
int tr_recognise_lsc(struct lsc_triage *t, struct tr_line *l);
int tr_recognise_strata(struct lsc_triage *t, struct tr_line *l);
int tr_recognise_public(struct lsc_triage *t, struct tr_line *l);
int tr_recognise_shapes(struct lsc_triage *t, struct tr_line *l);
/* The line after a pasted `cat FILE` / `ulimit -l` (any line: the value has no keyword) */
int tr_recognise_setting_value(struct lsc_triage *t, struct tr_line *l);

/* ---- engine line shapes as data (shapes.c) ------------------------------------ */

/* What a line of a declared shape means for its start. */
enum tr_event {
	TR_EV_OPEN,        /* an engine's loader line: joins the current start or opens one */
	TR_EV_BEGIN,       /* a start marker: a fresh start once the current one got going */
	TR_EV_PROGRESS,    /* loading is under way */
	TR_EV_SUMMARY,     /* a load summary: the load completed */
	TR_EV_READY,       /* the engine is ready (a duration may follow @num_after) */
	TR_EV_LOAD_FAIL,   /* the load ended in an engine error (cause from the line's words) */
	TR_EV_PINNED_FAIL, /* a page-locked allocation or registration refused */
	TR_EV_PAGEABLE,    /* the engine went on with pageable memory */
	TR_EV_OOM_KILL,    /* the kernel's or systemd's OOM killer */
	TR_EV_KILL,        /* killed (SIGKILL), no OOM words */
	TR_EV_NUMA_ON,     /* automatic NUMA balancing is on */
	TR_EV_HUGETLB_SHORT, /* a hugetlb pool too small for the arena: need N, pool M */
	TR_EV_DIRECT_ON,   /* the engine reads with direct I/O */
	TR_EV_READ_ERROR,  /* a read error (direct I/O's when the engine said it uses it) */
	TR_EV_DIRECT_FAIL, /* GDS/cuFile or direct I/O refused, the engine fell back */
	TR_EV_MEM_ESTIMATE,/* ollama: memory.required.full / memory.available */
	TR_EV_SETTING_CAT, /* `cat FILE` / `ulimit -l` with the value on the next line */
	TR_EV_SETTING,     /* a setting as sysctl prints it: `name = value` */
	TR_EV_WEIGHTS_FS,  /* vLLM: the checkpoints' file system, size and the RAM available */
	TR_EV_SHARDS,      /* a tqdm progress line over checkpoint shards: N/M [elapsed<left, rate] */
	TR_EV_N
};

/* Fields a shape carries, read by their shape (scan.c), never by position. */
#define TR_FLD_SIZE 0x1u    /* a size (N MiB, N GiB, N bytes) after @num_after, else the first */
#define TR_FLD_DUR 0x2u     /* a duration after @num_after */
#define TR_FLD_EXACT 0x4u   /* the whole cleaned line is @key (a bare "Killed") */
#define TR_FLD_LOADING 0x8u /* means something only once loading began (a traceback) */
#define TR_FLD_FINAL 0x10u  /* the engine's last word on a failed start: what follows is a new start */

#define TR_SHAPE_SAMPLES 3
struct tr_shape {
	const char *engine;     /* whose line: "llama.cpp", "ollama", "vllm", "kernel", ... */
	const char *key;        /* a literal every such line holds: the prefilter's keyword */
	const char *also;       /* a second literal it must hold, or NULL */
	enum tr_event ev;
	unsigned fields;        /* TR_FLD_* */
	const char *num_after;  /* the figure follows this literal (NULL: the first in the line) */
	const char *samples[TR_SHAPE_SAMPLES]; /* lines as engines print them; tests check each */
};
extern const struct tr_shape tr_shapes[];
extern const size_t tr_nshapes;
/* The index of the first shape @s (cleaned, @n bytes) matches among those
 * whose keyword groups are in @kw (all when @kw is ~0), or -1. */
int tr_shape_match(const char *s, size_t n, uint64_t kw);
int tr_shape_match_from(const char *s, size_t n, uint64_t kw, size_t from);
/* The same for a prefiltered line, from its shape bits (tr_prefilter_line). */
int tr_shape_match_line(const struct tr_line *l, size_t from);
#define TR_G_SHAPE_SHIFT 24
/* bits 24-52; 53 to 55 are the shared vocabulary's (TR_G_GLOADW, TR_G_GSTEP, TR_G_GPIN) */
#define TR_G_SHAPE_BUCKETS 29
static inline uint64_t tr_shape_group(size_t i)
{
	return 1ull << (TR_G_SHAPE_SHIFT + i % TR_G_SHAPE_BUCKETS);
}

/* The cause of an engine error, classified from the line's words. */
enum tr_cause {
	TR_C_UNKNOWN, TR_C_OOM_HOST, TR_C_OOM_PINNED, TR_C_OOM_DEVICE, TR_C_OOM, TR_C_INVAL,
	TR_C_NOTSUP, TR_C_DRIVER, TR_C_NODEV, TR_C_READ, TR_C_TIMEOUT, TR_C_KILLED, TR_C_NOENT,
	TR_C_PERM, TR_C_PINNED, TR_C_HUGETLB, TR_C_GDS, TR_C_N
};
enum tr_cause tr_cause_of(const char *s, size_t n);
/* Does the line name a page-locked allocation (cudaMallocHost, "pinned", ...)? */
int tr_pinned_words(const char *s, size_t n);
/* Does it say the process was killed ("signal: killed", "exitcode: -9")? */
int tr_killed_words(const char *s, size_t n);
const char *tr_cause_name(enum tr_cause c);

/* ---- verdict.c: outcome and speed, judged before any cause ------------------ */

enum tr_outcome { TR_OUT_NONE, TR_OUT_COMPLETED, TR_OUT_FAILED, TR_OUT_CUTOFF, TR_OUT_LOADING };
enum tr_speed { TR_SPEED_UNKNOWN, TR_SPEED_OK, TR_SPEED_SLOW };
struct tr_verdict {
	enum tr_outcome outcome;
	enum tr_speed speed;
	double load_s;     /* the time judged (load, or time to ready), NAN none */
	double gib;        /* the size it moved, NAN none */
	double rate;       /* GiB/s, NAN none */
	int ev_time, ev_size; /* evidence of the two, -1 none */
	const char *basis; /* what load_s measures ("load", "time to ready", "progress so far", "clock span") */
	int ev_fail;       /* the line that says it failed, -1 none */
	int weights;       /* load_s is the weights' own load (a summary, a read), judged without a size from 100 s */
};
void tr_verdict_of(const struct tr_start *s, struct tr_verdict *v);
const char *tr_outcome_name(int o);
const char *tr_speed_name(int sp);
/* verdict_text.c: the verdict's own findings, filled into @f */
void tr_verdict_failed(struct tr_finding *f, const struct tr_start *s, const struct tr_verdict *v);
void tr_verdict_slow(struct tr_finding *f, const struct tr_start *s, const struct tr_verdict *v);
void tr_verdict_healthy(struct tr_finding *f, const struct tr_start *s, const struct tr_verdict *v);
void tr_verdict_completed(struct tr_finding *f, const struct tr_start *s);
void tr_verdict_probe(struct tr_finding *f, const struct tr_start *s);
void tr_verdict_noteval(struct tr_finding *f, const struct tr_start *s, const struct tr_verdict *v);
/* Is @engine (a shape's or a recogniser's tag) switched off in @t? */
int tr_engine_off(const struct lsc_triage *t, const char *engine);
int tr_recognise_generic(struct lsc_triage *t, struct tr_line *l);
/* A row of a status table a program drew ("| model | 1 | READY |",
 * "| m | 1 | UNAVAILABLE: Internal: ... |"): 1 used. */
int tr_recognise_table_row(struct lsc_triage *t, struct tr_line *l);
/* Does the line say something failed, read by meaning ("0 failures",
 * "succeeded", "ok" do not)? recognise_generic.c */
int tr_says_failed(const char *s, size_t n);
/* subject.c: is the load failure said at @k in @s[0..n) one the program
 * goes on past: an optional thing's (`Could not load token at "...", using
 * no HF token`), or one whose clause says what it does instead (`, using
 * ...`, `falling back to`, `skipping`, `continuing without`)? */
int tr_failure_gone_past(const char *s, size_t n, const char *k);
/* subject.c: is the ready line's subject a transport, the process's
 * endpoint (`GRPC Service Ready`, `HTTP server ready`), with no word of the
 * model or its weights: the endpoint up, not the model? */
int tr_ready_transport_only(const char *s, size_t n);
/* subject.c: a probe of a server's state named (a status or health query,
 * a readiness probe), not given up or timed out: what tr_probe_not_up
 * reads when the line's reason may have been cut. */
int tr_probe_said(const char *s, size_t n);
/* subject.c: does @s[0..n) say a probe of a server's readiness (its
 * status, its health) found it not up yet, without giving up: a wait on
 * the server, not a failure of its start? */
int tr_probe_not_up(const char *s, size_t n);
/* recognise_generic.c: are the load-failure words of @s[0..n) such a
 * failure? Engine shapes ask it too: the rule is the vocabulary's. */
int tr_load_failure_gone_past(const char *s, size_t n);

/* subject.c: is a ready word in the line about the model or what serves
 * it (not a Ray cluster, a tokenizer, a container)? Its words are also
 * read inside code's names (EngineCore, load_model). */
int tr_ready_subject(const char *s, size_t n);
int tr_ready_about_other(const char *s, size_t n);
/* subject.c: is the ready word's own subject, the word right before it,
 * a place that holds the model ("Model workspace is now ready", "cache
 * directory ready"): the place prepared, not the model up? */
int tr_ready_holder(const char *s, size_t n);
/* ram_fit.c: does the line set a checkpoint against the RAM available
 * and find it over 90% of it ("checkpoint size (148.66 GiB) exceeds 90% of
 * available RAM (0.65 GiB)")? 1 with the checkpoint's GiB: the bytes come
 * from the device. */
int tr_ckpt_over_ram(const char *s, size_t n, double *ckpt_gib);
/* recognise_generic.c: the process of the start under way ended on @l
 * (a console's pause prompt, a shell's prompt back): before ready, and
 * once the start reached @from, an exit before ready (1); 0 when the
 * start was up, had failed or had not reached @from; -1 no start. */
int tr_process_ended(struct lsc_triage *t, struct tr_line *l, enum tr_stage from);
/* shell_prompt.c: is the line a shell's prompt with nothing typed after
 * it (`PS D:\dir>`, `user@host:~$`): the shell is back? */
int tr_prompt_alone(const char *s, size_t n);
/* shell_signal.c: is the line a shell's report that its program ended on
 * a signal (`Killed`, `Segmentation fault (core dumped)`, `Trace/BPT trap:
 * 5`, `zsh: killed  cmd`, or one glued after an open bar)? TR_SIG_KILLED for
 * a kill, TR_SIG_FAULT for a fault or an abort, 0 none. */
enum { TR_SIG_KILLED = 1, TR_SIG_FAULT = 2 };
int tr_shell_signal(const char *s, size_t n);
/* Only the report glued after a bar's bracket (`3/8 [00:02<00:03,
 * 1.28it/s]Killed`): the bar's load was under way when it came. */
int tr_shell_signal_after_bar(const char *s, size_t n);
/* shell_signal.c: is the line a runtime's own report that its process is
 * dying of a fault (Android's `Fatal signal 11 (SIGSEGV)`, `Fatal Python
 * error: Segmentation fault`, `*** SIGSEGV received at time=`)? Read as a
 * shell's report of a fault is (TR_SIG_FAULT). */
int tr_fault_report(const char *s, size_t n);
/* quoted_output.c: does a failure line say the failed process's output
 * follows ("timed out after 20 seconds: logs: ...", "stderr:")? */
int tr_quotes_output(const char *s, size_t n);
/* process_start.c: does the line say a process started, with its id
 * ("Started server process [4803]", "process 4803 started")? */
int tr_process_started(const char *s, size_t n);
/* model_loaded.c: does the line say the model loaded, in words ("Model
 * llama3 loaded.", "Successfully loaded model x"): the load ended? */
int tr_model_loaded_words(const char *s, size_t n);
/* model_loaded.c: does the line that begins the load end in a word that
 * says it finished ("Loading model ... done", "loading weights: ok")? */
int tr_load_said_done(const char *s, size_t n);
/* recognise_generic.c: does the line begin the model's load with its
 * object named after the verb ("Loading Model: x", "Loading ONNX model
 * from ...")? */
int tr_loading_model_named(const char *s, size_t n);
/* recognise_generic.c: is the line a section's banner for the load
 * ("==========LoadModel==========", "----- Loading model -----")? */
int tr_load_banner(const char *s, size_t n);
/* chat_turn.c: does the line open a chat program's answer turn
 * ("### Response: ...", "Assistant: ...")? */
int tr_chat_answer(const char *s, size_t n);
/* chat_turn.c: is the line a chat CLI's help for its command to leave
 * (`  /exit or Ctrl+C     stop or exit`), shown once the model is up? */
int tr_repl_help(const char *s, size_t n);
/* memory_amount.c: does the line say the start brought an amount of
 * memory in ("Loaded engine size: 15323 MiB", "Allocated 1504.00 MiB for
 * ...", "Allocating 5033164800 bytes")? Not a refusal, not what is free. */
int tr_memory_brought(const char *s, size_t n);
/* device_table.c: is @s[0..n) the head of a table a GPU management tool
 * prints of its devices ("GPU  Temp   AvgPwr  SCLK ...": a setting)? */
int tr_device_table_head(const char *s, size_t n);
/* device_table.c: does the line open with a key of PyTorch's environment
 * report (`PyTorch version: `, `Is CUDA available: `)? A setting. */
int tr_env_report_line(const char *s, size_t n);
/* ready_address.c: does the line say a server is up where it answers
 * ("Server started at http://0.0.0.0:7650", "serving on 127.0.0.1:8080")?
 * 1 yes; 2 yes, the address after its name (gradio's "Running on local
 * URL:  http://..."); 0 no. */
int tr_ready_at_address(const char *s, size_t n);
/* subject.c: is the line's subject one part of the server (a shard, a
 * worker, a rank, a replica) and not the whole (the model, the server)? */
int tr_ready_part_only(const char *s, size_t n);
/* subject.c: does the line end in a whole subject and "started" ("Engine
 * started.", "gRPC server started"): the server up? */
int tr_whole_started(const char *s, size_t n);
/* "Started NAME in 2.345 seconds": the line opens with the verb, one to
 * three words name what started, then its time in *secs (a Java
 * application's ready line). 1 when it is one. */
int tr_started_named_in(const char *s, size_t n, double *secs);
/* Does the line negate readiness ("not ready after", "still loading", "never became ready")? */
int tr_ready_negated(const char *s, size_t n);
/* moved.c: "pinned 28.47 GiB in 18 s": a size moved in a time, on a line
 * whose verbs say memory was moved (not downloaded); 1 with its GiB and s. */
int tr_moved_in(const char *s, size_t n, double *gib, double *secs);
/* server_up.c: is the line a server up at its address that names no
 * model ("Uvicorn running on http://127.0.0.1:9997")? */
int tr_server_up_only(const char *s, size_t n);
/* backend_start.c: a launcher's report of a backend it starts itself
 * ("Self-Start ComfyUI-0 on port 7846 is loading...", "... failed."):
 * TR_BK_LOADING under way, TR_BK_FAILED ended before it came up, 0 none. */
enum { TR_BK_LOADING = 1, TR_BK_FAILED = 2 };
int tr_backend_start_said(const char *s, size_t n);
/* args_dump.c: a program's parsed arguments printed whole, naming its
 * model (`Args { model_id: "m", ... }`, `Namespace(model='m', ...)`): a
 * start begun. */
int tr_args_name_model(const char *s, size_t n);
/* load_summary.c: a load's summary in words, the past verb and its object
 * before the time ("Loaded models for whisper size: large-v3 in 25.66s"):
 * 1 with the seconds. Not a part that is no weights, nor a plan. */
int tr_loaded_in_words(const char *s, size_t n, double *secs);
/* load_summary.c: the load's end with its extent and sizes, no time
 * ("loaded completely 0.0 159.87 True", "loaded partially 9617.49 ..."):
 * the model is in. */
int tr_loaded_extent(const char *s, size_t n);
/* load_summary.c: a key named for the load with a duration for its value
 * ("load duration: 6.736757958s", Go's "1m5.2s"): 1 with the seconds. */
int tr_load_duration_key(const char *s, size_t n, double *secs);
/* load_progress.c: a line per tensor loaded ("loading blk.48.attn_kv_b.weight
 * to cuda:0"): the load under way. */
int tr_tensor_loading(const char *s, size_t n);
/* load_progress.c: a part of the model loaded by its number ("Loaded
 * enoch/llama-65b-hf block 73", "loaded layer 12"): the load under way. */
int tr_part_loaded(const char *s, size_t n);
/* load_progress.c: a model file opened with its count of tensors ("[GGUF]
 * /m/x.gguf: 678 tensors, data at offset 56800"): a file of the load read. */
int tr_model_file_opened(const char *s, size_t n);
/* shell_prompt.c: the command after a shell's prompt at the line's start
 * ("user@host:~$ cmd", "$ cmd", "C:\dir>cmd", zsh's arrow), or NULL. */
const char *tr_prompt_command(const char *s, size_t n);
/* shell_prompt.c: does the command @c[..end) run a program (a server, a
 * script, a log viewer's output of one), not only inspect the machine? */
int tr_command_launches(const char *c, const char *end);
/* shell_prompt.c: does the command @c[..end) only fetch a model's files
 * (`hf download x`, `modelscope download --model x`, `ollama pull x`)? */
int tr_command_fetches(const char *c, const char *end);
/* recognise_generic.c: the phrases that say a thing is up ("is ready",
 * "up and running"), NULL-ended, lower case: each must reach a reader
 * through a prefilter key, of TR_G_GREADY (the ready reader) or of
 * TR_G_LOADED (model_loaded.c's "model loaded", "loaded in"). */
const char *const *tr_ready_phrases(void);
/* recognise_generic.c: is the token at @p (quoted or not) a weight file by
 * its name's extension (.gguf, .safetensors, .onnx, .hef, ...), not a
 * directory, a library or a config file? */
int tr_weight_file_named(const char *p, const char *end);
/* rich_wrap.c: is @s[0..n) the first line of a record `rich` laid out in
 * columns (a level column, the location right-aligned at the end), maybe
 * behind a prefix every line carries? The message's end (the location
 * cut), with the message column in *indent and the prefix's length in
 * *prefix; 0 when it is not. */
size_t tr_rich_head(const char *s, size_t n, size_t *indent, size_t *prefix);
/* rich_wrap.c: the text of a continuation of such a record (the first
 * line's prefix again at @head[0..prefix), then indented to the message
 * column), its length, *text where it begins; 0 when @s is not one. */
size_t tr_rich_more(const char *s, size_t n, size_t indent, const char *head, size_t prefix, const char **text);
/* rich_wrap.c: @s[0..n) with its CSI escapes (ANSI colour) taken out, in
 * place: a line's width as the terminal showed it. The new length. */
size_t tr_strip_csi(char *s, size_t n);
/* shell_prompt.c: a prompt and a command that launches: a start under way
 * (the one before it ends when it had begun); 1 used. */
int tr_recognise_prompt(struct lsc_triage *t, struct tr_line *l);
/* shell_prompt.c: note a line of a start begun at a prompt's command that
 * carries a clock or a level the command's line did not (the program's own
 * log); every cleaned line passes here before it is recognised. */
void tr_prompt_after(struct lsc_triage *t, const struct tr_line *l);
/* load_progress.c: a share of the model loaded ("loaded  51% model tensors
 * into buffer", "Loading stable-whisper model... Progress: 30%"): 1 with
 * the fraction (0..1). */
int tr_percent_loaded(const char *s, size_t n, double *frac);
/* load_progress.c: does a structured record count the model's parts
 * loaded and their total (`"module":4,"modules":163` beside the model or
 * a load)? 1 with the share in *frac. */
int tr_parts_counted(const char *s, size_t n, double *frac);
/* A line some recogniser took for another fact ("error loading model:
 * hugetlb mmap failed: ..." as the hugetlb pool's) that says the load
 * failed fails the start under way, if nothing had: 1 when it did.
 * recognise_generic.c */
/* Do @s[0..n)'s words say a load failed ("failed to load", "error
 * loading", "could not load", "load failed")? A failure line, not a load
 * begun, whatever else the line's prefix makes it. */
int tr_load_failure_words(const char *s, size_t n);
int tr_load_failure_said(struct lsc_triage *t, const struct tr_line *l);
/* Is the line the dynamic loader's refusal to start a program ("error
 * while loading shared libraries: libnvinfer.so.10: cannot open shared
 * object file")? The program never ran: no model was read. recognise_generic.c */
int tr_dynlib_missing(const char *s, size_t n);
/* Does the line say a server or the model never came up ("xtts server
 * failed to come online within the specified attempts", "did not come
 * up"): a launcher that gave up on its start? recognise_generic.c */
int tr_never_came_up(const char *s, size_t n);
/* Is the line a guess, not an event ("may", "might", "could", "if")? recognise_generic.c */
int tr_hedged(const char *s, size_t n);

/* remedy_figures.c: the one home of each measured figure a remedy prints */
enum tr_fig_id { TR_FIG_REFAULT_4K, TR_FIG_SEED000_THP_OFF, TR_FIG_SEEDS_THP, TR_FIG_SEED002_HUGETLB, TR_FIG_N };
struct tr_figure {
	const char *rule;  /* the finding whose remedy prints it */
	const char *page;  /* where the measurement is recorded (relative to the repository) */
	const char *quote; /* the words that page uses for it */
	const char *text;  /* what the remedy prints */
};
extern const struct tr_figure tr_figures[TR_FIG_N];
const char *tr_fig(enum tr_fig_id id);

/* table.c */
void tr_table_row(struct lsc_triage *t, const struct tr_start *s);

/* redact.c: copy @in to @out (cap bytes) with hosts, users and paths replaced */
void tr_redact(const char *in, char *out, size_t cap);
/* Copy @n bytes of @in as printable UTF-8 (invalid bytes -> U+FFFD, controls -> ' ') */
size_t tr_sanitize(const char *in, size_t n, char *out, size_t cap);

/* renderers */
int tr_render_text(struct lsc_triage *t, FILE *out);
int tr_render_json(struct lsc_triage *t, FILE *out);
int tr_render_md(struct lsc_triage *t, FILE *out);
/* --table: each renderer prints its own form of the A/B table */
int tr_render_text_table(struct lsc_triage *t, FILE *out);
int tr_render_json_table(struct lsc_triage *t, FILE *out);
int tr_render_md_table(struct lsc_triage *t, FILE *out);
const char *tr_sev_name(enum lsc_triage_sev s);
const char *tr_kind_name(enum tr_kind k);
/* Evidence text as the renderers print it (redacted when asked). */
const char *tr_ev_text(const struct lsc_triage *t, const struct tr_evid *e, char *tmp, size_t cap);
const char *tr_src_name(const struct lsc_triage *t, unsigned src);

#endif
