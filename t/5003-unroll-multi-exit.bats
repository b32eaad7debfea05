#!/usr/bin/env bats
# nv-unroll on #pragma unroll loops with a second exit (issue 45, item 0):
# counted at the latch, as LLVM's unroller counts them, a constant count
# unrolls them fully, the other exit kept as a branch.  cicc's figures for
# each probe are in its comment; the checks read nvcc-lite's PTX alone.

load helper

# lite NAME [FLAGS...]: nvcc-lite's PTX of $BATS_TEST_TMPDIR/NAME.cu in NAME.ptx
lite() {
	local n=$1
	shift
	nvcc-lite -ptx -O3 -arch=sm_90 "$@" "$BATS_TEST_TMPDIR/$n.cu" -o "$BATS_TEST_TMPDIR/$n.ptx"
}

# count PATTERN FILE: lines of FILE matching PATTERN
count() {
	grep -c -- "$1" "$2" || true
}

# frame FILE: the stack frame ptxas gives the (only) kernel of FILE
frame() {
	"$(ptxas_bin)" -v -arch=sm_90 "$1" -o /dev/null 2>&1 |
		sed -n 's/.* \([0-9]*\) bytes stack frame.*/\1/p'
}

# no_frame FILE: ptxas gives the kernel no frame (checked where ptxas is
# installed; the PTX's own checks, no .local, hold without it)
no_frame() {
	have_ptxas || return 0
	assert_equal "$(frame "$1")" 0
}

# the barrier loop of issue 45: its switch's default is unreachable, which
# is the loop's second exit
barriers() {
	cat >"$BATS_TEST_TMPDIR/$1.cu" <<-'CU'
	__global__ void bars(float *out, float a, float b, float c) {
	  __shared__ float sm[128];
	  int t = threadIdx.x;
	#pragma unroll 4
	  for (int it = 0; it < 4; ++it) {
	    __syncthreads();
	    switch (it) {
	    case 0: sm[t] = a; break;
	    case 1: sm[t] = b; break;
	    case 2: sm[t] = c; break;
	    case 3: sm[t] = a + b; break;
	    default: __builtin_unreachable();
	    }
	    __syncthreads();
	    out[it * 128 + t] = sm[t ^ 1];
	  }
	}
	CU
}

@test "a #pragma unroll 4 loop of barriers whose switch has an unreachable default is unrolled fully (cicc: 8 bar.sync)" {
	barriers bars
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -lineinfo -Xcicc -pass-remarks-analysis=nv-unroll \
		"$BATS_TEST_TMPDIR/bars.cu" -o "$BATS_TEST_TMPDIR/bars.ptx"
	assert_success
	# the remark at the loop's line says why it is counted
	grep -q "bars.cu:5:.*1 exit besides the latch; counted at the latch: at most 4 iterations" <<<"$stderr" ||
		fail "$stderr"
	grep -q "level 2 decides full unroll of 4: #pragma unroll 4 covers all 4 iterations" <<<"$stderr" ||
		fail "$stderr"
	ptx="$BATS_TEST_TMPDIR/bars.ptx"
	assert_equal "$(count 'bar.sync' "$ptx")" 8
	assert_equal "$(count 'local' "$ptx")" 0
	no_frame "$ptx"
}

@test "the same loop written as an if chain is unrolled fully (cicc: 8 bar.sync)" {
	cat >"$BATS_TEST_TMPDIR/ifs.cu" <<-'CU'
	__global__ void ifs(float *out, float a, float b, float c) {
	  __shared__ float sm[128];
	  int t = threadIdx.x;
	#pragma unroll 4
	  for (int it = 0; it < 4; ++it) {
	    __syncthreads();
	    if (it == 0) sm[t] = a;
	    if (it == 1) sm[t] = b;
	    if (it == 2) sm[t] = c;
	    if (it == 3) sm[t] = a + b;
	    __syncthreads();
	    out[it * 128 + t] = sm[t ^ 1];
	  }
	}
	CU
	lite ifs
	ptx="$BATS_TEST_TMPDIR/ifs.ptx"
	assert_equal "$(count 'bar.sync' "$ptx")" 8
	assert_equal "$(count 'local' "$ptx")" 0
	no_frame "$ptx"
}

@test "an early return in a 32-trip #pragma unroll loop leaves its accumulator array in registers (cicc: frame 0)" {
	# acc is carried across the outer loop and indexed by the inner loop's
	# IV: rolled, it lives in local memory (128 bytes of frame)
	cat >"$BATS_TEST_TMPDIR/early.cu" <<-'CU'
	__global__ void early(float *out, const float *in, const int *lim, int n) {
	  float acc[32];
	#pragma unroll
	  for (int j = 0; j < 32; ++j) acc[j] = 0.f;
	  for (int k = 0; k < n; ++k) {
	#pragma unroll
	    for (int j = 0; j < 32; ++j) {
	      int jmax = lim[k * 32 + j];
	      if (j > jmax) return;
	      acc[j] += in[k * 32 + j] * in[threadIdx.x];
	    }
	  }
	#pragma unroll
	  for (int j = 0; j < 32; ++j) out[j * 128 + threadIdx.x] = acc[j];
	}
	CU
	lite early
	ptx="$BATS_TEST_TMPDIR/early.ptx"
	assert_equal "$(count 'local' "$ptx")" 0
	assert_equal "$(count '__local_depot' "$ptx")" 0
	# the 32 returns are kept, one test each
	[ "$(count 'setp' "$ptx")" -ge 32 ] || fail "$(cat "$ptx")"
	no_frame "$ptx"
}

