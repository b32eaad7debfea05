#!/usr/bin/env bats
# nv-reflect: queries folded to cicc's values, the branches they decide
# folded, dead blocks deleted with phis fixed, strings and declarations gone.

load helper

setup_file() {
	export ARCH_BC="$BATS_FILE_TMPDIR/arch.bc" FTZ_BC="$BATS_FILE_TMPDIR/ftz.bc"
	for f in "$ARCH_BC:" "$FTZ_BC:-fgpu-flush-denormals-to-zero"; do
		clang-22 -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 -nocudalib -nocudainc \
			-include "$TOP/share/nvcc-lite/cuda_shim.h" -Wno-unknown-cuda-version -O3 \
			-Xclang -disable-llvm-passes ${f#*:} -emit-llvm -c "$FIXTURES/reflect-arch.cu" -o "${f%%:*}"
	done
}

@test "__CUDA_ARCH follows -arch and the branch it decides is folded away" {
	run nv-reflect -arch=sm_90 -S "$ARCH_BC"
	assert_success
	assert_output --partial "store i32 1, ptr"
	refute_output --partial "store i32 2, ptr"
	refute_output --partial "nvvm_reflect"
	refute_output --partial "nvvm.reflect"
	run nv-reflect -arch=sm_75 -S "$ARCH_BC"
	assert_success
	assert_output --partial "store i32 2, ptr"
	refute_output --partial "store i32 1, ptr"
}

@test "__CUDA_FTZ comes from the module flag unless -ftz is given" {
	run nv-reflect -S "$ARCH_BC"
	assert_output --partial "store i32 0, ptr"
	run nv-reflect -S "$FTZ_BC"
	assert_output --regexp "store i32 1, ptr %[0-9]+, align 4, !tbaa ![0-9]+
  ret void"
	run nv-reflect -ftz=0 -S "$FTZ_BC"
	assert_output --regexp "store i32 0, ptr %[0-9]+, align 4, !tbaa ![0-9]+
  ret void"
}

@test "the folded program computes what the reflect answers say (lli)" {
	nv-reflect -arch=sm_90 -R__EXTRA=7 "$FIXTURES/reflect-host.ll" -o "$BATS_TEST_TMPDIR/h.bc"
	run lli "$BATS_TEST_TMPDIR/h.bc"
	assert_equal "$status" 100
	nv-reflect -arch=sm_80 -ftz=1 -R __EXTRA=-5 "$FIXTURES/reflect-host.ll" -o "$BATS_TEST_TMPDIR/a.bc"
	run lli "$BATS_TEST_TMPDIR/a.bc"
	assert_equal "$status" 76
	nv-reflect -arch=sm_75 "$FIXTURES/reflect-host.ll" -o "$BATS_TEST_TMPDIR/o.bc"
	run lli "$BATS_TEST_TMPDIR/o.bc"
	assert_equal "$status" 3
}

@test "dead blocks, query strings and reflect declarations are removed" {
	run nv-reflect -arch=sm_90 -R__EXTRA=7 -S "$FIXTURES/reflect-host.ll"
	assert_success
	refute_output --partial "nvvm_reflect"
	refute_output --partial "nvvm.reflect"
	refute_output --partial "@arch"
	refute_output --partial "ampere:"
	refute_output --partial "old:"
	refute_output --partial "ftzon:"
	# a string no reflect call used stays: nv-reflect only removes its own
	assert_output --partial "@gone"
}

@test "-R overrides a built-in query and unknown queries are 0 with an analysis remark" {
	run --separate-stderr nv-reflect -R__CUDA_ARCH=800 -pass-remarks-analysis=nv-reflect \
		"$FIXTURES/reflect-host.ll" -o "$BATS_TEST_TMPDIR/r.bc"
	assert_success
	[[ "$stderr" == *'__nvvm_reflect("__EXTRA") is not a known query: folded to 0'* ]] || fail "$stderr"
	run lli "$BATS_TEST_TMPDIR/r.bc"
	assert_equal "$status" 83
}

@test "each folded call and removed block is a remark, in program order" {
	run --separate-stderr nv-reflect -arch=sm_90 -R__EXTRA=1 -pass-remarks=nv-reflect \
		"$FIXTURES/reflect-host.ll" -o /dev/null
	assert_success
	expected='nv-reflect: remark: in function '"'"'main'"'"': __nvvm_reflect("__CUDA_ARCH") folded to 900 [-pass-remarks=nv-reflect]
nv-reflect: remark: in function '"'"'main'"'"': __nvvm_reflect("__CUDA_FTZ") folded to 0 [-pass-remarks=nv-reflect]
nv-reflect: remark: in function '"'"'main'"'"': __nvvm_reflect("__EXTRA") folded to 1 [-pass-remarks=nv-reflect]'
	[[ "$stderr" == "$expected"* ]] || fail "$stderr"
	for b in ampere old ftzon; do
		[[ "$stderr" == *"removed block %$b"* ]] || fail "no remark for $b: $stderr"
	done
}

@test "a reflect argument that is not a constant string is one error line" {
	run --separate-stderr nv-reflect "$FIXTURES/reflect-nonconst.ll"
	assert_equal "$status" 1
	assert_equal "$stderr" "nv-reflect: error: in function 'f': the argument of '__nvvm_reflect' is not a constant string"
}

@test "bad -R values and unknown GPUs are usage errors" {
	run --separate-stderr nv-reflect -R__X </dev/null
	assert_equal "$status" 2
	assert_one_error nv-reflect
	run --separate-stderr nv-reflect -R__X=abc </dev/null
	assert_equal "$status" 2
	run --separate-stderr nv-reflect -arch=sm_42 </dev/null
	assert_equal "$status" 2
	run --separate-stderr nv-reflect -ftz=2 </dev/null
	assert_equal "$status" 2
}

@test "all of libdevice's reflect calls fold and the module stays valid" {
	ld=/usr/local/cuda/nvvm/libdevice/libdevice.10.bc
	[ -f "$ld" ] || skip "CUDA's libdevice is not installed"
	run --separate-stderr nv-reflect -arch=sm_90 -pass-remarks-output="$BATS_TEST_TMPDIR/ld.yaml" "$ld" -S -o "$BATS_TEST_TMPDIR/ld.ll"
	assert_success
	! grep -q nvvm_reflect "$BATS_TEST_TMPDIR/ld.ll"
	[ "$(grep -c 'Name:            ReflectFolded' "$BATS_TEST_TMPDIR/ld.yaml")" -eq "$(llvm-dis <"$ld" | grep -c 'call i32 @__nvvm_reflect')" ]
	# default flags (ftz 0, prec-sqrt 1): sqrtf is sqrt.rn without ftz
	sed -n '/define float @__nv_sqrtf(/,/^}/p' "$BATS_TEST_TMPDIR/ld.ll" | grep -q '@llvm.nvvm.sqrt.rn.f('
	nv-reflect -ftz=1 -prec-sqrt=0 "$ld" -S | sed -n '/define float @__nv_sqrtf(/,/^}/p' | grep -q '@llvm.nvvm.sqrt.approx.ftz.f('
}

@test "on all of libdevice, nv-reflect then -O3 equals LLVM's own nvvm-reflect then -O3" {
	ld=/usr/local/cuda/nvvm/libdevice/libdevice.10.bc
	[ -f "$ld" ] || skip "CUDA's libdevice is not installed"
	cd "$BATS_TEST_TMPDIR"
	# libdevice with the ftz module flag set, for both to read
	{ llvm-dis <"$ld" | sed 's/nvptx64-nvidia-gpulibs/nvptx64-nvidia-cuda/'
	  echo '!llvm.module.flags = !{!900}'
	  echo '!900 = !{i32 4, !"nvvm-reflect-ftz", i32 1}'; } >ld.ll
	# LLVM's pass answers __CUDA_ARCH and __CUDA_PREC_SQRT as clang does: tell it cicc's values
	opt -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -nvvm-reflect-add=__CUDA_ARCH=900 \
		-nvvm-reflect-add=__CUDA_PREC_SQRT=1 -passes=nvvm-reflect ld.ll -o - |
		opt -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -passes='default<O3>' -o theirs.bc
	nv-reflect -arch=sm_90 ld.ll | nv-opt -arch=sm_90 -O3 -o ours.bc
	# compare without value names, attribute groups (opt -mcpu adds target-cpu)
	# and "; preds" comments (use-list order, which LLVM-C's writer does not keep)
	for f in theirs ours; do
		opt -discard-value-names -passes=verify "$f.bc" -S | grep -v '^; ModuleID\|^source_filename\|^attributes #' |
			sed 's/ *; preds = .*//' >"$f.ll"
	done
	[ "$(grep -c '^define' ours.ll)" -gt 300 ]
	diff theirs.ll ours.ll
}

@test "a cut edge to a block that stays reachable loses only its phi entry" {
	nv-reflect -arch=sm_90 "$FIXTURES/reflect-phi-edge.ll" -o "$BATS_TEST_TMPDIR/new.bc"
	run lli "$BATS_TEST_TMPDIR/new.bc"
	assert_equal "$status" 2
	nv-reflect -arch=sm_75 "$FIXTURES/reflect-phi-edge.ll" -o "$BATS_TEST_TMPDIR/old.bc"
	run lli "$BATS_TEST_TMPDIR/old.bc"
	assert_equal "$status" 1
	# the phi is left with one entry, and then folds to its value
	run nv-reflect -arch=sm_90 -S "$FIXTURES/reflect-phi-edge.ll"
	assert_output --partial "ret i32 2"
	refute_output --partial "= phi"
}
