#!/usr/bin/env bats
# nv-llc: PTX for one sm_XX, register limits, line info, cubin via ptxas.

load helper

setup_file() {
	export BC O3
	BC=$(fixture_bc saxpy)
	O3="$BATS_FILE_TMPDIR/saxpy.O3.bc"
	nv-opt -O3 "$BC" -o "$O3"
}

@test "nv-llc writes PTX for the requested sm_XX" {
	run nv-llc -arch=sm_90 "$O3"
	assert_success
	assert_line ".target sm_90"
	assert_line ".address_size 64"
	assert_output --partial ".visible .entry _Z5saxpyifPKfPf("
}

@test "nv-llc defaults to sm_75 like nvcc 13" {
	run nv-llc "$O3"
	assert_success
	assert_line ".target sm_75"
}

@test "nv-llc accepts compute_XX as the same GPU and rejects unknown ones" {
	run nv-llc -arch=compute_80 "$O3"
	assert_success
	assert_line ".target sm_80"
	run --separate-stderr nv-llc -arch=sm_70 </dev/null
	assert_equal "$status" 2
	assert_one_error nv-llc
}

@test "ptxas accepts nv-llc's PTX at every -O level and on unoptimized input" {
	have_ptxas || skip "ptxas is not installed"
	for o in 0 1 2 3; do
		for in in "$BC" "$O3"; do
			nv-llc -arch=sm_90 -O$o "$in" -o "$BATS_TEST_TMPDIR/k.ptx"
			run "$(ptxas_bin)" -arch=sm_90 "$BATS_TEST_TMPDIR/k.ptx" -o /dev/null
			[ "$status" -eq 0 ] || fail "-O$o $in: $output"
		done
	done
}

@test "-maxrregcount puts .maxnreg on kernels and rejects 0" {
	run nv-llc -arch=sm_90 -maxrregcount=24 "$O3"
	assert_success
	assert_line ".maxnreg 24"
	run --separate-stderr nv-llc -maxrregcount=0 </dev/null
	assert_equal "$status" 2
}

@test "-lineinfo keeps .loc line tables; without it there are none" {
	CUDA_PATH=/nonexistent clang-22 -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 -nocudalib \
		-nocudainc -include "$TOP/share/nvcc-lite/cuda_shim.h" -O3 -Xclang -disable-llvm-passes \
		-gline-tables-only -emit-llvm -c "$FIXTURES/saxpy.cu" -o "$BATS_TEST_TMPDIR/g.bc"
	run nv-llc -arch=sm_90 -lineinfo "$BATS_TEST_TMPDIR/g.bc"
	assert_success
	assert_output --regexp $'\t\\.loc\t[0-9]+ [0-9]+ [0-9]+'
	assert_output --partial ".file"
	run nv-llc -arch=sm_90 "$BATS_TEST_TMPDIR/g.bc"
	assert_success
	refute_output --partial ".loc"
}

@test "-cubin runs ptxas and writes an ELF cubin" {
	have_ptxas || skip "ptxas is not installed"
	run nv-llc -arch=sm_90 -cubin "$O3" -o "$BATS_TEST_TMPDIR/k.cubin"
	assert_success
	[ "$(head -c 4 "$BATS_TEST_TMPDIR/k.cubin" | od -An -c | tr -d ' ')" = '177ELF' ]
}

@test "-cubin without ptxas is one clear error" {
	run --separate-stderr env PATH=/usr/bin:/bin CUDA_PATH=/nonexistent \
		"$TOP/bin/nv-llc" -cubin "$O3" -o "$BATS_TEST_TMPDIR/k.cubin"
	assert_equal "$status" 1
	assert_equal "$stderr" "nv-llc: error: -cubin needs ptxas, which was not found (set CUDA_PATH or PATH)"
	assert_file_not_exists "$BATS_TEST_TMPDIR/k.cubin"
}

@test "nv-llc refuses a module for another target" {
	run --separate-stderr nv-llc "$FIXTURES/host.ll"
	assert_equal "$status" 1
	assert_equal "$stderr" "nv-llc: error: module is for target 'x86_64-pc-linux-gnu', not nvptx64-nvidia-cuda"
}

@test "a module without a triple is taken as nvptx64" {
	printf 'define ptx_kernel void @k(ptr %%p) {\n  store i32 7, ptr %%p\n  ret void\n}\n' >"$BATS_TEST_TMPDIR/bare.ll"
	run nv-llc -arch=sm_90 "$BATS_TEST_TMPDIR/bare.ll"
	assert_success
	assert_output --partial ".visible .entry k("
}

@test "an error the backend reports as a diagnostic fails the run" {
	run --separate-stderr nv-llc -arch=sm_90 "$FIXTURES/asm-bad-constraint.ll" -o "$BATS_TEST_TMPDIR/a.ptx"
	assert_equal "$status" 1
	assert_equal "$stderr" "nv-llc: error: cannot generate PTX: couldn't allocate output register for constraint 'Z'"
	assert_file_not_exists "$BATS_TEST_TMPDIR/a.ptx"
}

