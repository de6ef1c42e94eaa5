/*
 * Other engines' line shapes, declared as data: per engine, a keyword every
 * such line holds (the prefilter looks for it in its one pass), a second
 * literal it must hold, the event it yields, the figure it carries, and
 * lines as the engine prints them, which tests/test_triage_shapes.c checks
 * against this table (as lnav's format definitions carry their samples).
 * Adding an engine's lines is adding rows here; recognise_shapes.c applies
 * the events to the start, and tr_cause_of classifies an error's words.
 *
 * Order matters: the first row a line matches wins, so a failure shape comes
 * before the loader shape of the same prefix (`llama_model_load: error
 * loading model` is a failure, `llama_model_load: ...` only a loader line).
 * The second literal is matched ignoring case (reporters' engines say
 * "failed", "Failed" and "FAILED"); the keyword is exact, as the prefilter
 * needs.
 */
#include <ctype.h>
#include <string.h>

#include "internal.h"

const struct tr_shape tr_shapes[] = {
	/* ---- an engine's startup error that names its cause: the cause's row
	 * (pinned, hugetlb) is applied too (recognise_shapes.c) ---- */
	{"any", "failed to reserve", NULL, TR_EV_LOAD_FAIL, 0, NULL,
	 {"failed to reserve the host KV cache: cudaMallocHost failed to pin 8192 MiB of host memory", NULL, NULL}},

	/* ---- pinned host memory refused (ggml, llama.cpp, CUDA and HIP calls) ---- */
	{"ggml", "of pinned memory", "failed to allocate", TR_EV_PINNED_FAIL, TR_FLD_SIZE, "allocate",
	 {"ggml_cuda_host_malloc: failed to allocate 512.00 MiB of pinned memory: out of memory",
	  "WARNING: failed to allocate 1024.00 MB of pinned memory: invalid argument",
	  "ggml_cuda_host_malloc: failed to allocate 98304,00 MiB of pinned memory: out of memory"}},
	{"ggml", "of pinned memory", "failed to register", TR_EV_PINNED_FAIL, TR_FLD_SIZE, "register",
	 {"register_host_buffer: warning: failed to register 4096.00 MiB of pinned memory: operation not supported",
	  NULL, NULL}},
	{"cuda", "cudaMallocHost", "fail", TR_EV_PINNED_FAIL, TR_FLD_SIZE, NULL,
	 {"cudaMallocHost failed: out of memory (size 34359738368 bytes)", NULL, NULL}},
	{"cuda", "cudaHostAlloc", "fail", TR_EV_PINNED_FAIL, TR_FLD_SIZE, NULL,
	 {"cudaHostAlloc(34359738368 bytes) failed: cudaErrorMemoryAllocation", NULL, NULL}},
	{"cuda", "cudaHostRegister", "fail", TR_EV_PINNED_FAIL, TR_FLD_SIZE, NULL,
	 {"cudaHostRegister failed for 16.00 GiB: invalid argument", NULL, NULL}},
	{"cuda", "cudaHostRegister", "error", TR_EV_PINNED_FAIL, TR_FLD_SIZE, NULL,
	 {"RuntimeError: cudaHostRegister error: operation not supported", NULL, NULL}},
	{"hip", "hipHostMalloc", "fail", TR_EV_PINNED_FAIL, TR_FLD_SIZE, NULL,
	 {"hipHostMalloc failed: hipErrorOutOfMemory (8.00 GiB)", NULL, NULL}},
	{"hip", "hipHostRegister", "fail", TR_EV_PINNED_FAIL, TR_FLD_SIZE, NULL,
	 {"hipHostRegister failed: hipErrorInvalidValue", NULL, NULL}},
	{"any", "pageable memory", "fall", TR_EV_PAGEABLE, 0, NULL,
	 {"warning: pinned allocation failed, falling back to pageable memory", NULL, NULL}},
	{"vllm", "pin_memory=False", NULL, TR_EV_PAGEABLE, 0, NULL,
	 {"WARNING 10-16 15:39:01 [utils.py:123] Using 'pin_memory=False' as WSL is detected. This may slow down the "
	  "performance.",
	  NULL, NULL}},

	/* ---- the load ended in an engine error ---- */
	{"llama.cpp", "error loading model", NULL, TR_EV_LOAD_FAIL, 0, NULL,
	 {"llama_model_load: error loading model: unable to allocate CUDA0 buffer",
	  "llama_load_model_from_file: error loading model: read error: Invalid argument", NULL}},
	{"llama.cpp", "failed to load model", NULL, TR_EV_LOAD_FAIL, TR_FLD_FINAL, NULL,
	 {"common_init_from_params: failed to load model '/models/llama-70b.gguf'",
	  "llama_load_model_from_file: failed to load model", NULL}},
	{"llama.cpp", "unable to load model", NULL, TR_EV_LOAD_FAIL, TR_FLD_FINAL, NULL,
	 {"main: error: unable to load model", NULL, NULL}},
	{"llama.cpp", "unable to allocate backend buffer", NULL, TR_EV_LOAD_FAIL, 0, NULL,
	 {"llama_model_loader: unable to allocate backend buffer", NULL, NULL}},
	{"llama.cpp", "Failed to allocate buffer type", NULL, TR_EV_LOAD_FAIL, 0, NULL,
	 {"llama_init_from_model: Failed to allocate buffer type CUDA_Host", NULL, NULL}},
	{"ggml", "failed to allocate buffer of size", NULL, TR_EV_LOAD_FAIL, TR_FLD_SIZE, "of size",
	 {"ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 137438953472",
	  NULL, NULL}},
	{"ggml", "cudaMalloc failed", NULL, TR_EV_LOAD_FAIL, 0, NULL,
	 {"ggml_backend_cuda_buffer_type_alloc_buffer: allocating 40960.00 MiB on device 0: cudaMalloc failed: out of "
	  "memory",
	  NULL, NULL}},
	{"vllm", "WorkerProc failed to start", NULL, TR_EV_LOAD_FAIL, 0, NULL,
	 {"ERROR 10-16 15:41:07 [multiproc_executor.py:511] WorkerProc failed to start.", NULL, NULL}},
	{"vllm", "Engine core initialization failed", NULL, TR_EV_LOAD_FAIL, 0, NULL,
	 {"RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}", NULL,
	  NULL}},
	{"python", "OutOfMemoryError", NULL, TR_EV_LOAD_FAIL, 0, NULL,
	 {"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
	  "23.58 GiB",
	  "torch.cuda.OutOfMemoryError: CUDA out of memory.", NULL}},
	{"pytorch", "failed (exitcode:", NULL, TR_EV_LOAD_FAIL, 0, NULL,
	 {"E0725 12:48:53.920000 127614093211456 torch/distributed/elastic/multiprocessing/api.py:702] failed "
	  "(exitcode: -9) local_rank: 0 (pid: 6774) of fn: worker_process_entrypoint (start_method: fork)",
	  NULL, NULL}},
	{"localai", "Fails: could not load model", NULL, TR_EV_LOAD_FAIL, TR_FLD_FINAL, NULL,
	 {"9:25PM INF [llama-cpp] Fails: could not load model: rpc error: code = Canceled desc = ", NULL, NULL}},
	{"localai", "] Attempting to load", NULL, TR_EV_BEGIN, 0, NULL,
	 {"9:25PM INF [llama-cpp] Attempting to load", NULL, NULL}},
	{"python", "Traceback (most recent call last)", NULL, TR_EV_LOAD_FAIL, TR_FLD_LOADING, NULL,
	 {"(ApiServer_5 pid=463645) Traceback (most recent call last):", NULL, NULL}},
	{"python", "CUDA error:", NULL, TR_EV_LOAD_FAIL, 0, NULL,
	 {"RuntimeError: CUDA error: out of memory", "RuntimeError: CUDA error: no CUDA-capable device is detected",
	  NULL}},
	{"ollama", "llama runner process has terminated", NULL, TR_EV_LOAD_FAIL, TR_FLD_FINAL, NULL,
	 {"Error: llama runner process has terminated: signal: killed",
	  "time=2025-03-02T10:11:12.345Z level=ERROR source=sched.go:455 msg=\"error loading llama server\" "
	  "error=\"llama runner process has terminated: exit status 2\"",
	  NULL}},
	{"ollama", "error starting llama server", NULL, TR_EV_LOAD_FAIL, TR_FLD_FINAL, NULL,
	 {"time=2024-04-18T20:59:02.533-06:00 level=ERROR source=server.go:283 msg=\"error starting llama server\" "
	  "server=rocm_v60002 error=\"llama runner process no longer running: 1 error:failed to create context\"",
	  NULL, NULL}},
	{"ollama", "llama runner process no longer running", NULL, TR_EV_LOAD_FAIL, TR_FLD_FINAL, NULL,
	 {"Error: llama runner process no longer running: 1 error:failed to create context with model", NULL, NULL}},
	{"ollama", "timed out waiting for llama runner to start", NULL, TR_EV_LOAD_FAIL, TR_FLD_FINAL, NULL,
	 {"time=2025-03-02T10:16:12.345Z level=ERROR source=sched.go:455 msg=\"error loading llama server\" "
	  "error=\"timed out waiting for llama runner to start - progress 0.42 - \"",
	  NULL, NULL}},

	/* ---- the kernel's and systemd's OOM killer, kills ---- */
	{"kernel", "Out of memory: Killed process", NULL, TR_EV_OOM_KILL, TR_FLD_SIZE, "anon-rss:",
	 {"Out of memory: Killed process 4242 (llama-server) total-vm:98765432kB, anon-rss:61234567kB, file-rss:0kB, "
	  "shmem-rss:0kB, UID:1000 pgtables:123456kB oom_score_adj:0",
	  NULL, NULL}},
	{"kernel", "invoked oom-killer", NULL, TR_EV_OOM_KILL, 0, NULL,
	 {"python3 invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), order=0, "
	  "oom_score_adj=0",
	  NULL, NULL}},
	{"kernel", "oom-kill:", NULL, TR_EV_OOM_KILL, 0, NULL,
	 {"oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/user."
	  "slice,task=python3,pid=4242,uid=1000",
	  NULL, NULL}},
	{"systemd", "killed by the OOM killer", NULL, TR_EV_OOM_KILL, 0, NULL,
	 {"ollama.service: A process of this unit has been killed by the OOM killer.", NULL, NULL}},
	{"systemd", "Failed with result 'oom-kill'", NULL, TR_EV_OOM_KILL, 0, NULL,
	 {"ollama.service: Failed with result 'oom-kill'.", NULL, NULL}},
	{"systemd", "code=killed, status=9/KILL", NULL, TR_EV_KILL, 0, NULL,
	 {"ollama.service: Main process exited, code=killed, status=9/KILL", NULL, NULL}},
	{"shell", "Killed", NULL, TR_EV_KILL, TR_FLD_EXACT, NULL, {"Killed", NULL, NULL}},
	/* Kubernetes' word for a container the OOM killer ended (kubectl
	 * describe's last state, a pod's status) */
	{"kubernetes", "OOMKilled", NULL, TR_EV_OOM_KILL, 0, NULL,
	 {"      Reason:       OOMKilled", "    Last State:     Terminated Reason: OOMKilled Exit Code: 137",
	  "vllm-predictor-5d9c7   0/1     OOMKilled   2 (40s ago)   3m"}},

	/* ---- automatic NUMA balancing ---- */
	{"ggml", "numa_balancing", "enabled", TR_EV_NUMA_ON, 0, NULL,
	 {"warning: /proc/sys/kernel/numa_balancing is enabled, this has been observed to impair performance",
	  NULL, NULL}},
	{"any", "NUMA balancing is enabled", NULL, TR_EV_NUMA_ON, 0, NULL,
	 {"WARNING: NUMA balancing is enabled, this is known to degrade performance", NULL, NULL}},
	{"sysctl", "numa_balancing =", NULL, TR_EV_SETTING, 0, NULL, {"kernel.numa_balancing = 1", NULL, NULL}},
	{"sysctl", "nr_hugepages =", NULL, TR_EV_SETTING, 0, NULL, {"vm.nr_hugepages = 0", NULL, NULL}},
	{"shell", "/proc/sys/kernel/numa_balancing", NULL, TR_EV_SETTING_CAT, 0, NULL,
	 {"$ cat /proc/sys/kernel/numa_balancing", NULL, NULL}},
	{"shell", "/proc/sys/vm/nr_hugepages", NULL, TR_EV_SETTING_CAT, 0, NULL,
	 {"cat /proc/sys/vm/nr_hugepages", NULL, NULL}},
	{"shell", "transparent_hugepage/enabled", NULL, TR_EV_SETTING_CAT, 0, NULL,
	 {"$ cat /sys/kernel/mm/transparent_hugepage/enabled", NULL, NULL}},
	{"shell", "transparent_hugepage/defrag", NULL, TR_EV_SETTING_CAT, 0, NULL,
	 {"cat /sys/kernel/mm/transparent_hugepage/defrag", NULL, NULL}},
	{"shell", "ulimit -l", NULL, TR_EV_SETTING_CAT, 0, NULL, {"$ ulimit -l", NULL, NULL}},

	/* ---- hugetlb in other engines' words, GDS/cuFile, direct I/O ---- */
	{"any", "hugetlb mmap failed", NULL, TR_EV_HUGETLB_SHORT, 0, NULL,
	 {"hugetlb mmap failed: need 20480 free 2 MiB pages, pool has 0", NULL, NULL}},
	{"any", "MAP_HUGETLB failed", NULL, TR_EV_HUGETLB_SHORT, 0, NULL,
	 {"MAP_HUGETLB failed: Cannot allocate memory", "MAP_HUGETLB failed, using normal pages", NULL}},
	{"gds", "cuFile", "fail", TR_EV_DIRECT_FAIL, 0, NULL,
	 {"cuFileBufRegister failed: 5030 (CU_FILE_INTERNAL_ERROR)",
	  "fastsafetensors: cuFileDriverOpen failed, falling back to compat mode", NULL}},
	{"gds", "cuFile", "error", TR_EV_DIRECT_FAIL, 0, NULL,
	 {"cuFileHandleRegister error: GPUDirect Storage not supported on current file", NULL, NULL}},
	{"gds", "GDS is not supported", NULL, TR_EV_DIRECT_FAIL, 0, NULL,
	 {"GDS is not supported in this platform, falling back to POSIX I/O", NULL, NULL}},
	{"any", "read error:", NULL, TR_EV_READ_ERROR, 0, NULL, {"read error: Invalid argument", NULL, NULL}},
	{"any", "using direct I/O", NULL, TR_EV_DIRECT_ON, 0, NULL,
	 {"model loader: using direct I/O (O_DIRECT) for 4 files", NULL, NULL}},
	{"llama.cpp", "direct_io = true", NULL, TR_EV_DIRECT_ON, 0, NULL,
	 {"load_tensors: direct_io = true", NULL, NULL}},

	/* ---- ollama's structured lines ---- */
	{"ollama", "starting llama server", NULL, TR_EV_BEGIN, 0, NULL,
	 {"time=2025-03-02T10:11:02.123Z level=INFO source=server.go:405 msg=\"starting llama server\" "
	  "cmd=\"/usr/local/bin/ollama runner --model /root/.ollama/models/blobs/sha256-6a0746\"",
	  NULL, NULL}},
	{"ollama", "llama runner started in", NULL, TR_EV_READY, TR_FLD_DUR, "started in",
	 {"time=2025-03-02T10:11:09.001Z level=INFO source=server.go:619 msg=\"llama runner started in 6.78 "
	  "seconds\"",
	  NULL, NULL}},
	{"ollama", "memory.required.full", NULL, TR_EV_MEM_ESTIMATE, 0, NULL,
	 {"time=2025-03-02T10:11:02.100Z level=INFO source=memory.go:326 msg=\"offload to cuda\" "
	  "layers.requested=-1 layers.model=81 layers.offload=20 memory.available=\"[23.2 GiB]\" "
	  "memory.required.full=\"44.0 GiB\" memory.required.partial=\"23.0 GiB\"",
	  NULL, NULL}},
	{"ollama", "model load progress", NULL, TR_EV_PROGRESS, 0, NULL,
	 {"time=2025-03-02T10:11:05.000Z level=DEBUG source=server.go:636 msg=\"model load progress 0.42\"", NULL,
	  NULL}},
	{"ollama", "waiting for llama runner to start responding", NULL, TR_EV_PROGRESS, 0, NULL,
	 {"time=2025-03-02T10:11:02.200Z level=INFO source=server.go:580 msg=\"waiting for llama runner to start "
	  "responding\"",
	  NULL, NULL}},

	/* ---- newer llama.cpp loader names: a paste that begins after the first loader line ---- */
	{"llama.cpp", "model buffer size", NULL, TR_EV_OPEN, TR_FLD_SIZE, "=",
	 {"load_tensors:    CUDA_Host model buffer size = 38912.00 MiB",
	  "load_tensors:   CPU_REPACK model buffer size = 12288.00 MiB", NULL}},
	{"llama.cpp", "load_tensors:", NULL, TR_EV_OPEN, 0, NULL,
	 {"load_tensors: offloading 32 repeating layers to GPU", NULL, NULL}},
	/* whisper.cpp's loader: its `model size` line is printed once the tensors are read */
	{"whisper.cpp", "whisper_model_load: model size", NULL, TR_EV_SUMMARY, 0, NULL,
	 {"whisper_model_load: model size    =  147.37 MB", NULL, NULL}},
	{"whisper.cpp", "whisper_model_load:", NULL, TR_EV_OPEN, 0, NULL,
	 {"whisper_model_load: n_langs       = 99", NULL, NULL}},
	/* its verbose loader, one line per tensor read (`-v`, or an embedding app's debug log) */
	{"llama.cpp", "create_tensor: loading tensor", NULL, TR_EV_OPEN, 0, NULL,
	 {"create_tensor: loading tensor blk.15.attn_norm.weight", NULL, NULL}},
	{"llama.cpp", "print_info:", NULL, TR_EV_OPEN, 0, NULL, {"print_info: file type   = Q4_K - Medium", NULL, NULL}},
	{"llama.cpp", "llama_model_load:", NULL, TR_EV_OPEN, 0, NULL,
	 {"llama_model_load: vocab only - skipping tensors", NULL, NULL}},
	{"llama.cpp", "llama_context:", NULL, TR_EV_OPEN, 0, NULL,
	 {"llama_context: n_ctx_per_seq = 4096", NULL, NULL}},
	/* the context's names between llama_new_context_with_model and llama_context (early 2025) */
	{"llama.cpp", "llama_init_from_model:", NULL, TR_EV_OPEN, 0, NULL,
	 {"0.00.319.935 I llama_init_from_model: n_seq_max     = 1", NULL, NULL}},
	{"llama.cpp", "llama_kv_cache_init:", NULL, TR_EV_OPEN, 0, NULL,
	 {"llama_kv_cache_init:      CUDA0 KV buffer size =    72.00 MiB", NULL, NULL}},

	/* ---- vLLM and sglang progress and weight lines ---- */
	{"vllm", "Loading safetensors checkpoint shards:", NULL, TR_EV_SHARDS, 0, NULL,
	 {"Loading safetensors checkpoint shards:  45% Completed | 9/20 [00:37<00:49,  9.75s/it]", NULL, NULL}},
	{"vllm", "Filesystem type for checkpoints", NULL, TR_EV_WEIGHTS_FS, 0, NULL,
	 {"INFO 10-16 15:39:01 [weight_utils.py:80] Filesystem type for checkpoints: NFS. Checkpoint size: 140.00 "
	  "GiB. Available RAM: 100.00 GiB.",
	  NULL, NULL}},
	{"vllm", "prefetch", "checkpoint", TR_EV_PROGRESS, 0, NULL,
	 {"INFO 10-16 15:39:01 [weight_utils.py:95] Auto-prefetch is disabled because the filesystem (EXT4) is not "
	  "a recognized network FS (NFS/Lustre); checkpoint prefetch skipped",
	  NULL, NULL}},
	{"sglang", "Load weight end", NULL, TR_EV_SUMMARY, 0, NULL,
	 {"[2025-03-02 10:11:12 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=60.12 "
	  "GB, mem usage=14.99 GB.",
	  NULL, NULL}},
	{"sglang", "load weight end", NULL, TR_EV_SUMMARY, 0, NULL, {"Rank 0: load weight end.", NULL, NULL}},
	{"vllm", "Starting vLLM API server on", NULL, TR_EV_READY, 0, NULL,
	 {"INFO 06-02 11:03:56 [api_server.py:1336] Starting vLLM API server on http://0.0.0.0:8000", NULL, NULL}},
	{"llama.cpp", "all slots are idle", NULL, TR_EV_READY, 0, NULL,
	 {"INFO [              slots_idle] all slots are idle | tid=\"123553311559680\" timestamp=1786632156", NULL,
	  NULL}},
	{"sglang", "fired up and ready to roll", NULL, TR_EV_READY, 0, NULL,
	 {"[2025-03-02 10:11:40] The server is fired up and ready to roll!", NULL, NULL}},
};
const size_t tr_nshapes = sizeof(tr_shapes) / sizeof(tr_shapes[0]);

