#!/usr/bin/env bats
# nvcc's identity to source code: its predefined macros, its builtins, its
# kernel names and its parameter space.  Libraries decide what to compile by
# asking which compiler they are under; a difference here loses kernels
# without a word.  Where nvcc is installed, nvcc-lite is held to nvcc's own
# -dryrun, PTX and names.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

cuda_root() {
	local r=${CUDA_PATH:-/usr/local/cuda}
	[ -f "$r/include/cuda_runtime.h" ] && echo "$r"
}

need_nvcc() {
	[ -n "$(cuda_root)" ] && [ -x "$(cuda_root)/bin/nvcc" ] ||
		skip "nvcc is not installed (CUDA_PATH or /usr/local/cuda/bin/nvcc): nothing to compare with"
}

nvcc() {
	"$(cuda_root)/bin/nvcc" "$@"
}

# The .entry definitions of a PTX file, sorted.
entries() {
	sed -n '/\.extern/!s/^[^/]*\.entry[ 	]*\([A-Za-z0-9_$]*\).*/\1/p' "$1" | sort -u
}

# dm: the compile command on stdin (a line of a -dryrun) run as a
# preprocessor that prints its macros, sorted.
dm() {
	sed -e 's/ -emit-llvm//' -e 's/ -Xclang -fcuda-include-gpubinary -Xclang [^ ]*//' \
		-e 's/ -o "[^"]*"//' -e 's/ -o [^ ]*$//' -e 's/ -c / /' -e 's/ -E / /' -e 's/ *$/ -E -dM/' |
		sh 2>/dev/null | sort -u
}

# The names the man page lists as clang's own (PREDEFINED MACROS).
clangs_own() {
	sed -n "/^These differences are clang's own/,/^\.PP/p" "$TOP/share/man/man1/nvcc-lite.1" |
		awk '/^\.TP/ { getline; print $2 }'
}

