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

# bats test_tags=slow
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

@test "nv-llc: a single-bit test != 0 under a select or an xor with a compare is selected as and, setp.eq (no shift); a branch's already is; its knob turns it off" {
	F="$FIXTURES/bit-test.ll"
	run --separate-stderr nv-llc -arch=sm_90 -pass-remarks=bit-test-eq "$F" -o "$BATS_TEST_TMPDIR/on.ptx"
	assert_success
	[ "$(count 'a single-bit test != 0 computed as == 0' "$stderr")" -eq 2 ] || fail "$stderr"
	on=$(cat "$BATS_TEST_TMPDIR/on.ptx")
	for k in xor sel branch; do
		[ "$(count 'shr' "$(kernel $k "$BATS_TEST_TMPDIR/on.ptx")")" -eq 0 ] || fail "$k: $(kernel $k "$BATS_TEST_TMPDIR/on.ptx")"
		[ "$(count 'setp.eq' "$(kernel $k "$BATS_TEST_TMPDIR/on.ptx")")" -eq 1 ] || fail "$k"
	done
	# the xor's compare inverted (a > b: a <= b), the select's arms swapped
	[ "$(count 'setp.le.s32' "$(kernel xor "$BATS_TEST_TMPDIR/on.ptx")")" -eq 1 ] || fail "$on"
	kernel sel "$BATS_TEST_TMPDIR/on.ptx" | grep -Eq 'selp.b64.*%rd3, %rd2, %p1' || fail "$(kernel sel "$BATS_TEST_TMPDIR/on.ptx")"
	kernel sel "$BATS_TEST_TMPDIR/on.ptx" | grep -q 'mov.b64.*%rd3, sel_param_3' || fail "$(kernel sel "$BATS_TEST_TMPDIR/on.ptx")"
	# an xor with something else than a compare stays
	[ "$(count 'shr' "$(kernel other "$BATS_TEST_TMPDIR/on.ptx")")" -eq 1 ] || fail "other"
	nv-llc -arch=sm_90 -nv-bit-test-eq=0 "$F" -o "$BATS_TEST_TMPDIR/off.ptx"
	[ "$(count 'shr' "$(kernel xor "$BATS_TEST_TMPDIR/off.ptx")")" -eq 1 ] || fail "off"
	[ "$(count 'shr' "$(kernel sel "$BATS_TEST_TMPDIR/off.ptx")")" -eq 1 ] || fail "off"
	if have_ptxas; then
		"$(ptxas_bin)" -arch=sm_90 "$BATS_TEST_TMPDIR/on.ptx" -o /dev/null
	fi
}

# bench's bitonic_sort_shared: (i & k) == 0 in each of its 55 stages;
# measured 2026-11-28 (ptxas 13.0): 496 SASS instructions and 30 registers
# without the rewrite, 448 and 28 with it, nvcc 450 and 31 (1.11x nvcc's
# time on an H100 without)
@test "bitonic_sort_shared's stage direction tests have no shift, and ptxas gives it no more registers than without" {
	need_cuda
	k="$TOP/bench/kernels/bitonic_sort_shared.cu"
	nvcc-lite -ptx -O3 -arch=sm_90 "$k" -o "$BATS_TEST_TMPDIR/on.ptx"
	nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -nv-bit-test-eq=0 "$k" -o "$BATS_TEST_TMPDIR/off.ptx"
	[ "$(grep -c 'shr' "$BATS_TEST_TMPDIR/on.ptx")" -eq 0 ] || fail "shifts left"
	[ "$(grep -c 'shr' "$BATS_TEST_TMPDIR/off.ptx")" -gt 40 ] || fail "the probe lost its shape"
	on=$(kregs bitonic_sort_shared "$BATS_TEST_TMPDIR/on.ptx")
	off=$(kregs bitonic_sort_shared "$BATS_TEST_TMPDIR/off.ptx")
	[ "$on" -le "$off" ] || fail "on $on, off $off"
}
