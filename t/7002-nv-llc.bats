#!/usr/bin/env bats
# nv-llc: PTX for one sm_XX, register limits, line info, cubin via ptxas.

load helper

setup_file() {
	export BC O3
	BC=$(fixture_bc saxpy)
	O3="$BATS_FILE_TMPDIR/saxpy.O3.bc"
	nv-opt -O3 "$BC" -o "$O3"
}

@test "nv-llc writes PTX for the requested sm_XX" {
	run nv-llc -arch=sm_90 "$O3"
	assert_success
	assert_line ".target sm_90"
	assert_line ".address_size 64"
	assert_output --partial ".visible .entry _Z5saxpyifPKfPf("
}

@test "nv-llc defaults to sm_75 like nvcc 13" {
	run nv-llc "$O3"
	assert_success
	assert_line ".target sm_75"
}

@test "nv-llc accepts compute_XX as the same GPU and rejects unknown ones" {
	run nv-llc -arch=compute_80 "$O3"
	assert_success
	assert_line ".target sm_80"
	run --separate-stderr nv-llc -arch=sm_70 </dev/null
	assert_equal "$status" 2
	assert_one_error nv-llc
}

@test "ptxas accepts nv-llc's PTX at every -O level and on unoptimized input" {
	have_ptxas || skip "ptxas is not installed"
	for o in 0 1 2 3; do
		for in in "$BC" "$O3"; do
			nv-llc -arch=sm_90 -O$o "$in" -o "$BATS_TEST_TMPDIR/k.ptx"
			run "$(ptxas_bin)" -arch=sm_90 "$BATS_TEST_TMPDIR/k.ptx" -o /dev/null
			[ "$status" -eq 0 ] || fail "-O$o $in: $output"
		done
	done
}

@test "-maxrregcount puts .maxnreg on kernels and rejects 0" {
	run nv-llc -arch=sm_90 -maxrregcount=24 "$O3"
	assert_success
	assert_line ".maxnreg 24"
	run --separate-stderr nv-llc -maxrregcount=0 </dev/null
	assert_equal "$status" 2
}

@test "-lineinfo keeps .loc line tables; without it there are none" {
	CUDA_PATH=/nonexistent clang-22 -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 -nocudalib \
		-nocudainc -include "$TOP/share/nvcc-lite/cuda_shim.h" -O3 -Xclang -disable-llvm-passes \
		-gline-tables-only -emit-llvm -c "$FIXTURES/saxpy.cu" -o "$BATS_TEST_TMPDIR/g.bc"
	run nv-llc -arch=sm_90 -lineinfo "$BATS_TEST_TMPDIR/g.bc"
	assert_success
	assert_output --regexp $'\t\\.loc\t[0-9]+ [0-9]+ [0-9]+'
	assert_output --partial ".file"
	run nv-llc -arch=sm_90 "$BATS_TEST_TMPDIR/g.bc"
	assert_success
	refute_output --partial ".loc"
}

@test "-cubin runs ptxas and writes an ELF cubin" {
	have_ptxas || skip "ptxas is not installed"
	run nv-llc -arch=sm_90 -cubin "$O3" -o "$BATS_TEST_TMPDIR/k.cubin"
	assert_success
	[ "$(head -c 4 "$BATS_TEST_TMPDIR/k.cubin" | od -An -c | tr -d ' ')" = '177ELF' ]
}

@test "-cubin without ptxas is one clear error" {
	run --separate-stderr env PATH=/usr/bin:/bin CUDA_PATH=/nonexistent \
		"$TOP/bin/nv-llc" -cubin "$O3" -o "$BATS_TEST_TMPDIR/k.cubin"
	assert_equal "$status" 1
	assert_equal "$stderr" "nv-llc: error: -cubin needs ptxas, which was not found (set CUDA_PATH or PATH)"
	assert_file_not_exists "$BATS_TEST_TMPDIR/k.cubin"
}

@test "nv-llc refuses a module for another target" {
	run --separate-stderr nv-llc "$FIXTURES/host.ll"
	assert_equal "$status" 1
	assert_equal "$stderr" "nv-llc: error: module is for target 'x86_64-pc-linux-gnu', not nvptx64-nvidia-cuda"
}

@test "a module without a triple is taken as nvptx64" {
	printf 'define ptx_kernel void @k(ptr %%p) {\n  store i32 7, ptr %%p\n  ret void\n}\n' >"$BATS_TEST_TMPDIR/bare.ll"
	run nv-llc -arch=sm_90 "$BATS_TEST_TMPDIR/bare.ll"
	assert_success
	assert_output --partial ".visible .entry k("
}

@test "an error the backend reports as a diagnostic fails the run" {
	run --separate-stderr nv-llc -arch=sm_90 "$FIXTURES/asm-bad-constraint.ll" -o "$BATS_TEST_TMPDIR/a.ptx"
	assert_equal "$status" 1
	assert_equal "$stderr" "nv-llc: error: cannot generate PTX: couldn't allocate output register for constraint 'Z'"
	assert_file_not_exists "$BATS_TEST_TMPDIR/a.ptx"
}

@test "a fatal error inside LLVM is one line and exit 1, not an abort" {
	run --separate-stderr nv-llc -arch=sm_90 "$FIXTURES/asm-i128-isel.ll" -o "$BATS_TEST_TMPDIR/b.ptx"
	assert_equal "$status" 1
	assert_one_error nv-llc
	[[ "$stderr" == "nv-llc: error: LLVM: Cannot select: "*"(in function 'k')" ]] || fail "$stderr"
	assert_file_not_exists "$BATS_TEST_TMPDIR/b.ptx"
}
