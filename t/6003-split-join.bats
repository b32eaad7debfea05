#!/usr/bin/env bats
# Phase II must never lose a kernel: split and join give N=1's bytes for any
# N, and a join that would drop or duplicate a definition is refused.  The
# full sweep over every module is t/split-sweep.sh (make split-sweep).

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# entries FILE.ptx: the sorted .entry and .func names
entries() {
	sed -n 's/^\(\.visible \|\.weak \|\.extern \)*\.\(entry\|func\)  *\(([^)]*)  *\)\{0,1\}\([A-Za-z0-9_$]*\).*/\2 \4/p' "$1" | sort -u
}

# every linkage a part can hold, comdats (one named after a variable), a
# struct type used in one body only, kernels
every_linkage() {
	cat <<'LL'
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
%struct.pair = type { i32, float }
%struct.only = type { double, i32 }
$lo = comdat any
$wo = comdat any
$grp = comdat any
@grp = linkonce_odr addrspace(1) global i32 3, comdat
@counter = internal addrspace(1) global i32 0
@sh = internal addrspace(3) global [32 x float] undef
@cst = addrspace(4) externally_initialized constant [2 x i32] [i32 1, i32 2]
@wv = weak addrspace(1) global i32 5
@0 = private addrspace(1) constant i32 7
define linkonce_odr i32 @lo(i32 %x) comdat {
  %y = add i32 %x, 1
  ret i32 %y
}
define weak_odr hidden i32 @wo(i32 %x) comdat {
  %y = mul i32 %x, 3
  ret i32 %y
}
define linkonce_odr i32 @ingrp(i32 %x) comdat($grp) {
  %v = load i32, ptr addrspace(1) @grp
  %y = add i32 %x, %v
  ret i32 %y
}
define weak i32 @wk(i32 %x) {
  ret i32 %x
}
define available_externally i32 @ae(i32 %x) {
  %y = sub i32 %x, 1
  ret i32 %y
}
define internal i32 @helper(i32 %x) {
  %v = load i32, ptr addrspace(1) @0
  %y = add i32 %x, %v
  ret i32 %y
}
define private i32 @priv(i32 %x) {
  %y = xor i32 %x, 5
  ret i32 %y
}
define ptx_kernel void @k1(ptr %p) {
  %a = call i32 @lo(i32 1)
  %b = call i32 @wo(i32 %a)
  %c = call i32 @helper(i32 %b)
  %s = alloca %struct.only
  store double 1.0, ptr %s
  store i32 %c, ptr %p
  ret void
}
define ptx_kernel void @k2(ptr %p) {
  %a = call i32 @lo(i32 2)
  %b = call i32 @ingrp(i32 %a)
  %c = call i32 @wk(i32 %b)
  %d = call i32 @ae(i32 %c)
  %e = call i32 @priv(i32 %d)
  %q = getelementptr %struct.pair, ptr %p, i32 1, i32 1
  store i32 %e, ptr %q
  ret void
}
define ptx_kernel void @k3(ptr %p) {
  %v = load i32, ptr addrspace(1) @counter
  %w = load i32, ptr addrspace(4) @cst
  %s = getelementptr [32 x float], ptr addrspace(3) @sh, i32 0, i32 %v
  store float 1.0, ptr addrspace(3) %s
  %x = add i32 %v, %w
  store i32 %x, ptr %p
  ret void
}
LL
}

@test "the issue's template kernels: every N from 1 to 8 gives both, as nvcc does" {
	cat >t.cu <<'EOF'
template <int N> __global__ void k(float *p) { p[threadIdx.x] *= N; }
template __global__ void k<2>(float *);
template __global__ void k<3>(float *);
EOF
	for n in 1 2 3 4 5 6 7 8; do
		nvcc-lite -ptx -arch=sm_90 -split-compile=$n t.cu -o t$n.ptx
		[ "$(grep -c '^\.visible \.entry' t$n.ptx)" = 2 ] || fail "N=$n: $(grep -c '\.entry' t$n.ptx) kernels, not 2"
		cmp t1.ptx t$n.ptx
	done
}

