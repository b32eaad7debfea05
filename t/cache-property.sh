#!/bin/bash
# The header cache as a property: random sequences of what users do to
# headers, flags and the environment, with compiles in between (some of
# them at once), and every compile's PTX compared byte for byte with the
# same compile without the cache, and with the value the sources' headers
# say it must hold.
#
#   t/cache-property.sh [-n STEPS] [-s SEED] [-k]
#
# What a step may do: edit a header (its size changing or not), edit one
# keeping its size and putting its old time back (touch -r), create or
# remove a header in an earlier include directory that shadows another,
# create or remove the file a __has_include asks for, retarget a symlinked
# include directory at one whose header has the same size and time, switch
# CPATH, change a -D flag, compile right after an edit (too new to cache).
# Prints "STEPS steps, C compiles, H through an entry, D differences" and
# fails when D > 0, or when no compile went through an entry (a run that
# never used the cache proves nothing).  -k keeps the work directory.
set -u
steps=150 seed=1 keep=0
while getopts n:s:k o; do
	case $o in
	n) steps=$OPTARG ;;
	s) seed=$OPTARG ;;
	k) keep=1 ;;
	*) echo "usage: $0 [-n STEPS] [-s SEED] [-k]" >&2; exit 2 ;;
	esac
done
NVCC=${NVCC_LITE:-nvcc-lite}
work=$(mktemp -d "${TMPDIR:-/tmp}/cache-property.XXXXXX") || exit 1
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export NVCC_LITE_CACHE_DIR=$work/cache
RANDOM=$seed

