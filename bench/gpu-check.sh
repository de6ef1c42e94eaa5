#!/usr/bin/env bash
# gpu-check.sh: the device check of issue 5, in one command, on a machine
# with an NVIDIA GPU (sized for an H200 machine with 16 cores: under 8
# minutes, most of it the build).
#
#   bench/gpu-check.sh            # GIB=4 by default; GIB=8 for a larger file
#
# It configures and builds loadscope with the CUDA backend (Release), makes a
# GIB-GiB test file, measures the plain pinned cudaMemcpy bandwidth
# (bench/gpu/h2d_bandwidth.c: the limit), then for each THP policy (4k, thp,
# process-off, auto) runs
#   - `loadscope load FILE --pin cuda --thp P` (the arena's own pin phase),
#   - `loadscope pintest GIB --backend cuda --mode register,alloc-mp --thp P --h2d`
#     (cudaHostRegister of a touched mapping, cudaHostAlloc, and the
#     host-to-device copy from that pinned memory through the backend's
#     dev_copy path: 64 MiB copies on two slots),
# and prints a short Markdown table last. Every raw output is kept under
# $OUT (default build-gpucheck/gpu-check/) for docs/benchmarks.md.
#
# Without a GPU it says "no CUDA device" and exits 1 within a second, before
# building anything.
#
# The device machines run a CUDA image that may lack liburing, xxhash and
# libnuma headers (nothing can be installed there). So:
#   bench/gpu-check.sh --prepare   # on a build machine, no GPU needed: a
#                                  # Release build with CUDA in $BUILD, plus
#                                  # the non-system shared libraries it needs
#                                  # in $BUILD/runtime-libs
# then carry $BUILD (build-gpucheck) to the device machine; there the script
# builds only when the headers are present and SKIP_BUILD is not 1, and
# otherwise uses the carried build with runtime-libs on LD_LIBRARY_PATH.
set -euo pipefail
# The fields read below (read_gibps, wall_s, ...) are the verbose lines':
# the brief default keeps only a few (docs/log-format.md).
export LOADSCOPE=${LOADSCOPE:-verbose}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GIB=${GIB:-4}
BUILD=${BUILD:-$ROOT/build-gpucheck}
OUT=${OUT:-$BUILD/gpu-check}
FILE=${FILE:-${TMPDIR:-/tmp}/loadscope-gpucheck-${GIB}g.bin}
JOBS=${JOBS:-$(nproc)}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

die() { echo "gpu-check: $*" >&2; exit 1; }

build_deps_missing() {
	local h miss=""
	for h in liburing.h xxhash.h numa.h; do
		[ -e "/usr/include/$h" ] || [ -e "/usr/local/include/$h" ] || miss="$miss $h"
	done
	command -v cmake >/dev/null 2>&1 || miss="$miss cmake"
	echo "${miss# }"
}

do_build() {
	local gen=()
	command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
	mkdir -p "$OUT"
	cmake -S "$ROOT" -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
		-DLOADSCOPE_WITH_CUDA=ON -DLOADSCOPE_BUILD_TESTS=OFF -DLOADSCOPE_BUILD_BENCH=OFF \
		>"$OUT/cmake.log" 2>&1 || { tail -20 "$OUT/cmake.log"; die "cmake failed"; }
	cmake --build "$BUILD" -j "$JOBS" >"$OUT/build.log" 2>&1 ||
		{ tail -30 "$OUT/build.log"; die "build failed"; }
}

if [ "${1:-}" = --prepare ]; then
	miss=$(build_deps_missing)
	[ -z "$miss" ] || die "--prepare: missing$miss"
	do_build
	mkdir -p "$BUILD/runtime-libs"
	# the shared libraries that are not part of glibc or the CUDA stack
	ldd "$BUILD/loadscope" | awk '/=> \// { print $3 }' |
		{ grep -E '/lib(uring|xxhash|numa)\.so' || true; } | xargs -r cp -L -t "$BUILD/runtime-libs"
	echo "gpu-check: prepared $BUILD ($(du -sh "$BUILD" | cut -f1)); carry it and run SKIP_BUILD=1 bench/gpu-check.sh"
	ls "$BUILD/runtime-libs"
	exit 0
