#!/usr/bin/env bats
# bench/corpus.sh on a tiny corpus written here: a file both compile, one
# nvcc rejects, one the nvcc-lite under test fails on, one whose kernel set
# it changes, and one that needs a .corpus-flags define.  Needs nvcc.

load helper

setup_file() {
	have_nvcc || return 0
	export TINY="$BATS_FILE_TMPDIR/tiny" OUT="$BATS_FILE_TMPDIR/out" RC
	mkdir -p "$TINY/sub"
	cat >"$TINY/good.cu" <<-'EOF'
		extern "C" __global__ void scale(float *x, float a, int n)
		{
			int i = blockIdx.x * blockDim.x + threadIdx.x;
			if (i < n) x[i] *= a;
		}
		__global__ void add(int *x, const int *y) { x[threadIdx.x] += y[threadIdx.x]; }
	EOF
	cat >"$TINY/syntax.cu" <<-'EOF'
		__global__ void broken(int *x) { x[0] = 1 }
	EOF
	cat >"$TINY/breaks.cu" <<-'EOF'
		__global__ void fine(int *x) { x[0] = 1; }
	EOF
	cat >"$TINY/mismatch.cu" <<-'EOF'
		__global__ void both(int *x) { x[0] = 1; }
		#ifdef EXTRA
		__global__ void extra(int *x) { x[1] = 2; }
		#endif
	EOF
	cat >"$TINY/sub/flagged.cu" <<-'EOF'
		#ifndef SCALE
		#error SCALE is not defined
		#endif
		__global__ void flagged(float *x)
		{
			float v[24], s = 0;
		#pragma unroll
			for (int i = 0; i < 24; i++) v[i] = x[threadIdx.x + 64 * i];
		#pragma unroll
			for (int i = 0; i < 24; i++)
		#pragma unroll
				for (int j = i + 1; j < 24; j++) s += v[i] * v[j];
			x[threadIdx.x] = s * SCALE;
		}
	EOF
	cat >"$TINY/occ.cu" <<-'EOF'
		__global__ void __launch_bounds__(1024) occ(float *x)
		{
		#ifdef WIDE
			float v[40], s = 0;
		#pragma unroll
			for (int i = 0; i < 40; i++) v[i] = x[threadIdx.x + 1024 * i];
		#pragma unroll
			for (int i = 0; i < 40; i++)
		#pragma unroll
				for (int j = i + 1; j < 40; j++) s += v[i] * v[j];
			x[threadIdx.x] = s;
		#else
			x[threadIdx.x] *= 2.0f;
		#endif
		}
		__global__ void __launch_bounds__(128) tiled(float *x)
		{
			__shared__ float t[4096];
			t[threadIdx.x] = x[threadIdx.x];
			__syncthreads();
			x[threadIdx.x] = t[(threadIdx.x * 33) & 4095];
		}
	EOF
	printf '# a define for sub/\n\nsub/*.cu\t-DSCALE=2.0f  -I$ROOT/sub\n' >"$TINY/.corpus-flags"
	# the nvcc-lite measured: the real one, made to fail on breaks.cu, to
	# see a second kernel in mismatch.cu and to spill flagged.cu's 32
	# registers (nvcc's) into 24
	cat >"$BATS_FILE_TMPDIR/lite" <<-EOF
		#!/bin/sh
		for a; do
			case \$a in
			*breaks.cu) echo "\$a:1:7: error: this nvcc-lite is made to fail" >&2; echo "second line" >&2; exit 1 ;;
			*mismatch.cu) set -- -DEXTRA "\$@"; break ;;
			*flagged.cu) set -- -maxrregcount=16 "\$@"; break ;;
			*occ.cu) set -- -DWIDE "\$@"; break ;;
			esac
		done
		exec "$TOP/bin/nvcc-lite" "\$@"
	EOF
	chmod +x "$BATS_FILE_TMPDIR/lite"
	RC=0
	NVCC_LITE="$BATS_FILE_TMPDIR/lite" sh "$TOP/bench/corpus.sh" -j 2 -o "$OUT" "$TINY" \
		>"$BATS_FILE_TMPDIR/stdout" 2>"$BATS_FILE_TMPDIR/stderr" || RC=$?
}

