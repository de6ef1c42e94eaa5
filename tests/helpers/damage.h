/*
 * Paste damage, as a function: re-render a whole startup log the way bug
 * reports deliver it (CRLF, ANSI colour, markdown quoting, code fences,
 * <details>, bold numbers, syslog/journald prefixes, `(Name pid=N)` chains,
 * leading timestamps, an engine prefix, all of them at once), and cut it at a
 * byte. The triage damage test and the fuzz seed script share these so that
 * what is tested is what is fuzzed (../shared/reference/triage.md: "re-render
 * every corpus log through each kind of paste damage and require the same
 * findings").
 *
 * Every transform is deterministic: the same input gives the same bytes, so a
 * failure is reproducible from the log name and the damage name alone.
 */
#ifndef LSC_TESTS_DAMAGE_H
#define LSC_TESTS_DAMAGE_H

#include <stddef.h>
#include <stdint.h>

enum dmg_kind {
	DMG_CRLF,          /* \r\n line ends */
	DMG_ANSI,          /* colour escapes around the level word and a number */
	DMG_QUOTE,         /* "> " markdown quoting */
	DMG_QUOTE2,        /* "> > " nested quoting */
	DMG_FENCE,         /* ``` ... ``` */
	DMG_FENCE_NESTED,  /* ```` around ```text ... ``` */
	DMG_DETAILS,       /* <details><summary>log</summary> + a fence */
	DMG_BOLD,          /* **7.51 s** around numbers with a unit */
	DMG_SYSLOG,        /* "Oct 16 15:39:01 host strata[1234]: " */
	DMG_JOURNALD,      /* journalctl -x: the syslog prefix plus systemd and catalog lines mixed in */
	DMG_PIDCHAIN,      /* "(EngineCore_0 pid=1401) (RayWorker pid=42) " */
	DMG_TS_ISO,        /* "2026-10-16T15:39:01.123456Z " */
	DMG_TS_BRACKET,    /* "[2026-10-16 15:39:01.123] " */
	DMG_TS_ELAPSED,    /* "0.00.189.951 I " (llama.cpp's log prefix) */
	DMG_ENGINE,        /* "strata generate: " */
	DMG_ALL,           /* every one of the above, in the order a paste would stack them */
	DMG_ALL_FOREIGN,   /* the same stack without "strata generate: ", the seed engine's own
	                      prefix (on another engine's log it would make the lines strata's) */
	DMG_N
};

struct dmg_buf {
	char *p;     /* malloc'ed, NUL-terminated */
	size_t len;
	size_t cap;
};

/* "crlf", "ansi", ... ; NULL for an out-of-range kind. */
const char *dmg_name(enum dmg_kind k);

/*
 * Render @in (@len bytes, a whole log or a fragment; a last line without a
 * newline stays without one) through @k into @out, which is reset first.
 * Return 0, or -ENOMEM (then @out is empty), or -EINVAL for a bad kind.
 */
int dmg_apply(enum dmg_kind k, const char *in, size_t len, struct dmg_buf *out);

/* Free @b's storage and zero it. */
void dmg_free(struct dmg_buf *b);

/* A deterministic cut point in (0, len) for @seed (splitmix64); 0 when len < 2. */
size_t dmg_cut_point(uint64_t seed, size_t len);

/* The next value of a splitmix64 sequence in @state (for chunk sizes). */
uint64_t dmg_rand(uint64_t *state);

#endif
