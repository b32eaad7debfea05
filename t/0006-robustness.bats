#!/usr/bin/env bats
# Bad bitcode that once crashed LLVM's reader or backend, and a fixed-seed
# mutation smoke: every stage answers exit 0 or 1 with at most one line,
# never a signal.  (Longer runs: t/mutate.py in a loop; see the README.)

load helper

@test "bitcode that crashes LLVM's reader is one error line, not a crash" {
	for f in "$FIXTURES"/crash-reader-43.bc "$FIXTURES"/crash-reader-47.bc; do
		for p in $(stages); do
			run --separate-stderr "$p" "$f" -o "$BATS_TEST_TMPDIR/out"
			[ "$status" -eq 1 ] || fail "$p $f: status $status: $stderr"
			assert_one_error "$p"
			[[ "$stderr" == *"malformed (LLVM's reader"* ]] || fail "$p: $stderr"
			assert_file_not_exists "$BATS_TEST_TMPDIR/out"
		done
	done
}

@test "a global of type void (the verifier lets it through) is rejected before codegen" {
	for p in $(stages); do
		run --separate-stderr "$p" "$FIXTURES/crash-reader-225.bc"
		[ "$status" -eq 1 ] || fail "$p: status $status"
		assert_one_error "$p"
		[[ "$stderr" == *"global '@threadIdx' has a type that holds no value"* ]] || fail "$stderr"
	done
}

@test "mutated bitcode never crashes a stage (fixed seeds)" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	bc=$(fixture_bc saxpy)
	nv-opt -O3 "$bc" -o "$BATS_TEST_TMPDIR/o3.bc"
	for seed in $(seq 1 40); do
		src=$bc
		[ $((seed % 2)) -eq 0 ] && src="$BATS_TEST_TMPDIR/o3.bc"
		python3 "$TOP/t/mutate.py" "$seed" "$src" >"$BATS_TEST_TMPDIR/m.bc"
		for p in $(stages); do
			run --separate-stderr timeout 60 "$p" "$BATS_TEST_TMPDIR/m.bc" -o "$BATS_TEST_TMPDIR/m.out"
			[ "$status" -le 1 ] || fail "$p, seed $seed: status $status: $stderr"
			[ "$(printf '%s' "$stderr" | grep -c '')" -le 1 ] || fail "$p, seed $seed: $stderr"
		done
	done
}
