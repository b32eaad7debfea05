#!/usr/bin/env bats
# nv-link: joining modules, its errors, and libdevice (only what is called).

load helper

LIBDEVICE=/usr/local/cuda/nvvm/libdevice/libdevice.10.bc

@test "two modules link into one, the declaration resolved" {
	run nv-link -S "$FIXTURES/link-a.ll" "$FIXTURES/link-b.ll"
	assert_success
	assert_output --partial "define i32 @helper(i32 %x)"
	assert_output --partial "define ptx_kernel void @k(ptr %p)"
	refute_output --partial "declare i32 @helper"
}

@test "standard input is '-', and only once" {
	run nv-link -S - "$FIXTURES/link-b.ll" <"$FIXTURES/link-a.ll"
	assert_success
	assert_output --partial "define i32 @helper"
	run --separate-stderr nv-link - - </dev/null
	assert_equal "$status" 2
	assert_equal "$stderr" "nv-link: error: standard input ('-') can be read only once"
}

@test "two definitions of one function are one error line" {
	run --separate-stderr nv-link "$FIXTURES/link-b.ll" "$FIXTURES/link-b.ll" -o "$BATS_TEST_TMPDIR/x.bc"
	assert_equal "$status" 1
	assert_equal "$stderr" "nv-link: error: cannot link '$FIXTURES/link-b.ll': Linking globals named 'helper': symbol multiply defined!"
	assert_file_not_exists "$BATS_TEST_TMPDIR/x.bc"
}

@test "modules for different targets or data layouts are refused" {
	run --separate-stderr nv-link "$FIXTURES/link-a.ll" "$FIXTURES/link-host.ll"
	assert_equal "$status" 1
	assert_equal "$stderr" "nv-link: error: cannot link '$FIXTURES/link-host.ll': its target 'x86_64-pc-linux-gnu' is not 'nvptx64-nvidia-cuda'"
	run --separate-stderr nv-link "$FIXTURES/libdevice-user.ll" "$FIXTURES/link-b.ll" -o /dev/null
	assert_success
	sed 's/^target triple.*/&\ntarget datalayout = "e-i64:64"/' "$FIXTURES/link-b.ll" >"$BATS_TEST_TMPDIR/dl.ll"
	run --separate-stderr nv-link "$FIXTURES/libdevice-user.ll" "$BATS_TEST_TMPDIR/dl.ll"
	assert_equal "$status" 1
	[[ "$stderr" == "nv-link: error: cannot link '$BATS_TEST_TMPDIR/dl.ll': its data layout 'e-i64:64' is not "* ]] || fail "$stderr"
}

@test "--libdevice brings in only the functions called, internal, with no warning" {
	[ -f "$LIBDEVICE" ] || skip "CUDA's libdevice is not installed"
	run --separate-stderr nv-link --libdevice -S "$FIXTURES/libdevice-user.ll"
	assert_success
	assert_equal "$stderr" ""
	# __nv_sinf and __nv_sqrtf, as internal definitions, and nothing else of libdevice
	[ "$(grep -c '^define internal .*@__nv_' <<<"$output")" -eq 2 ] || fail "$(grep '^define' <<<"$output")"
	refute_line --regexp '^declare .*@__nv_'
	refute_output --partial "gpulibs"
	assert_output --partial 'target triple = "nvptx64-nvidia-cuda"'
	# and what nothing uses is gone: the unused helper, libdevice's tables
	refute_output --partial "unused_helper"
}

@test "--libdevice=PATH reads that file, and a missing one is an error" {
	[ -f "$LIBDEVICE" ] || skip "CUDA's libdevice is not installed"
	cp "$LIBDEVICE" "$BATS_TEST_TMPDIR/ld.bc"
	run nv-link --libdevice="$BATS_TEST_TMPDIR/ld.bc" -S "$FIXTURES/libdevice-user.ll"
	assert_success
	assert_output --partial "define internal float @__nv_sinf"
	run --separate-stderr nv-link --libdevice="$BATS_TEST_TMPDIR/none.bc" "$FIXTURES/libdevice-user.ll"
	assert_equal "$status" 1
	assert_equal "$stderr" "nv-link: error: cannot find libdevice at '$BATS_TEST_TMPDIR/none.bc'"
}

