#!/usr/bin/env bats
# The benchmark: every kernel's //@ spec against its PTX, bench/run.sh's
# report, and bench-gpu's whole path on a mock driver (no GPU in CI).

load helper

setup_file() {
	export GPU MOCK KDIR
	GPU="$BATS_FILE_TMPDIR/bench-gpu"
	MOCK="$BATS_FILE_TMPDIR/libmockcuda.so"
	KDIR="$BATS_FILE_TMPDIR/k"
	cc -std=c17 -Wall -Wextra -Werror -O1 -D_GNU_SOURCE "$TOP/bench/gpu.c" -o "$GPU" -ldl -lm
	cc -std=c17 -Wall -Wno-unused-parameter -O1 -shared -fPIC "$FIXTURES/mockcuda.c" -o "$MOCK"
	# A tiny two-kernel benchmark: "lite" from nvcc-lite -O3, and an "nvcc"
	# stand-in (nvcc-lite -O0 without LLVM's banner, which the mock reads).
	mkdir -p "$KDIR/src" "$KDIR/lite" "$KDIR/nvcc"
	cp "$TOP/bench/kernels/saxpy_vec4.cu" "$TOP/bench/kernels/histogram_shared.cu" "$KDIR/src/"
	for k in saxpy_vec4 histogram_shared; do
		CUDA_PATH=/nonexistent nvcc-lite -ptx -arch=sm_90 -O3 "$KDIR/src/$k.cu" -o "$KDIR/lite/$k.ptx"
		CUDA_PATH=/nonexistent nvcc-lite -ptx -arch=sm_90 -O0 "$KDIR/src/$k.cu" -o - |
			grep -v LLVM >"$KDIR/nvcc/$k.ptx"
	done
}

# bats test_tags=slow
@test "there are at least 25 kernels, each one kernel with a spec that matches its PTX" {
	local n=0 out="$BATS_TEST_TMPDIR/lite"
	mkdir -p "$out/lite" "$out/nvcc"
	for cu in "$TOP"/bench/kernels/*.cu; do
		k=$(basename "$cu" .cu)
		n=$((n + 1))
		assert_equal "$(grep -c '^//@ kernel ' "$cu")" 1
		# the shim stands in for CUDA: the kernels build on a machine without it
		CUDA_PATH=/nonexistent nvcc-lite -ptx -arch=sm_90 -O3 "$cu" -o "$out/lite/$k.ptx"
		cp "$out/lite/$k.ptx" "$out/nvcc/$k.ptx"
		if have_ptxas; then
			"$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)" -arch=sm_90 "$out/lite/$k.ptx" -o /dev/null
		fi
	done
	[ "$n" -ge 25 ]
	run "$GPU" --check -d "$out" "$TOP"/bench/kernels/*.cu
	assert_success
	assert_output ""
}

@test "a spec that disagrees with the PTX is one clear error" {
	mkdir -p "$BATS_TEST_TMPDIR/src"
	sed '/^\/\/@ arg val i32/d' "$KDIR/src/saxpy_vec4.cu" >"$BATS_TEST_TMPDIR/src/saxpy_vec4.cu"
	run -1 "$GPU" --check -d "$KDIR" "$BATS_TEST_TMPDIR/src/saxpy_vec4.cu"
	assert_output --partial "bench-gpu: $KDIR/nvcc/saxpy_vec4.ptx: saxpy_vec4 has more parameters than its 3 //@ arg lines"
	sed 's/^\/\/@ arg val i32 .*/\/\/@ arg val i64 5/' "$KDIR/src/saxpy_vec4.cu" >"$BATS_TEST_TMPDIR/src/saxpy_vec4.cu"
	run -1 "$GPU" --check -d "$KDIR" "$BATS_TEST_TMPDIR/src/saxpy_vec4.cu"
	assert_output --partial "saxpy_vec4 parameter 3 is 4 bytes in the PTX, 8 in the spec"
	sed 's/^\/\/@ arg inout f32 .*/\/\/@ arg inout f33 8/' "$KDIR/src/saxpy_vec4.cu" >"$BATS_TEST_TMPDIR/src/saxpy_vec4.cu"
	run -1 "$GPU" --check -d "$KDIR" "$BATS_TEST_TMPDIR/src/saxpy_vec4.cu"
	assert_output "bench-gpu: $BATS_TEST_TMPDIR/src/saxpy_vec4.cu:6: bad //@ line (see bench/README.md)"
	run -1 "$GPU" --check -d "$BATS_TEST_TMPDIR/nothing" "$KDIR/src/saxpy_vec4.cu"
	assert_line "bench-gpu: saxpy_vec4: cannot read $BATS_TEST_TMPDIR/nothing/nvcc/saxpy_vec4.ptx (run bench/run.sh first)"
	: >"$BATS_TEST_TMPDIR/src/empty.cu"
	run -1 "$GPU" --check -d "$KDIR" "$BATS_TEST_TMPDIR/src/empty.cu"
	assert_output "bench-gpu: $BATS_TEST_TMPDIR/src/empty.cu: needs //@ kernel, //@ grid and //@ block lines"
	run -2 "$GPU" -r 0 "$KDIR/src/saxpy_vec4.cu"
	assert_output "bench-gpu: -r wants a count from 1 to 10000"
}