static int exact(const char *s, size_t n, const char *key)
{
	size_t k = strlen(key);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	return n == k && !memcmp(s, key, k);
}

/* Does @s, which holds row @h's keyword, match the row? */
static int row_matches(const struct tr_shape *h, const char *s, size_t n)
{
	if (h->fields & TR_FLD_EXACT)
		return exact(s, n, h->key);
	return !h->also || tr_memmem_ci(s, n, h->also);
}

int tr_shape_match_from(const char *s, size_t n, uint64_t kw, size_t from)
{
	if (!((kw >> TR_G_SHAPE_SHIFT) & ((1ull << TR_G_SHAPE_BUCKETS) - 1))) /* no shape's keyword: the common case */
		return -1;
	for (size_t i = from; i < tr_nshapes; i++) {
		const struct tr_shape *h = &tr_shapes[i];
		if ((kw & tr_shape_group(i)) && tr_memmem(s, n, h->key) && row_matches(h, s, n))
			return (int)i;
	}
	return -1;
}

int tr_shape_match_line(const struct tr_line *l, size_t from)
{
	/* the rows whose keyword the line holds, in table order */
	for (size_t w = from / 64; w < 2; w++) {
		uint64_t bits = l->shapes[w];
		if (w == from / 64)
			bits &= ~0ull << (from % 64);
		for (; bits; bits &= bits - 1) {
			size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
			if (i < tr_nshapes && row_matches(&tr_shapes[i], l->s, l->len))
				return (int)i;
		}
	}
	return -1;
}

