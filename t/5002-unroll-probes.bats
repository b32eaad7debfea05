#!/usr/bin/env bats
# nv-unroll against cicc on the probes of issue 26: what nvcc-lite's PTX
# holds, and, where nvcc is installed, that cicc decided the same.

load helper

# ptx NAME [FLAGS...]: nvcc-lite's PTX of $BATS_TEST_TMPDIR/NAME.cu in NAME.lite.ptx,
# and nvcc's in NAME.nvcc.ptx when nvcc is installed
ptx() {
	local n=$1
	shift
	nvcc-lite -ptx -O3 -arch=sm_90 "$@" "$BATS_TEST_TMPDIR/$n.cu" -o "$BATS_TEST_TMPDIR/$n.lite.ptx"
	if have_nvcc; then
		"$(nvcc_bin)" -ptx -O3 -arch=sm_90 "$@" "$BATS_TEST_TMPDIR/$n.cu" -o "$BATS_TEST_TMPDIR/$n.nvcc.ptx"
	fi
}

# count PATTERN FILE: lines of FILE matching PATTERN
count() {
	grep -c -- "$1" "$2" || true
}

# regs FILE: the registers ptxas gives the (only) kernel of FILE
regs() {
	"$(ptxas_bin)" -v -arch=sm_90 "$1" -o /dev/null 2>&1 | sed -n 's/.*Used \([0-9]*\) registers.*/\1/p'
}

# entry_loads FILE PREFIX: the global loads of the kernel of FILE whose name starts with PREFIX
entry_loads() {
	awk -v k="$2" '/^\.visible \.entry/ { p = index($3, k) == 1 } p' "$1" | grep -c 'ld\.global' || true
}

# fma_loop NAME HEAD INDEX K: a kernel NAME whose loop, for (HEAD), reads
# a[INDEX] and does K float multiply-adds with it (2K + 6 units a trip)
fma_loop() {
	printf '__global__ void %s(float *o, const float *a, int n) { float s = 0;\n' "$1"
	printf '  for (%s) { float v = a[%s];' "$2" "$3"
	for j in $(seq "$4"); do printf ' s = s * v + %d.5f;' "$j"; done
	printf ' }\n  o[threadIdx.x] = s; }\n'
}

# loads_of PTX NAME...: each named kernel's global loads (NAME its mangled
# name's first part, _Z<length>NAME), on one line
loads_of() {
	local f=$1 n
	shift
	for n; do entry_loads "$f" "_Z${#n}${n}P"; done | tr '\n' ' '
}

# same_unrolled NAME PATTERN N: $BATS_TEST_TMPDIR/NAME.c through nv-opt's Phase I,
# then both nv-unroll runs; N remarks match PATTERN, and lli prints the same
# before and after
same_unrolled() {
	local d=$BATS_TEST_TMPDIR/$1 want
	clang-22 -O2 -Xclang -disable-llvm-passes -emit-llvm -c "$d.c" -o "$d.0.bc"
	nv-opt -O3 -no-unroll -no-vectorize "$d.0.bc" -o "$d.1.bc"
	want=$(lli "$d.1.bc")
	nv-unroll -pass-remarks=nv-unroll "$d.1.bc" 2>"$d.remarks" |
		nv-opt -pipeline=mid-unroll | nv-unroll -config=D | nv-opt -pipeline=post-unroll-t3 -o "$d.2.bc"
	[ "$(grep -c -- "$2" "$d.remarks")" -eq "$3" ] || fail "$(cat "$d.remarks")"
	run lli "$d.2.bc"
	assert_output "$want"
}

# bats test_tags=slow
@test "a #pragma unroll loop of 64 trips over a register tile is unrolled by 32, not fully (cicc too)" {
	# the tile is a local array indexed by the inner loops, as WMMA fragments
	# are in the tensor-core GEMM samples: once those loops are unrolled SROA
	# splits it, so it does not multiply the outer loop's budget
	cat >"$BATS_TEST_TMPDIR/tile.cu" <<-'CU'
	__global__ void tile(float *out, const float *a, const float *b) {
	  float acc[2][4];
	#pragma unroll
	  for (int i = 0; i < 2; i++)
	#pragma unroll
	    for (int j = 0; j < 4; j++) acc[i][j] = 0.f;
	#pragma unroll
	  for (int t = 0; t < 64; t++) {
	#pragma unroll
	    for (int k = 0; k < 16; k++) {
	      float x[2], y[4];
	#pragma unroll
	      for (int i = 0; i < 2; i++) x[i] = a[(t * 16 + k) * 64 + i * 32 + threadIdx.x];
	#pragma unroll
	      for (int j = 0; j < 4; j++) y[j] = b[(t * 16 + k) * 128 + j * 32 + threadIdx.x];
	#pragma unroll
	      for (int i = 0; i < 2; i++)
	#pragma unroll
	        for (int j = 0; j < 4; j++) acc[i][j] = fmaf(x[i], y[j], acc[i][j]);
	    }
	  }
	#pragma unroll
	  for (int i = 0; i < 2; i++)
	#pragma unroll
	    for (int j = 0; j < 4; j++) out[(i * 4 + j) * 32 + threadIdx.x] = acc[i][j];
	}
	CU
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -pass-remarks=nv-unroll \
		"$BATS_TEST_TMPDIR/tile.cu" -o "$BATS_TEST_TMPDIR/tile.lite.ptx"
	assert_success
	grep -q "unrolled by a factor of 32 (level 5: #pragma unroll: 64 iterations too big to unroll fully" <<<"$stderr"
	ptx tile
	lite="$BATS_TEST_TMPDIR/tile.lite.ptx"
	# 32 of the 64 trips, 128 fma each; the loop is still there
	assert_equal "$(count 'fma.rn.f32' "$lite")" 4096
	[ "$(count 'bra' "$lite")" -ge 1 ]
	assert_equal "$(count 'local' "$lite")" 0
	# unrolled as the pragma said: the rest is left to nobody, ptxas included
	assert_equal "$(count '.pragma "nounroll"' "$lite")" 1
	if have_ptxas; then
		"$(ptxas_bin)" -arch=sm_90 "$lite" -o /dev/null
	fi
	if have_nvcc; then
		assert_equal "$(count 'fma.rn.f32' "$BATS_TEST_TMPDIR/tile.nvcc.ptx")" 4096
		assert_equal "$(count '.pragma "nounroll"' "$BATS_TEST_TMPDIR/tile.nvcc.ptx")" 1
	fi
}

