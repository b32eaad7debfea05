#!/bin/sh
# bench/run.sh: every bench/kernels/*.cu through nvcc-lite -O3, nvcc-lite -O0,
# nvcc -ptx and clang-22 -O3 (sm_90), ptxas -v on each PTX, and a report per
# kernel and as geometric means of ratios to nvcc.  See bench/README.md.
#
#   sh bench/run.sh [-r RUNS] [-o DIR] [-k PATTERN] [--ptx-only]
#
#   -r RUNS       compile each kernel RUNS times per compiler, interleaved;
#                 the median time is reported (default 3, or BENCH_RUNS;
#                 nvcc-lite -O0, there for reference, once)
#   -o DIR        output directory (default bench/out, or BENCH_OUT)
#   -k PATTERN    only the kernels whose name matches this shell pattern
#   --ptx-only    compile once, no timing and no report (for bench-gpu)
#
# Output: DIR/{lite,lite-O0,nvcc,clang}/K.ptx and K.ptxas, DIR/bench.csv,
# DIR/bench.md, and the table on stdout.  A compiler that is not installed
# is left out (nvcc: no ratios).  Exit 1 when nvcc-lite fails on a kernel or
# ptxas rejects its PTX.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${BENCH_RUNS:-3}
out=${BENCH_OUT:-$top/bench/out}
pattern='*'
ptx_only=0
arch=sm_90
while [ $# -gt 0 ]; do
	case $1 in
	-r) runs=${2:?}; shift 2 ;;
	-o) out=${2:?}; shift 2 ;;
	-k) pattern=${2:?}; shift 2 ;;
	--ptx-only) ptx_only=1; runs=1; shift ;;
	-h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench: unknown option '$1' (try --help)" >&2; exit 2 ;;
	esac
done
case $runs in ''|*[!0-9]*|0) echo "bench: -r wants a positive count" >&2; exit 2 ;; esac

# shellcheck source=bench/tools.sh
. "$top/bench/tools.sh"
cuda=${CUDA_PATH:-/usr/local/cuda}
lite=$top/bin/nvcc-lite
[ -x "$lite" ] || { echo "bench: $lite is not built (run make)" >&2; exit 2; }
nvcc=$(find_tool nvcc "$cuda/bin") || nvcc=
ptxas=$(find_tool ptxas "$cuda/bin") || ptxas=
clang=$(find_tool clang-22 /usr/lib/llvm-22/bin) || clang=
if [ -f "$cuda/include/cuda_runtime.h" ]; then
	clang_cuda="--cuda-path=$cuda"
else
	clang_cuda="-nocudainc -nocudalib -include $top/share/nvcc-lite/cuda_shim.h"
fi

compilers="lite"
[ $ptx_only = 1 ] || compilers="$compilers lite-O0"
[ -n "$nvcc" ] && compilers="$compilers nvcc"
[ -n "$clang" ] && compilers="$compilers clang"
for c in $compilers; do mkdir -p "$out/$c"; done

compile() { # compile COMPILER SRC PTX
	case $1 in
	lite) "$lite" -ptx -arch=$arch -O3 -time "$out/lite.time.csv" "$2" -o "$3" ;;
	lite-O0) "$lite" -ptx -arch=$arch -O0 "$2" -o "$3" ;;
	nvcc) "$nvcc" -ptx -arch=$arch "$2" -o "$3" ;;
	clang) "$clang" -x cuda --cuda-device-only --cuda-gpu-arch=$arch $clang_cuda \
		-Wno-unknown-cuda-version -O3 -S "$2" -o "$3" ;;
	esac
}
now_ns() { date +%s%N; }

# ptxas -v of one PTX -> "regs spill stack" for ENTRY: registers of the
# entry, spill store+load bytes and stack frames summed over every function.
ptxas_stats() { # ptxas_stats LOG ENTRY
	awk -v e="$2" '
	/Function properties for/ { f = $NF }
	/bytes stack frame/ { stack += $1; spill += $5 + $9 }
	/Used [0-9]+ registers/ && f == e { for (i = 1; i <= NF; i++) if ($i == "Used") regs = $(i + 1) }
	END { print (regs == "" ? "-" : regs), spill + 0, stack + 0 }' "$1"
}

