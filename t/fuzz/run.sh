#!/bin/sh
# t/fuzz/run.sh [SECONDS] [-- libFuzzer flags]: fuzz bin/fuzz-ir for the
# stage NV_FUZZ_STAGE names (reflect, inline, unroll, vectorize, remat,
# split; default reflect) from a fresh corpus under t/fuzz/work/STAGE/: the
# IR fixtures, the CUDA fixtures as nvcc-lite's Phase I leaves them (real
# kernels, libdevice calls inlined), and llvm-stress modules, with the IR
# dictionary.  Findings land in t/fuzz/work/STAGE/ as crash-* files: reduce
# one with llvm-reduce and keep it as a regression test.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
[ $# -gt 0 ] && shift
[ "${1:-}" = -- ] && shift
stage=${NV_FUZZ_STAGE:-reflect}
bin=$(${LLVM_CONFIG:-llvm-config-22} --bindir)
work="$top/t/fuzz/work/$stage"
rm -rf "$work/corpus"
mkdir -p "$work/corpus"
for f in "$top"/t/fixtures/*.ll; do cp "$f" "$work/corpus/"; done
for f in "$top"/t/fixtures/*.cu; do
	b=$(basename "$f" .cu)
	"$top/bin/nvcc-lite" -arch=sm_90 -emit-llvm -Xcicc -vectorize-loops=0 \
		-Xcicc -disable-LoopUnrollPass "$f" -o "$work/$b.bc" 2>/dev/null &&
		"$bin/llvm-dis" "$work/$b.bc" -o "$work/corpus/$b.ll"
	rm -f "$work/$b.bc"
done
for s in 1 2 3 4 5 6 7 8; do
	"$bin/llvm-stress" -seed="$s" -size=40 -o "$work/corpus/stress$s.ll"
done
export NV_FUZZ_STAGE="$stage"
exec "$top/bin/fuzz-ir" -max_total_time="$secs" -dict="$top/t/fuzz/ir.dict" -max_len=16384 \
	-artifact_prefix="$work/" -print_final_stats=1 "$@" "$work/corpus"