# bats test_tags=slow
@test "a local array the loop indexes with its IV still multiplies the pragma budget x6 (cicc too)" {
	# 64 trips of ~520 cost units: over 32768, within 6 x 32768
	{
		echo '__global__ void big(float *out, const float *in, int n) {'
		echo '  float acc = 0.f, b = in[threadIdx.x]; float arr[8];'
		echo '  for (int q = 0; q < 8; q++) arr[q] = in[q + n];'
		echo '#pragma unroll'
		echo '  for (int t = 0; t < 64; t++) {'
		echo '    const float *p = in + t * 1024 + threadIdx.x;'
		for j in $(seq 1 256); do echo "    acc = fmaf(acc, p[$j * 64], b * $j.0f);"; done
		echo '    arr[t & 7] += acc;'
		echo '  }'
		echo '  for (int q = 0; q < 8; q++) acc += arr[(q * n) & 7];'
		echo '  out[threadIdx.x] = acc;'
		echo '}'
	} >"$BATS_TEST_TMPDIR/big.cu"
	ptx big
	assert_equal "$(count 'fma.rn.f32' "$BATS_TEST_TMPDIR/big.lite.ptx")" 16384
	if have_nvcc; then
		assert_equal "$(count 'fma.rn.f32' "$BATS_TEST_TMPDIR/big.nvcc.ptx")" 16384
	fi
}

@test "a runtime-unrolled loop and its remainder carry .pragma nounroll, so ptxas does not unroll again" {
	cat >"$BATS_TEST_TMPDIR/rt.cu" <<-'CU'
	__global__ void rt(float *out, const float *in, int n) {
	  float s = 0.f;
	  for (int i = 0; i < n; i++) s += in[i * 32 + threadIdx.x] * 3.0f;
	  out[threadIdx.x] = s;
	}
	__global__ void part(float *out, const float *in) {
	  float s = 0.f;
	  for (int i = 0; i < 100; i++) s += in[i * 32 + threadIdx.x] * 3.0f;
	  out[threadIdx.x] = s;
	}
	CU
	ptx rt
	lite="$BATS_TEST_TMPDIR/rt.lite.ptx"
	rt=$(sed -n '/\.entry _Z2rt/,/^}/p' "$lite")
	part=$(sed -n '/\.entry _Z4part/,/^}/p' "$lite")
	# x4 and a remainder of one, both marked
	[ "$(grep -c 'ld.global' <<<"$rt")" -eq 5 ] || fail "$rt"
	[ "$(grep -c '.pragma "nounroll"' <<<"$rt")" -eq 2 ] || fail "$rt"
	# a constant trip count unrolled by 4 (no pragma, no remainder) is left
	# open, as cicc leaves it
	[ "$(grep -c 'ld.global' <<<"$part")" -eq 4 ] || fail "$part"
	[ "$(grep -c '.pragma "nounroll"' <<<"$part")" -eq 0 ] || fail "$part"
	if have_ptxas; then
		sed -n '/^\/\/\|^\.version\|^\.target\|^\.address_size/p' "$lite" >"$BATS_TEST_TMPDIR/rt1.ptx"
		echo "$rt" >>"$BATS_TEST_TMPDIR/rt1.ptx"
		r=$(regs "$BATS_TEST_TMPDIR/rt1.ptx")
		# 31 without the mark on the unrolled loop
		[ "$r" -le 20 ] || fail "rt: $r registers"
		if have_nvcc; then
			rtn=$(sed -n '/\.entry _Z2rt/,/^}/p' "$BATS_TEST_TMPDIR/rt.nvcc.ptx")
			[ "$(grep -c 'ld.global' <<<"$rtn")" -eq 5 ] || fail "$rtn"
			sed -n '/^\/\/\|^\.version\|^\.target\|^\.address_size/p' "$BATS_TEST_TMPDIR/rt.nvcc.ptx" >"$BATS_TEST_TMPDIR/rt2.ptx"
			echo "$rtn" >>"$BATS_TEST_TMPDIR/rt2.ptx"
			[ "$r" -le "$(regs "$BATS_TEST_TMPDIR/rt2.ptx")" ] || fail "rt: $r registers, nvcc's fewer"
		fi
	fi
}

@test "nv-vectorize's vector loop and its remainder carry .pragma nounroll: four elements an iteration, as cicc's x4" {
	cat >"$BATS_TEST_TMPDIR/vl.cu" <<-'CU'
	__global__ void rowaxpy(float *__restrict__ y, const float *__restrict__ x, float a, int n) {
	  const float *xr = x + (size_t)blockIdx.x * n;
	  float *yr = y + (size_t)blockIdx.x * n;
	  for (int i = 0; i < n; i++) yr[i] = a * xr[i] + yr[i];
	}
	CU
	ptx vl
	lite="$BATS_TEST_TMPDIR/vl.lite.ptx"
	# one vector loop (.v4 loads and store), one scalar remainder, both marked
	[ "$(count 'ld.global.*v4' "$lite")" -eq 2 ] || fail "$(cat "$lite")"
	[ "$(count 'st.global.v4' "$lite")" -eq 1 ] || fail "$(cat "$lite")"
	[ "$(count '.pragma "nounroll"' "$lite")" -eq 2 ] || fail "$(cat "$lite")"
	nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -unroll-seal-vectorized=0 "$BATS_TEST_TMPDIR/vl.cu" -o "$BATS_TEST_TMPDIR/open.ptx"
	[ "$(count '.pragma "nounroll"' "$BATS_TEST_TMPDIR/open.ptx")" -eq 0 ]
	if have_ptxas; then
		r=$(regs "$lite")
		# 40 left open to ptxas, which unrolls the vector loop again
		[ "$r" -lt "$(regs "$BATS_TEST_TMPDIR/open.ptx")" ] || fail "vl: $r registers"
		if have_nvcc; then
			# cicc: the scalar loop unrolled by 4 at run time, 32 registers
			[ "$r" -le "$(regs "$BATS_TEST_TMPDIR/vl.nvcc.ptx")" ] || fail "vl: $r registers, nvcc's fewer"
		fi
	fi
}

