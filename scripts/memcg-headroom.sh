#!/usr/bin/env bash
# How much a load needs beside its arena in a memory cgroup: loads of each
# SIZE MiB (arguments, default 384 416 448 464 480 496) with the memory
# guard off, in a 512 MiB cgroup of this script's own (a child of its v1
# memory cgroup, or of its v2 cgroup's parent where the memory controller
# is given to children), LOADSCOPE_HEADROOM_RUNS rounds (default 6)
# interleaved, every other round with the file's page cache dropped first
# (posix_fadvise DONTNEED, no system setting). Prints "SIZE exit" per load
# (137: killed by the cgroup's OOM killer) and a count per size: the
# figures behind the guard's cgroup reserve (docs/reliability.md). Needs
# root (to make the cgroup) and the program built: LOADSCOPE_BIN (default
# build/loadscope).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${LOADSCOPE_BIN:-build/loadscope}
runs=${LOADSCOPE_HEADROOM_RUNS:-6}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(384 416 448 464 480 496)
own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
if [ -n "$own" ] && [ -d "/sys/fs/cgroup/memory$own" ]; then
	cg=/sys/fs/cgroup/memory$own/loadscope-headroom-$$
	limit=memory.limit_in_bytes
else
	own=$(awk -F: '$1 == 0 {print $3}' /proc/self/cgroup)
	parent=/sys/fs/cgroup${own%/*}
	grep -qw memory "$parent/cgroup.subtree_control" ||
		{ echo "no memory cgroup of our own can be made here" >&2; exit 77; }
	cg=$parent/loadscope-headroom-$$
	limit=memory.max
fi
mkdir "$cg"
trap 'rmdir "$cg"' EXIT
echo 536870912 >"$cg/$limit"
tmp=$(mktemp -d /var/tmp/loadscope-headroom.XXXXXX)
trap 'rmdir "$cg"; rm -rf "$tmp"' EXIT
for m in "${sizes[@]}"; do
	"$bin" load --make-test-file "$tmp/$m.bin" --gib "$(awk "BEGIN {print $m / 1024}")" >/dev/null
done
for ((i = 1; i <= runs; i++)); do
	for m in "${sizes[@]}"; do
		if ((i % 2 == 0)); then
			python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$tmp/$m.bin"
		fi
		rc=0
		(echo 0 >"$cg/cgroup.procs"; LOADSCOPE_ARENA_MEM_CHECK=0 exec "$bin" load "$tmp/$m.bin" >/dev/null 2>&1) 2>/dev/null || rc=$?
		echo "$m $rc"
	done
done | tee "$tmp/out"
echo "== size: loaded / killed of $runs"
for m in "${sizes[@]}"; do
	echo "$m MiB: $(grep -c "^$m 0\$" "$tmp/out" || true) / $(grep -c "^$m 137\$" "$tmp/out" || true)"
done
