#!/usr/bin/env bats
# nv-inline: each rule and budget on t/fixtures/inline.cu, the remarks that
# explain it, the IR after it, and the PTX.

load helper

setup_file() {
	local fe
	fe=$(fixture_bc inline)
	nv-link -internalize "$fe" -o "$BATS_FILE_TMPDIR/i.bc"
}

# inl ARGS...: nv-inline on the fixture with every decision printed;
# the IR goes to $BATS_TEST_TMPDIR/out.ll
inl() {
	run --separate-stderr nv-inline "$@" -profuseinline -pass-remarks=nv-inline \
		-pass-remarks-missed=nv-inline -S "$BATS_FILE_TMPDIR/i.bc" -o "$BATS_TEST_TMPDIR/out.ll"
	assert_success
}

# decisions CALLER CALLEE: the profuseinline lines for those calls
decisions() {
	grep "^profuseinline: $1 -> $2:" <<<"$stderr"
}

# calls KERNEL CALLEE: calls left in KERNEL's IR to a function whose name contains CALLEE
calls() {
	sed -n "/^define .*@$1(/,/^}/p" "$BATS_TEST_TMPDIR/out.ll" | grep -c "call .*@[_A-Za-z0-9]*$2[_A-Za-z0-9]*(" || true
}

@test "a helper taking 8 structs by value is inlined and no copy of it is left" {
	inl
	[ "$(calls k_structs eight)" -eq 0 ]
	run grep -c '^define .*eight' "$BATS_TEST_TMPDIR/out.ll"
	assert_output 0
	grep -q "internal functions left without callers deleted" <<<"$stderr"
}

@test "noinline is respected, and every call site carries the decision" {
	inl
	[ "$(calls k_noinline kept)" -eq 2 ]
	[ "$(decisions k_noinline _Z4keptf | grep -c 'no inline .*it is marked noinline')" -eq 2 ]
	# decided call sites carry noinline, so nv-opt's own inliner cannot take them
	nv-opt -O3 -no-unroll "$BATS_TEST_TMPDIR/out.ll" -S -o "$BATS_TEST_TMPDIR/opt.ll"
	[ "$(sed -n '/^define .*@k_noinline(/,/^}/p' "$BATS_TEST_TMPDIR/opt.ll" | grep -c 'call .*@_Z4keptf')" -eq 2 ]
}

@test "recursion terminates: a function is never inlined into its own SCC" {
	inl
	decisions _Z4factj _Z4factj | grep -q "no inline .*recursive"
	run timeout 20 nv-inline -nv-inline-all "$BATS_FILE_TMPDIR/i.bc" -o /dev/null
	assert_success
}

@test "the budget charges the callee's size, unrolled loops included: 4 calls of an 833-instruction helper" {
	inl
	[ "$(decisions k_big4 _Z3bigjj | grep -c '^.*: inline (cost 833,')" -eq 3 ]
	[ "$(calls k_big4 big)" -eq 0 ]
	# cicc 13 charges this helper 833: a budget of 832 inlines none of its calls, 833 one
	inl -inline-budget=832
	[ "$(calls k_big4 big)" -eq 4 ]
	inl -inline-budget=833
	[ "$(calls k_big4 big)" -eq 3 ]
	inl -inline-budget=1000
	[ "$(calls k_big4 big)" -eq 3 ]
	decisions k_big4 _Z3bigjj | grep -q "exceeds the caller's budget left, 1[0-9][0-9]; the call stays, with 10 instructions of .param traffic"
	inl -inline-budget=1800
	[ "$(calls k_big4 big)" -eq 2 ]
	# three charged calls leave the 4th as the last: it goes in free
	inl -inline-budget=2600
	[ "$(calls k_big4 big)" -eq 0 ]
	decisions k_big4 _Z3bigjj | grep -q "inline (cost free.*the last call of an internal function"
}

@test "-inline-budget=0 inlines only what is free: single call sites and small callees" {
	inl -inline-budget=0
	[ "$(calls k_big4 big)" -eq 4 ]
	[ "$(calls k_once once)" -eq 0 ]
	[ "$(calls k_switch cases)" -eq 0 ]
	# without the small-callee rule, the only free call is the one of a function called once
	inl -inline-budget=0 -inline-threshold=0
	[ "$(calls k_once once)" -eq 0 ]
	[ "$(calls k_switch cases)" -eq 2 ]
	decisions k_switch _Z5casesiii | grep -q "exceeds the caller's budget left, 0"
}

