// Attention, one warp per query row: 64 heads x 256 queries, head dim 64,
// 256 keys per head.  A block holds 8 queries of one head and stages K and V
// in 32-key shared tiles (K padded against bank conflicts).  Lane l scores
// keys l, l+32, ...: its 8 scores live in a fully unrolled register array,
// then a shuffle softmax, then the weighted sum of V with the probabilities
// broadcast by __shfl_sync, each lane owning output dims l and l+32.
//@ kernel attention_row
//@ grid 2048
//@ block 256
//@ tol 1e-4
//@ arg out f32 1048576
//@ arg in f32 1048576 rand
//@ arg in f32 1048576 rand
//@ arg in f32 1048576 rand
//@ arg val i32 64

#define HEAD_DIM 64
#define NKEYS 256
#define NQUERIES 256
#define KTILE 32
#define NTILES (NKEYS / KTILE)
#define WARPS 8
#define THREADS (WARPS * 32)

static __device__ __forceinline__ float warp_max(float v)
{
#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
	return v;
}

static __device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

extern "C" __global__ void __launch_bounds__(THREADS)
attention_row(float *__restrict__ out, const float *__restrict__ Q,
	      const float *__restrict__ K, const float *__restrict__ V, int heads)
{
	__shared__ float qs[WARPS][HEAD_DIM];
	__shared__ float ks[KTILE][HEAD_DIM + 1];
	__shared__ float vs[KTILE][HEAD_DIM];

	int lane = threadIdx.x & 31;
	int warp = threadIdx.x >> 5;
	int query = blockIdx.x * WARPS + warp;	/* global over all heads */
	int head = (blockIdx.x * WARPS) / NQUERIES;

	if (head >= heads)
		return;

	const float *q = Q + (size_t)query * HEAD_DIM;
	const float *kh = K + (size_t)head * NKEYS * HEAD_DIM;
	const float *vh = V + (size_t)head * NKEYS * HEAD_DIM;
	const float scale = 0.125f;	/* 1/sqrt(HEAD_DIM) */

	qs[warp][lane] = q[lane];
	qs[warp][lane + 32] = q[lane + 32];

	float s[NTILES];

#pragma unroll
	for (int t = 0; t < NTILES; t++) {
		__syncthreads();
#pragma unroll
		for (int e = threadIdx.x; e < KTILE * HEAD_DIM; e += THREADS)
			ks[e / HEAD_DIM][e % HEAD_DIM] = kh[t * KTILE * HEAD_DIM + e];
		__syncthreads();

		float acc = 0.0f;
#pragma unroll
		for (int d = 0; d < HEAD_DIM; d++)
			acc += qs[warp][d] * ks[lane][d];
		s[t] = acc * scale;
	}

	float m = s[0];
#pragma unroll
	for (int t = 1; t < NTILES; t++)
		m = fmaxf(m, s[t]);
	m = warp_max(m);

	float sum = 0.0f;
#pragma unroll
	for (int t = 0; t < NTILES; t++) {
		s[t] = expf(s[t] - m);
		sum += s[t];
	}
	float inv = 1.0f / warp_sum(sum);

	float o0 = 0.0f, o1 = 0.0f;

#pragma unroll
	for (int t = 0; t < NTILES; t++) {
		__syncthreads();
#pragma unroll
		for (int e = threadIdx.x; e < KTILE * HEAD_DIM; e += THREADS)
			vs[e / HEAD_DIM][e % HEAD_DIM] = vh[t * KTILE * HEAD_DIM + e];
		__syncthreads();

#pragma unroll
		for (int j = 0; j < KTILE; j++) {
			float p = __shfl_sync(0xffffffffu, s[t], j);
			o0 += p * vs[j][lane];
			o1 += p * vs[j][lane + 32];
		}
	}

	float *o = out + (size_t)query * HEAD_DIM;
	o[lane] = o0 * inv;
	o[lane + 32] = o1 * inv;
}
