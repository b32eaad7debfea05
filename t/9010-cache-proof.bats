#!/usr/bin/env bats
# The header cache's hit is proof: every name its build looked up answers
# the same now.  Each case here is one a careful user hit on the cache that
# only compared sizes and times: the compile through the cache must be the
# same bytes as the compile without it.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	export NVCC_LITE_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
}

# same_as_plain OUT ARGS...: k.cu compiled twice through the cache (an
# entry is built on a flag set's second use), then without it; the three
# the same.
same_as_plain() {
	local out=$1
	shift
	nvcc-lite -ptx -arch=sm_90 "$@" k.cu -o "$out.1.ptx"
	nvcc-lite -ptx -arch=sm_90 "$@" k.cu -o "$out.2.ptx"
	nvcc-lite -ptx -arch=sm_90 -no-cache "$@" k.cu -o "$out.plain.ptx"
	cmp "$out.plain.ptx" "$out.1.ptx" || fail "$out: first compile differs"
	cmp "$out.plain.ptx" "$out.2.ptx" || fail "$out: second compile differs: $(grep st.global "$out.2.ptx") vs $(grep st.global "$out.plain.ptx")"
}

# used ARGS...: k.cu's compile went through an entry of the cache (-v).
used() {
	nvcc-lite -ptx -arch=sm_90 -v "$@" k.cu -o used.ptx 2>&1 | grep -q -- '-include-pch'
}

value() {
	sed -n 's/.*st\.global\.b32.*, \([0-9]*\);/\1/p' "$1"
}

k_source() {
	printf '#include <cstdio>\n' >k.cu
	for h in "$@"; do printf '#include <%s>\n' "$h" >>k.cu; done
	printf '__global__ void k(int *p) { p[0] = V; }\n' >>k.cu
}

# bats test_tags=slow
@test "CPATH and its siblings are part of what an entry stands for" {
	mkdir e1 e2
	echo 'enum { V = 11 };' >e1/v.h
	echo 'enum { V = 22 };' >e2/v.h
	k_source v.h
	settle
	CPATH=$PWD/e1 same_as_plain one
	CPATH=$PWD/e1 used || fail "the cache was not used"
	CPATH=$PWD/e2 same_as_plain two
	[ "$(value two.2.ptx)" = 22 ] || fail "CPATH=e2 gave $(value two.2.ptx)"
	CPLUS_INCLUDE_PATH=$PWD/e1 same_as_plain three
	[ "$(value three.2.ptx)" = 11 ]
}

# bats test_tags=slow
@test "a header created in an earlier include directory shadows the cached one at once" {
	mkdir a b
	echo 'enum { V = 17 };' >b/v.h
	k_source v.h
	settle
	same_as_plain one -Ia -Ib
	used -Ia -Ib || fail "the cache was not used"
	echo 'enum { V = 19 };' >a/v.h
	same_as_plain two -Ia -Ib
	[ "$(value two.1.ptx)" = 19 ] || fail "the shadowed header was used: $(value two.1.ptx)"
}

# bats test_tags=slow
@test "a file a __has_include asked for, created later, is seen" {
	mkdir inc
	printf '#if __has_include(<opt.h>)\n#include <opt.h>\n#else\nenum { V = 5 };\n#endif\n' >inc/probe.h
	k_source probe.h
	settle
	same_as_plain one -Iinc
	[ "$(value one.2.ptx)" = 5 ]
	echo 'enum { V = 7 };' >inc/opt.h
	same_as_plain two -Iinc
	[ "$(value two.1.ptx)" = 7 ] || fail "__has_include's new file was not seen: $(value two.1.ptx)"
}

