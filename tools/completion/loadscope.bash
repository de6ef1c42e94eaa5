# bash completion for loadscope(1), installed as
# share/bash-completion/completions/loadscope.
#
# Per subcommand, the options that take no value (_flags) and those that
# take one (_valued); tests/test_cli.c checks both lists against the
# program's --help and parser, so keep them in step with tools/cmd_*.c.
# Pin backends come from `loadscope --version` (the build's registry), not
# from a list here.

_loadscope_commands="ab explain lab load pintest probe run triage"

_loadscope_load_flags="--pin-readonly --direct --no-verify --help --version"
_loadscope_load_valued="--thp --pin --chunk-gib --staging --qd --threads --reader --device --expect --format --html --make-test-file --gib"
_loadscope_probe_flags="--help --version"
_loadscope_probe_valued="--arena-gib --format --proc-root --sys-root"
_loadscope_triage_flags="--table --table-only --redact --color --no-color --help --version"
_loadscope_triage_valued="--format --html"
_loadscope_pintest_flags="--h2d --help --version"
_loadscope_pintest_valued="--mode --chunk-gib --repeats --backend --thp"
_loadscope_run_flags="--help --version"
_loadscope_run_valued="--thp --env"
_loadscope_ab_flags="--verbose --help --version"
_loadscope_ab_valued="--runs --warmup --prepare --pause --arm --format --timeout --out --export-json --export-markdown --export-csv --html"
_loadscope_explain_flags="--help --version"
_loadscope_explain_valued=""
_loadscope_lab_flags="--drain --help --version"
_loadscope_lab_valued="--gib --hold --keep-free --drain-max --leave"

# The pin backends of the program being completed; $1 all, or "locks"
# without none (pintest times page-locking).
_loadscope_pins()
{
	local b
	b=$("${COMP_WORDS[0]}" --version 2>/dev/null | sed -n 's/^pin backends: //p' | tr -d ,)
	[ "$1" = locks ] && b=${b//none/}
	echo "$b"
}

_loadscope()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[1]}
	local i=$((COMP_CWORD - 1)) words="" flags valued
	COMPREPLY=()
	# --opt=value: bash splits at '=', so the option is one word further back.
	if [ "$cur" = "=" ]; then
		cur=""
	elif [ "$prev" = "=" ] && [ $i -ge 1 ]; then
		prev=${COMP_WORDS[i - 1]}
	fi
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$_loadscope_commands -h --help -V --version" -- "$cur"))
		return
	fi
	case "$cmd" in
	load | probe | triage | pintest | run | ab | lab | explain) ;;
	*) return ;;
	esac
	eval "flags=\$_loadscope_${cmd}_flags valued=\$_loadscope_${cmd}_valued"
	# run, ab: from CMD on the words are CMD's (after '--'; for run also
	# from its first operand, as the program parses it): a command at
	# CMD's place, then bash's default, file names.
	if [ "$cmd" = run ] || [ "$cmd" = ab ]; then
		local j=2 w p
		while [ $j -lt "$COMP_CWORD" ]; do
			w=${COMP_WORDS[j]} p=${COMP_WORDS[j - 1]}
			if [ "$w" = -- ]; then
				[ $((j + 1)) -eq "$COMP_CWORD" ] && COMPREPLY=($(compgen -c -- "$cur"))
				return
			fi
			if [ "$cmd" = run ] && [[ $w != -* ]] && [ "$w" != = ] && [ "$p" != = ] &&
				[[ " $valued " != *" $p "* ]]; then
				return
			fi
			j=$((j + 1))
		done
		if [ "$cmd" = run ] && [[ $cur != -* ]] && [[ " $valued " != *" $prev "* ]] && [ "$prev" != = ]; then
			COMPREPLY=($(compgen -c -- "$cur"))
			return
		fi
	fi
	case " $valued " in
	*" $prev "*)
		case "$cmd:$prev" in
		load:--format | probe:--format) words="human json" ;;
		triage:--format) words="text json md" ;;
		ab:--format) words="text md json" ;;
		run:--thp) words="off except-advised default" ;;
		ab:--out)
			COMPREPLY=($(compgen -d -- "$cur"))
			return
			;;
		ab:--export-json | ab:--export-markdown | ab:--export-csv | ab:--html)
			COMPREPLY=($(compgen -f -- "$cur"))
			return
			;;
		load:--thp) words="auto thp 4k hugetlb process-off" ;;
		pintest:--thp) words="default 4k thp process-off" ;;
		load:--pin) words=$(_loadscope_pins all) ;;
		pintest:--backend) words=$(_loadscope_pins locks) ;;
		load:--reader) words="auto io_uring pread" ;;
		pintest:--mode) words="alloc-mp alloc-m alloc-d register" ;;
		load:--make-test-file)
			COMPREPLY=($(compgen -f -- "$cur"))
			return
			;;
		probe:--proc-root | probe:--sys-root)
			COMPREPLY=($(compgen -d -- "$cur"))
			return
			;;
		*) return ;; # a number or a hash: nothing to offer
		esac
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$flags $valued" -- "$cur"))
	elif [ "$cmd" = load ] || [ "$cmd" = triage ]; then
		COMPREPLY=($(compgen -f -- "$cur"))
	elif [ "$cmd" = explain ] && [ "$COMP_CWORD" -eq 2 ]; then
		COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" explain 2>/dev/null | sed -n 's/^  //p')" -- "$cur"))
	elif [ "$cmd" = lab ] && [ "$COMP_CWORD" -eq 2 ]; then
		COMPREPLY=($(compgen -W "fragment" -- "$cur"))
	fi
}

complete -o default -F _loadscope loadscope
