#!/usr/bin/env bats
# lib analyses against LLVM's own (dominators, post-dominators, loops,
# trip counts), and liveness, cost and occupancy on known answers.

load helper

setup_file() {
	export CORPUS="$BATS_FILE_TMPDIR"
	clang-22 -O1 -fno-unroll-loops -emit-llvm -c "$FIXTURES/tripcounts.c" -o "$CORPUS/tc.rot.bc"
	clang-22 -O0 -Xclang -disable-O0-optnone -emit-llvm -c "$FIXTURES/tripcounts.c" -o - |
		nv-opt -passes='function(sroa,instcombine<no-verify-fixpoint>,simplifycfg)' -o "$CORPUS/tc.while.bc"
	# the increment GVN's PRE copies into both arms of a branch (sha256's rounds)
	llvm-as "$FIXTURES/tripcount-prephi.ll" -o "$CORPUS/prephi.rot.bc"
	for cu in "$TOP"/share/examples/*.cu "$FIXTURES"/sum8.cu; do
		n=$(basename "$cu" .cu)
		clang-22 -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 -nocudalib -nocudainc \
			-include "$TOP/share/nvcc-lite/cuda_shim.h" -Wno-unknown-cuda-version -O3 \
			-Xclang -disable-llvm-passes -emit-llvm -c "$cu" -o "$CORPUS/$n.fe.bc"
		nv-opt -pipeline=loop-canon "$CORPUS/$n.fe.bc" -o "$CORPUS/$n.rot.bc"
		nv-opt -passes='function(sroa,simplifycfg)' "$CORPUS/$n.fe.bc" -o "$CORPUS/$n.while.bc"
	done
}

# bats test_tags=slow
@test "dominators, post-dominators, loops and trip counts agree with LLVM on kernels and loop shapes" {
	run bash "$TOP/t/loops-vs-llvm.sh" "$CORPUS"/*.rot.bc "$CORPUS"/*.while.bc
	echo "$output" >&3
	assert_success
	assert_line --regexp '^constant trip counts: [0-9]+ in LLVM, [0-9]+ found by ours with the same value \(100\.0%\)$'
	refute_line --partial "0 in LLVM, 0 in ours"
}

# bats test_tags=slow
@test "the same on all of libdevice" {
	ld=/usr/local/cuda/nvvm/libdevice/libdevice.10.bc
	[ -f "$ld" ] || skip "CUDA's libdevice is not installed"
	run bash "$TOP/t/loops-vs-llvm.sh" "$ld"
	echo "$output" >&3
	assert_success
	assert_line --regexp '^loops: [0-9]+ in LLVM, [0-9]+ in ours, 0 differing$'
}

# bats test_tags=slow
@test "the same on llvm-stress modules (random CFGs)" {
	for i in $(seq 1 25); do
		llvm-stress -seed="$i" -size=$((100 + 7 * i)) -o "$BATS_TEST_TMPDIR/s$i.ll"
	done
	run bash "$TOP/t/loops-vs-llvm.sh" "$BATS_TEST_TMPDIR"/s*.ll
	echo "$output" >&3
	assert_success
}

@test "liveness gives the known live-in and live-out sets and register units" {
	# (-disable-output: stderr alone is the output)
	run nv-opt -print=liveness -disable-output "$FIXTURES/liveness.ll"
	assert_success
	assert_line "  Block %entry: live-in = 3 (2 units), live-out = 3 (3 units), max = 4 (3 units)"
	assert_line "  Block %then: live-in = 3 (3 units), live-out = 2 (2 units), max = 3 (3 units)"
	assert_line "  Block %join: live-in = 1 (1 units), live-out = 0 (0 units), max = 2 (2 units)"
	# ptr 2 + i64 2 + double 2 + <4 x float> 4 + i32 1 = 11 units, and one predicate
	assert_line "  Block %entry: live-in = 6 (11 units), live-out = 6 (11 units), max = 6 (11 units)"
	assert_line "  max live = 6 values, 11 register units, 1 predicates"
	# the loop: the phis i, s are defined at the top, so only n is live in;
	# n, i1 and s1 are live out (i1 around the back edge, s1 to the exit too)
	assert_line "  Block %head: live-in = 1 (1 units), live-out = 3 (3 units), max = 4 (3 units)"
	assert_line "  Block %exit: live-in = 1 (1 units), live-out = 0 (0 units), max = 1 (1 units)"
	# the most live into one block (what nv-remat and nv-llc's LSR rule read)
	assert_line "  most live in = 3 register units (block %then)"
	assert_line "  most live in = 11 register units (block %entry)"
	assert_line "  most live in = 1 register units (block %entry)"
	refute_output --partial INCONSISTENT
}

@test "liveness is consistent (live-in = use | (live-out - def)) on libdevice and stress modules" {
	for i in 1 2 3 4 5; do
		llvm-stress -seed="$i" -size=300 -o "$BATS_TEST_TMPDIR/s$i.ll"
		run --separate-stderr nv-opt -print=liveness -disable-output "$BATS_TEST_TMPDIR/s$i.ll"
		assert_success
		[[ "$stderr" != *INCONSISTENT* ]] || fail "seed $i"
	done
	ld=/usr/local/cuda/nvvm/libdevice/libdevice.10.bc
	[ -f "$ld" ] || skip "CUDA's libdevice is not installed"
	run --separate-stderr nv-opt -print=liveness -disable-output "$ld"
	assert_success
	[[ "$stderr" != *INCONSISTENT* ]]
	[ "$(grep -c '^  max live = ' <<<"$stderr")" -gt 300 ]
}

@test "occupancy follows the register file: 64 warps up to 32 registers on sm_90, then the cliffs" {
	run nv-opt -arch=sm_90 -print=occupancy -disable-output "$FIXTURES/liveness.ll"
	assert_success
	assert_line "  max live 11 register units: 64 of 64 warps on sm_90; cliffs at 32 40 48 56 64 72 80 96 128 168"
	run nv-opt -arch=sm_75 -print=occupancy -disable-output "$FIXTURES/liveness.ll"
	assert_line "  max live 11 register units: 32 of 32 warps on sm_75; cliffs at 64 72 80 96 128 168"
}

@test "cost: loop body and fixed cost, expensive division" {
	run nv-opt -print=cost -disable-output "$FIXTURES/liveness.ll"
	assert_success
	# head: two phis (0) + two adds + icmp + br = 4
	assert_line "  Loop %head: body cost 4, fixed cost 2"
	printf 'define i32 @d(i32 %%a, i32 %%b) {\n  %%q = sdiv i32 %%a, %%b\n  ret i32 %%q\n}\n' >"$BATS_TEST_TMPDIR/d.ll"
	run --separate-stderr nv-opt -print=cost -disable-output "$BATS_TEST_TMPDIR/d.ll"
	[[ "$stderr" == *"function cost 21"* ]] || fail "$stderr"
}

@test "loop pragmas are read and written as llvm.loop metadata" {
	cc -std=c17 -I"$TOP/lib" $(llvm-config-22 --cflags) "$FIXTURES/loopmd.c" "$TOP/lib/libnv.a" \
		$(make -s --no-print-directory -C "$TOP" print-ldflags) -o "$BATS_TEST_TMPDIR/loopmd"
	# the while loops of the C fixture carry llvm.loop.mustprogress, which must survive
	run --separate-stderr "$BATS_TEST_TMPDIR/loopmd" "$CORPUS/tc.while.bc" 4
	assert_success
	[[ "$stderr" == "count 4 mustprogress 1->1 disable 1"* ]] || fail "$stderr"
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/md.ll"
	run nv-opt -print=loops -disable-output "$BATS_TEST_TMPDIR/md.ll"
	assert_success
	assert_output --partial "unroll.count 4, unroll.runtime.disable, mustprogress"
	# and LLVM's unroller honours the count we wrote: x4, then marks it done
	opt -passes='loop-unroll' -S "$BATS_TEST_TMPDIR/md.ll" -o "$BATS_TEST_TMPDIR/un.ll"
	[ "$(sed -n '/define.*@lt()/,/^}/p' "$BATS_TEST_TMPDIR/un.ll" | grep -c 'load volatile')" -eq 4 ]
	run nv-opt -print=loops -disable-output "$BATS_TEST_TMPDIR/un.ll"
	[[ "$(sed -n "/function 'lt'/,+2p" <<<"$output")" == *"unroll.disable"* ]] || fail "$output"
}

@test "trip counts: a bound's range gives a maximum (n & 7 at most 7 trips), as LLVM's max backedge-taken count" {
	run --separate-stderr nv-opt -print=tripcount -disable-output "$FIXTURES/tripcount-max.ll"
	assert_success
	max() { sed -n "/function '$1'/,/Trip multiple/p" <<<"$stderr" | sed -n 's/.*constant max backedge-taken count is i32 //p'; }
	assert_equal "$(max and7)" 6
	assert_equal "$(max urem5)" 3
	assert_equal "$(max zext8)" 254
	# an equality exit on an increment that may wrap has no maximum
	assert_equal "$(max wraps)" ""
	# LLVM agrees where it knows (on urem it knows less: 2147483646)
	run opt -passes='print<scalar-evolution>' -disable-output "$FIXTURES/tripcount-max.ll"
	assert_output --partial "constant max backedge-taken count is i32 6"
	assert_output --partial "constant max backedge-taken count is i32 254"
}

@test "trip counts: an inner loop from one outer counter to another moving in step has a constant count, as LLVM's" {
	run --separate-stderr nv-opt -print=tripcount -disable-output "$FIXTURES/tripcount-nested.ll"
	assert_success
	btc() { sed -n "/function '$1'/,/^tripcount for/p" <<<"$stderr" | sed -n 's/^Loop %inner: backedge-taken count is //p'; }
	assert_equal "$(btc nested)" "i32 7"
	# counters that drift apart (+8, +9) give no constant
	[[ "$(btc skew)" == symbolic* ]] || fail "skew: $(btc skew)"
	run opt -passes='print<scalar-evolution>' -disable-output "$FIXTURES/tripcount-nested.ll"
	assert_output --partial "Loop %inner: backedge-taken count is i32 7"
	assert_output --partial "Loop %inner: backedge-taken count is {7,+,1}<nuw><%outer>"
}

@test "trip counts: a loop stepping by a loop-invariant value (i += blockDim.x) is counted symbolically, as LLVM counts it" {
	run --separate-stderr nv-opt -print=tripcount -disable-output "$FIXTURES/tripcount-stride.ll"
	assert_success
	btc() { sed -n "/function '$1'/,/Trip multiple/p" <<<"$stderr" | sed -n 's/^Loop %loop: backedge-taken count is //p'; }
	assert_equal "$(btc stride)" "symbolic: {%tid,+,%step} slt %n (tested after the step)"
	assert_equal "$(btc stride_le)" "symbolic: {%tid,+,%step} sle %n (tested after the step)"
	# neither a step that changes in the loop nor one that may wrap (i += blockDim.x)
	[[ "$stderr" == *"function 'varying':"*"Unpredictable backedge-taken count"* ]] || fail "$stderr"
	[[ "$stderr" == *"function 'wraps':"*"Unpredictable backedge-taken count (the IV steps by a run-time value and may wrap)"* ]] ||
		fail "$stderr"
	run opt -passes='print<scalar-evolution>' -disable-output "$FIXTURES/tripcount-stride.ll"
	[ "$(grep -c 'Loop %loop: backedge-taken count is (.*/u %step' <<<"$output")" -eq 2 ] || fail "$output"
	[ "$(grep -c 'Loop %loop: Unpredictable backedge-taken count' <<<"$output")" -eq 2 ] || fail "$output"
}

