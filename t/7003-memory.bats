#!/usr/bin/env bats
# cicc's memory passes: set-local-array-alignment in nv-opt's pipeline text.

load helper

LL="$FIXTURES/local-arrays.ll"

@test "set-local-array-alignment gives an array the largest power of two dividing its size, at most 16" {
	nv-opt -passes=set-local-array-alignment "$LL" -S -o "$BATS_TEST_TMPDIR/out.ll"
	FileCheck --check-prefix=DEFAULT "$LL" <"$BATS_TEST_TMPDIR/out.ll"
}

@test "use-max-local-array-alignment aligns every static array to 16; disable-set-local-array-alignment none" {
	nv-opt -use-max-local-array-alignment=1 -passes=set-local-array-alignment "$LL" -S |
		FileCheck --check-prefix=MAX "$LL"
	nv-opt -disable-set-local-array-alignment=1 -passes=set-local-array-alignment "$LL" -S \
		-o "$BATS_TEST_TMPDIR/off.ll"
	run grep -c 'alloca.*align 16' "$BATS_TEST_TMPDIR/off.ll"
	assert_output 0
}

@test "each local array raised is a remark of set-local-array-alignment" {
	run --separate-stderr nv-opt -pass-remarks=set-local-array-alignment \
		-passes=set-local-array-alignment "$LL" -o /dev/null
	assert_success
	[[ "$stderr" == *"local array of 192 bytes aligned to 16 (was 4) [-pass-remarks=set-local-array-alignment]"* ]] ||
		fail "$stderr"
	[ "$(grep -c 'aligned to' <<<"$stderr")" -eq 6 ] || fail "$stderr"
}

@test "our passes run in order between LLVM passes of one pipeline text" {
	# instcombine would raise an alloca to its type's alignment only;
	# sroa after the alignment pass keeps what it set on a kept alloca.
	run --separate-stderr nv-opt -debug-pass-manager=1 \
		-passes='function(instcombine),set-local-array-alignment,function(sroa)' "$LL" -S
	assert_success
	assert_output --partial '%f48 = alloca [48 x float], align 16'
	[[ "$stderr" == *InstCombinePass*SROAPass* ]] || fail "$stderr"
	run --separate-stderr nv-opt -passes='set-local-array-alignment,function(nosuchpass)' </dev/null
	assert_equal "$status" 2
	assert_one_error nv-opt
}
