#!/usr/bin/env bats
# Meaning preservation: random C programs (csmith's, and t/fpgen.py's
# floating-point ones) run with lli before and after every stage
# configuration of t/csmith.sh give the same output, every configuration
# transforms something, and as device code every program goes through
# nvcc-lite to PTX that ptxas accepts.  This is the fixed sample; `make
# csmith N=500` is the long run.

load helper

setup() {
	command -v csmith >/dev/null || skip "csmith is not installed"
}

# bats test_tags=slow
@test "random C programs keep their meaning through every stage configuration, and every configuration fires (fixed sample)" {
	run bash "$TOP/t/csmith.sh" -n 2 -s 1 -j 2
	echo "$output" >&3
	assert_success
	assert_line 'csmith: seeds 1..2: 4 run, 0 discarded (undefined behaviour or over 10s), 0 not generated'
	refute_output --partial FAIL
	# every row of the table: 4 programs, some transformations, no failure
	all=$(grep -cE '^  [A-Za-z0-9-]+ +[0-9]+ +[0-9]+ +[0-9]+$' <<<"$output")
	rows=$(grep -cE '^  [A-Za-z0-9-]+ +4 +[1-9][0-9]* +0$' <<<"$output")
	[ "$all" -ge 20 ] && [ "$rows" -eq "$all" ] || fail "$rows of $all configurations fired"
	# the inliner inlines, the vectorizer vectorizes, reflect folds
	for c in inline inline-all vectorize reflect unroll remat nvcc-O3; do
		assert_line --regexp "^  $c +4 +[1-9]"
	done
}

# bats test_tags=slow
@test "the harness tells a broken stage apart (it can fail)" {
	# a stage that turns every add into a sub must be caught
	sed 's/^	"reflect|.*/	"broken|c fp|llvm-dis \\$in -o - | sed s\/add\\\\ i32\/sub\\\\ i32\/ | llvm-as -o \\$out"/' \
		"$TOP/t/csmith.sh" >"$BATS_TEST_TMPDIR/broken.sh"
	# twice: the second makes the same module, whose run is remembered
	sed -i '/^	"broken|/{p;s/"broken|/"broken-again|/}' "$BATS_TEST_TMPDIR/broken.sh"
	grep -q '"broken-again|' "$BATS_TEST_TMPDIR/broken.sh"
	run env CSMITH_TOP="$TOP" bash "$BATS_TEST_TMPDIR/broken.sh" -n 2 -s 1 -c broken -c broken-again
	assert_failure
	assert_output --partial "FAIL c seed"
	assert_output --regexp "FAIL c seed [12] config broken-again:"
	# the reproducer runs lli as the harness did
	assert_output --regexp "reproduce: csmith --seed .* && lli -jit-kind=mcjit -O0 in.bc; .* && lli -jit-kind=mcjit -O0 out.bc"
	assert_line --regexp '^  broken +4 +[1-9][0-9]* +[1-4]$'
	n=$(grep -oE '^  broken +4 +[0-9]+ +[1-4]$' <<<"$output" | awk '{ print $4 }')
	assert_line --regexp "^  broken-again +4 +[1-9][0-9]* +$n\$"
}

@test "a configuration that transforms nothing fails the run" {
	# nv-reflect has nothing to fold in a csmith program
	sed 's/^	"reflect|c fp|/	"idle|c|/' "$TOP/t/csmith.sh" >"$BATS_TEST_TMPDIR/idle.sh"
	run env CSMITH_TOP="$TOP" bash "$BATS_TEST_TMPDIR/idle.sh" -n 1 -s 1 -c idle
	assert_failure
	assert_line --regexp '^  idle +1 +0 +0$'
	assert_line "FAIL config idle made no transformations in 1 programs"
}

# bats test_tags=slow
@test "the driver path fails when ptxas refuses the PTX" {
	command -v ptxas >/dev/null || skip "ptxas is not installed"
	# PTX for another target than the ptxas line's -arch=sm_90
	sed 's/^	"nvcc-reg|.*/	"nvcc-broken|-O1 -arch=sm_100a"/' "$TOP/t/csmith.sh" >"$BATS_TEST_TMPDIR/ptx.sh"
	run env CSMITH_TOP="$TOP" bash "$BATS_TEST_TMPDIR/ptx.sh" -n 1 -s 1 -c nvcc-broken
	assert_failure
	assert_output --partial "FAIL c seed 1 config nvcc-broken:"
	assert_output --partial "ptxas -arch=sm_90 d.ptx"
	assert_line --regexp '^  nvcc-broken +2 +0 +2$'
}