@test "without CUDA, a module calling __nv_* gets an error naming --libdevice=PATH" {
	run --separate-stderr env CUDA_PATH=/nonexistent "$TOP/bin/nv-link" --libdevice "$FIXTURES/libdevice-user.ll"
	assert_equal "$status" 1
	assert_equal "$stderr" "nv-link: error: the module calls '__nv_sinf' but libdevice was not found: give --libdevice=PATH or set CUDA_PATH"
}

@test "a module calling no __nv_* function does not need libdevice at all" {
	run env CUDA_PATH=/nonexistent "$TOP/bin/nv-link" --libdevice -S "$FIXTURES/link-b.ll"
	assert_success
	assert_output --partial "define i32 @helper"
}

@test "libdevice linking is reported as remarks" {
	[ -f "$LIBDEVICE" ] || skip "CUDA's libdevice is not installed"
	run --separate-stderr nv-link --libdevice -pass-remarks=nv-link -pass-remarks-analysis=nv-link \
		"$FIXTURES/libdevice-user.ll" -o /dev/null
	assert_success
	[[ "$stderr" == *"linked '__nv_sinf' from libdevice"* ]] || fail "$stderr"
	[[ "$stderr" == *"2 functions linked from '$LIBDEVICE'"* ]] || fail "$stderr"
}

# bats test_tags=slow
@test "a corrupt --libdevice=PATH is one error line, never a crash" {
	[ -f "$LIBDEVICE" ] || skip "CUDA's libdevice is not installed"
	echo 'not bitcode' >"$BATS_TEST_TMPDIR/text.bc"
	run --separate-stderr nv-link --libdevice="$BATS_TEST_TMPDIR/text.bc" "$FIXTURES/libdevice-user.ll"
	assert_equal "$status" 1
	assert_equal "$stderr" "nv-link: error: '$BATS_TEST_TMPDIR/text.bc' is not LLVM bitcode"
	for seed in 1 2 3 4 5 6; do
		python3 "$TOP/t/mutate.py" "$seed" "$LIBDEVICE" >"$BATS_TEST_TMPDIR/bad.bc"
		run --separate-stderr nv-link --libdevice="$BATS_TEST_TMPDIR/bad.bc" "$FIXTURES/libdevice-user.ll" -o /dev/null
		[ "$status" -le 1 ] || fail "seed $seed: status $status: $stderr"
		[ "$(printf '%s' "$stderr" | grep -c '')" -le 1 ] || fail "seed $seed: $stderr"
	done
}

@test "linking libdevice lazily gives the same module as linking it whole" {
	[ -f "$LIBDEVICE" ] || skip "CUDA's libdevice is not installed"
	# the trusted (lazy) and user-named (probed) paths must agree
	nv-link --libdevice -S "$FIXTURES/libdevice-user.ll" -o "$BATS_TEST_TMPDIR/a.ll"
	nv-link --libdevice="$LIBDEVICE" -S "$FIXTURES/libdevice-user.ll" -o "$BATS_TEST_TMPDIR/b.ll"
	cmp "$BATS_TEST_TMPDIR/a.ll" "$BATS_TEST_TMPDIR/b.ll"
	# and what is brought in is what llvm-link --only-needed brings in
	llvm-as "$FIXTURES/libdevice-user.ll" -o "$BATS_TEST_TMPDIR/u.bc"
	llvm-link --only-needed --internalize "$BATS_TEST_TMPDIR/u.bc" "$LIBDEVICE" -S 2>/dev/null |
		grep -o '^define [^(]*@__nv_[a-z_0-9]*' | grep -o '@.*' | sort >"$BATS_TEST_TMPDIR/theirs"
	grep -o '^define [^(]*@__nv_[a-z_0-9]*' "$BATS_TEST_TMPDIR/a.ll" | grep -o '@.*' | sort >"$BATS_TEST_TMPDIR/ours"
	diff "$BATS_TEST_TMPDIR/ours" "$BATS_TEST_TMPDIR/theirs"
}

