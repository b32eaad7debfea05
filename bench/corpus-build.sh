#!/bin/sh
# bench/corpus-build.sh: whole programs of a corpus built end to end (compile
# each source with -c, link with the compiler) by nvcc and by nvcc-lite, and
# a report: per program each compiler's status, build time and executable
# size, the first error line of a failure.  See bench/README.md.
#
#   sh bench/corpus-build.sh [-j N] [-o DIR] [-k REGEX] [-x REGEX] [-c COMPILER] DIR...
#
#   -j N          build N programs at once (default 1; quote times from -j 1)
#   -o DIR        output directory (default bench/out, or BENCH_OUT)
#   -k REGEX      only the programs whose name (CORPUS/PATH) matches this ERE
#   -x REGEX      leave out the programs whose name matches this ERE
#   -c COMPILER   build with this compiler only: nvcc (the baseline), lite
#                 (NVCC_LITE) or a path; default both nvcc and nvcc-lite
#
# A program is a directory with a CMakeLists.txt that has an add_executable
# (its sources, libraries, defines, CUDA_SEPARABLE_COMPILATION: what
# bench/cmakelists.awk reads), or what bench/corpus/CORPUS.build and any
# DIR/.corpus-build say ("program" and "each" lines, with "cflags",
# "ldflags", "rdc", "mode" and "skip" exceptions).  Every source also gets
# the flags of bench/corpus/CORPUS.flags and .corpus-flags (as corpus.sh).
# A program that needs what is not installed (OpenGL, MPI, a CUDA library)
# is skipped, and the report says what it needs.
# NVCC_LITE names the nvcc-lite to measure (default bin/nvcc-lite).
#
# Output: DIR/corpus-build.csv (a row per program), DIR/corpus-build.md,
# every step's command and output under DIR/corpus-build/CORPUS/PATH/, and
# the summary on stdout.  Exit 0 when nvcc-lite builds every program nvcc
# builds (with -c, when the compiler builds every program not skipped), 1
# when not, 2 on a usage error.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=${BENCH_OUT:-$top/bench/out}
jobs=1 keep='' drop='' only=''
arch=sm_90
usage() { sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "corpus-build: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=${2:?}; shift 2 ;;
	-j[0-9]*) jobs=${1#-j}; shift ;;
	-o) out=${2:?}; shift 2 ;;
	-k) keep=${2:?}; shift 2 ;;
	-x) drop=${2:?}; shift 2 ;;
	-c) only=${2:?}; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option '$1' (try --help)" ;;
	*) break ;;
	esac
done
case $jobs in ''|*[!0-9]*|0) die "-j wants a positive count" ;; esac
[ $# -gt 0 ] || die "no corpus directory (try --help)"

# shellcheck source=bench/tools.sh
. "$top/bench/tools.sh"
cuda=${CUDA_PATH:-/usr/local/cuda}
lite=${NVCC_LITE:-$top/bin/nvcc-lite}
nvcc=''
case $only in
'') want='nvcc lite' ;;
nvcc) want=nvcc ;;
lite) want=lite ;;
*) want=lite lite=$only ;;
esac
case $want in *nvcc*)
	nvcc=$(find_tool nvcc "$cuda/bin") || die "nvcc is not installed: the programs are built with it first" ;;