mkdir a b v1 v2 e1 e2 out
ln -s v1 lnk
# the model: each value as the sources must see it
declare -A val=([h0]=1 [h1]=2 [h2]=3)
shadow=() # headers shadowed from a/: their values
for h in h0 h1 h2; do echo "#define ${h^^} ${val[$h]}" >b/$h.h; done
echo '#define VS 3' >v1/hs.h
echo '#define VS 7' >v2/hs.h
touch -r v1/hs.h v2/hs.h
echo '#define VE 1' >e1/env.h
echo '#define VE 2' >e2/env.h
cat >b/probe.h <<'EOF'
#if __has_include(<opt.h>)
#include <opt.h>
#else
#define VO 0
#endif
EOF
opt=0     # b/opt.h's value, 0: none
link=v1   # where lnk points
cpath=e1
vd=0      # -DVD=
# Two sources: the same headers, another order, so prefixes are shared and chained.
cat >s1.cu <<'EOF'
#include <h0.h>
#include <h1.h>
#include <hs.h>
#include <env.h>
#include <probe.h>
#include <h2.h>
__global__ void k(int *p) { p[0] = H0 + H1 * 10 + H2 * 100 + VS * 1000 + VE * 10000 + VO * 100000 + VD * 1000000; }
EOF
cat >s2.cu <<'EOF'
#include <h0.h>
#include <probe.h>
#include <h1.h>
#include <env.h>
#include <hs.h>
#include <h2.h>
__global__ void k2(int *p) { p[1] = H0 + H1 * 10 + H2 * 100 + VS * 1000 + VE * 10000 + VO * 100000 + VD * 1000000; }
EOF
touch -d '1 minute ago' -- *.cu */*.h

value() {
	local h0=${shadow_h0:-${val[h0]}} h1=${shadow_h1:-${val[h1]}} h2=${shadow_h2:-${val[h2]}}
	local vs=3 ve=1
	[ "$link" = v2 ] && vs=7
	[ "$cpath" = e2 ] && ve=2
	echo $((h0 + h1 * 10 + h2 * 100 + vs * 1000 + ve * 10000 + opt * 100000 + vd * 1000000))
}

compiles=0 hits=0 diffs=0
# build SRC TAG: SRC compiled with the cache (out/TAG.ptx) and without it
build() {
	CPATH=$work/$cpath "$NVCC" -ptx -arch=sm_90 -v -Ia -Ib -Ilnk -DVD=$vd "$1" -o out/$2.ptx 2>out/$2.err
	CPATH=$work/$cpath "$NVCC" -ptx -arch=sm_90 -no-cache -Ia -Ib -Ilnk -DVD=$vd "$1" -o out/$2.plain.ptx 2>/dev/null
}

stored() {
	sed -n 's/.*st\.global\.b32.*, \([0-9]*\);/\1/p' "$1" 2>/dev/null
}

# check SRC TAG: the two compiles are the same bytes, and hold what the headers say
check() {
	local want got
	want=$(value)
	compiles=$((compiles + 1))
	grep -q -- '-include-pch' out/$2.err && hits=$((hits + 1))
	got=$(stored out/$2.ptx)
	if [ ! -s out/$2.ptx ] || ! cmp -s out/$2.ptx out/$2.plain.ptx || [ "$got" != "$want" ]; then
		diffs=$((diffs + 1))
		echo "step $step ($what): $1 gives '$got' with the cache, '$(stored out/$2.plain.ptx)' without, the headers say $want"
		grep -v '^#\$' out/$2.err | head -3
	fi
	rm -f out/$2.ptx out/$2.plain.ptx
}

edit_value() { # HEADER: a new value, the size kept or not
	local h=$1 v=$((RANDOM % 9 + 1))
	[ $((RANDOM % 3)) = 0 ] && v=$((v + 10 * (RANDOM % 9 + 1)))
	val[$h]=$v
	echo "#define ${h^^} $v" >b/$h.h
}

for ((step = 1; step <= steps; step++)); do
	what=
	for ((m = 0; m < 1 + RANDOM % 2; m++)); do
		h=h$((RANDOM % 3))
		case $((RANDOM % 9)) in
		0) what+=" edit $h"; edit_value $h ;;
		1) # the same size, the old time put back
			what+=" same-size $h"
			v=$(((val[$h] % 9) + 1))
			[ ${#val[$h]} = 2 ] && v=$((v + 10))
			touch -r b/$h.h ref
			val[$h]=$v
			echo "#define ${h^^} $v" >b/$h.h
			touch -r ref b/$h.h ;;
		2) # a header in an earlier directory shadows b's
			what+=" shadow $h"
			v=$((RANDOM % 9 + 1))
			echo "#define ${h^^} $v" >a/$h.h
			eval "shadow_$h=$v" ;;
		3) what+=" unshadow $h"; rm -f a/$h.h; unset "shadow_$h" ;;
		4) # __has_include's file comes or goes
			if [ $opt = 0 ]; then
				opt=$((RANDOM % 9 + 1))
				echo "#define VO $opt" >b/opt.h
				what+=" opt.h"
			else
				rm b/opt.h
				opt=0
				what+=" no opt.h"
			fi ;;
		5) # the symlinked directory to one whose header has the same size and time
			[ $link = v1 ] && link=v2 || link=v1
			ln -sfn $link lnk
			what+=" lnk=$link" ;;
		6) [ $cpath = e1 ] && cpath=e2 || cpath=e1; what+=" CPATH=$cpath" ;;
		7) vd=$((RANDOM % 3)); what+=" -DVD=$vd" ;;
		8) what+=" nothing" ;;
		esac
	done
	# now and then let the files age past "too new", so entries are stored and used
	[ $((RANDOM % 3)) != 0 ] && sleep 0.15
	if [ $((RANDOM % 5)) = 0 ]; then
		# compiles at once, sharing the cache
		build s1.cu c1 & build s2.cu c2 & build s1.cu c3 &
		wait
		check s1.cu c1
		check s2.cu c2
		check s1.cu c3
	else
		src=s$((RANDOM % 2 + 1)).cu
		build $src one
		check $src one
	fi
done
echo "$steps steps, $compiles compiles, $hits through an entry, $diffs differences"
[ "$diffs" = 0 ] && [ "$hits" -gt 0 ]
