#!/bin/sh
# Runs the Bats suite (t/*.bats, or the files given) as TAP and closes with
# one summary line, "N passed, N failed, N skipped".  Exit status: bats's.
set -u
cd "$(dirname "$0")/.." || exit 1
log=$(mktemp) st=$(mktemp)
trap 'rm -f "$log" "$st"' EXIT
[ $# -gt 0 ] || set -- t
{ bats --tap "$@"; echo $? >"$st"; } | tee "$log"
rc=$(cat "$st")
awk '/^ok .* # skip/ { s++; next } /^ok / { p++ } /^not ok / { f++ }
     END { printf "%d passed, %d failed, %d skipped\n", p, f, s }' "$log"
exit "$rc"
