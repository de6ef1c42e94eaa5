#!/usr/bin/env bash
# The suite's mutation score: plants one plausible bug at a time in a scratch
# copy of the tree, rebuilds, runs the tests that should notice, and counts
# who noticed. Not part of CI (it rebuilds once per mutation); see
# docs/testing.md for the list's rules and the last score.
#
#   scripts/mutate.sh [-l LIST] [-d DIR] [-j JOBS] [-o NAME_REGEX] [-t SECONDS]
#
#   -l  the mutation list (default scripts/mutations.txt)
#   -d  the scratch directory (default ${TMPDIR:-/tmp}/loadscope-mutate); it is
#       kept between runs so that the rebuilds stay incremental
#   -j  build jobs (default 1)
#   -o  only the mutations whose name matches this extended regex
#   -t  per-test timeout in seconds (default 120; a hang counts as killed)
#   -n  check only: say which snippets no longer apply, build nothing
#
#   scripts/mutate.sh --random N --seed S [--report FILE] [--mutant-timeout SECONDS]
#                     [--sanitize] [-d DIR] [-j JOBS] [-t SECONDS] [-n]
#
#   draws N compiling mutants from the source itself instead of the list
#   (scripts/mutate_random.sh says how), the same N for the same seed and
#   tree, runs the tests that link each, and writes the score with every
#   survivor's diff to FILE (default DIR/random-N-seed-S.txt); the per-mutant
#   timeout defaults to 300 s (each test's own CTest TIMEOUT is 600 s, so a
#   hang is cut here). With -n it prints the first N draws only; with
#   -o REGEX it runs only the draws whose file:line:column matches (to run
#   a report's survivors again after new tests). With --sanitize a mutant
#   the tests let through is built again with -fsanitize=address,undefined
#   (DIR/build-san, as .ci/run's second suite) and the same tests run there:
#   one that fails kills it (killed-sanitizer), since the suite CI runs
#   includes that build.
#
# Each entry of the list is a block of "key value" lines, blocks separated by
# blank lines, '#' lines ignored:
#   name   a short name
#   file   the file to mutate, relative to the repository root
#   tests  the ctest regex of the tests that should notice
#   find   an exact source snippet (one line, no escapes) that must occur
#          exactly once in the file
#   repl   what replaces it (may be empty: a dropped step)
#
# Outcomes: killed (a test failed or timed out), survived (all passed),
# stillborn (the mutant did not build: not counted in the score), not-applied
# (the snippet is missing or not unique: the code moved and the list must
# follow; reported loudly, and the exit status is 3). The caller's tree is
# never written: the tracked and untracked-but-not-ignored files are copied
# into the scratch directory, and only that copy is mutated and restored.
# Needs nothing beyond scripts/deps.sh (ccache is used when present).
set -euo pipefail
shopt -u patsub_replacement 2>/dev/null || true

r_count= r_seed=1 r_report= r_mtmo=300 r_san=0
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--sanitize) r_san=1; shift; continue ;;
	--random | --seed | --report | --mutant-timeout)
		[ $# -ge 2 ] || { echo "mutate: $1 needs a value" >&2; exit 2; }
		case $1 in
		--random) r_count=$2 ;;
		--seed) r_seed=$2 ;;
		--report) r_report=$2 ;;
		--mutant-timeout) r_mtmo=$2 ;;
		esac
		shift 2 ;;
	*) args+=("$1"); shift ;;
	esac
done
set -- ${args[@]+"${args[@]}"}
case "$r_count,$r_seed,$r_mtmo" in
*[!0-9,]* | *,, | *, | ,[0-9]*,*, | ,) echo "mutate: --random, --seed and --mutant-timeout take whole numbers" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
list=$root/scripts/mutations.txt
scratch=${TMPDIR:-/tmp}/loadscope-mutate
jobs=1
only=
tmo=120
check=0
while getopts "l:d:j:o:t:nh" opt; do
	case $opt in
	l) list=$OPTARG ;;
	d) scratch=$OPTARG ;;
	j) jobs=$OPTARG ;;
	o) only=$OPTARG ;;
	t) tmo=$OPTARG ;;
	n) check=1 ;;
	*) sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