need_nvcc() {
	have_nvcc || skip "nvcc is not installed"
}

@test "corpus.sh: each file's status, with the first error line of a failure" {
	need_nvcc
	# the bar is not met: nvcc-lite fails on one of five files, one kernel set differs
	assert_equal "$RC" 1
	run cat "$OUT/corpus-files.csv"
	assert_line --index 0 "file,status,nvcc_ms,lite_ms,nvcc_kernels,lite_kernels,entries,ptxas,first_error,only_nvcc,only_lite,flags,clang"
	assert_line --regexp '^tiny/good\.cu,ok,[0-9]+,[0-9]+,2,2,same,ok,,,,,-$'
	assert_line --regexp '^tiny/syntax\.cu,nvcc-fail,-,-,-,-,-,-,"?tiny/syntax\.cu.*error.*,,,,-$'
	assert_line --regexp '^tiny/breaks\.cu,lite-fail,[0-9]+,-,-,-,-,-,tiny/breaks\.cu:1:7: error: this nvcc-lite is made to fail,,,,-$'
	assert_line --regexp '^tiny/mismatch\.cu,entry-mismatch,[0-9]+,[0-9]+,1,2,differ,ok,,,_Z5extraPi,,-$'
	assert_line --regexp "^tiny/sub/flagged\.cu,ok,.*,-DSCALE=2\.0f -I$TINY/sub,-\$"
	run cat "$BATS_FILE_TMPDIR/stderr"
	assert_line --regexp '^lite-fail +tiny/breaks\.cu$'
}

@test "corpus.sh: a row per kernel with both compilers' numbers" {
	need_nvcc
	run cat "$OUT/corpus.csv"
	assert_line --index 0 "file,kernel,nvcc_regs,nvcc_spill_bytes,nvcc_stack_bytes,nvcc_ptx_insts,lite_regs,lite_spill_bytes,lite_stack_bytes,lite_ptx_insts,clang_regs,clang_spill_bytes,clang_stack_bytes,clang_ptx_insts,threads,nvcc_smem_bytes,lite_smem_bytes,nvcc_blocks_per_sm,lite_blocks_per_sm,lite_occupancy_limit"
	# no -C: no clang columns; 256 threads without launch bounds, 8 blocks of them
	assert_line --regexp '^tiny/good\.cu,scale,[0-9]+,0,0,[0-9]+,[0-9]+,0,0,[0-9]+,-,-,-,-,256,0,0,8,8,warps$'
	assert_line --regexp '^tiny/good\.cu,_Z3addPiPKi,[0-9]+,0,0,[0-9]+,[0-9]+,0,0,[0-9]+,-,-,-,-,256,0,0,8,8,warps$'
	assert_line --regexp '^tiny/mismatch\.cu,_Z5extraPi,-,-,-,-,[0-9]+,0,0,[0-9]+,-,-,-,-,-,-,0,-,-,-$'
	# occupancy: 128 threads and 16 KB of shared memory, 13 blocks
	# ((228 KB) / (16 KB + 1 KB reserved)); 1024 threads, 2 blocks at
	# nvcc's registers, 1 at over 32 (nvcc-lite made to hold 40 values)
	assert_line --regexp '^tiny/occ\.cu,_Z5tiledPf,[0-9]+,0,0,[0-9]+,[0-9]+,0,0,[0-9]+,-,-,-,-,128,16384,16384,13,13,shared memory$'
	assert_line --regexp '^tiny/occ\.cu,_Z3occPf,[0-9]+,0,0,[0-9]+,(3[3-9]|[4-9][0-9]),0,0,[0-9]+,-,-,-,-,1024,0,0,2,1,registers$'
	assert_line --regexp '^tiny/sub/flagged\.cu,_Z7flaggedPf,'
	refute_output --partial "breaks.cu"
	# the instruction count is the entry body's statements
	run awk -F, '$2 == "scale" && ($6 < 4 || $6 > 40 || $10 < 4 || $10 > 40)' "$OUT/corpus.csv"
	assert_output ""
}

