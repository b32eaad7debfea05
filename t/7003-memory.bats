#!/usr/bin/env bats
# cicc's memory passes: set-local-array-alignment in nv-opt's pipeline text,
# the late-memory sub-pipeline, and the v4 accesses they give nvcc-lite.

load helper

LL="$FIXTURES/local-arrays.ll"

# count REGEX FILE: lines of FILE matching the ERE.
count() {
	grep -cE "$1" "$2" || true
}

# ours KERNEL: the memory fixture through nvcc-lite -O3 for sm_90 (the shim,
# so the result is the same with and without CUDA), that kernel's PTX only.
ours() {
	[ -f "$BATS_FILE_TMPDIR/memory.ptx" ] ||
		CUDA_PATH=/nonexistent nvcc-lite -ptx -arch=sm_90 -O3 "$FIXTURES/memory.cu" \
			-o "$BATS_FILE_TMPDIR/memory.ptx"
	awk -v k="$1(" '/^\.visible \.entry/ { p = ($3 == k) } p' "$BATS_FILE_TMPDIR/memory.ptx" \
		>"$BATS_TEST_TMPDIR/$1.ptx"
}

theirs() {
	"$(nvcc_bin)" -ptx -arch=sm_90 -O3 "$FIXTURES/memory.cu" -o "$BATS_TEST_TMPDIR/nvcc.ptx"
	awk -v k="$1(" '/^\.visible \.entry/ { p = ($3 == k) } p' "$BATS_TEST_TMPDIR/nvcc.ptx" \
		>"$BATS_TEST_TMPDIR/$1.nvcc.ptx"
}

@test "set-local-array-alignment gives an array the largest power of two dividing its size, at most 16" {
	nv-opt -passes=set-local-array-alignment "$LL" -S -o "$BATS_TEST_TMPDIR/out.ll"
	FileCheck --check-prefix=DEFAULT "$LL" <"$BATS_TEST_TMPDIR/out.ll"
}

@test "use-max-local-array-alignment aligns every static array to 16; disable-set-local-array-alignment none" {
	nv-opt -use-max-local-array-alignment=1 -passes=set-local-array-alignment "$LL" -S |
		FileCheck --check-prefix=MAX "$LL"
	nv-opt -disable-set-local-array-alignment=1 -passes=set-local-array-alignment "$LL" -S \
		-o "$BATS_TEST_TMPDIR/off.ll"
	run grep -c 'alloca.*align 16' "$BATS_TEST_TMPDIR/off.ll"
	assert_output 0
}

@test "each local array raised is a remark of set-local-array-alignment" {
	run --separate-stderr nv-opt -pass-remarks=set-local-array-alignment \
		-passes=set-local-array-alignment "$LL" -o /dev/null
	assert_success
	[[ "$stderr" == *"local array of 192 bytes aligned to 16 (was 4) [-pass-remarks=set-local-array-alignment]"* ]] ||
		fail "$stderr"
	[ "$(grep -c 'aligned to' <<<"$stderr")" -eq 6 ] || fail "$stderr"
}

@test "our passes run in order between LLVM passes of one pipeline text" {
	# instcombine would raise an alloca to its type's alignment only;
	# sroa after the alignment pass keeps what it set on a kept alloca.
	run --separate-stderr nv-opt -debug-pass-manager=1 \
		-passes='function(instcombine),set-local-array-alignment,function(sroa)' "$LL" -S
	assert_success
	assert_output --partial '%f48 = alloca [48 x float], align 16'
	[[ "$stderr" == *InstCombinePass*SROAPass* ]] || fail "$stderr"
	run --separate-stderr nv-opt -passes='set-local-array-alignment,function(nosuchpass)' </dev/null
	assert_equal "$status" 2
	assert_one_error nv-opt
}

@test "late-memory runs after the post-unroll cleanup and before codegen at -O1..3, not at -O0" {
	for o in 1 2 3; do
		run nvcc-lite --print-pipeline -O$o
		assert_success
		assert_output --regexp "post-unroll[^
]*
[^
]*nv-opt -pipeline=late-memory [^
]*
[^
]*nv-llc -O$o -stop-after=codegenprepare"
	done
	run nvcc-lite --print-pipeline -O0
	refute_output --partial late-memory
}

# bats test_tags=slow
@test "a local array that stays in local memory: .align 16 depot, written by 12 st.local.v4 (cicc's probe)" {
	ours local_depot
	f="$BATS_TEST_TMPDIR/local_depot.ptx"
	grep -qE '\.local \.align 16 \.b8[[:space:]]+__local_depot0\[192\]' "$f" || fail "$(grep depot "$f")"
	assert_equal "$(count 'st\.local\.v4' "$f")" 12
	assert_equal "$(count 'st\.local' "$f")" 12
	if have_nvcc; then
		theirs local_depot
		assert_equal "$(count 'st\.local\.v4' "$f")" "$(count 'st\.local\.v4' "$BATS_TEST_TMPDIR/local_depot.nvcc.ptx")"
	fi
	nvcc-lite -ptx -arch=sm_90 -O3 -Xcicc -disable-set-local-array-alignment=1 "$FIXTURES/memory.cu" \
		-o "$BATS_TEST_TMPDIR/off.ptx"
	assert_equal "$(count 'st\.local\.v4' "$BATS_TEST_TMPDIR/off.ptx")" 0
}

