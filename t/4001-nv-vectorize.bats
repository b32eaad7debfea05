#!/usr/bin/env bats
# nv-vectorize: each legality rule refused with its tag, the alignment
# cases (proven, versioned, neither), the PTX that comes out, and the
# meaning of versioned loops on the host.

load helper

setup_file() {
	local fe
	fe=$(fixture_bc vectorize)
	nv-opt -O3 -no-unroll -no-vectorize "$fe" -o "$BATS_FILE_TMPDIR/v.bc"
}

# vec ARGS...: nv-vectorize on the fixture; remarks YAML in $Y, IR in $OUT
vec() {
	Y="$BATS_TEST_TMPDIR/r.yaml"
	OUT="$BATS_TEST_TMPDIR/out.ll"
	run --separate-stderr nv-vectorize -arch=sm_90 "$@" -pass-remarks-output="$Y" -S \
		"$BATS_FILE_TMPDIR/v.bc" -o "$OUT"
	assert_success
}

# tag KERNEL: the name of the final (passed or missed) remark about KERNEL
tag() {
	awk -v f="'$1'" '/^--- !/ { kind = $2 } /^Name:/ { name = $2 }
		$1 == "Function:" && $2 == f && kind != "!Analysis" { print name }' "$Y"
}

# body KERNEL: the kernel's IR in $OUT
body() {
	sed -n "/^define .*@$1(/,/^}/p" "$OUT"
}

# ptx: the PTX of $OUT, in $BATS_TEST_TMPDIR/out.ptx (accepted by ptxas when installed)
ptx() {
	nv-llc -arch=sm_90 "$OUT" -o "$BATS_TEST_TMPDIR/out.ptx"
	if have_ptxas; then
		"$(ptxas_bin)" -arch=sm_90 "$BATS_TEST_TMPDIR/out.ptx" -o /dev/null
	fi
}

# wide KERNEL: the kernel's wide global accesses in out.ptx, one per line
wide() {
	awk "/\\.entry $1\\(/,/^}/" "$BATS_TEST_TMPDIR/out.ptx" | grep -oE '(ld|st)\.global(\.nc)?\.v[24]\.b[0-9]+' || true
}

@test "an unaligned row loop is versioned: ld/st.v4 behind a run-time test of both addresses" {
	vec
	[ "$(tag k_rows)" = Vectorized ]
	grep -q "k_rows: vectorized loop (vectorization width: 4, interleaved count: 1): 2 accesses of up to 16 bytes, versioned on a run-time alignment test, scalar remainder" "$Y"
	body k_rows | grep -q 'and i64 %nv.vec.addr[0-9]*, 15'
	[ "$(body k_rows | grep -c 'and i64 %nv.vec.addr')" -eq 2 ]
	body k_rows | grep -q 'br i1 %nv.vec.aligned.fr, label %vector.body, label %scalar.ph'
	body k_rows | grep -q 'load <4 x float>, ptr .*, align 16'
	body k_rows | grep -q 'store <4 x float> .*, align 16'
	ptx
	[ "$(wide k_rows | sort | tr '\n' ' ')" = "ld.global.nc.v4.b32 st.global.v4.b32 " ]
}

@test "provably aligned rows (__builtin_assume_aligned) need no test" {
	vec
	grep -q "k_aligned: vectorized loop (vectorization width: 4.*, aligned, scalar remainder" "$Y"
	! body k_aligned | grep -q nv.vec.aligned
	ptx
	[ "$(wide k_aligned | sort | tr '\n' ' ')" = "ld.global.nc.v4.b32 st.global.v4.b32 " ]
}

@test "the factor keeps accesses within 16 bytes: 2 for double, 4 for bytes (one 32-bit access)" {
	vec
	grep -q "k_double: vectorized loop (vectorization width: 2," "$Y"
	grep -q "k_bytes: vectorized loop (vectorization width: 4,.* accesses of up to 4 bytes" "$Y"
	body k_bytes | grep -q 'load <4 x i8>, ptr .*, align 4'
	ptx
	[ "$(wide k_double | sort | tr '\n' ' ')" = "ld.global.nc.v2.b64 st.global.v2.b64 " ]
	awk '/\.entry k_bytes\(/,/^}/' "$BATS_TEST_TMPDIR/out.ptx" | grep -q 'ld.global.nc.b32'
}

