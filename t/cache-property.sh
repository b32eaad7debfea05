#!/bin/bash
# The header cache as a property: random sequences of what users do to
# headers, flags and the environment, with compiles in between (some of
# them at once), and every compile's PTX and diagnostics compared byte for
# byte with the same compile without the cache, and its PTX with the value
# the sources' headers say it must hold.
#
#   t/cache-property.sh [-n STEPS] [-s SEED] [-k]
#
# What a step may do: edit a header (its size changing or not), edit one
# keeping its size and putting its old time back (touch -r), create or
# remove a header in an earlier include directory that shadows another,
# create or remove the file a __has_include asks for, retarget a symlinked
# include directory at one whose header has the same size and time, switch
# CPATH, change a -D flag, compile right after an edit (too new to cache);
# edit a header in /dev/shm, or one in the cache directory used as a build
# directory; name __BASE_FILE__ in a header plainly, through a line splice
# or by pasting; make a header's template warn when the source instantiates
# it (behind a system header's diagnostic pragmas); give a source a
# trigraph comment in its preamble (-std=c++14); save a source while its
# compile reads it; compile a source from a pipe; use or not a static
# __constant__ table a host function takes the address of.  Diagnostics
# are compared too.
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
# a header directory on a special file system, where there is one
if [ -d /dev/shm ] && [ -w /dev/shm ] && shm=$(mktemp -d /dev/shm/cache-property.XXXXXX); then :; else
	shm=$work/shm
	mkdir "$shm"
fi
[ "$keep" = 1 ] || trap 'rm -rf "$work" "$shm"' EXIT
cd "$work" || exit 1
export NVCC_LITE_CACHE_DIR=$work/cache
RANDOM=$seed

mkdir a b v1 v2 e1 e2 out cache cache/gen
ln -s v1 lnk
# the front end: clang, but one that saves a source while it reads it (a
# pending save, save.NAME, is put in place as NAME by a compile that skips
# a preamble: the bytes it skips were read before)
clang=$(command -v clang-22 || echo "$(llvm-config-22 --bindir)/clang-22")
cat >saving-clang <<EOF
#!/bin/sh
case " \$* " in
*" -preamble-bytes="*)
	for f in $work/save.*; do [ -e "\$f" ] && mv -f "\$f" "$work/\${f#$work/save.}"; done ;;