@test "an aligned loop under #pragma unroll 4 loads and stores with .v4 (cicc's probe)" {
	ours unroll4_aligned
	f="$BATS_TEST_TMPDIR/unroll4_aligned.ptx"
	assert_equal "$(count 'ld\.global(\.nc)?\.v4\.(f32|b32)' "$f")" 1
	assert_equal "$(count 'st\.global\.v4\.(f32|b32)' "$f")" 1
	if have_nvcc; then
		theirs unroll4_aligned
		n="$BATS_TEST_TMPDIR/unroll4_aligned.nvcc.ptx"
		[ "$(count 'ld\.global[.a-z]*\.v4' "$f")" -ge "$(count 'ld\.global[.a-z]*\.v4' "$n")" ] || fail "fewer ld.v4 than nvcc"
		[ "$(count 'st\.global[.a-z]*\.v4' "$f")" -ge "$(count 'st\.global[.a-z]*\.v4' "$n")" ] || fail "fewer st.v4 than nvcc"
	fi
}

@test "a loop over a local array is left to nv-unroll, so the array stays in registers (CUB's probe)" {
	ours local_items
	run grep -cE '__local_depot|(ld|st)\.local' "$BATS_TEST_TMPDIR/local_items.ptx"
	assert_output 0
	# the early unroll takes its #pragma unroll loops before nv-vectorize
	# sees them; without it, nv-vectorize leaves them to nv-unroll
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 -O3 -Xcicc -pass-remarks-missed=nv-vectorize \
		-Xcicc -unroll-early-pragma=0 "$FIXTURES/memory.cu" -o /dev/null
	assert_success
	[[ "$stderr" == *"in function 'local_items': loop"*"not vectorized: #pragma unroll chooses the shape of this loop"* ]] || fail "$stderr"
	# without the pragmas, the local array itself keeps the vectorizer away
	[[ "$stderr" == *"in function 'local_plain': loop"*"it accesses a local array aligned to less than 16 bytes"* ]] || fail "$stderr"
	ours local_plain
	run grep -cE '__local_depot|(ld|st)\.local' "$BATS_TEST_TMPDIR/local_plain.ptx"
	assert_output 0
}

@test "lower-aggr-copies copies a whole local aggregate field by field, and nothing else" {
	nv-opt -passes=lower-aggr-copies "$FIXTURES/aggr-copies.ll" -S -o "$BATS_TEST_TMPDIR/out.ll"
	FileCheck "$FIXTURES/aggr-copies.ll" <"$BATS_TEST_TMPDIR/out.ll"
}

@test "a float4 staged through a local temporary into shared memory leaves no stack frame (cicc's, not clang's)" {
	ours staged_float4
	run grep -cE '__local_depot|(ld|st)\.local' "$BATS_TEST_TMPDIR/staged_float4.ptx"
	assert_output 0
}

@test "ptxas accepts the memory probes' PTX" {
	have_ptxas || skip "ptxas is not installed"
	ours local_depot
	run "$(ptxas_bin)" -arch=sm_90 "$BATS_FILE_TMPDIR/memory.ptx" -o /dev/null
	assert_success
}

@test "nv-llc computes generic addresses into shared memory from one conversion of the base" {
	nv-llc -stop-after=codegenprepare "$FIXTURES/shared-once.ll" -o "$BATS_TEST_TMPDIR/cut.bc"
	llvm-dis-22 "$BATS_TEST_TMPDIR/cut.bc" -o - | FileCheck "$FIXTURES/shared-once.ll"
}

@test "wmma tiles in dynamic shared memory: no cvta.shared per address, no more registers than cicc (GEMM samples' probe)" {
	ours shared_tiles
	# cicc: 2 cvta.shared, one for the A rows and one for the B rows, and generic
	# wmma loads; before one conversion per base: 17, one per address; with the
	# loads' .shared variants (memory-space-opt) none
	n=$(grep -c 'cvta\.shared' "$BATS_TEST_TMPDIR/shared_tiles.ptx" || true)
	[ "$n" -le 2 ] || fail "$n cvta.shared"
	have_ptxas || skip "ptxas is not installed"
	regs=$("$(ptxas_bin)" -v -arch=sm_90 "$BATS_FILE_TMPDIR/memory.ptx" -o /dev/null 2>&1 |
		awk '/Compiling entry function .shared_tiles./ { p = 1 } p && /registers/ { sub(/.*Used /, ""); print $1; exit }')
	# cicc: 44 (CUDA 13.0); nvcc-lite before one conversion per base: 72; with
	# generic loads from one conversion 40, with the .shared ones 36
	[ "$regs" -le 44 ] || fail "shared_tiles uses $regs registers"
}

@test "shared memory is addressed with 32-bit registers, as cicc does: the front end's layout, kept by every stage" {
	ours shared_reduce
	run grep -cE '(ld|st)\.shared\.[^;]*\[%r[0-9]' "$BATS_TEST_TMPDIR/shared_reduce.ptx"
	[ "$output" -ge 3 ] || fail "$output shared accesses through a 32-bit address"
	run grep -cE '(ld|st)\.shared\..*\[%rd' "$BATS_TEST_TMPDIR/shared_reduce.ptx"
	assert_output 0
	CUDA_PATH=/nonexistent nvcc-lite -emit-llvm -arch=sm_90 -O3 "$FIXTURES/memory.cu" -o "$BATS_TEST_TMPDIR/m.bc"
	llvm-dis-22 "$BATS_TEST_TMPDIR/m.bc" -o - | grep -q '^target datalayout = ".*-p3:32:32'
}

