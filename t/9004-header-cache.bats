#!/usr/bin/env bats
# The front end's header cache: a precompiled header of what every CUDA
# source includes first, built on first use, shared by concurrent builds,
# rebuilt when a header or flag changes, never a reason for a build to fail.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	export NVCC_LITE_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
	cp "$FIXTURES/saxpy.cu" .
}

# The front end's command of the last `nvcc-lite -v` run, from its stderr.
fe_cmd() {
	grep -- '--cuda-device-only' <<<"$stderr" | grep -v -- '-emit-pch' | tail -1
}

entries_in() {
	find "$1" -name 'fe-*.pch' | wc -l
}

# bats test_tags=slow
@test "the first compile builds the header cache, the next uses it, and the PTX is the same bytes" {
	nvcc-lite -ptx -no-cache -arch=sm_90 saxpy.cu -o plain.ptx
	[ ! -e cache ] || fail "-no-cache wrote to the cache"
	run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 saxpy.cu -o first.ptx
	assert_success
	grep -q -- '-emit-pch' <<<"$stderr" || fail "no header was built: $stderr"
	[ "$(entries_in cache)" -eq 1 ]
	run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 saxpy.cu -o second.ptx
	assert_success
	! grep -q -- '-emit-pch' <<<"$stderr" || fail "the header was built again"
	fe_cmd | grep -q -- "-include-pch $NVCC_LITE_CACHE_DIR/fe-" || fail "not used: $(fe_cmd)"
	cmp plain.ptx first.ptx
	cmp plain.ptx second.ptx
	# no lock, no temporary left behind
	[ -z "$(find cache -name '*.lock' -o -name '*.pch.*' -o -name '*.d.*')" ]
}

# bats test_tags=slow
@test "a flag that changes what the headers mean gets its own entry; one that does not, none" {
	nvcc-lite -ptx -arch=sm_90 saxpy.cu -o a.ptx
	nvcc-lite -ptx -arch=sm_90 -DFOO=1 saxpy.cu -o b.ptx
	[ "$(entries_in cache)" -eq 2 ]
	nvcc-lite -ptx -arch=sm_80 saxpy.cu -o c.ptx
	[ "$(entries_in cache)" -eq 3 ]
	# the output's name and the optimizer's knobs are not the front end's business
	nvcc-lite -ptx -arch=sm_90 -Xcicc -inline-budget=10 saxpy.cu -o d.ptx
	[ "$(entries_in cache)" -eq 3 ]
	# another directory: the same entry, unless a path is relative to it
	mkdir sub inc sub/inc
	(cd sub && nvcc-lite -ptx -arch=sm_90 -I"$BATS_TEST_TMPDIR/inc" ../saxpy.cu -o e.ptx)
	nvcc-lite -ptx -arch=sm_90 -I"$BATS_TEST_TMPDIR/inc" saxpy.cu -o e.ptx
	[ "$(entries_in cache)" -eq 4 ]
	(cd sub && nvcc-lite -ptx -arch=sm_90 -Iinc ../saxpy.cu -o f.ptx)
	nvcc-lite -ptx -arch=sm_90 -Iinc saxpy.cu -o f.ptx
	[ "$(entries_in cache)" -eq 6 ]
}

