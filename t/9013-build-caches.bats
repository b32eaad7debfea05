#!/usr/bin/env bats
# ccache and sccache in front of nvcc-lite, as teams use them, and as they
# use nvcc: ccache takes a compiler named *nvcc* for nvcc and hashes what
# -E prints (nvcc's: the device side of the first GPU, __CUDA_ARCH__
# defined); sccache tells nvcc from its host compiler by preprocessing a .c
# file (nvcc's -E there: the host preprocessor with __NVCC__) and hashes
# -x cu -E -Xcompiler=-P.  An edit of device code alone (in the source or a
# header) must miss; a comment edit hits, as with nvcc.  Shared caches:
# ccache's remote storage (file: and redis:), sccache's Redis backend on a
# redis-server started here, hit by a second checkout in another directory.
# Each object a cache hands back is compared with a build without it.

load helper

setup() {
	need_cuda
	cd "$BATS_TEST_TMPDIR"
	mkdir a
	cat >a/dev.cuh <<-'EOF'
		#ifdef __CUDA_ARCH__
		#define DEV_SCALE 3 /* device */
		#else
		#define DEV_SCALE 1
		#endif
	EOF
	cat >a/k.cu <<-'EOF'
		#include "dev.cuh"
		/* the kernel: scale */
		__global__ void k(int *a)
		{
		#ifdef __CUDA_ARCH__
			a[threadIdx.x] = DEV_SCALE * 7;
		#else
			a[0] = 0;
		#endif
		}
		int host_scale() { return DEV_SCALE; }
	EOF
	# the edits: one line each, so no line number moves
	comment_cu() { sed -i 's/the kernel: scale/the kernel: times/' k.cu; }
	device_cu() { sed -i 's/\* 7;/* 9;/' k.cu; }
	device_h() { sed -i 's/SCALE 3/SCALE 5/' dev.cuh; }
	comment_h() { sed -i 's/\/\* device \*\//\/* on device *\//' dev.cuh; }
}