# compare_macros FLAGS...: for the device pass, the host pass of a .cu file
# and a host-only .cpp, nvcc's macros (the -D of its preprocessors, from
# -dryrun) against nvcc-lite's (its compilers' -dM).  Each of nvcc's must be
# nvcc-lite's with nvcc's value; a __CUDA*__, __CUDACC*__ or __NVCC*__ macro
# nvcc-lite defines must be nvcc's, with its value (nvcc's -dM, its headers
# included); other than the man page's list of clang's own.  The host-only
# source's compiler is nvcc's: its macros are all nvcc's.
compare_macros() {
	: >e.cu
	echo 'int x;' >e.cpp
	nvcc -dryrun -c "$@" e.cu 2>&1 | sed -n 's/^#\$ \(gcc .* -E .*\)/\1/p' >n.lines
	grep -v -- '-D__CUDA_ARCH__=' n.lines | head -1 >n.host
	grep -- '-D__CUDA_ARCH__=' n.lines | tail -1 >n.dev
	nvcc -dryrun -c "$@" e.cpp 2>&1 | sed -n 's/^#\$ \(gcc .*\)/\1/p' | head -1 >n.cxx
	nvcc-lite -no-cache -dryrun -c "$@" e.cu -o e.o >l.lines
	grep -- '--cuda-device-only' l.lines | tail -1 >l.dev
	grep -- '--cuda-host-only' l.lines | head -1 >l.host
	nvcc-lite -no-cache -dryrun -c "$@" e.cpp -o e.o | grep -- ' e.cpp -o' >l.cxx
	clangs_own >own
	[ -s own ] || fail "the man page lists no macro as clang's own"
	for p in dev host cxx; do
		[ -s n.$p ] && [ -s l.$p ] || fail "$*: no $p compile in the -dryrun of nvcc or nvcc-lite"
		grep -o -- '-D[^ ]*' n.$p | sed 's/^-D//; s/"//g; /=/!s/$/=1/' | sort >n.$p.D
		dm <n.$p >n.$p.dM
		dm <l.$p >l.$p.dM
		[ -s n.$p.dM ] && [ -s l.$p.dM ] || fail "$*: the $p compile printed no macros"
	done
	run diff n.cxx.dM l.cxx.dM
	[ "$status" -eq 0 ] || fail "$*: a host-only source's macros differ (< nvcc, > nvcc-lite): $output"
	for p in dev host; do
		run awk -v ND=n.$p.D -v NM=n.$p.dM -v LM=l.$p.dM -v OWN=own '
			function defs(file, arr,   line, name, val) {
				while ((getline line < file) > 0) {
					if (line !~ /^#define /)
						continue
					sub(/^#define /, "", line)
					name = line
					sub(/[ (].*/, "", name)
					val = substr(line, length(name) + 1)
					sub(/^ /, "", val)
					gsub(/ *## */, "##", val)
					arr[name] = val
				}
			}
			BEGIN {
				while ((getline line < ND) > 0) {
					n = index(line, "=")
					D[substr(line, 1, n - 1)] = substr(line, n + 1)
				}
				while ((getline line < OWN) > 0)
					own[line] = 1
				defs(NM, N)
				defs(LM, L)
				for (k in D)
					if (k in own)
						continue
					else if (!(k in L))
						print "nvcc defines " k "=" D[k] ", nvcc-lite does not"
					else if (L[k] != D[k])
						print k ": nvcc " D[k] ", nvcc-lite " L[k]
				for (k in L)
					if (k ~ /^__(CUDA|CUDACC|NVCC)[A-Z0-9_]*__$/ && !(k in D) && !(k in own))
						if (!(k in N))
							print "nvcc-lite defines " k "=" L[k] ", nvcc does not"
						else if (N[k] != L[k])
							print k ": nvcc " N[k] ", nvcc-lite " L[k]
			}'
		[ -z "$output" ] || fail "$* ($p pass): $output"
	done
}

# bats test_tags=slow
@test "nvcc's predefined macros are nvcc-lite's, with nvcc's values, but for those the man page calls clang's own" {
	need_nvcc
	compare_macros -arch=sm_90
	compare_macros --extended-lambda --expt-relaxed-constexpr -rdc=true -G -default-stream per-thread \
		-allow-unsupported-compiler -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a
}

@test "the version macros come from the installation found, not from nvcc-lite" {
	mkdir -p fake/bin fake/include fake/dist-info/nvidia_cuda_nvcc-12.9.41.dist-info
	touch fake/include/cuda_runtime.h
	printf '#define CUDA_VERSION 12080\n' >fake/include/cuda.h
	run --separate-stderr env CUDA_PATH="$PWD/fake" nvcc-lite -ptx -dryrun -arch=sm_90 "$FIXTURES/saxpy.cu"
	assert_success
	for d in __CUDACC_VER_MAJOR__=12 __CUDACC_VER_MINOR__=9 __CUDACC_VER_BUILD__=41 __CUDA_API_VER_MAJOR__=12 \
		__CUDA_API_VER_MINOR__=8 __CUDACC_DEVICE_ATOMIC_BUILTINS__=1; do
		[[ "$output" == *" -D$d "* ]] || fail "no -D$d: $output"
	done
	# version.json, where there is one, wins; before 12.8 there are no atomic builtins
	printf '{\n "cuda" : { "version" : "12.4.1" },\n "cuda_nvcc" : {\n  "name" : "CUDA NVCC",\n  "version" : "12.4.131"\n }\n}\n' >fake/version.json
	run --separate-stderr env CUDA_PATH="$PWD/fake" nvcc-lite -ptx -dryrun -arch=sm_90 "$FIXTURES/saxpy.cu"
	assert_success
	[[ "$output" == *" -D__CUDACC_VER_MINOR__=4 -D__CUDACC_VER_BUILD__=131 "* ]] || fail "$output"
	[[ "$output" != *"ATOMIC_BUILTINS"* ]] || fail "$output"
	# nvcc's own banner, last
	rm -rf fake/version.json fake/dist-info
	printf 'junk\0Cuda compilation tools, release 12.6, V12.6.77\0junk' >fake/bin/nvcc
	run --separate-stderr env CUDA_PATH="$PWD/fake" nvcc-lite -ptx -dryrun -arch=sm_90 "$FIXTURES/saxpy.cu"
	assert_success
	[[ "$output" == *" -D__CUDACC_VER_MAJOR__=12 -D__CUDACC_VER_MINOR__=6 -D__CUDACC_VER_BUILD__=77 "* ]] ||
		fail "$output"
}

# bats test_tags=slow
@test "a kernel under #if __CUDACC_VER_MAJOR__ >= 12 is compiled, as nvcc compiles it" {
	[ -n "$(cuda_root)" ] || skip "CUDA is not installed: without it there is no nvcc release to be"
	cat >ver.cu <<'EOF'
#if __CUDACC_VER_MAJOR__ >= 12 && __CUDACC__ && defined(__NVCC_DIAG_PRAGMA_SUPPORT__)
__global__ void k(float *p) { *p = 1; }
void launch(float *p) { k<<<1,1>>>(p); }
#endif
EOF
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 ver.cu -o lite.ptx
	assert_success
	entries lite.ptx >lite.entries
	[ "$(cat lite.entries)" = _Z1kPf ] || fail "kernels: $(cat lite.entries)"
	if [ -x "$(cuda_root)/bin/nvcc" ]; then
		nvcc -ptx -arch=sm_90 ver.cu -o nvcc.ptx
		entries nvcc.ptx | diff - lite.entries
	fi
	# and the object: its host side saw the same macros, and launches it
	run --separate-stderr nvcc-lite -c -arch=sm_90 ver.cu -o ver.o
	assert_success
	nm ver.o | grep -q ' T _Z1kPf$' || fail "no kernel under its name in the object: $(nm ver.o)"
}

# norm_atomics PTX: the atomic, ordered and fence instructions of a PTX file,
# registers dropped, one a line
norm_atomics() {
	grep -E '^[[:space:]]*(ld|st|atom|red|fence|membar)\.' "$1" | grep -Ev '(ld|st)\.(param|global|local|shared)' |
		sed 's/%[a-z]*[0-9]*//g; s/[[:space:]]//g'
}

@test "nvcc's __nv_atomic_* builtins give nvcc's instruction, order and scope for every order, scope and operation" {
	[ -n "$(cuda_root)" ] || skip "CUDA is not installed: the builtins come with nvcc 12.8's macros"
	orders="RELAXED CONSUME ACQUIRE RELEASE ACQ_REL SEQ_CST"
	scopes="THREAD BLOCK CLUSTER DEVICE SYSTEM"
	n=0
	{
		for o in $orders; do
			for s in $scopes; do
				n=$((n + 1))
				echo "__global__ void l$n(int *p, int *out) { *out = __nv_atomic_fetch_add(p, 5, __NV_ATOMIC_$o, __NV_THREAD_SCOPE_$s); }"
				echo "__global__ void x$n(unsigned long long *p, unsigned long long *out) { *out = __nv_atomic_exchange_n(p, 5ull, __NV_ATOMIC_$o, __NV_THREAD_SCOPE_$s); }"
				echo "__global__ void c$n(int *p, int *out) { int e = *out; *out = __nv_atomic_compare_exchange_n(p, &e, 5, false, __NV_ATOMIC_$o, __NV_ATOMIC_ACQUIRE, __NV_THREAD_SCOPE_$s); }"
				echo "__global__ void f$n() { __nv_atomic_thread_fence(__NV_ATOMIC_$o, __NV_THREAD_SCOPE_$s); }"
				case $o in RELEASE | ACQ_REL) ;; *)
					echo "__global__ void r$n(int *p, int *out) { *out = __nv_atomic_load_n(p, __NV_ATOMIC_$o, __NV_THREAD_SCOPE_$s); }" ;;
				esac
				case $o in RELAXED | RELEASE | SEQ_CST)
					echo "__global__ void w$n(short *p) { __nv_atomic_store_n(p, (short)5, __NV_ATOMIC_$o, __NV_THREAD_SCOPE_$s); }" ;;
				esac
			done
		done
		cat <<'EOF2'
struct __align__(16) B16 { long long a, b; };
__global__ void types(char *c, unsigned *u, long long *l, unsigned long long *ul, float *f, double *d, B16 *b, int *out) {
  out[0] = __nv_atomic_load_n(c, __NV_ATOMIC_ACQUIRE);
  B16 v; __nv_atomic_load(b, &v, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE); out[1] = v.a;
  __nv_atomic_store(b + 1, &v, __NV_ATOMIC_RELEASE, __NV_THREAD_SCOPE_DEVICE);
  B16 e = v, r; out[2] = __nv_atomic_compare_exchange(b, &e, &v, true, __NV_ATOMIC_RELEASE, __NV_ATOMIC_ACQUIRE, __NV_THREAD_SCOPE_BLOCK);
  __nv_atomic_exchange(b, &v, &r, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE); out[3] = r.b;
  out[4] = __nv_atomic_fetch_min(u, 3u, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  out[5] = __nv_atomic_fetch_max(l, 3ll, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  out[6] = __nv_atomic_fetch_sub(f, 3.f, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  out[7] = __nv_atomic_fetch_add(d, 3., __NV_ATOMIC_ACQ_REL, __NV_THREAD_SCOPE_SYSTEM);
  out[8] = __nv_atomic_fetch_and(u, 3u, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  out[9] = __nv_atomic_fetch_or(ul, 3ull, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_xor(l, 3ll, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_sub(u, 3u, __NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_CLUSTER);
}
EOF2
	} >atomics.cu
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 atomics.cu -o lite.ptx
	[ "$status" -eq 0 ] || fail "nvcc-lite: $stderr"
	if have_ptxas; then
		run "$(ptxas_bin)" -arch=sm_90 lite.ptx -o /dev/null
		assert_success
	fi
	norm_atomics lite.ptx >lite.ops
	# the instructions the builtins are, spelled as nvcc spells them
	grep -qx 'ld.relaxed.gpu.b128,\[\];' lite.ops || fail "$(cat lite.ops)"
	grep -qx 'atom.cas.release.cta.b128,\[\],,;' lite.ops || fail "$(cat lite.ops)"
	grep -qx 'atom.add.acq_rel.sys.f64,\[\],;' lite.ops || fail "$(cat lite.ops)"
	if [ -x "$(cuda_root)/bin/nvcc" ]; then
		nvcc -ptx -arch=sm_90 atomics.cu -o nvcc.ptx
		norm_atomics nvcc.ptx >nvcc.ops
		run diff nvcc.ops lite.ops
		[ "$status" -eq 0 ] || fail "the instructions differ (< nvcc, > nvcc-lite): $output"
	fi
}

# bats test_tags=slow
@test "nvcc's refusals of an __nv_atomic_* order, type or scope are nvcc-lite's" {
	[ -n "$(cuda_root)" ] || skip "CUDA is not installed: the builtins come with nvcc 12.8's macros"
	while IFS='|' read -r body msg; do
		echo "__global__ void k(int *p, long long *l, float *f, __int128 *q, int o) { $body; }" >bad.cu
		run --separate-stderr nvcc-lite -ptx -arch=sm_80 bad.cu -o bad.ptx
		[ "$status" -eq 1 ] || fail "$body: accepted"
		[[ "$stderr" == *"$msg"* ]] || fail "$body: $stderr"
	done <<'EOF2'
__nv_atomic_load_n(p, __NV_ATOMIC_RELEASE)|atomic load's memory order cannot be release or acq_rel.
__nv_atomic_store_n(p, 1, __NV_ATOMIC_ACQUIRE)|atomic store's memory order cannot be consume, acquire or acq_rel.
__nv_atomic_fetch_add(l, 1ll, __NV_ATOMIC_RELAXED)|atomic operations add and sub are not valid on signed integer of size 8.
__nv_atomic_fetch_max(f, 1.f, __NV_ATOMIC_RELAXED)|atomic operations min and max are not supported on any floating-point types.
__nv_atomic_load_n(f, __NV_ATOMIC_RELAXED)|non-generic nv atomic load, store, cas and exchange are valid only on integral types.
__nv_atomic_exchange_n(q, (__int128)1, __NV_ATOMIC_RELAXED)|128-bit atomic exchange or compare-and-exchange is supported on architecture sm_90 or above.
__nv_atomic_load_n(p, o)|invalid explicitly-specified argument for template parameter 'O'
EOF2
}

# frame KERNEL-SUBSTRING: the stack frame ptxas -v gives the kernel (of ptxas.out)
frame() {
	awk -v k="$1" '/Compiling entry function/ { on = index($0, k) > 0 } on && /bytes stack frame/ { print $1; exit }' ptxas.out
}

@test "a by-value kernel parameter the kernel only reads stays in parameter space: no tensor map at a local address, no frame" {
	have_ptxas || skip "ptxas is not installed: the frame is its -v report"
	cat >tma.cu <<'EOF2'
#include <cstdint>
struct alignas(64) Desc { unsigned long long d[16]; };
struct Params { int m; Desc tma; };
__global__ void k(Params const p) { asm volatile("prefetch.tensormap [%0];" :: "l"(&p.tma) : "memory"); }
struct alignas(128) TmaDesc { uint64_t d[16]; };
struct Big { int m, n; float alpha; TmaDesc a, b; int pad[100]; };
__global__ void bulk(Big p, uint32_t smem, uint32_t bar, float *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(reinterpret_cast<uint64_t>(&p.b)) : "memory");
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               :: "r"(smem), "l"(&p.a), "r"(0), "r"(0), "r"(bar) : "memory");
  out[threadIdx.x] = p.alpha * p.pad[threadIdx.x % 100];
}
// CUB's InputValue: the value in the parameter, or a pointer to it
struct IV { bool fut; unsigned v; unsigned *p; };
__global__ void init_value(IV iv, unsigned *out) { out[0] = iv.fut ? *iv.p : iv.v; }
EOF2
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 tma.cu -o tma.ptx
	assert_success
	"$(ptxas_bin)" -v -arch=sm_90 tma.ptx -o /dev/null 2>ptxas.out
	[ "$(frame _Z1k6Params)" = 0 ] || fail "k: $(cat ptxas.out)"
	[ "$(frame bulk)" = 0 ] || fail "bulk: $(cat ptxas.out)"
	[ "$(frame init_value)" = 0 ] || fail "init_value: $(cat ptxas.out)"
	# the tensor maps' addresses are the parameter's (cvta.param), none a local one
	! grep -E 'cvta\.local|__local_depot' tma.ptx || fail "$(cat tma.ptx)"
	grep -q 'cvta\.param' tma.ptx
}

@test "a by-value kernel parameter the kernel may write is copied to a local in 16-byte pieces, as nvcc copies it" {
	have_ptxas || skip "ptxas is not installed: the frame is its -v report"
	cat >w.cu <<'EOF2'
struct alignas(64) Desc { unsigned long long d[16]; };
struct Params { int m; Desc tma; };
__global__ void writes(Params p, int *out) {
  p.m = threadIdx.x;
  asm volatile("prefetch.tensormap [%0];" :: "l"(&p.tma) : "memory");
  out[0] = p.m;
}
__global__ void asm_writes(Params p, int *out) {
  asm volatile("{ .reg .b64 t; mov.b64 t, %0; st.u32 [t], 1; }" :: "l"(&p.m) : "memory");
  out[0] = p.m;
}
EOF2
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 w.cu -o w.ptx
	assert_success
	! grep -q 'ld\.param\.b8' w.ptx || fail "a byte-by-byte copy: $(grep -c 'ld.param.b8' w.ptx) ld.param.b8"
	[ "$(grep -c 'ld\.param\.v4' w.ptx)" -eq 24 ] || fail "$(grep 'ld.param' w.ptx)"
	"$(ptxas_bin)" -v -arch=sm_90 w.ptx -o /dev/null 2>ptxas.out
	lw=$(frame writes) la=$(frame asm_writes)
	[ "$lw" -gt 0 ] && [ "$la" -gt 0 ] || fail "no copy: $(cat ptxas.out)"
	if [ -x "$(cuda_root)/bin/nvcc" ]; then
		nvcc -ptx -arch=sm_90 w.cu -o nvcc.ptx
		"$(ptxas_bin)" -v -arch=sm_90 nvcc.ptx -o /dev/null 2>ptxas.out
		[ "$lw" -le "$(frame writes)" ] && [ "$la" -le "$(frame asm_writes)" ] ||
			fail "frames $lw and $la, nvcc's $(frame writes) and $(frame asm_writes)"
	fi
}

# bats test_tags=slow
@test "kernel names are nvcc's: static kernels in a namespace, deduced non-type and constrained template parameters, with -ptx and -c" {
	cat >names.cu <<'EOF2'
namespace ns { static __global__ void k(float *p) { *p = 1; } }
static __global__ void k0(float *p) { *p = 2; }
__device__ void f(float *p) { *p = 3; }
template <class T, void (*F)(T *)> __global__ void kt(T *p) { F(p); }
template <class T, T V> __global__ void kdep(T *p) { *p = V; }
template <auto V> __global__ void kauto(int *p) { *p = V; }
template <class T> concept Small = sizeof(T) <= 4;
template <Small T> __global__ void kc(T *p) { *p = 1; }
template <class T> requires (sizeof(T) > 4) __global__ void kr(T *p) { *p = 2; }
void launch(float *p, int *q, double *d) {
  ns::k<<<1, 1>>>(p);
  k0<<<1, 1>>>(p);
  kt<float, f><<<1, 1>>>(p);
  kdep<int, 3><<<1, 1>>>(q);
  kauto<3><<<1, 1>>>(q);
  kc<float><<<1, 1>>>(p);
  kr<double><<<1, 1>>>(d);
}
EOF2
	cat >want <<'EOF2'
_Z1kIfXadL_Z1fPfEEEvPT_
_Z2k0Pf
_Z2kcIfEvPT_
_Z2krIdEvPT_
_Z4kdepIiLi3EEvPT_
_Z5kautoILi3EEvPi
_ZN2ns1kEPf
EOF2
	sed -i 's/_Z1kIf/_Z2ktIf/' want
	sort -o want want
	run --separate-stderr nvcc-lite -std=c++20 -ptx -arch=sm_90 names.cu -o lite.ptx
	assert_success
	entries lite.ptx | diff want -
	if [ -x "$(cuda_root)/bin/nvcc" ]; then
		nvcc -std=c++20 -ptx -arch=sm_90 names.cu -o nvcc.ptx
		entries nvcc.ptx | diff want -
	fi
	[ -n "$(cuda_root)" ] || skip "CUDA is not installed: no -c"
	# -c: the cubin's kernels and the names the host side registers are nvcc's
	run --separate-stderr nvcc-lite -std=c++20 -c -arch=sm_90 -keep-dir kept names.cu -o names.o
	assert_success
	entries kept/names.compute_90.ptx | diff want -
	for n in $(cat want); do
		strings names.o | grep -qx "$n" || fail "$n is not registered: $(strings names.o | grep '^_Z')"
	done
	! strings names.o | grep -q '^_ZN2nsL1kEPf$\|^_ZL2k0Pf$' || fail "clang's names registered"
}

# bats test_tags=slow
@test "a host source compiled by g++ links against a kernel's nvcc name in a -c object, as against nvcc's" {
	[ -n "$(cuda_root)" ] || skip "CUDA is not installed: no -c"
	command -v g++ >/dev/null || skip "g++ is not installed"
	cat >k.cu <<'EOF2'
__device__ void f(float *p) { *p = 3; }
template <class T, void (*F)(T *)> __global__ void kt(T *p) { F(p); }
template __global__ void kt<float, f>(float *);
__global__ void plain(int *p) { *p = 1; }
EOF2
	cat >main.cpp <<'EOF2'
#include <cuda_runtime.h>
void f(float *);
template <class T, void (*F)(T *)> void kt(T *);
void plain(int *);
int main()
{
	float *p = 0;
	int *q = 0;
	void *a[] = { &p }, *b[] = { &q };
	cudaLaunchKernel((const void *)&kt<float, f>, dim3(1), dim3(1), a, 0, 0);
	cudaLaunchKernel((const void *)&plain, dim3(1), dim3(1), b, 0, 0);
	return 0;
}
EOF2
	# a template kernel's stub is static by default, as nvcc's (-static-global-template-stub=true):
	# another unit cannot launch the instantiation (nvcc's program does not link either)
	run --separate-stderr nvcc-lite -c -arch=sm_90 k.cu -o k.o
	assert_success
	nm k.o | grep -q ' t _Z2ktIfXadL_Z1fPfEEEvPT_$' || fail "$(nm k.o)"
	nm k.o | grep -q ' T _Z5plainPi$' || fail "$(nm k.o)"
	run --separate-stderr nvcc-lite -arch=sm_90 k.o main.cpp -o app
	[ "$status" -ne 0 ] || fail "a static stub linked from another unit"
	grep -q "undefined reference to .*kt" <<<"$stderr" || fail "$stderr"
	# =false, and -rdc=true (where nvcc's stubs are never static): one weak stub for the program
	for o in -static-global-template-stub=false -rdc=true; do
		run --separate-stderr nvcc-lite -c -arch=sm_90 k.cu -o k.o $o
		assert_success
		nm k.o | grep -q ' W _Z2ktIfXadL_Z1fPfEEEvPT_$' || fail "$o: $(nm k.o)"
		run --separate-stderr nvcc-lite -arch=sm_90 k.o main.cpp -o app $o
		[ "$status" -eq 0 ] || fail "$o: the program does not link: $stderr"
	done
}

# bats test_tags=slow
@test "the same template kernel instantiated in two units: each unit's own static stub, the program links (-static-global-template-stub)" {
	[ -n "$(cuda_root)" ] || skip "CUDA is not installed: no -c"
	printf 'template <class T> __global__ void tk(T *p) { *p = %s; }\nvoid launch%s(int *q) { tk<<<1, 1>>>(q); }\n' 1 a >a.cu
	printf 'template <class T> __global__ void tk(T *p) { *p = %s; }\nvoid launch%s(int *q) { tk<<<1, 1>>>(q); }\n' 2 b >b.cu
	printf 'void launcha(int *);\nvoid launchb(int *);\nint main() { launcha(0); launchb(0); return 0; }\n' >m.cu
	run --separate-stderr nvcc-lite -arch=sm_90 a.cu b.cu m.cu -o app
	assert_success
	for u in a b; do
		run --separate-stderr nvcc-lite -arch=sm_90 -c $u.cu -o $u.o
		assert_success
		nm $u.o | grep -q ' t _Z2tkIiEvPT_$' || fail "$u: $(nm $u.o)"
		nm $u.o | grep -q ' t _Z17__device_stub__tkIiEvPT_$' || fail "$u: $(nm $u.o)"
	done
}

@test "nvcc's silence on #pragma unroll(4) is nvcc-lite's; a missing return is still said, as nvcc says it" {
	cat >d.cu <<'EOF2'
__global__ void k(float *p) {
#pragma unroll(4)
  for (int i = 0; i < 16; i++) p[i] *= 2;
}
__device__ int g(int x) { if (x) return 1; }
EOF2
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 d.cu -o d.ptx
	assert_success
	[[ "$stderr" != *"cuda-compat"* && "$stderr" != *"parentheses"* ]] || fail "$stderr"
	[[ "$stderr" == *"-Wreturn-type"* ]] || fail "$stderr"
}

# bats test_tags=slow
@test "every C++ standard nvcc takes compiles a kernel with CUDA's vector loads, C++03 included (CMake's CUDA_STANDARD 03)" {
	[ -n "$(cuda_root)" ] || skip "no CUDA installation"
	cat >s.cu <<'EOF2'
__global__ void k(float4 *o, const float4 *i) { o[threadIdx.x] = __ldcs(i + threadIdx.x); }
EOF2
	for std in c++03 c++11 c++14 c++17 c++20; do
		run --separate-stderr nvcc-lite -std=$std -c -arch=sm_90 s.cu -o s.o
		[ "$status" -eq 0 ] || fail "-std=$std: $stderr"
		nm s.o | grep -q '_Z1kP6float4PKS_' || fail "-std=$std: no kernel: $(nm s.o)"
	done
}
