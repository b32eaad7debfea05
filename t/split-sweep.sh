#!/bin/sh
# t/split-sweep.sh [-n MAXN] [-s STRESS] [-k DIR] [-m LIST] [-d LIST]: Phase II must never lose a
# kernel.  The property, for every module and every N from 1 to MAXN (8):
#
#   nv-split -n N | nv-link -split-map  gives the same bytes as N=1, the
#                                       module itself at N=1 (its text, or
#                                       llvm-diff's), and nv-llc makes the
#                                       same PTX from it;
#   nvcc-lite -split-compile=N          gives the same PTX bytes as N=1 and
#                                       so the same .entry/.func set, and
#                                       the joined module (-keep) is the
#                                       same bytes for every N >= 2.
#
# The modules: bench/kernels/*.cu and t/fixtures/*.cu, each as the front
# end gives it (linkonce_odr, comdats, internal helpers) and as nvcc-lite
# -emit-llvm gives it; t/fixtures/*.ll and *.bc that verify; STRESS (20)
# modules of llvm-stress-22 functions linked together, with every linkage
# and comdats.  With nvcc installed, each .cu's .entry set is also checked
# against nvcc's.  Prints "M modules x N checked, differences: D" and
# exits 1 when D > 0.  -k DIR keeps the work files.  -m LIST sweeps the
# modules LIST names instead (one .bc or .ll a line: say, the Phase I
# modules of a corpus, as nvcc-lite -keep leaves them in *.4-nv-opt.bc),
# their joined modules compared byte for byte.  -d LIST runs the driver
# checks on the sources LIST names instead, one "FILE.cu FLAGS..." a line
# (a corpus's files with their flags), each compiled in its directory.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
maxn=8 nstress=20 keep= list= dlist=
while [ $# -gt 0 ]; do
	case $1 in
	-n) maxn=${2:?}; shift 2 ;;
	-s) nstress=${2:?}; shift 2 ;;
	-k) keep=${2:?}; shift 2 ;;
	-m) list=${2:?}; shift 2 ;;
	-d) dlist=${2:?}; shift 2 ;;
	*) echo "split-sweep: unknown option '$1'" >&2; exit 2 ;;
	esac
done
bindir=$(llvm-config-22 --bindir)
PATH=$top/bin:$bindir:$PATH
export PATH
if [ -n "$keep" ]; then
	mkdir -p "$keep" && w=$(cd "$keep" && pwd)
else
	w=$(mktemp -d "${TMPDIR:-/tmp}/split-sweep.XXXXXX") && trap 'rm -rf "$w"' EXIT
fi
cuda=${CUDA_PATH:-/usr/local/cuda}
nvcc=$(command -v nvcc || { [ -x "$cuda/bin/nvcc" ] && echo "$cuda/bin/nvcc"; } || true)
shim=$top/share/nvcc-lite/cuda_shim.h
modules=0 checks=0 diffs=0

differ() {
	diffs=$((diffs + 1))
	echo "split-sweep: DIFFERENCE: $*"
}

# entries FILE.ptx: the sorted .entry and .func names
entries() {
	sed -n 's/^\(\.visible \|\.weak \|\.extern \)*\.\(entry\|func\)  *\(([^)]*)  *\)\{0,1\}\([A-Za-z0-9_$]*\).*/\2 \4/p' "$1" | sort -u
}