@test "trip counts: an IV stepping by 32 under an unsigned test with no no-wrap flag may wrap past the bound, where LLVM counts nothing" {
	run --separate-stderr nv-opt -print=tripcount -disable-output "$FIXTURES/tripcount-wrap.ll"
	assert_success
	btc() { sed -n "/function '$1'/,/Trip multiple/p" <<<"$stderr" | sed -n 's/^Loop %loop: backedge-taken count is //p'; }
	assert_equal "$(btc noflag)" "symbolic: {%lane,+,32} ult %n (tested after the step) (may wrap past the bound)"
	assert_equal "$(btc nsw)" "symbolic: {%lane,+,32} ult %n (tested after the step)"
	# counted by LLVM, but nuw is what LLVM infers on a mustprogress loop (nv-unroll)
	assert_equal "$(btc nuw)" "symbolic: {%lane,+,32} ult %n (tested after the step) (no wrap by nuw alone)"
	assert_equal "$(btc unit)" "symbolic: {%lane,+,1} ult %n (tested after the step)"
	run opt -passes='print<scalar-evolution>' -disable-output "$FIXTURES/tripcount-wrap.ll"
	[[ "$output" == *"function 'noflag':"*"Loop %loop: Unpredictable backedge-taken count."*"function 'nsw':"* ]] || fail "$output"
	[ "$(grep -c 'Loop %loop: backedge-taken count is' <<<"$output")" -eq 3 ] || fail "$output"
}

