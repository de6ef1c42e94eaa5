/*
 * pinned-alloc-failed: a page-locked allocation or registration was refused
 * (ggml's `failed to allocate N MiB of pinned memory: REASON` and `failed to
 * register`, cudaMallocHost, cudaHostAlloc, cudaHostRegister, hipHostMalloc,
 * hipHostRegister). fail when the load then failed; warn when it went on
 * (with pageable memory, which copies to the GPU at a fraction of the rate).
 * The size is quoted when the line gives a sane one.
 */
#include <string.h>

#include "internal.h"

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	(void)c;
	if (s->ev_pinned_fail < 0)
		return TR_NOFIRE;
	int failed = s->ev_error >= 0 || s->ev_oom >= 0 || s->ev_killed >= 0;
	const char *txt = (unsigned)s->ev_pinned_fail < s->nev ? s->ev[s->ev_pinned_fail].text : "";
	/* the reason is the line's tail ("...of pinned memory: invalid
	 * argument"): classify that, not the "failed to allocate" before it */
	const char *tail = strstr(txt, "pinned memory:");
	tail = tail ? tail + 14 : strrchr(txt, ':') ? strrchr(txt, ':') + 1 : txt;
	while (*tail == ' ')
		tail++;
	/* the reason only words the text */
	enum tr_cause why = tr_f_lite(f) ? TR_C_UNKNOWN : tr_cause_of(tail, strlen(tail));
	char reason[80];
	size_t rn = strlen(tail);
	while (rn && (tail[rn - 1] == '"' || tail[rn - 1] == ',' || tail[rn - 1] == ' ' || tail[rn - 1] == '`'))
		rn--; /* the quoting of a structured line's error="..." */
	snprintf(reason, sizeof(reason), "%.*s%s", (int)(rn > 60 ? 60 : rn), tail, rn > 60 ? "..." : "");
	tr_f_init(f, "pinned-alloc-failed", failed ? LSC_TRIAGE_FAIL : LSC_TRIAGE_WARN, s);
	char size[48] = "";
	if (tr_has(&s->pinned_fail_gib) && s->pinned_fail_gib.v >= 1)
		snprintf(size, sizeof(size), " of %.2f GiB", s->pinned_fail_gib.v);
	else if (tr_has(&s->pinned_fail_gib))
		snprintf(size, sizeof(size), " of %.2f MiB", s->pinned_fail_gib.v * 1024);
	tr_f_summary(f, "a pinned (page-locked) host allocation%s was refused (%s); %s", size,
		     why == TR_C_UNKNOWN && tail == txt ? "no reason given" : reason,
		     failed		     ? "the load then failed"
		     : s->ev_pageable >= 0 ? "the engine went on with pageable memory"
		     : s->done		     ? "the engine went on (pageable memory copies to the GPU more slowly)"
					     : "the log does not show whether the load went on");
	tr_f_ev(f, s, s->ev_pinned_fail);
	tr_f_ev(f, s, s->ev_pageable);
	tr_f_ev(f, s, s->ev_error);
	if (tr_has(&s->pinned_fail_gib) && tr_has(&s->memlock_bytes) && isfinite(s->memlock_bytes.v)) {
		tr_f_ev(f, s, s->memlock_bytes.ev);
		tr_f_math(f, "asked %.2f GiB against a locked-memory limit of %.2f GiB", s->pinned_fail_gib.v,
			  s->memlock_bytes.v / (1024.0 * 1024.0 * 1024.0));
	}
	if (why == TR_C_DRIVER)
		tr_f_rem(f, "the driver and the CUDA runtime do not match (the reason says so): update the driver or "
			    "use the engine build for it; pinning fails before any memory is short");
	if (why == TR_C_OOM || why == TR_C_OOM_PINNED || why == TR_C_OOM_HOST || why == TR_C_UNKNOWN)
		tr_f_rem(f, "page-locked memory must fit in free RAM at once and under the locked-memory limit: free "
			    "RAM, raise ulimit -l (LimitMEMLOCK=infinity for a systemd unit), or pin less (fewer "
			    "host-resident layers or experts)");
	if (why == TR_C_INVAL || why == TR_C_NOTSUP)
		tr_f_rem(f, "registration was refused (%s): a memory type the driver cannot lock (a file mapping on "
			    "some file systems, a VM without it); allocate the buffer anonymously or skip pinning",
			 tr_cause_name(why));
	tr_f_rem(f, "to go on without pinning: llama.cpp's GGML_CUDA_NO_PINNED=1; the copy to the GPU is slower");
	return tr_f_fire(f);
}

const struct tr_rule tr_rule_pinned_alloc_failed = {"pinned-alloc-failed", NULL, eval};
