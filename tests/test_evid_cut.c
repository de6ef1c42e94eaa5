/*
 * Description: evidence quotes cut at a token boundary with a visible
 * ellipsis (tools/triage/evid_cut.c), never inside a number or a key: for
 * lines of random tokens cut at every bound, and for a real loadscope line
 * quoted by the triage, where a fixed-width cut used to leave
 * `bytes=10737418` of `bytes=1073741824`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "triage/evid_cut.h"
#include "triage/internal.h"
#include "helpers/triage_run.h"

#define ELL " \xe2\x80\xa6"

/* A line of tokens "key=123456" and words, from @seed. */
static size_t random_line(char *out, size_t cap, unsigned seed)
{
	size_t n = 0;
	srand(seed);
	while (n + 40 < cap) {
		int k = rand() % 3;
		n += (size_t)(k == 0   ? snprintf(out + n, cap - n, "key_%d=%d ", rand() % 100, rand())
			      : k == 1 ? snprintf(out + n, cap - n, "| ")
				       : snprintf(out + n, cap - n, "word%d ", rand() % 1000));
	}
	out[n] = '\0';
	return n;
}

Test(evid_cut, cuts_between_tokens_with_an_ellipsis)
{
	char line[1200], buf[400];
	for (unsigned seed = 1; seed < 200; seed++) {
		size_t len = random_line(line, sizeof line, seed);
		for (size_t cap = 16; cap <= sizeof buf; cap += 7) {
			size_t keep = len < cap - 1 ? len : cap - 1;
			memcpy(buf, line, keep);
			buf[keep] = '\0';
			size_t n = tr_evid_cut(buf, keep, cap);
			cr_assert_lt(n, cap, "seed %u cap %zu", seed, cap);
			cr_assert_eq(strlen(buf), n);
			cr_assert_geq(n, 4);
			cr_assert_str_eq(buf + n - 4, ELL, "seed %u cap %zu: %s", seed, cap, buf);
			size_t body = n - 4;
			cr_assert(!strncmp(buf, line, body), "seed %u cap %zu: not a prefix: %s", seed, cap, buf);
			/* what is kept ends a token: the line goes on with a space
			 * (or a separator) after it, never with more of the token */
			if (body > 0 && memchr(buf, ' ', body)) {
				char next = line[body];
				cr_assert(next == ' ' || next == '|' || next == '\0', "seed %u cap %zu: cut inside "
					  "a token: ...%.20s| %.10s", seed, cap, buf + (body > 20 ? body - 20 : 0), line + body);
				cr_assert(buf[body - 1] != ' ' && buf[body - 1] != '|');
			}
		}
	}
}

Test(evid_cut, a_triage_quote_keeps_whole_numbers)
{
	/* a phase line whose 320th byte falls inside bytes=1073741824 */
	char log[2048];
	char pad[400];
	for (size_t w = 200; w < 300; w += 3) {
		memset(pad, 'x', w);
		pad[w] = '\0';
		snprintf(log, sizeof log,
			 "[loadscope/1] start e | run=aa000001\n"
			 "[loadscope/1] phase allocate: %s | run=aa000001 kind=allocate bytes=1073741824 wall_s=400.5 "
			 "gibps=0.002 minflt=262144\n"
			 "[loadscope/1] ready in 401 s | run=aa000001 wall_s=401\n",
			 pad);
		struct lsc_triage *t = trun_text(log);
		cr_assert_not_null(t);
		int quoted = 0;
		for (size_t i = 0; i < t->nfull; i++)
			for (unsigned k = 0; k < t->full[i].nev; k++) {
				const char *q = t->full[i].ev[k].text;
				if (!strstr(q, "phase allocate"))
					continue;
				quoted++;
				const char *b = strstr(q, "bytes=");
				cr_assert(!b || !strncmp(b, "bytes=1073741824", 16), "pad %zu: %s", w, q);
				const char *pl = strstr(log, "[loadscope/1] phase");
				size_t plen = (size_t)(strchr(pl, '\n') - pl);
				if (plen + 4 >= TR_EVTEXT) /* the line is longer than a quote */
					cr_assert(strlen(q) >= 4 && !strcmp(q + strlen(q) - 4, ELL), "pad %zu: no ellipsis: %s",
						  w, q);
			}
		cr_assert_gt(quoted, 0, "pad %zu: the line was not quoted", w);
		lsc_triage_free(t);
	}
}