# bats test_tags=slow
@test "a loop of at most 7 trips (i < (n & 7)) stays rolled, as cicc leaves it" {
	cat >"$BATS_TEST_TMPDIR/ub.cu" <<-'CU'
	__global__ void ub(float *out, const float *in, int n) {
	  float s = 0.f;
	  for (int i = 0; i < (n & 7); i++) s += in[i * 32 + threadIdx.x] * 3.0f;
	  out[threadIdx.x] = s;
	}
	CU
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -pass-remarks-analysis=nv-unroll \
		"$BATS_TEST_TMPDIR/ub.cu" -o "$BATS_TEST_TMPDIR/ub.lite.ptx"
	assert_success
	grep -q "level 6: loop .*: at most 7 iterations, 1 or fewer of the loop unrolled by 4: under flat-loop-tripcount-threshold 5" <<<"$stderr"
	ptx ub
	lite="$BATS_TEST_TMPDIR/ub.lite.ptx"
	assert_equal "$(count 'ld.global' "$lite")" 1
	if have_ptxas; then
		# 31 when it was unrolled by 4 with a remainder
		[ "$(regs "$lite")" -le 18 ] || fail "$(regs "$lite") registers"
	fi
	if have_nvcc; then
		assert_equal "$(count 'ld.global' "$BATS_TEST_TMPDIR/ub.nvcc.ptx")" 1
		[ "$(regs "$lite")" -le "$(regs "$BATS_TEST_TMPDIR/ub.nvcc.ptx")" ] || fail "more registers than nvcc"
	fi
	# cicc's boundary, whatever the body: at most 20 trips stays rolled, 21 is unrolled by 4
	for k in 20 21; do
		sed "s/i < (n & 7)/i < min(n, $k)/" "$BATS_TEST_TMPDIR/ub.cu" >"$BATS_TEST_TMPDIR/ub$k.cu"
		ptx "ub$k"
		want=$([ "$k" = 20 ] && echo 1 || echo 5)
		assert_equal "$(count 'ld.global' "$BATS_TEST_TMPDIR/ub$k.lite.ptx")" "$want"
		if have_nvcc; then
			assert_equal "$(count 'ld.global' "$BATS_TEST_TMPDIR/ub$k.nvcc.ptx")" "$want"
		fi
	done
}

@test "with -lineinfo every nv-unroll remark points at its loop's line, not at the function" {
	cat >"$BATS_TEST_TMPDIR/lines.cu" <<-'CU'
	__global__ void lines(float *out, const float *in, int n) {
	  float s = 0.f;
	#pragma unroll
	  for (int i = 0; i < 8; i++)
	    s += in[i * 32 + threadIdx.x];
	  for (int i = 0; i < n; i++)
	    s += in[i * 64 + threadIdx.x] * 3.0f;
	  out[threadIdx.x] = s;
	}
	CU
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -lineinfo -Xcicc -pass-remarks=nv-unroll \
		-keep -keep-dir "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/lines.cu" -o "$BATS_TEST_TMPDIR/lines.ptx"
	assert_success
	grep -q "^nv-unroll: remark: .*lines.cu:4:3: loop .* completely unrolled with count 8" <<<"$stderr" || fail "$stderr"
	grep -q "^nv-unroll: remark: .*lines.cu:6:3: loop .* unrolled with an epilog remainder by a factor of 4" <<<"$stderr" || fail "$stderr"
	[[ "$stderr" != *"in function"* ]] || fail "$stderr"
	# the YAML remarks carry the same position
	nv-unroll -pass-remarks-output="$BATS_TEST_TMPDIR/r.yaml" "$BATS_TEST_TMPDIR"/lines.*-nv-vectorize.bc \
		-o /dev/null
	grep -q "^DebugLoc: .*Line: 4, Column: 3 }" "$BATS_TEST_TMPDIR/r.yaml"
	# without -lineinfo there is no line to give: the function is named
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -pass-remarks=nv-unroll \
		"$BATS_TEST_TMPDIR/lines.cu" -o "$BATS_TEST_TMPDIR/lines2.ptx"
	grep -q "^nv-unroll: remark: in function '_Z5linesPfPKfi': loop .* completely unrolled with count 8" <<<"$stderr"
}

@test "attention_row's #pragma unroll tile copies (e = threadIdx.x .. 2048 by 256) are unrolled fully, with no spill" {
	# unrolled by 4 at run time, then fully by the late unroll once the outer
	# loop was unrolled, they once stayed loops (marked nounroll too early)
	# and the kernel spilled 14 KB; now the start's range (threadIdx.x's)
	# bounds them at 8 trips and the first unroll unrolls them to that
	# maximum: 32 registers where the late route gave 64 (nvcc 36)
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -pass-remarks=nv-unroll \
		"$TOP/bench/kernels/attention_row.cu" -o "$BATS_TEST_TMPDIR/att.ptx"
	assert_success
	[ "$(grep -c 'completely unrolled to its maximum trip count with count 8' <<<"$stderr")" -ge 2 ] || fail "$stderr"
	if have_ptxas; then
		run "$(ptxas_bin)" -v -arch=sm_90 "$BATS_TEST_TMPDIR/att.ptx" -o /dev/null
		assert_output --partial "0 bytes spill stores"
	fi
}

@test "a loop the late unroll leaves rolled though its trip count is known is marked nounroll, so ptxas leaves it too" {
	# imageDenoising's NLM with arrays for textures: the 7-trip loops around
	# a fully unrolled window are over the full-unroll budget; ptxas unrolled
	# them all the same (71 registers; cicc's PTX gets 32)
	cat >"$BATS_TEST_TMPDIR/nlm.cu" <<-'CU'
	__global__ void nlm(float *out, const float *img, int w) {
	  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
	  float sum = 0, wsum = 0;
	  for (int i = -3; i <= 3; i++)
	    for (int j = -3; j <= 3; j++) {
	      float d = 0;
	      for (int n = -3; n <= 3; n++)
	        for (int m = -3; m <= 3; m++) {
	          float a = img[(y + i + n) * w + x + j + m] - img[(y + n) * w + x + m];
	          d += a * a;
	        }
	      float wt = __expf(-d);
	      sum += wt * img[(y + i) * w + x + j];
	      wsum += wt;
	    }
	  out[y * w + x] = sum / wsum;
	}
	CU
	# cicc leaves all three loops rolled; with the partial budget of 202 the
	# 7-trip n loop (85 units to us, more than 102 to cicc) would be unrolled
	# by 2, so the seed's 150 keeps this probe about sealing
	CUDA_PATH=/nonexistent nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -unroll-partial-threshold=150 \
		-Xcicc -pass-remarks-missed=nv-unroll \
		"$BATS_TEST_TMPDIR/nlm.cu" -o "$BATS_TEST_TMPDIR/sealed.ptx" 2>"$BATS_TEST_TMPDIR/remarks"
	CUDA_PATH=/nonexistent nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -unroll-partial-threshold=150 \
		-Xcicc -unroll-seal-rolled=0 "$BATS_TEST_TMPDIR/nlm.cu" -o "$BATS_TEST_TMPDIR/open.ptx"
	# the three loops left: n (its m loop unrolled), j and i
	assert_equal "$(count '.pragma "nounroll"' "$BATS_TEST_TMPDIR/sealed.ptx")" 3
	assert_equal "$(count '.pragma "nounroll"' "$BATS_TEST_TMPDIR/open.ptx")" 0
	grep -q "not unrolled: .*; marked nounroll" "$BATS_TEST_TMPDIR/remarks"
	have_ptxas || skip "ptxas is not installed"
	sealed=$(regs "$BATS_TEST_TMPDIR/sealed.ptx") open=$(regs "$BATS_TEST_TMPDIR/open.ptx")
	[ "$sealed" -le 32 ] && [ "$open" -gt "$sealed" ] || fail "sealed $sealed registers, open $open"
}

