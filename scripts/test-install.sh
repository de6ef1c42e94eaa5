#!/usr/bin/env bash
# Installs the build of scripts/test.sh into a scratch prefix and builds the
# embedding example against it twice, as an engine would: through the CMake
# package (find_package(loadscope) -> loadscope::loadscope) and through
# pkg-config. Each build loads a small file and must print the loader's
# lines behind the engine's own prefix. Then the C++ example engine
# (examples/engine) through the package: its logger's levels, the load into
# its own buffer, its progress bar, and a cancel half way that must return
# -ECANCELED. Then checks the installed layout (the preload under
# lib/loadscope/, the .pc file's Requires.private), and builds tests/guest,
# a parent project that add_subdirectory()s this tree: it must configure
# without loadscope forcing a build type or defining its program, preload,
# tests or benchmarks, build and run, and its `cmake --install` must install
# nothing of loadscope's. The prefix is a scratch directory, outside the
# dynamic loader's search path, and no program here runs with
# LD_LIBRARY_PATH (it is unset): each finds libloadscope.so through the rpath
# its build gave it, as docs/building.md says to build one (CMake's build
# tree sets it; with pkg-config, -Wl,-rpath,$(pkg-config --variable=libdir
# loadscope)), and ldd must show the library taken from the prefix. A
# pkg-config build without the rpath must fail to start with the loader's
# "cannot open shared object file" (unless a copy in the loader's own path
# served it, which is said).
set -euo pipefail
unset LD_LIBRARY_PATH
cd "$(dirname "$0")/.."
build=${1:-build-test}
work=$(mktemp -d /tmp/loadscope-install.XXXXXX)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
"$build/loadscope" load --make-test-file "$work/weights.bin" --gib 0.0625 >/dev/null

echo "== examples/embed through find_package(loadscope)"
cmake -S examples/embed -B "$work/embed" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
ninja -C "$work/embed" >/dev/null
"$work/embed/engine" "$work/weights.bin" >"$work/cmake.out"
grep -q '^engine: \[loadscope/2\] loaded ' "$work/cmake.out" ||
	{ echo "no 'engine: [loadscope/2] loaded' line:"; cat "$work/cmake.out"; exit 1; }

echo "== examples/embed through pkg-config"
pc=$(dirname "$(find "$work/prefix" -name loadscope.pc | head -1)")
flags=$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs loadscope)
libdir=$(PKG_CONFIG_PATH=$pc pkg-config --variable=libdir loadscope)
# Without an rpath the loader cannot find the library under this prefix:
# the failure docs/building.md describes, shown to be real here.
# shellcheck disable=SC2086
cc -std=c11 -o "$work/engine-norpath" examples/embed/main.c $flags
if "$work/engine-norpath" "$work/weights.bin" >"$work/norpath.out" 2>&1; then
	# A libloadscope.so installed in the loader's own path (/usr/local/lib)
	# served it: say so; the ldd check below still holds the rpath build.
	echo "== NOTE: a build without an rpath started here (a libloadscope.so in the loader's path served it)"
else
	grep -q 'libloadscope\.so.*cannot open shared object file' "$work/norpath.out" ||
		{ echo "the build without an rpath failed otherwise than docs/building.md says:"; cat "$work/norpath.out"; exit 1; }
fi
# docs/building.md's command, exactly: the rpath from pkg-config's libdir.
# shellcheck disable=SC2086
cc -std=c11 -o "$work/engine-pc" examples/embed/main.c $flags -Wl,-rpath,"$libdir"
# Into a file first: grep -q stops reading at its match, and ldd's SIGPIPE
# would fail the pipeline under pipefail.
ldd "$work/engine-pc" >"$work/pc.ldd"
grep -q "libloadscope\.so[^ ]* => $libdir/" "$work/pc.ldd" ||
	{ echo "the rpath build does not take libloadscope.so from $libdir:"; cat "$work/pc.ldd"; exit 1; }
