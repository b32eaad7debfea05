#!/usr/bin/env bats
# nv-unroll: each level of the cascade on t/fixtures/unroll.cu, the remarks
# that explain it, the IR LLVM's loop-unroll made of it, and the PTX.

load helper

setup_file() {
	local fe
	fe=$(fixture_bc unroll)
	nv-opt -O3 -no-unroll "$fe" -o "$BATS_FILE_TMPDIR/u.bc"
}

# unroll ARGS...: remarks of nv-unroll on the fixture, output in $BATS_TEST_TMPDIR/out.ll
unroll() {
	run --separate-stderr nv-unroll "$@" -pass-remarks=nv-unroll -pass-remarks-missed=nv-unroll \
		-pass-remarks-analysis=nv-unroll -S "$BATS_FILE_TMPDIR/u.bc" -o "$BATS_TEST_TMPDIR/out.ll"
	assert_success
}

# remark KERNEL: the final (passed or missed, not analysis) remarks about KERNEL's loops
remark() {
	grep "in function '$1'" <<<"$stderr" | grep -v -- '-pass-remarks-analysis' | grep -v '\.epil in'
}

# inlined NAME: $BATS_TEST_TMPDIR/NAME.cu's device side, as config P gets it
# from the driver (the front end, then the inliner's cleanup), in NAME.i.bc
inlined() {
	CUDA_PATH=/nonexistent clang-22 -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 -nocudalib -nocudainc \
		-include "$TOP/share/nvcc-lite/cuda_shim.h" -Wno-unknown-cuda-version -O3 -Xclang -disable-llvm-passes \
		-emit-llvm -c "$BATS_TEST_TMPDIR/$1.cu" -o "$BATS_TEST_TMPDIR/$1.bc"
	nv-inline -O3 "$BATS_TEST_TMPDIR/$1.bc" -o "$BATS_TEST_TMPDIR/$1.i.bc"
}

# body KERNEL: the kernel's IR in out.ll
body() {
	sed -n "/^define .*@$1(/,/^}/p" "$BATS_TEST_TMPDIR/out.ll"
}

@test "level 0: #pragma unroll 1 keeps the loop rolled" {
	unroll
	run remark pragma1
	assert_output --partial "not unrolled: llvm.loop.unroll.disable"
	[ "$(body pragma1 | grep -c 'load float')" -eq 1 ]
}

@test "level 3: a trip count of 8 with a small body is unrolled fully" {
	unroll
	run remark full8
	assert_output --partial "completely unrolled with count 8 (level 3: trip count 8"
	[ "$(body full8 | grep -c 'load float')" -eq 8 ]
	run body full8
	refute_output --partial "llvm.loop"
}

@test "level 3: the threshold is 405 from -O2 up and 150 at -O1" {
	unroll
	run remark trip12
	assert_output --partial "within the threshold 405"
	unroll -O1
	run remark trip100
	assert_output --partial "unrolled by a factor of 4"
	grep -q "level 3: loop %[0-9a-z.]*: 100 iterations cost [0-9]*, over the threshold 150" <<<"$stderr"
}

@test "level 3: an inner loop of 8 trips between two outer counters is unrolled fully and its outer loop stays rolled, as cicc does NLM2's window" {
	# cicc on imageDenoising's NLM2: the inner window loop "completely
	# unrolled loop with 8 iterations", the outer one "estimated unrolled
	# loop size 994 exceeds threshold 405"; unrolling the outer loop instead
	# (the inner count unknown) cost 205 registers against cicc's 63
	run --separate-stderr nv-unroll -O3 -pass-remarks=nv-unroll -pass-remarks-missed=nv-unroll \
		-S "$FIXTURES/tripcount-nested.ll" -o "$BATS_TEST_TMPDIR/out.ll"
	assert_success
	[[ "$(remark nested)" == *"loop %inner in nested completely unrolled with count 8"* ]] || fail "$stderr"
	[[ "$(remark nested)" == *"loop %outer in nested not unrolled"* ]] || fail "$stderr"
	[ "$(body nested | grep -c 'load float')" -eq 8 ]
	body nested | grep -q 'br i1 .*label %outer' || fail "the outer loop is gone"
}

