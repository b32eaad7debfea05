#!/usr/bin/env bats
# A host-only function called in device code that is never reached builds,
# as with nvcc: clang lets host-device and template code call CUDA's static
# inline host templates (cudaMalloc<T>) and leaves a declaration no file
# defines; before, ptxas ("Unresolved extern function") or nvlink
# ("Undefined reference to '_ZL10cudaMallocIjE9cudaErrorPPT_m'") failed
# the whole build.  nvcc makes the call unreachable; nvcc-lite, a trap.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	cat >k.cu <<-'EOF'
		template <typename T>
		__host__ __device__ T *alloc_buf(size_t n)
		{
			T *p = nullptr;
			if (n > 100000)
				cudaMalloc(&p, n * sizeof(T));
			return p;
		}
		__global__ void k(unsigned **out, int n) { *out = alloc_buf<unsigned>(n); }
		int main() { unsigned **o; cudaMalloc(&o, 8); k<<<1, 1>>>(o, 3); return 0; }
	EOF
}

@test "-ptx of a call to cudaMalloc<T> in host-device code leaves no undefined function, and ptxas takes it" {
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 k.cu -o k.ptx
	assert_success
	assert_equal "$stderr" ""
	! grep -q 'cudaMalloc' k.ptx || fail "$(grep cudaMalloc k.ptx)"
	grep -q 'trap;' k.ptx
	grep -q 'st.global.b64' k.ptx
	if have_ptxas; then
		"$(ptxas_bin)" -arch=sm_90 k.ptx -o k.cubin
	fi
}

# bats test_tags=slow
@test "-c, a program, and an -rdc=true program with a device link build with the dead call" {
	need_cuda
	run --separate-stderr nvcc-lite -c -arch=sm_90 k.cu -o k.o
	assert_success
	assert_file_exists k.o
	run --separate-stderr nvcc-lite -arch=sm_90 k.cu -o app
	assert_success
	assert_file_exists app
	run --separate-stderr nvcc-lite -rdc=true -arch=sm_90 k.cu -o app-rdc
	assert_success
	assert_file_exists app-rdc
}

@test "an extern __device__ function of another file is still left to nvlink under -rdc=true" {
	cat >a.cu <<-'EOF'
		extern __device__ int twice(int);
		__global__ void k(int *x) { *x = twice(*x); }
	EOF
	run --separate-stderr nvcc-lite -ptx -rdc=true -arch=sm_90 a.cu -o a.ptx
	assert_success
	grep -q '^.extern .func .*_Z5twicei' a.ptx
	! grep -q 'trap;' a.ptx
}