# bats test_tags=slow
@test "templates, statics, __shared__, __constant__ and weak symbols: N=1..8 give N=1's PTX and nvcc's kernels" {
	src=$FIXTURES/split-templates.cu
	nvcc-lite -ptx -arch=sm_90 -split-compile=1 "$src" -o 1.ptx
	entries 1.ptx >1.set
	assert_equal "$(grep -c '^entry ' 1.set)" 9
	grep -q '^func _Z6helperi$' 1.set
	for n in 2 3 4 5 6 7 8; do
		nvcc-lite -ptx -arch=sm_90 -split-compile=$n "$src" -o $n.ptx
		cmp 1.ptx $n.ptx
		entries $n.ptx | cmp 1.set -
	done
	if have_nvcc; then
		nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
		"$nvcc" -ptx -arch=sm_90 "$src" -o nvcc.ptx
		entries nvcc.ptx | grep '^entry ' >nvcc.set
		grep '^entry ' 1.set | cmp nvcc.set -
	fi
}

@test "the front end's module (linkonce_odr templates in comdats) joins to N=1's bytes for N=1..8" {
	bc=$(fixture_bc split-templates)
	for n in 1 2 3 4 5 6 7 8; do
		nv-split -n $n -o p$n "$bc"
		nv-link -split-map=p$n.map p$n.*.bc -o j$n.bc
		cmp j1.bc j$n.bc
	done
	run llvm-diff "$bc" j1.bc
	assert_output ""
	llvm-dis j1.bc -o - | grep -q '^define linkonce_odr .*@_Z5scaleILi2EEff(.*comdat'
	nv-llc -arch=sm_90 j1.bc -o j1.ptx
	nv-llc -arch=sm_90 j8.bc -o j8.ptx
	cmp j1.ptx j8.ptx
}

@test "every linkage, comdats and struct types come back as they were, the same bytes for N=1..8" {
	every_linkage >m.ll
	for n in 1 2 3 4 5 6 7 8; do
		rm -f p.*
		nv-split -n $n -o p m.ll
		nv-link -split-map=p.map p.*.bc -o j$n.bc
		cmp j1.bc j$n.bc
	done
	run llvm-diff m.ll j1.bc
	assert_output ""
	llvm-dis j8.bc -o j8.ll
	grep -q '^define linkonce_odr i32 @lo(i32 %x) comdat {' j8.ll
	grep -q '^define weak_odr hidden i32 @wo(i32 %x) comdat {' j8.ll
	grep -q '^define linkonce_odr i32 @ingrp(i32 %x) comdat(\$grp) {' j8.ll
	grep -q '^define weak i32 @wk' j8.ll
	grep -q '^define available_externally i32 @ae' j8.ll
	grep -q '^define internal i32 @helper' j8.ll
	grep -q '^define private i32 @priv' j8.ll
	grep -q '^@grp = linkonce_odr addrspace(1) global i32 3, comdat$' j8.ll
	grep -q '^@sh = internal addrspace(3) global' j8.ll
	grep -q '^@0 = private addrspace(1) constant i32 7' j8.ll
	grep -q '^%struct.only = type { double, i32 }' j8.ll
	refute grep -q '__nv_split' j8.ll
	nv-llc -arch=sm_90 j1.bc -o j1.ptx
	nv-llc -arch=sm_90 j8.bc -o j8.ptx
	cmp j1.ptx j8.ptx
}

@test "the same module and N always give the same parts and map" {
	bc=$(fixture_bc split-templates)
	nv-split -n 5 -o a "$bc"
	nv-split -n 5 -o b "$bc"
	for i in 0 1 2 3 4; do cmp a.$i.bc b.$i.bc; done
	cmp a.map b.map
	grep -q '^define [0-4] _Z1kILi2EEvPf$' a.map
}