@test "level 5: partial factors are powers of two that divide the trip count (6 -> 2, 12 -> 4, 100 -> 4)" {
	unroll -unroll-full-max-count=1
	run remark trip6
	assert_output --partial "unrolled by a factor of 2 (level 5"
	run remark trip12
	assert_output --partial "unrolled by a factor of 4 (level 5"
	run remark trip100
	assert_output --partial "unrolled by a factor of 4 (level 5"
	[ "$(body trip6 | grep -c 'load float')" -eq 2 ]
	[ "$(body trip12 | grep -c 'load float')" -eq 4 ]
}

@test "level 6: an unknown trip count is unrolled by 4 with an epilog remainder, both marked nounroll after the late unroll" {
	unroll
	run remark runtime_n
	assert_output --partial "unrolled with an epilog remainder by a factor of 4 (level 6: unknown trip count"
	run body runtime_n
	assert_output --partial "epil"
	# marked loops of runtime_n in FILE with the property PROP: "LOOPS MARKED"
	marked() {
		local out=$1 prop=$2 dis marked=0 loops=0
		dis=$(sed -n "s/^\(![0-9]*\) = !{!\"$prop\"}\$/\1/p" "$out")
		for id in $(sed -n "/^define .*@runtime_n(/,/^}/p" "$out" | grep -o '!llvm.loop ![0-9]*' | awk '{print $2}' | sort -u); do
			loops=$((loops + 1))
			[ -n "$dis" ] && grep -q "^$id = distinct !{.*$dis[,}]" "$out" && marked=$((marked + 1))
		done
		echo "$loops $marked"
	}
	# the remainder is marked; the unrolled loop only against runtime
	# unrolling, so that the late unroll may still unroll it fully
	out="$BATS_TEST_TMPDIR/out.ll"
	assert_equal "$(marked "$out" llvm.loop.unroll.disable)" "2 1"
	assert_equal "$(marked "$out" llvm.loop.unroll.runtime.disable)" "2 1"
	# after the late unroll both are (ptxas would unroll the loop again)
	nv-unroll -config=D -S "$out" -o "$BATS_TEST_TMPDIR/late.ll"
	assert_equal "$(marked "$BATS_TEST_TMPDIR/late.ll" llvm.loop.unroll.disable)" "2 2"
	# the early unroll tells the late one which loops it unrolled, and
	# the late one leaves no marker of ours behind
	run grep -c '"nv.unroll.[a-z]*"' "$BATS_TEST_TMPDIR/out.ll"
	assert_output 1
	grep -q '"nv.unroll.unrolled"' "$BATS_TEST_TMPDIR/out.ll"
	run grep -c "nv.unroll" "$BATS_TEST_TMPDIR/late.ll"
	assert_output 0
}

@test "level 6: runtime unrolling is refused for a body over 95 and for a trip count under 5" {
	unroll
	run remark big_n
	assert_output --partial "not unrolled"
	grep -q "level 6: loop %[0-9a-z.]*: body size [0-9]* over runtime-unroll-threshold 95" <<<"$stderr"
	unroll -unroll-full-max-count=1
	run remark trip3
	assert_output --partial "not unrolled"
	grep -q "level 6: loop %[0-9a-z.]*: expected trip count 3 under flat-loop-tripcount-threshold 5" <<<"$stderr"
	unroll -unroll-full-max-count=1 -flat-loop-tripcount-threshold=3
	run remark trip3
	assert_output --partial "unrolled with an epilog remainder by a factor of"
}

