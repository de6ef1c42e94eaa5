/*
 * The cheap pass every line gets before any recogniser: one scan over the
 * line that finds which of a few dozen fixed keywords it contains, through a
 * table indexed by each keyword's first two bytes. Most lines of a real log
 * contain none and go no further; a line that does is handed only to the
 * recognisers whose keyword group it has. This is what keeps the triage at
 * memory speed on gigabyte logs (the recognisers' own memmem calls, one per
 * shape, cost ten times more when run on every line).
 *
 * The declared engine shapes (shapes.c) add their keywords here, each with
 * its own group bit (tr_shape_group), so recognise_shapes.c tries only the
 * rows whose keyword a line holds.
 *
 * The scan hashes the three bytes at every second position and tests one
 * bit in an 8 KiB table: a loop of a few instructions per two bytes and a
 * branch that is almost never taken, since the table holds only each
 * keyword's two three-byte windows in its rarest-looking four bytes (not
 * its first bytes: "of pinned memory" or "read error:" would stop the scan
 * at every "of" and "re" of a log; "_b" or "r:" almost never do). One of
 * the two windows of any occurrence begins at an even offset. Only where
 * the bit is set are keywords compared: those with a window of that hash,
 * each at the start its window gives.
 *
 * A three-byte keyword ("RSS") has one window; where it begins at an odd
 * offset, the even position before it holds some byte and its first two,
 * so the table holds all 256 of those windows too.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const struct {
	const char *s;
	uint64_t g;
} kw[] = {
	{"[loadscope/", TR_G_LSC}, {"\"loadscope\"", TR_G_LSC},
	{"arena", TR_G_ARENA},
	{"complement", TR_G_COMPLEMENT},
	{"loaded ", TR_G_LOADED}, {"Loaded ", TR_G_LOADED}, {"loaded.", TR_G_LOADED}, {"loaded,", TR_G_LOADED},
	{"s loaded", TR_G_LOADED}, {"loaded:", TR_G_LOADED}, {"oads OK", TR_G_LOADED}, {"oad OK", TR_G_LOADED}, {"oad succeeded", TR_G_LOADED},
	{"oaded successfully", TR_G_LOADED}, {"oaded OK", TR_G_LOADED}, {"_loader ", TR_G_LOADED},
	{"still starting", TR_G_STILL}, {"still loading", TR_G_STILL}, {"Still starting", TR_G_STILL},
	{"Still loading", TR_G_STILL},
	{"verif", TR_G_VERIFY}, {"Verif", TR_G_VERIFY}, {"VERIF", TR_G_VERIFY},
	{"compute capability", TR_G_GPU},
	{"read through the file cache", TR_G_READTHRU},
	{"AMDKFD_IOC_ALLOC_MEMORY_OF_GPU", TR_G_STRACE}, {"_IOC(", TR_G_STRACE}, {"ioctl resumed", TR_G_STRACE},
	{"madvise(0x", TR_G_STRACE},
	{"compact_", TR_G_VMSTAT}, {"thp_fault", TR_G_VMSTAT}, {"pswp", TR_G_VMSTAT}, {"allocstall", TR_G_VMSTAT},
	{"pgmajfault", TR_G_VMSTAT}, {"pgfault", TR_G_VMSTAT},
	{"defrag", TR_G_THPSET}, {"transparent_hugepage/enabled", TR_G_THPSET}, {"PR_SET_THP_DISABLE", TR_G_THPSET},
	{"THP_enabled:", TR_G_THPSET},
	{"RSS", TR_G_RATES}, {"faults/s", TR_G_RATES},
	{"loading model tensors", TR_G_LLAMA}, {"llama_model_loader: loaded meta", TR_G_LLAMA},
	{"load time", TR_G_LLAMA}, {"mlock", TR_G_LLAMA}, {"RLIMIT_MEMLOCK", TR_G_LLAMA},
	{"max locked memory", TR_G_LLAMA},
	{"llocating", TR_G_IK}, {"llocated ", TR_G_IK}, {"eserved ", TR_G_IK}, {"eserving ", TR_G_IK},
	{"vLLM API server version", TR_G_VLLM}, {"Initializing a", TR_G_VLLM},
	{"Loading weights took", TR_G_VLLM}, {"Model loading took", TR_G_VLLM},
	{"time to stream", TR_G_RUNAI},
	{"io_uring", TR_G_IO}, {"io-uring", TR_G_IO}, {"iouring", TR_G_IO}, {"O_DIRECT", TR_G_IO},
	{"direct I/O", TR_G_IO}, {"Direct I/O", TR_G_IO}, {"DIRECT I/O", TR_G_IO}, {"direct io", TR_G_IO},
	{"direct IO", TR_G_IO}, {"Direct IO", TR_G_IO}, {"Direct io", TR_G_IO},
	{"Application startup complete", TR_G_READY},
	{"model loaded", TR_G_READY}, {"ready after", TR_G_READY}, {"server ready", TR_G_READY}, {"Server ready", TR_G_READY},
	{"is ready", TR_G_READY}, {"ready in", TR_G_READY}, {"ready after", TR_G_READY}, {"Ready in", TR_G_READY},
	{"] ready", TR_G_READY}, {"startup took", TR_G_READY},
	{"ROCm", TR_G_HIP}, {"hipHost", TR_G_HIP}, {"HIP ", TR_G_HIP},
	{"starting engine", TR_G_BEGIN}, {"Starting engine", TR_G_BEGIN},
	{"exited with status", TR_G_EXIT}, {"exit status", TR_G_EXIT}, {"; exiting", TR_G_EXIT},
	{"timestamp=", TR_G_EPOCH}, {"time=", TR_G_EPOCH},
	/* the shared vocabulary (recognise_generic.c): failure words, ready words, load figures */
	{"rror", TR_G_GENERIC}, {"RROR", TR_G_GENERIC}, {"atal", TR_G_GENERIC}, {"ATAL", TR_G_GENERIC},
	{"CRITICAL", TR_G_GENERIC}, {"xception", TR_G_GENERIC}, {"ailed", TR_G_GENERIC}, {"level=", TR_G_GENERIC},
	{"\"level\"", TR_G_GENERIC}, {"equest: ", TR_G_GENERIC}, {"esponse: ", TR_G_GENERIC},
	{"ssistant:", TR_G_GENERIC}, {"tokens per second", TR_G_GENERIC}, {"tokens/s", TR_G_GENERIC}, {"token/s", TR_G_GENERIC}, {"tok/s", TR_G_GENERIC}, {"Generating ", TR_G_GENERIC}, {"Transcribing", TR_G_GENERIC}, {" prompt token", TR_G_GENERIC}, {"/exit ", TR_G_GENERIC}, {"/quit ", TR_G_GENERIC}, {"/bye ", TR_G_GENERIC}, {"SSISTANT:", TR_G_GENERIC}, {"ESPONSE: ", TR_G_GENERIC},
	{"inned memory", TR_G_GPIN}, {"inned host memory", TR_G_GPIN},
	{"age-locked", TR_G_GPIN}, {"GPU[", TR_G_GENERIC}, {"GPU  ", TR_G_GENERIC}, {"PyTorch version: ", TR_G_GENERIC}, {"Is debug build: ", TR_G_GENERIC},
	{"d to build PyTorch: ", TR_G_GENERIC}, {"Is CUDA available: ", TR_G_GENERIC}, {"modules\"", TR_G_GFIG}, {"layers\"", TR_G_GFIG}, {"shards\"", TR_G_GFIG},
	{"tensors\"", TR_G_GFIG}, {"gguf: ", TR_G_GFIG}, {"safetensors: ", TR_G_GFIG}, {"onnx: ", TR_G_GFIG}, {"NAME  ", TR_G_GENERIC}, {"Filesystem ", TR_G_GENERIC}, {"Device  ", TR_G_GENERIC}, {"a while", TR_G_GSTEP}, {"lease wait", TR_G_GSTEP},
	{"few minutes", TR_G_GSTEP}, {"several minutes", TR_G_GSTEP}, {"some time", TR_G_GSTEP},
	/* the start said to be stuck (triage.c's stuck_said) */
	{"stuck", TR_G_GSTEP}, {"hangs", TR_G_GSTEP}, {"hanging", TR_G_GSTEP}, {"hung", TR_G_GSTEP},
	{"freezes", TR_G_GSTEP}, {"frozen", TR_G_GSTEP},
	{"Traceback (most", TR_G_GFATAL}, {"[Errno ", TR_G_GFATAL}, {"xited with error", TR_G_GFATAL}, {"xited with an error", TR_G_GFATAL}, {"aunch unsuccessful", TR_G_GFATAL}, {"aunch failed", TR_G_GFATAL}, {"ailed to launch", TR_G_GFATAL}, {"tartup failed", TR_G_GFATAL}, {"tartup unsuccessful", TR_G_GFATAL}, {"panic:", TR_G_GFATAL}, {"xit code", TR_G_GFATAL},
	{"xit status", TR_G_GFATAL}, {"xitcode", TR_G_GFATAL}, {"xited with", TR_G_GFATAL}, {"code=exited", TR_G_GFATAL}, {"eturn code", TR_G_GFATAL},
	{"eturncode", TR_G_GFATAL}, {"SIGKILL", TR_G_GFATAL}, {"SIGSEGV", TR_G_GFATAL}, {"SIGABRT", TR_G_GFATAL},
	{"egmentation fault", TR_G_GFATAL}, {"core dumped", TR_G_GFATAL}, {"imed out", TR_G_GFATAL},
	{"too long", TR_G_GFATAL},
	{"ailed to load", TR_G_GFATAL}, {"rror loading", TR_G_GFATAL}, {"nable to load", TR_G_GFATAL},
	{"ould not load", TR_G_GFATAL}, {"annot load", TR_G_GFATAL}, {"ouldn't load", TR_G_GFATAL}, {"aild to load", TR_G_GFATAL},
	{"ailed loading", TR_G_GFATAL},
	/* its file not even opened ("Failed to open model file", "failed to open GGUF file") */
	{"o open model", TR_G_GFATAL}, {"o open GGUF", TR_G_GFATAL}, {"o open gguf", TR_G_GFATAL},
	{"an't load", TR_G_GFATAL}, {"oad model error", TR_G_GFATAL}, {"odel load error", TR_G_GFATAL},
	{"oad model failed", TR_G_GFATAL}, {"odel load failed", TR_G_GFATAL}, {"ot ready after", TR_G_GFATAL},
	{"ailed to create", TR_G_GFATAL}, {"ailed to initiali", TR_G_GFATAL}, {"ack-off restarting", TR_G_GFATAL},
	{"OCI runtime", TR_G_GFATAL},
	/* a server's setting that it starts with no model (no_model_setting) */
	{"odels: N/A", TR_G_GENERIC}, {"odel config: N/A", TR_G_GENERIC}, {"odels: none", TR_G_GENERIC},
	{"odels: None", TR_G_GENERIC}, {"odels: null", TR_G_GENERIC}, {"odels: []", TR_G_GENERIC},
	{"ever became ready", TR_G_GFATAL}, {"ever ready", TR_G_GFATAL}, {"ailed to start", TR_G_GFATAL},
	{"id not start", TR_G_GFATAL}, {"idn't start", TR_G_GFATAL}, {"ot become ready", TR_G_GFATAL},
	/* the dynamic loader's refusal, MPI's abort, an error during the load ("Error when loading model:") */
	{"hared librar", TR_G_GFATAL}, {"MPI_ABORT", TR_G_GFATAL}, {"MPI_Abort", TR_G_GFATAL},
	{"hen loading", TR_G_GFATAL}, {"hile loading", TR_G_GFATAL}, {"uring loading", TR_G_GFATAL},
	/* a launcher that gave up on its server ("failed to come online"), a wait until it loads */
	{"ome online", TR_G_GREADY | TR_G_GFATAL}, {"ame online", TR_G_GREADY | TR_G_GFATAL},
	{"ome up", TR_G_GREADY | TR_G_GFATAL}, {"ame up", TR_G_GREADY | TR_G_GFATAL},
	{"ait until", TR_G_GREADY},
	/* an exception nobody caught, in a managed runtime's words (managed_trace.c) */
	{"xception in thread", TR_G_GFATAL}, {"nhandled exception", TR_G_GFATAL}, {"nhandled Exception", TR_G_GFATAL},
	/* a runtime's report of its process dying of a fault (shell_signal.c's tr_fault_report) */
	{"atal signal ", TR_G_GFATAL}, {"atal Python error", TR_G_GFATAL}, {" received at time=", TR_G_GFATAL},
	{"KeyboardInterrupt", TR_G_GFATAL}, {"Killed", TR_G_GFATAL}, {"ignal: killed", TR_G_GFATAL},
	{"nit failed", TR_G_GFATAL}, {"nitialization failed", TR_G_GFATAL}, {"nitialisation failed", TR_G_GFATAL},
	{"oading failed", TR_G_GFATAL}, {"oad failed", TR_G_GFATAL}, {"llegal instruction", TR_G_GFATAL},
	{"ut of memory", TR_G_GFATAL}, {"erminate called", TR_G_GFATAL}, {"erminated unexpectedly", TR_G_GFATAL}, {"File \"", TR_G_GFATAL},
	{"BPT trap", TR_G_GFATAL}, {"race trap", TR_G_GFATAL}, {"bort trap", TR_G_GFATAL}, {"borted", TR_G_GFATAL},
	{"us error", TR_G_GFATAL}, {"loating point exception", TR_G_GFATAL}, {"llegal hardware", TR_G_GFATAL},
	{"_ASSERT(", TR_G_GFATAL}, {"Assertion ", TR_G_GFATAL}, {"Check failed: ", TR_G_GFATAL},
	{"sh: killed", TR_G_GFATAL}, {"killed  ", TR_G_GFATAL}, {"what():", TR_G_GFATAL}, {"panicked at", TR_G_GFATAL}, {"ny key to continue", TR_G_GFATAL}, {"\xe4\xbb\xbb\xe6\x84\x8f\xe9\x94\xae", TR_G_GFATAL},
	{"hutting down", TR_G_GFATAL}, {"hutdown", TR_G_GFATAL}, {"hut down", TR_G_GFATAL}, {"eliebige Taste", TR_G_GFATAL}, {"ne touche pour continuer", TR_G_GFATAL}, {"ualquier tecla", TR_G_GFATAL},
	{"\xe3\x82\xad\xe3\x83\xbc\xe3\x82\x92\xe6\x8a\xbc", TR_G_GFATAL},
	{"aiting for", TR_G_GREADY}, {" for load", TR_G_GREADY}, {"ime to load", TR_G_GFIG}, {"as taken", TR_G_GFIG}, {"taking ", TR_G_GFIG}, {"takes ", TR_G_GFIG}, {"borting", TR_G_GFATAL}, {"he model in ", TR_G_GFIG}, {"xitCode", TR_G_GFATAL},
	{"eady", TR_G_GREADY}, {"EADY", TR_G_GREADY}, {"tarted", TR_G_GREADY}, {"istening on", TR_G_GREADY},
	{"tartup complete", TR_G_GREADY}, {"tartup time", TR_G_GREADY}, {"TARTUP TIME", TR_G_GREADY}, {"unning on http", TR_G_GREADY}, {"oaded model ", TR_G_GREADY},
	{"nitialized successfully", TR_G_GREADY}, {"nitialised successfully", TR_G_GREADY},
	/* "Initialize ASR server engine successfully": the init's verb, its object between */
	{"successfully", TR_G_GREADY},
	{"ow handle requests", TR_G_GREADY}, {"ow accept requests", TR_G_GREADY}, {"ow accepting requests", TR_G_GREADY},
	{"ccepting connections", TR_G_GREADY}, {"p and running", TR_G_GREADY},
	/* gradio names the address first: "Running on local URL:  http://..." */
	{"unning on local URL", TR_G_GREADY}, {"unning on public URL", TR_G_GREADY},
	{"erving on ", TR_G_GREADY}, {"erving at ", TR_G_GREADY}, {"vailable at ", TR_G_GREADY}, {"unning at ", TR_G_GREADY},
	{"istening at", TR_G_GREADY},
	/* a server's invitation to its address (ready_address.c) */
	{"lease connect", TR_G_GREADY}, {"lease open", TR_G_GREADY}, {"lease visit", TR_G_GREADY},
	{"lease go to", TR_G_GREADY}, {"lease navigate", TR_G_GREADY}, {"ou can connect", TR_G_GREADY},
	{"ou can now", TR_G_GREADY}, {"ou can access", TR_G_GREADY}, {"ou can open", TR_G_GREADY},
	{"took", TR_G_GFIG}, {"Took", TR_G_GFIG}, {"oad time", TR_G_GFIG}, {"oad Time", TR_G_GFIG}, {"OAD TIME", TR_G_GFIG},
	{"oaded time", TR_G_GFIG}, {"oaded Time", TR_G_GFIG}, {"oaded in", TR_G_GFIG},
	{"inished in", TR_G_GFIG}, {"xecuted in", TR_G_GFIG}, {" cost", TR_G_GFIG},
	{"ile size", TR_G_GSIZE}, {"(total ", TR_G_GSIZE}, {"odel size", TR_G_GSIZE}, {"heckpoint size", TR_G_GSIZE},
	{"eights.total", TR_G_GSIZE}, {"eights_total", TR_G_GSIZE}, {"eights.size", TR_G_GSIZE},
	{"eights_size", TR_G_GSIZE}, {"eights_bytes", TR_G_GSIZE}, {"odel_size", TR_G_GSIZE}, {"odel.size", TR_G_GSIZE},
	{"it/s]", TR_G_GBAR}, {"s/it]", TR_G_GBAR}, {"%|\xe2", TR_G_GBAR}, {"%|#", TR_G_GBAR}, {"%| ", TR_G_GBAR},
	/* the loaders' bar that a page stripped of its glyphs, pipes and rate ("62% Completed 61/99 [02:37<01:36]") */
	{"% Completed", TR_G_GBAR},
	/* a fetch's bar that lost its glyphs and pipes, its rate in bytes kept ("100% 251/251 [00:00<00:00, 3.97MB/s]") */
	{"B/s]", TR_G_GBAR},
	{"till loading", TR_G_GEND}, {"weight end", TR_G_GEND}, {"eights loaded", TR_G_GEND},
	{"oading complete", TR_G_GEND}, {"oad complete", TR_G_GEND}, {"inished loading", TR_G_GEND},
	{"inish loading", TR_G_GEND}, {"armup complete", TR_G_GEND}, {"arm-up complete", TR_G_GEND},
	{"armup finished", TR_G_GEND}, {"arm-up finished", TR_G_GEND}, {"armup done", TR_G_GEND},
	{"arm-up done", TR_G_GEND}, {"ompleted warmup", TR_G_GEND}, {"inished warmup", TR_G_GEND},
	{"one loading", TR_G_GEND}, {"oaded the model", TR_G_GEND}, {"oad progress", TR_G_GEND},
	{"etected language:", TR_G_GEND},
	{".weight", TR_G_GFIG}, {".bias", TR_G_GFIG}, {"% model", TR_G_GFIG}, {"% of ", TR_G_GFIG},
	{"rogress: ", TR_G_GFIG},
	{"oading model", TR_G_GBEGIN}, {"oading weights", TR_G_GBEGIN}, {"oading checkpoint", TR_G_GBEGIN},
	{"oading the model", TR_G_GBEGIN}, {"tarting to load", TR_G_GBEGIN}, {"oading safetensors", TR_G_GBEGIN},
	{"ttempting to load", TR_G_GBEGIN}, {"rying to load", TR_G_GBEGIN},
	/* the model's init under way, the load in other words ("model initialising, waiting for 2 minutes") */
	{"odel initialising", TR_G_GBEGIN}, {"odel initializing", TR_G_GBEGIN},
	{"nitialising model", TR_G_GBEGIN}, {"nitializing model", TR_G_GBEGIN},
	{"eight begin", TR_G_GBEGIN}, {"egin loading", TR_G_GBEGIN}, {"tart loading", TR_G_GBEGIN},
	{"load_us", TR_G_GFIG}, {"load_ms", TR_G_GFIG}, {"load_s", TR_G_GFIG}, {"load_time_", TR_G_GFIG},
	{"load_duration_", TR_G_GFIG}, {"oad duration", TR_G_GFIG}, {"oading duration", TR_G_GFIG}, {"oad_duration", TR_G_GFIG}, {"oading time", TR_G_GFIG}, {"iB in ", TR_G_GFIG}, {"GB in ", TR_G_GFIG},
	{"MB in ", TR_G_GFIG}, {"bytes in ", TR_G_GFIG}, {"eights in ", TR_G_GFIG}, {"retrained time", TR_G_GFIG},
	{"iB at ", TR_G_GFIG}, {" elapsed]", TR_G_GFIG}, {"GB at ", TR_G_GFIG}, {"MB at ", TR_G_GFIG},
	{"rong s", TR_G_GFATAL}, {" mismatch", TR_G_GFATAL}, {" magic", TR_G_GFATAL}, {"ails:", TR_G_GFATAL},
	{" --model", TR_G_GWAY}, {"-serve ", TR_G_GWAY}, {"-server ", TR_G_GWAY}, {"_server ", TR_G_GWAY}, {" serve ", TR_G_GWAY}, {"ownload", TR_G_GWAY}, {"etching ", TR_G_GWAY}, {"aken more than", TR_G_GWAY}, {"ot ready after", TR_G_GWAY},
	/* "Loading Model: NAME", "Loading ONNX model from ...": the verb with its object named after it
	 * (tr_loading_model_named) */
	{"oading ", TR_G_GLOADW}, {"oading: ", TR_G_GLOADW},
	/* "New LLM model initialized": the model's init ended (model_loaded.c) */
	{"odel initiali", TR_G_LOADED}, {"ODEL INITIALI", TR_G_LOADED},
	/* "Initializing a text summarization model...": its init begun (model_init_begun) */
	{"nitializing ", TR_G_GLOADW}, {"nitialising ", TR_G_GLOADW},
	/* a section's banner for the load ("==========LoadModel==========": tr_load_banner) */
	{"LoadModel", TR_G_GLOADW}, {"oad Model", TR_G_GLOADW}, {"OAD MODEL", TR_G_GLOADW},
	/* the load, then the word that it ended ("Load over": load_then_over) */
	{"oad over", TR_G_GEND}, {"oading over", TR_G_GEND}, {"oad done", TR_G_GEND}, {"oading done", TR_G_GEND},
	{"oad finished", TR_G_GEND}, {"oading finished", TR_G_GEND}, {"oad ended", TR_G_GEND},
	/* the same end words before the load's time ("Finished loading model in 12.3 s", "load complete (12 s)") */
	{"inished load", TR_G_GFIG}, {"oad complete", TR_G_GFIG}, {"oading complete", TR_G_GFIG},
	/* a program's parsed arguments printed whole (args_dump.c) */
	{"oading...", TR_G_GLOADW}, {"Args {", TR_G_GWAY}, {"Args(", TR_G_GWAY}, {"Namespace(", TR_G_GWAY}, {"'--model", TR_G_GWAY}, {"\"--model", TR_G_GWAY},
	{" params", TR_G_GWAY}, {"arameters", TR_G_GWAY}, {"aking longer than", TR_G_GWAY},
	{"swapping", TR_G_SWAP}, {"Swapping", TR_G_SWAP}, {"SWAPPING", TR_G_SWAP}, {"kswapd", TR_G_SWAP},
};
#define NKW (sizeof(kw) / sizeof(kw[0]))
#define NALL 512 /* the fixed keywords and the shapes' (an index fits kwi's 16 bits) */
#define NENT (2 * NALL + 4 * 256) /* two windows per keyword, 256 per three-byte one (four of them at most) */