# PTX -> "instructions vector-memory-instructions"
ptx_stats() {
	awk '
	{ sub(/\/\/.*/, ""); gsub(/^[ \t]+|[ \t]+$/, "") }
	/^\.entry|^\.func|^\.visible|^\.weak/ { body = 0 }
	/^\{/ { body++; next }
	/^\}/ { body--; next }
	body > 0 && /;$/ && !/^\./ && !/^\)/ {
		n++
		op = $1; if (op ~ /^@/) op = $2
		if (op ~ /^(ld|st|ldu)\./ && op ~ /\.v(2|4|8)\./) v++
	}
	END { print n + 0, v + 0 }' "$1"
}

raw=$out/raw.tsv
: >"$raw"
rm -f "$out/lite.time.csv"
fail=0
kernels=0
for src in "$top"/bench/kernels/*.cu; do
	k=$(basename "$src" .cu)
	# shellcheck disable=SC2254
	case $k in $pattern) ;; *) continue ;; esac
	kernels=$((kernels + 1))
	entry=$(sed -n 's|^//@ kernel \([A-Za-z0-9_]*\).*|\1|p' "$src")
	[ -n "$entry" ] || { echo "bench: $src has no //@ kernel line" >&2; fail=1; continue; }
	[ $ptx_only = 1 ] || printf '%s' "$k" >&2
	times=""
	r=0
	while [ $r -lt "$runs" ]; do
		for c in $compilers; do
			# -O0 is for reference: compiled (and timed) once
			[ $c = lite-O0 ] && [ $r -gt 0 ] && continue
			t0=$(now_ns)
			if compile "$c" "$src" "$out/$c/$k.ptx" 2>"$out/$c/$k.err"; then
				t1=$(now_ns)
				times="$times $c=$(((t1 - t0) / 1000000))"
			else
				times="$times $c=fail"
			fi
		done
		r=$((r + 1))
	done
	[ $ptx_only = 1 ] || printf ' ' >&2
	for c in $compilers; do
		ms=$(echo "$times" | tr ' ' '\n' | sed -n "s/^$c=//p" | sort -n | awk '
			/fail/ { f = 1 } { a[NR] = $1 } END { print f ? "fail" : a[int((NR + 1) / 2)] }')
		if [ "$ms" = fail ]; then
			echo "bench: $c failed on $k:" >&2
			sed 's/^/  /' "$out/$c/$k.err" >&2
			case $c in lite*) fail=1 ;; esac
			rm -f "$out/$c/$k.ptx"
			continue
		fi
		[ $ptx_only = 1 ] && continue
		regs=- spill=- stack=-
		if [ -n "$ptxas" ]; then
			if "$ptxas" -v -arch=$arch "$out/$c/$k.ptx" -o /dev/null >"$out/$c/$k.ptxas" 2>&1; then
				set -- $(ptxas_stats "$out/$c/$k.ptxas" "$entry")
				regs=$1 spill=$2 stack=$3
			else
				echo "bench: ptxas rejects $c's PTX for $k:" >&2
				sed 's/^/  /' "$out/$c/$k.ptxas" >&2
				case $c in lite*) fail=1 ;; esac
				continue
			fi
		fi
		set -- $(ptx_stats "$out/$c/$k.ptx")
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$c" "$regs" "$spill" "$stack" "$1" "$2" "$ms" >>"$raw"
	done
done
if [ $kernels = 0 ]; then
	echo "bench: no kernel matches '$pattern'" >&2
	exit 2
fi
[ $ptx_only = 1 ] || echo >&2
[ $ptx_only = 1 ] && exit $fail

# The report: one row per kernel (lite/nvcc/clang for each metric), then the
# geometric means of ratios to nvcc.  Spill, stack and vector counts are
# often 0, so their ratios are (x+1)/(nvcc+1).
echo "kernel,compiler,regs,spill_bytes,stack_bytes,ptx_insts,vec_mem_insts,compile_ms" >"$out/bench.csv"
tr '\t' ',' <"$raw" >>"$out/bench.csv"
awk -F'\t' -v md="$out/bench.md" -v runs="$runs" -v have_nvcc="$([ -n "$nvcc" ] && echo 1)" \
    -v have_ptxas="$([ -n "$ptxas" ] && echo 1)" '
function cell(k, c, m) { return ((k, c, m) in v) ? v[k, c, m] : "-" }
function triple(k, m) { return sprintf("%s/%s/%s", cell(k, "lite", m), cell(k, "nvcc", m), cell(k, "clang", m)) }
{
	if (!($1 in seen)) { seen[$1] = 1; order[++nk] = $1 }
	for (m = 3; m <= 8; m++) v[$1, $2, m] = $m
}
END {
	split("regs spill stack insts vec ms", title, " ")
	split("registers|spill bytes|stack bytes|PTX instructions|v2/v4 ld/st|compile ms", long, "|")
	hdr = sprintf("%-22s %12s %12s %12s %16s %10s %16s", "kernel (lite/nvcc/clang)",
		"regs", "spill B", "stack B", "PTX insts", "v2/v4", "compile ms")
	print hdr
	print "| kernel | registers | spill B | stack B | PTX insts | v2/v4 ld/st | compile ms | nvcc-lite -O0 insts |" >md
	print "|---|---|---|---|---|---|---|---|" >md
	for (i = 1; i <= nk; i++) {
		k = order[i]
		printf "%-22s %12s %12s %12s %16s %10s %16s\n", k, triple(k, 3), triple(k, 4), triple(k, 5),
			triple(k, 6), triple(k, 7), triple(k, 8)
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", k, triple(k, 3), triple(k, 4), triple(k, 5),
			triple(k, 6), triple(k, 7), triple(k, 8), cell(k, "lite-O0", 6) >md
	}
	print ""
	printf "\n(each cell: nvcc-lite -O3 / nvcc / clang-22 -O3; compile ms: median of %d)\n\n", runs >md
	if (!have_nvcc) { print "nvcc not found: no ratios."; print "nvcc not found: no ratios." >md; exit }
	n = split("lite lite-O0 clang", cs, " ")
	printf "%-30s %9s %9s %9s %9s %9s %11s\n", "geomean ratio to nvcc", "regs", "spill", "stack", "insts", "v2/v4", "compile"
	print "| geomean ratio to nvcc | registers | spill | stack | PTX insts | v2/v4 | compile time |" >md
	print "|---|---|---|---|---|---|---|" >md
	label["lite"] = "nvcc-lite -O3"; label["lite-O0"] = "nvcc-lite -O0"; label["clang"] = "clang-22 -O3"
	for (j = 1; j <= n; j++) {
		c = cs[j]; line = sprintf("%-30s", label[c]); mdl = "| " label[c]
		for (m = 3; m <= 8; m++) {
			s = 0; cnt = 0
			for (i = 1; i <= nk; i++) {
				k = order[i]
				if (!((k, c, m) in v) || !((k, "nvcc", m) in v) || v[k, c, m] == "-" || v[k, "nvcc", m] == "-")
					continue
				a = v[k, c, m]; b = v[k, "nvcc", m]
				if (m == 4 || m == 5 || m == 7) { a++; b++ }
				if (a <= 0 || b <= 0) continue
				s += log(a / b); cnt++
			}
			r = cnt ? sprintf("%.3f", exp(s / cnt)) : "-"
			line = line sprintf(" %9s", r); mdl = mdl " | " r
		}
		print line; print mdl " |" >md
	}
	printf "\n%d kernels. Below 1: fewer than nvcc (less time); for v2/v4, more is better.\n", nk
	print "Spill, stack and v2/v4 ratios are (x+1)/(nvcc+1)."
	printf "\n%d kernels; spill, stack and v2/v4 ratios are (x+1)/(nvcc+1).\n", nk >md
	if (!have_ptxas) print "ptxas not found: no registers, spills or stack."
}' "$raw"
# where nvcc-lite -O3's time went, from its -time rows (bench/stages.awk)
if [ -s "$out/lite.time.csv" ]; then
	printf '\n## Where nvcc-lite -O3'"'"'s time goes (every timed compile, -time)\n\n' >>"$out/bench.md"
	awk -f "$top/bench/stages.awk" "$out/lite.time.csv" | tee -a "$out/bench.md"
fi
# Phase II in parallel, on every kernel in one file (bench/split.sh)
[ "$pattern" = '*' ] && sh "$top/bench/split.sh" -r "$runs" -o "$out"
echo "CSV in $out/bench.csv, Markdown in $out/bench.md"
exit $fail