int tr_shape_match(const char *s, size_t n, uint64_t kw)
{
	return tr_shape_match_from(s, n, kw, 0);
}

/* ---- the cause of an engine error, from its words --------------------------------- */

/* Any of @w in @low (already lower case), ignoring case: one pass of memmem
 * per word over a lowered copy, not a case-folding compare at every byte
 * (the rules classify every error line, and pastes are long). */
static int any_of_low(const char *low, size_t n, const char *const *w)
{
	/* strstr (vectorised) where @low is a C string of @n bytes, as a
	 * lowered copy of a quoted line is */
	int cstr = !low[n] && strlen(low) == n;
	for (; *w; w++) {
		char nl[48];
		size_t k = strlen(*w);
		if (k >= sizeof(nl))
			continue;
		for (size_t i = 0; i < k; i++)
			nl[i] = (char)tr_lower((unsigned char)(*w)[i]);
		nl[k] = 0;
		if (cstr ? strstr(low, nl) != NULL : memmem(low, n, nl, k) != NULL)
			return 1;
	}
	return 0;
}

static int any_of(const char *s, size_t n, const char *const *w)
{
	char low[TR_EVTEXT * 2 + 1];
	/* a line longer than the copy (runs of spaces, glued lines): every
	 * byte of it, not only the copy's */
	if (n >= sizeof(low)) {
		for (; *w; w++)
			if (tr_memmem_ci(s, n, *w))
				return 1;
		return 0;
	}
	size_t m = n;
	for (size_t i = 0; i < m; i++)
		low[i] = (char)tr_lower((unsigned char)s[i]);
	low[m] = 0;
	return any_of_low(low, m, w);
}