struct tr_prefilter {
	const char *s[NALL];
	uint64_t g[NALL];
	uint8_t len[NALL];
	uint32_t pre[NALL];       /* the keyword's first four bytes (fewer: masked) */
	uint32_t mask[NALL];
	uint64_t tri[65536 / 64]; /* one bit per (hashed) window in use: 8 KiB, stays in L1 */
	uint16_t head[65536];     /* 1 + index of the first entry of a window hash; 0 none */
	/* the entries: a keyword and where its window begins in it (-1: the
	 * byte before a three-byte keyword) */
	uint16_t next[NENT];      /* chain: 1 + index of the next one; 0 end */
	uint16_t kwi[NENT];
	int8_t off[NENT];
	size_t n, nent;
};

/* How common a byte is in log text: lower is rarer. */
static int common(unsigned char c)
{
	if (c == ' ')
		return 4;
	if (strchr("etaoinsrld", c))
		return 2;
	if (c >= 'a' && c <= 'z')
		return 1;
	return 0; /* upper case, digits, punctuation */
}

/* Three-byte runs of English and of these engines' words that a log is
 * full of ("loa" of every "load", "ing", "mod", "erv"): a window that is
 * one of them stops the scan at every such word. Picked from the commonest
 * runs of the corpus logs (tests/corpus/logs) that are words, not names. */
