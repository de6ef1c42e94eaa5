#!/usr/bin/env bash
# The benchmark suite of issue 9 in one command; a Markdown table last.
#
#   bench/run.sh [--quick] [--build DIR] [--gib G] [--rounds R] [--idle S]
#                [--states clean,partial,heavy] [--out DIR] [--keep-free GIB]
#   defaults: --build build-dev --gib 2 --rounds 4 --idle 5, all three states,
#   raw outputs under a new /tmp/loadscope-bench.XXXXXX (kept, named at the end)
#
# 1. The THP policy matrix: the whole arena fill (allocate with its
#    prefault, then the read of a G-GiB file from the page cache) for thp,
#    4k, process-off, hugetlb (only where the pool's free pages cover the
#    arena: this never reserves one, it says so) and auto, R rounds in the
#    order of a Williams square (bench_fill: in 4 rounds every variant runs
#    first once and right after each other once), S seconds idle before
#    each load so that on a guest with free page reporting every variant
#    starts on memory the host has taken back (docs/benchmarks.md, "Host
#    refault"), in three states:
#    - clean: as the machine is;
#    - partial: `loadscope lab fragment --drain --leave 0.85xG` in the
#      background over MemFree less that level and 0.3 GiB, draining only
#      down to 0.85 x G free in 2 MiB blocks, a level it holds: the free
#      blocks a little short of the arena, the page cache left as it was;
#    - heavy: `lab fragment --drain` over nearly all of MemAvailable (less
#      --keep-free, default 3 GiB, for the rest of the machine): the free
#      2 MiB blocks left, and those that reclaim builds while it holds, are
#      taken too, so that compaction has nothing to build blocks from (seed
#      001's state: compact_stall == compact_fail).
#    After the lab holds, the file is read again into the page cache (the
#    lab's faults pushed some of it out), so that no variant reads the disk.
#    The lab is killed with SIGTERM after each state, and on any exit of
#    this script. It never drops the page cache (a system setting; what
#    that changes: docs/reproduce.md); the table says how much was cached.
# 2. The read phase's limit, in the same run: memcpy into a prefaulted
#    buffer on one thread and on every CPU, and XXH3's rate (bench_limit).
# 3. The profiler's overhead (bench_profiler) and the triage's throughput
#    (bench/bench_triage.sh).
# Medians of interleaved runs; every ratio is between figures of this run.
#
# --quick: a tiny size of everything (64 MiB file, 1 round, no idle, small
# fragmenters that exercise the lab path without reaching the states), for
# CI (bench/smoke.sh): under a minute, and any error fails it.
#
# It stresses the machine on purpose in the fragmented states (huge pages
# are scarce for every program while the lab holds). Exit: 0 done, 1 a
# benchmark failed, 2 not built, 64 usage.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=build-dev GIB=2 ROUNDS=4 IDLE=5 QUICK=0 STATES=clean,partial,heavy OUT= KEEP=3
usage() { sed -n '2,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 64; }
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1 ;;
	--build) BUILD=${2:?}; shift ;;
	--gib) GIB=${2:?}; shift ;;
	--rounds) ROUNDS=${2:?}; shift ;;
	--idle) IDLE=${2:?}; shift ;;
	--states) STATES=${2:?}; shift ;;
	--out) OUT=${2:?}; shift ;;
	--keep-free) KEEP=${2:?}; shift ;;
	-h | --help) usage ;;
	*) echo "run.sh: unknown argument $1" >&2; usage ;;
	esac
	shift
done
if [ $QUICK = 1 ]; then
	GIB=0.0625 ROUNDS=1 IDLE=0 PROF=200 TRIAGE_MIB=4 TRIAGE_RUNS=1 LIMIT_MIB=64 LIMIT_ROUNDS=1
else
	PROF=20000 TRIAGE_MIB=1024 TRIAGE_RUNS=3 LIMIT_MIB=2048 LIMIT_ROUNDS=5
fi
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
TOOL=$BUILD/loadscope
for x in "$TOOL" "$BUILD"/bench/bench_fill "$BUILD"/bench/bench_limit "$BUILD"/bench/bench_profiler; do
	[ -x "$x" ] || { echo "run.sh: missing $x: build first (ninja -C $BUILD)" >&2; exit 2; }
done
OUT=${OUT:-$(mktemp -d /tmp/loadscope-bench.XXXXXX)}
mkdir -p "$OUT"
FILE=$OUT/weights.bin
say() { echo "== $*" >&2; }
gib() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1073741824 }'; }

# Free memory in blocks of the huge-page order and up, and in smaller ones
# (bytes), from /proc/buddyinfo: "free2m smaller".
HP_ORDER=$(awk '{ o = 0; for (s = $1 / 4096; s > 1; s /= 2) o++; print o }' \
	/sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null || echo 9)
buddy() {
	awk -v h="$HP_ORDER" '/zone/ { for (i = 5; i <= NF; i++) { o = i - 5; b = $i * 4096 * 2 ^ o;
		if (o >= h) big += b; else small += b } } END { printf "%.0f %.0f\n", big, small }' /proc/buddyinfo
}
meminfo() { awk -v k="$1:" '$1 == k { print $2 * 1024 }' /proc/meminfo; }

