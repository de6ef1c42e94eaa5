/*
 * load-failed: the start ended in an engine error before it was ready
 * (llama.cpp's `error loading model`, vLLM's `WorkerProc failed to start`, a
 * Python traceback's out-of-memory line, ollama's `llama runner process has
 * terminated` or `timed out waiting for llama runner`, loadscope's `error`
 * line). The cause is classified from the error line's words (tr_cause_of),
 * the more specific of the start's two error lines winning (llama.cpp says
 * `failed to load model` after the line that says why), and each class has
 * its own remedies. A start that failed is never healthy.
 */
#include <string.h>

#include "internal.h"

static void remedies(struct tr_finding *f, const struct tr_start *s, enum tr_cause c)
{
	switch (c) {
	case TR_C_OOM_PINNED:
		tr_f_rem(f, "pinned (page-locked) host memory could not be had: lower what is pinned (fewer layers "
			    "or experts in host buffers, a smaller context), or let the engine use pageable memory "
			    "(llama.cpp: GGML_CUDA_NO_PINNED=1)");
		tr_f_rem(f, "check the locked-memory limit (ulimit -l; LimitMEMLOCK= for a systemd unit) and free "
			    "RAM: page-locked memory cannot be swapped or reclaimed");
		break;
	case TR_C_OOM_DEVICE:
		tr_f_rem(f, "the GPU ran out of memory: offload fewer layers (-ngl / num_gpu), shorten the context, "
			    "or lower gpu_memory_utilization (vLLM); a smaller quantisation needs less");
		tr_f_rem(f, "check nothing else holds the GPU's memory (nvidia-smi / rocm-smi)");
		break;
	case TR_C_OOM_HOST:
	case TR_C_OOM:
		tr_f_rem(f, "the allocation did not fit in memory: check free RAM and swap against the model's size; "
			    "use mmap instead of reading the whole file (llama.cpp without --no-mmap), or offload more "
			    "to the GPU");
		if (c == TR_C_OOM)
			tr_f_rem(f, "the line does not say whether host, page-locked or GPU memory ran out: the lines "
				    "before it usually do");
		break;
	case TR_C_INVAL:
		if (s->direct_on)
			tr_f_rem(f, "the engine reads with direct I/O and the read was refused (EINVAL): O_DIRECT needs "
				    "aligned offsets and a file system that supports it; turn direct I/O off "
				    "(llama.cpp: --no-direct-io / direct_io=false) or move the model to ext4/xfs");
		tr_f_rem(f, "an argument was refused (EINVAL): a size or alignment the driver or kernel does not "
			    "accept; the line before it names the call");
		break;
	case TR_C_NOTSUP:
		tr_f_rem(f, "the operation is not supported here (a file system without O_DIRECT, a driver without "
			    "host registration, a container without the capability): use the engine's fallback option");
		break;
	case TR_C_DRIVER:
		tr_f_rem(f, "the driver and the runtime the engine was built with do not match: update the driver, "
			    "or install the engine build for this driver (CUDA/ROCm version)");
		break;
	case TR_C_NODEV:
		tr_f_rem(f, "no GPU was visible to the process: check CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES, the "
			    "container's device access (--gpus all), and that the driver is loaded (nvidia-smi)");
		break;
	case TR_C_READ:
		tr_f_rem(f, "reading the model failed: check the file (size, checksum, a partial download) and the "
			    "disk (dmesg for I/O errors)");
		break;
	case TR_C_TIMEOUT:
		tr_f_rem(f, "the engine gave up waiting for the model to load: a slow disk or a large model on a "
			    "busy host; raise the timeout (ollama: OLLAMA_LOAD_TIMEOUT) and look at the load's phases");
		break;
	case TR_C_KILLED:
		tr_f_rem(f, "the process was killed, most often by the kernel's OOM killer: look in dmesg / journalctl "
			    "-k for `Out of memory: Killed process`, and compare the model's size with free RAM");
		break;
	case TR_C_NOENT:
		tr_f_rem(f, "a file was not found: check the model path (and that the container mounts it)");
		break;
	case TR_C_PERM:
		tr_f_rem(f, "permission was refused: check the file's permissions and the process's capabilities "
			    "(CAP_IPC_LOCK for locked memory)");
		break;
	case TR_C_PINNED:
		tr_f_rem(f, "the page-locked allocation was refused (pinned-alloc-failed has its reason): pin less, or "
			    "let the engine use pageable memory (llama.cpp: GGML_CUDA_NO_PINNED=1)");
		break;
	case TR_C_HUGETLB:
		tr_f_rem(f, "the hugetlb mapping needs its pages free in the pool at once (hugetlb-pool-short has the "
			    "count): reserve them (sysctl vm.nr_hugepages, best at boot) or load without hugetlb");
		break;
	case TR_C_GDS:
		tr_f_rem(f, "GPUDirect Storage refused the registration: check nvidia-fs is loaded and the file "
			    "system supports GDS (gdscheck -p), or load without it (fastsafetensors: nogds=True)");
		break;
	case TR_C_UNKNOWN:
	case TR_C_N:
		tr_f_rem(f, "the error line does not say why: paste the lines just before it");
		break;
	}
	tr_f_rem(f, "loadscope explain load-failed (or share/doc/loadscope/troubleshooting.md#load-failed)");
}