static const char common3[][4] = {
	"ing", "ion", "ent", "the", "and", "ter", "ers", "ate", "tio", "con", "com", "omp", "ple", "pro",
	"ver", "ser", "str", "tra", "rat", "sta", "tar", "art", "oad", "loa", "mod", "ode", "del", "lla",
	"ama", "erv", "rve", "ner", "ene", "gen", "era", "abl", "ble", "tin", "ail", "ile", "ted", "ed ",
	"er ", "ng ", "es ", "ce ", "te ", "ory", "emo", "mem", "all", "ize", "ead", "re ", "ati", "ass",
	"rea", "ach", "che", "ect",
};

static int is_common3(const char *w)
{
	/* byte by byte, not memcmp: the table's build asks this some 60,000
	 * times, and a call per run was most of a short log's triage */
	for (size_t i = 0; i < sizeof(common3) / sizeof(common3[0]); i++)
		if (w[0] == common3[i][0] && w[1] == common3[i][1] && w[2] == common3[i][2])
			return 1;
	return 0;
}

/* Where the keyword's rarest-looking four bytes begin (the two windows):
 * a common run costs most, and of the bytes the middle two are in both
 * windows and count twice. */
static size_t window(const char *k, size_t len)
{
	size_t best = 0;
	int bs = 1 << 30;
	for (size_t i = 0; i + 3 < len; i++) {
		int sc = 100 * (is_common3(k + i) + is_common3(k + i + 1)) + common((unsigned char)k[i]) +
			 2 * common((unsigned char)k[i + 1]) + 2 * common((unsigned char)k[i + 2]) +
			 common((unsigned char)k[i + 3]);
		if (sc < bs) {
			bs = sc;
			best = i;
		}
	}
	return best;
}