@test "trip counts: a start known by its range (j = 1 & i) and a constant bound give LLVM's constant maximum" {
	run --separate-stderr nv-opt -print=tripcount -disable-output "$FIXTURES/tripcount-start.ll"
	assert_success
	max() { sed -n "/function '$1'/,/^tripcount for/p" <<<"$stderr" | sed -n 's/.*constant max backedge-taken count is i32 //p'; }
	assert_equal "$(max oddeven)" 7
	assert_equal "$(max unsigned)" 15
	# no no-wrap flag: nothing (LLVM proves 7 from the ranges; ours is the weaker)
	assert_equal "$(max wraps)" ""
	run opt -passes='print<scalar-evolution>' -disable-output "$FIXTURES/tripcount-start.ll"
	[[ "$output" == *"function 'oddeven':"*"constant max backedge-taken count is i32 7"*"function 'unsigned':"*"constant max backedge-taken count is i32 15"* ]] || fail "$output"
}

@test "trip counts: a start's signed range from its arithmetic is LLVM's S: range (a select's tighter), none where nothing is known" {
	run --separate-stderr nv-opt -print=tripcount -disable-output "$FIXTURES/tripcount-srange.ll"
	assert_success
	ours() { sed -n "/function '$1'/,/^tripcount for/p" <<<"$stderr" | sed -n 's/.*start %s in S: \[\(.*\),\(.*\)\]$/\1 \2/p'; }
	run opt -passes='print<scalar-evolution>' -disable-output "$FIXTURES/tripcount-srange.ll"
	assert_success
	# LLVM's half-open S: [lo,hi) of %s, as "lo hi-1"
	llvm() { sed -n "/^Classifying expressions for: @$1\$/,/^Determining/p" <<<"$output" |
		sed -n '/^  %s = /{n;s/.* S: \[\(-*[0-9]*\),\(-*[0-9]*\))$/\1 \2/p}' | awk '{ print $1, $2 - 1 }'; }
	for f in lane lane_minus shifted widened; do
		[ -n "$(llvm $f)" ] || fail "no LLVM range for $f"
		assert_equal "$f $(ours $f)" "$f $(llvm $f)"
	done
	assert_equal "$(ours lane_minus)" "-32 -1"
	# (x >> 20) or -7: LLVM's [-4096,4096) holds ours
	assert_equal "$(ours chosen)" "-7 4095"
	assert_equal "$(llvm chosen)" "-4096 4095"
	assert_equal "$(ours unknown)" ""
}

