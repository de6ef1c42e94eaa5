#!/usr/bin/env bash
# Compare the loader's read phase and whole load with fio and with a naive
# loader, interleaved, on one file in the page cache (issue 3, Performance).
#
#   bench/compare_fio.sh [BUILD_DIR] [FILE] [GIB] [ROUNDS]
#   defaults: build /tmp/loadscope-bench.bin 2 5
#
# Each round runs, in this order: fio io_uring (1 job, 2 jobs), fio psync
# (1 job), `loadscope load` (its read phase, arena prefaulted by the load),
# bench_load with the profiler on and off, and bench_baseline (malloc + one
# thread of 16 MiB preads + hash afterwards). fio runs with --invalidate=0
# so it reads the page cache like the loader. Prints medians and ratios.
# Keep FILE <= 4 GiB: the whole run should stay under 5 minutes. A tiny
# run (bench/smoke.sh): bench/compare_fio.sh BUILD /tmp/f.bin 0.0625 1.
set -euo pipefail
# The fields read below (read_gibps, wall_s, ...) are the verbose lines':
# the brief default keeps only a few (docs/log-format.md).
export LOADSCOPE=${LOADSCOPE:-verbose}
B=${1:-build}
F=${2:-/tmp/loadscope-bench.bin}
G=${3:-2}
R=${4:-5}
tool=$B/loadscope
bl=$B/bench/bench_load
bb=$B/bench/bench_baseline
for x in "$tool" "$bl" "$bb"; do
	[ -x "$x" ] || { echo "missing $x: build first (cmake --build $B)" >&2; exit 2; }
done
command -v fio >/dev/null || { echo "fio not installed" >&2; exit 2; }
[ -f "$F" ] || "$tool" load --make-test-file "$F" --gib "$G" >&2
size=$(stat -c %s "$F")
half=$((size / 2))
cat "$F" >/dev/null # into the page cache
out=$(mktemp)
trap 'rm -f "$out"' EXIT

fio_gibps() { # fio args... -> aggregate read GiB/s
	fio --output-format=json --group_reporting --invalidate=0 --rw=read --filename="$F" "$@" |
		python3 -c 'import json,sys; j=json.load(sys.stdin); print("%.3f" % (j["jobs"][0]["read"]["bw_bytes"]/2**30))'
}
field() { # key line -> value; a missing field stops the script
	local v
	v=$(sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" <<<"$2" | head -1)
	[ -n "$v" ] || { echo "compare_fio.sh: no $1= in: $2" >&2; exit 1; }
	echo "$v"
}
put() { # name key line: "name value" into the figures (a missing field stops the script)
	local v
	v=$(field "$2" "$3")
	echo "$1 $v" >>"$out"
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ) nproc=$(nproc) kernel=$(uname -r) file=$F bytes=$size rounds=$R" >&2
for r in $(seq 1 "$R"); do # v=$(...): a failed fio stops the script
	v=$(fio_gibps --name=u1 --ioengine=io_uring --iodepth=4 --bs=4M --numjobs=1 --size="$size")
	echo "fio_uring_1job $v" >>"$out"
	v=$(fio_gibps --name=u2 --ioengine=io_uring --iodepth=4 --bs=4M --numjobs=2 --size="$half" --offset_increment="$half")
	echo "fio_uring_2jobs $v" >>"$out"
	v=$(fio_gibps --name=p1 --ioengine=psync --bs=16M --numjobs=1 --size="$size")
	echo "fio_psync_1job $v" >>"$out"
	# The `loaded` line (docs/log-format.md); no such line is an error, not
	# an empty figure: set -e and pipefail stop the script here.
	l=$("$tool" load "$F" | grep '^\[loadscope[^]]*\] loaded ')
	put cli_read_gibps read_gibps "$l"
	put cli_wall_s wall_s "$l"
	l=$("$bl" "$F" once on)
	put lib_on_wall_s wall_s "$l"
	put lib_on_read_gibps read_gibps "$l"
	l=$("$bl" "$F" once off)
	put lib_off_wall_s wall_s "$l"
	l=$("$bb" "$F")
	put baseline_wall_s wall_s "$l"
	echo "round $r done" >&2
done

python3 - "$out" <<'PY'
import sys, statistics as st
v = {}
for line in open(sys.argv[1]):
    k, x = line.split()
    v.setdefault(k, []).append(float(x))
m = {k: st.median(x) for k, x in v.items()}
for k in sorted(m):
    print("%-18s median %8.3f   all %s" % (k, m[k], " ".join("%.3f" % y for y in v[k])))
best = max(m["fio_uring_1job"], m["fio_uring_2jobs"], m["fio_psync_1job"])
print("ratio read phase / best fio          %.3f  (target >= 0.95)" % (m["cli_read_gibps"] / best))
print("ratio lib read phase / best fio      %.3f" % (m["lib_on_read_gibps"] / best))
print("ratio baseline wall / loadscope wall %.3f  (target >= 1.5)" % (m["baseline_wall_s"] / m["lib_on_wall_s"]))
print("ratio profiler on / off wall         %.3f  (target <= 1.02)" % (m["lib_on_wall_s"] / m["lib_off_wall_s"]))
PY