@test "an integer reduction is vectorized; an FP one only when reordering is allowed" {
	vec
	[ "$(tag k_isum)" = Vectorized ]
	[ "$(tag k_fsum)" = CantReorderFPOps ]
	[ "$(tag k_fcond)" = CantReorderFPOps ]
	grep -q "k_fsum: loop not vectorized: cannot prove it is safe to reorder floating-point operations" "$Y"
	! body k_fsum | grep -q '<4 x float>'
	vec -vectorize-fp-reorder=1
	[ "$(tag k_fsum)" = Vectorized ]
	body k_fsum | grep -q 'fadd .*<4 x float>'
	body k_fsum | grep -q 'llvm.vector.reduce.fadd.v4f32'
}

@test "each legality rule refuses with its tag" {
	vec
	[ "$(tag k_alias)" = CantReorderMemOps ]
	[ "$(tag k_shfl)" = ConvergentCall ]
	grep -q "it calls llvm.nvvm.shfl.sync.bfly.f32, a convergent operation" "$Y"
	[ "$(tag k_exit)" = UncountableEarlyExitLoopsDisabled ]
	grep -q "Auto-vectorization of loops with uncountable early exit is not enabled" "$Y"
	[ "$(tag k_short)" = LowTripCount ]
	grep -q "The trip count is below the minial threshold value. (8 < 16" "$Y"
	[ "$(tag k_step)" = CantComputeNumberOfIterations ]
	[ "$(tag k_pragma)" = MissedExplicitlyDisabled ]
	[ "$(tag k_call)" = CantVectorizeCall ]
	[ "$(tag k_stride)" = VectorizationNotBeneficial ]
	# #pragma unroll (llvm.loop.unroll.enable) is nv-unroll's, as #pragma unroll N is
	[ "$(tag k_unrollall)" = UnrollPragma ]
	for k in k_alias k_shfl k_exit k_short k_step k_pragma k_call k_stride k_unrollall; do
		! body $k | grep -q '<[0-9]* x ' || fail "$k has vector code"
	done
}

@test "what cannot be aligned is left scalar, never split into scalar loads" {
	vec -vectorize-version-align=0
	[ "$(tag k_rows)" = NotAligned ]
	grep -q "k_rows not vectorized: alignment is not provable and -vectorize-version-align=0" "$Y"
	! body k_rows | grep -q '<4 x float>'
	[ "$(tag k_aligned)" = Vectorized ]
	# trip count 8, factor 4: LLVM keeps no scalar loop to fall back to
	vec -vectorizer-min-trip-count=4
	[ "$(tag k_short)" = NotAligned ]
	grep -q "k_short not vectorized: alignment is not provable, and no scalar loop is left to fall back to" "$Y"
	! body k_short | grep -q '<4 x float>'
	ptx
	[ -z "$(wide k_short)" ]
}

@test "a constant trip count LLVM enters unconditionally: the alignment test hands the scalar loop its start values" {
	OUT="$BATS_TEST_TMPDIR/fs.ll"
	run --separate-stderr nv-vectorize -arch=sm_90 -pass-remarks=nv-vectorize -S \
		"$FIXTURES/vectorize-folded-start.ll" -o "$OUT"
	assert_success
	opt -passes=verify -disable-output "$OUT"
	for k in k_recur k_sum; do
		[[ "$stderr" == *"loop %loop in $k: vectorized loop (vectorization width: 4, interleaved count: 1): 1 accesses of up to 16 bytes, versioned on a run-time alignment test"* ]] ||
			fail "$k: $stderr"
		body $k | grep -q 'br i1 %nv.vec.aligned.fr, label %vector.body, label %scalar.ph'
		body $k | grep -q 'load <4 x i32>, ptr .*, align 16'
	done
	# around the vector loop: the induction's start, not where the vector loop ends
	body k_recur | grep -q 'phi i32 \[ 8, %middle.block \], \[ -8, %vector.ph \]'
	body k_recur | grep -q 'phi i32 \[ %vector.recur.extract, %middle.block \], \[ 0, %vector.ph \]'
	body k_sum | grep -q 'phi i32 \[ 21, %middle.block \], \[ 1, %vector.ph \]'
	body k_sum | grep -q 'phi i32 \[ %[0-9]*, %middle.block \], \[ %first, %vector.ph \]'
	! grep -q nv.vectorize.keep "$OUT"
}