@test "kernels get -inline-adj-budget1, and -inline-total-budget caps the module" {
	inl -inline-adj-budget1=0
	[ "$(calls k_big4 big)" -eq 4 ]
	# c1 is not a kernel: its budget is still the inline-budget
	decisions _Z2c1j _Z2c2j | grep -q ": inline (cost 4[0-9][0-9],"
	inl -inline-total-budget=1000
	[ "$(calls k_big4 big)" -eq 3 ]
	decisions k_big4 _Z3bigjj | grep -q "exceeds the module's budget left"
	inl -aggressive-inline -inline-adj-budget1=-1 -inline-budget=100
	[ "$(calls k_big4 big)" -eq 4 ]
}

@test "-nv-inline-all flattens a 3-deep chain that a zero budget keeps" {
	inl -inline-budget=0 -inline-threshold=0
	[ "$(calls k_chain c1)" -eq 2 ]
	inl -inline-budget=0 -inline-threshold=0 -nv-inline-all
	[ "$(calls k_chain c1)" -eq 0 ]
	run grep -c '^define .*_Z2c[123]j' "$BATS_TEST_TMPDIR/out.ll"
	assert_output 0
}

@test "-disable-inlining and -O0 inline always_inline callees only" {
	for flag in -disable-inlining -O0; do
		inl $flag
		[ "$(calls k_once once)" -eq 1 ] || fail "$flag"
		[ "$(calls k_structs fetch_builtin)" -eq 0 ] || fail "$flag: always_inline not inlined"
	done
}

@test "switch knobs refuse switch-heavy callees" {
	inl -inline-maxswitchcases=4
	[ "$(calls k_switch cases)" -eq 2 ]
	decisions k_switch _Z5casesiii | grep -q "a switch of 8 cases exceeds -inline-maxswitchcases=4"
	inl -inline-numswitchfunc=0
	decisions k_switch _Z5casesiii | grep -q "1 switch statements exceed -inline-numswitchfunc=0"
	# 8 cases at 100 each put a 21-instruction callee over a budget of 700
	inl -inline-budget=700 -inline-threshold=0
	[ "$(calls k_switch cases)" -eq 0 ]
	inl -inline-switchctrl=100 -inline-budget=700 -inline-threshold=0
	[ "$(calls k_switch cases)" -eq 2 ]
	decisions k_switch _Z5casesiii | grep -q "no inline (cost 8[0-9][0-9],"
}

@test "a warp shuffle earns the 2000 bonus: a 520-instruction callee costs nothing" {
	inl -inline-budget=0 -inline-threshold=0
	[ "$(calls k_shfl shuffled)" -eq 0 ]
	decisions k_shfl _Z8shuffledjj | grep -q "inline (cost 0,.*after the warp/tensor bonus"
}

@test "the allocas of inlined callees share a slot when their lifetimes do not overlap" {
	inl
	grep -q "remark: in function 'k_allocas': 1 allocas of inlined callees share the slots of others in 'k_allocas': 256 bytes" <<<"$stderr"
	[ "$(sed -n '/^define .*@k_allocas(/,/^}/p' "$BATS_TEST_TMPDIR/out.ll" | grep -c ' = alloca ')" -eq 1 ]
	inl -disable-inlined-alloca-merging
	[ "$(sed -n '/^define .*@k_allocas(/,/^}/p' "$BATS_TEST_TMPDIR/out.ll" | grep -c ' = alloca ')" -eq 2 ]
	run grep -c AllocasMerged <<<"$stderr"
	assert_output 0
}

@test "allocas live at once are never merged" {
	cat >"$BATS_TEST_TMPDIR/live.ll" <<-'IR'
	target triple = "nvptx64-nvidia-cuda"
	define internal i32 @h(i32 %x, ptr %keep) {
	  %a = alloca [8 x i32]
	  %b = alloca [8 x i32]
	  %p = getelementptr [8 x i32], ptr %a, i32 0, i32 %x
	  %q = getelementptr [8 x i32], ptr %b, i32 0, i32 %x
	  store i32 %x, ptr %p
	  store i32 %x, ptr %q
	  store ptr %a, ptr %keep
	  %v = load i32, ptr %a
	  %w = load i32, ptr %b
	  %s = add i32 %v, %w
	  ret i32 %s
	}
	define i32 @f(i32 %x, ptr %k1, ptr %k2) {
	  %r = call i32 @h(i32 %x, ptr %k1)
	  %s = call i32 @h(i32 %r, ptr %k2)
	  %t = add i32 %r, %s
	  ret i32 %t
	}
	define i32 @g(i32 %x, ptr %k) {
	  %a = alloca [8 x i32]
	  %r = call i32 @h(i32 %x, ptr %a)
	  ret i32 %r
	}
	IR
	run --separate-stderr nv-inline -nv-inline-all -pass-remarks=nv-inline -S "$BATS_TEST_TMPDIR/live.ll"
	assert_success
	# f gets 4 allocas: a and b of one copy are live together, the two copies
	# follow each other, so 2 slots; g's own alloca is not the inliner's
	[ "$(sed -n '/^define i32 @f(/,/^}/p' <<<"$output" | grep -c ' = alloca ')" -eq 2 ]
	[ "$(sed -n '/^define i32 @g(/,/^}/p' <<<"$output" | grep -c ' = alloca ')" -eq 3 ]
	grep -q "in function 'f': 2 allocas of inlined callees share the slots of others in 'f': 64 bytes" <<<"$stderr"
}

