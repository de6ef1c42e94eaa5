#!/usr/bin/env bash
# Installs what loadscope needs to build and test on Debian 12, when it is
# missing. As root it runs apt-get; otherwise it prints the exact command and
# stops. Sourced or run by scripts/demo.sh and scripts/test.sh.
set -euo pipefail

need=(cmake ninja-build gcc pkg-config liburing-dev libcriterion-dev libxxhash-dev libnuma-dev)
# The HIP pin backend builds against Debian's HIP runtime headers; no AMD GPU
# is needed to build or to test its no-device path.
need+=(libamdhip64-dev)
if [ "${1:-}" = "--test" ]; then
	# fio: the loader benchmark's reference; clang: the fuzz targets;
	# chromium: tests/test_triage_html.c opens the triage's page headless;
	# universal-ctags: tests/test_layout.c counts the functions' lengths.
	# g++: the C++ embedding example and ggml, the ggml integration's
	# outside dependency (scripts/ggml.sh).
	need+=(fio clang chromium universal-ctags g++)
fi

missing=()
for p in "${need[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "loadscope: missing packages: ${missing[*]}" >&2
	echo "install them as root with:  $cmd" >&2
	exit 1
fi
echo "loadscope: installing ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
