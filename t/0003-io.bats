#!/usr/bin/env bats
# Reading and writing modules: bitcode and text, round trips, atomic -o,
# determinism, remarks YAML.

load helper

setup_file() {
	export BC
	BC=$(fixture_bc saxpy)
}

@test "bitcode round-trips unchanged through a stage with no passes" {
	run nv-opt "$BC" -o "$BATS_TEST_TMPDIR/rt.bc"
	assert_success
	cmp <(llvm-dis <"$BC") <(llvm-dis <"$BATS_TEST_TMPDIR/rt.bc")
}

@test "text IR in, -S text out, and back to identical bitcode" {
	llvm-dis "$BC" -o "$BATS_TEST_TMPDIR/k.ll"
	run nv-opt -S "$BATS_TEST_TMPDIR/k.ll"
	assert_success
	assert_output --regexp "define [a-z_ ]*ptx_kernel void @_Z5saxpyifPKfPf"
	nv-opt "$BATS_TEST_TMPDIR/k.ll" -o "$BATS_TEST_TMPDIR/a.bc"
	nv-opt "$BC" -o "$BATS_TEST_TMPDIR/b.bc"
	cmp <(llvm-dis <"$BATS_TEST_TMPDIR/a.bc") <(llvm-dis <"$BATS_TEST_TMPDIR/b.bc")
}

@test "stdin and stdout work as the default input and output" {
	nv-opt -O2 <"$BC" >"$BATS_TEST_TMPDIR/p.bc"
	nv-opt -O2 "$BC" -o "$BATS_TEST_TMPDIR/f.bc"
	cmp "$BATS_TEST_TMPDIR/p.bc" "$BATS_TEST_TMPDIR/f.bc"
	run nv-opt - -S <"$BC"
	assert_success
	assert_output --partial "target triple = \"nvptx64-nvidia-cuda\""
}

@test "output is deterministic: two runs give identical bytes" {
	nv-opt -O3 "$BC" -o "$BATS_TEST_TMPDIR/1.bc"
	nv-opt -O3 "$BC" -o "$BATS_TEST_TMPDIR/2.bc"
	cmp "$BATS_TEST_TMPDIR/1.bc" "$BATS_TEST_TMPDIR/2.bc"
	nv-llc -arch=sm_90 "$BC" -o "$BATS_TEST_TMPDIR/1.ptx"
	nv-llc -arch=sm_90 "$BC" -o "$BATS_TEST_TMPDIR/2.ptx"
	cmp "$BATS_TEST_TMPDIR/1.ptx" "$BATS_TEST_TMPDIR/2.ptx"
}

@test "-o writes files with the usual permissions and into devices in place" {
	nv-opt "$BC" -o "$BATS_TEST_TMPDIR/perm.bc"
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/perm.bc")" = "$(printf '%o' $((0666 & ~$(umask))))" ]
	run nv-opt "$BC" -o /dev/null
	assert_success
	[ -c /dev/null ]
}

@test "a bitcode wrapper header is read as bitcode" {
	# 0x0B17C0DE wrapper: magic, version, offset 20, size, cputype, then the bitcode.
	size=$(stat -c %s "$BC")
	{
		printf '\336\300\027\013\000\000\000\000\024\000\000\000'
		printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((size & 255)) $((size >> 8 & 255)) $((size >> 16 & 255)) $((size >> 24 & 255)))"
		printf '\000\000\000\000'
		cat "$BC"
	} >"$BATS_TEST_TMPDIR/wrapped.bc"
	run nv-opt -S "$BATS_TEST_TMPDIR/wrapped.bc"
	assert_success
	assert_output --partial "_Z5saxpyifPKfPf"
}

@test "remarks go to stderr under -pass-remarks-analysis and to YAML that llvm-remarkutil reads" {
	run --separate-stderr nv-opt -O3 -pass-remarks-analysis=nv-opt \
		-pass-remarks-output="$BATS_TEST_TMPDIR/r.yaml" "$BC" -o /dev/null
	assert_success
	[[ "$stderr" == *"nv-opt: remark: in function '_Z5saxpyifPKfPf': "*" -> "*" instructions with 'default<O3>' [-pass-remarks-analysis=nv-opt]"* ]] ||
		fail "$stderr"
	grep -q '^--- !Analysis$' "$BATS_TEST_TMPDIR/r.yaml"
	run llvm-remarkutil count --parser=yaml --group-by=function "$BATS_TEST_TMPDIR/r.yaml"
	assert_success
	assert_line "_Z5saxpyifPKfPf,1"
}

@test "no remarks are printed unless asked for" {
	run --separate-stderr nv-opt -O3 "$BC" -o /dev/null
	assert_success
	assert_equal "$stderr" ""
}

@test "an invalid remark regex is a usage error" {
	run --separate-stderr nv-opt -pass-remarks='(' "$BC" -o /dev/null
	assert_equal "$status" 2
	assert_one_error nv-opt
}