@test "an edit that keeps a header's size and puts its time back is seen" {
	mkdir inc
	echo 'enum { V = 23 };' >inc/v.h
	k_source v.h
	settle
	same_as_plain one -Iinc
	touch -r inc/v.h ref
	echo 'enum { V = 29 };' >inc/v.h
	touch -r ref inc/v.h
	same_as_plain two -Iinc
	[ "$(value two.1.ptx)" = 29 ] || fail "the old header was used: $(value two.1.ptx)"
	# and with a made-up time
	echo 'enum { V = 31 };' >inc/v.h
	touch -d '2001-01-01 00:00' inc/v.h
	same_as_plain three -Iinc
	[ "$(value three.1.ptx)" = 31 ]
}

# bats test_tags=slow
@test "a symlinked include directory retargeted at a header of the same size and time is seen" {
	mkdir v1 v2
	echo 'enum { V = 13 };' >v1/v.h
	echo 'enum { V = 37 };' >v2/v.h
	touch -r v1/v.h v2/v.h
	ln -s v1 inc
	k_source v.h
	settle
	same_as_plain one -Iinc
	ln -sfn v2 inc
	same_as_plain two -Iinc
	[ "$(value two.1.ptx)" = 37 ] || fail "the old target was used"
}

# bats test_tags=slow
@test "a header that names __BASE_FILE__, __DATE__ or __TIME__ is not cached, and the cache's paths reach no output" {
	mkdir inc
	echo 'static __device__ const char *base_file = __BASE_FILE__;' >inc/b.h
	printf '#include <cstdio>\n#include <b.h>\n__global__ void k(const char **p) { *p = base_file; }\n' >k.cu
	settle
	for i in 1 2 3; do nvcc-lite -ptx -arch=sm_90 -Iinc k.cu -o $i.ptx; done
	nvcc-lite -ptx -arch=sm_90 -Iinc -no-cache k.cu -o plain.ptx
	cmp plain.ptx 3.ptx
	! grep -q "$NVCC_LITE_CACHE_DIR" 3.ptx || fail "the cache's path is in the PTX"
	grep -q '^off .*__BASE_FILE__' cache/*.man || fail "no entry says why: $(cat cache/*.man | head -3)"
}

# bats test_tags=slow
@test "-G, -lineinfo, __FILE__ and -MD: the same bytes with and without the cache" {
	mkdir inc
	printf '__device__ inline float twice(float x) { if (x > 3) printf("%%s\\n", __FILE__); return 2 * x; }\n' >inc/dev.h
	printf '#include <cstdio>\n#include <dev.h>\n__global__ void k(float *p) { p[threadIdx.x] = twice(p[threadIdx.x]); }\n' >k.cu
	settle
	for flags in -G -lineinfo "-MD -MP" "-MMD"; do
		for i in 1 2 3; do nvcc-lite -ptx -arch=sm_90 -Iinc $flags k.cu -o $i.ptx; [ ! -f k.d ] || mv k.d $i.d; done
		nvcc-lite -ptx -arch=sm_90 -Iinc -no-cache $flags k.cu -o plain.ptx
		cmp plain.ptx 3.ptx || fail "$flags: the PTX differs"
		[ ! -f k.d ] || cmp k.d 3.d || fail "$flags: the dependency file differs"
	done
	# -G's DWARF is all there: the debug sections of a compile without the cache
	nvcc-lite -ptx -arch=sm_90 -Iinc -G k.cu -o g.ptx
	[ "$(wc -l <g.ptx)" -gt 5000 ] || fail "-G's PTX is short: $(wc -l <g.ptx) lines"
}

# bats test_tags=slow
@test "a header edited while its entry is being built never leaves a stale entry, nor a compile that fails" {
	mkdir inc
	echo 'enum { V = 17 };' >inc/v.h
	k_source v.h
	# a front end that edits the header right after precompiling it
	cat >editing-clang <<EOF
#!/bin/sh
$(command -v clang-22) "\$@"; rc=\$?
case " \$* " in *" -emit-pch "*)
	if grep -qs 'v.h' \$(printf '%s\n' "\$@" | grep 'fe-.*[.]cu\$'); then
		n=\$(sed 's/[^0-9]//g' $PWD/inc/v.h); echo "enum { V = \$((n + 2)) };" >$PWD/inc/v.h
	fi;;
esac
exit \$rc
EOF
	chmod +x editing-clang
	settle
	for i in 1 2 3 4 5; do
		NVCC_LITE_CLANG=$PWD/editing-clang nvcc-lite -ptx -arch=sm_90 k.cu -Iinc -o $i.ptx
		nvcc-lite -ptx -arch=sm_90 -Iinc -no-cache k.cu -o plain.ptx
		cmp plain.ptx $i.ptx || fail "compile $i: $(value $i.ptx) with the cache, $(value plain.ptx) without"
	done
	settle
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -Iinc k.cu -o last.ptx
	assert_success
	[ -z "$stderr" ] || fail "$stderr"
	[ "$(value last.ptx)" = "$(sed 's/[^0-9]//g' inc/v.h)" ]
}

# bats test_tags=slow
@test "a damaged entry is a miss: truncated, zeroed or with flipped bytes, the compile succeeds and leaves no crash report" {
	cp "$FIXTURES/saxpy.cu" .
	nvcc-lite -ptx -arch=sm_90 -no-cache saxpy.cu -o plain.ptx
	mkdir tmp
	for damage in truncate zero flip; do
		rm -rf cache
		nvcc-lite -ptx -arch=sm_90 saxpy.cu -o a.ptx
		pch=$(ls cache/fe-*.pch)
		size=$(stat -c %s "$pch")
		case $damage in
		truncate) truncate -s $((size / 2)) "$pch" ;;
		zero) dd if=/dev/zero of="$pch" bs=4096 count=64 seek=8 conv=notrunc status=none ;;
		flip) python3 -c "
import random, sys
random.seed(7)
f = open(sys.argv[1], 'r+b')
n = int(sys.argv[2])
for _ in range(50):
    at = random.randrange(4096, n)
    f.seek(at); b = f.read(1); f.seek(at); f.write(bytes([b[0] ^ 0xff]))
" "$pch" "$size" ;;
		esac
		for n in 1 2; do
			run --separate-stderr env TMPDIR=$PWD/tmp nvcc-lite -ptx -arch=sm_90 saxpy.cu -o $damage.$n.ptx
			assert_success
			[ -z "$stderr" ] || fail "$damage, compile $n: $stderr"
			cmp plain.ptx $damage.$n.ptx
		done
		[ -z "$(ls tmp)" ] || fail "$damage: left in TMPDIR: $(ls tmp)"
	done
}

# bats test_tags=slow
@test "removing the cache while compiles run fails none of them" {
	cp "$FIXTURES/saxpy.cu" .
	nvcc-lite -ptx -arch=sm_90 -no-cache saxpy.cu -o plain.ptx
	for round in 1 2 3 4; do
		# entries there to be used, then taken away under the compiles
		nvcc-lite -ptx -arch=sm_90 saxpy.cu -o warm.ptx
		pids=()
		for n in 1 2 3 4 5 6 7 8; do
			nvcc-lite -ptx -arch=sm_90 saxpy.cu -o $round.$n.ptx 2>$round.$n.err &
			pids+=($!)
		done
		# removed again and again while they run, whatever each is doing
		sleep 0.0$round
		while kill -0 "${pids[@]}" 2>/dev/null; do
			rm -rf cache 2>/dev/null || true # (races the compiles that recreate it)
			sleep 0.05
		done
		wait
		for n in 1 2 3 4 5 6 7 8; do
			[ ! -s $round.$n.err ] || fail "round $round, compile $n: $(cat $round.$n.err)"
			cmp plain.ptx $round.$n.ptx
		done
	done
}

# bats test_tags=slow
@test "NVCC_LITE_CACHE_SIZE larger than fits is all there is: nothing is trimmed" {
	cp "$FIXTURES/saxpy.cu" .
	nvcc-lite -ptx -arch=sm_90 saxpy.cu -o a.ptx
	find cache -name 'fe-*' -exec touch -d '1 hour ago' {} +
	for size in 99999999999G 9223372036854775807 99999999999999999999999; do
		NVCC_LITE_CACHE_SIZE=$size nvcc-lite -ptx -arch=sm_90 -DOTHER saxpy.cu -o b.ptx
		[ "$(ls cache/*.pch | wc -l)" -eq 2 ] || fail "$size: $(ls cache)"
		rm "$(ls -t cache/*.man | head -1)"
	done
}

# bats test_tags=slow
@test "what a killed build left in the cache is removed after an hour; entries stay" {
	cp "$FIXTURES/saxpy.cu" .
	nvcc-lite -ptx -arch=sm_90 saxpy.cu -o a.ptx
	key=$(basename "$(ls cache/*.man)" .man)
	: >cache/$key.pch.tmp-abcdef
	: >cache/$key.pch.tmp-abcdef-1234.tmp
	: >cache/fe-0123456789abcdef0123456789abcdef.pch
	: >cache/fe-0123456789abcdef.list
	: >cache/$key.lock
	: >cache/fresh.tmp-123456
	find cache -name '*tmp*' -o -name '*.lock' -o -name '*abcdef*' -o -name '*.list' | xargs touch -d '2 hours ago'
	touch cache/fresh.tmp-123456
	nvcc-lite -ptx -arch=sm_90 -DOTHER saxpy.cu -o b.ptx
	[ -e cache/fresh.tmp-123456 ] || fail "a build's file in use was removed"
	for f in $key.pch.tmp-abcdef $key.pch.tmp-abcdef-1234.tmp fe-0123456789abcdef0123456789abcdef.pch \
	         fe-0123456789abcdef.list $key.lock; do
		[ ! -e cache/$f ] || fail "$f was left"
	done
	[ -e cache/$key.pch ] && [ -e cache/$key.man ]
}

# bats test_tags=slow
@test "many random edits, flag and environment changes and concurrent compiles: every compile is the cache-less compile's bytes" {
	run bash "$TOP/t/cache-property.sh" -n "${CACHE_PROPERTY_STEPS:-150}" -s 5
	echo "$output" | tail -5
	assert_success
	[[ "${lines[-1]}" == *" 0 differences" ]]
}

@test "a few random edits, flag and environment changes: every compile is the cache-less compile's bytes (the property test, short)" {
	run bash "$TOP/t/cache-property.sh" -n 4 -s 7
	echo "$output" | tail -5
	assert_success
	[[ "${lines[-1]}" == *" 0 differences" ]]
}

# bats test_tags=slow
@test "a front end that fails through an entry is done again without it, and the entry is dropped" {
	cp "$FIXTURES/saxpy.cu" .
	nvcc-lite -ptx -arch=sm_90 -no-cache saxpy.cu -o plain.ptx
	nvcc-lite -ptx -arch=sm_90 saxpy.cu -o a.ptx
	[ -n "$(ls cache/*.man)" ]
	# a front end that cannot read precompiled headers (as with a damaged one)
	printf '#!/bin/sh\ncase " $* " in *" -include-pch "*) echo "fatal error: malformed or corrupted AST file" >&2; exit 1;; esac\nexec %s "$@"\n' \
		"$(command -v clang-22)" >broken-clang
	chmod +x broken-clang
	run --separate-stderr env NVCC_LITE_CLANG=$PWD/broken-clang nvcc-lite -ptx -arch=sm_90 saxpy.cu -o b.ptx
	assert_success
	[ -z "$stderr" ] || fail "the failed try was shown: $stderr"
	cmp plain.ptx b.ptx
	# the key names the front end, so the entry of broken-clang's command
	# was its own: built, used, failed, dropped
	run grep -l 'broken-clang' cache/*.man
	assert_failure
	# a source that does not compile says so once, as without the cache
	printf 'int broken = ;\n' >>saxpy.cu
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 saxpy.cu -o c.ptx
	assert_failure 1
	[ "$(grep -c ': error: ' <<<"$stderr")" -eq 1 ] || fail "$stderr"
}
