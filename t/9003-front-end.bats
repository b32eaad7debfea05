#!/usr/bin/env bats
# nvcc-lite on CUDA sources as real programs are written: host code with
# launches, CUB, Thrust, cooperative groups, lambdas, __managed__, and
# nvcc's command line as Makefiles use it.  Where nvcc is installed, the
# kernel set must be nvcc's.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

cuda_root() {
	local r=${CUDA_PATH:-/usr/local/cuda}
	[ -f "$r/include/cuda_runtime.h" ] && echo "$r"
}

have_nvcc() {
	[ -n "$(cuda_root)" ] && [ -x "$(cuda_root)/bin/nvcc" ]
}

# The .entry definitions of a PTX file, sorted.
entries() {
	sed -n '/\.extern/!s/^[^/]*\.entry[ 	]*\([A-Za-z0-9_$]*\).*/\1/p' "$1" | sort -u
}

# same_kernels SRC [FLAGS...]: nvcc-lite compiles SRC, ptxas takes the PTX,
# and the kernel set is nvcc's (or, without nvcc, not empty).
same_kernels() {
	local src=$1
	shift
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 "$@" "$src" -o lite.ptx
	[ "$status" -eq 0 ] || fail "nvcc-lite $src: $stderr"
	entries lite.ptx >lite.entries
	[ -s lite.entries ] || fail "$src: no kernel in nvcc-lite's PTX"
	if have_ptxas; then
		run "$(ptxas_bin)" -arch=sm_90 lite.ptx -o /dev/null
		[ "$status" -eq 0 ] || fail "ptxas rejects nvcc-lite's PTX of $src: $output"
	fi
	if have_nvcc; then
		"$(cuda_root)/bin/nvcc" -ptx -arch=sm_90 "$@" "$src" -o nvcc.ptx
		entries nvcc.ptx >nvcc.entries
		run diff nvcc.entries lite.entries
		[ "$status" -eq 0 ] || fail "$src: kernel sets differ (< nvcc, > nvcc-lite): $output"
	fi
}

@test "host code with <<<>>> launches compiles under CUDA 13 (the new launch API)" {
	[ -n "$(cuda_root)" ] || skip "no CUDA installation"
	cat >launch.cu <<'EOF'
#include <cstdio>
#include <cuda_runtime.h>
__global__ void add(const float *a, float *b, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) b[i] += a[i];
}
static __global__ void scale(float *b, float s) { b[threadIdx.x] *= s; }
int main() {
	float *a, *b;
	cudaMalloc(&a, 1024 * sizeof(float));
	cudaMalloc(&b, 1024 * sizeof(float));
	add<<<4, 256>>>(a, b, 1024);
	scale<<<1, 32, 0, 0>>>(b, 2.0f);
	printf("%d\n", max(3, 4) + (int)min(2u, 5));
	return cudaDeviceSynchronize() != cudaSuccess;
}
EOF
	same_kernels launch.cu
	# a static kernel has nvcc's name, the one cuModuleGetFunction takes
	grep -q '_Z5scalePff' lite.entries
}

@test "__managed__ variables are device variables with .attribute(.managed)" {
	[ -n "$(cuda_root)" ] || skip "no CUDA installation"
	cat >managed.cu <<'EOF'
__managed__ int counter;
__device__ __managed__ float table[4];
__global__ void bump() { atomicAdd(&counter, 1); table[threadIdx.x & 3] = 1.0f; }
int main() { bump<<<1, 4>>>(); return counter; }
EOF
	same_kernels managed.cu
	grep -q '.global .attribute(.managed) .align 4 .u32 counter;' lite.ptx
	grep -q '.global .attribute(.managed) .align 4 .b8 table\[16\];' lite.ptx
}

# bats test_tags=slow
@test "CUB block primitives and the cache-hinted stores clang lacks compile" {
	[ -n "$(cuda_root)" ] || skip "no CUDA installation"
	cat >cub.cu <<'EOF'
#include <cub/cub.cuh>
template <int THREADS>
__global__ void block_sum(const int *in, int *out) {
	using Reduce = cub::BlockReduce<int, THREADS>;
	__shared__ typename Reduce::TempStorage tmp;
	int s = Reduce(tmp).Sum(in[blockIdx.x * THREADS + threadIdx.x]);
	if (threadIdx.x == 0) __stcs(out + blockIdx.x, s);
}
template __global__ void block_sum<128>(const int *, int *);
template __global__ void block_sum<256>(const int *, int *);
EOF
	same_kernels cub.cu -std=c++17
	grep -q 'st.global.cs' lite.ptx
}