@test "an inclusive exit test stepping by more than one from a run-time start stays rolled, as cicc leaves it" {
	# cicc computes no trip count for these (llm.c's softmax backward:
	# for (t2 = threadIdx.x; t2 <= t; t2 += 256)), and leaves them rolled;
	# a unit step, a start of 0 or an exclusive test it runtime-unrolls
	cat >"$BATS_TEST_TMPDIR/incl.cu" <<-'CU'
	#define K(name, init, cond, step) \
	  __global__ void name(float *o, const float *a, const float *b, int t) { \
	    float s = 0; for (int i = init; cond; i += step) s += a[i] * b[i]; o[threadIdx.x] = s; }
	K(le256, threadIdx.x, i <= t, 256)
	K(le2, threadIdx.x, i <= t, 2)
	K(le1, threadIdx.x, i <= t, 1)
	K(lt256, threadIdx.x, i < t, 256)
	K(le256z, 0, i <= t, 256)
	CU
	ptx incl
	loads() {
		sed -n "/\\.entry _Z[0-9]*$1P/,/^}/p" "$2" | grep -c 'ld\.global' || true
	}
	for k in le256 le2; do
		[ "$(loads $k "$BATS_TEST_TMPDIR/incl.lite.ptx")" -eq 2 ] || fail "$k is unrolled"
	done
	for k in le1 lt256 le256z; do
		[ "$(loads $k "$BATS_TEST_TMPDIR/incl.lite.ptx")" -eq 10 ] || fail "$k is not unrolled by 4"
	done
	if have_nvcc; then
		for k in le256 le2 le1 lt256 le256z; do
			assert_equal "$k $(loads $k "$BATS_TEST_TMPDIR/incl.lite.ptx")" "$k $(loads $k "$BATS_TEST_TMPDIR/incl.nvcc.ptx")"
		done
	fi
}

