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

@test "headers whose parse prints a warning are not cached: the warning shows every time" {
	printf '#warning "old header"\n' >w.h
	for i in 1 2; do
		run --separate-stderr nvcc-lite -ptx -arch=sm_90 -Xclang -include -Xclang w.h saxpy.cu -o $i.ptx
		assert_success
		grep -q 'old header' <<<"$stderr" || fail "run $i lost the warning: $stderr"
	done
	[ "$(entries_in cache)" -eq 0 ]
}

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

@test "a damaged or busy cache entry is no error: rebuilt, taken over, or gone without" {
	nvcc-lite -ptx -no-cache -arch=sm_90 saxpy.cu -o plain.ptx
	nvcc-lite -ptx -arch=sm_90 saxpy.cu -o a.ptx
	list=$(ls cache/fe-*.list)
	# garbage, then an empty list: the entry is built again
	for bad in 'garbage' ''; do
		printf '%s' "$bad" >"$list"
		run --separate-stderr nvcc-lite -ptx -v -arch=sm_90 saxpy.cu -o b.ptx
		assert_success
		grep -q -- '-emit-pch' <<<"$stderr" || fail "a damaged list was trusted"
		cmp plain.ptx b.ptx
		head -1 "$list" | grep -qx 'nv-pch 1'
	done
	# a build in progress elsewhere: this compile goes without the cache
	rm "$list"
	lock=${list%.list}.lock
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
