#!/bin/sh
# bench/split.sh [-r RUNS] [-o DIR]: Phase II in parallel.  Every
# bench/kernels/*.cu in one file (each in its own namespace), compiled with
# nvcc-lite -O3 at -split-compile=1 and =2, nvcc -ptx and clang-22 -O3 -S,
# interleaved, RUNS times; prints the median wall time of each, the
# speedup of =2 over =1, and the Phase II time of each from nvcc-lite -time.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${BENCH_RUNS:-3}
out=${BENCH_OUT:-$top/bench/out}
while [ $# -gt 0 ]; do
	case $1 in
	-r) runs=${2:?}; shift 2 ;;
	-o) out=${2:?}; shift 2 ;;
	*) echo "bench/split.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
mkdir -p "$out/split"
src=$out/split/many.cu
for f in "$top"/bench/kernels/*.cu; do
	echo "namespace ns_$(basename "$f" .cu) {"
	grep -v '^#include' "$f"
	echo "}"
done >"$src"
cuda=${CUDA_PATH:-/usr/local/cuda}
nvcc=$(command -v nvcc || { [ -x "$cuda/bin/nvcc" ] && echo "$cuda/bin/nvcc"; })
clang=$(command -v clang-22 || echo /usr/lib/llvm-22/bin/clang-22)
lite=$top/bin/nvcc-lite
now_ms() { echo $(($(date +%s%N) / 1000000)); }
r=0
: >"$out/split/times"
while [ "$r" -lt "$runs" ]; do
	for c in split1 split2 nvcc clang; do
		t0=$(now_ms)
		case $c in
		split1) rm -f "$out/split/time1.csv"; "$lite" -ptx -arch=sm_90 -split-compile=1 -time "$out/split/time1.csv" "$src" -o "$out/split/$c.ptx" 2>/dev/null ;;
		split2) rm -f "$out/split/time2.csv"; "$lite" -ptx -arch=sm_90 -split-compile=2 -time "$out/split/time2.csv" "$src" -o "$out/split/$c.ptx" 2>/dev/null ;;
		nvcc) [ -n "$nvcc" ] && "$nvcc" -ptx -arch=sm_90 "$src" -o "$out/split/$c.ptx" 2>/dev/null ;;
		clang) "$clang" -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 --cuda-path="$cuda" \
			-Wno-unknown-cuda-version -O3 -S "$src" -o "$out/split/$c.ptx" 2>/dev/null ;;
		esac || { echo "bench/split.sh: $c failed" >&2; continue; }
		echo "$c $(($(now_ms) - t0))" >>"$out/split/times"
	done
	r=$((r + 1))
done
cmp -s "$out/split/split1.ptx" "$out/split/split2.ptx" || echo "bench/split.sh: -split-compile=1 and =2 differ!" >&2
# After Phase I, in the last run: the split, the longest part, and the join
# with codegen (each chain's time: the sum of its steps' own wall times)
phase2() {
	awk -F' , ' '$8 != "ms" { next }
		/\(split\)/ { s += $7 } /\(join and codegen\)/ { j += $7 }
		match($2, /\(phase II( part [0-9]+)?\)$/) { part[substr($2, RSTART)] += $7 }
		END { for (k in part) if (part[k] > p) p = part[k]; printf "%.0f", s + p + j }' "$1"
}
awk -v p1="$(phase2 "$out/split/time1.csv")" -v p2="$(phase2 "$out/split/time2.csv")" -v n="$(grep -c __global__ "$src")" '
{ t[$1] = t[$1] " " $2 }
function median(s,   a, k, i, j, x) { k = split(s, a, " "); for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x } return a[int((k + 1) / 2)] }
END {
	printf "many-kernel file (%d kernels), median of runs, ms:\n", n
	printf "  nvcc-lite -split-compile=1  %6d\n  nvcc-lite -split-compile=2  %6d  (speedup %.2f)\n", median(t["split1"]), median(t["split2"]), median(t["split1"]) / median(t["split2"])
	if (t["nvcc"] != "") printf "  nvcc -ptx                   %6d  (nvcc-lite =1 / nvcc: %.2f)\n", median(t["nvcc"]), median(t["split1"]) / median(t["nvcc"])
	printf "  clang-22 -O3 -S             %6d  (nvcc-lite =1 / clang: %.2f)\n", median(t["clang"]), median(t["split1"]) / median(t["clang"])
	printf "  after Phase I (the last run, -time: split + longest part + join and codegen): %s ms at =1, %s ms at =2\n", p1, p2
}' "$out/split/times" | tee "$out/split/split.txt"
