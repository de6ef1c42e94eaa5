#!/usr/bin/env bash
# Builds the ggml integration's outside dependency once: ggml's CPU backend
# from a ggml source tree (default ../shared/ggml), installed into
# build-ggml/prefix, so that every build of the suite (normal, ASan) links
# the same ggml instead of building it again. Prints the ggml_DIR to pass
# to CMake. Kept when the source tree's SNAPSHOT/commit and this script are
# unchanged. Exit 77 (a loud skip for the caller) when there is no tree.
#
#   scripts/ggml.sh [GGML_SOURCE_DIR]  ->  /abs/build-ggml/prefix/lib/cmake/ggml
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:-../shared/ggml}
[ -f "$src/CMakeLists.txt" ] || { echo "ggml.sh: no ggml source tree at $src" >&2; exit 77; }
src=$(cd "$src" && pwd)
out=$PWD/build-ggml
stamp="$src $(cat "$src/SNAPSHOT.md" 2>/dev/null | md5sum | cut -c1-12) $(md5sum <"$0" | cut -c1-12)"
if [ -f "$out/prefix/lib/cmake/ggml/ggml-config.cmake" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "$out/prefix/lib/cmake/ggml"
	exit 0
fi
rm -rf "$out" && mkdir -p "$out"
# The CPU backend only: no GPU is on the machines the suite runs on
# (docs/embedding.md, "With ggml").
cmake -S "$src" -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_BUILD_TESTS=OFF \
	-DGGML_BUILD_EXAMPLES=OFF -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=ON \
	-DCMAKE_INSTALL_PREFIX="$out/prefix" >"$out/configure.log" 2>&1 ||
	{ cat "$out/configure.log" >&2; exit 1; }
ninja -C "$out/build" -j"$(nproc)" >"$out/build.log" 2>&1 || { tail -50 "$out/build.log" >&2; exit 1; }
cmake --install "$out/build" >"$out/install.log" 2>&1 || { cat "$out/install.log" >&2; exit 1; }
echo "$stamp" >"$out/stamp"
echo "$out/prefix/lib/cmake/ggml"