esac
exec $clang "\$@"
EOF
chmod +x saving-clang
export NVCC_LITE_CLANG=$work/saving-clang
# the model: each value as the sources must see it
declare -A val=([h0]=1 [h1]=2 [h2]=3)
shadow=() # headers shadowed from a/: their values
# put FILE NAME VALUE: a header that holds the value as the compiler's own
# (an enumerator: clang reads a macro's body again from the header when a
# precompiled header uses it, so a stale entry would not show in a macro)
put() {
	printf '#define HAVE_%s 1\nenum { %s = %s };\n' "$2" "$2" "$3" >"$1"
}
for h in h0 h1 h2; do put b/$h.h ${h^^} ${val[$h]}; done
put v1/hs.h VS 3
put v2/hs.h VS 7
touch -r v1/hs.h v2/hs.h
put e1/env.h VE 1
put e2/env.h VE 2
put "$shm/sh.h" VH 0
put cache/gen/g.h VG 0
put b/bf.h VB 0
# a template that warns only where a source instantiates it
cat >b/dw.h <<'EOF'
#pragma GCC system_header
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
inline int quiet_one() { return 0; }
#pragma GCC diagnostic pop
template <class T> T old_api() { return T(); }
template <class T> T use_old(T) { return old_api<T>(); }
EOF
cat >b/tab.h <<'EOF'
static __constant__ int table[2] = { 5, 6 };
__host__ static inline int *table_host() { return table; }
EOF
cat >b/probe.h <<'EOF'
#if __has_include(<opt.h>)
#include <opt.h>
#else
enum { VO = 0 };
#endif
EOF
opt=0     # b/opt.h's value, 0: none
link=v1   # where lnk points
cpath=e1
vd=0      # -DVD=
vh=0 vg=0 # sh.h in $shm, g.h in the cache directory
use_tab=0 # -DUSE_TAB=
saved=
pipe=
declare -A off=([s1]=0 [s2]=0 [s3]=0) # each source's body offset (a save changes it)
# write_src NAME: NAME.cu with its offset, after a leading comment of
# another length each time, so that a saved source's preamble is not the
# old one's.  Three sources: the same headers, in other orders, so that
# prefixes are shared; s3 (-std=c++14) has a trigraph comment that
# swallows its <h1.h>.
write_src() {
	local n=$1 o=${off[$1]} pad
	pad=$(printf '%*s' $((RANDOM % 40)) '')
	case $n in
	s1) printf '// s1%s\n#include <h0.h>\n#include <h1.h>\n#include <hs.h>\n#include <env.h>\n#include <probe.h>\n#include <h2.h>\n' "$pad" ;;
	s2) printf '/* s2%s */\n#include <h0.h>\n#include <probe.h>\n#include <h1.h>\n#include <env.h>\n#include <hs.h>\n#include <h2.h>\n' "$pad" ;;
	s3) printf '#include <h0.h> // s3%s ??/\n#include <h1.h>\n#include <hs.h>\n#include <env.h>\n#include <probe.h>\n#include <h2.h>\n' "$pad" ;;
	esac
	printf '#include <sh.h>\n#include <g.h>\n#include <bf.h>\n#include <dw.h>\n#include <tab.h>\n'
	printf '#ifndef HAVE_H1\nenum { H1 = 0 };\n#endif\n'
	printf '__global__ void k(int *p, long long *q) {\n'
	printf '  p[0] = H0 + H1 * 10 + H2 * 100 + VS * 1000 + VE * 10000 + VO * 100000 + VD * 1000000\n'
	printf '         + VH * 10000000 + VG * 100000000 + %d;\n' "$o"
	printf '  *q = VB;\n#if USE_TAB\n  p[1] = table[threadIdx.x & 1];\n#endif\n}\n'
	printf 'int host_side() { return use_old(1); }\n'
}
for s in s1 s2 s3; do write_src $s >$s.cu; done
touch -d '1 minute ago' -- *.cu */*.h "$shm"/*.h cache/gen/*.h

value() {
	local h0=${shadow_h0:-${val[h0]}} h1=${shadow_h1:-${val[h1]}} h2=${shadow_h2:-${val[h2]}}
	local vs=3 ve=1
	[ "$link" = v2 ] && vs=7
	[ "$cpath" = e2 ] && ve=2
	[ "$1" = s3 ] && h1=0
	echo $((h0 + h1 * 10 + h2 * 100 + vs * 1000 + ve * 10000 + opt * 100000 + vd * 1000000 +
		vh * 10000000 + vg * 100000000 + ${off[$1]}))
}

compiles=0 hits=0 diffs=0
# build SRC TAG [pipe]: SRC.cu compiled with the cache (out/TAG.ptx) and
# without it (out/TAG.plain.ptx), each one's diagnostics beside it; from
# standard input when asked
build() {
	local std="" f
	[ "$1" = s3 ] && std=-std=c++14
	f=(-ptx -arch=sm_90 $std -Ia -Ib -Ilnk -I"$shm" -I"$work/cache/gen" -DVD=$vd -DUSE_TAB=$use_tab)
	if [ "${3:-}" = pipe ]; then
		CPATH=$work/$cpath "$NVCC" "${f[@]}" -v -x cu /dev/stdin -o out/$2.ptx <"$1.cu" 2>out/$2.err
		CPATH=$work/$cpath "$NVCC" "${f[@]}" -no-cache -x cu - -o out/$2.plain.ptx <"$1.cu" 2>out/$2.plain.err
	else
		CPATH=$work/$cpath "$NVCC" "${f[@]}" -v "$1.cu" -o out/$2.ptx 2>out/$2.err
		CPATH=$work/$cpath "$NVCC" "${f[@]}" -no-cache "$1.cu" -o out/$2.plain.ptx 2>out/$2.plain.err
	fi
}

# p[0]'s value: the first 32-bit store of a number
stored() {
	sed -n 's/.*st\.global\.b32.*, \([0-9][0-9]*\);/\1/p' "$1" 2>/dev/null | head -1
}

# check SRC TAG: the two compiles are the same bytes and say the same, and
# hold what the headers say
check() {
	local want got
	want=$(value $1)
	compiles=$((compiles + 1))
	grep -q -- '-include-pch' out/$2.err && hits=$((hits + 1))
	grep -v '^#\$' out/$2.err >out/$2.said
	# a piped source's copy is named for the run's directory
	sed -i 's|/[^ :]*/nvcc-lite\.[^/]*/|TMP/|g' out/$2.said out/$2.plain.err
	got=$(stored out/$2.ptx)
	if [ ! -s out/$2.ptx ] || ! cmp -s out/$2.ptx out/$2.plain.ptx || [ "$got" != "$want" ] ||
		! cmp -s out/$2.said out/$2.plain.err; then
		diffs=$((diffs + 1))
		echo "step $step ($what): $1 gives '$got' with the cache, '$(stored out/$2.plain.ptx)' without, the headers say $want"
		cmp -s out/$2.ptx out/$2.plain.ptx || echo "  the PTX differs"
		cmp -s out/$2.said out/$2.plain.err || diff out/$2.said out/$2.plain.err | head -6
	fi
	rm -f out/$2.*
}