@test "a changed header is seen at once: the entry is rebuilt" {
	mkdir inc
	echo '#define SCALE 3.0f' >inc/scale.h
	cat >k.cu <<'EOF'
__global__ void k(float *p) { p[threadIdx.x] *= SCALE; }
EOF
	# -Xclang -include: a header of the command, so in the cache entry
	nvcc-lite -ptx -arch=sm_90 -Xclang -include -Xclang inc/scale.h k.cu -o a.ptx
	nvcc-lite -ptx -arch=sm_90 -Xclang -include -Xclang inc/scale.h k.cu -o b.ptx
	grep -q '0f40400000' b.ptx || fail "3.0f not in the PTX"
	echo '#define SCALE 5.0f' >inc/scale.h
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -Xclang -include -Xclang inc/scale.h k.cu -o c.ptx
	assert_success
	[ -z "$stderr" ] || fail "$stderr"
	grep -q '0f40A00000' c.ptx || fail "the old header was used: $(grep mul c.ptx)"
	# a header put back with its old time but other bytes is a change too
	touch -d '2001-01-01' inc/scale.h
	nvcc-lite -ptx -arch=sm_90 -Xclang -include -Xclang inc/scale.h k.cu -o d.ptx
	echo '#define SCALE 7.0f' >inc/scale.h
	touch -d '2001-01-01' inc/scale.h
	nvcc-lite -ptx -arch=sm_90 -Xclang -include -Xclang inc/scale.h k.cu -o e.ptx
	grep -q '0f40E00000' e.ptx || fail "the old header was used"
}

# bats test_tags=slow
@test "-include FILE is the build's, not the cache's: a header without a guard is read once" {
	printf 'struct two { float v; };\n' >t.h
	cat >k.cu <<'EOF'
__global__ void k(two *p) { p[threadIdx.x].v += 1.0f; }
EOF
	nvcc-lite -ptx -arch=sm_90 -include t.h k.cu -o a.ptx
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -include t.h k.cu -o b.ptx
	assert_success
	[ -z "$stderr" ] || fail "$stderr"
	cmp a.ptx b.ptx
}

# bats test_tags=slow
@test "headers whose parse prints a warning are not cached: the warning shows every time" {
	printf '#warning "old header"\n' >w.h
	for i in 1 2; do
		run --separate-stderr nvcc-lite -ptx -arch=sm_90 -Xclang -include -Xclang w.h saxpy.cu -o $i.ptx
		assert_success
		grep -q 'old header' <<<"$stderr" || fail "run $i lost the warning: $stderr"
	done
	[ "$(entries_in cache)" -eq 0 ]
}

# bats test_tags=slow
@test "concurrent compiles with an empty cache: all succeed, one entry, the same PTX" {
	nvcc-lite -ptx -no-cache -arch=sm_90 saxpy.cu -o plain.ptx
	for i in 1 2 3 4 5 6; do
		nvcc-lite -ptx -arch=sm_90 saxpy.cu -o $i.ptx 2>$i.err &
	done
	wait
	for i in 1 2 3 4 5 6; do
		[ ! -s $i.err ] || fail "compile $i: $(cat $i.err)"
		cmp plain.ptx $i.ptx
	done
	[ "$(entries_in cache)" -eq 1 ]
	[ -z "$(find cache -name '*.lock' -o -name '*.pch.*' -o -name '*.d.*')" ]
}

# bats test_tags=slow
@test "a cache directory that cannot be had is no error: the compile goes without" {
	nvcc-lite -ptx -no-cache -arch=sm_90 saxpy.cu -o plain.ptx
	: >file
	for dir in "$PWD/file/cache" "relative/cache" "$PWD/sp ace"; do
		NVCC_LITE_CACHE_DIR=$dir run --separate-stderr nvcc-lite -ptx -arch=sm_90 saxpy.cu -o out.ptx
		assert_success
		[ -z "$stderr" ] || fail "$dir: $stderr"
		cmp plain.ptx out.ptx
	done
	[ ! -e "sp ace" ] && [ ! -e relative ]
	# a missing one is created; a read-only one is used as far as it can be
	NVCC_LITE_CACHE_DIR=$PWD/new/deep/cache nvcc-lite -ptx -arch=sm_90 saxpy.cu -o out.ptx
	[ "$(entries_in new/deep/cache)" -eq 1 ]
	mkdir ro && chmod 555 ro
	NVCC_LITE_CACHE_DIR=$PWD/ro run --separate-stderr nvcc-lite -ptx -arch=sm_90 saxpy.cu -o out.ptx
	assert_success
	[ -z "$stderr" ] || fail "$stderr"
	cmp plain.ptx out.ptx
}