esac
case $want in *lite*)
	case $lite in */*) ;; *) lite=$(command -v "$lite") || die "no compiler '$only'" ;; esac
	[ -x "$lite" ] || die "$lite is not built (run make)" ;;
esac

now_ms() { echo $(($(date +%s%N) / 1000000)); }


# build_files ROOT: the .build data files of a corpus, "FILE HERE" lines.
build_files() {
	f=$top/bench/corpus/$(basename "$1").build
	[ -f "$f" ] && echo "$f	$top/bench/corpus"
	[ -f "$1/.corpus-build" ] && echo "$1/.corpus-build	$1"
	:
}

# rules ROOT REL KW: the rest of the KW lines of the corpus's .build files
# whose glob matches REL (a program's path), one a line.
rules() {
	build_files "$1" | while IFS='	' read -r bf here; do
		flag_rules "$bf" "$here" "$1" "$2" "$3"
	done
}



# have WHAT: is a package, a CUDA library or a header installed?
inc_dirs="/usr/include /usr/local/include $cuda/include"
hdr() { for d in $inc_dirs; do [ -f "$d/$1" ] && return 0; done; return 1; }
lib() {
	for d in "$cuda/lib64" "$cuda/lib64/stubs" /usr/lib/x86_64-linux-gnu /usr/lib /usr/local/lib; do
		[ -f "$d/lib$1.so" ] || [ -f "$d/lib$1.a" ] && return 0
	done
	return 1
}
have() {
	case $1 in
	'cudalib '*) lib "${1#cudalib }" ;;
	OpenGL) hdr GL/gl.h && lib GL && lib GLU ;;
	GLUT) hdr GL/glut.h && lib glut ;;
	EGL) hdr EGL/egl.h && lib EGL ;;
	GLFW) hdr GLFW/glfw3.h && lib glfw ;;
	FreeImage) hdr FreeImage.h ;;
	Vulkan) hdr vulkan/vulkan.h && lib vulkan ;;
	MPI) hdr mpi.h ;;
	NVSCI) hdr nvscibuf.h ;;
	OpenMP) echo | cc -fopenmp -x c -E - >/dev/null 2>&1 ;;
	Threads) : ;;
	'header '*) hdr "${1#header }" ;;
	'lib '*) lib "${1#lib }" ;;
	*) return 1 ;;
	esac
}

# plan ROOT REL KIND SRCS: the build plan of one program, tab-separated
# lines (bench/cmakelists.awk's, then the .build file's exceptions):
# src PATH LANG, flag, cuflag, lib, rdc, extra, need, skip, mode.
plan() {
	p_root=$1 p_rel=$2 p_kind=$3 p_srcs=$4
	if [ "$p_kind" = cmake ]; then
		awk -v dir="$p_root/$p_rel" -f "$top/bench/cmakelists.awk" "$p_root/$p_rel/CMakeLists.txt"
		printf 'flag\t-I%s\n' "$p_root/$p_rel"
	else
		for s in $p_srcs; do
			case $s in *.cu) l=cu ;; *.c) l=c ;; *) l=cpp ;; esac
			printf 'src\t%s\t%s\n' "$p_root/$s" "$l"
		done
	fi
	rules "$p_root" "$p_rel" cflags | tr ' ' '\n' | grep . | sed 's/^/flag	/'
	rules "$p_root" "$p_rel" ldflags | tr ' ' '\n' | grep . | sed 's/^/lib	/'
	# a library linked only where it is installed
	rules "$p_root" "$p_rel" optlib | while IFS= read -r l; do lib "$l" && printf 'lib\t-l%s\n' "$l"; done
	rules "$p_root" "$p_rel" rdc | sed 's/^/rdc	/'
	rules "$p_root" "$p_rel" mode | sed 's/^/mode	/'
	rules "$p_root" "$p_rel" need | sed 's/^/need	/'
	rules "$p_root" "$p_rel" skip | sed 's/^/skip	/'
}

# step LOG CMD...: run one command, appending it and its output to LOG.
step() {
	st_log=$1; shift
	echo "\$ $*" >>"$st_log"
	"$@" >>"$st_log" 2>&1
}

# build C PLAN DIR LOG: build the program of PLAN with compiler C (nvcc or
# lite) in DIR; prints "STATUS MS BYTES STEP".
build() {
	b_cc=$nvcc
	[ "$1" = lite ] && b_cc=$lite
	b_plan=$2 b_dir=$3 b_log=$4
	rm -rf "$b_dir"; mkdir -p "$b_dir"; : >"$b_log"
	b_rdc='' b_mode=separate
	[ "$(awk -F'\t' '$1 == "rdc" { v = $2 } END { print v }' "$b_plan")" = on ] && b_rdc=-rdc=true
	b_m=$(awk -F'\t' '$1 == "mode" { v = $2 } END { print v }' "$b_plan")
	[ -n "$b_m" ] && b_mode=$b_m
	b_flags=$(awk -F'\t' '$1 == "flag" { $1 = ""; printf "%s", $0 }' "$b_plan")
	b_cuflags=$(awk -F'\t' '$1 == "cuflag" { $1 = ""; printf "%s", $0 }' "$b_plan")
	b_libs=$(awk -F'\t' '$1 == "lib" { $1 = ""; printf "%s", $0 }' "$b_plan")
	b_t0=$(now_ms) b_fail=''
	set -f
	# custom commands: -fatbin / -ptx of a kernel the program loads
	while IFS='	' read -r _ mode src o; do
		[ -n "$src" ] || continue
		[ -n "$b_fail" ] && break
		# shellcheck disable=SC2086
		(cd "$b_dir" && step "$b_log" "$b_cc" $mode -arch=$arch $b_flags $b_cuflags $(corpus_flags "$root" "${src#"$root"/}") "$src" -o "$o") ||
			b_fail="$mode $(basename "$src")"
	done <<-EOF
	$(grep '^extra	' "$b_plan")
	EOF
	objs='' srcs='' n=0
	while IFS='	' read -r _ src l; do
		[ -n "$src" ] || continue
		srcs="$srcs $src"
		[ -n "$b_fail" ] || [ "$b_mode" = onestep ] && continue
		n=$((n + 1))
		o=$n-$(basename "$src").o
		objs="$objs $o"
		lf='' x=''
		[ "$l" = cu ] && lf=$b_cuflags
		[ "$l" = cu ] && x=$b_rdc
		# shellcheck disable=SC2086
		(cd "$b_dir" && step "$b_log" "$b_cc" -c $x -arch=$arch $b_flags $lf $(corpus_flags "$root" "${src#"$root"/}") "$src" -o "$o") ||
			b_fail="compile $(basename "$src")"
	done <<-EOF
	$(grep '^src	' "$b_plan")
	EOF
	if [ -z "$b_fail" ] && [ "$b_mode" = onestep ]; then
		# one command, as a Makefile's "%: %.cu" rule (one source's flags)
		s1=${srcs# }; s1=${s1%% *}
		# shellcheck disable=SC2086
		(cd "$b_dir" && step "$b_log" "$b_cc" $b_rdc -arch=$arch $b_flags $b_cuflags $(corpus_flags "$root" "${s1#"$root"/}") $srcs -o app $b_libs) ||
			b_fail=build
	elif [ -z "$b_fail" ]; then
		# shellcheck disable=SC2086
		(cd "$b_dir" && step "$b_log" "$b_cc" $b_rdc -arch=$arch $objs -o app $b_libs) || b_fail=link
	fi
	set +f
	b_t1=$(now_ms)
	[ -z "$b_fail" ] && [ ! -s "$b_dir/app" ] && { echo "no executable written" >>"$b_log"; b_fail=link; }
	if [ -n "$b_fail" ]; then
		echo "fail - - $b_fail"
	else
		echo "ok $((b_t1 - b_t0)) $(wc -c <"$b_dir/app" | tr -d ' ') -"
	fi
}

# one ROOT REL KIND SRCS RESULT: plan and build one program, writing a
# tab-separated line to RESULT.
one() {
	root=$1 rel=$2 kind=$3 srcs=$4 res=$5
	name=$(basename "$root")
	key=$name/$rel
	art=$out/corpus-build/$key
	mkdir -p "$art"
	rm -f "$art"/*.log
	plan "$root" "$rel" "$kind" "$srcs" >"$art/plan"
	status='' needs='' err='' step_='' nst=- lst=- nms=- lms=- nb=- lb=-
	skip=$(awk -F'\t' '$1 == "skip" { print $2; exit }' "$art/plan")
	[ -n "$skip" ] && status=skipped needs=$skip
	if [ -z "$status" ]; then
		needs=$(awk -F'\t' '$1 == "need" { print $2 }' "$art/plan" | while IFS= read -r w; do
			have "$w" || printf '%s; ' "$w"
		done)
		needs=${needs%; }
		[ -n "$needs" ] && status=skipped needs="needs $needs"
	fi
	if [ -z "$status" ] && ! grep -q '^src	' "$art/plan"; then status=skipped needs="no source it can compile"; fi
	if [ -z "$status" ]; then
		for c in $want; do
			r=$(build $c "$art/plan" "$art/$c" "$art/$c.log")
			# shellcheck disable=SC2086
			set -- $r
			if [ $c = nvcc ]; then nst=$1 nms=$2 nb=$3; else lst=$1 lms=$2 lb=$3; fi
			[ "$1" = fail ] || continue
			shift 3; step_="$*"
			err=$(first_error "$art/$c.log" "$root" "$name")
			# not counted when nvcc cannot build it: nvcc-lite not run
			break
		done
		if [ "$nst" = fail ]; then status=nvcc-fail
		elif [ "$lst" = fail ]; then status=lite-fail
		else status=ok; fi
	fi
	srcn=$(grep -c '^src	' "$art/plan")
	rdc=$(awk -F'\t' '$1 == "rdc" { v = $2 } END { print v == "on" ? "yes" : "no" }' "$art/plan")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$key" "$status" "$nst" "$lst" "$nms" "$lms" \
		"$nb" "$lb" "$srcn" "$rdc" "$step_" "$err" "$needs" >"$res"
	printf '%-10s %s\n' "$status" "$key" >&2
}

# The programs: "CORPUS/PATH ROOT PATH KIND SOURCES", filtered, numbered.
mkdir -p "$out" || die "cannot make $out"
out=$(cd "$out" && pwd)
work=$out/corpus-build/.work
rm -rf "$work"
mkdir -p "$work" || die "cannot make $work"
names=''
for d in "$@"; do
	[ -d "$d" ] || die "$d is not a directory"
	root=$(cd "$d" && pwd)
	n=$(basename "$root")
	case " $names " in *" $n "*) die "two corpora named '$n'" ;; esac
	names="$names $n"
	{
		# a CMakeLists.txt with an add_executable is a program
		(cd "$root" && grep -l -s 'add_executable' $(find . -name CMakeLists.txt -type f) /dev/null) |
			sed 's|^\./||; s|^CMakeLists\.txt$|.|; s|/CMakeLists\.txt$||' | sed 's/$/	cmake	-/'
		# "program NAME SRC..." and "each GLOB" lines of the .build files
		build_files "$root" | while IFS='	' read -r bf here; do
			awk '$1 == "program" && NF >= 3 { s = $3; for (i = 4; i <= NF; i++) s = s " " $i; print $2 "\tlist\t" s }' "$bf"
			awk '$1 == "each" { print $2 }' "$bf" | while IFS= read -r g; do
				# shellcheck disable=SC2086
				(cd "$root" && for f in $g; do [ -f "$f" ] && printf '%s\tlist\t%s\n' "${f%.*}" "$f"; done)
			done
		done
	} | LC_ALL=C sort -u -t '	' -k1,1 | awk -v r="$root" -v n="$n" -F'\t' '{ print n "/" $1 "\t" r "\t" $1 "\t" $2 "\t" $3 }'
done >"$work/all"
sel=$work/all
if [ -n "$keep" ]; then awk -F'\t' -v re="$keep" '$1 ~ re' "$sel" >"$work/k"; sel=$work/k; fi
if [ -n "$drop" ]; then awk -F'\t' -v re="$drop" '$1 !~ re' "$sel" >"$work/x"; sel=$work/x; fi
total=$(grep -c . "$sel")
[ "$total" -gt 0 ] || die "no program to build"
awk '{ printf "%06d\t%s\n", NR, $0 }' "$sel" >"$work/list"
echo "corpus-build: $total programs, -j $jobs; built with: $want" >&2

i=0
while [ $i -lt "$jobs" ]; do
	awk -v j="$jobs" -v i="$i" '(NR - 1) % j == i' "$work/list" | while IFS='	' read -r id key root rel kind srcs; do
		one "$root" "$rel" "$kind" "$srcs" "$work/$id"
	done &
	i=$((i + 1))
done
wait

# The report
cat "$work"/[0-9]* >"$work/rows"
nvcc_v=- lite_v=-
[ -n "$nvcc" ] && nvcc_v=$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
case $want in *lite*) lite_v=$("$lite" --version 2>/dev/null | head -n 1) ;; esac
# shellcheck disable=SC2016
{
	echo "program,status,nvcc,lite,nvcc_ms,lite_ms,nvcc_bytes,lite_bytes,sources,rdc,failed_step,first_error,skipped_for"
	awk -F'\t' '
	function q(s) { if (s ~ /[",\n]/ || s ~ /^ /) { gsub(/"/, "\"\"", s); s = "\"" s "\"" } return s }
	{ s = q($1); for (i = 2; i <= NF; i++) s = s "," q($i); print s }' "$work/rows"
} >"$out/corpus-build.csv"

awk -F'\t' -v md="$out/corpus-build.md" -v jobs="$jobs" -v nvcc_v="$nvcc_v" -v lite_v="$lite_v" \
    -v lite="$lite" -v names="$names" -v want="$want" -v arch="$arch" '
function corpus(k) { sub(/\/.*/, "", k); return k }
function cell(s) { gsub(/\|/, "\\|", s); return s }
function pct(a, b) { return b ? sprintf("%d (%.1f%%)", a, 100 * a / b) : a "" }
function gm(s, n) { return n ? sprintf("%.3f", exp(s / n)) : "-" }
{
	nf++; key[nf] = $1; st[nf] = $2; fs[nf] = $11; err[nf] = $12; why[nf] = $13
	c = corpus($1)
	for (j = 1; j <= 2; j++) {
		g = j == 1 ? "all" : c
		progs[g]++
		if ($2 == "skipped") skip[g]++
		if ($3 == "ok") nok[g]++
		if ($3 == "fail") nfail[g]++
		if ($4 == "ok") lok[g]++
		if ($4 == "fail") lfail[g]++
		if ($3 == "ok" && $4 == "ok") {
			both[g]++; ts[g] += log(($6 + 1) / ($5 + 1)); bs[g] += log($8 / $7)
		}
		# the times of the programs both built (with -c, of those built)
		if ($3 == "ok" && ($4 == "ok" || want !~ /lite/)) nms[g] += $5
		if ($4 == "ok" && ($3 == "ok" || want !~ /nvcc/)) lms[g] += $6
	}
	if ($2 == "lite-fail" || (want == "lite" && $4 == "fail") || (want == "nvcc" && $3 == "fail")) {
		m = $12
		sub(/^[^ ]*[:(][0-9]+[):]([0-9]+:)? */, "", m)
		if (!(m in cause)) corder[++ncause] = m
		cause[m]++
	}
}
END {
	ng = split("all" names, grp, " ")
	print "# Whole programs of a corpus, built" >md
	printf "\nBuilt with: %s; nvcc %s, nvcc-lite %s at %s; `-c` then link, `-arch=%s`, each program'\''s flags; -j %d%s.\n\n", \
		want, nvcc_v, lite_v, lite, arch, jobs, (jobs > 1 ? " (times not for quoting)" : "") >md
	h = "|"; s = "|---|"
	for (j = 1; j <= ng; j++) { h = h " | " grp[j]; s = s "---|" }
	print h " |" >md; print s >md
	split("programs|skipped (needs what is not installed)|nvcc builds|nvcc fails|nvcc-lite builds|nvcc-lite fails|both build|build s, nvcc / nvcc-lite (programs both build)|geomean build time nvcc-lite / nvcc|geomean executable size nvcc-lite / nvcc", lab, "|")
	for (r = 1; r <= 10; r++) {
		line = "| " lab[r]
		for (j = 1; j <= ng; j++) {
			g = grp[j]
			v = r == 1 ? progs[g] + 0 : r == 2 ? skip[g] + 0 : r == 3 ? nok[g] + 0 : r == 4 ? nfail[g] + 0 : \
			    r == 5 ? (want ~ /nvcc/ && want ~ /lite/ ? pct(lok[g] + 0, nok[g] + 0) : lok[g] + 0) : r == 6 ? lfail[g] + 0 : \
			    r == 7 ? both[g] + 0 : r == 8 ? sprintf("%.1f / %.1f", nms[g] / 1000, lms[g] / 1000) : \
			    r == 9 ? gm(ts[g], both[g]) : gm(bs[g], both[g])
			line = line " | " v
		}
		print line " |" >md
	}
	if (ncause) {
		print "\n## Failures by cause\n\n| programs | first error, its place left out |\n|---|---|" >md
		for (i = 1; i <= ncause; i++) idx[i] = i
		for (i = 2; i <= ncause; i++) for (j = i; j > 1 && cause[corder[idx[j]]] > cause[corder[idx[j - 1]]]; j--) {
			t = idx[j]; idx[j] = idx[j - 1]; idx[j - 1] = t
		}
		for (i = 1; i <= ncause; i++) printf "| %d | %s |\n", cause[corder[idx[i]]], cell(corder[idx[i]]) >md
	}
	split("lite-fail|nvcc-fail|skipped", which, "|")
	split("nvcc-lite fails|nvcc fails (not counted)|skipped", title, "|")
	for (w = 1; w <= 3; w++) {
		n = 0
		for (i = 1; i <= nf; i++) if (st[i] == which[w] || (w == 1 && want == "lite" && st[i] == "lite-fail")) n++
		if (!n) continue
		printf "\n## %s (%d)\n\n", title[w], n >md
		print (w == 3 ? "| program | why |\n|---|---|" : "| program | step | first error |\n|---|---|---|") >md
		for (i = 1; i <= nf; i++) {
			if (st[i] != which[w]) continue
			if (w == 3) printf "| %s | %s |\n", key[i], cell(why[i]) >md
			else printf "| %s | %s | %s |\n", key[i], fs[i], cell(err[i]) >md
		}
	}
	close(md)
	while ((getline l < md) > 0) { if (l ~ /^## /) break; if (l ~ /^\|/) print l }
	if (want ~ /nvcc/ && want ~ /lite/) bar = !lfail["all"]
	else bar = want == "nvcc" ? !nfail["all"] : !lfail["all"]
	exit bar ? 0 : 1
}' "$work/rows"
rc=$?
echo "CSV in $out/corpus-build.csv, Markdown in $out/corpus-build.md, logs under $out/corpus-build"
exit $rc