@test "-print rejects an unknown analysis" {
	run --separate-stderr nv-opt -print=nonsense </dev/null
	assert_equal "$status" 2
	assert_equal "$stderr" "nv-opt: error: unknown analysis 'nonsense' for -print (known: cfg dom postdom loops tripcount liveness peak cost occupancy uniform summary)"
}

# divergent: the DIVERGENT lines of print<uniformity>-style output, stores
# left out (nv-opt prints values and branches only), sorted
divergent() {
	sed -n 's/^ *DIVERGENT: *//p' | grep -v '^store ' | grep -v '^ptr\|^i32 %\|^float %' | sort
}

@test "uniformity: every value opt's print<uniformity> calls divergent is divergent here too, but the block index" {
	F="$FIXTURES/uniform.ll"
	run --separate-stderr nv-opt -print=uniform -disable-output "$F"
	assert_success
	ours=$(divergent <<<"$stderr")
	llvm=$(opt -passes='print<uniformity>' -disable-output "$F" 2>&1 | divergent)
	# LLVM 22's NVPTX calls every call divergent, ctaid and ntid too, and so
	# what is computed from them only; cicc (and we) do not
	missing=$(comm -13 <(echo "$ours") <(echo "$llvm"))
	want=$(sort <<'EOF2'
%base = mul i32 %cta, %ntid
%c = icmp eq i32 %u, 0
%cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
%cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
%cta0 = icmp eq i32 %cta, 0
%nct = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
%ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
%stride = mul i32 %ntid, %nct
%u = add i32 %sv, %cta
br i1 %c, label %t, label %f
br i1 %cta0, label %c, label %d
EOF2
)
	[ "$missing" = "$want" ] || fail "divergent in LLVM's, not here: $missing"
	# and nothing LLVM calls uniform is divergent here
	extra=$(comm -23 <(echo "$ours") <(echo "$llvm"))
	[ -z "$extra" ] || fail "divergent here only: $extra"
	# the kernel's argument tests are uniform, threadIdx's parity is not
	grep -q 'DIVERGENT: %odd = icmp' <<<"$stderr" || fail "$stderr"
	! grep -q 'DIVERGENT: %m0 \|DIVERGENT: %b0 \|DIVERGENT: %both ' <<<"$stderr" || fail "$stderr"
}

@test "peak: the point of most live register units, its loop, and the values there by source variable" {
	run nv-opt -print=peak -disable-output "$FIXTURES/peak.ll"
	assert_success
	# eight accumulators, the loaded x, i, n and two pointers (the fixture's header)
	assert_line "  peak 15 register units, 13 values, at peak.cu:6 in block %loop"
	assert_line "  in loop %loop at peak.cu:5, depth 1"
	# the phis and the fmuls of one array, by their #dbg_value fragments;
	# a phi has no line of its own: its incoming value's
	assert_line "  live acc[0..7]: 8 x float, 8 units, line 6"
	assert_line "  live i: 1 x i32, 1 units, line 5"
	# no record: the stem of the value's name, and what makes it
	assert_line "  live x (loaded float): 1 x float, 1 units, line 6"
	assert_line "  live in (argument ptr addrspace(1)): 1 x ptr addrspace(1), 2 units, arguments"
	# the units agree with the liveness the other analyses print
	run nv-opt -print=liveness -disable-output "$FIXTURES/peak.ll"
	assert_line "  max live = 13 values, 15 register units, 1 predicates"
}
