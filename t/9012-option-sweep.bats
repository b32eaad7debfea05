#!/usr/bin/env bats
# nvcc's whole option table (nvcc 13.0's --help, kept in
# t/fixtures/options/cases.tsv with nvcc's own exit statuses, which
# t/option-gen.sh records where nvcc is installed): each option in each
# spelling, tried by t/option-sweep.sh, and the options' parsing that
# once went wrong.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	cp "$FIXTURES/options/k.cu" k.cu
}

@test "the sweep's table names every option of nvcc 13.0's --help once, with nvcc's statuses" {
	run grep -vc '^#' "$FIXTURES/options/cases.tsv"
	assert_output 143
	run sh -c "grep -v '^#' '$FIXTURES/options/cases.tsv' | cut -f1 | sort | uniq -d"
	assert_output ""
	run sh -c "grep -v '^#' '$FIXTURES/options/cases.tsv' | awk -F '\t' 'NF != 6 || \$6 !~ /^[0-9]+\$/'"
	assert_output ""
}

# bats test_tags=slow
@test "every nvcc option in both spellings: at least 125 of 143 accepted with nvcc's meaning, none misparsed" {
	run "$TOP/t/option-sweep.sh" -v "$TOP/bin/nvcc-lite" "$FIXTURES/options/cases.tsv"
	assert_success
	total=$(tail -1 <<<"$output")
	read -r _ n _ acc _ ref _ both _ mis <<<"$total"
	[ "$n" -eq 143 ] || fail "$total"
	[ "$mis" -eq 0 ] || fail "$(grep -v '^accepted' <<<"$output")"
	[ "$acc" -ge 125 ] || fail "$(grep -v '^accepted' <<<"$output")"
}

@test "-o a.o with -lto, -ldir and --library-path . parse as nvcc's, and -Ofc max and --optimize 2 name their pipelines" {
	run --separate-stderr nvcc-lite -c k.cu -o a.o -lto -dryrun
	assert_success
	[[ "$stderr" == "nvcc-lite: warning: device link-time optimization is not done"* ]] || fail "$stderr"
	refute_output --partial " -lto"
	refute_output --partial " -l to"
	run --separate-stderr nvcc-lite -c k.cu -o a.o -ldir /opt/ld -dryrun
	assert_success
	assert_output --partial "--libdevice=/opt/ld/libdevice.10.bc"
	run --separate-stderr nvcc-lite k.cu -o a --library-path . -dryrun
	assert_success
	assert_output --regexp "g\+\+ .* -L\. "
	refute_output --partial "-l-path"
	run --separate-stderr nvcc-lite -c k.cu -o a.o -Ofc max -dryrun
	assert_output --partial "nvopt<Ofcmax>"
	run --separate-stderr nvcc-lite -c k.cu -o a.o --optimize 2 -dryrun
	assert_output --partial "nvopt<O2>"
}

@test "-Xcompiler splits at commas and blanks as nvcc's shell does, and -D, -I, -l lists at commas" {
	run --separate-stderr nvcc-lite -c k.cu -o a.o -Xcompiler "-fPIC -fno-strict-aliasing,-fno-common" -DA=1,B -I x,y -dryrun
	assert_success
	assert_output --partial " -fPIC -fno-strict-aliasing -fno-common"
	assert_output --partial "-DA=1 -DB"
	assert_output --partial "-Ix -Iy"
}

@test "-Xfatbin reaches fatbinary, -compress-mode too" {
	run --separate-stderr nvcc-lite -c k.cu -o a.o -Xfatbin -compress-all,--quiet -compress-mode=size -dryrun
	assert_success
	assert_output --regexp "fatbinary .*--compress-mode=size -compress-all --quiet"
}

@test "-shared compiles the host side -fPIC, and -odir places the output" {
	run --separate-stderr nvcc-lite -shared k.cu -o libk.so -dryrun
	assert_success
	assert_output --regexp "host-only.* -fPIC"
	mkdir od
	run --separate-stderr nvcc-lite -c k.cu -odir od -dryrun
	assert_success
	assert_output --partial "od/k.o"
}