[ -f "$list" ] || { echo "mutate: no list $list" >&2; exit 2; }
case $list in /*) ;; *) list=$PWD/$list ;; esac

src=$scratch/src
bld=$scratch/build
logs=$scratch/logs
mkdir -p "$src" "$bld" "$logs"

# ---- the list ---------------------------------------------------------------
names=() files=() regexes=() finds=() repls=()
add_entry() {
	[ -n "$n" ] || return 0
	if [ -z "$fl" ] || [ -z "$re" ] || [ -z "$fd" ] || [ "$have_repl" != 1 ]; then
		echo "mutate: entry '$n' lacks file, tests, find or repl" >&2
		exit 2
	fi
	names+=("$n") files+=("$fl") regexes+=("$re") finds+=("$fd") repls+=("$rp")
}
n= fl= re= fd= rp= have_repl=0
while IFS= read -r line || [ -n "$line" ]; do
	line=${line%$'\r'}
	case $line in '#'*) continue ;; esac
	if [ -z "${line//[[:space:]]/}" ]; then
		add_entry
		n= fl= re= fd= rp= have_repl=0
		continue
	fi
	key=${line%%[[:space:]]*}
	val=${line#"$key"}
	val=${val#"${val%%[![:space:]]*}"}
	case $key in
	name) n=$val ;;
	file) fl=$val ;;
	tests) re=$val ;;
	find) fd=$val ;;
	repl) rp=$val have_repl=1 ;;
	*) echo "mutate: unknown key '$key' in $list" >&2; exit 2 ;;
	esac
done <"$list"
add_entry
[ ${#names[@]} -gt 0 ] || { echo "mutate: empty list" >&2; exit 2; }

if [ $check = 1 ] && [ -z "$r_count" ]; then
	bad=0
	for i in "${!names[@]}"; do
		fl=${files[$i]} fd=${finds[$i]} count=0
		if [ -f "$root/$fl" ]; then
			content=
			IFS= read -r -d '' content <"$root/$fl" || true
			rest=${content//"$fd"/}
			count=$(((${#content} - ${#rest}) / ${#fd}))
		fi
		if [ "$count" -ne 1 ]; then
			echo "mutate: NOT APPLIED: ${names[$i]}: the snippet occurs $count times in $fl (must be once): $fd" >&2
			bad=$((bad + 1))
		fi
	done
	echo "mutate: ${#names[@]} mutations, $bad not applicable"
	[ $bad = 0 ] || exit 3
	exit 0
fi

# ---- the scratch copy: only files whose content differs are rewritten, so
# ninja sees exactly what changed since the last run (a file left mutated by
# an interrupted run is rewritten too).
echo "mutate: copying $root to $src" >&2
copied=0
declare -A tracked=()
while IFS= read -r -d '' f; do
	if [ -L "$root/$f" ]; then
		# A link (the fixture trees link directories): the same link.
		tracked[$f]=1
		t=$(readlink "$root/$f")
		if [ "$(readlink "$src/$f" 2>/dev/null)" != "$t" ]; then
			mkdir -p "$(dirname "$src/$f")"
			rm -rf "${src:?}/$f"
			ln -s "$t" "$src/$f"
			copied=$((copied + 1))
		fi
		continue
	fi
	[ -f "$root/$f" ] || continue
	tracked[$f]=1
	if ! cmp -s "$root/$f" "$src/$f"; then
		mkdir -p "$(dirname "$src/$f")"
		cp "$root/$f" "$src/$f"
		copied=$((copied + 1))
	fi
done < <(git -C "$root" ls-files -z --cached --others --exclude-standard)
while IFS= read -r -d '' f; do
	f=${f#./}
	[ -n "${tracked[$f]:-}" ] || rm -f "$src/$f"
done < <(cd "$src" && find . \( -type f -o -type l \) -print0)
echo "mutate: $copied files refreshed" >&2

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
# Warnings are errors, as in the builds CI runs (scripts/test.sh): a mutant
# the compiler warns of would never land, and is stillborn here too. Set on
# a scratch build made before this too (a reconfigure is cheap).
gen=()
[ -f "$bld/build.ninja" ] || gen=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOADSCOPE_BUILD_BENCH=OFF "${launcher[@]}")
cmake -S "$src" -B "$bld" "${gen[@]}" -DLOADSCOPE_WERROR=ON >"$logs/configure.log" 2>&1 ||
	{ echo "mutate: configure failed, see $logs/configure.log" >&2; exit 2; }
echo "mutate: building the unmutated tree" >&2
ninja -C "$bld" -j"$jobs" >"$logs/build.log" 2>&1 ||
	{ echo "mutate: the unmutated tree does not build, see $logs/build.log" >&2; exit 2; }

# ---- one mutation at a time, restored whatever ends the run ------------------
cur_file= cur_orig=
restore() {
	if [ -n "$cur_file" ]; then
		printf '%s' "$cur_orig" >"$src/$cur_file"
		cur_file=
	fi
}
trap restore EXIT
trap 'restore; exit 130' INT TERM

if [ -n "$r_count" ]; then
	[ -n "$r_report" ] || r_report=$scratch/random-$r_count-seed-$r_seed.txt
	case $r_report in /*) ;; *) r_report=$PWD/$r_report ;; esac
	# shellcheck source=scripts/mutate_random.sh
	. "$root/scripts/mutate_random.sh"
fi

# ---- the baseline: every test the list names must pass unmutated, or a
# failure would be counted as a kill.
all_re=$(printf '%s\n' "${regexes[@]}" | sort -u | paste -sd'|')
echo "mutate: running the selected tests on the unmutated tree" >&2
if ! ctest --test-dir "$bld" -R "$all_re" --timeout "$tmo" -j1 >"$logs/baseline.log" 2>&1; then
	echo "mutate: tests fail without any mutation, see $logs/baseline.log" >&2
	exit 2
fi

# ---- one mutation -----------------------------------------------------------

targets_of() { # the test programs a regex selects, plus the tool they may run
	ctest --test-dir "$bld" -N -R "$1" | sed -n 's/^ *Test *#[0-9]*: *\([^ ]*\).*/\1/p'
	ninja -C "$bld" -t targets all 2>/dev/null | grep -q '^loadscope_tool:' && echo loadscope_tool
}