@test "corpus.sh: the Markdown summary, failures by cause, and the mismatch" {
	need_nvcc
	run cat "$OUT/corpus.md"
	assert_line "| files | 6 | 6 |"
	assert_line "| nvcc -ptx fails (not counted) | 1 | 1 |"
	assert_line "| nvcc-lite compiles | 4 (80.0%) | 4 (80.0%) |"
	assert_line "| .entry set differs | 1 | 1 |"
	assert_line "| all good | 3 (60.0%) | 3 (60.0%) |"
	assert_line "| kernels compared | 6 | 6 |"
	assert_line "| 1 | error: this nvcc-lite is made to fail |"
	assert_line "| tiny/breaks.cu | tiny/breaks.cu:1:7: error: this nvcc-lite is made to fail |"
	assert_line "| tiny/mismatch.cu |  | _Z5extraPi |"
	assert_line --regexp '^\| tiny/syntax\.cu \| tiny/syntax\.cu.*error'
	# the kernels against nvcc's: flagged, capped, has fewer registers, a
	# frame and spills; the counts are corpus.csv's
	assert_line "| a stack frame, nvcc none | 1 | 1 |"
	assert_line "| spills, nvcc none | 1 | 1 |"
	over=$(awk -F, 'NR > 1 && $3 != "-" && $7 != "-" && $7 > 1.1 * $3' "$OUT/corpus.csv" | grep -c . || true)
	under=$(awk -F, 'NR > 1 && $3 != "-" && $7 != "-" && 1.1 * $7 < $3' "$OUT/corpus.csv" | grep -c . || true)
	[ "$under" -ge 1 ] || fail "flagged.cu is not under nvcc's registers"
	assert_line "| registers over 1.10x nvcc's | $over | $over |"
	assert_line "| registers under nvcc's / 1.10 | $under | $under |"
	# the occupancy steps: occ loses one to registers, and is listed
	assert_line "| nvcc-lite loses a step (fewer blocks per SM) | 1 | 1 |"
	assert_line "| nvcc-lite wins a step | 0 | 0 |"
	assert_line "| steps lost to registers | 1 | 1 |"
	assert_line "## Occupancy steps (1)"
	assert_line --regexp '^\| tiny/occ\.cu \| _Z3occPf \| 1024 \| [0-9]+ / [0-9]+ \| 2 / 1 \| registers \|$'
	run cat "$BATS_FILE_TMPDIR/stdout"
	assert_line "| nvcc-lite compiles | 4 (80.0%) | 4 (80.0%) |"
	assert_line "| nvcc-lite loses a step (fewer blocks per SM) | 1 | 1 |"
	refute_output --partial "## "
}

# bats test_tags=slow
@test "corpus.sh: -k, -x, -f and -n choose the files" {
	need_nvcc
	run sh "$TOP/bench/corpus.sh" -k 'good|sub/' -x flagged -o "$BATS_TEST_TMPDIR/o" "$TINY"
	assert_success
	run cut -d, -f1,2 "$BATS_TEST_TMPDIR/o/corpus-files.csv"
	assert_output "file,status
tiny/good.cu,ok"
	printf 'tiny/sub/flagged.cu\ntiny/good.cu\n' >"$BATS_TEST_TMPDIR/list"
	run sh "$TOP/bench/corpus.sh" -f "$BATS_TEST_TMPDIR/list" -n 1 -o "$BATS_TEST_TMPDIR/o" "$TINY"
	assert_success
	run cut -d, -f1,2 "$BATS_TEST_TMPDIR/o/corpus-files.csv"
	assert_output "file,status
tiny/good.cu,ok"
}

