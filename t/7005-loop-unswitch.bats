#!/usr/bin/env bats
# loop-unswitch (nv-opt, the unswitch sub-pipeline before nv-unroll): one
# loop per value of a uniform loop-invariant condition, as cicc's
# LoopUnswitch (issue 45, item 4).  The uniformity analysis it uses is
# tested in t/8001-analyses.bats.

load helper

# count PATTERN TEXT: lines of TEXT matching PATTERN
count() {
	grep -c -- "$1" <<<"$2" || true
}

# kernel NAME FILE: the PTX of one kernel of FILE (NAME a prefix of the mangled name)
kernel() {
	sed -n "/\.entry $1[^(]*(/,/^}/p" "$2"
}

# kregs NAME FILE: the registers ptxas gives kernel NAME of FILE
kregs() {
	"$(ptxas_bin)" -v -arch=sm_90 "$2" -o /dev/null 2>&1 |
		awk -v k="$1" '/Compiling entry/ { on = index($0, "'"'"'" k) > 0 } on && /Used/ { print $5; exit }'
}

# bats test_tags=slow
@test "a grid-stride loop's branch on a kernel argument and a GEMM epilogue's beta == 0 are unswitched, threadIdx's is not" {
	F="$FIXTURES/unswitch.cu"
	run --separate-stderr env CUDA_PATH=/nonexistent nvcc-lite -ptx -arch=sm_90 -O3 -lineinfo "$F" \
		-o "$BATS_TEST_TMPDIR/on.ptx" -Xcicc -pass-remarks=loop-unswitch -Xcicc -pass-remarks-missed=loop-unswitch
	assert_success
	CUDA_PATH=/nonexistent nvcc-lite -ptx -arch=sm_90 -O3 -lineinfo "$F" -o "$BATS_TEST_TMPDIR/off.ptx" \
		-Xcicc -loop-unswitch-threshold=0
	on="$BATS_TEST_TMPDIR/on.ptx" off="$BATS_TEST_TMPDIR/off.ptx"
	# remarks at the branches' lines: three unswitched, threadIdx's kept
	[ "$(count 'unswitch.cu:10:.*loop unswitched on the uniform condition' "$stderr")" -eq 1 ] || fail "$stderr"
	[ "$(count 'unswitch.cu:40:.*loop unswitched on the uniform condition' "$stderr")" -eq 1 ] || fail "$stderr"
	[ "$(count 'unswitch.cu:53:.*loop unswitched on the uniform condition' "$stderr")" -eq 1 ] || fail "$stderr"
	[ "$(count 'unswitch.cu:6[0-9]:.*loop not unswitched on .*may differ between the threads' "$stderr")" -eq 1 ] || fail "$stderr"
	[ "$(count 'loop unswitched' "$stderr")" -eq 3 ] || fail "$stderr"
	# sgemm_beta: the epilogue is unswitched before it is unrolled: one
	# beta test, as nvcc's, where there was one per element of the tile
	[ "$(count 'setp\.[a-z]*\.f32.*0f00000000' "$(kernel _Z10sgemm_beta "$on")")" -eq 1 ] || fail "$(kernel _Z10sgemm_beta "$on")"
	[ "$(count 'setp\.[a-z]*\.f32.*0f00000000' "$(kernel _Z10sgemm_beta "$off")")" -eq 16 ] || fail "off: not 16 tests"
	# grid_mode and epilogue_beta: one loop per value, each with its store
	for k in _Z9grid_mode _Z13epilogue_beta; do
		[ "$(count 'st\.global' "$(kernel $k "$on")")" -eq 2 ] || fail "$k: $(kernel $k "$on")"
		[ "$(count 'st\.global' "$(kernel $k "$off")")" -eq 1 ] || fail "$k off: $(kernel $k "$off")"
	done
	# grid_tid: the same code either way
	[ "$(kernel _Z8grid_tid "$on")" = "$(kernel _Z8grid_tid "$off")" ] || fail "grid_tid changed"
	if have_nvcc; then
		nvcc -ptx -arch=sm_90 -O3 "$F" -o "$BATS_TEST_TMPDIR/nvcc.ptx"
		nv="$BATS_TEST_TMPDIR/nvcc.ptx"
		[ "$(count 'setp\.[a-z]*\.f32.*0f00000000' "$(kernel _Z10sgemm_beta "$nv")")" -eq 1 ] || fail "nvcc's sgemm_beta"
		for k in _Z9grid_mode _Z13epilogue_beta; do
			[ "$(count 'st\.global' "$(kernel $k "$nv")")" -eq 2 ] || fail "nvcc's $k"
		done
		have_ptxas || skip "ptxas is not installed"
		# registers (ptxas 13.0; nvcc's in brackets): grid_mode 18 [18], 14
		# without; sgemm_beta 40 [40]; epilogue_beta 14 [14], 15 without;
		# grid_tid 14 [14]
		for k in _Z9grid_mode _Z10sgemm_beta _Z13epilogue_beta _Z8grid_tid; do
			[ "$(kregs $k "$on")" -le "$(kregs $k "$nv")" ] ||
				fail "$k: $(kregs $k "$on") registers, nvcc's $(kregs $k "$nv")"
		done
	fi
}

@test "loop-unswitch keeps a program's meaning (lli), divergent conditions included" {
	clang-22 -O2 -Xclang -disable-llvm-passes -w -emit-llvm -c "$FIXTURES/unswitch-meaning.c" -o "$BATS_TEST_TMPDIR/in.bc"
	nv-opt -O3 "$BATS_TEST_TMPDIR/in.bc" -o "$BATS_TEST_TMPDIR/o3.bc"
	want=$(lli-22 "$BATS_TEST_TMPDIR/in.bc")
	[ -n "$want" ]
	run --separate-stderr nv-opt -nv-loop-unswitch-divergent=1 -pass-remarks=loop-unswitch \
		-pipeline=unswitch "$BATS_TEST_TMPDIR/o3.bc" -o "$BATS_TEST_TMPDIR/u.bc"
	assert_success
	[ "$(count ': remark: ' "$stderr")" -ge 2 ] || fail "$stderr"
	run lli-22 "$BATS_TEST_TMPDIR/u.bc"
	assert_output "$want"
	# a host function's arguments may differ between threads: nothing to do
	run --separate-stderr nv-opt -pass-remarks=loop-unswitch -pipeline=unswitch "$BATS_TEST_TMPDIR/o3.bc" -o /dev/null
	assert_success
	[ "$(count ': remark: ' "$stderr")" -eq 0 ] || fail "$stderr"
}