/* The three bytes at @s, hashed to 16 bits. */
static inline unsigned tri_hash(const unsigned char *s)
{
	uint32_t x = (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16;
	return (x * 0x9e3779b1u) >> 16;
}

/* Index the window @w, at @o in keyword @k. */
static int add_window(struct tr_prefilter *p, size_t k, const unsigned char *w, int o)
{
	if (p->nent == NENT)
		return -1;
	size_t e = p->nent++;
	unsigned h = tri_hash(w);
	p->tri[h >> 6] |= 1ull << (h & 63);
	p->kwi[e] = (uint16_t)k;
	p->off[e] = (int8_t)o;
	p->next[e] = p->head[h];
	p->head[h] = (uint16_t)(e + 1);
	return 0;
}

/* Fill the zeroed table @p: 0, or -1 when the keywords do not fit. */
static int build(struct tr_prefilter *p)
{
	_Static_assert(NALL < 65535, "keyword index fits kwi");
	_Static_assert(NKW <= NALL, "the fixed keywords fit the table (raise NALL)");
	for (size_t i = 0; i < NKW; i++) {
		p->s[p->n] = kw[i].s;
		p->g[p->n++] = kw[i].g;
	}
	for (size_t i = 0; i < tr_nshapes && p->n < NALL; i++) {
		p->s[p->n] = tr_shapes[i].key;
		p->g[p->n++] = tr_shape_group(i);
	}
	/* a table too large (or more shapes than tr_line.shapes has bits):
	 * fail loudly, not silently blind */
	if (p->n < NKW + tr_nshapes || tr_nshapes > 64 * sizeof(((struct tr_line *)0)->shapes) / sizeof(uint64_t))
		return -1;
	int bad = 0;
	for (size_t i = p->n; i-- > 0 && !bad;) {
		size_t len = strlen(p->s[i]);
		if (len < 3 || len > 127) { /* a window needs three bytes; off is an int8_t */
			bad = 1;
			break;
		}
		p->len[i] = (uint8_t)len;
		size_t m = len < 4 ? len : 4;
		p->pre[i] = p->mask[i] = 0;
		memcpy(&p->pre[i], p->s[i], m);
		memset(&p->mask[i], 0xff, m);
		const unsigned char *k = (const unsigned char *)p->s[i];
		if (len > 3) {
			size_t o = window(p->s[i], len);
			bad |= add_window(p, i, k + o, (int)o) | add_window(p, i, k + o + 1, (int)o + 1);
			continue;
		}
		bad |= add_window(p, i, k, 0);
		for (unsigned c = 0; c < 256; c++) {
			unsigned char w[3] = {(unsigned char)c, k[0], k[1]};
			bad |= add_window(p, i, w, -1);
		}
	}
	return bad ? -1 : 0;
}

struct tr_prefilter *tr_prefilter_new(void)
{
	struct tr_prefilter *p = calloc(1, sizeof(*p));
	if (p && build(p)) {
		free(p);
		return NULL;
	}
	return p;
}

/* The table is the same for every triage (the keywords are constants), and
 * building it costs about 2.5 M instructions, more than triaging a short
 * log: it is built once per process, on first use, and only read after. */
static struct tr_prefilter shared;
static int shared_bad;
static pthread_once_t shared_once = PTHREAD_ONCE_INIT;

static void build_shared(void)
{
	shared_bad = build(&shared);
}

const struct tr_prefilter *tr_prefilter_shared(void)
{
	if (pthread_once(&shared_once, build_shared))
		return NULL;
	return shared_bad ? NULL : &shared;
}

/* The keywords with a window of hash @h, each compared in full where its
 * window at @i says it begins. */
static uint64_t compare_at(const struct tr_prefilter *p, const char *s, size_t n, size_t i, unsigned h,
			   uint64_t *shapes)
{
	uint64_t m = 0;
	for (unsigned x = p->head[h]; x; x = p->next[x - 1]) {
		size_t e = x - 1, k = p->kwi[e];
		if ((ptrdiff_t)i < p->off[e])
			continue;
		size_t at = i - (size_t)(ptrdiff_t)p->off[e];
		if (at > n || n - at < p->len[k])
			continue;
		/* four bytes at once before the full compare: every keyword has
		 * three, so at + 3 <= n, and s[n] is the line's NUL */
		uint32_t four;
		memcpy(&four, s + at, 4);
		if ((four & p->mask[k]) == p->pre[k] && !memcmp(s + at, p->s[k], p->len[k])) {
			m |= p->g[k];
			if (k >= NKW && shapes)
				shapes[(k - NKW) >> 6] |= 1ull << ((k - NKW) & 63);
		}
	}
	return m;
}

/* The groups of @s[0..n), and into @shapes (when not NULL) its shapes. */
static uint64_t scan(const struct tr_prefilter *p, const char *s, size_t n, uint64_t *shapes)
{
	uint64_t m = 0;
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	/* three positions from one eight-byte load, one branch for the three */
	for (; i + 8 <= n; i += 6) {
		uint64_t w;
		memcpy(&w, u + i, 8);
		if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) /* the bytes in tri_hash's order */
			w = __builtin_bswap64(w);
		unsigned h0 = ((uint32_t)w & 0xffffffu) * 0x9e3779b1u >> 16;
		unsigned h1 = ((uint32_t)(w >> 16) & 0xffffffu) * 0x9e3779b1u >> 16;
		unsigned h2 = ((uint32_t)(w >> 32) & 0xffffffu) * 0x9e3779b1u >> 16;
		uint64_t b0 = p->tri[h0 >> 6] >> (h0 & 63) & 1, b1 = p->tri[h1 >> 6] >> (h1 & 63) & 1,
			 b2 = p->tri[h2 >> 6] >> (h2 & 63) & 1;
		if (!(b0 | b1 | b2))
			continue;
		if (b0)
			m |= compare_at(p, s, n, i, h0, shapes);
		if (b1)
			m |= compare_at(p, s, n, i + 2, h1, shapes);
		if (b2)
			m |= compare_at(p, s, n, i + 4, h2, shapes);
	}
	for (; i + 2 < n; i += 2) {
		unsigned h = tri_hash(u + i);
		if (p->tri[h >> 6] >> (h & 63) & 1)
			m |= compare_at(p, s, n, i, h, shapes);
	}
	return m;
}

uint64_t tr_prefilter(const struct tr_prefilter *p, const char *s, size_t n)
{
	return scan(p, s, n, NULL);
}

void tr_prefilter_line(const struct tr_prefilter *p, struct tr_line *l)
{
	l->shapes[0] = l->shapes[1] = 0;
	l->kw = scan(p, l->s, l->len, l->shapes);
}
