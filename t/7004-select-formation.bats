#!/usr/bin/env bats
# select-formation (nv-opt, late-memory): a compare-exchange's phis as
# selects on one predicate, as cicc makes them (issue 45, item 1).

load helper

# count PATTERN TEXT: lines of TEXT matching PATTERN
count() {
	grep -c -- "$1" <<<"$2" || true
}

# kernel NAME FILE: the PTX of one kernel of FILE
kernel() {
	sed -n "/\.entry $1(/,/^}/p" "$2"
}

# kregs NAME FILE: the registers ptxas gives kernel NAME of FILE
kregs() {
	"$(ptxas_bin)" -v -arch=sm_90 "$2" -o /dev/null 2>&1 |
		awk -v k="$1" '/Compiling entry/ { on = index($0, "'"'"'" k "'"'"'") > 0 } on && /Used/ { print $5; exit }'
}

@test "select-formation makes a compare-exchange's phis selects on one predicate; its knob turns it off" {
	F="$FIXTURES/select-formation.ll"
	run --separate-stderr nv-opt -passes=select-formation -pass-remarks=select-formation "$F" -S -o "$BATS_TEST_TMPDIR/out.ll"
	assert_success
	FileCheck "$F" <"$BATS_TEST_TMPDIR/out.ll"
	[ "$(count '4 phis that pick between the same two sets of values' "$stderr")" -eq 1 ] || fail "$stderr"
	[ "$(count ': remark: ' "$stderr")" -eq 1 ] || fail "$stderr"
	opt-22 -passes=verify -disable-output "$BATS_TEST_TMPDIR/out.ll"
	nv-opt -nv-select-formation=0 -passes=select-formation "$F" -S | FileCheck --check-prefix=OFF "$F"
	# the branch it made redundant is gone (swap4's); the functions it left
	# alone keep theirs, untouched (fswap4 1, computed 1, lexi 2)
	run nv-opt -passes='select-formation' "$F" -S
	[ "$(count 'br i1' "$output")" -eq 4 ] || fail "$output"
	run nv-opt -nv-select-formation=0 -passes='select-formation' "$F" -S
	[ "$(count 'br i1' "$output")" -eq 5 ] || fail "$output"
}

@test "under a float compare beyond two phis, and at a join of two branches, the phis stay unless asked" {
	F="$FIXTURES/select-formation.ll"
	nv-opt -nv-select-formation-fcmp=1 -passes=select-formation "$F" -S | FileCheck --check-prefix=FCMP "$F"
	nv-opt -nv-select-formation=2 -passes=select-formation "$F" -S | FileCheck --check-prefix=ANY "$F"
	# fewer than -nv-select-formation-min-phis phis: left to SimplifyCFG
	run nv-opt -nv-select-formation-min-phis=5 -passes=select-formation -pass-remarks=select-formation "$F" -S -o /dev/null
	assert_success
	assert_output ''
}

@test "select formation keeps a program's meaning (lli, at both settings)" {
	clang-22 -O2 -Xclang -disable-llvm-passes -w -emit-llvm -c "$FIXTURES/select-meaning.c" -o "$BATS_TEST_TMPDIR/in.bc"
	nv-opt -O3 "$BATS_TEST_TMPDIR/in.bc" -o "$BATS_TEST_TMPDIR/o3.bc"
	want=$(lli-22 "$BATS_TEST_TMPDIR/in.bc")
	[ -n "$want" ]
	for mode in 1 2; do
		run --separate-stderr nv-opt -nv-select-formation=$mode -nv-select-formation-fcmp=1 \
			-pass-remarks=select-formation -passes='select-formation,function(simplifycfg)' \
			"$BATS_TEST_TMPDIR/o3.bc" -o "$BATS_TEST_TMPDIR/s.bc"
		assert_success
		[ "$(count ': remark: ' "$stderr")" -ge 20 ] || fail "mode $mode: $stderr"
		run lli-22 "$BATS_TEST_TMPDIR/s.bc"
		assert_output "$want"
	done
}

@test "a sorting network and a merge step's exchange get min/max and selp, no branch, and no more registers than cicc's" {
	F="$FIXTURES/select-cx.cu"
	CUDA_PATH=/nonexistent nvcc-lite -ptx -arch=sm_90 -O3 "$F" -o "$BATS_TEST_TMPDIR/on.ptx"
	CUDA_PATH=/nonexistent nvcc-lite -ptx -arch=sm_90 -O3 "$F" -o "$BATS_TEST_TMPDIR/off.ptx" \
		-Xcicc -nv-select-formation=0
	sort=_Z7sort_kvIiiLi16EEvPT_PT0_ cx=_Z10cx_payloadPiS_ fl=_Z8cx_floatPfPi
	# 80 exchanges of a 16-key bitonic network: a min and a max each and
	# two selp of the values (cicc's PTX: the same 160 and 160), no branch
	on=$(kernel $sort "$BATS_TEST_TMPDIR/on.ptx")
	[ "$(count 'bra' "$on")" -eq 0 ] || fail "$on"
	[ "$(count 'min\.s32' "$on")" -eq 80 ] && [ "$(count 'max\.s32' "$on")" -eq 80 ] || fail "$on"
	[ "$(count 'selp\.b32' "$on")" -eq 160 ] || fail "$on"
	[ "$(count 'bra' "$(kernel $sort "$BATS_TEST_TMPDIR/off.ptx")")" -eq 80 ] || fail "off: not 80 branches"
	[ "$(count 'bra' "$(kernel $cx "$BATS_TEST_TMPDIR/on.ptx")")" -eq 0 ] || fail "cx_payload branches"
	# a float compare keeps its branch, as cicc's does
	[ "$(count 'bra' "$(kernel $fl "$BATS_TEST_TMPDIR/on.ptx")")" -eq 1 ] || fail "cx_float: no branch"
	have_ptxas || skip "ptxas is not installed"
	# ptxas 13.0: 28 registers with the selects, 30 with the branch (cicc's: 28)
	[ "$(kregs $cx "$BATS_TEST_TMPDIR/on.ptx")" -lt "$(kregs $cx "$BATS_TEST_TMPDIR/off.ptx")" ] ||
		fail "cx_payload: $(kregs $cx "$BATS_TEST_TMPDIR/on.ptx") registers, $(kregs $cx "$BATS_TEST_TMPDIR/off.ptx") without"
	if have_nvcc; then
		nvcc -ptx -arch=sm_90 -O3 "$F" -o "$BATS_TEST_TMPDIR/nvcc.ptx"
		for k in $sort $cx $fl; do
			[ "$(kregs $k "$BATS_TEST_TMPDIR/on.ptx")" -le "$(kregs $k "$BATS_TEST_TMPDIR/nvcc.ptx")" ] ||
				fail "$k: $(kregs $k "$BATS_TEST_TMPDIR/on.ptx") registers, nvcc's $(kregs $k "$BATS_TEST_TMPDIR/nvcc.ptx")"
		done
	fi
}
