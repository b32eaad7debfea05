#!/usr/bin/env bats
# bats file_tags=slow
# Fuzzing smoke: bin/fuzz-ir (libFuzzer, ASan+UBSan) over textual IR seeded
# with the fixtures, once per stage (NV_FUZZ_STAGE); any crash, sanitizer
# report, broken liveness equation, module left invalid or function lost
# in a split fails it.
# The long runs are `make fuzz FUZZ_TIME=...`.

load helper

have_libfuzzer() {
	[ -f /usr/lib/llvm-22/lib/clang/22/lib/linux/libclang_rt.fuzzer-x86_64.a ]
}

# built once, before the tests run side by side
setup_file() {
	! have_libfuzzer || make -s --no-print-directory -C "$TOP" bin/fuzz-ir
}

fuzz_stage() {
	have_libfuzzer || skip "libclang-rt-22-dev (libFuzzer) is not installed"
	mkdir "$BATS_TEST_TMPDIR/corpus"
	cp "$FIXTURES"/*.ll "$BATS_TEST_TMPDIR/corpus/"
	NV_FUZZ_STAGE=$1 run "$TOP/bin/fuzz-ir" -runs="$2" -seed=1 -max_len=4096 -dict="$TOP/t/fuzz/ir.dict" \
		-artifact_prefix="$BATS_TEST_TMPDIR/" "$BATS_TEST_TMPDIR/corpus"
	[ "$status" -eq 0 ] || fail "$(grep -A20 ERROR <<<"$output" | head -40)"
	# libFuzzer stops at the first check past -runs: "Done 5021 runs" for 5000
	# when a mutation batch crosses the limit, as the seed corpus decides
	[[ "$output" =~ Done\ ([0-9]+)\ runs ]] || fail "libFuzzer did not say it finished"
	[ "${BASH_REMATCH[1]}" -ge "$2" ] || fail "${BASH_REMATCH[1]} runs of $2"
}

@test "fuzz-ir: the analyses and nv-reflect survive a short libFuzzer run" {
	fuzz_stage reflect 20000
}

@test "fuzz-ir: nv-inline survives a short libFuzzer run" {
	fuzz_stage inline 5000
}

@test "fuzz-ir: nv-unroll survives a short libFuzzer run" {
	fuzz_stage unroll 5000
}

@test "fuzz-ir: nv-vectorize survives a short libFuzzer run" {
	fuzz_stage vectorize 5000
}

@test "fuzz-ir: nv-remat (every candidate taken) survives a short libFuzzer run" {
	fuzz_stage remat 5000
}

@test "fuzz-ir: nv-split and the join give back every function in a short libFuzzer run" {
	fuzz_stage split 5000
}

@test "fuzz-ir refuses a stage it does not know" {
	[ -x "$TOP/bin/fuzz-ir" ] || skip "bin/fuzz-ir is not built"
	NV_FUZZ_STAGE=nope run "$TOP/bin/fuzz-ir" -runs=1 /dev/null
	assert_equal "$status" 2
	assert_output --partial "unknown stage 'nope'"
}
