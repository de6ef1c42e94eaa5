#!/usr/bin/env bash
# The README's test command: installs what is missing, then builds and runs
# the whole suite twice, as CI does: a normal build with warnings as errors,
# and one with AddressSanitizer and UndefinedBehaviorSanitizer, which must be
# clean too. Then builds the embedding example against an installed copy and,
# where clang is present, runs each fuzz target for a bounded time.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --test

jobs=$(nproc)
run_suite() { # name, extra cmake args...
	local dir=$1; shift
	echo "== $dir: configure and build"
	cmake -S . -B "$dir" -G Ninja -DLOADSCOPE_WERROR=ON "$@" >"$dir.configure.log" 2>&1 ||
		{ cat "$dir.configure.log"; return 1; }
	ninja -C "$dir" -j"$jobs"
	echo "== $dir: tests"
	local rc=0
	# Whole outputs in the JUnit file: ctest keeps only 1 KiB of a passed
	# test's output by default, which cut [SKIP] lines off the list below.
	ctest --test-dir "$dir" --output-on-failure -j1 --output-junit junit.xml \
		--test-output-size-passed 1048576 --test-output-size-failed 1048576 || rc=$?
	# A missing device or kernel feature is a skip, and a skip is said out
	# loud: every one, with its reason, from the tests' own output.
	local skips
	skips=$(grep -o '\[SKIP\][^&<]*' "$dir/junit.xml" 2>/dev/null | sort -u || true)
	if [ -n "$skips" ]; then
		echo "== $dir: $(printf '%s\n' "$skips" | wc -l) tests SKIPPED:"
		printf '%s\n' "$skips" | sed 's/^/   /'
	fi
	return $rc
}

# The ggml integration (examples/ggml) against ../shared/ggml where it is:
# ggml built once for both suites (scripts/ggml.sh); without it, its test
# is a loud skip.
ggml_args=()
grc=0
gdir=$(scripts/ggml.sh ../shared/ggml) || grc=$?
if [ $grc -eq 0 ]; then
	ggml_args=(-DLOADSCOPE_GGML_DIR="$(cd ../shared/ggml && pwd)" -Dggml_DIR="$gdir")
elif [ $grc -eq 77 ]; then
	echo "== SKIPPED: the ggml integration (no ../shared/ggml)"
else
	echo "== scripts/ggml.sh failed"; exit 1
fi

run_suite build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo ${ggml_args[@]+"${ggml_args[@]}"}

# Sanitizer reports go to files as well as failing the test that crashed:
# Criterion ignores a worker's exit status once its test has passed, so a
# leak that LeakSanitizer reports at the worker's exit would otherwise pass
# silently. Any report at all fails the suite.
logs=$PWD/build-asan/sanitizer-logs
rm -rf "$logs" && mkdir -p "$logs"
export ASAN_OPTIONS=detect_leaks=1:log_path=$logs/asan
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan
failed=0
run_suite build-asan -DCMAKE_BUILD_TYPE=Debug -DLOADSCOPE_SANITIZE=ON ${ggml_args[@]+"${ggml_args[@]}"} || failed=1
unset ASAN_OPTIONS UBSAN_OPTIONS
if [ -n "$(ls -A "$logs")" ]; then
	echo "== sanitizer reports (each fails the suite):"
	for f in "$logs"/*; do echo "--- $f"; cat "$f"; done
	failed=1
fi
[ $failed -eq 0 ] || { echo "== the sanitizer suite failed"; exit 1; }

# ThreadSanitizer: the threaded paths (watchdog, atfork handlers, parallel
# prefault, overlapped verify) as plain programs, since Criterion's runner
# does not start under TSan; each is bounded by ctest's 60 s timeout.
echo "== build-tsan: the ThreadSanitizer programs"
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOADSCOPE_WERROR=ON -DLOADSCOPE_TSAN=ON \
	-DLOADSCOPE_BUILD_TESTS=OFF -DLOADSCOPE_BUILD_TOOLS=OFF -DLOADSCOPE_BUILD_BENCH=OFF \
	>build-tsan.configure.log 2>&1 || { cat build-tsan.configure.log; exit 1; }
ninja -C build-tsan -j"$jobs"
# TSan's shadow memory sits at fixed addresses that a kernel with more mmap
# randomisation bits can collide with; setarch -R turns randomisation off
# for these programs only (no system setting changes).
norand=()
if setarch "$(uname -m)" -R true 2>/dev/null; then norand=(setarch "$(uname -m)" -R); fi
${norand[@]+"${norand[@]}"} ctest --test-dir build-tsan --output-on-failure -j1

echo "== scripts/test-install.sh"
scripts/test-install.sh build-test

# Fuzz each target for a bounded time (kept crashes are replayed first and
# by tests/test_fuzz_regressions on every build). 77: no clang, a loud skip.
echo "== scripts/fuzz.sh ${LOADSCOPE_FUZZ_SECONDS:-60}"
rc=0
scripts/fuzz.sh "${LOADSCOPE_FUZZ_SECONDS:-60}" || rc=$?
if [ $rc -eq 77 ]; then
	echo "== SKIPPED: fuzzing (clang not installed)"
elif [ $rc -ne 0 ]; then
	exit $rc
fi
# Every benchmark at a tiny size, so that none rots (issue 9): bench/run.sh
# --quick and each bench/ program and script alone; any error fails.
echo "== bench/smoke.sh build-test"
bench/smoke.sh build-test

echo "== all suites passed"