@test "allocas of different types never share a slot: SROA could split neither (CUB's Onesweep stack frame)" {
	cat >"$BATS_TEST_TMPDIR/types.ll" <<-'IR'
	target triple = "nvptx64-nvidia-cuda"
	declare void @sink(ptr)
	define internal i32 @arr(i32 %x) {
	  %a = alloca [17 x i32]
	  %p = getelementptr [17 x i32], ptr %a, i32 0, i32 %x
	  store i32 %x, ptr %p
	  call void @sink(ptr %a)
	  %v = load i32, ptr %p
	  ret i32 %v
	}
	define internal ptr @clo(ptr %q) {
	  %c = alloca { ptr, ptr, ptr }
	  store ptr %q, ptr %c
	  call void @sink(ptr %c)
	  %v = load ptr, ptr %c
	  ret ptr %v
	}
	define ptr @f(i32 %x, ptr %q) {
	  %r = call i32 @arr(i32 %x)
	  %s = call ptr @clo(ptr %q)
	  %t = getelementptr i8, ptr %s, i32 %r
	  ret ptr %t
	}
	define ptr @g(i32 %x, ptr %q) {
	  %r = call i32 @arr(i32 %x)
	  %r2 = call i32 @arr(i32 %r)
	  %t = getelementptr i8, ptr %q, i32 %r2
	  ret ptr %t
	}
	IR
	run --separate-stderr nv-inline -nv-inline-all -pass-remarks=nv-inline -S "$BATS_TEST_TMPDIR/types.ll"
	assert_success
	[ "$(sed -n '/^define ptr @f(/,/^}/p' <<<"$output" | grep -c ' = alloca ')" -eq 2 ]
	# the same callee twice: one type, one slot
	[ "$(sed -n '/^define ptr @g(/,/^}/p' <<<"$output" | grep -c ' = alloca ')" -eq 1 ]
	run grep -c "in function 'f':.*share the slots" <<<"$stderr"
	assert_output 0
	grep -q "in function 'g': 1 allocas of inlined callees share the slots of others in 'g': 68 bytes" <<<"$stderr"
}

@test "the PTX of the fixture assembles, without a .func left" {
	have_ptxas || skip "ptxas is not installed"
	nv-inline "$BATS_FILE_TMPDIR/i.bc" | nv-opt -O3 -no-unroll | nv-unroll | nv-opt -pipeline=post-unroll |
		nv-llc -arch=sm_90 -o "$BATS_TEST_TMPDIR/k.ptx"
	run grep -c '^\.func\|^\.visible \.func' "$BATS_TEST_TMPDIR/k.ptx"
	# kept (noinline) and fact (recursive) stay functions; nothing else does
	assert_output 2
	"$(ptxas_bin)" -arch=sm_90 "$BATS_TEST_TMPDIR/k.ptx" -o /dev/null
}

# bats test_tags=slow
@test "nv-inline gives the same bytes run after run when the inliner frees what it inlined (Thrust's sort)" {
	local cuda=${CUDA_PATH:-/usr/local/cuda}
	[ -f "$cuda/include/thrust/sort.h" ] || [ -f "$cuda/include/cccl/thrust/sort.h" ] || skip "no CUDA with Thrust"
	cd "$BATS_TEST_TMPDIR"
	cat >sort.cu <<'CU'
#include <thrust/device_vector.h>
#include <thrust/sort.h>
int main() {
	thrust::device_vector<float> k(1000), v(1000);
	thrust::sort_by_key(k.begin(), k.end(), v.begin());
	return 0;
}
CU
	mkdir kept
	nvcc-lite -ptx -arch=sm_90 -keep-dir kept sort.cu -o sort.ptx
	# which inlined allocas were "old" once depended on where the heap put
	# them: every run merged others
	for i in 1 2 3 4; do
		nv-inline -O3 -arch=sm_90 kept/sort.2-nv-reflect.bc -o run$i.bc
	done
	grep -q 'share the slots' < <(nv-inline -O3 -arch=sm_90 -pass-remarks=nv-inline kept/sort.2-nv-reflect.bc -o /dev/null 2>&1)
	cmp run1.bc run2.bc && cmp run1.bc run3.bc && cmp run1.bc run4.bc
}
