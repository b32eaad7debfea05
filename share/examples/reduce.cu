// Sum of n floats: grid-stride loop, warp shuffles, shared memory, one atomic per block.
__global__ void reduce_sum(const float *in, float *out, int n)
{
	__shared__ float warp_sums[32];
	float s = 0.0f;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		s += in[i];
	for (int off = 16; off > 0; off /= 2)
		s += __shfl_down_sync(0xffffffffu, s, off);
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	if (lane == 0)
		warp_sums[warp] = s;
	__syncthreads();
	if (warp == 0) {
		s = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
		for (int off = 16; off > 0; off /= 2)
			s += __shfl_down_sync(0xffffffffu, s, off);
		if (lane == 0)
			atomicAdd(out, s);
	}
}
