// Row softmax over an 8192x1024 matrix, one 256-thread block per row: a max
// pass and an exp-sum pass, each reduced with warp shuffles and a shared
// array of per-warp partials, then a normalising pass; float4 loads/stores.
//@ kernel softmax_row
//@ grid 8192
//@ block 256
//@ tol 1e-4
//@ arg out f32 8388608
//@ arg in f32 8388608 rand
//@ arg val i32 8192
//@ arg val i32 1024

#define THREADS 256
#define NEG_FLT_MAX (-3.402823466e+38f)

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
softmax_row(float *__restrict__ out, const float *__restrict__ in, int rows, int cols)
{
	__shared__ float red[THREADS / 32];

	int row = blockIdx.x;
	int lane = threadIdx.x & 31;
	int warp = threadIdx.x >> 5;
	int cols4 = cols >> 2;

	if (row >= rows)
		return;

	const float4 *x = (const float4 *)(in + (size_t)row * cols);
	float4 *y = (float4 *)(out + (size_t)row * cols);

	float m = NEG_FLT_MAX;
	for (int c = threadIdx.x; c < cols4; c += THREADS) {
		float4 v = x[c];
		m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
	}
	m = warp_max(m);
	if (lane == 0)
		red[warp] = m;
	__syncthreads();
	m = warp_max(lane < THREADS / 32 ? red[lane] : NEG_FLT_MAX);
	__syncthreads();

	float s = 0.0f;
	for (int c = threadIdx.x; c < cols4; c += THREADS) {
		float4 v = x[c];
		s += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m);
	}
	s = warp_sum(s);
	if (lane == 0)
		red[warp] = s;
	__syncthreads();
	s = warp_sum(lane < THREADS / 32 ? red[lane] : 0.0f);

	float inv = 1.0f / s;
	for (int c = threadIdx.x; c < cols4; c += THREADS) {
		float4 v = x[c], r;
		r.x = expf(v.x - m) * inv;
		r.y = expf(v.y - m) * inv;
		r.z = expf(v.z - m) * inv;
		r.w = expf(v.w - m) * inv;
		y[c] = r;
	}
}