static const char *const pinned[] = {"pinned", "CUDA_Host", "MallocHost", "HostAlloc", "host_malloc",
				     "HostRegister", "page-locked", "HostMalloc", NULL};

static const char *const killed[] = {"killed", "SIGKILL", "status=9", "signal 9", "exitcode: -9",
				     "exit code -9", "exitcode -9", NULL};

int tr_pinned_words(const char *s, size_t n)
{
	return any_of(s, n, pinned);
}

int tr_killed_words(const char *s, size_t n)
{
	return any_of(s, n, killed);
}

enum tr_cause tr_cause_of(const char *s, size_t n)
{
	static const char *const timeout[] = {"timed out", "timeout", "ETIMEDOUT", "for too long", "took too long",
					      NULL};
	static const char *const driver[] = {"driver version is insufficient", "CUDA driver version",
					     "version mismatch", "InsufficientDriver", "no kernel image",
					     "unsupported PTX", "driver/library", "driver combination",
					     "unsupported display driver", NULL};
	static const char *const nodev[] = {"no CUDA-capable device", "NoDevice", "no device", "ENODEV",
					    "No such device", "no GPU", NULL};
	static const char *const oom[] = {"out of memory", "OutOfMemory", "ENOMEM", "Cannot allocate memory",
					  "MemoryAllocation", "unable to allocate", "failed to allocate",
					  "insufficient memory", "not enough memory", NULL};
	static const char *const device[] = {"CUDA out of memory", "cudaMalloc", "hipMalloc", "CUDA0", "CUDA1",
					     "ROCm0", "GPU", "device", "VRAM", "Vulkan0", "Metal", NULL};
	static const char *const host[] = {"CPU", "host", "RAM", NULL};
	static const char *const inval[] = {"Invalid argument", "EINVAL", NULL};
	static const char *const huge[] = {"hugetlb", "HUGETLB", "hugepages", NULL};
	static const char *const notsup[] = {"not supported", "EOPNOTSUPP", "ENOTSUP", NULL};
	static const char *const rd[] = {"read error", "EIO", "Input/output error", "short read", "failed to read",
					 NULL};
	static const char *const noent[] = {"ENOENT", "No such file", NULL};
	static const char *const perm[] = {"EPERM", "EACCES", "Permission denied", "not permitted", NULL};
	char low[TR_EVTEXT * 2 + 1];
	size_t m = n < sizeof(low) - 1 ? n : sizeof(low) - 1;
	for (size_t i = 0; i < m; i++)
		low[i] = (char)tr_lower((unsigned char)s[i]);
	low[m] = 0;
	if (any_of_low(low, m, timeout))
		return TR_C_TIMEOUT;
	if (any_of_low(low, m, killed))
		return TR_C_KILLED;
	if (any_of_low(low, m, driver))
		return TR_C_DRIVER;
	if (any_of_low(low, m, nodev))
		return TR_C_NODEV;
	if (any_of_low(low, m, huge))
		return TR_C_HUGETLB;
	if (any_of_low(low, m, oom))
		return any_of_low(low, m, pinned)	? TR_C_OOM_PINNED
		       : any_of_low(low, m, device) ? TR_C_OOM_DEVICE
		       : any_of_low(low, m, host)   ? TR_C_OOM_HOST
					      : TR_C_OOM;
	if (any_of_low(low, m, inval))
		return TR_C_INVAL;
	if (any_of_low(low, m, notsup))
		return TR_C_NOTSUP;
	if (any_of_low(low, m, rd))
		return TR_C_READ;
	if (any_of_low(low, m, noent))
		return TR_C_NOENT;
	if (any_of_low(low, m, perm))
		return TR_C_PERM;
	return TR_C_UNKNOWN;
}

const char *tr_cause_name(enum tr_cause c)
{
	static const char *const n[TR_C_N] = {
		"unclassified",
		"out of host memory",
		"out of memory in a pinned (page-locked) host allocation",
		"out of device memory",
		"out of memory in an allocation",
		"invalid argument",
		"operation not supported",
		"driver and runtime mismatch",
		"no device",
		"read error",
		"timed out waiting",
		"killed",
		"file not found",
		"permission denied",
		"a pinned (page-locked) host allocation refused",
		"hugetlb pool too small",
		"GPUDirect Storage (cuFile) refused",
	};
	return (unsigned)c < TR_C_N ? n[c] : n[0];
}
