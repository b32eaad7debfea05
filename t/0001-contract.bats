#!/usr/bin/env bats
# The stage contract, for every bin/nv-* program: help, usage errors, bad
# input of every kind, unwritable and closed outputs.  One line naming the
# program, the right exit code, nothing on stdout, no partial file.

load helper

setup_file() {
	export GOOD_BC
	GOOD_BC=$(fixture_bc saxpy)
}

@test "every stage prints its usage with --help and exits 0" {
	for p in $(stages); do
		run --separate-stderr "$p" --help
		[ "$status" -eq 0 ] || fail "$p --help: status $status"
		[[ "$output" == "usage: $p "* ]] || fail "$p --help: $output"
		[ -z "$stderr" ] || fail "$p --help wrote to stderr: $stderr"
	done
}

@test "every stage rejects an unknown option with exit 2 and one line" {
	for p in $(stages); do
		run --separate-stderr "$p" --no-such-option
		[ "$status" -eq 2 ] || fail "$p: status $status"
		assert_one_error "$p"
	done
}

@test "every stage rejects an unknown knob with exit 2 and one line" {
	for p in $(stages); do
		run --separate-stderr "$p" -no-such-knob=3
		[ "$status" -eq 2 ] || fail "$p: status $status"
		assert_one_error "$p"
	done
}

@test "every stage rejects empty stdin with exit 1 and one line" {
	for p in $(stages); do
		run --separate-stderr "$p" </dev/null
		[ "$status" -eq 1 ] || fail "$p: status $status"
		assert_one_error "$p"
		[[ "$stderr" == *empty* ]] || fail "$p: $stderr"
	done
}

@test "every stage rejects garbage on stdin with exit 1 and one line" {
	head -c 4096 /dev/urandom >"$BATS_TEST_TMPDIR/garbage"
	printf 'this is not IR\n' >"$BATS_TEST_TMPDIR/text"
	for p in $(stages); do
		for g in garbage text; do
			run --separate-stderr "$p" <"$BATS_TEST_TMPDIR/$g"
			[ "$status" -eq 1 ] || fail "$p < $g: status $status"
			assert_one_error "$p"
		done
	done
}

# bats test_tags=slow
@test "every stage rejects truncated bitcode with exit 1 and one line" {
	for n in 8 100 1000; do
		head -c "$n" "$GOOD_BC" >"$BATS_TEST_TMPDIR/trunc$n.bc"
	done
	for p in $(stages); do
		for n in 8 100 1000; do
			run --separate-stderr "$p" "$BATS_TEST_TMPDIR/trunc$n.bc"
			[ "$status" -eq 1 ] || fail "$p trunc$n: status $status"
			assert_one_error "$p"
		done
	done
}

@test "every stage rejects a module that fails the verifier" {
	for p in $(stages); do
		run --separate-stderr "$p" "$FIXTURES/use-before-def.ll"
		[ "$status" -eq 1 ] || fail "$p: status $status"
		assert_one_error "$p"
		[[ "$stderr" == *"does not dominate"* ]] || fail "$p: $stderr"
	done
}

@test "every stage names a missing input file" {
	for p in $(stages); do
		run --separate-stderr "$p" "$BATS_TEST_TMPDIR/missing.bc"
		[ "$status" -eq 1 ] || fail "$p: status $status"
		assert_one_error "$p"
		[[ "$stderr" == *missing.bc*"No such file"* ]] || fail "$p: $stderr"
	done
}

@test "every stage fails cleanly on an -o in a missing directory, before any work" {
	for p in $(stages); do
		run --separate-stderr "$p" -o "$BATS_TEST_TMPDIR/no/such/dir/out" "$FIXTURES/use-before-def.ll"
		[ "$status" -eq 1 ] || fail "$p: status $status"
		assert_one_error "$p"
		[[ "$stderr" == *"cannot open output"*"No such file or directory" ]] || fail "$p: $stderr"
	done
}

