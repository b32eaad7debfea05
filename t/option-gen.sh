#!/bin/sh
# option-gen.sh [NVCC]: record the real nvcc's exit status for each spelling
# of each option of t/fixtures/options/cases.tsv (its last column), and
# check that the cases name every option of `nvcc --help` and no other.
# Run by hand where nvcc is installed; the sweep (t/9012) reads the result.
set -eu
nvcc=${1:-nvcc}
top=$(cd "$(dirname "$0")/.." && pwd)
cases=$top/t/fixtures/options/cases.tsv
"$nvcc" --help | sed -n 's/^\(--[a-zA-Z0-9_-]*\).*/\1/p' | sort >"${TMPDIR:-/tmp}/gen-help.$$"
grep -v '^#' "$cases" | cut -f1 | sort | diff "${TMPDIR:-/tmp}/gen-help.$$" - ||
	{ echo "option-gen.sh: cases.tsv and '$nvcc --help' differ (above)" >&2; rm -f "${TMPDIR:-/tmp}/gen-help.$$"; exit 1; }
rm -f "${TMPDIR:-/tmp}/gen-help.$$"
"$top/t/option-sweep.sh" -g "$nvcc" "$cases" >"$cases.new"
mv "$cases.new" "$cases"