static enum tr_cause cause_of_ev(const struct tr_start *s, int ev)
{
	if (ev < 0 || (unsigned)ev >= s->nev)
		return TR_C_UNKNOWN;
	return tr_cause_of(s->ev[ev].text, strlen(s->ev[ev].text));
}

/* A start the shared vocabulary saw fail (recognise_generic.c: an error
 * line, a traceback's last exception) failed its load when it had begun
 * loading (a progress line, or the load's beginning in words: "loading
 * model /m", "Load weight begin"), its failure lines speak of what loads
 * (the model, its weights, the memory for them), or a frame of its
 * traceback was in a loading function. Kills have their own finding. */
static int generic_load_failure(const struct tr_start *s)
{
	/* the backend is the engine's part that holds the model ("Could not
	 * create backend"), as the engine is */
	static const char *const w[] = {"load", "model", "weight", "checkpoint", "tensor", "memory", "alloc",
					"shard", "engine", "backend",
					/* a runner holds the model as a backend does (ollama's
					 * `failed to start a llama runner`) */
					"runner", NULL};
	int tb = s->in_traceback && s->ev_tb >= 0 && s->stage < TR_ST_READY && s->ev_gen_ready < 0;
	int gen = s->ev_gen_fail >= 0 || tb;
	if ((!gen && (s->ev_exit < 0 || s->ev_verify_fail >= 0)) || s->ev_oom >= 0 || s->ev_killed >= 0 ||
	    (s->done && !tb))
		return 0;
	/* (or its command ran a model file: `hailortcli benchmark x.hef`,
	 * whose runtime's failure before ready is that model's) */
	if (gen && (s->stage >= TR_ST_LOADING || s->gen_load_began || s->cmd_model))
		return 1;
	if (gen && s->ev_tb_load >= 0)
		return 1; /* a frame of the traceback was loading (load_model, from_pretrained) */
	/* an exit before ready ("running model m exited with error") by its words */
	const int evs[] = {s->ev_gen_fail, s->ev_gen_fail_last, tb ? s->ev_tb : -1, s->ev_exit};
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		if (evs[i] < 0 || (unsigned)evs[i] >= s->nev)
			continue;
		const char *x = s->ev[evs[i]].text;
		size_t xn = strlen(x);
		/* the dynamic loader's "loading shared libraries": the program
		 * never ran, no model was read */
		if (tr_dynlib_missing(x, xn))
			continue;
		/* a launcher that gave up on its server coming up ("failed to
		 * come online within the specified attempts"): the model's
		 * server never came up, as ollama's `timed out waiting for llama
		 * runner to start` */
		if (tr_never_came_up(x, xn))
			return 1;
		for (const char *const *k = w; *k; k++)
			if (tr_memmem_ci(x, xn, *k))
				return 1;
	}
	return 0;
}

