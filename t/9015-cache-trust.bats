#!/usr/bin/env bats
# The header cache's second round of trust (issue 60, 61): the corners a
# careful and a hostile user found after the first.  Every case is a repro:
# through the cache a compile gives the bytes (and the diagnostics) of the
# compile without it, or is refused with one line; no file nvcc-lite or a
# tool it runs writes goes through a link someone planted.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	export NVCC_LITE_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
}

value() {
	sed -n 's/.*st\.global\.b32.*, \([0-9]*\);/\1/p' "$1"
}

# thrice ARGS...: k.cu compiled three times through the cache (the second
# builds its preamble's entry, the third uses it), the last to 3.ptx.
thrice() {
	local i
	for i in 1 2 3; do nvcc-lite -ptx -arch=sm_90 "$@" k.cu -o $i.ptx || return 1; done
}

# through_entry ARGS...: k.cu's compile goes through an entry (-v).
through_entry() {
	nvcc-lite -ptx -arch=sm_90 -v "$@" k.cu -o v.ptx 2>&1 | grep -q -- '-include-pch'
}

# bats test_tags=slow
@test "a header in /dev/shm, or reached through /proc/self/cwd, is checked like any other" {
	[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no writable /dev/shm"
	local shm
	shm=$(mktemp -d /dev/shm/nvcc-lite-test.XXXXXX)
	mkdir inc
	echo 'enum { V = 3 };' >inc/a.h
	printf '#include <cstdio>\n#include <a.h>\n__global__ void k(int *p) { *p = V; }\n' >k.cu
	settle
	thrice -I"$shm" -I"$PWD/inc"
	through_entry -I"$shm" -I"$PWD/inc" || fail "the cache was not used"
	echo 'enum { V = 9 };' >"$shm/a.h"
	nvcc-lite -ptx -arch=sm_90 -I"$shm" -I"$PWD/inc" k.cu -o shm.ptx
	rm -rf "$shm"
	[ "$(value shm.ptx)" = 9 ] || fail "a new header in /dev/shm was not seen: $(value shm.ptx)"
	# the same header through /proc/self/cwd, edited keeping its size and time
	settle
	thrice -I/proc/self/cwd/inc
	through_entry -I/proc/self/cwd/inc || fail "the cache was not used through /proc"
	touch -r inc/a.h ref
	echo 'enum { V = 4 };' >inc/a.h
	touch -r ref inc/a.h
	nvcc-lite -ptx -arch=sm_90 -I/proc/self/cwd/inc k.cu -o proc.ptx
	[ "$(value proc.ptx)" = 4 ] || fail "an edit through /proc/self/cwd was not seen: $(value proc.ptx)"
}

# bats test_tags=slow
@test "#embed data in /dev/shm is an input like a header" {
	[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no writable /dev/shm"
	local shm
	shm=$(mktemp -d /dev/shm/nvcc-lite-test.XXXXXX)
	mkdir inc
	printf 'AB' >"$shm/d.bin"
	printf '#pragma clang diagnostic ignored "-Wc23-extensions"\nstatic const char data[] = {\n#embed "%s/d.bin"\n};\n#define V (data[0] + data[1])\n' "$shm" >inc/e.h
	printf '#include <cstdio>\n#include <e.h>\n__global__ void k(int *p) { *p = V; }\n' >k.cu
	settle
	thrice -Iinc
	[ "$(value 3.ptx)" = 131 ]
	through_entry -Iinc || fail "the cache was not used"
	touch -r "$shm/d.bin" ref
	printf 'CD' >"$shm/d.bin"
	touch -r ref "$shm/d.bin"
	nvcc-lite -ptx -arch=sm_90 -Iinc k.cu -o new.ptx
	rm -rf "$shm"
	[ "$(value new.ptx)" = 135 ] || fail "the new data was not seen: $(value new.ptx)"
}

# bats test_tags=slow
@test "the cache directory used as the build directory: its headers are checked, and -MD names them" {
	export NVCC_LITE_CACHE_DIR=$PWD/build
	mkdir -p build/gen
	echo 'enum { V = 3 };' >build/gen/a.h
	printf '#include <cstdio>\n#include <a.h>\n__global__ void k(int *p) { *p = V; }\n' >k.cu
	settle
	thrice -I"$PWD/build/gen" -MD -MF k.d
	through_entry -I"$PWD/build/gen" || fail "the cache was not used"
	grep -q 'build/gen/a.h' k.d || fail "the header is not in the dependency file: $(cat k.d)"
	nvcc-lite -ptx -arch=sm_90 -I"$PWD/build/gen" -MD -MF plain.d -no-cache k.cu -o 3.ptx
	cmp plain.d k.d
	touch -r build/gen/a.h ref
	echo 'enum { V = 8 };' >build/gen/a.h
	touch -r ref build/gen/a.h
	nvcc-lite -ptx -arch=sm_90 -I"$PWD/build/gen" k.cu -o new.ptx
	[ "$(value new.ptx)" = 8 ] || fail "an edit in the cache directory was not seen: $(value new.ptx)"
}

@test "a source saved while it compiles through a preamble's entry is compiled again, whole" {
	mkdir inc
	echo '#define V 2' >inc/a.h
	echo '#define W 0' >inc/b.h
	printf '#include <a.h>\n#include <b.h>\n__global__ void k(int *p) { *p = V; }\n' >k.cu
	# a front end that, once armed, sees the source saved just as it starts
	# reading: the new source, as long as the old preamble to its first line
	cat >new.cu <<'EOF2'
#define V 9
/* seventeen chars */
__global__ void k(int *p) { *p = V + 100; }
EOF2
	printf '#!/bin/sh\ncase " $* " in *" -preamble-bytes="*) [ -e %s/armed ] && cp %s/new.cu %s/k.cu;; esac\nexec %s "$@"\n' \
		"$PWD" "$PWD" "$PWD" "$(command -v clang-22)" >saving-clang
	chmod +x saving-clang
	export NVCC_LITE_CLANG=$PWD/saving-clang
	settle
	thrice -Iinc
	[ "$(value 3.ptx)" = 2 ]
	nvcc-lite -ptx -arch=sm_90 -v -Iinc k.cu -o v.ptx 2>&1 | grep -q -- '-preamble-bytes=' ||
		fail "the compile skips no preamble"
	touch armed
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -Iinc k.cu -o saved.ptx
	assert_success
	cmp k.cu new.cu || fail "the source was not saved"
	[ "$(value saved.ptx)" = 109 ] || fail "the compile mixed two versions of the source: $(value saved.ptx)"
}

# bats test_tags=slow
@test "__BASE_FILE__ spliced or pasted, __TIMESTAMP__ pasted, in a header: not cached, with or without -w" {
	mkdir inc
	printf '#include <cstdio>\n#include <b.h>\n__global__ void k(int *p) { *p = V; }\n' >k.cu
	for h in 'static const char bf[] = __BASE_\\\nFILE__;\n#define V (sizeof(bf))\n' \
	         '#define CAT(a, b) a##b\nstatic const char bf[] = CAT(__BASE_, FILE__);\n#define V (sizeof(bf))\n' \
	         '#define CAT(a, b) a##b\nstatic const char ts[] = CAT(__TIME, STAMP__);\n#define V (sizeof(ts) + 1000)\n'; do
		printf "$h" >inc/b.h
		for w in "" -w; do
			rm -rf cache
			settle
			thrice -Iinc $w
			nvcc-lite -ptx -arch=sm_90 -Iinc $w -no-cache k.cu -o plain.ptx
			cmp plain.ptx 3.ptx || fail "$(head -2 inc/b.h) $w: $(value 3.ptx), without the cache $(value plain.ptx)"
			[ -z "$(grep -l '^d .*inc/b.h' cache/*.man 2>/dev/null | xargs -r grep -L '^off')" ] ||
				fail "an entry in use holds b.h"
		done
	done
	[ "$(value plain.ptx)" = 1025 ]
}

# bats test_tags=slow
@test "trigraphs and line splices end the preamble where the lexer reads other lines than the bytes" {
	mkdir inc
	echo '#define V 1' >inc/a.h
	printf '#undef V\n#define V 2\n' >inc/b.h
	printf '#include <a.h> // note ??/\n#include <b.h>\n__global__ void k(int *p) { *p = V; }\n' >k.cu
	settle
	thrice -std=c++14 -Iinc 2>/dev/null
	nvcc-lite -ptx -arch=sm_90 -std=c++14 -Iinc -no-cache k.cu -o plain.ptx 2>/dev/null
	[ "$(value plain.ptx)" = 1 ]
	cmp plain.ptx 3.ptx || fail "through the cache: $(value 3.ptx)"
	# a block comment closed by a spliced */: clang reads the include after it
	printf '#include <b.h> /* x *\\\n/\n#include <a.h>\n__global__ void k(int *p) { *p = V; }\n' >k.cu
	thrice -Iinc 2>/dev/null
	nvcc-lite -ptx -arch=sm_90 -Iinc -no-cache k.cu -o plain.ptx 2>/dev/null
	cmp plain.ptx 3.ptx || fail "spliced comment: $(value 3.ptx), without the cache $(value plain.ptx)"
}

# bats test_tags=slow
@test "a source from a pipe, /dev/stdin or a FIFO is read once, compiled whole, never cached" {
	printf '__global__ void k(int *p) { *p = 7; }\n' >k.cu
	nvcc-lite -ptx -arch=sm_90 -no-cache k.cu -o want.ptx
	for name in /dev/stdin /dev/fd/0 /proc/self/fd/0; do
		nvcc-lite -ptx -arch=sm_90 -x cu "$name" -o got.ptx <k.cu
		[ "$(value got.ptx)" = 7 ] || fail "$name: no kernel"
		grep -q '\.entry' got.ptx || fail "$name: no .entry"
	done
	run bash -c 'nvcc-lite -ptx -arch=sm_90 -x cu <(cat k.cu) -o sub.ptx'
	assert_success
	grep -q '\.entry' sub.ptx || fail "<(...): no .entry"
	mkfifo ff
	(cat k.cu >ff &)
	run timeout 60 nvcc-lite -ptx -arch=sm_90 -x cu ff -o fifo.ptx
	assert_success
	grep -q '\.entry' fifo.ptx || fail "a FIFO: no .entry"
	nvcc-lite -c -arch=sm_90 -x cu /dev/stdin <k.cu
	[ -s stdin.o ] || fail "-c /dev/stdin wrote no stdin.o"
	[ ! -d cache ] || [ -z "$(ls cache)" ] || fail "a piped source went through the cache: $(ls cache)"
}

@test "an output that is an input or another output is refused, the file untouched" {
	printf '__global__ void k(int *p) { *p = 7; }\n' >k.cu
	cp k.cu k.orig
	echo '#define Z 1' >inc.h
	cp inc.h inc.orig
	echo '-arch=sm_90' >opts.txt
	cp opts.txt opts.orig
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -fdevice-time-trace k.cu k.cu -o k.ptx
	assert_failure 1
	assert_one_error nvcc-lite
	cmp k.cu k.orig
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -include inc.h k.cu -o inc.h
	assert_failure 1
	assert_one_error nvcc-lite
	cmp inc.h inc.orig
	run --separate-stderr nvcc-lite -ptx -optf opts.txt k.cu -o opts.txt
	assert_failure 1
	assert_one_error nvcc-lite
	cmp opts.txt opts.orig
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -MD k.cu -o k.d
	assert_failure 1
	assert_one_error nvcc-lite
	[ ! -e k.d ]
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -MD -MF t.csv -time t.csv k.cu -o k.ptx
	assert_failure 1
	assert_one_error nvcc-lite
	# the same files under other names are still refused
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -fdevice-time-trace ./k.cu k.cu -o k.ptx
	assert_failure 1
	cmp k.cu k.orig
}

# A directory another user owns, that anyone can write, with a link at
# every name nvcc-lite writes there (the kernel does not refuse them with
# fs.protected_symlinks=0).
# bats test_tags=slow
@test "a hostile user's links at every path nvcc-lite and its tools write change no file" {
	[ "$(id -u)" = 0 ] || skip "needs root to make a directory another user owns"
	id nobody >/dev/null 2>&1 || skip "no user 'nobody'"
	have_cuda || skip "CUDA's tools are not installed"
	printf '__global__ void k(int *p) { *p = 7; }\n' >k.cu
	echo victim >victim
	mkdir -m 0777 hostile
	chown nobody hostile
	# every name a build writes there, from a build in a private directory
	mkdir names
	nvcc-lite -c -arch=sm_90 -keep-dir names -MD -MF names/k.d -time names/t.csv \
		-fdevice-time-trace names/tt.json -save-remarks names k.cu -o names/k.o
	local n=0 f
	for f in names/*; do
		ln -s "$PWD/victim" "hostile/${f#names/}"
		chown -h nobody "hostile/${f#names/}"
		n=$((n + 1))
	done
	[ "$n" -gt 20 ] || fail "only $n names: $(ls names)"
	# the -time file through a link is refused; everything else is written
	run --separate-stderr nvcc-lite -c -arch=sm_90 -time hostile/t.csv k.cu -o k2.o
	assert_failure 1
	assert_one_error nvcc-lite
	nvcc-lite -c -arch=sm_90 -keep-dir hostile -MD -MF hostile/k.d -fdevice-time-trace hostile/tt.json \
		-save-remarks hostile k.cu -o hostile/k.o
	[ "$(cat victim)" = victim ] || fail "the victim was written: $(head -c 100 victim)"
	[ -f hostile/k.o ] && [ ! -L hostile/k.o ] && [ ! -L hostile/k.sm_90.cubin ] && [ ! -L hostile/k.fatbin ] &&
		[ ! -L hostile/tt.json ] && [ ! -L hostile/k.d ]
	# the cache directory under another user's link is not made
	mkdir target
	ln -s "$PWD/target" /tmp/nvcc-lite-link.$$
	chown -h nobody /tmp/nvcc-lite-link.$$
	run --separate-stderr env NVCC_LITE_CACHE_DIR=/tmp/nvcc-lite-link.$$/sub/nvcc nvcc-lite -ptx -arch=sm_90 k.cu -o k.ptx
	rm -f /tmp/nvcc-lite-link.$$
	assert_success
	[[ "$stderr" == *"not using the header cache"* ]] || fail "no warning: $stderr"
	[ -z "$(ls target)" ] || fail "made through the link: $(ls -R target)"
}

# bats test_tags=slow
@test "messages are not lost: a full TMPDIR, a bad knob value, -time on a full disk, a SIGTERM" {
	printf '__global__ void k(int *p) { *p = 7; }\n' >k.cu
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -Xcicc -unroll-runtime= k.cu -o k.ptx
	assert_failure 1
	assert_one_error nvcc-lite
	[ "$(id -u)" = 0 ] || skip "needs root to mount a small file system"
	mkdir full
	mount -t tmpfs -o size=4m tmpfs full || skip "cannot mount a tmpfs"
	local kb rc quiet=0
	# from a few KB to a few hundred free: every step that fails says so
	for kb in 4090 4085 4080 4075 4070 4060 4000; do
		rm -rf full/*
		dd if=/dev/zero of=full/fill bs=1k count=$kb 2>/dev/null
		rc=0
		TMPDIR=$PWD/full nvcc-lite -c -arch=sm_90 k.cu -o k.o 2>err.txt || rc=$?
		if [ "$rc" != 0 ] && [ ! -s err.txt ]; then quiet=$((quiet + 1)); echo "$kb KB: exit $rc, nothing said"; fi
	done
	rm -rf full/*
	dd if=/dev/zero of=full/fill bs=1k count=4096 2>/dev/null || true
	rc=0
	nvcc-lite -ptx -arch=sm_90 -time full/t.csv k.cu -o k.ptx 2>err.txt || rc=$?
	[ ! -e full/t.csv ] || [ -s full/t.csv ] || fail "-time left an empty file"
	umount full
	[ "$quiet" = 0 ] || fail "$quiet failures said nothing"
	[ "$rc" != 0 ] || fail "-time on a full disk succeeded"
	# a SIGTERM to the process group while g++ compiles leaves nothing in TMPDIR
	have_cuda || skip "CUDA's tools are not installed"
	mkdir tmp
	printf '#include <vector>\n#include <map>\n#include <regex>\nint main() { std::map<int, std::vector<int>> m; std::regex r("a+"); return m.size(); }\n' >h.cpp
	TMPDIR=$PWD/tmp setsid nvcc-lite h.cpp -o app &
	local pid=$! i
	for ((i = 0; i < 300; i++)); do
		[ -n "$(find tmp -name 'cc*' 2>/dev/null)" ] && break
		sleep 0.05
	done
	kill -TERM -- -$pid 2>/dev/null || true
	wait $pid || true
	sleep 0.5
	[ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(find tmp)"
}

# bats test_tags=slow
@test "a warning a header gives at instantiation: cold, warm and -no-cache print the same, and -Werror fails alike" {
	mkdir inc
	cat >inc/dep.h <<'EOF'
#pragma GCC system_header
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
inline int unrelated() { return 0; }
#pragma GCC diagnostic pop
template <class T> [[deprecated]] T old_api();
template <class T> T use_old(T) { return old_api<T>(); }
EOF
	printf '#include <cstdio>\n\n#include <dep.h> // its warning\n__global__ void k(int *p) { *p = 1; }\nint h() { return use_old(1); }\n' >k.cu
	settle
	nvcc-lite -ptx -arch=sm_90 -Iinc -no-cache k.cu -o plain.ptx 2>plain.err
	grep -q "'old_api<int>' is deprecated" plain.err || fail "no warning to compare: $(cat plain.err)"
	for i in 1 2 3; do
		nvcc-lite -ptx -arch=sm_90 -Iinc k.cu -o $i.ptx 2>$i.err
		diff plain.err $i.err || fail "compile $i printed other diagnostics"
	done
	through_entry -Iinc || fail "the cache was not used"
	# libstdc++'s get_temporary_buffer, as a segmented sort uses it
	printf '#include <algorithm>\n#include <vector>\n__global__ void k(int *p) { *p = 1; }\nvoid h(std::vector<int> &v) { std::stable_sort(v.begin(), v.end()); }\n' >k.cu
	nvcc-lite -ptx -arch=sm_90 -no-cache k.cu -o plain.ptx 2>plain.err
	for i in 1 2 3; do
		nvcc-lite -ptx -arch=sm_90 k.cu -o $i.ptx 2>$i.err
		diff plain.err $i.err || fail "stable_sort, compile $i printed other diagnostics"
	done
	run nvcc-lite -ptx -arch=sm_90 -Werror k.cu -o w.ptx
	assert_failure
	run nvcc-lite -ptx -arch=sm_90 -no-cache -Werror k.cu -o w.ptx
	assert_failure
}

# bats test_tags=slow
@test "a static __constant__ table a host function uses is in the PTX warm as cold" {
	mkdir inc
	cat >inc/tab.h <<'EOF'
static __constant__ double table[4] = { 1.5, 2.5, 3.5, 4.5 };
__host__ static inline double *table_host() { return table; }
__device__ inline double pick(int i) { return table[i & 3]; }
EOF
	for body in '*p = 1;' '*p = pick(threadIdx.x);'; do
		printf '#include <cstdio>\n#include <tab.h>\n__global__ void k(double *p) { %s }\n' "$body" >k.cu
		rm -rf cache
		settle
		nvcc-lite -ptx -arch=sm_90 -Iinc -no-cache k.cu -o plain.ptx
		grep -q 'table' plain.ptx || fail "$body: no table without the cache"
		thrice -Iinc
		cmp plain.ptx 2.ptx || fail "$body: the second compile differs"
		cmp plain.ptx 3.ptx || fail "$body: the third compile differs"
	done
}