# tool_prop NAME M.bc CODEGEN: split and join M for N = 1..maxn
tool_prop() {
	name=$1 m=$2 cg=$3 d=$w/t/$1
	mkdir -p "$d"
	# input every stage refuses (a crash fixture) is no module to split
	nv-split -n 1 -o "$d/v" "$m" 2>/dev/null || { echo "split-sweep: skipped $name: invalid input"; return 0; }
	modules=$((modules + 1))
	n=1
	while [ "$n" -le "$maxn" ]; do
		checks=$((checks + 1))
		rm -f "$d"/p.*
		if ! nv-split -n "$n" -o "$d/p" "$m" 2>"$d/err" ||
			! nv-link -split-map="$d/p.map" "$d"/p.*.bc -o "$d/j$n.bc" 2>>"$d/err"; then
			differ "$name N=$n: split or join failed: $(head -1 "$d/err")"
		elif [ "$n" = 1 ]; then
			# the module itself: the same text but comments, or else what
			# llvm-diff calls the same (it allows another order of
			# declarations, but with both modules in one context it sees a
			# renamed struct type as a change, which the text rules out)
			llvm-dis "$m" -o - | grep -v '^;' >"$d/orig.ll"
			llvm-dis "$d/j1.bc" -o - | grep -v '^;' >"$d/j1.ll"
			cmp -s "$d/orig.ll" "$d/j1.ll" || [ -z "$(llvm-diff "$m" "$d/j1.bc" 2>&1)" ] ||
				differ "$name: the join changed a function: $(llvm-diff "$m" "$d/j1.bc" 2>&1 | head -1)"
			[ "$cg" = 0 ] || nv-llc -arch=sm_90 "$d/j1.bc" -o "$d/j1.ptx" 2>/dev/null || cg=0
		else
			cmp -s "$d/j1.bc" "$d/j$n.bc" || differ "$name N=$n: the joined module is not N=1's"
			if [ "$cg" = 1 ]; then
				nv-llc -arch=sm_90 "$d/j$n.bc" -o "$d/j$n.ptx" 2>/dev/null &&
					cmp -s "$d/j1.ptx" "$d/j$n.ptx" || differ "$name N=$n: PTX of the joined module is not N=1's"
			fi
			rm -f "$d/j$n.bc" "$d/j$n.ptx"
		fi
		n=$((n + 1))
	done
}

