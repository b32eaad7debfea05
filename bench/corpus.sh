#!/bin/sh
# bench/corpus.sh: every .cu under the given directories through nvcc -ptx
# and nvcc-lite (sm_90, -O3, the same flags), ptxas -v on both PTX files,
# and a report: nvcc-lite failures with their first error line, ptxas
# rejections, .entry sets that differ from nvcc's, and per kernel registers,
# spills, stack and PTX instructions for both.  See bench/README.md.
#
#   sh bench/corpus.sh [-j N] [-o DIR] [-k REGEX] [-x REGEX] [-f LIST] [-n N]
#                      [-X KNOB,...] [-r DIR] [-C] DIR...
#
#   -j N          compile N files at once (default 1; quote times from -j 1)
#   -o DIR        output directory (default bench/out, or BENCH_OUT)
#   -k REGEX      only the files whose name (CORPUS/PATH) matches this ERE
#   -x REGEX      leave out the files whose name matches this ERE
#   -f LIST       only the files named in LIST, one CORPUS/PATH a line
#                 (e.g. the lite-fail rows of a previous corpus-files.csv)
#   -n N          only the first N files (after -k, -x and -f)
#   -X KNOB,...   pass -Xcicc KNOB,... to nvcc-lite only (e.g. -do-remat=0:
#                 the same pipeline without a stage's engine)
#   -r DIR        reuse nvcc's PTX, ptxas -v and time from the earlier run
#                 whose output directory is DIR, for each file it compiled
#                 with the same flags (nvcc-lite is always run)
#   -C            also plain LLVM: the clang command nvcc-lite's -dryrun
#                 gives each file nvcc-lite compiles, with clang's -O3
#                 pipeline and libdevice instead of nvcc-lite's stages
#
# CORPUS is a directory's base name (cuda-samples), PATH a .cu file's path
# under it.  Extra flags for both compilers come from bench/corpus/CORPUS.flags
# (GLOB on PATH) and from any .corpus-flags file between DIR and the source's
# directory (GLOB on the path below it): lines "GLOB FLAGS...", GLOB a shell
# pattern (* matches /), $ROOT in FLAGS the corpus directory, $HERE the flag
# file's; every line that matches adds its flags, in order.
# NVCC_LITE names the nvcc-lite to measure (default bin/nvcc-lite).
#
# Output: DIR/corpus.csv (a row per kernel), DIR/corpus-files.csv (a row
# per file), DIR/corpus.md, PTX, logs and ptxas -v output under
# DIR/corpus/CORPUS/PATH.*, and the summary on stdout.  Exit 0 when the
# bar of issue #22 is met (nvcc-lite compiles at least 98% of the files
# nvcc compiles, ptxas accepts all its PTX, every kernel set is nvcc's),
# 1 when it is not, 2 on a usage error.  With -C, the clang_* columns and a
# table of nvcc-lite against plain clang.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=${BENCH_OUT:-$top/bench/out}
jobs=1 keep='' drop='' list='' limit=0 knobs='' reuse='' plain=''
arch=sm_90
usage() { sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "corpus: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=${2:?}; shift 2 ;;
	-j[0-9]*) jobs=${1#-j}; shift ;;
	-o) out=${2:?}; shift 2 ;;
	-k) keep=${2:?}; shift 2 ;;
	-x) drop=${2:?}; shift 2 ;;
	-f) list=${2:?}; shift 2 ;;
	-n) limit=${2:?}; shift 2 ;;
	-X) knobs=${2:?}; shift 2 ;;
	-r) reuse=${2:?}; shift 2 ;;
	-C) plain=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option '$1' (try --help)" ;;
	*) break ;;
	esac
