/*
 * An example engine in C++, written against the installed package as an
 * engine developer would, for what issue 11 found engines need:
 *
 * - the weights go into the engine's own buffer (lsc_load_into), pinned the
 *   engine's way: cudaHostAlloc where the CUDA runtime finds a GPU (looked
 *   up with dlopen, so the example needs no CUDA headers), else plain
 *   page-locked memory (mmap + mlock), else pageable memory with a warning;
 * - every loadscope line goes through the engine's logger, with its prefix
 *   and its own levels (the level sink: info, note, warn, error);
 * - a progress bar on stderr from the progress callback, and a cancel half
 *   way (--cancel-half) that the load answers with -ECANCELED;
 * - the results read as data: the fallbacks, the failure, the stats and
 *   the start's phase table.
 *
 *   engine_cpp WEIGHTS_FILE... [--cancel-half]
 * Exit 0 loaded, 1 the load failed, 3 cancelled, 2 usage.
 */
#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <loadscope/loadscope.h>

namespace {

/* The engine's logger: its prefix, its level letters. */
class Logger {
public:
	explicit Logger(std::string prefix) : prefix_(std::move(prefix)) {}
	enum Level { Info, Note, Warn, Error };
	void log(Level l, const std::string &msg) const
	{
		static const char letters[] = {'I', 'N', 'W', 'E'};
		std::fprintf(stdout, "%s %c: %s", prefix_.c_str(), letters[l], msg.c_str());
		if (msg.empty() || msg.back() != '\n')
			std::fputc('\n', stdout);
		std::fflush(stdout);
	}
	/* loadscope's levels onto ours (profiler.h has the events of each). */
	static Level from(lsc_level l)
	{
		switch (l) {
		case LSC_LEVEL_ERROR: return Error;
		case LSC_LEVEL_WARN: return Warn;
		case LSC_LEVEL_NOTE: return Note;
		default: return Info;
		}
	}

private:
	std::string prefix_;
};

void sink(void *user, lsc_level level, const char * /*event*/, const char *line, size_t len)
{
	static_cast<const Logger *>(user)->log(Logger::from(level), std::string(line, len));
}

/* The engine's pinned host buffer. */
class HostBuffer {
public:
	HostBuffer(size_t bytes, const Logger &log) : bytes_(bytes)
	{
		if (try_cuda(log))
			return;
		void *m = mmap(nullptr, bytes_ ? bytes_ : 1, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			log.log(Logger::Error, "cannot map the weights buffer");
			return;
		}
		data_ = m;
		if (mlock(m, bytes_ ? bytes_ : 1) == 0) {
			kind_ = "page-locked (mlock)";
		} else {
			kind_ = "pageable";
			log.log(Logger::Warn, std::string("mlock of the weights buffer: ") +
						      std::strerror(errno) + "; pageable memory");
		}
	}
	~HostBuffer()
	{
		if (cuda_free_ && data_)
			cuda_free_(data_);
		else if (data_)
			munmap(data_, bytes_ ? bytes_ : 1); /* unlocks too */
		if (cudart_)
			dlclose(cudart_);
	}
	HostBuffer(const HostBuffer &) = delete;
	HostBuffer &operator=(const HostBuffer &) = delete;
	void *data() const { return data_; }
	size_t size() const { return bytes_; }
	const char *kind() const { return kind_; }

private:
	bool try_cuda(const Logger &log)
	{
		const char *names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so"};
		for (const char *n : names)
			if ((cudart_ = dlopen(n, RTLD_NOW | RTLD_LOCAL)))
				break;
		if (!cudart_)
			return false;
		using count_fn = int (*)(int *);
		using alloc_fn = int (*)(void **, size_t, unsigned);
		auto count = reinterpret_cast<count_fn>(dlsym(cudart_, "cudaGetDeviceCount"));
		auto alloc = reinterpret_cast<alloc_fn>(dlsym(cudart_, "cudaHostAlloc"));
		cuda_free_ = reinterpret_cast<int (*)(void *)>(dlsym(cudart_, "cudaFreeHost"));
		int n = 0;
		if (!count || !alloc || !cuda_free_ || count(&n) != 0 || n < 1) {
			log.log(Logger::Note, "no CUDA device: the weights buffer is page-locked with mlock");
			cuda_free_ = nullptr;
			return false;
		}
		if (alloc(&data_, bytes_ ? bytes_ : 1, 0) != 0) {
			log.log(Logger::Warn, "cudaHostAlloc failed: the weights buffer is page-locked with mlock");
			data_ = nullptr;
			cuda_free_ = nullptr;
			return false;
		}
		kind_ = "pinned (cudaHostAlloc)";
		return true;
	}

