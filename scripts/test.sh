#!/usr/bin/env bash
# The README's test command: installs what is missing, then builds and runs
# the whole suite twice, as CI does: a normal build with warnings as errors,
# and one with AddressSanitizer and UndefinedBehaviorSanitizer, which must be
# clean too. Then builds the embedding example against an installed copy and,
# where clang is present, runs each fuzz target for a bounded time.
#
# What it prints is what a person wants to know: each stage with its time,
# each suite's passed and failed counts (ctest's own summary line, which CI
# reads), every skipped test with its reason, and the total time. The whole
# output of each stage (the builds, ctest's per-test lines, the fuzzers'
# progress) goes to a log file under build-logs/, named on the stage's line.
# A stage that fails prints its failing output in full (the build's errors,
# the failed tests' output, the fuzzer's report) and the run stops with its
# exit status.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --test

jobs=$(nproc)
logs=build-logs
rm -rf "$logs" && mkdir -p "$logs"
t_all=$SECONDS
results=() # one line per stage, printed again at the end

took() { # seconds since $1, as 1m05s or 42s
	local s=$((SECONDS - $1))
	if [ $s -ge 60 ]; then printf '%dm%02ds' $((s / 60)) $((s % 60)); else printf '%ds' $s; fi
}

# The lines of a log that say what went wrong, without the progress lines
# around them: ninja's "[12/340] ...", ctest's "Start" and passed-test lines,
# libFuzzer's "#1234 pulse/NEW/REDUCE ..." lines and its recommended
# dictionary ('"..." # Uses: N').
failing_part() {
	grep -Ev '^\[[0-9]+/[0-9]+\] |^ *Start +[0-9]+: |^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* +Passed +[0-9.]+ sec$|^#[0-9]+[[:space:]]+(pulse|NEW|REDUCE|INITED|RELOAD)[[:space:]]|^".*" # Uses: [0-9]+$|^###### (End of )?Recommended dictionary' "$1" || true
}

# stage NAME LOG CMD...: CMD's output into LOG; one line when it passes, its
# failing part, the log's name and exit CMD's status when it fails.
stage() {
	local name=$1 log=$2 t0=$SECONDS rc=0
	shift 2
	"$@" >"$log" 2>&1 || rc=$?
	if [ $rc -ne 0 ]; then
		echo "== $name: FAILED (exit $rc, $(took "$t0")); its output, progress lines left out:"
		failing_part "$log"
		echo "== $name: FAILED (exit $rc); the whole output: $log"
		exit $rc
	fi
	echo "== $name: ok ($(took "$t0"); log $log)"
	results+=("$name: ok ($(took "$t0"))")
}

# suite DIR CMAKE_ARGS...: configure, build, run ctest. Returns ctest's
# status, having printed ctest's summary lines and every skip with its
# reason; a failed configure or build stops the run.
suite() {
	local dir=$1 t0=$SECONDS rc=0
	shift
	stage "$dir: configure" "$logs/$dir.configure.log" \
		cmake -S . -B "$dir" -G Ninja -DLOADSCOPE_WERROR=ON "$@"
	stage "$dir: build" "$logs/$dir.build.log" ninja -C "$dir" -j"$jobs"
	# Whole outputs in the JUnit file: ctest keeps only 1 KiB of a passed
	# test's output by default, which cut [SKIP] lines off the list below.
	local log=$logs/$dir.ctest.log t1=$SECONDS
	ctest --test-dir "$dir" --output-on-failure -j1 --output-junit junit.xml \
		--test-output-size-passed 1048576 --test-output-size-failed 1048576 >"$log" 2>&1 || rc=$?
	report_ctest "$dir" "$log" "$t1" "$rc" "$dir/junit.xml"
	return $rc
}