@test "-cudafe names a static kernel as nvcc does; -cudafe=clang keeps clang's name for clang's host side" {
	cat >"$BATS_TEST_TMPDIR/s.ll" <<-'EOF2'
		target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
		target triple = "nvptx64-nvidia-cuda"
		define internal ptx_kernel void @_ZL2ksPi(ptr %p) {
		  ret void
		}
		define ptx_kernel void @_Z1kPi(ptr %p) {
		  ret void
		}
		define internal ptx_kernel void @_ZN2ns5inner L2knEPi(ptr %p) {
		  ret void
		}
		define internal ptx_kernel void @_ZNSt2ioL2kxIiEEvPT_(ptr %p) {
		  ret void
		}
	EOF2
	sed -i 's/inner L/innerL/' "$BATS_TEST_TMPDIR/s.ll"
	run nv-link -cudafe -S "$BATS_TEST_TMPDIR/s.ll"
	assert_success
	assert_output --partial "@_Z2ksPi("
	refute_output --partial "@_ZL2ksPi("
	# in a namespace, nvcc's name has no L before the kernel's own
	assert_output --partial "@_ZN2ns5inner2knEPi("
	assert_output --partial "@_ZNSt2io2kxIiEEvPT_("
	assert_output --partial "@_Z1kPi("
	run nv-link -cudafe=nvcc -S "$BATS_TEST_TMPDIR/s.ll"
	assert_output --partial "@_Z2ksPi("
	run nv-link -cudafe=clang -S "$BATS_TEST_TMPDIR/s.ll"
	assert_success
	assert_output --partial "@_ZL2ksPi("
	refute_output --partial "@_Z2ksPi("
	run --separate-stderr nv-link -cudafe=gcc -S "$BATS_TEST_TMPDIR/s.ll"
	assert_equal "$status" 2
	assert_equal "$stderr" "nv-link: error: invalid value 'gcc' for -cudafe: expected nvcc, clang or host"
	# the host side's option on a device module: one usage line, nothing written
	for c in "" -cudafe=nvcc; do
		run --separate-stderr nv-link $c -static-template-stubs -S "$BATS_TEST_TMPDIR/s.ll"
		assert_equal "$status" 2
		assert_equal "$output" ""
		assert_equal "$stderr" "nv-link: error: -static-template-stubs is for the host side: it needs -cudafe=host"
	done
}

@test "-cudafe=host registers a static kernel under nvcc's name and gives each external stub the kernel's own name" {
	cat >"$BATS_TEST_TMPDIR/h.ll" <<-'EOF2'
		target triple = "x86_64-unknown-linux-gnu"
		$_Z17__device_stub__ktIfEvPT_ = comdat any
		@0 = private unnamed_addr constant [9 x i8] c"_ZL2ksPi\00", align 1
		@1 = private unnamed_addr constant [7 x i8] c"_Z1kPi\00", align 1
		@2 = private unnamed_addr constant [13 x i8] c"_Z2ktIfEvPT_\00", align 1
		define internal void @_ZL17__device_stub__ksPi(ptr %p) {
		  ret void
		}
		define void @_Z16__device_stub__kPi(ptr %p) {
		  ret void
		}
		define linkonce_odr void @_Z17__device_stub__ktIfEvPT_(ptr %p) comdat {
		  ret void
		}
		define internal void @reg(ptr %h) {
		  %1 = call i32 @__cudaRegisterFunction(ptr %h, ptr @_ZL17__device_stub__ksPi, ptr @0, ptr @0, i32 -1, ptr null, ptr null, ptr null, ptr null, ptr null)
		  %2 = call i32 @__cudaRegisterFunction(ptr %h, ptr @_Z16__device_stub__kPi, ptr @1, ptr @1, i32 -1, ptr null, ptr null, ptr null, ptr null, ptr null)
		  %3 = call i32 @__cudaRegisterFunction(ptr %h, ptr @_Z17__device_stub__ktIfEvPT_, ptr @2, ptr @2, i32 -1, ptr null, ptr null, ptr null, ptr null, ptr null)
		  ret void
		}
		declare i32 @__cudaRegisterFunction(ptr, ptr, ptr, ptr, i32, ptr, ptr, ptr, ptr, ptr)
	EOF2
	run --separate-stderr nv-link -cudafe=host -S "$BATS_TEST_TMPDIR/h.ll"
	assert_success
	# the static kernel: nvcc's name registered, no host symbol (static under nvcc too)
	[[ "$output" == *'c"_Z2ksPi\00"'* ]] || fail "$output"
	[[ "$output" != *"@_Z2ksPi = "* ]] || fail "$output"
	# the others: the stub under the kernel's name, weak for an instantiation
	[[ "$output" == *"@_Z1kPi = alias void (ptr), ptr @_Z16__device_stub__kPi"* ]] || fail "$output"
	[[ "$output" == *"@_Z2ktIfEvPT_ = weak_odr alias void (ptr), ptr @_Z17__device_stub__ktIfEvPT_"* ]] || fail "$output"
	# -static-template-stubs: the template's stub and its alias internal, out of the
	# comdat; the plain kernel's stub stays external
	run --separate-stderr nv-link -cudafe=host -static-template-stubs -S "$BATS_TEST_TMPDIR/h.ll"
	assert_success
	[[ "$output" == *"@_Z2ktIfEvPT_ = internal alias void (ptr), ptr @_Z17__device_stub__ktIfEvPT_"* ]] || fail "$output"
	[[ "$output" == *"define internal void @_Z17__device_stub__ktIfEvPT_(ptr %p) {"* ]] || fail "$output"
	[[ "$output" == *"@_Z1kPi = alias void (ptr), ptr @_Z16__device_stub__kPi"* ]] || fail "$output"
}