@test "a fatal error inside LLVM is one line and exit 1, not an abort" {
	run --separate-stderr nv-llc -arch=sm_90 "$FIXTURES/asm-i128-isel.ll" -o "$BATS_TEST_TMPDIR/b.ptx"
	assert_equal "$status" 1
	assert_one_error nv-llc
	[[ "$stderr" == "nv-llc: error: LLVM: Cannot select: "*"(in function 'k')" ]] || fail "$stderr"
	assert_file_not_exists "$BATS_TEST_TMPDIR/b.ptx"
}

@test "32-bit local pointers: a byval parameter whose address is taken or read late is copied, one read first is not; -O0 refuses" {
	ll="$FIXTURES/byval-short.ll"
	for o in 1 3; do
		run --separate-stderr nv-llc -arch=sm_90 -O$o -pass-remarks=nv-llc "$ll" -o "$BATS_TEST_TMPDIR/b$o.ptx"
		assert_success
		# push's and later's parameters are copied (push's into a local
		# depot of 16 bytes); real's is read in place
		[ "$(grep -c "ByvalCopied\|copied to a local" <<<"$stderr")" -eq 2 ] || fail "$stderr"
		sed -n '/\.func .*push(/,/^}/p' "$BATS_TEST_TMPDIR/b$o.ptx" | grep -q '__local_depot.*\[16\]'
		sed -n '/\.func .*real(/,/^}/p' "$BATS_TEST_TMPDIR/b$o.ptx" >"$BATS_TEST_TMPDIR/real.ptx"
		run grep -c __local_depot "$BATS_TEST_TMPDIR/real.ptx"
		assert_output 0
		if have_ptxas; then
			run "$(ptxas_bin)" -arch=sm_90 "$BATS_TEST_TMPDIR/b$o.ptx" -o /dev/null
			assert_success
		fi
	done
	run --separate-stderr nv-llc -arch=sm_90 -O0 "$ll" -o "$BATS_TEST_TMPDIR/b0.ptx"
	assert_failure 1
	assert_one_error nv-llc
	[[ $stderr == *"'push', a device function with a byval parameter"*"use -O1 or more"* ]] || fail "$stderr"
	[ ! -e "$BATS_TEST_TMPDIR/b0.ptx" ]
}

@test "nvcc-lite gives optimized device code 32-bit shared pointers, and -O0 or -G code 64-bit ones" {
	printf '%s\n' 'extern __shared__ int s[];' \
		'__global__ void k(int *o) { s[threadIdx.x] = o[threadIdx.x]; __syncthreads(); o[threadIdx.x] = s[threadIdx.x ^ 1]; }' \
		>"$BATS_TEST_TMPDIR/s.cu"
	for o in -O3 -O1 -O0 -G; do
		CUDA_PATH=/nonexistent nvcc-lite -emit-llvm -arch=sm_90 $o "$BATS_TEST_TMPDIR/s.cu" -o "$BATS_TEST_TMPDIR/s.bc"
		dl=$(llvm-dis-22 "$BATS_TEST_TMPDIR/s.bc" -o - | grep '^target datalayout')
		case $o in
		-O[13]) [[ $dl == *-p3:32:32* ]] || fail "$o: $dl" ;;
		*) [[ $dl != *p3:32* ]] || fail "$o: $dl" ;;
		esac
	done
}

@test "a module holding a function over -slsr-max-function-size gets no straight-line strength reduction, and a remark says why" {
	run nv-llc -arch=sm_90 -pass-remarks-missed=nv-llc "$FIXTURES/slsr.ll"
	assert_success
	refute_output --partial "remark"
	[ "$(grep -c 'mul\.lo' <<<"$output")" -eq 1 ]
	run nv-llc -arch=sm_90 -slsr-max-function-size=5 -pass-remarks-missed=nv-llc "$FIXTURES/slsr.ll"
	assert_success
	assert_output --partial "nv-llc: remark: in function 'k': no straight-line strength reduction in this module: a function of 11 instructions is over -slsr-max-function-size=5"
	[ "$(grep -c 'mul\.lo' <<<"$output")" -eq 2 ]
	# 0 is no limit
	run nv-llc -arch=sm_90 -slsr-max-function-size=0 "$FIXTURES/slsr.ll"
	[ "$(grep -c 'mul\.lo' <<<"$output")" -eq 1 ]
	# a size that is not one is a usage error, before any work
	run --separate-stderr nv-llc -arch=sm_90 -slsr-max-function-size=-1 "$FIXTURES/slsr.ll"
	assert_equal "$status" 2
	assert_equal "$output" ""
	[[ "$stderr" == "nv-llc: error: invalid value '-1' for knob -slsr-max-function-size"* ]] || fail "$stderr"
}