@test "level 2: #pragma unroll 4 runs unknown trip counts x4; no remainder allowed reduces it" {
	unroll
	run remark pragma4_n
	assert_output --partial "unrolled with an epilog remainder by a factor of 4 (level 2: #pragma unroll 4)"
	unroll -unroll-allow-remainder=0
	run remark pragma4_10
	assert_output --partial "#pragma unroll 4: remainder loops not allowed (unroll-allow-remainder=0), trip multiple 10"
	assert_output --partial "unrolled by a factor of 2 (level 2: #pragma unroll 4)"
}

@test "level 3: #pragma unroll fully unrolls 200 iterations within the pragma budget (32768)" {
	unroll
	run remark pragma_full
	assert_output --partial "completely unrolled with count 200 (level 3: #pragma unroll: trip count 200"
	unroll -pragma-unroll-threshold=1000
	run remark pragma_full
	refute_output --partial "completely unrolled"
}

@test "level 1: a local array multiplies the budgets (x6 for float a[32])" {
	unroll
	grep -q "level 1: loop %[0-9a-z.]* accesses local array .* of 32 elements: budgets x6" <<<"$stderr"
	run remark local32
	assert_output --partial "within the threshold 2430"
	refute_output --partial "not unrolled"
	# the multiplier scales whatever the threshold is
	unroll -unroll-threshold=40
	grep -q "level 3: loop %[0-9a-z.]*: 32 iterations cost [0-9]*, over the threshold 240" <<<"$stderr"
}

@test "level 1: a struct holding an array is a local array too (x6 for struct { float v[8]; }, as llm.c's Packed128, and with a field beside it)" {
	unroll
	grep "in function 'local_struct8'" <<<"$stderr" |
		grep -q "level 1: loop %[0-9a-z.]* accesses local array .* of 8 elements: budgets x6"
	run remark local_struct8
	assert_output --partial "completely unrolled with count 8 (level 3: trip count 8, size"
	assert_output --partial "within the threshold 2430"
	[ "$(body local_struct8 | grep -c 'llvm.sqrt.f32')" -eq 16 ]
	# so is one with another field beside its array, as cicc counts it (its
	# PTX has the 16 square roots); without the multiplier, x2
	grep "in function 'local_struct8n'" <<<"$stderr" |
		grep -q "level 1: loop %[0-9a-z.]* accesses local array .* of 8 elements: budgets x6"
	run remark local_struct8n
	assert_output --partial "completely unrolled with count 8 (level 3: trip count 8, size"
	[ "$(body local_struct8n | grep -c 'llvm.sqrt.f32')" -eq 16 ]
}

@test "level 1: an array the loop touches only at constant indices is no reason to unroll it (CUB's merge sort)" {
	unroll
	# the inner loop (indexed by its IV) gets x6; the outer one, once the
	# inner is unrolled, sees a[0..7] only: x1, and stays rolled
	grep "in function 'local_const8'" <<<"$stderr" |
		grep -q "level 1: loop %[0-9a-z.]* accesses a local array only at constant indices: budgets x1"
	run remark local_const8
	assert_output --partial "not unrolled: no level of the cascade found a profitable factor"
	[ "$(body local_const8 | grep -c 'llvm.sqrt.f32')" -eq 7 ]
	# counting any access, as before: x6, and the outer loop unrolled 8 times
	unroll -nv-unroll-local-array-indexed=0
	run remark local_const8
	refute_output --partial "not unrolled"
	[ "$(body local_const8 | grep -c 'llvm.sqrt.f32')" -eq 56 ]
	# a value that is not a switch is a usage error, with no output
	run --separate-stderr nv-unroll -nv-unroll-local-array-indexed=2 "$BATS_FILE_TMPDIR/u.bc" -o "$BATS_TEST_TMPDIR/bad.bc"
	assert_equal "$status" 2
	[ ! -e "$BATS_TEST_TMPDIR/bad.bc" ]
	[[ "$stderr" == "nv-unroll: error: invalid value '2' for knob -nv-unroll-local-array-indexed"* ]] || fail "$stderr"
}

