#!/bin/sh
# Rewrite the triage goldens (tests/corpus/golden) from the built test, for a
# deliberate change in the tool's output. Never run by CI. Review the diff
# line by line before committing: a golden is only as good as its review.
#   tests/corpus/regen.sh [BUILD_DIR]   (default: build)
set -eu
B=${1:-build}
LSC_UPDATE_GOLDEN=1 "$B/test_triage_corpus" --jobs 1 --filter='corpus/*golden*' || true
git -C "$(dirname "$0")" diff --stat -- golden