# report_ctest NAME LOG T0 RC [JUNIT]: ctest's summary lines as it printed
# them (the line CI reads: "100% tests passed, 0 tests failed out of N"),
# the skips and why, and on failure the failed tests' whole output.
report_ctest() {
	local name=$1 log=$2 t0=$3 rc=$4 junit=${5:-}
	local sum skips="" nskip=0
	sum=$(grep -E '^[0-9]+% tests passed|^Total Test time' "$log" || true)
	# A missing device or kernel feature is a skip, and a skip is said out
	# loud: every one, with its reason, from the tests' own output.
	if [ -n "$junit" ]; then
		skips=$(grep -o '\[SKIP\][^&<]*' "$junit" 2>/dev/null | sort -u || true)
		[ -z "$skips" ] || nskip=$(printf '%s\n' "$skips" | wc -l)
	fi
	if [ $rc -ne 0 ]; then
		echo "== $name: tests FAILED (ctest exit $rc, $(took "$t0")); the failed tests' output:"
		failing_part "$log"
	else
		echo "== $name: tests ($(took "$t0"); log $log)"
	fi
	[ -z "$sum" ] || printf '%s\n' "$sum" | sed 's/^/   /'
	if [ $nskip -gt 0 ]; then
		echo "   $nskip tests SKIPPED:"
		printf '%s\n' "$skips" | sed 's/^/     /'
	fi
	local first more=""
	first=$(printf '%s\n' "$sum" | head -1)
	[ $nskip -eq 0 ] || more=", $nskip of them skipped"
	results+=("$name: ${first:-no ctest summary (exit $rc)}$more ($(took "$t0"))")
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
	results+=("ggml integration: SKIPPED (no ../shared/ggml)")
else
	echo "== scripts/ggml.sh failed (its logs: build-ggml/)"; exit 1
fi

suite build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo ${ggml_args[@]+"${ggml_args[@]}"} || { echo "== the suite failed; whole output: $logs/build-test.ctest.log"; exit 1; }

# Sanitizer reports go to files as well as failing the test that crashed:
# Criterion ignores a worker's exit status once its test has passed, so a
# leak that LeakSanitizer reports at the worker's exit would otherwise pass
# silently. Any report at all fails the suite.
san=$PWD/build-asan/sanitizer-logs
rm -rf "$san" && mkdir -p "$san"
export ASAN_OPTIONS=detect_leaks=1:log_path=$san/asan
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$san/ubsan
failed=0
suite build-asan -DCMAKE_BUILD_TYPE=Debug -DLOADSCOPE_SANITIZE=ON ${ggml_args[@]+"${ggml_args[@]}"} || failed=1
unset ASAN_OPTIONS UBSAN_OPTIONS
if [ -n "$(ls -A "$san")" ]; then
	echo "== sanitizer reports (each fails the suite):"
	for f in "$san"/*; do echo "--- $f"; cat "$f"; done
	failed=1
fi
[ $failed -eq 0 ] || { echo "== the sanitizer suite failed; whole output: $logs/build-asan.ctest.log"; exit 1; }

# ThreadSanitizer: the threaded paths (watchdog, atfork handlers, parallel
# prefault, overlapped verify) as plain programs, since Criterion's runner
# does not start under TSan; each is bounded by ctest's 60 s timeout.
stage "build-tsan: configure" "$logs/build-tsan.configure.log" \
	cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOADSCOPE_WERROR=ON -DLOADSCOPE_TSAN=ON \
	-DLOADSCOPE_BUILD_TESTS=OFF -DLOADSCOPE_BUILD_TOOLS=OFF -DLOADSCOPE_BUILD_BENCH=OFF
stage "build-tsan: build" "$logs/build-tsan.build.log" ninja -C build-tsan -j"$jobs"
# TSan's shadow memory sits at fixed addresses that a kernel with more mmap
# randomisation bits can collide with; setarch -R turns randomisation off
# for these programs only (no system setting changes).
norand=()
if setarch "$(uname -m)" -R true 2>/dev/null; then norand=(setarch "$(uname -m)" -R); fi
rc=0 t0=$SECONDS
${norand[@]+"${norand[@]}"} ctest --test-dir build-tsan --output-on-failure -j1 >"$logs/build-tsan.ctest.log" 2>&1 || rc=$?
report_ctest "build-tsan" "$logs/build-tsan.ctest.log" "$t0" "$rc"
[ $rc -eq 0 ] || exit $rc

stage "scripts/test-install.sh" "$logs/test-install.log" scripts/test-install.sh build-test

# Fuzz each target for a bounded time (kept crashes are replayed first and
# by tests/test_fuzz_regressions on every build). 77: no clang, a loud skip.
secs=${LOADSCOPE_FUZZ_SECONDS:-60}
rc=0 t0=$SECONDS
scripts/fuzz.sh "$secs" >"$logs/fuzz.log" 2>&1 || rc=$?
if [ $rc -eq 77 ]; then
	echo "== scripts/fuzz.sh: SKIPPED: fuzzing (clang not installed)"
	results+=("scripts/fuzz.sh: SKIPPED (clang not installed)")
elif [ $rc -ne 0 ]; then
	echo "== scripts/fuzz.sh $secs: FAILED (exit $rc, $(took "$t0")); its output, progress lines left out:"
	failing_part "$logs/fuzz.log"
	echo "== scripts/fuzz.sh: FAILED (exit $rc); the whole output: $logs/fuzz.log"
	exit $rc
else
	# libFuzzer's closing line per target, "Done N runs in S second(s)",
	# named after the corpus its run read ("... files found in fuzz/corpus/T")
	runs=$(grep -Ec '^Done [0-9]+ runs in ' "$logs/fuzz.log" || true)
	echo "== scripts/fuzz.sh $secs: ok, $runs targets fuzzed $secs s each ($(took "$t0"); log $logs/fuzz.log)"
	awk '/ files found in fuzz\/corpus\// { t = $NF; sub(".*/", "", t) }
	     /^Done [0-9]+ runs in / { print "   fuzz_" (t == "" ? "?" : t) ": " $0 }' "$logs/fuzz.log"
	results+=("scripts/fuzz.sh: ok, $runs targets x $secs s ($(took "$t0"))")
fi

# Every benchmark at a tiny size, so that none rots (issue 9): bench/run.sh
# --quick and each bench/ program and script alone; any error fails.
stage "bench/smoke.sh build-test" "$logs/bench-smoke.log" bench/smoke.sh build-test

echo "== summary ($(took "$t_all"); every stage's whole output under $logs/):"
printf '   %s\n' "${results[@]}"
echo "== all suites passed"