done
case $jobs in ''|*[!0-9]*|0) die "-j wants a positive count" ;; esac
case $limit in ''|*[!0-9]*) die "-n wants a count" ;; esac
[ $# -gt 0 ] || die "no corpus directory (try --help)"
[ -z "$list" ] || [ -r "$list" ] || die "cannot read $list"
[ -z "$reuse" ] || [ -d "$reuse/corpus" ] || die "$reuse holds no earlier corpus run"
[ -z "$reuse" ] || reuse=$(cd "$reuse" && pwd)

# shellcheck source=bench/tools.sh
. "$top/bench/tools.sh"
cuda=${CUDA_PATH:-/usr/local/cuda}
lite=${NVCC_LITE:-$top/bin/nvcc-lite}
[ -x "$lite" ] || die "$lite is not built (run make)"
nvcc=$(find_tool nvcc "$cuda/bin") || die "nvcc is not installed: the corpus is measured against it"
ptxas=$(find_tool ptxas "$cuda/bin") || die "ptxas is not installed"

# clang_ptx SRC OUT: plain LLVM on SRC, PTX to OUT.  The command is the
# clang nvcc-lite runs (its -dryrun line without the header cache: the same
# front end, defines and 32-bit shared pointers) with LLVM's -O3 pipeline
# left on and libdevice linked by clang; so what differs from nvcc-lite is
# its stages alone.
clang_ptx() {
	# shellcheck disable=SC2086
	cmd=$(cd "$(dirname "$1")" && "$lite" -no-cache -ptx -arch=$arch -O3 $flags "$1" -o /dev/null -dryrun 2>/dev/null |
		grep -m 1 -e ' --cuda-device-only ') || { echo "corpus: no clang command in nvcc-lite -dryrun" >&2; return 1; }
	cmd=$(printf '%s\n' "$cmd" | sed -e 's/ -Xclang -disable-llvm-passes//' -e 's/ -nocudalib//' \
		-e 's/ -emit-llvm -c / -S /' -e 's/ -o "\$tmp\/[^"]*"$//')
	case $cmd in
	*'$tmp'* | *' -emit-llvm '* | *' -include-pch '*) echo "corpus: nvcc-lite -dryrun's clang command is not the one expected" >&2; return 1 ;;
	esac
	(cd "$(dirname "$1")" && clang_out=$2 && eval "$cmd"' -o "$clang_out"')
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }




# entries PTX: the .entry names, sorted.
entries() {
	sed -n '/\.extern/!s/^[^/]*\.entry[ 	]*\([A-Za-z0-9_$.]*\).*/\1/p' "$1" | sort -u
}

# kernel_insts PTX: "ENTRY INSTRUCTIONS" for each .entry: the statements of
# its body (bench/run.sh's count, but a statement over several lines, as
# call.uni is printed, counts once).  Inline assembly opens and closes its
# own blocks on the lines of its statements ("{.reg .f16 low;" ...
# "mov.b32 %r1, {low,low};}"): a brace that opens a line outside a
# statement or closes one after its statement is a block's, one inside a
# statement an operand's (wmma.mma's vectors open the lines it goes on to).
kernel_insts() {
	awk '
	{ sub(/\/\/.*/, ""); gsub(/^[ \t]+|[ \t]+$/, "") }
	$0 == "" { next }
	depth == 0 && /\.entry[ \t]/ {
		cur = $0; sub(/.*\.entry[ \t]+/, "", cur); sub(/[^A-Za-z0-9_$.].*/, "", cur)
		n[cur] = 0; order[++nk] = cur; next
	}
	depth == 0 && /\.func[ \t]/ { cur = ""; next }
	{
		for (opn = 0; st == "" && substr($0, 1, 1) == "{"; opn++) { $0 = substr($0, 2); sub(/^[ \t]+/, "") }
		for (cls = 0; $0 == "}" || $0 ~ /;[ \t]*}$/; cls++) sub(/[ \t]*}$/, "")
		depth += opn
		if (opn) st = ""
	}
	$0 ~ /:$/ { st = "" }
	$0 != "" && $0 !~ /:$/ && depth > 0 && cur != "" {
		st = st == "" ? $0 : st " " $0
		if (/;$/) { if (st !~ /^\./) n[cur]++; st = "" }
	}
	cls { depth -= cls; st = ""; if (depth == 0) cur = "" }
	END { for (i = 1; i <= nk; i++) print order[i], n[order[i]] }' "$1"
}

