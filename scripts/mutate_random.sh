# The random mode of scripts/mutate.sh (--random N --seed S), sourced by it
# once the scratch copy is built: draws mutants from the source itself rather
# than from a list, so the score measures the tests against bugs nobody chose.
#
# The sites are every operator, constant, condition and one-line statement of
# the compiled C files of src/ and tools/ (scripts/mutate_sites.awk lists
# them; comments, literals and preprocessor lines are never sites). A draw
# picks a line among the lines that have sites, then a site on it, with a
# generator of its own seeded by S (bash's $RANDOM differs between versions),
# so the same seed over the same tree draws the same mutants. A draw that
# does not compile is stillborn and does not count: drawing goes on until N
# mutants compiled. A mutant whose object file, debug information stripped,
# is byte for byte the unmutated one is equivalent by construction (the
# compiler made the same code); it is listed and left out of the score. The
# others run the tests whose programs link the mutated object (their symbol
# tables define one of its global symbols), and the tests that run the
# `loadscope` program when the program links it; a file no test program
# links runs the whole suite. Tests run one program at a time, each linked
# just before it runs, until the first failure (those that killed a mutant
# of the same file, and the three that killed most, first), each under the
# per-test timeout, the whole under the per-mutant one; a timeout counts as
# a kill (a hang is noticed).
#
# Uses from mutate.sh: root, src, bld, logs, jobs, tmo, check, and the
# option values r_count, r_seed, r_report, r_mtmo, and only (-o: run only
# the draws whose file:line:column matches).

# The tree measured: the caller's commit when the copy was made (and
# whether files differed from it), not when the report is written.
r_tree="$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- src tools tests scripts || echo ' (with uncommitted changes)')"

# ---- the generator: a 31-bit LCG whose high bits make each draw --------------
r_state=$(((r_seed * 2654435761 + 1013904223) & 0x7fffffff))
r_next() { r_state=$(((r_state * 1103515245 + 12345) & 0x7fffffff)); }
# R = a number in [0, $1)
r_below() {
	local a b
	r_next; a=$((r_state >> 8))
	r_next; b=$((r_state >> 8))
	R=$((((a << 23) | b) % $1))
}

# ---- the files: compiled C sources of src/ and tools/ ----------------------------
declare -A objs_of=()
r_files=()
while IFS= read -r f; do
	o=$(cd "$bld" && find . -path "*.dir/$f.o" -printf '%P\n' | LC_ALL=C sort | paste -sd' ')
	[ -n "$o" ] || continue
	objs_of[$f]=$o
	r_files+=("$f")
done < <(cd "$src" && git -C "$root" ls-files --cached --others --exclude-standard -- 'src/*.c' 'tools/*.c' |
	LC_ALL=C sort | while IFS= read -r f; do [ -f "$src/$f" ] && echo "$f"; done)