# bats test_tags=slow
@test "Thrust algorithms instantiate nvcc's kernels" {
	[ -n "$(cuda_root)" ] || skip "no CUDA installation"
	cat >thrust.cu <<'EOF'
#include <thrust/device_vector.h>
#include <thrust/transform.h>
#include <thrust/reduce.h>
struct square { __host__ __device__ float operator()(float x) const { return x * x; } };
int main() {
	thrust::device_vector<float> v(1000, 2.0f), w(1000);
	thrust::transform(v.begin(), v.end(), w.begin(), square());
	return thrust::reduce(w.begin(), w.end()) > 0 ? 0 : 1;
}
EOF
	same_kernels thrust.cu
}

# bats test_tags=slow
@test "cooperative groups and extended lambdas compile" {
	[ -n "$(cuda_root)" ] || skip "no CUDA installation"
	cat >cg.cu <<'EOF'
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void warp_sum(const int *in, int *out) {
	cg::thread_block block = cg::this_thread_block();
	cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
	int v = cg::reduce(tile, in[block.thread_rank()], cg::plus<int>());
	if (tile.thread_rank() == 0) atomicAdd(out, v);
}
template <class F> __global__ void apply(float *p, F f) { p[threadIdx.x] = f(p[threadIdx.x]); }
void run(float *p, float k) {
	apply<<<1, 32>>>(p, [=] __device__(float x) { return x * k; });
}
EOF
	same_kernels cg.cu --extended-lambda --expt-relaxed-constexpr
}

# bats test_tags=slow
@test "-std, -x cu, --options-file and comma lists in -X options reach their tools" {
	[ -n "$(cuda_root)" ] || skip "no CUDA installation"
	printf '#if __cplusplus < 202002L\n#error not C++20\n#endif\n__global__ void k(int *p) { p[0] = 1; }\n' >k.cpp
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -x cu -std=c++20 k.cpp -o k.ptx
	[ "$status" -eq 0 ] || fail "$stderr"
	grep -q '.entry _Z1kPi' k.ptx
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -x cu -std=c++17 k.cpp -o k17.ptx
	assert_equal "$status" 1
	[[ "$stderr" == *"not C++20"* ]] || fail "$stderr"
	printf -- '-arch=sm_90 -std=c++20\n-x cu "-DGREETING=a b"\n' >opts
	run --separate-stderr nvcc-lite -ptx --options-file opts k.cpp -o o.ptx
	[ "$status" -eq 0 ] || fail "$stderr"
	grep -q '.target sm_90' o.ptx
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -x cu -std=c++20 -Xcompiler -DA=1,-DB=2 -Xcicc -nvptx-prec-divf32=0,-pass-remarks=nv-none k.cpp -dryrun
	[ "$status" -eq 0 ] || fail "$stderr"
	[[ "$output" == *"-DA=1 -DB=2"* ]] || fail "$output"
	[[ "$output" == *"-nvptx-prec-divf32=0 -pass-remarks=nv-none"* ]] || fail "$output"
}

@test "nvcc's flags for the host side and for warnings are accepted, and checked as nvcc checks them" {
	cp "$FIXTURES/saxpy.cu" k.cu
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -g -lineinfo -w -Wno-deprecated-gpu-targets --threads 2 \
		-ccbin gcc -Xlinker -lm -Xcompiler -fPIC,-O2 -Werror=all-warnings,reorder k.cu -o k.ptx
	[ "$status" -eq 0 ] || fail "$stderr"
	grep -q '.loc' k.ptx
	run --separate-stderr nvcc-lite -ptx -Werror=foo k.cu
	assert_equal "$status" 1
	assert_equal "$stderr" "nvcc-lite: error: value 'foo' is not defined for option 'Werror'"
	run --separate-stderr nvcc-lite -ptx -std=c++99 k.cu
	assert_equal "$status" 1
	run --separate-stderr nvcc-lite -ptx -x c++ k.cu
	assert_equal "$status" 1
}

@test "an unknown flag gets a suggestion only when one fits, and nvcc's build flags say what is missing" {
	cp "$FIXTURES/saxpy.cu" k.cu
	run --separate-stderr nvcc-lite -sanitize memcheck k.cu
	assert_equal "$status" 1
	assert_one_error nvcc-lite
	assert_equal "$stderr" "nvcc-lite: error: -sanitize (--sanitize): not supported: compute-sanitizer's instrumentation is NVVM's"
	run --separate-stderr nvcc-lite -ptx -q k.cu
	assert_equal "$stderr" "nvcc-lite: error: unknown option '-q' (see 'nvcc-lite --help')"
	run --separate-stderr nvcc-lite -ptx -keep-dri k.cu
	assert_equal "$stderr" "nvcc-lite: error: unknown option '-keep-dri'; did you mean '-keep-dir'?"
	# nvcc reads -lNAME as a library whatever NAME is (-lineinf too): so does nvcc-lite
	run --separate-stderr nvcc-lite -ptx -lineinf k.cu -o k.ptx
	assert_success
}

