#!/usr/bin/env bats
# No build destroys a file: an output that is an input is refused before
# anything runs; every tool's output is written aside and put in place
# whole; an interrupted build leaves nothing.  And the header cache is the
# user's own: a directory another user owns or can write is not used, and
# nothing nvcc-lite makes follows a link someone planted.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	export NVCC_LITE_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
	cp "$FIXTURES/saxpy.cu" k.cu
	printf 'int main() { return 0; }\n' >main.cpp
}

# The inputs' bytes (run's own file aside).
sums() {
	md5sum -- *.cu *.cpp *.o 2>/dev/null || true
}

# refused ARGS...: nvcc-lite ARGS fails in one line naming the input, and
# every input keeps its bytes.
refused() {
	local before
	before=$(sums)
	mkdir -p rtmp
	run --separate-stderr env TMPDIR=$PWD/rtmp nvcc-lite "$@"
	assert_failure 1
	assert_one_error nvcc-lite
	[[ "$stderr" == *" is the same as "* ]] || fail "$*: $stderr"
	[ "$(sums)" = "$before" ] || fail "$*: a file changed"
	[ -z "$(ls -A rtmp)" ] || fail "$*: left in TMPDIR: $(ls rtmp)"
}

# bats test_tags=slow
@test "an output that is an input is refused before anything runs, for every output kind" {
	refused -ptx -arch=sm_90 k.cu -o k.cu
	refused -cubin -arch=sm_90 -Xptxas -bogus k.cu -o k.cu
	refused -emit-llvm -arch=sm_90 k.cu -o k.cu
	refused -E k.cu -o k.cu
	refused -M k.cu -o k.cu
	refused -ptx -arch=sm_90 -MD -MF k.cu k.cu -o k.ptx
	refused -ptx -arch=sm_90 -time k.cu k.cu -o k.ptx
	# the same file under another name
	ln k.cu hard.cu
	refused -ptx -arch=sm_90 k.cu -o hard.cu
	have_ptxas || skip "ptxas (CUDA) is not installed"
	refused -c -arch=sm_90 k.cu -o k.cu
	refused -fatbin -arch=sm_90 k.cu -o k.cu
	nvcc-lite -c -arch=sm_90 k.cu -o a.o
	cp a.o b.o
	refused -arch=sm_90 a.o b.o main.cpp -o a.o
	refused -lib a.o b.o -o a.o
	refused -dlink -arch=sm_90 a.o -o a.o
	refused -c main.cpp -o main.cpp
}

@test "-dryrun refuses an output that is an input too, and writes each tool's output aside, then moves it" {
	run --separate-stderr nvcc-lite -dryrun -c -arch=sm_90 k.cu -o k.cu
	assert_failure 1
	have_ptxas || skip "ptxas (CUDA) is not installed"
	run --separate-stderr nvcc-lite -dryrun -c -arch=sm_90 k.cu -o k.o
	assert_success
	grep -q -- '-o "$tmp/out0.k.o"$' <<<"$output" || fail "$output"
	grep -qx 'mv -f "$tmp/out0.k.o" k.o' <<<"$output" || fail "$output"
}