# bats test_tags=slow
@test "corpus.sh: -X hands knobs to nvcc-lite alone; -r reuses nvcc's results of an earlier run" {
	need_nvcc
	# a stand-in nvcc that leaves a trace when it compiles: -r must not
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\n[ "$1" = --version ] || echo ran >>"%s/nvcc-ran"\nexec "%s" "$@"\n' "$BATS_TEST_TMPDIR" "$(command -v nvcc || echo "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc")" \
		>"$BATS_TEST_TMPDIR/bin/nvcc"
	chmod +x "$BATS_TEST_TMPDIR/bin/nvcc"
	printf '#!/bin/sh\necho "$@" >>"%s/lite-args"\nexec "%s/bin/nvcc-lite" "$@"\n' "$BATS_TEST_TMPDIR" "$TOP" >"$BATS_TEST_TMPDIR/lite"
	chmod +x "$BATS_TEST_TMPDIR/lite"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" NVCC_LITE="$BATS_TEST_TMPDIR/lite" \
		run sh "$TOP/bench/corpus.sh" -k good -X -unroll-count=2,-do-remat=0 -r "$OUT" -o "$BATS_TEST_TMPDIR/o" "$TINY"
	assert_success
	[ ! -e "$BATS_TEST_TMPDIR/nvcc-ran" ]
	grep -q -- '-Xcicc -unroll-count=2,-do-remat=0' "$BATS_TEST_TMPDIR/lite-args"
	# nvcc's numbers are the earlier run's
	run diff <(grep good.cu "$OUT/corpus.csv" | cut -d, -f1-6) <(grep good.cu "$BATS_TEST_TMPDIR/o/corpus.csv" | cut -d, -f1-6)
	assert_success
	grep -q 'nvcc-lite with `-Xcicc -unroll-count=2,-do-remat=0`' "$BATS_TEST_TMPDIR/o/corpus.md"
	# a file the earlier run did not compile with the same flags runs nvcc
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run sh "$TOP/bench/corpus.sh" -k flagged \
		-r "$BATS_TEST_TMPDIR/o" -o "$BATS_TEST_TMPDIR/o2" "$TINY"
	assert_success
	[ -s "$BATS_TEST_TMPDIR/nvcc-ran" ]
	run -2 sh "$TOP/bench/corpus.sh" -r "$BATS_TEST_TMPDIR/nowhere" "$TINY"
	assert_output "corpus: $BATS_TEST_TMPDIR/nowhere holds no earlier corpus run"
	# the run it reuses would be the one it overwrites
	run -2 sh "$TOP/bench/corpus.sh" -r "$BATS_TEST_TMPDIR/o" -o "$BATS_TEST_TMPDIR/o" "$TINY"
	assert_output "corpus: -r names the output directory itself"
	[ -s "$BATS_TEST_TMPDIR/o/corpus.csv" ]
}

# bats test_tags=slow
@test "corpus.sh: -C adds plain clang -O3, nvcc-lite's own clang command with LLVM's pipeline" {
	need_nvcc
	# a stand-in nvcc-lite whose -dryrun for flagged.cu names no clang, and
	# for mismatch.cu one that is not the command expected (a header cache)
	cat >"$BATS_TEST_TMPDIR/lite" <<-EOF
		#!/bin/sh
		case " \$* " in *" -dryrun "*flagged.cu*|*flagged.cu*" -dryrun "*) echo 'echo no front end here'; exit 0 ;; esac
		case " \$* " in *" -dryrun "*mismatch.cu*|*mismatch.cu*" -dryrun "*)
			echo 'clang-22 -x cuda --cuda-device-only -include-pch /c/h.pch -emit-llvm -c mismatch.cu -o "\$tmp/m.bc"'; exit 0 ;;
		esac
		exec "$TOP/bin/nvcc-lite" "\$@"
	EOF
	chmod +x "$BATS_TEST_TMPDIR/lite"
	NVCC_LITE="$BATS_TEST_TMPDIR/lite" run sh "$TOP/bench/corpus.sh" -C -k 'good|flagged|mismatch' -r "$OUT" -o "$BATS_TEST_TMPDIR/o" "$TINY"
	assert_success
	run cut -d, -f1,2,13 "$BATS_TEST_TMPDIR/o/corpus-files.csv"
	assert_output "file,status,clang