static int eval(const struct tr_start *s, const struct tr_ctx *c, struct tr_finding *f)
{
	(void)c;
	if (s->ev_error < 0 && generic_load_failure(s)) {
		struct tr_start g = *s; /* the generic failure as the start's error */
		g.ev_error = s->ev_gen_fail_last >= 0 ? s->ev_gen_fail_last
			     : s->ev_gen_fail >= 0     ? s->ev_gen_fail
			     : s->ev_tb >= 0 && s->in_traceback ? s->ev_tb
								: s->ev_exit;
		g.ev_error2 = s->ev_gen_fail != g.ev_error ? s->ev_gen_fail : -1;
		g.ev_gen_fail_last = -1;
		return eval(&g, c, f);
	}
	if (s->ev_error < 0)
		return TR_NOFIRE;
	if (tr_f_lite(f)) { /* the cause only words the text */
		tr_f_init(f, "load-failed", LSC_TRIAGE_FAIL, s);
		tr_f_ev(f, s, s->ev_error);
		tr_f_ev(f, s, s->ev_error2);
		tr_f_ev(f, s, s->ev_pinned_fail);
		tr_f_ev(f, s, s->ev_gds);
		return TR_FIRE;
	}
	/* a traceback is one block: its last exception line is the cause */
	int prim = s->ev_error, exc = 0;
	if (s->ev_gen_fail_last >= 0 && (unsigned)s->ev_error < s->nev &&
	    strstr(s->ev[s->ev_error].text, "Traceback (most recent call last)")) {
		prim = s->ev_gen_fail_last;
		exc = 1;
	}
	enum tr_cause a = cause_of_ev(s, prim), b = cause_of_ev(s, s->ev_error2);
	/* the more specific class: a named cause over none, an OOM's kind over "an allocation" */
	enum tr_cause cause = a == TR_C_UNKNOWN || (a == TR_C_OOM && b != TR_C_UNKNOWN) ? b : a;
	/* an unclassified error after a refusal the log names: that refusal */
	if (cause == TR_C_UNKNOWN && s->ev_pinned_fail >= 0)
		cause = cause_of_ev(s, s->ev_pinned_fail);
	if (cause == TR_C_UNKNOWN && s->ev_pinned_fail >= 0)
		cause = TR_C_PINNED;
	if (cause == TR_C_OOM && s->ev_pinned_fail >= 0)
		cause = TR_C_OOM_PINNED;
	if (cause == TR_C_UNKNOWN && s->ev_gds >= 0)
		cause = TR_C_GDS;
	if (cause == TR_C_UNKNOWN && (s->ev_hugetlb_fail >= 0 || tr_has(&s->huge_needed)))
		cause = TR_C_HUGETLB;
	tr_f_init(f, "load-failed", LSC_TRIAGE_FAIL, s);
	if (exc)
		tr_f_summary(f, "the start ended in an engine error before it was ready: %s (%.160s)", tr_cause_name(cause),
			     s->ev[prim].text);
	else
		tr_f_summary(f, "the start ended in an engine error before it was ready: %s", tr_cause_name(cause));
	tr_f_ev(f, s, prim);
	tr_f_ev(f, s, s->ev_error);
	tr_f_ev(f, s, s->ev_error2);
	tr_f_ev(f, s, s->ev_pinned_fail);
	tr_f_ev(f, s, s->ev_gds);
	if (tr_has(&s->fail_gib))
		tr_f_math(f, "the refused allocation: %.2f GiB", s->fail_gib.v);
	if (tr_has(&s->mem_required_gib) && tr_has(&s->mem_available_gib))
		tr_f_math(f, "the engine's estimate: %.1f GiB required for a full offload, %.1f GiB available",
			  s->mem_required_gib.v, s->mem_available_gib.v);
	remedies(f, s, cause);
	return TR_FIRE;
}

const struct tr_rule tr_rule_load_failed = {"load-failed", NULL, eval};