@test "an early return against a loop-invariant bound is folded into one exit and unrolled (cicc: frame 0)" {
	cat >"$BATS_TEST_TMPDIR/inv.cu" <<-'CU'
	__global__ void inv(float *out, const float *in, int jmax, int n) {
	  float acc[32];
	#pragma unroll
	  for (int j = 0; j < 32; ++j) acc[j] = 0.f;
	  for (int k = 0; k < n; ++k) {
	#pragma unroll
	    for (int j = 0; j < 32; ++j) {
	      if (j > jmax) return;
	      acc[j] += in[k * 32 + j] * in[threadIdx.x];
	      out[j * 128 + threadIdx.x] = acc[j];
	    }
	  }
	}
	CU
	lite inv
	ptx="$BATS_TEST_TMPDIR/inv.ptx"
	assert_equal "$(count 'local' "$ptx")" 0
	no_frame "$ptx"
}

@test "a #pragma unroll loop whose early break is merged into its latch's test is unrolled fully (cicc: 20 loads)" {
	# a small body: simplifycfg makes one exit of the break and the latch's
	# test, (v < 0) | (i + 1 == 20), which only the IV's half counts
	cat >"$BATS_TEST_TMPDIR/merged.cu" <<-'CU'
	__global__ void merged(int *out, const int *in) {
	  int t = threadIdx.x, s = 0;
	#pragma unroll
	  for (int i = 0; i < 20; ++i) {
	    int v = in[i * 128 + t];
	    if (v < 0) return;
	    s += v * v;
	  }
	  out[t] = s;
	}
	CU
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -pass-remarks=nv-unroll \
		"$BATS_TEST_TMPDIR/merged.cu" -o "$BATS_TEST_TMPDIR/merged.ptx"
	assert_success
	grep -q "completely unrolled to its maximum trip count with count 20 (level 3: trip count of at most 20, .*counted at the latch, 1 other exit kept" \
		<<<"$stderr" || fail "$stderr"
	assert_equal "$(count 'ld.global' "$BATS_TEST_TMPDIR/merged.ptx")" 20
	if have_ptxas; then
		"$(ptxas_bin)" -arch=sm_90 "$BATS_TEST_TMPDIR/merged.ptx" -o /dev/null
	fi
}

@test "a #pragma unroll 3 loop with a merged break keeps its remainder loop (cicc too)" {
	# one exiting block to LLVM: the runtime remainder is allowed
	cat >"$BATS_TEST_TMPDIR/by3.cu" <<-'CU'
	__global__ void by3(int *out, const int *in) {
	  int t = threadIdx.x, s = 0;
	#pragma unroll 3
	  for (int i = 0; i < 8; ++i) {
	    int v = in[i * 128 + t];
	    if (v < 0) break;
	    s += v * v;
	  }
	  out[t] = s;
	}
	CU
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -pass-remarks=nv-unroll \
		"$BATS_TEST_TMPDIR/by3.cu" -o "$BATS_TEST_TMPDIR/by3.ptx"
	assert_success
	grep -q "unrolled with an epilog remainder by a factor of 3" <<<"$stderr" || fail "$stderr"
	assert_equal "$(count 'ld.global' "$BATS_TEST_TMPDIR/by3.ptx")" 3
}

@test "-nv-unroll-multi-exit=0 leaves a loop with a second exit uncounted and rolled" {
	barriers off
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -nv-unroll-multi-exit=0 \
		-Xcicc -pass-remarks-analysis=nv-unroll "$BATS_TEST_TMPDIR/off.cu" -o "$BATS_TEST_TMPDIR/off.ptx"
	assert_success
	grep -q "trip count unknown (more than one exiting block)" <<<"$stderr" || fail "$stderr"
	assert_equal "$(count 'bar.sync' "$BATS_TEST_TMPDIR/off.ptx")" 2
}

@test "a #pragma unroll N loop with a second exit is unrolled only by a factor that divides its count" {
	# LLVM makes no remainder loop for a loop with exits besides its latch
	cat >"$BATS_TEST_TMPDIR/div.cu" <<-'CU'
	__global__ void div3(float *out, float a) {
	  __shared__ float sm[128];
	  int t = threadIdx.x;
	#pragma unroll 3
	  for (int it = 0; it < 8; ++it) {
	    __syncthreads();
	    switch (it & 3) {
	    case 0: sm[t] = a; break;
	    case 1: sm[t] = a * 2.f; break;
	    case 2: sm[t] = a * 3.f; break;
	    case 3: sm[t] = a * 4.f; break;
	    default: __builtin_unreachable();
	    }
	    __syncthreads();
	    out[it * 128 + t] = sm[t ^ 1];
	  }
	}
	CU
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -pass-remarks=nv-unroll \
		-Xcicc -pass-remarks-missed=nv-unroll "$BATS_TEST_TMPDIR/div.cu" -o "$BATS_TEST_TMPDIR/div.ptx"
	assert_success
	grep -q "#pragma unroll 3: remainder loops not allowed (convergent calls in the loop), trip multiple 8" \
		<<<"$stderr" || fail "$stderr"
	grep -q "unrolled by a factor of 2" <<<"$stderr" || fail "$stderr"
	assert_equal "$(count 'bar.sync' "$BATS_TEST_TMPDIR/div.ptx")" 4
	if have_ptxas; then
		"$(ptxas_bin)" -arch=sm_90 "$BATS_TEST_TMPDIR/div.ptx" -o /dev/null
	fi
}