fi

# ---- 1. fail fast where there is no GPU --------------------------------------
if ! compgen -G "/dev/nvidia[0-9]*" >/dev/null; then
	why="no /dev/nvidia[0-9]* device node"
	if command -v nvidia-smi >/dev/null 2>&1; then
		why="$why; nvidia-smi: $(nvidia-smi -L 2>&1 | head -1)"
	else
		why="$why; no nvidia-smi"
	fi
	die "no CUDA device ($why)"
fi
[ -d "$CUDA_HOME/include" ] || die "no CUDA toolkit at $CUDA_HOME (set CUDA_HOME)"

mkdir -p "$OUT"
t_start=$(date +%s)
echo "gpu-check: $(date -u +%FT%TZ) $(nvidia-smi -L 2>/dev/null | head -1 || echo 'GPU: nvidia-smi n/a')"

# ---- 2. build (Release, CUDA backend required), or use the carried build ------
miss=$(build_deps_missing)
if [ "${SKIP_BUILD:-0}" != 1 ] && [ -z "$miss" ]; then
	do_build
else
	[ -x "$BUILD/loadscope" ] ||
		die "cannot build here (SKIP_BUILD=${SKIP_BUILD:-0}; missing: ${miss:-nothing}) and no carried build in $BUILD: run 'bench/gpu-check.sh --prepare' on a build machine and carry $BUILD"
	echo "gpu-check: using the carried build in $BUILD (missing here: ${miss:-nothing})"
fi
if [ -d "$BUILD/runtime-libs" ]; then
	export LD_LIBRARY_PATH="$BUILD/runtime-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
LS="$BUILD/loadscope"
[ -x "$LS" ] || die "no $LS after the build"
"$LS" --version >/dev/null 2>&1 || die "$LS does not run here: $("$LS" --version 2>&1 | head -1)"

# The backend's own probe decides (driver, device), in one line.
if ! "$LS" pintest 0.001 --backend cuda --mode register >"$OUT/probe.txt" 2>&1; then
	die "no CUDA device: $(head -1 "$OUT/probe.txt")"
fi

# ---- 3. the limit: plain pinned cudaMemcpy -----------------------------------
plain="n/a"
if cc -std=c11 -O2 -I"$CUDA_HOME/include" "$ROOT/bench/gpu/h2d_bandwidth.c" \
	-L"$CUDA_HOME/lib64" -Wl,-rpath,"$CUDA_HOME/lib64" -lcudart -o "$BUILD/h2d_bandwidth" \
	>"$OUT/h2d_build.log" 2>&1; then
	"$BUILD/h2d_bandwidth" 1 7 0 >"$OUT/h2d_bandwidth.txt" 2>&1 || true
	cat "$OUT/h2d_bandwidth.txt"
	plain=$(grep -o 'median_gibps=[0-9.]*' "$OUT/h2d_bandwidth.txt" | cut -d= -f2 || true)
	plain=${plain:-n/a}
else
	echo "gpu-check: h2d_bandwidth did not build (see $OUT/h2d_build.log): no plain figure"
fi

# ---- 4. the test file ---------------------------------------------------------
if [ ! -s "$FILE" ] || [ "$(stat -c %s "$FILE")" -lt $((GIB * 1073741824)) ]; then
	if "$LS" load --help 2>&1 | grep -q -- '--make-test-file'; then
		"$LS" load --make-test-file "$FILE" --gib "$GIB" >"$OUT/make_file.txt" 2>&1
	else
		dd if=/dev/urandom of="$FILE" bs=64M count=$((GIB * 16)) status=none
	fi
