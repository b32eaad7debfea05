#!/usr/bin/env bats
# Fuzzing smoke: bin/fuzz-ir (libFuzzer, ASan+UBSan) over textual IR seeded
# with the fixtures runs every analysis and nv-reflect; any crash, sanitizer
# report, broken liveness equation or module left invalid fails it.
# The long runs are `make fuzz FUZZ_TIME=...`.

load helper

@test "fuzz-ir survives a short libFuzzer run from the IR fixtures" {
	[ -f /usr/lib/llvm-22/lib/clang/22/lib/linux/libclang_rt.fuzzer-x86_64.a ] ||
		skip "libclang-rt-22-dev (libFuzzer) is not installed"
	make -s --no-print-directory -C "$TOP" bin/fuzz-ir
	mkdir "$BATS_TEST_TMPDIR/corpus"
	cp "$FIXTURES"/*.ll "$BATS_TEST_TMPDIR/corpus/"
	run "$TOP/bin/fuzz-ir" -runs=20000 -seed=1 -max_len=4096 -dict="$TOP/t/fuzz/ir.dict" \
		-artifact_prefix="$BATS_TEST_TMPDIR/" "$BATS_TEST_TMPDIR/corpus"
	[ "$status" -eq 0 ] || fail "$(grep -A20 ERROR <<<"$output" | head -40)"
	assert_output --partial "Done 20000 runs"
}