@test "a module with 64-bit shared pointers keeps them through the stages; ptxas gives it more registers" {
	bc=$(fixture_bc memory)
	nv-opt -O3 "$bc" | nv-unroll -O3 | nv-llc -arch=sm_90 -o "$BATS_TEST_TMPDIR/long.ptx"
	awk '/^\.visible \.entry/ { p = ($3 == "shared_reduce(") } p' "$BATS_TEST_TMPDIR/long.ptx" >"$BATS_TEST_TMPDIR/k.ptx"
	run grep -cE '(ld|st)\.shared\..*\[%rd' "$BATS_TEST_TMPDIR/k.ptx"
	[ "$output" -ge 3 ] || fail "$output shared accesses through a 64-bit address"
	have_ptxas || skip "ptxas is not installed"
	ours shared_reduce
	regs() {
		"$(ptxas_bin)" -v -arch=sm_90 "$1" -o /dev/null 2>&1 |
			awk '/Compiling entry function .shared_reduce./ { p = 1 } p && /registers/ { sub(/.*Used /, ""); print $1; exit }'
	}
	short=$(regs "$BATS_FILE_TMPDIR/memory.ptx") long=$(regs "$BATS_TEST_TMPDIR/long.ptx")
	[ "$short" -lt "$long" ] || fail "32-bit: $short registers, 64-bit: $long"
}

@test "a struct assignment between global arrays copies with one ld.global.nc.v4 and one st.global.v4 (cicc's)" {
	ours copy_int4
	run grep -cE 'ld\.global\.nc\.v4\.(b|u)32' "$BATS_TEST_TMPDIR/copy_int4.ptx"
	assert_output 1
	run grep -cE 'st\.global\.v4\.(b|u)32' "$BATS_TEST_TMPDIR/copy_int4.ptx"
	assert_output 1
	run grep -cE '(ld|st)\.global\.(b|u)64' "$BATS_TEST_TMPDIR/copy_int4.ptx"
	assert_output 0
}

@test "a local array's 32-bit address comes from its depot, not the 64-bit frame register truncated: no stack frame" {
	ours local_pick
	grep -qE 'mov\.u32[[:space:]]+%r[0-9]+, __local_depot[0-9]+;' "$BATS_TEST_TMPDIR/local_pick.ptx"
	run grep -c 'cvt\.u32\.u64' "$BATS_TEST_TMPDIR/local_pick.ptx"
	assert_output 0
	have_ptxas || skip "ptxas is not installed"
	frame=$("$(ptxas_bin)" -v -arch=sm_90 "$BATS_FILE_TMPDIR/memory.ptx" -o /dev/null 2>&1 |
		awk '/Function properties for local_pick/ { p = 1; next } p && /stack frame/ { print $1; exit }')
	assert_equal "$frame" 0
}

@test "a zero initialisation the unrolled loop overwrites is dropped (post-unroll's DSE): no store of zeros, no stack frame, as nvcc's" {
	ours dead_init
	grep -qE 'st\.local\.v2' "$BATS_TEST_TMPDIR/dead_init.ptx"
	run grep -cE 'st\.local\.b64|st\.local.*, 0;' "$BATS_TEST_TMPDIR/dead_init.ptx"
	assert_output 0
	if have_ptxas; then
		frame=$("$(ptxas_bin)" -v -arch=sm_90 "$BATS_FILE_TMPDIR/memory.ptx" -o /dev/null 2>&1 |
			awk '/Function properties for dead_init$/ { p = 1; next } p && /stack frame/ { print $1; exit }')
		assert_equal "$frame" 0
	fi
}

@test "a volatile local no other code sees is read and written plainly, as cicc's, and stays out of memory" {
	ours volatile_local
	run grep -cE '__local_depot|ld\.local|st\.local' "$BATS_TEST_TMPDIR/volatile_local.ptx"
	assert_output 0
	# its address published, a volatile local is stored and read back
	ours volatile_published
	grep -qE 'st\.local\.b32' "$BATS_TEST_TMPDIR/volatile_published.ptx"
	grep -qE 'ld\.local\.b32' "$BATS_TEST_TMPDIR/volatile_published.ptx"
	run --separate-stderr env CUDA_PATH=/nonexistent nvcc-lite -ptx -arch=sm_90 -O3 -Xcicc -pass-remarks=nv-llc \
		"$FIXTURES/memory.cu" -o "$BATS_TEST_TMPDIR/m.ptx"
	assert_success
	[[ "$stderr" == *"in function 'volatile_local': volatile loads and stores of a local that no other code can see made plain"* ]] ||
		fail "$stderr"
	[[ "$stderr" != *"in function 'volatile_published': volatile"* ]] || fail "$stderr"
	have_ptxas || skip "ptxas is not installed"
	frame=$("$(ptxas_bin)" -v -arch=sm_90 "$BATS_FILE_TMPDIR/memory.ptx" -o /dev/null 2>&1 |
		awk '/Function properties for volatile_local$/ { p = 1; next } p && /stack frame/ { print $1; exit }')
	assert_equal "$frame" 0
}

@test "a local only written (NVPTX's copy of a byval kernel parameter the kernel writes) is gone at the cut; one read stays" {
	run --separate-stderr nv-llc -O3 -arch=sm_90 -stop-after=codegenprepare -pass-remarks=nv-llc \
		"$FIXTURES/byval-written.ll" -o "$BATS_TEST_TMPDIR/cut.bc"
	assert_success
	grep -q "in function 'k': a local that is written and never read is gone, with its writes" <<<"$stderr"
	llvm-dis "$BATS_TEST_TMPDIR/cut.bc" -o "$BATS_TEST_TMPDIR/cut.ll"
	run grep -c ' = alloca ' "$BATS_TEST_TMPDIR/cut.ll"
	assert_output 1
	grep -q '%kept = alloca \[4 x i64\]' "$BATS_TEST_TMPDIR/cut.ll"
	run grep -c 'call void @llvm.memcpy' "$BATS_TEST_TMPDIR/cut.ll"
	assert_output 0
	nv-llc -O3 -arch=sm_90 -start-after=codegenprepare "$BATS_TEST_TMPDIR/cut.bc" -o "$BATS_TEST_TMPDIR/k.ptx"
	if have_ptxas; then
		# 48 bytes with the copy
		run "$(ptxas_bin)" -v -arch=sm_90 "$BATS_TEST_TMPDIR/k.ptx" -o /dev/null
		assert_success
		assert_output -p "32 bytes stack frame"
	fi
}