fi
cat "$FILE" >/dev/null # page cache: this check is about pinning and copies, not the disk

# ---- 5. per THP policy -------------------------------------------------------
have_load=0
"$LS" load --help 2>&1 | grep -q -- '--pin' && have_load=1
load_dev=()
"$LS" load --help 2>&1 | grep -q -- '--device' && load_dev=(--device 0)

# pin s/GiB from the loader's `phase ... kind=pin` line (docs/log-format.md)
load_pin_s_per_gib() {
	awk '/\[loadscope\/1\] phase/ && / kind=pin / {
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^wall_s=/) { split($i, a, "="); w = a[2] }
			if ($i ~ /^bytes=/) { split($i, b, "="); by = b[2] }
		}
	} END { if (by > 0) printf "%.3f", w / (by / 1073741824); else printf "n/a" }' "$1"
}
# column 3 (alloc s) of a pintest row, per GiB; and its h2d note
pintest_s_per_gib() {
	awk -F'|' -v m="$2" -v g="$GIB" '$2 ~ (" cuda " m " ") { s = $3 + 0; printf "%.3f", s / g; exit }' "$1"
}
pintest_h2d() {
	awk -F'|' -v m="$2" '$2 ~ (" cuda " m " ") { if (match($6, /h2d [0-9.]+ GiB\/s/)) { split(substr($6, RSTART, RLENGTH), a, " "); print a[2]; exit } }' "$1"
}

rows=()
for pol in 4k thp process-off auto; do
	ptp=$pol
	[ "$pol" = auto ] && ptp=default
	lp="n/a"
	if [ $have_load = 1 ]; then
		if "$LS" load "$FILE" --pin cuda --thp "$pol" "${load_dev[@]}" >"$OUT/load_$pol.txt" 2>&1; then
			lp=$(load_pin_s_per_gib "$OUT/load_$pol.txt")
		else
			lp="failed"
		fi
	fi
	"$LS" pintest "$GIB" --backend cuda --mode register,alloc-mp --thp "$ptp" --h2d \
		>"$OUT/pintest_$pol.txt" 2>&1 || true
	reg=$(pintest_s_per_gib "$OUT/pintest_$pol.txt" register)
	alc=$(pintest_s_per_gib "$OUT/pintest_$pol.txt" alloc-mp)
	h2d=$(pintest_h2d "$OUT/pintest_$pol.txt" register)
	ratio="n/a"
	if [ -n "$h2d" ] && [ "$plain" != "n/a" ]; then
		ratio=$(awk -v a="$h2d" -v b="$plain" 'BEGIN { printf "%.2f", a / b }')
	fi
	rows+=("| $pol | ${reg:-n/a} | ${alc:-n/a} | $lp | ${h2d:-n/a} | $plain | $ratio |")
done

# ---- 6. the table, last ---------------------------------------------------------
{
	echo
	echo "gpu-check: ${GIB} GiB, $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), $(uname -r), $(($(date +%s) - t_start)) s"
	echo "thp: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null) defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null)"
	echo
	echo "| THP policy | cudaHostRegister s/GiB (pintest register) | cudaHostAlloc s/GiB (pintest alloc-mp) | loader pin s/GiB | H2D from pinned arena GiB/s | plain pinned cudaMemcpy GiB/s | ratio |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	printf '%s\n' "${rows[@]}"
	echo
	echo "register/alloc: pintest, touch + pin (register) or the runtime's allocation, per GiB;"
	echo "loader pin: the 'pin' phase of 'loadscope load --pin cuda' (n/a: this build's load has no --pin);"
	echo "H2D: pintest --h2d, 64 MiB cudaMemcpyAsync on two slots from the registered memory;"
	echo "plain: bench/gpu/h2d_bandwidth.c, median of 7 whole-buffer cudaMemcpy from cudaMallocHost memory."
	echo "pintest 'auto' = no madvise (the runtime's default). Raw outputs: $OUT"
} | tee "$OUT/table.md"
