#!/bin/sh
# t/fuzz/run.sh [SECONDS] [-- libFuzzer flags]: fuzz bin/fuzz-ir from the
# IR fixtures (a fresh corpus each run, under t/fuzz/work/), with the IR
# dictionary.  Findings land in t/fuzz/work/ as crash-* files: reduce one
# with llvm-reduce and keep it as a regression test.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
[ $# -gt 0 ] && shift
[ "${1:-}" = -- ] && shift
work="$top/t/fuzz/work"
mkdir -p "$work/corpus"
for f in "$top"/t/fixtures/*.ll; do cp "$f" "$work/corpus/"; done
exec "$top/bin/fuzz-ir" -max_total_time="$secs" -dict="$top/t/fuzz/ir.dict" -max_len=4096 \
	-artifact_prefix="$work/" -print_final_stats=1 "$@" "$work/corpus"