LAB_PIDS=()
lab_stop() {
	local p
	for p in ${LAB_PIDS[@]+"${LAB_PIDS[@]}"}; do kill -TERM "$p" 2>/dev/null || true; done
	for p in ${LAB_PIDS[@]+"${LAB_PIDS[@]}"}; do wait "$p" 2>/dev/null || true; done
	LAB_PIDS=()
}
trap lab_stop EXIT
# lab_start GIB LOG [OPTION...]: a fragmenter holding in the background;
# returns once it holds (its `holding` line), 1 when it could not (its
# output says why).
lab_start() {
	local g=$1 log=$2
	shift 2
	"$TOOL" lab fragment --gib "$g" --keep-free "$KEEP" "$@" >"$log" 2>&1 &
	local pid=$! waited=0
	while ! grep -q '^holding' "$log"; do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid" || true
			return 1
		fi
		sleep 0.2 # polling a child's output, not synchronising a test
		waited=$((waited + 1))
		[ $waited -lt 3000 ] || { kill -TERM "$pid"; wait "$pid" || true; return 1; }
	done
	LAB_PIDS+=("$pid")
}

say "$(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -r), $(nproc) CPUs, $(gib "$(meminfo MemTotal)") GiB;" \
	"THP $(cat /sys/kernel/mm/transparent_hugepage/enabled) defrag $(cat /sys/kernel/mm/transparent_hugepage/defrag);" \
	"load average $(cut -d' ' -f1-3 /proc/loadavg); outputs in $OUT"
"$TOOL" load --make-test-file "$FILE" --gib "$GIB" >&2
ARENA=$(stat -c %s "$FILE")
cat "$FILE" >/dev/null # into the page cache: the read phase reads memory, not the disk

# 1. The read phase's limit, first, on an idle machine (no lab holding).
say "bench_limit $LIMIT_MIB $LIMIT_ROUNDS"
"$BUILD"/bench/bench_limit "$LIMIT_MIB" "$LIMIT_ROUNDS" | tee "$OUT/limit.txt" >&2

# 2. The matrix, state by state.
: >"$OUT/matrix.txt"
for state in ${STATES//,/ }; do
	lab_gib= lab_opt=()
	case $state in
	clean) ;;
	partial)
		# the drain stops while 0.85 x the arena is free in 2 MiB blocks,
		# and holds that level (lab --leave). The fragmenter covers MemFree
		# less that level and 0.3 GiB (or heavy's size, if smaller), not
		# MemAvailable: its 4 KiB faults take the small free blocks first,
		# then 2 MiB ones, so about the level is left and no page cache is
		# pushed out (one of heavy's size left 0.41 GiB, under the level:
		# the state was heavy's)
		leave=$(awk -v a="$ARENA" 'BEGIN { printf "%.3f", 0.85 * a / 1073741824 }')
		if [ $QUICK = 1 ]; then
			lab_gib=0.125 lab_opt=(--drain --drain-max 0.0625 --leave "$leave")
		else
			lab_gib=$(awk -v m="$(meminfo MemAvailable)" -v f="$(meminfo MemFree)" -v k="$KEEP" -v l="$leave" \
				'BEGIN { a = m / 1073741824 - k - 0.5; b = f / 1073741824 - l - 0.3
				         printf "%.2f", a < b ? a : b }')
			lab_opt=(--drain --leave "$leave")
		fi
		;;
	heavy)
		lab_opt=(--drain)
		if [ $QUICK = 1 ]; then
			lab_gib=0.25 lab_opt=(--drain --drain-max 0.125)
		else # nearly all of MemAvailable, the page cache included (faulting it
			# pushes clean cache out: less for reclaim to build blocks from),
			# less --keep-free and 0.5 GiB; the arena then lives in the holes
			lab_gib=$(awk -v m="$(meminfo MemAvailable)" -v k="$KEEP" \
				'BEGIN { printf "%.2f", m / 1073741824 - k - 0.5 }')
		fi
		;;
	*) echo "run.sh: unknown state $state" >&2; exit 64 ;;
	esac
	if [ -n "$lab_gib" ]; then
		say "$state: loadscope lab fragment --gib $lab_gib --keep-free $KEEP ${lab_opt[*]}"
		if ! lab_start "$lab_gib" "$OUT/lab-$state.txt" "${lab_opt[@]}"; then
			cat "$OUT/lab-$state.txt" >&2
			say "SKIPPED state $state: the lab could not fragment here (above)"
			continue
		fi
		grep -E '^(before|after|fragmented|drained):.*GiB' "$OUT/lab-$state.txt" >&2 || true
	fi
	cat "$FILE" >/dev/null
	read -r big small < <(buddy)
	cached=$(meminfo Cached)
	say "$state: free in 2 MiB blocks $(gib "$big") GiB, in smaller blocks $(gib "$small") GiB, page cache $(gib "$cached") GiB; bench_fill $FILE $ROUNDS $IDLE"
	"$BUILD"/bench/bench_fill "$FILE" "$ROUNDS" "$IDLE" >"$OUT/fill-$state.txt"
	cat "$OUT/fill-$state.txt" >&2
	sed -n "s/^summary /summary state=$state free2m_gib=$(gib "$big") cached_gib=$(gib "$cached") lab_gib=${lab_gib:-0} /p" \
		"$OUT/fill-$state.txt" >>"$OUT/matrix.txt"
	sed -n "s/^skip /skip state=$state /p" "$OUT/fill-$state.txt" >>"$OUT/matrix.txt"
	lab_stop
