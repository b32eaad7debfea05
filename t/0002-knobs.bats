#!/usr/bin/env bats
# The knob table (lib/base/knobs.def): parsing, ranges, ownership, --help.

load helper

# knob rows of knobs.def: "name stages"
knob_rows() {
	sed -n 's/^\(LLVM_\)\{0,1\}KNOB([A-Z0-9_]*, "\([^"]*\)", \([A-Z_| ]*\),.*/\2 \3/p' "$TOP/lib/base/knobs.def"
}

# bats test_tags=slow
@test "knobs.def has rows and every row is listed in its owner's --help" {
	[ "$(knob_rows | wc -l)" -gt 0 ]
	while read -r name stages; do
		owner=nv-$(echo "$stages" | sed 's/NV_STAGE_//; s/ .*//' | tr 'A-Z' 'a-z')
		run "$owner" --help
		assert_success
		assert_output --partial "-$name="
	done < <(knob_rows)
}

@test "a stage lists no knob it does not own" {
	run nv-opt --help
	refute_output --partial "nvptx-sched4reg"
	run nv-llc --help
	refute_output --partial "verify-each"
}

@test "a knob owned by another stage is refused with its owner named" {
	run --separate-stderr nv-opt -nvptx-sched4reg=1 </dev/null
	assert_equal "$status" 2
	assert_equal "$stderr" "nv-opt: error: knob '-nvptx-sched4reg' belongs to nv-llc, not nv-opt"
}

@test "a misspelt knob gets a suggestion" {
	run --separate-stderr nv-llc -nvptx-sched4rg=1 </dev/null
	assert_equal "$status" 2
	assert_equal "$stderr" "nv-llc: error: unknown option '-nvptx-sched4rg=1'; did you mean '-nvptx-sched4reg=1'?"
}

@test "knob values are checked against type and range" {
	run --separate-stderr nv-llc -nvptx-fma-level=7 </dev/null
	assert_equal "$status" 2
	assert_equal "$stderr" "nv-llc: error: invalid value '7' for knob -nvptx-fma-level: expected an integer from 0 to 2"
	run --separate-stderr nv-llc -nvptx-sched4reg=maybe </dev/null
	assert_equal "$status" 2
	run --separate-stderr nv-llc -nvptx-fma-level </dev/null
	assert_equal "$status" 2
	assert_equal "$stderr" "nv-llc: error: knob '-nvptx-fma-level' needs a value: -nvptx-fma-level=VALUE"
}

@test "an LLVM knob reaches the backend: -nvptx-prec-divf32=0 gives div.approx" {
	bc=$(fixture_bc saxpy)
	run nv-llc -arch=sm_90 "$bc"
	assert_success
	assert_output --partial "div.rn.f32"
	run nv-llc -arch=sm_90 -nvptx-prec-divf32=0 "$bc"
	assert_success
	assert_output --partial "div.approx.f32"
	refute_output --partial "div.rn.f32"
}

@test "a boolean knob may be given bare" {
	bc=$(fixture_bc saxpy)
	run nv-opt -O1 -verify-each "$bc" -o /dev/null
	assert_success
}