@test "-G keeps full debug information: .target ..., debug, DWARF sections, unoptimized" {
	cp "$FIXTURES/saxpy.cu" k.cu
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -G -O3 k.cu -o g.ptx
	[ "$status" -eq 0 ] || fail "$stderr"
	grep -q '^.target sm_90, debug' g.ptx
	grep -q '.section	.debug_info' g.ptx
	if have_ptxas; then
		run "$(ptxas_bin)" -g -arch=sm_90 g.ptx -o /dev/null
		[ "$status" -eq 0 ] || fail "$output"
	fi
}

@test "-arch=native without a GPU falls back to the default arch as nvcc does; -arch=all is refused with -ptx" {
	cp "$FIXTURES/saxpy.cu" k.cu
	if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
		skip "this machine has a GPU"
	fi
	run --separate-stderr nvcc-lite -ptx -arch=native k.cu -o n.ptx
	assert_success
	assert_equal "$stderr" "nvcc-lite: warning: cannot find a valid GPU for '-arch=native': the default arch sm_75 is used"
	grep -qx '.target sm_75' n.ptx
	run --separate-stderr nvcc-lite -ptx -arch=all k.cu
	assert_equal "$status" 1
	assert_one_error nvcc-lite
}

@test "several inputs give one output each, and all are checked before any is compiled" {
	cp "$FIXTURES/saxpy.cu" a.cu
	cp "$FIXTURES/saxpy.cu" b.cu
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 a.cu b.cu
	assert_success
	assert_file_exists a.ptx
	assert_file_exists b.ptx
	rm a.ptx b.ptx
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 a.cu nothere.cu
	assert_equal "$status" 1
	assert_file_not_exists a.ptx
}

@test "-rdc=true keeps device functions external and declares a kernel launched from another file" {
	[ -n "$(cuda_root)" ] || skip "no CUDA installation"
	cat >rdc.cu <<'EOF'
__device__ int helper(int x) { return x + 1; }
extern __global__ void child(int *p);
__global__ void parent(int *p) { child<<<1, 1>>>(p); p[1] = helper(p[0]); }
EOF
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -rdc=true rdc.cu -o rdc.ptx
	[ "$status" -eq 0 ] || fail "$stderr"
	grep -q '^.visible .func .*_Z6helperi' rdc.ptx
	grep -q '^.extern .entry _Z5childPi' rdc.ptx
	if have_ptxas; then
		run "$(ptxas_bin)" -c -arch=sm_90 rdc.ptx -o /dev/null
		[ "$status" -eq 0 ] || fail "$output"
	fi
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 rdc.cu -o whole.ptx
	assert_equal "$status" 1 # whole-program mode: child is nowhere (an error in the source: nvcc -ptx's 1)
}

@test "a front-end error is one diagnostic block from clang and exit status 1 under -ptx, as nvcc's (cicc's)" {
	printf '__global__ void k(float *p) { p[0] = undeclared_name; }\n' >bad.cu
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 bad.cu -o bad.ptx
	assert_equal "$status" 1
	[[ "$stderr" == "bad.cu:1:"*"error: use of undeclared identifier 'undeclared_name'"* ]] || fail "$stderr"
	[[ "$stderr" == *"1 error generated"* ]] || fail "$stderr"
	[[ "$stderr" != *"nvcc-lite:"* && "$stderr" != *"nv-"* ]] || fail "$stderr"
	assert_file_not_exists bad.ptx
}

