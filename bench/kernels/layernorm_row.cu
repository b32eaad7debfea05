// LayerNorm over the rows of an 8192x1024 matrix with gamma/beta, one
// 128-thread block per row: each thread keeps its 8 values (two float4s) in
// registers, mean and then variance come from warp shuffles plus a shared
// array of per-warp partials, and rsqrtf gives the scale.
//@ kernel layernorm_row
//@ grid 8192
//@ block 128
//@ tol 1e-4
//@ arg out f32 8388608
//@ arg in f32 8388608 rand
//@ arg in f32 1024 rand
//@ arg in f32 1024 rand
//@ arg val i32 8192
//@ arg val f32 1e-5

#define COLS 1024
#define THREADS 128
#define WARPS (THREADS / 32)
#define VEC (COLS / 4 / THREADS)

static __device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

static __device__ __forceinline__ float block_sum(float v, float *red)
{
	int lane = threadIdx.x & 31;
	int warp = threadIdx.x >> 5;

	v = warp_sum(v);
	if (lane == 0)
		red[warp] = v;
	__syncthreads();
	v = lane < WARPS ? red[lane] : 0.0f;
	v = warp_sum(v);
	__syncthreads();
	return v;
}

extern "C" __global__ void __launch_bounds__(THREADS)
layernorm_row(float *__restrict__ out, const float *__restrict__ in,
	      const float *__restrict__ gamma, const float *__restrict__ beta,
	      int rows, float eps)
{
	__shared__ float red[WARPS];

	int row = blockIdx.x;

	if (row >= rows)
		return;

	const float4 *x = (const float4 *)(in + (size_t)row * COLS);
	float4 *y = (float4 *)(out + (size_t)row * COLS);
	const float4 *g4 = (const float4 *)gamma;
	const float4 *b4 = (const float4 *)beta;
	float4 v[VEC];

	float s = 0.0f;
#pragma unroll
	for (int k = 0; k < VEC; k++) {
		v[k] = x[threadIdx.x + k * THREADS];
		s += v[k].x + v[k].y + v[k].z + v[k].w;
	}
	float mean = block_sum(s, red) * (1.0f / COLS);

	float q = 0.0f;
#pragma unroll
	for (int k = 0; k < VEC; k++) {
		v[k].x -= mean;
		v[k].y -= mean;
		v[k].z -= mean;
		v[k].w -= mean;
		q += v[k].x * v[k].x + v[k].y * v[k].y + v[k].z * v[k].z + v[k].w * v[k].w;
	}
	float rstd = rsqrtf(block_sum(q, red) * (1.0f / COLS) + eps);

#pragma unroll
	for (int k = 0; k < VEC; k++) {
		int c = threadIdx.x + k * THREADS;
		float4 g = g4[c], b = b4[c], r;

		r.x = v[k].x * rstd * g.x + b.x;
		r.y = v[k].y * rstd * g.y + b.y;
		r.z = v[k].z * rstd * g.z + b.z;
		r.w = v[k].w * rstd * g.w + b.w;
		y[c] = r;
	}
}
