#!/usr/bin/env bats
# Meaning preservation: random C programs (csmith) run with lli before and
# after every stage configuration of t/csmith.sh print the same checksum.
# This is the fixed sample; `make csmith N=500` is the long run.

load helper

@test "random C programs keep their meaning through every stage configuration (fixed sample)" {
	command -v csmith >/dev/null || skip "csmith is not installed"
	run bash "$TOP/t/csmith.sh" -n 6 -s 7001
	echo "$output" >&3
	assert_success
	assert_line --regexp '^csmith: seeds 7001\.\.7006: [1-9][0-9]* run, [0-9]+ discarded \(undefined behaviour or over 10s\), 0 not generated$'
	refute_output --partial FAIL
}

@test "the harness tells a broken stage apart (it can fail)" {
	command -v csmith >/dev/null || skip "csmith is not installed"
	# a stage that turns every add into a sub must be caught
	sed 's/^	"reflect|.*/	"broken|llvm-dis \\$in -o - | sed s\/add\\\\ i32\/sub\\\\ i32\/ | llvm-as -o \\$out"/' \
		"$TOP/t/csmith.sh" >"$BATS_TEST_TMPDIR/broken.sh"
	grep -q '"broken|' "$BATS_TEST_TMPDIR/broken.sh"
	run env -C "$TOP/t" bash "$BATS_TEST_TMPDIR/broken.sh" -n 4 -s 1 -c broken
	assert_failure
	assert_output --partial "FAIL seed"
	assert_output --partial "reproduce: csmith --seed"
}