@test "the front end reads the CUDA version from cuda.h and the include directories from nvcc.profile" {
	mkdir -p fake/bin fake/include fake/targets/x86_64-linux/include/cccl fake/targets/aarch64-linux/include fake/extra
	touch fake/include/cuda_runtime.h
	printf '#define CUDA_VERSION 12040\n' >fake/include/cuda.h
	cat >fake/bin/nvcc.profile <<'P'

TOP              = $(_HERE_)/..
INCLUDES        +=  "-I$(TOP)/$(_TARGET_DIR_)/include" $(_SPACE_)
INCLUDES        +=  "-I$(TOP)/extra dir" $(_SPACE_)
SYSTEM_INCLUDES +=  "-isystem" "$(TOP)/$(_TARGET_DIR_)/include/cccl" $(_SPACE_)
P
	cp "$FIXTURES/saxpy.cu" k.cu
	run --separate-stderr env CUDA_PATH="$PWD/fake" nvcc-lite -ptx -dryrun -arch=sm_90 k.cu
	assert_success
	[[ "$output" == *"--cuda-path=$PWD/fake -Xclang -target-sdk-version=12.4 "* ]] || fail "$output"
	[[ "$output" == *"-I$PWD/fake/bin/../targets/$(uname -m)-linux/include "* ]] || fail "$output"
	[[ "$output" == *"'-I$PWD/fake/bin/../extra dir'"* ]] || fail "$output"
	[[ "$output" == *"-isystem $PWD/fake/bin/../targets/$(uname -m)-linux/include/cccl "* ]] || fail "$output"
	# CUDA 12.4's ptxas reads PTX ISA 8.4, so that is what nv-llc writes
	[[ "$output" == *"-ptx-isa=84"* ]] || fail "$output"
}

# bats test_tags=slow
@test "sm_XXa and sm_XXf targets: nvcc's macros, the PTX ISA they need, and ptxas takes the PTX" {
	cat >fam.cu <<'EOF2'
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FAMILY_SPECIFIC__)
#error no family macro
#endif
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH_FAMILY_SPECIFIC__ != __CUDA_ARCH__)
#error wrong family
#endif
#if defined(WANT_SPECIFIC) && defined(__CUDA_ARCH__) && __CUDA_ARCH_SPECIFIC__ != __CUDA_ARCH__
#error wrong arch-specific macro
#endif
__global__ void k(float *p) { p[threadIdx.x] *= 2.0f; }
EOF2
	for a in sm_90a sm_100f sm_110a sm_121f; do
		flags=
		[[ $a == *a ]] && flags=-DWANT_SPECIFIC
		run --separate-stderr nvcc-lite -ptx -arch=$a $flags fam.cu -o $a.ptx
		[ "$status" -eq 0 ] || fail "$a: $stderr"
		grep -qx ".target $a" $a.ptx || fail "$a: $(grep '^.target' $a.ptx)"
		if have_ptxas; then
			run "$(ptxas_bin)" -arch=$a $a.ptx -o /dev/null
			[ "$status" -eq 0 ] || fail "ptxas -arch=$a: $output"
		fi
	done
	# sm_110 needs PTX ISA 9.0
	grep -qx '.version 9.0' sm_110a.ptx
}

@test "-keep-dir is created when missing, as -save-remarks is" {
	cp "$FIXTURES/saxpy.cu" k.cu
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -keep-dir kept k.cu -o k.ptx
	[ "$status" -eq 0 ] || fail "$stderr"
	assert_file_exists kept/k.0-cudafe.bc
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -keep-dir no/such k.cu -o k.ptx
	assert_equal "$status" 1
	assert_one_error nvcc-lite
}

@test "a missing or self-including options file is one usage error" {
	cp "$FIXTURES/saxpy.cu" k.cu
	run --separate-stderr nvcc-lite -ptx --options-file nothere k.cu
	assert_equal "$status" 1
	assert_one_error nvcc-lite
	[[ "$stderr" == *"cannot read options file 'nothere'"* ]] || fail "$stderr"
	echo '-optf loop' >loop
	run --separate-stderr nvcc-lite -ptx -optf loop k.cu
	assert_equal "$status" 1
	assert_one_error nvcc-lite
	[[ "$stderr" == *"options file 'loop' includes itself"* ]] || fail "$stderr"
	assert_file_not_exists k.ptx
}

