#!/usr/bin/env bash
# Compare one benchmark between two git revisions, run interleaved: the
# figures in docs/benchmarks.md that compare a change with the tree before
# it come from here, with the two revisions named beside them.
#
#   bench/compare_builds.sh REV_A REV_B RUNS BENCH [ARGS...]
#   e.g. bench/compare_builds.sh 3633c10^ 3633c10 3 bench_profiler 20000
#
# Each revision is checked out in its own detached worktree under
# ${TMPDIR:-/tmp}/lsc-compare-REV (kept for a rerun; remove it with
# `git worktree remove`), configured RelWithDebInfo and built for the one
# target BENCH (ninja, ccache when installed). Then RUNS rounds, A then B
# in odd rounds and B then A in even ones, each output kept under
# ${TMPDIR:-/tmp}/lsc-compare-out/. ROW (a grep -E pattern, default the
# bench_profiler span row) picks the line of a Markdown table whose first
# figure is summarised: every run's value and the median per revision.
set -euo pipefail
[ $# -ge 4 ] || { sed -n '5,6p' "$0" | sed 's/^# //' >&2; exit 64; }
A=$1 B=$2 RUNS=$3 BENCH=$4
shift 4
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROW=${ROW:-'^\| span begin\+end, profiler on'}
TMP=${TMPDIR:-/tmp}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
build() { # rev -> path of the built benchmark
	local sha dir
	sha=$(git -C "$ROOT" rev-parse --short=12 "$1^{commit}")
	dir=$TMP/lsc-compare-$sha
	[ -d "$dir" ] || git -C "$ROOT" worktree add --detach "$dir" "$sha" >&2
	cmake -S "$dir" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		${launcher[@]+"${launcher[@]}"} >"$dir/configure.log" 2>&1 || { cat "$dir/configure.log" >&2; exit 1; }
	ninja -C "$dir/build" "$BENCH" >&2
	echo "$dir/build/bench/$BENCH"
}
ba=$(build "$A")
bb=$(build "$B")
out=$TMP/lsc-compare-out
mkdir -p "$out"
echo "# $(date -u +%FT%TZ) $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); A=$A ($ba) B=$B ($bb)"
va="" vb=""
for r in $(seq 1 "$RUNS"); do
	if [ $((r % 2)) = 1 ]; then order="A B"; else order="B A"; fi
	for w in $order; do
		bin=$ba; [ $w = B ] && bin=$bb
		"$bin" "$@" >"$out/$w-$r.txt" 2>&1 || { cat "$out/$w-$r.txt"; exit 1; }
		v=$(grep -E "$ROW" "$out/$w-$r.txt" | head -1 | awk -F'|' '{ gsub(/ /, "", $3); print $3 }')
		[ -n "$v" ] || { cat "$out/$w-$r.txt"; echo "no row matching $ROW" >&2; exit 1; }
		echo "round $r $w $v"
		if [ $w = A ]; then va="$va $v"; else vb="$vb $v"; fi
	done
done
med() { echo "$@" | tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
ma=$(med $va) mb=$(med $vb)
echo "median A=$A $ma (runs:$va)"
echo "median B=$B $mb (runs:$vb)"
awk -v a="$ma" -v b="$mb" 'BEGIN { printf "ratio B/A %.3f\n", b / a }'
