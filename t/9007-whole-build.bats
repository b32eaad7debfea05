#!/usr/bin/env bats
# nvcc-lite builds whole programs as nvcc does: -c objects with our device
# code in an embedded fatbin, -fatbin, links with cudart, -dc/-rdc and
# device links with nvlink, a Makefile of three sources under make -j3.
# Nothing here runs a GPU: objects and programs are read with readelf and
# nm.  Needs CUDA (ptxas, fatbinary, nvlink, cudart); without it only the
# one-line refusal is checked.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	cat >k.cu <<-'EOF'
		#include <cstdio>
		__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }
		static __global__ void bump(int *x) { x[threadIdx.x] += 1; }
		template <typename T> __global__ void fill(T *x, T v) { x[threadIdx.x] = v; }
		int main()
		{
			float *f; int *i;
			cudaMalloc(&f, 128); cudaMalloc(&i, 128);
			scale<<<1, 32>>>(f, 2.0f);
			bump<<<1, 32>>>(i);
			fill<<<1, 32>>>(i, 7);
			printf("%d\n", (int)cudaDeviceSynchronize());
			return 0;
		}
	EOF
}

# bats test_tags=slow
@test "-c writes a host object whose fatbin holds our kernels, registered under nvcc's names" {
	need_cuda
	run --separate-stderr nvcc-lite -c -arch=sm_90 k.cu
	assert_success
	assert_equal "$stderr" ""
	assert_file_exists k.o
	run readelf -SW k.o
	assert_output --partial ".nv_fatbin"
	run nm k.o
	assert_output --partial "U __cudaRegisterFatBinary"
	assert_output --partial "U __cudaRegisterFunction"
	assert_output --regexp "T main"
	# the names the host registers are the names in the cubin, nvcc's
	run strings k.o
	assert_output --partial "_Z5scalePff"
	assert_output --partial "_Z4bumpPi"
	refute_output --partial "_ZL4bumpPi"
	assert_output --partial "_Z4fillIiEvPT_S0_"
}

# bats test_tags=slow
@test "-keep keeps the PTX of each virtual arch, the cubin of each GPU and the fatbin" {
	need_cuda
	run nvcc-lite -c -keep -gencode arch=compute_80,code=sm_80 \
		-gencode 'arch=compute_90,code=[sm_90,compute_90]' k.cu -o k.o
	assert_success
	assert_file_exists k.o
	for f in k.compute_80.ptx k.compute_90.ptx k.sm_80.cubin k.sm_90.cubin k.fatbin; do
		assert_file_exists "$f"
	done
	grep -q '^\.target sm_80' k.compute_80.ptx
	grep -q '^\.target sm_90' k.compute_90.ptx
	# our PTX, with nvcc's name for the static kernel
	grep -q '\.entry _Z4bumpPi' k.compute_90.ptx
	run readelf -h k.sm_80.cubin
	assert_output --partial "NVIDIA CUDA"
	# the fatbin holds both cubins and the one PTX that was asked for
	run nvcc-lite -dryrun -c -gencode arch=compute_80,code=sm_80 \
		-gencode 'arch=compute_90,code=[sm_90,compute_90]' k.cu
	assert_output --regexp "fatbinary -64 --create [^ ]*k.fatbin\"? --image3=kind=elf,sm=80,file=[^ ]*k.sm_80.cubin\"? --image3=kind=elf,sm=90,file=[^ ]*k.sm_90.cubin\"? --image3=kind=ptx,sm=90,file=[^ ]*k.compute_90.ptx"
	refute_output --partial "kind=ptx,sm=80"
}

@test "-arch, -code and -gencode mean what they mean to nvcc" {
	need_cuda
	run nvcc-lite -dryrun -c -arch=compute_80 k.cu
	assert_success
	refute_output --partial "ptxas"
	assert_output --regexp "--image3=kind=ptx,sm=80,"
	run nvcc-lite -dryrun -c -arch=compute_80 -code=sm_80,sm_90 k.cu
	assert_output --regexp "ptxas -arch=sm_80 .*ptxas -arch=sm_90"
	refute_output --partial "kind=ptx"
	run --separate-stderr nvcc-lite -c -gencode arch=sm_90,code=sm_90 k.cu
	assert_equal "$status" 1
	assert_one_error nvcc-lite
	run --separate-stderr nvcc-lite -c -gencode arch=compute_90,code=sm_80 k.cu
	assert_equal "$status" 1
	assert_one_error nvcc-lite
	assert_file_not_exists k.o
}

