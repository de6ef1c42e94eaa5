#!/usr/bin/env bash
# Every benchmark at a tiny size, so that none rots (issue 9): run by
# scripts/test.sh after the suites. It checks that each one runs to the end
# and prints its figures, never what the figures are (a benchmark measures;
# a 64 MiB run on a busy machine proves nothing about speed).
#
#   bench/smoke.sh BUILD_DIR
#
# bench/run.sh --quick (the whole suite, under a minute), then each program
# of bench/ and each script alone. gpu-check.sh is checked only for its
# fast failure where there is no GPU (a GPU run builds for minutes: by hand,
# docs/benchmarks.md). Any error fails it; fio missing is a loud skip of
# compare_fio.sh only.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${1:?usage: bench/smoke.sh BUILD_DIR}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
T=$(mktemp -d /tmp/lsc-bench-smoke.XXXXXX)
trap 'rm -rf "$T"' EXIT
step() { echo "== bench smoke: $*"; }
# expect PATTERN CMD...: CMD succeeds and prints PATTERN (its output kept on failure)
expect() {
	local pat=$1; shift
	if ! "$@" >"$T/out" 2>&1 || ! grep -q -- "$pat" "$T/out"; then
		cat "$T/out"
		echo "bench smoke: FAILED: $* (wanted a line matching '$pat')"
		exit 1
	fi
}
F=$T/f.bin
"$B"/loadscope load --make-test-file "$F" --gib 0.0625 >/dev/null

step "bench/run.sh --quick"
expect '^| heavy | .* | auto |' "$ROOT"/bench/run.sh --quick --build "$B" --out "$T/run"
step "bench_fill, bench_limit, bench_arena, bench_register, bench_baseline, bench_profiler"
expect '^summary variant=auto ' "$B"/bench/bench_fill "$F" 1 0
expect '^limit what=xxh3 ' "$B"/bench/bench_limit 16 1
expect '^| auto |' "$B"/bench/bench_arena 0.0625 1
expect '^\(summary variant=mixed \|skip bench_register: \)' "$B"/bench/bench_register 16 1
expect '^baseline wall_s=' "$B"/bench/bench_baseline "$F"
expect 'no allocation' "$B"/bench/bench_profiler 100
step "bench_load (once, matrix), bench_load_into, bench_model"
expect '^load profiler=on ' "$B"/bench/bench_load "$F" once on
expect '^variant ' "$B"/bench/bench_load "$F" matrix 1
expect '^ratio into/arena ' "$B"/bench/bench_load_into "$F" 1
expect '^summary' "$B"/bench/bench_model "$T/m.safetensors" 1 100
step "bench_host_refault (19 s: its gaps and idles are what it measures)"
expect '^| 5 s |' "$B"/bench/bench_host_refault 2 1
step "bench_triage.sh, PER_LOG=1 too"
expect '^median: ' "$ROOT"/bench/bench_triage.sh "$B" 4 1
expect 'peak RSS' env PER_LOG=1 "$ROOT"/bench/bench_triage.sh "$B" 8 1
if command -v fio >/dev/null; then
	step "compare_fio.sh"
	expect '^ratio read phase / best fio' "$ROOT"/bench/compare_fio.sh "$B" "$F" 0.0625 1
else
	step "SKIPPED: compare_fio.sh (fio not installed)"
fi
if [ -x "$B"/examples/ggml/ggml-load ]; then
	step "bench_ggml.sh (a 0.02 GiB model, one round, no pause)"
	expect '^warm  loadscope ' env PAUSE_S=0 "$ROOT"/bench/bench_ggml.sh "$B" 0.02 1
else
	step "SKIPPED: bench_ggml.sh (this build has no ggml: LOADSCOPE_GGML_DIR)"
fi
if ! compgen -G "/dev/nvidia[0-9]*" >/dev/null; then
	step "gpu-check.sh (no GPU here: its fast failure)"
	rc=0
	timeout 20 "$ROOT"/bench/gpu-check.sh >"$T/out" 2>&1 || rc=$?
	[ $rc = 1 ] && grep -q 'no CUDA device' "$T/out" ||
		{ cat "$T/out"; echo "bench smoke: FAILED: gpu-check.sh without a GPU: exit $rc"; exit 1; }
else
	step "SKIPPED: gpu-check.sh (a GPU is here: the real check builds for minutes; run it by hand)"
fi
echo "== bench smoke: all passed"
