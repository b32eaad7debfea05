#!/usr/bin/env bats
# The bad-input matrix for nvcc-lite, as t/0001 is for the stages: the
# program that found the problem says so in one line (the driver adds
# nothing), the exit status is 1 for bad input and bad usage (nvcc's), nothing
# reaches stdout, and nothing is left behind: no output, no .d, no temp file.

load helper

setup_file() {
	export GOOD_BC
	GOOD_BC=$(fixture_bc saxpy)
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	mkdir -p tmp
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	cp "$FIXTURES/saxpy.cu" k.cu
}

# The files of the current directory and TMPDIR, but bats' own.
files() {
	ls -A . tmp | grep -v '^separate-stderr-'
}

# cell STATUS PROG REGEX ARGS...: nvcc-lite -MD ARGS fails with STATUS and
# one line from PROG matching REGEX, and leaves no file behind.
cell() {
	local want=$1 prog=$2 pat=$3 before
	shift 3
	before=$(files)
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -MD "$@"
	[ "$status" -eq "$want" ] || fail "nvcc-lite $*: status $status: $stderr"
	# -v's "#$ NAME=VALUE" lines (the CUDA installation, as nvcc -v) are not commands
	stderr=$(printf '%s\n' "$stderr" | grep -v '^#\$ [A-Z_]*=')
	assert_one_error "$prog"
	[[ "$stderr" =~ $pat ]] || fail "nvcc-lite $*: $stderr"
	[ "$(files)" = "$before" ] || fail "nvcc-lite $*: left $(diff <(echo "$before") <(files))"
}

@test "an empty input is one line from the first stage, at -O0 and -O3" {
	: >empty.bc
	for o in -O0 -O3; do
		cell 1 nv-link "'empty.bc' is empty" $o empty.bc -o out.ptx
	done
}

@test "garbage, bitcode or text, is one line from the first stage" {
	head -c 4096 /dev/urandom >garbage.bc
	printf 'this is not IR\n' >garbage.ll
	for o in -O0 -O3; do
		cell 1 nv-link "neither LLVM bitcode nor textual IR" $o garbage.bc -o out.ptx
		cell 1 nv-link "cannot parse IR" $o garbage.ll -o out.ptx
	done
}

@test "truncated bitcode is one line from the first stage" {
	for n in 8 100 1000; do
		head -c "$n" "$GOOD_BC" >trunc$n.bc
		cell 1 nv-link "cannot read bitcode from 'trunc$n.bc'" trunc$n.bc -o out.ptx
	done
}

@test "a module that fails the verifier is one line from the first stage" {
	cell 1 nv-link "does not dominate" "$FIXTURES/use-before-def.ll" -o out.ptx
	cell 1 nv-link "does not dominate" -O0 "$FIXTURES/use-before-def.ll" -o out.ptx
}

@test "an x86-64 module, text or bitcode, is refused by the first stage, before Phase I works" {
	llvm-as "$FIXTURES/host.ll" -o host.bc
	for in in "$FIXTURES/host.ll" host.bc; do
		for o in -O0 -O3; do
			cell 1 nv-link "module is for target 'x86_64-pc-linux-gnu', not nvptx64-nvidia-cuda" \
				$o "$in" -o out.ptx
		done
	done
}

@test "a missing input, or a directory, is one line from nvcc-lite before anything runs" {
	cell 1 nvcc-lite "cannot read 'nosuch.cu': No such file or directory" nosuch.cu -o out.ptx
	mkdir dir.cu
	cell 1 nvcc-lite "cannot read 'dir.cu': Is a directory" dir.cu -o out.ptx
}

@test "an unknown option or -Xcicc knob is one usage line from nvcc-lite, exit 1 as nvcc's" {
	cell 1 nvcc-lite "unknown option '--no-such-option'" --no-such-option k.cu -o out.ptx
	cell 1 nvcc-lite "unknown knob '-no-such-knob=1' in -Xcicc" -Xcicc -no-such-knob=1 k.cu -o out.ptx
}

@test "an -o or -MF in a missing directory is refused before the front end runs" {
	cell 1 nvcc-lite "cannot open output 'nodir/out.ptx': No such file or directory" \
		-v k.cu -o nodir/out.ptx
	cell 1 nvcc-lite "cannot open output 'nodir/out.d': No such file or directory" \
		-v k.cu -MF nodir/out.d -o out.ptx
	cell 1 nvcc-lite "cannot open output 'k.cu/out.ptx': Not a directory" k.cu -o k.cu/out.ptx
}

@test "a read-only -o is refused before the front end runs, and kept" {
	echo precious >ro.ptx
	chmod 444 ro.ptx
	cell 1 nvcc-lite "cannot open output 'ro.ptx': Permission denied" -v k.cu -o ro.ptx
	[ "$(cat ro.ptx)" = precious ]
	mkdir dir.ptx
	cell 1 nvcc-lite "cannot open output 'dir.ptx': Is a directory" k.cu -o dir.ptx
}