# bats test_tags=slow
@test "nvcc-lite links objects into a program with cudart static (the default), shared or none" {
	need_cuda
	nvcc-lite -c -arch=sm_90 k.cu -o k.o
	run nvcc-lite k.o -o app
	assert_success
	run readelf -d app
	refute_output --partial "libcudart.so"
	nm app | grep -q 'T cudaLaunchKernel'
	run nvcc-lite -cudart shared k.o -o app2
	assert_success
	run readelf -d app2
	assert_output --partial "libcudart.so"
	run --separate-stderr nvcc-lite -cudart none k.o -o app3
	assert_equal "$status" 1
	assert_file_not_exists app3
	run nvcc-lite -cudart=none k.o -o app3 -L/usr/local/cuda/lib64 -lcudart
	assert_success
	run readelf -d app3
	assert_output --partial "libcudart.so"
}

# bats test_tags=slow
@test "one step from sources to a program, a.out by default, with a .cpp compiled by the host compiler" {
	need_cuda
	cat >host.cpp <<-'EOF'
		int twice(int v) { return 2 * v; }
	EOF
	run nvcc-lite -arch=sm_90 k.cu host.cpp
	assert_success
	assert_file_exists a.out
	nm a.out | grep -q '_Z5twicei'
	nm a.out | grep -q 'T main'
	# no object of the one-step build is left behind
	assert_file_not_exists k.o
	assert_file_not_exists host.o
}

# bats test_tags=slow
@test "-dc objects are device-linked by nvlink when the program is linked" {
	need_cuda
	cat >a.cu <<-'EOF'
		__device__ int twice(int);
		__global__ void k(int *x) { x[threadIdx.x] = twice(threadIdx.x); }
		int main() { int *d; cudaMalloc(&d, 128); k<<<1, 32>>>(d); return cudaDeviceSynchronize(); }
	EOF
	cat >b.cu <<-'EOF'
		__device__ int twice(int v) { return 2 * v; }
	EOF
	nvcc-lite -dc -arch=sm_90 a.cu
	nvcc-lite -rdc=true -c -arch=sm_90 b.cu
	run readelf -SW a.o
	assert_output --partial "__nv_relfatbin"
	run nvcc-lite -arch=sm_90 a.o b.o -o app
	assert_success
	nm app | grep -q '__cudaRegisterLinkedBinary'
	# without b.o the device link names what is missing, writes nothing, and
	# nvcc-lite exits with nvlink's status, as nvcc does
	run --separate-stderr nvcc-lite -arch=sm_90 a.o -o app2
	assert_equal "$status" 255
	assert_output ""
	[[ "$stderr" == *"_Z5twicei"* ]]
	assert_file_not_exists app2
}

# bats test_tags=slow
@test "-dlink writes the device link of -dc objects as one host object" {
	need_cuda
	cat >a.cu <<-'EOF'
		__device__ int twice(int);
		__global__ void k(int *x) { x[threadIdx.x] = twice(threadIdx.x); }
	EOF
	cat >b.cu <<-'EOF'
		__device__ int twice(int v) { return 2 * v; }
	EOF
	nvcc-lite -dc -arch=sm_90 a.cu b.cu
	run nvcc-lite -dlink -arch=sm_90 a.o b.o -o dl.o
	assert_success
	run nm dl.o
	assert_output --regexp "T __cudaRegisterLinkedBinary"
}

@test "a kernel launching a kernel builds with -rdc=true and links libcudadevrt" {
	need_cuda
	cat >dp.cu <<-'EOF'
		__global__ void child(int *x) { x[threadIdx.x] = 1; }
		__global__ void parent(int *x) { child<<<1, 32>>>(x); }
		int main() { int *d; cudaMalloc(&d, 128); parent<<<1, 1>>>(d); return cudaDeviceSynchronize(); }
	EOF
	run nvcc-lite -rdc=true -arch=sm_90 dp.cu -o dp
	assert_success
	assert_file_exists dp
}

@test "-fatbin writes a fatbin of our device code" {
	need_cuda
	run nvcc-lite -fatbin -arch=sm_90 k.cu
	assert_success
	assert_file_exists k.fatbin
	# fatbin magic 0xBA55ED50, little-endian
	run od -An -tx4 -N4 k.fatbin
	assert_output --partial "ba55ed50"
}