# A CUDA installation like the real one but for TOOL, which writes half of
# its output and exits 0, as CUDA's tools do on a full disk.
truncating_cuda() {
	local tool=$1 real root=${CUDA_PATH:-/usr/local/cuda}
	[ -x "$root/bin/$tool" ] || skip "CUDA's $tool is not installed"
	mkdir -p fakecuda/bin
	for f in "$root"/*; do [ "$(basename "$f")" = bin ] || ln -s "$f" fakecuda/; done
	for f in "$root"/bin/*; do ln -s "$f" fakecuda/bin/; done
	rm fakecuda/bin/$tool
	real=$root/bin/$tool
	cat >fakecuda/bin/$tool <<EOF
#!/bin/sh
"$real" "\$@" || exit \$?
for a; do case "\$prev" in -o|--create) out=\$a;; esac; prev=\$a; done
size=\$(stat -c %s "\$out"); truncate -s \$((size / 2)) "\$out"
EOF
	chmod +x fakecuda/bin/$tool
}

# bats test_tags=slow
@test "a tool that exits 0 with a truncated output fails the build, and leaves no file" {
	truncating_cuda fatbinary
	run --separate-stderr env CUDA_PATH=$PWD/fakecuda nvcc-lite -fatbin -arch=sm_90 k.cu -o k.fatbin
	assert_failure 1
	assert_one_error nvcc-lite
	[[ "$stderr" == *"fatbinary wrote 'k.fatbin', which is not a fatbin whole"* ]] || fail "$stderr"
	[ ! -e k.fatbin ]
	rm -rf fakecuda
	truncating_cuda ptxas
	run --separate-stderr env CUDA_PATH=$PWD/fakecuda nvcc-lite -c -arch=sm_90 k.cu -o k.o
	assert_failure 1
	[[ "$stderr" == *"ptxas wrote "*"which is not an ELF file whole"* ]] || fail "$stderr"
	[ ! -e k.o ]
	# the real ones: whole, a relocatable cubin with sections of ptxas's
	# own type that have no bytes in the file included (.nv_debug.shared)
	nvcc-lite -fatbin -arch=sm_90 k.cu -o k.fatbin
	nvcc-lite -c -arch=sm_90 k.cu -o k.o
	printf '__global__ void sh(float *o) { __shared__ float s[2560]; s[threadIdx.x] = o[threadIdx.x]; __syncthreads(); o[threadIdx.x] = s[threadIdx.x ^ 1]; }\n' >sh.cu
	nvcc-lite -c -rdc=true -arch=sm_90 sh.cu -o sh.o
	nvcc-lite -cubin -rdc=true -arch=sm_90 sh.cu -o sh.cubin
}

# bats test_tags=slow
@test "an interrupted link leaves no output, and nothing in TMPDIR or beside the output" {
	have_ptxas || skip "ptxas (CUDA) is not installed"
	nvcc-lite -c -arch=sm_90 k.cu -o k.o
	mkdir tmp out bin
	# a host compiler that writes half a program, then takes its time
	cat >bin/g++ <<EOF
#!/bin/sh
for a; do case "\$prev" in -o) out=\$a;; esac; prev=\$a; done
case " \$* " in *" -Wl,--start-group "*) head -c 4096 /dev/urandom >"\$out"; sleep 30;; esac
exec $(command -v g++) "\$@"
EOF
	chmod +x bin/g++
	for sig in INT TERM; do
		# (a background job of a script ignores SIGINT: the default back)
		setsid env --default-signal=INT TMPDIR=$PWD/tmp nvcc-lite -ccbin $PWD/bin/g++ -arch=sm_90 k.o main.cpp -o out/app &
		pid=$!
		for _ in $(seq 100); do
			[ -n "$(find tmp -name 'out*app' 2>/dev/null)" ] && break
			sleep 0.1
		done
		kill -$sig -- -$pid
		wait $pid || true
		[ ! -e out/app ] || fail "SIG$sig: out/app was left"
		[ -z "$(ls -A out)" ] || fail "SIG$sig: left beside the output: $(ls -A out)"
		[ -z "$(ls -A tmp)" ] || fail "SIG$sig: left in TMPDIR: $(find tmp)"
	done
}

# bats test_tags=slow
@test "a cache directory another user owns, or others can write, is not used: one warning, the same PTX" {
	nvcc-lite -ptx -arch=sm_90 -no-cache k.cu -o plain.ptx
	mkdir shared
	chmod 0777 shared
	for n in 1 2; do
		run --separate-stderr env NVCC_LITE_CACHE_DIR=$PWD/shared nvcc-lite -ptx -arch=sm_90 k.cu -o $n.ptx
		assert_success
		[ "$(grep -c '' <<<"$stderr")" -eq 1 ] || fail "$stderr"
		[[ "$stderr" == "nvcc-lite: warning: not using the header cache '$PWD/shared': other users can write to it"* ]] ||
			fail "$stderr"
		cmp plain.ptx $n.ptx
	done
	[ -z "$(ls shared)" ] || fail "the shared directory was used: $(ls shared)"
	# below a directory others can write (not sticky): it can be swapped
	mkdir -p open/mine
	chmod 0777 open
	chmod 0700 open/mine
	run --separate-stderr env NVCC_LITE_CACHE_DIR=$PWD/open/mine nvcc-lite -ptx -arch=sm_90 k.cu -o 3.ptx
	assert_success
	[[ "$stderr" == *"other users can write to '$PWD/open'"* ]] || fail "$stderr"
	# a new directory is made private
	env NVCC_LITE_CACHE_DIR=$PWD/new/cache nvcc-lite -ptx -arch=sm_90 k.cu -o 4.ptx
	[ "$(stat -c %a new/cache)" = 700 ]
}

# as_nobody CMD...: CMD as an unprivileged user (root runs the suite in CI).
as_nobody() {
	if command -v setpriv >/dev/null; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		runuser -u nobody -- "$@"
	fi
}

# bats test_tags=slow
@test "another user's planted entry never reaches a compile: the victim's PTX keeps its barriers" {
	[ "$(id -u)" = 0 ] || skip "needs root to act as a second user (setpriv or runuser)"
	command -v setpriv >/dev/null || command -v runuser >/dev/null || skip "setpriv and runuser are not installed"
	export HOME=$BATS_TEST_TMPDIR
	cat >bar.cu <<'EOF'
#include <cstdio>
__global__ void k(float *p) { __syncthreads(); p[threadIdx.x] += 1; __syncthreads(); }
EOF
	# the second user reaches this directory
	for d in "$BATS_RUN_TMPDIR" "$BATS_RUN_TMPDIR"/test "$BATS_TEST_TMPDIR"; do chmod go+rx "$d"; done
	chmod 0644 bar.cu
	# the attacker's cache, readable by all: an entry for the victim's command
	# with __syncthreads defined away, rebuilt by the command -v prints
	mkdir evil
	chown 65534:65534 evil
	as_nobody env NVCC_LITE_CACHE_DIR=$PWD/evil HOME=/nonexistent nvcc-lite -ptx -arch=sm_90 -v bar.cu -o /dev/null 2>evil.log
	src=$(ls evil/fe-*.cu | head -1)
	cmd=$(grep -- '-emit-pch' evil.log | head -1 | sed 's/^#\$ //')
	[ -n "$src" ] && [ -n "$cmd" ] || fail "no entry to poison: $(ls evil) $(cat evil.log)"
	as_nobody sh -c "echo '#define __syncthreads() ((void)0)' >$src && $(sed "s|-o [^ ]*pch[^ ]*|-o ${src%.cu}.pch|" <<<"$cmd")"
	run --separate-stderr env NVCC_LITE_CACHE_DIR=$PWD/evil nvcc-lite -ptx -arch=sm_90 bar.cu -o victim.ptx
	assert_success
	[[ "$stderr" == *"not using the header cache"*"belongs to user 65534"* ]] || fail "$stderr"
	[ "$(grep -c 'bar.sync' victim.ptx)" -eq 2 ] || fail "barriers lost: $(grep -c bar.sync victim.ptx)"
}

# bats test_tags=slow
@test "nothing nvcc-lite creates follows a link planted where it writes" {
	echo 'precious' >victim
	chmod 0644 victim
	# the remarks file's temporary, at the name the process id would give it
	bc=$(fixture_bc simple_loop 2>/dev/null || fixture_bc saxpy)
	sh -c 'ln -s victim rem.yaml.tmp$$; exec nv-opt -O1 -pass-remarks-output=rem.yaml "$1" -o out.bc' sh "$bc"
	[ "$(cat victim)" = precious ] || fail "the victim was written through a link"
	[ -s rem.yaml ] || [ -e rem.yaml ]
	# the cache's files, planted in the user's own cache directory
	nvcc-lite -ptx -arch=sm_90 k.cu -o a.ptx
	key=$(basename "$(ls cache/*.man)" .man)
	rm cache/$key.*
	ln -s "$PWD/victim" cache/$key.cu
	ln -s "$PWD/victim" cache/$key.seen
	nvcc-lite -ptx -arch=sm_90 k.cu -o b.ptx
	[ "$(cat victim)" = precious ] || fail "the cache wrote through a link"
}

# bats test_tags=slow
@test "interrupted at any point, a build leaves a whole program or none, and no file of its own anywhere" {
	have_ptxas || skip "ptxas (CUDA) is not installed"
	mkdir tmp out
	for delay in 0.2 0.5 0.8 1.1 1.4 1.8 2.2 2.8; do
		rm -rf cache
		setsid env --default-signal=INT TMPDIR=$PWD/tmp nvcc-lite -arch=sm_90 k.cu main.cpp -o out/app 2>/dev/null &
		pid=$!
		sleep $delay
		kill -INT -- -$pid 2>/dev/null || true
		wait $pid || true
		if [ -e out/app ]; then
			out/app || fail "after ${delay}s: out/app is not a whole program"
			rm out/app
		fi
		[ -z "$(ls -A out)" ] || fail "after ${delay}s: left beside the output: $(ls -A out)"
		[ -z "$(ls -A tmp)" ] || fail "after ${delay}s: left in TMPDIR: $(find tmp)"
		[ -z "$(find cache -name '*tmp*' -o -name '*.lock' 2>/dev/null)" ] ||
			fail "after ${delay}s: left in the cache: $(ls cache)"
	done
}

# bats test_tags=slow
@test "an output on another file system than TMPDIR is copied beside it and renamed, with its mode" {
	have_ptxas || skip "ptxas (CUDA) is not installed"
	[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no /dev/shm to put TMPDIR on another file system"
	[ "$(stat -c %d /dev/shm)" != "$(stat -c %d .)" ] || skip "/dev/shm is this directory's file system"
	tmp=$(mktemp -d /dev/shm/nvcc-lite-test.XXXXXX)
	TMPDIR=$tmp nvcc-lite -arch=sm_90 k.cu main.cpp -o app
	TMPDIR=$tmp nvcc-lite -c -arch=sm_90 k.cu -o k.o
	[ -x app ] && ./app
	nvcc-lite -c -arch=sm_90 k.cu -o same-fs.o
	cmp k.o same-fs.o
	[ -z "$(ls -A "$tmp")" ] || fail "left in TMPDIR: $(ls -A "$tmp")"
	[ -z "$(ls -A | grep '^\.')" ] || fail "left beside the output: $(ls -A | grep '^\.')"
	rmdir "$tmp"
}
