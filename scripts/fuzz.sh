#!/bin/sh
# Build the libFuzzer targets with clang (ASan + UBSan + coverage on the
# library and the triage) and run each for a bounded time, seeded from the
# triage corpus (tests/corpus/logs, through every kind of paste damage).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [BUILD_DIR]     (defaults: 60, build-fuzz)
#
# Every kept regression input (fuzz/crashes/) is replayed first. A crash,
# leak, timeout or OOM stops the run with exit 1 and copies the reproducer
# into fuzz/crashes/ (commit it; tests/test_fuzz_regressions.c replays it on
# every build). Exit 77 when clang is not installed (CI skips loudly).
# LOADSCOPE_FUZZ_SEED picks the seed (default: 1 under CI, random otherwise).
set -eu
SECS=${1:-60}
B=${2:-build-fuzz}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
CLANG=${CLANG:-$(command -v clang || command -v clang-14 || true)}
if [ -z "$CLANG" ]; then
	echo "fuzz.sh: clang not found, not fuzzing (apt-get install clang)" >&2
	exit 77
fi
JOBS=${JOBS:-2}
# CI fuzzes from a fixed seed, so that a red run can be replayed and a
# submission is not failed by a path no earlier run took; by hand, a fresh
# seed each run (0: libFuzzer picks one and prints it).
if [ -n "${CI:-}" ]; then SEED=${LOADSCOPE_FUZZ_SEED:-1}; else SEED=${LOADSCOPE_FUZZ_SEED:-0}; fi

CC="$CLANG" cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DLOADSCOPE_BUILD_FUZZ=ON -DLOADSCOPE_SANITIZE=ON -DLOADSCOPE_BUILD_TESTS=OFF \
	-DLOADSCOPE_BUILD_BENCH=OFF -DLOADSCOPE_WITH_CUDA=OFF -DLOADSCOPE_WITH_HIP=OFF >/dev/null
ninja -C "$B" -j"$JOBS" fuzz_triage fuzz_line_parse fuzz_line_roundtrip fuzz_model fuzz_seeds

"$B/fuzz/fuzz_seeds" tests/corpus/logs fuzz/corpus
mkdir -p "$B/artifacts" fuzz/crashes fuzz/corpus/line_roundtrip

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

keep() { # keep TARGET: copy what libFuzzer left into fuzz/crashes
	found=0
	for a in "$B/artifacts/$1-"*; do
		[ -f "$a" ] || continue
		cp "$a" "fuzz/crashes/$(basename "$a")"
		echo "fuzz.sh: $1 failed; reproducer kept as fuzz/crashes/$(basename "$a")" >&2
		found=1
	done
	return $found
}

status=0
for t in triage line_parse line_roundtrip model; do
	case $t in
	triage) maxlen=262144 ;;
	line_roundtrip) maxlen=400 ;;
	model) maxlen=65536; mkdir -p fuzz/corpus/model ;;
	*) maxlen=16384 ;;
	esac
	# replay the kept regressions (each input once)
	set -- fuzz/crashes/*
	if [ -e "$1" ]; then
		for f in "$@"; do
			[ "$(basename "$f")" = README.md ] && continue
			"$B/fuzz/fuzz_$t" -runs=1 "$f" >/dev/null 2>&1 || {
				echo "fuzz.sh: fuzz_$t fails on kept input $f" >&2
				status=1
			}
		done
	fi
	rm -f "$B/artifacts/$t-"*
	"$B/fuzz/fuzz_$t" "fuzz/corpus/$t" -seed="$SEED" -max_total_time="$SECS" -max_len=$maxlen -timeout=20 \
		-rss_limit_mb=2048 -artifact_prefix="$B/artifacts/$t-" -print_final_stats=1 || status=1
	keep "$t" || status=1
done
exit $status
