#!/usr/bin/env bash
# t/csmith.sh [-n N] [-s FIRST_SEED] [-j JOBS] [-c CONFIG]...: meaning preservation.
#
# Each seed gives two programs: csmith's (integers) and t/fpgen.py's
# (floating point).  clang-22 -O2 with LLVM's passes off makes host bitcode
# whose functions can be inlined (at -O0 clang marks every one noinline,
# and at -O1 every loop unroll.disable), without FP contraction; lli runs it
# for the reference output (MCJIT without codegen optimization: see
# lli_flags).  Then every
# stage configuration below transforms the bitcode and lli runs it again:
# the output and exit status must be the same, bit for bit (no configuration
# here allows FP reassociation on FP programs).  Programs whose reference run
# fails or times out (undefined behaviour, too slow) are discarded and
# counted; a program that could not be generated is counted apart, and if
# the tools themselves go missing the run stops.  A transformed module gets
# six times the reference's time limit: lli JIT-compiles it first, and
# optimized code can take far longer to JIT (csmith seed 221 after LLVM's
# -O3: 20 s in lli, 0.00 s compiled natively).  A stage gets 30 times the
# limit, nvcc-lite and ptxas 60 times (a csmith kernel is one huge function:
# 20 s of nv-llc alone, minutes on a loaded machine).
#
# Counting: the stages a row names with $R print their passed remarks, one
# line per transformation made; a row without $R (LLVM pipelines whose
# passes make no remarks) counts the lines of IR that changed.  A
# configuration that made none over the whole run FAILS: a check where
# nothing fired checked nothing.
#
# The driver path: every program, t/csmith-kernel.c appended, is compiled for
# nvptx64 (the host's C headers, read as x86-64's) with the 32-bit shared,
# constant and local pointers nvcc-lite's front end gives optimized device
# code, and taken by nvcc-lite through its whole chain to PTX, which ptxas
# -arch=sm_90 must accept; the passed remarks of -save-remarks are its count.
#
# A failure prints the seed and the commands that reproduce it; the table at
# the end gives programs, transformations and failures per configuration.
# Exit 1 if anything failed.
set -u
n=10 seed=1 jobs=1 only=()
while getopts n:s:j:c: o; do
	case $o in
	n) n=$OPTARG ;;
	s) seed=$OPTARG ;;
	j) jobs=$OPTARG ;;
	c) only+=("$OPTARG") ;;
	*) echo "usage: $0 [-n N] [-s SEED] [-j JOBS] [-c CONFIG]..." >&2; exit 2 ;;
	esac