@test "a closed stdout is one line from the program that wrote to it" {
	before=$(files)
	run sh -c 'nvcc-lite -ptx -arch=sm_90 -MD k.cu -o - 2>&1 >&-'
	assert_equal "$status" 1
	assert_equal "$output" "nv-llc: error: cannot write to standard output: Bad file descriptor"
	run sh -c 'nvcc-lite -ptx -dryrun -arch=sm_90 k.cu -o out.ptx 2>&1 >&-'
	assert_equal "$status" 1
	assert_equal "$output" "nvcc-lite: error: cannot write to standard output: Bad file descriptor"
	run sh -c 'nvcc-lite --help 2>&1 >&-'
	assert_equal "$status" 1
	assert_equal "$output" "nvcc-lite: error: cannot write to standard output: Bad file descriptor"
	[ "$(files)" = "$before" ] || fail "left $(diff <(echo "$before") <(files))"
}

@test "a full disk (/dev/full) is one line from the program that wrote to it" {
	before=$(files)
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 k.cu -o /dev/full
	assert_equal "$status" 1
	assert_one_error nv-llc
	assert_equal "$stderr" "nv-llc: error: cannot write output '/dev/full': No space left on device"
	run sh -c 'nvcc-lite -ptx -dryrun -arch=sm_90 k.cu -o out.ptx 2>&1 >/dev/full'
	assert_equal "$status" 1
	assert_equal "$output" "nvcc-lite: error: cannot write to standard output: No space left on device"
	[ "$(files)" = "$before" ] || fail "left $(diff <(echo "$before") <(files))"
}

@test "a front-end error is clang's one diagnostic block, with no line from the driver or a stage" {
	cp "$FIXTURES/broken.cu" b.cu
	before=$(files)
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -MD b.cu -o out.ptx
	assert_equal "$status" 1 # an error in the source: nvcc -ptx's status
	assert_equal "$output" ""
	[ "$(grep -c ': error: ' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	[[ "$stderr" == "b.cu:3:7: error: use of undeclared identifier 'undeclared_name'"* ]] || fail "$stderr"
	[[ "$stderr" == *"1 error generated"* ]] || fail "$stderr"
	! grep -Eq '^(nv-[a-z]+|nvcc-lite): ' <<<"$stderr" || fail "$stderr"
	[ "$(files)" = "$before" ] || fail "left $(diff <(echo "$before") <(files))"
}

@test "the good input passes where every bad one failed: output and .d together" {
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -MD k.cu -o out.ptx
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$output" ""
	grep -qx '.target sm_90' out.ptx
	grep -q '^out.ptx: k.cu' out.d
	[ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(ls -A tmp)"
}

# bats test_tags=slow
@test "a ptxas failure under -cubin or -c is ptxas's own line, with none from nv-llc or the driver" {
	have_ptxas || skip "ptxas is not installed"
	run --separate-stderr nvcc-lite -cubin -arch=sm_90 -Xptxas -no-such-ptxas-flag k.cu -o k.cubin
	assert_equal "$status" 255 # ptxas's own, as nvcc's
	assert_equal "$(printf '%s\n' "$stderr" | grep -c '')" 1
	[[ "$stderr" == "ptxas fatal"* ]] || fail "$stderr"
	assert_file_not_exists k.cubin
	# -ptx: nvcc checks the PTX and the options with ptxas for the virtual architecture
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -Xptxas -no-such-ptxas-flag k.cu -o k.ptx
	assert_equal "$status" 255
	[[ "$stderr" == "ptxas fatal"* ]] || fail "$stderr"
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -Xptxas -O2 k.cu -o k.ptx
	assert_success
	grep -qx '.target sm_90' k.ptx
	# -cubin -o -: nv-llc runs ptxas (the status is the stage's)
	run --separate-stderr nvcc-lite -cubin -arch=sm_90 -Xptxas -no-such-ptxas-flag k.cu -o -
	assert_equal "$status" 1
	assert_output ""
	[ -x "${CUDA_PATH:-/usr/local/cuda}/bin/fatbinary" ] || skip "fatbinary is not installed"
	run --separate-stderr nvcc-lite -c -arch=sm_90 -Xptxas -no-such-ptxas-flag k.cu -o k.o
	assert_equal "$status" 255 # ptxas's own, as nvcc's
	assert_equal "$(printf '%s\n' "$stderr" | grep -c '')" 1
	assert_file_not_exists k.o
}

@test "-MD with -o - names the dependency file and its target for the default output, not '-'" {
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -MD k.cu -o -
	assert_success
	assert_file_not_exists ./-.d
	assert_file_exists k.d
	run head -1 k.d
	assert_output --regexp '^k\.ptx: .*k\.cu'
}

@test "a stage's -pass-remarks-output that cannot be written is refused before any output" {
	run --separate-stderr nv-opt -O3 -pass-remarks-output=nodir/r.yaml "$(fixture_bc saxpy)" -o out.bc
	[ "$status" -ne 0 ]
	assert_one_error nv-opt
	assert_file_not_exists out.bc
}