@test "bench-gpu without a driver, or without a device, says so and succeeds" {
	BENCH_LIBCUDA=/nonexistent/libcuda.so.1 run "$GPU" -d "$KDIR" "$KDIR/src/saxpy_vec4.cu"
	assert_success
	assert_output --regexp '^bench-gpu: no CUDA driver here \(.*\); skipped$'
	MOCK_CUDA_NODEV=1 BENCH_LIBCUDA=$MOCK run "$GPU" -d "$KDIR" "$KDIR/src/saxpy_vec4.cu"
	assert_success
	assert_output "bench-gpu: no usable GPU (mock error); skipped"
}

@test "bench-gpu runs both compilers' PTX, compares outputs and reports time ratios" {
	BENCH_LIBCUDA=$MOCK run "$GPU" -r 5 -d "$KDIR" "$KDIR/src/saxpy_vec4.cu" "$KDIR/src/histogram_shared.cu"
	assert_success
	assert_line --index 0 "GPU: Mock GPU; median of 5 launches"
	# the mock's LLVM modules take 0.25 ms, the others 0.5 ms
	assert_line --regexp '^saxpy_vec4 +0\.5000 +0\.2500 +0\.0000 +0\.500 +0\.000  agree$'
	assert_line --regexp '^histogram_shared +0\.5000 +0\.2500 .* agree$'
	assert_line --regexp '^geomean +0\.500 '
	assert_file_exists "$KDIR/gpu.csv"
	run cat "$KDIR/gpu.csv"
	assert_line "saxpy_vec4,0.50000,0.25000,0.00000,0,0"
}

@test "bench-gpu fails, naming the kernel, when nvcc-lite's outputs differ" {
	MOCK_CUDA_WRONG=1 BENCH_LIBCUDA=$MOCK run -1 "$GPU" -r 1 -d "$KDIR" "$KDIR/src/histogram_shared.cu"
	# the first element of the input and of the output buffer are flipped; the output is compared
	assert_line --regexp '^histogram_shared .* lite: 1 differ \(worst inf\)$'
}

# bats test_tags=slow
@test "bench/run.sh reports every metric for each compiler, in a table, CSV and Markdown" {
	run sh "$TOP/bench/run.sh" -k saxpy_vec4 -r 1 -o "$BATS_TEST_TMPDIR/out"
	assert_success
	assert_line --regexp '^saxpy_vec4 +[0-9]+/'
	run cat "$BATS_TEST_TMPDIR/out/bench.csv"
	assert_line --index 0 "kernel,compiler,regs,spill_bytes,stack_bytes,ptx_insts,vec_mem_insts,compile_ms"
	# -O3 keeps saxpy's float4 loads and stores: 2 ld.v4 and 1 st.v4
	if have_ptxas; then
		assert_line --regexp '^saxpy_vec4,lite,[0-9]+,0,0,[0-9]+,3,[0-9]+$'
	else
		assert_line --regexp '^saxpy_vec4,lite,-,-,-,[0-9]+,3,[0-9]+$'
	fi
	assert_line --regexp '^saxpy_vec4,lite-O0,'
	assert_file_exists "$BATS_TEST_TMPDIR/out/bench.md"
	assert_file_exists "$BATS_TEST_TMPDIR/out/lite/saxpy_vec4.ptx"
}

@test "bench/run.sh refuses what it does not understand" {
	run -2 sh "$TOP/bench/run.sh" -x
	assert_output "bench: unknown option '-x' (try --help)"
	run -2 sh "$TOP/bench/run.sh" -k no_such_kernel -o "$BATS_TEST_TMPDIR/out"
	assert_output "bench: no kernel matches 'no_such_kernel'"
	run -2 sh "$TOP/bench/run.sh" -r 0
	assert_output "bench: -r wants a positive count"
}