done
top=${CSMITH_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
bin=$(${LLVM_CONFIG:-llvm-config-22} --bindir)
PATH="$top/bin:$bin:$PATH"
csmith_inc=${CSMITH_INCLUDE:-/usr/include/csmith}
host_inc=${HOST_INCLUDE:-/usr/include/x86_64-linux-gnu}
limit=${CSMITH_TIMEOUT:-10}
# lli's settings for the reference and every transformed module alike.  The
# host backend only runs what our stages made, so its optimization level does
# not matter to the check, while JIT time is most of a run: MCJIT at -O0
# JIT-compiles csmith's modules about three times faster than lli's default
# (ORC at -O2, which ignores -O0).
lli_flags=${CSMITH_LLI_FLAGS:--jit-kind=mcjit -O0}
export R=-pass-remarks=.

# name | programs (c, fp) | command reading $in and writing $out; $R on the
# stages whose transformations count.  Stages add rows here.
configs=(
	"reflect|c fp|nv-reflect \$R -arch=sm_90 \$in -o \$out"
	"O1|c fp|nv-opt \$R -O1 \$in -o \$out"
	"O3|c fp|nv-opt \$R -O3 \$in -o \$out"
	"std1|c fp|nv-opt -pipeline=std1 \$in -o \$out"
	"std5|c fp|nv-opt \$R -pipeline=std5 \$in -o \$out"
	"std8|c fp|nv-opt -pipeline=std8 \$in -o \$out"
	"loop-canon|c fp|nv-opt \$R -pipeline=loop-canon \$in -o \$out"
	"unroll|c fp|nv-opt -pipeline=loop-canon \$in | nv-unroll \$R -o \$out"
	"unroll-O3|c fp|nv-opt -O3 -no-unroll \$in | nv-unroll \$R | nv-opt -pipeline=mid-unroll | nv-unroll \$R -config=D -o \$out"
	"unroll-max|c fp|nv-opt -pipeline=loop-canon \$in | nv-unroll \$R -unroll-threshold=100000 -unroll-partial-threshold=100000 -runtime-unroll-threshold=100000 -unroll-count=3 -flat-loop-tripcount-threshold=0 -o \$out"
	"unroll-prolog|c fp|nv-opt -pipeline=loop-canon \$in | nv-unroll \$R -waterfall-unrolling-force-epilogue=0 -unroll-full-max-count=2 -unroll-count=4 -runtime-unroll-threshold=100000 -o \$out"
	"unroll-peel|c fp|nv-opt -pipeline=loop-canon \$in | nv-unroll \$R -unroll-peel-count=2 -unroll-full-max-count=1 -o \$out"
	"unroll-multi-exit|c fp|set -o pipefail; nv-opt -pipeline=loop-canon \$in | nv-unroll \$R -unroll-threshold=100000 -o \$out 2>&1 | awk '!/: remark: / || /at the latch/' >&2"
	"unroll-may-wrap|c fp|set -o pipefail; nv-opt -pipeline=loop-canon \$in | nv-unroll \$R -nv-unroll-runtime-may-wrap=1 -o \$out 2>&1 | awk '!/: remark: / || /may wrap past the bound counted/' >&2"
	"inline|c fp|nv-inline \$R \$in -o \$out"
	"inline-all|c fp|nv-inline \$R -nv-inline-all \$in -o \$out"
	"inline-min|c fp|nv-inline \$R -inline-budget=0 -inline-threshold=0 -inline-switchctrl=5 \$in -o \$out"
	"vectorize|c fp|nv-opt -O3 -no-unroll -no-vectorize \$in | nv-vectorize \$R -o \$out"
	"vectorize-max|c fp|nv-opt -O3 -no-unroll -no-vectorize \$in | nv-vectorize \$R -vectorizer-min-trip-count=0 -force-target-max-vector-interleave=2 -force-target-max-scalar-interleave=2 -o \$out"
	"remat|c fp|nv-opt -O3 \$in | nv-remat \$R -remat-maxreg-ceiling=1 -remat-ignore-single-cost -remat-max-live-limit=100000 -remat-use-limit=100000 -o \$out"
	"remat-through|c fp|set -o pipefail; nv-opt -O3 \$in | nv-remat \$R -do-remat=0 -remat-iv=0 -simplify-live-out=0 -remat-narrow=0 -remat-base-reuse=0 -remat-sink=0 -o \$out 2>&1 | awk '!/: remark: / || /instead of living through it unused/' >&2"
	"remat-loop|c fp|nv-opt -pipeline=loop-canon \$in | nv-remat \$R -remat-maxreg-ceiling=1 -remat-iv=5 -remat-ignore-single-cost -remat-max-live-limit=100000 -o \$out"
	"late-memory|c fp|nv-opt -pipeline=late-memory \$in -o \$out"
	"unswitch|c fp|nv-opt -O3 -no-unroll \$in | nv-opt \$R -nv-loop-unswitch-divergent=1 -pipeline=unswitch -o \$out"
	"select|c fp|nv-opt -passes='function(sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>)' \$in | nv-opt \$R -nv-select-formation-min-phis=1 -passes='select-formation,function(simplifycfg)' -o \$out"
	"select-any|c fp|nv-opt -passes='function(sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>)' \$in | nv-opt \$R -nv-select-formation=2 -nv-select-formation-fcmp=1 -passes='select-formation,function(simplifycfg)' -o \$out"
	"late-memory-O3|c fp|nv-opt -O3 -no-unroll \$in | nv-unroll | nv-opt -pipeline=post-unroll | nv-opt -pipeline=late-memory -o \$out"
	"basr-chain|c fp|set -o pipefail; nv-opt -O3 -no-unroll \$in | nv-unroll | nv-opt -pipeline=post-unroll | nv-opt \$R -nv-basr-chain-in-loops=1 -pipeline=late-memory -o \$out 2>&1 | awk '!/: remark: / || /pass-remarks=base-address-strength-reduce-chain]/' >&2"
	"split-link|c fp|nv-split -n 3 -o \$out.part \$in && nv-link \$R -split-map=\$out.part.map \$out.part.*.bc -o \$out"
	"chain|c fp|nv-link \$R \$in | nv-reflect \$R -arch=sm_90 | nv-inline \$R | nv-unroll \$R -config=P | nv-opt -O3 -no-unroll -no-vectorize | nv-vectorize \$R | nv-unroll \$R | nv-opt -pipeline=mid-unroll | nv-unroll \$R -config=D | nv-opt -pipeline=post-unroll | nv-opt -pipeline=late-memory | nv-remat \$R -remat-maxreg-ceiling=1 -o \$out"
)
# name | nvcc-lite options: the program as device code, to PTX and ptxas.
drivers=(
	"nvcc-O3|-O3"
	"nvcc-reg|-O1 -maxrregcount=24 -split-compile=2"
)

cflags_c="-O2 -Xclang -disable-llvm-passes -w -I$csmith_inc"
cflags_fp="-O2 -Xclang -disable-llvm-passes -ffp-contract=off -w"
dflags="--target=nvptx64-nvidia-cuda -march=sm_90 -O2 -Xclang -disable-llvm-passes -ffp-contract=off -w -std=gnu17 -I$csmith_inc -isystem $host_inc -D__x86_64__ -Dmain=prog_main -Dstrcmp=prog_strcmp -Xclang -fcuda-short-ptr -mllvm --nvptx-short-ptr"

for tool in csmith clang-22 lli python3 nvcc-lite; do
	command -v "$tool" >/dev/null || { echo "csmith.sh: $tool is not installed" >&2; exit 2; }
done
# Without CUDA's assembler the driver path ends at nvcc-lite's PTX.
ptxas=$(command -v ptxas || true)
[ -n "$ptxas" ] || echo "csmith.sh: ptxas is not installed: the driver path stops at nvcc-lite's PTX"
assemble() {
	[ -z "$ptxas" ] || timeout "$((limit * 60))" "$ptxas" -arch=sm_90 "$1" -o "$2"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

chosen() {
	[ ${#only[@]} -eq 0 ] || [[ " ${only[*]} " == *" $1 "* ]]
}

# generate KIND SEED FILE.c: the program, or status 1
generate() {
	case $1 in
	c) csmith --seed "$2" >"$3" 2>/dev/null ;;
	fp) python3 "$top/t/fpgen.py" "$2" >"$3" ;;
	esac
}

gen_repro() {
	case $1 in
	c) echo "csmith --seed $2 > p.c && clang-22 $cflags_c -emit-llvm -c p.c -o in.bc" ;;
	fp) echo "python3 t/fpgen.py $2 > p.c && clang-22 $cflags_fp -emit-llvm -c p.c -o in.bc" ;;
	esac
}