@test "-cudafe points -rdc's uses of a static variable at clang's NAME__static__ID definition" {
	cat >"$BATS_TEST_TMPDIR/v.ll" <<-'EOF2'
		target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
		target triple = "nvptx64-nvidia-cuda"
		@_ZL7counter = external addrspace(1) global i32, align 4
		@_ZL7counter__static__0123abcd = addrspace(1) externally_initialized global i32 0, align 4
		define ptx_kernel void @k(ptr %p) {
		  %v = load i32, ptr addrspace(1) @_ZL7counter, align 4
		  store i32 %v, ptr %p, align 4
		  ret void
		}
	EOF2
	run nv-link -S "$BATS_TEST_TMPDIR/v.ll"
	assert_output --partial "@_ZL7counter = external"
	run nv-link -cudafe=clang -S "$BATS_TEST_TMPDIR/v.ll"
	assert_success
	refute_output --partial "@_ZL7counter = external"
	assert_output --partial "load i32, ptr addrspace(1) @_ZL7counter__static__0123abcd"
}

@test "-cudafe drops clang's __clang_gpu_used_external, so another file's kernel is not declared a .func" {
	cat >"$BATS_TEST_TMPDIR/u.ll" <<-'EOF2'
		target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
		target triple = "nvptx64-nvidia-cuda"
		@__clang_gpu_used_external = internal global [1 x ptr] [ptr @other_kernel]
		@keep = addrspace(1) global i32 0
		@llvm.compiler.used = appending global [2 x ptr] [ptr @__clang_gpu_used_external, ptr addrspacecast (ptr addrspace(1) @keep to ptr)], section "llvm.metadata"
		declare void @other_kernel(ptr)
		define ptx_kernel void @k(ptr %p) {
		  ret void
		}
	EOF2
	run nv-link -cudafe=clang -S "$BATS_TEST_TMPDIR/u.ll"
	assert_success
	refute_output --partial "__clang_gpu_used_external"
	assert_output --partial "@llvm.compiler.used = appending global [1 x ptr] [ptr addrspacecast (ptr addrspace(1) @keep to ptr)]"
	nv-link -cudafe=clang "$BATS_TEST_TMPDIR/u.ll" | nv-llc -arch=sm_90 >"$BATS_TEST_TMPDIR/u.ptx"
	run grep -c other_kernel "$BATS_TEST_TMPDIR/u.ptx"
	assert_output "0"
}

