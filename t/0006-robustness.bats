#!/usr/bin/env bats
# Bad bitcode that once crashed LLVM's reader or backend, and a fixed-seed
# mutation smoke: every stage answers exit 0 or 1 with at most one line,
# never a signal.  (Longer runs: t/mutate.py in a loop; see the README.)

load helper

# bats test_tags=slow
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

@test "text IR that makes LLVM's parser read out of bounds is one error line (found by fuzz-ir)" {
	for p in $(stages); do
		run --separate-stderr "$p" "$FIXTURES/crash-parser-asm.ll" -o "$BATS_TEST_TMPDIR/out"
		[ "$status" -eq 1 ] || fail "$p: status $status: $stderr"
		assert_one_error "$p"
		[[ "$stderr" == "$p: error: cannot "* ]] || fail "$stderr"
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

# bats test_tags=slow
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

# chain N: one function of N blocks, each adding to the previous block's value
chain() {
	awk -v n="$1" 'BEGIN { print "define i32 @big(i32 %x) {\nb0:\n  %v0 = add i32 %x, 1\n  br label %b1"
		for (i = 1; i < n; i++) { printf "b%d:\n  %%v%d = add i32 %%v%d, %d\n", i, i, i - 1, i
			if (i + 1 < n) printf "  br label %%b%d\n", i + 1; else printf "  ret i32 %%v%d\n", i }
		print "}" }'
}

# nest D: D loops nested in each other, each counting to %n
nest() {
	awk -v d="$1" 'BEGIN { print "define void @nest(ptr %p, i32 %n) {\nentry:\n  br label %h0"
		for (i = 0; i < d; i++) { pv = i ? "h" (i - 1) : "entry"
			printf "h%d:\n  %%i%d = phi i32 [ 0, %%%s ], [ %%n%d, %%l%d ]\n", i, i, pv, i, i
			if (i + 1 < d) printf "  br label %%h%d\n", i + 1
			else printf "  store i32 %%i%d, ptr %%p\n  br label %%l%d\n", i, i }
		for (i = d - 1; i >= 0; i--) { nx = i ? "l" (i - 1) : "exit"
			printf "l%d:\n  %%n%d = add i32 %%i%d, 1\n  %%c%d = icmp slt i32 %%n%d, %%n\n", i, i, i, i, i
			printf "  br i1 %%c%d, label %%h%d, label %%%s\n", i, i, nx }
		print "exit:\n  ret void\n}" }'
}

# bats test_tags=slow
@test "a 100000-block function goes through every stage, and liveness declines it cleanly" {
	chain 100000 >"$BATS_TEST_TMPDIR/chain.ll"
	for p in $(stages); do
		args=
		[ "$p" = nv-llc ] && args="-O0 -arch=sm_90"
		run --separate-stderr timeout 300 "$p" $args "$BATS_TEST_TMPDIR/chain.ll" -o "$BATS_TEST_TMPDIR/out"
		[ "$status" -eq 0 ] || fail "$p: status $status: $stderr"
	done
	run --separate-stderr timeout 300 nv-opt -print=liveness -print=summary -disable-output "$BATS_TEST_TMPDIR/chain.ll"
	assert_success
	[[ "$stderr" == *"liveness not computed: 100000 blocks x 100000 values crossing them need 4769 MiB (limit 256 MiB)"* ]] || fail "$stderr"
}

@test "a loop nest 50 deep: every stage finishes and the analyses find all 50 loops" {
	nest 50 >"$BATS_TEST_TMPDIR/nest.ll"
	for p in $(stages); do
		args=
		[ "$p" = nv-llc ] && args="-arch=sm_90"
		run --separate-stderr timeout 300 "$p" $args "$BATS_TEST_TMPDIR/nest.ll" -o "$BATS_TEST_TMPDIR/out"
		[ "$status" -eq 0 ] || fail "$p: status $status: $stderr"
	done
	run --separate-stderr nv-opt -print=loops -disable-output "$BATS_TEST_TMPDIR/nest.ll"
	[ "$(grep -c 'Loop at depth' <<<"$stderr")" -eq 50 ]
	[[ "$stderr" == *"Loop at depth 50 containing: %h49<header>"* ]] || fail "$stderr"
}

# bats test_tags=slow
@test "a write error is an error exit, not a silent truncation (/dev/full)" {
	bc=$(fixture_bc saxpy)
	for p in $(stages); do
		run --separate-stderr "$p" $(text_flag "$p") "$bc" -o /dev/full
		[ "$status" -eq 1 ] || fail "$p -o /dev/full: status $status"
		assert_equal "$stderr" "$p: error: cannot write output '/dev/full': No space left on device"
		run sh -c "\"$p\" $(text_flag "$p") \"$bc\" 2>&1 >/dev/full"
		[ "$status" -eq 1 ] || fail "$p >/dev/full: status $status"
		assert_equal "$output" "$p: error: cannot write to standard output: No space left on device"
	done
}

@test "kill -9 in the middle of a run leaves no file under the output's name, or a whole one" {
	ld=/usr/local/cuda/nvvm/libdevice/libdevice.10.bc
	[ -f "$ld" ] || skip "CUDA's libdevice is not installed (a large input)"
	for delay in 0.05 0.2 0.4 0.8; do
		rm -f "$BATS_TEST_TMPDIR/out.bc"
		nv-opt -O3 "$ld" -o "$BATS_TEST_TMPDIR/out.bc" &
		pid=$!
		sleep "$delay"
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		if [ -e "$BATS_TEST_TMPDIR/out.bc" ]; then
			llvm-dis "$BATS_TEST_TMPDIR/out.bc" -o /dev/null || fail "partial file after $delay s"
		fi
	done
}
