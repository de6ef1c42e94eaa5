#!/bin/sh
# Triage throughput and memory: builds a mixed engine log of SIZE_MIB
# (default 1024) in /tmp from the corpus logs (strata, llama.cpp,
# ik_llama.cpp, vLLM, Run:ai, strace, loadscope human and JSON lines, in
# rounds), warms it into the page cache, then times `loadscope triage` over
# it RUNS times (default 3), reporting each run's MB/s and peak RSS (from
# /usr/bin/time -v, the child's ru_maxrss) and the medians. The goal
# (issue 4): >= 200 MB/s and <= 64 MiB resident whatever the log size.
#
#   bench/bench_triage.sh BUILD_DIR [SIZE_MIB] [RUNS]
#   PER_LOG=1 bench/bench_triage.sh BUILD_DIR [SIZE_MIB]   (then, per corpus
#     log, that log alone repeated to SIZE_MIB/8: which kind of line is slow)
#
#   BEFORE=OTHER_BUILD_DIR bench/bench_triage.sh BUILD_DIR [SIZE_MIB] [RUNS]
#     (the same log through OTHER_BUILD_DIR's loadscope too, interleaved:
#     before then after in odd rounds, after then before in even ones; the
#     medians of each and their ratio, after over before)
#
# The log is deleted afterwards; nothing is committed. MB = 10^6 bytes.
set -eu
B=${1:?usage: bench_triage.sh BUILD_DIR [SIZE_MIB] [RUNS]}
SIZE_MIB=${2:-1024}
RUNS=${3:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOL="$B/loadscope"
[ -x "$TOOL" ] || { echo "no $TOOL (build first)" >&2; exit 2; }
LOG=$(mktemp /tmp/lsc-triage-bench.XXXXXX)
trap 'rm -f "$LOG" "$LOG.round" "$LOG.time" "$LOG.tmp"' EXIT

# fill SRC BYTES OUT: OUT = SRC repeated to BYTES (doubling, then a prefix of
# itself; the last line may be cut, as in a real log that is still being written)
fill() {
	cp "$1" "$3"
	while [ $(( $(stat -c %s "$3") * 2 )) -le "$2" ]; do
		cat "$3" "$3" > "$3.tmp" && mv "$3.tmp" "$3"
	done
	rest=$(( $2 - $(stat -c %s "$3") ))
	[ $rest -gt 0 ] && head -c $rest "$3" > "$3.tmp" && cat "$3.tmp" >> "$3" && rm -f "$3.tmp"
	return 0
}

# one round: every corpus log once, in a fixed order
cat "$ROOT"/tests/corpus/logs/*.log > "$LOG.round"
ROUND=$(stat -c %s "$LOG.round")
WANT=$((SIZE_MIB * 1024 * 1024))
fill "$LOG.round" $WANT "$LOG"
SIZE=$(stat -c %s "$LOG")
cat "$LOG" > /dev/null # into the page cache: this measures the triage, not the disk

echo "log: $SIZE bytes (about $((SIZE / ROUND)) rounds of $ROUND bytes, $(ls "$ROOT"/tests/corpus/logs/*.log | wc -l) corpus logs)"
echo "command: $TOOL triage $LOG > /dev/null"
rates=""
rsss=""
cpus=""
brates=""
brsss=""
bcpus=""
# one timed run of $1 triage LOG: sets el, rss, us, sy, secs, rate
timed() {
	/usr/bin/time -v "$1" triage "$LOG" > /dev/null 2> "$LOG.time" || true
	el=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$LOG.time")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$LOG.time")
	secs=$(echo "$el" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
	rate=$(awk -v s="$SIZE" -v t="$secs" 'BEGIN { printf "%.1f", s / 1e6 / t }')
}
before() {
	[ -n "${BEFORE:-}" ] || return 0
	timed "$BEFORE/loadscope"
	us=$(sed -n 's/.*User time (seconds): //p' "$LOG.time")
	sy=$(sed -n 's/.*System time (seconds): //p' "$LOG.time")
	cpu=$(awk -v s="$SIZE" -v u="$us" -v y="$sy" 'BEGIN { printf "%.1f", s / 1e6 / (u + y) }')
	echo "run $i before ($BEFORE): ${secs} s wall (${us} s user + ${sy} s sys), ${rate} MB/s, ${cpu} MB/s per CPU second, peak RSS $((rss / 1024)) MiB"
	bcpus="$bcpus $cpu"
	brates="$brates $rate"
	brsss="$brsss $rss"
}
i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	[ $((i % 2)) = 1 ] && before
	/usr/bin/time -v "$TOOL" triage "$LOG" > /dev/null 2> "$LOG.time" || true
	el=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$LOG.time")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$LOG.time")
	secs=$(echo "$el" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
	us=$(sed -n 's/.*User time (seconds): //p' "$LOG.time")
	sy=$(sed -n 's/.*System time (seconds): //p' "$LOG.time")
	rate=$(awk -v s="$SIZE" -v t="$secs" 'BEGIN { printf "%.1f", s / 1e6 / t }')
	cpu=$(awk -v s="$SIZE" -v u="$us" -v y="$sy" 'BEGIN { printf "%.1f", s / 1e6 / (u + y) }')
	echo "run $i: ${secs} s wall (${us} s user + ${sy} s sys), ${rate} MB/s over the wall time, ${cpu} MB/s per CPU second, peak RSS $((rss / 1024)) MiB ($rss KiB)"
	cpus="$cpus $cpu"
	rates="$rates $rate"
	rsss="$rsss $rss"
	[ $((i % 2)) = 0 ] && before
done
if [ "${PER_LOG:-0}" = 1 ]; then
	echo "per log (each repeated to $((SIZE_MIB / 8)) MiB, one run):"
	for f in "$ROOT"/tests/corpus/logs/*.log; do
		fill "$f" $((WANT / 8)) "$LOG"
		sz=$(stat -c %s "$LOG")
		/usr/bin/time -v "$TOOL" triage "$LOG" > /dev/null 2> "$LOG.time" || true
		us=$(sed -n 's/.*User time (seconds): //p' "$LOG.time")
		sy=$(sed -n 's/.*System time (seconds): //p' "$LOG.time")
		rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$LOG.time")
		awk -v n="$(basename "$f")" -v s="$sz" -v u="$us" -v y="$sy" -v r="$rss" \
			'BEGIN { printf "  %-40s %8.1f MB/s per CPU second, peak RSS %d MiB\n", n, s / 1e6 / (u + y + 1e-9), r / 1024 }'
	done
fi
med() { echo "$@" | tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "median: $(med $rates) MB/s over the wall time ($(med $cpus) MB/s per CPU second), peak RSS $(( $(med $rsss) / 1024 )) MiB (goal >= 400 MB/s, <= 64 MiB)"
if [ -n "${BEFORE:-}" ]; then
	echo "before ($BEFORE): median $(med $brates) MB/s over the wall time ($(med $bcpus) MB/s per CPU second), peak RSS $(( $(med $brsss) / 1024 )) MiB;" \
		"after/before = $(awk -v a="$(med $rates)" -v b="$(med $brates)" 'BEGIN { printf "%.2f", a / b }') over the wall time," \
		"$(awk -v a="$(med $cpus)" -v b="$(med $bcpus)" 'BEGIN { printf "%.2f", a / b }') per CPU second"
fi
