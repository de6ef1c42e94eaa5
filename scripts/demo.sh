#!/usr/bin/env bash
# The README's main job: build loadscope, show what this machine would do to
# a large pinned arena (probe), make a test file, and load it as an engine
# would, printing the startup lines. Size: LOADSCOPE_DEMO_GIB (default 2).
# Arguments go to `loadscope load` (default: --pin mlock, page-locking the
# arena as an engine's GPU runtime would; e.g. --thp 4k --pin none).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh

gib=${LOADSCOPE_DEMO_GIB:-2}
dir=build-demo
if [ ! -f "$dir/build.ninja" ]; then
	cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOADSCOPE_BUILD_TESTS=OFF >"$dir.configure.log" 2>&1 ||
		{ cat "$dir.configure.log"; exit 1; }
fi
ninja -C "$dir" loadscope_tool >/dev/null

file=${LOADSCOPE_DEMO_FILE:-/var/tmp/loadscope-demo-${gib}g.bin}
echo "== loadscope probe --arena-gib $gib"
"$dir/loadscope" probe --arena-gib "$gib" || true
if [ ! -s "$file" ]; then
	echo "== making a ${gib} GiB test file: $file"
	"$dir/loadscope" load --make-test-file "$file" --gib "$gib"
fi
[ $# -gt 0 ] || set -- --pin mlock
echo "== loadscope load $file $*"
exec "$dir/loadscope" load "$file" "$@"
