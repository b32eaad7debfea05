#!/usr/bin/env bats
# The driver's plan (lib/driver/plan.c) with NV_ACT_TOOL jobs, which no
# command line plans yet: t/fixtures/plan-tool.c plans two, a temporary
# file and a copy of it.

load helper

setup_file() {
	cc -std=c17 -D_GNU_SOURCE -I"$TOP/lib" $(llvm-config-22 --cflags) "$FIXTURES/plan-tool.c" "$TOP/lib/libnv.a" \
		$(make -s --no-print-directory -C "$TOP" print-ldflags) -o "$BATS_FILE_TMPDIR/plan-tool"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "tool jobs run in order through the run's tmp, which is gone afterwards" {
	run --separate-stderr env TMPDIR="$PWD" "$BATS_FILE_TMPDIR/plan-tool" -v -time t.csv out.txt 0
	assert_success
	assert_equal "$(cat out.txt)" made
	assert_equal "$(ls -d nvcc-lite.* 2>/dev/null)" ""
	[[ "$stderr" == *'#$ /bin/sh -c '*'/t.txt'* ]] || fail "no -v line: $stderr"
	grep -q '^ , make-temp (make-temp) , ' t.csv || fail "$(cat t.csv)"
	grep -q "copy (copy) , .*/t.txt , out.txt ," t.csv || fail "$(cat t.csv)"
}

@test "a failing tool job is named with its status; its output and the temporaries are removed" {
	run --separate-stderr env TMPDIR="$PWD" "$BATS_FILE_TMPDIR/plan-tool" out.txt 3
	assert_failure 1
	assert_equal "$stderr" "plan-tool: error: sh failed with exit status 3"
	assert_file_not_exists out.txt
	assert_equal "$(ls -d nvcc-lite.* 2>/dev/null)" ""
}

@test "-keep keeps the temporaries in -keep-dir; -dryrun prints the jobs as one script that runs" {
	run "$BATS_FILE_TMPDIR/plan-tool" -keep -keep-dir kd out.txt 0
	assert_success
	assert_equal "$(cat kd/t.txt)" made
	run "$BATS_FILE_TMPDIR/plan-tool" -dryrun out2.txt 0
	assert_success
	assert_line --index 0 '#!/bin/sh'
	assert_line 'tmp=$(mktemp -d)'
	assert_line "/bin/sh -c 'echo made >\"\$0\"' \"\$tmp/t.txt\""
	sh -c "$output"
	assert_equal "$(cat out2.txt)" made
}
