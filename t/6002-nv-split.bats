#!/usr/bin/env bats
# nv-split and nv-link -split-map: per-function parts and their join.

load helper

setup_file() {
	export MANY
	MANY="$BATS_FILE_TMPDIR/many.cu"
	# every benchmark kernel in one file, each in its own namespace
	for f in "$TOP"/bench/kernels/*.cu; do
		echo "namespace ns_$(basename "$f" .cu) {"
		grep -v '^#include' "$f"
		echo "}"
	done >"$MANY"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# same_functions A B: every function of A is in B with the same body (llvm-diff)
same_functions() {
	run llvm-diff "$1" "$2"
	assert_success
	assert_output ""
}

@test "nv-split cuts a module into at most N parts, largest first, and writes the map" {
	nvcc-lite -arch=sm_90 -emit-llvm -split-compile=1 "$MANY" -o many.bc 2>/dev/null
	run nv-split -n 4 -o part many.bc
	assert_success
	for i in 0 1 2 3; do assert_file_exists part.$i.bc; done
	assert_file_not_exists part.4.bc
	run head -2 part.map
	assert_output $'nv-split-map 2\nparts 4'
	# each function is defined in exactly one part
	total=0
	for i in 0 1 2 3; do
		n=$(llvm-dis part.$i.bc -o - | grep -c '^define')
		[ "$n" -ge 1 ] || fail "part $i defines nothing"
		total=$((total + n))
	done
	assert_equal "$total" "$(llvm-dis many.bc -o - | grep -c '^define')"
}

@test "split then join gives back every function of the benchmark kernels unchanged" {
	nvcc-lite -arch=sm_90 -emit-llvm -O3 -Xcicc -disable-LoopUnrollPass "$MANY" -o many.bc 2>/dev/null
	for n in 1 2 5; do
		nv-split -n $n -o p$n many.bc
		nv-link -split-map=p$n.map p$n.*.bc -o joined$n.bc
		same_functions many.bc joined$n.bc
	done
	# The same module whatever N, up to the names of struct types (the
	# linker drops a name when it maps a type onto an identical one, and
	# which one it meets first depends on the parts); the PTX is
	# byte-identical (below).
	same_functions joined2.bc joined5.bc
}

@test "split then join gives back every function of libdevice unchanged" {
	ld=/usr/local/cuda/nvvm/libdevice/libdevice.10.bc
	[ -f "$ld" ] || skip "CUDA's libdevice is not installed"
	nv-split -n 3 -o ld "$ld"
	nv-link -split-map=ld.map ld.0.bc ld.1.bc ld.2.bc -o joined.bc
	same_functions "$ld" joined.bc
}

@test "internal functions and variables are external in the parts and internal again after the join" {
	cat >k.ll <<'LL'
@counter = internal addrspace(1) global i32 0
@0 = private addrspace(1) constant i32 7
define internal i32 @helper(i32 %x) {
  %v = load i32, ptr addrspace(1) @0
  %y = add i32 %x, %v
  ret i32 %y
}
define void @k1(ptr %p) {
  %r = call i32 @helper(i32 1)
  store i32 %r, ptr %p
  ret void
}
define void @k2(ptr %p) {
  %c = load i32, ptr addrspace(1) @counter
  store i32 %c, ptr %p
  ret void
}
LL
	nv-split -n 3 -o s k.ll
	run llvm-dis s.0.bc -o -
	refute_output --partial "internal"
	run cat s.map
	assert_line "internal counter"
	assert_line "internal helper"
	assert_line --regexp '^private-anon __nv_split_anon\.0$'
	nv-link -split-map=s.map s.2.bc s.0.bc s.1.bc -S -o j.ll
	grep -q '^@counter = internal addrspace(1) global i32 0' j.ll
	grep -q '^@0 = private addrspace(1) constant i32 7' j.ll
	grep -q '^define internal i32 @helper' j.ll
	same_functions k.ll j.ll
}

@test "--function writes the part that defines only that function" {
	nv-opt "$(fixture_bc saxpy)" -o k.bc
	name=$(llvm-dis k.bc -o - | sed -n 's/^define .*@\([A-Za-z0-9_]*\)(.*/\1/p' | head -1)
	run nv-split --function "$name" -S k.bc
	assert_success
	assert_output --partial "define "
	run --separate-stderr nv-split --function no_such_function k.bc
	assert_equal "$status" 1
	assert_equal "$stderr" "nv-split: error: the module does not define function 'no_such_function'"
}

