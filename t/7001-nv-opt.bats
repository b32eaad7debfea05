#!/usr/bin/env bats
# nv-opt: LLVM new-PM pipelines, -O levels, named sub-pipelines.

load helper

setup_file() {
	export BC SUM8
	BC=$(fixture_bc saxpy)
	SUM8=$(fixture_bc sum8)
}

@test "nv-opt -O3 promotes the front end's allocas and inlines the builtin accessors" {
	nv-opt -O3 -S "$BC" -o "$BATS_TEST_TMPDIR/o3.ll"
	FileCheck "$BATS_TEST_DIRNAME/fixtures/saxpy-O3.check" <"$BATS_TEST_TMPDIR/o3.ll"
}

@test "nv-opt -O3 fully unrolls a trip-8 loop" {
	run nv-opt -O3 -S "$SUM8"
	assert_success
	refute_output --partial "br label"
	[ "$(grep -c 'load float' <<<"$output")" -eq 8 ]
}

@test "nv-opt -passes runs exactly the given pipeline" {
	run nv-opt -passes='function(mem2reg)' -S "$BC"
	assert_success
	refute_output --partial "alloca"
	# mem2reg alone does not inline: the accessor calls are still there.
	assert_output --partial "call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv"
}

@test "every named sub-pipeline runs and keeps the module valid" {
	for name in std1 std5 std8 mid-unroll post-unroll post-unroll-t1 post-unroll-t3 late-memory loop-canon; do
		run nv-opt -pipeline="$name" "$SUM8" -o "$BATS_TEST_TMPDIR/$name.bc"
		[ "$status" -eq 0 ] || fail "$name: $output"
		llvm-dis "$BATS_TEST_TMPDIR/$name.bc" -o /dev/null
	done
}

@test "a bad pipeline string is one line and exit 2, before any input is read" {
	run --separate-stderr nv-opt -passes='function(no-such-pass)' </dev/null
	assert_equal "$status" 2
	assert_one_error nv-opt
	[[ "$stderr" == *"no-such-pass"* ]] || fail "$stderr"
	run --separate-stderr nv-opt -passes='function(instcombine' </dev/null
	assert_equal "$status" 2
	assert_one_error nv-opt
}

@test "an unknown sub-pipeline name is a usage error listing the known ones" {
	run --separate-stderr nv-opt -pipeline=std9 </dev/null
	assert_equal "$status" 2
	assert_equal "$stderr" "nv-opt: error: unknown sub-pipeline 'std9' (known: std1, std5, std8, mid-unroll, post-unroll, post-unroll-t1, post-unroll-t3, late-memory, loop-canon)"
}

@test "-O, -passes and -pipeline exclude each other" {
	run --separate-stderr nv-opt -O2 -passes=instcombine </dev/null
	assert_equal "$status" 2
	assert_one_error nv-opt
}

@test "nv-opt runs on host IR too (the csmith harness needs it)" {
	run nv-opt -O2 -S "$FIXTURES/host.ll"
	assert_success
	assert_output --partial 'target triple = "x86_64-pc-linux-gnu"'
}

@test "nv-opt rejects an unknown -arch with a suggestion" {
	run --separate-stderr nv-opt -arch=sm_91 -O1 </dev/null
	assert_equal "$status" 2
	assert_equal "$stderr" "nv-opt: error: unknown GPU architecture 'sm_91'; did you mean 'sm_90'?"
}

@test "-pass-remarks for one of our passes keeps LLVM's remarks out; an LLVM pass name lets them in" {
	run --separate-stderr nv-opt -O3 -pass-remarks=nv-unroll -pass-remarks-missed=nv-inline "$BC" -o /dev/null
	assert_success
	assert_equal "$stderr" ""
	run --separate-stderr nv-opt -O3 -pass-remarks=tailcallelim "$BC" -o /dev/null
	assert_success
	[[ "$stderr" == *"nv-opt: remark: marked as tail call candidate (readnone)"* ]]
}