# kernel_ptxas LOG: "ENTRY REGISTERS SPILL STACK SMEM" for each entry of a
# ptxas -v log; spill is store plus load bytes, both the entry's own; SMEM
# its static shared memory.
kernel_ptxas() {
	awk '
	/Compiling entry function/ { e = $0; sub(/.*function ./, "", e); sub(/. for .*/, "", e); cur = e }
	/Function properties for/ { f = $NF }
	/bytes stack frame/ { stack[f] = $1; spill[f] = $5 + $9 }
	/Used [0-9]+ registers/ && cur != "" {
		sm = 0
		for (i = 1; i <= NF; i++) {
			if ($i == "Used") r = $(i + 1)
			if ($i ~ /^smem,?$/ && $(i - 1) == "bytes") sm = $(i - 2)
		}
		print cur, r, spill[cur] + 0, stack[cur] + 0, sm; cur = ""
	}' "$1"
}

# kernel_threads PTX: "ENTRY THREADS" for each .entry: the block size its
# launch bounds give (.maxntid or .reqntid, x*y*z), else 256.
kernel_threads() {
	awk '
	function flush() { if (cur != "") print cur, (t ? t : 256); cur = ""; t = 0 }
	/^[^\/]*\.entry[ \t]/ {
		flush(); cur = $0; sub(/.*\.entry[ \t]+/, "", cur); sub(/[^A-Za-z0-9_$.].*/, "", cur); next
	}
	cur != "" && /^[ \t]*\.(maxntid|reqntid)[ \t]/ {
		s = $0; sub(/^[ \t]*\.[a-z]+[ \t]+/, "", s); n = split(s, d, /[ \t,]+/); t = 1
		for (i = 1; i <= n; i++) if (d[i] ~ /^[0-9]+$/) t *= d[i]
	}
	cur != "" && /^[ \t]*\{/ { flush() }
	END { flush() }' "$1"
}

# one ROOT REL RESULT: compile ROOT/REL with both, measure, and write
# RESULT.file (a tab-separated line) and RESULT.kern (a line per kernel).
one() {
	root=$1 rel=$2 res=$3
	name=$(basename "$root")
	key=$name/$rel
	src=$root/$rel
	art=$out/corpus/$key
	mkdir -p "$(dirname "$art")"
	rm -f "$art".*
	flags=$(corpus_flags "$root" "$rel" | tr '\n' ' ' | sed 's/  */ /g; s/^ //; s/ $//')
	nvcc_ms=- lite_ms=- nk=- lk=- ent=- px=- err='' only_n='' only_l='' status=ok cl=-
	# the flags split on blanks, never globbed
	set -f
	printf '%s\n' "$flags" >"$art.flags"
	was=$reuse/corpus/$key
	if [ -n "$reuse" ] && [ -s "$was.nvcc.ms" ] && [ -s "$was.nvcc.ptxas" ] && cmp -s "$was.flags" "$art.flags"; then
		cp "$was.nvcc.ptx" "$was.nvcc.err" "$was.nvcc.ptxas" "$was.nvcc.ms" "$(dirname "$art")/"
		rc=0 t0=0 t1=$(cat "$art.nvcc.ms")
	else
		t0=$(now_ms)
		# shellcheck disable=SC2086
		(cd "$(dirname "$src")" && "$nvcc" -ptx -arch=$arch -O3 $flags "$src" -o "$art.nvcc.ptx") \
			>"$art.nvcc.err" 2>&1
		rc=$?
		t1=$(now_ms)
	fi
	if [ $rc != 0 ]; then
		status=nvcc-fail err=$(first_error "$art.nvcc.err" "$root" "$name")
	else
		nvcc_ms=$((t1 - t0))
		echo $nvcc_ms >"$art.nvcc.ms"
		t0=$(now_ms)
		# shellcheck disable=SC2086
		(cd "$(dirname "$src")" && "$lite" -ptx -arch=$arch -O3 -time "$art.lite.time.csv" ${knobs:+-Xcicc "$knobs"} $flags "$src" -o "$art.lite.ptx") \
			>"$art.lite.err" 2>&1
		rc=$?
		t1=$(now_ms)
		[ $rc = 0 ] && [ ! -s "$art.lite.ptx" ] && { echo "nvcc-lite wrote no PTX" >>"$art.lite.err"; rc=1; }
	fi
	set +f
	if [ $status = ok ] && [ $rc != 0 ]; then
		status=lite-fail err=$(first_error "$art.lite.err" "$root" "$name")
	elif [ $status = ok ]; then
		lite_ms=$((t1 - t0))
		entries "$art.nvcc.ptx" >"$art.nvcc.entries"
		entries "$art.lite.ptx" >"$art.lite.entries"
		nk=$(grep -c . "$art.nvcc.entries") lk=$(grep -c . "$art.lite.entries")
		only_n=$(comm -23 "$art.nvcc.entries" "$art.lite.entries" | tr '\n' ' ' | sed 's/ $//')
		only_l=$(comm -13 "$art.nvcc.entries" "$art.lite.entries" | tr '\n' ' ' | sed 's/ $//')
		if [ -z "$only_n$only_l" ]; then ent=same; else ent=differ; fi
		# relocatable device code refers to other files: compile only
		case " $flags " in *" -rdc=true "* | *" -rdc true "*) pc=-c ;; *) pc= ;; esac
		[ -s "$art.nvcc.ptxas" ] ||
			"$ptxas" $pc -v -arch=$arch "$art.nvcc.ptx" -o /dev/null >"$art.nvcc.ptxas" 2>&1 ||
			echo "corpus: ptxas rejects nvcc's PTX of $key" >&2
		if "$ptxas" $pc -v -arch=$arch "$art.lite.ptx" -o /dev/null >"$art.lite.ptxas" 2>&1; then
			px=ok
		else
			px=reject status=ptxas-reject err=$(first_error "$art.lite.ptxas" "$out/corpus" corpus)
		fi
		[ $status = ok ] && [ $ent = differ ] && status=entry-mismatch
		cs='nvcc lite'
		if [ -n "$plain" ]; then
			set -f
			if ! clang_ptx "$src" "$art.clang.ptx" >"$art.clang.err" 2>&1; then
				cl=fail
			elif "$ptxas" $pc -v -arch=$arch "$art.clang.ptx" -o /dev/null >"$art.clang.ptxas" 2>&1; then
				cl=ok cs='nvcc lite clang'
				entries "$art.clang.ptx" >"$art.clang.entries"
			else
				cl=reject
			fi
			set +f
		fi
		# a row per kernel of either: nvcc's numbers, nvcc-lite's, clang's
		# and the block size and shared memory occupancy needs
		for c in $cs; do
			kernel_ptxas "$art.$c.ptxas" | sed "s/^/$c P /"
			kernel_insts "$art.$c.ptx" | sed "s/^/$c I /"
			[ $c = clang ] || sed "s/^/$c E /" "$art.$c.entries"
		done | { cat; kernel_threads "$art.nvcc.ptx" | sed "s/^/nvcc T /"; } | awk -v key="$key" '
		$2 == "E" { if (!($3 in seen)) { seen[$3] = 1; order[++n] = $3 } }
		$2 == "P" { p[$1, $3] = $4 "\t" $5 "\t" $6; sm[$1, $3] = $7 }
		$2 == "I" { ins[$1, $3] = $4 }
		$2 == "T" { th[$3] = $4 }
		function cols(c, k) {
			return (((c, k) in p) ? p[c, k] : "-\t-\t-") "\t" (((c, k) in ins) ? ins[c, k] : "-")
		}
		function val(a, k) { return k in a ? a[k] : "-" }
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]
				print key "\t" k "\t" cols("nvcc", k) "\t" cols("lite", k) "\t" cols("clang", k) "\t" \
					val(th, k) "\t" val(sm, "nvcc" SUBSEP k) "\t" val(sm, "lite" SUBSEP k)
			}
		}
		' >"$res.kern"
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$key" "$status" "$nvcc_ms" "$lite_ms" \
		"$nk" "$lk" "$ent" "$px" "$err" "$only_n" "$only_l" "$flags" "$cl" >"$res.file"
	printf '%-15s %s\n' "$status" "$key" >&2
}