# bats test_tags=slow
@test "a function where LSR makes eight more 64-bit IVs and more pressure gets the codegen IR passes without it; the rest keep it" {
	for k in 1 0; do
		run --separate-stderr nvcc-lite -ptx -arch=sm_90 -O3 "$FIXTURES/lsr.cu" -o "$BATS_TEST_TMPDIR/l$k.ptx" \
			-Xcicc -lsr-by-pressure=$k -save-remarks "$BATS_TEST_TMPDIR/r$k"
		assert_success
	done
	grep -h -A10 'Name: *LSRDropped' "$BATS_TEST_TMPDIR"/r1/*.yaml | grep -q "left out of ''_Z7copyp2pP4int4PKS_m'': it makes 22 register units of phis (2 without)"
	run grep -l 'LSRDropped' "$BATS_TEST_TMPDIR"/r0/*.yaml
	assert_failure
	# the other functions, cut apart and joined again, are the same PTX
	drop() { awk '/\.entry _Z7copyp2p/ { s = 1 } !s { print } s && /^}/ { s = 0 }' "$1"; }
	run diff <(drop "$BATS_TEST_TMPDIR/l1.ptx") <(drop "$BATS_TEST_TMPDIR/l0.ptx")
	assert_success
	# copyp2p: one 64-bit index, not eleven pointers stepping by 80 bytes
	[ "$(awk '/\.entry _Z7copyp2p/,/^}/' "$BATS_TEST_TMPDIR/l0.ptx" | grep -c 'mul.lo.s64.*, 80;')" -eq 1 ]
	[ "$(awk '/\.entry _Z7copyp2p/,/^}/' "$BATS_TEST_TMPDIR/l1.ptx" | grep -c 'mul.lo.s64.*, 80;')" -eq 0 ]
	if have_ptxas; then
		regs() { "$(ptxas_bin)" -v -arch=sm_90 "$1" -o /dev/null 2>&1 | awk '/Compiling entry.*copyp2p/ { c = 1 } c && /Used/ { print $5; exit }'; }
		with=$(regs "$BATS_TEST_TMPDIR/l0.ptx") without=$(regs "$BATS_TEST_TMPDIR/l1.ptx")
		# 40 and 18 (cicc: 20)
		[ "$without" -lt "$with" ] || fail "copyp2p: $without registers, $with with LSR"
	fi
	# LSR that doubles the most live into a block goes too (bench's stencil3d_7pt:
	# 56 registers with it, 27 without, cicc 32)
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -O3 "$BATS_TEST_DIRNAME/../bench/kernels/stencil3d_7pt.cu" \
		-o "$BATS_TEST_TMPDIR/s.ptx" -Xcicc -pass-remarks=nv-llc
	assert_success
	[[ "$stderr" == *"loop strength reduction left out of 'stencil3d_7pt'"* ]] || fail "$stderr"
	# 61 (28 without): at least double
	in=$(sed -n "s/.*raises the most live into a block to \([0-9]*\) (\([0-9]*\) without).*/\1 \2/p" <<<"$stderr")
	[ "${in% *}" -ge $((2 * ${in#* })) ] || fail "$stderr"
}

@test "a module with an alias, which cannot be cut by function, keeps LSR everywhere and still compiles" {
	nvcc-lite -ptx -arch=sm_90 -O3 "$FIXTURES/lsr.cu" -keep -keep-dir "$BATS_TEST_TMPDIR" -o /dev/null 2>/dev/null
	# nv-llc's input: the last nv-opt step's output
	last=$(ls "$BATS_TEST_TMPDIR"/lsr.*-nv-opt.bc | sort -V | tail -1)
	llvm-dis "$last" -o "$BATS_TEST_TMPDIR/in.ll"
	{ cat "$BATS_TEST_TMPDIR/in.ll"; echo '@scaled_alias = alias float (float), ptr @_Z6scaledf'; } >"$BATS_TEST_TMPDIR/alias.ll"
	for f in in alias; do
		run --separate-stderr nv-llc -O3 -arch=sm_90 -stop-after=codegenprepare -pass-remarks=nv-llc \
			"$BATS_TEST_TMPDIR/$f.ll" -o "$BATS_TEST_TMPDIR/$f.bc"
		assert_success
		echo "$stderr" >"$BATS_TEST_TMPDIR/$f.err"
	done
	grep -q "left out of '_Z7copyp2pP4int4PKS_m'" "$BATS_TEST_TMPDIR/in.err"
	run grep -c "left out of" "$BATS_TEST_TMPDIR/alias.err"
	assert_output 0
	run nv-llc -O3 -arch=sm_90 -start-after=codegenprepare "$BATS_TEST_TMPDIR/alias.bc" -o "$BATS_TEST_TMPDIR/alias.ptx"
	assert_success
	grep -q '^.visible .entry _Z7copyp2pP4int4PKS_m(' "$BATS_TEST_TMPDIR/alias.ptx"
}