# driver_prop NAME FILE.cu [FLAGS]: nvcc-lite -split-compile=N for N = 1..maxn
driver_prop() {
	name=$1 cu=$2 flags=${3:-} d=$w/d/$1
	mkdir -p "$d"
	# shellcheck disable=SC2086
	nvcc-lite -ptx -w -arch=sm_90 $flags -split-compile=1 "$cu" -o "$d/1.ptx" 2>/dev/null || return 0
	modules=$((modules + 1))
	checks=$((checks + 1))
	entries "$d/1.ptx" >"$d/1.set"
	# shellcheck disable=SC2086
	if [ -n "$nvcc" ] && "$nvcc" -ptx -arch=sm_90 $flags "$cu" -o "$d/nvcc.ptx" 2>/dev/null; then
		grep '^entry ' "$d/1.set" >"$d/1.entry" || :
		entries "$d/nvcc.ptx" | grep '^entry ' >"$d/nvcc.entry" || :
		cmp -s "$d/1.entry" "$d/nvcc.entry" || differ "$name: .entry set is not nvcc's"
	fi
	n=2
	while [ "$n" -le "$maxn" ]; do
		checks=$((checks + 1))
		rm -rf "$d/k" && mkdir "$d/k"
		# shellcheck disable=SC2086
		if ! nvcc-lite -ptx -w -arch=sm_90 $flags -split-compile=$n -keep -keep-dir "$d/k" "$cu" -o "$d/$n.ptx" 2>"$d/err"; then
			differ "$name N=$n: nvcc-lite failed: $(grep -m1 error "$d/err")"
		else
			cmp -s "$d/1.ptx" "$d/$n.ptx" || differ "$name N=$n: PTX is not N=1's"
			entries "$d/$n.ptx" | cmp -s "$d/1.set" - || differ "$name N=$n: .entry/.func set is not N=1's"
			j=$(ls "$d"/k/*-nv-link.bc 2>/dev/null | grep -v '\.[0-9]*\.[0-9]*-' |
				sed 's/.*\.\([0-9]*\)-nv-link\.bc$/\1 &/' | sort -n | tail -1 | cut -d' ' -f2-)
			if [ -n "$j" ] && [ "$(ls "$d"/k/*.split.*.bc 2>/dev/null | wc -l)" -gt 1 ]; then
				if [ -f "$d/joined" ]; then
					cmp -s "$d/joined" "$j" || differ "$name N=$n: the joined module is not N=2's"
				else
					cp "$j" "$d/joined"
				fi
			fi
		fi
		n=$((n + 1))
	done
}

# front NAME FILE.cu OUT.bc: the front end's module, unoptimized
front() {
	CUDA_PATH=/nonexistent clang-22 -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 -nocudalib \
		-nocudainc -include "$shim" -Wno-unknown-cuda-version -O3 -Xclang -disable-llvm-passes \
		-emit-llvm -c "$2" -o "$3" 2>/dev/null
}

# stress K OUT.bc: six llvm-stress functions in one module, kept by a
# table, with every linkage (given after llvm-link, which drops the unused)
stress() {
	k=$1 out=$2 i=0 s=$w/s fns=
	mkdir -p "$s" && : >"$s/decl.ll"
	while [ "$i" -lt 6 ]; do
		seed=$((k * 100 + i))
		llvm-stress-22 -seed=$seed -size=$((40 + (seed * 7) % 120)) -o - |
			sed "s/@autogen_SD$seed\b/@f$seed/g" >"$s/$i.ll"
		fns="$fns${fns:+, }ptr @f$seed"
		echo "declare void @f$seed(ptr, ptr, ptr, i32, i64, i8)" >>"$s/decl.ll"
		i=$((i + 1))
	done
	cat "$s/decl.ll" - >"$s/g.ll" <<-EOF
	@fns$k = global [6 x ptr] [$fns]
	\$g$k = comdat any
	@g$k = linkonce_odr global i32 $k, comdat
	@s$k = internal global [4 x i32] zeroinitializer
	@w$k = weak global i64 0
	@0 = private constant i32 7
	define void @use$k(ptr %p) {
	  %v = load i32, ptr @g$k
	  %w = load i32, ptr @0
	  store i32 %v, ptr @s$k
	  store i32 %w, ptr %p
	  ret void
	}
	EOF
	llvm-link -S "$s"/[0-9].ll "$s/g.ll" -o "$s/all.ll" 2>/dev/null || return 1
	i=0
	while [ "$i" -lt 6 ]; do
		f=f$((k * 100 + i))
		case $((i % 6)) in
		1) sed -i "s/^define void @$f(/define internal void @$f(/" "$s/all.ll" ;;
		2) sed -i "s/^define void @$f(\(.*\)) {/define linkonce_odr void @$f(\1) comdat {/" "$s/all.ll"
		   echo "\$$f = comdat any" >>"$s/all.ll" ;;
		3) sed -i "s/^define void @$f(\(.*\)) {/define weak_odr hidden void @$f(\1) comdat {/" "$s/all.ll"
		   echo "\$$f = comdat any" >>"$s/all.ll" ;;
		4) sed -i "s/^define void @$f(/define weak void @$f(/" "$s/all.ll" ;;
		5) sed -i "s/^define void @$f(/define available_externally void @$f(/" "$s/all.ll" ;;
		esac
		i=$((i + 1))
	done
	llvm-as "$s/all.ll" -o "$out" 2>/dev/null
}

if [ -n "$dlist" ]; then
	i=0
	while read -r f fl; do
		i=$((i + 1))
		(cd "$(dirname "$f")" && driver_prop "c$i.$(basename "$f" .cu)" "$f" "$fl"; echo "$modules $checks $diffs" >"$w/counts") </dev/null
		read -r modules checks diffs <"$w/counts"
	done <"$dlist"
	echo "split-sweep: $modules modules x N=1..$maxn: $checks checked, differences: $diffs"
	[ "$diffs" -eq 0 ]
	exit
fi
if [ -n "$list" ]; then
	i=0
	while IFS= read -r f; do
		i=$((i + 1))
		tool_prop "m$i.$(basename "$f")" "$f" 0
	done <"$list"
	echo "split-sweep: $modules modules x N=1..$maxn: $checks checked, differences: $diffs"
	[ "$diffs" -eq 0 ]
	exit
fi
for cu in "$top"/bench/kernels/*.cu "$top"/t/fixtures/*.cu; do
	b=$(basename "$cu" .cu)
	front "$b" "$cu" "$w/$b.fe.bc" && tool_prop "$b.fe" "$w/$b.fe.bc" 1
	nvcc-lite -arch=sm_90 -emit-llvm "$cu" -o "$w/$b.o3.bc" 2>/dev/null && tool_prop "$b.o3" "$w/$b.o3.bc" 1
	driver_prop "$b" "$cu"
done
for f in "$top"/t/fixtures/*.ll "$top"/t/fixtures/*.bc; do
	b=$(basename "$f")
	llvm-as -o /dev/null "$f" 2>/dev/null || llvm-dis -o /dev/null "$f" 2>/dev/null || continue
	opt -passes=verify -disable-output "$f" 2>/dev/null || continue
	tool_prop "$b" "$f" 0
done
k=1
while [ "$k" -le "$nstress" ]; do
	stress "$k" "$w/stress$k.bc" && tool_prop "stress$k" "$w/stress$k.bc" 0
	k=$((k + 1))
done
echo "split-sweep: $modules modules x N=1..$maxn: $checks checked, differences: $diffs"
[ "$diffs" -eq 0 ]
