#!/usr/bin/env bash
# Regenerates the example lines of README.md ("What it prints") from a real
# run: the demo's load (`loadscope load FILE --pin mlock`, scripts/demo.sh)
# of a small test file, every line but `start` and `system`, written in full
# between the two marker comments. tests/test_docs.c runs the same load and
# fails when the README's lines no longer have the program's shape (events,
# and keys per event, in order), so a line format change shows up as a
# README that needs this script run again.
#   scripts/readme-example.sh [PATH/TO/loadscope]   (default build-dev/loadscope)
# Size: LOADSCOPE_README_GIB (default 0.125, the test's size).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build-dev/loadscope}
gib=${LOADSCOPE_README_GIB:-0.125}
[ -x "$bin" ] || { echo "readme-example.sh: no $bin (build it first)" >&2; exit 1; }
dir=$(mktemp -d /tmp/loadscope-readme.XXXXXX)
trap 'rm -rf "$dir"' EXIT
"$bin" load --make-test-file "$dir/demo.bin" --gib "$gib" >/dev/null
env -u LOADSCOPE "$bin" load "$dir/demo.bin" --pin mlock >"$dir/out" 2>&1
grep '^\[loadscope/' "$dir/out" | grep -v '^\[loadscope/[0-9]*\] \(start\|system\) ' |
	sed "s|$dir/|/tmp/|g" >"$dir/lines"
machine="$(nproc) vCPUs, kernel $(uname -r | cut -d. -f1-2), THP \`$(sed 's/.*\[\(.*\)\].*/\1/' \
	/sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo n/a)\`/\`$(sed 's/.*\[\(.*\)\].*/\1/' \
	/sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null || echo n/a)\`"
python3 - "$dir/lines" "$gib" "$machine" <<'PY'
import sys
lines, gib, machine = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
begin, end = "<!-- readme-example:begin -->", "<!-- readme-example:end -->"
s = open("README.md").read()
a, b = s.index(begin), s.index(end)
block = (begin + "\n"
         "`scripts/readme-example.sh` on a VM (" + machine + "): the\n"
         "demo's load of a " + gib + " GiB test file (`loadscope load FILE --pin mlock`),\n"
         "every line after `start` and `system`:\n\n```\n" + lines + "```\n")
open("README.md", "w").write(s[:a] + block + s[b:])
PY