@test "level 4: a loop with if (i == 0) is peeled once" {
	unroll
	run remark first_iter
	assert_output --partial "peeled by 1 (level 4: a compare of the IV becomes fixed after 1 iteration)"
	run body first_iter
	assert_output --partial "peel"
	unroll -unroll-peel-count=0
	run remark first_iter
	refute_output --partial "peeled"
}

@test "configuration D (the late slot) does no partial or runtime unrolling; the gates pass the module through" {
	unroll -config=D
	run remark runtime_n
	assert_output --partial "not unrolled"
	grep -q "level 6: loop %[0-9a-z.]*: runtime unrolling is off" <<<"$stderr"
	run remark full8
	assert_output --partial "completely unrolled"
	for gate in "-disable-LoopUnrollPass" "-config=D -nv-disable-loop-unrolling"; do
		nv-unroll $gate -S "$BATS_FILE_TMPDIR/u.bc" -o "$BATS_TEST_TMPDIR/same.ll"
		llvm-dis "$BATS_FILE_TMPDIR/u.bc" -o "$BATS_TEST_TMPDIR/in.ll"
		diff <(grep -v '^; ModuleID' "$BATS_TEST_TMPDIR/in.ll") <(grep -v '^; ModuleID' "$BATS_TEST_TMPDIR/same.ll")
	done
	run --separate-stderr nv-unroll -config=G "$BATS_FILE_TMPDIR/u.bc"
	assert_equal "$status" 2
	assert_equal "$stderr" "nv-unroll: error: unknown configuration 'G' for -config (known: A B C D E F P)"
}

@test "configuration P (the early slot) unrolls the #pragma unroll loops of a function where one sits in a loop that stays; it says nothing of the rest" {
	# big_n: #pragma unroll over 40 trips inside a loop of n trips that
	# loads, divides and adds besides: only rotated, unless
	# -unroll-early-around lets that much be around the nest
	unroll -config=P -unroll-early-around=1000
	run remark big_n
	assert_output --partial "completely unrolled with count 40"
	unroll -config=P
	run remark big_n
	assert_output ""
	grep -q "^define .*@big_n(" "$BATS_TEST_TMPDIR/out.ll"
	# the others: no pragma, or #pragma unroll loops with none around them
	# that stays (pragma_full's 200 trips: the main unroll's), not touched
	for k in full8 trip12 runtime_n pragma4_n pragma4_10 pragma1 pragma_full; do
		run remark $k
		assert_output ""
	done
	llvm-dis "$BATS_FILE_TMPDIR/u.bc" -o "$BATS_TEST_TMPDIR/in.ll"
	for k in full8 trip12 runtime_n pragma_full pragma4_n; do
		diff <(body $k | sed -E 's/![0-9]+/!N/g') \
			<(sed -n "/^define .*@$k(/,/^}/p" "$BATS_TEST_TMPDIR/in.ll" | sed -E 's/![0-9]+/!N/g')
	done
	run grep -c 'nv\.unroll' "$BATS_TEST_TMPDIR/out.ll"
	assert_output 0
	for gate in "-config=P -unroll-early-pragma=0" "-config=P -disable-LoopUnrollPass"; do
		nv-unroll $gate -S "$BATS_FILE_TMPDIR/u.bc" -o "$BATS_TEST_TMPDIR/same.ll"
		diff <(grep -v '^; ModuleID' "$BATS_TEST_TMPDIR/in.ll") <(grep -v '^; ModuleID' "$BATS_TEST_TMPDIR/same.ll")
	done
	# a module without one passes through whole
	nv-unroll -config=P -S "$FIXTURES/unroll-kept-exits.ll" -o "$BATS_TEST_TMPDIR/k.ll"
	diff <(llvm-as "$FIXTURES/unroll-kept-exits.ll" -o - | llvm-dis | grep -v '^; ModuleID') \
		<(grep -v '^; ModuleID' "$BATS_TEST_TMPDIR/k.ll")
}