@test "every stage refuses a read-only -o file before any work, and leaves it" {
	mkdir "$BATS_TEST_TMPDIR/ro"
	for p in $(stages); do
		f="$BATS_TEST_TMPDIR/ro/$p"
		echo precious >"$f"
		chmod 444 "$f"
		# a bad input too: the output is refused before the input is read
		run --separate-stderr "$p" -o "$f" "$FIXTURES/use-before-def.ll"
		[ "$status" -eq 1 ] || fail "$p: status $status"
		assert_one_error "$p"
		assert_equal "$stderr" "$p: error: cannot open output '$f': Permission denied"
		[ "$(cat "$f")" = precious ] || fail "$p replaced its read-only -o file"
	done
	[ "$(ls -A "$BATS_TEST_TMPDIR/ro" | wc -l)" -eq "$(stages | wc -l)" ] ||
		fail "left: $(ls -A "$BATS_TEST_TMPDIR/ro")"
}

@test "a module for another target is refused by nv-llc and by nv-link -cudafe, with one line" {
	for p in nv-llc "nv-link -cudafe"; do
		run --separate-stderr $p "$FIXTURES/host.ll"
		[ "$status" -eq 1 ] || fail "$p: status $status"
		assert_one_error "${p%% *}"
		[[ "$stderr" == *"module is for target 'x86_64-pc-linux-gnu', not nvptx64-nvidia-cuda" ]] ||
			fail "$p: $stderr"
	done
}

@test "every stage fails cleanly when stdout is closed" {
	for p in $(stages); do
		run sh -c "\"$p\" $(text_flag "$p") \"$GOOD_BC\" 2>&1 >&-"
		[ "$status" -eq 1 ] || fail "$p: status $status, $output"
		[[ "$output" == "$p: error: cannot write to standard output: Bad file descriptor" ]] ||
			fail "$p: $output"
	done
}

@test "every stage refuses to write bitcode to a terminal without -f" {
	command -v script >/dev/null || skip "script (util-linux) is not installed"
	for p in $(stages); do
		[ -n "$(text_flag "$p")" ] || continue
		run script -qec "\"$p\" \"$GOOD_BC\"" /dev/null
		[ "$status" -eq 1 ] || fail "$p: status $status"
		[[ "$output" == *"$p: error: refusing to write bitcode to a terminal"* ]] || fail "$p: $output"
		run script -qec "\"$p\" -f \"$GOOD_BC\" | head -c 2" /dev/null
		[ "$status" -eq 0 ] || fail "$p -f: status $status"
	done
}

@test "a failed run leaves an existing -o file untouched and no temp files" {
	mkdir "$BATS_TEST_TMPDIR/out"
	for p in $(stages); do
		echo precious >"$BATS_TEST_TMPDIR/out/x"
		run --separate-stderr "$p" -o "$BATS_TEST_TMPDIR/out/x" "$FIXTURES/use-before-def.ll"
		[ "$status" -eq 1 ] || fail "$p: status $status"
		[ "$(cat "$BATS_TEST_TMPDIR/out/x")" = precious ] || fail "$p clobbered its -o file"
		[ "$(ls -A "$BATS_TEST_TMPDIR/out")" = x ] || fail "$p left: $(ls -A "$BATS_TEST_TMPDIR/out")"
	done
}

@test "every stage refuses a second input with exit 2" {
	for p in $(stages); do
		[ "$p" = nv-link ] && continue
		run --separate-stderr "$p" "$GOOD_BC" "$GOOD_BC"
		[ "$status" -eq 2 ] || fail "$p: status $status"
		assert_one_error "$p"
	done
}

@test "every stage prints its version" {
	for p in $(stages); do
		run "$p" --version
		assert_success
		assert_output --regexp "^$p \\(nvcc-lite\\) [0-9]"
	done
}

@test "a program that fails without a word still says it failed (nvcc-lite trusts exit 1 to come with a reason)" {
	printf '#include "base/diag.h"\nint main(int c, char **v) { nv_diag_init(v[0]); nv_exit(c > 1); }\n' \
		>"$BATS_TEST_TMPDIR/quiet.c"
	cc -std=c17 -I"$TOP/lib" $(llvm-config-22 --cflags) "$BATS_TEST_TMPDIR/quiet.c" "$TOP/lib/libnv.a" \
		$(make -s --no-print-directory -C "$TOP" print-ldflags) -o "$BATS_TEST_TMPDIR/quiet"
	run --separate-stderr "$BATS_TEST_TMPDIR/quiet" fail
	assert_equal "$status" 1
	assert_one_error quiet
	run --separate-stderr "$BATS_TEST_TMPDIR/quiet"
	assert_success
	assert_equal "$stderr" ""
}