@test "-force-target-max-vector-interleave interleaves within the register budget" {
	vec -force-target-max-vector-interleave=2
	grep -q "k_rows: vectorized loop (vectorization width: 4, interleaved count: 2): 4 accesses" "$Y"
	[ "$(body k_rows | grep -c 'and i64 %nv.vec.addr')" -eq 4 ]
	ptx
	[ "$(wide k_rows | grep -c ld.global.nc.v4.b32)" -eq 2 ]
}

@test "-O0 and -vectorize-loops=0 pass the module through" {
	for opt in -O0 -vectorize-loops=0; do
		run --separate-stderr nv-vectorize $opt -pass-remarks-analysis=nv-vectorize -S "$BATS_FILE_TMPDIR/v.bc" -o "$BATS_TEST_TMPDIR/p.ll"
		assert_success
		[[ "$stderr" == *"no vectorization: $opt"* ]] || fail "$opt: $stderr"
		diff <(llvm-dis "$BATS_FILE_TMPDIR/v.bc" -o - | grep -v '^; ModuleID') <(grep -v '^; ModuleID' "$BATS_TEST_TMPDIR/p.ll")
	done
}

@test "nv-opt -no-vectorize keeps LLVM's own loop vectorizer off" {
	fe=$(fixture_bc vectorize)
	nv-opt -O3 -no-unroll "$fe" -S -o "$BATS_TEST_TMPDIR/llvm.ll"
	nv-opt -O3 -no-unroll -no-vectorize "$fe" -S -o "$BATS_TEST_TMPDIR/ours.ll"
	grep -q 'vector.body' "$BATS_TEST_TMPDIR/llvm.ll"
	! grep -q 'vector.body' "$BATS_TEST_TMPDIR/ours.ll"
}

@test "nvcc-lite runs nv-vectorize before nv-unroll; -Xcicc -vectorize-loops=0 turns it off" {
	run nvcc-lite -ptx -dryrun -arch=sm_90 "$FIXTURES/vectorize.cu"
	assert_success
	[[ "$output" == *"nv-opt -O3 -no-unroll -no-vectorize"*"nv-vectorize -O3"*"nv-unroll -O3"* ]]
	nvcc-lite -ptx -arch=sm_90 "$FIXTURES/vectorize.cu" -o "$BATS_TEST_TMPDIR/on.ptx"
	nvcc-lite -ptx -arch=sm_90 -Xcicc -vectorize-loops=0 "$FIXTURES/vectorize.cu" -o "$BATS_TEST_TMPDIR/off.ptx"
	# k_rows, k_aligned, k_double: a load and a store each; k_isum: a load
	[ "$(grep -cE '(ld|st)\.global(\.nc)?\.v[24]' "$BATS_TEST_TMPDIR/on.ptx")" -eq 7 ]
	# off: the load-store vectorizer after the unrolls still joins the
	# runtime-unrolled copies of k_aligned's provably aligned accesses
	[ "$(grep -cE '(ld|st)\.global(\.nc)?\.v[24]' "$BATS_TEST_TMPDIR/off.ptx")" -eq 2 ]
	[ "$(awk '/^\.visible \.entry/ { k = $3 } /\.v[24]/ && k != "k_aligned(" { n++ } END { print n + 0 }' \
		"$BATS_TEST_TMPDIR/off.ptx")" -eq 0 ]
}

@test "versioned loops keep their meaning at every misalignment and length (host, lli)" {
	clang-22 -O1 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -emit-llvm -c \
		"$FIXTURES/vecmeaning.c" -o "$BATS_TEST_TMPDIR/h.bc"
	nv-vectorize -pass-remarks=nv-vectorize "$BATS_TEST_TMPDIR/h.bc" -o "$BATS_TEST_TMPDIR/hv.bc" \
		2>"$BATS_TEST_TMPDIR/rem"
	for f in scale dbl bytes rev isum sum24 recur add19; do
		grep -q "in function '$f'.*versioned on a run-time alignment test" "$BATS_TEST_TMPDIR/rem" ||
			fail "$f was not versioned: $(cat "$BATS_TEST_TMPDIR/rem")"
	done
	want=$(lli "$BATS_TEST_TMPDIR/h.bc")
	run lli "$BATS_TEST_TMPDIR/hv.bc"
	assert_success
	assert_output "$want"
}