# The files: CORPUS/PATH, filtered, numbered.
work=$out/corpus/.work
rm -rf "$work"
mkdir -p "$work" || die "cannot make $work"
out=$(cd "$out" && pwd) # the compilers run in each source's directory
work=$out/corpus/.work
names=''
for d in "$@"; do
	[ -d "$d" ] || die "$d is not a directory"
	root=$(cd "$d" && pwd)
	n=$(basename "$root")
	case " $names " in *" $n "*) die "two corpora named '$n'" ;; esac
	names="$names $n"
	(cd "$root" && find . -name '*.cu' -type f | sed 's|^\./||' | LC_ALL=C sort) |
		awk -v r="$root" -v n="$n" '{ print n "/" $0 "\t" r "\t" $0 }'
done >"$work/all"
sel=$work/all
if [ -n "$keep" ]; then awk -F'\t' -v re="$keep" '$1 ~ re' "$sel" >"$work/k"; sel=$work/k; fi
if [ -n "$drop" ]; then awk -F'\t' -v re="$drop" '$1 !~ re' "$sel" >"$work/x"; sel=$work/x; fi
if [ -n "$list" ]; then
	awk -F'\t' 'NR == FNR { want[$1] = 1; next } $1 in want' "$list" "$sel" >"$work/f"; sel=$work/f