@test "-cudafe unmarks convergent asm that no thread communicates through (ld, st, cvt); shfl, bar and mixes stay convergent" {
	cat >"$BATS_TEST_TMPDIR/a.ll" <<-'EOF2'
		target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
		target triple = "nvptx64-nvidia-cuda"
		define ptx_kernel void @k(ptr %p, i16 %h, i32 %x) {
		  %a = call i16 asm "ld.global.cs.b16 $0, [$1];", "=h,l"(ptr %p) #0
		  call void asm sideeffect "st.global.cs.b16 [$0], $1;", "l,h,~{memory}"(ptr %p, i16 %a) #0
		  %b = call float asm "{ cvt.f32.bf16 $0, $1;}\0A", "=f,h"(i16 %h) #0
		  %c = call i32 asm "{ .reg .pred p; setp.ne.b32 p, $1, 0; @p add.s32 $0, $1, 1; }", "=r,r"(i32 %x) #0
		  call void asm sideeffect "", "~{memory}"() #0
		  %d = call i32 asm "shfl.sync.idx.b32 $0, $1, 0, 31, -1;", "=r,r"(i32 %x) #0
		  call void asm sideeffect "bar.sync 0;", ""() #0
		  %e = call i32 asm "mov.b32 $0, $1; vote.sync.ballot.b32 $0, 1, -1;", "=r,r"(i32 %x) #0
		  %f = call i32 asm "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {$0}, [$1];", "=r,r"(i32 %x) #0
		  %g = call i32 asm "mov.u32 $0, %laneid;", "=r"() #0
		  %m = call i32 asm "mov.b32 $0, {$1, $1};", "=r,h"(i16 %h) #0
		  ret void
		}
		attributes #0 = { convergent nounwind }
	EOF2
	run --separate-stderr nv-link -cudafe -S "$BATS_TEST_TMPDIR/a.ll" -o "$BATS_TEST_TMPDIR/out.ll" -pass-remarks=nv-link
	assert_success
	conv=$(sed -n 's/^attributes \(#[0-9]*\) = { convergent.*/\1/p' "$BATS_TEST_TMPDIR/out.ll")
	[ -n "$conv" ]
	# the six lone asm statements lost the mark, the five others kept it
	assert_equal "$(grep 'call.*asm' "$BATS_TEST_TMPDIR/out.ll" | grep -c " $conv\$")" 5
	for op in shfl.sync bar.sync vote.sync ldmatrix %laneid; do
		grep -F "$op" "$BATS_TEST_TMPDIR/out.ll" | grep -q " $conv\$" || fail "$op lost its convergent mark"
	done
	for op in ld.global.cs st.global.cs cvt.f32.bf16 setp.ne '{$1, $1}'; do
		! grep -F "$op" "$BATS_TEST_TMPDIR/out.ll" | grep -q " $conv\$" || fail "$op is still convergent"
	done
	[[ "$stderr" == *'asm "ld.global.cs.b16 $0, [$1];" is not convergent'* ]]
	# the knob keeps clang's marks
	nv-link -cudafe -S "$BATS_TEST_TMPDIR/a.ll" -o "$BATS_TEST_TMPDIR/kept.ll" -nv-link-asm-convergent=1
	conv=$(sed -n 's/^attributes \(#[0-9]*\) = { convergent.*/\1/p' "$BATS_TEST_TMPDIR/kept.ll")
	assert_equal "$(grep 'call.*asm' "$BATS_TEST_TMPDIR/kept.ll" | grep -c " $conv\$")" 11
}

@test "-fast-math calls libdevice's fast approximations where nvcc's -use_fast_math does, and nothing else" {
	run --separate-stderr nv-link -fast-math -pass-remarks=nv-link -S "$FIXTURES/libdevice-fast.ll"
	assert_success
	for f in tanhf expf powf; do
		grep -q "call float @__nv_fast_$f(" <<<"$output" || fail "__nv_$f: $output"
		! grep -q "@__nv_$f(" <<<"$output" || fail "__nv_$f is still called"
	done
	grep -q "call float @__nv_sqrtf(" <<<"$output"
	[ "$(grep -c "FastMath\|call '__nv_fast_" <<<"$stderr")" -eq 3 ] || fail "$stderr"
	# without it the calls are left alone
	run nv-link -S "$FIXTURES/libdevice-fast.ll"
	assert_success
	! grep -q "__nv_fast_" <<<"$output"
	# and the libdevice functions linked are the fast ones
	[ -f "$LIBDEVICE" ] || skip "CUDA's libdevice is not installed"
	run --separate-stderr nv-link -fast-math --libdevice -S "$FIXTURES/libdevice-fast.ll"
	assert_success
	grep -q "^define internal float @__nv_fast_tanhf(" <<<"$output"
	! grep -q "^define internal float @__nv_tanhf(" <<<"$output"
}
