#!/bin/sh
# The ggml integration against the real peers: one model of GIB GiB
# (default 4) written by `ggml-load --write-model`, loaded by loadscope into
# ggml's backend buffers, by ggml's own GGUF path (--ggml) and by llama.cpp's
# default, the file mapped and used in place (--mmap); each run's phases
# from its `timing` line. Two states, each its own interleaved rounds:
#   warm  the file in the page cache (read once before the rounds);
#   cold  the file's pages dropped before every run with
#         posix_fadvise(POSIX_FADV_DONTNEED) (`dd iflag=nocache`): this
#         file only, no system setting touched.
# The arms' order rotates every round; PAUSE_S (default 3) between runs, so
# that a run does not reuse the memory the run before it just freed (free
# page reporting hands it back to the host within about 2 s on this VM).
# Reported per arm: the medians of time to the first compute done (total_s)
# and of the weights in place (metadata + buffers + weights; for --mmap
# the weights are only resident once the first compute has faulted them,
# so its figure is total_s), and the ratios to loadscope's.
#
#   bench/bench_ggml.sh BUILD_DIR [GIB] [ROUNDS]
#
# BUILD_DIR: a build configured with -DLOADSCOPE_GGML_DIR (ggml-load under
# examples/ggml). The model is deleted afterwards.
set -eu
B=${1:?usage: bench_ggml.sh BUILD_DIR [GIB] [ROUNDS]}
GIB=${2:-4}
ROUNDS=${3:-5}
PAUSE_S=${PAUSE_S:-3}
GL="$B/examples/ggml/ggml-load"
[ -x "$GL" ] || { echo "no $GL (configure with -DLOADSCOPE_GGML_DIR and build)" >&2; exit 2; }
DIR=$(mktemp -d /var/tmp/lsc-ggml-bench.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
M="$DIR/model.gguf"
"$GL" --write-model "$M" --gib "$GIB"
echo "model: $(stat -c %s "$M") bytes, $(nproc) CPUs, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"

drop() { dd if="$M" iflag=nocache count=0 status=none; }
warm() { cat "$M" >/dev/null; }

# run STATE ARM: one run; appends "state arm weights_s total_s checksum" to $DIR/runs
run() {
	case $2 in loadscope) flag= ;; ggml) flag=--ggml ;; mmap) flag=--mmap ;; esac
	[ "$1" = cold ] && drop
	sleep "$PAUSE_S"
	# shellcheck disable=SC2086
	"$GL" $flag "$M" >"$DIR/out" 2>"$DIR/err" || { cat "$DIR/err" >&2; exit 1; }
	awk -v s="$1" -v a="$2" '
		/^checksum=/ { c = substr($0, 10) }
		/^timing / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		END { w = v["metadata_s"] + v["buffers_s"] + v["weights_s"]; if (a == "mmap") w = v["total_s"];
		      printf "%s %s %.3f %.3f %s\n", s, a, w, v["total_s"], c }' "$DIR/out" >>"$DIR/runs"
}

: >"$DIR/runs"
for state in warm cold; do
	[ $state = warm ] && warm
	arms="loadscope ggml mmap"
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		for a in $arms; do run $state $a; done
		arms="$(echo "$arms" | awk '{ print $2, $3, $1 }')" # rotate
		r=$((r + 1))
	done
done

echo "checksums: $(awk '{ print $5 }' "$DIR/runs" | sort -u | tr '\n' ' ')(one value: all paths computed the same)"
for state in warm cold; do
	for a in loadscope ggml mmap; do
		for col in 3 4; do
			awk -v s=$state -v a=$a -v c=$col '$1 == s && $2 == a { print $c }' "$DIR/runs" | sort -n |
				awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
				      printf "%s ", m }'
		done | awk -v s=$state -v a=$a '{ print s, a, $1, $2 }'
	done
done >"$DIR/medians"
printf '%-5s %-10s %12s %16s %14s %16s\n' state arm weights_s first_compute_s "x loadscope" "x loadscope"
awk '{ k = $1; if ($2 == "loadscope") { w[k] = $3; t[k] = $4 } row[NR] = $0 }
     END { for (i = 1; i <= NR; i++) { split(row[i], f, " ");
           printf "%-5s %-10s %12.3f %16.3f %13.2fx %15.2fx\n", f[1], f[2], f[3], f[4], f[3] / w[f[1]], f[4] / t[f[1]] } }' \
	"$DIR/medians"
echo "(medians of $ROUNDS rounds; the ratio columns: the arm's time over loadscope's, >1 is slower than loadscope)"