done

# 3. The profiler and the triage.
say "bench_profiler $PROF"
"$BUILD"/bench/bench_profiler "$PROF" | tee "$OUT/profiler.txt" >&2
say "bench/bench_triage.sh $BUILD $TRIAGE_MIB $TRIAGE_RUNS"
"$ROOT"/bench/bench_triage.sh "$BUILD" "$TRIAGE_MIB" "$TRIAGE_RUNS" | tee "$OUT/triage.txt" >&2
rm -f "$FILE"

# The table, last.
python3 - "$OUT" "$ARENA" "$ROUNDS" "$IDLE" "$QUICK" <<'PY'
import re, sys
out, arena, rounds, idle, quick = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5] == "1"
kv = lambda l: dict(re.findall(r'(\w+)=("[^"]*"|\S+)', l))
rows = [kv(l) for l in open(out + "/matrix.txt") if l.startswith("summary")]
skips = [l.strip() for l in open(out + "/matrix.txt") if l.startswith("skip")]
states = list(dict.fromkeys(r["state"] for r in rows))
print("\n### THP policy matrix: arena fill of %.2f GiB, median of %s rounds interleaved, %s s idle before each\n"
      % (arena / 2**30, rounds, idle))
print("| state | free 2 MiB blocks GiB: state, at the loads | policy | fill s | vs best | allocate s | read s | read GiB/s | huge GiB | compact_stall | compact_fail | auto switched |")
print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
fill = {}
for s in states:
    rs = [r for r in rows if r["state"] == s]
    best = min(float(r["fill_s"]) for r in rs)
    for r in rs:
        f = float(r["fill_s"]); fill[(s, r["variant"])] = f
        print("| %s | %s, %s | %s | %.3f | %.2f | %s | %s | %s | %s | %s | %s | %s |" % (
            s, r["free2m_gib"], r.get("free2m_before_gib", "n/a"), r["variant"], f, f / best, r["alloc_s"], r["read_s"], r["read_gibps"],
            r["huge_gib"], r["compact_stall"], r["compact_fail"],
            r["switched"] if r["variant"] == "auto" else ""))
for l in sorted(set(re.sub(r"state=\S+ ", "", l) for l in skips)):
    print("\n" + l)
print("\n### Goals (issue 9), from the fills above%s\n" % (
    " (--quick: sizes far too small to judge them; this only proves the suite runs)" if quick else ""))
print("| goal | measured | met? |\n| --- | ---: | --- |")
def g(s, v): return fill.get((s, v))
for s in states:
    a = g(s, "auto")
    best = min(f for (t, v), f in fill.items() if t == s and v != "auto")
    if a: print("| %s: auto within 1.15 x the best fixed policy | %.2f | %s |" % (s, a / best, "yes" if a <= 1.15 * best else "no"))
if g("heavy", "auto") and g("heavy", "thp"):
    r = g("heavy", "thp") / g("heavy", "auto")
    print("| heavy: auto >= 4 x faster than thp | %.2f | %s |" % (r, "yes" if r >= 4 else "no"))
if g("partial", "auto"):
    a = g("partial", "auto")
    print("| partial: auto faster than 4k and thp | 4k/auto %.2f, thp/auto %.2f | %s |" % (
        g("partial", "4k") / a, g("partial", "thp") / a, "yes" if a < g("partial", "4k") and a < g("partial", "thp") else "no"))
lim = [kv(l) for l in open(out + "/limit.txt") if l.startswith("limit")]
print("\n### The read phase against the machine's limit (same run)\n")
print("| measurement | GiB/s (median) |\n| --- | ---: |")
for l in lim:
    print("| %s, %s thread(s), %s MiB buffers | %s |" % (l["what"], l["threads"], l["mib"], l["gibps"]))
mc = max([float(l["gibps"]) for l in lim if l["what"] == "memcpy"] or [0])
rd = max([float(r["read_gibps"]) for r in rows] or [0])
if mc: print("| best read phase of the matrix (%.2f GiB/s) / best memcpy | %.2f |" % (rd, rd / mc))
print("\n### Profiler and triage (same run)\n")
for l in open(out + "/profiler.txt"):
    if l.startswith("| span begin+end, profiler on") or l.startswith("| system snapshot"):
        c = [x.strip() for x in l.strip().strip("|").split("|")]
        print("- %s: median %s us, p99 %s us" % (c[0], c[1], c[2]))
for l in open(out + "/triage.txt"):
    if l.startswith("median:"): print("- triage " + l.strip())
print("\nraw outputs: %s" % out)
PY