@test "configuration P leaves a #pragma unroll nest bigger than the threshold (x6) whole to the main unroll" {
	# 64 x 64 trips inside a loop that stays: unrolled early inside only,
	# the nest would look small enough to the main unroll to unroll it
	# all (dmmaTensorCoreGemm: 16675 PTX instructions, cicc's 4413); 4 x 4
	# beside it in the same function is taken
	cat >"$BATS_TEST_TMPDIR/n.cu" <<-'CU'
	extern "C" __global__ void nest(float *out, const float *in, int n) {
	  float s = 0;
	  for (int r = 0; r < n; r++) {
	#pragma unroll
	    for (int i = 0; i < 64; i++)
	#pragma unroll
	      for (int j = 0; j < 64; j++) s += in[r * 4096 + i * 64 + j];
	#pragma unroll
	    for (int i = 0; i < 4; i++)
	#pragma unroll
	      for (int j = 0; j < 4; j++) s += in[r * 16 + i * 4 + j] * 2.0f;
	  }
	  out[threadIdx.x] = s;
	}
	CU
	inlined n
	run --separate-stderr nv-unroll -config=P -pass-remarks=nv-unroll -S "$BATS_TEST_TMPDIR/n.i.bc" -o "$BATS_TEST_TMPDIR/n.ll"
	assert_success
	# the 4 x 4 nest: the inner loop, then the outer one
	[ "$(grep -c 'completely unrolled with count 4 ' <<<"$stderr")" -eq 2 ] || fail "$stderr"
	run grep -c 'completely unrolled with count 64' <<<"$stderr"
	assert_output 0
	[ "$(grep -c 'fmul' "$BATS_TEST_TMPDIR/n.ll")" -eq 16 ]
	[ "$(grep -c 'load float' "$BATS_TEST_TMPDIR/n.ll")" -eq 17 ]
	# -unroll-early-size bounds it: at 0 nothing is unrolled (the loops only rotated)
	run --separate-stderr nv-unroll -config=P -unroll-early-size=0 -pass-remarks=nv-unroll -S "$BATS_TEST_TMPDIR/n.i.bc" \
		-o "$BATS_TEST_TMPDIR/n0.ll"
	assert_success
	assert_equal "$stderr" ""
	[ "$(grep -c 'load float' "$BATS_TEST_TMPDIR/n0.ll")" -eq 2 ]
}

@test "configuration P unrolls a nest in a loop only where that loop does no more than test and branch, and a prologue's nest only with one (simple_wmma_tf32gemm's shape: 40 registers unrolled early, 32 rotated, nvcc 32)" {
	# tf32 conversions of two fragments in the loop that also loads and
	# multiplies them, and the accumulator's scaling after it
	cat >"$BATS_TEST_TMPDIR/w.cu" <<-'CU'
	extern "C" __global__ void w(float *out, const float *a, const float *b, int n) {
	  float acc[8] = {0};
	  #pragma unroll
	  for (int j = 0; j < 8; j++) acc[j] = out[j * 32 + threadIdx.x];
	  for (int i = 0; i < n; i++) {
	    float fa[4], fb[4];
	    for (int t = 0; t < 4; t++) { fa[t] = a[i * 128 + t * 32 + threadIdx.x]; fb[t] = b[i * 128 + t * 32 + threadIdx.x]; }
	    #pragma unroll
	    for (int t = 0; t < 4; t++) fa[t] = fa[t] * 0.5f;
	    #pragma unroll
	    for (int t = 0; t < 4; t++) fb[t] = fb[t] * 2.0f;
	    for (int j = 0; j < 8; j++) acc[j] += fa[j % 4] * fb[(j + 1) % 4];
	  }
	  #pragma unroll
	  for (int j = 0; j < 8; j++) out[j * 32 + threadIdx.x] = acc[j];
	}
	CU
	inlined w
	run --separate-stderr nv-unroll -config=P -pass-remarks=nv-unroll -S "$BATS_TEST_TMPDIR/w.i.bc" -o "$BATS_TEST_TMPDIR/w.ll"
	assert_success
	assert_equal "$stderr" ""
	# let the loop's own work be around: the conversions, the prologue's
	# and the epilogue's nests go early
	run --separate-stderr nv-unroll -config=P -unroll-early-around=100000 -pass-remarks=nv-unroll -S "$BATS_TEST_TMPDIR/w.i.bc" \
		-o "$BATS_TEST_TMPDIR/w2.ll"
	assert_success
	[ "$(grep -c 'completely unrolled' <<<"$stderr")" -ge 3 ] || fail "$stderr"
}