@test "unskip-stores: a store a branch skips, after a store to the same bytes, is made unconditional; what may write them in between keeps the branch" {
	run --separate-stderr nv-opt -passes=unskip-stores -pass-remarks=unskip-stores -S "$FIXTURES/unskip.ll" \
		-o "$BATS_TEST_TMPDIR/u.ll"
	assert_success
	opt -passes=verify -disable-output "$BATS_TEST_TMPDIR/u.ll"
	assert_equal "$(grep -c 'a store that a branch skipped is made unconditional' <<<"$stderr")" 2
	grep -q "in function 'on_true': .* with its 2 instructions above the branch" <<<"$stderr"
	body() { sed -n "/^define .*@$1(/,/^}/p" "$BATS_TEST_TMPDIR/u.ll"; }
	# taken on the true edge: select(c, new, old), one store, no branch left
	body on_true | grep -q '%unskip = select i1 %c, i32 %r, i32 7'
	assert_equal "$(body on_true | grep -c 'store i32 %unskip, ptr addrspace(1) %x')" 1
	assert_equal "$(body on_true | grep -c 'br i1' || true)" 0
	# taken on the false edge, a phi at the join: select(c, old, new), the branch stays
	body on_false | grep -q '%unskip = select i1 %c, i32 1, i32 %r'
	body on_false | grep -q '%p = phi i32 \[ 0, %entry \], \[ %r, %then \]'
	# a store through another pointer, a call, a load or a division, no earlier
	# store of exactly those bytes: unchanged
	for f in clobbered called loads no_earlier; do
		run diff <(body "$f") <(opt -S "$FIXTURES/unskip.ll" | sed -n "/^define .*@$f(/,/^}/p")
		assert_success
	done
	# the limit counts the skipped block's instructions; 0 turns it off
	run --separate-stderr nv-opt -passes=unskip-stores -skipped-store-limit=1 -pass-remarks=unskip-stores \
		"$FIXTURES/unskip.ll" -o /dev/null
	assert_equal "$(grep -c 'made unconditional' <<<"$stderr")" 1
	run --separate-stderr nv-opt -passes=unskip-stores -skipped-store-limit=0 -pass-remarks=unskip-stores \
		"$FIXTURES/unskip.ll" -o /dev/null
	assert_equal "$stderr" ""
}

@test "meaning: Sobol's skipahead after the unrolls prints the same once its skipped store is unconditional" {
	cat > "$BATS_TEST_TMPDIR/h.c" <<-'EOF'
	#include <stdio.h>
	struct st { unsigned i, x, v[32]; };
	static struct st S[64];
	__attribute__((noinline)) void init(struct st *s, const unsigned *dirs, unsigned off) {
		s->i = off;
		s->x = 0;
		for (int k = 0; k < 32; k++) s->v[k] = dirs[k];
		unsigned g = off ^ (off >> 1);
		for (unsigned k = 0; k < 32; k++)
			if (g & (1u << k)) s->x ^= s->v[k];
	}
	int main(void) {
		unsigned dirs[32], h = 0;
		for (int k = 0; k < 32; k++) dirs[k] = 2654435761u * (k + 1);
		for (unsigned t = 0; t < 64; t++) {
			init(&S[t], dirs, t * 977u);
			h = h * 31 + S[t].x + S[t].i;
		}
		printf("%u\n", h);
		return 0;
	}
	EOF
	clang-22 -O2 -Xclang -disable-llvm-passes -emit-llvm -c "$BATS_TEST_TMPDIR/h.c" -o "$BATS_TEST_TMPDIR/h0.bc"
	nv-opt -O3 -no-unroll -no-vectorize "$BATS_TEST_TMPDIR/h0.bc" | nv-unroll | nv-opt -pipeline=mid-unroll |
		nv-unroll -config=D | nv-opt -pipeline=post-unroll-t3 -o "$BATS_TEST_TMPDIR/h1.bc"
	want=$(lli "$BATS_TEST_TMPDIR/h1.bc")
	run --separate-stderr nv-opt -passes=unskip-stores -pass-remarks=unskip-stores "$BATS_TEST_TMPDIR/h1.bc" \
		-o "$BATS_TEST_TMPDIR/h2.bc"
	assert_success
	grep -q "in function 'init': a store that a branch skipped is made unconditional" <<<"$stderr"
	run lli "$BATS_TEST_TMPDIR/h2.bc"
	assert_output "$want"
}

