#!/usr/bin/env bash
# Installs the build of scripts/test.sh into a scratch prefix and builds the
# embedding example against it twice, as an engine would: through the CMake
# package (find_package(loadscope) -> loadscope::loadscope) and through
# pkg-config. Each build loads a small file and must print the loader's
# lines behind the engine's own prefix. Then checks the installed layout
# (the preload under lib/loadscope/, the .pc file's Requires.private), and
# builds tests/guest, a parent project that add_subdirectory()s this tree:
# it must configure without loadscope forcing a build type or defining its
# program, preload, tests or benchmarks, build and run, and its
# `cmake --install` must install nothing of loadscope's.
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

echo "== installed layout: the preload under lib/loadscope/, pkg-config Requires.private"
if [ -e "$build/libloadscope_kfdcount.so" ]; then
	find "$work/prefix" -path '*/loadscope/libloadscope_kfdcount.so' | grep -q . ||
		{ echo "the preload is not under lib/loadscope/:"; find "$work/prefix" -name '*kfdcount*'; exit 1; }
	if find "$work/prefix" -name 'libloadscope_kfdcount.so' -not -path '*/loadscope/*' | grep -q .; then
		echo "the preload is installed beside the libraries"; exit 1
	fi
fi
req=$(PKG_CONFIG_PATH=$pc pkg-config --print-requires-private loadscope | tr '\n' ' ')
for m in liburing libxxhash numa; do
	case " $req " in *" $m "*) ;; *) echo "loadscope.pc: Requires.private lacks $m: $req"; exit 1 ;; esac
done
static=$(PKG_CONFIG_PATH=$pc pkg-config --static --libs loadscope)
for l in -luring -lxxhash -lnuma; do
	case " $static " in *" $l "*) ;; *) echo "pkg-config --static --libs lacks $l: $static"; exit 1 ;; esac
done

echo "== tests/guest: loadscope through add_subdirectory, as a guest"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake -S tests/guest -B "$work/guest" -G Ninja -DLOADSCOPE_SOURCE_DIR="$PWD" "${launcher[@]}" \
	>"$work/guest.cfg" 2>&1 || { cat "$work/guest.cfg"; exit 1; }
ninja -C "$work/guest" >/dev/null
"$work/guest/guest" >"$work/guest.out"
grep -q '^\[loadscope/1\] ready ' "$work/guest.out" ||
	{ echo "no '[loadscope/1] ready' line from the guest:"; cat "$work/guest.out"; exit 1; }
cmake --install "$work/guest" --prefix "$work/gprefix" >/dev/null
got=$(cd "$work/gprefix" && find . -type f -o -type l | sort | tr '\n' ' ')
[ "$got" = "./bin/guest " ] ||
	{ echo "the guest's install holds more than its own program: $got"; exit 1; }
echo "== installed package works through CMake and pkg-config; add_subdirectory is a good guest"
