#!/bin/sh
# Capture the corpus logs that hold this project's own lines from REAL runs of
# the built `loadscope load` on this machine (issue 4: "capture them from real
# runs, do not hand-write them"). Not run by CI: the figures change with every
# run, so rerunning it means re-reviewing the goldens (tests/corpus/regen.sh).
#
#   tests/corpus/gen/capture.sh BUILD_DIR      (as root or not; needs capsh)
#
# The test file lives in a scratch directory and the paths in the captured
# lines are rewritten to /models/weights.bin (anonymised, stable goldens).
# Failure paths are reached for real: a seccomp filter refuses io_uring or
# O_DIRECT (gen/deny.c), capsh drops CAP_IPC_LOCK so RLIMIT_MEMLOCK applies
# to mlock, and --thp hugetlb meets the machine's empty hugetlb pool.
set -eu
BUILD=$(cd "${1:?usage: capture.sh BUILD_DIR}" && pwd)
L="$BUILD/loadscope"
HERE=$(cd "$(dirname "$0")" && pwd)
OUT="$HERE/../logs"
SCRATCH=$(mktemp -d /tmp/lsc-corpus.XXXXXX)
trap 'rm -rf "$SCRATCH"' EXIT
W="$SCRATCH/weights.bin"

cc -O2 -Wall -o "$SCRATCH/deny" "$HERE/deny.c"
"$L" load --make-test-file "$W" --gib 1 > "$SCRATCH/made.txt"
XXH=$(sed -n 's/.*xxh3=\([0-9a-f]*\).*/\1/p' "$SCRATCH/made.txt")

anon() { sed -e "s#$SCRATCH/weights.bin#/models/weights.bin#g" -e "s#$SCRATCH#/models#g"; }
# cmd ARGS...: the shell line a user would paste above the output, then the output
run() { echo "\$ loadscope load $*" | anon; "$L" load "$@" 2>&1 | anon || true; }

# healthy, human lines, auto policy, verified against the file's hash
run "$W" --thp auto --expect "$XXH" > "$OUT/loadscope-load-auto.log"
# healthy, JSON lines, 4 KiB pages (the read faults the arena in: slow-looking, from the page cache)
LOADSCOPE=json run "$W" --thp 4k --format json > "$OUT/loadscope-load-json-4k.log"
# an interleaved A/B over 8 starts: THP requested vs 4 KiB pages, 4 each
: > "$OUT/loadscope-ab-thp-vs-4k.log"
for i in 1 2 3 4; do
	run "$W" --thp thp >> "$OUT/loadscope-ab-thp-vs-4k.log"
	run "$W" --thp 4k >> "$OUT/loadscope-ab-thp-vs-4k.log"
done
# io_uring refused by seccomp -> pread
{ echo "\$ docker run --security-opt seccomp=default.json ... loadscope load /models/weights.bin"
  "$SCRATCH/deny" io_uring "$L" load "$W" --thp 4k 2>&1 | anon; } > "$OUT/loadscope-io-uring-denied.log"
# O_DIRECT refused with EINVAL -> buffered
{ echo "\$ loadscope load /models/weights.bin --direct"
  "$SCRATCH/deny" o_direct "$L" load "$W" --thp 4k --direct 2>&1 | anon; } > "$OUT/loadscope-direct-refused.log"
# O_DIRECT that works (near miss)
run "$W" --thp 4k --direct > "$OUT/loadscope-direct-ok.log"
# mlock over RLIMIT_MEMLOCK (8 MiB) without CAP_IPC_LOCK -> pin none
{ echo "\$ ulimit -l 8192; loadscope load /models/weights.bin --pin mlock"
  capsh --drop=cap_ipc_lock -- -c "ulimit -l 8192; '$L' load '$W' --thp 4k --pin mlock" 2>&1 | anon; } \
	> "$OUT/loadscope-mlock-over-limit.log"
# hugetlb asked for, the pool is empty -> falls back
run "$W" --thp hugetlb > "$OUT/loadscope-hugetlb-empty-pool.log"
# a wrong expected hash -> verify fails, the load exits 1
run "$W" --thp 4k --expect 0123456789abcdef > "$OUT/loadscope-verify-mismatch.log"
# the probe, for a 40 GiB arena (warns on this 24 GiB machine) and a 1 GiB one (nothing to say)
{ echo "\$ loadscope probe --arena-gib 40"; "$L" probe --arena-gib 40 2>&1 | anon; } > "$OUT/loadscope-probe-40g.log"
{ echo "\$ loadscope probe --arena-gib 1"; "$L" probe --arena-gib 1 2>&1 | anon; } > "$OUT/loadscope-probe-1g.log"
# free page reporting (a VM whose balloon reports free pages): a 2 GiB file, 5 s idle before
# each start so the host has taken the memory back; then a start right after another (near miss)
W2="$SCRATCH/2g/weights.bin"
mkdir -p "$SCRATCH/2g"
"$L" load --make-test-file "$W2" --gib 2 > /dev/null
anon2() { sed -e "s#$W2#/models/weights.bin#g"; }
for thp in thp 4k; do
	{ echo "\$ sleep 5; loadscope load /models/weights.bin --pin mlock --thp $thp"; sleep 5
	  "$L" load "$W2" --pin mlock --thp $thp 2>&1 | anon2 || true; } > "$OUT/loadscope-host-refault-$thp.log"
done
"$L" load "$W2" --pin mlock --thp thp > /dev/null 2>&1 || true
{ echo "\$ loadscope load /models/weights.bin --pin mlock --thp thp   # right after another load"
  "$L" load "$W2" --pin mlock --thp thp 2>&1 | anon2 || true; } > "$OUT/loadscope-host-refault-fast.log"
{ echo "\$ loadscope probe --arena-gib 2"; "$L" probe --arena-gib 2 2>&1 | anon || true; } \
	> "$OUT/loadscope-probe-host-refault.log"
echo "captured into $OUT"