@test "-dryrun prints every command, ours and CUDA's, and the script builds the program" {
	need_cuda
	run --separate-stderr nvcc-lite -dryrun -arch=sm_90 k.cu -o app
	assert_success
	for tool in clang-22 nv-link nv-llc ptxas fatbinary "--cuda-host-only"; do
		assert_output --partial "$tool"
	done
	assert_file_not_exists app
	printf '%s\n' "$output" >build.sh
	run sh build.sh
	assert_success
	assert_file_exists app
	nm app | grep -q 'T main'
}

@test "-MD with -c writes the object's dependency file" {
	need_cuda
	run nvcc-lite -c -MD -arch=sm_90 k.cu -o obj.o
	assert_success
	assert_file_exists obj.d
	run head -1 obj.d
	assert_output --regexp "^obj.o: .*k.cu"
}

# bats test_tags=slow
@test "a Makefile of three sources builds with make -j3" {
	need_cuda
	for n in 1 2 3; do
		cat >"s$n.cu" <<-EOF
			__global__ void k$n(int *x) { x[threadIdx.x] = $n; }
			void launch$n(int *d) { k$n<<<1, 32>>>(d); }
		EOF
	done
	cat >main.cu <<-'EOF'
		void launch1(int *); void launch2(int *); void launch3(int *);
		int main() { int *d; cudaMalloc(&d, 128); launch1(d); launch2(d); launch3(d); return cudaDeviceSynchronize(); }
	EOF
	printf '%s\n' 'NVCC = nvcc-lite' 'OBJ = s1.o s2.o s3.o main.o' 'app: $(OBJ)' \
		'	$(NVCC) -arch=sm_90 $(OBJ) -o $@' '%.o: %.cu' '	$(NVCC) -arch=sm_90 -MMD -c $< -o $@' \
		'-include $(OBJ:.o=.d)' >Makefile
	run make -j3
	assert_success
	assert_file_exists app
	for n in 1 2 3; do
		nm app | grep -q "__device_stub__k${n}Pi"
		assert_file_exists "s$n.d"
	done
	run make -q app
	assert_success
}

@test "without CUDA, -c and linking fail with one line naming what is missing" {
	run --separate-stderr env CUDA_PATH=/nonexistent nvcc-lite -c -arch=sm_90 k.cu
	assert_equal "$status" 1
	assert_one_error nvcc-lite
	[[ "$stderr" == *CUDA* ]]
	assert_file_not_exists k.o
	run --separate-stderr env CUDA_PATH=/nonexistent nvcc-lite -arch=sm_90 k.cu -o app
	assert_equal "$status" 1
	assert_one_error nvcc-lite
	assert_file_not_exists app
}

@test "flags that need a link or one output refuse what cannot be, in one line" {
	run --separate-stderr nvcc-lite -c k.cu k.cu -o x.o
	assert_equal "$status" 1
	assert_one_error nvcc-lite
	run --separate-stderr nvcc-lite -ptx -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 k.cu
	assert_equal "$status" 1
	assert_one_error nvcc-lite
	run --separate-stderr nvcc-lite -cudart static2 k.o
	assert_equal "$status" 1
	assert_one_error nvcc-lite
}