# bats test_tags=slow
@test "dependency files are the same bytes with and without the cache" {
	nvcc-lite -ptx -arch=sm_90 saxpy.cu -o warm.ptx
	mkdir inc
	echo '#define N 4' >inc/n.h
	printf '#include "n.h"\n' | cat - saxpy.cu >dep.cu
	for m in -MD -MMD "-MD -MP" "-MMD -MP"; do
		nvcc-lite -ptx -no-cache -arch=sm_90 -Iinc $m dep.cu -o dep.ptx
		mv dep.d plain.d
		nvcc-lite -ptx -arch=sm_90 -Iinc $m dep.cu -o dep.ptx
		run diff plain.d dep.d
		[ "$status" -eq 0 ] || fail "$m: (< without, > with the cache) $output"
		grep -q 'inc/n.h' dep.d || fail "$m: no inc/n.h"
		! grep -q 'fe-' dep.d || fail "$m: the cache's own files are listed"
	done
	grep -q '^inc/n.h:$' dep.d || fail "-MP: no rule for inc/n.h"
}

# bats test_tags=slow
@test "-time: each step's own wall and CPU time, its files, and the driver's row" {
	nvcc-lite -ptx -arch=sm_90 -time t.csv saxpy.cu -o s.ptx
	head -1 t.csv | grep -q '^source file name , phase name , phase input files , phase output file , arch , tool, metric , unit$'
	# every step twice (ms, ms (cpu)), the front end reading the source
	grep -q '^saxpy.cu , front end (front end) , saxpy.cu , .*saxpy.0-cudafe.bc , sm_90 , nvcc-lite , [0-9.]* , ms$' t.csv
	grep -q '^saxpy.cu , nv-llc (.*) , - , s.ptx , sm_90 , nvcc-lite , [0-9.]* , ms (cpu)$' t.csv
	[ "$(grep -c ' , ms$' t.csv)" -eq "$(grep -c ' , ms (cpu)$' t.csv)" ]
	grep -q '^ , nvcc-lite (driver) ,  , s.ptx ,  , nvcc-lite , [0-9.]* , ms$' t.csv
	# the wall rows add up to about the compile's time: not pipe waits summed
	total=$(awk -F' , ' '$8 == "ms" { s += $7 } END { printf "%d", s }' t.csv)
	start=$(date +%s%N)
	nvcc-lite -ptx -arch=sm_90 -time t2.csv saxpy.cu -o s.ptx
	took=$(( ($(date +%s%N) - start) / 1000000 ))
	total=$(awk -F' , ' '$8 == "ms" { s += $7 } END { printf "%d", s }' t2.csv)
	[ "$total" -le $((took + 5)) ] || fail "rows add up to $total ms, the compile took $took ms"
	[ "$total" -ge $((took / 2)) ] || fail "rows add up to $total ms, the compile took $took ms"
}

@test "-time under -split-compile: plain CSV rows, and the driver's row is the time outside every step" {
	printf '__global__ void a(float *p) { p[threadIdx.x] *= 2.0f; }\n' >two.cu
	printf '__global__ void b(float *p) { p[threadIdx.x] += 1.0f; }\n' >>two.cu
	nvcc-lite -ptx -arch=sm_90 -split-compile=2 -time t.csv two.cu -o two.ptx
	grep -q ' (phase II part 1) , ' t.csv || fail "not split: $(cat t.csv)"
	grep -q ' (join and codegen) , ' t.csv || fail "$(cat t.csv)"
	# eight fields a row, split on every comma: no field holds one
	run awk -F, 'NF != 8' t.csv
	assert_output ''
	# the parts ran at once: the driver's row is what no step covers, never below 0
	grep -q '^ , nvcc-lite (driver) ,  , two.ptx ,  , nvcc-lite , [0-9][0-9.]* , ms$' t.csv || fail "$(grep driver t.csv)"
}