@test "-arch-ls and -code-ls list the targets, -clean removes what the command writes" {
	run nvcc-lite -arch-ls
	assert_success
	assert_line compute_90
	run nvcc-lite --list-gpu-code
	assert_line sm_90
	touch k.o
	run --separate-stderr nvcc-lite -c k.cu -o k.o -clean
	assert_success
	[ ! -e k.o ] || fail "-clean left k.o"
}

@test "an option nvcc-lite cannot honour is one line naming it, exit 1 as nvcc's for a bad option" {
	for o in -cuda --optix-ir -r "--sanitize memcheck" "-e k" "-hls=use-lcs"; do
		# shellcheck disable=SC2086
		run --separate-stderr nvcc-lite $o -c k.cu
		assert_equal "$status" 1
		assert_one_error nvcc-lite
		[[ "$stderr" == *"not supported"* ]] || fail "$o: $stderr"
	done
	run --separate-stderr nvcc-lite -bogus k.cu
	assert_equal "$status" 1
	assert_one_error nvcc-lite
}

@test "-diag-suppress and -Xcudafe --diag_suppress map nvcc's numbers onto clang's groups" {
	run --separate-stderr nvcc-lite -c k.cu -o a.o -diag-suppress 177 -Xcudafe --diag_suppress=550 -dryrun
	assert_success
	assert_output --partial "-Wno-unused-variable"
	assert_output --partial "-Wno-unused-but-set-variable"
	run --separate-stderr nvcc-lite -c k.cu -o a.o -diag-suppress 1x -dryrun
	assert_equal "$status" 1
	assert_one_error nvcc-lite
}