# bats test_tags=slow
@test "CMake takes nvcc-lite by path alone, as nvcc: identification, toolkit, directories, default arch and standard, separable compilation" {
	need_cuda
	command -v cmake >/dev/null || skip "cmake is not installed"
	cat >CMakeLists.txt <<-'EOF2'
		cmake_minimum_required(VERSION 3.20)
		project(x LANGUAGES CXX CUDA)
		find_package(CUDAToolkit REQUIRED)
		add_executable(app k.cu)
		add_executable(app_rdc a.cu b.cu)
		set_target_properties(app_rdc PROPERTIES CUDA_SEPARABLE_COMPILATION ON CUDA_ARCHITECTURES 90)
		target_link_libraries(app_rdc CUDA::cudart_static)
		file(WRITE "${CMAKE_BINARY_DIR}/seen.txt" "id=${CMAKE_CUDA_COMPILER_ID} tk=${CMAKE_CUDA_COMPILER_TOOLKIT_VERSION} arch=${CMAKE_CUDA_ARCHITECTURES} std=${CMAKE_CUDA_STANDARD_DEFAULT} cudart=${CUDAToolkit_VERSION}\ninc=${CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES}\n")
	EOF2
	printf '__device__ int twice(int);\n__global__ void kk(int *x) { x[0] = twice(1); }\nint main() { kk<<<1, 1>>>(0); return 0; }\n' >a.cu
	printf '__device__ int twice(int v) { return 2 * v; }\n' >b.cu
	local v
	v=$(nvcc-lite --version | sed -n 's/.*, V\([0-9.]*\) .*/\1/p')
	run cmake -DCMAKE_CUDA_COMPILER="$TOP/bin/nvcc-lite" -S . -B build
	assert_success
	assert_output --partial "The CUDA compiler identification is NVIDIA $v"
	# what CMake read: nvcc's kind and version, the toolkit's version from
	# --version, nvcc's default architecture and the C++ standard from the
	# probe, the include directories from -v's INCLUDES (no -isystem word)
	run cat build/seen.txt
	assert_line "id=NVIDIA tk=$v arch=75 std=17 cudart=$v"
	assert_line --regexp '^inc=/[^;]*/include$'
	# make -j4 of CMake's Makefiles (no '+' on their recipe lines): nothing
	# on stderr from nvcc-lite, as from nvcc
	run --separate-stderr cmake --build build -j4
	assert_success
	assert_output --partial "Linking CUDA device code"
	assert_equal "$stderr" ""
	nm build/app | grep -q '__device_stub__5scale\|__device_stub__scale'
	nm build/app_rdc | grep -q '__cudaRegisterLinkedBinary'
	# the objects are nvcc-lite's: clang's host side registers the fatbin
	nm build/CMakeFiles/app.dir/k.cu.o | grep -q '__cuda_register_globals'
	# the initial cache names the same compiler
	run cmake -C "$TOP/share/nvcc-lite/nvcc-lite.cmake" -S . -B build2
	assert_success
	assert_output --partial "The CUDA compiler identification is NVIDIA $v"
}

# bats test_tags=slow
@test "-c's host compile has header cache entries of its own, built on second use, and the object is the same bytes without them" {
	need_cuda
	export NVCC_LITE_CACHE_DIR=$PWD/cache
	nvcc-lite -c -arch=sm_90 k.cu -o first.o
	# the first compile builds the device side's command entry and marks
	# the source's preamble (#include <cstdio>), device and host, and the
	# host's command entry seen
	assert_equal "$(ls cache/*.pch | wc -l)" 1
	assert_equal "$(ls cache/*.seen | wc -l)" 3
	# the second builds both preamble entries, each whole (the host's
	# command entry is not needed by this source, and not built)
	run --separate-stderr nvcc-lite -v -c -arch=sm_90 k.cu -o second.o
	assert_success
	assert_equal "$(ls cache/*.pch | wc -l)" 3
	run --separate-stderr nvcc-lite -v -c -arch=sm_90 k.cu -o cached.o
	assert_success
	! grep -q -- '-emit-pch' <<<"$stderr" || fail "built again: $stderr"
	for side in --cuda-host-only --cuda-device-only; do
		printf '%s\n' "$stderr" | grep -- "$side" | grep -q -- '-include-pch .* -preamble-bytes=18,1' ||
			fail "$side: no preamble entry: $stderr"
	done
	nvcc-lite -no-cache -c -arch=sm_90 k.cu -o plain.o
	cmp cached.o plain.o
	cmp second.o plain.o
	cmp first.o plain.o
	# the command's host entry, for a source without a preamble
	sed 1d k.cu >n.cu
	nvcc-lite -c -arch=sm_90 -include cstdio n.cu -o n1.o
	run --separate-stderr nvcc-lite -v -c -arch=sm_90 -include cstdio n.cu -o n2.o
	printf '%s\n' "$stderr" | grep -- '--cuda-host-only' | grep -v -- '-emit-pch' | grep -q -- '-include-pch'
	nvcc-lite -no-cache -c -arch=sm_90 -include cstdio n.cu -o n.o
	cmp n.o n2.o
}