@test "without a header-cache entry the front end goes first without clang's texture intrinsics unless the source names a fetch: a fetch it missed compiles through a second, whole compile, and the PTX and diagnostics are a whole compile's" {
	need_cuda
	printf '__global__ void k(int *p) { int unused_v; p[0] = 1; }\n' > plain.cu
	printf '__global__ void k(float *o, cudaTextureObject_t t) { o[0] = tex2D<float>(t, 0.5f, 0.5f) + tex1Dfetch<float>(t, 3); }\n' > tex.cu
	# the fetch in a library's header, which the source's text does not show
	mkdir lib
	printf 'static __device__ float fetch(cudaTextureObject_t t) { return tex1Dfetch<float>(t, 3); }\n' > lib/fetch.h
	printf '#include <fetch.h>\n__global__ void k(float *o, unsigned long long t) { o[0] = fetch(t); }\n' > hidden.cu
	# no fetch: one front end, the header left out; the PTX as with it
	# (-MD writes the header among the dependencies: there it stays in)
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx plain.cu -o lean.ptx -no-cache -v
	assert_success
	[ "$(grep -c 'clang-22 .*-x cuda --cuda-device-only' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	grep 'clang-22 .*--cuda-device-only' <<<"$stderr" | grep -qF -- -D__CLANG_CUDA_TEXTURE_INTRINSICS_H__
	nvcc-lite -arch=sm_90 -ptx plain.cu -o whole.ptx -no-cache -MD -MF plain.d
	grep -q '__clang_cuda_texture_intrinsics.h' plain.d
	cmp lean.ptx whole.ptx
	# a fetch the source names: one whole front end
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx tex.cu -o tex.ptx -no-cache -v
	assert_success
	[ "$(grep -c 'clang-22 .*-x cuda --cuda-device-only' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	! grep -qF -- -D__CLANG_CUDA_TEXTURE_INTRINSICS_H__ <<<"$stderr" || fail "$stderr"
	grep -q 'tex\.2d' tex.ptx
	# ... or in a header it includes by a quoted name beside it
	printf '#include "fetch.h"\n__global__ void k(float *o, unsigned long long t) { o[0] = fetch(t); }\n' > lib/quoted.cu
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx lib/quoted.cu -o quoted.ptx -no-cache -v
	assert_success
	[ "$(grep -c 'clang-22 .*-x cuda --cuda-device-only' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	! grep -qF -- -D__CLANG_CUDA_TEXTURE_INTRINSICS_H__ <<<"$stderr" || fail "$stderr"
	# a fetch it does not: the try fails, the whole compile says nothing of it
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx hidden.cu -I lib -o hidden.ptx -no-cache -v
	assert_success
	[ "$(grep -c 'clang-22 .*-x cuda --cuda-device-only' <<<"$stderr")" -eq 2 ] || fail "$stderr"
	! grep -q 'error\|__nv_tex_surf_handler' <<<"$stderr" || fail "$stderr"
	grep -q 'tex\.1d' hidden.ptx
	nvcc-lite -arch=sm_90 -ptx hidden.cu -I lib -o hidden-whole.ptx -no-cache -MD -MF hidden.d
	cmp hidden.ptx hidden-whole.ptx
	# an error of the source's own: said once, as the whole compile says it
	printf '__global__ void k(int *p) { p[0] = undeclared_x; }\n' > bad.cu
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx bad.cu -o bad.ptx -no-cache
	assert_failure
	[ "$(grep -c "error: use of undeclared identifier 'undeclared_x'" <<<"$stderr")" -eq 1 ] || fail "$stderr"
	whole=$stderr
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx bad.cu -o bad.ptx -no-cache -MD -MF bad.d
	assert_equal "$stderr" "$whole"
}

# bats test_tags=slow
@test "the host pass of -c goes first without clang's texture intrinsics too, and its objects are those of compiles through an entry" {
	need_cuda
	printf '__global__ void k(int *p) { int unused_v; p[0] = 1; }\n' > plain.cu
	printf '__global__ void k(float *o, cudaTextureObject_t t) { o[0] = tex2D<float>(t, 0.5f, 0.5f) + tex1Dfetch<float>(t, 3); }\n' > tex.cu
	mkdir lib
	printf 'static __device__ float fetch(cudaTextureObject_t t) { return tex1Dfetch<float>(t, 3); }\n' > lib/fetch.h
	printf '#include <fetch.h>\n__global__ void k(float *o, unsigned long long t) { o[0] = fetch(t); }\n' > hidden.cu
	# no fetch, a fetch named, a fetch hidden: one host pass, one, two
	for f in plain tex hidden; do
		run --separate-stderr nvcc-lite -arch=sm_90 -c $f.cu -I lib -o $f-lean.o -no-cache -v
		assert_success
		n=$(grep -c 'clang-22 .*--cuda-host-only' <<<"$stderr")
		[ "$n" -eq $([ $f = hidden ] && echo 2 || echo 1) ] || fail "$f: $stderr"
		# the host side's entry is built on second use
		NVCC_LITE_CACHE_DIR=$PWD/cache nvcc-lite -arch=sm_90 -c $f.cu -I lib -o $f-entry.o
		run --separate-stderr env NVCC_LITE_CACHE_DIR=$PWD/cache nvcc-lite -arch=sm_90 -c $f.cu -I lib -o $f-entry.o -v
		grep 'clang-22 .*--cuda-host-only' <<<"$stderr" | grep -q -- '-include-pch' || fail "$stderr"
		cmp $f-lean.o $f-entry.o
	done
}