@test "curand's Sobol32 initialization compiles straight-line: fewer registers than with its skipped store kept" {
	have_ptxas || skip "ptxas is not installed"
	ours sobol_init
	CUDA_PATH=/nonexistent nvcc-lite -ptx -arch=sm_90 -O3 -Xcicc -skipped-store-limit=0 "$FIXTURES/memory.cu" \
		-o "$BATS_TEST_TMPDIR/kept.ptx"
	regs() {
		"$(ptxas_bin)" -v -arch=sm_90 "$1" -o /dev/null 2>&1 |
			awk '/Compiling entry function .sobol_init/ { p = 1 } p && /Used/ { print $5; exit }'
	}
	with=$(regs "$BATS_FILE_TMPDIR/memory.ptx")
	without=$(regs "$BATS_TEST_TMPDIR/kept.ptx")
	[ "$with" -lt "$without" ] || fail "sobol_init: $with registers, $without with the store kept"
	if have_nvcc; then
		theirs sobol_init
		cicc=$(regs "$BATS_TEST_TMPDIR/nvcc.ptx")
		[ "$with" -le "$cicc" ] || fail "sobol_init: $with registers, cicc $cicc"
	fi
}

@test "set-extern-shared-alignment raises dynamic shared arrays to 16, and nothing else" {
	cat >"$BATS_TEST_TMPDIR/ext.ll" <<-'LL'
	@dyn = external addrspace(3) global [0 x float], align 4
	@dynb = external addrspace(3) global [0 x i8], align 1
	@wide = external addrspace(3) global [0 x <4 x float>], align 32
	@fixed = addrspace(3) global [64 x float] undef, align 4
	@other = external addrspace(3) global i32, align 4
	@glob = external addrspace(1) global [0 x float], align 4
	LL
	run --separate-stderr nv-opt -pass-remarks=set-extern-shared-alignment \
		-passes=set-extern-shared-alignment "$BATS_TEST_TMPDIR/ext.ll" -S
	assert_success
	assert_output --partial '@dyn = external addrspace(3) global [0 x float], align 16'
	assert_output --partial '@dynb = external addrspace(3) global [0 x i8], align 16'
	assert_output --partial '@wide = external addrspace(3) global [0 x <4 x float>], align 32'
	assert_output --partial '@fixed = addrspace(3) global [64 x float] undef, align 4'
	assert_output --partial '@other = external addrspace(3) global i32, align 4'
	assert_output --partial '@glob = external addrspace(1) global [0 x float], align 4'
	[[ "$stderr" == *"extern shared array 'dyn' aligned to 16 (was 4)"* ]] || fail "$stderr"
	[ "$(grep -c 'aligned to 16' <<<"$stderr")" -eq 2 ] || fail "$stderr"
}

@test "rows of dynamic shared memory load with ld.shared.v4 from its .align 16, as cicc's (layernorm_backward's probe)" {
	ours shared_rows
	f="$BATS_TEST_TMPDIR/shared_rows.ptx"
	grep -qE '^\.extern \.shared \.align 16 \.b8 sh_rows\[\];' "$BATS_FILE_TMPDIR/memory.ptx" ||
		fail "$(grep extern "$BATS_FILE_TMPDIR/memory.ptx")"
	# every shared load a row: 2 an iteration (x2 at run time) and 2 in the remainder
	assert_equal "$(count 'ld\.shared\.v4' "$f")" 6
	assert_equal "$(count 'ld\.shared' "$f")" 6
	if have_nvcc; then
		theirs shared_rows
		n="$BATS_TEST_TMPDIR/shared_rows.nvcc.ptx"
		assert_equal "$(count 'ld\.shared' "$n")" "$(count 'ld\.shared\.v4' "$n")"
	fi
	CUDA_PATH=/nonexistent nvcc-lite -ptx -arch=sm_90 -O3 -Xcicc -pass-remarks=set-extern-shared-alignment \
		"$FIXTURES/memory.cu" -o "$BATS_TEST_TMPDIR/m.ptx" 2>"$BATS_TEST_TMPDIR/remarks"
	grep -q "extern shared array 'sh_rows' aligned to 16 (was 4)" "$BATS_TEST_TMPDIR/remarks" ||
		fail "$(cat "$BATS_TEST_TMPDIR/remarks")"
}

