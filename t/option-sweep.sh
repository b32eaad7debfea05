#!/bin/sh
# option-sweep.sh [-g] [-v] COMPILER CASES: every option of nvcc's table
# (t/fixtures/options/cases.tsv), each spelling (-s, --long; a value as
# "-s v", "-s=v", "--long v", "--long=v"), tried with COMPILER on a small
# source in its context, and classed against nvcc's recorded statuses:
#   accepted   exit 0 where nvcc's is, and the check of nvcc's meaning holds
#   refused    exit non-zero with nothing but "PROG: ..." lines on stderr
#   nvcc-too   refused where nvcc refuses too
#   misparsed  anything else: accepted with another meaning, an unclear
#              failure, or accepted where nvcc refuses
# Prints a line per option and the totals.  -g: print CASES again with
# COMPILER's exit statuses as the last column (t/option-gen.sh runs it
# with the real nvcc).  -v: the command and output of each failed check.
set -u
gen=0 verbose=0
while [ $# -gt 0 ]; do
	case $1 in
	-g) gen=1; shift ;;
	-v) verbose=1; shift ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || { echo "usage: option-sweep.sh [-g] [-v] COMPILER CASES" >&2; exit 2; }
cc=$1 cases=$2
prog=$(basename "$cc")
fix=$(cd "$(dirname "$cases")" && pwd)
cases=$fix/$(basename "$cases")
case $cc in */*) cc=$(cd "$(dirname "$cc")" && pwd)/$(basename "$cc") ;; esac
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 1
cp "$fix/k.cu" k.cu
cp k.cu kk.cpp
: >k.o
mkdir od kd
ln -s "$(command -v ar)" myar
echo "-DFROMOPTF1" >o1.txt
echo "-DFROMOPTF2" >o2.txt

ctx() {
	case $1 in
	in) echo "k.cu" ;;
	c) echo "-c k.cu -o k.o" ;;
	cin) echo "-c k.cu" ;;
	md) echo "-c k.cu -o k.o -MD" ;;
	cG) echo "-c k.cu -o k.o -G" ;;
	dc) echo "-dc k.cu -o k.o" ;;
	exe) echo "k.cu -o k" ;;
	run) echo "k.cu -o k -run" ;;
	so) echo "k.cu -o libk.so" ;;
	cpp) echo "-c kk.cpp -o k.o" ;;
	obj) echo "k.o" ;;
	lib) echo "-lib k.cu -o libk.a" ;;
	ptx) echo "-ptx k.cu -o k.ptx" ;;
	carch) echo "-c k.cu -o k.o -arch=compute_80" ;;
	cfwd) echo "-c k.cu -o k.o -fno-common" ;;
	exefwd) echo "k.cu -o k -Wl,--as-needed" ;;
	none) echo "" ;;
	*) echo "option-sweep.sh: unknown context '$1'" >&2; exit 2 ;;
	esac
}

# check CHECKS FILE: every has:ERE matches a line of FILE, no no:ERE does
check() {
	printf '%s\n' "$1" | tr ';' '\n' | tail -n +2 | while IFS= read -r c; do
		case $c in
		has:*) grep -Eq -- "${c#has:}" "$2" || { echo "missing ${c#has:}"; break; } ;;
		no:*) ! grep -Eq -- "${c#no:}" "$2" || { echo "unwanted ${c#no:}"; break; } ;;
		esac
	done
}

# try MODE CHECKS NVCC-STATUS ARGS...: one spelling; prints its class letter
try() {
	mode=$1 checks=$2 want=$3
	shift 3
	if [ "$mode" = dry ]; then set -- "$@" -dryrun; fi
	"$cc" "$@" >out 2>err </dev/null
	rc=$?
	cat err >>out
	if [ "$gen" = 1 ]; then printf '%s' "$rc"; return; fi
	if [ "$rc" -eq 0 ]; then
		why=$(check "$checks" out)
		if [ "$want" != 0 ]; then why="accepted where nvcc exits $want"; fi
		if [ -z "$why" ]; then printf A; return; fi
	else
		bad=$(grep -cv "^$prog: " err)
		if [ -s err ] && [ "$bad" -eq 0 ]; then
			if [ "$want" = 0 ]; then printf R; else printf N; fi
			return
		fi
		why="exit $rc without one clear line"
	fi
	printf M
	if [ "$verbose" = 1 ]; then
		{ echo "  $prog $*: $why"; sed 's/^/    /' out | head -5; } >&3
	fi
}

acc=0 ref=0 mis=0 both=0 total=0
exec 3>&2
while IFS='	' read -r long short value cx checks nvcc; do
	case $long in '#'*|'') [ "$gen" = 1 ] && printf '%s\n' "$long"; continue ;; esac
	base=$(ctx "$cx")
	mode=${checks%%;*}
	nvcc=${nvcc:-0000}
	n=0
	res=""
	spellings="$short $long"
	if [ "$short" = "$long" ]; then spellings=$long; fi
	for s in $spellings; do
		for eq in sep eq; do
			n=$((n + 1))
			w=$(printf '%s' "$nvcc" | cut -c$n)
			if [ "$value" = - ]; then
				# shellcheck disable=SC2086
				res=$res$(try "$mode" "$checks" "${w:-0}" "$s" $base)
				break
			elif [ $eq = sep ]; then
				# shellcheck disable=SC2086
				res=$res$(try "$mode" "$checks" "${w:-0}" "$s" "$value" $base)
			else
				# shellcheck disable=SC2086
				res=$res$(try "$mode" "$checks" "${w:-0}" "$s=$value" $base)
			fi
		done
	done
	if [ "$gen" = 1 ]; then
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$long" "$short" "$value" "$cx" "$checks" "$res"
		continue
	fi
	total=$((total + 1))
	case $res in
	*M*) class=misparsed; mis=$((mis + 1)) ;;
	*R*) class=refused; ref=$((ref + 1)) ;;
	*A*) class=accepted; acc=$((acc + 1)) ;;
	*) class="nvcc-too"; both=$((both + 1)) ;;
	esac
	printf '%-10s %-6s %s %s\n' "$class" "$res" "$long" "$short"
done <"$cases"
[ "$gen" = 1 ] && exit 0
echo "total $total accepted $acc refused $ref nvcc-too $both misparsed $mis"