"$work/engine-pc" "$work/weights.bin" >"$work/pc.out"
grep -q '^engine: \[loadscope/2\] loaded ' "$work/pc.out" ||
	{ echo "no 'engine: [loadscope/2] loaded' line:"; cat "$work/pc.out"; exit 1; }
echo "== examples/engine (C++) through find_package(loadscope)"
cmake -S examples/engine -B "$work/engine" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
ninja -C "$work/engine" >/dev/null
"$work/engine/engine_cpp" "$work/weights.bin" >"$work/engine.out" 2>"$work/engine.err" ||
	{ echo "engine_cpp failed:"; cat "$work/engine.out" "$work/engine.err"; exit 1; }
# Its own logger and levels, the caller's memory, its bar, its table.
for want in '^myengine I: \[loadscope/2\] start engine_cpp: ' \
	'^myengine I: weights buffer: 67108864 bytes, ' \
	'^myengine I: \[loadscope/2\] complement ready: 0\.06 GiB read into memory allocated and pinned by the caller ' \
	'^myengine I: \[loadscope/2\] loaded 0\.06 GiB in .* allocate and pin by the caller, ' \
	'^myengine I: weights ready: 67108864 bytes read in ' \
	'^myengine I: startup: read  ' \
	'^myengine I: startup: unattributed '; do
	grep -q "$want" "$work/engine.out" ||
		{ echo "engine_cpp printed no line matching '$want':"; cat "$work/engine.out"; exit 1; }
done
grep -q '\] 100%$' "$work/engine.err" ||
	{ echo "engine_cpp drew no progress bar to 100%:"; cat "$work/engine.err"; exit 1; }
if grep -v '^myengine [INWE]: ' "$work/engine.out" | grep -q .; then
	echo "engine_cpp printed a line without its logger's prefix:"; cat "$work/engine.out"; exit 1
fi
rc=0
"$work/engine/engine_cpp" "$work/weights.bin" --cancel-half \
	>"$work/cancel.out" 2>/dev/null || rc=$?
[ "$rc" = 3 ] || { echo "engine_cpp --cancel-half exited $rc, not 3:"; cat "$work/cancel.out"; exit 1; }
grep -q '^myengine E: \[loadscope/2\] error cancel failed: .* err=ECANCELED\( \|$\)' "$work/cancel.out" &&
	grep -q '^myengine W: load cancelled at [0-9]* of 67108864 bytes: returned -ECANCELED$' "$work/cancel.out" &&
	! grep -q '\] loaded ' "$work/cancel.out" ||
	{ echo "engine_cpp --cancel-half: no cancel lines, or a loaded line:"; cat "$work/cancel.out"; exit 1; }


echo "== installed layout: the preload under lib/loadscope/, pkg-config Requires.private"
if [ -e "$build/libloadscope_kfdcount.so" ]; then
	find "$work/prefix" -path '*/loadscope/libloadscope_kfdcount.so' | grep -q . ||
		{ echo "the preload is not under lib/loadscope/:"; find "$work/prefix" -name '*kfdcount*'; exit 1; }
	if find "$work/prefix" -name 'libloadscope_kfdcount.so' -not -path '*/loadscope/*' | grep -q .; then
		echo "the preload is installed beside the libraries"; exit 1
	fi
fi
# The pages the remedies and `loadscope explain` name, under share/doc/loadscope.
[ -f "$work/prefix/share/doc/loadscope/troubleshooting.md" ] ||
	{ echo "share/doc/loadscope/troubleshooting.md is not installed"; find "$work/prefix/share" | head; exit 1; }
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
grep -q '^\[loadscope/2\] ready ' "$work/guest.out" ||
	{ echo "no '[loadscope/2] ready' line from the guest:"; cat "$work/guest.out"; exit 1; }
cmake --install "$work/guest" --prefix "$work/gprefix" >/dev/null
got=$(cd "$work/gprefix" && find . -type f -o -type l | sort | tr '\n' ' ')
[ "$got" = "./bin/guest " ] ||
	{ echo "the guest's install holds more than its own program: $got"; exit 1; }
echo "== installed package works through CMake and pkg-config; add_subdirectory is a good guest"
