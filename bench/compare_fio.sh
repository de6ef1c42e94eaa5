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
# Keep FILE <= 4 GiB: the whole run should stay under 5 minutes.
set -euo pipefail
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
field() { # key line -> value
	sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" <<<"$2" | head -1
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ) nproc=$(nproc) kernel=$(uname -r) file=$F bytes=$size rounds=$R" >&2
for r in $(seq 1 "$R"); do
	echo "fio_uring_1job $(fio_gibps --name=u1 --ioengine=io_uring --iodepth=4 --bs=4M --numjobs=1 --size="$size")" >>"$out"
	echo "fio_uring_2jobs $(fio_gibps --name=u2 --ioengine=io_uring --iodepth=4 --bs=4M --numjobs=2 --size="$half" --offset_increment="$half")" >>"$out"
	echo "fio_psync_1job $(fio_gibps --name=p1 --ioengine=psync --bs=16M --numjobs=1 --size="$size")" >>"$out"
	l=$("$tool" load "$F" | grep 'loaded loaded' || true)
	echo "cli_read_gibps $(field read_gibps "$l")" >>"$out"
	echo "cli_wall_s $(field wall_s "$l")" >>"$out"
	l=$("$bl" "$F" once on)
	echo "lib_on_wall_s $(field wall_s "$l")" >>"$out"
	echo "lib_on_read_gibps $(field read_gibps "$l")" >>"$out"
	l=$("$bl" "$F" once off)
	echo "lib_off_wall_s $(field wall_s "$l")" >>"$out"
	l=$("$bb" "$F")
	echo "baseline_wall_s $(field wall_s "$l")" >>"$out"
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
