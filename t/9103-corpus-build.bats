#!/usr/bin/env bats
# bench/corpus-build.sh on a tiny corpus written here, built by stub
# compilers written here (no CUDA needed): a two-file sample with separable
# compilation, one the nvcc-lite stub fails on, one the nvcc stub fails on,
# one that needs a CUDA library and one a package that are not installed,
# and two one-command programs a .corpus-build file declares.  Then, where
# nvcc is, one real two-file rdc program built by nvcc.

load helper

# stub NAME: a "compiler" that logs its argv, fails on a source holding
# FAIL_<NAME> (NAME nvcc or lite), writes objects for -c and an executable
# otherwise; a link of an object from a -rdc=true compile without
# -rdc=true fails, as would a device link that is not done.
stub() {
	cat >"$STUBS/$1" <<-EOF
		#!/bin/sh
		echo "\$*" >>"$STUBS/$1.argv"
		[ "\$*" = --version ] && { echo "$1 stub 1.0"; exit 0; }
		c=0 o=a.out rdc=0 srcs=''
		while [ \$# -gt 0 ]; do
			case \$1 in
			-c) c=1 ;;
			-o) o=\$2; shift ;;
			-rdc=true) rdc=1 ;;
			-*) ;;
			*) srcs="\$srcs \$1" ;;
			esac
			shift
		done
		for s in \$srcs; do
			[ -f "\$s" ] || { echo "$1: \$s: No such file" >&2; exit 1; }
			case \$s in
			*.o) grep -q rdc "\$s" && [ \$rdc = 0 ] && { echo "$1: undefined reference to device code in \$s" >&2; exit 1; } ;;
			*) grep -q FAIL_$1 "\$s" && { echo "\$s:1:1: error: $1 is made to fail here" >&2; echo "1 error" >&2; exit 1; } ;;
			esac
		done
		if [ \$c = 1 ]; then
			echo "object of \$srcs" >"\$o"; [ \$rdc = 1 ] && echo rdc >>"\$o"
		else
			printf '#!/bin/sh\n# %s\n' "$1 \$srcs" >"\$o"; chmod +x "\$o"
		fi
		exit 0
	EOF
	chmod +x "$STUBS/$1"
}