# bats test_tags=slow
@test "a warning is said once per source, over two targets and the host pass, and clang's -Wswitch not at all" {
	need_cuda
	cat >w.cu <<'CU'
enum E { A, B, C };
__host__ __device__ int f(E e) { switch (e) { case A: return 1; case B: return 2; } return 0; }
__global__ void k(int *o) { int x = 1 << 40; o[0] = f(A) + x; }
CU
	run --separate-stderr nvcc-lite -c w.cu -o w.o -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80
	assert_success
	[ "$(grep -c 'warning: shift count' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	! grep -q -- '-Wswitch' <<<"$stderr" || fail "$stderr"
	run --separate-stderr nvcc-lite -c w.cu -o w.o -Werror all-warnings
	[ "$status" -eq 2 ] || fail "status $status: $stderr"
}

# bats test_tags=slow
@test "a warning only the host pass sees (host-only code) is said, once, and the header's once whichever pass says it first" {
	need_cuda
	cat >h.h <<'H'
template <typename T> __host__ __device__ T sh(T a) { return a << 40; }
inline __host__ __device__ int g(int a) { return a << 33; }
H
	cat >w.cu <<'CU'
#include "h.h"
__global__ void k(int *p) { p[0] = sh(p[1]) + g(1); }
#ifndef __CUDA_ARCH__
static int ho(long a) { return sh((int)a); }
int hh() { return ho(3) + (1 << 35); }
#endif
CU
	for cache in "" -no-cache; do
		run --separate-stderr nvcc-lite -c w.cu -o w.o -arch=sm_90 $cache
		assert_success
		[ "$(grep -c 'w.cu:5:30: warning: shift count' <<<"$stderr")" -eq 1 ] || fail "$cache: $stderr"
		[ "$(grep -c 'h.h:1:64: warning: shift count' <<<"$stderr")" -eq 1 ] || fail "$cache: $stderr"
		[ "$(grep -c 'h.h:2:52: warning: shift count' <<<"$stderr")" -eq 1 ] || fail "$cache: $stderr"
		grep -q '^1 warning generated when compiling for host\.$' <<<"$stderr" || fail "$cache: $stderr"
	done
	run --separate-stderr nvcc-lite -c w.cu -o w.o -arch=sm_90 -w
	assert_success
	assert_equal "$stderr" ""
}

@test "exit statuses are nvcc's: an error in the source 2, a bad option 1, nvlink's 255, a -run program's own" {
	need_cuda
	printf '__global__ void k() { int x = ; }\n' >bad.cu
	run --separate-stderr nvcc-lite -c bad.cu -o bad.o
	assert_equal "$status" 2
	run --separate-stderr nvcc-lite -c k.cu -o k.o --no-such-option
	assert_equal "$status" 1
	printf 'extern __device__ int g();\n__global__ void k(int *x) { x[0] = g(); }\nint main() { k<<<1, 1>>>(0); return 0; }\n' >ext.cu
	run --separate-stderr nvcc-lite -rdc=true ext.cu -o ext
	assert_equal "$status" 255
	[[ "$stderr" == *"nvlink error"*"Undefined reference"* ]] || fail "$stderr"
	printf 'int main() { return 3; }\n' >r3.cu
	run --separate-stderr nvcc-lite -run r3.cu -o r3
	assert_equal "$status" 3
	assert_equal "$stderr" ""
}

@test "-res-usage under -c prints ptxas's resource lines" {
	need_cuda
	run --separate-stderr nvcc-lite -c k.cu -o k.o -res-usage
	assert_success
	[[ "$stderr" == *"Used "*" registers"* ]] || fail "$stderr"
}

@test "--resource-usage adds each kernel's occupancy: at its launch bounds, else 256 threads, with its shared memory, and the registers of the next step" {
	need_cuda
	cat > ru.cu <<'EOF'
__global__ void __launch_bounds__(128) tiled(int *p)
{
	__shared__ int s[4096];
	for (int i = threadIdx.x; i < 4096; i += 128)
		s[i] = p[i];
	__syncthreads();
	p[threadIdx.x] = s[4095 - threadIdx.x];
}
__global__ void plain(int *p) { p[threadIdx.x] = 1; }
__global__ void wide(const float *p, float *q, int n)
{
	float a[24];
#pragma unroll
	for (int i = 0; i < 24; i++)
		a[i] = p[i * n + threadIdx.x];
	float s = 0;
	for (int k = 0; k < n; k++)
#pragma unroll
		for (int i = 0; i < 24; i++)
			s += a[i] * a[(i + k) % 24];
	q[threadIdx.x] = s;
}
EOF
	run --separate-stderr nvcc-lite -cubin -arch=sm_90 --resource-usage ru.cu -o ru.cubin
	assert_success
	[[ "$stderr" == *"ptxas info    : Used "*" registers"* ]] || fail "$stderr"
	# 16 KB of shared memory and 1 KB reserved, of 228 KB: 13 blocks of 4 warps
	grep -qxF "nvcc-lite: occupancy of '_Z5tiledPi' on sm_90: 13 blocks of 128 threads (its launch bounds) an SM, 52 of 64 warps, limited by shared memory" <<< "$stderr"
	# a handful of registers: 8 blocks of 8 warps fill the SM
	grep -qxF "nvcc-lite: occupancy of '_Z5plainPi' on sm_90: 8 blocks of 256 threads (no launch bounds) an SM, 64 of 64 warps, limited by warps" <<< "$stderr"
	# from ptxas's count: warps from the register file (256-register units a
	# warp, four sub-partitions of 16384), and the count of the next step;
	# at 32 or fewer the warp limit
	r=$(awk '/Compiling entry function .*wide/ { w = 1 } w && /Used/ { print $5; exit }' <<< "$stderr")
	[ -n "$r" ] || fail "no registers for wide in $stderr"
	want=$(awk -v r="$r" 'function blocks(r) { w = 4 * int(16384 / (int((r * 32 + 255) / 256) * 256)); if (w > 64) w = 64; return int(w / 8) }
		BEGIN { b = blocks(r); if (b == 8) { print "8 blocks of 256 threads (no launch bounds) an SM, 64 of 64 warps, limited by warps"; exit }
		        n = r - 1; while (blocks(n) <= b) n--; printf "%d blocks of 256 threads (no launch bounds) an SM, %d of 64 warps, limited by registers; %d registers would give %d", b, 8 * b, n, blocks(n) }')
	grep -qxF "nvcc-lite: occupancy of '_Z4widePKfPfi' on sm_90: $want" <<< "$stderr" || fail "want $want in $stderr"
	# sm_80 has 164 KB of shared memory: 9 blocks of the tiled kernel
	run --separate-stderr nvcc-lite -cubin -arch=sm_80 --resource-usage ru.cu -o ru.cubin
	assert_success
	[[ "$stderr" == *"'_Z5tiledPi' on sm_80: 9 blocks of 128 threads"* ]] || fail "$stderr"
	# without a cubin nothing is allocated: no occupancy
	run --separate-stderr nvcc-lite -ptx --resource-usage ru.cu -o ru.ptx
	assert_success
	[[ "$stderr" != *"occupancy"* ]] || fail "$stderr"
}

@test "-Xcompiler's questions that need no input go to the host compiler nvcc runs, -ccbin's else gcc, whatever the inputs; its answer and status are ours" {
	# CMake's probe of a library, through nvcc: gcc's 12.2.0
	want=$(gcc -dumpfullversion -dumpversion)
	run --separate-stderr nvcc-lite .c -Xcompiler "-dumpfullversion -dumpversion"
	assert_success
	assert_output "$want"
	assert_equal "$stderr" ""
	run --separate-stderr nvcc-lite k.cu -Xcompiler --version
	assert_success
	assert_equal "${lines[0]}" "$(gcc --version | head -1)"
	# -ccbin's compiler, given -Xcompiler's options and nothing else
	printf '#!/bin/sh\necho "fake $*"\ntouch ran\n' > fakecc
	chmod +x fakecc
	run --separate-stderr nvcc-lite -ccbin ./fakecc k.cu -o k.o -Xcompiler -Wall,-dumpmachine
	assert_success
	assert_output "fake -Wall -dumpmachine"
	[ ! -e k.o ] || fail "k.o was compiled"
	rm ran
	# -dryrun: the command, not run
	run --separate-stderr nvcc-lite -ccbin ./fakecc -Xcompiler -print-prog-name=ld -dryrun
	assert_success
	assert_output --partial "fakecc -print-prog-name=ld"
	[ ! -e ran ] || fail "-dryrun ran the host compiler"
	# the host compiler's refusal is ours
	run --separate-stderr nvcc-lite -Xcompiler -print-no-such-thing
	assert_failure
	[[ "$stderr" == *"no-such-thing"* ]] || fail "$stderr"
	# no question: the build as always
	run --separate-stderr nvcc-lite -Xcompiler -Wall
	assert_failure 1
	[[ "$stderr" == *"no input file"* ]] || fail "$stderr"
}

@test "bash completion offers long options and the choices of an option's value" {
	source "$TOP/completions/nvcc-lite.bash"
	COMP_WORDS=(nvcc-lite --gpu-arch); COMP_CWORD=1; _nvcc_lite
	assert_equal "${COMPREPLY[*]}" "--gpu-architecture"
	COMP_WORDS=(nvcc-lite --default-str); COMP_CWORD=1; _nvcc_lite
	assert_equal "${COMPREPLY[*]}" "--default-stream"
	COMP_WORDS=(nvcc-lite -cudart s); COMP_CWORD=2; _nvcc_lite
	assert_equal "$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')" "shared static "
}

@test "-x c++ and -x c compile a source of any extension on the host side alone, as nvcc tells gcc" {
	run --separate-stderr nvcc-lite -x c++ -c k.cu -o k.o -dryrun
	assert_success
	assert_output --regexp "-c -x c\+\+ .* k\.cu"
	refute_output --partial "cuda-device-only"
	printf 'int f(void) { return 1; }\n' >f.txt
	run --separate-stderr nvcc-lite -x c -c f.txt -o f.o -dryrun
	assert_success
	assert_output --regexp "-c -x c .* f\.txt"
}