# bats test_tags=slow
@test "a long compile on a terminal says where it is, on one line it wipes; elsewhere nothing" {
	command -v script >/dev/null || skip "no script(1)"
	# a front end that takes a while
	cat >slowclang <<EOF2
#!/bin/sh
sleep 1.5
exec $(command -v clang-22) "\$@"
EOF2
	chmod +x slowclang
	NVCC_LITE_CLANG=$PWD/slowclang script -qec "nvcc-lite -ptx -no-cache -arch=sm_90 saxpy.cu -o tty.ptx" /dev/null >tty.out
	[ -s tty.ptx ]
	grep -q 'nvcc-lite: saxpy.cu: front end (1 s)' tty.out || fail "no progress line: $(od -c tty.out | head)"
	# the last thing written wipes the line
	[ "$(tail -c 4 tty.out | od -An -c | tr -d ' ')" = '\r033[K' ] || fail "not wiped: $(tail -c 16 tty.out | od -c)"
	run --separate-stderr env NVCC_LITE_CLANG=$PWD/slowclang nvcc-lite -ptx -no-cache -arch=sm_90 saxpy.cu -o file.ptx
	assert_success
	[ -z "$stderr" ] || fail "progress on a non-terminal: $stderr"
	cmp tty.ptx file.ptx
}

# bats test_tags=slow
@test "a damaged or busy cache entry is no error: rebuilt, taken over, or gone without" {
	nvcc-lite -ptx -no-cache -arch=sm_90 saxpy.cu -o plain.ptx
	nvcc-lite -ptx -arch=sm_90 saxpy.cu -o a.ptx
	list=$(ls cache/fe-*.man)
	# garbage, then an empty list: the entry is built again
	for bad in 'garbage' ''; do
		printf '%s' "$bad" >"$list"
		run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 saxpy.cu -o b.ptx
		assert_success
		grep -q -- '-emit-pch' <<<"$stderr" || fail "a damaged list was trusted"
		cmp plain.ptx b.ptx
		head -1 "$list" | grep -qx 'nv-pch 3'
	done
	# a build in progress elsewhere: this compile goes without the cache
	rm "$list"
	lock=${list%.man}.lock
	: >"$lock"
	run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 saxpy.cu -o c.ptx
	assert_success
	! grep -q -- '-include-pch\|-emit-pch' <<<"$stderr" || fail "a held lock was ignored"
	cmp plain.ptx c.ptx
	[ -e "$lock" ] || fail "another compile's lock was removed"
	# a lock left by a build that was killed long ago is taken over
	touch -d '10 minutes ago' "$lock"
	nvcc-lite -ptx -arch=sm_90 saxpy.cu -o d.ptx
	[ -f "$list" ] && [ ! -e "$lock" ]
	cmp plain.ptx d.ptx
}