results=() killed=0 survived=0 stillborn=0 notapplied=0 ran=0
for i in "${!names[@]}"; do
	n=${names[$i]} fl=${files[$i]} re=${regexes[$i]} fd=${finds[$i]} rp=${repls[$i]}
	if [ -n "$only" ] && ! [[ $n =~ $only ]]; then
		continue
	fi
	ran=$((ran + 1))
	t0=$SECONDS
	log=$logs/$n.log
	outcome=
	if [ ! -f "$src/$fl" ]; then
		outcome=not-applied
		echo "mutate: NOT APPLIED: $n: $fl does not exist" >&2
	else
		content=
		IFS= read -r -d '' content <"$src/$fl" || true
		rest=${content//"$fd"/}
		count=$(((${#content} - ${#rest}) / ${#fd}))
		if [ "$count" -ne 1 ]; then
			outcome=not-applied
			echo "mutate: NOT APPLIED: $n: the snippet occurs $count times in $fl (must be once): $fd" >&2
		fi
	fi
	if [ -z "$outcome" ]; then
		cur_file=$fl cur_orig=$content
		printf '%s' "${content/"$fd"/"$rp"}" >"$src/$fl"
		mapfile -t tg < <(targets_of "$re")
		if [ ${#tg[@]} -eq 0 ] || [ "${tg[0]}" = loadscope_tool ]; then
			restore
			echo "mutate: NOT APPLIED: $n: no test matches '$re'" >&2
			outcome=not-applied
		elif ! ninja -C "$bld" -j"$jobs" "${tg[@]}" >"$log" 2>&1; then
			outcome=stillborn
		elif ctest --test-dir "$bld" -R "$re" --timeout "$tmo" --stop-on-failure -j1 >>"$log" 2>&1; then
			outcome=survived
		else
			outcome=killed
		fi
		# what a timed-out test left running (ctest's process groups):
		# nothing else runs from the scratch build between two mutants
		pkill -KILL -f "^$bld/" 2>/dev/null || true
		restore
	fi
	case $outcome in
	killed) killed=$((killed + 1)) ;;
	survived) survived=$((survived + 1)) ;;
	stillborn) stillborn=$((stillborn + 1)) ;;
	not-applied) notapplied=$((notapplied + 1)) ;;
	esac
	results+=("$(printf '%-34s %-12s %4ss  %s' "$n" "$outcome" $((SECONDS - t0)) "$fl")")
	printf 'mutate: [%d] %-34s %s\n' "$ran" "$n" "$outcome" >&2
done

# The last mutant's objects are stale now; the next run rebuilds them.
echo
printf '%-34s %-12s %5s  %s\n' mutation outcome time file
for r in "${results[@]}"; do echo "$r"; done
echo
echo "killed $killed, survived $survived, stillborn $stillborn, not applied $notapplied (of $ran)"
if [ $((killed + survived)) -gt 0 ]; then
	awk -v k=$killed -v s=$survived 'BEGIN { printf "score: %d / %d = %.1f %% killed\n", k, k + s, 100 * k / (k + s) }'
fi
if [ $survived -gt 0 ]; then
	echo "survivors:"
	for r in "${results[@]}"; do
		case $r in *" survived "*) echo "  ${r%% *}" ;; esac
	done
fi
if [ $notapplied -gt 0 ]; then
	echo "mutate: $notapplied mutation(s) NOT APPLIED: their snippets moved; update $list" >&2
	exit 3
fi