teardown() {
	[ -n "${SCCACHE_SERVER_PORT:-}" ] && sccache --stop-server >/dev/null 2>&1
	[ -f "$BATS_TEST_TMPDIR/redis.pid" ] && kill "$(cat "$BATS_TEST_TMPDIR/redis.pid")" 2>/dev/null
	return 0
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# compile: the object, as the build runs it (relative paths, in the checkout)
LITE_C=(nvcc-lite -c -arch=sm_90 k.cu -o k.o)

# same_as_plain: k.o is the object nvcc-lite builds without a cache now
same_as_plain() {
	nvcc-lite -c -arch=sm_90 -no-cache k.cu -o plain.o
	cmp k.o plain.o || fail "the cache handed back another object than a build without it"
}

# --- ccache ------------------------------------------------------------------

ccache_env() { # ccache_env DIR [REMOTE]: a cache of this test, no user configuration
	export CCACHE_DIR=$1 CCACHE_CONFIGPATH=$BATS_TEST_TMPDIR/ccache.conf CCACHE_BASEDIR=$BATS_TEST_TMPDIR
	export CCACHE_NOHASHDIR=1 CCACHE_TEMPDIR=$BATS_TEST_TMPDIR/cctmp
	: >"$CCACHE_CONFIGPATH"
	if [ -n "${2:-}" ]; then export CCACHE_REMOTE_STORAGE=$2; else unset CCACHE_REMOTE_STORAGE; fi
}

# ccc: compile under ccache; then $hits and $misses are ccache's counts
ccc() {
	run --separate-stderr ccache "${LITE_C[@]}"
	[ "$status" -eq 0 ] || fail "ccache nvcc-lite failed: $stderr"
	local s
	s=$(ccache --print-stats)
	hits=$(awk '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { n += $2 } END { print n + 0 }' <<<"$s")
	misses=$(awk '$1 == "cache_miss" { print $2 }' <<<"$s")
}

# expect H M: the counts now
expect() {
	[ "$hits/$misses" = "$1/$2" ] || fail "expected $1 hits and $2 misses, got $hits and $misses"
}

# bats test_tags=slow
@test "ccache: a device-only edit in the source or a header misses and gives the new device code; a comment edit hits" {
	command -v ccache >/dev/null || skip "ccache is not installed"
	ccache_env "$PWD/cc"
	cd a
	ccc; expect 0 1
	ccc; expect 1 1
	cp k.o old.o
	comment_cu; ccc; expect 2 1
	cmp k.o old.o
	device_cu; ccc; expect 2 2
	! cmp -s k.o old.o || fail "a device-only edit in k.cu gave the old object"
	same_as_plain
	cp k.o old.o
	device_h; ccc; expect 2 3
	! cmp -s k.o old.o || fail "a device-only edit in dev.cuh gave the old object"
	same_as_plain
	comment_h; ccc; expect 3 3
	same_as_plain
}

# bats test_tags=slow
@test "ccache's depend mode with -MD: an edit of host code alone misses too (-E, as nvcc's, shows none)" {
	command -v ccache >/dev/null || skip "ccache is not installed"
	ccache_env "$PWD/cc"
	export CCACHE_DEPEND=1
	LITE_C=(nvcc-lite -c -MD -arch=sm_90 k.cu -o k.o)
	cd a
	ccc; expect 0 1
	ccc; expect 1 1
	grep -q dev.cuh k.d
	cp k.o old.o
	sed -i 's/SCALE 1$/SCALE 2/' dev.cuh
	ccc; expect 1 2
	! cmp -s k.o old.o || fail "a host-only edit in dev.cuh gave the old object"
	same_as_plain
}

@test "nvcc-lite -E prints a CUDA source's device side, a .c file's host side with __NVCC__, as nvcc -E" {
	cd a
	run --separate-stderr nvcc-lite -E -arch=sm_90 k.cu
	assert_success
	[[ "$output" == *"a[threadIdx.x] = 3 * 7;"* ]] || fail "no device side in -E"
	[[ "$output" != *"a[0] = 0;"* ]] || fail "the host side in -E"
	printf '#if defined(__NVCC__)\nnvcc\n#elif defined(__GNUC__)\ngcc\n#endif\n' >testfile.c
	run --separate-stderr nvcc-lite -E testfile.c
	assert_success
	assert_equal "$(grep -v '^#' <<<"$output" | grep .)" nvcc
	run --separate-stderr nvcc-lite -E -x cu k.cu -Xcompiler=-P
	assert_success
	! grep -q '^# ' <<<"$output" || fail "-Xcompiler=-P: line markers in -E"
	# what sccache runs for -MD and -MMD: -M and -MM, to -MF's file
	nvcc-lite -M -MF k.d -MT k.o -x cu -arch=sm_90 k.cu
	grep -q '^k.o:.* dev.cuh' <(tr -d '\\\n' <k.d) || fail "-M -MF: $(cat k.d)"
	grep -q '/usr/include' k.d
	nvcc-lite -MM -MF k.d -MT k.o -x cu -arch=sm_90 k.cu
	assert_equal "$(cat k.d)" "k.o: k.cu dev.cuh"
}

# bats test_tags=slow
@test "ccache remote storage (file: and redis:): a second clean checkout elsewhere hits, a device-only edit misses" {
	command -v ccache >/dev/null || skip "ccache is not installed"
	local remotes=("file:$PWD/shared")
	if command -v redis-server >/dev/null; then
		port=$(free_port)
		redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
			--pidfile "$PWD/redis.pid" --logfile "$PWD/redis.log" >/dev/null
		for _ in $(seq 50); do [ -s redis.pid ] && break; sleep 0.1; done
		remotes+=("redis://127.0.0.1:$port")
	fi
	cp -r a b0
	for r in "${remotes[@]}"; do
		rm -rf b c
		# machine 1: its own local cache fills the shared one
		cp -r b0 b
		ccache_env "$PWD/cc1.${r%%:*}" "$r"
		cd b; ccc; expect 0 1; cd ..
		# machine 2: a clean checkout elsewhere, an empty local cache
		cp -r b0 c
		ccache_env "$PWD/cc2.${r%%:*}" "$r"
		cd c; ccc; expect 1 0
		same_as_plain
		device_h; ccc; expect 1 1
		same_as_plain
		cd ..
	done
}

# --- sccache -----------------------------------------------------------------

sccache_start() { # sccache_start [REDIS_URL]
	export SCCACHE_SERVER_PORT=$(free_port) SCCACHE_IDLE_TIMEOUT=0 SCCACHE_DIR=$PWD/scc
	export SCCACHE_CONF=$PWD/sccache.toml SCCACHE_ERROR_LOG=$PWD/sccache.log
	: >"$SCCACHE_CONF"
	if [ -n "${1:-}" ]; then export SCCACHE_REDIS=$1; else unset SCCACHE_REDIS; fi
	rm -f sccache.log
	sccache --start-server >/dev/null 2>&1 || fail "sccache did not start: $(cat sccache.log)"
}

# scc: compile under sccache; then $hits and $misses are its counts
scc() {
	run --separate-stderr sccache "${LITE_C[@]}"
	[ "$status" -eq 0 ] || fail "sccache nvcc-lite failed: $stderr"
	local s
	s=$(sccache --show-stats)
	hits=$(awk '/^Cache hits  / { print $3 }' <<<"$s")
	misses=$(awk '/^Cache misses  / { print $3 }' <<<"$s")
	local bad
	bad=$(awk '/^(Non-cacheable calls|Compilation failures|Cache errors) / { n += $NF } END { print n + 0 }' <<<"$s")
	[ "$bad" = 0 ] || fail "sccache did not cache the compile: $s"
}

# bats test_tags=slow
@test "sccache takes nvcc-lite for nvcc: a device-only edit in the source or a header misses, a comment edit hits" {
	command -v sccache >/dev/null || skip "sccache is not installed"
	sccache_start
	cd a
	scc; expect 0 1
	scc; expect 1 1
	cp k.o old.o
	comment_cu; scc; expect 2 1
	cmp k.o old.o
	device_cu; scc; expect 2 2
	! cmp -s k.o old.o || fail "a device-only edit in k.cu gave the old object"
	same_as_plain
	device_h; scc; expect 2 3
	same_as_plain
	comment_h; scc; expect 3 3
	same_as_plain
	# -MMD: sccache asks for the dependencies with -MM, then hits with them
	rm -f k.d
	for _ in 1 2; do
		run --separate-stderr sccache nvcc-lite -c -MMD -arch=sm_90 k.cu -o k.o
		assert_success
		grep -q 'dev.cuh' k.d || fail "no dev.cuh in k.d: $(cat k.d)"
	done
}

# second_checkout: a clean checkout b elsewhere, built by a fresh server
# (another machine) on the same shared cache, hits; a device-only edit misses
second_checkout() {
	sccache_start "$@"
	cp -r a b
	cd a; scc; expect 0 1; cd ..
	sccache --stop-server >/dev/null 2>&1
	sccache_start "$@"
	cd b; scc; expect 1 0
	same_as_plain
	device_cu; scc; expect 1 1
	same_as_plain
}

@test "sccache's Redis backend: a second clean checkout elsewhere hits, a device-only edit misses" {
	command -v sccache >/dev/null || skip "sccache is not installed"
	command -v redis-server >/dev/null || skip "redis-server is not installed"
	local probe
	probe=$(free_port)
	if SCCACHE_REDIS=redis://127.0.0.1:1 SCCACHE_SERVER_PORT=$probe SCCACHE_IDLE_TIMEOUT=0 \
		sccache --start-server 2>&1 | grep -q 'cache type is not enabled'; then
		skip "this sccache is built without Redis (Debian's 0.4.0~~pre6 is)"
	fi
	SCCACHE_SERVER_PORT=$probe sccache --stop-server >/dev/null 2>&1 || true
	port=$(free_port)
	redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
		--pidfile "$PWD/redis.pid" --logfile "$PWD/redis.log" >/dev/null
	for _ in $(seq 50); do [ -s redis.pid ] && break; sleep 0.1; done
	second_checkout "redis://127.0.0.1:$port"
}

# bats test_tags=slow
@test "sccache on a cache directory two servers share (a shared mount): a second clean checkout elsewhere hits" {
	command -v sccache >/dev/null || skip "sccache is not installed"
	second_checkout
}