fi
if [ "$limit" -gt 0 ]; then head -n "$limit" "$sel" >"$work/n"; sel=$work/n; fi
total=$(grep -c . "$sel")
[ "$total" -gt 0 ] || die "no .cu file to compile"
awk '{ printf "%06d\t%s\n", NR, $0 }' "$sel" >"$work/list"
[ "$reuse" != "$out" ] || die "-r names the output directory itself"
echo "corpus: $total files, -j $jobs; nvcc-lite is $lite${knobs:+ -Xcicc $knobs}${reuse:+; nvcc's results from $reuse}" >&2

# -j N: N workers, each on every Nth file
i=0
while [ $i -lt "$jobs" ]; do
	awk -v j="$jobs" -v i="$i" '(NR - 1) % j == i' "$work/list" | while IFS='	' read -r id key root rel; do
		one "$root" "$rel" "$work/$id"
	done &
	i=$((i + 1))
done
wait

# The report
nvcc_v=$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
lite_v=$("$lite" --version 2>/dev/null | head -n 1)
cat "$work"/*.file >"$work/files"
cat "$work"/*.kern >"$work/kerns0" 2>/dev/null || : >"$work/kerns0"
# occupancy at each kernel's block size: lib/ir/occupancy.c's rules,
# through bench/occupancy.c, for nvcc's registers and shared memory and
# nvcc-lite's (columns 18-20: nvcc's blocks per SM, nvcc-lite's, and what
# limits nvcc-lite's)
${CC:-cc} -std=c17 -O2 -I"$top/lib" "$top/bench/occupancy.c" "$top/lib/ir/occupancy.c" -o "$work/occupancy" ||
	die "cannot build bench/occupancy.c"
for c in nvcc lite; do
	if [ $c = nvcc ]; then cut -f3,16,15 "$work/kerns0"; else cut -f7,17,15 "$work/kerns0"; fi |
		awk -F'\t' '{ print $1, $3, $2 }' | "$work/occupancy" $arch >"$work/occ.$c" || die "occupancy failed"
done
cut -d' ' -f1 "$work/occ.nvcc" | paste "$work/kerns0" - >"$work/kerns1"
awk '{ b = $1; $1 = $2 = ""; sub(/^ +/, ""); print b "\t" $0 }' "$work/occ.lite" | paste "$work/kerns1" - >"$work/kerns"
# shellcheck disable=SC2016
csv='
function q(s) { if (s ~ /[",\n]/ || s ~ /^ /) { gsub(/"/, "\"\"", s); s = "\"" s "\"" } return s }
function row(   i, s) { s = q($1); for (i = 2; i <= NF; i++) s = s "," q($i); return s }'
{
	echo "file,kernel,nvcc_regs,nvcc_spill_bytes,nvcc_stack_bytes,nvcc_ptx_insts,lite_regs,lite_spill_bytes,lite_stack_bytes,lite_ptx_insts,clang_regs,clang_spill_bytes,clang_stack_bytes,clang_ptx_insts,threads,nvcc_smem_bytes,lite_smem_bytes,nvcc_blocks_per_sm,lite_blocks_per_sm,lite_occupancy_limit"
	awk -F'\t' "$csv"' { print row() }' "$work/kerns"
} >"$out/corpus.csv"
{
	echo "file,status,nvcc_ms,lite_ms,nvcc_kernels,lite_kernels,entries,ptxas,first_error,only_nvcc,only_lite,flags,clang"
	awk -F'\t' "$csv"' { print row() }' "$work/files"
} >"$out/corpus-files.csv"

awk -F'\t' -v md="$out/corpus.md" -v jobs="$jobs" -v nvcc_v="$nvcc_v" -v lite_v="$lite_v" \
    -v lite="$lite" -v names="$names" -v arch="$arch" -v knobs="$knobs" -v reuse="$reuse" -v plain="$plain" '
function corpus(k) { sub(/\/.*/, "", k); return k }
function cell(s) { gsub(/\|/, "\\|", s); return s }
function pct(a, b) { return b ? sprintf("%d (%.1f%%)", a, 100 * a / b) : a "" }
function gm(s, n) { return n ? sprintf("%.3f", exp(s / n)) : "-" }
function mx1(x) { return x < 1 ? 1 : x }
# the cell of row r of a table (named by its title) for group g
function cell_of(t, r, g) {
	if (t == "")
		return r == 1 ? files[g] + 0 : r == 2 ? files[g] - nok[g] : r == 3 ? nok[g] + 0 : \
		       r == 4 ? pct(lok[g] + 0, nok[g] + 0) : r == 5 ? rej[g] + 0 : r == 6 ? mis[g] + 0 : pct(good[g] + 0, nok[g] + 0)
	if (t ~ /^occupancy/)
		return r == 1 ? on_[g] + 0 : r == 2 ? olose[g] + 0 : r == 3 ? owin[g] + 0 : olreg[g] + 0
	if (t ~ /^kernels where/)
		return r == 1 ? over[g] + 0 : r == 2 ? under[g] + 0 : r == 3 ? frame[g] + 0 : spill[g] + 0
	if (t ~ /nvcc-lite \/ nvcc/)
		return r == 1 ? kn[g] + 0 : r == 2 ? gm(rs[g], kn[g]) : r == 3 ? gm(ss[g], kn[g]) : r == 4 ? gm(ks[g], kn[g]) : \
		       r == 5 ? gm(is[g], kn[g]) : r == 6 ? gm(ts[g], tn[g]) : r == 7 ? tn[g] + 0 : \
		       sprintf("%.1f / %.1f", nms[g] / 1000, lms[g] / 1000)
	return r == 1 ? cn[g] + 0 : r == 2 ? gm(cr[g], cn[g]) : r == 3 ? gm(clr[g], cn[g]) : r == 4 ? gm(lc[g], cn[g]) : \
	       r == 5 ? gm(lcs[g], cn[g]) : r == 6 ? gm(lck[g], cn[g]) : r == 7 ? gm(lci[g], cn[g]) : \
	       r == 8 ? (fewer[g] + 0) " / " (more[g] + 0) : cbad[g] + 0
}
# a table: its title over a column per group, a row per label of rows (| between)
function table(t, rows,   lab, n, r, j, h, s) {
	h = t == "" ? "|" : "| " t; s = "|---|"
	for (j = 1; j <= ng; j++) { h = h " | " grp[j]; s = s "---|" }
	print h " |" >md; print s >md
	n = split(rows, lab, "|")
	for (r = 1; r <= n; r++) {
		h = "| " lab[r]
		for (j = 1; j <= ng; j++) h = h " | " cell_of(t, r, grp[j])
		print h " |" >md
	}
}
FNR == 1 { part++ }
part == 1 {
	nf++; key[nf] = $1; st[nf] = $2; err[nf] = $9; on[nf] = $10; ol[nf] = $11
	c = corpus($1)
	for (j = 1; j <= 2; j++) {
		g = j == 1 ? "all" : c
		files[g]++
		if ($2 != "nvcc-fail") nok[g]++
		if ($2 != "nvcc-fail" && $2 != "lite-fail") lok[g]++
		if ($8 == "reject") rej[g]++
		if ($7 == "differ") mis[g]++
		if ($2 == "ok") good[g]++
		if ($3 != "-" && $4 != "-") { ts[g] += log(mx1($4) / mx1($3)); tn[g]++; nms[g] += $3; lms[g] += $4 }
		if ($13 == "fail" || $13 == "reject") cbad[g]++
	}
	if ($2 == "lite-fail") {
		m = $9
		# the cause: the message without its place (file:line:col: or file(line):)
		sub(/^[^ ]*[:(][0-9]+[):]([0-9]+:)? */, "", m)
		if (!(m in cause)) corder[++ncause] = m
		cause[m]++
	}
	next
}
{
	c = corpus($1)
	if ($3 == "-" || $7 == "-" || $6 == "-" || $10 == "-") next
	for (j = 1; j <= 2; j++) {
		g = j == 1 ? "all" : c
		kn[g]++
		rs[g] += log(mx1($7) / mx1($3))
		ss[g] += log(($8 + 1) / ($4 + 1))
		ks[g] += log(($9 + 1) / ($5 + 1))
		is[g] += log(mx1($10) / mx1($6))
		if ($7 > 1.1 * $3) over[g]++
		if (1.1 * $7 < $3) under[g]++
		if ($9 > 0 && $5 == 0) frame[g]++
		if ($8 > 0 && $4 == 0) spill[g]++
		if ($18 != "-" && $19 != "-" && $18 != "" && $19 != "") {
			on_[g]++
			if ($19 + 0 < $18 + 0) { olose[g]++; if ($20 == "registers") olreg[g]++ }
			if ($19 + 0 > $18 + 0) owin[g]++
			if (j == 1 && $19 + 0 != $18 + 0)
				steps[++nsteps] = sprintf("| %s | %s | %s | %d / %d | %d / %d | %s |", $1, cell($2), $15,
					$3, $7, $18, $19, $20)
		}
		if ($11 == "-" || $14 == "-") continue
		cn[g]++
		cr[g] += log(mx1($11) / mx1($3)); clr[g] += log(mx1($7) / mx1($3)); lc[g] += log(mx1($7) / mx1($11))
		lcs[g] += log(($8 + 1) / ($12 + 1)); lck[g] += log(($9 + 1) / ($13 + 1)); lci[g] += log(mx1($10) / mx1($14))
		if ($7 < $11) fewer[g]++
		if ($7 > $11) more[g]++
	}
}
END {
	ng = split("all" names, grp, " ")
	print "# nvcc-lite on a corpus" >md
	printf "\nnvcc %s and %s at %s, `-arch=%s -O3` and each file'\''s flags%s, -j %d%s%s.\n\n", nvcc_v, lite_v, lite, arch,
		(knobs != "" ? ", nvcc-lite with `-Xcicc " knobs "`" : ""), jobs,
		(jobs > 1 || reuse != "" ? " (times not for quoting)" : ""), (reuse != "" ? "; nvcc'\''s results from " reuse : "") >md
	table("", "files|nvcc -ptx fails (not counted)|nvcc compiles|nvcc-lite compiles|ptxas rejects nvcc-lite'\''s PTX|.entry set differs|all good")
	print "" >md
	table("geomean nvcc-lite / nvcc", "kernels compared|registers|spill bytes (x+1)|stack bytes (x+1)|PTX instructions|compile time per file|files timed|compile s, nvcc / nvcc-lite")
	print "\nRegisters and instructions as max(x,1); a kernel counts when both PTX files pass ptxas." >md
	print "" >md
	table("kernels where nvcc-lite has", "registers over 1.10x nvcc'\''s|registers under nvcc'\''s / 1.10|a stack frame, nvcc none|spills, nvcc none")
	print "" >md
	table("occupancy steps against nvcc", "kernels compared|nvcc-lite loses a step (fewer blocks per SM)|nvcc-lite wins a step|steps lost to registers")
	printf "\nOccupancy: resident blocks per SM on %s at the kernel'\''s launch bounds (.maxntid/.reqntid) or 256 threads, from registers and static shared memory (lib/ir/occupancy.c).\n", arch >md
	if (plain) {
		print "" >md
		table("geomean against plain clang -O3", "kernels all three compile|registers, clang / nvcc|registers, nvcc-lite / nvcc|registers, nvcc-lite / clang|spill bytes (x+1), nvcc-lite / clang|stack bytes (x+1), nvcc-lite / clang|PTX instructions, nvcc-lite / clang|kernels, fewer / more registers than clang|files clang fails on or ptxas rejects")
		print "\nclang: the clang command of nvcc-lite'\''s -dryrun, with LLVM'\''s -O3 pipeline and libdevice instead of nvcc-lite'\''s stages." >md
	}
	if (ncause) {
		print "\n## nvcc-lite failures by cause\n\n| files | first error, its place left out |\n|---|---|" >md
		# most files first
		for (i = 1; i <= ncause; i++) idx[i] = i
		for (i = 2; i <= ncause; i++) for (j = i; j > 1 && cause[corder[idx[j]]] > cause[corder[idx[j - 1]]]; j--) {
			t = idx[j]; idx[j] = idx[j - 1]; idx[j - 1] = t
		}
		for (i = 1; i <= ncause; i++) printf "| %d | %s |\n", cause[corder[idx[i]]], cell(corder[idx[i]]) >md
	}
	if (nsteps) {
		printf "\n## Occupancy steps (%d)\n\n| file | kernel | threads | registers nvcc / nvcc-lite | blocks per SM nvcc / nvcc-lite | nvcc-lite'\''s limit |\n|---|---|---|---|---|---|\n", nsteps >md
		for (i = 1; i <= nsteps; i++) print steps[i] >md
	}
	split("lite-fail|ptxas-reject|entry-mismatch|nvcc-fail", which, "|")
	split("nvcc-lite failures|ptxas rejections of nvcc-lite'\''s PTX|.entry sets that differ|nvcc -ptx fails (not counted)", title, "|")
	for (w = 1; w <= 4; w++) {
		n = 0
		for (i = 1; i <= nf; i++) if (w == 3 ? on[i] ol[i] != "" : st[i] == which[w]) n++
		if (!n) continue
		printf "\n## %s (%d)\n\n", title[w], n >md
		print (w == 3 ? "| file | only nvcc | only nvcc-lite |\n|---|---|---|" : "| file | first error |\n|---|---|") >md
		for (i = 1; i <= nf; i++) {
			if (w == 3 && on[i] ol[i] != "") printf "| %s | %s | %s |\n", key[i], on[i], ol[i] >md
			else if (w != 3 && st[i] == which[w]) printf "| %s | %s |\n", key[i], cell(err[i]) >md
		}
	}
	# stdout: the two tables
	close(md)
	while ((getline l < md) > 0) { if (l ~ /^## /) break; if (l ~ /^\|/ || (l == "" && tables)) print l; if (l ~ /^\|/) tables = 1 }
	bar = nok["all"] && lok["all"] >= 0.98 * nok["all"] && !rej["all"] && !mis["all"]
	exit bar ? 0 : 1
}' "$work/files" "$work/kerns"
rc=$?
# where nvcc-lite's time went, from its -time rows (bench/stages.awk)
find "$out/corpus" -name '*.lite.time.csv' -exec cat {} + 2>/dev/null >"$work/times"
if [ -s "$work/times" ]; then
	printf '\n## Where nvcc-lite'"'"'s time goes (every file it compiled, -time)\n\n' >>"$out/corpus.md"
	awk -f "$top/bench/stages.awk" "$work/times" | tee -a "$out/corpus.md"
fi
echo "CSV in $out/corpus.csv and $out/corpus-files.csv, Markdown in $out/corpus.md"
exit $rc