# check KIND SEED: one program through every configuration; results in
# $tmp/res.KIND.SEED as lines "config ok|fail transformations" or a word
# (run, discarded, unmade), failures on stdout.
check() {
	local kind=$1 s=$2 d="$tmp/$1.$2"
	local res="$tmp/res.$1.$2" c="$d.c" in="$d.bc" err="$d.err" flags
	flags=cflags_$kind
	if ! generate "$kind" "$s" "$c" ||
	   ! clang-22 ${!flags} -emit-llvm -c "$c" -o "$in" 2>/dev/null; then
		echo unmade >"$res"
		return
	fi
	local ref rstatus got gstatus row name kinds cmd out count hash
	# lli's output and status per module content: a configuration whose
	# module is the same, byte for byte, as the input or as an earlier
	# configuration's runs the same
	local -A ran_out ran_status
	ref=$(timeout "$limit" lli $lli_flags "$in" 2>/dev/null)
	rstatus=$?
	if [ $rstatus -ne 0 ]; then
		echo discarded >"$res"
		return
	fi
	echo run >"$res"
	hash=$(md5sum <"$in")
	ran_out[$hash]=$ref ran_status[$hash]=$rstatus
	for row in "${configs[@]}"; do
		IFS='|' read -r name kinds cmd <<<"$row"
		chosen "$name" && [[ " $kinds " == *" $kind "* ]] || continue
		out="$d.$name.bc"
		if ! (export in out; timeout "$((limit * 30))" bash -c "$cmd") 2>"$err"; then
			grep -qv ': remark: ' "$err" || echo "timed out after $((limit * 30))s" >>"$err"
			echo "FAIL $kind seed $s config $name: the stage failed: $(grep -v ': remark: ' "$err" | head -c 300)"
			echo "$name fail 0" >>"$res"
			continue
		fi
		if [[ $cmd == *'$R'* ]]; then
			count=$(grep -c ': remark: ' "$err")
		else
			[ -e "$d.ll" ] || llvm-dis "$in" -o "$d.ll"
			count=$(diff "$d.ll" <(llvm-dis "$out" -o -) | grep -c '^[<>] ')
		fi
		hash=$(md5sum <"$out")
		if [ -n "${ran_status[$hash]+set}" ]; then
			got=${ran_out[$hash]} gstatus=${ran_status[$hash]}
		else
			got=$(timeout "$((limit * 6))" lli $lli_flags "$out" 2>/dev/null)
			gstatus=$?
			ran_out[$hash]=$got ran_status[$hash]=$gstatus
		fi
		if [ "$got" != "$ref" ] || [ $gstatus -ne $rstatus ]; then
			echo "FAIL $kind seed $s config $name: '$ref' became '$got' (status $gstatus)"
			cmd=${cmd//\$R /}
			cmd=${cmd//\$in/in.bc}
			echo "  reproduce: $(gen_repro "$kind" "$s") && lli $lli_flags in.bc; ${cmd//\$out/out.bc} && lli $lli_flags out.bc"
			echo "$name fail $count" >>"$res"
			continue
		fi
		echo "$name ok $count" >>"$res"
	done
	drive "$kind" "$s" "$d" "$res"
	rm -rf "$d".*
}

# drive KIND SEED PREFIX RESULTS: the program as device code, through nvcc-lite
drive() {
	local kind=$1 s=$2 d=$3 res=$4 args= row name opts count any=
	for row in "${drivers[@]}"; do
		chosen "${row%%|*}" && any=1
	done
	[ -n "$any" ] || return 0
	[ "$kind" = c ] && args='1, argv'
	cat "$d.c" "$top/t/csmith-kernel.c" >"$d.dev.c"
	if ! clang-22 $dflags "-DPROG_ARGS=$args" -emit-llvm -c "$d.dev.c" -o "$d.dev.bc" 2>"$d.err"; then
		echo "FAIL $kind seed $s: clang-22 cannot make device code: $(head -c 300 "$d.err")"
		echo "device fail 0" >>"$res"
		return
	fi
	for row in "${drivers[@]}"; do
		IFS='|' read -r name opts <<<"$row"
		chosen "$name" || continue
		rm -rf "$d.rem"
		if ! timeout "$((limit * 60))" nvcc-lite -arch=sm_90 $opts -save-remarks "$d.rem" -ptx "$d.dev.bc" -o "$d.ptx" 2>"$d.err" ||
		   ! assemble "$d.ptx" "$d.cubin" 2>>"$d.err"; then
			[ -s "$d.err" ] || echo "timed out after $((limit * 60))s" >"$d.err"
			echo "FAIL $kind seed $s config $name: $(head -c 300 "$d.err")"
			echo "  reproduce: $(gen_repro "$kind" "$s" | sed 's/ && clang.*//') && cat p.c t/csmith-kernel.c > d.c && clang-22 $dflags '-DPROG_ARGS=$args' -emit-llvm -c d.c -o d.bc && nvcc-lite -arch=sm_90 $opts -ptx d.bc -o d.ptx && ptxas -arch=sm_90 d.ptx"
			echo "$name fail 0" >>"$res"
			continue
		fi
		count=$(cat "$d.rem"/*.yaml 2>/dev/null | grep -c '^--- !Passed')
		echo "$name ok $count" >>"$res"
	done
}

for ((s = seed; s < seed + n; s++)); do
	for kind in c fp; do
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
			wait -n
		done
		check "$kind" "$s" &
	done
	command -v csmith >/dev/null && command -v clang-22 >/dev/null ||
		{ echo "csmith.sh: csmith or clang-22 disappeared at seed $s" >&2; wait; exit 2; }
done
wait

cat "$tmp"/res.* | awk -v first="$seed" -v last="$((seed + n - 1))" -v limit="$limit" -v rows="$(
	for row in "${configs[@]}" "${drivers[@]}"; do
		name=${row%%|*}
		chosen "$name" && printf '%s ' "$name"
	done)" '
	NF == 1 { words[$1]++; next }
	{ progs[$1]++; made[$1] += $3; if ($2 == "fail") bad[$1]++ }
	END {
		printf "csmith: seeds %s..%s: %d run, %d discarded (undefined behaviour or over %ss), %d not generated\n",
		    first, last, words["run"], words["discarded"], limit, words["unmade"]
		printf "  %-14s %8s %15s %8s\n", "configuration", "programs", "transformations", "failures"
		k = split(rows, name, " ")
		if (bad["device"]) { name[++k] = "device" }
		for (i = 1; i <= k; i++) {
			c = name[i]
			printf "  %-14s %8d %15d %8d\n", c, progs[c], made[c], bad[c]
			fails += bad[c]
			if (progs[c] > 0 && made[c] == 0) {
				printf "FAIL config %s made no transformations in %d programs\n", c, progs[c]
				fails++
			}
		}
		exit fails > 0
	}'