@test "base-address-strength-reduce computes p[x - k] from p[x] and -k, -k before the loop; its knob turns it off" {
	run --separate-stderr nv-opt -passes=base-address-strength-reduce -pass-remarks=base-address-strength-reduce \
		"$FIXTURES/basr.ll" -S -o "$BATS_TEST_TMPDIR/out.ll"
	assert_success
	FileCheck "$FIXTURES/basr.ll" <"$BATS_TEST_TMPDIR/out.ll"
	[ "$(grep -c 'p\[x - k\] computed as p\[x\] + -k' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	opt-22 -passes=verify -disable-output "$BATS_TEST_TMPDIR/out.ll"
	nv-opt -do-base-address-strength-reduce=0 -passes=base-address-strength-reduce "$FIXTURES/basr.ll" -S |
		FileCheck --check-prefix=OFF "$FIXTURES/basr.ll"
}

@test "the stencil's in[idx - nx] is one add in the loop, and ptxas then predicates the neighbours' loads" {
	# bench/kernels/stencil3d_7pt.cu: 1.64x nvcc's time on an H100 with the loads branched around
	k="$BATS_TEST_DIRNAME/../bench/kernels/stencil3d_7pt.cu"
	CUDA_PATH=/nonexistent nvcc-lite -ptx -arch=sm_90 -O3 "$k" -o "$BATS_TEST_TMPDIR/on.ptx"
	CUDA_PATH=/nonexistent nvcc-lite -ptx -arch=sm_90 -O3 "$k" -o "$BATS_TEST_TMPDIR/off.ptx" \
		-Xcicc -do-base-address-strength-reduce=0
	run count 'sub\.s64' "$BATS_TEST_TMPDIR/on.ptx"
	assert_output 0
	n=$(count 'sub\.s64' "$BATS_TEST_TMPDIR/off.ptx")
	[ "$n" -ge 4 ] || fail "$n sub.s64 without the pass"
	have_ptxas || skip "ptxas is not installed"
	command -v python3 >/dev/null || skip "python3 is not installed"
	"$(ptxas_bin)" -arch=sm_90 "$BATS_TEST_TMPDIR/on.ptx" -o "$BATS_TEST_TMPDIR/on.cubin"
	"$(ptxas_bin)" -arch=sm_90 "$BATS_TEST_TMPDIR/off.ptx" -o "$BATS_TEST_TMPDIR/off.cubin"
	# ptxas 13.0: 12 of the 16 neighbour loads of the x4 loop predicated (nvcc's: 16), none without
	on=$(python3 "$BATS_TEST_DIRNAME/sass-ops.py" "$BATS_TEST_TMPDIR/on.cubin" stencil3d_7pt | grep -oE '@LDG=[0-9]+' || echo @LDG=0)
	off=$(python3 "$BATS_TEST_DIRNAME/sass-ops.py" "$BATS_TEST_TMPDIR/off.cubin" stencil3d_7pt | grep -oE '@LDG=[0-9]+' || echo @LDG=0)
	[ "${on#@LDG=}" -gt "${off#@LDG=}" ] || fail "predicated loads: $on with the pass, $off without"
}

@test "rebasing p[x - k] keeps a program's meaning (lli, before and after late-memory)" {
	clang-22 -O2 -Xclang -disable-llvm-passes -w -emit-llvm -c "$FIXTURES/basr-meaning.c" -o "$BATS_TEST_TMPDIR/in.bc"
	nv-opt -O3 "$BATS_TEST_TMPDIR/in.bc" -o "$BATS_TEST_TMPDIR/o3.bc"
	run --separate-stderr nv-opt -pipeline=late-memory -pass-remarks=base-address-strength-reduce \
		"$BATS_TEST_TMPDIR/o3.bc" -o "$BATS_TEST_TMPDIR/late.bc"
	assert_success
	[ "$(grep -c 'computed as' <<<"$stderr")" -ge 1 ] || fail "nothing rebased: $stderr"
	want=$(lli-22 "$BATS_TEST_TMPDIR/in.bc")
	[ -n "$want" ]
	run lli-22 "$BATS_TEST_TMPDIR/late.bc"
	assert_output "$want"
}

@test "base-address-strength-reduce-chain steps one pointer through p[i], p[i + c*s], p[i + k] in a block; its knob turns it off" {
	run --separate-stderr nv-opt -passes=base-address-strength-reduce-chain \
		-pass-remarks=base-address-strength-reduce-chain "$FIXTURES/basr-chain.ll" -S -o "$BATS_TEST_TMPDIR/out.ll"
	assert_success
	FileCheck "$FIXTURES/basr-chain.ll" <"$BATS_TEST_TMPDIR/out.ll"
	[ "$(grep -c 'plus a 64-bit step' <<<"$stderr")" -eq 2 ] || fail "$stderr"
	[ "$(grep -c 'plus a constant' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	opt-22 -passes=verify -disable-output "$BATS_TEST_TMPDIR/out.ll"
	nv-opt -do-base-address-strength-reduce-chain=0 -passes=base-address-strength-reduce-chain \
		"$FIXTURES/basr-chain.ll" -S | FileCheck --check-prefix=OFF "$FIXTURES/basr-chain.ll"
}

@test "a tile transpose's rows (y + j) * width + x step one 64-bit pointer as cicc's: three mul.wide, not eight; registers no more than nvcc's" {
	k="$FIXTURES/basr-chain-tile.cu"
	nvcc-lite -ptx -arch=sm_90 -O3 "$k" -o "$BATS_TEST_TMPDIR/on.ptx"
	nvcc-lite -ptx -arch=sm_90 -O3 -Xcicc -do-base-address-strength-reduce-chain=0 "$k" -o "$BATS_TEST_TMPDIR/off.ptx"
	for t in f d; do
		for v in on off; do
			sed -n "/entry _Z14tile_transposeI${t}E/,/^}/p" "$BATS_TEST_TMPDIR/$v.ptx" >"$BATS_TEST_TMPDIR/$v.$t.ptx"
		done
		# nvcc 13.0: 3 in each (the two first addresses and the step)
		run grep -c 'mul\.wide' "$BATS_TEST_TMPDIR/on.$t.ptx"
		assert_output 3
		run grep -c 'mul\.wide' "$BATS_TEST_TMPDIR/off.$t.ptx"
		assert_output 8
	done
	have_ptxas || skip "ptxas is not installed"
	command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || skip "nvcc is not installed"
	"$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" -ptx -arch=sm_90 -O3 "$k" -o "$BATS_TEST_TMPDIR/nvcc.ptx"
	for v in on nvcc; do
		"$(ptxas_bin)" -v -arch=sm_90 "$BATS_TEST_TMPDIR/$v.ptx" -o /dev/null 2>&1 |
			sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' >"$BATS_TEST_TMPDIR/$v.regs"
	done
	# two kernels, in the same order in both files (float 24 vs nvcc's 28, double 28 vs 30)
	paste "$BATS_TEST_TMPDIR/on.regs" "$BATS_TEST_TMPDIR/nvcc.regs" >"$BATS_TEST_TMPDIR/regs"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/regs")" -eq 2 ] || fail "$(cat "$BATS_TEST_TMPDIR/regs")"
	awk '$1 > $2 { bad = 1 } END { exit bad }' "$BATS_TEST_TMPDIR/regs" || fail "registers (ours, nvcc's): $(cat "$BATS_TEST_TMPDIR/regs")"
}

@test "stepping p[i + c*s] from p[i] keeps a program's meaning (lli, before and after late-memory)" {
	clang-22 -O2 -Xclang -disable-llvm-passes -w -emit-llvm -c "$FIXTURES/basr-chain-meaning.c" -o "$BATS_TEST_TMPDIR/in.bc"
	nv-opt -O3 "$BATS_TEST_TMPDIR/in.bc" -o "$BATS_TEST_TMPDIR/o3.bc"
	run --separate-stderr nv-opt -pipeline=late-memory -pass-remarks=base-address-strength-reduce-chain \
		"$BATS_TEST_TMPDIR/o3.bc" -o "$BATS_TEST_TMPDIR/late.bc"
	assert_success
	[ "$(grep -c 'plus a 64-bit step' <<<"$stderr")" -ge 1 ] || fail "nothing stepped: $stderr"
	want=$(lli-22 "$BATS_TEST_TMPDIR/in.bc")
	[ -n "$want" ]
	run lli-22 "$BATS_TEST_TMPDIR/late.bc"
	assert_output "$want"
}

@test "memory-space-opt calls a WMMA load or store's shared or global variant where the pointer provably points there" {
	nv-opt -passes=memory-space-opt "$FIXTURES/memspace.ll" -S -o "$BATS_TEST_TMPDIR/out.ll"
	FileCheck "$FIXTURES/memspace.ll" <"$BATS_TEST_TMPDIR/out.ll"
	nv-opt -memory-space-opt=0 -passes=memory-space-opt "$FIXTURES/memspace.ll" -S |
		FileCheck --check-prefix=OFF "$FIXTURES/memspace.ll"
}

@test "a tensor-core GEMM's fragments load from and store to shared memory with wmma's .shared variants, as cicc's; fewer registers" {
	# bench/kernels/wmma_gemm_shared.cu: nvcc's PTX has all 12 on .shared (63 registers); generic: 69
	k="$BATS_TEST_DIRNAME/../bench/kernels/wmma_gemm_shared.cu"
	nvcc-lite -ptx -arch=sm_90 -O3 "$k" -o "$BATS_TEST_TMPDIR/on.ptx"
	nvcc-lite -ptx -arch=sm_90 -O3 -Xcicc -memory-space-opt=0 "$k" -o "$BATS_TEST_TMPDIR/off.ptx"
	run grep -cE 'wmma\.(load|store)\.[a-z0-9.]*\.shared\.' "$BATS_TEST_TMPDIR/on.ptx"
	assert_output 12
	run grep -cE 'wmma\.(load|store)\.' "$BATS_TEST_TMPDIR/on.ptx"
	assert_output 12
	run grep -cE 'wmma\.(load|store)\.[a-z0-9.]*\.shared\.' "$BATS_TEST_TMPDIR/off.ptx"
	assert_output 0
	have_ptxas || skip "ptxas is not installed"
	regs() {
		"$(ptxas_bin)" -v -arch=sm_90 "$1" -o /dev/null 2>&1 | sed -n 's/.*Used \([0-9]*\) registers.*/\1/p'
	}
	on=$(regs "$BATS_TEST_TMPDIR/on.ptx")
	off=$(regs "$BATS_TEST_TMPDIR/off.ptx")
	[ -n "$on" ] && [ "$on" -lt "$off" ] || fail "registers: $on with the .shared variants, $off without"
}

@test "byval-args-by-value passes a struct byval to a declared function as a value, and SROA folds its local" {
	nv-opt -passes='byval-args-by-value,function(sroa)' "$FIXTURES/byval-args.ll" -S -o "$BATS_TEST_TMPDIR/out.ll"
	FileCheck "$FIXTURES/byval-args.ll" <"$BATS_TEST_TMPDIR/out.ll"
	nv-opt -byval-args-by-value=0 -passes='byval-args-by-value,function(sroa)' "$FIXTURES/byval-args.ll" -S |
		FileCheck --check-prefix=OFF "$FIXTURES/byval-args.ll"
}

@test "a device-side launch stores its grid and block straight into the call's parameters: no local copy (CDP samples)" {
	local cuda=${CUDA_PATH:-/usr/local/cuda}
	[ -f "$cuda/include/cuda_device_runtime_api.h" ] || skip "no CUDA with the device runtime"
	cat >"$BATS_TEST_TMPDIR/cdp.cu" <<'CU'
__global__ void child(int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = i;
}

__global__ void parent(int *out, int n)
{
	if (threadIdx.x == 0)
		child<<<(n + 31) / 32, 32>>>(out, n);
}
CU
	nvcc-lite -ptx -arch=sm_90 -O3 -rdc=true "$BATS_TEST_TMPDIR/cdp.cu" -o "$BATS_TEST_TMPDIR/on.ptx"
	nvcc-lite -ptx -arch=sm_90 -O3 -rdc=true -Xcicc -byval-args-by-value=0 "$BATS_TEST_TMPDIR/cdp.cu" \
		-o "$BATS_TEST_TMPDIR/off.ptx"
	# the dim3s as NVPTX copies them from a local: the depot, six ld.local
	run grep -cE '__local_depot|ld\.local' "$BATS_TEST_TMPDIR/off.ptx"
	[ "$output" -ge 6 ] || fail "the check needs the local copy without the pass: $output"
	run grep -cE '__local_depot|(ld|st)\.local' "$BATS_TEST_TMPDIR/on.ptx"
	assert_output 0
	run grep -c 'st\.param\.b32.*\[param[23]' "$BATS_TEST_TMPDIR/on.ptx"
	assert_output 6
	# the runtime's function is declared to ptxas as before, parameter for parameter
	decl() { sed -n '/^\.extern \.func .*__cudaCDP2LaunchDevice$/,/^;$/p' "$1"; }
	[ -n "$(decl "$BATS_TEST_TMPDIR/on.ptx")" ]
	[ "$(decl "$BATS_TEST_TMPDIR/on.ptx")" = "$(decl "$BATS_TEST_TMPDIR/off.ptx")" ] ||
		fail "the declaration of __cudaCDP2LaunchDevice changed"
	have_ptxas || skip "ptxas is not installed"
	frame() {
		"$(ptxas_bin)" -v -c -arch=sm_90 "$1" -o /dev/null 2>&1 |
			awk '/Function properties for _Z6parent/ { p = 1; next } p && /stack frame/ { print $1; exit }'
	}
	# nvcc: 0 (its V2 launch takes fewer parameters); ours: 8, the call's own; before: 32
	on=$(frame "$BATS_TEST_TMPDIR/on.ptx")
	off=$(frame "$BATS_TEST_TMPDIR/off.ptx")
	[ "$on" -lt "$off" ] || fail "stack frame $on bytes with the pass, $off without"
}

@test "sass-ops.py: a usage line without a cubin; one line for a missing, non-ELF or truncated file" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	run --separate-stderr python3 "$BATS_TEST_DIRNAME/sass-ops.py"
	assert_failure 1
	[ "$stderr" = "usage: sass-ops.py FILE.cubin [KERNEL]" ] || fail "$stderr"
	run --separate-stderr python3 "$BATS_TEST_DIRNAME/sass-ops.py" "$FIXTURES/basr.ll"
	assert_failure 1
	[ "$stderr" = "sass-ops.py: $FIXTURES/basr.ll: not an ELF file" ] || fail "$stderr"
	assert_output ""
	run --separate-stderr python3 "$BATS_TEST_DIRNAME/sass-ops.py" "$BATS_TEST_TMPDIR/none.cubin"
	assert_failure 1
	[ "$stderr" = "sass-ops.py: $BATS_TEST_TMPDIR/none.cubin: No such file or directory" ] || fail "$stderr"
	# an ELF header whose section table lies past the end
	printf '\177ELF' >"$BATS_TEST_TMPDIR/cut.cubin"
	head -c 200 /dev/zero | tr '\0' '\377' >>"$BATS_TEST_TMPDIR/cut.cubin"
	run --separate-stderr python3 "$BATS_TEST_DIRNAME/sass-ops.py" "$BATS_TEST_TMPDIR/cut.cubin"
	assert_failure 1
	[ "$stderr" = "sass-ops.py: $BATS_TEST_TMPDIR/cut.cubin: truncated or corrupt ELF file" ] || fail "$stderr"
}