@test "-lib archives the objects of its inputs, and a program links against the library" {
	need_cuda
	printf 'int half(int v) { return v / 2; }\n' >h.c
	run nvcc-lite -lib -arch=sm_90 k.cu h.c -o libk.a
	assert_success
	run ar t libk.a
	assert_output --regexp "k\.o"
	assert_output --regexp "h\.o"
	printf 'int unused;\n' >u.c
	run nvcc-lite -arch=sm_90 u.c -L. -lk -o app
	assert_success
	nm app | grep -q 'T main'
	nm libk.a | grep -q 'T half'
	nm app | grep -q 'T main'
}

@test "-M prints make's dependencies of a source, its target the object, and compiles nothing" {
	run --separate-stderr nvcc-lite -M -arch=sm_90 k.cu
	assert_success
	assert_output --regexp "^k\.o: k\.cu"
	assert_file_not_exists k.o
	assert_file_not_exists a.out
	run nvcc-lite -M -arch=sm_90 k.cu -o deps.mk
	assert_success
	run head -1 deps.mk
	assert_output --regexp "^k\.o: k\.cu"
}

@test "-shared links a shared library of position-independent objects" {
	need_cuda
	run nvcc-lite -shared -Xcompiler -fPIC -arch=sm_90 k.cu -o libk.so
	assert_success
	run readelf -h libk.so
	assert_output --partial "DYN"
	nm -D libk.so | grep -q 'T main'
}

@test "-run links the program and runs it with -run-args; a failing program's status is nvcc-lite's, unsaid as nvcc's" {
	need_cuda
	printf '#include <cstdio>\nint main(int c, char **v) { printf("hello %%s\\n", c > 1 ? v[1] : "none"); return 0; }\n' >hello.cpp
	run --separate-stderr nvcc-lite -run -run-args world hello.cpp -o hello
	assert_success
	assert_output "hello world"
	printf 'int main() { return 3; }\n' >fail.cpp
	run --separate-stderr nvcc-lite -run fail.cpp -o failing
	assert_equal "$status" 3
	assert_equal "$stderr" ""
}

@test "-E writes the device side of a source preprocessed, as nvcc -E, CUDA's runtime header included" {
	need_cuda
	printf '#ifdef __CUDA_ARCH__\nint arch = __CUDA_ARCH__;\n#else\nint host_side;\n#endif\n' >>k.cu
	run --separate-stderr nvcc-lite -E -arch=sm_90 k.cu -o k.ii
	assert_success
	grep -q 'int main()' k.ii
	grep -q 'cudaLaunchKernel' k.ii
	grep -q '^int arch = 900;' k.ii
	! grep -q host_side k.ii
	assert_file_not_exists a.out
}

@test "a missing host compiler is one line before anything runs; a garbage object fails the link and leaves no program" {
	printf 'int twice(int v) { return 2 * v; }\n' >h.cpp
	run --separate-stderr nvcc-lite -ccbin /nonexistent/gcc -c h.cpp -o h.o
	assert_equal "$status" 1
	assert_one_error nvcc-lite
	[[ "$stderr" == *"'/nonexistent/g++'"* ]] || fail "$stderr"
	assert_file_not_exists h.o
	printf 'not an object\n' >junk.o
	run --separate-stderr nvcc-lite -cudart none junk.o -o app
	assert_equal "$status" 1
	[ -n "$stderr" ]
	assert_file_not_exists app
	need_cuda
	run --separate-stderr nvcc-lite -arch=sm_90 junk.o -o app
	assert_equal "$status" 1
	[ -n "$stderr" ]
	assert_file_not_exists app
}

# bats test_tags=slow
@test "a source on standard input, as nvcc takes it (-x cu -): compiled, outputs named stdin.*, nothing left behind" {
	need_cuda
	mkdir tmp
	printf '__global__ void seven(int *p) { *p = 7; }\n' | TMPDIR=$PWD/tmp nvcc-lite -c -arch=sm_90 -x cu -
	nm stdin.o | grep -q '__device_stub__5seven\|_Z5sevenPi' || fail "$(nm stdin.o)"
	run --separate-stderr sh -c "printf '__global__ void seven(int *p) { *p = 7; }\n' | nvcc-lite -ptx -arch=sm_90 -x cu - -o -"
	assert_success
	[[ "$output" == *".entry _Z5sevenPi"* ]] || fail "$output"
	[ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(find tmp)"
	run --separate-stderr sh -c "echo 'int x;' | nvcc-lite -c -"
	assert_failure
	assert_one_error nvcc-lite
}
