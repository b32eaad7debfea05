#!/usr/bin/env bash
# t/csmith.sh [-n N] [-s FIRST_SEED] [-c CONFIG]...: meaning preservation.
#
# For each seed, csmith writes a random C program; clang-22 -O0 (optnone
# off) makes host bitcode; lli runs it for the reference checksum.  Then
# every stage configuration below transforms the bitcode and lli runs it
# again: the output and exit status must be the same.  Programs whose
# reference run fails or times out (undefined behaviour, too slow) are
# discarded and counted; a program csmith or clang could not produce is
# counted apart, and if the tools themselves go missing the run stops.
# A transformed module gets six times the reference's time limit: lli JIT-
# compiles it first, and optimized code can take far longer to JIT (csmith
# seed 221 after LLVM's -O3: 20 s in lli, 0.00 s compiled natively).  A difference is a failure: the seed and the
# commands that reproduce it are printed.  Exit 1 if anything failed.
set -u
n=10 seed=1 only=()
while getopts n:s:c: o; do
	case $o in
	n) n=$OPTARG ;;
	s) seed=$OPTARG ;;
	c) only+=("$OPTARG") ;;
	*) echo "usage: $0 [-n N] [-s SEED] [-c CONFIG]..." >&2; exit 2 ;;
	esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$(${LLVM_CONFIG:-llvm-config-22} --bindir)
PATH="$top/bin:$bin:$PATH"
csmith_inc=${CSMITH_INCLUDE:-/usr/include/csmith}
limit=${CSMITH_TIMEOUT:-10}

# name | command reading $in and writing $out.  Stages add rows here.
configs=(
	"reflect|nv-reflect -arch=sm_90 \$in -o \$out"
	"link|nv-link \$in -o \$out"
	"O1|nv-opt -O1 \$in -o \$out"
	"O3|nv-opt -O3 \$in -o \$out"
	"std1|nv-opt -pipeline=std1 \$in -o \$out"
	"std5|nv-opt -pipeline=std5 \$in -o \$out"
	"std8|nv-opt -pipeline=std8 \$in -o \$out"
	"loop-canon|nv-opt -pipeline=loop-canon \$in -o \$out"
	"unroll|nv-unroll \$in -o \$out"
	"unroll-O3|nv-opt -O3 -no-unroll \$in | nv-unroll | nv-opt -pipeline=mid-unroll | nv-unroll -config=D -o \$out"
	"unroll-max|nv-unroll -unroll-threshold=100000 -unroll-partial-threshold=100000 -runtime-unroll-threshold=100000 -unroll-count=3 -flat-loop-tripcount-threshold=0 \$in -o \$out"
	"unroll-prolog|nv-unroll -waterfall-unrolling-force-epilogue=0 -unroll-full-max-count=2 -unroll-count=4 -runtime-unroll-threshold=100000 \$in -o \$out"
	"unroll-peel|nv-unroll -unroll-peel-count=2 -unroll-full-max-count=1 \$in -o \$out"
	"inline|nv-inline \$in -o \$out"
	"inline-all|nv-inline -nv-inline-all \$in -o \$out"
	"inline-min|nv-inline -inline-budget=0 -inline-threshold=0 -inline-switchctrl=5 \$in -o \$out"
	"vectorize|nv-opt -O3 -no-unroll -no-vectorize \$in | nv-vectorize -o \$out"
	"vectorize-max|nv-vectorize -vectorizer-min-trip-count=0 -force-target-max-vector-interleave=2 -force-target-max-scalar-interleave=2 -vectorize-fp-reorder=1 \$in -o \$out"
	"remat|nv-opt -O3 \$in | nv-remat -remat-maxreg-ceiling=1 -remat-ignore-single-cost -remat-max-live-limit=100000 -remat-use-limit=100000 -o \$out"
	"remat-o0|nv-remat -remat-maxreg-ceiling=1 -remat-ignore-single-cost -remat-max-live-limit=100000 \$in -o \$out"
	"late-memory|nv-opt -pipeline=late-memory \$in -o \$out"
	"late-memory-O3|nv-opt -O3 -no-unroll \$in | nv-unroll | nv-opt -pipeline=post-unroll | nv-opt -pipeline=late-memory -o \$out"
	"split-link|nv-split -n 3 -o \$out.part \$in && nv-link -split-map=\$out.part.map \$out.part.*.bc -o \$out"
	"chain|nv-link \$in | nv-reflect | nv-inline | nv-opt -O3 -no-unroll -no-vectorize | nv-vectorize | nv-unroll | nv-opt -pipeline=mid-unroll | nv-unroll -config=D | nv-opt -pipeline=post-unroll | nv-remat -remat-maxreg-ceiling=1 -o \$out"
)

for tool in csmith clang-22 lli; do
	command -v "$tool" >/dev/null || { echo "csmith.sh: $tool is not installed" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A passed failed
run=0 discarded=0 unmade=0 fails=0

for ((s = seed; s < seed + n; s++)); do
	c="$tmp/p$s.c" in="$tmp/p$s.bc"
	if ! csmith --seed "$s" >"$c" 2>/dev/null ||
	   ! clang-22 -O0 -Xclang -disable-O0-optnone -w -I"$csmith_inc" -emit-llvm -c "$c" -o "$in" 2>/dev/null; then
		command -v csmith >/dev/null && command -v clang-22 >/dev/null ||
			{ echo "csmith.sh: csmith or clang-22 disappeared at seed $s" >&2; exit 2; }
		unmade=$((unmade + 1))
		continue
	fi
	ref=$(timeout "$limit" lli "$in" 2>/dev/null)
	rstatus=$?
	if [ $rstatus -ne 0 ]; then
		discarded=$((discarded + 1))
		continue
	fi
	run=$((run + 1))
	for row in "${configs[@]}"; do
		name=${row%%|*} cmd=${row#*|}
		if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then
			continue
		fi
		out="$tmp/p$s.$name.bc"
		if ! (export in out; eval "$cmd") 2>"$tmp/err"; then
			echo "FAIL seed $s config $name: the stage failed: $(head -c 300 "$tmp/err")"
			failed[$name]=$((${failed[$name]:-0} + 1)) fails=$((fails + 1))
			continue
		fi
		got=$(timeout "$((limit * 6))" lli "$out" 2>/dev/null)
		gstatus=$?
		if [ "$got" != "$ref" ] || [ $gstatus -ne $rstatus ]; then
			echo "FAIL seed $s config $name: '$ref' became '$got' (status $gstatus)"
			repro=${cmd//\$in/in.bc}
			echo "  reproduce: csmith --seed $s > p.c && clang-22 -O0 -Xclang -disable-O0-optnone -w -I$csmith_inc -emit-llvm -c p.c -o in.bc && lli in.bc; ${repro//\$out/out.bc} && lli out.bc"
			failed[$name]=$((${failed[$name]:-0} + 1)) fails=$((fails + 1))
			continue
		fi
		passed[$name]=$((${passed[$name]:-0} + 1))
	done
done

echo "csmith: seeds $seed..$((seed + n - 1)): $run run, $discarded discarded (undefined behaviour or over ${limit}s), $unmade not generated"
for row in "${configs[@]}"; do
	name=${row%%|*}
	if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then
		continue
	fi
	printf '  %-12s %4d passed, %d failed\n' "$name" "${passed[$name]:-0}" "${failed[$name]:-0}"
done
[ $fails -eq 0 ]