tiny/good.cu,ok,ok
tiny/mismatch.cu,ok,fail
tiny/sub/flagged.cu,ok,fail"
	run cat "$BATS_TEST_TMPDIR/o/corpus/tiny/sub/flagged.cu.clang.err"
	assert_output "corpus: no clang command in nvcc-lite -dryrun"
	run cat "$BATS_TEST_TMPDIR/o/corpus/tiny/mismatch.cu.clang.err"
	assert_output "corpus: nvcc-lite -dryrun's clang command is not the one expected"
	# clang's numbers beside the others; flagged.cu keeps nvcc-lite's
	run cat "$BATS_TEST_TMPDIR/o/corpus.csv"
	assert_line --regexp '^tiny/good\.cu,scale,[0-9]+,0,0,[0-9]+,[0-9]+,0,0,[0-9]+,[0-9]+,0,0,[0-9]+,256,0,0,8,8,warps$'
	assert_line --regexp '^tiny/good\.cu,_Z3addPiPKi,([0-9]+,0,0,[0-9]+,){2}[0-9]+,0,0,[0-9]+,256,0,0,8,8,warps$'
	assert_line --regexp '^tiny/sub/flagged\.cu,_Z7flaggedPf,([0-9]+,0,0,[0-9]+,){2}-,-,-,-,256,0,0,8,8,warps$'
	# the PTX is clang's, not nvcc-lite's: clang's back end marks each function, nv-llc does not
	grep -q -- '-- Begin function scale' "$BATS_TEST_TMPDIR/o/corpus/tiny/good.cu.clang.ptx"
	run grep -c -- '-- Begin function' "$BATS_TEST_TMPDIR/o/corpus/tiny/good.cu.lite.ptx"
	assert_output 0
	grep -q '\.entry scale' "$BATS_TEST_TMPDIR/o/corpus/tiny/good.cu.clang.ptx"
	run cat "$BATS_TEST_TMPDIR/o/corpus.md"
	assert_line "| kernels all three compile | 2 | 2 |"
	assert_line "| files clang fails on or ptxas rejects | 2 | 2 |"
	assert_line --regexp '^\| registers, nvcc-lite / clang \| [0-9.]+ \| [0-9.]+ \|$'
	assert_line --regexp '^\| kernels, fewer / more registers than clang \| [0-9]+ / [0-9]+ \|'
	# without -C there is no such table
	run grep -c "against plain clang" "$OUT/corpus.md"
	assert_output 0
}

@test "corpus.sh: a statement over several lines counts once, braced operands and all" {
	need_nvcc
	# wmma.mma goes on over lines that begin with its vector operands' braces
	mkdir -p "$BATS_TEST_TMPDIR/mma"
	cat >"$BATS_TEST_TMPDIR/mma/mma.cu" <<-'EOF'
		__global__ void mma(const int *a, const int *b, float *c)
		{
			int fa[8], fb[8];
			float acc[8] = { 0 };
			__hmma_m16n16k16_ld_a(fa, a, 16, 0);
			__hmma_m16n16k16_ld_b(fb, b, 16, 0);
			__hmma_m16n16k16_mma_f32f32(acc, fa, fb, acc, 0, 0);
			__hmma_m16n16k16_st_c_f32(c, acc, 16, 0);
		}
		__global__ void after(int *x) { x[threadIdx.x] = 1; }
	EOF
	run sh "$TOP/bench/corpus.sh" -o "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR/mma"
	assert_success
	grep -q '^[[:space:]]*{%r' "$BATS_TEST_TMPDIR/o/corpus/mma/mma.cu.lite.ptx"
	# both kernels counted for both compilers, the wmma one at a handful
	# of statements (not 0, not the file's)
	run cat "$BATS_TEST_TMPDIR/o/corpus.csv"
	assert_line --regexp '^mma/mma\.cu,_Z3mmaPKiS0_Pf,[0-9]+,0,0,([5-9]|[1-3][0-9]),[0-9]+,0,0,([5-9]|[1-3][0-9]),-,-,-,-,256,0,0,8,8,warps$'
	assert_line --regexp '^mma/mma\.cu,_Z5afterPi,[0-9]+,0,0,[0-9]+,[0-9]+,0,0,[0-9]+,-,-,-,-,256,0,0,8,8,warps$'
}