	size_t bytes_;
	void *data_ = nullptr;
	const char *kind_ = "none";
	void *cudart_ = nullptr;
	int (*cuda_free_)(void *) = nullptr;
};

struct Progress {
	bool cancel_half = false;
	int last_percent = -1;
};

/* The bar on stderr; the cancel once half of the bytes are in. */
int progress(uint64_t done, uint64_t total, void *user)
{
	auto *pr = static_cast<Progress *>(user);
	int pc = total ? static_cast<int>(done * 100 / total) : 100;
	if (pc != pr->last_percent) {
		int w = pc / 5;
		std::fprintf(stderr, "\rloading [%.*s%*s] %3d%%", w, "####################", 20 - w, "", pc);
		if (done == total)
			std::fputc('\n', stderr);
		std::fflush(stderr);
		pr->last_percent = pc;
	}
	return pr->cancel_half && done * 2 >= total;
}

} // namespace

int main(int argc, char **argv)
{
	Logger log("myengine");
	Progress pr;
	std::vector<std::string> files;
	for (int i = 1; i < argc; i++) {
		if (!std::strcmp(argv[i], "--cancel-half"))
			pr.cancel_half = true;
		else
			files.emplace_back(argv[i]);
	}
	if (files.empty()) {
		std::fprintf(stderr, "usage: engine_cpp WEIGHTS_FILE... [--cancel-half]\n");
		return 2;
	}

	lsc_profiler_options po;
	lsc_profiler_options_init(&po);
	po.sink_level = sink;
	po.sink_user = &log;
	lsc_profiler *prof = nullptr;
	if (lsc_profiler_create(&po, &prof) != 0)
		return 1;
	lsc_start_begin(prof, "engine_cpp");

	/* The manifest: the files back to back, 4 KiB-aligned. */
	std::vector<lsc_extent> ext(files.size());
	uint64_t at = 0;
	for (size_t i = 0; i < files.size(); i++) {
		struct stat st {};
		ext[i] = lsc_extent{};
		ext[i].path = files[i].c_str();
		ext[i].length = UINT64_MAX;
		ext[i].arena_offset = at;
		if (stat(ext[i].path, &st) == 0)
			at += (static_cast<uint64_t>(st.st_size) + 4095) & ~uint64_t{4095};
	}

	lsc_span span = 0;
	lsc_span_begin(prof, LSC_PHASE_ALLOCATE, "engine buffer", at, &span);
	HostBuffer buf(at, log);
	lsc_span_end(prof, span, nullptr);
	log.log(Logger::Info, "weights buffer: " + std::to_string(buf.size()) + " bytes, " + buf.kind());

	lsc_load_options o;
	lsc_load_options_init(&o);
	o.progress = progress;
	o.progress_user = &pr;
	lsc_load_result res;
	o.result = &res;
	lsc_load_stats st {};
	int ret = buf.data() || !at ? lsc_load_into(prof, &o, ext.data(), ext.size(), buf.data(),
						   buf.size(), &st)
				    : -ENOMEM;

	for (unsigned i = 0; i < res.n_fallbacks; i++)
		log.log(Logger::Warn, std::string("fell back: ") + res.fallbacks[i].what + ": wanted " +
					      res.fallbacks[i].wanted + ", took " + res.fallbacks[i].took);
	int rc = 0;
	char text[2048];
	if (ret == -ECANCELED) {
		std::snprintf(text, sizeof(text),
			      "load cancelled at %" PRIu64 " of %" PRIu64 " bytes: returned -ECANCELED",
			      res.bytes_done, res.bytes_total);
		log.log(Logger::Warn, text);
		rc = 3;
	} else if (ret != 0) {
		std::snprintf(text, sizeof(text), "load failed: %s at %s offset %" PRIu64 ": %s (%s)",
			      res.err_what, res.err_path[0] ? res.err_path : "-", res.err_offset,
			      res.err_cause, lsc_strerror(ret));
		log.log(Logger::Error, text);
		rc = 1;
	} else {
		std::snprintf(text, sizeof(text),
			      "weights ready: %" PRIu64 " bytes read in %.3f s, %" PRIu64
			      " bytes locked, %" PRIu64 " in huge pages",
			      st.bytes, static_cast<double>(st.wall_ns) / 1e9, st.locked_bytes,
			      st.huge_bytes);
		log.log(Logger::Info, text);
		lsc_start_end(prof);
		lsc_start_table t {};
		if (lsc_start_table_read(prof, &t) == 0) {
			for (unsigned i = 0; i < t.n_rows; i++) {
				std::snprintf(text, sizeof(text), "startup: %-14s %2u x %8.3f s%s",
					      t.rows[i].name, t.rows[i].count,
					      static_cast<double>(t.rows[i].wall_ns) / 1e9,
					      t.rows[i].overlapped ? " (overlapped)" : "");
				log.log(Logger::Info, text);
			}
			std::snprintf(text, sizeof(text), "startup: unattributed %.3f s of %.3f s",
				      static_cast<double>(t.unattributed_ns) / 1e9,
				      static_cast<double>(t.wall_ns) / 1e9);
			log.log(Logger::Info, text);
		}
	}
	lsc_profiler_destroy(prof);
	return rc;
}
