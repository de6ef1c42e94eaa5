#!/usr/bin/env bash
# The lines of src/ and tools/ that no test runs: a mutant planted on one of
# them survives whatever it does, so they are where the random mutation
# sample's survivors come from first. Builds the tree with --coverage in a
# directory of its own, runs the whole suite, and prints per file the lines
# gcov saw executable and the ones it never saw run, worst first; with
# -l, every such line with its text.
#
#   scripts/coverage.sh [-d DIR] [-l] [-n FILES]
#
#   -d  the build directory (default ${TMPDIR:-/tmp}/loadscope-coverage); kept
#       between runs, its counters zeroed before each
#   -l  list the lines no test ran, under each file
#   -n  how many files to show (default 40)
#
# gcov counts what a process writes at its exit: code that runs only in a
# forked child which leaves with _exit (tests/test_signals.c's in_child, the
# child of `loadscope ab` before its exec) is counted as not run. Not part
# of CI. Needs gcc's gcov.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${TMPDIR:-/tmp}/loadscope-coverage
list=0
top=40
while getopts "d:ln:" o; do
	case $o in
	d) dir=$OPTARG ;;
	l) list=1 ;;
	n) top=$OPTARG ;;
	*) sed -n '2,19p' "$0" >&2; exit 64 ;;
	esac
done
command -v gcov >/dev/null || { echo "coverage: no gcov here (apt-get install gcc)" >&2; exit 2; }
if [ ! -f "$dir/build.ninja" ]; then
	cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
		-DCMAKE_C_FLAGS="--coverage -O0" -DLOADSCOPE_BUILD_FUZZ=OFF >"$dir.configure.log" 2>&1 ||
		{ echo "coverage: configure failed, see $dir.configure.log" >&2; exit 2; }
fi
find "$dir" -name '*.gcda' -delete
ninja -C "$dir" >"$dir.build.log" 2>&1 || { echo "coverage: build failed, see $dir.build.log" >&2; exit 2; }
ctest --test-dir "$dir" -j"$(nproc)" >"$dir.ctest.log" 2>&1 ||
	echo "coverage: some tests failed (see $dir.ctest.log); counting what ran" >&2

# gcov's text form per object: "count:line:source", "#####" for a line never
# run, "-" for one that is not code. One file can be in several objects
# (the library and a test that includes it): a line counts as run if any
# object ran it.
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
find "$dir" -name '*.gcda' | while read -r g; do
	(cd "$out" && gcov -t -o "$(dirname "$g")" "$g" 2>/dev/null) || true
done | awk -v root="$root/" -v lost="$out/text" '
	/^ *-: *0:Source:/ { f = substr($0, index($0, "Source:") + 7); sub("^" root, "", f); next }
	f !~ /^(src|tools)\// { next }
	{
		split($0, a, ":"); c = a[1]; gsub(/ /, "", c); ln = a[2] + 0
		if (c == "-" || ln == 0) next
		key = f SUBSEP ln
		if (!(key in seen)) { seen[key] = 1; lines[f]++; text[key] = substr($0, length(a[1]) + length(a[2]) + 3) }
		if (c != "#####" && c != "=====" && !(key in ran)) { ran[key] = 1; ran_in[f]++ }
	}
	END {
		for (f in lines) { printf "%d %d %s\n", lines[f] - ran_in[f], lines[f], f > "/dev/stderr" }
		for (k in seen) if (!(k in ran)) { split(k, b, SUBSEP); print b[1] "\034" b[2] "\034" text[k] > lost }
	}' 2>"$out/files"
awk '{ t += $2; m += $1 } END { printf "%d of %d executable lines of src/ and tools/ never run (%.1f%% run)\n", m, t, t ? 100 * (t - m) / t : 0 }' "$out/files"
sort -rn "$out/files" | head -n "$top" | while read -r m t f; do
	[ "$m" -gt 0 ] || continue
	printf '%5d of %5d lines never run  %s\n' "$m" "$t" "$f"
	if [ "$list" = 1 ]; then
		awk -F'\034' -v f="$f" '$1 == f { gsub(/\t/, "    ", $3); printf "%11d %s\n", $2, $3 }' "$out/text" | sort -n -k1
	fi
done