setup_file() {
	export TINY="$BATS_FILE_TMPDIR/tiny" OUT="$BATS_FILE_TMPDIR/out" STUBS="$BATS_FILE_TMPDIR/stubs" RC
	mkdir -p "$STUBS" "$TINY/samples/two" "$TINY/samples/litefail" "$TINY/samples/broken" \
		"$TINY/samples/needsfft" "$TINY/samples/nopkg" "$TINY/tools" "$TINY/samples/notaprogram"
	stub nvcc
	stub lite
	cat >"$TINY/samples/two/CMakeLists.txt" <<-'EOF'
		cmake_minimum_required(VERSION 3.20)
		project(two LANGUAGES CXX CUDA)  # a comment
		find_package(CUDAToolkit REQUIRED)
		include_directories(../../common)
		if(WIN32)
		    add_executable(two_win main.cu windows_only.cpp)
		else()
		    add_executable(two main.cu
		        helper.cpp helper.h)
		endif()
		target_compile_options(two PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda>)
		target_compile_definitions(two PRIVATE TWO_DEF=1)
		set_target_properties(two PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
		target_link_libraries(two PRIVATE CUDA::cudart m)
		if(WIN32)
		    target_link_libraries(two PRIVATE windows.lib)
		endif()
	EOF
	echo '__global__ void k() {}' >"$TINY/samples/two/main.cu"
	echo 'int helper() { return 1; }' >"$TINY/samples/two/helper.cpp"
	printf 'add_executable(litefail k.cu)\n' >"$TINY/samples/litefail/CMakeLists.txt"
	echo '__global__ void k() {} // FAIL_lite' >"$TINY/samples/litefail/k.cu"
	printf 'add_executable(broken k.cu)\n' >"$TINY/samples/broken/CMakeLists.txt"
	echo '__global__ void k() {} // FAIL_nvcc' >"$TINY/samples/broken/k.cu"
	printf 'add_executable(fft fft.cu)\ntarget_link_libraries(fft CUDA::cufft_for_this_test)\n' >"$TINY/samples/needsfft/CMakeLists.txt"
	echo '__global__ void k() {}' >"$TINY/samples/needsfft/fft.cu"
	printf 'find_package(NoSuchPkg)\nif(${NoSuchPkg_FOUND})\n  add_executable(nopkg k.cu)\nendif()\n' >"$TINY/samples/nopkg/CMakeLists.txt"
	echo '__global__ void k() {}' >"$TINY/samples/nopkg/k.cu"
	printf 'add_subdirectory(two)\n' >"$TINY/samples/notaprogram/CMakeLists.txt"
	echo '__global__ void a() {}' >"$TINY/tools/a.cu"
	echo '__global__ void b() {}' >"$TINY/tools/b.cu"
	cat >"$TINY/.corpus-build" <<-'EOF'
		# a Makefile's "%: %.cu" rule
		each tools/*.cu
		mode tools/* onestep
		cflags tools/* -O3
		ldflags tools/* -lcublas
		cflags tools/b -DB_ONLY
	EOF
	printf 'samples/*\t-I$ROOT/common\n' >"$TINY/.corpus-flags"
	RC=0
	PATH="$STUBS:$PATH" CUDA_PATH=/nonexistent NVCC_LITE="$STUBS/lite" \
		sh "$TOP/bench/corpus-build.sh" -j 2 -o "$OUT" "$TINY" \
		>"$BATS_FILE_TMPDIR/stdout" 2>"$BATS_FILE_TMPDIR/stderr" || RC=$?
}

@test "corpus-build.sh: each program's status with both compilers" {
	# nvcc-lite fails on a program nvcc builds
	assert_equal "$RC" 1
	run cat "$OUT/corpus-build.csv"
	assert_line --index 0 "program,status,nvcc,lite,nvcc_ms,lite_ms,nvcc_bytes,lite_bytes,sources,rdc,failed_step,first_error,skipped_for"
	assert_line --regexp '^tiny/samples/two,ok,ok,ok,[0-9]+,[0-9]+,[0-9]+,[0-9]+,2,yes,,,$'
	assert_line --regexp '^tiny/samples/litefail,lite-fail,ok,fail,[0-9]+,-,[0-9]+,-,1,no,compile k\.cu,tiny/samples/litefail/k\.cu:1:1: error: lite is made to fail here,$'
	assert_line --regexp '^tiny/samples/broken,nvcc-fail,fail,-,-,-,-,-,1,no,compile k\.cu,tiny/samples/broken/k\.cu:1:1: error: nvcc is made to fail here,$'
	assert_line 'tiny/samples/needsfft,skipped,-,-,-,-,-,-,1,no,,,needs cudalib cufft_for_this_test'
	assert_line 'tiny/samples/nopkg,skipped,-,-,-,-,-,-,1,no,,,needs NoSuchPkg'
	assert_line --regexp '^tiny/tools/a,ok,ok,ok,'
	assert_line --regexp '^tiny/tools/b,ok,ok,ok,'
	refute_output --partial notaprogram
	refute_output --partial two_win
	run cat "$BATS_FILE_TMPDIR/stderr"
	assert_line --regexp '^lite-fail +tiny/samples/litefail$'
	assert_line --regexp '^skipped +tiny/samples/nopkg$'
}

@test "corpus-build.sh: what CMakeLists.txt and the data files say reaches the compilers" {
	two=$(cd "$TINY/samples/two" && pwd)
	run cat "$STUBS/nvcc.argv"
	# .cu: -rdc=true, the CUDA-only option, the define, the include
	# directories (CMake's, then .corpus-flags'), no header, no Windows source
	assert_line "-c -rdc=true -arch=sm_90 -I$two/../../common -DTWO_DEF=1 -I$two --extended-lambda -I$TINY/common $two/main.cu -o 1-main.cu.o"
	# .cpp: the same compiler with -c, without the CUDA-only flags
	assert_line "-c -arch=sm_90 -I$two/../../common -DTWO_DEF=1 -I$two -I$TINY/common $two/helper.cpp -o 2-helper.cpp.o"
	# linked by the compiler, with -rdc=true and the libraries
	assert_line "-rdc=true -arch=sm_90 1-main.cu.o 2-helper.cpp.o -o app -lm"
	# one command for a "mode onestep" program
	assert_line "-arch=sm_90 -O3 -DB_ONLY $TINY/tools/b.cu -o app -lcublas"
	refute_output --partial windows
	refute_output --partial helper.h
	run cat "$STUBS/lite.argv"
	assert_line "-rdc=true -arch=sm_90 1-main.cu.o 2-helper.cpp.o -o app -lm"
	[ -x "$OUT/corpus-build/tiny/samples/two/lite/app" ]
	run cat "$OUT/corpus-build/tiny/samples/two/nvcc.log"
	assert_line --index 0 --partial "\$ $STUBS/nvcc -c -rdc=true"
}

@test "corpus-build.sh: the Markdown summary" {
	run cat "$OUT/corpus-build.md"
	assert_line "| programs | 7 | 7 |"
	assert_line "| skipped (needs what is not installed) | 2 | 2 |"
	assert_line "| nvcc builds | 4 | 4 |"
	assert_line "| nvcc fails | 1 | 1 |"
	assert_line "| nvcc-lite builds | 3 (75.0%) | 3 (75.0%) |"
	assert_line "| both build | 3 | 3 |"
	assert_line "| 1 | error: lite is made to fail here |"
	assert_line "| tiny/samples/litefail | compile k.cu | tiny/samples/litefail/k.cu:1:1: error: lite is made to fail here |"
	assert_line "| tiny/samples/needsfft | needs cudalib cufft_for_this_test |"
	run cat "$BATS_FILE_TMPDIR/stdout"
	assert_line "| nvcc-lite builds | 3 (75.0%) | 3 (75.0%) |"
	refute_output --partial "## "
}

# bats test_tags=slow
@test "corpus-build.sh: -k, -x and -c choose programs and compilers" {
	# without the program nvcc-lite fails on, the bar is met
	run env PATH="$STUBS:$PATH" CUDA_PATH=/nonexistent NVCC_LITE="$STUBS/lite" \
		sh "$TOP/bench/corpus-build.sh" -x litefail -o "$BATS_TEST_TMPDIR/o" "$TINY"
	assert_success
	run cut -d, -f1-4 "$BATS_TEST_TMPDIR/o/corpus-build.csv"
	refute_output --partial litefail
	assert_line "tiny/samples/two,ok,ok,ok"
	# the baseline: nvcc only, which fails on one program
	run env PATH="$STUBS:$PATH" CUDA_PATH=/nonexistent \
		sh "$TOP/bench/corpus-build.sh" -c nvcc -k 'samples/(two|litefail|broken)' -o "$BATS_TEST_TMPDIR/o" "$TINY"
	assert_failure 1
	run cut -d, -f1-4 "$BATS_TEST_TMPDIR/o/corpus-build.csv"
	assert_output "program,status,nvcc,lite
tiny/samples/broken,nvcc-fail,fail,-
tiny/samples/litefail,ok,ok,-
tiny/samples/two,ok,ok,-"
	# one other compiler only
	run env PATH="$STUBS:$PATH" CUDA_PATH=/nonexistent \
		sh "$TOP/bench/corpus-build.sh" -c "$STUBS/lite" -k 'samples/two' -o "$BATS_TEST_TMPDIR/o" "$TINY"
	assert_success
	run cut -d, -f1-4 "$BATS_TEST_TMPDIR/o/corpus-build.csv"
	assert_line "tiny/samples/two,ok,-,ok"
}

@test "corpus-build.sh refuses what it does not understand" {
	run -2 sh "$TOP/bench/corpus-build.sh" -q "$TINY"
	assert_output "corpus-build: unknown option '-q' (try --help)"
	run -2 sh "$TOP/bench/corpus-build.sh" -j 0 "$TINY"
	assert_output "corpus-build: -j wants a positive count"
	run -2 sh "$TOP/bench/corpus-build.sh"
	assert_output "corpus-build: no corpus directory (try --help)"
	run -0 sh "$TOP/bench/corpus-build.sh" --help
	assert_line --index 0 "bench/corpus-build.sh: whole programs of a corpus built end to end (compile"
	run -2 env PATH="$STUBS:$PATH" sh "$TOP/bench/corpus-build.sh" -c nvcc -o "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR/none"
	assert_output "corpus-build: $BATS_TEST_TMPDIR/none is not a directory"
	mkdir -p "$BATS_TEST_TMPDIR/empty"
	run -2 env PATH="$STUBS:$PATH" sh "$TOP/bench/corpus-build.sh" -c nvcc -o "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR/empty"
	assert_output "corpus-build: no program to build"
}

# bats test_tags=slow
@test "corpus-build.sh: a real two-file rdc program built by nvcc" {
	command -v nvcc >/dev/null 2>&1 || [ -x "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" ] || skip "nvcc is not installed"
	d=$BATS_TEST_TMPDIR/real/rdc
	mkdir -p "$d"
	printf 'add_executable(rdc main.cu dev.cu)\nset_target_properties(rdc PROPERTIES CUDA_SEPARABLE_COMPILATION ON)\n' >"$d/CMakeLists.txt"
	cat >"$d/main.cu" <<-'EOF'
		extern __device__ int twice(int);
		__global__ void k(int *p) { p[threadIdx.x] = twice(threadIdx.x); }
		int main() { int *p; cudaMalloc(&p, 128); k<<<1, 32>>>(p); return cudaDeviceSynchronize(); }
	EOF
	echo '__device__ int twice(int x) { return 2 * x; }' >"$d/dev.cu"
	run sh "$TOP/bench/corpus-build.sh" -c nvcc -o "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR/real"
	assert_success
	run cut -d, -f1-4,9,10 "$BATS_TEST_TMPDIR/o/corpus-build.csv"
	assert_line "real/rdc,ok,ok,-,2,yes"
	[ -x "$BATS_TEST_TMPDIR/o/corpus-build/real/rdc/nvcc/app" ]
	# two -rdc=true compiles, then the link by nvcc (which device-links)
	run grep -c '^\$ .*nvcc -c -rdc=true ' "$BATS_TEST_TMPDIR/o/corpus-build/real/rdc/nvcc.log"
	assert_output 2
	run grep '^\$ ' "$BATS_TEST_TMPDIR/o/corpus-build/real/rdc/nvcc.log"
	assert_line --index 2 --regexp 'nvcc -rdc=true -arch=sm_90 +1-main\.cu\.o 2-dev\.cu\.o -o app$'

}