@test "configuration P unrolls a prologue's two-level nest whole though the nest inside the loop went in an earlier round" {
	cat >"$BATS_TEST_TMPDIR/p.cu" <<-'CU'
	extern "C" __global__ void p(float *out, const float *in, int n) {
	  float frag[2][16]; float acc = 0;
	  #pragma unroll
	  for (int k = 0; k < 2; k++)
	    #pragma unroll
	    for (int j = 0; j < 16; j++) frag[k][j] = in[k * 16 + j];
	  #pragma unroll 1
	  for (; n > -2;) {
	    #pragma unroll
	    for (int j = 0; j < 16; j++) acc += frag[n & 1][j] * j;
	    --n;
	  }
	  out[threadIdx.x] = acc;
	}
	CU
	inlined p
	run --separate-stderr nv-unroll -config=P -pass-remarks=nv-unroll -S "$BATS_TEST_TMPDIR/p.i.bc" -o "$BATS_TEST_TMPDIR/p.ll"
	assert_success
	# the mainloop's j loop and the prologue's j loop, then its k loop
	[ "$(grep -c 'completely unrolled with count 16' <<<"$stderr")" -eq 2 ] || fail "$stderr"
	[ "$(grep -c 'completely unrolled with count 2 ' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	# 32 loads of the prologue, 16 of the fragments in the loop
	[ "$(grep -c 'load float' "$BATS_TEST_TMPDIR/p.ll")" -eq 48 ]
}

@test "nvcc-lite: a #pragma unroll k loop that is the whole body of a #pragma unroll 1 mainloop is unrolled, its fragments in registers (a GEMM mainloop)" {
	# Phase I's SimplifyCFG threads the k loop's latch into the mainloop
	# when nothing unrolled it first: one merged loop under #pragma
	# unroll 1, frag[k % 2] indexed at run time, a 128-byte local frame
	cat >"$BATS_TEST_TMPDIR/m.cu" <<-'CU'
	__global__ void k(float *out, const float *in, int n) {
	  float frag[2][16]; float acc = 0;
	  #pragma unroll
	  for (int j = 0; j < 16; j++) frag[0][j] = in[j];
	  #pragma unroll 1
	  for (; n > -2;) {
	    #pragma unroll
	    for (int k = 0; k < 2; ++k) {
	      #pragma unroll
	      for (int j = 0; j < 16; j++) frag[(k+1)%2][j] = in[n*32 + k*16 + j];
	      #pragma unroll
	      for (int j = 0; j < 16; j++) acc += frag[k%2][j] * j;
	      if (k + 2 == 2) --n;
	    }
	  }
	  out[threadIdx.x] = acc;
	}
	CU
	nvcc-lite -ptx -O3 -arch=sm_90 "$BATS_TEST_TMPDIR/m.cu" -o "$BATS_TEST_TMPDIR/m.ptx"
	run grep -c "ld.local\|st.local\|__local_depot" "$BATS_TEST_TMPDIR/m.ptx"
	assert_output 0
	# every load unrolled, as nvcc's 32 (the loop rotated: its first
	# fragment loads before it)
	[ "$(grep -c 'ld.global' "$BATS_TEST_TMPDIR/m.ptx")" -eq 32 ]
	# without the early unroll, the frame is back: the test sees the merge
	nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -unroll-early-pragma=0 "$BATS_TEST_TMPDIR/m.cu" -o "$BATS_TEST_TMPDIR/off.ptx"
	grep -q "__local_depot" "$BATS_TEST_TMPDIR/off.ptx"
	if have_ptxas; then
		run "$(ptxas_bin)" -arch=sm_90 -v "$BATS_TEST_TMPDIR/m.ptx" -o /dev/null
		assert_success
		assert_output --partial "0 bytes stack frame"
	fi
}

# bats test_tags=slow
@test "nvcc-lite: CUB's single-tile reduce, its loops rotated before Phase I, keeps nvcc's registers (80 without)" {
	need_cuda # CUB's headers and ptxas
	cat >"$BATS_TEST_TMPDIR/r.cu" <<-'CU'
	#include <cub/cub.cuh>
	void run(const int *in, int *out, int n, void *tmp, size_t bytes) { cub::DeviceReduce::Sum(tmp, bytes, in, out, n); }
	CU
	# regs PTX: registers of the single-tile kernel reading the first pass's partials (int *)
	regs() {
		"$(ptxas_bin)" -v -arch=sm_90 "$1" -o /dev/null 2>&1 |
			awk '/Compiling entry.*DeviceReduceSingleTileKernel.*EPiS/ { p = 1 } p && /Used/ { print $5; exit }'
	}
	nvcc-lite -ptx -O3 -arch=sm_90 "$BATS_TEST_TMPDIR/r.cu" -o "$BATS_TEST_TMPDIR/on.ptx"
	nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -unroll-early-pragma=0 "$BATS_TEST_TMPDIR/r.cu" -o "$BATS_TEST_TMPDIR/off.ptx"
	nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -unroll-early-size=0 "$BATS_TEST_TMPDIR/r.cu" -o "$BATS_TEST_TMPDIR/rot.ptx"
	on=$(regs "$BATS_TEST_TMPDIR/on.ptx") off=$(regs "$BATS_TEST_TMPDIR/off.ptx") rot=$(regs "$BATS_TEST_TMPDIR/rot.ptx")
	[ -n "$on" ] && [ -n "$off" ] || fail "no single-tile kernel: '$on' '$off'"
	[ "$on" -le 32 ] || fail "$on registers (nvcc 13.0: 32)"
	[ "$off" -gt $((on + 16)) ] || fail "without the early step $off registers, with it $on"
	# the loops' rotated form alone is the fix here
	[ "$rot" -le 32 ] || fail "rotated only: $rot registers"
}

@test "every transformed module verifies, is deterministic, and its remarks are valid YAML" {
	for cfg in A B C D E F P; do
		nv-unroll -config=$cfg "$BATS_FILE_TMPDIR/u.bc" -o "$BATS_TEST_TMPDIR/$cfg.bc"
		nv-opt "$BATS_TEST_TMPDIR/$cfg.bc" -o /dev/null
	done
	nv-unroll "$BATS_FILE_TMPDIR/u.bc" -pass-remarks-output="$BATS_TEST_TMPDIR/r.yaml" -o "$BATS_TEST_TMPDIR/again.bc"
	cmp "$BATS_TEST_TMPDIR/C.bc" "$BATS_TEST_TMPDIR/again.bc"
	run llvm-remarkutil count --parser=yaml "$BATS_TEST_TMPDIR/r.yaml"
	assert_success
	n=$(grep -c '^--- !' "$BATS_TEST_TMPDIR/r.yaml")
	[ "$n" -gt 30 ] || fail "only $n remarks"
	grep -q "^Name: *Unrolled" "$BATS_TEST_TMPDIR/r.yaml"
	grep -q "^Name: *UnrollCascade" "$BATS_TEST_TMPDIR/r.yaml"
}

@test "nvcc-lite: local arrays indexed by the IV end in registers, unknown trip counts get x4 and nounroll" {
	cat >"$BATS_TEST_TMPDIR/k.cu" <<-'CU'
	#define LA(N) __global__ void la##N(float *out, const float *in) { \
	  int t = blockIdx.x * blockDim.x + threadIdx.x; float a[N]; \
	  for (int i = 0; i < N; i++) a[i] = in[t + i * 256]; \
	  float s = 0; for (int i = 0; i < N; i++) s += a[i] * a[N - 1 - i]; out[t] = s; }
	LA(32) LA(64)
	__global__ void sumn(float *out, const float *in, int n) {
	  int t = blockIdx.x * blockDim.x + threadIdx.x; float s = 0;
	  for (int i = 0; i < n; i++) s += in[t + i * 128];
	  out[t] = s; }
	CU
	nvcc-lite -ptx -O3 -arch=sm_90 "$BATS_TEST_TMPDIR/k.cu" -o "$BATS_TEST_TMPDIR/k.ptx"
	run grep -c "ld.local\|st.local\|__local_depot" "$BATS_TEST_TMPDIR/k.ptx"
	assert_output 0
	sumn=$(sed -n '/\.entry _Z4sumn/,/^}/p' "$BATS_TEST_TMPDIR/k.ptx")
	[ "$(grep -c 'ld.global' <<<"$sumn")" -eq 5 ] || fail "$sumn"
	[ "$(grep -c '.pragma "nounroll"' <<<"$sumn")" -eq 2 ] || fail "$sumn"
	if have_ptxas; then
		"$(ptxas_bin)" -arch=sm_90 "$BATS_TEST_TMPDIR/k.ptx" -o /dev/null
	fi
	# remarks reach every stage through -Xcicc
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -pass-remarks=nv-unroll "$BATS_TEST_TMPDIR/k.cu" \
		-o "$BATS_TEST_TMPDIR/k2.ptx"
	assert_success
	grep -q "^nv-unroll: remark: in function '_Z4sumnPfPKfi': loop .* unrolled with an epilog remainder by a factor of 4" <<<"$stderr"
	cmp "$BATS_TEST_TMPDIR/k.ptx" "$BATS_TEST_TMPDIR/k2.ptx"
	# and nvcc-lite's gates take nv-unroll out
	nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -disable-LoopUnrollPass "$BATS_TEST_TMPDIR/k.cu" -o "$BATS_TEST_TMPDIR/no.ptx"
	grep -q "ld.local" "$BATS_TEST_TMPDIR/no.ptx"
}

@test "a runtime unroll LLVM carries out without a remainder (no trip count in ScalarEvolution) says so" {
	run --separate-stderr nv-unroll -O3 -arch=sm_90 -S "$FIXTURES/unroll-kept-exits.ll" -pass-remarks=nv-unroll
	assert_success
	[[ "$stderr" == *"loop %loop in k unrolled by a factor of 4 with an exit test in each copy, not with a remainder: LLVM's ScalarEvolution found no trip count"* ]]
	assert_equal "$(grep -c 'call float @g' <<<"$output")" 4
	assert_equal "$(grep -c 'icmp slt' <<<"$output")" 5
	# once @g returns, the count exists and there is a remainder
	sed 's/#1 = { nounwind memory(none) }/#1 = { nounwind willreturn memory(none) }/' "$FIXTURES/unroll-kept-exits.ll" >"$BATS_TEST_TMPDIR/w.ll"
	run --separate-stderr nv-unroll -O3 -arch=sm_90 -S "$BATS_TEST_TMPDIR/w.ll" -pass-remarks=nv-unroll
	assert_success
	[[ "$stderr" == *"loop %loop in k unrolled with a prolog remainder by a factor of 4"* ]]
}