@test "headers the front end cannot precompile: the compile says so once, and nothing is cached" {
	printf '#error this header is broken\n' >bad.h
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -Xclang -include -Xclang bad.h saxpy.cu -o out.ptx
	assert_failure 1
	[ "$(grep -c ': error: ' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	[[ "$stderr" == *"bad.h:1:2: error: this header is broken"* ]] || fail "$stderr"
	[ ! -e out.ptx ]
	[ "$(entries_in cache)" -eq 0 ]
	[ -z "$(find cache -name '*.lock' -o -name '*.pch.*' -o -name '*.d.*' -o -name '*.list')" ]
}

# A source whose first lines include headers found on -I: its preamble.
preamble_source() {
	mkdir -p inc
	printf '#ifndef A_H\n#define A_H\n#define N 4\n#endif\n' >inc/a.h
	# no include guard: read twice, it would be an error
	printf 'struct two { float v; };\n' >inc/two.h
	echo '#define Q 1' >q.h
	printf '// leading\n#include <a.h>\n/* block\n comment */ #include <two.h>\n#include "q.h"\n' >k.cu
	printf '__global__ void k(two *p) { p[threadIdx.x].v += N * Q; }\n' >>k.cu
}

@test "a source's leading <includes> get an entry of their own from its second compile, read once, the PTX the same bytes" {
	preamble_source
	nvcc-lite -ptx -no-cache -arch=sm_90 -Iinc k.cu -o plain.ptx
	# the first compile: the command's entry only
	run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 -Iinc k.cu -o 1.ptx
	assert_success
	[ "$(grep -c -- '-emit-pch' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	! grep -q -- '-preamble-bytes' <<<"$stderr" || fail "a preamble entry on first use"
	# the second: the preamble's entry is built and used
	run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 -Iinc k.cu -o 2.ptx
	assert_success
	grep -q -- '-emit-pch' <<<"$stderr" || fail "no preamble entry built: $stderr"
	[ "$(entries_in cache)" -eq 2 ]
	# the third uses it: the four lines before the quoted include are skipped
	run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 -Iinc k.cu -o 3.ptx
	assert_success
	! grep -q -- '-emit-pch' <<<"$stderr" || fail "built again"
	fe_cmd | grep -q -- "-include-pch $NVCC_LITE_CACHE_DIR/fe-.* -Xclang -preamble-bytes=$(head -4 k.cu | wc -c),1 " ||
		fail "not used: $(fe_cmd)"
	for i in 1 2 3; do cmp plain.ptx $i.ptx; done
	# a new body keeps the entry; a changed header in it is seen at once
	sed -i 's/N \* Q/N * Q * 2.0f/' k.cu
	run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 -Iinc k.cu -o 4.ptx
	! grep -q -- '-emit-pch' <<<"$stderr" || fail "a body's edit rebuilt the entry"
	grep -q -- '-preamble-bytes' <<<"$stderr" || fail "a body's edit dropped the entry"
	nvcc-lite -ptx -no-cache -arch=sm_90 -Iinc k.cu -o plain4.ptx
	cmp plain4.ptx 4.ptx
	printf '#ifndef A_H\n#define A_H\n#define N 5\n#endif\n' >inc/a.h
	nvcc-lite -ptx -arch=sm_90 -Iinc k.cu -o 5.ptx
	nvcc-lite -ptx -no-cache -arch=sm_90 -Iinc k.cu -o plain5.ptx
	cmp plain5.ptx 5.ptx
	! cmp -s plain4.ptx 5.ptx || fail "the old header was used"
}

# bats test_tags=slow
@test "a preamble is only <includes>, blank lines and comments, up to a line's end" {
	mkdir inc
	for h in a b c; do printf '#pragma once\n#define HEADER_%s 1\n' "$h" >inc/$h.h; done
	body='__global__ void k(float *p) { p[threadIdx.x] = 1.0f; }'
	# source | lines of its preamble (0: none)
	cases=(
		"#include <a.h>\n#include <b.h>\n\n$body|2"
		"  #  include<a.h> // c\n/* x */ #include <b.h> /* y\n */\n#include \"c.h\"\n$body|3"
		"#include \"c.h\"\n#include <a.h>\n$body|0"
		"#define X 1\n#include <a.h>\n$body|0"
		"#include <a.h>\n#include <b.h> \\\\\n\n$body|1"
		"#include <a.h>\n#ifdef X\n#include <b.h>\n#endif\n$body|1"
		"#include <a.h>\n// a comment that goes on \\\\\n#include <b.h>\n$body|1"
		"#include <a.h> int x;\n$body|0"
	)
	cp inc/c.h .
	for c in "${cases[@]}"; do
		printf "${c%|*}\n" >k.cu
		want=${c##*|}
		for i in 1 2 3; do
			run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 -Iinc k.cu -o k.ptx
			assert_success
		done
		if [ "$want" -eq 0 ]; then
			! fe_cmd | grep -q -- '-preamble-bytes' || fail "$(cat k.cu): a preamble: $(fe_cmd)"
		else
			fe_cmd | grep -q -- "-preamble-bytes=$(head -"$want" k.cu | wc -c),1 " ||
				fail "$(cat k.cu): want $want lines: $(fe_cmd)"
		fi
	done
}

# bats test_tags=slow
@test "sources that begin with the same <includes> share an entry, whatever their comments; a longer prefix has its own, whole" {
	mkdir inc
	printf '#pragma once\n#define X_H 2\nstruct big { float v[X_H]; };\n' >inc/x.h
	printf '#pragma once\n#define Y_H 3\n' >inc/y.h
	printf '#pragma once\n#define Z_H 5\n' >inc/z.h
	body='__global__ void k(big *p) { p[threadIdx.x].v[1] += X_H * SECOND; }'
	printf '// a\n#include <x.h>\n#include <y.h>\n#define SECOND Y_H\n%s\n' "$body" >a.cu
	printf '/* b */\n#  include   <x.h> // x\n#include <z.h>\n#define SECOND Z_H\n%s\n' "$body" >b.cu
	for f in a b; do nvcc-lite -ptx -no-cache -arch=sm_90 -Iinc $f.cu -o $f.plain.ptx; done
	grep -q '0f40C00000' a.plain.ptx && grep -q '0f41200000' b.plain.ptx || fail "not 2*3 and 2*5"
	# a's first compile: only the command's entry; b's first: <x.h> was seen, built, used
	nvcc-lite -ptx -arch=sm_90 -Iinc a.cu -o a.1.ptx
	[ "$(entries_in cache)" -eq 1 ]
	run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 -Iinc b.cu -o b.1.ptx
	assert_success
	[ "$(entries_in cache)" -eq 2 ]
	fe_cmd | grep -q -- "-preamble-bytes=$(head -2 b.cu | wc -c),1 " || fail "x.h's entry not used: $(fe_cmd)"
	# a again: <x.h> <y.h> was seen, built whole: no entry is chained on
	# another (clang's diagnostic state does not survive a chain)
	run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 -Iinc a.cu -o a.2.ptx
	assert_success
	[ "$(grep -c -- '-emit-pch' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	! grep -- '-emit-pch' <<<"$stderr" | grep -q -- "-include-pch" || fail "chained: $stderr"
	fe_cmd | grep -q -- "-preamble-bytes=$(head -3 a.cu | wc -c),1 " || fail "x.h y.h's entry not used: $(fe_cmd)"
	[ "$(entries_in cache)" -eq 3 ]
	# b again: <x.h> <z.h>, its own entry; then nothing more
	run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 -Iinc b.cu -o b.2.ptx
	[ "$(grep -c -- '-emit-pch' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 -Iinc b.cu -o b.3.ptx
	! grep -q -- '-emit-pch' <<<"$stderr" || fail "built again: $stderr"
	fe_cmd | grep -q -- "-preamble-bytes=$(head -3 b.cu | wc -c),1 " || fail "x.h z.h's entry not used: $(fe_cmd)"
	[ "$(entries_in cache)" -eq 4 ]
	[ "$(grep -l 'x.h' cache/fe-*.cu | wc -l)" -eq 3 ] || fail "x.h is not in three entries' sources"
	for f in a.1 a.2; do cmp a.plain.ptx $f.ptx; done
	for f in b.1 b.2 b.3; do cmp b.plain.ptx $f.ptx; done
	# through a longer prefix's entry: the dependency file names every header once
	nvcc-lite -ptx -no-cache -arch=sm_90 -Iinc -MD a.cu -o a.ptx && mv a.d plain.d
	run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 -Iinc -MD a.cu -o a.ptx
	fe_cmd | grep -q -- "-preamble-bytes=$(head -3 a.cu | wc -c),1 " || fail "not used: $(fe_cmd)"
	diff plain.d a.d
	grep -q 'inc/x.h' a.d && grep -q 'inc/y.h' a.d
	# a header of both entries changes: both see it
	sed -i 's/X_H 2/X_H 7/' inc/x.h
	nvcc-lite -ptx -arch=sm_90 -Iinc a.cu -o a.4.ptx
	nvcc-lite -ptx -arch=sm_90 -Iinc b.cu -o b.4.ptx
	grep -q '0f41A80000' a.4.ptx && grep -q '0f420C0000' b.4.ptx || fail "the old x.h was used"
}

# bats test_tags=slow
@test "concurrent compiles of sources that share leading <includes>: all succeed, the same PTX, no leftovers" {
	mkdir inc
	for h in a b c; do printf '#pragma once\n#define V_%s 2\n' "$h" >inc/$h.h; done
	# six sources, three prefixes in common: <a.h>, <a.h> <b.h>, <a.h> <b.h> <c.h>
	for i in 1 2 3 4 5 6; do
		case $((i % 3)) in
		0) printf '#include <a.h>\n' ;;
		1) printf '// %s\n#include <a.h>\n#include <b.h>\n' "$i" ;;
		2) printf '#include <a.h>\n#include <b.h>\n#include <c.h>\n' ;;
		esac >s$i.cu
		printf '__global__ void k(int *p) { p[threadIdx.x] = V_a * %s; }\n' "$i" >>s$i.cu
		nvcc-lite -ptx -no-cache -arch=sm_90 -Iinc s$i.cu -o s$i.plain.ptx
	done
	for round in 1 2 3; do
		for i in 1 2 3 4 5 6; do
			nvcc-lite -ptx -arch=sm_90 -Iinc s$i.cu -o s$i.$round.ptx 2>s$i.$round.err &
		done
		wait
		for i in 1 2 3 4 5 6; do
			[ ! -s s$i.$round.err ] || fail "round $round, s$i: $(cat s$i.$round.err)"
			cmp s$i.plain.ptx s$i.$round.ptx
		done
	done
	[ "$(entries_in cache)" -ge 2 ] || fail "no prefix entry: $(ls cache)"
	[ -z "$(find cache -name '*.lock' -o -name '*.pch.*' -o -name '*.d.*' -o -name '*.list.*')" ]
	# every prefix's entry is there now: a seventh compile builds nothing
	run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 -Iinc s2.cu -o s2.4.ptx
	! grep -q -- '-emit-pch' <<<"$stderr" || fail "built again: $stderr"
	fe_cmd | grep -q -- "-preamble-bytes=$(head -3 s2.cu | wc -c),1 " || fail "$(fe_cmd)"
}

# bats test_tags=slow
@test "with a preamble's entry, diagnostics keep their lines and dependency files their bytes" {
	preamble_source
	printf '#warning "in the body"\n' >>k.cu
	nvcc-lite -ptx -no-cache -arch=sm_90 -Iinc k.cu -o plain.ptx 2>plain.err
	grep -q 'k.cu:7:2: warning: "in the body"' plain.err || fail "$(cat plain.err)"
	for m in -MD -MMD "-MD -MP" "-MMD -MP"; do
		nvcc-lite -ptx -no-cache -arch=sm_90 -Iinc $m k.cu -o k.ptx 2>/dev/null
		mv k.d plain.d
		for i in 1 2 3; do
			nvcc-lite -ptx -arch=sm_90 -Iinc $m k.cu -o k.ptx 2>$i.err
			diff plain.err $i.err || fail "$m: compile $i's diagnostics differ"
			run diff plain.d k.d
			[ "$status" -eq 0 ] || fail "$m: compile $i (< without, > with the cache) $output"
		done
		nvcc-lite -ptx -v -arch=sm_90 -Iinc $m k.cu -o k.ptx 2>&1 | grep -q -- '-preamble-bytes' ||
			fail "$m: the preamble's entry was not used"
	done
	grep -q 'inc/a.h' k.d && grep -q 'inc/two.h' k.d && grep -q 'q.h' k.d
	# an error in the body: one line, at its place
	printf 'int broken = ;\n' >>k.cu
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -Iinc k.cu -o k.ptx
	assert_failure 1
	[ "$(grep -c ': error: ' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	grep -q 'k.cu:8:14: error: expected expression' <<<"$stderr" || fail "$stderr"
}

# bats test_tags=slow
@test "-include FILE takes no preamble's entry: the file comes before the preamble" {
	preamble_source
	printf '#define N 9\n' >n.h
	sed -i 's/#define N 4/#ifndef N\n#define N 4\n#endif/' inc/a.h
	nvcc-lite -ptx -no-cache -arch=sm_90 -Iinc -include n.h k.cu -o plain.ptx
	for pass in 1 2 3; do
		run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 -Iinc -include n.h k.cu -o $pass.ptx
		assert_success
		! grep -q -- '-preamble-bytes' <<<"$stderr" || fail "compile $pass took a preamble's entry"
		cmp plain.ptx $pass.ptx
	done
	grep -q '0f41100000' plain.ptx || fail "N is not 9: $(grep add plain.ptx)"
}

# bats test_tags=slow
@test "the cache keeps within NVCC_LITE_CACHE_SIZE, dropping what was used longest ago, never what is in use" {
	preamble_source
	for i in 1 2; do nvcc-lite -ptx -arch=sm_90 -Iinc k.cu -o k.ptx; done
	[ "$(entries_in cache)" -eq 2 ]
	# entries an hour old, then a new one over a budget of 1 KiB: the old go
	find cache -name 'fe-*' -exec touch -d '1 hour ago' {} +
	for i in 1 2; do NVCC_LITE_CACHE_SIZE=1K nvcc-lite -ptx -arch=sm_90 -Iinc -DCACHE_TEST=1 k.cu -o x.ptx; done
	[ "$(entries_in cache)" -eq 2 ] || fail "$(ls cache)"
	[ -z "$(find cache -name 'fe-*.pch' -mmin +30)" ] || fail "an old entry was kept"
	# within the default budget nothing goes
	for i in 1 2; do nvcc-lite -ptx -arch=sm_90 -Iinc -DCACHE_TEST=2 k.cu -o x.ptx; done
	[ "$(entries_in cache)" -eq 4 ]
	[ -z "$(find cache -name '*.lock' -o -name '*.pch.*' -o -name '*.d.*')" ]
}

# bats test_tags=slow
@test "a preamble's entry stands alone: it holds the command's headers too, and goes stale with them" {
	preamble_source
	echo '#define SCALE 3.0f' >inc/scale.h
	sed -i 's/N \* Q/N * Q * SCALE/' k.cu
	X=(-Xclang -include -Xclang inc/scale.h)
	settle
	for pass in 1 2 3; do nvcc-lite -ptx -arch=sm_90 -Iinc "${X[@]}" k.cu -o $pass.ptx; done
	[ "$(entries_in cache)" -eq 2 ]
	small=$(find cache -name 'fe-*.pch' -size -100k | wc -l)
	[ "$small" -eq 0 ] || fail "the preamble's entry is a delta: $(ls -l cache)"
	# the command's header changes: the preamble's entry is rebuilt (the
	# command's too, on its next use), the PTX follows
	echo '#define SCALE 5.0f' >inc/scale.h
	settle
	run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 -Iinc "${X[@]}" k.cu -o 4.ptx
	assert_success
	[ "$(grep -c -- '-emit-pch' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	fe_cmd | grep -q -- '-preamble-bytes' || fail "$(fe_cmd)"
	nvcc-lite -ptx -no-cache -arch=sm_90 -Iinc "${X[@]}" k.cu -o plain.ptx
	cmp plain.ptx 4.ptx
	grep -q '0f41A00000' 4.ptx || fail "not 4 * 1 * 5.0f: $(grep -i 'f32' 4.ptx)"
}