@test "printf argument buffers get lifetime markers where they are used, so printfs share one stack slot" {
	F="$FIXTURES/printf-buffers.ll"
	depots() { grep -oE '__local_depot[0-9]+\[[0-9]+\]' "$1" | tr '\n' ' '; }
	run --separate-stderr nv-llc -O3 -arch=sm_90 -pass-remarks=nv-llc "$F" -o "$BATS_TEST_TMPDIR/on.ptx"
	assert_success
	assert_equal "$(grep -c "printf's argument buffer is live from its first store to this call only" <<<"$stderr")" 5
	# two and inlined: one 16-byte slot for a 16- and an 8-byte buffer;
	# escapes: the buffer whose address is stored stays live throughout
	assert_equal "$(depots "$BATS_TEST_TMPDIR/on.ptx")" "__local_depot0[16] __local_depot1[16] __local_depot2[16] "
	nv-llc -O3 -arch=sm_90 -printf-buffer-lifetimes=0 "$F" -o "$BATS_TEST_TMPDIR/off.ptx"
	assert_equal "$(depots "$BATS_TEST_TMPDIR/off.ptx")" "__local_depot0[24] __local_depot1[24] __local_depot2[16] "
	# the markers: right around each buffer's stores and call; the
	# inliner's wide ones gone; none on the escaping buffer
	nv-llc -O3 -arch=sm_90 -stop-after=codegenprepare "$F" -o "$BATS_TEST_TMPDIR/cut.bc"
	llvm-dis "$BATS_TEST_TMPDIR/cut.bc" -o "$BATS_TEST_TMPDIR/cut.ll"
	run bash -c "sed -n '/@inlined(/,/^}/p' '$BATS_TEST_TMPDIR/cut.ll' | grep -oE 'lifetime[.a-z0-9]*\(ptr %buf.\)|store i(32|64) %.|vprintf\(.*%buf.\)' | sed -E 's/vprintf.*(%buf.)\)/vprintf \1/'"
	assert_output "lifetime.start.p0(ptr %buf0)
store i32 %a
store i64 %b
vprintf %buf0
lifetime.end.p0(ptr %buf0)
lifetime.start.p0(ptr %buf1)
store i32 %c
vprintf %buf1
lifetime.end.p0(ptr %buf1)"
	run bash -c "sed -n '/@escapes(/,/^}/p' '$BATS_TEST_TMPDIR/cut.ll' | grep -c 'lifetime.*%buf0'"
	assert_output 0
	if have_ptxas; then
		"$(ptxas_bin)" -arch=sm_90 "$BATS_TEST_TMPDIR/on.ptx" -o /dev/null
	fi
}