# A header that names __BASE_FILE__: plainly, spliced, pasted, or not.
frozen_header() {
	case $((RANDOM % 4)) in
	0) echo 'enum { VB = 0 };' ;;
	1) printf 'static const char bfn[] = __BASE_FILE__;\n#define VB sizeof(bfn)\n' ;;
	2) printf 'static const char bfn[] = __BASE_\\\nFILE__;\n#define VB sizeof(bfn)\n' ;;
	3) printf '#define PASTE(a, b) a##b\nstatic const char bfn[] = PASTE(__BASE_, FILE__);\n#define VB sizeof(bfn)\n' ;;
	esac
}

edit_value() { # HEADER: a new value, the size kept or not
	local h=$1 v=$((RANDOM % 9 + 1))
	[ $((RANDOM % 3)) = 0 ] && v=$((v + 10 * (RANDOM % 9 + 1)))
	val[$h]=$v
	put b/$h.h ${h^^} $v
}

for ((step = 1; step <= steps; step++)); do
	what=
	for ((m = 0; m < 1 + RANDOM % 2; m++)); do
		h=h$((RANDOM % 3))
		case $((RANDOM % 17)) in
		0) what+=" edit $h"; edit_value $h ;;
		1) # the same size, the old time put back
			what+=" same-size $h"
			v=$(((val[$h] % 9) + 1))
			[ ${#val[$h]} = 2 ] && v=$((v + 10))
			touch -r b/$h.h ref
			val[$h]=$v
			put b/$h.h ${h^^} $v
			touch -r ref b/$h.h ;;
		2) # a header in an earlier directory shadows b's
			what+=" shadow $h"
			v=$((RANDOM % 9 + 1))
			put a/$h.h ${h^^} $v
			eval "shadow_$h=$v" ;;
		3) what+=" unshadow $h"; rm -f a/$h.h; unset "shadow_$h" ;;
		4) # __has_include's file comes or goes
			if [ $opt = 0 ]; then
				opt=$((RANDOM % 9 + 1))
				put b/opt.h VO $opt
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
		9) vh=$((RANDOM % 10)); put "$shm/sh.h" VH $vh; what+=" shm=$vh" ;;
		10) # the same size, the old time put back, in the cache directory
			touch -r cache/gen/g.h ref
			vg=$(((vg + 1) % 10))
			put cache/gen/g.h VG $vg
			touch -r ref cache/gen/g.h
			what+=" cache/gen=$vg" ;;
		11) frozen_header >b/bf.h; what+=" bf.h:$(head -c 30 b/bf.h | tr '\n' ' ')" ;;
		12) # the template's warning on, or off
			if grep -q deprecated b/dw.h; then
				sed -i 's/^template <class T> \[\[deprecated\]\] T old_api/template <class T> T old_api/' b/dw.h
				what+=" dw.h quiet"
			else
				sed -i 's/^template <class T> T old_api/template <class T> [[deprecated]] T old_api/' b/dw.h
				what+=" dw.h warns"
			fi ;;
		13) use_tab=$((1 - use_tab)); what+=" -DUSE_TAB=$use_tab" ;;
		14|15) # a save of a source, pending: it lands while a compile reads it
			saved=s$((RANDOM % 3 + 1))
			saved_off=$(((RANDOM % 9 + 1) * 100000000))
			what+=" save $saved" ;;
		16) what+=" pipe"; pipe=pipe ;;
		esac
	done
	# now and then let the files age past "too new", so entries are stored and used
	[ $((RANDOM % 3)) != 0 ] && sleep 0.15
	if [ -n "$saved" ]; then
		# the source as it will be: put in place by the front end of the
		# compile through the cache, before the one without it
		old=${off[$saved]}
		off[$saved]=$saved_off
		write_src $saved >save.$saved.cu
		[ -e save.$saved.cu ] || exit 1
		build $saved one
		if [ -e save.$saved.cu ]; then
			# no compile skipped a preamble: both read the old source
			off[$saved]=$old
			check $saved one
			mv save.$saved.cu $saved.cu
			off[$saved]=$saved_off
		else
			check $saved one
		fi
		saved=
	elif [ $((RANDOM % 5)) = 0 ]; then
		# compiles at once, sharing the cache
		build s1 c1 & build s2 c2 & build s1 c3 &
		wait
		check s1 c1
		check s2 c2
		check s1 c3
	else
		src=s$((RANDOM % 3 + 1))
		build $src one $pipe
		check $src one
	fi
	pipe=
done
echo "$steps steps, $compiles compiles, $hits through an entry, $diffs differences"
[ "$diffs" = 0 ] && [ "$hits" -gt 0 ]
