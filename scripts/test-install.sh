#!/usr/bin/env bash
# Installs the build of scripts/test.sh into a scratch prefix and builds the
# embedding example against it twice, as an engine would: through the CMake
# package (find_package(loadscope) -> loadscope::loadscope) and through
# pkg-config. Each build loads a small file and must print the loader's
# lines behind the engine's own prefix.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-test}
work=$(mktemp -d /tmp/loadscope-install.XXXXXX)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
"$build/loadscope" load --make-test-file "$work/weights.bin" --gib 0.0625 >/dev/null

echo "== examples/embed through find_package(loadscope)"
cmake -S examples/embed -B "$work/embed" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
ninja -C "$work/embed" >/dev/null
LD_LIBRARY_PATH=$(dirname "$(find "$work/prefix" -name 'libloadscope.so' | head -1)") \
	"$work/embed/engine" "$work/weights.bin" >"$work/cmake.out"
grep -q '^engine: \[loadscope/1\] loaded ' "$work/cmake.out" ||
	{ echo "no 'engine: [loadscope/1] loaded' line:"; cat "$work/cmake.out"; exit 1; }

echo "== examples/embed through pkg-config"
pc=$(dirname "$(find "$work/prefix" -name loadscope.pc | head -1)")
flags=$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs loadscope)
# shellcheck disable=SC2086
cc -std=c11 -o "$work/engine-pc" examples/embed/main.c $flags
LD_LIBRARY_PATH=$(PKG_CONFIG_PATH=$pc pkg-config --variable=libdir loadscope) \
	"$work/engine-pc" "$work/weights.bin" >"$work/pc.out"
grep -q '^engine: \[loadscope/1\] loaded ' "$work/pc.out" ||
	{ echo "no 'engine: [loadscope/1] loaded' line:"; cat "$work/pc.out"; exit 1; }
echo "== installed package works through CMake and pkg-config"