@test "an inclusive exit test from a start whose range keeps it within a step of zero is unrolled x4, as cicc" {
	# cicc counts i <= n stepping by s from a start known in [-s, max - s]
	# (counting down: [min + s, s]) by its arithmetic, not from threadIdx.x,
	# which has no range there: llm.c's softmax_forward_kernel5 writes its
	# row back from the lane (i = threadIdx.x % 32; i <= own_pos; i += 32)
	cat >"$BATS_TEST_TMPDIR/srange.cu" <<-'CU'
	#define U(name, start, step) __global__ void name(float *o, const float *x, int n) { \
	  for (int i = start; i <= n; i += step) o[i + 64] = x[i + 64] * 3.0f + 1.0f; }
	#define D(name, start, step) __global__ void name(float *o, const float *x, int n) { \
	  for (int i = start; i >= n; i -= step) o[i + 64] = x[i + 64] * 3.0f + 1.0f; }
	U(ulane, (int)(threadIdx.x % 32), 32)
	U(un255, n & 255, 32)
	U(ulm32, (int)(threadIdx.x % 32) - 32, 32)
	U(ushr5, (int)(threadIdx.x >> 5), 32)
	U(uand, (int)(threadIdx.x & 0x7fffffc0), 32)
	U(ulm64, (int)(threadIdx.x % 32) - 64, 32)
	U(ushr1, (int)(threadIdx.x >> 1), 32)
	U(utid, (int)threadIdx.x, 32)
	D(dlane, (int)(threadIdx.x % 32), 32)
	D(dn31p1, (n & 31) + 1, 32)
	D(dn63, n & 63, 32)
	CU
	ptx srange
	for k in ulane un255 ulm32 ushr5 uand dlane dn31p1; do
		[ "$(entry_loads "$BATS_TEST_TMPDIR/srange.lite.ptx" "_Z$((${#k}))$k")" -eq 5 ] || fail "$k is not unrolled by 4"
	done
	for k in ulm64 ushr1 utid dn63; do
		[ "$(entry_loads "$BATS_TEST_TMPDIR/srange.lite.ptx" "_Z$((${#k}))$k")" -eq 1 ] || fail "$k is unrolled"
	done
	if have_nvcc; then
		for k in ulane un255 ulm32 ushr5 uand ulm64 ushr1 utid dlane dn31p1 dn63; do
			assert_equal "$k $(entry_loads "$BATS_TEST_TMPDIR/srange.lite.ptx" "_Z$((${#k}))$k")" \
				"$k $(entry_loads "$BATS_TEST_TMPDIR/srange.nvcc.ptx" "_Z$((${#k}))$k")"
		done
	fi
}

# bats test_tags=slow
@test "loops through cuda_bf16.hpp's asm and __ldcs are unrolled x4 and unswitched as cicc (asm not convergent); a run-time step with asm stays rolled" {
	# clang marks every asm convergent and not willreturn: no remainder
	# loop, no unswitching, no trip count; nvcc's front end marks none.
	# cicc counts a constant step past asm, not a run-time one.
	cat >"$BATS_TEST_TMPDIR/asm.cu" <<-'CU'
	#include <cuda_bf16.h>
	__global__ void cs_copy(__nv_bfloat16 *o, const __nv_bfloat16 *x, int n, float s) {
	  for (int i = threadIdx.x; i < n; i += 32) __stcs(o + i, __float2bfloat16(__bfloat162float(__ldcs(x + i)) * s)); }
	__global__ void c48_bf16(float *o, const __nv_bfloat16 *x, int n) { float s = 0;
	  for (int i = threadIdx.x; i < n; i += 48) s += __bfloat162float(x[i]); o[threadIdx.x] = s; }
	__global__ void rs_bf16(float *o, const __nv_bfloat16 *x, int n) { int bs = blockDim.x; float s = 0;
	  for (int i = threadIdx.x; i < n; i += bs) s += __bfloat162float(x[i]); o[threadIdx.x] = s; }
	__global__ void bf16_sel(float *o, const __nv_bfloat16 *x, int n, int mode) {
	  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
	    float v = __bfloat162float(x[i]); if (mode == 0) o[i] = v * 2.0f; else o[i] = v + 1.0f; } }
	__global__ void asm_shfl(int *o, const int *x, int n) {
	  for (int i = threadIdx.x; i < n; i += 32) { int v = x[i], r;
	    asm volatile("shfl.sync.idx.b32 %0, %1, 0, 31, -1;" : "=r"(r) : "r"(v)); o[i] = r; } }
	CU
	ptx asm
	nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -nv-link-asm-convergent=1 "$BATS_TEST_TMPDIR/asm.cu" -o "$BATS_TEST_TMPDIR/kept.ptx"
	l="$BATS_TEST_TMPDIR/asm.lite.ptx" k="$BATS_TEST_TMPDIR/kept.ptx"
	# x4 and a remainder: 5 loads; unswitched on mode: 2 loops
	assert_equal "$(entry_loads "$l" _Z7cs_copy) $(entry_loads "$l" _Z8c48_bf16) $(entry_loads "$l" _Z7rs_bf16) $(entry_loads "$l" _Z8bf16_sel)" "5 5 1 2"
	assert_equal "$(entry_loads "$k" _Z7cs_copy) $(entry_loads "$k" _Z8c48_bf16) $(entry_loads "$k" _Z8bf16_sel)" "1 1 1"
	# a shuffle in asm stays convergent here (cicc unrolls it all the same)
	assert_equal "$(entry_loads "$l" _Z8asm_shfl)" 1
	if have_nvcc; then
		n="$BATS_TEST_TMPDIR/asm.nvcc.ptx"
		for f in _Z7cs_copy _Z8c48_bf16 _Z7rs_bf16 _Z8bf16_sel; do
			assert_equal "$f $(entry_loads "$l" $f)" "$f $(entry_loads "$n" $f)"
		done
	fi
}

# bats test_tags=slow
@test "a runtime unroll's budget is cicc's 202: x4 up to a body of 50 units, x2 up to the gate of 95; __expf counts one" {
	# k float multiply-adds, or k __expf, stepping by 32 from threadIdx.x
	{
		for k in 16 22 28 40 46; do fma_loop "k$k" "int i = threadIdx.x; i < n; i += 32" i "$k"; done
		for k in 5 11 12; do
			printf '__global__ void e%d(float *o, const float *a, int n) { float s = 1;\n' "$k"
			printf '  for (int i = threadIdx.x; i < n; i += 32) { float v = a[i];'
			for j in $(seq "$k"); do printf ' s = s * __expf(v + %d.5f);' "$j"; done
			printf ' }\n  o[threadIdx.x] = s; }\n'
		done
	} >"$BATS_TEST_TMPDIR/budget.cu"
	ptx budget
	names="k16 k22 k28 k40 k46 e5 e11 e12"
	# x4 and a prolog: 5 loads; x2: 3; rolled: 1
	assert_equal "$(loads_of "$BATS_TEST_TMPDIR/budget.lite.ptx" $names)" "5 5 3 3 1 5 5 3 "
	# the seed's 150 gives k22 and e11 x2 only
	nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -unroll-partial-threshold=150 "$BATS_TEST_TMPDIR/budget.cu" -o "$BATS_TEST_TMPDIR/b150.ptx"
	assert_equal "$(loads_of "$BATS_TEST_TMPDIR/b150.ptx" k22 e11)" "3 3 "
	if have_nvcc; then
		assert_equal "$(loads_of "$BATS_TEST_TMPDIR/budget.lite.ptx" $names)" "$(loads_of "$BATS_TEST_TMPDIR/budget.nvcc.ptx" $names)"
	fi
}

# bats test_tags=slow
@test "a known trip count's partial budget is cicc's 202 too: x16 up to a body of 12 units, x2 up to 98" {
	# k float multiply-adds a trip, 64 trips (t64) or an odd count (t11, t63)
	{
		for p in 64:2 64:3 64:9 64:10 64:22 64:24 64:46 64:50 11:22 11:40 63:22; do
			t=${p%:*} k=${p#*:}
			fma_loop "t${t}k$k" "int i = 0; i < $t; i++" "i * 32 + threadIdx.x" "$k"
		done
	} >"$BATS_TEST_TMPDIR/known.cu"
	ptx known
	names="t64k2 t64k3 t64k9 t64k10 t64k22 t64k24 t64k46 t64k50 t11k22 t11k40 t63k22"
	# the loads of a trip are the factor (with an odd count, the remainder's too)
	assert_equal "$(loads_of "$BATS_TEST_TMPDIR/known.lite.ptx" $names)" "16 16 8 4 4 2 2 1 4 2 4 "
	# the seed's 150 unrolls eight of them otherwise (t64k2 by 8, then fully)
	nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -unroll-partial-threshold=150 "$BATS_TEST_TMPDIR/known.cu" \
		-o "$BATS_TEST_TMPDIR/k150.ptx"
	assert_equal "$(loads_of "$BATS_TEST_TMPDIR/k150.ptx" $names)" "64 8 4 4 2 2 1 1 2 1 2 "
	if have_nvcc; then
		assert_equal "$(loads_of "$BATS_TEST_TMPDIR/known.lite.ptx" $names)" "$(loads_of "$BATS_TEST_TMPDIR/known.nvcc.ptx" $names)"
	fi
}

@test "a rotate costs the unroller three, its expansion, as cicc counts it: a ChaCha-like round loop stays rolled" {
	# k add-xor-rotates a trip: 10 trips (r: x2 or rolled) or 8 (f: full or x2)
	{
		for p in r:10:16 r:10:20 r:10:32 f:8:9 f:8:10; do
			n=${p%%:*} t=${p#*:} k=${t#*:} t=${t%:*}
			printf '__global__ void %s%d(unsigned *o, const unsigned *a) {\n' "$n" "$k"
			printf '  unsigned x = a[threadIdx.x], y = a[threadIdx.x + 32];\n'
			printf '  for (int i = 0; i < %d; i++) { y += a[i * 64 + threadIdx.x];' "$t"
			for j in $(seq "$k"); do
				printf ' x += y; y ^= x; y = (y << %d) | (y >> %d);' $((j % 31 + 1)) $((31 - j % 31))
			done
			printf ' }\n  o[threadIdx.x] = x + y; }\n'
		done
	} >"$BATS_TEST_TMPDIR/rot.cu"
	ptx rot
	names="r16 r20 r32 f9 f10"
	# r: x2 4 loads, rolled 3; f: fully unrolled 9, x2 4 (a rotate costing
	# one, as the PTX instruction: r20 and r32 x2, f10 fully unrolled)
	assert_equal "$(loads_of "$BATS_TEST_TMPDIR/rot.lite.ptx" $names)" "4 3 3 9 4 "
	if have_nvcc; then
		assert_equal "$(loads_of "$BATS_TEST_TMPDIR/rot.lite.ptx" $names)" "$(loads_of "$BATS_TEST_TMPDIR/rot.nvcc.ptx" $names)"
	fi
}

# bats test_tags=slow
@test "a block-stride loop (i += block_size) is unrolled x4 at run time, as cicc; i += blockDim.x, which may wrap, stays rolled" {
	# llm.c's softmax kernels: int block_size = blockDim.x; for (i = tid; i < C;
	# i += block_size).  cicc counts the loop with a division and unrolls it
	cat >"$BATS_TEST_TMPDIR/bstride.cu" <<-'CU'
	__global__ void bstride(float *out, const float *in, int n) {
	  int bs = blockDim.x;
	  float s = 0.f;
	  for (int i = threadIdx.x; i < n; i += bs) s += in[i];
	  out[threadIdx.x] = s;
	}
	CU
	cat >"$BATS_TEST_TMPDIR/bwrap.cu" <<-'CU'
	__global__ void bwrap(float *out, const float *in, int n) {
	  float s = 0.f;
	  for (int i = threadIdx.x; i < n; i += blockDim.x) s += in[i];
	  out[threadIdx.x] = s;
	}
	CU
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -pass-remarks=nv-unroll \
		-Xcicc -pass-remarks-analysis=nv-unroll "$BATS_TEST_TMPDIR/bstride.cu" -o "$BATS_TEST_TMPDIR/bstride.lite.ptx"
	assert_success
	# from threadIdx.x: the remainder first (a prolog), as cicc places it
	[[ "$stderr" == *"unrolled with a prolog remainder by a factor of 4 (level 6: unknown trip count"* ]] || fail "$stderr"
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -pass-remarks-analysis=nv-unroll \
		"$BATS_TEST_TMPDIR/bwrap.cu" -o "$BATS_TEST_TMPDIR/bwrap.lite.ptx"
	assert_success
	[[ "$stderr" == *"level 6: loop "*": no trip count expression for a remainder loop (the IV steps by a run-time value and may wrap)"* ]] ||
		fail "$stderr"
	ptx bstride
	ptx bwrap
	# x4 and a remainder of one, the remainder first
	assert_equal "$(count 'ld.global' "$BATS_TEST_TMPDIR/bstride.lite.ptx")" 5
	order() { grep -E '^\$L|ld\.global' "$1" | awk '/ld\.global/ { n++ } /^\$L/ { if (n) printf "%d ", n; n = 0 } END { print "" }'; }
	assert_equal "$(order "$BATS_TEST_TMPDIR/bstride.lite.ptx")" "1 4 "
	assert_equal "$(count 'ld.global' "$BATS_TEST_TMPDIR/bwrap.lite.ptx")" 1
	if have_nvcc; then
		assert_equal "$(count 'ld.global' "$BATS_TEST_TMPDIR/bstride.nvcc.ptx")" 5
		assert_equal "$(order "$BATS_TEST_TMPDIR/bstride.nvcc.ptx")" "1 4 "
		assert_equal "$(count 'ld.global' "$BATS_TEST_TMPDIR/bwrap.nvcc.ptx")" 1
	fi
}

# bats test_tags=slow
@test "a block-stride loop below a constant (i < 256; i += blockDim.x) stays rolled, as cicc leaves it, though LLVM infers its add cannot wrap; int bs = blockDim.x is unrolled x4" {
	# bench's histogram_shared zeroes its bins so; unrolled, its count's
	# division made the kernel 1.09x nvcc's time on an H100
	cat >"$BATS_TEST_TMPDIR/bc.cu" <<-'CU'
	extern "C" __global__ void bc_uadd(const unsigned *w, unsigned *out) {
	  for (int i = threadIdx.x; i < 256; i += blockDim.x) out[i] = w[i] * 3;
	}
	extern "C" __global__ void bc_unsigned(const unsigned *w, unsigned *out) {
	  for (unsigned i = threadIdx.x; i < 256; i += blockDim.x) out[i] = w[i] * 3;
	}
	extern "C" __global__ void bc_signed(const unsigned *w, unsigned *out) {
	  int bs = blockDim.x;
	  for (int i = threadIdx.x; i < 256; i += bs) out[i] = w[i] * 3;
	}
	CU
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -pass-remarks-analysis=nv-unroll \
		"$BATS_TEST_TMPDIR/bc.cu" -o "$BATS_TEST_TMPDIR/bc.lite.ptx"
	assert_success
	[[ "$stderr" == *"in function 'bc_uadd': level 6: loop "*": no trip count expression for a remainder loop (the IV steps by a run-time value and may wrap)"* ]] ||
		fail "$stderr"
	ptx bc
	assert_equal "$(entry_loads "$BATS_TEST_TMPDIR/bc.lite.ptx" bc_uadd)" 1
	assert_equal "$(entry_loads "$BATS_TEST_TMPDIR/bc.lite.ptx" bc_unsigned)" 1
	assert_equal "$(entry_loads "$BATS_TEST_TMPDIR/bc.lite.ptx" bc_signed)" 5
	# nv-opt's Phase I marks the front end's flagless add, which LLVM then flags nuw nsw
	nvcc-lite -O3 -arch=sm_90 -emit-llvm "$BATS_TEST_TMPDIR/bc.cu" -o "$BATS_TEST_TMPDIR/bc.bc"
	llvm-dis "$BATS_TEST_TMPDIR/bc.bc" -o "$BATS_TEST_TMPDIR/bc.ll"
	fn() { sed -n "/^define .*@$1(/,/^}/p" "$BATS_TEST_TMPDIR/bc.ll"; }
	fn bc_uadd | grep -Eq '= add nuw nsw i32 .*, !nv.src.wrap' || fail "$(fn bc_uadd)"
	! fn bc_signed | grep -q 'nv.src.wrap' || fail "$(fn bc_signed)"
	# -nv-unroll-source-wrap=0 believes the flags LLVM inferred: unrolled x4
	nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -nv-unroll-source-wrap=0 "$BATS_TEST_TMPDIR/bc.cu" -o "$BATS_TEST_TMPDIR/bc.old.ptx"
	assert_equal "$(entry_loads "$BATS_TEST_TMPDIR/bc.old.ptx" bc_uadd)" 5
	if have_nvcc; then
		for k in bc_uadd bc_unsigned bc_signed; do
			assert_equal "$(entry_loads "$BATS_TEST_TMPDIR/bc.lite.ptx" $k)" "$(entry_loads "$BATS_TEST_TMPDIR/bc.nvcc.ptx" $k)"
		done
	fi
}

# bats test_tags=slow
@test "a grid-stride loop with atomics, a fence or a volatile access stays rolled, as cicc leaves it; storing plainly it is unrolled" {
	# bench's histogram_shared: cicc counts no run-time step in a loop with
	# ordered memory operations (measured on each kind)
	cat >"$BATS_TEST_TMPDIR/gs.cu" <<-'CU'
	__global__ void gs_atomic(const unsigned *w, unsigned *out, int n) {
	  int stride = gridDim.x * blockDim.x;
	  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&out[w[i] & 255], 1u);
	}
	__global__ void gs_fence(const unsigned *w, unsigned *out, int n) {
	  int stride = gridDim.x * blockDim.x;
	  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) { out[i] = w[i]; __threadfence(); }
	}
	__global__ void gs_volatile(const unsigned *w, volatile unsigned *out, int n) {
	  int stride = gridDim.x * blockDim.x;
	  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = w[i];
	}
	__global__ void gs_plain(const unsigned *w, unsigned *out, int n) {
	  int stride = gridDim.x * blockDim.x;
	  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = w[i] * 3;
	}
	__device__ __noinline__ unsigned f(unsigned x) { return x * 7 + 1; }
	__global__ void gs_call(const unsigned *w, unsigned *out, int n) {
	  int stride = gridDim.x * blockDim.x;
	  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = f(w[i]);
	}
	CU
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -pass-remarks-analysis=nv-unroll \
		"$BATS_TEST_TMPDIR/gs.cu" -o "$BATS_TEST_TMPDIR/gs.lite.ptx"
	assert_success
	[ "$(grep -c 'a step known only at run time, and atomics, fences, volatile accesses or asm in the loop' <<<"$stderr")" -eq 3 ] ||
		fail "$stderr"
	ptx gs
	for k in 9gs_atomic 8gs_fence 11gs_volatile; do
		assert_equal "$(entry_loads "$BATS_TEST_TMPDIR/gs.lite.ptx" _Z$k)" 1
	done
	assert_equal "$(entry_loads "$BATS_TEST_TMPDIR/gs.lite.ptx" _Z8gs_plain)" 5
	# a call does not make the remainder an epilog: from a run-time start it goes first
	assert_equal "$(entry_loads "$BATS_TEST_TMPDIR/gs.lite.ptx" _Z7gs_call)" 5
	[[ "$stderr" == *"loop %"*" in _Z7gs_callPKjPji: level 6 decides unroll by 4"* ]] || fail "$stderr"
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -pass-remarks=nv-unroll "$BATS_TEST_TMPDIR/gs.cu" \
		-o /dev/null
	[[ "$stderr" == *"in _Z7gs_callPKjPji unrolled with a prolog remainder by a factor of 4"* ]] || fail "$stderr"
	if have_nvcc; then
		for k in 9gs_atomic 8gs_fence 11gs_volatile 8gs_plain 7gs_call; do
			assert_equal "$(entry_loads "$BATS_TEST_TMPDIR/gs.lite.ptx" _Z$k)" "$(entry_loads "$BATS_TEST_TMPDIR/gs.nvcc.ptx" _Z$k)"
		done
	fi
}

@test "meaning: block-stride loops unrolled at run time with a prolog print the same as rolled" {
	cat >"$BATS_TEST_TMPDIR/s.c" <<-'EOF'
	#include <stdio.h>
	__attribute__((noinline)) unsigned sum(const unsigned *a, int n, int tid, int bs) {
		unsigned s = 0;
		for (int i = tid; i < n; i += bs) s = s * 3 + a[i];
		return s;
	}
	__attribute__((noinline)) void scale(unsigned *a, int n, int tid, int bs, unsigned k) {
		for (int i = tid; i < n; i += bs) a[i] = a[i] * k + (unsigned)i;
	}
	int main(void) {
		static unsigned a[1000];
		unsigned h = 0;
		for (int i = 0; i < 1000; i++) a[i] = 2654435761u * (unsigned)(i + 1);
		for (int n = 0; n < 1000; n += 37)
			for (int tid = 0; tid < 40; tid += 3)
				for (int bs = 1; bs < 300; bs += 13) {
					scale(a, n, tid, bs, 5u);
					h = h * 31 + sum(a, n, tid, bs);
				}
		printf("%u\n", h);
		return 0;
	}
	EOF
	same_unrolled s 'unrolled with a prolog remainder by a factor of 4' 2
}

@test "meaning: inclusive loops from a start within a step of zero, unrolled at run time, print the same as rolled" {
	cat >"$BATS_TEST_TMPDIR/r.c" <<-'EOF'
	#include <stdio.h>
	__attribute__((noinline)) unsigned up(const unsigned *a, int n, int x) {
		unsigned s = 0;
		for (int i = (x & 31) - 32; i <= n; i += 32) s = s * 3 + a[i + 32];
		return s;
	}
	__attribute__((noinline)) unsigned down(const unsigned *a, int n, int x) {
		unsigned s = 0;
		for (int i = x & 31; i >= n; i -= 32) s = s * 5 + a[i + 1000];
		return s;
	}
	int main(void) {
		static unsigned a[2100];
		unsigned h = 0;
		for (int i = 0; i < 2100; i++) a[i] = 2654435761u * (unsigned)(i + 1);
		for (int n = -40; n < 1000; n += 7)
			for (int x = 0; x < 70; x += 3)
				h = h * 31 + up(a, n, x) + down(a, -n, x);
		printf("%u\n", h);
		return 0;
	}
	EOF
	same_unrolled r 'unrolled with a .* remainder by a factor of 4' 2
}

# bats test_tags=slow
@test "an unsigned or size_t IV stepping by 32 stays rolled, as cicc leaves it; int i += 32 is unrolled x4 (nv-unroll-runtime-may-wrap)" {
	# issue 45 item 7: with no nsw on the add, cicc's SCEV (no mustprogress
	# loops) cannot rule out i += 32 wrapping past n and counts no such loop;
	# LLVM infers nuw on clang's mustprogress loops, so only nsw counts here
	cat >"$BATS_TEST_TMPDIR/wrap.cu" <<-'CU'
	__global__ void u32s(float *out, const float *in, unsigned n) {
	  float s = 0.f;
	  for (unsigned i = threadIdx.x & 31; i < n; i += 32) s += in[i];
	  out[threadIdx.x] = s;
	}
	__global__ void z32div(float *out, const float *a, const float *b, size_t n) {
	  for (size_t i = threadIdx.x & 31; i < n; i += 32) out[i] = a[i] / b[i];
	}
	__global__ void u2z(float *out, const float *in, unsigned n) {
	  for (unsigned i = 0; i < n; i += 2) out[i] = in[i] * 2.f;
	}
	__global__ void i32s(float *out, const float *in, int n) {
	  float s = 0.f;
	  for (int i = threadIdx.x & 31; i < n; i += 32) s += in[i];
	  out[threadIdx.x] = s;
	}
	__global__ void i32u(float *out, const float *in, unsigned n) {
	  for (int i = threadIdx.x & 31; i < n; i += 32) out[i] = in[i] * 2.f;
	}
	__global__ void u1(float *out, const float *in, unsigned n) {
	  for (unsigned i = threadIdx.x; i < n; i++) out[i] = in[i] * 2.f;
	}
	CU
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -pass-remarks-analysis=nv-unroll \
		"$BATS_TEST_TMPDIR/wrap.cu" -o "$BATS_TEST_TMPDIR/wrap.lite.ptx"
	assert_success
	[ "$(grep -c 'its add not nsw, may wrap past the bound of its unsigned test: no trip count' <<<"$stderr")" -eq 3 ] ||
		fail "$stderr"
	ptx wrap
	assert_equal "$(entry_loads "$BATS_TEST_TMPDIR/wrap.lite.ptx" _Z4u32s)" 1
	assert_equal "$(entry_loads "$BATS_TEST_TMPDIR/wrap.lite.ptx" _Z6z32div)" 2
	assert_equal "$(entry_loads "$BATS_TEST_TMPDIR/wrap.lite.ptx" _Z3u2z)" 1
	assert_equal "$(entry_loads "$BATS_TEST_TMPDIR/wrap.lite.ptx" _Z4i32s)" 5
	assert_equal "$(entry_loads "$BATS_TEST_TMPDIR/wrap.lite.ptx" _Z4i32u)" 5
	assert_equal "$(entry_loads "$BATS_TEST_TMPDIR/wrap.lite.ptx" _Z2u1)" 5
	# the knob gives the old decision: all six unrolled x4
	nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -nv-unroll-runtime-may-wrap=1 -Xcicc -pass-remarks=nv-unroll \
		"$BATS_TEST_TMPDIR/wrap.cu" -o "$BATS_TEST_TMPDIR/wrap.old.ptx" 2>"$BATS_TEST_TMPDIR/old.remarks"
	[ "$(grep -c 'may wrap past the bound counted (nv-unroll-runtime-may-wrap)' "$BATS_TEST_TMPDIR/old.remarks")" -eq 3 ] ||
		fail "$(cat "$BATS_TEST_TMPDIR/old.remarks")"
	assert_equal "$(entry_loads "$BATS_TEST_TMPDIR/wrap.old.ptx" _Z4u32s)" 5
	assert_equal "$(entry_loads "$BATS_TEST_TMPDIR/wrap.old.ptx" _Z6z32div)" 10
	if have_nvcc; then
		for k in 4u32s 6z32div 3u2z 4i32s 4i32u 2u1; do
			assert_equal "$k $(entry_loads "$BATS_TEST_TMPDIR/wrap.lite.ptx" _Z$k)" "$k $(entry_loads "$BATS_TEST_TMPDIR/wrap.nvcc.ptx" _Z$k)"
		done
	fi
	if have_cuda; then
		# no more registers than cicc's on the rolled ones
		for k in 4u32s 6z32div 3u2z; do
			for c in lite nvcc; do
				awk -v k="_Z$k" '/^\.visible \.entry/ { p = index($3, k) == 1 } /^\.(version|target|address_size)/ || p' \
					"$BATS_TEST_TMPDIR/wrap.$c.ptx" >"$BATS_TEST_TMPDIR/$k.$c.ptx"
			done
			l=$(regs "$BATS_TEST_TMPDIR/$k.lite.ptx") v=$(regs "$BATS_TEST_TMPDIR/$k.nvcc.ptx")
			[ "$l" -le "$v" ] || fail "$k: $l registers, nvcc $v"
		done
	fi
}

@test "a #pragma unroll loop from a start known by its range (j = 1 & i, odd-even sort) is unrolled to its maximum: no frame, as cicc" {
	# issue 45 item 0: CUB's StableOddEvenSort; the inner loop's count is
	# not constant until the outer loop is unrolled, and a runtime unroll
	# x4 left copies rolled after it: a 128-byte frame where nvcc has none
	cat >"$BATS_TEST_TMPDIR/oes.cu" <<-'CU'
	template <class T> __device__ __forceinline__ void sw(T &x, T &y) { T t = x; x = y; y = t; }
	template <int N> __global__ void blocksort(int *dk, int *dv) {
	  int k[N], v[N];
	  int base = (blockIdx.x * blockDim.x + threadIdx.x) * N;
	#pragma unroll
	  for (int i = 0; i < N; ++i) { k[i] = dk[base + i]; v[i] = dv[base + i]; }
	#pragma unroll
	  for (int i = 0; i < N; ++i)
	#pragma unroll
	    for (int j = 1 & i; j < N - 1; j += 2)
	      if (k[j + 1] < k[j]) { sw(k[j], k[j + 1]); sw(v[j], v[j + 1]); }
	#pragma unroll
	  for (int i = 0; i < N; ++i) { dk[base + i] = k[i]; dv[base + i] = v[i]; }
	}
	template __global__ void blocksort<16>(int *, int *);
	CU
	run --separate-stderr nvcc-lite -ptx -O3 -arch=sm_90 -Xcicc -pass-remarks=nv-unroll \
		"$BATS_TEST_TMPDIR/oes.cu" -o "$BATS_TEST_TMPDIR/oes.lite.ptx"
	assert_success
	grep -q 'completely unrolled to its maximum trip count with count 8' <<<"$stderr" || fail "$stderr"
	! grep -q '\.local' "$BATS_TEST_TMPDIR/oes.lite.ptx" || fail "a local array is left"
	! grep -q 'bra' "$BATS_TEST_TMPDIR/oes.lite.ptx" || fail "a loop is left"
	have_ptxas || return 0
	"$(ptxas_bin)" -v -arch=sm_90 "$BATS_TEST_TMPDIR/oes.lite.ptx" -o /dev/null 2>&1 | grep -q ' 0 bytes stack frame'
	if have_nvcc; then
		ptx oes
		[ "$(regs "$BATS_TEST_TMPDIR/oes.lite.ptx")" -le "$(regs "$BATS_TEST_TMPDIR/oes.nvcc.ptx")" ] ||
			fail "$(regs "$BATS_TEST_TMPDIR/oes.lite.ptx") registers, nvcc $(regs "$BATS_TEST_TMPDIR/oes.nvcc.ptx")"
	fi
}
