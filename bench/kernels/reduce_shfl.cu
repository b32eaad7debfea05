// Sum of a large float array: a grid-stride loop accumulates per thread,
// warp shuffles reduce each warp, the warp partials meet in shared memory,
// the first warp reduces them, and one float atomicAdd per block lands in
// out[0] (so the summation order across blocks is not deterministic).
//@ kernel reduce_shfl
//@ grid 1024
//@ block 256
//@ tol 1e-3
//@ arg in f32 16777216 pos
//@ arg out f32 1
//@ arg val i32 16777216

#define BLOCK 256
#define WARPS (BLOCK / 32)

static __device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	return v;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
reduce_shfl(const float *__restrict__ in, float *__restrict__ out, int n)
{
	__shared__ float partial[WARPS];

	int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
	int stride = gridDim.x * blockDim.x;
	float sum = 0.0f;

	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		sum += in[i];

	sum = warp_sum(sum);
	if (lane == 0)
		partial[wid] = sum;
	__syncthreads();

	if (wid == 0) {
		sum = lane < WARPS ? partial[lane] : 0.0f;
		sum = warp_sum(sum);
		if (lane == 0)
			atomicAdd(out, sum);
	}
}