@test "nv-link -split-map refuses, in one line, a join that would drop a definition" {
	every_linkage >m.ll
	nv-split -n 3 -o p m.ll
	# part 2 missing, part 0 given in its place: the count is right, a body is not
	run --separate-stderr nv-link -split-map=p.map p.0.bc p.1.bc p.0.bc -o j.bc
	assert_equal "$status" 1
	assert_one_error nv-link
	[[ "$stderr" == "nv-link: error: the join would drop '"*"': no input defines it, and the split gave it part 2" ]] ||
		fail "unexpected: $stderr"
	assert_file_not_exists j.bc
	# a part Phase II emptied of a function the split gave it
	name=$(sed -n 's/^define 1 //p' p.map | head -1)
	llvm-extract --delete --func="$name" p.1.bc -o q.1.bc
	run --separate-stderr nv-link -split-map=p.map p.0.bc q.1.bc p.2.bc
	assert_equal "$status" 1
	assert_one_error nv-link
	assert_equal "$stderr" "nv-link: error: the join would drop '$name': no input defines it, and the split gave it part 1"
}

@test "nv-link -split-map refuses, in one line, a join that would duplicate a definition" {
	printf 'define i32 @a(i32 %%x) {\n  ret i32 %%x\n}\ndefine i32 @b(i32 %%x) {\n  ret i32 %%x\n}\n' >m.ll
	nv-split -n 2 -o p m.ll
	# Phase II made a local function of one name in each part: two bodies
	for i in 0 1; do
		printf 'define internal i32 @h(i32 %%x) {\n  %%y = add i32 %%x, %d\n  ret i32 %%y\n}\n' $i >h$i.ll
		printf 'define i32 @c%d(i32 %%x) {\n  %%y = call i32 @h(i32 %%x)\n  ret i32 %%y\n}\n' $i >>h$i.ll
	done
	llvm-link p.0.bc h0.ll -o q.0.bc
	llvm-link p.1.bc h1.ll -o q.1.bc
	run --separate-stderr nv-link -split-map=p.map q.0.bc q.1.bc
	assert_equal "$status" 1
	assert_one_error nv-link
	assert_equal "$stderr" "nv-link: error: the join would duplicate 'h': parts 0 and 1 each define it as a local function"
	# one part's new local function is no duplicate
	run nv-link -split-map=p.map q.0.bc p.1.bc -o j.bc
	assert_success
	llvm-dis j.bc -o - | grep -q '^define internal i32 @h'
}

@test "nv-link -split-map remarks each linkage it restores, and only those" {
	cat >m.ll <<'LL'
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
@counter = internal addrspace(1) global i32 0
define internal i32 @twice(i32 %x) {
  %y = add i32 %x, %x
  ret i32 %y
}
define i32 @pub(i32 %x) {
  %y = call i32 @twice(i32 %x)
  store i32 %y, ptr addrspace(1) @counter
  ret i32 %y
}
define ptx_kernel void @k(ptr %p) {
  %v = call i32 @pub(i32 1)
  %w = call i32 @twice(i32 %v)
  store i32 %w, ptr %p
  ret void
}
LL
	nv-split -n 3 -o p m.ll
	run --separate-stderr nv-link -pass-remarks=nv-link -split-map=p.map p.*.bc -o j.bc
	assert_success
	[ "${#stderr_lines[@]}" -eq 2 ] || fail "$stderr"
	assert_equal "${stderr_lines[0]}" "nv-link: remark: 'counter' is internal again, as before the split [-pass-remarks=nv-link]"
	assert_equal "${stderr_lines[1]}" "nv-link: remark: in function 'twice': 'twice' is internal again, as before the split [-pass-remarks=nv-link]"
	run llvm-diff m.ll j.bc
	assert_output ""
}