[ ${#r_files[@]} -gt 0 ] || { echo "mutate: no compiled source files found in $bld" >&2; exit 2; }

sites=$logs/random-sites.tsv
(cd "$src" && awk -f "$root/scripts/mutate_sites.awk" "${r_files[@]}") >"$sites"
s_file=() s_line=() s_col=() s_len=() s_kind=() s_repl=()
l_first=() l_count=()
prev=
while IFS=$'\t' read -r f l c n k rp; do
	i=${#s_file[@]}
	s_file+=("$f") s_line+=("$l") s_col+=("$c") s_len+=("$n") s_kind+=("$k") s_repl+=("$rp")
	if [ "$f:$l" != "$prev" ]; then
		l_first+=("$i") l_count+=(1)
		prev=$f:$l
	else
		l_count[-1]=$((l_count[-1] + 1))
	fi
done <"$sites"
echo "mutate: ${#s_file[@]} sites on ${#l_first[@]} lines of ${#r_files[@]} files" >&2

# The mutated text of site $1, in the file's copy under $src (the file is
# read from the copy, which is restored after every mutant).
r_apply() {
	local i=$1 f=${s_file[$1]} l=${s_line[$1]} lines text
	mapfile -t lines <"$src/$f"
	text=${lines[$((l - 1))]}
	lines[$((l - 1))]=${text:0:$((s_col[i] - 1))}${s_repl[i]}${text:$((s_col[i] - 1 + s_len[i]))}
	printf '%s\n' "${lines[@]}"
}

if [ "$check" = 1 ]; then
	# The first N draws, compiled or not: what a run with this seed tries.
	declare -A seen=()
	for ((d = 0; d < r_count; d++)); do
		r_below ${#l_first[@]}; li=$R
		r_below ${l_count[li]}; i=$((l_first[li] + R))
		[ -z "${seen[$i]:-}" ] || { d=$((d - 1)); continue; }
		seen[$i]=1
		printf '%s:%s:%s %s -> %s\n' "${s_file[i]}" "${s_line[i]}" "${s_col[i]}" "${s_kind[i]}" "${s_repl[i]}"
	done
	exit 0
fi

# ---- the baseline: the whole suite, unmutated ---------------------------------------
mapfile -t all_tests < <(ctest --test-dir "$bld" -N | sed -n 's/^ *Test *#[0-9]*: *\([^ ]*\).*/\1/p')
echo "mutate: running the whole suite on the unmutated tree" >&2
ctest --test-dir "$bld" --timeout "$tmo" -j1 >"$logs/random-baseline.log" 2>&1 || true
declare -A broken=()
while IFS= read -r t; do broken[$t]=1; done < <(sed -n '/^The following tests FAILED:/,$s/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' "$logs/random-baseline.log")
if [ ${#broken[@]} -gt 0 ]; then
	echo "mutate: failing without any mutation, left out of every run: ${!broken[*]}" >&2
fi
good_tests=()
for t in "${all_tests[@]}"; do [ -n "${broken[$t]:-}" ] || good_tests+=("$t"); done

# The object files of the unmutated tree, debug information stripped.
declare -A base_sum=()
obj_sum() { objcopy --strip-debug "$bld/$1" "$logs/strip.o" 2>/dev/null && sha1sum <"$logs/strip.o" | cut -c1-40; }
for f in "${r_files[@]}"; do
	for o in ${objs_of[$f]}; do base_sum[$o]=$(obj_sum "$o"); done
done

# Which test programs link what: their symbol tables, and whether they run
# the tool (the tool's path is in their strings).
mkdir -p "$logs/syms"
tool_tests=()
for t in "${good_tests[@]}"; do
	[ -x "$bld/$t" ] || continue
	nm --defined-only "$bld/$t" 2>/dev/null | awk '{print $NF}' | LC_ALL=C sort -u >"$logs/syms/$t"
	grep -aqF "$bld/loadscope" "$bld/$t" && tool_tests+=("$t")
done
nm --defined-only "$bld/loadscope" 2>/dev/null | awk '{print $NF}' | LC_ALL=C sort -u >"$logs/syms/loadscope.tool"
declare -A tests_of=()
r_tests_for() { # sets T to the space-separated tests for file $1
	local f=$1 o t g
	if [ -n "${tests_of[$f]:-}" ]; then T=${tests_of[$f]}; return; fi
	: >"$logs/syms.want"
	for o in ${objs_of[$f]}; do
		nm -g --defined-only "$bld/$o" 2>/dev/null | awk '{print $NF}' >>"$logs/syms.want"
	done
	declare -A pick=()
	if [ -s "$logs/syms.want" ]; then
		for t in "${good_tests[@]}"; do
			[ -f "$logs/syms/$t" ] && grep -qxFf "$logs/syms.want" "$logs/syms/$t" && pick[$t]=1
		done
		if grep -qxFf "$logs/syms.want" "$logs/syms/loadscope.tool"; then
			for t in "${tool_tests[@]}"; do pick[$t]=1; done
		fi
	fi
	T=
	for t in "${good_tests[@]}"; do [ -n "${pick[$t]:-}" ] && T+="$t "; done
	[ -n "$T" ] || T="${good_tests[*]} "
	tests_of[$f]=$T
}

# ---- the sanitizer stage (--sanitize): the same tree built with
# -fsanitize=address,undefined in a build of its own, its suite run once
# unmutated (what fails there is left out of the stage), then, for each
# mutant the normal build's tests let through, the same tests there -----------
bld_san=$scratch/build-san
declare -A broken_san=()
if [ "$r_san" = 1 ]; then
	if [ ! -f "$bld_san/build.ninja" ]; then
		cmake -S "$src" -B "$bld_san" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOADSCOPE_SANITIZE=ON \
			-DLOADSCOPE_WERROR=ON -DLOADSCOPE_BUILD_BENCH=OFF "${launcher[@]}" >"$logs/configure-san.log" 2>&1 ||
			{ echo "mutate: the sanitizer build's configure failed, see $logs/configure-san.log" >&2; exit 2; }
	fi
	echo "mutate: building the unmutated tree with the sanitizers" >&2
	ninja -C "$bld_san" -j"$jobs" >"$logs/build-san.log" 2>&1 ||
		{ echo "mutate: the sanitizer build fails unmutated, see $logs/build-san.log" >&2; exit 2; }
	echo "mutate: running the suite on the unmutated tree with the sanitizers" >&2
	ctest --test-dir "$bld_san" --timeout "$tmo" -j1 >"$logs/random-baseline-san.log" 2>&1 || true
	pkill -KILL -f "^$bld_san/" 2>/dev/null || true
	while IFS= read -r t; do broken_san[$t]=1; done < <(sed -n '/^The following tests FAILED:/,$s/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' "$logs/random-baseline-san.log")
	[ ${#broken_san[@]} -eq 0 ] || echo "mutate: failing with the sanitizers unmutated, left out of that stage: ${!broken_san[*]}" >&2
fi

# San: the tests of @tg (the array) the sanitizer build fails with the
# mutant applied; sets SAN_BY to the first, rc 0 when one failed.
r_san_kills() {
	local t left rc=0
	SAN_BY=
	# shellcheck disable=SC2086
	ninja -C "$bld_san" -j"$jobs" ${objs_of[$f]} >>"$log" 2>&1 || return 1
	for t in "${tg[@]}"; do
		[ -z "${broken_san[$t]:-}" ] || continue
		ninja -C "$bld_san" -j"$jobs" "$t" loadscope_tool >>"$log" 2>&1 || return 1
		left=$((r_mtmo - (SECONDS - t0)))
		[ $left -gt 0 ] || return 1
		rc=0
		timeout -k 10 "$left" ctest --test-dir "$bld_san" -R "^$t\$" --timeout "$tmo" -j1 >>"$log" 2>&1 || rc=$?
		pkill -KILL -f "^$bld_san/" 2>/dev/null || true
		if [ $rc != 0 ]; then
			SAN_BY="$t (sanitizers)"
			return 0
		fi
	done
	return 1
}

# ---- the report: rewritten after every mutant, so a run stopped early
# leaves the score of what it ran ---------------------------------------------
r_write_report() {
	{
		echo "# scripts/mutate.sh --random $r_count --seed $r_seed${only:+ -o '$only'}"
		echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "tree: $r_tree"
		echo "sites: ${#s_file[@]} on ${#l_first[@]} lines of ${#r_files[@]} files; draws: $draws, stillborn: $stillborn"
		[ "$1" = done ] || echo "partial: $ran of $r_count mutants so far"
		[ ${#broken[@]} -eq 0 ] || echo "left out (failing unmutated): ${!broken[*]}"
		echo
		echo "  #  outcome         kind    time   site (file:line:column)  killed by"
		for r in "${r_rows[@]}"; do echo "$r"; done
		echo
		echo "killed $killed, survived $survived, same code $same, stillborn $stillborn (of $ran compiled mutants)"
		[ "$r_san" != 1 ] || echo "of the killed, by the sanitizer build alone: $san_killed"
		if [ $((killed + survived)) -gt 0 ]; then
			awk -v k=$killed -v s=$survived 'BEGIN { printf "score: %d / %d = %.1f %% killed (same-code mutants left out)\n", k, k + s, 100 * k / (k + s) }'
		fi
		for j in "${!r_rows[@]}"; do
			case ${r_rows[$j]} in
			*" survived "* | *" same-code "*)
				echo
				echo "## ${r_rows[$j]}"
				echo "${r_diffs[$j]}"
				;;
			esac
		done
	} >"$r_report.tmp" && mv "$r_report.tmp" "$r_report"
}

# ---- the draws ---------------------------------------------------------------------
declare -A seen=() killer_of=() kills_by=()
top_killers=
r_rows=() r_diffs=()
killed=0 survived=0 stillborn=0 same=0 ran=0 draws=0 san_killed=0
max_draws=$((r_count * 20 + 100))
: >"$logs/random-progress.txt"
while [ $ran -lt "$r_count" ] && [ $draws -lt $max_draws ]; do
	r_below ${#l_first[@]}; li=$R
	r_below ${l_count[li]}; i=$((l_first[li] + R))
	[ -z "${seen[$i]:-}" ] || continue
	seen[$i]=1
	draws=$((draws + 1))
	f=${s_file[i]}
	where="$f:${s_line[i]}:${s_col[i]}"
	if [ -n "$only" ] && ! [[ $where =~ $only ]]; then
		continue
	fi
	t0=$SECONDS
	IFS= read -r -d '' cur_orig <"$src/$f" || true
	cur_file=$f
	r_apply "$i" >"$src/$f.mut" && mv "$src/$f.mut" "$src/$f"
	diff=$(cd "$src" && diff -u --label "a/$f" --label "b/$f" <(printf '%s' "$cur_orig") "$f" || true)
	log=$logs/random-$draws.log
	outcome= tests=
	# shellcheck disable=SC2086
	if ! ninja -C "$bld" -j"$jobs" ${objs_of[$f]} >"$log" 2>&1; then
		outcome=stillborn
	else
		outcome=same-code
		for o in ${objs_of[$f]}; do
			[ "$(obj_sum "$o")" = "${base_sum[$o]}" ] || outcome=
		done
	fi
	if [ -z "$outcome" ]; then
		r_tests_for "$f"; tests=$T
		read -r -a tg <<<"$tests"
		# The tests that killed a mutant of this file before, and the ones
		# that killed most so far, first: each program is linked just
		# before it runs, so a mutant killed early links one or two of
		# them, not all; every selected test runs until one fails.
		first=() rest=()
		for t in "${tg[@]}"; do
			if [ "${killer_of[$f]:-}" = "$t" ] || [[ " $top_killers " == *" $t "* ]]; then
				first+=("$t")
			else
				rest+=("$t")
			fi
		done
		rc=0 tool_built=0
		for t in "${first[@]}" "${rest[@]}"; do
			extra=()
			if [ $tool_built = 0 ] && [[ " ${tool_tests[*]} " == *" $t "* ]]; then
				extra=(loadscope_tool)
				tool_built=1
			fi
			if ! ninja -C "$bld" -j"$jobs" "$t" "${extra[@]}" >>"$log" 2>&1; then
				outcome=stillborn
				break
			fi
			left=$((r_mtmo - (SECONDS - t0)))
			if [ $left -le 0 ]; then rc=124; break; fi
			timeout -k 10 "$left" ctest --test-dir "$bld" -R "^$t\$" --timeout "$tmo" \
				-j1 >>"$log" 2>&1 || rc=$?
			# ctest runs a test in a process group of its own, which the
			# timeout's kill does not reach: a hung test (or the program
			# it ran) would spin on through every later mutant. Nothing
			# else runs from the scratch build between two tests.
			pkill -KILL -f "^$bld/" 2>/dev/null || true
			[ $rc = 0 ] || break
		done
		if [ -z "$outcome" ]; then
			if [ $rc = 0 ]; then outcome=survived
			elif [ $rc = 124 ] || [ $rc = 137 ]; then outcome=killed-timeout
			else outcome=killed; fi
		fi
		if [ "$outcome" = survived ] && [ "$r_san" = 1 ] && r_san_kills; then
			outcome=killed-sanitizer
		fi
	fi
	printf '%s' "$cur_orig" >"$src/$f"
	cur_file=
	case $outcome in
	stillborn) stillborn=$((stillborn + 1)); continue ;;
	same-code) same=$((same + 1)) ;;
	killed-sanitizer) killed=$((killed + 1)) san_killed=$((san_killed + 1)) ;;
	killed*) killed=$((killed + 1)) ;;
	survived) survived=$((survived + 1)) ;;
	esac
	ran=$((ran + 1))
	by=
	if [ "$outcome" = killed-sanitizer ]; then
		by=$SAN_BY
	elif [ "${outcome#killed}" != "$outcome" ]; then
		by=$(sed -n '/^The following tests FAILED:/,$s/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' "$log" | head -1)
		if [ -n "$by" ]; then
			killer_of[$f]=$by
			kills_by[$by]=$((${kills_by[$by]:-0} + 1))
			top_killers=$(for t in "${!kills_by[@]}"; do echo "${kills_by[$t]} $t"; done |
				sort -rn | head -3 | awk '{print $2}' | paste -sd' ')
		fi
	fi
	row=$(printf '%3d  %-15s %-7s %4ss  %s  %s' "$ran" "$outcome" "${s_kind[i]}" $((SECONDS - t0)) "$where" "$by")
	r_rows+=("$row")
	r_diffs+=("$diff")
	echo "$row" >>"$logs/random-progress.txt"
	printf 'mutate: %s\n' "$row" >&2
	r_write_report partial
done

r_write_report done
tail -n +1 "$r_report" | sed -n '/^killed /,/^score/p'
echo "mutate: report in $r_report" >&2
exit 0
