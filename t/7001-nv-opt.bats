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
	assert_equal "$stderr" "nv-opt: error: unknown sub-pipeline 'std9' (known: std1, std5, std8, mid-unroll, post-unroll, post-unroll-t1, post-unroll-t3, late-memory, unswitch, loop-canon)"
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

@test "thread-cleanup-dests sends a cleanup block's exits straight to their cases, the latch keeping its loop metadata" {
	run --separate-stderr nv-opt -passes=thread-cleanup-dests -pass-remarks=thread-cleanup-dests \
		"$FIXTURES/cleanup-dests.ll" -S -o "$BATS_TEST_TMPDIR/out.ll"
	assert_success
	FileCheck "$FIXTURES/cleanup-dests.ll" <"$BATS_TEST_TMPDIR/out.ll"
	# @escape's exit and @twoway's two edges; @blocked none
	[ "$(grep -c "goes straight to" <<<"$stderr")" -eq 3 ] || fail "$stderr"
	[[ "$stderr" == *"in function 'escape': a branch through the cleanup block '%cleanup' goes straight to '%exit'"* ]] ||
		fail "$stderr"
	opt-22 -passes=verify -disable-output "$BATS_TEST_TMPDIR/out.ll"
}

# closed_loops KERNEL PTX: loops of KERNEL closed by a conditional branch
# back to their first block with no unconditional branch inside.
closed_loops() {
	awk -v k="$1(" '/^\.visible \.entry/ { p = ($3 == k) } p' "$2" | awk '
		/^\$L__/ { l = $1; sub(/:$/, "", l); seen[l] = 1; uni[l] = 0; next }
		/bra\.uni/ { for (l in seen) uni[l]++; next }
		/^[ \t]+@%p[0-9]+ bra/ { t = $3; sub(/;$/, "", t); if ((t in seen) && !uni[t]) n++ }
		END { print n + 0 }'
}

@test "a break out of a loop body with locals leaves a loop of one block, as nvcc's, and keeps its #pragma unroll" {
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -O3 "$FIXTURES/cleanup-loop.cu" \
		-o "$BATS_TEST_TMPDIR/out.ptx" -Xcicc -pass-remarks='thread-cleanup-dests|nv-unroll'
	assert_success
	[[ "$stderr" == *"in function 'escape': a branch through the cleanup block"* ]] || fail "$stderr"
	[[ "$stderr" == *"in function 'escape2'"*"by a factor of 2 (level 2: #pragma unroll 2)"* ]] || fail "$stderr"
	run closed_loops escape "$BATS_TEST_TMPDIR/out.ptx"
	assert_output 1
	if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
		"$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" -ptx -arch=sm_90 -O3 "$FIXTURES/cleanup-loop.cu" \
			-o "$BATS_TEST_TMPDIR/nvcc.ptx"
		run closed_loops escape "$BATS_TEST_TMPDIR/nvcc.ptx"
		assert_output 1
	fi
}

@test "threading cleanup blocks keeps a program's meaning (lli, before and after nv-inline and nv-opt -O3)" {
	clang-22 -O2 -Xclang -disable-llvm-passes -w -emit-llvm -c "$FIXTURES/cleanup-meaning.c" \
		-o "$BATS_TEST_TMPDIR/in.bc"
	run --separate-stderr nv-inline -pass-remarks=thread-cleanup-dests "$BATS_TEST_TMPDIR/in.bc" \
		-o "$BATS_TEST_TMPDIR/inl.bc"
	assert_success
	# something happened: the escape loop's break and the search's return
	[ "$(grep -c "goes straight to" <<<"$stderr")" -ge 2 ] || fail "$stderr"
	nv-opt -O3 "$BATS_TEST_TMPDIR/inl.bc" -o "$BATS_TEST_TMPDIR/o3.bc"
	want=$(lli-22 "$BATS_TEST_TMPDIR/in.bc")
	[ -n "$want" ]
	run lli-22 "$BATS_TEST_TMPDIR/inl.bc"
	assert_output "$want"
	run lli-22 "$BATS_TEST_TMPDIR/o3.bc"
	assert_output "$want"
}