@test "usage errors: -n without -o, -n with --function, a part count the map does not record" {
	bc=$(fixture_bc saxpy)
	run --separate-stderr nv-split -n 2 "$bc"
	assert_equal "$status" 2
	assert_equal "$stderr" "nv-split: error: -n needs -o PREFIX: the parts are files"
	run --separate-stderr nv-split -n 2 --function f -o x "$bc"
	assert_equal "$status" 2
	nv-split -n 1 -o one "$bc"
	run --separate-stderr nv-link -split-map=one.map one.0.bc one.0.bc
	assert_equal "$status" 1
	assert_equal "$stderr" "nv-link: error: the split map 'one.map' records 1 parts, not 2"
	echo garbage >bad.map
	run --separate-stderr nv-link -split-map=bad.map one.0.bc
	assert_equal "$status" 1
	assert_one_error nv-link
}

@test "-split-compile=1, 2 and 4 give byte-identical PTX, and so does the -dryrun script" {
	for n in 1 2 4; do
		nvcc-lite -ptx -arch=sm_90 -split-compile=$n "$MANY" -o m$n.ptx 2>/dev/null
	done
	cmp m1.ptx m2.ptx
	cmp m1.ptx m4.ptx
	nvcc-lite -ptx -dryrun -arch=sm_90 -split-compile=3 "$MANY" -o dry.ptx >build.sh
	grep -q 'nv-split -n 3' build.sh
	sh build.sh 2>/dev/null
	cmp m1.ptx dry.ptx
}

# bats test_tags=slow
@test "local symbols PTX cannot spell (printf's .str) get the same PTX names whatever N" {
	cat >g.cu <<'EOF'
#include <cstdio>
static __device__ int counter;
static __device__ __noinline__ int helper(int x) { return x + counter; }
__global__ void k1(int *p) { printf("k1 %d\n", p[0]); p[1] = helper(p[0]); atomicAdd(&counter, 1); }
__global__ void k2(int *p) { printf("k2 %d\n", p[1]); p[3] = helper(p[1]) * 2; }
__global__ void k3(int *p) { printf("k3\n"); }
EOF
	nvcc-lite -ptx -arch=sm_90 -split-compile=1 g.cu -o g1.ptx
	nvcc-lite -ptx -arch=sm_90 -split-compile=3 g.cu -o g3.ptx
	cmp g1.ptx g3.ptx
	grep -q '^.global .align 1 .b8 _\$_str\[' g3.ptx
	if command -v ptxas >/dev/null; then ptxas -arch=sm_90 g3.ptx -o g3.cubin; fi
}

# bats test_tags=slow
@test "-keep keeps the parts and each Phase II step of each part" {
	nvcc-lite -ptx -keep -arch=sm_90 -split-compile=2 "$MANY" -o kept.ptx 2>/dev/null
	assert_file_exists many.split.0.bc
	assert_file_exists many.split.map
	assert_file_exists many.0.7-nv-vectorize.bc
	assert_file_exists many.1.7-nv-vectorize.bc
	assert_file_exists many.p2.1.bc
	assert_file_exists many.1.13-nv-llc.bc # the IR half of codegen, per part
	assert_file_exists many.15-nv-link.bc  # the join numbers on
	nvcc-lite -ptx -arch=sm_90 "$MANY" -o plain.ptx 2>/dev/null
	cmp kept.ptx plain.ptx
}

# bats test_tags=slow
@test "-save-remarks names part K's files BASE.K.N-STAGE, and the -dryrun script does too" {
	nvcc-lite -ptx -arch=sm_90 -split-compile=2 -save-remarks rem "$MANY" -o r.ptx 2>/dev/null
	assert_file_exists rem/many.0.14-nv-remat.opt.yaml
	assert_file_exists rem/many.1.14-nv-remat.opt.yaml
	assert_file_exists rem/many.16-nv-llc.opt.yaml
	nvcc-lite -ptx -dryrun -arch=sm_90 -split-compile=2 -save-remarks rem2 "$MANY" -o d.ptx >build.sh
	sh build.sh 2>/dev/null
	cmp r.ptx d.ptx
	assert_file_exists rem2/many.0.14-nv-remat.opt.yaml
	assert_file_exists rem2/many.1.14-nv-remat.opt.yaml
}

@test "the join takes a function from the first part that defines it, whatever the other parts define" {
	printf 'define i32 @a(i32 %%x) {\n  %%y = add i32 %%x, 1\n  ret i32 %%y\n}\ndefine i32 @b(i32 %%x) {\n  %%y = mul i32 %%x, 3\n  ret i32 %%y\n}\n' >m.ll
	nv-split -n 2 -o p m.ll
	nv-link -split-map=p.map p.0.bc p.1.bc -o joined.bc
	# part 1 made to define both functions, as a part Phase II added to might
	llvm-link p.0.bc p.1.bc -o both.bc
	run nv-link -split-map=p.map p.0.bc both.bc -o joined2.bc
	assert_success
	cmp joined.bc joined2.bc
}