@test "occupancy: lib/ir/occupancy.c's blocks per SM are CUDA's occupancy calculator's on hand-computed cases" {
	cc -std=c17 -Wall -Wextra -Werror -O2 -I"$TOP/lib" "$TOP/bench/occupancy.c" "$TOP/lib/ir/occupancy.c" -o "$BATS_TEST_TMPDIR/occ"
	# sm_90, 256 threads (8 warps): 32 registers 8 blocks (64 warps), 33-40
	# six (1280 registers a warp, 12 warps a sub-partition), 64 four, 90
	# two; 1024 threads at 64 registers one block, at 65 none (a block
	# needs 32 warps, the file holds 28 at 2304 a warp); 16 KB of shared
	# memory and the 1 KB reserved: 228 / 17 = 13 blocks; 32 threads:
	# 32 blocks, the SM's most; sm_86 (48 warps, 16 blocks, 100 KB)
	run "$BATS_TEST_TMPDIR/occ" sm_90 <<-'EOF'
		32 0 256
		33 0 256
		40 0 256
		41 0 256
		64 0 256
		90 0 256
		64 0 1024
		65 0 1024
		32 16384 128
		16 0 32
		- 0 256
	EOF
	assert_success
	assert_output "8 64 warps
6 48 registers
6 48 registers
5 40 registers
4 32 registers
2 16 registers
1 32 registers
0 0 registers
13 52 shared memory
32 32 blocks
- - -"
	run "$BATS_TEST_TMPDIR/occ" sm_86 <<<$'32 0 256\n16 0 64\n32 49152 256'
	assert_output "6 48 warps
16 32 blocks
2 16 shared memory"
	run -1 "$BATS_TEST_TMPDIR/occ" sm_90 <<<"32 x 256"
	assert_output "occupancy: line 1: 'x' is not a number"
	# a short line, one too long, and no input at all
	run -1 --separate-stderr "$BATS_TEST_TMPDIR/occ" sm_90 <<<$'32 0 256\n32 0'
	assert_equal "$stderr" "occupancy: line 2: expected REGISTERS SHARED_BYTES THREADS"
	assert_output "" # no partial answer
	run -1 "$BATS_TEST_TMPDIR/occ" sm_90 <<<"32 0 256 7"
	assert_output "occupancy: line 1: expected REGISTERS SHARED_BYTES THREADS"
	run "$BATS_TEST_TMPDIR/occ" sm_90 </dev/null
	assert_success
	assert_output ""
	run -2 "$BATS_TEST_TMPDIR/occ" 90
	run -2 "$BATS_TEST_TMPDIR/occ" sm_x
}

@test "corpus.sh refuses what it does not understand" {
	run -2 sh "$TOP/bench/corpus.sh" -q "$TINY"
	assert_output "corpus: unknown option '-q' (try --help)"
	run -2 sh "$TOP/bench/corpus.sh" -j 0 "$TINY"
	assert_output "corpus: -j wants a positive count"
	run -2 sh "$TOP/bench/corpus.sh"
	assert_output "corpus: no corpus directory (try --help)"
	run -0 sh "$TOP/bench/corpus.sh" --help
	assert_line --index 0 "bench/corpus.sh: every .cu under the given directories through nvcc -ptx"
	need_nvcc
	run -2 sh "$TOP/bench/corpus.sh" -o "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR/none"
	assert_output "corpus: $BATS_TEST_TMPDIR/none is not a directory"
	mkdir -p "$BATS_TEST_TMPDIR/empty"
	run -2 sh "$TOP/bench/corpus.sh" -o "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR/empty"
	assert_output "corpus: no .cu file to compile"
}

@test "make corpus without a corpus says so and succeeds" {
	run make -s -C "$TOP" corpus CORPUS=
	assert_success
	assert_output --partial "corpus: skipped: no corpus"
}
